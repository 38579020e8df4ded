/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * race_close: (b) recvmsg with the handle reused, (c) a sender blocked
 * for send-buffer space, closed under the call ((a), recvmsg, is
 * close_under() in race_close.c).
 */

#include "race_close.h"

/* ------------------------------------------------------------------ */
/* (b) the same, with the handle reused at once */

static void
recv_close_reuse(bool inline_engine, const char *what)
{
	struct sockaddr_in to = rds_test_sin(RDS_TEST_IP1, PORT_B), from;
	struct timeval tv = { .tv_sec = 2, .tv_usec = 0 };
	unsigned int r, fails = 0, stolen = 0, noreuse = 0;
	uint64_t rng = 0xb0b;
	char msg[64], got[64];
	int tx, s, s2;
	ssize_t n;

	tx = lib_up_tx(inline_engine, what);
	for (r = 0; r < rounds; r++) {
		s = rds_test_socket(RDS_TEST_IP1, PORT_A, 0, 0);
		CU_ASSERT_FATAL(s >= 0);
		if (!post_and_close(JOB_RECV, s, &rng, what, &fails, r))
			round_fail(&fails, r, "recvmsg returned before the "
				   "close: %zd", helper.ret);
		/* At once: the same handle, another port, a message. */
		s2 = rds_test_socket(RDS_TEST_IP1, PORT_B, 0, 0);
		CU_ASSERT_FATAL(s2 >= 0);
		if (s2 != s)
			noreuse++;
		snprintf(msg, sizeof(msg), "new socket, round %u", r);
		if (rds_test_send(tx, msg, strlen(msg) + 1, &to, 0) !=
		    (ssize_t)strlen(msg) + 1)
			round_fail(&fails, r, "send: %s", strerror(errno));
		/* The blocked call first: it must have failed, not taken
		 * the new socket's message. */
		helper_wait(&helper, "recvmsg blocked on a closed, reused "
			    "handle");
		if (helper.ret != -1 || helper.err != EBADF)
			round_fail(&fails, r, "blocked recvmsg returned %zd "
				   "(%s), not -1/EBADF", helper.ret,
				   helper.ret < 0 ? strerror(helper.err) :
				   (const char *)helper.data);
		if (helper.ret > 0 &&
		    strcmp((const char *)helper.data, msg) == 0) {
			/* It did: the new socket will not get it. */
			stolen++;
			CU_ASSERT(rte_rds_close(s2) == 0);
			continue;
		}
		/* The new socket gets it (a 2 s SO_RCVTIMEO bounds this). */
		rte_rds_setsockopt(s2, SOL_SOCKET, SO_RCVTIMEO, &tv,
				   sizeof(tv));
		memset(got, 0, sizeof(got));
		n = rds_test_recv(s2, got, sizeof(got) - 1, &from, 0, NULL);
		if (n != (ssize_t)strlen(msg) + 1 || strcmp(got, msg) != 0)
			round_fail(&fails, r, "new socket: recv %zd (%s)", n,
				   n < 0 ? strerror(errno) : got);
		CU_ASSERT(rte_rds_close(s2) == 0);
	}
	printf("  %s: %u rounds, %u failed, %u times the blocked call "
	       "returned the new socket's message, %u rounds without "
	       "handle reuse\n", what, rounds, fails, stolen, noreuse);
	CU_ASSERT_EQUAL(fails, 0);
	CU_ASSERT_EQUAL(stolen, 0);
	/* The free list hands the closed handle out first. */
	CU_ASSERT_EQUAL(noreuse, 0);
	CU_ASSERT(rte_rds_close(tx) == 0);
	lib_down();
}

RACE_CASES(recv_close_reuse)

/* ------------------------------------------------------------------ */
/* (c) sender blocked for send-buffer space, handle reused */

#define SNDBUF 4096
#define SLEN 1024

/* Non-blocking sends of SLEN bytes until EAGAIN: how many went. */
static int
fill_sndbuf(int s, const struct sockaddr_in *to, int *err)
{
	static uint8_t buf[SLEN];
	int n = 0;

	*err = 0;
	while (n < 1000) {
		if (rds_test_send(s, buf, SLEN, to, MSG_DONTWAIT) != SLEN) {
			*err = errno;
			break;
		}
		n++;
	}
	return n;
}

static void
send_close_reuse(bool inline_engine, const char *what)
{
	struct rte_rds_loop_faults f = { .drop_one_in = 1 };
	struct sockaddr_in to = rds_test_sin(RDS_TEST_IP2, PORT_TX);
	unsigned int r, fails = 0, noreuse = 0, charged = 0;
	uint64_t rng = 0xcafe;
	int dst, s, s2, n0, n1, err;

	lib_up(inline_engine, what);
	/* Nothing is ever acknowledged: the send buffer only empties when
	 * its socket closes. */
	CU_ASSERT_FATAL(rte_rds_loop_set_faults(&f) == 0);
	dst = rds_test_socket(RDS_TEST_IP2, PORT_TX, 0, 0);
	CU_ASSERT_FATAL(dst >= 0);
	for (r = 0; r < rounds; r++) {
		s = rds_test_socket(RDS_TEST_IP1, PORT_A, SNDBUF, 0);
		CU_ASSERT_FATAL(s >= 0);
		n0 = fill_sndbuf(s, &to, &err);
		if (n0 != SNDBUF / SLEN || err != EAGAIN)
			round_fail(&fails, r, "fresh socket: %d sends before "
				   "%s, not %d before EAGAIN", n0,
				   strerror(err), SNDBUF / SLEN);
		helper.len = SLEN;
		helper.to = to;
		if (!post_and_close(JOB_SEND, s, &rng, what, &fails, r))
			round_fail(&fails, r, "blocking send returned before "
				   "the close: %zd (%s)", helper.ret,
				   strerror(helper.err));
		s2 = rds_test_socket(RDS_TEST_IP1, PORT_B, SNDBUF, 0);
		CU_ASSERT_FATAL(s2 >= 0);
		if (s2 != s)
			noreuse++;
		helper_wait(&helper, "sendmsg blocked for send-buffer space "
			    "on a closed, reused handle");
		if (helper.ret != -1 || helper.err != EBADF)
			round_fail(&fails, r, "blocked send returned %zd (%s), "
				   "not -1/EBADF", helper.ret,
				   helper.ret < 0 ? strerror(helper.err) :
				   "sent");
		/* The new socket's buffer is its own, and empty. */
		n1 = fill_sndbuf(s2, &to, &err);
		if (n1 != n0) {
			charged++;
			round_fail(&fails, r, "new socket: %d sends before %s, "
				   "a fresh socket takes %d", n1,
				   strerror(err), n0);
		}
		CU_ASSERT(rte_rds_close(s2) == 0);
	}
	printf("  %s: %u rounds, %u failed, %u times the new socket's "
	       "send buffer was charged, %u rounds without handle "
	       "reuse\n", what, rounds, fails, charged, noreuse);
	CU_ASSERT_EQUAL(fails, 0);
	CU_ASSERT_EQUAL(noreuse, 0);
	CU_ASSERT(rte_rds_close(dst) == 0);
	CU_ASSERT(rte_rds_loop_set_faults(NULL) == 0);
	lib_down();
}

RACE_CASES(send_close_reuse)


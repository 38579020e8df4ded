/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flow control over the loop transport (inline engine, driven by the test
 * thread only when the test says so).
 *
 * sndbuf_full: with SO_SNDBUF 8192 and the engine not polled, 1 KiB
 * non-blocking sends fail with EAGAIN after about 8192 bytes; polling the
 * engine (ACKs release the buffer) makes sending work again, and every
 * accepted message arrives in order. A message larger than SO_SNDBUF, or
 * larger than 1 MiB, is EMSGSIZE; exactly 1 MiB with a 4 MiB buffer goes.
 *
 * congestion: a receiver with SO_RCVBUF 16 KiB that does not read makes
 * non-blocking sends to it fail with ENOBUFS; while it drains, its port
 * stays congested until it is below half of its buffer (the kernel's
 * hysteresis), then a send succeeds again.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include <rte_errno.h>
#include <rte_rds.h>

#include "rds_test.h"

#define MSG 1024

static void
fill_msg(uint8_t *buf, uint32_t len, uint64_t id)
{
	memcpy(buf, &id, sizeof(id));
	rds_test_fill(buf + sizeof(id), len - sizeof(id), id * 7919);
}

/* Receive n messages of len bytes with ids first..first+n-1 on s. */
static uint64_t
recv_ids(int s, uint64_t first, uint64_t n, uint32_t len,
	 const struct sockaddr_in *src)
{
	static uint8_t buf[RTE_RDS_MAX_MSG_SIZE + 1], want[RTE_RDS_MAX_MSG_SIZE];
	struct rds_test_deadline dl;
	struct sockaddr_in from;
	uint64_t got = 0, id;
	int mflags;
	ssize_t r;

	rds_test_deadline_init(&dl, 30, 60);
	while (got < n) {
		r = rds_test_recv(s, buf, sizeof(buf), &from, MSG_DONTWAIT,
				  &mflags);
		if (r < 0) {
			if (rte_errno != EAGAIN) {
				printf("  recv: %s\n", rte_strerror(rte_errno));
				break;
			}
			rds_test_kick();
			if (rds_test_deadline_expired(&dl, "recv_ids"))
				break;
			continue;
		}
		rds_test_deadline_progress(&dl);
		id = first + got;
		fill_msg(want, len, id);
		if ((uint32_t)r != len || memcmp(buf, want, len) != 0 ||
		    !rds_test_sin_eq(&from, src)) {
			uint64_t gid = UINT64_MAX;

			if (r >= 8)
				memcpy(&gid, buf, 8);
			printf("  FAIL: expected id %" PRIu64 " (%u bytes), "
			       "got id %" PRIu64 " (%zd bytes)\n", id, len,
			       gid, r);
			break;
		}
		got++;
	}
	return got;
}

static void
test_sndbuf_full(void)
{
	static uint8_t big[RTE_RDS_MAX_MSG_SIZE + 1];
	struct sockaddr_in aa = rds_test_sin(RDS_TEST_IP1, 5101);
	struct sockaddr_in ba = rds_test_sin(RDS_TEST_IP2, 5102);
	const int sndbuf = 8192;
	struct rds_test_deadline dl;
	struct rte_rds_conf conf;
	uint8_t buf[MSG];
	uint64_t accepted = 0, id = 0;
	socklen_t olen;
	int a, b, v, err = 0, big_sndbuf = 4 * 1024 * 1024;
	ssize_t r = -1;

	rds_test_watchdog(300, "sndbuf_full");
	rds_test_conf(&conf, RTE_RDS_ENGINE_INLINE, RTE_RDS_IDLE_YIELD);
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
	a = rds_test_socket(RDS_TEST_IP1, 5101, sndbuf, 0);
	b = rds_test_socket(RDS_TEST_IP2, 5102, 0, 0);
	CU_ASSERT_FATAL(a >= 0 && b >= 0);

	/* The kernel's doubling rule. */
	v = 0;
	olen = sizeof(v);
	CU_ASSERT(rte_rds_getsockopt(a, SOL_SOCKET, SO_SNDBUF, &v, &olen) == 0);
	CU_ASSERT_EQUAL(v, 2 * sndbuf);

	/* Larger than the send buffer: EMSGSIZE, even with room. */
	fill_msg(big, sndbuf + 1, 999);
	CU_ASSERT(rds_test_send(a, big, sndbuf + 1, &ba, MSG_DONTWAIT) == -1);
	CU_ASSERT_EQUAL(rte_errno, EMSGSIZE);

	/* Fill the send buffer without polling the engine. */
	while (accepted < 1000) {
		fill_msg(buf, MSG, id);
		r = rds_test_send(a, buf, MSG, &ba, MSG_DONTWAIT);
		if (r < 0) {
			err = rte_errno;
			break;
		}
		CU_ASSERT_EQUAL(r, MSG);
		accepted++;
		id++;
	}
	printf("\n  SO_SNDBUF %d: %" PRIu64 " x %d B accepted, then %s\n",
	       sndbuf, accepted, MSG, err != 0 ? rte_strerror(err) : "none");
	CU_ASSERT_EQUAL(err, EAGAIN);
	CU_ASSERT(accepted * MSG >= (uint64_t)sndbuf - MSG);
	CU_ASSERT(accepted * MSG <= (uint64_t)sndbuf + MSG);
	/* Still full while nobody polls. */
	CU_ASSERT(rds_test_send(a, buf, MSG, &ba, MSG_DONTWAIT) == -1);
	CU_ASSERT_EQUAL(rte_errno, EAGAIN);

	/* Poll the engine and receive: sending works again. */
	fill_msg(buf, MSG, id);
	rds_test_deadline_init(&dl, 30, 30);
	for (;;) {
		rds_test_kick();
		r = rds_test_send(a, buf, MSG, &ba, MSG_DONTWAIT);
		if (r >= 0 || rte_errno != EAGAIN ||
		    rds_test_deadline_expired(&dl, "send after polling"))
			break;
	}
	CU_ASSERT_EQUAL(r, MSG);
	if (r == MSG) {
		accepted++;
		id++;
	}
	CU_ASSERT_EQUAL(recv_ids(b, 0, accepted, MSG, &aa), accepted);

	/* Over 1 MiB: EMSGSIZE, whatever the send buffer; 1 MiB goes. */
	CU_ASSERT(rte_rds_setsockopt(a, SOL_SOCKET, SO_SNDBUF, &big_sndbuf,
				     sizeof(big_sndbuf)) == 0);
	fill_msg(big, RTE_RDS_MAX_MSG_SIZE + 1, 12345);
	CU_ASSERT(rds_test_send(a, big, RTE_RDS_MAX_MSG_SIZE + 1, &ba,
				MSG_DONTWAIT) == -1);
	CU_ASSERT_EQUAL(rte_errno, EMSGSIZE);
	fill_msg(big, RTE_RDS_MAX_MSG_SIZE, 12345);
	r = rds_test_send(a, big, RTE_RDS_MAX_MSG_SIZE, &ba, MSG_DONTWAIT);
	CU_ASSERT_EQUAL(r, RTE_RDS_MAX_MSG_SIZE);
	if (r < 0)
		printf("  1 MiB send: %s\n", rte_strerror(rte_errno));
	else
		CU_ASSERT_EQUAL(recv_ids(b, 12345, 1, RTE_RDS_MAX_MSG_SIZE,
					 &aa), 1);

	CU_ASSERT(rte_rds_close(a) == 0);
	CU_ASSERT(rte_rds_close(b) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
	rds_test_watchdog(0, NULL);
}

/* Try one send after polling the engine a while; returns rte_errno or 0. */
static int
try_send(int a, const struct sockaddr_in *to, uint64_t id)
{
	uint8_t buf[MSG];

	rds_test_kick_n(32);
	fill_msg(buf, MSG, id);
	if (rds_test_send(a, buf, MSG, to, MSG_DONTWAIT) == MSG)
		return 0;
	return rte_errno;
}

static void
test_congestion(void)
{
	static uint8_t rbuf[MSG + 1];
	struct sockaddr_in ba = rds_test_sin(RDS_TEST_IP2, 5202);
	const int rcvbuf = 16384;
	struct rds_test_deadline dl;
	struct rte_rds_conf conf;
	uint8_t buf[MSG];
	uint64_t accepted = 0, nread = 0, queued, id;
	uint64_t eagain = 0, hyst_checks = 0;
	socklen_t olen;
	int a, b, v, err = 0, e;
	ssize_t r;

	rds_test_watchdog(300, "congestion");
	rds_test_conf(&conf, RTE_RDS_ENGINE_INLINE, RTE_RDS_IDLE_YIELD);
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
	a = rds_test_socket(RDS_TEST_IP1, 5201, 0, 0);
	b = rds_test_socket(RDS_TEST_IP2, 5202, 0, rcvbuf);
	CU_ASSERT_FATAL(a >= 0 && b >= 0);
	v = 0;
	olen = sizeof(v);
	CU_ASSERT(rte_rds_getsockopt(b, SOL_SOCKET, SO_RCVBUF, &v, &olen) == 0);
	CU_ASSERT_EQUAL(v, 2 * rcvbuf);

	/* Send (polling the engine) until the receiver's port is congested. */
	rds_test_deadline_init(&dl, 30, 60);
	while (accepted < 4096) {
		fill_msg(buf, MSG, accepted);
		r = rds_test_send(a, buf, MSG, &ba, MSG_DONTWAIT);
		if (r == MSG) {
			accepted++;
			rds_test_deadline_progress(&dl);
			rds_test_kick_n(4);
			continue;
		}
		err = rte_errno;
		if (r >= 0 || err != EAGAIN)
			break;
		eagain++;	/* send buffer: let ACKs come back */
		rds_test_kick_n(4);
		if (rds_test_deadline_expired(&dl, "congestion fill"))
			break;
	}
	printf("\n  SO_RCVBUF %d: %" PRIu64 " x %d B accepted, then %s "
	       "(%" PRIu64 " EAGAIN on the way)\n", rcvbuf, accepted, MSG,
	       err != 0 ? rte_strerror(err) : "none", eagain);
	CU_ASSERT_EQUAL_FATAL(err, ENOBUFS);
	/* Congested only once the receive queue went over SO_RCVBUF, and
	 * announced promptly. */
	CU_ASSERT(accepted * MSG >= (uint64_t)rcvbuf);
	CU_ASSERT(accepted * MSG <= (uint64_t)rcvbuf + 64 * 1024);
	/* Stays congested while nobody reads. */
	CU_ASSERT_EQUAL(try_send(a, &ba, accepted), ENOBUFS);

	/* Drain slowly: congested until below half of SO_RCVBUF. */
	id = accepted;
	e = ENOBUFS;
	rds_test_deadline_init(&dl, 30, 60);
	while (nread < accepted) {
		r = rds_test_recv(b, rbuf, sizeof(rbuf), NULL, MSG_DONTWAIT,
				  NULL);
		if (r < 0) {
			CU_ASSERT_EQUAL(rte_errno, EAGAIN);
			rds_test_kick();
			if (rds_test_deadline_expired(&dl, "drain"))
				break;
			continue;
		}
		rds_test_deadline_progress(&dl);
		CU_ASSERT_EQUAL(r, MSG);
		memcpy(&id, rbuf, sizeof(id));
		CU_ASSERT_EQUAL(id, nread);
		nread++;
		queued = (accepted - nread) * MSG;
		if (queued >= (uint64_t)rcvbuf / 2 + MSG) {
			e = try_send(a, &ba, 1000000 + nread);
			hyst_checks++;
			if (e != ENOBUFS) {
				printf("  FAIL: with %" PRIu64 " B still queued"
				       " (SO_RCVBUF %d) a send gave %s, not "
				       "ENOBUFS\n", queued, rcvbuf,
				       e == 0 ? "success" : rte_strerror(e));
				CU_FAIL("congestion cleared above half");
				break;
			}
		} else if (queued < (uint64_t)rcvbuf / 2) {
			break;
		}
	}
	printf("  drained to %" PRIu64 " B queued; still congested at %"
	       PRIu64 " checks above half\n", (accepted - nread) * MSG,
	       hyst_checks);
	CU_ASSERT(hyst_checks > 0);

	/* Below half: the map update reaches the sender, a send succeeds. */
	rds_test_deadline_init(&dl, 10, 10);
	do {
		e = try_send(a, &ba, accepted);
	} while (e == ENOBUFS && !rds_test_deadline_expired(&dl, "uncongest"));
	CU_ASSERT_EQUAL(e, 0);
	if (e == 0)
		accepted++;

	/* Everything accepted arrives, in order. */
	rds_test_deadline_init(&dl, 30, 60);
	while (nread < accepted) {
		r = rds_test_recv(b, rbuf, sizeof(rbuf), NULL, MSG_DONTWAIT,
				  NULL);
		if (r < 0) {
			rds_test_kick();
			if (rds_test_deadline_expired(&dl, "final drain"))
				break;
			continue;
		}
		rds_test_deadline_progress(&dl);
		memcpy(&id, rbuf, sizeof(id));
		CU_ASSERT_EQUAL(id, nread);
		nread++;
	}
	CU_ASSERT_EQUAL(nread, accepted);

	CU_ASSERT(rte_rds_close(a) == 0);
	CU_ASSERT(rte_rds_close(b) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
	rds_test_watchdog(0, NULL);
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "sndbuf_full", test_sndbuf_full },
		{ "congestion", test_congestion },
		{ NULL, NULL },
	};

	return rds_test_main("loop_flow", "0", cases);
}

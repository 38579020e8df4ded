/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * race_close: (d) rte_rds_poll and rte_rds_event_arm, (e) RDS_INFO
 * walks, closed under the call.
 */

#include "race_close.h"

/* ------------------------------------------------------------------ */
/* (d) rte_rds_poll and rte_rds_event_arm racing close */

/* poll_close (rte_rds_poll blocked, the socket closed) is close_under()
 * in race_close.c. Here the same with the handle reused at once by a
 * socket bound elsewhere that has a message queued: the poll that started on the closed
 * socket must report POLLNVAL, not the new socket's POLLIN. */
static void
poll_close_reuse(bool inline_engine, const char *what)
{
	struct sockaddr_in to = rds_test_sin(RDS_TEST_IP1, PORT_B);
	unsigned int r, fails = 0, early = 0, newsock = 0;
	uint64_t rng = 0xd11d;
	uint8_t m[8] = { 0 };
	int tx, s, s2;

	tx = lib_up_tx(inline_engine, what);
	for (r = 0; r < rounds; r++) {
		s = rds_test_socket(RDS_TEST_IP1, PORT_A, 0, 0);
		CU_ASSERT_FATAL(s >= 0);
		helper.events = POLLIN;
		helper.timeout_ms = -1;
		if (!post_and_close(JOB_POLL, s, &rng, what, &fails, r))
			early++;
		s2 = rds_test_socket(RDS_TEST_IP1, PORT_B, 0, 0);
		CU_ASSERT_FATAL(s2 == s);
		if (rds_test_send(tx, m, sizeof(m), &to, 0) != sizeof(m))
			round_fail(&fails, r, "send: %s", strerror(errno));
		helper_wait(&helper, "rte_rds_poll blocked on a closed, reused "
			    "handle");
		if (helper.ret == 1 && (helper.revents & POLLIN))
			newsock++;
		check_closed_poll(&fails, r, "poll returned");
		CU_ASSERT(rte_rds_close(s2) == 0);
	}
	printf("  %s: %u rounds, %u failed, %u reported the new socket's "
	       "POLLIN, %u returned before the close\n", what, rounds, fails,
	       newsock, early);
	CU_ASSERT_EQUAL(fails, 0);
	CU_ASSERT_EQUAL(early, 0);
	CU_ASSERT(rte_rds_close(tx) == 0);
	lib_down();
}

RACE_CASES(poll_close_reuse)

static void
arm_close(bool inline_engine, const char *what)
{
	unsigned int r, fails = 0;
	uint64_t rng = 0xa4a4, k, t0, iters = 0;
	int s;

	lib_up(inline_engine, what);
	for (r = 0; r < rounds; r++) {
		s = rds_test_socket(RDS_TEST_IP1, PORT_A, 0, 0);
		CU_ASSERT_FATAL(s >= 0);
		helper_post(&helper, JOB_ARM_LOOP, s);
		k = rds_test_rand_range(&rng, 1, 64);
		t0 = rds_test_now_ns();
		while (__atomic_load_n(&helper.iters, __ATOMIC_ACQUIRE) < k &&
		       !helper_done(&helper) && rds_test_since_s(t0) < 10)
			sched_yield();
		if (rte_rds_close(s) != 0)
			round_fail(&fails, r, "close: %s", strerror(errno));
		helper_wait(&helper, "event_arm/poll loop on a closed socket");
		iters += __atomic_load_n(&helper.iters, __ATOMIC_ACQUIRE);
		check_closed_poll(&fails, r, "loop ended with");
	}
	printf("  %s: %u rounds, %u failed, %" PRIu64 " calls before the "
	       "closes\n", what, rounds, fails, iters);
	CU_ASSERT_EQUAL(fails, 0);
	lib_down();
}

RACE_CASES(arm_close)

/* ------------------------------------------------------------------ */
/* (e) RDS_INFO walks racing close */

static void
info_close(bool inline_engine, const char *what)
{
	struct sockaddr_in to;
	struct rte_rds_pollfd pfd;
	unsigned int r, i, fails = 0;
	uint8_t buf[INFO_LEN];
	uint64_t it;
	int tx, q, s;

	lib_up(inline_engine, what);
	tx = rds_test_socket(RDS_TEST_IP2, PORT_TX, 0, 0);
	q = rds_test_socket(RDS_TEST_IP4, PORT_Q, 0, 0);
	CU_ASSERT_FATAL(tx >= 0 && q >= 0);
	memset(buf, 0x11, sizeof(buf));
	helper_post(&helper, JOB_INFO_LOOP, q);
	for (r = 0; r < rounds; r++) {
		uint16_t port = (uint16_t)(PORT_INFO_BASE + r % INFO_PORTS);

		s = rds_test_socket(RDS_TEST_IP3, port, 0, 0);
		CU_ASSERT_FATAL(s >= 0);
		to = rds_test_sin(RDS_TEST_IP3, port);
		for (i = 0; i < INFO_MSGS; i++)
			if (rds_test_send(tx, buf, INFO_LEN, &to, 0) !=
			    INFO_LEN)
				round_fail(&fails, r, "send: %s",
					   strerror(errno));
		/* Delivered (this thread drives the engine too), then a
		 * walk or two with the messages queued, then close. */
		pfd.sock = s;
		pfd.events = POLLIN;
		pfd.revents = 0;
		if (rte_rds_poll(&pfd, 1, 5000) != 1 ||
		    !(pfd.revents & POLLIN))
			round_fail(&fails, r, "poll: nothing arrived");
		rds_test_kick_n(4);
		it = __atomic_load_n(&helper.iters, __ATOMIC_ACQUIRE);
		while (__atomic_load_n(&helper.iters, __ATOMIC_ACQUIRE) <
		       it + 1 + r % 3 && !helper_done(&helper))
			sched_yield();
		if (rte_rds_close(s) != 0)
			round_fail(&fails, r, "close: %s", strerror(errno));
	}
	__atomic_store_n(&helper.stop, 1, __ATOMIC_RELEASE);
	helper_wait(&helper, "RDS_INFO loop");
	printf("  %s: %u rounds, %u failed, %" PRIu64 " info calls, %"
	       PRIu64 " records checked, %" PRIu64 " ENOSPC%s%s\n", what,
	       rounds, fails, __atomic_load_n(&helper.iters, __ATOMIC_ACQUIRE),
	       helper.records, helper.enospc, helper.bad ? "; helper: " : "",
	       helper.bad ? helper.why : "");
	CU_ASSERT_EQUAL(fails, 0);
	CU_ASSERT(!helper.bad);
	CU_ASSERT(helper.records > 0);
	CU_ASSERT(rte_rds_close(tx) == 0);
	CU_ASSERT(rte_rds_close(q) == 0);
	lib_down();
}

RACE_CASES(info_close)


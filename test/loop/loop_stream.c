/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stream test over the loop transport, with the shared stream checker
 * (test/common/rds_stream.h): four sockets (two on 10.255.0.1, one each on
 * .2 and .3), RDS_TEST_MSGS messages in all (default 200 000), every
 * socket to every other, sizes mostly 0..4096 bytes and one in a thousand
 * 64 KiB..1 MiB, per-pair sequence and running SHA-256 checked.
 *
 * Three runs, each with its own rte_rds_init() .. rte_rds_fini():
 *   a) the engine on its own lcore (yielding idle policy),
 *   b) the engine inline, driven by the test thread,
 *   c) inline with loop faults (drop 1 in 500 frames, reset 1 in 2000),
 *      then the counters must show drops, resets, and retransmission or
 *      duplicate drop.
 *
 * RDS_TEST_MSGS=1000000 is the long run.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include <rte_errno.h>
#include <rte_rds.h>
#include <rte_rds_loop.h>

#include "rds_test.h"
#include "rds_stream.h"

#define NSOCK 4
enum stream_mode {
	MODE_LCORE,
	MODE_INLINE,
	MODE_FAULTS,
};

static void
stream_test(enum stream_mode mode)
{
	static const char *const names[] = {
		"stream/lcore-engine", "stream/inline-engine",
		"stream/inline-faults",
	};
	const char *what = names[mode];
	uint64_t total = rds_test_env_u64("RDS_TEST_MSGS", 200000);
	struct rte_rds_loop_faults faults;
	struct rte_rds_loop_stats lst;
	struct rte_rds_stats rst;
	struct rds_stream_conf sc;
	struct rte_rds_conf conf;
	struct rds_stream *st;
	uint32_t lcore = RTE_RDS_ENGINE_INLINE;
	uint64_t t0, sent, received, bytes, eagain, enobufs;
	double secs;
	bool ok;

	if (total < NSOCK)
		total = NSOCK;
	rds_stream_conf_default(&sc, total);
	if (mode == MODE_LCORE) {
		lcore = rds_test_worker_lcore();
		CU_ASSERT_FATAL(lcore < RTE_MAX_LCORE);
	}
	rds_test_watchdog(sc.limit_s + 60, what);
	rds_test_conf(&conf, lcore, RTE_RDS_IDLE_YIELD);
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
	if (mode == MODE_FAULTS) {
		memset(&faults, 0, sizeof(faults));
		faults.drop_one_in = 500;
		faults.reset_one_in = 2000;
		faults.seed = 42;
		CU_ASSERT_FATAL(rte_rds_loop_set_faults(&faults) == 0);
	}
	st = rds_stream_new(&sc);
	CU_ASSERT_FATAL(st != NULL);

	printf("\n  %s: %" PRIu64 " messages among %d sockets\n", what, total,
	       NSOCK);
	t0 = rds_test_now_ns();
	ok = rds_stream_run(st, what);
	secs = rds_test_since_s(t0);
	rds_stream_counts(st, &sent, &received, &bytes, &eagain, &enobufs);
	CU_ASSERT(ok);
	CU_ASSERT_EQUAL(received, total);
	CU_ASSERT_EQUAL(sent, total);
	if (ok) {
		CU_ASSERT(rds_stream_quiet(st));
		CU_ASSERT_EQUAL(rds_stream_verify(st), 0);
	}
	printf("  %s: %" PRIu64 " messages, %.1f MB in %.2f s: %.0f msg/s, "
	       "%.1f MB/s (EAGAIN %" PRIu64 ", ENOBUFS %" PRIu64 ")\n", what,
	       received, (double)bytes / 1e6, secs, (double)received / secs,
	       (double)bytes / 1e6 / secs, eagain, enobufs);

	rst = rds_test_stats();
	rds_test_stats_print("  engine counters:", &rst);
	CU_ASSERT(rst.s_recv_delivered >= total);
	CU_ASSERT_EQUAL(rst.s_recv_drop_no_sock, 0);
	CU_ASSERT_EQUAL(rst.s_recv_drop_bad_hdr, 0);
	memset(&lst, 0, sizeof(lst));
	CU_ASSERT(rte_rds_loop_stats_get(&lst) == 0);
	printf("  loop: frames %" PRIu64 " dropped %" PRIu64 " flushed %"
	       PRIu64 " resets %" PRIu64 "\n", lst.frames, lst.dropped,
	       lst.flushed, lst.resets);
	CU_ASSERT(lst.frames > 0);
	if (mode == MODE_FAULTS) {
		/* The fault path was really exercised. */
		CU_ASSERT(lst.dropped > 0);
		CU_ASSERT(lst.resets > 0);
		CU_ASSERT(rst.s_conn_reset > 0);
		CU_ASSERT(rst.s_recv_drop_old_seq > 0 ||
			  rst.s_send_retransmit > 0);
		CU_ASSERT(rte_rds_loop_set_faults(NULL) == 0);
	} else {
		CU_ASSERT_EQUAL(lst.dropped, 0);
		CU_ASSERT_EQUAL(lst.resets, 0);
	}

	rds_stream_free(st);
	CU_ASSERT(rte_rds_fini() == 0);
	CU_ASSERT(!rds_test_lib_up());
	rds_test_watchdog(0, NULL);
}

static void
test_stream_lcore(void)
{
	stream_test(MODE_LCORE);
}

static void
test_stream_inline(void)
{
	stream_test(MODE_INLINE);
}

static void
test_stream_faults(void)
{
	stream_test(MODE_FAULTS);
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "stream_lcore_engine", test_stream_lcore },
		{ "stream_inline_engine", test_stream_inline },
		{ "stream_inline_faults", test_stream_faults },
		{ NULL, NULL },
	};

	return rds_test_main("loop_stream", "0-1", cases);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_faults: operations under frame faults and resets, a reset in the
 * middle of an answer or after a lost message, a small window.
 */

#include "rdma_faults.h"

static void
faults_case(const struct rte_rds_eth_faults *f, unsigned int reset_every,
	    const char *what)
{
	static const size_t sizes[] = { 1, 100, 1500, 4096, 9000, 65536,
					100000 };
	struct rdma_eth_resets hook = { .every = reset_every };
	struct rte_rds_eth_stats e0, e1;
	struct rte_rds_stats s0, s1;
	unsigned int i, bad = 0, r, nfadd = 0;
	uint64_t off = 4096, *counter;
	struct ctx cx;

	if (!ctx_up(&cx)) {
		CU_FAIL("set-up");
		return;
	}
	counter = (uint64_t *)(void *)cx.g.pages;
	*counter = 0;
	/* READs and WRITEs on slices of their own, atomics on words of the
	 * first page. */
	for (r = 0; r < 2; r++) {
		for (i = 0; i < RTE_DIM(sizes); i++) {
			op_new(&cx, K_READ, sizes[i], off);
			off += sizes[i] + 64;
			op_new(&cx, K_WRITE, sizes[i], off);
			off += sizes[i] + 64;
			op_new(&cx, K_FADD, 8, 0);
			nfadd++;
			if (i % 2 == 0) {
				struct op *o = op_new(&cx, K_CSWP, 8,
						      8 * (1 + cx.n));

				o->cswp_new = 0xC5C50000ULL + cx.n;
			}
		}
	}
	CU_ASSERT_FATAL(off <= cx.g.len);
	memcpy(cx.before, cx.g.pages, cx.g.len);
	s0 = rds_test_stats();
	CU_ASSERT(rte_rds_eth_stats_get(&e0) == 0);
	CU_ASSERT(rte_rds_eth_set_faults(f) == 0);
	if (reset_every != 0)
		rdma_set_poll_hook(rdma_eth_resets_hook, &hook);
	for (i = 0; i < cx.n; i++) {
		CU_ASSERT(op_send(&cx, &cx.ops[i], &cx.env.ca, cx.cookie));
		if (i % 5 == 4)
			rdma_pump(2);
	}
	take_notes(&cx, cx.n, 60000, &bad);
	take_msgs(&cx, 200, &bad);
	CU_ASSERT(rte_rds_eth_stats_get(&e1) == 0);
	s1 = rds_test_stats();
	rdma_set_poll_hook(NULL, NULL);
	CU_ASSERT(rte_rds_eth_set_faults(NULL) == 0);
	/* Nothing more comes. */
	take_notes(&cx, 0, 3000, &bad);
	take_msgs(&cx, 100, &bad);
	printf("  %s: %u ops; frames dropped %" PRIu64 ", duplicated %"
	       PRIu64 ", reordered %" PRIu64 ", corrupted %" PRIu64
	       ", retransmitted %" PRIu64 "; resets %" PRIu64 " (%u "
	       "injected); RDMA run %" PRIu64 "\n", what, cx.n,
	       e1.fault_dropped - e0.fault_dropped,
	       e1.fault_duplicated - e0.fault_duplicated,
	       e1.fault_reordered - e0.fault_reordered,
	       e1.fault_corrupted - e0.fault_corrupted,
	       e1.rexmit_fast + e1.rexmit_timeout - e0.rexmit_fast -
	       e0.rexmit_timeout, s1.s_conn_reset - s0.s_conn_reset,
	       hook.injected, e1.rdma_exec - e0.rdma_exec);
	CU_ASSERT(f->drop_ppm == 0 || e1.fault_dropped > e0.fault_dropped);
	CU_ASSERT(f->dup_ppm == 0 ||
		  e1.fault_duplicated > e0.fault_duplicated);
	CU_ASSERT(f->reorder_ppm == 0 ||
		  e1.fault_reordered > e0.fault_reordered);
	CU_ASSERT(f->corrupt_ppm == 0 ||
		  e1.fault_corrupted > e0.fault_corrupted);
	CU_ASSERT(f->drop_ppm == 0 ||
		  e1.rexmit_fast + e1.rexmit_timeout >
		  e0.rexmit_fast + e0.rexmit_timeout);
	CU_ASSERT(reset_every == 0 ||
		  (hook.injected > 0 && s1.s_conn_reset > s0.s_conn_reset));
	CU_ASSERT(reset_every != 0 || s1.s_conn_reset == s0.s_conn_reset);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(check_ops(&cx, counter, reset_every != 0, what), 0);
	/* The target ran each at most once. */
	CU_ASSERT(e1.rdma_exec - e0.rdma_exec <= cx.n);
	ctx_down(&cx);
}

/* One run of faults_case: the wire's faults, a reset every reset_every
 * polls (0: none). */
struct faults_run {
	struct rte_rds_eth_faults f;
	unsigned int reset_every;
	const char *what;
};

/* The runs of a test, one after the other, under its watchdog. */
static void
faults_runs(const char *name, const struct faults_run *r, unsigned int n)
{
	unsigned int i;

	rds_test_watchdog(240, name);
	for (i = 0; i < n; i++)
		faults_case(&r[i].f, r[i].reset_every, r[i].what);
	rds_test_watchdog(0, NULL);
}

void
test_faults(void)
{
	static const struct faults_run r[] = {
		{ { .drop_ppm = 50000, .dup_ppm = 20000, .reorder_ppm = 50000,
		    .reorder_depth = 8, .corrupt_ppm = 10000, .seed = 41 }, 0,
		  "drop 5 %, dup 2 %, reorder 5 %, corrupt 1 %" },
		{ { .drop_ppm = 200000, .seed = 42 }, 0, "drop 20 %" },
	};

	faults_runs("faults", r, RTE_DIM(r));
}

void
test_faults_resets(void)
{
	static const struct faults_run r[] = {
		{ { .drop_ppm = 20000, .dup_ppm = 10000, .reorder_ppm = 20000,
		    .reorder_depth = 4, .corrupt_ppm = 5000, .seed = 43 }, 5,
		  "faults and a reset every 5 polls" },
		{ { .drop_ppm = 20000, .dup_ppm = 10000, .reorder_ppm = 20000,
		    .reorder_depth = 4, .corrupt_ppm = 5000, .seed = 44 }, 13,
		  "faults and a reset every 13 polls" },
	};

	faults_runs("faults_resets", r, RTE_DIM(r));
}

/* ------------------------------------------------------------------ */

/* A 1 MiB READ; when its answer is half way, reset the stream of
 * stream_of (its peer: the other address). */
static void
reset_answer(unsigned int stream_of)
{
	unsigned int peer = stream_of == 1 ? 2 : 1, bad = 0, k;
	uint64_t r0, r1;
	struct rte_rds_stats s0, s1;
	struct ctx cx;
	bool reset = false;

	CU_ASSERT_FATAL(ctx_up(&cx));
	op_new(&cx, K_READ, cx.g.len, 0);
	memcpy(cx.before, cx.g.pages, cx.g.len);
	s0 = rds_test_stats();
	/* Frames counted to the end (roughly: the engine polls both ports
	 * in a pass, so some go from one to the other unseen). */
	rdma_set_poll_hook(rdma_eth_sniff_hook, NULL);
	rdma_eth_sniff();
	r0 = rdma_eth_seen(rdma_ip(1), rdma_ip(2), RDS_ETH_F_RDMA_RESP);
	CU_ASSERT(op_send(&cx, &cx.ops[0], &cx.env.ca, cx.cookie));
	for (k = 0; k < 100000 && !reset; k++) {
		rdma_kick();
		r1 = rdma_eth_seen(rdma_ip(1), rdma_ip(2),
				   RDS_ETH_F_RDMA_RESP);
		if (r1 - r0 >= 20) {
			CU_ASSERT(rdma_eth_inject_reset(rdma_ip(stream_of),
							rdma_ip(peer)) == 0);
			reset = true;
		}
	}
	CU_ASSERT(reset);
	take_notes(&cx, 1, 10000, &bad);
	take_msgs(&cx, 200, &bad);
	take_notes(&cx, 0, 2000, &bad);
	s1 = rds_test_stats();
	r1 = rdma_eth_seen(rdma_ip(1), rdma_ip(2), RDS_ETH_F_RDMA_RESP);
	printf("  reset of address %u's stream: %" PRIu64 " answer frames seen, "
	       "%" PRIu64 " resets, status %d\n", stream_of, r1 - r0,
	       s1.s_conn_reset - s0.s_conn_reset, cx.ops[0].status);
	CU_ASSERT(s1.s_conn_reset > s0.s_conn_reset);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(check_ops(&cx, NULL, false, "reset_answer"), 0);
	ctx_down(&cx);
}

void
test_reset_answer_initiator(void)
{
	rds_test_watchdog(120, "reset_answer_initiator");
	reset_answer(2);
	rds_test_watchdog(0, NULL);
}

void
test_reset_answer_target(void)
{
	rds_test_watchdog(120, "reset_answer_target");
	reset_answer(1);
	rds_test_watchdog(0, NULL);
}

/* A FADD's message lost on the wire, then the server's stream resets. */
void
test_reset_message(void)
{
	unsigned int bad = 0, k;
	uint64_t *counter;
	struct rte_rds_stats s0, s1;
	struct ctx cx;
	bool reset = false;

	counter = case_up(&cx, 60, "reset_message", NULL);
	op_new(&cx, K_FADD, 8, 0);
	memcpy(cx.before, cx.g.pages, cx.g.len);
	s0 = rds_test_stats();
	/* The message: an RDS frame with a payload ("OP 0"), from the
	 * server to the client. */
	rdma_eth_steal_from(rdma_ip(2), rdma_ip(1), RDS_ETH_F_DATA,
			    RDS_HEADER_SIZE + 4, RDS_HEADER_SIZE + 4);
	CU_ASSERT(op_send(&cx, &cx.ops[0], &cx.env.ca, cx.cookie));
	for (k = 0; k < 100000 && !reset; k++) {
		rdma_kick();
		rdma_eth_sniff();
		if (rdma_eth_stolen() > 0) {
			rdma_eth_steal_from(NULL, NULL, 0, 0, 0);
			CU_ASSERT(rdma_eth_inject_reset(rdma_ip(2),
							rdma_ip(1)) == 0);
			reset = true;
		}
	}
	CU_ASSERT(reset);
	take_notes(&cx, 1, 5000, &bad);
	take_msgs(&cx, 500, &bad);
	take_notes(&cx, 0, 1000, &bad);
	s1 = rds_test_stats();
	printf("  message lost, reset: %" PRIu64 " resets, status %d, %u "
	       "message(s)\n", s1.s_conn_reset - s0.s_conn_reset,
	       cx.ops[0].status, cx.ops[0].nmsg);
	CU_ASSERT(s1.s_conn_reset > s0.s_conn_reset);
	case_end(&cx, counter, bad, "reset_message");
}

/* A window of 8 frames of 508 bytes (MTU 576): the congestion map sent
 * at connect (17 frames) never fits in it at once; nor do the larger
 * operations and their answers. */
void
test_small_window(void)
{
	static const size_t sizes[] = { 1, 508, 4096, 65536, 300000 };
	unsigned int i, bad = 0;
	uint64_t off = 4096, *counter;
	struct ctx cx;

	counter = case_up(&cx, 120, "small_window", "window=8,mtu=576");
	for (i = 0; i < RTE_DIM(sizes); i++) {
		op_new(&cx, K_READ, sizes[i], off);
		off += sizes[i] + 64;
		op_new(&cx, K_WRITE, sizes[i], off);
		off += sizes[i] + 64;
		op_new(&cx, K_FADD, 8, 0);
	}
	memcpy(cx.before, cx.g.pages, cx.g.len);
	for (i = 0; i < cx.n; i++)
		CU_ASSERT(op_send(&cx, &cx.ops[i], &cx.env.ca, cx.cookie));
	take_notes(&cx, cx.n, 30000, &bad);
	take_msgs(&cx, 200, &bad);
	take_notes(&cx, 0, 500, &bad);
	case_end(&cx, counter, bad, "small_window");
}


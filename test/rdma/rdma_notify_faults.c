/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_notify: operations on a connection that resets or loses frames,
 * with each transport's faults (reset, drop).
 */

#include "rdma_notify.h"

/* ------------------------------------------------------------------ */
/* Resets and lost frames */

/*
 * Faults of a run, per transport: loop's (rte_rds_loop_set_faults: lost
 * frames, which take the connection down, and resets); eth's frame
 * faults (rte_rds_eth_set_faults: lost, duplicated, reordered, corrupted
 * frames, which its frame layer repairs) and connection resets injected
 * every reset_every polls (rdma_eth_inject_reset: the peer takes the
 * stream no more), of the server's stream (which carries the requests)
 * and of the client's (which carries the answers) in turn.
 */
struct faults {
	const char *what;
	struct rte_rds_loop_faults loop;
	struct rte_rds_eth_faults eth;
	unsigned int reset_every;
	/* ib: QP errors (qp_every polls after the connections came back,
	 * at most ib_max times) and receive stalls (as many). */
	unsigned int qp_every;
	unsigned int stalls;
	unsigned int ib_max;
};

#ifdef RDMA_HAVE_IB
/*
 * ib's faults between polls: once the connections are (back) up (more
 * connects than when the last fault was injected) and every polls
 * later, put the QPs in error or freeze the receive rings (the stalls
 * first), at most max times in all. Injecting only into an up connection
 * lets each reconnect carry some work: a fault every few polls would
 * otherwise keep it down.
 */
struct ib_hook {
	unsigned int every, max, stalls;
	unsigned int polls, qp_injected, stall_injected;
	uint64_t connects_at;
	bool stall_wait;	/* a stall injected, its reset not seen yet */
	uint64_t stalls_at;
};

static void
ib_hook_fn(void *arg)
{
	struct ib_hook *h = arg;
	struct rte_rds_ib_stats st;
	uint64_t c;

	if (h->qp_injected + h->stall_injected >= h->max ||
	    rte_rds_ib_stats_get(&st) != 0)
		return;
	c = st.connects_active + st.connects_passive;
	/* After a stall, nothing more until its watch reset the
	 * connection: the next fault hits the new one. */
	if (h->stall_wait) {
		if (st.stalls <= h->stalls_at)
			return;
		h->stall_wait = false;
		h->connects_at = c;
	}
	if (c <= h->connects_at) {
		h->polls = 0;
		return;
	}
	if (++h->polls < h->every)
		return;
	if (h->stall_injected < h->stalls) {
		if (rte_rds_ib_inject_rx_stall() == 0) {
			h->stall_injected++;
			h->stall_wait = true;
			h->stalls_at = st.stalls;
		}
	} else if (rte_rds_ib_inject_qp_error() == 0) {
		h->qp_injected++;
	}
	h->connects_at = c;
	h->polls = 0;
}
#endif

/* Frames eth sent again, whatever the cause. */
static uint64_t
eth_rexmits(const struct rte_rds_eth_stats *st)
{
	return st->rexmit_fast + st->rexmit_sack + st->rexmit_probe +
	       st->rexmit_timeout;
}

static void
fault_case(const struct faults *f)
{
	static struct rds_rdma_notify nt[4 * MAX_OPS];
	uint8_t got[MAX_OPS] = { 0 }, cnt[MAX_OPS] = { 0 };
	uint8_t olds[MAX_OPS] = { 0 };
	struct rte_rds_loop_stats st0, st1;
	struct rte_rds_eth_stats es0, es1;
	struct rte_rds_stats rs0, rs1;
	struct rdma_eth_resets hook = { .every = f->reset_every };
	unsigned int i, j, n = 96, nnt, nsucc = 0, ndrop = 0, ncli, fails = 0;
	bool eth = rdma_tr_is("eth"), ib = rdma_tr_is("ib");
#ifdef RDMA_HAVE_IB
	struct rte_rds_ib_stats is0, is1;
	struct ib_hook ih = { .every = f->qp_every, .max = f->ib_max,
			      .stalls = f->stalls };
#endif
	const char *what = f->what;
	uint64_t *counter;
	struct setup su;
	int k;

#ifdef RDMA_HAVE_IB
	/* A frozen shared receive queue must run dry (96 messages, 32
	 * buffers) and the sender wait on RNR NAKs (no credits with it);
	 * its watch then resets the connection after 1 s. */
	if (ib && f->stalls > 0)
		rdma_ib_set_opts("srq_min=32,srq_max=32,stall_ms=1000");
#endif
	if (!setup_up(&su)) {
		CU_FAIL("setup");
		return;
	}
	counter = (uint64_t *)(void *)(su.g.pages + 8 * 256);
	*counter = 0;
	make_tokens(n, 0xFA17 + f->loop.drop_one_in * 3 +
		    f->loop.reset_one_in + f->eth.drop_ppm + f->reset_every);
	rs0 = rds_test_stats();
	if (ib) {
#ifdef RDMA_HAVE_IB
		CU_ASSERT_EQUAL(rte_rds_ib_stats_get(&is0), 0);
		/* The connections are up (the cookie went over them). */
		ih.connects_at = is0.connects_active + is0.connects_passive - 1;
		rdma_set_poll_hook(ib_hook_fn, &ih);
#endif
	} else if (eth) {
		CU_ASSERT_EQUAL(rte_rds_eth_stats_get(&es0), 0);
		CU_ASSERT_EQUAL(rte_rds_eth_set_faults(&f->eth), 0);
		if (f->reset_every != 0)
			rdma_set_poll_hook(rdma_eth_resets_hook, &hook);
	} else {
		CU_ASSERT_EQUAL(rte_rds_loop_stats_get(&st0), 0);
		CU_ASSERT_EQUAL(rte_rds_loop_set_faults(&f->loop), 0);
	}
	rdma_pump(2);
	for (i = 0; i < n; i++) {
		struct rds_atomic_args a;
		char msg[32];

		ops[i].kind = K_FADD;
		ops[i].bad = false;
		ops[i].result = SENTINEL;
		memset(&a, 0, sizeof(a));
		a.cookie = su.cookie;
		a.local_addr = (uint64_t)(uintptr_t)&ops[i].result;
		a.remote_addr = 8 * 256;
		a.fadd.add = 1;
		a.flags = RDS_RDMA_NOTIFY_ME;
		a.user_token = ops[i].token;
		snprintf(msg, sizeof(msg), "OP %u", i);
		CU_ASSERT(rdma_send_atomic(su.env.srv, &su.env.ca, msg,
					   strlen(msg), RDS_CMSG_ATOMIC_FADD,
					   &a) == (ssize_t)strlen(msg));
		/* Let some go out while others are queued. */
		if (i % 4 == 3)
			rdma_pump(3);
	}
	nnt = rdma_collect(su.env.srv, nt, RTE_DIM(nt), n, 0, 60000, 4096,
			   NULL);
	rs1 = rds_test_stats();
	if (ib) {
#ifdef RDMA_HAVE_IB
		CU_ASSERT_EQUAL(rte_rds_ib_stats_get(&is1), 0);
		rdma_set_poll_hook(NULL, NULL);
#endif
	} else if (eth) {
		CU_ASSERT_EQUAL(rte_rds_eth_stats_get(&es1), 0);
		rdma_set_poll_hook(NULL, NULL);
		CU_ASSERT_EQUAL(rte_rds_eth_set_faults(NULL), 0);
	} else {
		CU_ASSERT_EQUAL(rte_rds_loop_stats_get(&st1), 0);
		CU_ASSERT_EQUAL(rte_rds_loop_set_faults(NULL), 0);
	}
	/* Anything late (a second notification) would show up now. */
	nnt += rdma_collect(su.env.srv, nt + RTE_MIN(nnt, RTE_DIM(nt)),
			    RTE_DIM(nt) - RTE_MIN(nnt, RTE_DIM(nt)), 0, 300,
			    3000, 4096, NULL);
	if (ib) {
#ifdef RDMA_HAVE_IB
		printf("  %s: %u notifications for %u ops; connection resets "
		       "%" PRIu64 "; QP errors injected %u (counted %" PRIu64
		       "), receive stalls injected %u (counted %" PRIu64
		       ", stall resets %" PRIu64 "); reconnects %" PRIu64
		       ", retransmitted %" PRIu64 "\n", what, nnt, n,
		       rs1.s_conn_reset - rs0.s_conn_reset, ih.qp_injected,
		       is1.qp_errors_injected - is0.qp_errors_injected,
		       ih.stall_injected,
		       is1.rx_stalls_injected - is0.rx_stalls_injected,
		       is1.stalls - is0.stalls,
		       is1.connects_active + is1.connects_passive -
		       is0.connects_active - is0.connects_passive,
		       rs1.s_send_retransmit - rs0.s_send_retransmit);
		/* The faults asked for happened, and reset connections. */
		/* The batch may end before every planned one (each waits
		 * for a reconnect); the first of each kind must happen. */
		CU_ASSERT(f->ib_max == f->stalls || ih.qp_injected > 0);
		CU_ASSERT(ih.stall_injected == f->stalls);
		CU_ASSERT(ih.qp_injected == 0 ||
			  is1.qp_errors_injected > is0.qp_errors_injected);
		CU_ASSERT(ih.stall_injected == 0 ||
			  (is1.rx_stalls_injected > is0.rx_stalls_injected &&
			   is1.stalls > is0.stalls));
		CU_ASSERT(rs1.s_conn_reset > rs0.s_conn_reset);
#endif
	} else if (eth) {
		printf("  %s: %u notifications for %u ops; connection resets "
		       "%" PRIu64 " (%u injected); frames dropped %" PRIu64
		       ", duplicated %" PRIu64 ", reordered %" PRIu64
		       ", corrupted %" PRIu64 "; retransmitted %" PRIu64
		       " (fast %" PRIu64 ")\n", what, nnt, n,
		       rs1.s_conn_reset - rs0.s_conn_reset, hook.injected,
		       es1.fault_dropped - es0.fault_dropped,
		       es1.fault_duplicated - es0.fault_duplicated,
		       es1.fault_reordered - es0.fault_reordered,
		       es1.fault_corrupted - es0.fault_corrupted,
		       eth_rexmits(&es1) - eth_rexmits(&es0),
		       es1.rexmit_fast - es0.rexmit_fast);
		/* The faults asked for happened. */
		CU_ASSERT(f->eth.drop_ppm == 0 ||
			  es1.fault_dropped > es0.fault_dropped);
		CU_ASSERT(f->eth.dup_ppm == 0 ||
			  es1.fault_duplicated > es0.fault_duplicated);
		CU_ASSERT(f->eth.reorder_ppm == 0 ||
			  es1.fault_reordered > es0.fault_reordered);
		CU_ASSERT(f->eth.corrupt_ppm == 0 ||
			  es1.fault_corrupted > es0.fault_corrupted);
		CU_ASSERT(f->eth.drop_ppm == 0 ||
			  eth_rexmits(&es1) > eth_rexmits(&es0));
		CU_ASSERT(f->reset_every == 0 ||
			  (hook.injected > 0 &&
			   rs1.s_conn_reset > rs0.s_conn_reset));
	} else {
		printf("  %s: %u notifications for %u ops; loop resets %"
		       PRIu64 ", dropped %" PRIu64 ", flushed %" PRIu64 "\n",
		       what, nnt, n, st1.resets - st0.resets,
		       st1.dropped - st0.dropped, st1.flushed - st0.flushed);
		CU_ASSERT(st1.resets + st1.dropped > st0.resets + st0.dropped);
	}
	for (j = 0; j < nnt && j < RTE_DIM(nt); j++) {
		k = token_index(nt[j].user_token, n);
		if (k < 0 || cnt[k]++ != 0) {
			printf("  %s: token %#llx (op %d) unknown or "
			       "repeated\n", what,
			       (unsigned long long)nt[j].user_token, k);
			fails++;
			continue;
		}
		if (nt[j].status == RDS_RDMA_SUCCESS) {
			nsucc++;
			if (ops[k].result >= n || olds[ops[k].result]++) {
				printf("  %s: op %d old value %#" PRIx64
				       " out of range or repeated\n", what, k,
				       ops[k].result);
				fails++;
			}
		} else if (nt[j].status == RDS_RDMA_DROPPED) {
			ndrop++;
			if (ops[k].result != SENTINEL) {
				printf("  %s: op %d DROPPED but ran (old %#"
				       PRIx64 ")\n", what, k, ops[k].result);
				fails++;
			}
		} else {
			printf("  %s: op %d status %d\n", what, k,
			       nt[j].status);
			fails++;
		}
	}
	for (i = 0; i < n; i++) {
		if (cnt[i] == 0) {
			printf("  %s: op %u never completed\n", what, i);
			fails++;
		}
	}
	printf("  %s: SUCCESS %u, DROPPED %u, counter %" PRIu64 "\n", what,
	       nsucc, ndrop, *counter);
	CU_ASSERT_EQUAL(fails, 0);
	CU_ASSERT_EQUAL(*counter, nsucc);
	/* Frames lost, duplicated, reordered or corrupted are repaired below
	 * RDS on eth: with no connection reset, every op succeeds. */
	if (eth && rs1.s_conn_reset == rs0.s_conn_reset)
		CU_ASSERT_EQUAL(nsucc, n);
	/* Op and message: both or neither. */
	ncli = client_drain(&su, n, got, 0, 0);
	rdma_pump(200);
	ncli += client_drain(&su, n, got, 0, 0);
	CU_ASSERT_EQUAL(ncli, nsucc);
	for (i = 0; i < n; i++) {
		bool ran = ops[i].result != SENTINEL;

		if ((got[i] != 0) != ran)
			printf("  %s: op %u ran %d, message delivered %u\n",
			       what, i, ran, got[i]);
		CU_ASSERT((got[i] != 0) == ran);
	}
	setup_down(&su);
}

/* Is this run over ib, with its fault hooks compiled in? */
static bool
have_ib_faults(void)
{
#ifdef RDMA_HAVE_IB
	return rdma_tr_is("ib");
#else
	return false;
#endif
}

void
test_reset(void)
{
	static const struct faults loop[] = {
		{ .what = "reset_one_in=1",
		  .loop = { .reset_one_in = 1, .seed = 11 } },
		{ .what = "reset_one_in=3",
		  .loop = { .reset_one_in = 3, .seed = 11 } },
	};
	static const struct faults eth[] = {
		{ .what = "reset every 3 polls", .reset_every = 3 },
		{ .what = "reset every 7 polls", .reset_every = 7 },
	};
	static const struct faults ib[] = {
		{ .what = "QP error 3 polls after each reconnect, 6 times",
		  .qp_every = 3, .ib_max = 6 },
		{ .what = "QP error 40 polls after each reconnect, 4 times",
		  .qp_every = 40, .ib_max = 4 },
	};
	unsigned int i;

	if (!rdma_tr_is("eth") && !rdma_tr_is("loop") && !have_ib_faults()) {
		CU_FAIL("no fault injection for this transport");
		return;
	}
	rds_test_watchdog(240, "reset");
	for (i = 0; i < 2; i++)
		fault_case(rdma_tr_is("eth") ? &eth[i] :
			   rdma_tr_is("ib") ? &ib[i] : &loop[i]);
	rds_test_watchdog(0, NULL);
}

void
test_drop(void)
{
	static const struct faults loop[] = {
		{ .what = "drop_one_in=2",
		  .loop = { .drop_one_in = 2, .seed = 5 } },
		{ .what = "drop_one_in=5,reset_one_in=7",
		  .loop = { .drop_one_in = 5, .reset_one_in = 7, .seed = 5 } },
	};
	static const struct faults eth[] = {
		{ .what = "drop 20 %",
		  .eth = { .drop_ppm = 200000, .seed = 5 } },
		{ .what = "drop 5 %, dup 2 %, reorder 5 %, corrupt 1 %",
		  .eth = { .drop_ppm = 50000, .dup_ppm = 20000,
			   .reorder_ppm = 50000, .reorder_depth = 8,
			   .corrupt_ppm = 10000, .seed = 6 } },
		{ .what = "drop 5 %, reset every 7 polls",
		  .eth = { .drop_ppm = 50000, .seed = 7 },
		  .reset_every = 7 },
	};
	/* RC loses nothing below RDS: a receiver that stops taking
	 * frames is what ib has instead (the sender's stall_ms watch). */
	static const struct faults ib[] = {
		{ .what = "receive stall once",
		  .qp_every = 5, .stalls = 1, .ib_max = 1 },
		{ .what = "receive stall, then QP errors 5 polls after each "
			  "reconnect",
		  .qp_every = 5, .stalls = 1, .ib_max = 4 },
	};
	unsigned int i;

	rds_test_watchdog(240, "drop");
	if (rdma_tr_is("eth")) {
		for (i = 0; i < RTE_DIM(eth); i++)
			fault_case(&eth[i]);
	} else if (rdma_tr_is("loop")) {
		for (i = 0; i < RTE_DIM(loop); i++)
			fault_case(&loop[i]);
	} else if (have_ib_faults()) {
		for (i = 0; i < RTE_DIM(ib); i++)
			fault_case(&ib[i]);
	} else {
		CU_FAIL("no fault injection for this transport");
	}
	rds_test_watchdog(0, NULL);
}


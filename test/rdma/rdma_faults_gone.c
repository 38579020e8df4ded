/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_faults: peers that are gone (dead after its retransmissions, its
 * answers lost, the engine paused, no ARP answer).
 */

#include "rdma_faults.h"

/* ------------------------------------------------------------------ */
/* Peers that are gone */

/* An operation (k, bytes) queued to `to`, then the server's socket
 * closed between `polls` polls before and after. */
static void
close_with_op(struct ctx *cx, enum kind k, size_t bytes,
	      const struct sockaddr_in *to, unsigned int polls)
{
	CU_ASSERT(op_send(cx, op_new(cx, k, bytes, 0), to, 0x1234));
	rdma_pump(polls);
	CU_ASSERT_EQUAL(rte_rds_close(cx->env.srv), 0);
	cx->env.srv = -1;
	rdma_pump(polls);
}

/* Wait (polling) until op has a status or timeout_ms passed. */
static bool
wait_status(struct ctx *cx, struct op *o, unsigned int timeout_ms,
	    unsigned int *bad)
{
	uint64_t t0 = rds_test_now_ns();

	while (o->nstatus == 0 &&
	       (rds_test_now_ns() - t0) / 1000000 < timeout_ms)
		take_notes(cx, 0, 5, bad);
	return o->nstatus != 0;
}

void
test_gone(void)
{
	struct sockaddr_in gone = rds_test_sin(RDMA_ETH_GONE_IP, GONE_PORT);
	struct rte_rds_eth_stats e0, e1;
	struct rte_rds_stats s0, s1;
	unsigned int i, bad = 0, first;
	struct ctx cx;
	uint64_t t0, g0;
	double secs;

	rds_test_watchdog(120, "gone");
	/* A window that takes the congestion map and the first frames of
	 * a request, whatever RDS_TEST_ETH_OPTS says (a map larger than
	 * the window never leaves for a peer that is gone: what is behind
	 * it stays queued, as gone_dark). The fixed window (cwnd_init=0):
	 * with the congestion window, the timeouts to a gone peer take it
	 * to 2 frames, and a request queued behind 2 frames in flight gets
	 * no frame out, so it stays queued too (until cancelled), like one
	 * behind a map larger than the window; this case is about
	 * requests that did get out. */
	rdma_eth_set_opts("window=128,cwnd_init=0,dead_after=4,"
			  "rto_max_us=10000");
	CU_ASSERT_FATAL(ctx_up(&cx));
	s0 = rds_test_stats();
	CU_ASSERT(rte_rds_eth_stats_get(&e0) == 0);
	memcpy(cx.before, cx.g.pages, cx.g.len);
	/* Three to the gone address (the WRITE's request does not fit in
	 * the window: in flight from its first frame), one to the client
	 * behind them (another connection: not held up). */
	op_new(&cx, K_READ, 3000, 0);
	op_new(&cx, K_WRITE, 300000, 0);
	op_new(&cx, K_FADD, 8, 0);
	op_new(&cx, K_FADD, 8, 8);
	t0 = rds_test_now_ns();
	for (i = 0; i < 3; i++)
		CU_ASSERT(op_send(&cx, &cx.ops[i], &gone, 0x1234));
	CU_ASSERT(op_send(&cx, &cx.ops[3], &cx.env.ca, cx.cookie));
	CU_ASSERT(wait_status(&cx, &cx.ops[3], 5000, &bad));
	CU_ASSERT_EQUAL(cx.ops[3].status, RDS_RDMA_SUCCESS);
	CU_ASSERT(cx.ops[0].nstatus == 0);	/* still trying */
	for (i = 0; i < 3; i++)
		CU_ASSERT(wait_status(&cx, &cx.ops[i], 10000, &bad));
	secs = rds_test_since_s(t0);
	take_msgs(&cx, 100, &bad);
	CU_ASSERT(rte_rds_eth_stats_get(&e1) == 0);
	s1 = rds_test_stats();
	printf("  3 operations to a gone peer: statuses %d %d %d after %.3f "
	       "s; resets %" PRIu64 ", unresponsive %" PRIu64 "\n",
	       cx.ops[0].status, cx.ops[1].status, cx.ops[2].status, secs,
	       s1.s_conn_reset - s0.s_conn_reset,
	       e1.peer_unresponsive - e0.peer_unresponsive);
	for (i = 0; i < 3; i++) {
		struct op *o = &cx.ops[i];

		CU_ASSERT_EQUAL(o->nstatus, 1);
		CU_ASSERT_EQUAL(o->status, RDS_RDMA_OTHER_ERROR);
		CU_ASSERT_EQUAL(o->nmsg, 0);
		CU_ASSERT(o->kind != K_FADD || o->result == SENTINEL);
		CU_ASSERT(o->kind != K_READ ||
			  (o->buf[GAP] == 0x5A && canaries_ok(o)));
	}
	CU_ASSERT_EQUAL(cx.ops[3].nmsg, 1);
	CU_ASSERT(secs < 10.0);
	CU_ASSERT(s1.s_conn_reset > s0.s_conn_reset);
	CU_ASSERT(e1.peer_unresponsive > e0.peer_unresponsive);

	/* Queued and cancelled at once: CANCELED, each once. */
	first = cx.n;
	for (i = 0; i < 4; i++)
		CU_ASSERT(op_send(&cx, op_new(&cx, i % 2 ? K_FADD : K_READ,
					      500, 0), &gone, 0x1234));
	CU_ASSERT(rte_rds_setsockopt(cx.env.srv, SOL_RDS, RDS_CANCEL_SENT_TO,
				     &gone, sizeof(gone)) == 0);
	take_notes(&cx, cx.n, 3000, &bad);
	for (i = first; i < cx.n; i++) {
		CU_ASSERT_EQUAL(cx.ops[i].nstatus, 1);
		CU_ASSERT_EQUAL(cx.ops[i].status, RDS_RDMA_CANCELED);
	}
	/* One in flight and one queued behind it: the cancel takes the
	 * queued one; the one in flight goes on, and ends OTHER_ERROR. */
	first = cx.n;
	CU_ASSERT(op_send(&cx, op_new(&cx, K_FADD, 8, 0), &gone, 0x1234));
	CU_ASSERT(op_send(&cx, op_new(&cx, K_FADD, 8, 0), &gone, 0x1234));
	g0 = rdma_eth_seen(rdma_ip(2), RDMA_ETH_GONE_IP, RDS_ETH_F_RDMA_REQ);
	for (i = 0; i < 100000 &&
	     rdma_eth_seen(rdma_ip(2), RDMA_ETH_GONE_IP,
			   RDS_ETH_F_RDMA_REQ) == g0; i++) {
		rdma_kick();
		rdma_eth_sniff();
	}
	CU_ASSERT(rte_rds_setsockopt(cx.env.srv, SOL_RDS, RDS_CANCEL_SENT_TO,
				     &gone, sizeof(gone)) == 0);
	CU_ASSERT(wait_status(&cx, &cx.ops[first], 10000, &bad));
	take_notes(&cx, 0, 500, &bad);
	CU_ASSERT_EQUAL(cx.ops[first].nstatus, 1);
	CU_ASSERT_EQUAL(cx.ops[first].status, RDS_RDMA_OTHER_ERROR);
	CU_ASSERT_EQUAL(cx.ops[first + 1].nstatus, 1);
	CU_ASSERT_EQUAL(cx.ops[first + 1].status, RDS_RDMA_CANCELED);
	CU_ASSERT_EQUAL(bad, 0);
	/* Nothing ran anywhere. */
	CU_ASSERT(memcmp(cx.g.pages + 16, cx.before + 16,
			 cx.g.len - 16) == 0);
	/* The server's socket closed while an operation is in flight, then
	 * the library shut down: nothing hangs. */
	close_with_op(&cx, K_READ, 100, &gone, 50);
	ctx_down(&cx);
	rds_test_watchdog(0, NULL);
}

/* The client takes the request and runs it; its answers never arrive. */
void
test_gone_after_ack(void)
{
	unsigned int bad = 0;
	uint64_t *counter;
	struct ctx cx;
	uint64_t t0;

	counter = case_up(&cx, 60, "gone_after_ack",
			  "dead_after=4,rto_max_us=10000");
	memcpy(cx.before, cx.g.pages, cx.g.len);
	rdma_set_poll_hook(rdma_eth_sniff_hook, NULL);
	rdma_eth_steal_from(rdma_ip(1), rdma_ip(2), RDS_ETH_F_RDMA_RESP, 0,
			    UINT16_MAX);
	op_new(&cx, K_FADD, 8, 0);
	t0 = rds_test_now_ns();
	CU_ASSERT(op_send(&cx, &cx.ops[0], &cx.env.ca, cx.cookie));
	CU_ASSERT(wait_status(&cx, &cx.ops[0], 10000, &bad));
	printf("  answers lost: status %d after %.3f s, counter %" PRIu64
	       ", %" PRIu64 " answer frames taken\n", cx.ops[0].status,
	       rds_test_since_s(t0), *counter, rdma_eth_stolen());
	CU_ASSERT_EQUAL(cx.ops[0].status, RDS_RDMA_OTHER_ERROR);
	CU_ASSERT(rdma_eth_stolen() > 0);
	/* It ran there, once; not here. */
	CU_ASSERT_EQUAL(*counter, 1);
	CU_ASSERT_EQUAL(cx.ops[0].result, SENTINEL);
	/* The wire heals: the next one succeeds, the first never runs
	 * again nor reports again. */
	rdma_eth_steal_from(NULL, NULL, 0, 0, 0);
	op_new(&cx, K_FADD, 8, 0);
	CU_ASSERT(op_send(&cx, &cx.ops[1], &cx.env.ca, cx.cookie));
	CU_ASSERT(wait_status(&cx, &cx.ops[1], 10000, &bad));
	take_msgs(&cx, 200, &bad);
	take_notes(&cx, 0, 1000, &bad);
	CU_ASSERT_EQUAL(cx.ops[1].status, RDS_RDMA_SUCCESS);
	CU_ASSERT_EQUAL(cx.ops[1].result, 1);
	CU_ASSERT_EQUAL(*counter, 2);
	CU_ASSERT_EQUAL(cx.ops[0].nstatus, 1);
	CU_ASSERT_EQUAL(cx.ops[0].nmsg, 0);
	CU_ASSERT_EQUAL(cx.ops[1].nmsg, 1);
	CU_ASSERT_EQUAL(bad, 0);
	ctx_down(&cx);
	rds_test_watchdog(0, NULL);
}

/* The inline engine not polled for longer than the wait for an answer,
 * with the request out: the answer comes at the next polls, SUCCESS. */
void
test_pause(void)
{
	unsigned int bad = 0, k;
	uint64_t *counter, q0;
	struct ctx cx;

	counter = case_up(&cx, 60, "pause",
			  "dead_after=4,rto_max_us=10000");
	memcpy(cx.before, cx.g.pages, cx.g.len);
	rdma_set_poll_hook(rdma_eth_sniff_hook, NULL);
	op_new(&cx, K_FADD, 8, 0);
	q0 = rdma_eth_seen(rdma_ip(2), rdma_ip(1), RDS_ETH_F_RDMA_REQ);
	CU_ASSERT(op_send(&cx, &cx.ops[0], &cx.env.ca, cx.cookie));
	for (k = 0; k < 1000 && rdma_eth_seen(rdma_ip(2), rdma_ip(1),
					      RDS_ETH_F_RDMA_REQ) == q0; k++)
		rdma_kick();
	CU_ASSERT(rdma_eth_seen(rdma_ip(2), rdma_ip(1),
				RDS_ETH_F_RDMA_REQ) > q0);
	/* Ten times dead_after x rto_max without a poll. */
	rds_test_usleep(400000);
	CU_ASSERT(wait_status(&cx, &cx.ops[0], 5000, &bad));
	take_msgs(&cx, 200, &bad);
	take_notes(&cx, 0, 200, &bad);
	case_end(&cx, counter, bad, "pause");
}

/* An address nobody answers ARP for. */
void
test_gone_dark(void)
{
	struct sockaddr_in dark = rds_test_sin(RDMA_ETH_DARK_IP, GONE_PORT);
	struct rte_rds_eth_stats e0, e1;
	unsigned int i, bad = 0;
	struct rdma_rx rx;
	struct ctx cx;
	uint64_t t0;
	char b[16];

	rds_test_watchdog(60, "gone_dark");
	CU_ASSERT_FATAL(ctx_up(&cx));
	CU_ASSERT(rte_rds_eth_stats_get(&e0) == 0);
	memcpy(cx.before, cx.g.pages, cx.g.len);
	for (i = 0; i < 3; i++)
		CU_ASSERT(op_send(&cx, op_new(&cx, (enum kind)i, 200, 0),
				  &dark, 0x1234));
	/* Queued while ARP goes unanswered; the client is served. */
	t0 = rds_test_now_ns();
	while (rds_test_since_s(t0) < 0.3)
		take_notes(&cx, 0, 5, &bad);
	CU_ASSERT(rdma_sendmsg(cx.env.srv, &cx.env.ca, "HI", 2, NULL, 0) == 2);
	CU_ASSERT(rdma_wait_msg(cx.env.cli, b, sizeof(b), 5000, &rx, NULL,
				NULL, 0) && rx.ret == 2);
	CU_ASSERT(rte_rds_eth_stats_get(&e1) == 0);
	printf("  3 operations to an address with no ARP answer: %u, %u, %u "
	       "statuses after 0.3 s; ARP sent %" PRIu64 "\n",
	       cx.ops[0].nstatus, cx.ops[1].nstatus, cx.ops[2].nstatus,
	       e1.arp_tx - e0.arp_tx);
	CU_ASSERT(e1.arp_tx > e0.arp_tx);
	for (i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(cx.ops[i].nstatus, 0);
	CU_ASSERT(rte_rds_setsockopt(cx.env.srv, SOL_RDS, RDS_CANCEL_SENT_TO,
				     &dark, sizeof(dark)) == 0);
	take_notes(&cx, 3, 3000, &bad);
	take_notes(&cx, 0, 500, &bad);
	for (i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(cx.ops[i].nstatus, 1);
		CU_ASSERT_EQUAL(cx.ops[i].status, RDS_RDMA_CANCELED);
		CU_ASSERT(cx.ops[i].result == SENTINEL);
	}
	CU_ASSERT(cx.ops[0].buf[GAP] == 0x5A && canaries_ok(&cx.ops[0]));
	CU_ASSERT(memcmp(cx.g.pages, cx.before, cx.g.len) == 0);
	CU_ASSERT_EQUAL(bad, 0);
	/* Queued again, and the socket closed: nothing hangs. */
	close_with_op(&cx, K_FADD, 8, &dark, 20);
	ctx_down(&cx);
	rds_test_watchdog(0, NULL);
}


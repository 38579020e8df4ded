/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ib transport's send batching and ACK coalescing against rxe, run
 * inside the test VM by run-in-vm.sh: one process, two local addresses
 * on the rxe device, every socket pinned to RDS_TRANS_IB, an inline
 * engine (as rxe_ib).
 *
 *   stream_batched  64-byte messages queued in bursts between engine
 *                   passes: every SEND leaves through a chain posted once
 *                   a pass (tx_wrs_posted == tx_frames) and the chains
 *                   hold several (tx_wrs_posted / tx_post_calls >= 2);
 *                   every message arrives, in order, and is acknowledged.
 *   pingpong_acks   request/reply with the default ACK_REQUIRED every 8
 *                   messages, each side answering one engine pass after
 *                   its receive: the reply carries the ACK the request
 *                   asked for (tx_acks_piggybacked), next to no standalone ACK
 *                   goes (tx_acks, and the core's s_send_ack, equal), and
 *                   every message is still acknowledged.
 *
 * Addresses come from RDS_IB_ADDR_A and RDS_IB_ADDR_B.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include <rte_errno.h>
#include <rte_rds.h>
#include <rte_rds_ib.h>

#include "rds_test.h"
#include "rxe_ib_util.h"

static const char *addr_a, *addr_b;

/* Take one message if there is one: its index (first 8 bytes), or -1. */
static int64_t
recv_one(int s, uint8_t *buf, size_t len)
{
	uint64_t idx;
	ssize_t n;

	n = rds_test_recv(s, buf, len, NULL, MSG_DONTWAIT, NULL);
	if (n < 0) {
		CU_ASSERT(rte_errno == EAGAIN);
		return -1;
	}
	CU_ASSERT_EQUAL(n, 64);
	memcpy(&idx, buf, sizeof(idx));
	return (int64_t)idx;
}

/* Drive the engine until every message sent so far is acknowledged
 * (released by an ACK): sent messages, counted from st0. */
static bool
wait_acked(const struct rte_rds_stats *st0, uint64_t sent, unsigned int secs)
{
	uint64_t t0 = rds_test_now_ns();
	struct rte_rds_stats st;

	for (;;) {
		st = rds_test_stats();
		if (st.s_send_acked - st0->s_send_acked >= sent)
			return true;
		if (rds_test_since_s(t0) > secs) {
			printf("  acknowledged %" PRIu64 " of %" PRIu64 "\n",
			       st.s_send_acked - st0->s_send_acked, sent);
			return false;
		}
		rds_test_kick();
	}
}

static void
test_stream_batched(void)
{
	const uint64_t n = rds_test_env_u64("RDS_TEST_MSGS", 4000);
	struct rte_rds_ib_stats i0, i1;
	struct rte_rds_stats s0;
	struct sockaddr_in to;
	uint8_t out[64], in[128];
	uint64_t sent = 0, got = 0, t0;
	int64_t idx;
	int a, b, k;

	rxe_ib_lib_up(addr_a, addr_b, "");
	a = rds_test_socket_trans(addr_a, 0, 1 << 20, 1 << 20, RDS_TRANS_IB);
	b = rds_test_socket_trans(addr_b, 0, 1 << 20, 1 << 20, RDS_TRANS_IB);
	CU_ASSERT_FATAL(a >= 0 && b >= 0);
	to = rds_test_sock_name(b);
	/* The connection first: its set-up sends nothing counted here. */
	memset(out, 0, sizeof(out));
	CU_ASSERT_FATAL(rds_test_send(a, out, sizeof(out), &to, 0) == 64);
	t0 = rds_test_now_ns();
	while (recv_one(b, in, sizeof(in)) < 0 && rds_test_since_s(t0) < 60)
		rds_test_kick();
	rds_test_kick_n(100);
	i0 = rxe_ib_stats();
	s0 = rds_test_stats();
	t0 = rds_test_now_ns();
	while (got < n && rds_test_since_s(t0) < 120) {
		/* A burst of up to 32 between two passes. */
		for (k = 0; k < 32 && sent < n; k++) {
			memcpy(out, &sent, sizeof(sent));
			memset(out + 8, (int)(sent & 0xff), sizeof(out) - 8);
			if (rds_test_send(a, out, sizeof(out), &to,
					  MSG_DONTWAIT) != 64) {
				CU_ASSERT(rte_errno == EAGAIN ||
					  rte_errno == ENOBUFS);
				break;
			}
			sent++;
		}
		rds_test_kick();
		while ((idx = recv_one(b, in, sizeof(in))) >= 0) {
			CU_ASSERT_EQUAL((uint64_t)idx, got);
			CU_ASSERT_EQUAL(in[63], (uint8_t)(got & 0xff));
			got++;
		}
	}
	CU_ASSERT_EQUAL(got, n);
	CU_ASSERT(wait_acked(&s0, n, 30));
	i1 = rxe_ib_stats();
	printf("  %" PRIu64 " messages in %.2f s: %" PRIu64 " SENDs in %"
	       PRIu64 " ibv_post_send calls (%.1f a call), standalone ACKs %"
	       PRIu64 ", piggybacked %" PRIu64 ", held back %" PRIu64 "\n",
	       got, rds_test_since_s(t0), i1.tx_wrs_posted - i0.tx_wrs_posted,
	       i1.tx_post_calls - i0.tx_post_calls,
	       (double)(i1.tx_wrs_posted - i0.tx_wrs_posted) /
	       (double)RTE_MAX(1u, i1.tx_post_calls - i0.tx_post_calls),
	       i1.tx_acks - i0.tx_acks,
	       i1.tx_acks_piggybacked - i0.tx_acks_piggybacked,
	       i1.tx_acks_limited - i0.tx_acks_limited);
	/* Every SEND left in a chain, and the chains hold several. */
	CU_ASSERT_EQUAL(i1.tx_wrs_posted - i0.tx_wrs_posted,
			i1.tx_frames - i0.tx_frames);
	CU_ASSERT(i1.tx_post_calls > i0.tx_post_calls);
	CU_ASSERT(i1.tx_wrs_posted - i0.tx_wrs_posted >=
		  2 * (i1.tx_post_calls - i0.tx_post_calls));
	rte_rds_close(a);
	rte_rds_close(b);
	rds_test_lib_fini();
}

static void
test_pingpong_acks(void)
{
	const uint64_t rounds = rds_test_env_u64("RDS_TEST_ROUNDS", 800);
	struct rte_rds_ib_stats i0, i1;
	struct rte_rds_stats s0, s1;
	struct sockaddr_in to_a, to_b;
	uint8_t out[64], in[128];
	uint64_t r, t0;
	int64_t idx;
	int a, b;

	rxe_ib_lib_up(addr_a, addr_b, "");
	a = rds_test_socket_trans(addr_a, 0, 0, 0, RDS_TRANS_IB);
	b = rds_test_socket_trans(addr_b, 0, 0, 0, RDS_TRANS_IB);
	CU_ASSERT_FATAL(a >= 0 && b >= 0);
	to_a = rds_test_sock_name(a);
	to_b = rds_test_sock_name(b);
	memset(out, 0, sizeof(out));
	CU_ASSERT_FATAL(rds_test_send(a, out, sizeof(out), &to_b, 0) == 64);
	t0 = rds_test_now_ns();
	while (recv_one(b, in, sizeof(in)) < 0 && rds_test_since_s(t0) < 60)
		rds_test_kick();
	CU_ASSERT_FATAL(rds_test_send(b, out, sizeof(out), &to_a, 0) == 64);
	while (recv_one(a, in, sizeof(in)) < 0 && rds_test_since_s(t0) < 60)
		rds_test_kick();
	rds_test_kick_n(100);
	i0 = rxe_ib_stats();
	s0 = rds_test_stats();
	t0 = rds_test_now_ns();
	for (r = 0; r < rounds && rds_test_since_s(t0) < 120; r++) {
		memcpy(out, &r, sizeof(r));
		CU_ASSERT_FATAL(rds_test_send(a, out, sizeof(out), &to_b,
					      MSG_DONTWAIT) == 64);
		while ((idx = recv_one(b, in, sizeof(in))) < 0 &&
		       rds_test_since_s(t0) < 120)
			rds_test_kick();
		CU_ASSERT_EQUAL_FATAL((uint64_t)idx, r);
		/* The reply, after one more engine pass (as rds-perf's
		 * loop: poll, then send, then receive). */
		rds_test_kick();
		CU_ASSERT_FATAL(rds_test_send(b, in, 64, &to_a,
					      MSG_DONTWAIT) == 64);
		while ((idx = recv_one(a, in, sizeof(in))) < 0 &&
		       rds_test_since_s(t0) < 120)
			rds_test_kick();
		CU_ASSERT_EQUAL_FATAL((uint64_t)idx, r);
		rds_test_kick();
	}
	CU_ASSERT_EQUAL(r, rounds);
	CU_ASSERT(wait_acked(&s0, 2 * rounds, 30));
	i1 = rxe_ib_stats();
	s1 = rds_test_stats();
	printf("  %" PRIu64 " round trips in %.2f s: ACK_REQUIRED sent %"
	       PRIu64 ", standalone ACKs %" PRIu64 " (core s_send_ack %"
	       PRIu64 "), piggybacked %" PRIu64 ", held back %" PRIu64
	       "; SENDs %" PRIu64 " in %" PRIu64 " calls\n", rounds,
	       rds_test_since_s(t0),
	       s1.s_send_ack_required - s0.s_send_ack_required,
	       i1.tx_acks - i0.tx_acks, s1.s_send_ack - s0.s_send_ack,
	       i1.tx_acks_piggybacked - i0.tx_acks_piggybacked,
	       i1.tx_acks_limited - i0.tx_acks_limited,
	       i1.tx_wrs_posted - i0.tx_wrs_posted,
	       i1.tx_post_calls - i0.tx_post_calls);
	/* Each side asks for an ACK every 8 messages: the replies carry
	 * them, (almost) none goes alone. */
	CU_ASSERT(s1.s_send_ack_required - s0.s_send_ack_required >=
		  2 * rounds / 8 - 2);
	CU_ASSERT(i1.tx_acks_piggybacked - i0.tx_acks_piggybacked >=
		  rounds / 8);
	CU_ASSERT(i1.tx_acks - i0.tx_acks <= rounds / 50);
	CU_ASSERT_EQUAL(i1.tx_acks - i0.tx_acks, s1.s_send_ack - s0.s_send_ack);
	rte_rds_close(a);
	rte_rds_close(b);
	rds_test_lib_fini();
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "stream_batched", test_stream_batched },
		{ "pingpong_acks", test_pingpong_acks },
		{ NULL, NULL },
	};

	if (!rds_test_ib_addrs(&addr_a, &addr_b))
		return 77;
	rds_test_eal_init("rxe_ib_batch", "0");
	return rds_test_run_suite("rxe_ib_batch", cases);
}

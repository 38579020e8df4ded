/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ib transport's zero-copy sends against rxe, run inside the test VM
 * by run-in-vm.sh: one process, two local addresses on the rxe device,
 * every socket pinned to RDS_TRANS_IB, an inline engine (as rxe_ib).
 *
 *   sizes            0, 1, 4095, 4096, 4097 B, 64 KiB, 1 MiB messages
 *                    arrive byte-exact; their fragments of 1 KiB and more
 *                    went from the message buffers (tx_zc_frames,
 *                    tx_zc_bytes at least what they add up to), and every
 *                    buffer reference those SENDs took is dropped once
 *                    they complete (tx_zc_released == tx_zc_frames).
 *   sizes_copy       the same with zerocopy=0: byte-exact, no SEND from a
 *                    message buffer.
 *   close_in_flight  64 KiB messages posted, the sending socket closed
 *                    while they are in flight: the references go back,
 *                    and whatever arrives, then and from a new socket
 *                    reusing the buffers, is byte-exact.
 *   cancel_in_flight the same with RDS_CANCEL_SENT_TO.
 *   reset_in_flight  the QP put in error with 64 KiB messages in flight:
 *                    the teardown drops the references, the retransmission
 *                    delivers every message once, in order, byte-exact.
 *
 * With libc_alloc (ASan builds) buffers are never registered: each case
 * checks instead that nothing went in place (tx_zc_frames stays 0).
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

#define BIG (1u << 20)
#define FLIGHT_LEN (64u << 10)
#define FLIGHT_NB 64

static const char *addr_a, *addr_b;
static uint8_t *out, *in;

#ifdef RDS_LIBC_ALLOC
static const bool zc_built;	/* every buffer is copied */
#else
static const bool zc_built = true;
#endif

/* A message of len bytes for key: the key in its first 8, a pattern. */
static void
fill(uint8_t *p, uint32_t len, uint64_t key)
{
	if (len < 8) {
		rds_test_fill(p, len, key);
		return;
	}
	memcpy(p, &key, sizeof(key));
	rds_test_fill(p + 8, len - 8, key);
}

/* Is p[0, len) the message fill() makes for its key? The key, or -1. */
static int64_t
check(const uint8_t *p, uint32_t len, uint64_t short_key)
{
	static uint8_t *want;
	uint64_t key = short_key;

	if (want == NULL)
		want = malloc(BIG);
	CU_ASSERT_FATAL(want != NULL);
	if (len >= 8)
		memcpy(&key, p, sizeof(key));
	fill(want, len, key);
	if (memcmp(p, want, len) != 0) {
		uint32_t i = 0;

		while (p[i] == want[i])
			i++;
		printf("  message of %u bytes, key %" PRIu64 ": byte %u is "
		       "0x%02x, not 0x%02x\n", len, key, i, p[i], want[i]);
		return -1;
	}
	return (int64_t)key;
}

/* Drive the engine until every reference a zero-copy SEND took is back. */
static bool
wait_released(unsigned int secs)
{
	uint64_t t0 = rds_test_now_ns();
	struct rte_rds_ib_stats st;

	for (;;) {
		st = rxe_ib_stats();
		if (st.tx_zc_released == st.tx_zc_frames)
			return true;
		if (rds_test_since_s(t0) > secs) {
			printf("  references: %" PRIu64 " taken, %" PRIu64
			       " dropped\n", st.tx_zc_frames, st.tx_zc_released);
			return false;
		}
		rds_test_kick();
	}
}

/* Two sockets, and the first message between them (the connection). */
static void
pair_up(int *a, int *b, struct sockaddr_in *to)
{
	*a = rds_test_socket_trans(addr_a, 0, 16 << 20, 0, RDS_TRANS_IB);
	*b = rds_test_socket_trans(addr_b, 0, 0, 16 << 20, RDS_TRANS_IB);
	CU_ASSERT_FATAL(*a >= 0 && *b >= 0);
	*to = rds_test_sock_name(*b);
	CU_ASSERT_FATAL(rds_test_send(*a, "x", 1, to, 0) == 1);
	CU_ASSERT_FATAL(rds_test_wait_msg(*b, in, BIG, NULL, 60000) == 1);
	rds_test_kick_n(100);
}

static void
run_sizes(const char *opts, bool zc)
{
	static const uint32_t sizes[] = {
		0, 1, 4095, 4096, 4097, 64u << 10, BIG,
	};
	uint64_t want_frames = 0, want_bytes = 0;
	struct rte_rds_ib_stats i0, i1;
	struct sockaddr_in to;
	unsigned int k, rep;
	int a, b;

	rxe_ib_lib_up(addr_a, addr_b, opts);
	pair_up(&a, &b, &to);
	i0 = rxe_ib_stats();
	for (rep = 0; rep < 2; rep++) {
		for (k = 0; k < RTE_DIM(sizes); k++) {
			uint32_t len = sizes[k], off;
			ssize_t n;

			fill(out, len, rep * 100 + k);
			CU_ASSERT_FATAL(rds_test_send(a, out, len, &to, 0) ==
					(ssize_t)len);
			n = rds_test_wait_msg(b, in, BIG, NULL, 60000);
			CU_ASSERT_EQUAL_FATAL(n, (ssize_t)len);
			CU_ASSERT_EQUAL(check(in, len, rep * 100 + k),
					(int64_t)(rep * 100 + k));
			/* Fragments of 1 KiB (zc_min) and more go in place. */
			for (off = 0; off < len; off += 4096) {
				uint32_t f = RTE_MIN(len - off, 4096u);

				if (f >= 1024) {
					want_frames++;
					want_bytes += f;
				}
			}
		}
	}
	CU_ASSERT(wait_released(30));
	i1 = rxe_ib_stats();
	printf("  %s: %" PRIu64 " SENDs, %" PRIu64 " from message buffers (%"
	       PRIu64 " bytes; %" PRIu64 " expected), %" PRIu64
	       " references dropped, %" PRIu64 " regions registered\n",
	       *opts ? opts : "defaults", i1.tx_frames - i0.tx_frames,
	       i1.tx_zc_frames - i0.tx_zc_frames,
	       i1.tx_zc_bytes - i0.tx_zc_bytes, want_bytes,
	       i1.tx_zc_released - i0.tx_zc_released, i1.tx_zc_regs);
	if (zc && zc_built) {
		CU_ASSERT(i1.tx_zc_frames - i0.tx_zc_frames >= want_frames);
		CU_ASSERT(i1.tx_zc_bytes - i0.tx_zc_bytes >= want_bytes);
		CU_ASSERT(i1.tx_zc_regs > 0);
	} else {
		if (zc)
			printf("  libc_alloc build: every buffer is copied\n");
		CU_ASSERT_EQUAL(i1.tx_zc_frames, 0);
	}
	CU_ASSERT_EQUAL(i1.tx_zc_reg_fails, 0);
	CU_ASSERT_EQUAL(i1.tx_zc_released, i1.tx_zc_frames);
	rte_rds_close(a);
	rte_rds_close(b);
	rds_test_lib_fini();
}

static void
test_sizes(void)
{
	run_sizes("", true);
}

static void
test_sizes_copy(void)
{
	run_sizes("zerocopy=0", false);
}

/* Queue FLIGHT_NB messages of 64 KiB with keys from key0, and drive the
 * engine a few passes: some are posted, most still queued or in flight. */
static void
send_flight(int a, const struct sockaddr_in *to, uint64_t key0)
{
	unsigned int k;

	for (k = 0; k < FLIGHT_NB; k++) {
		fill(out, FLIGHT_LEN, key0 + k);
		CU_ASSERT_FATAL(rds_test_send(a, out, FLIGHT_LEN, to,
					      MSG_DONTWAIT) ==
				(ssize_t)FLIGHT_LEN);
	}
	rds_test_kick_n(3);
}

/* Take what arrives at b for secs seconds (or until want messages):
 * each must be byte-exact; returns how many came with keys >= key0. */
static unsigned int
drain(int b, uint64_t key0, unsigned int want, unsigned int secs)
{
	uint64_t t0 = rds_test_now_ns();
	unsigned int got = 0;

	while (got < want && rds_test_since_s(t0) < secs) {
		ssize_t n = rds_test_recv(b, in, BIG, NULL, MSG_DONTWAIT,
					  NULL);
		int64_t key;

		if (n < 0) {
			CU_ASSERT(rte_errno == EAGAIN);
			rds_test_kick();
			continue;
		}
		CU_ASSERT_EQUAL_FATAL(n, (ssize_t)FLIGHT_LEN);
		key = check(in, FLIGHT_LEN, 0);
		CU_ASSERT(key >= 0);
		if (key >= (int64_t)key0)
			got++;
	}
	return got;
}

enum flight_end { END_CLOSE, END_CANCEL, END_RESET };

static void
run_flight(enum flight_end how)
{
	struct rte_rds_ib_stats i0, i1;
	struct sockaddr_in to;
	unsigned int got;
	int a, b, a2;

	rxe_ib_lib_up(addr_a, addr_b, "");
	pair_up(&a, &b, &to);
	i0 = rxe_ib_stats();
	send_flight(a, &to, 1);
	i1 = rxe_ib_stats();
	printf("  posted %" PRIu64 " SENDs, %" PRIu64 " in place, %" PRIu64
	       " references held\n", i1.tx_frames - i0.tx_frames,
	       i1.tx_zc_frames - i0.tx_zc_frames,
	       i1.tx_zc_frames - i1.tx_zc_released);
	if (zc_built) {
		CU_ASSERT(i1.tx_zc_frames > i1.tx_zc_released);
	}
	switch (how) {
	case END_CLOSE:
		CU_ASSERT(rte_rds_close(a) == 0);
		break;
	case END_CANCEL:
		CU_ASSERT(rte_rds_setsockopt(a, SOL_RDS, RDS_CANCEL_SENT_TO,
					     &to, sizeof(to)) == 0);
		break;
	case END_RESET:
		CU_ASSERT(rte_rds_ib_inject_qp_error() == 0);
		break;
	}
	if (how == END_RESET) {
		/* Every message once, in order (the peer drops duplicates). */
		got = drain(b, 1, FLIGHT_NB, 120);
		CU_ASSERT_EQUAL(got, FLIGHT_NB);
		CU_ASSERT(rxe_ib_stats().qp_errors_injected > 0);
	} else {
		/* What was on the wire may arrive; the rest is dropped. */
		got = drain(b, 1, FLIGHT_NB, 3);
		printf("  %u of %u arrived after the %s\n", got, FLIGHT_NB,
		       how == END_CLOSE ? "close" : "cancel");
	}
	CU_ASSERT(wait_released(30));
	/* The buffers again, from another socket (or the same one). */
	a2 = a;
	if (how == END_CLOSE)
		a2 = rds_test_socket_trans(addr_a, 0, 16 << 20, 0,
					   RDS_TRANS_IB);
	CU_ASSERT_FATAL(a2 >= 0);
	send_flight(a2, &to, 1000);
	CU_ASSERT_EQUAL(drain(b, 1000, FLIGHT_NB, 120), FLIGHT_NB);
	CU_ASSERT(wait_released(30));
	i1 = rxe_ib_stats();
	printf("  %" PRIu64 " SENDs in place, %" PRIu64 " references dropped"
	       ", %" PRIu64 " regions registered\n", i1.tx_zc_frames,
	       i1.tx_zc_released, i1.tx_zc_regs);
	if (zc_built) {
		CU_ASSERT(i1.tx_zc_frames >= 2 * 16 * 10);
	} else {
		CU_ASSERT_EQUAL(i1.tx_zc_frames, 0);
	}
	CU_ASSERT_EQUAL(i1.tx_zc_released, i1.tx_zc_frames);
	rte_rds_close(a2);
	rte_rds_close(b);
	rds_test_lib_fini();
}

static void
test_close_in_flight(void)
{
	run_flight(END_CLOSE);
}

static void
test_cancel_in_flight(void)
{
	run_flight(END_CANCEL);
}

static void
test_reset_in_flight(void)
{
	run_flight(END_RESET);
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "sizes", test_sizes },
		{ "sizes_copy", test_sizes_copy },
		{ "close_in_flight", test_close_in_flight },
		{ "cancel_in_flight", test_cancel_in_flight },
		{ "reset_in_flight", test_reset_in_flight },
		{ NULL, NULL },
	};

	if (!rds_test_ib_addrs(&addr_a, &addr_b))
		return 77;
	out = malloc(BIG);
	in = malloc(BIG);
	if (out == NULL || in == NULL)
		return 1;
	rds_test_eal_init("rxe_ib_zc", "0");
	return rds_test_run_suite("rxe_ib_zc", cases);
}

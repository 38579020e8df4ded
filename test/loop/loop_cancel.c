/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cancel and close in the middle of a stream, over the loop transport
 * (inline engine, driven by the test thread).
 *
 * Every message carries (generation, id) and deterministic bytes; a
 * generation is one (sender socket, receiver socket) stream. Receivers
 * check the source address, the content, and that ids of a generation
 * are strictly increasing (no duplicate, no reordering); they record which
 * ids arrived.
 *
 * cancel_sent_to: A sends to B (some delivered, some still queued), then
 * RDS_CANCEL_SENT_TO with B's address: messages A queued for C must all
 * arrive anyway; then more messages to B, which must all arrive. Then
 * the same with no address (every destination). Over loop a message is
 * often delivered and acknowledged before the engine sees the cancel that
 * follows it in the channel, so this run checks ordering only.
 *
 * cancel_while_down: the same while the loop transport drops every frame
 * (connections keep failing, messages wait for retransmission): what was
 * queued to B before the cancel must never arrive once the faults are
 * off (s_send_cancelled counts it), what was queued to C must all arrive
 * (retransmitted); then cancelling every destination drops both.
 *
 * close: A2 sends to B, then closes mid-stream: B sees a strictly
 * increasing subset, no duplicates, no corruption. Then a new socket bound
 * to A2's address and port exchanges traffic with B in both directions,
 * and nothing of the closed socket's turns up late.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include <rte_errno.h>
#include <rte_rds.h>
#include <rte_rds_loop.h>

#include "rds_test.h"

#define NGEN 8
#define MAX_ID 8192
#define HDR_LEN 16
#define MAX_LEN 400

struct msg_hdr {
	uint32_t gen;
	uint32_t pad;
	uint64_t id;
};

/* What one generation (one sender -> receiver stream) looks like. */
struct gen_state {
	struct sockaddr_in src;
	int dst_sock;
	uint64_t last;			/* last id received (ids start at 1) */
	uint64_t count;
	uint8_t seen[MAX_ID + 1];
	bool closed;			/* no message may arrive any more */
};

static struct gen_state gens[NGEN];
static bool failed;
static uint64_t stray;

static uint32_t
msg_build(uint8_t *buf, uint32_t gen, uint64_t id)
{
	struct msg_hdr h = { .gen = gen, .pad = 0, .id = id };
	uint64_t k = rds_test_mix64(((uint64_t)gen << 40) ^ id ^ 0xc0ffeeULL);
	uint32_t len = HDR_LEN + (uint32_t)(k % (MAX_LEN - HDR_LEN + 1));

	memcpy(buf, &h, HDR_LEN);
	rds_test_fill(buf + HDR_LEN, len - HDR_LEN, k);
	return len;
}

static void
fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
fail(const char *fmt, ...)
{
	va_list ap;

	printf("  FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	failed = true;
}

/* Receive and check everything queued on socket s; returns messages. */
static unsigned int
drain(int s)
{
	uint8_t buf[MAX_LEN + 1], want[MAX_LEN];
	struct sockaddr_in from;
	struct gen_state *g;
	struct msg_hdr h;
	unsigned int n = 0;
	uint32_t len;
	int mflags;
	ssize_t r;
	char a[48];

	for (;;) {
		r = rds_test_recv(s, buf, sizeof(buf), &from, MSG_DONTWAIT,
				  &mflags);
		if (r < 0) {
			if (rte_errno != EAGAIN)
				fail("recv on %d: %s", s,
				     rte_strerror(rte_errno));
			return n;
		}
		n++;
		if (r < HDR_LEN) {
			fail("socket %d: %zd-byte message from %s", s, r,
			     rds_test_sin_str(&from, a, sizeof(a)));
			continue;
		}
		memcpy(&h, buf, sizeof(h));
		if (h.gen >= NGEN || h.id == 0 || h.id > MAX_ID) {
			fail("socket %d: bad header gen %u id %" PRIu64, s,
			     h.gen, h.id);
			continue;
		}
		g = &gens[h.gen];
		if (g->dst_sock != s || !rds_test_sin_eq(&g->src, &from)) {
			fail("gen %u id %" PRIu64 ": wrong socket %d or source"
			     " %s", h.gen, h.id, s,
			     rds_test_sin_str(&from, a, sizeof(a)));
			continue;
		}
		len = msg_build(want, h.gen, h.id);
		if ((uint32_t)r != len || memcmp(buf, want, len) != 0) {
			fail("gen %u id %" PRIu64 ": corrupt (len %zd, want %u)",
			     h.gen, h.id, r, len);
			continue;
		}
		if (g->closed) {
			stray++;
			fail("gen %u id %" PRIu64 ": arrived after its sender "
			     "was closed and the receiver drained", h.gen,
			     h.id);
		}
		if (g->seen[h.id])
			fail("gen %u id %" PRIu64 ": duplicate", h.gen, h.id);
		else if (h.id <= g->last)
			fail("gen %u id %" PRIu64 " after id %" PRIu64
			     ": out of order", h.gen, h.id, g->last);
		g->seen[h.id] = 1;
		g->last = h.id;
		g->count++;
	}
}

/* Drive the engine and drain every receiver until nothing moves. */
static void
settle(const int *socks, unsigned int nb)
{
	unsigned int quiet = 0, i, work;
	uint64_t t0 = rds_test_now_ns();

	while (quiet < 200) {
		work = (unsigned int)rds_test_kick();
		for (i = 0; i < nb; i++)
			work += drain(socks[i]);
		if (work > 0) {
			quiet = 0;
		} else {
			quiet++;
			if (quiet % 50 == 0)
				rds_test_usleep(500);
		}
		if (rds_test_since_s(t0) > 60) {
			fail("settle: still busy after 60 s");
			return;
		}
	}
}

struct id_range {
	uint32_t gen;
	uint64_t from, to;
};

static bool
ranges_done(const struct id_range *r, unsigned int nr)
{
	unsigned int i;
	uint64_t id;

	for (i = 0; i < nr; i++)
		for (id = r[i].from; id <= r[i].to; id++)
			if (!gens[r[i].gen].seen[id])
				return false;
	return true;
}

/*
 * Drive the engine and drain until every id of the ranges arrived (up to
 * 60 s: a reconnect may wait for its backoff), then until quiet.
 */
static void
wait_ranges(const int *socks, unsigned int nb, const struct id_range *r,
	    unsigned int nr)
{
	uint64_t t0 = rds_test_now_ns();
	unsigned int i;

	while (!ranges_done(r, nr) && !failed) {
		if (rds_test_kick() == 0)
			rds_test_usleep(50);
		for (i = 0; i < nb; i++)
			drain(socks[i]);
		if (rds_test_since_s(t0) > 60) {
			fail("messages missing after 60 s");
			break;
		}
	}
	settle(socks, nb);
}

/*
 * Send ids [from, to] of generation gen from s to *to_addr; kick the
 * engine (and drain the receivers) every kick_every sends, never if 0
 * (except to make room on EAGAIN/ENOBUFS).
 */
static bool
send_ids(int s, uint32_t gen, uint64_t from, uint64_t to,
	 const struct sockaddr_in *to_addr, unsigned int kick_every,
	 const int *rx, unsigned int nb_rx)
{
	struct rds_test_deadline dl;
	uint8_t buf[MAX_LEN];
	uint64_t id;
	uint32_t len;
	ssize_t r;
	unsigned int i;

	rds_test_deadline_init(&dl, 60, 120);
	for (id = from; id <= to; id++) {
		len = msg_build(buf, gen, id);
		for (;;) {
			r = rds_test_send(s, buf, len, to_addr, MSG_DONTWAIT);
			if (r >= 0)
				break;
			if (rte_errno != EAGAIN && rte_errno != ENOBUFS) {
				fail("send gen %u id %" PRIu64 ": %s", gen, id,
				     rte_strerror(rte_errno));
				return false;
			}
			rds_test_kick();
			for (i = 0; i < nb_rx; i++)
				drain(rx[i]);
			if (rds_test_deadline_expired(&dl, "send_ids")) {
				fail("send gen %u id %" PRIu64 ": no room",
				     gen, id);
				return false;
			}
		}
		rds_test_deadline_progress(&dl);
		if ((uint32_t)r != len) {
			fail("send returned %zd, not %u", r, len);
			return false;
		}
		if (kick_every > 0 && id % kick_every == 0) {
			rds_test_kick();
			for (i = 0; i < nb_rx; i++)
				drain(rx[i]);
		}
	}
	return true;
}

static uint64_t
count_range(const struct gen_state *g, uint64_t from, uint64_t to)
{
	uint64_t id, n = 0;

	for (id = from; id <= to; id++)
		n += g->seen[id];
	return n;
}

static void
reset_gens(void)
{
	memset(gens, 0, sizeof(gens));
	failed = false;
	stray = 0;
}

static int
setup(struct rte_rds_conf *conf)
{
	reset_gens();
	rds_test_conf(conf, RTE_RDS_ENGINE_INLINE, RTE_RDS_IDLE_YIELD);
	return rds_test_lib_init(conf);
}

static void
test_cancel_sent_to(void)
{
	struct sockaddr_in aa = rds_test_sin(RDS_TEST_IP1, 5001);
	struct sockaddr_in ba = rds_test_sin(RDS_TEST_IP2, 5002);
	struct sockaddr_in ca = rds_test_sin(RDS_TEST_IP3, 5003);
	struct rte_rds_stats st0, st1, st2;
	struct rte_rds_conf conf;
	int a, b, c, u, rx[2];
	uint64_t got;

	rds_test_watchdog(300, "cancel_sent_to");
	CU_ASSERT_FATAL(setup(&conf) == 0);
	a = rds_test_socket(RDS_TEST_IP1, 5001, 0, 0);
	b = rds_test_socket(RDS_TEST_IP2, 5002, 0, 0);
	c = rds_test_socket(RDS_TEST_IP3, 5003, 0, 0);
	CU_ASSERT_FATAL(a >= 0 && b >= 0 && c >= 0);
	rx[0] = b;
	rx[1] = c;
	gens[1] = (struct gen_state){ .src = aa, .dst_sock = b };
	gens[2] = (struct gen_state){ .src = aa, .dst_sock = c };

	/* Cancel on an unbound socket: ENOTCONN. */
	u = rte_rds_socket();
	CU_ASSERT_FATAL(u >= 0);
	CU_ASSERT(rte_rds_setsockopt(u, SOL_RDS, RDS_CANCEL_SENT_TO, &ba,
				     sizeof(ba)) == -1);
	CU_ASSERT_EQUAL(rte_errno, ENOTCONN);
	CU_ASSERT(rte_rds_close(u) == 0);

	/* 1. A -> B mid-stream, then messages queued to B and C. */
	st0 = rds_test_stats();
	CU_ASSERT(send_ids(a, 1, 1, 1000, &ba, 50, rx, 2));
	CU_ASSERT(send_ids(a, 1, 1001, 1500, &ba, 0, rx, 2));
	CU_ASSERT(send_ids(a, 2, 1, 300, &ca, 0, rx, 2));
	CU_ASSERT(rte_rds_setsockopt(a, SOL_RDS, RDS_CANCEL_SENT_TO, &ba,
				     sizeof(ba)) == 0);
	CU_ASSERT(send_ids(a, 1, 1501, 3000, &ba, 50, rx, 2));
	settle(rx, 2);
	st1 = rds_test_stats();
	got = count_range(&gens[1], 1, 1500);
	printf("\n  cancel to B: %" PRIu64 " of the 1500 messages sent "
	       "before arrived, %" PRIu64 " cancelled\n", got,
	       st1.s_send_cancelled - st0.s_send_cancelled);
	/* Everything sent after the cancel arrives, in order. */
	CU_ASSERT_EQUAL(count_range(&gens[1], 1501, 3000), 1500);
	/* A targeted cancel leaves other destinations alone. */
	CU_ASSERT_EQUAL(count_range(&gens[2], 1, 300), 300);
	/* Each message either arrived or was cancelled (an unacknowledged
	 * one may have done both). */
	CU_ASSERT(got + (st1.s_send_cancelled - st0.s_send_cancelled) >=
		  1500);

	/* 2. The same, cancelling every destination (no address). */
	CU_ASSERT(send_ids(a, 1, 3001, 3500, &ba, 0, rx, 2));
	CU_ASSERT(send_ids(a, 2, 301, 400, &ca, 0, rx, 2));
	CU_ASSERT(rte_rds_setsockopt(a, SOL_RDS, RDS_CANCEL_SENT_TO, NULL,
				     0) == 0);
	CU_ASSERT(send_ids(a, 1, 3501, 5000, &ba, 50, rx, 2));
	CU_ASSERT(send_ids(a, 2, 401, 500, &ca, 10, rx, 2));
	settle(rx, 2);
	st2 = rds_test_stats();
	printf("  cancel all: %" PRIu64 "/500 to B and %" PRIu64 "/100 to C "
	       "of those queued before arrived, %" PRIu64 " cancelled\n",
	       count_range(&gens[1], 3001, 3500),
	       count_range(&gens[2], 301, 400),
	       st2.s_send_cancelled - st1.s_send_cancelled);
	CU_ASSERT_EQUAL(count_range(&gens[1], 3501, 5000), 1500);
	CU_ASSERT_EQUAL(count_range(&gens[2], 401, 500), 100);
	CU_ASSERT(count_range(&gens[1], 3001, 3500) +
		  count_range(&gens[2], 301, 400) +
		  (st2.s_send_cancelled - st1.s_send_cancelled) >= 600);
	printf("  B got %" PRIu64 " messages from A, C got %" PRIu64 "\n",
	       gens[1].count, gens[2].count);
	CU_ASSERT(!failed);

	CU_ASSERT(rte_rds_close(a) == 0);
	CU_ASSERT(rte_rds_close(b) == 0);
	CU_ASSERT(rte_rds_close(c) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
	rds_test_watchdog(0, NULL);
}

static void
set_drop_all(bool on)
{
	struct rte_rds_loop_faults f = { .drop_one_in = 1, .seed = 7 };

	CU_ASSERT(rte_rds_loop_set_faults(on ? &f : NULL) == 0);
	rds_test_kick_n(8);	/* every engine picks the change up */
}

static void
test_cancel_while_down(void)
{
	struct sockaddr_in aa = rds_test_sin(RDS_TEST_IP1, 5021);
	struct sockaddr_in ba = rds_test_sin(RDS_TEST_IP2, 5022);
	struct sockaddr_in ca = rds_test_sin(RDS_TEST_IP3, 5023);
	struct rte_rds_loop_stats l0, l1;
	struct rte_rds_stats st0, st1, st2;
	struct rte_rds_conf conf;
	struct id_range want[2];
	int a, b, c, rx[2];

	rds_test_watchdog(300, "cancel_while_down");
	CU_ASSERT_FATAL(setup(&conf) == 0);
	a = rds_test_socket(RDS_TEST_IP1, 5021, 0, 0);
	b = rds_test_socket(RDS_TEST_IP2, 5022, 0, 0);
	c = rds_test_socket(RDS_TEST_IP3, 5023, 0, 0);
	CU_ASSERT_FATAL(a >= 0 && b >= 0 && c >= 0);
	rx[0] = b;
	rx[1] = c;
	gens[1] = (struct gen_state){ .src = aa, .dst_sock = b };
	gens[2] = (struct gen_state){ .src = aa, .dst_sock = c };

	/* Up and running first. */
	CU_ASSERT(send_ids(a, 1, 1, 500, &ba, 50, rx, 2));
	CU_ASSERT(send_ids(a, 2, 1, 100, &ca, 20, rx, 2));
	want[0] = (struct id_range){ 1, 1, 500 };
	want[1] = (struct id_range){ 2, 1, 100 };
	wait_ranges(rx, 2, want, 2);
	CU_ASSERT(ranges_done(want, 2));

	/* 1. Every frame lost: queue to B and C, cancel B only. */
	memset(&l0, 0, sizeof(l0));
	CU_ASSERT(rte_rds_loop_stats_get(&l0) == 0);
	st0 = rds_test_stats();
	set_drop_all(true);
	CU_ASSERT(send_ids(a, 1, 501, 1000, &ba, 50, rx, 2));
	CU_ASSERT(send_ids(a, 2, 101, 200, &ca, 20, rx, 2));
	rds_test_kick_n(100);
	CU_ASSERT(rte_rds_setsockopt(a, SOL_RDS, RDS_CANCEL_SENT_TO, &ba,
				     sizeof(ba)) == 0);
	rds_test_kick_n(100);	/* the engine carries the cancel out */
	set_drop_all(false);
	CU_ASSERT(send_ids(a, 1, 1001, 1500, &ba, 50, rx, 2));
	want[0] = (struct id_range){ 1, 1001, 1500 };
	want[1] = (struct id_range){ 2, 101, 200 };
	wait_ranges(rx, 2, want, 2);
	st1 = rds_test_stats();
	memset(&l1, 0, sizeof(l1));
	CU_ASSERT(rte_rds_loop_stats_get(&l1) == 0);
	printf("\n  cancel B while down: %" PRIu64 "/500 to B and %" PRIu64
	       "/100 to C of those queued arrived; %" PRIu64 " cancelled, "
	       "%" PRIu64 " frames dropped, %" PRIu64 " flushed\n",
	       count_range(&gens[1], 501, 1000),
	       count_range(&gens[2], 101, 200),
	       st1.s_send_cancelled - st0.s_send_cancelled,
	       l1.dropped - l0.dropped, l1.flushed - l0.flushed);
	CU_ASSERT(l1.dropped > l0.dropped);
	/* Cancelled: gone for good, not retransmitted after the reconnect. */
	CU_ASSERT_EQUAL(count_range(&gens[1], 501, 1000), 0);
	CU_ASSERT(st1.s_send_cancelled - st0.s_send_cancelled >= 500);
	/* Not cancelled: retransmitted, all there. */
	CU_ASSERT_EQUAL(count_range(&gens[2], 101, 200), 100);
	CU_ASSERT_EQUAL(count_range(&gens[1], 1001, 1500), 500);

	/* 2. The same, cancelling every destination. */
	set_drop_all(true);
	CU_ASSERT(send_ids(a, 1, 1501, 2000, &ba, 50, rx, 2));
	CU_ASSERT(send_ids(a, 2, 201, 300, &ca, 20, rx, 2));
	rds_test_kick_n(100);
	CU_ASSERT(rte_rds_setsockopt(a, SOL_RDS, RDS_CANCEL_SENT_TO, NULL,
				     0) == 0);
	rds_test_kick_n(100);
	set_drop_all(false);
	CU_ASSERT(send_ids(a, 1, 2001, 2500, &ba, 50, rx, 2));
	CU_ASSERT(send_ids(a, 2, 301, 400, &ca, 20, rx, 2));
	want[0] = (struct id_range){ 1, 2001, 2500 };
	want[1] = (struct id_range){ 2, 301, 400 };
	wait_ranges(rx, 2, want, 2);
	st2 = rds_test_stats();
	printf("  cancel all while down: %" PRIu64 "/500 to B and %" PRIu64
	       "/100 to C of those queued arrived; %" PRIu64 " cancelled\n",
	       count_range(&gens[1], 1501, 2000),
	       count_range(&gens[2], 201, 300),
	       st2.s_send_cancelled - st1.s_send_cancelled);
	CU_ASSERT_EQUAL(count_range(&gens[1], 1501, 2000), 0);
	CU_ASSERT_EQUAL(count_range(&gens[2], 201, 300), 0);
	CU_ASSERT(st2.s_send_cancelled - st1.s_send_cancelled >= 600);
	CU_ASSERT_EQUAL(count_range(&gens[1], 2001, 2500), 500);
	CU_ASSERT_EQUAL(count_range(&gens[2], 301, 400), 100);
	CU_ASSERT(!failed);

	CU_ASSERT(rte_rds_close(a) == 0);
	CU_ASSERT(rte_rds_close(b) == 0);
	CU_ASSERT(rte_rds_close(c) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
	rds_test_watchdog(0, NULL);
}

static void
test_close_mid_stream(void)
{
	struct sockaddr_in a2a = rds_test_sin(RDS_TEST_IP1, 5011);
	struct sockaddr_in ba = rds_test_sin(RDS_TEST_IP2, 5012);
	struct rte_rds_stats st0, st1;
	struct rte_rds_conf conf;
	int a2, a3, b, rx[2];
	uint64_t got;

	rds_test_watchdog(300, "close_mid_stream");
	CU_ASSERT_FATAL(setup(&conf) == 0);
	a2 = rds_test_socket(RDS_TEST_IP1, 5011, 0, 0);
	b = rds_test_socket(RDS_TEST_IP2, 5012, 0, 0);
	CU_ASSERT_FATAL(a2 >= 0 && b >= 0);
	rx[0] = b;
	gens[3] = (struct gen_state){ .src = a2a, .dst_sock = b };

	st0 = rds_test_stats();
	CU_ASSERT(send_ids(a2, 3, 1, 1000, &ba, 50, rx, 1));
	CU_ASSERT(send_ids(a2, 3, 1001, 1500, &ba, 0, rx, 1));
	CU_ASSERT(rte_rds_close(a2) == 0);	/* must not deadlock */
	settle(rx, 1);
	st1 = rds_test_stats();
	got = count_range(&gens[3], 1, 1500);
	printf("\n  close: %" PRIu64 " of 1500 arrived (last id %" PRIu64
	       "), %" PRIu64 " cancelled\n", got, gens[3].last,
	       st1.s_send_cancelled - st0.s_send_cancelled);
	CU_ASSERT(got <= 1500);
	CU_ASSERT(got >= 1);
	CU_ASSERT(!failed);
	gens[3].closed = true;

	/* A new socket on the same address and port works both ways. */
	a3 = rds_test_socket(RDS_TEST_IP1, 5011, 0, 0);
	CU_ASSERT_FATAL(a3 >= 0);
	rx[1] = a3;
	gens[4] = (struct gen_state){ .src = a2a, .dst_sock = b };
	gens[5] = (struct gen_state){ .src = ba, .dst_sock = a3 };
	CU_ASSERT(send_ids(a3, 4, 1, 500, &ba, 50, rx, 2));
	CU_ASSERT(send_ids(b, 5, 1, 300, &a2a, 25, rx, 2));
	settle(rx, 2);
	CU_ASSERT_EQUAL(count_range(&gens[4], 1, 500), 500);
	CU_ASSERT_EQUAL(count_range(&gens[5], 1, 300), 300);
	CU_ASSERT_EQUAL(stray, 0);
	CU_ASSERT(!failed);

	CU_ASSERT(rte_rds_close(a3) == 0);
	CU_ASSERT(rte_rds_close(b) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
	rds_test_watchdog(0, NULL);
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "cancel_sent_to", test_cancel_sent_to },
		{ "cancel_while_down", test_cancel_while_down },
		{ "close_mid_stream", test_close_mid_stream },
		{ NULL, NULL },
	};

	return rds_test_main("loop_cancel", "0", cases);
}

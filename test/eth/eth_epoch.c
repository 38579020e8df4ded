/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eth_epoch: epochs are ordered (rds_eth_epoch.c), so no frame of an
 * older incarnation of a peer is ever taken for a new stream.
 *
 *   next:            the epoch after another: the clock, or one more when
 *                    the clock is not ahead (serial arithmetic, never 0);
 *   acceptable:      a peer's new epoch is taken only if newer than the
 *                    newest taken before; past the horizon any new one;
 *   older_never_taken: the test plays a peer that restarts seven times
 *                    (more than the four earlier streams the receiver
 *                    used to remember); then a late OPEN frame of its
 *                    first stream, and one of an incarnation before it
 *                    the library never saw, arrive with messages not
 *                    marked retransmitted: both are stale (counted,
 *                    nothing delivered, no restart), and the current
 *                    stream goes on. With random epochs both were taken
 *                    for new streams and delivered a message again;
 *   restart_before_ack: the library takes the peer's stream and sends
 *                    a message of its own, which the peer never
 *                    acknowledges (its stream never named the library's);
 *                    the peer restarts (a new stream, naming none): the
 *                    library's stream starts again at once in a new
 *                    epoch and the message goes again, frame 0 of it,
 *                    marked retransmitted, without waiting for its
 *                    retransmission timer (1 s here; backed off while a
 *                    peer is away, it kept the simulator's restarted
 *                    hosts waiting for ms);
 *   taken_mid_stream: the peer takes the library's stream and
 *                    acknowledges its first message; the second is in
 *                    flight; the peer restarts and its new stream names
 *                    the library's but acknowledges none of it (it took
 *                    the library's stream from a late frame still marked
 *                    OPEN, past the frames its old incarnation had): the
 *                    library's stream starts again at once in a new
 *                    epoch and the second message goes again, marked
 *                    retransmitted, the first not. Before, the library
 *                    kept its stream (the peer "took" it) and sent only
 *                    its frames in flight again, which the peer, waiting
 *                    for frame 0, held out of order for ever (the
 *                    simulator's rack restart: 3 of 1,000 pairs stalled);
 *   own_ordered:     the library's own epochs, as a peer sees them, grow
 *                    across restarts of the library (rte_rds_fini, init,
 *                    5 ms apart) and across a reset of its stream within
 *                    the same unit of the clock (a peer's RESET).
 *
 * The peer is played frame by frame (eth_wire_peer.h).
 */
#include <stdio.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include <rte_cycles.h>
#include <rte_rds.h>
#include <rte_rds_eth.h>

#include "rds_test.h"
#include "eth_wire_peer.h"

static bool
newer(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

static void
test_next(void)
{
	uint32_t now = rds_eth_epoch_now(), e;

	CU_ASSERT_EQUAL(rds_eth_epoch_next(0, 1000), 1000);
	CU_ASSERT_EQUAL(rds_eth_epoch_next(5, 3), 6);	/* clock behind */
	CU_ASSERT_EQUAL(rds_eth_epoch_next(5, 5), 6);	/* same unit */
	CU_ASSERT_EQUAL(rds_eth_epoch_next(5, 9), 9);
	CU_ASSERT_EQUAL(rds_eth_epoch_next(UINT32_MAX, UINT32_MAX), 1);
	CU_ASSERT_EQUAL(rds_eth_epoch_next(0xfffffff0u, 0x10), 0x10);
	CU_ASSERT_EQUAL(rds_eth_epoch_next(0, 0), 1);
	/* The clock in 1/1024 s: a tenth of a second later, ~102 more. */
	rte_delay_us_sleep(100000);
	e = rds_eth_epoch_now();
	CU_ASSERT(newer(e, now));
	CU_ASSERT(e - now >= 90 && e - now < 1024 * 5);
}

static void
test_acceptable(void)
{
	struct rds_eth_conn ec;
	uint64_t hz = rte_get_tsc_hz(), t0 = 1000 * hz;

	memset(&ec, 0, sizeof(ec));
	CU_ASSERT(!rds_eth_peer_epoch_acceptable(&ec, 0, t0));
	CU_ASSERT(rds_eth_peer_epoch_acceptable(&ec, 77, t0));
	rds_eth_peer_epoch_taken(&ec, 0x80000010u, t0);
	CU_ASSERT(rds_eth_peer_epoch_acceptable(&ec, 0x80000011u, t0));
	CU_ASSERT(rds_eth_peer_epoch_acceptable(&ec, 0x80000010u + 0x7fffffffu,
						t0));
	CU_ASSERT(!rds_eth_peer_epoch_acceptable(&ec, 0x80000010u, t0));
	CU_ASSERT(!rds_eth_peer_epoch_acceptable(&ec, 0x8000000fu, t0));
	CU_ASSERT(!rds_eth_peer_epoch_acceptable(&ec, 0x10, t0));
	/* Twelve days later still ordered; past 2^20 s any new epoch. */
	CU_ASSERT(!rds_eth_peer_epoch_acceptable(&ec, 0x8000000fu,
						 t0 + hz * 1000000));
	CU_ASSERT(rds_eth_peer_epoch_acceptable(&ec, 0x8000000fu,
						t0 + hz * ((1u << 20) + 1)));
	CU_ASSERT(!rds_eth_peer_epoch_acceptable(&ec, 0x80000010u,
						 t0 + hz * ((1u << 20) + 1)));
}

static struct rte_rds_eth_stats
eth_stats(void)
{
	struct rte_rds_eth_stats st;

	CU_ASSERT_FATAL(rte_rds_eth_stats_get(&st) == 0);
	return st;
}

/* The peer's stream starts again in epoch e (a restarted peer). */
static void
peer_restart(uint32_t e)
{
	wp.epoch = e;
	wp.acked = false;
	wp.snd_nxt = 0;
}

static void
expect_msg(int s, uint8_t v)
{
	struct sockaddr_in from;
	uint8_t buf[64];

	CU_ASSERT_EQUAL(rds_test_recv(s, buf, sizeof(buf), &from,
				      MSG_DONTWAIT, NULL), 10);
	CU_ASSERT_EQUAL(buf[0], v);
}

static void
test_older_never_taken(void)
{
	struct rte_rds_eth_stats st0, st;
	uint32_t base, first;
	uint8_t buf[64];
	unsigned int k;
	int s;

	lib_up();
	s = lib_socket(H_LIB_IP, 0);
	base = wp.epoch;
	first = base + 100;
	/* The first stream the library takes: messages 1 to 3. */
	peer_restart(first);
	peer_send(1, 10, 0, 0);
	peer_send(2, 10, 0, 0);
	peer_send(3, 10, 0, RDS_ETH_FL_ACKREQ);
	poll_n(4);
	CU_ASSERT(wp.acked);
	for (k = 1; k <= 3; k++)
		expect_msg(s, (uint8_t)k);
	/* Seven restarts, a new message in each. */
	for (k = 1; k <= 7; k++) {
		peer_restart(first + 100 * k);
		peer_send(3 + k, 10, 0, RDS_ETH_FL_ACKREQ);
		poll_n(4);
		CU_ASSERT(wp.acked);
		expect_msg(s, (uint8_t)(3 + k));
	}
	st0 = eth_stats();
	/* Late OPEN frames: message 2 of the first stream, message 1 of an
	 * incarnation before it that the library never saw. Not marked
	 * retransmitted: taken, they would be delivered again. */
	peer_restart(first);
	wp.snd_nxt = 1;
	peer_send(2, 10, 0, RDS_ETH_FL_ACKREQ);
	peer_restart(base);
	peer_send(1, 10, 0, RDS_ETH_FL_ACKREQ);
	poll_n(4);
	CU_ASSERT_EQUAL(rte_rds_recvfrom(s, buf, sizeof(buf), MSG_DONTWAIT,
					 NULL, NULL), -1);
	st = eth_stats();
	CU_ASSERT_EQUAL(st.rx_drop_stale - st0.rx_drop_stale, 2);
	CU_ASSERT_EQUAL(st.peer_restarts, st0.peer_restarts);
	/* The current stream goes on: its next frame is taken. */
	peer_restart(first + 700);
	wp.acked = true;
	wp.snd_nxt = 1;
	peer_send(11, 10, 0, RDS_ETH_FL_ACKREQ);
	poll_n(4);
	expect_msg(s, 11);
	CU_ASSERT_EQUAL(rte_rds_recvfrom(s, buf, sizeof(buf), MSG_DONTWAIT,
					 NULL, NULL), -1);
	CU_ASSERT(rte_rds_close(s) == 0);
	lib_down();
}

static void
test_restart_before_ack(void)
{
	struct rte_rds_eth_stats st0, st;
	uint32_t lib1;
	unsigned int i, mark, fresh = 0;
	int s;

	lib_up();
	s = lib_socket(H_LIB_IP, 0);
	/* The peer's stream, taken (before the library sent anything). */
	peer_restart(wp.epoch + 100);
	peer_send(1, 10, 0, RDS_ETH_FL_ACKREQ);
	poll_n(4);
	CU_ASSERT_FATAL(wp.acked);
	expect_msg(s, 1);
	/* The library's message: in flight, never acknowledged. */
	lib_send(s, H_PEER_IP, PEER_PORT, 10, 0x5a);
	poll_n(4);
	lib1 = wp.lib_epoch;
	CU_ASSERT_FATAL(lib1 != 0 && send_acked() == 0);
	/* The peer restarts: its new stream names none of the library's. */
	st0 = eth_stats();
	mark = wp.nb_log;
	peer_restart(wp.epoch + 100);
	wp.lib_epoch = 0;
	peer_send(2, 10, 0, RDS_ETH_FL_ACKREQ);
	poll_n(4);
	expect_msg(s, 2);
	st = eth_stats();
	CU_ASSERT_EQUAL(st.peer_restarts - st0.peer_restarts, 1);
	/* At once: the library's new stream, the message in it. */
	for (i = mark; i < wp.nb_log; i++)
		if (wp.log[i].f.type == RDS_ETH_F_DATA &&
		    wp.log[i].f.src_epoch != lib1 && wp.log[i].rds &&
		    wp.log[i].pay[0] == 0x5a &&
		    (wp.log[i].hdr.flags & RDS_FLAG_RETRANSMITTED))
			fresh++;
	if (fresh == 0)
		printf("\n    the library's stream stayed in epoch %u: "
		       "nothing sent again", lib1);
	CU_ASSERT_EQUAL(fresh, 1);
	CU_ASSERT(wp.lib_epoch != lib1);
	CU_ASSERT(rte_rds_close(s) == 0);
	lib_down();
}

/* The newest frame of the library's stream epoch in the log, -1: none. */
static int64_t
newest_frame(uint32_t epoch)
{
	int64_t hi = -1;
	unsigned int i;

	for (i = 0; i < wp.nb_log; i++)
		if (wp.log[i].f.type == RDS_ETH_F_DATA &&
		    wp.log[i].f.src_epoch == epoch &&
		    (int64_t)wp.log[i].f.seq > hi)
			hi = wp.log[i].f.seq;
	return hi;
}

static void
test_taken_mid_stream(void)
{
	struct rte_rds_eth_stats st0, st;
	unsigned int i, mark, again = 0, first_again = 0;
	uint32_t lib1;
	int64_t hi;
	int s;

	lib_up();
	s = lib_socket(H_LIB_IP, 0);
	peer_restart(wp.epoch + 100);
	peer_send(1, 10, 0, RDS_ETH_FL_ACKREQ);
	poll_n(4);
	CU_ASSERT_FATAL(wp.acked);
	expect_msg(s, 1);
	/* The library's first message, acknowledged (and let go). */
	lib_send(s, H_PEER_IP, PEER_PORT, 10, 0x11);
	poll_n(4);
	lib1 = wp.lib_epoch;
	hi = newest_frame(lib1);
	CU_ASSERT_FATAL(lib1 != 0 && hi >= 0);
	peer_ack((uint32_t)hi + 1, 0);
	poll_n(4);
	CU_ASSERT_FATAL(send_acked() == 1);
	/* The second, in flight. */
	lib_send(s, H_PEER_IP, PEER_PORT, 10, 0x22);
	poll_n(4);
	CU_ASSERT_FATAL(newest_frame(lib1) > hi && send_acked() == 1);
	/* The peer restarts; its new stream names the library's stream but
	 * acknowledges none of it. */
	st0 = eth_stats();
	mark = wp.nb_log;
	peer_restart(wp.epoch + 100);
	peer_ack(0, 0);
	poll_n(4);
	st = eth_stats();
	CU_ASSERT_EQUAL(st.peer_restarts - st0.peer_restarts, 1);
	for (i = mark; i < wp.nb_log; i++) {
		if (wp.log[i].f.type != RDS_ETH_F_DATA ||
		    wp.log[i].f.src_epoch == lib1 || !wp.log[i].rds ||
		    (wp.log[i].hdr.flags & RDS_FLAG_CONG_BITMAP))
			continue;
		if (wp.log[i].pay[0] == 0x22 &&
		    (wp.log[i].hdr.flags & RDS_FLAG_RETRANSMITTED))
			again++;
		if (wp.log[i].pay[0] == 0x11)
			first_again++;
	}
	if (again == 0)
		printf("\n    the library's stream stayed in epoch %u: the "
		       "peer waits for frames it let go", lib1);
	CU_ASSERT_EQUAL(again, 1);
	CU_ASSERT_EQUAL(first_again, 0);
	CU_ASSERT(wp.lib_epoch != lib1);
	CU_ASSERT(rte_rds_close(s) == 0);
	lib_down();
}

/* The library's epoch as the peer sees it once the library sends. */
static uint32_t
lib_epoch_now(int s, uint8_t fill)
{
	wp.lib_epoch = 0;
	lib_send(s, H_PEER_IP, PEER_PORT, 10, fill);
	poll_n(4);
	CU_ASSERT_FATAL(wp.lib_epoch != 0);
	return wp.lib_epoch;
}

static void
test_own_ordered(void)
{
	uint32_t prev = 0, e;
	unsigned int k;
	int s;

	for (k = 0; k < 4; k++) {
		/* A restart takes longer than a unit of the clock (1/1024
		 * s; an EAL's start alone takes 100s of ms): the one
		 * assumption of ordered epochs (rds_eth_epoch.c). */
		rte_delay_us_sleep(5000);
		lib_up();
		s = lib_socket(H_LIB_IP, 0);
		e = lib_epoch_now(s, (uint8_t)k);
		if (prev != 0)
			CU_ASSERT(newer(e, prev));
		prev = e;
		/* A reset of its stream (the peer lost it): a newer one. */
		reset_frame(wp.rx, e, &wp.peer_mac, &wp.lib_mac, wp.peer_ip,
			    wp.lib_ip);
		poll_n(4);
		e = lib_epoch_now(s, (uint8_t)(k + 100));
		CU_ASSERT(newer(e, prev));
		prev = e;
		CU_ASSERT(rte_rds_close(s) == 0);
		lib_down();
	}
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "next", test_next },
		{ "acceptable", test_acceptable },
		{ "older_never_taken", test_older_never_taken },
		{ "restart_before_ack", test_restart_before_ack },
		{ "taken_mid_stream", test_taken_mid_stream },
		{ "own_ordered", test_own_ordered },
		{ NULL, NULL },
	};

	return rds_test_main("eth_epoch", "0", cases);
}

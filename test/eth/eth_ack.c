/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eth_ack: RDS messages acknowledged by eth's frame ACKs (one stream of
 * acknowledgements per connection, RDS_TRANS_F_ACKS; rds_eth.h has the
 * wire's rules), and the frames that carry them, frame by frame.
 *
 * Most cases play the peer themselves (eth_wire_peer.h): the library's
 * address 10.254.3.1 is on a net_ring port whose receive ring the test
 * fills and whose transmit ring it drains; the test is 10.254.3.2 (a
 * static neighbour),
 * with a stream of its own, and decides which of the library's frames it
 * acknowledges, cumulatively or selectively, and when:
 *
 *   freed_at_last_frame: a message is freed (s_send_acked) only when the
 *                    cumulative ACK covers its last frame: not when its
 *                    earlier frames are, not when its last frame is
 *                    acknowledged selectively behind a hole;
 *   no_rds_acks:     messages from the peer, ACK_REQUIRED among them, get
 *                    no RDS ACK frame and no frame at all until one asks
 *                    for the frame ACK (RDS_ETH_FL_ACKREQ), which comes
 *                    in the same pass; the library's headers carry no
 *                    ACK; ACKREQ marks the last frame of a message sent
 *                    with its send buffer half full, and only that one
 *                    (cwnd_init=0: the congestion window's own ACKREQ,
 *                    on the frame that fills it, is another rule,
 *                    eth_rexmit's sack_holes_only checks it);
 *   ack_hold:        an ACK frame says in frag_off how long it was held
 *                    since the frame below its cumulative ACK came (ns):
 *                    a frame with no ACKREQ is acknowledged by the delay
 *                    timer (an eighth of rto_min_us, 125 ms here), which
 *                    that frame says (at least half of it: the timer
 *                    wheel's slots), and one with ACKREQ at once, held
 *                    less than that half (the sender's delay signal
 *                    takes the hold out of its round trip sample);
 *   reset_resends_unacked: after a reset of the library's stream (the
 *                    peer's RESET) exactly the messages whose last frame
 *                    was not acknowledged go again, in order, marked
 *                    RETRANSMITTED (with the congestion window on, as by
 *                    default: the peer acknowledges the new stream as it
 *                    comes, a window at a time);
 *   dup_filter:      after the peer's stream starts again, the messages
 *                    it sends again (RETRANSMITTED) that the library had
 *                    are dropped, the new one delivered;
 *   peer_mac:        the peer's frames come from a new MAC: the
 *                    library's next frames, ACKs and messages, go there
 *                    (the connection's frame template is made again);
 *   batch_full:      a message of more frames than a pass's batch for a
 *                    port (RDS_ETH_TX_BURST) goes out whole in one pass,
 *                    in order, none lost or refused. With cwnd_init=0:
 *                    the case is the transmit batch's, which needs more
 *                    than RDS_ETH_TX_BURST frames in the window at once;
 *                    the congestion window (10 frames at first, and it
 *                    grows only with ACKs the case does not send) would
 *                    let 10 go (eth_rexmit's cwnd cases test that).
 *
 * end_to_end: two addresses of the library on two net_ring ports whose
 * rings cross (10.254.3.11 and .12); every frame of the receiver is taken
 * off its ring, so that it has all 50 messages and the sender none of its
 * ACKs (cwnd_init=0: all 50 in flight with no ACK is the fixed window's
 * case; the congestion window would hold them to 10 frames); a RESET of the sender's stream: the 50 go again, the receiver's
 * duplicate rule drops all 50 (and its own stream, which the sender never
 * took, starts again too), and once its ACKs get through the sender
 * frees them; 10 more arrive once.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <CUnit/CUnit.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_eth_ring.h>
#include <rte_mbuf.h>
#include <rte_random.h>
#include <rte_ring.h>
#include <rte_rds.h>
#include <rte_rds_stats.h>

#include "rds_test.h"
#include "eth_wire_peer.h"

/* ------------------------------------------------------------------ */
/* Cases */

static void
test_freed_at_last_frame(void)
{
	int64_t l1, l2;
	int s;

	lib_up();
	s = lib_socket(H_LIB_IP, 0);
	lib_send(s, H_PEER_IP, PEER_PORT, 3000, 1);	/* 3 frames */
	lib_send(s, H_PEER_IP, PEER_PORT, 100, 2);	/* 1 frame */
	poll_n(4);
	l1 = last_frame(wp.lib_epoch, 1);
	l2 = last_frame(wp.lib_epoch, 2);
	CU_ASSERT_FATAL(l1 >= 2 && l2 == l1 + 1);
	/* Message 1's first two frames: nothing to free. */
	peer_ack((uint32_t)l1, 0);
	poll_n(2);
	CU_ASSERT_EQUAL(send_acked(), 0);
	/* Message 2's only frame, selectively, behind the hole of 1's
	 * last: still nothing (the peer has not taken it in order). */
	peer_ack((uint32_t)l1, 1);
	poll_n(2);
	CU_ASSERT_EQUAL(send_acked(), 0);
	/* Message 1's last frame: message 1 goes; 2 still SACKed only. */
	peer_ack((uint32_t)l1 + 1, 1);
	poll_n(2);
	CU_ASSERT_EQUAL(send_acked(), 1);
	peer_ack((uint32_t)l2 + 1, 0);
	poll_n(2);
	CU_ASSERT_EQUAL(send_acked(), 2);
	/* Nothing was sent again meanwhile. */
	CU_ASSERT_EQUAL(rds_test_stats().s_send_retransmit, 0);
	CU_ASSERT(rte_rds_close(s) == 0);
	lib_down();
}

static void
test_no_rds_acks(void)
{
	uint64_t until;
	unsigned int i, n, reqs = 0;
	socklen_t optlen;
	int s, sndbuf;
	char buf[64];

	/* The RDS layer's ACKREQ rule alone (above). */
	wp.lib_opts = ",cwnd_init=0";
	lib_up();
	wp.lib_opts = NULL;
	s = lib_socket(H_LIB_IP, 0);
	/* The first frame opens the connection; the library's map (its
	 * first message, on every connect) comes back. */
	peer_send(1, 10, 0, 0);
	poll_n(4);
	CU_ASSERT_EQUAL(rte_rds_recvfrom(s, buf, sizeof(buf), MSG_DONTWAIT,
					 NULL, NULL), 10);
	CU_ASSERT_FATAL(wp.nb_log > 0);
	CU_ASSERT(wp.log[0].rds && wp.log[0].hdr.flags == RDS_FLAG_CONG_BITMAP);
	/* ACK_REQUIRED in the RDS header: the frame layer's delay rules,
	 * so nothing at all comes back, however long past the core's
	 * delayed-ACK time we wait (the frame ACK's delay is 125 ms). */
	n = wp.nb_log;
	peer_send(2, 10, RDS_FLAG_ACK_REQUIRED, 0);
	until = rte_get_tsc_cycles() + rte_get_tsc_hz() / 1000 *
		(2 * RDS_DELAYED_ACK_US / 1000 + 2);
	while (rte_get_tsc_cycles() < until)
		poll_n(1);
	CU_ASSERT_EQUAL(rte_rds_recvfrom(s, buf, sizeof(buf), MSG_DONTWAIT,
					 NULL, NULL), 10);
	CU_ASSERT_EQUAL(wp.nb_log, n);
	CU_ASSERT_EQUAL(rds_test_stats().s_send_ack, 0);
	/* ACKREQ on the frame: the frame ACK of all three, in this pass. */
	peer_send(3, 10, 0, RDS_ETH_FL_ACKREQ);
	poll_n(1);
	CU_ASSERT_EQUAL_FATAL(wp.nb_log, n + 1);
	CU_ASSERT_EQUAL(wp.log[n].f.type, RDS_ETH_F_ACK);
	CU_ASSERT_EQUAL(wp.log[n].f.ack, wp.snd_nxt);
	CU_ASSERT_EQUAL(rte_rds_recvfrom(s, buf, sizeof(buf), MSG_DONTWAIT,
					 NULL, NULL), 10);
	CU_ASSERT(rte_rds_close(s) == 0);

	/* Sending with the buffer half full: that message's last frame
	 * asks for the ACK, the other one's frames do not. */
	s = lib_socket(H_LIB_IP, 8192);
	optlen = sizeof(sndbuf);
	CU_ASSERT_FATAL(rte_rds_getsockopt(s, SOL_SOCKET, SO_SNDBUF, &sndbuf,
					   &optlen) == 0);
	n = wp.nb_log;
	lib_send(s, H_PEER_IP, PEER_PORT, 100, 1);
	/* getsockopt doubles the value RDS uses, as the kernel's. */
	lib_send(s, H_PEER_IP, PEER_PORT, (uint32_t)sndbuf / 2 * 3 / 4, 2);
	poll_n(4);
	for (i = n; i < wp.nb_log; i++) {
		const struct lf *l = &wp.log[i];

		if (!(l->f.flags & RDS_ETH_FL_ACKREQ))
			continue;
		reqs++;
		CU_ASSERT(l->f.flags & RDS_ETH_FL_LAST);
		CU_ASSERT_EQUAL(l->f.seq, last_frame(wp.lib_epoch, 2));
	}
	CU_ASSERT_EQUAL(reqs, 1);
	CU_ASSERT(rte_rds_close(s) == 0);
	lib_down();
}

static void
test_ack_hold(void)
{
	const uint64_t delay_ns = 1000000000ull / 8;	/* rto_min_us / 8 */
	uint64_t until;
	unsigned int i, n;
	int64_t ack = -1;
	uint32_t hold = 0;
	char buf[64];
	int s;

	lib_up();
	s = lib_socket(H_LIB_IP, 0);
	/* The connection, and the library's map back (its ACK on it). */
	peer_send(1, 10, 0, 0);
	poll_n(4);
	CU_ASSERT_EQUAL(rte_rds_recvfrom(s, buf, sizeof(buf), MSG_DONTWAIT,
					 NULL, NULL), 10);
	n = wp.nb_log;
	peer_send(2, 10, 0, 0);
	until = rte_get_tsc_cycles() + 2 * rte_get_tsc_hz();
	while (ack < 0 && rte_get_tsc_cycles() < until) {
		poll_n(1);
		for (i = n; i < wp.nb_log && ack < 0; i++)
			if (wp.log[i].f.type == RDS_ETH_F_ACK) {
				ack = wp.log[i].f.ack;
				hold = wp.log[i].f.frag_off;
			}
	}
	printf("\n    delayed ACK held %u ns, asked-for one ", hold);
	CU_ASSERT_FATAL(ack >= 0);
	CU_ASSERT_EQUAL(ack, wp.snd_nxt);
	/* The timer fires about its delay after (its wheel's slots may
	 * take it a little sooner: seen 124.86 ms of 125), and the field
	 * is not saturated. */
	CU_ASSERT(hold >= delay_ns / 2);
	CU_ASSERT(hold < UINT32_MAX);
	/* Asked for: in the pass the frame came in. */
	n = wp.nb_log;
	peer_send(3, 10, 0, RDS_ETH_FL_ACKREQ);
	poll_n(1);
	CU_ASSERT_EQUAL_FATAL(wp.nb_log, n + 1);
	CU_ASSERT_EQUAL(wp.log[n].f.type, RDS_ETH_F_ACK);
	printf("%u ns\n", wp.log[n].f.frag_off);
	CU_ASSERT(wp.log[n].f.frag_off < delay_ns / 2);
	for (i = 0; i < 2; i++)
		CU_ASSERT_EQUAL(rte_rds_recvfrom(s, buf, sizeof(buf),
						 MSG_DONTWAIT, NULL, NULL), 10);
	CU_ASSERT(rte_rds_close(s) == 0);
	lib_down();
}

/* One past the newest DATA frame the library sent in its stream epoch
 * (0: none). */
static uint32_t
lib_sent_end(uint32_t epoch)
{
	uint32_t end = 0;
	unsigned int i;

	for (i = 0; i < wp.nb_log; i++)
		if (wp.log[i].f.type == RDS_ETH_F_DATA &&
		    wp.log[i].f.src_epoch == epoch &&
		    wp.log[i].f.seq + 1 > end)
			end = wp.log[i].f.seq + 1;
	return end;
}

static void
test_reset_resends_unacked(void)
{
	static const uint32_t len[5] = { 100, 6000, 100, 4000, 100 };
	uint32_t old, epoch;
	unsigned int i, k;
	uint64_t want = 2;
	unsigned int r;
	int s;

	lib_up();
	s = lib_socket(H_LIB_IP, 0);
	for (i = 0; i < 5; i++)
		lib_send(s, H_PEER_IP, PEER_PORT, len[i], (uint8_t)i);
	poll_n(4);
	old = wp.lib_epoch;
	/* Message 1 whole, message 2 but its last frame. */
	peer_ack((uint32_t)last_frame(old, 2), 0);
	poll_n(2);
	CU_ASSERT_EQUAL(send_acked(), 1);
	k = wp.nb_log;
	reset_frame(wp.rx, old, &wp.peer_mac, &wp.lib_mac, wp.peer_ip, wp.lib_ip);
	poll_n(4);
	epoch = wp.lib_epoch;
	CU_ASSERT_FATAL(epoch != old);
	CU_ASSERT_EQUAL(rds_test_stats().s_conn_reset, 1);
	/* The congestion window (10 frames at first) holds the new
	 * stream's map and messages (11 frames): the peer acknowledges
	 * what came, round by round, until message 5's last frame. */
	for (r = 0; r < 16 && last_frame(epoch, 5) < 0; r++) {
		peer_ack(lib_sent_end(epoch), 0);
		poll_n(2);
	}
	CU_ASSERT(r >= 1);
	/* The new stream: the map, then 2 .. 5 again, marked, in order,
	 * and nothing else. */
	for (i = k; i < wp.nb_log; i++) {
		const struct lf *l = &wp.log[i];

		CU_ASSERT_EQUAL(l->f.src_epoch, epoch);
		if (!l->rds || (l->hdr.flags & RDS_FLAG_CONG_BITMAP))
			continue;
		CU_ASSERT_EQUAL(l->hdr.seq, want);
		CU_ASSERT(l->hdr.flags & RDS_FLAG_RETRANSMITTED);
		CU_ASSERT_EQUAL(l->hdr.len, len[want - 1]);
		want++;
	}
	CU_ASSERT_EQUAL(want, 6);
	CU_ASSERT_EQUAL(rds_test_stats().s_send_retransmit, 4);
	/* The new stream acknowledged: all five are gone. */
	peer_ack((uint32_t)last_frame(epoch, 5) + 1, 0);
	poll_n(2);
	CU_ASSERT_EQUAL(send_acked(), 5);
	CU_ASSERT(rte_rds_close(s) == 0);
	lib_down();
}

static void
test_dup_filter(void)
{
	struct sockaddr_in from;
	unsigned int k;
	uint8_t buf[64];
	int s;

	lib_up();
	s = lib_socket(H_LIB_IP, 0);
	peer_send(1, 10, 0, 0);
	peer_send(2, 10, 0, 0);
	peer_send(3, 10, 0, RDS_ETH_FL_ACKREQ);
	poll_n(4);
	CU_ASSERT(wp.acked);
	for (k = 1; k <= 3; k++) {
		CU_ASSERT_EQUAL(rds_test_recv(s, buf, sizeof(buf), &from,
					      MSG_DONTWAIT, NULL), 10);
		CU_ASSERT_EQUAL(buf[0], k);
	}
	/* The peer's stream starts again (its RDS reset its end): 2 and 3
	 * again, as RDS resends, and a new 4. */
	wp.epoch = (wp.epoch + 2) | 1;
	wp.acked = false;
	wp.snd_nxt = 0;
	peer_send(2, 10, RDS_FLAG_RETRANSMITTED, 0);
	peer_send(3, 10, RDS_FLAG_RETRANSMITTED, 0);
	peer_send(4, 10, 0, RDS_ETH_FL_ACKREQ);
	poll_n(4);
	CU_ASSERT_EQUAL(rds_test_recv(s, buf, sizeof(buf), &from,
				      MSG_DONTWAIT, NULL), 10);
	CU_ASSERT_EQUAL(buf[0], 4);
	CU_ASSERT_EQUAL(rte_rds_recvfrom(s, buf, sizeof(buf), MSG_DONTWAIT,
					 NULL, NULL), -1);
	CU_ASSERT_EQUAL(rds_test_stats().s_recv_drop_old_seq, 2);
	CU_ASSERT(rte_rds_close(s) == 0);
	lib_down();
}

static void
test_peer_mac(void)
{
	struct rte_ether_addr mac1 = wp.peer_mac, mac2 = wp.peer_mac;
	unsigned int i, n, data = 0;
	char buf[64];
	int s;

	lib_up();
	s = lib_socket(H_LIB_IP, 0);
	peer_send(1, 10, 0, RDS_ETH_FL_ACKREQ);
	poll_n(4);
	CU_ASSERT_FATAL(wp.nb_log > 0);
	for (i = 0; i < wp.nb_log; i++)
		CU_ASSERT(rte_is_same_ether_addr(&wp.log[i].dst, &mac1));
	/* From now on the peer is at another MAC. */
	mac2.addr_bytes[5] ^= 0x40;
	wp.peer_mac = mac2;
	n = wp.nb_log;
	peer_send(2, 10, 0, RDS_ETH_FL_ACKREQ);
	poll_n(1);
	lib_send(s, H_PEER_IP, PEER_PORT, 100, 7);
	poll_n(2);
	CU_ASSERT_FATAL(wp.nb_log >= n + 2);
	for (i = n; i < wp.nb_log; i++) {
		CU_ASSERT(rte_is_same_ether_addr(&wp.log[i].dst, &mac2));
		if (wp.log[i].rds && wp.log[i].hdr.len == 100)
			data++;
	}
	CU_ASSERT_EQUAL(wp.log[n].f.type, RDS_ETH_F_ACK);
	CU_ASSERT_EQUAL(data, 1);
	CU_ASSERT_EQUAL(rte_rds_recvfrom(s, buf, sizeof(buf), MSG_DONTWAIT,
					 NULL, NULL), 10);
	CU_ASSERT_EQUAL(rte_rds_recvfrom(s, buf, sizeof(buf), MSG_DONTWAIT,
					 NULL, NULL), 10);
	CU_ASSERT(rte_rds_close(s) == 0);
	wp.peer_mac = mac1;
	lib_down();
}

static void
test_batch_full(void)
{
	struct rte_rds_eth_stats st;
	unsigned int i, n = 0;
	int s;

	/* The fixed window: the batch, not the congestion window, is under
	 * test (above). */
	wp.lib_opts = ",cwnd_init=0";
	lib_up();
	wp.lib_opts = NULL;
	s = lib_socket(H_LIB_IP, 4 << 20);
	/* 100 KiB: 72 frames, and the congestion map's 6 before them. */
	lib_send(s, H_PEER_IP, PEER_PORT, 100 * 1024, 3);
	poll_n(1);
	for (i = 0; i < wp.nb_log; i++) {
		if (wp.log[i].f.type != RDS_ETH_F_DATA)
			continue;
		CU_ASSERT_EQUAL(wp.log[i].f.seq, n);
		n++;
	}
	CU_ASSERT(n > RDS_ETH_TX_BURST);
	CU_ASSERT(last_frame(wp.lib_epoch, 1) == (int64_t)n - 1);
	CU_ASSERT_EQUAL(rte_rds_eth_stats_get(&st), 0);
	CU_ASSERT_EQUAL(st.tx_full, 0);
	CU_ASSERT(rte_rds_close(s) == 0);
	lib_down();
}

/* A's epoch, from the frames it has in its ring (left as they are). */
static uint32_t
a_epoch(void)
{
	struct rte_mbuf *m[1024];
	unsigned int n, i;
	uint32_t epoch = 0;
	struct lf l;

	n = rte_ring_dequeue_burst(wp.ab, (void **)m, RTE_DIM(m), NULL);
	for (i = 0; i < n; i++)
		if (decode(m[i], &l) && l.f.src_epoch != 0)
			epoch = l.f.src_epoch;
	CU_ASSERT_FATAL(rte_ring_enqueue_burst(wp.ab, (void **)m, n, NULL) ==
			n);
	return epoch;
}

static void
test_end_to_end(void)
{
	struct sockaddr_in from;
	struct rte_rds_stats st;
	uint32_t epoch = 0, e;
	unsigned int i, got = 0;
	uint64_t until;
	uint8_t buf[256];
	int a, b;

	/* All 50 in flight without an ACK: the fixed window (above). */
	wp.lib_opts = ",cwnd_init=0";
	lib_up();
	wp.lib_opts = NULL;
	a = lib_socket(E_A_IP, 0);
	b = lib_socket(E_B_IP, 0);
	/* B's frames never reach A: B has all 50, A none of B's ACKs. */
	for (i = 0; i < 50; i++)
		lib_send(a, E_B_IP, LIB_PORT, 100, (uint8_t)i);
	for (i = 0; i < 20; i++) {
		rte_rds_engine_poll(0);
		if ((e = a_epoch()) != 0)
			epoch = e;
		flush_ring(wp.ba);
	}
	while (rte_rds_recvfrom(b, buf, sizeof(buf), MSG_DONTWAIT, NULL,
				NULL) == 100) {
		CU_ASSERT_EQUAL(buf[0], got);
		got++;
	}
	CU_ASSERT_EQUAL_FATAL(got, 50);
	CU_ASSERT_EQUAL(send_acked(), 0);
	CU_ASSERT_FATAL(epoch != 0);
	/* A's stream is reset: all 50 again, B drops every one. */
	reset_frame(wp.ba, epoch, &wp.b_mac, &wp.a_mac, wp.b_ip, wp.a_ip);
	for (i = 0; i < 20; i++) {
		rte_rds_engine_poll(0);	/* A takes the reset first */
		flush_ring(wp.ba);
	}
	st = rds_test_stats();
	/* A's stream, by the RESET; and B's: A's new stream names none of
	 * B's, which A never took (B's frames were taken off the ring) and
	 * which has a frame in flight (B's congestion map), so B's starts
	 * again at once instead of at its retransmission timer. */
	CU_ASSERT_EQUAL(st.s_conn_reset, 2);
	CU_ASSERT_EQUAL(st.s_send_retransmit, 50);
	CU_ASSERT_EQUAL(st.s_recv_drop_old_seq, 50);
	CU_ASSERT_EQUAL(rte_rds_recvfrom(b, buf, sizeof(buf), MSG_DONTWAIT,
					 NULL, NULL), -1);
	/* B's ACKs get through now (after its delay): A frees the 50; 10
	 * more arrive once. */
	for (i = 50; i < 60; i++)
		lib_send(a, E_B_IP, LIB_PORT, 100, (uint8_t)i);
	until = rte_get_tsc_cycles() + 2 * rte_get_tsc_hz();
	while ((send_acked() < 60 || got < 60) &&
	       rte_get_tsc_cycles() < until) {
		rte_rds_engine_poll(0);
		while (rds_test_recv(b, buf, sizeof(buf), &from,
				     MSG_DONTWAIT, NULL) == 100) {
			CU_ASSERT_EQUAL(buf[0], got);
			got++;
		}
	}
	CU_ASSERT_EQUAL(got, 60);
	CU_ASSERT_EQUAL(send_acked(), 60);
	CU_ASSERT_EQUAL(rds_test_stats().s_recv_drop_old_seq, 50);
	CU_ASSERT(rte_rds_close(a) == 0);
	CU_ASSERT(rte_rds_close(b) == 0);
	lib_down();
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "freed_at_last_frame", test_freed_at_last_frame },
		{ "no_rds_acks", test_no_rds_acks },
		{ "ack_hold", test_ack_hold },
		{ "reset_resends_unacked", test_reset_resends_unacked },
		{ "dup_filter", test_dup_filter },
		{ "peer_mac", test_peer_mac },
		{ "batch_full", test_batch_full },
		{ "end_to_end", test_end_to_end },
		{ NULL, NULL },
	};

	return rds_test_main("eth_ack", "0", cases);
}

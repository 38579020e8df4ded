/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eth_ack: RDS messages acknowledged by eth's frame ACKs (one stream of
 * acknowledgements per connection, RDS_TRANS_F_ACKS; rds_eth.h has the
 * wire's rules), and the frames that carry them, frame by frame.
 *
 * Most cases play the peer themselves: the library's address 10.254.3.1
 * is on a net_ring port whose receive ring the test fills and whose
 * transmit ring it drains; the test is 10.254.3.2 (a static neighbour),
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
 *                    with its send buffer half full, and only that one;
 *   reset_resends_unacked: after a reset of the library's stream (the
 *                    peer's RESET) exactly the messages whose last frame
 *                    was not acknowledged go again, in order, marked
 *                    RETRANSMITTED;
 *   dup_filter:      after the peer's stream starts again, the messages
 *                    it sends again (RETRANSMITTED) that the library had
 *                    are dropped, the new one delivered;
 *   peer_mac:        the peer's frames come from a new MAC: the
 *                    library's next frames, ACKs and messages, go there
 *                    (the connection's frame template is made again);
 *   batch_full:      a message of more frames than a pass's batch for a
 *                    port (RDS_ETH_TX_BURST) goes out whole in one pass,
 *                    in order, none lost or refused.
 *
 * end_to_end: two addresses of the library on two net_ring ports whose
 * rings cross (10.254.3.11 and .12); every frame of the receiver is taken
 * off its ring, so that it has all 50 messages and the sender none of its
 * ACKs; a RESET of the sender's stream: the 50 go again, the receiver's
 * duplicate rule drops all 50, and once its ACKs get through the sender
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
#include "rds_eth.h"

#define H_LIB_IP "10.254.3.1"
#define H_PEER_IP "10.254.3.2"
#define H_LIB_MAC "02:00:0a:fe:03:01"
#define H_PEER_MAC "02:00:0a:fe:03:02"
#define E_A_IP "10.254.3.11"
#define E_B_IP "10.254.3.12"
#define E_A_MAC "02:00:0a:fe:03:0b"
#define E_B_MAC "02:00:0a:fe:03:0c"
#define LIB_PORT 4000
#define PEER_PORT 5000
#define FRAG 1400		/* the peer's fragments */
#define MAX_LOG 512

/* A frame the library sent to the peer, decoded. */
struct lf {
	struct rte_ether_addr dst;	/* Ethernet destination */
	struct rds_eth_frame f;
	bool rds;		/* first fragment of an RDS frame: hdr */
	struct rds_hdr_info hdr;
};

static struct {
	/* Rings of the ports: the peer's port (we fill rx, drain tx), and
	 * A's and B's, which cross. */
	struct rte_ring *rx, *tx, *ab, *ba;
	uint16_t port, port_a, port_b;
	struct rte_mempool *pool;
	uint32_t lib_ip, peer_ip, a_ip, b_ip;
	struct rte_ether_addr lib_mac, peer_mac, a_mac, b_mac;
	/* The peer. */
	uint32_t epoch;		/* its stream's */
	bool acked;		/* the library takes its stream */
	uint32_t lib_epoch;	/* the library's stream, as last seen */
	uint32_t snd_nxt;	/* its next frame */
	struct lf log[MAX_LOG];	/* what the library sent */
	unsigned int nb_log;
} h;

static void
make_ports(void)
{
	static bool made;
	int ret;

	if (made)
		return;
	h.rx = rte_ring_create("ack_rx", 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	h.tx = rte_ring_create("ack_tx", 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	h.ab = rte_ring_create("ack_ab", 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	h.ba = rte_ring_create("ack_ba", 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	CU_ASSERT_FATAL(h.rx != NULL && h.tx != NULL && h.ab != NULL &&
			h.ba != NULL);
	ret = rte_eth_from_rings("ackH", &h.rx, 1, &h.tx, 1, 0);
	CU_ASSERT_FATAL(ret >= 0);
	h.port = (uint16_t)ret;
	ret = rte_eth_from_rings("ackA", &h.ba, 1, &h.ab, 1, 0);
	CU_ASSERT_FATAL(ret >= 0);
	h.port_a = (uint16_t)ret;
	ret = rte_eth_from_rings("ackB", &h.ab, 1, &h.ba, 1, 0);
	CU_ASSERT_FATAL(ret >= 0);
	h.port_b = (uint16_t)ret;
	h.pool = rte_pktmbuf_pool_create("ack_peer", 2047, 0, 0,
					 RTE_MBUF_DEFAULT_BUF_SIZE,
					 SOCKET_ID_ANY);
	CU_ASSERT_FATAL(h.pool != NULL);
	h.lib_ip = inet_addr(H_LIB_IP);
	h.peer_ip = inet_addr(H_PEER_IP);
	h.a_ip = inet_addr(E_A_IP);
	h.b_ip = inet_addr(E_B_IP);
	rte_ether_unformat_addr(H_LIB_MAC, &h.lib_mac);
	rte_ether_unformat_addr(H_PEER_MAC, &h.peer_mac);
	rte_ether_unformat_addr(E_A_MAC, &h.a_mac);
	rte_ether_unformat_addr(E_B_MAC, &h.b_mac);
	made = true;
}

static void
flush_ring(struct rte_ring *r)
{
	struct rte_mbuf *m;

	while (rte_ring_dequeue(r, (void **)&m) == 0)
		rte_pktmbuf_free(m);
}

/* The library with its three addresses; timers slow enough that no
 * retransmission or delayed ACK comes unless a case waits for it. */
static void
lib_up(void)
{
	struct rte_rds_conf conf;
	char spec[256];

	make_ports();
	flush_ring(h.rx);
	flush_ring(h.tx);
	flush_ring(h.ab);
	flush_ring(h.ba);
	rte_rds_conf_init(&conf);
	conf.engine[0].lcore_id = RTE_RDS_ENGINE_INLINE;
	snprintf(spec, sizeof(spec), H_LIB_IP "=eth,port=%u,mac=" H_LIB_MAC
		 ",neigh=" H_PEER_IP "/" H_PEER_MAC
		 ",rto_min_us=1000000,rto_max_us=1000000", h.port);
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(&conf, spec) == 0);
	snprintf(spec, sizeof(spec), E_A_IP "=eth,port=%u,mac=" E_A_MAC
		 ",neigh=" E_B_IP "/" E_B_MAC
		 ",rto_min_us=200000,rto_max_us=1000000", h.port_a);
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(&conf, spec) == 0);
	snprintf(spec, sizeof(spec), E_B_IP "=eth,port=%u,mac=" E_B_MAC
		 ",neigh=" E_A_IP "/" E_A_MAC
		 ",rto_min_us=200000,rto_max_us=1000000", h.port_b);
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(&conf, spec) == 0);
	CU_ASSERT_FATAL(rte_rds_init(&conf) == 0);
	rte_rds_conf_free(&conf);
	h.epoch = (uint32_t)rte_rand() | 1;
	h.acked = false;
	h.lib_epoch = 0;
	h.snd_nxt = 0;
	h.nb_log = 0;
}

static void
lib_down(void)
{
	CU_ASSERT(rte_rds_fini() == 0);
	flush_ring(h.rx);
	flush_ring(h.tx);
	flush_ring(h.ab);
	flush_ring(h.ba);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(h.pool), 2047);
}

/* ------------------------------------------------------------------ */
/* The peer */

/* Decode a frame the library sent (a zero-copy chain parsed from a flat
 * copy). False: not an eth frame. */
static bool
decode(const struct rte_mbuf *m, struct lf *l)
{
	struct rte_mbuf *c = NULL;
	bool ok;

	if (m->nb_segs != 1) {
		c = rte_pktmbuf_copy(m, h.pool, 0, UINT32_MAX);
		CU_ASSERT_FATAL(c != NULL);
		m = c;
	}
	memset(l, 0, sizeof(*l));
	memcpy(&l->dst, rte_pktmbuf_mtod(m, const void *), sizeof(l->dst));
	ok = rds_eth_frame_parse(m, RDS_ETH_UDP_PORT, &l->f) ==
	     RDS_ETH_DROP_NONE;
	if (ok && l->f.type == RDS_ETH_F_DATA &&
	    (l->f.flags & RDS_ETH_FL_FIRST)) {
		CU_ASSERT_FATAL(rds_hdr_decode(l->f.payload, RDS_HEADER_SIZE,
					       &l->hdr, NULL) == 0);
		/* Its Internet checksum is not computed: the CRC32C covers
		 * the header. */
		CU_ASSERT_EQUAL(((const struct rds_header *)(const void *)
				 l->f.payload)->h_csum, 0);
		l->rds = true;
	}
	l->f.payload = NULL;
	rte_pktmbuf_free(c);
	return ok;
}

/* What the library sent, into the log. */
static void
drain(void)
{
	struct rte_mbuf *m;
	struct lf l;

	while (rte_ring_dequeue(h.tx, (void **)&m) == 0) {
		if (decode(m, &l)) {
			if (l.f.src_epoch != 0)
				h.lib_epoch = l.f.src_epoch;
			if (l.f.dst_epoch == h.epoch)
				h.acked = true;
			/* No RDS ACK-only frame, and no ACK in a header:
			 * the frame ACKs are the only ones. */
			if (l.rds) {
				CU_ASSERT(l.hdr.len != 0 || l.hdr.sport != 0 ||
					  l.hdr.dport != 0);
				CU_ASSERT_EQUAL(l.hdr.ack, 0);
			}
			CU_ASSERT_FATAL(h.nb_log < MAX_LOG);
			h.log[h.nb_log++] = l;
		}
		rte_pktmbuf_free(m);
	}
}

static void
poll_n(unsigned int n)
{
	while (n-- != 0)
		rte_rds_engine_poll(0);
	drain();
}

static void
inject(struct rte_ring *r, const struct rds_eth_frame *f, const void *pl,
       const struct rte_ether_addr *smac, const struct rte_ether_addr *dmac,
       uint32_t sip, uint32_t dip)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(h.pool);

	CU_ASSERT_FATAL(m != NULL);
	CU_ASSERT_FATAL(rte_pktmbuf_append(m, (uint16_t)(RDS_ETH_HDRS +
							 f->len)) != NULL);
	if (f->len != 0)
		memcpy(rte_pktmbuf_mtod_offset(m, uint8_t *, RDS_ETH_HDRS), pl,
		       f->len);
	CU_ASSERT_FATAL(rds_eth_frame_build(m, smac, dmac, sip, dip,
					    RDS_ETH_UDP_PORT, RDS_ETH_UDP_PORT,
					    f, false) == 0);
	CU_ASSERT_FATAL(rte_ring_enqueue(r, m) == 0);
}

/* The peer acknowledges the library's stream: frames below ack, and
 * those of the sack bitmap (bit i: ack + 1 + i). */
static void
peer_ack(uint32_t ack, uint64_t sack)
{
	struct rds_eth_frame f;

	memset(&f, 0, sizeof(f));
	f.type = RDS_ETH_F_ACK;
	f.flags = h.acked ? 0 : RDS_ETH_FL_OPEN;
	f.src_epoch = h.epoch;
	f.dst_epoch = h.lib_epoch;
	f.seq = 0;
	f.ack = ack;
	f.sack = sack;
	f.wnd = 128;
	inject(h.rx, &f, NULL, &h.peer_mac, &h.lib_mac, h.peer_ip, h.lib_ip);
}

/* "No state for your stream", as a restarted peer answers. */
static void
reset_frame(struct rte_ring *r, uint32_t epoch,
	    const struct rte_ether_addr *smac, const struct rte_ether_addr *dmac,
	    uint32_t sip, uint32_t dip)
{
	struct rds_eth_frame f;

	memset(&f, 0, sizeof(f));
	f.type = RDS_ETH_F_ACK;
	f.flags = RDS_ETH_FL_RESET;
	f.dst_epoch = epoch;
	inject(r, &f, NULL, smac, dmac, sip, dip);
}

/* The peer sends RDS message seq (len bytes of seq's value, RDS flags
 * rflags) in its stream, eflags on its last frame. */
static void
peer_send(uint64_t seq, uint32_t len, uint8_t rflags, uint16_t eflags)
{
	static uint8_t unit[RDS_HEADER_SIZE + 8192];
	struct rds_eth_frame f;
	uint32_t total = RDS_HEADER_SIZE + len, off, n;

	CU_ASSERT_FATAL(len <= sizeof(unit) - RDS_HEADER_SIZE);
	rds_hdr_encode((struct rds_header *)unit, seq, 0, len, PEER_PORT,
		       LIB_PORT, rflags, 0);
	memset(unit + RDS_HEADER_SIZE, (int)seq, len);
	for (off = 0; off < total; off += n) {
		n = RTE_MIN((uint32_t)FRAG, total - off);
		memset(&f, 0, sizeof(f));
		f.type = RDS_ETH_F_DATA;
		f.flags = (h.acked ? 0 : RDS_ETH_FL_OPEN) |
			  (off == 0 ? RDS_ETH_FL_FIRST : 0) |
			  (off + n == total ? RDS_ETH_FL_LAST | eflags : 0);
		f.src_epoch = h.epoch;
		f.dst_epoch = h.lib_epoch;
		f.seq = h.snd_nxt++;
		f.wnd = 128;
		f.frag_off = off;
		f.len = (uint16_t)n;
		inject(h.rx, &f, unit + off, &h.peer_mac, &h.lib_mac,
		       h.peer_ip, h.lib_ip);
	}
}

/* The last frame of RDS message seq in the library's stream epoch
 * (from the log), or -1. */
static int64_t
last_frame(uint32_t epoch, uint64_t seq)
{
	unsigned int i;
	bool in = false;

	for (i = 0; i < h.nb_log; i++) {
		const struct lf *l = &h.log[i];

		if (l->f.src_epoch != epoch || l->f.type != RDS_ETH_F_DATA)
			continue;
		if (l->rds)
			in = l->hdr.seq == seq &&
			     !(l->hdr.flags & RDS_FLAG_CONG_BITMAP);
		if (in && (l->f.flags & RDS_ETH_FL_LAST))
			return l->f.seq;
	}
	return -1;
}

static uint64_t
send_acked(void)
{
	return rds_test_stats().s_send_acked;
}

static int
lib_socket(const char *ip, int sndbuf)
{
	/* Pinned: between two local addresses the library would take
	 * loop. */
	int s = rds_test_socket_trans(ip, LIB_PORT, sndbuf, 0,
				      RTE_RDS_TRANS_ETH);

	CU_ASSERT_FATAL(s >= 0);
	return s;
}

static void
lib_send(int s, const char *ip, uint16_t port, uint32_t len, uint8_t fill)
{
	static uint8_t buf[1 << 20];
	struct sockaddr_in to = rds_test_sin(ip, port);

	CU_ASSERT_FATAL(len <= sizeof(buf));
	memset(buf, fill, len);
	CU_ASSERT_EQUAL(rte_rds_sendto(s, buf, len, MSG_DONTWAIT,
				       (struct sockaddr *)&to, sizeof(to)),
			(ssize_t)len);
}

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
	l1 = last_frame(h.lib_epoch, 1);
	l2 = last_frame(h.lib_epoch, 2);
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

	lib_up();
	s = lib_socket(H_LIB_IP, 0);
	/* The first frame opens the connection; the library's map (its
	 * first message, on every connect) comes back. */
	peer_send(1, 10, 0, 0);
	poll_n(4);
	CU_ASSERT_EQUAL(rte_rds_recvfrom(s, buf, sizeof(buf), MSG_DONTWAIT,
					 NULL, NULL), 10);
	CU_ASSERT_FATAL(h.nb_log > 0);
	CU_ASSERT(h.log[0].rds && h.log[0].hdr.flags == RDS_FLAG_CONG_BITMAP);
	/* ACK_REQUIRED in the RDS header: the frame layer's delay rules,
	 * so nothing at all comes back, however long past the core's
	 * delayed-ACK time we wait (the frame ACK's delay is 125 ms). */
	n = h.nb_log;
	peer_send(2, 10, RDS_FLAG_ACK_REQUIRED, 0);
	until = rte_get_tsc_cycles() + rte_get_tsc_hz() / 1000 *
		(2 * RDS_DELAYED_ACK_US / 1000 + 2);
	while (rte_get_tsc_cycles() < until)
		poll_n(1);
	CU_ASSERT_EQUAL(rte_rds_recvfrom(s, buf, sizeof(buf), MSG_DONTWAIT,
					 NULL, NULL), 10);
	CU_ASSERT_EQUAL(h.nb_log, n);
	CU_ASSERT_EQUAL(rds_test_stats().s_send_ack, 0);
	/* ACKREQ on the frame: the frame ACK of all three, in this pass. */
	peer_send(3, 10, 0, RDS_ETH_FL_ACKREQ);
	poll_n(1);
	CU_ASSERT_EQUAL_FATAL(h.nb_log, n + 1);
	CU_ASSERT_EQUAL(h.log[n].f.type, RDS_ETH_F_ACK);
	CU_ASSERT_EQUAL(h.log[n].f.ack, h.snd_nxt);
	CU_ASSERT_EQUAL(rte_rds_recvfrom(s, buf, sizeof(buf), MSG_DONTWAIT,
					 NULL, NULL), 10);
	CU_ASSERT(rte_rds_close(s) == 0);

	/* Sending with the buffer half full: that message's last frame
	 * asks for the ACK, the other one's frames do not. */
	s = lib_socket(H_LIB_IP, 8192);
	optlen = sizeof(sndbuf);
	CU_ASSERT_FATAL(rte_rds_getsockopt(s, SOL_SOCKET, SO_SNDBUF, &sndbuf,
					   &optlen) == 0);
	n = h.nb_log;
	lib_send(s, H_PEER_IP, PEER_PORT, 100, 1);
	/* getsockopt doubles the value RDS uses, as the kernel's. */
	lib_send(s, H_PEER_IP, PEER_PORT, (uint32_t)sndbuf / 2 * 3 / 4, 2);
	poll_n(4);
	for (i = n; i < h.nb_log; i++) {
		const struct lf *l = &h.log[i];

		if (!(l->f.flags & RDS_ETH_FL_ACKREQ))
			continue;
		reqs++;
		CU_ASSERT(l->f.flags & RDS_ETH_FL_LAST);
		CU_ASSERT_EQUAL(l->f.seq, last_frame(h.lib_epoch, 2));
	}
	CU_ASSERT_EQUAL(reqs, 1);
	CU_ASSERT(rte_rds_close(s) == 0);
	lib_down();
}

static void
test_reset_resends_unacked(void)
{
	static const uint32_t len[5] = { 100, 3000, 100, 2000, 100 };
	uint32_t old, epoch;
	unsigned int i, k;
	uint64_t want = 2;
	int s;

	lib_up();
	s = lib_socket(H_LIB_IP, 0);
	for (i = 0; i < 5; i++)
		lib_send(s, H_PEER_IP, PEER_PORT, len[i], (uint8_t)i);
	poll_n(4);
	old = h.lib_epoch;
	/* Message 1 whole, message 2 but its last frame. */
	peer_ack((uint32_t)last_frame(old, 2), 0);
	poll_n(2);
	CU_ASSERT_EQUAL(send_acked(), 1);
	k = h.nb_log;
	reset_frame(h.rx, old, &h.peer_mac, &h.lib_mac, h.peer_ip, h.lib_ip);
	poll_n(4);
	epoch = h.lib_epoch;
	CU_ASSERT_FATAL(epoch != old);
	CU_ASSERT_EQUAL(rds_test_stats().s_conn_reset, 1);
	/* The new stream: the map, then 2 .. 5 again, marked, in order,
	 * and nothing else. */
	for (i = k; i < h.nb_log; i++) {
		const struct lf *l = &h.log[i];

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
	CU_ASSERT(h.acked);
	for (k = 1; k <= 3; k++) {
		CU_ASSERT_EQUAL(rds_test_recv(s, buf, sizeof(buf), &from,
					      MSG_DONTWAIT, NULL), 10);
		CU_ASSERT_EQUAL(buf[0], k);
	}
	/* The peer's stream starts again (its RDS reset its end): 2 and 3
	 * again, as RDS resends, and a new 4. */
	h.epoch = (h.epoch + 2) | 1;
	h.acked = false;
	h.snd_nxt = 0;
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
	struct rte_ether_addr mac1 = h.peer_mac, mac2 = h.peer_mac;
	unsigned int i, n, data = 0;
	char buf[64];
	int s;

	lib_up();
	s = lib_socket(H_LIB_IP, 0);
	peer_send(1, 10, 0, RDS_ETH_FL_ACKREQ);
	poll_n(4);
	CU_ASSERT_FATAL(h.nb_log > 0);
	for (i = 0; i < h.nb_log; i++)
		CU_ASSERT(rte_is_same_ether_addr(&h.log[i].dst, &mac1));
	/* From now on the peer is at another MAC. */
	mac2.addr_bytes[5] ^= 0x40;
	h.peer_mac = mac2;
	n = h.nb_log;
	peer_send(2, 10, 0, RDS_ETH_FL_ACKREQ);
	poll_n(1);
	lib_send(s, H_PEER_IP, PEER_PORT, 100, 7);
	poll_n(2);
	CU_ASSERT_FATAL(h.nb_log >= n + 2);
	for (i = n; i < h.nb_log; i++) {
		CU_ASSERT(rte_is_same_ether_addr(&h.log[i].dst, &mac2));
		if (h.log[i].rds && h.log[i].hdr.len == 100)
			data++;
	}
	CU_ASSERT_EQUAL(h.log[n].f.type, RDS_ETH_F_ACK);
	CU_ASSERT_EQUAL(data, 1);
	CU_ASSERT_EQUAL(rte_rds_recvfrom(s, buf, sizeof(buf), MSG_DONTWAIT,
					 NULL, NULL), 10);
	CU_ASSERT_EQUAL(rte_rds_recvfrom(s, buf, sizeof(buf), MSG_DONTWAIT,
					 NULL, NULL), 10);
	CU_ASSERT(rte_rds_close(s) == 0);
	h.peer_mac = mac1;
	lib_down();
}

static void
test_batch_full(void)
{
	struct rte_rds_eth_stats st;
	unsigned int i, n = 0;
	int s;

	lib_up();
	s = lib_socket(H_LIB_IP, 4 << 20);
	/* 100 KiB: 72 frames, and the congestion map's 6 before them. */
	lib_send(s, H_PEER_IP, PEER_PORT, 100 * 1024, 3);
	poll_n(1);
	for (i = 0; i < h.nb_log; i++) {
		if (h.log[i].f.type != RDS_ETH_F_DATA)
			continue;
		CU_ASSERT_EQUAL(h.log[i].f.seq, n);
		n++;
	}
	CU_ASSERT(n > RDS_ETH_TX_BURST);
	CU_ASSERT(last_frame(h.lib_epoch, 1) == (int64_t)n - 1);
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

	n = rte_ring_dequeue_burst(h.ab, (void **)m, RTE_DIM(m), NULL);
	for (i = 0; i < n; i++)
		if (decode(m[i], &l) && l.f.src_epoch != 0)
			epoch = l.f.src_epoch;
	CU_ASSERT_FATAL(rte_ring_enqueue_burst(h.ab, (void **)m, n, NULL) ==
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

	lib_up();
	a = lib_socket(E_A_IP, 0);
	b = lib_socket(E_B_IP, 0);
	/* B's frames never reach A: B has all 50, A none of B's ACKs. */
	for (i = 0; i < 50; i++)
		lib_send(a, E_B_IP, LIB_PORT, 100, (uint8_t)i);
	for (i = 0; i < 20; i++) {
		rte_rds_engine_poll(0);
		if ((e = a_epoch()) != 0)
			epoch = e;
		flush_ring(h.ba);
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
	reset_frame(h.ba, epoch, &h.b_mac, &h.a_mac, h.b_ip, h.a_ip);
	for (i = 0; i < 20; i++) {
		rte_rds_engine_poll(0);	/* A takes the reset first */
		flush_ring(h.ba);
	}
	st = rds_test_stats();
	CU_ASSERT_EQUAL(st.s_conn_reset, 1);
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
		{ "reset_resends_unacked", test_reset_resends_unacked },
		{ "dup_filter", test_dup_filter },
		{ "peer_mac", test_peer_mac },
		{ "batch_full", test_batch_full },
		{ "end_to_end", test_end_to_end },
		{ NULL, NULL },
	};

	return rds_test_main("eth_ack", "0", cases);
}

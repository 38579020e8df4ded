/* SPDX-License-Identifier: BSD-3-Clause */
/* eth_wire_peer: the peer the eth frame-level tests play (the header). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <CUnit/CUnit.h>

#include <rte_ethdev.h>
#include <rte_eth_ring.h>
#include <rte_mbuf.h>
#include <rte_random.h>
#include <rte_ring.h>
#include <rte_rds.h>
#include <rte_rds_stats.h>

#include "rds_test.h"
#include "eth_wire_peer.h"

struct eth_wire_peer wp;

void
make_ports(void)
{
	static bool made;
	int ret;

	if (made)
		return;
	wp.rx = rte_ring_create("ack_rx", 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	wp.tx = rte_ring_create("ack_tx", 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	wp.ab = rte_ring_create("ack_ab", 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	wp.ba = rte_ring_create("ack_ba", 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	CU_ASSERT_FATAL(wp.rx != NULL && wp.tx != NULL && wp.ab != NULL &&
			wp.ba != NULL);
	ret = rte_eth_from_rings("ackH", &wp.rx, 1, &wp.tx, 1, 0);
	CU_ASSERT_FATAL(ret >= 0);
	wp.port = (uint16_t)ret;
	ret = rte_eth_from_rings("ackA", &wp.ba, 1, &wp.ab, 1, 0);
	CU_ASSERT_FATAL(ret >= 0);
	wp.port_a = (uint16_t)ret;
	ret = rte_eth_from_rings("ackB", &wp.ab, 1, &wp.ba, 1, 0);
	CU_ASSERT_FATAL(ret >= 0);
	wp.port_b = (uint16_t)ret;
	wp.pool = rte_pktmbuf_pool_create("ack_peer", 2047, 0, 0,
					 RTE_MBUF_DEFAULT_BUF_SIZE,
					 SOCKET_ID_ANY);
	CU_ASSERT_FATAL(wp.pool != NULL);
	wp.lib_ip = inet_addr(H_LIB_IP);
	wp.peer_ip = inet_addr(H_PEER_IP);
	wp.a_ip = inet_addr(E_A_IP);
	wp.b_ip = inet_addr(E_B_IP);
	rte_ether_unformat_addr(H_LIB_MAC, &wp.lib_mac);
	rte_ether_unformat_addr(H_PEER_MAC, &wp.peer_mac);
	rte_ether_unformat_addr(E_A_MAC, &wp.a_mac);
	rte_ether_unformat_addr(E_B_MAC, &wp.b_mac);
	made = true;
}

void
flush_ring(struct rte_ring *r)
{
	struct rte_mbuf *m;

	while (rte_ring_dequeue(r, (void **)&m) == 0)
		rte_pktmbuf_free(m);
}

/* The library with its three addresses; timers slow enough that no
 * retransmission or delayed ACK comes unless a case waits for it. */
void
lib_up(void)
{
	struct rte_rds_conf conf;
	char spec[256];

	make_ports();
	flush_ring(wp.rx);
	flush_ring(wp.tx);
	flush_ring(wp.ab);
	flush_ring(wp.ba);
	rte_rds_conf_init(&conf);
	conf.engine[0].lcore_id = RTE_RDS_ENGINE_INLINE;
	snprintf(spec, sizeof(spec), H_LIB_IP "=eth,port=%u,mac=" H_LIB_MAC
		 ",neigh=" H_PEER_IP "/" H_PEER_MAC
		 ",rto_min_us=1000000,rto_max_us=1000000%s", wp.port,
		 wp.lib_opts != NULL ? wp.lib_opts : "");
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(&conf, spec) == 0);
	snprintf(spec, sizeof(spec), E_A_IP "=eth,port=%u,mac=" E_A_MAC
		 ",neigh=" E_B_IP "/" E_B_MAC
		 ",rto_min_us=200000,rto_max_us=1000000%s", wp.port_a,
		 wp.lib_opts != NULL ? wp.lib_opts : "");
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(&conf, spec) == 0);
	snprintf(spec, sizeof(spec), E_B_IP "=eth,port=%u,mac=" E_B_MAC
		 ",neigh=" E_A_IP "/" E_A_MAC
		 ",rto_min_us=200000,rto_max_us=1000000%s", wp.port_b,
		 wp.lib_opts != NULL ? wp.lib_opts : "");
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(&conf, spec) == 0);
	CU_ASSERT_FATAL(rte_rds_init(&conf) == 0);
	rte_rds_conf_free(&conf);
	wp.epoch = (uint32_t)rte_rand() | 1;
	wp.acked = false;
	wp.lib_epoch = 0;
	wp.snd_nxt = 0;
	wp.nb_log = 0;
}

void
lib_down(void)
{
	CU_ASSERT(rte_rds_fini() == 0);
	flush_ring(wp.rx);
	flush_ring(wp.tx);
	flush_ring(wp.ab);
	flush_ring(wp.ba);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(wp.pool), 2047);
}

/* ------------------------------------------------------------------ */
/* The peer */

/* Decode a frame the library sent (a zero-copy chain parsed from a flat
 * copy). False: not an eth frame. */
bool
decode(const struct rte_mbuf *m, struct lf *l)
{
	struct rte_mbuf *c = NULL;
	bool ok;

	if (m->nb_segs != 1) {
		c = rte_pktmbuf_copy(m, wp.pool, 0, UINT32_MAX);
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
		memcpy(l->pay, (const uint8_t *)l->f.payload + RDS_HEADER_SIZE,
		       RTE_MIN(sizeof(l->pay),
			       (size_t)l->f.len - RDS_HEADER_SIZE));
	}
	l->f.payload = NULL;
	rte_pktmbuf_free(c);
	return ok;
}

/* What the library sent, into the log. */
void
drain(void)
{
	struct rte_mbuf *m;
	struct lf l;

	while (rte_ring_dequeue(wp.tx, (void **)&m) == 0) {
		if (decode(m, &l)) {
			if (l.f.src_epoch != 0)
				wp.lib_epoch = l.f.src_epoch;
			if (l.f.dst_epoch == wp.epoch)
				wp.acked = true;
			/* No RDS ACK-only frame, and no ACK in a header:
			 * the frame ACKs are the only ones. */
			if (l.rds) {
				CU_ASSERT(l.hdr.len != 0 || l.hdr.sport != 0 ||
					  l.hdr.dport != 0);
				CU_ASSERT_EQUAL(l.hdr.ack, 0);
			}
			CU_ASSERT_FATAL(wp.nb_log < MAX_LOG);
			wp.log[wp.nb_log++] = l;
		}
		rte_pktmbuf_free(m);
	}
}

void
poll_n(unsigned int n)
{
	while (n-- != 0)
		rte_rds_engine_poll(0);
	drain();
}

void
inject(struct rte_ring *r, const struct rds_eth_frame *f, const void *pl,
       const struct rte_ether_addr *smac, const struct rte_ether_addr *dmac,
       uint32_t sip, uint32_t dip)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(wp.pool);

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
void
peer_ack(uint32_t ack, uint64_t sack)
{
	struct rds_eth_frame f;

	memset(&f, 0, sizeof(f));
	f.type = RDS_ETH_F_ACK;
	f.flags = wp.acked ? 0 : RDS_ETH_FL_OPEN;
	f.src_epoch = wp.epoch;
	f.dst_epoch = wp.lib_epoch;
	f.seq = 0;
	f.ack = ack;
	f.sack = sack;
	f.wnd = 128;
	inject(wp.rx, &f, NULL, &wp.peer_mac, &wp.lib_mac, wp.peer_ip, wp.lib_ip);
}

/* "No state for your stream", as a restarted peer answers. */
void
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

/* The peer sends an RDS message in its stream: header seq, flags rflags
 * (RDS_FLAG_CONG_BITMAP alone: a congestion map, ports 0), payload pl
 * (len bytes; NULL: len bytes of seq's value), eflags on its last
 * frame. */
static void
peer_unit(uint64_t seq, const void *pl, uint32_t len, uint8_t rflags,
	  uint16_t eflags)
{
	static uint8_t unit[RDS_HEADER_SIZE + 8192];
	struct rds_eth_frame f;
	uint32_t total = RDS_HEADER_SIZE + len, off, n;
	bool map = rflags == RDS_FLAG_CONG_BITMAP;

	CU_ASSERT_FATAL(len <= sizeof(unit) - RDS_HEADER_SIZE);
	rds_hdr_encode((struct rds_header *)unit, seq, 0, len,
		       map ? 0 : PEER_PORT, map ? 0 : LIB_PORT, rflags, 0);
	if (pl != NULL)
		memcpy(unit + RDS_HEADER_SIZE, pl, len);
	else
		memset(unit + RDS_HEADER_SIZE, (int)seq, len);
	for (off = 0; off < total; off += n) {
		n = RTE_MIN((uint32_t)FRAG, total - off);
		memset(&f, 0, sizeof(f));
		f.type = RDS_ETH_F_DATA;
		f.flags = (wp.acked ? 0 : RDS_ETH_FL_OPEN) |
			  (off == 0 ? RDS_ETH_FL_FIRST : 0) |
			  (off + n == total ? RDS_ETH_FL_LAST | eflags : 0);
		f.src_epoch = wp.epoch;
		f.dst_epoch = wp.lib_epoch;
		f.seq = wp.snd_nxt++;
		f.wnd = 128;
		f.frag_off = off;
		f.len = (uint16_t)n;
		inject(wp.rx, &f, unit + off, &wp.peer_mac, &wp.lib_mac,
		       wp.peer_ip, wp.lib_ip);
	}
}

void
peer_send(uint64_t seq, uint32_t len, uint8_t rflags, uint16_t eflags)
{
	peer_unit(seq, NULL, len, rflags, eflags);
}

void
peer_send_payload(uint64_t seq, const void *pl, uint32_t len, uint8_t rflags)
{
	peer_unit(seq, pl, len, rflags, 0);
}

/* The last frame of RDS message seq in the library's stream epoch
 * (from the log), or -1. */
int64_t
last_frame(uint32_t epoch, uint64_t seq)
{
	unsigned int i;
	bool in = false;

	for (i = 0; i < wp.nb_log; i++) {
		const struct lf *l = &wp.log[i];

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

uint64_t
send_acked(void)
{
	return rds_test_stats().s_send_acked;
}

int
lib_socket(const char *ip, int sndbuf)
{
	/* Pinned: between two local addresses the library would take
	 * loop. */
	int s = rds_test_socket_trans(ip, LIB_PORT, sndbuf, 0,
				      RTE_RDS_TRANS_ETH);

	CU_ASSERT_FATAL(s >= 0);
	return s;
}

void
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


/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rds-perf --raw, the frames: the ethdev (configured as the eth
 * transport configures it: one receive and one transmit queue of
 * PERF_RAW_NB_DESC descriptors, mbufs for the MTU, no offloads), frames
 * built and parsed (Ethernet / IPv4 / UDP / struct perf_raw_hdr / up to
 * frag message bytes), a transmit queue flushed with rte_eth_tx_burst,
 * and the reassembly of a message from its frames. No RDS code runs.
 *
 * The work per frame is what any sender and receiver of messages must
 * do, and no more: the sender copies the message's bytes into mbufs
 * after the headers (one copy), the receiver copies them out of the
 * mbufs into the message's buffer (one copy). No checksum over the
 * payload (UDP checksum 0; the eth transport adds a CRC32C), the IPv4
 * header checksum in software, as the eth transport does on PMDs
 * without the offload.
 */

#include <inttypes.h>
#include <stdlib.h>

#include <rte_byteorder.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "perf.h"

static const uint8_t perf_bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/* The value of key in --eth-opts (only port=, dev= and mtu= mean
 * something to --raw). */
static unsigned int
perf_raw_opt_mtu(const struct perf_opts *o)
{
	const char *p = o->eth_opts, *v;

	while (p != NULL && *p != '\0') {
		if (strncmp(p, "mtu=", 4) == 0) {
			v = p + 4;
			return (unsigned int)strtoul(v, NULL, 10);
		}
		p = strchr(p, ',');
		if (p != NULL)
			p++;
	}
	return 0;
}

static int
perf_raw_start_cb(void *arg)
{
	int ret = rte_eth_dev_start(*(uint16_t *)arg);

	if (ret != 0)
		rte_errno = -ret;
	return ret;
}

/* Find, configure and start the port of the eth address. Exits on
 * failure. */
void
perf_raw_port_open(const struct perf_opts *o, struct perf_raw_port *p)
{
	struct rte_eth_conf ec;
	struct rte_eth_dev_info di;
	struct rte_ether_addr mac;
	unsigned int room, mtu;
	uint16_t m = 0;
	int ret, socket;

	memset(p, 0, sizeof(*p));
	if (perf_eth_port_id(o, &p->id) < 0)
		exit(EXIT_FAILURE);
	if (rte_eth_dev_info_get(p->id, &di) != 0)
		perf_die("rte_eth_dev_info_get(port %u) failed", p->id);
	socket = rte_eth_dev_socket_id(p->id);
	if (socket < 0)
		socket = 0;
	mtu = perf_raw_opt_mtu(o);
	if (mtu == 0 && (rte_eth_dev_get_mtu(p->id, &m) != 0 || m == 0))
		m = RTE_ETHER_MTU;
	p->mtu = (uint16_t)(mtu != 0 ? mtu : m);
	if (p->mtu < 576 || p->mtu > 9000)
		perf_die("--raw: MTU %u out of 576..9000", p->mtu);
	p->frag = p->mtu - 20 - 8 - (uint32_t)sizeof(struct perf_raw_hdr);
	room = RTE_MAX((unsigned int)RTE_MBUF_DEFAULT_BUF_SIZE,
		       (unsigned int)p->mtu + RTE_ETHER_HDR_LEN +
		       RTE_PKTMBUF_HEADROOM + 64);
	p->pool = rte_pktmbuf_pool_create("perf_raw_pool", PERF_RAW_POOL_SIZE,
					  256, 0, (uint16_t)room, socket);
	if (p->pool == NULL)
		perf_fail("rte_pktmbuf_pool_create(perf_raw_pool)");

	memset(&ec, 0, sizeof(ec));
	rte_eth_dev_stop(p->id);
	ret = rte_eth_dev_configure(p->id, 1, 1, &ec);
	if (ret != 0) {
		rte_errno = -ret;
		perf_fail("rte_eth_dev_configure(port %u)", p->id);
	}
	if (mtu != 0 && rte_eth_dev_set_mtu(p->id, (uint16_t)mtu) != 0)
		fprintf(stderr, "rds-perf: --raw: cannot set MTU %u on port %u\n",
			mtu, p->id);
	ret = rte_eth_rx_queue_setup(p->id, 0, PERF_RAW_NB_DESC, socket, NULL,
				     p->pool);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(p->id, 0, PERF_RAW_NB_DESC, socket,
					     NULL);
	if (ret != 0) {
		rte_errno = -ret;
		perf_fail("--raw: queue set-up of port %u", p->id);
	}
	if (perf_eth_start_retry(o, perf_raw_start_cb, &p->id) != 0)
		perf_fail("--raw: rte_eth_dev_start(port %u)", p->id);
	rte_eth_macaddr_get(p->id, &mac);
	memcpy(p->mac, mac.addr_bytes, 6);
	memcpy(p->peer_mac, perf_bcast, 6);
	if (inet_pton(AF_INET, o->local, &p->lip) != 1)
		perf_die("bad --local");
	if (o->peer != NULL && inet_pton(AF_INET, o->peer, &p->pip) != 1)
		perf_die("bad --peer");
}

void
perf_raw_port_close(struct perf_raw_port *p)
{
	while (p->txq_n != 0) {
		rte_pktmbuf_free(p->txq[p->txq_head]);
		p->txq_head = (p->txq_head + 1) % PERF_RAW_TXQ_MAX;
		p->txq_n--;
	}
	rte_eth_dev_stop(p->id);
}

/* Frames a message of size bytes takes (at least one). */
uint32_t
perf_raw_frames_of(const struct perf_raw_port *p, uint32_t size)
{
	return size == 0 ? 1 : (size + p->frag - 1) / p->frag;
}

/* Headers of a frame carrying len message bytes at off. */
static void
perf_raw_build(const struct perf_raw_port *p, uint8_t *b, uint8_t type,
	       uint8_t flags, uint64_t seq, uint32_t off, uint16_t len)
{
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)b;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eh + 1);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	struct perf_raw_hdr *h = (struct perf_raw_hdr *)(udp + 1);
	const uint16_t l4 = (uint16_t)(sizeof(*udp) + sizeof(*h) + len);

	memcpy(eh->dst_addr.addr_bytes, p->peer_mac, 6);
	memcpy(eh->src_addr.addr_bytes, p->mac, 6);
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->type_of_service = 0;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(sizeof(*ip) + l4));
	ip->packet_id = 0;
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->hdr_checksum = 0;
	ip->src_addr = p->lip;
	ip->dst_addr = p->pip;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->src_port = rte_cpu_to_be_16(PERF_RAW_UDP_PORT);
	udp->dst_port = rte_cpu_to_be_16(PERF_RAW_UDP_PORT);
	udp->dgram_len = rte_cpu_to_be_16(l4);
	udp->dgram_cksum = 0;
	h->type = type;
	h->flags = flags;
	h->len = rte_cpu_to_be_16(len);
	h->off = rte_cpu_to_be_32(off);
	h->seq = rte_cpu_to_be_64(seq);
}

/*
 * Queue a message (type DATA: size bytes of data, in as many frames as
 * it takes; REPLY and CTL: one frame) for the next flush. 0, or -1 when
 * the queue or the pool has no room for all its frames (nothing is
 * queued; try again after a flush).
 */
int
perf_raw_send_msg(struct perf_raw_port *p, uint8_t type, uint64_t seq,
		  const uint8_t *data, uint32_t size)
{
	uint32_t nf = perf_raw_frames_of(p, size), off = 0, i, len;
	struct rte_mbuf **m = p->tmp;
	uint8_t *b;

	if (nf > PERF_RAW_TXQ_MAX - p->txq_n ||
	    rte_pktmbuf_alloc_bulk(p->pool, m, nf) != 0) {
		p->tx_no_room++;
		return -1;
	}
	for (i = 0; i < nf; i++) {
		len = RTE_MIN(p->frag, size - off);
		b = (uint8_t *)rte_pktmbuf_append(m[i],
				(uint16_t)(PERF_RAW_HDRS + len));
		if (b == NULL)	/* the pool's mbufs are made for the MTU */
			perf_die("--raw: a %u-byte frame does not fit an mbuf",
				 PERF_RAW_HDRS + len);
		perf_raw_build(p, b, type,
			       off + len == size ? PERF_RAW_FL_LAST : 0,
			       seq, off, (uint16_t)len);
		if (len != 0)
			memcpy(b + PERF_RAW_HDRS, data + off, len);
		off += len;
		p->txq[(p->txq_head + p->txq_n) % PERF_RAW_TXQ_MAX] = m[i];
		p->txq_n++;
	}
	return 0;
}

/* Hand the queue to the PMD: what it does not take stays, in order. */
void
perf_raw_flush(struct perf_raw_port *p)
{
	uint32_t n;
	uint16_t sent, want;

	while (p->txq_n != 0) {
		n = RTE_MIN(p->txq_n, PERF_RAW_TXQ_MAX - p->txq_head);
		want = (uint16_t)RTE_MIN(n, 512u);
		sent = rte_eth_tx_burst(p->id, 0, &p->txq[p->txq_head], want);
		p->tx_frames += sent;
		p->txq_head = (p->txq_head + sent) % PERF_RAW_TXQ_MAX;
		p->txq_n -= sent;
		if (sent < want) {
			p->tx_refused++;
			return;
		}
	}
}

uint16_t
perf_raw_rx_burst(struct perf_raw_port *p, struct rte_mbuf **m, uint16_t n)
{
	return rte_eth_rx_burst(p->id, 0, m, n);
}

/* 0 and f filled when m is one of our frames (IPv4 to --local, from
 * --peer if given, UDP to our port, lengths that agree), else -1
 * (counted: not ours, or malformed). m stays the caller's. */
int
perf_raw_parse(struct perf_raw_port *p, struct rte_mbuf *m,
	       struct perf_raw_frame *f)
{
	const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ether_hdr *eh = (const void *)b;
	const struct rte_ipv4_hdr *ip = (const void *)(eh + 1);
	const struct rte_udp_hdr *udp = (const void *)(ip + 1);
	const struct perf_raw_hdr *h = (const void *)(udp + 1);
	uint32_t dl = rte_pktmbuf_data_len(m);

	if (dl < PERF_RAW_HDRS ||
	    eh->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    ip->version_ihl != RTE_IPV4_VHL_DEF ||
	    ip->next_proto_id != IPPROTO_UDP || ip->dst_addr != p->lip ||
	    (p->pip != 0 && ip->src_addr != p->pip) ||
	    udp->dst_port != rte_cpu_to_be_16(PERF_RAW_UDP_PORT)) {
		p->rx_ignored++;
		return -1;
	}
	f->type = h->type;
	f->flags = h->flags;
	f->len = rte_be_to_cpu_16(h->len);
	f->off = rte_be_to_cpu_32(h->off);
	f->seq = rte_be_to_cpu_64(h->seq);
	f->data = b + PERF_RAW_HDRS;
	f->sip = ip->src_addr;
	memcpy(f->src_mac, eh->src_addr.addr_bytes, 6);
	if (m->nb_segs != 1 || (uint32_t)PERF_RAW_HDRS + f->len > dl ||
	    f->type < PERF_RAW_DATA || f->type > PERF_RAW_CTL) {
		p->rx_bad++;
		return -1;
	}
	p->rx_frames++;
	return 0;
}

/* From now on, frames go to the sender of f (and come only from it). */
void
perf_raw_learn(struct perf_raw_port *p, const struct perf_raw_frame *f)
{
	memcpy(p->peer_mac, f->src_mac, 6);
	p->has_peer_mac = true;
	p->pip = f->sip;
}

/*
 * Reassembly: take the DATA frame f into buf (size bytes, the message
 * size agreed). 1 when it completes message r->seq, 0 when more is to
 * come, -1 when it cannot belong to a message of that size (an error).
 * A frame that does not follow the one before (a frame lost) drops the
 * message begun; the frames of a message whose beginning is lost are
 * skipped: *lost_frames counts the cases.
 */
int
perf_raw_take(struct perf_raw_rx *r, const struct perf_raw_frame *f,
	      uint8_t *buf, uint32_t size, uint64_t *lost_frames)
{
	if ((uint64_t)f->off + f->len > size)
		return -1;
	if (f->off == 0) {
		if (r->active)
			(*lost_frames)++;	/* the last one never ended */
		r->active = true;
		r->seq = f->seq;
		r->got = 0;
	} else if (!r->active || f->seq != r->seq || f->off != r->got) {
		if (r->active)
			(*lost_frames)++;
		r->active = false;
		return 0;
	}
	if (f->len != 0)
		memcpy(buf + f->off, f->data, f->len);
	r->got += f->len;
	if (!(f->flags & PERF_RAW_FL_LAST))
		return 0;
	r->active = false;
	return r->got == size ? 1 : -1;
}

void
perf_raw_print_stats(const struct perf_raw_port *p, FILE *f)
{
	fprintf(f, "raw frames:   sent %" PRIu64 " (tx_burst took less %" PRIu64 " times; messages held back %" PRIu64 "), received %" PRIu64 " (not ours %" PRIu64 ", malformed %" PRIu64 "); MTU %u, %u message bytes a frame\n",
		p->tx_frames, p->tx_refused, p->tx_no_room, p->rx_frames,
		p->rx_ignored, p->rx_bad, p->mtu, p->frag);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the eth transport's frame parser
 * (rds_eth_frame_parse_buf, rds_eth_frame_parse and rds_eth_frame_parse6,
 * rds_eth_wire.c), IPv4 and IPv6 frames. The input is one received
 * frame, Ethernet header first; the seeds (corpus/eth, from
 * fuzz_eth_corpus.c) are frames of every type over both and the usual
 * refusals. No EAL and no library: only rds_eth_wire.c is linked.
 *
 * Invariants, checked on every input (a violation aborts, so that
 * libFuzzer keeps the input):
 * - parse reads nothing outside the input (ASan: the flat buffer is
 *   libFuzzer's, exactly the input; the mbuf's data ends at the end of
 *   a static buffer);
 * - the result is a reason below RDS_ETH_DROP_MAX, and the same on a
 *   second call (deterministic), with the same fields;
 * - an accepted frame: type 1..4, known flags only, no payload on an
 *   ACK, the payload inside the input right after the headers the IPv4
 *   header announces (IPv6: 40 bytes, next header UDP, a unicast
 *   source, RDS_ETH_FF_V6 set and the addresses the input's), len the
 *   bytes between it and the IPv4 total length (the IPv6 payload
 *   length's end), the CRC32C over header and payload as stored (IPv6:
 *   over the addresses first);
 * - the mbuf path agrees with the flat one, IPv4 frames through
 *   rds_eth_frame_parse (which calls an IPv6 frame not its own) and IPv6
 *   ones through rds_eth_frame_parse6 (the other way round); trusting
 *   the port's checksum (RTE_MBUF_F_RX_IP_CKSUM_GOOD) changes nothing but
 *   a DROP_IP, a port that says BAD gives DROP_IP or the same reason, a
 *   chain is SHORT;
 * - build(parse(x)): the frame rebuilt from the fields parse returned
 *   (same MACs, addresses, ports; rds_eth_frame_build6 for IPv6) parses
 *   to the same fields and payload, and is x byte for byte when x had
 *   the canonical header (IPv4: IHL 5, TOS 0, id 0, DF, TTL 64; IPv6:
 *   traffic class and flow label 0, hop limit 64), UDP checksum 0 and no
 *   padding.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "rds_eth.h"
#include "fuzz_eth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PORT RDS_ETH_UDP_PORT

static struct fuzz_eth_mbuf fz_in;	/* the input as a received mbuf */
static struct fuzz_eth_mbuf fz_out;	/* the frame rebuilt */

#define CHECK(c) do { \
	if (!(c)) { \
		fprintf(stderr, "fuzz_eth: %s:%d: invariant failed: %s\n", \
			__FILE__, __LINE__, #c); \
		abort(); \
	} \
} while (0)

static bool
same_frame(const struct rds_eth_frame *a, const struct rds_eth_frame *b)
{
	if (rds_eth_frame_v6(a) &&
	    (memcmp(&a->src6, &b->src6, 16) != 0 ||
	     memcmp(&a->dst6, &b->dst6, 16) != 0))
		return false;
	return a->type == b->type && a->flags == b->flags &&
	       a->src_epoch == b->src_epoch && a->dst_epoch == b->dst_epoch &&
	       a->seq == b->seq && a->ack == b->ack && a->sack == b->sack &&
	       a->wnd == b->wnd && a->len == b->len &&
	       a->frag_off == b->frag_off &&
	       rte_is_same_ether_addr(&a->src_mac, &b->src_mac) &&
	       a->src_ip == b->src_ip && a->dst_ip == b->dst_ip &&
	       a->src_port == b->src_port;
}

/* The IPv6 part of an accepted frame's checks. */
static void
check_accepted6(const uint8_t *d, uint32_t n, const struct rds_eth_frame *f)
{
	const struct rte_ipv6_hdr *ip;
	uint32_t plen;

	CHECK(n >= RDS_ETH_HDRS + RDS_ETH_V6_EXTRA);
	CHECK(d[12] == 0x86 && d[13] == 0xdd);
	ip = (const struct rte_ipv6_hdr *)(const void *)(d + RTE_ETHER_HDR_LEN);
	plen = rte_be_to_cpu_16(ip->payload_len);
	CHECK((rte_be_to_cpu_32(ip->vtc_flow) >> 28) == 6);
	CHECK(ip->proto == IPPROTO_UDP);
	CHECK(ip->src_addr[0] != 0xff);
	CHECK(RTE_ETHER_HDR_LEN + sizeof(*ip) + plen <= n);
	CHECK(f->payload == d + RTE_ETHER_HDR_LEN + sizeof(*ip) + 8 +
	      RDS_ETH_HDR_SIZE);
	CHECK(f->payload + f->len == d + RTE_ETHER_HDR_LEN + sizeof(*ip) +
	      plen);
	CHECK(memcmp(&f->src6, ip->src_addr, 16) == 0);
	CHECK(memcmp(&f->dst6, ip->dst_addr, 16) == 0);
	CHECK(f->src_ip == 0 && f->dst_ip == 0);
}

/* An accepted frame, against the input's own bytes. */
static void
check_accepted(const uint8_t *d, uint32_t n, const struct rds_eth_frame *f)
{
	const struct rte_ipv4_hdr *ip;
	struct rds_eth_hdr h;
	uint32_t hl, tot;

	CHECK(f->type >= RDS_ETH_F_DATA && f->type <= RDS_ETH_F_ACK);
	CHECK(f->type != RDS_ETH_F_ACK || f->len == 0);
	if (rds_eth_frame_v6(f)) {
		CHECK((f->flags & ~(RDS_ETH_FL_ALL | RDS_ETH_FF_V6)) == 0);
		check_accepted6(d, n, f);
		goto eth_hdr;
	}
	CHECK(n >= RDS_ETH_HDRS);
	ip = (const struct rte_ipv4_hdr *)(const void *)(d + RTE_ETHER_HDR_LEN);
	hl = (uint32_t)(ip->version_ihl & 0xf) * 4;
	tot = rte_be_to_cpu_16(ip->total_length);
	CHECK((ip->version_ihl >> 4) == 4 && hl >= 20);
	CHECK(RTE_ETHER_HDR_LEN + tot <= n);
	CHECK(f->type >= RDS_ETH_F_DATA && f->type <= RDS_ETH_F_ACK);
	CHECK((f->flags & ~RDS_ETH_FL_ALL) == 0);
	CHECK(f->type != RDS_ETH_F_ACK || f->len == 0);
	CHECK(f->payload == d + RTE_ETHER_HDR_LEN + hl + 8 + RDS_ETH_HDR_SIZE);
	CHECK(f->payload + f->len == d + RTE_ETHER_HDR_LEN + tot);
	CHECK(f->payload + f->len <= d + n);
eth_hdr:
	memcpy(&h, f->payload - RDS_ETH_HDR_SIZE, sizeof(h));
	CHECK(h.version == RDS_ETH_VERSION);
	CHECK(rte_be_to_cpu_16(h.len) == f->len);
	if (rds_eth_frame_v6(f))
		CHECK(rds_eth_crc6(d + RTE_ETHER_HDR_LEN + 8, &h, f->payload,
				   f->len) == rte_be_to_cpu_32(h.crc));
	else
		CHECK(rds_eth_crc(&h, f->payload, f->len) ==
		      rte_be_to_cpu_32(h.crc));
	CHECK(memcmp(&f->src_mac, d + 6, 6) == 0);
}

/* The input through an mbuf, with what a port may say of it. */
static void
check_mbuf(const uint8_t *d, uint32_t n, enum rds_eth_drop r,
	   const struct rds_eth_frame *f)
{
	struct rds_eth_frame g;
	struct rte_mbuf *m = fuzz_eth_mbuf(&fz_in, d, n);
	enum rds_eth_drop q;

	if (m == NULL)
		return;
	bool v6 = n >= 14 && d[12] == 0x86 && d[13] == 0xdd;

	CHECK(rds_eth_is_arp(m) ==
	      (n >= 14 && d[12] == 0x08 && d[13] == 0x06));
	CHECK(rds_eth_is_ipv6(m) == v6);
	if (v6) {
		/* IPv4's parse leaves it to IPv6's, which agrees with the
		 * flat one; the port's IPv4 checksum flags say nothing of
		 * it. */
		CHECK(rds_eth_frame_parse(m, PORT, &g) ==
		      RDS_ETH_DROP_NOT_OURS);
		q = rds_eth_frame_parse6(m, PORT, &g);
		CHECK(q == r);
		if (r == RDS_ETH_DROP_NONE)
			CHECK(same_frame(f, &g));
		m->ol_flags = RTE_MBUF_F_RX_IP_CKSUM_BAD;
		CHECK(rds_eth_frame_parse6(m, PORT, &g) == r);
		m->ol_flags = 0;
		m->nb_segs = 2;
		CHECK(rds_eth_frame_parse6(m, PORT, &g) == RDS_ETH_DROP_SHORT);
		return;
	}
	CHECK(rds_eth_frame_parse6(m, PORT, &g) ==
	      (n < 14 ? RDS_ETH_DROP_SHORT : RDS_ETH_DROP_NOT_OURS));
	q = rds_eth_frame_parse(m, PORT, &g);
	CHECK(q == r);
	if (r == RDS_ETH_DROP_NONE) {
		CHECK(same_frame(f, &g));
		CHECK(g.payload - rte_pktmbuf_mtod(m, const uint8_t *) ==
		      f->payload - d);
	}
	m->ol_flags = RTE_MBUF_F_RX_IP_CKSUM_GOOD;
	q = rds_eth_frame_parse(m, PORT, &g);
	CHECK(q == r || r == RDS_ETH_DROP_IP);
	m->ol_flags = RTE_MBUF_F_RX_IP_CKSUM_BAD;
	q = rds_eth_frame_parse(m, PORT, &g);
	CHECK(q != RDS_ETH_DROP_NONE);
	CHECK(q == r || q == RDS_ETH_DROP_IP);
	m->ol_flags = 0;
	m->nb_segs = 2;
	CHECK(rds_eth_frame_parse(m, PORT, &g) == RDS_ETH_DROP_SHORT);
}

/* build(parse(x)) over IPv6: the mbuf laid out as for IPv4, the build
 * takes 20 bytes in front. */
static void
check_rebuild6(const uint8_t *d, uint32_t n, const struct rds_eth_frame *f)
{
	const struct rte_ipv6_hdr *ip;
	const struct rte_udp_hdr *udp;
	struct rte_ether_addr dst;
	struct rds_eth_frame g, h = *f;
	struct rte_mbuf *m;
	uint32_t len = RDS_ETH_HDRS + f->len;
	uint8_t *b;

	if (len + RDS_ETH_V6_EXTRA > FUZZ_ETH_ROOM)
		return;
	m = fuzz_eth_mbuf(&fz_out, NULL, len);
	b = rte_pktmbuf_mtod(m, uint8_t *);
	memcpy(b + RDS_ETH_HDRS, f->payload, f->len);
	memcpy(&dst, d, sizeof(dst));
	h.flags &= (uint16_t)~RDS_ETH_FF_V6;
	CHECK(rds_eth_frame_build6(m, &f->src_mac, &dst, &f->src6, &f->dst6,
				   f->src_port, PORT, &h) == 0);
	b = rte_pktmbuf_mtod(m, uint8_t *);
	CHECK(rte_pktmbuf_data_len(m) == len + RDS_ETH_V6_EXTRA);
	CHECK(rds_eth_frame_parse_buf(b, len + RDS_ETH_V6_EXTRA, PORT, &g) ==
	      RDS_ETH_DROP_NONE);
	CHECK(same_frame(f, &g));
	CHECK(memcmp(g.payload, f->payload, f->len) == 0);

	ip = (const struct rte_ipv6_hdr *)(const void *)(d + RTE_ETHER_HDR_LEN);
	udp = (const struct rte_udp_hdr *)(const void *)(ip + 1);
	if (ip->vtc_flow == rte_cpu_to_be_32(6u << 28) &&
	    ip->hop_limits == 64 && udp->dgram_cksum == 0 &&
	    n == len + RDS_ETH_V6_EXTRA)
		CHECK(memcmp(b, d, n) == 0);
}

/* build(parse(x)). */
static void
check_rebuild(const uint8_t *d, uint32_t n, const struct rds_eth_frame *f)
{
	const struct rte_ipv4_hdr *ip;
	const struct rte_udp_hdr *udp;
	struct rte_ether_addr dst;
	struct rds_eth_frame g;
	struct rte_mbuf *m;
	uint32_t hl, len = RDS_ETH_HDRS + f->len;
	uint8_t *b;

	if (rds_eth_frame_v6(f)) {
		check_rebuild6(d, n, f);
		return;
	}
	/* One segment holds at most 65535 bytes (data_len is 16 bits). */
	m = fuzz_eth_mbuf(&fz_out, NULL, len);
	if (m == NULL)
		return;
	b = rte_pktmbuf_mtod(m, uint8_t *);
	memcpy(b + RDS_ETH_HDRS, f->payload, f->len);
	memcpy(&dst, d, sizeof(dst));
	CHECK(rds_eth_frame_build(m, &f->src_mac, &dst, f->src_ip, f->dst_ip,
				  f->src_port, PORT, f, false) == 0);
	CHECK(rds_eth_frame_parse_buf(b, len, PORT, &g) == RDS_ETH_DROP_NONE);
	CHECK(same_frame(f, &g));
	CHECK(g.payload == b + RDS_ETH_HDRS);
	CHECK(memcmp(g.payload, f->payload, f->len) == 0);

	ip = (const struct rte_ipv4_hdr *)(const void *)(d + RTE_ETHER_HDR_LEN);
	hl = (uint32_t)(ip->version_ihl & 0xf) * 4;
	udp = (const struct rte_udp_hdr *)(const void *)(d + RTE_ETHER_HDR_LEN +
							 hl);
	if (hl == 20 && ip->type_of_service == 0 && ip->packet_id == 0 &&
	    ip->fragment_offset == rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG) &&
	    ip->time_to_live == 64 && udp->dgram_cksum == 0 && n == len)
		CHECK(memcmp(b, d, n) == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rds_eth_frame f, f2;
	enum rds_eth_drop r, r2;
	uint32_t n;

	if (size > UINT32_MAX)
		return 0;
	n = (uint32_t)size;
	memset(&f, 0, sizeof(f));
	memset(&f2, 0, sizeof(f2));
	r = rds_eth_frame_parse_buf(data, n, PORT, &f);
	CHECK(r < RDS_ETH_DROP_MAX);
	r2 = rds_eth_frame_parse_buf(data, n, PORT, &f2);
	CHECK(r2 == r);
	if (r == RDS_ETH_DROP_NONE) {
		CHECK(same_frame(&f, &f2) && f.payload == f2.payload);
		check_accepted(data, n, &f);
		check_rebuild(data, n, &f);
	}
	check_mbuf(data, n, r, &f);
	return 0;
}

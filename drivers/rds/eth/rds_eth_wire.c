/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The eth transport's frame layout: build and parse
 *
 *   Ethernet (14) | IPv4 (20) | UDP (8) | struct rds_eth_hdr (40) | payload
 *   Ethernet (14) | IPv6 (40) | UDP (8) | struct rds_eth_hdr (40) | payload
 *
 * and the CRC32C over the eth header and the payload (rds_eth_crc.c
 * computes it).
 *
 * Parsing is what a hostile or broken peer attacks (test/fuzz/fuzz_eth.c
 * runs it under libFuzzer): every length is checked against the bytes
 * there really are before anything behind it is read, and every field is
 * read with memcpy or through packed structures, so that no alignment is
 * assumed. Nothing here allocates, logs or touches shared state.
 */
#include <errno.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "rds_eth.h"

#define RDS_ETH_IP_TTL 64
#define RDS_ETH_ETHER_TYPE_OFF 12	/* in the Ethernet header */

/* ------------------------------------------------------------------ */
/* CRC32C over the eth header (crc field 0) then the payload, with
 * rds_eth_crc_update (rds_eth_crc.c: the serial chain of crc32
 * instructions for short buffers such as the header, three interleaved
 * chains combined with PCLMULQDQ for payloads of RDS_ETH_CRC_MIN bytes
 * or more where the CPU has them; the same value either way). The
 * sender computes it once over each payload byte (every segment of a
 * zero-copy chain in turn; a retransmission sends the same mbuf), the
 * receiver once in parse (a frame kept out of order is decoded again
 * with rds_eth_frame_reparse, without the CRC). */

uint32_t
rds_eth_crc(const struct rds_eth_hdr *h, const void *payload, uint32_t len)
{
	return ~rds_eth_crc_hdr_update(h, payload, len);
}

uint32_t
rds_eth_crc6(const void *addrs, const struct rds_eth_hdr *h,
	     const void *payload, uint32_t len)
{
	struct rds_eth_hdr h0 = *h;

	h0.crc = 0;
	return ~rds_eth_crc_update(rds_eth_crc_update(rds_eth_crc_update(
		UINT32_MAX, addrs, RDS_ETH_V6_ADDRS), &h0, sizeof(h0)),
		payload, len);
}

/* ------------------------------------------------------------------ */
/* Build */

/* The one's complement sum (not folded) of the IPv4 header as
 * rds_eth_tmpl_init writes it (no options, TOS, ID and checksum 0, DF,
 * TTL RDS_ETH_IP_TTL, UDP), its ten words as they are in memory, as
 * rte_ipv4_cksum adds them, but the total length: the constant words
 * fold at compile time. sip and dip as stored. */
static inline uint32_t
rds_eth_ip_sum(uint32_t sip, uint32_t dip)
{
	return (uint32_t)rte_cpu_to_be_16(RTE_IPV4_VHL_DEF << 8) +
	       rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG) +
	       rte_cpu_to_be_16(RDS_ETH_IP_TTL << 8 | IPPROTO_UDP) +
	       (sip & 0xffff) + (sip >> 16) + (dip & 0xffff) + (dip >> 16);
}

/* The checksum from that sum and the total length as stored. */
static inline uint16_t
rds_eth_ip_cksum(uint32_t sum, uint16_t be_tot)
{
	sum += be_tot;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static inline bool
rds_eth_type_ok(uint8_t type, uint16_t flags, uint32_t len)
{
	if (type < RDS_ETH_F_DATA || type > RDS_ETH_F_ACK)
		return false;
	if ((flags & ~RDS_ETH_FL_ALL) != 0)
		return false;
	return type != RDS_ETH_F_ACK || len == 0;
}

void
rds_eth_tmpl_init(struct rds_eth_tmpl *t, const struct rte_ether_addr *src,
		  const struct rte_ether_addr *dst, uint32_t sip, uint32_t dip,
		  uint16_t sport, uint16_t dport, bool ip_offload)
{
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)(void *)t->hdr;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(void *)(eh + 1);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(void *)(ip + 1);

	memset(t, 0, sizeof(*t));
	rte_ether_addr_copy(dst, &eh->dst_addr);
	rte_ether_addr_copy(src, &eh->src_addr);
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = RDS_ETH_IP_TTL;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = sip;
	ip->dst_addr = dip;
	udp->src_port = rte_cpu_to_be_16(sport);
	udp->dst_port = rte_cpu_to_be_16(dport);
	t->ip_sum = rds_eth_ip_sum(sip, dip);
	t->ip_offload = ip_offload;
}

/* The eth header of f at h, l2l3l4 bytes into m's data, and its CRC32C
 * over it and the payload after it (every segment), from seed (~0; an
 * IPv6 frame's: the update over its addresses). */
static __rte_always_inline void
rds_eth_hdr_fill(struct rte_mbuf *m, struct rds_eth_hdr *h, uint32_t l2l3l4,
		 const struct rds_eth_frame *f, uint32_t seed)
{
	const struct rte_mbuf *s;
	uint32_t crc;

	h->version = RDS_ETH_VERSION;
	h->type = f->type;
	h->flags = rte_cpu_to_be_16(f->flags);
	h->src_epoch = rte_cpu_to_be_32(f->src_epoch);
	h->dst_epoch = rte_cpu_to_be_32(f->dst_epoch);
	h->seq = rte_cpu_to_be_32(f->seq);
	h->ack = rte_cpu_to_be_32(f->ack);
	h->sack = rte_cpu_to_be_64(f->sack);
	h->wnd = rte_cpu_to_be_16(f->wnd);
	h->len = rte_cpu_to_be_16(f->len);
	h->frag_off = rte_cpu_to_be_32(f->frag_off);
	h->crc = 0;

	/* CRC: the header (its crc field 0 by now) and the payload after
	 * it in one run, then the payload's further segments. */
	crc = rds_eth_crc_update(seed, h, rte_pktmbuf_data_len(m) - l2l3l4);
	for (s = m->next; s != NULL; s = s->next)
		crc = rds_eth_crc_update(crc, rte_pktmbuf_mtod(s, void *),
					 rte_pktmbuf_data_len(s));
	h->crc = rte_cpu_to_be_32(~crc);
}

void
rds_eth_tmpl_init6(struct rds_eth_tmpl *t, const struct rte_ether_addr *src,
		   const struct rte_ether_addr *dst, const struct in6_addr *sip,
		   const struct in6_addr *dip, uint16_t sport, uint16_t dport)
{
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)(void *)t->hdr;
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(void *)(eh + 1);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(void *)(ip + 1);

	memset(t, 0, sizeof(*t));
	rte_ether_addr_copy(dst, &eh->dst_addr);
	rte_ether_addr_copy(src, &eh->src_addr);
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
	ip->vtc_flow = rte_cpu_to_be_32(UINT32_C(6) << 28);
	ip->proto = IPPROTO_UDP;
	ip->hop_limits = RDS_ETH_IP_TTL;
	memcpy(ip->src_addr, sip, sizeof(ip->src_addr));
	memcpy(ip->dst_addr, dip, sizeof(ip->dst_addr));
	udp->src_port = rte_cpu_to_be_16(sport);
	udp->dst_port = rte_cpu_to_be_16(dport);
	t->v6 = true;
}

/* An IPv6 template's frame: RDS_ETH_V6_EXTRA bytes in front of the IPv4
 * layout (the caller checked the headroom). */
static __rte_noinline void
rds_eth_frame_build_tmpl6(struct rte_mbuf *m, const struct rds_eth_tmpl *t,
			  const struct rds_eth_frame *f)
{
	uint8_t *p = (uint8_t *)rte_pktmbuf_prepend(m, RDS_ETH_V6_EXTRA);
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(void *)
		(p + RTE_ETHER_HDR_LEN);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(void *)(ip + 1);
	uint16_t be_ulen = rte_cpu_to_be_16((uint16_t)(sizeof(*udp) +
						       RDS_ETH_HDR_SIZE +
						       f->len));

	memcpy(p, t->hdr, RDS_ETH_L2L3L4 + RDS_ETH_V6_EXTRA);
	ip->payload_len = be_ulen;
	udp->dgram_len = be_ulen;
	m->ol_flags &= ~(RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM);
	rds_eth_hdr_fill(m, (struct rds_eth_hdr *)(void *)(udp + 1),
			 RDS_ETH_L2L3L4 + RDS_ETH_V6_EXTRA, f,
			 rds_eth_crc_update(UINT32_MAX, ip->src_addr,
					    RDS_ETH_V6_ADDRS));
}

void
rds_eth_frame_build_tmpl(struct rte_mbuf *m, const struct rds_eth_tmpl *t,
			 const struct rds_eth_frame *f)
{
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(void *)
		(p + RTE_ETHER_HDR_LEN);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(void *)(ip + 1);
	struct rds_eth_hdr *h = (struct rds_eth_hdr *)(void *)(udp + 1);
	uint16_t be_tot = rte_cpu_to_be_16((uint16_t)(RDS_ETH_HDRS -
						      RTE_ETHER_HDR_LEN +
						      f->len));

	if (unlikely(t->v6)) {
		rds_eth_frame_build_tmpl6(m, t, f);
		return;
	}
	/* Outer headers: the template, then the three fields that vary. */
	memcpy(p, t->hdr, RDS_ETH_L2L3L4);
	ip->total_length = be_tot;
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(sizeof(*udp) +
						     RDS_ETH_HDR_SIZE +
						     f->len));
	if (t->ip_offload) {
		m->ol_flags |= RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
		m->l2_len = RTE_ETHER_HDR_LEN;
		m->l3_len = sizeof(struct rte_ipv4_hdr);
	} else {
		m->ol_flags &= ~(RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM);
		ip->hdr_checksum = rds_eth_ip_cksum(t->ip_sum, be_tot);
	}
	rds_eth_hdr_fill(m, h, RDS_ETH_L2L3L4, f, UINT32_MAX);
}

int
rds_eth_frame_build(struct rte_mbuf *m, const struct rte_ether_addr *src,
		    const struct rte_ether_addr *dst, uint32_t sip,
		    uint32_t dip, uint16_t sport, uint16_t dport,
		    const struct rds_eth_frame *f, bool ip_offload)
{
	struct rds_eth_tmpl t;

	if (m == NULL || src == NULL || dst == NULL || f == NULL)
		return -EINVAL;
	if (rte_pktmbuf_data_len(m) < RDS_ETH_HDRS ||
	    rte_pktmbuf_pkt_len(m) != (uint32_t)RDS_ETH_HDRS + f->len ||
	    f->len > RDS_ETH_MAX_PAYLOAD ||
	    !rds_eth_type_ok(f->type, f->flags, f->len))
		return -EINVAL;
	rds_eth_tmpl_init(&t, src, dst, sip, dip, sport, dport, ip_offload);
	rds_eth_frame_build_tmpl(m, &t, f);
	return 0;
}

int
rds_eth_frame_build6(struct rte_mbuf *m, const struct rte_ether_addr *src,
		     const struct rte_ether_addr *dst,
		     const struct in6_addr *sip, const struct in6_addr *dip,
		     uint16_t sport, uint16_t dport,
		     const struct rds_eth_frame *f)
{
	struct rds_eth_tmpl t;

	if (m == NULL || src == NULL || dst == NULL || sip == NULL ||
	    dip == NULL || f == NULL)
		return -EINVAL;
	if (rte_pktmbuf_data_len(m) < RDS_ETH_HDRS ||
	    rte_pktmbuf_headroom(m) < RDS_ETH_V6_EXTRA ||
	    rte_pktmbuf_pkt_len(m) != (uint32_t)RDS_ETH_HDRS + f->len ||
	    f->len > RDS_ETH_MAX_PAYLOAD ||
	    !rds_eth_type_ok(f->type, f->flags & ~RDS_ETH_FF_V6, f->len))
		return -EINVAL;
	rds_eth_tmpl_init6(&t, src, dst, sip, dip, sport, dport);
	rds_eth_frame_build_tmpl6(m, &t, f);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Parse */

/* What the receive side knows of the IPv4 checksum. */
enum rds_eth_cksum {
	RDS_ETH_CKSUM_VERIFY,		/* nothing: check it in software */
	RDS_ETH_CKSUM_GOOD,		/* the port checked it */
	RDS_ETH_CKSUM_BAD,		/* the port found it wrong */
};

static inline uint16_t
rds_eth_be16_at(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Is the IPv4 header's checksum right: its 16-bit words, as in
 * memory, add up to 0xffff in one's complement (rte_raw_cksum's sum)?
 * The header of our peers' frames (20 bytes, no options) as five
 * 32-bit words added in 64 bits and folded, which is the same sum
 * (RFC 1071's "parallel summation"), without the loop. */
static __rte_noinline bool
rds_eth_ip_hdr_ok_opts(const void *ip, uint32_t hl)
{
	return rte_raw_cksum(ip, hl) == 0xffff;
}

/* Inlined into the parse (once a frame); a header with options, which
 * our peers never send, through rte_raw_cksum out of line. */
static __rte_always_inline bool
rds_eth_ip_hdr_ok(const void *ip, uint32_t hl)
{
	const uint8_t *b = ip;
	uint32_t w[5];
	uint64_t sum;

	if (unlikely(hl != sizeof(struct rte_ipv4_hdr)))
		return rds_eth_ip_hdr_ok_opts(ip, hl);
	memcpy(w, b, sizeof(w));
	sum = (uint64_t)w[0] + w[1] + w[2] + w[3] + w[4];
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

/* The eth header after the UDP header udp (ulen its length, checked
 * against the bytes there are) of the frame at p: into f, but for the
 * IP addresses. addrs: an IPv6 frame's addresses, covered by its CRC
 * (NULL: IPv4). */
static __rte_always_inline enum rds_eth_drop
rds_eth_parse_eth(const uint8_t *p, const struct rte_udp_hdr *udp,
		  uint32_t ulen, bool crc, const uint8_t *addrs,
		  struct rds_eth_frame *f)
{
	const struct rds_eth_hdr *h;
	const uint8_t *payload;
	uint32_t plen;
	uint16_t flags;

	/* The eth header. */
	if (ulen - sizeof(struct rte_udp_hdr) < RDS_ETH_HDR_SIZE)
		return RDS_ETH_DROP_SHORT;
	h = (const struct rds_eth_hdr *)(const void *)(udp + 1);
	if (h->version != RDS_ETH_VERSION)
		return RDS_ETH_DROP_VERSION;
	flags = rte_be_to_cpu_16(h->flags);
	if (h->type < RDS_ETH_F_DATA || h->type > RDS_ETH_F_ACK ||
	    (flags & ~RDS_ETH_FL_ALL) != 0)
		return RDS_ETH_DROP_TYPE;
	plen = ulen - sizeof(struct rte_udp_hdr) - RDS_ETH_HDR_SIZE;
	if (rte_be_to_cpu_16(h->len) != plen ||
	    (h->type == RDS_ETH_F_ACK && plen != 0))
		return RDS_ETH_DROP_LEN;
	payload = (const uint8_t *)(h + 1);
	if (crc && rte_be_to_cpu_32(h->crc) !=
	    (addrs == NULL ? rds_eth_crc(h, payload, plen) :
	     rds_eth_crc6(addrs, h, payload, plen)))
		return RDS_ETH_DROP_CRC;

	f->type = h->type;
	f->flags = flags;
	f->src_epoch = rte_be_to_cpu_32(h->src_epoch);
	f->dst_epoch = rte_be_to_cpu_32(h->dst_epoch);
	f->seq = rte_be_to_cpu_32(h->seq);
	f->ack = rte_be_to_cpu_32(h->ack);
	f->sack = rte_be_to_cpu_64(h->sack);
	f->wnd = rte_be_to_cpu_16(h->wnd);
	f->len = (uint16_t)plen;
	f->frag_off = rte_be_to_cpu_32(h->frag_off);
	memcpy(&f->src_mac, p + RTE_ETHER_ADDR_LEN, RTE_ETHER_ADDR_LEN);
	f->src_port = rte_be_to_cpu_16(udp->src_port);
	f->payload = payload;
	return RDS_ETH_DROP_NONE;
}


static __rte_always_inline enum rds_eth_drop
rds_eth_parse(const uint8_t *p, uint32_t len, uint16_t udp_port,
	      enum rds_eth_cksum cksum, bool crc, struct rds_eth_frame *f)
{
	const struct rte_ipv4_hdr *ip;
	const struct rte_udp_hdr *udp;
	enum rds_eth_drop why;
	uint32_t hl, tot, ulen;
	uint16_t frag;

	/* Ethernet: IPv4 only; a VLAN tag (0x8100, 0x88a8) is someone
	 * else's, as every other ethertype. */
	if (len < RTE_ETHER_HDR_LEN)
		return RDS_ETH_DROP_SHORT;
	if (rds_eth_be16_at(p + RDS_ETH_ETHER_TYPE_OFF) != RTE_ETHER_TYPE_IPV4)
		return RDS_ETH_DROP_NOT_OURS;
	if (len < RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr))
		return RDS_ETH_DROP_SHORT;

	/* IPv4 (the structure is packed: any alignment). Lengths are
	 * checked against the bytes there are; from here on only
	 * RTE_ETHER_HDR_LEN + tot bytes are read (the rest is padding). */
	ip = (const struct rte_ipv4_hdr *)(const void *)(p + RTE_ETHER_HDR_LEN);
	if ((ip->version_ihl >> 4) != 4)
		return RDS_ETH_DROP_IP;
	hl = (uint32_t)(ip->version_ihl & RTE_IPV4_HDR_IHL_MASK) *
	     RTE_IPV4_IHL_MULTIPLIER;
	if (hl < sizeof(struct rte_ipv4_hdr))
		return RDS_ETH_DROP_IP;
	if (len - RTE_ETHER_HDR_LEN < hl)
		return RDS_ETH_DROP_SHORT;
	tot = rte_be_to_cpu_16(ip->total_length);
	if (tot < hl)
		return RDS_ETH_DROP_IP;
	if (len - RTE_ETHER_HDR_LEN < tot)
		return RDS_ETH_DROP_SHORT;
	if (ip->next_proto_id != IPPROTO_UDP)
		return RDS_ETH_DROP_NOT_OURS;
	/* A later fragment has no UDP header to tell whose it is. */
	frag = rte_be_to_cpu_16(ip->fragment_offset);
	if ((frag & RTE_IPV4_HDR_OFFSET_MASK) != 0)
		return RDS_ETH_DROP_IP;

	/* UDP: the port says whether it is ours at all. */
	if (tot - hl < sizeof(struct rte_udp_hdr))
		return RDS_ETH_DROP_SHORT;
	udp = (const struct rte_udp_hdr *)(const void *)((const uint8_t *)ip +
							 hl);
	if (rte_be_to_cpu_16(udp->dst_port) != udp_port)
		return RDS_ETH_DROP_NOT_OURS;
	/* Ours: no reassembly (we send with DF), a valid checksum. */
	if ((frag & RTE_IPV4_HDR_MF_FLAG) != 0)
		return RDS_ETH_DROP_IP;
	if (cksum == RDS_ETH_CKSUM_BAD ||
	    (cksum == RDS_ETH_CKSUM_VERIFY && !rds_eth_ip_hdr_ok(ip, hl)))
		return RDS_ETH_DROP_IP;
	ulen = rte_be_to_cpu_16(udp->dgram_len);
	if (ulen != tot - hl)
		return RDS_ETH_DROP_LEN;

	why = rds_eth_parse_eth(p, udp, ulen, crc, NULL, f);
	if (why != RDS_ETH_DROP_NONE)
		return why;
	f->src_ip = ip->src_addr;
	f->dst_ip = ip->dst_addr;
	return RDS_ETH_DROP_NONE;
}

/* IPv6 next headers that are extension headers (RFC 8200 4) that the
 * walk below can step over. */
#define RDS_ETH_NH_HOPOPTS 0
#define RDS_ETH_NH_ROUTING 43
#define RDS_ETH_NH_FRAGMENT 44
#define RDS_ETH_NH_DSTOPTS 60
#define RDS_ETH_NH_WALK 8		/* extension headers looked at, at most */

/* A frame with extension headers (we never send one): do they lead to
 * UDP to our port (then it is ours and refused: RDS_ETH_DROP_IP), or
 * to anything else (RDS_ETH_DROP_NOT_OURS: an MLD report's hop-by-hop
 * header, someone's fragments)? x: the bytes after the IPv6 header,
 * plen of them (checked to be there). */
static __rte_noinline enum rds_eth_drop
rds_eth_ext6(const uint8_t *x, uint32_t plen, uint8_t nh, uint16_t udp_port)
{
	uint32_t off = 0, hl;
	unsigned int n;

	for (n = 0; n < RDS_ETH_NH_WALK; n++) {
		if (nh == IPPROTO_UDP)
			break;
		if (nh != RDS_ETH_NH_HOPOPTS && nh != RDS_ETH_NH_ROUTING &&
		    nh != RDS_ETH_NH_FRAGMENT && nh != RDS_ETH_NH_DSTOPTS)
			return RDS_ETH_DROP_NOT_OURS;
		if (plen - off < 8)
			return RDS_ETH_DROP_NOT_OURS;
		/* A later fragment has no UDP header to tell whose. */
		if (nh == RDS_ETH_NH_FRAGMENT &&
		    (rds_eth_be16_at(x + off + 2) & 0xfff8) != 0)
			return RDS_ETH_DROP_NOT_OURS;
		hl = nh == RDS_ETH_NH_FRAGMENT ? 8 :
		     ((uint32_t)x[off + 1] + 1) * 8;
		nh = x[off];
		if (plen - off < hl)
			return RDS_ETH_DROP_NOT_OURS;
		off += hl;
	}
	if (nh != IPPROTO_UDP || plen - off < sizeof(struct rte_udp_hdr) ||
	    rds_eth_be16_at(x + off + 2) != udp_port)
		return RDS_ETH_DROP_NOT_OURS;
	return RDS_ETH_DROP_IP;
}

static __rte_always_inline enum rds_eth_drop
rds_eth_parse6(const uint8_t *p, uint32_t len, uint16_t udp_port, bool crc,
	       struct rds_eth_frame *f)
{
	const struct rte_ipv6_hdr *ip;
	const struct rte_udp_hdr *udp;
	enum rds_eth_drop why;
	uint32_t plen, ulen;

	if (len < RTE_ETHER_HDR_LEN)
		return RDS_ETH_DROP_SHORT;
	if (rds_eth_be16_at(p + RDS_ETH_ETHER_TYPE_OFF) != RTE_ETHER_TYPE_IPV6)
		return RDS_ETH_DROP_NOT_OURS;
	if (len < RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr))
		return RDS_ETH_DROP_SHORT;
	ip = (const struct rte_ipv6_hdr *)(const void *)(p + RTE_ETHER_HDR_LEN);
	if ((p[RTE_ETHER_HDR_LEN] >> 4) != 6)
		return RDS_ETH_DROP_IP;
	/* From here on only the payload length's bytes are read (the rest
	 * is padding). */
	plen = rte_be_to_cpu_16(ip->payload_len);
	if (len - RTE_ETHER_HDR_LEN - sizeof(*ip) < plen)
		return RDS_ETH_DROP_SHORT;
	if (ip->proto != IPPROTO_UDP)
		return rds_eth_ext6((const uint8_t *)(ip + 1), plen, ip->proto,
				    udp_port);
	if (plen < sizeof(struct rte_udp_hdr))
		return RDS_ETH_DROP_SHORT;
	udp = (const struct rte_udp_hdr *)(const void *)(ip + 1);
	if (rte_be_to_cpu_16(udp->dst_port) != udp_port)
		return RDS_ETH_DROP_NOT_OURS;
	/* Ours: a unicast, not v4-mapped, source (a peer's address). */
	if (ip->src_addr[0] == 0xff ||
	    rds_addr_is_v4((const struct in6_addr *)(const void *)ip->src_addr))
		return RDS_ETH_DROP_IP;
	ulen = rte_be_to_cpu_16(udp->dgram_len);
	if (ulen != plen)
		return RDS_ETH_DROP_LEN;
	why = rds_eth_parse_eth(p, udp, ulen, crc, ip->src_addr, f);
	if (why != RDS_ETH_DROP_NONE)
		return why;
	f->flags |= RDS_ETH_FF_V6;
	f->src_ip = 0;
	f->dst_ip = 0;
	memcpy(&f->src6, ip->src_addr, sizeof(f->src6));
	memcpy(&f->dst6, ip->dst_addr, sizeof(f->dst6));
	return RDS_ETH_DROP_NONE;
}

enum rds_eth_drop
rds_eth_frame_parse_buf(const uint8_t *p, uint32_t len, uint16_t udp_port,
			struct rds_eth_frame *f)
{
	if (p == NULL && len != 0)
		return RDS_ETH_DROP_SHORT;
	if (len >= RTE_ETHER_HDR_LEN &&
	    rds_eth_be16_at(p + RDS_ETH_ETHER_TYPE_OFF) == RTE_ETHER_TYPE_IPV6)
		return rds_eth_parse6(p, len, udp_port, true, f);
	return rds_eth_parse(p, len, udp_port, RDS_ETH_CKSUM_VERIFY, true, f);
}

static __rte_always_inline enum rds_eth_drop
rds_eth_parse_mbuf(const struct rte_mbuf *m, uint16_t udp_port, bool crc,
		   struct rds_eth_frame *f)
{
	enum rds_eth_cksum cksum;

	if (m->nb_segs != 1 || m->next != NULL ||
	    rte_pktmbuf_pkt_len(m) != rte_pktmbuf_data_len(m))
		return RDS_ETH_DROP_SHORT;
	switch (m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) {
	case RTE_MBUF_F_RX_IP_CKSUM_GOOD:
	case RTE_MBUF_F_RX_IP_CKSUM_NONE:
		cksum = RDS_ETH_CKSUM_GOOD;
		break;
	case RTE_MBUF_F_RX_IP_CKSUM_BAD:
		cksum = RDS_ETH_CKSUM_BAD;
		break;
	default:
		cksum = RDS_ETH_CKSUM_VERIFY;
		break;
	}
	return rds_eth_parse(rte_pktmbuf_mtod(m, const uint8_t *),
			     rte_pktmbuf_data_len(m), udp_port, cksum, crc, f);
}

enum rds_eth_drop
rds_eth_frame_parse(const struct rte_mbuf *m, uint16_t udp_port,
		    struct rds_eth_frame *f)
{
	return rds_eth_parse_mbuf(m, udp_port, true, f);
}

enum rds_eth_drop
rds_eth_frame_reparse(const struct rte_mbuf *m, uint16_t udp_port,
		      struct rds_eth_frame *f)
{
	return rds_eth_parse_mbuf(m, udp_port, false, f);
}

static __rte_always_inline enum rds_eth_drop
rds_eth_parse6_mbuf(const struct rte_mbuf *m, uint16_t udp_port, bool crc,
		    struct rds_eth_frame *f)
{
	if (m->nb_segs != 1 || m->next != NULL ||
	    rte_pktmbuf_pkt_len(m) != rte_pktmbuf_data_len(m))
		return RDS_ETH_DROP_SHORT;
	return rds_eth_parse6(rte_pktmbuf_mtod(m, const uint8_t *),
			      rte_pktmbuf_data_len(m), udp_port, crc, f);
}

enum rds_eth_drop
rds_eth_frame_parse6(const struct rte_mbuf *m, uint16_t udp_port,
		     struct rds_eth_frame *f)
{
	return rds_eth_parse6_mbuf(m, udp_port, true, f);
}

enum rds_eth_drop
rds_eth_frame_reparse6(const struct rte_mbuf *m, uint16_t udp_port,
		       struct rds_eth_frame *f)
{
	return rds_eth_parse6_mbuf(m, udp_port, false, f);
}

bool
rds_eth_is_ipv6(const struct rte_mbuf *m)
{
	return rte_pktmbuf_data_len(m) >= RTE_ETHER_HDR_LEN &&
	       rds_eth_be16_at(rte_pktmbuf_mtod(m, const uint8_t *) +
			       RDS_ETH_ETHER_TYPE_OFF) == RTE_ETHER_TYPE_IPV6;
}

bool
rds_eth_is_arp(const struct rte_mbuf *m)
{
	return rte_pktmbuf_data_len(m) >= RTE_ETHER_HDR_LEN &&
	       rds_eth_be16_at(rte_pktmbuf_mtod(m, const uint8_t *) +
			       RDS_ETH_ETHER_TYPE_OFF) == RTE_ETHER_TYPE_ARP;
}

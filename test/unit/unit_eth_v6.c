/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unit_eth: the IPv6 frame layout (rds_eth_wire.c: rds_eth_frame_build6,
 * rds_eth_frame_parse6) and IPv6 neighbours (rds_eth_nd.c: neighbour
 * solicitations and advertisements, static entries, learning), checked
 * against frames written here byte by byte.
 */

#include <rte_ip.h>

#include "unit_eth.h"

/* Offsets in an IPv6 frame. */
#define O6_IP 14
#define O6_PLEN (O6_IP + 4)
#define O6_NH (O6_IP + 6)
#define O6_HOPS (O6_IP + 7)
#define O6_SIP (O6_IP + 8)
#define O6_DIP (O6_IP + 24)
#define O6_UDP 54
#define O6_H 62
#define O6_PAY 102

static struct in6_addr
ip6(const char *s)
{
	struct in6_addr a;

	CU_ASSERT_FATAL(inet_pton(AF_INET6, s, &a) == 1);
	return a;
}

/* An IPv6 frame from a (mac_a, fd00::1:4000) to b (mac_b, fd00::2:UPORT)
 * with len bytes of payload filled from key. */
static struct rte_mbuf *
mk_frame6(const struct rds_eth_frame *f, uint64_t key)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(bigpool);
	struct in6_addr s = ip6("fd00::1"), d = ip6("fd00::2");
	uint8_t *b;

	if (m == NULL)
		return NULL;
	if (rte_pktmbuf_append(m, RDS_ETH_HDRS) == NULL ||
	    (b = (uint8_t *)rte_pktmbuf_append(m, f->len)) == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	rds_test_fill(b, f->len, key);
	if (rds_eth_frame_build6(m, &mac_a, &mac_b, &s, &d, 4000, UPORT,
				 f) != 0) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	return m;
}

void
test_v6_build_layout(void)
{
	struct rds_eth_frame f;
	struct rte_mbuf *m;
	struct in6_addr s = ip6("fd00::1"), d = ip6("fd00::2");
	uint8_t *b, tmp[RDS_ETH_HDR_SIZE + 100];
	uint16_t off0;

	memset(&f, 0, sizeof(f));
	f.type = RDS_ETH_F_DATA;
	f.flags = RDS_ETH_FL_FIRST | RDS_ETH_FL_LAST;
	f.src_epoch = 0x01020304;
	f.dst_epoch = 0x05060708;
	f.seq = 0x11121314;
	f.ack = 0x21222324;
	f.sack = 0x3132333435363738ULL;
	f.wnd = 0x4142;
	f.len = 100;
	f.frag_off = 0x51525354;
	m = rte_pktmbuf_alloc(pool);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	off0 = m->data_off;
	CU_ASSERT_FATAL(rte_pktmbuf_append(m, RDS_ETH_HDRS + 100) != NULL);
	rds_test_fill(rte_pktmbuf_mtod_offset(m, uint8_t *, RDS_ETH_HDRS), 100,
		      9);
	CU_ASSERT_FATAL(rds_eth_frame_build6(m, &mac_a, &mac_b, &s, &d, 4000,
					     UPORT, &f) == 0);
	/* 20 bytes taken in front: the payload did not move. */
	CU_ASSERT_EQUAL(m->data_off, off0 - RDS_ETH_V6_EXTRA);
	CU_ASSERT_EQUAL(rte_pktmbuf_pkt_len(m), O6_PAY + 100);
	CU_ASSERT_EQUAL(rte_pktmbuf_data_len(m), O6_PAY + 100);
	b = rte_pktmbuf_mtod(m, uint8_t *);
	CU_ASSERT(memcmp(b, &mac_b, 6) == 0);
	CU_ASSERT(memcmp(b + 6, &mac_a, 6) == 0);
	CU_ASSERT_EQUAL(rd16(b + O_ETYPE), 0x86dd);
	CU_ASSERT_EQUAL(rd32(b + O6_IP), 6u << 28);	/* no class, flow */
	CU_ASSERT_EQUAL(rd16(b + O6_PLEN), 8 + 40 + 100);
	CU_ASSERT_EQUAL(b[O6_NH], 17);
	CU_ASSERT_EQUAL(b[O6_HOPS], 64);
	CU_ASSERT(memcmp(b + O6_SIP, &s, 16) == 0);
	CU_ASSERT(memcmp(b + O6_DIP, &d, 16) == 0);
	CU_ASSERT_EQUAL(rd16(b + O6_UDP), 4000);
	CU_ASSERT_EQUAL(rd16(b + O6_UDP + 2), UPORT);
	CU_ASSERT_EQUAL(rd16(b + O6_UDP + 4), 8 + 40 + 100);
	CU_ASSERT_EQUAL(rd16(b + O6_UDP + 6), 0);	/* RFC 6936 */
	CU_ASSERT_EQUAL(b[O6_H], RDS_ETH_VERSION);
	CU_ASSERT_EQUAL(b[O6_H + 1], RDS_ETH_F_DATA);
	CU_ASSERT_EQUAL(rd16(b + O6_H + 2), RDS_ETH_FL_FIRST | RDS_ETH_FL_LAST);
	CU_ASSERT_EQUAL(rd32(b + O6_H + 4), 0x01020304);
	CU_ASSERT_EQUAL(rd32(b + O6_H + 12), 0x11121314);
	CU_ASSERT_EQUAL(rd16(b + O6_H + 30), 100);
	/* The CRC32C of the IPv6 addresses (source, destination), the eth
	 * header (crc 0) and the payload. */
	memcpy(tmp, b + O6_H, sizeof(tmp));
	memset(tmp + 36, 0, 4);
	CU_ASSERT_EQUAL(rd32(b + O6_H + 36),
			ref_crc32c(ref_crc32c(0, b + O6_SIP, 32), tmp,
				   sizeof(tmp)));
	/* No IPv4 offload flags. */
	CU_ASSERT_EQUAL(m->ol_flags & (RTE_MBUF_F_TX_IPV4 |
				       RTE_MBUF_F_TX_IP_CKSUM), 0);
	rte_pktmbuf_free(m);

	/* Not enough headroom for the 20 bytes: EINVAL, nothing written. */
	m = rte_pktmbuf_alloc(pool);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	m->data_off = 10;
	CU_ASSERT_FATAL(rte_pktmbuf_append(m, RDS_ETH_HDRS) != NULL);
	f.len = 0;
	CU_ASSERT_EQUAL(rds_eth_frame_build6(m, &mac_a, &mac_b, &s, &d, 4000,
					     UPORT, &f), -EINVAL);
	/* An ACK with a payload, a flag parse refuses: EINVAL. */
	m->data_off = RTE_PKTMBUF_HEADROOM;
	f.type = RDS_ETH_F_ACK;
	f.flags = 0x40;
	CU_ASSERT_EQUAL(rds_eth_frame_build6(m, &mac_a, &mac_b, &s, &d, 4000,
					     UPORT, &f), -EINVAL);
	rte_pktmbuf_free(m);
	check_no_leak();
}

void
test_v6_roundtrip(void)
{
	static const uint16_t lens[] = { 0, 1, 47, 48, 1000, 1400 };
	struct rds_eth_frame f, g;
	struct in6_addr s = ip6("fd00::1"), d = ip6("fd00::2");
	struct rte_mbuf *m;
	uint64_t rs = 17;
	uint32_t flen;
	uint8_t *flatb;
	unsigned int i, k;

	for (i = 0; i < RTE_DIM(lens); i++) {
		for (k = 0; k < 20; k++) {
			frame_fields(&f, &rs, lens[i]);
			m = mk_frame6(&f, i * 100 + k);
			CU_ASSERT_PTR_NOT_NULL_FATAL(m);
			/* The IPv4 parse leaves it alone. */
			CU_ASSERT_EQUAL(rds_eth_frame_parse(m, UPORT, &g),
					RDS_ETH_DROP_NOT_OURS);
			CU_ASSERT_EQUAL(rds_eth_frame_parse6(m, UPORT, &g),
					RDS_ETH_DROP_NONE);
			CU_ASSERT(rds_eth_frame_v6(&g));
			g.flags &= (uint16_t)~RDS_ETH_FF_V6;
			CU_ASSERT(same_fields(&f, &g));
			CU_ASSERT(memcmp(&g.src6, &s, 16) == 0);
			CU_ASSERT(memcmp(&g.dst6, &d, 16) == 0);
			CU_ASSERT_EQUAL(g.src_ip, 0);
			CU_ASSERT_EQUAL(g.dst_ip, 0);
			CU_ASSERT_EQUAL(g.src_port, 4000);
			CU_ASSERT(memcmp(&g.src_mac, &mac_a, 6) == 0);
			CU_ASSERT(g.payload == rte_pktmbuf_mtod_offset(
				m, uint8_t *, O6_PAY));
			CU_ASSERT_EQUAL(rds_eth_frame_reparse6(m, UPORT, &g),
					RDS_ETH_DROP_NONE);
			/* Either family on a flat buffer (the fuzz entry). */
			flatb = flat(m, &flen);
			CU_ASSERT_EQUAL(rds_eth_frame_parse_buf(flatb, flen,
								UPORT, &g),
					RDS_ETH_DROP_NONE);
			CU_ASSERT(rds_eth_frame_v6(&g));
			free(flatb);
			rte_pktmbuf_free(m);
		}
	}
	check_no_leak();
}

/* A built frame changed at off to v (then CRC fixed when crc): what
 * parse6 says. */
static enum rds_eth_drop
parse6_changed(uint16_t len, unsigned int off, uint8_t v, bool fix,
	       struct rds_eth_frame *g)
{
	struct rds_eth_frame f;
	struct rte_mbuf *m;
	enum rds_eth_drop why;
	uint64_t rs = 3;
	uint8_t *b;

	frame_fields(&f, &rs, len);
	f.type = RDS_ETH_F_DATA;
	m = mk_frame6(&f, 5);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	b = rte_pktmbuf_mtod(m, uint8_t *);
	b[off] = v;
	if (fix)
		fix_crc(b + O6_H, len);
	why = rds_eth_frame_parse6(m, UPORT, g);
	rte_pktmbuf_free(m);
	return why;
}

/* A built frame (10 bytes of payload) with an 8-byte extension header nh
 * put after the IPv6 header, whose next header is next (a fragment
 * header: fragment offset field frag); other_port: the UDP port not
 * ours. What the flat parse says (parse6's code). */
static enum rds_eth_drop
parse6_ext(uint8_t nh, uint8_t next, uint16_t frag, bool other_port)
{
	struct rds_eth_frame f, g;
	struct rte_mbuf *m;
	enum rds_eth_drop why;
	uint8_t b[O6_PAY + 10 + 8];
	uint64_t rs = 3;

	frame_fields(&f, &rs, 10);
	f.type = RDS_ETH_F_DATA;
	m = mk_frame6(&f, 5);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_FATAL(rte_pktmbuf_data_len(m) == O6_PAY + 10);
	memcpy(b, rte_pktmbuf_mtod(m, uint8_t *), O6_UDP);
	memset(b + O6_UDP, 0, 8);
	b[O6_UDP] = next;
	if (nh == 44)
		wr16(b + O6_UDP + 2, frag);
	else
		b[O6_UDP + 1] = (uint8_t)(frag >> 8);	/* length in 8s */
	memcpy(b + O6_UDP + 8, rte_pktmbuf_mtod(m, uint8_t *) + O6_UDP,
	       O6_PAY + 10 - O6_UDP);
	rte_pktmbuf_free(m);
	b[O6_NH] = nh;
	wr16(b + O6_PLEN, (uint16_t)(rd16(b + O6_PLEN) + 8));
	if (other_port)
		b[O6_UDP + 8 + 3] ^= 1;
	why = rds_eth_frame_parse_buf(b, sizeof(b), UPORT, &g);
	return why;
}

/* A built frame from ::ffff:10.0.0.1. */
static enum rds_eth_drop
parse6_v4mapped_src(void)
{
	struct rds_eth_frame f, g;
	struct rte_mbuf *m;
	enum rds_eth_drop why;
	uint64_t rs = 3;
	uint8_t *b;

	frame_fields(&f, &rs, 10);
	f.type = RDS_ETH_F_DATA;
	m = mk_frame6(&f, 5);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	b = rte_pktmbuf_mtod(m, uint8_t *);
	memset(b + O6_SIP, 0, 10);
	b[O6_SIP + 10] = 0xff;
	b[O6_SIP + 11] = 0xff;
	why = rds_eth_frame_parse6(m, UPORT, &g);
	rte_pktmbuf_free(m);
	return why;
}

void
test_v6_bad(void)
{
	struct rds_eth_frame f, g;
	struct rte_mbuf *m;
	uint64_t rs = 5;
	uint32_t cut;
	uint8_t *b;

	/* Truncated anywhere: short (never a read past the frame: ASan). */
	frame_fields(&f, &rs, 64);
	f.type = RDS_ETH_F_DATA;
	m = mk_frame6(&f, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	b = rte_pktmbuf_mtod(m, uint8_t *);
	for (cut = 0; cut < O6_PAY + 64; cut++) {
		enum rds_eth_drop why = parse_prefix(b, cut, &g);

		CU_ASSERT(why == RDS_ETH_DROP_SHORT || why == RDS_ETH_DROP_LEN);
	}
	rte_pktmbuf_free(m);
	/* IPv6 version not 6. */
	CU_ASSERT_EQUAL(parse6_changed(10, O6_IP, 0x40, false, &g),
			RDS_ETH_DROP_IP);
	/* A hop-by-hop header, ICMPv6: not ours. */
	CU_ASSERT_EQUAL(parse6_changed(10, O6_NH, 0, false, &g),
			RDS_ETH_DROP_NOT_OURS);
	CU_ASSERT_EQUAL(parse6_changed(10, O6_NH, 58, false, &g),
			RDS_ETH_DROP_NOT_OURS);
	/* Another UDP port. */
	CU_ASSERT_EQUAL(parse6_changed(10, O6_UDP + 3, 1, false, &g),
			RDS_ETH_DROP_NOT_OURS);
	/* A multicast source. */
	CU_ASSERT_EQUAL(parse6_changed(10, O6_SIP, 0xff, false, &g),
			RDS_ETH_DROP_IP);
	/* ::ffff:a.b.c.d as the source. */
	CU_ASSERT_EQUAL(parse6_v4mapped_src(), RDS_ETH_DROP_IP);
	/* The payload length past the frame, or not the UDP length. */
	CU_ASSERT_EQUAL(parse6_changed(10, O6_PLEN, 0x10, false, &g),
			RDS_ETH_DROP_SHORT);
	CU_ASSERT_EQUAL(parse6_changed(10, O6_PLEN + 1, 8 + 40 + 9, false, &g),
			RDS_ETH_DROP_LEN);
	/* The eth header as over IPv4: version, type, length, CRC. */
	CU_ASSERT_EQUAL(parse6_changed(10, O6_H, 1, true, &g),
			RDS_ETH_DROP_VERSION);
	CU_ASSERT_EQUAL(parse6_changed(10, O6_H + 1, 9, true, &g),
			RDS_ETH_DROP_TYPE);
	CU_ASSERT_EQUAL(parse6_changed(10, O6_H + 31, 9, true, &g),
			RDS_ETH_DROP_LEN);
	CU_ASSERT_EQUAL(parse6_changed(10, O6_PAY + 3, 0x5a, false, &g),
			RDS_ETH_DROP_CRC);
	/* A changed address (IPv6 has no header checksum, UDP's is 0):
	 * the CRC32C covers both. */
	CU_ASSERT_EQUAL(parse6_changed(10, O6_SIP + 15, 0x33, false, &g),
			RDS_ETH_DROP_CRC);
	CU_ASSERT_EQUAL(parse6_changed(10, O6_DIP + 3, 0x33, false, &g),
			RDS_ETH_DROP_CRC);
	/* A UDP checksum is not checked: any value passes. */
	CU_ASSERT_EQUAL(parse6_changed(10, O6_UDP + 6, 0x12, false, &g),
			RDS_ETH_DROP_NONE);
	/* Any hop limit is taken (the frame
	 * came over one link; a router would have changed the MACs). */
	CU_ASSERT_EQUAL(parse6_changed(10, O6_HOPS, 1, false, &g),
			RDS_ETH_DROP_NONE);
	CU_ASSERT_EQUAL(parse6_changed(10, O6_HOPS, 0, false, &g),
			RDS_ETH_DROP_NONE);
	/* Extension headers (we never send one): to our UDP port a bad
	 * IPv6 header; to anything else, or a later fragment, not ours. */
	CU_ASSERT_EQUAL(parse6_ext(0, 17, 0, false), RDS_ETH_DROP_IP);
	CU_ASSERT_EQUAL(parse6_ext(60, 17, 0, false), RDS_ETH_DROP_IP);
	CU_ASSERT_EQUAL(parse6_ext(44, 17, 0, false), RDS_ETH_DROP_IP);
	CU_ASSERT_EQUAL(parse6_ext(44, 17, 0x100, false), RDS_ETH_DROP_NOT_OURS);
	CU_ASSERT_EQUAL(parse6_ext(0, 58, 0, false), RDS_ETH_DROP_NOT_OURS);
	CU_ASSERT_EQUAL(parse6_ext(0, 17, 0, true), RDS_ETH_DROP_NOT_OURS);
	/* One that says it is longer than the frame: not ours, no read
	 * past it (ASan). */
	CU_ASSERT_EQUAL(parse6_ext(0, 17, 0xff00, false), RDS_ETH_DROP_NOT_OURS);
	/* An IPv4 frame is not parse6's. */
	frame_fields(&f, &rs, 10);
	m = mk_frame(pool, &f, 1, false);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_EQUAL(rds_eth_frame_parse6(m, UPORT, &g),
			RDS_ETH_DROP_NOT_OURS);
	rte_pktmbuf_free(m);
	check_no_leak();
}

/* ------------------------------------------------------------------ */
/* Neighbour discovery */

static struct rds_eth_engine eeng6;
static struct rds_eth_port port6;
static struct rds_laddr la6[2];
static struct rds_eth_laddr ela6[2];

static void
port6_setup(void)
{
	unsigned int i;

	memset(&eeng6, 0, sizeof(eeng6));
	eng->tp[rds_eth_slot] = &eeng6;
	memset(&port6, 0, sizeof(port6));
	port6.pool = pool;
	port6.mac = mac_a;
	port6.udp_port = UPORT;
	port6.nd = rds_eth_nd_create(4);
	CU_ASSERT_PTR_NOT_NULL_FATAL(port6.nd);
	for (i = 0; i < 2; i++) {
		memset(&la6[i], 0, sizeof(la6[i]));
		ela6[i].port = &port6;
		ela6[i].v6 = true;
		la6[i].addr = ip6(i == 0 ? "fd00::1" : "fe80::1");
		la6[i].tp = &ela6[i];
		port6.laddrs[i] = &la6[i];
	}
	port6.nb_laddrs = 2;
	nb_cap = 0;
}

static void
port6_teardown(void)
{
	cap_clear();
	rds_eth_nd_free(port6.nd);
	port6.nd = NULL;
	check_no_leak();
}

/* The ICMPv6 checksum, computed here (RFC 4443 2.3: the pseudo-header,
 * then the message). */
static uint16_t
ref_icmp6_sum(const uint8_t *ip, const uint8_t *msg, uint32_t len)
{
	uint8_t ph[40 + 64];

	memcpy(ph, ip + 8, 32);
	ph[32] = 0;
	ph[33] = 0;
	ph[34] = (uint8_t)(len >> 8);
	ph[35] = (uint8_t)len;
	ph[36] = ph[37] = ph[38] = 0;
	ph[39] = 58;
	memcpy(ph + 40, msg, len);
	return (uint16_t)~ref_sum(ph, 40 + len);
}

/* An NS or NA written byte by byte: from smac/sip to dmac/dip, target,
 * option type opt (0: none) with omac, hop limit hops. */
static struct rte_mbuf *
mk_nd_opts(uint8_t type, const struct rte_ether_addr *smac,
	   const struct rte_ether_addr *dmac, const char *sip,
	   const char *dip, const char *target, const uint8_t *opts,
	   uint32_t olen, uint8_t hops)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct in6_addr s = ip6(sip), d = ip6(dip), t = ip6(target);
	uint32_t mlen = 24 + olen;
	uint8_t *b, *ip, *msg;
	uint16_t sum;

	if (m == NULL)
		abort();
	b = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(14 + 40 + mlen));
	if (b == NULL)
		abort();
	memset(b, 0, 14 + 40 + mlen);
	memcpy(b, dmac, 6);
	memcpy(b + 6, smac, 6);
	wr16(b + 12, 0x86dd);
	ip = b + 14;
	ip[0] = 0x60;
	wr16(ip + 4, (uint16_t)mlen);
	ip[6] = 58;
	ip[7] = hops;
	memcpy(ip + 8, &s, 16);
	memcpy(ip + 24, &d, 16);
	msg = ip + 40;
	msg[0] = type;
	if (type == 136)
		msg[4] = 0x60;		/* S, O */
	memcpy(msg + 8, &t, 16);
	memcpy(msg + 24, opts, olen);
	sum = ref_icmp6_sum(ip, msg, mlen);
	wr16(msg + 2, sum);
	return m;
}

static struct rte_mbuf *
mk_nd(uint8_t type, const struct rte_ether_addr *smac,
      const struct rte_ether_addr *dmac, const char *sip, const char *dip,
      const char *target, uint8_t opt, const struct rte_ether_addr *omac,
      uint8_t hops)
{
	uint8_t o[8] = { opt, 1 };

	memcpy(o + 2, omac, 6);
	return mk_nd_opts(type, smac, dmac, sip, dip, target, o,
			  opt != 0 ? 8 : 0, hops);
}

/* A captured NS or NA from port6: type, Ethernet to dmac, from sip to
 * dip, target, our MAC in the option. */
static void
check_nd(const struct rte_mbuf *m, uint8_t type,
	 const struct rte_ether_addr *dmac, const char *sip, const char *dip,
	 const char *target)
{
	const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint8_t *ip = b + 14, *msg = ip + 40;
	struct in6_addr s = ip6(sip), d = ip6(dip), t = ip6(target);

	CU_ASSERT_EQUAL(rte_pktmbuf_pkt_len(m), 14 + 40 + 32);
	CU_ASSERT(memcmp(b, dmac, 6) == 0);
	CU_ASSERT(memcmp(b + 6, &mac_a, 6) == 0);
	CU_ASSERT_EQUAL(rd16(b + 12), 0x86dd);
	CU_ASSERT_EQUAL(ip[0] >> 4, 6);
	CU_ASSERT_EQUAL(rd16(ip + 4), 32);
	CU_ASSERT_EQUAL(ip[6], 58);
	CU_ASSERT_EQUAL(ip[7], 255);
	CU_ASSERT(memcmp(ip + 8, &s, 16) == 0);
	CU_ASSERT(memcmp(ip + 24, &d, 16) == 0);
	CU_ASSERT_EQUAL(msg[0], type);
	CU_ASSERT_EQUAL(msg[1], 0);
	/* The checksum is right: with it, the sum's complement is 0. */
	CU_ASSERT_EQUAL(ref_icmp6_sum(ip, msg, 32), 0);
	if (type == 136)
		CU_ASSERT_EQUAL(rd32(msg + 4), 0x60000000u);
	CU_ASSERT(memcmp(msg + 8, &t, 16) == 0);
	CU_ASSERT_EQUAL(msg[24], type == 135 ? 1 : 2);
	CU_ASSERT_EQUAL(msg[25], 1);
	CU_ASSERT(memcmp(msg + 26, &mac_a, 6) == 0);
}

/* A solicitation for one of our addresses is answered, its sender
 * learnt. */
void
test_nd_solicit_answered(void)
{
	struct rte_ether_addr mac, mm = {{ 0x33, 0x33, 0xff, 0, 0, 0x01 }};
	struct in6_addr b6 = ip6("fd00::2");

	port6_setup();
	rds_eth_nd_input(eng, &port6, mk_nd(135, &mac_b, &mm, "fd00::2",
					    "ff02::1:ff00:1", "fd00::1", 1,
					    &mac_b, 255));
	CU_ASSERT_EQUAL_FATAL(nb_cap, 1);
	check_nd(cap[0], 136, &mac_b, "fd00::1", "fd00::2", "fd00::1");
	CU_ASSERT_EQUAL(eeng6.stats.nd_rx, 1);
	CU_ASSERT_EQUAL(eeng6.stats.nd_tx, 1);
	CU_ASSERT_EQUAL(rds_eth_nd_lookup(port6.nd, &b6, &mac), 1);
	CU_ASSERT(rte_is_same_ether_addr(&mac, &mac_b));
	port6_teardown();
}

/* Options in any order and number (RFC 4861 4.6): a solicitation whose
 * source link-layer address comes after a nonce option (as duplicate
 * address detection's, RFC 7527) is answered and its sender learnt, an
 * advertisement whose target address comes after an unknown option
 * resolves; one with an option of length 0, or one running past the
 * message, is dropped (nd_drop) and teaches nothing. */
void
test_nd_options(void)
{
	struct rte_ether_addr mac, mm = {{ 0x33, 0x33, 0xff, 0, 0, 0x01 }};
	struct in6_addr b6 = ip6("fd00::2"), s = ip6("fd00::1"),
			t = ip6("fd00::3"), d6 = ip6("fd00::4");
	uint8_t o[24] = { 14, 1, 1, 2, 3, 4, 5, 6,	/* nonce */
			  1, 1 };			/* SLLA */

	port6_setup();
	memcpy(o + 10, &mac_b, 6);
	rds_eth_nd_input(eng, &port6, mk_nd_opts(135, &mac_b, &mm, "fd00::2",
						 "ff02::1:ff00:1", "fd00::1",
						 o, 16, 255));
	CU_ASSERT_EQUAL_FATAL(nb_cap, 1);
	check_nd(cap[0], 136, &mac_b, "fd00::1", "fd00::2", "fd00::1");
	CU_ASSERT_EQUAL(rds_eth_nd_lookup(port6.nd, &b6, &mac), 1);
	CU_ASSERT(rte_is_same_ether_addr(&mac, &mac_b));
	/* An advertisement: an unknown option of 16 bytes, then the TLLA. */
	CU_ASSERT_EQUAL(rds_eth_nd_resolve(eng, &port6, &s, &t, &mac),
			-EAGAIN);
	memset(o, 0, sizeof(o));
	o[0] = 200;
	o[1] = 2;
	o[16] = 2;
	o[17] = 1;
	memcpy(o + 18, &mac_c, 6);
	rds_eth_nd_input(eng, &port6, mk_nd_opts(136, &mac_c, &mac_a,
						 "fd00::3", "fd00::1",
						 "fd00::3", o, 24, 255));
	CU_ASSERT_EQUAL(rds_eth_nd_resolve(eng, &port6, &s, &t, &mac), 0);
	CU_ASSERT(rte_is_same_ether_addr(&mac, &mac_c));
	CU_ASSERT_EQUAL(eeng6.stats.nd_rx, 2);
	CU_ASSERT_EQUAL(eeng6.stats.nd_drop, 0);
	/* Invalid: a TLLA then an option of length 0; an option claiming
	 * 16 bytes in the 8 left. */
	CU_ASSERT_EQUAL(rds_eth_nd_resolve(eng, &port6, &s, &d6, &mac),
			-EAGAIN);
	memset(o, 0, sizeof(o));
	o[0] = 2;
	o[1] = 1;
	memcpy(o + 2, &mac_b, 6);
	o[8] = 14;
	rds_eth_nd_input(eng, &port6, mk_nd_opts(136, &mac_b, &mac_a,
						 "fd00::4", "fd00::1",
						 "fd00::4", o, 16, 255));
	o[1] = 2;
	rds_eth_nd_input(eng, &port6, mk_nd_opts(136, &mac_b, &mac_a,
						 "fd00::4", "fd00::1",
						 "fd00::4", o, 8, 255));
	CU_ASSERT_EQUAL(eeng6.stats.nd_drop, 2);
	CU_ASSERT_EQUAL(eeng6.stats.nd_rx, 2);
	CU_ASSERT_EQUAL(rds_eth_nd_lookup(port6.nd, &d6, &mac), 0);
	port6_teardown();
}

/* Resolving a peer: a solicitation to its solicited-node address, none
 * again within 100 ms, the advertisement resolves it. */
void
test_nd_resolve(void)
{
	struct rte_ether_addr mac, mm = {{ 0x33, 0x33, 0xff, 0, 0, 0x03 }};
	struct in6_addr s = ip6("fd00::1"), t = ip6("fd00::3");

	port6_setup();
	CU_ASSERT_EQUAL(rds_eth_nd_resolve(eng, &port6, &s, &t, &mac),
			-EAGAIN);
	CU_ASSERT_EQUAL_FATAL(nb_cap, 1);
	check_nd(cap[0], 135, &mm, "fd00::1", "ff02::1:ff00:3", "fd00::3");
	CU_ASSERT_EQUAL(rds_eth_nd_resolve(eng, &port6, &s, &t, &mac),
			-EAGAIN);
	CU_ASSERT_EQUAL(nb_cap, 1);
	CU_ASSERT_EQUAL(rds_eth_nd_lookup(port6.nd, &t, &mac), 0);
	rds_eth_nd_input(eng, &port6, mk_nd(136, &mac_c, &mac_a, "fd00::3",
					    "fd00::1", "fd00::3", 2, &mac_c,
					    255));
	CU_ASSERT_EQUAL(rds_eth_nd_resolve(eng, &port6, &s, &t, &mac), 0);
	CU_ASSERT(rte_is_same_ether_addr(&mac, &mac_c));
	port6_teardown();
}

/* What neighbour discovery ignores: a hop limit below 255 (a router
 * forwarded it), a wrong checksum, a code not 0, a truncated message
 * (these counted in nd_drop), a solicitation for another address,
 * one from :: (duplicate address detection), an advertisement of a
 * neighbour we never asked for, one of our own addresses, our own MAC. */
void
test_nd_ignored(void)
{
	struct rte_ether_addr mac, mm = {{ 0x33, 0x33, 0xff, 0, 0, 0x01 }};
	struct in6_addr b6 = ip6("fd00::2"), c6 = ip6("fd00::7");
	struct rte_mbuf *m;
	uint8_t *b;

	port6_setup();
	rds_eth_nd_input(eng, &port6, mk_nd(135, &mac_b, &mm, "fd00::2",
					    "ff02::1:ff00:1", "fd00::1", 1,
					    &mac_b, 64));
	m = mk_nd(135, &mac_b, &mm, "fd00::2", "ff02::1:ff00:1", "fd00::1", 1,
		  &mac_b, 255);
	rte_pktmbuf_mtod(m, uint8_t *)[14 + 40 + 2] ^= 0x01;
	rds_eth_nd_input(eng, &port6, m);
	/* An advertisement with hop limit 254, a solicitation with code 1
	 * (checksum right), one cut short of its target: dropped too. */
	rds_eth_nd_input(eng, &port6, mk_nd(136, &mac_c, &mac_a, "fd00::3",
					    "fd00::1", "fd00::3", 2, &mac_c,
					    254));
	m = mk_nd(135, &mac_b, &mm, "fd00::2", "ff02::1:ff00:1", "fd00::1", 1,
		  &mac_b, 255);
	b = rte_pktmbuf_mtod(m, uint8_t *);
	b[14 + 40 + 1] = 1;
	wr16(b + 14 + 40 + 2, 0);
	wr16(b + 14 + 40 + 2, ref_icmp6_sum(b + 14, b + 14 + 40, 32));
	rds_eth_nd_input(eng, &port6, m);
	m = mk_nd(135, &mac_b, &mm, "fd00::2", "ff02::1:ff00:1", "fd00::1", 1,
		  &mac_b, 255);
	rte_pktmbuf_trim(m, 32 - 20);
	rds_eth_nd_input(eng, &port6, m);
	CU_ASSERT_EQUAL(eeng6.stats.nd_rx, 0);
	CU_ASSERT_EQUAL(eeng6.stats.nd_drop, 5);
	/* Another ICMPv6 message (an echo request) is not ours. */
	m = mk_nd(128, &mac_b, &mac_a, "fd00::2", "fd00::1", "fd00::1", 0,
		  &mac_b, 64);
	rds_eth_nd_input(eng, &port6, m);
	CU_ASSERT_EQUAL(eeng6.stats.nd_drop, 5);
	CU_ASSERT_EQUAL(eeng6.stats.rx_not_ours, 1);
	rds_eth_nd_input(eng, &port6, mk_nd(135, &mac_b, &mm, "fd00::2",
					    "ff02::1:ff00:9", "fd00::9", 1,
					    &mac_b, 255));
	rds_eth_nd_input(eng, &port6, mk_nd(135, &mac_b, &mm, "::",
					    "ff02::1:ff00:1", "fd00::1", 0,
					    &mac_b, 255));
	rds_eth_nd_input(eng, &port6, mk_nd(136, &mac_c, &mac_a, "fd00::7",
					    "fd00::1", "fd00::7", 2, &mac_c,
					    255));
	rds_eth_nd_input(eng, &port6, mk_nd(135, &mac_a, &mm, "fd00::2",
					    "ff02::1:ff00:1", "fd00::1", 1,
					    &mac_a, 255));
	rds_eth_nd_input(eng, &port6, mk_nd(135, &mac_b, &mm, "fe80::1",
					    "ff02::1:ff00:1", "fd00::1", 1,
					    &mac_b, 255));
	CU_ASSERT_EQUAL(nb_cap, 0);
	CU_ASSERT_EQUAL(rds_eth_nd_lookup(port6.nd, &b6, &mac), -ENOENT);
	CU_ASSERT_EQUAL(rds_eth_nd_lookup(port6.nd, &c6, &mac), -ENOENT);
	CU_ASSERT_EQUAL(eeng6.stats.nd_tx, 0);
	port6_teardown();
}

/* Static entries stay; learnt ones follow a changed MAC (counted); the
 * table's size is a bound. */
void
test_nd_static_learn(void)
{
	struct rte_ether_addr mac;
	struct in6_addr b6 = ip6("fd00::2"), c6 = ip6("fd00::3");
	struct in6_addr m6 = ip6("ff02::1"), v4 = ip6("::ffff:10.0.0.1");
	char s[32];
	unsigned int i;

	port6_setup();
	CU_ASSERT_EQUAL(rds_eth_nd_static(port6.nd, &b6, &mac_b), 0);
	rds_eth_nd_learn(eng, port6.nd, &b6, &mac_c);
	CU_ASSERT_EQUAL(rds_eth_nd_lookup(port6.nd, &b6, &mac), 1);
	CU_ASSERT(rte_is_same_ether_addr(&mac, &mac_b));
	rds_eth_nd_learn(eng, port6.nd, &c6, &mac_b);
	rds_eth_nd_learn(eng, port6.nd, &c6, &mac_c);
	CU_ASSERT_EQUAL(rds_eth_nd_lookup(port6.nd, &c6, &mac), 1);
	CU_ASSERT(rte_is_same_ether_addr(&mac, &mac_c));
	CU_ASSERT_EQUAL(eeng6.stats.neigh_changed, 1);
	CU_ASSERT_EQUAL(rds_eth_nd_static(port6.nd, &m6, &mac_b), -EINVAL);
	CU_ASSERT_EQUAL(rds_eth_nd_static(port6.nd, &v4, &mac_b), -EINVAL);
	for (i = 0; i < 4; i++) {
		struct in6_addr x;

		snprintf(s, sizeof(s), "fd00::10%u", i);
		x = ip6(s);
		CU_ASSERT_EQUAL(rds_eth_nd_static(port6.nd, &x, &mac_b),
				i < 2 ? 0 : -ENOSPC);
	}
	CU_ASSERT_EQUAL(rds_eth_nd_room(port6.nd), 0);
	port6_teardown();
}

/* A port with IPv6 addresses only (whose IPv4 field is 0): an ARP
 * request for 0.0.0.0 is not for us, nor one from 0.0.0.0 (a probe) for
 * someone else. */
void
test_nd_arp_zero(void)
{
	struct rte_mbuf *m;
	uint8_t *b;

	port6_setup();
	port6.neigh = rds_eth_neigh_create(4);
	CU_ASSERT_PTR_NOT_NULL_FATAL(port6.neigh);
	m = rte_pktmbuf_alloc(pool);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	b = (uint8_t *)rte_pktmbuf_append(m, 60);
	if (b == NULL)
		abort();
	memset(b, 0, 60);
	memset(b, 0xff, 6);
	memcpy(b + 6, &mac_b, 6);
	wr16(b + 12, 0x0806);
	wr16(b + 14, 1);
	wr16(b + 16, 0x0800);
	b[18] = 6;
	b[19] = 4;
	wr16(b + 20, 1);
	memcpy(b + 22, &mac_b, 6);
	b[28] = 10;
	b[31] = 9;			/* from 10.0.0.9, for 0.0.0.0 */
	rds_eth_arp_input(eng, &port6, m);
	CU_ASSERT_EQUAL(nb_cap, 0);
	CU_ASSERT_EQUAL(eeng6.stats.arp_tx, 0);
	rds_eth_neigh_free(port6.neigh);
	port6.neigh = NULL;
	port6_teardown();
}

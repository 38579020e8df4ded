/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unit_eth: the frame layout (rds_eth_wire.c).
 */

#include <rte_ip.h>

#include "unit_eth.h"

/* ------------------------------------------------------------------ */
/* Wire */

void
test_crc_vector(void)
{
	static const char s[] = "123456789";
	uint64_t v[2];			/* aligned for rte_hash_crc */
	uint8_t buf[301 + 8], *pay;
	struct rds_eth_hdr h;
	uint64_t rs = 7;
	uint32_t len, ref, off;

	memcpy(v, s, 9);
	/* The standard CRC32C check value (RFC 3720 B.4's polynomial). */
	CU_ASSERT_EQUAL(ref_crc32c(0, v, 9), 0xe3069283u);
	/* rte_hash_crc() is the bare update: initial value given, no final
	 * complement. The standard CRC32C is ~rte_hash_crc(d, n, ~0). */
	CU_ASSERT_EQUAL(rte_hash_crc(v, 9, 0xffffffffu), ~0xe3069283u);
	CU_ASSERT_EQUAL(~rte_hash_crc(v, 9, 0xffffffffu), 0xe3069283u);

	/* rds_eth_crc: the standard CRC32C of the header (crc taken as 0)
	 * then the payload, for every length and alignment. */
	for (len = 0; len <= 301; len++) {
		off = len % 8;
		rds_test_fill(&h, sizeof(h), len);
		pay = buf + off;
		rds_test_fill(pay, len, len + 1000);
		{
			uint8_t tmp[RDS_ETH_HDR_SIZE + 301];

			memcpy(tmp, &h, sizeof(h));
			memset(tmp + 36, 0, 4);
			memcpy(tmp + sizeof(h), pay, len);
			ref = ref_crc32c(0, tmp, sizeof(h) + len);
		}
		CU_ASSERT_EQUAL(rds_eth_crc(&h, pay, len), ref);
		/* The crc field itself does not count. */
		h.crc = (rte_be32_t)rds_test_rand(&rs);
		CU_ASSERT_EQUAL(rds_eth_crc(&h, pay, len), ref);
	}
}

void
test_build_layout(void)
{
	struct rds_eth_frame f;
	struct rte_mbuf *m;
	uint8_t *b, tmp[RDS_ETH_HDR_SIZE + 100];
	unsigned int off;

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
	for (off = 0; off < 2; off++) {
		m = mk_frame(pool, &f, 1, off == 1);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		b = rte_pktmbuf_mtod(m, uint8_t *);
		CU_ASSERT_EQUAL(rte_pktmbuf_pkt_len(m), 182);
		CU_ASSERT(memcmp(b, &mac_b, 6) == 0);
		CU_ASSERT(memcmp(b + 6, &mac_a, 6) == 0);
		CU_ASSERT_EQUAL(rd16(b + O_ETYPE), 0x0800);
		CU_ASSERT_EQUAL(b[O_IP], 0x45);
		CU_ASSERT_EQUAL(b[O_IP + 1], 0);
		CU_ASSERT_EQUAL(rd16(b + O_IPLEN), 168);
		CU_ASSERT_EQUAL(rd16(b + O_IP + 4), 0);		/* id */
		CU_ASSERT_EQUAL(rd16(b + O_FRAG), 0x4000);	/* DF */
		CU_ASSERT_EQUAL(b[O_TTL], 64);
		CU_ASSERT_EQUAL(b[O_PROTO], 17);
		CU_ASSERT(memcmp(b + O_SIP, "\x0a\x00\x00\x01", 4) == 0);
		CU_ASSERT(memcmp(b + O_DIP, "\x0a\x00\x00\x02", 4) == 0);
		if (off == 0) {
			CU_ASSERT_EQUAL(ref_sum(b + O_IP, 20), 0xffff);
			CU_ASSERT_EQUAL(m->ol_flags & RTE_MBUF_F_TX_IP_CKSUM,
					0);
		} else {
			CU_ASSERT_EQUAL(rd16(b + O_IPSUM), 0);
			CU_ASSERT_EQUAL(m->ol_flags &
					(RTE_MBUF_F_TX_IPV4 |
					 RTE_MBUF_F_TX_IP_CKSUM),
					RTE_MBUF_F_TX_IPV4 |
					RTE_MBUF_F_TX_IP_CKSUM);
			CU_ASSERT_EQUAL(m->l2_len, 14);
			CU_ASSERT_EQUAL(m->l3_len, 20);
		}
		CU_ASSERT_EQUAL(rd16(b + O_UDP), 4000);
		CU_ASSERT_EQUAL(rd16(b + O_UDP + 2), UPORT);
		CU_ASSERT_EQUAL(rd16(b + O_UDPLEN), 148);
		CU_ASSERT_EQUAL(rd16(b + O_UDP + 6), 0);
		CU_ASSERT_EQUAL(b[O_VER], RDS_ETH_VERSION);
		CU_ASSERT_EQUAL(b[O_TYPE], RDS_ETH_F_DATA);
		CU_ASSERT_EQUAL(rd16(b + O_FLAGS), 6);
		CU_ASSERT_EQUAL(rd32(b + O_H + 4), 0x01020304);
		CU_ASSERT_EQUAL(rd32(b + O_H + 8), 0x05060708);
		CU_ASSERT_EQUAL(rd32(b + O_H + 12), 0x11121314);
		CU_ASSERT_EQUAL(rd32(b + O_H + 16), 0x21222324);
		CU_ASSERT_EQUAL(rd32(b + O_H + 20), 0x31323334);
		CU_ASSERT_EQUAL(rd32(b + O_H + 24), 0x35363738);
		CU_ASSERT_EQUAL(rd16(b + O_H + 28), 0x4142);
		CU_ASSERT_EQUAL(rd16(b + O_LEN), 100);
		CU_ASSERT_EQUAL(rd32(b + O_H + 32), 0x51525354);
		memcpy(tmp, b + O_H, sizeof(tmp));
		memset(tmp + 36, 0, 4);
		CU_ASSERT_EQUAL(rd32(b + O_CRC),
				ref_crc32c(0, tmp, sizeof(tmp)));
		rte_pktmbuf_free(m);
	}
	check_no_leak();
}

void
test_build_invalid(void)
{
	struct rds_eth_frame f;
	struct rte_mbuf *m;
	uint32_t ip = ip4("10.0.0.1");

	memset(&f, 0, sizeof(f));
	f.type = RDS_ETH_F_DATA;
	m = rte_pktmbuf_alloc(pool);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	/* Fewer than 82 bytes reserved. */
	rte_pktmbuf_append(m, RDS_ETH_HDRS - 1);
	CU_ASSERT_EQUAL(rds_eth_frame_build(m, &mac_a, &mac_b, ip, ip, 1, 2,
					    &f, false), -EINVAL);
	rte_pktmbuf_append(m, 1 + 10);
	/* Lengths disagree. */
	f.len = 9;
	CU_ASSERT_EQUAL(rds_eth_frame_build(m, &mac_a, &mac_b, ip, ip, 1, 2,
					    &f, false), -EINVAL);
	f.len = 11;
	CU_ASSERT_EQUAL(rds_eth_frame_build(m, &mac_a, &mac_b, ip, ip, 1, 2,
					    &f, false), -EINVAL);
	f.len = 10;
	CU_ASSERT_EQUAL(rds_eth_frame_build(m, &mac_a, &mac_b, ip, ip, 1, 2,
					    &f, false), 0);
	/* What parse would refuse. */
	f.type = 0;
	CU_ASSERT_EQUAL(rds_eth_frame_build(m, &mac_a, &mac_b, ip, ip, 1, 2,
					    &f, false), -EINVAL);
	f.type = RDS_ETH_F_ACK + 1;
	CU_ASSERT_EQUAL(rds_eth_frame_build(m, &mac_a, &mac_b, ip, ip, 1, 2,
					    &f, false), -EINVAL);
	f.type = RDS_ETH_F_ACK;
	CU_ASSERT_EQUAL(rds_eth_frame_build(m, &mac_a, &mac_b, ip, ip, 1, 2,
					    &f, false), -EINVAL);
	f.type = RDS_ETH_F_DATA;
	f.flags = 0x20;	/* the first unknown flag */
	CU_ASSERT_EQUAL(rds_eth_frame_build(m, &mac_a, &mac_b, ip, ip, 1, 2,
					    &f, false), -EINVAL);
	CU_ASSERT_EQUAL(rds_eth_frame_build(NULL, &mac_a, &mac_b, ip, ip, 1, 2,
					    &f, false), -EINVAL);
	rte_pktmbuf_free(m);
	check_no_leak();
}

/* The IPv4 header checksum that build computes from the fields that
 * vary is the one rte_ipv4_cksum computes over the header, for any
 * addresses and length; and the header sums to 0xffff. */
void
test_build_ip_cksum(void)
{
	uint64_t rs = 77;
	struct rds_eth_frame f;
	struct rte_ipv4_hdr ip;
	struct rte_mbuf *m;
	unsigned int i, bad = 0;
	uint32_t sip, dip;
	uint16_t len;

	memset(&f, 0, sizeof(f));
	f.type = RDS_ETH_F_DATA;
	for (i = 0; i < 2000; i++) {
		sip = (uint32_t)rds_test_rand(&rs);
		dip = i == 0 ? UINT32_MAX : (uint32_t)rds_test_rand(&rs);
		if (i == 1)
			sip = dip = 0;
		len = (uint16_t)(rds_test_rand(&rs) % 1400);
		m = rte_pktmbuf_alloc(pool);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		CU_ASSERT_PTR_NOT_NULL_FATAL(rte_pktmbuf_append(m,
					(uint16_t)(RDS_ETH_HDRS + len)));
		f.len = len;
		CU_ASSERT_EQUAL_FATAL(rds_eth_frame_build(m, &mac_a, &mac_b,
							  sip, dip, 1, 2, &f,
							  false), 0);
		memcpy(&ip, rte_pktmbuf_mtod_offset(m, void *,
						    RTE_ETHER_HDR_LEN),
		       sizeof(ip));
		if (rte_raw_cksum(&ip, sizeof(ip)) != 0xffff)
			bad++;
		ip.hdr_checksum = 0;
		if (rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *,
					    RTE_ETHER_HDR_LEN)->hdr_checksum !=
		    rte_ipv4_cksum(&ip))
			bad++;
		rte_pktmbuf_free(m);
	}
	CU_ASSERT_EQUAL(bad, 0);
	check_no_leak();
}

/* Build then parse, as mbuf and as a flat buffer. */
static void
roundtrip_one(struct rte_mempool *mp, uint16_t len, uint64_t *rs)
{
	struct rds_eth_frame f, g;
	struct rte_mbuf *m;
	uint8_t *b, *pay;
	uint32_t n;
	bool offload = rds_test_rand(rs) & 1;

	frame_fields(&f, rs, len);
	m = mk_frame(mp, &f, len * 31u + 5, offload);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	if (offload) {
		/* What the port would do on transmit. */
		b = rte_pktmbuf_mtod(m, uint8_t *);
		fix_ipsum(b);
	}
	memset(&g, 0xa5, sizeof(g));
	CU_ASSERT_EQUAL_FATAL(rds_eth_frame_parse(m, UPORT, &g),
			      RDS_ETH_DROP_NONE);
	CU_ASSERT(same_fields(&f, &g));
	CU_ASSERT(rte_is_same_ether_addr(&g.src_mac, &mac_a));
	CU_ASSERT_EQUAL(g.src_ip, ip4("10.0.0.1"));
	CU_ASSERT_EQUAL(g.dst_ip, ip4("10.0.0.2"));
	CU_ASSERT_EQUAL(g.src_port, 4000);
	CU_ASSERT_PTR_EQUAL(g.payload, rte_pktmbuf_mtod(m, uint8_t *) + O_PAY);
	pay = malloc(len + 1u);
	rds_test_fill(pay, len, len * 31u + 5);
	CU_ASSERT(memcmp(g.payload, pay, len) == 0);

	b = flat(m, &n);
	memset(&g, 0x5a, sizeof(g));
	CU_ASSERT_EQUAL(rds_eth_frame_parse_buf(b, n, UPORT, &g),
			RDS_ETH_DROP_NONE);
	CU_ASSERT(same_fields(&f, &g));
	CU_ASSERT_PTR_EQUAL(g.payload, b + O_PAY);
	CU_ASSERT(memcmp(g.payload, pay, len) == 0);
	free(pay);
	free(b);
	rte_pktmbuf_free(m);
}

void
test_roundtrip(void)
{
	uint64_t rs = 1;
	unsigned int len, i;

	for (len = 0; len <= 600; len++)
		roundtrip_one(pool, (uint16_t)len, &rs);
	for (len = 601; len <= 2048 - RDS_ETH_HDRS; len += 37)
		roundtrip_one(pool, (uint16_t)len, &rs);
	roundtrip_one(pool, 2048 - RDS_ETH_HDRS, &rs);
	for (len = 1400; len <= 10240 - RDS_ETH_HDRS; len += 613)
		roundtrip_one(bigpool, (uint16_t)len, &rs);
	roundtrip_one(bigpool, 10240 - RDS_ETH_HDRS, &rs);
	/* Every type and flag combination. */
	for (i = 0; i < 200; i++)
		roundtrip_one(pool, (uint16_t)(i % 3 == 0 ? 0 : i), &rs);
	check_no_leak();
}

/* A chain: headers in the first segment, the payload over several. */
void
test_chain(void)
{
	static const uint32_t lens[] = { 1, 400, 1000, 5000,
					 RDS_ETH_MAX_PAYLOAD };
	struct rds_eth_frame f, g;
	struct rte_mbuf *m, *s;
	unsigned int i;
	uint64_t rs = 99;
	uint32_t left, n, chunk, done;
	uint8_t *b, *pay, *d;

	for (i = 0; i < RTE_DIM(lens); i++) {
		frame_fields(&f, &rs, (uint16_t)lens[i]);
		pay = malloc(lens[i]);
		rds_test_fill(pay, lens[i], i);
		m = rte_pktmbuf_alloc(tinypool);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		CU_ASSERT_PTR_NOT_NULL(rte_pktmbuf_append(m, RDS_ETH_HDRS));
		left = lens[i];
		done = 0;
		while (left > 0) {
			s = rte_pktmbuf_alloc(tinypool);
			CU_ASSERT_PTR_NOT_NULL_FATAL(s);
			chunk = RTE_MIN(left, rte_pktmbuf_tailroom(s));
			d = (uint8_t *)rte_pktmbuf_append(s, (uint16_t)chunk);
			memcpy(d, pay + done, chunk);
			CU_ASSERT_EQUAL_FATAL(rte_pktmbuf_chain(m, s), 0);
			left -= chunk;
			done += chunk;
		}
		CU_ASSERT_EQUAL(rds_eth_frame_build(m, &mac_a, &mac_b,
						    ip4("10.0.0.1"),
						    ip4("10.0.0.2"), 7, UPORT,
						    &f, false), 0);
		/* parse refuses a chain; linearised, it is right. */
		CU_ASSERT_EQUAL(rds_eth_frame_parse(m, UPORT, &g),
				RDS_ETH_DROP_SHORT);
		b = flat(m, &n);
		CU_ASSERT_EQUAL(n, RDS_ETH_HDRS + lens[i]);
		CU_ASSERT_EQUAL(rds_eth_frame_parse_buf(b, n, UPORT, &g),
				RDS_ETH_DROP_NONE);
		CU_ASSERT(same_fields(&f, &g));
		CU_ASSERT(memcmp(g.payload, pay, lens[i]) == 0);
		free(b);
		free(pay);
		rte_pktmbuf_free(m);
	}
	check_no_leak();
}

/* A valid flat frame with plen bytes of payload (caller frees). */
static uint8_t *
good_frame(uint16_t plen, uint8_t type, uint32_t *n)
{
	struct rds_eth_frame f;
	struct rte_mbuf *m;
	uint64_t rs = plen + 17u;
	uint8_t *b;

	frame_fields(&f, &rs, plen);
	f.type = type;
	m = mk_frame(pool, &f, 3, false);
	if (m == NULL)
		abort();
	b = flat(m, n);
	rte_pktmbuf_free(m);
	return b;
}

/* Parse's check of the IPv4 checksum (its 20-byte headers summed as
 * 32-bit words) against an independent sum, on headers whose other
 * fields vary (TOS, ID, TTL, addresses) and whose checksum is right,
 * one off, or anything, so that every carry of the fold is taken. */
void
test_parse_ip_cksum(void)
{
	struct rds_eth_frame g;
	unsigned int i, ok = 0, bad = 0;
	uint64_t rs = 4242;
	uint32_t n;
	uint8_t *b, *ip;
	uint16_t ck;

	b = good_frame(30, RDS_ETH_F_DATA, &n);
	ip = b + O_IP;
	for (i = 0; i < 20000; i++) {
		ip[1] = (uint8_t)rds_test_rand(&rs);		/* TOS */
		wr16(ip + 4, (uint16_t)rds_test_rand(&rs));	/* ID */
		ip[8] = (uint8_t)rds_test_rand(&rs);		/* TTL */
		rds_test_fill(ip + 12, 8, rds_test_rand(&rs));	/* addresses */
		if (i % 7 == 0)
			memset(ip + 12, 0xff, 8);
		wr16(ip + 10, 0);
		ck = (uint16_t)~ref_sum(ip, 20);
		switch (i % 4) {
		case 0:
			break;
		case 1:
			ck ^= (uint16_t)(1u << (rds_test_rand(&rs) % 16));
			break;
		default:
			ck = (uint16_t)rds_test_rand(&rs);
			break;
		}
		wr16(ip + 10, ck);
		if (ref_sum(ip, 20) == 0xffff) {
			ok++;
			CU_ASSERT_EQUAL(parse_prefix(b, n, &g), RDS_ETH_DROP_NONE);
		} else {
			bad++;
			CU_ASSERT_EQUAL(parse_prefix(b, n, &g), RDS_ETH_DROP_IP);
		}
	}
	CU_ASSERT(ok >= 5000 && bad >= 10000);
	free(b);
}

void
test_truncated(void)
{
	struct rds_eth_frame g;
	struct rte_mbuf *m;
	uint32_t n, cut;
	uint8_t *b;
	uint16_t plen;

	for (plen = 0; plen <= 64; plen += 16) {
		b = good_frame(plen, plen == 0 ? RDS_ETH_F_ACK : RDS_ETH_F_DATA,
			       &n);
		CU_ASSERT_EQUAL(parse_prefix(b, n, &g), RDS_ETH_DROP_NONE);
		/* Cut at every byte: always too short, never read past. */
		for (cut = 0; cut < n; cut++)
			CU_ASSERT_EQUAL(parse_prefix(b, cut, &g),
					RDS_ETH_DROP_SHORT);
		/* The same through an mbuf. */
		for (cut = 0; cut < n; cut += 7) {
			m = rte_pktmbuf_alloc(pool);
			memcpy(rte_pktmbuf_append(m, (uint16_t)n), b, n);
			rte_pktmbuf_trim(m, (uint16_t)(n - cut));
			CU_ASSERT_EQUAL(rds_eth_frame_parse(m, UPORT, &g),
					RDS_ETH_DROP_SHORT);
			rte_pktmbuf_free(m);
		}
		free(b);
	}
	CU_ASSERT_EQUAL(rds_eth_frame_parse_buf(NULL, 0, UPORT, &g),
			RDS_ETH_DROP_SHORT);
	check_no_leak();
}

void
test_padding(void)
{
	struct rds_eth_frame g;
	uint8_t *b, *c;
	uint32_t n;

	/* Ethernet padding after the IP total length is ignored. */
	b = good_frame(3, RDS_ETH_F_DATA, &n);
	c = calloc(1, n + 40);
	memcpy(c, b, n);
	memset(c + n, 0xee, 40);
	CU_ASSERT_EQUAL(rds_eth_frame_parse_buf(c, n + 40, UPORT, &g),
			RDS_ETH_DROP_NONE);
	CU_ASSERT_EQUAL(g.len, 3);
	CU_ASSERT_PTR_EQUAL(g.payload, c + O_PAY);
	free(c);
	free(b);
}

void
test_not_ours(void)
{
	static const uint16_t types[] = { 0x0806, 0x8100, 0x88a8, 0x0000,
					  0xffff };
	struct rds_eth_frame g;
	unsigned int i;
	uint8_t *b;
	uint32_t n;

	b = good_frame(10, RDS_ETH_F_DATA, &n);
	for (i = 0; i < RTE_DIM(types); i++) {
		wr16(b + O_ETYPE, types[i]);
		CU_ASSERT_EQUAL(parse_prefix(b, n, &g), RDS_ETH_DROP_NOT_OURS);
	}
	/* The IPv6 ethertype: the IPv4 parse's NOT_OURS, and IPv6's
	 * (parse_buf takes both) finds version 4 in an IPv6 header. */
	wr16(b + O_ETYPE, 0x86dd);
	CU_ASSERT_EQUAL(parse_prefix(b, n, &g), RDS_ETH_DROP_IP);
	wr16(b + O_ETYPE, 0x0800);
	/* Another protocol (checksum right). */
	b[O_PROTO] = 6;
	fix_ipsum(b);
	CU_ASSERT_EQUAL(parse_prefix(b, n, &g), RDS_ETH_DROP_NOT_OURS);
	b[O_PROTO] = 17;
	fix_ipsum(b);
	CU_ASSERT_EQUAL(parse_prefix(b, n, &g), RDS_ETH_DROP_NONE);
	/* Another UDP port, or we listen on another. */
	wr16(b + O_UDP + 2, UPORT + 1);
	CU_ASSERT_EQUAL(parse_prefix(b, n, &g), RDS_ETH_DROP_NOT_OURS);
	CU_ASSERT_EQUAL(rds_eth_frame_parse_buf(b, n, UPORT + 1, &g),
			RDS_ETH_DROP_NONE);
	wr16(b + O_UDP + 2, UPORT);
	/* The destination address is the caller's to check: parse
	 * reports it. */
	memcpy(b + O_DIP, "\x0a\x09\x08\x07", 4);
	fix_ipsum(b);
	CU_ASSERT_EQUAL(parse_prefix(b, n, &g), RDS_ETH_DROP_NONE);
	CU_ASSERT_EQUAL(g.dst_ip, ip4("10.9.8.7"));
	free(b);
}

void
test_bad_ip(void)
{
	struct rds_eth_frame g;
	struct rte_mbuf *m;
	uint8_t *b, *c;
	uint32_t n;

	b = good_frame(20, RDS_ETH_F_DATA, &n);
	c = malloc(n + 8);
#define RESET() memcpy(c, b, n)
	/* Version. */
	RESET();
	c[O_IP] = 0x65;
	fix_ipsum(c);
	CU_ASSERT_EQUAL(parse_prefix(c, n, &g), RDS_ETH_DROP_IP);
	/* IHL below 5. */
	RESET();
	c[O_IP] = 0x44;
	CU_ASSERT_EQUAL(parse_prefix(c, n, &g), RDS_ETH_DROP_IP);
	c[O_IP] = 0x40;
	CU_ASSERT_EQUAL(parse_prefix(c, n, &g), RDS_ETH_DROP_IP);
	/* IHL past the frame. */
	RESET();
	c[O_IP] = 0x4f;
	CU_ASSERT_EQUAL(parse_prefix(c, 14 + 59, &g), RDS_ETH_DROP_SHORT);
	/* Total length below the header, beyond the frame. */
	RESET();
	wr16(c + O_IPLEN, 19);
	fix_ipsum(c);
	CU_ASSERT_EQUAL(parse_prefix(c, n, &g), RDS_ETH_DROP_IP);
	RESET();
	wr16(c + O_IPLEN, (uint16_t)(n - 14 + 1));
	fix_ipsum(c);
	CU_ASSERT_EQUAL(parse_prefix(c, n, &g), RDS_ETH_DROP_SHORT);
	/* Total length leaves no room for UDP. */
	RESET();
	wr16(c + O_IPLEN, 27);
	fix_ipsum(c);
	CU_ASSERT_EQUAL(parse_prefix(c, n, &g), RDS_ETH_DROP_SHORT);
	/* Fragments: more fragments, an offset. */
	RESET();
	wr16(c + O_FRAG, 0x2000);
	fix_ipsum(c);
	CU_ASSERT_EQUAL(parse_prefix(c, n, &g), RDS_ETH_DROP_IP);
	RESET();
	wr16(c + O_FRAG, 0x4001);
	fix_ipsum(c);
	CU_ASSERT_EQUAL(parse_prefix(c, n, &g), RDS_ETH_DROP_IP);
	RESET();
	wr16(c + O_FRAG, 0x0000);	/* DF clear: fine */
	fix_ipsum(c);
	CU_ASSERT_EQUAL(parse_prefix(c, n, &g), RDS_ETH_DROP_NONE);
	/* Checksum. */
	RESET();
	c[O_IPSUM] ^= 0x10;
	CU_ASSERT_EQUAL(parse_prefix(c, n, &g), RDS_ETH_DROP_IP);
	/* ... trusted when the port checked it, refused when it says bad. */
	m = rte_pktmbuf_alloc(pool);
	memcpy(rte_pktmbuf_append(m, (uint16_t)n), c, n);
	CU_ASSERT_EQUAL(rds_eth_frame_parse(m, UPORT, &g), RDS_ETH_DROP_IP);
	m->ol_flags |= RTE_MBUF_F_RX_IP_CKSUM_GOOD;
	CU_ASSERT_EQUAL(rds_eth_frame_parse(m, UPORT, &g), RDS_ETH_DROP_NONE);
	m->ol_flags &= ~RTE_MBUF_F_RX_IP_CKSUM_MASK;
	m->ol_flags |= RTE_MBUF_F_RX_IP_CKSUM_NONE;
	CU_ASSERT_EQUAL(rds_eth_frame_parse(m, UPORT, &g), RDS_ETH_DROP_NONE);
	memcpy(rte_pktmbuf_mtod(m, uint8_t *), b, n);
	m->ol_flags &= ~RTE_MBUF_F_RX_IP_CKSUM_MASK;
	CU_ASSERT_EQUAL(rds_eth_frame_parse(m, UPORT, &g), RDS_ETH_DROP_NONE);
	m->ol_flags |= RTE_MBUF_F_RX_IP_CKSUM_BAD;
	CU_ASSERT_EQUAL(rds_eth_frame_parse(m, UPORT, &g), RDS_ETH_DROP_IP);
	rte_pktmbuf_free(m);
#undef RESET
	free(c);

	/* IP options are skipped: IHL 7, 8 bytes of options. */
	c = malloc(n + 8);
	memcpy(c, b, O_IP + 20);
	memset(c + O_IP + 20, 0x01, 8);		/* NOPs */
	memcpy(c + O_IP + 28, b + O_UDP, n - O_UDP);
	c[O_IP] = 0x47;
	wr16(c + O_IPLEN, (uint16_t)(n - 14 + 8));
	fix_ipsum(c);
	CU_ASSERT_EQUAL(rds_eth_frame_parse_buf(c, n + 8, UPORT, &g),
			RDS_ETH_DROP_NONE);
	CU_ASSERT_EQUAL(g.len, 20);
	CU_ASSERT_PTR_EQUAL(g.payload, c + O_PAY + 8);
	CU_ASSERT(memcmp(g.payload, b + O_PAY, 20) == 0);
	free(c);
	free(b);
	check_no_leak();
}

void
test_bad_header(void)
{
	/* 1: the wire before the frame ACKs acknowledged RDS messages (a
	 * peer that would wait for RDS ACKs that never come). */
	static const uint8_t versions[] = { 0, 1, 2, 4, 0x81, 0xff };
	static const uint8_t types[] = { 0, 5, 6, 0x80, 0xff };
	static const uint16_t flags[] = { 0x20, 0x40, 0x100, 0x8000, 0xffff };
	struct rds_eth_frame g;
	unsigned int i;
	uint8_t *b, *c;
	uint32_t n;

	b = good_frame(30, RDS_ETH_F_DATA, &n);
	c = malloc(n);
	for (i = 0; i < RTE_DIM(versions); i++) {
		memcpy(c, b, n);
		c[O_VER] = versions[i];
		fix_crc(c + O_H, 30);
		CU_ASSERT_EQUAL(parse_prefix(c, n, &g), RDS_ETH_DROP_VERSION);
	}
	for (i = 0; i < RTE_DIM(types); i++) {
		memcpy(c, b, n);
		c[O_TYPE] = types[i];
		fix_crc(c + O_H, 30);
		CU_ASSERT_EQUAL(parse_prefix(c, n, &g), RDS_ETH_DROP_TYPE);
	}
	for (i = 0; i < RTE_DIM(flags); i++) {
		memcpy(c, b, n);
		wr16(c + O_FLAGS, flags[i]);
		fix_crc(c + O_H, 30);
		CU_ASSERT_EQUAL(parse_prefix(c, n, &g), RDS_ETH_DROP_TYPE);
	}
	/* Every known flag is fine, with the CRC right. */
	memcpy(c, b, n);
	wr16(c + O_FLAGS, RDS_ETH_FL_ALL);
	fix_crc(c + O_H, 30);
	CU_ASSERT_EQUAL(parse_prefix(c, n, &g), RDS_ETH_DROP_NONE);
	CU_ASSERT_EQUAL(g.flags, RDS_ETH_FL_ALL);
	/* Lengths: eth len one off either way, UDP length. */
	memcpy(c, b, n);
	wr16(c + O_LEN, 29);
	fix_crc(c + O_H, 30);
	CU_ASSERT_EQUAL(parse_prefix(c, n, &g), RDS_ETH_DROP_LEN);
	memcpy(c, b, n);
	wr16(c + O_LEN, 31);
	fix_crc(c + O_H, 30);
	CU_ASSERT_EQUAL(parse_prefix(c, n, &g), RDS_ETH_DROP_LEN);
	memcpy(c, b, n);
	wr16(c + O_UDPLEN, (uint16_t)(rd16(c + O_UDPLEN) - 1));
	CU_ASSERT_EQUAL(parse_prefix(c, n, &g), RDS_ETH_DROP_LEN);
	memcpy(c, b, n);
	wr16(c + O_UDPLEN, (uint16_t)(rd16(c + O_UDPLEN) + 1));
	CU_ASSERT_EQUAL(parse_prefix(c, n, &g), RDS_ETH_DROP_LEN);
	/* Too short for the eth header (lengths consistent). */
	memcpy(c, b, n);
	wr16(c + O_IPLEN, 20 + 8 + 39);
	wr16(c + O_UDPLEN, 8 + 39);
	fix_ipsum(c);
	CU_ASSERT_EQUAL(parse_prefix(c, n, &g), RDS_ETH_DROP_SHORT);
	/* An ACK with a payload (everything else consistent). */
	memcpy(c, b, n);
	c[O_TYPE] = RDS_ETH_F_ACK;
	fix_crc(c + O_H, 30);
	CU_ASSERT_EQUAL(parse_prefix(c, n, &g), RDS_ETH_DROP_LEN);
	free(c);
	free(b);
}

/* One bit flipped anywhere: refused, except where nothing covers it:
 * the MAC addresses, the UDP source port and the UDP checksum field
 * (not verified: the CRC32C covers the eth header and payload, the IPv4
 * checksum the IP header, the port check the UDP destination). */
void
test_bit_flips(void)
{
	struct rds_eth_frame g;
	unsigned int bit;
	uint32_t n, i;
	uint8_t *b, *c;
	enum rds_eth_drop r;

	b = good_frame(45, RDS_ETH_F_RDMA_REQ, &n);
	c = malloc(n);
	for (i = 0; i < n; i++) {
		for (bit = 0; bit < 8; bit++) {
			memcpy(c, b, n);
			c[i] ^= (uint8_t)(1u << bit);
			r = rds_eth_frame_parse_buf(c, n, UPORT, &g);
			if (i < 12 || i == O_UDP || i == O_UDP + 1 ||
			    i == O_UDP + 6 || i == O_UDP + 7) {
				/* Not covered: accepted with the field as
				 * it came. */
				CU_ASSERT_EQUAL(r, RDS_ETH_DROP_NONE);
				continue;
			}
			CU_ASSERT_NOT_EQUAL(r, RDS_ETH_DROP_NONE);
			if (r == RDS_ETH_DROP_NONE)
				printf("byte %u bit %u accepted\n", i, bit);
			/* In the eth header's plain fields and the payload
			 * it is the CRC that finds it. */
			if (i >= O_H + 4 && i < O_LEN) {
				CU_ASSERT_EQUAL(r, RDS_ETH_DROP_CRC);
			} else if (i >= O_LEN + 2) {
				CU_ASSERT_EQUAL(r, RDS_ETH_DROP_CRC);
			} else if (i == O_VER) {
				CU_ASSERT_EQUAL(r, RDS_ETH_DROP_VERSION);
			} else if (i >= O_LEN && i < O_LEN + 2) {
				CU_ASSERT_EQUAL(r, RDS_ETH_DROP_LEN);
			}
		}
	}
	free(c);
	free(b);
}

void
test_is_arp(void)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *b;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_FALSE(rds_eth_is_arp(m));
	b = (uint8_t *)rte_pktmbuf_append(m, 13);
	memset(b, 0, 13);
	b[12] = 0x08;
	CU_ASSERT_FALSE(rds_eth_is_arp(m));
	b = (uint8_t *)rte_pktmbuf_append(m, 1);
	b[0] = 0x06;
	CU_ASSERT_TRUE(rds_eth_is_arp(m));
	b[0] = 0x00;
	CU_ASSERT_FALSE(rds_eth_is_arp(m));
	rte_pktmbuf_free(m);
}

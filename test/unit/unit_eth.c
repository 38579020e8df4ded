/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the eth transport's stand-alone modules: the frame
 * layout (rds_eth_wire.c), the neighbour table and ARP (rds_eth_arp.c)
 * and fault injection (rds_eth_fault.c).
 *
 * This binary compiles those three files itself (rds_eth_sources) and
 * provides what they need of the rest of the transport: rds_eth_tx()
 * (frames are captured here), rds_eth_slot and rds_eth_logtype. It links
 * the public library only, whose internal symbols are hidden, so that
 * nothing clashes once the transport is in the library.
 *
 * Frames are checked against an independent encoding written here: byte
 * offsets, a bitwise CRC32C, an RFC 1071 sum.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <CUnit/CUnit.h>

#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_hash_crc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "rds_test.h"
#include "rds_eth.h"

/* ------------------------------------------------------------------ */
/* What the modules need of the rest of the transport. */

unsigned int rds_eth_slot;
int rds_eth_logtype;

#define CAP_MAX 256
static struct rte_mbuf *cap[CAP_MAX];
static unsigned int nb_cap;
static unsigned int cap_lost;

void
rds_eth_tx(struct rds_engine *e, struct rds_eth_port *p, struct rte_mbuf *m)
{
	RTE_SET_USED(e);
	RTE_SET_USED(p);
	if (nb_cap < CAP_MAX) {
		cap[nb_cap++] = m;
	} else {
		cap_lost++;
		rte_pktmbuf_free(m);
	}
}

static void
cap_clear(void)
{
	unsigned int i;

	for (i = 0; i < nb_cap; i++)
		rte_pktmbuf_free(cap[i]);
	nb_cap = 0;
}

/* ------------------------------------------------------------------ */
/* Fixtures */

#define POOL_N 4095
#define BIG_ROOM (10240 + RTE_PKTMBUF_HEADROOM)
#define UPORT RDS_ETH_UDP_PORT

static struct rte_mempool *pool;	/* 2 KiB of data */
static struct rte_mempool *bigpool;	/* 10 KiB */
static struct rte_mempool *tinypool;	/* 512 B: chains */

static const struct rte_ether_addr mac_a = {{ 0x02, 0, 0, 0, 0, 0x0a }};
static const struct rte_ether_addr mac_b = {{ 0x02, 0, 0, 0, 0, 0x0b }};
static const struct rte_ether_addr mac_c = {{ 0x02, 0, 0, 0, 0, 0x0c }};

static uint32_t
ip4(const char *s)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		abort();
	return a.s_addr;
}

static unsigned int
pool_free(struct rte_mempool *mp)
{
	return rte_mempool_avail_count(mp);
}

/* Every mbuf back in the pools. */
static void
check_no_leak(void)
{
	CU_ASSERT_EQUAL(pool_free(pool), POOL_N);
	CU_ASSERT_EQUAL(pool_free(bigpool), 63);
	CU_ASSERT_EQUAL(pool_free(tinypool), 1023);
}

/* ------------------------------------------------------------------ */
/* Independent encoding */

static uint32_t
ref_crc32c(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t i;
	int k;

	crc = ~crc;
	for (i = 0; i < len; i++) {
		crc ^= p[i];
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1)));
	}
	return ~crc;
}

static uint16_t
ref_sum(const uint8_t *p, size_t len)
{
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

static uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void
wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
wr32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Offsets in a frame without IP options. */
#define O_ETYPE 12
#define O_IP 14
#define O_IPLEN (O_IP + 2)
#define O_FRAG (O_IP + 6)
#define O_TTL (O_IP + 8)
#define O_PROTO (O_IP + 9)
#define O_IPSUM (O_IP + 10)
#define O_SIP (O_IP + 12)
#define O_DIP (O_IP + 16)
#define O_UDP 34
#define O_UDPLEN (O_UDP + 4)
#define O_H 42
#define O_VER (O_H + 0)
#define O_TYPE (O_H + 1)
#define O_FLAGS (O_H + 2)
#define O_LEN (O_H + 30)
#define O_CRC (O_H + 36)
#define O_PAY 82

/* The IPv4 checksum of the header at b + O_IP (IHL from it). */
static void
fix_ipsum(uint8_t *b)
{
	unsigned int hl = (b[O_IP] & 0xf) * 4u;

	wr16(b + O_IPSUM, 0);
	wr16(b + O_IPSUM, (uint16_t)~ref_sum(b + O_IP, hl));
}

/* The eth header's CRC (header at h, plen bytes of payload after it). */
static void
fix_crc(uint8_t *h, uint32_t plen)
{
	uint32_t crc;

	memset(h + 36, 0, 4);
	crc = ref_crc32c(0, h, RDS_ETH_HDR_SIZE + plen);
	wr32(h + 36, crc);
}

/* ------------------------------------------------------------------ */
/* Frames */

static void
frame_fields(struct rds_eth_frame *f, uint64_t *rs, uint16_t len)
{
	memset(f, 0, sizeof(*f));
	f->type = (uint8_t)rds_test_rand_range(rs, RDS_ETH_F_DATA,
					       RDS_ETH_F_RDMA_RESP);
	if (len == 0 && rds_test_rand(rs) % 4 == 0)
		f->type = RDS_ETH_F_ACK;
	f->flags = (uint16_t)(rds_test_rand(rs) & RDS_ETH_FL_ALL);
	f->src_epoch = (uint32_t)rds_test_rand(rs) | 1;
	f->dst_epoch = (uint32_t)rds_test_rand(rs);
	f->seq = (uint32_t)rds_test_rand(rs);
	f->ack = (uint32_t)rds_test_rand(rs);
	f->sack = rds_test_rand(rs);
	f->wnd = (uint16_t)rds_test_rand(rs);
	f->len = len;
	f->frag_off = (uint32_t)rds_test_rand(rs);
}

/* A frame from a (mac_a, 10.0.0.1:sport) to b (mac_b, 10.0.0.2:UPORT)
 * with len bytes of payload filled from key, in an mbuf of mp. */
static struct rte_mbuf *
mk_frame(struct rte_mempool *mp, const struct rds_eth_frame *f, uint64_t key,
	 bool offload)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	uint8_t *b;

	if (m == NULL)
		return NULL;
	if (rte_pktmbuf_append(m, RDS_ETH_HDRS) == NULL ||
	    (b = (uint8_t *)rte_pktmbuf_append(m, f->len)) == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	rds_test_fill(b, f->len, key);
	if (rds_eth_frame_build(m, &mac_a, &mac_b, ip4("10.0.0.1"),
				ip4("10.0.0.2"), 4000, UPORT, f,
				offload) != 0) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	return m;
}

/* A copy of m's bytes in a buffer of exactly its length (ASan sees a
 * read past it). */
static uint8_t *
flat(const struct rte_mbuf *m, uint32_t *len)
{
	uint8_t *b;
	const void *s;

	*len = rte_pktmbuf_pkt_len(m);
	b = malloc(*len != 0 ? *len : 1);
	if (b == NULL)
		abort();
	s = rte_pktmbuf_read(m, 0, *len, b);
	if (s != NULL && s != b)
		memcpy(b, s, *len);
	return b;
}

/* parse_buf of the first len bytes of b, in a buffer of exactly len. */
static enum rds_eth_drop
parse_prefix(const uint8_t *b, uint32_t len, struct rds_eth_frame *f)
{
	uint8_t *c = malloc(len != 0 ? len : 1);
	enum rds_eth_drop r;

	if (c == NULL)
		abort();
	memcpy(c, b, len);
	r = rds_eth_frame_parse_buf(c, len, UPORT, f);
	free(c);
	return r;
}

static bool
same_fields(const struct rds_eth_frame *a, const struct rds_eth_frame *b)
{
	return a->type == b->type && a->flags == b->flags &&
	       a->src_epoch == b->src_epoch && a->dst_epoch == b->dst_epoch &&
	       a->seq == b->seq && a->ack == b->ack && a->sack == b->sack &&
	       a->wnd == b->wnd && a->len == b->len &&
	       a->frag_off == b->frag_off;
}

/* ------------------------------------------------------------------ */
/* Wire */

static void
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

static void
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

static void
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
	f.flags = 0x10;
	CU_ASSERT_EQUAL(rds_eth_frame_build(m, &mac_a, &mac_b, ip, ip, 1, 2,
					    &f, false), -EINVAL);
	CU_ASSERT_EQUAL(rds_eth_frame_build(NULL, &mac_a, &mac_b, ip, ip, 1, 2,
					    &f, false), -EINVAL);
	rte_pktmbuf_free(m);
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

static void
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
static void
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

static void
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

static void
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

static void
test_not_ours(void)
{
	static const uint16_t types[] = { 0x0806, 0x8100, 0x88a8, 0x86dd,
					  0x0000, 0xffff };
	struct rds_eth_frame g;
	unsigned int i;
	uint8_t *b;
	uint32_t n;

	b = good_frame(10, RDS_ETH_F_DATA, &n);
	for (i = 0; i < RTE_DIM(types); i++) {
		wr16(b + O_ETYPE, types[i]);
		CU_ASSERT_EQUAL(parse_prefix(b, n, &g), RDS_ETH_DROP_NOT_OURS);
	}
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

static void
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

static void
test_bad_header(void)
{
	static const uint8_t versions[] = { 0, 2, 0x81, 0xff };
	static const uint8_t types[] = { 0, 5, 6, 0x80, 0xff };
	static const uint16_t flags[] = { 0x10, 0x20, 0x100, 0x8000, 0xffff };
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
static void
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

static void
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

/* ------------------------------------------------------------------ */
/* Neighbours and ARP */

static struct rds_engine *eng;
static struct rds_eth_engine eeng;
static struct rds_eth_port port;
static struct rds_laddr la[2];
static struct rds_eth_laddr ela[2];

static void
port_setup(unsigned int size)
{
	unsigned int i;

	memset(&eeng, 0, sizeof(eeng));
	eng->tp[rds_eth_slot] = &eeng;
	memset(&port, 0, sizeof(port));
	port.pool = pool;
	port.mac = mac_a;
	port.udp_port = UPORT;
	port.neigh = rds_eth_neigh_create(size);
	CU_ASSERT_PTR_NOT_NULL_FATAL(port.neigh);
	for (i = 0; i < 2; i++) {
		ela[i].port = &port;
		ela[i].ip = ip4(i == 0 ? "10.0.0.1" : "10.0.0.2");
		la[i].tp = &ela[i];
		port.laddrs[i] = &la[i];
	}
	port.nb_laddrs = 2;
	nb_cap = 0;
}

static void
port_teardown(void)
{
	cap_clear();
	rds_eth_neigh_free(port.neigh);
	port.neigh = NULL;
	check_no_leak();
}

/* An ARP frame, written byte by byte. */
static struct rte_mbuf *
mk_arp(uint16_t op, const struct rte_ether_addr *edst,
       const struct rte_ether_addr *sha, uint32_t sip,
       const struct rte_ether_addr *tha, uint32_t tip)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *b;

	if (m == NULL)
		abort();
	b = (uint8_t *)rte_pktmbuf_append(m, 60);
	if (b == NULL)
		abort();
	memset(b, 0, 60);
	memcpy(b, edst, 6);
	memcpy(b + 6, sha, 6);
	wr16(b + 12, 0x0806);
	wr16(b + 14, 1);
	wr16(b + 16, 0x0800);
	b[18] = 6;
	b[19] = 4;
	wr16(b + 20, op);
	memcpy(b + 22, sha, 6);
	memcpy(b + 28, &sip, 4);
	memcpy(b + 32, tha, 6);
	memcpy(b + 38, &tip, 4);
	return m;
}

static const struct rte_ether_addr bcast = {{ 0xff, 0xff, 0xff, 0xff, 0xff,
					      0xff }};
static const struct rte_ether_addr zmac;

/* Check a captured ARP frame. */
static void
check_arp(const struct rte_mbuf *m, uint16_t op,
	  const struct rte_ether_addr *edst, uint32_t sip,
	  const struct rte_ether_addr *tha, uint32_t tip)
{
	const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);

	CU_ASSERT_EQUAL(rte_pktmbuf_pkt_len(m), 60);
	CU_ASSERT(memcmp(b, edst, 6) == 0);
	CU_ASSERT(memcmp(b + 6, &mac_a, 6) == 0);
	CU_ASSERT_EQUAL(rd16(b + 12), 0x0806);
	CU_ASSERT_EQUAL(rd16(b + 14), 1);
	CU_ASSERT_EQUAL(rd16(b + 16), 0x0800);
	CU_ASSERT_EQUAL(b[18], 6);
	CU_ASSERT_EQUAL(b[19], 4);
	CU_ASSERT_EQUAL(rd16(b + 20), op);
	CU_ASSERT(memcmp(b + 22, &mac_a, 6) == 0);
	CU_ASSERT(memcmp(b + 28, &sip, 4) == 0);
	CU_ASSERT(memcmp(b + 32, tha, 6) == 0);
	CU_ASSERT(memcmp(b + 38, &tip, 4) == 0);
}

static void
test_arp_request_answered(void)
{
	struct rte_ether_addr mac;

	port_setup(16);
	/* For our second address: answered from it, sender learned. */
	rds_eth_arp_input(eng, &port, mk_arp(1, &bcast, &mac_b,
					     ip4("10.0.0.9"), &zmac,
					     ip4("10.0.0.2")));
	CU_ASSERT_EQUAL_FATAL(nb_cap, 1);
	check_arp(cap[0], 2, &mac_b, ip4("10.0.0.2"), &mac_b, ip4("10.0.0.9"));
	CU_ASSERT_EQUAL(eeng.stats.arp_rx, 1);
	CU_ASSERT_EQUAL(eeng.stats.arp_tx, 1);
	CU_ASSERT_EQUAL(rds_eth_neigh_lookup(port.neigh, ip4("10.0.0.9"), &mac),
			1);
	CU_ASSERT(rte_is_same_ether_addr(&mac, &mac_b));
	CU_ASSERT_EQUAL(rds_eth_neigh_resolve(eng, &port, ip4("10.0.0.1"),
					      ip4("10.0.0.9"), &mac), 0);
	CU_ASSERT(rte_is_same_ether_addr(&mac, &mac_b));
	CU_ASSERT_EQUAL(nb_cap, 1);
	cap_clear();

	/* For someone else: no answer, the sender not learned. */
	rds_eth_arp_input(eng, &port, mk_arp(1, &bcast, &mac_c,
					     ip4("10.0.0.10"), &zmac,
					     ip4("10.0.0.77")));
	CU_ASSERT_EQUAL(nb_cap, 0);
	CU_ASSERT_EQUAL(rds_eth_neigh_lookup(port.neigh, ip4("10.0.0.10"),
					     &mac), -ENOENT);
	CU_ASSERT_EQUAL(eeng.stats.arp_rx, 2);
	CU_ASSERT_EQUAL(eeng.stats.arp_tx, 1);

	/* A probe (sender 0.0.0.0) for us: answered to its MAC, nothing
	 * learned. */
	rds_eth_arp_input(eng, &port, mk_arp(1, &bcast, &mac_c, 0, &zmac,
					     ip4("10.0.0.1")));
	CU_ASSERT_EQUAL_FATAL(nb_cap, 1);
	check_arp(cap[0], 2, &mac_c, ip4("10.0.0.1"), &mac_c, 0);
	cap_clear();

	/* Our own request back (loopback port), or someone with one of our
	 * addresses: ignored. */
	rds_eth_arp_input(eng, &port, mk_arp(1, &bcast, &mac_a,
					     ip4("10.0.0.1"), &zmac,
					     ip4("10.0.0.2")));
	rds_eth_arp_input(eng, &port, mk_arp(1, &bcast, &mac_c,
					     ip4("10.0.0.1"), &zmac,
					     ip4("10.0.0.2")));
	CU_ASSERT_EQUAL(nb_cap, 0);
	CU_ASSERT_EQUAL(rds_eth_neigh_lookup(port.neigh, ip4("10.0.0.1"),
					     &mac), -ENOENT);
	port_teardown();
}

static void
test_arp_bad_frames(void)
{
	struct rte_mbuf *m;
	uint8_t *b;
	unsigned int i;

	port_setup(16);
	for (i = 0; i < 7; i++) {
		m = mk_arp(1, &bcast, &mac_b, ip4("10.0.0.9"), &zmac,
			   ip4("10.0.0.1"));
		b = rte_pktmbuf_mtod(m, uint8_t *);
		switch (i) {
		case 0: rte_pktmbuf_trim(m, 60 - 41); break;	/* short */
		case 1: wr16(b + 14, 6); break;			/* hrd */
		case 2: wr16(b + 16, 0x86dd); break;		/* pro */
		case 3: b[18] = 8; break;			/* hln */
		case 4: b[19] = 16; break;			/* pln */
		case 5: wr16(b + 20, 3); break;			/* op */
		case 6: wr16(b + 12, 0x0800); break;		/* not ARP */
		}
		rds_eth_arp_input(eng, &port, m);
	}
	CU_ASSERT_EQUAL(nb_cap, 0);
	CU_ASSERT_EQUAL(eeng.stats.arp_rx, 7);
	CU_ASSERT_EQUAL(eeng.stats.arp_tx, 0);
	CU_ASSERT_EQUAL(rds_eth_neigh_lookup(port.neigh, ip4("10.0.0.9"), NULL),
			-ENOENT);
	/* Exactly 42 bytes (no padding) is fine. */
	m = mk_arp(1, &bcast, &mac_b, ip4("10.0.0.9"), &zmac, ip4("10.0.0.1"));
	rte_pktmbuf_trim(m, 60 - 42);
	rds_eth_arp_input(eng, &port, m);
	CU_ASSERT_EQUAL(nb_cap, 1);
	port_teardown();
}

static void
test_arp_resolve_reply(void)
{
	struct rte_ether_addr mac;
	uint32_t peer = ip4("10.0.0.9");

	port_setup(16);
	/* Unknown: a broadcast request from the given source address. */
	CU_ASSERT_EQUAL(rds_eth_neigh_resolve(eng, &port, ip4("10.0.0.2"), peer,
					      &mac), -EAGAIN);
	CU_ASSERT_EQUAL_FATAL(nb_cap, 1);
	check_arp(cap[0], 1, &bcast, ip4("10.0.0.2"), &zmac, peer);
	CU_ASSERT_EQUAL(eeng.stats.arp_tx, 1);
	CU_ASSERT_EQUAL(rds_eth_neigh_lookup(port.neigh, peer, &mac), 0);
	cap_clear();
	/* An unsolicited reply from someone we have no entry for: not
	 * learned. */
	rds_eth_arp_input(eng, &port, mk_arp(2, &mac_a, &mac_c,
					     ip4("10.0.0.50"), &mac_a,
					     ip4("10.0.0.2")));
	CU_ASSERT_EQUAL(rds_eth_neigh_lookup(port.neigh, ip4("10.0.0.50"),
					     NULL), -ENOENT);
	/* The reply: resolved. */
	rds_eth_arp_input(eng, &port, mk_arp(2, &mac_a, &mac_b, peer, &mac_a,
					     ip4("10.0.0.2")));
	CU_ASSERT_EQUAL(nb_cap, 0);
	memset(&mac, 0, sizeof(mac));
	CU_ASSERT_EQUAL(rds_eth_neigh_resolve(eng, &port, ip4("10.0.0.2"), peer,
					      &mac), 0);
	CU_ASSERT(rte_is_same_ether_addr(&mac, &mac_b));
	CU_ASSERT_EQUAL(eeng.stats.neigh_changed, 0);
	/* Addresses that are not neighbours. */
	CU_ASSERT_EQUAL(rds_eth_neigh_resolve(eng, &port, ip4("10.0.0.2"), 0,
					      &mac), -EINVAL);
	CU_ASSERT_EQUAL(rds_eth_neigh_resolve(eng, &port, ip4("10.0.0.2"),
					      UINT32_MAX, &mac), -EINVAL);
	CU_ASSERT_EQUAL(nb_cap, 0);
	port_teardown();
}

static void
test_arp_mac_change(void)
{
	struct rte_ether_addr mac;
	uint32_t peer = ip4("10.0.0.9");

	port_setup(16);
	rds_eth_neigh_learn(eng, port.neigh, peer, &mac_b);
	CU_ASSERT_EQUAL(rds_eth_neigh_lookup(port.neigh, peer, &mac), 1);
	CU_ASSERT(rte_is_same_ether_addr(&mac, &mac_b));
	rds_eth_neigh_learn(eng, port.neigh, peer, &mac_b);
	CU_ASSERT_EQUAL(eeng.stats.neigh_changed, 0);
	/* A gratuitous ARP (request from the peer for itself) moves it. */
	rds_eth_arp_input(eng, &port, mk_arp(1, &bcast, &mac_c, peer, &zmac,
					     peer));
	CU_ASSERT_EQUAL(nb_cap, 0);
	CU_ASSERT_EQUAL(eeng.stats.neigh_changed, 1);
	CU_ASSERT_EQUAL(rds_eth_neigh_resolve(eng, &port, ip4("10.0.0.1"), peer,
					      &mac), 0);
	CU_ASSERT(rte_is_same_ether_addr(&mac, &mac_c));
	/* A frame from it at the old MAC: followed back. */
	rds_eth_neigh_learn(eng, port.neigh, peer, &mac_b);
	CU_ASSERT_EQUAL(eeng.stats.neigh_changed, 2);
	CU_ASSERT_EQUAL(rds_eth_neigh_resolve(eng, &port, ip4("10.0.0.1"), peer,
					      &mac), 0);
	CU_ASSERT(rte_is_same_ether_addr(&mac, &mac_b));
	/* Learning without an engine is not counted; nonsense is ignored. */
	rds_eth_neigh_learn(NULL, port.neigh, peer, &mac_c);
	CU_ASSERT_EQUAL(eeng.stats.neigh_changed, 2);
	rds_eth_neigh_learn(eng, port.neigh, peer, &bcast);
	rds_eth_neigh_learn(eng, port.neigh, peer, &zmac);
	rds_eth_neigh_learn(eng, port.neigh, 0, &mac_b);
	CU_ASSERT_EQUAL(rds_eth_neigh_lookup(port.neigh, peer, &mac), 1);
	CU_ASSERT(rte_is_same_ether_addr(&mac, &mac_c));
	/* learn() makes entries for new peers. */
	rds_eth_neigh_learn(eng, port.neigh, ip4("10.0.0.33"), &mac_b);
	CU_ASSERT_EQUAL(rds_eth_neigh_lookup(port.neigh, ip4("10.0.0.33"),
					     &mac), 1);
	CU_ASSERT_EQUAL(eeng.stats.neigh_changed, 2);
	port_teardown();
}

static void
test_arp_rate_limit(void)
{
	struct rte_ether_addr mac;
	uint32_t peer = ip4("10.0.0.9");
	uint64_t t0, t1, ms = rte_get_tsc_hz() / 1000;
	unsigned int i, calls = 0;

	port_setup(16);
	t0 = rte_get_tsc_cycles();
	CU_ASSERT_EQUAL(rds_eth_neigh_resolve(eng, &port, ip4("10.0.0.1"), peer,
					      &mac), -EAGAIN);
	t1 = rte_get_tsc_cycles();
	/* Calls for 80 ms: still the one request. */
	while (rte_get_tsc_cycles() - t0 < ms * 80) {
		CU_ASSERT_EQUAL(rds_eth_neigh_resolve(eng, &port,
						      ip4("10.0.0.1"), peer,
						      &mac), -EAGAIN);
		calls++;
		rte_delay_us_sleep(500);
	}
	CU_ASSERT(calls > 10);
	CU_ASSERT_EQUAL(nb_cap, 1);
	/* Another address has its own limit. */
	CU_ASSERT_EQUAL(rds_eth_neigh_resolve(eng, &port, ip4("10.0.0.1"),
					      ip4("10.0.0.8"), &mac), -EAGAIN);
	CU_ASSERT_EQUAL(nb_cap, 2);
	/* 100 ms after the first: the next one. */
	while (rte_get_tsc_cycles() - t1 < ms * 101)
		rte_delay_us_sleep(1000);
	for (i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(rds_eth_neigh_resolve(eng, &port,
						      ip4("10.0.0.1"), peer,
						      &mac), -EAGAIN);
	CU_ASSERT_EQUAL(nb_cap, 3);
	CU_ASSERT_EQUAL(eeng.stats.arp_tx, 3);
	check_arp(cap[2], 1, &bcast, ip4("10.0.0.1"), &zmac, peer);
	port_teardown();
}

static void
test_neigh_static(void)
{
	static const char *const bad[] = {
		"10.0.0.5", "10.0.0.5/", "/02:00:00:00:00:05",
		"10.0.0.5/02:00:00:00:00", "10.0.0.256/02:00:00:00:00:05",
		"10.0.0/02:00:00:00:00:05", "10.0.0.5/02:00:00:00:00:05+",
		"+10.0.0.5/02:00:00:00:00:05", "10.0.0.5/02:00:00:00:00:05++",
		"10.0.0.5/ff:ff:ff:ff:ff:ff", "10.0.0.5/01:00:5e:00:00:01",
		"10.0.0.5/00:00:00:00:00:00", "0.0.0.0/02:00:00:00:00:05",
		"255.255.255.255/02:00:00:00:00:05",
		"10.0.0.5/02:00:00:00:00:05 ", " 10.0.0.5/02:00:00:00:00:05",
		"10.0.0.5/02:00:00:00:00:05/x", "10.0.0.5 02:00:00:00:00:05",
		"10.0.0.5/02:00:00:00:00:0g", "10.0.0.5/02:00:00:00:00:005",
		"10.0.0.7/02:00:00:00:00:07+10.0.0.8",
		"10.0.0.1234567890123456789012345678901234567890123456789/"
		"02:00:00:00:00:05",
	};
	struct rte_ether_addr mac;
	struct rds_eth_neigh *n;
	unsigned int i;

	port_setup(16);
	for (i = 0; i < RTE_DIM(bad); i++) {
		CU_ASSERT_EQUAL(rds_eth_neigh_static(port.neigh, bad[i]),
				-EINVAL);
		if (rds_eth_neigh_static(port.neigh, bad[i]) != -EINVAL)
			printf("accepted: \"%s\"\n", bad[i]);
	}
	/* All or nothing: nothing of the bad specs went in. */
	CU_ASSERT_EQUAL(rds_eth_neigh_lookup(port.neigh, ip4("10.0.0.5"), NULL),
			-ENOENT);
	CU_ASSERT_EQUAL(rds_eth_neigh_lookup(port.neigh, ip4("10.0.0.7"), NULL),
			-ENOENT);
	CU_ASSERT_EQUAL(rds_eth_neigh_static(port.neigh, ""), 0);
	CU_ASSERT_EQUAL(rds_eth_neigh_static(port.neigh,
					     "10.0.0.5/02:00:00:00:00:0b+"
					     "10.0.0.6/0200:0000:000c"), 0);
	CU_ASSERT_EQUAL(rds_eth_neigh_resolve(eng, &port, ip4("10.0.0.1"),
					      ip4("10.0.0.5"), &mac), 0);
	CU_ASSERT(rte_is_same_ether_addr(&mac, &mac_b));
	CU_ASSERT_EQUAL(rds_eth_neigh_resolve(eng, &port, ip4("10.0.0.1"),
					      ip4("10.0.0.6"), &mac), 0);
	CU_ASSERT(rte_is_same_ether_addr(&mac, &mac_c));
	CU_ASSERT_EQUAL(nb_cap, 0);
	/* Static entries are not learned over (frames, ARP). */
	rds_eth_neigh_learn(eng, port.neigh, ip4("10.0.0.5"), &mac_c);
	rds_eth_arp_input(eng, &port, mk_arp(2, &mac_a, &mac_c, ip4("10.0.0.5"),
					     &mac_a, ip4("10.0.0.1")));
	CU_ASSERT_EQUAL(rds_eth_neigh_lookup(port.neigh, ip4("10.0.0.5"), &mac),
			1);
	CU_ASSERT(rte_is_same_ether_addr(&mac, &mac_b));
	CU_ASSERT_EQUAL(eeng.stats.neigh_changed, 0);
	/* A static entry replaces a learned one. */
	rds_eth_neigh_learn(eng, port.neigh, ip4("10.0.0.20"), &mac_b);
	CU_ASSERT_EQUAL(rds_eth_neigh_static(port.neigh,
					     "10.0.0.20/02:00:00:00:00:0c"), 0);
	CU_ASSERT_EQUAL(rds_eth_neigh_lookup(port.neigh, ip4("10.0.0.20"),
					     &mac), 1);
	CU_ASSERT(rte_is_same_ether_addr(&mac, &mac_c));
	port_teardown();

	/* A full table refuses, all or nothing. */
	n = rds_eth_neigh_create(2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(n);
	CU_ASSERT_EQUAL(rds_eth_neigh_static(n, "10.0.0.5/02:00:00:00:00:05+"
					     "10.0.0.6/02:00:00:00:00:06+"
					     "10.0.0.7/02:00:00:00:00:07"),
			-ENOSPC);
	CU_ASSERT_EQUAL(rds_eth_neigh_lookup(n, ip4("10.0.0.5"), NULL),
			-ENOENT);
	CU_ASSERT_EQUAL(rds_eth_neigh_static(n, "10.0.0.5/02:00:00:00:00:05+"
					     "10.0.0.6/02:00:00:00:00:06"), 0);
	/* Again (no new entries): fine. */
	CU_ASSERT_EQUAL(rds_eth_neigh_static(n, "10.0.0.5/02:00:00:00:00:05+"
					     "10.0.0.6/02:00:00:00:00:06"), 0);
	rds_eth_neigh_free(n);
}

static void
test_neigh_full(void)
{
	struct rte_ether_addr mac;
	char ip[32];
	unsigned int i;

	port_setup(8);
	for (i = 0; i < 8; i++) {
		snprintf(ip, sizeof(ip), "10.1.0.%u", i + 1);
		CU_ASSERT_EQUAL(rds_eth_neigh_resolve(eng, &port,
						      ip4("10.0.0.1"), ip4(ip),
						      &mac), -EAGAIN);
	}
	CU_ASSERT_EQUAL(rds_eth_neigh_resolve(eng, &port, ip4("10.0.0.1"),
					      ip4("10.1.1.1"), &mac), -ENOSPC);
	/* learn() of a new peer in a full table: nothing (no crash). */
	rds_eth_neigh_learn(eng, port.neigh, ip4("10.1.1.2"), &mac_b);
	CU_ASSERT_EQUAL(rds_eth_neigh_lookup(port.neigh, ip4("10.1.1.2"), NULL),
			-ENOENT);
	/* The entries there still resolve. */
	rds_eth_neigh_learn(eng, port.neigh, ip4("10.1.0.3"), &mac_b);
	CU_ASSERT_EQUAL(rds_eth_neigh_resolve(eng, &port, ip4("10.0.0.1"),
					      ip4("10.1.0.3"), &mac), 0);
	CU_ASSERT_EQUAL(nb_cap, 8);
	port_teardown();
}

/* Readers on one thread, a writer on another flipping MACs: a reader
 * sees one of the MACs written, whole, and nothing breaks. */
#define RACE_IPS 64
static volatile bool race_stop;

static struct rte_ether_addr
race_mac(unsigned int ip, unsigned int v)
{
	struct rte_ether_addr m = {{ 0x02, 0x10, 0, 0, 0, 0 }};

	m.addr_bytes[2] = (uint8_t)ip;
	m.addr_bytes[3] = (uint8_t)(v * 0x55);
	m.addr_bytes[4] = (uint8_t)(v * 0x55);
	m.addr_bytes[5] = (uint8_t)(v * 0x55);
	return m;
}

static void *
race_writer(void *arg)
{
	struct rds_eth_neigh *n = arg;
	struct rte_ether_addr m;
	unsigned int k = 0;

	while (!__atomic_load_n(&race_stop, __ATOMIC_RELAXED)) {
		m = race_mac(k % RACE_IPS, (k / RACE_IPS) & 1);
		rds_eth_neigh_learn(NULL, n, htonl(0x0a020000u + k % RACE_IPS),
				    &m);
		k++;
	}
	return NULL;
}

static void
test_neigh_concurrent(void)
{
	struct rte_ether_addr mac, m0, m1;
	uint64_t t0, reads = 0, bad = 0;
	unsigned int i;
	pthread_t th;
	int r;

	port_setup(RACE_IPS * 2);
	race_stop = false;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, race_writer,
					     port.neigh), 0);
	t0 = rte_get_tsc_cycles();
	while (rte_get_tsc_cycles() - t0 < rte_get_tsc_hz() / 5) {
		for (i = 0; i < RACE_IPS; i++) {
			r = rds_eth_neigh_lookup(port.neigh,
						 htonl(0x0a020000u + i), &mac);
			if (r != 1)
				continue;
			reads++;
			m0 = race_mac(i, 0);
			m1 = race_mac(i, 1);
			if (!rte_is_same_ether_addr(&mac, &m0) &&
			    !rte_is_same_ether_addr(&mac, &m1))
				bad++;
		}
	}
	__atomic_store_n(&race_stop, true, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	printf("(%" PRIu64 " reads) ", reads);
	CU_ASSERT(reads > 0);
	CU_ASSERT_EQUAL(bad, 0);
	port_teardown();
}

/* ------------------------------------------------------------------ */
/* Faults */

#define FSEQ_MAX 40000

/* A small frame carrying its number in its first 4 bytes. */
static struct rte_mbuf *
mk_seq(uint32_t seq)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *b;

	if (m == NULL)
		abort();
	b = (uint8_t *)rte_pktmbuf_append(m, 64);
	if (b == NULL)
		abort();
	memset(b, (int)(seq & 0xff), 64);
	memcpy(b, &seq, 4);
	return m;
}

static uint32_t
seq_of(const struct rte_mbuf *m)
{
	uint32_t s;

	memcpy(&s, rte_pktmbuf_mtod(m, const void *), 4);
	return s;
}

struct fault_run {
	uint32_t out[FSEQ_MAX * 2];	/* sequence of what came out */
	uint32_t nb_out;
	uint32_t count[FSEQ_MAX];	/* times each came out */
};

static struct fault_run run_a, run_b;

/* Push n frames through f in bursts of 32 (time now, fixed), then drain
 * with time far ahead. Everything that comes out is recorded and
 * freed. */
static void
fault_run(struct rds_eth_fault *f, uint32_t n, struct rte_rds_eth_stats *st,
	  struct fault_run *r)
{
	struct rte_mbuf *in[32], *out[64];
	uint64_t now = rte_get_tsc_cycles();
	uint32_t seq = 0, i, k;
	uint16_t got;

	memset(r, 0, sizeof(*r));
	while (seq < n || rds_eth_fault_held(f) != 0) {
		k = 0;
		while (k < 32 && seq < n)
			in[k++] = mk_seq(seq++);
		if (k == 0)
			now += rte_get_tsc_hz();	/* release everything */
		got = rds_eth_fault_apply(f, in, (uint16_t)k, out, 64, now, st);
		for (i = 0; i < got; i++) {
			uint32_t s = seq_of(out[i]);

			if (s < FSEQ_MAX)
				r->count[s]++;
			if (r->nb_out < RTE_DIM(r->out))
				r->out[r->nb_out++] = s;
			rte_pktmbuf_free(out[i]);
		}
	}
}

static bool
near(uint64_t got, double want, double tol)
{
	return got >= want * (1 - tol) && got <= want * (1 + tol);
}

static void
test_fault_zero(void)
{
	struct rte_rds_eth_faults cfg;
	struct rte_rds_eth_stats st;
	struct rte_mbuf *in[64], *out[64];
	struct rds_eth_fault *f = rds_eth_fault_create(1);
	uint16_t got, i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	memset(&st, 0, sizeof(st));
	memset(&cfg, 0, sizeof(cfg));
	cfg.seed = 42;
	cfg.reorder_depth = 4;
	cfg.delay_us = 100;
	rds_eth_fault_set(f, &cfg);
	for (i = 0; i < 64; i++)
		in[i] = mk_seq(i);
	/* Unchanged, in order, the same mbufs. */
	got = rds_eth_fault_apply(f, in, 64, out, 64, 0, &st);
	CU_ASSERT_EQUAL(got, 64);
	for (i = 0; i < got; i++)
		CU_ASSERT_PTR_EQUAL(out[i], in[i]);
	CU_ASSERT_EQUAL(rds_eth_fault_held(f), 0);
	/* No room for all: the rest comes next, in order. */
	got = rds_eth_fault_apply(f, out, 64, in, 40, 0, &st);
	CU_ASSERT_EQUAL(got, 40);
	CU_ASSERT_EQUAL(rds_eth_fault_held(f), 24);
	for (i = 0; i < 40; i++)
		CU_ASSERT_EQUAL(seq_of(in[i]), i);
	for (i = 0; i < 40; i++)
		rte_pktmbuf_free(in[i]);
	got = rds_eth_fault_apply(f, NULL, 0, in, 64, 0, &st);
	CU_ASSERT_EQUAL(got, 24);
	for (i = 0; i < got; i++) {
		CU_ASSERT_EQUAL(seq_of(in[i]), 40u + i);
		rte_pktmbuf_free(in[i]);
	}
	CU_ASSERT_EQUAL(st.fault_dropped + st.fault_duplicated +
			st.fault_reordered + st.fault_delayed +
			st.fault_corrupted, 0);
	/* NULL settings: off too. */
	rds_eth_fault_set(f, NULL);
	fault_run(f, 1000, &st, &run_a);
	CU_ASSERT_EQUAL(run_a.nb_out, 1000);
	for (i = 0; i < 1000; i++)
		CU_ASSERT_EQUAL(run_a.out[i], i);
	rds_eth_fault_free(f);
	check_no_leak();
}

static void
test_fault_drop(void)
{
	struct rte_rds_eth_faults cfg = { .drop_ppm = 100000, .seed = 7 };
	struct rte_rds_eth_stats st;
	struct rds_eth_fault *f = rds_eth_fault_create(0);
	uint32_t i, prev = 0, lost = 0;
	bool first = true;

	memset(&st, 0, sizeof(st));
	rds_eth_fault_set(f, &cfg);
	fault_run(f, 20000, &st, &run_a);
	printf("(dropped %" PRIu64 " of 20000) ", st.fault_dropped);
	CU_ASSERT(near(st.fault_dropped, 2000, 0.1));
	CU_ASSERT_EQUAL(run_a.nb_out + st.fault_dropped, 20000);
	/* The rest in order, once. */
	for (i = 0; i < run_a.nb_out; i++) {
		CU_ASSERT(first || run_a.out[i] > prev);
		prev = run_a.out[i];
		first = false;
	}
	for (i = 0; i < 20000; i++) {
		CU_ASSERT(run_a.count[i] <= 1);
		lost += run_a.count[i] == 0;
	}
	CU_ASSERT_EQUAL(lost, st.fault_dropped);
	/* Everything. */
	cfg.drop_ppm = 1000000;
	rds_eth_fault_set(f, &cfg);
	fault_run(f, 100, &st, &run_a);
	CU_ASSERT_EQUAL(run_a.nb_out, 0);
	rds_eth_fault_free(f);
	check_no_leak();
}

static void
test_fault_dup(void)
{
	struct rte_rds_eth_faults cfg = { .dup_ppm = 50000, .seed = 8 };
	struct rte_rds_eth_stats st;
	struct rds_eth_fault *f = rds_eth_fault_create(0);
	uint32_t i, twice = 0;

	memset(&st, 0, sizeof(st));
	rds_eth_fault_set(f, &cfg);
	fault_run(f, 20000, &st, &run_a);
	printf("(duplicated %" PRIu64 " of 20000) ", st.fault_duplicated);
	CU_ASSERT(near(st.fault_duplicated, 1000, 0.15));
	CU_ASSERT_EQUAL(run_a.nb_out, 20000 + st.fault_duplicated);
	for (i = 0; i < 20000; i++) {
		CU_ASSERT(run_a.count[i] == 1 || run_a.count[i] == 2);
		twice += run_a.count[i] == 2;
	}
	CU_ASSERT_EQUAL(twice, st.fault_duplicated);
	/* A duplicate right after its original: the order is kept. */
	for (i = 1; i < run_a.nb_out; i++)
		CU_ASSERT(run_a.out[i] >= run_a.out[i - 1]);
	rds_eth_fault_free(f);
	check_no_leak();
}

static void
test_fault_reorder(void)
{
	struct rte_rds_eth_faults cfg = { .reorder_ppm = 100000,
					  .reorder_depth = 3, .seed = 9 };
	struct rte_rds_eth_stats st;
	struct rds_eth_fault *f = rds_eth_fault_create(0);
	uint32_t i, j, later, inversions = 0, maxlater = 0;

	memset(&st, 0, sizeof(st));
	rds_eth_fault_set(f, &cfg);
	fault_run(f, 20000, &st, &run_a);
	printf("(reordered %" PRIu64 " of 20000) ", st.fault_reordered);
	CU_ASSERT(near(st.fault_reordered, 2000, 0.15));
	/* Every frame exactly once. */
	CU_ASSERT_EQUAL(run_a.nb_out, 20000);
	for (i = 0; i < 20000; i++)
		CU_ASSERT_EQUAL(run_a.count[i], 1);
	/* Each frame is passed by at most depth later ones. */
	for (i = 0; i < run_a.nb_out; i++) {
		later = 0;
		for (j = i >= 64 ? i - 64 : 0; j < i; j++)
			later += run_a.out[j] > run_a.out[i];
		if (later > maxlater)
			maxlater = later;
		inversions += later != 0;
	}
	CU_ASSERT(maxlater <= 3);
	CU_ASSERT(inversions > st.fault_reordered / 2);
	CU_ASSERT(inversions <= st.fault_reordered);

	/* Depth 1 at every frame: a delay line of one, in order. */
	cfg.reorder_ppm = 1000000;
	cfg.reorder_depth = 1;
	rds_eth_fault_set(f, &cfg);
	fault_run(f, 100, &st, &run_a);
	CU_ASSERT_EQUAL(run_a.nb_out, 100);
	for (i = 0; i < 100; i++) {
		CU_ASSERT_EQUAL(run_a.count[i], 1);
		CU_ASSERT_EQUAL(run_a.out[i], i);
	}
	rds_eth_fault_free(f);
	check_no_leak();
}

static void
test_fault_reorder_timeout(void)
{
	struct rte_rds_eth_faults cfg = { .reorder_ppm = 1000000,
					  .reorder_depth = 16 };
	struct rds_eth_fault *f = rds_eth_fault_create(0);
	struct rte_mbuf *in[1], *out[4];
	uint64_t now = 1000, hz = rte_get_tsc_hz();

	rds_eth_fault_set(f, &cfg);
	in[0] = mk_seq(5);
	CU_ASSERT_EQUAL(rds_eth_fault_apply(f, in, 1, out, 4, now, NULL), 0);
	CU_ASSERT_EQUAL(rds_eth_fault_apply(f, NULL, 0, out, 4,
					    now + hz / 2000, NULL), 0);
	/* No more traffic: out after 1 ms anyway. */
	CU_ASSERT_EQUAL(rds_eth_fault_apply(f, NULL, 0, out, 4,
					    now + hz / 1000, NULL), 1);
	CU_ASSERT_EQUAL(seq_of(out[0]), 5);
	rte_pktmbuf_free(out[0]);
	rds_eth_fault_free(f);
	check_no_leak();
}

static void
test_fault_delay(void)
{
	struct rte_rds_eth_faults cfg = { .delay_ppm = 1000000,
					  .delay_us = 200 };
	struct rte_rds_eth_stats st;
	struct rds_eth_fault *f = rds_eth_fault_create(0);
	struct rte_mbuf *in[10], *out[64];
	uint64_t hz = rte_get_tsc_hz(), t = 5 * hz, d = 200 * hz / 1000000;
	uint16_t got, i;

	memset(&st, 0, sizeof(st));
	rds_eth_fault_set(f, &cfg);
	for (i = 0; i < 10; i++)
		in[i] = mk_seq(i);
	CU_ASSERT_EQUAL(rds_eth_fault_apply(f, in, 10, out, 64, t, &st), 0);
	CU_ASSERT_EQUAL(st.fault_delayed, 10);
	CU_ASSERT_EQUAL(rds_eth_fault_held(f), 10);
	CU_ASSERT_EQUAL(rds_eth_fault_apply(f, NULL, 0, out, 64, t + d - 1,
					    &st), 0);
	/* At the time set, all of them, in order. */
	got = rds_eth_fault_apply(f, NULL, 0, out, 64, t + d, &st);
	CU_ASSERT_EQUAL(got, 10);
	for (i = 0; i < got; i++) {
		CU_ASSERT_EQUAL(seq_of(out[i]), i);
		rte_pktmbuf_free(out[i]);
	}
	CU_ASSERT_EQUAL(rds_eth_fault_held(f), 0);

	/* 10 %: counted, and every frame comes out once. */
	cfg.delay_ppm = 100000;
	cfg.seed = 11;
	rds_eth_fault_set(f, &cfg);
	memset(&st, 0, sizeof(st));
	fault_run(f, 20000, &st, &run_a);
	printf("(delayed %" PRIu64 " of 20000) ", st.fault_delayed);
	CU_ASSERT(near(st.fault_delayed, 2000, 0.15));
	CU_ASSERT_EQUAL(run_a.nb_out, 20000);
	for (i = 0; i < 20000 && i < FSEQ_MAX; i++)
		CU_ASSERT_EQUAL(run_a.count[i], 1);
	rds_eth_fault_free(f);
	check_no_leak();
}

static void
test_fault_corrupt(void)
{
	struct rte_rds_eth_faults cfg = { .corrupt_ppm = 1000000, .seed = 3 };
	struct rte_rds_eth_stats st;
	struct rds_eth_fault *f = rds_eth_fault_create(0);
	struct rds_eth_frame fr, g;
	struct rte_mbuf *m, *out[4];
	uint8_t *orig, *copy;
	uint32_t n, n2, i, diff, detected = 0, hdr_hits = 0;
	uint64_t rs = 5;
	unsigned int k;

	memset(&st, 0, sizeof(st));
	rds_eth_fault_set(f, &cfg);
	for (k = 0; k < 1000; k++) {
		frame_fields(&fr, &rs, (uint16_t)(k % 200));
		m = mk_frame(pool, &fr, k, false);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		m->ol_flags |= RTE_MBUF_F_RX_IP_CKSUM_GOOD;
		orig = flat(m, &n);
		/* The original is shared: we keep a reference. */
		rte_mbuf_refcnt_update(m, 1);
		CU_ASSERT_EQUAL_FATAL(rds_eth_fault_apply(f, &m, 1, out, 4, 0,
							  &st), 1);
		CU_ASSERT(out[0] != m);
		copy = flat(out[0], &n2);
		CU_ASSERT_EQUAL(n2, n);
		diff = 0;
		for (i = 0; i < n; i++) {
			if (copy[i] != orig[i]) {
				diff++;
				hdr_hits += i < O_PAY;
			}
		}
		CU_ASSERT_EQUAL(diff, 1);
		/* The receive checksum flags are gone from the copy. */
		CU_ASSERT_EQUAL(out[0]->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK,
				0);
		detected += rds_eth_frame_parse(out[0], UPORT, &g) !=
			    RDS_ETH_DROP_NONE;
		free(copy);
		/* The original is untouched, and ours alone again. */
		copy = flat(m, &n2);
		CU_ASSERT(memcmp(copy, orig, n) == 0);
		CU_ASSERT_EQUAL(rte_mbuf_refcnt_read(m), 1);
		free(copy);
		free(orig);
		rte_pktmbuf_free(m);
		rte_pktmbuf_free(out[0]);
	}
	printf("(1000 corrupted, %u refused by parse, %u in headers) ",
	       detected, hdr_hits);
	CU_ASSERT_EQUAL(st.fault_corrupted, 1000);
	CU_ASSERT(hdr_hits > 100);
	/* Undetected: only the 14 bytes that nothing covers. */
	CU_ASSERT(detected > 850);
	rds_eth_fault_free(f);
	check_no_leak();
}

static void
test_fault_reproducible(void)
{
	struct rte_rds_eth_faults cfg = { .drop_ppm = 20000, .dup_ppm = 20000,
					  .reorder_ppm = 30000,
					  .reorder_depth = 5,
					  .delay_ppm = 10000, .delay_us = 50,
					  .corrupt_ppm = 0, .seed = 1234 };
	struct rte_rds_eth_stats s1, s2;
	struct rds_eth_fault *f1 = rds_eth_fault_create(3);
	struct rds_eth_fault *f2 = rds_eth_fault_create(3);
	uint32_t i;

	memset(&s1, 0, sizeof(s1));
	memset(&s2, 0, sizeof(s2));
	rds_eth_fault_set(f1, &cfg);
	rds_eth_fault_set(f2, &cfg);
	fault_run(f1, 10000, &s1, &run_a);
	fault_run(f2, 10000, &s2, &run_b);
	CU_ASSERT(memcmp(&s1, &s2, sizeof(s1)) == 0);
	CU_ASSERT_EQUAL(run_a.nb_out, run_b.nb_out);
	CU_ASSERT(memcmp(run_a.out, run_b.out,
			 sizeof(run_a.out[0]) * run_a.nb_out) == 0);
	CU_ASSERT(s1.fault_dropped > 0 && s1.fault_duplicated > 0 &&
		  s1.fault_reordered > 0 && s1.fault_delayed > 0);
	/* Setting it again restarts the stream. */
	rds_eth_fault_set(f1, &cfg);
	memset(&s1, 0, sizeof(s1));
	fault_run(f1, 10000, &s1, &run_b);
	CU_ASSERT(memcmp(&s1, &s2, sizeof(s1)) == 0);
	CU_ASSERT(memcmp(run_a.out, run_b.out,
			 sizeof(run_a.out[0]) * run_a.nb_out) == 0);
	/* Another salt (engine), or seed: another stream. */
	rds_eth_fault_free(f2);
	f2 = rds_eth_fault_create(4);
	rds_eth_fault_set(f2, &cfg);
	memset(&s2, 0, sizeof(s2));
	fault_run(f2, 10000, &s2, &run_b);
	CU_ASSERT(run_a.nb_out != run_b.nb_out ||
		  memcmp(run_a.out, run_b.out,
			 sizeof(run_a.out[0]) * run_a.nb_out) != 0);
	/* Every frame not dropped came out (dups aside). */
	for (i = 0; i < 10000; i++)
		CU_ASSERT(run_b.count[i] <= 2);
	rds_eth_fault_free(f1);
	rds_eth_fault_free(f2);
	check_no_leak();
}

static void
test_fault_flush(void)
{
	struct rte_rds_eth_faults cfg = { .reorder_ppm = 500000,
					  .reorder_depth = 16,
					  .delay_ppm = 500000,
					  .delay_us = 1000000 };
	struct rds_eth_fault *f = rds_eth_fault_create(0);
	struct rte_mbuf *in[32], *out[2];
	uint16_t i, got;

	rds_eth_fault_set(f, &cfg);
	for (i = 0; i < 32; i++)
		in[i] = mk_seq(i);
	got = rds_eth_fault_apply(f, in, 32, out, 2, 0, NULL);
	for (i = 0; i < got; i++)
		rte_pktmbuf_free(out[i]);
	CU_ASSERT(rds_eth_fault_held(f) > 0);
	CU_ASSERT(pool_free(pool) < POOL_N);
	rds_eth_fault_flush(f);
	CU_ASSERT_EQUAL(rds_eth_fault_held(f), 0);
	check_no_leak();
	/* free() flushes too. */
	for (i = 0; i < 32; i++)
		in[i] = mk_seq(i);
	got = rds_eth_fault_apply(f, in, 32, out, 2, 0, NULL);
	for (i = 0; i < got; i++)
		rte_pktmbuf_free(out[i]);
	rds_eth_fault_free(f);
	rds_eth_fault_free(NULL);
	check_no_leak();
}

/* Everything at once on real frames, with little room in out[]. */
static void
test_fault_all(void)
{
	struct rte_rds_eth_faults cfg = { .drop_ppm = 50000, .dup_ppm = 50000,
					  .reorder_ppm = 50000,
					  .reorder_depth = 16,
					  .delay_ppm = 50000, .delay_us = 10,
					  .corrupt_ppm = 50000, .seed = 77 };
	struct rte_rds_eth_stats st;
	struct rds_eth_fault *f = rds_eth_fault_create(9);
	struct rds_eth_frame fr, g;
	struct rte_mbuf *in[16], *out[5];
	uint64_t rs = 1, now = 0;
	uint32_t good = 0, bad = 0, sent = 0;
	uint16_t i, k, got;

	memset(&st, 0, sizeof(st));
	rds_eth_fault_set(f, &cfg);
	while (sent < 5000 || rds_eth_fault_held(f) != 0) {
		k = 0;
		while (k < 16 && sent < 5000) {
			frame_fields(&fr, &rs, (uint16_t)(sent % 300));
			in[k] = mk_frame(pool, &fr, sent, false);
			CU_ASSERT_PTR_NOT_NULL_FATAL(in[k]);
			k++;
			sent++;
		}
		now += rte_get_tsc_hz() / 100000;
		got = rds_eth_fault_apply(f, in, k, out, 5, now, &st);
		for (i = 0; i < got; i++) {
			if (rds_eth_frame_parse(out[i], UPORT, &g) ==
			    RDS_ETH_DROP_NONE)
				good++;
			else
				bad++;
			rte_pktmbuf_free(out[i]);
		}
	}
	printf("(%u good, %u refused; drop %" PRIu64 " dup %" PRIu64
	       " reorder %" PRIu64 " delay %" PRIu64 " corrupt %" PRIu64 ") ",
	       good, bad, st.fault_dropped, st.fault_duplicated,
	       st.fault_reordered, st.fault_delayed, st.fault_corrupted);
	CU_ASSERT_EQUAL(good + bad, 5000 - st.fault_dropped +
			st.fault_duplicated);
	CU_ASSERT(bad <= st.fault_corrupted * 2);
	rds_eth_fault_free(f);
	check_no_leak();
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "crc_vector", test_crc_vector },
		{ "build_layout", test_build_layout },
		{ "build_invalid", test_build_invalid },
		{ "roundtrip", test_roundtrip },
		{ "chain", test_chain },
		{ "truncated", test_truncated },
		{ "padding", test_padding },
		{ "not_ours", test_not_ours },
		{ "bad_ip", test_bad_ip },
		{ "bad_header", test_bad_header },
		{ "bit_flips", test_bit_flips },
		{ "is_arp", test_is_arp },
		{ "arp_request_answered", test_arp_request_answered },
		{ "arp_bad_frames", test_arp_bad_frames },
		{ "arp_resolve_reply", test_arp_resolve_reply },
		{ "arp_mac_change", test_arp_mac_change },
		{ "arp_rate_limit", test_arp_rate_limit },
		{ "neigh_static", test_neigh_static },
		{ "neigh_full", test_neigh_full },
		{ "neigh_concurrent", test_neigh_concurrent },
		{ "fault_zero", test_fault_zero },
		{ "fault_drop", test_fault_drop },
		{ "fault_dup", test_fault_dup },
		{ "fault_reorder", test_fault_reorder },
		{ "fault_reorder_timeout", test_fault_reorder_timeout },
		{ "fault_delay", test_fault_delay },
		{ "fault_corrupt", test_fault_corrupt },
		{ "fault_reproducible", test_fault_reproducible },
		{ "fault_flush", test_fault_flush },
		{ "fault_all", test_fault_all },
		{ NULL, NULL },
	};
	int rc;

	rds_test_eal_init("unit_eth", "0");
	rds_eth_logtype = rte_log_register_type_and_pick_level("rds.eth",
							       RTE_LOG_NOTICE);
	pool = rte_pktmbuf_pool_create("ueth", POOL_N, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	bigpool = rte_pktmbuf_pool_create("ueth_big", 63, 0, 0, BIG_ROOM,
					  SOCKET_ID_ANY);
	tinypool = rte_pktmbuf_pool_create("ueth_tiny", 1023, 0, 0,
					   512 + RTE_PKTMBUF_HEADROOM,
					   SOCKET_ID_ANY);
	eng = aligned_alloc(RTE_CACHE_LINE_SIZE,
			    RTE_ALIGN_CEIL(sizeof(*eng), RTE_CACHE_LINE_SIZE));
	if (eng != NULL)
		memset(eng, 0, sizeof(*eng));
	if (pool == NULL || bigpool == NULL || tinypool == NULL ||
	    eng == NULL) {
		fprintf(stderr, "mbuf pools: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	rc = rds_test_run_suite("eth", cases);
	free(eng);
	rte_mempool_free(pool);
	rte_mempool_free(bigpool);
	rte_mempool_free(tinypool);
	rds_test_eal_fini();
	return rc;
}

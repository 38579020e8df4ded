/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the eth transport's stand-alone modules: the frame
 * layout (rds_eth_wire.c; tests in unit_eth_wire.c), its CRC32C
 * (rds_eth_crc.c; unit_eth_crc.c), the neighbour table
 * and ARP (rds_eth_arp.c; unit_eth_arp.c), the IPv6 frame layout and
 * neighbour discovery (rds_eth_wire.c, rds_eth_nd.c; unit_eth_v6.c)
 * and fault injection
 * (rds_eth_fault.c; unit_eth_fault.c), the congestion window
 * (rds_eth_cc.h; unit_eth_cc.c). This file: what they share, and
 * main().
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
#include "unit_eth.h"

/* ------------------------------------------------------------------ */
/* What the modules need of the rest of the transport. */

unsigned int rds_eth_slot;
int rds_eth_logtype;

#define CAP_MAX 256
struct rte_mbuf *cap[CAP_MAX];
unsigned int nb_cap;
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

void
cap_clear(void)
{
	unsigned int i;

	for (i = 0; i < nb_cap; i++)
		rte_pktmbuf_free(cap[i]);
	nb_cap = 0;
}

/* ------------------------------------------------------------------ */
/* Fixtures */

#define BIG_ROOM (10240 + RTE_PKTMBUF_HEADROOM)

struct rte_mempool *pool;	/* 2 KiB of data */
struct rte_mempool *bigpool;	/* 10 KiB */
struct rte_mempool *tinypool;	/* 512 B: chains */

const struct rte_ether_addr mac_a = {{ 0x02, 0, 0, 0, 0, 0x0a }};
const struct rte_ether_addr mac_b = {{ 0x02, 0, 0, 0, 0, 0x0b }};
const struct rte_ether_addr mac_c = {{ 0x02, 0, 0, 0, 0, 0x0c }};

uint32_t
ip4(const char *s)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		abort();
	return a.s_addr;
}

unsigned int
pool_free(struct rte_mempool *mp)
{
	return rte_mempool_avail_count(mp);
}

/* Every mbuf back in the pools. */
void
check_no_leak(void)
{
	CU_ASSERT_EQUAL(pool_free(pool), POOL_N);
	CU_ASSERT_EQUAL(pool_free(bigpool), 63);
	CU_ASSERT_EQUAL(pool_free(tinypool), 1023);
}

/* ------------------------------------------------------------------ */
/* Independent encoding */

uint32_t
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

uint16_t
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

uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

uint32_t
rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

void
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


/* The IPv4 checksum of the header at b + O_IP (IHL from it). */
void
fix_ipsum(uint8_t *b)
{
	unsigned int hl = (b[O_IP] & 0xf) * 4u;

	wr16(b + O_IPSUM, 0);
	wr16(b + O_IPSUM, (uint16_t)~ref_sum(b + O_IP, hl));
}

/* The eth header's CRC (header at h, plen bytes of payload after it). */
void
fix_crc(uint8_t *h, uint32_t plen)
{
	uint32_t crc;

	memset(h + 36, 0, 4);
	crc = ref_crc32c(0, h, RDS_ETH_HDR_SIZE + plen);
	wr32(h + 36, crc);
}

/* ------------------------------------------------------------------ */
/* Frames */

void
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
struct rte_mbuf *
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
uint8_t *
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
enum rds_eth_drop
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

bool
same_fields(const struct rds_eth_frame *a, const struct rds_eth_frame *b)
{
	return a->type == b->type && a->flags == b->flags &&
	       a->src_epoch == b->src_epoch && a->dst_epoch == b->dst_epoch &&
	       a->seq == b->seq && a->ack == b->ack && a->sack == b->sack &&
	       a->wnd == b->wnd && a->len == b->len &&
	       a->frag_off == b->frag_off;
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "crc_vector", test_crc_vector },
		{ "crc_known", test_crc_known },
		{ "crc_dispatch", test_crc_dispatch },
		{ "crc_interleaved", test_crc_interleaved },
		{ "crc_fallback", test_crc_fallback },
		{ "crc_reparse", test_crc_reparse },
		{ "build_layout", test_build_layout },
		{ "build_invalid", test_build_invalid },
		{ "build_ip_cksum", test_build_ip_cksum },
		{ "parse_ip_cksum", test_parse_ip_cksum },
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
		{ "v6_build_layout", test_v6_build_layout },
		{ "v6_roundtrip", test_v6_roundtrip },
		{ "v6_bad", test_v6_bad },
		{ "nd_solicit_answered", test_nd_solicit_answered },
		{ "nd_resolve", test_nd_resolve },
		{ "nd_options", test_nd_options },
		{ "nd_ignored", test_nd_ignored },
		{ "nd_static_learn", test_nd_static_learn },
		{ "nd_arp_zero", test_nd_arp_zero },
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
		{ "cc_slow_start", test_cc_slow_start },
		{ "cc_loss_once", test_cc_loss_once },
		{ "cc_timeout", test_cc_timeout },
		{ "cc_off", test_cc_off },
		{ "cc_delay", test_cc_delay },
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

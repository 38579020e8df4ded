/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unit_eth: CRC32C (rds_eth_crc.c). The interleaved code against the
 * serial one (the code the transport had before, still there as the
 * fallback) and against the bitwise reference of unit_eth.c, for every
 * length 0..4096, random lengths up to 64 KiB, every alignment 0..15,
 * seeded random data and initial values; the serial code through
 * rte_hash_crc's table code too (what a CPU without the instructions
 * runs).
 */

#include "unit_eth.h"

#define CRC_SEED 0x5eedc4c3ull
#define CRC_BUF (65536 + 16)
#define CRC_ALIGN 16

/* Does this CPU have what the interleaved code needs? Asked here
 * independently of rds_eth_crc.c (the compiler's own cpuid). */
static bool
cpu_has_fast(void)
{
#if defined(RTE_ARCH_X86_64)
	return __builtin_cpu_supports("sse4.2") &&
	       __builtin_cpu_supports("pclmul");
#else
	return false;
#endif
}

static uint8_t *
crc_buf(uint64_t *rs)
{
	uint8_t *b = malloc(CRC_BUF);
	uint32_t i;

	if (b == NULL)
		abort();
	for (i = 0; i < CRC_BUF; i++)
		b[i] = (uint8_t)rds_test_rand(rs);
	return b;
}

/* The standard CRC32C, from the update under test. */
static uint32_t
std_crc(const void *p, uint32_t len)
{
	return ~rds_eth_crc_update(UINT32_MAX, p, len);
}

void
test_crc_known(void)
{
	static const char s[] = "123456789";
	uint8_t b[48], big[4096];
	uint32_t i;
	int impl, table;

	/* RFC 3720 B.4 vectors (32 bytes) and the check value, with both
	 * implementations and both serial back-ends; 4096 bytes of zeros
	 * and of 0xff against the bitwise code (long enough for three
	 * chains). */
	for (impl = RDS_ETH_CRC_SERIAL; impl <= RDS_ETH_CRC_INTERLEAVED;
	     impl++) {
		for (table = 0; table <= 1; table++) {
			if (rds_eth_crc_impl_set(impl, table) != 0) {
				CU_ASSERT_FALSE(cpu_has_fast());
				printf("\n  no SSE4.2+PCLMULQDQ: interleaved "
				       "CRC32C not tested ");
				continue;
			}
			CU_ASSERT_EQUAL(std_crc(s, 9), 0xe3069283u);
			memset(b, 0, 32);
			CU_ASSERT_EQUAL(std_crc(b, 32), 0x8a9136aau);
			memset(b, 0xff, 32);
			CU_ASSERT_EQUAL(std_crc(b, 32), 0x62a8ab43u);
			for (i = 0; i < 32; i++)
				b[i] = (uint8_t)i;
			CU_ASSERT_EQUAL(std_crc(b, 32), 0x46dd794eu);
			memset(big, 0, sizeof(big));
			CU_ASSERT_EQUAL(std_crc(big, sizeof(big)),
					ref_crc32c(0, big, sizeof(big)));
			memset(big, 0xff, sizeof(big));
			CU_ASSERT_EQUAL(std_crc(big, sizeof(big)),
					ref_crc32c(0, big, sizeof(big)));
		}
	}
	CU_ASSERT_EQUAL(rds_eth_crc_impl_set(RDS_ETH_CRC_INTERLEAVED + 1,
					     false), -EINVAL);
	rds_eth_crc_impl_set(cpu_has_fast() ? RDS_ETH_CRC_INTERLEAVED :
			     RDS_ETH_CRC_SERIAL, false);
}

/* Where the CPU has the instructions, the transport uses them from the
 * start (a build that lost the dispatch would fail here). */
void
test_crc_dispatch(void)
{
	if (!cpu_has_fast()) {
		printf("\n  no SSE4.2+PCLMULQDQ on this CPU: serial only ");
		CU_ASSERT_EQUAL(rds_eth_crc_impl_get(), RDS_ETH_CRC_SERIAL);
		CU_ASSERT_EQUAL(rds_eth_crc_impl_set(RDS_ETH_CRC_INTERLEAVED,
						     false), -ENOTSUP);
		return;
	}
	CU_ASSERT_EQUAL(rds_eth_crc_impl_get(), RDS_ETH_CRC_INTERLEAVED);
	CU_ASSERT_EQUAL(rds_eth_crc_impl_set(RDS_ETH_CRC_SERIAL, false), 0);
	CU_ASSERT_EQUAL(rds_eth_crc_impl_get(), RDS_ETH_CRC_SERIAL);
	CU_ASSERT_EQUAL(rds_eth_crc_impl_set(RDS_ETH_CRC_INTERLEAVED, false),
			0);
	CU_ASSERT_EQUAL(rds_eth_crc_impl_get(), RDS_ETH_CRC_INTERLEAVED);
}

/* One length at every alignment: the update under test (impl as set)
 * against the serial code, from a random initial value. Returns the
 * number of mismatches. */
static unsigned int
crc_cmp_len(const uint8_t *b, uint32_t len, uint64_t *rs, bool bitwise)
{
	static unsigned int shown;	/* mismatches printed */
	unsigned int bad = 0, a;
	uint32_t init, got, want;

	for (a = 0; a < CRC_ALIGN; a++) {
		init = (uint32_t)rds_test_rand(rs);
		got = rds_eth_crc_update(init, b + a, len);
		want = rds_eth_crc_update_serial(init, b + a, len);
		if (got != want) {
			if (shown++ < 5)
				printf("\n  len %u align %u init %08x: %08x, "
				       "serial %08x ", len, a, init, got, want);
			bad++;
		}
		/* The bitwise code is slow: one alignment a length. */
		if (bitwise && a == len % CRC_ALIGN &&
		    ~got != ref_crc32c(~init, b + a, len))
			bad++;
	}
	return bad;
}

static void
crc_cmp_all(void)
{
	uint64_t rs = CRC_SEED;
	unsigned int bad = 0, i;
	uint8_t *b = crc_buf(&rs);
	uint32_t len;

	/* Every length 0..4096 (the interleaved code from 64 on: every
	 * block size 2..170 words and every tail 0..23 bytes). */
	for (len = 0; len <= 4096; len++)
		bad += crc_cmp_len(b, len, &rs, len % 7 == 0);
	/* Random lengths up to 64 KiB (several rounds of 12 KiB), and
	 * the edges of a round. */
	for (i = 0; i < 200; i++)
		bad += crc_cmp_len(b, (uint32_t)rds_test_rand_range(&rs, 4097,
								   65536),
				   &rs, i % 10 == 0);
	for (len = 3 * 8 * RDS_ETH_CRC_WORDS_MAX - 24;
	     len <= 3 * 8 * RDS_ETH_CRC_WORDS_MAX + 24 + RDS_ETH_CRC_MIN;
	     len++)
		bad += crc_cmp_len(b, len, &rs, false);
	bad += crc_cmp_len(b, 65536, &rs, true);
	CU_ASSERT_EQUAL(bad, 0);
	free(b);
}

void
test_crc_interleaved(void)
{
	if (rds_eth_crc_impl_set(RDS_ETH_CRC_INTERLEAVED, false) != 0) {
		CU_ASSERT_FALSE(cpu_has_fast());
		printf("\n  no SSE4.2+PCLMULQDQ: interleaved CRC32C not "
		       "tested ");
		return;
	}
	crc_cmp_all();
}

/* The fallback: the serial code on rte_hash_crc's table code, as on a
 * CPU without the instructions, against the bitwise code; and the
 * eth header CRC through it. */
void
test_crc_fallback(void)
{
	uint64_t rs = CRC_SEED + 1;
	uint8_t *b = crc_buf(&rs);
	struct rds_eth_hdr h;
	unsigned int bad = 0;
	uint8_t tmp[RDS_ETH_HDR_SIZE + 2000];
	uint32_t len, a, init, fast, tab;

	CU_ASSERT_EQUAL(rds_eth_crc_impl_set(RDS_ETH_CRC_SERIAL, true), 0);
	CU_ASSERT_EQUAL(rds_eth_crc_impl_get(), RDS_ETH_CRC_SERIAL);
	for (len = 0; len <= 2000; len += 1 + len / 64) {
		a = len % CRC_ALIGN;
		init = (uint32_t)rds_test_rand(&rs);
		tab = rds_eth_crc_update(init, b + a, len);
		if (~tab != ref_crc32c(~init, b + a, len))
			bad++;
		rds_test_fill(&h, sizeof(h), len);
		memcpy(tmp, &h, sizeof(h));
		memset(tmp + 36, 0, 4);
		memcpy(tmp + sizeof(h), b + a, len);
		if (rds_eth_crc(&h, b + a, len) !=
		    ref_crc32c(0, tmp, sizeof(h) + len))
			bad++;
	}
	CU_ASSERT_EQUAL(bad, 0);
	/* And the full comparison with the table code as the serial one:
	 * the interleaved code must agree with it too. */
	if (rds_eth_crc_impl_set(RDS_ETH_CRC_INTERLEAVED, true) == 0) {
		for (len = 0; len <= 3000; len += 7) {
			init = (uint32_t)rds_test_rand(&rs);
			fast = rds_eth_crc_update(init, b + len % 16, len);
			tab = rds_eth_crc_update_serial(init, b + len % 16,
							len);
			if (fast != tab)
				bad++;
		}
		CU_ASSERT_EQUAL(bad, 0);
	} else {
		printf("\n  no SSE4.2+PCLMULQDQ: interleaved CRC32C not "
		       "tested ");
	}
	/* The serial code on the instructions, all lengths. */
	CU_ASSERT_EQUAL(rds_eth_crc_impl_set(RDS_ETH_CRC_SERIAL, false), 0);
	crc_cmp_all();
	rds_eth_crc_impl_set(cpu_has_fast() ? RDS_ETH_CRC_INTERLEAVED :
			     RDS_ETH_CRC_SERIAL, false);
	free(b);
}

/* rds_eth_frame_reparse: every check of parse but the CRC (the
 * receiver's out-of-order frames, checked when they came). */
void
test_crc_reparse(void)
{
	struct rds_eth_frame f, g, h;
	struct rte_mbuf *m;
	uint64_t rs = CRC_SEED + 2;
	uint8_t *b;

	frame_fields(&f, &rs, 1000);
	f.type = RDS_ETH_F_DATA;
	m = mk_frame(pool, &f, 42, false);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_EQUAL(rds_eth_frame_parse(m, UPORT, &g), RDS_ETH_DROP_NONE);
	CU_ASSERT_EQUAL(rds_eth_frame_reparse(m, UPORT, &h),
			RDS_ETH_DROP_NONE);
	CU_ASSERT(same_fields(&g, &h) && same_fields(&f, &h));
	CU_ASSERT_PTR_EQUAL(g.payload, h.payload);
	/* A payload byte changed: parse refuses it, reparse does not
	 * look. */
	b = rte_pktmbuf_mtod(m, uint8_t *);
	b[O_PAY + 500] ^= 0x10;
	CU_ASSERT_EQUAL(rds_eth_frame_parse(m, UPORT, &g), RDS_ETH_DROP_CRC);
	CU_ASSERT_EQUAL(rds_eth_frame_reparse(m, UPORT, &h),
			RDS_ETH_DROP_NONE);
	/* The other checks stay: a wrong version, a wrong length. */
	b[O_VER] ^= 0xff;
	CU_ASSERT_EQUAL(rds_eth_frame_reparse(m, UPORT, &h),
			RDS_ETH_DROP_VERSION);
	b[O_VER] ^= 0xff;
	wr16(b + O_LEN, 999);
	CU_ASSERT_EQUAL(rds_eth_frame_reparse(m, UPORT, &h),
			RDS_ETH_DROP_LEN);
	rte_pktmbuf_free(m);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CRC32C (Castagnoli, reflected, polynomial 0x82f63b78) for the eth
 * transport's frames: the bare register update, no initial or final
 * complement (the standard CRC32C of a buffer is ~update(~0, buffer)).
 *
 * Two implementations with the same result bit for bit:
 *
 * serial       one chain of rte_hash_crc_8byte() (SSE4.2 crc32, ARMv8
 *              crc32c or DPDK's table code): one 8-byte step per
 *              latency of the instruction (3 cycles on x86).
 *
 * interleaved  x86 with SSE4.2 and PCLMULQDQ (checked at run time): a
 *              buffer of RDS_ETH_CRC_MIN bytes or more is cut into three
 *              blocks of n 8-byte words each (n = len / 24, at most
 *              RDS_ETH_CRC_WORDS_MAX; what does not fit goes to the
 *              next round or, under 24 bytes, the serial tail), whose
 *              CRCs are three independent chains of crc32 instructions
 *              that the core runs in parallel, then combined.
 *
 * The math. A register value r (32 bits, bit i the coefficient of
 * x^(31-i)) stands for a polynomial R over GF(2); the update of r over a
 * buffer B of n bytes (polynomial B of degree < 8n) is
 *
 *     upd(r, B) = (R * x^(8n) + B * x^32) mod P
 *
 * which is linear in r and B. For three consecutive blocks B0 B1 B2 of
 * L = 8n bytes each:
 *
 *     upd(r, B0 B1 B2) = upd(r, B0) * x^(2*8L) + upd(0, B1) * x^(8L)
 *                        + upd(0, B2)                    (all mod P)
 *
 * c0 = upd(r, B0), c1 = upd(0, B1), c2 = upd(0, B2) are the three
 * chains; what is left is to multiply a register by x^(8L) mod P (the
 * "shift" by L zero bytes). With PCLMULQDQ: the carry-less product of
 * two 32-bit register values a and k, read as a 64-bit reflected value,
 * is the polynomial A * K * x; crc32 of that 64-bit value from register
 * 0 multiplies by x^32 and reduces: crc32_u64(0, clmul(a, k)) =
 * A * K * x^33 mod P. So with k = x^(8L - 33) mod P it is A * x^(8L)
 * mod P, and since everything is linear, both shifts share one crc32:
 *
 *     c = crc32_u64(0, clmul(c0, K[2n]) ^ clmul(c1, K[n])) ^ c2
 *
 * K[j] = x^(64j - 33) mod P for j = 1 .. 2 * RDS_ETH_CRC_WORDS_MAX is a
 * table filled at start-up: K[1] = x^31 (the register value 1), and
 * K[j + 1] = K[j] * x^64 mod P, which is the update of K[j] over 8 zero
 * bytes.
 *
 * Elsewhere (other architectures, no SSE4.2 or no PCLMULQDQ), or for
 * shorter buffers, the serial code runs.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cpuflags.h>
#include <rte_hash_crc.h>

#include "rds_eth.h"

#if defined(RTE_ARCH_X86_64)
#define RDS_ETH_CRC_X86 1
#include <x86intrin.h>
#endif

/* What rte_hash_crc.h's own constructor picks (rds_eth_crc_impl_set). */
#if defined(RTE_ARCH_X86)
#define RDS_ETH_CRC_HW_ALG CRC32_SSE42_x64
#elif defined(RTE_ARCH_ARM64) && defined(__ARM_FEATURE_CRC32)
#define RDS_ETH_CRC_HW_ALG CRC32_ARM64
#else
#define RDS_ETH_CRC_HW_ALG CRC32_SW
#endif

/* ------------------------------------------------------------------ */
/* Serial: the reference and the fallback. rte_hash_crc() itself is not
 * used because it loads 8-byte words through possibly unaligned
 * pointers. */

uint32_t
rds_eth_crc_update_serial(uint32_t crc, const void *buf, uint32_t len)
{
	const uint8_t *p = buf;
	uint64_t v8;
	uint32_t v4;
	uint16_t v2;

	while (len >= 8) {
		memcpy(&v8, p, 8);
		crc = rte_hash_crc_8byte(v8, crc);
		p += 8;
		len -= 8;
	}
	if (len & 4) {
		memcpy(&v4, p, 4);
		crc = rte_hash_crc_4byte(v4, crc);
		p += 4;
	}
	if (len & 2) {
		memcpy(&v2, p, 2);
		crc = rte_hash_crc_2byte(v2, crc);
		p += 2;
	}
	if (len & 1)
		crc = rte_hash_crc_1byte(*p, crc);
	return crc;
}

/* ------------------------------------------------------------------ */
/* Interleaved (x86: SSE4.2 + PCLMULQDQ) */

static bool rds_eth_crc_fast_ok;	/* the CPU has both */
static enum rds_eth_crc_impl rds_eth_crc_impl_cur = RDS_ETH_CRC_SERIAL;

#ifdef RDS_ETH_CRC_X86

/* K[j] = x^(64j - 33) mod P, j = 1 .. 2 * RDS_ETH_CRC_WORDS_MAX. */
static uint32_t rds_eth_crc_k[2 * RDS_ETH_CRC_WORDS_MAX + 1];

#define RDS_ETH_CRC_TARGET __attribute__((target("sse4.2,pclmul")))

RDS_ETH_CRC_TARGET static inline uint64_t
rds_eth_clmul32(uint32_t a, uint32_t k)
{
	__m128i p = _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)a),
					 _mm_cvtsi32_si128((int)k), 0);

	return (uint64_t)_mm_cvtsi128_si64(p);
}

RDS_ETH_CRC_TARGET static inline uint64_t
rds_eth_ld64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

RDS_ETH_CRC_TARGET static inline uint32_t
rds_eth_ld32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* One chain of crc32 instructions, 16 bytes a turn, then the last 0-15:
 * for short buffers the fewest instructions (the three chains' set-up
 * and combine cost more than they save), and the tail of long ones. */
RDS_ETH_CRC_TARGET static inline uint32_t
rds_eth_crc_short_x86(uint64_t c, const uint8_t *p, uint32_t len)
{
	for (; len >= 16; len -= 16, p += 16) {
		c = _mm_crc32_u64(c, rds_eth_ld64(p));
		c = _mm_crc32_u64(c, rds_eth_ld64(p + 8));
	}
	if (len & 8) {
		c = _mm_crc32_u64(c, rds_eth_ld64(p));
		p += 8;
	}
	if (len & 4) {
		c = _mm_crc32_u32((uint32_t)c, rds_eth_ld32(p));
		p += 4;
	}
	if (len & 2) {
		uint16_t v;

		memcpy(&v, p, 2);
		c = _mm_crc32_u16((uint32_t)c, v);
		p += 2;
	}
	if (len & 1)
		c = _mm_crc32_u8((uint32_t)c, *p);
	return (uint32_t)c;
}

RDS_ETH_CRC_TARGET static inline uint32_t
rds_eth_crc_update_x86(uint32_t crc, const void *buf, uint32_t len)
{
	const uint8_t *p = buf;
	uint64_t c0 = crc, c1, c2, x;
	uint32_t n, i, l;

	while (len >= RDS_ETH_CRC_MIN) {
		n = len / 24;
		if (n > RDS_ETH_CRC_WORDS_MAX)
			n = RDS_ETH_CRC_WORDS_MAX;
		l = n * 8;
		c1 = 0;
		c2 = 0;
		for (i = 0; i < l; i += 8) {
			c0 = _mm_crc32_u64(c0, rds_eth_ld64(p + i));
			c1 = _mm_crc32_u64(c1, rds_eth_ld64(p + l + i));
			c2 = _mm_crc32_u64(c2, rds_eth_ld64(p + 2 * l + i));
		}
		x = rds_eth_clmul32((uint32_t)c0, rds_eth_crc_k[2 * n]) ^
		    rds_eth_clmul32((uint32_t)c1, rds_eth_crc_k[n]);
		c0 = _mm_crc32_u64(0, x) ^ c2;
		p += 3 * l;
		len -= 3 * l;
	}
	return rds_eth_crc_short_x86(c0, p, len);
}

/* The eth header (RDS_ETH_HDR_SIZE bytes) from ~0, its crc field (the
 * last 4 bytes: the high half of the fifth little-endian word) as 0:
 * five crc32 in a row, no copy of the header. */
RDS_ETH_CRC_TARGET static inline uint32_t
rds_eth_crc_hdr_x86(const uint8_t *p)
{
	uint64_t c = UINT32_MAX;

	c = _mm_crc32_u64(c, rds_eth_ld64(p));
	c = _mm_crc32_u64(c, rds_eth_ld64(p + 8));
	c = _mm_crc32_u64(c, rds_eth_ld64(p + 16));
	c = _mm_crc32_u64(c, rds_eth_ld64(p + 24));
	c = _mm_crc32_u64(c, rds_eth_ld64(p + 32) & UINT32_MAX);
	return (uint32_t)c;
}

RTE_INIT(rds_eth_crc_init)
{
	uint32_t j;

	rds_eth_crc_k[1] = 1;		/* x^31 */
	for (j = 1; j < 2 * RDS_ETH_CRC_WORDS_MAX; j++)
		rds_eth_crc_k[j + 1] = rte_hash_crc_8byte(0, rds_eth_crc_k[j]);
	rds_eth_crc_fast_ok = rte_cpu_get_flag_enabled(RTE_CPUFLAG_SSE4_2) > 0 &&
			      rte_cpu_get_flag_enabled(RTE_CPUFLAG_PCLMULQDQ) > 0;
	if (rds_eth_crc_fast_ok)
		rds_eth_crc_impl_cur = RDS_ETH_CRC_INTERLEAVED;
}

#endif /* RDS_ETH_CRC_X86 */

/* ------------------------------------------------------------------ */
/* Dispatch */

#ifdef RDS_ETH_CRC_X86
RDS_ETH_CRC_TARGET static inline uint32_t
rds_eth_crc_any_x86(uint32_t crc, const void *buf, uint32_t len)
{
	if (len >= RDS_ETH_CRC_MIN)
		return rds_eth_crc_update_x86(crc, buf, len);
	return rds_eth_crc_short_x86(crc, buf, len);
}
#endif

uint32_t
rds_eth_crc_update(uint32_t crc, const void *buf, uint32_t len)
{
#ifdef RDS_ETH_CRC_X86
	if (rds_eth_crc_impl_cur == RDS_ETH_CRC_INTERLEAVED)
		return rds_eth_crc_any_x86(crc, buf, len);
#endif
	return rds_eth_crc_update_serial(crc, buf, len);
}

uint32_t
rds_eth_crc_hdr_update(const struct rds_eth_hdr *h, const void *buf,
		       uint32_t len)
{
#ifdef RDS_ETH_CRC_X86
	if (rds_eth_crc_impl_cur == RDS_ETH_CRC_INTERLEAVED)
		return rds_eth_crc_any_x86(rds_eth_crc_hdr_x86(
						   (const uint8_t *)h),
					   buf, len);
#endif
	return rds_eth_crc_update_serial(rds_eth_crc_hdr0(h), buf, len);
}

uint32_t
rds_eth_crc_hdr0(const struct rds_eth_hdr *h)
{
	struct rds_eth_hdr t;

#ifdef RDS_ETH_CRC_X86
	if (rds_eth_crc_impl_cur == RDS_ETH_CRC_INTERLEAVED)
		return rds_eth_crc_hdr_x86((const uint8_t *)h);
#endif
	memcpy(&t, h, sizeof(t));
	t.crc = 0;
	return rds_eth_crc_update_serial(UINT32_MAX, &t, sizeof(t));
}

enum rds_eth_crc_impl
rds_eth_crc_impl_get(void)
{
	return rds_eth_crc_impl_cur;
}

int
rds_eth_crc_impl_set(enum rds_eth_crc_impl impl, bool table)
{
	if (impl != RDS_ETH_CRC_SERIAL && impl != RDS_ETH_CRC_INTERLEAVED)
		return -EINVAL;
	if (impl == RDS_ETH_CRC_INTERLEAVED && !rds_eth_crc_fast_ok)
		return -ENOTSUP;
	rds_eth_crc_impl_cur = impl;
	/* rte_hash_crc's choice is per translation unit (a static in its
	 * header, set by a constructor of each): this one's. */
	if (table)
		rte_hash_crc_set_alg(CRC32_SW);
	else
		rte_hash_crc_set_alg(RDS_ETH_CRC_HW_ALG);
	return 0;
}

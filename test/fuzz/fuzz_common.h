/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RDS_FUZZ_COMMON_H
#define RDS_FUZZ_COMMON_H

/*
 * Pieces every librte_rds fuzz target shares (test/fuzz):
 * - the EAL, brought up once per process, quietly;
 * - a cursor over libFuzzer's input bytes (reads past the end give 0s
 *   and mark the cursor exhausted, so a target never needs to check);
 * - an oracle failure that aborts, so that libFuzzer keeps the input;
 * - the RDS wire header as the kernel defines it (net/rds/rds.h),
 *   encoded, checksummed and parsed here independently of the library,
 *   so that an oracle does not trust the code it judges.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>

/* ------------------------------------------------------------------ */
/* EAL and failure */

/* Bring the EAL up (once): -l 0 --no-pci --no-huge -m 256 --no-shconf
 * --no-telemetry, a file prefix of our own (its runtime directory is
 * removed at exit), logs at error level. Extra arguments from
 * RDS_FUZZ_EAL_ARGS. Exits on failure. */
void fz_eal_init(const char *name);

/* An oracle violation: print it (with the step of the input being
 * run) and abort(), which libFuzzer reports as a crash. */
void fz_fail(const char *fmt, ...) __rte_format_printf(1, 2) __rte_noreturn;

#define FZ_CHECK(cond, ...) do { \
	if (unlikely(!(cond))) \
		fz_fail(__VA_ARGS__); \
} while (0)

/* The step being run, for failure messages (set by the target). */
extern unsigned int fz_step;

/* RDS_FUZZ_TRACE set: targets print every step (to read a reproducer). */
extern bool fz_trace;
#define FZ_TRACE(...) do { \
	if (unlikely(fz_trace)) \
		fz_trace_printf(__VA_ARGS__); \
} while (0)
void fz_trace_printf(const char *fmt, ...) __rte_format_printf(1, 2);

/* ------------------------------------------------------------------ */
/* Input cursor */

struct fz_in {
	const uint8_t *p;
	size_t left;
	bool eof;	/* a read went past the end */
};

static inline void
fz_in_init(struct fz_in *in, const uint8_t *data, size_t size)
{
	in->p = data;
	in->left = size;
	in->eof = false;
}

static inline uint8_t
fz_u8(struct fz_in *in)
{
	if (in->left == 0) {
		in->eof = true;
		return 0;
	}
	in->left--;
	return *in->p++;
}

static inline uint16_t
fz_u16(struct fz_in *in)
{
	uint16_t v = fz_u8(in);

	return (uint16_t)(v << 8 | fz_u8(in));
}

static inline uint32_t
fz_u32(struct fz_in *in)
{
	uint32_t v = fz_u16(in);

	return v << 16 | fz_u16(in);
}

static inline uint64_t
fz_u64(struct fz_in *in)
{
	uint64_t v = fz_u32(in);

	return v << 32 | fz_u32(in);
}

/* Up to n bytes into dst (the rest zero); returns the bytes taken. */
size_t fz_bytes(struct fz_in *in, void *dst, size_t n);

/* ------------------------------------------------------------------ */
/* Hashing and patterns */

/* 64-bit FNV-1a. */
uint64_t fz_hash(const void *p, size_t n);

/* n bytes of a pattern keyed by seed (splitmix64). */
void fz_pattern(void *dst, size_t n, uint64_t seed);

/* ------------------------------------------------------------------ */
/* The RDS wire header (net/rds/rds.h), independent of the library. */

#define FZ_HDR_SIZE		48
#define FZ_EXT_SPACE		16
#define FZ_EXT_OFF		32	/* h_exthdr within the header */
#define FZ_MAX_MSG		(1u << 20)
#define FZ_CONG_MAP_BYTES	8192

#define FZ_FLAG_CONG_BITMAP	0x01
#define FZ_FLAG_ACK_REQUIRED	0x02
#define FZ_FLAG_RETRANSMITTED	0x04

#define FZ_EXT_NONE		0
#define FZ_EXT_VERSION		1
#define FZ_EXT_RDMA		2
#define FZ_EXT_RDMA_DEST	3
#define FZ_EXT_RDMA_BYTES	4
#define FZ_EXT_NPATHS		5
#define FZ_EXT_GEN_NUM		6
#define FZ_EXT_SPORT_IDX	8
#define FZ_EXT_MAX		16

/* A header's fields, host order. */
struct fz_hdr {
	uint64_t seq;
	uint64_t ack;
	uint32_t len;
	uint16_t sport;
	uint16_t dport;
	uint8_t flags;
	uint8_t credit;
	uint16_t csum;		/* as on the wire (big-endian value) */
	uint8_t ext[FZ_EXT_SPACE];
};

/* The kernel's extension payload sizes (rds_exthdr_size); 0: unknown. */
unsigned int fz_ext_size(unsigned int type);

/* Encode fields into 48 wire bytes; the checksum field is written as
 * given in h->csum (use fz_hdr_csum_fix to compute it). */
void fz_hdr_encode(const struct fz_hdr *h, uint8_t wire[FZ_HDR_SIZE]);
/* Decode 48 wire bytes. */
void fz_hdr_decode(const uint8_t wire[FZ_HDR_SIZE], struct fz_hdr *h);
/* Store the Internet checksum (RFC 1071) of the header in its field. */
void fz_hdr_csum_fix(uint8_t wire[FZ_HDR_SIZE]);
/* Is the checksum valid (0 means "not computed" and is valid too, as in
 * the kernel's rds_message_verify_checksum)? */
bool fz_hdr_csum_ok(const uint8_t wire[FZ_HDR_SIZE]);

/*
 * Walk the extension space of a header and report what an RDS receiver
 * may take from it. Two readings are made, and an oracle allows either:
 * - strict: stop at NONE, at a type without a known size, or at one that
 *   does not fit in the space;
 * - lenient: the kernel's rds_message_next_extension, which also steps
 *   over types of size 0 as one byte.
 * 'clean' is true when the strict walk ended at NONE or at the end of the
 * space with nothing cut off (a receiver must accept such a header).
 */
#define FZ_EXT_VALS 16
struct fz_ext_view {
	bool clean;
	/* RDMA keys (RDS_EXTHDR_RDMA), in order, strict then lenient. */
	unsigned int n_key_strict, n_key;
	uint32_t key[FZ_EXT_VALS];
	/* RDMA_DEST cookies (rkey | offset << 32), strict then lenient. */
	unsigned int n_dest_strict, n_dest;
	uint64_t dest[FZ_EXT_VALS];
};

void fz_ext_view(const uint8_t ext[FZ_EXT_SPACE], struct fz_ext_view *v);

#endif /* RDS_FUZZ_COMMON_H */

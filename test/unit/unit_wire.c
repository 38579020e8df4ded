/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the wire header: layout, checksum, extension headers and
 * malformed input. The checksum is checked against an independent
 * ones-complement sum written here.
 */
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>

#include <CUnit/CUnit.h>

#include "rds_test.h"
#include "rds_wire.h"

/* RFC 1071 sum over the 48 bytes as big-endian 16-bit words. */
static uint16_t
ref_csum(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

static void
test_layout(void)
{
	struct rds_header h;
	const uint8_t *b = (const uint8_t *)&h;

	CU_ASSERT_EQUAL(sizeof(h), 48);
	rds_hdr_encode(&h, 0x0102030405060708ULL, 0x1112131415161718ULL,
		       0x21222324, 0x3132, 0x4142, 0x02, 0x51);
	/* Fields at the kernel's offsets, in network byte order. */
	CU_ASSERT_EQUAL(b[0], 0x01);
	CU_ASSERT_EQUAL(b[7], 0x08);
	CU_ASSERT_EQUAL(b[8], 0x11);
	CU_ASSERT_EQUAL(b[15], 0x18);
	CU_ASSERT_EQUAL(b[16], 0x21);
	CU_ASSERT_EQUAL(b[19], 0x24);
	CU_ASSERT_EQUAL(b[20], 0x31);
	CU_ASSERT_EQUAL(b[21], 0x32);
	CU_ASSERT_EQUAL(b[22], 0x41);
	CU_ASSERT_EQUAL(b[23], 0x42);
	CU_ASSERT_EQUAL(b[24], 0x02);
	CU_ASSERT_EQUAL(b[25], 0x51);
	CU_ASSERT_EQUAL(b[26] | b[27] | b[28] | b[29], 0);
	CU_ASSERT_EQUAL(b[32], 0);
	/* Checksum: the sum over all 48 bytes, stored checksum included,
	 * is 0xffff (ip_fast_csum over the header is 0). */
	CU_ASSERT_EQUAL(ref_csum(&h, sizeof(h)), 0xffff);
	CU_ASSERT_NOT_EQUAL(h.h_csum, 0);
}

static void
test_roundtrip(void)
{
	struct rds_header h;
	struct rds_hdr_info i;
	const char *why = "x";

	rds_hdr_encode(&h, 42, 41, 4096, 7000, 7001,
		       RDS_FLAG_ACK_REQUIRED | RDS_FLAG_RETRANSMITTED, 3);
	CU_ASSERT_EQUAL(rds_hdr_decode(&h, sizeof(h), &i, &why), 0);
	CU_ASSERT_PTR_NULL(why);
	CU_ASSERT_EQUAL(i.seq, 42);
	CU_ASSERT_EQUAL(i.ack, 41);
	CU_ASSERT_EQUAL(i.len, 4096);
	CU_ASSERT_EQUAL(i.sport, 7000);
	CU_ASSERT_EQUAL(i.dport, 7001);
	CU_ASSERT_EQUAL(i.flags, RDS_FLAG_ACK_REQUIRED | RDS_FLAG_RETRANSMITTED);
	CU_ASSERT_EQUAL(i.credit, 3);
	CU_ASSERT_EQUAL(i.ext_mask, 0);

	/* Changing the ACK keeps the header valid. */
	rds_hdr_set_ack(&h, 99, 0);
	CU_ASSERT_EQUAL(ref_csum(&h, sizeof(h)), 0xffff);
	CU_ASSERT_EQUAL(rds_hdr_decode(&h, sizeof(h), &i, NULL), 0);
	CU_ASSERT_EQUAL(i.ack, 99);
}

static void
test_csum_zero_accepted(void)
{
	struct rds_header h;
	struct rds_hdr_info i;

	rds_hdr_encode(&h, 5, 0, 0, 1000, 2000, 0, 0);
	h.h_csum = 0;	/* senders may leave it out */
	CU_ASSERT_EQUAL(rds_hdr_decode(&h, sizeof(h), &i, NULL), 0);
	CU_ASSERT_EQUAL(i.seq, 5);
}

static void
test_bad_csum(void)
{
	struct rds_header h;
	struct rds_hdr_info i;
	const char *why = NULL;
	unsigned int byte;
	int bad = 0;

	rds_hdr_encode(&h, 5, 6, 7, 8, 9, 0, 0);
	/* Any single flipped bit outside the checksum is detected. */
	for (byte = 0; byte < sizeof(h); byte++) {
		struct rds_header c = h;

		if (byte == 30 || byte == 31)
			continue;
		((uint8_t *)&c)[byte] ^= 0x10;
		if (rds_hdr_decode(&c, sizeof(c), &i, &why) == -EBADMSG)
			bad++;
	}
	CU_ASSERT_EQUAL(bad, (int)sizeof(h) - 2);
	CU_ASSERT_PTR_NOT_NULL(why);
}

static void
test_short(void)
{
	struct rds_header h;
	struct rds_hdr_info i;
	const char *why = NULL;

	rds_hdr_encode(&h, 1, 0, 0, 1, 2, 0, 0);
	CU_ASSERT_EQUAL(rds_hdr_decode(&h, 47, &i, &why), -EBADMSG);
	CU_ASSERT_PTR_NOT_NULL(why);
	CU_ASSERT_EQUAL(rds_hdr_decode(NULL, 48, &i, NULL), -EBADMSG);
	CU_ASSERT_EQUAL(rds_hdr_decode(&h, 0, &i, NULL), -EBADMSG);
}

static void
test_too_long(void)
{
	struct rds_header h;
	struct rds_hdr_info i;

	rds_hdr_encode(&h, 1, 0, RDS_MAX_MSG_SIZE, 1, 2, 0, 0);
	CU_ASSERT_EQUAL(rds_hdr_decode(&h, sizeof(h), &i, NULL), 0);
	rds_hdr_encode(&h, 1, 0, RDS_MAX_MSG_SIZE + 1, 1, 2, 0, 0);
	CU_ASSERT_EQUAL(rds_hdr_decode(&h, sizeof(h), &i, NULL), -EBADMSG);
}

static void
test_ext(void)
{
	struct rds_header h;
	struct rds_hdr_info i;
	uint8_t v4[4] = { 0, 0, 3, 1 };
	uint8_t dest[8] = { 0xde, 0xad, 0xbe, 0xef, 0, 0, 0x10, 0 };
	uint8_t one = 0;

	rds_hdr_encode(&h, 1, 0, 0, 1, 2, 0, 0);
	CU_ASSERT_EQUAL(rds_hdr_add_ext(&h, RDS_EXTHDR_VERSION, v4, 4), 0);
	CU_ASSERT_EQUAL(rds_hdr_add_ext(&h, RDS_EXTHDR_RDMA_DEST, dest, 8), 0);
	/* 5 + 9 bytes used: one more 4-byte extension does not fit. */
	CU_ASSERT_EQUAL(rds_hdr_add_ext(&h, RDS_EXTHDR_RDMA, v4, 4), -ENOSPC);
	CU_ASSERT_EQUAL(rds_hdr_add_ext(&h, RDS_EXTHDR_SPORT_IDX, &one, 1), 0);
	CU_ASSERT_EQUAL(rds_hdr_add_ext(&h, 7, v4, 4), -EINVAL);
	CU_ASSERT_EQUAL(rds_hdr_add_ext(&h, 20, v4, 4), -EINVAL);
	CU_ASSERT_EQUAL(rds_hdr_add_ext(&h, RDS_EXTHDR_VERSION, v4, 2),
			-EINVAL);
	CU_ASSERT_EQUAL(ref_csum(&h, sizeof(h)), 0xffff);
	CU_ASSERT_EQUAL(rds_hdr_decode(&h, sizeof(h), &i, NULL), 0);
	CU_ASSERT_EQUAL(i.ext_mask, (1u << RDS_EXTHDR_VERSION) |
			(1u << RDS_EXTHDR_RDMA_DEST) |
			(1u << RDS_EXTHDR_SPORT_IDX));
	CU_ASSERT_EQUAL(i.ext_version, 0x0301);
	CU_ASSERT_EQUAL(i.ext_rdma_dest_rkey, 0xdeadbeef);
	CU_ASSERT_EQUAL(i.ext_rdma_dest_offset, 0x1000);
	CU_ASSERT_EQUAL(rds_ext_size(RDS_EXTHDR_RDMA_BYTES), 8);
	CU_ASSERT_EQUAL(rds_ext_size(RDS_EXTHDR_NPATHS), 2);
	CU_ASSERT_EQUAL(rds_ext_size(99), 0);
}

/* The encoder of decoded fields: with the checksum, byte for byte what
 * rds_hdr_encode and rds_hdr_add_ext write (RDMA_DEST, then RDMA);
 * without it the same with h_csum 0, which decodes to the same. */
static void
test_encode_info(void)
{
	struct rds_header a, b;
	struct rds_hdr_info i, d;
	unsigned int k;
	uint8_t dest[8] = { 0xde, 0xad, 0xbe, 0xef, 0, 0, 0x10, 0 };
	uint8_t key[4] = { 0x12, 0x34, 0x56, 0x78 };

	for (k = 0; k < 4; k++) {
		memset(&i, 0, sizeof(i));
		i.seq = 0x0102030405060708ULL + k;
		i.ack = k == 3 ? 0 : 0x1112131415161718ULL;
		i.len = 0x00012345;
		i.sport = 7000;
		i.dport = (uint16_t)(7001 + k);
		i.flags = RDS_FLAG_ACK_REQUIRED | RDS_FLAG_RETRANSMITTED;
		i.credit = 3;
		rds_hdr_encode(&a, i.seq, i.ack, i.len, i.sport, i.dport,
			       i.flags, i.credit);
		if (k & 1) {
			i.ext_mask |= 1u << RDS_EXTHDR_RDMA_DEST;
			i.ext_rdma_dest_rkey = 0xdeadbeef;
			i.ext_rdma_dest_offset = 0x1000;
			CU_ASSERT_EQUAL(rds_hdr_add_ext(&a, RDS_EXTHDR_RDMA_DEST,
							dest, 8), 0);
		}
		if (k & 2) {
			i.ext_mask |= 1u << RDS_EXTHDR_RDMA;
			i.ext_rdma_rkey = 0x12345678;
			CU_ASSERT_EQUAL(rds_hdr_add_ext(&a, RDS_EXTHDR_RDMA, key,
							4), 0);
		}
		rds_hdr_encode_info(&b, &i, true);
		CU_ASSERT_EQUAL(memcmp(&a, &b, sizeof(a)), 0);
		rds_hdr_encode_info(&b, &i, false);
		CU_ASSERT_EQUAL(b.h_csum, 0);
		b.h_csum = a.h_csum;
		CU_ASSERT_EQUAL(memcmp(&a, &b, sizeof(a)), 0);
		b.h_csum = 0;
		CU_ASSERT_EQUAL(rds_hdr_decode(&b, sizeof(b), &d, NULL), 0);
		CU_ASSERT_EQUAL(d.seq, i.seq);
		CU_ASSERT_EQUAL(d.ack, i.ack);
		CU_ASSERT_EQUAL(d.len, i.len);
		CU_ASSERT_EQUAL(d.dport, i.dport);
		CU_ASSERT_EQUAL(d.flags, i.flags);
		CU_ASSERT_EQUAL(d.ext_mask, i.ext_mask);
		CU_ASSERT_EQUAL(d.ext_rdma_rkey, i.ext_rdma_rkey);
		CU_ASSERT_EQUAL(d.ext_rdma_dest_rkey, i.ext_rdma_dest_rkey);
		CU_ASSERT_EQUAL(d.ext_rdma_dest_offset,
				i.ext_rdma_dest_offset);
	}
}

static void
test_ext_malformed(void)
{
	struct rds_header h;
	struct rds_hdr_info i;
	const char *why = NULL;

	/* An RDMA_DEST (8 bytes) starting at offset 10 overruns the space. */
	rds_hdr_encode(&h, 1, 0, 0, 1, 2, 0, 0);
	memset(h.h_exthdr, 0, sizeof(h.h_exthdr));
	h.h_exthdr[0] = RDS_EXTHDR_GEN_NUM;	/* 1 + 4 */
	h.h_exthdr[5] = RDS_EXTHDR_GEN_NUM;	/* 1 + 4 -> offset 10 */
	h.h_exthdr[10] = RDS_EXTHDR_RDMA_DEST;	/* 1 + 8 > 16 */
	rds_hdr_csum_set(&h);
	CU_ASSERT_EQUAL(rds_hdr_decode(&h, sizeof(h), &i, &why), -EBADMSG);
	CU_ASSERT_PTR_NOT_NULL(why);

	/* An unknown type ends parsing, as in the kernel: not an error, and
	 * what follows it is not read. */
	memset(h.h_exthdr, 0, sizeof(h.h_exthdr));
	h.h_exthdr[0] = RDS_EXTHDR_RDMA;
	h.h_exthdr[5] = 7;
	h.h_exthdr[6] = RDS_EXTHDR_RDMA_DEST;
	rds_hdr_csum_set(&h);
	CU_ASSERT_EQUAL(rds_hdr_decode(&h, sizeof(h), &i, NULL), 0);
	CU_ASSERT_EQUAL(i.ext_mask, 1u << RDS_EXTHDR_RDMA);
	h.h_exthdr[5] = 200;
	rds_hdr_csum_set(&h);
	CU_ASSERT_EQUAL(rds_hdr_decode(&h, sizeof(h), &i, NULL), 0);
	CU_ASSERT_EQUAL(i.ext_mask, 1u << RDS_EXTHDR_RDMA);
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "layout", test_layout },
		{ "roundtrip", test_roundtrip },
		{ "csum_zero_accepted", test_csum_zero_accepted },
		{ "bad_csum", test_bad_csum },
		{ "short", test_short },
		{ "too_long", test_too_long },
		{ "ext", test_ext },
		{ "ext_malformed", test_ext_malformed },
		{ "encode_info", test_encode_info },
		{ NULL, NULL },
	};

	return rds_test_main("unit_wire", NULL, cases);
}

/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RDS_WIRE_H
#define RDS_WIRE_H

/*
 * The kernel's RDS wire header (net/rds/rds.h, struct rds_header): 48
 * bytes in network byte order, an Internet checksum over all of them, and
 * up to 16 bytes of extension headers. Every transport encodes and
 * decodes it here and nowhere else.
 */

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

#include <rte_common.h>
#include <rte_byteorder.h>

#define RDS_HEADER_SIZE		48
#define RDS_HEADER_EXT_SPACE	16
#define RDS_FRAG_SHIFT		12
#define RDS_FRAG_SIZE		(1u << RDS_FRAG_SHIFT)
#define RDS_MAX_MSG_SIZE	(1u << 20)
#define RDS_CONG_MAP_BYTES	8192
#define RDS_CONG_MAP_WORDS	(RDS_CONG_MAP_BYTES / 8)

#define RDS_FLAG_CONG_BITMAP	0x01
#define RDS_FLAG_ACK_REQUIRED	0x02
#define RDS_FLAG_RETRANSMITTED	0x04
#define RDS_FLAG_EXTHDR_EXTENSION 0x20

#define RDS_FLAG_PROBE_PORT	1

#define RDS_EXTHDR_NONE		0
#define RDS_EXTHDR_VERSION	1
#define RDS_EXTHDR_RDMA		2
#define RDS_EXTHDR_RDMA_DEST	3
#define RDS_EXTHDR_RDMA_BYTES	4
#define RDS_EXTHDR_NPATHS	5
#define RDS_EXTHDR_GEN_NUM	6
#define RDS_EXTHDR_SPORT_IDX	8
#define RDS_EXTHDR_MAX		16

#define RDS_PROTOCOL_3_0	0x0300
#define RDS_PROTOCOL_3_1	0x0301
#define RDS_PROTOCOL_4_0	0x0400
#define RDS_PROTOCOL_4_1	0x0401

struct rds_header {
	rte_be64_t h_sequence;
	rte_be64_t h_ack;
	rte_be32_t h_len;
	rte_be16_t h_sport;
	rte_be16_t h_dport;
	uint8_t h_flags;
	uint8_t h_credit;
	uint8_t h_padding[4];
	rte_be16_t h_csum;
	uint8_t h_exthdr[RDS_HEADER_EXT_SPACE];
} __rte_packed;

/* A decoded header, host byte order. */
struct rds_hdr_info {
	uint64_t seq;
	uint64_t ack;
	uint32_t len;
	uint16_t sport;
	uint16_t dport;
	uint8_t flags;
	uint8_t credit;
	/* Not on the wire: the sender's transport delivered the frame
	 * within the process and released the message already, so the
	 * receiver owes no ACK (the loop transport, as the kernel's). */
	bool acked;
	/* Extensions found (a bit per type), and their values. */
	uint32_t ext_mask;
	uint32_t ext_version;
	uint32_t ext_rdma_rkey;
	uint32_t ext_rdma_dest_rkey;
	uint32_t ext_rdma_dest_offset;
	uint32_t ext_rdma_bytes;
	uint8_t ext_rdma_rflags;
	uint16_t ext_npaths;
	uint32_t ext_gen_num;
};

/* Size of an extension's payload by type; 0 for unknown types. */
unsigned int rds_ext_size(unsigned int type);

/* Fill a header (checksum included). Extensions are cleared. */
void rds_hdr_encode(struct rds_header *h, uint64_t seq, uint64_t ack,
		    uint32_t len, uint16_t sport, uint16_t dport,
		    uint8_t flags, uint8_t credit);

/* Fill a header from decoded fields (acked is not on the wire), the
 * extensions of ext_mask among RDMA_DEST and RDMA (in that order, as
 * rds_msg_hdr writes them; the others are not encoded). The checksum
 * only when csum: a transport whose frames carry a stronger one leaves
 * it 0, which receivers take as not computed (rds_hdr_csum_ok, as the
 * kernel's rds_message_verify_checksum). */
void rds_hdr_encode_info(struct rds_header *h, const struct rds_hdr_info *i,
			 bool csum);

/* Add an extension after those already present and recompute the
 * checksum. Returns 0, or -ENOSPC when it does not fit, -EINVAL for an
 * unknown type or a wrong data length. */
int rds_hdr_add_ext(struct rds_header *h, unsigned int type,
		    const void *data, unsigned int len);

/* Change the piggybacked ACK (and credit) and recompute the checksum. */
void rds_hdr_set_ack(struct rds_header *h, uint64_t ack, uint8_t credit);

/* Compute and store the checksum. */
void rds_hdr_csum_set(struct rds_header *h);

/* True when the checksum is 0 (not computed) or valid. */
int rds_hdr_csum_ok(const struct rds_header *h);

/* Decode and validate buflen bytes. Returns 0, or -EBADMSG for a short
 * buffer, a bad checksum or an extension that overruns its space, with
 * *why set to a short reason. Unknown extension types end parsing, as in
 * the kernel. */
int rds_hdr_decode(const void *buf, size_t buflen, struct rds_hdr_info *out,
		   const char **why);

#endif /* RDS_WIRE_H */

/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include <rte_ip.h>

#include "rds_wire.h"

static const uint8_t rds_ext_sizes[RDS_EXTHDR_MAX] = {
	[RDS_EXTHDR_NONE] = 0,
	[RDS_EXTHDR_VERSION] = 4,
	[RDS_EXTHDR_RDMA] = 4,
	[RDS_EXTHDR_RDMA_DEST] = 8,
	[RDS_EXTHDR_RDMA_BYTES] = 8,
	[RDS_EXTHDR_NPATHS] = 2,
	[RDS_EXTHDR_GEN_NUM] = 4,
	[RDS_EXTHDR_SPORT_IDX] = 1,
};

_Static_assert(sizeof(struct rds_header) == RDS_HEADER_SIZE,
	       "struct rds_header must be 48 bytes");

unsigned int
rds_ext_size(unsigned int type)
{
	return type < RDS_EXTHDR_MAX ? rds_ext_sizes[type] : 0;
}

void
rds_hdr_csum_set(struct rds_header *h)
{
	uint16_t sum;

	h->h_csum = 0;
	sum = rte_raw_cksum(h, sizeof(*h));
	h->h_csum = (uint16_t)~sum;
}

int
rds_hdr_csum_ok(const struct rds_header *h)
{
	if (h->h_csum == 0)
		return 1;
	return rte_raw_cksum(h, sizeof(*h)) == 0xffff;
}

void
rds_hdr_encode(struct rds_header *h, uint64_t seq, uint64_t ack,
	       uint32_t len, uint16_t sport, uint16_t dport, uint8_t flags,
	       uint8_t credit)
{
	memset(h, 0, sizeof(*h));
	h->h_sequence = rte_cpu_to_be_64(seq);
	h->h_ack = rte_cpu_to_be_64(ack);
	h->h_len = rte_cpu_to_be_32(len);
	h->h_sport = rte_cpu_to_be_16(sport);
	h->h_dport = rte_cpu_to_be_16(dport);
	h->h_flags = flags;
	h->h_credit = credit;
	rds_hdr_csum_set(h);
}

void
rds_hdr_encode_info(struct rds_header *h, const struct rds_hdr_info *i,
		    bool csum)
{
	uint8_t *x = h->h_exthdr;

	memset(h, 0, sizeof(*h));
	h->h_sequence = rte_cpu_to_be_64(i->seq);
	h->h_ack = rte_cpu_to_be_64(i->ack);
	h->h_len = rte_cpu_to_be_32(i->len);
	h->h_sport = rte_cpu_to_be_16(i->sport);
	h->h_dport = rte_cpu_to_be_16(i->dport);
	h->h_flags = i->flags;
	h->h_credit = i->credit;
	/* As rds_msg_hdr adds them: RDMA_DEST (9 bytes), then RDMA (5). */
	if (unlikely(i->ext_mask & (1u << RDS_EXTHDR_RDMA_DEST))) {
		rte_be32_t v[2] = { rte_cpu_to_be_32(i->ext_rdma_dest_rkey),
				    rte_cpu_to_be_32(i->ext_rdma_dest_offset) };

		*x++ = RDS_EXTHDR_RDMA_DEST;
		memcpy(x, v, sizeof(v));
		x += sizeof(v);
	}
	if (unlikely(i->ext_mask & (1u << RDS_EXTHDR_RDMA))) {
		rte_be32_t k = rte_cpu_to_be_32(i->ext_rdma_rkey);

		*x++ = RDS_EXTHDR_RDMA;
		memcpy(x, &k, sizeof(k));
	}
	if (csum)
		rds_hdr_csum_set(h);
}

void
rds_hdr_set_ack(struct rds_header *h, uint64_t ack, uint8_t credit)
{
	h->h_ack = rte_cpu_to_be_64(ack);
	h->h_credit = credit;
	rds_hdr_csum_set(h);
}

/* Offset of the first free byte of the extension space. */
static unsigned int
rds_ext_end(const struct rds_header *h)
{
	unsigned int off = 0, type, sz;

	while (off < RDS_HEADER_EXT_SPACE) {
		type = h->h_exthdr[off];
		if (type == RDS_EXTHDR_NONE || type >= RDS_EXTHDR_MAX)
			break;
		sz = rds_ext_sizes[type];
		if (sz == 0 || off + 1 + sz > RDS_HEADER_EXT_SPACE)
			break;
		off += 1 + sz;
	}
	return off;
}

int
rds_hdr_add_ext(struct rds_header *h, unsigned int type, const void *data,
		unsigned int len)
{
	unsigned int off;

	if (type == RDS_EXTHDR_NONE || rds_ext_size(type) == 0 ||
	    rds_ext_size(type) != len)
		return -EINVAL;
	off = rds_ext_end(h);
	if (off + 1 + len > RDS_HEADER_EXT_SPACE)
		return -ENOSPC;
	h->h_exthdr[off] = (uint8_t)type;
	memcpy(&h->h_exthdr[off + 1], data, len);
	if (off + 1 + len < RDS_HEADER_EXT_SPACE)
		h->h_exthdr[off + 1 + len] = RDS_EXTHDR_NONE;
	rds_hdr_csum_set(h);
	return 0;
}

static uint32_t
be32_at(const uint8_t *p)
{
	rte_be32_t v;

	memcpy(&v, p, sizeof(v));
	return rte_be_to_cpu_32(v);
}

static int
rds_ext_parse(const struct rds_header *h, struct rds_hdr_info *out,
	      const char **why)
{
	unsigned int off = 0, type, sz;
	const uint8_t *p;
	rte_be16_t v16;

	while (off < RDS_HEADER_EXT_SPACE) {
		type = h->h_exthdr[off];
		if (type == RDS_EXTHDR_NONE || type >= RDS_EXTHDR_MAX ||
		    rds_ext_sizes[type] == 0)
			return 0;	/* end, or a type we do not know */
		sz = rds_ext_sizes[type];
		if (off + 1 + sz > RDS_HEADER_EXT_SPACE) {
			*why = "extension header overruns its space";
			return -EBADMSG;
		}
		p = &h->h_exthdr[off + 1];
		out->ext_mask |= 1u << type;
		switch (type) {
		case RDS_EXTHDR_VERSION:
			out->ext_version = be32_at(p);
			break;
		case RDS_EXTHDR_RDMA:
			out->ext_rdma_rkey = be32_at(p);
			break;
		case RDS_EXTHDR_RDMA_DEST:
			out->ext_rdma_dest_rkey = be32_at(p);
			out->ext_rdma_dest_offset = be32_at(p + 4);
			break;
		case RDS_EXTHDR_RDMA_BYTES:
			out->ext_rdma_bytes = be32_at(p);
			out->ext_rdma_rflags = p[4];
			break;
		case RDS_EXTHDR_NPATHS:
			memcpy(&v16, p, 2);
			out->ext_npaths = rte_be_to_cpu_16(v16);
			break;
		case RDS_EXTHDR_GEN_NUM:
			out->ext_gen_num = be32_at(p);
			break;
		default:
			break;
		}
		off += 1 + sz;
	}
	return 0;
}

int
rds_hdr_decode(const void *buf, size_t buflen, struct rds_hdr_info *out,
	       const char **why)
{
	const struct rds_header *h = buf;
	const char *dummy;

	if (why == NULL)
		why = &dummy;
	*why = NULL;
	memset(out, 0, sizeof(*out));
	if (buf == NULL || buflen < sizeof(*h)) {
		*why = "short header";
		return -EBADMSG;
	}
	if (!rds_hdr_csum_ok(h)) {
		*why = "bad header checksum";
		return -EBADMSG;
	}
	out->seq = rte_be_to_cpu_64(h->h_sequence);
	out->ack = rte_be_to_cpu_64(h->h_ack);
	out->len = rte_be_to_cpu_32(h->h_len);
	out->sport = rte_be_to_cpu_16(h->h_sport);
	out->dport = rte_be_to_cpu_16(h->h_dport);
	out->flags = h->h_flags;
	out->credit = h->h_credit;
	if (out->len > RDS_MAX_MSG_SIZE) {
		*why = "message length over 1 MiB";
		return -EBADMSG;
	}
	return rds_ext_parse(h, out, why);
}

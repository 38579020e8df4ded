/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_attach: a client's send with an RDMA or atomic operation in its
 * TX buffer (rds_server_rdma.c parses it): control messages (an SOL_RDS
 * header of a plausible length, then any bytes), a vector and a WRITE's
 * data after a short payload, within the slot; an RDMA_MAP with a key
 * (RDS_CBUF_F_MAP: any key, whole arguments) or a free through the ring
 * (RDS_CBUF_F_FREE, any cookie); or a plain send.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/rds.h>

#include <rte_common.h>

#include "fuzz_attach_op.h"

void
fz_attach_op(struct rds_cbuf *h, struct fz_in *in)
{
	uint8_t *p = (uint8_t *)h;
	struct cmsghdr cm;
	uint32_t at, n, i;

	h->vec_n = 0;
	h->flags = 0;
	h->rdma_dest = 0;
	if (!(fz_u8(in) & 1))
		return;
	h->len &= 0x7f;
	at = RDS_CBUF_HDR + h->len;
	memset(&cm, 0, sizeof(cm));
	cm.cmsg_len = CMSG_LEN(fz_u8(in) & 1 ? sizeof(struct rds_rdma_args) :
			       sizeof(struct rds_atomic_args));
	cm.cmsg_level = fz_u8(in) & 7 ? SOL_RDS : fz_u8(in);
	cm.cmsg_type = fz_u8(in) % 12;
	h->ctl_len = fz_u8(in) & 1 ? (uint32_t)cm.cmsg_len : fz_u8(in);
	h->vec_n = fz_u8(in) % 4;
	h->flags = fz_u8(in) & 1 ? RDS_CBUF_F_WDATA : 0;
	switch (fz_u8(in) % 4) {
	case 1:
		h->flags |= RDS_CBUF_F_FREE;
		h->rdma_dest = fz_u64(in);
		break;
	case 2: {
		/* RDMA_MAP with a key, its arguments whole. */
		struct rds_get_mr_args g;

		h->flags |= RDS_CBUF_F_MAP;
		h->rdma_dest = fz_u32(in);
		h->vec_n = 0;
		h->len &= 0xf;
		at = RDS_CBUF_HDR + h->len;
		cm.cmsg_len = CMSG_LEN(sizeof(g));
		cm.cmsg_level = SOL_RDS;
		cm.cmsg_type = RDS_CMSG_RDMA_MAP;
		memset(&g, 0, sizeof(g));
		g.vec.addr = fz_u32(in);
		g.vec.bytes = fz_u16(in);
		g.cookie_addr = fz_u8(in) & 1 ? fz_u32(in) : 0;
		g.flags = fz_u8(in);
		h->ctl_len = (uint32_t)CMSG_SPACE(sizeof(g));
		memcpy(p + at, &cm, sizeof(cm));
		memcpy(p + at + sizeof(cm), &g, sizeof(g));
		return;
	}
	default:
		break;
	}
	memcpy(p + at, &cm, sizeof(cm));
	if (cm.cmsg_type == RDS_CMSG_RDMA_ARGS && (fz_u8(in) & 1)) {
		/* Whole arguments of a size that passes the first checks,
		 * its vector after them, some of a WRITE's data. */
		struct rds_rdma_args a;
		struct rds_iovec v;

		/* (A payload of 15 bytes at most: all of it within the
		 * slot.) */
		at -= h->len;
		h->len &= 0xf;
		at += h->len;
		cm.cmsg_len = CMSG_LEN(sizeof(a));
		cm.cmsg_level = SOL_RDS;
		memcpy(p + at, &cm, sizeof(cm));
		memset(&a, 0, sizeof(a));
		a.cookie = fz_u32(in);
		a.remote_vec.bytes = fz_u16(in);
		a.nr_local = h->vec_n;
		a.flags = fz_u8(in);
		a.user_token = fz_u8(in);
		h->ctl_len = (uint32_t)CMSG_SPACE(sizeof(a));
		memcpy(p + at + sizeof(cm), &a, sizeof(a));
		at += h->ctl_len;
		for (i = 0; i < h->vec_n; i++) {
			v.addr = fz_u32(in);
			v.bytes = fz_u8(in);
			memcpy(p + at, &v, sizeof(v));
			at += sizeof(v);
		}
		n = RTE_MIN((uint32_t)fz_u8(in), rds_region_class_size[0] - at);
		RTE_BUILD_BUG_ON(RDS_CBUF_HDR + 15 + CMSG_SPACE(sizeof(a)) +
				 3 * sizeof(v) > 320);
		for (i = 0; i < n; i++)
			p[at + i] = fz_u8(in);
		return;
	}
	n = RTE_MIN((uint32_t)fz_u8(in),
		    rds_region_class_size[0] - at - (uint32_t)sizeof(cm));
	for (i = 0; i < n; i++)
		p[at + sizeof(cm) + i] = fz_u8(in);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_attach: a client's send with an RDMA or atomic operation in its
 * TX buffer (rds_server_rdma.c parses it): control messages (an SOL_RDS
 * header of a plausible length, then any bytes), a vector and a WRITE's
 * data after a short payload, within the slot; or a plain send.
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
	memcpy(p + at, &cm, sizeof(cm));
	n = RTE_MIN((uint32_t)fz_u8(in),
		    rds_region_class_size[0] - at - (uint32_t)sizeof(cm));
	for (i = 0; i < n; i++)
		p[at + sizeof(cm) + i] = fz_u8(in);
}

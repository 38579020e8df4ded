/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Serving other processes: a client's shared region, its layout and its
 * first contents (rds_server.c has the whole picture; rds_region.h the
 * layout both sides read). The engine makes the region when the client
 * attaches and writes the header, the sockets' slots and their rings
 * before the client maps it.
 */
#include <string.h>

#include "rds_server_private.h"

static uint64_t
rds_align(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* The layout of a region of about mb MiB. */
void
rds_region_layout_make(uint32_t mb, struct rds_region_layout *l)
{
	uint64_t off = rds_align(sizeof(struct rds_region_hdr), 64);
	uint64_t pool = ((uint64_t)mb << 20) / 2, share;
	unsigned int p, c;
	/* Of each pool: 1/8 small, 1/4 4 KiB, 1/4 64 KiB, 3/8 1 MiB. */
	static const unsigned int eighths[RDS_REGION_NB_CLASSES] = {
		1, 2, 2, 3 };

	memset(l, 0, sizeof(*l));
	l->nb_socks = RDS_SRV_SOCKS;
	l->nb_bells = RDS_SRV_BELLS;
	l->socks_off = off;
	off += sizeof(struct rds_csock) * l->nb_socks;
	off = rds_align(off, 64);
	/* Each socket's four rings follow the sockets (the engine finds
	 * them from the index, never from the offsets in rds_csock). */
	off += rds_region_csock_rings_bytes() * l->nb_socks;
	l->bells_off = rds_align(off, 64);
	l->bell_stride = rds_xring_bytes(RDS_REGION_BELL_RING);
	off = l->bells_off + l->bell_stride * l->nb_bells;
	l->txfree_off = rds_align(off, 64);
	off = l->txfree_off + rds_xring_bytes(RDS_REGION_FREE_RING);
	l->rxfree_off = rds_align(off, 64);
	off = l->rxfree_off + rds_xring_bytes(RDS_REGION_FREE_RING);
	for (p = 0; p < 2; p++) {
		for (c = 0; c < RDS_REGION_NB_CLASSES; c++) {
			share = pool * eighths[c] / 8;
			off = rds_align(off, 4096);
			l->pool_off[p][c] = off;
			l->pool_nb[p][c] = (uint32_t)RTE_MAX(2ULL,
				share / rds_region_class_size[c]);
			off += (uint64_t)l->pool_nb[p][c] *
			       rds_region_class_size[c];
		}
	}
	l->size = rds_align(off, 4096);
}

/* A new region's header, sockets and rings, at base. */
void
rds_region_init(uint8_t *base, const struct rds_region_layout *l)
{
	struct rds_region_hdr *h = (void *)base;
	uint32_t i;

	h->magic = RDS_REGION_MAGIC;
	h->version = RDS_REGION_VERSION;
	h->lay = *l;
	h->nb_laddrs = RTE_MIN(rds_lib->nb_laddrs,
			       (unsigned int)RDS_REGION_MAX_LADDRS);
	for (i = 0; i < h->nb_laddrs; i++) {
		const struct rds_laddr *la = rds_lib->laddrs[i];

		h->laddr[i].a = la->addr;
		h->laddr[i].flags = ((la->trans->flags &
				      RDS_TRANS_F_LOOPBACK) ?
				     RDS_REGION_LADDR_LOOPBACK : 0) |
				    rds_srv_rdma_flags(la->trans);
	}
	h->loop_flags = rds_srv_rdma_flags(
		rds_transport_by_id(RTE_RDS_TRANS_LOOP));
	for (i = 0; i < l->nb_socks; i++) {
		struct rds_csock *cs = (void *)(base + l->socks_off +
						sizeof(*cs) * i);

		memset(cs, 0, sizeof(*cs));
		cs->handle = -1;
		cs->req_off = rds_region_csock_ring(l, i, 0);
		cs->rx_off = rds_region_csock_ring(l, i, 1);
		cs->nt_off = rds_region_csock_ring(l, i, 2);
		cs->key_off = rds_region_csock_ring(l, i, 3);
		rds_xring_init((void *)(base + cs->req_off));
		rds_xring_init((void *)(base + cs->rx_off));
		rds_xring_init((void *)(base + cs->nt_off));
		rds_xring_init((void *)(base + cs->key_off));
	}
	for (i = 0; i < l->nb_bells; i++)
		rds_xring_init((void *)(base + l->bells_off +
					l->bell_stride * i));
	rds_xring_init((void *)(base + l->txfree_off));
	rds_xring_init((void *)(base + l->rxfree_off));
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pools of registered buffers of an engine on a device: the receive
 * buffers of its shared receive queue, the copies of data sent neither in
 * place nor inline, the bounce buffers of RDMA operations. A pool grows a
 * slab at a time (one aligned allocation, one ibv_reg_mr) when it has no
 * free buffer, up to its most; it never shrinks while it lives, and goes
 * whole with the engine's last connection on the device
 * (rds_ib_edev_put). The free buffers are a stack of indices: the one
 * freed last, still warm, goes first. Each pool belongs to one engine and
 * is used from its thread only.
 */
#include <errno.h>
#include <stdlib.h>

#include "rds_ib.h"

void
rds_ib_pool_init(struct rds_ib_pool *p, const char *name,
		 struct rds_ib_dev *dev, uint64_t *bytes, uint32_t size,
		 uint32_t per_slab, uint32_t max)
{
	memset(p, 0, sizeof(*p));
	p->name = name;
	p->dev = dev;
	p->bytes = bytes;
	p->size = size;
	p->per_slab = per_slab;
	p->max = max;
}

/* One more slab: 0, -ENOBUFS (at the most) or -ENOMEM. */
static int
rds_ib_pool_grow(struct rds_ib_pool *p)
{
	uint32_t nslabs = (p->max + p->per_slab - 1) / p->per_slab;
	uint32_t k = p->nb / p->per_slab, n, i;
	struct rds_ib_slab *s;
	size_t sz;

	if (p->nb >= p->max)
		return -ENOBUFS;
	if (p->slabs == NULL) {
		p->slabs = rds_mem_zalloc("rds_ib_slabs",
					  sizeof(*p->slabs) * nslabs);
		p->free = rds_mem_zalloc("rds_ib_pool_free",
					 sizeof(*p->free) * p->max);
		if (p->slabs == NULL || p->free == NULL) {
			rds_mem_free(p->slabs);
			rds_mem_free(p->free);
			p->slabs = NULL;
			p->free = NULL;
			return -ENOMEM;
		}
	}
	n = RTE_MIN(p->per_slab, p->max - p->nb);
	sz = (size_t)n * p->size;
	s = &p->slabs[k];
	if (posix_memalign((void **)&s->base, 4096, sz) != 0) {
		s->base = NULL;
		IB_LOG(ERR, "%s: no memory for %u buffers", p->name, n);
		return -ENOMEM;
	}
	s->mr = ibv_reg_mr(p->dev->pd, s->base, sz, IBV_ACCESS_LOCAL_WRITE);
	if (s->mr == NULL) {
		IB_LOG(ERR, "%s: ibv_reg_mr of %zu bytes: %s", p->name, sz,
		       strerror(errno));
		free(s->base);
		s->base = NULL;
		return -ENOMEM;
	}
	/* The lowest index on top of the stack. */
	for (i = n; i-- > 0;)
		p->free[p->nb_free++] = p->nb + i;
	p->nb += n;
	if (p->bytes != NULL)
		*p->bytes += sz;
	return 0;
}

int
rds_ib_pool_get(struct rds_ib_pool *p, uint32_t *idx)
{
	int ret;

	if (p->nb_free == 0) {
		ret = rds_ib_pool_grow(p);
		if (ret != 0)
			return ret;
	}
	*idx = p->free[--p->nb_free];
	return 0;
}

int
rds_ib_pool_reserve(struct rds_ib_pool *p, uint32_t n)
{
	int ret;

	while (p->nb_free < n) {
		ret = rds_ib_pool_grow(p);
		if (ret != 0)
			return ret;
	}
	return 0;
}

void
rds_ib_pool_fini(struct rds_ib_pool *p)
{
	uint32_t k, nslabs = (p->nb + p->per_slab - 1) / p->per_slab;

	for (k = 0; p->slabs != NULL && k < nslabs; k++) {
		struct rds_ib_slab *s = &p->slabs[k];

		if (s->mr != NULL)
			ibv_dereg_mr(s->mr);
		free(s->base);
	}
	if (p->bytes != NULL)
		*p->bytes -= (uint64_t)p->nb * p->size;
	rds_mem_free(p->slabs);
	rds_mem_free(p->free);
	p->slabs = NULL;
	p->free = NULL;
	p->nb = 0;
	p->nb_free = 0;
}

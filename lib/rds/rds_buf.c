/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Message buffers. Small messages come from two DPDK mempools (lock-free
 * rings underneath, per-lcore caches for engines), larger ones from the
 * DPDK heap. With the libc_alloc build option everything comes from libc
 * malloc instead, so that AddressSanitizer sees every buffer.
 */
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include <rte_malloc.h>
#include <rte_mempool.h>

#include "rds_private.h"

#define RDS_SMALL_PAYLOAD 512
#define RDS_LARGE_PAYLOAD RDS_FRAG_SIZE

static struct rte_mempool *rds_pool_small;
static struct rte_mempool *rds_pool_large;

void *
rds_mem_zalloc(const char *what, size_t size)
{
#ifdef RDS_LIBC_ALLOC
	void *p = NULL;

	RTE_SET_USED(what);
	if (posix_memalign(&p, RTE_CACHE_LINE_SIZE, size) != 0)
		return NULL;
	memset(p, 0, size);
	return p;
#else
	return rte_zmalloc(what, size, RTE_CACHE_LINE_SIZE);
#endif
}

void
rds_mem_free(void *p)
{
#ifdef RDS_LIBC_ALLOC
	free(p);
#else
	rte_free(p);
#endif
}

int
rds_buf_init(const struct rte_rds_conf *conf)
{
#ifdef RDS_LIBC_ALLOC
	RTE_SET_USED(conf);
	return 0;
#else
	uint32_t n = conf->nb_small_bufs;

	rds_pool_small = rte_mempool_create("rds_buf_small", n,
		sizeof(struct rds_msg) + RDS_SMALL_PAYLOAD, 256, 0,
		NULL, NULL, NULL, NULL, conf->socket_id, 0);
	if (rds_pool_small == NULL)
		return -rte_errno;
	rds_pool_large = rte_mempool_create("rds_buf_large", n / 4,
		sizeof(struct rds_msg) + RDS_LARGE_PAYLOAD, 64, 0,
		NULL, NULL, NULL, NULL, conf->socket_id, 0);
	if (rds_pool_large == NULL) {
		int err = rte_errno;

		rte_mempool_free(rds_pool_small);
		rds_pool_small = NULL;
		return -err;
	}
	return 0;
#endif
}

void
rds_buf_fini(void)
{
	rte_mempool_free(rds_pool_small);
	rte_mempool_free(rds_pool_large);
	rds_pool_small = NULL;
	rds_pool_large = NULL;
}

struct rds_msg *
rds_msg_alloc(uint32_t len)
{
	struct rds_msg *m = NULL;
	uint8_t kind;

#ifdef RDS_LIBC_ALLOC
	m = malloc(sizeof(*m) + len);
	kind = RDS_BUF_LIBC;
#else
	void *obj;

	if (len <= RDS_SMALL_PAYLOAD &&
	    rte_mempool_get(rds_pool_small, &obj) == 0) {
		m = obj;
		kind = RDS_BUF_POOL_SMALL;
	} else if (len <= RDS_LARGE_PAYLOAD &&
		   rte_mempool_get(rds_pool_large, &obj) == 0) {
		m = obj;
		kind = RDS_BUF_POOL_LARGE;
	} else {
		m = rte_malloc("rds_msg", sizeof(*m) + len,
			       RTE_CACHE_LINE_SIZE);
		kind = RDS_BUF_HEAP;
	}
#endif
	if (m == NULL)
		return NULL;
	memset(m, 0, offsetof(struct rds_msg, data));
	m->buf_kind = kind;
	m->len = len;
	m->sock = -1;
	return m;
}

void
rds_msg_free(struct rds_msg *m)
{
	if (m == NULL)
		return;
	if (m->op != NULL) {
		rds_rdma_op_free(m->op);
		m->op = NULL;
	}
	switch (m->buf_kind) {
	case RDS_BUF_POOL_SMALL:
		rte_mempool_put(rds_pool_small, m);
		break;
	case RDS_BUF_POOL_LARGE:
		rte_mempool_put(rds_pool_large, m);
		break;
	case RDS_BUF_HEAP:
		rte_free(m);
		break;
	default:
		free(m);
		break;
	}
}

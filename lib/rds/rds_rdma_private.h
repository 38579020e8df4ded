/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA (rds_rdma.c, rds_rdma_cmsg.c, rds_rdma_exec.c): the region table
 * and what the three files share of it. Internal to the library.
 */
#ifndef RDS_RDMA_PRIVATE_H
#define RDS_RDMA_PRIVATE_H

#include <rte_hash.h>
#include <rte_rwlock.h>

#include "rds_private.h"

/* The live regions by r_key, under rds_mr_lock (rds_rdma.c). */
extern struct rte_hash *rds_mr_hash;
extern rte_rwlock_t rds_mr_lock;

/* rds_rdma_key.c: n candidate keys for software regions, from the
 * kernel's CSPRNG (getrandom(2)). 0, or the negative errno getrandom
 * failed with. */
int rds_rdma_keys(uint32_t *keys, unsigned int n);

/* rds_rdma.c: regions */
bool rds_mr_key_owned(const struct rds_sock *rs, uint32_t key);
/* Was key a region's among the last ones freed? Under rds_mr_lock. */
bool rds_mr_key_freed(uint32_t key);
int rds_rdma_map(struct rds_sock *rs, const struct rds_get_mr_args *a,
		 const struct rds_rdma_given *g, uint64_t *cookie);

/* What the executor's target half found of a request's key
 * (rds_rdma_exec.c), for rds_rdma_guard_key. */
enum rds_key_check {
	RDS_KEY_OK,		/* a live region of the target address (its
				 * bounds and rights are another matter) */
	RDS_KEY_STALE,		/* no live region: one freed lately had it */
	RDS_KEY_BAD,		/* names no region of the target address */
};

/* rds_rdma_guard.c: wrong keys, on the engine that owns tc, the
 * connection the request came in on (its local address the target). Is
 * tc held off RDMA after a reset for wrong keys (the request is then
 * refused, DROPPED, its key not looked at)? */
bool rds_rdma_guard_held(struct rds_conn *tc);
/* A request on tc had a wrong key (kc RDS_KEY_STALE or RDS_KEY_BAD):
 * count it; past the limit, log, reset tc and hold it off. */
void rds_rdma_guard_key(struct rds_conn *tc, enum rds_key_check kc);

#endif /* RDS_RDMA_PRIVATE_H */

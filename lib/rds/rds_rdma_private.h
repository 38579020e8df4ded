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
int rds_rdma_map(struct rds_sock *rs, const struct rds_get_mr_args *a,
		 uint64_t *cookie);

#endif /* RDS_RDMA_PRIVATE_H */

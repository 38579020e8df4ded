/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RDS_XRING_H
#define RDS_XRING_H

/*
 * A single-producer single-consumer ring of 64-bit entries in memory
 * shared with another process (a client's region), that each side can
 * use without trusting the other.
 *
 * rte_ring keeps its geometry (size, mask, capacity) in the shared
 * struct, where a client could change it between an engine's check and
 * its use and make the engine index outside the ring. Here each side
 * keeps the geometry and its own index privately (struct rds_xring_end);
 * the shared part holds only the two tails and the slots, so the worst a
 * client can do is hand its peer garbage entries (which the engine
 * validates as it would any client input) or report an impossible count
 * (rds_xring_get refuses it: the caller disconnects the client).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>

struct rds_xring {
	uint32_t prod;			/* entries put (producer) */
	uint8_t pad0[RTE_CACHE_LINE_SIZE - 4];
	uint32_t cons;			/* entries taken (consumer) */
	uint8_t pad1[RTE_CACHE_LINE_SIZE - 4];
	uint64_t slot[];
} __rte_cache_aligned;

/* One side's private view. */
struct rds_xring_end {
	struct rds_xring *r;
	uint32_t size;			/* a power of two */
	uint32_t idx;			/* our next entry */
};

static inline size_t
rds_xring_bytes(uint32_t size)
{
	return sizeof(struct rds_xring) + sizeof(uint64_t) * size;
}

static inline void
rds_xring_init(struct rds_xring *r)
{
	__atomic_store_n(&r->prod, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&r->cons, 0, __ATOMIC_RELAXED);
}

/* Attach one end; the producer starts at prod, the consumer at cons. */
static inline void
rds_xring_end_init(struct rds_xring_end *x, struct rds_xring *r,
		   uint32_t size, bool producer)
{
	x->r = r;
	x->size = size;
	x->idx = __atomic_load_n(producer ? &r->prod : &r->cons,
				 __ATOMIC_ACQUIRE);
}

/* Producer: 0, or -ENOBUFS when full (by the other side's count: a
 * lying consumer only loses entries of its own). */
static inline int
rds_xring_put(struct rds_xring_end *x, uint64_t v)
{
	uint32_t cons = __atomic_load_n(&x->r->cons, __ATOMIC_ACQUIRE);

	if ((uint32_t)(x->idx - cons) >= x->size)
		return -ENOBUFS;
	x->r->slot[x->idx & (x->size - 1)] = v;
	x->idx++;
	__atomic_store_n(&x->r->prod, x->idx, __ATOMIC_RELEASE);
	return 0;
}

/* Consumer: the next entry without taking it: 1 with *v, 0 when empty,
 * -EPROTO as rds_xring_get. The slot is the producer's to rewrite until
 * taken: take it with rds_xring_skip, and use the value read here. */
static inline int
rds_xring_peek(const struct rds_xring_end *x, uint64_t *v)
{
	uint32_t prod = __atomic_load_n(&x->r->prod, __ATOMIC_ACQUIRE);
	uint32_t n = prod - x->idx;

	if (n == 0)
		return 0;
	if (unlikely(n > x->size))
		return -EPROTO;
	*v = __atomic_load_n(&x->r->slot[x->idx & (x->size - 1)],
			     __ATOMIC_RELAXED);
	return 1;
}

/* Consumer: take the entry rds_xring_peek looked at. */
static inline void
rds_xring_skip(struct rds_xring_end *x)
{
	x->idx++;
	__atomic_store_n(&x->r->cons, x->idx, __ATOMIC_RELEASE);
}

/* Consumer: 1 with *v, 0 when empty, -EPROTO when the producer reports
 * more entries than the ring holds. */
static inline int
rds_xring_get(struct rds_xring_end *x, uint64_t *v)
{
	int r = rds_xring_peek(x, v);

	if (r > 0)
		rds_xring_skip(x);
	return r;
}

/* Entries waiting, as the consumer sees them (0 on nonsense). */
static inline uint32_t
rds_xring_count(const struct rds_xring_end *x)
{
	uint32_t n = __atomic_load_n(&x->r->prod, __ATOMIC_ACQUIRE) - x->idx;

	return n > x->size ? 0 : n;
}

#endif /* RDS_XRING_H */

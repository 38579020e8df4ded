/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A single-producer single-consumer ring of pointers in this process's
 * memory: the segments of the socket and engine queues (rds_queue.h) and
 * the doorbell rings (rds_thread.h). Part of rds_private.h, which
 * includes it before rds_thread.h: include that, not this.
 *
 * rte_ring served here before. Its single-producer and single-consumer
 * paths still go through the generic head/tail protocol (a head and a
 * tail per side, a burst copy unrolled for any count): about 30
 * instructions a put and 40 a get, six times a message on the loop
 * path. This ring is Lamport's: the producer owns head, the consumer
 * tail, and each keeps the other's index as last read, reading it again
 * only when its copy says full (producer) or empty (consumer). A put or
 * a get of one is a few loads and stores, and mostly touches the other
 * side's cache line only for the slot itself. The same property as
 * rte_ring's inline functions: no EAL call, so a process without EAL
 * (an attached client) runs it.
 */
#ifndef RDS_RING_H
#define RDS_RING_H

#ifndef RDS_PRIVATE_H
#error "include rds_private.h, not rds_ring.h"
#endif

struct rds_ring {
	uint32_t size;			/* entries, a power of two */
	uint32_t mask;			/* size - 1 */
	/* The producer's line. */
	uint32_t head __rte_cache_aligned;	/* entries put (atomic) */
	uint32_t tail_seen;		/* tail as the producer last read it */
	/* The consumer's line. */
	uint32_t tail __rte_cache_aligned;	/* entries taken (atomic) */
	uint32_t head_seen;		/* head as the consumer last read it */
	/* Then size slots, from the next cache line (rds_ring_slots). */
} __rte_cache_aligned;

static inline size_t
rds_ring_bytes(uint32_t size)
{
	return sizeof(struct rds_ring) + sizeof(void *) * size;
}

static __rte_always_inline void **
rds_ring_slots(const struct rds_ring *r)
{
	return (void **)(uintptr_t)(r + 1);
}

/* size: a power of two; the memory is rds_ring_bytes(size). */
static inline void
rds_ring_init(struct rds_ring *r, uint32_t size)
{
	memset(r, 0, sizeof(*r));
	r->size = size;
	r->mask = size - 1;
}

/* Producer: room for one more now. */
static __rte_always_inline bool
rds_ring_has_room(struct rds_ring *r)
{
	uint32_t h = r->head;

	if (likely(h - r->tail_seen < r->size))
		return true;
	r->tail_seen = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	return h - r->tail_seen < r->size;
}

/* Producer: 0, or -ENOBUFS when full. */
static __rte_always_inline int
rds_ring_put(struct rds_ring *r, void *p)
{
	uint32_t h = r->head;

	if (unlikely(!rds_ring_has_room(r)))
		return -ENOBUFS;
	rds_ring_slots(r)[h & r->mask] = p;
	__atomic_store_n(&r->head, h + 1, __ATOMIC_RELEASE);
	return 0;
}

/* Consumer: up to n entries into ps; how many. */
static __rte_always_inline unsigned int
rds_ring_get(struct rds_ring *r, void **ps, unsigned int n)
{
	void **slots = rds_ring_slots(r);
	uint32_t t = r->tail, avail = r->head_seen - t;
	unsigned int i;

	if (avail < n) {
		r->head_seen = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
		avail = r->head_seen - t;
		if (avail == 0)
			return 0;
		if (n > avail)
			n = avail;
	}
	for (i = 0; i < n; i++)
		ps[i] = slots[(t + i) & r->mask];
	__atomic_store_n(&r->tail, t + n, __ATOMIC_RELEASE);
	return n;
}

/* Entries in the ring; any thread may ask (a snapshot). */
static inline uint32_t
rds_ring_count(const struct rds_ring *r)
{
	uint32_t t = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);

	return __atomic_load_n(&r->head, __ATOMIC_ACQUIRE) - t;
}

#endif /* RDS_RING_H */

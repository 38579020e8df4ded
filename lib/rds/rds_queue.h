/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Queues (rds_queue.c): the single-producer single-consumer message
 * queues of sockets and engines, with their inline put and get. Part of
 * rds_private.h, which includes it after rds_msg.h: include that, not
 * this.
 */
#ifndef RDS_QUEUE_H
#define RDS_QUEUE_H

#ifndef RDS_PRIVATE_H
#error "include rds_private.h, not rds_queue.h"
#endif

/* ------------------------------------------------------------------ */
/* Queues (rds_queue.c): single-producer single-consumer queues of
 * messages, made of rte_ring segments. Nothing is allocated until the
 * first message; a full segment is followed by one twice its size (up
 * to max entries in all), the consumer frees the segments it has left.
 * The producer side may be taken by several threads under a lock of the
 * caller's. */

/* A segment: its ring, and the next segment once the producer moved on. */
struct rds_qseg {
	struct rds_qseg *next;		/* atomic */
	uint32_t size;
	size_t bytes;
	struct rte_ring ring;		/* then its slots */
};

struct rds_queue {
	struct rds_qseg *prod;		/* producer's segment */
	struct rds_qseg *cons;		/* consumer's segment */
	struct rds_qseg *first;		/* first segment, for the consumer
					 * to find (atomic) */
	uint32_t max;			/* most entries in all (checked when
					 * a segment is added) */
	uint32_t nput;			/* entries put (producer, atomic) */
	uint32_t nget;			/* entries taken (consumer, atomic) */
};

void rds_queue_init(struct rds_queue *q, uint32_t max);
int rds_queue_put_slow(struct rds_queue *q, struct rds_msg *m);
unsigned int rds_queue_get_slow(struct rds_queue *q, struct rds_msg **ms,
				unsigned int n, unsigned int got);

/* 0, -ENOBUFS (max reached) or -ENOMEM. Producer side. */
static inline int
rds_queue_put(struct rds_queue *q, struct rds_msg *m)
{
	struct rds_qseg *s = q->prod;

	if (likely(s != NULL) &&
	    likely(rte_ring_sp_enqueue(&s->ring, m) == 0)) {
		__atomic_store_n(&q->nput, q->nput + 1, __ATOMIC_RELEASE);
		return 0;
	}
	return rds_queue_put_slow(q, m);
}

/* A put would succeed now without allocating (producer side). */
static inline bool
rds_queue_has_room(const struct rds_queue *q)
{
	return likely(q->prod != NULL) && rte_ring_free_count(&q->prod->ring) != 0;
}

/* Up to n messages; consumer side. */
static __rte_always_inline unsigned int
rds_queue_get_burst(struct rds_queue *q, struct rds_msg **ms, unsigned int n)
{
	struct rds_qseg *s = q->cons;
	unsigned int got = 0;

	if (likely(s != NULL)) {
		got = rte_ring_sc_dequeue_burst(&s->ring, (void **)ms, n, NULL);
		if (likely(got == n) ||
		    __atomic_load_n(&s->next, __ATOMIC_ACQUIRE) == NULL) {
			if (got != 0)
				__atomic_store_n(&q->nget, q->nget + got,
						 __ATOMIC_RELEASE);
			return got;
		}
	}
	return rds_queue_get_slow(q, ms, n, got);
}

/* Entries queued; any thread may ask. */
static inline uint32_t
rds_queue_count(const struct rds_queue *q)
{
	uint32_t got = __atomic_load_n(&q->nget, __ATOMIC_ACQUIRE);

	return __atomic_load_n(&q->nput, __ATOMIC_ACQUIRE) - got;
}
/* Call fn on each queued message without taking it (consumer side). */
void rds_queue_peek(const struct rds_queue *q,
		    void (*fn)(void *arg, const struct rds_msg *m), void *arg);
/* Both sides quiescent: free every message and segment. */
void rds_queue_fini(struct rds_queue *q);
/* Bytes of segment memory all queues hold. */
uint64_t rds_queue_mem_all(void);

#endif /* RDS_QUEUE_H */

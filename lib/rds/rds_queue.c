/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Socket queues: single-producer single-consumer queues of messages made
 * of rte_ring segments, so that an idle socket holds none and a busy one
 * holds what it needs.
 *
 * Nothing is allocated until the first message. When the producer finds
 * its segment full it makes one twice the size, puts the message there
 * and links it after the full one; the consumer drains a segment, then
 * follows the link and frees what it left. Entries are counted on both
 * sides (put and taken) so that anyone may read the length without
 * touching a segment, and the producer refuses beyond max entries.
 * The memory comes from libc and the rings are used through rte_ring's
 * inline functions: no EAL call, so the application side of a queue can
 * run in a process without EAL.
 */
#include <stdio.h>
#include <stdlib.h>

#include "rds_private.h"

#define RDS_QUEUE_FIRST 32		/* entries of a queue's first segment */
#define RDS_QUEUE_SEG_MAX 65536		/* largest segment */

static uint64_t rds_queue_bytes;	/* segment memory of every queue */

uint64_t
rds_queue_mem_all(void)
{
	return __atomic_load_n(&rds_queue_bytes, __ATOMIC_RELAXED);
}

void
rds_queue_init(struct rds_queue *q, uint32_t max)
{
	memset(q, 0, sizeof(*q));
	q->max = max;
}

static struct rds_qseg *
rds_qseg_new(uint32_t size)
{
	ssize_t rsz = rte_ring_get_memsize(size);
	struct rds_qseg *s;
	size_t bytes;

	if (rsz < 0)
		return NULL;
	bytes = offsetof(struct rds_qseg, ring) + (size_t)rsz;
	s = rds_mem_zalloc("rds_qseg", bytes);
	if (s == NULL)
		return NULL;
	/* The name only matters to rte_ring_lookup, which never sees it. */
	if (rte_ring_init(&s->ring, "rds_q", size,
			  RING_F_SP_ENQ | RING_F_SC_DEQ) != 0) {
		rds_mem_free(s);
		return NULL;
	}
	s->size = size;
	s->bytes = bytes;
	__atomic_fetch_add(&rds_queue_bytes, bytes, __ATOMIC_RELAXED);
	return s;
}

static void
rds_qseg_free(struct rds_qseg *s)
{
	__atomic_fetch_sub(&rds_queue_bytes, s->bytes, __ATOMIC_RELAXED);
	rds_mem_free(s);
}

/* The producer's segment is full (or there is none yet). */
int
rds_queue_put_slow(struct rds_queue *q, struct rds_msg *m)
{
	struct rds_qseg *s = q->prod, *ns;
	uint32_t size;

	if (s != NULL && rte_ring_sp_enqueue(&s->ring, m) == 0)
		goto done;
	if (q->nput - __atomic_load_n(&q->nget, __ATOMIC_ACQUIRE) >= q->max)
		return -ENOBUFS;
	size = s == NULL ? RDS_QUEUE_FIRST :
	       RTE_MIN(s->size * 2, (uint32_t)RDS_QUEUE_SEG_MAX);
	size = RTE_MIN(size, rte_align32pow2(q->max));
	ns = rds_qseg_new(RTE_MAX(size, 2u));
	if (ns == NULL)
		return -ENOMEM;
	rte_ring_sp_enqueue(&ns->ring, m);
	/* The consumer finds the segment only after its first entry. */
	if (s != NULL)
		__atomic_store_n(&s->next, ns, __ATOMIC_RELEASE);
	else
		__atomic_store_n(&q->first, ns, __ATOMIC_RELEASE);
	q->prod = ns;
done:
	__atomic_store_n(&q->nput, q->nput + 1, __ATOMIC_RELEASE);
	return 0;
}

/* The consumer's segment ran out (got taken from it already), or it has
 * none yet: go on with the next ones. */
unsigned int
rds_queue_get_slow(struct rds_queue *q, struct rds_msg **ms, unsigned int n,
		   unsigned int got)
{
	struct rds_qseg *s = q->cons, *next;

	if (s == NULL) {
		s = __atomic_load_n(&q->first, __ATOMIC_ACQUIRE);
		if (s == NULL)
			return 0;
		q->cons = s;
		got += rte_ring_sc_dequeue_burst(&s->ring, (void **)ms + got,
						 n - got, NULL);
	}
	while (got < n) {
		next = __atomic_load_n(&s->next, __ATOMIC_ACQUIRE);
		if (next == NULL)
			break;
		/* The producer moved on after its last entry here: what it
		 * put before that is visible now. */
		got += rte_ring_sc_dequeue_burst(&s->ring, (void **)ms + got,
						 n - got, NULL);
		if (got == n)
			break;
		q->cons = next;
		rds_qseg_free(s);
		s = next;
		got += rte_ring_sc_dequeue_burst(&s->ring, (void **)ms + got,
						 n - got, NULL);
	}
	if (got != 0)
		__atomic_store_n(&q->nget, q->nget + got, __ATOMIC_RELEASE);
	return got;
}

/* Entries between the consumer's head and the producer's tail, without
 * taking them (rte_ring_core.h: the slots follow struct rte_ring). */
static void
rds_qseg_peek(const struct rds_qseg *s,
	      void (*fn)(void *arg, const struct rds_msg *m), void *arg)
{
	const struct rte_ring *r = &s->ring;
	void *const *slots = (void *const *)(const void *)&r[1];
	uint32_t head = r->cons.head;
	uint32_t tail = __atomic_load_n(&r->prod.tail, __ATOMIC_ACQUIRE);
	uint32_t i;

	for (i = head; i != tail; i++)
		fn(arg, slots[i & r->mask]);
}

void
rds_queue_peek(const struct rds_queue *q,
	       void (*fn)(void *arg, const struct rds_msg *m), void *arg)
{
	const struct rds_qseg *s = q->cons;

	if (s == NULL)
		s = __atomic_load_n(&q->first, __ATOMIC_ACQUIRE);
	for (; s != NULL; s = __atomic_load_n(&s->next, __ATOMIC_ACQUIRE))
		rds_qseg_peek(s, fn, arg);
}

void
rds_queue_fini(struct rds_queue *q)
{
	struct rds_msg *ms[RDS_BURST];
	unsigned int n, i;
	struct rds_qseg *s, *next;

	while ((n = rds_queue_get_burst(q, ms, RDS_BURST)) != 0)
		for (i = 0; i < n; i++)
			rds_msg_free(ms[i]);
	s = q->cons != NULL ? q->cons : q->first;
	for (; s != NULL; s = next) {
		next = s->next;
		rds_qseg_free(s);
	}
	rds_queue_init(q, q->max);
}

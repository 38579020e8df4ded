/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Seeded fault injection below the eth transport: drop, duplicate,
 * reorder, delay and corrupt frames at rates in parts per million, from
 * a splitmix64 generator, so that a run with the same seed, settings and
 * traffic makes the same decisions. One instance per engine, used by
 * that engine only (no lock). rds_eth.h describes the faults.
 *
 * Frames pass through three places: ready (passed on, waiting for room
 * in the caller's out[]), delayed (a FIFO by due time: the delay is the
 * same for every frame of one setting) and the reorder slots (at most
 * RDS_ETH_FAULT_DEPTH_MAX frames, since each leaves after at most that
 * many later frames).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "rds_eth.h"

#define RDS_ETH_FAULT_PPM 1000000u
#define RDS_ETH_FAULT_DEPTH_MAX 16
#define RDS_ETH_FAULT_HOLD_US 1000	/* longest a reordered frame waits */
#define RDS_ETH_FAULT_SEED UINT64_C(0x5eed0f0e7a11ab1e)
#define RDS_ETH_FAULT_Q_MIN 64

struct rds_eth_held {
	struct rte_mbuf *m;
	uint64_t t;			/* delayed: due; reordered: since */
	uint32_t left;			/* reordered: later frames to wait for */
};

/* A FIFO of held frames that grows as needed. */
struct rds_eth_fq {
	struct rds_eth_held *v;
	uint32_t cap;			/* a power of two, or 0 */
	uint32_t head;
	uint32_t n;
};

struct rds_eth_fault {
	uint64_t salt;
	uint64_t rng;
	struct rte_rds_eth_faults cfg;
	bool active;			/* a rate is not 0 */
	uint64_t delay_tsc;
	uint64_t hold_tsc;
	struct rds_eth_fq ready;
	struct rds_eth_fq delayed;
	struct rds_eth_held ro[RDS_ETH_FAULT_DEPTH_MAX];
	unsigned int nb_ro;
};

/* ------------------------------------------------------------------ */
/* Generator: splitmix64. */

static inline uint64_t
rds_eth_mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static inline uint64_t
rds_eth_rand(struct rds_eth_fault *f)
{
	f->rng += UINT64_C(0x9e3779b97f4a7c15);
	return rds_eth_mix64(f->rng);
}

/* Uniform in [0, n). */
static inline uint32_t
rds_eth_rand_below(struct rds_eth_fault *f, uint32_t n)
{
	return (uint32_t)(((rds_eth_rand(f) >> 32) * n) >> 32);
}

static inline bool
rds_eth_hit(struct rds_eth_fault *f, uint32_t ppm)
{
	if (ppm == 0)
		return false;
	if (ppm >= RDS_ETH_FAULT_PPM)
		return true;
	return rds_eth_rand_below(f, RDS_ETH_FAULT_PPM) < ppm;
}

static void
rds_eth_fault_seed(struct rds_eth_fault *f, uint64_t seed)
{
	f->rng = (seed != 0 ? seed : RDS_ETH_FAULT_SEED) ^
		 rds_eth_mix64(f->salt);
}

/* ------------------------------------------------------------------ */
/* FIFOs */

static int
rds_eth_fq_push(struct rds_eth_fq *q, struct rte_mbuf *m, uint64_t t)
{
	struct rds_eth_held *v;
	uint32_t i, cap;

	if (q->n == q->cap) {
		cap = q->cap != 0 ? q->cap * 2 : RDS_ETH_FAULT_Q_MIN;
		v = malloc(sizeof(*v) * cap);
		if (v == NULL)
			return -ENOMEM;
		for (i = 0; i < q->n; i++)
			v[i] = q->v[(q->head + i) & (q->cap - 1)];
		free(q->v);
		q->v = v;
		q->cap = cap;
		q->head = 0;
	}
	v = &q->v[(q->head + q->n) & (q->cap - 1)];
	v->m = m;
	v->t = t;
	v->left = 0;
	q->n++;
	return 0;
}

static inline struct rds_eth_held *
rds_eth_fq_first(struct rds_eth_fq *q)
{
	return q->n != 0 ? &q->v[q->head] : NULL;
}

static inline struct rte_mbuf *
rds_eth_fq_pop(struct rds_eth_fq *q)
{
	struct rte_mbuf *m = q->v[q->head].m;

	q->head = (q->head + 1) & (q->cap - 1);
	q->n--;
	return m;
}

static void
rds_eth_fq_flush(struct rds_eth_fq *q)
{
	while (q->n != 0)
		rte_pktmbuf_free(rds_eth_fq_pop(q));
}

/* Pass m on; a frame there is no memory to keep is lost (and counted as
 * dropped). */
static void
rds_eth_fault_ready(struct rds_eth_fault *f, struct rte_mbuf *m,
		    struct rte_rds_eth_stats *st)
{
	if (unlikely(rds_eth_fq_push(&f->ready, m, 0) != 0)) {
		rte_pktmbuf_free(m);
		st->fault_dropped++;
	}
}

/* ------------------------------------------------------------------ */

struct rds_eth_fault *
rds_eth_fault_create(uint64_t salt)
{
	struct rds_eth_fault *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return NULL;
	f->salt = salt;
	f->hold_tsc = rds_clock_hz() / 1000000 * RDS_ETH_FAULT_HOLD_US;
	rds_eth_fault_seed(f, 0);
	return f;
}

void
rds_eth_fault_flush(struct rds_eth_fault *f)
{
	unsigned int i;

	if (f == NULL)
		return;
	rds_eth_fq_flush(&f->ready);
	rds_eth_fq_flush(&f->delayed);
	for (i = 0; i < f->nb_ro; i++)
		rte_pktmbuf_free(f->ro[i].m);
	f->nb_ro = 0;
}

void
rds_eth_fault_free(struct rds_eth_fault *f)
{
	if (f == NULL)
		return;
	rds_eth_fault_flush(f);
	free(f->ready.v);
	free(f->delayed.v);
	free(f);
}

unsigned int
rds_eth_fault_held(const struct rds_eth_fault *f)
{
	return f->ready.n + f->delayed.n + f->nb_ro;
}

void
rds_eth_fault_set(struct rds_eth_fault *f,
		  const struct rte_rds_eth_faults *cfg)
{
	struct rte_rds_eth_faults *c = &f->cfg;

	if (cfg != NULL)
		*c = *cfg;
	else
		memset(c, 0, sizeof(*c));
	c->drop_ppm = RTE_MIN(c->drop_ppm, RDS_ETH_FAULT_PPM);
	c->dup_ppm = RTE_MIN(c->dup_ppm, RDS_ETH_FAULT_PPM);
	c->reorder_ppm = RTE_MIN(c->reorder_ppm, RDS_ETH_FAULT_PPM);
	c->delay_ppm = RTE_MIN(c->delay_ppm, RDS_ETH_FAULT_PPM);
	c->corrupt_ppm = RTE_MIN(c->corrupt_ppm, RDS_ETH_FAULT_PPM);
	c->reorder_depth = RTE_MAX(RTE_MIN(c->reorder_depth,
					   (uint32_t)RDS_ETH_FAULT_DEPTH_MAX),
				   1u);
	f->delay_tsc = (uint64_t)c->delay_us * rds_clock_hz() / 1000000;
	f->active = (c->drop_ppm | c->dup_ppm | c->reorder_ppm |
		     c->delay_ppm | c->corrupt_ppm) != 0;
	rds_eth_fault_seed(f, c->seed);
}

/* A copy of m with one byte changed, or NULL. */
static struct rte_mbuf *
rds_eth_fault_corrupt(struct rds_eth_fault *f, const struct rte_mbuf *m)
{
	struct rte_mbuf *c, *s;
	uint32_t off;
	uint8_t *b;

	if (m->pool == NULL || rte_pktmbuf_pkt_len(m) == 0)
		return NULL;
	c = rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX);
	if (c == NULL)
		return NULL;
	off = rds_eth_rand_below(f, rte_pktmbuf_pkt_len(c));
	for (s = c; off >= rte_pktmbuf_data_len(s); s = s->next)
		off -= rte_pktmbuf_data_len(s);
	b = rte_pktmbuf_mtod_offset(s, uint8_t *, off);
	*b ^= (uint8_t)(1 + rds_eth_rand_below(f, 255));
	/* What a port checked on receive no longer holds. */
	c->ol_flags &= ~(RTE_MBUF_F_RX_IP_CKSUM_MASK |
			 RTE_MBUF_F_RX_L4_CKSUM_MASK);
	return c;
}

/* One frame entering the hook. */
static void
rds_eth_fault_one(struct rds_eth_fault *f, struct rte_mbuf *m, uint64_t now,
		  struct rte_rds_eth_stats *st)
{
	const struct rte_rds_eth_faults *c = &f->cfg;
	struct rte_mbuf *x, *dup = NULL;
	struct rds_eth_held *h;

	if (rds_eth_hit(f, c->drop_ppm)) {
		rte_pktmbuf_free(m);
		st->fault_dropped++;
		return;
	}
	if (rds_eth_hit(f, c->corrupt_ppm)) {
		x = rds_eth_fault_corrupt(f, m);
		if (x != NULL) {
			rte_pktmbuf_free(m);
			m = x;
			st->fault_corrupted++;
		}
	}
	if (rds_eth_hit(f, c->dup_ppm)) {
		dup = m->pool != NULL ?
		      rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX) : NULL;
		if (dup != NULL)
			st->fault_duplicated++;
	}
	if (rds_eth_hit(f, c->delay_ppm) &&
	    rds_eth_fq_push(&f->delayed, m, now + f->delay_tsc) == 0) {
		st->fault_delayed++;
	} else if (rds_eth_hit(f, c->reorder_ppm) &&
		   f->nb_ro < RDS_ETH_FAULT_DEPTH_MAX) {
		h = &f->ro[f->nb_ro++];
		h->m = m;
		h->t = now;
		h->left = c->reorder_depth;
		st->fault_reordered++;
	} else {
		rds_eth_fault_ready(f, m, st);
	}
	if (dup != NULL)
		rds_eth_fault_ready(f, dup, st);
}

/* Release the reordered frames whose wait is over, in the order they
 * were held: one more frame went by (the first nb of them), or time. */
static void
rds_eth_fault_ro_release(struct rds_eth_fault *f, unsigned int nb,
			 uint64_t now, struct rte_rds_eth_stats *st)
{
	unsigned int i, k = 0;

	for (i = 0; i < f->nb_ro; i++) {
		struct rds_eth_held *h = &f->ro[i];

		if (i < nb && h->left > 0)
			h->left--;
		if (h->left == 0 || now - h->t >= f->hold_tsc)
			rds_eth_fault_ready(f, h->m, st);
		else
			f->ro[k++] = *h;
	}
	f->nb_ro = k;
}

uint16_t
rds_eth_fault_apply(struct rds_eth_fault *f, struct rte_mbuf **in,
		    uint16_t n, struct rte_mbuf **out, uint16_t max,
		    uint64_t now, struct rte_rds_eth_stats *st)
{
	struct rte_rds_eth_stats dummy;
	struct rds_eth_held *h;
	uint16_t i, k = 0;
	unsigned int nb;

	if (st == NULL)
		st = &dummy;
	if (likely(!f->active) && likely(rds_eth_fault_held(f) == 0)) {
		k = RTE_MIN(n, max);
		if (k != 0)
			memcpy(out, in, sizeof(*out) * k);
		for (i = k; i < n; i++)
			rds_eth_fault_ready(f, in[i], st);
		return k;
	}

	while ((h = rds_eth_fq_first(&f->delayed)) != NULL && h->t <= now)
		rds_eth_fault_ready(f, rds_eth_fq_pop(&f->delayed), st);
	rds_eth_fault_ro_release(f, 0, now, st);
	for (i = 0; i < n; i++) {
		nb = f->nb_ro;		/* held before this frame */
		rds_eth_fault_one(f, in[i], now, st);
		if (nb != 0)
			rds_eth_fault_ro_release(f, nb, now, st);
	}
	while (k < max && f->ready.n != 0)
		out[k++] = rds_eth_fq_pop(&f->ready);
	return k;
}

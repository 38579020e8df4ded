/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bind table (net/rds/bind.c): per local address, port -> bound
 * socket. Engines look a port up with two loads and no lock (a page of
 * 256 entries per port >> 8, made when a port in it is first bound);
 * binds and unbinds take the address's lock. A free port is found
 * through a bitmap of used ports and a summary of its full words, never
 * by trying ports one by one.
 */
#include <errno.h>

#include <rte_random.h>

#include "rds_private.h"

#define RDS_EPHEMERAL_FIRST 1024	/* as the kernel's rds_add_bound */
#define RDS_NB_WORDS (RDS_NB_PORTS / 64)

static inline bool
rds_port_used(const struct rds_laddr *la, uint32_t port)
{
	return (la->used[port / 64] >> (port % 64)) & 1;
}

static void
rds_port_mark(struct rds_laddr *la, uint32_t port, bool used)
{
	uint32_t w = port / 64;

	if (used)
		la->used[w] |= 1ULL << (port % 64);
	else
		la->used[w] &= ~(1ULL << (port % 64));
	if (la->used[w] == UINT64_MAX)
		la->full[w / 64] |= 1ULL << (w % 64);
	else
		la->full[w / 64] &= ~(1ULL << (w % 64));
}

/* A free port of [RDS_EPHEMERAL_FIRST, 65535], the first one at or after
 * a random start, wrapping around: a look at the start word, then at
 * most 17 summary words, each naming the words that have a free port. */
static int
rds_port_pick(struct rds_laddr *la)
{
	uint32_t start = RDS_EPHEMERAL_FIRST +
		(uint32_t)rte_rand_max(RDS_NB_PORTS - RDS_EPHEMERAL_FIRST);
	uint32_t w0 = start / 64, s0 = w0 / 64, i, s, w;
	uint64_t f, mask;

	f = ~la->used[w0] & (UINT64_MAX << (start % 64));
	if (f != 0)
		return (int)(w0 * 64 + __builtin_ctzll(f));
	for (i = 0; i <= RTE_DIM(la->full); i++) {
		s = (s0 + i) % RTE_DIM(la->full);
		mask = ~la->full[s];
		if (s == 0)	/* words below the ephemeral range */
			mask &= UINT64_MAX << (RDS_EPHEMERAL_FIRST / 64);
		if (i == 0)	/* after the start word */
			mask &= w0 % 64 == 63 ? 0 :
				UINT64_MAX << (w0 % 64 + 1);
		else if (i == RTE_DIM(la->full))	/* back to it */
			mask &= w0 % 64 == 63 ? UINT64_MAX :
				~(UINT64_MAX << (w0 % 64 + 1));
		for (; mask != 0; mask &= mask - 1) {
			w = s * 64 + (uint32_t)__builtin_ctzll(mask);
			f = ~la->used[w];
			if (f != 0)
				return (int)(w * 64 + __builtin_ctzll(f));
		}
	}
	return -EADDRINUSE;
}

/* Bind rs to *port (0: pick one, written back). */
int
rds_bind_add(struct rds_laddr *la, struct rds_sock *rs, uint16_t *port)
{
	struct rds_sock **page;
	int p = *port, ret = 0;

	rte_spinlock_lock(&la->bind_lock);
	if (la->used == NULL) {
		la->used = rds_mem_zalloc("rds_ports",
					  sizeof(uint64_t) * RDS_NB_WORDS);
		if (la->used == NULL) {
			ret = -ENOMEM;
			goto out;
		}
		/* Port 0 and the probe port are never bound. */
		rds_port_mark(la, 0, true);
		rds_port_mark(la, RDS_FLAG_PROBE_PORT, true);
	}
	if (p == 0) {
		p = rds_port_pick(la);
		if (p < 0) {
			ret = p;
			goto out;
		}
	} else if (rds_port_used(la, (uint32_t)p)) {
		ret = -EADDRINUSE;
		goto out;
	}
	page = la->ports[p >> 8];
	if (page == NULL) {
		page = rds_mem_zalloc("rds_port_page", sizeof(*page) * 256);
		if (page == NULL) {
			ret = -ENOMEM;
			goto out;
		}
		__atomic_store_n(&la->ports[p >> 8], page, __ATOMIC_RELEASE);
	}
	rds_port_mark(la, (uint32_t)p, true);
	__atomic_store_n(&page[p & 255], rs, __ATOMIC_RELEASE);
	la->nb_bound++;
	*port = (uint16_t)p;
out:
	rte_spinlock_unlock(&la->bind_lock);
	return ret;
}

/* No lookup finds the port's socket after this returns; one already
 * under way ends within its engine's pass. */
void
rds_bind_del(struct rds_laddr *la, uint16_t port, const struct rds_sock *rs)
{
	struct rds_sock **page;

	rte_spinlock_lock(&la->bind_lock);
	page = la->ports[port >> 8];
	if (page != NULL && page[port & 255] == rs) {
		__atomic_store_n(&page[port & 255], NULL, __ATOMIC_RELEASE);
		rds_port_mark(la, port, false);
		la->nb_bound--;
	}
	rte_spinlock_unlock(&la->bind_lock);
}

void
rds_bind_fini(struct rds_laddr *la)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(la->ports); i++) {
		rds_mem_free(la->ports[i]);
		la->ports[i] = NULL;
	}
	rds_mem_free(la->used);
	la->used = NULL;
}

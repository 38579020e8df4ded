/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Channels: the only place where application threads and engines meet.
 * A channel is two single-producer single-consumer rings whose memory
 * the library allocates itself (no memzone per socket), holding message
 * offsets relative to the channel's region base.
 */
#include <stdio.h>
#include <errno.h>

#include "rds_private.h"

static struct rte_ring *
rds_ring_alloc(const char *what, int sock, unsigned int engine)
{
	char name[RTE_RING_NAMESIZE];
	struct rte_ring *r;
	ssize_t sz;

	sz = rte_ring_get_memsize(RDS_CHAN_RING_SIZE);
	if (sz < 0)
		return NULL;
	r = rds_mem_zalloc("rds_chan", (size_t)sz);
	if (r == NULL)
		return NULL;
	snprintf(name, sizeof(name), "rds_%s_%d_%u", what, sock, engine);
	if (rte_ring_init(r, name, RDS_CHAN_RING_SIZE,
			  RING_F_SP_ENQ | RING_F_SC_DEQ) != 0) {
		rds_mem_free(r);
		return NULL;
	}
	return r;
}

int
rds_chan_create(struct rds_chan *ch, int sock, unsigned int engine)
{
	ch->base = 0;
	ch->tx = rds_ring_alloc("tx", sock, engine);
	ch->rx = rds_ring_alloc("rx", sock, engine);
	ch->notify = rds_ring_alloc("nt", sock, engine);
	if (ch->tx == NULL || ch->rx == NULL || ch->notify == NULL) {
		rds_chan_destroy(ch);
		return -ENOMEM;
	}
	return 0;
}

void
rds_chan_destroy(struct rds_chan *ch)
{
	struct rds_msg *ms[RDS_BURST];
	unsigned int n, i;

	if (ch->rx != NULL) {
		while ((n = rds_chan_get_burst(ch->rx, ch->base, ms,
					       RDS_BURST)) > 0)
			for (i = 0; i < n; i++)
				rds_msg_free(ms[i]);
	}
	if (ch->notify != NULL) {
		while ((n = rds_chan_get_burst(ch->notify, ch->base, ms,
					       RDS_BURST)) > 0)
			for (i = 0; i < n; i++)
				rds_msg_free(ms[i]);
	}
	if (ch->tx != NULL) {
		while ((n = rds_chan_get_burst(ch->tx, ch->base, ms,
					       RDS_BURST)) > 0)
			for (i = 0; i < n; i++)
				rds_msg_free(ms[i]);
	}
	rds_mem_free(ch->tx);
	rds_mem_free(ch->rx);
	rds_mem_free(ch->notify);
	ch->tx = NULL;
	ch->rx = NULL;
	ch->notify = NULL;
}

/*
 * Look at up to n queued messages without taking them. Only the ring's
 * consumer may call it: entries between its head and the producer's tail
 * stay put until the consumer takes them. Objects sit right after struct
 * rte_ring (rte_ring_core.h).
 */
unsigned int
rds_chan_peek(const struct rte_ring *r, uintptr_t base, struct rds_msg **ms,
	      unsigned int n)
{
	void *const *slots = (void *const *)(const void *)&r[1];
	uint32_t head = r->cons.head;
	uint32_t tail = __atomic_load_n(&r->prod.tail, __ATOMIC_ACQUIRE);
	unsigned int i, avail = tail - head;

	if (n > avail)
		n = avail;
	for (i = 0; i < n; i++)
		ms[i] = (struct rds_msg *)((uintptr_t)slots[(head + i) & r->mask]
					   + base);
	return n;
}

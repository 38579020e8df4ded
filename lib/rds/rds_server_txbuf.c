/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Serving other processes: whose a TX buffer of a client's region is
 * (rds_server.c has the whole picture). A buffer is the client's
 * (RDS_TXB_CLIENT) until it hands it over with a request; the engine's
 * while the request, or the message made from it, is in hand
 * (RDS_TXB_HELD, rds_server_zc.c); on its way back (RDS_TXB_BACK) from
 * the moment the engine puts it on the client's txfree ring until the
 * client takes it off. What the engine reads of txfree is its own
 * shadow of it, never the region.
 */
#include <errno.h>
#include <string.h>

#include <rte_debug.h>

#include "rds_server_private.h"

/*
 * The client takes TX buffers back off txfree; what it took is its own
 * again. Its consumer index is client input: it may only move forward,
 * and not past what we put. The buffers it names are read from our own
 * copy of the ring (the shadow), never from the region.
 */
void
rds_srv_txfree_reap(struct rds_client *cl)
{
	uint32_t cons = __atomic_load_n(&cl->txfree.r->cons, __ATOMIC_ACQUIRE);
	uint32_t mask = cl->txfree.size - 1, slot;
	unsigned int c;
	int k;

	if (cons == cl->txfree_seen)
		return;
	if ((uint32_t)(cons - cl->txfree_seen) >
	    (uint32_t)(cl->txfree.idx - cl->txfree_seen)) {
		rds_client_violation(cl, "txfree consumer out of range");
		return;
	}
	for (; cl->txfree_seen != cons; cl->txfree_seen++) {
		uint64_t off = cl->txfree_shadow[cl->txfree_seen & mask];

		k = rds_region_slot(&cl->lay, RDS_POOL_TX, off, &slot);
		if (k < 0)
			continue;	/* cannot be: we put it */
		c = (unsigned int)k;
		cl->tx_state[c][slot] = RDS_TXB_CLIENT;
	}
}

/*
 * The client hands TX buffer off to the engine: it must be one of its
 * pool's, and the client's now (not given back and still on its way):
 * 0 with its class and slot, or -EPROTO (a protocol violation: the
 * caller says which). Engine of the client, or the control thread under
 * an engine call.
 */
int
rds_srv_tx_own(struct rds_client *cl, uint64_t off, unsigned int *c,
	       uint32_t *slot)
{
	int k = rds_region_slot(&cl->lay, RDS_POOL_TX, off, slot);

	if (k < 0)
		return -EPROTO;
	*c = (unsigned int)k;
	if (cl->tx_state[*c][*slot] != RDS_TXB_CLIENT) {
		/* It may have taken it back since we last looked. */
		rds_srv_txfree_reap(cl);
		if (cl->tx_state[*c][*slot] != RDS_TXB_CLIENT)
			return -EPROTO;
	}
	return 0;
}

/* Onto txfree, and into our shadow of it (rds_srv_txfree_reap). */
static int
rds_srv_txfree_put(struct rds_client *cl, uint64_t off)
{
	/* The shadow first: the client may take the entry at once. */
	cl->txfree_shadow[cl->txfree.idx & (cl->txfree.size - 1)] = off;
	return rds_xring_put(&cl->txfree, off);
}

/* TX buffer (class c, slot) goes back to the client: it is not the
 * client's again until the client takes it off txfree. */
void
rds_srv_tx_back(struct rds_client *cl, uint64_t off, unsigned int c,
		uint32_t slot)
{
	cl->tx_state[c][slot] = RDS_TXB_BACK;
	if (cl->nb_tx_back == 0 && rds_srv_txfree_put(cl, off) == 0)
		return;
	/* The client does not take them back: they wait here. A buffer is
	 * here at most once (it is not the client's to hand over again), so
	 * never more wait than its pool holds. */
	RTE_VERIFY(cl->nb_tx_back < cl->nb_tx);
	cl->tx_back[cl->nb_tx_back++] = off;
}

/* What waited for room on txfree goes onto it (service pass). */
void
rds_srv_tx_back_flush(struct rds_client *cl)
{
	uint32_t i = 0;

	while (i < cl->nb_tx_back &&
	       rds_srv_txfree_put(cl, cl->tx_back[i]) == 0)
		i++;
	if (i != 0) {
		memmove(cl->tx_back, cl->tx_back + i,
			sizeof(*cl->tx_back) * (cl->nb_tx_back - i));
		cl->nb_tx_back -= i;
	}
}

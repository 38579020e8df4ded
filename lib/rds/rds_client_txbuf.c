/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An attached process, its TX buffers (rds_client.c has the whole
 * picture): taken from this process's free lists, which what the engine
 * gave back on txfree refills; given back to them when a send did not
 * queue its buffer after all; and whether a sender waiting for one may
 * have it now (rds_client_data.c sleeps on it, the engine wakes it:
 * rds_server_wake.c, rds_srv_tx_wake).
 */
#include <errno.h>

#include "rds_client_private.h"

int
rds_cl_tx_alloc(struct rds_cl *cl, uint32_t need, uint64_t *off)
{
	unsigned int c;
	uint64_t v;
	uint32_t slot;
	int ret = -ENOBUFS;

	rte_spinlock_lock(&cl->tx_lock);
	/* What the engine gave back. */
	while (rds_xring_get(&cl->txfree, &v) > 0) {
		for (c = 0; c < RDS_REGION_NB_CLASSES; c++) {
			uint64_t base = cl->lay.pool_off[RDS_POOL_TX][c];
			uint64_t end = base + (uint64_t)
				cl->lay.pool_nb[RDS_POOL_TX][c] *
				rds_region_class_size[c];

			if (v >= base && v < end) {
				cl->tx_free[c][cl->tx_nfree[c]++] = (uint32_t)
					((v - base) / rds_region_class_size[c]);
				break;
			}
		}
	}
	for (c = 0; c < RDS_REGION_NB_CLASSES; c++) {
		if (rds_region_class_size[c] < need || cl->tx_nfree[c] == 0)
			continue;
		slot = cl->tx_free[c][--cl->tx_nfree[c]];
		*off = cl->lay.pool_off[RDS_POOL_TX][c] +
		       (uint64_t)slot * rds_region_class_size[c];
		ret = 0;
		break;
	}
	rte_spinlock_unlock(&cl->tx_lock);
	return ret;
}

/* A TX buffer that was not queued after all. */
void
rds_cl_tx_unalloc(struct rds_cl *cl, uint64_t off)
{
	unsigned int c;

	rte_spinlock_lock(&cl->tx_lock);
	for (c = 0; c < RDS_REGION_NB_CLASSES; c++) {
		uint64_t base = cl->lay.pool_off[RDS_POOL_TX][c];

		if (off >= base && off < base + (uint64_t)
		    cl->lay.pool_nb[RDS_POOL_TX][c] * rds_region_class_size[c]) {
			cl->tx_free[c][cl->tx_nfree[c]++] = (uint32_t)
				((off - base) / rds_region_class_size[c]);
			break;
		}
	}
	rte_spinlock_unlock(&cl->tx_lock);
}

/* May a TX buffer of need bytes be had (rds_cl_tx_alloc)? One is on
 * txfree, or in this process's free lists (another thread took it off
 * txfree, or did not queue it after all); or the send buffer is full
 * now, which its own waiter (RDS_ARM_OUT) waits for. A hint: the
 * sender's loop tries again. */
bool
rds_cl_tx_ready(struct rds_cl *cl, const struct rds_cl_sock *cs,
		uint32_t need)
{
	return !rds_cl_snd_room(cs) || rds_cl_tx_avail(cl, need);
}

/* What came back on txfree is not sorted by class until a taker moves
 * it (rds_cl_tx_alloc): any of it counts, so a poller may be told
 * POLLOUT once for a buffer too small, and its send, finding none, says
 * EAGAIN and sets txb_need again; the lists are then sorted and the
 * next look is exact. */
bool
rds_cl_tx_avail(struct rds_cl *cl, uint32_t need)
{
	unsigned int c;

	if (rds_xring_count(&cl->txfree) != 0)
		return true;
	for (c = 0; c < RDS_REGION_NB_CLASSES; c++)
		if (rds_region_class_size[c] >= need &&
		    __atomic_load_n(&cl->tx_nfree[c], __ATOMIC_RELAXED) != 0)
			return true;
	return false;
}

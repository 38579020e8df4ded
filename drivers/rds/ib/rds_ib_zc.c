/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Zero-copy sends (doc/ib.md): a fragment's SGE[1] points into the
 * message buffer itself instead of a copy in the send slot, with the
 * lkey of that buffer's memory registered on the connection's device.
 * The memory is the library's buffer regions (rds_buf.c): a 256 KiB slab
 * of small buffers, or one large buffer. Each is registered
 * (IBV_ACCESS_LOCAL_WRITE) the first time a fragment is sent from it on a
 * device, and stays registered while the region lives: a slab until the
 * library's fini, a large buffer until it goes back to libc (rds_buf.c
 * tells us, rds_ib_zc_release). A registration that fails is not tried
 * again on that region and device: its fragments are copied.
 *
 * A frame sent in place holds a reference on the buffer (struct rds_msg
 * refs) from its post until the completion that covers its slot, or the
 * teardown of the QP (after it is destroyed: no DMA can be left): the
 * core may free the message (the peer's ACK, a cancel, a close) before
 * our completion is polled.
 */
#include <errno.h>
#include <stdlib.h>

#include "rds_ib.h"

/* A registration tried and failed: fragments from there are copied. */
#define RDS_IB_ZC_FAILED ((struct ibv_mr *)(uintptr_t)1)

/* What we hang on a buffer region: its registration on each device. */
struct rds_ib_region {
	struct ibv_mr *mr[RDS_IB_MAX_DEVS];	/* atomic: compare and swap */
};

/* The region goes (large buffer freed, or our fini). */
static void
rds_ib_zc_release(void *tp)
{
	struct rds_ib_region *ir = tp;
	unsigned int i;

	for (i = 0; i < RDS_IB_MAX_DEVS; i++)
		if (ir->mr[i] != NULL && ir->mr[i] != RDS_IB_ZC_FAILED)
			ibv_dereg_mr(ir->mr[i]);
	free(ir);
}

void
rds_ib_zc_init(void)
{
	rds_buf_listener_set(rds_ib_zc_release);
}

/* Every registration goes (before the protection domains). */
void
rds_ib_zc_fini(void)
{
	rds_buf_listener_set(NULL);
}

struct ibv_mr *
rds_ib_zc_mr(struct rds_ib_conn *ic, struct rds_msg *m, struct rds_msg **bufp)
{
	struct rds_ib_engine *ie = rds_ib_engine(ic->c->eng);
	struct rds_ib_region *ir, *nir = NULL;
	struct rds_buf_region *r;
	struct rds_msg *b = m;
	struct ibv_mr *mr, *exp;
	unsigned int d = ic->dev->idx;

	/* The buffer the payload is in: a borrowed payload's owner. */
	while (b->payload != b->buf && b->owner != NULL)
		b = b->owner;
	if (b->payload != b->buf)
		return NULL;
	/* The slab of the last message, without the regions' lock: a
	 * slab lasts as long as the library. */
	r = ic->tx_zc_slab;
	if (r == NULL || (uintptr_t)b - r->base >= r->len) {
		r = rds_buf_region_get(b);
		if (r == NULL)
			return NULL;
		if (!r->large)
			ic->tx_zc_slab = r;
	}
	ir = __atomic_load_n((struct rds_ib_region **)&r->tp, __ATOMIC_ACQUIRE);
	if (ir == NULL) {
		nir = calloc(1, sizeof(*nir));
		if (nir == NULL)
			return NULL;
		ir = NULL;
		if (__atomic_compare_exchange_n((struct rds_ib_region **)&r->tp,
						&ir, nir, false,
						__ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			ir = nir;
		else
			free(nir);	/* another engine's came first */
	}
	mr = __atomic_load_n(&ir->mr[d], __ATOMIC_ACQUIRE);
	if (mr == NULL) {
		mr = ibv_reg_mr(ic->dev->pd, (void *)r->base, r->len,
				IBV_ACCESS_LOCAL_WRITE);
		if (mr == NULL) {
			IB_LOG(WARNING, "zero-copy: ibv_reg_mr of %zu bytes: %s "
			       "(these buffers are copied)", r->len,
			       strerror(errno));
			ie->stats.tx_zc_reg_fails++;
			mr = RDS_IB_ZC_FAILED;
		} else {
			ie->stats.tx_zc_regs++;
		}
		exp = NULL;
		if (!__atomic_compare_exchange_n(&ir->mr[d], &exp, mr, false,
						 __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE)) {
			if (mr != RDS_IB_ZC_FAILED)
				ibv_dereg_mr(mr);
			mr = exp;
		}
	}
	if (mr == RDS_IB_ZC_FAILED)
		return NULL;
	*bufp = b;
	return mr;
}

/* Slot i's frame is done: the buffer it held goes (a reference on a
 * message buffer sent in place, or a copy buffer of the pool). */
static inline void
rds_ib_zc_slot_done(struct rds_ib_engine *ie, struct rds_ib_conn *ic,
		    uint32_t i)
{
	if (ic->tx_zc[i] != NULL) {
		rds_msg_put(ic->tx_zc[i]);
		ic->tx_zc[i] = NULL;
		ic->tx_zc_out--;
		if (ie != NULL)
			ie->stats.tx_zc_released++;
	}
	if (ic->tx_cp[i] != 0) {
		rds_ib_pool_put(&ic->ed->tx, ic->tx_cp[i] - 1);
		ic->tx_cp[i] = 0;
		ic->tx_cp_out--;
	}
}

/* Frames of slots [s_tail, upto) are done: their buffers go. */
void
rds_ib_zc_done(struct rds_ib_conn *ic, uint64_t upto)
{
	struct rds_ib_engine *ie = rds_ib_engine(ic->c->eng);
	uint64_t i;

	for (i = ic->s_tail; i < upto &&
	     (ic->tx_zc_out != 0 || ic->tx_cp_out != 0); i++)
		rds_ib_zc_slot_done(ie, ic, (uint32_t)(i % ic->nsend));
}

/* The QP is gone: every buffer still held goes. */
void
rds_ib_zc_drop_all(struct rds_ib_conn *ic)
{
	struct rds_ib_engine *ie = rds_ib_engine(ic->c->eng);
	uint32_t i;

	if (ic->tx_zc == NULL || ic->tx_cp == NULL)
		return;
	for (i = 0; i < ic->nsend &&
	     (ic->tx_zc_out != 0 || ic->tx_cp_out != 0); i++)
		rds_ib_zc_slot_done(ie, ic, i);
	ic->tx_zc_out = 0;
	ic->tx_cp_out = 0;
}

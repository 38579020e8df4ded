/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An attached process, RDMA keys (rds_client.c has the whole picture):
 * the sends with RDS_CMSG_RDMA_MAP and the RDS_FREE_MRs that go through
 * a socket's request ring instead of a call (rds_region.h, the key
 * ring; rds_server_rdma.c, the engine's side).
 *
 * RDMA_MAP: the engine keeps keys reserved for the socket on its key
 * ring, once the socket made its first RDMA_MAP (by a call). A send with
 * RDMA_MAP is checked here as the engine would check it, in this
 * process's memory (rds_rdma_map_check: EINVAL, EMSGSIZE, EFAULT, the
 * kernel's errno, before anything is queued), then takes a key, writes
 * the cookie where RDMA_MAP asks (the key | the offset in its first page
 * << 32, as the engine makes it), and goes with the key in its TX
 * buffer; the engine registers the region under that key when it takes
 * the send. No key left: the send is a call, as before.
 *
 * RDS_FREE_MR: the kernel says EINVAL for a key that names no region of
 * the socket, and 0 otherwise. The socket keeps the keys of the regions
 * its ring's RDMA_MAPs made (not USE_ONCE ones, which a peer's use ends
 * without telling this process): a FREE_MR of one of them without
 * RDS_RDMA_INVALIDATE goes through the ring behind the send that mapped
 * it and returns 0, as the kernel's would. Any other (another key,
 * cookie 0, INVALIDATE, whose revocation must be done when the call
 * returns) is a call, whose answer is the engine's, after the engine
 * took what the ring held before it. The one departure: a region the
 * engine could not make after all (the client changed or unmapped that
 * memory after its send, which then failed: its next send or SO_ERROR
 * said so) is freed with 0, not EINVAL.
 */
#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "rds_client_private.h"

/* The keys of the live set are the tree's pointers. */
static int
rds_cl_key_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;

	return x < y ? -1 : x > y;
}

static void
rds_cl_key_nop(void *p)
{
	RTE_SET_USED(p);
}

void
rds_cl_keys_init(struct rds_cl *cl, struct rds_cl_sock *cs, unsigned int i)
{
	rds_xring_end_init(&cs->key,
		(void *)(cl->base + rds_region_csock_ring(&cl->lay, i, 3)),
		RDS_CSOCK_KEY_RING, false);
	cs->live_keys = NULL;
	cs->nb_spare = 0;
}

void
rds_cl_keys_fini(struct rds_cl_sock *cs)
{
	tdestroy(cs->live_keys, rds_cl_key_nop);
	cs->live_keys = NULL;
	cs->nb_spare = 0;
}

bool
rds_cl_key_avail(struct rds_cl_sock *cs)
{
	return __atomic_load_n(&cs->nb_spare, __ATOMIC_RELAXED) != 0 ||
	       rds_xring_count(&cs->key) != 0;
}

int
rds_cl_map_take(struct rds_cl_sock *cs, const struct rds_get_mr_args *a,
		uint64_t cookie_off, uint32_t *key)
{
	uint64_t k = 0, cookie;
	int r = 0;

	rte_spinlock_lock(&cs->lock);
	if (cs->nb_spare != 0) {
		k = cs->spare[--cs->nb_spare];
		r = 1;
	} else {
		/* The engine's entries: a key, nothing else to check (the
		 * engine checks it is one of this socket's when it takes
		 * the send). */
		r = rds_xring_get(&cs->key, &k) > 0;
	}
	rte_spinlock_unlock(&cs->lock);
	if (!r)
		return -ENOENT;
	*key = (uint32_t)k;
	cookie = (uint64_t)*key | (cookie_off << 32);
	/* As in-process: a bad address faults here, in the caller. */
	if (a->cookie_addr != 0)
		memcpy((void *)(uintptr_t)a->cookie_addr, &cookie,
		       sizeof(cookie));
	return 0;
}

void
rds_cl_map_untake(struct rds_cl_sock *cs, uint32_t key)
{
	rte_spinlock_lock(&cs->lock);
	/* A key not used after all: the next RDMA_MAP's. One that does not
	 * fit stays reserved, unused, until the socket closes. */
	if (cs->nb_spare < RTE_DIM(cs->spare))
		cs->spare[cs->nb_spare++] = key;
	rte_spinlock_unlock(&cs->lock);
}

void
rds_cl_map_done(struct rds_cl_sock *cs, const struct rds_get_mr_args *a,
		uint32_t key)
{
	if (a->flags & RDS_RDMA_USE_ONCE)
		return;
	rte_spinlock_lock(&cs->lock);
	/* No memory: not known here, its FREE_MR is a call. */
	(void)tsearch((void *)(uintptr_t)key, &cs->live_keys, rds_cl_key_cmp);
	rte_spinlock_unlock(&cs->lock);
}

bool
rds_cl_key_live(struct rds_cl_sock *cs, uint32_t key)
{
	bool live;

	rte_spinlock_lock(&cs->lock);
	live = key != 0 && tfind((void *)(uintptr_t)key, &cs->live_keys,
				 rds_cl_key_cmp) != NULL;
	rte_spinlock_unlock(&cs->lock);
	return live;
}

/*
 * RDS_FREE_MR of a region this socket's ring mapped, without
 * INVALIDATE: through the ring (1: done, the call's answer is 0), or 0:
 * make the call. The length and value are the kernel's first checks
 * (EINVAL, EFAULT): anything but a whole struct is a call.
 */
int
rds_cl_free_mr(struct rds_cl *cl, struct rds_cl_sock *cs, const void *optval,
	       socklen_t optlen)
{
	struct rds_free_mr_args a;
	struct rds_cbuf *b;
	uint32_t key;
	uint64_t off;
	void *node;

	if (optval == NULL || optlen != sizeof(a))
		return 0;
	memcpy(&a, optval, sizeof(a));
	key = (uint32_t)a.cookie;
	if (a.cookie == 0 || (a.flags & RDS_RDMA_INVALIDATE)) {
		/* A call frees it (them all): not ours to free again. */
		rte_spinlock_lock(&cs->lock);
		if (a.cookie == 0) {
			tdestroy(cs->live_keys, rds_cl_key_nop);
			cs->live_keys = NULL;
		} else {
			tdelete((void *)(uintptr_t)key, &cs->live_keys,
				rds_cl_key_cmp);
		}
		rte_spinlock_unlock(&cs->lock);
		return 0;
	}
	if (!rds_cl_key_live(cs, key))
		return 0;
	if (rds_cl_tx_alloc(cl, RDS_CBUF_HDR, &off) != 0)
		return 0;
	b = (void *)(cl->base + off);
	memset(b, 0, sizeof(*b));
	b->flags = RDS_CBUF_F_FREE;
	b->csock = (int32_t)(cs - cl->socks);
	b->rdma_dest = a.cookie;
	rte_spinlock_lock(&cs->lock);
	/* Out of the set with the request in the ring, under the lock the
	 * ring's producer holds: another free of it is a call (EINVAL),
	 * after the engine took this one (the call drains the ring). */
	node = tfind((void *)(uintptr_t)key, &cs->live_keys, rds_cl_key_cmp);
	if (node == NULL || rds_xring_put(&cs->req, off) != 0) {
		rte_spinlock_unlock(&cs->lock);
		rds_cl_tx_unalloc(cl, off);
		return 0;
	}
	tdelete((void *)(uintptr_t)key, &cs->live_keys, rds_cl_key_cmp);
	rte_spinlock_unlock(&cs->lock);
	if (__atomic_exchange_n(&cs->cs->queued, 1, __ATOMIC_SEQ_CST) == 0 &&
	    rds_cl_bell(cl, (uint32_t)(cs - cl->socks)) != 0)
		return 0;	/* the engine went: the call says so */
	return 1;
}

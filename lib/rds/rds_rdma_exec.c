/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA, the software executor (rds_rdma.c has the whole picture): what
 * transports without RDMA hardware (loop, eth) run on the target's side,
 * checking every access against the region's bounds and rights under
 * the table's lock, and the initiator's half (the request it sends, the
 * data and the notification it gets back).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "rds_rdma_private.h"

/* ------------------------------------------------------------------ */
/* The software executor. */

/* Look up the target region and check bounds and rights. Under the
 * read lock. Returns the target address, or NULL for REMOTE_ERROR; *kc
 * tells a wrong key from the rest. */
static uint8_t *
rds_mr_target(const struct in6_addr *target, uint64_t cookie, uint64_t off,
	      uint64_t len, bool write, struct rds_mr **mrp,
	      enum rds_key_check *kc)
{
	uint32_t key = (uint32_t)cookie;
	uint64_t pos = (cookie >> 32) + off;
	struct rds_mr *mr;
	void *data;

	*kc = RDS_KEY_BAD;
	if (rte_hash_lookup_data(rds_mr_hash, &key, &data) < 0) {
		if (rds_mr_key_freed(key))
			*kc = RDS_KEY_STALE;
		return NULL;
	}
	mr = data;
	/* A key reserved for a client's socket names no region yet. */
	if (mr->state != RDS_MR_LIVE) {
		if (mr->state == RDS_MR_CANCELLED)
			*kc = RDS_KEY_STALE;
		return NULL;
	}
	/* Only the address the region was registered on may be reached. */
	if (!rds_addr_eq(&mr->laddr, target))
		return NULL;
	*kc = RDS_KEY_OK;
	if (pos < off || pos > mr->len || len > mr->len - pos)
		return NULL;
	if (write && !(mr->flags & RDS_RDMA_READWRITE))
		return NULL;
	*mrp = mr;
	return (uint8_t *)(uintptr_t)mr->base + pos;
}

static uint64_t
rds_masked_fadd(uint64_t old, uint64_t add, uint64_t nocarry)
{
	uint64_t res = 0, carry = 0, s;
	unsigned int b;

	for (b = 0; b < 64; b++) {
		s = ((old >> b) & 1) + ((add >> b) & 1) + carry;
		res |= (s & 1) << b;
		carry = (nocarry >> b) & 1 ? 0 : s >> 1;
	}
	return res;
}

/* The atomics on a client's word (rds_xmem_atomic). */
static uint64_t
rds_atomic_apply(uint64_t o, const void *arg)
{
	const struct rds_rdma_req *rq = arg;

	switch (rq->kind) {
	case RDS_OP_FADD:
		return o + rq->swap_add;
	case RDS_OP_CSWP:
		return o == rq->compare ? rq->swap_add : o;
	case RDS_OP_MFADD:
		return rds_masked_fadd(o, rq->swap_add, rq->mask1);
	case RDS_OP_MCSWP:
		if ((o & rq->mask1) != (rq->compare & rq->mask1))
			return o;
		return (o & ~rq->mask2) | (rq->swap_add & rq->mask2);
	default:
		return o;
	}
}

/* rds_rdma_target on a region of client x at its address p. */
static int
rds_rdma_target_client(const struct rds_xmem *x, const struct rds_rdma_req *rq, uint8_t *p,
		       const struct iovec *rdst, uint32_t nrdst, uint64_t *o)
{
	uint64_t off = 0;
	uint32_t i;

	switch (rq->kind) {
	case RDS_OP_READ:
		for (i = 0; i < nrdst && off < rq->bytes; i++) {
			size_t n = RTE_MIN(rdst[i].iov_len,
					   (size_t)(rq->bytes - off));

			if (rds_xmem_read(x, rdst[i].iov_base,
					  (uintptr_t)(p + off), n) != 0)
				return RDS_RDMA_REMOTE_ERROR;
			off += n;
		}
		return RDS_RDMA_SUCCESS;
	case RDS_OP_WRITE:
		return rds_xmem_write(x, (uintptr_t)p, rq->wdata,
				      rq->bytes) == 0 ? RDS_RDMA_SUCCESS :
		       RDS_RDMA_REMOTE_ERROR;
	case RDS_OP_FADD:
	case RDS_OP_CSWP:
	case RDS_OP_MFADD:
	case RDS_OP_MCSWP:
		return rds_xmem_atomic(x, (uintptr_t)p, rds_atomic_apply, rq,
				       o) == 0 ? RDS_RDMA_SUCCESS :
		       RDS_RDMA_REMOTE_ERROR;
	default:
		return RDS_RDMA_REMOTE_ERROR;
	}
}

/*
 * The target half of the software executor: run one request that came
 * in on connection tc against the regions of its local address, as an
 * RDMA NIC's responder would. READ data is scattered into rdst (nrdst
 * iovecs, rq->bytes in all): the initiator's own vector within one
 * process, a frame's payload across a network. WRITE data comes from
 * rq->wdata. Atomics return the old value in *old. Returns
 * RDS_RDMA_SUCCESS or RDS_RDMA_REMOTE_ERROR (a wrong key, bounds,
 * rights: the initiator cannot tell which), or RDS_RDMA_DROPPED while tc
 * is held off for wrong keys (rds_rdma_guard.c: the key is not even
 * looked up); nothing is read or written outside a region the cookie
 * names (bounds and rights checked under the table's lock), and nothing
 * at all on an error. USE_ONCE regions end after their use. On tc's
 * engine.
 */
int
rds_rdma_target(struct rds_conn *tc, const struct rds_rdma_req *rq,
		const struct iovec *rdst, uint32_t nrdst, uint64_t *old)
{
	bool write = rq->kind != RDS_OP_READ;
	struct rds_mr *mr = NULL;
	enum rds_key_check kc;
	uint8_t *p;
	uint64_t o = 0, off = 0, nv;
	uint32_t i, key = (uint32_t)rq->cookie;
	bool use_once;

	if (rds_rdma_guard_held(tc))
		return RDS_RDMA_DROPPED;
	if (rq->kind >= RDS_OP_FADD && rq->bytes != 8)
		return RDS_RDMA_REMOTE_ERROR;
	rte_rwlock_read_lock(&rds_mr_lock);
	p = rds_mr_target(&tc->key.laddr, rq->cookie, rq->remote_off,
			  rq->bytes, write, &mr, &kc);
	if (p == NULL || (rq->kind >= RDS_OP_FADD && ((uintptr_t)p & 7) != 0)) {
		rte_rwlock_read_unlock(&rds_mr_lock);
		if (kc != RDS_KEY_OK)
			rds_rdma_guard_key(tc, kc);
		return RDS_RDMA_REMOTE_ERROR;
	}
	if (mr->mem != NULL) {
		/* An attached client's region: reached through its memory
		 * descriptor (a client that went, exec'd or unmapped it:
		 * REMOTE_ERROR). */
		int st = rds_rdma_target_client(mr->mem, rq, p, rdst, nrdst,
						&o);

		use_once = mr->flags & RDS_RDMA_USE_ONCE;
		rte_rwlock_read_unlock(&rds_mr_lock);
		if (st != RDS_RDMA_SUCCESS)
			return st;
		if (old != NULL)
			*old = o;
		if (use_once)
			rds_mr_unuse(key);
		return RDS_RDMA_SUCCESS;
	}
	switch (rq->kind) {
	case RDS_OP_READ:
		for (i = 0; i < nrdst && off < rq->bytes; i++) {
			size_t n = RTE_MIN(rdst[i].iov_len,
					   (size_t)(rq->bytes - off));

			memcpy(rdst[i].iov_base, p + off, n);
			off += n;
		}
		break;
	case RDS_OP_WRITE:
		memcpy(p, rq->wdata, rq->bytes);
		break;
	case RDS_OP_FADD:
		o = __atomic_fetch_add((uint64_t *)p, rq->swap_add,
				       __ATOMIC_ACQ_REL);
		break;
	case RDS_OP_CSWP:
		o = rq->compare;
		__atomic_compare_exchange_n((uint64_t *)p, &o, rq->swap_add,
					    false, __ATOMIC_ACQ_REL,
					    __ATOMIC_ACQUIRE);
		break;
	case RDS_OP_MFADD:
		o = __atomic_load_n((uint64_t *)p, __ATOMIC_ACQUIRE);
		do {
			nv = rds_masked_fadd(o, rq->swap_add, rq->mask1);
		} while (!__atomic_compare_exchange_n((uint64_t *)p, &o, nv,
				false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
		break;
	case RDS_OP_MCSWP:
		o = __atomic_load_n((uint64_t *)p, __ATOMIC_ACQUIRE);
		do {
			if ((o & rq->mask1) != (rq->compare & rq->mask1))
				break;
			nv = (o & ~rq->mask2) | (rq->swap_add & rq->mask2);
		} while (!__atomic_compare_exchange_n((uint64_t *)p, &o, nv,
				false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
		break;
	default:
		rte_rwlock_read_unlock(&rds_mr_lock);
		return RDS_RDMA_REMOTE_ERROR;
	}
	use_once = mr->flags & RDS_RDMA_USE_ONCE;
	rte_rwlock_read_unlock(&rds_mr_lock);
	if (old != NULL)
		*old = o;
	if (use_once)
		rds_mr_unuse(key);
	return RDS_RDMA_SUCCESS;
}

/* What the initiator sends the target for op. */
void
rds_rdma_req_of(const struct rds_rdma_op *op, struct rds_rdma_req *rq)
{
	rq->kind = op->kind;
	rq->cookie = op->cookie;
	rq->remote_off = op->remote_off;
	rq->bytes = op->bytes;
	rq->compare = op->compare;
	rq->swap_add = op->swap_add;
	rq->mask1 = op->mask1;
	rq->mask2 = op->mask2;
	rq->wdata = op->data;
}

/*
 * The initiator half: the target answered status; READ data (rdata,
 * op->bytes long, when it did not land in the local vector already)
 * goes to the local vector, an atomic's old value to its result word.
 * The notification itself follows the message (rds_rdma_notify).
 */
void
rds_rdma_initiator_done(struct rds_rdma_op *op, int status,
			const uint8_t *rdata, uint64_t old)
{
	uint64_t off = 0;
	uint32_t i;

	op->status = status;
	op->executed = true;
	if (status != RDS_RDMA_SUCCESS)
		return;
	/* A client's local memory that went since its send (its queued
	 * operations' buffers are not looked at again when the engine
	 * takes them, rds_rdma_args_parse): the data is lost with it, and
	 * the operation ends with RDS_RDMA_OTHER_ERROR, as if the engine
	 * had found it gone when it took the send. */
	if (op->kind == RDS_OP_READ && rdata != NULL) {
		for (i = 0; i < op->nr_local && off < op->bytes; i++) {
			size_t n = RTE_MIN(op->local[i].iov_len,
					   (size_t)(op->bytes - off));

			if (rds_xmem_write(op->mem,
					   (uintptr_t)op->local[i].iov_base,
					   rdata + off, n) != 0) {
				op->status = RDS_RDMA_OTHER_ERROR;
				break;
			}
			off += n;
		}
	} else if (op->kind >= RDS_OP_FADD) {
		if (rds_xmem_write(op->mem, (uintptr_t)op->atomic_result,
				   &old, sizeof(old)) != 0)
			op->status = RDS_RDMA_OTHER_ERROR;
	}
}

/* Both halves in one process (loop): READ data lands in the local vector
 * directly. target is the target's end of the connection (its local
 * address the one the operation is for: rds_rdma_target). */
int
rds_rdma_sw_exec(struct rds_conn *target, struct rds_rdma_op *op)
{
	struct rds_rdma_req rq;
	uint64_t old = 0;
	uint8_t *bounce;
	struct iovec b;
	int st;

	rds_rdma_req_of(op, &rq);
	if (op->mem != NULL && op->kind == RDS_OP_READ) {
		/* A client's local vector: through a buffer of ours. */
		bounce = malloc(op->bytes);
		if (bounce == NULL) {
			rds_rdma_initiator_done(op, RDS_RDMA_OTHER_ERROR, NULL,
						0);
			return RDS_RDMA_OTHER_ERROR;
		}
		b.iov_base = bounce;
		b.iov_len = op->bytes;
		st = rds_rdma_target(target, &rq, &b, 1, &old);
		rds_rdma_initiator_done(op, st, bounce, old);
		free(bounce);
		return op->status;
	}
	st = rds_rdma_target(target, &rq, op->local, op->nr_local, &old);
	rds_rdma_initiator_done(op, st, NULL, old);
	return op->status;
}

/* At most one notification per op: always with NOTIFY_ME, and on a
 * failure with RDS_RECVERR. Engine side. */
void
rds_rdma_notify(struct rds_engine *e, const struct rds_msg *m, int status)
{
	if (m->op != NULL)
		rds_rdma_op_notify(e, m->op, status);
}

void
rds_rdma_op_completed(struct rds_engine *e, struct rds_rdma_op *op,
		      int status)
{
	op->status = status;
	op->done = true;
	if (status == RDS_RDMA_SUCCESS)
		op->executed = true;
	rds_rdma_op_notify(e, op, status);
}

void
rds_rdma_op_notify(struct rds_engine *e, struct rds_rdma_op *op, int status)
{
	struct rds_sock *rs;

	if (op->notified || op->sock < 0)
		return;
	op->notified = true;
	rs = rds_sock_engine_get(op->sock, op->sock_gen);
	if (rs == NULL)
		return;
	if ((op->flags & RDS_RDMA_NOTIFY_ME) ||
	    (status != RDS_RDMA_SUCCESS && op->recverr)) {
		if (unlikely(rs->client != NULL))
			rds_server_notify(e, rs, op->token, status);
		else
			rds_notify_queue(e, rs, op->token, status);
	}
}

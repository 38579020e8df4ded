/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA over verbs (net/rds/ib_rdma.c, ib_send.c): regions registered
 * zero-based on the address's device (ibv_reg_mr_iova with an IOVA of 0
 * at the first page, as the kernel's FRWR registration), so that kernel
 * peers use our cookies and we theirs; READ, WRITE and atomic work
 * requests posted before the SEND that carries the message, that SEND
 * fenced. The local side goes through a registered bounce buffer.
 */
#include <errno.h>
#include <stdlib.h>

#include "rds_ib.h"

/*
 * Registration cache: a region freed without INVALIDATE stays registered
 * (rds-rdma(7) allows lazy revocation) and a new GET_MR of the same pages
 * with the same rights takes it back without a system call. INVALIDATE,
 * USE_ONCE after its use, and close deregister at once.
 */
#define RDS_IB_MR_CACHE 64

struct rds_ib_mr_cached {
	struct ibv_mr *imr;
	struct rds_ib_dev *dev;
	uintptr_t base;
	uint64_t len;
	int access;
	uint64_t age;
};

static struct rds_ib_mr_cached rds_ib_mr_cache[RDS_IB_MR_CACHE];
static uint64_t rds_ib_mr_clock;
static rte_spinlock_t rds_ib_mr_lock = RTE_SPINLOCK_INITIALIZER;

struct rds_ib_mr_priv {
	struct ibv_mr *imr;
	struct rds_ib_dev *dev;
	int access;
};

static struct ibv_mr *
rds_ib_mr_cache_take(struct rds_ib_dev *d, uintptr_t base, uint64_t len,
		     int access)
{
	struct ibv_mr *imr = NULL;
	unsigned int i;

	rte_spinlock_lock(&rds_ib_mr_lock);
	for (i = 0; i < RDS_IB_MR_CACHE; i++) {
		struct rds_ib_mr_cached *e = &rds_ib_mr_cache[i];

		if (e->imr != NULL && e->dev == d && e->base == base &&
		    e->len == len && e->access == access) {
			imr = e->imr;
			e->imr = NULL;
			break;
		}
	}
	rte_spinlock_unlock(&rds_ib_mr_lock);
	return imr;
}

/* Keep imr; the oldest entry makes room. Returns what to deregister. */
static struct ibv_mr *
rds_ib_mr_cache_put(struct rds_ib_dev *d, struct ibv_mr *imr, int access)
{
	struct rds_ib_mr_cached *slot = NULL;
	struct ibv_mr *evicted;
	unsigned int i;

	rte_spinlock_lock(&rds_ib_mr_lock);
	for (i = 0; i < RDS_IB_MR_CACHE; i++) {
		struct rds_ib_mr_cached *e = &rds_ib_mr_cache[i];

		if (e->imr == NULL) {
			slot = e;
			break;
		}
		if (slot == NULL || e->age < slot->age)
			slot = e;
	}
	evicted = slot->imr;
	slot->imr = imr;
	slot->dev = d;
	slot->base = (uintptr_t)imr->addr;
	slot->len = imr->length;
	slot->access = access;
	slot->age = ++rds_ib_mr_clock;
	rte_spinlock_unlock(&rds_ib_mr_lock);
	return evicted;
}

void
rds_ib_mr_cache_flush(void)
{
	unsigned int i;

	rte_spinlock_lock(&rds_ib_mr_lock);
	for (i = 0; i < RDS_IB_MR_CACHE; i++) {
		if (rds_ib_mr_cache[i].imr != NULL)
			ibv_dereg_mr(rds_ib_mr_cache[i].imr);
		rds_ib_mr_cache[i].imr = NULL;
	}
	rte_spinlock_unlock(&rds_ib_mr_lock);
}

int
rds_ib_mr_reg(const struct rds_laddr *la, struct rds_mr *mr)
{
	struct rds_ib_dev *d = rds_ib_laddr_dev[la->index];
	struct rds_ib_mr_priv *p;
	struct ibv_mr *imr;
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ;

	if (d == NULL)
		return -ENODEV;
	/* Atomics write too: only a writable region takes them, as with
	 * the software executor. */
	if (mr->flags & RDS_RDMA_READWRITE)
		access |= IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC;
	p = rds_mem_zalloc("rds_ib_mr", sizeof(*p));
	if (p == NULL)
		return -ENOMEM;
	imr = rds_ib_mr_cache_take(d, mr->base, mr->len, access);
	if (imr == NULL)
		imr = ibv_reg_mr_iova(d->pd, (void *)mr->base, mr->len, 0,
				      access);
	if (imr == NULL) {
		IB_LOG(ERR, "ibv_reg_mr_iova: %s", strerror(errno));
		rds_mem_free(p);
		return errno == ENOMEM ? -EAGAIN : -EINVAL;
	}
	p->imr = imr;
	p->dev = d;
	p->access = access;
	mr->key = imr->rkey;
	mr->tp = p;
	return 0;
}

void
rds_ib_mr_free(struct rds_mr *mr)
{
	struct rds_ib_mr_priv *p = mr->tp;
	struct ibv_mr *drop;

	if (p == NULL)
		return;
	drop = p->imr;
	if (!mr->invalidate && !(mr->flags & RDS_RDMA_USE_ONCE))
		drop = rds_ib_mr_cache_put(p->dev, p->imr, p->access);
	if (drop != NULL)
		ibv_dereg_mr(drop);
	rds_mem_free(p);
	mr->tp = NULL;
}

int
rds_ib_bounce_setup(struct rds_ib_conn *ic)
{
	size_t sz = (size_t)RDS_IB_BOUNCE_NB * RDS_IB_BOUNCE_SIZE;

	if (posix_memalign((void **)&ic->bounce, 4096, sz) != 0)
		return -ENOMEM;
	ic->bounce_mr = ibv_reg_mr(ic->dev->pd, ic->bounce, sz,
				   IBV_ACCESS_LOCAL_WRITE);
	if (ic->bounce_mr == NULL)
		return -ENOMEM;
	ic->bounce_free = (1u << RDS_IB_BOUNCE_NB) - 1;
	return 0;
}

void
rds_ib_bounce_free(struct rds_ib_conn *ic)
{
	if (ic->bounce_mr != NULL)
		ibv_dereg_mr(ic->bounce_mr);
	ic->bounce_mr = NULL;
	free(ic->bounce);
	ic->bounce = NULL;
	ic->bounce_free = 0;
}

/* Post op's work request in the next send slot (the caller checked
 * there is one). The slot remembers the op until its completion; the
 * local side goes through one of the connection's registered bounce
 * buffers (-EAGAIN while all are in flight). */
int
rds_ib_post_op(struct rds_ib_conn *ic, struct rds_rdma_op *op)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	uint64_t len = op->kind >= RDS_OP_FADD ? 8 : op->bytes;
	unsigned int b;
	uint8_t *buf;
	int ret;

	if (ic->bounce_free == 0)
		return -EAGAIN;
	b = (unsigned int)__builtin_ctz(ic->bounce_free);
	buf = ic->bounce + (size_t)b * RDS_IB_BOUNCE_SIZE;
	if (op->kind == RDS_OP_WRITE && len != 0)
		memcpy(buf, op->data, len);
	memset(&wr, 0, sizeof(wr));
	sge.addr = (uintptr_t)buf;
	sge.length = (uint32_t)len;
	sge.lkey = ic->bounce_mr->lkey;
	wr.wr_id = ic->s_head + 1;
	wr.sg_list = &sge;
	wr.num_sge = len != 0 ? 1 : 0;
	wr.send_flags = IBV_SEND_SIGNALED;
	/* Zero-based regions: the remote address is an offset. */
	switch (op->kind) {
	case RDS_OP_READ:
	case RDS_OP_WRITE:
		wr.opcode = op->kind == RDS_OP_READ ? IBV_WR_RDMA_READ :
						      IBV_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = (op->cookie >> 32) + op->remote_off;
		wr.wr.rdma.rkey = (uint32_t)op->cookie;
		break;
	case RDS_OP_FADD:
	case RDS_OP_CSWP:
		wr.opcode = op->kind == RDS_OP_FADD ?
			    IBV_WR_ATOMIC_FETCH_AND_ADD : IBV_WR_ATOMIC_CMP_AND_SWP;
		wr.wr.atomic.remote_addr = (op->cookie >> 32) + op->remote_off;
		wr.wr.atomic.rkey = (uint32_t)op->cookie;
		wr.wr.atomic.compare_add = op->kind == RDS_OP_FADD ?
					   op->swap_add : op->compare;
		wr.wr.atomic.swap = op->swap_add;
		break;
	default:
		return -EOPNOTSUPP;	/* masked: refused at sendmsg */
	}
	ret = ibv_post_send(ic->qp, &wr, &bad);
	if (ret != 0)
		return -ret;
	ic->bounce_free &= ~(1u << b);
	op->tp_mr = (void *)(uintptr_t)(b + 1);
	op->refs++;		/* the slot holds it until the completion */
	ic->op_slots[ic->s_head % ic->nsend] = op;
	ic->s_sig = wr.wr_id;
	ic->s_head++;
	ic->s_unsignaled = 0;
	return 0;
}

void
rds_ib_op_complete(struct rds_ib_conn *ic, struct rds_rdma_op *op,
		   enum ibv_wc_status st)
{
	unsigned int b = (unsigned int)(uintptr_t)op->tp_mr - 1;
	const uint8_t *buf = ic->bounce + (size_t)b * RDS_IB_BOUNCE_SIZE;
	uint64_t off = 0;
	uint32_t i;

	op->tp_mr = NULL;
	if (st == IBV_WC_SUCCESS) {
		if (op->kind == RDS_OP_READ) {
			for (i = 0; i < op->nr_local; i++) {
				memcpy(op->local[i].iov_base, buf + off,
				       op->local[i].iov_len);
				off += op->local[i].iov_len;
			}
		} else if (op->kind >= RDS_OP_FADD) {
			memcpy(op->atomic_result, buf, 8);
		}
		rds_rdma_op_notify(ic->c->eng, op, RDS_RDMA_SUCCESS);
	} else if (st == IBV_WC_REM_ACCESS_ERR) {
		rds_rdma_op_notify(ic->c->eng, op, RDS_RDMA_REMOTE_ERROR);
	} else if (st != IBV_WC_WR_FLUSH_ERR) {
		rds_rdma_op_notify(ic->c->eng, op, RDS_RDMA_OTHER_ERROR);
	}
	/* A flushed one is told DROPPED when its message is dropped. */
	ic->bounce_free |= 1u << b;
	rds_rdma_op_free(op);
}

/* The QP is gone: operations still in flight never complete. */
void
rds_ib_ops_release(struct rds_ib_conn *ic)
{
	uint32_t i;

	if (ic->op_slots == NULL)
		return;
	for (i = 0; i < ic->nsend; i++) {
		struct rds_rdma_op *op = ic->op_slots[i];

		if (op == NULL)
			continue;
		ic->op_slots[i] = NULL;
		rds_ib_op_complete(ic, op, IBV_WC_WR_FLUSH_ERR);
	}
}

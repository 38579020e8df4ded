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
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <unistd.h>

#include "rds_ib.h"

/*
 * Registration cache: a region freed without INVALIDATE stays registered
 * (rds-rdma(7) allows lazy revocation) and a new GET_MR of the same pages
 * with the same rights takes it back without registering again.
 * INVALIDATE, USE_ONCE after its use, and close deregister at once.
 *
 * A registration pins the pages that were mapped at the time. If the
 * application unmaps the range and maps new memory at the same address,
 * the address, length and rights are the same, but the registration
 * still points at the old pages: handing it back would let a peer read
 * and write memory the application no longer sees. So an entry is keyed
 * by what the pages are, not by where: the page frame numbers of the
 * range, read from /proc/self/pagemap at registration, are compared with
 * the current ones when an entry would be handed back (and when it is
 * put in the cache). A pinned page cannot be freed or migrated, so equal
 * frames mean the same memory; any difference (unmapped, remapped, a
 * copy-on-write break, a page not present) drops the entry. One pread of
 * 8 bytes a page (257 at most), against an ibv_reg_mr() that is a system
 * call pinning every page. The frames are visible only with
 * CAP_SYS_ADMIN (Linux 4.2; otherwise they read as 0): without it
 * nothing is cached, and FREE_MR deregisters at once. Registrations of
 * read-only memory are not cached either (see rds_ib_mr_free()).
 */
#define RDS_IB_MR_CACHE 64
#define RDS_IB_PAGE 4096ULL
#define RDS_IB_PM_PRESENT (1ULL << 63)
#define RDS_IB_PM_PFN ((1ULL << 55) - 1)

struct rds_ib_mr_cached {
	struct ibv_mr *imr;
	struct rds_ib_dev *dev;
	uintptr_t base;
	uint64_t len;
	int access;
	uint64_t age;
	uint64_t *pfn;		/* the pages' frames at registration */
};

static struct rds_ib_mr_cached rds_ib_mr_cache[RDS_IB_MR_CACHE];
static uint64_t rds_ib_mr_clock;
static rte_spinlock_t rds_ib_mr_lock = RTE_SPINLOCK_INITIALIZER;

struct rds_ib_mr_priv {
	struct ibv_mr *imr;
	struct rds_ib_dev *dev;
	int access;
	uint64_t *pfn;		/* NULL: not cacheable */
};

/* The frames of the pages of [base, base + len) (page aligned) into pfn:
 * 0, or -1 if one is not present or frames cannot be read here. */
static int
rds_ib_pfns(uintptr_t base, uint64_t len, uint64_t *pfn)
{
	size_t n = (size_t)(len / RDS_IB_PAGE), i;
	ssize_t r;
	int fd;

	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	r = pread(fd, pfn, n * sizeof(*pfn),
		  (off_t)(base / RDS_IB_PAGE * sizeof(*pfn)));
	close(fd);
	if (r != (ssize_t)(n * sizeof(*pfn)))
		return -1;
	for (i = 0; i < n; i++) {
		if (!(pfn[i] & RDS_IB_PM_PRESENT) ||
		    (pfn[i] & RDS_IB_PM_PFN) == 0)
			return -1;
		pfn[i] &= RDS_IB_PM_PFN;
	}
	return 0;
}

/* Are the pages of [base, base + len) still the frames in pfn? */
static bool
rds_ib_pfns_same(uintptr_t base, uint64_t len, const uint64_t *pfn)
{
	uint64_t now[(RDS_MAX_MSG_SIZE / RDS_IB_PAGE) + 2];

	if (pfn == NULL || len / RDS_IB_PAGE > RTE_DIM(now) ||
	    rds_ib_pfns(base, len, now) != 0)
		return false;
	return memcmp(now, pfn, (size_t)(len / RDS_IB_PAGE) *
		      sizeof(*pfn)) == 0;
}

static void
rds_ib_mr_drop(struct ibv_mr *imr, uint64_t *pfn)
{
	if (imr != NULL)
		ibv_dereg_mr(imr);
	free(pfn);
}

/* A cached registration of these pages with these rights, still on the
 * same memory (*pfn: its frames), or NULL. Stale entries met on the way
 * are deregistered. */
static struct ibv_mr *
rds_ib_mr_cache_take(struct rds_ib_dev *d, uintptr_t base, uint64_t len,
		     int access, uint64_t **pfn)
{
	struct ibv_mr *imr;
	unsigned int i;

	for (;;) {
		imr = NULL;
		rte_spinlock_lock(&rds_ib_mr_lock);
		for (i = 0; i < RDS_IB_MR_CACHE; i++) {
			struct rds_ib_mr_cached *e = &rds_ib_mr_cache[i];

			if (e->imr != NULL && e->dev == d && e->base == base &&
			    e->len == len && e->access == access) {
				imr = e->imr;
				*pfn = e->pfn;
				e->imr = NULL;
				e->pfn = NULL;
				break;
			}
		}
		rte_spinlock_unlock(&rds_ib_mr_lock);
		if (imr == NULL || rds_ib_pfns_same(base, len, *pfn))
			return imr;
		IB_LOG(DEBUG, "cached registration of %#" PRIxPTR " +%" PRIu64
		       " is stale (memory remapped): dropped", base, len);
		rds_ib_mr_drop(imr, *pfn);
		*pfn = NULL;
	}
}

/* Keep imr; the oldest entry makes room. Returns what to deregister. */
static struct ibv_mr *
rds_ib_mr_cache_put(struct rds_ib_dev *d, struct ibv_mr *imr, int access,
		    uint64_t *pfn, uint64_t **evicted_pfn)
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
	*evicted_pfn = slot->pfn;
	slot->imr = imr;
	slot->pfn = pfn;
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
		rds_ib_mr_drop(rds_ib_mr_cache[i].imr, rds_ib_mr_cache[i].pfn);
		rds_ib_mr_cache[i].imr = NULL;
		rds_ib_mr_cache[i].pfn = NULL;
	}
	rte_spinlock_unlock(&rds_ib_mr_lock);
}

/*
 * ibv_reg_mr()'s errno as the kernel's GET_MR gives it: memory that
 * cannot be pinned with the rights asked is EFAULT (ib_umem_get, as
 * rds_pin_pages in __rds_rdma_map); ENOMEM (memory, RLIMIT_MEMLOCK, the
 * device's MRs: the kernel's allocations, ib_alloc_mr) and EPERM
 * (RLIMIT_MEMLOCK 0: the kernel's can_do_mlock) stay; EOPNOTSUPP and
 * EAGAIN stay; anything else (bad access flags, a bad PD: our bugs, not
 * the caller's) is EINVAL.
 */
static int
rds_ib_reg_errno(int e)
{
	switch (e) {
	case EFAULT:
	case EACCES:
		return -EFAULT;
	case ENOMEM:
	case EPERM:
	case EOPNOTSUPP:
	case EAGAIN:
		return -e;
	default:
		return -EINVAL;
	}
}

int
rds_ib_mr_reg(const struct rds_laddr *la, struct rds_mr *mr)
{
	struct rds_ib_dev *d = rds_ib_laddr(la)->dev;
	struct rds_ib_mr_priv *p;
	struct ibv_mr *imr;
	uint64_t *pfn = NULL;
	int access, err;

	if (d == NULL)
		return -ENODEV;
	/*
	 * Rights. Atomics write too: only a writable region takes them, as
	 * with the software executor; remote writes need LOCAL_WRITE
	 * (verbs). A region without READWRITE is registered with
	 * LOCAL_WRITE when its memory is writable, so that the pages are
	 * pinned for writing, as the kernel always pins them: a page pinned
	 * read-only may be one the application later replaces on its first
	 * write (the zero page of untouched memory, a page shared after
	 * fork), and the peer would read the old one. If the memory is
	 * read-only (EFAULT with LOCAL_WRITE), it is registered without:
	 * its pages cannot change under the application without an
	 * mprotect().
	 */
	if (mr->flags & RDS_RDMA_READWRITE)
		access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			 IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC;
	else
		access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ;
	p = rds_mem_zalloc("rds_ib_mr", sizeof(*p));
	if (p == NULL)
		return -ENOMEM;
	imr = rds_ib_mr_cache_take(d, mr->base, mr->len, access, &pfn);
	if (imr == NULL) {
		imr = ibv_reg_mr_iova(d->pd, (void *)mr->base, mr->len, 0,
				      access);
		if (imr == NULL && errno == EFAULT &&
		    !(mr->flags & RDS_RDMA_READWRITE)) {
			access = IBV_ACCESS_REMOTE_READ;
			imr = ibv_reg_mr_iova(d->pd, (void *)mr->base, mr->len,
					      0, access);
		}
		if (imr == NULL) {
			err = errno;
			IB_LOG(ERR, "ibv_reg_mr_iova: %s", strerror(err));
			rds_mem_free(p);
			return rds_ib_reg_errno(err);
		}
		/* The frames, for the cache (pinned now: present). */
		pfn = malloc((size_t)(mr->len / RDS_IB_PAGE) * sizeof(*pfn));
		if (pfn != NULL && rds_ib_pfns(mr->base, mr->len, pfn) != 0) {
			free(pfn);
			pfn = NULL;
		}
	}
	p->imr = imr;
	p->dev = d;
	p->access = access;
	p->pfn = pfn;
	mr->key = imr->rkey;
	mr->tp = p;
	return 0;
}

void
rds_ib_mr_free(struct rds_mr *mr)
{
	struct rds_ib_mr_priv *p = mr->tp;
	struct ibv_mr *drop = NULL;
	uint64_t *drop_pfn = NULL;

	if (p == NULL)
		return;
	/* Registrations of read-only memory (no LOCAL_WRITE) are not kept:
	 * made writable later, the memory could get new pages on a write
	 * while the frames still compare equal at the next GET_MR. */
	if (!mr->invalidate && !(mr->flags & RDS_RDMA_USE_ONCE) &&
	    (p->access & IBV_ACCESS_LOCAL_WRITE) &&
	    rds_ib_pfns_same(mr->base, mr->len, p->pfn))
		drop = rds_ib_mr_cache_put(p->dev, p->imr, p->access, p->pfn,
					   &drop_pfn);
	else
		rds_ib_mr_drop(p->imr, p->pfn);
	rds_ib_mr_drop(drop, drop_pfn);
	rds_mem_free(p);
	mr->tp = NULL;
}

/* Post op's work request in the next send slot (the caller checked
 * there is one). The slot remembers the op until its completion; the
 * local side goes through a registered bounce buffer of the engine's
 * pool on the device (-EAGAIN while the connection has RDS_IB_BOUNCE_NB
 * in flight, or the pool all of its most; -ENOMEM when it cannot grow). */
int
rds_ib_post_op(struct rds_ib_conn *ic, struct rds_rdma_op *op)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	uint64_t len = op->kind >= RDS_OP_FADD ? 8 : op->bytes;
	uint32_t b;
	uint8_t *buf;
	int ret;

	if (ic->bounce_out >= RDS_IB_BOUNCE_NB)
		return -EAGAIN;
	ret = rds_ib_pool_get(&ic->ed->bounce, &b);
	if (ret != 0)
		return ret == -ENOBUFS ? -EAGAIN : ret;
	buf = rds_ib_pool_buf(&ic->ed->bounce, b);
	if (op->kind == RDS_OP_WRITE && len != 0)
		memcpy(buf, op->data, len);
	memset(&wr, 0, sizeof(wr));
	sge.addr = (uintptr_t)buf;
	sge.length = (uint32_t)len;
	sge.lkey = rds_ib_pool_lkey(&ic->ed->bounce, b);
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
		rds_ib_pool_put(&ic->ed->bounce, b);
		return -EOPNOTSUPP;	/* masked: refused at sendmsg */
	}
	ret = ibv_post_send(ic->qp, &wr, &bad);
	if (ret != 0) {
		rds_ib_pool_put(&ic->ed->bounce, b);
		return -ret;
	}
	ic->bounce_out++;
	op->tp_mr = (void *)(uintptr_t)(b + 1);
	rds_rdma_op_hold(op);	/* the slot, until the completion */
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
	uint32_t b = (uint32_t)(uintptr_t)op->tp_mr - 1;
	const uint8_t *buf = rds_ib_pool_buf(&ic->ed->bounce, b);
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
		/* It ran: never again. A reset before its SEND got through
		 * retransmits the message alone (rds_send_path_reset; the
		 * core calls xmit_op no more). */
		rds_rdma_op_completed(ic->c->eng, op, RDS_RDMA_SUCCESS);
	} else if (st == IBV_WC_REM_ACCESS_ERR) {
		rds_rdma_op_completed(ic->c->eng, op, RDS_RDMA_REMOTE_ERROR);
	} else if (st != IBV_WC_WR_FLUSH_ERR) {
		rds_rdma_op_completed(ic->c->eng, op, RDS_RDMA_OTHER_ERROR);
	}
	/* A flushed one is told DROPPED when its message is dropped. */
	rds_ib_pool_put(&ic->ed->bounce, b);
	ic->bounce_out--;
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

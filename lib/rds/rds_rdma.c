/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA (net/rds/rdma.c, rds-rdma(7)): memory regions registered for a
 * 64-bit cookie, the RDMA and atomic control messages of sendmsg, and the
 * software executor that transports without RDMA hardware (loop, eth)
 * run on the target's side.
 *
 * Cookies are r_key | offset << 32. Regions cover whole pages and are
 * addressed zero-based, as the kernel registers them: the target address
 * is the page base + the cookie's offset + the operation's offset.
 * Software keys are random and unique among live regions; every access is
 * checked against the region's bounds and rights under the table's lock,
 * so a region freed with INVALIDATE is never touched after FREE_MR
 * returns.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include <rte_hash.h>
#include <rte_jhash.h>
#include <rte_random.h>
#include <rte_rwlock.h>

#include "rds_private.h"

#define RDS_MR_PAGE 4096ULL
#define RDS_MR_MAX 65536

static struct rte_hash *rds_mr_hash;
static rte_rwlock_t rds_mr_lock = RTE_RWLOCK_INITIALIZER;

int
rds_mr_init(void)
{
	struct rte_hash_parameters p = {
		.name = "rds_mr",
		.entries = RDS_MR_MAX,
		.key_len = sizeof(uint32_t),
		.hash_func = rte_jhash,
		.socket_id = rds_lib->conf.socket_id,
	};

	rds_mr_hash = rte_hash_create(&p);
	return rds_mr_hash == NULL ? -rte_errno : 0;
}

static void
rds_mr_release(struct rds_mr *mr)
{
	const struct rds_transport *t = mr->trans;

	if (t != NULL && t->mr_free != NULL)
		t->mr_free(mr);
	rds_mem_free(mr);
}

void
rds_mr_fini(void)
{
	const void *key;
	void *data;
	uint32_t it = 0;

	if (rds_mr_hash == NULL)
		return;
	while (rte_hash_iterate(rds_mr_hash, &key, &data, &it) >= 0) {
		((struct rds_mr *)data)->invalidate = true;
		rds_mr_release(data);
	}
	rte_hash_free(rds_mr_hash);
	rds_mr_hash = NULL;
}

/* Register [addr, addr + bytes) for socket rs; returns the cookie. */
static int
rds_mr_register(struct rds_sock *rs, uint64_t addr, uint64_t bytes,
		uint64_t flags, uint64_t *cookie)
{
	const struct rds_transport *t = rs->la->trans;
	struct rds_mr *mr;
	uint64_t base, end;
	int ret, tries;

	/* As net/rds/rdma.c __rds_rdma_map: a range that wraps, or whose
	 * page rounding wraps, or empty, or over UINT_MAX bytes
	 * (rds_pages_in_vec() 0): EINVAL; more than 1 MiB of pages plus the
	 * partial one: EMSGSIZE; pages that cannot be pinned with the
	 * rights asked: EFAULT (rds_pin_pages). */
	if (bytes == 0 || bytes > UINT32_MAX || addr + bytes < addr ||
	    addr + bytes + RDS_MR_PAGE - 1 < addr + bytes)
		return -EINVAL;
	base = addr & ~(RDS_MR_PAGE - 1);
	end = (addr + bytes + RDS_MR_PAGE - 1) & ~(RDS_MR_PAGE - 1);
	if (end - base > RDS_MAX_MSG_SIZE + RDS_MR_PAGE)
		return -EMSGSIZE;
	/* Every page, as the kernel pins them; writable for a READWRITE
	 * region. Read-only memory is accepted for a region without
	 * READWRITE, which the engine never writes: the kernel refuses it
	 * (it always pins for writing, "or we'll do a lot of RDMA to the
	 * zero page"), but nothing here needs the write right and an
	 * application may serve read-only data (documented departure). */
	/* A client's memory (attached process) is checked in that process
	 * and reached with process_vm_*; a NIC cannot reach it (ib:
	 * EOPNOTSUPP, rte_rds_attach.h). */
	if (rs->mem_pid != 0 && t->mr_reg != NULL)
		return -EOPNOTSUPP;
	ret = rds_mem_check(rs->mem_pid, (uintptr_t)base, (size_t)(end - base),
			    PROT_READ | ((flags & RDS_RDMA_READWRITE) ?
					 PROT_WRITE : 0));
	if (ret != 0)
		return ret;
	mr = rds_mem_zalloc("rds_mr", sizeof(*mr));
	if (mr == NULL)
		return -ENOMEM;
	mr->pid = rs->mem_pid;
	mr->base = base;
	mr->len = end - base;
	mr->flags = (uint32_t)flags;
	mr->sock = rs->id;
	mr->sock_gen = rs->gen;
	mr->laddr = rs->bound_addr;
	if (t->mr_reg != NULL) {
		/* Hardware keys (ib): the device chooses the key. */
		ret = t->mr_reg(rs->la, mr);
		if (ret != 0) {
			rds_mem_free(mr);
			return ret;
		}
		mr->trans = t;
	}
	rte_rwlock_write_lock(&rds_mr_lock);
	for (tries = 0; t->mr_reg == NULL && tries < 64; tries++) {
		mr->key = (uint32_t)rte_rand();
		if (mr->key != 0 && rte_hash_lookup(rds_mr_hash, &mr->key) < 0)
			break;
	}
	ret = rte_hash_add_key_data(rds_mr_hash, &mr->key, mr);
	if (ret >= 0) {
		mr->owner_nb = &rs->nb_mrs;
		__atomic_fetch_add(mr->owner_nb, 1, __ATOMIC_RELAXED);
	}
	rte_rwlock_write_unlock(&rds_mr_lock);
	if (ret < 0) {
		rds_mr_release(mr);
		return ret == -ENOSPC ? -EAGAIN : ret;
	}
	*cookie = (uint64_t)mr->key | ((addr - base) << 32);
	return 0;
}

/* Remove one region (already looked up under the write lock). */
static void
rds_mr_remove_locked(struct rds_mr *mr)
{
	if (mr->owner_nb != NULL)
		__atomic_fetch_sub(mr->owner_nb, 1, __ATOMIC_RELAXED);
	rte_hash_del_key(rds_mr_hash, &mr->key);
	rds_mr_release(mr);
}

static bool
rds_mr_owned(const struct rds_mr *mr, const struct rds_sock *rs)
{
	return mr->sock == rs->id && mr->sock_gen == rs->gen;
}

/* Is key a live region of socket rs? (rds_cmsg_rdma_dest) */
static bool
rds_mr_key_owned(const struct rds_sock *rs, uint32_t key)
{
	void *data;
	bool own;

	rte_rwlock_read_lock(&rds_mr_lock);
	own = rte_hash_lookup_data(rds_mr_hash, &key, &data) >= 0 &&
	      rds_mr_owned(data, rs);
	rte_rwlock_read_unlock(&rds_mr_lock);
	return own;
}

/* FREE_MR: one cookie of this socket, or (cookie 0) all of them. */
static int
rds_mr_free(struct rds_sock *rs, uint64_t cookie, bool invalidate)
{
	uint32_t key = (uint32_t)cookie, it = 0;
	const void *k;
	void *data;
	int ret = 0;

	rte_rwlock_write_lock(&rds_mr_lock);
	if (cookie == 0) {
		while (rte_hash_iterate(rds_mr_hash, &k, &data, &it) >= 0) {
			if (rds_mr_owned(data, rs)) {
				((struct rds_mr *)data)->invalidate = invalidate;
				rds_mr_remove_locked(data);
				it = 0;	/* the table changed: start again */
			}
		}
	} else if (rte_hash_lookup_data(rds_mr_hash, &key, &data) >= 0 &&
		   rds_mr_owned(data, rs)) {
		((struct rds_mr *)data)->invalidate = invalidate;
		rds_mr_remove_locked(data);
	} else {
		ret = -EINVAL;
	}
	rte_rwlock_write_unlock(&rds_mr_lock);
	return ret;
}

/* A sendmsg that registered with RDMA_MAP failed later: as the kernel,
 * the region goes with it. */
void
rds_rdma_unmap(struct rds_sock *rs, uint64_t cookie)
{
	rds_mr_free(rs, (uint32_t)cookie, true);
}

void
rds_mr_sock_close(struct rds_sock *rs)
{
	/* The table is walked only for a socket that has regions (a close
	 * of one of many sockets must not cost a walk of every region). */
	if (rds_mr_hash != NULL &&
	    __atomic_load_n(&rs->nb_mrs, __ATOMIC_RELAXED) != 0)
		rds_mr_free(rs, 0, true);
}

/* The peer used key on socket rs's behalf (RDS_EXTHDR_RDMA on a message
 * to rs): USE_ONCE ends it, but only a region of rs (rds_rdma_unuse). */
void
rds_mr_unuse_sock(const struct rds_sock *rs, uint32_t key)
{
	void *data;

	rte_rwlock_write_lock(&rds_mr_lock);
	if (rte_hash_lookup_data(rds_mr_hash, &key, &data) >= 0 &&
	    rds_mr_owned(data, rs) &&
	    (((struct rds_mr *)data)->flags & RDS_RDMA_USE_ONCE)) {
		((struct rds_mr *)data)->invalidate = true;
		rds_mr_remove_locked(data);
	}
	rte_rwlock_write_unlock(&rds_mr_lock);
}

/* The executor used key with USE_ONCE semantics. */
void
rds_mr_unuse(uint32_t key)
{
	void *data;

	rte_rwlock_write_lock(&rds_mr_lock);
	if (rte_hash_lookup_data(rds_mr_hash, &key, &data) >= 0 &&
	    (((struct rds_mr *)data)->flags & RDS_RDMA_USE_ONCE)) {
		((struct rds_mr *)data)->invalidate = true;
		rds_mr_remove_locked(data);
	}
	rte_rwlock_write_unlock(&rds_mr_lock);
}

/* ------------------------------------------------------------------ */
/* Socket options. */

/*
 * GET_MR, GET_MR_FOR_DEST and RDMA_MAP (__rds_rdma_map): register and
 * write the cookie to cookie_addr if there is one (it is optional, as in
 * the kernel; a bad non-NULL cookie_addr faults in the caller's thread,
 * as memcpy would).
 */
static int
rds_rdma_map(struct rds_sock *rs, const struct rds_get_mr_args *a,
	     uint64_t *cookie)
{
	int ret;

	if (!rs->bound)
		return -ENOTCONN;
	if (!(rs->la->trans->flags & RDS_TRANS_F_RDMA))
		return -EOPNOTSUPP;
	ret = rds_mr_register(rs, a->vec.addr, a->vec.bytes, a->flags,
			      cookie);
	if (ret != 0)
		return ret;
	/* As __rds_rdma_map: a cookie that cannot be written back is
	 * EFAULT, and the region goes. (This process: memcpy, a bad
	 * address faults in the caller's thread; a client: checked.) */
	if (a->cookie_addr != 0 &&
	    rds_xmem_write(rs->mem_pid, (uintptr_t)a->cookie_addr, cookie,
			   sizeof(*cookie)) != 0) {
		rds_mr_free(rs, (uint32_t)*cookie, true);
		return -EFAULT;
	}
	return 0;
}

int
rds_rdma_get_mr(struct rds_sock *rs, const void *optval, socklen_t optlen,
		bool for_dest)
{
	struct rds_get_mr_for_dest_args fd;
	struct rds_get_mr_args a;
	uint64_t cookie;
	int ret;

	/* rds_get_mr, rds_get_mr_for_dest: optlen first, exact. */
	ret = rds_uarg_optval(optval, optlen, for_dest ? sizeof(fd) :
			      sizeof(a), true);
	if (ret != 0)
		return ret;
	if (for_dest) {
		memcpy(&fd, optval, sizeof(fd));
		a.vec = fd.vec;
		a.cookie_addr = fd.cookie_addr;
		a.flags = fd.flags;
	} else {
		memcpy(&a, optval, sizeof(a));
	}
	return rds_rdma_map(rs, &a, &cookie);
}

int
rds_rdma_free_mr(struct rds_sock *rs, const void *optval, socklen_t optlen)
{
	struct rds_free_mr_args a;
	int ret = rds_uarg_optval(optval, optlen, sizeof(a), true);

	if (ret != 0)
		return ret;
	memcpy(&a, optval, sizeof(a));
	/* Software keys are revoked at once either way. A hardware
	 * transport may keep the registration cached without INVALIDATE
	 * (rds-rdma(7): lazy revocation), so that registering the same
	 * range again is cheap. */
	return rds_mr_free(rs, a.cookie, (a.flags & RDS_RDMA_INVALIDATE) != 0);
}

/* ------------------------------------------------------------------ */
/* sendmsg control messages. */

void
rds_rdma_op_free(struct rds_rdma_op *op)
{
	if (op == NULL || --op->refs > 0)
		return;
	rds_mem_free(op->local);
	rds_mem_free(op->data);
	rds_mem_free(op);
}

static int
rds_rdma_args_parse(struct rds_rdma_op *op, const struct rds_rdma_args *a)
{
	const struct rds_iovec *vec = (const void *)(uintptr_t)a->local_vec_addr;
	struct rds_iovec *copy = NULL;
	uint64_t total, i, off;
	bool write = (a->flags & RDS_RDMA_READWRITE) != 0;
	int ret;

	/* A client's vector is read out of its memory first. */
	if (op->pid != 0 && vec != NULL && a->nr_local != 0 &&
	    a->nr_local <= RDS_UIO_MAXIOV) {
		copy = malloc(sizeof(*copy) * a->nr_local);
		if (copy == NULL)
			return -ENOMEM;
		if (rds_xmem_read(op->pid, copy, (uintptr_t)vec,
				  sizeof(*copy) * a->nr_local) != 0) {
			free(copy);
			return -EFAULT;
		}
		vec = copy;
	}
	ret = rds_uarg_rdma_vec(vec, a->nr_local, &total);
	if (ret != 0) {
		free(copy);
		return ret;
	}
	op->local = rds_mem_zalloc("rds_rdma_iov",
				   sizeof(*op->local) * a->nr_local);
	if (op->local == NULL) {
		free(copy);
		return -ENOMEM;
	}
	for (i = 0; i < a->nr_local; i++) {
		op->local[i].iov_base = (void *)(uintptr_t)vec[i].addr;
		op->local[i].iov_len = vec[i].bytes;
	}
	op->nr_local = (uint32_t)a->nr_local;
	free(copy);
	/*
	 * Handed over: a READ's destinations are filled by the engine when
	 * the data comes back, so they must be writable now; a WRITE's
	 * sources are copied below, and must be readable (the kernel pins
	 * them with these rights in rds_cmsg_rdma_args: EFAULT). The READ
	 * check writes each probed byte back with its own value: these
	 * bytes belong to the library until the operation's notification.
	 */
	ret = rds_mem_check_iov(op->pid, op->local, op->nr_local,
				write ? PROT_READ : PROT_WRITE);
	if (ret != 0)
		return ret;
	/* As the kernel: only more local than remote bytes is refused; the
	 * operation moves the local bytes. (rds-rdma(7) asks for equal
	 * sizes; remote bytes over 1 MiB were refused by the first pass.) */
	if (total > a->remote_vec.bytes)
		return -EINVAL;
	op->kind = write ? RDS_OP_WRITE : RDS_OP_READ;
	op->cookie = a->cookie;
	op->remote_off = a->remote_vec.addr;
	op->bytes = total;
	op->flags = a->flags;
	op->token = a->user_token;
	if (op->kind == RDS_OP_WRITE) {
		/* The data to write is taken now, as the kernel pins the
		 * pages at sendmsg time. */
		op->data = rds_mem_zalloc("rds_rdma_data", total);
		if (op->data == NULL)
			return -ENOMEM;
		for (i = 0, off = 0; i < a->nr_local; i++) {
			if (rds_xmem_read(op->pid, op->data + off,
					  (uintptr_t)op->local[i].iov_base,
					  op->local[i].iov_len) != 0)
				return -EFAULT;
			off += op->local[i].iov_len;
		}
	}
	return 0;
}

static int
rds_atomic_parse(struct rds_rdma_op *op, int type,
		 const struct rds_atomic_args *a)
{
	switch (type) {
	case RDS_CMSG_ATOMIC_FADD:
		op->kind = RDS_OP_FADD;
		op->swap_add = a->fadd.add;
		break;
	case RDS_CMSG_ATOMIC_CSWP:
		op->kind = RDS_OP_CSWP;
		op->compare = a->cswp.compare;
		op->swap_add = a->cswp.swap;
		break;
	case RDS_CMSG_MASKED_ATOMIC_FADD:
		op->kind = RDS_OP_MFADD;
		op->swap_add = a->m_fadd.add;
		op->mask1 = a->m_fadd.nocarry_mask;
		break;
	default:
		op->kind = RDS_OP_MCSWP;
		op->compare = a->m_cswp.compare;
		op->swap_add = a->m_cswp.swap;
		op->mask1 = a->m_cswp.compare_mask;
		op->mask2 = a->m_cswp.swap_mask;
		break;
	}
	/* As the kernel (rds_cmsg_atomic): 8-byte aligned, else EFAULT;
	 * then the word is pinned for writing (EFAULT): the engine writes
	 * the old value there when the operation completes. */
	if ((a->local_addr & 7) != 0)
		return -EFAULT;
	op->atomic_result = (uint64_t *)(uintptr_t)a->local_addr;
	{
		struct iovec w = { .iov_base = op->atomic_result,
				   .iov_len = sizeof(uint64_t) };
		int ret = rds_mem_check_iov(op->pid, &w, 1, PROT_WRITE);

		if (ret != 0)
			return ret;
	}
	op->cookie = a->cookie;
	op->remote_off = a->remote_addr;
	op->bytes = 8;
	op->flags = a->flags;
	op->token = a->user_token;
	return 0;
}

/* The data size a SOL_RDS control message of sendmsg needs, 0 for a
 * type sendmsg does not take (rds_rm_size: EINVAL). */
static size_t
rds_cmsg_need(int type)
{
	switch (type) {
	case RDS_CMSG_RDMA_ARGS:
		return sizeof(struct rds_rdma_args);
	case RDS_CMSG_ATOMIC_FADD:
	case RDS_CMSG_ATOMIC_CSWP:
	case RDS_CMSG_MASKED_ATOMIC_FADD:
	case RDS_CMSG_MASKED_ATOMIC_CSWP:
		return sizeof(struct rds_atomic_args);
	case RDS_CMSG_RDMA_DEST:
		return sizeof(uint64_t);
	case RDS_CMSG_RDMA_MAP:
		return sizeof(struct rds_get_mr_args);
	default:
		return 0;
	}
}

/*
 * First pass over the control messages, with no side effect: what
 * net/rds/send.c checks before it acts on any of them (rds_rdma_bytes,
 * then rds_rm_size). Every header well formed and RDMA_ARGS whole
 * (EINVAL), the remote bytes of RDMA_ARGS at most 1 MiB (EMSGSIZE),
 * only sendmsg's SOL_RDS types, each with its whole argument (EINVAL),
 * at most one operation and one cookie, not both (EINVAL: the kernel's
 * cmsg_groups, and its op_active / m_rdma_cookie checks, which it makes
 * while acting; made here first, a later bad control message cannot
 * leave a region that RDMA_MAP registered). *nops: operations and
 * cookies seen.
 */
static int
rds_rdma_cmsgs_check(const struct msghdr *msg, unsigned int *nops)
{
	struct rds_cmsg_iter it;
	struct rds_cmsg c;
	struct rds_rdma_args a;
	unsigned int nop = 0, ndest = 0;
	uint64_t rbytes = 0;
	int ret;

	*nops = 0;
	ret = rds_uarg_cmsg_start(&it, msg);
	if (ret < 0)
		return ret;
	while ((ret = rds_uarg_cmsg_next(&it, &c)) > 0) {
		if (c.level != SOL_RDS || c.type != RDS_CMSG_RDMA_ARGS)
			continue;
		if (c.len < sizeof(a))
			return -EINVAL;
		memcpy(&a, c.data, sizeof(a));
		rbytes += RTE_MIN(a.remote_vec.bytes, 2ULL * RDS_MAX_MSG_SIZE);
	}
	if (ret < 0)
		return ret;
	if (rbytes > RDS_MAX_MSG_SIZE)
		return -EMSGSIZE;
	rds_uarg_cmsg_start(&it, msg);
	while (rds_uarg_cmsg_next(&it, &c) > 0) {
		size_t need;

		if (c.level != SOL_RDS)
			continue;	/* as the kernel: not ours, ignored */
		need = rds_cmsg_need(c.type);
		if (need == 0 || c.len < need)
			return -EINVAL;
		if (c.type == RDS_CMSG_RDMA_DEST || c.type == RDS_CMSG_RDMA_MAP)
			ndest++;
		else
			nop++;
	}
	if (nop > 1 || ndest > 1 || (nop != 0 && ndest != 0))
		return -EINVAL;
	*nops = nop + ndest;
	return 0;
}

/*
 * Parse the SOL_RDS control messages of a sendmsg (rds_cmsg_send): at
 * most one RDMA or atomic operation, and at most one cookie to ship
 * (RDMA_DEST, or RDMA_MAP which registers first). Mixing an operation
 * with a cookie is EINVAL, as in the kernel.
 */
int
rds_rdma_cmsgs(struct rds_sock *rs, const struct msghdr *msg,
	       struct rds_rdma_op **opp, uint64_t *dest_cookie, bool *has_dest,
	       bool *mapped)
{
	struct rds_rdma_op *op = NULL;
	struct rds_cmsg_iter it;
	struct rds_cmsg c;
	unsigned int nops;
	int ret;

	*opp = NULL;
	*has_dest = false;
	*mapped = false;
	if (msg->msg_controllen == 0)
		return 0;	/* the common case: nothing to walk */
	ret = rds_rdma_cmsgs_check(msg, &nops);
	if (ret < 0 || nops == 0)
		return ret;
	rds_uarg_cmsg_start(&it, msg);
	while (ret == 0 && rds_uarg_cmsg_next(&it, &c) > 0) {
		if (c.level != SOL_RDS)
			continue;
		switch (c.type) {
		case RDS_CMSG_RDMA_ARGS:
		case RDS_CMSG_ATOMIC_FADD:
		case RDS_CMSG_ATOMIC_CSWP:
		case RDS_CMSG_MASKED_ATOMIC_FADD:
		case RDS_CMSG_MASKED_ATOMIC_CSWP:
			op = rds_mem_zalloc("rds_rdma_op", sizeof(*op));
			if (op == NULL) {
				ret = -ENOMEM;
				break;
			}
			op->refs = 1;
			op->sock = rs->id;
			op->sock_gen = rs->gen;
			op->pid = rs->mem_pid;
			/* A NIC cannot reach a client's memory. */
			if (op->pid != 0 && rs->la->trans->mr_reg != NULL) {
				ret = -EOPNOTSUPP;
				break;
			}
			/* As the kernel: the socket's RDS_RECVERR when the
			 * operation is queued decides. */
			op->recverr = rs->recverr;
			if (c.type == RDS_CMSG_RDMA_ARGS) {
				struct rds_rdma_args a;

				memcpy(&a, c.data, sizeof(a));
				ret = rds_rdma_args_parse(op, &a);
			} else {
				struct rds_atomic_args a;

				memcpy(&a, c.data, sizeof(a));
				ret = rds_atomic_parse(op, c.type, &a);
			}
			break;
		case RDS_CMSG_RDMA_DEST:
			/* As rds_cmsg_rdma_dest: a region of this socket's
			 * (its key; the offset is the sender's business). */
			memcpy(dest_cookie, c.data, sizeof(uint64_t));
			if (!rds_mr_key_owned(rs, (uint32_t)*dest_cookie)) {
				ret = -EINVAL;
				break;
			}
			*has_dest = true;
			break;
		case RDS_CMSG_RDMA_MAP: {
			struct rds_get_mr_args a;

			memcpy(&a, c.data, sizeof(a));
			ret = rds_rdma_map(rs, &a, dest_cookie);
			if (ret == 0)
				*has_dest = *mapped = true;
			break;
		}
		default:
			break;	/* refused by rds_rdma_cmsgs_check() */
		}
	}
	if (ret != 0) {
		rds_rdma_op_free(op);
		return ret;
	}
	*opp = op;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The software executor. */

/* Look up the target region and check bounds and rights. Under the
 * read lock. Returns the target address, or NULL for REMOTE_ERROR. */
static uint8_t *
rds_mr_target(const struct in6_addr *target, uint64_t cookie, uint64_t off,
	      uint64_t len, bool write, struct rds_mr **mrp)
{
	uint32_t key = (uint32_t)cookie;
	uint64_t pos = (cookie >> 32) + off;
	struct rds_mr *mr;
	void *data;

	if (rte_hash_lookup_data(rds_mr_hash, &key, &data) < 0)
		return NULL;
	mr = data;
	/* Only the address the region was registered on may be reached. */
	if (!rds_addr_eq(&mr->laddr, target))
		return NULL;
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

/* rds_rdma_target on a region of client pid at its address p. */
static int
rds_rdma_target_client(pid_t pid, const struct rds_rdma_req *rq, uint8_t *p,
		       const struct iovec *rdst, uint32_t nrdst, uint64_t *o)
{
	uint64_t off = 0;
	uint32_t i;

	switch (rq->kind) {
	case RDS_OP_READ:
		for (i = 0; i < nrdst && off < rq->bytes; i++) {
			size_t n = RTE_MIN(rdst[i].iov_len,
					   (size_t)(rq->bytes - off));

			if (rds_xmem_read(pid, rdst[i].iov_base,
					  (uintptr_t)(p + off), n) != 0)
				return RDS_RDMA_REMOTE_ERROR;
			off += n;
		}
		return RDS_RDMA_SUCCESS;
	case RDS_OP_WRITE:
		return rds_xmem_write(pid, (uintptr_t)p, rq->wdata,
				      rq->bytes) == 0 ? RDS_RDMA_SUCCESS :
		       RDS_RDMA_REMOTE_ERROR;
	case RDS_OP_FADD:
	case RDS_OP_CSWP:
	case RDS_OP_MFADD:
	case RDS_OP_MCSWP:
		return rds_xmem_atomic(pid, (uintptr_t)p, rds_atomic_apply, rq,
				       o) == 0 ? RDS_RDMA_SUCCESS :
		       RDS_RDMA_REMOTE_ERROR;
	default:
		return RDS_RDMA_REMOTE_ERROR;
	}
}

/*
 * The target half of the software executor: run one request against the
 * regions of local address target, as an RDMA NIC's responder would.
 * READ data is scattered into rdst (nrdst iovecs, rq->bytes in all):
 * the initiator's own vector within one process, a frame's payload
 * across a network. WRITE data comes from rq->wdata. Atomics return the
 * old value in *old. Returns RDS_RDMA_SUCCESS or RDS_RDMA_REMOTE_ERROR;
 * nothing is read or written outside a region the cookie names (bounds
 * and rights checked under the table's lock), and nothing at all on an
 * error. USE_ONCE regions end after their use.
 */
int
rds_rdma_target(const struct in6_addr *target, const struct rds_rdma_req *rq,
		const struct iovec *rdst, uint32_t nrdst, uint64_t *old)
{
	bool write = rq->kind != RDS_OP_READ;
	struct rds_mr *mr = NULL;
	uint8_t *p;
	uint64_t o = 0, off = 0, nv;
	uint32_t i, key = (uint32_t)rq->cookie;
	bool use_once;

	if (rq->kind >= RDS_OP_FADD && rq->bytes != 8)
		return RDS_RDMA_REMOTE_ERROR;
	rte_rwlock_read_lock(&rds_mr_lock);
	p = rds_mr_target(target, rq->cookie, rq->remote_off, rq->bytes,
			  write, &mr);
	if (p == NULL || (rq->kind >= RDS_OP_FADD && ((uintptr_t)p & 7) != 0)) {
		rte_rwlock_read_unlock(&rds_mr_lock);
		return RDS_RDMA_REMOTE_ERROR;
	}
	if (mr->pid != 0) {
		/* An attached client's region: reached with process_vm_*
		 * (a client that went or unmapped it: REMOTE_ERROR). */
		int st = rds_rdma_target_client(mr->pid, rq, p, rdst, nrdst,
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
	/* (A client's local memory that went meanwhile: the data is lost
	 * with it; the status stands, as a NIC's would.) */
	if (op->kind == RDS_OP_READ && rdata != NULL) {
		for (i = 0; i < op->nr_local && off < op->bytes; i++) {
			size_t n = RTE_MIN(op->local[i].iov_len,
					   (size_t)(op->bytes - off));

			if (rds_xmem_write(op->pid,
					   (uintptr_t)op->local[i].iov_base,
					   rdata + off, n) != 0)
				break;
			off += n;
		}
	} else if (op->kind >= RDS_OP_FADD) {
		rds_xmem_write(op->pid, (uintptr_t)op->atomic_result, &old,
			       sizeof(old));
	}
}

/* Both halves in one process (loop): READ data lands in the local vector
 * directly. */
int
rds_rdma_sw_exec(const struct in6_addr *target, struct rds_rdma_op *op)
{
	struct rds_rdma_req rq;
	uint64_t old = 0;
	uint8_t *bounce;
	struct iovec b;
	int st;

	rds_rdma_req_of(op, &rq);
	if (op->pid != 0 && op->kind == RDS_OP_READ) {
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
		return st;
	}
	st = rds_rdma_target(target, &rq, op->local, op->nr_local, &old);
	rds_rdma_initiator_done(op, st, NULL, old);
	return st;
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

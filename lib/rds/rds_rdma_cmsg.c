/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA, the control messages of sendmsg (rds_rdma.c has the whole
 * picture): RDS_CMSG_RDMA_ARGS, RDMA_DEST, RDMA_MAP and the atomics,
 * checked and parsed into the op a message carries.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "rds_rdma_private.h"

/* ------------------------------------------------------------------ */
/* sendmsg control messages. */

void
rds_rdma_op_free(struct rds_rdma_op *op)
{
	if (op == NULL || --op->refs > 0)
		return;
	rds_xmem_put(op->mem);
	rds_mem_free(op->local);
	rds_mem_free(op->data);
	rds_mem_free(op);
}

/*
 * The local side of an RDMA_ARGS in mem's memory (NULL: this process's,
 * as the in-process socket's and an attached client's own check before
 * it queues the operation): its vector (read out of a client's memory
 * first), its lengths (rds_uarg_rdma_vec), its buffers' rights and, as
 * the kernel, only more local than remote bytes refused. *localp: the
 * buffers (*nr of them, rds_mem_zalloc: the caller's to free, also on
 * failure), *total their bytes. given: the vector, copied already (an
 * attached client's queued send: rds_server_rdma.c), else it is read at
 * local_vec_addr. check false: the buffers' rights are not looked at
 * (a WRITE whose data came with its send: the client checked them).
 */
static int
rds_rdma_args_local(const struct rds_xmem *mem, const struct rds_rdma_args *a,
		    const struct rds_iovec *given, bool check,
		    struct iovec **localp, uint32_t *nr, uint64_t *total)
{
	const struct rds_iovec *vec = given != NULL ? given :
		(const void *)(uintptr_t)a->local_vec_addr;
	struct rds_iovec *copy = NULL;
	struct iovec *local;
	bool write = (a->flags & RDS_RDMA_READWRITE) != 0;
	uint64_t i;
	int ret;

	*localp = NULL;
	*nr = 0;
	/* A client's vector is read out of its memory first (unless it
	 * came with its send, a copy of the engine's: given). */
	if (given == NULL && mem != NULL && vec != NULL && a->nr_local != 0 &&
	    a->nr_local <= RDS_UIO_MAXIOV) {
		copy = malloc(sizeof(*copy) * a->nr_local);
		if (copy == NULL)
			return -ENOMEM;
		ret = rds_xmem_read(mem, copy, (uintptr_t)vec,
				    sizeof(*copy) * a->nr_local);
		if (ret != 0) {
			free(copy);
			/* EPERM: the engine may not reach its memory. */
			return ret == -EPERM ? -EPERM : -EFAULT;
		}
		vec = copy;
	}
	ret = rds_uarg_rdma_vec(vec, a->nr_local, total);
	if (ret != 0) {
		free(copy);
		return ret;
	}
	local = rds_mem_zalloc("rds_rdma_iov", sizeof(*local) * a->nr_local);
	if (local == NULL) {
		free(copy);
		return -ENOMEM;
	}
	for (i = 0; i < a->nr_local; i++) {
		local[i].iov_base = (void *)(uintptr_t)vec[i].addr;
		local[i].iov_len = vec[i].bytes;
	}
	*localp = local;
	*nr = (uint32_t)a->nr_local;
	free(copy);
	/*
	 * Handed over: a READ's destinations are filled by the engine when
	 * the data comes back, so they must be writable now; a WRITE's
	 * sources are copied below, and must be readable (the kernel pins
	 * them with these rights in rds_cmsg_rdma_args: EFAULT). The READ
	 * check writes each probed byte back with its own value: these
	 * bytes belong to the library until the operation's notification.
	 */
	ret = check ? rds_mem_check_iov(mem, local, *nr,
					write ? PROT_READ : PROT_WRITE) : 0;
	if (ret != 0)
		return ret;
	/* (rds-rdma(7) asks for equal sizes; remote bytes over 1 MiB were
	 * refused by the first pass.) */
	if (*total > a->remote_vec.bytes)
		return -EINVAL;
	return 0;
}

static int
rds_rdma_args_parse(struct rds_rdma_op *op, const struct rds_rdma_args *a,
		    const struct rds_rdma_given *g)
{
	uint64_t total, i, off;
	bool write = (a->flags & RDS_RDMA_READWRITE) != 0;
	const uint8_t *wdata = g != NULL && write ? g->wdata : NULL;
	int ret;

	/* An attached client's queued operation (g): it checked its local
	 * buffers itself, in its own memory, for the send's errno; they
	 * are not looked at again here (reading the client's maps and
	 * probing its pages on the engine's thread, each operation). A
	 * READ's buffer the client unmapped since is found when the data
	 * comes back (RDS_RDMA_OTHER_ERROR, rds_rdma_initiator_done); one
	 * it made read-only gets the data, as the kernel's pinned pages
	 * would: it reaches nothing but the client's own memory. */
	ret = rds_rdma_args_local(op->mem, a, g != NULL ? g->vec : NULL,
				  g == NULL, &op->local, &op->nr_local,
				  &total);
	if (ret != 0)
		return ret;
	/* The operation moves the local bytes. */
	op->kind = write ? RDS_OP_WRITE : RDS_OP_READ;
	op->cookie = a->cookie;
	op->remote_off = a->remote_vec.addr;
	op->bytes = total;
	op->flags = a->flags;
	op->token = a->user_token;
	if (op->kind == RDS_OP_WRITE) {
		/* The data to write is taken now, as the kernel pins the
		 * pages at sendmsg time. Not zeroed: filled whole below,
		 * or the operation fails and it is freed unread (zeroing
		 * 64 KiB was a tenth of an attached client's WRITE in the
		 * engine, its page faults included). */
		op->data = rds_mem_alloc("rds_rdma_data", total);
		if (op->data == NULL)
			return -ENOMEM;
		if (wdata != NULL) {
			/* It came with the send (a copy the client made in
			 * the call, in its region), within its buffer. */
			if (total > g->wlen)
				return -EINVAL;
			memcpy(op->data, wdata, total);
			return 0;
		}
		for (i = 0, off = 0; i < a->nr_local; i++) {
			ret = rds_xmem_read(op->mem, op->data + off,
					    (uintptr_t)op->local[i].iov_base,
					    op->local[i].iov_len);
			if (ret != 0)
				return ret == -EPERM ? -EPERM : -EFAULT;
			off += op->local[i].iov_len;
		}
	}
	return 0;
}

/* An atomic's result word in mem's memory (NULL: this process's), as
 * the kernel's rds_cmsg_atomic: 8-byte aligned, else EFAULT; then
 * pinned for writing (EFAULT): the engine writes the old value there
 * when the operation completes. */
static int
rds_atomic_local(const struct rds_xmem *mem, uint64_t addr, bool check)
{
	struct iovec w = { .iov_base = (void *)(uintptr_t)addr,
			   .iov_len = sizeof(uint64_t) };

	if ((addr & 7) != 0)
		return -EFAULT;
	return check ? rds_mem_check_iov(mem, &w, 1, PROT_WRITE) : 0;
}

/* check: as rds_rdma_args_local's (false: an attached client's queued
 * operation, whose result word the client checked). */
static int
rds_atomic_parse(struct rds_rdma_op *op, int type,
		 const struct rds_atomic_args *a, bool check)
{
	int ret;

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
	ret = rds_atomic_local(op->mem, a->local_addr, check);
	if (ret != 0)
		return ret;
	op->atomic_result = (uint64_t *)(uintptr_t)a->local_addr;
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
	return rds_rdma_cmsgs_vec(rs, msg, NULL, opp, dest_cookie, has_dest,
				  mapped);
}

int
rds_rdma_cmsgs_vec(struct rds_sock *rs, const struct msghdr *msg,
		   const struct rds_rdma_given *g, struct rds_rdma_op **opp,
		   uint64_t *dest_cookie, bool *has_dest, bool *mapped)
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
			op->mem = rs->mem;
			rds_xmem_get(op->mem);
			/* A NIC cannot reach a client's memory. */
			if (op->mem != NULL && rs->la->trans->mr_reg != NULL) {
				ret = -EOPNOTSUPP;
				break;
			}
			/* As the kernel: the socket's RDS_RECVERR when the
			 * operation is queued decides. */
			op->recverr = rs->recverr;
			if (c.type == RDS_CMSG_RDMA_ARGS) {
				struct rds_rdma_args a;

				memcpy(&a, c.data, sizeof(a));
				ret = rds_rdma_args_parse(op, &a, g);
			} else {
				struct rds_atomic_args a;

				memcpy(&a, c.data, sizeof(a));
				ret = rds_atomic_parse(op, c.type, &a, g == NULL);
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
			ret = rds_rdma_map(rs, &a, g, dest_cookie);
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

/*
 * An attached client's look at the control messages of its send before
 * it makes it, so that the calls' errno is the one the engine would give
 * (the engine parses them again, in the client's memory, with
 * rds_rdma_cmsgs): the first pass, and an operation's local side in this
 * process's memory. *what: RDS_RDMA_C_OP (one RDMA or atomic
 * operation: it can travel through the request ring), with
 * RDS_RDMA_C_MASKED (a masked atomic); RDS_RDMA_C_COOKIE (RDMA_DEST, its
 * cookie in *dest, or RDMA_MAP with RDS_RDMA_C_MAP, its arguments in
 * *map: the engine's registrations, which the client checks against
 * what it knows of them before it queues such a send, else a call); 0
 * (no SOL_RDS control message). *vec, *nvec: an RDMA_ARGS' local vector
 * (this process's memory), checked; *wbytes: a WRITE's bytes (0: none).
 */
int
rds_rdma_cmsgs_client(const struct msghdr *msg, unsigned int *what,
		      const struct rds_iovec **vec, uint32_t *nvec,
		      uint64_t *wbytes, struct rds_get_mr_args *map,
		      uint64_t *dest)
{
	struct rds_cmsg_iter it;
	struct rds_cmsg c;
	struct iovec *local;
	unsigned int nops;
	uint64_t total;
	uint32_t nr;
	int ret;

	*what = 0;
	*vec = NULL;
	*nvec = 0;
	*wbytes = 0;
	ret = rds_rdma_cmsgs_check(msg, &nops);
	if (ret < 0 || nops == 0)
		return ret;
	rds_uarg_cmsg_start(&it, msg);
	while (ret == 0 && rds_uarg_cmsg_next(&it, &c) > 0) {
		if (c.level != SOL_RDS)
			continue;
		switch (c.type) {
		case RDS_CMSG_RDMA_ARGS: {
			struct rds_rdma_args a;

			memcpy(&a, c.data, sizeof(a));
			ret = rds_rdma_args_local(NULL, &a, NULL, true, &local,
						  &nr, &total);
			rds_mem_free(local);
			*vec = (const void *)(uintptr_t)a.local_vec_addr;
			*nvec = nr;
			if (a.flags & RDS_RDMA_READWRITE)
				*wbytes = total;
			*what |= RDS_RDMA_C_OP;
			break;
		}
		case RDS_CMSG_MASKED_ATOMIC_FADD:
		case RDS_CMSG_MASKED_ATOMIC_CSWP:
			*what |= RDS_RDMA_C_MASKED;
			/* fall through */
		case RDS_CMSG_ATOMIC_FADD:
		case RDS_CMSG_ATOMIC_CSWP: {
			struct rds_atomic_args a;

			memcpy(&a, c.data, sizeof(a));
			ret = rds_atomic_local(NULL, a.local_addr, true);
			*what |= RDS_RDMA_C_OP;
			break;
		}
		case RDS_CMSG_RDMA_MAP:
			memcpy(map, c.data, sizeof(*map));
			*what |= RDS_RDMA_C_COOKIE | RDS_RDMA_C_MAP;
			break;
		default:
			memcpy(dest, c.data, sizeof(*dest));
			*what |= RDS_RDMA_C_COOKIE;
			break;
		}
	}
	return ret;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Serving other processes: a client's send with an RDMA or atomic
 * operation, taken off its request ring as every send is
 * (rds_server_data.c), with no call per operation. Its control messages
 * ride in the TX buffer after the payload, an RDMA_ARGS' local vector
 * after them, as it was at the send, and a WRITE's data after that, as
 * it was at the send too (rds_region.h, struct rds_cbuf ctl_len, vec_n,
 * RDS_CBUF_F_WDATA; as an in-process WRITE's, copied in the call). The
 * engine copies them out of the region before it reads them and parses
 * them as an in-process send's (rds_rdma_cmsgs_vec): a READ's local
 * buffers are the client's memory, checked and later written through
 * the socket's rds_xmem with the client's own rights, never a pointer
 * followed (doc/rds-engined.8, TRUST). The client made
 * the same checks in its own memory before it queued the send
 * (rds_rdma_cmsgs_client), so that its sendmsg returned the kernel's
 * errno; what fails here (the client changed or unmapped the memory
 * since, or lied) drops the message: an operation that asked for a
 * notification (RDS_RDMA_NOTIFY_ME) gets one with RDS_RDMA_OTHER_ERROR,
 * anything else is told to the sender's next send (or SO_ERROR), as a
 * message the engine could not keep.
 *
 * An RDMA_MAP goes the same way once the socket has keys (rds_region.h,
 * the key ring): the send carries the key the client took
 * (RDS_CBUF_F_MAP), and the region takes that key's reservation when
 * the engine takes the send (rds_rdma_map with the key). A send whose
 * key is not one reserved for its socket is dropped, as any operation
 * that fails here. An RDS_FREE_MR without INVALIDATE of a region the
 * client mapped through its ring comes through the same ring
 * (RDS_CBUF_F_FREE, rds_server_data.c), behind the sends before it.
 */
#include <errno.h>
#include <sys/socket.h>

#include "rds_server_private.h"

/* The first operation among the control messages (a copy of the
 * engine's): whether it asked for a notification (and its token), and
 * an RDMA_ARGS' local vector's length (-1: not an RDMA_ARGS). */
static bool
rds_srv_op_peek(const struct msghdr *mh, uint64_t *token, int64_t *nr_local)
{
	struct rds_cmsg_iter it;
	struct rds_cmsg c;

	*nr_local = -1;
	if (rds_uarg_cmsg_start(&it, mh) < 0)
		return false;
	while (rds_uarg_cmsg_next(&it, &c) > 0) {
		if (c.level != SOL_RDS)
			continue;
		if (c.type == RDS_CMSG_RDMA_ARGS &&
		    c.len >= sizeof(struct rds_rdma_args)) {
			struct rds_rdma_args a;

			memcpy(&a, c.data, sizeof(a));
			*token = a.user_token;
			*nr_local = (int64_t)RTE_MIN(a.nr_local,
						     (uint64_t)INT64_MAX);
			return (a.flags & RDS_RDMA_NOTIFY_ME) != 0;
		}
		if ((c.type == RDS_CMSG_ATOMIC_FADD ||
		     c.type == RDS_CMSG_ATOMIC_CSWP ||
		     c.type == RDS_CMSG_MASKED_ATOMIC_FADD ||
		     c.type == RDS_CMSG_MASKED_ATOMIC_CSWP) &&
		    c.len >= sizeof(struct rds_atomic_args)) {
			struct rds_atomic_args a;

			memcpy(&a, c.data, sizeof(a));
			*token = a.user_token;
			return (a.flags & RDS_RDMA_NOTIFY_ME) != 0;
		}
	}
	return false;
}

/* A dropped operation is told: its notification (RDS_RDMA_OTHER_ERROR)
 * when it asked for one, else the sender's next send or SO_ERROR. */
static void
rds_srv_op_drop(struct rds_engine *e, struct rds_client *cl,
		struct rds_sock *rs, bool notify, uint64_t token, int err)
{
	__atomic_fetch_add(&cl->ops_dropped, 1, __ATOMIC_RELAXED);
	if (notify)
		rds_server_notify(e, rs, token, RDS_RDMA_OTHER_ERROR);
	else
		rds_server_set_err(rs, -err);
}

void
rds_srv_keys_fill(struct rds_srv_sock *ss, struct rds_sock *rs)
{
	uint32_t keys[RDS_MR_RESV_MAX], held, used, want;
	int i, n;

	held = __atomic_load_n(&rs->nb_mr_resv, __ATOMIC_RELAXED);
	used = ss->key.idx - __atomic_load_n(&ss->key.r->cons,
					     __ATOMIC_ACQUIRE);
	if (held >= RDS_MR_RESV_MAX || used > ss->key.size)
		return;		/* a client's garbage: no more keys */
	want = RTE_MIN(RDS_MR_RESV_MAX - held, ss->key.size - used);
	ss->keys_on = true;
	n = rds_mr_reserve(rs, keys, want);
	for (i = 0; i < n; i++)
		if (rds_xring_put(&ss->key, keys[i]) != 0)
			rds_mr_free_key(rs, keys[i]);
}

int
rds_srv_take_op(struct rds_engine *e, struct rds_client *cl,
		struct rds_sock *rs, const uint8_t *buf, size_t room,
		const struct rds_cbuf *h, struct rds_msg *m, bool *mapped_out)
{
	union {
		uint8_t b[RDS_CBUF_CTL_MAX];
		struct cmsghdr align;
	} ctl;
	struct rds_iovec vec[RDS_CBUF_VEC_MAX];
	size_t vbytes = sizeof(vec[0]) * h->vec_n;
	struct rds_rdma_given g = { .vec = vec };
	struct rds_rdma_op *op = NULL;
	struct msghdr mh;
	uint64_t cookie = 0, token = 0;
	bool has_dest = false, mapped = false, notify;
	int64_t nr_local;
	int ret;

	/* Every client socket names its client's memory (set before the
	 * socket is published): never this process's. Bounds: checked
	 * when the request was taken (rds_srv_next). */
	if (unlikely(rs->mem == NULL))
		return -EPERM;
	memcpy(ctl.b, buf, h->ctl_len);
	memcpy(vec, buf + h->ctl_len, vbytes);
	if (h->flags & RDS_CBUF_F_WDATA) {
		g.wdata = buf + h->ctl_len + vbytes;
		g.wlen = room - h->ctl_len - vbytes;
	}
	if (h->flags & RDS_CBUF_F_MAP) {
		g.map_key_set = true;
		g.map_key = (uint32_t)h->rdma_dest;
	}
	memset(&mh, 0, sizeof(mh));
	mh.msg_control = ctl.b;
	mh.msg_controllen = h->ctl_len;
	/* An RDMA_ARGS' local vector is the one its send carried (the
	 * client's memory may hold another by now): its length must be
	 * the arguments' (a client's lie, its loss). */
	notify = rds_srv_op_peek(&mh, &token, &nr_local);
	if (nr_local >= 0 && nr_local != (int64_t)h->vec_n)
		ret = -EINVAL;
	else
		ret = rds_rdma_cmsgs_vec(rs, &mh, &g, &op, &cookie, &has_dest,
					 &mapped);
	if (ret == 0 && mapped && !g.map_key_set) {
		/* RDMA_MAP without a key reserved for it is a call's: a
		 * client does not queue it (a client's lie, its loss). */
		rds_rdma_unmap(rs, cookie);
		ret = -EINVAL;
	}
	if (ret != 0) {
		rds_rdma_op_free(op);
		rds_srv_op_drop(e, cl, rs, notify, token, ret);
		return ret;
	}
	m->op = op;
	m->rdma_dest = cookie;
	m->has_dest = has_dest;
	*mapped_out = mapped;
	return 0;
}

int
rds_srv_op_trans(struct rds_engine *e, struct rds_client *cl,
		 struct rds_sock *rs, struct rds_msg *m, uint8_t trans_id)
{
	int ret = rds_send_op_check(m->op, trans_id);

	if (ret == 0) {
		if (m->op != NULL)
			__atomic_fetch_add(&cl->ops_in, 1, __ATOMIC_RELAXED);
		return 0;
	}
	rds_srv_op_drop(e, cl, rs, (m->op->flags & RDS_RDMA_NOTIFY_ME) != 0,
			m->op->token, ret);
	return ret;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sending, the application's half (net/rds/send.c), the in-process back
 * end: sendmsg checks its arguments and picks the transport
 * (rds_front.h, as an attached socket), accounts and copies the
 * message, then queues it on its socket, which rings the socket's home
 * engine. What the engine does with it is in rds_xmit.c.
 */
#include <errno.h>
#include <sys/uio.h>

#include "rds_private.h"

/* The transport of a message to fc's address (rds_front_trans). */
static __rte_always_inline int
rds_sock_trans_for(const struct rds_sock *rs, const struct rds_cong_map *fc,
		   uint8_t *trans_id)
{
	const struct rds_transport *t;
	int ret = rds_front_trans(&rs->f, fc->la == rs->la, fc->la != NULL,
				  trans_id);

	if (likely(ret <= 0))
		return ret;
	t = rs->la->trans;
	return rds_front_trans_bound(t->trans_id,
				     (t->flags & RDS_TRANS_F_LOOPBACK) != 0,
				     trans_id);
}

/* Can transport trans_id run op (NULL: none)? 0 or -EOPNOTSUPP. The
 * same test for an attached client's operation (rds_server_rdma.c). */
int
rds_send_op_check(const struct rds_rdma_op *op, uint8_t trans_id)
{
	const struct rds_transport *t;

	if (op == NULL)
		return 0;
	t = rds_transport_by_id(trans_id);
	if (t == NULL || !(t->flags & RDS_TRANS_F_RDMA) ||
	    ((op->kind == RDS_OP_MFADD || op->kind == RDS_OP_MCSWP) &&
	     !(t->flags & RDS_TRANS_F_MASKED_ATOMICS)))
		return -EOPNOTSUPP;
	return 0;
}

/* The destination's map (it names the address): the socket keeps the
 * last one, maps live until rte_rds_fini(). */
static inline struct rds_cong_map *
rds_send_fcong(struct rds_sock *rs, const struct in6_addr *faddr)
{
	struct rds_cong_map *fc = __atomic_load_n(&rs->last_fcong,
						  __ATOMIC_ACQUIRE);

	if (likely(fc != NULL) && likely(rds_addr_eq(&fc->addr, faddr)))
		return fc;
	fc = rds_cong_map_get(faddr);
	if (fc != NULL)
		__atomic_store_n(&rs->last_fcong, fc, __ATOMIC_RELEASE);
	return fc;
}

static int
rds_send_wait_room(struct rds_sock *rs, struct rds_cong_map *fcong,
		   uint16_t dport, int flags, uint64_t deadline)
{
	uint64_t spins = 0;
	int ret;

	/* Destination congested (rds_cong_wait). */
	while (rds_cong_test(fcong, dport)) {
		if (flags & MSG_DONTWAIT) {
			if (!rs->cong_monitor)
				return -ENOBUFS;
			/* Remember the port; test again, an update may have
			 * come in meanwhile (rds_cong_wait). */
			__atomic_fetch_or(&rs->cong_mask, 1ULL << (dport % 64),
					  __ATOMIC_ACQ_REL);
			if (rds_cong_test(fcong, dport))
				return -ENOBUFS;
			break;
		}
		ret = rds_sock_wait_step(rs, deadline, &spins);
		if (ret < 0)
			return ret;
	}
	/* Send buffer: the last message may overshoot the limit. */
	while (__atomic_load_n(&rs->snd_bytes, __ATOMIC_ACQUIRE) >=
	       (int64_t)rs->f.sndbuf) {
		if (flags & MSG_DONTWAIT)
			return -EAGAIN;
		ret = rds_sock_wait_step(rs, deadline, &spins);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/*
 * The message a sendmsg makes, accounted in the socket's send buffer but
 * not queued yet: its length, or -errno. On success *mp is the message;
 * *mapped says that RDMA_MAP registered *dest_cookie (which a failure to
 * queue must free, rds_send_unmake).
 */
static __rte_always_inline ssize_t
rds_send_make_inline(struct rds_sock *rs, const struct msghdr *msg, int flags,
		     struct rds_msg **mp, uint64_t *dest_cookie_out,
		     bool *mapped_out)
{
	struct rds_cong_map *fcong;
	struct rds_rdma_op *op = NULL;
	struct in6_addr faddr;
	struct rds_msg *m;
	uint64_t deadline = 0, dest_cookie = 0;
	bool has_dest = false, mapped = false;
	uint16_t dport;
	uint8_t trans_id;
	ssize_t slen;
	size_t len;
	int64_t snd;
	int ret;

	slen = rds_front_send_check(&rs->f, msg, flags, &faddr, &dport);
	if (unlikely(slen < 0))
		return slen;
	len = (size_t)slen;
	fcong = rds_send_fcong(rs, &faddr);
	if (unlikely(fcong == NULL))
		return -ENOMEM;
	ret = rds_sock_trans_for(rs, fcong, &trans_id);
	if (unlikely(ret < 0))
		return ret;
	if (unlikely(msg->msg_controllen != 0)) {
		ret = rds_rdma_cmsgs(rs, msg, &op, &dest_cookie, &has_dest,
				     &mapped);
		if (ret < 0)
			return ret;
		ret = rds_send_op_check(op, trans_id);
		if (ret < 0)
			goto fail;
	}
	/* Room at once (the first tests of rds_send_wait_room): no call,
	 * no deadline to compute. */
	if (unlikely(rds_cong_test(fcong, dport)) ||
	    unlikely(__atomic_load_n(&rs->snd_bytes, __ATOMIC_ACQUIRE) >=
		     (int64_t)rs->f.sndbuf)) {
		if (!(flags & MSG_DONTWAIT))
			deadline = rds_deadline(rs->f.sndtimeo_ns);
		ret = rds_send_wait_room(rs, fcong, dport, flags, deadline);
		if (unlikely(ret < 0))
			goto fail;
	}
	m = rds_msg_alloc((uint32_t)len);
	if (unlikely(m == NULL)) {
		ret = -ENOMEM;
		goto fail;
	}
	m->op = op;
	m->rdma_dest = dest_cookie;
	m->has_dest = has_dest;
	rds_front_copy_in(m->buf, msg, len);
	m->type = RDS_MSG_DATA;
	m->sock = rs->id;
	m->sock_gen = rs->gen;
	m->laddr = rs->f.bound_addr;
	m->faddr = faddr;
	m->sport = rs->f.bound_port;
	m->dport = dport;
	m->trans_id = trans_id;
	m->eng = (uint8_t)rds_conn_engine_of_hash(rs->la->cong->hash,
						  fcong->hash);
	snd = __atomic_add_fetch(&rs->snd_bytes, (int64_t)len,
				 __ATOMIC_ACQ_REL);
	__atomic_fetch_add(&rs->snd_msgs, 1, __ATOMIC_ACQ_REL);
	if (snd >= (int64_t)rs->f.sndbuf / 2)
		m->h_flags = RDS_FLAG_ACK_REQUIRED;
	*mp = m;
	*dest_cookie_out = dest_cookie;
	*mapped_out = mapped;
	return (ssize_t)len;
fail:
	rds_rdma_op_free(op);
	if (mapped)
		rds_rdma_unmap(rs, dest_cookie);
	return ret;
}

ssize_t
rds_send_make(struct rds_sock *rs, const struct msghdr *msg, int flags,
	      struct rds_msg **mp, uint64_t *dest_cookie_out, bool *mapped_out)
{
	return rds_send_make_inline(rs, msg, flags, mp, dest_cookie_out,
				    mapped_out);
}

/* A message of rds_send_make that was not queued after all. */
void
rds_send_unmake(struct rds_sock *rs, struct rds_msg *m, bool mapped,
		uint64_t dest_cookie)
{
	__atomic_fetch_sub(&rs->snd_bytes, (int64_t)m->len, __ATOMIC_RELEASE);
	__atomic_fetch_sub(&rs->snd_msgs, 1, __ATOMIC_RELEASE);
	rds_msg_free(m);	/* frees the op too */
	if (mapped)
		rds_rdma_unmap(rs, dest_cookie);
}

static __rte_always_inline ssize_t
rds_sendmsg(struct rds_sock *rs, const struct msghdr *msg, int flags)
{
	struct rds_msg *m = NULL;
	uint64_t dest_cookie = 0;
	bool mapped = false;
	ssize_t len;
	int ret;

	/* An earlier message the engine could not keep (no connection
	 * for it): this call says so, and sends nothing. */
	ret = rds_front_snd_err(&rs->snd_err);
	if (unlikely(ret < 0))
		return ret;
	/* Inline here: sendmsg is the path every message takes. */
	len = rds_send_make_inline(rs, msg, flags, &m, &dest_cookie, &mapped);
	if (unlikely(len < 0))
		return len;
	ret = rds_sock_request(rs, m, !(flags & MSG_DONTWAIT));
	if (likely(ret == 0))
		return len;
	rds_send_unmake(rs, m, mapped, dest_cookie);
	return ret == -ENOBUFS ? -EAGAIN : ret;
}

/* The body of rte_rds_sendmsg, inline in rte_rds_sendto too: there the
 * msghdr is built in place (one iovec, no control messages) and the
 * compiler drops the tests it makes known, with no second call. */
static __rte_always_inline ssize_t
rds_sendmsg_call(int s, const struct msghdr *msg, int flags)
{
	struct rds_sock *rs = rds_sock_hold(s);
	ssize_t ret;

	if (unlikely(rs == NULL)) {
		RDS_CLIENT_OR(rds_client_sendmsg(s, msg, flags));
		return RDS_ERR(EBADF);
	}
	ret = rds_sendmsg(rs, msg, flags);
	rds_sock_put(rs);
	if (unlikely(ret < 0))
		return RDS_ERR((int)-ret);
	return ret;
}

ssize_t
rte_rds_sendmsg(int s, const struct msghdr *msg, int flags)
{
	return rds_sendmsg_call(s, msg, flags);
}

ssize_t
rte_rds_sendto(int s, const void *buf, size_t len, int flags,
	       const struct sockaddr *to, socklen_t tolen)
{
	struct iovec iov = { .iov_base = (void *)(uintptr_t)buf,
			     .iov_len = len };
	struct msghdr msg = {
		.msg_name = (void *)(uintptr_t)to,
		.msg_namelen = to != NULL ? tolen : 0,
		.msg_iov = &iov,
		.msg_iovlen = 1,
	};

	return rds_sendmsg_call(s, &msg, flags);
}

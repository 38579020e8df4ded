/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receiving, the application's half (net/rds/recv.c), the in-process
 * back end (its checks are rds_front.h's, its copy-out rds_recv_out.h's,
 * as an attached socket's): recvmsg copies messages out (notifications
 * and congestion updates first), rte_rds_recv_burst lends them. What the engine does to queue them is
 * in rds_deliver.c.
 */
#include <errno.h>
#include <limits.h>
#include <sys/ioctl.h>
#include <linux/sockios.h>
#include <sys/uio.h>

#include "rds_private.h"
#include "rds_recv_out.h"

/* The next message of a socket, left in rs->rx_head. Under rs->rlock. */
static inline struct rds_msg *
rds_recv_peek(struct rds_sock *rs)
{
	struct rds_msg *m;

	if (rs->rx_head != NULL)
		return rs->rx_head;
	if (rds_queue_get_burst(&rs->rxq, &m, 1) == 1) {
		rs->rx_head = m;
		return m;
	}
	return NULL;
}

/* A message leaves the socket: its bytes stop counting against rcvbuf. */
static __rte_always_inline void
rds_recv_consumed(struct rds_sock *rs, struct rds_msg *m)
{
	__atomic_fetch_sub(&rs->rcv_bytes, (int64_t)m->len, __ATOMIC_RELEASE);
	rds_msg_free(m);
	if (__atomic_load_n(&rs->congested, __ATOMIC_ACQUIRE))
		rds_cong_sock_check(rs);
}

/* Take the next queued notification. Under rs->rlock. */
static struct rds_msg *
rds_notify_next(struct rds_sock *rs)
{
	struct rds_msg *m;

	return rds_queue_get_burst(&rs->ntq, &m, 1) == 1 ? m : NULL;
}

static inline bool
rds_notify_pending(const struct rds_sock *rs)
{
	return rds_queue_count(&rs->ntq) != 0;
}

/* rds_recv_out_notify's view of the notification queue. Under
 * rs->rlock. */
static bool
rds_notify_take(void *arg, struct rds_rdma_notify *n, bool take)
{
	struct rds_sock *rs = arg;
	struct rds_msg *m;

	if (!take)
		return rds_notify_pending(rs);
	m = rds_notify_next(rs);
	if (m == NULL)
		return false;
	n->user_token = m->token;
	n->status = m->status;
	rds_msg_free(m);
	return true;
}

/* RDS_CMSG_CONG_UPDATE with the ports that became uncongested; as the
 * kernel's put_cmsg, consumed when it does not fit. */
static void
rds_recv_cong_update(struct rds_sock *rs, struct msghdr *msg, bool peek)
{
	struct rds_cmsg_out o;
	uint64_t mask;

	msg->msg_flags = 0;
	mask = peek ? __atomic_load_n(&rs->cong_notify, __ATOMIC_ACQUIRE) :
	       __atomic_exchange_n(&rs->cong_notify, 0, __ATOMIC_ACQ_REL);
	rds_cmsg_out_init(&o, msg);
	rds_cmsg_put(&o, msg, RDS_CMSG_CONG_UPDATE, &mask, sizeof(mask));
	rds_cmsg_out_done(&o, msg);
}

/* A data message out to an IPv6 socket (a sockaddr_in6 source with
 * the socket's scope): off the IPv4 path. */
static __rte_noinline ssize_t
rds_recv_out_msg6(const struct rds_sock *rs, struct msghdr *msg, int flags,
		  const struct rds_msg *m)
{
	return rds_recv_out_msg(msg, flags, rds_msg_data(m), m->len,
				rds_addr_v4(&m->faddr), m->sport, m->has_dest,
				m->rdma_dest, m->rx_ts, m->rx_tstamp,
				&m->rx_trace, &m->faddr, rs->f.bound_scope);
}

static __rte_always_inline ssize_t
rds_recvmsg(struct rds_sock *rs, struct msghdr *msg, int flags)
{
	uint64_t deadline = 0, spins = 0;
	struct rds_msg *m = NULL;
	ssize_t ret;
	int err;

	err = rds_front_recv_check(msg, flags);
	if (unlikely(err != 0))
		return err > 0 ? 0 : err;
	rte_spinlock_lock(&rs->rlock);
	for (;;) {
		if (unlikely(rds_notify_pending(rs))) {
			rds_recv_out_notify(msg, flags & MSG_PEEK,
					    rds_notify_take, rs);
			break;
		}
		if (unlikely(rs->cong_monitor) &&
		    __atomic_load_n(&rs->cong_notify, __ATOMIC_ACQUIRE) != 0) {
			rds_recv_cong_update(rs, msg, flags & MSG_PEEK);
			break;
		}
		m = rds_recv_peek(rs);
		if (m != NULL)
			break;
		rte_spinlock_unlock(&rs->rlock);
		if (flags & MSG_DONTWAIT)
			return -EAGAIN;
		/* The timeout runs from the first wait: no TSC read when a
		 * message is there. */
		if (spins == 0 && deadline == 0)
			deadline = rds_deadline(rs->f.rcvtimeo_ns);
		err = rds_sock_wait_step(rs, deadline, &spins);
		if (err < 0)
			return err;
		rte_spinlock_lock(&rs->rlock);
	}
	if (m == NULL) {
		/* A notification: an empty message without an address. */
		rte_spinlock_unlock(&rs->rlock);
		msg->msg_namelen = 0;
		return 0;
	}
	if (unlikely(rs->f.bound == RDS_BOUND_V6))
		ret = rds_recv_out_msg6(rs, msg, flags, m);
	else
		ret = rds_recv_out_msg(msg, flags, rds_msg_data(m), m->len,
				       rds_addr_v4(&m->faddr), m->sport,
				       m->has_dest, m->rdma_dest, m->rx_ts,
				       m->rx_tstamp, &m->rx_trace, NULL, 0);
	if (!(flags & MSG_PEEK))
		rs->rx_head = NULL;
	rte_spinlock_unlock(&rs->rlock);
	if (!(flags & MSG_PEEK))
		rds_recv_consumed(rs, m);
	return ret;
}

/* The body of rte_rds_recvmsg, inline in rte_rds_recvfrom too (one
 * iovec, no control buffer: the compiler drops the tests it makes
 * known, with no second call). */
static __rte_always_inline ssize_t
rds_recvmsg_call(int s, struct msghdr *msg, int flags)
{
	struct rds_sock *rs = rds_sock_hold(s);
	ssize_t ret;

	if (unlikely(rs == NULL)) {
		RDS_CLIENT_OR(rds_client_recvmsg(s, msg, flags));
		return RDS_ERR(EBADF);
	}
	ret = rds_recvmsg(rs, msg, flags);
	rds_sock_put(rs);
	if (unlikely(ret < 0))
		return RDS_ERR((int)-ret);
	return ret;
}

ssize_t
rte_rds_recvmsg(int s, struct msghdr *msg, int flags)
{
	return rds_recvmsg_call(s, msg, flags);
}

ssize_t
rte_rds_recvfrom(int s, void *buf, size_t len, int flags,
		 struct sockaddr *from, socklen_t *fromlen)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = {
		.msg_name = from,
		.msg_namelen = (from != NULL && fromlen != NULL) ? *fromlen : 0,
		.msg_iov = &iov,
		.msg_iovlen = 1,
	};
	ssize_t ret;

	ret = rds_recvmsg_call(s, &msg, flags);
	if (ret >= 0 && from != NULL && fromlen != NULL)
		*fromlen = msg.msg_namelen;
	return ret;
}

uint16_t
rte_rds_recv_burst(int s, struct rte_rds_msg **msgs, uint16_t n)
{
	struct rds_sock *rs;
	uint16_t got = 0;
	struct rds_msg *m;

	if (msgs == NULL)
		return 0;
	rs = rds_sock_hold(s);
	if (rs == NULL)
		return 0;
	rte_spinlock_lock(&rs->rlock);
	while (got < n && (m = rds_recv_peek(rs)) != NULL) {
		rs->rx_head = NULL;
		msgs[got++] = (struct rte_rds_msg *)m;
	}
	rte_spinlock_unlock(&rs->rlock);
	rds_sock_put(rs);
	return got;
}

const void *
rte_rds_msg_data(const struct rte_rds_msg *h)
{
	return rds_msg_data((const struct rds_msg *)h);
}

uint32_t
rte_rds_msg_len(const struct rte_rds_msg *h)
{
	return ((const struct rds_msg *)h)->len;
}

void
rte_rds_msg_src(const struct rte_rds_msg *h, struct sockaddr_in *from)
{
	const struct rds_msg *m = (const struct rds_msg *)h;

	memset(from, 0, sizeof(*from));
	from->sin_family = AF_INET;
	from->sin_port = htons(m->sport);
	from->sin_addr.s_addr = rds_addr_v4(&m->faddr);
}

void
rte_rds_msg_free(struct rte_rds_msg *h)
{
	struct rds_msg *m = (struct rds_msg *)h;
	struct rds_sock *rs;

	if (m == NULL)
		return;
	rs = rds_sock_hold(m->sock);
	if (rs != NULL && rs->gen == m->sock_gen)
		rds_recv_consumed(rs, m);
	else
		rds_msg_free(m);
	if (rs != NULL)
		rds_sock_put(rs);
}

/* ------------------------------------------------------------------ */
/* The socket's queues (rte_rds_ioctl) */

/* SIOCINQ: the size of the next message a recvmsg would return, 0 when
 * none (a peek that truncates to nothing, never waits). */
static int
rds_ioctl_inq(struct rds_sock *rs, int *val)
{
	struct msghdr msg;

	memset(&msg, 0, sizeof(msg));
	return rds_front_inq(rds_recvmsg(rs, &msg, MSG_DONTWAIT | MSG_PEEK |
					 MSG_TRUNC), val);
}

int
rte_rds_ioctl(int s, unsigned long request, int *val)
{
	struct rds_sock *rs = rds_sock_hold(s);
	int ret = 0;

	if (rs == NULL) {
		RDS_CLIENT_OR(rds_client_ioctl(s, request, val));
		return RDS_ERR(EBADF);
	}
	if (val == NULL) {
		ret = -EFAULT;
	} else if (request == SIOCOUTQ) {
		/* What sendmsg accounted and no ACK or cancel released. */
		*val = rds_front_outq(__atomic_load_n(&rs->snd_bytes,
						      __ATOMIC_ACQUIRE));
	} else if (request == SIOCINQ) {
		ret = rds_ioctl_inq(rs, val);
	} else if (request == SIOCRDSSETTOS || request == SIOCRDSGETTOS) {
		ret = rds_sock_tos(rs, request, (uint8_t *)val,
				   __atomic_load_n(&rs->last_fcong,
						   __ATOMIC_ACQUIRE) != NULL);
	} else {
		ret = -ENOTTY;
	}
	rds_sock_put(rs);
	return ret < 0 ? RDS_ERR(-ret) : 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receiving (net/rds/recv.c). Engines decode frames, apply the
 * piggybacked ACK, drop retransmitted duplicates, answer pings, take
 * congestion maps, and queue messages to the bound socket's channel. The
 * application side copies them out (recvmsg) or borrows them
 * (rte_rds_recv_burst).
 */
#include <errno.h>
#include <sys/uio.h>

#include "rds_private.h"

/* ---------------------------------------------------------------- */
/* Engine side. */

/* Queue m to rs; -ENOMEM when the queue cannot take it (the frame is
 * then not accepted: the peer sends it again after the reset). */
static int
rds_recv_deliver(struct rds_engine *e, struct rds_sock *rs, struct rds_msg *m)
{
	int64_t rcv;
	int ret;

	if (unlikely(rs->client != NULL))
		return rds_server_deliver(e, rs, m);
	rcv = __atomic_add_fetch(&rs->rcv_bytes, (int64_t)m->len,
				 __ATOMIC_ACQ_REL);
	if (rds_lib->nb_engines > 1) {
		rte_spinlock_lock(&rs->rx_prod_lock);
		ret = rds_queue_put(&rs->rxq, m);
		rte_spinlock_unlock(&rs->rx_prod_lock);
	} else {
		ret = rds_queue_put(&rs->rxq, m);
	}
	if (unlikely(ret != 0)) {
		__atomic_fetch_sub(&rs->rcv_bytes, (int64_t)m->len,
				   __ATOMIC_RELEASE);
		return -ENOMEM;
	}
	rds_stat_inc(e, s_recv_delivered);
	/* Below rcvbuf and not congested (the common case): nothing for
	 * rds_cong_sock_check to do. The last of racing deliveries sees
	 * their sum. */
	if (unlikely(rcv > (int64_t)rs->rcvbuf) ||
	    unlikely(__atomic_load_n(&rs->congested, __ATOMIC_ACQUIRE)))
		rds_cong_sock_check(rs);
	rds_sock_wake(rs);
	return 0;
}

/*
 * One complete message (or ACK-only frame, or congestion map) arrived on
 * connection c, its header decoded in h, its payload either at payload
 * (copied if kept) or already in own, a buffer the transport filled
 * (reassembly, or a payload borrowed within the process) and hands over
 * in every case. Returns 0 when the frame was consumed (delivered or
 * dropped on purpose), -EBADMSG for a malformed frame (dropped and
 * counted), -ENOMEM when it could not be kept: the transport must then
 * fail the connection so that the peer retransmits. Nothing is
 * acknowledged that was not delivered or dropped on purpose.
 */
int
rds_recv_hdr(struct rds_conn *c, const struct rds_hdr_info *h,
	     const void *payload, uint32_t len, struct rds_msg *own)
{
	struct rds_engine *e = c->eng;
	struct rds_sock *rs;
	struct rds_msg *m;
	bool acks;

	if (unlikely(h->len != len)) {
		rds_stat_inc(e, s_recv_drop_bad_hdr);
		RDS_LOG(DEBUG, "frame dropped: length mismatch");
		rds_msg_free(own);
		return -EBADMSG;
	}
	/* The piggybacked ACK; a transport that acknowledges by itself
	 * is the only one to free what we sent (one stream of ACKs). */
	acks = (c->trans->flags & RDS_TRANS_F_ACKS) != 0;
	if (h->ack != 0 && !acks)
		rds_send_drop_acked(c, h->ack);

	/* ACK-only frame. */
	if (h->sport == 0 && h->dport == 0 && h->len == 0 &&
	    !(h->flags & RDS_FLAG_CONG_BITMAP)) {
		rds_stat_inc(e, s_recv_ack);
		rds_msg_free(own);
		return 0;
	}
	/* Congestion map: not sequenced, not delivered. */
	if (unlikely(h->flags == RDS_FLAG_CONG_BITMAP)) {
		if (h->len != RDS_CONG_MAP_BYTES) {
			rds_stat_inc(e, s_recv_drop_bad_hdr);
			rds_msg_free(own);
			return -EBADMSG;
		}
		/* The map of one of our own addresses (a transport pinned
		 * between two local addresses) is ours to keep. */
		if (c->fcong->la == NULL)
			rds_cong_map_changed(rds_cong_map_update(c->fcong,
				own != NULL ? rds_msg_data(own) : payload));
		rds_stat_inc(e, s_recv_cong_map);
		rds_msg_free(own);
		return 0;
	}
	/* The kernel's duplicate rule: only old and retransmitted. */
	if (h->seq < c->next_rx_seq && (h->flags & RDS_FLAG_RETRANSMITTED)) {
		rds_stat_inc(e, s_recv_drop_old_seq);
		if ((h->flags & RDS_FLAG_ACK_REQUIRED) && !acks) {
			c->ack_requested = true;
			rds_conn_ready(c);
		}
		rds_msg_free(own);
		return 0;
	}

	rs = NULL;
	m = NULL;
	if (h->dport != 0) {
		rs = rds_sock_lookup_bound(c->la, h->dport);
		if (rs != NULL) {
			m = own;
			own = NULL;
			if (m == NULL) {
				m = rds_msg_alloc(len);
				if (unlikely(m == NULL)) {
					rds_stat_inc(e, s_recv_drop_nomem);
					return -ENOMEM;
				}
				if (len != 0)
					memcpy(m->buf, payload, len);
			}
			m->type = RDS_MSG_RECV;
			m->len = len;
			m->sock = rs->id;
			m->sock_gen = rs->gen;
			m->laddr = c->key.laddr;
			m->faddr = c->key.faddr;
			m->sport = h->sport;
			m->dport = h->dport;
			m->h_flags = h->flags;
			m->seq = h->seq;
			m->op = NULL;
			m->has_dest = (h->ext_mask &
				       (1u << RDS_EXTHDR_RDMA_DEST)) != 0;
			m->rdma_dest = (uint64_t)h->ext_rdma_dest_rkey |
				((uint64_t)h->ext_rdma_dest_offset << 32);
			if (unlikely(rds_recv_deliver(e, rs, m) != 0)) {
				rds_stat_inc(e, s_recv_drop_nomem);
				rds_msg_free(m);
				return -ENOMEM;
			}
			/* The peer used a region of that socket: USE_ONCE
			 * ends it. */
			if (unlikely(h->ext_mask & (1u << RDS_EXTHDR_RDMA)))
				rds_mr_unuse_sock(rs, h->ext_rdma_rkey);
		}
	}
	rds_msg_free(own);

	/* Accepted: gaps are allowed (the sender may have cancelled). */
	c->next_rx_seq = h->seq + 1;
	if (h->seq > c->ack_next) {
		c->ack_next = h->seq;
	} else if (h->seq < c->ack_next) {
		/* A new message below what we acknowledged: the peer
		 * started its sequence again (it restarted, as eth sees a
		 * new epoch), or a sender skipped back. As the kernel
		 * (rds_ib_set_ack: the last sequence received), the ACK
		 * names this one; keeping the old, higher one would
		 * acknowledge the new incarnation's next messages before
		 * they came. */
		c->ack_next = h->seq;
		c->ack_sent = 0;
	}
	if (h->acked || acks) {
		/* Delivered within the process, or acknowledged by the
		 * transport (ACK_REQUIRED was its to answer): the sender
		 * knows. */
		c->ack_sent = c->ack_next;
	} else if (h->flags & RDS_FLAG_ACK_REQUIRED) {
		c->ack_requested = true;
		rds_conn_ready(c);
	} else {
		rds_conn_ack_later(c);
	}

	if (h->dport == 0) {
		/* A ping: answered with a pong, unless it came from port 0. */
		rds_stat_inc(e, s_recv_ping);
		if (h->sport != 0)
			rds_send_pong(c, h->sport);
		return 0;
	}
	if (h->sport == 0)
		rds_stat_inc(e, s_recv_pong);
	if (rs == NULL) {
		/* No socket on that port: silently discarded (rds(7)). */
		rds_stat_inc(e, s_recv_drop_no_sock);
	}
	return 0;
}

static int
rds_recv_decode(struct rds_conn *c, const struct rds_header *wire,
		struct rds_hdr_info *h)
{
	const char *why = NULL;

	if (rds_hdr_decode(wire, sizeof(*wire), h, &why) != 0) {
		rds_stat_inc(c->eng, s_recv_drop_bad_hdr);
		RDS_LOG(DEBUG, "frame dropped: %s", why != NULL ? why : "?");
		return -EBADMSG;
	}
	return 0;
}

int
rds_recv_frame(struct rds_conn *c, const struct rds_header *wire,
	       const void *payload, uint32_t len)
{
	struct rds_hdr_info h;

	if (rds_recv_decode(c, wire, &h) != 0)
		return -EBADMSG;
	return rds_recv_hdr(c, &h, payload, len, NULL);
}

int
rds_recv_frame_msg(struct rds_conn *c, const struct rds_header *wire,
		   struct rds_msg *m)
{
	struct rds_hdr_info h;

	if (rds_recv_decode(c, wire, &h) != 0) {
		rds_msg_free(m);
		return -EBADMSG;
	}
	return rds_recv_hdr(c, &h, NULL, m->len, m);
}

/* ---------------------------------------------------------------- */
/* Application side. */

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

static size_t
rds_copy_to_iov(const struct msghdr *msg, const uint8_t *src, size_t len)
{
	size_t i, off = 0, n;

	if (likely(msg->msg_iovlen == 1)) {	/* recvfrom: no loop */
		n = RTE_MIN(msg->msg_iov[0].iov_len, len);
		if (n != 0)
			memcpy(msg->msg_iov[0].iov_base, src, n);
		return n;
	}
	for (i = 0; i < msg->msg_iovlen && off < len; i++) {
		n = RTE_MIN(msg->msg_iov[i].iov_len, len - off);
		if (n != 0)
			memcpy(msg->msg_iov[i].iov_base, src + off, n);
		off += n;
	}
	return off;
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

/*
 * RDMA notifications as RDS_CMSG_RDMA_STATUS control messages, as many
 * as fit; when not all fit the rest stay queued and MSG_CTRUNC is set;
 * when none fits, one is consumed (the kernel's put_cmsg drops it) so
 * that a caller without a control buffer cannot spin. Under rs->rlock.
 */
static void
rds_recv_notifications(struct rds_sock *rs, struct msghdr *msg, bool peek)
{
	size_t space = msg->msg_control != NULL ? msg->msg_controllen : 0;
	size_t used = 0, need = CMSG_SPACE(sizeof(struct rds_rdma_notify));
	struct rds_rdma_notify n;
	struct cmsghdr *cm;
	struct rds_msg *m;
	uint8_t *base = msg->msg_control;

	msg->msg_flags = 0;
	for (;;) {
		if (!rds_notify_pending(rs))
			break;
		if (used + CMSG_LEN(sizeof(n)) > space) {
			msg->msg_flags |= MSG_CTRUNC;
			if (used == 0 && !peek)
				rds_msg_free(rds_notify_next(rs));
			break;
		}
		if (peek)
			break;
		m = rds_notify_next(rs);
		if (m == NULL)
			break;
		n.user_token = m->token;
		n.status = m->status;
		cm = (struct cmsghdr *)(base + used);
		cm->cmsg_len = CMSG_LEN(sizeof(n));
		cm->cmsg_level = SOL_RDS;
		cm->cmsg_type = RDS_CMSG_RDMA_STATUS;
		memcpy(CMSG_DATA(cm), &n, sizeof(n));
		used += RTE_MIN(need, space - used);
		rds_msg_free(m);
	}
	msg->msg_controllen = used;
}

/* RDS_CMSG_CONG_UPDATE with the ports that became uncongested. */
static void
rds_recv_cong_update(struct rds_sock *rs, struct msghdr *msg, bool peek)
{
	size_t space = msg->msg_control != NULL ? msg->msg_controllen : 0;
	uint64_t mask;
	struct cmsghdr *cm;

	msg->msg_flags = 0;
	msg->msg_controllen = 0;
	mask = peek ? __atomic_load_n(&rs->cong_notify, __ATOMIC_ACQUIRE) :
	       __atomic_exchange_n(&rs->cong_notify, 0, __ATOMIC_ACQ_REL);
	if (space < CMSG_LEN(sizeof(mask))) {
		/* As the kernel's put_cmsg: truncated, and consumed. */
		msg->msg_flags |= MSG_CTRUNC;
		return;
	}
	cm = msg->msg_control;
	cm->cmsg_len = CMSG_LEN(sizeof(mask));
	cm->cmsg_level = SOL_RDS;
	cm->cmsg_type = RDS_CMSG_CONG_UPDATE;
	memcpy(CMSG_DATA(cm), &mask, sizeof(mask));
	msg->msg_controllen = CMSG_SPACE(sizeof(mask));
}

/* The RDMA_DEST cookie the peer shipped (RDS_CMSG_RDMA_DEST). */
static void
rds_recv_dest_cmsg(struct msghdr *msg, const struct rds_msg *m)
{
	size_t space = msg->msg_control != NULL ? msg->msg_controllen : 0;
	struct cmsghdr *cm;

	msg->msg_controllen = 0;
	if (!m->has_dest)
		return;
	if (space < CMSG_LEN(sizeof(uint64_t))) {
		msg->msg_flags |= MSG_CTRUNC;
		return;
	}
	cm = msg->msg_control;
	cm->cmsg_len = CMSG_LEN(sizeof(uint64_t));
	cm->cmsg_level = SOL_RDS;
	cm->cmsg_type = RDS_CMSG_RDMA_DEST;
	memcpy(CMSG_DATA(cm), &m->rdma_dest, sizeof(uint64_t));
	msg->msg_controllen = RTE_MIN(space, CMSG_SPACE(sizeof(uint64_t)));
}

static ssize_t
rds_recvmsg(struct rds_sock *rs, struct msghdr *msg, int flags)
{
	uint64_t deadline = 0, spins = 0;
	struct rds_msg *m = NULL;
	size_t copied;
	ssize_t ret;
	int err;

	if (unlikely(msg == NULL))
		return -EINVAL;
	if (unlikely(flags & MSG_OOB))
		return 0;	/* as the kernel */
	if (unlikely(flags & ~(MSG_DONTWAIT | MSG_PEEK | MSG_TRUNC |
			       MSG_WAITALL | MSG_CMSG_CLOEXEC)))
		return -EOPNOTSUPP;
	err = rds_uarg_iov(msg->msg_iov, msg->msg_iovlen, &copied);
	if (unlikely(err < 0))
		return err;
	rte_spinlock_lock(&rs->rlock);
	for (;;) {
		if (unlikely(rds_notify_pending(rs))) {
			rds_recv_notifications(rs, msg, flags & MSG_PEEK);
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
			deadline = rds_deadline(rs->rcvtimeo_ns);
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
	copied = rds_copy_to_iov(msg, rds_msg_data(m), m->len);
	msg->msg_flags = copied < m->len ? MSG_TRUNC : 0;
	ret = (flags & MSG_TRUNC) ? (ssize_t)m->len : (ssize_t)copied;
	rds_uarg_name_v4(msg, rds_addr_v4(&m->faddr), m->sport);
	rds_recv_dest_cmsg(msg, m);
	if (!(flags & MSG_PEEK))
		rs->rx_head = NULL;
	rte_spinlock_unlock(&rs->rlock);
	if (!(flags & MSG_PEEK))
		rds_recv_consumed(rs, m);
	return ret;
}

ssize_t
rte_rds_recvmsg(int s, struct msghdr *msg, int flags)
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

	ret = rte_rds_recvmsg(s, &msg, flags);
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

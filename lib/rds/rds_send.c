/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sending (net/rds/send.c). The application side checks, accounts and
 * copies a message, then hands it to the owning engine through the
 * socket's channel. The engine side stamps sequence numbers, transmits,
 * keeps what was sent until the peer acknowledges it, puts it back on a
 * reset, and cancels on request.
 */
#include <errno.h>
#include <sys/uio.h>

#include "rds_private.h"

/* Messages transmitted per connection per engine loop. */
#define RDS_SEND_BATCH 1024

/* ---------------------------------------------------------------- */
/* Engine side. */

/* Give a message back: its bytes return to the sender's send buffer. */
void
rds_send_release(struct rds_engine *e, struct rds_msg *m)
{
	struct rds_sock *rs;

	RTE_SET_USED(e);
	if (m->type == RDS_MSG_DATA && m->sock >= 0) {
		/* The sender may have closed (and its slot been reused)
		 * while a transport still held the message. */
		rs = rds_lib->socks[m->sock];
		if (rs->gen == m->sock_gen) {
			__atomic_fetch_sub(&rs->snd_bytes, (int64_t)m->len,
					   __ATOMIC_RELEASE);
			rds_sock_wake(rs);
		}
	}
	rds_msg_free(m);
}

/* A message from a socket's channel: stamp it and queue it on its
 * connection (rds_send_queue_rm). */
void
rds_send_queue(struct rds_engine *e, struct rds_sock *rs, struct rds_msg *m)
{
	struct rds_sock_engine *se = &rs->eng[e->id];
	struct rds_conn_key key;
	struct rds_conn *c = se->last_conn;

	/* Most sockets talk to one peer: skip the hash lookup then. */
	if (c == NULL || c->key.trans_id != m->trans_id ||
	    !rds_addr_eq(&c->key.faddr, &m->faddr) ||
	    !rds_addr_eq(&c->key.laddr, &m->laddr)) {
		memset(&key, 0, sizeof(key));
		key.laddr = m->laddr;
		key.faddr = m->faddr;
		key.trans_id = m->trans_id;
		c = rds_conn_get(e, &key);
		se->last_conn = c;
	}
	if (c == NULL) {
		/* No memory for a connection: the message cannot be kept. */
		RDS_LOG(ERR, "no connection for a message, dropped");
		rds_stat_inc(e, s_send_cancelled);
		rds_send_release(e, m);
		return;
	}
	m->seq = c->next_tx_seq++;
	TAILQ_INSERT_TAIL(&c->send_q, m, link);
	rds_stat_inc(e, s_send_queued);
}

void
rds_send_pong(struct rds_conn *c, uint16_t dport)
{
	struct rds_msg *m = rds_msg_alloc(0);

	if (m == NULL)
		return;
	m->type = RDS_MSG_PONG;
	m->laddr = c->key.laddr;
	m->faddr = c->key.faddr;
	m->sport = 0;
	m->dport = dport;
	m->seq = c->next_tx_seq++;
	TAILQ_INSERT_TAIL(&c->send_q, m, link);
	rds_stat_inc(c->eng, s_send_pong);
}

/* Header of a message's frames, carrying the current cumulative ACK. */
void
rds_msg_hdr(struct rds_conn *c, const struct rds_msg *m, struct rds_header *h)
{
	rds_hdr_encode(h, m->seq, c->ack_next, m->len, m->sport, m->dport,
		       m->h_flags, 0);
	if (m->has_dest) {
		rte_be32_t v[2] = { rte_cpu_to_be_32((uint32_t)m->rdma_dest),
				    rte_cpu_to_be_32(m->rdma_dest >> 32) };

		rds_hdr_add_ext(h, RDS_EXTHDR_RDMA_DEST, v, sizeof(v));
	}
	if (m->op != NULL) {
		/* The region's key, so that the target can apply USE_ONCE. */
		rte_be32_t k = rte_cpu_to_be_32((uint32_t)m->op->cookie);

		rds_hdr_add_ext(h, RDS_EXTHDR_RDMA, &k, sizeof(k));
	}
	c->ack_sent = c->ack_next;
	c->ack_requested = false;
	c->ack_due_tsc = 0;
}

/* Header of an ACK-only frame: no ports, no length, no sequence. */
void
rds_ack_hdr(struct rds_conn *c, struct rds_header *h)
{
	rds_hdr_encode(h, 0, c->ack_next, 0, 0, 0, 0, 0);
	c->ack_sent = c->ack_next;
	c->ack_requested = false;
	c->ack_due_tsc = 0;
}

/* The kernel's ACK_REQUIRED policy at transmit time: every
 * max_unacked_packets messages or max_unacked_bytes bytes. */
static void
rds_send_ack_policy(struct rds_conn *c, struct rds_msg *m)
{
	if (!(m->h_flags & RDS_FLAG_ACK_REQUIRED) &&
	    c->unacked_packets > 1 && c->unacked_bytes >= m->len) {
		c->unacked_packets--;
		c->unacked_bytes -= m->len;
		return;
	}
	m->h_flags |= RDS_FLAG_ACK_REQUIRED;
	c->unacked_packets = rds_lib->conf.max_unacked_packets;
	c->unacked_bytes = rds_lib->conf.max_unacked_bytes;
}

static int
rds_send_cong_map(struct rds_conn *c)
{
	struct rds_msg *m;
	uint32_t gen;
	int ret;

	m = rds_msg_alloc(RDS_CONG_MAP_BYTES);
	if (m == NULL)
		return -EAGAIN;
	gen = __atomic_load_n(&c->la->cong->gen, __ATOMIC_ACQUIRE);
	m->type = RDS_MSG_CONG;
	m->laddr = c->key.laddr;
	m->faddr = c->key.faddr;
	m->h_flags = RDS_FLAG_CONG_BITMAP;
	m->seq = 0;	/* maps are not sequenced */
	rds_cong_map_copy_out(c->la->cong, m->data);
	ret = c->trans->xmit(c, m);
	rds_msg_free(m);
	if (ret == 0) {
		c->map_queued = false;
		c->map_gen_sent = gen;
		rds_stat_inc(c->eng, s_send_cong_map);
	}
	return ret;
}

/* Transmit what the connection has queued (rds_send_xmit). Returns the
 * number of frames handed to the transport. */
unsigned int
rds_send_xmit(struct rds_conn *c)
{
	struct rds_engine *e = c->eng;
	struct rds_msg *m;
	unsigned int n = 0;
	int ret;

	/* A map goes between messages, never inside one. */
	if (c->map_queued && c->xmit_cur == NULL) {
		ret = rds_send_cong_map(c);
		if (ret == -EAGAIN)
			return 0;
		if (ret < 0) {
			c->drop_pending = true;
			return 0;
		}
		n++;
	}
	while (n < RDS_SEND_BATCH && (m = TAILQ_FIRST(&c->send_q)) != NULL) {
		if (c->xmit_cur != m)
			rds_send_ack_policy(c, m);
		c->xmit_cur = m;	/* the transport may take several calls */
		ret = c->trans->xmit(c, m);
		if (ret == -EAGAIN)
			break;
		c->xmit_cur = NULL;
		if (ret < 0) {
			c->drop_pending = true;
			break;
		}
		TAILQ_REMOVE(&c->send_q, m, link);
		TAILQ_INSERT_TAIL(&c->retrans_q, m, link);
		rds_stat_inc(e, s_send_xmit);
		if (m->h_flags & RDS_FLAG_ACK_REQUIRED)
			rds_stat_inc(e, s_send_ack_required);
		if (m->h_flags & RDS_FLAG_RETRANSMITTED)
			rds_stat_inc(e, s_send_retransmit);
		n++;
		if (c->state != RDS_CONN_UP || c->drop_pending)
			break;
	}
	return n;
}

/* Free everything the peer has acknowledged (rds_send_drop_acked). */
void
rds_send_drop_acked(struct rds_conn *c, uint64_t ack)
{
	struct rds_msg *m;

	while ((m = TAILQ_FIRST(&c->retrans_q)) != NULL && m->seq <= ack) {
		TAILQ_REMOVE(&c->retrans_q, m, link);
		rds_stat_inc(c->eng, s_send_acked);
		rds_send_release(c->eng, m);
	}
}

/* After a reset, what was sent and not acknowledged goes out again first,
 * marked RETRANSMITTED and ACK_REQUIRED (rds_send_path_reset). */
void
rds_send_path_reset(struct rds_conn *c)
{
	struct rds_msg *m, *next;

	c->xmit_cur = NULL;
	/* An RDMA operation is never sent twice: dropped (rds_send_xmit). */
	for (m = TAILQ_FIRST(&c->retrans_q); m != NULL; m = next) {
		next = TAILQ_NEXT(m, link);
		if (m->op == NULL)
			continue;
		TAILQ_REMOVE(&c->retrans_q, m, link);
		rds_rdma_notify(c->eng, m, RDS_RDMA_DROPPED);
		rds_send_release(c->eng, m);
	}
	TAILQ_FOREACH(m, &c->retrans_q, link)
		m->h_flags |= RDS_FLAG_ACK_REQUIRED | RDS_FLAG_RETRANSMITTED;
	TAILQ_CONCAT(&c->retrans_q, &c->send_q, link);
	TAILQ_INIT(&c->send_q);
	TAILQ_CONCAT(&c->send_q, &c->retrans_q, link);
	c->unacked_packets = rds_lib->conf.max_unacked_packets;
	c->unacked_bytes = rds_lib->conf.max_unacked_bytes;
	c->map_queued = false;
}

static unsigned int
rds_send_cancel_list(struct rds_engine *e, struct rds_conn *c,
		     struct rds_msg_list *l, const struct rds_sock *rs,
		     const struct rds_msg *req)
{
	struct rds_msg *m, *next;
	unsigned int n = 0;

	for (m = TAILQ_FIRST(l); m != NULL; m = next) {
		next = TAILQ_NEXT(m, link);
		if (m->type != RDS_MSG_DATA || m->sock != rs->id)
			continue;
		/* Half handed to the transport: it goes out whole (and its
		 * bytes are released then, as rs->gen says). */
		if (m == c->xmit_cur)
			continue;
		if (!req->all && m->dport != req->dport)
			continue;
		TAILQ_REMOVE(l, m, link);
		/* As rds_send_drop_to: CANCELED only to NOTIFY_ME, not to
		 * RDS_RECVERR alone (__rds_send_complete). */
		if (m->op != NULL && (m->op->flags & RDS_RDMA_NOTIFY_ME))
			rds_rdma_notify(e, m, RDS_RDMA_CANCELED);
		rds_send_release(e, m);
		n++;
	}
	return n;
}

/* RDS_CANCEL_SENT_TO and close: drop the socket's queued and
 * unacknowledged messages to one destination (address and port) or to
 * all (rds_send_drop_to). */
void
rds_send_cancel(struct rds_engine *e, struct rds_sock *rs,
		const struct rds_msg *req)
{
	struct rds_conn *c;
	unsigned int n = 0;

	TAILQ_FOREACH(c, &e->conns, link) {
		if (!rds_addr_eq(&c->key.laddr, &rs->bound_addr))
			continue;
		if (!req->all && !rds_addr_eq(&c->key.faddr, &req->faddr))
			continue;
		n += rds_send_cancel_list(e, c, &c->send_q, rs, req);
		n += rds_send_cancel_list(e, c, &c->retrans_q, rs, req);
	}
	rds_stat_add(e, s_send_cancelled, n);
}

/* ---------------------------------------------------------------- */
/* Application side. */

static int
rds_parse_dest(const struct msghdr *msg, const struct rds_sock *rs,
	       struct in6_addr *faddr, uint16_t *dport)
{
	const struct sockaddr_in *sin;

	if (msg->msg_name != NULL && msg->msg_namelen != 0) {
		sin = msg->msg_name;
		if (msg->msg_namelen < sizeof(*sin) ||
		    sin->sin_family != AF_INET ||
		    sin->sin_addr.s_addr == htonl(INADDR_ANY) ||
		    sin->sin_addr.s_addr == htonl(INADDR_BROADCAST) ||
		    IN_MULTICAST(ntohl(sin->sin_addr.s_addr)))
			return -EINVAL;
		rds_addr_from_v4(faddr, sin->sin_addr.s_addr);
		*dport = ntohs(sin->sin_port);
		return 0;
	}
	if (!rs->connected)
		return -ENOTCONN;
	*faddr = rs->conn_addr;
	*dport = rs->conn_port;
	return 0;
}

static int
rds_sock_trans_for(const struct rds_sock *rs, const struct in6_addr *faddr,
		   uint8_t *trans_id)
{
	/* To our own address: always loop, as the kernel's TCP transport
	 * (t_prefer_loopback); a connection to itself has no wire. */
	if (rds_addr_eq(faddr, &rs->bound_addr)) {
		*trans_id = RTE_RDS_TRANS_LOOP;
		return 0;
	}
	if (rs->trans_pinned != (uint32_t)RDS_TRANS_NONE) {
		*trans_id = (uint8_t)rs->trans_pinned;
		return 0;
	}
	if (rds_laddr_find(faddr) != NULL) {
		*trans_id = RTE_RDS_TRANS_LOOP;
		return 0;
	}
	if (rs->la->trans->flags & RDS_TRANS_F_LOOPBACK)
		return -ENETUNREACH;
	*trans_id = (uint8_t)rs->la->trans->trans_id;
	return 0;
}

ssize_t
rte_rds_sendmsg(int s, const struct msghdr *msg, int flags)
{
	struct rds_sock *rs = rds_sock_get(s);
	struct rds_cong_map *fcong;
	struct rds_rdma_op *op = NULL;
	struct in6_addr faddr;
	struct rds_msg *m;
	uint64_t deadline, spins = 0, dest_cookie = 0;
	bool has_dest = false;
	int err;
	unsigned int eng;
	uint16_t dport;
	uint8_t trans_id;
	size_t len = 0, off;
	int64_t snd;
	size_t i;
	int ret;

	if (rs == NULL)
		return RDS_ERR(EBADF);
	if (msg == NULL)
		return RDS_ERR(EINVAL);
	if (flags & ~MSG_DONTWAIT)
		return RDS_ERR(EOPNOTSUPP);
	ret = rds_parse_dest(msg, rs, &faddr, &dport);
	if (ret < 0)
		return RDS_ERR(-ret);
	if (!__atomic_load_n(&rs->bound, __ATOMIC_ACQUIRE))
		return RDS_ERR(ENOTCONN);
	ret = rds_uarg_iov(msg->msg_iov, msg->msg_iovlen, &len);
	if (ret < 0)
		return RDS_ERR(-ret);
	if (len > RDS_MAX_MSG_SIZE)
		return RDS_ERR(EMSGSIZE);
	if (len > rs->sndbuf)
		return RDS_ERR(EMSGSIZE);
	ret = rds_sock_trans_for(rs, &faddr, &trans_id);
	if (ret < 0)
		return RDS_ERR(-ret);
	ret = rds_rdma_cmsgs(rs, msg, &op, &dest_cookie, &has_dest);
	if (ret < 0)
		return RDS_ERR(-ret);
	if (op != NULL) {
		const struct rds_transport *t = rds_transport_by_id(trans_id);

		if (t == NULL || !(t->flags & RDS_TRANS_F_RDMA) ||
		    ((op->kind == RDS_OP_MFADD || op->kind == RDS_OP_MCSWP) &&
		     !(t->flags & RDS_TRANS_F_MASKED_ATOMICS))) {
			rds_rdma_op_free(op);
			return RDS_ERR(EOPNOTSUPP);
		}
	}
	rte_spinlock_lock(&rs->lock);
	if (rs->last_fcong != NULL && rds_addr_eq(&rs->last_faddr, &faddr)) {
		fcong = rs->last_fcong;
	} else {
		fcong = rds_cong_map_get(&faddr);
		rs->last_fcong = fcong;
		rs->last_faddr = faddr;
	}
	rte_spinlock_unlock(&rs->lock);
	if (fcong == NULL) {
		rds_rdma_op_free(op);
		return RDS_ERR(ENOMEM);
	}
	deadline = (flags & MSG_DONTWAIT) ? 0 : rds_deadline(rs->sndtimeo_ns);

	/* Destination congested (rds_cong_wait). */
	while (rds_cong_test(fcong, dport)) {
		if (flags & MSG_DONTWAIT) {
			err = ENOBUFS;
			if (!rs->cong_monitor)
				goto fail_op;
			/* Remember the port; test again, an update may have
			 * come in meanwhile (rds_cong_wait). */
			__atomic_fetch_or(&rs->cong_mask, 1ULL << (dport % 64),
					  __ATOMIC_ACQ_REL);
			if (rds_cong_test(fcong, dport))
				goto fail_op;
			break;
		}
		err = ETIMEDOUT;
		if (rds_sock_wait_step(rs, deadline, &spins) < 0)
			goto fail_op;
	}
	/* Send buffer: the last message may overshoot the limit. */
	for (;;) {
		snd = __atomic_load_n(&rs->snd_bytes, __ATOMIC_ACQUIRE);
		if (snd < (int64_t)rs->sndbuf)
			break;
		err = EAGAIN;
		if (flags & MSG_DONTWAIT)
			goto fail_op;
		err = ETIMEDOUT;
		if (rds_sock_wait_step(rs, deadline, &spins) < 0)
			goto fail_op;
	}
	m = rds_msg_alloc((uint32_t)len);
	err = ENOMEM;
	if (m == NULL)
		goto fail_op;
	m->op = op;
	m->rdma_dest = dest_cookie;
	m->has_dest = has_dest;
	for (i = 0, off = 0; i < msg->msg_iovlen; i++) {
		memcpy(m->data + off, msg->msg_iov[i].iov_base,
		       msg->msg_iov[i].iov_len);
		off += msg->msg_iov[i].iov_len;
	}
	snd = __atomic_add_fetch(&rs->snd_bytes, (int64_t)len,
				 __ATOMIC_ACQ_REL);
	m->type = RDS_MSG_DATA;
	m->sock = rs->id;
	m->sock_gen = rs->gen;
	m->laddr = rs->bound_addr;
	m->faddr = faddr;
	m->sport = rs->bound_port;
	m->dport = dport;
	m->trans_id = trans_id;
	if (snd >= (int64_t)rs->sndbuf / 2)
		m->h_flags = RDS_FLAG_ACK_REQUIRED;
	eng = rds_conn_engine_of(&m->laddr, &faddr);
	for (;;) {
		rte_spinlock_lock(&rs->lock);
		if (__atomic_load_n(&rs->state, __ATOMIC_ACQUIRE) !=
		    RDS_SOCK_OPEN) {
			ret = -EBADF;
		} else {
			ret = rds_chan_put(rs->chan[eng].tx, rs->chan[eng].base,
					   m);
		}
		rte_spinlock_unlock(&rs->lock);
		if (ret == 0)
			return (ssize_t)len;
		if (ret == -ENOBUFS && !(flags & MSG_DONTWAIT) &&
		    rds_sock_wait_step(rs, deadline, &spins) == 0)
			continue;
		break;
	}
	__atomic_fetch_sub(&rs->snd_bytes, (int64_t)len, __ATOMIC_RELEASE);
	rds_msg_free(m);	/* frees the op too */
	if (ret == -EBADF)
		return RDS_ERR(EBADF);
	return RDS_ERR((flags & MSG_DONTWAIT) ? EAGAIN : ETIMEDOUT);
fail_op:
	rds_rdma_op_free(op);
	return RDS_ERR(err);
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

	return rte_rds_sendmsg(s, &msg, flags);
}

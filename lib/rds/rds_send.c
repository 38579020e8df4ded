/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sending (net/rds/send.c). The application side checks, accounts and
 * copies a message, then queues it on its socket, which rings the
 * socket's home engine. The engine side routes it to the engine that
 * owns its connection, stamps its sequence number, transmits, keeps it
 * until the peer acknowledges it, puts it back on a reset, and cancels
 * on request.
 */
#include <errno.h>
#include <sys/uio.h>

#include "rds_private.h"

/* Messages transmitted per connection per engine pass. */
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
		rs = rds_sock_engine_get(m->sock, m->sock_gen);
		if (rs != NULL) {
			__atomic_fetch_sub(&rs->snd_bytes, (int64_t)m->len,
					   __ATOMIC_RELEASE);
			__atomic_fetch_sub(&rs->snd_msgs, 1, __ATOMIC_RELEASE);
			if (unlikely(rs->client != NULL))
				rds_server_released(rs, m->len);
			else
				rds_sock_wake(rs);
		}
	}
	rds_msg_free(m);
}

static void
rds_send_enqueue(struct rds_conn *c, struct rds_msg *m)
{
	m->seq = c->next_tx_seq++;
	TAILQ_INSERT_TAIL(&c->send_q, m, link);
	rds_stat_inc(c->eng, s_send_queued);
	if (c->state == RDS_CONN_UP)
		rds_conn_ready(c);
}

static struct rds_conn *
rds_send_conn(struct rds_engine *e, const struct rds_msg *m)
{
	struct rds_conn_key key;

	memset(&key, 0, sizeof(key));
	key.laddr = m->laddr;
	key.faddr = m->faddr;
	key.trans_id = m->trans_id;
	return rds_conn_get(e, &key);
}

static inline bool
rds_conn_matches(const struct rds_conn *c, const struct rds_msg *m)
{
	return c != NULL && c->key.trans_id == m->trans_id &&
	       rds_addr_eq(&c->key.faddr, &m->faddr) &&
	       rds_addr_eq(&c->key.laddr, &m->laddr);
}

static void
rds_send_no_conn(struct rds_engine *e, struct rds_msg *m)
{
	/* No memory for a connection: the message cannot be kept. */
	RDS_LOG(ERR, "no connection for a message, dropped");
	rds_stat_inc(e, s_send_cancelled);
	rds_send_release(e, m);
}

/* A message handed over by another engine (rds_send_queue_rm). */
void
rds_send_queue(struct rds_engine *e, struct rds_msg *m)
{
	struct rds_conn *c = rds_send_conn(e, m);

	if (c == NULL)
		rds_send_no_conn(e, m);
	else
		rds_send_enqueue(c, m);
}

/* A message from a socket's queue, on its home engine. */
void
rds_send_request(struct rds_engine *e, struct rds_sock *rs, struct rds_msg *m)
{
	struct rds_conn *c = rs->last_conn;

	if (unlikely(m->eng != e->id)) {
		rds_engine_handoff(e, m->eng, m);
		return;
	}
	/* Most sockets talk to one peer: skip the hash lookup then. A
	 * socket sending to several in turn mostly finds the connection in
	 * the engine's cache (rds_conn_lookup's), tested here against the
	 * message's fields without building a key. */
	if (unlikely(!rds_conn_matches(c, m))) {
		c = e->conn_cache[rds_conn_cache_slot_of(&m->laddr, &m->faddr,
							 m->trans_id)];
		if (unlikely(!rds_conn_matches(c, m))) {
			c = rds_send_conn(e, m);
			if (c == NULL) {
				rs->last_conn = NULL;
				rds_send_no_conn(e, m);
				return;
			}
		}
		rs->last_conn = c;
	}
	rds_send_enqueue(c, m);
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
	rds_send_enqueue(c, m);
	rds_stat_inc(c->eng, s_send_pong);
}

static inline void
rds_ack_taken(struct rds_conn *c)
{
	c->ack_sent = c->ack_next;
	c->ack_requested = false;
	c->ack_due = false;
}

/* Header of a message's frames, carrying the current cumulative ACK
 * (none where the transport acknowledges: RDS_TRANS_F_ACKS). */
void
rds_msg_hdr(struct rds_conn *c, const struct rds_msg *m, struct rds_header *h)
{
	uint64_t ack = c->trans->flags & RDS_TRANS_F_ACKS ? 0 : c->ack_next;

	rds_hdr_encode(h, m->seq, ack, m->len, m->sport, m->dport,
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
	rds_ack_taken(c);
}

/* The same header as decoded fields: nothing to encode, checksum or
 * decode when the frame never leaves the process (or to encode as the
 * transport needs, rds_hdr_encode_info). */
void
rds_msg_hdr_info(struct rds_conn *c, const struct rds_msg *m,
		 struct rds_hdr_info *h)
{
	h->seq = m->seq;
	h->ack = c->trans->flags & RDS_TRANS_F_ACKS ? 0 : c->ack_next;
	h->len = m->len;
	h->sport = m->sport;
	h->dport = m->dport;
	h->flags = m->h_flags;
	h->credit = 0;
	h->acked = false;
	h->ext_mask = 0;
	if (unlikely(m->has_dest)) {
		h->ext_mask |= 1u << RDS_EXTHDR_RDMA_DEST;
		h->ext_rdma_dest_rkey = (uint32_t)m->rdma_dest;
		h->ext_rdma_dest_offset = (uint32_t)(m->rdma_dest >> 32);
	}
	if (unlikely(m->op != NULL)) {
		h->ext_mask |= 1u << RDS_EXTHDR_RDMA;
		h->ext_rdma_rkey = (uint32_t)m->op->cookie;
	}
	rds_ack_taken(c);
}

/* Header of an ACK-only frame: no ports, no length, no sequence. */
void
rds_ack_hdr(struct rds_conn *c, struct rds_header *h)
{
	rds_hdr_encode(h, 0, c->ack_next, 0, 0, 0, 0, 0);
	rds_ack_taken(c);
}

void
rds_ack_hdr_info(struct rds_conn *c, struct rds_hdr_info *h)
{
	memset(h, 0, sizeof(*h));
	h->ack = c->ack_next;
	rds_ack_taken(c);
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
	struct rds_msg *m = c->map_cur;
	int ret;

	if (m == NULL) {
		m = rds_msg_alloc(RDS_CONG_MAP_BYTES);
		if (m == NULL)
			return -EAGAIN;
		c->map_cur_gen = __atomic_load_n(&c->la->cong->gen,
						 __ATOMIC_ACQUIRE);
		m->type = RDS_MSG_CONG;
		m->laddr = c->key.laddr;
		m->faddr = c->key.faddr;
		m->h_flags = RDS_FLAG_CONG_BITMAP;
		m->seq = 0;	/* maps are not sequenced */
		rds_cong_map_copy_out(c->la->cong, rds_msg_data(m));
		c->map_cur = m;
	}
	ret = c->trans->xmit(c, m);
	/* The transport may have sent part of it (as of any message): the
	 * same copy goes on at the next call. */
	if (ret == -EAGAIN)
		return ret;
	c->map_cur = NULL;
	rds_msg_free(m);
	if (ret == 0) {
		c->map_queued = false;
		c->map_gen_sent = c->map_cur_gen;
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
			rds_conn_error(c, "congestion map transmit failed");
			return 0;
		}
		n++;
	}
	while (n < RDS_SEND_BATCH && (m = TAILQ_FIRST(&c->send_q)) != NULL) {
		/* A transport that acknowledges by itself bounds what is
		 * outstanding with its own ACKs. */
		if (c->xmit_cur != m &&
		    !(c->trans->flags & RDS_TRANS_F_ACKS))
			rds_send_ack_policy(c, m);
		c->xmit_cur = m;	/* the transport may take several calls */
		ret = c->trans->xmit(c, m);
		if (ret == -EAGAIN)
			break;
		c->xmit_cur = NULL;
		if (ret < 0) {
			rds_conn_error(c, "transmit failed");
			break;
		}
		TAILQ_REMOVE(&c->send_q, m, link);
		rds_stat_inc(e, s_send_xmit);
		if (ret == RDS_XMIT_ACKED) {
			/* Delivered within the process, as acknowledged. */
			if (m->h_flags & RDS_FLAG_ACK_REQUIRED)
				rds_stat_inc(e, s_send_ack_required);
			rds_stat_inc(e, s_send_acked);
			rds_send_release(e, m);
			n++;
			if (c->state != RDS_CONN_UP || c->drop_pending)
				break;
			continue;
		}
		TAILQ_INSERT_TAIL(&c->retrans_q, m, link);
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

/* Free everything the peer has acknowledged (rds_send_drop_acked): in
 * an RDS ACK, or, RDS_TRANS_F_ACKS, through its transport (the driver
 * calls this when its acknowledgements cover a message's last frame, as
 * the kernel's rds_tcp when TCP's covers its last byte). */
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
	/* An RDMA operation is never sent twice: dropped (rds_send_xmit).
	 * But one that ran (the software executor's, loop and eth; ib's
	 * whose work request completed) never runs again: its message
	 * alone goes again (the receiver drops it if it had it), else the
	 * operation succeeded and its message was lost. */
	for (m = TAILQ_FIRST(&c->retrans_q); m != NULL; m = next) {
		next = TAILQ_NEXT(m, link);
		if (m->op == NULL || m->op->executed)
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
	rds_msg_free(c->map_cur);
	c->map_cur = NULL;
}

static unsigned int
rds_send_cancel_list(struct rds_engine *e, struct rds_conn *c,
		     struct rds_msg_list *l, const struct rds_msg *req)
{
	struct rds_msg *m, *next;
	unsigned int n = 0;

	for (m = TAILQ_FIRST(l); m != NULL; m = next) {
		next = TAILQ_NEXT(m, link);
		if (m->type != RDS_MSG_DATA || m->sock != req->sock ||
		    m->sock_gen != req->sock_gen)
			continue;
		/* Half handed to the transport: it goes out whole (and its
		 * bytes are released then, as the socket's gen says). */
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
 * all, on this engine's connections (rds_send_drop_to). */
void
rds_send_cancel(struct rds_engine *e, const struct rds_msg *req)
{
	struct rds_conn *c;
	unsigned int n = 0;

	TAILQ_FOREACH(c, &e->conns, link) {
		if (!rds_addr_eq(&c->key.laddr, &req->laddr))
			continue;
		if (!req->all && !rds_addr_eq(&c->key.faddr, &req->faddr))
			continue;
		n += rds_send_cancel_list(e, c, &c->send_q, req);
		n += rds_send_cancel_list(e, c, &c->retrans_q, req);
	}
	rds_stat_add(e, s_send_cancelled, n);
}

/* ---------------------------------------------------------------- */
/* Application side. */

static __rte_always_inline int
rds_parse_dest(const struct msghdr *msg, const struct rds_sock *rs,
	       struct in6_addr *faddr, uint16_t *dport)
{
	const struct sockaddr_in *sin = NULL;
	int ret = rds_uarg_dest_v4(msg, &sin);

	if (ret < 0)
		return ret;
	if (ret > 0) {
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
rds_sock_trans_for(const struct rds_sock *rs, const struct rds_cong_map *fc,
		   uint8_t *trans_id)
{
	/* To our own address: always loop, as the kernel's TCP transport
	 * (t_prefer_loopback); a connection to itself has no wire. */
	if (fc->la == rs->la) {
		*trans_id = RTE_RDS_TRANS_LOOP;
		return 0;
	}
	if (rs->trans_pinned != (uint32_t)RDS_TRANS_NONE) {
		*trans_id = (uint8_t)rs->trans_pinned;
		return 0;
	}
	if (fc->la != NULL) {
		*trans_id = RTE_RDS_TRANS_LOOP;
		return 0;
	}
	if (rs->la->trans->flags & RDS_TRANS_F_LOOPBACK)
		return -ENETUNREACH;
	*trans_id = (uint8_t)rs->la->trans->trans_id;
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
	       (int64_t)rs->sndbuf) {
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
	size_t len = 0, off, i;
	int64_t snd;
	int ret;

	if (unlikely(msg == NULL))
		return -EINVAL;
	if (unlikely(flags & ~MSG_DONTWAIT))
		return -EOPNOTSUPP;
	ret = rds_parse_dest(msg, rs, &faddr, &dport);
	if (unlikely(ret < 0))
		return ret;
	if (unlikely(!__atomic_load_n(&rs->bound, __ATOMIC_ACQUIRE)))
		return -ENOTCONN;
	ret = rds_uarg_iov(msg->msg_iov, msg->msg_iovlen, &len);
	if (unlikely(ret < 0))
		return ret;
	if (unlikely(len > RDS_MAX_MSG_SIZE))
		return -EMSGSIZE;
	if (unlikely(len > rs->sndbuf))
		return -EMSGSIZE;
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
		if (op != NULL) {
			const struct rds_transport *t =
				rds_transport_by_id(trans_id);

			if (t == NULL || !(t->flags & RDS_TRANS_F_RDMA) ||
			    ((op->kind == RDS_OP_MFADD ||
			      op->kind == RDS_OP_MCSWP) &&
			     !(t->flags & RDS_TRANS_F_MASKED_ATOMICS))) {
				ret = -EOPNOTSUPP;
				goto fail;
			}
		}
	}
	/* Room at once (the first tests of rds_send_wait_room): no call,
	 * no deadline to compute. */
	if (unlikely(rds_cong_test(fcong, dport)) ||
	    unlikely(__atomic_load_n(&rs->snd_bytes, __ATOMIC_ACQUIRE) >=
		     (int64_t)rs->sndbuf)) {
		if (!(flags & MSG_DONTWAIT))
			deadline = rds_deadline(rs->sndtimeo_ns);
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
	if (likely(msg->msg_iovlen == 1)) {
		memcpy(m->buf, msg->msg_iov[0].iov_base, len);
	} else {
		for (i = 0, off = 0; i < msg->msg_iovlen; i++) {
			memcpy(m->buf + off, msg->msg_iov[i].iov_base,
			       msg->msg_iov[i].iov_len);
			off += msg->msg_iov[i].iov_len;
		}
	}
	m->type = RDS_MSG_DATA;
	m->sock = rs->id;
	m->sock_gen = rs->gen;
	m->laddr = rs->bound_addr;
	m->faddr = faddr;
	m->sport = rs->bound_port;
	m->dport = dport;
	m->trans_id = trans_id;
	m->eng = (uint8_t)rds_conn_engine_of_hash(rs->la->cong->hash,
						  fcong->hash);
	snd = __atomic_add_fetch(&rs->snd_bytes, (int64_t)len,
				 __ATOMIC_ACQ_REL);
	__atomic_fetch_add(&rs->snd_msgs, 1, __ATOMIC_ACQ_REL);
	if (snd >= (int64_t)rs->sndbuf / 2)
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

static ssize_t
rds_sendmsg(struct rds_sock *rs, const struct msghdr *msg, int flags)
{
	struct rds_msg *m = NULL;
	uint64_t dest_cookie = 0;
	bool mapped = false;
	ssize_t len;
	int ret;

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

ssize_t
rte_rds_sendmsg(int s, const struct msghdr *msg, int flags)
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

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sending, the engine's half (net/rds/send.c): a message from a socket's
 * queue is routed to the engine that owns its connection, stamped with
 * its sequence number and transmitted; it is kept until the peer
 * acknowledges it, put back on a reset and dropped on a cancel. The
 * headers of the frames a transport builds come from here. Drivers
 * depend on this file (rds_driver.h); the application's half, the
 * socket calls, is rds_send.c.
 */
#include <errno.h>

#include "rds_private.h"

/* Messages transmitted per connection per engine pass. */
#define RDS_SEND_BATCH 1024

/* Give a message back: its bytes return to the sender's send buffer. */
void
rds_send_release(struct rds_engine *e, struct rds_msg *m)
{
	RTE_SET_USED(e);
	rds_send_unaccount(m);
	rds_msg_free(m);
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
	/* No memory for a connection, or the engine's table is full
	 * (rte_rds_conf.max_conns): the message cannot be kept. Said once
	 * an engine; counted every time. */
	if (!e->no_conn_said) {
		e->no_conn_said = true;
		RDS_LOG(ERR, "engine %u: no connection for a message (%u "
			"held, max_conns %u), dropped; this engine says it "
			"once, send_cancelled counts them", e->id, e->nb_conns,
			rds_lib->conf.max_conns);
	}
	rds_stat_inc(e, s_send_cancelled);
	/* The sender's next send fails with ENOMEM, the kernel's errno
	 * when it cannot make a connection (rds_conn_create_outgoing). */
	rds_send_set_err(m, ENOMEM);
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

/* A message from a socket's queue, on its home engine, that the inline
 * rds_send_request (rds_private.h) did not queue: another engine's, or
 * (on this engine) to another connection than the socket's last. */
void
rds_send_request_slow(struct rds_engine *e, struct rds_sock *rs,
		      struct rds_msg *m)
{
	struct rds_conn *c;

	if (unlikely(m->eng != e->id)) {
		rds_engine_handoff(e, m->eng, m);
		return;
	}
	/* Not the socket's last connection (the inline test). A socket
	 * sending to several peers in turn mostly finds the connection in
	 * the engine's cache (rds_conn_lookup's), tested here against the
	 * message's fields without building a key. */
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

/* Header of a message's frames, carrying the current cumulative ACK
 * (none where the transport acknowledges: RDS_TRANS_F_ACKS), which it
 * returns. */
uint64_t
rds_msg_hdr(const struct rds_conn *c, const struct rds_msg *m,
	    struct rds_header *h)
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
	return ack;
}

/* The same header as decoded fields: nothing to encode, checksum or
 * decode when the frame never leaves the process (or to encode as the
 * transport needs, rds_hdr_encode_info). */
void
rds_msg_hdr_info(const struct rds_conn *c, const struct rds_msg *m,
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
}

/* Header of an ACK-only frame: no ports, no length, no sequence. */
uint64_t
rds_ack_hdr(const struct rds_conn *c, struct rds_header *h)
{
	rds_hdr_encode(h, 0, c->ack_next, 0, 0, 0, 0, 0);
	return c->ack_next;
}

void
rds_ack_hdr_info(const struct rds_conn *c, struct rds_hdr_info *h)
{
	memset(h, 0, sizeof(*h));
	h->ack = c->ack_next;
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

/* Our map into m (8 KiB): its length, the whole map or, on a transport
 * with RDS_TRANS_F_MAP_DELTA, the sparse update that brings the peer's
 * copy from what this connection sent last to generation gen. */
static uint32_t
rds_send_cong_fill(struct rds_conn *c, struct rds_msg *m, uint32_t gen)
{
	struct rds_cong_map *map = c->la->cong;
	uint16_t words[RDS_CONG_MAP_WORDS];
	uint32_t len = 0;
	int n;

	if (c->trans->flags & RDS_TRANS_F_MAP_DELTA) {
		if (!c->map_synced) {
			len = rds_cong_delta_encode_full(map,
							 rds_msg_data(m));
		} else {
			n = rds_cong_changed_since(map, c->map_gen_sent, gen,
						   words);
			if (n >= 0)
				len = rds_cong_delta_encode(map, words,
							    (unsigned int)n,
							    false,
							    rds_msg_data(m));
			else
				len = rds_cong_delta_encode_full(
					map, rds_msg_data(m));
		}
	}
	if (len == 0) {
		rds_cong_map_copy_out(map, rds_msg_data(m));
		len = RDS_CONG_MAP_BYTES;
	}
	return len;
}

static int
rds_send_cong_map(struct rds_conn *c)
{
	struct rds_msg *m = c->map_cur;
	uint32_t len;
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
		m->len = rds_send_cong_fill(c, m, c->map_cur_gen);
		c->map_cur = m;
	}
	ret = c->trans->xmit(c, m);
	/* The transport may have sent part of it (as of any message): the
	 * same copy goes on at the next call. */
	if (ret == -EAGAIN)
		return ret;
	c->map_cur = NULL;
	len = m->len;
	rds_msg_free(m);
	if (ret == 0) {
		c->map_queued = false;
		c->map_synced = true;
		c->map_gen_sent = c->map_cur_gen;
		rds_stat_inc(c->eng, s_send_cong_map);
		rds_stat_add(c->eng, s_send_cong_map_bytes,
			     RDS_HEADER_SIZE + len);
	}
	return ret;
}

/*
 * rds-rdma(7)'s rule for a message that carries an RDMA or atomic
 * operation, for every transport (the kernel's rds_send_xmit and its
 * drivers' completions): the operation runs first, once (the
 * transport's xmit_op; a message sent again after a reset does not run
 * it again); a failed one takes its message with it (not sent, counted
 * as acknowledged: the receiver sees a gap in the sequence); an
 * RDS_RDMA_SILENT one on a message without payload or RDMA_DEST sends no
 * message at all; otherwise the message goes and, once it has, the
 * operation's result is reported (NOTIFY_ME, or RDS_RECVERR on a
 * failure; once: rds_rdma_op_notify). An operation in flight whose
 * result comes later (RDS_XMIT_OP_POSTED) does not hold its message
 * back: the transport reports the result (rds_rdma_op_completed), and a
 * silent one's message stays on the retransmit queue, unsent, so that a
 * reset that flushes the operation still ends it DROPPED. What xmit
 * returns.
 */
static int
rds_send_xmit_op(struct rds_conn *c, struct rds_msg *m)
{
	struct rds_rdma_op *op = m->op;
	bool silent = (op->flags & RDS_RDMA_SILENT) && m->len == 0 &&
		      !m->has_dest;
	int ret;

	if (!op->done && !op->posted) {
		ret = c->trans->xmit_op(c, m);
		if (ret < 0)
			return ret;
		if (ret == RDS_XMIT_OP_POSTED)
			op->posted = true;
		else
			op->done = true;
	}
	if (!op->done)
		return silent ? 0 : c->trans->xmit(c, m);
	if (op->status != RDS_RDMA_SUCCESS || silent) {
		rds_rdma_notify(c->eng, m, op->status);
		return RDS_XMIT_ACKED;
	}
	ret = c->trans->xmit(c, m);
	if (ret >= 0)
		rds_rdma_notify(c->eng, m, op->status);
	return ret;
}

/* Transmit what the connection has queued (rds_send_xmit). Returns the
 * number of frames handed to the transport. */
static unsigned int
rds_send_xmit(struct rds_conn *c)
{
	struct rds_engine *e = c->eng;
	struct rds_msg *m;
	unsigned int n = 0;
	uint8_t flags;
	int ret;

	/* Blocked again by the transport if its window is still full. */
	c->xmit_blocked = false;
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
		/* Read before the call: a message taken (RDS_XMIT_TAKEN) is
		 * the receiver's once xmit returns. */
		flags = m->h_flags;
		if (likely(m->op == NULL))
			ret = c->trans->xmit(c, m);
		else
			ret = rds_send_xmit_op(c, m);
		if (ret == -EAGAIN)
			break;
		c->xmit_cur = NULL;
		if (ret < 0) {
			rds_conn_error(c, "transmit failed");
			break;
		}
		rds_stat_inc(e, s_send_xmit);
		if (ret == RDS_XMIT_TAKEN || ret == RDS_XMIT_ACKED) {
			/* Delivered within the process, as acknowledged;
			 * taken: off the queue and released already. */
			if (flags & RDS_FLAG_ACK_REQUIRED)
				rds_stat_inc(e, s_send_ack_required);
			rds_stat_inc(e, s_send_acked);
			if (ret == RDS_XMIT_ACKED) {
				TAILQ_REMOVE(&c->send_q, m, link);
				rds_send_release(e, m);
			}
			n++;
			if (c->state != RDS_CONN_UP || c->drop_pending)
				break;
			continue;
		}
		TAILQ_REMOVE(&c->send_q, m, link);
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

/* One connection of the ready list: connect, transmit, acknowledge.
 * Returns the work done; a connection that still has work (the
 * transport had no room) comes back on the list. Here, beside
 * rds_send_xmit, which gcc inlines into it; the connect step is
 * rds_conn.c's. */
unsigned int
rds_conn_run(struct rds_conn *c, uint64_t now)
{
	unsigned int work = 0;
	int ret;

	if (unlikely(c->drop_pending) || unlikely(c->state != RDS_CONN_UP))
		work = rds_conn_run_connect(c, now);
	if (c->state != RDS_CONN_UP)
		return work;
	work += rds_send_xmit(c);
	if (c->state != RDS_CONN_UP)
		return work;
	/* ACK: at once when asked for, else after the delayed-ACK time. */
	if (c->ack_requested || (c->ack_due && c->ack_next > c->ack_sent)) {
		ret = c->trans->xmit_ack(c);
		if (ret == 0) {
			rds_stat_inc(c->eng, s_send_ack);
			work++;
		} else if (ret != -EAGAIN) {
			rds_conn_error(c, "ACK transmit failed");
		}
	}
	if (c->drop_pending ||
	    (c->state == RDS_CONN_UP && rds_conn_has_work(c)))
		rds_conn_ready(c);
	return work;
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

static void
rds_send_drop_cancelled(struct rds_conn *c, struct rds_msg_list *l)
{
	struct rds_msg *m, *next;

	for (m = TAILQ_FIRST(l); m != NULL; m = next) {
		next = TAILQ_NEXT(m, link);
		if (m->type != RDS_MSG_DATA || !m->cancelled)
			continue;
		TAILQ_REMOVE(l, m, link);
		if (m->op != NULL && (m->op->flags & RDS_RDMA_NOTIFY_ME))
			rds_rdma_notify(c->eng, m, RDS_RDMA_CANCELED);
		rds_send_release(c->eng, m);
		rds_stat_inc(c->eng, s_send_cancelled);
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
	/* A message cancelled while it was half sent went whole or not at
	 * all; either way it never goes again. Only the one that was
	 * xmit_cur can be marked, on either queue. */
	rds_send_drop_cancelled(c, &c->send_q);
	rds_send_drop_cancelled(c, &c->retrans_q);
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
	c->map_synced = false;
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
		if (!req->all && m->dport != req->dport)
			continue;
		/* Half handed to the transport: it goes out whole (and its
		 * bytes are released then, as the socket's gen says), but a
		 * reset drops it (rds_send_path_reset), as the kernel's
		 * rds_send_drop_to takes it off c_retrans, where its
		 * c_xmit_rm already is. */
		if (m == c->xmit_cur) {
			m->cancelled = 1;
			continue;
		}
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

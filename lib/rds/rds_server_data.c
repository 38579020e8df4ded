/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Serving other processes, the data plane (rds_server.c has the whole
 * picture): what the engines do for clients in each pass. A client's
 * service engine takes the doorbells its threads rang, copies each
 * request out of the region into a message (checking every field) and
 * queues it as a send; any engine delivering to a client socket copies
 * the message into an RX buffer of the region, or keeps it in order
 * until the client makes room. Notifications and RDS_INFO records go
 * the same way.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/socket.h>

#include <rte_ring.h>

#include "rds_server_private.h"

struct rds_client_list rds_srv_eng_clients[RTE_RDS_MAX_ENGINES];

/* ------------------------------------------------------------------ */
/* Data plane (engines) */

/* Copy m into an RX buffer of the client and queue it: 0, or -ENOBUFS
 * (no buffer, or the ring is full). Under rx_lock. */
static int
rds_srv_copy_out(struct rds_client *cl, struct rds_srv_sock *ss,
		 struct rds_msg *m)
{
	const struct rds_region_layout *l = &cl->lay;
	struct rds_cbuf *b;
	uint32_t need = RDS_CBUF_HDR + m->len, slot;
	uint64_t off;
	unsigned int c;

	for (c = 0; c < RDS_REGION_NB_CLASSES; c++)
		if (rds_region_class_size[c] >= need && cl->rx_nfree[c] != 0)
			break;
	if (c == RDS_REGION_NB_CLASSES)
		return -ENOBUFS;
	slot = cl->rx_free[c][cl->rx_nfree[c] - 1];
	off = l->pool_off[RDS_POOL_RX][c] +
	      (uint64_t)slot * rds_region_class_size[c];
	b = (void *)(cl->base + off);
	b->len = m->len;
	b->ctl_len = 0;
	if (likely(rds_addr_is_v4(&m->faddr))) {
		b->addr = rds_addr_v4(&m->faddr);
		b->fam = 0;
	} else {
		b->addr = 0;
		b->addr6 = m->faddr;
		b->fam = RDS_CBUF_FAM6;
	}
	b->port = m->sport;
	b->flags = (m->has_dest ? RDS_CBUF_F_DEST : 0) |
		   ((m->rx_ts & RDS_TS_MASK) == RDS_TS_OLD ?
		    RDS_CBUF_F_TS_OLD : 0) |
		   ((m->rx_ts & RDS_TS_MASK) == RDS_TS_NEW ?
		    RDS_CBUF_F_TS_NEW : 0) |
		   ((m->rx_ts & RDS_TS_TRACE) ? RDS_CBUF_F_TRACE : 0);
	b->rx_tstamp = (m->rx_ts & RDS_TS_MASK) != 0 ? m->rx_tstamp : 0;
	if (m->rx_ts & RDS_TS_TRACE)
		b->rx_trace = m->rx_trace;
	b->csock = (int32_t)ss->idx;
	b->rdma_dest = m->rdma_dest;
	b->seq = m->seq;
	if (m->len != 0)
		memcpy((uint8_t *)b + RDS_CBUF_HDR, rds_msg_data(m), m->len);
	if (rds_xring_put(&ss->rx, off) != 0)
		return -ENOBUFS;
	cl->rx_nfree[c]--;
	cl->rx_len[c][slot] = m->len;
	cl->rx_owner[c][slot] = ss->idx | (ss->gen << 16);
	cl->msgs_out++;
	return 0;
}

static void
rds_srv_ovf_add(struct rds_client *cl, struct rds_srv_sock *ss)
{
	if (!ss->on_ovf) {
		ss->on_ovf = true;
		TAILQ_INSERT_TAIL(&cl->ovf_socks, ss, ovf_link);
	}
}

/*
 * A message for a client socket (rds_recv_deliver, on any engine): into
 * its region, or kept in order until the client makes room. It counts
 * against the socket's receive buffer (its congestion) at its payload,
 * but at least RDS_SRV_MSG_COST: a flood of zero-length messages to a
 * client that does not read congests it as a flood of data would (where
 * the kernel lets such messages pile up). What is kept
 * for one client is bounded (keep_max, zero-length messages counted at
 * what they cost): past it the delivery is refused (-ENOMEM) as a full
 * receive queue of a socket of the engine's own is, so that the sender's
 * transport sends it again after its reset and a client that never reads
 * costs the engine no more than that.
 */
int
rds_server_deliver(struct rds_engine *e, struct rds_sock *rs,
		   struct rds_msg *m)
{
	struct rds_srv_sock *ss = rs->client_sock;
	struct rds_client *cl = rs->client;
	int64_t len = rds_srv_rcv_charge(m->len);
	struct rds_msg *k;

	__atomic_fetch_add(&rs->rcv_bytes, len, __ATOMIC_RELEASE);
	rte_spinlock_lock(&cl->rx_lock);
	if (!TAILQ_EMPTY(&ss->ovf) || rds_srv_copy_out(cl, ss, m) != 0) {
		if (cl->kept_bytes + rds_srv_kept_cost(m) > cl->keep_max) {
			rte_spinlock_unlock(&cl->rx_lock);
			__atomic_fetch_sub(&rs->rcv_bytes, len,
					   __ATOMIC_RELEASE);
			__atomic_fetch_add(&rds_srv->kept_refused, 1,
					   __ATOMIC_RELAXED);
			if (rds_srv_log_due(&cl->kept_logged))
				RDS_LOG(WARNING, "client pid %d keeps %" PRIu64
					" bytes of messages it does not read: "
					"refusing more", (int)cl->pid,
					cl->kept_bytes);
			return -ENOMEM;
		}
		/* Kept, in order, until the client makes room: with its
		 * own payload (not a sender's TX buffer, rds_server_zc.c). */
		k = rds_srv_zc_own(m);
		if (k == NULL) {
			rte_spinlock_unlock(&cl->rx_lock);
			__atomic_fetch_sub(&rs->rcv_bytes, len,
					   __ATOMIC_RELEASE);
			return -ENOMEM;
		}
		if (k != m)
			rds_msg_free(m);
		cl->kept_bytes += rds_srv_kept_cost(k);
		TAILQ_INSERT_TAIL(&ss->ovf, k, link);
		rds_srv_ovf_add(cl, ss);
		m = NULL;
	}
	rte_spinlock_unlock(&cl->rx_lock);
	rds_stat_inc(e, s_recv_delivered);
	rds_msg_free(m);
	rds_cong_sock_check(rs);
	rds_srv_wake_ev(rs, RDS_ARM_IN);
	return 0;
}

/*
 * RDS_INFO_RECV_MESSAGES for a client socket: the messages delivered to
 * it and not yet received are in its RX ring (from the client's consumer
 * index to ours) and then in its overflow list. The ring's slots and
 * the buffers' headers are in the region, which the client can write:
 * an entry is taken only when it names an RX buffer the engine gave to
 * this socket, its length is the engine's, and the source and sequence
 * (the headers') are only reported. The caller holds rs, so the client
 * is not freed meanwhile (its sockets' closes wait for the holders); a
 * message the client peeked at (MSG_PEEK keeps it in the client) is not
 * seen.
 */
void
rds_server_info_recv(struct rds_sock *rs,
		     void (*fn)(void *arg, const struct rds_msg *m),
		     void *arg)
{
	struct rds_srv_sock *ss = rs->client_sock;
	struct rds_client *cl = rs->client;
	const struct rds_cbuf *b;
	struct rds_msg one, *m;
	uint32_t cons, i, slot;
	uint64_t off;
	int c;

	memset(&one, 0, sizeof(one));
	rte_spinlock_lock(&cl->rx_lock);
	if (__atomic_load_n(&ss->rs, __ATOMIC_ACQUIRE) != rs)
		goto out;
	cons = __atomic_load_n(&ss->rx.r->cons, __ATOMIC_ACQUIRE);
	if ((uint32_t)(ss->rx.idx - cons) > ss->rx.size)
		cons = ss->rx.idx;	/* a client's garbage: nothing */
	for (i = cons; i != ss->rx.idx; i++) {
		off = __atomic_load_n(&ss->rx.r->slot[i & (ss->rx.size - 1)],
				      __ATOMIC_RELAXED);
		c = rds_region_slot(&cl->lay, RDS_POOL_RX, off, &slot);
		if (c < 0 || cl->rx_owner[c][slot] !=
			     (ss->idx | (ss->gen << 16)))
			continue;
		b = (const void *)(cl->base + off);
		one.len = cl->rx_len[c][slot];
		one.seq = __atomic_load_n(&b->seq, __ATOMIC_RELAXED);
		one.sport = __atomic_load_n(&b->port, __ATOMIC_RELAXED);
		if (__atomic_load_n(&b->fam, __ATOMIC_RELAXED) ==
		    RDS_CBUF_FAM6)
			memcpy(&one.faddr, &b->addr6, sizeof(one.faddr));
		else
			rds_addr_from_v4(&one.faddr,
					 __atomic_load_n(&b->addr,
							 __ATOMIC_RELAXED));
		fn(arg, &one);
	}
	TAILQ_FOREACH(m, &ss->ovf, link)
		fn(arg, m);
out:
	rte_spinlock_unlock(&cl->rx_lock);
}

/* One notification into the socket's nt ring (two entries: the token,
 * then the status): 0, or -ENOBUFS. Under rx_lock. */
static int
rds_srv_nt_put(struct rds_srv_sock *ss, uint64_t token, int32_t status)
{
	uint32_t cons = __atomic_load_n(&ss->nt.r->cons, __ATOMIC_ACQUIRE);

	if ((uint32_t)(ss->nt.idx - cons) + 2 > ss->nt.size)
		return -ENOBUFS;
	/* The status first in the slot, the token in the entry the
	 * consumer takes second: one publication for both. */
	ss->nt.r->slot[ss->nt.idx & (ss->nt.size - 1)] = token;
	ss->nt.r->slot[(ss->nt.idx + 1) & (ss->nt.size - 1)] =
		(uint64_t)(uint32_t)status;
	ss->nt.idx += 2;
	__atomic_store_n(&ss->nt.r->prod, ss->nt.idx, __ATOMIC_RELEASE);
	return 0;
}

/* An RDMA notification for a client socket (rds_rdma_op_notify). */
void
rds_server_notify(struct rds_engine *e, struct rds_sock *rs, uint64_t token,
		  int32_t status)
{
	struct rds_srv_sock *ss = rs->client_sock;
	struct rds_client *cl = rs->client;
	struct rds_msg *m;

	RTE_SET_USED(e);
	rte_spinlock_lock(&cl->rx_lock);
	if (!TAILQ_EMPTY(&ss->nt_ovf) ||
	    rds_srv_nt_put(ss, token, status) != 0) {
		m = rds_msg_alloc(0);
		if (m != NULL) {
			m->type = RDS_MSG_NOTIFY;
			m->token = token;
			m->status = status;
			/* Counted with what is kept (never refused: the
			 * operation happened). */
			cl->kept_bytes += rds_srv_kept_cost(m);
			TAILQ_INSERT_TAIL(&ss->nt_ovf, m, link);
			rds_srv_ovf_add(cl, ss);
		} else {
			RDS_LOG(ERR, "client pid %d: notification lost (no "
				"memory)", (int)cl->pid);
		}
	}
	rte_spinlock_unlock(&cl->rx_lock);
	rds_srv_wake_ev(rs, RDS_ARM_IN);
}

/* Move what waits into the region while there is room. Under rx_lock. */
static unsigned int
rds_srv_pump(struct rds_client *cl)
{
	struct rds_srv_sock *ss, *next;
	struct rds_msg *m;
	unsigned int n = 0;

	for (ss = TAILQ_FIRST(&cl->ovf_socks); ss != NULL; ss = next) {
		next = TAILQ_NEXT(ss, ovf_link);
		while ((m = TAILQ_FIRST(&ss->nt_ovf)) != NULL) {
			if (rds_srv_nt_put(ss, m->token, m->status) != 0)
				break;
			TAILQ_REMOVE(&ss->nt_ovf, m, link);
			cl->kept_bytes -= rds_srv_kept_cost(m);
			rds_msg_free(m);
			n++;
		}
		while ((m = TAILQ_FIRST(&ss->ovf)) != NULL) {
			if (rds_srv_copy_out(cl, ss, m) != 0)
				break;
			TAILQ_REMOVE(&ss->ovf, m, link);
			cl->kept_bytes -= rds_srv_kept_cost(m);
			rds_msg_free(m);
			n++;
		}
		if (TAILQ_EMPTY(&ss->ovf) && TAILQ_EMPTY(&ss->nt_ovf)) {
			TAILQ_REMOVE(&cl->ovf_socks, ss, ovf_link);
			ss->on_ovf = false;
		}
		if (n != 0) {
			struct rds_sock *rs = __atomic_load_n(&ss->rs,
							      __ATOMIC_ACQUIRE);

			if (rs != NULL)
				rds_srv_wake_ev(rs, RDS_ARM_IN);
		}
	}
	return n;
}

/* An RX buffer came back. */
static int
rds_srv_rx_back(struct rds_client *cl, uint64_t off)
{
	uint32_t slot, own, idx;
	struct rds_srv_sock *ss;
	struct rds_sock *rs;
	int c = rds_region_slot(&cl->lay, RDS_POOL_RX, off, &slot);

	if (c < 0)
		return -EPROTO;
	own = cl->rx_owner[c][slot];
	if (own == UINT32_MAX)
		return -EPROTO;		/* not out: given back twice */
	cl->rx_owner[c][slot] = UINT32_MAX;
	cl->rx_free[c][cl->rx_nfree[c]++] = slot;
	idx = own & 0xffff;
	ss = &cl->socks[idx];
	/* Read once: the control thread clears it when the socket closes
	 * (the socket itself stays until every engine is past this pass). */
	rs = __atomic_load_n(&ss->rs, __ATOMIC_ACQUIRE);
	if (rs != NULL && (ss->gen & 0xffff) == (own >> 16)) {
		__atomic_fetch_sub(&rs->rcv_bytes,
				   rds_srv_rcv_charge(cl->rx_len[c][slot]),
				   __ATOMIC_RELEASE);
		if (__atomic_load_n(&rs->congested, __ATOMIC_ACQUIRE))
			rds_cong_sock_check(rs);
	}
	return 0;
}

/*
 * Is a client socket's send buffer full (twice what it was set to, as a
 * local socket's may hold before sendmsg waits)? Every message counts
 * what it costs the engine at least (RDS_SRV_MSG_COST), so that a flood
 * of zero-length messages fills it too: the engine holds no more of a
 * client's messages than its send buffers allow.
 */
static inline bool
rds_srv_sock_full(const struct rds_sock *rs)
{
	return __atomic_load_n(&rs->snd_bytes, __ATOMIC_ACQUIRE) +
	       (int64_t)__atomic_load_n(&rs->snd_msgs, __ATOMIC_ACQUIRE) *
	       RDS_SRV_MSG_COST >= 2 * (int64_t)rs->f.sndbuf;
}

/* A client socket's next request, looked at without taking it: 1 with
 * its TX buffer's offset, class and slot and one copy of its header (the
 * client may change the buffer meanwhile: only the copy is used), 0 when
 * there is none, -1 when it breaks the protocol (reported). */
static int
rds_srv_next(struct rds_client *cl, struct rds_srv_sock *ss,
	     struct rds_srv_req *rq)
{
	int r = rds_xring_peek(&ss->req, &rq->off);

	if (r <= 0) {
		if (r < 0)
			rds_client_violation(cl, "request ring overrun");
		return r < 0 ? -1 : 0;
	}
	if (rds_region_slot(&cl->lay, RDS_POOL_TX, rq->off, &rq->slot) < 0) {
		rds_client_violation(cl, "TX offset outside its pool");
		return -1;
	}
	if (rds_srv_tx_own(cl, rq->off, &rq->c, &rq->slot) != 0) {
		rds_client_violation(cl, "a TX buffer handed over twice, or "
				     "before it was taken back");
		return -1;
	}
	memcpy(&rq->h, cl->base + rq->off, sizeof(rq->h));
	if (rq->h.len > rds_region_class_size[rq->c] - RDS_CBUF_HDR ||
	    rq->h.len > RDS_MAX_MSG_SIZE ||
	    rq->h.ctl_len > RDS_CBUF_CTL_MAX ||
	    rq->h.vec_n > RDS_CBUF_VEC_MAX ||
	    ((rq->h.vec_n != 0 || (rq->h.flags & RDS_CBUF_F_WDATA)) &&
	     rq->h.ctl_len == 0) ||
	    rq->h.ctl_len + rq->h.vec_n * sizeof(struct rds_iovec) >
	    rds_region_class_size[rq->c] - RDS_CBUF_HDR - rq->h.len) {
		rds_client_violation(cl, "TX buffer with a bad length");
		return -1;
	}
	return 1;
}

/* The congestion map of a request's destination (one socket's last one
 * is kept), or NULL: no such address. */
static struct rds_cong_map *
rds_srv_fcong(struct rds_srv_sock *ss, const struct in6_addr *faddr)
{
	struct rds_cong_map *fc = ss->last_fcong;

	if (fc == NULL || !rds_addr_eq(&fc->addr, faddr)) {
		fc = rds_cong_map_get(faddr);
		ss->last_fcong = fc;
	}
	return fc;
}

/* A request's destination (the header's copy): IPv4 as v4-mapped (an
 * addr6 that is v4-mapped is IPv4 too, as any name). */
static inline void
rds_srv_req_faddr(const struct rds_cbuf *h, struct in6_addr *faddr)
{
	if (likely(h->fam != RDS_CBUF_FAM6))
		rds_addr_from_v4(faddr, h->addr);
	else
		*faddr = h->addr6;
}

/* The transport of a client socket's send to fc's address: the choice
 * of every send (rds_front.h; the client made the same one to answer
 * ENETUNREACH itself): 0 with *trans_id, or -1 (the client's
 * ENETUNREACH). */
static int
rds_srv_trans(const struct rds_sock *rs, const struct rds_cong_map *fc,
	      uint8_t *trans_id)
{
	if (rds_front_trans(&rs->f, fc->la == rs->la, fc->la != NULL,
			    trans_id) > 0 &&
	    rds_front_trans_bound(rs->la->trans->trans_id,
				  (rs->la->trans->flags &
				   RDS_TRANS_F_LOOPBACK) != 0,
				  trans_id) < 0)
		return -1;
	return 0;
}

/* One request of a client socket (rds_srv_next's, taken off its ring):
 * a message of ours, sent as the socket would send it. A plain send of
 * RDS_SRV_ZC_MIN bytes or more by the loop transport goes from its TX
 * buffer (rds_server_zc.c); any other is copied into the message. false: stop (throttled). */
static bool
rds_srv_take(struct rds_engine *e, struct rds_client *cl,
	     struct rds_srv_sock *ss, struct rds_sock *rs,
	     const struct rds_srv_req *rq)
{
	const struct rds_cbuf *h = &rq->h;
	struct rds_cong_map *fc;
	struct in6_addr faddr;
	struct rds_msg *m;
	uint8_t trans_id;
	bool op_failed = false, mapped = false;

	rds_srv_req_faddr(h, &faddr);
	/* One family per socket (the client refuses the other with
	 * EOPNOTSUPP, as in-process): a request across is its lie. */
	if (unlikely(__atomic_load_n(&rs->f.bound, __ATOMIC_ACQUIRE) != 0 &&
		     rds_addr_is_v4(&rs->f.bound_addr) !=
		     rds_addr_is_v4(&faddr))) {
		rds_srv_tx_back(cl, rq->off, rq->c, rq->slot);
		goto drop;
	}
	if (h->ctl_len == 0 && h->len >= RDS_SRV_ZC_MIN &&
	    __atomic_load_n(&rs->f.bound, __ATOMIC_ACQUIRE) != 0) {
		fc = rds_srv_fcong(ss, &faddr);
		if (fc != NULL && rds_srv_trans(rs, fc, &trans_id) == 0 &&
		    trans_id == RTE_RDS_TRANS_LOOP) {
			m = rds_srv_zc_msg(cl, rq);
			if (m == NULL) {
				rds_srv_tx_back(cl, rq->off, rq->c, rq->slot);
				goto nomem;
			}
			cl->msgs_in++;
			cl->msgs_zc++;
			goto queue;
		}
	}
	m = rds_msg_alloc(h->len);
	if (m != NULL && h->len != 0)
		memcpy(m->buf, cl->base + rq->off + RDS_CBUF_HDR, h->len);
	/* An operation (rds_server_rdma.c), parsed before its buffer goes
	 * back: its control messages, vector and a WRITE's data are in it
	 * (copied out; on a socket that is bound: its transport decides). */
	if (m != NULL && h->ctl_len != 0 &&
	    __atomic_load_n(&rs->f.bound, __ATOMIC_ACQUIRE) != 0) {
		op_failed = rds_srv_take_op(e, cl, rs, cl->base + rq->off +
					    RDS_CBUF_HDR + h->len,
					    rds_region_class_size[rq->c] -
					    RDS_CBUF_HDR - h->len, h, m,
					    &mapped) != 0;
		if (h->flags & RDS_CBUF_F_MAP)
			rds_srv_keys_check(ss, rs);
	}
	rds_srv_tx_back(cl, rq->off, rq->c, rq->slot);
	if (m == NULL)
		goto nomem;
	if (op_failed) {
		rds_msg_free(m);
		goto drop;
	}
	cl->msgs_in++;
	fc = rds_srv_fcong(ss, &faddr);
	if (fc == NULL)
		goto nomem_unmap;
	if (!rs->f.bound)
		goto drop_unmap;	/* the client checks it: its lie */
	if (rds_srv_trans(rs, fc, &trans_id) < 0)
		goto drop_unmap;	/* the client's ENETUNREACH */
	if (m->op != NULL && rds_srv_op_trans(e, cl, rs, m, trans_id) != 0)
		goto drop_unmap;
queue:
	m->type = RDS_MSG_DATA;
	m->sock = rs->id;
	m->sock_gen = rs->gen;
	m->laddr = rs->f.bound_addr;
	m->faddr = faddr;
	m->sport = rs->f.bound_port;
	m->dport = h->port;
	m->trans_id = trans_id;
	m->eng = (uint8_t)rds_conn_engine_of_hash(rs->la->cong->hash,
						  fc->hash);
	if (__atomic_add_fetch(&rs->snd_bytes, (int64_t)h->len,
			       __ATOMIC_ACQ_REL) >= (int64_t)rs->f.sndbuf / 2)
		m->h_flags = RDS_FLAG_ACK_REQUIRED;
	__atomic_fetch_add(&rs->snd_msgs, 1, __ATOMIC_ACQ_REL);
	rds_send_request(e, rs, m);
	/* A client over twice its send buffer waits for its ACKs. */
	return !rds_srv_sock_full(rs);
nomem_unmap:
	rds_stat_inc(e, s_send_drop_nomem);
drop_unmap:
	/* As the kernel's send that fails after its RDMA_MAP: the region
	 * goes with it. */
	if (mapped)
		rds_rdma_unmap(rs, m->rdma_dest);
	rds_msg_free(m);
	goto drop;
nomem:
	/* The client's call returned already: lost, and counted. */
	rds_stat_inc(e, s_send_drop_nomem);
drop:
	/* Out of the client's send buffer, as a cancelled message. */
	rds_server_released(rs, h->len);
	return true;
}

unsigned int
rds_srv_drain(struct rds_engine *e, struct rds_client *cl,
	      struct rds_srv_sock *ss)
{
	struct rds_cong_map *fc;
	struct rds_srv_req rq;
	struct in6_addr faddr;
	struct rds_sock *rs;
	unsigned int n = 0;
	int r;

	/* Read once (as rds_srv_rx_back). */
	rs = __atomic_load_n(&ss->rs, __ATOMIC_ACQUIRE);
	rds_srv_throttle(cl, ss, false);
	if (rs == NULL)
		return 0;
	/* The congestion of the destination is waited for here: a
	 * client's send never fails with ENOBUFS (rte_rds_attach.h). The
	 * socket's later requests wait behind it, as behind a blocking
	 * sendmsg. */
	for (;;) {
		if (rds_srv_sock_full(rs)) {
			rds_srv_throttle(cl, ss, true);
			break;
		}
		r = rds_srv_next(cl, ss, &rq);
		if (r <= 0)
			break;
		if (unlikely(rq.h.flags & RDS_CBUF_F_FREE)) {
			/* Not a message: an RDS_FREE_MR (rds_server_rdma.c),
			 * behind the sends before it. */
			rds_xring_skip(&ss->req);
			rds_srv_tx_back(cl, rq.off, rq.c, rq.slot);
			rds_mr_free_key(rs, (uint32_t)rq.h.rdma_dest);
			n++;
			continue;
		}
		rds_srv_req_faddr(&rq.h, &faddr);
		fc = rds_srv_fcong(ss, &faddr);
		if (fc != NULL && rds_cong_test(fc, rq.h.port)) {
			rds_srv_throttle(cl, ss, true);
			break;
		}
		rds_xring_skip(&ss->req);
		n++;
		if (!rds_srv_take(e, cl, ss, rs, &rq)) {
			rds_srv_throttle(cl, ss,
					 !__atomic_load_n(&cl->bad,
							  __ATOMIC_ACQUIRE));
			break;
		}
	}
	/* A sender waiting for room in the ring. */
	if (n != 0)
		rds_srv_wake_ev(rs, RDS_ARM_OUT);
	return n;
}

/*
 * A client socket closes (its close, or its process went): what the
 * engine can take of its ring is taken, as a drain before any CANCEL or
 * CLOSE, and what is left (the engine holds twice the send buffer of a
 * socket at most, or the destination is congested) is cancelled, as the
 * kernel's close cancels what a socket had not sent yet
 * (rds_send_drop_to): counted in s_send_cancelled, its bytes released,
 * its TX buffers given back. Every one of these messages was counted in
 * the socket's send buffer when its send returned (rds_client_data.c),
 * so a close cancels no more than that buffer held, as the kernel's.
 */
void
rds_srv_close_call(struct rds_engine *e, void *arg)
{
	struct rds_srv_sock *ss = arg;
	struct rds_sock *rs = __atomic_load_n(&ss->rs, __ATOMIC_ACQUIRE);
	struct rds_client *cl;
	struct rds_srv_req rq;
	unsigned int n = 0;

	if (rs == NULL || rs->client == NULL)
		return;
	cl = rs->client;
	if (__atomic_load_n(&cl->violated, __ATOMIC_ACQUIRE))
		return;		/* nothing more of a violator's is read */
	rds_srv_drain(e, cl, ss);
	while (rds_srv_next(cl, ss, &rq) > 0) {
		rds_xring_skip(&ss->req);
		rds_srv_tx_back(cl, rq.off, rq.c, rq.slot);
		if (rq.h.flags & RDS_CBUF_F_FREE) {
			rds_mr_free_key(rs, (uint32_t)rq.h.rdma_dest);
			continue;
		}
		rds_server_released(rs, rq.h.len);
		n++;
	}
	if (n != 0)
		rds_stat_add(e, s_send_cancelled, n);
}

/* A client's process went: each of its sockets as at its close. */
void
rds_srv_gone_call(struct rds_engine *e, void *arg)
{
	struct rds_client *cl = arg;
	unsigned int i;

	for (i = 0; i < cl->lay.nb_socks && i < RDS_SRV_SOCKS; i++)
		rds_srv_close_call(e, &cl->socks[i]);
}

/* Drain one client socket at once (before a CANCEL or CLOSE, so that it
 * comes after every message queued before it). */
void
rds_srv_drain_call(struct rds_engine *e, void *arg)
{
	struct rds_srv_sock *ss = arg;

	struct rds_sock *rs = __atomic_load_n(&ss->rs, __ATOMIC_ACQUIRE);

	if (rs != NULL && rs->client != NULL)
		rds_srv_drain(e, rs->client, ss);
}

static unsigned int
rds_srv_service_one(struct rds_engine *e, struct rds_client *cl)
{
	unsigned int work = 0, b, nb, i, n;
	uint64_t v;
	int r;

	if (__atomic_load_n(&cl->bad, __ATOMIC_ACQUIRE))
		return 0;
	/* A call sent (a hint: rte_rds_server_pending). */
	if (unlikely(__atomic_load_n(&((struct rds_region_hdr *)
				       cl->base)->ctl_kick,
				     __ATOMIC_RELAXED) != 0)) {
		__atomic_store_n(&((struct rds_region_hdr *)cl->base)->ctl_kick,
				 0, __ATOMIC_RELAXED);
		__atomic_store_n(&rds_srv->kicked, 1, __ATOMIC_RELEASE);
	}
	rte_spinlock_lock(&cl->rx_lock);
	while ((r = rds_xring_get(&cl->rxfree, &v)) > 0) {
		if (rds_srv_rx_back(cl, v) != 0) {
			r = -EPROTO;
			break;
		}
		work++;
	}
	if (!TAILQ_EMPTY(&cl->ovf_socks))
		work += rds_srv_pump(cl);
	rte_spinlock_unlock(&cl->rx_lock);
	if (r < 0) {
		rds_client_violation(cl, "bad RX buffer given back");
		return work;
	}
	/* TX buffers messages sent from (rds_server_zc.c). */
	if (rte_ring_count(cl->tx_done) != 0)
		work += rds_srv_zc_reap(cl);
	if (cl->nb_tx_back != 0)
		rds_srv_tx_back_flush(cl);
	nb = __atomic_load_n(&cl->nb_bells, __ATOMIC_ACQUIRE);
	for (b = 0; b < nb; b++) {
		while ((r = rds_xring_get(&cl->bells[b], &v)) > 0) {
			struct rds_srv_sock *ss;

			if (v >= cl->lay.nb_socks) {
				r = -EPROTO;
				break;
			}
			ss = &cl->socks[v];
			if (__atomic_load_n(&ss->rs, __ATOMIC_ACQUIRE) == NULL)
				continue;
			/* Cleared before the ring is read: a request put
			 * after this rings again. */
			__atomic_store_n(&ss->cs->queued, 0, __ATOMIC_SEQ_CST);
			work += rds_srv_drain(e, cl, ss) + 1;
		}
		if (r < 0) {
			rds_client_violation(cl, "doorbell ring overrun");
			return work;
		}
	}
	/* Sockets that waited for their ACKs (or for a destination that
	 * was congested), looked for only when there are. */
	for (i = 0, n = cl->nb_throttled; n != 0 && i < cl->lay.nb_socks;
	     i++) {
		struct rds_sock *rs;

		if (!cl->socks[i].throttled)
			continue;
		n--;
		rs = __atomic_load_n(&cl->socks[i].rs, __ATOMIC_ACQUIRE);
		if (rs != NULL && !rds_srv_sock_full(rs))
			work += rds_srv_drain(e, cl, &cl->socks[i]);
	}
	/* Senders waiting for the TX buffers this pass gave back. */
	rds_srv_tx_wake(cl);
	return work;
}

unsigned int
rds_server_service(struct rds_engine *e)
{
	struct rds_client *cl;
	unsigned int work = 0;

	TAILQ_FOREACH(cl, &rds_srv_eng_clients[e->id], eng_link)
		work += rds_srv_service_one(e, cl);
	return work;
}

void
rds_srv_attach_call(struct rds_engine *e, void *arg)
{
	struct rds_client *cl = arg;

	TAILQ_INSERT_TAIL(&rds_srv_eng_clients[e->id], cl, eng_link);
	cl->on_engine = true;
	e->nb_clients++;
}

void
rds_srv_detach_call(struct rds_engine *e, void *arg)
{
	struct rds_client *cl = arg;

	if (!cl->on_engine)
		return;
	TAILQ_REMOVE(&rds_srv_eng_clients[e->id], cl, eng_link);
	cl->on_engine = false;
	e->nb_clients--;
}

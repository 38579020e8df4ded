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

#include "rds_server_private.h"

struct rds_client_list rds_srv_eng_clients[RTE_RDS_MAX_ENGINES];

/* ------------------------------------------------------------------ */
/* Data plane (engines) */

/* Wake the client's waiter: a byte on the socket's wake-up pair. Never
 * waits: when the client's end is full it is readable already. */
static void
rds_srv_wake_send(int fd)
{
	static const uint8_t one = 1;

	if (fd >= 0)
		(void)send(fd, &one, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
}

void
rds_server_wake(struct rds_sock *rs)
{
	struct rds_srv_sock *ss = rs->client_sock;

	if (ss == NULL)
		return;
	if (__atomic_load_n(&ss->cs->armed, __ATOMIC_SEQ_CST) == 0)
		return;
	if (__atomic_exchange_n(&ss->cs->armed, 0, __ATOMIC_SEQ_CST) == 0)
		return;
	rds_srv_wake_send(ss->wfd);
}

void
rds_server_released(struct rds_sock *rs, uint32_t len)
{
	struct rds_srv_sock *ss = rs->client_sock;

	if (ss == NULL)
		return;
	__atomic_fetch_add(&ss->cs->snd_released, len, __ATOMIC_RELEASE);
	rds_server_wake(rs);
}

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
	b->addr = rds_addr_v4(&m->faddr);
	b->port = m->sport;
	b->flags = m->has_dest ? RDS_CBUF_F_DEST : 0;
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
 * its region, or kept in order until the client makes room. What is kept
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
	int64_t len = (int64_t)m->len;

	__atomic_fetch_add(&rs->rcv_bytes, len, __ATOMIC_RELEASE);
	rte_spinlock_lock(&cl->rx_lock);
	if (!TAILQ_EMPTY(&ss->ovf) || rds_srv_copy_out(cl, ss, m) != 0) {
		if (cl->kept_bytes + rds_srv_kept_cost(m) > cl->keep_max) {
			rte_spinlock_unlock(&cl->rx_lock);
			__atomic_fetch_sub(&rs->rcv_bytes, len,
					   __ATOMIC_RELEASE);
			if (__atomic_fetch_add(&rds_srv->kept_refused, 1,
					       __ATOMIC_RELAXED) % 1024 == 0)
				RDS_LOG(WARNING, "client pid %d keeps %" PRIu64
					" bytes of messages it does not read: "
					"refusing more", (int)cl->pid,
					cl->kept_bytes);
			return -ENOMEM;
		}
		/* Kept, in order, until the client makes room. */
		cl->kept_bytes += rds_srv_kept_cost(m);
		TAILQ_INSERT_TAIL(&ss->ovf, m, link);
		rds_srv_ovf_add(cl, ss);
		m = NULL;
	}
	rte_spinlock_unlock(&cl->rx_lock);
	rds_stat_inc(e, s_recv_delivered);
	rds_msg_free(m);
	rds_cong_sock_check(rs);
	rds_server_wake(rs);
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
		rds_addr_from_v4(&one.faddr,
				__atomic_load_n(&b->addr, __ATOMIC_RELAXED));
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
	rds_server_wake(rs);
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
		if (n != 0 && ss->rs != NULL)
			rds_server_wake(ss->rs);
	}
	return n;
}

/* An RX buffer came back. */
static int
rds_srv_rx_back(struct rds_client *cl, uint64_t off)
{
	uint32_t slot, own, idx;
	struct rds_srv_sock *ss;
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
	if (ss->rs != NULL && (ss->gen & 0xffff) == (own >> 16)) {
		__atomic_fetch_sub(&ss->rs->rcv_bytes,
				   (int64_t)cl->rx_len[c][slot],
				   __ATOMIC_RELEASE);
		if (__atomic_load_n(&ss->rs->congested, __ATOMIC_ACQUIRE))
			rds_cong_sock_check(ss->rs);
	}
	return 0;
}

/* Onto txfree, and into our shadow of it (rds_srv_txfree_reap). */
static int
rds_srv_txfree_put(struct rds_client *cl, uint64_t off)
{
	/* The shadow first: the client may take the entry at once. */
	cl->txfree_shadow[cl->txfree.idx & (cl->txfree.size - 1)] = off;
	return rds_xring_put(&cl->txfree, off);
}

/* TX buffer (class c, slot) goes back to the client: it is not the
 * client's again until the client takes it off txfree. */
static void
rds_srv_tx_back(struct rds_client *cl, uint64_t off, unsigned int c,
		uint32_t slot)
{
	cl->tx_state[c][slot] = RDS_TXB_BACK;
	if (cl->nb_tx_back == 0 && rds_srv_txfree_put(cl, off) == 0)
		return;
	/* The client does not take them back: they wait here. A buffer is
	 * here at most once (it is not the client's to hand over again), so
	 * never more wait than its pool holds. */
	RTE_VERIFY(cl->nb_tx_back < cl->nb_tx);
	cl->tx_back[cl->nb_tx_back++] = off;
}

static void
rds_srv_tx_back_flush(struct rds_client *cl)
{
	uint32_t i = 0;

	while (i < cl->nb_tx_back &&
	       rds_srv_txfree_put(cl, cl->tx_back[i]) == 0)
		i++;
	if (i != 0) {
		memmove(cl->tx_back, cl->tx_back + i,
			sizeof(*cl->tx_back) * (cl->nb_tx_back - i));
		cl->nb_tx_back -= i;
	}
}

/* One request of a client socket: check it, copy it into a message of
 * ours, send it as the socket would. false: stop (throttled). */
static bool
rds_srv_take(struct rds_engine *e, struct rds_client *cl,
	     struct rds_srv_sock *ss, uint64_t off)
{
	struct rds_sock *rs = ss->rs;
	const struct rds_cbuf *b;
	struct rds_cbuf h;
	struct rds_cong_map *fc;
	struct in6_addr faddr;
	struct rds_msg *m;
	uint32_t slot;
	uint8_t trans_id;
	unsigned int c;

	if (rds_region_slot(&cl->lay, RDS_POOL_TX, off, &slot) < 0) {
		rds_client_violation(cl, "TX offset outside its pool");
		return false;
	}
	if (rds_srv_tx_own(cl, off, &c, &slot) != 0) {
		rds_client_violation(cl, "a TX buffer handed over twice, or "
				     "before it was taken back");
		return false;
	}
	b = (const void *)(cl->base + off);
	/* One copy of the header: the client may change it meanwhile. */
	memcpy(&h, b, sizeof(h));
	if (h.len > rds_region_class_size[c] - RDS_CBUF_HDR ||
	    h.len > RDS_MAX_MSG_SIZE || h.ctl_len != 0) {
		rds_client_violation(cl, "TX buffer with a bad length");
		rds_srv_tx_back(cl, off, c, slot);
		return false;
	}
	m = rds_msg_alloc(h.len);
	if (m != NULL && h.len != 0)
		memcpy(m->buf, (const uint8_t *)b + RDS_CBUF_HDR, h.len);
	rds_srv_tx_back(cl, off, c, slot);
	if (m == NULL) {
		/* The client's call returned already: lost, and counted. */
		rds_stat_inc(e, s_send_drop_nomem);
		return true;
	}
	cl->msgs_in++;
	rds_addr_from_v4(&faddr, h.addr);
	fc = ss->last_fcong;
	if (fc == NULL || !rds_addr_eq(&fc->addr, &faddr)) {
		fc = rds_cong_map_get(&faddr);
		ss->last_fcong = fc;
	}
	if (fc == NULL || !rs->bound) {
		rds_msg_free(m);
		return true;
	}
	/* The same choice of transport as a local send (the client made
	 * the same one to answer ENETUNREACH itself). */
	if (fc->la == rs->la || fc->la != NULL)
		trans_id = RTE_RDS_TRANS_LOOP;
	else if (rs->trans_pinned != (uint32_t)RDS_TRANS_NONE)
		trans_id = (uint8_t)rs->trans_pinned;
	else if (rs->la->trans->flags & RDS_TRANS_F_LOOPBACK) {
		rds_msg_free(m);
		return true;
	} else
		trans_id = (uint8_t)rs->la->trans->trans_id;
	if (rs->trans_pinned != (uint32_t)RDS_TRANS_NONE && fc->la != rs->la)
		trans_id = (uint8_t)rs->trans_pinned;
	m->type = RDS_MSG_DATA;
	m->sock = rs->id;
	m->sock_gen = rs->gen;
	m->laddr = rs->bound_addr;
	m->faddr = faddr;
	m->sport = rs->bound_port;
	m->dport = h.port;
	m->trans_id = trans_id;
	m->eng = (uint8_t)rds_conn_engine_of_hash(rs->la->cong->hash,
						  fc->hash);
	if (__atomic_add_fetch(&rs->snd_bytes, (int64_t)h.len,
			       __ATOMIC_ACQ_REL) >= (int64_t)rs->sndbuf / 2)
		m->h_flags = RDS_FLAG_ACK_REQUIRED;
	__atomic_fetch_add(&rs->snd_msgs, 1, __ATOMIC_ACQ_REL);
	rds_send_request(e, rs, m);
	/* A client over twice its send buffer waits for its ACKs. */
	return __atomic_load_n(&rs->snd_bytes, __ATOMIC_ACQUIRE) <
	       2 * (int64_t)rs->sndbuf;
}

unsigned int
rds_srv_drain(struct rds_engine *e, struct rds_client *cl,
	      struct rds_srv_sock *ss)
{
	unsigned int n = 0;
	uint64_t off;
	int r;

	ss->throttled = false;
	if (ss->rs == NULL)
		return 0;
	/* The congestion of the destination is waited for here: a
	 * client's send never fails with ENOBUFS (rte_rds_attach.h). */
	for (;;) {
		if (__atomic_load_n(&ss->rs->snd_bytes, __ATOMIC_ACQUIRE) >=
		    2 * (int64_t)ss->rs->sndbuf) {
			ss->throttled = true;
			break;
		}
		r = rds_xring_get(&ss->req, &off);
		if (r == 0)
			break;
		if (r < 0) {
			rds_client_violation(cl, "request ring overrun");
			break;
		}
		n++;
		if (!rds_srv_take(e, cl, ss, off)) {
			ss->throttled = !__atomic_load_n(&cl->bad,
							 __ATOMIC_ACQUIRE);
			break;
		}
	}
	return n;
}

/* Drain one client socket at once (before a CANCEL or CLOSE, so that it
 * comes after every message queued before it). */
void
rds_srv_drain_call(struct rds_engine *e, void *arg)
{
	struct rds_srv_sock *ss = arg;

	if (ss->rs != NULL && ss->rs->client != NULL)
		rds_srv_drain(e, ss->rs->client, ss);
}

static unsigned int
rds_srv_service_one(struct rds_engine *e, struct rds_client *cl)
{
	unsigned int work = 0, b, nb, i;
	uint64_t v;
	int r;

	if (__atomic_load_n(&cl->bad, __ATOMIC_ACQUIRE))
		return 0;
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
	/* Sockets that waited for their ACKs. */
	for (i = 0; i < cl->lay.nb_socks; i++)
		if (cl->socks[i].throttled && cl->socks[i].rs != NULL &&
		    __atomic_load_n(&cl->socks[i].rs->snd_bytes,
				    __ATOMIC_ACQUIRE) <
		    2 * (int64_t)cl->socks[i].rs->sndbuf)
			work += rds_srv_drain(e, cl, &cl->socks[i]);
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

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Snapshots (net/rds/info.c): the kernel's RDS_INFO_* records and its
 * probe-then-fill contract. Records that belong to engines (connections
 * and their queues) are filled by each engine, on request through its
 * admin ring, into the caller's buffer during the call; the rest is read
 * here. An engine answers only after taking every request queued to it
 * before (rds_engine.c, catch_up), so a snapshot reflects every call that
 * returned before it was asked for: a message sent shows on its
 * connection, in the send or retransmit queue or as delivered.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "rds_private.h"

/* A request for no records (rds_info_barrier). */
#define RDS_INFO_NONE 0

static bool
rds_info_v6(int name)
{
	return name >= RDS6_INFO_CONNECTIONS && name <= RDS6_INFO_IB_CONNECTIONS;
}

/* Append one record: counted always, copied while it fits. */
void
rds_info_put(struct rds_info_req *r, const void *rec)
{
	if (r->buf != NULL && r->used + r->each <= r->cap)
		memcpy(r->buf + r->used, rec, r->each);
	r->used += r->each;
}

static void
rds_info_msg(struct rds_info_req *r, const struct rds_msg *m,
	     const struct in6_addr *laddr, const struct in6_addr *faddr,
	     uint16_t lport, uint16_t fport)
{
	if (rds_info_v6(r->name)) {
		struct rds6_info_message im;

		memset(&im, 0, sizeof(im));
		im.seq = m->seq;
		im.len = m->len;
		memcpy(&im.laddr, laddr, sizeof(im.laddr));
		memcpy(&im.faddr, faddr, sizeof(im.faddr));
		im.lport = htons(lport);
		im.fport = htons(fport);
		im.flags = (m->h_flags & RDS_FLAG_ACK_REQUIRED) ?
			   RDS_INFO_MESSAGE_FLAG_ACK : 0;
		rds_info_put(r, &im);
	} else {
		struct rds_info_message im;

		memset(&im, 0, sizeof(im));
		im.seq = m->seq;
		im.len = m->len;
		im.laddr = rds_addr_v4(laddr);
		im.faddr = rds_addr_v4(faddr);
		im.lport = htons(lport);
		im.fport = htons(fport);
		im.flags = (m->h_flags & RDS_FLAG_ACK_REQUIRED) ?
			   RDS_INFO_MESSAGE_FLAG_ACK : 0;
		rds_info_put(r, &im);
	}
}

static uint8_t
rds_info_conn_flags(const struct rds_conn *c)
{
	uint8_t f = 0;

	if (!TAILQ_EMPTY(&c->send_q))
		f |= RDS_INFO_CONNECTION_FLAG_SENDING;
	/* A peer that does not answer shows as connecting, not up. */
	if (c->state == RDS_CONN_CONNECTING ||
	    (c->state == RDS_CONN_UP && c->unresponsive))
		f |= RDS_INFO_CONNECTION_FLAG_CONNECTING;
	else if (c->state == RDS_CONN_UP)
		f |= RDS_INFO_CONNECTION_FLAG_CONNECTED;
	return f;
}

/*
 * The transport's name in a connection record: the kernel's t_name
 * (net/rds/ib.c "infiniband", loop.c "loopback", tcp.c "tcp"), so that
 * rds-info prints the same as for the kernel's RDS (telemetry's
 * /rds/conns shows these records too). The library's own short names
 * ("ib", "loop") stay everywhere else (configuration, logs, telemetry's
 * /rds/info). A transport with no kernel counterpart keeps its own name.
 */
static const char *
rds_info_trans_name(const struct rds_transport *t)
{
	/* The driver's kernel name (net/rds's t_name), so that rds-info
	 * prints the same. */
	return t->info_name != NULL ? t->info_name : t->name;
}

static void
rds_info_conn(struct rds_info_req *r, const struct rds_conn *c)
{
	if (r->name == RDS6_INFO_CONNECTIONS) {
		struct rds6_info_connection ic;

		memset(&ic, 0, sizeof(ic));
		ic.next_tx_seq = c->next_tx_seq;
		ic.next_rx_seq = c->next_rx_seq;
		memcpy(&ic.laddr, &c->key.laddr, sizeof(ic.laddr));
		memcpy(&ic.faddr, &c->key.faddr, sizeof(ic.faddr));
		snprintf((char *)ic.transport, sizeof(ic.transport), "%s",
			 rds_info_trans_name(c->trans));
		ic.flags = rds_info_conn_flags(c);
		rds_info_put(r, &ic);
	} else {
		struct rds_info_connection ic;

		memset(&ic, 0, sizeof(ic));
		ic.next_tx_seq = c->next_tx_seq;
		ic.next_rx_seq = c->next_rx_seq;
		ic.laddr = rds_addr_v4(&c->key.laddr);
		ic.faddr = rds_addr_v4(&c->key.faddr);
		snprintf((char *)ic.transport, sizeof(ic.transport), "%s",
			 rds_info_trans_name(c->trans));
		ic.flags = rds_info_conn_flags(c);
		rds_info_put(r, &ic);
	}
}

/* Engine side: connections, send and retransmit queues. */
void
rds_info_engine_fill(struct rds_engine *e, struct rds_info_req *r)
{
	const struct rds_conn *c;
	const struct rds_msg *m;
	unsigned int i;

	if (r->name == RDS_INFO_NONE)
		return;
	TAILQ_FOREACH(c, &e->conns, link) {
		/* The IPv4 names skip IPv6 connections (connection.c
		 * rds_conn_info_visitor, rds_conn_message_info_cmn: c_isv6);
		 * the RDS6 ones have every connection, IPv4 v4-mapped. */
		if (!rds_addr_is_v4(&c->key.laddr) &&
		    (r->name == RDS_INFO_CONNECTIONS ||
		     r->name == RDS_INFO_SEND_MESSAGES ||
		     r->name == RDS_INFO_RETRANS_MESSAGES))
			continue;
		switch (r->name) {
		case RDS_INFO_CONNECTIONS:
		case RDS6_INFO_CONNECTIONS:
			rds_info_conn(r, c);
			break;
		case RDS_INFO_SEND_MESSAGES:
		case RDS6_INFO_SEND_MESSAGES:
			TAILQ_FOREACH(m, &c->send_q, link)
				rds_info_msg(r, m, &c->key.laddr,
					     &c->key.faddr, m->sport,
					     m->dport);
			break;
		case RDS_INFO_RETRANS_MESSAGES:
		case RDS6_INFO_RETRANS_MESSAGES:
			TAILQ_FOREACH(m, &c->retrans_q, link)
				rds_info_msg(r, m, &c->key.laddr,
					     &c->key.faddr, m->sport,
					     m->dport);
			break;
		default:
			break;
		}
	}
	/* Records the transports keep (RDS_INFO_IB_CONNECTIONS, ...). */
	for (i = 0; i < rds_transport_count(); i++) {
		const struct rds_transport *t = rds_transport_at(i);

		if (t->info != NULL)
			t->info(e, r);
	}
}

/*
 * Ask one engine and wait for it. An application thread (deadline 0)
 * drives inline engines while it waits. Telemetry's thread (a deadline)
 * never drives an engine: its request carries a buffer of its own, so
 * that on a timeout it can walk away and leave the engine to free it.
 */
static int
rds_info_ask(struct rds_engine *e, struct rds_info_req *r,
	     uint64_t deadline)
{
	struct rds_msg *m = rds_msg_alloc(sizeof(*r));
	struct rds_info_req *mr;
	uint8_t *caller_buf = r->buf;
	uint64_t spins = 0;
	uint32_t expect;

	if (m == NULL)
		return -ENOMEM;
	m->type = RDS_MSG_INFO;
	mr = (struct rds_info_req *)m->buf;
	*mr = *r;
	if (deadline != 0 && r->cap != 0) {
		mr->buf = rds_mem_zalloc("rds_info", r->cap);
		mr->owned = true;
		if (mr->buf == NULL) {
			rds_msg_free(m);
			return -ENOMEM;
		}
	}
	while (rte_ring_enqueue(e->admin, m) != 0) {
		if (deadline == 0) {
			rds_sock_wait_step(NULL, 0, &spins);
		} else if (rds_clock_tsc() >= deadline) {
			if (mr->owned)
				rds_mem_free(mr->buf);
			rds_msg_free(m);
			return -ETIMEDOUT;
		} else {
			sched_yield();
		}
	}
	while (__atomic_load_n(&m->pending, __ATOMIC_ACQUIRE) == 0) {
		if (deadline == 0) {
			rds_sock_wait_step(NULL, 0, &spins);
			continue;
		}
		if (rds_clock_tsc() < deadline) {
			sched_yield();
			continue;
		}
		expect = 0;
		if (__atomic_compare_exchange_n(&m->pending, &expect, 2, false,
				__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return -ETIMEDOUT;	/* the engine frees it */
	}
	if (mr->owned && caller_buf != NULL)
		memcpy(caller_buf + r->used, mr->buf + r->used,
		       RTE_MIN(mr->used, r->cap) - RTE_MIN(r->used, r->cap));
	if (mr->owned)
		rds_mem_free(mr->buf);
	mr->buf = caller_buf;
	mr->owned = false;
	*r = *mr;
	rds_msg_free(m);
	return 0;
}

/* Engine side: answer a request, or free it if its asker gave up. */
void
rds_info_engine_answer(struct rds_engine *e, struct rds_msg *m)
{
	struct rds_info_req *r = (struct rds_info_req *)m->buf;
	uint32_t expect = 0;

	rds_info_engine_fill(e, r);
	if (!__atomic_compare_exchange_n(&m->pending, &expect, 1, false,
			__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		if (r->owned)
			rds_mem_free(r->buf);
		rds_msg_free(m);
	}
}

static void
rds_info_socket(void *arg, struct rds_sock *rs)
{
	struct rds_info_req *r = arg;

	/* Under the socket's lock: a bind or connect meanwhile never shows
	 * half (a new port with address 0). */
	rte_spinlock_lock(&rs->lock);
	if (r->name == RDS6_INFO_SOCKETS) {
		struct rds6_info_socket is;

		memset(&is, 0, sizeof(is));
		is.sndbuf = rs->f.sndbuf;
		is.rcvbuf = rs->rcvbuf;
		memcpy(&is.bound_addr, &rs->f.bound_addr, sizeof(is.bound_addr));
		memcpy(&is.connected_addr, &rs->f.conn_addr,
		       sizeof(is.connected_addr));
		is.bound_port = htons(rs->f.bound_port);
		is.connected_port = htons(rs->f.conn_port);
		is.inum = (uint64_t)rs->id;
		rds_info_put(r, &is);
	} else if (rs->f.bound != RDS_BOUND_V6) {
		/* The IPv4 call skips IPv6 sockets (net/rds/af_rds.c). */
		struct rds_info_socket is;

		memset(&is, 0, sizeof(is));
		is.sndbuf = rs->f.sndbuf;
		is.rcvbuf = rs->rcvbuf;
		is.bound_addr = rs->f.bound ? rds_addr_v4(&rs->f.bound_addr) : 0;
		is.connected_addr = rs->f.connected ?
				    rds_addr_v4(&rs->f.conn_addr) : 0;
		is.bound_port = htons(rs->f.bound_port);
		is.connected_port = htons(rs->f.conn_port);
		is.inum = (uint64_t)rs->id;
		rds_info_put(r, &is);
	}
	rte_spinlock_unlock(&rs->lock);
}

static void
rds_info_sockets(struct rds_info_req *r)
{
	rds_sock_foreach(rds_info_socket, r);
}

struct rds_info_recv_ctx {
	struct rds_info_req *r;
	const struct rds_sock *rs;
};

static void
rds_info_recv_one(void *arg, const struct rds_msg *m)
{
	struct rds_info_recv_ctx *x = arg;

	rds_info_msg(x->r, m, &x->rs->f.bound_addr, &m->faddr,
		     x->rs->f.bound_port, m->sport);
}

/* Messages waiting in a socket's receive queue, read by the consumer
 * side (under its receive lock) without taking them. */
static void
rds_info_recv_sock(void *arg, struct rds_sock *rs)
{
	struct rds_info_recv_ctx x = { .r = arg, .rs = rs };

	if (rs->client != NULL) {
		/* An attached process's: in its region. */
		rds_server_info_recv(rs, rds_info_recv_one, &x);
		return;
	}
	rte_spinlock_lock(&rs->rlock);
	if (rs->rx_head != NULL)
		rds_info_recv_one(&x, rs->rx_head);
	rds_queue_peek(&rs->rxq, rds_info_recv_one, &x);
	rte_spinlock_unlock(&rs->rlock);
}

static void
rds_info_recv(struct rds_info_req *r)
{
	rds_sock_foreach(rds_info_recv_sock, r);
}

static void
rds_info_counters(struct rds_info_req *r)
{
	struct rte_rds_stats st;
	struct rds_info_counter ic;
	const uint64_t *v = (const uint64_t *)&st;
	const char *name;
	unsigned int i;

	rte_rds_stats_get(-1, &st);
	for (i = 0; i < RTE_RDS_STATS_NUM; i++) {
		memset(&ic, 0, sizeof(ic));
		name = rte_rds_stats_name(i);
		if (strncmp(name, "s_", 2) == 0)
			name += 2;	/* the kernel's names have no prefix */
		snprintf((char *)ic.name, sizeof(ic.name), "%s", name);
		ic.value = v[i];
		rds_info_put(r, &ic);
	}
}

static size_t
rds_info_each(int name)
{
	switch (name) {
	case RDS_INFO_COUNTERS:
		return sizeof(struct rds_info_counter);
	case RDS_INFO_CONNECTIONS:
		return sizeof(struct rds_info_connection);
	case RDS6_INFO_CONNECTIONS:
		return sizeof(struct rds6_info_connection);
	case RDS_INFO_SEND_MESSAGES:
	case RDS_INFO_RETRANS_MESSAGES:
	case RDS_INFO_RECV_MESSAGES:
		return sizeof(struct rds_info_message);
	case RDS6_INFO_SEND_MESSAGES:
	case RDS6_INFO_RETRANS_MESSAGES:
	case RDS6_INFO_RECV_MESSAGES:
		return sizeof(struct rds6_info_message);
	case RDS_INFO_SOCKETS:
		return sizeof(struct rds_info_socket);
	case RDS6_INFO_SOCKETS:
		return sizeof(struct rds6_info_socket);
	case RDS_INFO_TCP_SOCKETS:
		return sizeof(struct rds_info_tcp_socket);
	case RDS6_INFO_TCP_SOCKETS:
		return sizeof(struct rds6_info_tcp_socket);
	case RDS_INFO_IB_CONNECTIONS:
	case RDS_INFO_IWARP_CONNECTIONS:
		return sizeof(struct rds_info_rdma_connection);
	case RDS6_INFO_IB_CONNECTIONS:
		return sizeof(struct rds6_info_rdma_connection);
	case RDS_INFO_CONNECTION_STATS:
		return sizeof(struct rds_info_counter);
	case RTE_RDS_INFO_ETH_CONNECTIONS:
		return sizeof(struct rte_rds_info_eth_connection);
	default:
		return 0;
	}
}

/*
 * With several engines, a message may still be on its way from the
 * engine that took it from its socket to the engine of its connection
 * when that one is asked. So every engine is asked first for nothing
 * (each takes what was queued to it before it answers, handing such
 * messages over), and only then for the records (each takes what was
 * handed to it before it answers).
 */
static int
rds_info_barrier(uint64_t deadline)
{
	struct rds_info_req r;
	unsigned int e;
	int ret;

	if (rds_lib->nb_engines < 2)
		return 0;
	memset(&r, 0, sizeof(r));
	r.name = RDS_INFO_NONE;
	for (e = 0; e < rds_lib->nb_engines; e++) {
		ret = rds_info_ask(rds_lib->engines[e], &r, deadline);
		if (ret != 0)
			return ret;
	}
	return 0;
}

int
rds_info_get(int name, void *buf, size_t *len, uint64_t timeout_ns)
{
	struct rds_info_req r;
	uint64_t deadline = timeout_ns != 0 ? rds_deadline(timeout_ns) : 0;
	unsigned int e;
	int ret;

	memset(&r, 0, sizeof(r));
	r.name = name;
	r.each = rds_info_each(name);
	if (r.each == 0)
		return -ENOPROTOOPT;
	r.buf = buf;
	r.cap = buf != NULL ? *len : 0;
	switch (name) {
	case RDS_INFO_COUNTERS:
		rds_info_counters(&r);
		break;
	case RDS_INFO_SOCKETS:
	case RDS6_INFO_SOCKETS:
		rds_info_sockets(&r);
		break;
	case RDS_INFO_RECV_MESSAGES:
	case RDS6_INFO_RECV_MESSAGES:
		rds_info_recv(&r);
		break;
	case RDS_INFO_CONNECTIONS:
	case RDS6_INFO_CONNECTIONS:
	case RDS_INFO_SEND_MESSAGES:
	case RDS6_INFO_SEND_MESSAGES:
	case RDS_INFO_RETRANS_MESSAGES:
	case RDS6_INFO_RETRANS_MESSAGES:
	case RDS_INFO_IB_CONNECTIONS:
	case RDS6_INFO_IB_CONNECTIONS:
	case RDS_INFO_TCP_SOCKETS:
	case RDS6_INFO_TCP_SOCKETS:
	case RDS_INFO_CONNECTION_STATS:
	case RTE_RDS_INFO_ETH_CONNECTIONS:
		ret = rds_info_barrier(deadline);
		if (ret != 0)
			return ret;
		for (e = 0; e < rds_lib->nb_engines; e++) {
			ret = rds_info_ask(rds_lib->engines[e], &r, deadline);
			if (ret != 0)
				return ret;
		}
		break;
	default:
		/* Known names with no records here (TCP sockets, verbs
		 * connections, per-connection statistics). */
		break;
	}
	if (r.used > r.cap) {
		*len = r.used;
		return -ENOSPC;
	}
	*len = r.used;
	return (int)r.each;
}

int
rte_rds_info(int name, void *buf, socklen_t *len)
{
	size_t l;
	int ret;

	RDS_CLIENT_OR(rds_client_info(name, buf, len));
	if (rds_lib == NULL)
		return RDS_ERR(ENXIO);
	if (len == NULL)
		return RDS_ERR(EINVAL);
	l = *len;
	ret = rds_info_get(name, buf, &l, 0);
	if (ret == -ENOSPC)
		*len = (socklen_t)l;
	if (ret < 0)
		return RDS_ERR(-ret);
	*len = (socklen_t)l;
	return ret;
}

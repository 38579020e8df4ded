/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connections (net/rds/connection.c, threads.c): one per (local address,
 * peer address, transport), shared by every socket and owned by exactly
 * one engine, which alone touches it. The kernel's states; a dropped
 * connection is reset (unacknowledged messages go back to the send queue,
 * marked RETRANSMITTED) and reconnected with random exponential backoff.
 */
#include <errno.h>

#include <rte_hash.h>
#include <rte_jhash.h>
#include <rte_random.h>
#include <rte_common.h>

#include "rds_private.h"

static const char *const rds_conn_states[] = {
	[RDS_CONN_DOWN] = "down",
	[RDS_CONN_CONNECTING] = "connecting",
	[RDS_CONN_DISCONNECTING] = "disconnecting",
	[RDS_CONN_UP] = "up",
	[RDS_CONN_RESETTING] = "resetting",
	[RDS_CONN_ERROR] = "error",
};

const char *
rds_conn_state_name(enum rds_conn_state st)
{
	return (unsigned int)st < RTE_DIM(rds_conn_states) ?
		rds_conn_states[st] : "?";
}

uint32_t
rds_addr_hash(const struct in6_addr *a)
{
	return rte_jhash(a, sizeof(*a), 0);
}

/* The engine that owns a connection. Symmetric in the two addresses, so
 * that both ends of a connection inside one instance (loop) share an
 * engine. */
unsigned int
rds_conn_engine_of_hash_n(uint32_t lhash, uint32_t fhash)
{
	return rte_jhash_1word(lhash ^ fhash, 0x5eed) % rds_lib->nb_engines;
}

unsigned int
rds_conn_engine_of(const struct in6_addr *laddr, const struct in6_addr *faddr)
{
	if (rds_lib->nb_engines == 1)
		return 0;
	return rds_conn_engine_of_hash(rds_addr_hash(laddr),
				       rds_addr_hash(faddr));
}

static inline bool
rds_conn_key_eq(const struct rds_conn_key *a, const struct rds_conn_key *b)
{
	return a->trans_id == b->trans_id && rds_addr_eq(&a->faddr, &b->faddr) &&
	       rds_addr_eq(&a->laddr, &b->laddr);
}

struct rds_conn *
rds_conn_lookup(struct rds_engine *e, const struct rds_conn_key *key)
{
	unsigned int slot = rds_conn_cache_slot(key);
	struct rds_conn *c = e->conn_cache[slot];
	void *data;

	if (likely(c != NULL) && likely(rds_conn_key_eq(&c->key, key)))
		return c;
	if (rte_hash_lookup_data(e->conn_hash, key, &data) < 0)
		return NULL;
	e->conn_cache[slot] = data;
	return data;
}

/* The delayed-ACK deadline passed. */
static void
rds_conn_ack_timer(struct rds_engine *e, struct rds_timer *t)
{
	struct rds_conn *c = container_of(t, struct rds_conn, ack_timer);

	RTE_SET_USED(e);
	if (c->ack_next > c->ack_sent) {
		c->ack_due = true;
		rds_conn_ready(c);
	}
}

/* The reconnect backoff ended. */
static void
rds_conn_reconnect_timer(struct rds_engine *e, struct rds_timer *t)
{
	struct rds_conn *c = container_of(t, struct rds_conn, conn_timer);

	RTE_SET_USED(e);
	c->reconnect_due = true;
	rds_conn_ready(c);
}

/* Find or create; a new connection starts connecting at once. */
struct rds_conn *
rds_conn_get(struct rds_engine *e, const struct rds_conn_key *key)
{
	struct rds_conn *c;
	const struct rds_transport *t;

	c = rds_conn_lookup(e, key);
	if (c != NULL)
		return c;
	t = rds_transport_by_id(key->trans_id);
	if (t == NULL)
		return NULL;
	c = rds_mem_zalloc("rds_conn", sizeof(*c));
	if (c == NULL)
		return NULL;
	c->key = *key;
	c->eng = e;
	c->trans = t;
	c->la = rds_laddr_find(&key->laddr);
	c->fcong = rds_cong_map_get(&key->faddr);
	c->state = RDS_CONN_DOWN;
	c->next_tx_seq = 1;
	c->unacked_packets = rds_lib->conf.max_unacked_packets;
	c->unacked_bytes = rds_lib->conf.max_unacked_bytes;
	TAILQ_INIT(&c->send_q);
	TAILQ_INIT(&c->retrans_q);
	rds_timer_init(&c->ack_timer, rds_conn_ack_timer);
	rds_timer_init(&c->conn_timer, rds_conn_reconnect_timer);
	if (c->la == NULL || c->fcong == NULL)
		goto fail;
	if (t->conn_alloc != NULL && t->conn_alloc(c) != 0)
		goto fail;
	if (rte_hash_add_key_data(e->conn_hash, key, c) < 0) {
		if (t->conn_free != NULL)
			t->conn_free(c);
		goto fail;
	}
	TAILQ_INSERT_TAIL(&e->conns, c, link);
	e->nb_conns++;
	/* First attempt is immediate (rds_queue_reconnect). */
	c->reconnect_due = true;
	rds_conn_ready(c);
	return c;
fail:
	rds_mem_free(c);
	return NULL;
}

static void
rds_msg_list_free(struct rds_engine *e, struct rds_msg_list *l)
{
	struct rds_msg *m;

	while ((m = TAILQ_FIRST(l)) != NULL) {
		TAILQ_REMOVE(l, m, link);
		rds_send_release(e, m);
	}
}

void
rds_conn_destroy(struct rds_conn *c)
{
	struct rds_engine *e = c->eng;

	if (c->state == RDS_CONN_UP || c->state == RDS_CONN_CONNECTING)
		c->trans->conn_shutdown(c);
	rds_msg_list_free(e, &c->send_q);
	rds_msg_list_free(e, &c->retrans_q);
	rds_msg_free(c->map_cur);
	c->map_cur = NULL;
	if (c->trans->conn_free != NULL)
		c->trans->conn_free(c);
	rds_timer_cancel(e, &c->ack_timer);
	rds_timer_cancel(e, &c->conn_timer);
	if (c->ready)
		TAILQ_REMOVE(&e->ready, c, ready_link);
	rte_hash_del_key(e->conn_hash, &c->key);
	if (e->conn_cache[rds_conn_cache_slot(&c->key)] == c)
		e->conn_cache[rds_conn_cache_slot(&c->key)] = NULL;
	TAILQ_REMOVE(&e->conns, c, link);
	e->nb_conns--;
	rds_mem_free(c);
}

void
rds_conn_connect_complete(struct rds_conn *c)
{
	if (c->state != RDS_CONN_CONNECTING && c->state != RDS_CONN_DOWN)
		return;
	c->state = RDS_CONN_UP;
	c->xmit_blocked = false;
	c->reconnect_ceil_ms = 0;
	/* The kernel sends its congestion map on every connect. */
	if (!(c->trans->flags & RDS_TRANS_F_LOOPBACK))
		c->map_queued = true;
	rds_stat_inc(c->eng, s_conn_connect);
	rds_conn_ready(c);
	RDS_LOG(DEBUG, "conn %s: up", c->trans->name);
}

/* Schedule the next connect attempt (rds_queue_reconnect). */
static void
rds_conn_queue_reconnect(struct rds_conn *c, uint64_t now)
{
	uint64_t min = rds_lib->conf.reconnect_min_ms;
	uint64_t max = rds_lib->conf.reconnect_max_ms;
	uint64_t delay_ms;

	if (c->reconnect_ceil_ms == 0) {
		c->reconnect_ceil_ms = min;
		c->reconnect_due = true;
		rds_conn_ready(c);
		return;
	}
	delay_ms = rte_rand_max(c->reconnect_ceil_ms);
	c->reconnect_ceil_ms = RTE_MIN(c->reconnect_ceil_ms * 2, max);
	if (delay_ms == 0) {
		c->reconnect_due = true;
		rds_conn_ready(c);
		return;
	}
	rds_stat_inc(c->eng, s_conn_reconnect_delayed);
	rds_timer_arm(c->eng, &c->conn_timer,
		      now + delay_ms * rds_lib->tsc_hz / 1000);
}

/*
 * Drop the connection: ERROR -> DISCONNECTING -> transport shutdown ->
 * reset the send path -> DOWN, then reconnect after the backoff.
 */
void
rds_conn_drop(struct rds_conn *c)
{
	if (c->state == RDS_CONN_DOWN || c->state == RDS_CONN_DISCONNECTING)
		return;
	RDS_LOG(DEBUG, "conn %s: drop from state %s", c->trans->name,
		rds_conn_state_name(c->state));
	c->state = RDS_CONN_ERROR;
	c->state = RDS_CONN_DISCONNECTING;
	c->trans->conn_shutdown(c);
	rds_send_path_reset(c);
	c->drop_pending = false;
	c->reconnect_due = false;
	c->state = RDS_CONN_DOWN;
	rds_stat_inc(c->eng, s_conn_reset);
	rds_conn_queue_reconnect(c, rds_clock_tsc());
}

void
rds_conn_error(struct rds_conn *c, const char *why)
{
	if (!c->drop_pending)
		RDS_LOG(DEBUG, "conn %s: %s; forcing reconnect", c->trans->name,
			why != NULL ? why : "error");
	c->drop_pending = true;
	rds_conn_ready(c);
}

void
rds_conn_accepting(struct rds_conn *c)
{
	c->state = RDS_CONN_CONNECTING;
}

void
rds_conn_connect_now(struct rds_conn *c)
{
	if (c->state != RDS_CONN_DOWN || c->drop_pending)
		return;
	rds_timer_cancel(c->eng, &c->conn_timer);
	c->reconnect_due = true;
	rds_conn_ready(c);
}

void
rds_conn_set_unresponsive(struct rds_conn *c, bool on)
{
	c->unresponsive = on;
}

void
rds_conn_ack_request(struct rds_conn *c)
{
	c->ack_requested = true;
	rds_conn_ready(c);
}

void
rds_conn_ack_later(struct rds_conn *c)
{
	if (!c->ack_timer.armed)
		rds_timer_arm(c->eng, &c->ack_timer,
			      c->eng->now + rds_lib->delayed_ack_tsc);
}

/* rds_conn_run's first step (rds_xmit.c), for a connection that is not
 * up or has a drop pending: the drop, then a connection that is down
 * connects if its backoff allows. Returns the work done; the caller
 * goes on only if the connection is up afterwards. */
unsigned int
rds_conn_run_connect(struct rds_conn *c, uint64_t now)
{
	int ret;

	if (c->drop_pending)
		rds_conn_drop(c);
	if (c->state != RDS_CONN_DOWN)
		return 0;
	if (!c->reconnect_due)
		return 0;	/* the backoff timer will call */
	c->reconnect_due = false;
	c->state = RDS_CONN_CONNECTING;
	ret = c->trans->conn_connect(c);
	if (ret != 0) {
		c->state = RDS_CONN_DOWN;
		if (c->reconnect_ceil_ms == 0)
			c->reconnect_ceil_ms = rds_lib->conf.reconnect_min_ms;
		rds_conn_queue_reconnect(c, now);
	}
	return 1;
}

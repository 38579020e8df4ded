/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Engines: the run loop that owns connections. A pass reads the
 * doorbells of the threads that rang it and drains the sockets they
 * name, takes what other engines handed it, answers info requests
 * (after whatever was queued before them), polls the transports active
 * on it, announces local congestion map changes, fires due timers and
 * runs the connections on its ready list; then it applies the idle
 * policy if nothing happened. Every step costs
 * in proportion to the work it finds: an idle socket or connection
 * costs nothing. An engine runs on its own lcore or inline, driven by
 * rte_rds_engine_poll().
 *
 * This file is the pass and what it calls, so that gcc inlines within
 * one unit; an engine's creation, lcore, idle policy and tear-down are
 * in rds_engine_life.c, the hand-off of messages and calls to an engine
 * and the wait for every engine's pass in rds_engine_call.c.
 */
#include <errno.h>
#include <stdlib.h>

#include "rds_private.h"

/* ---------------------------------------------------------------- */
/* Requests of sockets. */

/* A forwarded copy of a CANCEL or CLOSE request for engine dst. */
static void
rds_engine_forward_ctrl(struct rds_engine *e, unsigned int dst,
			struct rds_msg *req)
{
	struct rds_msg *m;

	while ((m = rds_msg_alloc(0)) == NULL) {
		RDS_LOG(ERR, "engine %u: no memory to forward a request",
			e->id);
		rte_delay_us_sleep(100);
	}
	m->type = req->type;
	m->sock = req->sock;
	m->sock_gen = req->sock_gen;
	m->laddr = req->laddr;
	m->faddr = req->faddr;
	m->dport = req->dport;
	m->all = req->all;
	m->req = req;
	rds_engine_handoff(e, dst, m);
}

/* Cancel (or close) on this engine's connections, and answer. */
static void
rds_engine_ctrl_local(struct rds_engine *e, struct rds_msg *m)
{
	struct rds_msg *req = m->req != NULL ? m->req : m;

	rds_send_cancel(e, m);
	if (m->req != NULL)
		rds_msg_free(m);
	/* The requester frees req once every engine answered. */
	__atomic_fetch_sub(&req->pending, 1, __ATOMIC_RELEASE);
}

/* A CANCEL or CLOSE on the socket's home engine: other engines may hold
 * messages that were handed to them; they get the request after those. */
static void
rds_engine_ctrl(struct rds_engine *e, struct rds_sock *rs, struct rds_msg *m)
{
	unsigned int j;

	if (__atomic_load_n(&rs->snd_msgs, __ATOMIC_ACQUIRE) == 0) {
		/* Nothing of it is held anywhere. */
		__atomic_fetch_sub(&m->pending, 1, __ATOMIC_RELEASE);
		return;
	}
	if (rds_lib->nb_engines > 1) {
		__atomic_fetch_add(&m->pending, rds_lib->nb_engines - 1,
				   __ATOMIC_ACQ_REL);
		for (j = 0; j < rds_lib->nb_engines; j++)
			if (j != e->id)
				rds_engine_forward_ctrl(e, j, m);
	}
	rds_engine_ctrl_local(e, m);
}

static void
rds_engine_pending_del(struct rds_engine *e, struct rds_sock *rs)
{
	if (rs->pending) {
		TAILQ_REMOVE(&e->pending, rs, pend_link);
		rs->pending = false;
	}
}

/* Take up to RDS_SOCK_BUDGET requests of a socket; what is left keeps
 * it on the pending list. After its CLOSE the socket is not touched. */
static __rte_always_inline unsigned int
rds_engine_drain_sock(struct rds_engine *e, struct rds_sock *rs)
{
	struct rds_msg *ms[RDS_BURST];
	unsigned int n, i, done = 0;

	do {
		n = rds_queue_get_burst(&rs->req, ms, RDS_BURST);
		for (i = 0; i < n; i++) {
			struct rds_msg *m = ms[i];

			/* Data first, before the switch's other tests. */
			if (likely(m->type == RDS_MSG_DATA)) {
				rds_send_request(e, rs, m);
				continue;
			}
			switch (m->type) {
			case RDS_MSG_CANCEL:
				rds_engine_ctrl(e, rs, m);
				break;
			case RDS_MSG_CLOSE:
				/* Its last request: nothing follows. */
				rds_engine_pending_del(e, rs);
				rds_engine_ctrl(e, rs, m);
				return done + i + 1;
			default:
				RDS_LOG(ERR, "engine %u: bad request type %u",
					e->id, m->type);
				rds_msg_free(m);
				break;
			}
		}
		done += n;
	} while (n == RDS_BURST && done < RDS_SOCK_BUDGET);
	/* A short burst emptied the queue (a request put after it rings
	 * again: queued was cleared first); a full one may have left some
	 * for the next pass. */
	if (n == RDS_BURST) {
		if (!rs->pending) {
			rs->pending = true;
			TAILQ_INSERT_TAIL(&e->pending, rs, pend_link);
		}
	} else {
		rds_engine_pending_del(e, rs);
	}
	return done;
}

/* The engine's copy of its bell list, rebuilt when a thread added one. */
static void
rds_engine_bells_refresh(struct rds_engine *e)
{
	struct rds_bell *b;
	unsigned int n = 0;

	rte_spinlock_lock(&e->bell_lock);
	e->bell_gen_seen = e->bell_gen;
	TAILQ_FOREACH(b, &e->bells, link)
		n++;
	if (n > e->bell_cap) {
		struct rds_bell **arr = realloc(e->bell_arr,
						sizeof(*arr) * n * 2);

		if (arr == NULL) {
			e->bell_gen_seen--;	/* try again next pass */
			rte_spinlock_unlock(&e->bell_lock);
			return;
		}
		e->bell_arr = arr;
		e->bell_cap = n * 2;
	}
	n = 0;
	TAILQ_FOREACH(b, &e->bells, link)
		e->bell_arr[n++] = b;
	e->nb_bells = n;
	rte_spinlock_unlock(&e->bell_lock);
}

void
rds_bell_free(struct rds_bell *b)
{
	rds_mem_free(b->r);
	rds_mem_free(b);
}

/* A thread exited and its ring is empty: let it go. */
static void
rds_engine_bell_reap(struct rds_engine *e, struct rds_bell *b)
{
	rte_spinlock_lock(&e->bell_lock);
	TAILQ_REMOVE(&e->bells, b, link);
	e->bell_gen++;
	rte_spinlock_unlock(&e->bell_lock);
	rds_bell_free(b);
	rds_engine_bells_refresh(e);
}

/* Always inline: its one caller is the pass (a call and a frame of
 * its own a pass otherwise). */
static __rte_always_inline unsigned int
rds_engine_bells(struct rds_engine *e)
{
	struct rds_sock *socks[RDS_BURST];
	unsigned int i, k, n, work = 0;

	if (unlikely(__atomic_load_n(&e->bell_gen, __ATOMIC_ACQUIRE) !=
		     e->bell_gen_seen))
		rds_engine_bells_refresh(e);
	for (i = 0; i < e->nb_bells; i++) {
		struct rds_bell *b = e->bell_arr[i];

		n = rte_ring_sc_dequeue_burst(b->r, (void **)socks, RDS_BURST,
					      NULL);
		for (k = 0; k < n; k++) {
			/* Cleared before the queue is read: a request put
			 * after this rings again. */
			__atomic_store_n(&socks[k]->queued, 0,
					 __ATOMIC_SEQ_CST);
			work += rds_engine_drain_sock(e, socks[k]) + 1;
		}
		if (n == 0 && unlikely(__atomic_load_n(&b->dead,
						       __ATOMIC_ACQUIRE)) &&
		    rte_ring_empty(b->r)) {
			rds_engine_bell_reap(e, b);
			break;	/* the array changed: next pass */
		}
	}
	return work;
}

static unsigned int
rds_engine_pending(struct rds_engine *e)
{
	struct rds_sock *rs, *next;
	unsigned int work = 0;

	for (rs = TAILQ_FIRST(&e->pending); rs != NULL; rs = next) {
		next = TAILQ_NEXT(rs, pend_link);
		work += rds_engine_drain_sock(e, rs);
	}
	return work;
}

/* ---------------------------------------------------------------- */
/* What other engines handed over, calls and info requests. */

/* Take up to max messages that engine src handed over (a burst each). */
static unsigned int
rds_engine_hand_in_from(struct rds_engine *e, unsigned int src, uint32_t max)
{
	struct rds_msg *ms[RDS_BURST];
	unsigned int n, i, work = 0;

	do {
		n = rds_queue_get_burst(&e->hand_in[src], ms,
					RTE_MIN(max - work, (uint32_t)RDS_BURST));
		for (i = 0; i < n; i++) {
			switch (ms[i]->type) {
			case RDS_MSG_DATA:
				rds_send_queue(e, ms[i]);
				break;
			case RDS_MSG_CANCEL:
			case RDS_MSG_CLOSE:
				rds_engine_ctrl_local(e, ms[i]);
				break;
			case RDS_MSG_CALL:
				ms[i]->call(e, ms[i]->arg);
				rds_msg_free(ms[i]);
				break;
			default:
				rds_msg_free(ms[i]);
				break;
			}
		}
		work += n;
	} while (n != 0 && work < max);
	return work;
}

static unsigned int
rds_engine_hand_in(struct rds_engine *e)
{
	unsigned int src, work = 0;

	for (src = 0; src < rds_lib->nb_engines; src++) {
		if (src == e->id || rds_queue_count(&e->hand_in[src]) == 0)
			continue;
		work += rds_engine_hand_in_from(e, src, RDS_BURST);
	}
	return work;
}

/*
 * Before an info request is answered: take every request that was queued
 * before the request reached this engine (the doorbells rung, what the
 * sockets on the pending list have left, what other engines handed over,
 * what attached clients queued), so that the snapshot reflects every
 * call that returned before it was asked for. A pass takes them only in
 * bounded bursts, and the admin ring may be read between a doorbell and
 * the socket it names. Bounded by what is queued now: what comes
 * meanwhile waits for the next pass.
 */
static unsigned int
rds_engine_catch_up(struct rds_engine *e)
{
	struct rds_sock *rs, *next;
	unsigned int i, src, n, work = 0;
	uint32_t left;

	/* A doorbell ring holds RDS_BELL_RING_SIZE: this empties it. */
	for (i = 0; i <= RDS_BELL_RING_SIZE / RDS_BURST; i++) {
		n = rds_engine_bells(e);
		work += n;
		if (n == 0)
			break;
	}
	for (rs = TAILQ_FIRST(&e->pending); rs != NULL; rs = next) {
		next = TAILQ_NEXT(rs, pend_link);
		left = rds_queue_count(&rs->req);
		do {
			n = rds_engine_drain_sock(e, rs);
			work += n;
			left -= RTE_MIN(left, (uint32_t)n);
		} while (n != 0 && left != 0 && rs->pending);
	}
	if (e->nb_clients != 0)
		work += rds_server_service(e);
	for (src = 0; src < rds_lib->nb_engines; src++) {
		if (src == e->id)
			continue;
		left = rds_queue_count(&e->hand_in[src]);
		if (left != 0)
			work += rds_engine_hand_in_from(e, src, left);
	}
	return work;
}

/* A call from a thread that is not an engine (rds_engine_call_wait). */
static void
rds_engine_admin_call(struct rds_engine *e, struct rds_msg *m)
{
	m->call(e, m->arg);
	/* The caller frees it once it sees this. */
	__atomic_store_n(&m->pending, 0, __ATOMIC_RELEASE);
}

/* Calls and info requests of threads that are not engines; an info
 * request is answered after what was queued before it (catch_up). */
static unsigned int
rds_engine_admin(struct rds_engine *e)
{
	void *ms[RDS_BURST];
	unsigned int n, i, work = 0;
	bool info;

	do {
		n = rte_ring_sc_dequeue_burst(e->admin, ms, RDS_BURST, NULL);
		info = false;
		for (i = 0; i < n; i++)
			info |= ((struct rds_msg *)ms[i])->type != RDS_MSG_CALL;
		if (info)
			work += rds_engine_catch_up(e);
		for (i = 0; i < n; i++) {
			struct rds_msg *am = ms[i];

			if (am->type == RDS_MSG_CALL)
				rds_engine_admin_call(e, am);
			else
				rds_info_engine_answer(e, am);
		}
		work += n;
	} while (n == RDS_BURST);
	return work;
}

/* ---------------------------------------------------------------- */
/* The pass. */

/* Local congestion maps that changed go to every connection of their
 * address that crosses a network. */
static void
rds_engine_cong_check(struct rds_engine *e)
{
	struct rds_conn *c;
	unsigned int i;
	uint32_t gen;

	e->cong_local_seen = rds_cong_local_generation();
	for (i = 0; i < rds_lib->nb_laddrs; i++) {
		struct rds_laddr *la = rds_lib->laddrs[i];

		gen = __atomic_load_n(&la->cong->gen, __ATOMIC_ACQUIRE);
		if (gen == e->cong_gen_seen[i])
			continue;
		e->cong_gen_seen[i] = gen;
		TAILQ_FOREACH(c, &e->conns, link) {
			if (c->la == la &&
			    !(c->trans->flags & RDS_TRANS_F_LOOPBACK) &&
			    c->map_gen_sent != gen) {
				c->map_queued = true;
				rds_conn_ready(c);
				rds_stat_inc(e, s_cong_update_queued);
			}
		}
	}
}

static unsigned int
rds_engine_run_ready(struct rds_engine *e)
{
	struct rds_conn_list now = TAILQ_HEAD_INITIALIZER(now);
	struct rds_conn *c;
	unsigned int work = 0;

	/* The connections ready at the start of the step; one that still
	 * has work afterwards comes back on the list for the next pass. */
	TAILQ_CONCAT(&now, &e->ready, ready_link);
	while ((c = TAILQ_FIRST(&now)) != NULL) {
		TAILQ_REMOVE(&now, c, ready_link);
		c->ready = false;
		work += rds_conn_run(c, e->now);
	}
	return work;
}

unsigned int
rds_engine_run_once(struct rds_engine *e)
{
	unsigned int work, t;
	uint64_t now = rds_clock_tsc();
	bool serving;

	/* An engine on its own lcore whose pass begins late: counted at the
	 * start of the pass, so that whatever this pass does for a caller
	 * comes after the count. */
	if (unlikely(now - e->now > e->late_tsc))
		e->stats.s_late_passes++;
	e->now = now;
	/* Attached clients' wake-ups wait for the end of the pass; only a
	 * process that serves clients pays for it (the batch is
	 * thread-local: __tls_get_addr, ~35 instructions a pass). */
	serving = __atomic_load_n(&rds_srv, __ATOMIC_RELAXED) != NULL;
	if (unlikely(serving))
		rds_server_wake_begin();
	work = rds_engine_bells(e);
	if (unlikely(!TAILQ_EMPTY(&e->pending)))
		work += rds_engine_pending(e);
	if (rds_lib->nb_engines > 1)
		work += rds_engine_hand_in(e);
	if (unlikely(!rte_ring_empty(e->admin)))
		work += rds_engine_admin(e);
	if (unlikely(e->nb_clients != 0))
		work += rds_server_service(e);
	for (t = 0; t < e->nb_polled; t++)
		if (e->polled[t]->poll != NULL)
			work += e->polled[t]->poll(e);
	if (unlikely(rds_cong_local_generation() != e->cong_local_seen))
		rds_engine_cong_check(e);
	if ((e->now >> e->wheel.shift) >= e->wheel.due)
		work += rds_wheel_run(e, e->now);
	if (!TAILQ_EMPTY(&e->ready))
		work += rds_engine_run_ready(e);
	/* What the transports batched in this pass leaves now. */
	for (t = 0; t < e->nb_polled; t++)
		if (e->polled[t]->flush != NULL)
			e->polled[t]->flush(e);
	/* Attached clients' waiters, once each, before the pass counts as
	 * done (the sockets are held until then). */
	if (unlikely(serving))
		rds_server_wake_flush();
	e->stats.s_polls++;
	if (work == 0)
		e->stats.s_idle_polls++;
	__atomic_store_n(&e->pass, e->pass + 1, __ATOMIC_RELEASE);
	return work;
}

int
rds_engine_try_poll(struct rds_engine *e)
{
	unsigned int work;

	if (!rte_spinlock_trylock(&e->poll_lock))
		return 0;
	work = rds_engine_run_once(e);
	rte_spinlock_unlock(&e->poll_lock);
	return (int)work;
}

int
rte_rds_engine_poll(unsigned int engine_id)
{
	struct rds_engine *e;

	if (rds_lib == NULL)
		return RDS_ERR(ENXIO);
	if (engine_id >= rds_lib->nb_engines)
		return RDS_ERR(EINVAL);
	e = rds_lib->engines[engine_id];
	if (e->lcore_id != RTE_RDS_ENGINE_INLINE)
		return RDS_ERR(EINVAL);
	return rds_engine_try_poll(e);
}

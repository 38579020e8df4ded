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
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>

#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_hash.h>
#include <rte_jhash.h>
#include <rte_pause.h>

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

			switch (m->type) {
			case RDS_MSG_DATA:
				rds_send_request(e, rs, m);
				break;
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

static void
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

static unsigned int
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
/* Hand-off between engines. */

void
rds_engine_handoff(struct rds_engine *e, unsigned int dst, struct rds_msg *m)
{
	struct rds_queue *q = &rds_lib->engines[dst]->hand_in[e->id];

	while (rds_queue_put(q, m) != 0) {
		RDS_LOG(ERR, "engine %u: hand-off to engine %u failed", e->id,
			dst);
		rte_delay_us_sleep(100);
	}
	e->hand_out++;
}

int
rds_engine_call(struct rds_engine *e, unsigned int dst, rds_engine_fn fn,
		void *arg)
{
	struct rds_msg *m;

	if (dst == e->id) {
		fn(e, arg);
		return 0;
	}
	m = rds_msg_alloc(0);
	if (m == NULL)
		return -ENOMEM;
	m->type = RDS_MSG_CALL;
	m->call = fn;
	m->arg = arg;
	rds_engine_handoff(e, dst, m);
	return 0;
}

/* A call from a thread that is not an engine (rds_engine_call_wait). */
static void
rds_engine_admin_call(struct rds_engine *e, struct rds_msg *m)
{
	m->call(e, m->arg);
	/* The caller frees it once it sees this. */
	__atomic_store_n(&m->pending, 0, __ATOMIC_RELEASE);
}

int
rds_engine_call_wait(unsigned int dst, rds_engine_fn fn, void *arg)
{
	struct rds_engine *e = rds_lib->engines[dst];
	struct rds_msg *m = rds_msg_alloc(0);
	uint64_t spins = 0;

	if (m == NULL)
		return -ENOMEM;
	m->type = RDS_MSG_CALL;
	m->call = fn;
	m->arg = arg;
	m->pending = 1;
	while (rte_ring_enqueue(e->admin, m) != 0)
		rds_sock_wait_step(NULL, 0, &spins);
	while (__atomic_load_n(&m->pending, __ATOMIC_ACQUIRE) != 0)
		rds_sock_wait_step(NULL, 0, &spins);
	rds_msg_free(m);
	return 0;
}

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
	uint64_t now = rte_rdtsc();

	/* An engine on its own lcore whose pass begins late: counted at the
	 * start of the pass, so that whatever this pass does for a caller
	 * comes after the count. */
	if (unlikely(now - e->now > e->late_tsc))
		e->stats.s_late_passes++;
	e->now = now;
	work = rds_engine_bells(e);
	if (unlikely(!TAILQ_EMPTY(&e->pending)))
		work += rds_engine_pending(e);
	if (rds_lib->nb_engines > 1)
		work += rds_engine_hand_in(e);
	if (unlikely(rte_ring_count(e->admin) != 0))
		work += rds_engine_admin(e);
	if (unlikely(e->nb_clients != 0))
		work += rds_server_service(e);
	for (t = 0; t < e->nb_polled; t++)
		if (e->polled[t]->poll != NULL)
			work += e->polled[t]->poll(e);
	if (unlikely(rds_cong_local_generation() != e->cong_local_seen))
		rds_engine_cong_check(e);
	if (e->wheel.nb_armed != 0 &&
	    (e->now >> e->wheel.shift) >= e->wheel.tick)
		work += rds_wheel_run(e, e->now);
	if (!TAILQ_EMPTY(&e->ready))
		work += rds_engine_run_ready(e);
	/* What the transports batched in this pass leaves now. */
	for (t = 0; t < e->nb_polled; t++)
		if (e->polled[t]->flush != NULL)
			e->polled[t]->flush(e);
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

/*
 * Wait until no engine is still in a pass that began before this call:
 * whatever an engine looked up then (a socket found by its port, a
 * doorbell) it has let go of.
 */
void
rds_engines_quiesce(void)
{
	unsigned int i;
	uint64_t spins = 0;

	for (i = 0; i < rds_lib->nb_engines; i++) {
		struct rds_engine *e = rds_lib->engines[i];
		uint64_t p0 = __atomic_load_n(&e->pass, __ATOMIC_ACQUIRE);

		for (;;) {
			if (__atomic_load_n(&e->pass, __ATOMIC_ACQUIRE) != p0)
				break;
			if (e->lcore_id == RTE_RDS_ENGINE_INLINE) {
				/* Free: nobody is inside a pass. */
				if (rte_spinlock_trylock(&e->poll_lock)) {
					rte_spinlock_unlock(&e->poll_lock);
					break;
				}
			} else if (!__atomic_load_n(&e->launched,
						    __ATOMIC_ACQUIRE)) {
				break;
			}
			if (++spins > 64)
				sched_yield();
			else
				rte_pause();
		}
	}
}

static void
rds_engine_idle(struct rds_engine *e, unsigned int work)
{
	if (work != 0) {
		e->empty_polls = 0;
		return;
	}
	if (++e->empty_polls < e->idle_polls)
		return;
	switch (e->idle) {
	case RTE_RDS_IDLE_PAUSE:
		rte_pause();
		break;
	case RTE_RDS_IDLE_YIELD:
		sched_yield();
		break;
	case RTE_RDS_IDLE_SLEEP:
		rte_delay_us_sleep(e->idle_sleep_us);
		break;
	case RTE_RDS_IDLE_BUSY:
	default:
		break;
	}
}

static int
rds_engine_main(void *arg)
{
	struct rds_engine *e = arg;
	RDS_LOG(INFO, "engine %u running on lcore %u", e->id, rte_lcore_id());
	/* Nobody else polls an engine that has its own lcore. */
	while (!__atomic_load_n(&e->stop, __ATOMIC_ACQUIRE))
		rds_engine_idle(e, rds_engine_run_once(e));
	return 0;
}

void
rds_engine_poll_transport(struct rds_engine *e, const struct rds_transport *t)
{
	unsigned int i;

	if (t->poll == NULL && t->flush == NULL)
		return;
	for (i = 0; i < e->nb_polled; i++)
		if (e->polled[i] == t)
			return;
	e->polled[e->nb_polled++] = t;
}

static struct rds_engine *
rds_engine_create(unsigned int id, const struct rte_rds_engine_conf *ec)
{
	char name[RTE_HASH_NAMESIZE];
	struct rte_hash_parameters hp = {
		.entries = 4096,
		.key_len = sizeof(struct rds_conn_key),
		.hash_func = rte_jhash,
		.socket_id = rds_lib->conf.socket_id,
	};
	struct rds_engine *e;
	unsigned int i;

	e = rds_mem_zalloc("rds_engine", sizeof(*e));
	if (e == NULL)
		return NULL;
	e->id = id;
	e->lcore_id = ec->lcore_id;
	e->idle = ec->idle;
	e->idle_polls = ec->idle_polls != 0 ? ec->idle_polls : 1024;
	e->idle_sleep_us = ec->idle_sleep_us != 0 ? ec->idle_sleep_us : 50;
	/* s_late_passes: 1 ms, engines on their own lcore only (an inline
	 * engine runs when the application calls). */
	e->late_tsc = e->lcore_id != RTE_RDS_ENGINE_INLINE ?
		rte_get_tsc_hz() / 1000 : UINT64_MAX;
	e->now = rte_rdtsc();
	rte_spinlock_init(&e->poll_lock);
	rte_spinlock_init(&e->bell_lock);
	TAILQ_INIT(&e->bells);
	TAILQ_INIT(&e->pending);
	TAILQ_INIT(&e->conns);
	TAILQ_INIT(&e->ready);
	rds_wheel_init(&e->wheel, rte_rdtsc(), rds_lib->tsc_hz);
	snprintf(name, sizeof(name), "rds_admin_%u", id);
	e->admin = rte_ring_create(name, RDS_ADMIN_RING_SIZE,
				   rds_lib->conf.socket_id, RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "rds_conn_%u", id);
	hp.name = name;
	e->conn_hash = rte_hash_create(&hp);
	e->hand_in = rds_mem_zalloc("rds_hand_in",
		sizeof(*e->hand_in) * rds_lib->conf.nb_engines);
	e->cong_gen_seen = rds_mem_zalloc("rds_cong_seen",
		sizeof(uint32_t) * RTE_MAX(rds_lib->nb_laddrs, 1u));
	if (e->admin == NULL || e->conn_hash == NULL || e->hand_in == NULL ||
	    e->cong_gen_seen == NULL) {
		rte_ring_free(e->admin);
		rte_hash_free(e->conn_hash);
		rds_mem_free(e->hand_in);
		rds_mem_free(e->cong_gen_seen);
		rds_mem_free(e);
		return NULL;
	}
	for (i = 0; i < rds_lib->conf.nb_engines; i++)
		rds_queue_init(&e->hand_in[i], 1u << 24);
	e->cong_local_seen = rds_cong_local_generation();
	return e;
}

static void
rds_engine_destroy(struct rds_engine *e)
{
	struct rds_conn *c;
	struct rds_bell *b;
	unsigned int t;

	for (t = 0; t < rds_lib->nb_engines; t++)
		rds_queue_fini(&e->hand_in[t]);
	while ((c = TAILQ_FIRST(&e->conns)) != NULL)
		rds_conn_destroy(c);
	for (t = 0; t < rds_transport_count(); t++) {
		const struct rds_transport *tr = rds_transport_at(t);

		if (tr->engine_fini != NULL)
			tr->engine_fini(e);
	}
	while ((b = TAILQ_FIRST(&e->bells)) != NULL) {
		TAILQ_REMOVE(&e->bells, b, link);
		rds_bell_free(b);
	}
	free(e->bell_arr);
	rte_ring_free(e->admin);
	rte_hash_free(e->conn_hash);
	rds_mem_free(e->hand_in);
	rds_mem_free(e->cong_gen_seen);
	rds_mem_free(e);
}

static int
rds_engine_check_lcore(unsigned int id, const struct rte_rds_conf *conf)
{
	uint32_t lc = conf->engine[id].lcore_id;
	unsigned int j;

	if (lc == RTE_RDS_ENGINE_INLINE)
		return 0;
	if (lc >= RTE_MAX_LCORE || !rte_lcore_is_enabled(lc) ||
	    lc == rte_get_main_lcore()) {
		RDS_LOG(ERR, "engine %u: lcore %u is not a worker lcore", id,
			lc);
		return -EINVAL;
	}
	for (j = 0; j < id; j++)
		if (conf->engine[j].lcore_id == lc)
			return -EINVAL;
	return 0;
}

int
rds_engines_init(const struct rte_rds_conf *conf)
{
	unsigned int i, t;
	int ret;

	for (i = 0; i < conf->nb_engines; i++) {
		ret = rds_engine_check_lcore(i, conf);
		if (ret != 0)
			return ret;
		if (conf->engine[i].lcore_id == RTE_RDS_ENGINE_INLINE)
			rds_lib->any_inline = true;
	}
	for (i = 0; i < conf->nb_engines; i++) {
		struct rds_engine *e = rds_engine_create(i, &conf->engine[i]);

		if (e == NULL)
			return -ENOMEM;
		rds_lib->engines[i] = e;
		rds_lib->nb_engines = i + 1;
		for (t = 0; t < rds_transport_count(); t++) {
			const struct rds_transport *tr = rds_transport_at(t);

			if (tr->engine_init != NULL) {
				ret = tr->engine_init(e);
				if (ret != 0)
					return ret;
			}
		}
	}
	return 0;
}

int
rte_rds_start(void)
{
	unsigned int i;
	int ret;

	if (rds_lib == NULL)
		return RDS_ERR(ENXIO);
	for (i = 0; i < rds_lib->nb_engines; i++) {
		struct rds_engine *e = rds_lib->engines[i];

		if (e->lcore_id == RTE_RDS_ENGINE_INLINE || e->launched)
			continue;
		e->stop = false;
		__atomic_store_n(&e->launched, true, __ATOMIC_RELEASE);
		ret = rte_eal_remote_launch(rds_engine_main, e, e->lcore_id);
		if (ret != 0) {
			__atomic_store_n(&e->launched, false, __ATOMIC_RELEASE);
			return RDS_ERR(-ret);
		}
	}
	return 0;
}

void
rds_engines_stop(void)
{
	unsigned int i;

	for (i = 0; i < rds_lib->nb_engines; i++) {
		struct rds_engine *e = rds_lib->engines[i];

		if (!e->launched)
			continue;
		__atomic_store_n(&e->stop, true, __ATOMIC_RELEASE);
		rte_eal_wait_lcore(e->lcore_id);
		__atomic_store_n(&e->launched, false, __ATOMIC_RELEASE);
	}
}

void
rds_engines_fini(void)
{
	unsigned int i;

	for (i = 0; i < rds_lib->nb_engines; i++) {
		if (rds_lib->engines[i] != NULL)
			rds_engine_destroy(rds_lib->engines[i]);
		rds_lib->engines[i] = NULL;
	}
	rds_lib->nb_engines = 0;
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

unsigned int
rte_rds_engine_count(void)
{
	return rds_lib != NULL ? rds_lib->nb_engines : 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Engines: the run loop that owns connections. Each iteration drains the
 * application channels, polls the transports, announces congestion map
 * changes, runs each connection's timers and transmit path, and then
 * applies the idle policy if nothing happened. An engine runs on its own
 * lcore or inline, driven by rte_rds_engine_poll().
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
#include <rte_random.h>

#include "rds_private.h"

static void
rds_engine_sock_del(struct rds_engine *e, struct rds_sock *rs)
{
	unsigned int i;

	for (i = 0; i < e->nb_socks; i++) {
		if (e->socks[i] == rs) {
			e->socks[i] = e->socks[--e->nb_socks];
			break;
		}
	}
	rs->eng[e->id].polled = false;
}

static void
rds_engine_close_sock(struct rds_engine *e, struct rds_sock *rs,
		      struct rds_msg *req)
{
	rds_send_cancel(e, rs, req);
	rds_recv_drop_overflow(e, rs);
	rds_notify_drop_overflow(e, rs);
	rds_engine_sock_del(e, rs);
	__atomic_store_n(&req->done, 1, __ATOMIC_RELEASE);
}

/* Drain one socket's channel. Returns the number of requests taken; a
 * CLOSE ends the socket's life in this engine (*closed set). */
static unsigned int
rds_engine_drain_chan(struct rds_engine *e, struct rds_sock *rs, bool *closed)
{
	struct rds_chan *ch = &rs->chan[e->id];
	struct rds_msg *ms[RDS_BURST];
	unsigned int n, i;

	*closed = false;
	n = rds_chan_get_burst(ch->tx, ch->base, ms, RDS_BURST);
	for (i = 0; i < n; i++) {
		struct rds_msg *m = ms[i];

		switch (m->type) {
		case RDS_MSG_DATA:
			rds_send_queue(e, rs, m);
			break;
		case RDS_MSG_CANCEL:
			rds_send_cancel(e, rs, m);
			__atomic_store_n(&m->done, 1, __ATOMIC_RELEASE);
			break;
		case RDS_MSG_CLOSE:
			/* The socket queues nothing after its CLOSE. */
			rds_engine_close_sock(e, rs, m);
			*closed = true;
			return n;
		default:
			RDS_LOG(ERR, "engine %u: bad request type %u", e->id,
				m->type);
			rds_msg_free(m);
			break;
		}
	}
	if (!TAILQ_EMPTY(&rs->eng[e->id].overflow))
		rds_recv_flush_overflow(e, rs);
	if (!TAILQ_EMPTY(&rs->eng[e->id].notify_overflow))
		rds_notify_flush_overflow(e, rs);
	return n;
}

/* Local congestion maps that changed go to every connection of their
 * address that crosses a network. */
static void
rds_engine_cong_check(struct rds_engine *e)
{
	struct rds_conn *c;
	unsigned int i;
	uint32_t gen;

	for (i = 0; i < rds_lib->nb_laddrs; i++) {
		struct rds_laddr *la = &rds_lib->laddrs[i];

		gen = __atomic_load_n(&la->cong->gen, __ATOMIC_ACQUIRE);
		if (gen == e->cong_gen_seen[i])
			continue;
		e->cong_gen_seen[i] = gen;
		TAILQ_FOREACH(c, &e->conns, link) {
			if (c->la == la &&
			    !(c->trans->flags & RDS_TRANS_F_LOOPBACK) &&
			    c->map_gen_sent != gen) {
				c->map_queued = true;
				rds_stat_inc(e, s_cong_update_queued);
			}
		}
	}
}

unsigned int
rds_engine_run_once(struct rds_engine *e)
{
	struct rds_conn *c, *next;
	unsigned int work = 0, i, t;
	uint64_t now;
	void *p;
	bool closed;

	while (rte_ring_dequeue(e->admin, &p) == 0) {
		uintptr_t v = (uintptr_t)p;

		if (v & 1) {
			/* An info request: fill, then tell the caller. */
			struct rds_msg *m = (struct rds_msg *)(v & ~(uintptr_t)1);

			rds_info_engine_answer(e, m);
		} else {
			struct rds_sock *rs = p;

			if (!rs->eng[e->id].polled) {
				e->socks[e->nb_socks++] = rs;
				rs->eng[e->id].polled = true;
			}
		}
		work++;
	}
	for (i = 0; i < e->nb_socks; ) {
		work += rds_engine_drain_chan(e, e->socks[i], &closed);
		if (!closed)
			i++;
	}
	for (t = 0; t < rds_transport_count(); t++) {
		const struct rds_transport *tr = rds_transport_at(t);

		if (tr->poll != NULL)
			work += tr->poll(e);
	}
	if (rds_lib->nb_laddrs != 0)
		rds_engine_cong_check(e);
	now = rte_rdtsc();
	for (c = TAILQ_FIRST(&e->conns); c != NULL; c = next) {
		next = TAILQ_NEXT(c, link);
		work += rds_conn_run(c, now);
	}
	e->stats.s_polls++;
	if (work == 0)
		e->stats.s_idle_polls++;
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

	e = rds_mem_zalloc("rds_engine", sizeof(*e));
	if (e == NULL)
		return NULL;
	e->id = id;
	e->lcore_id = ec->lcore_id;
	e->idle = ec->idle;
	e->idle_polls = ec->idle_polls != 0 ? ec->idle_polls : 1024;
	e->idle_sleep_us = ec->idle_sleep_us != 0 ? ec->idle_sleep_us : 50;
	rte_spinlock_init(&e->poll_lock);
	TAILQ_INIT(&e->conns);
	e->seed = rte_rand();
	snprintf(name, sizeof(name), "rds_admin_%u", id);
	e->admin = rte_ring_create(name, RDS_ADMIN_RING_SIZE,
				   rds_lib->conf.socket_id, RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "rds_conn_%u", id);
	hp.name = name;
	e->conn_hash = rte_hash_create(&hp);
	e->socks = rds_mem_zalloc("rds_engine_socks",
				  sizeof(*e->socks) * rds_lib->max_sockets);
	if (e->admin == NULL || e->conn_hash == NULL || e->socks == NULL) {
		rte_ring_free(e->admin);
		rte_hash_free(e->conn_hash);
		rds_mem_free(e->socks);
		rds_mem_free(e);
		return NULL;
	}
	return e;
}

static void
rds_engine_destroy(struct rds_engine *e)
{
	struct rds_conn *c;
	unsigned int t;

	while ((c = TAILQ_FIRST(&e->conns)) != NULL)
		rds_conn_destroy(c);
	for (t = 0; t < rds_transport_count(); t++) {
		const struct rds_transport *tr = rds_transport_at(t);

		if (tr->engine_fini != NULL)
			tr->engine_fini(e);
	}
	rte_ring_free(e->admin);
	rte_hash_free(e->conn_hash);
	rds_mem_free(e->socks);
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
		ret = rte_eal_remote_launch(rds_engine_main, e, e->lcore_id);
		if (ret != 0)
			return RDS_ERR(-ret);
		e->launched = true;
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
		e->launched = false;
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

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Engines' life: creation and tear-down (the admin ring, the connection
 * hash, the hand-off queues, each transport's per-engine state), the
 * check of the lcores asked for, the launch of engines that have their
 * own lcore and their loop with its idle policy (busy, pause, yield or
 * sleep after N empty passes), stop, and the transports an engine polls.
 * The pass itself is in rds_engine.c.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_hash.h>
#include <rte_jhash.h>
#include <rte_pause.h>

#include "rds_private.h"

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
	e->now = rds_tsc();
	rte_spinlock_init(&e->poll_lock);
	rte_spinlock_init(&e->bell_lock);
	TAILQ_INIT(&e->bells);
	TAILQ_INIT(&e->pending);
	TAILQ_INIT(&e->conns);
	TAILQ_INIT(&e->ready);
	rds_wheel_init(&e->wheel, rds_tsc(), rds_lib->tsc_hz);
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

unsigned int
rte_rds_engine_count(void)
{
	return rds_lib != NULL ? rds_lib->nb_engines : 0;
}

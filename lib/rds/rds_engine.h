/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Engines: struct rds_engine, its counters, its ready list and the calls
 * of rds_engine*.c. Part of rds_private.h, which includes it after
 * rds_conn.h: include that, not this.
 */
#ifndef RDS_ENGINE_H
#define RDS_ENGINE_H

#ifndef RDS_PRIVATE_H
#error "include rds_private.h, not rds_engine.h"
#endif

/* ------------------------------------------------------------------ */
/* Engines. */

TAILQ_HEAD(rds_conn_list, rds_conn);
TAILQ_HEAD(rds_sock_list, rds_sock);
TAILQ_HEAD(rds_bell_list, rds_bell);

struct rds_engine {
	unsigned int id;
	uint32_t lcore_id;		/* RTE_RDS_ENGINE_INLINE for inline */
	enum rte_rds_idle_policy idle;
	uint32_t idle_polls;
	uint32_t idle_sleep_us;
	rte_spinlock_t poll_lock;	/* one poller at a time (inline) */
	volatile bool stop;
	bool launched;
	uint64_t pass;			/* passes completed (atomic): close
					 * waits for one after it unhooked a
					 * socket */
	bool no_conn_said;		/* rds_send_no_conn logged once */
	uint64_t now;			/* TSC at the start of this pass */
	uint64_t late_tsc;		/* s_late_passes beyond this gap
					 * (UINT64_MAX: inline, never) */

	/* Doorbells: the rings of the threads that rang us. */
	rte_spinlock_t bell_lock;	/* the list, for threads to add to */
	struct rds_bell_list bells;	/* under bell_lock */
	uint32_t bell_gen;		/* bumped on a change (atomic) */
	uint32_t bell_gen_seen;
	unsigned int nb_bells;
	struct rds_bell **bell_arr;	/* engine's copy of the list */
	unsigned int bell_cap;

	struct rds_sock_list pending;	/* sockets with requests left */

	/* Messages from other engines: one queue per source engine. */
	struct rds_queue *hand_in;	/* [src engine] */
	uint64_t hand_out;		/* messages handed to others */

	struct rte_ring *admin;		/* MP/SC: info requests, calls from
					 * threads that are not engines */
	unsigned int nb_clients;	/* attached processes it serves */

	struct rte_hash *conn_hash;
	/* The last connections found in conn_hash, by rds_conn_cache_slot():
	 * a frame's lookup is mostly one of these (the engine alone uses
	 * them; rds_conn_destroy clears its entry). */
	struct rds_conn *conn_cache[RDS_CONN_CACHE];
	struct rds_conn_list conns;
	unsigned int nb_conns;
	struct rds_conn_list ready;	/* connections with work */
	struct rds_wheel wheel;

	/* Resets for wrong RDMA keys (rds_rdma_guard.c) are logged at most
	 * once a second per engine. */
	uint64_t key_log_tsc;		/* the last line */
	uint32_t key_log_quiet;		/* resets since, not logged */

	uint32_t *cong_gen_seen;	/* [laddr] */
	uint32_t cong_local_seen;	/* rds_cong_local_generation */
	uint32_t empty_polls;
	void *tp[RDS_MAX_TRANSPORTS];	/* per-transport engine state */
	/* Transports with a poll op active on this engine. */
	const struct rds_transport *polled[RDS_MAX_TRANSPORTS];
	unsigned int nb_polled;

	struct rte_rds_stats stats __rte_cache_aligned;
};

#define rds_stat_inc(e, f) ((e)->stats.f++)
#define rds_stat_add(e, f, n) ((e)->stats.f += (n))

static inline void
rds_conn_ready(struct rds_conn *c)
{
	if (!c->ready) {
		c->ready = true;
		TAILQ_INSERT_TAIL(&c->eng->ready, c, ready_link);
	}
}

/* rds_engine.c, rds_engine_call.c, rds_engine_life.c */
int rds_engines_init(const struct rte_rds_conf *conf);
void rds_engines_stop(void);
void rds_engines_fini(void);
unsigned int rds_engine_run_once(struct rds_engine *e);
int rds_engine_try_poll(struct rds_engine *e);
/* Every engine has finished the pass it was in when this was called. */
void rds_engines_quiesce(void);
/* Engine e's poll op of transport t runs every pass from now on. */
void rds_engine_poll_transport(struct rds_engine *e,
			       const struct rds_transport *t);
/* Hand a message to engine dst, in order with what e handed it before. */
void rds_engine_handoff(struct rds_engine *e, unsigned int dst,
			struct rds_msg *m);
/* Run fn(dst engine, arg) on engine dst, in its pass, from a thread that
 * is not an engine, waiting until it ran (driving inline engines
 * meanwhile). 0 or -ENOMEM. */
int rds_engine_call_wait(unsigned int dst, rds_engine_fn fn, void *arg);
/* Free a doorbell ring and its bell (rds_engine.c: a thread's that
 * exited; rds_engine_life.c: every one left at tear-down). */
void rds_bell_free(struct rds_bell *b);

#endif /* RDS_ENGINE_H */

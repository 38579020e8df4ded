/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Threads (rds_thread.c): the per-thread state found through one TLS
 * pointer (buffer caches, doorbell rings) and the inline doorbell. Part
 * of rds_private.h, which includes it after rds_addr.h: include that,
 * not this.
 */
#ifndef RDS_THREAD_H
#define RDS_THREAD_H

#ifndef RDS_PRIVATE_H
#error "include rds_private.h, not rds_thread.h"
#endif

/* ------------------------------------------------------------------ */
/* Threads (rds_thread.c): what the library keeps per thread, found
 * through one initial-exec TLS pointer (no __tls_get_addr per call):
 * the buffer caches and one doorbell ring per engine, made on the
 * thread's first ring of that engine and found by the engine through
 * its bell list. Freed by a thread-exit destructor. */

#define RDS_BUF_NB_CLASSES 15		/* 64 B .. 1 MiB of payload */
#define RDS_BUF_TC_CLASSES 9		/* from slabs, with thread caches:
					 * up to 16 KiB of payload */
#define RDS_BUF_TCACHE 32		/* buffers per thread per class */

struct rds_free_buf;

struct rds_bell {
	struct rte_ring *r;		/* SP: the thread, SC: the engine */
	uint32_t dead;			/* the thread exited (atomic) */
	TAILQ_ENTRY(rds_bell) link;	/* engine's list, under bell_lock */
};

struct rds_thread {
	uint32_t epoch;			/* library instance it belongs to */
	struct rds_bell *bell[RTE_RDS_MAX_ENGINES];
	uint16_t tc_n[RDS_BUF_TC_CLASSES];
	struct rds_free_buf *tc[RDS_BUF_TC_CLASSES][RDS_BUF_TCACHE];
};

extern __thread struct rds_thread *rds_self
	__attribute__((tls_model("initial-exec"))) RDS_HIDDEN;
extern uint32_t rds_epoch RDS_HIDDEN;		/* bumped by every init and fini */

struct rds_thread *rds_thread_slow(void);

/* This thread's state for the running instance (NULL: no memory). */
static inline struct rds_thread *
rds_thread_get(void)
{
	struct rds_thread *t = rds_self;

	if (likely(t != NULL &&
		   t->epoch == __atomic_load_n(&rds_epoch, __ATOMIC_RELAXED)))
		return t;
	return rds_thread_slow();
}

void rds_bell_ring_slow(struct rds_engine *e, struct rds_sock *rs);
void rds_thread_lib_init(void);
void rds_thread_lib_fini(void);

/* Ring engine e (number eid) for socket rs, whose rs->queued went
 * 0 -> 1. */
static inline void
rds_bell_ring(struct rds_engine *e, unsigned int eid, struct rds_sock *rs)
{
	struct rds_thread *t = rds_self;
	struct rds_bell *b;

	if (likely(t != NULL) &&
	    likely(t->epoch == __atomic_load_n(&rds_epoch, __ATOMIC_RELAXED)) &&
	    likely((b = t->bell[eid]) != NULL) &&
	    likely(rte_ring_sp_enqueue(b->r, rs) == 0))
		return;
	rds_bell_ring_slow(e, rs);
}

#endif /* RDS_THREAD_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-thread state: buffer caches (rds_buf.c) and doorbell rings.
 *
 * A thread that makes a socket's request queue non-empty pushes the
 * socket into a single-producer ring of its own, one per engine, made on
 * its first ring of that engine. Engines read the rings of the threads
 * that rang them, never every socket, and no producer ever waits for
 * another (a shared multi-producer ring stalls every producer behind one
 * that was preempted mid-enqueue). The ring memory comes from libc and
 * is used through rte_ring's inline functions: no EAL call here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>

#include <rte_pause.h>

#include "rds_private.h"

__thread struct rds_thread *rds_self
	__attribute__((tls_model("initial-exec")));
uint32_t rds_epoch;

static pthread_key_t rds_thread_key;
static pthread_once_t rds_thread_once = PTHREAD_ONCE_INIT;
/* Serialises thread exit against library tear-down. */
static pthread_mutex_t rds_thread_lock = PTHREAD_MUTEX_INITIALIZER;

static void
rds_thread_exit(void *arg)
{
	struct rds_thread *t = arg;
	unsigned int i;

	pthread_mutex_lock(&rds_thread_lock);
	if (t->epoch == rds_epoch && rds_lib != NULL) {
		rds_self = t;
		rds_buf_thread_flush();
		/* The engines free our rings once they are empty. */
		for (i = 0; i < RTE_RDS_MAX_ENGINES; i++)
			if (t->bell[i] != NULL)
				__atomic_store_n(&t->bell[i]->dead, 1,
						 __ATOMIC_RELEASE);
	}
	rds_self = NULL;
	pthread_mutex_unlock(&rds_thread_lock);
	free(t);
}

static void
rds_thread_key_make(void)
{
	if (pthread_key_create(&rds_thread_key, rds_thread_exit) != 0)
		RDS_LOG(ERR, "pthread_key_create failed");
}

/* First call of this thread, or first since the library was set up
 * again: (re)start with empty caches and no rings. */
struct rds_thread *
rds_thread_slow(void)
{
	struct rds_thread *t = rds_self;

	if (t == NULL) {
		pthread_once(&rds_thread_once, rds_thread_key_make);
		t = calloc(1, sizeof(*t));
		if (t == NULL)
			return NULL;
		if (pthread_setspecific(rds_thread_key, t) != 0) {
			free(t);
			return NULL;
		}
		rds_self = t;
	} else {
		/* What it held belonged to a freed instance. */
		memset(t, 0, sizeof(*t));
	}
	t->epoch = __atomic_load_n(&rds_epoch, __ATOMIC_ACQUIRE);
	return t;
}

void
rds_thread_lib_init(void)
{
	pthread_mutex_lock(&rds_thread_lock);
	__atomic_fetch_add(&rds_epoch, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&rds_thread_lock);
}

/* Before the engines and buffers go: from now on an exiting thread
 * leaves them alone, and a live one starts afresh at its next call. */
void
rds_thread_lib_fini(void)
{
	pthread_mutex_lock(&rds_thread_lock);
	__atomic_fetch_add(&rds_epoch, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&rds_thread_lock);
}

/* A new doorbell ring of this thread for engine e. */
static struct rds_bell *
rds_bell_new(struct rds_thread *t, struct rds_engine *e)
{
	char name[RTE_RING_NAMESIZE];
	struct rds_bell *b;
	ssize_t sz;

	sz = rte_ring_get_memsize(RDS_BELL_RING_SIZE);
	if (sz < 0)
		return NULL;
	b = rds_mem_zalloc("rds_bell", sizeof(*b));
	if (b == NULL)
		return NULL;
	b->r = rds_mem_zalloc("rds_bell_ring", (size_t)sz);
	snprintf(name, sizeof(name), "rds_bell_%u_%p", e->id, (void *)t);
	if (b->r == NULL || rte_ring_init(b->r, name, RDS_BELL_RING_SIZE,
					  RING_F_SP_ENQ | RING_F_SC_DEQ) != 0) {
		rds_mem_free(b->r);
		rds_mem_free(b);
		return NULL;
	}
	rte_spinlock_lock(&e->bell_lock);
	TAILQ_INSERT_TAIL(&e->bells, b, link);
	__atomic_fetch_add(&e->bell_gen, 1, __ATOMIC_RELEASE);
	rte_spinlock_unlock(&e->bell_lock);
	t->bell[e->id] = b;
	return b;
}

/*
 * Tell engine e that socket rs has requests. The doorbell must not be
 * lost (the socket's queued flag stays set until the engine takes it):
 * when the ring is full or cannot be made, wait for the engine, driving
 * it if it is inline.
 */
void
rds_bell_ring_slow(struct rds_engine *e, struct rds_sock *rs)
{
	struct rds_thread *t;
	struct rds_bell *b;
	uint64_t spins = 0;

	for (;;) {
		t = rds_thread_get();
		b = t != NULL ? t->bell[e->id] : NULL;
		if (b == NULL && t != NULL)
			b = rds_bell_new(t, e);
		if (likely(b != NULL) &&
		    likely(rte_ring_sp_enqueue(b->r, rs) == 0))
			return;
		if (e->lcore_id == RTE_RDS_ENGINE_INLINE)
			rds_engine_try_poll(e);
		if (++spins > 64)
			sched_yield();
		else
			rte_pause();
	}
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Work for an engine from elsewhere: messages and calls one engine
 * hands to another (in order with what it handed before), calls from a
 * thread that is not an engine (through the admin ring, waiting until
 * they ran), and the wait until every engine has finished the pass it
 * was in (rds_engines_quiesce). The engine takes them in its pass
 * (rds_engine.c).
 */
#include <errno.h>
#include <sched.h>

#include <rte_pause.h>

#include "rds_private.h"

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

/* ---------------------------------------------------------------- */
/* Waiting for the engines. */

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

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Timers (rds_timer.c): the hashed wheel of each engine. Part of
 * rds_private.h, which includes it before rds_conn.h: include that, not
 * this.
 */
#ifndef RDS_TIMER_H
#define RDS_TIMER_H

#ifndef RDS_PRIVATE_H
#error "include rds_private.h, not rds_timer.h"
#endif

/* ------------------------------------------------------------------ */
/* Timers (rds_timer.c): a wheel per engine, driven by its run loop. */

struct rds_timer;
typedef void (*rds_timer_fn)(struct rds_engine *e, struct rds_timer *t);

struct rds_timer {
	TAILQ_ENTRY(rds_timer) link;
	uint64_t expire;		/* TSC */
	rds_timer_fn fn;
	bool armed;
};

#define RDS_WHEEL_SLOTS 1024
TAILQ_HEAD(rds_timer_list, rds_timer);

struct rds_wheel {
	uint64_t tick;			/* next tick to process */
	/* No armed timer is due before this tick (a lower bound, UINT64_MAX
	 * with nothing armed): the engine runs the wheel from it on, not at
	 * every tick (rds_wheel_run() sets it to the next slot in use). */
	uint64_t due;
	uint32_t shift;			/* TSC cycles per tick = 1 << shift */
	uint32_t nb_armed;
	uint64_t busy[RDS_WHEEL_SLOTS / 64];	/* the slots not empty */
	struct rds_timer_list slots[RDS_WHEEL_SLOTS];
};

void rds_wheel_init(struct rds_wheel *w, uint64_t now, uint64_t tsc_hz);
void rds_timer_init(struct rds_timer *t, rds_timer_fn fn);
/* Arm (or re-arm) t to fire at TSC expire. */
void rds_timer_arm(struct rds_engine *e, struct rds_timer *t,
		   uint64_t expire);
void rds_timer_cancel(struct rds_engine *e, struct rds_timer *t);
/* Fire what is due; returns the number fired. */
unsigned int rds_wheel_run(struct rds_engine *e, uint64_t now);

#endif /* RDS_TIMER_H */

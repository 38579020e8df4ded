/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Engine timers: a hashed timer wheel per engine (delayed ACKs,
 * reconnect backoff, transport timers). rte_timer's per-lcore lists do
 * not fit inline engines, which whichever thread holds them polls; this
 * wheel belongs to its engine and runs in its pass. A tick is about
 * 12 us; a deadline past one turn of the wheel sits in its slot until
 * the turn that reaches it. An engine with nothing armed pays one
 * comparison per pass.
 */
#include "rds_private.h"

void
rds_wheel_init(struct rds_wheel *w, uint64_t now, uint64_t tsc_hz)
{
	unsigned int i;

	/* About 12 us a tick whatever the TSC rate. */
	w->shift = 0;
	while ((tsc_hz >> w->shift) > 80000)
		w->shift++;
	w->tick = now >> w->shift;
	w->nb_armed = 0;
	for (i = 0; i < RDS_WHEEL_SLOTS; i++)
		TAILQ_INIT(&w->slots[i]);
}

void
rds_timer_init(struct rds_timer *t, rds_timer_fn fn)
{
	memset(t, 0, sizeof(*t));
	t->fn = fn;
}

void
rds_timer_cancel(struct rds_engine *e, struct rds_timer *t)
{
	struct rds_wheel *w = &e->wheel;

	if (!t->armed)
		return;
	TAILQ_REMOVE(&w->slots[(t->expire >> w->shift) % RDS_WHEEL_SLOTS], t,
		     link);
	t->armed = false;
	w->nb_armed--;
}

void
rds_timer_arm(struct rds_engine *e, struct rds_timer *t, uint64_t expire)
{
	struct rds_wheel *w = &e->wheel;
	uint64_t tick = expire >> w->shift;

	rds_timer_cancel(e, t);
	/* Never behind the wheel: a past deadline fires at the next run. */
	if (tick < w->tick) {
		tick = w->tick;
		expire = tick << w->shift;
	}
	t->expire = expire;
	TAILQ_INSERT_TAIL(&w->slots[tick % RDS_WHEEL_SLOTS], t, link);
	t->armed = true;
	w->nb_armed++;
}

/* Fire the due timers of one slot. */
static unsigned int
rds_wheel_slot(struct rds_engine *e, struct rds_timer_list *l, uint64_t now)
{
	struct rds_wheel *w = &e->wheel;
	struct rds_timer *t, *next;
	unsigned int fired = 0;

	for (t = TAILQ_FIRST(l); t != NULL; t = next) {
		next = TAILQ_NEXT(t, link);
		if ((t->expire >> w->shift) > (now >> w->shift))
			continue;	/* a later turn of the wheel */
		TAILQ_REMOVE(l, t, link);
		t->armed = false;
		w->nb_armed--;
		t->fn(e, t);	/* may re-arm t, or arm others */
		fired++;
		/* The callback may have changed the list: start over. */
		next = TAILQ_FIRST(l);
	}
	return fired;
}

unsigned int
rds_wheel_run(struct rds_engine *e, uint64_t now)
{
	struct rds_wheel *w = &e->wheel;
	uint64_t tick = now >> w->shift, n;
	unsigned int fired = 0;

	if (likely(tick < w->tick))
		return 0;	/* still in the tick processed last */
	if (w->nb_armed == 0) {
		w->tick = tick + 1;
		return 0;
	}
	/* Every slot once at most, even after a long sleep. */
	n = tick - w->tick + 1;
	if (n > RDS_WHEEL_SLOTS)
		n = RDS_WHEEL_SLOTS;
	for (; n > 0 && w->nb_armed != 0; n--, w->tick++)
		fired += rds_wheel_slot(e,
			&w->slots[w->tick % RDS_WHEEL_SLOTS], now);
	w->tick = tick + 1;
	return fired;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Engine timers: a hashed timer wheel per engine (delayed ACKs,
 * reconnect backoff, transport timers). rte_timer's per-lcore lists do
 * not fit inline engines, which whichever thread holds them polls; this
 * wheel belongs to its engine and runs in its pass. A tick is about
 * 12 us; a deadline past one turn of the wheel sits in its slot until
 * the turn that reaches it. The engine runs the wheel only from the
 * tick of the nearest slot in use on (w->due, kept from a bitmap of the
 * slots in use), so that timers far out (a retransmit timer seconds
 * away) do not make it visit every empty slot of a turn; a pass with
 * nothing due pays one comparison.
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
	w->due = UINT64_MAX;
	w->nb_armed = 0;
	memset(w->busy, 0, sizeof(w->busy));
	for (i = 0; i < RDS_WHEEL_SLOTS; i++)
		TAILQ_INIT(&w->slots[i]);
}

void
rds_timer_init(struct rds_timer *t, rds_timer_fn fn)
{
	memset(t, 0, sizeof(*t));
	t->fn = fn;
}

/* Take t out of its slot (index i), the slot's bit with the last one. */
static inline void
rds_wheel_remove(struct rds_wheel *w, struct rds_timer *t, unsigned int i)
{
	TAILQ_REMOVE(&w->slots[i], t, link);
	if (TAILQ_EMPTY(&w->slots[i]))
		w->busy[i / 64] &= ~(UINT64_C(1) << (i % 64));
	t->armed = false;
	w->nb_armed--;
}

void
rds_timer_cancel(struct rds_engine *e, struct rds_timer *t)
{
	struct rds_wheel *w = &e->wheel;

	if (!t->armed)
		return;
	/* w->due stays: a lower bound still. */
	rds_wheel_remove(w, t,
			 (t->expire >> w->shift) % RDS_WHEEL_SLOTS);
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
	w->busy[(tick % RDS_WHEEL_SLOTS) / 64] |=
		UINT64_C(1) << (tick % 64);
	t->armed = true;
	w->nb_armed++;
	if (tick < w->due)
		w->due = tick;
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
		rds_wheel_remove(w, t, (unsigned int)(l - w->slots));
		t->fn(e, t);	/* may re-arm t, or arm others */
		fired++;
		/* The callback may have changed the list: start over. */
		next = TAILQ_FIRST(l);
	}
	return fired;
}

/* The distance from slot p to the nearest slot in use at or after it
 * (circularly), RDS_WHEEL_SLOTS when none is. */
static unsigned int
rds_wheel_next_busy(const struct rds_wheel *w, unsigned int p)
{
	unsigned int wi = p / 64, i, j;
	uint64_t m = w->busy[wi] & (~UINT64_C(0) << (p % 64));

	if (m != 0)
		return wi * 64 + (unsigned int)__builtin_ctzll(m) - p;
	for (i = 1; i <= RDS_WHEEL_SLOTS / 64; i++) {
		j = (wi + i) % (RDS_WHEEL_SLOTS / 64);
		m = w->busy[j];
		if (i == RDS_WHEEL_SLOTS / 64)	/* p's word again: below p */
			m &= (UINT64_C(1) << (p % 64)) - 1;
		if (m != 0)
			return (j * 64 + (unsigned int)__builtin_ctzll(m) +
				RDS_WHEEL_SLOTS - p) % RDS_WHEEL_SLOTS;
	}
	return RDS_WHEEL_SLOTS;
}

unsigned int
rds_wheel_run(struct rds_engine *e, uint64_t now)
{
	struct rds_wheel *w = &e->wheel;
	uint64_t tick = now >> w->shift, n, d;
	unsigned int fired = 0;

	if (likely(tick < w->tick || tick < w->due))
		return 0;	/* nothing can be due yet */
	/* No timer is due before w->due: the slots from w->tick to it are
	 * empty or hold later turns. */
	if (w->due > w->tick)
		w->tick = w->due;
	/* Every slot once at most, even after a long sleep. */
	n = tick - w->tick + 1;
	if (n > RDS_WHEEL_SLOTS)
		n = RDS_WHEEL_SLOTS;
	/* From slot in use to slot in use (the bitmap), not through every
	 * empty one between: a run after a long quiet spell visits only
	 * the slots that hold timers. */
	for (; n > 0 && w->nb_armed != 0; n--, w->tick++) {
		d = rds_wheel_next_busy(w, (unsigned int)(w->tick %
							RDS_WHEEL_SLOTS));
		if (d >= n)
			break;
		w->tick += d;
		n -= d;
		fired += rds_wheel_slot(e,
			&w->slots[w->tick % RDS_WHEEL_SLOTS], now);
	}
	w->tick = tick + 1;
	/* Every timer still armed is at tick + 1 or later, in a slot in use:
	 * the nearest such slot is the next tick that can be due. */
	d = w->nb_armed == 0 ? RDS_WHEEL_SLOTS :
		rds_wheel_next_busy(w, (unsigned int)(w->tick %
						       RDS_WHEEL_SLOTS));
	w->due = d == RDS_WHEEL_SLOTS ? UINT64_MAX : w->tick + d;
	return fired;
}

#ifdef RDS_FUZZ_CLOCK
struct rds_fuzz_clock rds_fuzz_clock;
#endif

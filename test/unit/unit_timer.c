/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine's timer wheel (suite 'unit', binary unit_timer): rds_timer.c
 * against a model, on a wheel of its own (no engine thread, no EAL
 * time: the test sets the clock).
 *
 * - far_and_near: a timer several turns out and one a few ticks out;
 *   the wheel runs the near one at its tick, and the far one at its own
 *   tick, not a turn early at its slot; rds_wheel_run() returns 0 at
 *   every tick in between without firing anything.
 * - cancel_and_past: a cancelled timer never fires (and the wheel ends
 *   with nothing armed); a deadline behind the wheel fires at the next
 *   run; a long sleep (more than a turn) fires every due timer once.
 * - model: 20,000 random steps over 256 timers: arm (near, a turn or
 *   more out, in the past), cancel, re-arm from a callback, and clock
 *   steps from 0 to 3 turns. After every run, each timer whose tick has
 *   come (for a deadline armed behind the wheel, the wheel's next tick)
 *   has fired exactly once since its last arming and none fired before
 *   its tick; the wheel's count of armed timers matches.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include <rte_rds.h>

#include "rds_private.h"
#include "rds_test.h"

#define SHIFT_HZ (UINT64_C(1) << 30)	/* rds_wheel_init's tsc_hz */
#define NB_T 256

struct mt {
	struct rds_timer t;
	uint64_t expire;	/* as armed, before the wheel's clamp */
	uint64_t due;		/* its tick, or the wheel's next if behind */
	unsigned int fired;	/* since the last arming */
	bool armed;		/* in the model */
	bool rearm;		/* its callback re-arms it */
};

static struct rds_engine *eng;
static struct mt mts[NB_T];
static uint64_t now;
static unsigned int early, extra;

static uint64_t
tk(uint64_t tsc)
{
	return tsc >> eng->wheel.shift;
}

static void
mt_fire(struct rds_engine *e, struct rds_timer *t)
{
	struct mt *m = (struct mt *)t;

	CU_ASSERT(e == eng);
	if (!m->armed || m->fired != 0)
		extra++;
	if (tk(m->expire) > tk(now))
		early++;
	m->fired++;
	m->armed = false;
	if (m->rearm) {
		m->rearm = false;
		m->expire = now + ((uint64_t)(rand() % 64) << eng->wheel.shift);
		m->fired = 0;
		m->armed = true;
		m->due = RTE_MAX(tk(m->expire), eng->wheel.tick);
		rds_timer_arm(e, &m->t, m->expire);
	}
}

static void
wheel_new(uint64_t start)
{
	unsigned int i;

	free(eng);
	eng = calloc(1, sizeof(*eng));
	CU_ASSERT_FATAL(eng != NULL);
	now = start;
	rds_wheel_init(&eng->wheel, now, SHIFT_HZ);
	memset(mts, 0, sizeof(mts));
	for (i = 0; i < NB_T; i++)
		rds_timer_init(&mts[i].t, mt_fire);
	early = extra = 0;
}

static void
arm(struct mt *m, uint64_t expire)
{
	m->expire = expire;
	m->fired = 0;
	m->armed = true;
	/* A deadline behind the wheel is due at the wheel's next tick. */
	m->due = RTE_MAX(tk(expire), eng->wheel.tick);
	rds_timer_arm(eng, &m->t, expire);
}

/* What rds_engine_run_once() does with the wheel. */
static unsigned int
run(void)
{
	if (tk(now) >= eng->wheel.due)
		return rds_wheel_run(eng, now);
	return 0;
}

static uint64_t
ticks(uint64_t n)
{
	return n << eng->wheel.shift;
}

static void
test_far_and_near(void)
{
	uint64_t i, far = 3 * RDS_WHEEL_SLOTS + 17;
	unsigned int n = 0;

	wheel_new(12345);
	arm(&mts[0], now + ticks(far));
	arm(&mts[1], now + ticks(5));
	for (i = 1; i <= far + 2; i++) {
		now += ticks(1);
		n = run();
		if (i == 5 || i == far) {
			CU_ASSERT_EQUAL(n, 1);
		} else if (n != 0) {
			break;
		}
		if (i < 5)
			CU_ASSERT_EQUAL(mts[1].fired, 0);
		if (i < far)
			CU_ASSERT_EQUAL(mts[0].fired, 0);
	}
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_EQUAL(mts[0].fired, 1);
	CU_ASSERT_EQUAL(mts[1].fired, 1);
	CU_ASSERT_EQUAL(eng->wheel.nb_armed, 0);
	CU_ASSERT_EQUAL(eng->wheel.due, UINT64_MAX);
	CU_ASSERT_EQUAL(early + extra, 0);
}

static void
test_cancel_and_past(void)
{
	unsigned int i;

	wheel_new(UINT64_C(5) * RDS_WHEEL_SLOTS * 4096 * 1000 + 99);
	arm(&mts[0], now + ticks(3));
	arm(&mts[1], now + ticks(4));
	rds_timer_cancel(eng, &mts[0].t);
	mts[0].armed = false;
	now += ticks(10);
	CU_ASSERT_EQUAL(run(), 1);
	CU_ASSERT_EQUAL(mts[0].fired, 0);
	CU_ASSERT_EQUAL(mts[1].fired, 1);
	/* Behind the wheel: the next run. */
	arm(&mts[2], now - ticks(50));
	now += ticks(1);
	CU_ASSERT_EQUAL(run(), 1);
	CU_ASSERT_EQUAL(mts[2].fired, 1);
	/* A long sleep: every due timer once, the far one not. */
	for (i = 3; i < 40; i++)
		arm(&mts[i], now + ticks(i * 50));
	arm(&mts[40], now + ticks(9 * RDS_WHEEL_SLOTS));
	now += ticks(2 * RDS_WHEEL_SLOTS + 3);
	CU_ASSERT_EQUAL(run(), 37);
	for (i = 3; i < 40; i++)
		CU_ASSERT_EQUAL(mts[i].fired, 1);
	CU_ASSERT_EQUAL(mts[40].fired, 0);
	CU_ASSERT_EQUAL(eng->wheel.nb_armed, 1);
	now += ticks(7 * RDS_WHEEL_SLOTS);
	CU_ASSERT_EQUAL(run(), 1);
	CU_ASSERT_EQUAL(mts[40].fired, 1);
	CU_ASSERT_EQUAL(eng->wheel.nb_armed, 0);
	CU_ASSERT_EQUAL(early + extra, 0);
}

static void
test_model(void)
{
	unsigned int step, i, late = 0, armed, fired = 0;
	uint64_t d;

	srand(7);
	wheel_new(UINT64_C(123456789) * 1000);
	for (step = 0; step < 20000; step++) {
		struct mt *m = &mts[rand() % NB_T];

		switch (rand() % 8) {
		case 0: case 1: case 2:	/* near */
			arm(m, now + ticks(rand() % 200));
			break;
		case 3:			/* a turn or more out */
			arm(m, now + ticks(RDS_WHEEL_SLOTS +
					   rand() % (3 * RDS_WHEEL_SLOTS)));
			break;
		case 4:			/* behind the wheel */
			arm(m, now - ticks(rand() % 300));
			break;
		case 5:
			rds_timer_cancel(eng, &m->t);
			m->armed = false;
			break;
		case 6:
			if (m->armed)
				m->rearm = true;
			break;
		default:
			break;
		}
		/* The clock: mostly small steps, sometimes turns. */
		i = (unsigned int)rand() % 100;
		d = i < 60 ? (uint64_t)rand() % 4 :
		    i < 97 ? (uint64_t)rand() % 300 :
		    (uint64_t)rand() % (3 * RDS_WHEEL_SLOTS);
		now += ticks(d) + (uint64_t)(rand() % 1000);
		fired += run();
		armed = 0;
		for (i = 0; i < NB_T; i++) {
			if (mts[i].armed) {
				armed++;
				if (mts[i].due <= tk(now))
					late++;	/* due, not fired */
			}
		}
		CU_ASSERT_EQUAL_FATAL(armed, eng->wheel.nb_armed);
	}
	printf("\n  %u fired; %u early, %u twice or cancelled, %u late\n",
	       fired, early, extra, late);
	CU_ASSERT(fired > 5000);
	CU_ASSERT_EQUAL(early, 0);
	CU_ASSERT_EQUAL(extra, 0);
	CU_ASSERT_EQUAL(late, 0);
	free(eng);
	eng = NULL;
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "far_and_near", test_far_and_near },
		{ "cancel_and_past", test_cancel_and_past },
		{ "model", test_model },
		{ NULL, NULL },
	};

	return rds_test_main("unit_timer", "0", cases);
}

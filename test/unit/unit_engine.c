/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Engine loop counters (suite 'unit', binary unit_engine).
 *
 * s_late_passes counts the passes of an engine on its own lcore that
 * began more than 1 ms after the pass before: the sign that its thread
 * was off its CPU (a core shared with other work) or that a pass ran that
 * long. Here a function handed to the engine (rds_engine_call_wait, run
 * inside a pass) sleeps 5 ms, several times: each makes one late pass.
 * An inline engine, driven by the application whenever it calls, never
 * counts one (a gap between two calls is not the engine's delay).
 */

#include <stdio.h>
#include <unistd.h>

#include <CUnit/CUnit.h>

#include <rte_lcore.h>
#include <rte_rds.h>

#include "rds_private.h"
#include "rds_test.h"

#define SLOW_PASSES 5

static void
slow_pass(struct rds_engine *e, void *arg)
{
	RTE_SET_USED(e);
	RTE_SET_USED(arg);
	usleep(5000);
}

static uint64_t
late_after_slow_passes(uint32_t lcore)
{
	struct rte_rds_conf conf;
	struct rte_rds_stats st0, st1;
	unsigned int i;

	rds_test_conf(&conf, lcore, RTE_RDS_IDLE_YIELD);
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
	CU_ASSERT_FATAL(rte_rds_stats_get(-1, &st0) == 0);
	for (i = 0; i < SLOW_PASSES; i++)
		CU_ASSERT(rds_engine_call_wait(0, slow_pass, NULL) == 0);
	CU_ASSERT_FATAL(rte_rds_stats_get(-1, &st1) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
	return st1.s_late_passes - st0.s_late_passes;
}

static void
test_late_passes_lcore(void)
{
	uint64_t late = late_after_slow_passes(rds_test_worker_lcore());

	/* Each slow pass is late itself; a busy host may add more. */
	printf("\n  lcore engine: %d passes of 5 ms -> s_late_passes +%llu\n",
	       SLOW_PASSES, (unsigned long long)late);
	CU_ASSERT(late >= SLOW_PASSES);
}

static void
test_late_passes_inline(void)
{
	uint64_t late = late_after_slow_passes(RTE_RDS_ENGINE_INLINE);

	printf("\n  inline engine: %d passes of 5 ms -> s_late_passes +%llu\n",
	       SLOW_PASSES, (unsigned long long)late);
	CU_ASSERT_EQUAL(late, 0);
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "late_passes_lcore", test_late_passes_lcore },
		{ "late_passes_inline", test_late_passes_inline },
		{ NULL, NULL },
	};

	return rds_test_main("unit_engine", "0,1", cases);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What rxe_ib_batch and rxe_ib_zc share: the library up on the two ib
 * addresses with one inline engine, and the ib counters.
 */
#ifndef RDS_RXE_IB_UTIL_H
#define RDS_RXE_IB_UTIL_H

#include <stdio.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include <rte_rds.h>
#include <rte_rds_ib.h>

#include "rds_test.h"

/* Addresses a and b on ib, each with the driver options opts ("" for
 * none), one inline engine that yields when idle (as rxe_ib). */
static inline void
rxe_ib_lib_up(const char *a, const char *b, const char *opts)
{
	const char *ips[2] = { a, b };
	struct rte_rds_conf conf;
	char spec[128];
	unsigned int i;

	rte_rds_conf_init(&conf);
	conf.engine[0].lcore_id = RTE_RDS_ENGINE_INLINE;
	conf.engine[0].idle = RTE_RDS_IDLE_YIELD;
	for (i = 0; i < 2; i++) {
		snprintf(spec, sizeof(spec), "%s=ib%s%s", ips[i],
			 *opts ? "," : "", opts);
		CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(&conf, spec) == 0);
	}
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
}

static inline struct rte_rds_ib_stats
rxe_ib_stats(void)
{
	struct rte_rds_ib_stats st;

	memset(&st, 0, sizeof(st));
	CU_ASSERT(rte_rds_ib_stats_get(&st) == 0);
	return st;
}

#endif /* RDS_RXE_IB_UTIL_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engines' clock (part of rds_private.h: include that). What the
 * engine's pass, its timer wheel and the per-connection deadlines read
 * is rds_tsc(): the TSC. Calls of the application that wait with a
 * timeout (SO_RCVTIMEO, rte_rds_poll, RDS_INFO) keep the TSC itself.
 *
 * Fuzz builds (test/fuzz, -DRDS_FUZZ_CLOCK) can hold the clock: while
 * rds_fuzz_clock.held is set, rds_tsc() is rds_fuzz_clock.tsc, which
 * only the harness moves (fz_clock_*() in test/fuzz/fuzz_state.h), so
 * that an input's timers (delayed ACK, retransmission, reconnect) fire
 * where the input says and not where the machine's speed puts them,
 * and a wait of the harness costs no real time.
 */
#ifndef RDS_CLOCK_H
#define RDS_CLOCK_H

#ifndef RDS_PRIVATE_H
#error "include rds_private.h, not rds_clock.h"
#endif

#ifdef RDS_FUZZ_CLOCK
struct rds_fuzz_clock {
	bool held;		/* rds_tsc() is tsc, not the TSC */
	uint64_t tsc;
};
extern struct rds_fuzz_clock rds_fuzz_clock;

static inline uint64_t
rds_tsc(void)
{
	if (__atomic_load_n(&rds_fuzz_clock.held, __ATOMIC_ACQUIRE))
		return __atomic_load_n(&rds_fuzz_clock.tsc, __ATOMIC_ACQUIRE);
	return rte_rdtsc();
}
#else
static inline uint64_t
rds_tsc(void)
{
	return rte_rdtsc();
}
#endif

#endif /* RDS_CLOCK_H */

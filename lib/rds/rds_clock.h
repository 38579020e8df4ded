/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The clock seam: every time the library and its drivers read (the TSC,
 * its rate, the wall clock of eth's epochs and of receive timestamps)
 * comes through these three calls. Part of rds_private.h.
 *
 * The normal build compiles them to the plain reads (rte_rdtsc(),
 * rte_get_tsc_hz(), clock_gettime(CLOCK_REALTIME)): no cost, no change.
 * Built with -DRDS_SIM_CLOCK (test/sim's own copy of the library only),
 * they read a virtual clock that the simulation harness advances: a TSC
 * of RDS_SIM_CLOCK_HZ (1 GHz, one cycle a nanosecond) from 0, and a wall
 * clock RDS_SIM_CLOCK_WALL_NS after the epoch plus that time, so that a
 * run depends on its seed and nothing else (test/README.md, suite sim).
 *
 * Built with -DRDS_FUZZ_CLOCK (test/fuzz's copy of the library), the TSC
 * can be held: while rds_fuzz_clock.held is set, rds_clock_tsc() is
 * rds_fuzz_clock.tsc, which only the harness moves (fz_clock_*() in
 * test/fuzz/fuzz_state.h), so that an input's timers (delayed ACK,
 * retransmission, reconnect) fire where the input says and not where
 * the machine's speed puts them; its rate and the wall clock stay real.
 *
 * Not through the seam: the attach client and the engine's server
 * (rds_client*.c, rds_server*.c) read CLOCK_MONOTONIC for their socket
 * deadlines; the simulation does not use them.
 */
#ifndef RDS_CLOCK_H
#define RDS_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <rte_cycles.h>

#ifdef RDS_SIM_CLOCK

/* The virtual TSC; the harness sets it (rds_init.c defines it). */
extern uint64_t rds_sim_clock_now;

#define RDS_SIM_CLOCK_HZ UINT64_C(1000000000)
/* 2026-01-01T00:00:00Z: the virtual wall clock at virtual time 0. */
#define RDS_SIM_CLOCK_WALL_NS (UINT64_C(1767225600) * UINT64_C(1000000000))

static inline uint64_t
rds_clock_tsc(void)
{
	return __atomic_load_n(&rds_sim_clock_now, __ATOMIC_RELAXED);
}

static inline uint64_t
rds_clock_hz(void)
{
	return RDS_SIM_CLOCK_HZ;
}

static inline void
rds_clock_realtime(struct timespec *ts)
{
	uint64_t ns = RDS_SIM_CLOCK_WALL_NS + rds_clock_tsc();

	ts->tv_sec = (time_t)(ns / 1000000000u);
	ts->tv_nsec = (long)(ns % 1000000000u);
}

/* CLOCK_MONOTONIC (SO_RDS_MSG_RXPATH_LATENCY's stamps): virtual time. */
static inline void
rds_clock_monotonic(struct timespec *ts)
{
	uint64_t ns = rds_clock_tsc();

	ts->tv_sec = (time_t)(ns / 1000000000u);
	ts->tv_nsec = (long)(ns % 1000000000u);
}

#else

#ifdef RDS_FUZZ_CLOCK
struct rds_fuzz_clock {
	bool held;		/* rds_clock_tsc() is tsc, not the TSC */
	uint64_t tsc;
};
/* rds_init.c defines it; the fuzz harness sets it. */
extern struct rds_fuzz_clock rds_fuzz_clock;

static inline uint64_t
rds_clock_tsc(void)
{
	if (__atomic_load_n(&rds_fuzz_clock.held, __ATOMIC_ACQUIRE))
		return __atomic_load_n(&rds_fuzz_clock.tsc, __ATOMIC_ACQUIRE);
	return rte_rdtsc();
}
#else
/* The TSC (rte_rdtsc()). */
static inline uint64_t
rds_clock_tsc(void)
{
	return rte_rdtsc();
}
#endif /* RDS_FUZZ_CLOCK */

/* Its rate (rte_get_tsc_hz()). */
static inline uint64_t
rds_clock_hz(void)
{
	return rte_get_tsc_hz();
}

/* The wall clock (CLOCK_REALTIME). */
static inline void
rds_clock_realtime(struct timespec *ts)
{
	clock_gettime(CLOCK_REALTIME, ts);
}

/* CLOCK_MONOTONIC: SO_RDS_MSG_RXPATH_LATENCY's stamps, which the engine
 * takes and recvmsg (of this process or an attached one) subtracts. */
static inline void
rds_clock_monotonic(struct timespec *ts)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
}

#endif /* RDS_SIM_CLOCK */

#endif /* RDS_CLOCK_H */

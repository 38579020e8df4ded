#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# sim_clock_seam.sh SOURCE_ROOT: the library and its drivers read the
# clock only through lib/rds/rds_clock.h (rds_clock_tsc, rds_clock_hz,
# rds_clock_realtime, rds_clock_monotonic), so that the simulation's build (-DRDS_SIM_CLOCK)
# drives all of it. Fails, listing them, on any direct read elsewhere
# in lib/rds and drivers/rds: the TSC, its rate, DPDK's timer cycles,
# CLOCK_REALTIME. CLOCK_MONOTONIC stays in the attach client and the
# engine's server (rds_client*.c, rds_server*.c: socket deadlines of
# other processes, which the simulation does not run).
root=${1:?usage: sim_clock_seam.sh SOURCE_ROOT}
hits=$(grep -rnE 'rte_rdtsc|rte_get_tsc_(cycles|hz)|rte_get_timer_(cycles|hz)|clock_gettime\(CLOCK_REALTIME|gettimeofday\(|[^_]time\(NULL' \
	"$root/lib/rds" "$root/drivers/rds" | grep -v '/rds_clock\.h:')
mono=$(grep -rlE 'clock_gettime\(CLOCK_MONOTONIC' "$root/lib/rds" "$root/drivers/rds" |
	grep -vE '/rds_(client|server)[a-z_]*\.c$|/rds_clock\.h$')
if [ -n "$hits$mono" ]; then
	echo "FAILED: clock reads outside lib/rds/rds_clock.h:"
	[ -n "$hits" ] && echo "$hits"
	[ -n "$mono" ] && echo "CLOCK_MONOTONIC in: $mono"
	exit 1
fi
echo "every clock read of lib/rds and drivers/rds is rds_clock.h's"

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vcpu_gaps SECS - busy-read CLOCK_MONOTONIC for SECS seconds on the
 * calling CPU and report the gaps between consecutive reads: time this
 * thread did not run. Alone in the rxe VM, pinned to a vCPU (taskset), it
 * measures how often and how long the host leaves that vCPU without a
 * core (doc/ib.md, "The tail"). Not a test.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int
main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3;
	uint64_t t0 = now_ns(), prev = t0, end, t, d;
	uint64_t n50 = 0, n1m = 0, n4m = 0, max = 0, lost = 0, reads = 0;

	if (secs <= 0 || secs > 3600) {
		fprintf(stderr, "usage: vcpu_gaps SECS (0 < SECS <= 3600)\n");
		return 2;
	}
	end = t0 + (uint64_t)(secs * 1e9);
	do {
		t = now_ns();
		d = t - prev;
		prev = t;
		reads++;
		if (d > 50000) {
			n50++;
			lost += d;
			n1m += d > 1000000;
			n4m += d > 4000000;
			if (d > max)
				max = d;
		}
	} while (t < end);
	printf("vcpu_gaps: %.1f s, %llu reads, gaps > 50 us: %llu (> 1 ms %llu, > 4 ms %llu), max %.2f ms, %.1f%% of the time in gaps\n",
	       secs, (unsigned long long)reads, (unsigned long long)n50,
	       (unsigned long long)n1m, (unsigned long long)n4m, max / 1e6,
	       100.0 * (double)lost / (double)(prev - t0));
	return 0;
}

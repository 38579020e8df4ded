/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rds-perf statistics: a log of TSC samples (round trips) and its
 * percentiles. Nothing here knows about RDS, modes or output: a caller
 * adds samples while it measures, sorts once, then asks for any
 * percentile (nearest rank, in parts per million: 500000 is p50, 999000
 * p99.9) and the maximum, in cycles or ns.
 */

#ifndef RDS_PERF_STATS_H
#define RDS_PERF_STATS_H

#include <stddef.h>
#include <stdint.h>

#include <rte_branch_prediction.h>

/* Samples kept; beyond that the log keeps every 2nd, 4th, ... sample. */
#define PERF_RTT_CAP (20u * 1000 * 1000)

/* Percentiles, in parts per million. */
#define PERF_PCT_P50 500000u
#define PERF_PCT_P90 900000u
#define PERF_PCT_P99 990000u
#define PERF_PCT_P999 999000u

/* Sample log: keeps up to cap samples; when full it drops every other
 * sample and from then on keeps one sample in 'stride' (a uniform
 * sample). The maximum is tracked over every sample. */
struct perf_rtt {
	uint64_t *v;
	size_t n;
	size_t cap;
	uint32_t stride;
	uint32_t skip;
	uint64_t max;
};

/* 0, or -1 when out of memory. cap 0: PERF_RTT_CAP. */
int perf_rtt_init(struct perf_rtt *r, size_t cap);
void perf_rtt_free(struct perf_rtt *r);
/* Sort the samples kept (before asking for percentiles). */
void perf_rtt_sort(struct perf_rtt *r);
/* Nearest-rank percentile (ppm: parts per million) of the sorted log, in
 * cycles; 0 when the log is empty. */
uint64_t perf_rtt_pct(const struct perf_rtt *r, uint32_t ppm);
/* TSC cycles to ns, rounded. */
uint64_t perf_cycles_ns(uint64_t cycles, uint64_t hz);

static inline void
perf_rtt_add(struct perf_rtt *r, uint64_t cycles)
{
	size_t i;

	if (cycles > r->max)
		r->max = cycles;
	if (++r->skip < r->stride)
		return;
	r->skip = 0;
	if (unlikely(r->n == r->cap)) {
		/* Full: keep every other sample, and from now on one sample
		 * in twice as many. */
		for (i = 0; i < r->n / 2; i++)
			r->v[i] = r->v[2 * i + 1];
		r->n /= 2;
		r->stride *= 2;
	}
	r->v[r->n++] = cycles;
}

#endif /* RDS_PERF_STATS_H */

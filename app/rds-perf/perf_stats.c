/* SPDX-License-Identifier: BSD-3-Clause */

/* rds-perf statistics: the sample log, its percentiles, and a run's
 * results in the units printed. */

#include <stdlib.h>
#include <time.h>

#include "perf.h"

int
perf_rtt_init(struct perf_rtt *r, size_t cap)
{
	r->cap = cap != 0 ? cap : PERF_RTT_CAP;
	r->v = malloc(r->cap * sizeof(*r->v));
	r->n = 0;
	r->stride = 1;
	r->skip = 0;
	r->max = 0;
	return r->v == NULL ? -1 : 0;
}

void
perf_rtt_free(struct perf_rtt *r)
{
	free(r->v);
	r->v = NULL;
	r->n = 0;
}

static int
perf_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a;
	uint64_t y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void
perf_rtt_sort(struct perf_rtt *r)
{
	qsort(r->v, r->n, sizeof(*r->v), perf_u64_cmp);
}

uint64_t
perf_rtt_pct(const struct perf_rtt *r, uint32_t ppm)
{
	uint64_t rank;

	if (r->n == 0)
		return 0;
	rank = ((uint64_t)r->n * ppm + 999999) / 1000000;
	return r->v[rank == 0 ? 0 : rank - 1];
}

uint64_t
perf_cycles_ns(uint64_t cycles, uint64_t hz)
{
	return (uint64_t)((double)cycles * 1e9 / (double)hz + 0.5);
}

/* The run's results: rates over the measured window, RTT percentiles. */
void
perf_result(struct perf_ctx *ctx, struct perf_result *r)
{
	const uint64_t hz = perf_tsc_hz();
	struct perf_rtt *rtt = &ctx->rtt;

	memset(r, 0, sizeof(*r));
	r->msgs = ctx->msgs;
	r->secs = (double)(ctx->t_stop - ctx->t_start) / (double)hz;
	if (perf_is_stream(ctx->o->mode)) {
		/* The receiver's count and window; the sender's apart. */
		r->one_way = true;
		r->sent_msgs = ctx->sent_msgs;
		r->sent_secs = r->secs;
		if (ctx->has_peer_result) {	/* ib client */
			r->msgs = ctx->peer_msgs;
			r->secs = (double)ctx->peer_ns / 1e9;
		}
		if (r->sent_secs > 0) {
			r->sent_msgs_per_s = (double)r->sent_msgs / r->sent_secs;
			r->sent_mb_per_s = (double)r->sent_msgs * ctx->o->size /
				r->sent_secs / 1e6;
		}
	}
	if (r->secs > 0) {
		r->msgs_per_s = (double)r->msgs / r->secs;
		r->mb_per_s = (double)r->msgs * ctx->o->size / r->secs / 1e6;
	}
	perf_rtt_sort(rtt);
	r->p50 = perf_cycles_ns(perf_rtt_pct(rtt, PERF_PCT_P50), hz);
	r->p90 = perf_cycles_ns(perf_rtt_pct(rtt, PERF_PCT_P90), hz);
	r->p99 = perf_cycles_ns(perf_rtt_pct(rtt, PERF_PCT_P99), hz);
	r->p999 = perf_cycles_ns(perf_rtt_pct(rtt, PERF_PCT_P999), hz);
	r->max = perf_cycles_ns(rtt->max, hz);
	if (rtt->n > 0) {
		double sum = 0;
		size_t i;

		for (i = 0; i < rtt->n; i++)
			sum += (double)rtt->v[i];
		r->rtt_mean_ns = sum / (double)rtt->n * 1e9 / (double)hz;
	}
	if (ctx->send_calls > 0)
		r->send_us = (double)ctx->send_cycles /
			(double)ctx->send_calls * 1e6 / (double)hz;
	if (r->secs > 0 && ctx->cpu_ns_stop > ctx->cpu_ns_start)
		r->cpu_pct = (double)(ctx->cpu_ns_stop - ctx->cpu_ns_start) /
			((double)(ctx->t_stop - ctx->t_start) / (double)hz *
			 1e9) * 100.0;
}

/* The process's CPU time, all threads (engine lcores included). */
uint64_t
perf_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

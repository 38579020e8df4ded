/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rds-perf --progress: once a second, task 0's loop prints on stderr the
 * phase, the seconds measured and the rate of the last second (summed
 * over --tasks: their counters are read without a lock, which only
 * blurs a progress line). On a terminal the line is rewritten in place;
 * otherwise one line a second. Never in the JSON (stdout).
 */

#include <inttypes.h>
#include <unistd.h>

#include "perf.h"

void
perf_progress_start(struct perf_progress *p, const struct perf_tasks *tk,
		    unsigned int run, unsigned int runs)
{
	const uint64_t now = rte_rdtsc();

	p->tasks = tk;
	p->run = run;
	p->runs = runs;
	p->next = now + perf_tsc_hz();
	p->last_tsc = now;
	p->last_msgs = 0;
	p->tty = isatty(STDERR_FILENO);
}

/* Messages so far: round trips, or in stream the receiver's count (the
 * sender's where this process does not receive). */
static uint64_t
perf_progress_msgs(const struct perf_progress *p)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < p->tasks->n; i++) {
		const struct perf_ctx *c = p->tasks->t[i];

		n += __atomic_load_n(c->srv < 0 && perf_is_stream(c->o->mode) ?
				     &c->sent_msgs : &c->msgs, __ATOMIC_RELAXED);
	}
	return n;
}

void
perf_progress_tick(struct perf_progress *p, uint64_t now, const char *phase)
{
	const struct perf_ctx *c0 = p->tasks->t[0];
	const double hz = (double)perf_tsc_hz();
	uint64_t msgs;
	double dt, measured;

	if (now < p->next)
		return;
	msgs = perf_progress_msgs(p);
	/* Messages count from the window's start only. */
	dt = (double)(now - RTE_MAX(p->last_tsc, c0->t_start)) / hz;
	measured = c0->t_start == 0 ? 0.0 :
		(double)((c0->t_stop != 0 ? c0->t_stop : now) - c0->t_start) / hz;
	fprintf(stderr, "%srds-perf: size %u (%u of %u), %s, %.1f of %.1f s: %.1f msgs/s, %.3f MB/s in the last second, %" PRIu64 " msgs%s",
		p->tty ? "\r" : "", c0->o->size, p->run + 1, p->runs, phase,
		measured, c0->o->secs,
		dt > 0 ? (double)(msgs - p->last_msgs) / dt : 0.0,
		dt > 0 ? (double)(msgs - p->last_msgs) * c0->o->size / dt / 1e6 :
		0.0, msgs,
		p->tty ? "\033[K" : "\n");
	p->last_msgs = msgs;
	p->last_tsc = now;
	p->next = now + perf_tsc_hz();
}

void
perf_progress_end(struct perf_progress *p)
{
	if (p->tty)
		fprintf(stderr, "\r\033[K");
}

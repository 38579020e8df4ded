/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rds-perf: several runs in one invocation. A size list or sweep
 * (--size 64,4k,64k or 1:1M:x4) repeats the run once per size, with one
 * output block (and one JSON line) per size and a table at the end;
 * --tasks N runs N socket pairs on N threads (loop) and sums them;
 * --histogram FILE writes each size's RTT CDF; --progress prints a line
 * a second on stderr. Included by perf.h.
 *
 *   perf_sweep.c   size lists, the runs one after the other, the table,
 *                  the JSON lines
 *   perf_tasks.c   --tasks: threads, results summed, RTT logs merged
 *   perf_hist.c    --histogram, --plot: the RTT CDF
 *   perf_progress.c --progress
 */

#ifndef RDS_PERF_SWEEP_H
#define RDS_PERF_SWEEP_H

#include <stdint.h>
#include <stdio.h>

/* Most sizes one invocation runs, and most --tasks. */
#define PERF_SIZES_MAX 64
#define PERF_TASKS_MAX 64

struct perf_ctx;
struct perf_opts;
struct perf_result;
struct perf_floors;
struct perf_sweep;
struct rte_rds_conf;

/* The socket pairs of one run: t[0] is the main thread's context. */
struct perf_tasks {
	unsigned int n;
	struct perf_ctx *t[PERF_TASKS_MAX];
};

/* --progress: the state task 0's loop reads once a second. */
struct perf_progress {
	const struct perf_tasks *tasks;
	unsigned int run, runs;		/* this size's index, of how many */
	uint64_t next;			/* TSC of the next line */
	uint64_t last_tsc, last_msgs;
	int tty;			/* stderr is a terminal: one line,
					 * rewritten */
};

/* perf_sweep.c */
int perf_parse_sizes(const char *arg, uint32_t *sizes, unsigned int *n);
void perf_ctx_rerun(struct perf_ctx *ctx, const struct perf_opts *o);
struct perf_sweep *perf_sweep_new(const struct perf_opts *o);
/* --attach: a run per --size on ctx's sockets (perf_attach.c). */
void perf_sweep_attached(struct perf_ctx *ctx, struct perf_opts *o,
			 struct perf_sweep *s);
void perf_sweep_rds(struct perf_ctx *ctx, struct perf_opts *o,
		    struct perf_sweep *s);
void perf_sweep_add(struct perf_sweep *s, const struct perf_ctx *ctx,
		    const struct perf_result *r);
uint64_t perf_sweep_errors(const struct perf_sweep *s);
void perf_sweep_end(struct perf_sweep *s, const struct perf_opts *o);
void perf_sweep_json(const struct perf_sweep *s, const struct perf_floors *f);
void perf_sweep_free(struct perf_sweep *s);

/* perf_tasks.c */
void perf_tasks_open(struct perf_tasks *tk, struct perf_ctx *ctx0,
		     const struct perf_opts *o);
void perf_tasks_run(struct perf_tasks *tk);
void perf_tasks_result(struct perf_tasks *tk, struct perf_result *r);
void perf_tasks_close(struct perf_tasks *tk);

/* perf_hist.c */
FILE *perf_hist_open(const char *path);
void perf_hist_write(FILE *f, const struct perf_ctx *ctx);
int perf_hist_close(FILE *f, const struct perf_opts *o);

/* perf_progress.c */
void perf_progress_start(struct perf_progress *p,
			 const struct perf_tasks *tk, unsigned int run,
			 unsigned int runs);
void perf_progress_tick(struct perf_progress *p, uint64_t now,
			const char *phase);
void perf_progress_end(struct perf_progress *p);

#endif /* RDS_PERF_SWEEP_H */

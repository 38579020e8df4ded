/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rds-perf --tasks N (loop): N socket pairs, each run by its own thread
 * with the same warm-up, window and drain; the main thread runs the
 * first. The other threads are pthreads registered with
 * rte_thread_register(). With an inline engine every thread polls the
 * one engine (a call while another thread polls it returns at once);
 * with an lcore engine none does. The results: messages and rates
 * summed over the tasks, the RTT logs merged into one (percentiles over
 * all the samples kept), push-back and errors summed.
 */

#include <pthread.h>
#include <stdlib.h>

#include <rte_lcore.h>
#include <rte_pause.h>

#include "perf.h"

struct perf_task_arg {
	struct perf_ctx *ctx;
	unsigned int *ready;		/* threads at the start line */
	unsigned int n;
};

/* All tasks start their warm-up together. */
static void
perf_task_start_line(const struct perf_task_arg *a)
{
	__atomic_add_fetch(a->ready, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(a->ready, __ATOMIC_ACQUIRE) < a->n)
		rte_pause();
}

static void *
perf_task_main(void *arg)
{
	struct perf_task_arg *a = arg;

	/* Attached, there is no EAL: a plain thread calls the client
	 * library. */
	const bool eal = a->ctx->o->attach == NULL;

	if (eal && rte_thread_register() < 0)
		perf_fail("rte_thread_register() for task %u", a->ctx->tasks);
	perf_task_start_line(a);
	perf_run(a->ctx);
	if (eal)
		rte_thread_unregister();
	return NULL;
}

/* The socket pairs of one run: ctx0 (set up already), and o->tasks - 1
 * more, each with its own state and sockets. */
void
perf_tasks_open(struct perf_tasks *tk, struct perf_ctx *ctx0,
		const struct perf_opts *o)
{
	unsigned int i;

	tk->n = o->tasks;
	tk->t[0] = ctx0;
	ctx0->tasks = 0;
	for (i = 1; i < tk->n; i++) {
		struct perf_ctx *c = malloc(sizeof(*c));

		if (c == NULL)
			perf_die("out of memory");
		perf_ctx_init(c, o);
		c->run = ctx0->run;
		c->runs = ctx0->runs;
		c->tasks = i;		/* this task's index */
		perf_open_data_sockets(c);
		tk->t[i] = c;
	}
}

/* Run every task, each on its own thread (the first on this one). */
void
perf_tasks_run(struct perf_tasks *tk)
{
	struct perf_task_arg arg[PERF_TASKS_MAX];
	pthread_t th[PERF_TASKS_MAX];
	unsigned int ready = 0, i;
	int ret;

	if (tk->n == 1) {
		perf_run(tk->t[0]);
		return;
	}
	for (i = 0; i < tk->n; i++) {
		arg[i].ctx = tk->t[i];
		arg[i].ready = &ready;
		arg[i].n = tk->n;
	}
	for (i = 1; i < tk->n; i++) {
		ret = pthread_create(&th[i], NULL, perf_task_main, &arg[i]);
		if (ret != 0)
			perf_die("pthread_create() for task %u: %s", i,
				 strerror(ret));
	}
	perf_task_start_line(&arg[0]);
	perf_run(tk->t[0]);
	for (i = 1; i < tk->n; i++) {
		ret = pthread_join(th[i], NULL);
		if (ret != 0)
			perf_die("pthread_join() for task %u: %s", i,
				 strerror(ret));
	}
}

/* Merge the other tasks' RTT logs into the first's (its maximum too). */
static void
perf_tasks_merge_rtt(struct perf_tasks *tk)
{
	struct perf_rtt *r0 = &tk->t[0]->rtt;
	size_t total = r0->n;
	uint64_t *v;
	unsigned int i;

	for (i = 1; i < tk->n; i++)
		total += tk->t[i]->rtt.n;
	if (total > r0->cap) {
		v = realloc(r0->v, total * sizeof(*v));
		if (v == NULL)
			perf_die("out of memory");
		r0->v = v;
		r0->cap = total;
	}
	for (i = 1; i < tk->n; i++) {
		const struct perf_rtt *ri = &tk->t[i]->rtt;

		memcpy(r0->v + r0->n, ri->v, ri->n * sizeof(*ri->v));
		r0->n += ri->n;
		r0->max = RTE_MAX(r0->max, ri->max);
	}
}

/* The run's results: task 0's window, every task's messages and rates
 * summed, percentiles over the merged log. Push-back and errors go to
 * task 0's counters, which the output prints. */
void
perf_tasks_result(struct perf_tasks *tk, struct perf_result *r)
{
	struct perf_ctx *c0 = tk->t[0];
	struct perf_result sum = { 0 }, ri;
	unsigned int i;

	for (i = 1; i < tk->n; i++) {
		struct perf_ctx *c = tk->t[i];

		perf_result(c, &ri);
		sum.msgs += ri.msgs;
		sum.msgs_per_s += ri.msgs_per_s;
		sum.mb_per_s += ri.mb_per_s;
		sum.sent_msgs += ri.sent_msgs;
		sum.sent_msgs_per_s += ri.sent_msgs_per_s;
		sum.sent_mb_per_s += ri.sent_mb_per_s;
		c0->send_cycles += c->send_cycles;
		c0->send_calls += c->send_calls;
		c0->eagain += c->eagain;
		c0->enobufs += c->enobufs;
		c0->errors += c->errors;
	}
	if (tk->n > 1)
		perf_tasks_merge_rtt(tk);
	perf_result(c0, r);
	r->msgs += sum.msgs;
	r->msgs_per_s += sum.msgs_per_s;
	r->mb_per_s += sum.mb_per_s;
	r->sent_msgs += sum.sent_msgs;
	r->sent_msgs_per_s += sum.sent_msgs_per_s;
	r->sent_mb_per_s += sum.sent_mb_per_s;
}

/* Close the other tasks' sockets and free them (task 0 stays). */
void
perf_tasks_close(struct perf_tasks *tk)
{
	unsigned int i;

	for (i = 1; i < tk->n; i++) {
		struct perf_ctx *c = tk->t[i];

		if (c->cli >= 0 && rte_rds_close(c->cli) < 0)
			perf_fail("rte_rds_close(client of task %u)", i);
		if (c->srv >= 0 && rte_rds_close(c->srv) < 0)
			perf_fail("rte_rds_close(server of task %u)", i);
		perf_ctx_free(c);
		free(c);
		tk->t[i] = NULL;
	}
	tk->n = 1;
}

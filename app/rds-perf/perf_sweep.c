/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rds-perf: one run per size of --size's list or sweep, over RDS (the
 * library stays up between them), the record of every run, the table at
 * the end and the JSON lines.
 *
 * Between two sizes the run's state is made again for the new size and
 * the data sockets are opened again (the region of the rdma-* modes goes
 * with its socket). Over ib and eth the client says hello once per size,
 * from the same control socket, with the run's index and count in the
 * hello (v[2]: index << 32 | count); the server answers run after run
 * until the last one.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "perf.h"

/* One run, as printed: copies of the options and of the run's counters
 * (its pointers are not used), and its results. */
struct perf_sweep_run {
	struct perf_opts o;
	struct perf_ctx c;
	struct perf_result r;
};

struct perf_sweep {
	unsigned int n;
	uint64_t errors;
	FILE *hist;			/* --histogram */
	struct perf_sweep_run run[PERF_SIZES_MAX];
};

/* One size: decimal, with an optional k/K (x1024) or M (x1048576). */
static int
perf_parse_size(const char *s, const char *stop, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (s == stop || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		return -1;
	if (end < stop && (*end == 'k' || *end == 'K')) {
		v *= 1024;
		end++;
	} else if (end < stop && *end == 'M') {
		v *= 1024 * 1024;
		end++;
	}
	if (end != stop || v > RTE_RDS_MAX_MSG_SIZE)
		return -1;
	*out = v;
	return 0;
}

/* One item of the list: N, or a sweep A:B:xF (F >= 2) or A:B:+S. */
static int
perf_parse_item(const char *s, const char *stop, uint32_t *sizes,
		unsigned int *n)
{
	const char *c1 = memchr(s, ':', stop - s), *c2;
	uint64_t a, b, step, v;

	if (c1 == NULL) {
		if (perf_parse_size(s, stop, &a) < 0 || *n == PERF_SIZES_MAX)
			return -1;
		sizes[(*n)++] = (uint32_t)a;
		return 0;
	}
	c2 = memchr(c1 + 1, ':', stop - c1 - 1);
	if (c2 == NULL || c2 + 1 == stop ||
	    perf_parse_size(s, c1, &a) < 0 ||
	    perf_parse_size(c1 + 1, c2, &b) < 0 || a > b ||
	    (c2[1] != 'x' && c2[1] != '+') ||
	    perf_parse_size(c2 + 2, stop, &step) < 0 || step == 0 ||
	    (c2[1] == 'x' && (step < 2 || a == 0)))
		return -1;
	for (v = a; v <= b; v = c2[1] == 'x' ? v * step : v + step) {
		if (*n == PERF_SIZES_MAX)
			return -1;
		sizes[(*n)++] = (uint32_t)v;
	}
	return 0;
}

/* --size: "N[,N...]", each item a size or a sweep. 0, or -1 (printed). */
int
perf_parse_sizes(const char *arg, uint32_t *sizes, unsigned int *n)
{
	const char *s = arg, *stop;

	*n = 0;
	for (;;) {
		stop = strchr(s, ',');
		if (stop == NULL)
			stop = s + strlen(s);
		if (perf_parse_item(s, stop, sizes, n) < 0) {
			fprintf(stderr, "rds-perf: --size: '%.*s': a size is 0..%u (k, K: x1024; M: x1048576), a sweep A:B:xF (F >= 2, A >= 1) or A:B:+S; at most %u sizes\n",
				(int)(stop - s), s, RTE_RDS_MAX_MSG_SIZE,
				PERF_SIZES_MAX);
			return -1;
		}
		if (*stop == '\0')
			return 0;
		s = stop + 1;
	}
}

/* The run's state made again for o->size (counters to 0, buffers of
 * the new size); the sockets, addresses and control state stay. */
void
perf_ctx_rerun(struct perf_ctx *ctx, const struct perf_opts *o)
{
	struct perf_ctx keep = *ctx;

	perf_ctx_free(ctx);
	perf_ctx_init(ctx, o);
	ctx->cli = keep.cli;
	ctx->srv = keep.srv;
	ctx->ctl = keep.ctl;
	ctx->cli_name = keep.cli_name;
	ctx->srv_name = keep.srv_name;
	ctx->dst = keep.dst;
	ctx->check_src = keep.check_src;
	if (o->role == PERF_ROLE_CLIENT)
		ctx->ctl_src = keep.ctl_src;	/* our control socket */
	memcpy(ctx->eth_pmd, keep.eth_pmd, sizeof(ctx->eth_pmd));
	ctx->tasks = keep.tasks;
	ctx->attach_ms = keep.attach_ms;
	ctx->progress = keep.progress;
}

struct perf_sweep *
perf_sweep_new(const struct perf_opts *o)
{
	struct perf_sweep *s = calloc(1, sizeof(*s));

	if (s == NULL)
		perf_die("out of memory");
	if (o->histogram != NULL || o->plot != NULL)
		s->hist = perf_hist_open(o->histogram);
	return s;
}

/* Record a run (its errors too), write its CDF (--histogram). */
void
perf_sweep_add(struct perf_sweep *s, const struct perf_ctx *ctx,
	       const struct perf_result *r)
{
	struct perf_sweep_run *run;

	s->errors += ctx->errors;
	if (s->hist != NULL)
		perf_hist_write(s->hist, ctx);
	if (s->n == PERF_SIZES_MAX)	/* a server asked for more runs */
		return;
	run = &s->run[s->n++];
	run->o = *ctx->o;
	run->c = *ctx;
	run->c.o = &run->o;
	run->r = *r;
}

uint64_t
perf_sweep_errors(const struct perf_sweep *s)
{
	return s->errors;
}

/* Server (ib, eth): one run after the other until the client's last. */
static void
perf_sweep_server(struct perf_ctx *ctx, struct perf_opts *o,
		  struct rte_rds_conf *conf, struct perf_sweep *s)
{
	struct perf_result res;

	for (;;) {
		perf_peer_server_hello(ctx, o);
		if (o->verbose)
			perf_print_setup(ctx, conf);
		perf_peer_server_run(ctx);
		perf_peer_server_done(ctx);
		perf_result(ctx, &res);
		perf_print_server(ctx, &res);
		if (o->verbose)
			perf_print_stats(o, stdout);
		perf_sweep_add(s, ctx, &res);
		if (ctx->run + 1 >= ctx->runs)
			return;
		perf_ctx_rerun(ctx, o);
	}
}

/* Loop, or an ib or eth client: one run of o->size. */
static void
perf_sweep_one(struct perf_tasks *tk, struct perf_opts *o,
	       struct rte_rds_conf *conf, struct perf_sweep *s)
{
	struct perf_ctx *ctx = tk->t[0];
	struct perf_progress prog;
	struct perf_result res;
	unsigned int i;

	for (i = 0; i < tk->n; i++)
		if (perf_is_rdma(o->mode))
			perf_rdma_client_setup(tk->t[i]);
	if (o->role == PERF_ROLE_CLIENT) {
		perf_peer_client_hello(ctx);
	} else if (perf_is_rdma(o->mode)) {
		for (i = 0; i < tk->n; i++) {
			perf_rdma_server_setup(tk->t[i], tk->t[i]->slots);
			perf_rdma_loop_handshake(tk->t[i]);
		}
	}
	if (o->verbose)
		perf_print_setup(ctx, conf);

	if (o->progress) {
		perf_progress_start(&prog, tk, ctx->run, ctx->runs);
		ctx->progress = &prog;
	}
	perf_tasks_run(tk);
	if (o->progress) {
		perf_progress_end(&prog);
		ctx->progress = NULL;
	}
	if (o->role == PERF_ROLE_CLIENT)
		perf_peer_client_done(ctx);
	for (i = 0; i < tk->n; i++)
		perf_check_counts(tk->t[i]);
	perf_tasks_result(tk, &res);
	perf_print_result(ctx, &res);
	if (o->stress_columns)
		perf_print_stress_columns(ctx, &res);
	if (o->verbose)
		perf_print_stats(o, stdout);
	perf_sweep_add(s, ctx, &res);
}

/* A run per --size on ctx's sockets (loop, a client, or attached; conf
 * only for --verbose's set-up lines). */
static void
perf_sweep_sizes(struct perf_ctx *ctx, struct perf_opts *o,
		 struct rte_rds_conf *conf, struct perf_sweep *s)
{
	struct perf_tasks tk;
	unsigned int i;

	for (i = 0; i < o->nb_sizes; i++) {
		if (i > 0) {
			o->size = o->sizes[i];
			perf_ctx_rerun(ctx, o);
			perf_open_data_sockets(ctx);
			printf("\n");
		}
		ctx->run = i;
		ctx->runs = o->nb_sizes;
		perf_tasks_open(&tk, ctx, o);
		perf_sweep_one(&tk, o, conf, s);
		perf_tasks_close(&tk);
	}
}

/* Over RDS: set-up, then a run per size (the library stays up). */
void
perf_sweep_rds(struct perf_ctx *ctx, struct perf_opts *o, struct perf_sweep *s)
{
	struct rte_rds_conf conf;

	rte_rds_conf_init(&conf);
	perf_engine_conf(o, &conf);
	perf_setup_transport(ctx, &conf);
	if (o->role == PERF_ROLE_SERVER) {
		perf_sweep_server(ctx, o, &conf, s);
		return;
	}
	perf_sweep_sizes(ctx, o, &conf, s);
}

/* Attached to an engine process (no EAL, no library set-up here): a run
 * per size on the sockets ctx has open. */
void
perf_sweep_attached(struct perf_ctx *ctx, struct perf_opts *o,
		    struct perf_sweep *s)
{
	perf_sweep_sizes(ctx, o, NULL, s);
}

/* The table after the runs (loop, client): one line per size, laid out
 * like ucx_perftest's; RTTs are full round trips, in us. */
static void
perf_sweep_table(const struct perf_sweep *s)
{
	static const char top[] = "+----------+------------+--------------+------------+------------------------------------------------------------+";
	static const char mid[] = "+----------+------------+--------------+------------+------------+-----------+-----------+-----------+-----------+";
	const struct perf_sweep_run *x0 = &s->run[0];
	unsigned int i;

	if (s->n == 0 || x0->o.role == PERF_ROLE_SERVER)
		return;
	printf("\n%s\n", top);
	printf("|          |            |              |            |     round-trip latency, us (a full round trip, not half)   |\n");
	printf("|   size   |    msgs    |    msgs/s    |    MB/s    |    p50     |    p90    |    p99    |   p99.9   |    max    |\n");
	printf("%s\n", mid);
	for (i = 0; i < s->n; i++) {
		const struct perf_sweep_run *x = &s->run[i];
		const struct perf_result *r = &x->r;

		printf("| %8u | %10" PRIu64 " | %12.1f | %10.3f |", x->o.size,
		       r->msgs, r->msgs_per_s, r->mb_per_s);
		if (r->one_way)
			printf("     -      |     -     |     -     |     -     |     -     |\n");
		else
			printf(" %10.3f | %9.3f | %9.3f | %9.3f | %9.3f |\n",
			       r->p50 / 1e3, r->p90 / 1e3, r->p99 / 1e3,
			       r->p999 / 1e3, r->max / 1e3);
	}
	printf("%s\n", mid);
	printf("%s %s, %s engine, depth %u%s\n",
	       perf_transport_name(x0->o.transport), perf_mode_name(x0->o.mode),
	       x0->o.raw ? "no" : perf_engine_name(x0->o.engine), x0->c.window,
	       x0->o.tasks > 1 ? ", --tasks: msgs/s and MB/s summed over the tasks, RTTs merged" :
	       perf_is_stream(x0->o.mode) ? "; stream: the receiver's count, no RTT" : "");
}

/* --json: one line per run, the last lines of the output. */
void
perf_sweep_json(const struct perf_sweep *s, const struct perf_floors *f)
{
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		const struct perf_sweep_run *x = &s->run[i];

		if (x->o.role == PERF_ROLE_SERVER)
			perf_print_server_json(&x->c, &x->r, f);
		else
			perf_print_json(&x->c, &x->r, f);
	}
}

/* After the runs, before the EAL's end: the table, the CDF file. */
void
perf_sweep_end(struct perf_sweep *s, const struct perf_opts *o)
{
	perf_sweep_table(s);
	if (s->hist != NULL && perf_hist_close(s->hist, o) < 0)
		s->errors++;
	s->hist = NULL;
}

void
perf_sweep_free(struct perf_sweep *s)
{
	free(s);
}

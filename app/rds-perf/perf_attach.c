/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rds-perf --attach PATH: a run as a client of an engine process
 * (rds-engined, rte_rds_attach.h). This process initialises no EAL: EAL
 * arguments before "--" are ignored (and said so), and the options are
 * rds-perf's own. Both sockets live in this process, bound to two
 * addresses the engine serves (--local for the client, --peer for the
 * server; default 10.9.0.1 and 10.9.0.2, as in rds-engined(8)'s
 * example), so every request and reply crosses into the engine and back
 * through this process's shared region: the cross-process path of
 * --transport loop. Modes lat, bw, stream, rdma-read and rdma-write (the
 * operations go with their sends through the request ring, the region
 * this process's memory).
 *
 * What differs from an in-process run: the engine is the other
 * process's (nothing here polls it: --engine does not apply); the
 * zero-copy receive calls are not available to a client, so the server
 * side takes bw and stream messages with rte_rds_recvmsg(), up to
 * PERF_BURST a step; the TSC rate is measured here against
 * CLOCK_MONOTONIC_RAW (no EAL to ask). The output is an in-process
 * run's, with "engine: rds-engined" and, in the JSON, "attach":true and
 * "attach_ms" (the rte_rds_attach() call). Size lists, --tasks,
 * --progress, --histogram, --plot and --rds-stress-columns work as in
 * process (perf_sweep_attached()); --tasks' threads are plain threads.
 */

#include <inttypes.h>
#include <stdlib.h>
#include <time.h>
#include <sys/uio.h>

#include <rte_rds_attach.h>

#include "perf.h"

#define PERF_ATTACH_LOCAL_DEFAULT "10.9.0.1"
#define PERF_ATTACH_PEER_DEFAULT "10.9.0.2"
/* TSC calibration: this long against the clock, best of this many tries
 * (a try whose clock read was preempted is off by the preemption). */
#define PERF_ATTACH_CAL_NS (50ull * 1000 * 1000)
#define PERF_ATTACH_CAL_TRIES 3

uint64_t perf_attach_tsc_hz;

/* One TSC reading paired with a clock reading, and how long the pair
 * took (the clock read's uncertainty). */
static uint64_t
perf_tsc_clock(uint64_t *tsc, uint64_t *spread)
{
	struct timespec ts;
	uint64_t a, b;

	a = rte_rdtsc();
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	b = rte_rdtsc();
	*tsc = a + (b - a) / 2;
	*spread = b - a;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The TSC rate, measured: of a few tries, the one whose clock reads were
 * the tightest. */
static uint64_t
perf_tsc_calibrate(void)
{
	const struct timespec nap = {
		.tv_sec = 0,
		.tv_nsec = (long)PERF_ATTACH_CAL_NS,
	};
	uint64_t best_hz = 0, best_spread = UINT64_MAX;
	unsigned int i;

	for (i = 0; i < PERF_ATTACH_CAL_TRIES; i++) {
		uint64_t t0, t1, s0, s1, n0, n1;

		n0 = perf_tsc_clock(&t0, &s0);
		nanosleep(&nap, NULL);
		n1 = perf_tsc_clock(&t1, &s1);
		if (n1 <= n0 || t1 <= t0)
			continue;
		if (s0 + s1 < best_spread) {
			best_spread = s0 + s1;
			best_hz = (uint64_t)((double)(t1 - t0) * 1e9 /
					     (double)(n1 - n0) + 0.5);
		}
	}
	if (best_hz == 0)
		perf_die("cannot measure the TSC rate");
	return best_hz;
}

/* Is this an --attach run? Looks at rds-perf's options: those after
 * "--" when there is one, else all of them. */
bool
perf_attach_wanted(int argc, char **argv)
{
	int i, first = 1;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			first = i + 1;
			break;
		}
	for (i = first; i < argc; i++)
		if (strcmp(argv[i], "--attach") == 0 ||
		    strncmp(argv[i], "--attach=", 9) == 0)
			return true;
	return false;
}

/* "--name VALUE" or "--name=VALUE" at argv[*i]: the value (and *i moved
 * past it), or NULL when argv[*i] is another option. Exits on a missing
 * value. */
static const char *
perf_attach_opt(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(argv[*i], name, n) != 0)
		return NULL;
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (argv[*i][n] != '\0')
		return NULL;
	if (*i + 1 >= argc) {
		fprintf(stderr, "rds-perf: %s needs a value\n", name);
		exit(PERF_EXIT_USAGE);
	}
	(*i)++;
	return argv[*i];
}

/* rds-perf's options with --attach, --local and --peer taken out (into
 * *path, *local, *peer), for perf_parse_args(). EAL arguments before
 * "--" are dropped. Returns the new argc. */
static int
perf_attach_args(int argc, char **argv, char **out, const char **path,
		 const char **local, const char **peer)
{
	int i, first = 1, n = 0;
	const char *v;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			first = i + 1;
			break;
		}
	if (first > 2)
		fprintf(stderr, "rds-perf: --attach: no EAL in a client; the %d EAL argument(s) before '--' are ignored\n",
			first - 2);
	out[n++] = argv[0];
	for (i = first; i < argc; i++) {
		if ((v = perf_attach_opt(argc, argv, &i, "--attach")) != NULL)
			*path = v;
		else if ((v = perf_attach_opt(argc, argv, &i, "--local")) != NULL)
			*local = v;
		else if ((v = perf_attach_opt(argc, argv, &i, "--peer")) != NULL)
			*peer = v;
		else
			out[n++] = argv[i];
	}
	out[n] = NULL;
	return n;
}

/* What an attached run cannot do. 0, or -1 (printed). */
static int
perf_attach_check(const struct perf_opts *o, const char *local,
		  const char *peer)
{
	struct in_addr a, b;

	if (o->transport != PERF_TRANSPORT_LOOP) {
		fprintf(stderr, "rds-perf: --attach runs both sides in this process (--transport loop, on addresses the engine serves)\n");
		return -1;
	}
	if (o->mode != PERF_MODE_LAT && o->mode != PERF_MODE_BW &&
	    o->mode != PERF_MODE_STREAM && !perf_is_rdma(o->mode)) {
		fprintf(stderr, "rds-perf: --attach: modes lat, bw, stream, rdma-read and rdma-write only\n");
		return -1;
	}
	if (o->engine != PERF_ENGINE_INLINE || o->raw_ring ||
	    o->raw_ring_pp || o->verbose) {
		fprintf(stderr, "rds-perf: --attach: the engine is the engine process's: no --engine, --raw-ring, --raw-ring-pp or --verbose (see rds-info)\n");
		return -1;
	}
	if (inet_pton(AF_INET, local, &a) != 1 ||
	    inet_pton(AF_INET, peer, &b) != 1 || a.s_addr == b.s_addr) {
		fprintf(stderr, "rds-perf: --attach: --local and --peer must be two IPv4 addresses the engine serves\n");
		return -1;
	}
	return 0;
}

/*
 * Server, bw and stream, attached: up to PERF_BURST messages with
 * rte_rds_recvmsg() (a client has no zero-copy receive). bw: the senders
 * go to reply_to[], the replies are owed; stream: counted while
 * measuring.
 */
void
perf_attach_server_recv(struct perf_ctx *ctx)
{
	const bool stream = perf_is_stream(ctx->o->mode);
	unsigned int k = 0;

	while (k < PERF_BURST) {
		struct sockaddr_in *from = &ctx->reply_to[stream ? 0 : k];
		struct iovec iov = {
			.iov_base = ctx->srv_buf,
			.iov_len = ctx->o->size + PERF_RX_SLACK,
		};
		struct msghdr mh = {
			.msg_name = from,
			.msg_namelen = sizeof(*from),
			.msg_iov = &iov,
			.msg_iovlen = 1,
		};
		ssize_t n;

		n = rte_rds_recvmsg(ctx->srv, &mh, MSG_DONTWAIT);
		if (n < 0) {
			if (rte_errno == EAGAIN)
				break;
			perf_fail("rte_rds_recvmsg(server)");
		}
		perf_server_check(ctx, ctx->srv_buf, (size_t)n,
				  (mh.msg_flags & MSG_TRUNC) != 0,
				  stream ? 0 : k);
		if (stream) {
			if (ctx->measuring)
				ctx->msgs++;
			k++;
		} else {
			ctx->owed = ++k;
		}
	}
}

static void
perf_attach_close(struct perf_ctx *ctx)
{
	if (ctx->cli >= 0 && rte_rds_close(ctx->cli) < 0)
		perf_fail("rte_rds_close(client)");
	if (ctx->srv >= 0 && rte_rds_close(ctx->srv) < 0)
		perf_fail("rte_rds_close(server)");
	ctx->cli = ctx->srv = -1;
	if (rte_rds_detach() < 0)
		perf_fail("rte_rds_detach()");
}

/* The whole of an --attach run, in place of main()'s: a run per --size
 * (with --tasks, --progress, --histogram, --plot and
 * --rds-stress-columns as in process), the table, the JSON lines. */
int
perf_attach_main(int argc, char **argv)
{
	const char *path = NULL;
	const char *local = PERF_ATTACH_LOCAL_DEFAULT;
	const char *peer = PERF_ATTACH_PEER_DEFAULT;
	struct perf_opts opts = { 0 };
	struct perf_floors floors = { 0 };
	struct perf_sweep *sweep;
	struct perf_ctx ctx;
	uint64_t t0, t1, errors;
	double attach_ms;
	char **av;
	int ac;

	av = calloc((size_t)argc + 1, sizeof(*av));
	if (av == NULL)
		perf_die("out of memory");
	ac = perf_attach_args(argc, argv, av, &path, &local, &peer);
	if (perf_parse_args(ac, av, &opts) < 0 ||
	    perf_attach_check(&opts, local, peer) < 0) {
		perf_usage(argv[0]);
		free(av);
		return PERF_EXIT_USAGE;
	}
	opts.attach = path;
	opts.local = local;
	opts.peer = peer;
	perf_attach_tsc_hz = perf_tsc_calibrate();

	t0 = rte_rdtsc();
	if (rte_rds_attach(*path != '\0' ? path : NULL) < 0)
		perf_fail("rte_rds_attach(%s)", path);
	t1 = rte_rdtsc();
	attach_ms = (double)(t1 - t0) * 1e3 / (double)perf_attach_tsc_hz;

	perf_ctx_init(&ctx, &opts);
	ctx.attach_ms = attach_ms;
	perf_open_data_sockets(&ctx);
	sweep = perf_sweep_new(&opts);
	perf_sweep_attached(&ctx, &opts, sweep);
	printf("attach:       %s, rte_rds_attach() %.3f ms; TSC %" PRIu64 " Hz (measured)\n",
	       path, attach_ms, perf_attach_tsc_hz);
	perf_attach_close(&ctx);
	perf_ctx_free(&ctx);
	perf_sweep_end(sweep, &opts);	/* the table, --histogram, --plot */
	errors = perf_sweep_errors(sweep);
	if (opts.json)
		perf_sweep_json(sweep, &floors);
	perf_sweep_free(sweep);
	fflush(stdout);
	free(av);
	return errors != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

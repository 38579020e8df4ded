/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rds-perf --raw, the runs: the same client and server as over RDS, the
 * same phases (hello, 0.2 s warm-up, measured window, drain, done), the
 * same samples (rte_rdtsc() before a request's first frame is queued,
 * after the burst that brings its answer's last frame) and the same
 * output, over plain frames (perf_rawpkt.c) instead of RDS sockets:
 *
 *   lat     the client sends a message of --size bytes (in as many frames
 *           as it takes); the server echoes it when it has it whole.
 *   bw      up to --depth messages in flight; the server answers each with
 *           a REPLY frame (no payload), as RDS's 0-byte reply.
 *   stream  one way, as fast as the PMD takes frames; the server counts the
 *           messages it receives whole in its own window.
 *
 * Control (hello, done, the stream result) are struct perf_ctl_msg in
 * CTL frames, repeated every PERF_RAW_CTL_RETRY_MS until answered. The
 * hello goes to the broadcast MAC; each side then learns the other's MAC
 * from what it receives. Nothing else is sent again: a message with a
 * frame lost is lost (lat, bw: its answer is given up after
 * PERF_RAW_TIMEOUT_MS), and counted as such, not as an error. Errors are
 * what would be errors over RDS too: a wrong length or sequence number, a
 * message that comes back in the wrong order, counts that cannot be.
 */

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>

#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "perf.h"

__rte_noreturn __rte_format_printf(3, 4) void
perf_raw_give_up(struct perf_ctx *ctx, struct perf_raw *r, const char *fmt,
		 ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "rds-perf: --raw: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	fprintf(stderr, "  requests sent %" PRIu64 ", answers received %" PRIu64 ", requests received %" PRIu64 ", answers sent %" PRIu64 "\n",
		ctx->tx_seq, ctx->rx_seq, ctx->srv_rx, ctx->srv_tx);
	perf_raw_print_stats(&r->port, stderr);
	exit(EXIT_FAILURE);
}

/* The port's link for a message: "down" or "up". */
const char *
perf_raw_link(const struct perf_raw *r)
{
	struct rte_eth_link l;

	memset(&l, 0, sizeof(l));
	if (rte_eth_link_get_nowait(r->port.id, &l) != 0)
		return "unknown";
	return l.link_status == RTE_ETH_LINK_DOWN ? "down" : "up";
}

void
perf_raw_ctl(struct perf_raw *r, enum perf_ctl_type type,
	     const struct perf_opts *o, uint64_t v0, uint64_t v1, uint64_t v2)
{
	struct perf_ctl_msg m;

	perf_ctl_put(&m, type, o, rte_cpu_to_be_16(PERF_RAW_UDP_PORT), v0, v1,
		     v2);
	/* Control frames are rare: no room now is no room ever. */
	if (perf_raw_send_msg(&r->port, PERF_RAW_CTL, 0, (const uint8_t *)&m,
			      sizeof(m)) != 0)
		perf_die("--raw: no room for a control frame");
	perf_raw_flush(&r->port);
}

/* ------------------------------------------------------------------ */

static void
perf_raw_print(const struct perf_ctx *ctx, const struct perf_raw *r)
{
	perf_raw_print_stats(&r->port, stdout);
	printf("raw lost:     %" PRIu64 " messages (%s), %" PRIu64 " broken by a missing frame, %" PRIu64 " answers late (nothing is sent again)\n",
	       r->lost_msgs,
	       ctx->o->role == PERF_ROLE_SERVER ?
	       "sent by the client, not received whole" :
	       "without an answer", r->lost_frames, r->late);
}

/* One run of o->size on the open port r (client or server), to the text
 * output; its result in res. */
static void
perf_raw_run_one(struct perf_ctx *ctx, struct perf_opts *o, struct perf_raw *r,
		 struct perf_result *res)
{
	ctx->cli_name.sin_family = AF_INET;
	ctx->srv_name.sin_family = AF_INET;
	if (o->role == PERF_ROLE_CLIENT) {
		ctx->cli_name.sin_addr.s_addr = r->port.lip;
		ctx->cli_name.sin_port = rte_cpu_to_be_16(PERF_RAW_UDP_PORT);
		ctx->dst.sin_family = AF_INET;
		ctx->dst.sin_addr.s_addr = r->port.pip;
		ctx->dst.sin_port = rte_cpu_to_be_16(PERF_RAW_UDP_PORT);
		ctx->srv_name = ctx->dst;
		perf_raw_client_hello(ctx, r);
		perf_raw_client_run(ctx, r);
		perf_raw_client_done(ctx, r);
		r->lost_msgs = perf_is_stream(o->mode) ?
			ctx->tx_seq - ctx->peer_v[0] : r->lost_msgs;
		if (ctx->msgs == 0 && !perf_is_stream(o->mode))
			perf_error(ctx, "no round trip completed in the measured window");
		if (perf_is_stream(o->mode) && ctx->peer_msgs == 0)
			perf_error(ctx, "no message received in the measured window");
		perf_result(ctx, res);
		perf_print_result(ctx, res);
	} else {
		ctx->srv_name.sin_addr.s_addr = r->port.lip;
		ctx->srv_name.sin_port = rte_cpu_to_be_16(PERF_RAW_UDP_PORT);
		perf_raw_server_hello(ctx, r, o);
		perf_raw_server_run(ctx, r);
		perf_result(ctx, res);
		perf_print_server(ctx, res);
	}
	perf_raw_print(ctx, r);
	ctx->raw_lost = r->lost_msgs;
	ctx->raw_frame_mb_per_s = res->secs > 0 && perf_is_stream(o->mode) ?
		(double)r->bytes / res->secs / 1e6 : 0;
	if (perf_is_stream(o->mode))
		printf("raw payload:  %.3f MB/s (message bytes of every frame received in the window, whole messages or not)\n",
		       ctx->raw_frame_mb_per_s);
}

/*
 * --raw: the whole of this process (client or server): the port opened
 * once, then a run per --size (the client's list; the server runs as many
 * as the client's hellos announce), each added to the sweep. o is the
 * server's to change (each hello sets mode, size, depth).
 */
void
perf_raw_run(struct perf_ctx *ctx, struct perf_opts *o, struct perf_sweep *s)
{
	struct perf_result res;
	struct perf_raw *r;
	unsigned int i;

	r = rte_zmalloc("perf_raw", sizeof(*r), 0);
	if (r == NULL)
		perf_die("out of memory");
	perf_raw_port_open(o, &r->port);
	snprintf(ctx->eth_pmd, sizeof(ctx->eth_pmd), "%s", perf_eth_pmd(o));
	for (i = 0;; i++) {
		if (i > 0) {
			/* A new run: the counters again, the port kept. */
			memset((char *)r + sizeof(r->port), 0,
			       sizeof(*r) - sizeof(r->port));
			if (o->role == PERF_ROLE_CLIENT)
				o->size = o->sizes[i];
			perf_ctx_rerun(ctx, o);
			printf("\n");
		}
		if (o->role == PERF_ROLE_CLIENT) {
			ctx->run = i;
			ctx->runs = o->nb_sizes;
		}
		perf_raw_run_one(ctx, o, r, &res);
		perf_sweep_add(s, ctx, &res);
		if (ctx->run + 1 >= ctx->runs)
			break;
	}
	perf_raw_port_close(&r->port);
	rte_free(r);
}

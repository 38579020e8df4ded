/* SPDX-License-Identifier: BSD-3-Clause */

/* rds-perf run: warm-up, measured window, drain; stalls. */

#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>

#include "perf.h"

/* Nothing in flight on either side. stream: no replies, so the client
 * is quiet at once over ib (the server waits for the count the client's
 * done gives), and over loop when the server has every message. */
bool
perf_quiet(const struct perf_ctx *ctx)
{
	if (perf_is_stream(ctx->o->mode))
		return ctx->cli < 0 || ctx->srv < 0 ||
			ctx->srv_rx == ctx->tx_seq;
	return (ctx->cli < 0 || ctx->tx_seq == ctx->rx_seq) &&
		(ctx->srv < 0 || (ctx->owed_next == ctx->owed &&
				  ctx->srv_tx == ctx->srv_rx &&
				  ctx->notif_pending == 0));
}

/* No progress for PERF_STALL_S: say where everything stands, exit 1. */
__rte_noreturn void
perf_stalled(const struct perf_ctx *ctx, const char *phase)
{
	fflush(stdout);
	fprintf(stderr, "rds-perf: stalled: no message moved for %u s (%s)\n",
		PERF_STALL_S, phase);
	if (ctx->cli >= 0)	/* (ib: only the side this process plays) */
		fprintf(stderr, "  client: requests sent %" PRIu64 ", replies received %" PRIu64 ", in flight %" PRIu64 "\n",
			ctx->tx_seq, ctx->rx_seq, ctx->tx_seq - ctx->rx_seq);
	if (ctx->srv >= 0)
		fprintf(stderr, "  server: requests received %" PRIu64 ", replies sent %" PRIu64 ", replies owed %u\n",
			ctx->srv_rx, ctx->srv_tx, ctx->owed - ctx->owed_next);
	if (ctx->srv >= 0 && perf_is_rdma(ctx->o->mode))
		fprintf(stderr, "  server: RDMA notifications received %" PRIu64 " (%" PRIu64 " failed), still due %" PRIu64 "\n",
			ctx->notif_got, ctx->notif_failed,
			ctx->notif_pending);
	fprintf(stderr, "  send push-back: EAGAIN %" PRIu64 ", ENOBUFS %" PRIu64 "\n",
		ctx->eagain, ctx->enobufs);
	perf_print_stats(ctx->o, stderr);
	exit(EXIT_FAILURE);
}

/* A window that saw nothing (no round trip; stream with the receiver in
 * this process: no message) is extended past --secs until it does, so
 * that a machine busy enough to stall the run for longer than the window
 * gives a figure over the time it took, not an error; the stall watch
 * (PERF_STALL_S without progress) still ends a run that does not move.
 * The rates are over the window's real length (t_stop - t_start). */
static bool
perf_window_empty(const struct perf_ctx *ctx)
{
	if (perf_is_stream(ctx->o->mode))
		return ctx->srv >= 0 && ctx->msgs == 0;
	return ctx->msgs == 0;
}

/*
 * The run: warm-up (not counted), the measured window, then a drain in
 * which nothing new is sent, every request still in flight is answered,
 * and a short settle period catches any duplicate that would still come.
 */
void
perf_run(struct perf_ctx *ctx)
{
	enum { WARMUP, MEASURE, DRAIN } phase = WARMUP;
	static const char * const phase_name[] = {
		"warm-up", "measuring", "draining",
	};
	const uint64_t hz = perf_tsc_hz();
	uint64_t now = rte_rdtsc();
	const uint64_t warm_end = now + hz * PERF_WARMUP_MS / 1000;
	const uint64_t run_end = warm_end + (uint64_t)(ctx->o->secs * (double)hz);
	const uint64_t stall = hz * PERF_STALL_S;
	uint64_t settle_end = 0;
	uint64_t last_move = now;
	uint64_t moved = 0, cur;

	for (;;) {
		now = rte_rdtsc();
		if (phase == WARMUP && now >= warm_end) {
			phase = MEASURE;
			ctx->measuring = true;
			ctx->t_start = now;
			ctx->cpu_ns_start = perf_cpu_ns();
		} else if (phase == MEASURE && now >= run_end &&
			   !perf_window_empty(ctx)) {
			phase = DRAIN;
			ctx->measuring = false;
			ctx->t_stop = now;
			ctx->cpu_ns_stop = perf_cpu_ns();
		} else if (phase == DRAIN && perf_quiet(ctx)) {
			if (settle_end == 0)
				settle_end = now + hz * PERF_SETTLE_MS / 1000;
			else if (now >= settle_end)
				break;
		}

		if (ctx->cli >= 0) {
			perf_client_step(ctx, phase != DRAIN);
			perf_poll(ctx);
		}
		if (ctx->srv >= 0) {
			perf_server_step(ctx);
			perf_poll(ctx);
		}

		if (unlikely(ctx->progress != NULL))
			perf_progress_tick(ctx->progress, now,
					   phase_name[phase]);
		cur = ctx->tx_seq + ctx->rx_seq + ctx->srv_rx + ctx->srv_tx +
			ctx->notif_got;
		if (cur != moved) {
			moved = cur;
			last_move = now;
			continue;
		}
		if (now - last_move > stall)
			perf_stalled(ctx, phase_name[phase]);
		/* Attached, a step that moved nothing waits for the engine
		 * process: let it have the core if it shares ours. A loop
		 * that spins on MSG_DONTWAIT holds the core until the
		 * scheduler's tick takes it, and a round trip needs two
		 * engine passes: 8-12 ms round trips (doc/perf.md, "Attached
		 * 64 KiB stalls"). Alone on its core, the call returns at
		 * once. */
		if (ctx->o->attach != NULL)
			sched_yield();
	}
}

/* After the run (and, ib client, the done exchange): the counts of the
 * two sides agree (when this process plays both), every notification
 * asked for came, and the window saw a round trip (stream: the receiver
 * a message; over ib the server's count, when it sent one). */
void
perf_check_counts(struct perf_ctx *ctx)
{
	const uint64_t received = ctx->has_peer_result ? ctx->peer_msgs :
		ctx->msgs;

	if (ctx->cli >= 0 && ctx->srv >= 0 &&
	    (ctx->srv_rx != ctx->tx_seq || ctx->srv_tx != ctx->rx_seq))
		perf_error(ctx, "counts disagree: client sent %" PRIu64 ", server received %" PRIu64 ", server replied %" PRIu64 ", client received %" PRIu64,
			   ctx->tx_seq, ctx->srv_rx, ctx->srv_tx,
			   ctx->rx_seq);
	if (ctx->srv >= 0 && perf_is_rdma(ctx->o->mode))
		perf_rdma_server_final(ctx);
	if (perf_is_stream(ctx->o->mode)) {
		if (received == 0 && (ctx->srv >= 0 || ctx->has_peer_result))
			perf_error(ctx, "no message received in the measured window");
	} else if (ctx->msgs == 0) {
		perf_error(ctx, "no round trip completed in the measured window");
	}
}

/* SPDX-License-Identifier: BSD-3-Clause */

/* rds-perf --raw, the server: hello, requests in (reassembled, checked)
 * and answered (lat: echoed; bw: an empty REPLY) or counted (stream, in
 * the receiver's window), done. See perf_rawrun.c. */

#include <inttypes.h>
#include <stdlib.h>

#include <rte_mbuf.h>

#include "perf.h"

void
perf_raw_server_hello(struct perf_ctx *ctx, struct perf_raw *r,
		      struct perf_opts *o)
{
	const uint64_t hz = rte_get_tsc_hz();
	const uint64_t end = rte_rdtsc() + (uint64_t)(o->wait * (double)hz);
	struct rte_mbuf *m[PERF_BURST];
	struct perf_raw_frame f;
	struct perf_ctl_msg in;
	bool got = false;
	uint16_t i, n;
	char a[32];

	while (!got) {
		n = perf_raw_rx_burst(&r->port, m, PERF_BURST);
		for (i = 0; i < n; i++) {
			if (!got && perf_raw_parse(&r->port, m[i], &f) == 0 &&
			    f.type == PERF_RAW_CTL &&
			    perf_ctl_get(f.data, f.len, &in) == PERF_CTL_HELLO) {
				if (in.mode > PERF_MODE_STREAM ||
				    perf_is_rdma(in.mode) ||
				    (perf_is_stream(in.mode) &&
				     (in.v[1] < 1000 ||
				      in.v[1] > 86400ull * 1000000)) ||
				    in.size > RTE_RDS_MAX_MSG_SIZE ||
				    in.depth < 1 || in.depth > PERF_DEPTH_MAX)
					perf_error(ctx, "hello with mode %u, size %u, depth %u: ignored",
						   in.mode, in.size, in.depth);
				else
					got = true;
				if (got)
					perf_raw_learn(&r->port, &f);
			}
			rte_pktmbuf_free(m[i]);
		}
		if (!got && rte_rdtsc() > end) {
			ctx->srv_name.sin_port = rte_cpu_to_be_16(PERF_RAW_UDP_PORT);
			perf_raw_give_up(ctx, r, "no client said hello to %s within %.1f s (link %s)",
					 perf_sin_str(&ctx->srv_name, a,
						      sizeof(a)),
					 o->wait, perf_raw_link(r));
		}
	}
	perf_ctl_take_hello(ctx, o, &in);
	ctx->cli_name.sin_family = AF_INET;
	ctx->cli_name.sin_addr.s_addr = r->port.pip;
	ctx->cli_name.sin_port = rte_cpu_to_be_16(PERF_RAW_UDP_PORT);
	ctx->has_ctl = true;
	perf_raw_ctl(r, PERF_CTL_HELLO_ACK, o, 0, 0, 0);
	printf("rds-perf: --raw server %s: client %s says hello: mode %s, size %u, depth %u (run %u of %u)\n",
	       perf_sin_str(&ctx->srv_name, a, sizeof(a)),
	       inet_ntoa(ctx->cli_name.sin_addr), perf_mode_name(o->mode),
	       o->size, ctx->window, ctx->run + 1, ctx->runs);
	fflush(stdout);
}

/* A request came whole (seq, in srv_buf): check it, owe its answer. */
static void
perf_raw_server_request(struct perf_ctx *ctx, struct perf_raw *r,
			uint64_t seq)
{
	const uint32_t size = ctx->o->size;
	uint64_t got;

	if (seq < r->exp_seq) {
		perf_error(ctx, "request %" PRIu64 " after request %" PRIu64 " (duplicated or reordered)",
			   seq, r->exp_seq - 1);
		return;
	}
	r->lost_msgs += seq - r->exp_seq;
	r->exp_seq = seq + 1;
	if (perf_seq_check(ctx->srv_buf, size, seq, &got) < 0)
		perf_error(ctx, "request %" PRIu64 ": carries sequence number %" PRIu64,
			   seq, got);
	ctx->srv_rx++;
	if (perf_is_stream(ctx->o->mode)) {
		if (ctx->measuring)
			ctx->msgs++;
		return;
	}
	if (r->owed_n == RTE_DIM(r->owed)) {
		perf_error(ctx, "more than %zu answers owed", RTE_DIM(r->owed));
		return;
	}
	r->owed[(r->owed_head + r->owed_n) % RTE_DIM(r->owed)] = seq;
	r->owed_n++;
}

/* Queue the answers owed (lat: the echo of srv_buf; bw: a REPLY). */
static void
perf_raw_server_answer(struct perf_ctx *ctx, struct perf_raw *r)
{
	const bool lat = ctx->o->mode == PERF_MODE_LAT;
	uint64_t seq;

	while (r->owed_n != 0) {
		seq = r->owed[r->owed_head];
		if (perf_raw_send_msg(&r->port,
				      lat ? PERF_RAW_DATA : PERF_RAW_REPLY, seq,
				      ctx->srv_buf, lat ? ctx->o->size : 0) != 0)
			return;
		r->owed_head = (r->owed_head + 1) % RTE_DIM(r->owed);
		r->owed_n--;
		ctx->srv_tx++;
	}
}

static void
perf_raw_server_answer_done(struct perf_ctx *ctx, struct perf_raw *r)
{
	const uint64_t hz = rte_get_tsc_hz();

	if (perf_is_stream(ctx->o->mode))
		perf_raw_ctl(r, PERF_CTL_RESULT, ctx->o, ctx->msgs,
			     perf_cycles_ns(ctx->t_stop - ctx->t_start, hz),
			     r->bytes);
	perf_raw_ctl(r, PERF_CTL_DONE_ACK, ctx->o, ctx->srv_rx, ctx->srv_tx,
		     ctx->errors);
}

/* Frames in: requests, control. */
static void
perf_raw_server_recv(struct perf_ctx *ctx, struct perf_raw *r, uint64_t now,
		     uint64_t *last_rx, uint64_t *done_tsc)
{
	struct rte_mbuf *m[PERF_BURST];
	struct perf_raw_frame f;
	struct perf_ctl_msg in;
	uint16_t i, n;
	int ret;

	n = perf_raw_rx_burst(&r->port, m, PERF_BURST);
	if (n != 0)
		*last_rx = now;
	for (i = 0; i < n; i++) {
		if (perf_raw_parse(&r->port, m[i], &f) != 0) {
			/* not ours */
		} else if (f.type == PERF_RAW_CTL) {
			switch (perf_ctl_get(f.data, f.len, &in)) {
			case PERF_CTL_HELLO:
				ctx->ctl_ignored++;
				perf_raw_ctl(r, PERF_CTL_HELLO_ACK, ctx->o, 0,
					     0, 0);
				break;
			case PERF_CTL_DONE:
				if (!ctx->done) {
					ctx->done = true;
					*done_tsc = now;
					memcpy(ctx->peer_v, in.v,
					       sizeof(ctx->peer_v));
				}
				break;
			default:
				break;
			}
		} else if (f.type != PERF_RAW_DATA) {
			perf_error(ctx, "a frame of type %u from the client",
				   f.type);
		} else {
			if (ctx->measuring)
				r->bytes += f.len;
			ret = perf_raw_take(&r->rx, &f, ctx->srv_buf,
					    ctx->o->size, &r->lost_frames);
			if (ret < 0)
				perf_error(ctx, "request %" PRIu64 ": frames that do not make %u bytes",
					   f.seq, ctx->o->size);
			else if (ret == 1)
				perf_raw_server_request(ctx, r, r->rx.seq);
		}
		rte_pktmbuf_free(m[i]);
	}
}

/* stream: the receiver's window, as over RDS (perf_peer.c): the warm-up
 * from the first message, then --secs (the client's), or until done. */
static void
perf_raw_server_window(struct perf_ctx *ctx, uint64_t now, uint64_t *warm_end,
		       uint64_t *run_end)
{
	const uint64_t hz = rte_get_tsc_hz();

	if (*warm_end == 0) {
		if (ctx->srv_rx == 0 && !ctx->done)
			return;
		*warm_end = now + hz * PERF_WARMUP_MS / 1000;
		*run_end = *warm_end + (uint64_t)(ctx->o->secs * (double)hz);
	} else if (ctx->t_start == 0 && now >= *warm_end && !ctx->done) {
		ctx->measuring = true;
		ctx->t_start = now;
	} else if (ctx->measuring && (now >= *run_end || ctx->done)) {
		ctx->measuring = false;
		ctx->t_stop = now;
	}
}

void
perf_raw_server_run(struct perf_ctx *ctx, struct perf_raw *r)
{
	const uint64_t hz = rte_get_tsc_hz();
	const bool stream = perf_is_stream(ctx->o->mode);
	const uint64_t drain = hz * PERF_RAW_DRAIN_MS / 1000;
	const uint64_t stall = hz * PERF_STALL_S;
	uint64_t now = rte_rdtsc(), last_rx = now, done_tsc = 0;
	uint64_t warm_end = 0, run_end = 0, linger_end;
	struct rte_mbuf *m[PERF_BURST];
	struct perf_raw_frame f;
	struct perf_ctl_msg in;
	uint16_t i, n;

	for (;;) {
		now = rte_rdtsc();
		perf_raw_server_recv(ctx, r, now, &last_rx, &done_tsc);
		perf_raw_server_answer(ctx, r);
		perf_raw_flush(&r->port);
		if (stream)
			perf_raw_server_window(ctx, now, &warm_end, &run_end);
		if (ctx->done && r->owed_n == 0 && r->port.txq_n == 0 &&
		    !ctx->measuring && now - last_rx > drain)
			break;
		if (!ctx->done && now - last_rx > stall)
			perf_raw_give_up(ctx, r, "stalled: no frame from the client for %u s",
					 PERF_STALL_S);
		if (ctx->done && now - done_tsc > hz * PERF_DONE_WAIT_S)
			perf_raw_give_up(ctx, r, "frames keep coming %u s after done",
					 PERF_DONE_WAIT_S);
	}
	if (stream && ctx->t_stop == 0)
		ctx->t_stop = ctx->t_start;
	if (stream && ctx->msgs == 0)
		perf_error(ctx, "no message received in the measured window");
	if (ctx->peer_v[0] < ctx->srv_rx)
		perf_error(ctx, "received %" PRIu64 " requests, the client sent %" PRIu64,
			   ctx->srv_rx, ctx->peer_v[0]);
	r->lost_msgs = ctx->peer_v[0] - ctx->srv_rx;
	perf_raw_server_answer_done(ctx, r);
	/* The client repeats done until it has our answer. */
	linger_end = rte_rdtsc() + hz * PERF_RAW_LINGER_MS / 1000;
	while (rte_rdtsc() < linger_end) {
		perf_raw_flush(&r->port);
		n = perf_raw_rx_burst(&r->port, m, PERF_BURST);
		for (i = 0; i < n; i++) {
			if (perf_raw_parse(&r->port, m[i], &f) == 0 &&
			    f.type == PERF_RAW_CTL &&
			    perf_ctl_get(f.data, f.len, &in) == PERF_CTL_DONE)
				perf_raw_server_answer_done(ctx, r);
			rte_pktmbuf_free(m[i]);
		}
	}
}

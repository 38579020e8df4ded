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

struct perf_raw {
	struct perf_raw_port port;
	struct perf_raw_rx rx;
	uint64_t lost_frames;		/* messages broken by a missing frame */
	uint64_t lost_msgs;		/* client: answers given up; server:
					 * requests never received whole */
	uint64_t late;			/* client: answers after their time */
	uint64_t exp_seq;		/* server: next request expected */
	uint64_t bytes;			/* server, stream: message bytes of the
					 * frames received while measuring */
	uint64_t owed[PERF_DEPTH_MAX > 4096 ? 4096 : PERF_DEPTH_MAX];
	uint32_t owed_head, owed_n;	/* server: answers not queued yet */
};

static __rte_noreturn __rte_format_printf(3, 4) void
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
static const char *
perf_raw_link(const struct perf_raw *r)
{
	struct rte_eth_link l;

	memset(&l, 0, sizeof(l));
	if (rte_eth_link_get_nowait(r->port.id, &l) != 0)
		return "unknown";
	return l.link_status == RTE_ETH_LINK_DOWN ? "down" : "up";
}

static void
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
/* Client */

static void
perf_raw_client_hello(struct perf_ctx *ctx, struct perf_raw *r)
{
	const struct perf_opts *o = ctx->o;
	const uint64_t hz = rte_get_tsc_hz();
	const uint64_t t0 = rte_rdtsc();
	const uint64_t end = t0 + (uint64_t)(o->wait * (double)hz);
	const uint64_t retry = hz * PERF_RAW_CTL_RETRY_MS / 1000;
	struct rte_mbuf *m[PERF_BURST];
	struct perf_raw_frame f;
	struct perf_ctl_msg in;
	uint64_t next = t0, now;
	unsigned int sent = 0;
	uint16_t i, n;
	bool got = false;
	char a[32];

	while (!got) {
		now = rte_rdtsc();
		if (now >= next) {
			perf_raw_ctl(r, PERF_CTL_HELLO, o, 0,
				     perf_is_stream(o->mode) ?
				     (uint64_t)(o->secs * 1e6 + 0.5) : 0, 0);
			sent++;
			next = now + retry;
		}
		perf_raw_flush(&r->port);
		n = perf_raw_rx_burst(&r->port, m, PERF_BURST);
		for (i = 0; i < n; i++) {
			if (!got && perf_raw_parse(&r->port, m[i], &f) == 0 &&
			    f.type == PERF_RAW_CTL &&
			    perf_ctl_get(f.data, f.len, &in) ==
			    PERF_CTL_HELLO_ACK) {
				perf_raw_learn(&r->port, &f);
				got = true;
			}
			rte_pktmbuf_free(m[i]);
		}
		if (!got && now > end)
			perf_raw_give_up(ctx, r, "no answer from the server %s within %.1f s (hello sent %u times; link %s): is it running with --raw, --local %s, on the other end of this port?",
					 perf_sin_str(&ctx->dst, a, sizeof(a)),
					 o->wait, sent, perf_raw_link(r),
					 o->peer);
	}
	ctx->setup_ms = (double)(rte_rdtsc() - t0) * 1e3 / (double)hz;
	printf("rds-perf: server %s answered the hello after %.1f ms (hello sent %u times; not measured)\n",
	       perf_sin_str(&ctx->dst, a, sizeof(a)), ctx->setup_ms, sent);
}

/* Queue up to PERF_BURST requests (lat, bw: within the window). */
static void
perf_raw_client_send(struct perf_ctx *ctx, struct perf_raw *r)
{
	const uint32_t size = ctx->o->size;
	const bool stream = perf_is_stream(ctx->o->mode);
	unsigned int i;
	uint64_t tsc;

	for (i = 0; i < PERF_BURST; i++) {
		if (!stream && ctx->tx_seq - ctx->rx_seq >= ctx->window)
			break;
		perf_seq_put(ctx->cli_tx, size, ctx->tx_seq);
		tsc = rte_rdtsc();
		if (perf_raw_send_msg(&r->port, PERF_RAW_DATA, ctx->tx_seq,
				      ctx->cli_tx, size) != 0)
			break;
		ctx->sent_tsc[ctx->tx_seq % ctx->window] = tsc;
		ctx->tx_seq++;
		if (ctx->measuring)
			ctx->sent_msgs++;
	}
}

/* The answer to request seq came at tsc. */
static void
perf_raw_client_answer(struct perf_ctx *ctx, struct perf_raw *r,
		       uint64_t seq, uint64_t tsc)
{
	if (seq < ctx->rx_seq) {
		r->late++;		/* given up already */
		return;
	}
	if (seq >= ctx->tx_seq) {
		perf_error(ctx, "answer to request %" PRIu64 ", never sent (%" PRIu64 " sent)",
			   seq, ctx->tx_seq);
		return;
	}
	r->lost_msgs += seq - ctx->rx_seq;	/* older ones never answered */
	if (ctx->measuring) {
		perf_rtt_add(&ctx->rtt, tsc - ctx->sent_tsc[seq % ctx->window]);
		ctx->msgs++;
	}
	ctx->rx_seq = seq + 1;
}

static void
perf_raw_client_recv(struct perf_ctx *ctx, struct perf_raw *r)
{
	const uint32_t size = ctx->o->size;
	const enum perf_mode mode = ctx->o->mode;
	struct rte_mbuf *m[PERF_BURST];
	struct perf_raw_frame f;
	uint64_t tsc, got;
	uint16_t i, n;
	int ret;

	n = perf_raw_rx_burst(&r->port, m, PERF_BURST);
	if (n == 0)
		return;
	tsc = rte_rdtsc();
	for (i = 0; i < n; i++) {
		if (perf_raw_parse(&r->port, m[i], &f) != 0 ||
		    f.type == PERF_RAW_CTL) {
			/* (a late answer to a repeated hello) */
		} else if (mode == PERF_MODE_STREAM) {
			perf_error(ctx, "client got a frame (stream mode has no answers)");
		} else if (mode == PERF_MODE_BW) {
			if (f.type != PERF_RAW_REPLY || f.len != 0)
				perf_error(ctx, "bw: a %u-byte frame of type %u, expected an empty reply",
					   f.len, f.type);
			else
				perf_raw_client_answer(ctx, r, f.seq, tsc);
		} else if (f.type != PERF_RAW_DATA) {
			perf_error(ctx, "lat: a frame of type %u, expected the echo",
				   f.type);
		} else {
			ret = perf_raw_take(&r->rx, &f, ctx->cli_rx, size,
					    &r->lost_frames);
			if (ret < 0)
				perf_error(ctx, "reply %" PRIu64 ": frames that do not make %u bytes",
					   f.seq, size);
			if (ret == 1 && r->rx.seq >= ctx->rx_seq &&
			    perf_seq_check(ctx->cli_rx, size, r->rx.seq,
					   &got) < 0)
				perf_error(ctx, "reply %" PRIu64 ": echoes sequence number %" PRIu64,
					   r->rx.seq, got);
			if (ret == 1)
				perf_raw_client_answer(ctx, r, r->rx.seq, tsc);
		}
		rte_pktmbuf_free(m[i]);
	}
}

/* The client's run: as perf_run(), with answers given up after
 * PERF_RAW_TIMEOUT_MS. */
static void
perf_raw_client_run(struct perf_ctx *ctx, struct perf_raw *r)
{
	enum { WARMUP, MEASURE, DRAIN } phase = WARMUP;
	const uint64_t hz = rte_get_tsc_hz();
	const bool stream = perf_is_stream(ctx->o->mode);
	uint64_t now = rte_rdtsc();
	const uint64_t warm_end = now + hz * PERF_WARMUP_MS / 1000;
	const uint64_t run_end = warm_end +
		(uint64_t)(ctx->o->secs * (double)hz);
	const uint64_t timeout = hz * PERF_RAW_TIMEOUT_MS / 1000;
	const uint64_t stall = hz * PERF_STALL_S;
	uint64_t settle_end = 0, last_move = now, moved = 0, cur;
	bool quiet;

	for (;;) {
		now = rte_rdtsc();
		if (phase == WARMUP && now >= warm_end) {
			phase = MEASURE;
			ctx->measuring = true;
			ctx->t_start = now;
		} else if (phase == MEASURE && now >= run_end) {
			phase = DRAIN;
			ctx->measuring = false;
			ctx->t_stop = now;
		} else if (phase == DRAIN) {
			quiet = r->port.txq_n == 0 &&
				(stream || ctx->rx_seq == ctx->tx_seq);
			if (quiet && settle_end == 0)
				settle_end = now + hz * PERF_SETTLE_MS / 1000;
			else if (quiet && now >= settle_end)
				break;
		}
		if (phase != DRAIN)
			perf_raw_client_send(ctx, r);
		perf_raw_flush(&r->port);
		perf_raw_client_recv(ctx, r);
		if (!stream && ctx->rx_seq != ctx->tx_seq &&
		    now - ctx->sent_tsc[ctx->rx_seq % ctx->window] > timeout &&
		    now > ctx->sent_tsc[ctx->rx_seq % ctx->window]) {
			r->lost_msgs++;
			ctx->rx_seq++;
			r->rx.active = false;
		}
		cur = ctx->tx_seq + ctx->rx_seq + r->port.tx_frames;
		if (cur != moved) {
			moved = cur;
			last_move = now;
		} else if (now - last_move > stall) {
			perf_raw_give_up(ctx, r, "stalled: nothing moved for %u s",
					 PERF_STALL_S);
		}
	}
}

/* Done: our counts out, the server's back (stream: its result first). */
static void
perf_raw_client_done(struct perf_ctx *ctx, struct perf_raw *r)
{
	const uint64_t hz = rte_get_tsc_hz();
	const uint64_t retry = hz * PERF_RAW_CTL_RETRY_MS / 1000;
	const uint64_t end = rte_rdtsc() + hz * PERF_DONE_WAIT_S;
	const bool stream = perf_is_stream(ctx->o->mode);
	struct rte_mbuf *m[PERF_BURST];
	struct perf_raw_frame f;
	struct perf_ctl_msg in;
	uint64_t next = 0, now;
	bool acked = false;
	uint16_t i, n;
	int type;

	while (!acked || (stream && !ctx->has_peer_result)) {
		now = rte_rdtsc();
		if (now > end) {
			perf_error(ctx, "the server did not answer done within %u s",
				   PERF_DONE_WAIT_S);
			return;
		}
		if (now >= next) {
			perf_raw_ctl(r, PERF_CTL_DONE, ctx->o, ctx->tx_seq,
				     ctx->rx_seq, ctx->errors);
			next = now + retry;
		}
		perf_raw_flush(&r->port);
		n = perf_raw_rx_burst(&r->port, m, PERF_BURST);
		for (i = 0; i < n; i++) {
			if (perf_raw_parse(&r->port, m[i], &f) == 0 &&
			    f.type == PERF_RAW_CTL) {
				type = perf_ctl_get(f.data, f.len, &in);
				if (type == PERF_CTL_RESULT && stream) {
					ctx->has_peer_result = true;
					ctx->peer_msgs = in.v[0];
					ctx->peer_ns = in.v[1];
					r->bytes = in.v[2];
				} else if (type == PERF_CTL_DONE_ACK) {
					acked = true;
					memcpy(ctx->peer_v, in.v,
					       sizeof(ctx->peer_v));
				}
			}
			rte_pktmbuf_free(m[i]);
		}
	}
	if (ctx->peer_v[0] > ctx->tx_seq || ctx->peer_v[1] > ctx->peer_v[0] ||
	    ctx->rx_seq - r->lost_msgs > ctx->peer_v[1] ||
	    (stream && ctx->peer_v[1] != 0))
		perf_error(ctx, "counts cannot be: client sent %" PRIu64 ", server received %" PRIu64 ", server answered %" PRIu64 ", client received %" PRIu64,
			   ctx->tx_seq, ctx->peer_v[0], ctx->peer_v[1],
			   ctx->rx_seq);
	if (ctx->peer_v[2] != 0)
		perf_error(ctx, "the server counted %" PRIu64 " errors (see its output)",
			   ctx->peer_v[2]);
}

/* ------------------------------------------------------------------ */
/* Server */

static void
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
	uint8_t *buf;
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
	o->mode = (enum perf_mode)in.mode;
	o->size = in.size;
	o->depth = in.depth;
	if (perf_is_stream(o->mode))
		o->secs = (double)in.v[1] / 1e6;
	ctx->window = perf_window(o);
	buf = realloc(ctx->srv_buf, o->size + PERF_RX_SLACK);
	if (buf == NULL)
		perf_die("out of memory");
	ctx->srv_buf = buf;
	ctx->cli_name.sin_family = AF_INET;
	ctx->cli_name.sin_addr.s_addr = r->port.pip;
	ctx->cli_name.sin_port = rte_cpu_to_be_16(PERF_RAW_UDP_PORT);
	ctx->has_ctl = true;
	perf_raw_ctl(r, PERF_CTL_HELLO_ACK, o, 0, 0, 0);
	printf("rds-perf: --raw server %s: client %s says hello: mode %s, size %u, depth %u\n",
	       perf_sin_str(&ctx->srv_name, a, sizeof(a)),
	       inet_ntoa(ctx->cli_name.sin_addr), perf_mode_name(o->mode),
	       o->size, ctx->window);
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

static void
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

/*
 * --raw: the whole run of this process (client or server), to the text
 * output; the caller prints the JSON. o is the server's to change (the
 * client's hello sets mode, size, depth).
 */
void
perf_raw_run(struct perf_ctx *ctx, struct perf_opts *o, struct perf_result *res)
{
	struct perf_raw *r;

	r = rte_zmalloc("perf_raw", sizeof(*r), 0);
	if (r == NULL)
		perf_die("out of memory");
	perf_raw_port_open(o, &r->port);
	snprintf(ctx->eth_pmd, sizeof(ctx->eth_pmd), "%s", perf_eth_pmd(o));
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
	perf_raw_port_close(&r->port);
	rte_free(r);
}

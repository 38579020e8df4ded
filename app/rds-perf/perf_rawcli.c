/* SPDX-License-Identifier: BSD-3-Clause */

/* rds-perf --raw, the client: hello, requests out and answers in (lat,
 * bw) or one way (stream), answers given up after PERF_RAW_TIMEOUT_MS,
 * done. See perf_rawrun.c. */

#include <inttypes.h>
#include <stdlib.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "perf.h"

void
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
	uint64_t next = t0, relink = t0 + hz / 2, now;
	unsigned int sent = 0, restarts = 0;
	uint16_t i, n;
	bool got = false;
	char a[32];

	while (!got) {
		now = rte_rdtsc();
		if (now >= next) {
			/* v[2]: this run's index and the number of runs,
			 * as over RDS (perf_peer.c). */
			perf_raw_ctl(r, PERF_CTL_HELLO, o, 0,
				     perf_is_stream(o->mode) ?
				     (uint64_t)(o->secs * 1e6 + 0.5) : 0,
				     (uint64_t)ctx->run << 32 | ctx->runs);
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
		if (!got && now >= relink) {
			/* A net_memif client connects when its port starts:
			 * one started before its server never would. Start
			 * it again while its link stays down (as the eth
			 * transport's relink=1). */
			struct rte_eth_link l;

			memset(&l, 0, sizeof(l));
			if (rte_eth_link_get_nowait(r->port.id, &l) == 0 &&
			    l.link_status == RTE_ETH_LINK_DOWN &&
			    rte_eth_dev_stop(r->port.id) == 0 &&
			    rte_eth_dev_start(r->port.id) == 0)
				restarts++;
			relink = now + hz / 2;
		}
		if (!got && now > end)
			perf_raw_give_up(ctx, r, "no answer from the server %s within %.1f s (hello sent %u times; link %s): is it running with --raw, --local %s, on the other end of this port?",
					 perf_sin_str(&ctx->dst, a, sizeof(a)),
					 o->wait, sent, perf_raw_link(r),
					 o->peer);
	}
	ctx->setup_ms = (double)(rte_rdtsc() - t0) * 1e3 / (double)hz;
	printf("rds-perf: server %s answered the hello after %.1f ms (hello sent %u times, port restarted %u times; not measured)\n",
	       perf_sin_str(&ctx->dst, a, sizeof(a)), ctx->setup_ms, sent,
	       restarts);
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
void
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
		} else if (phase == MEASURE && now >= run_end &&
			   (stream || ctx->msgs != 0)) {
			/* A window without a round trip goes on until one
			 * completes, as over RDS (perf_run.c); the stall
			 * watch below still ends a run that does not move. */
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
void
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
	/* No polling while the server lingers and stops its port
	 * (net_memif, perf.h). */
	rte_delay_ms(PERF_RAW_LINGER_MS + PERF_ETH_BYE_MS);
}

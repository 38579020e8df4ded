/* SPDX-License-Identifier: BSD-3-Clause */

/* rds-perf client: requests out, replies in, round trips recorded; in
 * stream mode the sender (requests out, nothing back). */

#include <inttypes.h>
#include <sys/uio.h>

#include "perf.h"

/* Client: send request tx_seq. False when the library pushed back. */
static bool
perf_client_send(struct perf_ctx *ctx)
{
	uint32_t size = ctx->o->size;
	uint64_t tsc;
	ssize_t n;

	if (perf_is_rdma(ctx->o->mode))
		return perf_client_send_rdma(ctx);
	perf_seq_put(ctx->cli_tx, size, ctx->tx_seq);
	tsc = rte_rdtsc();
	n = rte_rds_sendto(ctx->cli, ctx->cli_tx, size, MSG_DONTWAIT,
			   (const struct sockaddr *)&ctx->dst,
			   sizeof(ctx->dst));
	if (n < 0) {
		perf_send_pushback(ctx, "rte_rds_sendto(client, request)");
		return false;
	}
	if ((size_t)n != size)
		perf_error(ctx, "request %" PRIu64 ": rte_rds_sendto returned %zd, not %u",
			   ctx->tx_seq, n, size);
	ctx->sent_tsc[ctx->tx_seq % ctx->window] = tsc;
	ctx->tx_seq++;
	if (ctx->measuring) {
		ctx->sent_msgs++;	/* stream: the sender's count */
		if (ctx->o->stress_columns) {	/* tx us/c */
			ctx->send_cycles += rte_rdtsc() - tsc;
			ctx->send_calls++;
		}
	}
	return true;
}

/* Client: take the replies that are there (rte_rds_recvmsg), check them
 * and record their round trips. */
static void
perf_client_recv(struct perf_ctx *ctx)
{
	const uint32_t size = ctx->o->size;
	const bool rdma = perf_is_rdma(ctx->o->mode);
	const uint32_t want = rdma ? PERF_RDMA_REPLY_LEN :
		ctx->o->mode == PERF_MODE_LAT ? size : 0;
	char a[32], b[32];
	unsigned int i;

	for (i = 0; i < PERF_BURST; i++) {
		struct sockaddr_in from;
		struct iovec iov = {
			.iov_base = ctx->cli_rx,
			.iov_len = size + PERF_RX_SLACK,
		};
		struct msghdr mh = {
			.msg_name = &from,
			.msg_namelen = sizeof(from),
			.msg_iov = &iov,
			.msg_iovlen = 1,
		};
		uint64_t tsc, got;
		ssize_t n;

		n = rte_rds_recvmsg(ctx->cli, &mh, MSG_DONTWAIT);
		tsc = rte_rdtsc();
		if (n < 0) {
			if (rte_errno == EAGAIN)
				return;
			perf_fail("rte_rds_recvmsg(client)");
		}
		if (n == 0 && mh.msg_namelen == 0) {
			perf_error(ctx, "client got a notification (it asked for none)");
			continue;
		}
		if (perf_is_stream(ctx->o->mode)) {
			perf_error(ctx, "client got a %zd-byte message from %s (stream mode has no replies)",
				   n, perf_sin_str(&from, a, sizeof(a)));
			continue;
		}
		if (ctx->rx_seq == ctx->tx_seq) {
			perf_error(ctx, "client got a %zd-byte reply with no request in flight (duplicate?)",
				   n);
			continue;
		}
		if ((size_t)n != want || (mh.msg_flags & MSG_TRUNC))
			perf_error(ctx, "reply %" PRIu64 ": %zd bytes%s, expected %u",
				   ctx->rx_seq, n,
				   (mh.msg_flags & MSG_TRUNC) ? " (MSG_TRUNC)" : "",
				   want);
		else if (want > 0 &&
			 perf_seq_check(ctx->cli_rx, want, ctx->rx_seq, &got) < 0)
			perf_error(ctx, "reply %" PRIu64 ": %s sequence number %" PRIu64,
				   ctx->rx_seq, rdma ? "carries" : "echoes",
				   got);
		if (ctx->o->mode == PERF_MODE_RDMA_WRITE)
			perf_rdma_client_check(ctx, ctx->rx_seq);
		if (!perf_sin_equal(&from, &ctx->dst))
			perf_error(ctx, "reply %" PRIu64 ": from %s, expected %s",
				   ctx->rx_seq,
				   perf_sin_str(&from, a, sizeof(a)),
				   perf_sin_str(&ctx->dst, b, sizeof(b)));
		if (ctx->measuring) {
			perf_rtt_add(&ctx->rtt,
				     tsc - ctx->sent_tsc[ctx->rx_seq % ctx->window]);
			ctx->msgs++;
		}
		ctx->rx_seq++;
	}
}

/* Client: fill the window (unless draining), then take replies. Replies
 * come back in order, so request rx_seq is the one being answered.
 * stream: no window (only the library's push-back holds the sender back),
 * and any message that comes is an error. */
void
perf_client_step(struct perf_ctx *ctx, bool may_send)
{
	const uint64_t window = perf_is_stream(ctx->o->mode) ? UINT64_MAX :
		ctx->window;
	unsigned int i;

	for (i = 0; may_send && i < PERF_BURST &&
	     ctx->tx_seq - ctx->rx_seq < window; i++)
		if (!perf_client_send(ctx))
			break;
	perf_client_recv(ctx);
}

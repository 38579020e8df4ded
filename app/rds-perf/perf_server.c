/* SPDX-License-Identifier: BSD-3-Clause */

/* rds-perf server: requests in, checked, answered; in stream mode the
 * receiver (messages in, checked, counted while measuring). */

#include <inttypes.h>
#include <sys/uio.h>

#include "perf.h"

/* Server: a control message came from the client's control socket. */
void
perf_server_control(struct perf_ctx *ctx, const void *p, size_t len)
{
	struct perf_ctl_msg m;

	switch (perf_ctl_get(p, len, &m)) {
	case PERF_CTL_HELLO:
		/* The client repeated its hello before our answer reached
		 * it: it has that answer by now. */
		ctx->ctl_ignored++;
		break;
	case PERF_CTL_DONE:
		if (ctx->done) {
			perf_error(ctx, "the client said done twice");
			break;
		}
		ctx->done = true;
		memcpy(ctx->peer_v, m.v, sizeof(ctx->peer_v));
		break;
	default:
		perf_error(ctx, "bad %zu-byte control message from the client",
			   len);
		break;
	}
}

/* Server: check one request; the sender is already in reply_to[idx]. */
void
perf_server_check(struct perf_ctx *ctx, const uint8_t *p, size_t len,
		  bool trunc, unsigned int idx)
{
	const uint32_t size = ctx->o->size;
	const struct sockaddr_in *from = &ctx->reply_to[idx];
	char a[32], b[32];
	uint64_t got;

	if (len != size || trunc)
		perf_error(ctx, "request %" PRIu64 ": %zu bytes%s, expected %u",
			   ctx->srv_rx, len, trunc ? " (MSG_TRUNC)" : "", size);
	else if (perf_seq_check(p, size, ctx->srv_rx, &got) < 0)
		perf_error(ctx, "request %" PRIu64 ": carries sequence number %" PRIu64 " (lost, duplicated or reordered)",
			   ctx->srv_rx, got);
	if (ctx->check_src && !perf_sin_equal(from, &ctx->cli_name))
		perf_error(ctx, "request %" PRIu64 ": from %s, expected %s",
			   ctx->srv_rx, perf_sin_str(from, a, sizeof(a)),
			   perf_sin_str(&ctx->cli_name, b, sizeof(b)));
	ctx->srv_rx++;
}

/* Server: send the replies still owed. True when none is left. */
static bool
perf_server_flush(struct perf_ctx *ctx)
{
	/* lat echoes the request (in srv_buf); bw answers with 0 bytes. */
	const size_t len = ctx->o->mode == PERF_MODE_LAT ? ctx->o->size : 0;

	while (ctx->owed_next < ctx->owed) {
		struct iovec iov = {
			.iov_base = ctx->srv_buf,
			.iov_len = len,
		};
		struct msghdr mh = {
			.msg_name = &ctx->reply_to[ctx->owed_next],
			.msg_namelen = sizeof(struct sockaddr_in),
			.msg_iov = &iov,
			.msg_iovlen = 1,
		};
		ssize_t n;

		n = rte_rds_sendmsg(ctx->srv, &mh, MSG_DONTWAIT);
		if (n < 0) {
			perf_send_pushback(ctx, "rte_rds_sendmsg(server, reply)");
			return false;
		}
		if ((size_t)n != len)
			perf_error(ctx, "reply %" PRIu64 ": rte_rds_sendmsg returned %zd, not %zu",
				   ctx->srv_tx, n, len);
		ctx->owed_next++;
		ctx->srv_tx++;
	}
	ctx->owed = 0;
	ctx->owed_next = 0;
	return true;
}

/* Server, lat: one request with rte_rds_recvmsg, into srv_buf. */
static void
perf_server_recv_copy(struct perf_ctx *ctx)
{
	struct iovec iov = {
		.iov_base = ctx->srv_buf,
		.iov_len = ctx->o->size + PERF_RX_SLACK,
	};
	struct msghdr mh = {
		.msg_name = &ctx->reply_to[0],
		.msg_namelen = sizeof(ctx->reply_to[0]),
		.msg_iov = &iov,
		.msg_iovlen = 1,
	};
	ssize_t n;

	n = rte_rds_recvmsg(ctx->srv, &mh, MSG_DONTWAIT);
	if (n < 0) {
		if (rte_errno == EAGAIN)
			return;
		perf_fail("rte_rds_recvmsg(server)");
	}
	if (ctx->has_ctl && perf_sin_equal(&ctx->reply_to[0], &ctx->ctl_src)) {
		perf_server_control(ctx, ctx->srv_buf, (size_t)n);
		return;
	}
	perf_server_check(ctx, ctx->srv_buf, (size_t)n,
			  (mh.msg_flags & MSG_TRUNC) != 0, 0);
	ctx->owed = 1;
}

/* Server, bw: a burst of requests with the zero-copy API. */
static void
perf_server_recv_zc(struct perf_ctx *ctx)
{
	struct rte_rds_msg *m[PERF_BURST];
	uint16_t i, n, k = 0;

	n = rte_rds_recv_burst(ctx->srv, m, PERF_BURST);
	for (i = 0; i < n; i++) {
		rte_rds_msg_src(m[i], &ctx->reply_to[k]);
		if (ctx->has_ctl &&
		    perf_sin_equal(&ctx->reply_to[k], &ctx->ctl_src))
			perf_server_control(ctx, rte_rds_msg_data(m[i]),
					    rte_rds_msg_len(m[i]));
		else
			perf_server_check(ctx, rte_rds_msg_data(m[i]),
					  rte_rds_msg_len(m[i]), false, k++);
		rte_rds_msg_free(m[i]);
	}
	ctx->owed = k;
}

/* Server, stream: a burst of messages with the zero-copy API, checked
 * (sender, length, sequence: once and in order) and counted while
 * measuring. No replies. */
static void
perf_server_recv_stream(struct perf_ctx *ctx)
{
	struct rte_rds_msg *m[PERF_BURST];
	uint16_t i, n;

	n = rte_rds_recv_burst(ctx->srv, m, PERF_BURST);
	for (i = 0; i < n; i++) {
		rte_rds_msg_src(m[i], &ctx->reply_to[0]);
		if (ctx->has_ctl &&
		    perf_sin_equal(&ctx->reply_to[0], &ctx->ctl_src)) {
			perf_server_control(ctx, rte_rds_msg_data(m[i]),
					    rte_rds_msg_len(m[i]));
		} else {
			perf_server_check(ctx, rte_rds_msg_data(m[i]),
					  rte_rds_msg_len(m[i]), false, 0);
			if (ctx->measuring)
				ctx->msgs++;
		}
		rte_rds_msg_free(m[i]);
	}
}

/* Server: finish the replies owed, then take new requests and answer
 * them. Requests stay in the library (counted against the receive buffer)
 * until every earlier reply is out: that is the back-pressure. stream:
 * take messages and count them. */
void
perf_server_step(struct perf_ctx *ctx)
{
	if (perf_is_rdma(ctx->o->mode)) {
		perf_server_rdma_step(ctx);
		return;
	}
	if (perf_is_stream(ctx->o->mode)) {
		if (ctx->o->attach != NULL)
			perf_attach_server_recv(ctx);
		else
			perf_server_recv_stream(ctx);
		return;
	}
	if (!perf_server_flush(ctx))
		return;
	if (ctx->o->mode == PERF_MODE_LAT)
		perf_server_recv_copy(ctx);
	else if (ctx->o->attach != NULL)
		perf_attach_server_recv(ctx);	/* no zero-copy in a client */
	else
		perf_server_recv_zc(ctx);
	perf_server_flush(ctx);
}

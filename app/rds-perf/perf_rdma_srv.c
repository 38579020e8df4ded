/* SPDX-License-Identifier: BSD-3-Clause */

/* rds-perf RDMA modes: the server's side (requests, replies that carry
 * the RDMA, notifications), and the loop transport's handshake. */

#include <inttypes.h>
#include <sys/uio.h>

#include "perf.h"

/* Server, RDMA modes: one notification (RDS_CMSG_RDMA_STATUS). */
static void
perf_server_rdma_status(struct perf_ctx *ctx, uint64_t token, int status)
{
	const uint32_t size = ctx->o->size;
	uint32_t l;
	bool full;

	ctx->notif_got++;
	if (status != RDS_RDMA_SUCCESS) {
		ctx->notif_failed++;
		perf_error(ctx, "op %" PRIu64 ": notification status %d (%s), not RDS_RDMA_SUCCESS",
			   token, status, perf_rdma_status_name(status));
		if (!perf_rdma_notify(ctx, token))
			return;	/* RDS_RECVERR: not asked for */
	} else if (!perf_rdma_notify(ctx, token) || token >= ctx->srv_tx) {
		perf_error(ctx, "op %" PRIu64 ": notification that was not asked for (%" PRIu64 " ops sent)",
			   token, ctx->srv_tx);
		return;
	}
	if (ctx->notif_pending == 0) {
		perf_error(ctx, "op %" PRIu64 ": one notification too many",
			   token);
		return;
	}
	ctx->notif_pending--;
	if (ctx->o->mode != PERF_MODE_RDMA_READ)
		return;
	l = (uint32_t)(token % ctx->window);
	if (!ctx->srv_busy[l]) {
		perf_error(ctx, "op %" PRIu64 ": notified twice", token);
		return;
	}
	ctx->srv_busy[l] = 0;
	if (status != RDS_RDMA_SUCCESS || !ctx->srv_stamped[l])
		return;
	full = ctx->srv_checked % PERF_RDMA_FULL_CHECK_EVERY == 0;
	perf_rdma_check(ctx, ctx->srv_local + (size_t)l * size, token, full,
			"rdma-read: server buffer after op");
	ctx->srv_checked++;
	if (full)
		ctx->srv_full_checked++;
}

/* Server, RDMA modes: take one message with rte_rds_recvmsg (which hands
 * out notifications first): a notification, a control message or a
 * request. False when there was none. */
static bool
perf_server_rdma_recv(struct perf_ctx *ctx)
{
	union {
		struct cmsghdr align;
		uint8_t b[PERF_RDMA_NOTIFY_BURST *
			  CMSG_SPACE(sizeof(struct rds_rdma_notify))];
	} cbuf;
	struct sockaddr_in from;
	struct iovec iov = {
		.iov_base = ctx->srv_buf,
		.iov_len = ctx->o->size + PERF_RX_SLACK,
	};
	struct msghdr mh = {
		.msg_name = &from,
		.msg_namelen = sizeof(from),
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = &cbuf,
		.msg_controllen = sizeof(cbuf.b),
	};
	struct cmsghdr *cm;
	char a[32], b[32];
	uint64_t req[2];
	unsigned int k = 0;
	ssize_t n;

	n = rte_rds_recvmsg(ctx->srv, &mh, MSG_DONTWAIT);
	if (n < 0) {
		if (rte_errno == EAGAIN)
			return false;
		perf_fail("rte_rds_recvmsg(server)");
	}
	if (n == 0 && mh.msg_namelen == 0) {
		/* Notifications: an empty message without an address. */
		for (cm = CMSG_FIRSTHDR(&mh); cm != NULL;
		     cm = CMSG_NXTHDR(&mh, cm)) {
			struct rds_rdma_notify nt;

			if (cm->cmsg_level != SOL_RDS ||
			    cm->cmsg_type != RDS_CMSG_RDMA_STATUS ||
			    cm->cmsg_len < CMSG_LEN(sizeof(nt))) {
				perf_error(ctx, "unexpected control message (level %d, type %d) in a notification",
					   cm->cmsg_level, cm->cmsg_type);
				continue;
			}
			memcpy(&nt, CMSG_DATA(cm), sizeof(nt));
			perf_server_rdma_status(ctx, nt.user_token, nt.status);
			k++;
		}
		if (k == 0)
			perf_error(ctx, "an empty message without an address and without RDS_CMSG_RDMA_STATUS");
		return true;
	}
	if (ctx->has_ctl && perf_sin_equal(&from, &ctx->ctl_src)) {
		perf_server_control(ctx, ctx->srv_buf, (size_t)n);
		return true;
	}
	memset(req, 0, sizeof(req));
	if (n != PERF_RDMA_REQ_LEN || (mh.msg_flags & MSG_TRUNC)) {
		perf_error(ctx, "request %" PRIu64 ": %zd bytes%s, expected %u",
			   ctx->srv_rx, n,
			   (mh.msg_flags & MSG_TRUNC) ? " (MSG_TRUNC)" : "",
			   PERF_RDMA_REQ_LEN);
	} else {
		memcpy(req, ctx->srv_buf, sizeof(req));
		if (req[0] != ctx->srv_rx)
			perf_error(ctx, "request %" PRIu64 ": carries sequence number %" PRIu64 " (lost, duplicated or reordered)",
				   ctx->srv_rx, req[0]);
	}
	if (ctx->check_src && !perf_sin_equal(&from, &ctx->cli_name))
		perf_error(ctx, "request %" PRIu64 ": from %s, expected %s",
			   ctx->srv_rx, perf_sin_str(&from, a, sizeof(a)),
			   perf_sin_str(&ctx->cli_name, b, sizeof(b)));
	if (ctx->srv_rx - ctx->srv_tx >= ctx->window)
		perf_error(ctx, "request %" PRIu64 ": more than %u requests unanswered",
			   ctx->srv_rx, ctx->window);
	ctx->req_flags[ctx->srv_rx % ctx->window] = (uint32_t)req[1];
	ctx->srv_rx++;
	return true;
}

/* Server, RDMA modes: answer the requests received, in order, each with
 * an 8-byte reply (its sequence number) that carries the RDMA
 * (RDS_CMSG_RDMA_ARGS) to the client's slot. False when the library
 * pushed back, or (rdma-read) the local buffer is still owned by an op
 * whose notification has not come yet. */
static bool
perf_server_rdma_flush(struct perf_ctx *ctx)
{
	const struct perf_opts *o = ctx->o;
	const bool read = o->mode == PERF_MODE_RDMA_READ;

	while (ctx->srv_tx < ctx->srv_rx) {
		union {
			struct cmsghdr align;
			uint8_t b[CMSG_SPACE(sizeof(struct rds_rdma_args))];
		} cbuf;
		const uint64_t seq = ctx->srv_tx;
		const uint32_t l = read ? (uint32_t)(seq % ctx->window) : 0;
		const bool notify = perf_rdma_notify(ctx, seq);
		struct rds_iovec lv = {
			.addr = (uintptr_t)(ctx->srv_local + (size_t)l * o->size),
			.bytes = o->size,
		};
		struct rds_rdma_args ra;
		uint64_t reply = seq;
		struct iovec iov = {
			.iov_base = &reply,
			.iov_len = sizeof(reply),
		};
		struct msghdr mh = {
			.msg_name = &ctx->cli_name,
			.msg_namelen = sizeof(ctx->cli_name),
			.msg_iov = &iov,
			.msg_iovlen = 1,
			.msg_control = &cbuf,
			.msg_controllen = sizeof(cbuf.b),
		};
		struct cmsghdr *cm;
		ssize_t n;

		if (read && ctx->srv_busy[l])
			return false;	/* its notification is due first */
		if (!read)
			perf_seq_put(ctx->srv_local, o->size, seq);
		memset(&ra, 0, sizeof(ra));
		ra.cookie = ctx->peer_cookie;
		ra.remote_vec.addr = (seq % ctx->slots) * o->size;
		ra.remote_vec.bytes = o->size;
		ra.local_vec_addr = (uintptr_t)&lv;
		ra.nr_local = 1;
		ra.flags = (read ? 0 : RDS_RDMA_READWRITE) |
			   (notify ? RDS_RDMA_NOTIFY_ME : 0);
		ra.user_token = seq;
		memset(&cbuf, 0, sizeof(cbuf));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_RDS;
		cm->cmsg_type = RDS_CMSG_RDMA_ARGS;
		cm->cmsg_len = CMSG_LEN(sizeof(ra));
		memcpy(CMSG_DATA(cm), &ra, sizeof(ra));

		n = rte_rds_sendmsg(ctx->srv, &mh, MSG_DONTWAIT);
		if (n < 0) {
			perf_send_pushback(ctx, "rte_rds_sendmsg(server, reply with RDS_CMSG_RDMA_ARGS)");
			return false;
		}
		if ((size_t)n != sizeof(reply))
			perf_error(ctx, "reply %" PRIu64 ": rte_rds_sendmsg returned %zd, not %zu",
				   seq, n, sizeof(reply));
		if (notify)
			ctx->notif_pending++;
		if (read) {
			ctx->srv_busy[l] = 1;
			ctx->srv_stamped[l] =
				(ctx->req_flags[seq % ctx->window] &
				 PERF_REQ_STAMPED) != 0;
		}
		ctx->srv_tx++;
	}
	return true;
}

/* Server, RDMA modes: answer, take what came (notifications, requests),
 * answer again. */
void
perf_server_rdma_step(struct perf_ctx *ctx)
{
	unsigned int i;

	perf_server_rdma_flush(ctx);
	for (i = 0; i < PERF_BURST; i++)
		if (!perf_server_rdma_recv(ctx))
			break;
	perf_server_rdma_flush(ctx);
}

/* Server, RDMA modes, after the run: every notification asked for came,
 * and op 0's at least. */
void
perf_rdma_server_final(struct perf_ctx *ctx)
{
	if (ctx->notif_pending != 0)
		perf_error(ctx, "%" PRIu64 " notifications asked for never came",
			   ctx->notif_pending);
	if (ctx->srv_tx > 0 && ctx->notif_got == 0)
		perf_error(ctx, "no notification came (op 0 asked for one)");
}

/*
 * Loop, RDMA modes: the handshake, before the warm-up. The client ships
 * its cookie (RDS_CMSG_RDMA_DEST) in a hello from its data socket; the
 * server takes it with rte_rds_recvmsg.
 */
void
perf_rdma_loop_handshake(struct perf_ctx *ctx)
{
	const uint64_t hz = rte_get_tsc_hz();
	const uint64_t end = rte_rdtsc() + hz * PERF_STALL_S;
	union {
		struct cmsghdr align;
		uint8_t b[CMSG_SPACE(sizeof(uint64_t)) + 64];
	} cbuf;
	struct perf_ctl_msg m, in;
	struct sockaddr_in from;
	uint64_t cookie = 0;
	bool sent = false;
	char a[32];
	ssize_t n;

	perf_ctl_put(&m, PERF_CTL_HELLO, ctx->o, ctx->cli_name.sin_port,
		     ctx->slots, 0, 0);
	for (;;) {
		struct iovec iov = {
			.iov_base = ctx->srv_buf,
			.iov_len = ctx->o->size + PERF_RX_SLACK,
		};
		struct msghdr mh = {
			.msg_name = &from,
			.msg_namelen = sizeof(from),
			.msg_iov = &iov,
			.msg_iovlen = 1,
			.msg_control = &cbuf,
			.msg_controllen = sizeof(cbuf.b),
		};

		if (!sent) {
			n = perf_ctl_sendmsg(ctx, ctx->cli, &ctx->dst, &m);
			if (n >= 0)
				sent = true;
			else if (rte_errno != EAGAIN && rte_errno != ENOBUFS)
				perf_fail("rte_rds_sendmsg(client, hello with RDS_CMSG_RDMA_DEST)");
		}
		perf_poll(ctx);
		n = rte_rds_recvmsg(ctx->srv, &mh, MSG_DONTWAIT);
		if (n >= 0) {
			if (!perf_sin_equal(&from, &ctx->cli_name) ||
			    perf_ctl_get(ctx->srv_buf, (size_t)n, &in) !=
			    PERF_CTL_HELLO ||
			    !perf_cmsg_cookie(&mh, &cookie))
				perf_error(ctx, "RDMA handshake: a %zd-byte message from %s that is not the client's hello with its cookie",
					   n, perf_sin_str(&from, a, sizeof(a)));
			break;
		}
		if (rte_errno != EAGAIN)
			perf_fail("rte_rds_recvmsg(server, hello)");
		if (rte_rdtsc() > end)
			perf_stalled(ctx, "RDMA handshake");
	}
	if (cookie != ctx->cookie)
		perf_error(ctx, "RDMA handshake: the server got cookie 0x%016" PRIx64 ", the client sent 0x%016" PRIx64,
			   cookie, ctx->cookie);
	ctx->has_cookie = true;
	ctx->peer_cookie = cookie;
}

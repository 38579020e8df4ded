/* SPDX-License-Identifier: BSD-3-Clause */

/* rds-perf with two processes (the ib and eth transports): the client's
 * hello and done, the server's hello, run (stream: its own measured
 * window) and done. */

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/uio.h>

#include "perf.h"

/* No peer within the allowed time. Print the counters, exit 1. */
__rte_noreturn __rte_format_printf(2, 3) void
perf_gave_up(const struct perf_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "rds-perf: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	perf_print_stats(ctx->o, stderr);
	exit(EXIT_FAILURE);
}

/*
 * Client: say hello from the control socket, again every
 * PERF_HELLO_RETRY_MS, until the server answers, for up to --wait. The
 * first send sets the connection up (and may wait for the server to come
 * up): that time is printed, not measured.
 */
void
perf_peer_client_hello(struct perf_ctx *ctx)
{
	const struct perf_opts *o = ctx->o;
	const uint64_t hz = rte_get_tsc_hz();
	const uint64_t t0 = rte_rdtsc();
	const uint64_t end = t0 + (uint64_t)(o->wait * (double)hz);
	const uint64_t retry = hz * PERF_HELLO_RETRY_MS / 1000;
	uint8_t buf[sizeof(struct perf_ctl_msg) + PERF_RX_SLACK];
	struct perf_ctl_msg m, in;
	struct sockaddr_in from;
	uint64_t next = t0, now;
	unsigned int sent = 0;
	socklen_t flen;
	char a[32], why[384];
	ssize_t n;

	/* stream: the server measures for --secs too (in us); a size
	 * list: this run's index and the number of runs. */
	perf_ctl_put(&m, PERF_CTL_HELLO, o, ctx->cli_name.sin_port,
		     ctx->slots, perf_is_stream(o->mode) ?
		     (uint64_t)(o->secs * 1e6 + 0.5) : 0,
		     (uint64_t)ctx->run << 32 | ctx->runs);
	for (;;) {
		now = rte_rdtsc();
		if (now >= next) {
			/* RDMA modes: the cookie goes with every hello. */
			n = perf_ctl_sendmsg(ctx, ctx->ctl, &ctx->dst, &m);
			if (n >= 0)
				sent++;
			else if (rte_errno != EAGAIN && rte_errno != ENOBUFS)
				perf_fail("rte_rds_sendto(control, hello)");
			next = now + retry;
		}
		perf_poll(ctx);
		flen = sizeof(from);
		n = rte_rds_recvfrom(ctx->ctl, buf, sizeof(buf), MSG_DONTWAIT,
				     (struct sockaddr *)&from, &flen);
		if (n >= 0) {
			if (perf_sin_equal(&from, &ctx->dst) &&
			    perf_ctl_get(buf, (size_t)n, &in) ==
			    PERF_CTL_HELLO_ACK)
				break;
			perf_error(ctx, "unexpected %zd-byte message from %s on the control socket",
				   n, perf_sin_str(&from, a, sizeof(a)));
			continue;
		}
		if (rte_errno != EAGAIN)
			perf_fail("rte_rds_recvfrom(control)");
		if (now > end && o->transport == PERF_TRANSPORT_ETH) {
			perf_eth_diag(o, why, sizeof(why));
			perf_gave_up(ctx, "no answer from the server %s within %.1f s (hello sent %u times): %s",
				     perf_sin_str(&ctx->dst, a, sizeof(a)),
				     o->wait, sent, why);
		}
		if (now > end)
			perf_gave_up(ctx, "no answer from the server %s within %.1f s (hello sent %u times): is it running, with --port %u, and is %s an ib address?",
				     perf_sin_str(&ctx->dst, a, sizeof(a)),
				     o->wait, sent, o->port, o->peer);
	}
	ctx->setup_ms = (double)(rte_rdtsc() - t0) * 1e3 / (double)hz;
	printf("rds-perf: server %s answered the hello after %.1f ms (hello sent %u times; connection set-up included, not measured)\n",
	       perf_sin_str(&ctx->dst, a, sizeof(a)), ctx->setup_ms, sent);
}

/* Client, after the run: say done with our counts and compare them
 * with the server's answer. stream: the server's count and window come
 * first (PERF_CTL_RESULT). */
void
perf_peer_client_done(struct perf_ctx *ctx)
{
	const uint64_t hz = rte_get_tsc_hz();
	uint8_t buf[sizeof(struct perf_ctl_msg) + PERF_RX_SLACK];
	struct perf_ctl_msg m, in;
	struct sockaddr_in from;
	uint64_t end;
	socklen_t flen;
	char a[32];
	ssize_t n;

	perf_ctl_put(&m, PERF_CTL_DONE, ctx->o, ctx->cli_name.sin_port,
		     ctx->tx_seq, ctx->rx_seq, ctx->errors);
	perf_ctl_send(ctx, ctx->ctl, &ctx->dst, &m, "control, done",
		      PERF_DONE_WAIT_S);
	end = rte_rdtsc() + hz * PERF_DONE_WAIT_S;
	for (;;) {
		perf_poll(ctx);
		flen = sizeof(from);
		n = rte_rds_recvfrom(ctx->ctl, buf, sizeof(buf), MSG_DONTWAIT,
				     (struct sockaddr *)&from, &flen);
		if (n >= 0) {
			int type = perf_ctl_get(buf, (size_t)n, &in);

			if (!perf_sin_equal(&from, &ctx->dst) || type == 0) {
				perf_error(ctx, "unexpected %zd-byte message from %s on the control socket",
					   n, perf_sin_str(&from, a, sizeof(a)));
				continue;
			}
			if (type == PERF_CTL_DONE_ACK)
				break;
			if (type == PERF_CTL_RESULT &&
			    perf_is_stream(ctx->o->mode)) {
				ctx->has_peer_result = true;
				ctx->peer_msgs = in.v[0];
				ctx->peer_ns = in.v[1];
				continue;
			}
			continue;	/* a late answer to a repeated hello */
		}
		if (rte_errno != EAGAIN)
			perf_fail("rte_rds_recvfrom(control)");
		if (rte_rdtsc() > end) {
			perf_error(ctx, "the server did not answer done within %u s",
				   PERF_DONE_WAIT_S);
			return;
		}
	}
	memcpy(ctx->peer_v, in.v, sizeof(ctx->peer_v));
	if (in.v[0] != ctx->tx_seq || in.v[1] != ctx->rx_seq)
		perf_error(ctx, "counts disagree: client sent %" PRIu64 ", server received %" PRIu64 ", server replied %" PRIu64 ", client received %" PRIu64,
			   ctx->tx_seq, in.v[0], in.v[1], ctx->rx_seq);
	if (in.v[2] != 0)
		perf_error(ctx, "the server counted %" PRIu64 " errors (see its output)",
			   in.v[2]);
	if (perf_is_stream(ctx->o->mode) && !ctx->has_peer_result)
		perf_error(ctx, "the server sent no result (its count of messages received)");
	if (ctx->o->transport == PERF_TRANSPORT_ETH &&
	    ctx->run + 1 >= ctx->runs) {
		/* The last run (more: the next hello follows at once).
		 * Our acknowledgements out, then quiet while the server
		 * lingers and stops its port (PERF_ETH_BYE_MS). */
		end = rte_rdtsc() + hz * PERF_ETH_BYE_POLL_MS / 1000;
		while (rte_rdtsc() < end)
			perf_poll(ctx);
		rte_delay_ms(PERF_LINGER_MS + PERF_ETH_BYE_MS);
	}
}

/*
 * Server: wait up to --wait for the client's hello, take the mode, size
 * and depth from it, size the buffers, answer. From then on, messages from
 * the hello's source are control messages, and requests must come from
 * the hello's address and data port.
 */
void
perf_peer_server_hello(struct perf_ctx *ctx, struct perf_opts *o)
{
	const uint64_t hz = rte_get_tsc_hz();
	const uint64_t end = rte_rdtsc() + (uint64_t)(o->wait * (double)hz);
	struct perf_ctl_msg m, in;
	struct sockaddr_in from;
	union {
		struct cmsghdr align;
		uint8_t b[CMSG_SPACE(sizeof(uint64_t)) + 64];
	} cbuf;
	uint64_t cookie = 0;
	bool has_cookie;
	char a[32], b[32], c[32];
	ssize_t n;

	for (;;) {
		struct iovec iov = {
			.iov_base = ctx->srv_buf,
			.iov_len = o->size + PERF_RX_SLACK,
		};
		struct msghdr mh = {
			.msg_name = &from,
			.msg_namelen = sizeof(from),
			.msg_iov = &iov,
			.msg_iovlen = 1,
			.msg_control = &cbuf,
			.msg_controllen = sizeof(cbuf.b),
		};

		perf_poll(ctx);
		n = rte_rds_recvmsg(ctx->srv, &mh, MSG_DONTWAIT);
		if (n < 0) {
			if (rte_errno != EAGAIN)
				perf_fail("rte_rds_recvfrom(server)");
			if (rte_rdtsc() > end)
				perf_gave_up(ctx, "no client said hello to %s within %.1f s",
					     perf_sin_str(&ctx->srv_name, a,
							  sizeof(a)),
					     o->wait);
			continue;
		}
		if (n == 0 && mh.msg_namelen == 0) {
			perf_error(ctx, "a notification before any hello");
			continue;
		}
		if (perf_ctl_get(ctx->srv_buf, (size_t)n, &in) !=
		    PERF_CTL_HELLO) {
			perf_error(ctx, "%zd-byte message from %s before any hello: ignored",
				   n, perf_sin_str(&from, a, sizeof(a)));
			continue;
		}
		if (o->peer != NULL &&
		    from.sin_addr.s_addr != ctx->cli_name.sin_addr.s_addr) {
			perf_error(ctx, "hello from %s, not from --peer %s: ignored",
				   perf_sin_str(&from, a, sizeof(a)), o->peer);
			continue;
		}
		if (in.mode > PERF_MODE_STREAM ||
		    (perf_is_stream(in.mode) &&
		     (in.v[1] < 1000 || in.v[1] > 86400ull * 1000000)) ||
		    in.size > RTE_RDS_MAX_MSG_SIZE ||
		    in.depth < 1 || in.depth > PERF_DEPTH_MAX ||
		    (perf_is_rdma(in.mode) &&
		     (in.size == 0 || in.v[0] < 1 || in.v[0] > in.depth ||
		      (in.v[0] > 1 &&
		       in.v[0] * in.size > PERF_RDMA_REGION_MAX)))) {
			perf_error(ctx, "hello from %s with mode %u, size %u, depth %u, slots %" PRIu64 ": ignored",
				   perf_sin_str(&from, a, sizeof(a)), in.mode,
				   in.size, in.depth, in.v[0]);
			continue;
		}
		has_cookie = perf_cmsg_cookie(&mh, &cookie);
		if (perf_is_rdma(in.mode) && !has_cookie) {
			perf_error(ctx, "hello from %s for %s without a cookie (RDS_CMSG_RDMA_DEST): ignored",
				   perf_sin_str(&from, a, sizeof(a)),
				   perf_mode_name(in.mode));
			continue;
		}
		break;
	}

	perf_ctl_take_hello(ctx, o, &in);
	perf_set_bufs(ctx->srv, "server", perf_sock_buf(o));
	if (perf_is_rdma(o->mode)) {
		ctx->has_cookie = true;
		ctx->peer_cookie = cookie;
		perf_rdma_server_setup(ctx, (uint32_t)in.v[0]);
	}

	ctx->ctl_src = from;
	ctx->has_ctl = true;
	ctx->cli_name = from;
	ctx->cli_name.sin_port = in.data_port;
	ctx->check_src = true;

	perf_ctl_put(&m, PERF_CTL_HELLO_ACK, o, 0, 0, 0, 0);
	perf_ctl_send(ctx, ctx->srv, &from, &m, "server, hello answer",
		      o->wait);
	printf("rds-perf: server %s: client %s (control %s) says hello: mode %s, size %u, depth %u (run %u of %u)\n",
	       perf_sin_str(&ctx->srv_name, a, sizeof(a)),
	       perf_sin_str(&ctx->cli_name, b, sizeof(b)),
	       perf_sin_str(&from, c, sizeof(c)),
	       perf_mode_name(o->mode), o->size, ctx->window, ctx->run + 1,
	       ctx->runs);
	if (perf_is_rdma(o->mode))
		printf("rds-perf: server: client's region cookie 0x%016" PRIx64 " (RDS_CMSG_RDMA_DEST), %u slots of %u bytes\n",
		       ctx->peer_cookie, ctx->slots, o->size);
	fflush(stdout);
}

/*
 * Server, stream: the receiver's own measured window. The warm-up
 * starts with the first message (the client starts sending when our
 * hello answer reaches it), then --secs (the client's, from its hello) are
 * measured; the client's done ends the window if it is still open.
 */
static void
perf_peer_server_window(struct perf_ctx *ctx, uint64_t now, uint64_t *warm_end,
		      uint64_t *run_end)
{
	const uint64_t hz = rte_get_tsc_hz();

	if (*warm_end == 0) {
		if (ctx->srv_rx == 0)
			return;
		*warm_end = now + hz * PERF_WARMUP_MS / 1000;
		*run_end = *warm_end + (uint64_t)(ctx->o->secs * (double)hz);
	} else if (ctx->t_start == 0 && now >= *warm_end && !ctx->done) {
		ctx->measuring = true;
		ctx->t_start = now;
		ctx->cpu_ns_start = perf_cpu_ns();
	} else if (ctx->measuring && (now >= *run_end || ctx->done)) {
		ctx->measuring = false;
		ctx->t_stop = now;
		ctx->cpu_ns_stop = perf_cpu_ns();
	}
}

/* Server: answer requests until the client says done and every reply
 * is out (stream: every message the client says it sent is in). No
 * message for PERF_STALL_S before that is a stall. */
void
perf_peer_server_run(struct perf_ctx *ctx)
{
	const uint64_t stall = rte_get_tsc_hz() * PERF_STALL_S;
	const bool stream = perf_is_stream(ctx->o->mode);
	uint64_t last_move = rte_rdtsc(), moved = 0, cur, now;
	uint64_t warm_end = 0, run_end = 0;

	for (;;) {
		perf_server_step(ctx);
		perf_poll(ctx);
		if (stream)
			perf_peer_server_window(ctx, rte_rdtsc(), &warm_end,
					      &run_end);
		if (ctx->done && perf_quiet(ctx) &&
		    (!stream || (ctx->srv_rx >= ctx->peer_v[0] &&
				 !ctx->measuring)))
			break;
		now = rte_rdtsc();
		cur = ctx->srv_rx + ctx->srv_tx + ctx->notif_got;
		if (cur != moved) {
			moved = cur;
			last_move = now;
		} else if (now - last_move > stall) {
			perf_stalled(ctx, "serving");
		}
	}
}

/* True while this instance has messages not yet sent or not yet
 * acknowledged (or when it cannot tell). */
static bool
perf_sends_pending(void)
{
	static const int names[] = {
		RDS_INFO_SEND_MESSAGES, RDS_INFO_RETRANS_MESSAGES,
	};
	unsigned int i;
	socklen_t len;

	for (i = 0; i < RTE_DIM(names); i++) {
		len = 0;
		if (rte_rds_info(names[i], NULL, &len) < 0 &&
		    rte_errno != ENOSPC)
			return true;
		if (len > 0)
			return true;
	}
	return false;
}

/* Server, after the run: check the client's counts, answer done with
 * ours, then keep driving the engine until that answer is acknowledged
 * (at most PERF_LINGER_MS), so that closing does not cancel it. */
void
perf_peer_server_done(struct perf_ctx *ctx)
{
	const uint64_t hz = rte_get_tsc_hz();
	const uint64_t end = rte_rdtsc() + hz * PERF_LINGER_MS / 1000;
	uint64_t next_check = 0, now;
	struct perf_ctl_msg m;

	if (perf_is_rdma(ctx->o->mode))
		perf_rdma_server_final(ctx);
	if (perf_is_stream(ctx->o->mode) && ctx->msgs == 0)
		perf_error(ctx, "no message received in the measured window");
	if (ctx->peer_v[0] != ctx->srv_rx || ctx->peer_v[1] != ctx->srv_tx)
		perf_error(ctx, "counts disagree: client sent %" PRIu64 ", server received %" PRIu64 ", server replied %" PRIu64 ", client received %" PRIu64,
			   ctx->peer_v[0], ctx->srv_rx, ctx->srv_tx,
			   ctx->peer_v[1]);
	if (perf_is_stream(ctx->o->mode)) {
		/* The receiver's count and window, for the client's report;
		 * before DONE_ACK, which ends the client's wait. */
		perf_ctl_put(&m, PERF_CTL_RESULT, ctx->o, 0, ctx->msgs,
			     perf_cycles_ns(ctx->t_stop - ctx->t_start, hz), 0);
		perf_ctl_send(ctx, ctx->srv, &ctx->ctl_src, &m,
			      "server, stream result", PERF_DONE_WAIT_S);
	}
	perf_ctl_put(&m, PERF_CTL_DONE_ACK, ctx->o, 0, ctx->srv_rx,
		     ctx->srv_tx, ctx->errors);
	perf_ctl_send(ctx, ctx->srv, &ctx->ctl_src, &m, "server, done answer",
		      PERF_DONE_WAIT_S);
	if (ctx->run + 1 < ctx->runs)
		return;	/* more runs: the engine is driven on */
	while ((now = rte_rdtsc()) < end) {
		perf_poll(ctx);
		if (now >= next_check) {
			if (!perf_sends_pending())
				break;
			next_check = now + hz / 100;
		}
	}
	/* eth: no polling while the client stops its port (perf.h). */
	if (ctx->o->transport == PERF_TRANSPORT_ETH)
		rte_delay_ms(PERF_ETH_BYE_MS);
}

/* SPDX-License-Identifier: BSD-3-Clause */

/* rds-perf RDMA modes: the region, the pattern and its checks, the
 * client's side. */

#include <inttypes.h>
#include <stdlib.h>

#include "perf.h"

/*
 * RDMA modes (rds-rdma(7)).
 *
 * The client's region holds 'slots' slots of --size bytes; request seq
 * uses slot seq % slots. There is one slot per request in flight
 * (slots = depth) while depth * size fits in PERF_RDMA_REGION_MAX, else
 * as many as fit, and then requests in flight share slots.
 *
 * rdma-read: the region holds the pattern; before sending request seq
 * the client stamps seq into its slot (head and tail, as perf_seq_put),
 * unless an earlier request still in flight uses that slot (then the
 * request says so, and the server does not check that op). The server
 * READs the slot into a local buffer of its own (one per request in
 * flight), asks NOTIFY_ME on every op (only the notification says its
 * buffer holds the data, and when the buffer is free again) and checks
 * the buffer when the notification comes.
 *
 * rdma-write: the region starts as 0xff bytes. The server WRITEs its
 * local buffer (the pattern, with seq stamped) into the slot, with
 * NOTIFY_ME on op 0 and every PERF_RDMA_NOTIFY_EVERY-th op (and
 * RDS_RECVERR, so that any failed op is reported); the library copies
 * WRITE data at sendmsg, so one local buffer does. The client checks the
 * slot when the reply comes (the RDMA and its message are atomic, and the
 * message comes after the data), unless a later request that uses the
 * same slot is already out.
 *
 * Both: sequence numbers on every op checked, the whole payload against
 * the pattern on the first op checked and every
 * PERF_RDMA_FULL_CHECK_EVERY-th.
 */
static uint32_t
perf_rdma_slots(uint32_t size, uint32_t window)
{
	uint32_t fit = size == 0 ? window : PERF_RDMA_REGION_MAX / size;

	return RTE_MAX(1u, RTE_MIN(window, fit));
}

static uint8_t *
perf_pattern_new(uint32_t size)
{
	uint8_t *p = malloc(size + 1);
	uint32_t i;

	if (p == NULL)
		perf_die("out of memory");
	for (i = 0; i < size; i++)
		p[i] = (uint8_t)(i * 7 + 1);
	return p;
}

/* 0 when p matches the pattern outside the sequence numbers; else -1
 * with the first differing offset in *off. */
static int
perf_pattern_check(const struct perf_ctx *ctx, const uint8_t *p,
		   uint32_t *off)
{
	const uint32_t size = ctx->o->size;
	const uint32_t head = size >= 8 ? 8 : 0;
	const uint32_t tail = size >= 16 ? 8 : 0;
	uint32_t i;

	if (memcmp(p + head, ctx->pattern + head, size - head - tail) == 0)
		return 0;
	for (i = head; i < size - tail && p[i] == ctx->pattern[i]; i++)
		;
	*off = i;
	return -1;
}

/* Check one payload that should carry seq over the pattern (full: the
 * whole payload, else only the sequence numbers). */
void
perf_rdma_check(struct perf_ctx *ctx, const uint8_t *p, uint64_t seq,
		bool full, const char *what)
{
	uint64_t got;
	uint32_t off;

	if (perf_seq_check(p, ctx->o->size, seq, &got) < 0)
		perf_error(ctx, "%s %" PRIu64 ": carries sequence number %" PRIu64,
			   what, seq, got);
	else if (full && perf_pattern_check(ctx, p, &off) < 0)
		perf_error(ctx, "%s %" PRIu64 ": byte %u is 0x%02x, expected 0x%02x",
			   what, seq, off, p[off], ctx->pattern[off]);
}

const char *
perf_rdma_status_name(int status)
{
	switch (status) {
	case RDS_RDMA_SUCCESS:
		return "SUCCESS";
	case RDS_RDMA_REMOTE_ERROR:
		return "REMOTE_ERROR";
	case RDS_RDMA_CANCELED:
		return "CANCELED";
	case RDS_RDMA_DROPPED:
		return "DROPPED";
	case RDS_RDMA_OTHER_ERROR:
		return "OTHER_ERROR";
	}
	return "?";
}

/* Client, RDMA modes: allocate and register the region (RDS_GET_MR;
 * READWRITE for rdma-write), once. It is registered on the socket that
 * ships its cookie (RDS_CMSG_RDMA_DEST names a region of the sending
 * socket's, as in the kernel): the data socket over loop, the control
 * socket (the hello's) with two processes. */
void
perf_rdma_client_setup(struct perf_ctx *ctx)
{
	const struct perf_opts *o = ctx->o;
	struct rds_get_mr_args mr;
	size_t bytes, len;
	uint32_t i;

	ctx->slots = perf_rdma_slots(o->size, ctx->window);
	bytes = (size_t)ctx->slots * o->size;
	len = RTE_ALIGN_CEIL(bytes, 4096);
	ctx->region = aligned_alloc(4096, len);
	if (ctx->pattern == NULL)
		ctx->pattern = perf_pattern_new(o->size);
	if (ctx->region == NULL)
		perf_die("out of memory");
	if (o->mode == PERF_MODE_RDMA_READ)
		for (i = 0; i < ctx->slots; i++)
			memcpy(ctx->region + (size_t)i * o->size,
			       ctx->pattern, o->size);
	else
		memset(ctx->region, 0xff, len);
	memset(&mr, 0, sizeof(mr));
	mr.vec.addr = (uintptr_t)ctx->region;
	mr.vec.bytes = bytes;
	mr.cookie_addr = (uintptr_t)&ctx->cookie;
	mr.flags = o->mode == PERF_MODE_RDMA_WRITE ? RDS_RDMA_READWRITE : 0;
	if (rte_rds_setsockopt(ctx->ctl >= 0 ? ctx->ctl : ctx->cli, SOL_RDS,
			       RDS_GET_MR, &mr, sizeof(mr)) < 0)
		perf_fail("rte_rds_setsockopt(%s, RDS_GET_MR, %zu bytes%s)",
			  ctx->ctl >= 0 ? "control" : "client", bytes, o->mode == PERF_MODE_RDMA_WRITE ?
			  ", READWRITE" : "");
}

/* Server, RDMA modes: local buffers and state, once the mode, size, depth
 * and slots are known; RDS_RECVERR on. */
void
perf_rdma_server_setup(struct perf_ctx *ctx, uint32_t slots)
{
	const struct perf_opts *o = ctx->o;
	size_t nloc = o->mode == PERF_MODE_RDMA_READ ? ctx->window : 1;
	int one = 1;

	ctx->slots = slots;
	free(ctx->pattern);
	ctx->pattern = perf_pattern_new(o->size);
	ctx->srv_local = malloc(nloc * o->size);
	ctx->srv_busy = calloc(ctx->window, 1);
	ctx->srv_stamped = calloc(ctx->window, 1);
	ctx->req_flags = calloc(ctx->window, sizeof(*ctx->req_flags));
	if (ctx->srv_local == NULL || ctx->srv_busy == NULL ||
	    ctx->srv_stamped == NULL || ctx->req_flags == NULL)
		perf_die("out of memory");
	if (o->mode == PERF_MODE_RDMA_WRITE)
		memcpy(ctx->srv_local, ctx->pattern, o->size);
	else
		memset(ctx->srv_local, 0, nloc * o->size);
	if (rte_rds_setsockopt(ctx->srv, SOL_RDS, RDS_RECVERR, &one,
			       sizeof(one)) < 0)
		perf_fail("rte_rds_setsockopt(server, RDS_RECVERR)");
}

/* Client, RDMA modes: send request tx_seq (16 bytes: seq, flags). */
bool
perf_client_send_rdma(struct perf_ctx *ctx)
{
	const uint32_t size = ctx->o->size;
	const uint64_t seq = ctx->tx_seq;
	uint64_t req[2] = { seq, 0 }, tsc;
	ssize_t n;

	/* rdma-read: stamp the slot, unless a request still in flight
	 * (seq - slots or earlier) uses it. */
	if (ctx->o->mode == PERF_MODE_RDMA_READ &&
	    (seq < ctx->slots || ctx->rx_seq > seq - ctx->slots)) {
		perf_seq_put(ctx->region + (seq % ctx->slots) * size, size,
			     seq);
		req[1] = PERF_REQ_STAMPED;
	}
	tsc = rte_rdtsc();
	n = rte_rds_sendto(ctx->cli, req, sizeof(req), MSG_DONTWAIT,
			   (const struct sockaddr *)&ctx->dst,
			   sizeof(ctx->dst));
	if (n < 0) {
		perf_send_pushback(ctx, "rte_rds_sendto(client, request)");
		return false;
	}
	if ((size_t)n != sizeof(req))
		perf_error(ctx, "request %" PRIu64 ": rte_rds_sendto returned %zd, not %zu",
			   seq, n, sizeof(req));
	ctx->sent_tsc[seq % ctx->window] = tsc;
	ctx->tx_seq++;
	if (ctx->measuring) {
		if (ctx->o->stress_columns) {	/* tx us/c */
			ctx->send_cycles += rte_rdtsc() - tsc;
			ctx->send_calls++;
		}
	}
	return true;
}

/* Client, rdma-write: reply seq came; check its slot unless a later
 * request that uses the same slot is out already. */
void
perf_rdma_client_check(struct perf_ctx *ctx, uint64_t seq)
{
	const bool full = ctx->rdma_checked % PERF_RDMA_FULL_CHECK_EVERY == 0;

	if (ctx->tx_seq > seq + ctx->slots)
		return;
	perf_rdma_check(ctx, ctx->region + (seq % ctx->slots) * ctx->o->size,
			seq, full, "rdma-write: client region after op");
	ctx->rdma_checked++;
	if (full)
		ctx->rdma_full_checked++;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receiving on the tcp transport (net/rds/tcp_recv.c): a readable lane
 * is read into its staging buffer, or, for a payload of RDS_TCP_DIRECT
 * bytes or more still to come, straight into the message's buffer; the
 * framing (rds_tcp_rx.c) cuts frames, which go to the core
 * (rds_recv_hdr: duplicates, pings, congestion maps, delivery).
 *
 * TCP acknowledged every byte read here before we read it, and the
 * kernel's sender has freed a message once its last byte was: a frame
 * the core cannot take now (a full receive queue: -ENOMEM) is therefore
 * never dropped. It is kept, with the rest of the staging buffer, and
 * offered again each engine pass; the lane reads nothing meanwhile (TCP
 * flow control holds the sender back), and a reset of the connection
 * keeps it too. A frame that does not decode ends the connection.
 */
#include <errno.h>
#include <sys/socket.h>

#include "rds_tcp.h"

static void
rds_tcp_stall(struct rds_tcp_engine *te, struct rds_tcp_conn *tc)
{
	if (tc->stalled)
		return;
	tc->stalled = true;
	te->stats.rx_stalls++;
	TAILQ_INSERT_TAIL(&te->stalls, tc, stall_link);
}

static void
rds_tcp_unstall(struct rds_tcp_engine *te, struct rds_tcp_conn *tc)
{
	if (!tc->stalled)
		return;
	tc->stalled = false;
	tc->stall_frame = false;
	tc->stall_m = NULL;
	TAILQ_REMOVE(&te->stalls, tc, stall_link);
}

void
rds_tcp_stall_drop(struct rds_tcp_conn *tc)
{
	struct rds_tcp_engine *te = rds_tcp_engine(tc->c->eng);

	if (tc->stall_m != NULL)
		rds_msg_put(tc->stall_m);
	tc->stall_m = NULL;
	if (te != NULL)
		rds_tcp_unstall(te, tc);
}

/* A whole frame to the core. 0, -ENOMEM (kept: stalled) or -EBADMSG
 * (the connection is reset). */
static int
rds_tcp_deliver(struct rds_tcp_conn *tc, const struct rds_hdr_info *h,
		struct rds_msg *m)
{
	struct rds_tcp_engine *te = rds_tcp_engine(tc->c->eng);
	int ret;

	/* The core frees what it is given when it cannot keep it: one
	 * reference more keeps the payload here. */
	if (m != NULL)
		rds_msg_hold(m);
	ret = rds_recv_hdr(tc->c, h, NULL, h->len, m);
	if (likely(ret == 0)) {
		if (m != NULL)
			rds_msg_put(m);
		te->stats.rx_msgs++;
		return 0;
	}
	if (ret == -ENOMEM) {
		tc->stall_h = *h;
		tc->stall_m = m;
		tc->stall_frame = true;
		rds_tcp_stall(te, tc);
		return -ENOMEM;
	}
	if (m != NULL)
		rds_msg_put(m);
	te->stats.rx_bad_frames++;
	rds_tcp_lane_error(&tc->lane, "frame refused by the core", 0);
	return -EBADMSG;
}

/* Frames out of the staging buffer. 0 when it is empty, -ENOMEM when
 * stalled, -EBADMSG when the stream ended. */
static int
rds_tcp_parse_stage(struct rds_tcp_lane *l)
{
	struct rds_tcp_conn *tc = l->tc;
	struct rds_tcp_engine *te = rds_tcp_engine(tc->c->eng);
	struct rds_hdr_info h;
	struct rds_msg *m;
	const char *why = NULL;
	uint32_t used;
	int ret;

	while (l->stage_off < l->stage_len) {
		ret = rds_tcp_rx_feed(&l->rx, l->stage + l->stage_off,
				      l->stage_len - l->stage_off, &used, &why);
		l->stage_off += used;
		if (ret == RDS_TCP_RX_NEED)
			continue;
		if (ret == RDS_TCP_RX_FRAME) {
			m = rds_tcp_rx_take(&l->rx, &h);
			ret = rds_tcp_deliver(tc, &h, m);
			if (ret != 0)
				return ret;
			continue;
		}
		if (ret == -ENOMEM) {
			rds_recv_no_memory(tc->c);
			tc->stall_frame = false;
			rds_tcp_stall(te, tc);
			return -ENOMEM;
		}
		te->stats.rx_bad_frames++;
		rds_recv_bad_frame(tc->c, why);
		rds_tcp_lane_error(l, "bad frame", 0);
		return -EBADMSG;
	}
	l->stage_off = l->stage_len = 0;
	return 0;
}

/* Read what the lane has, up to RDS_TCP_RX_BUDGET bytes. */
unsigned int
rds_tcp_lane_read(struct rds_tcp_lane *l)
{
	struct rds_tcp_conn *tc = l->tc;
	struct rds_tcp_engine *te = rds_tcp_engine(tc->c->eng);
	struct rds_hdr_info h;
	struct rds_msg *m;
	uint32_t budget = RDS_TCP_RX_BUDGET, room;
	unsigned int work = 0;
	uint8_t *p;
	ssize_t n;

	if (tc->stalled)
		return 0;
	if (l->stage == NULL) {
		l->stage = rds_mem_zalloc("rds_tcp_stage", RDS_TCP_STAGE);
		if (l->stage == NULL)
			return 0;	/* read at the next event */
	}
	while (l->st == RDS_TCP_L_UP && budget != 0) {
		if (l->stage_off < l->stage_len) {
			if (rds_tcp_parse_stage(l) != 0)
				return work;
			continue;
		}
		if (unlikely(l->stage_stale)) {
			/* The old socket's whole frames are in: the rest
			 * of its last one comes again on the new one. */
			l->stage_stale = false;
			rds_tcp_rx_reset(&l->rx);
		}
		room = rds_tcp_rx_direct(&l->rx, &p);
		te->stats.rx_calls++;
		if (room >= RDS_TCP_DIRECT) {
			n = recv(l->fd, p, room, MSG_DONTWAIT);
		} else {
			n = recv(l->fd, l->stage, RDS_TCP_STAGE, MSG_DONTWAIT);
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				rds_tcp_lane_error(l, "receive failed", errno);
			return work;
		}
		if (n == 0) {
			rds_tcp_lane_error(l, "the peer closed", 0);
			return work;
		}
		work++;
		te->stats.rx_bytes += (uint64_t)n;
		budget -= RTE_MIN(budget, (uint32_t)n);
		if (room >= RDS_TCP_DIRECT) {
			if (rds_tcp_rx_advance(&l->rx, (uint32_t)n) ==
			    RDS_TCP_RX_FRAME) {
				m = rds_tcp_rx_take(&l->rx, &h);
				if (rds_tcp_deliver(tc, &h, m) != 0)
					return work;
			}
			continue;
		}
		l->stage_off = 0;
		l->stage_len = (uint32_t)n;
	}
	return work;
}

/* Frames the core could not take: offered again; once one is taken,
 * the lane reads on. */
unsigned int
rds_tcp_stall_poll(struct rds_tcp_engine *te)
{
	struct rds_tcp_conn *tc, *next;
	unsigned int work = 0;

	for (tc = TAILQ_FIRST(&te->stalls); tc != NULL; tc = next) {
		struct rds_msg *m = tc->stall_m;
		struct rds_hdr_info h = tc->stall_h;
		bool frame = tc->stall_frame;

		next = TAILQ_NEXT(tc, stall_link);
		rds_tcp_unstall(te, tc);
		if (frame && rds_tcp_deliver(tc, &h, m) != 0)
			continue;	/* stalled again (or reset) */
		work++;
		if (tc->lane.st == RDS_TCP_L_UP)
			rds_tcp_lane_read(&tc->lane);
	}
	return work;
}

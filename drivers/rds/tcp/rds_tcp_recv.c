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
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/sockios.h>

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

/* The stream cannot go on: what is staged, the frame in progress and
 * what the socket still holds are dropped, and the lane closed. */
static void
rds_tcp_garbage(struct rds_tcp_lane *l, const char *why)
{
	rds_tcp_engine(l->tc->c->eng)->stats.rx_bad_frames++;
	l->rx_garbage = true;
	rds_tcp_rx_reset(&l->rx);
	l->stage_off = l->stage_len = 0;
	l->stage_stale = false;
	rds_tcp_lane_error(l, why, 0);
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
	rds_tcp_garbage(&tc->lane, "frame refused by the core");
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
		rds_recv_bad_frame(tc->c, why);
		rds_tcp_garbage(l, "bad frame");
		return -EBADMSG;
	}
	l->stage_off = l->stage_len = 0;
	return 0;
}

/* Before the socket closes: what it holds is read into the staging
 * buffer (grown to fit), to be taken as the socket's last frames. */
void
rds_tcp_lane_drain(struct rds_tcp_lane *l)
{
	struct rds_tcp_engine *te = rds_tcp_engine(l->tc->c->eng);
	uint32_t keep = l->stage_len - l->stage_off, need;
	uint8_t *nb;
	ssize_t n;
	int inq;

	if (l->fd < 0 || l->rx_garbage ||
	    ioctl(l->fd, SIOCINQ, &inq) != 0 || inq <= 0)
		return;
	need = keep + (uint32_t)inq;
	if (l->stage == NULL || need > l->stage_cap) {
		nb = rds_mem_zalloc("rds_tcp_stage", need);
		if (nb == NULL) {
			TCP_LOG(ERR, "no memory for the %d bytes a closing "
				"socket holds: lost", inq);
			return;
		}
		if (keep != 0)
			memcpy(nb, l->stage + l->stage_off, keep);
		rds_mem_free(l->stage);
		l->stage = nb;
		l->stage_cap = need;
	} else if (keep != 0) {
		memmove(l->stage, l->stage + l->stage_off, keep);
	}
	l->stage_off = 0;
	l->stage_len = keep;
	while (l->stage_len < l->stage_cap) {
		n = recv(l->fd, l->stage + l->stage_len,
			 l->stage_cap - l->stage_len, MSG_DONTWAIT);
		if (n <= 0)
			break;
		te->stats.rx_bytes += (uint64_t)n;
		l->stage_len += (uint32_t)n;
	}
}

/* The socket closed: the whole frames staged are delivered now (or,
 * behind a stalled one, once it is taken: rds_tcp_lane_read), and a
 * frame half read is dropped, its sender holds it still. */
void
rds_tcp_lane_settle(struct rds_tcp_lane *l)
{
	struct rds_tcp_conn *tc = l->tc;

	if (l->stage_off < l->stage_len) {
		l->stage_stale = true;
		if (!tc->stalled)
			rds_tcp_parse_stage(l);
	}
	if (tc->stalled && l->stage_off < l->stage_len)
		return;
	if (tc->stalled && !tc->stall_frame)
		return;	/* the parser waits for a buffer, its header kept */
	l->stage_stale = false;
	rds_tcp_rx_reset(&l->rx);
	l->stage_off = l->stage_len = 0;
	if (l->stage_cap > RDS_TCP_STAGE) {
		rds_mem_free(l->stage);
		l->stage = NULL;
		l->stage_cap = 0;
	}
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
		l->stage_cap = RDS_TCP_STAGE;
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
			rds_tcp_lane_settle(l);
			if (l->stage == NULL)
				return work;	/* read at the next event */
		}
		room = rds_tcp_rx_direct(&l->rx, &p);
		te->stats.rx_calls++;
		if (room >= RDS_TCP_DIRECT) {
			n = recv(l->fd, p, room, MSG_DONTWAIT);
		} else {
			n = recv(l->fd, l->stage, l->stage_cap, MSG_DONTWAIT);
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

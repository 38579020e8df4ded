/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sending on the tcp transport (net/rds/tcp_send.c): each message is its
 * 48-byte header (rds_msg_hdr, the RETRANSMITTED flag of a message sent
 * again after a reset included) and its whole payload, one after the
 * other on the lane's stream. xmit queues a message (holding a
 * reference to its payload, so that a cancel or close leaves its bytes)
 * and the end of the engine pass writes what is queued with one sendmsg
 * a lane; what the socket does not take stays queued, its offset kept,
 * and goes on EPOLLOUT.
 *
 * Acknowledgement (rds_tcp_is_acked, rds_tcp_write_space): a message is
 * acknowledged once TCP has acknowledged its last byte. The socket says
 * how many of the bytes written it still holds unacknowledged (SIOCOUTQ:
 * write_seq - snd_una), so the bytes acknowledged are those written less
 * those, and the messages whose end is at or below go to
 * rds_send_drop_acked(). Checked on every event of the lane and, while
 * bytes are in flight, after RDS_TCP_ACK_US, backing off to
 * RDS_TCP_ACK_MAX_US while nothing moves: no check at all on a lane with
 * nothing in flight.
 */
#include <errno.h>
#include <limits.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/sockios.h>

#include "rds_tcp.h"

#define RDS_TCP_LANE_EVENTS (EPOLLIN | EPOLLRDHUP)

static inline uint32_t
rds_tcp_out_size(const struct rds_tcp_out *o)
{
	return RDS_HEADER_SIZE + o->ref->len;
}

static void
rds_tcp_lane_watch(struct rds_tcp_engine *te, struct rds_tcp_lane *l,
		   uint64_t now)
{
	if (l->watched || l->sent_n == 0)
		return;
	l->watched = true;
	l->ack_wait_us = RDS_TCP_ACK_US;
	l->ack_next_tsc = now + rds_clock_hz() / 1000000 * l->ack_wait_us;
	TAILQ_INSERT_TAIL(&te->acks, l, ack_link);
}

static void
rds_tcp_lane_unwatch(struct rds_tcp_engine *te, struct rds_tcp_lane *l)
{
	if (!l->watched)
		return;
	l->watched = false;
	TAILQ_REMOVE(&te->acks, l, ack_link);
}

void
rds_tcp_lane_tx_reset(struct rds_tcp_lane *l)
{
	struct rds_tcp_engine *te = rds_tcp_engine(l->tc->c->eng);

	while (l->out_n != 0) {
		rds_msg_free(l->out[l->out_head].ref);
		l->out[l->out_head].ref = NULL;
		l->out_head = (l->out_head + 1) % RDS_TCP_OUT_MAX;
		l->out_n--;
	}
	l->out_head = 0;
	l->out_bytes = 0;
	l->sent_head = l->sent_n = 0;
	rds_tcp_lane_unwatch(te, l);
	if (l->flush_queued) {
		l->flush_queued = false;
		TAILQ_REMOVE(&te->flush, l, flush_link);
	}
}

/* A send queue blocked (rds_tcp_xmit: the window full, or the out queue
 * full and the socket too) goes on once the lane has room for one more
 * message. Asked after every acknowledgement and every write: a
 * congestion map that is written leaves the window's count without
 * entering sent[], so room can come from a write with no
 * acknowledgement ever to follow (none, when only maps were queued). */
static void
rds_tcp_lane_room(struct rds_tcp_lane *l)
{
	struct rds_conn *c = l->tc->c;

	if (c->xmit_blocked && l->sent_n + l->out_n < l->sent_max &&
	    l->out_n < RDS_TCP_OUT_MAX && l->out_bytes < RDS_TCP_OUT_BYTES)
		rds_conn_xmit_unblock(c);
}

/* The bytes acknowledged now: the messages they cover are the peer's. */
void
rds_tcp_lane_acks(struct rds_tcp_lane *l, uint64_t now)
{
	struct rds_tcp_engine *te = rds_tcp_engine(l->tc->c->eng);
	struct rds_conn *c = l->tc->c;
	uint64_t seq = 0;
	bool freed = false;
	int outq;

	if (l->st != RDS_TCP_L_UP || l->sent_n == 0)
		return;
	te->stats.ack_checks++;
	if (ioctl(l->fd, SIOCOUTQ, &outq) != 0 || outq < 0)
		return;	/* an error shows on the socket's next event */
	if ((uint64_t)outq <= l->written)
		l->acked = l->written - (uint64_t)outq;
	while (l->sent_n != 0 && l->sent[l->sent_head].end <= l->acked) {
		seq = l->sent[l->sent_head].seq;
		l->sent_head = (l->sent_head + 1) % l->sent_max;
		l->sent_n--;
		te->stats.tx_acked_msgs++;
		freed = true;
	}
	if (freed) {
		rds_send_drop_acked(c, seq);
		l->ack_wait_us = RDS_TCP_ACK_US;
		rds_tcp_lane_room(l);
	} else {
		l->ack_wait_us = RTE_MIN(l->ack_wait_us * 2,
					 (uint32_t)RDS_TCP_ACK_MAX_US);
	}
	l->ack_next_tsc = now + rds_clock_hz() / 1000000 * l->ack_wait_us;
	if (l->sent_n == 0)
		rds_tcp_lane_unwatch(te, l);
}

unsigned int
rds_tcp_ack_poll(struct rds_tcp_engine *te)
{
	struct rds_tcp_lane *l, *next;
	uint64_t now = te->e->now;
	unsigned int work = 0;

	for (l = TAILQ_FIRST(&te->acks); l != NULL; l = next) {
		next = TAILQ_NEXT(l, ack_link);
		if (now < l->ack_next_tsc)
			continue;
		rds_tcp_lane_acks(l, now);
		work++;
	}
	return work;
}

/* n bytes of the queue went: whole messages move to the sent ring. */
static void
rds_tcp_out_advance(struct rds_tcp_engine *te, struct rds_tcp_lane *l,
		    size_t n)
{
	while (n != 0 && l->out_n != 0) {
		struct rds_tcp_out *o = &l->out[l->out_head];
		uint32_t left = rds_tcp_out_size(o) - o->off;

		if (n < left) {
			o->off += (uint32_t)n;
			l->out_bytes -= (uint32_t)n;
			l->written += n;
			return;
		}
		n -= left;
		l->out_bytes -= left;
		l->written += left;
		if (!o->cong) {
			uint32_t i = (l->sent_head + l->sent_n) %
				     l->sent_max;

			l->sent[i].end = l->written;
			l->sent[i].seq = o->seq;
			l->sent_n++;
		}
		te->stats.tx_msgs++;
		rds_msg_free(o->ref);
		o->ref = NULL;
		l->out_head = (l->out_head + 1) % RDS_TCP_OUT_MAX;
		l->out_n--;
	}
}

/* Write what the lane has queued: 0 when all went, -EAGAIN when the
 * socket took part (EPOLLOUT is then asked for), another -errno when
 * the socket failed (the lane is closed). */
static int
rds_tcp_lane_write(struct rds_tcp_lane *l)
{
	struct rds_tcp_engine *te = rds_tcp_engine(l->tc->c->eng);
	struct iovec iov[2 * RDS_TCP_OUT_MAX];
	struct msghdr mh;
	unsigned int i, k, niov;
	ssize_t n;

	while (l->out_n != 0) {
		niov = 0;
		for (k = 0; k < l->out_n; k++) {
			struct rds_tcp_out *o =
				&l->out[(l->out_head + k) % RDS_TCP_OUT_MAX];
			uint32_t off = o->off;

			if (off < RDS_HEADER_SIZE) {
				iov[niov].iov_base = (uint8_t *)&o->hdr + off;
				iov[niov++].iov_len = RDS_HEADER_SIZE - off;
				off = 0;
			} else {
				off -= RDS_HEADER_SIZE;
			}
			if (o->ref->len > off) {
				iov[niov].iov_base = rds_msg_data(o->ref) + off;
				iov[niov++].iov_len = o->ref->len - off;
			}
		}
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = iov;
		mh.msg_iovlen = niov;
		te->stats.tx_calls++;
		n = sendmsg(l->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			rds_tcp_lane_error(l, "send failed", errno);
			return -EPIPE;
		}
		te->stats.tx_bytes += (uint64_t)n;
		for (i = 0, k = 0; i < niov; i++)
			k += (unsigned int)iov[i].iov_len;
		rds_tcp_out_advance(te, l, (size_t)n);
		if ((size_t)n < k) {
			te->stats.tx_partial++;
			break;
		}
	}
	rds_tcp_lane_watch(te, l, te->e->now);
	rds_tcp_lane_room(l);
	if (l->out_n == 0) {
		if (l->out_armed) {
			l->out_armed = false;
			rds_tcp_ep_mod(te, l->fd, RDS_TCP_LANE_EVENTS, l);
		}
		return 0;
	}
	if (!l->out_armed) {
		l->out_armed = true;
		rds_tcp_ep_mod(te, l->fd, RDS_TCP_LANE_EVENTS | EPOLLOUT, l);
	}
	return -EAGAIN;
}

/* EPOLLOUT: room again (the write unblocks the send queue). */
void
rds_tcp_lane_writable(struct rds_tcp_lane *l)
{
	rds_tcp_lane_write(l);
}

int
rds_tcp_xmit(struct rds_conn *c, struct rds_msg *m)
{
	struct rds_tcp_conn *tc = c->tp;
	struct rds_tcp_lane *l = &tc->lane;
	struct rds_tcp_engine *te = rds_tcp_engine(c->eng);
	struct rds_tcp_out *o;
	struct rds_msg *ref;
	int ret;

	if (unlikely(l->st != RDS_TCP_L_UP))
		return -EAGAIN;	/* the drop comes before the next try */
	if (l->out_n == RDS_TCP_OUT_MAX || l->out_bytes >= RDS_TCP_OUT_BYTES) {
		ret = rds_tcp_lane_write(l);
		if (ret == -EAGAIN) {
			rds_conn_xmit_block(c);	/* EPOLLOUT unblocks */
			return -EAGAIN;
		}
		if (ret != 0)
			return -EAGAIN;
	}
	/* The window bounds sent[]: a congestion map takes no entry there
	 * (the peer does not acknowledge it), so it goes whenever out[]
	 * has room, and a map queued while the window is full does not
	 * keep the connection on the ready list, tried every pass. */
	if (m->type != RDS_MSG_CONG &&
	    l->sent_n + l->out_n >= l->sent_max) {
		te->stats.tx_window_full++;
		rds_conn_xmit_block(c);	/* rds_tcp_lane_room unblocks */
		return -EAGAIN;
	}
	ref = rds_msg_alloc_borrow(m);
	if (unlikely(ref == NULL))
		return -EAGAIN;	/* no buffer: polled again */
	o = &l->out[(l->out_head + l->out_n) % RDS_TCP_OUT_MAX];
	rds_msg_hdr(c, m, &o->hdr);
	o->ref = ref;
	o->seq = m->seq;
	o->off = 0;
	o->cong = m->type == RDS_MSG_CONG;
	l->out_n++;
	l->out_bytes += rds_tcp_out_size(o);
	if (!l->flush_queued) {
		l->flush_queued = true;
		TAILQ_INSERT_TAIL(&te->flush, l, flush_link);
	}
	return 0;
}

/* The end of the engine's pass: write what the pass queued. */
void
rds_tcp_flush(struct rds_engine *e)
{
	struct rds_tcp_engine *te = rds_tcp_engine(e);
	struct rds_tcp_lane *l;

	if (te == NULL)
		return;
	while ((l = TAILQ_FIRST(&te->flush)) != NULL) {
		TAILQ_REMOVE(&te->flush, l, flush_link);
		l->flush_queued = false;
		if (l->st == RDS_TCP_L_UP && !l->out_armed)
			rds_tcp_lane_write(l);
	}
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receiving, the engine's half (net/rds/recv.c): a transport hands over
 * a frame (rds_recv_frame, rds_recv_frame_msg, rds_recv_hdr); the core
 * applies its piggybacked ACK, drops retransmitted duplicates, answers
 * pings, takes congestion maps and queues messages to the bound
 * socket's receive queue. Drivers depend on this file (rds_driver.h);
 * the application's half, the socket calls, is rds_recv.c.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "rds_private.h"

/* Out of line: the delivery paths keep only the flags' test.
 * SO_TIMESTAMP: the arrival time in CLOCK_REALTIME. SO_RDS_MSG_RXPATH_
 * LATENCY: the trace positions set now, the time since the start of
 * the engine pass that took the message's last frame (e->now), and
 * CLOCK_MONOTONIC now, which recvmsg subtracts from its own. */
static __rte_noinline void
rds_recv_stamp(const struct rds_engine *e, const struct rds_sock *rs,
	       struct rds_msg *m, uint32_t f)
{
	struct timespec ts;
	uint64_t d;
	uint32_t w;

	m->rx_ts = 0;
	if (f & RDS_SO_F_RCVTSTAMP) {
		rds_clock_realtime(&ts);
		m->rx_tstamp = (uint64_t)ts.tv_sec * 1000000000ULL +
			       (uint64_t)ts.tv_nsec;
		m->rx_ts = (f & RDS_SO_F_TSTAMP_NEW) ? RDS_TS_NEW :
			   RDS_TS_OLD;
	}
	if (f & RDS_SO_F_RXTRACE) {
		d = RTE_MIN(rds_clock_tsc() - e->now, rds_lib->tsc_hz);
		d = d * 1000000000ULL / rds_lib->tsc_hz;	/* <= 1 s */
		w = __atomic_load_n(&rs->rx_trace, __ATOMIC_RELAXED);
		m->rx_trace.n = (uint8_t)w;
		m->rx_trace.pos[0] = (uint8_t)(w >> 8);
		m->rx_trace.pos[1] = (uint8_t)(w >> 16);
		m->rx_trace.pos[2] = (uint8_t)(w >> 24);
		if (m->rx_trace.n == 0)
			return;	/* turned off meanwhile */
		m->rx_trace.hdr_ns = (uint32_t)d;
		rds_clock_monotonic(&ts);
		m->rx_trace.end_ns = (uint64_t)ts.tv_sec * 1000000000ULL +
				     (uint64_t)ts.tv_nsec;
		m->rx_ts |= RDS_TS_TRACE;
	}
}

/* Queue m to rs; -ENOMEM when the queue cannot take it (the frame is
 * then not accepted: the peer sends it again after the reset). */
static int
rds_recv_deliver(struct rds_engine *e, struct rds_sock *rs, struct rds_msg *m)
{
	uint32_t f = __atomic_load_n(&rs->so_flags, __ATOMIC_RELAXED);
	int64_t rcv;
	int ret;

	/* SO_TIMESTAMP (net/rds/recv.c rds_recv_incoming) and
	 * SO_RDS_MSG_RXPATH_LATENCY: stamped if the socket asks for it
	 * when the message comes. */
	if (unlikely(f & (RDS_SO_F_RCVTSTAMP | RDS_SO_F_RXTRACE)))
		rds_recv_stamp(e, rs, m, f);
	if (unlikely(rs->client != NULL))
		return rds_server_deliver(e, rs, m);
	rcv = __atomic_add_fetch(&rs->rcv_bytes, (int64_t)m->len,
				 __ATOMIC_ACQ_REL);
	if (rds_lib->nb_engines > 1) {
		rte_spinlock_lock(&rs->rx_prod_lock);
		ret = rds_queue_put(&rs->rxq, m);
		rte_spinlock_unlock(&rs->rx_prod_lock);
	} else {
		ret = rds_queue_put(&rs->rxq, m);
	}
	if (unlikely(ret != 0)) {
		__atomic_fetch_sub(&rs->rcv_bytes, (int64_t)m->len,
				   __ATOMIC_RELEASE);
		return -ENOMEM;
	}
	rds_stat_inc(e, s_recv_delivered);
	/* Below rcvbuf and not congested (the common case): nothing for
	 * rds_cong_sock_check to do. The last of racing deliveries sees
	 * their sum. */
	if (unlikely(rcv > (int64_t)rs->rcvbuf) ||
	    unlikely(__atomic_load_n(&rs->congested, __ATOMIC_ACQUIRE)))
		rds_cong_sock_check(rs);
	rds_sock_wake(rs);
	return 0;
}

/*
 * A congestion map (not sequenced, not delivered): the whole map, or on
 * a transport whose wire is our own a sparse update (rds_addr.h,
 * RDS_CONG_DELTA_*); anything else is dropped and counted. The map of
 * one of our own addresses (a transport pinned between two local
 * addresses) is ours to keep.
 */
static __rte_noinline int
rds_recv_cong_map(struct rds_conn *c, const struct rds_hdr_info *h,
		  const void *bits, struct rds_msg *own)
{
	struct rds_engine *e = c->eng;
	uint64_t unc = 0;
	int ret = 0;

	if (h->len == RDS_CONG_MAP_BYTES) {
		if (c->fcong->la == NULL)
			unc = rds_cong_map_update(c->fcong, bits);
	} else if (c->trans->flags & RDS_TRANS_F_MAP_DELTA) {
		if (c->fcong->la == NULL)
			ret = rds_cong_delta_apply(c->fcong, bits, h->len,
						   &unc);
	} else {
		ret = -EBADMSG;
	}
	rds_msg_free(own);
	if (ret < 0) {
		rds_stat_inc(e, s_recv_drop_bad_hdr);
		return ret;
	}
	if (c->fcong->la == NULL)
		rds_cong_map_changed(unc);
	rds_stat_inc(e, s_recv_cong_map);
	return 0;
}

/*
 * One complete message (or ACK-only frame, or congestion map) arrived on
 * connection c, its header decoded in h, its payload either at payload
 * (copied if kept) or already in own, a buffer the transport filled
 * (reassembly, or a payload borrowed within the process) and hands over
 * in every case. Returns 0 when the frame was consumed (delivered or
 * dropped on purpose), -EBADMSG for a malformed frame (dropped and
 * counted), -ENOMEM when it could not be kept: the transport must then
 * fail the connection so that the peer retransmits. Nothing is
 * acknowledged that was not delivered or dropped on purpose.
 */
int
rds_recv_hdr(struct rds_conn *c, const struct rds_hdr_info *h,
	     const void *payload, uint32_t len, struct rds_msg *own)
{
	struct rds_engine *e = c->eng;
	struct rds_sock *rs;
	struct rds_msg *m;
	bool acks;

	if (unlikely(h->len != len)) {
		rds_stat_inc(e, s_recv_drop_bad_hdr);
		RDS_LOG(DEBUG, "frame dropped: length mismatch");
		rds_msg_free(own);
		return -EBADMSG;
	}
	/* The piggybacked ACK; a transport that acknowledges by itself
	 * is the only one to free what we sent (one stream of ACKs). */
	acks = (c->trans->flags & RDS_TRANS_F_ACKS) != 0;
	if (h->ack != 0 && !acks)
		rds_send_drop_acked(c, h->ack);

	/* ACK-only frame. */
	if (h->sport == 0 && h->dport == 0 && h->len == 0 &&
	    !(h->flags & RDS_FLAG_CONG_BITMAP)) {
		rds_stat_inc(e, s_recv_ack);
		rds_msg_free(own);
		return 0;
	}
	/* Congestion map: not sequenced, not delivered. */
	if (unlikely(h->flags == RDS_FLAG_CONG_BITMAP))
		return rds_recv_cong_map(c, h, own != NULL ?
					 rds_msg_data(own) : payload, own);
	/* The kernel's duplicate rule: only old and retransmitted. */
	if (h->seq < c->next_rx_seq && (h->flags & RDS_FLAG_RETRANSMITTED)) {
		rds_stat_inc(e, s_recv_drop_old_seq);
		if ((h->flags & RDS_FLAG_ACK_REQUIRED) && !acks) {
			c->ack_requested = true;
			rds_conn_ready(c);
		}
		rds_msg_free(own);
		return 0;
	}

	rs = NULL;
	m = NULL;
	if (h->dport != 0) {
		rs = rds_sock_lookup_bound(c->la, h->dport);
		if (rs != NULL) {
			m = own;
			own = NULL;
			if (m == NULL) {
				m = rds_msg_alloc(len);
				if (unlikely(m == NULL)) {
					rds_stat_inc(e, s_recv_drop_nomem);
					return -ENOMEM;
				}
				if (len != 0)
					memcpy(m->buf, payload, len);
			}
			m->type = RDS_MSG_RECV;
			m->len = len;
			m->sock = rs->id;
			m->sock_gen = rs->gen;
			m->laddr = c->key.laddr;
			m->faddr = c->key.faddr;
			m->sport = h->sport;
			m->dport = h->dport;
			m->h_flags = h->flags;
			m->seq = h->seq;
			m->op = NULL;
			m->has_dest = (h->ext_mask &
				       (1u << RDS_EXTHDR_RDMA_DEST)) != 0;
			m->rdma_dest = (uint64_t)h->ext_rdma_dest_rkey |
				((uint64_t)h->ext_rdma_dest_offset << 32);
			if (unlikely(rds_recv_deliver(e, rs, m) != 0)) {
				rds_stat_inc(e, s_recv_drop_nomem);
				rds_msg_free(m);
				return -ENOMEM;
			}
			/* The peer used a region of that socket: USE_ONCE
			 * ends it. */
			if (unlikely(h->ext_mask & (1u << RDS_EXTHDR_RDMA)))
				rds_mr_unuse_sock(rs, h->ext_rdma_rkey);
		}
	}
	rds_msg_free(own);

	/* Accepted: gaps are allowed (the sender may have cancelled). */
	c->next_rx_seq = h->seq + 1;
	if (h->seq > c->ack_next) {
		c->ack_next = h->seq;
	} else if (h->seq < c->ack_next) {
		/* A new message below what we acknowledged: the peer
		 * started its sequence again (it restarted, as eth sees a
		 * new epoch), or a sender skipped back. As the kernel
		 * (rds_ib_set_ack: the last sequence received), the ACK
		 * names this one; keeping the old, higher one would
		 * acknowledge the new incarnation's next messages before
		 * they came. */
		c->ack_next = h->seq;
		c->ack_sent = 0;
	}
	if (h->acked || acks) {
		/* Delivered within the process, or acknowledged by the
		 * transport (ACK_REQUIRED was its to answer): the sender
		 * knows. */
		c->ack_sent = c->ack_next;
	} else if (h->flags & RDS_FLAG_ACK_REQUIRED) {
		c->ack_requested = true;
		rds_conn_ready(c);
	} else {
		rds_conn_ack_later(c);
	}

	if (h->dport == 0) {
		/* A ping: answered with a pong, unless it came from port 0. */
		rds_stat_inc(e, s_recv_ping);
		if (h->sport != 0)
			rds_send_pong(c, h->sport);
		return 0;
	}
	if (h->sport == 0)
		rds_stat_inc(e, s_recv_pong);
	if (rs == NULL) {
		/* No socket on that port: silently discarded (rds(7)). */
		rds_stat_inc(e, s_recv_drop_no_sock);
	}
	return 0;
}

/*
 * Within the process, a message that counts as acknowledged once
 * delivered (the loop transport without faults, as the kernel's loop
 * transport) needs neither a copy, nor a second buffer lending the
 * payload, nor a header: the sender's buffer becomes the receiver's.
 * This is rds_msg_hdr_info() and rds_recv_hdr() (h->acked) folded into
 * one for the common case only: a DATA message without RDMA between two
 * bound ports, not a retransmission, to a socket of this process whose
 * receive queue has room now. Anything else returns 0 before touching
 * anything, and the transport goes the general way, which applies the
 * rest of the rules (pings, duplicates, unbound ports, attached clients,
 * a full queue).
 */
int
rds_recv_take(struct rds_conn *c, struct rds_conn *peer, struct rds_msg *m)
{
	struct rds_engine *e = c->eng;
	bool locked = rds_lib->nb_engines > 1;
	struct rds_sock *rs;
	uint64_t ack, seq;
	int64_t rcv;
	uint32_t f;

	if (unlikely(m->type != RDS_MSG_DATA) || unlikely(m->op != NULL) ||
	    unlikely(m->owner != NULL) || unlikely(m->sport == 0) ||
	    unlikely(m->dport == 0) ||
	    unlikely(m->h_flags & RDS_FLAG_RETRANSMITTED))
		return 0;
	rs = rds_sock_lookup_bound(peer->la, m->dport);
	if (unlikely(rs == NULL) || unlikely(rs->client != NULL))
		return 0;
	if (locked)
		rte_spinlock_lock(&rs->rx_prod_lock);
	if (unlikely(!rds_queue_has_room(&rs->rxq))) {
		if (locked)
			rte_spinlock_unlock(&rs->rx_prod_lock);
		return 0;
	}
	/* Committed. The sender's side first: m leaves c's send queue and
	 * its bytes the sender's buffer, and the frame carries c's ACK. */
	ack = c->ack_next;
	rds_conn_ack_sent(c, ack);
	TAILQ_REMOVE(&c->send_q, m, link);
	rds_send_unaccount(m);
	/* The receiver's message (as rds_recv_hdr fills one): the same
	 * ports, length, flags, sequence and RDMA_DEST cookie. */
	seq = m->seq;
	m->type = RDS_MSG_RECV;
	m->sock = rs->id;
	m->sock_gen = rs->gen;
	m->laddr = peer->key.laddr;
	m->faddr = peer->key.faddr;
	f = __atomic_load_n(&rs->so_flags, __ATOMIC_RELAXED);
	if (unlikely(f & (RDS_SO_F_RCVTSTAMP | RDS_SO_F_RXTRACE)))
		rds_recv_stamp(e, rs, m, f);
	rcv = __atomic_add_fetch(&rs->rcv_bytes, (int64_t)m->len,
				 __ATOMIC_ACQ_REL);
	/* Room was there and this engine is the only producer: cannot
	 * fail. From here on m is the receiver's. */
	rds_queue_put(&rs->rxq, m);
	if (locked)
		rte_spinlock_unlock(&rs->rx_prod_lock);
	rds_stat_inc(e, s_recv_delivered);
	if (unlikely(rcv > (int64_t)rs->rcvbuf) ||
	    unlikely(__atomic_load_n(&rs->congested, __ATOMIC_ACQUIRE)))
		rds_cong_sock_check(rs);
	rds_sock_wake_own(rs);	/* not a client's: tested above */
	/* The receiving end, as rds_recv_hdr with an acknowledged frame. */
	if (ack != 0)
		rds_send_drop_acked(peer, ack);
	/* rds_recv_hdr's three cases of ack_next (above, below: the peer
	 * started again, equal) all end at seq, and an acknowledged frame
	 * owes no ACK. */
	peer->next_rx_seq = seq + 1;
	peer->ack_next = seq;
	peer->ack_sent = seq;
	return RDS_XMIT_TAKEN;
}

void
rds_recv_bad_frame(struct rds_conn *c, const char *why)
{
	rds_stat_inc(c->eng, s_recv_drop_bad_hdr);
	RDS_LOG(DEBUG, "frame dropped: %s", why != NULL ? why : "?");
}

void
rds_recv_no_memory(struct rds_conn *c)
{
	rds_stat_inc(c->eng, s_recv_drop_nomem);
}

static int
rds_recv_decode(struct rds_conn *c, const struct rds_header *wire,
		struct rds_hdr_info *h)
{
	const char *why = NULL;

	if (rds_hdr_decode(wire, sizeof(*wire), h, &why) != 0) {
		rds_recv_bad_frame(c, why);
		return -EBADMSG;
	}
	return 0;
}

int
rds_recv_frame(struct rds_conn *c, const struct rds_header *wire,
	       const void *payload, uint32_t len)
{
	struct rds_hdr_info h;

	if (rds_recv_decode(c, wire, &h) != 0)
		return -EBADMSG;
	return rds_recv_hdr(c, &h, payload, len, NULL);
}

int
rds_recv_frame_msg(struct rds_conn *c, const struct rds_header *wire,
		   struct rds_msg *m)
{
	struct rds_hdr_info h;

	if (rds_recv_decode(c, wire, &h) != 0) {
		rds_msg_free(m);
		return -EBADMSG;
	}
	return rds_recv_hdr(c, &h, NULL, m->len, m);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The eth transport's reliable frame layer, per connection and
 * direction, below RDS sequencing (which still numbers messages and
 * retransmits them after a connection reset).
 *
 * Sending: frames are numbered from 0 in each epoch of our stream; at
 * most min(window, the peer's advertised window) are in flight, each
 * kept (an mbuf reference) until the peer acknowledges it, cumulatively
 * or selectively (a 64-frame SACK bitmap; a selectively acknowledged
 * frame is let go at once). What the peer's ACKs say, the retransmit
 * timer and the tail probe are rds_eth_rexmit.c's (loss recovery).
 *
 * Receiving: an in-order frame is handed to rds_eth_msg_input at once;
 * one ahead is kept (never go-back-N) until the hole is filled;
 * duplicates and frames past the window are dropped and answered with
 * an ACK. ACKs ride on every frame we send; an ACK-only frame goes out
 * at the end of the pass when a frame came out of order or a duplicate
 * came, a hole was filled, a frame asked for it (RDS_ETH_FL_ACKREQ),
 * every 16 frames, or after a short delay. An ACK frame says how long
 * it was held since the frame below its cumulative ACK came
 * (rds_eth_ack_hold), so that the sender's delay signal measures the
 * network rather than that delay.
 *
 * These ACKs acknowledge the RDS messages too (RDS_TRANS_F_ACKS): a
 * frame counts as received once what it completed was handed to the
 * core and taken (a frame the core could not keep resets the stream
 * instead, rds_eth_rel_rx_reset), and a message is acknowledged, and
 * freed (rds_send_drop_acked), when the cumulative ACK passes its last
 * frame; a selective ACK frees no message (the peer drops the frames it
 * holds out of order when its stream of ours starts again).
 *
 * Epochs: each side's sending stream has an epoch, new after a reset of
 * that side. A frame names its stream (src) and the stream of ours the
 * sender takes (dst; 0: none). A new src with OPEN is the peer's new
 * stream: we take it from frame 0. A frame whose dst is 0 once the peer
 * took our stream, or a RESET answer, means the peer lost our stream (it
 * restarted, or dropped it): we start ours again, and RDS retransmits
 * what the peer never acknowledged; so too a new stream of the peer's
 * that names none of ours while ours, never acknowledged, has frames in
 * flight, or that names ours but acknowledges less of it than the peer's
 * stream before did (it took ours from a late frame, past frames we let
 * go). Frames of an old epoch are dropped.
 */
#include <errno.h>
#include <stdlib.h>
#include <arpa/inet.h>


#include "rds_eth.h"

#define RDS_ETH_ACK_EVERY 16

static inline struct rds_engine *
ec_eng(const struct rds_eth_conn *ec)
{
	return ec->c->eng;
}

static inline struct rds_eth_engine *
ec_ee(const struct rds_eth_conn *ec)
{
	return ec->ee;
}

static void rds_eth_ack_fire(struct rds_engine *e, struct rds_timer *t);

int
rds_eth_rel_init(struct rds_eth_conn *ec, struct rds_eth_port *p)
{
	ec->wnd = p->window;
	ec->sent = rds_mem_zalloc("rds_eth_sent", sizeof(*ec->sent) * ec->wnd);
	ec->ooo = rds_mem_zalloc("rds_eth_ooo", sizeof(*ec->ooo) * ec->wnd);
	if (ec->sent == NULL || ec->ooo == NULL) {
		rds_mem_free(ec->sent);
		rds_mem_free(ec->ooo);
		return -ENOMEM;
	}
	rds_timer_init(&ec->rto_timer, rds_eth_rexmit_timer_fire);
	rds_timer_init(&ec->ack_timer, rds_eth_ack_fire);
	ec->rto = p->rto_init_tsc;
	ec->rto_base = p->rto_init_tsc;
	ec->epoch = rds_eth_epoch_next(0, rds_eth_epoch_now());
	ec->peer_wnd = ec->wnd;
	rds_eth_cc_init(&ec->cc, p->cwnd_init, ec->wnd);
	rds_eth_cc_delay_set(&ec->cc, p->delay_tsc);
	return 0;
}

static void
rds_eth_sent_clear(struct rds_eth_conn *ec)
{
	uint32_t i;

	for (i = 0; i < ec->wnd; i++) {
		rte_pktmbuf_free(ec->sent[i].m);
		memset(&ec->sent[i], 0, sizeof(ec->sent[i]));
	}
}

static void
rds_eth_ooo_clear(struct rds_eth_conn *ec)
{
	uint32_t i;

	for (i = 0; i < ec->wnd && ec->nb_ooo != 0; i++) {
		if (ec->ooo[i] != NULL) {
			rte_pktmbuf_free(ec->ooo[i]);
			ec->ooo[i] = NULL;
			ec->nb_ooo--;
		}
	}
	ec->nb_ooo = 0;
}

static void
rds_eth_acks_del(struct rds_eth_conn *ec)
{
	struct rds_eth_engine *ee = ec_ee(ec);

	if (ec->on_acks && ee != NULL) {
		TAILQ_REMOVE(&ee->acks, ec, ack_link);
		ec->on_acks = false;
	}
}

void
rds_eth_rel_fini(struct rds_eth_conn *ec)
{
	struct rds_engine *e = ec_eng(ec);

	rds_timer_cancel(e, &ec->rto_timer);
	rds_timer_cancel(e, &ec->ack_timer);
	rds_eth_acks_del(ec);
	if (ec->sent != NULL)
		rds_eth_sent_clear(ec);
	if (ec->ooo != NULL)
		rds_eth_ooo_clear(ec);
	rds_mem_free(ec->sent);
	rds_mem_free(ec->ooo);
	ec->sent = NULL;
	ec->ooo = NULL;
}

void
rds_eth_set_unresponsive(struct rds_eth_conn *ec, bool on)
{
	if (ec->unresponsive == on)
		return;
	ec->unresponsive = on;
	rds_conn_set_unresponsive(ec->c, on);
	if (on) {
		char a[INET6_ADDRSTRLEN];

		ec_ee(ec)->stats.peer_unresponsive++;
		if (ec->v6)
			inet_ntop(AF_INET6, &ec->c->key.faddr, a, sizeof(a));
		else
			inet_ntop(AF_INET, &ec->fip, a, sizeof(a));
		ETH_LOG(WARNING, "peer %s does not answer (%u timeouts in a "
			"row); its messages stay queued", a, ec->timeouts);
	} else {
		ETH_LOG(INFO, "peer answers again");
	}
}

void
rds_eth_rel_new_epoch(struct rds_eth_conn *ec)
{
	rds_timer_cancel(ec_eng(ec), &ec->rto_timer);
	rds_eth_sent_clear(ec);
	ec->epoch = rds_eth_epoch_next(ec->epoch, rds_eth_epoch_now());
	ec->epoch_acked = false;
	ec->snd_nxt = 0;
	ec->snd_una = 0;
	ec->peer_wnd = ec->wnd;
	rds_eth_cc_init(&ec->cc, ec->port->cwnd_init, ec->wnd);
	if (ec->srtt == 0)
		ec->rto_base = ec->port->rto_init_tsc;
	ec->rto = ec->rto_base;
	ec->rack_tsc = 0;
	ec->probe_sent = false;
	ec->kicked = false;
	ec->timeouts = 0;
	rds_eth_set_unresponsive(ec, false);
	/* A whole window again. */
	if (ec->c->xmit_blocked)
		rds_conn_xmit_unblock(ec->c);
}

/* Take the peer's stream again from its frame 0 (a new epoch of the
 * peer's), or none at all (epoch 0). */
static void
rds_eth_rx_restart(struct rds_eth_conn *ec, uint32_t peer_epoch)
{
	rds_eth_ooo_clear(ec);
	rds_eth_msg_reset_rx(ec);
	ec->rcv_nxt = 0;
	ec->unacked_rx = 0;
	ec->rx_tsc = 0;
	ec->peer_epoch = peer_epoch;
}

static void
rds_eth_mark_ack(struct rds_eth_conn *ec)
{
	struct rds_eth_engine *ee = ec_ee(ec);

	ec->ack_now = true;
	if (!ec->on_acks) {
		TAILQ_INSERT_TAIL(&ee->acks, ec, ack_link);
		ec->on_acks = true;
	}
}

void
rds_eth_rel_rx_reset(struct rds_eth_conn *ec)
{
	struct rds_eth_frame f;

	ec_ee(ec)->stats.rx_bad_unit++;
	/* Tell the peer at once that we take its stream no more (a RESET
	 * naming it; answered again to its next frames of it). */
	memset(&f, 0, sizeof(f));
	f.type = RDS_ETH_F_DATA;
	f.src_epoch = ec->peer_epoch;
	f.src_ip = ec->fip;
	f.dst_ip = ec->lip;
	if (ec->v6) {
		f.flags = RDS_ETH_FF_V6;
		f.src6 = ec->c->key.faddr;
		f.dst6 = ec->c->key.laddr;
	}
	f.src_mac = ec->peer_mac;
	if (ec->resolved && ec->peer_epoch != 0) {
		ec->reset_tsc = ec_eng(ec)->now;
		rds_eth_send_reset(ec_eng(ec), ec->port, &f);
	}
	/* (Its epoch stays the newest taken: its late frames are stale.) */
	rds_eth_rx_restart(ec, 0);
}

/* Inlined into rds_eth_rel_frame (once a frame); the extern
 * rds_eth_rel_room() below is the same for the other callers. */
static __rte_always_inline uint32_t
rds_eth_rel_room_in(struct rds_eth_conn *ec)
{
	uint32_t inflight = ec->snd_nxt - ec->snd_una;
	/* The congestion window is never above the ring (ec->wnd). */
	uint32_t lim = RTE_MIN(ec->cc.cwnd, ec->peer_wnd);

	/* Frames in flight hold their mbufs until acknowledged, and the
	 * ACKs need mbufs to be received (a NIC's receive ring refills
	 * from the pool, a chain from a peer in this process is copied
	 * flat): the connections of a port together, or one large window,
	 * must not take its last mbufs. The pool keeps a reserve: looked at
	 * every 256 asks on the port (rte_mempool_avail_count reads every
	 * lcore's cache), and at every ask while short. */
	struct rds_eth_eport *ep = &ec_ee(ec)->port[ec->port->index];

	if (unlikely((++ep->nb_room & 255) == 0 || ep->pool_low)) {
		ep->pool_low = rte_mempool_avail_count(ec->port->pool) <
			       RDS_ETH_POOL_RESERVE;
		if (ep->pool_low)
			return 0;
	}
	return lim > inflight ? lim - inflight : 0;
}

uint32_t
rds_eth_rel_room(struct rds_eth_conn *ec)
{
	return rds_eth_rel_room_in(ec);
}

/* The ACK fields of a frame we send: our receiving side's state. */
static void
rds_eth_ack_fields(struct rds_eth_conn *ec, struct rds_eth_frame *f)
{
	uint32_t i, n;
	uint64_t sack = 0;

	f->src_epoch = ec->epoch;
	f->dst_epoch = ec->peer_epoch;
	f->ack = ec->rcv_nxt;
	if (ec->nb_ooo != 0) {
		n = RTE_MIN((uint32_t)RDS_ETH_SACK_BITS, ec->wnd - 1);
		for (i = 0; i < n; i++)
			if (ec->ooo[(ec->rcv_nxt + 1 + i) & (ec->wnd - 1)] !=
			    NULL)
				sack |= 1ULL << i;
	}
	f->sack = sack;
	f->wnd = (uint16_t)ec->wnd;
	/* What we receive is acknowledged by this frame. */
	ec->ack_now = false;
	ec->unacked_rx = 0;
}

/* The engine's mbufs for port p are gone: RDS_ETH_STASH more at once,
 * or one (the pool is short). */
static __rte_noinline struct rte_mbuf *
rds_eth_stash_refill(struct rds_eth_eport *ep, struct rte_mempool *pool)
{
	if (rte_mempool_get_bulk(pool, (void **)ep->stash,
				 RDS_ETH_STASH) == 0) {
		ep->nb_stash = RDS_ETH_STASH - 1;
		return ep->stash[RDS_ETH_STASH - 1];
	}
	return rte_mbuf_raw_alloc(pool);
}

static __rte_always_inline struct rte_mbuf *
rds_eth_frame_alloc(struct rds_eth_conn *ec, uint32_t len)
{
	struct rds_eth_port *p = ec->port;
	struct rds_eth_eport *ep = &ec_ee(ec)->port[p->index];
	uint32_t total = RDS_ETH_HDRS + len;
	struct rte_mbuf *m;

	/* From the engine's few for this port, taken from the pool a
	 * burst at a time (one get, not one per frame), raw: a pool's
	 * mbufs come with refcnt 1, next NULL and one segment, and of the
	 * rest a frame needs only what is set here (rte_pktmbuf_reset's
	 * dozen stores are most of an allocation's work); the build sets
	 * or clears the offload fields it uses. The pool's buffers hold
	 * the headroom and more (rds_eth_port.c). */
	if (likely(ep->nb_stash != 0)) {
		m = ep->stash[--ep->nb_stash];
	} else {
		m = rds_eth_stash_refill(ep, p->pool);
		if (unlikely(m == NULL))
			return NULL;
	}
	m->data_off = RTE_PKTMBUF_HEADROOM;
	m->ol_flags = 0;
	m->packet_type = 0;
	if (unlikely(total > (uint32_t)m->buf_len - RTE_PKTMBUF_HEADROOM)) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	m->data_len = (uint16_t)total;
	m->pkt_len = total;
	return m;
}

/* Our frames' headers from the connection's template (made when the
 * peer's MAC became known: every frame we send comes after). */
static inline void
rds_eth_frame_finish(struct rds_eth_conn *ec, struct rte_mbuf *m,
		     const struct rds_eth_frame *f)
{
	rds_eth_frame_build_tmpl(m, &ec->tmpl, f);
}

/* No room: counted; a full window (frames in flight, which an ACK or
 * the retransmit timer answers) takes the connection off the ready
 * list until the ACK that reopens it (rds_eth_rexmit.c); a pool kept
 * in reserve has no such event, and stays polled. */
static __rte_noinline void
rds_eth_rel_full(struct rds_eth_conn *ec)
{
	/* The port's pool at its reserve: counted as the mbufs it is. */
	if (ec_ee(ec)->port[ec->port->index].pool_low) {
		ec_ee(ec)->stats.tx_no_mbuf++;
		return;
	}
	ec_ee(ec)->stats.tx_window_full++;
	if (ec->snd_nxt - ec->snd_una < RTE_MIN(ec->cc.cwnd, ec->peer_wnd))
		return;
	/* Off the ready list only with the timer that brings it back
	 * armed (frames in flight); a zero window with nothing in flight
	 * stays polled. */
	if (!ec->rto_timer.armed && ec->snd_una != ec->snd_nxt)
		rds_eth_rexmit_arm(ec);
	if (ec->rto_timer.armed)
		rds_conn_xmit_block(ec->c);
}

struct rte_mbuf *
rds_eth_rel_frame(struct rds_eth_conn *ec, uint32_t len)
{
	struct rte_mbuf *m;

	if (unlikely(rds_eth_rel_room_in(ec) == 0)) {
		rds_eth_rel_full(ec);
		return NULL;
	}
	m = rds_eth_frame_alloc(ec, len);
	if (unlikely(m == NULL))
		ec_ee(ec)->stats.tx_no_mbuf++;
	return m;
}

void
rds_eth_rel_commit(struct rds_eth_conn *ec, struct rte_mbuf *m, uint8_t type,
		   uint16_t flags, uint32_t frag_off, uint64_t rds_seq)
{
	struct rds_engine *e = ec_eng(ec);
	struct rds_eth_sent *st;
	struct rds_eth_frame f;

	f.type = type;
	f.flags = flags | (ec->epoch_acked ? 0 : RDS_ETH_FL_OPEN);
	/* The frame that fills the congestion window asks for the ACK at
	 * once: the receiver's every-16th-frame rule would otherwise leave
	 * a small window waiting for its delayed ACK. */
	if (ec->cc.init != 0 && ec->snd_nxt + 1 - ec->snd_una >= ec->cc.cwnd)
		f.flags |= RDS_ETH_FL_ACKREQ;
	f.seq = ec->snd_nxt;
	f.frag_off = frag_off;
	f.len = (uint16_t)(rte_pktmbuf_pkt_len(m) - RDS_ETH_HDRS);
	rds_eth_ack_fields(ec, &f);
	rds_eth_frame_finish(ec, m, &f);
	st = &ec->sent[ec->snd_nxt & (ec->wnd - 1)];
	st->m = m;
	st->tsc = e->now;
	st->rds_seq = rds_seq;
	st->tx_count = 1;
	st->sacked = false;
	/* One reference for the PMD, one kept for sending it again. */
	rds_eth_mbuf_ref(m);
	ec->snd_nxt++;
	rds_eth_ec_tx(ec, m);
	if (!ec->rto_timer.armed)
		rds_eth_rexmit_arm(ec);
}

int
rds_eth_rel_send_zc(struct rds_eth_conn *ec, uint8_t type, uint16_t flags,
		    uint32_t frag_off, const void *p1, uint32_t l1,
		    const void *p2, uint32_t l2, struct rds_msg *zc,
		    uint64_t rds_seq)
{
	struct rds_eth_engine *ee = ec_ee(ec);
	struct rte_mbuf *m, *seg = NULL;
	uint8_t *data;

	if (rds_eth_rel_room(ec) == 0) {
		rds_eth_rel_full(ec);
		return -EAGAIN;
	}
	if (zc != NULL && l2 >= RDS_ETH_ZC_MIN && ec->port->tx_multi_seg)
		seg = rds_eth_zc_attach(ec->port, zc, p2, l2);
	m = rds_eth_frame_alloc(ec, l1 + (seg != NULL ? 0 : l2));
	if (m == NULL) {
		rte_pktmbuf_free(seg);
		ee->stats.tx_no_mbuf++;
		return -EAGAIN;
	}
	data = rds_eth_rel_payload(m);
	if (l1 != 0)
		memcpy(data, p1, l1);
	if (seg != NULL) {
		/* The payload stays where it is: the frame is a chain. */
		if (rte_pktmbuf_chain(m, seg) != 0) {
			rte_pktmbuf_free(seg);
			rte_pktmbuf_free(m);
			ee->stats.tx_no_mbuf++;
			return -EAGAIN;
		}
		ee->stats.tx_zc_frames++;
	} else if (l2 != 0) {
		memcpy(data + l1, p2, l2);
	}
	rds_eth_rel_commit(ec, m, type, flags, frag_off, rds_seq);
	return 0;
}

/* The time since rcv_nxt last moved, in ns (the field is 32 bits:
 * saturated), for an ACK frame's frag_off; 0 before any frame came. */
static uint32_t
rds_eth_ack_hold(const struct rds_eth_conn *ec)
{
	uint64_t d, hz = rds_clock_hz();

	if (ec->rx_tsc == 0)
		return 0;
	d = ec_eng(ec)->now - ec->rx_tsc;
	if (d >= hz)
		return UINT32_MAX;
	return (uint32_t)RTE_MIN(d * 1000000000ull / hz, (uint64_t)UINT32_MAX);
}

static void
rds_eth_send_ack_flags(struct rds_eth_conn *ec, uint16_t flags)
{
	struct rds_eth_frame f;
	struct rte_mbuf *m;

	if (!ec->resolved)
		return;
	/* From the ACK pool (frames waiting for their ACK may hold every
	 * mbuf of the port's pool: then only an ACK frees them); the
	 * port's pool if that one is empty. */
	m = rte_mbuf_raw_alloc(ec->port->ctrl_pool);
	if (likely(m != NULL)) {
		m->data_off = RTE_PKTMBUF_HEADROOM;
		m->ol_flags = 0;
		m->packet_type = 0;
		m->data_len = RDS_ETH_HDRS;
		m->pkt_len = RDS_ETH_HDRS;
	} else {
		m = rds_eth_frame_alloc(ec, 0);
	}
	if (m == NULL) {
		ec_ee(ec)->stats.tx_no_mbuf++;
		return;
	}
	f.type = RDS_ETH_F_ACK;
	f.seq = 0;
	f.frag_off = rds_eth_ack_hold(ec);
	f.len = 0;
	/* Until the peer takes our stream: it takes it from an ACK too. */
	f.flags = flags | (ec->epoch_acked ? 0 : RDS_ETH_FL_OPEN);
	rds_eth_ack_fields(ec, &f);
	rds_eth_frame_finish(ec, m, &f);
	ec_ee(ec)->stats.ack_tx++;
	rds_eth_ec_tx(ec, m);
}

static void
rds_eth_send_ack(struct rds_eth_conn *ec)
{
	rds_eth_send_ack_flags(ec, 0);
}

void
rds_eth_rel_poke(struct rds_eth_conn *ec)
{
	rds_eth_send_ack_flags(ec, RDS_ETH_FL_ACKREQ);
}

void
rds_eth_rel_flush_acks(struct rds_engine *e)
{
	struct rds_eth_engine *ee = rds_eth_engine(e);
	struct rds_eth_conn *ec;

	while ((ec = TAILQ_FIRST(&ee->acks)) != NULL) {
		TAILQ_REMOVE(&ee->acks, ec, ack_link);
		ec->on_acks = false;
		if (ec->ack_now)
			rds_eth_send_ack(ec);
	}
}

static void
rds_eth_ack_fire(struct rds_engine *e, struct rds_timer *t)
{
	struct rds_eth_conn *ec = container_of(t, struct rds_eth_conn,
					       ack_timer);

	RTE_SET_USED(e);
	if (ec->unacked_rx != 0)
		rds_eth_mark_ack(ec);
}

/* Deliver one in-order frame; false when the peer's stream was dropped
 * meanwhile (stop). */
static bool
rds_eth_deliver(struct rds_eth_conn *ec, const struct rds_eth_frame *f)
{
	uint32_t epoch = ec->peer_epoch;

	rds_eth_msg_input(ec, f);
	if (ec->peer_epoch != epoch)
		return false;
	ec->rcv_nxt++;
	ec->unacked_rx++;
	ec->rx_tsc = ec_eng(ec)->now;
	return true;
}

void
rds_eth_rel_input(struct rds_eth_conn *ec, struct rte_mbuf *m,
		  const struct rds_eth_frame *f)
{
	struct rds_engine *e = ec_eng(ec);
	struct rds_eth_engine *ee = ec_ee(ec);
	struct rds_eth_frame f2;
	struct rte_mbuf *m2;
	bool ack_now;
	int32_t d;
	uint32_t idx;

	/* The peer has no state for our stream: start it again. */
	if (f->type == RDS_ETH_F_ACK && (f->flags & RDS_ETH_FL_RESET)) {
		if (f->dst_epoch == ec->epoch) {
			ee->stats.peer_restarts++;
			rds_conn_drop(ec->c);
		}
		rte_pktmbuf_free(m);
		return;
	}
	/* The peer's stream. */
	if (f->src_epoch != ec->peer_epoch) {
		bool lost_ours;

		/* Only a stream newer than every one taken before
		 * (rds_eth_epoch.c): never an older incarnation's. */
		if (!(f->flags & RDS_ETH_FL_OPEN) ||
		    !rds_eth_peer_epoch_acceptable(ec, f->src_epoch, e->now)) {
			ee->stats.rx_drop_stale++;
			/* A stream we take no more: tell its sender, now
			 * and then, so that it starts a new one. */
			if (ec->peer_epoch == 0 &&
			    e->now - ec->reset_tsc > ec->port->rto_min_tsc) {
				ec->reset_tsc = e->now;
				rds_eth_send_reset(e, ec->port, f);
			}
			rte_pktmbuf_free(m);
			return;
		}
		/* A new stream of the peer's that does not name ours, once
		 * it took ours: the peer restarted (or reset its end), and
		 * has lost our stream too. Ours starts again; RDS sends
		 * again what the peer never acknowledged. So too when it
		 * replaces a stream we took and ours, never acknowledged,
		 * has frames in flight: the peer restarted before it told
		 * us it took ours, and has none of them; they would go
		 * again only at our retransmission timer, backed off while
		 * the peer was away. And when the new stream names ours but
		 * takes it from below what we let go (its new incarnation
		 * took ours from a late frame still marked OPEN, sent before
		 * the old one acknowledged our first frames): it waits for
		 * frames we no longer hold, and would hold what we send
		 * again out of order for ever. A stream of the peer's that
		 * replaces one it took ours in never acknowledges less than
		 * that one did. Stale frames of the peer's current stream
		 * never count here (their dst may be 0 from before it took
		 * ours). */
		if (f->dst_epoch != ec->epoch)
			lost_ours = ec->epoch_acked ||
				    (ec->peer_epoch != 0 &&
				     ec->snd_una != ec->snd_nxt);
		else
			lost_ours = ec->peer_epoch != 0 &&
				    (int32_t)(f->ack - ec->snd_una) < 0;
		if (ec->peer_epoch != 0)
			ee->stats.peer_restarts++;
		rds_eth_peer_epoch_taken(ec, f->src_epoch, e->now);
		rds_eth_rx_restart(ec, f->src_epoch);
		if (lost_ours)
			rds_conn_drop(ec->c);
	}
	/* Our stream, as the peer takes it. */
	if (f->dst_epoch == ec->epoch) {
		ec->epoch_acked = true;
		/* Nothing in flight and nothing new acknowledged (the data of
		 * a one-way stream, at its receiver): all that
		 * rds_eth_rexmit_ack_input() would do is take the window. */
		if (f->ack == ec->snd_una && f->sack == 0 &&
		    ec->snd_una == ec->snd_nxt)
			rds_eth_peer_wnd_set(ec, f->wnd);
		else
			rds_eth_rexmit_ack_input(ec, f);
	}
	if (f->type == RDS_ETH_F_ACK) {
		ee->stats.ack_rx++;
		/* A poke of a stream of the peer's we take: our ACK now. */
		if ((f->flags & RDS_ETH_FL_ACKREQ) &&
		    f->src_epoch == ec->peer_epoch)
			rds_eth_mark_ack(ec);
		rte_pktmbuf_free(m);
		return;
	}
	d = (int32_t)(f->seq - ec->rcv_nxt);
	if (d < 0) {
		ee->stats.rx_dup++;
		rds_eth_mark_ack(ec);
		rte_pktmbuf_free(m);
		return;
	}
	if ((uint32_t)d >= ec->wnd) {
		ee->stats.rx_beyond_window++;
		rds_eth_mark_ack(ec);
		rte_pktmbuf_free(m);
		return;
	}
	if (d > 0) {
		idx = f->seq & (ec->wnd - 1);
		if (ec->ooo[idx] != NULL) {
			ee->stats.rx_dup++;
			rte_pktmbuf_free(m);
		} else {
			ec->ooo[idx] = m;
			ec->nb_ooo++;
			ee->stats.rx_ooo++;
		}
		/* At once: the SACK lets the sender fill the hole. */
		rds_eth_mark_ack(ec);
		return;
	}
	if (!rds_eth_deliver(ec, f)) {
		rte_pktmbuf_free(m);
		return;
	}
	rte_pktmbuf_free(m);
	/* Asked for, or a hole filled: the sender waits for this ACK. */
	ack_now = (f->flags & RDS_ETH_FL_ACKREQ) || ec->nb_ooo != 0;
	/* What was waiting behind the hole. */
	while (ec->nb_ooo != 0) {
		idx = ec->rcv_nxt & (ec->wnd - 1);
		m2 = ec->ooo[idx];
		if (m2 == NULL)
			break;
		ec->ooo[idx] = NULL;
		ec->nb_ooo--;
		/* Its CRC was checked when it came. */
		if ((unlikely(ec->v6) ?
		     rds_eth_frame_reparse6(m2, ec->port->udp_port, &f2) :
		     rds_eth_frame_reparse(m2, ec->port->udp_port, &f2)) !=
		    RDS_ETH_DROP_NONE || f2.seq != ec->rcv_nxt) {
			rte_pktmbuf_free(m2);
			rds_eth_rel_rx_reset(ec);
			return;
		}
		if (!rds_eth_deliver(ec, &f2)) {
			rte_pktmbuf_free(m2);
			return;
		}
		rte_pktmbuf_free(m2);
	}
	if (ec->unacked_rx >= RDS_ETH_ACK_EVERY || ack_now)
		rds_eth_mark_ack(ec);
	else if (!ec->ack_timer.armed)
		rds_timer_arm(e, &ec->ack_timer,
			      e->now + ec->port->rto_min_tsc / 8);
}

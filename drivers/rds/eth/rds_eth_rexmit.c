/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Loss recovery of the eth frame layer (the sending side of a
 * connection): what the peer's ACK fields tell, and the timer.
 *
 * The peer's ACK is cumulative (every frame below ack) with a 64-frame
 * SACK bitmap above it; a frame acknowledged either way is let go at
 * once. A frame counts as lost, and is sent again at once, when
 *   - fast: it was sent once and three frames above it are SACKed;
 *   - SACK (RACK, RFC 8985's idea): a frame sent a reordering window
 *     (a quarter of the smoothed RTT, at least rto_min/8) before the
 *     newest transmission the peer acknowledged is still not
 *     acknowledged, first transmission or not: so a lost
 *     retransmission is found the same way, and after any
 *     retransmission is acknowledged, what was sent before it and is
 *     still missing goes out without waiting for the timer. Only frames
 *     the SACK can speak of (ack + 1 .. ack + 64) are judged this way;
 *     frames past its reach wait until it moves.
 * Duplicates cost nothing: a duplicate's ACK says what the last one
 * said, and a frame sent again has a new send time, so that it is
 * judged again only once a frame sent after it was acknowledged.
 *
 * Timer: while frames are in flight, first, where the port has kick_us
 * (net_af_packet: a transmit the kernel failed leaves the frames behind
 * it in its ring until the next transmit), an ACK frame that asks for
 * the peer's ACK after kick_us without progress, once: a transmit on
 * each side that releases what their rings hold. Then a tail probe (max(2 srtt,
 * rto_min), at most the RTO): the newest frame the peer has not
 * acknowledged is sent again, once, so that its ACK (the receiver
 * answers a duplicate or an out-of-order frame at once) brings a SACK
 * and the recovery above starts without a timeout; lost tails of a
 * burst are the common case (a SACK of copies sent again alone, which
 * RACK's clock does not take, spends no more probes: the RTO is next).
 * Then the RTO (RFC 6298 from the samples,
 * floor rto_min, ceiling rto_max, doubled per timeout until progress):
 * when the peer SACKed something, only the holes below its highest
 * SACKed frame are sent again (what it told us it misses, never what it
 * holds), at most RDS_ETH_REXMIT_BURST; when it SACKed nothing, only the
 * oldest frame: its ACK restarts the recovery (RACK then finds the rest
 * at once). A peer that lets dead_after timeouts pass in a row is
 * reported unresponsive and is kept trying.
 *
 * RTT: sampled from a frame sent once (Karn: never a retransmitted one)
 * when the peer acknowledges it: the newest one newly SACKed (the
 * receiver SACKs at once), or the newest one the cumulative ACK passes
 * when nothing in the range was sent twice (else the frames waited
 * behind a hole at the receiver, beyond the SACK's reach).
 *
 * The delay signal (rds_eth_cc.h, delay_us) takes the same sample less
 * the time the receiver says it held its ACK (an ACK frame's frag_off,
 * for the frame below its cumulative ACK): the network's round trip,
 * not the every-16th-frame rule's wait. A SACK sample is taken as it is
 * (the receiver SACKs at once); a cumulative one carried by a data
 * frame is an upper bound (its hold is not said).
 *
 * Counters: rexmit_fast, rexmit_sack, rexmit_probe, rexmit_timeout (the
 * cause of each frame sent again), rtt_samples, cc_delay_cuts.
 */
#include <errno.h>

#include "rds_eth.h"

static inline struct rds_eth_engine *
ec_ee(const struct rds_eth_conn *ec)
{
	return ec->ee;
}

/* The peer acknowledged st: its send time moves RACK's clock, unless it
 * was sent again and the ACK came sooner than a round trip can after
 * that (then it acknowledges an earlier copy: taking the new send time
 * would call every frame sent before it lost). */
static inline void
rds_eth_rack_update(struct rds_eth_conn *ec, const struct rds_eth_sent *st,
		    uint64_t now)
{
	if (st->tsc <= ec->rack_tsc)
		return;
	if (st->tx_count > 1 &&
	    (ec->min_rtt == 0 || now - st->tsc < ec->min_rtt))
		return;
	ec->rack_tsc = st->tsc;
}

/* Send frame seq again (it is kept, not acknowledged). */
static bool
rds_eth_rexmit(struct rds_eth_conn *ec, uint32_t seq)
{
	struct rds_eth_sent *st = &ec->sent[seq & (ec->wnd - 1)];

	if (st->m == NULL || st->sacked)
		return false;
	rds_eth_mbuf_ref(st->m);
	st->tsc = ec->c->eng->now;
	st->tx_count++;
	rds_eth_ec_tx(ec, st->m);
	return true;
}

static void
rds_eth_rtt_sample(struct rds_eth_conn *ec, uint64_t r)
{
	struct rds_eth_port *p = ec->port;
	uint64_t d, rto;

	ec_ee(ec)->stats.rtt_samples++;
	if (r == 0)
		r = 1;
	if (ec->min_rtt == 0 || r < ec->min_rtt)
		ec->min_rtt = r;
	if (ec->srtt == 0) {
		ec->srtt = r;
		ec->rttvar = r / 2;
	} else {
		d = ec->srtt > r ? ec->srtt - r : r - ec->srtt;
		ec->rttvar = (3 * ec->rttvar + d) / 4;
		ec->srtt = (7 * ec->srtt + r) / 8;
	}
	rto = ec->srtt + 4 * ec->rttvar;
	ec->rto_base = RTE_MIN(RTE_MAX(rto, p->rto_min_tsc), p->rto_max_tsc);
	if (ec->timeouts == 0)
		ec->rto = ec->rto_base;
}

/* The delay signal's sample from r, the round trip of the frame the ACK
 * f measured (cum: below its cumulative ACK, else the newest SACKed). */
static void
rds_eth_delay_sample(struct rds_eth_conn *ec, const struct rds_eth_frame *f,
		     uint64_t r, bool cum)
{
	uint64_t hold;
	uint32_t cuts;

	if (ec->cc.target == 0)
		return;
	if (cum && f->type != RDS_ETH_F_ACK) {
		rds_eth_cc_delay(&ec->cc, r, false, ec->snd_una, ec->snd_nxt);
		return;
	}
	if (cum && f->frag_off != 0) {
		if (f->frag_off == UINT32_MAX)
			return;
		hold = (uint64_t)f->frag_off * rds_clock_hz() / 1000000000ull;
		if (hold >= r)
			return;
		r -= hold;
	}
	cuts = ec->cc.delay_cuts;
	rds_eth_cc_delay(&ec->cc, r, true, ec->snd_una, ec->snd_nxt);
	ec_ee(ec)->stats.cc_delay_cuts += ec->cc.delay_cuts - cuts;
}

void
rds_eth_rexmit_arm(struct rds_eth_conn *ec)
{
	struct rds_engine *e = ec->c->eng;
	uint64_t t = ec->rto;

	if (!ec->probe_sent && ec->srtt != 0)
		t = RTE_MIN(RTE_MAX(2 * ec->srtt, ec->port->rto_min_tsc), t);
	if (ec->port->kick_tsc != 0 && !ec->kicked)
		t = RTE_MIN(ec->port->kick_tsc, t);
	rds_timer_arm(e, &ec->rto_timer, e->now + t);
}

/* The tail probe: the newest frame not acknowledged, once. */
static void
rds_eth_probe(struct rds_eth_conn *ec)
{
	uint32_t s;

	ec->probe_sent = true;
	for (s = ec->snd_nxt; s != ec->snd_una; ) {
		s--;
		if (rds_eth_rexmit(ec, s)) {
			ec_ee(ec)->stats.rexmit_probe++;
			return;
		}
	}
	/* All SACKed: the ACK that passes them was lost. */
	rds_eth_rel_poke(ec);
}

void
rds_eth_rexmit_timer_fire(struct rds_engine *e, struct rds_timer *t)
{
	struct rds_eth_conn *ec = container_of(t, struct rds_eth_conn,
					       rto_timer);
	struct rds_eth_engine *ee = rds_eth_engine(e);
	struct rds_eth_sent *st;
	uint32_t s, top, n = 0;

	if (ec->snd_una == ec->snd_nxt) {
		rds_conn_xmit_unblock(ec->c);
		return;
	}
	if (ec->port->kick_tsc != 0 && !ec->kicked) {
		ec->kicked = true;
		ee->stats.tx_kicks++;
		rds_eth_rel_poke(ec);
		rds_eth_rexmit_arm(ec);
		return;
	}
	if (!ec->probe_sent) {
		rds_eth_probe(ec);
		rds_eth_rexmit_arm(ec);
		return;
	}
	ec->timeouts++;
	ec->rto = RTE_MIN(ec->rto * 2, ec->port->rto_max_tsc);
	rds_eth_cc_timeout(&ec->cc, ec->snd_nxt - ec->snd_una, ec->snd_nxt);
	/* The highest frame the peer SACKed: the holes below it are what
	 * it told us it misses. None: the oldest frame only. */
	top = ec->snd_una + 1;
	for (s = ec->snd_nxt; s != ec->snd_una; ) {
		s--;
		st = &ec->sent[s & (ec->wnd - 1)];
		if (st->sacked) {
			top = s;
			break;
		}
	}
	for (s = ec->snd_una; s != top && n < RDS_ETH_REXMIT_BURST; s++) {
		if (rds_eth_rexmit(ec, s)) {
			ee->stats.rexmit_timeout++;
			n++;
		}
	}
	/* Nothing to send again (every frame in flight SACKed, their
	 * buffers let go): only the peer's ACK is missing; ask for it. */
	if (n == 0)
		rds_eth_rel_poke(ec);
	if (ec->timeouts >= ec->port->dead_after)
		rds_eth_set_unresponsive(ec, true);
	rds_eth_rexmit_arm(ec);
	/* The send queue is looked at again at each timeout: an RDMA
	 * request the peer never answered is failed from there
	 * (rds_eth_msg_xmit_op), and the window may have room after the
	 * cut. */
	rds_conn_xmit_unblock(ec->c);
}

/* What the SACK and the send times say is lost: sent again. */
static void
rds_eth_detect_loss(struct rds_eth_conn *ec)
{
	struct rds_eth_engine *ee = ec_ee(ec);
	struct rds_eth_sent *st;
	uint32_t s, reach, above = 0, sent = 0;
	uint64_t reo;

	reo = RTE_MAX(ec->srtt / 4, ec->port->rto_min_tsc / 8);
	reach = ec->snd_una + 1 + RDS_ETH_SACK_BITS;
	if (rds_eth_seq_lt(ec->snd_nxt, reach))
		reach = ec->snd_nxt;
	for (s = reach; s != ec->snd_una; ) {
		s--;
		st = &ec->sent[s & (ec->wnd - 1)];
		if (st->sacked) {
			above++;
			continue;
		}
		if (st->m == NULL)
			continue;
		if (st->tx_count == 1 && above >= RDS_ETH_DUPTHRESH) {
			if (rds_eth_rexmit(ec, s)) {
				ee->stats.rexmit_fast++;
				sent++;
			}
		} else if (st->tsc + reo < ec->rack_tsc) {
			if (rds_eth_rexmit(ec, s)) {
				ee->stats.rexmit_sack++;
				sent++;
			}
		}
	}
	if (sent != 0)
		rds_eth_cc_loss(&ec->cc, ec->snd_nxt - ec->snd_una,
				ec->snd_nxt);
}

void
rds_eth_rexmit_ack_input(struct rds_eth_conn *ec,
			 const struct rds_eth_frame *f)
{
	struct rds_engine *e = ec->c->eng;
	struct rds_eth_sent *st;
	uint32_t ack = f->ack, s, i;
	uint64_t rtt = 0, sack_rtt = 0, rds_acked = 0, reo;
	uint64_t rack0 = ec->rack_tsc;
	bool progress = false, news = false, cum;

	rds_eth_peer_wnd_set(ec, f->wnd);
	if (rds_eth_seq_lt(ec->snd_una, ack) &&
	    !rds_eth_seq_lt(ec->snd_nxt, ack)) {
		/* What the ACK lets go, back to the pool in bulks. */
		struct rte_mbuf *done[RDS_ETH_FREE_BULK];
		unsigned int nd = 0;
		bool clean = true;

		for (s = ec->snd_una; s != ack; s++) {
			st = &ec->sent[s & (ec->wnd - 1)];
			if (st->tx_count > 1)
				clean = false;
			if (st->m != NULL && !st->sacked)
				rds_eth_rack_update(ec, st, e->now);
			/* Karn, and more: the newest frame measures the
			 * round trip if nothing in the range was sent
			 * twice (else the frames waited behind a hole at
			 * the receiver, beyond the SACK's reach). */
			if (s + 1 == ack && clean && st->m != NULL &&
			    !st->sacked && st->tx_count == 1)
				rtt = e->now - st->tsc;
			if (st->rds_seq != 0)
				rds_acked = st->rds_seq;
			done[nd++] = st->m;	/* NULL if SACKed: skipped */
			if (nd == RTE_DIM(done)) {
				rte_pktmbuf_free_bulk(done, nd);
				nd = 0;
			}
			memset(st, 0, sizeof(*st));
		}
		if (nd != 0)
			rte_pktmbuf_free_bulk(done, nd);
		rds_eth_cc_acked(&ec->cc, ack - ec->snd_una, ack);
		ec->snd_una = ack;
		progress = true;
		news = true;
		/* The messages whose last frame that was: the peer's core
		 * has them. */
		if (rds_acked != 0)
			rds_send_drop_acked(ec->c, rds_acked);
	}
	if (f->sack != 0) {
		for (i = 0; i < RDS_ETH_SACK_BITS; i++) {
			if (!((f->sack >> i) & 1))
				continue;
			s = ack + 1 + i;
			if (rds_eth_seq_lt(s, ec->snd_una) ||
			    !rds_eth_seq_lt(s, ec->snd_nxt))
				continue;
			st = &ec->sent[s & (ec->wnd - 1)];
			if (st->sacked)
				continue;
			st->sacked = true;
			rds_eth_rack_update(ec, st, e->now);
			/* The receiver SACKs at once: a sample, if sent
			 * once (the newest such wins). */
			if (st->tx_count == 1 && st->m != NULL) {
				sack_rtt = e->now - st->tsc;
				news = true;
			}
			rte_pktmbuf_free(st->m);
			st->m = NULL;
			progress = true;
		}
	}
	cum = rtt != 0;
	if (rtt == 0)
		rtt = sack_rtt;
	if (rtt != 0) {
		rds_eth_rtt_sample(ec, rtt);
		rds_eth_delay_sample(ec, f, rtt, cum);
	}
	/* Losses: with a SACK, or when the oldest frame is overdue (a
	 * retransmission acknowledged after it was sent). */
	if (ec->snd_una != ec->snd_nxt) {
		st = &ec->sent[ec->snd_una & (ec->wnd - 1)];
		reo = RTE_MAX(ec->srtt / 4, ec->port->rto_min_tsc / 8);
		if (f->sack != 0 || (st->m != NULL && !st->sacked &&
				     st->tsc + reo < ec->rack_tsc))
			rds_eth_detect_loss(ec);
	}
	if (!progress)
		return;
	ec->rto = ec->rto_base;
	ec->timeouts = 0;
	/* The probe is spent until the ACKs say something new: SACKs of
	 * copies sent again, alone, which RACK's clock did not take (they
	 * may acknowledge an earlier copy; with no RTT sample yet it takes
	 * none), leave the next turn to the RTO, which sends the holes
	 * below them. Else each would bring another probe, one frame an
	 * RTO, newest first: a window lost whole, on a connection with no
	 * sample, took a probe per frame to come back. */
	if (news || ec->rack_tsc != rack0)
		ec->probe_sent = false;
	ec->kicked = false;
	rds_eth_set_unresponsive(ec, false);
	if (ec->snd_una == ec->snd_nxt)
		rds_timer_cancel(e, &ec->rto_timer);
	else
		rds_eth_rexmit_arm(ec);
	/* Room again: what waited for it goes on. */
	rds_eth_msg_pump(ec);
	rds_conn_xmit_unblock(ec->c);
}

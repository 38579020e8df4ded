/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Congestion control of an eth connection: a window in frames, AIMD on
 * loss (RFC 5681's slow start and congestion avoidance, with RFC 6582's
 * one cut per recovery episode), as the kernel's TCP under rds_tcp does
 * for the kernel's RDS. The reliable frame layer (rds_eth_rel.c) sends
 * no more than min(cwnd, the peer's window) frames unacknowledged;
 * cwnd never exceeds the connection's ring (max), so that the test of
 * room per frame stays one comparison. Standalone (no driver state) so
 * that unit_eth tests it as it is.
 *
 * - init: cwnd = the initial window (eth key cwnd_init, by default 10
 *   frames as RFC 6928's IW10); cwnd_init=0 is off: cwnd = max for
 *   good.
 * - acknowledged frames (the cumulative ACK's advance): below ssthresh
 *   cwnd grows by as many frames (slow start, doubling per round trip),
 *   above it by one frame per window acknowledged; nothing grows while
 *   recovering a loss.
 * - a loss (fast or SACK retransmission): ssthresh = cwnd = half the
 *   frames in flight (at least RDS_ETH_CC_MIN), once per episode: until
 *   the ACK passes what was sent when the loss was seen (recover).
 * - a retransmission timeout: ssthresh = half the frames in flight,
 *   cwnd = RDS_ETH_CC_MIN, slow start again once the ACK passes recover.
 * - delay (eth key delay_us, 0: off; Swift's fabric window, Kumar et
 *   al., SIGCOMM 2020): each delay sample d (the round trip less the
 *   time the receiver held its ACK) is compared with base + target,
 *   base the smallest sample the connection has seen (kept across
 *   epochs: the same path). Below it the window grows as above;
 *   above it nothing grows, and the window is cut in proportion to the
 *   excess, cwnd * (1 - beta (d - base - target) / d), beta 0.8,
 *   never below half or RDS_ETH_CC_MIN; ssthresh follows (no slow start
 *   after it). At most one such cut per round trip (until the ACK
 *   passes what was sent at the cut) and none while a loss is being
 *   recovered: the loss response above stays as it is. A sample that is
 *   only an upper bound (the receiver did not say how long it held the
 *   ACK: an ACK on a data frame) may say "below" and nothing else.
 */
#ifndef RDS_ETH_CC_H
#define RDS_ETH_CC_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>

#define RDS_ETH_CC_MIN 2u		/* frames: the window after an RTO */

struct rds_eth_cc {
	uint32_t cwnd;		/* frames that may be unacknowledged */
	uint32_t ssthresh;
	uint32_t acc;		/* acknowledged toward the next +1 */
	uint32_t recover;	/* snd_nxt when the episode began */
	uint32_t max;		/* the ring: cwnd never above */
	uint32_t init;		/* 0: off */
	bool in_rec;		/* recovering: no growth, no second cut */
	uint32_t cuts;		/* losses that cut the window */
	uint32_t collapses;	/* timeouts that collapsed it */
	/* The delay signal (rds_eth_cc_delay_set; kept by _init). */
	uint64_t target;	/* queueing delay allowed (tsc), 0: off */
	uint64_t base;		/* smallest delay sample (tsc), 0: none */
	uint32_t dly_recover;	/* snd_nxt at the last delay cut */
	bool dly_wait;		/* that cut's round trip is not over */
	bool above;		/* the last sample was above the target */
	uint32_t delay_cuts;	/* delay samples that cut the window */
};

/* Beta of the delay cut (Swift's form; the value is ours), as a
 * fraction; the cut is at most half (Swift's max_mdf, ours 0.5). */
#define RDS_ETH_CC_BETA_NUM 4u
#define RDS_ETH_CC_BETA_DEN 5u

static inline bool
rds_eth_cc_seq_lt(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

/* A new stream (or connection): the initial window, counters kept. */
static inline void
rds_eth_cc_init(struct rds_eth_cc *cc, uint32_t init, uint32_t max)
{
	cc->max = max;
	cc->init = init;
	cc->cwnd = init == 0 ? max : RTE_MIN(RTE_MAX(init, RDS_ETH_CC_MIN),
					     max);
	cc->ssthresh = max;
	cc->acc = 0;
	cc->recover = 0;
	cc->in_rec = false;
	cc->dly_wait = false;
	cc->above = false;
}

/* The delay signal's target (tsc of queueing delay above the base), 0:
 * off. The base and the counters are kept. */
static inline void
rds_eth_cc_delay_set(struct rds_eth_cc *cc, uint64_t target)
{
	cc->target = target;
	cc->above = false;
}

/* n frames newly acknowledged cumulatively, snd_una now una. */
static inline void
rds_eth_cc_acked(struct rds_eth_cc *cc, uint32_t n, uint32_t una)
{
	if (cc->init == 0)
		return;
	if (cc->in_rec) {
		if (rds_eth_cc_seq_lt(una, cc->recover))
			return;
		cc->in_rec = false;
	}
	/* Above the delay target: hold (the cut is rds_eth_cc_delay's). */
	if (cc->above)
		return;
	if (cc->cwnd < cc->ssthresh) {
		cc->cwnd += n;
	} else {
		cc->acc += n;
		while (cc->acc >= cc->cwnd) {
			cc->acc -= cc->cwnd;
			cc->cwnd++;
		}
	}
	if (cc->cwnd > cc->max)
		cc->cwnd = cc->max;
}

/* A loss seen with inflight frames unacknowledged and snd_nxt next. */
static inline void
rds_eth_cc_loss(struct rds_eth_cc *cc, uint32_t inflight, uint32_t snd_nxt)
{
	if (cc->init == 0 || cc->in_rec)
		return;
	cc->ssthresh = RTE_MAX(inflight / 2, (uint32_t)RDS_ETH_CC_MIN);
	cc->cwnd = RTE_MIN(cc->ssthresh, cc->max);
	cc->acc = 0;
	cc->in_rec = true;
	cc->recover = snd_nxt;
	cc->cuts++;
}

/* A retransmission timeout, as rds_eth_cc_loss(). */
static inline void
rds_eth_cc_timeout(struct rds_eth_cc *cc, uint32_t inflight,
		   uint32_t snd_nxt)
{
	if (cc->init == 0)
		return;
	/* A second timeout of one episode keeps the first's ssthresh. */
	if (!cc->in_rec || cc->cwnd > RDS_ETH_CC_MIN)
		cc->ssthresh = RTE_MAX(inflight / 2,
				       (uint32_t)RDS_ETH_CC_MIN);
	cc->cwnd = RTE_MIN((uint32_t)RDS_ETH_CC_MIN, cc->max);
	cc->acc = 0;
	cc->in_rec = true;
	cc->recover = snd_nxt;
	cc->collapses++;
}

/* A delay sample d (tsc) with snd_una una and snd_nxt next: exact, the
 * network's round trip; else an upper bound of it (may only say below). */
static inline void
rds_eth_cc_delay(struct rds_eth_cc *cc, uint64_t d, bool exact, uint32_t una,
		 uint32_t snd_nxt)
{
	uint64_t lim, cut;
	uint32_t w;

	if (cc->init == 0 || cc->target == 0 || d == 0)
		return;
	if (!exact) {
		if (cc->base != 0 && d <= cc->base + cc->target)
			cc->above = false;
		return;
	}
	if (cc->base == 0 || d < cc->base)
		cc->base = d;
	lim = cc->base + cc->target;
	if (d <= lim) {
		cc->above = false;
		return;
	}
	cc->above = true;
	if (cc->dly_wait) {
		if (rds_eth_cc_seq_lt(una, cc->dly_recover))
			return;
		cc->dly_wait = false;
	}
	if (cc->in_rec)
		return;
	/* cwnd * beta * (d - lim) / d, at most half (d > lim >= 0). */
	cut = (uint64_t)cc->cwnd * RDS_ETH_CC_BETA_NUM * (d - lim) /
	      (RDS_ETH_CC_BETA_DEN * d);
	w = cc->cwnd - (uint32_t)RTE_MIN(cut, (uint64_t)cc->cwnd / 2);
	w = RTE_MAX(w, (uint32_t)RDS_ETH_CC_MIN);
	/* Too small a window for the excess to take a frame: a hold. */
	if (w >= cc->cwnd)
		return;
	cc->cwnd = w;
	cc->ssthresh = w;
	cc->acc = 0;
	cc->dly_wait = true;
	cc->dly_recover = snd_nxt;
	cc->delay_cuts++;
}

#endif /* RDS_ETH_CC_H */

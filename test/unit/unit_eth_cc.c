/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eth's congestion window (rds_eth_cc.h), in unit_eth:
 *
 * - cc_slow_start: from cwnd_init, each cumulative ACK adds the frames
 *   it acknowledges (the window doubles per window acknowledged), up to
 *   the slow-start threshold; then one frame per window acknowledged;
 *   never above the ring.
 * - cc_loss_once: a loss halves the window (threshold = window = half
 *   the frames in flight); a second loss of the same episode (before the
 *   ACK passes what was sent when the first was seen) cuts nothing;
 *   nothing grows during the episode; once the ACK passes it, growth by
 *   one frame per window (congestion avoidance); a loss after it cuts
 *   again. Never below 2.
 * - cc_timeout: a retransmission timeout takes the window to 2 and the
 *   threshold to half the frames in flight; a second timeout of the same
 *   episode keeps that threshold; after the episode, slow start to the
 *   threshold.
 * - cc_off: cwnd_init 0: the window is the ring's, and stays so through
 *   losses and timeouts (no cut counted).
 * - cc_delay: the delay signal (target 100 above the smallest sample):
 *   below it the window grows; above it nothing grows and the window is
 *   cut by 0.8 x excess / sample, at most by half, once per round trip
 *   (until the ACK passes what was sent at the cut), none during a loss
 *   episode, never below 2 (a hold, not counted); a sample that is only
 *   an upper bound may lift the hold but never cuts or sets the base; a
 *   smaller sample lowers the base; with no target, or cwnd_init 0,
 *   samples do nothing.
 */
#include "unit_eth.h"

/* Acknowledge a window's worth, frame by frame: una moves n. */
static uint32_t
ack_frames(struct rds_eth_cc *cc, uint32_t una, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		rds_eth_cc_acked(cc, 1, ++una);
	return una;
}

void
test_cc_slow_start(void)
{
	struct rds_eth_cc cc;
	uint32_t una = 0, w;

	memset(&cc, 0, sizeof(cc));
	rds_eth_cc_init(&cc, 10, 128);
	CU_ASSERT_EQUAL(cc.cwnd, 10);
	CU_ASSERT_EQUAL(cc.ssthresh, 128);
	/* One ACK of 10 frames: 20; frame by frame: one each. */
	rds_eth_cc_acked(&cc, 10, una += 10);
	CU_ASSERT_EQUAL(cc.cwnd, 20);
	una = ack_frames(&cc, una, 20);
	CU_ASSERT_EQUAL(cc.cwnd, 40);
	una = ack_frames(&cc, una, 200);
	CU_ASSERT_EQUAL(cc.cwnd, 128);	/* the ring */
	/* Above the threshold: one per window. */
	rds_eth_cc_init(&cc, 10, 1024);
	cc.ssthresh = 32;
	una = ack_frames(&cc, una, 22);
	CU_ASSERT_EQUAL(cc.cwnd, 32);
	w = cc.cwnd;
	una = ack_frames(&cc, una, w - 1);
	CU_ASSERT_EQUAL(cc.cwnd, 32);
	una = ack_frames(&cc, una, 1);
	CU_ASSERT_EQUAL(cc.cwnd, 33);
	una = ack_frames(&cc, una, 33);
	CU_ASSERT_EQUAL(cc.cwnd, 34);
	/* An initial window past the ring, or below the minimum. */
	rds_eth_cc_init(&cc, 500, 64);
	CU_ASSERT_EQUAL(cc.cwnd, 64);
	rds_eth_cc_init(&cc, 1, 64);
	CU_ASSERT_EQUAL(cc.cwnd, RDS_ETH_CC_MIN);
	CU_ASSERT_EQUAL(cc.cuts + cc.collapses, 0);
}

void
test_cc_loss_once(void)
{
	struct rds_eth_cc cc;
	uint32_t una = 1000, nxt;

	memset(&cc, 0, sizeof(cc));
	rds_eth_cc_init(&cc, 64, 128);
	nxt = una + 64;
	rds_eth_cc_loss(&cc, nxt - una, nxt);
	CU_ASSERT_EQUAL(cc.cwnd, 32);
	CU_ASSERT_EQUAL(cc.ssthresh, 32);
	CU_ASSERT_EQUAL(cc.cuts, 1);
	/* The same episode: no second cut, no growth. */
	rds_eth_cc_loss(&cc, nxt - una, nxt + 5);
	CU_ASSERT_EQUAL(cc.cwnd, 32);
	CU_ASSERT_EQUAL(cc.cuts, 1);
	una = ack_frames(&cc, una, 63);
	CU_ASSERT_EQUAL(cc.cwnd, 32);
	CU_ASSERT(cc.in_rec);
	/* The ACK reaches recover: the episode is over, and that ACK
	 * counts in congestion avoidance (the window is the threshold). */
	una = ack_frames(&cc, una, 1);
	CU_ASSERT(!cc.in_rec);
	CU_ASSERT_EQUAL(cc.cwnd, 32);
	una = ack_frames(&cc, una, 31);
	CU_ASSERT_EQUAL(cc.cwnd, 33);
	/* A new loss: cut again, from what is in flight. */
	nxt = una + 30;
	rds_eth_cc_loss(&cc, nxt - una, nxt);
	CU_ASSERT_EQUAL(cc.cwnd, 15);
	CU_ASSERT_EQUAL(cc.cuts, 2);
	/* Never below the minimum. */
	una = ack_frames(&cc, una, 30);
	rds_eth_cc_loss(&cc, 1, una + 1);
	CU_ASSERT_EQUAL(cc.cwnd, RDS_ETH_CC_MIN);
	CU_ASSERT_EQUAL(cc.cuts, 3);
	/* Across the sequence space's wrap. */
	rds_eth_cc_init(&cc, 16, 128);
	una = UINT32_MAX - 4;
	nxt = una + 16;
	rds_eth_cc_loss(&cc, 16, nxt);
	una = ack_frames(&cc, una, 15);
	CU_ASSERT(cc.in_rec);
	una = ack_frames(&cc, una, 1);
	CU_ASSERT(!cc.in_rec);
}

void
test_cc_timeout(void)
{
	struct rds_eth_cc cc;
	uint32_t una = 7, nxt;

	memset(&cc, 0, sizeof(cc));
	rds_eth_cc_init(&cc, 100, 128);
	nxt = una + 100;
	rds_eth_cc_timeout(&cc, nxt - una, nxt);
	CU_ASSERT_EQUAL(cc.cwnd, RDS_ETH_CC_MIN);
	CU_ASSERT_EQUAL(cc.ssthresh, 50);
	CU_ASSERT_EQUAL(cc.collapses, 1);
	/* Again, nothing acknowledged: the threshold stays. */
	rds_eth_cc_timeout(&cc, nxt - una, nxt);
	CU_ASSERT_EQUAL(cc.ssthresh, 50);
	CU_ASSERT_EQUAL(cc.cwnd, RDS_ETH_CC_MIN);
	CU_ASSERT_EQUAL(cc.collapses, 2);
	/* A loss during it cuts nothing more. */
	rds_eth_cc_loss(&cc, nxt - una, nxt);
	CU_ASSERT_EQUAL(cc.cuts, 0);
	una = ack_frames(&cc, una, 100);
	CU_ASSERT(!cc.in_rec);
	/* Slow start from 2 (the last ACK counted) to the threshold. */
	CU_ASSERT_EQUAL(cc.cwnd, RDS_ETH_CC_MIN + 1);
	una = ack_frames(&cc, una, 47);
	CU_ASSERT_EQUAL(cc.cwnd, 50);
	una = ack_frames(&cc, una, 49);
	CU_ASSERT_EQUAL(cc.cwnd, 50);
	una = ack_frames(&cc, una, 1);
	CU_ASSERT_EQUAL(cc.cwnd, 51);
}

void
test_cc_off(void)
{
	struct rds_eth_cc cc;

	memset(&cc, 0, sizeof(cc));
	rds_eth_cc_init(&cc, 0, 256);
	CU_ASSERT_EQUAL(cc.cwnd, 256);
	rds_eth_cc_loss(&cc, 256, 256);
	rds_eth_cc_timeout(&cc, 256, 256);
	ack_frames(&cc, 0, 300);
	CU_ASSERT_EQUAL(cc.cwnd, 256);
	CU_ASSERT_EQUAL(cc.cuts + cc.collapses, 0);
}

void
test_cc_delay(void)
{
	struct rds_eth_cc cc;
	uint32_t una = 0, nxt;

	memset(&cc, 0, sizeof(cc));
	rds_eth_cc_init(&cc, 64, 128);
	rds_eth_cc_delay_set(&cc, 100);
	nxt = 64;
	/* The first sample is the base; within base + target: growth. */
	rds_eth_cc_delay(&cc, 1000, true, una, nxt);
	CU_ASSERT_EQUAL(cc.base, 1000);
	rds_eth_cc_delay(&cc, 1100, true, una, nxt);
	CU_ASSERT(!cc.above);
	una = ack_frames(&cc, una, 1);
	CU_ASSERT_EQUAL(cc.cwnd, 65);
	/* 900 over: 65 * 0.8 * 900 / 2000 = 23.4 frames off. */
	nxt = una + 65;
	rds_eth_cc_delay(&cc, 2000, true, una, nxt);
	CU_ASSERT_EQUAL(cc.cwnd, 42);
	CU_ASSERT_EQUAL(cc.ssthresh, 42);
	CU_ASSERT_EQUAL(cc.delay_cuts, 1);
	CU_ASSERT_EQUAL(cc.cuts + cc.collapses, 0);
	/* Above the target: no growth, and no second cut this round trip. */
	una = ack_frames(&cc, una, 10);
	CU_ASSERT_EQUAL(cc.cwnd, 42);
	rds_eth_cc_delay(&cc, 5000, true, una, nxt);
	CU_ASSERT_EQUAL(cc.cwnd, 42);
	CU_ASSERT_EQUAL(cc.delay_cuts, 1);
	/* The ACK passed the cut's snd_nxt: 42 * 0.8 * 1900 / 3000 = 21. */
	una = ack_frames(&cc, una, nxt - una);
	CU_ASSERT_EQUAL(cc.cwnd, 42);
	nxt = una + 42;
	rds_eth_cc_delay(&cc, 3000, true, una, nxt);
	CU_ASSERT_EQUAL(cc.cwnd, 21);
	CU_ASSERT_EQUAL(cc.delay_cuts, 2);
	/* A huge excess: at most half. */
	una = ack_frames(&cc, una, nxt - una);
	nxt = una + 21;
	rds_eth_cc_delay(&cc, 100000, true, una, nxt);
	CU_ASSERT_EQUAL(cc.cwnd, 11);
	CU_ASSERT_EQUAL(cc.delay_cuts, 3);
	/* An upper bound above the target: no cut, the hold stays. */
	una = ack_frames(&cc, una, nxt - una);
	nxt = una + 11;
	rds_eth_cc_delay(&cc, 1000000, false, una, nxt);
	CU_ASSERT_EQUAL(cc.cwnd, 11);
	CU_ASSERT_EQUAL(cc.delay_cuts, 3);
	CU_ASSERT(cc.above);
	/* An upper bound below it lifts the hold: one per window again. */
	rds_eth_cc_delay(&cc, 1050, false, una, nxt);
	CU_ASSERT(!cc.above);
	CU_ASSERT_EQUAL(cc.base, 1000);
	una = ack_frames(&cc, una, 11);
	CU_ASSERT_EQUAL(cc.cwnd, 12);
	/* A smaller exact sample lowers the base. */
	rds_eth_cc_delay(&cc, 500, true, una, una + 12);
	CU_ASSERT_EQUAL(cc.base, 500);
	/* None during a loss episode; the loss cut is as before. */
	nxt = una + 12;
	rds_eth_cc_loss(&cc, 12, nxt);
	CU_ASSERT_EQUAL(cc.cwnd, 6);
	rds_eth_cc_delay(&cc, 5000, true, una, nxt);
	CU_ASSERT_EQUAL(cc.cwnd, 6);
	CU_ASSERT_EQUAL(cc.delay_cuts, 3);
	CU_ASSERT_EQUAL(cc.cuts, 1);
	/* Never below the minimum: at 2 a sample above is a hold. */
	una = ack_frames(&cc, una, nxt - una);
	CU_ASSERT(!cc.in_rec);
	cc.cwnd = RDS_ETH_CC_MIN;
	rds_eth_cc_delay(&cc, 100000, true, una, una + 2);
	CU_ASSERT_EQUAL(cc.cwnd, RDS_ETH_CC_MIN);
	CU_ASSERT_EQUAL(cc.delay_cuts, 3);
	una = ack_frames(&cc, una, 10);
	CU_ASSERT_EQUAL(cc.cwnd, RDS_ETH_CC_MIN);
	/* A new epoch keeps the base and the target. */
	rds_eth_cc_init(&cc, 10, 128);
	CU_ASSERT_EQUAL(cc.base, 500);
	CU_ASSERT_EQUAL(cc.target, 100);
	CU_ASSERT(!cc.above);
	/* No target: nothing. */
	rds_eth_cc_delay_set(&cc, 0);
	rds_eth_cc_delay(&cc, 100000, true, una, una + 10);
	CU_ASSERT_EQUAL(cc.cwnd, 10);
	/* cwnd_init 0 (off): nothing either. */
	rds_eth_cc_init(&cc, 0, 128);
	rds_eth_cc_delay_set(&cc, 100);
	rds_eth_cc_delay(&cc, 100000, true, una, una + 10);
	CU_ASSERT_EQUAL(cc.cwnd, 128);
	CU_ASSERT_EQUAL(cc.delay_cuts, 3);
}

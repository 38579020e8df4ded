/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Epochs of eth streams, ordered.
 *
 * Each side's sending stream has an epoch, new whenever the stream
 * starts again (connect, a reset, a restart of the process). A receiver
 * takes a peer's new stream only if its epoch is newer than every epoch
 * of that peer it has taken before, so that no frame of an older
 * incarnation (delayed in the network, duplicated, across any number of
 * restarts) is ever taken for a new stream, and RDS never sees that
 * stream's messages again as new ones.
 *
 * Order comes from the wall clock: an epoch is CLOCK_REALTIME in units of
 * 1/1024 s, cut to 32 bits, and at least one more than the connection's
 * epoch before it (so a connection that starts again within a unit still
 * moves on). Epochs compare in serial-number arithmetic (RFC 1982): a is
 * newer than b when (int32_t)(a - b) > 0, which holds for epochs less
 * than 2^31 units (24 days) apart. A connection whose peer stream is
 * older than half that (RDS_ETH_EPOCH_HORIZON_S of our own monotonic
 * time since we took it) takes any new epoch: no frame lives in a
 * network for days, and without it a stream that ran for 24 days would
 * make the peer's next incarnation look older than it.
 *
 * What this assumes: a restarted host's clock does not go back past the
 * epoch its previous incarnation last used (its previous start, in
 * practice). A peer whose clock stepped back further than that is refused
 * (its frames count as rx_drop_stale) until its clock passes that point
 * again, or until the horizon. Random epochs had no such assumption, but
 * could only remember some of the peer's earlier streams: a frame delayed
 * across more restarts than that could deliver a message twice.
 */
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <rte_cycles.h>

#include "rds_eth.h"

/* Our monotonic seconds after which a peer's stream is too old to order
 * against (half the serial range of 2^31 units of 1/1024 s). */
#define RDS_ETH_EPOCH_HORIZON_S (1u << 20)

static bool
epoch_newer(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

uint32_t
rds_eth_epoch_now(void)
{
	struct timespec ts;

	rds_clock_realtime(&ts);
	return (uint32_t)(((uint64_t)ts.tv_sec << 10) +
			  (((uint64_t)ts.tv_nsec << 10) / 1000000000u));
}

uint32_t
rds_eth_epoch_next(uint32_t prev, uint32_t now)
{
	uint32_t v = now;

	if (prev != 0 && !epoch_newer(v, prev))
		v = prev + 1;
	if (v == 0)
		v = 1;
	return v;
}

bool
rds_eth_peer_epoch_acceptable(const struct rds_eth_conn *ec, uint32_t e,
			      uint64_t now_tsc)
{
	if (e == 0)
		return false;
	if (ec->peer_epoch_hi == 0)
		return true;
	if (epoch_newer(e, ec->peer_epoch_hi))
		return true;
	/* Past the horizon, any epoch but the last one is new. */
	return e != ec->peer_epoch_hi &&
	       now_tsc - ec->peer_epoch_hi_tsc >
	       rds_clock_hz() * (uint64_t)RDS_ETH_EPOCH_HORIZON_S;
}

void
rds_eth_peer_epoch_taken(struct rds_eth_conn *ec, uint32_t e,
			 uint64_t now_tsc)
{
	ec->peer_epoch_hi = e;
	ec->peer_epoch_hi_tsc = now_tsc;
}

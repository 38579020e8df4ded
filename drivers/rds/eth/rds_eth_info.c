/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the eth transport tells of its connections through the core's
 * info op: RTE_RDS_INFO_ETH_CONNECTIONS, one record per connection with
 * its frame layer's state (epochs, sequences, window, RTT estimate,
 * RTO), so that a user can see why a connection is slow (rds-info -e).
 * The engine that owns the connections fills it in its pass, as every
 * snapshot (rds_info.c).
 */
#include <string.h>

#include <rte_cycles.h>

#include "rds_eth.h"

static uint64_t
rds_eth_info_ns(uint64_t tsc, uint64_t hz)
{
	return hz != 0 ? (uint64_t)((double)tsc * 1e9 / (double)hz) : 0;
}

static void
rds_eth_info_conn(struct rds_info_req *r, const struct rds_conn *c,
		  const struct rds_eth_conn *ec, uint64_t hz)
{
	struct rte_rds_info_eth_connection ri;

	memset(&ri, 0, sizeof(ri));
	memcpy(&ri.laddr, &c->key.laddr, sizeof(ri.laddr));
	memcpy(&ri.faddr, &c->key.faddr, sizeof(ri.faddr));
	if (ec != NULL) {
		if (ec->resolved)
			memcpy(ri.peer_mac, ec->peer_mac.addr_bytes,
			       sizeof(ri.peer_mac));
		ri.resolved = ec->resolved;
		ri.unresponsive = ec->unresponsive;
		ri.epoch = ec->epoch;
		ri.peer_epoch = ec->peer_epoch;
		ri.snd_nxt = ec->snd_nxt;
		ri.snd_una = ec->snd_una;
		ri.in_flight = ec->snd_nxt - ec->snd_una;
		ri.wnd = ec->wnd;
		ri.peer_wnd = ec->peer_wnd;
		ri.rcv_nxt = ec->rcv_nxt;
		ri.rx_out_of_order = ec->nb_ooo;
		ri.timeouts = ec->timeouts;
		ri.srtt_ns = rds_eth_info_ns(ec->srtt, hz);
		ri.rttvar_ns = rds_eth_info_ns(ec->rttvar, hz);
		ri.min_rtt_ns = rds_eth_info_ns(ec->min_rtt, hz);
		ri.rto_ns = rds_eth_info_ns(ec->rto, hz);
		ri.cwnd = ec->cc.cwnd;
		ri.ssthresh = ec->cc.ssthresh;
		ri.cwnd_cuts = ec->cc.cuts;
		ri.cwnd_collapses = ec->cc.collapses;
		ri.cwnd_delay_cuts = ec->cc.delay_cuts;
		ri.delay_target_us = (uint32_t)((rds_eth_info_ns(ec->cc.target,
								hz) + 500) /
						1000);
		ri.delay_base_ns = rds_eth_info_ns(ec->cc.base, hz);
	}
	rds_info_put(r, &ri);
}

void
rds_eth_info(struct rds_engine *e, struct rds_info_req *r)
{
	const struct rds_conn *c;
	uint64_t hz;

	if (r->name != RTE_RDS_INFO_ETH_CONNECTIONS)
		return;
	hz = rds_clock_hz();
	TAILQ_FOREACH(c, &e->conns, link)
		if (c->trans == &rds_eth_transport)
			rds_eth_info_conn(r, c, c->tp, hz);
}

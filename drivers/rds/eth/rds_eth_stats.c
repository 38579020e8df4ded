/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The eth transport's counters: their names (the order of struct
 * rte_rds_eth_stats), the sum over engines the core's xstats ask for,
 * and rte_rds_eth_stats_get().
 */
#include <errno.h>

#include "rds_eth.h"

#define ETH_XSTAT(f) #f
const char *const rds_eth_xstat_names[] = {
	ETH_XSTAT(tx_frames), ETH_XSTAT(tx_full), ETH_XSTAT(tx_no_mbuf),
	ETH_XSTAT(tx_window_full), ETH_XSTAT(rx_frames),
	ETH_XSTAT(rx_not_ours), ETH_XSTAT(rx_drop_short),
	ETH_XSTAT(rx_drop_ip), ETH_XSTAT(rx_drop_version),
	ETH_XSTAT(rx_drop_type), ETH_XSTAT(rx_drop_len),
	ETH_XSTAT(rx_drop_crc), ETH_XSTAT(rx_drop_no_conn),
	ETH_XSTAT(rx_drop_stale), ETH_XSTAT(rx_dup), ETH_XSTAT(rx_ooo),
	ETH_XSTAT(rx_beyond_window), ETH_XSTAT(rx_bad_unit),
	ETH_XSTAT(rx_handoff), ETH_XSTAT(ack_tx), ETH_XSTAT(ack_rx),
	ETH_XSTAT(rexmit_fast), ETH_XSTAT(rexmit_timeout),
	ETH_XSTAT(rtt_samples), ETH_XSTAT(peer_restarts),
	ETH_XSTAT(peer_unresponsive), ETH_XSTAT(conn_opened),
	ETH_XSTAT(arp_tx), ETH_XSTAT(arp_rx), ETH_XSTAT(neigh_changed),
	ETH_XSTAT(rdma_exec), ETH_XSTAT(rdma_remote_error),
	ETH_XSTAT(fault_dropped), ETH_XSTAT(fault_duplicated),
	ETH_XSTAT(fault_reordered), ETH_XSTAT(fault_delayed),
	ETH_XSTAT(fault_corrupted), ETH_XSTAT(port_restarts),
	ETH_XSTAT(rx_steered), ETH_XSTAT(rx_handoff_drop),
	ETH_XSTAT(flow_rules), ETH_XSTAT(flow_fail), ETH_XSTAT(tx_zc_frames),
	ETH_XSTAT(rexmit_sack), ETH_XSTAT(rexmit_probe), ETH_XSTAT(tx_kicks),
	ETH_XSTAT(nd_tx), ETH_XSTAT(nd_rx), ETH_XSTAT(nd_drop),
	ETH_XSTAT(cc_delay_cuts),
};
#undef ETH_XSTAT

_Static_assert(RTE_DIM(rds_eth_xstat_names) == RDS_ETH_NB_XSTATS,
	       "a name per counter");

void
rds_eth_xstats(struct rds_engine *e, uint64_t *v)
{
	struct rds_eth_engine *ee = rds_eth_engine(e);
	const uint64_t *s;
	unsigned int i;

	if (ee == NULL)
		return;
	s = (const uint64_t *)&ee->stats;
	for (i = 0; i < RTE_DIM(rds_eth_xstat_names); i++)
		v[i] += s[i];
}

int
rte_rds_eth_stats_get(struct rte_rds_eth_stats *st)
{
	struct rte_rds_xstat xs[RDS_ETH_NB_XSTATS];
	uint64_t *v = (uint64_t *)st;
	unsigned int i;

	if (rds_lib == NULL)
		return RDS_ERR(ENXIO);
	if (st == NULL)
		return RDS_ERR(EINVAL);
	if (rte_rds_xstats_get("eth", xs, RTE_DIM(xs)) < 0)
		return -1;
	for (i = 0; i < RTE_DIM(xs); i++)
		v[i] = xs[i].value;
	return 0;
}

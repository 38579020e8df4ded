/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The eth transport's receive path for IPv6 frames (rds_eth.c hands it
 * what the IPv4 parse called not its own with the IPv6 ethertype): RDS
 * over UDP/IPv6 (rds_eth_frame_parse6), neighbour discovery
 * (rds_eth_nd_input), or someone else's. Off the IPv4 path, so that the
 * IPv4 one stays what it was.
 */
#include <rte_mbuf.h>

#include "rds_eth.h"

struct rds_laddr *
rds_eth_port_laddr6(const struct rds_eth_port *p, const struct in6_addr *ip)
{
	unsigned int i;

	for (i = 0; i < p->nb_laddrs; i++)
		if (rds_eth_laddr(p->laddrs[i])->v6 &&
		    rds_addr_eq(&p->laddrs[i]->addr, ip))
			return p->laddrs[i];
	return NULL;
}

void
rds_eth_rx_drop(struct rds_eth_engine *ee, enum rds_eth_drop why)
{
	if (why == RDS_ETH_DROP_SHORT)
		ee->stats.rx_drop_short++;
	else if (why == RDS_ETH_DROP_IP)
		ee->stats.rx_drop_ip++;
	else if (why == RDS_ETH_DROP_VERSION)
		ee->stats.rx_drop_version++;
	else if (why == RDS_ETH_DROP_TYPE)
		ee->stats.rx_drop_type++;
	else if (why == RDS_ETH_DROP_LEN)
		ee->stats.rx_drop_len++;
	else
		ee->stats.rx_drop_crc++;
}

/* An IPv6 frame (the IPv4 parse said it was not its): RDS over UDP/IPv6,
 * neighbour discovery, or someone else's. No rx_last: the engine that
 * owns the connection from its addresses. */
void
rds_eth_rx_one6(struct rds_engine *e, struct rds_eth_port *p,
		struct rte_mbuf *m)
{
	struct rds_eth_engine *ee = rds_eth_engine(e);
	struct rds_eth_frame f;
	enum rds_eth_drop why;
	struct rds_laddr *la;
	unsigned int owner;

	why = rds_eth_frame_parse6(m, p->udp_port, &f);
	if (why == RDS_ETH_DROP_NOT_OURS) {
		const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);

		/* ICMPv6 (next header 58): neighbour discovery. */
		if (rte_pktmbuf_data_len(m) > RTE_ETHER_HDR_LEN + 6 &&
		    b[RTE_ETHER_HDR_LEN + 6] == 58) {
			rds_eth_nd_input(e, p, m);
			return;
		}
		ee->stats.rx_not_ours++;
		rte_pktmbuf_free(m);
		return;
	}
	if (why != RDS_ETH_DROP_NONE) {
		rds_eth_rx_drop(ee, why);
		rte_pktmbuf_free(m);
		return;
	}
	ee->stats.rx_frames++;
	la = rds_eth_port_laddr6(p, &f.dst6);
	if (la == NULL) {
		ee->stats.rx_not_ours++;
		rte_pktmbuf_free(m);
		return;
	}
	owner = 0;
	if (rds_lib->nb_engines > 1)
		owner = rds_conn_engine_of_hash(la->cong->hash,
						rds_addr_hash(&f.src6));
	if (owner == e->id) {
		if (p->nb_rxq > 1)
			ee->stats.rx_steered++;
		rds_eth_rx_frame(e, p, m, &f);	/* looks la up again */
		return;
	}
	rds_eth_steer_handoff(e, owner, p, m, &f);
}

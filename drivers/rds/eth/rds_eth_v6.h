/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The eth transport's IPv6 internals, apart from the frame layout
 * (rds_eth_wire.h): the IPv6 receive path (rds_eth_rx6.c) and IPv6
 * neighbours (rds_eth_nd.c). Included by rds_eth.h, whose types it uses.
 */
#ifndef RDS_ETH_V6_H
#define RDS_ETH_V6_H

/* IPv6 (rds_eth_rx6.c): p's local IPv6 address ip, or NULL; a received
 * IPv6 frame (the IPv4 parse said not its own): parsed, dropped and
 * counted, handed to neighbour discovery, to its connection (through
 * rds_eth_rx_frame) or to the engine that owns it. Takes m. */
struct rds_laddr *rds_eth_port_laddr6(const struct rds_eth_port *p,
				      const struct in6_addr *ip);
void rds_eth_rx_one6(struct rds_engine *e, struct rds_eth_port *p,
		     struct rte_mbuf *m);
/* A frame of either family that did not parse: counted by why (the
 * caller frees it). In rds_eth_rx6.c beside its IPv6 caller. */
void rds_eth_rx_drop(struct rds_eth_engine *ee, enum rds_eth_drop why);

/* IPv6 neighbours (rds_eth_nd.c): a table for at most size (1..4096);
 * a static entry (0, -EINVAL: not a unicast IPv6 address or MAC,
 * -ENOSPC); the room left; the entry of ip without side effects (1
 * resolved, mac filled; 0 incomplete; -ENOENT none); the MAC of ip as
 * rds_eth_neigh_resolve, a neighbour solicitation from sip instead of an
 * ARP request (counted in nd_tx); learning as rds_eth_neigh_learn; an
 * ICMPv6 frame (rds_eth_is_ipv6, home engine of p): a solicitation for
 * one of p's IPv6 addresses is answered (and its sender learnt), an
 * advertisement updates the entry it is for (made by a solicitation of
 * ours, or any known one); counts nd_rx; takes m. */
struct rds_eth_nd;
struct rds_eth_nd *rds_eth_nd_create(unsigned int size);
void rds_eth_nd_free(struct rds_eth_nd *nd);
int rds_eth_nd_static(struct rds_eth_nd *nd, const struct in6_addr *ip,
		      const struct rte_ether_addr *mac);
unsigned int rds_eth_nd_room(struct rds_eth_nd *nd);
int rds_eth_nd_lookup(struct rds_eth_nd *nd, const struct in6_addr *ip,
		      struct rte_ether_addr *mac);
int rds_eth_nd_resolve(struct rds_engine *e, struct rds_eth_port *p,
		       const struct in6_addr *sip, const struct in6_addr *ip,
		       struct rte_ether_addr *mac);
void rds_eth_nd_learn(struct rds_engine *e, struct rds_eth_nd *nd,
		      const struct in6_addr *ip,
		      const struct rte_ether_addr *mac);
void rds_eth_nd_input(struct rds_engine *e, struct rds_eth_port *p,
		      struct rte_mbuf *m);

#endif /* RDS_ETH_V6_H */

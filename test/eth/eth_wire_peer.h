/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eth_wire_peer: the test plays an eth peer of the library, frame by
 * frame (eth_ack.c, eth_epoch.c).
 *
 * The library's address 10.254.3.1 is on a net_ring port whose receive
 * ring the test fills and whose transmit ring it drains; the test is
 * 10.254.3.2 (a static neighbour), with a stream of its own. Two more
 * addresses of the library, A (10.254.3.11) and B (.12), sit on two
 * net_ring ports whose rings cross. lib_up() starts the library (engine
 * inline, timers slow enough that nothing is retransmitted unless a case
 * waits for it); wp holds the peer's state and a log of what the library
 * sent.
 */
#ifndef ETH_WIRE_PEER_H
#define ETH_WIRE_PEER_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "rds_eth.h"

#define H_LIB_IP "10.254.3.1"
#define H_PEER_IP "10.254.3.2"
#define H_LIB_MAC "02:00:0a:fe:03:01"
#define H_PEER_MAC "02:00:0a:fe:03:02"
#define E_A_IP "10.254.3.11"
#define E_B_IP "10.254.3.12"
#define E_A_MAC "02:00:0a:fe:03:0b"
#define E_B_MAC "02:00:0a:fe:03:0c"
#define LIB_PORT 4000
#define PEER_PORT 5000
#define FRAG 1400		/* the peer's fragments */
#define MAX_LOG 512

/* A frame the library sent to the peer, decoded. */
struct lf {
	struct rte_ether_addr dst;	/* Ethernet destination */
	struct rds_eth_frame f;
	bool rds;		/* first fragment of an RDS frame: hdr */
	struct rds_hdr_info hdr;
	uint8_t pay[32];	/* rds: the first bytes of its payload */
};

struct eth_wire_peer {
	/* Rings of the ports: the peer's port (we fill rx, drain tx), and
	 * A's and B's, which cross. */
	struct rte_ring *rx, *tx, *ab, *ba;
	uint16_t port, port_a, port_b;
	struct rte_mempool *pool;
	uint32_t lib_ip, peer_ip, a_ip, b_ip;
	struct rte_ether_addr lib_mac, peer_mac, a_mac, b_mac;
	/* The peer. */
	uint32_t epoch;		/* its stream's */
	bool acked;		/* the library takes its stream */
	uint32_t lib_epoch;	/* the library's stream, as last seen */
	uint32_t snd_nxt;	/* its next frame */
	struct lf log[MAX_LOG];	/* what the library sent */
	unsigned int nb_log;
	/* More eth keys for the library's three addresses (lib_up), e.g.
	 * ",cwnd_init=0"; NULL: none. */
	const char *lib_opts;
};

extern struct eth_wire_peer wp;

void make_ports(void);
void flush_ring(struct rte_ring *r);
void lib_up(void);
void lib_down(void);
bool decode(const struct rte_mbuf *m, struct lf *l);
void drain(void);
void poll_n(unsigned int n);
void inject(struct rte_ring *r, const struct rds_eth_frame *f, const void *pl,
	    const struct rte_ether_addr *smac,
	    const struct rte_ether_addr *dmac, uint32_t sip, uint32_t dip);
void peer_ack(uint32_t ack, uint64_t sack);
void reset_frame(struct rte_ring *r, uint32_t epoch,
		 const struct rte_ether_addr *smac,
		 const struct rte_ether_addr *dmac, uint32_t sip, uint32_t dip);
void peer_send(uint64_t seq, uint32_t len, uint8_t rflags, uint16_t eflags);
void peer_send_payload(uint64_t seq, const void *pl, uint32_t len,
		       uint8_t rflags);
int64_t last_frame(uint32_t epoch, uint64_t seq);
uint64_t send_acked(void);
int lib_socket(const char *ip, int sndbuf);
void lib_send(int s, const char *ip, uint16_t port, uint32_t len,
	      uint8_t fill);

#endif /* ETH_WIRE_PEER_H */

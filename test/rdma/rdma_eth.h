/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RDMA_ETH_H
#define RDMA_ETH_H

/*
 * The eth transport of the rdma suite (rdma_eth.c): two net_ring ports
 * made with rte_eth_from_rings() whose rings cross, so that what port A
 * sends port B receives and the reverse, in this one process.
 *
 *   address 1  10.254.0.1  port A, MAC 02:00:0a:fe:00:01 (the client)
 *   address 2  10.254.0.2  port B, MAC 02:00:0a:fe:00:02 (the server)
 *   address 3  10.254.0.3  port A (another local address)
 *   address 4  10.254.0.4  port A (a local address with no socket)
 *
 * Static neighbours: B knows 1, 3 and 4 at A's MAC, A knows 2 at B's, and
 * B also knows RDMA_ETH_GONE_IP at a MAC nobody has (frames to it leave B
 * and are dropped by A: not one of its addresses), while
 * RDMA_ETH_DARK_IP has no entry at all (its ARP requests go unanswered).
 * With RDS_TEST_ETH_ARP=1 there are no static neighbours but the gone
 * address's: ARP finds the others.
 * Every socket is pinned to the eth transport (SO_RDS_TRANSPORT), else
 * two local addresses would talk over loop.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_ring.h>

#define RDMA_ETH_IP1 "10.254.0.1"
#define RDMA_ETH_IP2 "10.254.0.2"
#define RDMA_ETH_IP3 "10.254.0.3"
#define RDMA_ETH_IP4 "10.254.0.4"
#define RDMA_ETH_GONE_IP "10.254.0.9"
#define RDMA_ETH_DARK_IP "10.254.0.10"

/* Options appended to every eth address for the next rdma_conf() (e.g.
 * "dead_after=4,rto_max_us=20000"); NULL or "" for none. RDS_TEST_ETH_OPTS
 * is appended as well, on every run. */
void rdma_eth_set_opts(const char *opts);

/* The rings: A -> B (what port A sends, port B receives) and B -> A.
 * With one inline engine nothing else touches them between two polls, so
 * a test may take frames out, look at them, put them back or add its own.
 * NULL until the first eth rdma_conf(). */
struct rte_ring *rdma_eth_ring_ab(void);
struct rte_ring *rdma_eth_ring_ba(void);

/* Look at every frame in the rings (they stay, in order, but for those
 * rdma_eth_steal_from names), noting the latest epoch of each stream
 * (source address -> destination address) and counting its frames by
 * type. Call it between polls (e.g. from rdma_set_poll_hook); once per
 * poll (rdma_polls), so that every frame counts once. */
void rdma_eth_sniff(void);
/* rdma_eth_sniff as a poll hook (arg unused). */
void rdma_eth_sniff_hook(void *arg);
/* Frames rdma_eth_sniff() looked at so far. */
uint64_t rdma_eth_frames_seen(void);
/* Frames of type (RDS_ETH_F_*) src sent to dst that rdma_eth_sniff()
 * saw (every transmission, retransmissions too; not those that went from
 * one port to the other within a poll: a pass of the engine receives on
 * both ports, and sends at once when a burst is full). */
uint64_t rdma_eth_seen(const char *src, const char *dst, uint8_t type);
/* From now on rdma_eth_sniff() takes the frames of type from src to dst
 * with a payload of min_len to max_len bytes out of the rings (lost on
 * the wire); src NULL: none. */
void rdma_eth_steal_from(const char *src, const char *dst, uint8_t type,
			 uint16_t min_len, uint16_t max_len);
/* Frames taken out so far. */
uint64_t rdma_eth_stolen(void);

/*
 * Reset the stream local address ip sends to its peer (another local
 * address, on the other port or the same one) as the peer does when it
 * takes that stream no more: an ACK frame with RDS_ETH_FL_RESET naming
 * the stream's latest epoch (sniffed), from peer, put in the ring ip's
 * port receives. ip's connection then resets (its sending stream starts
 * again, RDS retransmits), as after a connection loss. 0, or -EAGAIN
 * (no frame of that stream seen yet), -ENOMEM, -ENOBUFS.
 */
int rdma_eth_inject_reset(const char *ip, const char *peer);

/* Resets injected every `every` polls, of the server's stream (address
 * 2 -> 1, which carries the requests) and of the client's (1 -> 2, the
 * answers) in turn; injected counts those that went. */
struct rdma_eth_resets {
	unsigned int every;
	unsigned int polls;
	unsigned int injected;
};

/* A poll hook (arg: struct rdma_eth_resets): rdma_eth_sniff(), then a
 * reset every `every` polls. */
void rdma_eth_resets_hook(void *arg);

#endif /* RDMA_ETH_H */

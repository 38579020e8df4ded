/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RTE_RDS_INFO_H
#define RTE_RDS_INFO_H

/**
 * @file
 * librte_rds snapshots, mirroring the kernel's RDS_INFO_* getsockopt
 * names and records (<linux/rds.h>): counters, connections, send,
 * retransmit and receive queues, sockets. The same data is served to
 * rte_telemetry under /rds/.
 */

#include <stdint.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/rds.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The first of librte_rds's own snapshot names, above the kernel's
 * (RDS_INFO_FIRST to RDS_INFO_LAST): the kernel answers them with
 * ENOPROTOOPT, as it does any name it does not know; so does librte_rds
 * for a name of this range it does not know.
 */
#define RTE_RDS_INFO_OWN_FIRST 10100
/** One struct rte_rds_info_eth_connection per connection of the eth
 * transport: its frame layer's state, for "why is this connection
 * slow" (rds-info -e). */
#define RTE_RDS_INFO_ETH_CONNECTIONS 10100
/** The last of librte_rds's own snapshot names. */
#define RTE_RDS_INFO_OWN_LAST 10100

/** A connection of the eth transport (RTE_RDS_INFO_ETH_CONNECTIONS). */
struct rte_rds_info_eth_connection {
	struct in6_addr laddr;		/**< local address (IPv4 v4-mapped) */
	struct in6_addr faddr;		/**< peer address (IPv4 v4-mapped) */
	uint8_t peer_mac[6];		/**< the peer's (or next hop's) MAC,
					 * zero until resolved */
	uint8_t resolved;		/**< the peer's MAC is known */
	uint8_t unresponsive;		/**< reported dead (dead_after
					 * timeouts in a row) */
	uint32_t epoch;			/**< our sending stream's epoch */
	uint32_t peer_epoch;		/**< the peer's stream we take (0:
					 * none yet) */
	uint32_t snd_nxt;		/**< next frame sequence to send */
	uint32_t snd_una;		/**< oldest frame not acknowledged */
	uint32_t in_flight;		/**< frames sent, not acknowledged */
	uint32_t wnd;			/**< our window (frames) */
	uint32_t peer_wnd;		/**< the window the peer grants */
	uint32_t rcv_nxt;		/**< next in-order frame expected */
	uint32_t rx_out_of_order;	/**< frames held above a hole */
	uint32_t timeouts;		/**< RTOs in a row without progress */
	uint64_t srtt_ns;		/**< smoothed RTT (0: no sample yet) */
	uint64_t rttvar_ns;		/**< its variation */
	uint64_t min_rtt_ns;		/**< smallest sample (0: none yet) */
	uint64_t rto_ns;		/**< the retransmission timeout now */
	uint32_t cwnd;			/**< congestion window (frames; wnd
					 * when congestion control is off,
					 * eth key cwnd_init=0) */
	uint32_t ssthresh;		/**< slow-start threshold (frames) */
	uint32_t cwnd_cuts;		/**< losses that halved the window
					 * (once per recovery episode) */
	uint32_t cwnd_collapses;	/**< retransmission timeouts that
					 * took it to its minimum */
	uint32_t cwnd_delay_cuts;	/**< round trips above the delay
					 * target that cut the window (eth
					 * key delay_us; at most one a round
					 * trip) */
	uint32_t delay_target_us;	/**< that target (0: off) */
	uint64_t delay_base_ns;		/**< the smallest round trip the
					 * delay signal saw, less the
					 * receiver's ACK hold (0: none) */
};

/**
 * Take a snapshot, with the kernel's probe-then-fill contract: with
 * *len 0 (a probe) or a buffer too small, the call fails with ENOSPC and
 * sets *len to the size needed; otherwise it fills the buffer with packed
 * records, sets *len to the bytes used and returns the size of one
 * record.
 *
 * Names: RDS_INFO_COUNTERS (struct rds_info_counter),
 * RDS_INFO_CONNECTIONS (struct rds_info_connection),
 * RDS_INFO_SEND_MESSAGES, RDS_INFO_RETRANS_MESSAGES,
 * RDS_INFO_RECV_MESSAGES (struct rds_info_message), RDS_INFO_SOCKETS
 * (struct rds_info_socket), RDS_INFO_IB_CONNECTIONS (struct
 * rds_info_rdma_connection: one per connection of the ib transport, with
 * its queue pair's GIDs, ring sizes and send SGEs once it is up, zero
 * before, as the kernel's; rdma_mr_max and rdma_mr_size are the most
 * memory regions and the most pages in one), their RDS6_INFO_*
 * counterparts, and RDS_INFO_TCP_SOCKETS, RDS_INFO_IWARP_CONNECTIONS and
 * RDS_INFO_CONNECTION_STATS, which have no records here; and librte_rds's
 * own RTE_RDS_INFO_ETH_CONNECTIONS (struct rte_rds_info_eth_connection).
 *
 * Connections and their queues belong to engines: the snapshot asks each
 * engine and waits for it (driving inline engines itself). It reflects
 * every call that returned before it was asked for: a message whose send
 * returned is on its connection (the connection exists, next_tx_seq is
 * past it) and in its send or retransmit queue, unless it was already
 * acknowledged. The receive queues of sockets of processes attached to
 * this one (rte_rds_attach()) are the messages delivered into their
 * regions that they have not received yet (a message one peeked at with
 * MSG_PEEK is not listed).
 *
 * @param name
 *   RDS_INFO_* value.
 * @param buf
 *   Buffer, any alignment; may be NULL when *len is 0.
 * @param len
 *   In: buffer size; out: bytes used, or needed on ENOSPC.
 * @return
 *   Record size (>= 0), or -1 with rte_errno: ENXIO (not initialised),
 *   EINVAL (NULL len), ENOPROTOOPT (unknown name), ENOSPC (see above),
 *   ETIMEDOUT (an engine did not answer).
 */
int rte_rds_info(int name, void *buf, socklen_t *len);

#ifdef __cplusplus
}
#endif

#endif /* RTE_RDS_INFO_H */

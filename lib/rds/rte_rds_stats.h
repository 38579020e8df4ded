/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RTE_RDS_STATS_H
#define RTE_RDS_STATS_H

/**
 * @file
 * librte_rds counters, kept per engine without atomics and summed on read.
 * Names follow the kernel's struct rds_statistics where one exists.
 */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Engine counters. Every field is a uint64_t. */
struct rte_rds_stats {
	uint64_t s_polls;		/**< engine loop iterations */
	uint64_t s_idle_polls;		/**< iterations that found no work */
	uint64_t s_send_queued;		/**< messages queued by sockets */
	uint64_t s_send_xmit;		/**< messages handed to a transport */
	uint64_t s_send_ack_required;	/**< messages sent with ACK_REQUIRED */
	uint64_t s_send_retransmit;	/**< messages sent again after a reset */
	uint64_t s_send_pong;		/**< pongs sent to pings */
	uint64_t s_send_ack;		/**< ACK-only frames sent */
	uint64_t s_send_cong_map;	/**< congestion maps sent */
	uint64_t s_send_acked;		/**< messages released by an ACK */
	uint64_t s_send_cancelled;	/**< messages dropped by cancel or close */
	uint64_t s_recv_delivered;	/**< messages queued to a socket */
	uint64_t s_recv_drop_old_seq;	/**< retransmitted duplicates dropped */
	uint64_t s_recv_drop_no_sock;	/**< messages to an unbound port */
	uint64_t s_recv_drop_dead_sock;	/**< messages to a closing socket */
	uint64_t s_recv_drop_bad_hdr;	/**< malformed frames dropped */
	uint64_t s_recv_drop_nomem;	/**< messages dropped for lack of memory */
	uint64_t s_recv_ping;		/**< pings received */
	uint64_t s_recv_pong;		/**< pongs received */
	uint64_t s_recv_ack;		/**< ACK-only frames received */
	uint64_t s_recv_cong_map;	/**< congestion maps received */
	uint64_t s_cong_update_queued;	/**< local map changes to announce */
	uint64_t s_conn_reset;		/**< connection resets */
	uint64_t s_conn_connect;	/**< connections that came up */
	uint64_t s_conn_reconnect_delayed; /**< reconnects held back by backoff */
	uint64_t s_late_passes;		/**< passes of an engine on its own lcore
					 * that began more than 1 ms after the
					 * one before: the thread was off its
					 * CPU (a shared core) or a pass took
					 * that long */
	uint64_t s_send_drop_nomem;	/**< sends of attached processes the
					 * engine found no message buffer for
					 * (lost; the call had returned) */
	uint64_t s_rdma_bad_key;	/**< RDMA requests from peers (loop,
					 * eth) whose key named no region of
					 * the address they were sent to: a
					 * guess, or a peer's bug; answered
					 * RDS_RDMA_REMOTE_ERROR and counted
					 * against their connection */
	uint64_t s_rdma_stale_key;	/**< RDMA requests with the key of a
					 * region freed lately (a cookie used
					 * as its region went: a race, not a
					 * guess); REMOTE_ERROR, not counted
					 * against the connection */
	uint64_t s_rdma_bad_key_reset;	/**< connections reset for sending
					 * too many wrong keys (doc/guide.md
					 * section 5) */
	uint64_t s_rdma_held;		/**< RDMA requests refused, their key
					 * not looked at, on a connection held
					 * off after such a reset (answered
					 * RDS_RDMA_DROPPED) */
	uint64_t s_send_cong_map_bytes;	/**< bytes of the congestion maps
					 * sent (RDS header and payload: 8 KiB
					 * each on ib, the words that changed
					 * on eth) */
};

/** Number of counters in struct rte_rds_stats. */
#define RTE_RDS_STATS_NUM (sizeof(struct rte_rds_stats) / sizeof(uint64_t))

/**
 * Read counters.
 *
 * @param engine_id
 *   Engine index, or -1 for the sum over every engine.
 * @param stats
 *   Filled with the counters.
 * @return
 *   0, or -1 with rte_errno: ENXIO (not initialised), EINVAL (bad id or
 *   NULL).
 */
int rte_rds_stats_get(int engine_id, struct rte_rds_stats *stats);

/**
 * Name of a counter, by its index in struct rte_rds_stats.
 *
 * @param idx
 *   0..RTE_RDS_STATS_NUM-1.
 * @return
 *   The field name (e.g. "s_send_xmit"), or NULL for a bad index.
 */
const char *rte_rds_stats_name(unsigned int idx);

/** Length of a transport counter's name, with its NUL. */
#define RTE_RDS_XSTAT_NAMESIZE 64

/** One named counter of a transport. */
struct rte_rds_xstat {
	char name[RTE_RDS_XSTAT_NAMESIZE];	/**< e.g. "tx_frames" */
	uint64_t value;				/**< summed over engines */
};

/**
 * Read the counters of one transport, summed over engines. Each driver's
 * header lists its counters. In a process attached to an engine process
 * (rte_rds_attach()), the engine's counters (at most 113 per call).
 *
 * @param transport
 *   Transport name: "loop", "ib", "eth".
 * @param xs
 *   Array for the counters, or NULL to ask for their number.
 * @param n
 *   Size of the array.
 * @return
 *   The number of counters the transport has (the first n are filled),
 *   or -1 with rte_errno: ENXIO (not initialised), EINVAL (NULL name),
 *   ENODEV (no such transport).
 */
int rte_rds_xstats_get(const char *transport, struct rte_rds_xstat *xs,
		       unsigned int n);

/**
 * Read one counter of a transport by name.
 *
 * @param transport
 *   Transport name.
 * @param name
 *   Counter name.
 * @param value
 *   Filled with its value, summed over engines.
 * @return
 *   0, or -1 with rte_errno: ENXIO, EINVAL (NULL argument), ENODEV (no
 *   such transport), ENOENT (no such counter).
 */
int rte_rds_xstat_get(const char *transport, const char *name,
		      uint64_t *value);

#ifdef __cplusplus
}
#endif

#endif /* RTE_RDS_STATS_H */

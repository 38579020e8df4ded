/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RTE_RDS_IB_H
#define RTE_RDS_IB_H

/**
 * @file
 * The ib transport: RDS over verbs RC queue pairs and RDMA-CM, speaking
 * the kernel's RDS-over-IB wire protocol 3.1. Addresses declared with
 * transport "ib" must belong to an RDMA device (rdma_cm finds it).
 */

#include <stdint.h>

#include <rte_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Counters of the ib transport, summed over engines. */
struct rte_rds_ib_stats {
	uint64_t connects_active;	/**< connections we initiated that came up */
	uint64_t connects_passive;	/**< connections we accepted that came up */
	uint64_t connect_raced;		/**< requests rejected: we were connecting */
	uint64_t listen_closed_stale;	/**< up connections replaced by a request */
	uint64_t rejects_incompat;	/**< requests with a protocol we do not speak */
	uint64_t cm_errors;		/**< address, route, connect errors */
	uint64_t tx_frames;		/**< SENDs posted */
	uint64_t tx_ring_full;		/**< transmit attempts with a full ring */
	uint64_t rx_frames;		/**< receive completions */
	uint64_t rx_frag_mismatch;	/**< fragment headers that did not match */
	uint64_t qp_errors;		/**< completions in error (not flushes) */
	uint64_t qp_errors_injected;	/**< QPs put in error by the test hook */
	uint64_t flowctl_conns;		/**< connections up with credits on */
	uint64_t credit_stalls;		/**< sends held back for lack of credits */
	uint64_t credits_advertised;	/**< receive credits given to peers */
	uint64_t rx_post_calls;		/**< ibv_post_recv calls (each a chain
					 * of the buffers of a burst) */
	uint64_t rx_seq_gaps;		/**< messages skipped in a peer's
					 * sequence (cancelled by the sender,
					 * or lost below RDS) */
	uint64_t stalls;		/**< connections reset: work waited on
					 * the QP with no progress for
					 * ib_stall_ms */
	uint64_t connect_timeouts;	/**< connection attempts dropped with
					 * no outcome after the connect bound */
	uint64_t connect_replaced;	/**< pending accepts replaced by the
					 * same peer's next request */
	uint64_t rx_stalls_injected;	/**< receive rings frozen by the test
					 * hook */
};

/**
 * Read the ib transport's counters.
 *
 * @param st
 *   Filled with the counters.
 * @return
 *   0, or -1 with rte_errno ENXIO (not initialised) or EINVAL (NULL).
 */
int rte_rds_ib_stats_get(struct rte_rds_ib_stats *st);

/**
 * Test hook: at its next poll, every engine moves the queue pairs of its
 * ib connections to the error state, as a fatal transport error would.
 * The connections then reset, reconnect and retransmit.
 *
 * @return
 *   0, or -1 with rte_errno ENXIO (not initialised).
 *
 * @warning @b EXPERIMENTAL: a test and benchmark hook; it may change
 * without notice.
 */
__rte_experimental
int rte_rds_ib_inject_qp_error(void);

/**
 * Test hook: at its next poll, every engine stops giving receive buffers
 * back to the rings of its ib connections, until each connection resets.
 * A peer that sends then finds the ring empty and waits on RNR NAKs
 * forever, with no error: the no-progress watch (ib_stall_ms) of the
 * sending side must reset the connection, and RDS recover.
 *
 * @return
 *   0, or -1 with rte_errno ENXIO (not initialised).
 *
 * @warning @b EXPERIMENTAL: a test and benchmark hook; it may change
 * without notice.
 */
__rte_experimental
int rte_rds_ib_inject_rx_stall(void);

#ifdef __cplusplus
}
#endif

#endif /* RTE_RDS_IB_H */

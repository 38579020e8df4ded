/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RTE_RDS_LOOP_H
#define RTE_RDS_LOOP_H

/**
 * @file
 * Fault hooks of the loop transport, for tests.
 *
 * The loop transport behaves like a reliable connected transport (an RC
 * QP): frames arrive in order or the connection fails. A dropped frame
 * therefore also drops every later frame of that connection until the
 * connection is reset, which then retransmits what was not acknowledged,
 * marked RETRANSMITTED, and the receiver drops what it already had.
 *
 * Without faults, a delivered message counts as acknowledged at once, as
 * with the kernel's loop transport: no ACK frames, nothing kept for
 * retransmission. With any fault set (or explicit_ack) the transport
 * behaves like a wire: ACK-only frames, ACK_REQUIRED, the delayed ACK,
 * the retransmit queue.
 */

#include <stdint.h>

#include <rte_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Loop transport fault injection. Zero everywhere: no faults. */
struct rte_rds_loop_faults {
	/** Drop one frame in drop_one_in (data and ACK frames alike), then
	 * fail the connection. 0: never. */
	uint32_t drop_one_in;
	/** Reset the connection after one frame in reset_one_in, without
	 * losing that frame. 0: never. */
	uint32_t reset_one_in;
	/** Seed for the fault generator (0: fixed default). */
	uint64_t seed;
	/** Acknowledge with ACK frames as on a wire, even without faults. */
	uint8_t explicit_ack;
};

/**
 * Set the loop transport's fault injection. Takes effect on every engine
 * at its next poll.
 *
 * @param faults
 *   Faults to inject; NULL turns them off.
 * @return
 *   0, or -1 with rte_errno ENXIO (library not initialised).
 *
 * @warning @b EXPERIMENTAL: a test and benchmark hook; it may change
 * without notice.
 */
__rte_experimental
int rte_rds_loop_set_faults(const struct rte_rds_loop_faults *faults);

/** Counters of the loop transport, summed over engines: the typed view
 * of rte_rds_xstats_get("loop", ...), whose counters are "frames",
 * "dropped", "flushed" and "resets", in this order. */
struct rte_rds_loop_stats {
	uint64_t frames;	/**< frames carried */
	uint64_t dropped;	/**< frames dropped by the fault hook */
	uint64_t flushed;	/**< frames lost behind a dropped one */
	uint64_t resets;	/**< connection resets injected */
};

/**
 * Read the loop transport's counters.
 *
 * @param st
 *   Filled with the counters.
 * @return
 *   0, or -1 with rte_errno ENXIO or EINVAL (NULL).
 */
int rte_rds_loop_stats_get(struct rte_rds_loop_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* RTE_RDS_LOOP_H */

/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RDS_ETH_FAULT_H
#define RDS_ETH_FAULT_H

/* The eth transport's fault injection (rds_eth_fault.c): loss,
 * duplication, reordering, delay and corruption below the transport,
 * as a lossy wire would do them (rte_rds_eth_set_faults). */

#include <stdint.h>

#include <rte_mbuf.h>

#include "rte_rds_eth.h"

/*
 * One per engine (its own generator and held frames; no lock). Faults,
 * drawn per frame in this order with independent draws: drop (freed);
 * corrupt (a copy of the frame, rte_pktmbuf_copy from its pool, with one
 * byte anywhere in it, headers included, XORed with a non-zero value,
 * and its receive checksum flags cleared; the original is released: it
 * may be shared); duplicate (a copy passed on at once, after the
 * original when that passes too); delay (held until now + delay_us);
 * reorder (held until reorder_depth later frames entered the hook, or
 * for 1 ms at most, then passed on after the frame that released it).
 * A frame is delayed or reordered, not both. If a copy cannot be made
 * the fault is skipped (not counted).
 */
struct rds_eth_fault;
/* salt makes this instance's stream differ from others' with the same
 * settings (e.g. the engine id). NULL: no memory. */
struct rds_eth_fault *rds_eth_fault_create(uint64_t salt);
/* Frees held frames too. */
void rds_eth_fault_free(struct rds_eth_fault *f);
/* The engine's settings changed: take the new ones (NULL: none). The
 * generator restarts from cfg->seed (0: a fixed default) and the salt,
 * so that a run is reproducible. Rates are clamped to 1,000,000, the
 * reorder depth to 1..16. Frames held stay held until their time. */
void rds_eth_fault_set(struct rds_eth_fault *f,
		       const struct rte_rds_eth_faults *cfg);
/* Apply the faults to a burst about to be sent (or just received):
 * frames may be dropped (freed), duplicated, held back (reorder, delay),
 * corrupted (copied first). Takes the n frames of in[]. Returns the
 * frames to pass on, in out[] (room for max; the caller takes them);
 * what does not fit is kept for the next call, in order. Held frames
 * come out in later calls (also with n 0: call it every pass while
 * rds_eth_fault_held() is not 0). now is the TSC. Counts fault_* in st
 * (may be NULL). With every rate 0 and nothing held, in[] is copied to
 * out[] unchanged. */
uint16_t rds_eth_fault_apply(struct rds_eth_fault *f, struct rte_mbuf **in,
			     uint16_t n, struct rte_mbuf **out, uint16_t max,
			     uint64_t now, struct rte_rds_eth_stats *st);
/* Frames held back (delayed, reordered, or waiting for room in out). */
unsigned int rds_eth_fault_held(const struct rds_eth_fault *f);
/* Free the frames held back (tear-down). */
void rds_eth_fault_flush(struct rds_eth_fault *f);

#endif /* RDS_ETH_FAULT_H */

/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RDS_FUZZ_STATE_H
#define RDS_FUZZ_STATE_H

/*
 * The library kept up across inputs (fuzz_state.c): the targets bring
 * the EAL and the library up once per process and reset, per input,
 * what an input may change. Two pieces:
 *
 * - the engines' clock held (rds_clock.h, built with -DRDS_FUZZ_CLOCK):
 *   time moves only when the harness says, and every input starts at
 *   the same phase of the timer wheel (the clock set forward to the next
 *   multiple of 2^32 cycles), so that an input's timers fire at the
 *   same points whatever the machine's speed and whatever input ran
 *   before: an input alone reproduces what it found;
 * - the library's state before and after an input (sockets open,
 *   connections, armed timers, message buffers and library blocks
 *   allocated; libc_alloc builds count the last two): an input must
 *   leave it as it found it, else fz_fail() (a state leak is a crash
 *   libFuzzer keeps).
 */

#include <stddef.h>
#include <stdint.h>

#include <rte_rds_stats.h>

/* Hold the engines' clock (before rte_rds_init). */
void fz_clock_hold(void);
/* At the start of an input: the clock to the next 2^32-cycle boundary. */
void fz_clock_input(void);
/* Move the held clock on by us microseconds. */
void fz_clock_us(unsigned int us);

struct fz_state {
	uint32_t open;		/* sockets */
	uint32_t conns;		/* connections of every engine */
	uint32_t armed;		/* timers armed on every engine's wheel */
	uint64_t bufs;		/* message buffers allocated */
	uint64_t mems;		/* rds_mem_zalloc() blocks allocated */
};

void fz_state_take(struct fz_state *s);
/* fz_fail() unless no socket is open, no connection left and no timer
 * armed, and as many buffers and blocks allocated as in s, which must
 * have none of the first three either ('where' names the moment). */
void fz_state_check(const struct fz_state *s, const char *where);
/* Destroy every connection of every engine (the engines run inline on
 * this thread), so that the next input meets no state of this one's. */
void fz_conns_destroy(void);

/* The end of an input: close the n sockets s (in reverse, so that the
 * next input gets the same handles), poll, destroy every connection,
 * forget the congestion map of the peer peer_ip (network order: the next
 * input's peer is a new one), poll; then, unless clean is NULL,
 * fz_state_check(clean). */
void fz_input_end(const int *s, unsigned int n, uint32_t peer_ip,
		  const struct fz_state *clean);

/*
 * Inputs run again (no state leaks from one input to the next): every
 * RDS_FUZZ_RECHECK-th input (default 16; 1: every one; 0: none) runs a
 * second time after another input than the one it followed (the input
 * before that one), and what it did must be the same: the digest of the
 * frames the core sent and the counters at its end (fz_digest_*). Else
 * fz_fail("STATE LEAK ..."), with the input it followed the first time
 * written to ./fuzz-recheck-prev. The target's LLVMFuzzerTestOneInput
 * calls fz_recheck_run(run, data, size) in place of run(data, size).
 */
void fz_recheck_run(void (*run)(const uint8_t *d, size_t n),
		    const uint8_t *d, size_t n);
/* While a digest is taken (fz_recheck_run): add n bytes to it. */
void fz_digest_add(const void *p, size_t n);
/* The capture transport's sink that adds each frame to the digest and
 * hands it on to inner (set it with fz_cap_set_sink(fz_digest_sink,
 * NULL) after fz_digest_inner(inner)). */
void fz_digest_inner(void (*inner)(void *arg, const uint8_t hdr[48],
				   const uint8_t *payload, uint32_t len));
void fz_digest_sink(void *arg, const uint8_t hdr[48], const uint8_t *payload,
		    uint32_t len);

/* d = a - b, counter by counter. */
void fz_stats_sub(struct rte_rds_stats *d, const struct rte_rds_stats *a,
		  const struct rte_rds_stats *b);

#endif /* RDS_FUZZ_STATE_H */

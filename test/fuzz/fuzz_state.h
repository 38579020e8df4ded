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

/* d = a - b, counter by counter. */
void fz_stats_sub(struct rte_rds_stats *d, const struct rte_rds_stats *a,
		  const struct rte_rds_stats *b);

#endif /* RDS_FUZZ_STATE_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the oracle's sources share (not for the targets: they use
 * fuzz_oracle.h): fuzz_oracle.c has the peer's frames and the messages
 * received, fuzz_oracle_tx.c the frames the core transmitted and the
 * end.
 */
#ifndef FUZZ_ORACLE_INT_H_
#define FUZZ_ORACLE_INT_H_

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_oracle.h"

#define U64(x) ((unsigned long long)(x))

/* Sets of frame positions (struct fo_sock hyp). */
static inline bool
hyp_test(const uint64_t *h, unsigned int i)
{
	return (h[i / 64] >> (i % 64)) & 1;
}

static inline void
hyp_set(uint64_t *h, unsigned int i)
{
	h[i / 64] |= 1ULL << (i % 64);
}

/* fuzz_oracle.c */
void fo_txq_clear(void);
struct fo_ping *fo_ping_of(uint16_t port);

#endif /* FUZZ_ORACLE_INT_H_ */

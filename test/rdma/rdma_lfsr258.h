/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A predictor of DPDK's rte_rand() (lib/eal/common/rte_random.c, 22.11:
 * L'Ecuyer's lfsr258, five 64-bit components, one state per lcore), as an
 * attacker who sees some of its outputs would build it: each step of the
 * generator and its output are linear over GF(2) in the bits of the
 * state, so every bit seen is a linear equation on the state at the first
 * output seen. Gaussian elimination keeps the equations; a later output
 * bit, itself a linear form of that state, reduced against them, has a
 * value as soon as the equations determine it (about 258 independent bits
 * seen: nine 32-bit outputs, a few more in practice). No state is ever
 * solved for: the bits that no output depends on stay free.
 */
#ifndef RDMA_LFSR258_H_
#define RDMA_LFSR258_H_

#include <stdbool.h>
#include <stdint.h>

#define LFSR258_VARS 320	/* 5 x 64 state bits */
#define LFSR258_WORDS (LFSR258_VARS / 64)

/* A linear form over the state bits. */
struct lfsr258_form {
	uint64_t w[LFSR258_WORDS];
};

struct lfsr258_pred {
	/* The state of the step to come, bit by bit, as forms of the
	 * state before the first output seen. */
	struct lfsr258_form z[5][64];
	/* The equations, one per pivot (the form's lowest bit). */
	struct lfsr258_form row[LFSR258_VARS];
	uint8_t val[LFSR258_VARS];
	bool has[LFSR258_VARS];
	unsigned int rank;
	/* Two equations disagreed: no lfsr258 state gives what was seen. */
	bool inconsistent;
};

/* A predictor that has seen nothing yet. */
void lfsr258_init(struct lfsr258_pred *p);
/* The next output of the generator was seen: its low nbits bits (1..64)
 * are v's. */
void lfsr258_observe(struct lfsr258_pred *p, uint64_t v, unsigned int nbits);
/* The next output, without seeing it: true with *v when the equations
 * so far determine all 64 bits of it, false otherwise. */
bool lfsr258_predict(struct lfsr258_pred *p, uint64_t *v);

#endif /* RDMA_LFSR258_H_ */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_security: can a key be guessed from other keys?
 *
 * predictor: the attack is real. DPDK's rte_rand() is lfsr258, linear
 * over GF(2): the predictor (rdma_lfsr258.c) fed the low 32 bits of 16 of
 * its outputs in this process gives every bit of the next 100 exactly.
 */

#include <rte_random.h>

#include "rdma_lfsr258.h"
#include "rdma_security.h"

#define SEEN 16		/* outputs the predictor sees */

void
test_predictor(void)
{
	static struct lfsr258_pred p;
	unsigned int i, wrong = 0, unknown = 0;
	uint64_t want, got;

	lfsr258_init(&p);
	for (i = 0; i < SEEN; i++)
		lfsr258_observe(&p, (uint32_t)rte_rand(), 32);
	printf("  %u outputs of rte_rand() seen (low 32 bits): rank %u of "
	       "258\n", SEEN, p.rank);
	CU_ASSERT(!p.inconsistent);
	for (i = 0; i < 100; i++) {
		bool known = lfsr258_predict(&p, &want);

		got = rte_rand();
		if (!known)
			unknown++;
		else if (want != got)
			wrong++;
	}
	printf("  the next 100 outputs: %u predicted wrong, %u not "
	       "determined\n", wrong, unknown);
	CU_ASSERT_EQUAL(unknown, 0);
	CU_ASSERT_EQUAL(wrong, 0);
}

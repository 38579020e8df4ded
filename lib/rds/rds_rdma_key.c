/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The keys of software memory regions (rds_rdma.c; loop and eth, whose
 * executor checks them: ib's come from the device). A key is what stands
 * between a peer and a region: the cookie's other half is an offset, so
 * a key must not follow from the keys a user has seen, its own included.
 * They come from the kernel's CSPRNG, getrandom(2): DPDK's rte_rand() is
 * a linear generator (lfsr258) whose state a dozen of its 32-bit outputs
 * give away (test/rdma/rdma_lfsr258.c predicts it). There is no weaker
 * fallback: without the kernel's randomness a registration fails.
 */
#include <errno.h>
#include <sys/random.h>

#include "rds_rdma_private.h"

int
rds_rdma_keys(uint32_t *keys, unsigned int n)
{
	uint8_t *p = (uint8_t *)keys;
	size_t left = (size_t)n * sizeof(*keys);
	ssize_t r;

	while (left > 0) {
		/* Flags 0: it waits only until the kernel's pool was first
		 * seeded, early at boot. A signal may interrupt that wait
		 * (EINTR) or cut a read of more than 256 bytes short: the
		 * rest again. */
		r = getrandom(p, left, 0);
		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			return r < 0 ? -errno : -EIO;
		}
		p += r;
		left -= (size_t)r;
	}
	return 0;
}

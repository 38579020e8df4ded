/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RDS_TEST_MEM_H
#define RDS_TEST_MEM_H

/*
 * Heap in use, libc and DPDK: what the memory checks of the scale and
 * race suites and rds-bench-core compare before and after (header only,
 * so that a benchmark can use it without the CUnit helpers).
 */

#include <malloc.h>
#include <stddef.h>

#include <rte_malloc.h>

struct rds_test_mem {
	size_t libc;			/* mallinfo2: in use + mmapped */
	size_t dpdk;			/* rte_malloc heaps, every socket */
};

static inline struct rds_test_mem
rds_test_mem_now(void)
{
	struct rte_malloc_socket_stats st;
	struct mallinfo2 mi = mallinfo2();
	struct rds_test_mem m = { .libc = mi.uordblks + mi.hblkhd, .dpdk = 0 };
	int sock;

	for (sock = 0; sock < RTE_MAX_NUMA_NODES; sock++)
		if (rte_malloc_get_socket_stats(sock, &st) == 0)
			m.dpdk += st.heap_allocsz_bytes;
	return m;
}

#endif

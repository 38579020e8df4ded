/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The keys of the regions freed lately (rds_rdma.c, rds_mr_key_freed):
 * a cookie whose region went is told from a guess (rds_rdma_guard.c)
 * while its key is among the last RDS_MR_FREED (4096) freed. Regions are
 * registered and freed through RDS_GET_MR / RDS_FREE_MR on a loop
 * socket; the keys are read back from their cookies:
 *
 * - a key freed is known, one never registered is not, nor 0;
 * - a live region's key is not (it was never freed);
 * - 4096 frees later the first key is forgotten, the next ones not
 *   yet, and each further free pushes out the oldest;
 * - rte_rds_fini() forgets them all.
 *
 * (Keys are random: a key in the ring twice, which the table counts,
 * cannot be forced from here.)
 *
 *   meson test -C build unit_mr_freed -v
 */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <CUnit/CUnit.h>

#include "rds_private.h"
#include "rds_rdma_private.h"
#include "rds_test.h"

#define RING 4096u

static uint8_t page[2 * 4096] __rte_aligned(4096);
static int sock = -1;

static void
setup(void)
{
	struct rte_rds_conf conf;
	struct sockaddr_in sin = rds_test_sin("10.255.0.1", 4000);

	rte_rds_conf_init(&conf);
	conf.engine[0].lcore_id = RTE_RDS_ENGINE_INLINE;
	CU_ASSERT_FATAL(rte_rds_conf_add_addr(&conf, "10.255.0.1", "loop",
					      NULL) == 0);
	CU_ASSERT_FATAL(rte_rds_init(&conf) == 0);
	sock = rte_rds_socket();
	CU_ASSERT_FATAL(sock >= 0);
	CU_ASSERT_FATAL(rte_rds_bind(sock, (struct sockaddr *)&sin,
				     sizeof(sin)) == 0);
}

static void
teardown(void)
{
	CU_ASSERT(rte_rds_close(sock) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
}

static uint64_t
get_mr(void)
{
	struct rds_get_mr_args a;
	uint64_t cookie = 0;

	memset(&a, 0, sizeof(a));
	a.vec.addr = (uintptr_t)page;
	a.vec.bytes = sizeof(page);
	a.cookie_addr = (uintptr_t)&cookie;
	CU_ASSERT_FATAL(rte_rds_setsockopt(sock, SOL_RDS, RDS_GET_MR, &a,
					   sizeof(a)) == 0);
	CU_ASSERT_FATAL((uint32_t)cookie != 0);
	return cookie;
}

static void
free_mr(uint64_t cookie)
{
	struct rds_free_mr_args f;

	memset(&f, 0, sizeof(f));
	f.cookie = cookie;
	CU_ASSERT_FATAL(rte_rds_setsockopt(sock, SOL_RDS, RDS_FREE_MR, &f,
					   sizeof(f)) == 0);
}

static bool
freed(uint32_t key)
{
	bool r;

	rte_rwlock_read_lock(&rds_mr_lock);
	r = rds_mr_key_freed(key);
	rte_rwlock_read_unlock(&rds_mr_lock);
	return r;
}

/* A key that no region had: one not among keys[0..n). */
static uint32_t
unused_key(const uint32_t *keys, unsigned int n)
{
	uint32_t k = 0x12345678;
	unsigned int i;

	for (i = 0; i < n; i++)
		if (keys[i] == k) {
			k++;
			i = UINT32_MAX;	/* again from the start */
		}
	return k;
}

static void
test_window(void)
{
	static uint32_t keys[RING + 2];
	uint64_t live;
	unsigned int i;

	setup();
	for (i = 0; i < RING + 2; i++) {
		uint64_t c = get_mr();

		keys[i] = (uint32_t)c;
		free_mr(c);
	}
	live = get_mr();
	/* RING + 2 frees: the first two are out of the ring. */
	CU_ASSERT_FALSE(freed(keys[0]));
	CU_ASSERT_FALSE(freed(keys[1]));
	for (i = 2; i < RING + 2; i++)
		if (!freed(keys[i])) {
			CU_FAIL("a key of the last 4096 freed not known");
			break;
		}
	CU_ASSERT_FALSE(freed((uint32_t)live));
	CU_ASSERT_FALSE(freed(0));
	CU_ASSERT_FALSE(freed(unused_key(keys, RING + 2)));
	/* One more free: the oldest left (keys[2]) goes, the region
	 * freed now comes. */
	free_mr(live);
	CU_ASSERT_FALSE(freed(keys[2]));
	CU_ASSERT_TRUE(freed(keys[3]));
	CU_ASSERT_TRUE(freed((uint32_t)live));
	teardown();
}

/* The ring's order, not the hash's: re-init empties both. */
static void
test_reinit(void)
{
	uint64_t c;

	setup();
	c = get_mr();
	free_mr(c);
	CU_ASSERT_TRUE(freed((uint32_t)c));
	teardown();
	setup();
	CU_ASSERT_FALSE(freed((uint32_t)c));
	teardown();
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "window", test_window },
		{ "reinit", test_reinit },
		{ NULL, NULL },
	};

	return rds_test_main("unit_mr_freed", "0", cases);
}

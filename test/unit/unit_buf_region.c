/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Buffer regions (suite 'unit', binary unit_buf_region): what a
 * transport that sends from message buffers in place (ib's zero-copy)
 * learns from rds_buf.c.
 *
 *   slab_region    a small buffer lies in a region that is a slab (not
 *                  large) and holds it whole; asking again gives the same.
 *   large_cached   a large buffer is a region of its own, made at the
 *                  first ask; the transport's data on it survives the
 *                  buffer's trip through the free list (cache), and the
 *                  listener is told to release it when unset (fini).
 *   large_freed    with no cache, a large buffer goes back to libc at its
 *                  free: the listener releases its data then, once, and
 *                  the next buffer starts with none.
 *
 * With libc_alloc (ASan builds) there are no regions: every case checks
 * that the lookup says so (the ib driver then copies).
 */
#include <stdio.h>

#include <CUnit/CUnit.h>

#include <rte_rds.h>

#include "rds_private.h"
#include "rds_test.h"

static unsigned int released;
static void *released_tp;

static void
count_release(void *tp)
{
	released++;
	released_tp = tp;
}

static void
lib_up(uint64_t cache)
{
	struct rte_rds_conf conf;

	rds_test_conf(&conf, RTE_RDS_ENGINE_INLINE, RTE_RDS_IDLE_YIELD);
	conf.buf_cache_bytes = cache;
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
	released = 0;
	released_tp = NULL;
}

#ifdef RDS_LIBC_ALLOC
static void
no_regions(void)
{
	struct rds_msg *m;

	lib_up(0);
	rds_buf_listener_set(count_release);
	m = rds_msg_alloc(100);
	CU_ASSERT_FATAL(m != NULL);
	CU_ASSERT(rds_buf_region_get(m) == NULL);
	rds_msg_free(m);
	m = rds_msg_alloc(64u << 10);
	CU_ASSERT_FATAL(m != NULL);
	CU_ASSERT(rds_buf_region_get(m) == NULL);
	rds_msg_free(m);
	rds_buf_listener_set(NULL);
	CU_ASSERT_EQUAL(released, 0);
	printf("  libc_alloc build: no regions\n");
	rds_test_lib_fini();
}
#endif

static void
test_slab_region(void)
{
#ifdef RDS_LIBC_ALLOC
	no_regions();
#else
	struct rds_buf_region *r;
	struct rds_msg *m;

	lib_up(64u << 20);
	m = rds_msg_alloc(100);
	CU_ASSERT_FATAL(m != NULL);
	r = rds_buf_region_get(m);
	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT(!r->large);
	CU_ASSERT(r->len >= 128u << 10 && r->len <= 256u << 10);
	CU_ASSERT((uintptr_t)m >= r->base);
	CU_ASSERT((uintptr_t)(m->buf + 128) <= r->base + r->len);
	CU_ASSERT(rds_buf_region_get(m) == r);
	rds_msg_free(m);
	rds_test_lib_fini();
#endif
}

#ifndef RDS_LIBC_ALLOC
/* A new large buffer of len bytes in *mp, and its region (of its own). */
static struct rds_buf_region *
large_region(uint32_t len, struct rds_msg **mp)
{
	struct rds_buf_region *r;
	struct rds_msg *m;

	m = rds_msg_alloc(len);
	CU_ASSERT_FATAL(m != NULL);
	r = rds_buf_region_get(m);
	CU_ASSERT_FATAL(r != NULL);
	CU_ASSERT(r->large);
	CU_ASSERT_EQUAL(r->base, (uintptr_t)m);
	CU_ASSERT(r->len >= len + sizeof(*m));
	*mp = m;
	return r;
}
#endif

static void
test_large_cached(void)
{
#ifdef RDS_LIBC_ALLOC
	no_regions();
#else
	static int token;
	struct rds_buf_region *r;
	struct rds_msg *m, *m2;

	lib_up(64u << 20);
	rds_buf_listener_set(count_release);
	r = large_region(64u << 10, &m);
	CU_ASSERT(r->tp == NULL);
	r->tp = &token;
	rds_msg_free(m);		/* onto the free list */
	CU_ASSERT_EQUAL(released, 0);
	m2 = rds_msg_alloc(64u << 10);
	CU_ASSERT_FATAL(m2 == m);	/* the cached one */
	CU_ASSERT(rds_buf_region_get(m2) == r);
	CU_ASSERT(r->tp == &token);
	rds_msg_free(m2);
	rds_buf_listener_set(NULL);	/* as the transport's fini */
	CU_ASSERT_EQUAL(released, 1);
	CU_ASSERT(released_tp == &token);
	rds_test_lib_fini();
	CU_ASSERT_EQUAL(released, 1);
#endif
}

static void
test_large_freed(void)
{
#ifdef RDS_LIBC_ALLOC
	no_regions();
#else
	static int token;
	struct rds_buf_region *r;
	struct rds_msg *m;

	lib_up(0);			/* no cache: every free goes to libc */
	rds_buf_listener_set(count_release);
	r = large_region(1u << 20, &m);
	r->tp = &token;
	rds_msg_free(m);
	CU_ASSERT_EQUAL(released, 1);
	CU_ASSERT(released_tp == &token);
	r = large_region(1u << 20, &m);
	CU_ASSERT(r->tp == NULL);
	rds_msg_free(m);
	CU_ASSERT_EQUAL(released, 1);	/* nothing hung there this time */
	rds_buf_listener_set(NULL);
	rds_test_lib_fini();
#endif
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "slab_region", test_slab_region },
		{ "large_cached", test_large_cached },
		{ "large_freed", test_large_freed },
		{ NULL, NULL },
	};

	return rds_test_main("unit_buf_region", "0", cases);
}

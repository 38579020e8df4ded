/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_security: the memory under a region: handed over at registration
 * and at sendmsg, read-only memory, memory unmapped and mapped anew.
 */

#include "rdma_security.h"

/*
 * Memory handed over at registration (net/rds/rdma.c __rds_rdma_map:
 * rds_pin_pages() fails, EFAULT): every page of the region must be
 * mapped, and writable for RDS_RDMA_READWRITE, or GET_MR and RDMA_MAP
 * fail with EFAULT and register nothing; before, they returned a cookie
 * and a peer's READ or WRITE then killed this process inside the
 * engine. Read-only memory is accepted for a region without READWRITE
 * (the kernel refuses it: it always pins for writing; a documented
 * departure) and serves READs; WRITEs and atomics to it fail cleanly.
 */
void
test_handover_region(void)
{
	struct rdma_rx rx;
	struct ctx cx;
	uint64_t c, cookie;
	uint8_t *p, *ro, *gone;
	char buf[16];

	ctx_begin(&cx, 60, "handover_region");
	p = cx.g.pages;
	/* A guard page, a region running into one, one starting in one. */
	cookie = 0;
	CU_ASSERT_EQUAL(rdma_get_mr(cx.env.cli, cx.g.map, 4096, 0, &cookie),
			-1);
	CU_ASSERT_EQUAL(rte_errno, EFAULT);
	CU_ASSERT_EQUAL(rdma_get_mr(cx.env.cli, p + REGION_LEN - 100, 200, 0,
				    &cookie), -1);
	CU_ASSERT_EQUAL(rte_errno, EFAULT);
	CU_ASSERT_EQUAL(rdma_get_mr(cx.env.cli, p - 1, 2, RDS_RDMA_READWRITE,
				    &cookie), -1);
	CU_ASSERT_EQUAL(rte_errno, EFAULT);
	CU_ASSERT_EQUAL(rdma_get_mr_for_dest(cx.env.cli, &cx.env.sa, cx.g.map,
					     4096, 0, &cookie), -1);
	CU_ASSERT_EQUAL(rte_errno, EFAULT);
	/* Unmapped memory. */
	gone = mmap(NULL, 2 * RDMA_PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(gone != MAP_FAILED);
	munmap(gone, 2 * RDMA_PAGE);
	CU_ASSERT_EQUAL(rdma_get_mr(cx.env.cli, gone, 2 * RDMA_PAGE,
				    RDS_RDMA_READWRITE, &cookie), -1);
	CU_ASSERT_EQUAL(rte_errno, EFAULT);
	CU_ASSERT_EQUAL(rdma_send_map(cx.env.cli, &cx.env.sa, "MAP", 3, gone,
				      100, 0, &cookie), -1);
	CU_ASSERT_EQUAL(rte_errno, EFAULT);
	CU_ASSERT_EQUAL(cookie, 0);
	/* The highest user page, and beyond user space. */
	CU_ASSERT_EQUAL(rdma_get_mr(cx.env.cli,
				    (void *)(uintptr_t)0x7ffffffff000ULL, 4096,
				    0, &cookie), -1);
	CU_ASSERT_EQUAL(rte_errno, EFAULT);
	CU_ASSERT_EQUAL(rdma_get_mr(cx.env.cli,
				    (void *)(uintptr_t)0xffff888000000000ULL,
				    4096, 0, &cookie), -1);
	CU_ASSERT_EQUAL(rte_errno, EFAULT);
	CU_ASSERT_EQUAL(cookie, 0);

	/* Read-only memory: refused for READWRITE, by GET_MR and by
	 * RDMA_MAP; accepted read-only, where READs work and writes fail
	 * cleanly (the engine never writes a read-only region). */
	ro = p + 2 * RDMA_PAGE;
	CU_ASSERT_FATAL(mprotect(ro, RDMA_PAGE, PROT_READ) == 0);
	CU_ASSERT_EQUAL(rdma_get_mr(cx.env.cli, ro, RDMA_PAGE,
				    RDS_RDMA_READWRITE, &cookie), -1);
	CU_ASSERT_EQUAL(rte_errno, EFAULT);
	CU_ASSERT_EQUAL(rdma_get_mr(cx.env.cli, p, REGION_LEN,
				    RDS_RDMA_READWRITE, &cookie), -1);
	CU_ASSERT_EQUAL(rte_errno, EFAULT);
	CU_ASSERT_EQUAL(rdma_send_map(cx.env.cli, &cx.env.sa, "MAP", 3, ro,
				      8, RDS_RDMA_READWRITE, &cookie), -1);
	CU_ASSERT_EQUAL(rte_errno, EFAULT);
	CU_ASSERT_EQUAL(cookie, 0);
	CU_ASSERT(rdma_quiet(cx.env.srv, 20));
	{
		struct dest d = DEST_CLIENT(&cx);

		c = reg(&cx, cx.env.cli, &cx.env.ca, ro, RDMA_PAGE, 0);
		run_op(&cx, &d, K_READ, c, 0, RDMA_PAGE, true, ro,
		       "READ of read-only memory");
		run_op(&cx, &d, K_WRITE, c, 0, 8, false, NULL,
		       "WRITE to read-only memory");
		run_op(&cx, &d, K_FADD, c, 0, 0, false, NULL,
		       "FADD on read-only memory");
		CU_ASSERT_EQUAL(rdma_free_mr(cx.env.cli, c, 0), 0);
	}
	CU_ASSERT_FATAL(mprotect(ro, RDMA_PAGE, PROT_READ | PROT_WRITE) == 0);

	/* cookie_addr is optional (the kernel writes it only if set): the
	 * region is registered, and RDMA_MAP still ships the cookie. */
	CU_ASSERT_EQUAL(rdma_get_mr(cx.env.cli, p, 64, 0, NULL), 0);
	CU_ASSERT_EQUAL(rdma_send_map(cx.env.cli, &cx.env.sa, "MAP", 3, p,
				      64, 0, NULL), 3);
	CU_ASSERT(rdma_wait_msg(cx.env.srv, buf, sizeof(buf), 5000, &rx, NULL,
				NULL, 0) && rx.ret == 3 && rx.has_dest);
	if (rx.has_dest) {
		struct dest d = DEST_CLIENT(&cx);

		run_op(&cx, &d, K_READ, rx.dest, 0, 64, true, p,
		       "READ through a cookie nobody was told");
	}
	CU_ASSERT_EQUAL(rdma_free_mr(cx.env.cli, 0, RDS_RDMA_INVALIDATE), 0);
	ctx_end(&cx);
}

/*
 * Memory an operation's engine side touches later, checked at sendmsg
 * (net/rds/rdma.c rds_cmsg_rdma_args and rds_cmsg_atomic pin it:
 * EFAULT): READ destinations must be writable, WRITE sources readable,
 * an atomic's result word writable. Before, a READ into read-only or
 * unmapped memory was accepted and the engine died with SIGSEGV when
 * the data came back. Nothing is sent for a refused operation, and the
 * engine keeps running (a good operation works afterwards).
 */
void
test_handover_local(void)
{
	struct rds_rdma_args a;
	struct rds_atomic_args at;
	struct rds_iovec iov[2];
	struct ctx cx;
	struct rdma_guard lg;
	uint64_t c;
	uint8_t *gone;

	ctx_begin(&cx, 60, "handover_local");
	CU_ASSERT_FATAL(rdma_guard_alloc(&lg, 2) == 0);
	gone = mmap(NULL, RDMA_PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(gone != MAP_FAILED);
	munmap(gone, RDMA_PAGE);
	c = reg(&cx, cx.env.cli, &cx.env.ca, cx.g.pages, REGION_LEN,
		RDS_RDMA_READWRITE);
	memset(&a, 0, sizeof(a));
	a.cookie = c;
	a.local_vec_addr = (uint64_t)(uintptr_t)iov;
	a.user_token = 77;
	a.flags = RDS_RDMA_NOTIFY_ME;

	/* READ into read-only memory, whole or its second element. */
	CU_ASSERT_FATAL(mprotect(lg.pages + RDMA_PAGE, RDMA_PAGE,
				 PROT_READ) == 0);
	iov[0].addr = (uint64_t)(uintptr_t)(lg.pages + RDMA_PAGE);
	iov[0].bytes = 64;
	a.nr_local = 1;
	a.remote_vec.bytes = 64;
	CU_ASSERT_EQUAL(rdma_send_args(cx.env.srv, &cx.env.ca, "R", 1, &a),
			-1);
	CU_ASSERT_EQUAL(rte_errno, EFAULT);
	iov[0].addr = (uint64_t)(uintptr_t)lg.pages;
	iov[1].addr = (uint64_t)(uintptr_t)(lg.pages + RDMA_PAGE - 8);
	iov[1].bytes = 16;	/* 8 writable bytes, 8 read-only */
	a.nr_local = 2;
	a.remote_vec.bytes = 80;
	CU_ASSERT_EQUAL(rdma_send_args(cx.env.srv, &cx.env.ca, "R", 1, &a),
			-1);
	CU_ASSERT_EQUAL(rte_errno, EFAULT);
	/* READ into a guard page, into unmapped memory. */
	iov[1].addr = (uint64_t)(uintptr_t)(lg.pages - 8);
	CU_ASSERT_EQUAL(rdma_send_args(cx.env.srv, &cx.env.ca, "R", 1, &a),
			-1);
	CU_ASSERT_EQUAL(rte_errno, EFAULT);
	iov[1].addr = (uint64_t)(uintptr_t)gone;
	CU_ASSERT_EQUAL(rdma_send_args(cx.env.srv, &cx.env.ca, "R", 1, &a),
			-1);
	CU_ASSERT_EQUAL(rte_errno, EFAULT);
	/* WRITE from unmapped memory, from a guard page. */
	a.flags |= RDS_RDMA_READWRITE;
	CU_ASSERT_EQUAL(rdma_send_args(cx.env.srv, &cx.env.ca, "W", 1, &a),
			-1);
	CU_ASSERT_EQUAL(rte_errno, EFAULT);
	iov[1].addr = (uint64_t)(uintptr_t)(lg.pages + 2 * RDMA_PAGE - 8);
	CU_ASSERT_EQUAL(rdma_send_args(cx.env.srv, &cx.env.ca, "W", 1, &a),
			-1);
	CU_ASSERT_EQUAL(rte_errno, EFAULT);
	/* An atomic whose result word is read-only, unmapped, NULL. */
	memset(&at, 0, sizeof(at));
	at.cookie = c;
	at.fadd.add = 1;
	at.flags = RDS_RDMA_NOTIFY_ME;
	at.local_addr = (uint64_t)(uintptr_t)(lg.pages + RDMA_PAGE);
	CU_ASSERT_EQUAL(rdma_send_atomic(cx.env.srv, &cx.env.ca, "A", 1,
					 RDS_CMSG_ATOMIC_FADD, &at), -1);
	CU_ASSERT_EQUAL(rte_errno, EFAULT);
	at.local_addr = (uint64_t)(uintptr_t)gone;
	CU_ASSERT_EQUAL(rdma_send_atomic(cx.env.srv, &cx.env.ca, "A", 1,
					 RDS_CMSG_ATOMIC_CSWP, &at), -1);
	CU_ASSERT_EQUAL(rte_errno, EFAULT);
	at.local_addr = 0;
	CU_ASSERT_EQUAL(rdma_send_atomic(cx.env.srv, &cx.env.ca, "A", 1,
					 RDS_CMSG_ATOMIC_FADD, &at), -1);
	CU_ASSERT_EQUAL(rte_errno, EFAULT);
	/* Nothing went anywhere; the engine is alive. */
	rdma_pump(100);
	CU_ASSERT(rdma_quiet(cx.env.cli, 50));
	CU_ASSERT(rdma_quiet(cx.env.srv, 0));

	/* Allowed next to them: a WRITE from read-only memory (a source
	 * is only read), a READ and an atomic into the writable page. */
	{
		struct dest d = DEST_CLIENT(&cx);

		run_op(&cx, &d, K_READ, c, 0, 4096, true, cx.g.pages,
		       "READ after refused ones");
		run_op(&cx, &d, K_FADD, c, 8, 0, true, cx.g.pages + 8,
		       "FADD after refused ones");
	}
	memset(lg.pages, 0x3C, RDMA_PAGE);
	iov[0].addr = (uint64_t)(uintptr_t)(lg.pages + RDMA_PAGE);
	iov[0].bytes = 100;
	a.nr_local = 1;
	a.remote_vec.bytes = 100;
	a.flags = RDS_RDMA_READWRITE;
	CU_ASSERT_EQUAL(rdma_send_args(cx.env.srv, &cx.env.ca, "W", 1, &a),
			1);
	{
		struct rdma_rx rx;
		char b[8];

		CU_ASSERT(rdma_wait_msg(cx.env.cli, b, sizeof(b), 5000, &rx,
					NULL, NULL, 0) && rx.ret == 1);
	}
	CU_ASSERT(memcmp(cx.g.pages, lg.pages + RDMA_PAGE, 100) == 0);
	CU_ASSERT_EQUAL(rdma_free_mr(cx.env.cli, c, 0), 0);
	rdma_guard_free(&lg);
	ctx_end(&cx);
}

/*
 * Read-only memory (ported from test/rxe/rxe_rdma.c; over every
 * transport). Over ib: a region without READWRITE on
 * PROT_READ pages is registered without IBV_ACCESS_LOCAL_WRITE (with it,
 * ibv_reg_mr refuses read-only pages: EFAULT), and serves READs; a
 * READWRITE region on them is EFAULT (the core's check, as the kernel's
 * rds_pin_pages). Before, LOCAL_WRITE was always asked and GET_MR failed
 * with EINVAL (every ibv_reg_mr error but ENOMEM was EINVAL).
 */
void
test_readonly(void)
{
	struct ctx cx;
	uint64_t c = 0;
	uint8_t *ro;

	ctx_begin(&cx, 300, "readonly");
	ro = cx.g.pages + RDMA_PAGE;
	CU_ASSERT_FATAL(mprotect(ro, 2 * RDMA_PAGE, PROT_READ) == 0);
	CU_ASSERT_EQUAL(rdma_get_mr(cx.env.cli, ro, 2 * RDMA_PAGE,
				    RDS_RDMA_READWRITE, &c), -1);
	CU_ASSERT_EQUAL(rte_errno, EFAULT);
	{
		struct dest d = DEST_CLIENT(&cx);

		c = reg(&cx, cx.env.cli, &cx.env.ca, ro + 100,
			2 * RDMA_PAGE - 200, 0);
		CU_ASSERT_NOT_EQUAL(c, 0);
		run_op(&cx, &d, K_READ, c, 0, 2 * RDMA_PAGE - 200, true,
		       ro + 100, "READ of read-only memory");
		run_op(&cx, &d, K_WRITE, c, 0, 8, false, NULL,
		       "WRITE to read-only memory");
		run_op(&cx, &d, K_READ, c, 1000, 64, true, ro + 1100,
		       "READ of read-only memory after an error");
		CU_ASSERT_EQUAL(rdma_free_mr(cx.env.cli, c, 0), 0);
	}
	CU_ASSERT_FATAL(mprotect(ro, 2 * RDMA_PAGE,
				 PROT_READ | PROT_WRITE) == 0);
	ctx_end(&cx);
}

/*
 * Memory unmapped and mapped again at the same address (ported from
 * test/rxe/rxe_rdma.c; over every transport). Over ib it is the
 * registration cache after munmap and a new mapping at the same
 * address: a region freed without INVALIDATE stays registered; while
 * the memory is the same, the same range comes back with the same key
 * (the cache works), but once the application unmapped it and mapped
 * new memory there, GET_MR must register the new pages: a peer's READ
 * sees the new content and its WRITE lands in the new memory. Before,
 * the cache (keyed by address, length and rights) handed back the old
 * registration, which still pointed at the old pages.
 */
void
test_remap(void)
{
	struct ctx cx;
	uint64_t c1, c2, c3;
	uint8_t *p;
	void *m;

	ctx_begin(&cx, 300, "remap");
	p = cx.g.pages;
	{
		struct dest d = DEST_CLIENT(&cx);

		c1 = reg(&cx, cx.env.cli, &cx.env.ca, p, REGION_LEN,
			 RDS_RDMA_READWRITE);
		run_op(&cx, &d, K_READ, c1, 0, 256, true, p,
		       "READ of the first mapping");
		CU_ASSERT_EQUAL(rdma_free_mr(cx.env.cli, c1, 0), 0);
		c2 = reg(&cx, cx.env.cli, &cx.env.ca, p, REGION_LEN,
			 RDS_RDMA_READWRITE);
		if (!rdma_tr_is("ib"))
			printf("  no registration cache over %s: the remap "
			       "case checks the data only\n", rdma_tr()->name);
		else if (rdma_cookie_key(c2) != rdma_cookie_key(c1))
			printf("  cache not used (no CAP_SYS_ADMIN for "
			       "/proc/self/pagemap?): the remap case proves "
			       "little\n");
		CU_ASSERT_EQUAL(rdma_free_mr(cx.env.cli, c2, 0), 0);
		/* New memory at the same address, other content. */
		CU_ASSERT_FATAL(munmap(p, REGION_LEN) == 0);
		m = mmap(p, REGION_LEN, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		CU_ASSERT_FATAL(m == p);
		rds_test_fill(p, REGION_LEN, 0xBEEF);
		c3 = reg(&cx, cx.env.cli, &cx.env.ca, p, REGION_LEN,
			 RDS_RDMA_READWRITE);
		printf("  keys: first %#x, again %#x, after the remap %#x\n",
		       rdma_cookie_key(c1), rdma_cookie_key(c2),
		       rdma_cookie_key(c3));
		CU_ASSERT_NOT_EQUAL(rdma_cookie_key(c3), rdma_cookie_key(c2));
		run_op(&cx, &d, K_READ, c3, 0, REGION_LEN, true, p,
		       "READ of the new mapping");
		run_op(&cx, &d, K_WRITE, c3, 100, 300, true, p + 100,
		       "WRITE into the new mapping");
		CU_ASSERT_EQUAL(rdma_free_mr(cx.env.cli, c3,
					     RDS_RDMA_INVALIDATE), 0);
	}
	ctx_end(&cx);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_security: bounds, freed, USE_ONCE and forged cookies, the owner
 * of a cookie, rights, unaligned regions.
 */

#include "rdma_security.h"

/* Offsets and lengths outside an aligned N-page region. */
void
test_bounds(void)
{
	struct ctx cx;
	uint64_t c;

	ctx_begin(&cx, 60, "bounds");
	{
		struct dest d = DEST_CLIENT(&cx);
		uint8_t *p = cx.g.pages;

		c = reg(&cx, cx.env.cli, &cx.env.ca, p, REGION_LEN,
			RDS_RDMA_READWRITE);
		CU_ASSERT_EQUAL(rdma_cookie_off(c), 0);
		/* Controls. */
		run_op(&cx, &d, K_READ, c, 0, REGION_LEN, true, p,
		       "READ whole region");
		run_op(&cx, &d, K_WRITE, c, 0, REGION_LEN, true, p,
		       "WRITE whole region");
		run_op(&cx, &d, K_READ, c, REGION_LEN - 4096, 4096, true,
		       p + REGION_LEN - 4096, "READ last page");
		run_op(&cx, &d, K_WRITE, c, REGION_LEN - 1, 1, true,
		       p + REGION_LEN - 1, "WRITE last byte");
		run_op(&cx, &d, K_FADD, c, REGION_LEN - 8, 0, true,
		       p + REGION_LEN - 8, "FADD last word");
		/* Offset beyond the region. */
		run_op(&cx, &d, K_READ, c, REGION_LEN, 1, false, NULL,
		       "READ offset = region length");
		run_op(&cx, &d, K_WRITE, c, REGION_LEN, 1, false, NULL,
		       "WRITE offset = region length");
		run_op(&cx, &d, K_READ, c, REGION_LEN + 4096, 4096, false,
		       NULL, "READ a page past the region");
		run_op(&cx, &d, K_WRITE, c, 1ULL << 40, 64, false, NULL,
		       "WRITE offset 2^40");
		run_op(&cx, &d, K_READ, c, 1ULL << 63, 1, false, NULL,
		       "READ offset 2^63");
		run_op(&cx, &d, K_WRITE, c, ~0ULL, 2, false, NULL,
		       "WRITE offset 2^64-1 (wraps)");
		run_op(&cx, &d, K_READ, c, ~0ULL - 4095, 8192, false, NULL,
		       "READ offset -4096 (wraps)");
		/* Offset + length beyond it by one byte. */
		run_op(&cx, &d, K_READ, c, REGION_LEN - 4096 + 1, 4096, false,
		       NULL, "READ ends 1 byte past");
		run_op(&cx, &d, K_WRITE, c, REGION_LEN - 4096 + 1, 4096,
		       false, NULL, "WRITE ends 1 byte past");
		run_op(&cx, &d, K_READ, c, 0, REGION_LEN + 1, false, NULL,
		       "READ region length + 1");
		run_op(&cx, &d, K_WRITE, c, 0, REGION_LEN + 1, false, NULL,
		       "WRITE region length + 1");
		run_op(&cx, &d, K_WRITE, c, 1, REGION_LEN, false, NULL,
		       "WRITE at 1, region length");
		/* Atomics beyond, overlapping the end, misaligned. */
		run_op(&cx, &d, K_FADD, c, REGION_LEN, 0, false, NULL,
		       "FADD offset = region length");
		run_op(&cx, &d, K_CSWP, c, REGION_LEN - 4, 0, false, NULL,
		       "CSWP straddling the end");
		/* IB requires 8-byte aligned atomics (the library refuses
		 * a misaligned target the same way). */
		run_op(&cx, &d, K_FADD, c, 4, 0, false, NULL,
		       "FADD misaligned");
		CU_ASSERT_EQUAL(rdma_free_mr(cx.env.cli, c, 0), 0);
	}
	ctx_end(&cx);
}

/* Freed, USE_ONCE and forged cookies. */
void
test_cookies(void)
{
	struct ctx cx;
	uint64_t c, c2, forged, st = 0xF0463;
	unsigned int i;

	ctx_begin(&cx, 60, "cookies");
	{
		struct dest d = DEST_CLIENT(&cx);
		uint8_t *p = cx.g.pages;

		/* Freed with INVALIDATE before the op. */
		c = reg(&cx, cx.env.cli, &cx.env.ca, p, REGION_LEN,
			RDS_RDMA_READWRITE);
		run_op(&cx, &d, K_READ, c, 0, 100, true, p,
		       "READ before FREE_MR");
		CU_ASSERT_EQUAL(rdma_free_mr(cx.env.cli, c,
					     RDS_RDMA_INVALIDATE), 0);
		run_op(&cx, &d, K_READ, c, 0, 100, false, NULL,
		       "READ after FREE_MR(INVALIDATE)");
		run_op(&cx, &d, K_WRITE, c, 0, 100, false, NULL,
		       "WRITE after FREE_MR(INVALIDATE)");
		run_op(&cx, &d, K_FADD, c, 0, 0, false, NULL,
		       "FADD after FREE_MR(INVALIDATE)");
		CU_ASSERT_EQUAL(rdma_free_mr(cx.env.cli, c,
					     RDS_RDMA_INVALIDATE), -1);
		CU_ASSERT_EQUAL(rte_errno, EINVAL);

		/* USE_ONCE: the first use succeeds, the second fails. */
		c = reg(&cx, cx.env.cli, &cx.env.ca, p, REGION_LEN,
			RDS_RDMA_READWRITE | RDS_RDMA_USE_ONCE);
		run_op(&cx, &d, K_WRITE, c, 100, 1000, true, p + 100,
		       "USE_ONCE first use (WRITE)");
		run_op(&cx, &d, K_READ, c, 100, 1000, false, NULL,
		       "USE_ONCE second use (READ)");
		run_op(&cx, &d, K_WRITE, c, 0, 8, false, NULL,
		       "USE_ONCE third use (WRITE)");
		/* Gone: the kernel unbinds it when the RDMA ACK arrives
		 * (rds_rdma_unuse), so FREE_MR does not know it any more. */
		CU_ASSERT_EQUAL(rdma_free_mr(cx.env.cli, c, 0), -1);
		CU_ASSERT_EQUAL(rte_errno, EINVAL);
		c = reg(&cx, cx.env.cli, &cx.env.ca, p, REGION_LEN,
			RDS_RDMA_READWRITE | RDS_RDMA_USE_ONCE);
		run_op(&cx, &d, K_FADD, c, 8, 0, true, p + 8,
		       "USE_ONCE first use (FADD)");
		run_op(&cx, &d, K_FADD, c, 8, 0, false, NULL,
		       "USE_ONCE second use (FADD)");

		/* Forged cookies, while a valid region exists. */
		c2 = reg(&cx, cx.env.cli, &cx.env.ca, p, REGION_LEN,
			 RDS_RDMA_READWRITE);
		for (i = 0; i < 4; i++) {
			do {
				forged = (uint32_t)rds_test_rand(&st);
			} while (forged == rdma_cookie_key(c2) ||
				 forged == rdma_cookie_key(c));
			run_op(&cx, &d, i % 2 ? K_WRITE : K_READ, forged, 0,
			       64, false, NULL, "random key");
		}
		run_op(&cx, &d, K_READ, 0, 0, 64, false, NULL, "cookie 0");
		run_op(&cx, &d, K_FADD, 0, 0, 0, false, NULL,
		       "cookie 0 (FADD)");
		/* Valid key, offset field forged past the pages. */
		forged = rdma_cookie_key(c2) | ((uint64_t)REGION_LEN << 32);
		run_op(&cx, &d, K_READ, forged, 0, 1, false, NULL,
		       "valid key, offset field = region length");
		forged = rdma_cookie_key(c2) | (0xFFFFFFFFULL << 32);
		run_op(&cx, &d, K_WRITE, forged, 0, 1, false, NULL,
		       "valid key, offset field 2^32-1");
		forged = rdma_cookie_key(c2) | (4096ULL << 32);
		run_op(&cx, &d, K_WRITE, forged, REGION_LEN - 4096, 1, false,
		       NULL, "valid key, offset field + offset = length");
		/* Still usable as registered. */
		run_op(&cx, &d, K_READ, c2, 0, REGION_LEN, true, p,
		       "valid cookie after forgeries");
		CU_ASSERT_EQUAL(rdma_free_mr(cx.env.cli, c2, 0), 0);
	}
	ctx_end(&cx);
}

/* A valid cookie sent to the wrong address; the cookie of a closed
 * socket. */
void
test_owner(void)
{
	struct sockaddr_in ip3 = rdma_sin(3, RDMA_CLI_PORT);
	struct sockaddr_in ip4 = rdma_sin(4, RDMA_CLI_PORT);
	struct sockaddr_in a2 = rdma_sin(1, 4011);
	struct ctx cx;
	uint64_t c;
	int decoy, s2, s3;

	ctx_begin(&cx, 60, "owner");
	{
		struct dest d = DEST_CLIENT(&cx);
		struct dest d3 = { &ip3, &cx.env.ca, cx.env.cli };
		struct dest d4 = { &ip4, &cx.env.ca, cx.env.cli };
		struct dest d2 = { &a2, &a2, -1 };
		uint8_t *p = cx.g.pages;

		/* A socket on another local address, same port: the op's
		 * message would reach it if the op were allowed. */
		decoy = rdma_socket(3, RDMA_CLI_PORT, 0, 0);
		CU_ASSERT_FATAL(decoy >= 0);
		c = reg(&cx, cx.env.cli, &cx.env.ca, p, REGION_LEN,
			RDS_RDMA_READWRITE);
		if (rdma_tr()->rkey_per_device) {
			/* ib: the HCA checks the rkey against its protection
			 * domain, not the RDS address the op is sent to (the
			 * kernel's RDS the same): an op to another local
			 * address on the same device runs, and its message,
			 * then the SYNC, reach the socket there. */
			struct dest d3ib = { &ip3, &ip3, decoy };

			printf("  %s: the rkey is the device's: ops to another "
			       "local address on it run (asserted); none to "
			       "address 4, where no socket could see them\n",
			       rdma_tr()->name);
			run_op(&cx, &d3ib, K_READ, c, 0, 64, true, p,
			       "valid cookie, READ to another local address "
			       "on the device");
			run_op(&cx, &d3ib, K_WRITE, c, 64, 64, true, p + 64,
			       "valid cookie, WRITE to another local address "
			       "on the device");
			run_op(&cx, &d3ib, K_FADD, c, 256, 0, true, p + 256,
			       "valid cookie, FADD to another local address "
			       "on the device");
			RTE_SET_USED(d4);
		} else {
			run_op(&cx, &d3, K_READ, c, 0, 64, false, NULL,
			       "valid cookie, op sent to another local "
			       "address");
			run_op(&cx, &d3, K_WRITE, c, 0, 64, false, NULL,
			       "valid cookie, WRITE sent to another local "
			       "address");
			run_op(&cx, &d3, K_FADD, c, 0, 0, false, NULL,
			       "valid cookie, FADD sent to another local "
			       "address");
			run_op(&cx, &d4, K_WRITE, c, 0, 64, false, NULL,
			       "valid cookie, WRITE to an address with no "
			       "socket");
		}
		CU_ASSERT(rdma_quiet(decoy, 20));
		run_op(&cx, &d, K_READ, c, 0, 64, true, p,
		       "valid cookie, right address");
		CU_ASSERT_EQUAL(rte_rds_close(decoy), 0);

		/* The cookie of a socket that was closed. */
		s2 = rdma_socket(1, 4011, 0, 0);
		CU_ASSERT_FATAL(s2 >= 0);
		c = reg(&cx, s2, &a2, p, REGION_LEN, RDS_RDMA_READWRITE);
		d2.sync_sock = s2;
		run_op(&cx, &d2, K_READ, c, 0, 64, true, p,
		       "cookie of an open socket");
		CU_ASSERT_EQUAL(rte_rds_close(s2), 0);
		/* A new socket on the same address and port. */
		s3 = rdma_socket(1, 4011, 0, 0);
		CU_ASSERT_FATAL(s3 >= 0);
		d2.sync_sock = s3;
		run_op(&cx, &d2, K_WRITE, c, 0, 64, false, NULL,
		       "cookie of a closed socket (WRITE)");
		run_op(&cx, &d2, K_READ, c, 0, 64, false, NULL,
		       "cookie of a closed socket (READ)");
		run_op(&cx, &d, K_READ, c, 0, 64, false, NULL,
		       "cookie of a closed socket, other socket's port");
		/* Nor may the new socket free it. */
		CU_ASSERT_EQUAL(rdma_free_mr(s3, c, 0), -1);
		CU_ASSERT_EQUAL(rte_errno, EINVAL);
		CU_ASSERT_EQUAL(rte_rds_close(s3), 0);
	}
	ctx_end(&cx);
}

/* Rights: a region registered without RDS_RDMA_READWRITE is read-only. */
void
test_rights(void)
{
	struct ctx cx;
	uint64_t c;

	ctx_begin(&cx, 60, "rights");
	{
		struct dest d = DEST_CLIENT(&cx);
		uint8_t *p = cx.g.pages;

		c = reg(&cx, cx.env.cli, &cx.env.ca, p, REGION_LEN, 0);
		run_op(&cx, &d, K_READ, c, 0, REGION_LEN, true, p,
		       "READ of a read-only region");
		run_op(&cx, &d, K_WRITE, c, 0, 1, false, NULL,
		       "WRITE to a read-only region");
		run_op(&cx, &d, K_WRITE, c, 0, REGION_LEN, false, NULL,
		       "WRITE whole read-only region");
		run_op(&cx, &d, K_FADD, c, 0, 0, false, NULL,
		       "FADD on a read-only region");
		run_op(&cx, &d, K_CSWP, c, 8, 0, false, NULL,
		       "CSWP on a read-only region");
		run_op(&cx, &d, K_READ, c, 4096, 4096, true, p + 4096,
		       "READ of a read-only region again");
		CU_ASSERT_EQUAL(rdma_free_mr(cx.env.cli, c, 0), 0);
	}
	ctx_end(&cx);
}

/* A region that is not page aligned (see the file comment). */
void
test_unaligned(void)
{
	const uint32_t head = 100, tail = 100;
	const uint64_t bytes = REGION_LEN - head - tail;
	struct ctx cx;
	uint64_t c, forged;

	ctx_begin(&cx, 60, "unaligned");
	{
		struct dest d = DEST_CLIENT(&cx);
		uint8_t *p = cx.g.pages, *addr = p + head;

		c = reg(&cx, cx.env.cli, &cx.env.ca, addr, bytes,
			RDS_RDMA_READWRITE);
		CU_ASSERT_EQUAL(rdma_cookie_off(c), head);
		/* Inside [addr, addr + bytes): the canaries around it (the
		 * page bytes before and after) stay (run_op checks every
		 * byte of the pages outside the target). */
		run_op(&cx, &d, K_WRITE, c, 0, bytes, true, addr,
		       "WRITE exactly [addr, addr + bytes)");
		run_op(&cx, &d, K_READ, c, 0, bytes, true, addr,
		       "READ exactly [addr, addr + bytes)");
		run_op(&cx, &d, K_FADD, c, 0, 0, false, NULL,
		       "FADD at addr (page + 100: misaligned)");
		run_op(&cx, &d, K_FADD, c, 4, 0, true, addr + 4,
		       "FADD at addr + 4 (page + 104, aligned)");
		/* Past addr + bytes, within the last page: allowed (whole
		 * pages are registered, as in the kernel). */
		run_op(&cx, &d, K_WRITE, c, bytes - 10, tail + 10, true,
		       addr + bytes - 10, "WRITE up to the end of the pages");
		run_op(&cx, &d, K_READ, c, bytes, tail, true, addr + bytes,
		       "READ the tail of the last page");
		/* One byte past the pages: refused. */
		run_op(&cx, &d, K_WRITE, c, bytes - 10, tail + 11, false, NULL,
		       "WRITE 1 byte past the pages");
		run_op(&cx, &d, K_READ, c, bytes + tail, 1, false, NULL,
		       "READ at the end of the pages");
		/* The offset field forged smaller reaches the head of the
		 * first page (zero-based MR over whole pages): allowed. */
		forged = rdma_cookie_key(c);
		run_op(&cx, &d, K_WRITE, forged, 0, head, true, p,
		       "WRITE the head of the first page (offset field 0)");
		run_op(&cx, &d, K_READ, forged, 0, REGION_LEN, true, p,
		       "READ all pages (offset field 0)");
		run_op(&cx, &d, K_READ, forged, 0, REGION_LEN + 1, false, NULL,
		       "READ all pages + 1 (offset field 0)");
		CU_ASSERT_EQUAL(rdma_free_mr(cx.env.cli, c, 0), 0);
	}
	ctx_end(&cx);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory-region security of RDS RDMA over the transport of the run (loop,
 * eth or ib: --transport=, rdma_common.h). Over ib a refused operation
 * puts the QP in error: each one also proves that the connection resets
 * and carries the next message (the SYNC).
 *
 * The client's region is a page-aligned run of exactly N pages inside a
 * mapping whose pages right before and after are PROT_NONE: any access
 * outside the region's pages crashes the test. The server sets
 * RDS_RECVERR (no NOTIFY_ME). Every forbidden operation must:
 *   - complete with exactly one RDS_CMSG_RDMA_STATUS {token,
 *     RDS_RDMA_REMOTE_ERROR} on the server;
 *   - not deliver its message: the next message the client sees is the
 *     plain "SYNC" the server sends right after it;
 *   - read and write nothing: the client's pages and the server's local
 *     iovecs (and the canary gaps between them) are unchanged.
 * Allowed operations next to them (controls) succeed, move exactly the
 * addressed bytes and notify nothing.
 *
 * Cases: offset beyond the region; offset + length beyond it by one byte;
 * offset overflow; a cookie freed with RDS_FREE_MR (RDS_RDMA_INVALIDATE);
 * a USE_ONCE cookie used twice; forged cookies (random key, key 0, valid
 * key with a forged offset); a valid cookie sent to another local address
 * (not the one the region was registered on); the cookie of a closed
 * socket; WRITE and atomics on a region registered without
 * RDS_RDMA_READWRITE; a misaligned atomic. Read-only (PROT_READ) memory:
 * READWRITE on it is EFAULT, a read-only region serves READs, a WRITE to
 * it is REMOTE_ERROR. Memory unmapped and mapped anew at the same address
 * (ib's registration cache must not hand the old pages back): READ and
 * WRITE reach the new memory.
 *
 * Unaligned regions (rds_rdma.c, like the kernel's FRWR registration,
 * net/rds/rdma.c __rds_rdma_map + ib_map_mr_sg_zbva): a region covers the
 * WHOLE pages of [addr, addr + bytes), addressed zero-based from the first
 * page, and the cookie carries addr's in-page offset. An operation may
 * therefore reach bytes past addr + bytes up to the end of the last page
 * (asserted: it succeeds), and a cookie whose offset field is forged
 * smaller reaches bytes before addr within the first page (asserted: it
 * succeeds); one byte past the last page fails, and nothing outside the
 * registered pages is ever touched (guard pages). Canaries around
 * [addr, addr + bytes) are asserted intact for operations inside it.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <CUnit/CUnit.h>

#include <rte_errno.h>
#include <rte_rds.h>

#include "rdma_common.h"

#define NPAGES 4
#define REGION_LEN (NPAGES * RDMA_PAGE)
#define CANARY 0xC3
#define SENTINEL 0xDEADBEEFCAFEF00DULL

enum kind { K_READ, K_WRITE, K_FADD, K_CSWP };

static const char *const kind_name[] = { "READ", "WRITE", "FADD", "CSWP" };

struct ctx {
	struct rdma_env env;
	struct rdma_guard g;	/* the client's pages */
	uint8_t *snap;		/* their content before each op */
	uint8_t *local;		/* server's iovec area */
	size_t local_space;
	unsigned int seq;
	unsigned int fails;
};

/* Where an op goes and where the SYNC that follows it goes. */
struct dest {
	const struct sockaddr_in *op_to;
	const struct sockaddr_in *sync_to;
	int sync_sock;
};

static bool
ctx_up(struct ctx *cx)
{
	memset(cx, 0, sizeof(*cx));
	if (rdma_env_up(&cx->env) != 0)
		return false;
	if (rdma_guard_alloc(&cx->g, NPAGES) != 0)
		goto fail;
	cx->snap = malloc(cx->g.len);
	cx->local_space = rdma_scatter_space(2 * REGION_LEN, 8);
	cx->local = malloc(cx->local_space);
	if (cx->snap == NULL || cx->local == NULL)
		goto fail;
	rds_test_fill(cx->g.pages, cx->g.len, 0x5EC);
	if (rdma_set_recverr(cx->env.srv, 1) != 0)
		goto fail;
	return true;
fail:
	printf("  ctx_up failed\n");
	free(cx->snap);
	free(cx->local);
	rdma_guard_free(&cx->g);
	rdma_env_down(&cx->env);
	return false;
}

static void
ctx_down(struct ctx *cx)
{
	rdma_env_down(&cx->env);
	free(cx->snap);
	free(cx->local);
	rdma_guard_free(&cx->g);
}

/* Register [addr, addr + bytes) on socket s and ship the cookie to the
 * server (which must receive it unchanged). */
static uint64_t
reg(struct ctx *cx, int s, const struct sockaddr_in *from, const void *addr,
    uint64_t bytes, uint64_t flags)
{
	struct rdma_rx rx;
	uint64_t cookie = 0;
	char buf[16];

	if (rdma_get_mr(s, addr, bytes, flags, &cookie) != 0) {
		printf("  RDS_GET_MR: %s\n", rte_strerror(rte_errno));
		CU_FAIL("RDS_GET_MR");
		return 0;
	}
	CU_ASSERT(rdma_send_dest(s, &cx->env.sa, "COOKIE", 6, cookie) == 6);
	CU_ASSERT(rdma_wait_msg(cx->env.srv, buf, sizeof(buf), 5000, &rx,
				NULL, NULL, 0));
	CU_ASSERT(rx.has_dest && rx.dest == cookie);
	CU_ASSERT(rds_test_sin_eq(&rx.from, from));
	return cookie;
}

/*
 * Run one op (server -> op_to) followed by a plain SYNC (server ->
 * sync_to) and check the outcome: allowed (ok) or REMOTE_ERROR.
 * For allowed ops, target is where the op lands in the client's memory.
 */
static void
run_op(struct ctx *cx, const struct dest *d, enum kind k, uint64_t cookie,
       uint64_t off, uint64_t len, bool ok, const uint8_t *target,
       const char *what)
{
	struct rds_iovec iov[8];
	struct rds_rdma_notify nt[8];
	struct rdma_rx rx;
	uint8_t *want = NULL, *got = NULL;
	uint64_t result = SENTINEL, token = 0x5EC0000ULL + cx->seq;
	unsigned int nnt, fails = 0, i;
	size_t nseg = 0;
	char msg[32], sync[32], buf[64];
	ssize_t r;

	cx->seq++;
	memcpy(cx->snap, cx->g.pages, cx->g.len);
	snprintf(msg, sizeof(msg), "OP %u", cx->seq);
	snprintf(sync, sizeof(sync), "SYNC %u", cx->seq);
	if (k == K_READ || k == K_WRITE) {
		struct rds_rdma_args a;

		memset(cx->local, CANARY, cx->local_space);
		nseg = rdma_scatter(cx->local, len, len < 7 ? len : 7,
				    cx->seq, CANARY, iov);
		for (i = 0; i < nseg; i++)
			rds_test_fill((void *)(uintptr_t)iov[i].addr,
				      iov[i].bytes, cx->seq * 100 + i);
		want = malloc(len);
		got = malloc(len);
		CU_ASSERT_FATAL(want != NULL && got != NULL);
		rdma_gather(iov, nseg, want);	/* the local data before */
		memset(&a, 0, sizeof(a));
		a.cookie = cookie;
		a.remote_vec.addr = off;
		a.remote_vec.bytes = len;
		a.local_vec_addr = (uint64_t)(uintptr_t)iov;
		a.nr_local = nseg;
		a.flags = k == K_WRITE ? RDS_RDMA_READWRITE : 0;
		a.user_token = token;
		r = rdma_send_args(cx->env.srv, d->op_to, msg, strlen(msg),
				   &a);
	} else {
		struct rds_atomic_args a;

		memset(&a, 0, sizeof(a));
		a.cookie = cookie;
		a.local_addr = (uint64_t)(uintptr_t)&result;
		a.remote_addr = off;
		if (k == K_FADD) {
			a.fadd.add = 0x0101010101010101ULL;
		} else {
			/* Compare with what is there: would swap. */
			if (ok)
				memcpy(&a.cswp.compare, target, 8);
			a.cswp.swap = 0x1122334455667788ULL;
		}
		a.user_token = token;
		r = rdma_send_atomic(cx->env.srv, d->op_to, msg, strlen(msg),
				     k == K_FADD ? RDS_CMSG_ATOMIC_FADD :
				     RDS_CMSG_ATOMIC_CSWP, &a);
	}
	if (r != (ssize_t)strlen(msg)) {
		printf("  %s: sendmsg %zd %s\n", what, r,
		       rte_strerror(rte_errno));
		fails++;
		goto out;
	}
	if (rdma_sendmsg(cx->env.srv, d->sync_to, sync, strlen(sync), NULL,
			 0) != (ssize_t)strlen(sync)) {
		fails++;
		goto out;
	}
	/* The client side: the op's message only if allowed, then SYNC. */
	if (ok && d->op_to == d->sync_to) {
		if (!rdma_wait_msg(d->sync_sock, buf, sizeof(buf) - 1, 5000,
				   &rx, NULL, NULL, 0) ||
		    rx.ret != (ssize_t)strlen(msg) ||
		    memcmp(buf, msg, strlen(msg)) != 0) {
			printf("  %s: allowed op's message missing\n", what);
			fails++;
		}
	}
	if (!rdma_wait_msg(d->sync_sock, buf, sizeof(buf) - 1, 5000, &rx,
			   NULL, NULL, 0)) {
		printf("  %s: SYNC missing\n", what);
		fails++;
	} else if (rx.ret != (ssize_t)strlen(sync) ||
		   memcmp(buf, sync, strlen(sync)) != 0) {
		buf[rx.ret >= 0 ? rx.ret : 0] = '\0';
		printf("  %s: client got '%s' instead of '%s'%s\n", what, buf,
		       sync, ok ? "" : " (message of a failed op delivered)");
		fails++;
	}
	/* The server side: one REMOTE_ERROR for a failure, else nothing. */
	nnt = rdma_collect(cx->env.srv, nt, RTE_DIM(nt), ok ? 0 : 1, 50,
			   5000, 1024, NULL);
	if (!ok) {
		if (nnt != 1 || nt[0].user_token != token ||
		    nt[0].status != RDS_RDMA_REMOTE_ERROR) {
			printf("  %s: %u notifications (first token %#llx "
			       "status %d), want one REMOTE_ERROR\n", what,
			       nnt, nnt ? (unsigned long long)nt[0].user_token :
			       0ULL, nnt ? nt[0].status : -1);
			fails++;
		}
		if (!rdma_quiet(cx->env.srv, 20))
			fails++;
	} else if (nnt != 0) {
		printf("  %s: allowed op notified (status %d)\n", what,
		       nt[0].status);
		fails++;
	}
	/* Memory. */
	if (!ok || k == K_READ) {
		long dd = rdma_first_diff(cx->g.pages, cx->snap, cx->g.len);

		if (dd >= 0) {
			printf("  %s: client page byte %ld changed\n", what,
			       dd);
			fails++;
		}
	}
	if (k == K_READ || k == K_WRITE) {
		if (!rdma_scatter_canary_ok(cx->local, cx->local_space, iov,
					    nseg, CANARY))
			fails++;
		rdma_gather(iov, nseg, got);
		if (!ok || k == K_WRITE) {
			/* Source or untouched destination: as before. */
			if (memcmp(got, want, len) != 0) {
				printf("  %s: server iovecs changed\n", what);
				fails++;
			}
		}
		if (ok && k == K_READ && memcmp(got, target, len) != 0) {
			printf("  %s: READ data differs\n", what);
			fails++;
		}
		if (ok && k == K_WRITE) {
			size_t pre = (size_t)(target - cx->g.pages);

			if (memcmp(target, want, len) != 0 ||
			    memcmp(cx->g.pages, cx->snap, pre) != 0 ||
			    memcmp(target + len, cx->snap + pre + len,
				   cx->g.len - pre - len) != 0) {
				printf("  %s: WRITE wrong or spilled\n", what);
				fails++;
			}
		}
	} else if (!ok) {
		if (result != SENTINEL) {
			printf("  %s: failed atomic wrote an old value\n",
			       what);
			fails++;
		}
	} else {
		uint64_t old, now;
		size_t pre = (size_t)(target - cx->g.pages);

		memcpy(&old, cx->snap + pre, 8);
		memcpy(&now, target, 8);
		if (result != old ||
		    now != (k == K_FADD ? old + 0x0101010101010101ULL :
			    0x1122334455667788ULL) ||
		    memcmp(cx->g.pages, cx->snap, pre) != 0 ||
		    memcmp(target + 8, cx->snap + pre + 8,
			   cx->g.len - pre - 8) != 0) {
			printf("  %s: atomic result wrong\n", what);
			fails++;
		}
	}
out:
	if (fails != 0)
		printf("  FAILED: %s (%s, %s expected)\n", what, kind_name[k],
		       ok ? "success" : "REMOTE_ERROR");
	cx->fails += fails;
	free(want);
	free(got);
}

#define DEST_CLIENT(cx) { &(cx)->env.ca, &(cx)->env.ca, (cx)->env.cli }

/* Offsets and lengths outside an aligned N-page region. */
static void
test_bounds(void)
{
	struct ctx cx;
	uint64_t c;

	rds_test_watchdog(60, "bounds");
	CU_ASSERT_FATAL(ctx_up(&cx));
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
	CU_ASSERT_EQUAL(cx.fails, 0);
	ctx_down(&cx);
	rds_test_watchdog(0, NULL);
}

/* Freed, USE_ONCE and forged cookies. */
static void
test_cookies(void)
{
	struct ctx cx;
	uint64_t c, c2, forged, st = 0xF0463;
	unsigned int i;

	rds_test_watchdog(60, "cookies");
	CU_ASSERT_FATAL(ctx_up(&cx));
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
	CU_ASSERT_EQUAL(cx.fails, 0);
	ctx_down(&cx);
	rds_test_watchdog(0, NULL);
}

/* A valid cookie sent to the wrong address; the cookie of a closed
 * socket. */
static void
test_owner(void)
{
	struct sockaddr_in ip3 = rdma_sin(3, RDMA_CLI_PORT);
	struct sockaddr_in ip4 = rdma_sin(4, RDMA_CLI_PORT);
	struct sockaddr_in a2 = rdma_sin(1, 4011);
	struct ctx cx;
	uint64_t c;
	int decoy, s2, s3;

	rds_test_watchdog(60, "owner");
	CU_ASSERT_FATAL(ctx_up(&cx));
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
	CU_ASSERT_EQUAL(cx.fails, 0);
	ctx_down(&cx);
	rds_test_watchdog(0, NULL);
}

/* Rights: a region registered without RDS_RDMA_READWRITE is read-only. */
static void
test_rights(void)
{
	struct ctx cx;
	uint64_t c;

	rds_test_watchdog(60, "rights");
	CU_ASSERT_FATAL(ctx_up(&cx));
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
	CU_ASSERT_EQUAL(cx.fails, 0);
	ctx_down(&cx);
	rds_test_watchdog(0, NULL);
}

/* A region that is not page aligned (see the file comment). */
static void
test_unaligned(void)
{
	const uint32_t head = 100, tail = 100;
	const uint64_t bytes = REGION_LEN - head - tail;
	struct ctx cx;
	uint64_t c, forged;

	rds_test_watchdog(60, "unaligned");
	CU_ASSERT_FATAL(ctx_up(&cx));
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
	CU_ASSERT_EQUAL(cx.fails, 0);
	ctx_down(&cx);
	rds_test_watchdog(0, NULL);
}

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
static void
test_handover_region(void)
{
	struct rdma_rx rx;
	struct ctx cx;
	uint64_t c, cookie;
	uint8_t *p, *ro, *gone;
	char buf[16];

	rds_test_watchdog(60, "handover_region");
	CU_ASSERT_FATAL(ctx_up(&cx));
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
	CU_ASSERT_EQUAL(cx.fails, 0);
	ctx_down(&cx);
	rds_test_watchdog(0, NULL);
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
static void
test_handover_local(void)
{
	struct rds_rdma_args a;
	struct rds_atomic_args at;
	struct rds_iovec iov[2];
	struct ctx cx;
	struct rdma_guard lg;
	uint64_t c;
	uint8_t *gone;

	rds_test_watchdog(60, "handover_local");
	CU_ASSERT_FATAL(ctx_up(&cx));
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
	CU_ASSERT_EQUAL(cx.fails, 0);
	rdma_guard_free(&lg);
	ctx_down(&cx);
	rds_test_watchdog(0, NULL);
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
static void
test_readonly(void)
{
	struct ctx cx;
	uint64_t c = 0;
	uint8_t *ro;

	rds_test_watchdog(300, "readonly");
	CU_ASSERT_FATAL(ctx_up(&cx));
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
	CU_ASSERT_EQUAL(cx.fails, 0);
	ctx_down(&cx);
	rds_test_watchdog(0, NULL);
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
static void
test_remap(void)
{
	struct ctx cx;
	uint64_t c1, c2, c3;
	uint8_t *p;
	void *m;

	rds_test_watchdog(300, "remap");
	CU_ASSERT_FATAL(ctx_up(&cx));
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
	CU_ASSERT_EQUAL(cx.fails, 0);
	ctx_down(&cx);
	rds_test_watchdog(0, NULL);
}

int
main(int argc, char **argv)
{
	static const struct rds_test_case cases[] = {
		{ "bounds", test_bounds },
		{ "cookies", test_cookies },
		{ "owner", test_owner },
		{ "rights", test_rights },
		{ "unaligned", test_unaligned },
		{ "handover_region", test_handover_region },
		{ "handover_local", test_handover_local },
		{ "readonly", test_readonly },
		{ "remap", test_remap },
		{ NULL, NULL },
	};

	return rdma_main(argc, argv, "rdma_security", cases);
}

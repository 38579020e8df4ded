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

#include "rdma_security.h"

#define CANARY 0xC3
#define SENTINEL 0xDEADBEEFCAFEF00DULL


static const char *const kind_name[] = { "READ", "WRITE", "FADD", "CSWP" };



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

/* A test's start (its watchdog, the context up) and end (no failed op,
 * the context down, the watchdog off). */
void
ctx_begin(struct ctx *cx, unsigned int secs, const char *name)
{
	rds_test_watchdog(secs, name);
	CU_ASSERT_FATAL(ctx_up(cx));
}

void
ctx_end(struct ctx *cx)
{
	CU_ASSERT_EQUAL(cx->fails, 0);
	ctx_down(cx);
	rds_test_watchdog(0, NULL);
}

/* Register [addr, addr + bytes) on socket s and ship the cookie to the
 * server (which must receive it unchanged). */
uint64_t
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
void
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

/* Are the keys the device's (ib)? Then the library neither makes nor
 * checks them: the cases on keys say so and stop. */
bool
hardware_keys(void)
{
	if (!rdma_tr()->rkey_per_device)
		return false;
	printf("  %s: the device makes and checks the keys: not here\n",
	       rdma_tr()->name);
	return true;
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
		{ "predictor", test_predictor },
		{ "keys", test_keys },
		{ "key_source", test_key_source },
		{ "bad_keys", test_bad_keys },
		{ "stale_keys", test_stale_keys },
		{ NULL, NULL },
	};

	return rdma_main(argc, argv, "rdma_security", cases);
}

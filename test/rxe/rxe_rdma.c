/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDS RDMA over the ib transport against rxe (soft-RoCE), inside the test
 * VM (run-in-vm.sh): the semantics of the loop suite test/rdma/ (whose
 * helpers, rdma_common.c, are compiled in), here carried by real RC QPs.
 *
 * One process owns two local addresses on the rxe device,
 * RDS_IB_ADDR_A (the client, owner of the memory) and RDS_IB_ADDR_B (the
 * server, which runs the operations); every socket is pinned to
 * RDS_TRANS_IB, so each operation is a verbs work request on the B->A
 * connection and the region a verbs MR (zero-based, whole pages).
 *
 *   flow_read / flow_write: sizes 1 B .. 1 MiB, regions registered with
 *     RDS_GET_MR at in-page offsets 0 and 100 and with RDS_CMSG_RDMA_MAP,
 *     the server's side split into up to 512 iovecs of mixed sizes with
 *     canary gaps; byte-for-byte data, exactly one RDS_RDMA_SUCCESS
 *     (NOTIFY_ME), the "RDMA ACK" reaching the client after the data.
 *   atomics: FADD and CSWP (hit and miss), old values; masked variants
 *     refused with EOPNOTSUPP at sendmsg (plain verbs has none).
 *   sec_*: forbidden operations (offset past the pages, freed cookie,
 *     USE_ONCE twice, forged keys, closed socket's cookie, WRITE to a
 *     read-only region): one RDS_RDMA_REMOTE_ERROR (RDS_RECVERR), the
 *     message not delivered, nothing outside changed (guard pages,
 *     canaries); over ib the failure puts the QP in error, so each one
 *     also proves that the connection resets and carries the next message.
 *   ib_readonly: a read-only region on PROT_READ memory is registered
 *     (without LOCAL_WRITE) and serves READs; READWRITE on it: EFAULT.
 *   ib_cache_remap: the registration cache hands a range back while it
 *     is the same memory, and never after munmap + a new mapping there.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/mman.h>

#include <CUnit/CUnit.h>

#include <rte_errno.h>
#include <rte_rds.h>
#include <rte_rds_ib.h>

#include "rdma_common.h"

#define CLI_PORT 4001
#define SRV_PORT 4002
#define CLI2_PORT 4011
#define WAIT_MS 30000		/* TCG is slow; a reset and reconnect too */
#define BUFSZ (8 << 20)

static const char *addr_a, *addr_b;

/* ------------------------------------------------------------------ */
/* Set-up */

static int
ib_sock(const char *ip, uint16_t port)
{
	struct sockaddr_in sin = rds_test_sin(ip, port);
	int s = rte_rds_socket(), t = RDS_TRANS_IB, sz = BUFSZ;

	if (s < 0)
		return -1;
	if (rte_rds_setsockopt(s, SOL_RDS, SO_RDS_TRANSPORT, &t,
			       sizeof(t)) != 0 ||
	    rte_rds_setsockopt(s, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz)) != 0 ||
	    rte_rds_setsockopt(s, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz)) != 0 ||
	    rte_rds_bind(s, (struct sockaddr *)&sin, sizeof(sin)) != 0) {
		printf("  ib socket %s:%u: %s\n", ip, port,
		       rte_strerror(rte_errno));
		rte_rds_close(s);
		return -1;
	}
	return s;
}

static bool
env_up(struct rdma_env *env)
{
	struct rte_rds_conf conf;

	env->cli = -1;
	env->srv = -1;
	rte_rds_conf_init(&conf);
	conf.engine[0].lcore_id = RTE_RDS_ENGINE_INLINE;
	conf.engine[0].idle = RTE_RDS_IDLE_YIELD;
	if (rte_rds_conf_add_addr(&conf, addr_a, "ib", NULL) != 0 ||
	    rte_rds_conf_add_addr(&conf, addr_b, "ib", NULL) != 0 ||
	    rds_test_lib_init(&conf) != 0)
		return false;
	env->ca = rds_test_sin(addr_a, CLI_PORT);
	env->sa = rds_test_sin(addr_b, SRV_PORT);
	env->cli = ib_sock(addr_a, CLI_PORT);
	env->srv = ib_sock(addr_b, SRV_PORT);
	if (env->cli < 0 || env->srv < 0) {
		rdma_env_down(env);
		return false;
	}
	return true;
}

static void
print_ib_stats(const char *what)
{
	struct rte_rds_ib_stats ib;
	struct rte_rds_stats s = rds_test_stats();

	if (rte_rds_ib_stats_get(&ib) != 0)
		return;
	printf("  %s: ib connects %" PRIu64 "/%" PRIu64 " qp_errors %" PRIu64
	       " tx %" PRIu64 " rx %" PRIu64 "; resets %" PRIu64
	       " retransmitted %" PRIu64 "\n", what, ib.connects_active,
	       ib.connects_passive, ib.qp_errors, ib.tx_frames, ib.rx_frames,
	       s.s_conn_reset, s.s_send_retransmit);
}

/* ------------------------------------------------------------------ */
/* READ and WRITE: the rds-rdma(7) flow */

enum reg_method { REG_GET_MR, REG_MAP };

static const char *const reg_name[] = { "GET_MR", "RDMA_MAP" };

/*
 * One exchange: the client registers size bytes at in-page offset off of
 * a guarded area and ships the cookie; the server answers with the RDMA
 * ACK carrying the operation over nseg iovecs. Returns true if all held.
 */
static bool
transfer(const struct rdma_env *env, size_t size, uint32_t off,
	 enum reg_method method, bool write, size_t nseg, uint64_t id)
{
	size_t npages = (off + size + RDMA_PAGE - 1) / RDMA_PAGE;
	struct rds_rdma_notify nt[8];
	struct rdma_guard g;
	struct rds_rdma_args a;
	struct rds_iovec *iov = NULL;
	struct rdma_rx rx;
	uint8_t *before = NULL, *local = NULL, *want = NULL, *got = NULL;
	uint8_t *region;
	char req[64], ack[64], buf[128];
	uint64_t cookie = 0, token = 0xF1000000000000ULL | id;
	uint64_t flags = write ? RDS_RDMA_READWRITE : 0, t0;
	unsigned int nnt, n, fails = 0;
	size_t space = 0;
	long d;
	ssize_t r;

	if (rdma_guard_alloc(&g, npages) != 0) {
		CU_FAIL("guard alloc");
		return false;
	}
	region = g.pages + off;
	rds_test_fill(g.pages, g.len, id * 7919 + 1);
	before = malloc(g.len);
	want = malloc(size);
	got = malloc(size);
	iov = calloc(nseg, sizeof(*iov));
	space = rdma_scatter_space(size, nseg);
	local = malloc(space);
	if (before == NULL || want == NULL || got == NULL || iov == NULL ||
	    local == NULL) {
		CU_FAIL("malloc");
		fails++;
		goto out;
	}
	memcpy(before, g.pages, g.len);
	t0 = rds_test_now_ns();

	/* 1. The client registers and ships the cookie. */
	snprintf(req, sizeof(req), "RDMA REQ %" PRIu64, id);
	if (method == REG_GET_MR) {
		if (rdma_get_mr(env->cli, region, size, flags, &cookie) != 0) {
			printf("  RDS_GET_MR: %s\n", rte_strerror(rte_errno));
			fails++;
			goto out;
		}
		r = rdma_send_dest(env->cli, &env->sa, req, strlen(req),
				   cookie);
	} else {
		r = rdma_send_map(env->cli, &env->sa, req, strlen(req), region,
				  size, flags, &cookie);
	}
	if (r != (ssize_t)strlen(req)) {
		printf("  request sendmsg (%s): %zd %s\n", reg_name[method], r,
		       rte_strerror(rte_errno));
		fails++;
		goto out;
	}
	if (rdma_cookie_key(cookie) == 0 ||
	    rdma_cookie_off(cookie) != off) {
		printf("  cookie %#" PRIx64 ": want a key and offset %u\n",
		       cookie, off);
		fails++;
	}

	/* 2. The server gets it as RDS_CMSG_RDMA_DEST. */
	if (!rdma_wait_msg(env->srv, buf, sizeof(buf), WAIT_MS, &rx, NULL,
			   NULL, 0)) {
		printf("  server: no request\n");
		fails++;
		goto out;
	}
	if (rx.ret != (ssize_t)strlen(req) ||
	    memcmp(buf, req, strlen(req)) != 0 ||
	    !rds_test_sin_eq(&rx.from, &env->ca) || !rx.has_dest ||
	    rx.ndest != 1 || rx.dest != cookie) {
		printf("  server: bad request (ret %zd, dest %d/%#" PRIx64
		       ", cookie %#" PRIx64 ")\n", rx.ret, rx.has_dest,
		       rx.dest, cookie);
		fails++;
		goto out;
	}

	/* 3. The RDMA ACK with the operation. */
	nseg = rdma_scatter(local, size, nseg, id ^ 0x5eed, 0xA5, iov);
	if (write) {
		for (n = 0; n < nseg; n++)
			rds_test_fill((void *)(uintptr_t)iov[n].addr,
				      iov[n].bytes, id * 31 + n + 7);
		rdma_gather(iov, nseg, want);
	} else {
		for (n = 0; n < nseg; n++)
			memset((void *)(uintptr_t)iov[n].addr, 0x5A,
			       iov[n].bytes);
		memcpy(want, region, size);
	}
	memset(&a, 0, sizeof(a));
	a.cookie = rx.dest;
	a.remote_vec.addr = 0;
	a.remote_vec.bytes = size;
	a.local_vec_addr = (uint64_t)(uintptr_t)iov;
	a.nr_local = nseg;
	a.flags = flags | RDS_RDMA_NOTIFY_ME;
	a.user_token = token;
	snprintf(ack, sizeof(ack), "RDMA ACK %" PRIu64, id);
	r = rdma_send_args(env->srv, &env->ca, ack, strlen(ack), &a);
	if (r != (ssize_t)strlen(ack)) {
		printf("  ACK sendmsg: %zd %s\n", r, rte_strerror(rte_errno));
		fails++;
		goto out;
	}

	/* 4. The client gets the ACK: the data is in place by then. */
	if (!rdma_wait_msg(env->cli, buf, sizeof(buf), WAIT_MS, &rx, NULL,
			   NULL, 0)) {
		printf("  client: no RDMA ACK\n");
		fails++;
		goto out;
	}
	if (rx.ret != (ssize_t)strlen(ack) ||
	    memcmp(buf, ack, strlen(ack)) != 0 ||
	    !rds_test_sin_eq(&rx.from, &env->sa) || rx.has_dest) {
		printf("  client: bad ACK (ret %zd)\n", rx.ret);
		fails++;
	}
	if (write) {
		d = rdma_first_diff(region, want, size);
		if (d >= 0) {
			printf("  WRITE: byte %ld of the region differs at "
			       "the ACK\n", d);
			fails++;
		}
		if (memcmp(g.pages, before, off) != 0 ||
		    memcmp(region + size, before + off + size,
			   g.len - off - size) != 0) {
			printf("  WRITE: page bytes outside the target "
			       "changed\n");
			fails++;
		}
	} else {
		rdma_gather(iov, nseg, got);
		d = rdma_first_diff(got, want, size);
		if (d >= 0) {
			printf("  READ: byte %ld of the server's iovecs "
			       "differs when the client has the ACK\n", d);
			fails++;
		}
		if (memcmp(g.pages, before, g.len) != 0) {
			printf("  READ changed the client's pages\n");
			fails++;
		}
	}

	/* 5. Exactly one notification, SUCCESS. */
	nnt = rdma_collect(env->srv, nt, RTE_DIM(nt), 1, 0, WAIT_MS, 1024,
			   NULL);
	if (nnt != 1 || nt[0].user_token != token ||
	    nt[0].status != RDS_RDMA_SUCCESS) {
		printf("  %u notifications (first token %#" PRIx64
		       " status %d), want one SUCCESS %#" PRIx64 "\n", nnt,
		       nnt ? (uint64_t)nt[0].user_token : 0,
		       nnt ? nt[0].status : -1, token);
		fails++;
	}
	if (!write) {
		/* After the notification at the latest. */
		rdma_gather(iov, nseg, got);
		d = rdma_first_diff(got, want, size);
		if (d >= 0) {
			printf("  READ: byte %ld differs after the "
			       "notification\n", d);
			fails++;
		}
	} else {
		/* The source iovecs are untouched. */
		rdma_gather(iov, nseg, got);
		if (memcmp(got, want, size) != 0) {
			printf("  WRITE changed its source\n");
			fails++;
		}
	}
	if (!rdma_scatter_canary_ok(local, space, iov, nseg, 0xA5))
		fails++;
	if (!rdma_quiet(env->srv, 50) || !rdma_quiet(env->cli, 0))
		fails++;

	/* 6. The client frees its region. */
	if (rdma_free_mr(env->cli, cookie, RDS_RDMA_INVALIDATE) != 0) {
		printf("  FREE_MR: %s\n", rte_strerror(rte_errno));
		fails++;
	}
	printf("  %s %7zu B at +%-3u via %-8s in %3zu iovecs: %s "
	       "(%.3f s)\n", write ? "WRITE" : "READ ", size, off,
	       reg_name[method], nseg, fails ? "FAILED" : "ok",
	       rds_test_since_s(t0));
out:
	free(before);
	free(want);
	free(got);
	free(iov);
	free(local);
	rdma_guard_free(&g);
	return fails == 0;
}

static void
run_flow(bool write)
{
	static const size_t sizes[] = { 1, 7, 4095, 4096, 4097, 65536,
					1u << 20 };
	struct rdma_env env;
	unsigned int si, fails = 0;
	uint64_t id = write ? 1000 : 0;

	rds_test_watchdog(500, write ? "flow_write" : "flow_read");
	CU_ASSERT_FATAL(env_up(&env));
	for (si = 0; si < RTE_DIM(sizes); si++) {
		size_t z = sizes[si];

		/* Offset 0, 512 (or size) iovecs; offset 100, 61. */
		if (!transfer(&env, z, 0, REG_GET_MR, write,
			      z < 512 ? z : 512, ++id))
			fails++;
		if (!transfer(&env, z, 100, REG_GET_MR, write,
			      z < 61 ? z : 61, ++id))
			fails++;
		/* RDS_CMSG_RDMA_MAP, a few iovecs. */
		if (z == 4097 || z == 1u << 20) {
			id++;
			if (!transfer(&env, z, 100, REG_MAP, write,
				      1 + id % 3, id))
				fails++;
		}
	}
	CU_ASSERT_EQUAL(fails, 0);
	print_ib_stats(write ? "flow_write" : "flow_read");
	{
		struct rte_rds_ib_stats ib;

		/* No operation failed on the wire. */
		CU_ASSERT(rte_rds_ib_stats_get(&ib) == 0 && ib.qp_errors == 0);
	}
	rdma_env_down(&env);
	rds_test_watchdog(0, NULL);
}

static void
test_flow_read(void)
{
	run_flow(false);
}

static void
test_flow_write(void)
{
	run_flow(true);
}

/* ------------------------------------------------------------------ */
/* Atomics */

/* Ship a cookie from socket s (address from) to the server. */
static bool
ship(const struct rdma_env *env, int s, const struct sockaddr_in *from,
     uint64_t cookie)
{
	struct rdma_rx rx;
	char buf[16];

	if (rdma_send_dest(s, &env->sa, "COOKIE", 6, cookie) != 6)
		return false;
	if (!rdma_wait_msg(env->srv, buf, sizeof(buf), WAIT_MS, &rx, NULL,
			   NULL, 0))
		return false;
	return rx.has_dest && rx.dest == cookie &&
	       rds_test_sin_eq(&rx.from, from);
}

/*
 * One atomic (type) at remote offset roff of cookie; the word it lands
 * on is target. Checks the old value, the new one, that nothing else
 * moved, one SUCCESS notification and the message reaching the client
 * after the update.
 */
static bool
atomic_op(const struct rdma_env *env, const struct rdma_guard *g,
	  int type, uint64_t cookie, uint64_t roff, uint8_t *target,
	  uint64_t arg1, uint64_t arg2, unsigned int seq)
{
	struct rds_atomic_args a;
	struct rds_rdma_notify nt[4];
	struct rdma_rx rx;
	uint8_t *snap = malloc(g->len);
	uint64_t old, now, want, result = 0xDEADBEEFCAFEF00DULL;
	uint64_t token = 0xA70000 + seq;
	size_t pre = (size_t)(target - g->pages);
	unsigned int nnt, fails = 0;
	char msg[32], buf[64];
	const char *name = type == RDS_CMSG_ATOMIC_FADD ? "FADD" : "CSWP";

	CU_ASSERT_FATAL(snap != NULL);
	memcpy(snap, g->pages, g->len);
	memcpy(&old, target, 8);
	memset(&a, 0, sizeof(a));
	a.cookie = cookie;
	a.local_addr = (uint64_t)(uintptr_t)&result;
	a.remote_addr = roff;
	a.flags = RDS_RDMA_NOTIFY_ME;
	a.user_token = token;
	if (type == RDS_CMSG_ATOMIC_FADD) {
		a.fadd.add = arg1;
		want = old + arg1;
	} else {
		a.cswp.compare = arg1;
		a.cswp.swap = arg2;
		want = old == arg1 ? arg2 : old;
	}
	snprintf(msg, sizeof(msg), "ATOMIC %u", seq);
	if (rdma_send_atomic(env->srv, &env->ca, msg, strlen(msg), type,
			     &a) != (ssize_t)strlen(msg)) {
		printf("  %s: sendmsg: %s\n", name, rte_strerror(rte_errno));
		fails++;
		goto out;
	}
	if (!rdma_wait_msg(env->cli, buf, sizeof(buf), WAIT_MS, &rx, NULL,
			   NULL, 0) || rx.ret != (ssize_t)strlen(msg) ||
	    memcmp(buf, msg, strlen(msg)) != 0) {
		printf("  %s: client did not get '%s'\n", name, msg);
		fails++;
		goto out;
	}
	/* The message is there: so is the new value. */
	memcpy(&now, target, 8);
	if (now != want) {
		printf("  %s at +%" PRIu64 ": word %#" PRIx64 ", want %#"
		       PRIx64 "\n", name, roff, now, want);
		fails++;
	}
	if (memcmp(g->pages, snap, pre) != 0 ||
	    memcmp(target + 8, snap + pre + 8, g->len - pre - 8) != 0) {
		printf("  %s: bytes around the word changed\n", name);
		fails++;
	}
	nnt = rdma_collect(env->srv, nt, RTE_DIM(nt), 1, 0, WAIT_MS, 1024,
			   NULL);
	if (nnt != 1 || nt[0].user_token != token ||
	    nt[0].status != RDS_RDMA_SUCCESS) {
		printf("  %s: %u notifications (status %d), want one "
		       "SUCCESS\n", name, nnt, nnt ? nt[0].status : -1);
		fails++;
	}
	if (result != old) {
		printf("  %s: old value %#" PRIx64 ", want %#" PRIx64 "\n",
		       name, result, old);
		fails++;
	}
	if (!rdma_quiet(env->srv, 20) || !rdma_quiet(env->cli, 0))
		fails++;
	printf("  %s +%-4" PRIu64 " %#018" PRIx64 " -> %#018" PRIx64
	       " (old %#" PRIx64 "): %s\n", name, roff, old, now, result,
	       fails ? "FAILED" : "ok");
out:
	free(snap);
	return fails == 0;
}

static void
test_atomics(void)
{
	struct rdma_env env;
	struct rdma_guard g;
	struct rds_atomic_args a;
	uint64_t c, c100, v;
	unsigned int seq = 0, fails = 0;
	uint8_t *p;

	rds_test_watchdog(300, "atomics");
	CU_ASSERT_FATAL(env_up(&env));
	CU_ASSERT_FATAL(rdma_guard_alloc(&g, 2) == 0);
	p = g.pages;
	rds_test_fill(p, g.len, 0xA7);
	CU_ASSERT_FATAL(rdma_get_mr(env.cli, p, g.len, RDS_RDMA_READWRITE,
				    &c) == 0);
	CU_ASSERT_FATAL(ship(&env, env.cli, &env.ca, c));

	/* FADD: small, carrying across 32 bits, wrapping 64 bits, last
	 * word of the pages. */
	v = 40;
	memcpy(p, &v, 8);
	fails += !atomic_op(&env, &g, RDS_CMSG_ATOMIC_FADD, c, 0, p, 2, 0,
			    ++seq);
	fails += !atomic_op(&env, &g, RDS_CMSG_ATOMIC_FADD, c, 0, p, 100, 0,
			    ++seq);
	v = 0xFFFFFFFFULL;
	memcpy(p + 8, &v, 8);
	fails += !atomic_op(&env, &g, RDS_CMSG_ATOMIC_FADD, c, 8, p + 8, 1, 0,
			    ++seq);
	v = ~0ULL;
	memcpy(p + 16, &v, 8);
	fails += !atomic_op(&env, &g, RDS_CMSG_ATOMIC_FADD, c, 16, p + 16, 3,
			    0, ++seq);
	fails += !atomic_op(&env, &g, RDS_CMSG_ATOMIC_FADD, c, g.len - 8,
			    p + g.len - 8, 0x0101010101010101ULL, 0, ++seq);
	fails += !atomic_op(&env, &g, RDS_CMSG_ATOMIC_FADD, c, 4096,
			    p + 4096, 0, 0, ++seq);

	/* CSWP: hit, miss, hit again on the swapped value. */
	memcpy(&v, p, 8);		/* 142 */
	CU_ASSERT_EQUAL(v, 142);
	fails += !atomic_op(&env, &g, RDS_CMSG_ATOMIC_CSWP, c, 0, p, 142, 7,
			    ++seq);
	fails += !atomic_op(&env, &g, RDS_CMSG_ATOMIC_CSWP, c, 0, p, 142, 9,
			    ++seq);
	fails += !atomic_op(&env, &g, RDS_CMSG_ATOMIC_CSWP, c, 0, p, 7,
			    0x1122334455667788ULL, ++seq);
	memcpy(&v, p, 8);
	CU_ASSERT_EQUAL(v, 0x1122334455667788ULL);
	memcpy(&v, p + 4088, 8);
	fails += !atomic_op(&env, &g, RDS_CMSG_ATOMIC_CSWP, c, 4088,
			    p + 4088, v + 1, 5, ++seq);	/* miss */
	fails += !atomic_op(&env, &g, RDS_CMSG_ATOMIC_CSWP, c, 4088,
			    p + 4088, v, 5, ++seq);	/* hit */

	/* A region at in-page offset 100: remote_addr 4 is page + 104. */
	CU_ASSERT_FATAL(rdma_get_mr(env.cli, p + 100, 1000,
				    RDS_RDMA_READWRITE, &c100) == 0);
	CU_ASSERT_EQUAL(rdma_cookie_off(c100), 100);
	CU_ASSERT_FATAL(ship(&env, env.cli, &env.ca, c100));
	fails += !atomic_op(&env, &g, RDS_CMSG_ATOMIC_FADD, c100, 4, p + 104,
			    5, 0, ++seq);
	memcpy(&v, p + 104, 8);
	fails += !atomic_op(&env, &g, RDS_CMSG_ATOMIC_CSWP, c100, 4, p + 104,
			    v, 77, ++seq);
	CU_ASSERT_EQUAL(fails, 0);

	/* Masked atomics: refused at sendmsg, nothing queued. */
	memset(&a, 0, sizeof(a));
	v = 0;
	a.cookie = c;
	a.local_addr = (uint64_t)(uintptr_t)&v;
	a.remote_addr = 0;
	a.m_fadd.add = 1;
	a.m_fadd.nocarry_mask = ~0ULL;
	a.flags = RDS_RDMA_NOTIFY_ME;
	CU_ASSERT_EQUAL(rdma_send_atomic(env.srv, &env.ca, "M", 1,
					 RDS_CMSG_MASKED_ATOMIC_FADD, &a), -1);
	CU_ASSERT_EQUAL(rte_errno, EOPNOTSUPP);
	memset(&a, 0, sizeof(a));
	a.cookie = c;
	a.local_addr = (uint64_t)(uintptr_t)&v;
	a.m_cswp.compare = 0;
	a.m_cswp.swap = 1;
	a.m_cswp.compare_mask = ~0ULL;
	a.m_cswp.swap_mask = ~0ULL;
	a.flags = RDS_RDMA_NOTIFY_ME;
	CU_ASSERT_EQUAL(rdma_send_atomic(env.srv, &env.ca, "M", 1,
					 RDS_CMSG_MASKED_ATOMIC_CSWP, &a), -1);
	CU_ASSERT_EQUAL(rte_errno, EOPNOTSUPP);
	CU_ASSERT(rdma_quiet(env.srv, 200));
	CU_ASSERT(rdma_quiet(env.cli, 0));
	memcpy(&v, p, 8);
	CU_ASSERT_EQUAL(v, 0x1122334455667788ULL);
	/* And the connection still works. */
	CU_ASSERT(rdma_sendmsg(env.srv, &env.ca, "after", 5, NULL, 0) == 5);
	{
		struct rdma_rx rx;
		char buf[16];

		CU_ASSERT(rdma_wait_msg(env.cli, buf, sizeof(buf), WAIT_MS,
					&rx, NULL, NULL, 0) && rx.ret == 5);
	}
	CU_ASSERT_EQUAL(rdma_free_mr(env.cli, c, RDS_RDMA_INVALIDATE), 0);
	CU_ASSERT_EQUAL(rdma_free_mr(env.cli, c100, RDS_RDMA_INVALIDATE), 0);
	print_ib_stats("atomics");
	rdma_guard_free(&g);
	rdma_env_down(&env);
	rds_test_watchdog(0, NULL);
}

/* ------------------------------------------------------------------ */
/* Security */

#define NPAGES 4
#define REGION_LEN (NPAGES * RDMA_PAGE)
#define CANARY 0xC3
#define SENTINEL 0xDEADBEEFCAFEF00DULL

enum kind { K_READ, K_WRITE, K_FADD, K_CSWP };

static const char *const kind_name[] = { "READ", "WRITE", "FADD", "CSWP" };

struct ctx {
	struct rdma_env env;
	struct rdma_guard g;	/* the client's pages */
	uint8_t *snap;
	uint8_t *local;		/* the server's iovec area */
	size_t local_space;
	unsigned int seq;
	unsigned int fails;
	unsigned int errors;	/* REMOTE_ERRORs seen */
	double worst_recover;	/* slowest op + SYNC after an error, s */
};

struct dest {
	const struct sockaddr_in *op_to;
	const struct sockaddr_in *sync_to;
	int sync_sock;
};

static bool
ctx_up(struct ctx *cx)
{
	memset(cx, 0, sizeof(*cx));
	if (!env_up(&cx->env))
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
	printf("  %u REMOTE_ERRORs, slowest failed op to its SYNC %.2f s\n",
	       cx->errors, cx->worst_recover);
	print_ib_stats("security");
	rdma_env_down(&cx->env);
	free(cx->snap);
	free(cx->local);
	rdma_guard_free(&cx->g);
}

static uint64_t
reg(struct ctx *cx, int s, const struct sockaddr_in *from, const void *addr,
    uint64_t bytes, uint64_t flags)
{
	uint64_t cookie = 0;

	if (rdma_get_mr(s, addr, bytes, flags, &cookie) != 0) {
		printf("  RDS_GET_MR: %s\n", rte_strerror(rte_errno));
		CU_FAIL("RDS_GET_MR");
		return 0;
	}
	CU_ASSERT(ship(&cx->env, s, from, cookie));
	return cookie;
}

/*
 * One op (server -> op_to) then a plain SYNC (server -> sync_to): the op
 * allowed (ok: its message then SYNC reach the client, the bytes move,
 * no notification) or refused (one REMOTE_ERROR, only SYNC arrives,
 * nothing changed anywhere). target: where an allowed op lands.
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
	uint64_t result = SENTINEL, token = 0x5EC0000ULL + cx->seq, t0;
	unsigned int nnt, fails = 0, i;
	size_t nseg = 0;
	char msg[32], sync[32], buf[64];
	ssize_t r;

	cx->seq++;
	t0 = rds_test_now_ns();
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
		rdma_gather(iov, nseg, want);
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
		printf("  %s: SYNC sendmsg: %s\n", what,
		       rte_strerror(rte_errno));
		fails++;
		goto out;
	}
	if (ok && d->op_to == d->sync_to) {
		if (!rdma_wait_msg(d->sync_sock, buf, sizeof(buf) - 1,
				   WAIT_MS, &rx, NULL, NULL, 0) ||
		    rx.ret != (ssize_t)strlen(msg) ||
		    memcmp(buf, msg, strlen(msg)) != 0) {
			printf("  %s: allowed op's message missing\n", what);
			fails++;
		}
	}
	if (!rdma_wait_msg(d->sync_sock, buf, sizeof(buf) - 1, WAIT_MS, &rx,
			   NULL, NULL, 0)) {
		printf("  %s: SYNC missing after %.1f s (connection did not "
		       "recover?)\n", what, rds_test_since_s(t0));
		fails++;
	} else if (rx.ret != (ssize_t)strlen(sync) ||
		   memcmp(buf, sync, strlen(sync)) != 0) {
		buf[rx.ret >= 0 ? rx.ret : 0] = '\0';
		printf("  %s: client got '%s' instead of '%s'%s\n", what, buf,
		       sync, ok ? "" : " (message of a failed op delivered)");
		fails++;
	}
	nnt = rdma_collect(cx->env.srv, nt, RTE_DIM(nt), ok ? 0 : 1, 50,
			   WAIT_MS, 1024, NULL);
	if (!ok) {
		if (nnt != 1 || nt[0].user_token != token ||
		    nt[0].status != RDS_RDMA_REMOTE_ERROR) {
			printf("  %s: %u notifications (first token %#llx "
			       "status %d), want one REMOTE_ERROR\n", what,
			       nnt, nnt ? (unsigned long long)nt[0].user_token :
			       0ULL, nnt ? nt[0].status : -1);
			fails++;
		} else {
			cx->errors++;
		}
		if (!rdma_quiet(cx->env.srv, 50))
			fails++;
		/* The op's message does not come late either. */
		if (!rdma_quiet(d->sync_sock, 50))
			fails++;
		if (rds_test_since_s(t0) > cx->worst_recover)
			cx->worst_recover = rds_test_since_s(t0);
	} else if (nnt != 0) {
		printf("  %s: allowed op notified (status %d)\n", what,
		       nt[0].status);
		fails++;
	}
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
		if ((!ok || k == K_WRITE) && memcmp(got, want, len) != 0) {
			printf("  %s: server iovecs changed\n", what);
			fails++;
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
	printf("  %-52s %-5s %s: %s (%.2f s)\n", what, kind_name[k],
	       ok ? "allowed" : "refused", fails ? "FAILED" : "ok",
	       rds_test_since_s(t0));
	cx->fails += fails;
	free(want);
	free(got);
}

#define DEST_CLIENT(cx) { &(cx)->env.ca, &(cx)->env.ca, (cx)->env.cli }

/* Offset or length past the registered pages. */
static void
test_sec_bounds(void)
{
	struct ctx cx;
	uint64_t c;

	rds_test_watchdog(400, "sec_bounds");
	CU_ASSERT_FATAL(ctx_up(&cx));
	{
		struct dest d = DEST_CLIENT(&cx);
		uint8_t *p = cx.g.pages;

		c = reg(&cx, cx.env.cli, &cx.env.ca, p, REGION_LEN,
			RDS_RDMA_READWRITE);
		CU_ASSERT_EQUAL(rdma_cookie_off(c), 0);
		run_op(&cx, &d, K_READ, c, 0, REGION_LEN, true, p,
		       "READ whole region");
		run_op(&cx, &d, K_WRITE, c, REGION_LEN - 1, 1, true,
		       p + REGION_LEN - 1, "WRITE last byte");
		run_op(&cx, &d, K_READ, c, REGION_LEN, 1, false, NULL,
		       "READ offset = region length");
		run_op(&cx, &d, K_WRITE, c, REGION_LEN, 1, false, NULL,
		       "WRITE offset = region length");
		run_op(&cx, &d, K_WRITE, c, REGION_LEN + 4096, 4096, false,
		       NULL, "WRITE a page past the region");
		run_op(&cx, &d, K_WRITE, c, REGION_LEN - 4096 + 1, 4096,
		       false, NULL, "WRITE ends 1 byte past");
		run_op(&cx, &d, K_READ, c, 0, REGION_LEN + 1, false, NULL,
		       "READ region length + 1");
		run_op(&cx, &d, K_WRITE, c, 1ULL << 40, 64, false, NULL,
		       "WRITE offset 2^40");
		run_op(&cx, &d, K_FADD, c, REGION_LEN, 0, false, NULL,
		       "FADD offset = region length");
		/* Still usable after all those resets. */
		run_op(&cx, &d, K_WRITE, c, 0, REGION_LEN, true, p,
		       "WRITE whole region after the errors");
		run_op(&cx, &d, K_FADD, c, REGION_LEN - 8, 0, true,
		       p + REGION_LEN - 8, "FADD last word after the errors");
		CU_ASSERT_EQUAL(rdma_free_mr(cx.env.cli, c,
					     RDS_RDMA_INVALIDATE), 0);
	}
	CU_ASSERT_EQUAL(cx.fails, 0);
	ctx_down(&cx);
	rds_test_watchdog(0, NULL);
}

/* A cookie freed with RDS_FREE_MR + RDS_RDMA_INVALIDATE. */
static void
test_sec_freed(void)
{
	struct ctx cx;
	uint64_t c;

	rds_test_watchdog(300, "sec_freed");
	CU_ASSERT_FATAL(ctx_up(&cx));
	{
		struct dest d = DEST_CLIENT(&cx);
		uint8_t *p = cx.g.pages;

		c = reg(&cx, cx.env.cli, &cx.env.ca, p, REGION_LEN,
			RDS_RDMA_READWRITE);
		run_op(&cx, &d, K_WRITE, c, 0, 100, true, p,
		       "WRITE before FREE_MR");
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
		/* The pages registered again work (a new key). */
		{
			uint64_t c2 = reg(&cx, cx.env.cli, &cx.env.ca, p,
					  REGION_LEN, RDS_RDMA_READWRITE);

			CU_ASSERT_NOT_EQUAL(rdma_cookie_key(c2),
					    rdma_cookie_key(c));
			run_op(&cx, &d, K_WRITE, c2, 8, 64, true, p + 8,
			       "WRITE with a new registration");
			run_op(&cx, &d, K_WRITE, c, 0, 8, false, NULL,
			       "WRITE with the freed cookie again");
			CU_ASSERT_EQUAL(rdma_free_mr(cx.env.cli, c2,
						     RDS_RDMA_INVALIDATE), 0);
		}
	}
	CU_ASSERT_EQUAL(cx.fails, 0);
	ctx_down(&cx);
	rds_test_watchdog(0, NULL);
}

/* USE_ONCE: the receiver deregisters it when the op's message arrives. */
static void
test_sec_use_once(void)
{
	struct ctx cx;
	uint64_t c;

	rds_test_watchdog(300, "sec_use_once");
	CU_ASSERT_FATAL(ctx_up(&cx));
	{
		struct dest d = DEST_CLIENT(&cx);
		uint8_t *p = cx.g.pages;

		c = reg(&cx, cx.env.cli, &cx.env.ca, p, REGION_LEN,
			RDS_RDMA_READWRITE | RDS_RDMA_USE_ONCE);
		run_op(&cx, &d, K_WRITE, c, 100, 1000, true, p + 100,
		       "USE_ONCE first use (WRITE)");
		/* Gone once the op's message arrived (rds_rdma_unuse). */
		CU_ASSERT_EQUAL(rdma_free_mr(cx.env.cli, c, 0), -1);
		CU_ASSERT_EQUAL(rte_errno, EINVAL);
		run_op(&cx, &d, K_READ, c, 100, 1000, false, NULL,
		       "USE_ONCE second use (READ)");
		run_op(&cx, &d, K_WRITE, c, 0, 8, false, NULL,
		       "USE_ONCE third use (WRITE)");
		c = reg(&cx, cx.env.cli, &cx.env.ca, p, REGION_LEN,
			RDS_RDMA_USE_ONCE);
		run_op(&cx, &d, K_READ, c, 0, REGION_LEN, true, p,
		       "USE_ONCE first use (READ, read-only)");
		run_op(&cx, &d, K_READ, c, 0, 8, false, NULL,
		       "USE_ONCE second use (READ, read-only)");
		c = reg(&cx, cx.env.cli, &cx.env.ca, p, REGION_LEN,
			RDS_RDMA_READWRITE | RDS_RDMA_USE_ONCE);
		run_op(&cx, &d, K_FADD, c, 8, 0, true, p + 8,
		       "USE_ONCE first use (FADD)");
		run_op(&cx, &d, K_FADD, c, 8, 0, false, NULL,
		       "USE_ONCE second use (FADD)");
	}
	CU_ASSERT_EQUAL(cx.fails, 0);
	ctx_down(&cx);
	rds_test_watchdog(0, NULL);
}

/* Forged keys, while a valid region exists. */
static void
test_sec_forged(void)
{
	struct ctx cx;
	uint64_t c, forged, st = 0xF0463;
	unsigned int i;

	rds_test_watchdog(400, "sec_forged");
	CU_ASSERT_FATAL(ctx_up(&cx));
	{
		struct dest d = DEST_CLIENT(&cx);
		uint8_t *p = cx.g.pages;
		uint32_t key;

		c = reg(&cx, cx.env.cli, &cx.env.ca, p, REGION_LEN,
			RDS_RDMA_READWRITE);
		key = rdma_cookie_key(c);
		printf("  valid r_key %#x\n", key);
		for (i = 0; i < 3; i++) {
			do {
				forged = (uint32_t)rds_test_rand(&st);
			} while (forged == key);
			run_op(&cx, &d, i % 2 ? K_WRITE : K_READ, forged, 0,
			       64, false, NULL, "random key");
		}
		run_op(&cx, &d, K_WRITE, 0, 0, 64, false, NULL, "cookie 0");
		/* rxe's r_key is index << 8 | an 8-bit key: the right index
		 * with another key byte, and the next indexes. */
		run_op(&cx, &d, K_WRITE, key ^ 0x01, 0, 64, false, NULL,
		       "valid index, key byte ^ 1");
		run_op(&cx, &d, K_READ, key ^ 0x80, 0, 64, false, NULL,
		       "valid index, key byte ^ 0x80");
		run_op(&cx, &d, K_FADD, key ^ 0x01, 0, 0, false, NULL,
		       "valid index, key byte ^ 1 (FADD)");
		/* Valid key, offset field forged past the pages. */
		forged = key | ((uint64_t)REGION_LEN << 32);
		run_op(&cx, &d, K_READ, forged, 0, 1, false, NULL,
		       "valid key, offset field = region length");
		forged = key | (0xFFFFFFFFULL << 32);
		run_op(&cx, &d, K_WRITE, forged, 0, 1, false, NULL,
		       "valid key, offset field 2^32-1");
		run_op(&cx, &d, K_READ, c, 0, REGION_LEN, true, p,
		       "valid cookie after the forgeries");
		CU_ASSERT_EQUAL(rdma_free_mr(cx.env.cli, c,
					     RDS_RDMA_INVALIDATE), 0);
	}
	CU_ASSERT_EQUAL(cx.fails, 0);
	ctx_down(&cx);
	rds_test_watchdog(0, NULL);
}

/* The cookie of a socket that was closed. */
static void
test_sec_closed(void)
{
	struct sockaddr_in a2 = rds_test_sin(addr_a, CLI2_PORT);
	struct ctx cx;
	uint64_t c;
	int s2, s3;

	rds_test_watchdog(300, "sec_closed");
	CU_ASSERT_FATAL(ctx_up(&cx));
	{
		struct dest d = DEST_CLIENT(&cx);
		struct dest d2 = { &a2, &a2, -1 };
		uint8_t *p = cx.g.pages;

		s2 = ib_sock(addr_a, CLI2_PORT);
		CU_ASSERT_FATAL(s2 >= 0);
		c = reg(&cx, s2, &a2, p, REGION_LEN, RDS_RDMA_READWRITE);
		d2.sync_sock = s2;
		run_op(&cx, &d2, K_WRITE, c, 0, 64, true, p,
		       "cookie of an open socket");
		CU_ASSERT_EQUAL(rte_rds_close(s2), 0);
		s3 = ib_sock(addr_a, CLI2_PORT);
		CU_ASSERT_FATAL(s3 >= 0);
		d2.sync_sock = s3;
		run_op(&cx, &d2, K_WRITE, c, 0, 64, false, NULL,
		       "cookie of a closed socket (WRITE)");
		run_op(&cx, &d2, K_READ, c, 0, 64, false, NULL,
		       "cookie of a closed socket (READ)");
		run_op(&cx, &d, K_WRITE, c, 0, 64, false, NULL,
		       "cookie of a closed socket, other port");
		CU_ASSERT_EQUAL(rdma_free_mr(s3, c, 0), -1);
		CU_ASSERT_EQUAL(rte_errno, EINVAL);
		CU_ASSERT_EQUAL(rte_rds_close(s3), 0);
	}
	CU_ASSERT_EQUAL(cx.fails, 0);
	ctx_down(&cx);
	rds_test_watchdog(0, NULL);
}

/*
 * An atomic on a region registered without
 * RDS_RDMA_READWRITE. The loop transport's executor refuses it
 * (REMOTE_ERROR, test/rdma/rdma_security.c); over ib the region's MR
 * gets IBV_ACCESS_REMOTE_ATOMIC only with READWRITE (rds_ib_mr_reg): the
 * FADD must fail with REMOTE_ERROR and change nothing.
 */
static void
probe_atomic_readonly(struct ctx *cx, uint64_t c)
{
	struct rds_rdma_notify nt[4];
	struct rds_atomic_args a;
	struct rdma_rx rx;
	uint64_t result = SENTINEL, before, after;
	unsigned int nnt, got = 0;
	char buf[64];

	memcpy(&before, cx->g.pages + 64, 8);
	memset(&a, 0, sizeof(a));
	a.cookie = c;
	a.local_addr = (uint64_t)(uintptr_t)&result;
	a.remote_addr = 64;
	a.fadd.add = 1;
	a.user_token = 0xAB;
	if (rdma_send_atomic(cx->env.srv, &cx->env.ca, "PROBE", 5,
			     RDS_CMSG_ATOMIC_FADD, &a) != 5) {
		printf("  probe: FADD sendmsg: %s\n", rte_strerror(rte_errno));
		return;
	}
	CU_ASSERT(rdma_sendmsg(cx->env.srv, &cx->env.ca, "PSYNC", 5, NULL,
			       0) == 5);
	while (rdma_wait_msg(cx->env.cli, buf, sizeof(buf), WAIT_MS, &rx,
			     NULL, NULL, 0)) {
		got++;
		if (rx.ret == 5 && memcmp(buf, "PSYNC", 5) == 0)
			break;
	}
	nnt = rdma_collect(cx->env.srv, nt, RTE_DIM(nt), 1, 0, 2000, 1024,
			   NULL);
	memcpy(&after, cx->g.pages + 64, 8);
	printf("  FADD on a read-only region over ib: %s (status %d, "
	       "word %#" PRIx64 " -> %#" PRIx64 ", %u messages incl. SYNC)\n",
	       after != before ? "EXECUTED" : "refused",
	       nnt ? nt[0].status : -1, before, after, got);
	/* Atomics write: a region without READWRITE refuses them. */
	CU_ASSERT_EQUAL(after, before);
	CU_ASSERT(nnt == 1 && nt[0].status == RDS_RDMA_REMOTE_ERROR);
	CU_ASSERT_EQUAL(got, 1);	/* only the SYNC */
	/* Put the word back for the checks that follow. */
	memcpy(cx->g.pages + 64, &before, 8);
}

/* A region registered without RDS_RDMA_READWRITE. */
static void
test_sec_rights(void)
{
	struct ctx cx;
	uint64_t c;

	rds_test_watchdog(300, "sec_rights");
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
		run_op(&cx, &d, K_READ, c, 4096, 4096, true, p + 4096,
		       "READ of a read-only region again");
		probe_atomic_readonly(&cx, c);
		CU_ASSERT_EQUAL(rdma_free_mr(cx.env.cli, c, 0), 0);
	}
	CU_ASSERT_EQUAL(cx.fails, 0);
	ctx_down(&cx);
	rds_test_watchdog(0, NULL);
}

/*
 * ib registration of read-only memory: a region without READWRITE on
 * PROT_READ pages is registered without IBV_ACCESS_LOCAL_WRITE (with it,
 * ibv_reg_mr refuses read-only pages: EFAULT), and serves READs; a
 * READWRITE region on them is EFAULT (the core's check, as the kernel's
 * rds_pin_pages). Before, LOCAL_WRITE was always asked and GET_MR failed
 * with EINVAL (every ibv_reg_mr error but ENOMEM was EINVAL).
 */
static void
test_ib_readonly(void)
{
	struct ctx cx;
	uint64_t c = 0;
	uint8_t *ro;

	rds_test_watchdog(300, "ib_readonly");
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
 * The registration cache after munmap and a new mapping at the same
 * address: a region freed without INVALIDATE stays registered; while
 * the memory is the same, the same range comes back with the same key
 * (the cache works), but once the application unmapped it and mapped
 * new memory there, GET_MR must register the new pages: a peer's READ
 * sees the new content and its WRITE lands in the new memory. Before,
 * the cache (keyed by address, length and rights) handed back the old
 * registration, which still pointed at the old pages.
 */
static void
test_ib_cache_remap(void)
{
	struct ctx cx;
	uint64_t c1, c2, c3;
	uint8_t *p;
	void *m;

	rds_test_watchdog(300, "ib_cache_remap");
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
		if (rdma_cookie_key(c2) != rdma_cookie_key(c1))
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
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "flow_read", test_flow_read },
		{ "flow_write", test_flow_write },
		{ "atomics", test_atomics },
		{ "sec_bounds", test_sec_bounds },
		{ "sec_freed", test_sec_freed },
		{ "sec_use_once", test_sec_use_once },
		{ "sec_forged", test_sec_forged },
		{ "sec_closed", test_sec_closed },
		{ "sec_rights", test_sec_rights },
		{ "ib_readonly", test_ib_readonly },
		{ "ib_cache_remap", test_ib_cache_remap },
		{ NULL, NULL },
	};
	uint64_t t0;
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	addr_a = getenv("RDS_IB_ADDR_A");
	addr_b = getenv("RDS_IB_ADDR_B");
	if (addr_a == NULL || addr_b == NULL) {
		printf("SKIP: RDS_IB_ADDR_A/RDS_IB_ADDR_B not set: run me "
		       "through test/rxe/run-in-vm.sh (inside the rxe VM)\n");
		return 77;
	}
	rds_test_eal_init("rxe_rdma", "0");
	t0 = rds_test_now_ns();
	rc = rds_test_run_suite("rxe_rdma", cases);
	printf("rxe_rdma: suite ran %.1f s\n", rds_test_since_s(t0));
	rds_test_eal_fini();
	return rc;
}

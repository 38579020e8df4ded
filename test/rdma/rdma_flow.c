/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rds-rdma(7) flow, both ways, over the transport of the run (loop
 * or eth: --transport=, rdma_common.h).
 *
 * The client (address 1) registers a buffer inside a guarded mapping
 * (PROT_NONE pages right before and after), in one of three ways:
 *   - setsockopt RDS_GET_MR, then a message with RDS_CMSG_RDMA_DEST;
 *   - RDS_CMSG_RDMA_MAP on the request message itself;
 *   - setsockopt RDS_GET_MR_FOR_DEST, then RDS_CMSG_RDMA_DEST.
 * The server (address 2) receives the cookie as RDS_CMSG_RDMA_DEST,
 * equal to the client's (r_key | (addr & 4095) << 32), and answers with
 * the "RDMA ACK" message carrying RDS_CMSG_RDMA_ARGS:
 *   - READ (no READWRITE): client region -> server iovecs;
 *   - WRITE (RDS_RDMA_READWRITE; the client registered READWRITE):
 *     server iovecs -> client region.
 * The server's side is split into 1..512 iovecs of mixed sizes with
 * canary gaps between them. Sizes 1 B .. 1 MiB, in-page offsets 0, 1,
 * 100, 4095. When the client receives the ACK the data must already be in
 * place, byte for byte, with nothing else changed on either side, and the
 * server gets exactly one RDS_CMSG_RDMA_STATUS {token, SUCCESS}
 * (NOTIFY_ME).
 *
 * subrange: operations at offsets inside a larger region change exactly
 * the addressed bytes. swapped: the same flow with the roles exchanged
 * (the server's address owns the memory).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include <rte_errno.h>
#include <rte_rds.h>

#include "rdma_common.h"

enum reg_method { REG_GET_MR, REG_MAP, REG_FOR_DEST, REG_NB };

static const char *const reg_name[] = { "GET_MR", "RDMA_MAP",
					"GET_MR_FOR_DEST" };

struct side {
	int s;
	struct sockaddr_in addr;
};

/*
 * One complete exchange; returns true when everything checked out.
 * own: the side that owns the memory (client); run: the side that runs
 * the operation (server).
 */
static bool
transfer(const struct side *own, const struct side *run, size_t size,
	 uint32_t off, enum reg_method method, bool write, size_t nseg,
	 size_t rem_off, size_t rem_len, uint64_t id)
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
	unsigned int nnt = 0, n;
	size_t space = 0;
	uint64_t flags = write ? RDS_RDMA_READWRITE : 0;
	bool ok = false;
	long d;
	ssize_t r;

	if (rem_len == 0)
		rem_len = size;
	if (rdma_guard_alloc(&g, npages) != 0) {
		CU_FAIL("guard alloc");
		return false;
	}
	region = g.pages + off;
	rds_test_fill(g.pages, g.len, id * 7919 + 1);
	before = malloc(g.len);
	want = malloc(rem_len);
	got = malloc(rem_len);
	iov = calloc(nseg, sizeof(*iov));
	space = rdma_scatter_space(rem_len, nseg);
	local = malloc(space);
	if (before == NULL || want == NULL || got == NULL || iov == NULL ||
	    local == NULL) {
		CU_FAIL("malloc");
		goto out;
	}
	memcpy(before, g.pages, g.len);

	/* 1. The client registers and ships the cookie. */
	snprintf(req, sizeof(req), "RDMA REQ %" PRIu64, id);
	switch (method) {
	case REG_GET_MR:
		if (rdma_get_mr(own->s, region, size, flags, &cookie) != 0) {
			printf("  RDS_GET_MR: %s\n", rte_strerror(rte_errno));
			CU_FAIL("RDS_GET_MR");
			goto out;
		}
		r = rdma_send_dest(own->s, &run->addr, req, strlen(req),
				   cookie);
		break;
	case REG_FOR_DEST:
		if (rdma_get_mr_for_dest(own->s, &run->addr, region, size,
					 flags, &cookie) != 0) {
			printf("  RDS_GET_MR_FOR_DEST: %s\n",
			       rte_strerror(rte_errno));
			CU_FAIL("RDS_GET_MR_FOR_DEST");
			goto out;
		}
		r = rdma_send_dest(own->s, &run->addr, req, strlen(req),
				   cookie);
		break;
	default:
		r = rdma_send_map(own->s, &run->addr, req, strlen(req), region,
				  size, flags, &cookie);
		break;
	}
	if (r != (ssize_t)strlen(req)) {
		printf("  request sendmsg (%s): %zd %s\n", reg_name[method], r,
		       rte_strerror(rte_errno));
		CU_FAIL("request sendmsg");
		goto out;
	}
	CU_ASSERT(rdma_cookie_key(cookie) != 0);
	CU_ASSERT_EQUAL(rdma_cookie_off(cookie),
			(uint32_t)((uintptr_t)region & (RDMA_PAGE - 1)));

	/* 2. The server gets the cookie as RDS_CMSG_RDMA_DEST. */
	if (!rdma_wait_msg(run->s, buf, sizeof(buf), 5000, &rx, NULL, NULL,
			   0)) {
		CU_FAIL("server: no request");
		goto out;
	}
	CU_ASSERT_EQUAL(rx.ret, (ssize_t)strlen(req));
	CU_ASSERT(rx.ret == (ssize_t)strlen(req) &&
		  memcmp(buf, req, strlen(req)) == 0);
	CU_ASSERT(rds_test_sin_eq(&rx.from, &own->addr));
	CU_ASSERT(rx.has_dest);
	CU_ASSERT_EQUAL(rx.ndest, 1);
	CU_ASSERT_EQUAL(rx.dest, cookie);
	if (!rx.has_dest || rx.dest != cookie) {
		printf("  %s: cookie %#" PRIx64 " received %#" PRIx64 "\n",
		       reg_name[method], cookie, rx.dest);
		goto out;
	}

	/* 3. The server answers with the RDMA ACK and the operation. */
	nseg = rdma_scatter(local, rem_len, nseg, id ^ 0x5eed, 0xA5, iov);
	if (write) {
		for (n = 0; n < nseg; n++)
			rds_test_fill((void *)(uintptr_t)iov[n].addr,
				      iov[n].bytes, id * 31 + n + 7);
		rdma_gather(iov, nseg, want);
	} else {
		for (n = 0; n < nseg; n++)
			memset((void *)(uintptr_t)iov[n].addr, 0x5A,
			       iov[n].bytes);
		memcpy(want, region + rem_off, rem_len);
	}
	memset(&a, 0, sizeof(a));
	a.cookie = rx.dest;
	a.remote_vec.addr = rem_off;
	a.remote_vec.bytes = rem_len;
	a.local_vec_addr = (uint64_t)(uintptr_t)iov;
	a.nr_local = nseg;
	a.flags = flags | RDS_RDMA_NOTIFY_ME;
	a.user_token = token;
	snprintf(ack, sizeof(ack), "RDMA ACK %" PRIu64, id);
	r = rdma_send_args(run->s, &own->addr, ack, strlen(ack), &a);
	if (r != (ssize_t)strlen(ack)) {
		printf("  ACK sendmsg: %zd %s\n", r, rte_strerror(rte_errno));
		CU_FAIL("ACK sendmsg");
		goto out;
	}

	/* 4. The client gets the ACK: the data is in place by then. */
	if (!rdma_wait_msg(own->s, buf, sizeof(buf), 5000, &rx, NULL, NULL,
			   0)) {
		CU_FAIL("client: no RDMA ACK");
		goto out;
	}
	CU_ASSERT(rx.ret == (ssize_t)strlen(ack) &&
		  memcmp(buf, ack, strlen(ack)) == 0);
	CU_ASSERT(rds_test_sin_eq(&rx.from, &run->addr));
	CU_ASSERT(!rx.has_dest);
	if (write) {
		/* The addressed bytes hold the server's data ... */
		d = rdma_first_diff(region + rem_off, want, rem_len);
		if (d >= 0)
			printf("  WRITE %zu@%u (%s, %zu iov): byte %ld "
			       "differs\n", size, off, reg_name[method], nseg,
			       d);
		CU_ASSERT(d < 0);
		/* ... and nothing else of the pages changed. */
		CU_ASSERT(memcmp(g.pages, before,
				 (size_t)(region + rem_off - g.pages)) == 0);
		CU_ASSERT(memcmp(region + rem_off + rem_len,
				 before + (region + rem_off + rem_len -
					   g.pages),
				 g.len - (size_t)(region + rem_off + rem_len -
						  g.pages)) == 0);
		/* The source iovecs are untouched. */
		rdma_gather(iov, nseg, got);
		CU_ASSERT(memcmp(got, want, rem_len) == 0);
	} else {
		rdma_gather(iov, nseg, got);
		d = rdma_first_diff(got, want, rem_len);
		if (d >= 0)
			printf("  READ %zu@%u (%s, %zu iov): byte %ld "
			       "differs\n", size, off, reg_name[method], nseg,
			       d);
		CU_ASSERT(d < 0);
		CU_ASSERT(memcmp(g.pages, before, g.len) == 0);
	}
	CU_ASSERT(rdma_scatter_canary_ok(local, space, iov, nseg, 0xA5));

	/* 5. Exactly one notification, SUCCESS. */
	nnt = rdma_collect(run->s, nt, RTE_DIM(nt), 1, 0, 5000, 1024, NULL);
	CU_ASSERT_EQUAL(nnt, 1);
	if (nnt >= 1) {
		CU_ASSERT_EQUAL(nt[0].user_token, token);
		CU_ASSERT_EQUAL(nt[0].status, RDS_RDMA_SUCCESS);
	}
	CU_ASSERT(rdma_quiet(run->s, 20));
	CU_ASSERT(rdma_quiet(own->s, 0));

	/* 6. The client frees its region. */
	CU_ASSERT_EQUAL(rdma_free_mr(own->s, cookie, RDS_RDMA_INVALIDATE), 0);
	ok = true;
out:
	free(before);
	free(want);
	free(got);
	free(iov);
	free(local);
	rdma_guard_free(&g);
	return ok;
}

static const size_t sizes[] = { 1, 7, 4095, 4096, 4097, 65536, 1u << 20 };
static const uint32_t offs[] = { 0, 1, 100, 4095 };

static size_t
nseg_for(enum reg_method m, size_t size, uint64_t id)
{
	size_t n;

	switch (m) {
	case REG_GET_MR:
		n = 512;
		break;
	case REG_MAP:
		n = 1 + id % 3;
		break;
	default:
		n = 61;
		break;
	}
	return n > size ? size : n;
}

static void
run_matrix(bool write)
{
	struct rdma_env env;
	struct side cli, srv;
	unsigned int si, m, fails = 0;
	uint64_t id = write ? 1000 : 0;

	rds_test_watchdog(300, write ? "flow_write" : "flow_read");
	CU_ASSERT_FATAL(rdma_env_up(&env) == 0);
	cli.s = env.cli;
	cli.addr = env.ca;
	srv.s = env.srv;
	srv.addr = env.sa;
	for (si = 0; si < RTE_DIM(sizes); si++) {
		for (m = 0; m < REG_NB; m++) {
			uint32_t off = offs[(si + m) % RTE_DIM(offs)];

			id++;
			if (!transfer(&cli, &srv, sizes[si], off, m, write,
				      nseg_for(m, sizes[si], id), 0, 0, id)) {
				printf("  %s %zu bytes at in-page offset %u "
				       "via %s failed\n",
				       write ? "WRITE" : "READ", sizes[si],
				       off, reg_name[m]);
				fails++;
			}
		}
	}
	CU_ASSERT_EQUAL(fails, 0);
	rdma_env_down(&env);
	rds_test_watchdog(0, NULL);
}

static void
test_flow_read(void)
{
	run_matrix(false);
}

static void
test_flow_write(void)
{
	run_matrix(true);
}

/* Operations on parts of a region: only the addressed bytes move. */
static void
test_subrange(void)
{
	static const struct {
		size_t size;
		uint32_t off;
		size_t rem_off, rem_len;
	} c[] = {
		{ 3 * 4096, 0, 1, 1 },
		{ 3 * 4096, 0, 4095, 2 },
		{ 3 * 4096, 100, 4000, 5000 },
		{ 3 * 4096, 100, 3 * 4096 - 7, 7 },
		{ 65536, 17, 12345, 40000 },
		{ 1u << 20, 0, (1u << 20) - 4096, 4096 },
	};
	struct rdma_env env;
	struct side cli, srv;
	unsigned int i, w;
	uint64_t id = 5000;

	rds_test_watchdog(120, "subrange");
	CU_ASSERT_FATAL(rdma_env_up(&env) == 0);
	cli.s = env.cli;
	cli.addr = env.ca;
	srv.s = env.srv;
	srv.addr = env.sa;
	for (i = 0; i < RTE_DIM(c); i++) {
		for (w = 0; w < 2; w++) {
			id++;
			CU_ASSERT(transfer(&cli, &srv, c[i].size, c[i].off,
					   (enum reg_method)(id % REG_NB),
					   w != 0, c[i].rem_len < 40 ?
					   c[i].rem_len : 40, c[i].rem_off,
					   c[i].rem_len, id));
		}
	}
	rdma_env_down(&env);
	rds_test_watchdog(0, NULL);
}

/* The same flow with the roles exchanged. */
static void
test_swapped(void)
{
	struct rdma_env env;
	struct side cli, srv;
	unsigned int si, w;
	uint64_t id = 9000;

	rds_test_watchdog(120, "swapped");
	CU_ASSERT_FATAL(rdma_env_up(&env) == 0);
	cli.s = env.srv;
	cli.addr = env.sa;
	srv.s = env.cli;
	srv.addr = env.ca;
	for (si = 0; si < RTE_DIM(sizes); si++) {
		for (w = 0; w < 2; w++) {
			enum reg_method m = (enum reg_method)((si + w) %
							       REG_NB);

			id++;
			CU_ASSERT(transfer(&cli, &srv, sizes[si],
					   offs[si % RTE_DIM(offs)], m, w != 0,
					   nseg_for(m, sizes[si], id), 0, 0,
					   id));
		}
	}
	rdma_env_down(&env);
	rds_test_watchdog(0, NULL);
}

int
main(int argc, char **argv)
{
	static const struct rds_test_case cases[] = {
		{ "flow_read", test_flow_read },
		{ "flow_write", test_flow_write },
		{ "subrange", test_subrange },
		{ "swapped", test_swapped },
		{ NULL, NULL },
	};

	return rdma_main(argc, argv, "rdma_flow", cases);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxe_ib (rxe_ib.c): RDS RDMA over ib: a region registered, one-sided
 * READ, WRITE and atomics between the two addresses over a real RC QP.
 */

#include "rxe_ib.h"

/* Receive one message and its RDS_CMSG_RDMA_DEST / STATUS cmsgs. */
static ssize_t
recv_cmsgs(int s, void *buf, size_t len, uint64_t *cookie, int *status,
	   uint64_t *token, unsigned int secs)
{
	uint8_t cbuf[256];
	size_t clen = sizeof(cbuf);
	struct msghdr mh;
	struct cmsghdr *cm;
	ssize_t n;

	n = rds_test_wait_msg_ctl(s, buf, len, NULL, cbuf, &clen, secs * 1000);
	if (n < 0)
		return -1;
	memset(&mh, 0, sizeof(mh));
	mh.msg_control = cbuf;
	mh.msg_controllen = clen;
	for (cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level != SOL_RDS)
			continue;
		if (cm->cmsg_type == RDS_CMSG_RDMA_DEST && cookie != NULL)
			memcpy(cookie, CMSG_DATA(cm), 8);
		if (cm->cmsg_type == RDS_CMSG_RDMA_STATUS && status != NULL) {
			struct rds_rdma_notify nt;

			memcpy(&nt, CMSG_DATA(cm), sizeof(nt));
			*status = nt.status;
			if (token != NULL)
				*token = nt.user_token;
		}
	}
	return n;
}

static int
send_op(int s, const struct sockaddr_in *to, int type, const void *arg,
	size_t arglen)
{
	return (int)rds_test_send_cmsg(s, "ack", 4, to, SOL_RDS, type, arg,
				       arglen, 0);
}

/* One-sided READ, WRITE and atomics over a real RC QP, with zero-based
 * regions (the cookie's offset is the in-page offset). */
void
test_rdma(void)
{
	static uint8_t region[3 * 4096] __attribute__((aligned(4096)));
	static uint8_t local[8192];
	struct sockaddr_in to_srv, to_cli;
	struct rds_get_mr_args mr;
	struct rds_rdma_args ra;
	struct rds_atomic_args aa;
	struct rds_iovec lv[2];
	uint64_t cookie = 0, got_cookie = 0, token = 0, old = 0, v;
	uint8_t buf[64];
	int cli, srv, one = 1, status = -1, i;

	lib_up();
	cli = ib_socket(addr_a, 4 << 20);
	srv = ib_socket(addr_b, 4 << 20);
	to_srv = sock_name(srv);
	to_cli = sock_name(cli);
	CU_ASSERT(rte_rds_setsockopt(srv, SOL_RDS, RDS_RECVERR, &one,
				     sizeof(one)) == 0);
	for (i = 0; i < (int)sizeof(region); i++)
		region[i] = (uint8_t)(i * 7);
	/* The client registers 5000 bytes from offset 100, writable. */
	memset(&mr, 0, sizeof(mr));
	mr.vec.addr = (uintptr_t)region + 100;
	mr.vec.bytes = 5000;
	mr.cookie_addr = (uintptr_t)&cookie;
	mr.flags = RDS_RDMA_READWRITE;
	CU_ASSERT_FATAL(rte_rds_setsockopt(cli, SOL_RDS, RDS_GET_MR, &mr,
					   sizeof(mr)) == 0);
	CU_ASSERT_EQUAL(cookie >> 32, 100);
	/* ... and ships the cookie. */
	CU_ASSERT_FATAL(send_op(cli, &to_srv, RDS_CMSG_RDMA_DEST, &cookie,
				sizeof(cookie)) == 4);
	CU_ASSERT_FATAL(recv_cmsgs(srv, buf, sizeof(buf), &got_cookie, NULL,
				   NULL, 60) == 4);
	CU_ASSERT_EQUAL(got_cookie, cookie);

	/* READ 3000 bytes from offset 10 into two local pieces. */
	memset(local, 0, sizeof(local));
	lv[0].addr = (uintptr_t)local;
	lv[0].bytes = 1000;
	lv[1].addr = (uintptr_t)local + 4000;
	lv[1].bytes = 2000;
	memset(&ra, 0, sizeof(ra));
	ra.cookie = got_cookie;
	ra.remote_vec.addr = 10;
	ra.remote_vec.bytes = 3000;
	ra.local_vec_addr = (uintptr_t)lv;
	ra.nr_local = 2;
	ra.flags = RDS_RDMA_NOTIFY_ME;
	ra.user_token = 0x1111;
	CU_ASSERT_FATAL(send_op(srv, &to_cli, RDS_CMSG_RDMA_ARGS, &ra,
				sizeof(ra)) == 4);
	CU_ASSERT(recv_cmsgs(srv, buf, sizeof(buf), NULL, &status, &token,
			     60) == 0);
	CU_ASSERT_EQUAL(status, RDS_RDMA_SUCCESS);
	CU_ASSERT_EQUAL(token, 0x1111);
	CU_ASSERT(memcmp(local, region + 110, 1000) == 0);
	CU_ASSERT(memcmp(local + 4000, region + 1110, 2000) == 0);
	CU_ASSERT(recv_cmsgs(cli, buf, sizeof(buf), NULL, NULL, NULL, 60) == 4);

	/* WRITE 4096 bytes at offset 500. */
	for (i = 0; i < 4096; i++)
		local[i] = (uint8_t)(0xa5 ^ i);
	lv[0].addr = (uintptr_t)local;
	lv[0].bytes = 4096;
	ra.remote_vec.addr = 500;
	ra.remote_vec.bytes = 4096;
	ra.nr_local = 1;
	ra.flags = RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME;
	ra.user_token = 0x2222;
	CU_ASSERT_FATAL(send_op(srv, &to_cli, RDS_CMSG_RDMA_ARGS, &ra,
				sizeof(ra)) == 4);
	status = -1;
	CU_ASSERT(recv_cmsgs(srv, buf, sizeof(buf), NULL, &status, &token,
			     60) == 0);
	CU_ASSERT_EQUAL(status, RDS_RDMA_SUCCESS);
	CU_ASSERT(recv_cmsgs(cli, buf, sizeof(buf), NULL, NULL, NULL, 60) == 4);
	CU_ASSERT(memcmp(region + 600, local, 4096) == 0);
	CU_ASSERT_EQUAL(region[599], (uint8_t)(599 * 7));

	/* Fetch-and-add and compare-and-swap on an aligned word. */
	v = 40;
	memcpy(region + 1000, &v, 8);	/* offset 900 from the cookie's */
	memset(&aa, 0, sizeof(aa));
	aa.cookie = got_cookie;
	aa.local_addr = (uintptr_t)&old;
	aa.remote_addr = 900;
	aa.fadd.add = 2;
	aa.flags = RDS_RDMA_NOTIFY_ME;
	CU_ASSERT_FATAL(send_op(srv, &to_cli, RDS_CMSG_ATOMIC_FADD, &aa,
				sizeof(aa)) == 4);
	status = -1;
	CU_ASSERT(recv_cmsgs(srv, buf, sizeof(buf), NULL, &status, NULL,
			     60) == 0);
	CU_ASSERT_EQUAL(status, RDS_RDMA_SUCCESS);
	CU_ASSERT_EQUAL(old, 40);
	CU_ASSERT(recv_cmsgs(cli, buf, sizeof(buf), NULL, NULL, NULL, 60) == 4);
	memcpy(&v, region + 1000, 8);
	CU_ASSERT_EQUAL(v, 42);
	aa.cswp.compare = 42;
	aa.cswp.swap = 7;
	CU_ASSERT_FATAL(send_op(srv, &to_cli, RDS_CMSG_ATOMIC_CSWP, &aa,
				sizeof(aa)) == 4);
	status = -1;
	CU_ASSERT(recv_cmsgs(srv, buf, sizeof(buf), NULL, &status, NULL,
			     60) == 0);
	CU_ASSERT_EQUAL(status, RDS_RDMA_SUCCESS);
	CU_ASSERT_EQUAL(old, 42);
	CU_ASSERT(recv_cmsgs(cli, buf, sizeof(buf), NULL, NULL, NULL, 60) == 4);
	memcpy(&v, region + 1000, 8);
	CU_ASSERT_EQUAL(v, 7);
	/* Masked atomics: plain verbs has none. */
	CU_ASSERT(send_op(srv, &to_cli, RDS_CMSG_MASKED_ATOMIC_FADD, &aa,
			  sizeof(aa)) == -1 && rte_errno == EOPNOTSUPP);

	/* Outside the region: REMOTE_ERROR, nothing written, the message
	 * not delivered; the connection resets and carries on. */
	memset(local, 0x5a, 64);
	lv[0].bytes = 64;
	ra.remote_vec.addr = 8100;	/* past the registered pages */
	ra.remote_vec.bytes = 64;
	ra.flags = RDS_RDMA_READWRITE;
	CU_ASSERT_FATAL(send_op(srv, &to_cli, RDS_CMSG_RDMA_ARGS, &ra,
				sizeof(ra)) == 4);
	status = -1;
	CU_ASSERT(recv_cmsgs(srv, buf, sizeof(buf), NULL, &status, NULL,
			     60) == 0);
	printf("  out-of-bounds write: status %d\n", status);
	CU_ASSERT_EQUAL(status, RDS_RDMA_REMOTE_ERROR);
	rds_test_kick_n(1000);
	CU_ASSERT(rds_test_recv(cli, buf, sizeof(buf), NULL, MSG_DONTWAIT,
				NULL) == -1);

	/* Registration cache: FREE_MR without INVALIDATE keeps the
	 * registration, and the same range comes back with the same key;
	 * INVALIDATE revokes it. */
	{
		struct rds_free_mr_args fr = { .cookie = cookie, .flags = 0 };
		uint64_t c2 = 0, c3 = 0, t0, n = 1000, k;

		CU_ASSERT(rte_rds_setsockopt(cli, SOL_RDS, RDS_FREE_MR, &fr,
					     sizeof(fr)) == 0);
		mr.cookie_addr = (uintptr_t)&c2;
		CU_ASSERT(rte_rds_setsockopt(cli, SOL_RDS, RDS_GET_MR, &mr,
					     sizeof(mr)) == 0);
		CU_ASSERT_EQUAL((uint32_t)c2, (uint32_t)cookie);
		t0 = rds_test_now_ns();
		for (k = 0; k < n; k++) {
			fr.cookie = c2;
			rte_rds_setsockopt(cli, SOL_RDS, RDS_FREE_MR, &fr,
					   sizeof(fr));
			rte_rds_setsockopt(cli, SOL_RDS, RDS_GET_MR, &mr,
					   sizeof(mr));
		}
		printf("  cached FREE_MR + GET_MR: %.0f ns a pair (in the VM, "
		       "information only)\n",
		       (double)(rds_test_now_ns() - t0) / (double)n);
		fr.cookie = c2;
		fr.flags = RDS_RDMA_INVALIDATE;
		CU_ASSERT(rte_rds_setsockopt(cli, SOL_RDS, RDS_FREE_MR, &fr,
					     sizeof(fr)) == 0);
		mr.cookie_addr = (uintptr_t)&c3;
		CU_ASSERT(rte_rds_setsockopt(cli, SOL_RDS, RDS_GET_MR, &mr,
					     sizeof(mr)) == 0);
		CU_ASSERT_NOT_EQUAL((uint32_t)c3, (uint32_t)c2);
		/* The invalidated key no longer reaches the memory. */
		lv[0].bytes = 8;
		ra.cookie = c2;
		ra.remote_vec.addr = 0;
		ra.remote_vec.bytes = 8;
		ra.flags = 0;
		CU_ASSERT_FATAL(send_op(srv, &to_cli, RDS_CMSG_RDMA_ARGS, &ra,
					sizeof(ra)) == 4);
		status = -1;
		CU_ASSERT(recv_cmsgs(srv, buf, sizeof(buf), NULL, &status,
				     NULL, 60) == 0);
		CU_ASSERT_EQUAL(status, RDS_RDMA_REMOTE_ERROR);
	}
	rds_test_lib_fini();
}

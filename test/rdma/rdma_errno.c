/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * errno of the RDS RDMA calls (net/rds/rdma.c, net/rds/send.c,
 * rds-rdma(7)), over the transport of the run (loop or eth:
 * --transport=, rdma_common.h).
 *
 * get_mr:   RDS_GET_MR / RDS_GET_MR_FOR_DEST with optlen != sizeof ->
 *           EINVAL; unbound socket -> ENOTCONN; bytes 0, a wrapping
 *           range or one whose page rounding wraps -> EINVAL; address 0
 *           -> EFAULT; more than 1 MiB of pages (plus the partial one)
 *           -> EMSGSIZE (the kernel; rds-rdma(7) says EINVAL), 257 pages
 *           accepted.
 * free_mr:  unknown cookie, another socket's cookie, bad optlen -> EINVAL;
 *           cookie 0 with RDS_RDMA_INVALIDATE frees all of the socket's
 *           regions (later FREE_MR of them: EINVAL; ops on them:
 *           REMOTE_ERROR, message not delivered) and only the socket's.
 * dest_owner: RDMA_DEST with a cookie the sender does not own (another
 *           socket's, freed, forged, 0) -> EINVAL (rds_cmsg_rdma_dest).
 * sendmsg:  RDMA_ARGS with RDMA_DEST or RDMA_MAP (either order), an
 *           atomic with RDMA_DEST, two RDMA_ARGS, two RDMA_DEST -> EINVAL;
 *           more local than remote bytes -> EINVAL; no local vector
 *           array -> EFAULT; a wrapping or over-UINT_MAX local element ->
 *           EINVAL; remote bytes over 1 MiB
 *           -> EMSGSIZE; nr_local > 1024 (UIO_MAXIOV) -> EMSGSIZE, 1024
 *           works; nr_local 0, a short cmsg, an unknown SOL_RDS cmsg ->
 *           EINVAL; unbound -> ENOTCONN. A refused sendmsg queues
 *           nothing.
 * kernel_extras: the kernel's behaviour in corners rds-rdma(7) does not
 *           describe: a zero-length local iovec -> EINVAL
 *           (rds_rdma_extra_size: rds_pages_in_vec() == 0); an atomic
 *           whose local_addr is not 8-byte aligned -> EFAULT
 *           (rds_cmsg_atomic); RDS_GET_MR with a bad optlen on an unbound
 *           socket -> EINVAL (rds_get_mr checks optlen first); fewer
 *           local than remote bytes -> accepted, the local bytes move
 *           (rds_cmsg_rdma_args rejects only more).
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

/* -1 with rte_errno and errno both e. */
#define EXPECT_ERR(call, e) do { \
		int _r, _e, _ue; \
		errno = 0; \
		_r = (int)(call); \
		_e = rte_errno; \
		_ue = errno; \
		if (_r != -1 || _e != (e) || _ue != (e)) \
			printf("  %s:%d: %s -> %d (errno %d %s, errno %d), " \
			       "want -1 (errno %d %s)\n", __func__, __LINE__, \
			       #call, _r, _r == -1 ? _e : 0, \
			       _r == -1 ? strerror(_e) : "no error", _ue, (e), \
			       strerrorname_np(e)); \
		CU_ASSERT(_r == -1 && _e == (e) && _ue == (e)); \
	} while (0)

static uint8_t buf[8 * 4096] __rte_aligned(4096);

static void
test_get_mr(void)
{
	struct rds_get_mr_for_dest_args fa;
	struct rds_get_mr_args a;
	struct rdma_env env;
	uint64_t cookie = 0;
	uint8_t *big;
	int u;

	rds_test_watchdog(60, "get_mr");
	CU_ASSERT_FATAL(rdma_env_up(&env) == 0);
	memset(&a, 0, sizeof(a));
	a.vec.addr = (uint64_t)(uintptr_t)buf;
	a.vec.bytes = 100;
	a.cookie_addr = (uint64_t)(uintptr_t)&cookie;
	memset(&fa, 0, sizeof(fa));
	memcpy(&fa.dest_addr, &env.sa, sizeof(env.sa));
	fa.vec = a.vec;
	fa.cookie_addr = a.cookie_addr;

	/* optlen != sizeof. */
	EXPECT_ERR(rte_rds_setsockopt(env.cli, SOL_RDS, RDS_GET_MR, &a,
				      sizeof(a) - 1), EINVAL);
	EXPECT_ERR(rte_rds_setsockopt(env.cli, SOL_RDS, RDS_GET_MR, &a,
				      sizeof(a) + 8), EINVAL);
	EXPECT_ERR(rte_rds_setsockopt(env.cli, SOL_RDS, RDS_GET_MR, &a, 0),
		   EINVAL);
	EXPECT_ERR(rte_rds_setsockopt(env.cli, SOL_RDS, RDS_GET_MR_FOR_DEST,
				      &fa, sizeof(fa) - 1), EINVAL);
	EXPECT_ERR(rte_rds_setsockopt(env.cli, SOL_RDS, RDS_GET_MR_FOR_DEST,
				      &a, sizeof(a)), EINVAL);
	/* Unbound socket. */
	u = rte_rds_socket();
	CU_ASSERT_FATAL(u >= 0);
	EXPECT_ERR(rte_rds_setsockopt(u, SOL_RDS, RDS_GET_MR, &a, sizeof(a)),
		   ENOTCONN);
	EXPECT_ERR(rte_rds_setsockopt(u, SOL_RDS, RDS_GET_MR_FOR_DEST, &fa,
				      sizeof(fa)), ENOTCONN);
	CU_ASSERT_EQUAL(rte_rds_close(u), 0);
	/* bytes 0; a range that wraps. */
	EXPECT_ERR(rdma_get_mr(env.cli, buf, 0, 0, &cookie), EINVAL);
	EXPECT_ERR(rdma_get_mr_for_dest(env.cli, &env.sa, buf, 0, 0, &cookie),
		   EINVAL);
	EXPECT_ERR(rdma_get_mr(env.cli, (void *)(uintptr_t)(~0ULL - 4095),
			       8192, 0, &cookie), EINVAL);
	/* A range whose page rounding wraps (__rds_rdma_map: PAGE_ALIGN of
	 * the end below the end): EINVAL; it used to give a cookie. */
	cookie = 0;
	EXPECT_ERR(rdma_get_mr(env.cli, (void *)(uintptr_t)(~0ULL - 4095),
			       16, 0, &cookie), EINVAL);
	EXPECT_ERR(rdma_get_mr(env.cli, (void *)(uintptr_t)(~0ULL - 100),
			       100, RDS_RDMA_READWRITE, &cookie), EINVAL);
	EXPECT_ERR(rdma_get_mr_for_dest(env.cli, &env.sa,
					(void *)(uintptr_t)(~0ULL - 4095), 1,
					0, &cookie), EINVAL);
	CU_ASSERT_EQUAL(cookie, 0);
	/* Address 0 with a length: the kernel cannot pin it (EFAULT). */
	EXPECT_ERR(rdma_get_mr(env.cli, NULL, 4096, 0, &cookie), EFAULT);
	/* Size limit: 1 MiB of pages plus the partial one (257 pages). */
	big = mmap(NULL, (1u << 20) + 3 * 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(big != MAP_FAILED);
	CU_ASSERT_EQUAL(rdma_get_mr(env.cli, big + 1, 1u << 20, 0, &cookie),
			0);
	CU_ASSERT_EQUAL(rdma_free_mr(env.cli, cookie, 0), 0);
	CU_ASSERT_EQUAL(rdma_get_mr(env.cli, big, (1u << 20) + 4096, 0,
				    &cookie), 0);
	CU_ASSERT_EQUAL(rdma_free_mr(env.cli, cookie, 0), 0);
	/* 258 pages: EMSGSIZE as the kernel (rds-rdma(7) says EINVAL; the
	 * library said EINVAL before). */
	EXPECT_ERR(rdma_get_mr(env.cli, big + 1, (1u << 20) + 4096, 0,
			       &cookie), EMSGSIZE);
	EXPECT_ERR(rdma_get_mr(env.cli, big, (1u << 20) + 4097, 0, &cookie),
		   EMSGSIZE);
	munmap(big, (1u << 20) + 3 * 4096);
	/* Correct calls work. */
	CU_ASSERT_EQUAL(rte_rds_setsockopt(env.cli, SOL_RDS, RDS_GET_MR, &a,
					   sizeof(a)), 0);
	CU_ASSERT_EQUAL(rdma_cookie_off(cookie), 0);
	CU_ASSERT_EQUAL(rdma_free_mr(env.cli, cookie, 0), 0);
	CU_ASSERT_EQUAL(rte_rds_setsockopt(env.cli, SOL_RDS,
					   RDS_GET_MR_FOR_DEST, &fa,
					   sizeof(fa)), 0);
	CU_ASSERT_EQUAL(rdma_free_mr(env.cli, cookie, 0), 0);
	rdma_env_down(&env);
	rds_test_watchdog(0, NULL);
}

/* A READ of 64 bytes at offset 0 through cookie: ok -> message arrives,
 * else one REMOTE_ERROR (the server has RDS_RECVERR) and no message. */
static void
op_check(struct rdma_env *env, uint64_t cookie, bool ok, uint64_t token)
{
	struct rds_rdma_notify nt[4];
	struct rds_iovec iov = { (uint64_t)(uintptr_t)(buf + 4096 * 7), 64 };
	struct rds_rdma_args a;
	struct rdma_rx rx;
	unsigned int nnt;
	char b[32];

	memset(&a, 0, sizeof(a));
	a.cookie = cookie;
	a.remote_vec.bytes = 64;
	a.local_vec_addr = (uint64_t)(uintptr_t)&iov;
	a.nr_local = 1;
	a.user_token = token;
	CU_ASSERT(rdma_send_args(env->srv, &env->ca, "OP", 2, &a) == 2);
	CU_ASSERT(rdma_sendmsg(env->srv, &env->ca, "SYNC", 4, NULL, 0) == 4);
	if (ok) {
		CU_ASSERT(rdma_wait_msg(env->cli, b, sizeof(b), 5000, &rx,
					NULL, NULL, 0) && rx.ret == 2 &&
			  memcmp(b, "OP", 2) == 0);
	}
	CU_ASSERT(rdma_wait_msg(env->cli, b, sizeof(b), 5000, &rx, NULL, NULL,
				0) && rx.ret == 4 && memcmp(b, "SYNC", 4) == 0);
	nnt = rdma_collect(env->srv, nt, RTE_DIM(nt), ok ? 0 : 1, 30, 5000,
			   1024, NULL);
	CU_ASSERT_EQUAL(nnt, ok ? 0u : 1u);
	if (!ok && nnt >= 1) {
		CU_ASSERT_EQUAL(nt[0].user_token, token);
		CU_ASSERT_EQUAL(nt[0].status, RDS_RDMA_REMOTE_ERROR);
	}
}

/* Ship a cookie to the server (it only needs the value). */
static uint64_t
reg_ship(int s, size_t off, uint64_t bytes)
{
	uint64_t cookie = 0;

	CU_ASSERT_EQUAL(rdma_get_mr(s, buf + off, bytes, 0, &cookie), 0);
	return cookie;
}

static void
test_free_mr(void)
{
	struct rds_free_mr_args fa;
	struct rdma_env env;
	uint64_t c[3], other, forged;
	int s2;
	unsigned int i;

	rds_test_watchdog(60, "free_mr");
	CU_ASSERT_FATAL(rdma_env_up(&env) == 0);
	CU_ASSERT_EQUAL(rdma_set_recverr(env.srv, 1), 0);
	s2 = rdma_socket(1, 4012, 0, 0);
	CU_ASSERT_FATAL(s2 >= 0);
	for (i = 0; i < 3; i++)
		c[i] = reg_ship(env.cli, 4096 * i, 4096);
	other = reg_ship(s2, 4096 * 4, 4096);

	/* Unknown cookie. */
	forged = c[0] ^ 0x5A5A5A5AULL;
	for (i = 0; i < 3; i++)
		if (rdma_cookie_key(forged) == rdma_cookie_key(c[i]) ||
		    rdma_cookie_key(forged) == rdma_cookie_key(other))
			forged ^= 0x1;
	EXPECT_ERR(rdma_free_mr(env.cli, forged, 0), EINVAL);
	EXPECT_ERR(rdma_free_mr(env.cli, forged, RDS_RDMA_INVALIDATE),
		   EINVAL);
	/* Another socket's cookie: not ours to free; still usable. */
	EXPECT_ERR(rdma_free_mr(env.cli, other, RDS_RDMA_INVALIDATE), EINVAL);
	/* Bad optlen. */
	memset(&fa, 0, sizeof(fa));
	fa.cookie = c[0];
	EXPECT_ERR(rte_rds_setsockopt(env.cli, SOL_RDS, RDS_FREE_MR, &fa,
				      sizeof(fa) - 1), EINVAL);
	EXPECT_ERR(rte_rds_setsockopt(env.cli, SOL_RDS, RDS_FREE_MR, &fa,
				      sizeof(fa) + 1), EINVAL);
	/* All still there. */
	for (i = 0; i < 3; i++)
		op_check(&env, c[i], true, 100 + i);
	/* Cookie 0 with INVALIDATE: every region of the socket goes. */
	CU_ASSERT_EQUAL(rdma_free_mr(env.cli, 0, RDS_RDMA_INVALIDATE), 0);
	for (i = 0; i < 3; i++) {
		EXPECT_ERR(rdma_free_mr(env.cli, c[i], 0), EINVAL);
		op_check(&env, c[i], false, 200 + i);
	}
	/* The other socket's region is not the client's: it stays. The
	 * op goes to the region's own socket address (IP1, any port). */
	op_check(&env, other, true, 300);
	CU_ASSERT_EQUAL(rdma_free_mr(s2, other, 0), 0);
	/* Nothing left: flushing again is fine. */
	CU_ASSERT_EQUAL(rdma_free_mr(env.cli, 0, RDS_RDMA_INVALIDATE), 0);
	CU_ASSERT_EQUAL(rte_rds_close(s2), 0);
	rdma_env_down(&env);
	rds_test_watchdog(0, NULL);
}

static void
test_sendmsg(void)
{
	static struct rds_iovec iov[1100];
	struct rds_atomic_args at;
	struct rds_get_mr_args ma;
	struct rds_rdma_args a, a2;
	struct rdma_env env;
	struct rdma_cbuf cb;
	uint64_t cookie, cookie2 = 0, old = 0, bogus = 1;
	unsigned int i;
	uint8_t *big;
	int u;

	rds_test_watchdog(60, "sendmsg");
	CU_ASSERT_FATAL(rdma_env_up(&env) == 0);
	big = malloc((1u << 20) + 4096);
	CU_ASSERT_FATAL(big != NULL);
	cookie = reg_ship(env.cli, 0, 8 * 4096);
	iov[0].addr = (uint64_t)(uintptr_t)big;
	iov[0].bytes = 64;
	memset(&a, 0, sizeof(a));
	a.cookie = cookie;
	a.remote_vec.bytes = 64;
	a.local_vec_addr = (uint64_t)(uintptr_t)iov;
	a.nr_local = 1;
	a2 = a;
	memset(&ma, 0, sizeof(ma));
	ma.vec.addr = (uint64_t)(uintptr_t)big;
	ma.vec.bytes = 4096;
	ma.cookie_addr = (uint64_t)(uintptr_t)&cookie2;
	memset(&at, 0, sizeof(at));
	at.cookie = cookie;
	at.local_addr = (uint64_t)(uintptr_t)&old;
	at.fadd.add = 1;

	/* RDMA_ARGS with RDMA_DEST, both orders. */
	rdma_cbuf_init(&cb);
	rdma_cbuf_add(&cb, RDS_CMSG_RDMA_ARGS, &a, sizeof(a));
	rdma_cbuf_add(&cb, RDS_CMSG_RDMA_DEST, &cookie, sizeof(cookie));
	EXPECT_ERR(rdma_sendmsg(env.srv, &env.ca, "X", 1, &cb, 0), EINVAL);
	rdma_cbuf_init(&cb);
	rdma_cbuf_add(&cb, RDS_CMSG_RDMA_DEST, &cookie, sizeof(cookie));
	rdma_cbuf_add(&cb, RDS_CMSG_RDMA_ARGS, &a, sizeof(a));
	EXPECT_ERR(rdma_sendmsg(env.srv, &env.ca, "X", 1, &cb, 0), EINVAL);
	/* RDMA_ARGS with RDMA_MAP. */
	rdma_cbuf_init(&cb);
	rdma_cbuf_add(&cb, RDS_CMSG_RDMA_ARGS, &a, sizeof(a));
	rdma_cbuf_add(&cb, RDS_CMSG_RDMA_MAP, &ma, sizeof(ma));
	EXPECT_ERR(rdma_sendmsg(env.srv, &env.ca, "X", 1, &cb, 0), EINVAL);
	/* An atomic with RDMA_DEST. */
	rdma_cbuf_init(&cb);
	rdma_cbuf_add(&cb, RDS_CMSG_ATOMIC_FADD, &at, sizeof(at));
	rdma_cbuf_add(&cb, RDS_CMSG_RDMA_DEST, &cookie, sizeof(cookie));
	EXPECT_ERR(rdma_sendmsg(env.srv, &env.ca, "X", 1, &cb, 0), EINVAL);
	/* Two RDMA_ARGS; two RDMA_DEST. */
	rdma_cbuf_init(&cb);
	rdma_cbuf_add(&cb, RDS_CMSG_RDMA_ARGS, &a, sizeof(a));
	rdma_cbuf_add(&cb, RDS_CMSG_RDMA_ARGS, &a2, sizeof(a2));
	EXPECT_ERR(rdma_sendmsg(env.srv, &env.ca, "X", 1, &cb, 0), EINVAL);
	rdma_cbuf_init(&cb);
	rdma_cbuf_add(&cb, RDS_CMSG_RDMA_DEST, &cookie, sizeof(cookie));
	rdma_cbuf_add(&cb, RDS_CMSG_RDMA_DEST, &cookie, sizeof(cookie));
	EXPECT_ERR(rdma_sendmsg(env.cli, &env.sa, "X", 1, &cb, 0), EINVAL);
	/* Local and remote sizes differ. */
	a2 = a;
	a2.remote_vec.bytes = 63;	/* more local than remote bytes */
	EXPECT_ERR(rdma_send_args(env.srv, &env.ca, "X", 1, &a2), EINVAL);
	a2.remote_vec.bytes = 0;
	EXPECT_ERR(rdma_send_args(env.srv, &env.ca, "X", 1, &a2), EINVAL);
	/* (Fewer local than remote bytes is accepted, as the kernel:
	 * kernel_extras.) No local vector array: EFAULT (the kernel's
	 * copy_from_user; was EINVAL). A local element whose range wraps or
	 * is over UINT_MAX bytes: EINVAL (rds_pages_in_vec() 0). */
	a2 = a;
	a2.local_vec_addr = 0;
	EXPECT_ERR(rdma_send_args(env.srv, &env.ca, "X", 1, &a2), EFAULT);
	a2.nr_local = 0;
	EXPECT_ERR(rdma_send_args(env.srv, &env.ca, "X", 1, &a2), EINVAL);
	{
		struct rds_iovec w = { ~0ULL - 10, 20 };

		a2 = a;
		a2.local_vec_addr = (uint64_t)(uintptr_t)&w;
		a2.remote_vec.bytes = 20;
		EXPECT_ERR(rdma_send_args(env.srv, &env.ca, "X", 1, &a2),
			   EINVAL);
		w.addr = (uint64_t)(uintptr_t)big;
		w.bytes = 1ULL << 32;
		a2.remote_vec.bytes = 1u << 20;
		EXPECT_ERR(rdma_send_args(env.srv, &env.ca, "X", 1, &a2),
			   EINVAL);
	}
	/* Remote bytes over 1 MiB. */
	iov[0].bytes = 1u << 20;
	iov[1].addr = (uint64_t)(uintptr_t)(big + (1u << 20));
	iov[1].bytes = 1;
	a2 = a;
	a2.nr_local = 2;
	a2.remote_vec.bytes = (1u << 20) + 1;
	EXPECT_ERR(rdma_send_args(env.srv, &env.ca, "X", 1, &a2), EMSGSIZE);
	a2.nr_local = 1;		/* local 1 MiB, remote 1 MiB + 1 */
	EXPECT_ERR(rdma_send_args(env.srv, &env.ca, "X", 1, &a2), EMSGSIZE);
	a2.remote_vec.bytes = 1ULL << 40;
	EXPECT_ERR(rdma_send_args(env.srv, &env.ca, "X", 1, &a2), EMSGSIZE);
	/* nr_local over UIO_MAXIOV (1024). */
	for (i = 0; i < RTE_DIM(iov); i++) {
		iov[i].addr = (uint64_t)(uintptr_t)(big + i);
		iov[i].bytes = 1;
	}
	a2 = a;
	a2.nr_local = 1025;
	a2.remote_vec.bytes = 1025;
	EXPECT_ERR(rdma_send_args(env.srv, &env.ca, "X", 1, &a2), EMSGSIZE);
	a2.nr_local = 1100;
	a2.remote_vec.bytes = 1100;
	EXPECT_ERR(rdma_send_args(env.srv, &env.ca, "X", 1, &a2), EMSGSIZE);
	/* nr_local 0. */
	a2.nr_local = 0;
	a2.remote_vec.bytes = 0;
	EXPECT_ERR(rdma_send_args(env.srv, &env.ca, "X", 1, &a2), EINVAL);
	/* A short RDMA_ARGS cmsg; an unknown SOL_RDS cmsg. */
	rdma_cbuf_init(&cb);
	rdma_cbuf_add(&cb, RDS_CMSG_RDMA_ARGS, &a, sizeof(a) - 8);
	EXPECT_ERR(rdma_sendmsg(env.srv, &env.ca, "X", 1, &cb, 0), EINVAL);
	rdma_cbuf_init(&cb);
	rdma_cbuf_add(&cb, 99, &bogus, sizeof(bogus));
	EXPECT_ERR(rdma_sendmsg(env.srv, &env.ca, "X", 1, &cb, 0), EINVAL);
	/* Unbound. */
	u = rte_rds_socket();
	CU_ASSERT_FATAL(u >= 0);
	EXPECT_ERR(rdma_send_args(u, &env.ca, "X", 1, &a), ENOTCONN);
	CU_ASSERT_EQUAL(rte_rds_close(u), 0);
	/* None of it was queued. */
	CU_ASSERT(rdma_quiet(env.cli, 50));
	CU_ASSERT(rdma_quiet(env.srv, 0));
	CU_ASSERT_EQUAL(cookie2, 0);	/* RDMA_MAP did not register */

	/* 1024 iovecs is the limit, and works. */
	memset(buf, 0x77, 1024);
	memset(big, 0, 1024);
	a2 = a;
	a2.nr_local = 1024;
	a2.remote_vec.bytes = 1024;
	CU_ASSERT(rdma_send_args(env.srv, &env.ca, "OK", 2, &a2) == 2);
	{
		struct rdma_rx rx;
		char b[8];

		CU_ASSERT(rdma_wait_msg(env.cli, b, sizeof(b), 5000, &rx, NULL,
					NULL, 0) && rx.ret == 2);
	}
	CU_ASSERT(memcmp(big, buf, 1024) == 0);
	free(big);
	rdma_env_down(&env);
	rds_test_watchdog(0, NULL);
}

/*
 * RDMA_DEST ships a cookie of the sending socket's own (net/rds/rdma.c
 * rds_cmsg_rdma_dest: the key must be in the socket's rs_rdma_keys,
 * else EINVAL). Before, any value was shipped: a socket could pass on
 * another socket's cookie, a freed one, or a forged one.
 */
static void
test_dest_owner(void)
{
	struct rdma_env env;
	struct rdma_rx rx;
	uint64_t mine, other, freed, forged;
	char b[8];
	int s2;

	rds_test_watchdog(60, "dest_owner");
	CU_ASSERT_FATAL(rdma_env_up(&env) == 0);
	s2 = rdma_socket(1, 4013, 0, 0);
	CU_ASSERT_FATAL(s2 >= 0);
	mine = reg_ship(env.cli, 0, 4096);
	other = reg_ship(s2, 4096, 4096);
	freed = reg_ship(env.cli, 8192, 4096);
	CU_ASSERT_EQUAL(rdma_free_mr(env.cli, freed, 0), 0);
	forged = mine ^ 0x00010000ULL;
	if (rdma_cookie_key(forged) == rdma_cookie_key(other) ||
	    rdma_cookie_key(forged) == rdma_cookie_key(freed))
		forged ^= 0x00020000ULL;
	EXPECT_ERR(rdma_send_dest(env.cli, &env.sa, "D", 1, other), EINVAL);
	EXPECT_ERR(rdma_send_dest(env.cli, &env.sa, "D", 1, freed), EINVAL);
	EXPECT_ERR(rdma_send_dest(env.cli, &env.sa, "D", 1, forged), EINVAL);
	EXPECT_ERR(rdma_send_dest(env.cli, &env.sa, "D", 1, 0), EINVAL);
	/* The server never registered anything. */
	EXPECT_ERR(rdma_send_dest(env.srv, &env.ca, "D", 1, mine), EINVAL);
	CU_ASSERT(rdma_quiet(env.srv, 50));
	CU_ASSERT(rdma_quiet(env.cli, 0));
	/* Its own cookie, any offset in it (only the key is looked up), and
	 * the other socket's from that socket. */
	CU_ASSERT(rdma_send_dest(env.cli, &env.sa, "D", 1, mine) == 1);
	CU_ASSERT(rdma_wait_msg(env.srv, b, sizeof(b), 5000, &rx, NULL, NULL,
				0) && rx.has_dest && rx.dest == mine);
	CU_ASSERT(rdma_send_dest(env.cli, &env.sa, "D", 1,
				 mine + (100ULL << 32)) == 1);
	CU_ASSERT(rdma_wait_msg(env.srv, b, sizeof(b), 5000, &rx, NULL, NULL,
				0) && rx.has_dest);
	CU_ASSERT(rdma_send_dest(s2, &env.sa, "D", 1, other) == 1);
	CU_ASSERT(rdma_wait_msg(env.srv, b, sizeof(b), 5000, &rx, NULL, NULL,
				0) && rx.has_dest && rx.dest == other);
	CU_ASSERT_EQUAL(rte_rds_close(s2), 0);
	rdma_env_down(&env);
	rds_test_watchdog(0, NULL);
}

/*
 * RDMA_MAP registers before the message is queued; a sendmsg that fails
 * afterwards (here EAGAIN: send buffer full, nobody polls the engine)
 * takes its region with it, as the kernel's does: the cookie it wrote
 * names nothing.
 */
static void
test_map_then_fail(void)
{
	static uint8_t page[4096] __rte_aligned(4096);
	struct rds_get_mr_args a;
	struct rdma_cbuf cb;
	struct rdma_env env;
	uint64_t cookie = 0;
	uint8_t fill[1024] = { 0 };
	int small = 4096, i;
	ssize_t r;

	rds_test_watchdog(60, "map_then_fail");
	CU_ASSERT_FATAL(rdma_env_up(&env) == 0);
	CU_ASSERT_FATAL(rte_rds_setsockopt(env.cli, SOL_SOCKET, SO_SNDBUF,
					   &small, sizeof(small)) == 0);
	for (i = 0; i < 64; i++) {
		r = rte_rds_sendto(env.cli, fill, sizeof(fill), MSG_DONTWAIT,
				   (struct sockaddr *)&env.sa, sizeof(env.sa));
		if (r < 0)
			break;
	}
	CU_ASSERT_EQUAL(r, -1);
	CU_ASSERT_EQUAL(rte_errno, EAGAIN);
	memset(&a, 0, sizeof(a));
	a.vec.addr = (uint64_t)(uintptr_t)page;
	a.vec.bytes = sizeof(page);
	a.cookie_addr = (uint64_t)(uintptr_t)&cookie;
	rdma_cbuf_init(&cb);
	rdma_cbuf_add(&cb, RDS_CMSG_RDMA_MAP, &a, sizeof(a));
	r = rdma_sendmsg(env.cli, &env.sa, "M", 1, &cb, MSG_DONTWAIT);
	CU_ASSERT_EQUAL(r, -1);
	CU_ASSERT_EQUAL(rte_errno, EAGAIN);
	CU_ASSERT(cookie != 0);
	/* Gone: freeing it again finds nothing. */
	EXPECT_ERR(rdma_free_mr(env.cli, cookie, 0), EINVAL);
	rdma_env_down(&env);
	rds_test_watchdog(0, NULL);
}

/* The kernel's behaviour where the library may differ (see top). */
static void
test_kernel_extras(void)
{
	struct rds_iovec iov[3];
	struct rds_atomic_args at;
	struct rds_get_mr_args ma;
	struct rds_rdma_args a;
	struct rdma_env env;
	uint64_t cookie = 0, olds[2] = { 0, 0 };
	int u;

	rds_test_watchdog(60, "kernel_extras");
	CU_ASSERT_FATAL(rdma_env_up(&env) == 0);
	cookie = reg_ship(env.cli, 0, 4096);
	/* A zero-length local iovec. */
	iov[0].addr = (uint64_t)(uintptr_t)(buf + 4096);
	iov[0].bytes = 32;
	iov[1].addr = (uint64_t)(uintptr_t)(buf + 4096 + 64);
	iov[1].bytes = 0;
	iov[2].addr = (uint64_t)(uintptr_t)(buf + 4096 + 128);
	iov[2].bytes = 32;
	memset(&a, 0, sizeof(a));
	a.cookie = cookie;
	a.remote_vec.bytes = 64;
	a.local_vec_addr = (uint64_t)(uintptr_t)iov;
	a.nr_local = 3;
	EXPECT_ERR(rdma_send_args(env.srv, &env.ca, "X", 1, &a), EINVAL);
	/* An atomic's local_addr must be 8-byte aligned. */
	memset(&at, 0, sizeof(at));
	at.cookie = cookie;
	at.local_addr = (uint64_t)(uintptr_t)olds + 4;
	at.fadd.add = 1;
	EXPECT_ERR(rdma_send_atomic(env.srv, &env.ca, "X", 1,
				    RDS_CMSG_ATOMIC_FADD, &at), EFAULT);
	/*
	 * Fewer local than remote bytes: the kernel rejects only more
	 * (rds_cmsg_rdma_args: nr_bytes > remote_vec.bytes), and the
	 * operation moves the local bytes (op_bytes = nr_bytes). The
	 * library refused it before (EINVAL).
	 */
	memset(buf + 4096, 0xA5, 100);
	memset(buf + 4096 * 7, 0, 128);
	iov[0].addr = (uint64_t)(uintptr_t)(buf + 4096 * 7);
	iov[0].bytes = 64;
	a.cookie = reg_ship(env.cli, 4096, 4096);
	a.remote_vec.bytes = 100;
	a.nr_local = 1;
	CU_ASSERT(rdma_send_args(env.srv, &env.ca, "LESS", 4, &a) == 4);
	{
		struct rdma_rx rx;
		char b[8];

		CU_ASSERT(rdma_wait_msg(env.cli, b, sizeof(b), 5000, &rx, NULL,
					NULL, 0) && rx.ret == 4);
	}
	CU_ASSERT(memcmp(buf + 4096 * 7, buf + 4096, 64) == 0);
	CU_ASSERT(buf[4096 * 7 + 64] == 0);
	CU_ASSERT(rdma_quiet(env.srv, 20));	/* no error notification */
	/* optlen is checked before the binding. */
	u = rte_rds_socket();
	CU_ASSERT_FATAL(u >= 0);
	memset(&ma, 0, sizeof(ma));
	ma.vec.addr = (uint64_t)(uintptr_t)buf;
	ma.vec.bytes = 64;
	ma.cookie_addr = (uint64_t)(uintptr_t)&cookie;
	EXPECT_ERR(rte_rds_setsockopt(u, SOL_RDS, RDS_GET_MR, &ma,
				      sizeof(ma) - 1), EINVAL);
	CU_ASSERT_EQUAL(rte_rds_close(u), 0);
	/* Drain whatever a lenient library queued. */
	rdma_pump(50);
	rdma_env_down(&env);
	rds_test_watchdog(0, NULL);
}

int
main(int argc, char **argv)
{
	static const struct rds_test_case cases[] = {
		{ "get_mr", test_get_mr },
		{ "free_mr", test_free_mr },
		{ "sendmsg", test_sendmsg },
		{ "kernel_extras", test_kernel_extras },
		{ "dest_owner", test_dest_owner },
		{ "map_then_fail", test_map_then_fail },
		{ NULL, NULL },
	};

	return rdma_main(argc, argv, "rdma_errno", cases);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA between two attached processes (suite multiproc): the regions and
 * the local vectors are the clients' own memory, which the engine reaches
 * with process_vm_readv/writev.
 *
 *   mp_rdma target PATH     registers a 64 KiB READWRITE region, sends
 *                           its cookie, checks what the initiator wrote
 *                           and counted, frees the region, says so
 *   mp_rdma initiator PATH  15 WRITEs of 4 KiB (from 3 scattered local
 *                           pieces each), a READ of all of it back (into
 *                           scattered pieces), 100 FADDs (every old value
 *                           once), a CSWP; then, after the target freed
 *                           its region, a WRITE that must end with
 *                           REMOTE_ERROR; and the errnos of bad memory:
 *                           GET_MR of unmapped memory (EFAULT), a READ
 *                           into read-only memory (EFAULT), a cookie
 *                           address that cannot be written (EFAULT)
 *   mp_rdma unmap PATH      its own target socket and initiator: a
 *                           READ whose send waits in the request ring
 *                           (its destination congested) while its
 *                           local buffer is unmapped ends with
 *                           RDS_RDMA_OTHER_ERROR (its data's write into
 *                           the client's memory fails when it comes
 *                           back; its message is dropped), and the
 *                           next READ succeeds
 *   mp_rdma flood PATH      its own target socket and initiator: 64 KiB
 *                           WRITEs without end, "FLOODING" printed once
 *                           8 completed, until it is killed
 * Prints "OK" and exits 0 when every check passed.
 */
#include <errno.h>
#include <arpa/inet.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include <rte_errno.h>
#include <rte_rds.h>
#include <rte_rds_attach.h>

#include "rds_test.h"
#include "mp_common.h"

#define ID_T 20
#define ID_I 21
#define REGION (64u * 1024)
#define NW 15
#define NFADD 100

static unsigned int fails;

#define CHECK(c, what) do { \
		if (!(c)) { \
			printf("FAIL %s (%s)\n", what, \
			       rte_strerror(rte_errno)); \
			fails++; \
		} \
	} while (0)

static int
sock_of(unsigned int id)
{
	return rds_test_socket(mp_ip(id), mp_port(id), 1 << 20, 1 << 20);
}

/* A message (not a notification: those are empty, unless cap is 0) by
 * end (rds_test_now_ns()), into buf; its length, or -1. */
static ssize_t
wait_msg_until(int s, void *buf, size_t cap, uint64_t end)
{
	uint64_t now;
	ssize_t r;

	while ((now = rds_test_now_ns()) < end) {
		r = rds_test_wait_msg(s, buf, cap, NULL,
				      (unsigned int)((end - now) / 1000000) + 1);
		if (r != 0 || cap == 0)
			return r;
	}
	return -1;
}

/* A message with exactly the text want (others, such as the ones the
 * RDMA operations ride on, are skipped) within 10 s: 0, or -1. */
static int
wait_text(int s, const char *want)
{
	uint64_t end = rds_test_now_ns() + 10000000000ULL;
	char buf[64];
	ssize_t r;

	do {
		r = wait_msg_until(s, buf, sizeof(buf), end);
		if (r == (ssize_t)strlen(want) && memcmp(buf, want, r) == 0)
			return 0;
	} while (r >= 0);
	printf("FAIL: no \"%s\" came\n", want);
	return -1;
}

/* A message (not a notification) within 10 s, into buf; its length. */
static ssize_t
wait_msg(int s, void *buf, size_t cap)
{
	return wait_msg_until(s, buf, cap,
			      rds_test_now_ns() + 10000000000ULL);
}

static int
send_to(int s, unsigned int id, const void *buf, size_t len)
{
	struct sockaddr_in to = mp_sin(id);

	return rte_rds_sendto(s, buf, len, 0, (struct sockaddr *)&to,
			      sizeof(to)) == (ssize_t)len ? 0 : -1;
}

static void
pattern(uint8_t *b, size_t n, unsigned int k)
{
	rds_test_fill(b, n, 0xabc000 + k);
}

/* The region the initiator reaches: it lives as long as the process. */
static uint8_t region[REGION] __attribute__((aligned(4096)));

static int
target(void)
{
	uint8_t *buf = region, want[4096];
	struct rds_get_mr_args a;
	struct rds_free_mr_args f;
	uint64_t cookie = 0, counter;
	unsigned int k;
	int s = sock_of(ID_T);

	CHECK(s >= 0, "target socket");
	memset(buf, 0, REGION);
	memset(&a, 0, sizeof(a));
	a.vec.addr = (uintptr_t)buf;
	a.vec.bytes = REGION;
	a.cookie_addr = (uintptr_t)&cookie;
	a.flags = RDS_RDMA_READWRITE;
	CHECK(rte_rds_setsockopt(s, SOL_RDS, RDS_GET_MR, &a, sizeof(a)) == 0,
	      "RDS_GET_MR of the client's memory");
	CHECK(cookie != 0, "the engine wrote the cookie into our memory");
	printf("READY\n");
	fflush(stdout);
	if (wait_text(s, "go") != 0)
		return 1;
	CHECK(send_to(s, ID_I, &cookie, sizeof(cookie)) == 0, "send cookie");
	if (wait_text(s, "done") != 0)
		return 1;
	memcpy(&counter, buf, sizeof(counter));
	CHECK(counter == NFADD + 1000, "the counter: every FADD once, and the "
	      "CSWP");
	for (k = 0; k < NW; k++) {
		pattern(want, sizeof(want), k);
		if (memcmp(buf + 4096 * (k + 1), want, sizeof(want)) != 0) {
			printf("FAIL region page %u differs\n", k + 1);
			fails++;
		}
	}
	memset(&f, 0, sizeof(f));
	f.cookie = cookie;
	CHECK(rte_rds_setsockopt(s, SOL_RDS, RDS_FREE_MR, &f, sizeof(f)) == 0,
	      "RDS_FREE_MR");
	CHECK(send_to(s, ID_I, "freed", 5) == 0, "send freed");
	if (wait_text(s, "bye") != 0)
		return 1;
	rte_rds_close(s);
	printf(fails == 0 ? "OK\n" : "FAILED\n");
	return fails == 0 ? 0 : 1;
}

/* Send one operation (control message cm of type t, arguments a). */
static ssize_t
send_op(int s, int type, const void *a, size_t alen)
{
	struct sockaddr_in to = mp_sin(ID_T);

	return rds_test_send_cmsg(s, "op", 2, &to, SOL_RDS, type, a, alen, 0);
}

/* Collect n notifications (10 s at most): statuses by token. */
static unsigned int
collect(int s, unsigned int n, int32_t *st, unsigned int max)
{
	uint64_t t0 = rds_test_now_ns();
	unsigned int got = 0;

	while (got < n && rds_test_now_ns() - t0 < 10000000000ULL) {
		union {
			char b[CMSG_SPACE(sizeof(struct rds_rdma_notify)) * 8];
			struct cmsghdr align;
		} u;
		struct msghdr mh;
		struct cmsghdr *cm;
		char d[64];
		struct iovec iov = { .iov_base = d, .iov_len = sizeof(d) };
		ssize_t r;

		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = u.b;
		mh.msg_controllen = sizeof(u.b);
		r = rte_rds_recvmsg(s, &mh, MSG_DONTWAIT);
		if (r < 0) {
			struct rte_rds_pollfd p = { .sock = s,
						    .events = POLLIN };

			rte_rds_poll(&p, 1, 100);
			continue;
		}
		for (cm = CMSG_FIRSTHDR(&mh); cm != NULL;
		     cm = CMSG_NXTHDR(&mh, cm)) {
			struct rds_rdma_notify nt;

			if (cm->cmsg_level != SOL_RDS ||
			    cm->cmsg_type != RDS_CMSG_RDMA_STATUS)
				continue;
			memcpy(&nt, CMSG_DATA(cm), sizeof(nt));
			if (nt.user_token < max)
				st[nt.user_token] = nt.status;
			got++;
		}
	}
	return got;
}

static int
initiator(void)
{
	static uint8_t src[NW][3][4096 / 3 + 2], dst[REGION], want[4096];
	uint64_t cookie, olds[NFADD + 1];
	struct rds_rdma_args ra;
	struct rds_atomic_args aa;
	struct rds_iovec iov[64];
	int32_t st[256];
	bool seen[NFADD];
	unsigned int k, j, n;
	int s = sock_of(ID_I);
	void *ro;

	CHECK(s >= 0, "initiator socket");
	CHECK(send_to(s, ID_T, "go", 2) == 0, "send go");
	CHECK(wait_msg(s, &cookie, sizeof(cookie)) == sizeof(cookie),
	      "cookie");

	/* WRITEs: page k + 1 of the region from three pieces. */
	for (k = 0; k < NW; k++) {
		size_t piece[3] = { 1365, 1365, 1366 }, off = 0;

		pattern(want, sizeof(want), k);
		for (j = 0; j < 3; j++) {
			memcpy(src[k][j], want + off, piece[j]);
			iov[j].addr = (uintptr_t)src[k][j];
			iov[j].bytes = piece[j];
			off += piece[j];
		}
		memset(&ra, 0, sizeof(ra));
		ra.cookie = cookie;
		ra.remote_vec.addr = 4096 * (k + 1);
		ra.remote_vec.bytes = 4096;
		ra.local_vec_addr = (uintptr_t)iov;
		ra.nr_local = 3;
		ra.flags = RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME;
		ra.user_token = k;
		CHECK(send_op(s, RDS_CMSG_RDMA_ARGS, &ra, sizeof(ra)) == 2,
		      "WRITE sendmsg");
	}
	memset(st, 0x7f, sizeof(st));
	CHECK(collect(s, NW, st, 256) == NW, "WRITE notifications");
	for (k = 0; k < NW; k++)
		if (st[k] != RDS_RDMA_SUCCESS) {
			printf("FAIL WRITE %u status %d\n", k, st[k]);
			fails++;
		}

	/* READ it all back, into 60 pieces of 1 KiB. */
	for (j = 0; j < 60; j++) {
		iov[j].addr = (uintptr_t)(dst + 1024 * j);
		iov[j].bytes = 1024;
	}
	memset(&ra, 0, sizeof(ra));
	ra.cookie = cookie;
	ra.remote_vec.addr = 4096;
	ra.remote_vec.bytes = 60 * 1024;
	ra.local_vec_addr = (uintptr_t)iov;
	ra.nr_local = 60;
	ra.flags = RDS_RDMA_NOTIFY_ME;
	ra.user_token = 100;
	CHECK(send_op(s, RDS_CMSG_RDMA_ARGS, &ra, sizeof(ra)) == 2,
	      "READ sendmsg");
	CHECK(collect(s, 1, st, 256) == 1 && st[100] == RDS_RDMA_SUCCESS,
	      "READ notification");
	for (k = 0; k < 15; k++) {
		pattern(want, sizeof(want), k);
		if (memcmp(dst + 4096 * k, want, 4096) != 0) {
			printf("FAIL READ page %u differs\n", k);
			fails++;
		}
	}

	/* FADDs: every old value once. */
	for (k = 0; k < NFADD; k++) {
		memset(&aa, 0, sizeof(aa));
		aa.cookie = cookie;
		aa.remote_addr = 0;
		aa.local_addr = (uintptr_t)&olds[k];
		aa.fadd.add = 1;
		aa.flags = RDS_RDMA_NOTIFY_ME;
		aa.user_token = k;
		CHECK(send_op(s, RDS_CMSG_ATOMIC_FADD, &aa, sizeof(aa)) == 2,
		      "FADD sendmsg");
	}
	CHECK(collect(s, NFADD, st, 256) == NFADD, "FADD notifications");
	memset(seen, 0, sizeof(seen));
	for (k = 0; k < NFADD; k++) {
		if (st[k] != RDS_RDMA_SUCCESS || olds[k] >= NFADD ||
		    seen[olds[k]]) {
			printf("FAIL FADD %u: status %d old %" PRIu64 "\n", k,
			       st[k], olds[k]);
			fails++;
		} else {
			seen[olds[k]] = true;
		}
	}
	/* CSWP 100 -> 1100. */
	memset(&aa, 0, sizeof(aa));
	aa.cookie = cookie;
	aa.local_addr = (uintptr_t)&olds[NFADD];
	aa.cswp.compare = NFADD;
	aa.cswp.swap = NFADD + 1000;
	aa.flags = RDS_RDMA_NOTIFY_ME;
	aa.user_token = 200;
	CHECK(send_op(s, RDS_CMSG_ATOMIC_CSWP, &aa, sizeof(aa)) == 2,
	      "CSWP sendmsg");
	CHECK(collect(s, 1, st, 256) == 1 && st[200] == RDS_RDMA_SUCCESS &&
	      olds[NFADD] == NFADD, "CSWP");

	/* The errnos of bad memory, checked in this process's memory. */
	{
		struct rds_get_mr_args a;
		uint64_t c;
		void *gone = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		munmap(gone, 8192);
		memset(&a, 0, sizeof(a));
		a.vec.addr = (uintptr_t)gone;
		a.vec.bytes = 4096;
		a.cookie_addr = (uintptr_t)&c;
		a.flags = RDS_RDMA_READWRITE;
		rte_errno = 0;
		CHECK(rte_rds_setsockopt(s, SOL_RDS, RDS_GET_MR, &a,
					 sizeof(a)) != 0 && rte_errno == EFAULT,
		      "GET_MR of unmapped memory: EFAULT");
		a.vec.addr = (uintptr_t)dst;
		a.cookie_addr = (uintptr_t)gone;
		rte_errno = 0;
		CHECK(rte_rds_setsockopt(s, SOL_RDS, RDS_GET_MR, &a,
					 sizeof(a)) != 0 && rte_errno == EFAULT,
		      "GET_MR with a cookie address that cannot be written: "
		      "EFAULT");
		ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
		iov[0].addr = (uintptr_t)ro;
		iov[0].bytes = 4096;
		memset(&ra, 0, sizeof(ra));
		ra.cookie = cookie;
		ra.remote_vec.addr = 4096;
		ra.remote_vec.bytes = 4096;
		ra.local_vec_addr = (uintptr_t)iov;
		ra.nr_local = 1;
		rte_errno = 0;
		CHECK(send_op(s, RDS_CMSG_RDMA_ARGS, &ra, sizeof(ra)) < 0 &&
		      rte_errno == EFAULT, "READ into read-only memory: EFAULT");
		munmap(ro, 4096);
	}

	CHECK(send_to(s, ID_T, "done", 4) == 0, "send done");
	CHECK(wait_text(s, "freed") == 0, "freed");
	/* A region that is gone: REMOTE_ERROR. */
	iov[0].addr = (uintptr_t)src[0][0];
	iov[0].bytes = 64;
	memset(&ra, 0, sizeof(ra));
	ra.cookie = cookie;
	ra.remote_vec.addr = 4096;
	ra.remote_vec.bytes = 64;
	ra.local_vec_addr = (uintptr_t)iov;
	ra.nr_local = 1;
	ra.flags = RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME;
	ra.user_token = 201;
	CHECK(send_op(s, RDS_CMSG_RDMA_ARGS, &ra, sizeof(ra)) == 2,
	      "WRITE to a freed region: sendmsg");
	n = collect(s, 1, st, 256);
	CHECK(n == 1 && st[201] == RDS_RDMA_REMOTE_ERROR,
	      "WRITE to a freed region: REMOTE_ERROR");
	CHECK(send_to(s, ID_T, "bye", 3) == 0, "send bye");
	rte_rds_close(s);
	printf(fails == 0 ? "OK\n" : "FAILED\n");
	return fails == 0 ? 0 : 1;
}

#define ID_UA 22		/* unmap: the congested target */
#define ID_UB 23		/* unmap: the initiator */

/* Messages queued at a local port (RDS_INFO_RECV_MESSAGES). */
static unsigned int
queued_at(uint16_t port)
{
	static struct rds_info_message m[1024];
	socklen_t len = sizeof(m);
	unsigned int i, n = 0;
	int each = rte_rds_info(RDS_INFO_RECV_MESSAGES, m, &len);

	if (each != (int)sizeof(m[0]))
		return 0;
	for (i = 0; i < len / sizeof(m[0]) && i < RTE_DIM(m); i++)
		if (ntohs(m[i].lport) == port)
			n++;
	return n;
}

static ssize_t
send_op_to(int s, unsigned int id, int type, const void *a, size_t alen)
{
	struct sockaddr_in to = mp_sin(id);

	return rds_test_send_cmsg(s, "op", 2, &to, SOL_RDS, type, a, alen, 0);
}

static int
unmap(void)
{
	static uint8_t filler[1024], live[4096];
	struct rds_get_mr_args g;
	struct rds_rdma_args ra;
	struct rds_iovec iov;
	uint64_t cookie = 0, t0;
	int32_t st[16];
	unsigned int k, n, got;
	int a = rds_test_socket(mp_ip(ID_UA), mp_port(ID_UA), 1 << 20, 4096);
	int b = sock_of(ID_UB), rcvbuf = 0, err = -1;
	socklen_t len = sizeof(rcvbuf);
	uint8_t *gone;
	char buf[2048];

	CHECK(a >= 0 && b >= 0, "sockets");
	memset(&g, 0, sizeof(g));
	g.vec.addr = (uintptr_t)region;
	g.vec.bytes = REGION;
	g.cookie_addr = (uintptr_t)&cookie;
	g.flags = RDS_RDMA_READWRITE;
	CHECK(rte_rds_setsockopt(a, SOL_RDS, RDS_GET_MR, &g, sizeof(g)) == 0,
	      "RDS_GET_MR");
	CHECK(rte_rds_getsockopt(a, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
				 &len) == 0, "SO_RCVBUF");
	/* The target congested: it holds more than its receive buffer
	 * (the engine stops taking sends to it once it does). */
	n = (unsigned int)rcvbuf / 2 / sizeof(filler) + 4;
	for (k = 0; k < n; k++)
		CHECK(send_to(b, ID_UA, filler, sizeof(filler)) == 0,
		      "filler");
	t0 = rds_test_now_ns();
	while (queued_at(mp_port(ID_UA)) * sizeof(filler) <=
	       (unsigned int)rcvbuf / 2 &&
	       rds_test_now_ns() - t0 < 10000000000ULL)
		usleep(1000);
	CHECK(queued_at(mp_port(ID_UA)) * sizeof(filler) >
	      (unsigned int)rcvbuf / 2, "the target congested");
	/* A READ into memory that is gone before the engine takes it. */
	gone = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(gone != MAP_FAILED, "mmap");
	iov.addr = (uintptr_t)gone;
	iov.bytes = 4096;
	memset(&ra, 0, sizeof(ra));
	ra.cookie = cookie;
	ra.remote_vec.addr = 0;
	ra.remote_vec.bytes = 4096;
	ra.local_vec_addr = (uintptr_t)&iov;
	ra.nr_local = 1;
	ra.flags = RDS_RDMA_NOTIFY_ME;
	ra.user_token = 7;
	CHECK(send_op_to(b, ID_UA, RDS_CMSG_RDMA_ARGS, &ra, sizeof(ra)) == 2,
	      "READ sendmsg (checked here: the memory is there)");
	munmap(gone, 8192);
	/* The target reads: the engine takes the READ, whose data finds
	 * the memory gone; its message is dropped. */
	for (got = 0, t0 = rds_test_now_ns(); got < n &&
	     rds_test_now_ns() - t0 < 10000000000ULL;) {
		if (rte_rds_recvfrom(a, buf, sizeof(buf), MSG_DONTWAIT, NULL,
				     NULL) >= 0)
			got++;
		else
			usleep(100);
	}
	CHECK(got == n, "the fillers, and nothing of the dropped READ");
	memset(st, 0x7f, sizeof(st));
	CHECK(collect(b, 1, st, RTE_DIM(st)) == 1 &&
	      st[7] == RDS_RDMA_OTHER_ERROR,
	      "a READ into memory unmapped before its data came: "
	      "RDS_RDMA_OTHER_ERROR");
	/* Told once, by its notification: no error for the next send. */
	len = sizeof(err);
	CHECK(rte_rds_getsockopt(b, SOL_SOCKET, SO_ERROR, &err, &len) == 0 &&
	      err == 0, "SO_ERROR 0");
	iov.addr = (uintptr_t)live;
	ra.user_token = 8;
	CHECK(send_op_to(b, ID_UA, RDS_CMSG_RDMA_ARGS, &ra, sizeof(ra)) == 2,
	      "READ sendmsg");
	CHECK(collect(b, 1, st, RTE_DIM(st)) == 1 &&
	      st[8] == RDS_RDMA_SUCCESS, "the next READ succeeds");
	CHECK(rte_rds_recvfrom(a, buf, sizeof(buf), 0, NULL, NULL) == 2,
	      "its message");
	rte_rds_close(a);
	rte_rds_close(b);
	printf(fails == 0 ? "OK\n" : "FAILED\n");
	return fails == 0 ? 0 : 1;
}

#define ID_FA 24		/* flood: the target */
#define ID_FB 25		/* flood: the initiator */

static int
flood(void)
{
	static uint8_t src[REGION];
	struct rds_get_mr_args g;
	struct rds_rdma_args ra;
	struct rds_iovec iov = { .addr = (uintptr_t)src, .bytes = REGION };
	uint64_t cookie = 0, sent = 0;
	unsigned int done = 0;
	bool said = false;
	int32_t st[4];
	int a = sock_of(ID_FA), b = sock_of(ID_FB);
	char buf[64];

	CHECK(a >= 0 && b >= 0, "sockets");
	memset(&g, 0, sizeof(g));
	g.vec.addr = (uintptr_t)region;
	g.vec.bytes = REGION;
	g.cookie_addr = (uintptr_t)&cookie;
	g.flags = RDS_RDMA_READWRITE;
	CHECK(rte_rds_setsockopt(a, SOL_RDS, RDS_GET_MR, &g, sizeof(g)) == 0,
	      "RDS_GET_MR");
	if (fails != 0)
		return 1;
	memset(&ra, 0, sizeof(ra));
	ra.cookie = cookie;
	ra.remote_vec.bytes = REGION;
	ra.local_vec_addr = (uintptr_t)&iov;
	ra.nr_local = 1;
	ra.flags = RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME;
	for (;;) {
		struct sockaddr_in to = mp_sin(ID_FA);
		bool more = rds_test_send_cmsg(b, "op", 2, &to, SOL_RDS,
					       RDS_CMSG_RDMA_ARGS, &ra,
					       sizeof(ra), MSG_DONTWAIT) == 2;

		if (more && (++sent & 31) != 0)
			continue;
		/* Now and then, and when there is no room: take what came
		 * back. Once some completed, the harness may kill us with
		 * more in flight. */
		while (rte_rds_recvfrom(a, buf, sizeof(buf), MSG_DONTWAIT,
					NULL, NULL) >= 0)
			;
		done += collect(b, 1, st, RTE_DIM(st));
		if (done >= 8 && !said) {
			printf("FLOODING\n");
			fflush(stdout);
			said = true;
		}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 3)
		return 2;
	if (rte_rds_attach(argv[2]) != 0) {
		printf("FAIL attach: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	if (strcmp(argv[1], "target") == 0)
		return target();
	if (strcmp(argv[1], "initiator") == 0)
		return initiator();
	if (strcmp(argv[1], "unmap") == 0)
		return unmap();
	if (strcmp(argv[1], "flood") == 0)
		return flood();
	return 2;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA_MAP and RDS_FREE_MR of an attached process (suite multiproc,
 * case rdma_map): rds-stress's pattern, a requester that registers its
 * buffer with RDMA_MAP on each request and frees it with RDS_FREE_MR
 * when the answer comes, and a responder that WRITEs into it with the
 * cookie the request carried. Both are sockets of this process.
 *
 *   mp_rdma_map map PATH   NREQ requests (RDMA_MAP, a 64 KiB WRITE of a
 *                          pattern, the answer, FREE_MR), each checked:
 *                          the cookie written at the send is the one
 *                          the responder got (RDMA_DEST), the WRITE's
 *                          data is in the buffer. Then the errnos the
 *                          kernel gives, while the socket has keys (its
 *                          RDMA_MAPs go through its request ring):
 *                          RDMA_MAP of unmapped memory EFAULT, of 0
 *                          bytes EINVAL, of 2 MiB EMSGSIZE; FREE_MR of
 *                          a freed cookie, of one never made, of a
 *                          USE_ONCE region a WRITE used: EINVAL; a
 *                          WRITE to a freed cookie REMOTE_ERROR; a
 *                          FREE_MR with INVALIDATE 0 then EINVAL; an
 *                          RDMA_DEST of a region the ring mapped goes
 *                          through, and one of a key this socket never
 *                          had is EINVAL.
 * Prints "OK" and exits 0 when every check passed; the harness counts
 * the control calls the engine answered (a few, not one per RDMA_MAP
 * and FREE_MR).
 */
#include <errno.h>
#include <inttypes.h>
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

#define ID_REQ 24
#define ID_RSP 25
#define NREQ 200
#define BUF (64u * 1024)

static unsigned int fails;

#define CHECK(c, what) do { \
		if (!(c)) { \
			printf("FAIL %s (%s)\n", what, \
			       rte_strerror(rte_errno)); \
			fails++; \
		} \
	} while (0)

static uint8_t buf[BUF] __attribute__((aligned(4096)));
static uint8_t src[BUF];

/* A request with RDMA_MAP (a, its cookie written to *cookie): the
 * sendmsg's return. */
static ssize_t
send_map(int s, uint64_t addr, uint64_t bytes, uint64_t flags,
	 uint64_t *cookie)
{
	struct sockaddr_in to = mp_sin(ID_RSP);
	struct rds_get_mr_args a;

	memset(&a, 0, sizeof(a));
	a.vec.addr = addr;
	a.vec.bytes = bytes;
	a.cookie_addr = (uintptr_t)cookie;
	a.flags = flags;
	return rds_test_send_cmsg(s, "req", 3, &to, SOL_RDS, RDS_CMSG_RDMA_MAP,
				  &a, sizeof(a), 0);
}

/* The next message on s (10 s), with the RDMA_DEST cookie it carried
 * (0: none) and notifications' statuses (-1: none). Its length. */
static ssize_t
next(int s, uint64_t *dest, int32_t *status)
{
	union {
		char b[256];
		struct cmsghdr align;
	} u;
	char d[16];
	size_t clen = sizeof(u.b);
	struct msghdr mh;
	struct cmsghdr *cm;
	ssize_t r;

	*dest = 0;
	*status = -1;
	r = rds_test_wait_msg_ctl(s, d, sizeof(d), NULL, u.b, &clen, 10000);
	if (r < 0)
		return r;
	memset(&mh, 0, sizeof(mh));
	mh.msg_control = u.b;
	mh.msg_controllen = clen;
	for (cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level != SOL_RDS)
			continue;
		if (cm->cmsg_type == RDS_CMSG_RDMA_DEST)
			memcpy(dest, CMSG_DATA(cm), sizeof(*dest));
		if (cm->cmsg_type == RDS_CMSG_RDMA_STATUS) {
			struct rds_rdma_notify n;

			memcpy(&n, CMSG_DATA(cm), sizeof(n));
			*status = n.status;
		}
	}
	return r;
}

/* The responder: a WRITE of BUF bytes of src to cookie, with its
 * notification's status. */
static int32_t
write_to(int rsp, uint64_t cookie)
{
	struct sockaddr_in to = mp_sin(ID_REQ);
	struct rds_rdma_args ra;
	struct rds_iovec v = { .addr = (uintptr_t)src, .bytes = BUF };
	uint64_t dest;
	int32_t st = -1;
	unsigned int i;

	memset(&ra, 0, sizeof(ra));
	ra.cookie = cookie;
	ra.remote_vec.bytes = BUF;
	ra.local_vec_addr = (uintptr_t)&v;
	ra.nr_local = 1;
	ra.flags = RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME;
	if (rds_test_send_cmsg(rsp, "ack", 3, &to, SOL_RDS, RDS_CMSG_RDMA_ARGS,
			       &ra, sizeof(ra), 0) != 3)
		return -1000;
	/* The notification (an empty message with the status). */
	for (i = 0; i < 4 && st < 0; i++)
		if (next(rsp, &dest, &st) < 0)
			return -1001;
	return st;
}

static int
free_mr(int s, uint64_t cookie, uint64_t flags)
{
	struct rds_free_mr_args f = { .cookie = cookie, .flags = flags };

	return rte_rds_setsockopt(s, SOL_RDS, RDS_FREE_MR, &f, sizeof(f));
}

/* One rds-stress round: 0 when every step went as it should. */
static int
round_trip(int req, int rsp, unsigned int k, uint64_t flags,
	   uint64_t *cookie_out)
{
	uint64_t cookie = 0, dest;
	int32_t st;
	ssize_t r;

	rds_test_fill(src, BUF, 0x5eed0000 + k);
	memset(buf, 0, BUF);
	if (send_map(req, (uintptr_t)buf, BUF, flags, &cookie) != 3 ||
	    cookie == 0) {
		printf("FAIL request %u: sendmsg with RDMA_MAP (%s)\n", k,
		       rte_strerror(rte_errno));
		return -1;
	}
	r = next(rsp, &dest, &st);
	if (r != 3 || dest != cookie) {
		printf("FAIL request %u: the responder got cookie %#" PRIx64
		       ", the send wrote %#" PRIx64 "\n", k, dest, cookie);
		return -1;
	}
	st = write_to(rsp, dest);
	if (st != RDS_RDMA_SUCCESS) {
		printf("FAIL request %u: WRITE status %d\n", k, (int)st);
		return -1;
	}
	if (next(req, &dest, &st) != 3 || memcmp(buf, src, BUF) != 0) {
		printf("FAIL request %u: the answer, or the data written\n",
		       k);
		return -1;
	}
	*cookie_out = cookie;
	return 0;
}

static int
map(void)
{
	int req = rds_test_socket(mp_ip(ID_REQ), mp_port(ID_REQ), 1 << 20,
				  1 << 20);
	int rsp = rds_test_socket(mp_ip(ID_RSP), mp_port(ID_RSP), 1 << 20,
				  1 << 20);
	struct sockaddr_in to = mp_sin(ID_RSP);
	uint64_t cookie = 0, c2 = 0, dest, bogus;
	unsigned int k;
	int32_t st;
	void *gone;

	CHECK(req >= 0 && rsp >= 0, "sockets");
	for (k = 0; k < NREQ; k++) {
		if (round_trip(req, rsp, k, RDS_RDMA_READWRITE, &cookie) != 0) {
			fails++;
			break;
		}
		CHECK(free_mr(req, cookie, 0) == 0, "FREE_MR");
	}
	/* The last one's cookie is freed: again, EINVAL; a WRITE to it
	 * ends with REMOTE_ERROR. */
	rte_errno = 0;
	CHECK(free_mr(req, cookie, 0) < 0 && rte_errno == EINVAL,
	      "FREE_MR of a freed cookie: EINVAL");
	CHECK(write_to(rsp, cookie) == RDS_RDMA_REMOTE_ERROR,
	      "WRITE to a freed cookie: REMOTE_ERROR");
	/* A key this socket never had. */
	rds_test_fill(&bogus, sizeof(bogus), 77);
	bogus |= 1;
	rte_errno = 0;
	CHECK(free_mr(req, bogus, 0) < 0 && rte_errno == EINVAL,
	      "FREE_MR of a cookie never made: EINVAL");
	/* The kernel's errnos of RDMA_MAP, from the ring's path. */
	gone = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(gone, 8192);
	rte_errno = 0;
	CHECK(send_map(req, (uintptr_t)gone, 4096, RDS_RDMA_READWRITE,
		       &cookie) < 0 && rte_errno == EFAULT,
	      "RDMA_MAP of unmapped memory: EFAULT");
	rte_errno = 0;
	CHECK(send_map(req, (uintptr_t)buf, 0, RDS_RDMA_READWRITE,
		       &cookie) < 0 && rte_errno == EINVAL,
	      "RDMA_MAP of 0 bytes: EINVAL");
	rte_errno = 0;
	CHECK(send_map(req, (uintptr_t)buf, 2u << 20, RDS_RDMA_READWRITE,
		       &cookie) < 0 && rte_errno == EMSGSIZE,
	      "RDMA_MAP of 2 MiB: EMSGSIZE");
	/* USE_ONCE: the WRITE used it, it is gone. */
	CHECK(round_trip(req, rsp, NREQ, RDS_RDMA_READWRITE |
			 RDS_RDMA_USE_ONCE, &cookie) == 0, "USE_ONCE round");
	rte_errno = 0;
	CHECK(free_mr(req, cookie, 0) < 0 && rte_errno == EINVAL,
	      "FREE_MR of a used USE_ONCE region: EINVAL");
	/* INVALIDATE: a call, done when it returns. */
	CHECK(round_trip(req, rsp, NREQ + 1, RDS_RDMA_READWRITE, &cookie) == 0,
	      "a round for INVALIDATE");
	CHECK(free_mr(req, cookie, RDS_RDMA_INVALIDATE) == 0,
	      "FREE_MR with INVALIDATE");
	rte_errno = 0;
	CHECK(free_mr(req, cookie, 0) < 0 && rte_errno == EINVAL,
	      "FREE_MR after INVALIDATE: EINVAL");
	/* RDMA_DEST of a region the ring mapped, then of none. */
	CHECK(round_trip(req, rsp, NREQ + 2, RDS_RDMA_READWRITE, &c2) == 0,
	      "a round for RDMA_DEST");
	CHECK(rds_test_send_cmsg(req, "dst", 3, &to, SOL_RDS,
				 RDS_CMSG_RDMA_DEST, &c2, sizeof(c2), 0) == 3,
	      "RDMA_DEST of a region the ring mapped");
	CHECK(next(rsp, &dest, &st) == 3 && dest == c2,
	      "RDMA_DEST came with its cookie");
	CHECK(free_mr(req, c2, 0) == 0, "FREE_MR after RDMA_DEST");
	rte_errno = 0;
	CHECK(rds_test_send_cmsg(req, "dst", 3, &to, SOL_RDS,
				 RDS_CMSG_RDMA_DEST, &bogus, sizeof(bogus),
				 0) < 0 && rte_errno == EINVAL,
	      "RDMA_DEST of a key never made: EINVAL");
	rte_rds_close(req);
	rte_rds_close(rsp);
	printf(fails == 0 ? "OK\n" : "FAILED\n");
	return fails == 0 ? 0 : 1;
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
	if (strcmp(argv[1], "map") == 0)
		return map();
	return 2;
}

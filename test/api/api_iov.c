/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The socket API (suite 'api', binary api_iov; api_common.h says how).
 *
 * Caller memory: iovec counts and lengths, buffers that end at a guard
 * page, control buffers and their bounds, on send and on receive.
 */

#include "api_common.h"

/*
 * One accessible page followed by a PROT_NONE page: an object placed at
 * its end is followed by memory that faults on any access. Returns the
 * end of the accessible page (the guard's first byte).
 */
static uint8_t *
guard_end(void **map)
{
	uint8_t *p = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CU_ASSERT_FATAL(p != MAP_FAILED);
	CU_ASSERT_FATAL(mprotect(p + 4096, 4096, PROT_NONE) == 0);
	*map = p;
	return p + 4096;
}

/*
 * iovec arrays (net/socket.c __copy_msghdr, lib/iov_iter.c
 * iovec_from_user): more than UIO_MAXIOV (1024) elements is EMSGSIZE on
 * sendmsg and on recvmsg, checked before the array is read (a huge count
 * with a one-element array before a guard page must not crash); an
 * element longer than SSIZE_MAX is EINVAL (so lengths cannot wrap the
 * total); no array for a non-zero count is EFAULT (the kernel's
 * copy_from_user; the library said EINVAL before); 1024 elements work
 * both ways.
 */
static void
test_iov_limits(void)
{
	static struct iovec iov[1025];
	static uint8_t data[1025], got[1025];
	struct sockaddr_in to = rds_test_sin(RDS_TEST_IP2, 5000), from;
	struct iovec *last;
	struct msghdr mh;
	void *map;
	unsigned int i;
	int s, r;

	ctx = "iovlen";
	lib_up();
	r = sock_at(RDS_TEST_IP2, 5000);
	s = sock_at(RDS_TEST_IP1, 4000);
	rds_test_fill(data, sizeof(data), 7);
	for (i = 0; i < RTE_DIM(iov); i++) {
		iov[i].iov_base = data + i;
		iov[i].iov_len = 1;
	}
	memset(&mh, 0, sizeof(mh));
	mh.msg_name = &to;
	mh.msg_namelen = sizeof(to);
	mh.msg_iov = iov;
	mh.msg_iovlen = 1025;
	EXPECT_ERR(rte_rds_sendmsg(s, &mh, MSG_DONTWAIT), EMSGSIZE);
	mh.msg_iovlen = 1024;
	EXPECT_RET(rte_rds_sendmsg(s, &mh, MSG_DONTWAIT), 1024);

	/* A huge count with a one-element array right before a guard. */
	last = (struct iovec *)(void *)(guard_end(&map) - sizeof(*last));
	last->iov_base = data;
	last->iov_len = 1;
	mh.msg_iov = last;
	mh.msg_iovlen = (size_t)1 << 40;
	EXPECT_ERR(rte_rds_sendmsg(s, &mh, MSG_DONTWAIT), EMSGSIZE);
	mh.msg_iovlen = SIZE_MAX;
	EXPECT_ERR(rte_rds_sendmsg(s, &mh, 0), EMSGSIZE);
	mh.msg_iovlen = 1;
	EXPECT_RET(rte_rds_sendmsg(s, &mh, MSG_DONTWAIT), 1);
	/* No array at all (the kernel's copy_from_user fails). */
	mh.msg_iov = NULL;
	EXPECT_ERR(rte_rds_sendmsg(s, &mh, MSG_DONTWAIT), EFAULT);

	/* Lengths that would wrap the total: EINVAL (ssize_t < 0). */
	ctx = "iov_len";
	iov[0].iov_len = 10;
	iov[1].iov_len = SIZE_MAX - 5;
	mh.msg_iov = iov;
	mh.msg_iovlen = 2;
	EXPECT_ERR(rte_rds_sendmsg(s, &mh, MSG_DONTWAIT), EINVAL);
	iov[1].iov_len = (size_t)SSIZE_MAX + 1;
	EXPECT_ERR(rte_rds_sendmsg(s, &mh, MSG_DONTWAIT), EINVAL);
	/* Within ssize_t but over 1 MiB together: EMSGSIZE. */
	iov[1].iov_len = (size_t)SSIZE_MAX;
	EXPECT_ERR(rte_rds_sendmsg(s, &mh, MSG_DONTWAIT), EMSGSIZE);
	iov[0].iov_len = 1;
	iov[1].iov_len = 1;

	/* Receive: the same limits, before anything is taken. */
	ctx = "recv iovlen";
	memset(&mh, 0, sizeof(mh));
	for (i = 0; i < RTE_DIM(iov); i++) {
		iov[i].iov_base = got + i;
		iov[i].iov_len = 1;
	}
	mh.msg_iov = iov;
	mh.msg_iovlen = 1025;
	EXPECT_ERR(rte_rds_recvmsg(r, &mh, 0), EMSGSIZE);
	mh.msg_iov = last;
	last->iov_base = got;
	mh.msg_iovlen = SIZE_MAX;
	EXPECT_ERR(rte_rds_recvmsg(r, &mh, MSG_DONTWAIT), EMSGSIZE);
	mh.msg_iov = NULL;
	mh.msg_iovlen = 1;
	EXPECT_ERR(rte_rds_recvmsg(r, &mh, MSG_DONTWAIT), EFAULT);
	mh.msg_iov = iov;
	mh.msg_iovlen = 2;
	iov[1].iov_len = SIZE_MAX;
	EXPECT_ERR(rte_rds_recvmsg(r, &mh, MSG_DONTWAIT), EINVAL);
	iov[1].iov_len = 1;
	/* Both messages are still there: 1024 bytes in 1024 pieces. */
	mh.msg_name = &from;
	mh.msg_namelen = sizeof(from);
	mh.msg_iovlen = 1024;
	memset(got, 0, sizeof(got));
	EXPECT_RET(rte_rds_recvmsg(r, &mh, 0), 1024);
	CU_ASSERT(memcmp(got, data, 1024) == 0);
	expect_msg(r, data, 1, RDS_TEST_IP1, 4000);
	expect_nothing(r);

	munmap(map, 2 * 4096);
	EXPECT_OK(rte_rds_close(s));
	EXPECT_OK(rte_rds_close(r));
	lib_down();
}

/*
 * Control-message bounds (net/socket.c ____sys_sendmsg, the kernel's
 * for_each_cmsghdr and CMSG_OK as rds_rdma_bytes/rds_rm_size use them):
 * a cmsg_len under sizeof(struct cmsghdr) or past msg_controllen is
 * EINVAL whatever the level, and nothing past msg_controllen is read (the
 * buffers sit right before a PROT_NONE page); trailing bytes too short
 * for a header are ignored; msg_control NULL with a length is EFAULT
 * (the kernel's copy_from_user; was EINVAL); a length over INT_MAX is
 * ENOBUFS; an unaligned buffer is read correctly.
 */
static void
test_cmsg_bounds(void)
{
	struct sockaddr_in to = rds_test_sin(RDS_TEST_IP2, 5000);
	struct iovec iov = { .iov_base = (void *)(uintptr_t)"x",
			     .iov_len = 1 };
	struct cmsghdr h;
	struct msghdr mh;
	uint8_t *end, *c;
	void *map;
	int s, r, one = 1;

	ctx = "cmsg bounds";
	lib_up();
	r = sock_at(RDS_TEST_IP2, 5000);
	s = sock_at(RDS_TEST_IP1, 4000);
	end = guard_end(&map);
	memset(&mh, 0, sizeof(mh));
	mh.msg_name = &to;
	mh.msg_namelen = sizeof(to);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;

	/* One RDMA_ARGS header, 8 data bytes, claiming a whole rds_rdma_args
	 * (48 bytes): the claim ends 40 bytes into the guard page. */
	c = end - CMSG_SPACE(8);
	memset(c, 0, CMSG_SPACE(8));
	h.cmsg_len = CMSG_LEN(sizeof(struct rds_rdma_args));
	h.cmsg_level = SOL_RDS;
	h.cmsg_type = RDS_CMSG_RDMA_ARGS;
	memcpy(c, &h, sizeof(h));
	mh.msg_control = c;
	mh.msg_controllen = CMSG_SPACE(8);
	EXPECT_ERR(rte_rds_sendmsg(s, &mh, MSG_DONTWAIT), EINVAL);
	/* The same for the other SOL_RDS types, and for another level
	 * (CMSG_OK comes before the level). */
	h.cmsg_type = RDS_CMSG_RDMA_MAP;
	memcpy(c, &h, sizeof(h));
	EXPECT_ERR(rte_rds_sendmsg(s, &mh, MSG_DONTWAIT), EINVAL);
	h.cmsg_type = RDS_CMSG_ATOMIC_CSWP;
	memcpy(c, &h, sizeof(h));
	EXPECT_ERR(rte_rds_sendmsg(s, &mh, MSG_DONTWAIT), EINVAL);
	h.cmsg_type = RDS_CMSG_RDMA_DEST;
	h.cmsg_len = CMSG_LEN(9);
	memcpy(c, &h, sizeof(h));
	EXPECT_ERR(rte_rds_sendmsg(s, &mh, MSG_DONTWAIT), EINVAL);
	h.cmsg_level = SOL_SOCKET;
	h.cmsg_type = SCM_RIGHTS;
	h.cmsg_len = 1u << 30;
	memcpy(c, &h, sizeof(h));
	EXPECT_ERR(rte_rds_sendmsg(s, &mh, MSG_DONTWAIT), EINVAL);
	h.cmsg_len = 4;		/* under sizeof(struct cmsghdr) */
	memcpy(c, &h, sizeof(h));
	EXPECT_ERR(rte_rds_sendmsg(s, &mh, MSG_DONTWAIT), EINVAL);

	/* Two cmsgs, the second claiming past the end. */
	c = end - 2 * CMSG_SPACE(sizeof(int));
	h.cmsg_level = SOL_SOCKET;
	h.cmsg_type = SCM_RIGHTS;
	h.cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(c, &h, sizeof(h));
	memcpy(c + CMSG_LEN(0), &one, sizeof(one));
	h.cmsg_level = SOL_RDS;
	h.cmsg_type = RDS_CMSG_RDMA_ARGS;
	h.cmsg_len = CMSG_LEN(sizeof(struct rds_rdma_args));
	memcpy(c + CMSG_SPACE(sizeof(int)), &h, sizeof(h));
	mh.msg_control = c;
	mh.msg_controllen = 2 * CMSG_SPACE(sizeof(int));
	EXPECT_ERR(rte_rds_sendmsg(s, &mh, MSG_DONTWAIT), EINVAL);
	/* Only the first one inside msg_controllen, and fewer bytes than a
	 * header after it: ignored, the message goes. */
	mh.msg_controllen = CMSG_SPACE(sizeof(int)) + sizeof(h) - 1;
	EXPECT_RET(rte_rds_sendmsg(s, &mh, MSG_DONTWAIT), 1);
	expect_msg(r, "x", 1, RDS_TEST_IP1, 4000);
	/* Less than one header: no control message at all. */
	mh.msg_control = end - 8;
	mh.msg_controllen = 8;
	EXPECT_RET(rte_rds_sendmsg(s, &mh, MSG_DONTWAIT), 1);
	expect_msg(r, "x", 1, RDS_TEST_IP1, 4000);

	/* An unaligned buffer (the kernel copies it; so must we). */
	c = end - CMSG_SPACE(sizeof(int)) - 1;
	h.cmsg_level = SOL_SOCKET;
	h.cmsg_type = SCM_RIGHTS;
	h.cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(c, &h, sizeof(h));
	mh.msg_control = c;
	mh.msg_controllen = CMSG_SPACE(sizeof(int)) + 1;
	EXPECT_RET(rte_rds_sendmsg(s, &mh, MSG_DONTWAIT), 1);
	expect_msg(r, "x", 1, RDS_TEST_IP1, 4000);

	/* No buffer for a length; a length over INT_MAX. */
	mh.msg_control = NULL;
	mh.msg_controllen = CMSG_SPACE(8);
	EXPECT_ERR(rte_rds_sendmsg(s, &mh, MSG_DONTWAIT), EFAULT);
	mh.msg_control = end - CMSG_SPACE(8);
	mh.msg_controllen = (size_t)INT_MAX + 1;
	EXPECT_ERR(rte_rds_sendmsg(s, &mh, MSG_DONTWAIT), ENOBUFS);
	expect_nothing(r);

	munmap(map, 2 * 4096);
	EXPECT_OK(rte_rds_close(s));
	EXPECT_OK(rte_rds_close(r));
	lib_down();
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "iov_limits", test_iov_limits },
		{ "cmsg_bounds", test_cmsg_bounds },
		{ NULL, NULL },
	};

	return api_main("api_iov", cases);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The caller-argument checkers, called directly (suite 'unit', binary
 * unit_uarg): rds_uarg_iov() (iovec arrays), the control-message walk,
 * and rds_mem_check() / rds_mem_check_iov() (memory handed over to the
 * engine), with guard pages so that a read or write past what is allowed
 * crashes the test. The 'cost' case prints what the memory checks cost
 * (TSC cycles and ns per call, median of a run) and asserts nothing
 * about it:
 *
 *   meson test -C build unit_uarg -v      (or build/test/unit/unit_uarg)
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <CUnit/CUnit.h>

#include <rte_cycles.h>

#include "rds_private.h"
#include "rds_test.h"

#define PG 4096u

/* npages accessible pages between two PROT_NONE pages; returns the
 * first accessible page, *map the mapping (npages + 2 pages). */
static uint8_t *
guarded(size_t npages, void **map)
{
	uint8_t *p = mmap(NULL, (npages + 2) * PG, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CU_ASSERT_FATAL(p != MAP_FAILED);
	CU_ASSERT_FATAL(mprotect(p, PG, PROT_NONE) == 0);
	CU_ASSERT_FATAL(mprotect(p + (npages + 1) * PG, PG, PROT_NONE) == 0);
	*map = p;
	return p + PG;
}

/* ------------------------------------------------------------------ */

static void
test_iov(void)
{
	static struct iovec iov[1025];
	uint8_t b[4];
	size_t total = 99;
	unsigned int i;

	for (i = 0; i < RTE_DIM(iov); i++) {
		iov[i].iov_base = b;
		iov[i].iov_len = 1;
	}
	CU_ASSERT_EQUAL(rds_uarg_iov(NULL, 0, &total), 0);
	CU_ASSERT_EQUAL(total, 0);
	CU_ASSERT_EQUAL(rds_uarg_iov(iov, 1024, &total), 0);
	CU_ASSERT_EQUAL(total, 1024);
	CU_ASSERT_EQUAL(rds_uarg_iov(iov, 1025, &total), -EMSGSIZE);
	CU_ASSERT_EQUAL(rds_uarg_iov(NULL, SIZE_MAX, &total), -EMSGSIZE);
	CU_ASSERT_EQUAL(rds_uarg_iov(NULL, 1, &total), -EFAULT);
	iov[3].iov_base = NULL;
	CU_ASSERT_EQUAL(rds_uarg_iov(iov, 4, &total), -EFAULT);
	iov[3].iov_len = 0;
	CU_ASSERT_EQUAL(rds_uarg_iov(iov, 4, &total), 0);
	CU_ASSERT_EQUAL(total, 3);
	iov[3].iov_base = b;
	iov[3].iov_len = (size_t)SSIZE_MAX + 1;
	CU_ASSERT_EQUAL(rds_uarg_iov(iov, 4, &total), -EINVAL);
	/* Large lengths saturate instead of wrapping. */
	for (i = 0; i < 4; i++)
		iov[i].iov_len = (size_t)SSIZE_MAX;
	CU_ASSERT_EQUAL(rds_uarg_iov(iov, 4, &total), 0);
	CU_ASSERT_EQUAL(total, (size_t)SSIZE_MAX);
}

/* ------------------------------------------------------------------ */

static void
put_hdr(uint8_t *at, size_t len, int level, int type)
{
	struct cmsghdr h = { .cmsg_len = len, .cmsg_level = level,
			     .cmsg_type = type };

	memcpy(at, &h, sizeof(h));
}

/* Walk the buffer [c, c + len); returns the number of cmsgs, or the
 * error. */
static int
walk(const uint8_t *c, size_t len, struct rds_cmsg *out, unsigned int max)
{
	struct msghdr mh = { .msg_control = (void *)(uintptr_t)c,
			     .msg_controllen = len };
	struct rds_cmsg_iter it;
	struct rds_cmsg cm;
	unsigned int n = 0;
	int ret;

	ret = rds_uarg_cmsg_start(&it, &mh);
	if (ret < 0)
		return ret;
	while ((ret = rds_uarg_cmsg_next(&it, &cm)) > 0) {
		if (n < max)
			out[n] = cm;
		n++;
	}
	return ret < 0 ? ret : (int)n;
}

static void
test_cmsg_walk(void)
{
	struct rds_cmsg cm[4];
	uint8_t *end, *c;
	void *map;

	end = guarded(1, &map) + PG;
	/* Empty, shorter than a header. */
	CU_ASSERT_EQUAL(walk(NULL, 0, cm, 4), 0);
	CU_ASSERT_EQUAL(walk(NULL, 16, cm, 4), -EFAULT);
	CU_ASSERT_EQUAL(walk(end - 8, (size_t)INT_MAX + 1, cm, 4), -ENOBUFS);
	CU_ASSERT_EQUAL(walk(end - 15, 15, cm, 4), 0);
	/* One header, exactly: data of 0 and of 8 bytes. */
	c = end - CMSG_LEN(0);
	put_hdr(c, CMSG_LEN(0), 1, 2);
	CU_ASSERT_EQUAL(walk(c, CMSG_LEN(0), cm, 4), 1);
	CU_ASSERT_EQUAL(cm[0].len, 0);
	CU_ASSERT_EQUAL(cm[0].level, 1);
	CU_ASSERT_EQUAL(cm[0].type, 2);
	c = end - CMSG_SPACE(8);
	put_hdr(c, CMSG_LEN(8), SOL_RDS, 3);
	CU_ASSERT_EQUAL(walk(c, CMSG_SPACE(8), cm, 4), 1);
	CU_ASSERT_EQUAL(cm[0].len, 8);
	CU_ASSERT(cm[0].data == c + CMSG_LEN(0));
	/* Claims beyond the buffer by one byte, or a lot; too short. */
	put_hdr(c, CMSG_SPACE(8) + 1, SOL_RDS, 3);
	CU_ASSERT_EQUAL(walk(c, CMSG_SPACE(8), cm, 4), -EINVAL);
	put_hdr(c, SIZE_MAX, SOL_RDS, 3);
	CU_ASSERT_EQUAL(walk(c, CMSG_SPACE(8), cm, 4), -EINVAL);
	put_hdr(c, sizeof(struct cmsghdr) - 1, 0, 0);
	CU_ASSERT_EQUAL(walk(c, CMSG_SPACE(8), cm, 4), -EINVAL);
	/* cmsg_len not a multiple of 8, last in the buffer: its aligned
	 * step goes past the end, which ends the walk. */
	c = end - CMSG_LEN(5);
	put_hdr(c, CMSG_LEN(5), 7, 7);
	CU_ASSERT_EQUAL(walk(c, CMSG_LEN(5), cm, 4), 1);
	CU_ASSERT_EQUAL(cm[0].len, 5);
	/* Three, the last one unaligned in an unaligned buffer. */
	c = end - (2 * CMSG_SPACE(4) + CMSG_LEN(3)) - 3;
	put_hdr(c, CMSG_LEN(4), 1, 1);
	put_hdr(c + CMSG_SPACE(4), CMSG_LEN(1), 2, 2);
	put_hdr(c + 2 * CMSG_SPACE(4), CMSG_LEN(3), 3, 3);
	CU_ASSERT_EQUAL(walk(c, 2 * CMSG_SPACE(4) + CMSG_LEN(3) + 3, cm, 4),
			3);
	CU_ASSERT_EQUAL(cm[2].type, 3);
	CU_ASSERT_EQUAL(cm[2].len, 3);
	/* The second one claims one byte too many. */
	put_hdr(c + CMSG_SPACE(4), 2 * CMSG_SPACE(4) + 1, 2, 2);
	CU_ASSERT_EQUAL(walk(c, 2 * CMSG_SPACE(4) + 3, cm, 4), -EINVAL);
	munmap(map, 3 * PG);
}

/* ------------------------------------------------------------------ */

static void
test_mem_check(void)
{
	uint8_t *p, *q;
	void *map;
	char path[] = "/tmp/unit_uarg.XXXXXX";
	int fd;
	pid_t child;

	p = guarded(4, &map);
	/* Inside; the guard pages; across an edge. */
	CU_ASSERT_EQUAL(rds_mem_check(0, (uintptr_t)p, 4 * PG,
				      PROT_READ | PROT_WRITE), 0);
	CU_ASSERT_EQUAL(rds_mem_check(getpid(), (uintptr_t)p + 1, 10,
				      PROT_READ), 0);
	CU_ASSERT_EQUAL(rds_mem_check(0, (uintptr_t)p - PG, PG, PROT_READ),
			-EFAULT);
	CU_ASSERT_EQUAL(rds_mem_check(0, (uintptr_t)p - 1, 2, PROT_READ),
			-EFAULT);
	CU_ASSERT_EQUAL(rds_mem_check(0, (uintptr_t)p + 4 * PG - 1, 2,
				      PROT_READ | PROT_WRITE), -EFAULT);
	CU_ASSERT_EQUAL(rds_mem_check(0, (uintptr_t)p, 0, PROT_READ), 0);
	CU_ASSERT_EQUAL(rds_mem_check(0, 0, 1, PROT_READ), -EFAULT);
	CU_ASSERT_EQUAL(rds_mem_check(0, UINTPTR_MAX - 10, 100, PROT_READ),
			-EFAULT);
	CU_ASSERT_EQUAL(rds_mem_check(0, (uintptr_t)0xffff888000000000ULL,
				      PG, PROT_READ), -EFAULT);
	/* Read-only pages: readable, not writable; a write-only ask means
	 * read as well. */
	CU_ASSERT_FATAL(mprotect(p + PG, PG, PROT_READ) == 0);
	CU_ASSERT_EQUAL(rds_mem_check(0, (uintptr_t)p, 4 * PG, PROT_READ), 0);
	CU_ASSERT_EQUAL(rds_mem_check(0, (uintptr_t)p, 4 * PG,
				      PROT_READ | PROT_WRITE), -EFAULT);
	CU_ASSERT_EQUAL(rds_mem_check(0, (uintptr_t)p + PG + 5, 1,
				      PROT_WRITE), -EFAULT);
	CU_ASSERT_EQUAL(rds_mem_check(0, (uintptr_t)p + 2 * PG, 2 * PG,
				      PROT_READ | PROT_WRITE), 0);
	/* Several mappings side by side count as one range (p + PG has
	 * its own VMA now); a hole does not. */
	CU_ASSERT_EQUAL(rds_mem_check(0, (uintptr_t)p + PG, 3 * PG,
				      PROT_READ), 0);
	CU_ASSERT_FATAL(munmap(p + 2 * PG, PG) == 0);
	CU_ASSERT_EQUAL(rds_mem_check(0, (uintptr_t)p + PG, 3 * PG,
				      PROT_READ), -EFAULT);
	CU_ASSERT_EQUAL(rds_mem_check(0, (uintptr_t)p + 3 * PG - 1, 2,
				      PROT_READ | PROT_WRITE), -EFAULT);

	/* A shared file mapping past the end of its file: the maps say
	 * rw, but an access would raise SIGBUS. */
	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	unlink(path);
	CU_ASSERT_FATAL(ftruncate(fd, PG) == 0);
	q = mmap(NULL, 3 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CU_ASSERT_FATAL(q != MAP_FAILED);
	CU_ASSERT_EQUAL(rds_mem_check(0, (uintptr_t)q, PG,
				      PROT_READ | PROT_WRITE), 0);
	CU_ASSERT_EQUAL(rds_mem_check(0, (uintptr_t)q, 2 * PG,
				      PROT_READ | PROT_WRITE), -EFAULT);
	CU_ASSERT_EQUAL(rds_mem_check(0, (uintptr_t)q + 2 * PG, 1,
				      PROT_READ), -EFAULT);
	munmap(q, 3 * PG);
	close(fd);

	/* Another process: a child that inherited the mapping, then
	 * unmapped a page of its own; after it is gone, ESRCH. */
	child = fork();
	CU_ASSERT_FATAL(child >= 0);
	if (child == 0) {
		munmap(p + 3 * PG, PG);
		pause();
		_exit(0);
	}
	{
		uint64_t t0 = rds_test_now_ns();

		/* Until the child unmapped its page. */
		while (rds_mem_check(child, (uintptr_t)p + 3 * PG, PG,
				     PROT_READ) == 0 &&
		       rds_test_now_ns() - t0 < 5000000000ULL)
			rds_test_usleep(1000);
	}
	CU_ASSERT_EQUAL(rds_mem_check(child, (uintptr_t)p, PG,
				      PROT_READ | PROT_WRITE), 0);
	CU_ASSERT_EQUAL(rds_mem_check(child, (uintptr_t)p + PG, PG,
				      PROT_READ | PROT_WRITE), -EFAULT);
	CU_ASSERT_EQUAL(rds_mem_check(child, (uintptr_t)p + 3 * PG, PG,
				      PROT_READ), -EFAULT);
	CU_ASSERT_EQUAL(rds_mem_check(0, (uintptr_t)p + 3 * PG, PG,
				      PROT_READ | PROT_WRITE), 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	CU_ASSERT_EQUAL(rds_mem_check(child, (uintptr_t)p, PG, PROT_READ),
			-ESRCH);
	CU_ASSERT_EQUAL(rds_mem_check(child, (uintptr_t)p, PG,
				      PROT_READ | PROT_WRITE), -ESRCH);
	munmap(map, 6 * PG);
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "iov", test_iov },
		{ "cmsg_walk", test_cmsg_walk },
		{ "mem_check", test_mem_check },
		{ NULL, NULL },
	};
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	rds_test_eal_init("unit_uarg", "0");
	rc = rds_test_run_suite("uarg", cases);
	rds_test_eal_fini();
	return rc;
}

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

/* Another process's memory as the engine reaches a client's: opened once
 * (rds_xmem.h), with our own credentials. */
static struct rds_xmem *
xmem_of(pid_t pid)
{
	struct rds_xmem *x = rds_xmem_open(pid, -1, geteuid(), getegid());

	CU_ASSERT_FATAL(x != NULL);
	CU_ASSERT_EQUAL(rds_xmem_usable(x), 0);
	return x;
}

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
mem_check_cases(void)
{
	uint8_t *p, *q;
	void *map;
	char path[] = "/tmp/unit_uarg.XXXXXX";
	int fd;
	pid_t child;
	struct rds_xmem *cx;
	uint8_t b;

	p = guarded(4, &map);
	/* Inside; the guard pages; across an edge. */
	CU_ASSERT_EQUAL(rds_mem_check(NULL, (uintptr_t)p, 4 * PG,
				      PROT_READ | PROT_WRITE), 0);
	CU_ASSERT_EQUAL(rds_mem_check(NULL, (uintptr_t)p + 1, 10,
				      PROT_READ), 0);
	CU_ASSERT_EQUAL(rds_mem_check(NULL, (uintptr_t)p - PG, PG, PROT_READ),
			-EFAULT);
	CU_ASSERT_EQUAL(rds_mem_check(NULL, (uintptr_t)p - 1, 2, PROT_READ),
			-EFAULT);
	CU_ASSERT_EQUAL(rds_mem_check(NULL, (uintptr_t)p + 4 * PG - 1, 2,
				      PROT_READ | PROT_WRITE), -EFAULT);
	CU_ASSERT_EQUAL(rds_mem_check(NULL, (uintptr_t)p, 0, PROT_READ), 0);
	CU_ASSERT_EQUAL(rds_mem_check(NULL, 0, 1, PROT_READ), -EFAULT);
	CU_ASSERT_EQUAL(rds_mem_check(NULL, UINTPTR_MAX - 10, 100, PROT_READ),
			-EFAULT);
	CU_ASSERT_EQUAL(rds_mem_check(NULL, (uintptr_t)0xffff888000000000ULL,
				      PG, PROT_READ), -EFAULT);
	/* Read-only pages: readable, not writable; a write-only ask means
	 * read as well. */
	CU_ASSERT_FATAL(mprotect(p + PG, PG, PROT_READ) == 0);
	CU_ASSERT_EQUAL(rds_mem_check(NULL, (uintptr_t)p, 4 * PG, PROT_READ), 0);
	CU_ASSERT_EQUAL(rds_mem_check(NULL, (uintptr_t)p, 4 * PG,
				      PROT_READ | PROT_WRITE), -EFAULT);
	CU_ASSERT_EQUAL(rds_mem_check(NULL, (uintptr_t)p + PG + 5, 1,
				      PROT_WRITE), -EFAULT);
	CU_ASSERT_EQUAL(rds_mem_check(NULL, (uintptr_t)p + 2 * PG, 2 * PG,
				      PROT_READ | PROT_WRITE), 0);
	/* Several mappings side by side count as one range (p + PG has
	 * its own VMA now); a hole does not. */
	CU_ASSERT_EQUAL(rds_mem_check(NULL, (uintptr_t)p + PG, 3 * PG,
				      PROT_READ), 0);
	CU_ASSERT_FATAL(munmap(p + 2 * PG, PG) == 0);
	CU_ASSERT_EQUAL(rds_mem_check(NULL, (uintptr_t)p + PG, 3 * PG,
				      PROT_READ), -EFAULT);
	CU_ASSERT_EQUAL(rds_mem_check(NULL, (uintptr_t)p + 3 * PG - 1, 2,
				      PROT_READ | PROT_WRITE), -EFAULT);

	/* A shared file mapping past the end of its file: the maps say
	 * rw, but an access would raise SIGBUS. */
	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	unlink(path);
	CU_ASSERT_FATAL(ftruncate(fd, PG) == 0);
	q = mmap(NULL, 3 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CU_ASSERT_FATAL(q != MAP_FAILED);
	CU_ASSERT_EQUAL(rds_mem_check(NULL, (uintptr_t)q, PG,
				      PROT_READ | PROT_WRITE), 0);
	CU_ASSERT_EQUAL(rds_mem_check(NULL, (uintptr_t)q, 2 * PG,
				      PROT_READ | PROT_WRITE), -EFAULT);
	CU_ASSERT_EQUAL(rds_mem_check(NULL, (uintptr_t)q + 2 * PG, 1,
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
	cx = xmem_of(child);
	{
		uint64_t t0 = rds_test_now_ns();

		/* Until the child unmapped its page. */
		while (rds_mem_check(cx, (uintptr_t)p + 3 * PG, PG,
				     PROT_READ) == 0 &&
		       rds_test_now_ns() - t0 < 5000000000ULL)
			rds_test_usleep(1000);
	}
	CU_ASSERT_EQUAL(rds_mem_check(cx, (uintptr_t)p, PG,
				      PROT_READ | PROT_WRITE), 0);
	CU_ASSERT_EQUAL(rds_mem_check(cx, (uintptr_t)p + PG, PG,
				      PROT_READ | PROT_WRITE), -EFAULT);
	CU_ASSERT_EQUAL(rds_mem_check(cx, (uintptr_t)p + 3 * PG, PG,
				      PROT_READ), -EFAULT);
	CU_ASSERT_EQUAL(rds_mem_check(NULL, (uintptr_t)p + 3 * PG, PG,
				      PROT_READ | PROT_WRITE), 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	CU_ASSERT_EQUAL(rds_mem_check(cx, (uintptr_t)p, PG, PROT_READ),
			-ESRCH);
	CU_ASSERT_EQUAL(rds_mem_check(cx, (uintptr_t)p, PG,
				      PROT_READ | PROT_WRITE), -ESRCH);
	rds_xmem_put(cx);

	/* A pid the engine cannot see (SO_PEERCRED's 0): nothing. */
	cx = rds_xmem_open(0, -1, geteuid(), getegid());
	CU_ASSERT_FATAL(cx != NULL);
	CU_ASSERT_EQUAL(rds_xmem_usable(cx), EPERM);
	CU_ASSERT_EQUAL(rds_mem_check(cx, (uintptr_t)p, PG, PROT_READ),
			-EPERM);
	CU_ASSERT_EQUAL(rds_xmem_read(cx, &b, (uintptr_t)p, 1), -EPERM);
	rds_xmem_put(cx);

	/* A child that execs: the address space it had is gone, and the
	 * new program's is never reached (any program, set-id or not). */
	{
		int sync[2];
		char c;

		CU_ASSERT_FATAL(pipe(sync) == 0);
		child = fork();
		CU_ASSERT_FATAL(child >= 0);
		if (child == 0) {
			char *args[] = { (char *)"sleep", (char *)"30", NULL };

			close(sync[1]);
			if (read(sync[0], &c, 1) != 1)
				_exit(1);
			execvp("sleep", args);
			_exit(1);
		}
		close(sync[0]);
		cx = xmem_of(child);
		CU_ASSERT_EQUAL(rds_xmem_read(cx, &b, (uintptr_t)p, 1), 0);
		CU_ASSERT_EQUAL(rds_mem_check(cx, (uintptr_t)p, PG,
					      PROT_READ), 0);
		CU_ASSERT_FATAL(write(sync[1], "x", 1) == 1);
		close(sync[1]);
		{
			uint64_t t0 = rds_test_now_ns();

			/* Until the exec happened. */
			while (rds_xmem_read(cx, &b, (uintptr_t)p, 1) == 0 &&
			       rds_test_now_ns() - t0 < 5000000000ULL)
				rds_test_usleep(1000);
		}
		CU_ASSERT_EQUAL(rds_xmem_read(cx, &b, (uintptr_t)p, 1),
				-EFAULT);
		CU_ASSERT_EQUAL(rds_xmem_write(cx, (uintptr_t)p, &b, 1),
				-EFAULT);
		CU_ASSERT_EQUAL(rds_mem_check(cx, (uintptr_t)p, PG,
					      PROT_READ), -ESRCH);
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		rds_xmem_put(cx);
	}
	/* Revoked (the client went): nothing, though it is alive. */
	cx = xmem_of(getpid());
	rds_xmem_revoke(cx);
	CU_ASSERT_EQUAL(rds_xmem_read(cx, &b, (uintptr_t)p, 1), -EFAULT);
	CU_ASSERT_EQUAL(rds_mem_check(cx, (uintptr_t)p, PG, PROT_READ),
			-ESRCH);
	rds_xmem_put(cx);
	munmap(map, 6 * PG);
}

/* Both ways: madvise for this process, and the probes and maps used
 * for another process (and on kernels without MADV_POPULATE_*). */
static void
test_mem_check(void)
{
	mem_check_cases();
	rds_mem_check_force_probe(true);
	mem_check_cases();
	rds_mem_check_force_probe(false);
}

/* rds_mem_check_iov: the data path's checks. */
static void
mem_check_iov_cases(void)
{
	struct iovec iov[3];
	uint8_t *p, *snap;
	void *map;
	pid_t child;
	struct rds_xmem *cx;

	p = guarded(4, &map);
	snap = malloc(4 * PG);
	CU_ASSERT_FATAL(snap != NULL);
	rds_test_fill(p, 4 * PG, 11);
	memcpy(snap, p, 4 * PG);
	iov[0].iov_base = p + 5;
	iov[0].iov_len = 3 * PG;
	iov[1].iov_base = p + 4 * PG - 1;
	iov[1].iov_len = 1;
	iov[2].iov_base = NULL;
	iov[2].iov_len = 0;
	CU_ASSERT_EQUAL(rds_mem_check_iov(NULL, iov, 3, PROT_WRITE), 0);
	CU_ASSERT_EQUAL(rds_mem_check_iov(NULL, iov, 3, PROT_READ), 0);
	CU_ASSERT_EQUAL(rds_mem_check_iov(NULL, iov, 0, PROT_WRITE), 0);
	/* The probes changed nothing. */
	CU_ASSERT(memcmp(snap, p, 4 * PG) == 0);
	/* One byte too far, into the guard; NULL with a length; wrap. */
	iov[1].iov_len = 2;
	CU_ASSERT_EQUAL(rds_mem_check_iov(NULL, iov, 2, PROT_READ), -EFAULT);
	CU_ASSERT_EQUAL(rds_mem_check_iov(NULL, iov, 2, PROT_WRITE), -EFAULT);
	iov[1].iov_len = 1;
	iov[2].iov_len = 1;
	CU_ASSERT_EQUAL(rds_mem_check_iov(NULL, iov, 3, PROT_READ), -EFAULT);
	iov[2].iov_base = (void *)(UINTPTR_MAX - 2);
	iov[2].iov_len = 8;
	CU_ASSERT_EQUAL(rds_mem_check_iov(NULL, iov, 3, PROT_READ), -EFAULT);
	/* Read-only pages: a source, not a destination. */
	CU_ASSERT_FATAL(mprotect(p + 2 * PG, PG, PROT_READ) == 0);
	CU_ASSERT_EQUAL(rds_mem_check_iov(NULL, iov, 2, PROT_READ), 0);
	CU_ASSERT_EQUAL(rds_mem_check_iov(NULL, iov, 2, PROT_WRITE), -EFAULT);
	iov[0].iov_base = p + 3 * PG - 8;
	iov[0].iov_len = 8;
	CU_ASSERT_EQUAL(rds_mem_check_iov(NULL, iov, 1, PROT_WRITE), -EFAULT);
	iov[0].iov_base = p + 3 * PG;
	CU_ASSERT_EQUAL(rds_mem_check_iov(NULL, iov, 1, PROT_WRITE), 0);
	CU_ASSERT(memcmp(snap, p, 4 * PG) == 0);
	/* More probes than one batch (600 one-byte elements, one a page). */
	{
		uint8_t *big;
		void *bmap;
		struct iovec *v = calloc(600, sizeof(*v));
		unsigned int i;

		CU_ASSERT_FATAL(v != NULL);
		big = guarded(600, &bmap);
		for (i = 0; i < 600; i++) {
			v[i].iov_base = big + (size_t)i * PG + i % 4000;
			v[i].iov_len = 1;
		}
		CU_ASSERT_EQUAL(rds_mem_check_iov(NULL, v, 600, PROT_WRITE), 0);
		v[599].iov_base = big + 600 * PG;	/* the guard */
		CU_ASSERT_EQUAL(rds_mem_check_iov(NULL, v, 600, PROT_WRITE),
				-EFAULT);
		CU_ASSERT_EQUAL(rds_mem_check_iov(NULL, v, 600, PROT_READ),
				-EFAULT);
		munmap(bmap, 602 * PG);
		free(v);
	}
	/* Another process: read-only there is refused for writing (read,
	 * then write back), and nothing changes. */
	child = fork();
	CU_ASSERT_FATAL(child >= 0);
	if (child == 0) {
		pause();
		_exit(0);
	}
	cx = xmem_of(child);
	iov[0].iov_base = p;
	iov[0].iov_len = 2 * PG;
	CU_ASSERT_EQUAL(rds_mem_check_iov(cx, iov, 1, PROT_WRITE), 0);
	iov[0].iov_len = 3 * PG;
	CU_ASSERT_EQUAL(rds_mem_check_iov(cx, iov, 1, PROT_READ), 0);
	CU_ASSERT_EQUAL(rds_mem_check_iov(cx, iov, 1, PROT_WRITE), -EFAULT);
	iov[0].iov_base = p - PG;
	CU_ASSERT_EQUAL(rds_mem_check_iov(cx, iov, 1, PROT_READ), -EFAULT);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	iov[0].iov_base = p;
	CU_ASSERT_EQUAL(rds_mem_check_iov(cx, iov, 1, PROT_READ), -ESRCH);
	rds_xmem_put(cx);
	CU_ASSERT(memcmp(snap, p, 4 * PG) == 0);
	free(snap);
	munmap(map, 6 * PG);
}

static void
test_mem_check_iov(void)
{
	mem_check_iov_cases();
	rds_mem_check_force_probe(true);
	mem_check_iov_cases();
	rds_mem_check_force_probe(false);
}

/* The RDMA_ARGS local vector checker. */
static void
test_rdma_vec(void)
{
	static struct rds_iovec v[1025];
	uint64_t total = 1;
	unsigned int i;

	for (i = 0; i < RTE_DIM(v); i++) {
		v[i].addr = 0x10000 + i;
		v[i].bytes = 3;
	}
	CU_ASSERT_EQUAL(rds_uarg_rdma_vec(v, 0, &total), -EINVAL);
	CU_ASSERT_EQUAL(rds_uarg_rdma_vec(NULL, 0, &total), -EINVAL);
	CU_ASSERT_EQUAL(rds_uarg_rdma_vec(NULL, 1025, &total), -EMSGSIZE);
	CU_ASSERT_EQUAL(rds_uarg_rdma_vec(NULL, 1, &total), -EFAULT);
	CU_ASSERT_EQUAL(rds_uarg_rdma_vec(v, 1024, &total), 0);
	CU_ASSERT_EQUAL(total, 3072);
	v[5].bytes = 0;
	CU_ASSERT_EQUAL(rds_uarg_rdma_vec(v, 10, &total), -EINVAL);
	v[5].bytes = 1ULL << 32;
	CU_ASSERT_EQUAL(rds_uarg_rdma_vec(v, 10, &total), -EINVAL);
	v[5].bytes = UINT32_MAX;
	CU_ASSERT_EQUAL(rds_uarg_rdma_vec(v, 10, &total), 0);
	v[5].addr = ~0ULL - 5;
	v[5].bytes = 6;		/* ends exactly at 2^64: wraps to 0 */
	CU_ASSERT_EQUAL(rds_uarg_rdma_vec(v, 10, &total), -EINVAL);
	v[5].bytes = 5;
	CU_ASSERT_EQUAL(rds_uarg_rdma_vec(v, 10, &total), 0);
}

/* ------------------------------------------------------------------ */
/* What the memory checks cost. */

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Median TSC cycles of one call of what (1: iov, 0: maps+probe). */
static uint64_t
cost(int kind, uint8_t *buf, size_t len, int prot, unsigned int runs)
{
	uint64_t *t = calloc(runs, sizeof(*t)), m, t0;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	unsigned int i;
	int r = 0;

	CU_ASSERT_FATAL(t != NULL);
	for (i = 0; i < runs; i++) {
		t0 = rte_rdtsc_precise();
		if (kind)
			r |= rds_mem_check_iov(NULL, &iov, 1, prot);
		else
			r |= rds_mem_check(NULL, (uintptr_t)buf, len, prot);
		t[i] = rte_rdtsc_precise() - t0;
	}
	CU_ASSERT_EQUAL(r, 0);
	qsort(t, runs, sizeof(*t), cmp_u64);
	m = t[runs / 2];
	free(t);
	return m;
}

static void
test_cost(void)
{
	static const struct {
		const char *what;
		int kind;
		size_t pages;
		int prot;
	} c[] = {
		{ "READ dest, iov PROT_WRITE", 1, 1, PROT_WRITE },
		{ "READ dest, iov PROT_WRITE", 1, 256, PROT_WRITE },
		{ "WRITE src, iov PROT_READ", 1, 1, PROT_READ },
		{ "WRITE src, iov PROT_READ", 1, 256, PROT_READ },
		{ "GET_MR, PROT_READ", 0, 1, PROT_READ },
		{ "GET_MR, PROT_READ", 0, 257, PROT_READ },
		{ "GET_MR, PROT_READ|WRITE", 0, 1, PROT_READ | PROT_WRITE },
		{ "GET_MR, PROT_READ|WRITE", 0, 257, PROT_READ | PROT_WRITE },
	};
	double ns_per_cyc = 1e9 / (double)rte_get_tsc_hz();
	uint8_t *buf;
	void *map;
	unsigned int i, mode, lines = 0;
	char l[256];
	FILE *f;

	buf = guarded(257, &map);
	memset(buf, 1, 257 * PG);
	f = fopen("/proc/self/maps", "r");
	while (f != NULL && fgets(l, sizeof(l), f) != NULL)
		lines++;
	if (f != NULL)
		fclose(f);
	printf("\n    median of 1001 calls; /proc/self/maps has %u lines\n",
	       lines);
	for (mode = 0; mode < 2; mode++) {
		rds_mem_check_force_probe(mode == 1);
		printf("    %s:\n", mode == 0 ?
		       "this process (madvise MADV_POPULATE_*)" :
		       "as for another process (maps, process_vm_readv)");
		for (i = 0; i < RTE_DIM(c); i++) {
			uint64_t m = cost(c[i].kind, buf, c[i].pages * PG,
					  c[i].prot, 1001);

			printf("      %-26s %3zu page%s %7" PRIu64
			       " cycles %8.2f us\n", c[i].what, c[i].pages,
			       c[i].pages > 1 ? "s" : " ", m,
			       (double)m * ns_per_cyc / 1000.0);
		}
	}
	/* 1024 one-byte elements in 1024 pages: the probes' case. */
	{
		struct iovec *v = calloc(1024, sizeof(*v));
		uint64_t t[101], t0;
		uint8_t *big;
		void *bmap;
		int r = 0;

		CU_ASSERT_FATAL(v != NULL);
		big = guarded(1024, &bmap);
		for (i = 0; i < 1024; i++) {
			v[i].iov_base = big + (size_t)i * PG + 8;
			v[i].iov_len = 1;
		}
		for (mode = 0; mode < 2; mode++) {
			rds_mem_check_force_probe(mode == 1);
			for (i = 0; i < RTE_DIM(t); i++) {
				t0 = rte_rdtsc_precise();
				r |= rds_mem_check_iov(NULL, v, 1024, PROT_WRITE);
				t[i] = rte_rdtsc_precise() - t0;
			}
			qsort(t, RTE_DIM(t), sizeof(t[0]), cmp_u64);
			printf("    1024 1-byte elements, PROT_WRITE (%s): %"
			       PRIu64 " cycles %.2f us\n",
			       mode == 0 ? "this process" : "probe only",
			       t[50], (double)t[50] * ns_per_cyc / 1000.0);
		}
		CU_ASSERT_EQUAL(r, 0);
		munmap(bmap, 1026 * PG);
		free(v);
	}
	rds_mem_check_force_probe(false);
	munmap(map, 259 * PG);
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "iov", test_iov },
		{ "cmsg_walk", test_cmsg_walk },
		{ "mem_check", test_mem_check },
		{ "mem_check_iov", test_mem_check_iov },
		{ "rdma_vec", test_rdma_vec },
		{ "cost", test_cost },
		{ NULL, NULL },
	};

	return rds_test_main("unit_uarg", "0", cases);
}

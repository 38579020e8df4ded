/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Is memory of a process mapped, with the rights asked for?
 *
 * What the engine dereferences after a call returned (RDMA regions, the
 * local vectors of an RDMA READ, atomic result pointers) is checked when
 * it is handed over, where the kernel pins the pages and refuses what it
 * cannot pin with the rights asked (net/rds/rdma.c rds_pin_pages: EFAULT).
 * A page unmapped afterwards is the application's fault, as with any
 * memory handed to a library. Every check names the process by pid (0:
 * this one), so that the engine can use it for a client process later.
 *
 * This process: madvise(MADV_POPULATE_READ or _WRITE) over the pages
 * (Linux 5.14) does what the kernel's pinning does short of the pin: it
 * faults every page in with the rights asked, and fails (EINVAL: rights
 * or a special mapping; ENOMEM: unmapped; EFAULT: an access would raise
 * SIGBUS, e.g. a shared file mapping past its end) without touching any
 * data: one call for a range, ~55 ns a page. For vectors of many small
 * elements, one process_vm_readv() per 512 of them is cheaper (~160 ns a
 * page, one call): a byte in each page of each element is read, and for
 * write rights copied onto itself (the remote side of process_vm_readv
 * needs the page readable, the local side writes it). That write is of
 * the byte's own value, and is used only for buffers the library will
 * fill (READ destinations, atomic results), which belong to it until the
 * operation's notification. Elements of 3 pages and more, and a vector of
 * one element, use madvise.
 *
 * Another process (and this one on a kernel without MADV_POPULATE_*):
 * /proc/<pid>/maps must cover the range without a hole with the rights,
 * then one byte a page is read with process_vm_readv() (presence, no
 * SIGBUS). For write rights on buffers the library will fill, the probe
 * reads the bytes and writes them back with process_vm_writev(); for a
 * registration (live memory of the application, where even a byte's own
 * value written back could lose a concurrent store) the maps decide.
 * If process_vm_readv() is refused (ENOSYS, EPERM: seccomp), the maps
 * alone decide.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "rds_private.h"

#define RDS_MC_PAGE 4096ULL
#define RDS_MC_BATCH 512	/* probes per system call (<= UIO_MAXIOV) */
#define RDS_MC_POPULATE_MIN 3	/* pages from which madvise is cheaper */

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#define MADV_POPULATE_WRITE 23
#endif

static bool
rds_mc_self(pid_t pid)
{
	return pid == 0 || pid == getpid();
}

/* ------------------------------------------------------------------ */
/* madvise(MADV_POPULATE_*) */

static uint8_t rds_mc_probe_page[RDS_MC_PAGE] __rte_aligned(RDS_MC_PAGE);
static int rds_mc_populate_state;	/* 0 unknown, 1 works, -1 not here */

static bool
rds_mc_populate_ok(void)
{
	int st = __atomic_load_n(&rds_mc_populate_state, __ATOMIC_RELAXED);

	if (st == 0) {
		/* A page of ours, writable: only an old kernel refuses. */
		st = madvise(rds_mc_probe_page, RDS_MC_PAGE,
			     MADV_POPULATE_WRITE) == 0 ? 1 : -1;
		__atomic_store_n(&rds_mc_populate_state, st, __ATOMIC_RELAXED);
	}
	return st > 0;
}

/* The pages of [addr, addr + len) (len > 0, no wrap), with write rights
 * or read rights: 0 or -EFAULT. */
static int
rds_mc_populate(uint64_t addr, uint64_t len, bool write)
{
	uint64_t a = addr & ~(RDS_MC_PAGE - 1);
	uint64_t e = (addr + len + RDS_MC_PAGE - 1) & ~(RDS_MC_PAGE - 1);

	if (e < addr + len)
		return -EFAULT;	/* the last page of the address space */
	while (madvise((void *)(uintptr_t)a, e - a,
		       write ? MADV_POPULATE_WRITE : MADV_POPULATE_READ) != 0)
		if (errno != EINTR)
			return -EFAULT;
	return 0;
}

/* ------------------------------------------------------------------ */
/* /proc/<pid>/maps */

/* Parse "start-end perms ..." at the start of a line. */
static bool
rds_mc_parse_line(const char *l, uint64_t *start, uint64_t *end, int *prot)
{
	char *e;

	*start = strtoull(l, &e, 16);
	if (*e != '-')
		return false;
	*end = strtoull(e + 1, &e, 16);
	if (*e != ' ' || e[1] == '\0' || e[2] == '\0')
		return false;
	*prot = (e[1] == 'r' ? PROT_READ : 0) | (e[2] == 'w' ? PROT_WRITE : 0);
	return true;
}

/*
 * [addr, addr + len) covered without a hole by mappings that all have
 * prot. The file is sorted by address; reading stops at the first line
 * past the range. 0, -EFAULT, or -errno of open (ENOENT: no such pid).
 */
static int
rds_mc_maps(pid_t pid, uint64_t addr, uint64_t len, int prot)
{
	char path[32], buf[4096];
	uint64_t cur = addr, last = addr + len, start, end;
	size_t have = 0;
	int fd, mprot, ret = -EFAULT;
	ssize_t n;

	if (rds_mc_self(pid))
		snprintf(path, sizeof(path), "/proc/self/maps");
	else
		snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		char *nl, *line = buf;

		n = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		buf[have] = '\0';
		while ((nl = strchr(line, '\n')) != NULL) {
			*nl = '\0';
			if (!rds_mc_parse_line(line, &start, &end, &mprot))
				goto out;
			line = nl + 1;
			if (end <= cur)
				continue;
			if (start > cur || (mprot & prot) != prot)
				goto out;	/* a hole, or rights missing */
			cur = end;
			if (cur >= last) {
				ret = 0;
				goto out;
			}
		}
		/* Keep the partial line; a line longer than the buffer (a
		 * long path) is cut: only its start matters. */
		have -= (size_t)(line - buf);
		memmove(buf, line, have);
		if (have == sizeof(buf) - 1) {
			char *sp = strchr(buf, ' ');

			have = sp != NULL ? (size_t)(sp - buf) + 6 : 0;
			if (have > sizeof(buf) - 1)
				have = 0;
		}
	}
out:
	close(fd);
	return ret;
}

/* ------------------------------------------------------------------ */
/* process_vm_readv / process_vm_writev probes */

struct rds_mc_probe {
	pid_t pid;			/* as given (0: this process) */
	bool self;
	int prot;
	unsigned int n;
	struct iovec iov[RDS_MC_BATCH];	/* one byte each */
	uint8_t scratch[RDS_MC_BATCH];
};

/* Run the batched probes: 0, -EFAULT, -ENOSYS/-EPERM (cannot probe). */
static int
rds_mc_flush(struct rds_mc_probe *p)
{
	struct iovec l = { .iov_base = p->scratch, .iov_len = p->n };
	ssize_t r;
	unsigned int n = p->n;

	pid_t pid;

	if (n == 0)
		return 0;
	p->n = 0;
	pid = p->self ? getpid() : p->pid;
	if ((p->prot & PROT_WRITE) && p->self) {
		/* Each byte onto itself: remote read, local write. */
		r = process_vm_readv(pid, p->iov, n, p->iov, n, 0);
	} else {
		r = process_vm_readv(pid, &l, 1, p->iov, n, 0);
		if (r == (ssize_t)n && (p->prot & PROT_WRITE))
			r = process_vm_writev(pid, &l, 1, p->iov, n, 0);
	}
	if (r == (ssize_t)n)
		return 0;
	if (r < 0 && (errno == ENOSYS || errno == EPERM))
		return -errno;
	if (r < 0 && errno == ESRCH)
		return -ESRCH;
	if (r < 0 && errno == ENOMEM)
		return -ENOMEM;
	return -EFAULT;
}

/* Add the probes of [addr, addr + len) (len > 0, no wrap). */
static int
rds_mc_add(struct rds_mc_probe *p, uint64_t addr, uint64_t len)
{
	uint64_t a = addr, last = addr + len;
	int ret;

	while (a < last) {
		p->iov[p->n].iov_base = (void *)(uintptr_t)a;
		p->iov[p->n].iov_len = 1;
		if (++p->n == RDS_MC_BATCH) {
			ret = rds_mc_flush(p);
			if (ret != 0)
				return ret;
		}
		a = (a & ~(RDS_MC_PAGE - 1)) + RDS_MC_PAGE;
		if (a == 0)
			break;	/* the last page of the address space */
	}
	return 0;
}

static void
rds_mc_probe_init(struct rds_mc_probe *p, pid_t pid, int prot)
{
	p->self = rds_mc_self(pid);
	p->pid = pid;
	p->prot = prot;
	p->n = 0;
}

/* ------------------------------------------------------------------ */

int
rds_mem_check(pid_t pid, uintptr_t addr, size_t len, int prot)
{
	struct rds_mc_probe p;
	int ret;

	if (len == 0)
		return 0;
	if (addr == 0 || (uint64_t)addr + len < (uint64_t)addr)
		return -EFAULT;
	prot |= PROT_READ;	/* every access needs it (x86: implied) */
	if (rds_mc_self(pid) && rds_mc_populate_ok())
		return rds_mc_populate(addr, len, (prot & PROT_WRITE) != 0);
	if (prot & PROT_WRITE) {
		ret = rds_mc_maps(pid, addr, len, prot);
		if (ret != 0)
			return ret == -ENOENT ? -ESRCH : -EFAULT;
	}
	/* A read probe, also for a writable region (see the top). */
	rds_mc_probe_init(&p, pid, PROT_READ);
	ret = rds_mc_add(&p, addr, len);
	if (ret == 0)
		ret = rds_mc_flush(&p);
	if (ret == -ENOSYS || ret == -EPERM) {
		/* Cannot probe here: the maps decide. */
		ret = (prot & PROT_WRITE) ? 0 :
		      rds_mc_maps(pid, addr, len, prot);
		if (ret != 0)
			ret = ret == -ENOENT ? -ESRCH : -EFAULT;
	}
	return ret;
}

int
rds_mem_check_iov(pid_t pid, const struct iovec *iov, unsigned int n,
		  int prot)
{
	struct rds_mc_probe p;
	bool populate;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < n; i++) {
		uint64_t a = (uintptr_t)iov[i].iov_base;

		if (iov[i].iov_len != 0 &&
		    (a == 0 || a + iov[i].iov_len < a))
			return -EFAULT;
	}
	prot |= PROT_READ;
	rds_mc_probe_init(&p, pid, prot);
	populate = p.self && rds_mc_populate_ok();
	for (i = 0; i < n && ret == 0; i++) {
		uint64_t a = (uintptr_t)iov[i].iov_base, l = iov[i].iov_len;

		if (l == 0)
			continue;
		if (populate && (n == 1 ||
				 ((a + l - 1) >> 12) - (a >> 12) + 1 >=
				 RDS_MC_POPULATE_MIN))
			ret = rds_mc_populate(a, l, (prot & PROT_WRITE) != 0);
		else
			ret = rds_mc_add(&p, a, l);
	}
	if (ret == 0)
		ret = rds_mc_flush(&p);
	if (ret == -ENOSYS || ret == -EPERM) {
		/* Cannot probe here: the maps decide. */
		for (i = 0, ret = 0; i < n && ret == 0; i++)
			if (iov[i].iov_len != 0)
				ret = rds_mc_maps(pid,
						  (uintptr_t)iov[i].iov_base,
						  iov[i].iov_len, prot);
		if (ret != 0)
			ret = ret == -ENOENT ? -ESRCH : -EFAULT;
	}
	return ret;
}

/* For tests: 0 to let rds_mem_check*() choose, -1 to never use
 * madvise (the way another process and old kernels are checked). */
void
rds_mem_check_force_probe(bool on)
{
	__atomic_store_n(&rds_mc_populate_state, on ? -1 : 0,
			 __ATOMIC_RELAXED);
}

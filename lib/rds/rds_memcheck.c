/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Is memory of a process mapped, with the rights asked for?
 *
 * What the engine dereferences after a call returned (RDMA regions, the
 * local vectors of an RDMA READ, atomic result pointers) is checked when
 * it is handed over, where the kernel pins the pages and refuses what it
 * cannot pin with the rights asked (net/rds/rdma.c rds_pin_pages: EFAULT).
 * A page unmapped afterwards is the application's fault, as with any
 * memory handed to a library. Every check names whose memory it is: NULL
 * for this process, else an attached client's (rds_xmem.h).
 *
 * This process: madvise(MADV_POPULATE_READ or _WRITE) over the pages
 * (Linux 5.14) does what the kernel's pinning does short of the pin: it
 * faults every page in with the rights asked, and fails (EINVAL: rights
 * or a special mapping; ENOMEM: unmapped; EFAULT: an access would raise
 * SIGBUS, e.g. a shared file mapping past its end) without touching any
 * data: one call for a range, ~55 ns a page. For vectors of many small
 * elements, one process_vm_readv() on this process per 512 of them is
 * cheaper (~160 ns a page, one call): a byte in each page of each element
 * is read, and for write rights copied onto itself (the remote side of
 * process_vm_readv needs the page readable, the local side writes it).
 * That write is of the byte's own value, and is used only for buffers
 * the library will fill (READ destinations, atomic results), which
 * belong to it until the operation's notification. Elements of 3 pages
 * and more, and a vector of one element, use madvise. On a kernel
 * without MADV_POPULATE_*, /proc/self/maps decides the rights and the
 * probes the presence.
 *
 * A client: its maps (the descriptor of rds_xmem, bound to its address
 * space) must cover the range without a hole with the rights asked, read
 * once per check; then one byte a page is read through its memory
 * descriptor (presence, no SIGBUS), and for buffers the library will
 * fill written back with its own value. Its memory is never probed
 * through a pid.
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
/* Maps: /proc/self/maps, or a client's (rds_xmem_maps_read) */

struct rds_mc_vma {
	uint64_t start, end;
	int prot;
};

struct rds_mc_maps {
	struct rds_mc_vma *v;
	unsigned int n, cap;
};

/* Parse "start-end perms ..." at the start of a line. */
static bool
rds_mc_parse_line(const char *l, struct rds_mc_vma *m)
{
	char *e;

	m->start = strtoull(l, &e, 16);
	if (*e != '-')
		return false;
	m->end = strtoull(e + 1, &e, 16);
	if (*e != ' ' || e[1] == '\0' || e[2] == '\0')
		return false;
	m->prot = (e[1] == 'r' ? PROT_READ : 0) |
		  (e[2] == 'w' ? PROT_WRITE : 0);
	return true;
}

static int
rds_mc_maps_add(struct rds_mc_maps *mp, const char *line)
{
	struct rds_mc_vma m, *nv;

	if (!rds_mc_parse_line(line, &m))
		return -EFAULT;
	if (mp->n == mp->cap) {
		unsigned int cap = mp->cap != 0 ? mp->cap * 2 : 64;

		nv = realloc(mp->v, sizeof(*nv) * cap);
		if (nv == NULL)
			return -ENOMEM;
		mp->v = nv;
		mp->cap = cap;
	}
	mp->v[mp->n++] = m;
	return 0;
}

/* Read x's maps (NULL: this process's) into mp, in address order: 0,
 * -EFAULT (unreadable: a client that is gone or exec'd has none),
 * -ENOMEM, -EPERM. */
static int
rds_mc_maps_load(const struct rds_xmem *x, struct rds_mc_maps *mp)
{
	char buf[4096];
	size_t have = 0;
	off_t off = 0;
	ssize_t n;
	int fd = -1, ret = 0;

	memset(mp, 0, sizeof(*mp));
	if (x == NULL) {
		fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -EFAULT;
	}
	for (;;) {
		char *nl, *line = buf;

		if (x == NULL) {
			n = read(fd, buf + have, sizeof(buf) - 1 - have);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				n = -errno;
		} else {
			n = rds_xmem_maps_read(x, buf + have,
					       sizeof(buf) - 1 - have, off);
		}
		if (n < 0) {
			/* ESRCH: the process of the descriptor is gone. */
			ret = n == -EPERM || n == -ESRCH ? (int)n : -EFAULT;
			break;
		}
		if (n == 0)
			break;
		off += n;
		have += (size_t)n;
		buf[have] = '\0';
		while ((nl = strchr(line, '\n')) != NULL) {
			*nl = '\0';
			ret = rds_mc_maps_add(mp, line);
			if (ret != 0)
				goto out;
			line = nl + 1;
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
	if (fd >= 0)
		close(fd);
	if (ret == 0 && mp->n == 0)
		ret = -ESRCH;	/* no address space at all: gone, exec'd */
	return ret;
}

/* [addr, addr + len) covered without a hole by mappings with prot. */
static bool
rds_mc_maps_cover(const struct rds_mc_maps *mp, uint64_t addr, uint64_t len,
		  int prot)
{
	uint64_t cur = addr, last = addr + len;
	unsigned int lo = 0, hi = mp->n, i;

	/* The first mapping that ends past addr. */
	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (mp->v[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < mp->n && cur < last; i++) {
		if (mp->v[i].start > cur || (mp->v[i].prot & prot) != prot)
			return false;	/* a hole, or rights missing */
		cur = mp->v[i].end;
	}
	return cur >= last;
}

/* ------------------------------------------------------------------ */
/* Probes: a byte of every page */

/* This process: batched process_vm_readv onto itself. */
struct rds_mc_probe {
	int prot;
	unsigned int n;
	struct iovec iov[RDS_MC_BATCH];	/* one byte each */
	uint8_t scratch[RDS_MC_BATCH];
};

static int
rds_mc_flush(struct rds_mc_probe *p)
{
	struct iovec l = { .iov_base = p->scratch, .iov_len = p->n };
	unsigned int n = p->n;
	ssize_t r;

	if (n == 0)
		return 0;
	p->n = 0;
	if (p->prot & PROT_WRITE)	/* each byte onto itself */
		r = process_vm_readv(getpid(), p->iov, n, p->iov, n, 0);
	else
		r = process_vm_readv(getpid(), &l, 1, p->iov, n, 0);
	if (r == (ssize_t)n)
		return 0;
	if (r < 0 && (errno == ENOSYS || errno == EPERM))
		return -errno;
	if (r < 0 && errno == ENOMEM)
		return -ENOMEM;
	return -EFAULT;
}

/* A client: through its memory descriptor, a page at a time. */
static int
rds_mc_client_probe(const struct rds_xmem *x, uint64_t addr, uint64_t len,
		    bool write)
{
	uint64_t a = addr, last = addr + len;
	uint8_t b;
	int ret;

	while (a < last) {
		ret = rds_xmem_read(x, &b, (uintptr_t)a, 1);
		if (ret == 0 && write)
			ret = rds_xmem_write(x, (uintptr_t)a, &b, 1);
		if (ret != 0)
			return ret;
		a = (a & ~(RDS_MC_PAGE - 1)) + RDS_MC_PAGE;
		if (a == 0)
			break;	/* the last page of the address space */
	}
	return 0;
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

/* ------------------------------------------------------------------ */

/* A client's ranges: maps with the rights, then presence. probe_write:
 * probed bytes are written back (buffers the library will fill). */
static int
rds_mc_client(const struct rds_xmem *x, const struct iovec *iov,
	      unsigned int n, int prot, bool probe_write)
{
	struct rds_mc_maps mp;
	unsigned int i;
	int ret = -rds_xmem_usable(x);

	if (ret != 0)
		return ret == -EPERM ? -EPERM : -ESRCH;
	ret = rds_mc_maps_load(x, &mp);
	for (i = 0; i < n && ret == 0; i++) {
		uint64_t a = (uintptr_t)iov[i].iov_base, l = iov[i].iov_len;

		if (l == 0)
			continue;
		if (!rds_mc_maps_cover(&mp, a, l, prot))
			ret = -EFAULT;
		else
			ret = rds_mc_client_probe(x, a, l, probe_write);
	}
	free(mp.v);
	return ret == -EPERM || ret == -ESRCH || ret == -ENOMEM ? ret :
	       ret != 0 ? -EFAULT : 0;
}

/* This process without madvise: the maps decide the rights, probes the
 * presence (-ENOSYS/-EPERM from the probes: the maps alone). */
static int
rds_mc_self_slow(const struct iovec *iov, unsigned int n, int prot,
		 bool probe_write)
{
	struct rds_mc_probe p;
	struct rds_mc_maps mp;
	unsigned int i;
	int ret = rds_mc_maps_load(NULL, &mp);

	p.prot = probe_write ? PROT_READ | PROT_WRITE : PROT_READ;
	p.n = 0;
	for (i = 0; i < n && ret == 0; i++) {
		uint64_t a = (uintptr_t)iov[i].iov_base, l = iov[i].iov_len;

		if (l == 0)
			continue;
		if (!rds_mc_maps_cover(&mp, a, l, prot))
			ret = -EFAULT;
		else
			ret = rds_mc_add(&p, a, l);
	}
	if (ret == 0)
		ret = rds_mc_flush(&p);
	free(mp.v);
	if (ret == -ENOSYS || ret == -EPERM)
		ret = 0;	/* cannot probe here: the maps decided */
	return ret == -ENOMEM ? -ENOMEM : ret != 0 ? -EFAULT : 0;
}

int
rds_mem_check(const struct rds_xmem *x, uintptr_t addr, size_t len, int prot)
{
	struct iovec v = { .iov_base = (void *)addr, .iov_len = len };

	if (len == 0)
		return 0;
	if (addr == 0 || (uint64_t)addr + len < (uint64_t)addr)
		return -EFAULT;
	prot |= PROT_READ;	/* every access needs it (x86: implied) */
	if (x != NULL)
		return rds_mc_client(x, &v, 1, prot, false);
	if (rds_mc_populate_ok())
		return rds_mc_populate(addr, len, (prot & PROT_WRITE) != 0);
	/* A registration: the maps decide the rights, probes only read
	 * (live memory of the application: even a byte's own value written
	 * back could lose a concurrent store). */
	return rds_mc_self_slow(&v, 1, prot, false);
}

int
rds_mem_check_iov(const struct rds_xmem *x, const struct iovec *iov,
		  unsigned int n, int prot)
{
	struct rds_mc_probe p;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < n; i++) {
		uint64_t a = (uintptr_t)iov[i].iov_base;

		if (iov[i].iov_len != 0 &&
		    (a == 0 || a + iov[i].iov_len < a))
			return -EFAULT;
	}
	prot |= PROT_READ;
	if (x != NULL)
		return rds_mc_client(x, iov, n, prot,
				     (prot & PROT_WRITE) != 0);
	if (!rds_mc_populate_ok())
		return rds_mc_self_slow(iov, n, prot,
					(prot & PROT_WRITE) != 0);
	p.prot = prot;
	p.n = 0;
	for (i = 0; i < n && ret == 0; i++) {
		uint64_t a = (uintptr_t)iov[i].iov_base, l = iov[i].iov_len;

		if (l == 0)
			continue;
		if (n == 1 || ((a + l - 1) >> 12) - (a >> 12) + 1 >=
			      RDS_MC_POPULATE_MIN)
			ret = rds_mc_populate(a, l, (prot & PROT_WRITE) != 0);
		else
			ret = rds_mc_add(&p, a, l);
	}
	if (ret == 0)
		ret = rds_mc_flush(&p);
	if (ret == -ENOSYS || ret == -EPERM) {
		/* Cannot probe here: the maps decide. */
		struct rds_mc_maps mp;

		ret = rds_mc_maps_load(NULL, &mp);
		for (i = 0; i < n && ret == 0; i++)
			if (iov[i].iov_len != 0 &&
			    !rds_mc_maps_cover(&mp, (uintptr_t)iov[i].iov_base,
					       iov[i].iov_len, prot))
				ret = -EFAULT;
		free(mp.v);
	}
	return ret == -ENOMEM ? -ENOMEM : ret != 0 ? -EFAULT : 0;
}

/* For tests: 0 to let rds_mem_check*() choose, -1 to never use
 * madvise (the way old kernels are checked). */
void
rds_mem_check_force_probe(bool on)
{
	__atomic_store_n(&rds_mc_populate_state, on ? -1 : 0,
			 __ATOMIC_RELAXED);
}

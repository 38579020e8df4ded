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
 * Two ways, for two costs:
 *
 * - rds_mem_check() (registration: GET_MR, RDMA_MAP; a control path) has
 *   no side effect on the memory: /proc/<pid>/maps must cover the whole
 *   range with the rights (read always, write if asked), then one byte
 *   per page is read with process_vm_readv() so that a page that cannot
 *   be reached (a shared file mapping past its end: SIGBUS on access) is
 *   refused too. A READWRITE region is live memory of the application;
 *   writing to it, even a byte's own value back, could lose a concurrent
 *   store, so write rights come from the maps only. Without write rights
 *   asked, the read probe alone is the check (gup refuses what has no
 *   read right), and the maps are not read.
 *
 * - rds_mem_check_iov() (sendmsg of an RDMA operation: the READ
 *   destinations, the atomic's result word, the WRITE sources) makes one
 *   process_vm_readv() per 512 pages. For buffers the library will fill
 *   (PROT_WRITE: output only, they belong to the library until the
 *   operation's notification), each probed byte is copied onto itself:
 *   the remote side of process_vm_readv() needs the page readable, the
 *   local side writes it, so one call proves both rights and changes
 *   nothing. For another pid the byte is read, then written back with
 *   process_vm_writev(). For PROT_READ the bytes are read into a scratch
 *   buffer. The probe is at the first byte of the buffer in each page it
 *   covers, so nothing outside the caller's buffer is touched.
 *
 * If process_vm_readv() is not allowed here (ENOSYS, EPERM: seccomp), both
 * fall back to the maps alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "rds_private.h"

#define RDS_MC_PAGE 4096ULL
#define RDS_MC_BATCH 512	/* probes per system call (<= UIO_MAXIOV) */

static bool
rds_mc_self(pid_t pid)
{
	return pid == 0 || pid == getpid();
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
	pid_t pid;			/* the real pid */
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

	if (n == 0)
		return 0;
	p->n = 0;
	if ((p->prot & PROT_WRITE) && p->self) {
		/* Each byte onto itself: remote read, local write. */
		r = process_vm_readv(p->pid, p->iov, n, p->iov, n, 0);
	} else {
		r = process_vm_readv(p->pid, &l, 1, p->iov, n, 0);
		if (r == (ssize_t)n && (p->prot & PROT_WRITE))
			r = process_vm_writev(p->pid, &l, 1, p->iov, n, 0);
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
	p->pid = p->self ? getpid() : pid;
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
	for (i = 0; i < n && ret == 0; i++)
		if (iov[i].iov_len != 0)
			ret = rds_mc_add(&p, (uintptr_t)iov[i].iov_base,
					 iov[i].iov_len);
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

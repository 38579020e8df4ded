/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory of another process (rds_xmem.h has the rule): the descriptors
 * of a client's address space, opened once at attach under the client's
 * own credentials, and the copies through them.
 *
 * Why /proc/<pid>/mem and not process_vm_readv/writev: those name the
 * target by pid at every call, so a pid that exec'd a set-id program or
 * was reused after an exit is reached with the engine's rights (root).
 * A descriptor of /proc/<pid>/mem is checked by the kernel once, when
 * it is opened (ptrace_may_access, with the opener's credentials: here
 * the client's), and names the address space (the mm) the process had
 * then: it never reaches another one. Its cost is a bounce through a
 * kernel page (about the cost of process_vm_readv for the small copies
 * the engine makes; measured in doc/perf.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

#include <rte_spinlock.h>

#include "rds_private.h"

struct rds_xmem {
	uint32_t refs;			/* atomic */
	uint32_t revoked;		/* atomic: the client went */
	int mem_fd;			/* /proc/<pid>/mem, or -1 */
	int maps_fd;			/* /proc/<pid>/maps, or -1 */
	int why;			/* errno of an unusable one */
	pid_t pid;
};

/*
 * Become (euid uid, egid gid) on this thread only (raw system calls: the
 * C library's setresuid would change every thread of the engine), so
 * that what the thread opens is checked against the client's rights.
 * The real and saved ids stay, so the thread can come back; with an
 * effective uid other than 0 the kernel clears the effective
 * capabilities, so the checks are the client's. 0, or -errno.
 */
static int
rds_xmem_become(uid_t uid, gid_t gid)
{
	if (syscall(SYS_setresgid, (gid_t)-1, gid, (gid_t)-1) != 0)
		return -errno;
	if (syscall(SYS_setresuid, (uid_t)-1, uid, (uid_t)-1) != 0)
		return -errno;
	return 0;
}

static void
rds_xmem_come_back(uid_t euid, gid_t egid)
{
	/* The uid first: it gives the capabilities back, which the gid
	 * needs. A thread that cannot come back must not go on. */
	if (syscall(SYS_setresuid, (uid_t)-1, euid, (uid_t)-1) != 0 ||
	    syscall(SYS_setresgid, (gid_t)-1, egid, (gid_t)-1) != 0) {
		RDS_LOG(CRIT, "cannot restore the engine's credentials: %s",
			strerror(errno));
		abort();
	}
}

/* Has the process of pidfd exited? (A pidfd polls readable then.) */
static bool
rds_xmem_exited(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	return pidfd >= 0 && poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
}

struct rds_xmem *
rds_xmem_open(pid_t pid, int pidfd, uid_t uid, gid_t gid)
{
	struct rds_xmem *x = calloc(1, sizeof(*x));
	uid_t euid = geteuid();
	gid_t egid = getegid();
	bool as_client;
	char path[48];
	int ret = 0;

	if (x == NULL)
		return NULL;
	x->refs = 1;
	x->mem_fd = -1;
	x->maps_fd = -1;
	x->pid = pid;
	if (pid <= 0) {
		/* SO_PEERCRED gives 0 for a peer in a pid namespace the
		 * engine does not see: nothing of it can be reached. */
		x->why = EPERM;
		return x;
	}
	as_client = euid != uid || egid != gid;
	if (as_client && euid != 0) {
		/* An unprivileged engine cannot take another's rights. */
		x->why = EPERM;
		return x;
	}
	if (as_client)
		ret = rds_xmem_become(uid, gid);
	if (ret == 0) {
		snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
		x->mem_fd = open(path, O_RDWR | O_CLOEXEC);
		if (x->mem_fd < 0)
			ret = -errno;
		snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
		x->maps_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (x->maps_fd < 0 && ret == 0)
			ret = -errno;
	}
	if (as_client)
		rds_xmem_come_back(euid, egid);
	/* The pid named the client when it was opened only if the client is
	 * still there now (its pid cannot have been reused meanwhile). */
	if (ret == 0 && rds_xmem_exited(pidfd))
		ret = -ESRCH;
	if (ret != 0) {
		if (x->mem_fd >= 0)
			close(x->mem_fd);
		if (x->maps_fd >= 0)
			close(x->maps_fd);
		x->mem_fd = -1;
		x->maps_fd = -1;
		x->why = ret == -ESRCH ? ESRCH : EPERM;
		RDS_LOG(INFO, "client pid %d: its memory cannot be reached "
			"(%s): RDMA on its memory refused", (int)pid,
			strerror(-ret));
	}
	return x;
}

void
rds_xmem_get(struct rds_xmem *x)
{
	if (x != NULL)
		__atomic_fetch_add(&x->refs, 1, __ATOMIC_RELAXED);
}

void
rds_xmem_put(struct rds_xmem *x)
{
	if (x == NULL || __atomic_sub_fetch(&x->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	if (x->mem_fd >= 0)
		close(x->mem_fd);
	if (x->maps_fd >= 0)
		close(x->maps_fd);
	free(x);
}

void
rds_xmem_revoke(struct rds_xmem *x)
{
	if (x != NULL)
		__atomic_store_n(&x->revoked, 1, __ATOMIC_RELEASE);
}

int
rds_xmem_usable(const struct rds_xmem *x)
{
	if (x == NULL)
		return 0;
	if (__atomic_load_n(&x->revoked, __ATOMIC_ACQUIRE))
		return ESRCH;
	return x->mem_fd < 0 ? x->why : 0;
}

pid_t
rds_xmem_pid(const struct rds_xmem *x)
{
	return x != NULL ? x->pid : 0;
}

/* [a, a + n) as file offsets of /proc/<pid>/mem: no wrap, no sign. */
static bool
rds_xmem_range_ok(uintptr_t a, size_t n)
{
	return (uint64_t)a + n >= (uint64_t)a &&
	       (uint64_t)a + n <= (uint64_t)INT64_MAX;
}

int
rds_xmem_read(const struct rds_xmem *x, void *dst, uintptr_t src, size_t n)
{
	size_t done = 0;
	ssize_t r;
	int err;

	if (n == 0)
		return 0;
	if (x == NULL) {
		memcpy(dst, (const void *)src, n);
		return 0;
	}
	err = rds_xmem_usable(x);
	if (err != 0)
		return err == EPERM ? -EPERM : -EFAULT;
	if (!rds_xmem_range_ok(src, n))
		return -EFAULT;
	while (done < n) {
		r = pread(x->mem_fd, (uint8_t *)dst + done, n - done,
			  (off_t)(src + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -EFAULT;	/* unmapped, or the mm is gone */
		done += (size_t)r;
	}
	return 0;
}

int
rds_xmem_write(const struct rds_xmem *x, uintptr_t dst, const void *src,
	       size_t n)
{
	size_t done = 0;
	ssize_t r;
	int err;

	if (n == 0)
		return 0;
	if (x == NULL) {
		memcpy((void *)dst, src, n);
		return 0;
	}
	err = rds_xmem_usable(x);
	if (err != 0)
		return err == EPERM ? -EPERM : -EFAULT;
	if (!rds_xmem_range_ok(dst, n))
		return -EFAULT;
	while (done < n) {
		r = pwrite(x->mem_fd, (const uint8_t *)src + done, n - done,
			   (off_t)(dst + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -EFAULT;
		done += (size_t)r;
	}
	return 0;
}

static rte_spinlock_t rds_xmem_atomic_lock = RTE_SPINLOCK_INITIALIZER;

int
rds_xmem_atomic(const struct rds_xmem *x, uintptr_t addr,
		uint64_t (*fn)(uint64_t old, const void *arg),
		const void *arg, uint64_t *old)
{
	uint64_t o, nv;
	int ret;

	rte_spinlock_lock(&rds_xmem_atomic_lock);
	ret = rds_xmem_read(x, &o, addr, sizeof(o));
	if (ret == 0) {
		nv = fn(o, arg);
		if (nv != o)
			ret = rds_xmem_write(x, addr, &nv, sizeof(nv));
	}
	rte_spinlock_unlock(&rds_xmem_atomic_lock);
	if (ret == 0)
		*old = o;
	return ret;
}

ssize_t
rds_xmem_maps_read(const struct rds_xmem *x, void *buf, size_t n, off_t off)
{
	ssize_t r;
	int err = rds_xmem_usable(x);

	if (x == NULL)
		return -EINVAL;
	if (err != 0)
		return -err;
	do {
		r = pread(x->maps_fd, buf, n, off);
	} while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : r;
}

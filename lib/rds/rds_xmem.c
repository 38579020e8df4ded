/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory the engine moves data to or from on behalf of a socket: this
 * process's (pid 0: memcpy), or an attached client's, which the engine
 * reaches only with process_vm_readv/writev, so that a client that
 * unmapped its memory, or died, gives an error and never a fault in the
 * engine (doc/design.md, "The rules the core keeps").
 */
#include <errno.h>
#include <sys/uio.h>

#include <rte_spinlock.h>

#include "rds_private.h"

int
rds_xmem_read(pid_t pid, void *dst, uintptr_t src, size_t n)
{
	struct iovec l = { .iov_base = dst, .iov_len = n };
	struct iovec r = { .iov_base = (void *)src, .iov_len = n };

	if (n == 0)
		return 0;
	if (pid == 0) {
		memcpy(dst, (const void *)src, n);
		return 0;
	}
	if (process_vm_readv(pid, &l, 1, &r, 1, 0) == (ssize_t)n)
		return 0;
	return errno == ESRCH ? -ESRCH : -EFAULT;
}

int
rds_xmem_write(pid_t pid, uintptr_t dst, const void *src, size_t n)
{
	struct iovec l = { .iov_base = (void *)(uintptr_t)src, .iov_len = n };
	struct iovec r = { .iov_base = (void *)dst, .iov_len = n };

	if (n == 0)
		return 0;
	if (pid == 0) {
		memcpy((void *)dst, src, n);
		return 0;
	}
	if (process_vm_writev(pid, &l, 1, &r, 1, 0) == (ssize_t)n)
		return 0;
	return errno == ESRCH ? -ESRCH : -EFAULT;
}

static rte_spinlock_t rds_xmem_atomic_lock = RTE_SPINLOCK_INITIALIZER;

int
rds_xmem_atomic(pid_t pid, uintptr_t addr,
		uint64_t (*fn)(uint64_t old, const void *arg),
		const void *arg, uint64_t *old)
{
	uint64_t o, nv;
	int ret;

	rte_spinlock_lock(&rds_xmem_atomic_lock);
	ret = rds_xmem_read(pid, &o, addr, sizeof(o));
	if (ret == 0) {
		nv = fn(o, arg);
		if (nv != o)
			ret = rds_xmem_write(pid, addr, &nv, sizeof(nv));
	}
	rte_spinlock_unlock(&rds_xmem_atomic_lock);
	if (ret == 0)
		*old = o;
	return ret;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory of another process: what the engine moves data to or from on
 * behalf of a socket of an attached client (RDMA regions, the local
 * vectors and atomic results of RDMA control messages, RDS_GET_MR's
 * cookie). Part of rds_private.h: include that, not this.
 *
 * The rule (rds-engined(8), "Trust"): the engine reaches a client's
 * memory only with the rights that client itself has, and only the
 * address space of the process it authenticated. When a client
 * attaches, the engine identifies it by the kernel's own account of the
 * socket's peer (SO_PEERPIDFD, else SO_PEERCRED and pidfd_open) and
 * opens /proc/<pid>/mem and /proc/<pid>/maps under the client's
 * credentials, so that the kernel's ptrace rules decide whether the
 * client could have reached that process itself (a set-id program, a
 * process of another user, one it may not trace: refused). Both
 * descriptors stay bound to the address space the process had then:
 * after the process execs (any program, set-id or not) or exits, every
 * access fails cleanly, and a pid reused later is never reached. A
 * client whose pid the engine cannot see (another pid namespace) gets
 * no access at all. Nothing is ever reached from a pid alone.
 *
 * NULL stands for this process: plain memcpy (the caller's own memory,
 * checked at the call).
 */
#ifndef RDS_XMEM_H
#define RDS_XMEM_H

#ifndef RDS_PRIVATE_H
#error "include rds_private.h, not rds_xmem.h"
#endif

#include <sys/types.h>

struct rds_xmem;

/* Open the memory of client pid (pidfd: the peer's pidfd, or -1), with
 * the credentials uid, gid. Always returns an object (NULL only when out
 * of memory): one the engine may not use answers EPERM on every access
 * (rds_xmem_usable). */
struct rds_xmem *rds_xmem_open(pid_t pid, int pidfd, uid_t uid, gid_t gid);
/* References: the client, each socket of it, each region and RDMA op
 * that names its memory. */
void rds_xmem_get(struct rds_xmem *x);
void rds_xmem_put(struct rds_xmem *x);
/* The client went: no access from now on (ops still in flight fail). */
void rds_xmem_revoke(struct rds_xmem *x);
/* 0 when x's memory can be reached (x NULL: this process), else the
 * errno every access gives (EPERM: the engine may not; ESRCH: gone). */
int rds_xmem_usable(const struct rds_xmem *x);
/* The pid, for logs (0 for this process). */
pid_t rds_xmem_pid(const struct rds_xmem *x);

/* Copies: 0, or -EFAULT (unmapped, gone, exec'd), -EPERM (not
 * reachable). Never a fault in the engine. */
int rds_xmem_read(const struct rds_xmem *x, void *dst, uintptr_t src,
		  size_t n);
int rds_xmem_write(const struct rds_xmem *x, uintptr_t dst, const void *src,
		   size_t n);
/* An atomic update of a client's 64-bit word, serialised with every
 * other one (atomic against other RDMA atomics, as a NIC's are). fn
 * gets the old value and returns the new one (or the old one: no
 * write). */
int rds_xmem_atomic(const struct rds_xmem *x, uintptr_t addr,
		    uint64_t (*fn)(uint64_t old, const void *arg),
		    const void *arg, uint64_t *old);
/* The client's /proc/<pid>/maps (rds_memcheck.c): read from offset off,
 * as pread: bytes read, 0 at the end, -errno. */
ssize_t rds_xmem_maps_read(const struct rds_xmem *x, void *buf, size_t n,
			   off_t off);

#endif /* RDS_XMEM_H */

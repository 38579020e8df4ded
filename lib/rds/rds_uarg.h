/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Caller-argument checks (rds_uarg.c, rds_memcheck.c): iovecs (inline),
 * control messages, option buffers, RDMA vectors, memory the engine
 * touches later. Part of rds_private.h, which includes it last: include
 * that, not this.
 */
#ifndef RDS_UARG_H
#define RDS_UARG_H

#ifndef RDS_PRIVATE_H
#error "include rds_private.h, not rds_uarg.h"
#endif

/* ================================================================== */
/* BEGIN caller-argument checks (rds_uarg.c, rds_memcheck.c).
 *
 * Every length, count and pointer a caller hands in is checked in one
 * place per kind before it is used: iovec arrays (here, inline: every
 * sendmsg and recvmsg runs it), control messages, option buffers, RDMA
 * vectors (rds_uarg.c). Memory the engine touches after the call
 * returned is checked when it is handed over (rds_memcheck.c). */

#include <limits.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

/* UIO_MAXIOV: the kernel's limit on iovec arrays (EMSGSIZE above). */
#define RDS_UIO_MAXIOV 1024

/*
 * The iovec array of a sendmsg or recvmsg, as net/socket.c
 * (__copy_msghdr: more than UIO_MAXIOV is EMSGSIZE, before the array is
 * read) and lib/iov_iter.c (iovec_from_user: a length that is negative
 * as ssize_t is EINVAL). A NULL array, or a NULL base with a length, is
 * EFAULT (the kernel's copy would fail; an invalid non-NULL base faults
 * in the caller's thread, as memcpy would). *total is the sum, which
 * cannot wrap (lengths of at most SSIZE_MAX each are added with
 * saturation at SSIZE_MAX, as the kernel clamps at MAX_RW_COUNT). No
 * system call: every sendmsg and recvmsg runs this. 0 or -errno.
 */
static inline int
rds_uarg_iov(const struct iovec *iov, size_t n, size_t *total)
{
	size_t i, l, sum = 0;

	/* One buffer, the common case: the same checks, no loop. */
	if (likely(n == 1) && likely(iov != NULL)) {
		l = iov[0].iov_len;
		*total = 0;
		if (unlikely(l > (size_t)SSIZE_MAX))
			return -EINVAL;
		if (unlikely(iov[0].iov_base == NULL && l != 0))
			return -EFAULT;
		*total = l;
		return 0;
	}
	*total = 0;
	if (n == 0)
		return 0;
	if (n > RDS_UIO_MAXIOV)
		return -EMSGSIZE;
	if (iov == NULL)
		return -EFAULT;	/* the kernel's copy_from_user */
	for (i = 0; i < n; i++) {
		l = iov[i].iov_len;
		if (l > (size_t)SSIZE_MAX)
			return -EINVAL;
		if (iov[i].iov_base == NULL && l != 0)
			return -EFAULT;
		sum = l > (size_t)SSIZE_MAX - sum ? (size_t)SSIZE_MAX :
		      sum + l;
	}
	*total = sum;
	return 0;
}

/* rds_uarg.c: control messages. A walk that never reads past
 * msg_controllen (the kernel's for_each_cmsghdr + CMSG_OK). */
struct rds_cmsg_iter {
	const uint8_t *ctl;
	size_t len;
	size_t off;
};

struct rds_cmsg {
	int level;
	int type;
	const uint8_t *data;		/* CMSG_DATA: may be unaligned */
	size_t len;			/* data bytes inside cmsg_len */
};

/* 0, -ENOBUFS (msg_controllen over INT_MAX), -EFAULT (no buffer). */
int rds_uarg_cmsg_start(struct rds_cmsg_iter *it, const struct msghdr *msg);
/* 1 and *c, 0 at the end, -EINVAL for a malformed header. */
int rds_uarg_cmsg_next(struct rds_cmsg_iter *it, struct rds_cmsg *c);

/* rds_uarg.c: option buffers. A setsockopt value of at least (exact:
 * exactly) size bytes; a getsockopt buffer for size bytes. 0, -EINVAL
 * (length), -EFAULT (NULL pointer). */
int rds_uarg_optval(const void *optval, socklen_t optlen, size_t size,
		    bool exact);
int rds_uarg_optbuf(const void *optval, const socklen_t *optlen,
		    size_t size);

/* rds_uarg.c: the local vector of RDMA_ARGS (count, array, elements as
 * rds_rdma_extra_size and rds_pages_in_vec). 0 or -errno; *total bytes. */
int rds_uarg_rdma_vec(const struct rds_iovec *vec, uint64_t nr,
		      uint64_t *total);

/*
 * rds_memcheck.c: is [addr, addr + len) of x's memory (NULL: this
 * process's, else an attached client's, rds_xmem.h) mapped with at least
 * prot (PROT_READ, PROT_READ | PROT_WRITE)? 0, -EFAULT, -ENOMEM, -ESRCH
 * (the client went), -EPERM (the engine may not reach the client's
 * memory). Pages are faulted in.
 * rds_mem_check(): changes no data; for registration (GET_MR, RDMA_MAP).
 * rds_mem_check_iov(): for the buffers of an RDMA operation at sendmsg;
 * with PROT_WRITE only for buffers the library will fill (a probed byte
 * may be written back with its own value).
 */
int rds_mem_check(const struct rds_xmem *x, uintptr_t addr, size_t len,
		  int prot);
int rds_mem_check_iov(const struct rds_xmem *x, const struct iovec *iov,
		      unsigned int n, int prot);
void rds_mem_check_force_probe(bool on);

/*
 * The destination of a sendmsg (msg_name): NULL or length 0 is none (0:
 * the connected peer, if any, is the caller's business); else an AF_INET
 * address of full length that is not INADDR_ANY, broadcast or multicast
 * (1, *sin set), or -EINVAL, as rds_sendmsg's checks in net/rds/send.c.
 */
static __rte_always_inline int
rds_uarg_dest_v4(const struct msghdr *msg, const struct sockaddr_in **sin)
{
	const struct sockaddr_in *s;

	if (msg->msg_name == NULL || msg->msg_namelen == 0)
		return 0;
	s = msg->msg_name;
	if (msg->msg_namelen < sizeof(*s) || s->sin_family != AF_INET ||
	    s->sin_addr.s_addr == htonl(INADDR_ANY) ||
	    s->sin_addr.s_addr == htonl(INADDR_BROADCAST) ||
	    IN_MULTICAST(ntohl(s->sin_addr.s_addr)))
		return -EINVAL;
	*sin = s;
	return 1;
}

/*
 * A received message's source into msg_name (recvmsg): written where
 * the buffer holds a whole sockaddr_in, msg_namelen set to its size
 * either way (the kernel's move_addr_to_user reports the full length).
 */
static __rte_always_inline void
rds_uarg_name_v4(struct msghdr *msg, uint32_t addr_be, uint16_t port)
{
	struct sockaddr_in *sin;

	if (msg->msg_name == NULL)
		return;
	if (msg->msg_namelen >= sizeof(*sin)) {
		sin = msg->msg_name;
		memset(sin, 0, sizeof(*sin));
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		sin->sin_addr.s_addr = addr_be;
	}
	msg->msg_namelen = sizeof(*sin);
}

/*
 * The source of a message received on an IPv6 socket: a sockaddr_in6
 * with the socket's scope, or a sockaddr_in for a v4-mapped source (as
 * net/rds/recv.c); written where it fits whole, msg_namelen set to its
 * size either way.
 */
static inline void
rds_uarg_name_v6(struct msghdr *msg, const struct in6_addr *a,
		 uint16_t port, uint32_t scope)
{
	if (rds_addr_is_v4(a)) {
		rds_uarg_name_v4(msg, rds_addr_v4(a), port);
		return;
	}
	if (msg->msg_name == NULL)
		return;
	if (msg->msg_namelen >= sizeof(struct sockaddr_in6))
		rds_addr_name6(msg->msg_name, a, port, scope);
	msg->msg_namelen = sizeof(struct sockaddr_in6);
}

/*
 * An address handed back by getpeername (sin, a sockaddr_in or
 * sockaddr_in6 of size bytes), as the kernel's
 * move_addr_to_user: *addrlen read as an int (negative: -EINVAL), what
 * fits of *sin copied (a NULL addr with room for it: -EFAULT, as a bad
 * user pointer), *addrlen set to the full size; NULL addrlen: -EFAULT.
 */
static __rte_always_inline int
rds_uarg_name_out(const void *sin, size_t size, struct sockaddr *addr,
		  socklen_t *addrlen)
{
	int len;

	if (addrlen == NULL)
		return -EFAULT;
	len = (int)*addrlen;
	if (len > (int)size)
		len = (int)size;
	if (len < 0)
		return -EINVAL;
	if (len != 0) {
		if (addr == NULL)
			return -EFAULT;
		memcpy(addr, sin, (size_t)len);
	}
	*addrlen = (socklen_t)size;
	return 0;
}

/* END caller-argument checks. */
/* ================================================================== */

#endif /* RDS_UARG_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Caller arguments ("user arguments"): the lengths, counts and pointers
 * an application hands to a call, checked in one place per kind before
 * the library uses them, with the errno the kernel gives for the same
 * mistake. iovec arrays are checked inline (rds_uarg_iov() in
 * rds_private.h: every sendmsg and recvmsg runs it); here are the
 * control-message walk, option buffers and RDMA vectors. Memory the
 * engine dereferences after the call returned is checked separately
 * (rds_memcheck.c).
 *
 * Nothing here makes a system call: these run on the send path.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/socket.h>

#include "rds_private.h"

/* ------------------------------------------------------------------ */
/* Control messages.
 *
 * The walk is the kernel's (include/linux/socket.h for_each_cmsghdr,
 * __cmsg_nxthdr and CMSG_OK, used by net/rds/send.c): a header is taken
 * only if it fits whole in what is left of msg_controllen, and is valid
 * only if sizeof(struct cmsghdr) <= cmsg_len <= what is left; anything
 * else is EINVAL, whatever the level. It works on offsets (no pointer
 * arithmetic with a caller's length) and copies each header out with
 * memcpy, so an unaligned buffer is read correctly (the kernel copies
 * the buffer into its own first). Nothing at or past
 * msg_control + msg_controllen is ever read.
 */

int
rds_uarg_cmsg_start(struct rds_cmsg_iter *it, const struct msghdr *msg)
{
	it->ctl = msg->msg_control;
	it->len = msg->msg_controllen;
	it->off = 0;
	if (it->len == 0)
		return 0;
	/* net/socket.c ____sys_sendmsg: ENOBUFS over INT_MAX, then the
	 * copy of the buffer fails (EFAULT) for a NULL one. */
	if (it->len > INT_MAX)
		return -ENOBUFS;
	if (it->ctl == NULL)
		return -EFAULT;
	return 0;
}

int
rds_uarg_cmsg_next(struct rds_cmsg_iter *it, struct rds_cmsg *c)
{
	struct cmsghdr h;
	size_t left;

	if (it->off >= it->len)
		return 0;
	left = it->len - it->off;
	if (left < sizeof(h))
		return 0;	/* no room for another header: the end */
	memcpy(&h, it->ctl + it->off, sizeof(h));
	if (h.cmsg_len < sizeof(h) || h.cmsg_len > left)
		return -EINVAL;	/* !CMSG_OK */
	c->level = h.cmsg_level;
	c->type = h.cmsg_type;
	c->data = it->ctl + it->off + CMSG_LEN(0);
	c->len = h.cmsg_len - CMSG_LEN(0);
	/* cmsg_len <= left <= INT_MAX: the aligned step cannot wrap; a step
	 * past the end ends the walk above. */
	it->off += CMSG_ALIGN(h.cmsg_len);
	return 1;
}

/* ------------------------------------------------------------------ */
/* RDMA vectors.
 *
 * The local vector of RDMA_ARGS, as net/rds/rdma.c rds_rdma_extra_size()
 * and rds_pages_in_vec() take it: no element is EINVAL, more than
 * UIO_MAXIOV EMSGSIZE (both before the array is read), no array EFAULT
 * (copy_from_user), an element that is empty, whose range wraps, or that
 * is over UINT_MAX bytes EINVAL. The array itself is read here: a bad
 * non-NULL pointer faults in the caller's thread, as memcpy would.
 * *total: the bytes (at most 1024 * UINT_MAX: no wrap).
 */
int
rds_uarg_rdma_vec(const struct rds_iovec *vec, uint64_t nr, uint64_t *total)
{
	uint64_t i, sum = 0;

	*total = 0;
	if (nr == 0)
		return -EINVAL;
	if (nr > RDS_UIO_MAXIOV)
		return -EMSGSIZE;
	if (vec == NULL)
		return -EFAULT;
	for (i = 0; i < nr; i++) {
		uint64_t a = vec[i].addr, b = vec[i].bytes;

		if (b == 0 || b > UINT32_MAX || a + b <= a)
			return -EINVAL;
		sum += b;
	}
	*total = sum;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Option buffers.
 *
 * As the kernel's setsockopt handlers (sock_setsockopt, rds_setsockopt,
 * rds_get_mr): the length first (shorter than the value, or for exact
 * options any other length: EINVAL), then the copy (a NULL value:
 * EFAULT). getsockopt (sk_getsockopt, rds_getsockopt): the length
 * pointer is read first (NULL: EFAULT), then a buffer shorter than the
 * value is EINVAL (the socket core truncates instead; the library's
 * header documents EINVAL), then the copy out (NULL: EFAULT).
 */
int
rds_uarg_optval(const void *optval, socklen_t optlen, size_t size,
		bool exact)
{
	if (exact ? optlen != size : optlen < size)
		return -EINVAL;
	if (optval == NULL)
		return -EFAULT;
	return 0;
}

int
rds_uarg_optbuf(const void *optval, const socklen_t *optlen, size_t size)
{
	if (optlen == NULL)
		return -EFAULT;
	if (*optlen < size)
		return -EINVAL;
	if (optval == NULL)
		return -EFAULT;
	return 0;
}

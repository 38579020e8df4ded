/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * librte_rds_preload.so, the socket calls (rds_preload.c has the whole
 * picture): socket(AF_RDS) (attaching the process at the first), bind,
 * connect, getsockname, the send and receive calls, the options and
 * ioctl. On an RDS descriptor they are rte_rds_* calls; on any other,
 * the C library's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>

#include <rte_errno.h>
#include <rte_rds.h>
#include <rte_rds_attach.h>

#include "rds_preload_private.h"

/* ------------------------------------------------------------------ */
/* Sockets */

/* One attach at a time: the threads of a program whose engine went may
 * all make a socket at once. */
static pthread_mutex_t pl_attach_lock = PTHREAD_MUTEX_INITIALIZER;

void
pl_attach_atfork_child(void)
{
	pthread_mutex_init(&pl_attach_lock, NULL);
}

/*
 * Attach (again): the first time, in a forked child, or after the engine
 * went (a restarted one takes us). Under pl_lock, with every entry of
 * the attachment before marked closing meanwhile, so that a call on one
 * of its numbers on another thread waits for the change: its RDS
 * descriptors become PL_DEAD (they name sockets of an engine that went:
 * their handles may be the new attachment's sockets' soon, and must not
 * reach them), and the library's own descriptors of it, which the new
 * attach closed, are nothing of the library's any more (a number among
 * them may be the new connection's already).
 */
static int
pl_attach_again(void)
{
	unsigned int i;
	int ret, ctl;

	pthread_mutex_lock(&pl_lock);
	for (i = 0; i < PL_MAX_FDS; i++)
		if (pl_fds[i].hidden >= 0 ||
		    (pl_fds[i].handle >= 0 && !pl_fds[i].stale))
			__atomic_store_n(&pl_fds[i].closing, 1,
					 __ATOMIC_RELEASE);
	ret = rte_rds_attach(NULL);
	for (i = 0; i < PL_MAX_FDS; i++) {
		if (!pl_fds[i].closing)
			continue;
		if (ret == 0) {
			if (pl_fds[i].handle >= 0)
				pl_fds[i].stale = PL_DEAD;
			pl_hide((int)i, -1);
		}
		__atomic_store_n(&pl_fds[i].closing, 0, __ATOMIC_RELEASE);
	}
	if (ret == 0) {
		/* Its connection to the engine is the library's: hidden
		 * from the program as its wake-up descriptors are. */
		memset(pl_socks, 0, sizeof(pl_socks));
		ctl = rte_rds_attach_fd();
		if (ctl >= 0 && ctl < PL_MAX_FDS)
			pl_hide(ctl, PL_HIDDEN_CTL);
	}
	pthread_mutex_unlock(&pl_lock);
	return ret;
}

static int
pl_attach(void)
{
	static bool told;
	int ret = 0, err;

	pthread_mutex_lock(&pl_attach_lock);
	if (!rte_rds_attached())
		ret = pl_attach_again();
	err = errno;
	if (ret != 0 && !told) {
		const char *p = getenv("RTE_RDS_ENGINE");

		fprintf(stderr, "librte_rds_preload: cannot attach to the RDS "
			"engine at %s: %s\n", p != NULL && *p != '\0' ? p :
			RTE_RDS_ENGINE_PATH, strerror(err));
		told = true;
	}
	pthread_mutex_unlock(&pl_attach_lock);
	return ret;
}

PL_EXPORT int
socket(int domain, int type, int protocol)
{
	int h, fd, efd, err;

	if (domain != AF_RDS || pl_inside)
		return REAL(socket)(domain, type, protocol);
	/* As net/rds/af_rds.c rds_create. */
	if ((type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC)) != SOCK_SEQPACKET ||
	    protocol != 0) {
		errno = ESOCKTNOSUPPORT;
		return -1;
	}
	if (pl_table() == NULL) {
		errno = ENOMEM;
		return -1;
	}
	PL_ENTER();
	if (pl_attach() != 0) {
		PL_LEAVE();
		/* As a kernel without the rds module. */
		errno = EAFNOSUPPORT;
		return -1;
	}
	h = rte_rds_socket();
	if (h < 0) {
		err = errno;
		PL_LEAVE();
		errno = err;
		return -1;
	}
	/* The program gets the wake-up descriptor's number, the library a
	 * dup of it at a number the program never opened
	 * (rds_preload_fd.c). */
	fd = rte_rds_event_fd(h);
	efd = fd < 0 ? -1 : rte_rds_event_fd_move(h, pl_hide_base());
	if (efd < 0 && fd >= 0)
		efd = rte_rds_event_fd_move(h, 0);
	if (fd < 0 || efd < 0 || fd >= PL_MAX_FDS || efd >= PL_MAX_FDS ||
	    h >= PL_MAX_HANDLES) {
		if (efd >= 0)
			REAL(close)(fd);	/* ours after the move */
		rte_rds_close(h);
		PL_LEAVE();
		errno = EMFILE;
		return -1;
	}
	PL_LEAVE();
	pthread_mutex_lock(&pl_lock);
	pl_socks[h].refs = 1;
	pl_socks[h].efd = efd;
	pl_socks[h].nonblock = (type & SOCK_NONBLOCK) != 0;
	pl_hide(efd, h);
	pl_set(fd, h, false);
	pthread_mutex_unlock(&pl_lock);
	/* The wake-up descriptor is close-on-exec already; an RDS socket
	 * does not survive exec anyway. */
	return fd;
}

PL_EXPORT int
bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	struct pl_fd *p = pl_get(fd);
	int32_t h;

	if (p == NULL)
		return PL_LIBC(fd, REAL(bind)(fd, addr, len));
	PL_HANDLE(p, h);
	return PL_CALL(rte_rds_bind(h, addr, len));
}

/* As net/rds/af_rds.c (sock_no_shutdown): an RDS socket has no shutdown;
 * the call must not reach the wake-up descriptor behind the number. */
PL_EXPORT int
shutdown(int fd, int how)
{
	struct pl_fd *p = pl_get(fd);
	int32_t h;

	if (p == NULL)
		return PL_LIBC(fd, REAL(shutdown)(fd, how));
	PL_HANDLE(p, h);
	(void)h;
	errno = EOPNOTSUPP;
	return -1;
}

PL_EXPORT int
connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	struct pl_fd *p = pl_get(fd);
	int32_t h;

	if (p == NULL)
		return PL_LIBC(fd, REAL(connect)(fd, addr, len));
	PL_HANDLE(p, h);
	return PL_CALL(rte_rds_connect(h, addr, len));
}

/* As net/rds/af_rds.c rds_getname with peer: the address connect gave,
 * ENOTCONN before it. */
PL_EXPORT int
getpeername(int fd, struct sockaddr *addr, socklen_t *len)
{
	struct pl_fd *p = pl_get(fd);
	int32_t h;

	if (p == NULL)
		return PL_LIBC(fd, REAL(getpeername)(fd, addr, len));
	PL_HANDLE(p, h);
	return PL_CALL(rte_rds_getpeername(h, addr, len));
}

PL_EXPORT int
getsockname(int fd, struct sockaddr *addr, socklen_t *len)
{
	struct pl_fd *p = pl_get(fd);
	int32_t h;

	if (p == NULL)
		return PL_LIBC(fd, REAL(getsockname)(fd, addr, len));
	PL_HANDLE(p, h);
	return PL_CALL(rte_rds_getsockname(h, addr, len));
}

static inline int
pl_flags(int32_t h, int flags)
{
	return pl_socks[h].nonblock ? flags | MSG_DONTWAIT : flags;
}

PL_EXPORT ssize_t
sendmsg(int fd, const struct msghdr *msg, int flags)
{
	struct pl_fd *p = pl_get(fd);
	int32_t h;

	if (p == NULL)
		return PL_LIBC(fd, REAL(sendmsg)(fd, msg, flags));
	PL_HANDLE(p, h);
	return PL_CALL(rte_rds_sendmsg(h, msg, pl_flags(h, flags)));
}

PL_EXPORT ssize_t
sendto(int fd, const void *buf, size_t len, int flags,
       const struct sockaddr *to, socklen_t tolen)
{
	struct pl_fd *p = pl_get(fd);
	int32_t h;

	if (p == NULL)
		return PL_LIBC(fd,
			       REAL(sendto)(fd, buf, len, flags, to, tolen));
	PL_HANDLE(p, h);
	return PL_CALL(rte_rds_sendto(h, buf, len, pl_flags(h, flags),
				      to, tolen));
}

PL_EXPORT ssize_t
send(int fd, const void *buf, size_t len, int flags)
{
	struct pl_fd *p = pl_get(fd);
	int32_t h;

	if (p == NULL)
		return PL_LIBC(fd, REAL(send)(fd, buf, len, flags));
	PL_HANDLE(p, h);
	return PL_CALL(rte_rds_sendto(h, buf, len, pl_flags(h, flags),
				      NULL, 0));
}

PL_EXPORT ssize_t
write(int fd, const void *buf, size_t len)
{
	struct pl_fd *p = pl_get(fd);
	int32_t h;

	if (p == NULL)
		return PL_LIBC(fd, REAL(write)(fd, buf, len));
	PL_HANDLE(p, h);
	return PL_CALL(rte_rds_sendto(h, buf, len, pl_flags(h, 0),
				      NULL, 0));
}

PL_EXPORT ssize_t
recvmsg(int fd, struct msghdr *msg, int flags)
{
	struct pl_fd *p = pl_get(fd);
	int32_t h;

	if (p == NULL)
		return PL_LIBC(fd, REAL(recvmsg)(fd, msg, flags));
	PL_HANDLE(p, h);
	return PL_CALL(rte_rds_recvmsg(h, msg, pl_flags(h, flags)));
}

PL_EXPORT ssize_t
recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *from,
	 socklen_t *fromlen)
{
	struct pl_fd *p = pl_get(fd);
	int32_t h;

	if (p == NULL)
		return PL_LIBC(fd,
			       REAL(recvfrom)(fd, buf, len, flags, from, fromlen));
	PL_HANDLE(p, h);
	return PL_CALL(rte_rds_recvfrom(h, buf, len,
					pl_flags(h, flags), from, fromlen));
}

PL_EXPORT ssize_t
recv(int fd, void *buf, size_t len, int flags)
{
	struct pl_fd *p = pl_get(fd);
	int32_t h;

	if (p == NULL)
		return PL_LIBC(fd, REAL(recv)(fd, buf, len, flags));
	PL_HANDLE(p, h);
	return PL_CALL(rte_rds_recvfrom(h, buf, len,
					pl_flags(h, flags), NULL, NULL));
}

PL_EXPORT ssize_t
read(int fd, void *buf, size_t len)
{
	struct pl_fd *p = pl_get(fd);
	int32_t h;

	if (p == NULL)
		return PL_LIBC(fd, REAL(read)(fd, buf, len));
	PL_HANDLE(p, h);
	return PL_CALL(rte_rds_recvfrom(h, buf, len, pl_flags(h, 0),
					NULL, NULL));
}

PL_EXPORT int
setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	struct pl_fd *p = pl_get(fd);
	int32_t h;

	if (p == NULL)
		return PL_LIBC(fd, REAL(setsockopt)(fd, level, name, val, len));
	PL_HANDLE(p, h);
	return PL_CALL(rte_rds_setsockopt(h, level, name, val, len));
}

PL_EXPORT int
getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
	struct pl_fd *p = pl_get(fd);
	int32_t h;

	if (p == NULL)
		return PL_LIBC(fd, REAL(getsockopt)(fd, level, name, val, len));
	PL_HANDLE(p, h);
	return PL_CALL(rte_rds_getsockopt(h, level, name, val, len));
}

/* ------------------------------------------------------------------ */
/* ioctl */

PL_EXPORT int
ioctl(int fd, unsigned long req, ...)
{
	struct pl_fd *p = pl_get(fd);
	int32_t h;
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (p == NULL)
		return PL_LIBC(fd, REAL(ioctl)(fd, req, arg));
	/* The descriptor's own flag (the kernel's do_vfs_ioctl, before
	 * any socket sees the call): the program's descriptor is a real
	 * one. */
	if (req == FIOCLEX || req == FIONCLEX)
		return REAL(ioctl)(fd, req, arg);
	PL_HANDLE(p, h);
	switch (req) {
	case FIONBIO:
		if (arg == NULL) {
			errno = EFAULT;
			return -1;
		}
		pl_socks[h].nonblock = *(const int *)arg != 0;
		return 0;
	case SIOCINQ:		/* FIONREAD: the next message's size */
	case SIOCOUTQ:		/* TIOCOUTQ: bytes in the send buffer */
	case SIOCRDSSETTOS:	/* an rds_tos_t, as the kernel's RDS */
	case SIOCRDSGETTOS:
		return PL_CALL(rte_rds_ioctl(h, req, arg));
	default:
		errno = ENOTTY;
		return -1;
	}
}

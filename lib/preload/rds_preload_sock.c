/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * librte_rds_preload.so, the calls on a descriptor (rds_preload.c has
 * the whole picture): socket(AF_RDS) (attaching the process at the
 * first), close, dup, bind, connect, getsockname, the send and receive
 * calls, the options, ioctl and fcntl. On an RDS descriptor they are
 * rte_rds_* calls; on any other, the C library's.
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

static int
pl_attach(void)
{
	static bool told;
	int ret;

	if (rte_rds_attached())
		return 0;
	ret = rte_rds_attach(NULL);
	if (ret != 0 && !told) {
		const char *p = getenv("RTE_RDS_ENGINE");

		fprintf(stderr, "librte_rds_preload: cannot attach to the RDS "
			"engine at %s: %s\n", p != NULL && *p != '\0' ? p :
			RTE_RDS_ENGINE_PATH, strerror(errno));
		told = true;
	}
	return ret;
}

PL_EXPORT int
socket(int domain, int type, int protocol)
{
	int h, fd, err;

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
	fd = rte_rds_event_fd(h);
	if (fd < 0 || fd >= PL_MAX_FDS || h >= PL_MAX_HANDLES) {
		rte_rds_close(h);
		PL_LEAVE();
		errno = EMFILE;
		return -1;
	}
	PL_LEAVE();
	pthread_mutex_lock(&pl_lock);
	pl_hrefs[h] = 1;
	pl_set(fd, h, (type & SOCK_NONBLOCK) != 0);
	pthread_mutex_unlock(&pl_lock);
	/* The eventfd is close-on-exec already; an RDS socket does not
	 * survive exec anyway. */
	return fd;
}

PL_EXPORT int
close(int fd)
{
	struct pl_fd *p = pl_get(fd);
	int32_t h;
	int ret = 0, err = 0;

	if (p == NULL)
		return REAL(close)(fd);
	pthread_mutex_lock(&pl_lock);
	h = p->handle;
	if (p->stale) {
		pl_clear(fd);
		pthread_mutex_unlock(&pl_lock);
		return REAL(close)(fd);
	}
	pl_clear(fd);
	if (--pl_hrefs[h] == 0) {
		pthread_mutex_unlock(&pl_lock);
		/* The last descriptor: the socket goes (its eventfd, which
		 * is the first descriptor, with it). */
		PL_ENTER();
		if (rte_rds_event_fd(h) != fd)
			REAL(close)(fd);
		ret = rte_rds_close(h);
		err = errno;
		PL_LEAVE();
		errno = err;
		return ret;
	}
	pthread_mutex_unlock(&pl_lock);
	/* A duplicate goes; the socket stays. The first descriptor is the
	 * socket's eventfd and stays open until the last one goes. */
	PL_ENTER();
	if (rte_rds_event_fd(h) != fd)
		ret = REAL(close)(fd);
	PL_LEAVE();
	return ret;
}

static int
pl_dup_register(int oldfd, int newfd)
{
	struct pl_fd *p = pl_get(oldfd);

	if (p == NULL || newfd < 0)
		return newfd;
	if (newfd >= PL_MAX_FDS) {
		REAL(close)(newfd);
		errno = EMFILE;
		return -1;
	}
	pthread_mutex_lock(&pl_lock);
	if (!p->stale)
		pl_hrefs[p->handle]++;
	pl_set(newfd, p->handle, p->nonblock);
	pl_fds[newfd].stale = p->stale;
	pthread_mutex_unlock(&pl_lock);
	return newfd;
}

PL_EXPORT int
dup(int fd)
{
	if (pl_get(fd) == NULL)
		return REAL(dup)(fd);
	return pl_dup_register(fd, REAL(dup)(fd));
}

PL_EXPORT int
dup2(int oldfd, int newfd)
{
	if (oldfd == newfd)
		return REAL(dup2)(oldfd, newfd);
	if (pl_get(newfd) != NULL)
		close(newfd);
	if (pl_get(oldfd) == NULL)
		return REAL(dup2)(oldfd, newfd);
	return pl_dup_register(oldfd, REAL(dup2)(oldfd, newfd));
}

PL_EXPORT int
dup3(int oldfd, int newfd, int flags)
{
	if (oldfd != newfd && pl_get(newfd) != NULL)
		close(newfd);
	if (pl_get(oldfd) == NULL)
		return REAL(dup3)(oldfd, newfd, flags);
	return pl_dup_register(oldfd, REAL(dup3)(oldfd, newfd, flags));
}

PL_EXPORT int
bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	struct pl_fd *p = pl_get(fd);

	if (p == NULL)
		return REAL(bind)(fd, addr, len);
	PL_HANDLE(p, fd);
	return PL_CALL(rte_rds_bind(p->handle, addr, len));
}

PL_EXPORT int
connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	struct pl_fd *p = pl_get(fd);

	if (p == NULL)
		return REAL(connect)(fd, addr, len);
	PL_HANDLE(p, fd);
	return PL_CALL(rte_rds_connect(p->handle, addr, len));
}

PL_EXPORT int
getsockname(int fd, struct sockaddr *addr, socklen_t *len)
{
	struct pl_fd *p = pl_get(fd);

	if (p == NULL)
		return REAL(getsockname)(fd, addr, len);
	PL_HANDLE(p, fd);
	return PL_CALL(rte_rds_getsockname(p->handle, addr, len));
}

static inline int
pl_flags(const struct pl_fd *p, int flags)
{
	return p->nonblock ? flags | MSG_DONTWAIT : flags;
}

PL_EXPORT ssize_t
sendmsg(int fd, const struct msghdr *msg, int flags)
{
	struct pl_fd *p = pl_get(fd);

	if (p == NULL)
		return REAL(sendmsg)(fd, msg, flags);
	PL_HANDLE(p, fd);
	return PL_CALL(rte_rds_sendmsg(p->handle, msg, pl_flags(p, flags)));
}

PL_EXPORT ssize_t
sendto(int fd, const void *buf, size_t len, int flags,
       const struct sockaddr *to, socklen_t tolen)
{
	struct pl_fd *p = pl_get(fd);

	if (p == NULL)
		return REAL(sendto)(fd, buf, len, flags, to, tolen);
	PL_HANDLE(p, fd);
	return PL_CALL(rte_rds_sendto(p->handle, buf, len, pl_flags(p, flags),
				      to, tolen));
}

PL_EXPORT ssize_t
send(int fd, const void *buf, size_t len, int flags)
{
	struct pl_fd *p = pl_get(fd);

	if (p == NULL)
		return REAL(send)(fd, buf, len, flags);
	PL_HANDLE(p, fd);
	return PL_CALL(rte_rds_sendto(p->handle, buf, len, pl_flags(p, flags),
				      NULL, 0));
}

PL_EXPORT ssize_t
write(int fd, const void *buf, size_t len)
{
	struct pl_fd *p = pl_get(fd);

	if (p == NULL)
		return REAL(write)(fd, buf, len);
	PL_HANDLE(p, fd);
	return PL_CALL(rte_rds_sendto(p->handle, buf, len, pl_flags(p, 0),
				      NULL, 0));
}

PL_EXPORT ssize_t
recvmsg(int fd, struct msghdr *msg, int flags)
{
	struct pl_fd *p = pl_get(fd);

	if (p == NULL)
		return REAL(recvmsg)(fd, msg, flags);
	PL_HANDLE(p, fd);
	return PL_CALL(rte_rds_recvmsg(p->handle, msg, pl_flags(p, flags)));
}

PL_EXPORT ssize_t
recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *from,
	 socklen_t *fromlen)
{
	struct pl_fd *p = pl_get(fd);

	if (p == NULL)
		return REAL(recvfrom)(fd, buf, len, flags, from, fromlen);
	PL_HANDLE(p, fd);
	return PL_CALL(rte_rds_recvfrom(p->handle, buf, len,
					pl_flags(p, flags), from, fromlen));
}

PL_EXPORT ssize_t
recv(int fd, void *buf, size_t len, int flags)
{
	struct pl_fd *p = pl_get(fd);

	if (p == NULL)
		return REAL(recv)(fd, buf, len, flags);
	PL_HANDLE(p, fd);
	return PL_CALL(rte_rds_recvfrom(p->handle, buf, len,
					pl_flags(p, flags), NULL, NULL));
}

PL_EXPORT ssize_t
read(int fd, void *buf, size_t len)
{
	struct pl_fd *p = pl_get(fd);

	if (p == NULL)
		return REAL(read)(fd, buf, len);
	PL_HANDLE(p, fd);
	return PL_CALL(rte_rds_recvfrom(p->handle, buf, len, pl_flags(p, 0),
					NULL, NULL));
}

PL_EXPORT int
setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	struct pl_fd *p = pl_get(fd);

	if (p == NULL)
		return REAL(setsockopt)(fd, level, name, val, len);
	PL_HANDLE(p, fd);
	return PL_CALL(rte_rds_setsockopt(p->handle, level, name, val, len));
}

PL_EXPORT int
getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
	struct pl_fd *p = pl_get(fd);

	if (p == NULL)
		return REAL(getsockopt)(fd, level, name, val, len);
	PL_HANDLE(p, fd);
	return PL_CALL(rte_rds_getsockopt(p->handle, level, name, val, len));
}

/* ------------------------------------------------------------------ */
/* ioctl, fcntl */

PL_EXPORT int
ioctl(int fd, unsigned long req, ...)
{
	struct pl_fd *p = pl_get(fd);
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (p == NULL)
		return REAL(ioctl)(fd, req, arg);
	PL_HANDLE(p, fd);
	switch (req) {
	case FIONBIO:
		if (arg == NULL) {
			errno = EFAULT;
			return -1;
		}
		p->nonblock = *(const int *)arg != 0;
		return 0;
	case SIOCINQ: {		/* FIONREAD: the next message's size */
		char c;
		ssize_t n;

		if (arg == NULL) {
			errno = EFAULT;
			return -1;
		}
		n = PL_CALL(rte_rds_recvfrom(p->handle, &c, 0,
			    MSG_DONTWAIT | MSG_PEEK | MSG_TRUNC, NULL, NULL));
		*(int *)arg = n < 0 ? 0 : (int)n;
		return 0;
	}
	case SIOCOUTQ: {	/* bytes in the send buffer */
		struct rte_rds_pollfd pf;

		if (arg == NULL) {
			errno = EFAULT;
			return -1;
		}
		pf.sock = p->handle;
		pf.events = POLLOUT;
		pf.revents = 0;
		*(int *)arg = PL_CALL(rte_rds_poll(&pf, 1, 0)) > 0 ? 0 : 1;
		return 0;
	}
	default:
		errno = ENOTTY;
		return -1;
	}
}

PL_EXPORT int
fcntl(int fd, int cmd, ...)
{
	struct pl_fd *p = pl_get(fd);
	va_list ap;
	long arg;
	int ret;

	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	if (p == NULL)
		return REAL(fcntl)(fd, cmd, arg);
	switch (cmd) {
	case F_GETFL:
		/* The eventfd is non-blocking for us; the program sees its
		 * own setting. */
		ret = REAL(fcntl)(fd, F_GETFL);
		if (ret < 0)
			return ret;
		return (ret & ~O_NONBLOCK) | (p->nonblock ? O_NONBLOCK : 0);
	case F_SETFL:
		p->nonblock = (arg & O_NONBLOCK) != 0;
		return REAL(fcntl)(fd, F_SETFL, arg | O_NONBLOCK);
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		return pl_dup_register(fd, REAL(fcntl)(fd, cmd, arg));
	default:
		return REAL(fcntl)(fd, cmd, arg);
	}
}

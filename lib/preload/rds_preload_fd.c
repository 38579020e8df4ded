/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * librte_rds_preload.so, the descriptor numbers (rds_preload.c has the
 * whole picture): close, close_range, closefrom, dup, dup2, dup3 and
 * fcntl, with the kernel's semantics on the program's RDS descriptors,
 * and the library's hidden wake-up descriptors kept out of the program's
 * way.
 *
 * Every change of the table is made under pl_lock, the system call
 * included, with the entries it replaces marked closing: a call on
 * another thread that meets one waits for the change and looks again
 * (pl_get), so it never sees a number half closed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>
#include <linux/close_range.h>
#include <sys/resource.h>
#include <sys/select.h>

#include <rte_errno.h>
#include <rte_rds.h>
#include <rte_rds_attach.h>

#include "rds_preload_private.h"

/*
 * Where the library's wake-up descriptors go: the lowest free number from
 * FD_SETSIZE up, or from half the descriptor limit when that is lower,
 * away from the numbers a program counts on, dup2s to or selects on (it
 * can still pick any: then the wake-up descriptor moves again), and
 * without making the kernel's descriptor table much larger than the
 * program's own.
 */
int
pl_hide_base(void)
{
	struct rlimit rl;
	rlim_t b = FD_SETSIZE;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur / 2 < b)
		b = rl.rlim_cur / 2;
	return b < 3 ? 3 : (int)b;
}

/* What a number is to the table (under pl_lock). */
enum pl_kind { PL_OTHER, PL_RDS, PL_HIDDEN };

static enum pl_kind
pl_kind(int fd)
{
	struct pl_fd *t = pl_fds;

	if (t == NULL || fd < 0 || fd >= PL_MAX_FDS)
		return PL_OTHER;
	if (t[fd].handle >= 0)
		return PL_RDS;
	return t[fd].hidden >= 0 ? PL_HIDDEN : PL_OTHER;
}

/* A number the table may know: the calls below go the slow way. */
static inline bool
pl_known(int fd)
{
	return pl_get(fd) != NULL || pl_is_hidden(fd);
}

/* Move the library's wake-up descriptor off fd, which the program is about
 * to take (under pl_lock): 0, or -1 with errno. */
static int
pl_unhide(int fd)
{
	int32_t h = pl_fds[fd].hidden;
	int nfd;

	PL_ENTER();
	if (h == PL_HIDDEN_CTL) {
		/* The library's connection to the engine. */
		nfd = rte_rds_attach_fd_move(pl_hide_base());
		if (nfd < 0 && rte_errno != ENXIO)
			nfd = rte_rds_attach_fd_move(0);
	} else {
		nfd = rte_rds_event_fd_move(h, pl_hide_base());
		if (nfd < 0 && rte_errno != EBADF) /* the limit went down */
			nfd = rte_rds_event_fd_move(h, 0);
	}
	PL_LEAVE();
	if (nfd < 0) {
		errno = rte_errno == EINVAL ? EMFILE : rte_errno;
		return -1;
	}
	/* Beyond the table only when every number below it is taken; the
	 * descriptor then works on unguarded. */
	if (nfd < PL_MAX_FDS)
		pl_hide(nfd, h);
	pl_hide(fd, -1);
	if (h != PL_HIDDEN_CTL)
		pl_socks[h].efd = nfd;
	return 0;
}

/* One descriptor of the socket h fewer (under pl_lock): the last one
 * closes the socket, and the library its wake-up descriptor. */
static void
pl_unref(int32_t h)
{
	int efd = pl_socks[h].efd;

	if (--pl_socks[h].refs != 0)
		return;
	PL_ENTER();
	rte_rds_close(h);
	PL_LEAVE();
	if (efd >= 0)
		pl_hide(efd, -1);
	pl_socks[h].efd = -1;
}

/* fd, an RDS descriptor of h (stale: h names no socket of ours), was
 * closed (under pl_lock, fd marked closing): its entry goes, and the
 * socket loses a descriptor. */
static void
pl_drop(int fd, int32_t h, uint8_t stale)
{
	pl_clear(fd);
	if (!stale)
		pl_unref(h);
}

/* Close the program's RDS descriptor fd (under pl_lock). */
static int
pl_close_rds(int fd)
{
	struct pl_fd *p = &pl_fds[fd];
	int32_t h = p->handle;
	uint8_t stale = p->stale;
	int ret, err;

	__atomic_store_n(&p->closing, 1, __ATOMIC_RELEASE);
	/* The program's descriptor goes; the socket's file stays open in
	 * the library's wake-up descriptor until the socket closes. */
	ret = REAL(close)(fd);
	err = errno;
	pl_drop(fd, h, stale);
	__atomic_store_n(&p->closing, 0, __ATOMIC_RELEASE);
	errno = err;
	return ret;
}

PL_EXPORT int
close(int fd)
{
	int ret;

	if (!pl_known(fd) || pl_foreign())
		return REAL(close)(fd);
	pthread_mutex_lock(&pl_lock);
	switch (pl_kind(fd)) {
	case PL_HIDDEN:
		/* The program never opened it: nothing of its is there. */
		ret = pl_stale();
		break;
	case PL_OTHER:
		/* Changed meanwhile: the C library's now. */
		ret = REAL(close)(fd);
		break;
	default:
		ret = pl_close_rds(fd);
		break;
	}
	pthread_mutex_unlock(&pl_lock);
	return ret;
}

/* The kernel's close_range, or ENOSYS where the C library has none. */
static int
pl_sys_close_range(unsigned int first, unsigned int last, int flags)
{
	if (REAL(close_range) == NULL) {
		errno = ENOSYS;
		return -1;
	}
	return REAL(close_range)(first, last, flags);
}

/*
 * close_range (and closefrom, which the C library makes of it without
 * calling it by name): the program's RDS descriptors in the range are
 * closed as by close, the library's hidden wake-up descriptors are left
 * out of it (the kernel closes the rest, in the pieces between them), so
 * that nothing of the library's is closed behind its back and no number
 * keeps an entry for a socket descriptor it no longer has.
 */
PL_EXPORT int
close_range(unsigned int first, unsigned int last, int flags)
{
	unsigned int fd, lo = first, end;
	int ret = 0;

	if (__atomic_load_n(&pl_fds, __ATOMIC_ACQUIRE) == NULL || pl_inside ||
	    first > last || (flags & CLOSE_RANGE_CLOEXEC) || pl_foreign())
		return pl_sys_close_range(first, last, flags);
	pthread_mutex_lock(&pl_lock);
	end = last < PL_MAX_FDS - 1 ? last : PL_MAX_FDS - 1;
	for (fd = first; fd <= end && first < PL_MAX_FDS; fd++) {
		enum pl_kind k = pl_kind((int)fd);

		if (k == PL_OTHER)
			continue;
		if (fd > lo && pl_sys_close_range(lo, fd - 1, flags) != 0) {
			ret = -1;
			break;
		}
		if (k == PL_RDS)
			pl_close_rds((int)fd);
		lo = fd + 1;
	}
	if (ret == 0 && lo <= last)
		ret = pl_sys_close_range(lo, last, flags);
	pthread_mutex_unlock(&pl_lock);
	return ret;
}

PL_EXPORT void
closefrom(int lowfd)
{
	DIR *d;
	struct dirent *e;
	int fd;

	if (lowfd < 0)
		lowfd = 0;
	if (close_range((unsigned int)lowfd, ~0U, 0) == 0)
		return;
	/* No close_range in this kernel: one by one, as the C library
	 * does then. */
	d = opendir("/proc/self/fd");
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		fd = atoi(e->d_name);
		if (e->d_name[0] != '.' && fd >= lowfd && fd != dirfd(d))
			close(fd);
	}
	closedir(d);
}

/* newfd (>= 0, from a dup of oldfd) is a descriptor of oldfd's socket
 * too (under pl_lock): newfd, or -1 with errno. */
static int
pl_dup_register(int oldfd, int newfd)
{
	struct pl_fd *p = &pl_fds[oldfd];

	if (newfd < 0)
		return newfd;
	if (newfd >= PL_MAX_FDS) {
		REAL(close)(newfd);
		errno = EMFILE;
		return -1;
	}
	if (!p->stale)
		pl_socks[p->handle].refs++;
	pl_set(newfd, p->handle, p->stale);
	return newfd;
}

PL_EXPORT int
dup(int fd)
{
	int ret;

	if (!pl_known(fd) || pl_foreign())
		return REAL(dup)(fd);
	pthread_mutex_lock(&pl_lock);
	switch (pl_kind(fd)) {
	case PL_HIDDEN:
		ret = pl_stale();
		break;
	case PL_OTHER:
		ret = REAL(dup)(fd);
		break;
	default:
		ret = pl_dup_register(fd, REAL(dup)(fd));
		break;
	}
	pthread_mutex_unlock(&pl_lock);
	return ret;
}

/* dup2 and dup3 (flags < 0: dup2) onto a number the table may know. */
static int
pl_dup_onto(int oldfd, int newfd, int flags)
{
	enum pl_kind ko, kn;
	struct pl_fd *n = NULL;
	int32_t nh = -1;
	uint8_t nstale = PL_LIVE;
	int ret, err;

	pthread_mutex_lock(&pl_lock);
	ko = pl_kind(oldfd);
	kn = pl_kind(newfd);
	if (ko == PL_HIDDEN) {
		ret = pl_stale();
		goto out;
	}
	if (oldfd == newfd || (ko == PL_OTHER && kn == PL_OTHER)) {
		ret = flags < 0 ? REAL(dup2)(oldfd, newfd) :
		      REAL(dup3)(oldfd, newfd, flags);
		goto out;
	}
	if (ko == PL_RDS && newfd >= PL_MAX_FDS) {
		/* Out of the table's reach; nothing is changed. */
		errno = EMFILE;
		ret = -1;
		goto out;
	}
	/* The library's wake-up descriptor moves off the number the program
	 * takes. */
	if (kn == PL_HIDDEN && pl_unhide(newfd) != 0) {
		ret = -1;
		goto out;
	}
	if (kn == PL_RDS) {
		n = &pl_fds[newfd];
		nh = n->handle;
		nstale = n->stale;
		__atomic_store_n(&n->closing, 1, __ATOMIC_RELEASE);
	}
	ret = flags < 0 ? REAL(dup2)(oldfd, newfd) :
	      REAL(dup3)(oldfd, newfd, flags);
	if (ret >= 0) {
		/* newfd is oldfd's file now: the entry it had goes, and it
		 * is a descriptor of oldfd's socket when that is one. The
		 * new reference first, so that a dup2 between two
		 * descriptors of one socket never closes it. */
		if (n != NULL)
			pl_clear(newfd);
		if (ko == PL_RDS)
			ret = pl_dup_register(oldfd, newfd);
		if (n != NULL && !nstale)
			pl_unref(nh);
	} else if (kn == PL_HIDDEN) {
		/* The wake-up descriptor moved, and the number is left with
		 * nothing open, as the program saw it (it failed on oldfd,
		 * or on flags). */
		err = errno;
		REAL(close)(newfd);
		errno = err;
	}
	if (n != NULL)
		__atomic_store_n(&n->closing, 0, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&pl_lock);
	return ret;
}

PL_EXPORT int
dup2(int oldfd, int newfd)
{
	if ((!pl_known(oldfd) && !pl_known(newfd)) || pl_foreign())
		return REAL(dup2)(oldfd, newfd);
	return pl_dup_onto(oldfd, newfd, -1);
}

PL_EXPORT int
dup3(int oldfd, int newfd, int flags)
{
	if ((!pl_known(oldfd) && !pl_known(newfd)) || pl_foreign())
		return REAL(dup3)(oldfd, newfd, flags);
	if (flags < 0) {
		errno = EINVAL;
		return -1;
	}
	return pl_dup_onto(oldfd, newfd, flags);
}

static int
pl_fcntl(int fd, int cmd, long arg)
{
	struct pl_fd *p;
	int32_t h;
	int ret;

	if (!pl_known(fd) || pl_foreign())
		return REAL(fcntl)(fd, cmd, arg);
	p = pl_get(fd);
	if (p == NULL) {
		/* The library's: nothing of the program's is there. */
		if (pl_is_hidden(fd))
			return pl_stale();
		return REAL(fcntl)(fd, cmd, arg);
	}
	/* A socket of an engine that went: a descriptor still, whose flags
	 * are its own. */
	if (p->stale == PL_DEAD && (cmd == F_GETFL || cmd == F_SETFL))
		return REAL(fcntl)(fd, cmd, arg);
	switch (cmd) {
	case F_GETFL:
		PL_HANDLE(p, h);
		/* The wake-up descriptor is non-blocking for us; the
		 * program sees the socket's own setting. */
		ret = REAL(fcntl)(fd, F_GETFL);
		if (ret < 0)
			return ret;
		return (ret & ~O_NONBLOCK) |
		       (pl_socks[h].nonblock ? O_NONBLOCK : 0);
	case F_SETFL:
		PL_HANDLE(p, h);
		pl_socks[h].nonblock = (arg & O_NONBLOCK) != 0;
		return REAL(fcntl)(fd, F_SETFL, arg | O_NONBLOCK);
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		/* The lowest free number from arg: never a hidden one (it is
		 * taken). */
		pthread_mutex_lock(&pl_lock);
		if (pl_kind(fd) == PL_RDS)
			ret = pl_dup_register(fd, REAL(fcntl)(fd, cmd, arg));
		else
			ret = REAL(fcntl)(fd, cmd, arg);
		pthread_mutex_unlock(&pl_lock);
		return ret;
	default:
		return REAL(fcntl)(fd, cmd, arg);
	}
}

/*
 * fcntl under both of the C library's names: a program built with
 * _FILE_OFFSET_BITS=64 (as CPython and meson build theirs) calls
 * fcntl64, which <fcntl.h> then names fcntl for it, one built without
 * calls fcntl; on 64-bit systems they are the same call. Declared here
 * by their symbol names, as the header's renaming would make a
 * definition of either name the other.
 */
PL_EXPORT int pl_fcntl_export(int fd, int cmd, ...) __asm__("fcntl");
PL_EXPORT int pl_fcntl64_export(int fd, int cmd, ...) __asm__("fcntl64");

PL_EXPORT int
pl_fcntl_export(int fd, int cmd, ...)
{
	va_list ap;
	long arg;

	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	return pl_fcntl(fd, cmd, arg);
}

PL_EXPORT int
pl_fcntl64_export(int fd, int cmd, ...)
{
	va_list ap;
	long arg;

	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	return pl_fcntl(fd, cmd, arg);
}

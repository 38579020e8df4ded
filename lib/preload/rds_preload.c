/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * librte_rds_preload.so: unmodified AF_RDS programs on librte_rds.
 *
 *   LD_PRELOAD=librte_rds_preload.so ./some_af_rds_program
 *
 * socket(AF_RDS, SOCK_SEQPACKET, 0) attaches the process to the engine
 * process (rds-engined; RTE_RDS_ENGINE names its UNIX socket) at its
 * first call, and returns a real file descriptor: the socket's eventfd,
 * which the engine signals, so that poll, select and epoll work on sets
 * that mix RDS sockets with anything else. The calls an AF_RDS program
 * makes on that descriptor go to the rte_rds_* calls; every other
 * descriptor, and every other call, goes to the C library untouched.
 * No EAL is initialised in the program.
 *
 * Semantics that differ from the kernel's (doc/librte_rds_preload.7):
 * - after fork(), the child's inherited RDS descriptors are not sockets
 *   of the child (EBADF for every call but close); the child makes its
 *   own (rds-stress does), which attaches it by itself;
 * - the departures of rte_rds_attach.h (no ENOBUFS, no RDS_CONG_MONITOR,
 *   at most 256 sockets, RDMA on the program's memory through
 *   process_vm_readv/writev on loop and eth only, EOPNOTSUPP on ib);
 * - SIOCINQ gives the size of the next message, SIOCOUTQ the bytes in
 *   the send buffer (the kernel's RDS has neither);
 * - an RDS descriptor in two epoll sets keeps the data of the last
 *   epoll_ctl() only.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/sockios.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/socket.h>

#include <rte_errno.h>
#include <rte_rds.h>
#include <rte_rds_attach.h>

#define PL_EXPORT __attribute__((visibility("default")))

#ifndef AF_RDS
#define AF_RDS 21
#endif

#define PL_MAX_FDS 65536
#define PL_MAX_HANDLES 4096
#define PL_EPOLL_MAX 1024

/* What an RDS descriptor is. */
struct pl_fd {
	int32_t handle;			/* the rte_rds socket, -1: not RDS */
	bool nonblock;			/* O_NONBLOCK as the program set it */
	bool stale;			/* inherited from the parent: dead */
	uint64_t ep_data;		/* the program's epoll data */
};

static struct pl_fd *pl_fds;		/* [fd] */
static uint32_t pl_hrefs[PL_MAX_HANDLES];	/* descriptors per handle */
static pthread_mutex_t pl_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t pl_tag;			/* epoll data of ours: tag | fd */

/* (epoll fd, RDS fd) pairs, to arm the sockets before a wait. */
static struct {
	int epfd, fd;
	uint32_t events;
} pl_ep[PL_EPOLL_MAX];
static unsigned int pl_nb_ep;

/* Inside a call of ours: the library's own calls go straight through. */
static __thread int pl_inside;

/* The C library's functions. */
static int (*real_socket)(int, int, int);
static int (*real_close)(int);
static int (*real_bind)(int, const struct sockaddr *, socklen_t);
static int (*real_connect)(int, const struct sockaddr *, socklen_t);
static int (*real_getsockname)(int, struct sockaddr *, socklen_t *);
static ssize_t (*real_sendmsg)(int, const struct msghdr *, int);
static ssize_t (*real_sendto)(int, const void *, size_t, int,
			      const struct sockaddr *, socklen_t);
static ssize_t (*real_send)(int, const void *, size_t, int);
static ssize_t (*real_recvmsg)(int, struct msghdr *, int);
static ssize_t (*real_recvfrom)(int, void *, size_t, int, struct sockaddr *,
				socklen_t *);
static ssize_t (*real_recv)(int, void *, size_t, int);
static ssize_t (*real_read)(int, void *, size_t);
static ssize_t (*real_write)(int, const void *, size_t);
static int (*real_setsockopt)(int, int, int, const void *, socklen_t);
static int (*real_getsockopt)(int, int, int, void *, socklen_t *);
static int (*real_poll)(struct pollfd *, nfds_t, int);
static int (*real_ppoll)(struct pollfd *, nfds_t, const struct timespec *,
			 const sigset_t *);
static int (*real_select)(int, fd_set *, fd_set *, fd_set *,
			  struct timeval *);
static int (*real_pselect)(int, fd_set *, fd_set *, fd_set *,
			   const struct timespec *, const sigset_t *);
static int (*real_epoll_ctl)(int, int, int, struct epoll_event *);
static int (*real_epoll_wait)(int, struct epoll_event *, int, int);
static int (*real_epoll_pwait)(int, struct epoll_event *, int, int,
			       const sigset_t *);
static int (*real_ioctl)(int, unsigned long, ...);
static int (*real_fcntl)(int, int, ...);
static int (*real_dup)(int);
static int (*real_dup2)(int, int);
static int (*real_dup3)(int, int, int);

#define PL_RESOLVE(name) \
	(real_##name = (__typeof__(real_##name))dlsym(RTLD_NEXT, #name))
/* The C library's function, looked up on first use (the libraries we
 * pull in may call it from their constructors, before ours). */
#define PL_REAL_FN(name) \
	static inline __typeof__(real_##name) \
	pl_real_##name(void) \
	{ \
		if (__builtin_expect(real_##name == NULL, 0)) \
			PL_RESOLVE(name); \
		return real_##name; \
	}
#define REAL(name) pl_real_##name()
PL_REAL_FN(socket)
PL_REAL_FN(close)
PL_REAL_FN(bind)
PL_REAL_FN(connect)
PL_REAL_FN(getsockname)
PL_REAL_FN(sendmsg)
PL_REAL_FN(sendto)
PL_REAL_FN(send)
PL_REAL_FN(recvmsg)
PL_REAL_FN(recvfrom)
PL_REAL_FN(recv)
PL_REAL_FN(read)
PL_REAL_FN(write)
PL_REAL_FN(setsockopt)
PL_REAL_FN(getsockopt)
PL_REAL_FN(poll)
PL_REAL_FN(ppoll)
PL_REAL_FN(select)
PL_REAL_FN(pselect)
PL_REAL_FN(epoll_ctl)
PL_REAL_FN(epoll_wait)
PL_REAL_FN(epoll_pwait)
PL_REAL_FN(ioctl)
PL_REAL_FN(fcntl)
PL_REAL_FN(dup)
PL_REAL_FN(dup2)
PL_REAL_FN(dup3)

static void pl_atfork_child(void);

static void __attribute__((constructor))
pl_init(void)
{
	PL_RESOLVE(socket);
	PL_RESOLVE(close);
	PL_RESOLVE(bind);
	PL_RESOLVE(connect);
	PL_RESOLVE(getsockname);
	PL_RESOLVE(sendmsg);
	PL_RESOLVE(sendto);
	PL_RESOLVE(send);
	PL_RESOLVE(recvmsg);
	PL_RESOLVE(recvfrom);
	PL_RESOLVE(recv);
	PL_RESOLVE(read);
	PL_RESOLVE(write);
	PL_RESOLVE(setsockopt);
	PL_RESOLVE(getsockopt);
	PL_RESOLVE(poll);
	PL_RESOLVE(ppoll);
	PL_RESOLVE(select);
	PL_RESOLVE(pselect);
	PL_RESOLVE(epoll_ctl);
	PL_RESOLVE(epoll_wait);
	PL_RESOLVE(epoll_pwait);
	PL_RESOLVE(ioctl);
	PL_RESOLVE(fcntl);
	PL_RESOLVE(dup);
	PL_RESOLVE(dup2);
	PL_RESOLVE(dup3);
	pl_tag = (0x52445350ULL << 32);	/* "RDSP" */
	pthread_atfork(NULL, NULL, pl_atfork_child);
}

/* ------------------------------------------------------------------ */
/* The descriptor table */

static struct pl_fd *
pl_table(void)
{
	struct pl_fd *t = __atomic_load_n(&pl_fds, __ATOMIC_ACQUIRE);
	unsigned int i;

	if (t != NULL)
		return t;
	pthread_mutex_lock(&pl_lock);
	if (pl_fds == NULL) {
		t = malloc(sizeof(*t) * PL_MAX_FDS);
		if (t != NULL) {
			for (i = 0; i < PL_MAX_FDS; i++) {
				t[i].handle = -1;
				t[i].nonblock = false;
				t[i].stale = false;
				t[i].ep_data = 0;
			}
			__atomic_store_n(&pl_fds, t, __ATOMIC_RELEASE);
		}
	}
	pthread_mutex_unlock(&pl_lock);
	return pl_fds;
}

/* The entry of an RDS descriptor, or NULL (not ours: libc's). */
static inline struct pl_fd *
pl_get(int fd)
{
	struct pl_fd *t = __atomic_load_n(&pl_fds, __ATOMIC_ACQUIRE);

	if (t == NULL || pl_inside || fd < 0 || fd >= PL_MAX_FDS ||
	    __atomic_load_n(&t[fd].handle, __ATOMIC_ACQUIRE) < 0)
		return NULL;
	return &t[fd];
}

static void
pl_set(int fd, int32_t handle, bool nonblock)
{
	struct pl_fd *t = pl_table();

	t[fd].nonblock = nonblock;
	t[fd].stale = false;
	t[fd].ep_data = 0;
	__atomic_store_n(&t[fd].handle, handle, __ATOMIC_RELEASE);
}

static void
pl_clear(int fd)
{
	unsigned int i;

	__atomic_store_n(&pl_fds[fd].handle, -1, __ATOMIC_RELEASE);
	for (i = 0; i < pl_nb_ep; ) {
		if (pl_ep[i].fd == fd)
			pl_ep[i] = pl_ep[--pl_nb_ep];
		else
			i++;
	}
}

/* The child's inherited RDS descriptors are the parent's sockets. */
static void
pl_atfork_child(void)
{
	unsigned int i;

	pthread_mutex_init(&pl_lock, NULL);
	if (pl_fds == NULL)
		return;
	for (i = 0; i < PL_MAX_FDS; i++)
		if (pl_fds[i].handle >= 0)
			pl_fds[i].stale = true;
	memset(pl_hrefs, 0, sizeof(pl_hrefs));
}

/* errno for a call on a stale descriptor. */
static int
pl_stale(void)
{
	errno = EBADF;
	return -1;
}

#define PL_ENTER() (pl_inside++)
#define PL_LEAVE() (pl_inside--)

/* Keep errno of the call across our own bookkeeping. */
static inline long
pl_ret(long r)
{
	return r;
}

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

/* A call on an RDS descriptor: its handle, or -1 with errno. */
#define PL_HANDLE(p, fd) do { \
		if ((p)->stale) \
			return pl_stale(); \
	} while (0)

#define PL_CALL(expr) ({ \
		__typeof__(expr) _r; \
		int _e; \
		PL_ENTER(); \
		_r = (expr); \
		_e = errno; \
		PL_LEAVE(); \
		errno = _e; \
		_r; \
	})

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

/* ------------------------------------------------------------------ */
/* Waiting: poll, ppoll, select, pselect, epoll */

static uint64_t
pl_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Arm an RDS socket for events (the engine then signals its eventfd),
 * and say what is ready now. */
static short
pl_arm(const struct pl_fd *p, short events)
{
	int r = PL_CALL(rte_rds_event_arm(p->handle, events));

	return r < 0 ? POLLNVAL : (short)r;
}

static void
pl_drain(int fd)
{
	uint64_t v;

	if (REAL(read)(fd, &v, sizeof(v)) < 0)
		v = 0;
}

/*
 * poll over a set with RDS descriptors: the RDS ones are armed and
 * looked at first; when none is ready the kernel waits on all (the RDS
 * ones through their eventfds), then they are looked at again.
 */
static int
pl_poll(struct pollfd *fds, nfds_t n, int timeout_ms, const sigset_t *mask)
{
	uint64_t deadline = timeout_ms > 0 ? pl_now_ms() + (uint64_t)timeout_ms :
			    0;
	short *want = NULL, stack_want[64];
	nfds_t i;
	int ready, rds_ready, left = timeout_ms, r;
	struct timespec ts;

	want = n <= 64 ? stack_want : malloc(sizeof(*want) * n);
	if (want == NULL) {
		errno = ENOMEM;
		return -1;
	}
	for (;;) {
		rds_ready = 0;
		for (i = 0; i < n; i++) {
			struct pl_fd *p = pl_get(fds[i].fd);

			want[i] = -1;
			if (p == NULL)
				continue;
			want[i] = fds[i].events;
			fds[i].revents = p->stale ? POLLNVAL :
				pl_arm(p, fds[i].events);
			if (fds[i].revents != 0)
				rds_ready++;
			/* The kernel sees the eventfd: readable when the
			 * engine signals. */
			fds[i].events = POLLIN;
		}
		if (rds_ready != 0)
			left = 0;
		if (mask != NULL || left >= 0) {
			if (left >= 0) {
				ts.tv_sec = left / 1000;
				ts.tv_nsec = (long)(left % 1000) * 1000000;
			}
			r = REAL(ppoll)(fds, n, left >= 0 ? &ts : NULL, mask);
		} else {
			r = REAL(poll)(fds, n, -1);
		}
		ready = 0;
		for (i = 0; i < n; i++) {
			struct pl_fd *p;

			if (want[i] < 0) {
				if (r > 0 && fds[i].revents != 0)
					ready++;
				continue;
			}
			p = pl_get(fds[i].fd);
			if (r > 0 && (fds[i].revents & POLLIN))
				pl_drain(fds[i].fd);
			fds[i].events = want[i];
			if (p == NULL) {
				fds[i].revents = POLLNVAL;
			} else if (p->stale) {
				fds[i].revents = POLLNVAL;
			} else {
				/* Looked at again (and disarmed if ready). */
				fds[i].revents = pl_arm(p, want[i]);
			}
			if (fds[i].revents != 0)
				ready++;
		}
		if (r < 0 && ready == 0)
			break;
		if (ready != 0 || timeout_ms == 0)
			break;
		if (timeout_ms > 0) {
			uint64_t now = pl_now_ms();

			if (now >= deadline)
				break;
			left = (int)(deadline - now);
		}
	}
	if (want != stack_want)
		free(want);
	return r < 0 && ready == 0 ? r : ready;
}

static bool
pl_any_rds(const struct pollfd *fds, nfds_t n)
{
	nfds_t i;

	if (__atomic_load_n(&pl_fds, __ATOMIC_ACQUIRE) == NULL || pl_inside)
		return false;
	for (i = 0; i < n; i++)
		if (pl_get(fds[i].fd) != NULL)
			return true;
	return false;
}

/* glibc declares poll's array write-only (access attribute): reading it
 * here is what a poll does, not a use of uninitialised memory. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

PL_EXPORT int
poll(struct pollfd *fds, nfds_t n, int timeout_ms)
{
	if (!pl_any_rds(fds, n))
		return REAL(poll)(fds, n, timeout_ms);
	return pl_poll(fds, n, timeout_ms, NULL);
}

PL_EXPORT int
ppoll(struct pollfd *fds, nfds_t n, const struct timespec *ts,
      const sigset_t *mask)
{
	int ms;

	if (!pl_any_rds(fds, n))
		return REAL(ppoll)(fds, n, ts, mask);
	ms = ts == NULL ? -1 : (int)(ts->tv_sec * 1000 + ts->tv_nsec / 1000000);
	return pl_poll(fds, n, ms, mask);
}

/* select and pselect through pl_poll when an RDS descriptor is in a set. */
static int
pl_select(int nfds, fd_set *rd, fd_set *wr, fd_set *ex, int ms,
	  const sigset_t *mask, bool *handled)
{
	struct pollfd pf[FD_SETSIZE];
	int i, n = 0, ret, cnt = 0;
	bool any = false;

	*handled = false;
	if (__atomic_load_n(&pl_fds, __ATOMIC_ACQUIRE) == NULL || pl_inside ||
	    nfds > FD_SETSIZE)
		return 0;
	for (i = 0; i < nfds; i++) {
		short ev = 0;

		if (rd != NULL && FD_ISSET(i, rd))
			ev |= POLLIN;
		if (wr != NULL && FD_ISSET(i, wr))
			ev |= POLLOUT;
		if (ex != NULL && FD_ISSET(i, ex))
			ev |= POLLPRI;
		if (ev == 0)
			continue;
		if (pl_get(i) != NULL)
			any = true;
		pf[n].fd = i;
		pf[n].events = ev;
		pf[n].revents = 0;
		n++;
	}
	if (!any)
		return 0;
	*handled = true;
	ret = pl_poll(pf, (nfds_t)n, ms, mask);
	if (ret < 0)
		return ret;
	if (rd != NULL)
		FD_ZERO(rd);
	if (wr != NULL)
		FD_ZERO(wr);
	if (ex != NULL)
		FD_ZERO(ex);
	for (i = 0; i < n; i++) {
		if (pf[i].revents & POLLNVAL) {
			errno = EBADF;
			return -1;
		}
		if (rd != NULL && (pf[i].revents & (POLLIN | POLLHUP |
						     POLLERR))) {
			FD_SET(pf[i].fd, rd);
			cnt++;
		}
		if (wr != NULL && (pf[i].revents & (POLLOUT | POLLERR))) {
			FD_SET(pf[i].fd, wr);
			cnt++;
		}
		if (ex != NULL && (pf[i].revents & POLLPRI)) {
			FD_SET(pf[i].fd, ex);
			cnt++;
		}
	}
	return cnt;
}

PL_EXPORT int
select(int nfds, fd_set *rd, fd_set *wr, fd_set *ex, struct timeval *tv)
{
	bool handled;
	int ms = tv == NULL ? -1 : (int)(tv->tv_sec * 1000 +
					 tv->tv_usec / 1000);
	int ret = pl_select(nfds, rd, wr, ex, ms, NULL, &handled);

	if (!handled)
		return REAL(select)(nfds, rd, wr, ex, tv);
	return ret;
}

PL_EXPORT int
pselect(int nfds, fd_set *rd, fd_set *wr, fd_set *ex,
	const struct timespec *ts, const sigset_t *mask)
{
	bool handled;
	int ms = ts == NULL ? -1 : (int)(ts->tv_sec * 1000 +
					 ts->tv_nsec / 1000000);
	int ret = pl_select(nfds, rd, wr, ex, ms, mask, &handled);

	if (!handled)
		return REAL(pselect)(nfds, rd, wr, ex, ts, mask);
	return ret;
}

PL_EXPORT int
epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev)
{
	struct pl_fd *p = pl_get(fd);
	struct epoll_event mine;
	unsigned int i;
	int ret;

	if (p == NULL)
		return REAL(epoll_ctl)(epfd, op, fd, ev);
	if (p->stale)
		return pl_stale();
	if (op == EPOLL_CTL_DEL) {
		ret = REAL(epoll_ctl)(epfd, op, fd, ev);
		pthread_mutex_lock(&pl_lock);
		for (i = 0; i < pl_nb_ep; i++)
			if (pl_ep[i].epfd == epfd && pl_ep[i].fd == fd) {
				pl_ep[i] = pl_ep[--pl_nb_ep];
				break;
			}
		pthread_mutex_unlock(&pl_lock);
		return ret;
	}
	if (ev == NULL) {
		errno = EFAULT;
		return -1;
	}
	/* The kernel watches the eventfd for input, with data of ours that
	 * names the descriptor; the program's data is given back. */
	mine.events = EPOLLIN | (ev->events & (EPOLLET | EPOLLONESHOT));
	mine.data.u64 = pl_tag | (uint32_t)fd;
	ret = REAL(epoll_ctl)(epfd, op, fd, &mine);
	if (ret != 0)
		return ret;
	pthread_mutex_lock(&pl_lock);
	p->ep_data = ev->data.u64;
	for (i = 0; i < pl_nb_ep; i++)
		if (pl_ep[i].epfd == epfd && pl_ep[i].fd == fd)
			break;
	if (i == pl_nb_ep) {
		if (pl_nb_ep == PL_EPOLL_MAX) {
			pthread_mutex_unlock(&pl_lock);
			REAL(epoll_ctl)(epfd, EPOLL_CTL_DEL, fd, &mine);
			errno = ENOSPC;
			return -1;
		}
		pl_nb_ep++;
	}
	pl_ep[i].epfd = epfd;
	pl_ep[i].fd = fd;
	pl_ep[i].events = ev->events;
	pthread_mutex_unlock(&pl_lock);
	return 0;
}

static short
pl_ep2poll(uint32_t e)
{
	return (short)(((e & EPOLLIN) ? POLLIN : 0) |
		       ((e & EPOLLOUT) ? POLLOUT : 0));
}

static uint32_t
pl_poll2ep(short r)
{
	return ((r & POLLIN) ? EPOLLIN : 0) | ((r & POLLOUT) ? EPOLLOUT : 0) |
	       ((r & POLLNVAL) ? EPOLLERR : 0);
}

static int
pl_epoll(int epfd, struct epoll_event *evs, int max, int timeout_ms,
	 const sigset_t *mask)
{
	uint64_t deadline = timeout_ms > 0 ? pl_now_ms() + (uint64_t)timeout_ms :
			    0;
	int n, i, k, left = timeout_ms;
	unsigned int j;
	bool ours = false;
	uint64_t one = 1;

	for (;;) {
		/* Arm ours; a ready one makes its eventfd readable. */
		pthread_mutex_lock(&pl_lock);
		for (j = 0; j < pl_nb_ep; j++) {
			struct pl_fd *p;

			if (pl_ep[j].epfd != epfd)
				continue;
			ours = true;
			p = pl_get(pl_ep[j].fd);
			if (p != NULL && !p->stale &&
			    pl_arm(p, pl_ep2poll(pl_ep[j].events)) != 0)
				if (REAL(write)(pl_ep[j].fd, &one, sizeof(one)) < 0)
					continue;
		}
		pthread_mutex_unlock(&pl_lock);
		n = mask != NULL ? REAL(epoll_pwait)(epfd, evs, max, left, mask) :
		    REAL(epoll_wait)(epfd, evs, max, left);
		if (n <= 0 || !ours)
			return n;
		for (i = 0, k = 0; i < n; i++) {
			uint64_t d = evs[i].data.u64;
			struct pl_fd *p;
			int fd;
			short r;

			if ((d >> 32) != (pl_tag >> 32)) {
				evs[k++] = evs[i];
				continue;
			}
			fd = (int)(uint32_t)d;
			p = pl_get(fd);
			pl_drain(fd);
			if (p == NULL || p->stale)
				continue;
			r = pl_arm(p, POLLIN | POLLOUT);
			for (j = 0; j < pl_nb_ep; j++)
				if (pl_ep[j].epfd == epfd && pl_ep[j].fd == fd)
					break;
			r &= j < pl_nb_ep ? pl_ep2poll(pl_ep[j].events) | POLLNVAL :
			     (short)(POLLIN | POLLOUT);
			if (r == 0)
				continue;	/* nothing after all */
			evs[k].events = pl_poll2ep(r);
			evs[k].data.u64 = p->ep_data;
			k++;
		}
		if (k != 0 || timeout_ms == 0)
			return k;
		if (timeout_ms > 0) {
			uint64_t now = pl_now_ms();

			if (now >= deadline)
				return 0;
			left = (int)(deadline - now);
		}
	}
}

PL_EXPORT int
epoll_wait(int epfd, struct epoll_event *evs, int max, int timeout_ms)
{
	if (pl_inside || pl_nb_ep == 0)
		return REAL(epoll_wait)(epfd, evs, max, timeout_ms);
	return pl_epoll(epfd, evs, max, timeout_ms, NULL);
}

PL_EXPORT int
epoll_pwait(int epfd, struct epoll_event *evs, int max, int timeout_ms,
	    const sigset_t *mask)
{
	if (pl_inside || pl_nb_ep == 0)
		return REAL(epoll_pwait)(epfd, evs, max, timeout_ms, mask);
	return pl_epoll(epfd, evs, max, timeout_ms, mask);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * librte_rds_preload.so (rds_preload.c, rds_preload_fd.c,
 * rds_preload_sock.c, rds_preload_wait.c): what the files share, the
 * descriptor table and the C library's functions. Hidden in the shared object, like
 * everything of the preload's but the calls it replaces.
 */
#ifndef RDS_PRELOAD_PRIVATE_H
#define RDS_PRELOAD_PRIVATE_H

#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>

#define PL_EXPORT __attribute__((visibility("default")))

#ifndef AF_RDS
#define AF_RDS 21
#endif

#define PL_MAX_FDS 65536
#define PL_MAX_HANDLES 4096
#define PL_EPOLL_MAX 1024

/*
 * What a descriptor number is to the preload. The program's RDS
 * descriptors are kernel descriptors of the program's own, each a dup
 * of the socket's wake-up descriptor; the library keeps its own
 * descriptor of it at a number the program never opened ("hidden"): the
 * program cannot close it or dup2 over it behind the library's back
 * (every call the preload intercepts says EBADF there, as for a number
 * with nothing open, poll POLLNVAL; dup2 and dup3 onto it move it
 * elsewhere first, rte_rds_event_fd_move()).
 */
struct pl_fd {
	int32_t handle;			/* the program's RDS descriptor of
					 * this socket, -1: not one */
	int32_t hidden;			/* the library's wake-up descriptor
					 * of this socket, PL_HIDDEN_CTL its
					 * connection to the engine, -1:
					 * not one */
	uint32_t closing;		/* being closed or replaced (atomic,
					 * set only under pl_lock) */
	uint8_t stale;			/* enum pl_stale: not a socket of
					 * this attachment's any more */
};

/*
 * A stale RDS descriptor names no socket: every call on it fails, and
 * closing it only takes it out of the table (its handle may be another
 * socket's by now, of the attachment after).
 */
enum pl_stale {
	PL_LIVE = 0,
	PL_FORKED,			/* the parent's socket, in a forked
					 * child: EBADF, POLLNVAL */
	PL_DEAD,			/* a socket of an engine that went,
					 * the process attached again since:
					 * ECONNRESET, POLLERR | POLLHUP, as
					 * before the new attach */
};

/* pl_fd.hidden of the library's connection to the engine. */
#define PL_HIDDEN_CTL INT32_MAX

/* What an RDS socket is to the preload. */
struct pl_sock {
	uint32_t refs;			/* the program's descriptors of it */
	int efd;			/* the library's wake-up descriptor
					 * (hidden) */
	bool nonblock;			/* O_NONBLOCK: the program's
					 * descriptors share it, as dups of
					 * one file do */
};

#pragma GCC visibility push(hidden)

extern struct pl_fd *pl_fds;		/* [fd] */
extern struct pl_sock pl_socks[PL_MAX_HANDLES];	/* [handle] */
/* Taken by every change of the table and held for its whole length
 * (the descriptor calls too), so that a lookup that finds an entry
 * closing can wait for the change to end by taking it. */
extern pthread_mutex_t pl_lock;
extern uint64_t pl_tag;			/* epoll data of ours: tag | fd */

/* (epoll fd, RDS fd) pairs, to arm the sockets before a wait, with what
 * the program registered (under pl_lock). */
struct pl_ep {
	int epfd, fd;
	uint32_t events;		/* the program's, EPOLLET and
					 * EPOLLONESHOT included */
	uint64_t data;			/* the program's epoll data */
	bool pending;			/* EPOLLET: ready when registered,
					 * reported at the next wait */
	bool off;			/* EPOLLONESHOT: reported, off until
					 * the next EPOLL_CTL_MOD */
};
extern struct pl_ep pl_ep[PL_EPOLL_MAX];
extern unsigned int pl_nb_ep;

/* Inside a call of ours: the library's own calls go straight through. */
extern __thread int pl_inside;

/* The C library's functions. */
extern int (*real_socket)(int, int, int);
extern int (*real_close)(int);
extern int (*real_bind)(int, const struct sockaddr *, socklen_t);
extern int (*real_connect)(int, const struct sockaddr *, socklen_t);
extern int (*real_getsockname)(int, struct sockaddr *, socklen_t *);
extern int (*real_getpeername)(int, struct sockaddr *, socklen_t *);
extern int (*real_shutdown)(int, int);
extern ssize_t (*real_sendmsg)(int, const struct msghdr *, int);
extern ssize_t (*real_sendto)(int, const void *, size_t, int,
			      const struct sockaddr *, socklen_t);
extern ssize_t (*real_send)(int, const void *, size_t, int);
extern ssize_t (*real_recvmsg)(int, struct msghdr *, int);
extern ssize_t (*real_recvfrom)(int, void *, size_t, int, struct sockaddr *,
				socklen_t *);
extern ssize_t (*real_recv)(int, void *, size_t, int);
extern ssize_t (*real_read)(int, void *, size_t);
extern ssize_t (*real_write)(int, const void *, size_t);
extern int (*real_setsockopt)(int, int, int, const void *, socklen_t);
extern int (*real_getsockopt)(int, int, int, void *, socklen_t *);
extern int (*real_poll)(struct pollfd *, nfds_t, int);
extern int (*real_ppoll)(struct pollfd *, nfds_t, const struct timespec *,
			 const sigset_t *);
extern int (*real_select)(int, fd_set *, fd_set *, fd_set *,
			  struct timeval *);
extern int (*real_pselect)(int, fd_set *, fd_set *, fd_set *,
			   const struct timespec *, const sigset_t *);
extern int (*real_epoll_ctl)(int, int, int, struct epoll_event *);
extern int (*real_epoll_wait)(int, struct epoll_event *, int, int);
extern int (*real_epoll_pwait)(int, struct epoll_event *, int, int,
			       const sigset_t *);
extern int (*real_ioctl)(int, unsigned long, ...);
extern int (*real_fcntl)(int, int, ...);
extern int (*real_dup)(int);
extern int (*real_dup2)(int, int);
extern int (*real_dup3)(int, int, int);
extern int (*real_close_range)(unsigned int, unsigned int, int);

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
PL_REAL_FN(getpeername)
PL_REAL_FN(shutdown)
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
PL_REAL_FN(close_range)

/* An entry closing or being replaced: wait until that is over. */
void pl_wait_change(void);

/* The entry of fd, or NULL: outside a call of ours, a number the table
 * covers. */
static inline struct pl_fd *
pl_entry(int fd)
{
	struct pl_fd *t = __atomic_load_n(&pl_fds, __ATOMIC_ACQUIRE);

	if (t == NULL || pl_inside || fd < 0 || fd >= PL_MAX_FDS)
		return NULL;
	if (__builtin_expect(__atomic_load_n(&t[fd].closing,
					     __ATOMIC_ACQUIRE) != 0, 0))
		pl_wait_change();
	return &t[fd];
}

/* The entry of an RDS descriptor, or NULL (not ours: libc's). A call
 * that meets one being closed waits for the close to end and looks
 * again: it sees EBADF for the socket that was closed (nothing open
 * there, or a stale entry), and a new descriptor that took the number
 * goes to the C library. */
static inline struct pl_fd *
pl_get(int fd)
{
	struct pl_fd *p = pl_entry(fd);

	if (p == NULL || __atomic_load_n(&p->handle, __ATOMIC_ACQUIRE) < 0)
		return NULL;
	return p;
}

/* A number that only the library has open (never one of the program's). */
static inline bool
pl_is_hidden(int fd)
{
	struct pl_fd *p = pl_entry(fd);

	return p != NULL && __atomic_load_n(&p->hidden, __ATOMIC_ACQUIRE) >= 0;
}

/* A call on a descriptor that is not an RDS one: the C library's, except
 * on a number only the library has open, where nothing of the program's
 * is (EBADF). */
#define PL_LIBC(fd, call) (pl_is_hidden(fd) ? pl_stale() : (call))

#define PL_ENTER() (pl_inside++)
#define PL_LEAVE() (pl_inside--)

/* A call on an RDS descriptor: h is its socket, read once (a close on
 * another thread may clear the entry meanwhile: EBADF then, as for a
 * stale one). */
#define PL_HANDLE(p, h) do { \
		(h) = __atomic_load_n(&(p)->handle, __ATOMIC_ACQUIRE); \
		if ((h) < 0) \
			return pl_stale(); \
		if ((p)->stale) \
			return pl_stale_call(p); \
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

/* rds_preload.c: the descriptor table (the changes under pl_lock) */
struct pl_fd *pl_table(void);
void pl_set(int fd, int32_t handle, uint8_t stale);
void pl_clear(int fd);
void pl_hide(int fd, int32_t handle);
int pl_stale(void);
int pl_stale_call(const struct pl_fd *p);
short pl_stale_revents(const struct pl_fd *p, short events);
bool pl_foreign(void);

/* rds_preload_fd.c: the program's descriptor numbers */
int pl_hide_base(void);

/* rds_preload_sock.c: attaching (a forked child's lock made anew) */
void pl_attach_atfork_child(void);

#pragma GCC visibility pop

#endif /* RDS_PRELOAD_PRIVATE_H */

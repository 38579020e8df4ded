/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * librte_rds_preload.so: unmodified AF_RDS programs on librte_rds.
 *
 *   LD_PRELOAD=librte_rds_preload.so ./some_af_rds_program
 *
 * socket(AF_RDS, SOCK_SEQPACKET, 0) attaches the process to the engine
 * process (rds-engined; RTE_RDS_ENGINE names its UNIX socket) at its
 * first call, and returns a real file descriptor: a descriptor of the
 * socket's wake-up socket (one end of a SOCK_SEQPACKET pair the engine
 * made and sends a byte to), so that poll, select and epoll work on sets
 * that mix RDS sockets with anything else. The calls an AF_RDS
 * program makes on that descriptor go to the rte_rds_* calls; every
 * other descriptor, and every other call, goes to the C library
 * untouched. No EAL is initialised in the program.
 *
 * Semantics that differ from the kernel's (doc/librte_rds_preload.7):
 * - after fork(), the child's inherited RDS descriptors are not sockets
 *   of the child (EBADF for every call but close); the child makes its
 *   own (rds-stress does), which attaches it by itself;
 * - the departures of rte_rds_attach.h (no ENOBUFS, no RDS_CONG_MONITOR,
 *   at most 256 sockets, RDMA on the program's memory through
 *   process_vm_readv/writev on loop and eth only, EOPNOTSUPP on ib);
 * - SIOCINQ gives the size of the next message, SIOCOUTQ the bytes in
 *   the send buffer (the kernel's RDS has neither; rte_rds_ioctl);
 * - an RDS descriptor in two epoll sets keeps the data of the last
 *   epoll_ctl() only;
 * - an RDS descriptor passed over SCM_RIGHTS is not an RDS socket in the
 *   receiver (it gets the wake-up socket: an AF_UNIX one).
 *
 * Descriptors are the kernel's, with the kernel's semantics: the
 * program's RDS descriptor is a kernel descriptor of its own (a dup of
 * the socket's wake-up descriptor), dup and dup2 make more of the same
 * socket, the socket closes with the last, a second close is EBADF, and
 * the number the library itself keeps the wake-up descriptor at is never
 * one the program can close or dup2 over behind the library's back, nor
 * one where it finds anything (rds_preload_private.h).
 *
 * This file: the C library's functions, looked up, and the descriptor
 * table. The descriptor calls (close, close_range, closefrom, dup, dup2,
 * dup3, fcntl) are in
 * rds_preload_fd.c, the socket calls (socket, the data calls, options,
 * ioctl) in rds_preload_sock.c, the waits (poll, select, epoll) in
 * rds_preload_wait.c, what they share in rds_preload_private.h.
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
#include "rds_preload_private.h"

struct pl_fd *pl_fds;		/* [fd] */
struct pl_sock pl_socks[PL_MAX_HANDLES];	/* [handle] */
pthread_mutex_t pl_lock = PTHREAD_MUTEX_INITIALIZER;
uint64_t pl_tag;			/* epoll data of ours: tag | fd */

struct pl_ep pl_ep[PL_EPOLL_MAX];
unsigned int pl_nb_ep;

/* Inside a call of ours: the library's own calls go straight through. */
__thread int pl_inside;

/* The process the table is of (pl_foreign). */
static pid_t pl_pid;

/* The C library's functions. */
int (*real_socket)(int, int, int);
int (*real_close)(int);
int (*real_bind)(int, const struct sockaddr *, socklen_t);
int (*real_connect)(int, const struct sockaddr *, socklen_t);
int (*real_getsockname)(int, struct sockaddr *, socklen_t *);
int (*real_getpeername)(int, struct sockaddr *, socklen_t *);
int (*real_shutdown)(int, int);
ssize_t (*real_sendmsg)(int, const struct msghdr *, int);
ssize_t (*real_sendto)(int, const void *, size_t, int,
			      const struct sockaddr *, socklen_t);
ssize_t (*real_send)(int, const void *, size_t, int);
ssize_t (*real_recvmsg)(int, struct msghdr *, int);
ssize_t (*real_recvfrom)(int, void *, size_t, int, struct sockaddr *,
				socklen_t *);
ssize_t (*real_recv)(int, void *, size_t, int);
ssize_t (*real_read)(int, void *, size_t);
ssize_t (*real_write)(int, const void *, size_t);
int (*real_setsockopt)(int, int, int, const void *, socklen_t);
int (*real_getsockopt)(int, int, int, void *, socklen_t *);
int (*real_poll)(struct pollfd *, nfds_t, int);
int (*real_ppoll)(struct pollfd *, nfds_t, const struct timespec *,
			 const sigset_t *);
int (*real_select)(int, fd_set *, fd_set *, fd_set *,
			  struct timeval *);
int (*real_pselect)(int, fd_set *, fd_set *, fd_set *,
			   const struct timespec *, const sigset_t *);
int (*real_epoll_ctl)(int, int, int, struct epoll_event *);
int (*real_epoll_wait)(int, struct epoll_event *, int, int);
int (*real_epoll_pwait)(int, struct epoll_event *, int, int,
			       const sigset_t *);
int (*real_ioctl)(int, unsigned long, ...);
int (*real_fcntl)(int, int, ...);
int (*real_dup)(int);
int (*real_dup2)(int, int);
int (*real_dup3)(int, int, int);
int (*real_close_range)(unsigned int, unsigned int, int);

static void pl_atfork_child(void);

static void __attribute__((constructor))
pl_init(void)
{
	PL_RESOLVE(socket);
	PL_RESOLVE(close);
	PL_RESOLVE(bind);
	PL_RESOLVE(connect);
	PL_RESOLVE(getsockname);
	PL_RESOLVE(getpeername);
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
	PL_RESOLVE(close_range);
	pl_tag = (0x52445350ULL << 32);	/* "RDSP" */
	pl_pid = getpid();
	pthread_atfork(NULL, NULL, pl_atfork_child);
}

/* ------------------------------------------------------------------ */
/* The descriptor table */

struct pl_fd *
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
				t[i].hidden = -1;
				t[i].closing = 0;
				t[i].stale = PL_LIVE;
			}
			__atomic_store_n(&pl_fds, t, __ATOMIC_RELEASE);
		}
	}
	pthread_mutex_unlock(&pl_lock);
	return pl_fds;
}

/* fd is the program's descriptor of the socket handle (under pl_lock). */
void
pl_set(int fd, int32_t handle, uint8_t stale)
{
	struct pl_fd *t = pl_table();

	t[fd].stale = stale;
	__atomic_store_n(&t[fd].handle, handle, __ATOMIC_RELEASE);
}

/* fd is not an RDS descriptor any more (under pl_lock). */
void
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

/* fd is the library's wake-up descriptor of the socket handle, or (-1) no
 * longer (under pl_lock). */
void
pl_hide(int fd, int32_t handle)
{
	__atomic_store_n(&pl_table()[fd].hidden, handle, __ATOMIC_RELEASE);
}

void
pl_wait_change(void)
{
	pthread_mutex_lock(&pl_lock);
	pthread_mutex_unlock(&pl_lock);
}

/*
 * The child's inherited RDS descriptors are the parent's sockets: stale.
 * The library's wake-up descriptors it inherited are nobody's in the
 * child (its library lets the parent's sockets alone): closed, so that
 * the child's numbers are as the kernel would leave them.
 */
static void
pl_atfork_child(void)
{
	unsigned int i;

	pthread_mutex_init(&pl_lock, NULL);
	pl_pid = getpid();
	pl_attach_atfork_child();
	if (pl_fds == NULL)
		return;
	for (i = 0; i < PL_MAX_FDS; i++) {
		if (pl_fds[i].handle >= 0)
			pl_fds[i].stale = PL_FORKED;
		if (pl_fds[i].hidden >= 0) {
			/* (The library closes its connection itself.) */
			if (pl_fds[i].hidden != PL_HIDDEN_CTL)
				REAL(close)((int)i);
			pl_fds[i].hidden = -1;
		}
		pl_fds[i].closing = 0;
	}
	memset(pl_socks, 0, sizeof(pl_socks));
}

/* errno for a call on a stale descriptor. */
int
pl_stale(void)
{
	errno = EBADF;
	return -1;
}

/* A socket call on a stale RDS descriptor: -1 with its errno. */
int
pl_stale_call(const struct pl_fd *p)
{
	errno = p->stale == PL_DEAD ? ECONNRESET : EBADF;
	return -1;
}

/* What a wait reports of a stale RDS descriptor asked for events: a
 * forked child's is nothing of the child's (POLLNVAL); one of an engine
 * that went is a socket whose peer went, as the library reports it
 * (rte_rds_event_arm): the calls that follow say ECONNRESET. */
short
pl_stale_revents(const struct pl_fd *p, short events)
{
	if (p->stale != PL_DEAD)
		return POLLNVAL;
	return POLLERR | POLLHUP |
	       (events & (POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM));
}

/*
 * Is this a process the table is not of? A child made by vfork(2) (or
 * clone with CLONE_VM: posix_spawn, CPython's subprocess) runs in its
 * parent's memory, with no fork handler run, until it execs: the
 * descriptor calls it makes there (closing every descriptor, dup2 onto
 * 0..2) are on its own descriptor table and must not change the
 * parent's table or close the parent's sockets. They go to the C
 * library as they are.
 */
bool
pl_foreign(void)
{
	return getpid() != pl_pid;
}

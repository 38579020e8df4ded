/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * krds_api: the descriptor calls an AF_RDS program makes, checked one by
 * one on two sockets of this process (on one local address or two). Built
 * against the kernel's headers only; run under librte_rds_preload.so
 * (suite multiproc) or on a kernel with RDS.
 *
 *   krds_api IP_A IP_B [PORT]
 *
 * Checks: socket/bind/getsockname; sendto/recvfrom, connect + send/recv,
 * write/read; O_NONBLOCK through fcntl and FIONBIO (EAGAIN on an empty
 * socket); SIOCINQ (KRDS_API_KERNEL=1: ENOTTY, net/rds has none);
 * write (the kernel: EOPNOTSUPP, as write(2) on SOCK_SEQPACKET sets
 * MSG_EOR); poll, ppoll, select and epoll on a set that mixes an
 * RDS socket with a pipe (the socket readable only once a message came,
 * the pipe reported as the kernel does); a blocking recvfrom woken by a
 * message; dup and dup2 (both descriptors work; closing one leaves the
 * other); getsockopt SO_SNDBUF and RDS_INFO_COUNTERS; fork: the child's
 * inherited descriptor fails with EBADF (librte_rds; a kernel shares it),
 * a socket the child makes works; close, then EBADF. Descriptors as the
 * kernel's: O_NONBLOCK set through a dup shows on the original; a second
 * close is EBADF; a file put at an RDS descriptor's number (dup2 over it,
 * or after a close) is never written to or closed by anyone but this
 * program; a descriptor this program never opened (librte_rds's own, when
 * there are any) is nothing to it (close, dup, fcntl, read, write and
 * epoll_ctl EBADF, poll POLLNVAL) and can be dup2'd over; select
 * on a bitmap of more than FD_SETSIZE bits; a recv racing a close on
 * another thread ends with EBADF, and a number another thread takes the
 * moment it is closed is that thread's file. getpeername (ENOTCONN, then
 * the connected peer, the kernel's length rules); a vfork(2) child that
 * closes every descriptor leaves the parent's sockets working; ioctl
 * FIOCLEX/FIONCLEX; edge-triggered and one-shot epoll (an event per new
 * message, one until EPOLL_CTL_MOD) and two epoll sets with their own
 * data.
 * Prints one line per check; exit 0 when all passed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/rds.h>

#include "krds_sock.h"

#ifndef AF_RDS
#define AF_RDS 21
#endif
#ifndef SOL_RDS
#define SOL_RDS 276
#endif

static unsigned int fails;
static bool kernel;	/* KRDS_API_KERNEL=1: the kernel's own sharing rules */

#define CHECK(cond, what) do { \
		if (cond) { \
			printf("ok   %s\n", what); \
		} else { \
			printf("FAIL %s (errno %d: %s)\n", what, errno, \
			       strerror(errno)); \
			fails++; \
		} \
	} while (0)

/*
 * The kernel's rds_poll reports POLLIN once after each congestion map
 * update ("for historical reasons", net/rds/af_rds.c), and the maps of a
 * connection that just came up arrive a little later: a check that
 * nothing is ready tries again when the socket was readable with nothing
 * to read (KRDS_API_KERNEL=1 only; librte_rds's client sockets have no
 * such event).
 */
static bool
cong_spurious(int fd)
{
	char c;

	if (!kernel || recv(fd, &c, 1, MSG_DONTWAIT | MSG_PEEK) >= 0 ||
	    errno != EAGAIN)
		return false;
	printf("note: readable with nothing to read (the kernel's POLLIN "
	       "after a congestion map update): once more\n");
	return true;
}

/* Wait (bounded) for a message on fd: 1 when readable. */
static int
readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

/* Send one byte from s to port at ip and receive it on r (blocking). */
static bool
pass_one(int s, const char *ip, uint16_t port, int r)
{
	struct sockaddr_in to = sin_of(ip, port);
	char c;

	return sendto(s, "p", 1, 0, (struct sockaddr *)&to, sizeof(to)) == 1 &&
	       readable(r, 5000) && recv(r, &c, 1, 0) == 1 && c == 'p';
}

/* What a pipe's read end holds now (non-blocking), as a string. */
static const char *
pipe_has(int rfd, char *buf, size_t len)
{
	int fl = fcntl(rfd, F_GETFL);
	ssize_t n;

	fcntl(rfd, F_SETFL, fl | O_NONBLOCK);
	n = read(rfd, buf, len - 1);
	fcntl(rfd, F_SETFL, fl);
	buf[n < 0 ? 0 : n] = '\0';
	return buf;
}

/*
 * A pipe put at the number of an RDS descriptor (dup2 over it while a dup
 * of the socket lives on, so the socket stays) is the program's: the
 * socket keeps working through the dup, and closing the dup (the socket
 * goes) neither writes into the pipe nor closes it.
 */
static void
check_dup2_over(const char *ipb, uint16_t port, int sa)
{
	int s = krds_bound(ipb, port), d, pp[2];
	char got[64];

	CHECK(s >= 0 && pipe(pp) == 0, "dup2 over: socket and pipe");
	d = dup(s);
	CHECK(d >= 0 && dup2(pp[1], s) == s, "dup2 a pipe over an RDS "
	      "descriptor whose socket has a dup");
	CHECK(pass_one(sa, ipb, port, d), "dup2 over: the socket lives on "
	      "in the dup");
	CHECK(close(d) == 0, "dup2 over: close the dup (the socket goes)");
	CHECK(write(s, "z", 1) == 1, "dup2 over: the pipe at the number is "
	      "still open");
	CHECK(strcmp(pipe_has(pp[0], got, sizeof(got)), "z") == 0,
	      "dup2 over: nothing but the program's data went into the pipe");
	close(s);
	/* dup2 over the only descriptor closes the socket (its port can
	 * be bound again) and the pipe is untouched. */
	s = krds_bound(ipb, port);
	CHECK(s >= 0 && dup2(pp[1], s) == s && write(s, "y", 1) == 1 &&
	      strcmp(pipe_has(pp[0], got, sizeof(got)), "y") == 0,
	      "dup2 a pipe over the only descriptor of a socket");
	close(s);
	s = krds_bound(ipb, port);
	CHECK(s >= 0 && pass_one(sa, ipb, port, s),
	      "dup2 over: the socket's port can be bound again");
	close(s);
	close(pp[0]);
	close(pp[1]);
}

/*
 * A second close is EBADF, with or without a dup; a pipe then put at the
 * number is never touched by the socket's end.
 */
static void
check_double_close(const char *ipb, uint16_t port, int sa)
{
	int pp[2], s, d;
	char got[64];

	/* The pipe first, so that neither end takes the number. */
	CHECK(pipe(pp) == 0, "double close: pipe");
	s = krds_bound(ipb, port);
	CHECK(s >= 0 && close(s) == 0, "double close: first close");
	errno = 0;
	CHECK(close(s) < 0 && errno == EBADF, "double close: the second is "
	      "EBADF");
	s = krds_bound(ipb, port);
	d = dup(s);
	CHECK(s >= 0 && d >= 0 && close(s) == 0, "double close with a dup: "
	      "first close");
	errno = 0;
	CHECK(close(s) < 0 && errno == EBADF, "double close with a dup: the "
	      "second is EBADF");
	CHECK(dup2(pp[1], s) == s, "double close: a pipe at the number");
	CHECK(pass_one(sa, ipb, port, d), "double close: the socket lives on "
	      "in the dup");
	CHECK(close(d) == 0, "double close: close the dup");
	CHECK(write(s, "w", 1) == 1 &&
	      strcmp(pipe_has(pp[0], got, sizeof(got)), "w") == 0,
	      "double close: the pipe at the number is untouched");
	close(s);
	close(pp[0]);
	close(pp[1]);
}

/* O_NONBLOCK is the open file's: set through a dup, the original has it. */
static void
check_nonblock_shared(const char *ipb, uint16_t port)
{
	int s = krds_bound(ipb, port), d = s < 0 ? -1 : dup(s), fl;
	char c;

	fl = d < 0 ? -1 : fcntl(d, F_GETFL);
	CHECK(fl >= 0 && fcntl(d, F_SETFL, fl | O_NONBLOCK) == 0 &&
	      (fcntl(s, F_GETFL) & O_NONBLOCK),
	      "O_NONBLOCK set through a dup shows on the original");
	if (fcntl(s, F_GETFL) & O_NONBLOCK) {
		errno = 0;
		CHECK(recv(s, &c, 1, 0) < 0 && errno == EAGAIN,
		      "O_NONBLOCK set through a dup: recv on the original is "
		      "EAGAIN");
	}
	close(d);
	close(s);
}

/* The descriptors open now (/proc/self/fd), as flags in open[0..max). */
static void
fds_open(bool *open, int max)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *e;
	int fd;

	memset(open, 0, sizeof(*open) * (size_t)max);
	if (dir == NULL)
		return;
	while ((e = readdir(dir)) != NULL) {
		fd = atoi(e->d_name);
		if (e->d_name[0] != '.' && fd != dirfd(dir) && fd < max)
			open[fd] = true;
	}
	closedir(dir);
}

/*
 * The descriptors a socket() opened besides the one it returned are not
 * the program's (librte_rds's own; the kernel has none): to the program
 * they are numbers with nothing open (EBADF, POLLNVAL), and one dup2'd
 * over is the program's from then on, untouched when the socket goes.
 */
#define KRDS_FDS 65536
static void
check_not_mine(const char *ipb, uint16_t port, int sa)
{
	static bool before[KRDS_FDS], after[KRDS_FDS];
	char got[64], want[64];
	int s, fd, pp[2], mine[8], n = 0, i, ep = epoll_create1(0);
	struct epoll_event ev;
	struct pollfd pf;
	uint64_t v = 1;

	CHECK(pipe(pp) == 0, "not the program's: pipe");
	fds_open(before, KRDS_FDS);
	s = krds_bound(ipb, port);
	fds_open(after, KRDS_FDS);
	CHECK(s >= 0, "not the program's: socket");
	for (fd = 0; fd < KRDS_FDS && n < (int)(sizeof(mine) / sizeof(*mine));
	     fd++) {
		if (!after[fd] || before[fd] || fd == s)
			continue;
		errno = 0;
		CHECK(close(fd) < 0 && errno == EBADF,
		      "a descriptor the program never opened: close is EBADF");
		errno = 0;
		CHECK(dup(fd) < 0 && errno == EBADF,
		      "a descriptor the program never opened: dup is EBADF");
		errno = 0;
		CHECK(fcntl(fd, F_GETFD) < 0 && errno == EBADF,
		      "a descriptor the program never opened: fcntl is EBADF");
		errno = 0;
		CHECK(write(fd, &v, sizeof(v)) < 0 && errno == EBADF &&
		      read(fd, &v, sizeof(v)) < 0 && errno == EBADF,
		      "a descriptor the program never opened: read and write "
		      "are EBADF");
		pf.fd = fd;
		pf.events = POLLIN;
		pf.revents = 0;
		CHECK(poll(&pf, 1, 0) == 1 && pf.revents == POLLNVAL &&
		      pf.fd == fd, "a descriptor the program never opened: "
		      "poll says POLLNVAL");
		ev.events = EPOLLIN;
		ev.data.u64 = 0;
		errno = 0;
		CHECK(ep >= 0 && epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0 &&
		      errno == EBADF, "a descriptor the program never opened: "
		      "epoll_ctl is EBADF");
		CHECK(pass_one(sa, ipb, port, s), "not the program's: the "
		      "socket still works");
		errno = 0;
		CHECK(dup2(KRDS_FDS - 1, fd) < 0 && errno == EBADF &&
		      close(fd) < 0 && errno == EBADF,
		      "a failed dup2 over a descriptor the program never opened "
		      "leaves nothing open there");
		CHECK(pass_one(sa, ipb, port, s), "not the program's: the "
		      "socket works after the failed dup2");
		CHECK(dup2(pp[1], fd) == fd && write(fd, "a", 1) == 1,
		      "dup2 over a descriptor the program never opened");
		CHECK(pass_one(sa, ipb, port, s), "not the program's: the "
		      "socket works after the dup2");
		mine[n++] = fd;
	}
	if (n == 0)
		printf("note: socket() opened nothing but its descriptor\n");
	CHECK(close(s) == 0, "not the program's: close the socket");
	memset(want, 'a', (size_t)n);
	want[n] = '\0';
	for (i = 0; i < n; i++)
		if (write(mine[i], "b", 1) != 1)
			break;
	memset(want + n, 'b', (size_t)n);
	want[2 * n] = '\0';
	CHECK(i == n && strcmp(pipe_has(pp[0], got, sizeof(got)), want) == 0,
	      "not the program's: the pipes dup2'd there are open and "
	      "untouched when the socket goes");
	for (i = 0; i < n; i++)
		close(mine[i]);
	close(pp[0]);
	close(pp[1]);
	close(ep);
}

/* The kernel's descriptor table size (FDSize), 0 if unknown. */
static int
fd_table_size(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	int n = 0;

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "FDSize: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

/*
 * select on a bitmap of more than FD_SETSIZE bits (the kernel takes any
 * nfds): an RDS descriptor numbered above 1024 times out while nothing
 * came, and is reported once a message is in; pselect too; and with an
 * nfds far beyond the descriptor table, only the table's bits are read.
 */
static void
check_select_big(const char *ipb, uint16_t port, int sa)
{
	const int nb = 8 * (int)sizeof(unsigned long);
	struct rlimit rl;
	struct timeval tv;
	struct timespec ts;
	struct sockaddr_in to = sin_of(ipb, port);
	unsigned long *bits;
	int s, d, nfds, words, r = -1, k;
	char c;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 2048) {
		rl.rlim_cur = 2048;
		if (rl.rlim_max < 2048)
			rl.rlim_max = 2048;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
			printf("note: cannot raise RLIMIT_NOFILE to 2048 (%s): "
			       "select above FD_SETSIZE not checked\n",
			       strerror(errno));
			return;
		}
	}
	s = krds_bound(ipb, port);
	d = s < 0 ? -1 : fcntl(s, F_DUPFD, 1500);
	CHECK(d >= 1500, "an RDS descriptor above FD_SETSIZE (F_DUPFD 1500)");
	if (d < 0) {
		close(s);
		return;
	}
	nfds = d + 1;
	words = (nfds + nb - 1) / nb;
	bits = calloc((size_t)words, sizeof(*bits));
	for (k = 0; k < 3; k++) {
		memset(bits, 0, sizeof(*bits) * (size_t)words);
		bits[d / nb] |= 1UL << (d % nb);
		tv.tv_sec = 0;
		tv.tv_usec = 50000;
		r = select(nfds, (fd_set *)bits, NULL, NULL, &tv);
		if (r != 1 || !cong_spurious(d))
			break;
	}
	CHECK(r == 0, "select above FD_SETSIZE: times out on an empty socket");
	CHECK(sendto(sa, "B", 1, 0, (struct sockaddr *)&to, sizeof(to)) == 1,
	      "send for select above FD_SETSIZE");
	memset(bits, 0, sizeof(*bits) * (size_t)words);
	bits[d / nb] |= 1UL << (d % nb);
	tv.tv_sec = 5;
	tv.tv_usec = 0;
	CHECK(select(nfds, (fd_set *)bits, NULL, NULL, &tv) == 1 &&
	      (bits[d / nb] & (1UL << (d % nb))),
	      "select above FD_SETSIZE: the socket is reported readable");
	memset(bits, 0, sizeof(*bits) * (size_t)words);
	bits[d / nb] |= 1UL << (d % nb);
	ts.tv_sec = 5;
	ts.tv_nsec = 0;
	CHECK(pselect(nfds, (fd_set *)bits, NULL, NULL, &ts, NULL) == 1 &&
	      (bits[d / nb] & (1UL << (d % nb))),
	      "pselect above FD_SETSIZE: the socket is reported readable");
	/* nfds far beyond the descriptor table, the bitmap only as large
	 * as the table (FDSize): the kernel reads no more than the table,
	 * and neither may the preload (an ASan build sees any read past the
	 * bitmap). */
	free(bits);
	words = (fd_table_size() + nb - 1) / nb;
	bits = calloc((size_t)words, sizeof(*bits));
	CHECK(words * nb > d, "the descriptor table (FDSize) covers the "
	      "descriptor");
	if (words * nb > d) {
		bits[d / nb] |= 1UL << (d % nb);
		tv.tv_sec = 5;
		tv.tv_usec = 0;
		CHECK(select(1 << 20, (fd_set *)bits, NULL, NULL, &tv) == 1 &&
		      (bits[d / nb] & (1UL << (d % nb))),
		      "select with nfds 1 << 20 and a bitmap of the "
		      "descriptor table's size: the socket is readable");
	}
	CHECK(recv(d, &c, 1, 0) == 1 && c == 'B', "recv above FD_SETSIZE");
	free(bits);
	close(d);
	close(s);
}

/*
 * closefrom over RDS descriptors (and, under the preload, over the
 * library's own descriptors): the RDS descriptor in the range is closed
 * (its socket's port can be bound again), a socket outside it works, and
 * files the program then puts at every number of the range are never
 * written to or closed when that socket goes.
 */
static void
check_closefrom(const char *ipb, uint16_t port, int sa)
{
	const int lo = 900;
	int keep = krds_bound(ipb, port), gone = krds_bound(ipb, port + 1);
	int pp[2], hi, s, fd, top, bad = 0;
	char got[64];

	CHECK(keep >= 0 && gone >= 0 && pipe(pp) == 0 && keep < lo &&
	      pp[1] < lo, "closefrom: sockets and a pipe below it");
	hi = fcntl(gone, F_DUPFD, lo);
	CHECK(hi >= lo && close(gone) == 0, "closefrom: a socket whose only "
	      "descriptor is in the range");
	closefrom(lo);
	errno = 0;
	CHECK(close(hi) < 0 && errno == EBADF,
	      "closefrom: the RDS descriptor in the range is closed");
	s = krds_bound(ipb, port + 1);
	CHECK(s >= 0, "closefrom: its socket's port can be bound again");
	close(s);
	CHECK(pass_one(sa, ipb, port, keep),
	      "closefrom: a socket below the range works");
	top = fd_table_size();
	if (top > 4096)
		top = 4096;
	for (fd = lo; fd < top; fd++)
		if (dup2(pp[1], fd) != fd)
			bad++;
	CHECK(top > lo && bad == 0, "closefrom: a pipe at every number of "
	      "the range");
	CHECK(pass_one(sa, ipb, port, keep),
	      "closefrom: the socket works with pipes all over the range");
	CHECK(close(keep) == 0, "closefrom: close the socket");
	for (fd = lo; fd < top; fd++)
		if (fcntl(fd, F_GETFD) < 0)
			bad++;
	CHECK(bad == 0 && strcmp(pipe_has(pp[0], got, sizeof(got)), "") == 0,
	      "closefrom: the pipes in the range are open and untouched when "
	      "the socket goes");
	closefrom(lo);
	close(pp[0]);
	close(pp[1]);
}

/*
 * A process that closes every descriptor above stdio (closefrom(3)), or
 * puts a file at every number, after its first RDS socket: the RDS
 * library's own descriptors (under the preload, its connection to the
 * engine too) are none of the program's business: the next socket call,
 * which talks to the engine, works, and the files are untouched. And
 * shutdown, which RDS sockets do not have (EOPNOTSUPP), changes nothing.
 * In a child, exit 0 when all held.
 */
static void
check_own_numbers(const char *ipb, uint16_t port)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		int s = krds_bound(ipb, port), pp[2], fd, top, bad = 0, t;
		char got[64];

		fails = 0;
		CHECK(s >= 0, "own numbers: a socket");
		closefrom(3);
		t = krds_bound(ipb, port + 1);
		CHECK(t >= 0, "own numbers: after closefrom(3), a socket (a "
		      "call on the engine's connection)");
		CHECK(pass_one(t, ipb, port + 1, t),
		      "own numbers: after closefrom(3), it sends to itself");
		errno = 0;
		CHECK(shutdown(t, SHUT_RDWR) < 0 && errno == EOPNOTSUPP,
		      "own numbers: shutdown EOPNOTSUPP");
		CHECK(pass_one(t, ipb, port + 1, t),
		      "own numbers: after shutdown, it still works");
		CHECK(pipe(pp) == 0, "own numbers: a pipe");
		top = fd_table_size();
		if (top > 4096)
			top = 4096;
		for (fd = pp[1] + 1; fd < top - 32; fd++)
			if (fd != t && dup2(pp[1], fd) != fd)
				bad++;
		CHECK(bad == 0, "own numbers: a pipe at every number but the "
		      "last 32");
		s = krds_bound(ipb, port + 2);
		CHECK(s >= 0, "own numbers: with pipes everywhere, a socket");
		CHECK(pass_one(t, ipb, port + 1, t),
		      "own numbers: with pipes everywhere, it sends to itself");
		close(s);
		close(t);
		for (fd = pp[1] + 1; fd < top - 32; fd++)
			if (fd != t && fd != s && fcntl(fd, F_GETFD) < 0)
				bad++;
		CHECK(bad == 0 && strcmp(pipe_has(pp[0], got, sizeof(got)),
					 "") == 0,
		      "own numbers: the pipes are open and untouched");
		_exit(fails == 0 ? 0 : 1);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0, "own numbers: every check of the child");
}

/*
 * A forked child that never uses RDS does not keep its parent's sockets:
 * once the parent is gone, its port is free at once, while the child
 * lives on (it held the parent's connection to the engine, and with it
 * every socket of the parent's, until it exited). On the kernel
 * (KRDS_API_KERNEL=1) the child shares the socket: the port stays bound.
 */
static void
check_child_keeps_nothing(const char *ipb, uint16_t port)
{
	int sync[2], st, s = -1, i;
	pid_t parent;
	char c;

	CHECK(pipe(sync) == 0, "child keeps nothing: a pipe");
	parent = fork();
	if (parent == 0) {
		int b = krds_bound(ipb, port);
		pid_t kid = fork();

		if (kid == 0) {
			/* Holds what it inherited for 5 s. */
			close(sync[0]);
			sleep(5);
			_exit(0);
		}
		c = b >= 0 && kid > 0 ? 'y' : 'n';
		if (write(sync[1], &c, 1) != 1)
			_exit(1);
		_exit(0);
	}
	close(sync[1]);
	CHECK(read(sync[0], &c, 1) == 1 && c == 'y',
	      "child keeps nothing: the parent bound, and forked");
	close(sync[0]);
	CHECK(waitpid(parent, &st, 0) == parent, "child keeps nothing: the "
	      "parent exited");
	if (kernel) {
		/* The kernel's rule, which librte_rds departs from: the
		 * child shares the parent's socket, which stays bound as
		 * long as the child holds it (it sleeps 5 s). */
		errno = 0;
		s = krds_bound(ipb, port);
		CHECK(s < 0 && errno == EADDRINUSE, "child keeps the socket "
		      "(kernel): the parent's port stays bound while its "
		      "child lives");
		if (s >= 0)
			close(s);
		return;
	}
	for (i = 0; i < 100 && s < 0; i++) {
		s = krds_bound(ipb, port);
		if (s < 0)
			usleep(10000);
	}
	CHECK(s >= 0, "child keeps nothing: the parent's port is free within "
	      "a second, its child still there");
	if (s >= 0)
		close(s);
}

/*
 * getpeername, as net/rds rds_getname with peer: ENOTCONN before connect
 * (whatever the buffer), then the address connect gave, cut to a short
 * buffer with the full length reported, and nothing copied into none.
 */
static void
check_getpeername(const char *ipb, uint16_t port, const char *ipa,
		  uint16_t aport)
{
	struct sockaddr_in peer = sin_of(ipa, aport), got;
	unsigned char raw[sizeof(got) + 8];
	socklen_t fl = sizeof(got);
	int s = krds_bound(ipb, port);

	CHECK(s >= 0, "getpeername: a socket");
	errno = 0;
	CHECK(getpeername(s, (struct sockaddr *)&got, &fl) < 0 &&
	      errno == ENOTCONN, "getpeername before connect: ENOTCONN");
	errno = 0;
	CHECK(getpeername(s, NULL, NULL) < 0 && errno == ENOTCONN,
	      "getpeername before connect, no buffer: ENOTCONN first");
	CHECK(connect(s, (struct sockaddr *)&peer, sizeof(peer)) == 0,
	      "getpeername: connect");
	memset(raw, 0xa5, sizeof(raw));
	fl = sizeof(raw);
	memcpy(&got, raw, sizeof(got));
	CHECK(getpeername(s, (struct sockaddr *)raw, &fl) == 0 &&
	      fl == sizeof(got) && (memcpy(&got, raw, sizeof(got)), 1) &&
	      got.sin_family == AF_INET &&
	      got.sin_addr.s_addr == peer.sin_addr.s_addr &&
	      got.sin_port == peer.sin_port && raw[sizeof(got)] == 0xa5,
	      "getpeername after connect: the peer, sizeof(sockaddr_in)");
	memset(raw, 0xa5, sizeof(raw));
	fl = 4;
	CHECK(getpeername(s, (struct sockaddr *)raw, &fl) == 0 &&
	      fl == sizeof(got) && memcmp(raw, &got, 4) == 0 &&
	      raw[4] == 0xa5, "getpeername with 4 bytes of room: what fits, "
	      "the full length");
	fl = 0;
	CHECK(getpeername(s, NULL, &fl) == 0 && fl == sizeof(got),
	      "getpeername with no room: the length only");
	errno = 0;
	CHECK(getpeername(s, (struct sockaddr *)&got, NULL) < 0 &&
	      errno == EFAULT, "getpeername with no length: EFAULT");
	close(s);
}

/*
 * A child made with vfork(2), as CPython's subprocess and posix_spawn
 * make them, closes every descriptor (close, close_range) and dup2s
 * onto one of the parent's RDS descriptors before it exits: that is on
 * the child's own descriptor table, and the parent's sockets, which
 * share its memory meanwhile, go on working.
 */
static void
check_vfork(const char *ipb, uint16_t port, int sa)
{
	int s = krds_bound(ipb, port), pp[2], st = -1, t;
	pid_t pid;

	CHECK(s >= 0 && pipe(pp) == 0, "vfork: a socket and a pipe");
	pid = vfork();
	if (pid == 0) {
		close(s);
		dup2(pp[1], s);
		close_range(3, ~0U, 0);
		_exit(0);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st),
	      "vfork: the child closed every descriptor and exited");
	CHECK(pass_one(sa, ipb, port, s), "vfork: the parent's socket works "
	      "after the child's close");
	t = krds_bound(ipb, port + 1);
	CHECK(t >= 0 && pass_one(sa, ipb, port + 1, t), "vfork: and a new "
	      "socket (the engine's connection) too");
	close(t);
	close(s);
	close(pp[0]);
	close(pp[1]);
}

/* FIOCLEX and FIONCLEX act on the descriptor (the kernel's do_vfs_ioctl,
 * before any socket sees them), as F_SETFD does; CPython's
 * os.set_inheritable uses them. */
static void
check_fioclex(const char *ipb, uint16_t port)
{
	int s = krds_bound(ipb, port);

	CHECK(s >= 0 && ioctl(s, FIOCLEX) == 0 &&
	      (fcntl(s, F_GETFD) & FD_CLOEXEC), "ioctl FIOCLEX");
	CHECK(ioctl(s, FIONCLEX) == 0 && !(fcntl(s, F_GETFD) & FD_CLOEXEC),
	      "ioctl FIONCLEX");
	close(s);
}

/*
 * An epoll_wait that must report nothing: 0, or under the kernel (only)
 * an event of its congestion map updates (cong_spurious, which has the
 * data unread to tell apart: any extra event is let go there, with a
 * note).
 */
static bool
ep_none(int ep, int ms)
{
	struct epoll_event out[4];
	int r = epoll_wait(ep, out, 4, ms);

	if (r > 0 && kernel) {
		printf("note: an epoll event with nothing new (the kernel's "
		       "congestion map updates wake a socket too)\n");
		return true;
	}
	return r == 0;
}

/* One epoll event, for data, within 5 s. */
static bool
ep_one(int ep, uint64_t data, uint32_t want)
{
	struct epoll_event out[4];

	return epoll_wait(ep, out, 4, 5000) == 1 && out[0].data.u64 == data &&
	       (out[0].events & want) == want;
}

/*
 * Edge-triggered epoll (EPOLLET) reports an RDS socket once per new
 * message, as the kernel's wake-ups do: not again while the message
 * lies unread, again for the next one though the first is unread, never
 * for a read; and once when registered (or modified) while a message is
 * waiting. EPOLLONESHOT: one event, then none until EPOLL_CTL_MOD, which
 * reports the socket again if it is still readable. Two epoll sets each
 * give their own data for the socket.
 */
static void
check_epoll_edge(const char *ipb, uint16_t port, int sa)
{
	struct sockaddr_in to = sin_of(ipb, port);
	struct epoll_event ev;
	int s = krds_bound(ipb, port), ep = epoll_create1(0), ep2, i;
	char buf[8];

#define SEND1(c) (sendto(sa, c, 1, 0, (struct sockaddr *)&to, \
			 sizeof(to)) == 1)
	CHECK(s >= 0 && ep >= 0, "EPOLLET: a socket and an epoll set");
	ev.events = EPOLLIN | EPOLLET;
	ev.data.u64 = 7;
	CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, s, &ev) == 0 && ep_none(ep, 50),
	      "EPOLLET: registered, nothing yet");
	CHECK(SEND1("1") && ep_one(ep, 7, EPOLLIN),
	      "EPOLLET: an event for a message");
	CHECK(ep_none(ep, 100), "EPOLLET: no other while it lies unread");
	CHECK(SEND1("2") && ep_one(ep, 7, EPOLLIN),
	      "EPOLLET: an event for the next message, the first unread");
	CHECK(ep_none(ep, 100), "EPOLLET: and then none");
	CHECK(recv(s, buf, sizeof(buf), 0) == 1 &&
	      recv(s, buf, sizeof(buf), 0) == 1 && ep_none(ep, 100),
	      "EPOLLET: reading both makes no event");
	CHECK(SEND1("3") && readable(s, 5000), "EPOLLET: a message waits");
	ev.events = EPOLLIN | EPOLLET;
	ev.data.u64 = 8;
	CHECK(epoll_ctl(ep, EPOLL_CTL_MOD, s, &ev) == 0 && ep_one(ep, 8,
								  EPOLLIN) &&
	      ep_none(ep, 100), "EPOLLET: modified while a message waits: "
	      "one event, with the new data");
	CHECK(recv(s, buf, sizeof(buf), 0) == 1, "EPOLLET: read it");
	ev.events = EPOLLIN | EPOLLONESHOT;
	ev.data.u64 = 9;
	CHECK(epoll_ctl(ep, EPOLL_CTL_MOD, s, &ev) == 0 && ep_none(ep, 50),
	      "EPOLLONESHOT: nothing yet");
	CHECK(SEND1("4") && ep_one(ep, 9, EPOLLIN),
	      "EPOLLONESHOT: an event for a message");
	CHECK(ep_none(ep, 100) && SEND1("5") && ep_none(ep, 100),
	      "EPOLLONESHOT: then none, readable or not, new message or not");
	CHECK(epoll_ctl(ep, EPOLL_CTL_MOD, s, &ev) == 0 &&
	      ep_one(ep, 9, EPOLLIN) && ep_none(ep, 100),
	      "EPOLLONESHOT: EPOLL_CTL_MOD, still readable: one event more");
	CHECK(recv(s, buf, sizeof(buf), 0) == 1 &&
	      recv(s, buf, sizeof(buf), 0) == 1, "EPOLLONESHOT: read both");
	ev.events = EPOLLIN | EPOLLET | EPOLLONESHOT;
	CHECK(epoll_ctl(ep, EPOLL_CTL_MOD, s, &ev) == 0 && SEND1("6") &&
	      ep_one(ep, 9, EPOLLIN) && SEND1("7") && ep_none(ep, 100),
	      "EPOLLET | EPOLLONESHOT: one event, none for the next message");
	for (i = 0; i < 2; i++)
		CHECK(recv(s, buf, sizeof(buf), 0) == 1,
		      "EPOLLET | EPOLLONESHOT: read");
	/* Two sets, level-triggered, each with its data. */
	ep2 = epoll_create1(0);
	ev.events = EPOLLIN;
	ev.data.u64 = 21;
	CHECK(epoll_ctl(ep, EPOLL_CTL_MOD, s, &ev) == 0, "two sets: the first");
	ev.data.u64 = 22;
	CHECK(ep2 >= 0 && epoll_ctl(ep2, EPOLL_CTL_ADD, s, &ev) == 0,
	      "two sets: the second, other data");
	CHECK(SEND1("8") && ep_one(ep, 21, EPOLLIN) && ep_one(ep2, 22, EPOLLIN),
	      "two sets: each reports the socket with its own data");
	CHECK(recv(s, buf, sizeof(buf), 0) == 1, "two sets: read");
#undef SEND1
	close(ep2);
	close(ep);
	close(s);
}

struct racer {
	int fd;
	volatile bool go;
	int err;		/* errno of the call that failed otherwise */
	long calls;
};

static void *
race_recv(void *arg)
{
	struct racer *r = arg;
	char c;

	while (!r->go)
		;
	for (;;) {
		r->calls++;
		if (recv(r->fd, &c, 1, MSG_DONTWAIT) >= 0)
			continue;
		if (errno != EAGAIN) {
			r->err = errno;
			return NULL;
		}
	}
}

/*
 * close racing non-blocking recvs on another thread: once the descriptor
 * is closed the other thread's calls fail with EBADF (the number has
 * nothing open), never with another errno.
 */
static void
check_close_race(const char *ipb, uint16_t port)
{
	struct racer r;
	pthread_t t;
	int i, bad = 0, err = 0;

	for (i = 0; i < 50; i++) {
		memset(&r, 0, sizeof(r));
		r.fd = krds_bound(ipb, port);
		if (r.fd < 0 || pthread_create(&t, NULL, race_recv, &r) != 0) {
			bad++;
			break;
		}
		r.go = true;
		usleep(1000 + 100 * i);
		close(r.fd);
		pthread_join(t, NULL);
		if (r.err != EBADF) {
			bad++;
			err = r.err;
		}
	}
	errno = err;
	CHECK(bad == 0, "recv racing close on another thread: EBADF (50 "
	      "rounds)");
}

struct reuser {
	int rfd;		/* a pipe's read end, with data */
	int num;		/* the number to take once it is free */
	volatile bool go;
	ssize_t got;		/* what a read at num gave */
	int err;
};

static void *
reuse_num(void *arg)
{
	struct reuser *u = arg;
	char c;
	int fd;

	while (!u->go)
		;
	for (;;) {
		fd = fcntl(u->rfd, F_DUPFD, u->num);
		if (fd < 0) {
			u->got = -1;
			u->err = errno;
			return NULL;
		}
		if (fd == u->num)
			break;
		close(fd);
	}
	u->got = read(fd, &c, 1);
	u->err = errno;
	close(fd);
	return NULL;
}

/*
 * A descriptor that takes the number of an RDS descriptor the moment it
 * is closed (F_DUPFD on another thread, in a loop) is that thread's file:
 * a read on it gives the pipe's data, never the closed socket's answer.
 */
static void
check_close_reuse(const char *ipb, uint16_t port)
{
	struct reuser u;
	pthread_t t;
	int i, bad = 0, pp[2];

	if (pipe(pp) != 0) {
		CHECK(false, "close and reuse: pipe");
		return;
	}
	for (i = 0; i < 50; i++) {
		memset(&u, 0, sizeof(u));
		u.rfd = pp[0];
		u.num = krds_bound(ipb, port);
		if (u.num < 0 || write(pp[1], "r", 1) != 1 ||
		    pthread_create(&t, NULL, reuse_num, &u) != 0) {
			bad++;
			break;
		}
		u.go = true;
		usleep(500 + 50 * i);
		close(u.num);
		pthread_join(t, NULL);
		if (u.got != 1) {
			bad++;
			errno = u.err;
		}
	}
	CHECK(bad == 0, "a number taken on another thread the moment its RDS "
	      "descriptor closes is that thread's file (50 rounds)");
	close(pp[0]);
	close(pp[1]);
}

int
main(int argc, char **argv)
{
	struct sockaddr_in a, b, from;
	struct epoll_event ev, out[4];
	struct pollfd pf[2];
	socklen_t fl;
	char buf[256];
	fd_set rs;
	struct timeval tv;
	uint16_t port;
	int sa, sb, sc, d1, d2, pp[2], ep, v, st, k, r2 = -1;
	socklen_t vl;
	pid_t pid;
	ssize_t r;

	if (argc < 3) {
		fprintf(stderr, "usage: krds_api IP_A IP_B [PORT]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* A write into a pipe closed behind the program fails (EPIPE) and
	 * is reported, rather than ending the run. */
	signal(SIGPIPE, SIG_IGN);
	kernel = getenv("KRDS_API_KERNEL") != NULL;
	port = argc > 3 ? (uint16_t)atoi(argv[3]) : 19500;
	a = sin_of(argv[1], port);
	b = sin_of(argv[2], port + 1);

	sa = krds_bound(argv[1], port);
	sb = krds_bound(argv[2], port + 1);
	CHECK(sa >= 0 && sb >= 0, "socket(AF_RDS) and bind");
	if (sa < 0 || sb < 0)
		return 1;
	errno = 0;
	CHECK(socket(AF_RDS, SOCK_STREAM, 0) < 0 && errno == ESOCKTNOSUPPORT,
	      "socket(AF_RDS, SOCK_STREAM) fails with ESOCKTNOSUPPORT");
	fl = sizeof(from);
	CHECK(getsockname(sa, (struct sockaddr *)&from, &fl) == 0 &&
	      from.sin_port == a.sin_port &&
	      from.sin_addr.s_addr == a.sin_addr.s_addr, "getsockname");

	/* Non-blocking: EAGAIN on an empty socket. */
	v = fcntl(sb, F_GETFL);
	CHECK(v >= 0 && !(v & O_NONBLOCK), "F_GETFL: blocking at first");
	CHECK(fcntl(sb, F_SETFL, v | O_NONBLOCK) == 0 &&
	      (fcntl(sb, F_GETFL) & O_NONBLOCK), "F_SETFL O_NONBLOCK");
	errno = 0;
	CHECK(recv(sb, buf, sizeof(buf), 0) < 0 && errno == EAGAIN,
	      "recv on an empty non-blocking socket: EAGAIN");
	v = 0;
	CHECK(ioctl(sb, FIONBIO, &v) == 0, "FIONBIO 0");

	/* A mixed poll set: nothing ready on the socket, the pipe has
	 * data. */
	CHECK(pipe(pp) == 0 && write(pp[1], "x", 1) == 1, "pipe");
	pf[0].fd = sb;
	pf[0].events = POLLIN;
	pf[1].fd = pp[0];
	pf[1].events = POLLIN;
	CHECK(poll(pf, 2, 100) == 1 && pf[0].revents == 0 &&
	      (pf[1].revents & POLLIN), "poll: pipe readable, socket not");
	CHECK(read(pp[0], buf, 1) == 1, "pipe drained");

	/* sendto / recvfrom, and the socket becomes readable. */
	CHECK(sendto(sa, "hello", 5, 0, (struct sockaddr *)&b,
		     sizeof(b)) == 5, "sendto");
	pf[0].revents = pf[1].revents = 0;
	CHECK(poll(pf, 2, 5000) == 1 && (pf[0].revents & POLLIN) &&
	      pf[1].revents == 0, "poll: socket readable once a message came");
	v = 0;
	errno = 0;
	if (kernel)	/* net/rds has no SIOCINQ (rds_ioctl: ENOTTY) */
		CHECK(ioctl(sb, SIOCINQ, &v) < 0 && errno == ENOTTY,
		      "SIOCINQ: ENOTTY (the kernel's RDS has none)");
	else
		CHECK(ioctl(sb, SIOCINQ, &v) == 0 && v == 5,
		      "SIOCINQ: the next message's size");
	fl = sizeof(from);
	r = recvfrom(sb, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
	CHECK(r == 5 && memcmp(buf, "hello", 5) == 0 &&
	      from.sin_port == a.sin_port, "recvfrom: message and source");

	/* connect + send / recv, write / read. */
	CHECK(connect(sa, (struct sockaddr *)&b, sizeof(b)) == 0, "connect");
	CHECK(send(sa, "abc", 3, 0) == 3, "send on a connected socket");
	CHECK(readable(sb, 5000) && recv(sb, buf, sizeof(buf), 0) == 3 &&
	      memcmp(buf, "abc", 3) == 0, "recv");
	errno = 0;
	if (kernel) {
		/* write(2) on a SOCK_SEQPACKET socket sets MSG_EOR, which
		 * rds_sendmsg refuses; read(2) works. */
		CHECK(write(sa, "wxyz", 4) < 0 && errno == EOPNOTSUPP,
		      "write: EOPNOTSUPP (MSG_EOR, as the kernel's RDS)");
		CHECK(send(sa, "wxyz", 4, 0) == 4, "send for read");
	} else {
		CHECK(write(sa, "wxyz", 4) == 4, "write");
	}
	CHECK(readable(sb, 5000) && read(sb, buf, sizeof(buf)) == 4 &&
	      memcmp(buf, "wxyz", 4) == 0, "read");

	/* select. */
	for (k = 0; k < 3; k++) {
		FD_ZERO(&rs);
		FD_SET(sb, &rs);
		tv.tv_sec = 0;
		tv.tv_usec = 50000;
		r2 = select(sb + 1, &rs, NULL, NULL, &tv);
		if (r2 != 1 || !cong_spurious(sb))
			break;
	}
	CHECK(r2 == 0, "select: times out on an empty socket");
	CHECK(send(sa, "s", 1, 0) == 1, "send for select");
	FD_ZERO(&rs);
	FD_SET(sb, &rs);
	FD_SET(pp[0], &rs);
	tv.tv_sec = 5;
	tv.tv_usec = 0;
	CHECK(select((sb > pp[0] ? sb : pp[0]) + 1, &rs, NULL, NULL,
		     &tv) == 1 && FD_ISSET(sb, &rs) && !FD_ISSET(pp[0], &rs),
	      "select: the socket, not the pipe");
	CHECK(recv(sb, buf, sizeof(buf), 0) == 1, "recv after select");

	/* epoll, level-triggered, with data of the program's own. */
	ep = epoll_create1(0);
	ev.events = EPOLLIN;
	ev.data.u64 = 0x1234567890ULL;
	CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, sb, &ev) == 0, "epoll_ctl ADD");
	ev.events = EPOLLIN;
	ev.data.u64 = 42;
	CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, pp[0], &ev) == 0,
	      "epoll_ctl ADD (pipe)");
	for (k = 0; k < 3; k++)
		if ((r2 = epoll_wait(ep, out, 4, 50)) != 1 || !cong_spurious(sb))
			break;
	CHECK(r2 == 0, "epoll_wait: nothing yet");
	CHECK(send(sa, "e", 1, 0) == 1, "send for epoll");
	CHECK(epoll_wait(ep, out, 4, 5000) == 1 &&
	      out[0].data.u64 == 0x1234567890ULL && (out[0].events & EPOLLIN),
	      "epoll_wait: the socket, with the program's data");
	CHECK(epoll_wait(ep, out, 4, 0) == 1,
	      "epoll_wait: still readable (level-triggered)");
	CHECK(recv(sb, buf, sizeof(buf), 0) == 1, "recv after epoll");
	for (k = 0; k < 3; k++)
		if ((r2 = epoll_wait(ep, out, 4, 50)) != 1 || !cong_spurious(sb))
			break;
	CHECK(r2 == 0, "epoll_wait: drained");
	CHECK(epoll_ctl(ep, EPOLL_CTL_DEL, sb, NULL) == 0, "epoll_ctl DEL");
	close(ep);

	/* A blocking receive is woken by a message from a child. */
	pid = fork();
	if (pid == 0) {
		int s2;

		usleep(200000);
		/* The inherited descriptor is the parent's socket. */
		errno = 0;
		r = send(sa, "inh", 3, 0);
		if (kernel ? r != 3 : (r >= 0 || errno != EBADF))
			_exit(3);
		s2 = krds_bound(argv[1], port + 2);
		if (s2 < 0)
			_exit(4);
		if (sendto(s2, "child", 5, 0, (struct sockaddr *)&b,
			   sizeof(b)) != 5)
			_exit(5);
		/* Stay until the message is in (the parent answers). */
		if (!readable(s2, 10000))
			_exit(6);
		close(s2);
		close(sa);
		_exit(0);
	}
	fl = sizeof(from);
	r = recvfrom(sb, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
	if (kernel && r == 3)	/* the kernel's shared descriptor sent it */
		r = recvfrom(sb, buf, sizeof(buf), 0, (struct sockaddr *)&from,
			     &fl);
	CHECK(r == 5 && memcmp(buf, "child", 5) == 0 &&
	      from.sin_port == htons(port + 2),
	      "blocking recvfrom woken by the child's socket");
	CHECK(sendto(sb, "ack", 3, 0, (struct sockaddr *)&from, fl) == 3,
	      "answer the child");
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      kernel ? "fork: the child shares the parent's descriptor and "
		       "makes a socket of its own" :
		       "fork: the inherited descriptor fails with EBADF in the "
		       "child; a socket the child makes works");

	/* dup, dup2. */
	d1 = dup(sb);
	CHECK(d1 >= 0, "dup");
	CHECK(send(sa, "d", 1, 0) == 1 && readable(d1, 5000) &&
	      recv(d1, buf, sizeof(buf), 0) == 1, "recv through the dup");
	d2 = dup2(sb, 200);
	CHECK(d2 == 200, "dup2");
	CHECK(close(sb) == 0, "close the first descriptor");
	CHECK(send(sa, "e", 1, 0) == 1 && readable(d2, 5000) &&
	      recv(d2, buf, sizeof(buf), 0) == 1,
	      "the socket lives on in the dup2 descriptor");
	close(d1);

	/* Options. */
	vl = sizeof(v);
	CHECK(getsockopt(d2, SOL_SOCKET, SO_SNDBUF, &v, &vl) == 0 && v > 0,
	      "getsockopt SO_SNDBUF");
	{
		char info[4096];
		socklen_t il = sizeof(info);
		int n = getsockopt(d2, SOL_RDS, RDS_INFO_COUNTERS, info, &il);

		CHECK(n > 0 && il > 0, "getsockopt RDS_INFO_COUNTERS");
	}

	/* close, then EBADF. */
	CHECK(close(d2) == 0, "close the last descriptor");
	errno = 0;
	CHECK(recv(d2, buf, sizeof(buf), MSG_DONTWAIT) < 0 && errno == EBADF,
	      "recv after close: EBADF");
	sc = krds_bound(argv[2], port + 1);
	CHECK(sc >= 0, "the port can be bound again");
	close(sc);

	/* Descriptors: numbers are the program's. */
	check_nonblock_shared(argv[2], port + 3);
	check_dup2_over(argv[2], port + 4, sa);
	check_double_close(argv[2], port + 5, sa);
	check_not_mine(argv[2], port + 6, sa);
	check_select_big(argv[2], port + 7, sa);
	check_close_race(argv[2], port + 8);
	check_close_reuse(argv[2], port + 9);
	check_closefrom(argv[2], port + 10, sa);
	check_own_numbers(argv[2], port + 20);
	check_child_keeps_nothing(argv[2], port + 25);
	check_getpeername(argv[2], port + 30, argv[1], port);
	check_vfork(argv[2], port + 31, sa);
	check_fioclex(argv[2], port + 33);
	check_epoll_edge(argv[2], port + 34, sa);
	close(sa);
	close(pp[0]);
	close(pp[1]);
	printf("krds_api: %u failure(s)\n", fails);
	return fails == 0 ? 0 : 1;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * krds_api: descriptors are the program's: dup2 over an RDS descriptor,
 * a double close, O_NONBLOCK shared through a dup, a descriptor it never
 * opened, select above FD_SETSIZE, closefrom, its own numbers, FIOCLEX.
 */
#include "krds_api.h"

/*
 * A pipe put at the number of an RDS descriptor (dup2 over it while a dup
 * of the socket lives on, so the socket stays) is the program's: the
 * socket keeps working through the dup, and closing the dup (the socket
 * goes) neither writes into the pipe nor closes it.
 */
void
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
void
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
void
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

/*
 * The descriptors a socket() opened besides the one it returned are not
 * the program's (librte_rds's own; the kernel has none): to the program
 * they are numbers with nothing open (EBADF, POLLNVAL), and one dup2'd
 * over is the program's from then on, untouched when the socket goes.
 */
#define KRDS_FDS 65536
void
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

/*
 * select on a bitmap of more than FD_SETSIZE bits (the kernel takes any
 * nfds): an RDS descriptor numbered above 1024 times out while nothing
 * came, and is reported once a message is in; pselect too; and with an
 * nfds far beyond the descriptor table, only the table's bits are read.
 */
void
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
void
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
void
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

/* FIOCLEX and FIONCLEX act on the descriptor (the kernel's do_vfs_ioctl,
 * before any socket sees them), as F_SETFD does; CPython's
 * os.set_inheritable uses them. */
void
check_fioclex(const char *ipb, uint16_t port)
{
	int s = krds_bound(ipb, port);

	CHECK(s >= 0 && ioctl(s, FIOCLEX) == 0 &&
	      (fcntl(s, F_GETFD) & FD_CLOEXEC), "ioctl FIOCLEX");
	CHECK(ioctl(s, FIONCLEX) == 0 && !(fcntl(s, F_GETFD) & FD_CLOEXEC),
	      "ioctl FIONCLEX");
	close(s);
}

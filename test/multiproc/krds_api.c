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
 * Prints one line per check; exit 0 when all passed. The checks beyond
 * the basic calls are in krds_api_fds.c, krds_api_proc.c and
 * krds_api_epoll.c (krds_api.h).
 */
#include "krds_api.h"

unsigned int fails;
bool kernel;

/*
 * The kernel's rds_poll reports POLLIN once after each congestion map
 * update ("for historical reasons", net/rds/af_rds.c), and the maps of a
 * connection that just came up arrive a little later: a check that
 * nothing is ready tries again when the socket was readable with nothing
 * to read (KRDS_API_KERNEL=1 only; librte_rds's client sockets have no
 * such event).
 */
/* krds_bound, not inlined into the caller (check_vfork). */
int
bound_elsewhere(const char *ip, uint16_t port)
{
	return krds_bound(ip, port);
}

bool
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
int
readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

/* Send one byte from s to port at ip and receive it on r (blocking). */
bool
pass_one(int s, const char *ip, uint16_t port, int r)
{
	struct sockaddr_in to = sin_of(ip, port);
	char c;

	return sendto(s, "p", 1, 0, (struct sockaddr *)&to, sizeof(to)) == 1 &&
	       readable(r, 5000) && recv(r, &c, 1, 0) == 1 && c == 'p';
}

/* What a pipe's read end holds now (non-blocking), as a string. */
const char *
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

/* The descriptors open now (/proc/self/fd), as flags in open[0..max). */
void
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

/* The kernel's descriptor table size (FDSize), 0 if unknown. */
int
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

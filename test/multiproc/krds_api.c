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
 * a socket the child makes works; close, then EBADF.
 * Prints one line per check; exit 0 when all passed.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/rds.h>

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

static struct sockaddr_in
sin_of(const char *ip, uint16_t port)
{
	struct sockaddr_in s = { .sin_family = AF_INET,
				 .sin_port = htons(port) };

	inet_pton(AF_INET, ip, &s.sin_addr);
	return s;
}

static int
rds_sock(const char *ip, uint16_t port)
{
	struct sockaddr_in s = sin_of(ip, port);
	int fd = socket(AF_RDS, SOCK_SEQPACKET, 0);

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&s, sizeof(s)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

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
	kernel = getenv("KRDS_API_KERNEL") != NULL;
	port = argc > 3 ? (uint16_t)atoi(argv[3]) : 19500;
	a = sin_of(argv[1], port);
	b = sin_of(argv[2], port + 1);

	sa = rds_sock(argv[1], port);
	sb = rds_sock(argv[2], port + 1);
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
		s2 = rds_sock(argv[1], port + 2);
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
	sc = rds_sock(argv[2], port + 1);
	CHECK(sc >= 0, "the port can be bound again");
	close(sc);
	close(sa);
	close(pp[0]);
	close(pp[1]);
	printf("krds_api: %u failure(s)\n", fails);
	return fails == 0 ? 0 : 1;
}

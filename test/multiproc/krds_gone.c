/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * krds_gone: an AF_RDS program (the kernel's headers only, not linked
 * with librte_rds) whose engine goes away under it, run under
 * librte_rds_preload.so by mp_gone.sh. Nothing here can happen with the
 * kernel's RDS, which has no engine to lose.
 *
 *   krds_gone wait MODE SIG ENGINE_PID IP PORT
 *       A socket on IP:PORT; 200 ms later a thread sends SIG to the
 *       engine while this one is blocked in MODE on the socket (at most
 *       10 s): recv (blocking), rcvtimeo (recv with SO_RCVTIMEO 10 s),
 *       poll, epoll (epoll_wait), select, settimeout (poll with a
 *       timeout on a non-blocking socket, then recv: what CPython's
 *       settimeout does). It must return within a second (a few tens of
 *       ms is usual) with the socket in error: recv ECONNRESET; poll and
 *       epoll POLLERR | POLLHUP (or POLLIN) and then recv ECONNRESET;
 *       select readable and then recv ECONNRESET; and a send after it
 *       ECONNRESET.
 *   krds_gone restart IP PORT
 *       Driven by lines on standard input. A socket s1 on IP:PORT, and a
 *       dup of it ("READY"); on "GONE" (the engine was stopped): every
 *       call on s1 fails with ECONNRESET, poll says POLLERR | POLLHUP at
 *       once, socket() fails with EAFNOSUPPORT ("CHECKED"); on "BACK"
 *       (an engine runs again on the same path): socket() attaches to
 *       it, a socket s2 on the same IP:PORT sends to itself end to end;
 *       s1 and its dup stay dead (ECONNRESET for their calls, POLLERR |
 *       POLLHUP, epoll too), a message for s2 never comes out of s1,
 *       closing them leaves s2 working (they are sockets of the engine
 *       that went, whatever handle s2 got) and a socket made after works
 *       too. Prints "OK" last.
 *
 * One line per check ("ok ..." / "FAIL ..."); exit 0 when all passed.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "krds_sock.h"

#ifndef AF_RDS
#define AF_RDS 21
#endif

static unsigned int fails;

#define CHECK(cond, ...) do { \
		bool ok_ = (cond); \
		int e_ = errno; \
		printf(ok_ ? "ok   " : "FAIL "); \
		printf(__VA_ARGS__); \
		if (!ok_) { \
			printf(" (errno %d: %s)", e_, strerror(e_)); \
			fails++; \
		} \
		printf("\n"); \
	} while (0)

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* A call that must fail with ECONNRESET (a socket whose engine went). */
static bool
reset(ssize_t r)
{
	return r < 0 && errno == ECONNRESET;
}

static bool
recv_reset(int fd)
{
	char c;

	return reset(recv(fd, &c, 1, MSG_DONTWAIT));
}

static bool
send_reset(int fd, const char *ip, uint16_t port)
{
	struct sockaddr_in to = sin_of(ip, port);

	return reset(sendto(fd, "x", 1, 0, (struct sockaddr *)&to,
			    sizeof(to)));
}

/* poll says the socket is in error (a peer that went), at once. */
static bool
poll_err(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT };

	return poll(&p, 1, 1000) == 1 &&
	       (p.revents & (POLLERR | POLLHUP)) == (POLLERR | POLLHUP);
}

struct killer {
	pid_t pid;
	int sig;
	double t0;	/* when the signal was sent */
};

static void *
kill_later(void *arg)
{
	struct killer *k = arg;

	usleep(200000);
	k->t0 = now_ms();
	kill(k->pid, k->sig);
	return NULL;
}

static int
do_wait(const char *mode, int sig, pid_t engine, const char *ip,
	uint16_t port)
{
	struct killer k = { .pid = engine, .sig = sig };
	struct timeval tv = { .tv_sec = 10 };
	struct epoll_event ev, out;
	struct pollfd p;
	pthread_t t;
	fd_set rs;
	char c;
	int s = krds_bound(ip, port), r = 0, ep, err = 0;
	short what = 0;
	double dt;

	CHECK(s >= 0, "%s: a socket on %s:%u", mode, ip, port);
	if (s < 0)
		return 1;
	if (strcmp(mode, "rcvtimeo") == 0)
		CHECK(setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv,
				 sizeof(tv)) == 0, "SO_RCVTIMEO 10 s");
	if (strcmp(mode, "settimeout") == 0)
		CHECK(fcntl(s, F_SETFL, fcntl(s, F_GETFL) | O_NONBLOCK) == 0,
		      "O_NONBLOCK");
	ep = epoll_create1(0);
	ev.events = EPOLLIN;
	ev.data.u64 = 77;
	if (strcmp(mode, "epoll") == 0)
		CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, s, &ev) == 0, "epoll_ctl");
	if (pthread_create(&t, NULL, kill_later, &k) != 0)
		return 1;
	p.fd = s;
	p.events = POLLIN;
	p.revents = 0;
	if (strcmp(mode, "recv") == 0 || strcmp(mode, "rcvtimeo") == 0) {
		r = (int)recv(s, &c, 1, 0);
		err = errno;
	} else if (strcmp(mode, "poll") == 0 ||
		   strcmp(mode, "settimeout") == 0) {
		r = poll(&p, 1, 10000);
		what = p.revents;
	} else if (strcmp(mode, "epoll") == 0) {
		r = epoll_wait(ep, &out, 1, 10000);
		what = (short)out.events;
	} else if (strcmp(mode, "select") == 0) {
		FD_ZERO(&rs);
		FD_SET(s, &rs);
		r = select(s + 1, &rs, NULL, NULL, &tv);
		what = r == 1 && FD_ISSET(s, &rs) ? POLLIN : 0;
	} else {
		fprintf(stderr, "krds_gone: unknown mode %s\n", mode);
		return 2;
	}
	dt = now_ms() - k.t0;
	pthread_join(t, NULL);
	printf("%s, signal %d: returned %d after %.1f ms (revents 0x%x, "
	       "errno %d)\n", mode, sig, r, dt, (unsigned int)what, err);
	CHECK(dt < 1000, "%s: returns within a second of the engine's end",
	      mode);
	if (strcmp(mode, "recv") == 0 || strcmp(mode, "rcvtimeo") == 0) {
		errno = err;
		CHECK(r < 0 && err == ECONNRESET, "%s: ECONNRESET", mode);
	} else if (strcmp(mode, "poll") == 0 ||
		   strcmp(mode, "settimeout") == 0) {
		CHECK(r == 1 && ((what & (POLLERR | POLLHUP)) ==
				 (POLLERR | POLLHUP) || (what & POLLIN)),
		      "%s: POLLERR | POLLHUP (or POLLIN)", mode);
	} else if (strcmp(mode, "epoll") == 0) {
		CHECK(r == 1 && out.data.u64 == 77 &&
		      ((what & (EPOLLERR | EPOLLHUP)) ==
		       (EPOLLERR | EPOLLHUP) || (what & EPOLLIN)),
		      "epoll: EPOLLERR | EPOLLHUP (or EPOLLIN), the "
		      "program's data");
	} else {
		CHECK(r == 1 && what != 0, "select: readable");
	}
	CHECK(recv_reset(s), "%s: then recv is ECONNRESET", mode);
	CHECK(send_reset(s, ip, port), "%s: and send is ECONNRESET", mode);
	CHECK(close(s) == 0, "%s: close", mode);
	close(ep);
	return fails == 0 ? 0 : 1;
}

/* The next line of standard input must be want. */
static bool
expect(const char *want)
{
	char line[64];

	if (fgets(line, sizeof(line), stdin) == NULL)
		return false;
	line[strcspn(line, "\n")] = '\0';
	return strcmp(line, want) == 0;
}

static int
do_restart(const char *ip, uint16_t port)
{
	struct sockaddr_in me = sin_of(ip, port), from;
	struct epoll_event ev, out;
	socklen_t fl = sizeof(from);
	struct pollfd pf;
	int s1 = krds_bound(ip, port), d1, s2, s3, ep, one = 1;
	char buf[16];

	d1 = s1 < 0 ? -1 : dup(s1);
	CHECK(s1 >= 0 && d1 >= 0, "a socket on %s:%u, and a dup of it", ip,
	      port);
	if (d1 < 0)
		return 1;
	printf("READY\n");
	if (!expect("GONE"))
		return 1;
	CHECK(send_reset(s1, ip, port), "the engine went: send ECONNRESET");
	CHECK(recv_reset(s1), "the engine went: recv ECONNRESET");
	CHECK(poll_err(s1), "the engine went: poll POLLERR | POLLHUP");
	errno = 0;
	s3 = socket(AF_RDS, SOCK_SEQPACKET, 0);
	CHECK(s3 < 0 && errno == EAFNOSUPPORT, "no engine: socket() "
	      "EAFNOSUPPORT");
	if (s3 >= 0)
		close(s3);
	printf("CHECKED\n");
	if (!expect("BACK"))
		return 1;
	s2 = krds_bound(ip, port);
	CHECK(s2 >= 0, "a restarted engine: a socket on the same %s:%u", ip,
	      port);
	if (s2 < 0)
		return 1;
	CHECK(sendto(s2, "new", 3, 0, (struct sockaddr *)&me,
		     sizeof(me)) == 3 &&
	      recvfrom(s2, buf, sizeof(buf), 0, (struct sockaddr *)&from,
		       &fl) == 3 && memcmp(buf, "new", 3) == 0 &&
	      from.sin_port == me.sin_port, "the new socket sends to itself "
	      "end to end");
	pf.fd = s2;
	pf.events = POLLIN;
	CHECK(sendto(s2, "for2", 4, 0, (struct sockaddr *)&me,
		     sizeof(me)) == 4 && poll(&pf, 1, 5000) == 1 &&
	      pf.revents == POLLIN, "a message for the new socket, in");
	CHECK(recv_reset(s1) && recv_reset(d1), "the old socket and its dup "
	      "do not receive it: ECONNRESET");
	CHECK(send_reset(s1, ip, port) && send_reset(d1, ip, port),
	      "the old socket and its dup: send ECONNRESET");
	errno = 0;
	CHECK(setsockopt(s1, SOL_SOCKET, SO_RCVBUF, &one, sizeof(one)) < 0 &&
	      errno == ECONNRESET, "the old socket: setsockopt ECONNRESET");
	CHECK(poll_err(s1) && poll_err(d1), "the old socket and its dup: "
	      "poll POLLERR | POLLHUP");
	ep = epoll_create1(0);
	ev.events = EPOLLIN;
	ev.data.u64 = 5;
	CHECK(ep >= 0 && epoll_ctl(ep, EPOLL_CTL_ADD, s1, &ev) == 0 &&
	      epoll_wait(ep, &out, 1, 1000) == 1 && out.data.u64 == 5 &&
	      (out.events & (EPOLLERR | EPOLLHUP)) == (EPOLLERR | EPOLLHUP),
	      "the old socket: epoll EPOLLERR | EPOLLHUP");
	close(ep);
	CHECK(recvfrom(s2, buf, sizeof(buf), 0, NULL, NULL) == 4 &&
	      memcmp(buf, "for2", 4) == 0, "the new socket has its message");
	CHECK(close(s1) == 0 && close(d1) == 0, "close the old socket and "
	      "its dup");
	CHECK(sendto(s2, "after", 5, 0, (struct sockaddr *)&me,
		     sizeof(me)) == 5 &&
	      recv(s2, buf, sizeof(buf), 0) == 5, "the new socket works after "
	      "the old one's close");
	s3 = krds_bound(ip, port + 1);
	CHECK(s3 >= 0 && sendto(s3, "3", 1, 0, (struct sockaddr *)&me,
				sizeof(me)) == 1 &&
	      recv(s2, buf, sizeof(buf), 0) == 1, "one more socket works");
	close(s3);
	close(s2);
	printf("%s\n", fails == 0 ? "OK" : "NOT OK");
	return fails == 0 ? 0 : 1;
}

int
main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	if (argc == 7 && strcmp(argv[1], "wait") == 0)
		return do_wait(argv[2], atoi(argv[3]), (pid_t)atoi(argv[4]),
			       argv[5], (uint16_t)atoi(argv[6]));
	if (argc == 4 && strcmp(argv[1], "restart") == 0)
		return do_restart(argv[2], (uint16_t)atoi(argv[3]));
	fprintf(stderr, "usage: krds_gone wait MODE SIG ENGINE_PID IP PORT\n"
		"       krds_gone restart IP PORT\n");
	return 2;
}

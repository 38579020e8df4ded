/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * krds_api: processes and threads: a forked child keeps nothing,
 * getpeername, vfork, close racing recv and a number reused at once.
 */
#include "krds_api.h"

/*
 * A forked child that never uses RDS does not keep its parent's sockets:
 * once the parent is gone, its port is free at once, while the child
 * lives on (it held the parent's connection to the engine, and with it
 * every socket of the parent's, until it exited). On the kernel
 * (KRDS_API_KERNEL=1) the child shares the socket: the port stays bound.
 */
void
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
void
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
void
check_vfork(const char *ipb, uint16_t port, int sa)
{
	/* (Sockets made in another file: krds_bound inlined here would
	 * share this frame with the vfork child, -Wclobbered.) */
	int s = bound_elsewhere(ipb, port), pp[2], st = -1, t;
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
	t = bound_elsewhere(ipb, port + 1);
	CHECK(t >= 0 && pass_one(sa, ipb, port + 1, t), "vfork: and a new "
	      "socket (the engine's connection) too");
	close(t);
	close(s);
	close(pp[0]);
	close(pp[1]);
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
void
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
void
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

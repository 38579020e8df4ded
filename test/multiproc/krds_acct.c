/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * krds_acct: a socket's send buffer as an AF_RDS program sees it under
 * librte_rds_preload.so (suite multiproc, mp_acct.sh): what a send that
 * returned counts, what SIOCOUTQ and SIOCINQ say, and what close, or the
 * death of the sending process, cancels. Built against the kernel's
 * headers only (the kernel's RDS has no SIOCOUTQ or SIOCINQ: these checks
 * are librte_rds's).
 *
 *   krds_acct IP_A IP_B
 *
 * 1. A receiver R (IP_B) with the smallest receive buffer that never
 *    reads: 1 KiB messages from S0 until R is congested (SIOCOUTQ of S0
 *    back to 0 after each: delivered); R's SIOCINQ is 1024, one more
 *    1 KiB message from S0 stays in S0's send buffer (SIOCOUTQ 1024).
 * 2. A sender S with SO_SNDBUF 8192 sends 64-byte messages to the
 *    congested R without waiting (MSG_DONTWAIT) until EAGAIN: after each
 *    send SIOCOUTQ is exactly 64 times the sends (nothing is released),
 *    the EAGAIN comes at exactly 8192 bytes (as a local socket: a send
 *    waits while the buffer holds its size or more), poll says no
 *    POLLOUT. close(S): send_cancelled (RDS_INFO_COUNTERS) grows by
 *    exactly those messages, no more than the send buffer held.
 * 3. The same from a child process that is then killed (SIGKILL): its
 *    socket's messages are cancelled and counted as at a close.
 * 4. R reads: the S0 messages only, every one; nothing of S or the child.
 * 5. A sender with SO_SNDBUF 8192 sends 20,000 64-byte messages (blocking)
 *    to a receiver read by a thread: SIOCOUTQ never above 8192; then it
 *    waits for SIOCOUTQ 0 and closes: the reader gets all 20,000 in
 *    order, nothing is cancelled.
 * 6. The same but closed right after the burst: the reader gets a prefix
 *    in order, and what it did not get is exactly what send_cancelled
 *    counted, no more than the send buffer held (8192 / 64 messages).
 * Prints one line per check; exit 0 when all passed.
 */
#include <errno.h>
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
#include <linux/sockios.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
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

#define SNDBUF 8192
#define MSG 64
#define BURST 20000
#define WAIT_S 60	/* a bound on waits, not a speed goal */

static unsigned int fails;

#define CHECK(cond, ...) do { \
		if (cond) { \
			printf("ok   "); \
		} else { \
			printf("FAIL "); \
			fails++; \
		} \
		printf(__VA_ARGS__); \
		printf("\n"); \
		fflush(stdout); \
	} while (0)

static const char *ip_a, *ip_b;

static int
rds_sock(const char *ip, uint16_t port)
{
	struct sockaddr_in s = sin_of(ip, port);
	int fd = socket(AF_RDS, SOCK_SEQPACKET, 0);

	if (fd < 0) {
		perror("socket");
		exit(2);
	}
	if (bind(fd, (struct sockaddr *)&s, sizeof(s)) != 0) {
		perror("bind");
		exit(2);
	}
	return fd;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
outq(int fd)
{
	int v = -1;

	if (ioctl(fd, SIOCOUTQ, &v) != 0)
		return -1;
	return v;
}

/* Up to WAIT_S seconds for fd's SIOCOUTQ to read want. */
static bool
outq_wait(int fd, int want)
{
	double end = now_s() + WAIT_S;

	while (outq(fd) != want) {
		if (now_s() > end)
			return false;
		usleep(1000);
	}
	return true;
}

/* send_cancelled from RDS_INFO_COUNTERS. */
static uint64_t
cancelled(int fd)
{
	static uint8_t buf[64 << 10];
	struct rds_info_counter *c;
	socklen_t len = sizeof(buf);
	int each = getsockopt(fd, SOL_RDS, RDS_INFO_COUNTERS, buf, &len);
	socklen_t off;

	if (each <= 0) {
		perror("RDS_INFO_COUNTERS");
		exit(2);
	}
	for (off = 0; off + (socklen_t)each <= len; off += (socklen_t)each) {
		c = (struct rds_info_counter *)(buf + off);
		if (strcmp((const char *)c->name, "send_cancelled") == 0)
			return c->value;
	}
	fprintf(stderr, "no send_cancelled counter\n");
	exit(2);
}

/* Up to WAIT_S seconds for send_cancelled to reach want. */
static uint64_t
cancelled_wait(int fd, uint64_t want)
{
	double end = now_s() + WAIT_S;
	uint64_t v;

	while ((v = cancelled(fd)) < want && now_s() < end)
		usleep(2000);
	return v;
}

static void
set_int(int fd, int name, int v)
{
	if (setsockopt(fd, SOL_SOCKET, name, &v, sizeof(v)) != 0) {
		perror("setsockopt");
		exit(2);
	}
}

struct payload {
	uint32_t tag;
	uint32_t seq;
	uint8_t pad[MSG - 8];
};

/*
 * Nonblocking 64-byte sends to the congested receiver until EAGAIN,
 * SIOCOUTQ checked after each: the count, or -1 when a check failed.
 */
static int
burst_to_congested(int s, const struct sockaddr_in *to, uint32_t tag,
		   const char *who)
{
	struct payload p;
	int n = 0, bad = 0, q;

	memset(&p, 0, sizeof(p));
	p.tag = tag;
	for (;;) {
		p.seq = (uint32_t)n;
		if (sendto(s, &p, sizeof(p), MSG_DONTWAIT,
			   (const struct sockaddr *)to, sizeof(*to)) < 0)
			break;
		n++;
		q = outq(s);
		if (q != n * MSG && bad++ < 3)
			printf("     %s: SIOCOUTQ %d after %d sends\n", who, q, n);
		if (n > 4 * SNDBUF / MSG)
			break;
	}
	CHECK(errno == EAGAIN, "%s: EAGAIN once the send buffer is full "
	      "(errno %d)", who, errno);
	CHECK(bad == 0, "%s: SIOCOUTQ exactly 64 x the sends after each send "
	      "(%d wrong)", who, bad);
	CHECK(n * MSG == SNDBUF, "%s: full at exactly SO_SNDBUF: %d sends, "
	      "%d bytes, SO_SNDBUF %d", who, n, n * MSG, SNDBUF);
	return bad == 0 ? n : -1;
}

/* Part 5 and 6's reader. */
static int rd_fd;
static uint32_t rd_next[2];	/* per tag: the next seq expected */
static unsigned int rd_bad;
static volatile int rd_stop;

static void *
reader(void *arg)
{
	struct payload p;
	ssize_t n;

	(void)arg;
	while (!rd_stop) {
		n = recv(rd_fd, &p, sizeof(p), 0);
		if (n < 0)
			continue;	/* SO_RCVTIMEO */
		if (n != sizeof(p) || p.tag > 1 ||
		    p.seq != __atomic_load_n(&rd_next[p.tag],
					     __ATOMIC_RELAXED)) {
			if (rd_bad++ < 3)
				printf("     reader: got %zd bytes tag %u seq "
				       "%u\n", n, p.tag, p.seq);
			continue;
		}
		__atomic_store_n(&rd_next[p.tag], p.seq + 1,
				 __ATOMIC_RELEASE);
	}
	return NULL;
}

/* Blocking sends of BURST messages, SIOCOUTQ never above SO_SNDBUF. */
static void
burst(int s, const struct sockaddr_in *to, uint32_t tag, const char *who)
{
	struct payload p;
	int i, q, max = 0, failed = 0;

	memset(&p, 0, sizeof(p));
	p.tag = tag;
	for (i = 0; i < BURST; i++) {
		p.seq = (uint32_t)i;
		if (sendto(s, &p, sizeof(p), 0, (const struct sockaddr *)to,
			   sizeof(*to)) != sizeof(p))
			failed++;
		q = outq(s);
		if (q > max)
			max = q;
	}
	CHECK(failed == 0, "%s: %d blocking sends returned %d", who, BURST,
	      MSG);
	CHECK(max <= SNDBUF && max > 0, "%s: SIOCOUTQ at most SO_SNDBUF %d "
	      "(its largest: %d)", who, SNDBUF, max);
}

int
main(int argc, char **argv)
{
	struct sockaddr_in to_r, to_r2;
	struct pollfd pfd;
	uint8_t big[1024];
	uint64_t c0, c1;
	socklen_t sl;
	int r, s0, s, v, k, i, n, q, got, pipefd[2], status;
	pthread_t th;
	pid_t pid;

	if (argc != 3) {
		fprintf(stderr, "usage: krds_acct IP_A IP_B\n");
		return 2;
	}
	ip_a = argv[1];
	ip_b = argv[2];
	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(big, 0xab, sizeof(big));

	/* 1. A receiver that never reads, congested. */
	r = rds_sock(ip_b, 7101);
	set_int(r, SO_RCVBUF, 1);	/* the smallest there is */
	sl = sizeof(v);
	getsockopt(r, SOL_SOCKET, SO_RCVBUF, &v, &sl);
	k = v / 2 / (int)sizeof(big) + 1;	/* past it: congested */
	to_r = sin_of(ip_b, 7101);
	s0 = rds_sock(ip_a, 7100);
	for (i = 0, got = 0; i < k; i++) {
		if (sendto(s0, big, sizeof(big), 0,
			   (struct sockaddr *)&to_r, sizeof(to_r)) !=
		    sizeof(big))
			break;
		if (!outq_wait(s0, 0))
			break;
		got++;
	}
	CHECK(got == k, "S0: %d of %d 1 KiB messages delivered (SIOCOUTQ "
	      "back to 0 after each), R's buffer %d", got, k, v / 2);
	CHECK(ioctl(r, SIOCINQ, &v) == 0 && v == (int)sizeof(big),
	      "R: SIOCINQ %d, the next message's size", v);
	CHECK(sendto(s0, big, sizeof(big), 0, (struct sockaddr *)&to_r,
		     sizeof(to_r)) == sizeof(big) &&
	      outq(s0) == (int)sizeof(big),
	      "S0: a message to the congested R stays in its send buffer "
	      "(SIOCOUTQ %d)", outq(s0));

	/* 2. A burst into the congestion, then close. */
	s = rds_sock(ip_a, 7102);
	set_int(s, SO_SNDBUF, SNDBUF);
	c0 = cancelled(s);
	CHECK(outq(s) == 0, "S: SIOCOUTQ 0 before any send");
	n = burst_to_congested(s, &to_r, 0, "S");
	pfd.fd = s;
	pfd.events = POLLOUT;
	pfd.revents = 0;
	CHECK(poll(&pfd, 1, 0) == 0, "S: no POLLOUT while full");
	close(s);
	c1 = cancelled_wait(r, c0 + (uint64_t)(n > 0 ? n : 0));
	CHECK(n > 0 && c1 - c0 == (uint64_t)n && (c1 - c0) * MSG <= SNDBUF,
	      "S: close cancelled %llu messages, counted (sent and not "
	      "delivered: %d, the send buffer's %d)",
	      (unsigned long long)(c1 - c0), n, SNDBUF / MSG);

	/* 3. The same from a process that dies. */
	if (pipe(pipefd) != 0)
		return 2;
	c0 = cancelled(r);
	pid = fork();
	if (pid == 0) {
		int cs = rds_sock(ip_a, 7103), cn;

		set_int(cs, SO_SNDBUF, SNDBUF);
		cn = burst_to_congested(cs, &to_r, 1, "child");
		if (write(pipefd[1], &cn, sizeof(cn)) != sizeof(cn))
			_exit(1);
		for (;;)
			pause();
	}
	n = -1;
	if (read(pipefd[0], &n, sizeof(n)) != sizeof(n))
		n = -1;
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	c1 = cancelled_wait(r, c0 + (uint64_t)(n > 0 ? n : 0));
	CHECK(n > 0 && c1 - c0 == (uint64_t)n,
	      "child killed: its %d messages cancelled, counted (%llu)", n,
	      (unsigned long long)(c1 - c0));

	/* 4. R reads: S0's messages, nothing of S or the child. */
	{
		struct timeval tv = { .tv_sec = WAIT_S };
		uint8_t buf[2048];
		ssize_t len;
		int s0_got = 0, other = 0;

		setsockopt(r, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		for (i = 0; i < k + 1; i++) {
			len = recv(r, buf, sizeof(buf), 0);
			if (len == (ssize_t)sizeof(big))
				s0_got++;
			else if (len >= 0)
				other++;
			else
				break;
		}
		CHECK(outq_wait(s0, 0), "S0: SIOCOUTQ 0 once R read");
		while ((len = recv(r, buf, sizeof(buf), MSG_DONTWAIT)) >= 0)
			other++;
		CHECK(s0_got == k + 1 && other == 0, "R: %d of S0's %d "
		      "messages, %d others (cancelled: none)", s0_got, k + 1,
		      other);
		CHECK(ioctl(r, SIOCINQ, &v) == 0 && v == 0,
		      "R: SIOCINQ 0 when empty (%d)", v);
	}
	close(s0);

	/* 5. A burst to a reader, SIOCOUTQ waited down to 0, close. */
	rd_fd = rds_sock(ip_b, 7104);
	{
		struct timeval tv = { .tv_usec = 100000 };

		setsockopt(rd_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	to_r2 = sin_of(ip_b, 7104);
	pthread_create(&th, NULL, reader, NULL);
	s = rds_sock(ip_a, 7105);
	set_int(s, SO_SNDBUF, SNDBUF);
	c0 = cancelled(s);
	burst(s, &to_r2, 0, "S5");
	CHECK(outq_wait(s, 0), "S5: SIOCOUTQ down to 0 (all acknowledged)");
	close(s);
	{
		double end = now_s() + WAIT_S;

		while (__atomic_load_n(&rd_next[0], __ATOMIC_ACQUIRE) <
		       BURST && now_s() < end)
			usleep(2000);
	}
	c1 = cancelled(rd_fd);
	CHECK(rd_next[0] == BURST && c1 == c0, "S5: the reader got %u of %d "
	      "in order, %llu cancelled", rd_next[0], BURST,
	      (unsigned long long)(c1 - c0));

	/* 6. The same closed right after the burst. */
	s = rds_sock(ip_a, 7106);
	set_int(s, SO_SNDBUF, SNDBUF);
	c0 = cancelled(s);
	burst(s, &to_r2, 1, "S6");
	q = outq(s);
	close(s);
	{
		double end = now_s() + WAIT_S;

		while (now_s() < end) {
			c1 = cancelled(rd_fd);
			if (__atomic_load_n(&rd_next[1], __ATOMIC_ACQUIRE) +
			    (c1 - c0) >= BURST)
				break;
			usleep(2000);
		}
		usleep(200000);	/* nothing more may come */
		c1 = cancelled(rd_fd);
	}
	rd_stop = 1;
	pthread_join(th, NULL);
	CHECK(rd_next[1] + (c1 - c0) == BURST && (c1 - c0) * MSG <= SNDBUF,
	      "S6: closed with SIOCOUTQ %d: the reader got %u in order, "
	      "%llu cancelled (at most the send buffer's %d), %d in all", q,
	      rd_next[1], (unsigned long long)(c1 - c0), SNDBUF / MSG, BURST);
	CHECK(rd_bad == 0, "readers: nothing out of order or foreign (%u)",
	      rd_bad);
	close(rd_fd);
	close(r);
	printf("%s\n", fails == 0 ? "PASS" : "FAIL");
	return fails == 0 ? 0 : 1;
}

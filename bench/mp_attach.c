/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rds-bench-attach: what attaching to an engine process costs
 * (bench/mp.sh). No EAL.
 *
 *   rds-bench-attach time PATH IP [N]
 *       N times (default 200): rte_rds_attach(PATH), rte_rds_socket(),
 *       rte_rds_bind(IP:0), then close and rte_rds_detach(); prints the
 *       p50/p90/p99/max of the attach alone, of attach + socket + bind,
 *       and of the detach (CLOCK_MONOTONIC), and the one-line summary
 *       "attach_us_p50=... attach_bind_us_p50=...".
 *   rds-bench-attach hold PATH IP_A IP_B [MSGS]
 *       attach, open two sockets on IP_A and IP_B, send MSGS (default
 *       1000) 1 KiB messages from the first to the second and receive
 *       them (so that the region's buffers are in use once), print
 *       "ready" and this process's region mapping, then wait for SIGTERM
 *       and detach. mp.sh starts 32 of these and reads the engine's
 *       memory before and after.
 *   rds-bench-attach count PATH IP_A IP_B N [SIZE]
 *       attach, open two sockets on IP_A and IP_B, send N messages of
 *       SIZE bytes (default 64) from the first to the second, receiving
 *       them as they come, print the time it took, close and detach: a
 *       known number of messages through the engine, for a profile of
 *       the engine's side (callgrind on rds-engined: bench/mp-cg.sh).
 *
 * Exit status: 0, 1 on any failure, 2 on a bad command line.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <rte_errno.h>
#include <rte_rds_attach.h>
#include <rte_rds_socket.h>

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void
fail(const char *what)
{
	fprintf(stderr, "rds-bench-attach: %s: %s\n", what,
		rte_strerror(rte_errno));
	exit(1);
}

static int
open_bound(const char *ip, struct sockaddr_in *name)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(*name);
	int s;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	if (inet_pton(AF_INET, ip, &sin.sin_addr) != 1) {
		fprintf(stderr, "rds-bench-attach: bad address %s\n", ip);
		exit(2);
	}
	s = rte_rds_socket();
	if (s < 0)
		fail("rte_rds_socket");
	if (rte_rds_bind(s, (struct sockaddr *)&sin, sizeof(sin)) < 0)
		fail("rte_rds_bind");
	if (name != NULL &&
	    rte_rds_getsockname(s, (struct sockaddr *)name, &len) < 0)
		fail("rte_rds_getsockname");
	return s;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank, pct in per mille; v sorted. */
static uint64_t
pct(const uint64_t *v, unsigned int n, unsigned int pm)
{
	size_t i = ((size_t)n * pm + 999) / 1000;

	return v[i == 0 ? 0 : i - 1];
}

static void
report(const char *what, uint64_t *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	printf("%-22s p50 %7.1f us  p90 %7.1f us  p99 %7.1f us  max %7.1f us  (%u)\n",
	       what, pct(v, n, 500) / 1e3, pct(v, n, 900) / 1e3,
	       pct(v, n, 990) / 1e3, v[n - 1] / 1e3, n);
}

static int
cmd_time(const char *path, const char *ip, unsigned int n)
{
	uint64_t *att = calloc(n, sizeof(*att));
	uint64_t *bnd = calloc(n, sizeof(*bnd));
	uint64_t *det = calloc(n, sizeof(*det));
	uint64_t t0, t1, t2, t3;
	unsigned int i;
	int s;

	if (n == 0) {
		fprintf(stderr, "rds-bench-attach: N must be 1 or more\n");
		return 2;
	}
	if (att == NULL || bnd == NULL || det == NULL)
		return 1;
	for (i = 0; i < n; i++) {
		t0 = now_ns();
		if (rte_rds_attach(path) < 0)
			fail("rte_rds_attach");
		t1 = now_ns();
		s = open_bound(ip, NULL);
		t2 = now_ns();
		if (rte_rds_close(s) < 0)
			fail("rte_rds_close");
		if (rte_rds_detach() < 0)
			fail("rte_rds_detach");
		t3 = now_ns();
		att[i] = t1 - t0;
		bnd[i] = t2 - t0;
		det[i] = t3 - t2;
	}
	report("attach", att, n);
	report("attach+socket+bind", bnd, n);
	report("close+detach", det, n);
	printf("attach_us_p50=%.1f attach_bind_us_p50=%.1f detach_us_p50=%.1f\n",
	       pct(att, n, 500) / 1e3, pct(bnd, n, 500) / 1e3,
	       pct(det, n, 500) / 1e3);
	free(att);
	free(bnd);
	free(det);
	return 0;
}

static volatile sig_atomic_t stop_now;

static void
on_term(int sig)
{
	(void)sig;
	stop_now = 1;
}

static int
cmd_hold(const char *path, const char *ipa, const char *ipb,
	 unsigned int msgs)
{
	static char buf[1024], rbuf[2048];
	struct sockaddr_in dst;
	struct iovec iov;
	struct msghdr mh;
	unsigned int sent = 0, got = 0;
	char line[512];
	FILE *f;
	int a, b;

	signal(SIGTERM, on_term);
	if (rte_rds_attach(path) < 0)
		fail("rte_rds_attach");
	a = open_bound(ipa, NULL);
	b = open_bound(ipb, &dst);
	memset(buf, 0x5a, sizeof(buf));
	while (got < msgs) {
		if (sent < msgs) {
			iov.iov_base = buf;
			iov.iov_len = sizeof(buf);
			memset(&mh, 0, sizeof(mh));
			mh.msg_name = &dst;
			mh.msg_namelen = sizeof(dst);
			mh.msg_iov = &iov;
			mh.msg_iovlen = 1;
			if (rte_rds_sendmsg(a, &mh, MSG_DONTWAIT) >= 0)
				sent++;
			else if (rte_errno != EAGAIN && rte_errno != ENOBUFS)
				fail("rte_rds_sendmsg");
		}
		iov.iov_base = rbuf;
		iov.iov_len = sizeof(rbuf);
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		if (rte_rds_recvmsg(b, &mh, sent < msgs ? MSG_DONTWAIT : 0) >= 0)
			got++;
		else if (rte_errno != EAGAIN)
			fail("rte_rds_recvmsg");
	}
	/* This process's view of its region. */
	f = fopen("/proc/self/maps", "r");
	if (f != NULL) {
		while (fgets(line, sizeof(line), f) != NULL) {
			unsigned long lo, hi;

			if (strstr(line, "memfd:rds-region") != NULL &&
			    sscanf(line, "%lx-%lx", &lo, &hi) == 2)
				printf("region %lu KiB\n", (hi - lo) / 1024);
		}
		fclose(f);
	}
	printf("ready\n");
	fflush(stdout);
	while (!stop_now)
		pause();
	rte_rds_close(a);
	rte_rds_close(b);
	rte_rds_detach();
	return 0;
}

static int
cmd_count(const char *path, const char *ipa, const char *ipb,
	  unsigned int msgs, unsigned int size)
{
	static char buf[1u << 20], rbuf[1u << 20];
	struct sockaddr_in dst;
	struct iovec iov;
	struct msghdr mh;
	unsigned int sent = 0, got = 0;
	uint64_t t0, t1;
	int a, b;

	if (size > sizeof(buf)) {
		fprintf(stderr, "rds-bench-attach: SIZE is 1 MiB at most\n");
		return 2;
	}
	if (rte_rds_attach(path) < 0)
		fail("rte_rds_attach");
	a = open_bound(ipa, NULL);
	b = open_bound(ipb, &dst);
	memset(buf, 0x5a, size);
	t0 = now_ns();
	while (got < msgs) {
		if (sent < msgs) {
			iov.iov_base = buf;
			iov.iov_len = size;
			memset(&mh, 0, sizeof(mh));
			mh.msg_name = &dst;
			mh.msg_namelen = sizeof(dst);
			mh.msg_iov = &iov;
			mh.msg_iovlen = 1;
			if (rte_rds_sendmsg(a, &mh, MSG_DONTWAIT) >= 0)
				sent++;
			else if (rte_errno != EAGAIN && rte_errno != ENOBUFS)
				fail("rte_rds_sendmsg");
		}
		iov.iov_base = rbuf;
		iov.iov_len = sizeof(rbuf);
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		if (rte_rds_recvmsg(b, &mh, sent < msgs ? MSG_DONTWAIT : 0) >= 0)
			got++;
		else if (rte_errno != EAGAIN)
			fail("rte_rds_recvmsg");
	}
	t1 = now_ns();
	printf("count %u msgs of %u B: %.3f s, %.0f msgs/s\n", msgs, size,
	       (t1 - t0) / 1e9, msgs / ((t1 - t0) / 1e9));
	rte_rds_close(a);
	rte_rds_close(b);
	rte_rds_detach();
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "time") == 0)
		return cmd_time(argv[2], argv[3],
				argc > 4 ? (unsigned int)atoi(argv[4]) : 200);
	if (argc >= 5 && strcmp(argv[1], "hold") == 0)
		return cmd_hold(argv[2], argv[3], argv[4],
				argc > 5 ? (unsigned int)atoi(argv[5]) : 1000);
	if (argc >= 6 && strcmp(argv[1], "count") == 0)
		return cmd_count(argv[2], argv[3], argv[4],
				 (unsigned int)atoi(argv[5]),
				 argc > 6 ? (unsigned int)atoi(argv[6]) : 64);
	fprintf(stderr, "usage: %s time PATH IP [N] | hold PATH IP_A IP_B "
		"[MSGS] | count PATH IP_A IP_B N [SIZE]\n", argv[0]);
	return 2;
}

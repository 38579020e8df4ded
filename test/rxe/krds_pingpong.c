/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * krds_pingpong: round-trip time of the KERNEL's RDS (AF_RDS), for
 * comparison with rds-perf over librte_rds (test/rxe/bench-ib.sh). Needs
 * the rds and rds_rdma modules; no DPDK, no librte_rds.
 *
 *   krds_pingpong server LOCAL [options]
 *   krds_pingpong client LOCAL PEER [options]
 *
 *   --port N       the server's RDS port (default 18001)
 *   --size N       request payload, 8..1048576 bytes (default 64)
 *   --iters N      measured round trips (default 5000)
 *   --warmup N     round trips before measuring (default 200)
 *   --busy         receive with MSG_DONTWAIT in a loop instead of blocking
 *   --tcp          pin RDS_TRANS_TCP instead of RDS_TRANS_IB
 *   --no-pin       pin no transport (the kernel picks; e.g. loop addresses
 *                  of rds-engined under librte_rds_preload.so)
 *   --wait S       server: give up when no message comes for S s; client:
 *                  when the server does not answer the first request
 *                  within S s (default 30); later replies: 10 s
 *
 * Both sockets pin their transport with SO_RDS_TRANSPORT before bind
 * (RDS_TRANS_IB by default): with two local addresses the kernel would
 * otherwise be free to pick its loopback path. The client sends one request
 * at a time; each carries a sequence number in its first 8 bytes, and the
 * server echoes it. Until the first reply, the client repeats the request
 * once a second (the server may not be bound yet; the kernel drops
 * messages to an unbound port). The client ends with a 0-byte message,
 * on which the server exits. RTT runs from before sendto() to after the
 * recvfrom() that returns the reply (CLOCK_MONOTONIC).
 *
 * Output (client): the same labels as rds-perf ("rtt p50:      N ns").
 * Exit status: 0, 1 on any failure, 2 on a bad command line.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <linux/rds.h>

#ifndef AF_RDS
#define AF_RDS 21
#endif
#ifndef SOL_RDS
#define SOL_RDS 276
#endif

#define KRDS_MAX_SIZE (1u << 20)
#define KRDS_REPLY_WAIT_S 10

struct krds_opts {
	bool server;
	const char *local;
	const char *peer;
	uint16_t port;
	uint32_t size;
	uint32_t iters;
	uint32_t warmup;
	bool busy;
	int trans;
	double wait;
};

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
die(const char *what)
{
	fprintf(stderr, "krds_pingpong: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void
usage(void)
{
	fprintf(stderr,
		"usage: krds_pingpong server LOCAL [options]\n"
		"       krds_pingpong client LOCAL PEER [options]\n"
		"options: --port N (18001) --size N (64) --iters N (5000)\n"
		"         --warmup N (200) --busy --tcp --wait S (30)\n");
	exit(2);
}

static struct sockaddr_in
sin_of(const char *ip, uint16_t port)
{
	struct sockaddr_in sin;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	if (inet_pton(AF_INET, ip, &sin.sin_addr) != 1) {
		fprintf(stderr, "krds_pingpong: bad IPv4 address '%s'\n", ip);
		exit(2);
	}
	return sin;
}

/* An RDS socket pinned to o->trans, bound to ip:port, with buffers
 * for a few messages and a receive timeout (blocking mode). */
static int
krds_socket(const struct krds_opts *o, const char *ip, uint16_t port)
{
	struct sockaddr_in sin = sin_of(ip, port);
	int buf = (int)(4 * o->size + 65536);
	int s = socket(AF_RDS, SOCK_SEQPACKET, 0);

	if (s < 0)
		die("socket(AF_RDS) (is the rds module loaded?)");
	if (o->trans >= 0 &&
	    setsockopt(s, SOL_RDS, SO_RDS_TRANSPORT, &o->trans,
		       sizeof(o->trans)) < 0)
		die("setsockopt(SO_RDS_TRANSPORT)");
	if (buf < 212992)
		buf = 212992;
	if (setsockopt(s, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf)) < 0 ||
	    setsockopt(s, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf)) < 0)
		die("setsockopt(SO_SNDBUF/SO_RCVBUF)");
	if (bind(s, (struct sockaddr *)&sin, sizeof(sin)) < 0)
		die(o->trans == RDS_TRANS_IB ?
		    "bind (with RDS_TRANS_IB: is rds_rdma loaded, is the address on an RDMA device?)" :
		    "bind");
	return s;
}

static void
set_rcvtimeo(int s, double secs)
{
	struct timeval tv;

	tv.tv_sec = (time_t)secs;
	tv.tv_usec = (suseconds_t)((secs - (double)tv.tv_sec) * 1e6);
	if (setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		die("setsockopt(SO_RCVTIMEO)");
}

/* Receive one message: blocking (SO_RCVTIMEO), or busy-polling with a
 * deadline. -1 with errno EAGAIN on timeout. */
static ssize_t
krds_recv(const struct krds_opts *o, int s, void *buf, size_t len,
	  struct sockaddr_in *from, double secs)
{
	socklen_t flen = sizeof(*from);
	uint64_t end;
	ssize_t n;

	if (!o->busy) {
		n = recvfrom(s, buf, len, 0, (struct sockaddr *)from, &flen);
		/* SO_RCVTIMEO expired: the kernel's rds_recvmsg says
		 * ETIMEDOUT (not EAGAIN as most sockets do); the callers'
		 * "nothing came in time" is EAGAIN. */
		if (n < 0 && (errno == EWOULDBLOCK || errno == ETIMEDOUT))
			errno = EAGAIN;
		return n;
	}
	end = now_ns() + (uint64_t)(secs * 1e9);
	for (;;) {
		flen = sizeof(*from);
		n = recvfrom(s, buf, len, MSG_DONTWAIT,
			     (struct sockaddr *)from, &flen);
		if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
			return n;
		if (now_ns() > end) {
			errno = EAGAIN;
			return -1;
		}
	}
}

static int
run_server(const struct krds_opts *o)
{
	uint8_t *buf = malloc(KRDS_MAX_SIZE + 64);
	struct sockaddr_in from;
	uint64_t n_req = 0;
	ssize_t n;
	int s;

	if (buf == NULL)
		die("malloc");
	s = krds_socket(o, o->local, o->port);
	set_rcvtimeo(s, o->wait);
	printf("krds_pingpong: server %s:%u (%s) ready\n", o->local, o->port,
	       o->trans == RDS_TRANS_IB ? "RDS_TRANS_IB" : o->trans < 0 ? "no pinned transport" : "RDS_TRANS_TCP");
	fflush(stdout);
	for (;;) {
		n = krds_recv(o, s, buf, KRDS_MAX_SIZE + 64, &from, o->wait);
		if (n < 0) {
			if (errno == EAGAIN)
				fprintf(stderr, "krds_pingpong: server: no message for %.0f s\n",
					o->wait);
			else
				perror("krds_pingpong: server: recvfrom");
			return 1;
		}
		if (n == 0)
			break;
		for (;;) {
			if (sendto(s, buf, (size_t)n, 0,
				   (struct sockaddr *)&from,
				   sizeof(from)) == n)
				break;
			if (errno != ENOBUFS && errno != EAGAIN)
				die("server: sendto");
		}
		n_req++;
	}
	printf("krds_pingpong: server: %" PRIu64 " requests answered, done\n",
	       n_req);
	close(s);
	free(buf);
	return 0;
}

static int
u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t
pct(const uint64_t *v, size_t n, unsigned int per10k)
{
	size_t rank = (n * per10k + 9999) / 10000;

	return v[rank == 0 ? 0 : rank - 1];
}

static int
run_client(const struct krds_opts *o)
{
	const uint32_t total = o->warmup + o->iters;
	struct sockaddr_in to = sin_of(o->peer, o->port), from;
	uint8_t *tx = calloc(1, o->size), *rx = malloc(o->size + 64);
	uint64_t *rtt = calloc(o->iters, sizeof(*rtt));
	uint64_t t0, t1, got, sum = 0, stale = 0, setup0, t_meas0 = 0;
	unsigned int resent = 0;
	double secs;
	uint32_t i;
	ssize_t n;
	int s;

	if (tx == NULL || rx == NULL || rtt == NULL)
		die("malloc");
	for (i = 0; i < o->size; i++)
		tx[i] = (uint8_t)(i * 7 + 1);
	s = krds_socket(o, o->local, 0);

	setup0 = now_ns();
	for (i = 0; i < total; i++) {
		uint64_t seq = i;

		if (i == o->warmup)
			t_meas0 = now_ns();
		memcpy(tx, &seq, sizeof(seq));
		if (i <= 1)
			set_rcvtimeo(s, i == 0 ? 1.0 : KRDS_REPLY_WAIT_S);
resend:
		t0 = now_ns();
		while (sendto(s, tx, o->size, 0, (struct sockaddr *)&to,
			      sizeof(to)) != (ssize_t)o->size) {
			if (errno != ENOBUFS && errno != EAGAIN)
				die("client: sendto");
		}
		for (;;) {
			n = krds_recv(o, s, rx, o->size + 64, &from,
				      i == 0 ? 1.0 : KRDS_REPLY_WAIT_S);
			t1 = now_ns();
			if (n < 0 && errno == EAGAIN && i == 0 &&
			    t1 - setup0 < (uint64_t)(o->wait * 1e9)) {
				resent++;
				goto resend;
			}
			if (n < 0) {
				if (errno == EAGAIN)
					fprintf(stderr, "krds_pingpong: client: no reply to request %u within %.0f s\n",
						i, i == 0 ? o->wait :
						(double)KRDS_REPLY_WAIT_S);
				else
					perror("krds_pingpong: client: recvfrom");
				return 1;
			}
			if (n != (ssize_t)o->size) {
				fprintf(stderr, "krds_pingpong: client: %zd-byte reply, expected %u\n",
					n, o->size);
				return 1;
			}
			memcpy(&got, rx, sizeof(got));
			if (got == seq)
				break;
			if (got > seq) {
				fprintf(stderr, "krds_pingpong: client: reply %" PRIu64 " to request %" PRIu64 "\n",
					got, seq);
				return 1;
			}
			stale++;	/* an answer to a repeated first request */
		}
		if (i == 0)
			printf("krds_pingpong: first reply after %.1f ms (request sent %u times; connection set-up included, not measured)\n",
			       (double)(t1 - setup0) / 1e6, resent + 1);
		if (i >= o->warmup) {
			rtt[i - o->warmup] = t1 - t0;
			sum += t1 - t0;
		}
	}
	secs = (double)(now_ns() - t_meas0) / 1e9;
	/* done: a 0-byte message */
	if (sendto(s, tx, 0, 0, (struct sockaddr *)&to, sizeof(to)) != 0)
		die("client: sendto(done)");

	qsort(rtt, o->iters, sizeof(*rtt), u64_cmp);
	printf("transport:    kernel AF_RDS %s (client %s, server %s:%u)\n",
	       o->trans == RDS_TRANS_IB ? "RDS_TRANS_IB" : o->trans < 0 ? "no pinned transport" : "RDS_TRANS_TCP",
	       o->local, o->peer, o->port);
	printf("receive:      %s\n", o->busy ? "busy-poll (MSG_DONTWAIT)" :
	       "blocking");
	printf("size:         %u bytes\n", o->size);
	printf("msgs:         %u round trips (after %u warm-up)\n", o->iters,
	       o->warmup);
	printf("msgs/s:       %.1f (round trips/s)\n", (double)o->iters / secs);
	printf("rtt p50:      %" PRIu64 " ns\n", pct(rtt, o->iters, 5000));
	printf("rtt p99:      %" PRIu64 " ns\n", pct(rtt, o->iters, 9900));
	printf("rtt p99.9:    %" PRIu64 " ns\n", pct(rtt, o->iters, 9990));
	printf("rtt min:      %" PRIu64 " ns\n", rtt[0]);
	printf("rtt max:      %" PRIu64 " ns\n", rtt[o->iters - 1]);
	printf("rtt mean:     %.0f ns\n", (double)sum / o->iters);
	printf("stale:        %" PRIu64 " (answers to a repeated first request)\n",
	       stale);
	/* let the done message leave before the socket goes */
	{
		struct timespec ts = { 0, 100 * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
	close(s);
	free(rtt);
	free(rx);
	free(tx);
	return 0;
}

static uint32_t
parse_u32(const char *s, uint32_t min, uint32_t max, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < min || v > max) {
		fprintf(stderr, "krds_pingpong: %s must be %u..%u\n", what, min,
			max);
		exit(2);
	}
	return (uint32_t)v;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "size", required_argument, NULL, 's' },
		{ "iters", required_argument, NULL, 'n' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "busy", no_argument, NULL, 'b' },
		{ "tcp", no_argument, NULL, 't' },
		{ "no-pin", no_argument, NULL, 'N' },
		{ "wait", required_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct krds_opts o = {
		.port = 18001, .size = 64, .iters = 5000, .warmup = 200,
		.trans = RDS_TRANS_IB, .wait = 30,
	};
	char *end;
	int opt;

	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			o.port = (uint16_t)parse_u32(optarg, 1, 65535, "--port");
			break;
		case 's':
			o.size = parse_u32(optarg, 8, KRDS_MAX_SIZE, "--size");
			break;
		case 'n':
			o.iters = parse_u32(optarg, 1, 100000000, "--iters");
			break;
		case 'w':
			o.warmup = parse_u32(optarg, 1, 100000000, "--warmup");
			break;
		case 'b':
			o.busy = true;
			break;
		case 't':
			o.trans = RDS_TRANS_TCP;
			break;
		case 'N':
			o.trans = -1;
			break;
		case 'W':
			errno = 0;
			o.wait = strtod(optarg, &end);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    !(o.wait >= 1 && o.wait <= 3600)) {
				fprintf(stderr, "krds_pingpong: --wait must be 1..3600\n");
				return 2;
			}
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 2 && strcmp(argv[0], "server") == 0) {
		o.server = true;
		o.local = argv[1];
	} else if (argc == 3 && strcmp(argv[0], "client") == 0) {
		o.local = argv[1];
		o.peer = argv[2];
	} else {
		usage();
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	return o.server ? run_server(&o) : run_client(&o);
}

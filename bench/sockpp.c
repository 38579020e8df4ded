/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Kernel sockets, the reference of bench/compare.sh: a ping-pong (lat)
 * or a one-way stream of fixed-size messages over UDP or TCP between two
 * processes, receiving either blocking or busy-polling (non-blocking
 * recv in a loop, plus SO_BUSY_POLL where the kernel allows it).
 *
 *   rds-bench-sockpp --role server --local IP [--port N] [--cpu C]
 *   rds-bench-sockpp --role client --local IP --peer IP [--port N]
 *                    [--cpu C] [--proto udp|tcp] [--mode lat|stream]
 *                    [--size B] [--secs S] [--busy] [--json]
 *                    [--histogram FILE]
 *
 * The client connects a TCP control connection to the server's --port
 * and sends the run's parameters; the server opens the data socket on
 * port + 1 (UDP bound, or TCP listening), says it is ready, serves one
 * run and exits. lat: the client sends --size bytes, the server sends
 * them back; each full round trip is timed (clock_gettime(CLOCK_MONOTONIC))
 * after a 200 ms warm-up, and p50/p90/p99/p99.9/max printed. stream: the
 * client sends for --secs; the server counts the messages that arrive
 * (UDP: datagrams; TCP: bytes / size) between the first and the end mark
 * (UDP: an empty datagram, sent until the server answers; TCP: the
 * client's shutdown) and reports them over the control connection.
 *
 * --json prints one line with rds-perf's keys where they mean the same
 * (mode, size, msgs, msgs_per_s, mb_per_s, sent_*, rtt_ns_*, errors) and
 * "transport":"kernel", "proto", "busy_poll". --histogram FILE writes the
 * RTT CDF in rds-perf --histogram's format (ns, fraction).
 * A UDP request or reply lost in lat mode is counted in "errors" and
 * sent again after 100 ms.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#define MAX_SIZE (1 << 20)
#define UDP_MAX 65507
#define MAX_SAMPLES (16u << 20)
#define WARMUP_NS 200000000ULL
#define LOSS_NS 100000000ULL

/* What the client asks for, sent over the control connection. */
struct pp_req {
	uint32_t tcp;
	uint32_t stream;
	uint32_t size;
	uint32_t busy;
};

/* What the server reports at the end of a stream. */
struct pp_rep {
	uint64_t msgs;
	uint64_t ns;
};

static void
die(const char *what)
{
	fprintf(stderr, "rds-bench-sockpp: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

static struct sockaddr_in
sin_of(const char *ip, uint16_t port)
{
	struct sockaddr_in s;

	memset(&s, 0, sizeof(s));
	s.sin_family = AF_INET;
	s.sin_port = htons(port);
	if (inet_pton(AF_INET, ip, &s.sin_addr) != 1) {
		fprintf(stderr, "rds-bench-sockpp: bad address %s\n", ip);
		exit(2);
	}
	return s;
}

/* All of len bytes over a stream socket (the control connection). */
static void
full_io(int fd, void *p, size_t len, bool out)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = out ? send(fd, (char *)p + done, len - done, MSG_NOSIGNAL) :
			  recv(fd, (char *)p + done, len - done, 0);
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (n == 0)
				errno = ECONNRESET;
			die(out ? "control send" : "control recv");
		}
		done += (size_t)n;
	}
}

/* Busy mode: the socket non-blocking and, where allowed, SO_BUSY_POLL
 * (the kernel polls the device's queue in recv; no effect on loopback
 * and veth, which have no NAPI queue to poll, but the spin stays). */
static void
set_busy(int fd)
{
	int us = 50;

	if (setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &us, sizeof(us)) != 0 &&
	    errno != EPERM && errno != ENOPROTOOPT)
		die("SO_BUSY_POLL");
}

/* One recv of up to len bytes: blocking, or spinning on MSG_DONTWAIT
 * until something arrives or deadline (0: none) passes (returns -1,
 * errno EAGAIN). */
static ssize_t
rx(int fd, void *p, size_t len, bool busy, uint64_t deadline)
{
	ssize_t n;

	for (;;) {
		n = recv(fd, p, len, busy ? MSG_DONTWAIT : 0);
		if (n >= 0)
			return n;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -1;
		if (!busy || (deadline != 0 && now_ns() > deadline))
			return -1;
	}
}

/* A whole message of len bytes: one datagram, or len bytes of a stream.
 * 0, or -1 (lost: timeout; or the peer closed: errno ECONNRESET). */
static int
rx_msg(int fd, void *p, size_t len, bool tcp, bool busy, uint64_t deadline)
{
	size_t done = 0;
	ssize_t n;

	do {
		n = rx(fd, (char *)p + done, tcp ? len - done : len, busy,
		       deadline);
		if (n < 0)
			return -1;
		if (n == 0 && tcp) {
			errno = ECONNRESET;
			return -1;
		}
		done += (size_t)n;
	} while (tcp && done < len);
	return 0;
}

static void
tx_msg(int fd, const void *p, size_t len)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = send(fd, (const char *)p + done, len - done, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN ||
			    errno == ENOBUFS)
				continue;
			die("send");
		}
		done += (size_t)n;
	}
}

static void
pin(int cpu)
{
	cpu_set_t s;

	if (cpu < 0)
		return;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	if (sched_setaffinity(0, sizeof(s), &s) != 0)
		die("sched_setaffinity");
}

/* The data socket of either side: UDP bound to local and connected to
 * peer; TCP connected (client) or accepted (server, from lfd). */
static int
data_sock(const struct pp_req *q, const struct sockaddr_in *local,
	  const struct sockaddr_in *peer, int lfd)
{
	int fd, one = 1, buf = 4 << 20;

	if (q->tcp && lfd >= 0) {
		fd = accept(lfd, NULL, NULL);
	} else {
		fd = socket(AF_INET, q->tcp ? SOCK_STREAM : SOCK_DGRAM, 0);
		if (fd < 0)
			die("socket");
		if (!q->tcp && bind(fd, (const struct sockaddr *)local,
				    sizeof(*local)) != 0)
			die("bind");
		if (peer != NULL && connect(fd, (const struct sockaddr *)peer,
					    sizeof(*peer)) != 0)
			die("connect");
	}
	if (fd < 0)
		die("accept");
	if (q->tcp)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	if (q->busy)
		set_busy(fd);
	return fd;
}

static int
server(const char *local, uint16_t port)
{
	struct sockaddr_in la = sin_of(local, port), da = sin_of(local, port + 1);
	struct sockaddr_in from;
	socklen_t flen = sizeof(from);
	struct pp_req q;
	struct pp_rep rep = { 0, 0 };
	int lfd, cfd, dlfd = -1, fd, one = 1;
	uint64_t t0 = 0, t1 = 0, bytes = 0;
	uint8_t *buf = malloc(MAX_SIZE);
	ssize_t n;

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (buf == NULL || lfd < 0)
		die("socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&la, sizeof(la)) != 0 ||
	    listen(lfd, 1) != 0)
		die("control bind/listen");
	cfd = accept(lfd, NULL, NULL);
	if (cfd < 0)
		die("control accept");
	full_io(cfd, &q, sizeof(q), false);
	if (q.size > MAX_SIZE)
		q.size = MAX_SIZE;
	if (q.tcp) {
		dlfd = socket(AF_INET, SOCK_STREAM, 0);
		if (dlfd < 0)
			die("socket");
		setsockopt(dlfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(dlfd, (struct sockaddr *)&da, sizeof(da)) != 0 ||
		    listen(dlfd, 1) != 0)
			die("data bind/listen");
		full_io(cfd, &one, sizeof(one), true);	/* ready */
		fd = data_sock(&q, NULL, NULL, dlfd);
	} else {
		fd = data_sock(&q, &da, NULL, -1);
		full_io(cfd, &one, sizeof(one), true);	/* ready */
	}
	for (;;) {
		if (q.stream) {
			n = rx(fd, buf, q.tcp ? MAX_SIZE : q.size, q.busy, 0);
			if (n < 0 && errno != ECONNRESET)
				die("recv");
			if (n <= 0)
				break;	/* the end mark, or TCP's EOF */
			t1 = now_ns();
			if (t0 == 0)
				t0 = t1;
			bytes += (uint64_t)n;
			rep.msgs += q.tcp ? 0 : 1;
			continue;
		}
		if (q.tcp) {
			if (rx_msg(fd, buf, q.size, true, q.busy, 0) != 0)
				break;
			tx_msg(fd, buf, q.size);
			continue;
		}
		n = q.busy ? -1 : recvfrom(fd, buf, q.size, 0,
					   (struct sockaddr *)&from, &flen);
		while (n < 0) {
			n = recvfrom(fd, buf, q.size, q.busy ? MSG_DONTWAIT : 0,
				     (struct sockaddr *)&from, &flen);
			if (n < 0 && errno != EAGAIN && errno != EINTR)
				die("recvfrom");
		}
		if (n == 0)
			break;
		if (sendto(fd, buf, (size_t)n, 0, (struct sockaddr *)&from,
			   flen) < 0)
			die("sendto");
	}
	if (q.stream) {
		if (q.tcp)
			rep.msgs = bytes / q.size;
		rep.ns = t1 - t0;
		full_io(cfd, &rep, sizeof(rep), true);
	}
	close(fd);
	close(cfd);
	close(lfd);
	if (dlfd >= 0)
		close(dlfd);
	free(buf);
	return 0;
}

static int
cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

/* The RTT CDF, as rds-perf --histogram writes it: about 2,000 points,
 * every point of the last 1 %. */
static void
write_cdf(const char *path, const uint32_t *v, size_t n, const struct pp_req *q)
{
	FILE *f = fopen(path, "w");
	size_t i, last = 0, body = n / 2000 > 0 ? n / 2000 : 1, step;

	if (f == NULL)
		die(path);
	fprintf(f, "# rds-bench-sockpp RTT CDF: ns (full round trip), fraction of round trips <= ns\n");
	fprintf(f, "# size %u, %s %s, %zu samples\n", q->size,
		q->tcp ? "tcp" : "udp", q->busy ? "busy-poll" : "blocking", n);
	for (i = 0; i < n; i++) {
		if (i + 1 < n) {
			if (v[i + 1] == v[i])
				continue;
			step = n - i > n / 100 ? body : ((n - i) / 200 ? (n - i) / 200 : 1);
			if (i + 1 - last < step)
				continue;
		}
		last = i + 1;
		fprintf(f, "%u %.7f\n", v[i], (double)(i + 1) / (double)n);
	}
	fprintf(f, "\n\n");
	fclose(f);
}

struct cli {
	struct pp_req q;
	const char *local, *peer, *hist;
	uint16_t port;
	double secs;
	bool json;
};

static int
client(const struct cli *c)
{
	const struct pp_req *q = &c->q;
	struct sockaddr_in ca = sin_of(c->peer, c->port);
	struct sockaddr_in la = sin_of(c->local, 0);
	struct sockaddr_in da = sin_of(c->peer, c->port + 1);
	struct pp_rep rep = { 0, 0 };
	uint8_t *buf = calloc(1, MAX_SIZE);
	uint32_t *v = NULL;
	uint64_t t0, t1, start, end, sent = 0, errs = 0, wall;
	size_t n = 0;
	int cfd, fd, ready, tries;
	double secs, mps;

	cfd = socket(AF_INET, SOCK_STREAM, 0);
	if (buf == NULL || cfd < 0)
		die("socket");
	for (tries = 0; connect(cfd, (struct sockaddr *)&ca, sizeof(ca)) != 0;
	     tries++) {
		if (tries > 100)
			die("control connect");
		usleep(50000);
	}
	full_io(cfd, (void *)q, sizeof(*q), true);
	full_io(cfd, &ready, sizeof(ready), false);
	fd = data_sock(q, q->tcp ? NULL : &la, &da, -1);
	if (!q->tcp && !q->busy) {
		/* a lost datagram: give up on it after LOSS_NS */
		struct timeval tv = { 0, LOSS_NS / 1000 };

		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	if (!q->stream) {
		v = malloc(MAX_SAMPLES * sizeof(*v));
		if (v == NULL)
			die("malloc");
	}
	start = now_ns();
	end = start + WARMUP_NS + (uint64_t)(c->secs * 1e9);
	for (t0 = start; t0 < end; ) {
		if (q->stream) {
			tx_msg(fd, buf, q->size);
			/* (the clock once every 64 messages) */
			if ((++sent & 63) == 0)
				t0 = now_ns();
			continue;
		}
		tx_msg(fd, buf, q->size);
		if (rx_msg(fd, buf, q->size, q->tcp, q->busy,
			   q->busy && !q->tcp ? t0 + LOSS_NS : 0) != 0) {
			if (q->tcp || (errno != EAGAIN && errno != EWOULDBLOCK))
				die("recv");
			errs++;		/* lost: send it again */
			t0 = now_ns();
			continue;
		}
		t1 = now_ns();
		if (t0 >= start + WARMUP_NS && n < MAX_SAMPLES) {
			v[n++] = (uint32_t)(t1 - t0 > UINT32_MAX ? UINT32_MAX : t1 - t0);
			sent++;
		}
		t0 = t1;
	}
	wall = now_ns() - start;
	if (q->stream) {
		if (q->tcp) {
			shutdown(fd, SHUT_WR);
		} else {
			struct timeval tv = { 0, 20000 };

			setsockopt(cfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		}
		/* UDP: the end mark until the server answers. */
		for (;;) {
			ssize_t r;

			if (!q->tcp && send(fd, buf, 0, 0) < 0 && errno != ENOBUFS &&
			    errno != ECONNREFUSED)
				die("send end mark");
			r = recv(cfd, &rep, sizeof(rep), MSG_WAITALL);
			if (r == (ssize_t)sizeof(rep))
				break;
			if (r >= 0 || (errno != EAGAIN && errno != EINTR))
				die("control recv");
		}
	} else {
		if (q->tcp)
			shutdown(fd, SHUT_WR);
		else
			send(fd, buf, 0, 0);
	}
	secs = q->stream ? (double)rep.ns / 1e9 : (double)(wall - WARMUP_NS) / 1e9;
	if (secs <= 0)
		secs = 1e-9;
	mps = (q->stream ? (double)rep.msgs : (double)n) / secs;
	if (!q->stream) {
		qsort(v, n, sizeof(*v), cmp_u32);
		if (n == 0)
			v[n++] = 0;
	}
#define PCT(p) (v[(size_t)((double)(n - 1) * (p))])
	if (!c->json) {
		if (q->stream)
			printf("%s %s %u B stream: %.0f msgs/s received (%" PRIu64
			       " msgs), %.1f MB/s; sent %" PRIu64 "\n",
			       q->tcp ? "tcp" : "udp",
			       q->busy ? "busy" : "blocking", q->size, mps,
			       rep.msgs, mps * q->size / 1e6, sent);
		else
			printf("%s %s %u B lat: %zu round trips, RTT p50 %u p99 %u"
			       " max %u ns, errors %" PRIu64 "\n",
			       q->tcp ? "tcp" : "udp",
			       q->busy ? "busy" : "blocking", q->size, n,
			       PCT(0.5), PCT(0.99), v[n - 1], errs);
	}
	if (c->json) {
		printf("{\"transport\":\"kernel\",\"proto\":\"%s\",\"busy_poll\":%s,"
		       "\"mode\":\"%s\",\"size\":%u,\"msgs\":%" PRIu64
		       ",\"msgs_per_s\":%.1f,\"mb_per_s\":%.3f",
		       q->tcp ? "tcp" : "udp", q->busy ? "true" : "false",
		       q->stream ? "stream" : "lat", q->size,
		       q->stream ? rep.msgs : (uint64_t)n, mps,
		       mps * q->size / 1e6);
		if (q->stream)
			printf(",\"sent_msgs\":%" PRIu64 ",\"sent_msgs_per_s\":%.1f"
			       ",\"sent_mb_per_s\":%.3f", sent,
			       (double)sent / ((double)wall / 1e9),
			       (double)sent * q->size / ((double)wall / 1e3));
		else
			printf(",\"rtt_ns_p50\":%u,\"rtt_ns_p90\":%u,\"rtt_ns_p99\":%u"
			       ",\"rtt_ns_p999\":%u,\"rtt_ns_max\":%u",
			       PCT(0.5), PCT(0.9), PCT(0.99), PCT(0.999),
			       v[n - 1]);
		printf(",\"errors\":%" PRIu64 "}\n", errs);
	}
	if (c->hist != NULL && !q->stream)
		write_cdf(c->hist, v, n, q);
	close(fd);
	close(cfd);
	free(v);
	free(buf);
	return 0;
}

static void
usage(void)
{
	fprintf(stderr,
		"usage: rds-bench-sockpp --role server|client --local IP [--peer IP]\n"
		"         [--port N] [--cpu C] [--proto udp|tcp] [--mode lat|stream]\n"
		"         [--size B] [--secs S] [--busy] [--json] [--histogram FILE]\n"
		"  (UDP sizes up to %u, TCP up to %u)\n", UDP_MAX, MAX_SIZE);
	exit(2);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "role", required_argument, NULL, 'r' },
		{ "local", required_argument, NULL, 'l' },
		{ "peer", required_argument, NULL, 'p' },
		{ "port", required_argument, NULL, 'P' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "proto", required_argument, NULL, 't' },
		{ "mode", required_argument, NULL, 'm' },
		{ "size", required_argument, NULL, 's' },
		{ "secs", required_argument, NULL, 'S' },
		{ "busy", no_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ "histogram", required_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli c = { .q = { 0, 0, 64, 0 }, .port = 18700, .secs = 2 };
	const char *role = NULL;
	int opt, cpu = -1;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'r': role = optarg; break;
		case 'l': c.local = optarg; break;
		case 'p': c.peer = optarg; break;
		case 'P': c.port = (uint16_t)strtoul(optarg, NULL, 0); break;
		case 'c': cpu = atoi(optarg); break;
		case 't':
			if (strcmp(optarg, "udp") != 0 && strcmp(optarg, "tcp") != 0)
				usage();
			c.q.tcp = strcmp(optarg, "tcp") == 0;
			break;
		case 'm':
			if (strcmp(optarg, "lat") != 0 && strcmp(optarg, "stream") != 0)
				usage();
			c.q.stream = strcmp(optarg, "stream") == 0;
			break;
		case 's': c.q.size = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'S': c.secs = atof(optarg); break;
		case 'b': c.q.busy = 1; break;
		case 'j': c.json = true; break;
		case 'h': c.hist = optarg; break;
		default: usage();
		}
	}
	if (role == NULL || c.local == NULL || c.secs <= 0 || c.q.size == 0 ||
	    c.q.size > (c.q.tcp ? MAX_SIZE : UDP_MAX) ||
	    (strcmp(role, "client") == 0 && c.peer == NULL))
		usage();
	pin(cpu);
	if (strcmp(role, "server") == 0)
		return server(c.local, c.port);
	if (strcmp(role, "client") != 0)
		usage();
	return client(&c);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The core's per-message cost, through the public API as any program
 * uses it: one socket pair over the loop transport, one inline engine,
 * a loop of rte_rds_sendto (64 B) + rte_rds_engine_poll +
 * rte_rds_recvfrom. Optionally with many idle bound sockets and idle
 * connections around, which must cost nothing.
 *
 *   rds-bench-core [EAL args] -- [--msgs N] [--idle-socks K]
 *                  [--idle-conns] [--peers P] [--size B] [--runs R]
 *
 * The measured loop is bench_loop(): run under
 * valgrind --tool=callgrind --toggle-collect=bench_loop to count its
 * instructions (bench/core.sh does, for N and 2N messages). Without
 * valgrind it prints, as one JSON line, the median and the best time per
 * message over the runs, and beside them the floor measured in the same
 * runs: floor_loop(), the same loop shape without RDS (the payload copied
 * into a message, its pointer through an SP/SC rte_ring and back, the
 * payload copied out), timed right after each run of bench_loop() so that
 * the noise of a shared machine falls on both.
 *
 * With --idle-socks K it also prints what the K idle sockets cost as heap
 * growth: libc heap in use (mallinfo2) plus DPDK heap
 * (rte_malloc_get_socket_stats), read after the measured pair is bound
 * and again after the K idle sockets are (cold: the socket table's chunks
 * they need are counted), divided by K. Under valgrind, which replaces
 * malloc, the libc part reads 0.
 *
 * With --peers P (2..64) the sender sends to P receiving addresses in
 * turn (10.254.0.1 .. 10.254.0.P, one socket each: P connections, all
 * busy) and the loop is bench_loop_peers(): the cost per message of
 * spreading the traffic over many connections.
 *
 * With --idle-conns it also prints what an idle connection costs
 * (idle_conn_bytes): the heap growth, libc plus DPDK, from before the
 * 64 connections carried their one message each to after they went
 * idle again (every message received, every ACK sent), over 64; the
 * buffer pools grown first by as many messages between the measured
 * pair (warm_bufs), so that their growth is not counted as the
 * connections'.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <rte_eal.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#include <rte_rds.h>

#include "rds_test_mem.h"

#define IP_A "10.250.0.1"
#define IP_B "10.250.0.2"
#define PORT_A 4000
#define PORT_B 4001
#define NB_IDLE_ADDRS 8		/* 8 x 8 idle connections */
#define MAX_PEERS 64

static struct sockaddr_in
sin_of(const char *ip, uint16_t port)
{
	struct sockaddr_in s;

	memset(&s, 0, sizeof(s));
	s.sin_family = AF_INET;
	s.sin_port = htons(port);
	inet_pton(AF_INET, ip, &s.sin_addr);
	return s;
}

static int
sock_on(const char *ip, uint16_t port)
{
	struct sockaddr_in a = sin_of(ip, port);
	int s = rte_rds_socket();

	if (s < 0 || rte_rds_bind(s, (struct sockaddr *)&a, sizeof(a)) != 0) {
		fprintf(stderr, "socket/bind %s:%u: %s\n", ip, port,
			rte_strerror(rte_errno));
		exit(1);
	}
	return s;
}

static void
die(const char *what)
{
	fprintf(stderr, "%s: %s\n", what, rte_strerror(rte_errno));
	exit(1);
}

/* The measured loop: n messages sent, carried and received. Not
 * inlined, so that callgrind can toggle on it. */
__attribute__((noinline)) uint64_t
bench_loop(int a, int b, const struct sockaddr_in *to, uint8_t *buf,
	   size_t size, uint64_t n)
{
	uint64_t i, bad = 0;

	for (i = 0; i < n; i++) {
		if (rte_rds_sendto(a, buf, size, MSG_DONTWAIT,
				   (const struct sockaddr *)to,
				   sizeof(*to)) != (ssize_t)size)
			bad++;
		rte_rds_engine_poll(0);
		if (rte_rds_recvfrom(b, buf, size, MSG_DONTWAIT, NULL,
				     NULL) != (ssize_t)size)
			bad++;
	}
	return bad;
}

/* bench_loop() over np receivers in turn, each on its own address (its
 * own connection). Not inlined either (callgrind: bench_loop*). */
__attribute__((noinline)) uint64_t
bench_loop_peers(int a, const int *bs, const struct sockaddr_in *tos,
		 unsigned int np, uint8_t *buf, size_t size, uint64_t n)
{
	uint64_t i, bad = 0;
	unsigned int j = 0;

	for (i = 0; i < n; i++) {
		if (rte_rds_sendto(a, buf, size, MSG_DONTWAIT,
				   (const struct sockaddr *)&tos[j],
				   sizeof(tos[j])) != (ssize_t)size)
			bad++;
		rte_rds_engine_poll(0);
		if (rte_rds_recvfrom(bs[j], buf, size, MSG_DONTWAIT, NULL,
				     NULL) != (ssize_t)size)
			bad++;
		if (++j == np)
			j = 0;
	}
	return bad;
}

/* One measured run: bench_loop(), or bench_loop_peers() with peers. */
static uint64_t
bench_run(int a, int b, const struct sockaddr_in *to, const int *bs,
	  const struct sockaddr_in *tos, unsigned int np, uint8_t *buf,
	  size_t size, uint64_t n)
{
	return np > 1 ? bench_loop_peers(a, bs, tos, np, buf, size, n) :
			bench_loop(a, b, to, buf, size, n);
}

/* The floor: the same loop without RDS. The payload is copied into a
 * message, the message's pointer goes through an SP/SC ring and comes
 * back, the payload is copied out: two copies and a ring, the least any
 * in-process message path does. */
__attribute__((noinline)) uint64_t
floor_loop(struct rte_ring *r, uint8_t *msg, uint8_t *buf, size_t size,
	   uint64_t n)
{
	uint64_t i, bad = 0;
	void *p = msg;

	for (i = 0; i < n; i++) {
		memcpy(msg, buf, size);
		if (rte_ring_sp_enqueue(r, msg) != 0)
			bad++;
		if (rte_ring_sc_dequeue(r, &p) != 0)
			bad++;
		memcpy(buf, p, size);
	}
	return bad;
}


/* Connections between 8 + 8 addresses, used once and left idle. */
static void
idle_conns(int *socks)
{
	char ip[32];
	struct sockaddr_in to;
	uint8_t buf[16] = { 0 };
	unsigned int i, j, got = 0, polls = 0;

	for (i = 0; i < NB_IDLE_ADDRS; i++)
		for (j = 0; j < NB_IDLE_ADDRS; j++) {
			snprintf(ip, sizeof(ip), "10.251.1.%u", j + 1);
			to = sin_of(ip, 5000);
			if (rte_rds_sendto(socks[i], buf, sizeof(buf), 0,
					   (struct sockaddr *)&to,
					   sizeof(to)) < 0)
				die("idle conns: send");
		}
	while (got < NB_IDLE_ADDRS * NB_IDLE_ADDRS && polls++ < 1000000) {
		rte_rds_engine_poll(0);
		for (j = 0; j < NB_IDLE_ADDRS; j++)
			while (rte_rds_recvfrom(socks[NB_IDLE_ADDRS + j], buf,
						sizeof(buf), MSG_DONTWAIT,
						NULL, NULL) >= 0)
				got++;
	}
	if (got != NB_IDLE_ADDRS * NB_IDLE_ADDRS) {
		fprintf(stderr, "idle conns: %u of 64 messages arrived\n", got);
		exit(1);
	}
	/* Let every ACK and delayed ACK go out: the connections idle. */
	for (polls = 0; polls < 20000; polls++)
		rte_rds_engine_poll(0);
}

/* As many messages as idle_conns() sends, between the measured pair, so
 * that the buffer pools have grown for them before idle_conns() is
 * measured: its heap growth is then the connections'. */
static void
warm_bufs(int a, int b)
{
	struct sockaddr_in to = sin_of(IP_B, PORT_B);
	uint8_t buf[16] = { 0 };
	unsigned int i, got = 0, polls;

	for (i = 0; i < NB_IDLE_ADDRS * NB_IDLE_ADDRS; i++)
		if (rte_rds_sendto(a, buf, sizeof(buf), 0,
				   (struct sockaddr *)&to, sizeof(to)) < 0)
			die("warm: send");
	for (polls = 0; got < i && polls < 1000000; polls++) {
		rte_rds_engine_poll(0);
		while (rte_rds_recvfrom(b, buf, sizeof(buf), MSG_DONTWAIT,
					NULL, NULL) >= 0)
			got++;
	}
	if (got != i)
		die("warm: messages lost");
	for (polls = 0; polls < 20000; polls++)
		rte_rds_engine_poll(0);
}

static int
cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "msgs", required_argument, NULL, 'n' },
		{ "idle-socks", required_argument, NULL, 'k' },
		{ "idle-conns", no_argument, NULL, 'c' },
		{ "size", required_argument, NULL, 's' },
		{ "runs", required_argument, NULL, 'r' },
		{ "peers", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	struct rte_rds_conf conf;
	uint64_t n = 100000, k = 0, size = 64, runs = 5, r, t0, t1, bad;
	uint64_t end, done;
	uint64_t *ns, *fns;
	uint8_t *buf, *msg;
	struct rte_ring *ring;
	struct rds_test_mem m0, m1, m2 = { 0, 0 }, m3 = { 0, 0 };
	double per, per_conn = 0.0;
	struct sockaddr_in to = sin_of(IP_B, PORT_B);
	int socks[2 * NB_IDLE_ADDRS];
	int peer_socks[MAX_PEERS];
	struct sockaddr_in peer_to[MAX_PEERS];
	unsigned int np = 1;
	bool conns = false;
	char ip[32];
	int a, b, ret, opt;
	unsigned int i;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		die("rte_eal_init");
	argc -= ret;
	argv += ret;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'n': n = strtoull(optarg, NULL, 0); break;
		case 'k': k = strtoull(optarg, NULL, 0); break;
		case 'c': conns = true; break;
		case 's': size = strtoull(optarg, NULL, 0); break;
		case 'r': runs = strtoull(optarg, NULL, 0); break;
		case 'p': np = (unsigned int)strtoul(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: rds-bench-core [EAL] -- [--msgs N] "
				"[--idle-socks K] [--idle-conns] [--peers P] "
				"[--size B] [--runs R]\n");
			return 2;
		}
	}
	if (np < 1 || np > MAX_PEERS) {
		fprintf(stderr, "--peers: 1..%u\n", MAX_PEERS);
		return 2;
	}
	rte_rds_conf_init(&conf);
	conf.engine[0].lcore_id = RTE_RDS_ENGINE_INLINE;
	conf.engine[0].idle = RTE_RDS_IDLE_BUSY;
	if (k + 64 + MAX_PEERS > conf.max_sockets)
		conf.max_sockets = (uint32_t)(k + 64 + MAX_PEERS);
	if (rte_rds_conf_add_addr(&conf, IP_A, "loop", NULL) != 0 ||
	    rte_rds_conf_add_addr(&conf, IP_B, "loop", NULL) != 0)
		die("conf");
	/* Idle sockets are spread over four more addresses. */
	for (i = 0; i < 4; i++) {
		snprintf(ip, sizeof(ip), "10.252.0.%u", i + 1);
		if (rte_rds_conf_add_addr(&conf, ip, "loop", NULL) != 0)
			die("conf");
	}
	for (i = 0; i < 2 * NB_IDLE_ADDRS; i++) {
		snprintf(ip, sizeof(ip), "10.251.%u.%u", i / NB_IDLE_ADDRS,
			 i % NB_IDLE_ADDRS + 1);
		if (rte_rds_conf_add_addr(&conf, ip, "loop", NULL) != 0)
			die("conf");
	}
	for (i = 0; np > 1 && i < np; i++) {
		snprintf(ip, sizeof(ip), "10.254.0.%u", i + 1);
		if (rte_rds_conf_add_addr(&conf, ip, "loop", NULL) != 0)
			die("conf");
	}
	if (rte_rds_init(&conf) != 0)
		die("rte_rds_init");
	rte_rds_conf_free(&conf);
	a = sock_on(IP_A, PORT_A);
	b = sock_on(IP_B, PORT_B);
	for (i = 0; np > 1 && i < np; i++) {
		snprintf(ip, sizeof(ip), "10.254.0.%u", i + 1);
		peer_socks[i] = sock_on(ip, PORT_B);
		peer_to[i] = sin_of(ip, PORT_B);
	}
	m0 = rds_test_mem_now();
	for (r = 0; r < k; r++) {
		snprintf(ip, sizeof(ip), "10.252.0.%u", (unsigned)(r % 4) + 1);
		sock_on(ip, 0);
	}
	m1 = rds_test_mem_now();
	if (conns) {
		for (i = 0; i < 2 * NB_IDLE_ADDRS; i++) {
			snprintf(ip, sizeof(ip), "10.251.%u.%u",
				 i / NB_IDLE_ADDRS, i % NB_IDLE_ADDRS + 1);
			socks[i] = sock_on(ip, 5000);
		}
		warm_bufs(a, b);
		m2 = rds_test_mem_now();
		idle_conns(socks);
		m3 = rds_test_mem_now();
		per_conn = ((double)m3.libc - (double)m2.libc +
			    (double)m3.dpdk - (double)m2.dpdk) /
			   (NB_IDLE_ADDRS * NB_IDLE_ADDRS);
	}
	if (runs == 0)
		runs = 1;
	buf = calloc(1, size);
	/* Its own cache lines, away from buf (no 4 KiB aliasing). */
	msg = aligned_alloc(4096, (size + 4096 + 4095) / 4096 * 4096);
	if (msg != NULL)
		msg += 2048;
	ns = calloc(runs, sizeof(*ns));
	fns = calloc(runs, sizeof(*fns));
	ring = rte_ring_create("bench_floor", 64, SOCKET_ID_ANY,
			       RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (buf == NULL || msg == NULL || ns == NULL || fns == NULL)
		die("calloc");
	if (ring == NULL)
		die("rte_ring_create");
	/* Warm up: the connection, its queues and the buffer caches. */
	if (bench_run(a, b, &to, peer_socks, peer_to, np, buf, size,
		      1000 * np) != 0)
		fprintf(stderr, "warm-up: some calls failed\n");
	floor_loop(ring, msg, buf, size, 1000);
	for (r = 0; r < runs; r++) {
		t0 = rte_rdtsc();
		bad = bench_run(a, b, &to, peer_socks, peer_to, np, buf,
				size, n);
		t1 = rte_rdtsc();
		ns[r] = (t1 - t0) * 1000000000ULL / rte_get_tsc_hz();
		if (bad != 0) {
			fprintf(stderr, "run %" PRIu64 ": %" PRIu64
				" calls failed\n", r, bad);
			return 1;
		}
		/* The floor, for as long as the run took (so that it meets
		 * as much of the machine's noise), in steps of 1000. */
		t1 = rte_rdtsc();
		end = t1 + (t1 - t0);
		done = 0;
		do {
			if (floor_loop(ring, msg, buf, size, 1000) != 0) {
				fprintf(stderr, "floor run %" PRIu64
					" failed\n", r);
				return 1;
			}
			done += 1000;
			t0 = rte_rdtsc();
		} while (t0 < end);
		fns[r] = (t0 - t1) * 1000000000ULL / rte_get_tsc_hz();
		fns[r] = fns[r] * 1000 / done;	/* ps per message */
	}
	qsort(ns, runs, sizeof(*ns), cmp_u64);
	qsort(fns, runs, sizeof(*fns), cmp_u64);
	per = k == 0 ? 0.0 :
	      ((double)m1.libc - (double)m0.libc +
	       (double)m1.dpdk - (double)m0.dpdk) / (double)k;
	printf("{\"msgs\": %" PRIu64 ", \"idle_socks\": %" PRIu64
	       ", \"idle_conns\": %u, \"peers\": %u, \"size\": %" PRIu64
	       ", \"runs\": %" PRIu64 ", \"ns_per_msg_median\": %.1f, \"ns_per_msg_min\": %.1f"
	       ", \"floor_ns_per_msg_median\": %.1f"
	       ", \"floor_ns_per_msg_min\": %.1f"
	       ", \"idle_sock_bytes\": %.1f, \"idle_libc_bytes\": %.0f"
	       ", \"idle_dpdk_bytes\": %.0f, \"idle_conn_bytes\": %.1f"
	       ", \"idle_conn_libc_bytes\": %.0f"
	       ", \"idle_conn_dpdk_bytes\": %.0f}\n",
	       n, k, conns ? NB_IDLE_ADDRS * NB_IDLE_ADDRS : 0, np, size, runs,
	       (double)ns[runs / 2] / (double)n, (double)ns[0] / (double)n,
	       (double)fns[runs / 2] / 1000.0, (double)fns[0] / 1000.0,
	       per, (double)m1.libc - (double)m0.libc,
	       (double)m1.dpdk - (double)m0.dpdk, per_conn,
	       conns ? (double)m3.libc - (double)m2.libc : 0.0,
	       conns ? (double)m3.dpdk - (double)m2.dpdk : 0.0);
	rte_ring_free(ring);
	free(msg - 2048);
	free(buf);
	free(ns);
	free(fns);
	rte_rds_fini();
	rte_eal_cleanup();
	return 0;
}

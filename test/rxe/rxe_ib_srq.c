/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Many ib connections in one process against rxe, run inside the test VM
 * by run-in-vm.sh (RDS_TEST_IB_ADDRS=N gives N local addresses): every
 * address is bound by one socket and every socket sends to every other
 * address, so that K addresses make K(K-1) connections (each RC
 * connection between two of our addresses has an end, a QP and a
 * connection, on either side). One inline engine: every connection
 * shares its shared receive queue (SRQ).
 *
 *   idle_memory         the memory the engine holds for one pair of
 *                       connections, then for all K(K-1) idle ones: the
 *                       receive buffers do not grow with the connections
 *                       (mem_rx_bytes, rx_srq_posted equal), and an idle
 *                       connection costs at most 256 KiB (heap of libc
 *                       and DPDK, and the device's queues mapped into the
 *                       process, rxe's) beyond the first pair.
 *   all_at_once         every connection carries messages at once (1 B to
 *                       1 MiB, both ways), from a small SRQ (srq_min=64)
 *                       that must grow: everything arrives, byte-exact
 *                       (SHA-256 per pair), in order.
 *   teardown_in_flight  a stream of 64 KiB messages into one address
 *                       while its connection is reset (RDS_CONN_RESET)
 *                       again and again with receives of the SRQ in
 *                       flight, and the others keep talking: nothing of
 *                       the others is lost or corrupted, the reset one
 *                       retransmits, and the SRQ keeps its buffers.
 *
 * RDS_TEST_IB_OPTS adds options to every address (e.g. "srq=0": the
 * per-connection rings, for the figures before the SRQ).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <CUnit/CUnit.h>

#include <rte_errno.h>
#include <rte_rds.h>
#include <rte_rds_ib.h>

#include "rds_test.h"
#include "rds_test_mem.h"

#define MAX_ADDRS 64

static char addr_buf[MAX_ADDRS * 16];
static const char *addrs[MAX_ADDRS];
static unsigned int nb_addrs;
static int socks[MAX_ADDRS];
static struct sockaddr_in names[MAX_ADDRS];

/* The addresses: RDS_IB_ADDRS (comma separated), else A..D. */
static void
addrs_get(void)
{
	const char *list = getenv("RDS_IB_ADDRS");
	static const char *const env[] = {
		"RDS_IB_ADDR_A", "RDS_IB_ADDR_B", "RDS_IB_ADDR_C", "RDS_IB_ADDR_D",
	};
	char *save = NULL, *tok;
	unsigned int i;

	nb_addrs = 0;
	if (list != NULL && *list != '\0') {
		snprintf(addr_buf, sizeof(addr_buf), "%s", list);
		for (tok = strtok_r(addr_buf, ",", &save);
		     tok != NULL && nb_addrs < MAX_ADDRS;
		     tok = strtok_r(NULL, ",", &save))
			addrs[nb_addrs++] = tok;
		return;
	}
	for (i = 0; i < RTE_DIM(env); i++)
		if (getenv(env[i]) != NULL)
			addrs[nb_addrs++] = getenv(env[i]);
}

/* Every address on ib with the options of the case and
 * RDS_TEST_IB_OPTS; one inline engine; n addresses. */
static void
lib_up(unsigned int n, const char *opts)
{
	const char *more = getenv("RDS_TEST_IB_OPTS");
	struct rte_rds_conf conf;
	char spec[256];
	unsigned int i;

	rte_rds_conf_init(&conf);
	conf.engine[0].lcore_id = RTE_RDS_ENGINE_INLINE;
	conf.engine[0].idle = RTE_RDS_IDLE_YIELD;
	for (i = 0; i < n; i++) {
		snprintf(spec, sizeof(spec), "%s=ib%s%s%s%s", addrs[i],
			 *opts ? "," : "", opts,
			 more != NULL && *more ? "," : "",
			 more != NULL ? more : "");
		CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(&conf, spec) == 0);
	}
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
	for (i = 0; i < n; i++) {
		socks[i] = rds_test_socket_trans(addrs[i], 0, 16 << 20,
						 16 << 20, RDS_TRANS_IB);
		CU_ASSERT_FATAL(socks[i] >= 0);
		names[i] = rds_test_sock_name(socks[i]);
	}
}

static void
lib_down(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		rte_rds_close(socks[i]);
	rds_test_lib_fini();
}

/* ------------------------------------------------------------------ */
/* Memory */

struct mem {
	size_t heap;		/* libc in use + DPDK heaps */
	size_t rss;		/* VmRSS */
	size_t dev;		/* Rss of the device's mappings (uverbs) */
	unsigned int conns;	/* ib connections (RDS_INFO_IB_CONNECTIONS) */
	struct rte_rds_ib_stats ib;
};

static size_t
rss_now(void)
{
	char line[256];
	size_t kb = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "VmRSS: %zu kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

/* The Rss of the mappings of /dev/infiniband/uverbs*: on rxe, the
 * queues of the QPs, CQs and SRQs live there (kernel memory mapped into
 * the process). */
static size_t
dev_rss_now(void)
{
	char line[512];
	bool in = false;
	size_t kb, total = 0;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			in = strstr(line, "/dev/infiniband/uverbs") != NULL;
			continue;
		}
		if (in && sscanf(line, "Rss: %zu kB", &kb) == 1)
			total += kb * 1024;
	}
	fclose(f);
	return total;
}

static unsigned int
ib_conns(void)
{
	socklen_t len = 0;

	if (rte_rds_info(RDS_INFO_IB_CONNECTIONS, NULL, &len) == -1 &&
	    rte_errno == ENOSPC)
		return len / sizeof(struct rds_info_rdma_connection);
	return 0;
}

static struct mem
mem_now(void)
{
	struct rds_test_mem h;
	struct mem m;

	rds_test_kick_n(64);
	memset(&m, 0, sizeof(m));
	h = rds_test_mem_now();
	m.heap = h.libc + h.dpdk;
	m.rss = rss_now();
	m.dev = dev_rss_now();
	m.conns = ib_conns();
	rte_rds_ib_stats_get(&m.ib);
	return m;
}

static void
mem_print(const char *what, const struct mem *m)
{
	printf("  %s: %u connections, heap %zu KiB, rss %zu KiB, device "
	       "mappings %zu KiB\n", what, m->conns, m->heap >> 10,
	       m->rss >> 10, m->dev >> 10);
}

/* (b - a) / n bytes */
static double
per(size_t b, size_t a, unsigned int n)
{
	return n == 0 ? 0 : ((double)b - (double)a) / n;
}

/* ------------------------------------------------------------------ */
/* Messages: the first 8 bytes are a per-pair sequence number. */

struct pairs {
	uint64_t sent[MAX_ADDRS][MAX_ADDRS];
	uint64_t rcvd[MAX_ADDRS][MAX_ADDRS];
	uint64_t errors;
	struct rds_test_sha_matrix tx, rx;
};

static int
who(const struct sockaddr_in *from)
{
	unsigned int i;

	for (i = 0; i < nb_addrs; i++)
		if (rds_test_sin_eq(&names[i], from))
			return (int)i;
	return -1;
}

/* Take what arrived on every socket. */
static uint64_t
drain(struct pairs *p, unsigned int n)
{
	static uint8_t buf[(1 << 20) + 64];
	struct sockaddr_in from;
	uint64_t got = 0, seq;
	unsigned int i;
	ssize_t r;
	int src;

	for (i = 0; i < n; i++) {
		while ((r = rds_test_recv(socks[i], buf, sizeof(buf), &from,
					  MSG_DONTWAIT, NULL)) >= 0) {
			src = who(&from);
			if (src < 0 || r < 8) {
				p->errors++;
				continue;
			}
			memcpy(&seq, buf, 8);
			if (seq != p->rcvd[src][i] && p->errors++ < 5)
				printf("  %d->%u: seq %" PRIu64 ", want %" PRIu64
				       "\n", src, i, seq, p->rcvd[src][i]);
			p->rcvd[src][i] = seq + 1;
			if (p->tx.n != 0)
				rds_test_sha_matrix_msg(&p->rx, (unsigned int)src,
							i, buf, (size_t)r);
			got++;
		}
	}
	return got;
}

/* Send one message of len bytes from i to j (driving the engine, and
 * draining while there is no room). */
static void
send_one(struct pairs *p, unsigned int n, unsigned int i, unsigned int j,
	 size_t len, struct rds_test_deadline *dl)
{
	static uint8_t buf[(1 << 20) + 64];
	ssize_t r;

	memcpy(buf, &p->sent[i][j], 8);
	rds_test_fill(buf + 8, len - 8, p->sent[i][j] * 977 + i * 31 + j);
	for (;;) {
		r = rds_test_send(socks[i], buf, len, &names[j], MSG_DONTWAIT);
		if (r >= 0)
			break;
		CU_ASSERT_FATAL(rte_errno == EAGAIN || rte_errno == ENOBUFS);
		rds_test_kick();
		if (drain(p, n) != 0)
			rds_test_deadline_progress(dl);
		CU_ASSERT_FATAL(!rds_test_deadline_expired(dl, "send"));
	}
	if (p->tx.n != 0)
		rds_test_sha_matrix_msg(&p->tx, i, j, buf, len);
	p->sent[i][j]++;
	/* The engine runs on this thread: a pass a message, as an engine
	 * of its own would run meanwhile. */
	rds_test_kick();
}

/* rxe's and the ib transport's non-zero counters, on a failure. */
static void
counters_print(void)
{
	const char *dev = getenv("RDS_IB_DEV");
	struct rte_rds_xstat xs[128];
	char cmd[256];
	int i, n;

	snprintf(cmd, sizeof(cmd), "cd /sys/class/infiniband/%s/ports/1/"
		 "hw_counters 2>/dev/null && grep -v '^0$' -H * | tr '\\n' "
		 "' '; echo", dev != NULL ? dev : "rxe0");
	printf("  rxe counters: ");
	fflush(stdout);
	if (system(cmd) != 0)
		printf("\n");
	n = rte_rds_xstats_get("ib", xs, RTE_DIM(xs));
	printf("  ib:");
	for (i = 0; i < n; i++)
		if (xs[i].value != 0)
			printf(" %s=%" PRIu64, xs[i].name, xs[i].value);
	printf("\n");
}

/* Everything sent must arrive: true when it did. */
static bool
wait_all(struct pairs *p, unsigned int n, struct rds_test_deadline *dl)
{
	unsigned int i, j;

	for (;;) {
		uint64_t want = 0, got = 0;

		rds_test_kick();
		if (drain(p, n) != 0)
			rds_test_deadline_progress(dl);
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++) {
				want += p->sent[i][j];
				got += p->rcvd[i][j];
			}
		if (got == want)
			return true;
		if (rds_test_deadline_expired(dl, "delivery")) {
			printf("  delivered %" PRIu64 " of %" PRIu64 "\n", got,
			       want);
			for (i = 0; i < n; i++)
				for (j = 0; j < n; j++)
					if (p->sent[i][j] != p->rcvd[i][j])
						printf("  %u -> %u: %" PRIu64
						       " of %" PRIu64 "\n", i, j,
						       p->rcvd[i][j],
						       p->sent[i][j]);
			counters_print();
			return false;
		}
	}
}

/* ------------------------------------------------------------------ */

static void
test_idle_memory(void)
{
	static struct pairs p;
	struct rds_test_deadline dl;
	struct mem m0, m2, mk;
	unsigned int n = nb_addrs, i, j, nc;
	uint64_t t0;

	memset(&p, 0, sizeof(p));
	lib_up(n, "");
	rds_test_deadline_init(&dl, 120, 900);
	m0 = mem_now();
	mem_print("no connection", &m0);
	/* One pair: two connections (an end each). */
	send_one(&p, n, 0, 1, 64, &dl);
	send_one(&p, n, 1, 0, 64, &dl);
	CU_ASSERT_FATAL(wait_all(&p, n, &dl));
	m2 = mem_now();
	mem_print("one pair", &m2);
	/* Every address to every other. */
	t0 = rds_test_now_ns();
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (i != j && !(i < 2 && j < 2))
				send_one(&p, n, i, j, 64, &dl);
	CU_ASSERT_FATAL(wait_all(&p, n, &dl));
	mk = mem_now();
	nc = mk.conns;
	mem_print("all pairs", &mk);
	printf("  %u addresses: %u connections up in %.1f s\n", n, nc,
	       rds_test_since_s(t0));
	CU_ASSERT_EQUAL(m2.conns, 2);
	CU_ASSERT_EQUAL(nc, n * (n - 1));
	printf("  per connection beyond the first pair: heap %.0f B, rss "
	       "%.0f B, device mappings %.0f B\n",
	       per(mk.heap, m2.heap, nc - 2), per(mk.rss, m2.rss, nc - 2),
	       per(mk.dev, m2.dev, nc - 2));
	printf("  per connection, all of it (first pair too): heap %.0f B, "
	       "rss %.0f B, device mappings %.0f B\n",
	       per(mk.heap, m0.heap, nc), per(mk.rss, m0.rss, nc),
	       per(mk.dev, m0.dev, nc));
	printf("  ib: receive buffers %" PRIu64 " KiB (%" PRIu64 " posted) for "
	       "2 connections, %" PRIu64 " KiB (%" PRIu64 " posted) for %u; "
	       "send buffers %" PRIu64 " / %" PRIu64 " KiB, work requests %"
	       PRIu64 " / %" PRIu64 " KiB, bounce %" PRIu64 " KiB\n",
	       m2.ib.mem_rx_bytes >> 10, m2.ib.rx_srq_posted,
	       mk.ib.mem_rx_bytes >> 10, mk.ib.rx_srq_posted, nc,
	       m2.ib.mem_tx_bytes >> 10, mk.ib.mem_tx_bytes >> 10,
	       m2.ib.mem_wr_bytes >> 10, mk.ib.mem_wr_bytes >> 10,
	       mk.ib.mem_bounce_bytes >> 10);
	printf("  ib, the engine's buffers and work requests per connection "
	       "beyond the first pair: %.0f B\n",
	       per(mk.ib.mem_rx_bytes + mk.ib.mem_tx_bytes +
		   mk.ib.mem_wr_bytes + mk.ib.mem_bounce_bytes,
		   m2.ib.mem_rx_bytes + m2.ib.mem_tx_bytes +
		   m2.ib.mem_wr_bytes + m2.ib.mem_bounce_bytes, nc - 2));
	CU_ASSERT_EQUAL(p.errors, 0);
	/* Idle connections cost no receive buffer: the SRQ's are there
	 * for the first pair and no more came for the others. */
	CU_ASSERT(m2.ib.mem_rx_bytes > 0);
	CU_ASSERT_EQUAL(mk.ib.mem_rx_bytes, m2.ib.mem_rx_bytes);
	CU_ASSERT_EQUAL(mk.ib.rx_srq_posted, m2.ib.rx_srq_posted);
	/* The goal: at most 256 KiB an idle connection, what the process
	 * holds (its resident memory) and the heap plus the device's
	 * queues mapped into it. */
	CU_ASSERT(per(mk.rss, m2.rss, nc - 2) <= 256 * 1024);
	CU_ASSERT(per(mk.heap + mk.dev, m2.heap + m2.dev, nc - 2) <=
		  256 * 1024);
	/* Control traffic: what the set-up sent besides the messages, and
	 * an idle connection sends nothing (no heartbeat on ib). */
	{
		struct rte_rds_ib_stats i0, i1;
		struct rte_rds_stats c0, c1;

		c0 = rds_test_stats();
		CU_ASSERT(rte_rds_ib_stats_get(&i0) == 0);
		printf("  set-up: %" PRIu64 " SENDs for %u messages: %" PRIu64
		       " standalone ACK frames, %" PRIu64 " congestion maps "
		       "(ACK-only frames, all senders: %" PRIu64 ")\n",
		       i0.tx_frames, nc, i0.tx_acks, c0.s_send_cong_map,
		       c0.s_send_ack);
		t0 = rds_test_now_ns();
		while (rds_test_since_s(t0) < 2.0)
			rds_test_kick();
		c1 = rds_test_stats();
		CU_ASSERT(rte_rds_ib_stats_get(&i1) == 0);
		printf("  idle for 2 s: %" PRIu64 " SENDs, %" PRIu64 " frames "
		       "received on %u connections\n",
		       i1.tx_frames - i0.tx_frames, i1.rx_frames - i0.rx_frames,
		       nc);
		CU_ASSERT_EQUAL(i1.tx_frames, i0.tx_frames);
		CU_ASSERT_EQUAL(c1.s_send_ack, c0.s_send_ack);
	}
	lib_down(n);
	/* All connections gone with the library: so are the buffers
	 * (nothing to read any more: the counters went with it). */
}

/* rxe's count of RNR NAKs this end sent (its receives ran out), or -1. */
static long
rxe_rnr_sent(void)
{
	const char *dev = getenv("RDS_IB_DEV");
	char path[256];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/send_rnr_err",
		 dev != NULL ? dev : "rxe0");
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* A message's size: mostly small, some of several fragments, a few of
 * 1 MiB. */
static size_t
msg_size(uint64_t *rng)
{
	uint64_t r = rds_test_rand_range(rng, 0, 99);

	if (r < 70)
		return (size_t)rds_test_rand_range(rng, 8, 2048);
	if (r < 97)
		return (size_t)rds_test_rand_range(rng, 4097, 65536);
	return 1 << 20;
}

/*
 * Every connection at once: rounds in which every address sends a
 * message to every other, nothing taken until a round is queued, from a
 * shared receive queue of 64 receives at first (srq_min) that has to grow
 * to take them (srq_max 1024). Every message arrives, in order per pair,
 * SHA-256 equal per pair.
 */
static void
test_all_at_once(void)
{
	static struct pairs p;
	struct rds_test_deadline dl;
	struct rte_rds_ib_stats st;
	unsigned int n = RTE_MIN(nb_addrs, 8u), i, j, r;
	unsigned int rounds = (unsigned int)rds_test_env_u64(
		"RDS_TEST_SRQ_ROUNDS", 20);
	uint64_t rng = 7, msgs = 0, t0;
	long rnr0, rnr1;
	bool ok;

	memset(&p, 0, sizeof(p));
	CU_ASSERT_FATAL(rds_test_sha_matrix_init(&p.tx, n) == 0);
	CU_ASSERT_FATAL(rds_test_sha_matrix_init(&p.rx, n) == 0);
	lib_up(n, "srq_min=64,srq_max=1024");
	rds_test_deadline_init(&dl, 120, 900);
	rnr0 = rxe_rnr_sent();
	t0 = rds_test_now_ns();
	for (r = 0; r < rounds; r++)
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++)
				if (i != j) {
					send_one(&p, n, i, j, msg_size(&rng),
						 &dl);
					msgs++;
				}
	ok = wait_all(&p, n, &dl);
	rnr1 = rxe_rnr_sent();
	CU_ASSERT(ok);
	CU_ASSERT_EQUAL(p.errors, 0);
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			uint8_t d1[RDS_TEST_SHA_LEN], d2[RDS_TEST_SHA_LEN];

			CU_ASSERT_EQUAL(p.sent[i][j], p.rcvd[i][j]);
			rds_test_sha_peek(rds_test_sha_matrix_at(&p.tx, i, j),
					  d1);
			rds_test_sha_peek(rds_test_sha_matrix_at(&p.rx, i, j),
					  d2);
			CU_ASSERT(memcmp(d1, d2, sizeof(d1)) == 0);
		}
	CU_ASSERT_FATAL(rte_rds_ib_stats_get(&st) == 0);
	{
		struct rte_rds_stats c = rds_test_stats();

		printf("  %" PRIu64 " SENDs: %" PRIu64 " standalone ACK frames "
		       "(%.2f %%), %" PRIu64 " congestion maps\n",
		       st.tx_frames, st.tx_acks,
		       st.tx_frames == 0 ? 0.0 :
		       100.0 * (double)st.tx_acks / (double)st.tx_frames,
		       c.s_send_cong_map);
	}
	printf("  %u connections, %" PRIu64 " messages in %.1f s; SRQ: grew %"
	       PRIu64 " times to %" PRIu64 " receives posted (%" PRIu64
	       " KiB), ran dry %" PRIu64 ", limit events %" PRIu64 "; RNR "
	       "NAKs sent by rxe0 %ld; ibv_post_srq_recv %" PRIu64 " for %"
	       PRIu64 " frames; stale %" PRIu64 ", stalls %" PRIu64 ", given "
	       "up on %" PRIu64 "\n",
	       ib_conns(), msgs, rds_test_since_s(t0), st.rx_srq_grows,
	       st.rx_srq_posted, st.mem_rx_bytes >> 10, st.rx_srq_dry,
	       st.rx_srq_limit_events,
	       rnr0 >= 0 && rnr1 >= 0 ? rnr1 - rnr0 : -1, st.rx_post_calls,
	       st.rx_frames, st.rx_stale_wcs, st.stalls, st.rx_srq_orphans);
	/* 64 receives could not take it: it grew, within its bound. */
	CU_ASSERT(st.rx_srq_grows >= 1);
	CU_ASSERT(st.rx_srq_posted > 64 && st.rx_srq_posted <= 1024);
	CU_ASSERT(st.mem_rx_bytes <= (1024 + 128) * (48 + 4096));
	CU_ASSERT_EQUAL(st.rx_seq_gaps, 0);
	CU_ASSERT(st.rx_post_calls < st.rx_frames);
	rds_test_sha_matrix_free(&p.tx);
	rds_test_sha_matrix_free(&p.rx);
	lib_down(n);
}

/* Drop the connections from address i to address j (UEK's
 * RDS_CONN_RESET, on i's socket). */
static void
conn_reset(unsigned int i, unsigned int j)
{
	struct rte_rds_reset rr;

	memset(&rr, 0, sizeof(rr));
	rr.src.s_addr = inet_addr(addrs[i]);
	rr.dst.s_addr = inet_addr(addrs[j]);
	CU_ASSERT(rte_rds_setsockopt(socks[i], SOL_RDS, RTE_RDS_CONN_RESET,
				     &rr, sizeof(rr)) == 0);
}

/*
 * A stream of 64 KiB messages (16 fragments each) from address 0 into
 * address 1, whose connection to 0 is reset again and again, 120 times
 * (the QP destroyed with receives of the SRQ in flight), while the other
 * addresses keep sending among themselves (1 B to 1 MiB), over an SRQ
 * of 64 receives that may grow to 256 only: receives that resets left
 * behind would soon leave none. Everything arrives, each pair's
 * messages in order and byte-exact, the stream's too (RDS retransmits
 * what the reset cut); the SRQ ends with its receives posted, none given
 * up on for good, within its buffers.
 */
static void
test_teardown_in_flight(void)
{
	static struct pairs p;
	struct rds_test_deadline dl;
	struct rte_rds_ib_stats st;
	struct rte_rds_stats cs;
	unsigned int n = RTE_MIN(nb_addrs, 8u), i, j, k, resets = 0;
	unsigned int total = (unsigned int)rds_test_env_u64(
		"RDS_TEST_SRQ_STREAM", 600);
	uint64_t rng = 11;
	bool ok;

	CU_ASSERT_FATAL(n >= 4);
	memset(&p, 0, sizeof(p));
	CU_ASSERT_FATAL(rds_test_sha_matrix_init(&p.tx, n) == 0);
	CU_ASSERT_FATAL(rds_test_sha_matrix_init(&p.rx, n) == 0);
	lib_up(n, "srq_min=64,srq_max=256");
	rds_test_deadline_init(&dl, 120, 900);
	for (k = 0; k < total; k++) {
		send_one(&p, n, 0, 1, 65536, &dl);
		/* The others: a message from each to the next. */
		for (i = 2; i < n; i++) {
			j = i + 1 < n ? i + 1 : 2;
			send_one(&p, n, i, j, msg_size(&rng), &dl);
		}
		/* Every 5 messages, with fragments of the stream in
		 * flight: 1's end of the connection goes (more resets
		 * than the SRQ has receives: one lost a reset would
		 * leave none). */
		if (k % 5 == 3) {
			rds_test_kick_n(2);
			conn_reset(1, 0);
			resets++;
		}
		rds_test_kick();
		drain(&p, n);
	}
	ok = wait_all(&p, n, &dl);
	CU_ASSERT(ok);
	CU_ASSERT_EQUAL(p.errors, 0);
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			uint8_t d1[RDS_TEST_SHA_LEN], d2[RDS_TEST_SHA_LEN];

			CU_ASSERT_EQUAL(p.sent[i][j], p.rcvd[i][j]);
			rds_test_sha_peek(rds_test_sha_matrix_at(&p.tx, i, j),
					  d1);
			rds_test_sha_peek(rds_test_sha_matrix_at(&p.rx, i, j),
					  d2);
			CU_ASSERT(memcmp(d1, d2, sizeof(d1)) == 0);
		}
	rds_test_kick_n(64);
	CU_ASSERT_FATAL(rte_rds_ib_stats_get(&st) == 0);
	cs = rds_test_stats();
	printf("  %u resets of 1 -> 0 in %u messages of 64 KiB: connection "
	       "resets %" PRIu64 ", retransmitted %" PRIu64 ", duplicates "
	       "dropped %" PRIu64 "; SRQ: flushed %" PRIu64 ", stale %" PRIu64
	       ", given up on %" PRIu64 " (%" PRIu64 " of them never came), "
	       "ran dry %" PRIu64 ", limit events %" PRIu64 ", %" PRIu64
	       " receives posted (%" PRIu64 " KiB)\n",
	       resets, total, cs.s_conn_reset, cs.s_send_retransmit,
	       cs.s_recv_drop_old_seq, st.rx_srq_flushed, st.rx_stale_wcs,
	       st.rx_srq_orphans, st.rx_srq_orphans_out, st.rx_srq_dry,
	       st.rx_srq_limit_events, st.rx_srq_posted,
	       st.mem_rx_bytes >> 10);
	CU_ASSERT(cs.s_conn_reset >= resets);
	CU_ASSERT(resets > 64);
	CU_ASSERT_EQUAL(st.rx_seq_gaps, 0);
	/* The SRQ kept its receives through every reset, in its buffers
	 * (256, 64 more at most for receives given up on); any receive
	 * given up on came after all. */
	CU_ASSERT(st.rx_srq_posted >= 64 && st.rx_srq_posted <= 256);
	CU_ASSERT_EQUAL(st.rx_srq_orphans_out, 0);
	CU_ASSERT(st.mem_rx_bytes <= (256 + 64) * (48 + 4096));
	rds_test_sha_matrix_free(&p.tx);
	rds_test_sha_matrix_free(&p.rx);
	lib_down(n);
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "idle_memory", test_idle_memory },
		{ "all_at_once", test_all_at_once },
		{ "teardown_in_flight", test_teardown_in_flight },
		{ NULL, NULL },
	};

	addrs_get();
	if (nb_addrs < 2) {
		printf("SKIP: no ib addresses (RDS_IB_ADDRS or RDS_IB_ADDR_A.."
		       "D): run me through test/rxe/run-in-vm.sh (inside the "
		       "rxe VM)\n");
		return 77;
	}
	printf("rxe_ib_srq: %u addresses\n", nb_addrs);
	return rds_test_main("rxe_ib_srq", "0", cases);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_security: a peer that presents wrong keys (rds_rdma_guard.c).
 * Over loop and eth; not over ib, whose keys the device checks (a wrong
 * one puts the QP in error).
 *
 * bad_keys: the server sends READs with random keys (naming no region):
 * each is REMOTE_ERROR as before and counted (s_rdma_bad_key). 15 to the
 * client's address and 15 to address 3 reset nothing (the count is per
 * connection); the 16th to the client's resets that connection
 * (s_rdma_bad_key_reset, s_conn_reset) and holds it off: a WRITE with
 * the client's good cookie ends DROPPED and writes nothing, a wrong key
 * ends DROPPED uncounted (s_rdma_held), messages still arrive. The 16th
 * to address 3 resets that one too, not logged (a line a second per
 * engine). 1.1 s later the good cookie works again and messages too; 16
 * wrong keys more reset the client's connection again, now for 2 s: 1.2 s
 * after, the good cookie is still DROPPED, after 2.1 s it works. The log
 * has two lines, each naming both addresses, the hold-off (1000 then
 * 2000 ms) and, in the second, the reset that was not logged.
 *
 * stale_keys: honest races count against nobody. 32 READs queued on a
 * region freed before they run, 20 on a USE_ONCE region (the first one
 * succeeds), 20 on a region of a socket closed before they run: every
 * failed one REMOTE_ERROR (s_rdma_stale_key), none counted as a wrong
 * key, no reset, no hold-off (a good cookie works at once after).
 */
#include <inttypes.h>

#include <rte_log.h>

#include "rdma_security.h"

#define NB 64		/* at most this many operations in a burst */
#define OPLEN 64

struct abuse {
	struct ctx cx;
	struct rte_rds_stats s0;
	uint64_t seed;
	uint8_t buf[NB][OPLEN];
	unsigned int seq;
};

static struct rte_rds_stats
stats_now(void)
{
	struct rte_rds_stats st;

	memset(&st, 0, sizeof(st));
	CU_ASSERT(rte_rds_stats_get(-1, &st) == 0);
	return st;
}

#define DELTA(a, f) (stats_now().f - (a)->s0.f)

/* A key that names no region and was never freed here. */
static uint64_t
wrong_key(struct abuse *a)
{
	uint32_t k;

	do {
		k = (uint32_t)rds_test_rand(&a->seed);
	} while (k == 0);
	return k;
}

/*
 * n operations (READ, or WRITE) from the server to *to, cookie[i] each
 * (NULL: wrong keys), then a message to the client; every operation must
 * end with status want and none may deliver its message. Returns the
 * number that did not.
 */
static unsigned int
burst(struct abuse *a, const struct sockaddr_in *to, bool write,
      const uint64_t *cookie, unsigned int n, int want)
{
	struct rds_rdma_notify nt[NB];
	struct rds_iovec iov;
	struct rds_rdma_args ra;
	struct rdma_rx rx;
	unsigned int i, got, bad = 0;
	char msg[32], buf[64];

	CU_ASSERT_FATAL(n <= NB);
	for (i = 0; i < n; i++) {
		memset(a->buf[i], 0xAB, OPLEN);
		iov.addr = (uint64_t)(uintptr_t)a->buf[i];
		iov.bytes = OPLEN;
		memset(&ra, 0, sizeof(ra));
		ra.cookie = cookie != NULL ? cookie[i] : wrong_key(a);
		ra.remote_vec.bytes = OPLEN;
		ra.local_vec_addr = (uint64_t)(uintptr_t)&iov;
		ra.nr_local = 1;
		ra.flags = write ? RDS_RDMA_READWRITE : 0;
		ra.user_token = 0xAB000000ULL + i;
		snprintf(msg, sizeof(msg), "OP %u", a->seq++);
		if (rdma_send_args(a->cx.env.srv, to, msg, strlen(msg), &ra) !=
		    (ssize_t)strlen(msg)) {
			printf("  sendmsg: %s\n", rte_strerror(rte_errno));
			return n;
		}
	}
	CU_ASSERT(rdma_sendmsg(a->cx.env.srv, &a->cx.env.ca, "SYNC", 4, NULL,
			       0) == 4);
	got = rdma_collect(a->cx.env.srv, nt, NB, n, 50, 10000, 4096, NULL);
	for (i = 0; i < got && i < n; i++)
		if (nt[i].status != want)
			bad++;
	bad += n - RTE_MIN(got, n);
	/* The first message the client has is the SYNC. */
	if (!rdma_wait_msg(a->cx.env.cli, buf, sizeof(buf), 5000, &rx, NULL,
			   NULL, 0) ||
	    rx.ret != 4 || memcmp(buf, "SYNC", 4) != 0) {
		printf("  the client's next message is not the SYNC\n");
		bad++;
	}
	if (bad != 0)
		printf("  burst of %u: %u not ending %d (%u statuses)\n", n,
		       bad, want, got);
	return bad;
}

static void
wait_until(uint64_t t_ns)
{
	while (rds_test_now_ns() < t_ns)
		if (rdma_kick() == 0)
			rds_test_usleep(100);
}

/* The log lines (from the file the log went to) that name wrong keys. */
static unsigned int
log_lines(FILE *f, char lines[][512], unsigned int max)
{
	char l[512];
	unsigned int n = 0;

	fflush(f);
	rewind(f);
	while (fgets(l, sizeof(l), f) != NULL)
		if (strstr(l, "wrong keys") != NULL && n < max)
			snprintf(lines[n++], sizeof(lines[0]), "%s", l);
	return n;
}

static bool
has(const char *line, const char *what)
{
	if (strstr(line, what) != NULL)
		return true;
	printf("  log line without '%s': %s", what, line);
	return false;
}

void
test_bad_keys(void)
{
	struct sockaddr_in a3 = rdma_sin(3, RDMA_CLI_PORT);
	uint64_t c, t1, t1_end, t2;
	char lines[4][512], want[96];
	struct abuse *a;
	bool quiet = false;
	FILE *log;
	unsigned int n;

	if (hardware_keys())
		return;
	a = calloc(1, sizeof(*a));
	CU_ASSERT_FATAL(a != NULL);
	a->seed = 0xBADC0DE;
	ctx_begin(&a->cx, 60, "bad_keys");
	log = tmpfile();
	CU_ASSERT_FATAL(log != NULL);
	rte_openlog_stream(log);
	c = reg(&a->cx, a->cx.env.cli, &a->cx.env.ca, a->cx.g.pages,
		REGION_LEN, RDS_RDMA_READWRITE);
	a->s0 = stats_now();

	/* Below the limit on each of two connections. */
	CU_ASSERT_EQUAL(burst(a, &a->cx.env.ca, false, NULL, 15,
			      RDS_RDMA_REMOTE_ERROR), 0);
	CU_ASSERT_EQUAL(burst(a, &a3, false, NULL, 15,
			      RDS_RDMA_REMOTE_ERROR), 0);
	CU_ASSERT_EQUAL(DELTA(a, s_rdma_bad_key), 30);
	CU_ASSERT_EQUAL(DELTA(a, s_rdma_bad_key_reset), 0);
	CU_ASSERT_EQUAL(DELTA(a, s_conn_reset), 0);

	/* The 16th on the client's: answered as before, then the reset
	 * (at the connection's next turn). */
	t1 = rds_test_now_ns();
	CU_ASSERT_EQUAL(burst(a, &a->cx.env.ca, false, NULL, 1,
			      RDS_RDMA_REMOTE_ERROR), 0);
	t1_end = rds_test_now_ns();
	rdma_pump(20);
	CU_ASSERT_EQUAL(DELTA(a, s_rdma_bad_key), 31);
	CU_ASSERT_EQUAL(DELTA(a, s_rdma_bad_key_reset), 1);
	CU_ASSERT(DELTA(a, s_conn_reset) >= 1);

	/* Held off: a good cookie is refused and writes nothing, a wrong
	 * key is not looked at; messages go on. */
	memcpy(a->cx.snap, a->cx.g.pages, a->cx.g.len);
	CU_ASSERT_EQUAL(burst(a, &a->cx.env.ca, true, &c, 1,
			      RDS_RDMA_DROPPED), 0);
	CU_ASSERT(memcmp(a->cx.snap, a->cx.g.pages, a->cx.g.len) == 0);
	CU_ASSERT_EQUAL(burst(a, &a->cx.env.ca, false, NULL, 1,
			      RDS_RDMA_DROPPED), 0);
	CU_ASSERT_EQUAL(DELTA(a, s_rdma_bad_key), 31);
	CU_ASSERT_EQUAL(DELTA(a, s_rdma_held), 2);

	/* The other connection's 16th, within the second of the first
	 * line (written after t1): reset, not logged. */
	CU_ASSERT_EQUAL(burst(a, &a3, false, NULL, 1,
			      RDS_RDMA_REMOTE_ERROR), 0);
	quiet = rds_test_now_ns() - t1 < 900000000ULL;
	CU_ASSERT_EQUAL(DELTA(a, s_rdma_bad_key_reset), 2);

	/* After the hold-off (begun before t1_end): the good cookie
	 * works, and messages. */
	wait_until(t1_end + 1100000000ULL);
	run_op(&a->cx, &(struct dest)DEST_CLIENT(&a->cx), K_READ, c, 0,
	       REGION_LEN, true, a->cx.g.pages, "good cookie after a hold-off");

	/* Again: the hold-off doubles. It began before t2: 1.2 s after,
	 * one of 1 s would be over. */
	CU_ASSERT_EQUAL(burst(a, &a->cx.env.ca, false, NULL, 16,
			      RDS_RDMA_REMOTE_ERROR), 0);
	t2 = rds_test_now_ns();
	CU_ASSERT_EQUAL(DELTA(a, s_rdma_bad_key_reset), 3);
	wait_until(t2 + 1200000000ULL);
	CU_ASSERT_EQUAL(burst(a, &a->cx.env.ca, false, &c, 1,
			      RDS_RDMA_DROPPED), 0);
	wait_until(t2 + 2100000000ULL);
	run_op(&a->cx, &(struct dest)DEST_CLIENT(&a->cx), K_WRITE, c, 0,
	       REGION_LEN, true, a->cx.g.pages,
	       "good cookie after a longer hold-off");

	/* What the log says. */
	n = log_lines(log, lines, RTE_DIM(lines));
	rte_openlog_stream(NULL);
	fclose(log);
	printf("  %u log lines; the engine counted %" PRIu64 " wrong keys, "
	       "%" PRIu64 " resets for them, %" PRIu64 " requests held off\n",
	       n, DELTA(a, s_rdma_bad_key), DELTA(a, s_rdma_bad_key_reset),
	       DELTA(a, s_rdma_held));
	CU_ASSERT_EQUAL(n, quiet ? 2u : 3u);
	if (n >= 2) {
		snprintf(want, sizeof(want), "%s sent 16 wrong keys to %s ",
			 rdma_ip(2), rdma_ip(1));
		CU_ASSERT(has(lines[0], want));
		CU_ASSERT(has(lines[0], "refused for 1000 ms (reset 1 "));
		CU_ASSERT(has(lines[n - 1], want));
		CU_ASSERT(has(lines[n - 1], "refused for 2000 ms (reset 2 "));
		if (quiet)
			CU_ASSERT(has(lines[n - 1], "; 1 more such resets"));
	}
	CU_ASSERT_EQUAL(rdma_free_mr(a->cx.env.cli, c, 0), 0);
	ctx_end(&a->cx);
	free(a);
}

/* n operations on cookie, queued before the region goes (gone()), then
 * run: want_ok of them SUCCESS first, the rest REMOTE_ERROR. */
static unsigned int
race(struct abuse *a, const struct sockaddr_in *to, uint64_t cookie,
     unsigned int n, unsigned int want_ok, void (*gone)(void *), void *arg)
{
	struct rds_rdma_notify nt[NB];
	struct rds_iovec iov[NB];
	struct rds_rdma_args ra;
	unsigned int i, got, bad = 0, nok = 0;
	struct rdma_rx rx;
	char msg[32], buf[64];

	for (i = 0; i < n; i++) {
		iov[i].addr = (uint64_t)(uintptr_t)a->buf[i];
		iov[i].bytes = OPLEN;
		memset(&ra, 0, sizeof(ra));
		ra.cookie = cookie;
		ra.remote_vec.bytes = OPLEN;
		ra.local_vec_addr = (uint64_t)(uintptr_t)&iov[i];
		ra.nr_local = 1;
		ra.flags = RDS_RDMA_NOTIFY_ME;
		ra.user_token = i;
		snprintf(msg, sizeof(msg), "RACE %u", i);
		if (rdma_send_args(a->cx.env.srv, to, msg, strlen(msg), &ra) !=
		    (ssize_t)strlen(msg))
			return n;
	}
	if (gone != NULL)
		gone(arg);
	got = rdma_collect(a->cx.env.srv, nt, NB, n, 50, 10000, 4096, NULL);
	for (i = 0; i < got && i < n; i++) {
		if (nt[i].status == RDS_RDMA_SUCCESS && nt[i].user_token == i)
			nok++;
		else if (nt[i].status != RDS_RDMA_REMOTE_ERROR)
			bad++;
	}
	bad += n - RTE_MIN(got, n) + (nok != want_ok);
	/* The message of each that succeeded, and nothing else. */
	for (i = 0; i < want_ok; i++)
		if (!rdma_wait_msg(a->cx.env.cli, buf, sizeof(buf), 5000, &rx,
				   NULL, NULL, 0) ||
		    strncmp(buf, "RACE ", 5) != 0)
			bad++;
	if (!rdma_quiet(a->cx.env.cli, 20))
		bad++;
	if (bad != 0)
		printf("  race of %u: %u statuses, %u SUCCESS (want %u), %u "
		       "wrong\n", n, got, nok, want_ok, bad);
	return bad;
}

struct freeing {
	int s;
	uint64_t cookie;
};

static void
free_it(void *arg)
{
	struct freeing *f = arg;

	CU_ASSERT(rdma_free_mr(f->s, f->cookie, RDS_RDMA_INVALIDATE) == 0);
}

static void
close_it(void *arg)
{
	struct freeing *f = arg;

	CU_ASSERT(rte_rds_close(f->s) == 0);
}

void
test_stale_keys(void)
{
	struct sockaddr_in a2 = rdma_sin(1, 4011);
	struct freeing f;
	struct abuse *a;
	uint64_t c;
	int s2;

	if (hardware_keys())
		return;
	a = calloc(1, sizeof(*a));
	CU_ASSERT_FATAL(a != NULL);
	ctx_begin(&a->cx, 60, "stale_keys");
	a->s0 = stats_now();

	/* Freed with operations on their way. */
	c = reg(&a->cx, a->cx.env.cli, &a->cx.env.ca, a->cx.g.pages,
		REGION_LEN, 0);
	f.s = a->cx.env.cli;
	f.cookie = c;
	CU_ASSERT_EQUAL(race(a, &a->cx.env.ca, c, 32, 0, free_it, &f), 0);
	/* USE_ONCE, used by the first. */
	c = reg(&a->cx, a->cx.env.cli, &a->cx.env.ca, a->cx.g.pages,
		REGION_LEN, RDS_RDMA_USE_ONCE);
	CU_ASSERT_EQUAL(race(a, &a->cx.env.ca, c, 20, 1, NULL, NULL), 0);
	/* Its socket closed. */
	s2 = rdma_socket(1, 4011, 0, 0);
	CU_ASSERT_FATAL(s2 >= 0);
	c = reg(&a->cx, s2, &a2, a->cx.g.pages, REGION_LEN, 0);
	f.s = s2;
	CU_ASSERT_EQUAL(race(a, &a2, c, 20, 0, close_it, &f), 0);

	printf("  %" PRIu64 " stale keys, %" PRIu64 " wrong keys, %" PRIu64
	       " resets for them, %" PRIu64 " resets\n",
	       DELTA(a, s_rdma_stale_key), DELTA(a, s_rdma_bad_key),
	       DELTA(a, s_rdma_bad_key_reset), DELTA(a, s_conn_reset));
	CU_ASSERT_EQUAL(DELTA(a, s_rdma_stale_key), 32 + 19 + 20);
	CU_ASSERT_EQUAL(DELTA(a, s_rdma_bad_key), 0);
	CU_ASSERT_EQUAL(DELTA(a, s_rdma_bad_key_reset), 0);
	CU_ASSERT_EQUAL(DELTA(a, s_conn_reset), 0);
	/* No hold-off. */
	c = reg(&a->cx, a->cx.env.cli, &a->cx.env.ca, a->cx.g.pages,
		REGION_LEN, RDS_RDMA_READWRITE);
	run_op(&a->cx, &(struct dest)DEST_CLIENT(&a->cx), K_WRITE, c, 0,
	       REGION_LEN, true, a->cx.g.pages, "a new region after the races");
	CU_ASSERT_EQUAL(DELTA(a, s_rdma_held), 0);
	CU_ASSERT_EQUAL(rdma_free_mr(a->cx.env.cli, c, 0), 0);
	ctx_end(&a->cx);
	free(a);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multi-thread test over the loop transport: more application threads
 * than cores.
 *
 * Six pthreads (on a machine that gives the test two lcores), each
 * registered with rte_thread_register() and each with its own socket
 * (created and bound on that thread), send RDS_TEST_MT_MSGS messages each
 * (default 20 000), round-robin to the five others, non-blocking, and
 * receive everything sent to them. Every message carries (sender,
 * receiver, per-pair sequence) and deterministic bytes, checked in full.
 *
 * Two runs: the engine on its own lcore (threads only send and receive),
 * and the engine inline, driven by every thread (concurrent pollers of
 * one engine must not livelock when the one holding it is preempted).
 * Each thread gives up after 60 s without progress; the run must finish
 * within a bounded time.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_rds.h>

#include "rds_test.h"

#define NTHREADS 6
#define HDR_LEN 16
#define MAX_LEN 256
#define SEND_BATCH 16
#define RECV_BATCH 64
#define STALL_S 60
#define TOTAL_S 300
#define BASE_PORT 7000

struct msg_hdr {
	uint32_t src;
	uint32_t dst;
	uint64_t seq;
};

struct worker {
	unsigned int id;
	pthread_t th;
	int s;
	uint64_t n;			/* messages to send */
	uint64_t sent, received, expected;
	uint64_t tx_seq[NTHREADS];
	uint64_t rx_next[NTHREADS];
	uint64_t expect_from[NTHREADS];
	uint64_t eagain, enobufs;
	int lcore;			/* from rte_thread_register */
	double secs;
	bool failed;
	char err[256];
};

static struct worker workers[NTHREADS];
static struct sockaddr_in waddr[NTHREADS];
static pthread_barrier_t start_barrier;
static atomic_uint done_count;
static atomic_bool abort_all;

static const char *
worker_ip(unsigned int i)
{
	return i % 2 == 0 ? RDS_TEST_IP1 : RDS_TEST_IP2;
}

static uint64_t
msg_key(unsigned int src, unsigned int dst, uint64_t seq)
{
	return rds_test_mix64(((uint64_t)src << 56) ^ ((uint64_t)dst << 48) ^
			      seq ^ 0x77aa55ULL);
}

static uint32_t
msg_build(uint8_t *buf, unsigned int src, unsigned int dst, uint64_t seq)
{
	struct msg_hdr h = { .src = src, .dst = dst, .seq = seq };
	uint64_t k = msg_key(src, dst, seq);
	uint32_t len = HDR_LEN + (uint32_t)(k % (MAX_LEN - HDR_LEN + 1));

	memcpy(buf, &h, HDR_LEN);
	rds_test_fill(buf + HDR_LEN, len - HDR_LEN, k);
	return len;
}

static void
worker_fail(struct worker *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
worker_fail(struct worker *w, const char *fmt, ...)
{
	va_list ap;

	if (!w->failed) {
		va_start(ap, fmt);
		vsnprintf(w->err, sizeof(w->err), fmt, ap);
		va_end(ap);
		printf("  thread %u: FAIL: %s\n", w->id, w->err);
	}
	w->failed = true;
	atomic_store(&abort_all, true);
}

static int
peer_index(const struct sockaddr_in *from)
{
	unsigned int i;

	for (i = 0; i < NTHREADS; i++)
		if (rds_test_sin_eq(&waddr[i], from))
			return (int)i;
	return -1;
}

static unsigned int
worker_recv(struct worker *w, uint8_t *buf, uint8_t *want)
{
	struct sockaddr_in from;
	struct msg_hdr got;
	unsigned int n = 0;
	uint32_t len;
	int mflags, p;
	ssize_t r;

	while (n < RECV_BATCH && !w->failed) {
		r = rds_test_recv(w->s, buf, MAX_LEN + 1, &from, MSG_DONTWAIT,
				  &mflags);
		if (r < 0) {
			if (rte_errno != EAGAIN)
				worker_fail(w, "recv: %s",
					    rte_strerror(rte_errno));
			break;
		}
		n++;
		p = peer_index(&from);
		if (p < 0 || p == (int)w->id) {
			worker_fail(w, "message from unexpected sender");
			break;
		}
		if (w->rx_next[p] >= w->expect_from[p]) {
			worker_fail(w, "extra message from %d (already had "
				    "%" PRIu64 ")", p, w->rx_next[p]);
			break;
		}
		len = msg_build(want, (unsigned int)p, w->id, w->rx_next[p]);
		if ((uint32_t)r != len || memcmp(buf, want, len) != 0) {
			memset(&got, 0xff, sizeof(got));
			memcpy(&got, buf, RTE_MIN((size_t)r, sizeof(got)));
			worker_fail(w, "from %d: expected seq %" PRIu64
				    " len %u, got len %zd seq %" PRIu64
				    " (src %u dst %u)", p, w->rx_next[p], len,
				    r, got.seq, got.src, got.dst);
			break;
		}
		w->rx_next[p]++;
		w->received++;
	}
	return n;
}

static unsigned int
worker_send(struct worker *w, uint8_t *buf, bool *pending, uint32_t *plen,
	    unsigned int *pdst)
{
	unsigned int n = 0;
	ssize_t r;

	while (n < SEND_BATCH && !w->failed) {
		if (!*pending) {
			if (w->sent == w->n)
				break;
			*pdst = (w->id + 1 + (unsigned int)(w->sent % 5)) %
				NTHREADS;
			*plen = msg_build(buf, w->id, *pdst,
					  w->tx_seq[*pdst]);
			*pending = true;
		}
		r = rds_test_send(w->s, buf, *plen, &waddr[*pdst],
				  MSG_DONTWAIT);
		if (r < 0) {
			if (rte_errno == EAGAIN)
				w->eagain++;
			else if (rte_errno == ENOBUFS)
				w->enobufs++;
			else
				worker_fail(w, "send to %u: %s", *pdst,
					    rte_strerror(rte_errno));
			break;
		}
		if ((uint32_t)r != *plen) {
			worker_fail(w, "send returned %zd, not %u", r, *plen);
			break;
		}
		w->tx_seq[*pdst]++;
		w->sent++;
		*pending = false;
		n++;
	}
	return n;
}

static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	uint8_t buf[MAX_LEN + 1], rbuf[MAX_LEN + 1], want[MAX_LEN];
	struct rds_test_deadline dl;
	unsigned int pdst = 0, progress;
	bool pending = false;
	uint32_t plen = 0;
	uint64_t t0;
	char what[64];

	snprintf(what, sizeof(what), "thread %u", w->id);
	w->s = -1;
	if (rte_thread_register() != 0) {
		worker_fail(w, "rte_thread_register: %s",
			    rte_strerror(rte_errno));
		w->lcore = -1;
	} else {
		w->lcore = (int)rte_lcore_id();
		w->s = rds_test_socket(worker_ip(w->id), BASE_PORT + w->id, 0,
				       0);
		if (w->s < 0)
			worker_fail(w, "socket/bind: %s",
				    rte_strerror(rte_errno));
	}
	/* Everybody bound before anybody sends: a message to an unbound
	 * port is dropped silently. */
	pthread_barrier_wait(&start_barrier);

	t0 = rds_test_now_ns();
	rds_test_deadline_init(&dl, STALL_S, TOTAL_S);
	while (!w->failed && !atomic_load(&abort_all) &&
	       (w->sent < w->n || w->received < w->expected)) {
		progress = worker_send(w, buf, &pending, &plen, &pdst);
		if (rds_test_kick() > 0)
			progress++;
		progress += worker_recv(w, rbuf, want);
		if (progress > 0) {
			rds_test_deadline_progress(&dl);
		} else {
			if (rds_test_deadline_expired(&dl, what))
				worker_fail(w, "stalled: sent %" PRIu64
					    "/%" PRIu64 ", received %" PRIu64
					    "/%" PRIu64, w->sent, w->n,
					    w->received, w->expected);
			sched_yield();
		}
	}
	w->secs = rds_test_since_s(t0);
	atomic_fetch_add(&done_count, 1);

	/* Keep driving the engine (and checking that nothing more arrives)
	 * until every thread is done: closing now would cancel what this
	 * socket sent and nobody has acknowledged yet. */
	while (!w->failed && !atomic_load(&abort_all) &&
	       atomic_load(&done_count) < NTHREADS) {
		rds_test_kick();
		if (worker_recv(w, rbuf, want) > 0 && !w->failed)
			worker_fail(w, "message after all were received");
		if (rds_test_deadline_expired(&dl, what))
			worker_fail(w, "others did not finish");
		sched_yield();
	}
	if (w->s >= 0 && rte_rds_close(w->s) != 0)
		worker_fail(w, "close: %s", rte_strerror(rte_errno));
	if (w->lcore >= 0)
		rte_thread_unregister();
	return NULL;
}

static void
mt_test(bool inline_engine)
{
	const char *what = inline_engine ? "mt/inline-engine" :
					   "mt/lcore-engine";
	uint64_t n = rds_test_env_u64("RDS_TEST_MT_MSGS", 20000);
	struct rte_rds_conf conf;
	struct rte_rds_stats rst;
	unsigned int i, p, o, started = 0;
	uint64_t t0, total = 0;
	double secs;

	rds_test_watchdog(TOTAL_S + 120, what);
	rds_test_conf(&conf,
		      inline_engine ? RTE_RDS_ENGINE_INLINE :
				      rds_test_worker_lcore(),
		      RTE_RDS_IDLE_YIELD);
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);

	memset(workers, 0, sizeof(workers));
	atomic_store(&done_count, 0);
	atomic_store(&abort_all, false);
	for (i = 0; i < NTHREADS; i++) {
		waddr[i] = rds_test_sin(worker_ip(i), BASE_PORT + i);
		workers[i].id = i;
		workers[i].n = n;
	}
	/* Message k of thread p goes to (p + 1 + k % 5) % 6. */
	for (i = 0; i < NTHREADS; i++) {
		for (p = 0; p < NTHREADS; p++) {
			if (p == i)
				continue;
			o = (i + NTHREADS - p - 1) % NTHREADS;
			workers[i].expect_from[p] = n / 5 + (o < n % 5 ? 1 : 0);
			workers[i].expected += workers[i].expect_from[p];
		}
	}
	CU_ASSERT_FATAL(pthread_barrier_init(&start_barrier, NULL,
					     NTHREADS) == 0);

	printf("\n  %s: %d threads x %" PRIu64 " messages, engine %s\n", what,
	       NTHREADS, n, inline_engine ? "inline (driven by every thread)" :
	       "on its own lcore");
	t0 = rds_test_now_ns();
	for (i = 0; i < NTHREADS; i++) {
		if (pthread_create(&workers[i].th, NULL, worker_main,
				   &workers[i]) != 0) {
			printf("  pthread_create failed\n");
			break;
		}
		started++;
	}
	CU_ASSERT_FATAL(started == NTHREADS);
	for (i = 0; i < NTHREADS; i++)
		pthread_join(workers[i].th, NULL);
	secs = rds_test_since_s(t0);
	pthread_barrier_destroy(&start_barrier);

	for (i = 0; i < NTHREADS; i++) {
		struct worker *w = &workers[i];

		printf("  thread %u (lcore %d): sent %" PRIu64 ", received %"
		       PRIu64 "/%" PRIu64 " in %.2f s (EAGAIN %" PRIu64
		       ", ENOBUFS %" PRIu64 ")%s%s\n", i, w->lcore, w->sent,
		       w->received, w->expected, w->secs, w->eagain,
		       w->enobufs, w->failed ? ": " : "", w->err);
		CU_ASSERT(!w->failed);
		CU_ASSERT_EQUAL(w->sent, n);
		CU_ASSERT_EQUAL(w->received, w->expected);
		for (p = 0; p < NTHREADS; p++)
			CU_ASSERT_EQUAL(w->rx_next[p], w->expect_from[p]);
		total += w->received;
	}
	printf("  %s: %" PRIu64 " messages in %.2f s: %.0f msg/s\n", what,
	       total, secs, (double)total / secs);
	CU_ASSERT(secs < TOTAL_S);

	rst = rds_test_stats();
	rds_test_stats_print("  engine counters:", &rst);
	CU_ASSERT(rst.s_recv_delivered >= total);
	CU_ASSERT_EQUAL(rst.s_recv_drop_no_sock, 0);

	CU_ASSERT(rte_rds_fini() == 0);
	rds_test_watchdog(0, NULL);
}

static void
test_mt_lcore(void)
{
	mt_test(false);
}

static void
test_mt_inline(void)
{
	mt_test(true);
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "mt_lcore_engine", test_mt_lcore },
		{ "mt_inline_engine", test_mt_inline },
		{ NULL, NULL },
	};

	return rds_test_main("loop_mt", "0-1", cases);
}

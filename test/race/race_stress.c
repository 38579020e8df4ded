/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite 'race', binary race_stress: threads racing every call on the same
 * sockets and on reused handles, for a bounded time.
 *
 * NTHREADS threads (more than the two cores) do random operations for
 * RDS_TEST_RACE_SECS seconds (default 4) on a shared pool of NPOOL
 * handles: socket + bind, close (of a pool entry, or of any handle
 * number: a stale close that may hit a socket that reused it), sendmsg
 * (non-blocking, or blocking with the socket's SO_SNDTIMEO of 1..5 ms),
 * recvmsg (non-blocking, or blocking with its SO_RCVTIMEO of 1..5 ms),
 * rte_rds_recv_burst, rte_rds_poll, rte_rds_event_fd/event_arm,
 * setsockopt, getsockopt, RDS_INFO_* (through getsockopt and
 * rte_rds_info), bind of a bound socket, and rte_rds_engine_poll.
 *
 * Bookkeeping, per handle number: the socket incarnation registered on
 * it (a unique 64-bit id, registered when its bind succeeds), under a
 * send lock and a receive lock that senders and receivers of that
 * handle hold for their call, and that bind and registration hold
 * together; close takes neither, so closes race every call. The incarnation is also recorded
 * in a table keyed by (address, port) at bind time, where senders look
 * the destination's id up. Ports are handed out once each (per address,
 * wrapping only after ~55,000 binds), so that a message can only reach a
 * socket bound to the port it was sent to.
 *
 * Every message carries its destination's incarnation id, its sender's
 * id and address, a sequence number per sender incarnation, its length
 * and bytes derived from all that. A receiver checks that every message
 * it gets is for its own incarnation (a message may be lost when either
 * end closed, never delivered to another incarnation; one sent to an
 * older incarnation on the same address and port is counted apart), is
 * from the address it claims, intact, and that messages of one sender
 * incarnation arrive in increasing order without duplicates. Every
 * error must be one the call documents for the situation (EBADF,
 * EAGAIN, ETIMEDOUT, ENOBUFS, EADDRINUSE, ENOTCONN, ...). Operations are
 * counted and printed.
 *
 * At the end: every handle is closed, the library must hold no socket
 * and no queued message (RDS_INFO_*), the engine counters must balance
 * (every message the threads sent was queued and then acknowledged or
 * cancelled), and after rte_rds_fini() the DPDK heap and the libc heap
 * must be back where they were before rte_rds_init() (ASan's leak
 * checker does the rest in the sanitizer build).
 *
 * Two runs: engine inline (driven by the threads' blocking calls and
 * explicit rte_rds_engine_poll), and engine on its own lcore.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "race_stress.h"
#include "rds_test_mem.h"

#define PORT_FIRST 10000
#define PORT_LAST 65000
#define LOCK_WAIT_MS 200	/* a creator waits this long for a handle */
/*
 * libc heap in use may grow by a few KiB a run outside the library (the
 * first runs of a process: 29 KiB, 11 KiB, 2 KiB, 1 KiB, then nothing,
 * measured here, with no library object left; glibc and EAL per-thread
 * state of the threads that came and went). A leaked socket or message
 * per incarnation would be megabytes.
 */
#define LIBC_SLACK (64u << 10)



static const char *const op_names[NOPS] = {
	"socket+bind", "close", "close(any handle)", "send", "send(blocking)",
	"recv", "recv(blocking)", "recv_burst", "poll", "event_arm",
	"setsockopt", "getsockopt", "RDS_INFO", "bind(again)",
	"engine_poll",
};

/* Relative frequencies. */
static const unsigned int op_weight[NOPS] = {
	[OP_CREATE] = 4, [OP_CLOSE] = 3, [OP_CLOSE_ANY] = 1,
	[OP_SEND] = 30, [OP_SEND_BLOCK] = 6, [OP_RECV] = 20,
	[OP_RECV_BLOCK] = 6, [OP_BURST] = 4, [OP_POLL] = 5, [OP_ARM] = 3,
	[OP_SETOPT] = 3, [OP_GETOPT] = 3, [OP_INFO] = 2, [OP_REBIND] = 1,
	[OP_KICK] = 8,
};

/* errno values counted one by one; anything else is "other". */
static const int err_vals[] = {
	EBADF, EAGAIN, ETIMEDOUT, ENOBUFS, EADDRINUSE, ENOTCONN, EINVAL,
	EOPNOTSUPP, EMSGSIZE, EMFILE, ENOSPC, ENOMEM,
};
_Static_assert(RTE_DIM(err_vals) == NERR_VALS, "err_vals and EI_* differ");




struct hstate hs[MAXH];
int pool[NPOOL];			/* handles, -1: none (atomic) */
uint32_t dest[NPOOL];		/* addr << 16 | port, 0: none */
uint64_t inc_at[NADDR][65536];	/* (address, port) -> incarnation */
static uint32_t next_port[NADDR];
uint64_t next_inc;
static struct worker workers[NTHREADS];
static int stop_all;
bool engine_inline;
struct sockaddr_in addrs[NADDR];
static unsigned int op_total_weight;

const char *const ips[NADDR] = {
	RDS_TEST_IP1, RDS_TEST_IP2, RDS_TEST_IP3, RDS_TEST_IP4,
};

void
wfail(struct worker *w, const char *fmt, ...)
{
	va_list ap;

	if (!w->failed) {
		va_start(ap, fmt);
		vsnprintf(w->why, sizeof(w->why), fmt, ap);
		va_end(ap);
		printf("  thread %u: FAIL: %s\n", w->id, w->why);
	}
	w->failed = true;
}

static unsigned int
err_index(int e)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(err_vals); i++)
		if (err_vals[i] == e)
			return i;
	return NERR - 1;
}

/* Count a result; an errno outside allowed fails the thread. */
void
count(struct worker *w, enum op op, bool ok, int e, uint32_t allowed)
{
	unsigned int i;

	w->ops[op]++;
	if (ok) {
		w->ok[op]++;
		return;
	}
	i = err_index(e);
	w->err[op][i]++;
	if (i == NERR - 1 || !(allowed & E(i)))
		wfail(w, "%s: unexpected errno %d (%s)", op_names[op], e,
		      strerror(e));
}

uint64_t
rnd(struct worker *w, uint64_t lo, uint64_t hi)
{
	return rds_test_rand_range(&w->rng, lo, hi);
}

static int
pool_get(unsigned int i)
{
	return __atomic_load_n(&pool[i], __ATOMIC_ACQUIRE);
}

/* A handle from the pool, or -1. */
int
pick_handle(struct worker *w)
{
	return pool_get((unsigned int)rnd(w, 0, NPOOL - 1));
}

uint16_t
alloc_port(unsigned int a)
{
	uint32_t n = __atomic_fetch_add(&next_port[a], 1, __ATOMIC_RELAXED);

	return (uint16_t)(PORT_FIRST + n % (PORT_LAST - PORT_FIRST));
}

void
set_timeo(int h, int opt, unsigned int ms)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = (long)ms * 1000 };

	rte_rds_setsockopt(h, SOL_SOCKET, opt, &tv, sizeof(tv));
}

/* Both locks of handle h, or false after LOCK_WAIT_MS. */
bool
lock_both(int h)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += LOCK_WAIT_MS * 1000000L;
	ts.tv_sec += ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	if (pthread_mutex_timedlock(&hs[h].tx_lock, &ts) != 0)
		return false;
	if (pthread_mutex_timedlock(&hs[h].rx_lock, &ts) != 0) {
		pthread_mutex_unlock(&hs[h].tx_lock);
		return false;
	}
	return true;
}

/* ------------------------------------------------------------------ */

static enum op
pick_op(struct worker *w)
{
	unsigned int r = (unsigned int)rnd(w, 0, op_total_weight - 1), i;

	for (i = 0; i < NOPS; i++) {
		if (r < op_weight[i])
			return (enum op)i;
		r -= op_weight[i];
	}
	return OP_KICK;
}

static void *
worker_main(void *arg)
{
	struct worker *w = arg;

	w->registered = rte_thread_register() == 0;
	if (!w->registered)
		wfail(w, "rte_thread_register: %s", rte_strerror(rte_errno));
	while (!w->failed && !__atomic_load_n(&stop_all, __ATOMIC_ACQUIRE)) {
		switch (pick_op(w)) {
		case OP_CREATE:
			op_create(w);
			break;
		case OP_CLOSE:
			op_close(w);
			break;
		case OP_CLOSE_ANY:
			op_close_any(w);
			break;
		case OP_SEND:
			op_send(w, false);
			break;
		case OP_SEND_BLOCK:
			op_send(w, true);
			break;
		case OP_RECV:
			op_recv(w, false);
			break;
		case OP_RECV_BLOCK:
			op_recv(w, true);
			break;
		case OP_BURST:
			op_burst(w);
			break;
		case OP_POLL:
			op_poll(w);
			break;
		case OP_ARM:
			op_arm(w);
			break;
		case OP_SETOPT:
			op_setopt(w);
			break;
		case OP_GETOPT:
			op_getopt(w);
			break;
		case OP_INFO:
			op_info(w);
			break;
		case OP_REBIND:
			op_rebind(w);
			break;
		default:
			op_kick(w);
			break;
		}
	}
	if (w->failed)
		__atomic_store_n(&stop_all, 1, __ATOMIC_RELEASE);
	if (w->registered)
		rte_thread_unregister();
	return NULL;
}

/* ------------------------------------------------------------------ */


/* Records in a snapshot (or -1). */
static long
info_records(int name)
{
	static uint8_t buf[64 << 10];
	socklen_t len = sizeof(buf);
	int r = rte_rds_info(name, buf, &len);

	return r > 0 ? (long)(len / (socklen_t)r) : r == 0 ? 0 : -1;
}

static void
print_ops(uint64_t *total_ops, uint64_t *ebadf)
{
	uint64_t ops, ok, e[NERR];
	unsigned int o, t, i;
	char line[512];
	int n;

	*total_ops = 0;
	*ebadf = 0;
	for (o = 0; o < NOPS; o++) {
		ops = ok = 0;
		memset(e, 0, sizeof(e));
		for (t = 0; t < NTHREADS; t++) {
			ops += workers[t].ops[o];
			ok += workers[t].ok[o];
			for (i = 0; i < NERR; i++)
				e[i] += workers[t].err[o][i];
		}
		*total_ops += ops;
		if (o == OP_SEND || o == OP_SEND_BLOCK || o == OP_RECV ||
		    o == OP_RECV_BLOCK)
			*ebadf += e[EI_BADF];
		n = snprintf(line, sizeof(line), "    %-18s %9" PRIu64
			     " calls, %9" PRIu64 " ok", op_names[o], ops, ok);
		for (i = 0; i < NERR && n < (int)sizeof(line); i++) {
			if (e[i] == 0)
				continue;
			n += snprintf(line + n, sizeof(line) - (size_t)n,
				      ", %s %" PRIu64, i < RTE_DIM(err_vals) ?
				      strerrorname_np(err_vals[i]) : "other",
				      e[i]);
		}
		printf("%s\n", line);
	}
}

static void
stress(bool inline_engine)
{
	const char *what = inline_engine ? "stress/inline-engine" :
					   "stress/lcore-engine";
	uint64_t secs = rds_test_env_u64("RDS_TEST_RACE_SECS", 4);
	uint64_t sent = 0, received = 0, late = 0, unordered = 0, records = 0;
	uint64_t total_ops, ebadf, t0;
	struct rte_rds_conf conf;
	struct rte_rds_stats st;
	struct rds_test_mem m0, m1;
	pthread_attr_t attr;
	cpu_set_t cpus;
	unsigned int i, started = 0, orphans = 0, failed = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int h;

	rds_test_watchdog((unsigned int)secs + 100, what);
	engine_inline = inline_engine;
	/* Bookkeeping from scratch. */
	memset(hs, 0, sizeof(hs));
	for (h = 0; h < MAXH; h++) {
		pthread_mutex_init(&hs[h].tx_lock, NULL);
		pthread_mutex_init(&hs[h].rx_lock, NULL);
	}
	for (i = 0; i < NPOOL; i++) {
		pool[i] = -1;
		dest[i] = 0;
	}
	memset(inc_at, 0, sizeof(inc_at));
	memset(next_port, 0, sizeof(next_port));
	next_inc = 0;
	memset(workers, 0, sizeof(workers));
	stop_all = 0;
	op_total_weight = 0;
	for (i = 0; i < NOPS; i++)
		op_total_weight += op_weight[i];
	for (i = 0; i < NADDR; i++)
		addrs[i] = rds_test_sin(ips[i], 0);

	m0 = rds_test_mem_now();
	rds_test_conf(&conf, inline_engine ? RTE_RDS_ENGINE_INLINE :
			     rds_test_worker_lcore(), RTE_RDS_IDLE_YIELD);
	conf.max_sockets = MAXH;
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);

	/* The EAL pinned this thread to lcore 0: the workers may run on
	 * every CPU, so that calls truly run at the same time. */
	CPU_ZERO(&cpus);
	for (i = 0; i < (unsigned int)ncpu && i < CPU_SETSIZE; i++)
		CPU_SET(i, &cpus);
	pthread_attr_init(&attr);
	pthread_attr_setaffinity_np(&attr, sizeof(cpus), &cpus);

	printf("\n  %s: %d threads, %d handles, %" PRIu64 " s, engine %s\n",
	       what, NTHREADS, NPOOL, secs, inline_engine ?
	       "inline (driven by the threads)" : "on its own lcore");
	for (i = 0; i < NTHREADS; i++) {
		struct worker *w = &workers[i];

		w->id = i;
		w->rng = 0x5eed0000ULL + i * 7919 + (inline_engine ? 0 : 1);
		w->sbuf = malloc(MAXLEN);
		w->rbuf = malloc(MAXLEN + 1);
		w->want = malloc(MAXLEN);
		w->ibuf = malloc(INFO_BUF);
		CU_ASSERT_FATAL(w->sbuf != NULL && w->rbuf != NULL &&
				w->want != NULL && w->ibuf != NULL);
		if (pthread_create(&w->th, &attr, worker_main, w) != 0)
			break;
		started++;
	}
	pthread_attr_destroy(&attr);
	CU_ASSERT_FATAL(started == NTHREADS);

	t0 = rds_test_now_ns();
	while (rds_test_since_s(t0) < (double)secs &&
	       !__atomic_load_n(&stop_all, __ATOMIC_ACQUIRE))
		rds_test_usleep(10000);
	__atomic_store_n(&stop_all, 1, __ATOMIC_RELEASE);
	/* Every blocking call ends within TIMEO_MS, or when its socket is
	 * closed; closing every handle ends the others. */
	for (i = 0; i < NTHREADS; i++) {
		struct timespec ts;

		for (;;) {
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 2;
			if (pthread_timedjoin_np(workers[i].th, NULL, &ts) == 0)
				break;
			printf("  thread %u still running after the end: "
			       "closing every handle\n", i);
			for (h = 0; h < MAXH; h++)
				rte_rds_close(h);
			CU_ASSERT_FATAL(rds_test_since_s(t0) < secs + 60);
		}
	}
	printf("  %s: ran %.2f s\n", what, rds_test_since_s(t0));

	for (i = 0; i < NTHREADS; i++) {
		struct worker *w = &workers[i];

		if (w->failed) {
			failed++;
			printf("  thread %u failed: %s\n", i, w->why);
		}
		sent += w->sent;
		received += w->received;
		late += w->late;
		unordered += w->unordered;
		records += w->records;
		free(w->sbuf);
		free(w->rbuf);
		free(w->want);
		free(w->ibuf);
	}
	print_ops(&total_ops, &ebadf);
	printf("  %" PRIu64 " operations: %" PRIu64 " messages sent, %" PRIu64
	       " received and checked, %" PRIu64 " to an older socket on "
	       "the same port, %" PRIu64 " not checked for order, %" PRIu64
	       " RDS_INFO records checked, %" PRIu64 " incarnations\n",
	       total_ops, sent, received, late, unordered, records,
	       __atomic_load_n(&next_inc, __ATOMIC_RELAXED));
	CU_ASSERT_EQUAL(failed, 0);
	/* The run did race: sockets came and went, messages flowed. */
	CU_ASSERT(received > 0);
	CU_ASSERT(total_ops > 1000);
	CU_ASSERT(ebadf > 0);

	/* Close everything: the pool, then any handle left over. */
	for (i = 0; i < NPOOL; i++) {
		h = __atomic_exchange_n(&pool[i], -1, __ATOMIC_ACQ_REL);
		if (h >= 0)
			rte_rds_close(h);
	}
	for (h = 0; h < MAXH; h++)
		if (rte_rds_close(h) == 0)
			orphans++;
	if (orphans != 0)
		printf("  %u sockets outside the pool closed at the end\n",
		       orphans);
	/* Nothing left inside the library. */
	if (inline_engine)
		rds_test_kick_n(100);
	else
		rds_test_usleep(20000);
	CU_ASSERT_EQUAL(info_records(RDS_INFO_SOCKETS), 0);
	CU_ASSERT_EQUAL(info_records(RDS_INFO_RECV_MESSAGES), 0);
	CU_ASSERT_EQUAL(info_records(RDS_INFO_SEND_MESSAGES), 0);
	CU_ASSERT_EQUAL(info_records(RDS_INFO_RETRANS_MESSAGES), 0);
	st = rds_test_stats();
	rds_test_stats_print("  engine counters:", &st);
	/* Every message sendmsg took was queued, then acknowledged or
	 * cancelled (by close or RDS_CANCEL_SENT_TO). */
	CU_ASSERT_EQUAL(st.s_send_queued, sent);
	CU_ASSERT_EQUAL(st.s_send_queued, st.s_send_acked +
			st.s_send_cancelled);
	CU_ASSERT(received <= st.s_recv_delivered);
	CU_ASSERT_EQUAL(st.s_recv_drop_bad_hdr, 0);
	CU_ASSERT_EQUAL(st.s_recv_drop_nomem, 0);

	CU_ASSERT(rds_test_lib_fini() == 0);
	m1 = rds_test_mem_now();
	printf("  memory before rte_rds_init -> after rte_rds_fini: libc %zu "
	       "-> %zu, dpdk %zu -> %zu\n", m0.libc, m1.libc, m0.dpdk,
	       m1.dpdk);
	if (m1.libc == 0)
		printf("  libc heap not measurable here (mallinfo2 reports 0, "
		       "as under ASan): leaks are left to LeakSanitizer\n");
	CU_ASSERT(m1.dpdk <= m0.dpdk);
	CU_ASSERT(m1.libc <= m0.libc + LIBC_SLACK);
	for (h = 0; h < MAXH; h++) {
		pthread_mutex_destroy(&hs[h].tx_lock);
		pthread_mutex_destroy(&hs[h].rx_lock);
	}
	rds_test_watchdog(0, NULL);
}

static void
test_stress_inline(void)
{
	stress(true);
}

static void
test_stress_lcore(void)
{
	stress(false);
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "stress_inline_engine", test_stress_inline },
		{ "stress_lcore_engine", test_stress_lcore },
		{ NULL, NULL },
	};
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	rds_test_eal_init("race_stress", "0-1");
	rc = rds_test_run_suite("race_stress", cases);
	rds_test_eal_fini();
	return rc;
}

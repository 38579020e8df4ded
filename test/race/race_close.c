/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite 'race', binary race_close: rte_rds_close() racing the calls that
 * are inside the socket (issue 8, found items 1 and 2), as deterministic
 * reproducers. Each round has a helper thread make one call (or a loop
 * of calls) on a socket while the test thread closes it, and, in the
 * reuse cases, at once opens a new socket on the same handle.
 *
 * "Inside": with the engine inline, only the helper drives it, so the
 * engine's s_polls counter moves only while the helper waits inside its
 * blocking call; the test thread closes after it moved (by a random 1..8
 * polls), so the call is known to be blocked. With the engine on its own
 * lcore the test thread closes after a random 0..200 us instead (a call
 * that has not started yet meets the closed handle: EBADF too).
 *
 * - recv_close_inline, recv_close_lcore (a): a thread blocked in
 *   rte_rds_recvmsg (blocking, no timeout) while the socket is closed:
 *   recvmsg returns -1/EBADF (the documented departure from Linux, where
 *   it stays blocked), close returns 0, nothing crashes.
 * - recv_close_reuse_inline, recv_close_reuse_lcore (b): the same, and
 *   the handle is reused at once by a new socket bound to another port,
 *   which is sent a message: the blocked call returns -1/EBADF and never
 *   that message; the new socket receives it.
 * - send_close_reuse_inline, send_close_reuse_lcore (c): a sender
 *   blocked for send-buffer space (4 KiB SO_SNDBUF, the loop transport
 *   dropping every frame so that nothing is ever acknowledged) while the
 *   socket is closed and its handle reused: the send fails with EBADF,
 *   and the new socket's send-buffer accounting is untouched (its
 *   SO_SNDBUF worth of non-blocking sends succeed, exactly as many as on
 *   a fresh socket).
 * - poll_close_inline, poll_close_lcore, arm_close_inline,
 *   arm_close_lcore (d): rte_rds_poll blocked (timeout -1) on a socket
 *   that is closed returns POLLNVAL (or -1/EBADF); rte_rds_event_arm and
 *   rte_rds_poll called in a loop while the socket is closed end with
 *   EBADF / POLLNVAL, no other result.
 * - info_close_inline, info_close_lcore (e):
 *   getsockopt(RDS_INFO_RECV_MESSAGES / RDS_INFO_SOCKETS /
 *   RDS_INFO_SEND_MESSAGES) in a loop on another thread while sockets
 *   with queued messages are closed: every call succeeds (or ENOSPC) and
 *   every record is one the test could have made.
 *
 * - poll_close_reuse_inline, poll_close_reuse_lcore: rte_rds_poll blocked
 *   on a socket that is closed, its handle reused at once by a socket
 *   bound elsewhere that has a message queued: the poll reports POLLNVAL,
 *   not the new socket's POLLIN (rte_rds_poll holds its sockets for the
 *   whole call; before, it held them only while it looked, and with the
 *   engine inline almost every round reported the new socket's POLLIN).
 *
 * RDS_TEST_RACE_ROUNDS sets the rounds of each test (default 300). A
 * call that does not return within 10 s of the close fails the binary
 * at once (exit 3): the thread is stuck inside the library, which cannot
 * then be shut down.
 */

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <CUnit/CUnit.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_rds.h>
#include <rte_rds_loop.h>

#include "rds_test.h"

#define STUCK_S 10		/* a call must return this soon after close */
#define MAX_REPORTS 5		/* failures printed per test */
#define INFO_BUF (256u << 10)

/* Ports: one per role, so that tests never meet each other's traffic. */
#define PORT_A 4001
#define PORT_B 4002
#define PORT_TX 5001
#define PORT_Q 5002
#define PORT_INFO_BASE 4100
#define INFO_PORTS 64
#define INFO_MSGS 4
#define INFO_LEN 100

enum job_kind {
	JOB_RECV = 1,		/* blocking recvmsg on s */
	JOB_SEND,		/* blocking sendmsg of len bytes on s to to */
	JOB_POLL,		/* rte_rds_poll(s, events, timeout_ms) */
	JOB_ARM_LOOP,		/* event_arm / poll on s until the handle fails */
	JOB_INFO_LOOP,		/* RDS_INFO_* on s until stop */
	JOB_QUIT,
};

/* One helper thread, registered with the EAL, that runs posted jobs. */
struct helper {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	/* Set by the test thread under mu before posting. */
	enum job_kind kind;
	int s;
	short events;
	int timeout_ms;
	uint32_t len;
	struct sockaddr_in to;
	uint64_t posted;
	/* Set by the helper (atomics). */
	uint64_t started;
	uint64_t done;
	uint64_t iters;
	int stop;		/* loop jobs: end now (set by the test) */
	/* Results, read once done == posted. */
	ssize_t ret;
	int err;
	short revents;
	uint8_t data[64];
	uint64_t records;	/* info loop: records checked */
	uint64_t enospc;
	bool bad;
	char why[256];
};

static struct helper helper;
static unsigned int rounds;
static bool engine_inline;

static void
stuck(const char *what)
{
	printf("\n  FAIL: %s: the call did not return within %d s of "
	       "rte_rds_close(): the thread is stuck inside the library, "
	       "which cannot be shut down; exiting\n", what, STUCK_S);
	fflush(stdout);
	_exit(3);
}

static void
helper_bad(struct helper *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
helper_bad(struct helper *h, const char *fmt, ...)
{
	va_list ap;

	if (h->bad)
		return;
	va_start(ap, fmt);
	vsnprintf(h->why, sizeof(h->why), fmt, ap);
	va_end(ap);
	h->bad = true;
}

static uint32_t
ip_of(const char *ip)
{
	struct in_addr a;

	if (inet_pton(AF_INET, ip, &a) != 1)
		return 0;
	return a.s_addr;
}

/* RDS_INFO records, checked against what info_close can have made: its
 * receivers on RDS_TEST_IP3:PORT_INFO_BASE.., one sender on
 * RDS_TEST_IP2:PORT_TX, the helper's socket on RDS_TEST_IP4:PORT_Q. */
static void
info_check(struct helper *h, int name, const uint8_t *buf, socklen_t len,
	   int each)
{
	const struct rds_info_message *im;
	const struct rds_info_socket *is;
	socklen_t off;
	uint16_t p;

	if (each <= 0 || len % (socklen_t)each != 0) {
		helper_bad(h, "info %d: record size %d, %u bytes", name, each,
			   (unsigned int)len);
		return;
	}
	for (off = 0; off < len; off += (socklen_t)each) {
		h->records++;
		switch (name) {
		case RDS_INFO_RECV_MESSAGES:
		case RDS_INFO_SEND_MESSAGES:
			im = (const void *)(buf + off);
			p = name == RDS_INFO_RECV_MESSAGES ? ntohs(im->lport) :
			    ntohs(im->fport);
			if (im->len != INFO_LEN || p < PORT_INFO_BASE ||
			    p >= PORT_INFO_BASE + INFO_PORTS)
				helper_bad(h, "info %d: message len %u port "
					   "%u", name, im->len, p);
			break;
		case RDS_INFO_SOCKETS:
			is = (const void *)(buf + off);
			p = ntohs(is->bound_port);
			if (is->bound_addr == ip_of(RDS_TEST_IP3) ?
			    (p < PORT_INFO_BASE ||
			     p >= PORT_INFO_BASE + INFO_PORTS) :
			    (is->bound_addr == ip_of(RDS_TEST_IP2) ?
			     p != PORT_TX :
			     (is->bound_addr == ip_of(RDS_TEST_IP4) ?
			      p != PORT_Q : is->bound_addr != 0)))
				helper_bad(h, "info sockets: bound %08x:%u",
					   ntohl(is->bound_addr), p);
			if (is->sndbuf == 0 || is->rcvbuf == 0)
				helper_bad(h, "info sockets: sndbuf %u rcvbuf "
					   "%u", is->sndbuf, is->rcvbuf);
			break;
		default:
			break;
		}
	}
}

static void
job_info_loop(struct helper *h)
{
	static const int names[] = {
		RDS_INFO_RECV_MESSAGES, RDS_INFO_SOCKETS,
		RDS_INFO_RECV_MESSAGES, RDS_INFO_SEND_MESSAGES,
	};
	uint8_t *buf = malloc(INFO_BUF);
	unsigned int i = 0;
	socklen_t len;
	int r, name;

	if (buf == NULL) {
		helper_bad(h, "no memory");
		return;
	}
	while (!__atomic_load_n(&h->stop, __ATOMIC_ACQUIRE)) {
		name = names[i++ % RTE_DIM(names)];
		len = INFO_BUF;
		r = rte_rds_getsockopt(h->s, SOL_RDS, name, buf, &len);
		if (r < 0) {
			if (errno == ENOSPC)
				h->enospc++;
			else
				helper_bad(h, "getsockopt(%d): %s", name,
					   strerror(errno));
		} else {
			info_check(h, name, buf, len, r);
		}
		__atomic_fetch_add(&h->iters, 1, __ATOMIC_RELEASE);
	}
	free(buf);
}

/* event_arm and a zero-timeout poll, alternately, until the handle
 * fails; the only acceptable end is EBADF or POLLNVAL. */
static void
job_arm_loop(struct helper *h)
{
	struct rte_rds_pollfd pfd;
	uint64_t n = 0;
	int r;

	if (rte_rds_event_fd(h->s) < 0) {
		h->ret = -1;
		h->err = errno;
		return;
	}
	for (;;) {
		if (n++ % 2 == 0) {
			r = rte_rds_event_arm(h->s, POLLIN | POLLOUT);
			if (r < 0) {
				h->ret = -1;
				h->err = errno;
				return;
			}
		} else {
			pfd.sock = h->s;
			pfd.events = POLLIN | POLLOUT;
			pfd.revents = 0;
			r = rte_rds_poll(&pfd, 1, 0);
			if (r < 0 || (pfd.revents & POLLNVAL)) {
				h->ret = r;
				h->err = r < 0 ? errno : 0;
				h->revents = pfd.revents;
				return;
			}
		}
		__atomic_fetch_add(&h->iters, 1, __ATOMIC_RELEASE);
	}
}

static void
helper_run(struct helper *h, enum job_kind kind)
{
	struct rte_rds_pollfd pfd;
	uint8_t buf[2048];
	ssize_t r;

	h->ret = 0;
	h->err = 0;
	h->revents = 0;
	memset(h->data, 0, sizeof(h->data));
	switch (kind) {
	case JOB_RECV:
		r = rds_test_recv(h->s, buf, sizeof(buf), NULL, 0, NULL);
		h->ret = r;
		h->err = r < 0 ? errno : 0;
		if (r > 0)
			memcpy(h->data, buf, RTE_MIN((size_t)r,
						     sizeof(h->data) - 1));
		break;
	case JOB_SEND:
		memset(buf, 0x5a, sizeof(buf));
		r = rds_test_send(h->s, buf, RTE_MIN(h->len, sizeof(buf)),
				  &h->to, 0);
		h->ret = r;
		h->err = r < 0 ? errno : 0;
		break;
	case JOB_POLL:
		pfd.sock = h->s;
		pfd.events = h->events;
		pfd.revents = 0;
		h->ret = rte_rds_poll(&pfd, 1, h->timeout_ms);
		h->err = h->ret < 0 ? errno : 0;
		h->revents = pfd.revents;
		break;
	case JOB_ARM_LOOP:
		job_arm_loop(h);
		break;
	case JOB_INFO_LOOP:
		job_info_loop(h);
		break;
	default:
		break;
	}
}

static void *
helper_main(void *arg)
{
	struct helper *h = arg;
	bool registered = rte_thread_register() == 0;
	enum job_kind kind;
	uint64_t seq, seen = 0;

	if (!registered)
		printf("  helper: rte_thread_register: %s\n",
		       rte_strerror(rte_errno));
	for (;;) {
		pthread_mutex_lock(&h->mu);
		while (h->posted == seen)
			pthread_cond_wait(&h->cv, &h->mu);
		seq = seen = h->posted;
		kind = h->kind;
		pthread_mutex_unlock(&h->mu);
		if (kind == JOB_QUIT)
			break;
		__atomic_store_n(&h->started, seq, __ATOMIC_RELEASE);
		helper_run(h, kind);
		__atomic_store_n(&h->done, seq, __ATOMIC_RELEASE);
	}
	if (registered)
		rte_thread_unregister();
	return NULL;
}

static void
helper_post(struct helper *h, enum job_kind kind, int s)
{
	pthread_mutex_lock(&h->mu);
	h->kind = kind;
	h->s = s;
	__atomic_store_n(&h->stop, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&h->iters, 0, __ATOMIC_RELEASE);
	h->posted++;
	pthread_cond_signal(&h->cv);
	pthread_mutex_unlock(&h->mu);
}

static bool
helper_done(struct helper *h)
{
	return __atomic_load_n(&h->done, __ATOMIC_ACQUIRE) == h->posted;
}

/* Wait for the posted job to end; a job that does not is stuck. */
static void
helper_wait(struct helper *h, const char *what)
{
	uint64_t t0 = rds_test_now_ns();

	while (!helper_done(h)) {
		if (rds_test_since_s(t0) > STUCK_S)
			stuck(what);
		rds_test_usleep(20);
	}
}

static void
helper_start(void)
{
	memset(&helper, 0, sizeof(helper));
	pthread_mutex_init(&helper.mu, NULL);
	pthread_cond_init(&helper.cv, NULL);
	CU_ASSERT_FATAL(pthread_create(&helper.th, NULL, helper_main,
				       &helper) == 0);
}

static void
helper_stop(void)
{
	helper_post(&helper, JOB_QUIT, -1);
	pthread_join(helper.th, NULL);
	pthread_cond_destroy(&helper.cv);
	pthread_mutex_destroy(&helper.mu);
}

/*
 * Let the posted blocking call get inside before closing. Inline engine:
 * until s_polls moved by 1..8 (only the helper polls it). Engine on an
 * lcore: the helper started, then 0..200 us. false when the call
 * returned on its own (the caller reports it).
 */
static bool
wait_inside(uint64_t polls0, uint64_t *rng, const char *what)
{
	uint64_t t0 = rds_test_now_ns();
	uint64_t k = rds_test_rand_range(rng, 1, 8);

	if (engine_inline) {
		while (rds_test_stats().s_polls < polls0 + k) {
			if (helper_done(&helper))
				return false;
			if (rds_test_since_s(t0) > STUCK_S)
				stuck(what);
			sched_yield();
		}
		return !helper_done(&helper);
	}
	while (__atomic_load_n(&helper.started, __ATOMIC_ACQUIRE) !=
	       helper.posted)
		sched_yield();
	rds_test_usleep((unsigned int)rds_test_rand_range(rng, 0, 200));
	return true;
}

static void
lib_up(bool inline_engine)
{
	struct rte_rds_conf conf;

	engine_inline = inline_engine;
	rds_test_conf(&conf, inline_engine ? RTE_RDS_ENGINE_INLINE :
			     rds_test_worker_lcore(), RTE_RDS_IDLE_YIELD);
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
	helper_start();
}

static void
lib_down(void)
{
	helper_stop();
	CU_ASSERT(rds_test_lib_fini() == 0);
}

/* Count a failed round, print the first few. */
static void
round_fail(unsigned int *fails, unsigned int round, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
round_fail(unsigned int *fails, unsigned int round, const char *fmt, ...)
{
	va_list ap;

	if ((*fails)++ >= MAX_REPORTS)
		return;
	printf("  round %u: ", round);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* ------------------------------------------------------------------ */
/* (a) recvmsg blocked while the socket is closed */

static void
recv_close(bool inline_engine)
{
	const char *what = inline_engine ? "recv_close_inline" :
					   "recv_close_lcore";
	unsigned int r, fails = 0, early = 0;
	uint64_t rng = 0xa11ce, polls0;
	int s;

	rds_test_watchdog(600, what);
	lib_up(inline_engine);
	printf("\n");
	for (r = 0; r < rounds; r++) {
		s = rds_test_socket(RDS_TEST_IP1, PORT_A, 0, 0);
		CU_ASSERT_FATAL(s >= 0);
		polls0 = rds_test_stats().s_polls;
		helper_post(&helper, JOB_RECV, s);
		if (!wait_inside(polls0, &rng, what))
			early++;
		if (rte_rds_close(s) != 0)
			round_fail(&fails, r, "close: %s", strerror(errno));
		helper_wait(&helper, "recvmsg blocked on a closed socket");
		if (helper.ret != -1 || helper.err != EBADF)
			round_fail(&fails, r, "recvmsg returned %zd (%s), not "
				   "-1/EBADF", helper.ret,
				   helper.ret < 0 ? strerror(helper.err) :
				   "a message");
	}
	printf("  %s: %u rounds, %u failed, %u returned before the close\n",
	       what, rounds, fails, early);
	CU_ASSERT_EQUAL(fails, 0);
	CU_ASSERT_EQUAL(early, 0);
	lib_down();
	rds_test_watchdog(0, NULL);
}

static void
test_recv_close_inline(void)
{
	recv_close(true);
}

static void
test_recv_close_lcore(void)
{
	recv_close(false);
}

/* ------------------------------------------------------------------ */
/* (b) the same, with the handle reused at once */

static void
recv_close_reuse(bool inline_engine)
{
	const char *what = inline_engine ? "recv_close_reuse_inline" :
					   "recv_close_reuse_lcore";
	struct sockaddr_in to = rds_test_sin(RDS_TEST_IP1, PORT_B), from;
	struct timeval tv = { .tv_sec = 2, .tv_usec = 0 };
	unsigned int r, fails = 0, stolen = 0, noreuse = 0;
	uint64_t rng = 0xb0b, polls0;
	char msg[64], got[64];
	int tx, s, s2;
	ssize_t n;

	rds_test_watchdog(600, what);
	lib_up(inline_engine);
	printf("\n");
	tx = rds_test_socket(RDS_TEST_IP2, PORT_TX, 0, 0);
	CU_ASSERT_FATAL(tx >= 0);
	for (r = 0; r < rounds; r++) {
		s = rds_test_socket(RDS_TEST_IP1, PORT_A, 0, 0);
		CU_ASSERT_FATAL(s >= 0);
		polls0 = rds_test_stats().s_polls;
		helper_post(&helper, JOB_RECV, s);
		if (!wait_inside(polls0, &rng, what))
			round_fail(&fails, r, "recvmsg returned before the "
				   "close: %zd", helper.ret);
		if (rte_rds_close(s) != 0)
			round_fail(&fails, r, "close: %s", strerror(errno));
		/* At once: the same handle, another port, a message. */
		s2 = rds_test_socket(RDS_TEST_IP1, PORT_B, 0, 0);
		CU_ASSERT_FATAL(s2 >= 0);
		if (s2 != s)
			noreuse++;
		snprintf(msg, sizeof(msg), "new socket, round %u", r);
		if (rds_test_send(tx, msg, strlen(msg) + 1, &to, 0) !=
		    (ssize_t)strlen(msg) + 1)
			round_fail(&fails, r, "send: %s", strerror(errno));
		/* The blocked call first: it must have failed, not taken
		 * the new socket's message. */
		helper_wait(&helper, "recvmsg blocked on a closed, reused "
			    "handle");
		if (helper.ret != -1 || helper.err != EBADF)
			round_fail(&fails, r, "blocked recvmsg returned %zd "
				   "(%s), not -1/EBADF", helper.ret,
				   helper.ret < 0 ? strerror(helper.err) :
				   (const char *)helper.data);
		if (helper.ret > 0 &&
		    strcmp((const char *)helper.data, msg) == 0) {
			/* It did: the new socket will not get it. */
			stolen++;
			CU_ASSERT(rte_rds_close(s2) == 0);
			continue;
		}
		/* The new socket gets it (a 2 s SO_RCVTIMEO bounds this). */
		rte_rds_setsockopt(s2, SOL_SOCKET, SO_RCVTIMEO, &tv,
				   sizeof(tv));
		memset(got, 0, sizeof(got));
		n = rds_test_recv(s2, got, sizeof(got) - 1, &from, 0, NULL);
		if (n != (ssize_t)strlen(msg) + 1 || strcmp(got, msg) != 0)
			round_fail(&fails, r, "new socket: recv %zd (%s)", n,
				   n < 0 ? strerror(errno) : got);
		CU_ASSERT(rte_rds_close(s2) == 0);
	}
	printf("  %s: %u rounds, %u failed, %u times the blocked call "
	       "returned the new socket's message, %u rounds without "
	       "handle reuse\n", what, rounds, fails, stolen, noreuse);
	CU_ASSERT_EQUAL(fails, 0);
	CU_ASSERT_EQUAL(stolen, 0);
	/* The free list hands the closed handle out first. */
	CU_ASSERT_EQUAL(noreuse, 0);
	CU_ASSERT(rte_rds_close(tx) == 0);
	lib_down();
	rds_test_watchdog(0, NULL);
}

static void
test_recv_close_reuse_inline(void)
{
	recv_close_reuse(true);
}

static void
test_recv_close_reuse_lcore(void)
{
	recv_close_reuse(false);
}

/* ------------------------------------------------------------------ */
/* (c) sender blocked for send-buffer space, handle reused */

#define SNDBUF 4096
#define SLEN 1024

/* Non-blocking sends of SLEN bytes until EAGAIN: how many went. */
static int
fill_sndbuf(int s, const struct sockaddr_in *to, int *err)
{
	static uint8_t buf[SLEN];
	int n = 0;

	*err = 0;
	while (n < 1000) {
		if (rds_test_send(s, buf, SLEN, to, MSG_DONTWAIT) != SLEN) {
			*err = errno;
			break;
		}
		n++;
	}
	return n;
}

static void
send_close_reuse(bool inline_engine)
{
	const char *what = inline_engine ? "send_close_reuse_inline" :
					   "send_close_reuse_lcore";
	struct rte_rds_loop_faults f = { .drop_one_in = 1 };
	struct sockaddr_in to = rds_test_sin(RDS_TEST_IP2, PORT_TX);
	unsigned int r, fails = 0, noreuse = 0, charged = 0;
	uint64_t rng = 0xcafe, polls0;
	int dst, s, s2, n0, n1, err;

	rds_test_watchdog(600, what);
	lib_up(inline_engine);
	printf("\n");
	/* Nothing is ever acknowledged: the send buffer only empties when
	 * its socket closes. */
	CU_ASSERT_FATAL(rte_rds_loop_set_faults(&f) == 0);
	dst = rds_test_socket(RDS_TEST_IP2, PORT_TX, 0, 0);
	CU_ASSERT_FATAL(dst >= 0);
	for (r = 0; r < rounds; r++) {
		s = rds_test_socket(RDS_TEST_IP1, PORT_A, SNDBUF, 0);
		CU_ASSERT_FATAL(s >= 0);
		n0 = fill_sndbuf(s, &to, &err);
		if (n0 != SNDBUF / SLEN || err != EAGAIN)
			round_fail(&fails, r, "fresh socket: %d sends before "
				   "%s, not %d before EAGAIN", n0,
				   strerror(err), SNDBUF / SLEN);
		helper.len = SLEN;
		helper.to = to;
		polls0 = rds_test_stats().s_polls;
		helper_post(&helper, JOB_SEND, s);
		if (!wait_inside(polls0, &rng, what))
			round_fail(&fails, r, "blocking send returned before "
				   "the close: %zd (%s)", helper.ret,
				   strerror(helper.err));
		if (rte_rds_close(s) != 0)
			round_fail(&fails, r, "close: %s", strerror(errno));
		s2 = rds_test_socket(RDS_TEST_IP1, PORT_B, SNDBUF, 0);
		CU_ASSERT_FATAL(s2 >= 0);
		if (s2 != s)
			noreuse++;
		helper_wait(&helper, "sendmsg blocked for send-buffer space "
			    "on a closed, reused handle");
		if (helper.ret != -1 || helper.err != EBADF)
			round_fail(&fails, r, "blocked send returned %zd (%s), "
				   "not -1/EBADF", helper.ret,
				   helper.ret < 0 ? strerror(helper.err) :
				   "sent");
		/* The new socket's buffer is its own, and empty. */
		n1 = fill_sndbuf(s2, &to, &err);
		if (n1 != n0) {
			charged++;
			round_fail(&fails, r, "new socket: %d sends before %s, "
				   "a fresh socket takes %d", n1,
				   strerror(err), n0);
		}
		CU_ASSERT(rte_rds_close(s2) == 0);
	}
	printf("  %s: %u rounds, %u failed, %u times the new socket's "
	       "send buffer was charged, %u rounds without handle "
	       "reuse\n", what, rounds, fails, charged, noreuse);
	CU_ASSERT_EQUAL(fails, 0);
	CU_ASSERT_EQUAL(noreuse, 0);
	CU_ASSERT(rte_rds_close(dst) == 0);
	CU_ASSERT(rte_rds_loop_set_faults(NULL) == 0);
	lib_down();
	rds_test_watchdog(0, NULL);
}

static void
test_send_close_reuse_inline(void)
{
	send_close_reuse(true);
}

static void
test_send_close_reuse_lcore(void)
{
	send_close_reuse(false);
}

/* ------------------------------------------------------------------ */
/* (d) rte_rds_poll and rte_rds_event_arm racing close */

static void
poll_close(bool inline_engine)
{
	const char *what = inline_engine ? "poll_close_inline" :
					   "poll_close_lcore";
	unsigned int r, fails = 0, early = 0;
	uint64_t rng = 0xd00d, polls0;
	int s;

	rds_test_watchdog(600, what);
	lib_up(inline_engine);
	printf("\n");
	for (r = 0; r < rounds; r++) {
		s = rds_test_socket(RDS_TEST_IP1, PORT_A, 0, 0);
		CU_ASSERT_FATAL(s >= 0);
		helper.events = POLLIN;
		helper.timeout_ms = -1;
		polls0 = rds_test_stats().s_polls;
		helper_post(&helper, JOB_POLL, s);
		if (!wait_inside(polls0, &rng, what))
			early++;
		if (rte_rds_close(s) != 0)
			round_fail(&fails, r, "close: %s", strerror(errno));
		helper_wait(&helper, "rte_rds_poll blocked on a closed socket");
		if (!(helper.ret == 1 && helper.revents == POLLNVAL) &&
		    !(helper.ret == -1 && helper.err == EBADF))
			round_fail(&fails, r, "poll returned %zd revents "
				   "0x%x (%s), not POLLNVAL", helper.ret,
				   (unsigned int)helper.revents,
				   helper.ret < 0 ? strerror(helper.err) :
				   "-");
	}
	printf("  %s: %u rounds, %u failed, %u returned before the close\n",
	       what, rounds, fails, early);
	CU_ASSERT_EQUAL(fails, 0);
	CU_ASSERT_EQUAL(early, 0);
	lib_down();
	rds_test_watchdog(0, NULL);
}

static void
test_poll_close_inline(void)
{
	poll_close(true);
}

static void
test_poll_close_lcore(void)
{
	poll_close(false);
}

/* The same with the handle reused at once by a socket bound elsewhere
 * that has a message queued: the poll that started on the closed
 * socket must report POLLNVAL, not the new socket's POLLIN. */
static void
poll_close_reuse(bool inline_engine)
{
	const char *what = inline_engine ? "poll_close_reuse_inline" :
					   "poll_close_reuse_lcore";
	struct sockaddr_in to = rds_test_sin(RDS_TEST_IP1, PORT_B);
	unsigned int r, fails = 0, early = 0, newsock = 0;
	uint64_t rng = 0xd11d, polls0;
	uint8_t m[8] = { 0 };
	int tx, s, s2;

	rds_test_watchdog(600, what);
	lib_up(inline_engine);
	printf("\n");
	tx = rds_test_socket(RDS_TEST_IP2, PORT_TX, 0, 0);
	CU_ASSERT_FATAL(tx >= 0);
	for (r = 0; r < rounds; r++) {
		s = rds_test_socket(RDS_TEST_IP1, PORT_A, 0, 0);
		CU_ASSERT_FATAL(s >= 0);
		helper.events = POLLIN;
		helper.timeout_ms = -1;
		polls0 = rds_test_stats().s_polls;
		helper_post(&helper, JOB_POLL, s);
		if (!wait_inside(polls0, &rng, what))
			early++;
		if (rte_rds_close(s) != 0)
			round_fail(&fails, r, "close: %s", strerror(errno));
		s2 = rds_test_socket(RDS_TEST_IP1, PORT_B, 0, 0);
		CU_ASSERT_FATAL(s2 == s);
		if (rds_test_send(tx, m, sizeof(m), &to, 0) != sizeof(m))
			round_fail(&fails, r, "send: %s", strerror(errno));
		helper_wait(&helper, "rte_rds_poll blocked on a closed, reused "
			    "handle");
		if (helper.ret == 1 && (helper.revents & POLLIN))
			newsock++;
		if (!(helper.ret == 1 && helper.revents == POLLNVAL) &&
		    !(helper.ret == -1 && helper.err == EBADF))
			round_fail(&fails, r, "poll returned %zd revents "
				   "0x%x (%s), not POLLNVAL", helper.ret,
				   (unsigned int)helper.revents,
				   helper.ret < 0 ? strerror(helper.err) :
				   "-");
		CU_ASSERT(rte_rds_close(s2) == 0);
	}
	printf("  %s: %u rounds, %u failed, %u reported the new socket's "
	       "POLLIN, %u returned before the close\n", what, rounds, fails,
	       newsock, early);
	CU_ASSERT_EQUAL(fails, 0);
	CU_ASSERT_EQUAL(early, 0);
	CU_ASSERT(rte_rds_close(tx) == 0);
	lib_down();
	rds_test_watchdog(0, NULL);
}

static void
test_poll_close_reuse_inline(void)
{
	poll_close_reuse(true);
}

static void
test_poll_close_reuse_lcore(void)
{
	poll_close_reuse(false);
}

static void
arm_close(bool inline_engine)
{
	const char *what = inline_engine ? "arm_close_inline" :
					   "arm_close_lcore";
	unsigned int r, fails = 0;
	uint64_t rng = 0xa4a4, k, t0, iters = 0;
	int s;

	rds_test_watchdog(600, what);
	lib_up(inline_engine);
	printf("\n");
	for (r = 0; r < rounds; r++) {
		s = rds_test_socket(RDS_TEST_IP1, PORT_A, 0, 0);
		CU_ASSERT_FATAL(s >= 0);
		helper_post(&helper, JOB_ARM_LOOP, s);
		k = rds_test_rand_range(&rng, 1, 64);
		t0 = rds_test_now_ns();
		while (__atomic_load_n(&helper.iters, __ATOMIC_ACQUIRE) < k &&
		       !helper_done(&helper) && rds_test_since_s(t0) < 10)
			sched_yield();
		if (rte_rds_close(s) != 0)
			round_fail(&fails, r, "close: %s", strerror(errno));
		helper_wait(&helper, "event_arm/poll loop on a closed socket");
		iters += __atomic_load_n(&helper.iters, __ATOMIC_ACQUIRE);
		if (!(helper.ret == -1 && helper.err == EBADF) &&
		    !(helper.ret == 1 && helper.revents == POLLNVAL))
			round_fail(&fails, r, "loop ended with %zd revents "
				   "0x%x (%s), not EBADF or POLLNVAL",
				   helper.ret, (unsigned int)helper.revents,
				   helper.ret < 0 ? strerror(helper.err) :
				   "-");
	}
	printf("  %s: %u rounds, %u failed, %" PRIu64 " calls before the "
	       "closes\n", what, rounds, fails, iters);
	CU_ASSERT_EQUAL(fails, 0);
	lib_down();
	rds_test_watchdog(0, NULL);
}

static void
test_arm_close_inline(void)
{
	arm_close(true);
}

static void
test_arm_close_lcore(void)
{
	arm_close(false);
}

/* ------------------------------------------------------------------ */
/* (e) RDS_INFO walks racing close */

static void
info_close(bool inline_engine)
{
	const char *what = inline_engine ? "info_close_inline" :
					   "info_close_lcore";
	struct sockaddr_in to;
	struct rte_rds_pollfd pfd;
	unsigned int r, i, fails = 0;
	uint8_t buf[INFO_LEN];
	uint64_t it;
	int tx, q, s;

	rds_test_watchdog(600, what);
	lib_up(inline_engine);
	printf("\n");
	tx = rds_test_socket(RDS_TEST_IP2, PORT_TX, 0, 0);
	q = rds_test_socket(RDS_TEST_IP4, PORT_Q, 0, 0);
	CU_ASSERT_FATAL(tx >= 0 && q >= 0);
	memset(buf, 0x11, sizeof(buf));
	helper_post(&helper, JOB_INFO_LOOP, q);
	for (r = 0; r < rounds; r++) {
		uint16_t port = (uint16_t)(PORT_INFO_BASE + r % INFO_PORTS);

		s = rds_test_socket(RDS_TEST_IP3, port, 0, 0);
		CU_ASSERT_FATAL(s >= 0);
		to = rds_test_sin(RDS_TEST_IP3, port);
		for (i = 0; i < INFO_MSGS; i++)
			if (rds_test_send(tx, buf, INFO_LEN, &to, 0) !=
			    INFO_LEN)
				round_fail(&fails, r, "send: %s",
					   strerror(errno));
		/* Delivered (this thread drives the engine too), then a
		 * walk or two with the messages queued, then close. */
		pfd.sock = s;
		pfd.events = POLLIN;
		pfd.revents = 0;
		if (rte_rds_poll(&pfd, 1, 5000) != 1 ||
		    !(pfd.revents & POLLIN))
			round_fail(&fails, r, "poll: nothing arrived");
		rds_test_kick_n(4);
		it = __atomic_load_n(&helper.iters, __ATOMIC_ACQUIRE);
		while (__atomic_load_n(&helper.iters, __ATOMIC_ACQUIRE) <
		       it + 1 + r % 3 && !helper_done(&helper))
			sched_yield();
		if (rte_rds_close(s) != 0)
			round_fail(&fails, r, "close: %s", strerror(errno));
	}
	__atomic_store_n(&helper.stop, 1, __ATOMIC_RELEASE);
	helper_wait(&helper, "RDS_INFO loop");
	printf("  %s: %u rounds, %u failed, %" PRIu64 " info calls, %"
	       PRIu64 " records checked, %" PRIu64 " ENOSPC%s%s\n", what,
	       rounds, fails, __atomic_load_n(&helper.iters, __ATOMIC_ACQUIRE),
	       helper.records, helper.enospc, helper.bad ? "; helper: " : "",
	       helper.bad ? helper.why : "");
	CU_ASSERT_EQUAL(fails, 0);
	CU_ASSERT(!helper.bad);
	CU_ASSERT(helper.records > 0);
	CU_ASSERT(rte_rds_close(tx) == 0);
	CU_ASSERT(rte_rds_close(q) == 0);
	lib_down();
	rds_test_watchdog(0, NULL);
}

static void
test_info_close_inline(void)
{
	info_close(true);
}

static void
test_info_close_lcore(void)
{
	info_close(false);
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "recv_close_inline", test_recv_close_inline },
		{ "recv_close_lcore", test_recv_close_lcore },
		{ "recv_close_reuse_inline", test_recv_close_reuse_inline },
		{ "recv_close_reuse_lcore", test_recv_close_reuse_lcore },
		{ "send_close_reuse_inline", test_send_close_reuse_inline },
		{ "send_close_reuse_lcore", test_send_close_reuse_lcore },
		{ "poll_close_inline", test_poll_close_inline },
		{ "poll_close_lcore", test_poll_close_lcore },
		{ "arm_close_inline", test_arm_close_inline },
		{ "arm_close_lcore", test_arm_close_lcore },
		{ "info_close_inline", test_info_close_inline },
		{ "info_close_lcore", test_info_close_lcore },
		{ "poll_close_reuse_inline", test_poll_close_reuse_inline },
		{ "poll_close_reuse_lcore", test_poll_close_reuse_lcore },
		{ NULL, NULL },
	};
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	rounds = (unsigned int)rds_test_env_u64("RDS_TEST_RACE_ROUNDS", 300);
	if (rounds == 0)
		rounds = 1;
	rds_test_eal_init("race_close", "0-1");
	rc = rds_test_run_suite("race_close", cases);
	rds_test_eal_fini();
	return rc;
}

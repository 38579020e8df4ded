/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite 'race', binary race_close: rte_rds_close() racing the calls that
 * are inside the socket, as deterministic
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

#include "race_close.h"

#define STUCK_S 10		/* a call must return this soon after close */
#define MAX_REPORTS 5		/* failures printed per test */
#define INFO_BUF (256u << 10)



struct helper helper;
unsigned int rounds;
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

void
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

bool
helper_done(struct helper *h)
{
	return __atomic_load_n(&h->done, __ATOMIC_ACQUIRE) == h->posted;
}

/* Wait for the posted job to end; a job that does not is stuck. */
void
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

/* A test's start: its watchdog, the library, the helper thread. */
void
lib_up(bool inline_engine, const char *what)
{
	struct rte_rds_conf conf;

	rds_test_watchdog(600, what);
	engine_inline = inline_engine;
	rds_test_conf(&conf, inline_engine ? RTE_RDS_ENGINE_INLINE :
			     rds_test_worker_lcore(), RTE_RDS_IDLE_YIELD);
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
	helper_start();
	printf("\n");
}

/* lib_up(), and a socket on address 2, port PORT_TX, to send from. */
int
lib_up_tx(bool inline_engine, const char *what)
{
	int tx;

	lib_up(inline_engine, what);
	tx = rds_test_socket(RDS_TEST_IP2, PORT_TX, 0, 0);
	CU_ASSERT_FATAL(tx >= 0);
	return tx;
}

void
lib_down(void)
{
	helper_stop();
	CU_ASSERT(rds_test_lib_fini() == 0);
	rds_test_watchdog(0, NULL);
}

/* Count a failed round, print the first few. */
void
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

/*
 * One round's race: the helper makes the posted call (job) on s, the
 * test thread closes s once the call is inside. false when the call
 * returned before the close.
 */
bool
post_and_close(enum job_kind job, int s, uint64_t *rng, const char *what,
	       unsigned int *fails, unsigned int round)
{
	uint64_t polls0 = rds_test_stats().s_polls;
	bool inside;

	helper_post(&helper, job, s);
	inside = wait_inside(polls0, rng, what);
	if (rte_rds_close(s) != 0)
		round_fail(fails, round, "close: %s", strerror(errno));
	return inside;
}

/* The helper's poll (or poll loop) ended as on a closed handle:
 * POLLNVAL, or -1/EBADF. */
void
check_closed_poll(unsigned int *fails, unsigned int round, const char *call)
{
	if ((helper.ret == 1 && helper.revents == POLLNVAL) ||
	    (helper.ret == -1 && helper.err == EBADF))
		return;
	round_fail(fails, round, "%s %zd revents 0x%x (%s), not POLLNVAL or "
		   "EBADF", call, helper.ret, (unsigned int)helper.revents,
		   helper.ret < 0 ? strerror(helper.err) : "-");
}


/*
 * (a), (d): the helper blocked in recvmsg (job JOB_RECV) or rte_rds_poll
 * (JOB_POLL, POLLIN, no timeout) on a socket closed under it, rounds
 * times: the call ends with -1/EBADF (poll: or POLLNVAL), every round
 * after the close.
 */
static void
close_under(bool inline_engine, const char *what, enum job_kind job,
	    uint64_t seed)
{
	unsigned int r, fails = 0, early = 0;
	uint64_t rng = seed;
	int s;

	lib_up(inline_engine, what);
	for (r = 0; r < rounds; r++) {
		s = rds_test_socket(RDS_TEST_IP1, PORT_A, 0, 0);
		CU_ASSERT_FATAL(s >= 0);
		helper.events = POLLIN;
		helper.timeout_ms = -1;
		if (!post_and_close(job, s, &rng, what, &fails, r))
			early++;
		if (job == JOB_POLL) {
			helper_wait(&helper, "rte_rds_poll blocked on a closed "
				    "socket");
			check_closed_poll(&fails, r, "poll returned");
			continue;
		}
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
}

#define CLOSE_UNDER_CASES(name, job, seed) \
	void test_##name##_inline(void) \
	{ close_under(true, #name "_inline", job, seed); } \
	void test_##name##_lcore(void) \
	{ close_under(false, #name "_lcore", job, seed); }

CLOSE_UNDER_CASES(recv_close, JOB_RECV, 0xa11ce)
CLOSE_UNDER_CASES(poll_close, JOB_POLL, 0xd00d)

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

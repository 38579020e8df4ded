/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Readiness and notifications over the loop transport (suite 'loop',
 * binary loop_poll): rte_rds_poll(), the event fd with epoll,
 * RDS_CONG_MONITOR, RDS_RECVERR, SO_SNDTIMEO / SO_RCVTIMEO.
 *
 * poll_states: a fresh bound socket is POLLOUT and not POLLIN; POLLIN
 * once a message is queued, not after it is read; not POLLOUT with its
 * small SO_SNDBUF full (engine not polled), POLLOUT again once the
 * engine runs and ACKs release the buffer; a closed handle is POLLNVAL.
 *
 * poll_timeout: timeout 0 returns at once; timeout 50 ms with nothing
 * to report returns 0 after at least 40 ms; revents holds only the
 * requested events (plus POLLWRBAND, POLLNVAL) as poll(2) does.
 *
 * poll_drives_engine: with an inline engine, rte_rds_poll() itself
 * drives it: a message sent before the call arrives within the call,
 * without any explicit engine poll.
 *
 * poll_engine_lcore: the engine on its own lcore (-l 0-1, yielding idle
 * policy): POLLIN for a message sent before the call and for one sent
 * by another thread while the caller waits; the timeout too.
 *
 * cong_poll_generation: without RDS_CONG_MONITOR, a congestion map
 * change (a receiver goes over its SO_RCVBUF, and later drains below
 * half of it) makes rte_rds_poll() report POLLIN|POLLWRBAND once on
 * the sender's socket (the kernel's "generation changed since the last
 * poll" rule, net/rds/af_rds.c rds_poll), and not again until the next
 * change.
 *
 * event_fd_epoll: the event fd in an epoll set with the engine on its
 * own lcore: arming returns 0 when nothing is queued and > 0 when
 * something is; a message from another socket wakes epoll_wait within a
 * bounded time; after reading the eventfd and re-arming, no wakeup
 * without a new event; the fd is closed by rte_rds_close().
 *
 * cong_monitor: with RDS_CONG_MONITOR, a non-blocking send to a
 * congested port fails with ENOBUFS; when the receiver drains below half
 * its buffer, rte_rds_poll() reports POLLIN and recvmsg returns 0 with
 * one SOL_RDS/RDS_CMSG_CONG_UPDATE cmsg whose u64 mask has bit
 * (port % 64); a second recvmsg gets nothing (EAGAIN); a control buffer
 * too small for the cmsg gives MSG_CTRUNC; turning the monitor off
 * clears the pending mask.
 *
 * recverr_opt: RDS_RECVERR defaults to 0, set/get round trip, and a
 * getsockopt with optlen 2 is EINVAL (the kernel's getsockopt.c
 * selftest).
 *
 * timeouts: a blocking send to a congested port with SO_SNDTIMEO 100 ms
 * fails with ETIMEDOUT after at least 80 ms; a blocking receive with
 * SO_RCVTIMEO 50 ms fails with ETIMEDOUT after at least 40 ms.
 *
 * RDMA notifications (RDS_CMSG_RDMA_STATUS) need an internal function
 * to be queued; they are tested in test/unit/unit_info.c.
 */

#include "loop_poll.h"

int
lib_up_inline(void)
{
	struct rte_rds_conf conf;

	rds_test_conf(&conf, RTE_RDS_ENGINE_INLINE, RTE_RDS_IDLE_YIELD);
	return rds_test_lib_init(&conf);
}

int
lib_up_lcore(void)
{
	struct rte_rds_conf conf;
	unsigned int w = rds_test_worker_lcore();

	if (w >= RTE_MAX_LCORE) {
		printf("  no worker lcore (run with -l 0-1)\n");
		return -1;
	}
	rds_test_conf(&conf, w, RTE_RDS_IDLE_YIELD);
	return rds_test_lib_init(&conf);
}

uint64_t
ms_since(uint64_t t0)
{
	return (rds_test_now_ns() - t0) / 1000000ULL;
}

/* One rte_rds_poll() on one socket; *rev gets revents. */
int
poll1(int s, short events, int timeout_ms, short *rev)
{
	struct rte_rds_pollfd p = { .sock = s, .events = events,
				    .revents = 0 };
	int r;

	r = rte_rds_poll(&p, 1, timeout_ms);
	if (rev != NULL)
		*rev = p.revents;
	return r;
}

/*
 * Call rte_rds_poll() until revents has one of the bits in want or the
 * time is up; *calls counts the calls (1 when the first call waited as
 * it should). Returns the last revents.
 */
short
poll_until(int s, short events, short want, unsigned int timeout_ms,
	   unsigned int *calls)
{
	uint64_t t0 = rds_test_now_ns(), el;
	short rev = 0;
	int r;

	*calls = 0;
	for (;;) {
		el = ms_since(t0);
		if (el >= timeout_ms)
			return rev;
		r = poll1(s, events, (int)(timeout_ms - el), &rev);
		(*calls)++;
		if (r < 0) {
			printf("  rte_rds_poll: %s\n", rte_strerror(rte_errno));
			return 0;
		}
		if (rev & want)
			return rev;
	}
}

/*
 * Inline engine: send MSG-byte messages from a to *to, polling the
 * engine after each, until the destination port is congested (ENOBUFS).
 * Returns the number accepted; *err gets the error that stopped it.
 */
uint64_t
congest(int a, const struct sockaddr_in *to, int *err)
{
	struct rds_test_deadline dl;
	uint8_t buf[MSG];
	uint64_t accepted = 0;
	ssize_t r;

	*err = 0;
	memset(buf, 0x6b, sizeof(buf));
	rds_test_deadline_init(&dl, 30, 60);
	while (accepted < 4096) {
		r = rds_test_send(a, buf, MSG, to, MSG_DONTWAIT);
		if (r == MSG) {
			accepted++;
			rds_test_deadline_progress(&dl);
			rds_test_kick_n(4);
			continue;
		}
		*err = rte_errno;
		if (r >= 0 || *err != EAGAIN)
			break;
		rds_test_kick_n(4);	/* send buffer: let ACKs come back */
		if (rds_test_deadline_expired(&dl, "congest"))
			break;
	}
	return accepted;
}

/* Read from b until fewer than rcvbuf / 2 bytes of the *queued MSG-byte
 * messages are left (the kernel's uncongestion point). */
bool
drain_below_half(int b, uint64_t *queued, int rcvbuf)
{
	uint8_t buf[MSG + 1];

	while (*queued * MSG >= (uint64_t)rcvbuf / 2) {
		if (rds_test_wait_msg(b, buf, sizeof(buf), NULL, 10000) != MSG)
			return false;
		(*queued)--;
	}
	return true;
}

/* ------------------------------------------------------------------ */

static void
test_poll_states(void)
{
	struct sockaddr_in ba = rds_test_sin(RDS_TEST_IP2, 6002);
	const int sndbuf = 8192;
	struct rds_test_deadline dl;
	uint8_t buf[MSG + 1];
	uint64_t accepted = 0;
	unsigned int calls;
	short rev;
	int a, b, c, r, err = 0;
	ssize_t n;

	rds_test_watchdog(120, "poll_states");
	CU_ASSERT_FATAL(lib_up_inline() == 0);
	a = rds_test_socket(RDS_TEST_IP1, 6001, sndbuf, 0);
	b = rds_test_socket(RDS_TEST_IP2, 6002, 0, 0);
	CU_ASSERT_FATAL(a >= 0 && b >= 0);

	/* Fresh and bound: writable, not readable. */
	r = poll1(b, POLLIN | POLLOUT, 0, &rev);
	printf("\n  fresh socket: %d, revents 0x%x\n", r, (unsigned)rev);
	CU_ASSERT_EQUAL(r, 1);
	CU_ASSERT(rev & POLLOUT);
	CU_ASSERT(!(rev & POLLIN));
	CU_ASSERT(!(rev & POLLNVAL));

	/* A message arrives: POLLIN. */
	memset(buf, 0x11, sizeof(buf));
	CU_ASSERT_EQUAL(rds_test_send(a, buf, 100, &ba, MSG_DONTWAIT), 100);
	rds_test_deadline_init(&dl, 10, 10);
	do {
		rds_test_kick();
		r = poll1(b, POLLIN, 0, &rev);
	} while (!(rev & POLLIN) &&
		 !rds_test_deadline_expired(&dl, "POLLIN after a send"));
	CU_ASSERT_EQUAL(r, 1);
	CU_ASSERT(rev & POLLIN);
	/* Still readable until it is read (poll consumes nothing). */
	CU_ASSERT(poll1(b, POLLIN, 0, &rev) == 1 && (rev & POLLIN));

	/* Read: no longer POLLIN. */
	n = rds_test_recv(b, buf, sizeof(buf), NULL, MSG_DONTWAIT, NULL);
	CU_ASSERT_EQUAL(n, 100);
	r = poll1(b, POLLIN | POLLOUT, 0, &rev);
	CU_ASSERT(!(rev & POLLIN));
	CU_ASSERT(rev & POLLOUT);

	/* Fill a's 8 KiB send buffer without polling the engine. */
	while (accepted < 1000) {
		n = rds_test_send(a, buf, MSG, &ba, MSG_DONTWAIT);
		if (n < 0) {
			err = rte_errno;
			break;
		}
		accepted++;
	}
	printf("  SO_SNDBUF %d: %" PRIu64 " x %d B, then %s\n", sndbuf,
	       accepted, MSG, err != 0 ? rte_strerror(err) : "none");
	CU_ASSERT_EQUAL(err, EAGAIN);
	r = poll1(a, POLLOUT, 0, &rev);
	printf("  send buffer full: %d, revents 0x%x\n", r, (unsigned)rev);
	CU_ASSERT_EQUAL(r, 0);
	CU_ASSERT(!(rev & POLLOUT));

	/* The engine runs, ACKs release the buffer: POLLOUT again. */
	rds_test_deadline_init(&dl, 10, 10);
	do {
		rds_test_kick();
		r = poll1(a, POLLOUT, 0, &rev);
	} while (!(rev & POLLOUT) &&
		 !rds_test_deadline_expired(&dl, "POLLOUT after ACKs"));
	CU_ASSERT_EQUAL(r, 1);
	CU_ASSERT(rev & POLLOUT);
	/* And the same through a waiting rte_rds_poll (no-op now). */
	rev = poll_until(a, POLLOUT, POLLOUT, 2000, &calls);
	CU_ASSERT(rev & POLLOUT);

	/* Everything accepted arrives. */
	while (accepted > 0) {
		n = rds_test_wait_msg(b, buf, sizeof(buf), NULL, 10000);
		CU_ASSERT_EQUAL(n, MSG);
		if (n != MSG)
			break;
		accepted--;
	}

	/* A closed handle: POLLNVAL. */
	c = rds_test_socket(RDS_TEST_IP3, 6003, 0, 0);
	CU_ASSERT_FATAL(c >= 0);
	CU_ASSERT(rte_rds_close(c) == 0);
	r = poll1(c, POLLIN | POLLOUT, 0, &rev);
	printf("  closed handle: %d, revents 0x%x\n", r, (unsigned)rev);
	CU_ASSERT_EQUAL(r, 1);
	CU_ASSERT_EQUAL(rev, POLLNVAL);
	/* POLLNVAL does not wait either, whatever the timeout. */
	{
		uint64_t t0 = rds_test_now_ns();

		CU_ASSERT_EQUAL(poll1(c, POLLIN, 1000, &rev), 1);
		CU_ASSERT_EQUAL(rev, POLLNVAL);
		CU_ASSERT(ms_since(t0) < 500);
	}
	/* Several entries: the count is of entries with revents. */
	{
		struct rte_rds_pollfd p[3] = {
			{ .sock = a, .events = POLLOUT },
			{ .sock = b, .events = POLLIN },
			{ .sock = c, .events = POLLIN },
		};

		r = rte_rds_poll(p, 3, 0);
		printf("  {a POLLOUT, b POLLIN, closed}: %d, revents 0x%x "
		       "0x%x 0x%x\n", r, (unsigned)p[0].revents,
		       (unsigned)p[1].revents, (unsigned)p[2].revents);
		CU_ASSERT_EQUAL(r, 2);
		CU_ASSERT(p[0].revents & POLLOUT);
		CU_ASSERT_EQUAL(p[1].revents, 0);
		CU_ASSERT_EQUAL(p[2].revents, POLLNVAL);
	}

	CU_ASSERT(rte_rds_close(a) == 0);
	CU_ASSERT(rte_rds_close(b) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
	rds_test_watchdog(0, NULL);
}

/*
 * Timeouts, and poll(2)'s rule that revents holds only what was asked
 * for (plus POLLERR, POLLHUP, POLLNVAL; the header adds POLLWRBAND): a
 * writable socket polled for POLLIN alone has nothing to report.
 */
static void
check_timeouts(const char *what)
{
	uint64_t t0, ms;
	short rev;
	int a, r;

	a = rds_test_socket(RDS_TEST_IP1, 6101, 0, 0);
	CU_ASSERT_FATAL(a >= 0);

	t0 = rds_test_now_ns();
	r = poll1(a, POLLIN, 0, &rev);
	ms = ms_since(t0);
	printf("  %s: POLLIN, timeout 0: %d (revents 0x%x) after %" PRIu64
	       " ms\n", what, r, (unsigned)rev, ms);
	CU_ASSERT(ms < 20);
	CU_ASSERT(!(rev & POLLIN));
	CU_ASSERT_EQUAL(r, 0);
	CU_ASSERT_EQUAL(rev, 0);

	t0 = rds_test_now_ns();
	r = poll1(a, POLLIN, 50, &rev);
	ms = ms_since(t0);
	printf("  %s: POLLIN, timeout 50 ms: %d (revents 0x%x) after %"
	       PRIu64 " ms\n", what, r, (unsigned)rev, ms);
	CU_ASSERT_EQUAL(r, 0);
	CU_ASSERT_EQUAL(rev, 0);
	CU_ASSERT(ms >= 40);
	CU_ASSERT(ms < 2000);

	/* POLLOUT alone on a readable-nothing socket: POLLOUT only. */
	r = poll1(a, POLLOUT, 0, &rev);
	CU_ASSERT_EQUAL(r, 1);
	CU_ASSERT(rev & POLLOUT);
	CU_ASSERT(!(rev & (POLLIN | POLLRDNORM)));

	CU_ASSERT(rte_rds_close(a) == 0);
}

static void
test_poll_timeout(void)
{
	rds_test_watchdog(120, "poll_timeout");
	CU_ASSERT_FATAL(lib_up_inline() == 0);
	printf("\n");
	check_timeouts("inline engine");
	CU_ASSERT(rte_rds_fini() == 0);

	CU_ASSERT_FATAL(lib_up_lcore() == 0);
	check_timeouts("engine on an lcore");
	CU_ASSERT(rte_rds_fini() == 0);
	rds_test_watchdog(0, NULL);
}

static void
test_poll_drives_engine(void)
{
	struct sockaddr_in ba = rds_test_sin(RDS_TEST_IP2, 6202);
	struct rte_rds_stats st0, st1;
	uint8_t buf[256];
	uint64_t t0, ms;
	unsigned int calls;
	short rev;
	int a, b, r;
	ssize_t n;

	rds_test_watchdog(120, "poll_drives_engine");
	CU_ASSERT_FATAL(lib_up_inline() == 0);
	a = rds_test_socket(RDS_TEST_IP1, 6201, 0, 0);
	b = rds_test_socket(RDS_TEST_IP2, 6202, 0, 0);
	CU_ASSERT_FATAL(a >= 0 && b >= 0);

	memset(buf, 0x22, sizeof(buf));
	CU_ASSERT_EQUAL(rds_test_send(a, buf, 64, &ba, MSG_DONTWAIT), 64);
	/* Nobody has polled the engine: nothing can be queued yet. */
	CU_ASSERT_EQUAL(poll1(b, POLLIN, 0, &rev), 0);
	CU_ASSERT(!(rev & POLLIN));

	st0 = rds_test_stats();
	t0 = rds_test_now_ns();
	r = poll1(b, POLLIN, 2000, &rev);
	ms = ms_since(t0);
	st1 = rds_test_stats();
	printf("\n  one rte_rds_poll(POLLIN, 2000 ms): %d, revents 0x%x, "
	       "%" PRIu64 " ms, engine polls %" PRIu64 "\n", r,
	       (unsigned)rev, ms, st1.s_polls - st0.s_polls);
	CU_ASSERT_EQUAL(r, 1);
	CU_ASSERT(rev & POLLIN);
	CU_ASSERT(st1.s_polls > st0.s_polls);
	CU_ASSERT(st1.s_recv_delivered == st0.s_recv_delivered + 1);

	if (!(rev & POLLIN)) {
		/* Say how the loop of calls fares (it never drives the
		 * engine if each call returns at once). */
		rev = poll_until(b, POLLIN, POLLIN, 500, &calls);
		printf("  retried: revents 0x%x after %u calls\n",
		       (unsigned)rev, calls);
	}
	n = rds_test_recv(b, buf, sizeof(buf), NULL, MSG_DONTWAIT, NULL);
	CU_ASSERT_EQUAL(n, 64);

	CU_ASSERT(rte_rds_close(a) == 0);
	CU_ASSERT(rte_rds_close(b) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
	rds_test_watchdog(0, NULL);
}

struct late_sender {
	int s;
	struct sockaddr_in to;
	unsigned int delay_ms;
	ssize_t r;
	int err;
	bool registered;
};

static void *
late_sender_main(void *arg)
{
	struct late_sender *ls = arg;
	uint8_t buf[32];

	ls->registered = rte_thread_register() == 0;
	rds_test_usleep(ls->delay_ms * 1000);
	memset(buf, 0x33, sizeof(buf));
	ls->r = rds_test_send(ls->s, buf, sizeof(buf), &ls->to, MSG_DONTWAIT);
	ls->err = ls->r < 0 ? rte_errno : 0;
	if (ls->registered)
		rte_thread_unregister();
	return NULL;
}

static void
test_poll_engine_lcore(void)
{
	struct sockaddr_in ba = rds_test_sin(RDS_TEST_IP2, 6302);
	struct late_sender ls;
	uint8_t buf[256];
	uint64_t t0, ms;
	unsigned int calls;
	pthread_t th;
	short rev;
	int a, b;

	rds_test_watchdog(120, "poll_engine_lcore");
	CU_ASSERT_FATAL(lib_up_lcore() == 0);
	a = rds_test_socket(RDS_TEST_IP1, 6301, 0, 0);
	b = rds_test_socket(RDS_TEST_IP2, 6302, 0, 0);
	CU_ASSERT_FATAL(a >= 0 && b >= 0);

	/* Sent before the call. */
	memset(buf, 0x44, sizeof(buf));
	CU_ASSERT_EQUAL(rds_test_send(a, buf, 10, &ba, MSG_DONTWAIT), 10);
	t0 = rds_test_now_ns();
	rev = poll_until(b, POLLIN, POLLIN, 5000, &calls);
	ms = ms_since(t0);
	printf("\n  engine on lcore %u: POLLIN after %" PRIu64 " ms, %u "
	       "call(s), revents 0x%x\n", rds_test_worker_lcore(), ms, calls,
	       (unsigned)rev);
	CU_ASSERT(rev & POLLIN);
	CU_ASSERT_EQUAL(rds_test_wait_msg(b, buf, sizeof(buf), NULL, 5000), 10);
	rev = 0;
	poll1(b, POLLIN, 0, &rev);
	CU_ASSERT(!(rev & POLLIN));

	/* Sent by another thread while we wait in rte_rds_poll(). */
	memset(&ls, 0, sizeof(ls));
	ls.s = a;
	ls.to = ba;
	ls.delay_ms = 100;
	CU_ASSERT_FATAL(pthread_create(&th, NULL, late_sender_main,
				       &ls) == 0);
	t0 = rds_test_now_ns();
	rev = poll_until(b, POLLIN, POLLIN, 5000, &calls);
	ms = ms_since(t0);
	pthread_join(th, NULL);
	printf("  message sent 100 ms into the wait: POLLIN after %" PRIu64
	       " ms, %u call(s), revents 0x%x (sender: %zd %s)\n", ms, calls,
	       (unsigned)rev, ls.r, ls.err != 0 ? rte_strerror(ls.err) : "");
	CU_ASSERT_EQUAL(ls.r, 32);
	CU_ASSERT(rev & POLLIN);
	CU_ASSERT(ms >= 80);
	CU_ASSERT(ms < 5000);
	CU_ASSERT_EQUAL(rds_test_wait_msg(b, buf, sizeof(buf), NULL, 5000), 32);

	CU_ASSERT(rte_rds_close(a) == 0);
	CU_ASSERT(rte_rds_close(b) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
	rds_test_watchdog(0, NULL);
}

/* ------------------------------------------------------------------ */

static void
test_cong_poll_generation(void)
{
	struct sockaddr_in ba = rds_test_sin(RDS_TEST_IP2, 6402);
	const short ev = POLLIN | POLLWRBAND;
	const short both = POLLIN | POLLWRBAND;
	uint64_t accepted, queued;
	uint8_t buf[MSG + 1];
	short rev, rev_o;
	int a, b, o, r, err;

	rds_test_watchdog(120, "cong_poll_generation");
	CU_ASSERT_FATAL(lib_up_inline() == 0);
	a = rds_test_socket(RDS_TEST_IP1, 6401, 0, 0);
	b = rds_test_socket(RDS_TEST_IP2, 6402, 0, SMALL_RCVBUF);
	/* A bystander: every socket sees map changes (kernel: one global
	 * rds_cong_generation). */
	o = rds_test_socket(RDS_TEST_IP3, 6403, 0, 0);
	CU_ASSERT_FATAL(a >= 0 && b >= 0 && o >= 0);

	/* Nothing changed yet. */
	r = poll1(a, ev, 0, &rev);
	CU_ASSERT(!(rev & both));
	CU_ASSERT(!(poll1(o, ev, 0, &rev_o) > 0 && (rev_o & both)));

	/* The receiver goes over its SO_RCVBUF: the map changes. */
	accepted = congest(a, &ba, &err);
	printf("\n  SO_RCVBUF %d: %" PRIu64 " x %d B, then %s\n",
	       SMALL_RCVBUF, accepted, MSG, err ? rte_strerror(err) : "none");
	CU_ASSERT_EQUAL_FATAL(err, ENOBUFS);
	r = poll1(a, ev, 0, &rev);
	printf("  after congestion: %d, revents 0x%x\n", r, (unsigned)rev);
	CU_ASSERT_EQUAL(r, 1);
	CU_ASSERT_EQUAL(rev & both, both);
	/* Once: the next poll has nothing, even after the engine ran. */
	r = poll1(a, ev, 0, &rev);
	CU_ASSERT_EQUAL(r, 0);
	CU_ASSERT(!(rev & both));
	rds_test_kick_n(64);
	r = poll1(a, ev, 0, &rev);
	CU_ASSERT_EQUAL(r, 0);
	CU_ASSERT(!(rev & both));
	/* The bystander saw it too, once. */
	CU_ASSERT_EQUAL(poll1(o, ev, 0, &rev_o), 1);
	CU_ASSERT_EQUAL(rev_o & both, both);
	CU_ASSERT(!(poll1(o, ev, 0, &rev_o) > 0 && (rev_o & both)));

	/* Drain, checking that nothing is reported while the receiver
	 * stays above half of its buffer (hysteresis: no change). */
	queued = accepted;
	while ((queued - 1) * MSG >= (uint64_t)SMALL_RCVBUF / 2) {
		CU_ASSERT_EQUAL_FATAL(rds_test_wait_msg(b, buf, sizeof(buf),
						NULL, 10000), MSG);
		queued--;
		r = poll1(a, ev, 0, &rev);
		if (rev & both) {
			printf("  FAIL: POLLIN|POLLWRBAND with %" PRIu64
			       " B still queued\n", queued * MSG);
			CU_FAIL("map change reported above half");
			break;
		}
	}
	/* This read takes the receiver below half: uncongested. */
	CU_ASSERT_EQUAL(rds_test_wait_msg(b, buf, sizeof(buf),
					NULL, 10000), MSG);
	queued--;
	r = poll1(a, ev, 0, &rev);
	printf("  drained to %" PRIu64 " B: %d, revents 0x%x\n", queued * MSG,
	       r, (unsigned)rev);
	CU_ASSERT_EQUAL(r, 1);
	CU_ASSERT_EQUAL(rev & both, both);
	r = poll1(a, ev, 0, &rev);
	CU_ASSERT_EQUAL(r, 0);
	CU_ASSERT(!(rev & both));
	/* Sending works again. */
	CU_ASSERT_EQUAL(rds_test_send(a, buf, 10, &ba, MSG_DONTWAIT), 10);

	CU_ASSERT(rte_rds_close(a) == 0);
	CU_ASSERT(rte_rds_close(b) == 0);
	CU_ASSERT(rte_rds_close(o) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
	rds_test_watchdog(0, NULL);
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "poll_states", test_poll_states },
		{ "poll_timeout", test_poll_timeout },
		{ "poll_drives_engine", test_poll_drives_engine },
		{ "poll_engine_lcore", test_poll_engine_lcore },
		{ "cong_poll_generation", test_cong_poll_generation },
		{ "event_fd_epoll", test_event_fd_epoll },
		{ "cong_monitor", test_cong_monitor },
		{ "recverr_opt", test_recverr_opt },
		{ "timeouts", test_timeouts },
		{ NULL, NULL },
	};

	return rds_test_main("loop_poll", "0-1", cases);
}

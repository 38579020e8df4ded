/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Basic behaviour over the loop transport (inline engine).
 *
 * ping: a message to port 0 of a local address is answered with a
 * zero-length pong from port 0; a message to an unbound port disappears
 * silently (the send succeeds, nothing comes back, s_recv_drop_no_sock
 * grows).
 *
 * blocking: blocking calls on the thread that drives the inline engine
 * drive it themselves (no deadlock): recvmsg of a queued message, sends
 * into a full send buffer, and a recvmsg on another registered thread
 * that waits for a message sent later. MSG_PEEK then recvmsg return the
 * same message; MSG_TRUNC returns the full length and sets MSG_TRUNC in
 * msg_flags (also the zero-length-buffer PEEK|TRUNC size probe); without
 * MSG_TRUNC a short buffer gets the start and MSG_TRUNC in msg_flags;
 * zero-length messages arrive with the sender's address; SO_RCVTIMEO
 * ends a blocking receive with ETIMEDOUT.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <CUnit/CUnit.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_rds.h>

#include "rds_test.h"

static int
lib_up(void)
{
	struct rte_rds_conf conf;

	rds_test_conf(&conf, RTE_RDS_ENGINE_INLINE, RTE_RDS_IDLE_YIELD);
	return rds_test_lib_init(&conf);
}

static void
test_ping(void)
{
	struct sockaddr_in aa = rds_test_sin(RDS_TEST_IP1, 6001);
	struct sockaddr_in ping2 = rds_test_sin(RDS_TEST_IP2, 0);
	struct sockaddr_in ping1 = rds_test_sin(RDS_TEST_IP1, 0);
	struct sockaddr_in nobody = rds_test_sin(RDS_TEST_IP2, 7777);
	struct sockaddr_in ba = rds_test_sin(RDS_TEST_IP3, 6002);
	struct rte_rds_stats st0, st1;
	struct sockaddr_in from;
	uint8_t buf[64];
	bool got1 = false, got2 = false;
	unsigned int i;
	char s1[48];
	int a, b;
	ssize_t r;

	rds_test_watchdog(120, "ping");
	CU_ASSERT_FATAL(lib_up() == 0);
	a = rds_test_socket(RDS_TEST_IP1, 6001, 0, 0);
	b = rds_test_socket(RDS_TEST_IP3, 6002, 0, 0);
	CU_ASSERT_FATAL(a >= 0 && b >= 0);

	/* Pings: zero-length (as rds-ping) to .2, 32 bytes to our own .1. */
	st0 = rds_test_stats();
	memset(buf, 0x5a, sizeof(buf));
	CU_ASSERT_EQUAL(rds_test_send(a, buf, 0, &ping2, MSG_DONTWAIT), 0);
	CU_ASSERT_EQUAL(rds_test_send(a, buf, 32, &ping1, MSG_DONTWAIT), 32);
	for (i = 0; i < 2; i++) {
		memset(&from, 0, sizeof(from));
		r = rds_test_wait_msg(a, buf, sizeof(buf), &from, 10000);
		printf("%s  pong %u: %zd bytes from %s\n", i == 0 ? "\n" : "",
		       i, r, rds_test_sin_str(&from, s1, sizeof(s1)));
		CU_ASSERT_EQUAL(r, 0);
		if (r < 0)
			break;
		CU_ASSERT_EQUAL(from.sin_family, AF_INET);
		CU_ASSERT_EQUAL(from.sin_port, 0);
		if (rds_test_sin_eq(&from, &ping1))
			got1 = true;
		else if (rds_test_sin_eq(&from, &ping2))
			got2 = true;
	}
	CU_ASSERT(got1);
	CU_ASSERT(got2);
	st1 = rds_test_stats();
	CU_ASSERT(st1.s_recv_ping >= st0.s_recv_ping + 2);
	CU_ASSERT(st1.s_send_pong >= st0.s_send_pong + 2);
	/* Exactly one pong each. */
	rds_test_kick_n(100);
	CU_ASSERT(rds_test_recv(a, buf, sizeof(buf), NULL, MSG_DONTWAIT,
				NULL) == -1);
	CU_ASSERT_EQUAL(rte_errno, EAGAIN);

	/* Unbound port: accepted, then silently discarded. */
	st0 = rds_test_stats();
	CU_ASSERT_EQUAL(rds_test_send(a, buf, 10, &nobody, MSG_DONTWAIT), 10);
	for (i = 0; i < 400; i++) {
		rds_test_kick();
		if (i % 50 == 0)
			rds_test_usleep(1000);
		r = rds_test_recv(a, buf, sizeof(buf), &from, MSG_DONTWAIT,
				  NULL);
		if (r >= 0) {
			printf("  FAIL: %zd bytes from %s after a send to an "
			       "unbound port\n", r,
			       rds_test_sin_str(&from, s1, sizeof(s1)));
			CU_FAIL("something came back from an unbound port");
			break;
		}
		if (rte_errno != EAGAIN) {
			printf("  FAIL: recv: %s\n", rte_strerror(rte_errno));
			CU_FAIL("recv after a send to an unbound port");
			break;
		}
	}
	st1 = rds_test_stats();
	printf("  unbound port: s_recv_drop_no_sock %" PRIu64 " -> %" PRIu64
	       "\n", st0.s_recv_drop_no_sock, st1.s_recv_drop_no_sock);
	CU_ASSERT_EQUAL(st1.s_recv_drop_no_sock, st0.s_recv_drop_no_sock + 1);

	/* And the connection still carries traffic to a bound port. */
	CU_ASSERT_EQUAL(rds_test_send(a, "after", 5, &ba, MSG_DONTWAIT), 5);
	r = rds_test_wait_msg(b, buf, sizeof(buf), &from, 10000);
	CU_ASSERT_EQUAL(r, 5);
	CU_ASSERT(rds_test_sin_eq(&from, &aa));
	CU_ASSERT(r == 5 && memcmp(buf, "after", 5) == 0);

	CU_ASSERT(rte_rds_close(a) == 0);
	CU_ASSERT(rte_rds_close(b) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
	rds_test_watchdog(0, NULL);
}

struct blocked_recv {
	int s;
	ssize_t r;
	int err;
	struct sockaddr_in from;
	uint8_t buf[256];
	bool registered;
	volatile bool waiting;
};

static void *
blocked_recv_main(void *arg)
{
	struct blocked_recv *br = arg;

	br->registered = rte_thread_register() == 0;
	br->waiting = true;
	br->r = rds_test_recv(br->s, br->buf, sizeof(br->buf), &br->from, 0,
			      NULL);
	br->err = br->r < 0 ? rte_errno : 0;
	if (br->registered)
		rte_thread_unregister();
	return NULL;
}

static void
test_blocking(void)
{
	struct sockaddr_in aa = rds_test_sin(RDS_TEST_IP1, 6101);
	struct sockaddr_in ba = rds_test_sin(RDS_TEST_IP2, 6102);
	uint8_t buf[2048], want[2048], empty[1];
	struct blocked_recv br;
	struct sockaddr_in from;
	struct timeval tv;
	pthread_t th;
	uint64_t t0, id;
	double secs;
	unsigned int i, ok;
	int a, b, mflags;
	ssize_t r;

	rds_test_watchdog(120, "blocking");
	CU_ASSERT_FATAL(lib_up() == 0);
	a = rds_test_socket(RDS_TEST_IP1, 6101, 8192, 0);
	b = rds_test_socket(RDS_TEST_IP2, 6102, 0, 0);
	CU_ASSERT_FATAL(a >= 0 && b >= 0);

	/* 1. Blocking receive of a message the engine has not moved yet. */
	rds_test_fill(want, 100, 1);
	CU_ASSERT_EQUAL(rds_test_send(a, want, 100, &ba, MSG_DONTWAIT), 100);
	rds_test_watchdog(30, "blocking recvmsg on the inline-engine thread");
	memset(&from, 0, sizeof(from));
	r = rds_test_recv(b, buf, sizeof(buf), &from, 0, NULL);
	rds_test_watchdog(120, "blocking");
	printf("\n  blocking recv: %zd\n", r);
	CU_ASSERT_EQUAL(r, 100);
	CU_ASSERT(r == 100 && memcmp(buf, want, 100) == 0);
	CU_ASSERT(rds_test_sin_eq(&from, &aa));

	/* 2. Blocking sends into an 8 KiB send buffer, nobody else polls. */
	rds_test_watchdog(30, "blocking sendmsg into a full send buffer");
	for (i = 0, ok = 0; i < 50; i++) {
		id = i;
		memset(buf, 0, 1024);
		memcpy(buf, &id, sizeof(id));
		r = rds_test_send(a, buf, 1024, &ba, 0);
		if (r != 1024) {
			printf("  blocking send %u: %zd (%s)\n", i, r,
			       rte_strerror(rte_errno));
			break;
		}
		ok++;
	}
	CU_ASSERT_EQUAL(ok, 50);
	for (i = 0; i < ok; i++) {
		r = rds_test_recv(b, buf, sizeof(buf), &from, 0, NULL);
		memcpy(&id, buf, sizeof(id));
		if (r != 1024 || id != i) {
			printf("  blocking recv %u: %zd bytes, id %" PRIu64
			       "\n", i, r, id);
			CU_FAIL("blocking send/recv: wrong message");
			break;
		}
	}
	rds_test_watchdog(120, "blocking");

	/* 3. A receiver blocked on another (registered) thread wakes up for
	 * a message sent later; only it drives the engine meanwhile. */
	memset(&br, 0, sizeof(br));
	br.s = b;
	rds_test_watchdog(30, "blocked recvmsg on another thread");
	CU_ASSERT_FATAL(pthread_create(&th, NULL, blocked_recv_main, &br) == 0);
	while (!br.waiting)
		rds_test_usleep(100);
	rds_test_usleep(100000);
	rds_test_fill(want, 200, 2);
	CU_ASSERT_EQUAL(rds_test_send(a, want, 200, &ba, MSG_DONTWAIT), 200);
	pthread_join(th, NULL);
	rds_test_watchdog(120, "blocking");
	printf("  recv blocked on another thread: %zd (%s)\n", br.r,
	       br.r < 0 ? rte_strerror(br.err) : "ok");
	CU_ASSERT(br.registered);
	CU_ASSERT_EQUAL(br.r, 200);
	CU_ASSERT(br.r == 200 && memcmp(br.buf, want, 200) == 0);
	CU_ASSERT(rds_test_sin_eq(&br.from, &aa));

	/* 4. MSG_PEEK, then the same message again. */
	rds_test_fill(want, 300, 3);
	CU_ASSERT_EQUAL(rds_test_send(a, want, 300, &ba, MSG_DONTWAIT), 300);
	memset(buf, 0, sizeof(buf));
	r = rds_test_recv(b, buf, sizeof(buf), &from, MSG_PEEK, NULL);
	CU_ASSERT_EQUAL(r, 300);
	CU_ASSERT(r == 300 && memcmp(buf, want, 300) == 0);
	CU_ASSERT(rds_test_sin_eq(&from, &aa));
	memset(buf, 0, sizeof(buf));
	r = rds_test_recv(b, buf, sizeof(buf), &from, 0, NULL);
	CU_ASSERT_EQUAL(r, 300);
	CU_ASSERT(r == 300 && memcmp(buf, want, 300) == 0);
	CU_ASSERT(rds_test_recv(b, buf, sizeof(buf), NULL, MSG_DONTWAIT,
				NULL) == -1);
	CU_ASSERT_EQUAL(rte_errno, EAGAIN);

	/* 5. Size probe (empty buffer, PEEK|TRUNC), then MSG_TRUNC. */
	rds_test_fill(want, 1000, 4);
	CU_ASSERT_EQUAL(rds_test_send(a, want, 1000, &ba, MSG_DONTWAIT), 1000);
	mflags = 0;
	r = rds_test_recv(b, empty, 0, NULL, MSG_PEEK | MSG_TRUNC, &mflags);
	CU_ASSERT_EQUAL(r, 1000);
	CU_ASSERT(mflags & MSG_TRUNC);
	mflags = 0;
	memset(buf, 0, sizeof(buf));
	r = rds_test_recv(b, buf, 100, &from, MSG_TRUNC, &mflags);
	printf("  MSG_TRUNC with 100-byte buffer: %zd, msg_flags %#x\n", r,
	       (unsigned int)mflags);
	CU_ASSERT_EQUAL(r, 1000);
	CU_ASSERT(mflags & MSG_TRUNC);
	CU_ASSERT(memcmp(buf, want, 100) == 0);
	CU_ASSERT(buf[100] == 0);	/* nothing beyond the buffer */
	CU_ASSERT(rds_test_recv(b, buf, sizeof(buf), NULL, MSG_DONTWAIT,
				NULL) == -1);
	CU_ASSERT_EQUAL(rte_errno, EAGAIN);

	/* 6. A short buffer without MSG_TRUNC: the start, flag set. */
	rds_test_fill(want, 1000, 5);
	CU_ASSERT_EQUAL(rds_test_send(a, want, 1000, &ba, MSG_DONTWAIT), 1000);
	mflags = 0;
	r = rds_test_recv(b, buf, 100, NULL, 0, &mflags);
	CU_ASSERT_EQUAL(r, 100);
	CU_ASSERT(mflags & MSG_TRUNC);
	CU_ASSERT(memcmp(buf, want, 100) == 0);
	rds_test_kick_n(10);
	CU_ASSERT(rds_test_recv(b, buf, sizeof(buf), NULL, MSG_DONTWAIT,
				NULL) == -1);
	CU_ASSERT_EQUAL(rte_errno, EAGAIN);

	/* 7. Zero-length message, with the sender's address. */
	CU_ASSERT_EQUAL(rds_test_send(a, want, 0, &ba, MSG_DONTWAIT), 0);
	memset(&from, 0, sizeof(from));
	mflags = -1;
	r = rds_test_recv(b, buf, sizeof(buf), &from, 0, &mflags);
	CU_ASSERT_EQUAL(r, 0);
	CU_ASSERT(rds_test_sin_eq(&from, &aa));
	CU_ASSERT(mflags != -1 && !(mflags & MSG_TRUNC));

	/* 8. SO_RCVTIMEO ends a blocking receive with ETIMEDOUT. */
	tv.tv_sec = 0;
	tv.tv_usec = 200000;
	CU_ASSERT(rte_rds_setsockopt(b, SOL_SOCKET, SO_RCVTIMEO, &tv,
				     sizeof(tv)) == 0);
	t0 = rds_test_now_ns();
	r = rds_test_recv(b, buf, sizeof(buf), NULL, 0, NULL);
	secs = rds_test_since_s(t0);
	printf("  SO_RCVTIMEO 200 ms: %zd (%s) after %.3f s\n", r,
	       r < 0 ? rte_strerror(rte_errno) : "message", secs);
	CU_ASSERT_EQUAL(r, -1);
	CU_ASSERT_EQUAL(rte_errno, ETIMEDOUT);
	CU_ASSERT(secs >= 0.15 && secs < 10);

	CU_ASSERT(rte_rds_close(a) == 0);
	CU_ASSERT(rte_rds_close(b) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
	rds_test_watchdog(0, NULL);
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "ping", test_ping },
		{ "blocking", test_blocking },
		{ NULL, NULL },
	};

	return rds_test_main("loop_basic", "0", cases);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Snapshots, RDMA notifications and telemetry (suite 'unit', binary
 * unit_info).
 *
 * rte_rds_info() and rte_rds_getsockopt(SOL_RDS, RDS_INFO_*) against the
 * kernel's contract (net/rds/info.c rds_info_getsockopt, and the
 * kselftest tools/testing/selftests/net/rds/getsockopt.c):
 *  - a probe (*len 0) fails with ENOSPC and sets *len to the size needed,
 *    a multiple of the record size; for an empty list it succeeds with
 *    0 bytes and returns the record size (the kernel: total 0 <= len 0);
 *  - a buffer one byte short fails with ENOSPC and the full length, and
 *    nothing is written past the buffer;
 *  - a snapshot into an unaligned buffer that crosses a page boundary
 *    returns the record size;
 *  - 10002 (deprecated RDS_INFO_FLOWS), 9999 and 10018 are ENOPROTOOPT;
 *    a NULL length is EINVAL; ENXIO when the library is down.
 * Then the records: RDS_INFO_COUNTERS (kernel names, without the "s_"
 * prefix; values equal to rte_rds_stats_get()), RDS_INFO_SOCKETS,
 * RDS_INFO_CONNECTIONS, RDS_INFO_RECV_MESSAGES, RDS_INFO_RETRANS_MESSAGES
 * and RDS_INFO_SEND_MESSAGES, and their RDS6_INFO_* counterparts with
 * v4-mapped addresses.
 *
 * Notifications are queued with the internal rds_notify_queue() (the
 * library has no RDMA yet): recvmsg returns them first, as empty
 * messages with RDS_CMSG_RDMA_STATUS cmsgs (as many as fit; MSG_CTRUNC
 * when not all fit; without a control buffer MSG_CTRUNC and one is
 * consumed), before any queued data; rte_rds_poll() reports POLLIN while
 * one is queued.
 *
 * Telemetry: /rds/stats, /rds/info, /rds/sockets and /rds/conns over the
 * EAL telemetry socket (<runtime dir>/dpdk_telemetry.v2), when it is
 * there; otherwise the test says that it skipped the check, and why.
 *
 * The library runs one inline engine, driven only by this thread (and by
 * the library calls that wait for it), with the loop addresses
 * 10.255.0.1 to 10.255.0.4.
 */

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>

#include <CUnit/CUnit.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_rds.h>

#include "rds_private.h"
#include "rds_test.h"
#include "rte_rds_loop.h"

#define DEF_BUF 212992

static int
lib_up(void)
{
	struct rte_rds_conf conf;

	rds_test_conf(&conf, RTE_RDS_ENGINE_INLINE, RTE_RDS_IDLE_YIELD);
	return rds_test_lib_init(&conf);
}

static uint32_t
ip4(const char *ip)
{
	struct in_addr a;

	if (inet_pton(AF_INET, ip, &a) != 1)
		return 0;
	return a.s_addr;
}

static struct in6_addr
mapped(const char *ip)
{
	struct in6_addr a;
	uint32_t v = ip4(ip);

	memset(&a, 0, sizeof(a));
	a.s6_addr[10] = 0xff;
	a.s6_addr[11] = 0xff;
	memcpy(&a.s6_addr[12], &v, 4);
	return a;
}

/* Records are packed: compare addresses as bytes. */
#define in6_eq(a, b) (memcmp((a), (b), sizeof(struct in6_addr)) == 0)

/* The record size of each name, from <linux/rds.h>; 0: not a name. */
static size_t
record_size(int name)
{
	switch (name) {
	case RDS_INFO_COUNTERS:
	case RDS_INFO_CONNECTION_STATS:
		return sizeof(struct rds_info_counter);
	case RDS_INFO_CONNECTIONS:
		return sizeof(struct rds_info_connection);
	case RDS_INFO_SEND_MESSAGES:
	case RDS_INFO_RETRANS_MESSAGES:
	case RDS_INFO_RECV_MESSAGES:
		return sizeof(struct rds_info_message);
	case RDS_INFO_SOCKETS:
		return sizeof(struct rds_info_socket);
	case RDS_INFO_TCP_SOCKETS:
		return sizeof(struct rds_info_tcp_socket);
	case RDS_INFO_IB_CONNECTIONS:
	case RDS_INFO_IWARP_CONNECTIONS:
		return sizeof(struct rds_info_rdma_connection);
	case RDS6_INFO_CONNECTIONS:
		return sizeof(struct rds6_info_connection);
	case RDS6_INFO_SEND_MESSAGES:
	case RDS6_INFO_RETRANS_MESSAGES:
	case RDS6_INFO_RECV_MESSAGES:
		return sizeof(struct rds6_info_message);
	case RDS6_INFO_SOCKETS:
		return sizeof(struct rds6_info_socket);
	case RDS6_INFO_TCP_SOCKETS:
		return sizeof(struct rds6_info_tcp_socket);
	case RDS6_INFO_IB_CONNECTIONS:
		return sizeof(struct rds6_info_rdma_connection);
	default:
		return 0;
	}
}

/*
 * Snapshot: probe, then fill (retrying if the list grew in between).
 * Returns a malloc'ed buffer (NULL for none) and the record count; the
 * record size must be each.
 */
static void *
snap(int name, unsigned int *nrec)
{
	size_t each = record_size(name);
	socklen_t len = 0, cap;
	void *buf = NULL;
	int r, tries;

	*nrec = 0;
	for (tries = 0; tries < 8; tries++) {
		cap = len;
		r = rte_rds_info(name, buf, &len);
		if (r >= 0) {
			CU_ASSERT_EQUAL((size_t)r, each);
			CU_ASSERT_EQUAL(len % each, 0);
			CU_ASSERT(len <= cap);
			*nrec = len / each;
			return buf;
		}
		CU_ASSERT_EQUAL_FATAL(rte_errno, ENOSPC);
		CU_ASSERT(len > cap);
		CU_ASSERT_EQUAL(len % each, 0);
		free(buf);
		buf = malloc(len);
		CU_ASSERT_FATAL(buf != NULL);
	}
	CU_FAIL("snapshot kept growing");
	free(buf);
	return NULL;
}

/* One fill into a buffer of room records (no probe). Returns the count,
 * or -1 (with a message). */
static int
fill(int name, void *buf, unsigned int room)
{
	size_t each = record_size(name);
	socklen_t len = (socklen_t)(each * room);
	int r;

	r = rte_rds_info(name, buf, &len);
	if (r < 0) {
		printf("  rte_rds_info(%d, room %u): %s, len %u\n", name, room,
		       rte_strerror(rte_errno), (unsigned)len);
		return -1;
	}
	CU_ASSERT_EQUAL((size_t)r, each);
	CU_ASSERT_EQUAL(len % each, 0);
	return (int)(len / each);
}

static unsigned int
count(int name)
{
	unsigned int n;

	free(snap(name, &n));
	return n;
}

/* Poll the inline engine until s has a message (non-blocking peek). */
static bool
wait_queued(int s, unsigned int want_msgs)
{
	struct rds_test_deadline dl;

	rds_test_deadline_init(&dl, 10, 10);
	while (count(RDS_INFO_RECV_MESSAGES) < want_msgs) {
		rds_test_kick();
		if (rds_test_deadline_expired(&dl, "messages queued"))
			return false;
	}
	RTE_SET_USED(s);
	return true;
}

/* Poll the engine (and let delayed ACKs fall due) until nothing is
 * waiting for an ACK. */
static bool
wait_all_acked(void)
{
	struct rds_test_deadline dl;

	rds_test_deadline_init(&dl, 10, 10);
	while (count(RDS_INFO_RETRANS_MESSAGES) != 0 ||
	       count(RDS_INFO_SEND_MESSAGES) != 0) {
		rds_test_kick();
		rds_test_usleep(300);
		if (rds_test_deadline_expired(&dl, "all acknowledged"))
			return false;
	}
	return true;
}

/* ------------------------------------------------------------------ */

static void
test_probe_contract(void)
{
	struct sockaddr_in ba = rds_test_sin(RDS_TEST_IP2, 7002);
	struct sockaddr_in aa = rds_test_sin(RDS_TEST_IP1, 7001);
	uint8_t msg[32];
	socklen_t len, len2;
	void *buf;
	size_t each;
	int a, b, name, r, r2, e;

	rds_test_watchdog(60, "probe_contract");
	CU_ASSERT_FATAL(lib_up() == 0);
	a = rds_test_socket(RDS_TEST_IP1, 7001, 0, 0);
	b = rds_test_socket(RDS_TEST_IP2, 7002, 0, 0);
	CU_ASSERT_FATAL(a >= 0 && b >= 0);
	/* Traffic both ways: connections exist; one message is left
	 * unread on b so that RDS_INFO_RECV_MESSAGES has a record. */
	memset(msg, 1, sizeof(msg));
	CU_ASSERT_EQUAL(rds_test_send(b, msg, 8, &aa, MSG_DONTWAIT), 8);
	CU_ASSERT_EQUAL(rds_test_wait_msg(a, msg, sizeof(msg), NULL, 10000), 8);
	CU_ASSERT_EQUAL(rds_test_send(a, msg, 16, &ba, MSG_DONTWAIT), 16);
	CU_ASSERT_FATAL(wait_queued(b, 1));
	CU_ASSERT_FATAL(wait_all_acked());

	printf("\n");
	for (name = RDS_INFO_FIRST; name <= RDS_INFO_LAST; name++) {
		each = record_size(name);
		len = 0;
		rte_errno = 0;
		r = rte_rds_info(name, NULL, &len);
		e = rte_errno;
		/* The same through getsockopt. */
		len2 = 0;
		rte_errno = 0;
		r2 = rte_rds_getsockopt(a, SOL_RDS, name, NULL, &len2);
		printf("  %d: probe %d (%s) len %u; getsockopt %d len %u\n",
		       name, r, r < 0 ? rte_strerror(e) : "ok", (unsigned)len,
		       r2, (unsigned)len2);
		CU_ASSERT_EQUAL(r2, r);
		CU_ASSERT_EQUAL(len2, len);
		if (name == 10002) {	/* RDS_INFO_FLOWS, deprecated */
			CU_ASSERT_EQUAL(r, -1);
			CU_ASSERT_EQUAL(e, ENOPROTOOPT);
			continue;
		}
		CU_ASSERT_FATAL(each != 0);
		if (r >= 0) {
			/* Empty list: success with 0 bytes. */
			CU_ASSERT_EQUAL((size_t)r, each);
			CU_ASSERT_EQUAL(len, 0);
			continue;
		}
		CU_ASSERT_EQUAL(e, ENOSPC);
		CU_ASSERT(len > 0);
		CU_ASSERT_EQUAL(len % each, 0);
		/* Fill with exactly what the probe said. */
		buf = malloc(len);
		CU_ASSERT_FATAL(buf != NULL);
		len2 = len;
		r = rte_rds_info(name, buf, &len2);
		CU_ASSERT_EQUAL((size_t)r, each);
		CU_ASSERT_EQUAL(len2, len);
		len2 = len;
		r = rte_rds_getsockopt(b, SOL_RDS, name, buf, &len2);
		CU_ASSERT_EQUAL((size_t)r, each);
		CU_ASSERT_EQUAL(len2, len);
		free(buf);
	}
	/* Which lists must have records here. */
	CU_ASSERT(count(RDS_INFO_COUNTERS) == RTE_RDS_STATS_NUM);
	CU_ASSERT(count(RDS_INFO_SOCKETS) == 2);
	CU_ASSERT(count(RDS_INFO_CONNECTIONS) == 2);
	CU_ASSERT(count(RDS_INFO_RECV_MESSAGES) == 1);
	CU_ASSERT(count(RDS6_INFO_SOCKETS) == 2);
	CU_ASSERT(count(RDS6_INFO_CONNECTIONS) == 2);
	CU_ASSERT(count(RDS6_INFO_RECV_MESSAGES) == 1);
	/* Transports this library does not have: no records. */
	CU_ASSERT(count(RDS_INFO_TCP_SOCKETS) == 0);
	CU_ASSERT(count(RDS_INFO_IB_CONNECTIONS) == 0);
	CU_ASSERT(count(RDS6_INFO_IB_CONNECTIONS) == 0);

	CU_ASSERT(rte_rds_close(a) == 0);
	CU_ASSERT(rte_rds_close(b) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
	rds_test_watchdog(0, NULL);
}

static void
test_bad_names_and_args(void)
{
	static const int bad[] = { 10002, 9999, 10018, RDS_INFO_FIRST - 100,
				   RDS_INFO_LAST + 100, 0, -1 };
	uint8_t buf[64];
	socklen_t len;
	unsigned int i;
	int s, r;

	rds_test_watchdog(60, "bad_names_and_args");
	CU_ASSERT_FATAL(lib_up() == 0);
	s = rte_rds_socket();
	CU_ASSERT_FATAL(s >= 0);
	for (i = 0; i < RTE_DIM(bad); i++) {
		len = 0;
		rte_errno = 0;
		r = rte_rds_info(bad[i], NULL, &len);
		CU_ASSERT_EQUAL(r, -1);
		CU_ASSERT_EQUAL(rte_errno, ENOPROTOOPT);
		len = sizeof(buf);
		rte_errno = 0;
		r = rte_rds_info(bad[i], buf, &len);
		CU_ASSERT_EQUAL(r, -1);
		CU_ASSERT_EQUAL(rte_errno, ENOPROTOOPT);
		len = sizeof(buf);
		rte_errno = 0;
		r = rte_rds_getsockopt(s, SOL_RDS, bad[i], buf, &len);
		CU_ASSERT_EQUAL(r, -1);
		CU_ASSERT_EQUAL(rte_errno, ENOPROTOOPT);
		if (r != -1 || rte_errno != ENOPROTOOPT)
			printf("\n  name %d: %d (%s)\n", bad[i], r,
			       rte_strerror(rte_errno));
	}
	/* NULL length. */
	rte_errno = 0;
	CU_ASSERT_EQUAL(rte_rds_info(RDS_INFO_COUNTERS, buf, NULL), -1);
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	rte_errno = 0;
	CU_ASSERT_EQUAL(rte_rds_info(RDS_INFO_COUNTERS, NULL, NULL), -1);
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	CU_ASSERT(rte_rds_close(s) == 0);
	CU_ASSERT(rte_rds_fini() == 0);

	/* Library down: ENXIO. */
	len = 0;
	rte_errno = 0;
	CU_ASSERT_EQUAL(rte_rds_info(RDS_INFO_COUNTERS, NULL, &len), -1);
	CU_ASSERT_EQUAL(rte_errno, ENXIO);
	rds_test_watchdog(0, NULL);
}

/*
 * The selftest's unaligned snapshot: a buffer that starts 3 bytes before
 * a page boundary, so records straddle it, followed by an inaccessible
 * page; the call returns the record size and writes exactly *len bytes.
 */
static void
check_page_crossing(int s, int name)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t each = record_size(name), need;
	socklen_t len = 0;
	uint8_t *map, *buf, *p;
	size_t i, bad = 0;
	int r;

	r = rte_rds_info(name, NULL, &len);
	CU_ASSERT_EQUAL_FATAL(r, -1);
	CU_ASSERT_EQUAL(rte_errno, ENOSPC);
	need = len;
	CU_ASSERT_FATAL(need > 3 && need + 3 <= (size_t)pg);
	map = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(map != MAP_FAILED);
	CU_ASSERT_FATAL(mprotect(map + 2 * pg, pg, PROT_NONE) == 0);
	memset(map, 0xa5, 2 * pg);
	buf = map + pg - 3;
	CU_ASSERT(((uintptr_t)buf & 7) != 0);

	len = (socklen_t)need;
	r = rte_rds_info(name, buf, &len);
	printf("  %d into %p (page end - 3): %d, len %u of %zu\n", name,
	       (void *)buf, r, (unsigned)len, need);
	CU_ASSERT_EQUAL((size_t)r, each);
	CU_ASSERT_EQUAL(len, need);
	/* Nothing outside [buf, buf + len). */
	for (p = map; p < buf; p++)
		bad += *p != 0xa5;
	for (p = buf + len; p < map + 2 * pg; p++)
		bad += *p != 0xa5;
	CU_ASSERT_EQUAL(bad, 0);
	/* Same through getsockopt, at an odd offset in the second page. */
	memset(map, 0xa5, 2 * pg);
	buf = map + 2 * pg - need;
	if (((uintptr_t)buf & 1) == 0 && buf > map + pg)
		buf--;
	len = (socklen_t)need;
	r = rte_rds_getsockopt(s, SOL_RDS, name, buf, &len);
	CU_ASSERT_EQUAL((size_t)r, each);
	CU_ASSERT_EQUAL(len, need);
	for (i = 0, bad = 0; map + i < buf; i++)
		bad += map[i] != 0xa5;
	CU_ASSERT_EQUAL(bad, 0);
	/* Counters: the records parse from the unaligned buffer. */
	if (name == RDS_INFO_COUNTERS) {
		struct rds_info_counter c;

		for (i = 0; i < need / each; i++) {
			memcpy(&c, buf + i * each, sizeof(c));
			CU_ASSERT(memchr(c.name, '\0', sizeof(c.name)) != NULL);
			CU_ASSERT(c.name[0] != '\0');
		}
	}
	munmap(map, 3 * pg);
}

static void
test_unaligned_page_crossing(void)
{
	struct sockaddr_in ba = rds_test_sin(RDS_TEST_IP2, 7102);
	uint8_t msg[8] = { 0 };
	int a, b;

	rds_test_watchdog(60, "unaligned_page_crossing");
	CU_ASSERT_FATAL(lib_up() == 0);
	a = rds_test_socket(RDS_TEST_IP1, 7101, 0, 0);
	b = rds_test_socket(RDS_TEST_IP2, 7102, 0, 0);
	CU_ASSERT_FATAL(a >= 0 && b >= 0);
	CU_ASSERT_EQUAL(rds_test_send(a, msg, 8, &ba, MSG_DONTWAIT), 8);
	CU_ASSERT_FATAL(wait_queued(b, 1));
	printf("\n");
	check_page_crossing(a, RDS_INFO_COUNTERS);
	check_page_crossing(a, RDS_INFO_SOCKETS);
	check_page_crossing(a, RDS6_INFO_SOCKETS);
	/* Filled by the engine, into the caller's buffer. */
	check_page_crossing(a, RDS_INFO_CONNECTIONS);
	check_page_crossing(a, RDS6_INFO_CONNECTIONS);
	check_page_crossing(a, RDS6_INFO_RECV_MESSAGES);
	CU_ASSERT(rte_rds_close(a) == 0);
	CU_ASSERT(rte_rds_close(b) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
	rds_test_watchdog(0, NULL);
}

/* A buffer one byte (or one record) short: ENOSPC with the full length,
 * nothing written past the buffer. */
static void
check_short(int name)
{
	size_t each = record_size(name);
	socklen_t len = 0, need;
	uint8_t *buf;
	size_t i, bad;
	int r, k;

	CU_ASSERT_EQUAL_FATAL(rte_rds_info(name, NULL, &len), -1);
	need = len;
	buf = malloc(need + 64);
	CU_ASSERT_FATAL(buf != NULL);
	for (k = 0; k < 2; k++) {
		socklen_t cap = k == 0 ? need - 1 : need - (socklen_t)each;

		memset(buf, 0x5a, need + 64);
		len = cap;
		rte_errno = 0;
		r = rte_rds_info(name, buf, &len);
		CU_ASSERT_EQUAL(r, -1);
		CU_ASSERT_EQUAL(rte_errno, ENOSPC);
		CU_ASSERT_EQUAL(len, need);
		for (i = cap, bad = 0; i < need + 64; i++)
			bad += buf[i] != 0x5a;
		CU_ASSERT_EQUAL(bad, 0);
		if (r != -1 || len != need || bad != 0)
			printf("\n  %d with %u of %u bytes: %d, len %u, %zu "
			       "bytes written past the buffer\n", name,
			       (unsigned)cap, (unsigned)need, r,
			       (unsigned)len, bad);
	}
	free(buf);
}

static void
test_short_buffer(void)
{
	struct sockaddr_in ba = rds_test_sin(RDS_TEST_IP2, 7202);
	uint8_t msg[8] = { 0 };
	int a, b;

	rds_test_watchdog(60, "short_buffer");
	CU_ASSERT_FATAL(lib_up() == 0);
	a = rds_test_socket(RDS_TEST_IP1, 7201, 0, 0);
	b = rds_test_socket(RDS_TEST_IP2, 7202, 0, 0);
	CU_ASSERT_FATAL(a >= 0 && b >= 0);
	CU_ASSERT_EQUAL(rds_test_send(a, msg, 8, &ba, MSG_DONTWAIT), 8);
	CU_ASSERT_FATAL(wait_queued(b, 1));
	check_short(RDS_INFO_COUNTERS);
	check_short(RDS_INFO_SOCKETS);
	check_short(RDS_INFO_CONNECTIONS);
	check_short(RDS_INFO_RECV_MESSAGES);
	check_short(RDS6_INFO_SOCKETS);
	check_short(RDS6_INFO_CONNECTIONS);
	CU_ASSERT(rte_rds_close(a) == 0);
	CU_ASSERT(rte_rds_close(b) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
	rds_test_watchdog(0, NULL);
}

/* ------------------------------------------------------------------ */

static void
test_counters(void)
{
	struct sockaddr_in ba = rds_test_sin(RDS_TEST_IP2, 7302);
	struct rte_rds_stats st0, st1;
	const uint64_t *v0 = (const uint64_t *)&st0;
	const uint64_t *v1 = (const uint64_t *)&st1;
	struct rds_info_counter *c, *c2;
	uint8_t msg[64] = { 0 };
	unsigned int n, i, nonzero = 0;
	const char *want;
	socklen_t len;
	int a, b, r;

	rds_test_watchdog(60, "counters");
	CU_ASSERT_FATAL(lib_up() == 0);
	a = rds_test_socket(RDS_TEST_IP1, 7301, 0, 0);
	b = rds_test_socket(RDS_TEST_IP2, 7302, 0, 0);
	CU_ASSERT_FATAL(a >= 0 && b >= 0);
	for (i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(rds_test_send(a, msg, 10 + i, &ba,
					      MSG_DONTWAIT), (ssize_t)(10 + i));
	for (i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(rds_test_wait_msg(b, msg, sizeof(msg),
						NULL, 10000),
				(ssize_t)(10 + i));
	rds_test_kick_n(10);

	/* Nothing polls the engine between these (the counters snapshot
	 * does not ask it), so the values are exact. */
	CU_ASSERT(rte_rds_stats_get(-1, &st0) == 0);
	c = snap(RDS_INFO_COUNTERS, &n);
	CU_ASSERT(rte_rds_stats_get(-1, &st1) == 0);
	CU_ASSERT_FATAL(c != NULL);
	CU_ASSERT_EQUAL(n, RTE_RDS_STATS_NUM);
	printf("\n");
	for (i = 0; i < n && i < RTE_RDS_STATS_NUM; i++) {
		char name[sizeof(c[i].name) + 1];
		uint64_t val;

		memcpy(name, c[i].name, sizeof(c[i].name));
		name[sizeof(c[i].name)] = '\0';
		memcpy(&val, &c[i].value, sizeof(val));
		CU_ASSERT(memchr(c[i].name, '\0', sizeof(c[i].name)) != NULL);
		CU_ASSERT(strncmp(name, "s_", 2) != 0);
		want = rte_rds_stats_name(i);
		CU_ASSERT_FATAL(want != NULL);
		if (strncmp(want, "s_", 2) == 0)
			want += 2;
		CU_ASSERT_STRING_EQUAL(name, want);
		CU_ASSERT(val >= v0[i] && val <= v1[i]);
		CU_ASSERT_EQUAL(v0[i], v1[i]);
		if (val != v0[i])
			printf("  %s = %" PRIu64 ", stats say %" PRIu64 "\n",
			       name, val, v0[i]);
		nonzero += val != 0;
	}
	printf("  %u counters, %u non-zero; e.g. send_xmit=%" PRIu64
	       " recv_delivered=%" PRIu64 "\n", n, nonzero, st0.s_send_xmit,
	       st0.s_recv_delivered);
	CU_ASSERT(st0.s_send_xmit >= 5);
	CU_ASSERT(st0.s_recv_delivered >= 5);

	/* The same through getsockopt: returns the record size. */
	c2 = malloc(n * sizeof(*c2));
	CU_ASSERT_FATAL(c2 != NULL);
	len = (socklen_t)(n * sizeof(*c2));
	r = rte_rds_getsockopt(a, SOL_RDS, RDS_INFO_COUNTERS, c2, &len);
	CU_ASSERT_EQUAL(r, (int)sizeof(struct rds_info_counter));
	CU_ASSERT_EQUAL(len, n * sizeof(*c2));
	CU_ASSERT(memcmp(c, c2, n * sizeof(*c2)) == 0);
	/* Probe through getsockopt: ENOSPC, a multiple of the size. */
	len = 0;
	CU_ASSERT_EQUAL(rte_rds_getsockopt(a, SOL_RDS, RDS_INFO_COUNTERS,
					   NULL, &len), -1);
	CU_ASSERT_EQUAL(rte_errno, ENOSPC);
	CU_ASSERT_EQUAL(len % sizeof(struct rds_info_counter), 0);
	CU_ASSERT_EQUAL(len, n * sizeof(*c2));
	free(c2);
	free(c);

	CU_ASSERT(rte_rds_close(a) == 0);
	CU_ASSERT(rte_rds_close(b) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
	rds_test_watchdog(0, NULL);
}

/* ------------------------------------------------------------------ */

static const struct rds_info_socket *
find_sock4(const struct rds_info_socket *r, unsigned int n, uint64_t inum)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (r[i].inum == inum)
			return &r[i];
	return NULL;
}

static const struct rds6_info_socket *
find_sock6(const struct rds6_info_socket *r, unsigned int n, uint64_t inum)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (r[i].inum == inum)
			return &r[i];
	return NULL;
}

static void
test_sockets(void)
{
	struct sockaddr_in ba = rds_test_sin(RDS_TEST_IP2, 7402);
	const struct in6_addr any6 = IN6ADDR_ANY_INIT;
	struct in6_addr m1 = mapped(RDS_TEST_IP1), m2 = mapped(RDS_TEST_IP2);
	const struct rds_info_socket *ia, *ib, *iy, *iu;
	const struct rds6_info_socket *ja, *jb, *jy, *ju;
	struct rds_info_socket *s4;
	struct rds6_info_socket *s6;
	unsigned int n4, n6, i, j;
	int a, b, x, y, u, sndbuf = 10000;

	rds_test_watchdog(60, "sockets");
	CU_ASSERT_FATAL(lib_up() == 0);
	a = rds_test_socket(RDS_TEST_IP1, 7401, sndbuf, 0);
	b = rds_test_socket(RDS_TEST_IP2, 7402, 0, 30000);
	CU_ASSERT_FATAL(a >= 0 && b >= 0);
	CU_ASSERT(rte_rds_connect(a, (const struct sockaddr *)&ba,
				  sizeof(ba)) == 0);
	/* A socket bound, closed, and its slot taken by an unbound one:
	 * nothing of the old one may show. */
	x = rds_test_socket(RDS_TEST_IP3, 7403, 0, 0);
	CU_ASSERT_FATAL(x >= 0);
	CU_ASSERT(rte_rds_close(x) == 0);
	y = rte_rds_socket();
	u = rte_rds_socket();
	CU_ASSERT_FATAL(y >= 0 && u >= 0);
	printf("\n  sockets a=%d b=%d y=%d (slot of closed %d) u=%d\n", a, b,
	       y, x, u);

	s4 = snap(RDS_INFO_SOCKETS, &n4);
	s6 = snap(RDS6_INFO_SOCKETS, &n6);
	CU_ASSERT_EQUAL(n4, 4);
	CU_ASSERT_EQUAL(n6, n4);
	CU_ASSERT_FATAL(s4 != NULL && s6 != NULL);
	/* inum identifies a socket: distinct. */
	for (i = 0; i < n4; i++)
		for (j = i + 1; j < n4; j++)
			CU_ASSERT(s4[i].inum != s4[j].inum);
	/* The library's inum is the handle. */
	ia = find_sock4(s4, n4, (uint64_t)a);
	ib = find_sock4(s4, n4, (uint64_t)b);
	iy = find_sock4(s4, n4, (uint64_t)y);
	iu = find_sock4(s4, n4, (uint64_t)u);
	ja = find_sock6(s6, n6, (uint64_t)a);
	jb = find_sock6(s6, n6, (uint64_t)b);
	jy = find_sock6(s6, n6, (uint64_t)y);
	ju = find_sock6(s6, n6, (uint64_t)u);
	CU_ASSERT_FATAL(ia && ib && iy && iu && ja && jb && jy && ju);

	/* Bound: address and port in network order, buffers as set
	 * (the kernel reports rds_sk_sndbuf, half of what getsockopt
	 * says, i.e. the value set). */
	CU_ASSERT_EQUAL(ia->bound_addr, ip4(RDS_TEST_IP1));
	CU_ASSERT_EQUAL(ia->bound_port, htons(7401));
	CU_ASSERT_EQUAL(ia->sndbuf, (uint32_t)sndbuf);
	CU_ASSERT_EQUAL(ia->rcvbuf, DEF_BUF);
	CU_ASSERT_EQUAL(ia->connected_addr, ip4(RDS_TEST_IP2));
	CU_ASSERT_EQUAL(ia->connected_port, htons(7402));
	CU_ASSERT_EQUAL(ib->bound_addr, ip4(RDS_TEST_IP2));
	CU_ASSERT_EQUAL(ib->bound_port, htons(7402));
	CU_ASSERT_EQUAL(ib->sndbuf, DEF_BUF);
	CU_ASSERT_EQUAL(ib->rcvbuf, 30000);
	CU_ASSERT_EQUAL(ib->connected_addr, 0);
	CU_ASSERT_EQUAL(ib->connected_port, 0);
	/* Unbound: zeroes (also in the slot of a closed bound socket). */
	CU_ASSERT_EQUAL(iu->bound_addr, 0);
	CU_ASSERT_EQUAL(iu->bound_port, 0);
	CU_ASSERT_EQUAL(iy->bound_addr, 0);
	CU_ASSERT_EQUAL(iy->bound_port, 0);
	CU_ASSERT_EQUAL(iy->connected_port, 0);
	if (iy->bound_port != 0)
		printf("  unbound socket %d (reused slot) reports bound_port "
		       "%u\n", y, ntohs(iy->bound_port));

	/* RDS6: the same, v4-mapped. */
	CU_ASSERT(in6_eq(&ja->bound_addr, &m1));
	CU_ASSERT_EQUAL(ja->bound_port, htons(7401));
	CU_ASSERT_EQUAL(ja->sndbuf, (uint32_t)sndbuf);
	CU_ASSERT_EQUAL(ja->rcvbuf, DEF_BUF);
	CU_ASSERT(in6_eq(&ja->connected_addr, &m2));
	CU_ASSERT_EQUAL(ja->connected_port, htons(7402));
	CU_ASSERT(in6_eq(&jb->bound_addr, &m2));
	CU_ASSERT_EQUAL(jb->bound_port, htons(7402));
	CU_ASSERT_EQUAL(jb->rcvbuf, 30000);
	CU_ASSERT(in6_eq(&jb->connected_addr, &any6));
	CU_ASSERT(in6_eq(&ju->bound_addr, &any6));
	CU_ASSERT_EQUAL(ju->bound_port, 0);
	CU_ASSERT(in6_eq(&jy->bound_addr, &any6));
	CU_ASSERT_EQUAL(jy->bound_port, 0);
	CU_ASSERT(in6_eq(&jy->connected_addr, &any6));
	if (!in6_eq(&jy->bound_addr, &any6)) {
		char s[INET6_ADDRSTRLEN];

		{
			struct in6_addr t;

			memcpy(&t, &jy->bound_addr, sizeof(t));
			inet_ntop(AF_INET6, &t, s, sizeof(s));
		}
		printf("  RDS6: unbound socket %d (reused slot) reports "
		       "bound_addr %s\n", y, s);
	}
	free(s4);
	free(s6);

	/* Closing removes a socket from the list. */
	CU_ASSERT(rte_rds_close(u) == 0);
	CU_ASSERT_EQUAL(count(RDS_INFO_SOCKETS), 3);
	CU_ASSERT_EQUAL(count(RDS6_INFO_SOCKETS), 3);

	CU_ASSERT(rte_rds_close(a) == 0);
	CU_ASSERT(rte_rds_close(b) == 0);
	CU_ASSERT(rte_rds_close(y) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
	rds_test_watchdog(0, NULL);
}

/* ------------------------------------------------------------------ */

static void
test_connections(void)
{
	struct sockaddr_in aa = rds_test_sin(RDS_TEST_IP1, 7501);
	struct sockaddr_in ba = rds_test_sin(RDS_TEST_IP2, 7502);
	struct in6_addr m1 = mapped(RDS_TEST_IP1), m2 = mapped(RDS_TEST_IP2);
	struct rds_info_connection *c4;
	struct rds6_info_connection *c6;
	uint8_t msg[64] = { 0 };
	unsigned int n4, n6, i, f12 = 0, f21 = 0, g12 = 0, g21 = 0;
	int a, b;

	rds_test_watchdog(60, "connections");
	CU_ASSERT_FATAL(lib_up() == 0);
	a = rds_test_socket(RDS_TEST_IP1, 7501, 0, 0);
	b = rds_test_socket(RDS_TEST_IP2, 7502, 0, 0);
	CU_ASSERT_FATAL(a >= 0 && b >= 0);
	CU_ASSERT_EQUAL(count(RDS_INFO_CONNECTIONS), 0);

	CU_ASSERT_EQUAL(rds_test_send(a, msg, 11, &ba, MSG_DONTWAIT), 11);
	CU_ASSERT_EQUAL(rds_test_send(a, msg, 12, &ba, MSG_DONTWAIT), 12);
	CU_ASSERT_EQUAL(rds_test_send(b, msg, 13, &aa, MSG_DONTWAIT), 13);
	CU_ASSERT_EQUAL(rds_test_wait_msg(b, msg, sizeof(msg),
					NULL, 10000), 11);
	CU_ASSERT_EQUAL(rds_test_wait_msg(b, msg, sizeof(msg),
					NULL, 10000), 12);
	CU_ASSERT_EQUAL(rds_test_wait_msg(a, msg, sizeof(msg),
					NULL, 10000), 13);
	CU_ASSERT(wait_all_acked());

	c4 = snap(RDS_INFO_CONNECTIONS, &n4);
	c6 = snap(RDS6_INFO_CONNECTIONS, &n6);
	printf("\n");
	CU_ASSERT_EQUAL(n4, 2);
	CU_ASSERT_EQUAL(n6, n4);
	for (i = 0; i < n4; i++) {
		char l[INET_ADDRSTRLEN], f[INET_ADDRSTRLEN];
		uint64_t tx, rx;

		memcpy(&tx, &c4[i].next_tx_seq, sizeof(tx));
		memcpy(&rx, &c4[i].next_rx_seq, sizeof(rx));
		inet_ntop(AF_INET, &c4[i].laddr, l, sizeof(l));
		inet_ntop(AF_INET, &c4[i].faddr, f, sizeof(f));
		printf("  %s -> %s %.16s tx %" PRIu64 " rx %" PRIu64
		       " flags 0x%x tos %u\n", l, f,
		       (const char *)c4[i].transport, tx, rx, c4[i].flags,
		       c4[i].tos);
		CU_ASSERT(memchr(c4[i].transport, '\0',
				 sizeof(c4[i].transport)) != NULL);
		/* The kernel's transport name (net/rds/loop.c t_name), so
		 * that rds-info prints the same. */
		CU_ASSERT_STRING_EQUAL((const char *)c4[i].transport,
				       "loopback");
		CU_ASSERT(c4[i].flags & RDS_INFO_CONNECTION_FLAG_CONNECTED);
		CU_ASSERT(!(c4[i].flags & RDS_INFO_CONNECTION_FLAG_CONNECTING));
		/* Everything was transmitted. */
		CU_ASSERT(!(c4[i].flags & RDS_INFO_CONNECTION_FLAG_SENDING));
		CU_ASSERT(tx > 1);
		CU_ASSERT(rx > 1);
		if (c4[i].laddr == ip4(RDS_TEST_IP1) &&
		    c4[i].faddr == ip4(RDS_TEST_IP2)) {
			f12++;
			CU_ASSERT_EQUAL(tx, 3);	/* two messages sent */
			CU_ASSERT_EQUAL(rx, 2);	/* one received */
		} else if (c4[i].laddr == ip4(RDS_TEST_IP2) &&
			   c4[i].faddr == ip4(RDS_TEST_IP1)) {
			f21++;
			CU_ASSERT_EQUAL(tx, 2);
			CU_ASSERT_EQUAL(rx, 3);
		}
	}
	CU_ASSERT_EQUAL(f12, 1);
	CU_ASSERT_EQUAL(f21, 1);
	for (i = 0; i < n6; i++) {
		uint64_t tx;

		memcpy(&tx, &c6[i].next_tx_seq, sizeof(tx));
		CU_ASSERT_STRING_EQUAL((const char *)c6[i].transport,
				       "loopback");
		CU_ASSERT(c6[i].flags & RDS_INFO_CONNECTION_FLAG_CONNECTED);
		CU_ASSERT(tx > 1);
		if (in6_eq(&c6[i].laddr, &m1) && in6_eq(&c6[i].faddr, &m2))
			g12++;
		else if (in6_eq(&c6[i].laddr, &m2) &&
			 in6_eq(&c6[i].faddr, &m1))
			g21++;
	}
	CU_ASSERT_EQUAL(g12, 1);
	CU_ASSERT_EQUAL(g21, 1);
	free(c4);
	free(c6);

	CU_ASSERT(rte_rds_close(a) == 0);
	CU_ASSERT(rte_rds_close(b) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
	rds_test_watchdog(0, NULL);
}

/* ------------------------------------------------------------------ */

static void
test_recv_messages(void)
{
	struct sockaddr_in ba = rds_test_sin(RDS_TEST_IP2, 7602);
	struct in6_addr m1 = mapped(RDS_TEST_IP1), m2 = mapped(RDS_TEST_IP2);
	static const uint32_t lens[] = { 10, 20, 30 };
	struct rds_info_message *r4;
	struct rds6_info_message *r6;
	uint8_t msg[64] = { 0 };
	unsigned int n4, n6, i;
	uint64_t seq, prev = 0;
	int a, b, c;

	rds_test_watchdog(60, "recv_messages");
	CU_ASSERT_FATAL(lib_up() == 0);
	a = rds_test_socket(RDS_TEST_IP1, 7601, 0, 0);
	b = rds_test_socket(RDS_TEST_IP2, 7602, 0, 0);
	/* A bystander with nothing queued adds no records. */
	c = rds_test_socket(RDS_TEST_IP3, 7603, 0, 0);
	CU_ASSERT_FATAL(a >= 0 && b >= 0 && c >= 0);
	CU_ASSERT_EQUAL(count(RDS_INFO_RECV_MESSAGES), 0);

	for (i = 0; i < RTE_DIM(lens); i++)
		CU_ASSERT_EQUAL(rds_test_send(a, msg, lens[i], &ba,
					      MSG_DONTWAIT), (ssize_t)lens[i]);
	CU_ASSERT_FATAL(wait_queued(b, 3));

	r4 = snap(RDS_INFO_RECV_MESSAGES, &n4);
	r6 = snap(RDS6_INFO_RECV_MESSAGES, &n6);
	CU_ASSERT_EQUAL(n4, 3);
	CU_ASSERT_EQUAL(n6, 3);
	for (i = 0; i < n4 && i < 3; i++) {
		memcpy(&seq, &r4[i].seq, sizeof(seq));
		CU_ASSERT_EQUAL(r4[i].len, lens[i]);
		CU_ASSERT_EQUAL(r4[i].laddr, ip4(RDS_TEST_IP2));
		CU_ASSERT_EQUAL(r4[i].faddr, ip4(RDS_TEST_IP1));
		CU_ASSERT_EQUAL(r4[i].lport, htons(7602));
		CU_ASSERT_EQUAL(r4[i].fport, htons(7601));
		CU_ASSERT(seq > prev);
		prev = seq;
	}
	for (i = 0; i < n6 && i < 3; i++) {
		CU_ASSERT_EQUAL(r6[i].len, lens[i]);
		CU_ASSERT(in6_eq(&r6[i].laddr, &m2));
		CU_ASSERT(in6_eq(&r6[i].faddr, &m1));
		CU_ASSERT_EQUAL(r6[i].lport, htons(7602));
		CU_ASSERT_EQUAL(r6[i].fport, htons(7601));
		CU_ASSERT_EQUAL(memcmp(&r6[i].seq, &r4[i].seq, 8), 0);
	}
	free(r4);
	free(r6);

	/* MSG_PEEK leaves it queued, and listed. */
	CU_ASSERT_EQUAL(rds_test_recv(b, msg, sizeof(msg), NULL,
				      MSG_DONTWAIT | MSG_PEEK, NULL), 10);
	CU_ASSERT_EQUAL(count(RDS_INFO_RECV_MESSAGES), 3);
	/* Read one: two left, the first now 20 bytes. */
	CU_ASSERT_EQUAL(rds_test_recv(b, msg, sizeof(msg), NULL, MSG_DONTWAIT,
				      NULL), 10);
	r4 = snap(RDS_INFO_RECV_MESSAGES, &n4);
	CU_ASSERT_EQUAL(n4, 2);
	if (n4 >= 2) {
		CU_ASSERT_EQUAL(r4[0].len, 20);
		CU_ASSERT_EQUAL(r4[1].len, 30);
	}
	free(r4);
	CU_ASSERT_EQUAL(count(RDS6_INFO_RECV_MESSAGES), 2);
	/* Closing the receiver drops its queue from the list. */
	CU_ASSERT(rte_rds_close(b) == 0);
	CU_ASSERT_EQUAL(count(RDS_INFO_RECV_MESSAGES), 0);

	CU_ASSERT(rte_rds_close(a) == 0);
	CU_ASSERT(rte_rds_close(c) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
	rds_test_watchdog(0, NULL);
}

/* ------------------------------------------------------------------ */

/*
 * Messages sent and not yet acknowledged.
 *
 * The loop transport hands a frame to the peer connection at once, so
 * the only window is the delayed ACK: messages sent without
 * ACK_REQUIRED (the first max_unacked_packets - 1 of a connection, with
 * the send buffer under half full) are acknowledged by an ACK-only frame
 * RDS_DELAYED_ACK_US after arrival, and that frame is sent from the
 * engine's connection pass, which comes after the info requests in an
 * engine iteration. A snapshot that asks an inline engine runs exactly
 * one iteration and is answered in it after the engine took what the
 * sockets queued (issue 11: a snapshot reflects every call that returned
 * before it) and before it transmits. So the first snapshot after the
 * sends finds the batch on the send queue and none of it awaiting an
 * ACK; its iteration transmits the batch, and the next snapshot finds
 * all of it on the retransmit queue and nothing on the send queue,
 * whatever the timing.
 */
static void
check_retrans_batch(int a, int b, uint16_t ap, uint16_t bp, bool v6,
		    uint64_t first_seq)
{
	struct sockaddr_in ba = rds_test_sin(RDS_TEST_IP2, bp);
	struct in6_addr m1 = mapped(RDS_TEST_IP1), m2 = mapped(RDS_TEST_IP2);
	static const uint32_t lens[] = { 100, 200, 300 };
	const int name = v6 ? RDS6_INFO_RETRANS_MESSAGES :
			      RDS_INFO_RETRANS_MESSAGES;
	union {
		struct rds_info_message m4[64];
		struct rds6_info_message m6[64];
	} u;
	uint8_t msg[512] = { 0 };
	uint64_t seq;
	unsigned int i;
	int n;

	for (i = 0; i < RTE_DIM(lens); i++)
		CU_ASSERT_EQUAL(rds_test_send(a, msg, lens[i], &ba,
					      MSG_DONTWAIT), (ssize_t)lens[i]);
	/* Served after the engine took the batch from the socket and
	 * before it transmits it (this call's iteration then does). */
	n = fill(v6 ? RDS6_INFO_SEND_MESSAGES : RDS_INFO_SEND_MESSAGES, &u,
		 64);
	printf("  %s: %d message(s) on the send queue right after the "
	       "sends\n", v6 ? "RDS6_INFO_SEND_MESSAGES" :
	       "RDS_INFO_SEND_MESSAGES", n);
	CU_ASSERT_EQUAL(n, 3);
	for (i = 0; n > 0 && i < (unsigned int)n && i < 3; i++) {
		if (v6)
			memcpy(&seq, &u.m6[i].seq, sizeof(seq));
		else
			memcpy(&seq, &u.m4[i].seq, sizeof(seq));
		CU_ASSERT_EQUAL(seq, first_seq + i);
		CU_ASSERT_EQUAL(v6 ? u.m6[i].len : u.m4[i].len, lens[i]);
	}
	/* Served at the start of the next iteration: all three sent,
	 * none acknowledged. */
	n = fill(name, &u, 64);
	printf("  %s: %d message(s) awaiting an ACK\n",
	       v6 ? "RDS6_INFO_RETRANS_MESSAGES" : "RDS_INFO_RETRANS_MESSAGES",
	       n);
	CU_ASSERT_EQUAL(n, 3);
	for (i = 0; n > 0 && i < (unsigned int)n && i < 3; i++) {
		if (v6) {
			struct rds6_info_message *m = &u.m6[i];

			memcpy(&seq, &m->seq, sizeof(seq));
			CU_ASSERT_EQUAL(m->len, lens[i]);
			CU_ASSERT(in6_eq(&m->laddr, &m1));
			CU_ASSERT(in6_eq(&m->faddr, &m2));
			CU_ASSERT_EQUAL(m->lport, htons(ap));
			CU_ASSERT_EQUAL(m->fport, htons(bp));
			CU_ASSERT_EQUAL(m->flags & RDS_INFO_MESSAGE_FLAG_ACK, 0);
		} else {
			struct rds_info_message *m = &u.m4[i];

			memcpy(&seq, &m->seq, sizeof(seq));
			CU_ASSERT_EQUAL(m->len, lens[i]);
			CU_ASSERT_EQUAL(m->laddr, ip4(RDS_TEST_IP1));
			CU_ASSERT_EQUAL(m->faddr, ip4(RDS_TEST_IP2));
			CU_ASSERT_EQUAL(m->lport, htons(ap));
			CU_ASSERT_EQUAL(m->fport, htons(bp));
			CU_ASSERT_EQUAL(m->flags & RDS_INFO_MESSAGE_FLAG_ACK, 0);
		}
		CU_ASSERT_EQUAL(seq, first_seq + i);
	}
	CU_ASSERT_EQUAL(fill(v6 ? RDS6_INFO_SEND_MESSAGES :
			     RDS_INFO_SEND_MESSAGES, &u, 64), 0);
	/* The delayed ACK comes: nothing left. */
	CU_ASSERT(wait_all_acked());
	for (i = 0; i < RTE_DIM(lens); i++)
		CU_ASSERT_EQUAL(rds_test_wait_msg(b, msg, sizeof(msg),
						NULL, 10000),
				(ssize_t)lens[i]);
}

static void
test_retrans_messages(void)
{
	int a, b;

	struct rte_rds_loop_faults wire = { .explicit_ack = 1 };

	rds_test_watchdog(60, "retrans_messages");
	CU_ASSERT_FATAL(lib_up() == 0);
	/* Acknowledged by ACK frames, as on a wire: without that the loop
	 * transport counts a delivered message acknowledged at once. */
	CU_ASSERT_FATAL(rte_rds_loop_set_faults(&wire) == 0);
	a = rds_test_socket(RDS_TEST_IP1, 7701, 0, 0);
	b = rds_test_socket(RDS_TEST_IP2, 7702, 0, 0);
	CU_ASSERT_FATAL(a >= 0 && b >= 0);
	printf("\n");
	check_retrans_batch(a, b, 7701, 7702, false, 1);
	/* Messages 4..6 of the connection: still no ACK_REQUIRED (the
	 * 8th is the first to carry it). */
	check_retrans_batch(a, b, 7701, 7702, true, 4);
	CU_ASSERT(rte_rds_close(a) == 0);
	CU_ASSERT(rte_rds_close(b) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
	rds_test_watchdog(0, NULL);
}

/* ------------------------------------------------------------------ */
/* Notifications */

/* recvmsg with a control buffer of clen bytes (none when 0); up to 8
 * notifications go to tok/st. */
static ssize_t
recv_notes(int s, size_t clen, int flags, uint64_t *tok, int32_t *st,
	   int *nnotes, int *mflags, size_t *ctl_used, void *data,
	   size_t dlen)
{
	union {
		struct cmsghdr h;
		uint8_t b[512];
	} cbuf;
	struct sockaddr_in from;
	struct rds_rdma_notify nt;
	struct cmsghdr *cm;
	struct iovec iov;
	struct msghdr mh;
	ssize_t r;

	*nnotes = 0;
	*mflags = 0;
	*ctl_used = 0;
	memset(&cbuf, 0, sizeof(cbuf));
	memset(&mh, 0, sizeof(mh));
	iov.iov_base = data;
	iov.iov_len = dlen;
	mh.msg_name = &from;
	mh.msg_namelen = sizeof(from);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = clen != 0 ? cbuf.b : NULL;
	mh.msg_controllen = clen;
	r = rte_rds_recvmsg(s, &mh, flags);
	if (r < 0)
		return r;
	*mflags = mh.msg_flags;
	*ctl_used = mh.msg_controllen;
	if (mh.msg_control == NULL || mh.msg_controllen < sizeof(*cm))
		return r;
	for (cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm)) {
		CU_ASSERT_EQUAL(cm->cmsg_level, SOL_RDS);
		CU_ASSERT_EQUAL(cm->cmsg_type, RDS_CMSG_RDMA_STATUS);
		CU_ASSERT_EQUAL(cm->cmsg_len, CMSG_LEN(sizeof(nt)));
		if (cm->cmsg_type != RDS_CMSG_RDMA_STATUS || *nnotes >= 8)
			continue;
		memcpy(&nt, CMSG_DATA(cm), sizeof(nt));
		tok[*nnotes] = nt.user_token;
		st[*nnotes] = nt.status;
		(*nnotes)++;
	}
	return r;
}

static void
queue_note(int s, uint64_t token, int32_t status)
{
	rds_notify_queue(rds_engine_get(0), rds_slot_of(s)->body, token, status);
}

static void
test_notifications(void)
{
	struct sockaddr_in ba = rds_test_sin(RDS_TEST_IP2, 7802);
	const size_t one = CMSG_SPACE(sizeof(struct rds_rdma_notify));
	static const uint64_t tk[3] = { 0x1111000000000001ULL,
					0x2222000000000002ULL,
					0xffffffffffffffffULL };
	static const int32_t stv[3] = { RDS_RDMA_SUCCESS,
					RDS_RDMA_REMOTE_ERROR,
					RDS_RDMA_CANCELED };
	uint64_t tok[8];
	int32_t st[8];
	uint8_t data[64];
	size_t used;
	ssize_t r;
	short rev;
	struct rte_rds_pollfd p;
	int a, b, c, nn, mf, i;

	rds_test_watchdog(60, "notifications");
	CU_ASSERT_FATAL(lib_up() == 0);
	a = rds_test_socket(RDS_TEST_IP1, 7801, 0, 0);
	b = rds_test_socket(RDS_TEST_IP2, 7802, 0, 0);
	c = rds_test_socket(RDS_TEST_IP3, 7803, 0, 0);
	CU_ASSERT_FATAL(a >= 0 && b >= 0 && c >= 0);
	printf("\n");

	/* POLLIN while a notification is queued, and only then. */
	p.sock = c;
	p.events = POLLIN;
	p.revents = 0;
	rte_rds_poll(&p, 1, 0);
	rev = p.revents;
	CU_ASSERT(!(rev & POLLIN));
	queue_note(c, 42, RDS_RDMA_SUCCESS);
	p.revents = 0;
	CU_ASSERT(rte_rds_poll(&p, 1, 0) >= 1);
	CU_ASSERT(p.revents & POLLIN);
	r = recv_notes(c, one, MSG_DONTWAIT, tok, st, &nn, &mf, &used, data,
		       sizeof(data));
	CU_ASSERT_EQUAL(r, 0);
	CU_ASSERT_EQUAL(nn, 1);
	CU_ASSERT(nn == 1 && tok[0] == 42 && st[0] == RDS_RDMA_SUCCESS);
	p.revents = 0;
	rte_rds_poll(&p, 1, 0);
	CU_ASSERT(!(p.revents & POLLIN));

	/* A data message queued first, then three notifications: the
	 * notifications come first, all in one call (room for them). */
	memset(data, 0x3c, sizeof(data));
	CU_ASSERT_EQUAL(rds_test_send(a, data, 17, &ba, MSG_DONTWAIT), 17);
	CU_ASSERT_FATAL(wait_queued(b, 1));
	for (i = 0; i < 3; i++)
		queue_note(b, tk[i], stv[i]);
	r = recv_notes(b, 3 * one + 8, MSG_DONTWAIT, tok, st, &nn, &mf, &used,
		       data, sizeof(data));
	printf("  3 queued, room for 3: %zd, %d notification(s), flags 0x%x,"
	       " controllen %zu\n", r, nn, mf, used);
	CU_ASSERT_EQUAL(r, 0);
	CU_ASSERT_EQUAL(nn, 3);
	CU_ASSERT(!(mf & MSG_CTRUNC));
	CU_ASSERT(used >= 2 * one + CMSG_LEN(sizeof(struct rds_rdma_notify)));
	CU_ASSERT(used <= 3 * one);
	for (i = 0; i < nn && i < 3; i++) {
		CU_ASSERT_EQUAL(tok[i], tk[i]);
		CU_ASSERT_EQUAL(st[i], stv[i]);
	}
	/* Then the data. */
	r = recv_notes(b, 3 * one, MSG_DONTWAIT, tok, st, &nn, &mf, &used,
		       data, sizeof(data));
	CU_ASSERT_EQUAL(r, 17);
	CU_ASSERT_EQUAL(nn, 0);
	CU_ASSERT_EQUAL(used, 0);

	/* Room for one of three: one each call, MSG_CTRUNC while some do
	 * not fit; all of them eventually, in order. */
	for (i = 0; i < 3; i++)
		queue_note(b, tk[i], stv[i]);
	for (i = 0; i < 3; i++) {
		r = recv_notes(b, one, MSG_DONTWAIT, tok, st, &nn, &mf, &used,
			       data, sizeof(data));
		printf("  room for one, call %d: %zd, %d notification(s) "
		       "(token 0x%" PRIx64 "), flags 0x%x\n", i, r, nn,
		       nn > 0 ? tok[0] : 0, mf);
		CU_ASSERT_EQUAL(r, 0);
		CU_ASSERT_EQUAL(nn, 1);
		if (nn == 1) {
			CU_ASSERT_EQUAL(tok[0], tk[i]);
			CU_ASSERT_EQUAL(st[0], stv[i]);
		}
		if (i < 2) {
			CU_ASSERT(mf & MSG_CTRUNC);
		} else {
			CU_ASSERT(!(mf & MSG_CTRUNC));
		}
	}
	CU_ASSERT_EQUAL(recv_notes(b, one, MSG_DONTWAIT, tok, st, &nn, &mf,
				   &used, data, sizeof(data)), -1);
	CU_ASSERT_EQUAL(rte_errno, EAGAIN);

	/* No control buffer: MSG_CTRUNC, and one is consumed (so that
	 * such a reader cannot spin). */
	queue_note(b, tk[0], stv[0]);
	queue_note(b, tk[1], stv[1]);
	r = recv_notes(b, 0, MSG_DONTWAIT, tok, st, &nn, &mf, &used, data,
		       sizeof(data));
	printf("  no control buffer: %zd, flags 0x%x\n", r, mf);
	CU_ASSERT_EQUAL(r, 0);
	CU_ASSERT(mf & MSG_CTRUNC);
	CU_ASSERT_EQUAL(nn, 0);
	r = recv_notes(b, 3 * one, MSG_DONTWAIT, tok, st, &nn, &mf, &used,
		       data, sizeof(data));
	CU_ASSERT_EQUAL(r, 0);
	CU_ASSERT_EQUAL(nn, 1);
	CU_ASSERT(nn == 1 && tok[0] == tk[1] && st[0] == stv[1]);
	CU_ASSERT(!(mf & MSG_CTRUNC));
	CU_ASSERT_EQUAL(recv_notes(b, one, MSG_DONTWAIT, tok, st, &nn, &mf,
				   &used, data, sizeof(data)), -1);
	CU_ASSERT_EQUAL(rte_errno, EAGAIN);

	/* A control buffer too small for even one (but not empty). */
	queue_note(b, tk[2], stv[2]);
	r = recv_notes(b, CMSG_LEN(sizeof(struct rds_rdma_notify)) - 1,
		       MSG_DONTWAIT, tok, st, &nn, &mf, &used, data,
		       sizeof(data));
	CU_ASSERT_EQUAL(r, 0);
	CU_ASSERT(mf & MSG_CTRUNC);
	CU_ASSERT_EQUAL(nn, 0);
	CU_ASSERT_EQUAL(recv_notes(b, one, MSG_DONTWAIT, tok, st, &nn, &mf,
				   &used, data, sizeof(data)), -1);
	CU_ASSERT_EQUAL(rte_errno, EAGAIN);

	/* A blocking recvmsg returns a queued notification at once. */
	queue_note(b, 7, RDS_RDMA_OTHER_ERROR);
	r = recv_notes(b, one, 0, tok, st, &nn, &mf, &used, data,
		       sizeof(data));
	CU_ASSERT_EQUAL(r, 0);
	CU_ASSERT(nn == 1 && tok[0] == 7 && st[0] == RDS_RDMA_OTHER_ERROR);

	/* Closing a socket with notifications queued frees them (ASan). */
	queue_note(c, 1, 0);
	queue_note(c, 2, 0);

	CU_ASSERT(rte_rds_close(a) == 0);
	CU_ASSERT(rte_rds_close(b) == 0);
	CU_ASSERT(rte_rds_close(c) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
	rds_test_watchdog(0, NULL);
}

/* ------------------------------------------------------------------ */
/* Telemetry */

/* The integer value of "key" in a JSON text (-1 when absent). */
static long
json_int(const char *json, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(json, pat);
	if (p == NULL)
		return -1;
	p += strlen(pat);
	while (*p == ' ')
		p++;
	return strtol(p, NULL, 10);
}

/* Send one command and read the reply into buf; while waiting, drive
 * the inline engine when kick is set. Returns the reply length or -1. */
static ssize_t
tel_cmd(int fd, const char *cmd, char *buf, size_t size, bool kick,
	uint64_t *ms)
{
	uint64_t t0 = rds_test_now_ns();
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t r;

	if (send(fd, cmd, strlen(cmd), 0) < 0) {
		printf("  telemetry send %s: %s\n", cmd, strerror(errno));
		return -1;
	}
	for (;;) {
		if (poll(&p, 1, kick ? 1 : 100) > 0) {
			r = recv(fd, buf, size - 1, 0);
			if (r < 0) {
				printf("  telemetry recv: %s\n",
				       strerror(errno));
				return -1;
			}
			buf[r] = '\0';
			*ms = (rds_test_now_ns() - t0) / 1000000ULL;
			return r;
		}
		if (!kick)
			return -2;	/* nothing within 100 ms */
		rds_test_kick();
		if (rds_test_now_ns() - t0 > 5000000000ULL) {
			printf("  telemetry %s: no reply in 5 s\n", cmd);
			return -1;
		}
	}
}

static void
test_telemetry(void)
{
	struct sockaddr_in ba = rds_test_sin(RDS_TEST_IP2, 7902);
	struct sockaddr_un sun;
	char path[sizeof(sun.sun_path)];
	static char buf[65536];
	const char *dir;
	struct stat sb;
	uint8_t msg[16] = { 0 };
	uint64_t ms = 0;
	ssize_t r;
	int fd, a, b;

	rds_test_watchdog(60, "telemetry");
	CU_ASSERT_FATAL(lib_up() == 0);
	a = rds_test_socket(RDS_TEST_IP1, 7901, 0, 0);
	b = rds_test_socket(RDS_TEST_IP2, 7902, 0, 0);
	CU_ASSERT_FATAL(a >= 0 && b >= 0);
	CU_ASSERT_EQUAL(rds_test_send(a, msg, 5, &ba, MSG_DONTWAIT), 5);
	CU_ASSERT_EQUAL(rds_test_wait_msg(b, msg, sizeof(msg), NULL, 10000), 5);

	dir = rte_eal_get_runtime_dir();
	snprintf(path, sizeof(path), "%s/dpdk_telemetry.v2",
		 dir != NULL ? dir : "?");
	printf("\n");
	if (stat(path, &sb) != 0) {
		printf("  TELEMETRY CHECK SKIPPED: %s: %s (EAL telemetry "
		       "disabled or not built)\n", path, strerror(errno));
		goto out;
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	CU_ASSERT_FATAL(fd >= 0);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0) {
		printf("  TELEMETRY CHECK SKIPPED: connect %s: %s\n", path,
		       strerror(errno));
		close(fd);
		goto out;
	}
	/* The greeting: {"version": ..., "pid": ..., "max_output_len": ...} */
	r = recv(fd, buf, sizeof(buf) - 1, 0);
	CU_ASSERT(r > 0);
	if (r > 0) {
		buf[r] = '\0';
		printf("  telemetry %s: %s\n", path, buf);
		CU_ASSERT(strstr(buf, "max_output_len") != NULL);
	}

	r = tel_cmd(fd, "/rds/stats", buf, sizeof(buf), true, &ms);
	printf("  /rds/stats: %.160s...\n", r > 0 ? buf : "(none)");
	CU_ASSERT(r > 0);
	CU_ASSERT(r > 0 && strncmp(buf, "{\"/rds/stats\":", 14) == 0);
	CU_ASSERT(r > 0 && strstr(buf, "\"s_polls\"") != NULL);
	CU_ASSERT(r > 0 && strstr(buf, "\"s_recv_delivered\"") != NULL);

	r = tel_cmd(fd, "/rds/info", buf, sizeof(buf), true, &ms);
	printf("  /rds/info: %s\n", r > 0 ? buf : "(none)");
	CU_ASSERT(r > 0);
	CU_ASSERT(r > 0 && strstr(buf, "\"engines\"") != NULL);
	CU_ASSERT(r > 0 && json_int(buf, "engines") == 1);
	CU_ASSERT(r > 0 && json_int(buf, "sockets_open") == 2);
	CU_ASSERT(r > 0 && strstr(buf, "10.255.0.1/loop") != NULL);

	r = tel_cmd(fd, "/rds/engine,0", buf, sizeof(buf), true, &ms);
	CU_ASSERT(r > 0 && strstr(buf, "\"s_polls\"") != NULL);

	r = tel_cmd(fd, "/rds/sockets", buf, sizeof(buf), true, &ms);
	printf("  /rds/sockets: %s\n", r > 0 ? buf : "(none)");
	CU_ASSERT(r > 0 && strstr(buf, "10.255.0.1:7901") != NULL);
	CU_ASSERT(r > 0 && strstr(buf, "10.255.0.2:7902") != NULL);

	/* /rds/conns asks the engines; the header says an inline engine
	 * must be polled by the application meanwhile. First see whether
	 * a reply comes without that (informational), then poll. */
	r = tel_cmd(fd, "/rds/conns", buf, sizeof(buf), false, &ms);
	if (r == -2) {
		printf("  /rds/conns: no reply within 100 ms without engine "
		       "polls; polling\n");
		r = -1;
		{
			struct pollfd p = { .fd = fd, .events = POLLIN };
			uint64_t t0 = rds_test_now_ns();

			while (poll(&p, 1, 1) == 0 &&
			       rds_test_now_ns() - t0 < 5000000000ULL)
				rds_test_kick();
			if (p.revents & POLLIN) {
				r = recv(fd, buf, sizeof(buf) - 1, 0);
				if (r >= 0)
					buf[r] = '\0';
			}
		}
	} else if (r > 0) {
		printf("  /rds/conns answered in %" PRIu64 " ms without "
		       "engine polls by the application (the telemetry "
		       "thread drove the inline engine itself)\n", ms);
	}
	printf("  /rds/conns: %s\n", r > 0 ? buf : "(none)");
	CU_ASSERT(r > 0 && strstr(buf, "loop") != NULL);
	CU_ASSERT(r > 0 && strstr(buf, "10.255.0.1->10.255.0.2") != NULL);
	close(fd);
out:
	CU_ASSERT(rte_rds_close(a) == 0);
	CU_ASSERT(rte_rds_close(b) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
	rds_test_watchdog(0, NULL);
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "probe_contract", test_probe_contract },
		{ "bad_names_and_args", test_bad_names_and_args },
		{ "unaligned_page_crossing", test_unaligned_page_crossing },
		{ "short_buffer", test_short_buffer },
		{ "counters", test_counters },
		{ "sockets", test_sockets },
		{ "connections", test_connections },
		{ "recv_messages", test_recv_messages },
		{ "retrans_messages", test_retrans_messages },
		{ "notifications", test_notifications },
		{ "telemetry", test_telemetry },
		{ NULL, NULL },
	};

	return rds_test_main("unit_info", "0", cases);
}

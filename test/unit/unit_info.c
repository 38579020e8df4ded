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

#include "unit_info.h"

int
lib_up(void)
{
	struct rte_rds_conf conf;

	rds_test_conf(&conf, RTE_RDS_ENGINE_INLINE, RTE_RDS_IDLE_YIELD);
	return rds_test_lib_init(&conf);
}

uint32_t
ip4(const char *ip)
{
	struct in_addr a;

	if (inet_pton(AF_INET, ip, &a) != 1)
		return 0;
	return a.s_addr;
}

struct in6_addr
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

/* The record size of each name, from <linux/rds.h>; 0: not a name. */
size_t
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
void *
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
int
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

unsigned int
count(int name)
{
	unsigned int n;

	free(snap(name, &n));
	return n;
}

/* Poll the inline engine until s has a message (non-blocking peek). */
bool
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
bool
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

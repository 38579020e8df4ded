/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tcp suite's IPv6 cases of their own (tcp_stream v6, in the network
 * namespace tcp_v6.sh makes): a link-local pair on one link, the errno of
 * IPv6 names with a tcp transport (net/rds bind.c, af_rds.c, send.c,
 * tcp.c rds_tcp_laddr_check), and the info records of IPv4 and IPv6
 * connections side by side (connection.c, tcp.c rds_tcp_tc_info: the
 * IPv4 names skip IPv6 connections).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>

#include <CUnit/CUnit.h>
#include <rte_errno.h>
#include <rte_rds.h>
#include <rte_rds_info.h>
#include <rte_rds_socket.h>

#include "rds_stream.h"
#include "tcp_test.h"

#define EXPECT_ERRNO(call, e) do { \
	errno = 0; \
	CU_ASSERT_EQUAL((call), -1); \
	CU_ASSERT_EQUAL(errno, (e)); \
	if (errno != (e)) \
		printf("  line %d: errno %d (%s), want %d\n", __LINE__, \
		       errno, strerror(errno), (e)); \
} while (0)

/* Two link-local addresses on TCP_LL_DEV, A's interface named (dev=),
 * B's found: sockets bound with that link's scope stream to each other
 * over TCP, SHA-256 per pair; a bind with another link's scope is
 * EADDRNOTAVAIL, as rds_tcp_laddr_check. */
void
test_v6_linklocal(void)
{
	struct rte_rds_conf conf;
	struct rds_stream_conf sc;
	struct rds_stream *st;
	union rds_test_addr wrong;
	unsigned int ifx = if_nametoindex(TCP_LL_DEV);
	char a[64], b[64];
	int s;

	CU_ASSERT_FATAL(ifx != 0);
	snprintf(a, sizeof(a), "%s%%%s", TCP_LL_A, TCP_LL_DEV);
	snprintf(b, sizeof(b), "%s%%%s", TCP_LL_B, TCP_LL_DEV);
	rds_test_conf(&conf, rds_test_worker_lcore(), RTE_RDS_IDLE_YIELD);
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(&conf, "[" TCP_LL_A
		"]=tcp,dev=" TCP_LL_DEV) == 0);
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(&conf, "[" TCP_LL_B
		"]=tcp") == 0);
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);

	/* Another link: not an address of it. */
	wrong = rds_test_addr(TCP_LL_A, 4000);
	wrong.in6.sin6_scope_id = ifx + 1000;
	s = rte_rds_socket();
	CU_ASSERT_FATAL(s >= 0);
	EXPECT_ERRNO(rte_rds_bind(s, &wrong.sa, sizeof(wrong.in6)),
		     EADDRNOTAVAIL);
	rte_rds_close(s);

	rds_stream_conf_default(&sc, 6000);
	sc.nsock = 4;
	sc.ip[0] = a;
	sc.ip[1] = a;
	sc.ip[2] = b;
	sc.ip[3] = b;
	sc.trans = RDS_TRANS_TCP;
	sc.large_one_in = 500;
	sc.check_bytes = true;
	st = rds_stream_new(&sc);
	CU_ASSERT_FATAL(st != NULL);
	CU_ASSERT(rds_stream_run(st, "link-local"));
	CU_ASSERT(rds_stream_verify(st) == 0);
	rds_stream_free(st);
	tcp_print_stats("link-local");
	CU_ASSERT(tcp_stats().connects >= 1);
	/* Two in three messages are between the two addresses (a socket
	 * to one of its own address goes over loop, as the kernel's). */
	CU_ASSERT(tcp_stats().rx_msgs >= 3000);
	CU_ASSERT(rds_test_lib_fini() == 0);
}

/* rte_rds_init of one tcp address: 0 or the errno. */
static int
init_one(const char *spec)
{
	struct rte_rds_conf conf;
	int ret;

	rte_rds_conf_init(&conf);
	conf.nb_engines = 1;
	conf.engine[0].lcore_id = RTE_RDS_ENGINE_INLINE;
	if (rte_rds_conf_add_addr_str(&conf, spec) != 0)
		return -2;
	ret = rte_rds_init(&conf);
	if (ret == 0) {
		rte_rds_fini();
		ret = 0;
	} else {
		ret = rte_errno;
	}
	rte_rds_conf_free(&conf);
	return ret;
}

/* The errno of IPv6 names, as net/rds gives them, with tcp serving the
 * addresses; and rte_rds_init's for IPv6 tcp addresses it cannot serve. */
void
test_v6_errno(void)
{
	union rds_test_addr a6 = rds_test_addr(ip_a, 4100), d;
	union rds_test_addr v4 = rds_test_addr(RDS_TEST_IP1, 4100);
	socklen_t len;
	int s, s4, one = RDS_TRANS_TCP;

	/* Addresses the transport cannot serve: not on this host (its
	 * listening socket's bind), link-local on no interface, an
	 * interface that does not exist. */
	CU_ASSERT_EQUAL(init_one("[fd00:84::99]=tcp"), EADDRNOTAVAIL);
	CU_ASSERT_EQUAL(init_one("[fe80::99]=tcp"), EADDRNOTAVAIL);
	CU_ASSERT_EQUAL(init_one("[" TCP_LL_A "]=tcp,dev=nosuch0"),
			EADDRNOTAVAIL);

	tcp_lib_up();
	s = rte_rds_socket();
	CU_ASSERT_FATAL(s >= 0);
	/* bind: short, not unicast, not local, link-local without scope. */
	EXPECT_ERRNO(rte_rds_bind(s, &a6.sa, sizeof(a6.in6) - 1), EINVAL);
	d = rds_test_addr("ff02::1", 4100);
	EXPECT_ERRNO(rte_rds_bind(s, &d.sa, sizeof(d.in6)), EINVAL);
	d = rds_test_addr("fd00:84::99", 4100);
	EXPECT_ERRNO(rte_rds_bind(s, &d.sa, sizeof(d.in6)), EADDRNOTAVAIL);
	d = rds_test_addr(TCP_LL_A, 4100);
	EXPECT_ERRNO(rte_rds_bind(s, &d.sa, sizeof(d.in6)), EINVAL);
	/* connect: not unicast EPROTOTYPE. */
	d = rds_test_addr("ff02::1", 4100);
	EXPECT_ERRNO(rte_rds_connect(s, &d.sa, sizeof(d.in6)), EPROTOTYPE);
	/* Pinned to tcp, bound to an address loop serves: ENOPROTOOPT. */
	CU_ASSERT_EQUAL(rte_rds_setsockopt(s, SOL_RDS, SO_RDS_TRANSPORT, &one,
					   sizeof(one)), 0);
	EXPECT_ERRNO(rte_rds_bind(s, &v4.sa, sizeof(v4.in)), ENOPROTOOPT);
	/* Bound to A over tcp: its name is a sockaddr_in6. */
	CU_ASSERT_EQUAL(rte_rds_bind(s, &a6.sa, sizeof(a6.in6)), 0);
	len = sizeof(d);
	CU_ASSERT_EQUAL(rte_rds_getsockname(s, &d.sa, &len), 0);
	CU_ASSERT_EQUAL(len, sizeof(d.in6));
	CU_ASSERT(rds_test_addr_eq(&d, &a6));
	/* IPv6 to IPv4 and to v4-mapped: EOPNOTSUPP; IPv4 to IPv6 too. */
	d = rds_test_addr(RDS_TEST_IP2, 5000);
	EXPECT_ERRNO(rds_test_send_to(s, "x", 1, &d, 0), EOPNOTSUPP);
	d = rds_test_addr("::ffff:" RDS_TEST_IP2, 5000);
	EXPECT_ERRNO(rds_test_send_to(s, "x", 1, &d, 0), EOPNOTSUPP);
	s4 = rds_test_socket(RDS_TEST_IP1, 4100, 0, 0);
	CU_ASSERT_FATAL(s4 >= 0);
	d = rds_test_addr(ip_b, 5000);
	EXPECT_ERRNO(rds_test_send_to(s4, "x", 1, &d, 0), EOPNOTSUPP);
	/* A link-local peer without its scope: EINVAL. */
	d = rds_test_addr(TCP_LL_B, 5000);
	EXPECT_ERRNO(rds_test_send_to(s, "x", 1, &d, 0), EINVAL);
	/* Rebinding: EINVAL. */
	EXPECT_ERRNO(rte_rds_bind(s, &a6.sa, sizeof(a6.in6)), EINVAL);
	rte_rds_close(s4);
	rte_rds_close(s);
	CU_ASSERT(rds_test_lib_fini() == 0);
}

/* Records of name: their number (-1 on an error). */
static int
info_count(int name, void *buf, socklen_t cap)
{
	socklen_t len = cap;
	int each = rte_rds_info(name, buf, &len);

	if (each <= 0)
		return -1;
	return (int)(len / (socklen_t)each);
}

/* An IPv4 and an IPv6 pair of tcp addresses, a message each way on
 * each: RDS_INFO_TCP_SOCKETS and RDS_INFO_CONNECTIONS list the IPv4
 * connections only, their RDS6 counterparts all of them, IPv4
 * v4-mapped. */
void
test_v6_info(void)
{
	static const char *const ips[4] = {
		"fd00:84::10", "fd00:84::20", "127.0.0.2", "127.0.0.3",
	};
	struct rte_rds_conf conf;
	static uint8_t buf[64 * 1024];
	struct rds6_info_tcp_socket *t6;
	struct rds_info_tcp_socket *t4;
	union rds_test_addr from, to;
	struct in6_addr a6 = tcp_in6(ips[0]);
	int s[4], n, i, v6_seen = 0;
	char spec[64];

	rds_test_conf(&conf, rds_test_worker_lcore(), RTE_RDS_IDLE_YIELD);
	for (i = 0; i < 4; i++) {
		snprintf(spec, sizeof(spec), i < 2 ? "[%s]=tcp" : "%s=tcp",
			 ips[i]);
		CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(&conf, spec) == 0);
	}
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
	for (i = 0; i < 4; i++) {
		s[i] = rds_test_socket_trans(ips[i], 6000, 0, 0,
					     RDS_TRANS_TCP);
		CU_ASSERT_FATAL(s[i] >= 0);
	}
	for (i = 0; i < 4; i++) {
		to = rds_test_addr(ips[i ^ 1], 6000);
		CU_ASSERT_EQUAL(rds_test_send_to(s[i], "info", 4, &to, 0), 4);
		CU_ASSERT_EQUAL(rds_test_wait_msg_from(s[i ^ 1], buf,
						       sizeof(buf), &from,
						       20000), 4);
	}
	/* Both directions of both pairs are connections of ours, each
	 * with its own TCP socket up. */
	n = info_count(RDS_INFO_TCP_SOCKETS, buf, sizeof(buf));
	CU_ASSERT_EQUAL(n, 2);
	t4 = (struct rds_info_tcp_socket *)buf;
	for (i = 0; i < n && i < 2; i++) {
		CU_ASSERT(t4[i].local_addr == rds_test_addr(ips[2], 0)
			  .in.sin_addr.s_addr ||
			  t4[i].local_addr == rds_test_addr(ips[3], 0)
			  .in.sin_addr.s_addr);
		CU_ASSERT(t4[i].local_port != 0 && t4[i].peer_port != 0);
	}
	n = info_count(RDS6_INFO_TCP_SOCKETS, buf, sizeof(buf));
	CU_ASSERT_EQUAL(n, 4);
	t6 = (struct rds6_info_tcp_socket *)buf;
	for (i = 0; i < n && i < 4; i++) {
		if (memcmp(&t6[i].local_addr, &a6, sizeof(a6)) == 0)
			v6_seen++;
		CU_ASSERT(t6[i].local_port != 0 && t6[i].peer_port != 0);
	}
	CU_ASSERT_EQUAL(v6_seen, 1);
	CU_ASSERT_EQUAL(info_count(RDS_INFO_CONNECTIONS, buf, sizeof(buf)),
			2);
	CU_ASSERT_EQUAL(info_count(RDS6_INFO_CONNECTIONS, buf, sizeof(buf)),
			4);
	for (i = 0; i < 4; i++)
		rte_rds_close(s[i]);
	CU_ASSERT(rds_test_lib_fini() == 0);
}

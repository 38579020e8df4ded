/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The socket API (suite 'api', binary api_ipv6; api_common.h says how).
 *
 * IPv6 over the loop transport, as net/rds (bind.c, af_rds.c, send.c,
 * recv.c): sockaddr_in6 in bind, connect, sendmsg, recvmsg,
 * getsockname and getpeername; v4-mapped names as IPv4; link-local
 * scopes; mixed families; a transport without IPv6 refusing an IPv6
 * address (ib and tcp serve them). Every case but the conf's runs in
 * process and attached (the engine serving the same IPv6 addresses):
 * an attached client carries IPv6 names to its engine as an in-process
 * socket takes them.
 */

#include <arpa/inet.h>

#include "api_common.h"

#define V6_A "fd00::1"
#define V6_B "fd00::2"
#define V6_LL "fe80::1"

static struct sockaddr_in6
sin6_of(const char *ip, uint16_t port, uint32_t scope)
{
	struct sockaddr_in6 s;

	memset(&s, 0, sizeof(s));
	s.sin6_family = AF_INET6;
	s.sin6_port = htons(port);
	s.sin6_scope_id = scope;
	CU_ASSERT_FATAL(inet_pton(AF_INET6, ip, &s.sin6_addr) == 1);
	return s;
}

/* The standard loop addresses and three IPv6 ones (an attached run's
 * engine serves them too: api_attached.sh). */
static void
v6_up(void)
{
	struct rte_rds_conf conf;

	if (api_attached) {
		lib_up();
		return;
	}
	std_conf(&conf);
	CU_ASSERT_EQUAL_FATAL(rte_rds_conf_add_addr(&conf, V6_A, "loop",
						    NULL), 0);
	CU_ASSERT_EQUAL_FATAL(rte_rds_conf_add_addr_str(&conf, V6_B "=loop"),
			      0);
	CU_ASSERT_EQUAL_FATAL(rte_rds_conf_add_addr(&conf, V6_LL, "loop",
						    NULL), 0);
	lib_up_conf(&conf);
	rte_rds_conf_free(&conf);
}

static int
sock6(const char *ip, uint16_t port, uint32_t scope)
{
	struct sockaddr_in6 a = sin6_of(ip, port, scope);
	int s = rte_rds_socket();

	CU_ASSERT_FATAL(s >= 0);
	CU_ASSERT_EQUAL_FATAL(rte_rds_bind(s, CSA(&a), sizeof(a)), 0);
	set_timeo(s, SO_RCVTIMEO, 2, 0);
	return s;
}

static ssize_t
send6(int s, const void *name, socklen_t namelen, const void *buf,
      size_t len)
{
	struct iovec iov = { .iov_base = (void *)(uintptr_t)buf,
			     .iov_len = len };
	struct msghdr m = { .msg_name = (void *)(uintptr_t)name,
			    .msg_namelen = namelen, .msg_iov = &iov,
			    .msg_iovlen = 1 };

	return rte_rds_sendmsg(s, &m, 0);
}

static void
test_v6_round_trip(void)
{
	struct sockaddr_in6 to, from, me;
	struct sockaddr_in6 want = sin6_of(V6_A, 4000, 0);
	socklen_t len;
	char buf[16];
	int a, b;

	ctx = "v6 round trip";
	v6_up();
	a = sock6(V6_A, 4000, 0);
	b = sock6(V6_B, 5000, 0);
	to = sin6_of(V6_B, 5000, 0);
	EXPECT_RET(send6(a, &to, sizeof(to), "hello6", 6), 6);
	memset(&from, 0xee, sizeof(from));
	len = sizeof(from);
	EXPECT_RET(rte_rds_recvfrom(b, buf, sizeof(buf), 0, SA(&from), &len),
		   6);
	CU_ASSERT_EQUAL(len, sizeof(struct sockaddr_in6));
	CU_ASSERT_EQUAL(memcmp(&from, &want, sizeof(want)), 0);
	CU_ASSERT_EQUAL(memcmp(buf, "hello6", 6), 0);
	/* A buffer too short for a sockaddr_in6: not written, full size
	 * reported. */
	EXPECT_RET(send6(a, &to, sizeof(to), "x", 1), 1);
	memset(&from, 0xee, sizeof(from));
	len = sizeof(struct sockaddr_in);
	EXPECT_RET(rte_rds_recvfrom(b, buf, sizeof(buf), 0, SA(&from), &len),
		   1);
	CU_ASSERT_EQUAL(len, sizeof(struct sockaddr_in6));
	CU_ASSERT_EQUAL(from.sin6_family, 0xeeee);
	/* getsockname: sockaddr_in6. */
	len = sizeof(me);
	EXPECT_OK(rte_rds_getsockname(a, SA(&me), &len));
	CU_ASSERT_EQUAL(len, sizeof(me));
	CU_ASSERT_EQUAL(memcmp(&me, &want, sizeof(want)), 0);
	/* RDS_INFO_SOCKETS skips IPv6 sockets; RDS6_INFO_SOCKETS has
	 * them all. */
	{
		int s4 = sock_at(RDS_TEST_IP1, 4000);

		len = 0;
		EXPECT_ERR(rte_rds_getsockopt(s4, SOL_RDS, RDS_INFO_SOCKETS,
					      NULL, &len), ENOSPC);
		CU_ASSERT_EQUAL(len, sizeof(struct rds_info_socket));
		len = 0;
		EXPECT_ERR(rte_rds_getsockopt(s4, SOL_RDS, RDS6_INFO_SOCKETS,
					      NULL, &len), ENOSPC);
		CU_ASSERT_EQUAL(len, 3 * sizeof(struct rds6_info_socket));
		EXPECT_OK(rte_rds_close(s4));
	}
	/* connect, then send with no name; getpeername. */
	EXPECT_OK(rte_rds_connect(a, CSA(&to), sizeof(to)));
	len = sizeof(me);
	EXPECT_OK(rte_rds_getpeername(a, SA(&me), &len));
	CU_ASSERT_EQUAL(len, sizeof(me));
	CU_ASSERT_EQUAL(memcmp(&me, &to, sizeof(to)), 0);
	EXPECT_RET(send6(a, NULL, 0, "conn", 4), 4);
	len = sizeof(from);
	EXPECT_RET(rte_rds_recvfrom(b, buf, sizeof(buf), 0, SA(&from), &len),
		   4);
	CU_ASSERT_EQUAL(memcmp(&from, &want, sizeof(want)), 0);
	EXPECT_OK(rte_rds_close(a));
	EXPECT_OK(rte_rds_close(b));
	lib_down();
}

static void
test_v6_errno(void)
{
	struct sockaddr_in6 a6 = sin6_of(V6_A, 4100, 0), d;
	struct sockaddr_in v4 = rds_test_sin(RDS_TEST_IP1, 4100);
	int s, s4;

	ctx = "v6 errno";
	v6_up();
	s = rte_rds_socket();
	CU_ASSERT_FATAL(s >= 0);
	/* bind: short, ::, multicast, not local. */
	EXPECT_ERR(rte_rds_bind(s, CSA(&a6), sizeof(a6) - 1), EINVAL);
	EXPECT_ERR(rte_rds_bind(s, CSA(&a6), sizeof(struct sockaddr_in)),
		   EINVAL);
	d = sin6_of("::", 4100, 0);
	EXPECT_ERR(rte_rds_bind(s, CSA(&d), sizeof(d)), EINVAL);
	d = sin6_of("ff02::1", 4100, 0);
	EXPECT_ERR(rte_rds_bind(s, CSA(&d), sizeof(d)), EINVAL);
	d = sin6_of("::ffff:224.0.0.1", 4100, 0);
	EXPECT_ERR(rte_rds_bind(s, CSA(&d), sizeof(d)), EINVAL);
	d = sin6_of("fd00::99", 4100, 0);
	EXPECT_ERR(rte_rds_bind(s, CSA(&d), sizeof(d)), EADDRNOTAVAIL);
	/* connect: short EINVAL, not unicast EPROTOTYPE. */
	EXPECT_ERR(rte_rds_connect(s, CSA(&a6), sizeof(a6) - 1), EINVAL);
	d = sin6_of("::", 4100, 0);
	EXPECT_ERR(rte_rds_connect(s, CSA(&d), sizeof(d)), EPROTOTYPE);
	d = sin6_of("ff02::1", 4100, 0);
	EXPECT_ERR(rte_rds_connect(s, CSA(&d), sizeof(d)), EPROTOTYPE);
	d = sin6_of("::ffff:255.255.255.255", 4100, 0);
	EXPECT_ERR(rte_rds_connect(s, CSA(&d), sizeof(d)), EPROTOTYPE);
	/* sendmsg, unbound: a good name is ENOTCONN; bad ones EINVAL. */
	d = sin6_of(V6_B, 5000, 0);
	EXPECT_ERR(send6(s, &d, sizeof(d), "x", 1), ENOTCONN);
	EXPECT_ERR(send6(s, &d, sizeof(d) - 1, "x", 1), EINVAL);
	d = sin6_of("ff02::1", 5000, 0);
	EXPECT_ERR(send6(s, &d, sizeof(d), "x", 1), EINVAL);
	d.sin6_family = AF_UNIX;
	EXPECT_ERR(send6(s, &d, sizeof(d), "x", 1), EINVAL);
	/* An IPv6 socket to an IPv4 name and back: EOPNOTSUPP. */
	EXPECT_OK(rte_rds_bind(s, CSA(&a6), sizeof(a6)));
	v4 = rds_test_sin(RDS_TEST_IP2, 5000);
	EXPECT_ERR(send6(s, &v4, sizeof(v4), "x", 1), EOPNOTSUPP);
	d = sin6_of("::ffff:" RDS_TEST_IP2, 5000, 0);
	EXPECT_ERR(send6(s, &d, sizeof(d), "x", 1), EOPNOTSUPP);
	/* Rebinding: EINVAL. */
	EXPECT_ERR(rte_rds_bind(s, CSA(&a6), sizeof(a6)), EINVAL);
	s4 = sock_at(RDS_TEST_IP1, 4100);
	d = sin6_of(V6_B, 5000, 0);
	EXPECT_ERR(send6(s4, &d, sizeof(d), "x", 1), EOPNOTSUPP);
	EXPECT_OK(rte_rds_close(s));
	EXPECT_OK(rte_rds_close(s4));
	lib_down();
}

/* A v4-mapped name is IPv4: bind, getsockname, send to and from. */
static void
test_v6_mapped(void)
{
	struct sockaddr_in6 m6 = sin6_of("::ffff:" RDS_TEST_IP1, 4200, 0);
	struct sockaddr_in6 to6 = sin6_of("::ffff:" RDS_TEST_IP2, 5200, 0);
	struct sockaddr_in got, want = rds_test_sin(RDS_TEST_IP1, 4200);
	socklen_t len;
	char buf[8];
	int s, r;

	ctx = "v4-mapped";
	lib_up();
	s = rte_rds_socket();
	CU_ASSERT_FATAL(s >= 0);
	EXPECT_OK(rte_rds_bind(s, CSA(&m6), sizeof(m6)));
	len = sizeof(got);
	EXPECT_OK(rte_rds_getsockname(s, SA(&got), &len));
	CU_ASSERT_EQUAL(len, sizeof(got));
	CU_ASSERT_EQUAL(memcmp(&got, &want, sizeof(want)), 0);
	r = sock_at(RDS_TEST_IP2, 5200);
	EXPECT_RET(send6(s, &to6, sizeof(to6), "map", 3), 3);
	len = sizeof(got);
	EXPECT_RET(rte_rds_recvfrom(r, buf, sizeof(buf), 0, SA(&got), &len),
		   3);
	CU_ASSERT_EQUAL(len, sizeof(got));
	CU_ASSERT_EQUAL(memcmp(&got, &want, sizeof(want)), 0);
	/* connect to a mapped peer: getpeername gives sockaddr_in. */
	EXPECT_OK(rte_rds_connect(s, CSA(&to6), sizeof(to6)));
	len = sizeof(to6);
	EXPECT_OK(rte_rds_getpeername(s, SA(&to6), &len));
	CU_ASSERT_EQUAL(len, sizeof(struct sockaddr_in));
	CU_ASSERT_EQUAL(((struct sockaddr_in *)&to6)->sin_family, AF_INET);
	EXPECT_OK(rte_rds_close(s));
	EXPECT_OK(rte_rds_close(r));
	lib_down();
}

static void
test_v6_linklocal(void)
{
	struct sockaddr_in6 ll = sin6_of(V6_LL, 4300, 0), d, from;
	socklen_t len;
	char buf[8];
	int s, r;

	ctx = "link-local";
	v6_up();
	s = rte_rds_socket();
	CU_ASSERT_FATAL(s >= 0);
	/* No scope: EINVAL at bind, connect, sendmsg. */
	EXPECT_ERR(rte_rds_bind(s, CSA(&ll), sizeof(ll)), EINVAL);
	EXPECT_ERR(rte_rds_connect(s, CSA(&ll), sizeof(ll)), EINVAL);
	ll.sin6_scope_id = 3;
	EXPECT_OK(rte_rds_bind(s, CSA(&ll), sizeof(ll)));
	len = sizeof(d);
	EXPECT_OK(rte_rds_getsockname(s, SA(&d), &len));
	CU_ASSERT_EQUAL(len, sizeof(d));
	CU_ASSERT_EQUAL(d.sin6_scope_id, 3);
	r = sock6(V6_A, 5300, 0);
	/* Another link: EINVAL (sendmsg and connect). */
	d = sin6_of("fe80::2", 5300, 4);
	EXPECT_ERR(send6(s, &d, sizeof(d), "x", 1), EINVAL);
	EXPECT_ERR(rte_rds_connect(s, CSA(&d), sizeof(d)), EINVAL);
	d = sin6_of("fe80::2", 5300, 0);
	EXPECT_ERR(send6(s, &d, sizeof(d), "x", 1), EINVAL);
	/* Link-local to a global address is allowed; the source comes
	 * back with the receiver's scope (0). */
	d = sin6_of(V6_A, 5300, 0);
	EXPECT_RET(send6(s, &d, sizeof(d), "ll", 2), 2);
	len = sizeof(from);
	EXPECT_RET(rte_rds_recvfrom(r, buf, sizeof(buf), 0, SA(&from), &len),
		   2);
	CU_ASSERT_EQUAL(len, sizeof(from));
	CU_ASSERT_EQUAL(from.sin6_family, AF_INET6);
	CU_ASSERT_EQUAL(from.sin6_port, htons(4300));
	CU_ASSERT_EQUAL(from.sin6_scope_id, 0);
	d = sin6_of(V6_LL, 4300, 0);
	CU_ASSERT_EQUAL(memcmp(&from.sin6_addr, &d.sin6_addr, 16), 0);
	/* And back: the receiver bound link-local reports its scope. */
	ll.sin6_scope_id = 3;
	EXPECT_RET(send6(r, &ll, sizeof(ll), "bk", 2), 2);
	len = sizeof(from);
	EXPECT_RET(rte_rds_recvfrom(s, buf, sizeof(buf), 0, SA(&from), &len),
		   2);
	CU_ASSERT_EQUAL(from.sin6_scope_id, 3);
	EXPECT_OK(rte_rds_close(s));
	EXPECT_OK(rte_rds_close(r));
	/* Connected link-local first, bound on another link: EINVAL. */
	s = rte_rds_socket();
	d = sin6_of("fe80::2", 5300, 5);
	EXPECT_OK(rte_rds_connect(s, CSA(&d), sizeof(d)));
	len = sizeof(from);
	EXPECT_OK(rte_rds_getsockname(s, SA(&from), &len));
	CU_ASSERT_EQUAL(len, sizeof(from));
	CU_ASSERT_EQUAL(from.sin6_family, AF_INET6);
	ll.sin6_scope_id = 6;
	EXPECT_ERR(rte_rds_bind(s, CSA(&ll), sizeof(ll)), EINVAL);
	ll.sin6_scope_id = 5;
	EXPECT_OK(rte_rds_bind(s, CSA(&ll), sizeof(ll)));
	EXPECT_OK(rte_rds_close(s));
	lib_down();
}

/* A transport without RDS_TRANS_F_IPV6 refuses an IPv6 address
 * (rte_rds_init() says EAFNOSUPPORT); one with it does not (here it may
 * fail for its own reasons: no RDMA device, not an address of this host,
 * no ethdev); loop, ib, tcp and eth have it. An IPv6 conf address that
 * is not unicast: EINVAL. */
static void
test_v6_conf(void)
{
	static const char *const trans[] = { "eth", "ib", "tcp", "loop" };
	const struct rds_transport *t;
	struct rte_rds_conf conf;
	unsigned int i;
	int ret;

	API_IN_PROCESS_ONLY("rte_rds_init of the case's own conf");
	ctx = "v6 conf";
	for (i = 0; i < RTE_DIM(trans); i++) {
		t = rds_transport_by_name(trans[i]);
		if (t == NULL) {
			printf("\n    no %s transport in this build", trans[i]);
			continue;
		}
		CU_ASSERT(t->flags & RDS_TRANS_F_IPV6);
		std_conf(&conf);
		CU_ASSERT_EQUAL_FATAL(rte_rds_conf_add_addr(&conf, V6_A,
							    trans[i], NULL), 0);
		if (!(t->flags & RDS_TRANS_F_IPV6)) {
			EXPECT_ERR(rte_rds_init(&conf), EAFNOSUPPORT);
		} else {
			ret = rte_rds_init(&conf);
			printf("\n    %s with IPv6: %s", trans[i], ret == 0 ?
			       "served" : strerror(rte_errno));
			CU_ASSERT(ret == 0 || rte_errno != EAFNOSUPPORT);
			if (ret == 0)
				lib_down();
		}
		rte_rds_conf_free(&conf);
	}
	std_conf(&conf);
	CU_ASSERT_EQUAL_FATAL(rte_rds_conf_add_addr(&conf, "ff02::1", "loop",
						    NULL), 0);
	EXPECT_ERR(rte_rds_init(&conf), EINVAL);
	rte_rds_conf_free(&conf);
}

/* An address no one serves: bind EADDRNOTAVAIL, connect succeeds, in
 * process and attached alike (the attached client gives its engine the
 * sockaddr_in6); an IPv4 socket sending to a true IPv6 name is
 * EOPNOTSUPP in both: the same front half. */
static void
test_v6_attached(void)
{
	struct sockaddr_in6 a6 = sin6_of("2001:db8::1", 4400, 0);
	int s;

	ctx = "v6 not served";
	lib_up();
	s = rte_rds_socket();
	CU_ASSERT_FATAL(s >= 0);
	EXPECT_ERR(rte_rds_bind(s, CSA(&a6), sizeof(a6)), EADDRNOTAVAIL);
	EXPECT_OK(rte_rds_connect(s, CSA(&a6), sizeof(a6)));
	EXPECT_OK(rte_rds_close(s));
	s = sock_at(RDS_TEST_IP1, 4400);
	EXPECT_ERR(send6(s, &a6, sizeof(a6), "x", 1), EOPNOTSUPP);
	EXPECT_OK(rte_rds_close(s));
	lib_down();
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "v6_round_trip", test_v6_round_trip },
		{ "v6_errno", test_v6_errno },
		{ "v6_mapped", test_v6_mapped },
		{ "v6_linklocal", test_v6_linklocal },
		{ "v6_conf", test_v6_conf },
		{ "v6_not_served", test_v6_attached },
		{ NULL, NULL },
	};

	return api_main("api_ipv6", cases);
}

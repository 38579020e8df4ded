/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The socket API (suite 'api', binary api_transport; api_common.h says
 * how).
 *
 * SO_RDS_TRANSPORT: pinning, its errno, the test-double transport
 * ut_fake that api_common registers, UEK's number (9); UEK's
 * RDS_CONN_RESET and RDS6_CONN_RESET.
 */

#include "api_common.h"

static void
test_sockopt_transport(void)
{
	struct sockaddr_in sin = rds_test_sin(RDS_TEST_IP1, 4000), got;
	socklen_t len;
	int64_t big = RTE_RDS_TRANS_LOOP;
	short sv = RTE_RDS_TRANS_LOOP;
	int s, s2, r, v;

	ctx = "SO_RDS_TRANSPORT";
	lib_up();
	r = sock_at(RDS_TEST_IP2, 5000);
	s = rte_rds_socket();
	CU_ASSERT_FATAL(s >= 0);

	/* Unbound and not pinned: RDS_TRANS_NONE. */
	CU_ASSERT_EQUAL(get_int(s, SOL_RDS, SO_RDS_TRANSPORT), RDS_TRANS_NONE);
	/* Short getsockopt buffer: EINVAL (kernel rds_getsockopt). */
	len = sizeof(short);
	EXPECT_ERR(rte_rds_getsockopt(s, SOL_RDS, SO_RDS_TRANSPORT, &v, &len),
		   EINVAL);
	len = 0;
	EXPECT_ERR(rte_rds_getsockopt(s, SOL_RDS, SO_RDS_TRANSPORT, &v, &len),
		   EINVAL);
	/* KERNEL (rds_getsockopt: get_user(len, optlen)): EFAULT; was
	 * EINVAL. */
	EXPECT_ERR(rte_rds_getsockopt(s, SOL_RDS, SO_RDS_TRANSPORT, &v, NULL),
		   EFAULT);
	/* A bigger buffer is fine; optlen comes back as sizeof(int). */
	{
		int64_t b64 = -2;

		len = sizeof(b64);
		EXPECT_OK(rte_rds_getsockopt(s, SOL_RDS, SO_RDS_TRANSPORT,
					     &b64, &len));
		CU_ASSERT_EQUAL(len, sizeof(int));
	}

	/* Values out of range. */
	v = 7;
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, SO_RDS_TRANSPORT, &v,
				      sizeof(v)), EINVAL);
	v = -1;
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, SO_RDS_TRANSPORT, &v,
				      sizeof(v)), EINVAL);
	v = RTE_RDS_TRANS_ETH + 1;
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, SO_RDS_TRANSPORT, &v,
				      sizeof(v)), EINVAL);
	v = INT_MAX;
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, SO_RDS_TRANSPORT, &v,
				      sizeof(v)), EINVAL);
	/*
	 * RDS_TRANS_GAP (1, was iWARP). KERNEL (rds_set_transport): 1 is
	 * below RDS_TRANS_COUNT, so it is not EINVAL; rds_trans_get(1)
	 * finds no transport and the call fails with ENOPROTOOPT. The
	 * library returns EINVAL (reported).
	 */
	v = RDS_TRANS_GAP;
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, SO_RDS_TRANSPORT, &v,
				      sizeof(v)), ENOPROTOOPT);
	/* RDS_TRANS_IB with no ib transport registered (only checked
	 * while the ib driver is not built in). */
	if (rds_transport_by_id(RDS_TRANS_IB) == NULL) {
		v = RDS_TRANS_IB;
		EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, SO_RDS_TRANSPORT,
					      &v, sizeof(v)), ENOPROTOOPT);
	} else {
		printf("\n    an ib transport is registered: RDS_TRANS_IB "
		       "ENOPROTOOPT not checked");
	}
	/* optlen must be exactly sizeof(int). */
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, SO_RDS_TRANSPORT, &big,
				      sizeof(big)), EINVAL);
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, SO_RDS_TRANSPORT, &sv,
				      sizeof(sv)), EINVAL);
	/* KERNEL (rds_set_transport: the copy): EFAULT; was EINVAL. */
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, SO_RDS_TRANSPORT, NULL,
				      sizeof(int)), EFAULT);
	/* None of that pinned anything. */
	CU_ASSERT_EQUAL(get_int(s, SOL_RDS, SO_RDS_TRANSPORT), RDS_TRANS_NONE);

	/* Pin loop: reads back; bind to a loop address works; messages
	 * flow. */
	set_int(s, SOL_RDS, SO_RDS_TRANSPORT, RTE_RDS_TRANS_LOOP);
	CU_ASSERT_EQUAL(get_int(s, SOL_RDS, SO_RDS_TRANSPORT),
			RTE_RDS_TRANS_LOOP);
	/*
	 * KERNEL (rds_set_transport: "if (rs->rs_transport) return
	 * -EOPNOTSUPP; previously attached to transport"): once a
	 * transport is pinned, SO_RDS_TRANSPORT fails with EOPNOTSUPP, even
	 * before bind and even with the same value. The library only
	 * refuses after bind and lets a pinned socket be re-pinned
	 * (reported).
	 */
	v = RTE_RDS_TRANS_LOOP;
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, SO_RDS_TRANSPORT, &v,
				      sizeof(v)), EOPNOTSUPP);
	v = RDS_TRANS_TCP;
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, SO_RDS_TRANSPORT, &v,
				      sizeof(v)), EOPNOTSUPP);
	/* Whatever the library did, put loop back for the rest. */
	v = RTE_RDS_TRANS_LOOP;
	rte_rds_setsockopt(s, SOL_RDS, SO_RDS_TRANSPORT, &v, sizeof(v));
	EXPECT_OK(rte_rds_bind(s, CSA(&sin), sizeof(sin)));
	CU_ASSERT_EQUAL(get_int(s, SOL_RDS, SO_RDS_TRANSPORT),
			RTE_RDS_TRANS_LOOP);
	EXPECT_RET(send_to(s, "pinned", 6, RDS_TEST_IP2, 5000, 0), 6);
	expect_msg(r, "pinned", 6, RDS_TEST_IP1, 4000);

	/* After bind: EOPNOTSUPP, whatever the value. */
	v = RTE_RDS_TRANS_LOOP;
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, SO_RDS_TRANSPORT, &v,
				      sizeof(v)), EOPNOTSUPP);
	v = RDS_TRANS_IB;
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, SO_RDS_TRANSPORT, &v,
				      sizeof(v)), EOPNOTSUPP);
	v = 7;
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, SO_RDS_TRANSPORT, &v,
				      sizeof(v)), EOPNOTSUPP);
	/*
	 * KERNEL: the "already attached" test comes before the optlen test,
	 * so a bad optlen after bind is EOPNOTSUPP too. The library checks
	 * optlen first and returns EINVAL (reported).
	 */
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, SO_RDS_TRANSPORT, &sv,
				      sizeof(sv)), EOPNOTSUPP);

	/* Bound without pinning: the address's transport. */
	s2 = sock_at(RDS_TEST_IP3, 4000);
	CU_ASSERT_EQUAL(get_int(s2, SOL_RDS, SO_RDS_TRANSPORT),
			RTE_RDS_TRANS_LOOP);
	v = RTE_RDS_TRANS_LOOP;
	EXPECT_ERR(rte_rds_setsockopt(s2, SOL_RDS, SO_RDS_TRANSPORT, &v,
				      sizeof(v)), EOPNOTSUPP);
	EXPECT_OK(rte_rds_close(s2));

	/* Pinned to a transport that does not serve the address:
	 * ENOPROTOOPT at bind, and the socket stays unbound. */
	ctx = "bind ENOPROTOOPT";
	s2 = rte_rds_socket();
	CU_ASSERT_FATAL(s2 >= 0);
	set_int(s2, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_TCP);
	CU_ASSERT_EQUAL(get_int(s2, SOL_RDS, SO_RDS_TRANSPORT), RDS_TRANS_TCP);
	sin = rds_test_sin(RDS_TEST_IP4, 4000);
	EXPECT_ERR(rte_rds_bind(s2, CSA(&sin), sizeof(sin)), ENOPROTOOPT);
	len = sizeof(got);
	EXPECT_OK(rte_rds_getsockname(s2, SA(&got), &len));
	CU_ASSERT_EQUAL(got.sin_addr.s_addr, htonl(INADDR_ANY));
	CU_ASSERT_EQUAL(got.sin_port, 0);
	EXPECT_OK(rte_rds_close(s2));
	/* A new socket in that slot is not pinned. */
	s2 = rte_rds_socket();
	CU_ASSERT_FATAL(s2 >= 0);
	CU_ASSERT_EQUAL(get_int(s2, SOL_RDS, SO_RDS_TRANSPORT),
			RDS_TRANS_NONE);
	EXPECT_OK(rte_rds_bind(s2, CSA(&sin), sizeof(sin)));
	EXPECT_OK(rte_rds_close(s2));

	EXPECT_OK(rte_rds_close(s));
	EXPECT_OK(rte_rds_close(r));
	lib_down();
}

/*
 * UEK's numbering (and rds-tools' header): SO_RDS_TRANSPORT is 9, and 8
 * is RDS_CONN_RESET with a 12-byte struct rds_reset. Both numbers name
 * the transport here, told apart from a reset by optlen.
 */
static void
test_sockopt_transport_uek(void)
{
	struct {
		uint8_t tos;
		struct in_addr src, dst;
	} reset;
	int s, v;

	ctx = "SO_RDS_TRANSPORT (UEK's 9)";
	lib_up();
	CU_ASSERT_EQUAL(sizeof(reset), 12);
	s = rte_rds_socket();
	CU_ASSERT_FATAL(s >= 0);
	CU_ASSERT_EQUAL(get_int(s, SOL_RDS, RTE_RDS_SO_TRANSPORT_UEK),
			RDS_TRANS_NONE);
	/* 12 bytes under 8 are a reset (sockopt_conn_reset), not a
	 * transport: nothing pinned; under 9 they are EINVAL. */
	memset(&reset, 0, sizeof(reset));
	reset.tos = 1;
	reset.src.s_addr = inet_addr(RDS_TEST_IP1);
	reset.dst.s_addr = inet_addr(RDS_TEST_IP2);
	if (!api_attached)
		EXPECT_OK(rte_rds_setsockopt(s, SOL_RDS, SO_RDS_TRANSPORT,
					     &reset, sizeof(reset)));
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, RTE_RDS_SO_TRANSPORT_UEK,
				      &reset, sizeof(reset)), EINVAL);
	CU_ASSERT_EQUAL(get_int(s, SOL_RDS, SO_RDS_TRANSPORT), RDS_TRANS_NONE);
	v = 7;
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, RTE_RDS_SO_TRANSPORT_UEK, &v,
				      sizeof(v)), EINVAL);
	set_int(s, SOL_RDS, RTE_RDS_SO_TRANSPORT_UEK, RTE_RDS_TRANS_LOOP);
	CU_ASSERT_EQUAL(get_int(s, SOL_RDS, SO_RDS_TRANSPORT),
			RTE_RDS_TRANS_LOOP);
	CU_ASSERT_EQUAL(get_int(s, SOL_RDS, RTE_RDS_SO_TRANSPORT_UEK),
			RTE_RDS_TRANS_LOOP);
	/* Pinned under one number: pinned under the other. */
	v = RTE_RDS_TRANS_LOOP;
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, SO_RDS_TRANSPORT, &v,
				      sizeof(v)), EOPNOTSUPP);
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, RTE_RDS_SO_TRANSPORT_UEK, &v,
				      sizeof(v)), EOPNOTSUPP);
	EXPECT_OK(rte_rds_close(s));
	lib_down();
}

static uint64_t
conn_resets(void)
{
	return rds_test_stats().s_conn_reset;
}

static int
reset4(int s, uint8_t tos, const char *src, const char *dst)
{
	struct rte_rds_reset r;

	memset(&r, 0, sizeof(r));
	r.tos = tos;
	r.src.s_addr = src != NULL ? inet_addr(src) : 0;
	r.dst.s_addr = dst != NULL ? inet_addr(dst) : 0;
	return rte_rds_setsockopt(s, SOL_RDS, RTE_RDS_CONN_RESET, &r,
				  sizeof(r));
}

static void
mapped(struct in6_addr *a, const char *ip)
{
	memset(a, 0, sizeof(*a));
	a->s6_addr[10] = a->s6_addr[11] = 0xff;
	if (ip != NULL)
		inet_pton(AF_INET, ip, &a->s6_addr[12]);
}

/*
 * UEK's RDS_CONN_RESET / RDS6_CONN_RESET (rds_user_reset): the
 * connection from src to dst (or every one from src, dst 0) is dropped
 * (s_conn_reset: over loop, its peer's end too) and comes back; nothing matched is 0; a TOS other than
 * 0 matches nothing; an unbound socket has no transport: no connection
 * of it; lengths as the kernel's (EINVAL), NULL (EFAULT). Attached: only
 * for the socket's bound address (EPERM otherwise).
 */
static void
test_sockopt_conn_reset(void)
{
	struct rte_rds6_reset r6;
	uint64_t n0;
	int s, r, u;

	ctx = "RDS_CONN_RESET";
	lib_up();
	r = sock_at(RDS_TEST_IP2, 5000);
	s = sock_at(RDS_TEST_IP1, 4000);
	EXPECT_RET(send_to(s, "one", 3, RDS_TEST_IP2, 5000, 0), 3);
	expect_msg(r, "one", 3, RDS_TEST_IP1, 4000);

	n0 = conn_resets();
	EXPECT_OK(reset4(s, 0, RDS_TEST_IP1, RDS_TEST_IP2));
	CU_ASSERT(conn_resets() > n0);
	/* It comes back; what is sent after arrives. */
	EXPECT_RET(send_to(s, "two", 3, RDS_TEST_IP2, 5000, 0), 3);
	expect_msg(r, "two", 3, RDS_TEST_IP1, 4000);
	/* Nothing of TOS 1; nothing from an address with no connection. */
	n0 = conn_resets();
	EXPECT_OK(reset4(s, 1, RDS_TEST_IP1, RDS_TEST_IP2));
	if (!api_attached)
		EXPECT_OK(reset4(s, 0, RDS_TEST_IP3, RDS_TEST_IP2));
	CU_ASSERT_EQUAL(conn_resets(), n0);
	/* Destination 0: every connection from the address. */
	EXPECT_OK(reset4(s, 0, RDS_TEST_IP1, NULL));
	CU_ASSERT(conn_resets() > n0);
	EXPECT_RET(send_to(s, "three", 5, RDS_TEST_IP2, 5000, 0), 5);
	expect_msg(r, "three", 5, RDS_TEST_IP1, 4000);

	/* RDS6_CONN_RESET, IPv4 v4-mapped; an IPv6 source is none of
	 * ours. */
	memset(&r6, 0, sizeof(r6));
	mapped(&r6.src, RDS_TEST_IP1);
	mapped(&r6.dst, RDS_TEST_IP2);
	n0 = conn_resets();
	EXPECT_OK(rte_rds_setsockopt(s, SOL_RDS, RTE_RDS6_CONN_RESET, &r6,
				     sizeof(r6)));
	CU_ASSERT(conn_resets() > n0);
	if (!api_attached) {
		inet_pton(AF_INET6, "fd00::1", &r6.src);
		EXPECT_OK(rte_rds_setsockopt(s, SOL_RDS, RTE_RDS6_CONN_RESET,
					     &r6, sizeof(r6)));
		CU_ASSERT(conn_resets() > n0);
	}
	/* Lengths and pointers. */
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, RTE_RDS6_CONN_RESET, &r6,
				      sizeof(struct rte_rds_reset)), EINVAL);
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, RTE_RDS6_CONN_RESET, NULL,
				      sizeof(r6)), EFAULT);
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, RTE_RDS_CONN_RESET, NULL,
				      sizeof(struct rte_rds_reset)), EFAULT);
	/* Neither a reset nor a transport: SO_RDS_TRANSPORT's rule (the
	 * socket is bound: EOPNOTSUPP before the length). */
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, RTE_RDS_CONN_RESET, &r6,
				      11), EOPNOTSUPP);

	/* Unbound: no transport, no connection (the kernel's rs_transport
	 * NULL); attached: not its address. */
	u = rte_rds_socket();
	CU_ASSERT_FATAL(u >= 0);
	n0 = conn_resets();
	if (api_attached) {
		EXPECT_ERR(reset4(u, 0, RDS_TEST_IP1, RDS_TEST_IP2), EPERM);
		EXPECT_ERR(reset4(s, 0, RDS_TEST_IP3, RDS_TEST_IP2), EPERM);
	} else {
		EXPECT_OK(reset4(u, 0, RDS_TEST_IP1, RDS_TEST_IP2));
	}
	CU_ASSERT_EQUAL(conn_resets(), n0);
	EXPECT_OK(rte_rds_close(u));
	EXPECT_OK(rte_rds_close(s));
	EXPECT_OK(rte_rds_close(r));
	lib_down();
}

/* An address served by the test-double transport: its id after bind. */
static void
test_sockopt_transport_other(void)
{
	struct rte_rds_conf conf;
	struct sockaddr_in sin = rds_test_sin(FAKE_IP, 4000);
	int s, v;

	API_IN_PROCESS_ONLY("the stub transport ut_fake is registered in "
			    "this process, not in the engine");

	ctx = "SO_RDS_TRANSPORT non-loop address";
	std_conf(&conf);
	CU_ASSERT_EQUAL_FATAL(rte_rds_conf_add_addr(&conf, FAKE_IP, "ut_fake",
						    NULL), 0);
	lib_up_conf(&conf);
	s = rte_rds_socket();
	CU_ASSERT_FATAL(s >= 0);
	EXPECT_OK(rte_rds_bind(s, CSA(&sin), sizeof(sin)));
	CU_ASSERT_EQUAL(get_int(s, SOL_RDS, SO_RDS_TRANSPORT), API_TRANS_FAKE);
	v = API_TRANS_FAKE;
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, SO_RDS_TRANSPORT, &v,
				      sizeof(v)), EOPNOTSUPP);
	EXPECT_OK(rte_rds_close(s));
	lib_down();
}

/* RDS_RECVERR and RDS_CONG_MONITOR: int flags, as in the kernel. */

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "sockopt_transport", test_sockopt_transport },
		{ "sockopt_transport_other", test_sockopt_transport_other },
		{ "sockopt_transport_uek", test_sockopt_transport_uek },
		{ "sockopt_conn_reset", test_sockopt_conn_reset },
		{ NULL, NULL },
	};

	return api_main("api_transport", cases);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The socket API (suite 'api', binary api_sockopt; api_common.h says how).
 *
 * Socket options: SO_SNDBUF/SO_RCVBUF (doubling, limits), timeouts,
 * unknown and generic options, SO_RDS_TRANSPORT (the stub transport too,
 * and UEK's number),
 * the flag options, and the RDS_INFO_* probe-then-fill contract.
 */

#include "api_common.h"

/* ------------------------------------------------------------------ */
/* Socket options */

static void
test_sockopt_buffers(void)
{
	socklen_t len;
	int s, v;
	short sv = 1;

	ctx = "SO_SNDBUF/SO_RCVBUF";
	lib_up();
	s = rte_rds_socket();
	CU_ASSERT_FATAL(s >= 0);

	/* Defaults, doubled as the kernel reports them. */
	CU_ASSERT_EQUAL(get_int(s, SOL_SOCKET, SO_SNDBUF), 2 * DEF_BUF);
	CU_ASSERT_EQUAL(get_int(s, SOL_SOCKET, SO_RCVBUF), 2 * DEF_BUF);
	/* Doubling. */
	set_int(s, SOL_SOCKET, SO_SNDBUF, 100000);
	CU_ASSERT_EQUAL(get_int(s, SOL_SOCKET, SO_SNDBUF), 200000);
	set_int(s, SOL_SOCKET, SO_RCVBUF, 100000);
	CU_ASSERT_EQUAL(get_int(s, SOL_SOCKET, SO_RCVBUF), 200000);
	/* The two are independent. */
	set_int(s, SOL_SOCKET, SO_SNDBUF, 50000);
	CU_ASSERT_EQUAL(get_int(s, SOL_SOCKET, SO_SNDBUF), 100000);
	CU_ASSERT_EQUAL(get_int(s, SOL_SOCKET, SO_RCVBUF), 200000);
	/*
	 * A tiny value clamps to a minimum. Observed: 1 and 0 (and a
	 * negative value) read back as 4608 for both options, i.e. RDS uses
	 * 2304 bytes. The kernel's SO_SNDBUF floor is SOCK_MIN_SNDBUF
	 * (4608 on x86_64), so SO_SNDBUF matches; the kernel's SO_RCVBUF
	 * floor is SOCK_MIN_RCVBUF (2304), so there the library reports
	 * twice the kernel's value (only the floor itself is asserted).
	 */
	set_int(s, SOL_SOCKET, SO_SNDBUF, 1);
	CU_ASSERT_EQUAL(get_int(s, SOL_SOCKET, SO_SNDBUF), MIN_SNDBUF_REPORTED);
	set_int(s, SOL_SOCKET, SO_SNDBUF, 0);
	CU_ASSERT_EQUAL(get_int(s, SOL_SOCKET, SO_SNDBUF), MIN_SNDBUF_REPORTED);
	set_int(s, SOL_SOCKET, SO_RCVBUF, 1);
	v = get_int(s, SOL_SOCKET, SO_RCVBUF);
	CU_ASSERT(v >= 2304 && v <= MIN_SNDBUF_REPORTED);
	printf("\n    tiny SO_SNDBUF reads back %d, tiny SO_RCVBUF %d",
	       get_int(s, SOL_SOCKET, SO_SNDBUF), v);

	/* Short values and short buffers. */
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_SOCKET, SO_SNDBUF, &sv,
				      sizeof(sv)), EINVAL);
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_SOCKET, SO_RCVBUF, &sv,
				      sizeof(sv)), EINVAL);
	/* KERNEL (sock_setsockopt, sk_getsockopt): a NULL value or length
	 * pointer fails the copy, EFAULT (the library said EINVAL). A NULL
	 * value with a short length is EINVAL (the length comes first). */
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_SOCKET, SO_SNDBUF, NULL,
				      sizeof(int)), EFAULT);
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_SOCKET, SO_SNDBUF, NULL, 2),
		   EINVAL);
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_SOCKET, SO_SNDBUF, &v, 0),
		   EINVAL);
	/* (The kernel's socket core truncates a short getsockopt buffer;
	 * the header documents EINVAL for it.) */
	len = 2;
	EXPECT_ERR(rte_rds_getsockopt(s, SOL_SOCKET, SO_SNDBUF, &v, &len),
		   EINVAL);
	len = sizeof(v);
	EXPECT_ERR(rte_rds_getsockopt(s, SOL_SOCKET, SO_SNDBUF, NULL, &len),
		   EFAULT);
	EXPECT_ERR(rte_rds_getsockopt(s, SOL_SOCKET, SO_SNDBUF, &v, NULL),
		   EFAULT);
	/* The failures changed nothing. */
	CU_ASSERT_EQUAL(get_int(s, SOL_SOCKET, SO_SNDBUF), MIN_SNDBUF_REPORTED);

	/* SO_SNDBUFFORCE / SO_RCVBUFFORCE: the kernel takes them as
	 * SO_SNDBUF / SO_RCVBUF without the sysctl cap (for CAP_NET_ADMIN;
	 * there is neither a cap nor a privilege model here: accepted). They
	 * cannot be read (sk_getsockopt: ENOPROTOOPT). */
	ctx = "SO_SNDBUFFORCE/SO_RCVBUFFORCE";
	set_int(s, SOL_SOCKET, SO_SNDBUFFORCE, 30000);
	CU_ASSERT_EQUAL(get_int(s, SOL_SOCKET, SO_SNDBUF), 60000);
	set_int(s, SOL_SOCKET, SO_RCVBUFFORCE, 40000);
	CU_ASSERT_EQUAL(get_int(s, SOL_SOCKET, SO_RCVBUF), 80000);
	set_int(s, SOL_SOCKET, SO_SNDBUFFORCE, -5);
	CU_ASSERT_EQUAL(get_int(s, SOL_SOCKET, SO_SNDBUF), MIN_SNDBUF_REPORTED);
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &sv,
				      sizeof(sv)), EINVAL);
	len = sizeof(v);
	EXPECT_ERR(rte_rds_getsockopt(s, SOL_SOCKET, SO_SNDBUFFORCE, &v,
				      &len), ENOPROTOOPT);
	EXPECT_ERR(rte_rds_getsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &v,
				      &len), ENOPROTOOPT);

	/* A new socket in a closed one's slot starts from the defaults. */
	EXPECT_OK(rte_rds_close(s));
	s = rte_rds_socket();
	CU_ASSERT_FATAL(s >= 0);
	CU_ASSERT_EQUAL(get_int(s, SOL_SOCKET, SO_SNDBUF), 2 * DEF_BUF);
	CU_ASSERT_EQUAL(get_int(s, SOL_SOCKET, SO_RCVBUF), 2 * DEF_BUF);
	EXPECT_OK(rte_rds_close(s));
	lib_down();
}

static void
test_sockopt_timeouts(void)
{
	static const int opts[] = { SO_SNDTIMEO, SO_RCVTIMEO };
	struct timeval tv;
	socklen_t len;
	unsigned int i;
	int s;

	lib_up();
	s = rte_rds_socket();
	CU_ASSERT_FATAL(s >= 0);
	for (i = 0; i < RTE_DIM(opts); i++) {
		ctx = opts[i] == SO_SNDTIMEO ? "SO_SNDTIMEO" : "SO_RCVTIMEO";
		/* Default: 0, block forever. */
		memset(&tv, 0xff, sizeof(tv));
		len = sizeof(tv);
		EXPECT_OK(rte_rds_getsockopt(s, SOL_SOCKET, opts[i], &tv,
					     &len));
		CU_ASSERT_EQUAL(len, sizeof(tv));
		CU_ASSERT_EQUAL(tv.tv_sec, 0);
		CU_ASSERT_EQUAL(tv.tv_usec, 0);
		/* Round trip. */
		tv.tv_sec = 3;
		tv.tv_usec = 250000;
		EXPECT_OK(rte_rds_setsockopt(s, SOL_SOCKET, opts[i], &tv,
					     sizeof(tv)));
		memset(&tv, 0, sizeof(tv));
		len = sizeof(tv);
		EXPECT_OK(rte_rds_getsockopt(s, SOL_SOCKET, opts[i], &tv,
					     &len));
		CU_ASSERT_EQUAL(len, sizeof(tv));
		CU_ASSERT_EQUAL(tv.tv_sec, 3);
		CU_ASSERT_EQUAL(tv.tv_usec, 250000);
		/* Bad tv_usec: EDOM (sock_set_timeout). */
		tv.tv_sec = 1;
		tv.tv_usec = 1000000;
		EXPECT_ERR(rte_rds_setsockopt(s, SOL_SOCKET, opts[i], &tv,
					      sizeof(tv)), EDOM);
		tv.tv_usec = -1;
		EXPECT_ERR(rte_rds_setsockopt(s, SOL_SOCKET, opts[i], &tv,
					      sizeof(tv)), EDOM);
		/* Short value, short buffer. */
		tv.tv_usec = 0;
		EXPECT_ERR(rte_rds_setsockopt(s, SOL_SOCKET, opts[i], &tv,
					      sizeof(tv) - 1), EINVAL);
		EXPECT_ERR(rte_rds_setsockopt(s, SOL_SOCKET, opts[i], &tv,
					      sizeof(int)), EINVAL);
		/* KERNEL: EFAULT (the copy); was EINVAL. */
		EXPECT_ERR(rte_rds_setsockopt(s, SOL_SOCKET, opts[i], NULL,
					      sizeof(tv)), EFAULT);
		len = sizeof(int);
		EXPECT_ERR(rte_rds_getsockopt(s, SOL_SOCKET, opts[i], &tv,
					      &len), EINVAL);
		/* The failures kept the previous value. */
		len = sizeof(tv);
		EXPECT_OK(rte_rds_getsockopt(s, SOL_SOCKET, opts[i], &tv,
					     &len));
		CU_ASSERT_EQUAL(tv.tv_sec, 3);
		CU_ASSERT_EQUAL(tv.tv_usec, 250000);
		/* Back to 0. */
		tv.tv_sec = 0;
		tv.tv_usec = 0;
		EXPECT_OK(rte_rds_setsockopt(s, SOL_SOCKET, opts[i], &tv,
					     sizeof(tv)));
		len = sizeof(tv);
		EXPECT_OK(rte_rds_getsockopt(s, SOL_SOCKET, opts[i], &tv,
					     &len));
		CU_ASSERT_EQUAL(tv.tv_sec, 0);
		CU_ASSERT_EQUAL(tv.tv_usec, 0);
	}
	EXPECT_OK(rte_rds_close(s));
	lib_down();
}

static void
test_sockopt_unknown(void)
{
	socklen_t len;
	int s, v = 1;

	ctx = "ENOPROTOOPT";
	lib_up();
	s = sock_at(RDS_TEST_IP1, 4000);
	/* Unknown level. */
	EXPECT_ERR(rte_rds_setsockopt(s, 9999, 1, &v, sizeof(v)),
		   ENOPROTOOPT);
	EXPECT_ERR(rte_rds_setsockopt(s, IPPROTO_IP, IP_TOS, &v, sizeof(v)),
		   ENOPROTOOPT);
	EXPECT_ERR(rte_rds_setsockopt(s, IPPROTO_TCP, 1, &v, sizeof(v)),
		   ENOPROTOOPT);
	len = sizeof(v);
	EXPECT_ERR(rte_rds_getsockopt(s, 9999, 1, &v, &len), ENOPROTOOPT);
	len = sizeof(v);
	EXPECT_ERR(rte_rds_getsockopt(s, IPPROTO_IP, IP_TOS, &v, &len),
		   ENOPROTOOPT);
	/* Unknown SOL_RDS names (4 was RDS_BARRIER, gone from the kernel). */
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, 9999, &v, sizeof(v)),
		   ENOPROTOOPT);
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, 4, &v, sizeof(v)),
		   ENOPROTOOPT);
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, 0, &v, sizeof(v)),
		   ENOPROTOOPT);
	len = sizeof(v);
	EXPECT_ERR(rte_rds_getsockopt(s, SOL_RDS, 9999, &v, &len),
		   ENOPROTOOPT);
	/* RDS_CANCEL_SENT_TO is set-only (kernel rds_getsockopt). */
	len = sizeof(v);
	EXPECT_ERR(rte_rds_getsockopt(s, SOL_RDS, RDS_CANCEL_SENT_TO, &v,
				      &len), ENOPROTOOPT);
	/* Unknown SOL_SOCKET names. */
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_SOCKET, 9999, &v, sizeof(v)),
		   ENOPROTOOPT);
	len = sizeof(v);
	EXPECT_ERR(rte_rds_getsockopt(s, SOL_SOCKET, 9999, &v, &len),
		   ENOPROTOOPT);
	/* The unknown level is reported before a bad value. */
	EXPECT_ERR(rte_rds_setsockopt(s, 9999, 1, NULL, 0), ENOPROTOOPT);
	EXPECT_OK(rte_rds_close(s));
	lib_down();
}

/* The socket layer's generic options, which the kernel takes for an RDS
 * socket before RDS sees the call (sock_setsockopt): accepted and kept,
 * as rds-stress needs (it sets SO_REUSEADDR and stops if that fails). */
static void
test_sockopt_generic(void)
{
	static const int flags[] = { SO_REUSEADDR, SO_REUSEPORT, SO_KEEPALIVE,
				     SO_BROADCAST, SO_DONTROUTE, SO_OOBINLINE,
				     SO_DEBUG };
	socklen_t len;
	unsigned int i;
	int s, v;

	ctx = "SOL_SOCKET generic";
	lib_up();
	s = sock_at(RDS_TEST_IP1, 4000);
	for (i = 0; i < RTE_DIM(flags); i++) {
		v = 0;
		len = sizeof(v);
		EXPECT_OK(rte_rds_getsockopt(s, SOL_SOCKET, flags[i], &v,
					     &len));
		CU_ASSERT_EQUAL(v, 0);
		v = 7;
		EXPECT_OK(rte_rds_setsockopt(s, SOL_SOCKET, flags[i], &v,
					     sizeof(v)));
		len = sizeof(v);
		v = -1;
		EXPECT_OK(rte_rds_getsockopt(s, SOL_SOCKET, flags[i], &v,
					     &len));
		CU_ASSERT_EQUAL(v, 1);
		CU_ASSERT_EQUAL(len, sizeof(int));
		/* Short buffer: EINVAL, as sock_setsockopt. */
		EXPECT_ERR(rte_rds_setsockopt(s, SOL_SOCKET, flags[i], &v, 2),
			   EINVAL);
	}
	/* One flag does not set another. */
	v = 0;
	EXPECT_OK(rte_rds_setsockopt(s, SOL_SOCKET, SO_REUSEPORT, &v,
				     sizeof(v)));
	len = sizeof(v);
	EXPECT_OK(rte_rds_getsockopt(s, SOL_SOCKET, SO_REUSEPORT, &v, &len));
	CU_ASSERT_EQUAL(v, 0);
	len = sizeof(v);
	EXPECT_OK(rte_rds_getsockopt(s, SOL_SOCKET, SO_REUSEADDR, &v, &len));
	CU_ASSERT_EQUAL(v, 1);
	v = 6;
	EXPECT_OK(rte_rds_setsockopt(s, SOL_SOCKET, SO_PRIORITY, &v,
				     sizeof(v)));
	len = sizeof(v);
	v = 0;
	EXPECT_OK(rte_rds_getsockopt(s, SOL_SOCKET, SO_PRIORITY, &v, &len));
	CU_ASSERT_EQUAL(v, 6);
	len = sizeof(v);
	EXPECT_OK(rte_rds_getsockopt(s, SOL_SOCKET, SO_TYPE, &v, &len));
	CU_ASSERT_EQUAL(v, SOCK_SEQPACKET);
	len = sizeof(v);
	EXPECT_OK(rte_rds_getsockopt(s, SOL_SOCKET, SO_DOMAIN, &v, &len));
	CU_ASSERT_EQUAL(v, AF_RDS);
	len = sizeof(v);
	v = -1;
	EXPECT_OK(rte_rds_getsockopt(s, SOL_SOCKET, SO_ERROR, &v, &len));
	CU_ASSERT_EQUAL(v, 0);
	EXPECT_OK(rte_rds_close(s));
	lib_down();
}

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
	v = RTE_RDS_TRANS_LOOP + 1;
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

/* An address served by the stub transport: its id after bind. */
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
	CU_ASSERT_EQUAL(get_int(s, SOL_RDS, SO_RDS_TRANSPORT), RDS_TRANS_TCP);
	v = RDS_TRANS_TCP;
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, SO_RDS_TRANSPORT, &v,
				      sizeof(v)), EOPNOTSUPP);
	EXPECT_OK(rte_rds_close(s));
	lib_down();
}

/* RDS_RECVERR and RDS_CONG_MONITOR: int flags, as in the kernel. */
static void
test_sockopt_flags(void)
{
	socklen_t len;
	short sv = 1;
	int s, v;

	ctx = "RDS_RECVERR";
	lib_up();
	s = rte_rds_socket();
	CU_ASSERT_FATAL(s >= 0);
	CU_ASSERT_EQUAL(get_int(s, SOL_RDS, RDS_RECVERR), 0);
	set_int(s, SOL_RDS, RDS_RECVERR, 1);
	CU_ASSERT_EQUAL(get_int(s, SOL_RDS, RDS_RECVERR), 1);
	set_int(s, SOL_RDS, RDS_RECVERR, 42);	/* a bool: !!value */
	CU_ASSERT_EQUAL(get_int(s, SOL_RDS, RDS_RECVERR), 1);
	set_int(s, SOL_RDS, RDS_RECVERR, 0);
	CU_ASSERT_EQUAL(get_int(s, SOL_RDS, RDS_RECVERR), 0);
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, RDS_RECVERR, &sv,
				      sizeof(sv)), EINVAL);
	/* KERNEL (rds_set_bool: the copy): EFAULT; was EINVAL. */
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, RDS_RECVERR, NULL,
				      sizeof(int)), EFAULT);
	len = sizeof(short);
	EXPECT_ERR(rte_rds_getsockopt(s, SOL_RDS, RDS_RECVERR, &v, &len),
		   EINVAL);
	CU_ASSERT_EQUAL(get_int(s, SOL_RDS, RDS_RECVERR), 0);

	ctx = "RDS_CONG_MONITOR";
	if (api_attached) {
		/* Documented for a client (rte_rds_attach.h). */
		EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, RDS_CONG_MONITOR,
					      &v, sizeof(v)), ENOPROTOOPT);
		api_skip_attached("RDS_CONG_MONITOR is ENOPROTOOPT for a "
				  "client: its values are not checked");
	} else {
		set_int(s, SOL_RDS, RDS_CONG_MONITOR, 1);
		set_int(s, SOL_RDS, RDS_CONG_MONITOR, 0);
		EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, RDS_CONG_MONITOR,
					      &sv, sizeof(sv)), EINVAL);
	}
	/* The kernel has no getsockopt for it. */
	len = sizeof(v);
	EXPECT_ERR(rte_rds_getsockopt(s, SOL_RDS, RDS_CONG_MONITOR, &v, &len),
		   ENOPROTOOPT);
	EXPECT_OK(rte_rds_close(s));
	lib_down();
}

/* ------------------------------------------------------------------ */
/* RDS_INFO_* */

static void
test_info(void)
{
	const socklen_t each = sizeof(struct rds_info_counter);
	const socklen_t need = RTE_RDS_STATS_NUM * each;
	struct rds_info_socket is[4];
	struct rds_info_counter *ic;
	socklen_t len;
	uint8_t *buf;
	int s, r, v;

	ctx = "RDS_INFO";
	lib_up();
	r = sock_at(RDS_TEST_IP2, 5000);
	s = sock_at(RDS_TEST_IP1, 4000);
	buf = calloc(1, need + 64);
	CU_ASSERT_FATAL(buf != NULL);

	/* The probe: optlen 0 gives ENOSPC and the size needed. */
	len = 0;
	EXPECT_ERR(rte_rds_getsockopt(s, SOL_RDS, RDS_INFO_COUNTERS, NULL,
				      &len), ENOSPC);
	CU_ASSERT_EQUAL(len, need);
	/* Too small: ENOSPC again, with the size. */
	len = each;
	EXPECT_ERR(rte_rds_getsockopt(s, SOL_RDS, RDS_INFO_COUNTERS, buf,
				      &len), ENOSPC);
	CU_ASSERT_EQUAL(len, need);
	/* Enough: the record size, optlen the bytes used. */
	len = need + 64;
	EXPECT_RET(rte_rds_getsockopt(s, SOL_RDS, RDS_INFO_COUNTERS, buf,
				      &len), each);
	CU_ASSERT_EQUAL(len, need);
	ic = (struct rds_info_counter *)buf;
	/* The kernel's counter names have no "s_" prefix. */
	CU_ASSERT(strcmp((const char *)ic[0].name, "polls") == 0);

	/* Sockets: the two open ones. */
	len = 0;
	EXPECT_ERR(rte_rds_getsockopt(s, SOL_RDS, RDS_INFO_SOCKETS, NULL,
				      &len), ENOSPC);
	CU_ASSERT_EQUAL(len, 2 * sizeof(struct rds_info_socket));
	len = sizeof(is);
	EXPECT_RET(rte_rds_getsockopt(s, SOL_RDS, RDS_INFO_SOCKETS, is, &len),
		   sizeof(struct rds_info_socket));
	CU_ASSERT_EQUAL(len, 2 * sizeof(struct rds_info_socket));

	/* The deprecated slot 10002 and names past the range. */
	len = sizeof(v);
	EXPECT_ERR(rte_rds_getsockopt(s, SOL_RDS, RDS_INFO_FIRST + 2, &v,
				      &len), ENOPROTOOPT);
	len = sizeof(v);
	EXPECT_ERR(rte_rds_getsockopt(s, SOL_RDS, RDS_INFO_LAST + 1, &v,
				      &len), ENOPROTOOPT);
	/* KERNEL (rds_getsockopt reads the length first): EFAULT, as the
	 * header documents and an attached process said; in-process said
	 * EINVAL (rte_rds_info's own errno for a NULL length). An unknown
	 * option too. */
	EXPECT_ERR(rte_rds_getsockopt(s, SOL_RDS, RDS_INFO_COUNTERS, buf,
				      NULL), EFAULT);
	EXPECT_ERR(rte_rds_getsockopt(s, SOL_RDS, 12345, buf, NULL), EFAULT);
	EXPECT_ERR(rte_rds_getsockopt(s, SOL_SOCKET, 12345, buf, NULL),
		   EFAULT);

	ctx = "rte_rds_info";
	EXPECT_ERR(rte_rds_info(RDS_INFO_COUNTERS, buf, NULL), EINVAL);
	len = 0;
	EXPECT_ERR(rte_rds_info(9999, NULL, &len), ENOPROTOOPT);
	len = 0;
	EXPECT_ERR(rte_rds_info(RDS_INFO_FIRST - 1, NULL, &len), ENOPROTOOPT);
	len = 0;
	EXPECT_ERR(rte_rds_info(RDS_INFO_LAST + 1, NULL, &len), ENOPROTOOPT);
	len = 0;
	EXPECT_ERR(rte_rds_info(RDS_INFO_FIRST + 2, NULL, &len), ENOPROTOOPT);
	len = 0;
	EXPECT_ERR(rte_rds_info(RDS_INFO_COUNTERS, NULL, &len), ENOSPC);
	CU_ASSERT_EQUAL(len, need);
	len = need;
	EXPECT_RET(rte_rds_info(RDS_INFO_COUNTERS, buf, &len), each);
	/* A known name with no records here: success, nothing used. */
	len = 0;
	EXPECT_RET(rte_rds_info(RDS_INFO_TCP_SOCKETS, NULL, &len),
		   sizeof(struct rds_info_tcp_socket));
	CU_ASSERT_EQUAL(len, 0);

	free(buf);
	EXPECT_OK(rte_rds_close(s));
	EXPECT_OK(rte_rds_close(r));
	lib_down();
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "sockopt_buffers", test_sockopt_buffers },
		{ "sockopt_timeouts", test_sockopt_timeouts },
		{ "sockopt_unknown", test_sockopt_unknown },
		{ "sockopt_generic", test_sockopt_generic },
		{ "sockopt_transport", test_sockopt_transport },
		{ "sockopt_transport_other", test_sockopt_transport_other },
		{ "sockopt_transport_uek", test_sockopt_transport_uek },
		{ "sockopt_conn_reset", test_sockopt_conn_reset },
		{ "sockopt_flags", test_sockopt_flags },
		{ "info", test_info },
		{ NULL, NULL },
	};

	return api_main("api_sockopt", cases);
}

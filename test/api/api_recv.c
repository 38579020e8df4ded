/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The socket API (suite 'api', binary api_recv; api_common.h says how).
 *
 * Receiving: recvmsg and recvfrom, MSG_PEEK, MSG_TRUNC, MSG_DONTWAIT,
 * SO_RCVTIMEO, the source address.
 */

#include "api_common.h"

/* ------------------------------------------------------------------ */
/* recvmsg */

static void
test_recvmsg(void)
{
	uint8_t payload[100], buf[256];
	struct sockaddr_storage ss;
	struct sockaddr_in from, src = rds_test_sin(RDS_TEST_IP1, 4000);
	struct iovec iov[2];
	union {
		struct cmsghdr h;
		uint8_t b[64];
	} cbuf;
	struct msghdr mh;
	socklen_t flen;
	uint64_t t0, ms;
	int s, r, mflags, i;

	rds_test_fill(payload, sizeof(payload), 99);
	lib_up();
	r = sock_at(RDS_TEST_IP2, 5000);
	s = sock_at(RDS_TEST_IP1, 4000);

	ctx = "recv EAGAIN";
	EXPECT_ERR(rds_test_recv(r, buf, sizeof(buf), NULL, MSG_DONTWAIT,
				 NULL), EAGAIN);
	/* An unbound socket has nothing either. */
	{
		int u = rte_rds_socket();

		CU_ASSERT_FATAL(u >= 0);
		EXPECT_ERR(rds_test_recv(u, buf, sizeof(buf), NULL,
					 MSG_DONTWAIT, NULL), EAGAIN);
		EXPECT_OK(rte_rds_close(u));
	}

	ctx = "recv ETIMEDOUT";
	set_timeo(r, SO_RCVTIMEO, 0, 50000);
	t0 = rds_test_now_ns();
	EXPECT_ERR(rds_test_recv(r, buf, sizeof(buf), NULL, 0, NULL),
		   ETIMEDOUT);
	ms = elapsed_ms(t0);
	CU_ASSERT(ms >= 40);
	CU_ASSERT(ms < 5000);
	printf("\n    blocking recv: ETIMEDOUT after %" PRIu64
	       " ms (SO_RCVTIMEO 50 ms)", ms);
	set_timeo(r, SO_RCVTIMEO, 2, 0);

	ctx = "recv flags";
	EXPECT_ERR(rds_test_recv(r, buf, sizeof(buf), NULL,
				 MSG_ERRQUEUE | MSG_DONTWAIT, NULL),
		   EOPNOTSUPP);
	EXPECT_ERR(rds_test_recv(r, buf, sizeof(buf), NULL, MSG_ERRQUEUE,
				 NULL), EOPNOTSUPP);
	EXPECT_ERR(rds_test_recv(r, buf, sizeof(buf), NULL,
				 MSG_DONTWAIT | MSG_EOR, NULL), EOPNOTSUPP);
	EXPECT_ERR(rte_rds_recvmsg(r, NULL, MSG_DONTWAIT), EINVAL);

	/* MSG_PEEK, twice, then a real receive of the same bytes. */
	ctx = "MSG_PEEK";
	EXPECT_RET(send_to(s, payload, sizeof(payload), RDS_TEST_IP2, 5000, 0),
		   sizeof(payload));
	for (i = 0; i < 2; i++) {
		memset(buf, 0, sizeof(buf));
		memset(&from, 0, sizeof(from));
		mflags = -1;
		EXPECT_RET(rds_test_recv(r, buf, sizeof(buf), &from, MSG_PEEK,
					 &mflags), sizeof(payload));
		CU_ASSERT(memcmp(buf, payload, sizeof(payload)) == 0);
		CU_ASSERT(rds_test_sin_eq(&from, &src));
		CU_ASSERT_EQUAL(mflags, 0);
	}
	/* MSG_OOB returns 0 (as the kernel) and takes nothing. */
	ctx = "MSG_OOB";
	EXPECT_RET(rds_test_recv(r, buf, sizeof(buf), NULL,
				 MSG_OOB | MSG_DONTWAIT, NULL), 0);
	ctx = "MSG_PEEK";
	expect_msg(r, payload, sizeof(payload), RDS_TEST_IP1, 4000);
	expect_nothing(r);

	/* Truncation without MSG_TRUNC: bytes copied, MSG_TRUNC in
	 * msg_flags, the rest of the message is gone. */
	ctx = "truncation";
	EXPECT_RET(send_to(s, payload, sizeof(payload), RDS_TEST_IP2, 5000, 0),
		   sizeof(payload));
	memset(buf, 0, sizeof(buf));
	mflags = 0;
	EXPECT_RET(rds_test_recv(r, buf, 10, NULL, 0, &mflags), 10);
	CU_ASSERT(mflags & MSG_TRUNC);
	CU_ASSERT(memcmp(buf, payload, 10) == 0);
	CU_ASSERT_EQUAL(buf[10], 0);
	expect_nothing(r);

	/* With MSG_TRUNC in flags: the full length. */
	ctx = "MSG_TRUNC";
	EXPECT_RET(send_to(s, payload, sizeof(payload), RDS_TEST_IP2, 5000, 0),
		   sizeof(payload));
	memset(buf, 0, sizeof(buf));
	mflags = 0;
	EXPECT_RET(rds_test_recv(r, buf, 10, NULL, MSG_TRUNC, &mflags),
		   sizeof(payload));
	CU_ASSERT(mflags & MSG_TRUNC);
	CU_ASSERT(memcmp(buf, payload, 10) == 0);
	CU_ASSERT_EQUAL(buf[10], 0);
	expect_nothing(r);

	/* The size probe: zero-length buffer with MSG_PEEK | MSG_TRUNC. */
	ctx = "PEEK|TRUNC probe";
	EXPECT_RET(send_to(s, payload, sizeof(payload), RDS_TEST_IP2, 5000, 0),
		   sizeof(payload));
	mflags = 0;
	EXPECT_RET(rds_test_recv(r, buf, 0, NULL, MSG_PEEK | MSG_TRUNC,
				 &mflags), sizeof(payload));
	CU_ASSERT(mflags & MSG_TRUNC);
	/* MSG_TRUNC with a big enough buffer: no MSG_TRUNC in msg_flags. */
	mflags = -1;
	EXPECT_RET(rds_test_recv(r, buf, sizeof(buf), NULL, MSG_TRUNC,
				 &mflags), sizeof(payload));
	CU_ASSERT_EQUAL(mflags, 0);
	CU_ASSERT(memcmp(buf, payload, sizeof(payload)) == 0);

	/* msg_namelen is set to sizeof(struct sockaddr_in); msg_flags are
	 * cleared; no control data; a scattered receive. */
	ctx = "msghdr out";
	EXPECT_RET(send_to(s, payload, sizeof(payload), RDS_TEST_IP2, 5000, 0),
		   sizeof(payload));
	memset(&ss, 0, sizeof(ss));
	memset(buf, 0, sizeof(buf));
	iov[0].iov_base = buf;
	iov[0].iov_len = 7;
	iov[1].iov_base = buf + 100;
	iov[1].iov_len = 150;
	memset(&mh, 0, sizeof(mh));
	mh.msg_name = &ss;
	mh.msg_namelen = sizeof(ss);
	mh.msg_iov = iov;
	mh.msg_iovlen = 2;
	mh.msg_control = cbuf.b;
	mh.msg_controllen = sizeof(cbuf.b);
	mh.msg_flags = MSG_TRUNC | MSG_CTRUNC | MSG_EOR;
	EXPECT_RET(rte_rds_recvmsg(r, &mh, 0), sizeof(payload));
	CU_ASSERT_EQUAL(mh.msg_namelen, sizeof(struct sockaddr_in));
	CU_ASSERT(rds_test_sin_eq((struct sockaddr_in *)&ss, &src));
	CU_ASSERT_EQUAL(mh.msg_flags, 0);
	CU_ASSERT_EQUAL(mh.msg_controllen, 0);
	CU_ASSERT(memcmp(buf, payload, 7) == 0);
	CU_ASSERT(memcmp(buf + 100, payload + 7, sizeof(payload) - 7) == 0);

	/* No msg_name: the payload still comes. recvfrom sets *fromlen. */
	ctx = "recvfrom";
	EXPECT_RET(send_to(s, payload, 20, RDS_TEST_IP2, 5000, 0), 20);
	EXPECT_RET(send_to(s, payload, 30, RDS_TEST_IP2, 5000, 0), 30);
	EXPECT_RET(rte_rds_recvfrom(r, buf, sizeof(buf), 0, NULL, NULL), 20);
	memset(&ss, 0, sizeof(ss));
	flen = sizeof(ss);
	EXPECT_RET(rte_rds_recvfrom(r, buf, sizeof(buf), 0, SA(&ss), &flen),
		   30);
	CU_ASSERT_EQUAL(flen, sizeof(struct sockaddr_in));
	CU_ASSERT(rds_test_sin_eq((struct sockaddr_in *)&ss, &src));

	/* In order, per sender. */
	ctx = "order";
	for (i = 0; i < 10; i++)
		EXPECT_RET(send_to(s, payload, (size_t)i + 1, RDS_TEST_IP2,
				   5000, MSG_DONTWAIT), i + 1);
	for (i = 0; i < 10; i++)
		expect_msg(r, payload, (size_t)i + 1, RDS_TEST_IP1, 4000);
	expect_nothing(r);

	EXPECT_OK(rte_rds_close(s));
	EXPECT_OK(rte_rds_close(r));
	lib_down();
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "recvmsg", test_recvmsg },
		{ NULL, NULL },
	};

	return api_main("api_recv", cases);
}

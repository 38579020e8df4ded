/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The socket API (suite 'api', binary api_recv; api_common.h says how).
 *
 * Receiving: recvmsg and recvfrom, MSG_PEEK, MSG_TRUNC, MSG_DONTWAIT,
 * SO_RCVTIMEO, the source address; control data out (RDMA_DEST cookies,
 * MSG_CTRUNC, msg_controllen).
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

/* ------------------------------------------------------------------ */
/* Control data out (net/rds/recv.c rds_cmsg_recv, net/core/scm.c
 * put_cmsg; net/socket.c ___sys_recvmsg writes back msg_controllen):
 * a control message that does not fit sets MSG_CTRUNC, and
 * msg_controllen is what was written, 0 when nothing was, whatever the
 * caller had in it and whether msg_control is NULL or not. */

/* recvmsg of the next message on r into a 16-byte buffer; msg_control
 * and msg_controllen as given; the payload checked. */
static void
recv_ctl(int r, void *control, size_t controllen, size_t want_controllen,
	 int want_flags)
{
	struct sockaddr_in from;
	uint8_t buf[16];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr mh;

	memset(&mh, 0, sizeof(mh));
	memset(buf, 0, sizeof(buf));
	mh.msg_name = &from;
	mh.msg_namelen = sizeof(from);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = control;
	mh.msg_controllen = controllen;
	mh.msg_flags = MSG_EOR;
	EXPECT_RET(rte_rds_recvmsg(r, &mh, 0), 3);
	CU_ASSERT(memcmp(buf, "abc", 3) == 0);
	CU_ASSERT_EQUAL(mh.msg_controllen, want_controllen);
	CU_ASSERT_EQUAL(mh.msg_flags, want_flags);
	if (mh.msg_controllen != want_controllen ||
	    mh.msg_flags != want_flags)
		printf("\n    [%s] msg_controllen %zu (was %zu), msg_flags "
		       "%#x; want %zu, %#x", ctx, (size_t)mh.msg_controllen,
		       controllen, (unsigned int)mh.msg_flags,
		       want_controllen, (unsigned int)want_flags);
}

/* "abc" from s to IP2:5000 with RDS_CMSG_RDMA_DEST cookie. */
static void
send_dest(int s, uint64_t cookie)
{
	union {
		struct cmsghdr h;
		uint8_t b[CMSG_SPACE(sizeof(uint64_t))];
	} cb;
	struct sockaddr_in to = rds_test_sin(RDS_TEST_IP2, 5000);
	struct iovec iov = { .iov_base = (void *)(uintptr_t)"abc",
			     .iov_len = 3 };
	struct msghdr mh;

	memset(&cb, 0, sizeof(cb));
	memset(&mh, 0, sizeof(mh));
	mh.msg_name = &to;
	mh.msg_namelen = sizeof(to);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cb.b;
	mh.msg_controllen = sizeof(cb.b);
	cb.h.cmsg_len = CMSG_LEN(sizeof(cookie));
	cb.h.cmsg_level = SOL_RDS;
	cb.h.cmsg_type = RDS_CMSG_RDMA_DEST;
	memcpy(CMSG_DATA(&cb.h), &cookie, sizeof(cookie));
	EXPECT_RET(rte_rds_sendmsg(s, &mh, 0), 3);
}

static void
test_recv_cmsg(void)
{
	static uint8_t region[4096] __attribute__((aligned(4096)));
	union {
		struct cmsghdr h;
		uint8_t b[64];
	} cbuf;
	struct rds_get_mr_args mr;
	uint64_t cookie = 0, got;
	int s, r;

	lib_up();
	r = sock_at(RDS_TEST_IP2, 5000);
	s = sock_at(RDS_TEST_IP1, 4000);
	memset(&mr, 0, sizeof(mr));
	mr.vec.addr = (uint64_t)(uintptr_t)region;
	mr.vec.bytes = sizeof(region);
	mr.cookie_addr = (uint64_t)(uintptr_t)&cookie;
	EXPECT_OK(rte_rds_setsockopt(s, SOL_RDS, RDS_GET_MR, &mr,
				     sizeof(mr)));
	CU_ASSERT(cookie != 0);

	/* No control data: msg_controllen 0, the caller's value gone. */
	ctx = "no cmsg, room";
	EXPECT_RET(send_to(s, "abc", 3, RDS_TEST_IP2, 5000, 0), 3);
	recv_ctl(r, cbuf.b, sizeof(cbuf.b), 0, 0);
	ctx = "no cmsg, msg_control NULL";
	EXPECT_RET(send_to(s, "abc", 3, RDS_TEST_IP2, 5000, 0), 3);
	recv_ctl(r, NULL, 77, 0, 0);

	/* The cookie, where it fits: one RDS_CMSG_RDMA_DEST. */
	ctx = "RDMA_DEST, room";
	send_dest(s, cookie);
	memset(&cbuf, 0xa5, sizeof(cbuf));
	recv_ctl(r, cbuf.b, sizeof(cbuf.b), CMSG_SPACE(sizeof(uint64_t)), 0);
	CU_ASSERT_EQUAL(cbuf.h.cmsg_len, CMSG_LEN(sizeof(uint64_t)));
	CU_ASSERT_EQUAL(cbuf.h.cmsg_level, SOL_RDS);
	CU_ASSERT_EQUAL(cbuf.h.cmsg_type, RDS_CMSG_RDMA_DEST);
	memcpy(&got, CMSG_DATA(&cbuf.h), sizeof(got));
	CU_ASSERT_EQUAL(got, cookie);

	/* MSG_PEEK: the cookie too, and the message stays. */
	ctx = "RDMA_DEST, MSG_PEEK";
	send_dest(s, cookie);
	{
		uint8_t pb[16];
		struct iovec piov = { .iov_base = pb, .iov_len = sizeof(pb) };
		struct msghdr pmh;

		memset(&pmh, 0, sizeof(pmh));
		memset(&cbuf, 0xa5, sizeof(cbuf));
		pmh.msg_iov = &piov;
		pmh.msg_iovlen = 1;
		pmh.msg_control = cbuf.b;
		pmh.msg_controllen = sizeof(cbuf.b);
		EXPECT_RET(rte_rds_recvmsg(r, &pmh, MSG_PEEK), 3);
		CU_ASSERT_EQUAL(pmh.msg_controllen,
				CMSG_SPACE(sizeof(uint64_t)));
		CU_ASSERT_EQUAL(cbuf.h.cmsg_type, RDS_CMSG_RDMA_DEST);
		memcpy(&got, CMSG_DATA(&cbuf.h), sizeof(got));
		CU_ASSERT_EQUAL(got, cookie);
	}
	recv_ctl(r, cbuf.b, sizeof(cbuf.b), CMSG_SPACE(sizeof(uint64_t)), 0);

	/*
	 * Where not even a header fits: MSG_CTRUNC, nothing written, the
	 * message delivered. KERNEL (put_cmsg): with room for a header
	 * but not the cookie (16 to 23 bytes) it writes a truncated
	 * control message, cmsg_len the room, and msg_controllen is the
	 * room; the library writes none and says 0 (MSG_CTRUNC either
	 * way). Not asserted: both back ends agree on the library's rule.
	 */
	ctx = "RDMA_DEST, a header's room less one";
	send_dest(s, cookie);
	memset(&cbuf, 0xa5, sizeof(cbuf));
	recv_ctl(r, cbuf.b, sizeof(struct cmsghdr) - 1, 0, MSG_CTRUNC);
	CU_ASSERT_EQUAL(cbuf.b[0], 0xa5);
	ctx = "RDMA_DEST, CMSG_LEN - 1";
	send_dest(s, cookie);
	recv_ctl(r, cbuf.b, CMSG_LEN(sizeof(uint64_t)) - 1, 0, MSG_CTRUNC);
	ctx = "RDMA_DEST, msg_controllen 0";
	send_dest(s, cookie);
	recv_ctl(r, cbuf.b, 0, 0, MSG_CTRUNC);
	ctx = "RDMA_DEST, msg_control NULL";
	send_dest(s, cookie);
	recv_ctl(r, NULL, 77, 0, MSG_CTRUNC);
	expect_nothing(r);

	EXPECT_OK(rte_rds_close(s));
	EXPECT_OK(rte_rds_close(r));
	lib_down();
}

/* One RDMA WRITE of 64 bytes from s into r's region at cookie, with
 * RDS_RDMA_NOTIFY_ME and token; its message ("abc") received on r. */
static void
rdma_write_notify(int s, int r, uint64_t cookie, uint64_t token)
{
	static uint8_t src[64];
	union {
		struct cmsghdr h;
		uint8_t b[CMSG_SPACE(sizeof(struct rds_rdma_args))];
	} cb;
	struct sockaddr_in to = rds_test_sin(RDS_TEST_IP2, 5000);
	struct iovec iov = { .iov_base = (void *)(uintptr_t)"abc",
			     .iov_len = 3 };
	struct rds_iovec lv = { .addr = (uint64_t)(uintptr_t)src,
				.bytes = sizeof(src) };
	struct rds_rdma_args a;
	struct msghdr mh;

	memset(&a, 0, sizeof(a));
	a.cookie = cookie;
	a.remote_vec.bytes = sizeof(src);
	a.local_vec_addr = (uint64_t)(uintptr_t)&lv;
	a.nr_local = 1;
	a.flags = RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME;
	a.user_token = token;
	memset(&cb, 0, sizeof(cb));
	cb.h.cmsg_len = CMSG_LEN(sizeof(a));
	cb.h.cmsg_level = SOL_RDS;
	cb.h.cmsg_type = RDS_CMSG_RDMA_ARGS;
	memcpy(CMSG_DATA(&cb.h), &a, sizeof(a));
	memset(&mh, 0, sizeof(mh));
	mh.msg_name = &to;
	mh.msg_namelen = sizeof(to);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cb.b;
	mh.msg_controllen = sizeof(cb.b);
	EXPECT_RET(rte_rds_sendmsg(s, &mh, 0), 3);
	expect_msg(r, "abc", 3, RDS_TEST_IP1, 4000);
}

/* The next thing s receives must be a notification (return 0, no
 * address, msg_controllen and msg_flags as wanted). */
static void
recv_notify(int s, void *control, size_t controllen, size_t want_len,
	    int want_flags)
{
	struct sockaddr_in from;
	uint8_t buf[16];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr mh;

	memset(&mh, 0, sizeof(mh));
	mh.msg_name = &from;
	mh.msg_namelen = sizeof(from);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = control;
	mh.msg_controllen = controllen;
	EXPECT_RET(rte_rds_recvmsg(s, &mh, 0), 0);
	CU_ASSERT_EQUAL(mh.msg_namelen, 0);
	CU_ASSERT_EQUAL(mh.msg_controllen, want_len);
	CU_ASSERT_EQUAL(mh.msg_flags, want_flags);
	if (mh.msg_controllen != want_len || mh.msg_flags != want_flags)
		printf("\n    [%s] msg_controllen %zu (was %zu), msg_flags "
		       "%#x; want %zu, %#x", ctx, (size_t)mh.msg_controllen,
		       controllen, (unsigned int)mh.msg_flags, want_len,
		       (unsigned int)want_flags);
}

/* RDS_CMSG_RDMA_STATUS out (rds_notify_queue_get): with room, one
 * control message and msg_controllen its space; with none (msg_control
 * NULL, whatever msg_controllen said), MSG_CTRUNC, msg_controllen 0,
 * and the notification consumed. */
static void
test_recv_notify(void)
{
	static uint8_t region[4096] __attribute__((aligned(4096)));
	union {
		struct cmsghdr h;
		uint8_t b[64];
	} cbuf;
	struct rds_get_mr_args mr;
	struct rds_rdma_notify n;
	uint64_t cookie = 0;
	int s, r;

	lib_up();
	r = sock_at(RDS_TEST_IP2, 5000);
	s = sock_at(RDS_TEST_IP1, 4000);
	memset(&mr, 0, sizeof(mr));
	mr.vec.addr = (uint64_t)(uintptr_t)region;
	mr.vec.bytes = sizeof(region);
	mr.cookie_addr = (uint64_t)(uintptr_t)&cookie;
	mr.flags = RDS_RDMA_READWRITE;
	EXPECT_OK(rte_rds_setsockopt(r, SOL_RDS, RDS_GET_MR, &mr,
				     sizeof(mr)));

	ctx = "RDMA_STATUS, room";
	rdma_write_notify(s, r, cookie, 0x1234);
	memset(&cbuf, 0xa5, sizeof(cbuf));
	recv_notify(s, cbuf.b, sizeof(cbuf.b),
		    CMSG_SPACE(sizeof(struct rds_rdma_notify)), 0);
	CU_ASSERT_EQUAL(cbuf.h.cmsg_len,
			CMSG_LEN(sizeof(struct rds_rdma_notify)));
	CU_ASSERT_EQUAL(cbuf.h.cmsg_level, SOL_RDS);
	CU_ASSERT_EQUAL(cbuf.h.cmsg_type, RDS_CMSG_RDMA_STATUS);
	memcpy(&n, CMSG_DATA(&cbuf.h), sizeof(n));
	CU_ASSERT_EQUAL(n.user_token, 0x1234);
	CU_ASSERT_EQUAL(n.status, RDS_RDMA_SUCCESS);

	ctx = "RDMA_STATUS, msg_control NULL";
	rdma_write_notify(s, r, cookie, 0x5678);
	recv_notify(s, NULL, 77, 0, MSG_CTRUNC);
	expect_nothing(s);

	ctx = "RDMA_STATUS, a header's room less one";
	rdma_write_notify(s, r, cookie, 0x9abc);
	recv_notify(s, cbuf.b, sizeof(struct cmsghdr) - 1, 0, MSG_CTRUNC);
	expect_nothing(s);
	expect_nothing(r);

	EXPECT_OK(rte_rds_close(s));
	EXPECT_OK(rte_rds_close(r));
	lib_down();
}

/* Until r has a message (2 s at most). */
static void
wait_in(int r)
{
	struct rte_rds_pollfd p = { .sock = r, .events = POLLIN };

	CU_ASSERT_EQUAL(rte_rds_poll(&p, 1, 2000), 1);
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The timestamp control message recv_ctl left in cbuf: of type, within
 * [t0, t1] (microseconds: the kernel's timeval). */
static void
check_tstamp(const struct cmsghdr *h, int type, uint64_t t0, uint64_t t1)
{
	int64_t v[2];
	uint64_t ns;

	CU_ASSERT_EQUAL(h->cmsg_level, SOL_SOCKET);
	CU_ASSERT_EQUAL(h->cmsg_type, type);
	CU_ASSERT_EQUAL(h->cmsg_len, CMSG_LEN(sizeof(v)));
	memcpy(v, CMSG_DATA(h), sizeof(v));
	CU_ASSERT(v[1] >= 0 && v[1] < 1000000);
	ns = (uint64_t)v[0] * 1000000000ULL + (uint64_t)v[1] * 1000ULL;
	CU_ASSERT(ns + 1000 >= t0 && ns <= t1);
	if (!(ns + 1000 >= t0 && ns <= t1))
		printf("\n    [%s] stamp %" PRIu64 " not in [%" PRIu64
		       ", %" PRIu64 "]", ctx, ns, t0, t1);
}

/*
 * SO_TIMESTAMP (net/rds/recv.c: the arrival time of a message that came
 * while the socket asked for it, as SOL_SOCKET SO_TIMESTAMP_OLD with a
 * struct timeval or SO_TIMESTAMP_NEW with two 64-bit fields), set at
 * SOL_SOCKET or SOL_RDS; getsockopt says which is on; whole or
 * MSG_CTRUNC like every control message.
 */
static void
test_recv_timestamp(void)
{
	union {
		struct cmsghdr h;
		uint8_t b[64];
	} cbuf;
	uint64_t t0, t1;
	int s, r, v;

	lib_up();
	r = sock_at(RDS_TEST_IP2, 5000);
	s = sock_at(RDS_TEST_IP1, 4000);
	ctx = "SO_TIMESTAMP off";
	CU_ASSERT_EQUAL(get_int(r, SOL_SOCKET, SO_TIMESTAMP_OLD), 0);
	EXPECT_RET(send_to(s, "abc", 3, RDS_TEST_IP2, 5000, 0), 3);
	recv_ctl(r, cbuf.b, sizeof(cbuf.b), 0, 0);

	ctx = "SO_TIMESTAMP_OLD";
	set_int(r, SOL_SOCKET, SO_TIMESTAMP_OLD, 1);
	CU_ASSERT_EQUAL(get_int(r, SOL_SOCKET, SO_TIMESTAMP_OLD), 1);
	CU_ASSERT_EQUAL(get_int(r, SOL_SOCKET, SO_TIMESTAMP_NEW), 0);
	t0 = now_ns();
	EXPECT_RET(send_to(s, "abc", 3, RDS_TEST_IP2, 5000, 0), 3);
	wait_in(r);
	t1 = now_ns();
	recv_ctl(r, cbuf.b, sizeof(cbuf.b), CMSG_SPACE(16), 0);
	check_tstamp(&cbuf.h, SO_TIMESTAMP_OLD, t0, t1);
	/* No room for it: MSG_CTRUNC, nothing written. */
	ctx = "SO_TIMESTAMP_OLD, no room";
	EXPECT_RET(send_to(s, "abc", 3, RDS_TEST_IP2, 5000, 0), 3);
	recv_ctl(r, cbuf.b, CMSG_LEN(8), 0, MSG_CTRUNC);

	ctx = "SO_TIMESTAMP_NEW at SOL_RDS";
	set_int(r, SOL_RDS, SO_TIMESTAMP_NEW, 1);
	CU_ASSERT_EQUAL(get_int(r, SOL_SOCKET, SO_TIMESTAMP_OLD), 0);
	CU_ASSERT_EQUAL(get_int(r, SOL_SOCKET, SO_TIMESTAMP_NEW), 1);
	t0 = now_ns();
	EXPECT_RET(send_to(s, "abc", 3, RDS_TEST_IP2, 5000, 0), 3);
	wait_in(r);
	t1 = now_ns();
	recv_ctl(r, cbuf.b, sizeof(cbuf.b), CMSG_SPACE(16), 0);
	check_tstamp(&cbuf.h, SO_TIMESTAMP_NEW, t0, t1);

	/* Lengths: SOL_SOCKET as sock_setsockopt (EINVAL), SOL_RDS as
	 * net/rds (EFAULT for anything but an int). */
	ctx = "SO_TIMESTAMP lengths";
	v = 1;
	EXPECT_ERR(rte_rds_setsockopt(r, SOL_SOCKET, SO_TIMESTAMP_OLD, &v, 2),
		   EINVAL);
	EXPECT_ERR(rte_rds_setsockopt(r, SOL_RDS, SO_TIMESTAMP_OLD, &v, 2),
		   EFAULT);
	EXPECT_ERR(rte_rds_setsockopt(r, SOL_RDS, SO_TIMESTAMP_OLD, NULL,
				      sizeof(v)), EFAULT);

	/* Off: none; and a message that came while it was off has none
	 * once it is on again (stamped on arrival, as the kernel's). */
	ctx = "SO_TIMESTAMP off again";
	set_int(r, SOL_SOCKET, SO_TIMESTAMP_NEW, 0);
	CU_ASSERT_EQUAL(get_int(r, SOL_SOCKET, SO_TIMESTAMP_NEW), 0);
	EXPECT_RET(send_to(s, "abc", 3, RDS_TEST_IP2, 5000, 0), 3);
	recv_ctl(r, cbuf.b, sizeof(cbuf.b), 0, 0);
	EXPECT_RET(send_to(s, "abc", 3, RDS_TEST_IP2, 5000, 0), 3);
	wait_in(r);
	set_int(r, SOL_SOCKET, SO_TIMESTAMP_OLD, 1);
	recv_ctl(r, cbuf.b, sizeof(cbuf.b), 0, 0);
	EXPECT_OK(rte_rds_close(s));
	EXPECT_OK(rte_rds_close(r));
	lib_down();
}

/* SO_RDS_MSG_RXPATH_LATENCY with n positions pos[]. */
static int
set_trace(int r, uint8_t n, uint8_t p0, uint8_t p1, uint8_t p2)
{
	struct rds_rx_trace_so t = { .rx_traces = n,
				     .rx_trace_pos = { p0, p1, p2 } };

	return rte_rds_setsockopt(r, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY, &t,
				  sizeof(t));
}

/*
 * SO_RDS_MSG_RXPATH_LATENCY (net/rds/af_rds.c rds_recv_track_latency,
 * recv.c rds_cmsg_recv): a struct rds_rx_trace_so exactly, at most
 * RDS_MSG_RX_DGRAM_TRACE_MAX positions each below it, else EFAULT; each
 * message that comes while it is set carries RDS_CMSG_RXPATH_LATENCY,
 * the positions asked for and the ns of each stage. The time a message
 * waits on the socket's queue (RDS_MSG_RX_DGRAM_DELIVERED) covers the
 * wait before recvmsg; getsockopt has no such option (ENOPROTOOPT).
 */
static void
test_recv_rxpath_latency(void)
{
	union {
		struct cmsghdr h;
		uint8_t b[128];
	} cbuf;
	struct rds_cmsg_rx_trace t;
	struct rds_rx_trace_so so;
	uint8_t big[sizeof(so) + 1] = { 0 };
	socklen_t len = sizeof(so);
	int s, r;

	lib_up();
	r = sock_at(RDS_TEST_IP2, 5000);
	s = sock_at(RDS_TEST_IP1, 4000);

	ctx = "RXPATH_LATENCY bad";
	memset(&so, 0, sizeof(so));
	EXPECT_ERR(rte_rds_setsockopt(r, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY,
				      &so, sizeof(so) - 1), EFAULT);
	EXPECT_ERR(rte_rds_setsockopt(r, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY,
				      big, sizeof(big)), EFAULT);
	EXPECT_ERR(rte_rds_setsockopt(r, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY,
				      NULL, sizeof(so)), EFAULT);
	EXPECT_ERR(set_trace(r, RDS_MSG_RX_DGRAM_TRACE_MAX + 1, 0, 1, 2),
		   EFAULT);
	EXPECT_ERR(set_trace(r, 2, 0, RDS_MSG_RX_DGRAM_TRACE_MAX, 0), EFAULT);
	EXPECT_ERR(rte_rds_getsockopt(r, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY,
				      &so, &len), ENOPROTOOPT);
	/* A bad position left the traces off: no control message. */
	EXPECT_RET(send_to(s, "abc", 3, RDS_TEST_IP2, 5000, 0), 3);
	recv_ctl(r, cbuf.b, sizeof(cbuf.b), 0, 0);

	ctx = "RXPATH_LATENCY three positions";
	EXPECT_OK(set_trace(r, 3, RDS_MSG_RX_DGRAM_DELIVERED,
			    RDS_MSG_RX_HDR_TO_DGRAM_START,
			    RDS_MSG_RX_DGRAM_REASSEMBLE));
	EXPECT_RET(send_to(s, "abc", 3, RDS_TEST_IP2, 5000, 0), 3);
	wait_in(r);
	usleep(20000);	/* on the socket's queue for 20 ms at least */
	recv_ctl(r, cbuf.b, sizeof(cbuf.b), CMSG_SPACE(sizeof(t)), 0);
	CU_ASSERT_EQUAL(cbuf.h.cmsg_level, SOL_RDS);
	CU_ASSERT_EQUAL(cbuf.h.cmsg_type, RDS_CMSG_RXPATH_LATENCY);
	CU_ASSERT_EQUAL(cbuf.h.cmsg_len, CMSG_LEN(sizeof(t)));
	memcpy(&t, CMSG_DATA(&cbuf.h), sizeof(t));
	CU_ASSERT_EQUAL(t.rx_traces, 3);
	CU_ASSERT_EQUAL(t.rx_trace_pos[0], RDS_MSG_RX_DGRAM_DELIVERED);
	CU_ASSERT_EQUAL(t.rx_trace_pos[1], RDS_MSG_RX_HDR_TO_DGRAM_START);
	CU_ASSERT_EQUAL(t.rx_trace_pos[2], RDS_MSG_RX_DGRAM_REASSEMBLE);
	/* Queued >= 20 ms (and less than the test's 2 s bound); the
	 * engine's part under a second (its pass, not the wait). */
	CU_ASSERT(t.rx_trace[0] >= 20000000ULL && t.rx_trace[0] < 5000000000ULL);
	CU_ASSERT(t.rx_trace[1] < 1000000000ULL);
	CU_ASSERT_EQUAL(t.rx_trace[2], 0);
	printf("\n    [%s] queued %llu ns, engine %llu ns", ctx,
	       (unsigned long long)t.rx_trace[0],
	       (unsigned long long)t.rx_trace[1]);

	/* With SO_TIMESTAMP: both, the timestamp first (rds_cmsg_recv). */
	ctx = "RXPATH_LATENCY with SO_TIMESTAMP";
	EXPECT_OK(set_trace(r, 1, RDS_MSG_RX_HDR_TO_DGRAM_START, 0, 0));
	set_int(r, SOL_SOCKET, SO_TIMESTAMP_OLD, 1);
	EXPECT_RET(send_to(s, "abc", 3, RDS_TEST_IP2, 5000, 0), 3);
	wait_in(r);
	recv_ctl(r, cbuf.b, sizeof(cbuf.b),
		 CMSG_SPACE(sizeof(struct timeval)) + CMSG_SPACE(sizeof(t)),
		 0);
	CU_ASSERT_EQUAL(cbuf.h.cmsg_type, SO_TIMESTAMP_OLD);
	{
		struct cmsghdr *h2 = (struct cmsghdr *)(cbuf.b +
			CMSG_SPACE(sizeof(struct timeval)));

		CU_ASSERT_EQUAL(h2->cmsg_level, SOL_RDS);
		CU_ASSERT_EQUAL(h2->cmsg_type, RDS_CMSG_RXPATH_LATENCY);
		memcpy(&t, CMSG_DATA(h2), sizeof(t));
		CU_ASSERT_EQUAL(t.rx_traces, 1);
		CU_ASSERT_EQUAL(t.rx_trace_pos[0],
				RDS_MSG_RX_HDR_TO_DGRAM_START);
		CU_ASSERT_EQUAL(t.rx_trace[1], 0);
	}
	/* No room for the trace after the timestamp: MSG_CTRUNC. */
	ctx = "RXPATH_LATENCY, no room";
	EXPECT_RET(send_to(s, "abc", 3, RDS_TEST_IP2, 5000, 0), 3);
	wait_in(r);
	recv_ctl(r, cbuf.b, CMSG_SPACE(sizeof(struct timeval)) + 8,
		 CMSG_SPACE(sizeof(struct timeval)), MSG_CTRUNC);
	set_int(r, SOL_SOCKET, SO_TIMESTAMP_OLD, 0);

	/* Off (0 positions): none. */
	ctx = "RXPATH_LATENCY off";
	EXPECT_OK(set_trace(r, 0, 0, 0, 0));
	EXPECT_RET(send_to(s, "abc", 3, RDS_TEST_IP2, 5000, 0), 3);
	wait_in(r);
	recv_ctl(r, cbuf.b, sizeof(cbuf.b), 0, 0);
	EXPECT_OK(rte_rds_close(s));
	EXPECT_OK(rte_rds_close(r));
	lib_down();
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "recvmsg", test_recvmsg },
		{ "recv_cmsg", test_recv_cmsg },
		{ "recv_notify", test_recv_notify },
		{ "recv_timestamp", test_recv_timestamp },
		{ "recv_rxpath_latency", test_recv_rxpath_latency },
		{ NULL, NULL },
	};

	return api_main("api_recv", cases);
}

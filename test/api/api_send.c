/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The socket API (suite 'api', binary api_send; api_common.h says how).
 *
 * Sending: sendmsg errnos, the 1 MiB and SO_SNDBUF limits and zero-length
 * messages, control messages, the send buffer filling and draining
 * (EAGAIN, SO_SNDTIMEO), RDS_CANCEL_SENT_TO.
 */

#include <sys/ioctl.h>
#include <linux/sockios.h>

#include "api_common.h"

/* ------------------------------------------------------------------ */
/* sendmsg */

static void
test_sendmsg_errors(void)
{
	struct sockaddr_in to = rds_test_sin(RDS_TEST_IP2, 5000), bad;
	struct sockaddr_in6 sin6;
	struct iovec iov = { .iov_base = (void *)(uintptr_t)"hello",
			     .iov_len = 5 };
	struct msghdr mh;
	int s, r, u;

	ctx = "sendmsg";
	lib_up();
	r = sock_at(RDS_TEST_IP2, 5000);
	s = sock_at(RDS_TEST_IP1, 4000);

	/* Unbound socket: ENOTCONN with or without a destination. */
	u = rte_rds_socket();
	CU_ASSERT_FATAL(u >= 0);
	EXPECT_ERR(rds_test_send(u, "x", 1, &to, MSG_DONTWAIT), ENOTCONN);
	EXPECT_ERR(rds_test_send(u, "x", 1, NULL, MSG_DONTWAIT), ENOTCONN);
	EXPECT_ERR(rds_test_send(u, "x", 1, &to, 0), ENOTCONN);

	/* Bound, no destination, not connected. */
	EXPECT_ERR(rds_test_send(s, "x", 1, NULL, MSG_DONTWAIT), ENOTCONN);
	EXPECT_ERR(rds_test_send(s, "x", 1, NULL, 0), ENOTCONN);
	/* msg_name NULL with a length means no name (as the syscall). */
	memset(&mh, 0, sizeof(mh));
	mh.msg_namelen = sizeof(to);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	EXPECT_ERR(rte_rds_sendmsg(s, &mh, MSG_DONTWAIT), ENOTCONN);

	/* Flags other than MSG_DONTWAIT. */
	EXPECT_ERR(rds_test_send(s, "x", 1, &to, MSG_OOB), EOPNOTSUPP);
	EXPECT_ERR(rds_test_send(s, "x", 1, &to, MSG_MORE), EOPNOTSUPP);
	EXPECT_ERR(rds_test_send(s, "x", 1, &to, MSG_EOR), EOPNOTSUPP);
	EXPECT_ERR(rds_test_send(s, "x", 1, &to, MSG_OOB | MSG_DONTWAIT),
		   EOPNOTSUPP);
	/* KERNEL: MSG_ZEROCOPY on a transport other than TCP. */
	EXPECT_ERR(rds_test_send(s, "x", 1, &to, MSG_ZEROCOPY), EOPNOTSUPP);

	/* No message at all. */
	EXPECT_ERR(rte_rds_sendmsg(s, NULL, MSG_DONTWAIT), EINVAL);

	/* Bad or short names. */
	memset(&sin6, 0, sizeof(sin6));
	sin6.sin6_family = AF_INET6;
	sin6.sin6_port = htons(5000);
	sin6.sin6_addr = in6addr_loopback;
	mh.msg_name = &sin6;
	mh.msg_namelen = sizeof(sin6);
	/* An IPv4 socket to an IPv6 name: EOPNOTSUPP (net/rds/send.c). A
	 * short one: EINVAL. */
	EXPECT_ERR(rte_rds_sendmsg(s, &mh, MSG_DONTWAIT), EOPNOTSUPP);
	mh.msg_namelen = sizeof(sin6) - 1;
	EXPECT_ERR(rte_rds_sendmsg(s, &mh, MSG_DONTWAIT), EINVAL);
	mh.msg_namelen = sizeof(sin6);
	bad = to;
	bad.sin_family = AF_UNIX;
	EXPECT_ERR(rds_test_send(s, "x", 1, &bad, MSG_DONTWAIT), EINVAL);
	bad.sin_family = AF_UNSPEC;
	EXPECT_ERR(rds_test_send(s, "x", 1, &bad, MSG_DONTWAIT), EINVAL);
	mh.msg_name = &to;
	mh.msg_namelen = sizeof(to) - 1;
	EXPECT_ERR(rte_rds_sendmsg(s, &mh, MSG_DONTWAIT), EINVAL);
	mh.msg_namelen = 8;
	EXPECT_ERR(rte_rds_sendmsg(s, &mh, MSG_DONTWAIT), EINVAL);
	mh.msg_namelen = 1;
	EXPECT_ERR(rte_rds_sendmsg(s, &mh, MSG_DONTWAIT), EINVAL);
	EXPECT_ERR(rte_rds_sendto(s, "x", 1, MSG_DONTWAIT, CSA(&to), 4),
		   EINVAL);
	bad = rds_test_sin("0.0.0.0", 5000);
	EXPECT_ERR(rds_test_send(s, "x", 1, &bad, MSG_DONTWAIT), EINVAL);
	/*
	 * KERNEL (rds_sendmsg): a broadcast or multicast destination is
	 * EINVAL, like INADDR_ANY. The library only rejects INADDR_ANY and
	 * returns ENETUNREACH for these (reported).
	 */
	bad = rds_test_sin("255.255.255.255", 5000);
	EXPECT_ERR(rds_test_send(s, "x", 1, &bad, MSG_DONTWAIT), EINVAL);
	bad = rds_test_sin("224.0.0.1", 5000);
	EXPECT_ERR(rds_test_send(s, "x", 1, &bad, MSG_DONTWAIT), EINVAL);

	/* A destination no transport reaches from a loop address. */
	bad = rds_test_sin(FOREIGN_IP, 5000);
	EXPECT_ERR(rds_test_send(s, "x", 1, &bad, MSG_DONTWAIT),
		   ENETUNREACH);
	EXPECT_ERR(rds_test_send(s, "x", 1, &bad, 0), ENETUNREACH);

	/* An iovec with no base but a length. */
	{
		struct iovec biov = { .iov_base = NULL, .iov_len = 10 };

		mh.msg_name = &to;
		mh.msg_namelen = sizeof(to);
		mh.msg_iov = &biov;
		mh.msg_iovlen = 1;
		EXPECT_ERR(rte_rds_sendmsg(s, &mh, MSG_DONTWAIT), EFAULT);
	}

	/* None of the failures sent anything. */
	expect_nothing(r);

	EXPECT_OK(rte_rds_close(u));
	EXPECT_OK(rte_rds_close(s));
	EXPECT_OK(rte_rds_close(r));
	lib_down();
}

static void
test_sendmsg_sizes(void)
{
	const size_t max = RTE_RDS_MAX_MSG_SIZE;
	struct sockaddr_in to = rds_test_sin(RDS_TEST_IP2, 5000);
	struct iovec iov[2];
	struct msghdr mh;
	uint8_t *big;
	int s, r;

	ctx = "EMSGSIZE";
	lib_up();
	r = sock_at(RDS_TEST_IP2, 5000);
	s = sock_at(RDS_TEST_IP1, 4000);
	big = malloc(max + 1);
	CU_ASSERT_FATAL(big != NULL);
	rds_test_fill(big, max + 1, 42);

	/* Over 1 MiB, even with a send buffer that would take it. */
	set_int(s, SOL_SOCKET, SO_SNDBUF, 4 << 20);
	CU_ASSERT_EQUAL(get_int(s, SOL_SOCKET, SO_SNDBUF), 8 << 20);
	EXPECT_ERR(rds_test_send(s, big, max + 1, &to, MSG_DONTWAIT),
		   EMSGSIZE);
	EXPECT_ERR(rds_test_send(s, big, max + 1, &to, 0), EMSGSIZE);
	/* Also when only the iovecs together exceed it. */
	iov[0].iov_base = big;
	iov[0].iov_len = max / 2 + 1;
	iov[1].iov_base = big;
	iov[1].iov_len = max / 2;
	memset(&mh, 0, sizeof(mh));
	mh.msg_name = &to;
	mh.msg_namelen = sizeof(to);
	mh.msg_iov = iov;
	mh.msg_iovlen = 2;
	EXPECT_ERR(rte_rds_sendmsg(s, &mh, MSG_DONTWAIT), EMSGSIZE);
	/* Exactly 1 MiB goes, in two pieces, and arrives whole. */
	iov[0].iov_len = max / 2;
	iov[1].iov_base = big + max / 2;
	iov[1].iov_len = max / 2;
	EXPECT_RET(rte_rds_sendmsg(s, &mh, MSG_DONTWAIT), max);
	expect_msg(r, big, max, RDS_TEST_IP1, 4000);

	/* Over SO_SNDBUF (RDS uses the value set, not the doubled one). */
	ctx = "EMSGSIZE sndbuf";
	set_int(s, SOL_SOCKET, SO_SNDBUF, 10000);
	CU_ASSERT_EQUAL(get_int(s, SOL_SOCKET, SO_SNDBUF), 20000);
	EXPECT_ERR(rds_test_send(s, big, 10001, &to, MSG_DONTWAIT), EMSGSIZE);
	EXPECT_ERR(rds_test_send(s, big, 20000, &to, 0), EMSGSIZE);
	EXPECT_RET(rds_test_send(s, big, 10000, &to, 0), 10000);
	expect_msg(r, big, 10000, RDS_TEST_IP1, 4000);
	/* The default buffer: 212992 bytes go, one more does not. */
	set_int(s, SOL_SOCKET, SO_SNDBUF, DEF_BUF);
	EXPECT_ERR(rds_test_send(s, big, DEF_BUF + 1, &to, 0), EMSGSIZE);
	EXPECT_RET(rds_test_send(s, big, DEF_BUF, &to, 0), DEF_BUF);
	expect_msg(r, big, DEF_BUF, RDS_TEST_IP1, 4000);

	/* Zero-length messages are accepted and delivered with the
	 * sender's address (rds-ping relies on them). */
	ctx = "zero length";
	EXPECT_RET(rds_test_send(s, "", 0, &to, 0), 0);
	memset(&mh, 0, sizeof(mh));
	mh.msg_name = &to;
	mh.msg_namelen = sizeof(to);
	EXPECT_RET(rte_rds_sendmsg(s, &mh, 0), 0);	/* no iovec at all */
	expect_msg(r, NULL, 0, RDS_TEST_IP1, 4000);
	expect_msg(r, NULL, 0, RDS_TEST_IP1, 4000);
	expect_nothing(r);

	free(big);
	EXPECT_OK(rte_rds_close(s));
	EXPECT_OK(rte_rds_close(r));
	lib_down();
}

static void
test_sendmsg_cmsgs(void)
{
	/* RDMA control messages whose arguments are all zero. */
	static const int rdma_types[] = {
		RDS_CMSG_RDMA_ARGS, RDS_CMSG_RDMA_MAP,
		RDS_CMSG_ATOMIC_FADD, RDS_CMSG_ATOMIC_CSWP,
		RDS_CMSG_MASKED_ATOMIC_FADD, RDS_CMSG_MASKED_ATOMIC_CSWP,
	};
	static const size_t rdma_sizes[] = {
		sizeof(struct rds_rdma_args), sizeof(struct rds_get_mr_args),
		sizeof(struct rds_atomic_args), sizeof(struct rds_atomic_args),
		sizeof(struct rds_atomic_args), sizeof(struct rds_atomic_args),
	};
	/* nr_local 0 and an empty region: EINVAL (rds_rdma_extra_size,
	 * __rds_rdma_map); no address for the atomic's old value: EFAULT. */
	static const int rdma_errs[] = {
		EINVAL, EINVAL, EFAULT, EFAULT, EFAULT, EFAULT,
	};
	struct sockaddr_in to = rds_test_sin(RDS_TEST_IP2, 5000);
	struct iovec iov = { .iov_base = (void *)(uintptr_t)"x",
			     .iov_len = 1 };
	uint8_t cbuf[CMSG_SPACE(16)];
	struct cmsghdr *cm;
	struct msghdr mh;
	unsigned int i;
	int s, r;

	ctx = "cmsg";
	lib_up();
	r = sock_at(RDS_TEST_IP2, 5000);
	s = sock_at(RDS_TEST_IP1, 4000);

	/* Unknown SOL_RDS control messages, and receive-only ones. */
	EXPECT_ERR(send_cmsg(s, RDS_TEST_IP2, 5000, SOL_RDS, 99, 8), EINVAL);
	EXPECT_ERR(send_cmsg(s, RDS_TEST_IP2, 5000, SOL_RDS, 0, 8), EINVAL);
	EXPECT_ERR(send_cmsg(s, RDS_TEST_IP2, 5000, SOL_RDS,
			     RDS_CMSG_RDMA_STATUS,
			     sizeof(struct rds_rdma_notify)), EINVAL);
	EXPECT_ERR(send_cmsg(s, RDS_TEST_IP2, 5000, SOL_RDS,
			     RDS_CMSG_CONG_UPDATE, 8), EINVAL);
	EXPECT_ERR(send_cmsg(s, RDS_TEST_IP2, 5000, SOL_RDS,
			     RDS_CMSG_RXPATH_LATENCY, 8), EINVAL);
	/* KERNEL: a zerocopy cookie without MSG_ZEROCOPY. */
	EXPECT_ERR(send_cmsg(s, RDS_TEST_IP2, 5000, SOL_RDS,
			     RDS_CMSG_ZCOPY_COOKIE, sizeof(uint32_t)), EINVAL);

	/* A malformed header (cmsg_len under sizeof(struct cmsghdr)):
	 * the kernel's CMSG_OK fails. */
	memset(cbuf, 0, sizeof(cbuf));
	memset(&mh, 0, sizeof(mh));
	mh.msg_name = &to;
	mh.msg_namelen = sizeof(to);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf;
	mh.msg_controllen = sizeof(cbuf);
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_RDS;
	cm->cmsg_type = RDS_CMSG_RDMA_DEST;
	cm->cmsg_len = 4;
	EXPECT_ERR(rte_rds_sendmsg(s, &mh, MSG_DONTWAIT), EINVAL);

	for (i = 0; i < RTE_DIM(rdma_types); i++)
		EXPECT_ERR(send_cmsg(s, RDS_TEST_IP2, 5000, SOL_RDS,
				     rdma_types[i], rdma_sizes[i]),
			   rdma_errs[i]);

	expect_nothing(r);

	/*
	 * KERNEL (rds_rm_size, rds_cmsg_send): a control message of
	 * another level is skipped ("if (cmsg->cmsg_level != SOL_RDS)
	 * continue;"), so the message is sent. The library returns EINVAL
	 * (reported).
	 */
	ctx = "cmsg other level";
	EXPECT_RET(send_cmsg(s, RDS_TEST_IP2, 5000, SOL_SOCKET, SCM_RIGHTS,
			     sizeof(int)), 1);
	EXPECT_RET(send_cmsg(s, RDS_TEST_IP2, 5000, IPPROTO_IP, 99, 8), 1);

	/*
	 * Precedence. KERNEL (rds_sendmsg): flags, then the name, then
	 * "not bound / no destination" (ENOTCONN), then the sizes
	 * (EMSGSIZE), and only then the control messages (rds_rm_size,
	 * rds_cmsg_send). The library parses control messages first, so
	 * an unbound socket with a bad control message gets EINVAL or
	 * EOPNOTSUPP instead of ENOTCONN (reported, low priority).
	 */
	ctx = "cmsg precedence";
	{
		int u = rte_rds_socket();

		CU_ASSERT_FATAL(u >= 0);
		EXPECT_ERR(send_cmsg(u, RDS_TEST_IP2, 5000, SOL_RDS, 99, 8),
			   ENOTCONN);
		EXPECT_ERR(send_cmsg(u, RDS_TEST_IP2, 5000, SOL_RDS,
				     RDS_CMSG_RDMA_ARGS,
				     sizeof(struct rds_rdma_args)), ENOTCONN);
		EXPECT_OK(rte_rds_close(u));
	}

	EXPECT_OK(rte_rds_close(s));
	EXPECT_OK(rte_rds_close(r));
	lib_down();
}

/* s (IP1:4000) to rc (IP3:5000, congested) and rc2 (IP3:5001). */
static void
check_congested(int s, int rc, int rc2, uint8_t *buf)
{
	uint64_t t0, ms;

	set_int(rc, SOL_SOCKET, SO_RCVBUF, 1);
	set_int(s, SOL_SOCKET, SO_SNDBUF, DEF_BUF);
	congest(s, buf);
	EXPECT_ERR(send_to(s, buf, 10, RDS_TEST_IP3, 5000, MSG_DONTWAIT),
		   ENOBUFS);
	EXPECT_ERR(send_to(s, buf, 0, RDS_TEST_IP3, 5000, MSG_DONTWAIT),
		   ENOBUFS);
	EXPECT_RET(send_to(s, buf, 10, RDS_TEST_IP3, 5001, MSG_DONTWAIT), 10);
	ctx = "ETIMEDOUT send";
	set_timeo(s, SO_SNDTIMEO, 0, 50000);
	t0 = rds_test_now_ns();
	EXPECT_ERR(send_to(s, buf, 10, RDS_TEST_IP3, 5000, 0), ETIMEDOUT);
	ms = elapsed_ms(t0);
	CU_ASSERT(ms >= 40);
	CU_ASSERT(ms < 5000);
	printf("\n    blocking send to a congested port: ETIMEDOUT after "
	       "%" PRIu64 " ms (SO_SNDTIMEO 50 ms)", ms);
	/* Draining below half of the buffer lifts the congestion (kernel
	 * hysteresis: congested above rcvbuf, clear under rcvbuf / 2). */
	ctx = "ENOBUFS drain";
	expect_msg(rc, buf, 1000, RDS_TEST_IP1, 4000);
	EXPECT_ERR(send_to(s, buf, 10, RDS_TEST_IP3, 5000, MSG_DONTWAIT),
		   ENOBUFS);
	expect_msg(rc, buf, 1000, RDS_TEST_IP1, 4000);
	EXPECT_RET(send_to(s, buf, 10, RDS_TEST_IP3, 5000, MSG_DONTWAIT), 10);
	expect_msg(rc, buf, 1000, RDS_TEST_IP1, 4000);
	expect_msg(rc, buf, 10, RDS_TEST_IP1, 4000);
	expect_msg(rc2, buf, 10, RDS_TEST_IP1, 4000);
}

static void
test_sendmsg_flow(void)
{
	uint8_t buf[4096];
	struct sockaddr_in to2 = rds_test_sin(RDS_TEST_IP2, 5000);
	struct rte_rds_stats st;
	uint64_t delivered0;
	int s, r, rc, rc2;

	rds_test_fill(buf, sizeof(buf), 7);
	lib_up();
	r = sock_at(RDS_TEST_IP2, 5000);
	s = sock_at(RDS_TEST_IP1, 4000);

	/*
	 * Send buffer full: with the engine not driven nothing is
	 * acknowledged. The last message may overshoot the limit (kernel
	 * rds_send_queue_rm), the next one gets EAGAIN.
	 */
	ctx = "EAGAIN";
	set_int(s, SOL_SOCKET, SO_SNDBUF, 4096);
	CU_ASSERT_EQUAL(get_int(s, SOL_SOCKET, SO_SNDBUF), 8192);
	EXPECT_RET(rds_test_send(s, buf, 3000, &to2, MSG_DONTWAIT), 3000);
	EXPECT_RET(rds_test_send(s, buf, 3000, &to2, MSG_DONTWAIT), 3000);
	EXPECT_ERR(rds_test_send(s, buf, 1, &to2, MSG_DONTWAIT), EAGAIN);
	EXPECT_ERR(rds_test_send(s, buf, 1, &to2, MSG_DONTWAIT), EAGAIN);
	/* The kernel queues a zero-length message only while there is room
	 * too (rs_snd_bytes < sndbuf). */
	EXPECT_ERR(rds_test_send(s, buf, 0, &to2, MSG_DONTWAIT), EAGAIN);
	/* A blocking send drives the inline engine until the ACKs free the
	 * buffer: it neither deadlocks nor times out (SO_SNDTIMEO 2 s). */
	set_timeo(s, SO_SNDTIMEO, 2, 0);
	EXPECT_RET(rds_test_send(s, buf, 100, &to2, 0), 100);
	expect_msg(r, buf, 3000, RDS_TEST_IP1, 4000);
	expect_msg(r, buf, 3000, RDS_TEST_IP1, 4000);
	expect_msg(r, buf, 100, RDS_TEST_IP1, 4000);

	/*
	 * Destination congested: a receiver with the smallest SO_RCVBUF
	 * that does not read. Non-blocking: ENOBUFS; blocking with
	 * SO_SNDTIMEO: ETIMEDOUT after the timeout (the kernel waits for
	 * the map without a timeout; the library's header documents
	 * ETIMEDOUT for SO_SNDTIMEO). Other ports of the same address are
	 * not congested.
	 */
	ctx = "ENOBUFS";
	rc = sock_at(RDS_TEST_IP3, 5000);
	rc2 = sock_at(RDS_TEST_IP3, 5001);
	if (!api_skip_attached("a send to a congested destination waits in "
			       "the engine for a client: no ENOBUFS, no "
			       "ETIMEDOUT (rte_rds_attach.h)"))
		check_congested(s, rc, rc2, buf);

	/* A message to a port nobody bound disappears silently. */
	ctx = "unbound port";
	st = rds_test_stats();
	delivered0 = st.s_recv_drop_no_sock;
	EXPECT_RET(send_to(s, buf, 10, RDS_TEST_IP4, 7777, 0), 10);
	rds_test_kick_n(64);
	st = rds_test_stats();
	CU_ASSERT_EQUAL(st.s_recv_drop_no_sock, delivered0 + 1);

	EXPECT_OK(rte_rds_close(s));
	EXPECT_OK(rte_rds_close(r));
	EXPECT_OK(rte_rds_close(rc));
	EXPECT_OK(rte_rds_close(rc2));
	lib_down();
}

static void
test_cancel_sent_to(void)
{
	struct sockaddr_in a2 = rds_test_sin(RDS_TEST_IP2, 5000);
	struct rte_rds_stats st0, st1;
	uint8_t buf[64];
	int s, u, r2, r2b, r3, i;

	ctx = "RDS_CANCEL_SENT_TO";
	rds_test_fill(buf, sizeof(buf), 3);
	lib_up();
	r2 = sock_at(RDS_TEST_IP2, 5000);
	r2b = sock_at(RDS_TEST_IP2, 5001);
	r3 = sock_at(RDS_TEST_IP3, 5000);
	s = sock_at(RDS_TEST_IP1, 4000);

	/* Unbound: ENOTCONN, with or without an address. */
	u = rte_rds_socket();
	CU_ASSERT_FATAL(u >= 0);
	EXPECT_ERR(rte_rds_setsockopt(u, SOL_RDS, RDS_CANCEL_SENT_TO, &a2,
				      sizeof(a2)), ENOTCONN);
	EXPECT_ERR(rte_rds_setsockopt(u, SOL_RDS, RDS_CANCEL_SENT_TO, NULL,
				      0), ENOTCONN);
	EXPECT_OK(rte_rds_close(u));
	/* Short address. */
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, RDS_CANCEL_SENT_TO, &a2,
				      sizeof(a2) - 1), EINVAL);
	EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, RDS_CANCEL_SENT_TO, &a2, 4),
		   EINVAL);
	/* (Mainline does not look at sin_family here; UEK does. Not
	 * asserted. Mainline also refuses optlen 0 with EINVAL; the header
	 * documents "none cancels every destination", as rds(7) says.) */
	/* Nothing queued: both forms succeed. */
	EXPECT_OK(rte_rds_setsockopt(s, SOL_RDS, RDS_CANCEL_SENT_TO, &a2,
				     sizeof(a2)));
	EXPECT_OK(rte_rds_setsockopt(s, SOL_RDS, RDS_CANCEL_SENT_TO, NULL, 0));

	if (api_skip_attached("the engine runs on its own for a client: "
			      "no message waits for a cancel to find it")) {
		EXPECT_OK(rte_rds_close(s));
		EXPECT_OK(rte_rds_close(r2));
		EXPECT_OK(rte_rds_close(r2b));
		EXPECT_OK(rte_rds_close(r3));
		lib_down();
		return;
	}
	/* Queue messages with the engine idle, cancel those to IP2:5000:
	 * only they go (address and port must both match). */
	ctx = "cancel one destination";
	st0 = rds_test_stats();
	for (i = 0; i < 3; i++) {
		EXPECT_RET(send_to(s, buf, 10, RDS_TEST_IP2, 5000,
				   MSG_DONTWAIT), 10);
		EXPECT_RET(send_to(s, buf, 11, RDS_TEST_IP2, 5001,
				   MSG_DONTWAIT), 11);
		EXPECT_RET(send_to(s, buf, 12, RDS_TEST_IP3, 5000,
				   MSG_DONTWAIT), 12);
	}
	EXPECT_OK(rte_rds_setsockopt(s, SOL_RDS, RDS_CANCEL_SENT_TO, &a2,
				     sizeof(a2)));
	st1 = rds_test_stats();
	CU_ASSERT_EQUAL(st1.s_send_cancelled - st0.s_send_cancelled, 3);
	for (i = 0; i < 3; i++) {
		expect_msg(r2b, buf, 11, RDS_TEST_IP1, 4000);
		expect_msg(r3, buf, 12, RDS_TEST_IP1, 4000);
	}
	expect_nothing(r2);

	/* Without an address: every destination. */
	ctx = "cancel all";
	/* Delivered is not acknowledged yet: let the delayed ACKs go, or
	 * the cancel also (rightly) drops the unacknowledged ones. */
	settle();
	st0 = rds_test_stats();
	EXPECT_RET(send_to(s, buf, 10, RDS_TEST_IP2, 5000, MSG_DONTWAIT), 10);
	EXPECT_RET(send_to(s, buf, 12, RDS_TEST_IP3, 5000, MSG_DONTWAIT), 12);
	EXPECT_OK(rte_rds_setsockopt(s, SOL_RDS, RDS_CANCEL_SENT_TO, NULL, 0));
	st1 = rds_test_stats();
	CU_ASSERT_EQUAL(st1.s_send_cancelled - st0.s_send_cancelled, 2);
	expect_nothing(r2);
	expect_nothing(r3);
	/* Sending works afterwards. */
	EXPECT_RET(send_to(s, buf, 13, RDS_TEST_IP2, 5000, 0), 13);
	expect_msg(r2, buf, 13, RDS_TEST_IP1, 4000);

	EXPECT_OK(rte_rds_close(s));
	EXPECT_OK(rte_rds_close(r2));
	EXPECT_OK(rte_rds_close(r2b));
	EXPECT_OK(rte_rds_close(r3));
	lib_down();
}

/* rte_rds_ioctl: SIOCOUTQ is the send buffer's bytes (what sendmsg
 * counted, until acknowledged), SIOCINQ the next message's size. */
static void
test_ioctl_queues(void)
{
	uint8_t buf[64];
	int s, r, v;

	ctx = "rte_rds_ioctl";
	rds_test_fill(buf, sizeof(buf), 4);
	lib_up();
	r = sock_at(RDS_TEST_IP2, 5100);
	s = sock_at(RDS_TEST_IP1, 4100);
	EXPECT_ERR(rte_rds_ioctl(s, SIOCOUTQ, NULL), EFAULT);
	EXPECT_ERR(rte_rds_ioctl(s, SIOCATMARK, &v), ENOTTY);
	EXPECT_ERR(rte_rds_ioctl(12345, SIOCOUTQ, &v), EBADF);
	v = -1;
	EXPECT_OK(rte_rds_ioctl(s, SIOCOUTQ, &v));
	CU_ASSERT_EQUAL(v, 0);
	EXPECT_OK(rte_rds_ioctl(r, SIOCINQ, &v));
	CU_ASSERT_EQUAL(v, 0);
	/* The engine idle: all three are in the send buffer. */
	EXPECT_RET(send_to(s, buf, 10, RDS_TEST_IP2, 5100, MSG_DONTWAIT), 10);
	EXPECT_RET(send_to(s, buf, 0, RDS_TEST_IP2, 5100, MSG_DONTWAIT), 0);
	EXPECT_RET(send_to(s, buf, 12, RDS_TEST_IP2, 5100, MSG_DONTWAIT), 12);
	EXPECT_OK(rte_rds_ioctl(s, SIOCOUTQ, &v));
	CU_ASSERT_EQUAL(v, 22);
	/* Delivered and acknowledged: out of it. */
	settle();
	EXPECT_OK(rte_rds_ioctl(s, SIOCOUTQ, &v));
	CU_ASSERT_EQUAL(v, 0);
	EXPECT_OK(rte_rds_ioctl(r, SIOCINQ, &v));
	CU_ASSERT_EQUAL(v, 10);
	expect_msg(r, buf, 10, RDS_TEST_IP1, 4100);
	EXPECT_OK(rte_rds_ioctl(r, SIOCINQ, &v));
	CU_ASSERT_EQUAL(v, 0);
	expect_msg(r, buf, 0, RDS_TEST_IP1, 4100);
	EXPECT_OK(rte_rds_ioctl(r, SIOCINQ, &v));
	CU_ASSERT_EQUAL(v, 12);
	expect_msg(r, buf, 12, RDS_TEST_IP1, 4100);
	EXPECT_OK(rte_rds_ioctl(r, SIOCINQ, &v));
	CU_ASSERT_EQUAL(v, 0);
	EXPECT_OK(rte_rds_close(s));
	EXPECT_ERR(rte_rds_ioctl(s, SIOCOUTQ, &v), EBADF);
	EXPECT_OK(rte_rds_close(r));
	lib_down();
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "sendmsg_errors", test_sendmsg_errors },
		{ "sendmsg_sizes", test_sendmsg_sizes },
		{ "sendmsg_cmsgs", test_sendmsg_cmsgs },
		{ "sendmsg_flow", test_sendmsg_flow },
		{ "cancel_sent_to", test_cancel_sent_to },
		{ "ioctl_queues", test_ioctl_queues },
		{ NULL, NULL },
	};

	return api_main("api_send", cases);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The socket API (suite 'api', binary api_poll; api_common.h says how).
 *
 * Congestion and readiness: ENOBUFS and RDS_CONG_MONITOR
 * (RDS_CMSG_CONG_UPDATE), rte_rds_poll() and the event fds (which do not
 * move in the library's own process: rte_rds_event_fd_move is ENXIO).
 */

#include <rte_rds_attach.h>

#include "api_common.h"

/*
 * RDS_CONG_MONITOR (kernel rds_cong_wait, rds_notify_cong): a
 * non-blocking send to a congested port still fails with ENOBUFS and
 * remembers the port; once the port is uncongested, the socket reads an
 * empty message carrying RDS_CMSG_CONG_UPDATE with bit (port % 64), and
 * the notification is consumed by that read.
 */
static void
test_cong_monitor(void)
{
	const uint64_t bit = 1ULL << (5000 % 64);
	union {
		struct cmsghdr h;
		uint8_t b[CMSG_SPACE(sizeof(uint64_t)) + 16];
	} cbuf;
	struct sockaddr_in from;
	struct rte_rds_pollfd pfd;
	struct iovec iov;
	struct cmsghdr *cm;
	struct msghdr mh;
	uint8_t buf[1024];
	uint64_t mask = 0;
	int s, rc, mflags;

	ctx = "congestion monitor";
	memset(buf, 0x3c, sizeof(buf));
	lib_up();
	rc = sock_at(RDS_TEST_IP3, 5000);
	set_int(rc, SOL_SOCKET, SO_RCVBUF, 1);
	s = sock_at(RDS_TEST_IP1, 4000);
	if (api_attached) {
		/* Documented for a client (rte_rds_attach.h). */
		EXPECT_ERR(rte_rds_setsockopt(s, SOL_RDS, RDS_CONG_MONITOR,
					      &(int){ 1 }, sizeof(int)),
			   ENOPROTOOPT);
		EXPECT_OK(rte_rds_close(s));
		EXPECT_OK(rte_rds_close(rc));
		lib_down();
		api_skip_attached("RDS_CONG_MONITOR is ENOPROTOOPT for a "
				  "client, and a congested send waits in the "
				  "engine (no ENOBUFS)");
		return;
	}
	set_int(s, SOL_RDS, RDS_CONG_MONITOR, 1);

	congest(s, buf);
	EXPECT_ERR(send_to(s, buf, 10, RDS_TEST_IP3, 5000, MSG_DONTWAIT),
		   ENOBUFS);
	/* Nothing to report while the port stays congested. */
	EXPECT_ERR(rds_test_recv(s, buf, sizeof(buf), NULL, MSG_DONTWAIT,
				 NULL), EAGAIN);
	expect_msg(rc, buf, 1000, RDS_TEST_IP1, 4000);
	expect_msg(rc, buf, 1000, RDS_TEST_IP1, 4000);	/* under half */
	expect_msg(rc, buf, 1000, RDS_TEST_IP1, 4000);

	/* POLLIN for the notification. */
	pfd.sock = s;
	pfd.events = POLLIN;
	pfd.revents = 0;
	EXPECT_RET(rte_rds_poll(&pfd, 1, 0), 1);
	CU_ASSERT(pfd.revents & POLLIN);

	memset(&cbuf, 0, sizeof(cbuf));
	memset(&mh, 0, sizeof(mh));
	memset(&from, 0, sizeof(from));
	iov.iov_base = buf;
	iov.iov_len = sizeof(buf);
	mh.msg_name = &from;
	mh.msg_namelen = sizeof(from);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf.b;
	mh.msg_controllen = sizeof(cbuf.b);
	/* (The library's rds_recv_cong_update() sets msg_controllen to 0
	 * before it compares it with the room needed, so it always answers
	 * MSG_CTRUNC with no control message and never consumes the
	 * notification: reported.) */
	EXPECT_RET(rte_rds_recvmsg(s, &mh, MSG_DONTWAIT), 0);
	CU_ASSERT(!(mh.msg_flags & MSG_CTRUNC));
	cm = CMSG_FIRSTHDR(&mh);
	CU_ASSERT_PTR_NOT_NULL(cm);
	if (cm != NULL) {
		CU_ASSERT_EQUAL(cm->cmsg_level, SOL_RDS);
		CU_ASSERT_EQUAL(cm->cmsg_type, RDS_CMSG_CONG_UPDATE);
		CU_ASSERT_EQUAL(cm->cmsg_len, CMSG_LEN(sizeof(uint64_t)));
		memcpy(&mask, CMSG_DATA(cm), sizeof(mask));
		CU_ASSERT(mask & bit);
	}
	/* Read once, gone. */
	EXPECT_ERR(rds_test_recv(s, buf, sizeof(buf), NULL, MSG_DONTWAIT,
				 NULL), EAGAIN);
	EXPECT_RET(send_to(s, buf, 10, RDS_TEST_IP3, 5000, MSG_DONTWAIT), 10);
	expect_msg(rc, buf, 10, RDS_TEST_IP1, 4000);

	/*
	 * Again, read without a control buffer. KERNEL: rds_notify_cong()
	 * calls put_cmsg(), which finds no room, sets MSG_CTRUNC and
	 * returns 0, and the notification is then cleared: the next read
	 * has nothing. (The library keeps it queued, so a reader without a
	 * control buffer gets the same empty message forever: reported.)
	 */
	ctx = "congestion monitor, no control buffer";
	congest(s, buf);
	EXPECT_ERR(send_to(s, buf, 10, RDS_TEST_IP3, 5000, MSG_DONTWAIT),
		   ENOBUFS);
	expect_msg(rc, buf, 1000, RDS_TEST_IP1, 4000);
	expect_msg(rc, buf, 1000, RDS_TEST_IP1, 4000);
	expect_msg(rc, buf, 1000, RDS_TEST_IP1, 4000);
	mflags = 0;
	EXPECT_RET(rds_test_recv(s, buf, sizeof(buf), NULL, MSG_DONTWAIT,
				 &mflags), 0);
	CU_ASSERT(mflags & MSG_CTRUNC);
	EXPECT_ERR(rds_test_recv(s, buf, sizeof(buf), NULL, MSG_DONTWAIT,
				 NULL), EAGAIN);

	EXPECT_OK(rte_rds_close(s));
	EXPECT_OK(rte_rds_close(rc));
	lib_down();
}

/* ------------------------------------------------------------------ */
/* poll and event fds */

static void
test_poll_and_event_fd(void)
{
	struct rte_rds_pollfd pfd[3];
	struct rlimit old, lim;
	uint64_t t0, ms, v;
	int s, r, x, fd, fd2, probe;

	ctx = "rte_rds_poll";
	lib_up();
	r = sock_at(RDS_TEST_IP2, 5000);
	s = sock_at(RDS_TEST_IP1, 4000);

	EXPECT_ERR(rte_rds_poll(NULL, 1, 0), EINVAL);
	EXPECT_RET(rte_rds_poll(NULL, 0, 0), 0);

	/*
	 * Nothing to read; room to write; a bad handle: POLLNVAL. KERNEL:
	 * poll(2) masks what the protocol reports with the requested events
	 * (do_pollfd: mask &= events | POLLERR | POLLHUP), so a socket
	 * polled for POLLIN with nothing queued has revents 0 and poll
	 * waits. The library adds POLLWRNORM whenever there is send room,
	 * even to a POLLIN-only request, so rte_rds_poll(POLLIN) returns at
	 * once and never waits (reported).
	 */
	memset(pfd, 0, sizeof(pfd));
	pfd[0].sock = r;
	pfd[0].events = POLLIN;
	pfd[1].sock = s;
	pfd[1].events = POLLOUT;
	pfd[2].sock = 99999;
	pfd[2].events = POLLIN;
	EXPECT_RET(rte_rds_poll(pfd, 3, 0), 2);
	CU_ASSERT_EQUAL(pfd[0].revents, 0);
	CU_ASSERT(pfd[1].revents & POLLOUT);
	CU_ASSERT(pfd[2].revents & POLLNVAL);

	/* A timeout (needs the masking above). */
	pfd[0].revents = -1;
	t0 = rds_test_now_ns();
	EXPECT_RET(rte_rds_poll(pfd, 1, 50), 0);
	ms = elapsed_ms(t0);
	CU_ASSERT(ms >= 40);
	CU_ASSERT(ms < 5000);
	CU_ASSERT_EQUAL(pfd[0].revents, 0);

	/* A message: POLLIN (the wait drives the inline engine). */
	EXPECT_RET(send_to(s, "hi", 2, RDS_TEST_IP2, 5000, MSG_DONTWAIT), 2);
	EXPECT_RET(rte_rds_poll(pfd, 1, 2000), 1);
	CU_ASSERT(pfd[0].revents & POLLIN);
	expect_msg(r, "hi", 2, RDS_TEST_IP1, 4000);

	ctx = "event fd";
	EXPECT_ERR(rte_rds_event_fd(-1), EBADF);
	EXPECT_ERR(rte_rds_event_fd(99999), EBADF);
	EXPECT_ERR(rte_rds_event_arm(-1, POLLIN), EBADF);
	EXPECT_ERR(rte_rds_event_arm(99999, POLLOUT), EBADF);
	fd = rte_rds_event_fd(r);
	CU_ASSERT(fd >= 0);
	fd2 = rte_rds_event_fd(r);
	CU_ASSERT_EQUAL(fd2, fd);
	if (api_skip_attached("an attached socket's event fd is its wake-up "
			      "socket (a byte a signal, not an eventfd "
			      "counter), made with the socket (no EMFILE "
			      "here), and it moves (rte_rds_event_fd_move)")) {
		/* The descriptor is closed with the socket all the same. */
		EXPECT_OK(rte_rds_close(r));
		errno = 0;
		CU_ASSERT(fcntl(fd2, F_GETFD) == -1 && errno == EBADF);
		EXPECT_OK(rte_rds_close(s));
		lib_down();
		return;
	}
	/* Only an attached process's event fds move. */
	EXPECT_ERR(rte_rds_event_fd_move(r, 0), ENXIO);
	CU_ASSERT_EQUAL(rte_rds_event_fd(r), fd);
	/* Ready now: not armed, the ready events come back. */
	EXPECT_RET(rte_rds_event_arm(s, POLLOUT) > 0, 1);
	/* Nothing to read: armed. */
	EXPECT_RET(rte_rds_event_arm(r, POLLIN), 0);
	EXPECT_RET(send_to(s, "ev", 2, RDS_TEST_IP2, 5000, MSG_DONTWAIT), 2);
	rds_test_kick_n(64);
	v = 0;
	CU_ASSERT_EQUAL(read(fd, &v, sizeof(v)), (ssize_t)sizeof(v));
	CU_ASSERT(v >= 1);
	CU_ASSERT(rte_rds_event_arm(r, POLLIN) & POLLIN);
	/* Ready: not armed, so the next message writes nothing... */
	EXPECT_RET(send_to(s, "e2", 2, RDS_TEST_IP2, 5000, MSG_DONTWAIT), 2);
	rds_test_kick_n(64);
	CU_ASSERT(read(fd, &v, sizeof(v)) < 0 && errno == EAGAIN);
	/* ...unless RTE_RDS_ARM_EDGE asks to stay armed (an edge-triggered
	 * waiter): the events ready come back and the next message writes
	 * the event fd. */
	CU_ASSERT(rte_rds_event_arm(r, POLLIN | RTE_RDS_ARM_EDGE) == POLLIN);
	EXPECT_RET(send_to(s, "e3", 2, RDS_TEST_IP2, 5000, MSG_DONTWAIT), 2);
	rds_test_kick_n(64);
	v = 0;
	CU_ASSERT_EQUAL(read(fd, &v, sizeof(v)), (ssize_t)sizeof(v));
	CU_ASSERT(v >= 1);
	expect_msg(r, "ev", 2, RDS_TEST_IP1, 4000);
	expect_msg(r, "e2", 2, RDS_TEST_IP1, 4000);
	expect_msg(r, "e3", 2, RDS_TEST_IP1, 4000);

	/* EMFILE: no descriptor left for the eventfd. */
	ctx = "event fd EMFILE";
	x = sock_at(RDS_TEST_IP3, 5000);
	CU_ASSERT_FATAL(getrlimit(RLIMIT_NOFILE, &old) == 0);
	probe = open("/dev/null", O_RDONLY | O_CLOEXEC);
	CU_ASSERT_FATAL(probe >= 0);
	close(probe);
	lim = old;
	lim.rlim_cur = (rlim_t)probe;	/* no fd number >= probe */
	if (setrlimit(RLIMIT_NOFILE, &lim) == 0) {
		EXPECT_ERR(rte_rds_event_fd(x), EMFILE);
		CU_ASSERT(setrlimit(RLIMIT_NOFILE, &old) == 0);
		fd = rte_rds_event_fd(x);
		CU_ASSERT(fd >= 0);
	} else {
		printf("\n    setrlimit failed: EMFILE not checked");
		CU_FAIL("setrlimit(RLIMIT_NOFILE)");
	}

	/* The socket's fd is closed with the socket. */
	EXPECT_OK(rte_rds_close(r));
	errno = 0;
	CU_ASSERT(fcntl(fd2, F_GETFD) == -1 && errno == EBADF);
	EXPECT_OK(rte_rds_close(x));
	EXPECT_OK(rte_rds_close(s));
	lib_down();
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "cong_monitor", test_cong_monitor },
		{ "poll_and_event_fd", test_poll_and_event_fd },
		{ NULL, NULL },
	};

	return api_main("api_poll", cases);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unit_info (unit_info.c): RDMA notifications (queued with
 * rds_notify_queue()) and telemetry over the EAL telemetry socket.
 */

#include "unit_info.h"

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
	struct rds_rdma_notify nt;
	struct cmsghdr *cm;
	struct msghdr mh;
	bool ctl = clen != 0;
	ssize_t r;

	*nnotes = 0;
	*mflags = 0;
	*ctl_used = 0;
	memset(&cbuf, 0, sizeof(cbuf));
	r = rds_test_recv_ctl(s, data, dlen, NULL, flags, cbuf.b, &clen,
			      mflags);
	if (r < 0)
		return r;
	*ctl_used = clen;
	if (!ctl || clen < sizeof(*cm))
		return r;
	memset(&mh, 0, sizeof(mh));
	mh.msg_control = cbuf.b;
	mh.msg_controllen = clen;
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

void
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

void
test_telemetry(void)
{
	struct sockaddr_in ba = rds_test_sin(RDS_TEST_IP2, 7902);
	static char buf[65536];
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

	printf("\n");
	fd = rds_test_tel_open();
	CU_ASSERT(fd != -2);
	if (fd < 0)
		goto out;
	r = rds_test_tel_cmd(fd, "/rds/stats", buf, sizeof(buf), true, &ms);
	printf("  /rds/stats: %.160s...\n", r > 0 ? buf : "(none)");
	CU_ASSERT(r > 0);
	CU_ASSERT(r > 0 && strncmp(buf, "{\"/rds/stats\":", 14) == 0);
	CU_ASSERT(r > 0 && strstr(buf, "\"s_polls\"") != NULL);
	CU_ASSERT(r > 0 && strstr(buf, "\"s_recv_delivered\"") != NULL);

	r = rds_test_tel_cmd(fd, "/rds/info", buf, sizeof(buf), true, &ms);
	printf("  /rds/info: %s\n", r > 0 ? buf : "(none)");
	CU_ASSERT(r > 0);
	CU_ASSERT(r > 0 && strstr(buf, "\"engines\"") != NULL);
	CU_ASSERT(r > 0 && rds_test_json_int(buf, "engines") == 1);
	CU_ASSERT(r > 0 && rds_test_json_int(buf, "sockets_open") == 2);
	CU_ASSERT(r > 0 && strstr(buf, "10.255.0.1/loop") != NULL);

	r = rds_test_tel_cmd(fd, "/rds/engine,0", buf, sizeof(buf), true, &ms);
	CU_ASSERT(r > 0 && strstr(buf, "\"s_polls\"") != NULL);

	r = rds_test_tel_cmd(fd, "/rds/sockets", buf, sizeof(buf), true, &ms);
	printf("  /rds/sockets: %s\n", r > 0 ? buf : "(none)");
	CU_ASSERT(r > 0 && strstr(buf, "10.255.0.1:7901") != NULL);
	CU_ASSERT(r > 0 && strstr(buf, "10.255.0.2:7902") != NULL);

	/* /rds/conns asks the engines; the header says an inline engine
	 * must be polled by the application meanwhile. First see whether
	 * a reply comes without that (informational), then poll. */
	r = rds_test_tel_cmd(fd, "/rds/conns", buf, sizeof(buf), false, &ms);
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

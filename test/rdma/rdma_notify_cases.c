/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_notify: NOTIFY_ME, RDS_RECVERR, RDS_RDMA_SILENT, notifications
 * before data, RDS_CANCEL_SENT_TO on queued operations.
 */

#include "rdma_notify.h"

void
test_notify_me(void)
{
	rds_test_watchdog(60, "notify_me");
	/* One status per recvmsg (room for exactly one cmsg). */
	run_batch(64, 0, RDS_RDMA_NOTIFY_ME, 0,
		  CMSG_SPACE(sizeof(struct rds_rdma_notify)), RDS_RDMA_SUCCESS,
		  -1, "notify_me/1");
	/* As many as fit. */
	run_batch(100, 0, RDS_RDMA_NOTIFY_ME, 0, 4096, RDS_RDMA_SUCCESS, -1,
		  "notify_me/n");
	rds_test_watchdog(0, NULL);
}

void
test_notify_me_mixed(void)
{
	rds_test_watchdog(60, "notify_me_mixed");
	run_batch(64, 3, RDS_RDMA_NOTIFY_ME, 1, 4096, RDS_RDMA_SUCCESS,
		  RDS_RDMA_REMOTE_ERROR, "notify_me+recverr");
	run_batch(64, 3, RDS_RDMA_NOTIFY_ME, 0, 200, RDS_RDMA_SUCCESS,
		  RDS_RDMA_REMOTE_ERROR, "notify_me, failures");
	rds_test_watchdog(0, NULL);
}

void
test_silent(void)
{
	rds_test_watchdog(60, "silent");
	run_batch(64, 2, 0, 0, 4096, -1, -1, "no notify_me, no recverr");
	rds_test_watchdog(0, NULL);
}

void
test_recverr(void)
{
	rds_test_watchdog(60, "recverr");
	run_batch(64, 2, 0, 1, 4096, -1, RDS_RDMA_REMOTE_ERROR,
		  "recverr only");
	rds_test_watchdog(0, NULL);
}

/*
 * Notifications come before data (rds_recvmsg: the notify queue first):
 * a data message queued on the server before the op completed is
 * returned after the op's RDS_CMSG_RDMA_STATUS.
 */
void
test_notify_first(void)
{
	struct rdma_rx rx;
	struct setup su;
	char buf[64];

	rds_test_watchdog(60, "notify_first");
	CU_ASSERT_FATAL(setup_up(&su));
	CU_ASSERT(rdma_sendmsg(su.env.cli, &su.env.sa, "DATA", 4, NULL, 0) ==
		  4);
	rdma_pump(50);
	rdma_recv(su.env.srv, buf, sizeof(buf), 1024,
		  MSG_PEEK | MSG_DONTWAIT, &rx);
	CU_ASSERT_EQUAL(rx.ret, 4);	/* the data is queued */
	make_tokens(1, 0xF1257);
	ops[0].kind = K_READ;
	ops[0].bad = false;
	CU_ASSERT(op_send(&su, 0, RDS_RDMA_NOTIFY_ME));
	/* The op has run once the client has its message. */
	CU_ASSERT(rdma_wait_msg(su.env.cli, buf, sizeof(buf), 5000, &rx, NULL,
				NULL, 0));
	rdma_recv(su.env.srv, buf, sizeof(buf), 1024, MSG_DONTWAIT, &rx);
	CU_ASSERT(rdma_rx_is_notify(&rx));
	CU_ASSERT_EQUAL(rx.nst, 1);
	if (rx.nst == 1) {
		CU_ASSERT_EQUAL(rx.st[0].user_token, ops[0].token);
		CU_ASSERT_EQUAL(rx.st[0].status, RDS_RDMA_SUCCESS);
	}
	rdma_recv(su.env.srv, buf, sizeof(buf), 1024, MSG_DONTWAIT, &rx);
	CU_ASSERT(rx.ret == 4 && memcmp(buf, "DATA", 4) == 0);
	CU_ASSERT_EQUAL(rx.nst, 0);
	CU_ASSERT(rds_test_sin_eq(&rx.from, &su.env.ca));
	CU_ASSERT(rdma_quiet(su.env.srv, 20));
	setup_down(&su);
	rds_test_watchdog(0, NULL);
}

/*
 * The kernel takes RDS_RECVERR into the op at sendmsg time
 * (net/rds/rdma.c: op->op_recverr = rs->rs_recverr; the notifier is
 * allocated then), so changing the option while the op is queued does
 * not change whether its failure is reported.
 */
void
test_recverr_at_sendmsg(void)
{
	static struct rds_rdma_notify nt[8];
	struct setup su;
	unsigned int nnt;

	rds_test_watchdog(60, "recverr_at_sendmsg");
	CU_ASSERT_FATAL(setup_up(&su));
	make_tokens(2, 0xE7);
	ops[0].kind = K_READ;
	ops[0].bad = true;
	ops[1].kind = K_WRITE;
	ops[1].bad = true;
	/* Off at sendmsg, on when it runs: not reported. */
	CU_ASSERT_EQUAL(rdma_set_recverr(su.env.srv, 0), 0);
	CU_ASSERT(op_send(&su, 0, 0));
	CU_ASSERT_EQUAL(rdma_set_recverr(su.env.srv, 1), 0);
	nnt = rdma_collect(su.env.srv, nt, RTE_DIM(nt), 0, 100, 2000, 1024,
			   NULL);
	if (nnt != 0)
		printf("  RECVERR off at sendmsg, on at run: %u "
		       "notification(s), status %d\n", nnt, nt[0].status);
	CU_ASSERT_EQUAL(nnt, 0);
	/* On at sendmsg, off when it runs: reported. */
	CU_ASSERT(op_send(&su, 1, 0));
	CU_ASSERT_EQUAL(rdma_set_recverr(su.env.srv, 0), 0);
	nnt = rdma_collect(su.env.srv, nt, RTE_DIM(nt), 1, 100, 2000, 1024,
			   NULL);
	if (nnt != 1)
		printf("  RECVERR on at sendmsg, off at run: %u "
		       "notification(s)\n", nnt);
	CU_ASSERT_EQUAL(nnt, 1);
	if (nnt == 1) {
		CU_ASSERT_EQUAL(nt[0].user_token, ops[1].token);
		CU_ASSERT_EQUAL(nt[0].status, RDS_RDMA_REMOTE_ERROR);
	}
	setup_down(&su);
	rds_test_watchdog(0, NULL);
}

/*
 * RDS_RDMA_SILENT: an op whose message has no payload (and no cookie)
 * sends no RDS message at all (net/rds/send.c rds_send_xmit: "if there
 * are exclusively attached silent ops, we skip the hdr/data send"); the
 * op still runs and is notified. With a payload the message goes out.
 */
void
test_silent_flag(void)
{
	static struct rds_rdma_notify nt[16];
	struct rdma_rx rx;
	struct setup su;
	unsigned int nnt, i;
	char buf[64];

	rds_test_watchdog(60, "silent_flag");
	CU_ASSERT_FATAL(setup_up(&su));
	make_tokens(4, 0x5113);
	for (i = 0; i < 4; i++) {
		struct rds_rdma_args a;
		const char *pl = i < 3 ? "" : "LOUD";

		ops[i].kind = i % 2 ? K_WRITE : K_READ;
		ops[i].bad = false;
		memset(ops[i].local, ops[i].kind == K_WRITE ? (int)i : 0x5A,
		       sizeof(ops[i].local));
		ops[i].iov[0].addr = (uint64_t)(uintptr_t)ops[i].local;
		ops[i].iov[0].bytes = 128;
		memset(&a, 0, sizeof(a));
		a.cookie = su.cookie;
		a.remote_vec.addr = (uint64_t)i * 256;
		a.remote_vec.bytes = 128;
		a.local_vec_addr = (uint64_t)(uintptr_t)ops[i].iov;
		a.nr_local = 1;
		a.flags = RDS_RDMA_SILENT | RDS_RDMA_NOTIFY_ME |
			  (ops[i].kind == K_WRITE ? RDS_RDMA_READWRITE : 0);
		a.user_token = ops[i].token;
		CU_ASSERT(rdma_send_args(su.env.srv, &su.env.ca, pl,
					 strlen(pl), &a) ==
			  (ssize_t)strlen(pl));
	}
	CU_ASSERT(rdma_sendmsg(su.env.srv, &su.env.ca, "SYNC", 4, NULL, 0) ==
		  4);
	/* Only the op with a payload has a message, then SYNC. */
	CU_ASSERT(rdma_wait_msg(su.env.cli, buf, sizeof(buf), 5000, &rx, NULL,
				NULL, 0));
	if (rx.ret != 4 || memcmp(buf, "LOUD", 4) != 0)
		printf("  first client message: %zd bytes\n", rx.ret);
	CU_ASSERT(rx.ret == 4 && memcmp(buf, "LOUD", 4) == 0);
	CU_ASSERT(rdma_wait_msg(su.env.cli, buf, sizeof(buf), 5000, &rx, NULL,
				NULL, 0));
	CU_ASSERT(rx.ret == 4 && memcmp(buf, "SYNC", 4) == 0);
	CU_ASSERT(rdma_quiet(su.env.cli, 20));
	nnt = rdma_collect(su.env.srv, nt, RTE_DIM(nt), 4, 0, 5000, 4096,
			   NULL);
	CU_ASSERT_EQUAL(nnt, 4);
	CU_ASSERT_EQUAL(check_notes(nt, RTE_MIN(nnt, RTE_DIM(nt)), 4,
				    RDS_RDMA_SUCCESS, -1, "silent flag"), 0);
	for (i = 0; i < 4; i++) {
		uint8_t *r = su.g.pages + (size_t)i * 256;

		CU_ASSERT(memcmp(ops[i].local, r, 128) == 0);
	}
	setup_down(&su);
	rds_test_watchdog(0, NULL);
}

/* ------------------------------------------------------------------ */
/* RDS_CANCEL_SENT_TO */

static void
cancel_case(bool with_addr, uint64_t flags, int recverr)
{
	static struct rds_rdma_notify nt[64];
	uint8_t got[MAX_OPS] = { 0 };
	uint8_t *before;
	unsigned int i, n = 8, nnt, fails = 0;
	struct setup su;
	int want = (flags & RDS_RDMA_NOTIFY_ME) ? RDS_RDMA_CANCELED : -1;
	char what[64];

	snprintf(what, sizeof(what), "cancel %s%s%s",
		 with_addr ? "to the client" : "all",
		 flags & RDS_RDMA_NOTIFY_ME ? " notify_me" : "",
		 recverr ? " recverr" : "");
	if (!setup_up(&su)) {
		CU_FAIL("setup");
		return;
	}
	CU_ASSERT_EQUAL(rdma_set_recverr(su.env.srv, recverr), 0);
	before = malloc(su.g.len);
	CU_ASSERT_FATAL(before != NULL);
	memcpy(before, su.g.pages, su.g.len);
	make_tokens(n, 0xCA7CE1 + flags + recverr);
	for (i = 0; i < n; i++) {
		ops[i].kind = (enum kind)(i % K_NB);
		ops[i].bad = false;
		CU_ASSERT(op_send(&su, i, flags));
	}
	/* No engine poll in between: the cancel meets them queued. */
	CU_ASSERT_EQUAL(rte_rds_setsockopt(su.env.srv, SOL_RDS,
					   RDS_CANCEL_SENT_TO,
					   with_addr ? &su.env.ca : NULL,
					   with_addr ? sizeof(su.env.ca) : 0),
			0);
	nnt = rdma_collect(su.env.srv, nt, RTE_DIM(nt), want >= 0 ? n : 0, 300,
			   3000, 4096, NULL);
	/* With NOTIFY_ME every op (RDMA and atomic) completes CANCELED,
	 * once (net/rds/send.c rds_send_drop_to -> __rds_send_complete(rs,
	 * rm, RDS_RDMA_CANCELED), which requires op_notify: RDS_RECVERR
	 * alone reports no cancel). */
	{
		uint8_t cnt[MAX_OPS] = { 0 };
		unsigned int j;
		int k;

		for (j = 0; j < nnt && j < RTE_DIM(nt); j++) {
			k = token_index(nt[j].user_token, n);
			if (k < 0 || cnt[k]++ != 0 || want < 0 ||
			    nt[j].status != RDS_RDMA_CANCELED) {
				printf("  %s: notification token %#llx status "
				       "%d (op %d)\n", what,
				       (unsigned long long)nt[j].user_token,
				       nt[j].status, k);
				fails++;
			}
		}
		for (i = 0; i < n; i++) {
			if (want >= 0 && cnt[i] != 1) {
				printf("  %s: op %u (%s) got %u CANCELED "
				       "notifications, want 1\n", what, i,
				       kind_name[ops[i].kind], cnt[i]);
				fails++;
			}
		}
	}
	CU_ASSERT_EQUAL(fails, 0);
	/* Never run: nothing read, written or added; no message. */
	for (i = 0; i < n; i++) {
		unsigned int k;

		if (ops[i].kind == K_READ) {
			for (k = 0; k < sizeof(ops[i].local); k++)
				if (ops[i].local[k] != 0x5A)
					break;
			CU_ASSERT_EQUAL(k, sizeof(ops[i].local));
		} else if (ops[i].kind != K_WRITE) {
			CU_ASSERT_EQUAL(ops[i].result, SENTINEL);
		}
	}
	CU_ASSERT(memcmp(su.g.pages, before, su.g.len) == 0);
	CU_ASSERT_EQUAL(client_drain(&su, n, got, 0, 0), 0);
	/* The path still works afterwards. */
	ops[0].kind = K_FADD;
	ops[0].bad = false;
	CU_ASSERT(op_send(&su, 0, 0));
	CU_ASSERT_EQUAL(client_drain(&su, n, got, 1, 5000), 1);
	CU_ASSERT_EQUAL(ops[0].result, ((uint64_t *)(void *)su.g.pages)[0] - 1);
	free(before);
	setup_down(&su);
}

void
test_cancel(void)
{
	rds_test_watchdog(60, "cancel");
	cancel_case(true, RDS_RDMA_NOTIFY_ME, 0);
	cancel_case(false, RDS_RDMA_NOTIFY_ME, 0);
	cancel_case(true, RDS_RDMA_NOTIFY_ME, 1);
	cancel_case(true, 0, 1);	/* RECVERR alone: no notification */
	cancel_case(true, 0, 0);	/* neither: no notification */
	rds_test_watchdog(0, NULL);
}


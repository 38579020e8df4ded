/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA notifications (rds-rdma(7): "at most one notification per op",
 * delivered first, as an empty message with RDS_CMSG_RDMA_STATUS
 * {user_token, status}), over the transport of the run (loop or eth:
 * --transport=, rdma_common.h).
 *
 * notify_me:        with RDS_RDMA_NOTIFY_ME, many operations in flight
 *                   (queued before the engine runs; READ, WRITE, FADD,
 *                   CSWP): exactly one SUCCESS per op, tokens as given,
 *                   none repeated, none missing; with a control buffer
 *                   that holds one status at a time and with a large one.
 * notify_me_mixed:  NOTIFY_ME and RDS_RECVERR together, some ops failing:
 *                   SUCCESS or REMOTE_ERROR, still one per op.
 * silent:           neither NOTIFY_ME nor RDS_RECVERR: no notification at
 *                   all, not even for failed ops.
 * recverr:          RDS_RECVERR without NOTIFY_ME: one REMOTE_ERROR per
 *                   failed op, nothing for the successful ones.
 * notify_first:     a status queued after a data message is still
 *                   returned before it.
 * recverr_at_sendmsg: RDS_RECVERR counts as it was at sendmsg (kernel:
 *                   op_recverr), not as it is when the op completes.
 * silent_flag:      RDS_RDMA_SILENT with an empty payload: the op runs and
 *                   is notified, no message reaches the client.
 * cancel:           RDS_CANCEL_SENT_TO on RDMA and atomic ops still queued
 *                   (the engine has not run since sendmsg): with
 *                   NOTIFY_ME each completes RDS_RDMA_CANCELED exactly
 *                   once; with RDS_RECVERR alone, nothing (as the
 *                   kernel); none of them ever runs.
 * reset / drop:     ops on a connection that resets, or loses frames:
 *                   over loop, resets after every frame or every third,
 *                   and lost frames (rte_rds_loop_set_faults); over eth,
 *                   connection resets injected every 3 or 7 polls
 *                   (rdma_eth_inject_reset: the peer takes the stream no
 *                   more; the server's stream and the client's in turn),
 *                   and frames lost, duplicated, reordered and corrupted
 *                   (rte_rds_eth_set_faults; the counters must show them).
 *                   Each op completes SUCCESS or DROPPED, exactly once,
 *                   and is never executed twice: a FADD(+1) counter ends
 *                   at the number of SUCCESS notifications (DROPPED: it
 *                   never ran), their old values are 0..n-1, and the
 *                   client receives exactly the messages of the SUCCESS
 *                   ops (op and message: both or neither). Over eth with
 *                   frame faults and no reset, every op succeeds.
 *                   Over ib (RC queue pairs: nothing is lost below RDS
 *                   but with the connection), the queue pairs put in
 *                   error (rte_rds_ib_inject_qp_error) each time the
 *                   connection came back, 3 or 40 polls later (reset),
 *                   and receive rings frozen (rte_rds_ib_inject_rx_stall:
 *                   the sender waits on RNR NAKs until its stall_ms watch
 *                   resets the connection) alone and with QP errors
 *                   (drop); the ib counters must show them.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include <rte_errno.h>
#include <rte_rds.h>
#include <rte_rds_eth.h>
#include <rte_rds_loop.h>
#include <rte_rds_stats.h>
#ifdef RDMA_HAVE_IB
#include <rte_rds_ib.h>
#endif

#include "rdma_common.h"
#ifdef RDMA_HAVE_IB
#include "rdma_ib.h"
#endif
#include "rdma_eth.h"

#define SENTINEL 0xDEADBEEFCAFEF00DULL
#define REGION_PAGES 16
#define MAX_OPS 128

/* Client region (READWRITE) whose cookie the server has received. */
struct setup {
	struct rdma_env env;
	struct rdma_guard g;
	uint64_t cookie;
};

static bool
setup_up(struct setup *su)
{
	struct rdma_rx rx;
	char buf[16];

	memset(su, 0, sizeof(*su));
	if (rdma_env_up(&su->env) != 0)
		return false;
	if (rdma_guard_alloc(&su->g, REGION_PAGES) != 0)
		goto fail;
	rds_test_fill(su->g.pages, su->g.len, 4242);
	if (rdma_get_mr(su->env.cli, su->g.pages, su->g.len,
			RDS_RDMA_READWRITE, &su->cookie) != 0) {
		printf("  RDS_GET_MR: %s\n", rte_strerror(rte_errno));
		goto fail;
	}
	if (rdma_send_dest(su->env.cli, &su->env.sa, "REQ", 3,
			   su->cookie) != 3 ||
	    !rdma_wait_msg(su->env.srv, buf, sizeof(buf), 5000, &rx, NULL,
			   NULL, 0) || rx.dest != su->cookie) {
		printf("  cookie exchange failed\n");
		goto fail;
	}
	return true;
fail:
	rdma_guard_free(&su->g);
	rdma_env_down(&su->env);
	return false;
}

static void
setup_down(struct setup *su)
{
	rdma_env_down(&su->env);
	rdma_guard_free(&su->g);
}

/* One operation of a batch. */
enum kind { K_READ, K_WRITE, K_FADD, K_CSWP, K_NB };

static const char *const kind_name[] = { "READ", "WRITE", "FADD", "CSWP" };

struct op {
	enum kind kind;
	bool bad;		/* targets outside the region: must fail */
	uint64_t token;
	uint64_t result;	/* atomics: old value */
	uint8_t local[256];
	struct rds_iovec iov[2];
};

static struct op ops[MAX_OPS];

/* Queue op i (server -> client); payload "OP <i>". */
static bool
op_send(struct setup *su, unsigned int i, uint64_t flags)
{
	struct op *o = &ops[i];
	uint64_t remote = o->bad ? su->g.len : (uint64_t)i * 256;
	char msg[32];
	ssize_t r;

	snprintf(msg, sizeof(msg), "OP %u", i);
	o->result = SENTINEL;
	if (o->kind == K_READ || o->kind == K_WRITE) {
		struct rds_rdma_args a;

		memset(o->local, o->kind == K_WRITE ? (int)(i & 0xff) : 0x5A,
		       sizeof(o->local));
		o->iov[0].addr = (uint64_t)(uintptr_t)o->local;
		o->iov[0].bytes = 100;
		o->iov[1].addr = (uint64_t)(uintptr_t)(o->local + 128);
		o->iov[1].bytes = 28;
		memset(&a, 0, sizeof(a));
		a.cookie = su->cookie;
		a.remote_vec.addr = remote;
		a.remote_vec.bytes = 128;
		a.local_vec_addr = (uint64_t)(uintptr_t)o->iov;
		a.nr_local = 2;
		a.flags = flags | (o->kind == K_WRITE ? RDS_RDMA_READWRITE : 0);
		a.user_token = o->token;
		r = rdma_send_args(su->env.srv, &su->env.ca, msg, strlen(msg),
				   &a);
	} else {
		struct rds_atomic_args a;

		memset(&a, 0, sizeof(a));
		a.cookie = su->cookie;
		a.local_addr = (uint64_t)(uintptr_t)&o->result;
		a.remote_addr = remote;
		if (o->kind == K_FADD) {
			a.fadd.add = 1;
		} else {
			a.cswp.compare = 0;
			a.cswp.swap = 0;
		}
		a.flags = flags;
		a.user_token = o->token;
		r = rdma_send_atomic(su->env.srv, &su->env.ca, msg,
				     strlen(msg),
				     o->kind == K_FADD ? RDS_CMSG_ATOMIC_FADD :
				     RDS_CMSG_ATOMIC_CSWP, &a);
	}
	if (r != (ssize_t)strlen(msg)) {
		printf("  op %u sendmsg: %zd %s\n", i, r,
		       rte_strerror(rte_errno));
		return false;
	}
	return true;
}

/* Distinct random tokens (0 included once, to check it is not special). */
static void
make_tokens(unsigned int n, uint64_t seed)
{
	uint64_t st = seed;
	unsigned int i, j;

	for (i = 0; i < n; i++) {
again:
		ops[i].token = i == 3 ? 0 : rds_test_rand(&st);
		for (j = 0; j < i; j++)
			if (ops[j].token == ops[i].token)
				goto again;
	}
}

static int
token_index(uint64_t token, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (ops[i].token == token)
			return (int)i;
	return -1;
}

/*
 * Drain the client: every message must be "OP <i>" of a good op, each at
 * most once. Returns the number received; marks got[].
 */
static unsigned int
client_drain(struct setup *su, unsigned int n, uint8_t *got,
	     unsigned int want, unsigned int timeout_ms)
{
	unsigned int cnt = 0, i;
	struct rdma_rx rx;
	char buf[64];

	while (want == 0 || cnt < want) {
		if (!rdma_wait_msg(su->env.cli, buf, sizeof(buf) - 1,
				   want == 0 ? 50 : timeout_ms, &rx, NULL,
				   NULL, 0))
			break;
		buf[rx.ret] = '\0';
		if (sscanf(buf, "OP %u", &i) != 1 || i >= n) {
			printf("  client got '%s'\n", buf);
			CU_FAIL("unexpected message on the client");
			continue;
		}
		if (got[i])
			printf("  client got OP %u twice\n", i);
		CU_ASSERT(!got[i]);
		got[i]++;
		cnt++;
	}
	return cnt;
}

/*
 * Check the notifications nt[0..nnt) against ops[0..n): each op gets
 * exactly the status want_st (op good) / want_bad (op bad), or none when
 * that is -1; nothing unknown, nothing twice. Returns failures.
 */
static unsigned int
check_notes(const struct rds_rdma_notify *nt, unsigned int nnt,
	    unsigned int n, int want_good, int want_bad, const char *what)
{
	uint8_t cnt[MAX_OPS] = { 0 };
	unsigned int j, fails = 0;
	int k;

	for (j = 0; j < nnt; j++) {
		k = token_index(nt[j].user_token, n);
		if (k < 0) {
			printf("  %s: unknown token %#llx\n", what,
			       (unsigned long long)nt[j].user_token);
			fails++;
			continue;
		}
		if (cnt[k]++ != 0) {
			printf("  %s: op %d notified again (status %d)\n",
			       what, k, nt[j].status);
			fails++;
		}
		if (nt[j].status != (ops[k].bad ? want_bad : want_good)) {
			printf("  %s: op %d (%s) status %d, want %d\n", what,
			       k, ops[k].bad ? "bad" : "good", nt[j].status,
			       ops[k].bad ? want_bad : want_good);
			fails++;
		}
	}
	for (j = 0; j < n; j++) {
		int want = ops[j].bad ? want_bad : want_good;

		if (want >= 0 && cnt[j] == 0) {
			printf("  %s: op %u (token %#llx) never notified\n",
			       what, j, (unsigned long long)ops[j].token);
			fails++;
		}
	}
	return fails;
}

/* Did op i run (its READ data, WRITE bytes or atomic old value in
 * place)? A bad op never touches anything, whatever it reports. */
static bool
op_ran(struct setup *su, unsigned int i)
{
	struct op *o = &ops[i];
	uint8_t *r = su->g.pages + (size_t)i * 256;
	unsigned int k;

	switch (o->kind) {
	case K_READ:
		if (memcmp(o->local, r, 100) == 0 &&
		    memcmp(o->local + 128, r + 100, 28) == 0)
			return true;
		for (k = 0; k < sizeof(o->local); k++)
			if (o->local[k] != 0x5A)
				return true;	/* touched, not right */
		return false;
	case K_WRITE:
		for (k = 0; k < 128; k++)
			if (r[k] != (uint8_t)i)
				return false;
		return true;
	default:
		return o->result != SENTINEL;
	}
}

/* Verify that good ops ran (data/atomics) and bad ones did not touch the
 * local side. ran (may be NULL: good ops ran): per op, 1 ran, 0 did not
 * (DROPPED), 2 unknown (silent over a transport whose errors reset:
 * ran if and only if its message arrived, got[]). */
static void
check_effects(struct setup *su, unsigned int n, const uint8_t *ran,
	      const uint8_t *got)
{
	unsigned int i, k;

	for (i = 0; i < n; i++) {
		struct op *o = &ops[i];
		uint8_t *r = su->g.pages + (size_t)i * 256;
		bool want = ran == NULL ? !o->bad :
			    ran[i] == 2 ? got[i] != 0 : ran[i] == 1;

		if (o->bad)
			want = false;
		if (want && o->kind == K_READ) {
			CU_ASSERT(memcmp(o->local, r, 100) == 0);
			CU_ASSERT(memcmp(o->local + 128, r + 100, 28) == 0);
		} else if (!want && o->kind == K_READ) {
			for (k = 0; k < sizeof(o->local); k++)
				if (o->local[k] != 0x5A)
					break;
			CU_ASSERT_EQUAL(k, sizeof(o->local));
		} else if (want != op_ran(su, i)) {
			printf("  op %u (%s%s): ran %d, want %d\n", i,
			       kind_name[o->kind], o->bad ? ", bad" : "",
			       op_ran(su, i), want);
			CU_FAIL("op ran or not as it should");
		}
	}
}

/* Has every op that wants a status (want_good / want_bad >= 0) one? */
static bool
all_notified(const struct rds_rdma_notify *nt, unsigned int nnt,
	     unsigned int n, int want_good, int want_bad)
{
	uint8_t cnt[MAX_OPS] = { 0 };
	unsigned int j;
	int k;

	for (j = 0; j < nnt; j++) {
		k = token_index(nt[j].user_token, n);
		if (k >= 0)
			cnt[k] = 1;
	}
	for (j = 0; j < n; j++)
		if ((ops[j].bad ? want_bad : want_good) >= 0 && !cnt[j])
			return false;
	return true;
}

/*
 * The notifications of a batch over a transport whose refused ops reset
 * the connection (error_resets: ib). Each op ends once: with its wanted
 * status, or DROPPED when it was in flight behind a refused one (then
 * it never ran and its message is not delivered); a DROPPED is notified
 * with NOTIFY_ME or RDS_RECVERR (a failure). Everything before the first
 * bad op ends as wanted, so does the first bad op itself (the error
 * surfaces), and some op after it ends as wanted too (RDS reconnected).
 * Fills ran[] (1, 0, 2 unknown: a silent good op). Returns failures.
 */
static unsigned int
check_notes_resets(const struct rds_rdma_notify *nt, unsigned int nnt,
		   unsigned int n, int want_good, int want_bad, int recverr,
		   uint8_t *ran, const char *what)
{
	uint8_t cnt[MAX_OPS] = { 0 };
	int st[MAX_OPS];
	unsigned int j, fails = 0, ndrop = 0, after_ok = 0;
	int k, first_bad = -1;

	for (j = 0; j < n; j++) {
		st[j] = -1;
		if (ops[j].bad && first_bad < 0)
			first_bad = (int)j;
	}
	for (j = 0; j < nnt; j++) {
		k = token_index(nt[j].user_token, n);
		if (k < 0) {
			printf("  %s: unknown token %#llx\n", what,
			       (unsigned long long)nt[j].user_token);
			fails++;
			continue;
		}
		if (cnt[k]++ != 0) {
			printf("  %s: op %d notified again (status %d)\n",
			       what, k, nt[j].status);
			fails++;
		}
		st[k] = nt[j].status;
	}
	for (j = 0; j < n; j++) {
		int want = ops[j].bad ? want_bad : want_good;

		if (st[j] == RDS_RDMA_DROPPED && (want >= 0 || recverr) &&
		    first_bad >= 0 && (int)j > first_bad) {
			ran[j] = 0;
			ndrop++;
		} else if (st[j] == want && want >= 0) {
			ran[j] = !ops[j].bad;
			if (first_bad >= 0 && (int)j > first_bad)
				after_ok++;
		} else if (st[j] == -1 && want < 0) {
			ran[j] = ops[j].bad ? 0 : 2;
			if (!ops[j].bad && first_bad >= 0 &&
			    (int)j > first_bad)
				after_ok++;	/* checked by its message */
		} else {
			printf("  %s: op %u (%s) status %d, want %d%s\n",
			       what, j, ops[j].bad ? "bad" : "good", st[j],
			       want, first_bad >= 0 && (int)j > first_bad ?
			       " or DROPPED" : "");
			ran[j] = ops[j].bad ? 0 : 2;
			fails++;
		}
	}
	printf("  %s: %u DROPPED behind refused ops (%s: a refused op "
	       "resets the connection), %u after the first one as wanted\n",
	       what, ndrop, rdma_tr()->name, after_ok);
	if (first_bad >= 0 && after_ok == 0) {
		printf("  %s: nothing after the first refused op completed\n",
		       what);
		fails++;
	}
	return fails;
}


/*
 * Run n ops (kinds in turn, every bad_every-th one failing if
 * bad_every != 0) with flags, RDS_RECVERR set to recverr; collect the
 * notifications with a control buffer of ctl_space bytes.
 */
static void
run_batch(unsigned int n, unsigned int bad_every, uint64_t flags,
	  int recverr, size_t ctl_space, int want_good, int want_bad,
	  const char *what)
{
	static struct rds_rdma_notify nt[4 * MAX_OPS];
	uint8_t got[MAX_OPS] = { 0 }, ran[MAX_OPS] = { 0 };
	unsigned int i, ngood = 0, nnt, want_n = 0, cnt;
	bool resets = rdma_tr()->error_resets && bad_every != 0;
	struct setup su;
	int v = -1;
	socklen_t vl = sizeof(v);

	if (!setup_up(&su)) {
		CU_FAIL("setup");
		return;
	}
	/* RDS_RECVERR: off by default, as the kernel. */
	CU_ASSERT_EQUAL(rte_rds_getsockopt(su.env.srv, SOL_RDS, RDS_RECVERR,
					   &v, &vl), 0);
	CU_ASSERT_EQUAL(v, 0);
	CU_ASSERT_EQUAL(rdma_set_recverr(su.env.srv, recverr), 0);
	make_tokens(n, 0x70C3 + n + bad_every * 7 + flags);
	for (i = 0; i < n; i++) {
		ops[i].kind = (enum kind)(i % K_NB);
		ops[i].bad = bad_every != 0 && i % bad_every == bad_every - 1;
		if (!ops[i].bad)
			ngood++;
		if ((ops[i].bad ? want_bad : want_good) >= 0)
			want_n++;
	}
	/* All queued before the engine runs: several ops in flight. */
	for (i = 0; i < n; i++)
		CU_ASSERT(op_send(&su, i, flags));
	nnt = rdma_collect(su.env.srv, nt, RTE_DIM(nt), want_n, 200, 10000,
			   ctl_space, NULL);
	/* With resets, DROPPED ones notified besides (RDS_RECVERR) may make
	 * the count early: wait until every op that must be notified is
	 * (reconnects take a while). */
	if (resets) {
		uint64_t t0 = rds_test_now_ns();

		while (!all_notified(nt, RTE_MIN(nnt, RTE_DIM(nt)), n,
				     want_good, want_bad) &&
		       rds_test_since_s(t0) < 60 && nnt < RTE_DIM(nt))
			nnt += rdma_collect(su.env.srv, nt + nnt,
					    RTE_DIM(nt) - nnt, 1, 0, 1000,
					    ctl_space, NULL);
	}
	/* Nothing more turns up later. */
	nnt += rdma_collect(su.env.srv, nt + RTE_MIN(nnt, RTE_DIM(nt)),
			    RTE_DIM(nt) - RTE_MIN(nnt, RTE_DIM(nt)), 0, 200,
			    2000, ctl_space, NULL);
	if (resets) {
		/* Each op once, as wanted or DROPPED (counted there); the
		 * DROPPED of ops that want none are notified besides
		 * (RDS_RECVERR), so nnt is checked through them. */
		CU_ASSERT(nnt >= want_n);
		CU_ASSERT_EQUAL(check_notes_resets(nt,
				RTE_MIN(nnt, RTE_DIM(nt)), n, want_good,
				want_bad, recverr, ran, what), 0);
		for (i = 0; i < n; i++)
			if (ran[i] == 0 && !ops[i].bad)
				ngood--;	/* DROPPED: no message */
	} else {
		if (nnt != want_n)
			printf("  %s: %u notifications, want %u\n", what,
			       nnt, want_n);
		CU_ASSERT_EQUAL(nnt, want_n);
		CU_ASSERT_EQUAL(check_notes(nt, RTE_MIN(nnt, RTE_DIM(nt)), n,
					    want_good, want_bad, what), 0);
	}
	/* The client gets the messages of the good ops only (that ran),
	 * each once. */
	cnt = client_drain(&su, n, got, ngood, 5000);
	cnt += client_drain(&su, n, got, 0, 0);
	if (resets) {
		/* A silent good op's message tells whether it ran. */
		for (i = 0; i < n; i++) {
			if (ran[i] == 2 && !got[i])
				ngood--;
		}
	}
	CU_ASSERT_EQUAL(cnt, ngood);
	for (i = 0; i < n; i++) {
		bool want = resets ? (ran[i] == 1 || (ran[i] == 2 && got[i])) :
			    !ops[i].bad;

		if (ops[i].bad && got[i])
			printf("  %s: message of failed op %u delivered\n",
			       what, i);
		CU_ASSERT(got[i] == (want ? 1 : 0));
	}
	check_effects(&su, n, resets ? ran : NULL, got);
	CU_ASSERT(rdma_quiet(su.env.srv, 50));
	setup_down(&su);
}

static void
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

static void
test_notify_me_mixed(void)
{
	rds_test_watchdog(60, "notify_me_mixed");
	run_batch(64, 3, RDS_RDMA_NOTIFY_ME, 1, 4096, RDS_RDMA_SUCCESS,
		  RDS_RDMA_REMOTE_ERROR, "notify_me+recverr");
	run_batch(64, 3, RDS_RDMA_NOTIFY_ME, 0, 200, RDS_RDMA_SUCCESS,
		  RDS_RDMA_REMOTE_ERROR, "notify_me, failures");
	rds_test_watchdog(0, NULL);
}

static void
test_silent(void)
{
	rds_test_watchdog(60, "silent");
	run_batch(64, 2, 0, 0, 4096, -1, -1, "no notify_me, no recverr");
	rds_test_watchdog(0, NULL);
}

static void
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
static void
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
static void
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
static void
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

static void
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

/* ------------------------------------------------------------------ */
/* Resets and lost frames */

/*
 * Faults of a run, per transport: loop's (rte_rds_loop_set_faults: lost
 * frames, which take the connection down, and resets); eth's frame
 * faults (rte_rds_eth_set_faults: lost, duplicated, reordered, corrupted
 * frames, which its frame layer repairs) and connection resets injected
 * every reset_every polls (rdma_eth_inject_reset: the peer takes the
 * stream no more), of the server's stream (which carries the requests)
 * and of the client's (which carries the answers) in turn.
 */
struct faults {
	const char *what;
	struct rte_rds_loop_faults loop;
	struct rte_rds_eth_faults eth;
	unsigned int reset_every;
	/* ib: QP errors (qp_every polls after the connections came back,
	 * at most ib_max times) and receive stalls (as many). */
	unsigned int qp_every;
	unsigned int stalls;
	unsigned int ib_max;
};

struct reset_hook {
	unsigned int every;
	unsigned int polls;
	unsigned int injected;
};

static void
reset_hook_fn(void *arg)
{
	struct reset_hook *h = arg;

	rdma_eth_sniff();
	if (++h->polls % h->every != 0)
		return;
	/* The server's stream, then the client's. */
	if (rdma_eth_inject_reset((h->injected & 1) ? rdma_ip(1) : rdma_ip(2),
				  (h->injected & 1) ? rdma_ip(2) : rdma_ip(1))
	    == 0)
		h->injected++;
}

#ifdef RDMA_HAVE_IB
/*
 * ib's faults between polls: once the connections are (back) up (more
 * connects than when the last fault was injected) and every polls
 * later, put the QPs in error or freeze the receive rings (the stalls
 * first), at most max times in all. Injecting only into an up connection
 * lets each reconnect carry some work: a fault every few polls would
 * otherwise keep it down.
 */
struct ib_hook {
	unsigned int every, max, stalls;
	unsigned int polls, qp_injected, stall_injected;
	uint64_t connects_at;
	bool stall_wait;	/* a stall injected, its reset not seen yet */
	uint64_t stalls_at;
};

static void
ib_hook_fn(void *arg)
{
	struct ib_hook *h = arg;
	struct rte_rds_ib_stats st;
	uint64_t c;

	if (h->qp_injected + h->stall_injected >= h->max ||
	    rte_rds_ib_stats_get(&st) != 0)
		return;
	c = st.connects_active + st.connects_passive;
	/* After a stall, nothing more until its watch reset the
	 * connection: the next fault hits the new one. */
	if (h->stall_wait) {
		if (st.stalls <= h->stalls_at)
			return;
		h->stall_wait = false;
		h->connects_at = c;
	}
	if (c <= h->connects_at) {
		h->polls = 0;
		return;
	}
	if (++h->polls < h->every)
		return;
	if (h->stall_injected < h->stalls) {
		if (rte_rds_ib_inject_rx_stall() == 0) {
			h->stall_injected++;
			h->stall_wait = true;
			h->stalls_at = st.stalls;
		}
	} else if (rte_rds_ib_inject_qp_error() == 0) {
		h->qp_injected++;
	}
	h->connects_at = c;
	h->polls = 0;
}
#endif

static void
fault_case(const struct faults *f)
{
	static struct rds_rdma_notify nt[4 * MAX_OPS];
	uint8_t got[MAX_OPS] = { 0 }, cnt[MAX_OPS] = { 0 };
	uint8_t olds[MAX_OPS] = { 0 };
	struct rte_rds_loop_stats st0, st1;
	struct rte_rds_eth_stats es0, es1;
	struct rte_rds_stats rs0, rs1;
	struct reset_hook hook = { .every = f->reset_every };
	unsigned int i, j, n = 96, nnt, nsucc = 0, ndrop = 0, ncli, fails = 0;
	bool eth = rdma_tr_is("eth"), ib = rdma_tr_is("ib");
#ifdef RDMA_HAVE_IB
	struct rte_rds_ib_stats is0, is1;
	struct ib_hook ih = { .every = f->qp_every, .max = f->ib_max,
			      .stalls = f->stalls };
#endif
	const char *what = f->what;
	uint64_t *counter;
	struct setup su;
	int k;

#ifdef RDMA_HAVE_IB
	/* A frozen receive ring must run dry (96 messages, 32 buffers) and
	 * the sender wait on RNR NAKs, not for credits; its watch then
	 * resets the connection after 1 s. */
	if (ib && f->stalls > 0)
		rdma_ib_set_opts("recv_wr=32,flow_control=0,stall_ms=1000");
#endif
	if (!setup_up(&su)) {
		CU_FAIL("setup");
		return;
	}
	counter = (uint64_t *)(void *)(su.g.pages + 8 * 256);
	*counter = 0;
	make_tokens(n, 0xFA17 + f->loop.drop_one_in * 3 +
		    f->loop.reset_one_in + f->eth.drop_ppm + f->reset_every);
	rs0 = rds_test_stats();
	if (ib) {
#ifdef RDMA_HAVE_IB
		CU_ASSERT_EQUAL(rte_rds_ib_stats_get(&is0), 0);
		/* The connections are up (the cookie went over them). */
		ih.connects_at = is0.connects_active + is0.connects_passive - 1;
		rdma_set_poll_hook(ib_hook_fn, &ih);
#endif
	} else if (eth) {
		CU_ASSERT_EQUAL(rte_rds_eth_stats_get(&es0), 0);
		CU_ASSERT_EQUAL(rte_rds_eth_set_faults(&f->eth), 0);
		if (f->reset_every != 0)
			rdma_set_poll_hook(reset_hook_fn, &hook);
	} else {
		CU_ASSERT_EQUAL(rte_rds_loop_stats_get(&st0), 0);
		CU_ASSERT_EQUAL(rte_rds_loop_set_faults(&f->loop), 0);
	}
	rdma_pump(2);
	for (i = 0; i < n; i++) {
		struct rds_atomic_args a;
		char msg[32];

		ops[i].kind = K_FADD;
		ops[i].bad = false;
		ops[i].result = SENTINEL;
		memset(&a, 0, sizeof(a));
		a.cookie = su.cookie;
		a.local_addr = (uint64_t)(uintptr_t)&ops[i].result;
		a.remote_addr = 8 * 256;
		a.fadd.add = 1;
		a.flags = RDS_RDMA_NOTIFY_ME;
		a.user_token = ops[i].token;
		snprintf(msg, sizeof(msg), "OP %u", i);
		CU_ASSERT(rdma_send_atomic(su.env.srv, &su.env.ca, msg,
					   strlen(msg), RDS_CMSG_ATOMIC_FADD,
					   &a) == (ssize_t)strlen(msg));
		/* Let some go out while others are queued. */
		if (i % 4 == 3)
			rdma_pump(3);
	}
	nnt = rdma_collect(su.env.srv, nt, RTE_DIM(nt), n, 0, 60000, 4096,
			   NULL);
	rs1 = rds_test_stats();
	if (ib) {
#ifdef RDMA_HAVE_IB
		CU_ASSERT_EQUAL(rte_rds_ib_stats_get(&is1), 0);
		rdma_set_poll_hook(NULL, NULL);
#endif
	} else if (eth) {
		CU_ASSERT_EQUAL(rte_rds_eth_stats_get(&es1), 0);
		rdma_set_poll_hook(NULL, NULL);
		CU_ASSERT_EQUAL(rte_rds_eth_set_faults(NULL), 0);
	} else {
		CU_ASSERT_EQUAL(rte_rds_loop_stats_get(&st1), 0);
		CU_ASSERT_EQUAL(rte_rds_loop_set_faults(NULL), 0);
	}
	/* Anything late (a second notification) would show up now. */
	nnt += rdma_collect(su.env.srv, nt + RTE_MIN(nnt, RTE_DIM(nt)),
			    RTE_DIM(nt) - RTE_MIN(nnt, RTE_DIM(nt)), 0, 300,
			    3000, 4096, NULL);
	if (ib) {
#ifdef RDMA_HAVE_IB
		printf("  %s: %u notifications for %u ops; connection resets "
		       "%" PRIu64 "; QP errors injected %u (counted %" PRIu64
		       "), receive stalls injected %u (counted %" PRIu64
		       ", stall resets %" PRIu64 "); reconnects %" PRIu64
		       ", retransmitted %" PRIu64 "\n", what, nnt, n,
		       rs1.s_conn_reset - rs0.s_conn_reset, ih.qp_injected,
		       is1.qp_errors_injected - is0.qp_errors_injected,
		       ih.stall_injected,
		       is1.rx_stalls_injected - is0.rx_stalls_injected,
		       is1.stalls - is0.stalls,
		       is1.connects_active + is1.connects_passive -
		       is0.connects_active - is0.connects_passive,
		       rs1.s_send_retransmit - rs0.s_send_retransmit);
		/* The faults asked for happened, and reset connections. */
		/* The batch may end before every planned one (each waits
		 * for a reconnect); the first of each kind must happen. */
		CU_ASSERT(f->ib_max == f->stalls || ih.qp_injected > 0);
		CU_ASSERT(ih.stall_injected == f->stalls);
		CU_ASSERT(ih.qp_injected == 0 ||
			  is1.qp_errors_injected > is0.qp_errors_injected);
		CU_ASSERT(ih.stall_injected == 0 ||
			  (is1.rx_stalls_injected > is0.rx_stalls_injected &&
			   is1.stalls > is0.stalls));
		CU_ASSERT(rs1.s_conn_reset > rs0.s_conn_reset);
#endif
	} else if (eth) {
		printf("  %s: %u notifications for %u ops; connection resets "
		       "%" PRIu64 " (%u injected); frames dropped %" PRIu64
		       ", duplicated %" PRIu64 ", reordered %" PRIu64
		       ", corrupted %" PRIu64 "; retransmitted %" PRIu64
		       " (fast %" PRIu64 ")\n", what, nnt, n,
		       rs1.s_conn_reset - rs0.s_conn_reset, hook.injected,
		       es1.fault_dropped - es0.fault_dropped,
		       es1.fault_duplicated - es0.fault_duplicated,
		       es1.fault_reordered - es0.fault_reordered,
		       es1.fault_corrupted - es0.fault_corrupted,
		       es1.rexmit_fast + es1.rexmit_timeout -
		       es0.rexmit_fast - es0.rexmit_timeout,
		       es1.rexmit_fast - es0.rexmit_fast);
		/* The faults asked for happened. */
		CU_ASSERT(f->eth.drop_ppm == 0 ||
			  es1.fault_dropped > es0.fault_dropped);
		CU_ASSERT(f->eth.dup_ppm == 0 ||
			  es1.fault_duplicated > es0.fault_duplicated);
		CU_ASSERT(f->eth.reorder_ppm == 0 ||
			  es1.fault_reordered > es0.fault_reordered);
		CU_ASSERT(f->eth.corrupt_ppm == 0 ||
			  es1.fault_corrupted > es0.fault_corrupted);
		CU_ASSERT(f->eth.drop_ppm == 0 ||
			  es1.rexmit_fast + es1.rexmit_timeout >
			  es0.rexmit_fast + es0.rexmit_timeout);
		CU_ASSERT(f->reset_every == 0 ||
			  (hook.injected > 0 &&
			   rs1.s_conn_reset > rs0.s_conn_reset));
	} else {
		printf("  %s: %u notifications for %u ops; loop resets %"
		       PRIu64 ", dropped %" PRIu64 ", flushed %" PRIu64 "\n",
		       what, nnt, n, st1.resets - st0.resets,
		       st1.dropped - st0.dropped, st1.flushed - st0.flushed);
		CU_ASSERT(st1.resets + st1.dropped > st0.resets + st0.dropped);
	}
	for (j = 0; j < nnt && j < RTE_DIM(nt); j++) {
		k = token_index(nt[j].user_token, n);
		if (k < 0 || cnt[k]++ != 0) {
			printf("  %s: token %#llx (op %d) unknown or "
			       "repeated\n", what,
			       (unsigned long long)nt[j].user_token, k);
			fails++;
			continue;
		}
		if (nt[j].status == RDS_RDMA_SUCCESS) {
			nsucc++;
			if (ops[k].result >= n || olds[ops[k].result]++) {
				printf("  %s: op %d old value %#" PRIx64
				       " out of range or repeated\n", what, k,
				       ops[k].result);
				fails++;
			}
		} else if (nt[j].status == RDS_RDMA_DROPPED) {
			ndrop++;
			if (ops[k].result != SENTINEL) {
				printf("  %s: op %d DROPPED but ran (old %#"
				       PRIx64 ")\n", what, k, ops[k].result);
				fails++;
			}
		} else {
			printf("  %s: op %d status %d\n", what, k,
			       nt[j].status);
			fails++;
		}
	}
	for (i = 0; i < n; i++) {
		if (cnt[i] == 0) {
			printf("  %s: op %u never completed\n", what, i);
			fails++;
		}
	}
	printf("  %s: SUCCESS %u, DROPPED %u, counter %" PRIu64 "\n", what,
	       nsucc, ndrop, *counter);
	CU_ASSERT_EQUAL(fails, 0);
	CU_ASSERT_EQUAL(*counter, nsucc);
	/* Frames lost, duplicated, reordered or corrupted are repaired below
	 * RDS on eth: with no connection reset, every op succeeds. */
	if (eth && rs1.s_conn_reset == rs0.s_conn_reset)
		CU_ASSERT_EQUAL(nsucc, n);
	/* Op and message: both or neither. */
	ncli = client_drain(&su, n, got, 0, 0);
	rdma_pump(200);
	ncli += client_drain(&su, n, got, 0, 0);
	CU_ASSERT_EQUAL(ncli, nsucc);
	for (i = 0; i < n; i++) {
		bool ran = ops[i].result != SENTINEL;

		if ((got[i] != 0) != ran)
			printf("  %s: op %u ran %d, message delivered %u\n",
			       what, i, ran, got[i]);
		CU_ASSERT((got[i] != 0) == ran);
	}
	setup_down(&su);
}

/* Is this run over ib, with its fault hooks compiled in? */
static bool
have_ib_faults(void)
{
#ifdef RDMA_HAVE_IB
	return rdma_tr_is("ib");
#else
	return false;
#endif
}

static void
test_reset(void)
{
	static const struct faults loop[] = {
		{ .what = "reset_one_in=1",
		  .loop = { .reset_one_in = 1, .seed = 11 } },
		{ .what = "reset_one_in=3",
		  .loop = { .reset_one_in = 3, .seed = 11 } },
	};
	static const struct faults eth[] = {
		{ .what = "reset every 3 polls", .reset_every = 3 },
		{ .what = "reset every 7 polls", .reset_every = 7 },
	};
	static const struct faults ib[] = {
		{ .what = "QP error 3 polls after each reconnect, 6 times",
		  .qp_every = 3, .ib_max = 6 },
		{ .what = "QP error 40 polls after each reconnect, 4 times",
		  .qp_every = 40, .ib_max = 4 },
	};
	unsigned int i;

	if (!rdma_tr_is("eth") && !rdma_tr_is("loop") && !have_ib_faults()) {
		CU_FAIL("no fault injection for this transport");
		return;
	}
	rds_test_watchdog(240, "reset");
	for (i = 0; i < 2; i++)
		fault_case(rdma_tr_is("eth") ? &eth[i] :
			   rdma_tr_is("ib") ? &ib[i] : &loop[i]);
	rds_test_watchdog(0, NULL);
}

static void
test_drop(void)
{
	static const struct faults loop[] = {
		{ .what = "drop_one_in=2",
		  .loop = { .drop_one_in = 2, .seed = 5 } },
		{ .what = "drop_one_in=5,reset_one_in=7",
		  .loop = { .drop_one_in = 5, .reset_one_in = 7, .seed = 5 } },
	};
	static const struct faults eth[] = {
		{ .what = "drop 20 %",
		  .eth = { .drop_ppm = 200000, .seed = 5 } },
		{ .what = "drop 5 %, dup 2 %, reorder 5 %, corrupt 1 %",
		  .eth = { .drop_ppm = 50000, .dup_ppm = 20000,
			   .reorder_ppm = 50000, .reorder_depth = 8,
			   .corrupt_ppm = 10000, .seed = 6 } },
		{ .what = "drop 5 %, reset every 7 polls",
		  .eth = { .drop_ppm = 50000, .seed = 7 },
		  .reset_every = 7 },
	};
	/* RC loses nothing below RDS: a receiver that stops taking
	 * frames is what ib has instead (the sender's stall_ms watch). */
	static const struct faults ib[] = {
		{ .what = "receive stall once",
		  .qp_every = 5, .stalls = 1, .ib_max = 1 },
		{ .what = "receive stall, then QP errors 5 polls after each "
			  "reconnect",
		  .qp_every = 5, .stalls = 1, .ib_max = 4 },
	};
	unsigned int i;

	rds_test_watchdog(240, "drop");
	if (rdma_tr_is("eth")) {
		for (i = 0; i < RTE_DIM(eth); i++)
			fault_case(&eth[i]);
	} else if (rdma_tr_is("loop")) {
		for (i = 0; i < RTE_DIM(loop); i++)
			fault_case(&loop[i]);
	} else if (have_ib_faults()) {
		for (i = 0; i < RTE_DIM(ib); i++)
			fault_case(&ib[i]);
	} else {
		CU_FAIL("no fault injection for this transport");
	}
	rds_test_watchdog(0, NULL);
}

int
main(int argc, char **argv)
{
	static const struct rds_test_case cases[] = {
		{ "notify_me", test_notify_me },
		{ "notify_me_mixed", test_notify_me_mixed },
		{ "silent", test_silent },
		{ "recverr", test_recverr },
		{ "notify_first", test_notify_first },
		{ "silent_flag", test_silent_flag },
		{ "recverr_at_sendmsg", test_recverr_at_sendmsg },
		{ "cancel", test_cancel },
		{ "reset", test_reset },
		{ "drop", test_drop },
		{ NULL, NULL },
	};

	return rdma_main(argc, argv, "rdma_notify", cases);
}

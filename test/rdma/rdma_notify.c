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

#include "rdma_notify.h"

#define REGION_PAGES 16


bool
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

void
setup_down(struct setup *su)
{
	rdma_env_down(&su->env);
	rdma_guard_free(&su->g);
}


const char *const kind_name[] = { "READ", "WRITE", "FADD", "CSWP" };


struct op ops[MAX_OPS];

/* Queue op i (server -> client); payload "OP <i>". */
bool
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
void
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

int
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
unsigned int
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

/* The op (of ops[0..n)) notification nt is for, -1 for an unknown
 * token; an unknown token and a second notification of an op (cnt
 * counts them per op) are failures. */
static int
note_index(const struct rds_rdma_notify *nt, unsigned int n, uint8_t *cnt,
	   const char *what, unsigned int *fails)
{
	int k = token_index(nt->user_token, n);

	if (k < 0) {
		printf("  %s: unknown token %#llx\n", what,
		       (unsigned long long)nt->user_token);
		(*fails)++;
		return -1;
	}
	if (cnt[k]++ != 0) {
		printf("  %s: op %d notified again (status %d)\n", what, k,
		       nt->status);
		(*fails)++;
	}
	return k;
}

/*
 * Check the notifications nt[0..nnt) against ops[0..n): each op gets
 * exactly the status want_st (op good) / want_bad (op bad), or none when
 * that is -1; nothing unknown, nothing twice. Returns failures.
 */
unsigned int
check_notes(const struct rds_rdma_notify *nt, unsigned int nnt,
	    unsigned int n, int want_good, int want_bad, const char *what)
{
	uint8_t cnt[MAX_OPS] = { 0 };
	unsigned int j, fails = 0;
	int k;

	for (j = 0; j < nnt; j++) {
		k = note_index(&nt[j], n, cnt, what, &fails);
		if (k < 0)
			continue;
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
		k = note_index(&nt[j], n, cnt, what, &fails);
		if (k < 0)
			continue;
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
void
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

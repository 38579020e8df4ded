/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDS RDMA over eth when the wire misbehaves (eth only: the net_ring pair
 * of rdma_eth.h; the server, address 2, runs the operations against the
 * client's region, address 1).
 *
 * faults:        READs and WRITEs of 1 B .. 100 000 B (up to 70
 *                fragments), FADDs on one counter and CSWPs, all queued
 *                together, while the transport loses, duplicates,
 *                reorders and corrupts frames (rte_rds_eth_set_faults;
 *                the counters must show it): every operation completes
 *                once, SUCCESS; the counter equals the number of FADDs;
 *                every WRITE's bytes are in the region, every READ's in
 *                its buffer, nothing else changed (canaries); every
 *                operation's message arrives once.
 * faults_resets: the same with connection resets of either stream
 *                injected every 5 polls (rdma_eth_inject_reset): each
 *                completes once, SUCCESS, or DROPPED and then it never
 *                ran (its bytes untouched, not counted); the counter
 *                equals the number of successful FADDs; a message per
 *                SUCCESS, none for the others.
 * reset_answer_initiator, reset_answer_target: a 1 MiB READ, its answer
 *                (733 frames) half way when the server's stream (the
 *                request's) or the client's (the answer's) resets:
 *                SUCCESS, the data intact, one message. (A reset of the
 *                server's stream let the operation go while its answer
 *                kept coming: a NULL operation dereferenced, SIGSEGV; a
 *                reset of the client's lost the answer: DROPPED though
 *                it ran.)
 * reset_message: a FADD's message lost on the wire, then the server's
 *                stream resets: the message is sent again and arrives
 *                once (it was dropped with the connection's
 *                retransmission queue: the operation succeeded, the
 *                client never heard).
 * small_window:  READs, WRITEs (1 B .. 300 000 B) and FADDs with a window
 *                of 8 frames of 508 bytes (window=8, mtu=576): smaller
 *                than the congestion map sent at connect (17 frames), and
 *                than most operations.
 * gone:          operations to an address with a neighbour entry and no
 *                host (frames leave and nothing answers): each ends
 *                OTHER_ERROR, once, in bounded time (dead_after=4,
 *                rto_max_us=10000), a 300 000 B WRITE whose request never
 *                all leaves too, never ran; operations to the client
 *                meanwhile succeed; queued ones cancelled end CANCELED,
 *                the one in flight OTHER_ERROR; a socket closed with one
 *                in flight, and the library shut down, hang nothing.
 * gone_after_ack: the client takes a request, runs it, and its answers
 *                never arrive (taken off the wire): OTHER_ERROR after
 *                dead_after retransmit timer ceilings; it ran once (the
 *                counter), never again; the next operation succeeds.
 * pause:         the inline engine not polled for ten times that wait
 *                while a request is out: the answer is taken at the next
 *                polls, SUCCESS (the time the engine stood still does not
 *                count).
 * gone_dark:     operations to an address nobody answers ARP for: they
 *                stay queued (the connection never comes up, as any
 *                message), no status, until RDS_CANCEL_SENT_TO: CANCELED,
 *                once each; nothing ran; the client is served meanwhile.
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
#include <rte_rds_stats.h>

#include "rds_eth.h"		/* RDS_ETH_F_* frame types */
#include "rdma_common.h"
#include "rdma_eth.h"

#define SENTINEL 0xDEADBEEFCAFEF00DULL
#define REGION_PAGES 256	/* 1 MiB: the largest region */
#define CANARY 0xC5
#define GAP 16
#define MAX_OPS 64
#define GONE_PORT 4001

enum kind { K_READ, K_WRITE, K_FADD, K_CSWP };

static const char *const kind_name[] = { "READ", "WRITE", "FADD", "CSWP" };

struct op {
	enum kind kind;
	size_t bytes;
	uint64_t remote;	/* offset in the region */
	uint8_t *buf;		/* GAP canaries, bytes, GAP canaries */
	uint8_t *want;		/* READ: the region's bytes; WRITE: ours */
	uint64_t token;
	uint64_t result;	/* atomics */
	uint64_t cswp_new;
	int status;		/* -1: none yet */
	unsigned int nstatus;
	unsigned int nmsg;
};

struct ctx {
	struct rdma_env env;
	struct rdma_guard g;
	uint8_t *before;	/* the region before */
	uint64_t cookie;
	struct op ops[MAX_OPS];
	unsigned int n;
};

static bool
ctx_up(struct ctx *cx)
{
	struct rdma_rx rx;
	char b[16];

	memset(cx, 0, sizeof(*cx));
	if (!rdma_tr_is("eth")) {
		printf("  this suite runs over eth only\n");
		return false;
	}
	if (rdma_env_up(&cx->env) != 0)
		return false;
	if (rdma_guard_alloc(&cx->g, REGION_PAGES) != 0)
		goto fail;
	rds_test_fill(cx->g.pages, cx->g.len, 0xFA17);
	cx->before = malloc(cx->g.len);
	if (cx->before == NULL)
		goto fail;
	if (rdma_get_mr(cx->env.cli, cx->g.pages, cx->g.len,
			RDS_RDMA_READWRITE, &cx->cookie) != 0 ||
	    rdma_send_dest(cx->env.cli, &cx->env.sa, "REQ", 3,
			   cx->cookie) != 3 ||
	    !rdma_wait_msg(cx->env.srv, b, sizeof(b), 5000, &rx, NULL, NULL,
			   0) || rx.dest != cx->cookie) {
		printf("  cookie exchange failed\n");
		goto fail;
	}
	return true;
fail:
	free(cx->before);
	rdma_guard_free(&cx->g);
	rdma_env_down(&cx->env);
	return false;
}

static void
ctx_down(struct ctx *cx)
{
	unsigned int i;

	rdma_env_down(&cx->env);
	for (i = 0; i < cx->n; i++) {
		free(cx->ops[i].buf);
		free(cx->ops[i].want);
	}
	free(cx->before);
	rdma_guard_free(&cx->g);
}

/* A new operation (its buffers made, not sent). */
static struct op *
op_new(struct ctx *cx, enum kind k, size_t bytes, uint64_t remote)
{
	struct op *o = &cx->ops[cx->n];
	unsigned int i = cx->n++;

	CU_ASSERT_FATAL(i < MAX_OPS);
	memset(o, 0, sizeof(*o));
	o->kind = k;
	o->bytes = k >= K_FADD ? 8 : bytes;
	o->remote = remote;
	o->token = 0x7A0000ULL + i;
	o->result = SENTINEL;
	o->status = -1;
	if (k == K_READ || k == K_WRITE) {
		o->buf = malloc(o->bytes + 2 * GAP);
		o->want = malloc(o->bytes);
		CU_ASSERT_FATAL(o->buf != NULL && o->want != NULL);
		memset(o->buf, CANARY, o->bytes + 2 * GAP);
		if (k == K_WRITE) {
			rds_test_fill(o->buf + GAP, o->bytes, 0x3000 + i);
			memcpy(o->want, o->buf + GAP, o->bytes);
		} else {
			memset(o->buf + GAP, 0x5A, o->bytes);
		}
	}
	return o;
}

/* Send operation o from the server to to (payload "OP <i>"). */
static bool
op_send(struct ctx *cx, struct op *o, const struct sockaddr_in *to,
	uint64_t cookie)
{
	unsigned int i = (unsigned int)(o - cx->ops);
	char msg[32];
	ssize_t r;

	snprintf(msg, sizeof(msg), "OP %u", i);
	if (o->kind == K_READ || o->kind == K_WRITE) {
		struct rds_iovec iov = {
			(uint64_t)(uintptr_t)(o->buf + GAP), o->bytes };
		struct rds_rdma_args a;

		if (o->kind == K_READ)
			memcpy(o->want, cx->g.pages + o->remote, o->bytes);
		memset(&a, 0, sizeof(a));
		a.cookie = cookie;
		a.remote_vec.addr = o->remote;
		a.remote_vec.bytes = o->bytes;
		a.local_vec_addr = (uint64_t)(uintptr_t)&iov;
		a.nr_local = 1;
		a.flags = RDS_RDMA_NOTIFY_ME |
			  (o->kind == K_WRITE ? RDS_RDMA_READWRITE : 0);
		a.user_token = o->token;
		r = rdma_send_args(cx->env.srv, to, msg, strlen(msg), &a);
	} else {
		struct rds_atomic_args a;

		memset(&a, 0, sizeof(a));
		a.cookie = cookie;
		a.local_addr = (uint64_t)(uintptr_t)&o->result;
		a.remote_addr = o->remote;
		if (o->kind == K_FADD) {
			a.fadd.add = 1;
		} else {
			memcpy(&a.cswp.compare, cx->g.pages + o->remote, 8);
			a.cswp.swap = o->cswp_new;
		}
		a.flags = RDS_RDMA_NOTIFY_ME;
		a.user_token = o->token;
		r = rdma_send_atomic(cx->env.srv, to, msg, strlen(msg),
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

/* Take the server's notifications (polling up to timeout_ms, until want
 * operations have one, or with want 0 until quiet) into the ops. Returns
 * the number taken; unknown tokens count as failures in *bad. */
static unsigned int
take_notes(struct ctx *cx, unsigned int want, unsigned int timeout_ms,
	   unsigned int *bad)
{
	static struct rds_rdma_notify nt[4 * MAX_OPS];
	unsigned int nnt, j, k, have = 0;

	for (k = 0; k < cx->n; k++)
		if (cx->ops[k].nstatus != 0)
			have++;
	nnt = rdma_collect(cx->env.srv, nt, RTE_DIM(nt),
			   want > have ? want - have : 0, 100, timeout_ms,
			   4096, NULL);
	for (j = 0; j < nnt && j < RTE_DIM(nt); j++) {
		k = (unsigned int)(nt[j].user_token - 0x7A0000ULL);
		if (k >= cx->n) {
			printf("  unknown token %#llx\n",
			       (unsigned long long)nt[j].user_token);
			(*bad)++;
			continue;
		}
		cx->ops[k].nstatus++;
		cx->ops[k].status = nt[j].status;
	}
	return nnt;
}

/* Take the client's messages ("OP <i>") into the ops. */
static void
take_msgs(struct ctx *cx, unsigned int timeout_ms, unsigned int *bad)
{
	struct rdma_rx rx;
	unsigned int i;
	char b[64];

	while (rdma_wait_msg(cx->env.cli, b, sizeof(b) - 1, timeout_ms, &rx,
			     NULL, NULL, 0)) {
		b[rx.ret] = '\0';
		if (sscanf(b, "OP %u", &i) != 1 || i >= cx->n) {
			printf("  client got '%s'\n", b);
			(*bad)++;
			continue;
		}
		cx->ops[i].nmsg++;
	}
}

static bool
canaries_ok(const struct op *o)
{
	size_t k;

	for (k = 0; k < GAP; k++)
		if (o->buf[k] != CANARY || o->buf[GAP + o->bytes + k] != CANARY)
			return false;
	return true;
}

/*
 * Check every operation: one status, SUCCESS (or DROPPED when
 * may_drop); the effects of the successful ones, none of the others;
 * one message per SUCCESS. counter: the FADDs' word. Returns failures.
 */
static unsigned int
check_ops(struct ctx *cx, const uint64_t *counter, bool may_drop,
	  const char *what)
{
	unsigned int i, fails = 0, nfadd = 0;
	uint8_t olds[MAX_OPS] = { 0 };

	for (i = 0; i < cx->n; i++) {
		struct op *o = &cx->ops[i];
		bool ok = o->status == RDS_RDMA_SUCCESS;
		const uint8_t *r = cx->g.pages + o->remote;
		bool ran_ok = true;

		if (o->nstatus != 1 ||
		    !(ok || (may_drop && o->status == RDS_RDMA_DROPPED))) {
			printf("  %s: op %u (%s %zu B) %u statuses, last %d\n",
			       what, i, kind_name[o->kind], o->bytes,
			       o->nstatus, o->status);
			fails++;
		}
		switch (o->kind) {
		case K_READ:
			if (ok)
				ran_ok = memcmp(o->buf + GAP, o->want,
						o->bytes) == 0;
			else
				ran_ok = o->buf[GAP] == 0x5A &&
					 memcmp(o->buf + GAP, o->buf + GAP + 1,
						o->bytes - 1) == 0;
			ran_ok = ran_ok && canaries_ok(o);
			break;
		case K_WRITE:
			ran_ok = memcmp(r, ok ? o->want : cx->before + o->remote,
					o->bytes) == 0 && canaries_ok(o);
			break;
		case K_FADD:
			if (ok) {
				nfadd++;
				ran_ok = o->result < cx->n &&
					 olds[o->result]++ == 0;
			} else {
				ran_ok = o->result == SENTINEL;
			}
			break;
		default:
			ran_ok = ok ? (o->result == *(const uint64_t *)
				       (const void *)(cx->before + o->remote) &&
				       *(const uint64_t *)(const void *)r ==
				       o->cswp_new) :
				     (o->result == SENTINEL &&
				      memcmp(r, cx->before + o->remote, 8) == 0);
			break;
		}
		if (!ran_ok) {
			printf("  %s: op %u (%s %zu B at %" PRIu64 ", status "
			       "%d): wrong effect\n", what, i,
			       kind_name[o->kind], o->bytes, o->remote,
			       o->status);
			fails++;
		}
		if (o->nmsg != (ok ? 1u : 0u)) {
			printf("  %s: op %u (status %d): %u messages\n", what,
			       i, o->status, o->nmsg);
			fails++;
		}
	}
	if (counter != NULL && *counter != nfadd) {
		printf("  %s: counter %" PRIu64 ", successful FADDs %u\n",
		       what, *counter, nfadd);
		fails++;
	}
	return fails;
}

/* ------------------------------------------------------------------ */

struct resets {
	unsigned int every, polls, injected;
};

static void
resets_hook(void *arg)
{
	struct resets *h = arg;

	rdma_eth_sniff();
	if (++h->polls % h->every != 0)
		return;
	if (rdma_eth_inject_reset((h->injected & 1) ? rdma_ip(1) : rdma_ip(2),
				  (h->injected & 1) ? rdma_ip(2) : rdma_ip(1))
	    == 0)
		h->injected++;
}

static void
faults_case(const struct rte_rds_eth_faults *f, unsigned int reset_every,
	    const char *what)
{
	static const size_t sizes[] = { 1, 100, 1500, 4096, 9000, 65536,
					100000 };
	struct resets hook = { .every = reset_every };
	struct rte_rds_eth_stats e0, e1;
	struct rte_rds_stats s0, s1;
	unsigned int i, bad = 0, r, nfadd = 0;
	uint64_t off = 4096, *counter;
	struct ctx cx;

	if (!ctx_up(&cx)) {
		CU_FAIL("set-up");
		return;
	}
	counter = (uint64_t *)(void *)cx.g.pages;
	*counter = 0;
	/* READs and WRITEs on slices of their own, atomics on words of the
	 * first page. */
	for (r = 0; r < 2; r++) {
		for (i = 0; i < RTE_DIM(sizes); i++) {
			op_new(&cx, K_READ, sizes[i], off);
			off += sizes[i] + 64;
			op_new(&cx, K_WRITE, sizes[i], off);
			off += sizes[i] + 64;
			op_new(&cx, K_FADD, 8, 0);
			nfadd++;
			if (i % 2 == 0) {
				struct op *o = op_new(&cx, K_CSWP, 8,
						      8 * (1 + cx.n));

				o->cswp_new = 0xC5C50000ULL + cx.n;
			}
		}
	}
	CU_ASSERT_FATAL(off <= cx.g.len);
	memcpy(cx.before, cx.g.pages, cx.g.len);
	s0 = rds_test_stats();
	CU_ASSERT(rte_rds_eth_stats_get(&e0) == 0);
	CU_ASSERT(rte_rds_eth_set_faults(f) == 0);
	if (reset_every != 0)
		rdma_set_poll_hook(resets_hook, &hook);
	for (i = 0; i < cx.n; i++) {
		CU_ASSERT(op_send(&cx, &cx.ops[i], &cx.env.ca, cx.cookie));
		if (i % 5 == 4)
			rdma_pump(2);
	}
	take_notes(&cx, cx.n, 60000, &bad);
	take_msgs(&cx, 200, &bad);
	CU_ASSERT(rte_rds_eth_stats_get(&e1) == 0);
	s1 = rds_test_stats();
	rdma_set_poll_hook(NULL, NULL);
	CU_ASSERT(rte_rds_eth_set_faults(NULL) == 0);
	/* Nothing more comes. */
	take_notes(&cx, 0, 3000, &bad);
	take_msgs(&cx, 100, &bad);
	printf("  %s: %u ops; frames dropped %" PRIu64 ", duplicated %"
	       PRIu64 ", reordered %" PRIu64 ", corrupted %" PRIu64
	       ", retransmitted %" PRIu64 "; resets %" PRIu64 " (%u "
	       "injected); RDMA run %" PRIu64 "\n", what, cx.n,
	       e1.fault_dropped - e0.fault_dropped,
	       e1.fault_duplicated - e0.fault_duplicated,
	       e1.fault_reordered - e0.fault_reordered,
	       e1.fault_corrupted - e0.fault_corrupted,
	       e1.rexmit_fast + e1.rexmit_timeout - e0.rexmit_fast -
	       e0.rexmit_timeout, s1.s_conn_reset - s0.s_conn_reset,
	       hook.injected, e1.rdma_exec - e0.rdma_exec);
	CU_ASSERT(f->drop_ppm == 0 || e1.fault_dropped > e0.fault_dropped);
	CU_ASSERT(f->dup_ppm == 0 ||
		  e1.fault_duplicated > e0.fault_duplicated);
	CU_ASSERT(f->reorder_ppm == 0 ||
		  e1.fault_reordered > e0.fault_reordered);
	CU_ASSERT(f->corrupt_ppm == 0 ||
		  e1.fault_corrupted > e0.fault_corrupted);
	CU_ASSERT(f->drop_ppm == 0 ||
		  e1.rexmit_fast + e1.rexmit_timeout >
		  e0.rexmit_fast + e0.rexmit_timeout);
	CU_ASSERT(reset_every == 0 ||
		  (hook.injected > 0 && s1.s_conn_reset > s0.s_conn_reset));
	CU_ASSERT(reset_every != 0 || s1.s_conn_reset == s0.s_conn_reset);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(check_ops(&cx, counter, reset_every != 0, what), 0);
	/* The target ran each at most once. */
	CU_ASSERT(e1.rdma_exec - e0.rdma_exec <= cx.n);
	ctx_down(&cx);
}

static void
test_faults(void)
{
	struct rte_rds_eth_faults f = {
		.drop_ppm = 50000, .dup_ppm = 20000, .reorder_ppm = 50000,
		.reorder_depth = 8, .corrupt_ppm = 10000, .seed = 41,
	};

	rds_test_watchdog(240, "faults");
	faults_case(&f, 0, "drop 5 %, dup 2 %, reorder 5 %, corrupt 1 %");
	memset(&f, 0, sizeof(f));
	f.drop_ppm = 200000;
	f.seed = 42;
	faults_case(&f, 0, "drop 20 %");
	rds_test_watchdog(0, NULL);
}

static void
test_faults_resets(void)
{
	struct rte_rds_eth_faults f = {
		.drop_ppm = 20000, .dup_ppm = 10000, .reorder_ppm = 20000,
		.reorder_depth = 4, .corrupt_ppm = 5000, .seed = 43,
	};

	rds_test_watchdog(240, "faults_resets");
	faults_case(&f, 5, "faults and a reset every 5 polls");
	f.seed = 44;
	faults_case(&f, 13, "faults and a reset every 13 polls");
	rds_test_watchdog(0, NULL);
}

/* ------------------------------------------------------------------ */

/* A 1 MiB READ; when its answer is half way, reset the stream of
 * stream_of (its peer: the other address). */
static void
reset_answer(unsigned int stream_of)
{
	unsigned int peer = stream_of == 1 ? 2 : 1, bad = 0, k;
	uint64_t r0, r1;
	struct rte_rds_stats s0, s1;
	struct ctx cx;
	bool reset = false;

	CU_ASSERT_FATAL(ctx_up(&cx));
	op_new(&cx, K_READ, cx.g.len, 0);
	memcpy(cx.before, cx.g.pages, cx.g.len);
	s0 = rds_test_stats();
	/* Frames counted to the end (roughly: the engine polls both ports
	 * in a pass, so some go from one to the other unseen). */
	rdma_set_poll_hook(rdma_eth_sniff_hook, NULL);
	rdma_eth_sniff();
	r0 = rdma_eth_seen(rdma_ip(1), rdma_ip(2), RDS_ETH_F_RDMA_RESP);
	CU_ASSERT(op_send(&cx, &cx.ops[0], &cx.env.ca, cx.cookie));
	for (k = 0; k < 100000 && !reset; k++) {
		rdma_kick();
		r1 = rdma_eth_seen(rdma_ip(1), rdma_ip(2),
				   RDS_ETH_F_RDMA_RESP);
		if (r1 - r0 >= 20) {
			CU_ASSERT(rdma_eth_inject_reset(rdma_ip(stream_of),
							rdma_ip(peer)) == 0);
			reset = true;
		}
	}
	CU_ASSERT(reset);
	take_notes(&cx, 1, 10000, &bad);
	take_msgs(&cx, 200, &bad);
	take_notes(&cx, 0, 2000, &bad);
	s1 = rds_test_stats();
	r1 = rdma_eth_seen(rdma_ip(1), rdma_ip(2), RDS_ETH_F_RDMA_RESP);
	printf("  reset of address %u's stream: %" PRIu64 " answer frames seen, "
	       "%" PRIu64 " resets, status %d\n", stream_of, r1 - r0,
	       s1.s_conn_reset - s0.s_conn_reset, cx.ops[0].status);
	CU_ASSERT(s1.s_conn_reset > s0.s_conn_reset);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(check_ops(&cx, NULL, false, "reset_answer"), 0);
	ctx_down(&cx);
}

static void
test_reset_answer_initiator(void)
{
	rds_test_watchdog(120, "reset_answer_initiator");
	reset_answer(2);
	rds_test_watchdog(0, NULL);
}

static void
test_reset_answer_target(void)
{
	rds_test_watchdog(120, "reset_answer_target");
	reset_answer(1);
	rds_test_watchdog(0, NULL);
}

/* A FADD's message lost on the wire, then the server's stream resets. */
static void
test_reset_message(void)
{
	unsigned int bad = 0, k;
	uint64_t *counter;
	struct rte_rds_stats s0, s1;
	struct ctx cx;
	bool reset = false;

	rds_test_watchdog(60, "reset_message");
	CU_ASSERT_FATAL(ctx_up(&cx));
	counter = (uint64_t *)(void *)cx.g.pages;
	*counter = 0;
	op_new(&cx, K_FADD, 8, 0);
	memcpy(cx.before, cx.g.pages, cx.g.len);
	s0 = rds_test_stats();
	/* The message: an RDS frame with a payload ("OP 0"), from the
	 * server to the client. */
	rdma_eth_steal_from(rdma_ip(2), rdma_ip(1), RDS_ETH_F_DATA,
			    RDS_HEADER_SIZE + 4, RDS_HEADER_SIZE + 4);
	CU_ASSERT(op_send(&cx, &cx.ops[0], &cx.env.ca, cx.cookie));
	for (k = 0; k < 100000 && !reset; k++) {
		rdma_kick();
		rdma_eth_sniff();
		if (rdma_eth_stolen() > 0) {
			rdma_eth_steal_from(NULL, NULL, 0, 0, 0);
			CU_ASSERT(rdma_eth_inject_reset(rdma_ip(2),
							rdma_ip(1)) == 0);
			reset = true;
		}
	}
	CU_ASSERT(reset);
	take_notes(&cx, 1, 5000, &bad);
	take_msgs(&cx, 500, &bad);
	take_notes(&cx, 0, 1000, &bad);
	s1 = rds_test_stats();
	printf("  message lost, reset: %" PRIu64 " resets, status %d, %u "
	       "message(s)\n", s1.s_conn_reset - s0.s_conn_reset,
	       cx.ops[0].status, cx.ops[0].nmsg);
	CU_ASSERT(s1.s_conn_reset > s0.s_conn_reset);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(check_ops(&cx, counter, false, "reset_message"), 0);
	ctx_down(&cx);
	rds_test_watchdog(0, NULL);
}

/* A window of 8 frames of 508 bytes (MTU 576): the congestion map sent
 * at connect (17 frames) never fits in it at once; nor do the larger
 * operations and their answers. */
static void
test_small_window(void)
{
	static const size_t sizes[] = { 1, 508, 4096, 65536, 300000 };
	unsigned int i, bad = 0;
	uint64_t off = 4096, *counter;
	struct ctx cx;

	rds_test_watchdog(120, "small_window");
	rdma_eth_set_opts("window=8,mtu=576");
	CU_ASSERT_FATAL(ctx_up(&cx));
	counter = (uint64_t *)(void *)cx.g.pages;
	*counter = 0;
	for (i = 0; i < RTE_DIM(sizes); i++) {
		op_new(&cx, K_READ, sizes[i], off);
		off += sizes[i] + 64;
		op_new(&cx, K_WRITE, sizes[i], off);
		off += sizes[i] + 64;
		op_new(&cx, K_FADD, 8, 0);
	}
	memcpy(cx.before, cx.g.pages, cx.g.len);
	for (i = 0; i < cx.n; i++)
		CU_ASSERT(op_send(&cx, &cx.ops[i], &cx.env.ca, cx.cookie));
	take_notes(&cx, cx.n, 30000, &bad);
	take_msgs(&cx, 200, &bad);
	take_notes(&cx, 0, 500, &bad);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(check_ops(&cx, counter, false, "small_window"), 0);
	ctx_down(&cx);
	rds_test_watchdog(0, NULL);
}

/* ------------------------------------------------------------------ */
/* Peers that are gone */

/* Wait (polling) until op has a status or timeout_ms passed. */
static bool
wait_status(struct ctx *cx, struct op *o, unsigned int timeout_ms,
	    unsigned int *bad)
{
	uint64_t t0 = rds_test_now_ns();

	while (o->nstatus == 0 &&
	       (rds_test_now_ns() - t0) / 1000000 < timeout_ms)
		take_notes(cx, 0, 5, bad);
	return o->nstatus != 0;
}

static void
test_gone(void)
{
	struct sockaddr_in gone = rds_test_sin(RDMA_ETH_GONE_IP, GONE_PORT);
	struct rte_rds_eth_stats e0, e1;
	struct rte_rds_stats s0, s1;
	unsigned int i, bad = 0, first;
	struct ctx cx;
	uint64_t t0, g0;
	double secs;

	rds_test_watchdog(120, "gone");
	/* A window that takes the congestion map and the first frames of
	 * a request, whatever RDS_TEST_ETH_OPTS says (a map larger than
	 * the window never leaves for a peer that is gone: what is behind
	 * it stays queued, as gone_dark). */
	rdma_eth_set_opts("window=128,dead_after=4,rto_max_us=10000");
	CU_ASSERT_FATAL(ctx_up(&cx));
	s0 = rds_test_stats();
	CU_ASSERT(rte_rds_eth_stats_get(&e0) == 0);
	memcpy(cx.before, cx.g.pages, cx.g.len);
	/* Three to the gone address (the WRITE's request does not fit in
	 * the window: in flight from its first frame), one to the client
	 * behind them (another connection: not held up). */
	op_new(&cx, K_READ, 3000, 0);
	op_new(&cx, K_WRITE, 300000, 0);
	op_new(&cx, K_FADD, 8, 0);
	op_new(&cx, K_FADD, 8, 8);
	t0 = rds_test_now_ns();
	for (i = 0; i < 3; i++)
		CU_ASSERT(op_send(&cx, &cx.ops[i], &gone, 0x1234));
	CU_ASSERT(op_send(&cx, &cx.ops[3], &cx.env.ca, cx.cookie));
	CU_ASSERT(wait_status(&cx, &cx.ops[3], 5000, &bad));
	CU_ASSERT_EQUAL(cx.ops[3].status, RDS_RDMA_SUCCESS);
	CU_ASSERT(cx.ops[0].nstatus == 0);	/* still trying */
	for (i = 0; i < 3; i++)
		CU_ASSERT(wait_status(&cx, &cx.ops[i], 10000, &bad));
	secs = rds_test_since_s(t0);
	take_msgs(&cx, 100, &bad);
	CU_ASSERT(rte_rds_eth_stats_get(&e1) == 0);
	s1 = rds_test_stats();
	printf("  3 operations to a gone peer: statuses %d %d %d after %.3f "
	       "s; resets %" PRIu64 ", unresponsive %" PRIu64 "\n",
	       cx.ops[0].status, cx.ops[1].status, cx.ops[2].status, secs,
	       s1.s_conn_reset - s0.s_conn_reset,
	       e1.peer_unresponsive - e0.peer_unresponsive);
	for (i = 0; i < 3; i++) {
		struct op *o = &cx.ops[i];

		CU_ASSERT_EQUAL(o->nstatus, 1);
		CU_ASSERT_EQUAL(o->status, RDS_RDMA_OTHER_ERROR);
		CU_ASSERT_EQUAL(o->nmsg, 0);
		CU_ASSERT(o->kind != K_FADD || o->result == SENTINEL);
		CU_ASSERT(o->kind != K_READ ||
			  (o->buf[GAP] == 0x5A && canaries_ok(o)));
	}
	CU_ASSERT_EQUAL(cx.ops[3].nmsg, 1);
	CU_ASSERT(secs < 10.0);
	CU_ASSERT(s1.s_conn_reset > s0.s_conn_reset);
	CU_ASSERT(e1.peer_unresponsive > e0.peer_unresponsive);

	/* Queued and cancelled at once: CANCELED, each once. */
	first = cx.n;
	for (i = 0; i < 4; i++)
		CU_ASSERT(op_send(&cx, op_new(&cx, i % 2 ? K_FADD : K_READ,
					      500, 0), &gone, 0x1234));
	CU_ASSERT(rte_rds_setsockopt(cx.env.srv, SOL_RDS, RDS_CANCEL_SENT_TO,
				     &gone, sizeof(gone)) == 0);
	take_notes(&cx, cx.n, 3000, &bad);
	for (i = first; i < cx.n; i++) {
		CU_ASSERT_EQUAL(cx.ops[i].nstatus, 1);
		CU_ASSERT_EQUAL(cx.ops[i].status, RDS_RDMA_CANCELED);
	}
	/* One in flight and one queued behind it: the cancel takes the
	 * queued one; the one in flight goes on, and ends OTHER_ERROR. */
	first = cx.n;
	CU_ASSERT(op_send(&cx, op_new(&cx, K_FADD, 8, 0), &gone, 0x1234));
	CU_ASSERT(op_send(&cx, op_new(&cx, K_FADD, 8, 0), &gone, 0x1234));
	g0 = rdma_eth_seen(rdma_ip(2), RDMA_ETH_GONE_IP, RDS_ETH_F_RDMA_REQ);
	for (i = 0; i < 100000 &&
	     rdma_eth_seen(rdma_ip(2), RDMA_ETH_GONE_IP,
			   RDS_ETH_F_RDMA_REQ) == g0; i++) {
		rdma_kick();
		rdma_eth_sniff();
	}
	CU_ASSERT(rte_rds_setsockopt(cx.env.srv, SOL_RDS, RDS_CANCEL_SENT_TO,
				     &gone, sizeof(gone)) == 0);
	CU_ASSERT(wait_status(&cx, &cx.ops[first], 10000, &bad));
	take_notes(&cx, 0, 500, &bad);
	CU_ASSERT_EQUAL(cx.ops[first].nstatus, 1);
	CU_ASSERT_EQUAL(cx.ops[first].status, RDS_RDMA_OTHER_ERROR);
	CU_ASSERT_EQUAL(cx.ops[first + 1].nstatus, 1);
	CU_ASSERT_EQUAL(cx.ops[first + 1].status, RDS_RDMA_CANCELED);
	CU_ASSERT_EQUAL(bad, 0);
	/* Nothing ran anywhere. */
	CU_ASSERT(memcmp(cx.g.pages + 16, cx.before + 16,
			 cx.g.len - 16) == 0);
	/* The server's socket closed while an operation is in flight, then
	 * the library shut down: nothing hangs. */
	CU_ASSERT(op_send(&cx, op_new(&cx, K_READ, 100, 0), &gone, 0x1234));
	rdma_pump(50);
	CU_ASSERT_EQUAL(rte_rds_close(cx.env.srv), 0);
	cx.env.srv = -1;
	rdma_pump(50);
	ctx_down(&cx);
	rds_test_watchdog(0, NULL);
}

/* The client takes the request and runs it; its answers never arrive. */
static void
test_gone_after_ack(void)
{
	unsigned int bad = 0;
	uint64_t *counter;
	struct ctx cx;
	uint64_t t0;

	rds_test_watchdog(60, "gone_after_ack");
	rdma_eth_set_opts("dead_after=4,rto_max_us=10000");
	CU_ASSERT_FATAL(ctx_up(&cx));
	counter = (uint64_t *)(void *)cx.g.pages;
	*counter = 0;
	memcpy(cx.before, cx.g.pages, cx.g.len);
	rdma_set_poll_hook(rdma_eth_sniff_hook, NULL);
	rdma_eth_steal_from(rdma_ip(1), rdma_ip(2), RDS_ETH_F_RDMA_RESP, 0,
			    UINT16_MAX);
	op_new(&cx, K_FADD, 8, 0);
	t0 = rds_test_now_ns();
	CU_ASSERT(op_send(&cx, &cx.ops[0], &cx.env.ca, cx.cookie));
	CU_ASSERT(wait_status(&cx, &cx.ops[0], 10000, &bad));
	printf("  answers lost: status %d after %.3f s, counter %" PRIu64
	       ", %" PRIu64 " answer frames taken\n", cx.ops[0].status,
	       rds_test_since_s(t0), *counter, rdma_eth_stolen());
	CU_ASSERT_EQUAL(cx.ops[0].status, RDS_RDMA_OTHER_ERROR);
	CU_ASSERT(rdma_eth_stolen() > 0);
	/* It ran there, once; not here. */
	CU_ASSERT_EQUAL(*counter, 1);
	CU_ASSERT_EQUAL(cx.ops[0].result, SENTINEL);
	/* The wire heals: the next one succeeds, the first never runs
	 * again nor reports again. */
	rdma_eth_steal_from(NULL, NULL, 0, 0, 0);
	op_new(&cx, K_FADD, 8, 0);
	CU_ASSERT(op_send(&cx, &cx.ops[1], &cx.env.ca, cx.cookie));
	CU_ASSERT(wait_status(&cx, &cx.ops[1], 10000, &bad));
	take_msgs(&cx, 200, &bad);
	take_notes(&cx, 0, 1000, &bad);
	CU_ASSERT_EQUAL(cx.ops[1].status, RDS_RDMA_SUCCESS);
	CU_ASSERT_EQUAL(cx.ops[1].result, 1);
	CU_ASSERT_EQUAL(*counter, 2);
	CU_ASSERT_EQUAL(cx.ops[0].nstatus, 1);
	CU_ASSERT_EQUAL(cx.ops[0].nmsg, 0);
	CU_ASSERT_EQUAL(cx.ops[1].nmsg, 1);
	CU_ASSERT_EQUAL(bad, 0);
	ctx_down(&cx);
	rds_test_watchdog(0, NULL);
}

/* The inline engine not polled for longer than the wait for an answer,
 * with the request out: the answer comes at the next polls, SUCCESS. */
static void
test_pause(void)
{
	unsigned int bad = 0, k;
	uint64_t *counter, q0;
	struct ctx cx;

	rds_test_watchdog(60, "pause");
	rdma_eth_set_opts("dead_after=4,rto_max_us=10000");
	CU_ASSERT_FATAL(ctx_up(&cx));
	counter = (uint64_t *)(void *)cx.g.pages;
	*counter = 0;
	memcpy(cx.before, cx.g.pages, cx.g.len);
	rdma_set_poll_hook(rdma_eth_sniff_hook, NULL);
	op_new(&cx, K_FADD, 8, 0);
	q0 = rdma_eth_seen(rdma_ip(2), rdma_ip(1), RDS_ETH_F_RDMA_REQ);
	CU_ASSERT(op_send(&cx, &cx.ops[0], &cx.env.ca, cx.cookie));
	for (k = 0; k < 1000 && rdma_eth_seen(rdma_ip(2), rdma_ip(1),
					      RDS_ETH_F_RDMA_REQ) == q0; k++)
		rdma_kick();
	CU_ASSERT(rdma_eth_seen(rdma_ip(2), rdma_ip(1),
				RDS_ETH_F_RDMA_REQ) > q0);
	/* Ten times dead_after x rto_max without a poll. */
	rds_test_usleep(400000);
	CU_ASSERT(wait_status(&cx, &cx.ops[0], 5000, &bad));
	take_msgs(&cx, 200, &bad);
	take_notes(&cx, 0, 200, &bad);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(check_ops(&cx, counter, false, "pause"), 0);
	ctx_down(&cx);
	rds_test_watchdog(0, NULL);
}

/* An address nobody answers ARP for. */
static void
test_gone_dark(void)
{
	struct sockaddr_in dark = rds_test_sin(RDMA_ETH_DARK_IP, GONE_PORT);
	struct rte_rds_eth_stats e0, e1;
	unsigned int i, bad = 0;
	struct rdma_rx rx;
	struct ctx cx;
	uint64_t t0;
	char b[16];

	rds_test_watchdog(60, "gone_dark");
	CU_ASSERT_FATAL(ctx_up(&cx));
	CU_ASSERT(rte_rds_eth_stats_get(&e0) == 0);
	memcpy(cx.before, cx.g.pages, cx.g.len);
	for (i = 0; i < 3; i++)
		CU_ASSERT(op_send(&cx, op_new(&cx, (enum kind)i, 200, 0),
				  &dark, 0x1234));
	/* Queued while ARP goes unanswered; the client is served. */
	t0 = rds_test_now_ns();
	while (rds_test_since_s(t0) < 0.3)
		take_notes(&cx, 0, 5, &bad);
	CU_ASSERT(rdma_sendmsg(cx.env.srv, &cx.env.ca, "HI", 2, NULL, 0) == 2);
	CU_ASSERT(rdma_wait_msg(cx.env.cli, b, sizeof(b), 5000, &rx, NULL,
				NULL, 0) && rx.ret == 2);
	CU_ASSERT(rte_rds_eth_stats_get(&e1) == 0);
	printf("  3 operations to an address with no ARP answer: %u, %u, %u "
	       "statuses after 0.3 s; ARP sent %" PRIu64 "\n",
	       cx.ops[0].nstatus, cx.ops[1].nstatus, cx.ops[2].nstatus,
	       e1.arp_tx - e0.arp_tx);
	CU_ASSERT(e1.arp_tx > e0.arp_tx);
	for (i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(cx.ops[i].nstatus, 0);
	CU_ASSERT(rte_rds_setsockopt(cx.env.srv, SOL_RDS, RDS_CANCEL_SENT_TO,
				     &dark, sizeof(dark)) == 0);
	take_notes(&cx, 3, 3000, &bad);
	take_notes(&cx, 0, 500, &bad);
	for (i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(cx.ops[i].nstatus, 1);
		CU_ASSERT_EQUAL(cx.ops[i].status, RDS_RDMA_CANCELED);
		CU_ASSERT(cx.ops[i].result == SENTINEL);
	}
	CU_ASSERT(cx.ops[0].buf[GAP] == 0x5A && canaries_ok(&cx.ops[0]));
	CU_ASSERT(memcmp(cx.g.pages, cx.before, cx.g.len) == 0);
	CU_ASSERT_EQUAL(bad, 0);
	/* Queued again, and the socket closed: nothing hangs. */
	CU_ASSERT(op_send(&cx, op_new(&cx, K_FADD, 8, 0), &dark, 0x1234));
	rdma_pump(20);
	CU_ASSERT_EQUAL(rte_rds_close(cx.env.srv), 0);
	cx.env.srv = -1;
	rdma_pump(20);
	ctx_down(&cx);
	rds_test_watchdog(0, NULL);
}

int
main(int argc, char **argv)
{
	static const struct rds_test_case cases[] = {
		{ "faults", test_faults },
		{ "faults_resets", test_faults_resets },
		{ "reset_answer_initiator", test_reset_answer_initiator },
		{ "reset_answer_target", test_reset_answer_target },
		{ "reset_message", test_reset_message },
		{ "small_window", test_small_window },
		{ "gone", test_gone },
		{ "gone_after_ack", test_gone_after_ack },
		{ "gone_dark", test_gone_dark },
		{ "pause", test_pause },
		{ NULL, NULL },
	};

	/* eth unless told otherwise (and then every test fails). */
	rdma_transport_select("eth");
	return rdma_main(argc, argv, "rdma_faults", cases);
}

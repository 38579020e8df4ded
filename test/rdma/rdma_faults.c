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

#include "rdma_faults.h"

#define REGION_PAGES 256	/* 1 MiB: the largest region */
#define CANARY 0xC5


static const char *const kind_name[] = { "READ", "WRITE", "FADD", "CSWP" };



bool
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

void
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
struct op *
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
bool
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

/* The eth connections' state, printed when operations wait in vain (what
 * a stall looks like, for the log). */
static void
dump_eth_conns(void)
{
	struct rte_rds_info_eth_connection r[8];
	socklen_t len = sizeof(r);
	unsigned int i;

	struct rte_rds_eth_stats st;

	if (rte_rds_eth_stats_get(&st) == 0)
		printf("  eth: tx %" PRIu64 " no_mbuf %" PRIu64 " full %"
		       PRIu64 " rx %" PRIu64 " short %" PRIu64 " crc %" PRIu64
		       " len %" PRIu64 " stale %" PRIu64 " dup %" PRIu64
		       " ooo %" PRIu64 " beyond %" PRIu64 " bad_unit %" PRIu64
		       " ack_tx %" PRIu64 " ack_rx %" PRIu64 " rexmit_to %"
		       PRIu64 " probe %" PRIu64 " no_conn %" PRIu64 "\n",
		       st.tx_frames, st.tx_no_mbuf, st.tx_full, st.rx_frames,
		       st.rx_drop_short, st.rx_drop_crc, st.rx_drop_len,
		       st.rx_drop_stale, st.rx_dup, st.rx_ooo,
		       st.rx_beyond_window, st.rx_bad_unit, st.ack_tx,
		       st.ack_rx, st.rexmit_timeout, st.rexmit_probe,
		       st.rx_drop_no_conn);
	if (rte_rds_info(RTE_RDS_INFO_ETH_CONNECTIONS, r, &len) < 0)
		return;
	for (i = 0; i < len / sizeof(r[0]); i++)
		printf("  eth conn %u: epoch %08x peer %08x%s snd_una %u "
		       "snd_nxt %u peer_wnd %u cwnd %u rcv_nxt %u ooo %u "
		       "timeouts %u rto %" PRIu64 " us\n", i, r[i].epoch,
		       r[i].peer_epoch, r[i].unresponsive ? " (dead)" : "",
		       r[i].snd_una, r[i].snd_nxt, r[i].peer_wnd, r[i].cwnd,
		       r[i].rcv_nxt, r[i].rx_out_of_order, r[i].timeouts,
		       r[i].rto_ns / 1000);
}

/* Take the server's notifications (polling up to timeout_ms, until want
 * operations have one, or with want 0 until quiet) into the ops. Returns
 * the number taken; unknown tokens count as failures in *bad. */
unsigned int
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
	if (want > have + nnt) {
		printf("  %u of %u notifications after %u ms\n", have + nnt,
		       want, timeout_ms);
		dump_eth_conns();
		for (j = 0; j < 2000; j++) {
			rdma_pump(1);
			rte_delay_us_sleep(1000);
		}
		printf("  2,000 polls later:\n");
		dump_eth_conns();
	}
	return nnt;
}

/* Take the client's messages ("OP <i>") into the ops. */
void
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

bool
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
unsigned int
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

/* A case's start: its watchdog, the eth options (opts; NULL: as they
 * are), the context up, the counter (the client's first word) at 0. */
uint64_t *
case_up(struct ctx *cx, unsigned int secs, const char *name,
	const char *opts)
{
	uint64_t *counter;

	rds_test_watchdog(secs, name);
	if (opts != NULL)
		rdma_eth_set_opts(opts);
	CU_ASSERT_FATAL(ctx_up(cx));
	counter = (uint64_t *)(void *)cx->g.pages;
	*counter = 0;
	return counter;
}

/* A case's end: nothing bad seen, every op as it should be (check_ops,
 * none dropped), the context down, the watchdog off. */
void
case_end(struct ctx *cx, const uint64_t *counter, unsigned int bad,
	 const char *what)
{
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(check_ops(cx, counter, false, what), 0);
	ctx_down(cx);
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

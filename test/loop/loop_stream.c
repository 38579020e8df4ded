/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stream test over the loop transport.
 *
 * Four sockets (two on 10.255.0.1, one each on .2 and .3) send
 * RDS_TEST_MSGS messages in all (default 200 000) to one another, every
 * socket to every other, from one thread, non-blocking, in bursts of 1 to
 * 1024 sends per socket per round against receivers that take at most 64
 * per round, so that EAGAIN (send buffer full) and ENOBUFS (receiver
 * congested) happen and are handled by draining and retrying. Sizes are mostly
 * 0..4096 bytes, one in a thousand 64 KiB..1 MiB (so SO_SNDBUF/SO_RCVBUF
 * are raised to 4 MiB, as with the kernel). Each payload starts with
 * (sender, receiver, per-pair sequence), then deterministic bytes; its
 * length is a function of (sender, receiver, sequence) too, so that the
 * receiver knows exactly what must come next.
 *
 * The receiver checks the source address and port, that each pair's
 * sequence is exactly the previous one plus one (nothing lost, duplicated
 * or reordered), and the length; sender and receiver keep a running
 * SHA-256 per (sender, receiver) pair, which must match at the end, with
 * equal counts.
 *
 * Three runs, each with its own rte_rds_init() .. rte_rds_fini():
 *   a) the engine on its own lcore (yielding idle policy),
 *   b) the engine inline, driven by the test thread,
 *   c) inline with loop faults (drop 1 in 500 frames, reset 1 in 2000),
 *      then the counters must show drops, resets, and retransmission or
 *      duplicate drop.
 *
 * RDS_TEST_MSGS=1000000 is the long run.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include <rte_errno.h>
#include <rte_rds.h>
#include <rte_rds_loop.h>

#include "rds_test.h"

#define NSOCK 4
#define HDR_LEN 16
#define SMALL_MAX 4096
#define LARGE_MIN (64u * 1024)
#define LARGE_MAX RTE_RDS_MAX_MSG_SIZE
#define SOCK_BUF (4 * 1024 * 1024)
#define SEND_BATCH_LOG2_MAX 10	/* up to 1024 sends per socket per round */
#define RECV_BATCH 64
#define STALL_S 60
#define SALT 0x5eedf00dcafe1234ULL

static const char *const sock_ip[NSOCK] = {
	RDS_TEST_IP1, RDS_TEST_IP1, RDS_TEST_IP2, RDS_TEST_IP3,
};
static const uint16_t sock_port[NSOCK] = { 4001, 4002, 4003, 4004 };

struct msg_hdr {
	uint32_t src;
	uint32_t dst;
	uint64_t seq;
};

struct tx_state {
	uint64_t rng;
	uint64_t to_send;	/* messages this socket sends */
	uint64_t sent;
	uint64_t seq[NSOCK];	/* next sequence per destination */
	bool pending;		/* buf holds a message not yet accepted */
	unsigned int pdst;
	uint32_t plen;
	uint8_t *buf;
};

struct stream {
	int s[NSOCK];
	struct sockaddr_in addr[NSOCK];
	struct tx_state tx[NSOCK];
	uint64_t rx_next[NSOCK][NSOCK];	/* [src][dst] expected sequence */
	struct rds_test_sha_matrix tx_sha, rx_sha;
	uint8_t *rxbuf;
	uint64_t total, sent, received;
	uint64_t bytes;
	uint64_t eagain, enobufs;
	uint64_t rng;		/* burst sizes */
	bool failed;
};

static uint64_t
msg_key(unsigned int src, unsigned int dst, uint64_t seq)
{
	return rds_test_mix64(((uint64_t)src << 56) ^ ((uint64_t)dst << 48) ^
			      seq ^ SALT);
}

/* Length of message seq from src to dst. */
static uint32_t
msg_len(unsigned int src, unsigned int dst, uint64_t seq)
{
	uint64_t r = msg_key(src, dst, seq);

	if (r % 1000 == 0)
		return LARGE_MIN + (uint32_t)((r >> 16) %
					      (LARGE_MAX - LARGE_MIN + 1));
	return (uint32_t)((r >> 16) % (SMALL_MAX + 1));
}

static void
msg_build(uint8_t *buf, unsigned int src, unsigned int dst, uint64_t seq,
	  uint32_t len)
{
	struct msg_hdr h = { .src = src, .dst = dst, .seq = seq };

	memcpy(buf, &h, RTE_MIN(len, (uint32_t)HDR_LEN));
	if (len > HDR_LEN)
		rds_test_fill(buf + HDR_LEN, len - HDR_LEN,
			      msg_key(src, dst, seq) ^ 0xa5a5a5a5ULL);
}

static void
stream_free(struct stream *st)
{
	unsigned int i;

	for (i = 0; i < NSOCK; i++) {
		if (st->s[i] >= 0 && rte_rds_close(st->s[i]) != 0)
			printf("rte_rds_close(%d): %s\n", st->s[i],
			       rte_strerror(rte_errno));
		free(st->tx[i].buf);
	}
	free(st->rxbuf);
	rds_test_sha_matrix_free(&st->tx_sha);
	rds_test_sha_matrix_free(&st->rx_sha);
	free(st);
}

static struct stream *
stream_new(uint64_t total)
{
	struct stream *st = calloc(1, sizeof(*st));
	unsigned int i;

	if (st == NULL)
		return NULL;
	for (i = 0; i < NSOCK; i++)
		st->s[i] = -1;
	st->total = total;
	st->rng = 0xb0b0b0b0ULL;
	if (rds_test_sha_matrix_init(&st->tx_sha, NSOCK) != 0 ||
	    rds_test_sha_matrix_init(&st->rx_sha, NSOCK) != 0)
		goto fail;
	st->rxbuf = malloc(LARGE_MAX + 1);
	if (st->rxbuf == NULL)
		goto fail;
	for (i = 0; i < NSOCK; i++) {
		struct tx_state *tx = &st->tx[i];

		tx->buf = malloc(LARGE_MAX);
		if (tx->buf == NULL)
			goto fail;
		tx->rng = 0x1234567ULL * (i + 1);
		tx->to_send = total / NSOCK + (i < total % NSOCK ? 1 : 0);
		st->addr[i] = rds_test_sin(sock_ip[i], sock_port[i]);
		st->s[i] = rds_test_socket(sock_ip[i], sock_port[i], SOCK_BUF,
					   SOCK_BUF);
		if (st->s[i] < 0)
			goto fail;
	}
	return st;
fail:
	stream_free(st);
	return NULL;
}

/* Try to send up to burst messages from socket i; returns sent. */
static unsigned int
stream_send(struct stream *st, unsigned int i, unsigned int burst)
{
	struct tx_state *tx = &st->tx[i];
	unsigned int n = 0, d;
	ssize_t r;

	while (n < burst && !st->failed) {
		if (!tx->pending) {
			if (tx->sent == tx->to_send)
				break;
			d = (unsigned int)(rds_test_rand(&tx->rng) %
					   (NSOCK - 1));
			tx->pdst = d >= i ? d + 1 : d;
			tx->plen = msg_len(i, tx->pdst, tx->seq[tx->pdst]);
			msg_build(tx->buf, i, tx->pdst, tx->seq[tx->pdst],
				  tx->plen);
			tx->pending = true;
		}
		r = rds_test_send(st->s[i], tx->buf, tx->plen,
				  &st->addr[tx->pdst], MSG_DONTWAIT);
		if (r < 0) {
			if (rte_errno == EAGAIN) {
				st->eagain++;
				break;
			}
			if (rte_errno == ENOBUFS) {
				st->enobufs++;
				break;
			}
			printf("  FAIL: send %u->%u seq %" PRIu64 " len %u: "
			       "%s\n", i, tx->pdst, tx->seq[tx->pdst],
			       tx->plen, rte_strerror(rte_errno));
			st->failed = true;
			break;
		}
		if ((size_t)r != tx->plen) {
			printf("  FAIL: send %u->%u returned %zd, not %u\n", i,
			       tx->pdst, r, tx->plen);
			st->failed = true;
			break;
		}
		rds_test_sha_matrix_msg(&st->tx_sha, i, tx->pdst, tx->buf,
					tx->plen);
		tx->seq[tx->pdst]++;
		tx->sent++;
		tx->pending = false;
		st->sent++;
		n++;
	}
	return n;
}

static int
sock_index(const struct stream *st, const struct sockaddr_in *from)
{
	unsigned int i;

	for (i = 0; i < NSOCK; i++)
		if (rds_test_sin_eq(&st->addr[i], from))
			return (int)i;
	return -1;
}

/* Check one received message on socket j. */
static void
stream_check(struct stream *st, unsigned int j, const struct sockaddr_in *from,
	     ssize_t r, int mflags)
{
	struct msg_hdr want, got;
	uint64_t seq;
	uint32_t len;
	char a[48];
	int i;

	i = sock_index(st, from);
	if (i < 0) {
		printf("  FAIL: socket %u got %zd bytes from unknown %s\n", j,
		       r, rds_test_sin_str(from, a, sizeof(a)));
		st->failed = true;
		return;
	}
	if (mflags & MSG_TRUNC) {
		printf("  FAIL: socket %u: MSG_TRUNC with a 1 MiB buffer\n", j);
		st->failed = true;
		return;
	}
	seq = st->rx_next[i][j];
	len = msg_len((unsigned int)i, j, seq);
	want = (struct msg_hdr){ .src = (uint32_t)i, .dst = j, .seq = seq };
	if ((uint32_t)r != len ||
	    memcmp(st->rxbuf, &want, RTE_MIN(len, (uint32_t)HDR_LEN)) != 0) {
		memset(&got, 0xff, sizeof(got));
		memcpy(&got, st->rxbuf, RTE_MIN((size_t)r, sizeof(got)));
		printf("  FAIL: pair %d->%u: expected seq %" PRIu64
		       " len %u; got len %zd header (src %u dst %u seq %"
		       PRIu64 ")%s\n", i, j, seq, len, r, got.src, got.dst,
		       got.seq, r < HDR_LEN ? " (short)" : "");
		if (r >= HDR_LEN && got.src == (uint32_t)i && got.dst == j) {
			if (got.seq < seq)
				printf("  -> duplicate or reordered message\n");
			else if (got.seq > seq)
				printf("  -> %" PRIu64 " message(s) lost\n",
				       got.seq - seq);
		}
		st->failed = true;
		return;
	}
	rds_test_sha_matrix_msg(&st->rx_sha, (unsigned int)i, j, st->rxbuf,
				(size_t)r);
	st->rx_next[i][j]++;
	st->received++;
	st->bytes += (uint64_t)r;
}

/* Drain up to RECV_BATCH messages from socket j; returns received. */
static unsigned int
stream_recv(struct stream *st, unsigned int j)
{
	struct sockaddr_in from;
	unsigned int n = 0;
	int mflags = 0;
	ssize_t r;

	while (n < RECV_BATCH && !st->failed) {
		r = rds_test_recv(st->s[j], st->rxbuf, LARGE_MAX + 1, &from,
				  MSG_DONTWAIT, &mflags);
		if (r < 0) {
			if (rte_errno == EAGAIN)
				break;
			printf("  FAIL: recv on socket %u: %s\n", j,
			       rte_strerror(rte_errno));
			st->failed = true;
			break;
		}
		stream_check(st, j, &from, r, mflags);
		n++;
	}
	return n;
}

/* Time limit of one run: far above the expected (~1 s per 200 000). */
static unsigned int
run_limit_s(uint64_t total)
{
	return (unsigned int)(240 + total / 2000);
}

/* Run the stream to completion; false on failure. */
static bool
stream_run(struct stream *st, const char *what)
{
	struct rds_test_deadline dl;
	unsigned int i, progress, burst;
	uint64_t last_report = rds_test_now_ns();

	rds_test_deadline_init(&dl, STALL_S, run_limit_s(st->total));
	while (!st->failed && st->received < st->total) {
		/* Bursts of 1 to 1024 sends per socket against receivers
		 * that take at most RECV_BATCH per round: at times the
		 * senders outrun them, so send buffers fill (EAGAIN) and
		 * receive buffers overflow (ENOBUFS). */
		burst = 1u << (rds_test_rand(&st->rng) %
			       (SEND_BATCH_LOG2_MAX + 1));
		progress = 0;
		for (i = 0; i < NSOCK; i++)
			progress += stream_send(st, i, burst);
		for (i = 0; i < 8 && rds_test_kick() > 0; i++)
			;
		for (i = 0; i < NSOCK; i++)
			progress += stream_recv(st, i);
		if (progress > 0) {
			rds_test_deadline_progress(&dl);
		} else if (rds_test_deadline_expired(&dl, what)) {
			st->failed = true;
			break;
		}
		if (rds_test_now_ns() - last_report > 10000000000ULL) {
			last_report = rds_test_now_ns();
			printf("  ... %s: sent %" PRIu64 ", received %" PRIu64
			       " of %" PRIu64 "\n", what, st->sent,
			       st->received, st->total);
			fflush(stdout);
		}
	}
	if (st->failed) {
		printf("  %s: stopped after sent %" PRIu64 ", received %"
		       PRIu64 " of %" PRIu64 "\n", what, st->sent,
		       st->received, st->total);
		return false;
	}
	return true;
}

/* After the stream: nothing more may arrive (no late duplicates). */
static bool
stream_quiet(struct stream *st)
{
	unsigned int i, k;
	int mflags;
	ssize_t r;
	struct sockaddr_in from;

	for (k = 0; k < 200; k++) {
		rds_test_kick();
		if (k % 20 == 0)
			rds_test_usleep(1000);
		for (i = 0; i < NSOCK; i++) {
			r = rds_test_recv(st->s[i], st->rxbuf, LARGE_MAX + 1,
					  &from, MSG_DONTWAIT, &mflags);
			if (r >= 0) {
				char a[48];

				printf("  FAIL: extra message of %zd bytes on "
				       "socket %u from %s after the stream\n",
				       r, i,
				       rds_test_sin_str(&from, a, sizeof(a)));
				return false;
			}
		}
	}
	return true;
}

/* Compare counts and digests; returns the number of mismatching pairs. */
static unsigned int
stream_verify(struct stream *st)
{
	uint8_t dt[RDS_TEST_SHA_LEN], dr[RDS_TEST_SHA_LEN];
	char ht[65], hr[65];
	unsigned int i, j, bad = 0;
	struct rds_test_sha *ht_, *hr_;

	for (i = 0; i < NSOCK; i++) {
		for (j = 0; j < NSOCK; j++) {
			if (i == j)
				continue;
			ht_ = rds_test_sha_matrix_at(&st->tx_sha, i, j);
			hr_ = rds_test_sha_matrix_at(&st->rx_sha, i, j);
			rds_test_sha_peek(ht_, dt);
			rds_test_sha_peek(hr_, dr);
			if (ht_->msgs != hr_->msgs ||
			    ht_->bytes != hr_->bytes ||
			    memcmp(dt, dr, sizeof(dt)) != 0 ||
			    st->tx[i].seq[j] != st->rx_next[i][j]) {
				printf("  FAIL: pair %u->%u: sent %" PRIu64
				       " msgs %" PRIu64 " B sha %.16s, "
				       "received %" PRIu64 " msgs %" PRIu64
				       " B sha %.16s\n", i, j, ht_->msgs,
				       ht_->bytes, rds_test_sha_hex(dt, ht),
				       hr_->msgs, hr_->bytes,
				       rds_test_sha_hex(dr, hr));
				bad++;
			}
		}
	}
	if (bad == 0) {
		rds_test_sha_peek(rds_test_sha_matrix_at(&st->rx_sha, 0, 2),
				  dr);
		printf("  digests: 12 pairs match (e.g. 0->2: %s)\n",
		       rds_test_sha_hex(dr, hr));
	}
	return bad;
}

enum stream_mode {
	MODE_LCORE,
	MODE_INLINE,
	MODE_FAULTS,
};

static void
stream_test(enum stream_mode mode)
{
	static const char *const names[] = {
		"stream/lcore-engine", "stream/inline-engine",
		"stream/inline-faults",
	};
	const char *what = names[mode];
	uint64_t total = rds_test_env_u64("RDS_TEST_MSGS", 200000);
	struct rte_rds_loop_faults faults;
	struct rte_rds_loop_stats lst;
	struct rte_rds_stats rst;
	struct rte_rds_conf conf;
	struct stream *st;
	uint32_t lcore = RTE_RDS_ENGINE_INLINE;
	uint64_t t0;
	double secs;
	bool ok;

	if (total < NSOCK)
		total = NSOCK;
	if (mode == MODE_LCORE) {
		lcore = rds_test_worker_lcore();
		CU_ASSERT_FATAL(lcore < RTE_MAX_LCORE);
	}
	rds_test_watchdog(run_limit_s(total) + 60, what);
	rds_test_conf(&conf, lcore, RTE_RDS_IDLE_YIELD);
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
	if (mode == MODE_FAULTS) {
		memset(&faults, 0, sizeof(faults));
		faults.drop_one_in = 500;
		faults.reset_one_in = 2000;
		faults.seed = 42;
		CU_ASSERT_FATAL(rte_rds_loop_set_faults(&faults) == 0);
	}
	st = stream_new(total);
	CU_ASSERT_FATAL(st != NULL);

	printf("\n  %s: %" PRIu64 " messages among %d sockets\n", what, total,
	       NSOCK);
	t0 = rds_test_now_ns();
	ok = stream_run(st, what);
	secs = rds_test_since_s(t0);
	CU_ASSERT(ok);
	CU_ASSERT_EQUAL(st->received, total);
	CU_ASSERT_EQUAL(st->sent, total);
	if (ok) {
		CU_ASSERT(stream_quiet(st));
		CU_ASSERT_EQUAL(stream_verify(st), 0);
	}
	printf("  %s: %" PRIu64 " messages, %.1f MB in %.2f s: %.0f msg/s, "
	       "%.1f MB/s (EAGAIN %" PRIu64 ", ENOBUFS %" PRIu64 ")\n", what,
	       st->received, (double)st->bytes / 1e6, secs,
	       (double)st->received / secs, (double)st->bytes / 1e6 / secs,
	       st->eagain, st->enobufs);

	rst = rds_test_stats();
	rds_test_stats_print("  engine counters:", &rst);
	CU_ASSERT(rst.s_recv_delivered >= total);
	CU_ASSERT_EQUAL(rst.s_recv_drop_no_sock, 0);
	CU_ASSERT_EQUAL(rst.s_recv_drop_bad_hdr, 0);
	memset(&lst, 0, sizeof(lst));
	CU_ASSERT(rte_rds_loop_stats_get(&lst) == 0);
	printf("  loop: frames %" PRIu64 " dropped %" PRIu64 " flushed %"
	       PRIu64 " resets %" PRIu64 "\n", lst.frames, lst.dropped,
	       lst.flushed, lst.resets);
	CU_ASSERT(lst.frames > 0);
	if (mode == MODE_FAULTS) {
		/* The fault path was really exercised. */
		CU_ASSERT(lst.dropped > 0);
		CU_ASSERT(lst.resets > 0);
		CU_ASSERT(rst.s_conn_reset > 0);
		CU_ASSERT(rst.s_recv_drop_old_seq > 0 ||
			  rst.s_send_retransmit > 0);
		CU_ASSERT(rte_rds_loop_set_faults(NULL) == 0);
	} else {
		CU_ASSERT_EQUAL(lst.dropped, 0);
		CU_ASSERT_EQUAL(lst.resets, 0);
	}

	stream_free(st);
	CU_ASSERT(rte_rds_fini() == 0);
	CU_ASSERT(!rds_test_lib_up());
	rds_test_watchdog(0, NULL);
}

static void
test_stream_lcore(void)
{
	stream_test(MODE_LCORE);
}

static void
test_stream_inline(void)
{
	stream_test(MODE_INLINE);
}

static void
test_stream_faults(void)
{
	stream_test(MODE_FAULTS);
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "stream_lcore_engine", test_stream_lcore },
		{ "stream_inline_engine", test_stream_inline },
		{ "stream_inline_faults", test_stream_faults },
		{ NULL, NULL },
	};
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	rds_test_eal_init("loop_stream", "0-1");
	rc = rds_test_run_suite("loop_stream", cases);
	rds_test_eal_fini();
	return rc;
}

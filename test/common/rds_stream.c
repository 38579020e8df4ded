/* SPDX-License-Identifier: BSD-3-Clause */
/* The stream checker shared by the suites (rds_stream.h). */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_rds.h>

#include "rds_stream.h"

#define HDR_LEN 16
#define SEND_BATCH_LOG2_MAX 10	/* up to 1024 sends per socket per round */
#define RECV_BATCH 64
#define SALT 0x5eedf00dcafe1234ULL
#define NSOCK RDS_STREAM_MAX_SOCKS

/* src carries the sender's incarnation in its upper 16 bits. */
struct msg_hdr {
	uint32_t src;
	uint32_t dst;
	uint64_t seq;
};

#define GEN_SHIFT 16

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

struct rds_stream {
	struct rds_stream_conf c;
	unsigned int n;
	int s[NSOCK];
	union rds_test_addr addr[NSOCK];
	struct tx_state tx[NSOCK];
	uint64_t rx_next[NSOCK][NSOCK];	/* [src][dst] expected sequence */
	uint64_t rx_expect[NSOCK][NSOCK]; /* [src][dst] messages in all */
	uint32_t rx_gen[NSOCK][NSOCK];	/* [src][dst] incarnation taken */
	bool rx_synced[NSOCK][NSOCK];	/* resync: first message taken */
	uint64_t rx_first[NSOCK][NSOCK]; /* resync: its sequence */
	uint32_t local;			/* local_mask, 0 made all */
	uint8_t *expbuf;		/* check_bytes: the payload expected */
	struct rds_test_sha_matrix tx_sha, rx_sha;
	uint8_t *rxbuf;
	uint32_t rxcap;
	uint64_t total, sent, received;
	uint64_t bytes;
	uint64_t eagain, enobufs;
	uint64_t rng;		/* burst sizes */
	bool failed;
};

void
rds_stream_conf_default(struct rds_stream_conf *c, uint64_t total)
{
	static const char *const ip[4] = {
		RDS_TEST_IP1, RDS_TEST_IP1, RDS_TEST_IP2, RDS_TEST_IP3,
	};
	unsigned int i;

	memset(c, 0, sizeof(*c));
	c->nsock = 4;
	for (i = 0; i < 4; i++) {
		c->ip[i] = ip[i];
		c->port[i] = (uint16_t)(4001 + i);
	}
	c->trans = -1;
	c->total = total;
	c->small_max = 4096;
	c->large_one_in = 1000;
	c->large_min = 64u * 1024;
	c->large_max = RTE_RDS_MAX_MSG_SIZE;
	c->sockbuf = 4 * 1024 * 1024;
	c->stall_s = 60;
	c->limit_s = (unsigned int)(240 + total / 2000);
	c->kick = rds_test_kick;
}

static uint64_t
msg_key(unsigned int src, unsigned int dst, uint64_t seq, uint32_t gen)
{
	return rds_test_mix64(((uint64_t)src << 56) ^ ((uint64_t)dst << 48) ^
			      ((uint64_t)gen << 40) ^ seq ^ SALT);
}

static inline bool
is_local(const struct rds_stream *st, unsigned int i)
{
	return (st->local >> i) & 1;
}

/* Socket i's next destination: the k-th socket it may send to, k drawn
 * from its generator (so that any process can replay it). */
static unsigned int
pick_dst(const struct rds_stream *st, unsigned int i, uint64_t *rng)
{
	uint32_t mask = st->c.dst_mask[i], m;
	unsigned int cnt, k, j;

	if (mask == 0) {
		unsigned int d = (unsigned int)(rds_test_rand(rng) %
						(st->n - 1));

		return d >= i ? d + 1 : d;
	}
	m = mask & ~(1u << i) & ((1u << st->n) - 1);
	cnt = (unsigned int)__builtin_popcount(m);
	k = (unsigned int)(rds_test_rand(rng) % cnt);
	for (j = 0; j < st->n; j++) {
		if (!((m >> j) & 1))
			continue;
		if (k-- == 0)
			break;
	}
	return j;
}

/* Length of message seq from src to dst. */
static uint32_t
msg_len(const struct rds_stream *st, unsigned int src, unsigned int dst,
	uint64_t seq, uint32_t gen)
{
	uint64_t r = msg_key(src, dst, seq, gen);
	const struct rds_stream_conf *c = &st->c;

	if (c->large_one_in != 0 && r % c->large_one_in == 0)
		return c->large_min + (uint32_t)((r >> 16) %
				(c->large_max - c->large_min + 1));
	return (uint32_t)((r >> 16) % (c->small_max + 1));
}
static void
msg_build(uint8_t *buf, unsigned int src, unsigned int dst, uint64_t seq,
	  uint32_t gen, uint32_t len)
{
	struct msg_hdr h = { .src = src | (gen << GEN_SHIFT), .dst = dst,
			     .seq = seq };

	memcpy(buf, &h, RTE_MIN(len, (uint32_t)HDR_LEN));
	if (len > HDR_LEN)
		rds_test_fill(buf + HDR_LEN, len - HDR_LEN,
			      msg_key(src, dst, seq, gen) ^ 0xa5a5a5a5ULL);
}

void
rds_stream_free(struct rds_stream *st)
{
	unsigned int i;

	for (i = 0; i < st->n; i++) {
		if (st->s[i] >= 0 && rte_rds_close(st->s[i]) != 0)
			printf("rte_rds_close(%d): %s\n", st->s[i],
			       rte_strerror(rte_errno));
		free(st->tx[i].buf);
	}
	free(st->rxbuf);
	free(st->expbuf);
	rds_test_sha_matrix_free(&st->tx_sha);
	rds_test_sha_matrix_free(&st->rx_sha);
	free(st);
}

struct rds_stream *
rds_stream_new(const struct rds_stream_conf *c)
{
	struct rds_stream *st = calloc(1, sizeof(*st));
	unsigned int i;

	if (st == NULL || c->nsock < 2 || c->nsock > NSOCK)
		goto fail;
	st->c = *c;
	if (st->c.kick == NULL)
		st->c.kick = rds_test_kick;
	st->n = c->nsock;
	for (i = 0; i < NSOCK; i++)
		st->s[i] = -1;
	st->local = c->local_mask != 0 ? c->local_mask & ((1u << st->n) - 1) :
		    (1u << st->n) - 1;
	st->total = c->total < st->n ? st->n : c->total;
	st->rng = 0xb0b0b0b0ULL;
	st->rxcap = RTE_MAX(c->small_max, c->large_max) + 1;
	if (rds_test_sha_matrix_init(&st->tx_sha, st->n) != 0 ||
	    rds_test_sha_matrix_init(&st->rx_sha, st->n) != 0)
		goto fail;
	st->rxbuf = malloc(st->rxcap);
	if (st->rxbuf == NULL)
		goto fail;
	if (c->check_bytes && (st->expbuf = malloc(st->rxcap)) == NULL)
		goto fail;
	for (i = 0; i < st->n; i++) {
		struct tx_state *tx = &st->tx[i];
		uint64_t rng, k;

		tx->rng = 0x1234567ULL * (i + 1);
		tx->to_send = st->total / st->n + (i < st->total % st->n);
		/* Replay the sender's choices: what each socket gets. */
		rng = tx->rng;
		for (k = 0; k < tx->to_send; k++)
			st->rx_expect[i][pick_dst(st, i, &rng)]++;
		st->addr[i] = rds_test_addr(c->ip[i], c->port[i]);
		if (!is_local(st, i))
			continue;
		tx->buf = malloc(st->rxcap);
		if (tx->buf == NULL)
			goto fail;
		st->s[i] = rds_test_socket_trans(c->ip[i], c->port[i],
						 c->sockbuf, c->sockbuf,
						 c->trans);
		if (st->s[i] < 0)
			goto fail;
	}
	return st;
fail:
	printf("  rds_stream_new: %s\n", rte_strerror(rte_errno));
	if (st != NULL)
		rds_stream_free(st);
	return NULL;
}

/* Try to send up to burst messages from socket i; returns sent. */
static unsigned int
stream_send(struct rds_stream *st, unsigned int i, unsigned int burst)
{
	struct tx_state *tx = &st->tx[i];
	unsigned int n = 0, d;
	ssize_t r;

	while (n < burst && !st->failed) {
		if (!tx->pending) {
			if (tx->sent == tx->to_send)
				break;
			d = pick_dst(st, i, &tx->rng);
			tx->pdst = d;
			tx->plen = msg_len(st, i, d, tx->seq[d], st->c.gen[i]);
			msg_build(tx->buf, i, d, tx->seq[d], st->c.gen[i],
				  tx->plen);
			tx->pending = true;
		}
		r = rds_test_send_to(st->s[i], tx->buf, tx->plen,
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
sock_index(const struct rds_stream *st, const union rds_test_addr *from)
{
	unsigned int i;

	for (i = 0; i < st->n; i++)
		if (rds_test_addr_eq(&st->addr[i], from))
			return (int)i;
	return -1;
}

/* A newer incarnation of sender i reaches socket j: its stream starts
 * again, from sequence 0 (the pair's running SHA-256 too). */
static void
pair_new_gen(struct rds_stream *st, unsigned int i, unsigned int j,
	     uint32_t gen)
{
	struct rds_test_sha *h = rds_test_sha_matrix_at(&st->rx_sha, i, j);

	rds_test_sha_free(h);
	rds_test_sha_init(h);
	st->rx_gen[i][j] = gen;
	st->rx_next[i][j] = 0;
	st->rx_synced[i][j] = true;	/* a new stream is taken whole */
	st->rx_first[i][j] = 0;
}

/* Check one received message on socket j. */
static void
stream_check(struct rds_stream *st, unsigned int j,
	     const union rds_test_addr *from,
	     ssize_t r, int mflags)
{
	struct msg_hdr want, got;
	uint64_t seq;
	uint32_t len, gen, mask = (1u << GEN_SHIFT) - 1;
	char a[80];
	int i;

	i = sock_index(st, from);
	if (i < 0) {
		printf("  FAIL: socket %u got %zd bytes from unknown %s\n", j,
		       r, rds_test_addr_str(from, a, sizeof(a)));
		st->failed = true;
		return;
	}
	if (mflags & MSG_TRUNC) {
		printf("  FAIL: socket %u: MSG_TRUNC with a 1 MiB buffer\n", j);
		st->failed = true;
		return;
	}
	if (st->rx_expect[i][j] == 0) {
		printf("  FAIL: socket %u got %zd bytes from socket %d, which "
		       "never sends to it\n", j, r, i);
		st->failed = true;
		return;
	}
	memset(&got, 0xff, sizeof(got));
	memcpy(&got, st->rxbuf, RTE_MIN((size_t)r, sizeof(got)));
	gen = st->rx_gen[i][j];
	if (r >= HDR_LEN && (got.src & mask) == (uint32_t)i && got.dst == j &&
	    (got.src >> GEN_SHIFT) != gen) {
		uint32_t g = got.src >> GEN_SHIFT;

		if (g < gen || g > st->c.gen[i]) {
			printf("  FAIL: pair %d->%u: a message of incarnation "
			       "%u (seq %" PRIu64 ") after incarnation %u "
			       "(last %u)\n", i, j, g, got.seq, gen,
			       st->c.gen[i]);
			st->failed = true;
			return;
		}
		printf("  pair %d->%u: incarnation %u after %" PRIu64
		       " messages of incarnation %u\n", i, j, g,
		       st->rx_next[i][j], gen);
		pair_new_gen(st, (unsigned int)i, j, g);
		gen = g;
	}
	if (((st->c.resync_mask >> i) & 1) && !st->rx_synced[i][j] &&
	    r >= HDR_LEN && got.src == ((uint32_t)i | (gen << GEN_SHIFT)) &&
	    got.dst == j && got.seq < st->rx_expect[i][j]) {
		/* Taken from the middle: from here on, exactly in order. */
		st->rx_next[i][j] = got.seq;
		st->rx_first[i][j] = got.seq;
		printf("  pair %d->%u: taken from sequence %" PRIu64 "\n", i,
		       j, got.seq);
	}
	st->rx_synced[i][j] = true;
	seq = st->rx_next[i][j];
	len = seq < st->rx_expect[i][j] ?
	      msg_len(st, (unsigned int)i, j, seq, gen) : UINT32_MAX;
	want = (struct msg_hdr){ .src = (uint32_t)i | (gen << GEN_SHIFT),
				 .dst = j, .seq = seq };
	if ((uint32_t)r != len ||
	    memcmp(st->rxbuf, &want, RTE_MIN(len, (uint32_t)HDR_LEN)) != 0) {
		printf("  FAIL: pair %d->%u: expected seq %" PRIu64
		       " len %u (of %" PRIu64 "); got len %zd header (src %u "
		       "gen %u dst %u seq %" PRIu64 ")%s\n", i, j, seq, len,
		       st->rx_expect[i][j], r, got.src & mask,
		       got.src >> GEN_SHIFT, got.dst, got.seq,
		       r < HDR_LEN ? " (short)" : "");
		if (r >= HDR_LEN && got.src == want.src && got.dst == j) {
			if (got.seq < seq)
				printf("  -> duplicate or reordered message\n");
			else if (got.seq > seq)
				printf("  -> %" PRIu64 " message(s) lost\n",
				       got.seq - seq);
		}
		st->failed = true;
		return;
	}
	if (st->expbuf != NULL && len > HDR_LEN) {
		uint32_t k;

		msg_build(st->expbuf, (unsigned int)i, j, seq, gen, len);
		if (memcmp(st->expbuf, st->rxbuf, len) != 0) {
			for (k = HDR_LEN; k < len; k++)
				if (st->expbuf[k] != st->rxbuf[k])
					break;
			printf("  FAIL: pair %d->%u seq %" PRIu64 " len %u: "
			       "byte %u is 0x%02x, not 0x%02x\n", i, j, seq,
			       len, k, st->rxbuf[k], st->expbuf[k]);
			st->failed = true;
			return;
		}
	}
	rds_test_sha_matrix_msg(&st->rx_sha, (unsigned int)i, j, st->rxbuf,
				(size_t)r);
	st->rx_next[i][j]++;
	st->received++;
	st->bytes += (uint64_t)r;
}

/* Drain up to RECV_BATCH messages from socket j; returns received. */
static unsigned int
stream_recv(struct rds_stream *st, unsigned int j)
{
	union rds_test_addr from;
	unsigned int n = 0;
	int mflags = 0;
	ssize_t r;

	while (n < RECV_BATCH && !st->failed) {
		r = rds_test_recv_from(st->s[j], st->rxbuf, st->rxcap, &from,
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

bool
rds_stream_finished(const struct rds_stream *st)
{
	unsigned int i, j;

	for (i = 0; i < st->n; i++) {
		if (is_local(st, i) &&
		    (st->tx[i].sent != st->tx[i].to_send || st->tx[i].pending))
			return false;
		for (j = 0; j < st->n; j++) {
			if (!is_local(st, j) || st->rx_expect[i][j] == 0)
				continue;
			if (st->rx_gen[i][j] != st->c.gen[i] ||
			    st->rx_next[i][j] != st->rx_expect[i][j])
				return false;
		}
	}
	return true;
}

int
rds_stream_step(struct rds_stream *st)
{
	unsigned int i, progress = 0, burst;

	if (st->failed)
		return -1;
	/* Bursts of 1 to 1024 sends per socket against receivers that
	 * take at most RECV_BATCH per round: at times the senders outrun
	 * them, so send buffers fill (EAGAIN) and receive buffers
	 * overflow (ENOBUFS). */
	burst = 1u << (rds_test_rand(&st->rng) % (SEND_BATCH_LOG2_MAX + 1));
	for (i = 0; i < st->n; i++)
		if (is_local(st, i))
			progress += stream_send(st, i, burst);
	for (i = 0; i < 8 && st->c.kick() > 0; i++)
		;
	for (i = 0; i < st->n; i++)
		if (is_local(st, i))
			progress += stream_recv(st, i);
	return st->failed ? -1 : (int)progress;
}

/* Run the stream to completion; false on failure. */
bool
rds_stream_run(struct rds_stream *st, const char *what)
{
	struct rds_test_deadline dl;
	uint64_t last_report = rds_test_now_ns();
	int progress;

	rds_test_deadline_init(&dl, st->c.stall_s, st->c.limit_s);
	while (!st->failed && !rds_stream_finished(st)) {
		progress = rds_stream_step(st);
		if (progress < 0)
			break;
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

/* One look at every local socket: nothing may be there. */
static bool
stream_nothing(struct rds_stream *st)
{
	union rds_test_addr from;
	unsigned int i;
	int mflags;
	ssize_t r;

	for (i = 0; i < st->n; i++) {
		if (!is_local(st, i))
			continue;
		r = rds_test_recv_from(st->s[i], st->rxbuf, st->rxcap, &from,
				       MSG_DONTWAIT, &mflags);
		if (r >= 0) {
			char a[80];

			printf("  FAIL: extra message of %zd bytes on socket "
			       "%u from %s after the stream\n", r, i,
			       rds_test_addr_str(&from, a, sizeof(a)));
			st->failed = true;
			return false;
		}
	}
	return true;
}

/* After the stream: nothing more may arrive (no late duplicates). */
bool
rds_stream_quiet(struct rds_stream *st)
{
	unsigned int k;

	for (k = 0; k < 200; k++) {
		st->c.kick();
		if (k % 20 == 0)
			rds_test_usleep(1000);
		if (!stream_nothing(st))
			return false;
	}
	return true;
}

bool
rds_stream_idle(struct rds_stream *st)
{
	st->c.kick();
	return stream_nothing(st);
}

bool
rds_stream_digest(struct rds_stream *st, bool tx, unsigned int src,
		  unsigned int dst, uint8_t digest[RDS_TEST_SHA_LEN],
		  uint64_t *msgs, uint64_t *bytes, uint64_t *first)
{
	struct rds_test_sha *h;

	if (src >= st->n || dst >= st->n || !is_local(st, tx ? src : dst))
		return false;
	h = rds_test_sha_matrix_at(tx ? &st->tx_sha : &st->rx_sha, src, dst);
	rds_test_sha_peek(h, digest);
	*msgs = h->msgs;
	*bytes = h->bytes;
	if (first != NULL)
		*first = tx ? 0 : st->rx_first[src][dst];
	return true;
}

uint64_t
rds_stream_expected(const struct rds_stream *st, unsigned int src,
		    unsigned int dst)
{
	return src < st->n && dst < st->n ? st->rx_expect[src][dst] : 0;
}

/* Compare counts and digests; returns the number of mismatching pairs. */
unsigned int
rds_stream_verify(struct rds_stream *st)
{
	uint8_t dt[RDS_TEST_SHA_LEN], dr[RDS_TEST_SHA_LEN];
	char ht[65], hr[65];
	unsigned int i, j, bad = 0, pairs = 0;
	struct rds_test_sha *ht_, *hr_;

	for (i = 0; i < st->n; i++) {
		for (j = 0; j < st->n; j++) {
			if (i == j || !is_local(st, i) || !is_local(st, j) ||
			    st->rx_expect[i][j] == 0)
				continue;
			pairs++;
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
	if (bad == 0 && pairs != 0 && st->rx_expect[0][st->n - 1] != 0 &&
	    is_local(st, 0) && is_local(st, st->n - 1)) {
		rds_test_sha_peek(rds_test_sha_matrix_at(&st->rx_sha, 0,
							 st->n - 1), dr);
		printf("  digests: %u pairs match (e.g. 0->%u: %s)\n",
		       pairs, st->n - 1, rds_test_sha_hex(dr, hr));
	} else if (bad == 0) {
		printf("  digests: %u pairs match\n", pairs);
	}
	return bad;
}

void
rds_stream_counts(const struct rds_stream *st, uint64_t *sent,
		  uint64_t *received, uint64_t *bytes, uint64_t *eagain,
		  uint64_t *enobufs)
{
	*sent = st->sent;
	*received = st->received;
	*bytes = st->bytes;
	*eagain = st->eagain;
	*enobufs = st->enobufs;
}


/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Workloads and the checker (sim.h).
 *
 * Workloads: "pair" (hosts 0 and 1, both ways), "all" (every host to
 * every other, round robin), "incast" (every host to host 0), "perm"
 * (each host to one other, a permutation from the seed with no host
 * sending to itself). Each sender sends msgs messages to each of its
 * receivers, of sizes from the seed (min_len..max_len), non-blocking,
 * taking EAGAIN/ENOBUFS as "later".
 *
 * The checker: every message carries its sender, receiver, a sequence
 * number per (sender, receiver) and its length, and a payload made from
 * them; a receiver must see, from each sender, sequence 0, 1, 2 ... with
 * nothing missing, repeated or out of place, and each payload intact;
 * at the end every message sent must have been received. Anything else
 * is a violation (printed, the first few; the run fails).
 *
 * Across a rack restart (sim_restart.c) the checker holds each pair
 * (sender s, receiver d) to what RDS promises an incarnation, and no
 * more (test/README.md, "The sim suite"):
 *  - d restarted, s did not: what s's connection acknowledged was
 *    delivered to d's old incarnation (the checker took what d's socket
 *    still held then) and never comes again; what s holds unacknowledged
 *    (lo, the oldest of it, read from s's connection at the restart) may
 *    come again to the new incarnation, which d's old one had up to hi
 *    (the sequence the old one expected next). So d's new incarnation
 *    sees first a sequence in lo..hi (below lo: an acknowledged message
 *    again; above hi: messages lost) and from there on every one in
 *    order. A message s holds that d never had (lo > hi: s let go of
 *    messages d never got) is a violation at the restart;
 *  - s restarted: what s sent before and d did not have then is lost
 *    with s's process (counted, never a violation), and nothing of it
 *    may come later; d sees s's new incarnation's messages from the first
 *    in order, never one twice or out of place;
 *  - both: the second rule (s's old messages cannot come again);
 *  - messages sent to d while it is down are held by s and retransmitted
 *    to the new incarnation: none is lost (this library cancels nothing
 *    of a survivor's on its own, and none of these workloads is told of
 *    a failed send, so any loss is a violation).
 * Resynchronisation: for each pair with s or d restarted, from the time
 * it has a message to deliver after they are back (at once for what was
 * held then, else its next send) to the first message d gets; every one
 * must come within --restart-bound-ms, and the run must end with every
 * pair's stream complete.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_rds_socket.h>

#include "sim.h"

#define SIM_BATCH 8
#define SIM_RBURST 32
#define SIM_MAX_LEN 65536

struct sender {
	uint64_t k, total;	/* messages sent, to send */
	uint32_t next_len;	/* length of message k */
	bool built;		/* message k is in buf */
	uint8_t *buf;		/* max_len bytes */
};

static struct {
	struct sim_conf c;
	unsigned int n;
	const int *sock;
	struct sender *snd;
	uint32_t *perm;		/* perm: each host's receiver */
	uint32_t *expect;	/* [s * n + d]: next sequence */
	uint32_t *sent;		/* [s * n + d]: messages sent */
	uint64_t *rx_bytes;	/* per sender, at host 0 (incast) */
	uint64_t *half_bytes;	/* ... when half of all arrived */
	uint64_t to_send, nb_sent, nb_recv, bytes_recv, violations;
	uint64_t t_first, t_last, t_half;
	uint64_t behind;	/* pairs with expect < sent */
	bool dup_done;
	/* The restart (allocated with --restart only). */
	bool *down;		/* the hosts that restart */
	uint32_t *got;		/* [s * n + d]: 1 + the highest sequence d
				 * had, in any incarnation */
	uint32_t *lo, *hi;	/* [s * n + d]: d's new incarnation's first */
	uint8_t *fresh;		/* [s * n + d]: d restarted, nothing since */
	uint64_t *t_need, *t_back;	/* [s * n + d]: resynchronisation */
	uint64_t nb_lost, nb_again, nb_hit, resync_open;
	uint64_t back_ns;	/* when the restarted hosts came back */
	bool restarted, came_back;
} W;

static bool
is_sender(unsigned int s)
{
	if (strcmp(W.c.workload, "pair") == 0)
		return s < 2;
	if (strcmp(W.c.workload, "incast") == 0)
		return s != 0;
	return true;
}

/* Receiver of sender s's message k. */
static unsigned int
dest_of(unsigned int s, uint64_t k)
{
	if (strcmp(W.c.workload, "pair") == 0)
		return 1 - s;
	if (strcmp(W.c.workload, "incast") == 0)
		return 0;
	if (strcmp(W.c.workload, "perm") == 0)
		return W.perm[s];
	return (unsigned int)((s + 1 + k % (W.n - 1)) % W.n);
}

static uint32_t
draw_len(void)
{
	return W.c.min_len + (uint32_t)(sim_rand() %
					(W.c.max_len - W.c.min_len + 1));
}

static uint8_t
fill_byte(uint32_t s, uint32_t d, uint32_t seq, uint32_t i)
{
	return (uint8_t)(s * 31u + d * 17u + seq * 7u + i);
}

int
sim_work_init(const struct sim_conf *c, const int *sock_of_host)
{
	unsigned int s, i, j, t;

	memset(&W, 0, sizeof(W));
	W.c = *c;
	W.n = c->hosts;
	W.sock = sock_of_host;
	if (c->max_len > SIM_MAX_LEN || c->min_len < sizeof(struct sim_hdr) ||
	    c->min_len > c->max_len) {
		printf("message sizes %u..%u: must be within %zu..%u\n",
		       c->min_len, c->max_len, sizeof(struct sim_hdr),
		       SIM_MAX_LEN);
		return -1;
	}
	W.snd = calloc(W.n, sizeof(*W.snd));
	W.perm = calloc(W.n, sizeof(*W.perm));
	W.expect = calloc((size_t)W.n * W.n, sizeof(*W.expect));
	W.sent = calloc((size_t)W.n * W.n, sizeof(*W.sent));
	W.rx_bytes = calloc(W.n, sizeof(*W.rx_bytes));
	W.half_bytes = calloc(W.n, sizeof(*W.half_bytes));
	if (W.snd == NULL || W.perm == NULL || W.expect == NULL ||
	    W.sent == NULL || W.rx_bytes == NULL || W.half_bytes == NULL)
		return -1;
	if (c->restart > 0) {
		size_t nn = (size_t)W.n * W.n;

		W.down = calloc(W.n, sizeof(*W.down));
		W.got = calloc(nn, sizeof(*W.got));
		W.lo = calloc(nn, sizeof(*W.lo));
		W.hi = calloc(nn, sizeof(*W.hi));
		W.fresh = calloc(nn, sizeof(*W.fresh));
		W.t_need = calloc(nn, sizeof(*W.t_need));
		W.t_back = calloc(nn, sizeof(*W.t_back));
		if (W.down == NULL || W.got == NULL || W.lo == NULL ||
		    W.hi == NULL || W.fresh == NULL || W.t_need == NULL ||
		    W.t_back == NULL)
			return -1;
	}
	/* A permutation with no fixed point: a shuffle, then each fixed
	 * point swapped with its neighbour. */
	for (i = 0; i < W.n; i++)
		W.perm[i] = i;
	for (i = W.n - 1; i > 0; i--) {
		j = (unsigned int)(sim_rand() % (i + 1));
		t = W.perm[i];
		W.perm[i] = W.perm[j];
		W.perm[j] = t;
	}
	for (i = 0; i < W.n; i++)
		if (W.perm[i] == i) {
			j = (i + 1) % W.n;
			t = W.perm[i];
			W.perm[i] = W.perm[j];
			W.perm[j] = t;
		}
	for (s = 0; s < W.n; s++) {
		if (!is_sender(s))
			continue;
		W.snd[s].total = (uint64_t)c->msgs *
			(strcmp(c->workload, "all") == 0 ? W.n - 1 : 1);
		W.snd[s].next_len = draw_len();
		W.snd[s].buf = malloc(c->max_len);
		if (W.snd[s].buf == NULL)
			return -1;
		W.to_send += W.snd[s].total;
	}
	return 0;
}

/* Pair k's next sequence is v (W.behind follows). */
static void
set_expect(size_t k, uint32_t v)
{
	W.behind += (v < W.sent[k]) - (W.expect[k] < W.sent[k]);
	W.expect[k] = v;
}

static void
violation(const char *what, unsigned int s, unsigned int d, uint32_t seq,
	  uint32_t want)
{
	if (W.violations++ < 10)
		printf("  VIOLATION: %s: %u -> %u seq %u (expected %u)\n",
		       what, s, d, seq, want);
}

static int
try_send(unsigned int s, uint64_t now)
{
	struct sender *x = &W.snd[s];
	unsigned int d = dest_of(s, x->k);
	uint32_t seq = W.sent[(size_t)s * W.n + d], i, len = x->next_len;
	struct sim_hdr h = { SIM_MAGIC, (uint16_t)s, (uint16_t)d, seq, len };
	size_t k;
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(4000),
				  .sin_addr.s_addr = sim_host_ip(d) };
	ssize_t r;

	/* Built once, sent when the socket takes it. */
	if (!x->built) {
		memcpy(x->buf, &h, sizeof(h));
		for (i = sizeof(h); i < len; i++)
			x->buf[i] = fill_byte(s, d, seq, i);
		x->built = true;
	}
	r = rte_rds_sendto(W.sock[s], x->buf, len, MSG_DONTWAIT,
			   (const struct sockaddr *)&to, sizeof(to));
	if (r < 0) {
		if (rte_errno == EAGAIN || rte_errno == ENOBUFS ||
		    rte_errno == EWOULDBLOCK)
			return 0;
		printf("  sendto %u -> %u: %s\n", s, d,
		       rte_strerror(rte_errno));
		W.violations++;
		x->k = x->total;	/* give up on this sender */
		return -1;
	}
	if (W.nb_sent == 0)
		W.t_first = now;
	W.nb_sent++;
	k = (size_t)s * W.n + d;
	if (W.expect[k] == W.sent[k])
		W.behind++;
	W.sent[k]++;
	/* A pair of a restarted host's with a message to deliver again. */
	if (W.came_back && (W.down[s] || W.down[d]) && W.t_need[k] == 0) {
		W.t_need[k] = now;
		W.resync_open++;
	}
	x->k++;
	x->built = false;
	if (x->k < x->total)
		x->next_len = draw_len();
	return 1;
}

/* Check one message from s at d. */
static void
check(unsigned int s, unsigned int d, const uint8_t *p, uint32_t len,
      uint64_t now)
{
	size_t k = (size_t)s * W.n + d;
	uint32_t *want = &W.expect[k], i;
	struct sim_hdr h;
	bool first;

	if (len < sizeof(h)) {
		violation("short message", s, d, 0, *want);
		return;
	}
	memcpy(&h, p, sizeof(h));
	if (h.magic != SIM_MAGIC || h.src != s || h.dst != d || h.len != len) {
		violation("bad header", s, d, h.seq, *want);
		return;
	}
	for (i = sizeof(h); i < len; i++)
		if (p[i] != fill_byte(s, d, h.seq, i)) {
			violation("bad payload", s, d, h.seq, *want);
			return;
		}
	if (W.fresh != NULL && W.fresh[k]) {
		/* d's new incarnation's first from s: lo..hi. */
		if (h.seq < W.lo[k] || h.seq > W.hi[k]) {
			violation(h.seq < W.lo[k] ? "acknowledged message "
				  "delivered again after the restart" :
				  "messages lost across the restart", s, d,
				  h.seq, W.lo[k]);
			return;
		}
		W.fresh[k] = 0;
		set_expect(k, h.seq);
	}
	if (h.seq != *want) {
		violation(h.seq < *want ? "duplicate" : "missing or reordered",
			  s, d, h.seq, *want);
		if (h.seq > *want)
			set_expect(k, h.seq + 1);
		return;
	}
	set_expect(k, h.seq + 1);
	if (W.t_need != NULL && W.t_need[k] != 0 && W.t_back[k] == 0) {
		W.t_back[k] = now;
		W.resync_open--;
	}
	/* Once in any incarnation counts; again (a restarted receiver's
	 * new incarnation) is counted apart. */
	first = W.got == NULL || h.seq >= W.got[k];
	if (!first) {
		W.nb_again++;
		W.t_last = now;
		return;
	}
	if (W.got != NULL)
		W.got[k] = h.seq + 1;
	W.nb_recv++;
	W.bytes_recv += len;
	W.t_last = now;
	if (d == 0)
		W.rx_bytes[s] += len;
	if (W.t_half == 0 && W.nb_recv * 2 >= W.to_send) {
		W.t_half = now;
		memcpy(W.half_bytes, W.rx_bytes, W.n * sizeof(*W.rx_bytes));
	}
}

/* Take what h's socket holds; returns the messages. */
static unsigned int
recv_host(unsigned int h, uint64_t now)
{
	struct rte_rds_msg *m[SIM_RBURST];
	struct sockaddr_in from;
	unsigned int i, work = 0;
	uint16_t n;
	uint32_t v, s;

	do {
		n = rte_rds_recv_burst(W.sock[h], m, SIM_RBURST);
		for (i = 0; i < n; i++) {
			rte_rds_msg_src(m[i], &from);
			v = ntohl(from.sin_addr.s_addr);
			s = v - ((10u << 24) | (1u << 16)) - 1;
			if (s >= W.n) {
				violation("unknown sender", s, h, 0, 0);
			} else {
				check(s, h, rte_rds_msg_data(m[i]),
				      rte_rds_msg_len(m[i]), now);
				/* The knob: a harness that hands one message
				 * over twice. */
				if (W.c.bug_dup && !W.dup_done &&
				    W.nb_recv > W.to_send / 2) {
					W.dup_done = true;
					check(s, h, rte_rds_msg_data(m[i]),
					      rte_rds_msg_len(m[i]), now);
				}
			}
			rte_rds_msg_free(m[i]);
		}
		work += n;
	} while (n == SIM_RBURST);
	return work;
}

unsigned int
sim_work_step(uint64_t now)
{
	unsigned int h, b, work = 0;

	/* A host that is down (restarting) has no socket. */
	for (h = 0; h < W.n; h++)
		for (b = 0; b < SIM_BATCH && W.snd[h].k < W.snd[h].total &&
		     W.sock[h] >= 0; b++) {
			if (try_send(h, now) <= 0)
				break;
			work++;
		}
	for (h = 0; h < W.n; h++)
		if (W.sock[h] >= 0)
			work += recv_host(h, now);
	return work;
}

void
sim_work_restart(const bool *down, uint64_t now,
		 uint32_t (*unacked_lo)(unsigned int s, unsigned int d,
					uint32_t dflt))
{
	unsigned int s, d;
	uint32_t lo;
	size_t k;

	W.restarted = true;
	memcpy(W.down, down, W.n * sizeof(*W.down));
	/* What their sockets hold was delivered to the old incarnations. */
	for (d = 0; d < W.n; d++)
		if (down[d])
			recv_host(d, now);
	for (s = 0; s < W.n; s++)
		for (d = 0; d < W.n; d++) {
			k = (size_t)s * W.n + d;
			if ((!down[s] && !down[d]) || s == d)
				continue;
			if (W.expect[k] < W.sent[k])
				W.nb_hit++;
			if (down[s]) {
				/* Lost with s's process, for good. */
				W.nb_lost += W.sent[k] - W.expect[k];
				set_expect(k, W.sent[k]);
				continue;
			}
			/* d's new incarnation: first lo..hi (above). */
			W.hi[k] = W.expect[k];
			/* The knob: a checker that takes every message as
			 * acknowledged (what comes again must be caught). */
			lo = W.c.bug_restart ? W.hi[k] :
			     unacked_lo(s, d, W.hi[k]);
			if (lo > W.hi[k])
				violation("acknowledged to its sender, never "
					  "delivered", s, d, W.hi[k], lo);
			W.lo[k] = RTE_MIN(lo, W.hi[k]);
			W.fresh[k] = 1;
			set_expect(k, W.lo[k]);
		}
}

void
sim_work_comeback(uint64_t now)
{
	unsigned int s, d;
	size_t k;

	W.came_back = true;
	W.back_ns = now;
	/* What is held for them now is to come at once. */
	for (s = 0; s < W.n; s++)
		for (d = 0; d < W.n; d++) {
			k = (size_t)s * W.n + d;
			if ((!W.down[s] && !W.down[d]) || s == d ||
			    W.expect[k] >= W.sent[k])
				continue;
			W.t_need[k] = now;
			W.resync_open++;
		}
}

uint64_t
sim_work_last_ns(void)
{
	return W.t_last;
}

bool
sim_work_done(void)
{
	/* Every message sent, every pair's stream complete (a restart's
	 * losses skipped), every pair of a restarted host's back. */
	return W.violations != 0 ||
	       (W.nb_sent == W.to_send && W.behind == 0 &&
		W.resync_open == 0 && (W.c.restart <= 0 || W.came_back));
}

/* Jain's fairness index of x over the senders. */
static double
jain(const uint64_t *x)
{
	double sum = 0, sq = 0;
	unsigned int s, k = 0;

	for (s = 0; s < W.n; s++) {
		if (!is_sender(s))
			continue;
		sum += (double)x[s];
		sq += (double)x[s] * (double)x[s];
		k++;
	}
	return sq > 0 ? sum * sum / (k * sq) : 0;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The restart's pairs: what was lost, delivered again, and how long
 * each class of pair took to carry traffic again. */
static void
report_restart(void)
{
	static const char *const cls_name[3] = {
		"survivor -> restarted", "restarted -> survivor",
		"restarted -> restarted" };
	uint64_t *t[3], nb[3] = { 0 }, never = 0, worst = 0, last = 0, r;
	unsigned int s, d, c, said = 0, ws = 0, wd = 0;
	size_t k;

	printf("  restart: %" PRIu64 " pairs held messages then; %" PRIu64
	       " messages lost with their senders' old incarnations, %"
	       PRIu64 " delivered again to a new incarnation\n", W.nb_hit,
	       W.nb_lost, W.nb_again);
	if (!W.restarted)
		return;
	if (W.nb_hit == 0) {
		printf("  VIOLATION: the restart met no traffic (move it)\n");
		W.violations++;
	}
	for (c = 0; c < 3; c++) {
		t[c] = malloc((size_t)W.n * W.n * sizeof(*t[c]));
		if (t[c] == NULL)
			abort();
	}
	for (s = 0; s < W.n; s++)
		for (d = 0; d < W.n; d++) {
			k = (size_t)s * W.n + d;
			if (W.t_need[k] == 0)
				continue;
			if (W.t_back[k] == 0) {
				if (never++ < 5)
					printf("  VIOLATION: %u -> %u never "
					       "carried traffic again (%u of "
					       "%u delivered)\n", s, d,
					       W.expect[k], W.sent[k]);
				continue;
			}
			c = !W.down[s] ? 0 : !W.down[d] ? 1 : 2;
			last = RTE_MAX(last, W.t_back[k]);
			r = W.t_back[k] - W.t_need[k];
			t[c][nb[c]++] = r;
			if (r >= worst) {
				worst = r;
				ws = s;
				wd = d;
			}
		}
	W.violations += never;
	for (c = 0; c < 3; c++) {
		if (nb[c] == 0)
			continue;
		qsort(t[c], nb[c], sizeof(*t[c]), cmp_u64);
		printf("  resync %s: %" PRIu64 " pairs, median %.3f ms, "
		       "max %.3f ms\n", cls_name[c], nb[c],
		       t[c][nb[c] / 2] / 1e6, t[c][nb[c] - 1] / 1e6);
	}
	for (c = 0; c < 3; c++)
		free(t[c]);
	if (nb[0] + nb[1] + nb[2] != 0) {
		printf("  resync slowest: %u -> %u, %.3f ms (from %.3f ms)\n",
		       ws, wd, worst / 1e6,
		       W.t_need[(size_t)ws * W.n + wd] / 1e6);
		/* The figure: after the comeback, until the last of these
		 * pairs had its first message again. */
		printf("  resync all pairs flowing again %.3f ms after the "
		       "comeback%s\n", (last - W.back_ns) / 1e6,
		       never != 0 ? " (but for those that never did)" : "");
	}
	if (W.c.restart_bound_ns != 0 && worst > W.c.restart_bound_ns) {
		printf("  VIOLATION: a pair took %.3f ms to carry traffic "
		       "again (bound %.3f ms)\n", worst / 1e6,
		       W.c.restart_bound_ns / 1e6);
		W.violations++;
	}
	for (k = 0; W.behind != 0 && k < (size_t)W.n * W.n; k++)
		if (W.expect[k] < W.sent[k] && said++ < 5)
			printf("  %zu -> %zu: %u of %u in order\n", k / W.n,
			       k % W.n, W.expect[k], W.sent[k]);
}

uint64_t
sim_work_report(uint64_t now)
{
	uint64_t missing = W.to_send - RTE_MIN(W.nb_recv + W.nb_lost,
					       W.to_send);
	double dt;

	(void)now;
	if (W.c.restart > 0)
		report_restart();
	if (W.behind != 0 && missing == 0 && W.violations == 0) {
		printf("  VIOLATION: %" PRIu64 " pairs' streams stopped "
		       "short\n", W.behind);
		W.violations++;
	}
	if (missing != 0 && W.violations == 0) {
		printf("  VIOLATION: %" PRIu64 " of %" PRIu64
		       " messages never delivered\n", missing, W.to_send);
		W.violations++;
	}
	dt = (double)(W.t_last - W.t_first);
	printf("  messages: %" PRIu64 " sent, %" PRIu64 " received in order "
	       "(%" PRIu64 " bytes) in %.3f ms virtual\n", W.nb_sent,
	       W.nb_recv, W.bytes_recv, dt / 1e6);
	if (strcmp(W.c.workload, "incast") == 0 && dt > 0)
		printf("  incast: goodput %.2f Gb/s into host 0 (link %u Gb/s),"
		       " Jain fairness %.3f at half (%.3f ms)\n",
		       (double)W.bytes_recv * 8 / dt, W.c.gbps,
		       jain(W.half_bytes),
		       (double)(W.t_half - W.t_first) / 1e6);
	return W.violations;
}

void
sim_work_fini(void)
{
	unsigned int s;

	for (s = 0; W.snd != NULL && s < W.n; s++)
		free(W.snd[s].buf);
	free(W.snd);
	free(W.perm);
	free(W.expect);
	free(W.sent);
	free(W.rx_bytes);
	free(W.half_bytes);
	free(W.down);
	free(W.got);
	free(W.lo);
	free(W.hi);
	free(W.fresh);
	free(W.t_need);
	free(W.t_back);
}

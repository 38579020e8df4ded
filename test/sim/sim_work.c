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

#define SIM_MAGIC 0x53494d31u	/* "SIM1" */
#define SIM_BATCH 8
#define SIM_RBURST 32
#define SIM_MAX_LEN 65536

struct sim_hdr {
	uint32_t magic;
	uint16_t src, dst;
	uint32_t seq, len;
};

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
	bool dup_done;
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
	W.sent[(size_t)s * W.n + d]++;
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
	struct sim_hdr h;
	uint32_t *want = &W.expect[(size_t)s * W.n + d], i;

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
	if (h.seq != *want) {
		violation(h.seq < *want ? "duplicate" : "missing or reordered",
			  s, d, h.seq, *want);
		if (h.seq > *want)
			*want = h.seq + 1;
		return;
	}
	(*want)++;
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

unsigned int
sim_work_step(uint64_t now)
{
	struct rte_rds_msg *m[SIM_RBURST];
	struct sockaddr_in from;
	unsigned int h, i, b, work = 0;
	uint16_t n;
	uint32_t v, s;

	for (h = 0; h < W.n; h++)
		for (b = 0; b < SIM_BATCH && W.snd[h].k < W.snd[h].total;
		     b++) {
			if (try_send(h, now) <= 0)
				break;
			work++;
		}
	for (h = 0; h < W.n; h++) {
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
					/* The knob: a harness that hands one
					 * message over twice. */
					if (W.c.bug_dup && !W.dup_done &&
					    W.nb_recv > W.to_send / 2) {
						W.dup_done = true;
						check(s, h,
						      rte_rds_msg_data(m[i]),
						      rte_rds_msg_len(m[i]),
						      now);
					}
				}
				rte_rds_msg_free(m[i]);
			}
			work += n;
		} while (n == SIM_RBURST);
	}
	return work;
}

uint64_t
sim_work_last_ns(void)
{
	return W.t_last;
}

bool
sim_work_done(void)
{
	return W.nb_recv >= W.to_send || W.violations != 0;
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

uint64_t
sim_work_report(uint64_t now)
{
	uint64_t missing = W.to_send - RTE_MIN(W.nb_recv, W.to_send);
	double dt;

	(void)now;
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
}

/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RDS_STREAM_H
#define RDS_STREAM_H

/*
 * A stream checker shared by the suites (loop, eth, ...): n sockets send
 * a number of messages to one another, every socket to every other, from
 * one thread, non-blocking, in bursts of 1 to 1024 sends per socket per
 * round against receivers that take at most 64 per round, so that EAGAIN
 * (send buffer full) and ENOBUFS (receiver congested) happen and are
 * handled by draining and retrying. Each payload starts with (sender,
 * receiver, per-pair sequence), then deterministic bytes; its length is a
 * function of (sender, receiver, sequence) too, so that the receiver
 * knows exactly what must come next. The receiver checks the source, that
 * each pair's sequence is exactly the previous one plus one (nothing lost,
 * duplicated or reordered) and the length; sender and receiver keep a
 * running SHA-256 per (sender, receiver), which must match at the end.
 *
 * Several processes: each owns some of the sockets (local_mask) and
 * knows the others only by address. It sends from its own sockets (to
 * any socket dst_mask allows) and checks what its own sockets receive
 * from every sender, local or remote: a sender's destinations, lengths
 * and bytes are functions of (sender, receiver, sequence, incarnation)
 * and of the configuration, which every process shares, so a receiver
 * knows what must come from a remote sender without asking it. The
 * digests of pairs with a remote end are compared by the caller
 * (rds_stream_digest) across processes. A process that restarts sends
 * with a new incarnation (gen) and may take its peers' streams from
 * anywhere (resync_mask); its peers take the new incarnation's stream
 * from sequence 0 on.
 */

#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>

#include "rds_test.h"

#define RDS_STREAM_MAX_SOCKS 8

struct rds_stream_conf {
	unsigned int nsock;
	const char *ip[RDS_STREAM_MAX_SOCKS];
	uint16_t port[RDS_STREAM_MAX_SOCKS];
	int trans;		/* SO_RDS_TRANSPORT to pin, or -1 */
	uint64_t total;		/* messages in all */
	uint32_t small_max;	/* most messages: 0 .. small_max bytes */
	uint32_t large_one_in;	/* one in this many: large (0: never) */
	uint32_t large_min, large_max;
	int sockbuf;		/* SO_SNDBUF and SO_RCVBUF */
	unsigned int stall_s;	/* fail after this long without progress */
	unsigned int limit_s;	/* and after this long in all */
	/* Drive the engines once (default rds_test_kick); returns work. */
	int (*kick)(void);
	/* Sockets this process owns, bit i for socket i (0: all). Only
	 * those are opened, send and receive; every process of a run uses
	 * the same configuration apart from local_mask, gen and
	 * resync_mask. */
	uint32_t local_mask;
	/* Where socket i sends: bit j for socket j (0: every other). */
	uint32_t dst_mask[RDS_STREAM_MAX_SOCKS];
	/* Compare every received byte with the payload expected, not only
	 * header and length (the running SHA-256 covers the rest at the
	 * end, but only where both ends are in this process). */
	bool check_bytes;
	/* Incarnation of each socket's sender (0 at first; mixed into its
	 * payloads and headers). A local socket sends with its own; a
	 * receiver takes a sender's stream from incarnation 0 up to gen[i]:
	 * a newer incarnation's stream from its sequence 0 (the running
	 * SHA-256 of that pair starts again), never an older one after a
	 * newer. The run ends when every pair is complete in gen[i]. */
	uint32_t gen[RDS_STREAM_MAX_SOCKS];
	/* Senders (bit i: socket i) whose stream may begin at any sequence
	 * at each local socket (this process restarted and missed the
	 * beginning): the first message taken sets the sequence, every
	 * later one must follow it exactly. */
	uint32_t resync_mask;
};

/* Defaults: 4 sockets as the loop suites place them, 0..4096 bytes, one
 * in a thousand 64 KiB..1 MiB, 4 MiB buffers, no pinned transport. */
void rds_stream_conf_default(struct rds_stream_conf *c, uint64_t total);

struct rds_stream;

/* Open and bind the sockets (the library must be up). NULL on failure
 * (printed). */
struct rds_stream *rds_stream_new(const struct rds_stream_conf *c);
/* Run to completion; false on failure (printed). */
bool rds_stream_run(struct rds_stream *st, const char *what);
/* Nothing more arrives at a local socket afterwards (no late
 * duplicate). */
bool rds_stream_quiet(struct rds_stream *st);
/* Counts and digests of every pair whose two ends are local; the number
 * of mismatching pairs. */
unsigned int rds_stream_verify(struct rds_stream *st);
/* What happened: messages sent/received, bytes, EAGAIN/ENOBUFS seen. */
void rds_stream_counts(const struct rds_stream *st, uint64_t *sent,
		       uint64_t *received, uint64_t *bytes, uint64_t *eagain,
		       uint64_t *enobufs);
/* One round of the run (sends, engine kicks, receives): the progress
 * made (messages sent and received), or -1 once failed (printed). */
int rds_stream_step(struct rds_stream *st);
/* Everything sent from the local sockets and received at them? */
bool rds_stream_finished(const struct rds_stream *st);
/* After the run, while the peers finish: one kick, and nothing may
 * arrive at a local socket (false, printed, if something does). */
bool rds_stream_idle(struct rds_stream *st);
/* Digest, messages and bytes of pair src -> dst on the sending side (tx)
 * or the receiving side; false when that side is not local. For a pair
 * taken from a resync, *first (may be NULL) is the first sequence taken
 * (else 0). */
bool rds_stream_digest(struct rds_stream *st, bool tx, unsigned int src,
		       unsigned int dst, uint8_t digest[RDS_TEST_SHA_LEN],
		       uint64_t *msgs, uint64_t *bytes, uint64_t *first);
/* Messages src sends to dst in all (the configuration decides). */
uint64_t rds_stream_expected(const struct rds_stream *st, unsigned int src,
			     unsigned int dst);
/* Close the sockets, free. */
void rds_stream_free(struct rds_stream *st);

#endif /* RDS_STREAM_H */

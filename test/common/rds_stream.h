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
/* Nothing more arrives afterwards (no late duplicate). */
bool rds_stream_quiet(struct rds_stream *st);
/* Counts and digests of every pair; the number of mismatching pairs. */
unsigned int rds_stream_verify(struct rds_stream *st);
/* What happened: messages sent/received, bytes, EAGAIN/ENOBUFS seen. */
void rds_stream_counts(const struct rds_stream *st, uint64_t *sent,
		       uint64_t *received, uint64_t *bytes, uint64_t *eagain,
		       uint64_t *enobufs);
/* Close the sockets, free. */
void rds_stream_free(struct rds_stream *st);

#endif /* RDS_STREAM_H */

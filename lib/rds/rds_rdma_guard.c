/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Wrong RDMA keys at the software executor's target half (loop, eth:
 * rds_rdma_exec.c), on the engine that owns the connection a request
 * came in on. A cookie's key is 32 random bits (rds_rdma_key.c): with N
 * live regions a blind guess hits one with probability N / 2^32, so what
 * keeps a peer out is how few guesses it gets. Each is answered
 * RDS_RDMA_REMOTE_ERROR as any refused operation (the initiator cannot
 * tell a wrong key from bounds or rights), and counted:
 *
 * - A key that a region freed lately had (rds_mr_key_freed) is a cookie
 *   used as its region went, an honest race (a region freed, a USE_ONCE
 *   region used, a socket closed, while the peer's operation was on its
 *   way): s_rdma_stale_key, never against the connection.
 * - Any other key that names no region of the target address is a guess
 *   or a bug: s_rdma_bad_key, and one more in the connection's leaky
 *   bucket, from which one leaks every RDS_KEY_LEAK_MS. When the bucket
 *   holds RDS_KEY_LIMIT, the connection is reset (rds_conn_error, as a
 *   driver's error), the reset logged (the addresses; at most one line a
 *   second per engine) and counted (s_rdma_bad_key_reset), and every RDMA
 *   request on it is refused for a hold-off, RDS_RDMA_DROPPED without a
 *   look at its key (s_rdma_held): RDS_KEY_HOLD_MS, doubled at every such
 *   reset of the connection up to RDS_KEY_HOLD_MAX_MS.
 *
 * The hold-off is the target's own clock, not the reconnect backoff: a
 * reset does not stop a peer's requests (over loop the initiator's end
 * reconnects both ends at once; over eth the target restarts only its
 * own stream and the peer's keeps coming, and a remote guesser runs
 * software of its own anyway). The count, the resets and the hold-off
 * are the connection's and survive its reconnects. So a peer gets at
 * most RDS_KEY_LIMIT guesses per hold-off, 16 per 64 s once it has been
 * reset 7 times, or one per RDS_KEY_LEAK_MS (4 s) below the limit: 1/4
 * of a guess a second either way (doc/guide.md section 5 has what that
 * makes of the odds).
 */
#include <inttypes.h>
#include <arpa/inet.h>

#include "rds_rdma_private.h"

#define RDS_KEY_LIMIT 16		/* wrong keys in the bucket: reset */
#define RDS_KEY_LEAK_MS 4000		/* one leaks out every ... */
#define RDS_KEY_HOLD_MS 1000		/* hold-off after the first reset */
#define RDS_KEY_HOLD_MAX_MS 64000	/* ... doubled up to this */
#define RDS_KEY_LOG_MS 1000		/* one line per engine at most */

static inline uint64_t
rds_key_ms_tsc(uint64_t ms)
{
	return ms * rds_lib->tsc_hz / 1000;
}

bool
rds_rdma_guard_held(struct rds_conn *tc)
{
	if (likely(tc->rdma_hold_until == 0))
		return false;
	if (rds_tsc() >= tc->rdma_hold_until) {
		tc->rdma_hold_until = 0;
		return false;
	}
	rds_stat_inc(tc->eng, s_rdma_held);
	return true;
}

/* The bucket, as it is now (one leaked per RDS_KEY_LEAK_MS since). */
static void
rds_key_leak(struct rds_conn *tc, uint64_t now)
{
	uint64_t leak = rds_key_ms_tsc(RDS_KEY_LEAK_MS);
	uint64_t n = (now - tc->rdma_key_leak_tsc) / leak;

	if (tc->rdma_key_level == 0 || n >= tc->rdma_key_level) {
		tc->rdma_key_level = 0;
		tc->rdma_key_leak_tsc = now;
		return;
	}
	tc->rdma_key_level -= (uint32_t)n;
	tc->rdma_key_leak_tsc += n * leak;
}

static void
rds_key_log(struct rds_conn *tc, uint64_t now, uint64_t hold_ms)
{
	struct rds_engine *e = tc->eng;
	char l[INET_ADDRSTRLEN], f[INET_ADDRSTRLEN];
	uint32_t la = rds_addr_v4(&tc->key.laddr);
	uint32_t fa = rds_addr_v4(&tc->key.faddr);

	/* A guesser with many addresses (eth has no authentication: any
	 * host of the segment can claim one) must not flood the log. */
	if (e->key_log_tsc != 0 &&
	    now - e->key_log_tsc < rds_key_ms_tsc(RDS_KEY_LOG_MS)) {
		e->key_log_quiet++;
		return;
	}
	inet_ntop(AF_INET, &fa, f, sizeof(f));
	inet_ntop(AF_INET, &la, l, sizeof(l));
	RDS_LOG(WARNING, "RDMA: %s sent %u wrong keys to %s (%s, %" PRIu64
		" in all): connection reset, its RDMA refused for %" PRIu64
		" ms (reset %u for wrong keys; %u more such resets on this "
		"engine since the last line)", f, RDS_KEY_LIMIT, l,
		tc->trans->name, tc->rdma_bad_keys, hold_ms,
		tc->rdma_key_resets, e->key_log_quiet);
	e->key_log_tsc = now;
	e->key_log_quiet = 0;
}

void
rds_rdma_guard_key(struct rds_conn *tc, enum rds_key_check kc)
{
	uint64_t now = rds_tsc(), hold_ms;
	unsigned int shift;

	if (kc == RDS_KEY_STALE) {
		rds_stat_inc(tc->eng, s_rdma_stale_key);
		return;
	}
	rds_stat_inc(tc->eng, s_rdma_bad_key);
	tc->rdma_bad_keys++;
	rds_key_leak(tc, now);
	if (++tc->rdma_key_level < RDS_KEY_LIMIT)
		return;
	tc->rdma_key_level = 0;
	tc->rdma_key_resets++;
	shift = RTE_MIN(tc->rdma_key_resets - 1, 16u);
	hold_ms = RTE_MIN((uint64_t)RDS_KEY_HOLD_MS << shift,
			  (uint64_t)RDS_KEY_HOLD_MAX_MS);
	tc->rdma_hold_until = now + rds_key_ms_tsc(hold_ms);
	rds_stat_inc(tc->eng, s_rdma_bad_key_reset);
	rds_key_log(tc, now, hold_ms);
	rds_conn_error(tc, "wrong RDMA keys");
}

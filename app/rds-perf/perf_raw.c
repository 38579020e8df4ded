/* SPDX-License-Identifier: BSD-3-Clause */

/* rds-perf raw ring floors: plain rte_ring, no RDS code. */

#include <stdlib.h>

#include <rte_memory.h>
#include <rte_ring.h>

#include "perf.h"

/*
 * The raw ring floor: one thread enqueues bursts of PERF_BURST pointers to
 * 32-byte messages into an SP/SC rte_ring and dequeues them again, stamping
 * a sequence number into each message and checking it on the way out. No
 * RDS code runs. Returns messages through the ring per second.
 */
double
perf_raw_ring(double secs, uint64_t *errors)
{
	const uint64_t hz = rte_get_tsc_hz();
	void *in[PERF_BURST], *out[PERF_BURST];
	uint64_t seq = 0, total = 0, t0, t1, warm_end, end;
	bool measuring = false;
	struct rte_ring *r;
	uint8_t *msgs;
	unsigned int i, k, n;

	r = rte_ring_create("rds_perf_raw", PERF_RAW_RING_SIZE, SOCKET_ID_ANY,
			    RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (r == NULL)
		perf_fail("rte_ring_create(rds_perf_raw)");
	msgs = calloc(PERF_BURST, PERF_RAW_MSG_SIZE);
	if (msgs == NULL)
		perf_die("out of memory");
	for (i = 0; i < PERF_BURST; i++)
		in[i] = msgs + i * PERF_RAW_MSG_SIZE;

	t0 = rte_rdtsc();
	warm_end = t0 + hz * PERF_WARMUP_MS / 1000;
	end = warm_end + (uint64_t)(secs * (double)hz);
	t1 = t0;
	for (;;) {
		for (k = 0; k < PERF_RAW_CLOCK_EVERY; k++) {
			for (i = 0; i < PERF_BURST; i++) {
				uint64_t s = seq + i;

				memcpy(in[i], &s, sizeof(s));
			}
			n = rte_ring_enqueue_burst(r, in, PERF_BURST, NULL);
			if (rte_ring_dequeue_burst(r, out, PERF_BURST, NULL) != n ||
			    n != PERF_BURST) {
				(*errors)++;
				break;
			}
			for (i = 0; i < n; i++) {
				uint64_t s;

				memcpy(&s, out[i], sizeof(s));
				if (s != seq + i)
					(*errors)++;
			}
			seq += n;
			if (measuring)
				total += n;
		}
		t1 = rte_rdtsc();
		if (!measuring && t1 >= warm_end) {
			measuring = true;
			t0 = t1;
		} else if (measuring && t1 >= end) {
			break;
		}
	}
	rte_ring_free(r);
	free(msgs);
	return (double)total / ((double)(t1 - t0) / (double)hz);
}

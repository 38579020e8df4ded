/* SPDX-License-Identifier: BSD-3-Clause */

/* rds-perf raw ring floors: plain rte_ring, no RDS code. */

#include <stdlib.h>

#include <rte_launch.h>
#include <rte_lcore.h>
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

/*
 * The raw ring ping-pong floor: this lcore and a worker lcore bounce one
 * 64-byte object through two SP/SC rte_rings (one each way), busy-polling
 * as the engine does (RTE_RDS_IDLE_BUSY: no pause). This lcore stamps a
 * sequence number into the object, takes rte_rdtsc(), enqueues it, spins
 * until it comes back and takes rte_rdtsc() again: one round trip, two
 * core crossings. The worker copies the sequence number into the object's
 * second word (so the line goes back written, as a message would), which
 * this lcore checks. No RDS code runs.
 */
struct perf_pp {
	struct rte_ring *ping;		/* this lcore -> worker */
	struct rte_ring *pong;		/* worker -> this lcore */
	void *stop;			/* the worker returns when it gets it */
};

static int
perf_pp_worker(void *arg)
{
	const struct perf_pp *pp = arg;
	uint64_t *obj;

	for (;;) {
		while (rte_ring_sc_dequeue(pp->ping, (void **)&obj) != 0)
			;
		if (obj == pp->stop)
			return 0;
		obj[1] = obj[0];
		while (rte_ring_sp_enqueue(pp->pong, obj) != 0)
			;
	}
}

/* The worker lcore of the ping-pong, or RTE_MAX_LCORE when there is
 * none. */
unsigned int
perf_raw_ring_pp_lcore(void)
{
	return rte_get_next_lcore(-1, 1, 0);
}

void
perf_raw_ring_pp(double secs, struct perf_floors *f)
{
	const uint64_t hz = rte_get_tsc_hz();
	const unsigned int worker = perf_raw_ring_pp_lcore();
	uint64_t t0, t1, warm_end, end, stall, seq = 0, spins;
	static uint64_t stop_obj;
	struct perf_rtt rtt;
	struct perf_pp pp;
	bool measuring = false;
	uint64_t *obj, *got;
	int ret;

	if (worker >= RTE_MAX_LCORE)
		perf_die("--raw-ring-pp needs a worker lcore (-l 0-1)");
	if (rte_eal_get_lcore_state(worker) != WAIT)
		perf_die("--raw-ring-pp: lcore %u is busy", worker);
	pp.ping = rte_ring_create("rds_perf_pp_ping", PERF_PP_RING_SIZE,
				  SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	pp.pong = rte_ring_create("rds_perf_pp_pong", PERF_PP_RING_SIZE,
				  SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (pp.ping == NULL || pp.pong == NULL)
		perf_fail("rte_ring_create(rds_perf_pp_*)");
	pp.stop = &stop_obj;
	obj = aligned_alloc(RTE_CACHE_LINE_SIZE, PERF_PP_OBJ_SIZE);
	if (obj == NULL || perf_rtt_init(&rtt, 0) < 0)
		perf_die("out of memory");
	memset(obj, 0, PERF_PP_OBJ_SIZE);
	ret = rte_eal_remote_launch(perf_pp_worker, &pp, worker);
	if (ret != 0) {
		rte_errno = -ret;
		perf_fail("rte_eal_remote_launch(lcore %u)", worker);
	}

	f->pp = true;
	f->pp_lcore[0] = rte_lcore_id();
	f->pp_lcore[1] = worker;
	f->pp_errors = 0;
	f->pp_rtts = 0;
	t1 = rte_rdtsc();
	warm_end = t1 + hz * PERF_WARMUP_MS / 1000;
	end = warm_end + (uint64_t)(secs * (double)hz);
	stall = hz * PERF_STALL_S;
	for (;;) {
		obj[0] = seq;
		t0 = rte_rdtsc();
		if (rte_ring_sp_enqueue(pp.ping, obj) != 0)
			perf_die("--raw-ring-pp: the ring is full");
		spins = 0;
		while (rte_ring_sc_dequeue(pp.pong, (void **)&got) != 0)
			if ((++spins & 0xffff) == 0 &&
			    rte_rdtsc() - t0 > stall)
				perf_die("--raw-ring-pp: lcore %u did not answer for %u s",
					 worker, PERF_STALL_S);
		t1 = rte_rdtsc();
		if (got != obj || obj[1] != seq)
			f->pp_errors++;
		if (measuring) {
			perf_rtt_add(&rtt, t1 - t0);
			f->pp_rtts++;
		}
		seq++;
		if (!measuring && t1 >= warm_end)
			measuring = true;
		else if (measuring && t1 >= end)
			break;
	}
	while (rte_ring_sp_enqueue(pp.ping, pp.stop) != 0)
		;
	rte_eal_wait_lcore(worker);

	perf_rtt_sort(&rtt);
	f->pp_samples = rtt.n;
	f->pp_p50 = perf_cycles_ns(perf_rtt_pct(&rtt, PERF_PCT_P50), hz);
	f->pp_p99 = perf_cycles_ns(perf_rtt_pct(&rtt, PERF_PCT_P99), hz);
	f->pp_p999 = perf_cycles_ns(perf_rtt_pct(&rtt, PERF_PCT_P999), hz);
	f->pp_max = perf_cycles_ns(rtt.max, hz);
	perf_rtt_free(&rtt);
	free(obj);
	rte_ring_free(pp.ping);
	rte_ring_free(pp.pong);
}

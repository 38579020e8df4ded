/* SPDX-License-Identifier: BSD-3-Clause */
/* The library kept up across inputs (see fuzz_state.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "fuzz_common.h"
#include "fuzz_state.h"
#include "rds_private.h"
#include "rte_rds_socket.h"

#ifndef RDS_FUZZ_CLOCK
#error "the fuzz targets are built with -DRDS_FUZZ_CLOCK"
#endif
#ifndef RDS_LIBC_ALLOC
#error "the fuzz targets count the library's memory: -Dlibc_alloc=true"
#endif

#define FZ_CLOCK_PHASE (UINT64_C(1) << 32)

void
fz_clock_hold(void)
{
	__atomic_store_n(&rds_fuzz_clock.tsc, rte_rdtsc(), __ATOMIC_RELEASE);
	__atomic_store_n(&rds_fuzz_clock.held, true, __ATOMIC_RELEASE);
}

void
fz_clock_input(void)
{
	uint64_t t = __atomic_load_n(&rds_fuzz_clock.tsc, __ATOMIC_ACQUIRE);

	/* The wheel's turn (1024 ticks of 2^shift cycles, shift about 15)
	 * divides the phase: every input starts at tick 0 of a turn. */
	t = (t / FZ_CLOCK_PHASE + 1) * FZ_CLOCK_PHASE;
	__atomic_store_n(&rds_fuzz_clock.tsc, t, __ATOMIC_RELEASE);
}

void
fz_clock_us(unsigned int us)
{
	__atomic_add_fetch(&rds_fuzz_clock.tsc,
			   (uint64_t)us * rte_get_tsc_hz() / 1000000,
			   __ATOMIC_ACQ_REL);
}

void
fz_state_take(struct fz_state *s)
{
	unsigned int i;

	s->open = __atomic_load_n(&rds_lib->nb_open, __ATOMIC_ACQUIRE);
	s->conns = 0;
	s->armed = 0;
	for (i = 0; i < rds_lib->nb_engines; i++) {
		struct rds_engine *e = rds_engine_get(i);

		s->conns += e->nb_conns;
		s->armed += e->wheel.nb_armed;
	}
	s->bufs = rds_buf_nb_live();
	s->mems = rds_mem_nb_live();
}

void
fz_state_check(const struct fz_state *s, const char *where)
{
	struct fz_state n;

	fz_state_take(&n);
	/* Between inputs nothing is open, connected or armed (also in the
	 * state taken after the warm-up: else a leak there would pass). */
	FZ_CHECK(n.open == 0 && n.conns == 0 && n.armed == 0 &&
		 s->open == 0 && s->conns == 0 && s->armed == 0 &&
		 n.bufs == s->bufs && n.mems == s->mems,
		 "STATE LEAK %s: sockets %u (was %u), connections %u (%u), "
		 "timers armed %u (%u), message buffers %llu (%llu), library "
		 "blocks %llu (%llu)", where, n.open, s->open, n.conns,
		 s->conns, n.armed, s->armed, (unsigned long long)n.bufs,
		 (unsigned long long)s->bufs, (unsigned long long)n.mems,
		 (unsigned long long)s->mems);
}

void
fz_conns_destroy(void)
{
	unsigned int i;
	struct rds_conn *c;

	for (i = 0; i < rds_lib->nb_engines; i++) {
		struct rds_engine *e = rds_engine_get(i);

		while ((c = TAILQ_FIRST(&e->conns)) != NULL)
			rds_conn_destroy(c);
	}
}

static void
fz_cong_map_clear(uint32_t ip)
{
	struct in6_addr a;
	struct rds_cong_map *map;

	rds_addr_from_v4(&a, ip);
	map = rds_cong_map_get(&a);
	FZ_CHECK(map != NULL, "no congestion map for %08x", ip);
	memset(map->bits, 0, sizeof(map->bits));
	__atomic_add_fetch(&map->gen, 1, __ATOMIC_RELEASE);
}

void
fz_input_end(const int *s, unsigned int n, uint32_t peer_ip,
	     const struct fz_state *clean)
{
	unsigned int i;

	for (i = n; i-- > 0;)
		FZ_CHECK(rte_rds_close(s[i]) == 0, "close: errno %d", errno);
	rte_rds_engine_poll(0);
	fz_conns_destroy();
	fz_cong_map_clear(peer_ip);
	rte_rds_engine_poll(0);
	if (clean != NULL)
		fz_state_check(clean, "after an input");
}

void
fz_stats_sub(struct rte_rds_stats *d, const struct rte_rds_stats *a,
	     const struct rte_rds_stats *b)
{
	const uint64_t *pa = (const uint64_t *)a, *pb = (const uint64_t *)b;
	uint64_t *pd = (uint64_t *)d;
	unsigned int i;

	for (i = 0; i < RTE_RDS_STATS_NUM; i++)
		pd[i] = pa[i] - pb[i];
}

/* ------------------------------------------------------------------ */
/* Inputs run again */

static bool fz_digest_on;
static uint64_t fz_digest;
static void (*fz_digest_next)(void *arg, const uint8_t hdr[48],
			      const uint8_t *payload, uint32_t len);

void
fz_digest_add(const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	if (!fz_digest_on)
		return;
	for (i = 0; i < n; i++) {
		fz_digest ^= b[i];
		fz_digest *= 0x100000001b3ULL;
	}
}

void
fz_digest_inner(void (*inner)(void *arg, const uint8_t hdr[48],
			      const uint8_t *payload, uint32_t len))
{
	fz_digest_next = inner;
}

void
fz_digest_sink(void *arg, const uint8_t hdr[48], const uint8_t *payload,
	       uint32_t len)
{
	fz_digest_add(hdr, 48);
	fz_digest_add(payload, len);
	fz_digest_next(arg, hdr, payload, len);
}

/* A copy of an input, kept for a later run. */
struct fz_kept {
	uint8_t *d;
	size_t n;
	bool set;
};

static void
fz_keep(struct fz_kept *k, const uint8_t *d, size_t n)
{
	uint8_t *p = realloc(k->d, n != 0 ? n : 1);

	if (p == NULL)
		fz_fail("no memory for a copy of an input");
	if (n != 0)
		memcpy(p, d, n);
	k->d = p;
	k->n = n;
	k->set = true;
}

static uint64_t
fz_digest_of(void (*run)(const uint8_t *d, size_t n), const uint8_t *d,
	     size_t n)
{
	fz_digest = 0xcbf29ce484222325ULL;
	fz_digest_on = true;
	run(d, n);
	fz_digest_on = false;
	return fz_digest;
}

void
fz_recheck_run(void (*run)(const uint8_t *d, size_t n), const uint8_t *d,
	       size_t n)
{
	/* The last two inputs run, the last first. */
	static struct fz_kept prev, prev2;
	static uint64_t count;
	static long every = -1;
	struct fz_kept t;
	uint64_t d1, d2;
	FILE *f;

	if (every < 0) {
		const char *e = getenv("RDS_FUZZ_RECHECK");

		every = e != NULL ? strtol(e, NULL, 10) : 16;
		if (every < 0)
			every = 0;
	}
	if (every == 0 || !prev2.set || ++count % (uint64_t)every != 0) {
		run(d, n);
	} else {
		d1 = fz_digest_of(run, d, n);	/* after prev */
		run(prev2.d, prev2.n);
		d2 = fz_digest_of(run, d, n);	/* after prev2 */
		if (d1 != d2) {
			f = fopen("fuzz-recheck-prev", "wb");
			if (f != NULL) {
				fwrite(prev.d, 1, prev.n, f);
				fclose(f);
			}
			fz_fail("STATE LEAK: this input did other things "
				"(frames sent, counters) after another input "
				"than the one it followed (%zu bytes, in "
				"./fuzz-recheck-prev)", prev.n);
		}
	}
	/* prev2 = prev, prev = this input. */
	t = prev2;
	prev2 = prev;
	prev = t;
	fz_keep(&prev, d, n);
}

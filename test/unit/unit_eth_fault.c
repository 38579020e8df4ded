/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unit_eth: fault injection (rds_eth_fault.c).
 */

#include "unit_eth.h"

/* ------------------------------------------------------------------ */
/* Faults */

#define FSEQ_MAX 40000

/* A small frame carrying its number in its first 4 bytes. */
static struct rte_mbuf *
mk_seq(uint32_t seq)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *b;

	if (m == NULL)
		abort();
	b = (uint8_t *)rte_pktmbuf_append(m, 64);
	if (b == NULL)
		abort();
	memset(b, (int)(seq & 0xff), 64);
	memcpy(b, &seq, 4);
	return m;
}

static uint32_t
seq_of(const struct rte_mbuf *m)
{
	uint32_t s;

	memcpy(&s, rte_pktmbuf_mtod(m, const void *), 4);
	return s;
}

struct fault_run {
	uint32_t out[FSEQ_MAX * 2];	/* sequence of what came out */
	uint32_t nb_out;
	uint32_t count[FSEQ_MAX];	/* times each came out */
};

static struct fault_run run_a, run_b;

/* Push n frames through f in bursts of 32 (time now, fixed), then drain
 * with time far ahead. Everything that comes out is recorded and
 * freed. */
static void
fault_run(struct rds_eth_fault *f, uint32_t n, struct rte_rds_eth_stats *st,
	  struct fault_run *r)
{
	struct rte_mbuf *in[32], *out[64];
	uint64_t now = rte_get_tsc_cycles();
	uint32_t seq = 0, i, k;
	uint16_t got;

	memset(r, 0, sizeof(*r));
	while (seq < n || rds_eth_fault_held(f) != 0) {
		k = 0;
		while (k < 32 && seq < n)
			in[k++] = mk_seq(seq++);
		if (k == 0)
			now += rte_get_tsc_hz();	/* release everything */
		got = rds_eth_fault_apply(f, in, (uint16_t)k, out, 64, now, st);
		for (i = 0; i < got; i++) {
			uint32_t s = seq_of(out[i]);

			if (s < FSEQ_MAX)
				r->count[s]++;
			if (r->nb_out < RTE_DIM(r->out))
				r->out[r->nb_out++] = s;
			rte_pktmbuf_free(out[i]);
		}
	}
}

static bool
near(uint64_t got, double want, double tol)
{
	return got >= want * (1 - tol) && got <= want * (1 + tol);
}

void
test_fault_zero(void)
{
	struct rte_rds_eth_faults cfg;
	struct rte_rds_eth_stats st;
	struct rte_mbuf *in[64], *out[64];
	struct rds_eth_fault *f = rds_eth_fault_create(1);
	uint16_t got, i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	memset(&st, 0, sizeof(st));
	memset(&cfg, 0, sizeof(cfg));
	cfg.seed = 42;
	cfg.reorder_depth = 4;
	cfg.delay_us = 100;
	rds_eth_fault_set(f, &cfg);
	for (i = 0; i < 64; i++)
		in[i] = mk_seq(i);
	/* Unchanged, in order, the same mbufs. */
	got = rds_eth_fault_apply(f, in, 64, out, 64, 0, &st);
	CU_ASSERT_EQUAL(got, 64);
	for (i = 0; i < got; i++)
		CU_ASSERT_PTR_EQUAL(out[i], in[i]);
	CU_ASSERT_EQUAL(rds_eth_fault_held(f), 0);
	/* No room for all: the rest comes next, in order. */
	got = rds_eth_fault_apply(f, out, 64, in, 40, 0, &st);
	CU_ASSERT_EQUAL(got, 40);
	CU_ASSERT_EQUAL(rds_eth_fault_held(f), 24);
	for (i = 0; i < 40; i++)
		CU_ASSERT_EQUAL(seq_of(in[i]), i);
	for (i = 0; i < 40; i++)
		rte_pktmbuf_free(in[i]);
	got = rds_eth_fault_apply(f, NULL, 0, in, 64, 0, &st);
	CU_ASSERT_EQUAL(got, 24);
	for (i = 0; i < got; i++) {
		CU_ASSERT_EQUAL(seq_of(in[i]), 40u + i);
		rte_pktmbuf_free(in[i]);
	}
	CU_ASSERT_EQUAL(st.fault_dropped + st.fault_duplicated +
			st.fault_reordered + st.fault_delayed +
			st.fault_corrupted, 0);
	/* NULL settings: off too. */
	rds_eth_fault_set(f, NULL);
	fault_run(f, 1000, &st, &run_a);
	CU_ASSERT_EQUAL(run_a.nb_out, 1000);
	for (i = 0; i < 1000; i++)
		CU_ASSERT_EQUAL(run_a.out[i], i);
	rds_eth_fault_free(f);
	check_no_leak();
}

void
test_fault_drop(void)
{
	struct rte_rds_eth_faults cfg = { .drop_ppm = 100000, .seed = 7 };
	struct rte_rds_eth_stats st;
	struct rds_eth_fault *f = rds_eth_fault_create(0);
	uint32_t i, prev = 0, lost = 0;
	bool first = true;

	memset(&st, 0, sizeof(st));
	rds_eth_fault_set(f, &cfg);
	fault_run(f, 20000, &st, &run_a);
	printf("(dropped %" PRIu64 " of 20000) ", st.fault_dropped);
	CU_ASSERT(near(st.fault_dropped, 2000, 0.1));
	CU_ASSERT_EQUAL(run_a.nb_out + st.fault_dropped, 20000);
	/* The rest in order, once. */
	for (i = 0; i < run_a.nb_out; i++) {
		CU_ASSERT(first || run_a.out[i] > prev);
		prev = run_a.out[i];
		first = false;
	}
	for (i = 0; i < 20000; i++) {
		CU_ASSERT(run_a.count[i] <= 1);
		lost += run_a.count[i] == 0;
	}
	CU_ASSERT_EQUAL(lost, st.fault_dropped);
	/* Everything. */
	cfg.drop_ppm = 1000000;
	rds_eth_fault_set(f, &cfg);
	fault_run(f, 100, &st, &run_a);
	CU_ASSERT_EQUAL(run_a.nb_out, 0);
	rds_eth_fault_free(f);
	check_no_leak();
}

void
test_fault_dup(void)
{
	struct rte_rds_eth_faults cfg = { .dup_ppm = 50000, .seed = 8 };
	struct rte_rds_eth_stats st;
	struct rds_eth_fault *f = rds_eth_fault_create(0);
	uint32_t i, twice = 0;

	memset(&st, 0, sizeof(st));
	rds_eth_fault_set(f, &cfg);
	fault_run(f, 20000, &st, &run_a);
	printf("(duplicated %" PRIu64 " of 20000) ", st.fault_duplicated);
	CU_ASSERT(near(st.fault_duplicated, 1000, 0.15));
	CU_ASSERT_EQUAL(run_a.nb_out, 20000 + st.fault_duplicated);
	for (i = 0; i < 20000; i++) {
		CU_ASSERT(run_a.count[i] == 1 || run_a.count[i] == 2);
		twice += run_a.count[i] == 2;
	}
	CU_ASSERT_EQUAL(twice, st.fault_duplicated);
	/* A duplicate right after its original: the order is kept. */
	for (i = 1; i < run_a.nb_out; i++)
		CU_ASSERT(run_a.out[i] >= run_a.out[i - 1]);
	rds_eth_fault_free(f);
	check_no_leak();
}

void
test_fault_reorder(void)
{
	struct rte_rds_eth_faults cfg = { .reorder_ppm = 100000,
					  .reorder_depth = 3, .seed = 9 };
	struct rte_rds_eth_stats st;
	struct rds_eth_fault *f = rds_eth_fault_create(0);
	uint32_t i, j, later, inversions = 0, maxlater = 0;

	memset(&st, 0, sizeof(st));
	rds_eth_fault_set(f, &cfg);
	fault_run(f, 20000, &st, &run_a);
	printf("(reordered %" PRIu64 " of 20000) ", st.fault_reordered);
	CU_ASSERT(near(st.fault_reordered, 2000, 0.15));
	/* Every frame exactly once. */
	CU_ASSERT_EQUAL(run_a.nb_out, 20000);
	for (i = 0; i < 20000; i++)
		CU_ASSERT_EQUAL(run_a.count[i], 1);
	/* Each frame is passed by at most depth later ones. */
	for (i = 0; i < run_a.nb_out; i++) {
		later = 0;
		for (j = i >= 64 ? i - 64 : 0; j < i; j++)
			later += run_a.out[j] > run_a.out[i];
		if (later > maxlater)
			maxlater = later;
		inversions += later != 0;
	}
	CU_ASSERT(maxlater <= 3);
	CU_ASSERT(inversions > st.fault_reordered / 2);
	CU_ASSERT(inversions <= st.fault_reordered);

	/* Depth 1 at every frame: a delay line of one, in order. */
	cfg.reorder_ppm = 1000000;
	cfg.reorder_depth = 1;
	rds_eth_fault_set(f, &cfg);
	fault_run(f, 100, &st, &run_a);
	CU_ASSERT_EQUAL(run_a.nb_out, 100);
	for (i = 0; i < 100; i++) {
		CU_ASSERT_EQUAL(run_a.count[i], 1);
		CU_ASSERT_EQUAL(run_a.out[i], i);
	}
	rds_eth_fault_free(f);
	check_no_leak();
}

void
test_fault_reorder_timeout(void)
{
	struct rte_rds_eth_faults cfg = { .reorder_ppm = 1000000,
					  .reorder_depth = 16 };
	struct rds_eth_fault *f = rds_eth_fault_create(0);
	struct rte_mbuf *in[1], *out[4];
	uint64_t now = 1000, hz = rte_get_tsc_hz();

	rds_eth_fault_set(f, &cfg);
	in[0] = mk_seq(5);
	CU_ASSERT_EQUAL(rds_eth_fault_apply(f, in, 1, out, 4, now, NULL), 0);
	CU_ASSERT_EQUAL(rds_eth_fault_apply(f, NULL, 0, out, 4,
					    now + hz / 2000, NULL), 0);
	/* No more traffic: out after 1 ms anyway. */
	CU_ASSERT_EQUAL(rds_eth_fault_apply(f, NULL, 0, out, 4,
					    now + hz / 1000, NULL), 1);
	CU_ASSERT_EQUAL(seq_of(out[0]), 5);
	rte_pktmbuf_free(out[0]);
	rds_eth_fault_free(f);
	check_no_leak();
}

void
test_fault_delay(void)
{
	struct rte_rds_eth_faults cfg = { .delay_ppm = 1000000,
					  .delay_us = 200 };
	struct rte_rds_eth_stats st;
	struct rds_eth_fault *f = rds_eth_fault_create(0);
	struct rte_mbuf *in[10], *out[64];
	uint64_t hz = rte_get_tsc_hz(), t = 5 * hz, d = 200 * hz / 1000000;
	uint16_t got, i;

	memset(&st, 0, sizeof(st));
	rds_eth_fault_set(f, &cfg);
	for (i = 0; i < 10; i++)
		in[i] = mk_seq(i);
	CU_ASSERT_EQUAL(rds_eth_fault_apply(f, in, 10, out, 64, t, &st), 0);
	CU_ASSERT_EQUAL(st.fault_delayed, 10);
	CU_ASSERT_EQUAL(rds_eth_fault_held(f), 10);
	CU_ASSERT_EQUAL(rds_eth_fault_apply(f, NULL, 0, out, 64, t + d - 1,
					    &st), 0);
	/* At the time set, all of them, in order. */
	got = rds_eth_fault_apply(f, NULL, 0, out, 64, t + d, &st);
	CU_ASSERT_EQUAL(got, 10);
	for (i = 0; i < got; i++) {
		CU_ASSERT_EQUAL(seq_of(out[i]), i);
		rte_pktmbuf_free(out[i]);
	}
	CU_ASSERT_EQUAL(rds_eth_fault_held(f), 0);

	/* 10 %: counted, and every frame comes out once. */
	cfg.delay_ppm = 100000;
	cfg.seed = 11;
	rds_eth_fault_set(f, &cfg);
	memset(&st, 0, sizeof(st));
	fault_run(f, 20000, &st, &run_a);
	printf("(delayed %" PRIu64 " of 20000) ", st.fault_delayed);
	CU_ASSERT(near(st.fault_delayed, 2000, 0.15));
	CU_ASSERT_EQUAL(run_a.nb_out, 20000);
	for (i = 0; i < 20000 && i < FSEQ_MAX; i++)
		CU_ASSERT_EQUAL(run_a.count[i], 1);
	rds_eth_fault_free(f);
	check_no_leak();
}

void
test_fault_corrupt(void)
{
	struct rte_rds_eth_faults cfg = { .corrupt_ppm = 1000000, .seed = 3 };
	struct rte_rds_eth_stats st;
	struct rds_eth_fault *f = rds_eth_fault_create(0);
	struct rds_eth_frame fr, g;
	struct rte_mbuf *m, *out[4];
	uint8_t *orig, *copy;
	uint32_t n, n2, i, diff, detected = 0, hdr_hits = 0;
	uint64_t rs = 5;
	unsigned int k;

	memset(&st, 0, sizeof(st));
	rds_eth_fault_set(f, &cfg);
	for (k = 0; k < 1000; k++) {
		frame_fields(&fr, &rs, (uint16_t)(k % 200));
		m = mk_frame(pool, &fr, k, false);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		m->ol_flags |= RTE_MBUF_F_RX_IP_CKSUM_GOOD;
		orig = flat(m, &n);
		/* The original is shared: we keep a reference. */
		rte_mbuf_refcnt_update(m, 1);
		CU_ASSERT_EQUAL_FATAL(rds_eth_fault_apply(f, &m, 1, out, 4, 0,
							  &st), 1);
		CU_ASSERT(out[0] != m);
		copy = flat(out[0], &n2);
		CU_ASSERT_EQUAL(n2, n);
		diff = 0;
		for (i = 0; i < n; i++) {
			if (copy[i] != orig[i]) {
				diff++;
				hdr_hits += i < O_PAY;
			}
		}
		CU_ASSERT_EQUAL(diff, 1);
		/* The receive checksum flags are gone from the copy. */
		CU_ASSERT_EQUAL(out[0]->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK,
				0);
		detected += rds_eth_frame_parse(out[0], UPORT, &g) !=
			    RDS_ETH_DROP_NONE;
		free(copy);
		/* The original is untouched, and ours alone again. */
		copy = flat(m, &n2);
		CU_ASSERT(memcmp(copy, orig, n) == 0);
		CU_ASSERT_EQUAL(rte_mbuf_refcnt_read(m), 1);
		free(copy);
		free(orig);
		rte_pktmbuf_free(m);
		rte_pktmbuf_free(out[0]);
	}
	printf("(1000 corrupted, %u refused by parse, %u in headers) ",
	       detected, hdr_hits);
	CU_ASSERT_EQUAL(st.fault_corrupted, 1000);
	CU_ASSERT(hdr_hits > 100);
	/* Undetected: only the 14 bytes that nothing covers. */
	CU_ASSERT(detected > 850);
	rds_eth_fault_free(f);
	check_no_leak();
}

void
test_fault_reproducible(void)
{
	struct rte_rds_eth_faults cfg = { .drop_ppm = 20000, .dup_ppm = 20000,
					  .reorder_ppm = 30000,
					  .reorder_depth = 5,
					  .delay_ppm = 10000, .delay_us = 50,
					  .corrupt_ppm = 0, .seed = 1234 };
	struct rte_rds_eth_stats s1, s2;
	struct rds_eth_fault *f1 = rds_eth_fault_create(3);
	struct rds_eth_fault *f2 = rds_eth_fault_create(3);
	uint32_t i;

	memset(&s1, 0, sizeof(s1));
	memset(&s2, 0, sizeof(s2));
	rds_eth_fault_set(f1, &cfg);
	rds_eth_fault_set(f2, &cfg);
	fault_run(f1, 10000, &s1, &run_a);
	fault_run(f2, 10000, &s2, &run_b);
	CU_ASSERT(memcmp(&s1, &s2, sizeof(s1)) == 0);
	CU_ASSERT_EQUAL(run_a.nb_out, run_b.nb_out);
	CU_ASSERT(memcmp(run_a.out, run_b.out,
			 sizeof(run_a.out[0]) * run_a.nb_out) == 0);
	CU_ASSERT(s1.fault_dropped > 0 && s1.fault_duplicated > 0 &&
		  s1.fault_reordered > 0 && s1.fault_delayed > 0);
	/* Setting it again restarts the stream. */
	rds_eth_fault_set(f1, &cfg);
	memset(&s1, 0, sizeof(s1));
	fault_run(f1, 10000, &s1, &run_b);
	CU_ASSERT(memcmp(&s1, &s2, sizeof(s1)) == 0);
	CU_ASSERT(memcmp(run_a.out, run_b.out,
			 sizeof(run_a.out[0]) * run_a.nb_out) == 0);
	/* Another salt (engine), or seed: another stream. */
	rds_eth_fault_free(f2);
	f2 = rds_eth_fault_create(4);
	rds_eth_fault_set(f2, &cfg);
	memset(&s2, 0, sizeof(s2));
	fault_run(f2, 10000, &s2, &run_b);
	CU_ASSERT(run_a.nb_out != run_b.nb_out ||
		  memcmp(run_a.out, run_b.out,
			 sizeof(run_a.out[0]) * run_a.nb_out) != 0);
	/* Every frame not dropped came out (dups aside). */
	for (i = 0; i < 10000; i++)
		CU_ASSERT(run_b.count[i] <= 2);
	rds_eth_fault_free(f1);
	rds_eth_fault_free(f2);
	check_no_leak();
}

void
test_fault_flush(void)
{
	struct rte_rds_eth_faults cfg = { .reorder_ppm = 500000,
					  .reorder_depth = 16,
					  .delay_ppm = 500000,
					  .delay_us = 1000000 };
	struct rds_eth_fault *f = rds_eth_fault_create(0);
	struct rte_mbuf *in[32], *out[2];
	uint16_t i, got;

	rds_eth_fault_set(f, &cfg);
	for (i = 0; i < 32; i++)
		in[i] = mk_seq(i);
	got = rds_eth_fault_apply(f, in, 32, out, 2, 0, NULL);
	for (i = 0; i < got; i++)
		rte_pktmbuf_free(out[i]);
	CU_ASSERT(rds_eth_fault_held(f) > 0);
	CU_ASSERT(pool_free(pool) < POOL_N);
	rds_eth_fault_flush(f);
	CU_ASSERT_EQUAL(rds_eth_fault_held(f), 0);
	check_no_leak();
	/* free() flushes too. */
	for (i = 0; i < 32; i++)
		in[i] = mk_seq(i);
	got = rds_eth_fault_apply(f, in, 32, out, 2, 0, NULL);
	for (i = 0; i < got; i++)
		rte_pktmbuf_free(out[i]);
	rds_eth_fault_free(f);
	rds_eth_fault_free(NULL);
	check_no_leak();
}

/* Everything at once on real frames, with little room in out[]. */
void
test_fault_all(void)
{
	struct rte_rds_eth_faults cfg = { .drop_ppm = 50000, .dup_ppm = 50000,
					  .reorder_ppm = 50000,
					  .reorder_depth = 16,
					  .delay_ppm = 50000, .delay_us = 10,
					  .corrupt_ppm = 50000, .seed = 77 };
	struct rte_rds_eth_stats st;
	struct rds_eth_fault *f = rds_eth_fault_create(9);
	struct rds_eth_frame fr, g;
	struct rte_mbuf *in[16], *out[5];
	uint64_t rs = 1, now = 0;
	uint32_t good = 0, bad = 0, sent = 0;
	uint16_t i, k, got;

	memset(&st, 0, sizeof(st));
	rds_eth_fault_set(f, &cfg);
	while (sent < 5000 || rds_eth_fault_held(f) != 0) {
		k = 0;
		while (k < 16 && sent < 5000) {
			frame_fields(&fr, &rs, (uint16_t)(sent % 300));
			in[k] = mk_frame(pool, &fr, sent, false);
			CU_ASSERT_PTR_NOT_NULL_FATAL(in[k]);
			k++;
			sent++;
		}
		now += rte_get_tsc_hz() / 100000;
		got = rds_eth_fault_apply(f, in, k, out, 5, now, &st);
		for (i = 0; i < got; i++) {
			if (rds_eth_frame_parse(out[i], UPORT, &g) ==
			    RDS_ETH_DROP_NONE)
				good++;
			else
				bad++;
			rte_pktmbuf_free(out[i]);
		}
	}
	printf("(%u good, %u refused; drop %" PRIu64 " dup %" PRIu64
	       " reorder %" PRIu64 " delay %" PRIu64 " corrupt %" PRIu64 ") ",
	       good, bad, st.fault_dropped, st.fault_duplicated,
	       st.fault_reordered, st.fault_delayed, st.fault_corrupted);
	CU_ASSERT_EQUAL(good + bad, 5000 - st.fault_dropped +
			st.fault_duplicated);
	CU_ASSERT(bad <= st.fault_corrupted * 2);
	rds_eth_fault_free(f);
	check_no_leak();
}


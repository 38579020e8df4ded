/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sparse congestion maps (lib/rds/rds_cong.c, rds_addr.h
 * RDS_CONG_DELTA_*): the change log of a local map, the encoder and the
 * receiver's apply, on maps of the test's own (no library instance).
 *
 *   log:       the words changed since a generation, each once, while
 *              the log reaches back (RDS_CONG_LOG generations); past it,
 *              -1 (the sender then sends the whole map).
 *   roundtrip: a sender's map into a receiver's copy that starts from
 *              garbage: a FULL update makes them equal, then updates of
 *              the changes alone keep them equal through 2,000 random
 *              sets and clears; each apply reports the ports that may
 *              have become uncongested (a bit cleared) in its mask.
 *   too_big:   an update that would not be shorter than the 8 KiB map
 *              is not made (0: the whole map goes): 818 words fit, 819
 *              do not.
 *   malformed: what the receiver refuses (-EBADMSG), its map untouched.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include <rte_byteorder.h>

#include "rds_test.h"
#include "rds_private.h"

static struct rds_cong_map tx, rx;
static uint8_t buf[RDS_CONG_MAP_BYTES];

static void
map_init(struct rds_cong_map *m)
{
	memset(m, 0, sizeof(*m));
	rte_spinlock_init(&m->log_lock);
}

static void
test_log(void)
{
	uint16_t words[RDS_CONG_MAP_WORDS];
	uint32_t g0;
	unsigned int i;

	map_init(&tx);
	g0 = tx.gen;
	/* Ports 5, 70, 6, 5 (words 0, 1, 0, 0): two words. */
	rds_cong_set(&tx, 5);
	rds_cong_set(&tx, 70);
	rds_cong_set(&tx, 6);
	rds_cong_clear(&tx, 5);
	CU_ASSERT_EQUAL(rds_cong_changed_since(&tx, g0, tx.gen, words), 2);
	CU_ASSERT(words[0] == 0 && words[1] == 1);
	CU_ASSERT_EQUAL(rds_cong_changed_since(&tx, tx.gen, tx.gen, words), 0);
	/* Exactly RDS_CONG_LOG changes since g0 + 4: still covered. */
	g0 = tx.gen;
	for (i = 0; i < RDS_CONG_LOG; i++)
		rds_cong_set(&tx, (uint16_t)(64 * (i % 8) + 1));
	CU_ASSERT_EQUAL(rds_cong_changed_since(&tx, g0, tx.gen, words), 8);
	/* One more: the first of them is overwritten. */
	rds_cong_clear(&tx, 1);
	CU_ASSERT_EQUAL(rds_cong_changed_since(&tx, g0, tx.gen, words), -1);
	CU_ASSERT_EQUAL(rds_cong_changed_since(&tx, g0 + 1, tx.gen, words), 8);
	/* A caller that read the generation before more changes came: the
	 * later ones count against the log too. */
	CU_ASSERT_EQUAL(rds_cong_changed_since(&tx, g0 + 1, g0 + 2, words), 1);
	CU_ASSERT_EQUAL(rds_cong_changed_since(&tx, g0, g0 + 2, words), -1);
}

/* rx := apply(tx's update); the ports reported uncongested. */
static uint64_t
apply(uint32_t len)
{
	uint64_t unc = 0;

	CU_ASSERT_FATAL(len > 0);
	CU_ASSERT_EQUAL(rds_cong_delta_apply(&rx, buf, len, &unc), 0);
	return unc;
}

static void
test_roundtrip(void)
{
	uint16_t words[RDS_CONG_MAP_WORDS];
	uint64_t unc, want;
	uint32_t sent, now;
	unsigned int i, k, nb, nb_clear = 0;
	uint16_t port, cleared[4];
	int n;

	map_init(&tx);
	map_init(&rx);
	srand(7);
	for (i = 0; i < RDS_CONG_MAP_WORDS; i++)
		rx.bits[i] = ((uint64_t)rand() << 32) | (uint64_t)rand();
	for (i = 0; i < 40; i++)
		rds_cong_set(&tx, (uint16_t)rand());
	apply(rds_cong_delta_encode_full(&tx, buf));
	CU_ASSERT(memcmp(tx.bits, rx.bits, sizeof(tx.bits)) == 0);
	sent = tx.gen;
	for (i = 0; i < 2000; i++) {
		/* A few changes, then the update of them. */
		nb = (unsigned int)(rand() % 4) + 1;
		for (k = 0; k < nb; k++) {
			port = (uint16_t)(rand() % 512);
			cleared[k] = UINT16_MAX;
			if (rds_cong_test(&tx, port) && rand() % 2) {
				rds_cong_clear(&tx, port);
				cleared[k] = port;
			} else {
				rds_cong_set(&tx, port);
			}
		}
		/* Cleared now, set at the receiver: in the mask. */
		want = 0;
		for (k = 0; k < nb; k++)
			if (cleared[k] != UINT16_MAX &&
			    !rds_cong_test(&tx, cleared[k]) &&
			    rds_cong_test(&rx, cleared[k])) {
				want |= 1ULL << (cleared[k] % 64);
				nb_clear++;
			}
		now = tx.gen;
		n = rds_cong_changed_since(&tx, sent, now, words);
		CU_ASSERT_FATAL(n >= 0);
		unc = apply(rds_cong_delta_encode(&tx, words, (unsigned int)n,
						  false, buf));
		/* Every port cleared is in the mask (others may be too: a
		 * word's bits share mask bits). */
		CU_ASSERT_EQUAL(unc & want, want);
		sent = now;
		CU_ASSERT_FATAL(memcmp(tx.bits, rx.bits, sizeof(tx.bits)) == 0);
	}
	CU_ASSERT(nb_clear > 100);
}

static void
test_too_big(void)
{
	unsigned int i;

	map_init(&tx);
	for (i = 0; i < 818; i++)
		tx.bits[i] = 1;
	CU_ASSERT_EQUAL(rds_cong_delta_encode_full(&tx, buf),
			RDS_CONG_DELTA_HDR + 818 * RDS_CONG_DELTA_REC);
	tx.bits[818] = 1;
	CU_ASSERT_EQUAL(rds_cong_delta_encode_full(&tx, buf), 0);
}

static void
test_malformed(void)
{
	static const struct {
		uint8_t hdr[4];
		uint16_t idx[2];
		unsigned int nrec;
		uint32_t len;	/* 0: header + records */
	} bad[] = {
		{ { 2, 0, 0, 0 }, { 0 }, 0, 0 },		/* version */
		{ { 0, 0, 0, 0 }, { 0 }, 0, 0 },		/* version 0 */
		{ { 1, 0x02, 0, 1 }, { 3 }, 1, 0 },		/* flag */
		{ { 1, 0, 0, 2 }, { 3 }, 1, 0 },		/* count */
		{ { 1, 0, 0, 1 }, { 3 }, 1, 13 },		/* short */
		{ { 1, 0, 0, 1 }, { 1024 }, 1, 0 },		/* index */
		{ { 1, 0, 0, 1 }, { 0xffff }, 1, 0 },		/* index */
		{ { 1, 0, 0, 2 }, { 9, 9 }, 2, 0 },		/* twice */
		{ { 1, 1, 0, 0 }, { 0 }, 0, 3 },		/* < header */
		{ { 1, 0, 0x03, 0x33 }, { 0 }, 0, 8194 },	/* 819 */
	};
	uint64_t unc, before[RDS_CONG_MAP_WORDS];
	uint32_t len, gen;
	unsigned int i, k;
	rte_be16_t be;

	map_init(&rx);
	rx.bits[3] = 0xf0;
	rx.bits[9] = 0x0f;
	memcpy(before, rx.bits, sizeof(before));
	gen = rx.gen;
	for (i = 0; i < RTE_DIM(bad); i++) {
		memset(buf, 0, sizeof(buf));
		memcpy(buf, bad[i].hdr, 4);
		for (k = 0; k < bad[i].nrec; k++) {
			be = rte_cpu_to_be_16(bad[i].idx[k]);
			memcpy(buf + 4 + k * 10, &be, 2);
		}
		len = bad[i].len != 0 ? bad[i].len : 4 + bad[i].nrec * 10;
		CU_ASSERT_EQUAL(rds_cong_delta_apply(&rx, buf, len, &unc),
				-EBADMSG);
		CU_ASSERT(memcmp(before, rx.bits, sizeof(before)) == 0);
		CU_ASSERT_EQUAL(rx.gen, gen);
	}
	/* The same header, well formed: taken. */
	memset(buf, 0, sizeof(buf));
	memcpy(buf, bad[2].hdr, 4);
	buf[1] = 0;
	be = rte_cpu_to_be_16(3);
	memcpy(buf + 4, &be, 2);
	CU_ASSERT_EQUAL(rds_cong_delta_apply(&rx, buf, 14, &unc), 0);
	CU_ASSERT_EQUAL(rx.bits[3], 0);
	CU_ASSERT_EQUAL(unc, 0xf0);
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "log", test_log },
		{ "roundtrip", test_roundtrip },
		{ "too_big", test_too_big },
		{ "malformed", test_malformed },
		{ NULL, NULL },
	};

	return rds_test_main("unit_cong", NULL, cases);
}

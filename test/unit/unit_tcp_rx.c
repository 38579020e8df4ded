/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the tcp transport's framing (drivers/rds/tcp/rds_tcp_rx.c):
 * a stream of [48-byte header][payload] frames cut back into frames
 * whatever the split of its bytes (one at a time, random chunks, the
 * payload read straight into the message), and what it refuses: a
 * checksum that is wrong (0 is taken, as the kernel's rds_tcp sends
 * it), a length past 1 MiB, a congestion map of another length, an
 * extension that overruns its space.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "rds_test.h"
#include "rds_tcp.h"

static void
setup(void)
{
	struct rte_rds_conf conf;

	rte_rds_conf_init(&conf);
	conf.engine[0].lcore_id = RTE_RDS_ENGINE_INLINE;
	CU_ASSERT_FATAL(rte_rds_conf_add_addr(&conf, "10.255.0.1", "loop",
					      NULL) == 0);
	CU_ASSERT_FATAL(rte_rds_init(&conf) == 0);
}

static void
teardown(void)
{
	CU_ASSERT(rte_rds_fini() == 0);
}

#define NFRAMES 200

struct frame {
	uint32_t len;
	uint64_t seq;
	uint32_t off;		/* of its header in the stream */
};

/* A stream of frames of random lengths (some 0, some large), each
 * payload from rds_test_fill(seq); even frames without a checksum. */
static uint8_t *
make_stream(struct frame *f, unsigned int n, size_t *len, uint64_t *rng)
{
	size_t cap = 0, off = 0;
	uint8_t *s;
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint64_t r = rds_test_rand_range(rng, 0, 99);

		f[i].len = r < 10 ? 0 : r < 95 ?
			(uint32_t)rds_test_rand_range(rng, 1, 9000) :
			(uint32_t)rds_test_rand_range(rng, 60000, 300000);
		if (i == n / 2)
			f[i].len = RDS_MAX_MSG_SIZE;
		f[i].seq = 1000 + i;
		cap += RDS_HEADER_SIZE + f[i].len;
	}
	s = malloc(cap);
	CU_ASSERT_FATAL(s != NULL);
	for (i = 0; i < n; i++) {
		struct rds_header *h = (struct rds_header *)(s + off);

		f[i].off = (uint32_t)off;
		rds_hdr_encode(h, f[i].seq, 0, f[i].len, 4000 + i, 5000, 0, 0);
		if (i % 2 == 0)
			h->h_csum = 0;
		off += RDS_HEADER_SIZE;
		rds_test_fill(s + off, f[i].len, f[i].seq);
		off += f[i].len;
	}
	*len = off;
	return s;
}

static void
check_frame(struct rds_tcp_rx *rx, const struct frame *f, const uint8_t *s)
{
	struct rds_hdr_info h;
	struct rds_msg *m = rds_tcp_rx_take(rx, &h);

	CU_ASSERT_EQUAL(h.seq, f->seq);
	CU_ASSERT_EQUAL(h.len, f->len);
	CU_ASSERT_EQUAL(h.dport, 5000);
	if (f->len == 0) {
		CU_ASSERT_PTR_NULL(m);
	} else {
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		CU_ASSERT(memcmp(rds_msg_data(m), s + f->off + RDS_HEADER_SIZE,
				 f->len) == 0);
	}
	rds_msg_free(m);
}

/* mode 0: chunks of 1 byte; 1: random chunks; 2: random chunks, payloads
 * of 4 KiB or more still to come read straight into the message. */
static void
run_split(unsigned int mode)
{
	struct frame f[NFRAMES];
	struct rds_tcp_rx rx;
	uint64_t rng = 42 + mode;
	size_t len, pos = 0;
	unsigned int next = 0;
	const char *why = NULL;
	uint8_t *s, *p;
	uint32_t used, n, room;
	int ret;

	s = make_stream(f, mode == 0 ? 20 : NFRAMES, &len, &rng);
	rds_tcp_rx_init(&rx);
	while (pos < len) {
		room = rds_tcp_rx_direct(&rx, &p);
		if (mode == 2 && room >= 4096) {
			n = (uint32_t)RTE_MIN((size_t)room, len - pos);
			n = (uint32_t)rds_test_rand_range(&rng, 1, n);
			memcpy(p, s + pos, n);
			pos += n;
			ret = rds_tcp_rx_advance(&rx, n);
		} else {
			n = mode == 0 ? 1 :
				(uint32_t)rds_test_rand_range(&rng, 1, 70000);
			n = (uint32_t)RTE_MIN((size_t)n, len - pos);
			ret = rds_tcp_rx_feed(&rx, s + pos, n, &used, &why);
			CU_ASSERT(used <= n);
			pos += used;
		}
		CU_ASSERT_FATAL(ret == RDS_TCP_RX_NEED || ret == RDS_TCP_RX_FRAME);
		if (ret == RDS_TCP_RX_FRAME) {
			CU_ASSERT_FATAL(next < NFRAMES);
			check_frame(&rx, &f[next], s);
			next++;
		}
	}
	/* A 0-byte frame at the very end completes without bytes. */
	ret = rds_tcp_rx_feed(&rx, s, 0, &used, &why);
	if (ret == RDS_TCP_RX_FRAME)
		check_frame(&rx, &f[next++], s);
	CU_ASSERT_EQUAL(next, mode == 0 ? 20u : NFRAMES);
	rds_tcp_rx_reset(&rx);
	free(s);
}

static void
test_split_bytes(void)
{
	setup();
	run_split(0);
	teardown();
}

static void
test_split_random(void)
{
	setup();
	run_split(1);
	teardown();
}

static void
test_split_direct(void)
{
	setup();
	run_split(2);
	teardown();
}

/* One header fed whole: what rds_tcp_rx_feed returns. */
static int
feed_hdr(struct rds_header *h, const char **why)
{
	struct rds_tcp_rx rx;
	uint32_t used;
	int ret;

	rds_tcp_rx_init(&rx);
	*why = NULL;
	ret = rds_tcp_rx_feed(&rx, (const uint8_t *)h, sizeof(*h), &used,
			      why);
	CU_ASSERT_EQUAL(used, sizeof(*h));
	rds_tcp_rx_reset(&rx);
	return ret;
}

static void
test_refused(void)
{
	struct rds_header h;
	const char *why;
	uint32_t v = 0;

	setup();
	/* Checksum wrong: refused; 0: taken. */
	rds_hdr_encode(&h, 1, 0, 10, 1, 2, 0, 0);
	h.h_csum ^= 0x0101;
	CU_ASSERT_EQUAL(feed_hdr(&h, &why), -EBADMSG);
	CU_ASSERT_PTR_NOT_NULL(why);
	h.h_csum = 0;
	CU_ASSERT_EQUAL(feed_hdr(&h, &why), RDS_TCP_RX_NEED);
	/* Length: 1 MiB taken, one more refused. */
	rds_hdr_encode(&h, 1, 0, RDS_MAX_MSG_SIZE, 1, 2, 0, 0);
	CU_ASSERT_EQUAL(feed_hdr(&h, &why), RDS_TCP_RX_NEED);
	rds_hdr_encode(&h, 1, 0, RDS_MAX_MSG_SIZE + 1, 1, 2, 0, 0);
	CU_ASSERT_EQUAL(feed_hdr(&h, &why), -EBADMSG);
	rds_hdr_encode(&h, 1, 0, UINT32_MAX, 1, 2, 0, 0);
	CU_ASSERT_EQUAL(feed_hdr(&h, &why), -EBADMSG);
	/* A congestion map is 8 KiB exactly. */
	rds_hdr_encode(&h, 0, 0, RDS_CONG_MAP_BYTES, 0, 0,
		       RDS_FLAG_CONG_BITMAP, 0);
	CU_ASSERT_EQUAL(feed_hdr(&h, &why), RDS_TCP_RX_NEED);
	rds_hdr_encode(&h, 0, 0, 100, 0, 0, RDS_FLAG_CONG_BITMAP, 0);
	CU_ASSERT_EQUAL(feed_hdr(&h, &why), -EBADMSG);
	/* An extension that runs past its 16 bytes. */
	rds_hdr_encode(&h, 1, 0, 0, 1, 2, 0, 0);
	CU_ASSERT_EQUAL(rds_hdr_add_ext(&h, RDS_EXTHDR_GEN_NUM, &v,
					sizeof(v)), 0);
	CU_ASSERT_EQUAL(rds_hdr_add_ext(&h, RDS_EXTHDR_GEN_NUM, &v,
					sizeof(v)), 0);
	CU_ASSERT_EQUAL(rds_hdr_add_ext(&h, RDS_EXTHDR_GEN_NUM, &v,
					sizeof(v)), 0);
	h.h_exthdr[15] = RDS_EXTHDR_RDMA_DEST;	/* 8 bytes: past the end */
	rds_hdr_csum_set(&h);
	CU_ASSERT_EQUAL(feed_hdr(&h, &why), -EBADMSG);
	/* 0 bytes of payload: whole at once. */
	rds_hdr_encode(&h, 1, 0, 0, 1, 2, 0, 0);
	CU_ASSERT_EQUAL(feed_hdr(&h, &why), RDS_TCP_RX_FRAME);
	teardown();
}

/* What is still to come, as RDS_INFO_TCP_SOCKETS reports it. */
static void
test_rem(void)
{
	struct rds_tcp_rx rx;
	struct rds_header h;
	uint64_t hr, dr;
	uint32_t used;
	const char *why;
	uint8_t pay[100] = { 0 };

	setup();
	rds_tcp_rx_init(&rx);
	rds_tcp_rx_rem(&rx, &hr, &dr);
	CU_ASSERT(hr == RDS_HEADER_SIZE && dr == 0);
	rds_hdr_encode(&h, 1, 0, 100, 1, 2, 0, 0);
	CU_ASSERT_EQUAL(rds_tcp_rx_feed(&rx, (uint8_t *)&h, 20, &used, &why),
			RDS_TCP_RX_NEED);
	rds_tcp_rx_rem(&rx, &hr, &dr);
	CU_ASSERT(hr == RDS_HEADER_SIZE - 20 && dr == 0);
	CU_ASSERT_EQUAL(rds_tcp_rx_feed(&rx, (uint8_t *)&h + 20, 28, &used,
					&why), RDS_TCP_RX_NEED);
	CU_ASSERT_EQUAL(rds_tcp_rx_feed(&rx, pay, 30, &used, &why),
			RDS_TCP_RX_NEED);
	rds_tcp_rx_rem(&rx, &hr, &dr);
	CU_ASSERT(hr == 0 && dr == 70);
	rds_tcp_rx_reset(&rx);
	teardown();
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "frames split byte by byte", test_split_bytes },
		{ "frames split at random", test_split_random },
		{ "payloads read in place", test_split_direct },
		{ "headers refused", test_refused },
		{ "bytes still to come", test_rem },
		{ NULL, NULL },
	};

	return rds_test_main("unit_tcp_rx", "0", cases);
}

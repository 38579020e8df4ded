/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eth_map: congestion maps on eth's wire, sparse (RDS_TRANS_F_MAP_DELTA,
 * rds_addr.h RDS_CONG_DELTA_*), frame by frame against a peer the test
 * plays (eth_wire_peer.h).
 *
 *   first_sparse:   the library's first map on a new connection is a
 *                   sparse one flagged FULL that lists no word (4 bytes:
 *                   no port of its address congested), not the 8 KiB
 *                   map; s_send_cong_map_bytes counts its 52 bytes.
 *   changes_only:   a socket of the library (SO_RCVBUF at its minimum)
 *                   filled by the peer until congested: the next map
 *                   lists one word (14 bytes), the socket's port's, with
 *                   its bit set; read empty: one more, the bit clear.
 *   peer_sparse:    the peer's sparse maps change the library's view of
 *                   the peer: a FULL one with the peer's port set makes a
 *                   send to it ENOBUFS, a change that clears the bit lets
 *                   it go; a FULL one that lists nothing clears every
 *                   word of before.
 *   peer_malformed: sparse maps that do not parse (another version, an
 *                   unknown flag, a count that disagrees with the length,
 *                   a word index past the map, a word listed twice, a
 *                   length past the map's) are dropped and counted
 *                   (s_recv_drop_bad_hdr), and the library's view of the
 *                   peer's map is what it was.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>

#include <CUnit/CUnit.h>

#include <rte_byteorder.h>
#include <rte_rds.h>
#include <rte_rds_stats.h>

#include "rds_test.h"
#include "eth_wire_peer.h"

/* The library's maps in the log: their count, the last one's entry. */
static unsigned int
maps_sent(const struct lf **last)
{
	unsigned int i, n = 0;

	for (i = 0; i < wp.nb_log; i++) {
		const struct lf *l = &wp.log[i];

		if (l->rds && l->hdr.flags == RDS_FLAG_CONG_BITMAP) {
			n++;
			*last = l;
		}
	}
	return n;
}

/* The library up, a socket on LIB_PORT, the connection opened by the
 * peer's first message (taken): the socket. */
static int
up_and_connected(int rcvbuf)
{
	char buf[64];
	int s;

	lib_up();
	s = lib_socket(H_LIB_IP, 0);
	if (rcvbuf != 0)
		CU_ASSERT_FATAL(rte_rds_setsockopt(s, SOL_SOCKET, SO_RCVBUF,
						   &rcvbuf,
						   sizeof(rcvbuf)) == 0);
	peer_send(1, 10, 0, 0);
	poll_n(4);
	CU_ASSERT_EQUAL(rte_rds_recvfrom(s, buf, sizeof(buf), MSG_DONTWAIT,
					 NULL, NULL), 10);
	return s;
}

static void
test_first_sparse(void)
{
	const struct lf *l = NULL;
	int s = up_and_connected(0);

	CU_ASSERT_EQUAL_FATAL(maps_sent(&l), 1);
	CU_ASSERT_EQUAL(l->hdr.len, RDS_CONG_DELTA_HDR);
	CU_ASSERT_EQUAL(l->pay[0], RDS_CONG_DELTA_VERSION);
	CU_ASSERT_EQUAL(l->pay[1], RDS_CONG_DELTA_FULL);
	CU_ASSERT(l->pay[2] == 0 && l->pay[3] == 0);
	CU_ASSERT_EQUAL(rds_test_stats().s_send_cong_map_bytes,
			RDS_HEADER_SIZE + RDS_CONG_DELTA_HDR);
	printf("\n    first map: %u bytes of payload\n", l->hdr.len);
	CU_ASSERT(rte_rds_close(s) == 0);
	lib_down();
}

/* The one word of a sparse map of the log (its index), its value. */
static uint64_t
one_word(const struct lf *l, uint16_t *idx)
{
	rte_be16_t be;
	uint64_t w;

	CU_ASSERT_EQUAL(l->hdr.len, RDS_CONG_DELTA_HDR + RDS_CONG_DELTA_REC);
	CU_ASSERT_EQUAL(l->pay[0], RDS_CONG_DELTA_VERSION);
	CU_ASSERT_EQUAL(l->pay[1], 0);
	CU_ASSERT(l->pay[2] == 0 && l->pay[3] == 1);
	memcpy(&be, l->pay + RDS_CONG_DELTA_HDR, 2);
	*idx = rte_be_to_cpu_16(be);
	memcpy(&w, l->pay + RDS_CONG_DELTA_HDR + 2, 8);
	return rte_le_to_cpu_64(w);
}

static void
test_changes_only(void)
{
	const struct lf *l = NULL;
	uint64_t seq = 2, w, bytes0;
	uint16_t idx;
	unsigned int n0, i;
	char buf[2048];
	int s = up_and_connected(1);	/* the minimum */

	n0 = maps_sent(&l);
	bytes0 = rds_test_stats().s_send_cong_map_bytes;
	/* Fill the socket until its port is congested: a map follows. */
	for (i = 0; i < 64 && maps_sent(&l) == n0; i++) {
		peer_send(seq++, 1024, 0, 0);
		poll_n(4);
	}
	CU_ASSERT_FATAL(maps_sent(&l) == n0 + 1);
	w = one_word(l, &idx);
	CU_ASSERT_EQUAL(idx, LIB_PORT / 64);
	CU_ASSERT_EQUAL(w, 1ULL << (LIB_PORT % 64));
	/* Read it empty: uncongested, one more map, the bit clear. */
	while (rte_rds_recvfrom(s, buf, sizeof(buf), MSG_DONTWAIT, NULL,
				NULL) >= 0)
		;
	poll_n(4);
	CU_ASSERT_FATAL(maps_sent(&l) == n0 + 2);
	w = one_word(l, &idx);
	CU_ASSERT_EQUAL(idx, LIB_PORT / 64);
	CU_ASSERT_EQUAL(w, 0);
	CU_ASSERT_EQUAL(rds_test_stats().s_send_cong_map_bytes - bytes0,
			2 * (RDS_HEADER_SIZE + RDS_CONG_DELTA_HDR +
			     RDS_CONG_DELTA_REC));
	printf("\n    %u messages to congest; two updates of %u bytes\n", i,
	       RDS_CONG_DELTA_HDR + RDS_CONG_DELTA_REC);
	CU_ASSERT(rte_rds_close(s) == 0);
	lib_down();
}

/* A sparse map: version, flags, then (index, word) pairs. Its length. */
static uint32_t
sparse(uint8_t *out, uint8_t version, uint8_t flags, uint16_t count,
       const uint16_t *idx, const uint64_t *words, unsigned int n)
{
	rte_be16_t be = rte_cpu_to_be_16(count);
	unsigned int i;
	uint64_t w;

	out[0] = version;
	out[1] = flags;
	memcpy(out + 2, &be, 2);
	for (i = 0; i < n; i++) {
		be = rte_cpu_to_be_16(idx[i]);
		w = rte_cpu_to_le_64(words[i]);
		memcpy(out + RDS_CONG_DELTA_HDR + i * RDS_CONG_DELTA_REC, &be,
		       2);
		memcpy(out + RDS_CONG_DELTA_HDR + i * RDS_CONG_DELTA_REC + 2,
		       &w, 8);
	}
	return RDS_CONG_DELTA_HDR + n * RDS_CONG_DELTA_REC;
}

/* A 10-byte send to the peer's port: its result (errno if -1). */
static int
send_to_peer(int s)
{
	struct sockaddr_in to = rds_test_sin(H_PEER_IP, PEER_PORT);
	char buf[10] = { 0 };

	if (rte_rds_sendto(s, buf, sizeof(buf), MSG_DONTWAIT,
			   (struct sockaddr *)&to, sizeof(to)) == 10)
		return 0;
	return rte_errno;
}

static void
test_peer_sparse(void)
{
	uint8_t m[64];
	uint16_t idx[2] = { PEER_PORT / 64, 3 };
	uint64_t words[2] = { 1ULL << (PEER_PORT % 64), 0xff };
	uint64_t maps0;
	int s = up_and_connected(0);

	maps0 = rds_test_stats().s_recv_cong_map;
	CU_ASSERT_EQUAL(send_to_peer(s), 0);
	/* FULL, the peer's port congested (and another word). */
	peer_send_payload(0, m, sparse(m, RDS_CONG_DELTA_VERSION,
				       RDS_CONG_DELTA_FULL, 2, idx, words, 2),
			  RDS_FLAG_CONG_BITMAP);
	poll_n(4);
	CU_ASSERT_EQUAL(rds_test_stats().s_recv_cong_map, maps0 + 1);
	CU_ASSERT_EQUAL(send_to_peer(s), ENOBUFS);
	/* A change: that word clear; the other word stays. */
	words[0] = 0;
	peer_send_payload(0, m, sparse(m, RDS_CONG_DELTA_VERSION, 0, 1, idx,
				       words, 1), RDS_FLAG_CONG_BITMAP);
	poll_n(4);
	CU_ASSERT_EQUAL(rds_test_stats().s_recv_cong_map, maps0 + 2);
	CU_ASSERT_EQUAL(send_to_peer(s), 0);
	/* The peer's port congested again, then a FULL map listing
	 * nothing: every word 0. */
	words[0] = 1ULL << (PEER_PORT % 64);
	peer_send_payload(0, m, sparse(m, RDS_CONG_DELTA_VERSION, 0, 1, idx,
				       words, 1), RDS_FLAG_CONG_BITMAP);
	poll_n(4);
	CU_ASSERT_EQUAL(send_to_peer(s), ENOBUFS);
	peer_send_payload(0, m, sparse(m, RDS_CONG_DELTA_VERSION,
				       RDS_CONG_DELTA_FULL, 0, NULL, NULL, 0),
			  RDS_FLAG_CONG_BITMAP);
	poll_n(4);
	CU_ASSERT_EQUAL(rds_test_stats().s_recv_cong_map, maps0 + 4);
	CU_ASSERT_EQUAL(send_to_peer(s), 0);
	CU_ASSERT(rte_rds_close(s) == 0);
	lib_down();
}

static void
test_peer_malformed(void)
{
	uint8_t m[64];
	uint16_t idx[2] = { PEER_PORT / 64, PEER_PORT / 64 };
	uint16_t far[1] = { 1024 };
	uint64_t words[2] = { 1ULL << (PEER_PORT % 64), 0 };
	uint64_t bad0, maps0;
	uint32_t len;
	int s = up_and_connected(0), i;

	/* The peer's port congested, by a good map. */
	peer_send_payload(0, m, sparse(m, RDS_CONG_DELTA_VERSION,
				       RDS_CONG_DELTA_FULL, 1, idx, words, 1),
			  RDS_FLAG_CONG_BITMAP);
	poll_n(4);
	CU_ASSERT_EQUAL_FATAL(send_to_peer(s), ENOBUFS);
	bad0 = rds_test_stats().s_recv_drop_bad_hdr;
	maps0 = rds_test_stats().s_recv_cong_map;
	/* Each would clear the bit if it were taken. */
	words[0] = 0;
	for (i = 0; i < 7; i++) {
		switch (i) {
		case 0:	/* another version */
			len = sparse(m, 2, RDS_CONG_DELTA_FULL, 0, NULL, NULL,
				     0);
			break;
		case 1:	/* an unknown flag */
			len = sparse(m, RDS_CONG_DELTA_VERSION, 0x80, 1, idx,
				     words, 1);
			break;
		case 2:	/* count 2, one record */
			len = sparse(m, RDS_CONG_DELTA_VERSION, 0, 2, idx,
				     words, 1);
			break;
		case 3:	/* count 0, one record */
			len = sparse(m, RDS_CONG_DELTA_VERSION, 0, 0, idx,
				     words, 1);
			break;
		case 4:	/* a word past the map (and the bit's word) */
			len = sparse(m, RDS_CONG_DELTA_VERSION,
				     RDS_CONG_DELTA_FULL, 1, far, words, 1);
			break;
		case 5:	/* a word twice */
			len = sparse(m, RDS_CONG_DELTA_VERSION, 0, 2, idx,
				     words, 2);
			break;
		default: /* shorter than its header */
			len = 3;
			break;
		}
		peer_send_payload(0, m, len, RDS_FLAG_CONG_BITMAP);
		poll_n(4);
		CU_ASSERT_EQUAL(rds_test_stats().s_recv_drop_bad_hdr,
				bad0 + (uint64_t)i + 1);
		if (send_to_peer(s) != ENOBUFS)
			printf("\n    malformed map %d was taken", i);
		CU_ASSERT_EQUAL(send_to_peer(s), ENOBUFS);
	}
	CU_ASSERT_EQUAL(rds_test_stats().s_recv_cong_map, maps0);
	/* The connection goes on: a good one is taken. */
	peer_send_payload(0, m, sparse(m, RDS_CONG_DELTA_VERSION, 0, 1, idx,
				       words, 1), RDS_FLAG_CONG_BITMAP);
	poll_n(4);
	CU_ASSERT_EQUAL(send_to_peer(s), 0);
	CU_ASSERT(rte_rds_close(s) == 0);
	lib_down();
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "first_sparse", test_first_sparse },
		{ "changes_only", test_changes_only },
		{ "peer_sparse", test_peer_sparse },
		{ "peer_malformed", test_peer_malformed },
		{ NULL, NULL },
	};

	return rds_test_main("eth_map", "0", cases);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multipath lanes on the tcp transport (suite 'tcp'): addresses A and B
 * with lanes=8, as tcp_stream's pair (A, the lower, connects every
 * lane). The probe handshake makes 8 lanes, each its own TCP
 * connection from a source port that encodes the lane; a stream of 8
 * sockets whose ports fall on all 8 lanes spreads over them with each
 * (socket, destination) in order, SHA-256 per pair; every lane reset
 * mid-stream loses nothing and duplicates nothing. Then a played peer
 * (raw TCP, as the kernel's rds_tcp) gets NPATHS, GEN_NUM and SPORT_IDX
 * in our pong and changes its GEN_NUM: our sequences start again.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <CUnit/CUnit.h>
#include <rte_rds.h>
#include <rte_rds_info.h>
#include <rte_rds_socket.h>
#include <rte_rds_stats.h>
#include <rte_rds_tcp.h>

#include "rds_stream.h"
#include "tcp_test.h"

#define LANES 8

bool tcp_v6;
char ip_a[48], ip_b[48], ip_lo[48], ip_hi[48];

/* Addresses of the run's own (tcp_stream's are 127.84.x.y). */
void
tcp_addrs_init(bool v6)
{
	unsigned int n = (unsigned int)getpid() % 200 + 20;

	tcp_v6 = v6;
	snprintf(ip_a, sizeof(ip_a), "127.85.%u.10", n);
	snprintf(ip_b, sizeof(ip_b), "127.85.%u.20", n);
	snprintf(ip_lo, sizeof(ip_lo), "127.85.%u.5", n);
	snprintf(ip_hi, sizeof(ip_hi), "127.85.%u.30", n);
}

struct rte_rds_tcp_stats
tcp_stats(void)
{
	struct rte_rds_tcp_stats st;

	memset(&st, 0, sizeof(st));
	CU_ASSERT(rte_rds_tcp_stats_get(&st) == 0);
	return st;
}

void
tcp_print_stats(const char *what)
{
	struct rte_rds_tcp_stats st = tcp_stats();

	printf("  %s: connects %" PRIu64 ", accepts %" PRIu64 ", refused %"
	       PRIu64 ", msgs tx %" PRIu64 " rx %" PRIu64 ", resets %" PRIu64
	       " (injected %" PRIu64 ")\n", what, st.connects, st.accepts,
	       st.accept_refused, st.tx_msgs, st.rx_msgs, st.resets,
	       st.resets_injected);
}

struct in6_addr
tcp_in6(const char *ip)
{
	struct in6_addr a;
	uint32_t v4 = inet_addr(ip);

	memset(&a, 0, sizeof(a));
	a.s6_addr[10] = a.s6_addr[11] = 0xff;
	memcpy(&a.s6_addr[12], &v4, 4);
	return a;
}

/* tcp_peer.c's cases (not run here) bring up A and B as tcp_stream. */
void
tcp_lib_up(void)
{
	struct rte_rds_conf conf;
	char spec[128];

	rds_test_conf(&conf, rds_test_worker_lcore(), RTE_RDS_IDLE_YIELD);
	snprintf(spec, sizeof(spec), "%s=tcp", ip_a);
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(&conf, spec) == 0);
	snprintf(spec, sizeof(spec), "%s=tcp", ip_b);
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(&conf, spec) == 0);
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
}

static void
lanes_lib_up(const char *opts_a, const char *opts_b)
{
	struct rte_rds_conf conf;
	char spec[128];

	rds_test_conf(&conf, rds_test_worker_lcore(), RTE_RDS_IDLE_YIELD);
	snprintf(spec, sizeof(spec), "%s=tcp%s", ip_a, opts_a);
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(&conf, spec) == 0);
	snprintf(spec, sizeof(spec), "%s=tcp%s", ip_b, opts_b);
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(&conf, spec) == 0);
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
}

/* The TCP sockets of the library (RDS_INFO_TCP_SOCKETS). */
static int
tcp_sockets(struct rds_info_tcp_socket *ts, unsigned int cap)
{
	socklen_t len = (socklen_t)(cap * sizeof(*ts));
	int n = rte_rds_info(RDS_INFO_TCP_SOCKETS, ts, &len);

	return n < 0 ? -1 : (int)(len / sizeof(*ts));
}

/* A's connections to B: lanes up (one socket each), bit per lane (the
 * source port mod 8). */
static unsigned int
a_lanes(void)
{
	struct rds_info_tcp_socket ts[64];
	uint32_t a = inet_addr(ip_a), b = inet_addr(ip_b);
	unsigned int mask = 0;
	int i, n = tcp_sockets(ts, RTE_DIM(ts));

	for (i = 0; i < n; i++)
		if (ts[i].local_addr == a && ts[i].peer_addr == b)
			mask |= 1u << (ntohs(ts[i].local_port) % LANES);
	return mask;
}

/* One message A -> B, then wait for the 8 lanes. */
static bool
lanes_handshake(void)
{
	union rds_test_addr tb = rds_test_addr(ip_b, 3999), from;
	struct rds_test_deadline dl;
	char buf[16];
	int a, b;
	bool ok = false;

	a = rds_test_socket_trans(ip_a, 3998, 0, 0, RDS_TRANS_TCP);
	b = rds_test_socket_trans(ip_b, 3999, 0, 0, RDS_TRANS_TCP);
	CU_ASSERT_FATAL(a >= 0 && b >= 0);
	CU_ASSERT(rds_test_send_to(a, "hello", 5, &tb, 0) == 5);
	CU_ASSERT(rds_test_wait_msg_from(b, buf, sizeof(buf), &from,
					 20000) == 5);
	rds_test_deadline_init(&dl, 30, 30);
	while (!rds_test_deadline_expired(&dl, "lanes")) {
		rds_test_kick();
		if (a_lanes() == (1u << LANES) - 1) {
			ok = true;
			break;
		}
		usleep(10000);
	}
	printf("  lanes up: mask 0x%02x\n", a_lanes());
	rte_rds_close(a);
	rte_rds_close(b);
	return ok;
}

/* Bytes each lane carried, both ways (what TCP acknowledged of each
 * end's writes; A's end names the lane by its source port, B's by its
 * peer's). */
static void
lane_bytes(uint64_t bytes[LANES])
{
	struct rds_info_tcp_socket ts[64];
	uint32_t a = inet_addr(ip_a), b = inet_addr(ip_b);
	int i, n = tcp_sockets(ts, RTE_DIM(ts));

	memset(bytes, 0, LANES * sizeof(bytes[0]));
	for (i = 0; i < n; i++) {
		if (ts[i].local_addr == a && ts[i].peer_addr == b)
			bytes[ntohs(ts[i].local_port) % LANES] +=
				ts[i].last_seen_una;
		else if (ts[i].local_addr == b && ts[i].peer_addr == a)
			bytes[ntohs(ts[i].peer_port) % LANES] +=
				ts[i].last_seen_una;
	}
}

/* 8 sockets, 4 on A and 4 on B, ports 4001..4008: sport mod 8 covers
 * every lane. resets: every lane of one side reset that many times. */
static void
lanes_stream(const char *what, uint64_t total, unsigned int resets)
{
	struct rds_stream_conf sc;
	struct rds_test_deadline dl;
	struct rds_stream *st;
	uint64_t sent, received, bytes, eagain, enobufs, next = 0;
	uint64_t lb[LANES];
	unsigned int i, done = 0, used = 0;
	int ret;
	bool ok = true;

	rds_stream_conf_default(&sc, total);
	sc.nsock = 8;
	for (i = 0; i < 8; i++) {
		sc.ip[i] = i < 4 ? ip_a : ip_b;
		sc.port[i] = (uint16_t)(4001 + i);
	}
	sc.trans = RDS_TRANS_TCP;
	sc.large_one_in = 500;
	sc.check_bytes = true;
	st = rds_stream_new(&sc);
	CU_ASSERT_FATAL(st != NULL);
	rds_test_deadline_init(&dl, sc.stall_s, sc.limit_s);
	while (!rds_stream_finished(st)) {
		ret = rds_stream_step(st);
		if (ret < 0) {
			ok = false;
			break;
		}
		if (ret > 0)
			rds_test_deadline_progress(&dl);
		else if (rds_test_deadline_expired(&dl, what)) {
			tcp_print_stats(what);
			ok = false;
			break;
		}
		rds_stream_counts(st, &sent, &received, &bytes, &eagain,
				  &enobufs);
		if (done < resets && received >= next) {
			next = received + total / (resets + 1);
			if (received > 0) {
				struct in6_addr la = tcp_in6(done % 2 ? ip_b :
							     ip_a);

				CU_ASSERT(rte_rds_tcp_inject_reset6(&la) == 0);
				done++;
			}
		}
	}
	CU_ASSERT(ok);
	if (ok) {
		/* Order per (socket, destination), SHA-256 per pair,
		 * nothing twice. */
		CU_ASSERT(rds_stream_verify(st) == 0);
		CU_ASSERT(rds_stream_quiet(st));
	}
	rds_stream_counts(st, &sent, &received, &bytes, &eagain, &enobufs);
	CU_ASSERT_EQUAL(received, total);
	lane_bytes(lb);
	printf("  %s: %" PRIu64 " messages, %u resets; bytes per lane:",
	       what, received, done);
	for (i = 0; i < LANES; i++) {
		printf(" %" PRIu64, lb[i]);
		/* More than the congestion maps (8 KiB a connect). */
		if (lb[i] > 256 * 1024)
			used++;
	}
	printf("\n");
	tcp_print_stats(what);
	/* Every lane carried its sockets' share (counted per TCP socket:
	 * a reset starts its lane's count again). */
	if (resets == 0)
		CU_ASSERT_EQUAL(used, LANES);
	rds_stream_free(st);
}

static void
test_lanes_stream(void)
{
	lanes_lib_up(",lanes=8", ",lanes=8");
	CU_ASSERT(lanes_handshake());
	lanes_stream("lanes", 20000, 0);
	CU_ASSERT(rds_test_stats().s_send_ping >= 1);
	CU_ASSERT(rds_test_lib_fini() == 0);
}

static void
test_lanes_reset(void)
{
	struct rte_rds_stats cs;

	lanes_lib_up(",lanes=8", ",lanes=8");
	CU_ASSERT(lanes_handshake());
	lanes_stream("lanes reset", 30000, 12);
	cs = rds_test_stats();
	printf("  core: retransmitted %" PRIu64 ", dropped as old %" PRIu64
	       "\n", cs.s_send_retransmit, cs.s_recv_drop_old_seq);
	CU_ASSERT(tcp_stats().resets_injected > 0);
	/* The lanes came back, each on its own port. */
	CU_ASSERT(lanes_handshake());
	CU_ASSERT(rds_test_lib_fini() == 0);
}

/* lanes=1 (the default) on one side: its pong to A's probe carries no
 * NPATHS, and A keeps one lane, as before. */
static void
test_lanes_one(void)
{
	union rds_test_addr tb = rds_test_addr(ip_b, 3999), from;
	struct rds_test_deadline dl;
	char buf[16];
	bool ponged = false;
	int a, b;

	lanes_lib_up(",lanes=8", "");
	a = rds_test_socket_trans(ip_a, 3998, 0, 0, RDS_TRANS_TCP);
	b = rds_test_socket_trans(ip_b, 3999, 0, 0, RDS_TRANS_TCP);
	CU_ASSERT_FATAL(a >= 0 && b >= 0);
	CU_ASSERT(rds_test_send_to(a, "hello", 5, &tb, 0) == 5);
	CU_ASSERT(rds_test_wait_msg_from(b, buf, sizeof(buf), &from,
					 20000) == 5);
	rds_test_deadline_init(&dl, 30, 30);
	while (!rds_test_deadline_expired(&dl, "pong")) {
		rds_test_kick();
		if (rds_test_stats().s_recv_pong >= 1) {
			ponged = true;
			break;
		}
		usleep(10000);
	}
	CU_ASSERT(ponged);
	/* The pong settled it: one lane (A's own probe went, B sent
	 * none). */
	CU_ASSERT_EQUAL(rds_test_stats().s_send_ping, 1);
	CU_ASSERT_EQUAL(a_lanes(), 1u);
	rte_rds_close(a);
	rte_rds_close(b);
	CU_ASSERT(rds_test_lib_fini() == 0);
}

/* ------------------------------------------------------------------ */
/* A played peer (lower address ip_lo, connecting to A) */

#define EXT_NPATHS 5
#define EXT_GEN_NUM 6
#define EXT_SPORT_IDX 8
#define FLAG_RETRANSMITTED 0x04

static bool
send_probe(int fd, uint64_t seq, uint32_t gen)
{
	struct raw_hdr h = { .seq = seq, .sport = 1, .dport = 0 };
	uint8_t b[HDR_LEN];

	raw_encode(b, &h, false);
	b[32] = EXT_NPATHS;
	b[33] = 0;
	b[34] = LANES;
	b[35] = EXT_GEN_NUM;
	b[36] = (uint8_t)(gen >> 24);
	b[37] = (uint8_t)(gen >> 16);
	b[38] = (uint8_t)(gen >> 8);
	b[39] = (uint8_t)gen;
	return send(fd, b, sizeof(b), 0) == (ssize_t)sizeof(b);
}

/* Read frames until one from sport to dport (its header in *h, its
 * extension bytes in ext); false on timeout or EOF. */
static bool
read_until(int fd, uint16_t sport, uint16_t dport, struct raw_hdr *h,
	   uint8_t ext[16])
{
	static uint8_t pay[1 << 16];
	uint8_t b[HDR_LEN];
	int i;

	for (i = 0; i < 64; i++) {
		if (raw_read(fd, b, sizeof(b), 20000) != HDR_LEN)
			return false;
		CU_ASSERT(raw_decode(b, h));
		if (h->len > sizeof(pay) ||
		    (h->len != 0 &&
		     raw_read(fd, pay, h->len, 20000) != (ssize_t)h->len))
			return false;
		if (h->sport == sport && h->dport == dport) {
			memcpy(ext, b + 32, 16);
			return true;
		}
	}
	return false;
}

static void
test_lanes_gen_num(void)
{
	union rds_test_addr from;
	struct raw_hdr h;
	uint8_t ext[16];
	uint32_t gen;
	char buf[16];
	int fd, r;
	struct rte_rds_stats cs;

	lanes_lib_up(",lanes=8", "");
	r = rds_test_socket_trans(ip_a, 5000, 0, 0, RDS_TRANS_TCP);
	CU_ASSERT_FATAL(r >= 0);
	fd = raw_connect(ip_lo, ip_a);
	CU_ASSERT_FATAL(fd >= 0);
	/* Our own probe when lane 0 came up: NPATHS 8 first. */
	CU_ASSERT_FATAL(read_until(fd, 1, 0, &h, ext));
	CU_ASSERT(ext[0] == EXT_NPATHS && ext[1] == 0 && ext[2] == LANES);
	/* The peer's probe (GEN_NUM 0x1111): our pong, 0 -> 1, with
	 * NPATHS 8, a GEN_NUM not 0 and SPORT_IDX. */
	CU_ASSERT_FATAL(send_probe(fd, 1, 0x1111));
	CU_ASSERT_FATAL(read_until(fd, 0, 1, &h, ext));
	CU_ASSERT(ext[0] == EXT_NPATHS && ext[2] == LANES);
	CU_ASSERT(ext[3] == EXT_GEN_NUM);
	gen = (uint32_t)ext[4] << 24 | (uint32_t)ext[5] << 16 |
	      (uint32_t)ext[6] << 8 | ext[7];
	CU_ASSERT(gen != 0);
	CU_ASSERT(ext[8] == EXT_SPORT_IDX && ext[9] == 0);
	/* Data up to sequence 3. */
	CU_ASSERT(raw_send_frame(fd, 2, 7000, 5000, "one", 3, false));
	CU_ASSERT(raw_send_frame(fd, 3, 7000, 5000, "two", 3, false));
	CU_ASSERT(rds_test_wait_msg_from(r, buf, sizeof(buf), &from,
					 20000) == 3);
	CU_ASSERT(rds_test_wait_msg_from(r, buf, sizeof(buf), &from,
					 20000) == 3);
	CU_ASSERT_EQUAL(rds_test_stats().s_conn_peer_restart, 0);
	/* The peer restarts (GEN_NUM 0x2222); its sequence 2 again,
	 * marked RETRANSMITTED: a sequence below what we had, which the
	 * duplicate rule would drop were the lane's not started again. */
	CU_ASSERT_FATAL(send_probe(fd, 1, 0x2222));
	{
		uint8_t b[HDR_LEN];
		struct raw_hdr d = { .seq = 2, .len = 5, .sport = 7000,
				     .dport = 5000,
				     .flags = FLAG_RETRANSMITTED };

		raw_encode(b, &d, false);
		CU_ASSERT(send(fd, b, sizeof(b), 0) == HDR_LEN);
		CU_ASSERT(send(fd, "again", 5, 0) == 5);
	}
	CU_ASSERT(rds_test_wait_msg_from(r, buf, sizeof(buf), &from,
					 20000) == 5);
	CU_ASSERT(memcmp(buf, "again", 5) == 0);
	cs = rds_test_stats();
	CU_ASSERT_EQUAL(cs.s_conn_peer_restart, 1);
	CU_ASSERT_EQUAL(cs.s_recv_drop_old_seq, 0);
	/* Our sequences start again too: the next message is 1, or 2
	 * behind the pong to the new probe when that was still queued
	 * (stamped again from 1). Before the restart we had sent the
	 * probe, the congestion map (not sequenced) and a pong: 3 and on. */
	{
		union rds_test_addr tp = rds_test_addr(ip_lo, 7000);

		CU_ASSERT(rds_test_send_to(r, "x", 1, &tp, 0) == 1);
		CU_ASSERT_FATAL(read_until(fd, 5000, 7000, &h, ext));
		CU_ASSERT(h.seq == 1 || h.seq == 2);
	}
	close(fd);
	rte_rds_close(r);
	CU_ASSERT(rds_test_lib_fini() == 0);
}

int
main(int argc, char **argv)
{
	static const struct rds_test_case cases[] = {
		{ "8 lanes: a stream spread over them, in order",
		  test_lanes_stream },
		{ "8 lanes: every lane reset mid-stream", test_lanes_reset },
		{ "lanes=1 on one side: one lane", test_lanes_one },
		{ "a played peer: NPATHS, GEN_NUM, a restart",
		  test_lanes_gen_num },
		{ NULL, NULL },
	};

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	tcp_addrs_init(false);
	return rds_test_main("tcp_lanes", "0-1", cases);
}

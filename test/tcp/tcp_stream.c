/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tcp transport on the host (suite 'tcp'): two local addresses A and
 * B on the loopback interface, each with its own listening socket, every
 * socket pinned to RDS_TRANS_TCP, so that messages between them go over
 * real kernel TCP connections (A is the lower address and connects; B's
 * connection to A is made by A too, after B knocks). Then a peer this
 * test plays with plain TCP sockets, as the kernel's rds_tcp would: the
 * frames it sends are delivered, its garbage is dropped and counted and
 * ends the connection, and its knock from a higher address is answered
 * by a connect back.
 *
 * Addresses: 127.84.N.10 (A), .20 (B), .5 (the played peer, lower than
 * both) and .30 (higher than both), N from the process id, so that two
 * runs (the normal and the ASan build) do not meet.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <CUnit/CUnit.h>
#include <rte_jhash.h>
#include <rte_rds.h>
#include <rte_rds_socket.h>
#include <rte_rds_stats.h>
#include <rte_rds_tcp.h>

#include "rds_stream.h"
#include "rds_test.h"

static char ip_a[32], ip_b[32], ip_lo[32], ip_hi[32];

/* The kernel's struct rds_header, written here from net/rds/rds.h (not
 * the library's encoder: the test checks the library against it). */
#define HDR_LEN 48
#define FLAG_CONG_BITMAP 0x01
#define CONG_MAP_BYTES 8192

struct raw_hdr {
	uint64_t seq, ack;
	uint32_t len;
	uint16_t sport, dport;
	uint8_t flags;
};

static void
put_be(uint8_t *p, uint64_t v, unsigned int n)
{
	while (n-- > 0) {
		p[n] = (uint8_t)v;
		v >>= 8;
	}
}

static uint64_t
get_be(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = v << 8 | *p++;
	return v;
}

/* RFC 1071 over the 48 bytes, as ip_fast_csum. */
static uint16_t
raw_csum(const uint8_t *p)
{
	uint32_t sum = 0;
	unsigned int i;

	for (i = 0; i < HDR_LEN; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void
raw_encode(uint8_t *p, const struct raw_hdr *h, bool csum)
{
	uint16_t c;

	memset(p, 0, HDR_LEN);
	put_be(p, h->seq, 8);
	put_be(p + 8, h->ack, 8);
	put_be(p + 16, h->len, 4);
	put_be(p + 20, h->sport, 2);
	put_be(p + 22, h->dport, 2);
	p[24] = h->flags;
	if (csum) {
		c = raw_csum(p);
		put_be(p + 30, c, 2);
	}
}

/* Decode; false when the checksum is neither 0 nor right. */
static bool
raw_decode(const uint8_t *p, struct raw_hdr *h)
{
	h->seq = get_be(p, 8);
	h->ack = get_be(p + 8, 8);
	h->len = (uint32_t)get_be(p + 16, 4);
	h->sport = (uint16_t)get_be(p + 20, 2);
	h->dport = (uint16_t)get_be(p + 22, 2);
	h->flags = p[24];
	return get_be(p + 30, 2) == 0 || raw_csum(p) == 0;
}

static void
addrs_init(void)
{
	unsigned int n = (unsigned int)getpid() % 200 + 20;

	snprintf(ip_a, sizeof(ip_a), "127.84.%u.10", n);
	snprintf(ip_b, sizeof(ip_b), "127.84.%u.20", n);
	snprintf(ip_lo, sizeof(ip_lo), "127.84.%u.5", n);
	snprintf(ip_hi, sizeof(ip_hi), "127.84.%u.30", n);
}

static void
lib_up(void)
{
	struct rte_rds_conf conf;
	char spec[64];

	rds_test_conf(&conf, rds_test_worker_lcore(), RTE_RDS_IDLE_YIELD);
	snprintf(spec, sizeof(spec), "%s=tcp", ip_a);
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(&conf, spec) == 0);
	snprintf(spec, sizeof(spec), "%s=tcp,sndbuf=262144", ip_b);
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(&conf, spec) == 0);
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
}

static struct rte_rds_tcp_stats
tcp_stats(void)
{
	struct rte_rds_tcp_stats st;

	memset(&st, 0, sizeof(st));
	CU_ASSERT(rte_rds_tcp_stats_get(&st) == 0);
	return st;
}

static void
print_stats(const char *what)
{
	struct rte_rds_tcp_stats st = tcp_stats();

	printf("  %s: connects %" PRIu64 ", accepts %" PRIu64 ", knocks %"
	       PRIu64 "/%" PRIu64 " answered, msgs tx %" PRIu64 " rx %" PRIu64
	       ", acked %" PRIu64 ", sendmsg %" PRIu64 " (partial %" PRIu64
	       "), recv %" PRIu64 ", ack checks %" PRIu64 ", window full %"
	       PRIu64 ", resets %" PRIu64 " (injected %" PRIu64 "), bad %"
	       PRIu64 ", stalls %" PRIu64 "\n", what, st.connects, st.accepts,
	       st.knocks, st.knocks_answered, st.tx_msgs, st.rx_msgs,
	       st.tx_acked_msgs, st.tx_calls, st.tx_partial, st.rx_calls,
	       st.ack_checks, st.tx_window_full, st.resets,
	       st.resets_injected, st.rx_bad_frames, st.rx_stalls);
}

/* Each size, each way, byte-exact. */
static void
test_sizes(void)
{
	static const uint32_t sizes[] = {
		0, 1, 47, 48, 49, 4095, 4096, 4097, 16383, 65536, 262145,
		1 << 20,
	};
	uint8_t *out = malloc(1 << 20), *in = malloc(1 << 20);
	struct sockaddr_in from, ta, tb;
	unsigned int i, dir;
	int a, b;

	CU_ASSERT_FATAL(out != NULL && in != NULL);
	lib_up();
	a = rds_test_socket_trans(ip_a, 4000, 4 << 20, 4 << 20, RDS_TRANS_TCP);
	b = rds_test_socket_trans(ip_b, 5000, 4 << 20, 4 << 20, RDS_TRANS_TCP);
	CU_ASSERT_FATAL(a >= 0 && b >= 0);
	ta = rds_test_sin(ip_a, 4000);
	tb = rds_test_sin(ip_b, 5000);
	for (dir = 0; dir < 2; dir++) {
		int s = dir == 0 ? a : b, r = dir == 0 ? b : a;
		const struct sockaddr_in *to = dir == 0 ? &tb : &ta;

		for (i = 0; i < RTE_DIM(sizes); i++) {
			ssize_t n;

			rds_test_fill(out, sizes[i], i * 2 + dir);
			n = rds_test_send(s, out, sizes[i], to, 0);
			CU_ASSERT_EQUAL(n, (ssize_t)sizes[i]);
			n = rds_test_wait_msg(r, in, 1 << 20, &from, 20000);
			CU_ASSERT_EQUAL(n, (ssize_t)sizes[i]);
			if (n == (ssize_t)sizes[i])
				CU_ASSERT(memcmp(in, out, sizes[i]) == 0);
			CU_ASSERT(from.sin_addr.s_addr ==
				  (dir == 0 ? ta : tb).sin_addr.s_addr);
		}
	}
	print_stats("sizes");
	/* Over TCP, not loop: the transport carried them all. */
	CU_ASSERT(tcp_stats().rx_msgs >= 2 * RTE_DIM(sizes));
	CU_ASSERT(tcp_stats().connects >= 1);
	rte_rds_close(a);
	rte_rds_close(b);
	CU_ASSERT(rds_test_lib_fini() == 0);
	free(out);
	free(in);
}

static void
stream_conf(struct rds_stream_conf *sc, uint64_t total)
{
	rds_stream_conf_default(sc, total);
	sc->nsock = 4;
	sc->ip[0] = ip_a;
	sc->ip[1] = ip_a;
	sc->ip[2] = ip_b;
	sc->ip[3] = ip_b;
	sc->trans = RDS_TRANS_TCP;
	sc->large_one_in = 500;
	sc->check_bytes = true;
}

static bool
run_stream(const char *what, uint64_t total, unsigned int resets)
{
	struct rds_stream_conf sc;
	struct rds_stream *st;
	uint64_t sent, received, bytes, eagain, enobufs, next = 0;
	unsigned int done = 0;
	bool ok = true;
	int ret;

	stream_conf(&sc, total);
	st = rds_stream_new(&sc);
	CU_ASSERT_FATAL(st != NULL);
	/* Resets spread over the run: one each total / (resets + 1)
	 * messages received. */
	while (!rds_stream_finished(st)) {
		ret = rds_stream_step(st);
		if (ret < 0) {
			ok = false;
			break;
		}
		rds_stream_counts(st, &sent, &received, &bytes, &eagain,
				  &enobufs);
		if (done < resets && received >= next) {
			next = received + total / (resets + 1);
			if (received > 0) {
				/* One side at a time: the other reads what
				 * it had, then the RST. */
				CU_ASSERT(rte_rds_tcp_inject_reset(
					rds_test_sin(done % 2 ? ip_b : ip_a,
						     0).sin_addr.s_addr) == 0);
				done++;
			}
		}
	}
	CU_ASSERT(ok);
	if (ok) {
		CU_ASSERT(rds_stream_verify(st) == 0);
		CU_ASSERT(rds_stream_quiet(st));
	}
	rds_stream_counts(st, &sent, &received, &bytes, &eagain, &enobufs);
	printf("  %s: %" PRIu64 " messages (%" PRIu64 " bytes), %u resets, "
	       "EAGAIN %" PRIu64 ", ENOBUFS %" PRIu64 "\n", what, received,
	       bytes, done, eagain, enobufs);
	CU_ASSERT_EQUAL(received, total);
	rds_stream_free(st);
	return ok;
}

/* Every socket to every other, both ways, SHA-256 per pair. */
static void
test_stream(void)
{
	lib_up();
	run_stream("stream", 20000, 0);
	print_stats("stream");
	CU_ASSERT(tcp_stats().tx_acked_msgs > 0);
	CU_ASSERT(rds_test_lib_fini() == 0);
}

/* The connections of one side reset (an RST: what it had not sent is
 * lost) five times in the middle, A's and B's in turn: RDS sends again
 * what TCP had not acknowledged, and the receiver drops what it had:
 * nothing lost, nothing twice. A message freed before TCP acknowledged
 * it would be lost here. */
static void
test_reset(void)
{
	struct rte_rds_stats rs;

	lib_up();
	run_stream("reset", 30000, 30);
	print_stats("reset");
	rs = rds_test_stats();
	printf("  core: retransmitted %" PRIu64 ", dropped as old %" PRIu64
	       "\n", rs.s_send_retransmit, rs.s_recv_drop_old_seq);
	CU_ASSERT(tcp_stats().resets_injected > 0);
	CU_ASSERT(tcp_stats().connects >= 2);
	CU_ASSERT(rds_test_lib_fini() == 0);
}

/* The engine of a pair of addresses among two, as the library picks it
 * (rds_conn_engine_of: jhash of each v4-mapped address, their xor). */
static unsigned int
engine_of(const char *a, const char *b)
{
	struct in6_addr x, y;
	uint32_t v;

	memset(&x, 0, sizeof(x));
	memset(&y, 0, sizeof(y));
	x.s6_addr[10] = x.s6_addr[11] = 0xff;
	y.s6_addr[10] = y.s6_addr[11] = 0xff;
	v = rds_test_sin(a, 0).sin_addr.s_addr;
	memcpy(&x.s6_addr[12], &v, 4);
	v = rds_test_sin(b, 0).sin_addr.s_addr;
	memcpy(&y.s6_addr[12], &v, 4);
	return rte_jhash_1word(rte_jhash(&x, sizeof(x), 0) ^
			       rte_jhash(&y, sizeof(y), 0), 0x5eed) % 2;
}

/* Two engines (inline), the pair's connection owned by engine 1: engine
 * 0, which polls the listening sockets, hands the accepted socket over. */
static void
test_engines(void)
{
	struct rte_rds_conf conf;
	char ip_c[32], spec[64];
	unsigned int last = 19, n = (unsigned int)getpid() % 200 + 20;
	struct rds_stream_conf sc;
	struct rds_stream *st;

	do {
		snprintf(ip_c, sizeof(ip_c), "127.84.%u.%u", n, ++last);
	} while (engine_of(ip_a, ip_c) != 1 && last < 250);
	CU_ASSERT_FATAL(engine_of(ip_a, ip_c) == 1);
	rds_test_conf(&conf, RTE_RDS_ENGINE_INLINE, RTE_RDS_IDLE_YIELD);
	conf.nb_engines = 2;
	conf.engine[1].lcore_id = RTE_RDS_ENGINE_INLINE;
	conf.engine[1].idle = RTE_RDS_IDLE_YIELD;
	snprintf(spec, sizeof(spec), "%s=tcp", ip_a);
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(&conf, spec) == 0);
	snprintf(spec, sizeof(spec), "%s=tcp", ip_c);
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(&conf, spec) == 0);
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
	stream_conf(&sc, 4000);
	sc.ip[2] = ip_c;
	sc.ip[3] = ip_c;
	st = rds_stream_new(&sc);
	CU_ASSERT_FATAL(st != NULL);
	CU_ASSERT(rds_stream_run(st, "engines"));
	CU_ASSERT(rds_stream_verify(st) == 0);
	rds_stream_free(st);
	print_stats("engines");
	CU_ASSERT(tcp_stats().accept_handoffs >= 1);
	CU_ASSERT(rds_test_lib_fini() == 0);
}

/* No RDMA over tcp, as the kernel's rds_tcp: EOPNOTSUPP. */
static void
test_rdma_refused(void)
{
	struct rds_rdma_args ra;
	struct rds_iovec iov;
	struct sockaddr_in tb;
	static uint8_t buf[64];
	int a;

	lib_up();
	a = rds_test_socket_trans(ip_a, 4000, 0, 0, RDS_TRANS_TCP);
	CU_ASSERT_FATAL(a >= 0);
	tb = rds_test_sin(ip_b, 5000);
	iov.addr = (uint64_t)(uintptr_t)buf;
	iov.bytes = sizeof(buf);
	memset(&ra, 0, sizeof(ra));
	ra.cookie = 0x100000001ULL;
	ra.remote_vec.bytes = sizeof(buf);
	ra.local_vec_addr = (uint64_t)(uintptr_t)&iov;
	ra.nr_local = 1;
	ra.flags = RDS_RDMA_READWRITE;
	errno = 0;
	CU_ASSERT_EQUAL(rds_test_send_cmsg(a, "x", 1, &tb, SOL_RDS,
					   RDS_CMSG_RDMA_ARGS, &ra, sizeof(ra),
					   0), -1);
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
	rte_rds_close(a);
	CU_ASSERT(rds_test_lib_fini() == 0);
}

/* ------------------------------------------------------------------ */
/* A peer played with plain TCP sockets. */

static int
raw_connect(const char *from, const char *to)
{
	struct sockaddr_in sa = rds_test_sin(from, 0);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		goto fail;
	sa = rds_test_sin(to, 16385);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		goto fail;
	return fd;
fail:
	close(fd);
	return -1;
}

/* Read exactly len bytes, within timeout_ms: len, 0 at EOF or reset,
 * -1 on timeout. */
static ssize_t
raw_read(int fd, void *buf, size_t len, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		if (poll(&p, 1, timeout_ms) <= 0)
			return -1;
		n = recv(fd, (uint8_t *)buf + got, len - got, 0);
		if (n <= 0)
			return 0;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/* Wait until the library closes fd (EOF or RST). */
static bool
raw_closed(int fd)
{
	uint8_t b[4096];
	struct pollfd p = { .fd = fd, .events = POLLIN };

	for (;;) {
		if (poll(&p, 1, 20000) <= 0)
			return false;
		if (recv(fd, b, sizeof(b), 0) <= 0)
			return true;
	}
}

static bool
raw_send_frame(int fd, uint64_t seq, uint16_t sport, uint16_t dport,
	       const void *p, uint32_t len, bool csum)
{
	struct raw_hdr h = { .seq = seq, .len = len, .sport = sport,
			     .dport = dport };
	uint8_t b[HDR_LEN];

	raw_encode(b, &h, csum);	/* csum false: 0, as rds_tcp sends */
	return send(fd, b, sizeof(b), 0) == (ssize_t)sizeof(b) &&
	       (len == 0 || send(fd, p, len, 0) == (ssize_t)len);
}

/* The played peer's frames are delivered (checksum 0, as the kernel's
 * rds_tcp sends them, or computed); what the library sends it is the
 * kernel's framing; then garbage ends the connection, counted. */
static void
test_raw_peer(void)
{
	struct rte_rds_tcp_stats st0;
	struct sockaddr_in from, to;
	struct raw_hdr hi;
	uint8_t h[HDR_LEN];
	static uint8_t buf[CONG_MAP_BYTES];
	ssize_t n;
	int fd, b;

	lib_up();
	b = rds_test_socket_trans(ip_b, 5000, 0, 0, RDS_TRANS_TCP);
	CU_ASSERT_FATAL(b >= 0);
	fd = raw_connect(ip_lo, ip_b);
	CU_ASSERT_FATAL(fd >= 0);
	/* The library's congestion map comes first, on every connect. */
	CU_ASSERT_EQUAL_FATAL(raw_read(fd, h, sizeof(h), 20000),
			      (ssize_t)sizeof(h));
	CU_ASSERT(raw_decode(h, &hi));
	CU_ASSERT_EQUAL(hi.flags, FLAG_CONG_BITMAP);
	CU_ASSERT_EQUAL(hi.len, CONG_MAP_BYTES);
	CU_ASSERT_EQUAL(raw_read(fd, buf, hi.len, 20000), (ssize_t)hi.len);

	CU_ASSERT(raw_send_frame(fd, 1, 7000, 5000, "kernel", 6, false));
	n = rds_test_wait_msg(b, buf, sizeof(buf), &from, 20000);
	CU_ASSERT_EQUAL(n, 6);
	CU_ASSERT(n == 6 && memcmp(buf, "kernel", 6) == 0);
	CU_ASSERT_EQUAL(ntohs(from.sin_port), 7000);
	CU_ASSERT(raw_send_frame(fd, 2, 7000, 5000, "csum", 4, true));
	CU_ASSERT_EQUAL(rds_test_wait_msg(b, buf, sizeof(buf), &from, 20000),
			4);

	/* The library's message to the played peer: a header and the
	 * payload, sequenced; acknowledged once TCP has it. */
	st0 = tcp_stats();
	to = rds_test_sin(ip_lo, 7000);
	CU_ASSERT_EQUAL(rds_test_send(b, "reply", 5, &to, 0), 5);
	CU_ASSERT_EQUAL_FATAL(raw_read(fd, h, sizeof(h), 20000),
			      (ssize_t)sizeof(h));
	CU_ASSERT(raw_decode(h, &hi));
	CU_ASSERT_EQUAL(hi.len, 5);
	CU_ASSERT_EQUAL(hi.sport, 5000);
	CU_ASSERT_EQUAL(hi.dport, 7000);
	CU_ASSERT_EQUAL(hi.ack, 0);	/* no RDS ACKs on tcp */
	CU_ASSERT(hi.seq >= 1);
	CU_ASSERT_EQUAL(raw_read(fd, buf, 5, 20000), 5);
	CU_ASSERT(memcmp(buf, "reply", 5) == 0);
	for (n = 0; n < 2000 && tcp_stats().tx_acked_msgs ==
	     st0.tx_acked_msgs; n++)
		usleep(10000);
	CU_ASSERT(tcp_stats().tx_acked_msgs > st0.tx_acked_msgs);

	/* A header whose checksum is wrong: dropped, counted, and the
	 * connection ends. */
	st0 = tcp_stats();
	hi = (struct raw_hdr){ .seq = 3, .len = 4, .sport = 7000,
			       .dport = 5000 };
	raw_encode(h, &hi, true);
	h[31] ^= 0x34;
	CU_ASSERT(send(fd, h, sizeof(h), 0) == (ssize_t)sizeof(h));
	CU_ASSERT(raw_closed(fd));
	close(fd);
	CU_ASSERT_EQUAL(tcp_stats().rx_bad_frames, st0.rx_bad_frames + 1);

	/* A length past 1 MiB: the same. */
	fd = raw_connect(ip_lo, ip_b);
	CU_ASSERT_FATAL(fd >= 0);
	hi = (struct raw_hdr){ .seq = 4, .len = (1u << 20) + 1,
			       .sport = 7000, .dport = 5000 };
	raw_encode(h, &hi, false);
	CU_ASSERT(send(fd, h, sizeof(h), 0) == (ssize_t)sizeof(h));
	CU_ASSERT(raw_closed(fd));
	close(fd);
	CU_ASSERT_EQUAL(tcp_stats().rx_bad_frames, st0.rx_bad_frames + 2);
	/* Nothing of either reached the socket. */
	CU_ASSERT(rds_test_wait_msg(b, buf, sizeof(buf), &from, 200) < 0);
	print_stats("raw peer");
	rte_rds_close(b);
	CU_ASSERT(rds_test_lib_fini() == 0);
}

/* A peer of a higher address connects (a knock): the library resets
 * that connection and connects back, from its own address to the
 * peer's port 16385. */
static void
test_knock(void)
{
	struct sockaddr_in sa = rds_test_sin(ip_hi, 16385);
	struct pollfd p;
	int lfd, fd, one = 1, nfd;

	lib_up();
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	CU_ASSERT_FATAL(lfd >= 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	CU_ASSERT_FATAL(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
	CU_ASSERT_FATAL(listen(lfd, 4) == 0);
	fd = raw_connect(ip_hi, ip_b);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(raw_closed(fd));	/* reset by the library */
	close(fd);
	p.fd = lfd;
	p.events = POLLIN;
	CU_ASSERT_FATAL(poll(&p, 1, 20000) == 1);
	socklen_t len = sizeof(sa);
	nfd = accept(lfd, (struct sockaddr *)&sa, &len);
	CU_ASSERT_FATAL(nfd >= 0);
	CU_ASSERT_EQUAL(sa.sin_addr.s_addr, rds_test_sin(ip_b, 0).sin_addr.s_addr);
	CU_ASSERT(tcp_stats().knocks_answered >= 1);
	print_stats("knock");
	close(nfd);
	close(lfd);
	CU_ASSERT(rds_test_lib_fini() == 0);
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "sizes 0 B .. 1 MiB both ways", test_sizes },
		{ "stream SHA-256 both ways", test_stream },
		{ "reset mid-stream: nothing lost or twice", test_reset },
		{ "two engines: an accepted socket handed over", test_engines },
		{ "RDMA refused (EOPNOTSUPP)", test_rdma_refused },
		{ "a played kernel peer; bad frames", test_raw_peer },
		{ "a higher address knocks", test_knock },
		{ NULL, NULL },
	};

	addrs_init();
	return rds_test_main("tcp_stream", "0-1", cases);
}

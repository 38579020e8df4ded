/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tcp transport on the host (suite 'tcp'): two local addresses A and
 * B, each with its own listening socket, every socket pinned to
 * RDS_TRANS_TCP, so that messages between them go over real kernel TCP
 * connections (A is the lower address and connects; B's connection to A
 * is made by A too, after B knocks). Then a peer this test plays with
 * plain TCP sockets, as the kernel's rds_tcp would (tcp_peer.c): the
 * frames it sends are delivered, its garbage is dropped and counted and
 * ends the connection, and its knock from a higher address is answered
 * by a connect back.
 *
 * "tcp_stream" runs over IPv4 on the loopback interface; "tcp_stream v6"
 * (from tcp_v6.sh, in a network namespace of its own) runs the same
 * cases over IPv6, and the IPv6 run's own (tcp_v6.c): a link-local
 * pair, the errno of IPv6 names, the info records. tcp_test.h has the
 * addresses.
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
#include "tcp_test.h"

bool tcp_v6;
char ip_a[48], ip_b[48], ip_lo[48], ip_hi[48];

void
tcp_addrs_init(bool v6)
{
	unsigned int n = (unsigned int)getpid() % 200 + 20;

	tcp_v6 = v6;
	if (v6) {
		/* A namespace of the run's own: no other run meets them. */
		snprintf(ip_a, sizeof(ip_a), "fd00:84::10");
		snprintf(ip_b, sizeof(ip_b), "fd00:84::20");
		snprintf(ip_lo, sizeof(ip_lo), "fd00:84::5");
		snprintf(ip_hi, sizeof(ip_hi), "fd00:84::30");
		return;
	}
	snprintf(ip_a, sizeof(ip_a), "127.84.%u.10", n);
	snprintf(ip_b, sizeof(ip_b), "127.84.%u.20", n);
	snprintf(ip_lo, sizeof(ip_lo), "127.84.%u.5", n);
	snprintf(ip_hi, sizeof(ip_hi), "127.84.%u.30", n);
}

/* "IP=tcp..." with IPv6 in brackets. */
static void
add_addr(struct rte_rds_conf *conf, const char *ip, const char *opts)
{
	char spec[128];

	snprintf(spec, sizeof(spec), "%s%s%s=tcp%s", tcp_v6 ? "[" : "", ip,
		 tcp_v6 ? "]" : "", opts);
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(conf, spec) == 0);
}

void
tcp_lib_up(void)
{
	struct rte_rds_conf conf;

	rds_test_conf(&conf, rds_test_worker_lcore(), RTE_RDS_IDLE_YIELD);
	add_addr(&conf, ip_a, "");
	add_addr(&conf, ip_b, ",sndbuf=262144");
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
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

struct in6_addr
tcp_in6(const char *ip)
{
	union rds_test_addr u = rds_test_addr(ip, 0);
	struct in6_addr a;

	memset(&a, 0, sizeof(a));
	if (u.sa.sa_family == AF_INET6)
		return u.in6.sin6_addr;
	a.s6_addr[10] = a.s6_addr[11] = 0xff;
	memcpy(&a.s6_addr[12], &u.in.sin_addr, 4);
	return a;
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
	union rds_test_addr from, ta, tb;
	unsigned int i, dir;
	int a, b;

	CU_ASSERT_FATAL(out != NULL && in != NULL);
	tcp_lib_up();
	a = rds_test_socket_trans(ip_a, 4000, 4 << 20, 4 << 20, RDS_TRANS_TCP);
	b = rds_test_socket_trans(ip_b, 5000, 4 << 20, 4 << 20, RDS_TRANS_TCP);
	CU_ASSERT_FATAL(a >= 0 && b >= 0);
	ta = rds_test_addr(ip_a, 4000);
	tb = rds_test_addr(ip_b, 5000);
	for (dir = 0; dir < 2; dir++) {
		int s = dir == 0 ? a : b, r = dir == 0 ? b : a;
		const union rds_test_addr *to = dir == 0 ? &tb : &ta;

		for (i = 0; i < RTE_DIM(sizes); i++) {
			ssize_t n;

			rds_test_fill(out, sizes[i], i * 2 + dir);
			n = rds_test_send_to(s, out, sizes[i], to, 0);
			CU_ASSERT_EQUAL(n, (ssize_t)sizes[i]);
			n = rds_test_wait_msg_from(r, in, 1 << 20, &from,
						   20000);
			CU_ASSERT_EQUAL(n, (ssize_t)sizes[i]);
			if (n == (ssize_t)sizes[i])
				CU_ASSERT(memcmp(in, out, sizes[i]) == 0);
			/* The source, of the socket's family. */
			CU_ASSERT(rds_test_addr_eq(&from, dir == 0 ? &ta : &tb));
		}
	}
	tcp_print_stats("sizes");
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
	struct rds_test_deadline dl;
	struct rds_stream *st;
	uint64_t sent, received, bytes, eagain, enobufs, next = 0;
	unsigned int done = 0;
	bool ok = true;
	int ret;

	stream_conf(&sc, total);
	st = rds_stream_new(&sc);
	CU_ASSERT_FATAL(st != NULL);
	/* The stream's own bounds (rds_stream_run's): a stream that stops
	 * fails with what the transport counted, it does not hang. */
	rds_test_deadline_init(&dl, sc.stall_s, sc.limit_s);
	/* Resets spread over the run: one each total / (resets + 1)
	 * messages received. */
	while (!rds_stream_finished(st)) {
		ret = rds_stream_step(st);
		if (ret < 0) {
			ok = false;
			break;
		}
		if (ret > 0) {
			rds_test_deadline_progress(&dl);
		} else if (rds_test_deadline_expired(&dl, what)) {
			struct rte_rds_stats cs = rds_test_stats();

			rds_stream_counts(st, &sent, &received, &bytes,
					  &eagain, &enobufs);
			printf("  %s: stopped after sent %" PRIu64
			       ", received %" PRIu64 " of %" PRIu64 "\n",
			       what, sent, received, total);
			tcp_print_stats(what);
			rds_test_stats_print("  core:", &cs);
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
				struct in6_addr la = tcp_in6(done % 2 ? ip_b :
							     ip_a);

				CU_ASSERT(rte_rds_tcp_inject_reset6(&la) == 0);
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
	tcp_lib_up();
	run_stream("stream", 20000, 0);
	tcp_print_stats("stream");
	CU_ASSERT(tcp_stats().tx_acked_msgs > 0);
	CU_ASSERT(rds_test_lib_fini() == 0);
}

/* A window of 1 message per connection (window=1) and socket buffers
 * so small that the receivers congest and uncongest all the time: the
 * send queues block on the window again and again, with congestion
 * maps among the messages written (a map leaves the window's count
 * without an acknowledgement to follow). Each block must end: a queue
 * left blocked stops the stream, and the stream's bounds fail it (a
 * queue that only acknowledgements unblocked stopped within a few
 * thousand messages here). */
static void
test_window(void)
{
	struct rte_rds_conf conf;
	struct rds_stream_conf sc;
	struct rte_rds_stats cs;
	struct rte_rds_tcp_stats ts;
	struct rds_stream *st;
	uint64_t sent, received, bytes, eagain, enobufs;
	bool ok;

	rds_test_conf(&conf, rds_test_worker_lcore(), RTE_RDS_IDLE_YIELD);
	add_addr(&conf, ip_a, ",window=1");
	add_addr(&conf, ip_b, ",window=1,sndbuf=262144");
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
	stream_conf(&sc, 20000);
	sc.sockbuf = 4096;
	sc.stall_s = 30;
	sc.large_one_in = 0;
	st = rds_stream_new(&sc);
	CU_ASSERT_FATAL(st != NULL);
	ok = rds_stream_run(st, "window");
	CU_ASSERT(ok);
	if (ok)
		CU_ASSERT(rds_stream_verify(st) == 0);
	rds_stream_counts(st, &sent, &received, &bytes, &eagain, &enobufs);
	cs = rds_test_stats();
	ts = tcp_stats();
	tcp_print_stats("window");
	printf("  window: %" PRIu64 " messages, ENOBUFS %" PRIu64
	       ", congestion maps sent %" PRIu64 "\n", received, enobufs,
	       cs.s_cong_update_queued);
	CU_ASSERT_EQUAL(received, sc.total);
	/* What the case is for: blocks on the window, and maps. */
	CU_ASSERT(ts.tx_window_full > 0);
	CU_ASSERT(cs.s_cong_update_queued > 0);
	rds_stream_free(st);
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

	tcp_lib_up();
	run_stream("reset", 30000, 30);
	tcp_print_stats("reset");
	rs = rds_test_stats();
	printf("  core: retransmitted %" PRIu64 ", dropped as old %" PRIu64
	       "\n", rs.s_send_retransmit, rs.s_recv_drop_old_seq);
	CU_ASSERT(tcp_stats().resets_injected > 0);
	CU_ASSERT(tcp_stats().connects >= 2);
	CU_ASSERT(rds_test_lib_fini() == 0);
}

/* The engine of a pair of addresses among two, as the library picks it
 * (rds_conn_engine_of: jhash of each address as the library keeps it,
 * their xor). */
static unsigned int
engine_of(const char *a, const char *b)
{
	struct in6_addr x = tcp_in6(a), y = tcp_in6(b);

	return rte_jhash_1word(rte_jhash(&x, sizeof(x), 0) ^
			       rte_jhash(&y, sizeof(y), 0), 0x5eed) % 2;
}

/* Two engines (inline), the pair's connection owned by engine 1: engine
 * 0, which polls the listening sockets, hands the accepted socket over. */
static void
test_engines(void)
{
	struct rte_rds_conf conf;
	char ip_c[48];
	unsigned int last = 19, n = (unsigned int)getpid() % 200 + 20;
	struct rds_stream_conf sc;
	struct rds_stream *st;

	/* IPv6: tcp_v6.sh puts fd00:84::21 to ::2f on lo. */
	if (tcp_v6)
		last = 0x20;
	do {
		last++;
		if (tcp_v6)
			snprintf(ip_c, sizeof(ip_c), "fd00:84::%x", last);
		else
			snprintf(ip_c, sizeof(ip_c), "127.84.%u.%u", n, last);
	} while (engine_of(ip_a, ip_c) != 1 && last < (tcp_v6 ? 0x2f : 250));
	CU_ASSERT_FATAL(engine_of(ip_a, ip_c) == 1);
	rds_test_conf(&conf, RTE_RDS_ENGINE_INLINE, RTE_RDS_IDLE_YIELD);
	conf.nb_engines = 2;
	conf.engine[1].lcore_id = RTE_RDS_ENGINE_INLINE;
	conf.engine[1].idle = RTE_RDS_IDLE_YIELD;
	add_addr(&conf, ip_a, "");
	add_addr(&conf, ip_c, "");
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
	stream_conf(&sc, 4000);
	sc.ip[2] = ip_c;
	sc.ip[3] = ip_c;
	st = rds_stream_new(&sc);
	CU_ASSERT_FATAL(st != NULL);
	CU_ASSERT(rds_stream_run(st, "engines"));
	CU_ASSERT(rds_stream_verify(st) == 0);
	rds_stream_free(st);
	tcp_print_stats("engines");
	CU_ASSERT(tcp_stats().accept_handoffs >= 1);
	CU_ASSERT(rds_test_lib_fini() == 0);
}

/* No RDMA over tcp, as the kernel's rds_tcp: EOPNOTSUPP. */
static void
test_rdma_refused(void)
{
	struct rds_rdma_args ra;
	struct rds_iovec iov;
	union rds_test_addr tb;
	static uint8_t buf[64];
	union {
		struct cmsghdr h;
		uint8_t b[CMSG_SPACE(sizeof(struct rds_rdma_args))];
	} cbuf;
	struct iovec data = { .iov_base = (void *)(uintptr_t)"x",
			      .iov_len = 1 };
	struct msghdr mh;
	struct cmsghdr *cm;
	int a;

	tcp_lib_up();
	a = rds_test_socket_trans(ip_a, 4000, 0, 0, RDS_TRANS_TCP);
	CU_ASSERT_FATAL(a >= 0);
	tb = rds_test_addr(ip_b, 5000);
	iov.addr = (uint64_t)(uintptr_t)buf;
	iov.bytes = sizeof(buf);
	memset(&ra, 0, sizeof(ra));
	ra.cookie = 0x100000001ULL;
	ra.remote_vec.bytes = sizeof(buf);
	ra.local_vec_addr = (uint64_t)(uintptr_t)&iov;
	ra.nr_local = 1;
	ra.flags = RDS_RDMA_READWRITE;
	memset(&cbuf, 0, sizeof(cbuf));
	memset(&mh, 0, sizeof(mh));
	mh.msg_name = &tb;
	mh.msg_namelen = rds_test_addr_len(&tb);
	mh.msg_iov = &data;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf.b;
	mh.msg_controllen = sizeof(cbuf.b);
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_RDS;
	cm->cmsg_type = RDS_CMSG_RDMA_ARGS;
	cm->cmsg_len = CMSG_LEN(sizeof(ra));
	memcpy(CMSG_DATA(cm), &ra, sizeof(ra));
	errno = 0;
	CU_ASSERT_EQUAL(rte_rds_sendmsg(a, &mh, 0), -1);
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
	rte_rds_close(a);
	CU_ASSERT(rds_test_lib_fini() == 0);
}

int
main(int argc, char **argv)
{
	static const struct rds_test_case cases[] = {
		{ "sizes 0 B .. 1 MiB both ways", test_sizes },
		{ "stream SHA-256 both ways", test_stream },
		{ "reset mid-stream: nothing lost or twice", test_reset },
		{ "a window of 1 message, congested receivers", test_window },
		{ "two engines: an accepted socket handed over", test_engines },
		{ "RDMA refused (EOPNOTSUPP)", test_rdma_refused },
		{ "a played kernel peer; bad frames", test_raw_peer },
		{ "a higher address knocks", test_knock },
		{ NULL, NULL },
	};
	static const struct rds_test_case cases6[] = {
		{ "IPv6: sizes 0 B .. 1 MiB both ways", test_sizes },
		{ "IPv6: stream SHA-256 both ways", test_stream },
		{ "IPv6: reset mid-stream: nothing lost or twice",
		  test_reset },
		{ "IPv6: a window of 1 message, congested receivers",
		  test_window },
		{ "IPv6: two engines: an accepted socket handed over",
		  test_engines },
		{ "IPv6: RDMA refused (EOPNOTSUPP)", test_rdma_refused },
		{ "IPv6: a played kernel peer; bad frames", test_raw_peer },
		{ "IPv6: a higher address knocks", test_knock },
		{ "IPv6: a link-local pair, SHA-256 both ways",
		  test_v6_linklocal },
		{ "IPv6: errno of IPv6 names on tcp", test_v6_errno },
		{ "IPv6: RDS_INFO and RDS6_INFO records", test_v6_info },
		{ NULL, NULL },
	};
	bool v6 = argc > 1 && strcmp(argv[1], "v6") == 0;

	tcp_addrs_init(v6);
	return rds_test_main(v6 ? "tcp_stream_v6" : "tcp_stream", "0-1",
			     v6 ? cases6 : cases);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ib transport against rxe (soft-RoCE), run inside the test VM by
 * run-ib-suite.sh. One process owns two local addresses on the rxe
 * device and pins every socket to RDS_TRANS_IB (as the kernel's own
 * selftest does), so each message crosses a real RC QP: our active
 * connection from one address, accepted by our own listener for the
 * other.
 *
 * Addresses come from RDS_IB_ADDR_A and RDS_IB_ADDR_B.
 */

#include "rxe_ib.h"

const char *addr_a, *addr_b;
bool use_credits;
bool use_stall;
bool use_ring;
const char *extra_opts;
const char *extra_opts_b;

int
ib_socket(const char *ip, int bufsz)
{
	int s = rte_rds_socket();
	int t = RDS_TRANS_IB;
	struct sockaddr_in sin = rds_test_sin(ip, 0);

	CU_ASSERT_FATAL(s >= 0);
	CU_ASSERT_FATAL(rte_rds_setsockopt(s, SOL_RDS, SO_RDS_TRANSPORT, &t,
					   sizeof(t)) == 0);
	if (bufsz > 0) {
		CU_ASSERT_FATAL(rte_rds_setsockopt(s, SOL_SOCKET, SO_SNDBUF,
						   &bufsz, sizeof(bufsz)) == 0);
		CU_ASSERT_FATAL(rte_rds_setsockopt(s, SOL_SOCKET, SO_RCVBUF,
						   &bufsz, sizeof(bufsz)) == 0);
	}
	CU_ASSERT_FATAL(rte_rds_bind(s, (struct sockaddr *)&sin,
				     sizeof(sin)) == 0);
	return s;
}

struct sockaddr_in
sock_name(int s)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);

	CU_ASSERT(rte_rds_getsockname(s, (struct sockaddr *)&sin, &len) == 0);
	return sin;
}

void
lib_up(void)
{
	struct rte_rds_conf conf;
	char opts[128] = "", spec[192];

	rte_rds_conf_init(&conf);
	conf.engine[0].lcore_id = RTE_RDS_ENGINE_INLINE;
	conf.engine[0].idle = RTE_RDS_IDLE_YIELD;
	/* Credits need a receive ring of each connection's own. */
	if (use_credits)
		snprintf(opts, sizeof(opts), ",srq=0,flow_control=1,recv_wr=16");
	if (use_stall) {
		/* RNR NAKs, not credits, when the receives run out (a small
		 * ring, or a small shared receive queue, so that even a
		 * short stream empties it); a stall found within a
		 * second. */
		snprintf(opts, sizeof(opts), ",%s,stall_ms=%u", use_ring ?
			 "srq=0,flow_control=0,recv_wr=64" :
			 "srq_min=64,srq_max=64",
			 (unsigned int)rds_test_env_u64(
				 "RDS_TEST_IB_STALL_MS", 1000));
	}
	if (extra_opts != NULL)
		snprintf(opts, sizeof(opts), ",%s", extra_opts);
	/* The ib settings are options of each address. */
	snprintf(spec, sizeof(spec), "%s=ib%s", addr_a, opts);
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(&conf, spec) == 0);
	if (extra_opts_b != NULL)
		snprintf(opts, sizeof(opts), ",%s", extra_opts_b);
	snprintf(spec, sizeof(spec), "%s=ib%s", addr_b, opts);
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(&conf, spec) == 0);
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
}

static void
test_sizes(void)
{
	static const size_t sizes[] = { 0, 1, 47, 48, 4095, 4096, 4097, 8192,
					65536, 300000, 1 << 20 };
	static uint8_t out[1 << 20], in[(1 << 20) + 1];
	struct sockaddr_in from, to;
	int a, b;
	unsigned int i;
	ssize_t n;

	lib_up();
	a = ib_socket(addr_a, 4 << 20);
	b = ib_socket(addr_b, 4 << 20);
	to = sock_name(b);
	for (i = 0; i < RTE_DIM(sizes); i++) {
		rds_test_fill(out, sizes[i], 1000 + i);
		CU_ASSERT_EQUAL_FATAL(rds_test_send(a, out, sizes[i], &to, 0),
				      (ssize_t)sizes[i]);
		n = rds_test_wait_msg(b, in, sizeof(in), &from, 60000);
		CU_ASSERT_EQUAL(n, (ssize_t)sizes[i]);
		if (n == (ssize_t)sizes[i])
			CU_ASSERT(memcmp(in, out, sizes[i]) == 0);
		CU_ASSERT_EQUAL(from.sin_addr.s_addr, inet_addr(addr_a));
		printf("  size %zu: ok\n", sizes[i]);
	}
	{
		struct rte_rds_ib_stats st;

		CU_ASSERT(rte_rds_ib_stats_get(&st) == 0);
		printf("  ib: active %lu passive %lu tx %lu rx %lu\n",
		       (unsigned long)st.connects_active,
		       (unsigned long)st.connects_passive,
		       (unsigned long)st.tx_frames, (unsigned long)st.rx_frames);
		/* It really went over verbs, both ways (ACKs at least). */
		CU_ASSERT(st.connects_active >= 1);
		CU_ASSERT(st.connects_passive >= 1);
		CU_ASSERT(st.rx_frames >= RTE_DIM(sizes));
	}
	rds_test_lib_fini();
}

/*
 * Stream: n messages among 4 sockets (2 per address), in both
 * directions, most up to 1 KiB, a few of 1 MiB; per-pair sequence
 * numbers and running SHA-256; optionally a QP error injected halfway.
 */
#define NS 4
struct stream {
	int s[NS];
	struct sockaddr_in name[NS];
	uint64_t sent[NS][NS], rcvd[NS][NS];
	struct rds_test_sha_matrix tx, rx;
	uint64_t errors;
};

static int
who(const struct stream *st, const struct sockaddr_in *from)
{
	int i;

	for (i = 0; i < NS; i++)
		if (rds_test_sin_eq(&st->name[i], from))
			return i;
	return -1;
}

static void
drain(struct stream *st, uint8_t *buf, size_t bufsz)
{
	struct sockaddr_in from;
	uint64_t seq;
	ssize_t n;
	int i, src;

	for (i = 0; i < NS; i++) {
		while ((n = rds_test_recv(st->s[i], buf, bufsz, &from,
					  MSG_DONTWAIT, NULL)) >= 0) {
			src = who(st, &from);
			if (src < 0 || n < 8) {
				st->errors++;
				continue;
			}
			memcpy(&seq, buf, 8);
			if (seq != st->rcvd[src][i]) {
				if (st->errors++ < 5)
					printf("  %d->%d: got seq %lu, want %lu\n",
					       src, i, (unsigned long)seq,
					       (unsigned long)st->rcvd[src][i]);
			}
			st->rcvd[src][i] = seq + 1;
			rds_test_sha_matrix_msg(&st->rx, (unsigned int)src,
						(unsigned int)i, buf, (size_t)n);
		}
	}
}

enum stream_fault { FAULT_NONE, FAULT_QP_ERROR, FAULT_RX_STALL };

static void
run_stream(uint64_t total, enum stream_fault fault)
{
	static uint8_t buf[(1 << 20) + 64];
	struct stream st;
	struct rds_test_deadline dl;
	uint64_t rng = 42, done = 0, big = 0, t0;
	uint8_t d1[RDS_TEST_SHA_LEN], d2[RDS_TEST_SHA_LEN];
	bool injected = false;
	int i, j;

	memset(&st, 0, sizeof(st));
	lib_up();
	for (i = 0; i < NS; i++) {
		st.s[i] = ib_socket(i < NS / 2 ? addr_a : addr_b, 8 << 20);
		st.name[i] = sock_name(st.s[i]);
	}
	CU_ASSERT_FATAL(rds_test_sha_matrix_init(&st.tx, NS) == 0);
	CU_ASSERT_FATAL(rds_test_sha_matrix_init(&st.rx, NS) == 0);
	rds_test_deadline_init(&dl, 60, 600);
	t0 = rds_test_now_ns();
	while (done < total) {
		size_t len;
		ssize_t r;

		i = (int)rds_test_rand_range(&rng, 0, NS - 1);
		do {
			j = (int)rds_test_rand_range(&rng, 0, NS - 1);
		} while (j == i);
		/* About 20 messages of 1 MiB in 20 000. */
		if (rds_test_rand_range(&rng, 0, total / 20) == 0 && big < 20) {
			len = 1 << 20;
			big++;
		} else {
			len = (size_t)rds_test_rand_range(&rng, 8, 1024);
		}
		memcpy(buf, &st.sent[i][j], 8);
		rds_test_fill(buf + 8, len - 8, done);
		for (;;) {
			r = rds_test_send(st.s[i], buf, len, &st.name[j],
					  MSG_DONTWAIT);
			if (r >= 0)
				break;
			CU_ASSERT_FATAL(rte_errno == EAGAIN ||
					rte_errno == ENOBUFS);
			rds_test_kick();
			{
				static uint8_t rb[(1 << 20) + 64];

				drain(&st, rb, sizeof(rb));
			}
			CU_ASSERT_FATAL(!rds_test_deadline_expired(&dl, "send"));
		}
		rds_test_deadline_progress(&dl);
		rds_test_sha_matrix_msg(&st.tx, (unsigned int)i,
					(unsigned int)j, buf, len);
		st.sent[i][j]++;
		done++;
		if (fault != FAULT_NONE && !injected && done == total / 2) {
			printf("  injecting %s after %lu messages\n",
			       fault == FAULT_QP_ERROR ? "a QP error" :
			       "a receive stall (rings no longer refilled)",
			       (unsigned long)done);
			CU_ASSERT(fault == FAULT_QP_ERROR ?
				  rte_rds_ib_inject_qp_error() == 0 :
				  rte_rds_ib_inject_rx_stall() == 0);
			injected = true;
		}
		rds_test_kick();
		{
			static uint8_t rb[(1 << 20) + 64];

			drain(&st, rb, sizeof(rb));
		}
	}
	/* Everything must arrive. */
	for (;;) {
		static uint8_t rb[(1 << 20) + 64];
		uint64_t want = 0, got = 0;

		rds_test_kick();
		drain(&st, rb, sizeof(rb));
		for (i = 0; i < NS; i++)
			for (j = 0; j < NS; j++) {
				want += st.sent[i][j];
				got += st.rcvd[i][j];
			}
		if (got == want)
			break;
		if (rds_test_deadline_expired(&dl, "drain")) {
			printf("  delivered %lu of %lu\n", (unsigned long)got,
			       (unsigned long)want);
			CU_FAIL("not everything arrived");
			break;
		}
		if (got != 0)
			rds_test_deadline_progress(&dl);
	}
	CU_ASSERT_EQUAL(st.errors, 0);
	for (i = 0; i < NS; i++)
		for (j = 0; j < NS; j++) {
			CU_ASSERT_EQUAL(st.sent[i][j], st.rcvd[i][j]);
			rds_test_sha_peek(rds_test_sha_matrix_at(&st.tx, i, j), d1);
			rds_test_sha_peek(rds_test_sha_matrix_at(&st.rx, i, j), d2);
			CU_ASSERT(memcmp(d1, d2, sizeof(d1)) == 0);
		}
	printf("  %lu messages (%lu of 1 MiB) in %.1f s\n",
	       (unsigned long)total, (unsigned long)big, rds_test_since_s(t0));
	{
		struct rte_rds_ib_stats ib;
		struct rte_rds_stats s = rds_test_stats();

		rte_rds_ib_stats_get(&ib);
		printf("  ib: connects %lu/%lu injected %lu qp_errors %lu; "
		       "resets %lu retransmitted %lu dup dropped %lu\n",
		       (unsigned long)ib.connects_active,
		       (unsigned long)ib.connects_passive,
		       (unsigned long)ib.qp_errors_injected,
		       (unsigned long)ib.qp_errors,
		       (unsigned long)s.s_conn_reset,
		       (unsigned long)s.s_send_retransmit,
		       (unsigned long)s.s_recv_drop_old_seq);
		if (use_credits) {
			printf("  credits: %lu connections, %lu stalls, %lu "
			       "advertised\n", (unsigned long)ib.flowctl_conns,
			       (unsigned long)ib.credit_stalls,
			       (unsigned long)ib.credits_advertised);
			/* Both ends advertised: the connection used credits,
			 * and a 16-buffer ring cannot take 20 000 messages
			 * without giving credits back. */
			CU_ASSERT(ib.flowctl_conns >= 2);
			CU_ASSERT(ib.credits_advertised >= total / 2);
		}
		printf("  ib: rx_frames %lu in %lu ibv_post_recv calls; "
		       "stalls %lu seq_gaps %lu\n",
		       (unsigned long)ib.rx_frames,
		       (unsigned long)ib.rx_post_calls,
		       (unsigned long)ib.stalls, (unsigned long)ib.rx_seq_gaps);
		/* Refills go back in chains, not one by one. */
		CU_ASSERT(ib.rx_post_calls < ib.rx_frames);
		/* Nothing was cancelled: no message may be skipped. */
		CU_ASSERT_EQUAL(ib.rx_seq_gaps, 0);
		if (fault == FAULT_QP_ERROR) {
			CU_ASSERT(ib.qp_errors_injected >= 1);
			CU_ASSERT(s.s_conn_reset >= 1);
			CU_ASSERT(ib.connects_active + ib.connects_passive >= 4);
		}
		if (fault == FAULT_RX_STALL) {
			/* The sender saw no progress and reset; RDS
			 * reconnected and retransmitted. */
			CU_ASSERT(ib.rx_stalls_injected >= 1);
			CU_ASSERT(ib.stalls >= 1);
			CU_ASSERT(s.s_conn_reset >= 1);
			CU_ASSERT(s.s_send_retransmit >= 1);
		} else {
			CU_ASSERT_EQUAL(ib.stalls, 0);
		}
	}
	rds_test_sha_matrix_free(&st.tx);
	rds_test_sha_matrix_free(&st.rx);
	rds_test_lib_fini();
}

static void
test_stream(void)
{
	run_stream(rds_test_env_u64("RDS_TEST_MSGS", 20000), FAULT_NONE);
}

static void
test_stream_credits(void)
{
	use_credits = true;
	run_stream(rds_test_env_u64("RDS_TEST_MSGS", 20000) / 2, FAULT_NONE);
	use_credits = false;
}

/* The shared receive queue stops being refilled halfway: the senders
 * wait on RNR NAKs with no error until the no-progress watch resets. */
static void
test_stream_stall(void)
{
	use_stall = true;
	run_stream(rds_test_env_u64("RDS_TEST_MSGS", 20000) / 4,
		   FAULT_RX_STALL);
	use_stall = false;
}

/* The same with a receive ring of each connection's own (srq=0). */
static void
test_stream_stall_ring(void)
{
	use_stall = true;
	use_ring = true;
	run_stream(rds_test_env_u64("RDS_TEST_MSGS", 20000) / 4,
		   FAULT_RX_STALL);
	use_ring = false;
	use_stall = false;
}

static void
test_stream_qp_error(void)
{
	run_stream(rds_test_env_u64("RDS_TEST_MSGS", 20000) / 2,
		   FAULT_QP_ERROR);
}

static void
test_many_sockets(void)
{
	enum { N = 32 };
	int s[N], i, k;
	struct sockaddr_in name[N], from;
	char buf[64];
	unsigned int got = 0;
	uint64_t t0;

	lib_up();
	for (i = 0; i < N; i++) {
		s[i] = ib_socket(i % 2 ? addr_b : addr_a, 0);
		name[i] = sock_name(s[i]);
	}
	/* Every socket sends to the next one on the other address. */
	for (i = 0; i < N; i++) {
		k = (i + 1) % N;
		snprintf(buf, sizeof(buf), "from %d to %d", i, k);
		CU_ASSERT(rds_test_send(s[i], buf, strlen(buf) + 1, &name[k],
					0) == (ssize_t)strlen(buf) + 1);
	}
	t0 = rds_test_now_ns();
	while (got < N && rds_test_since_s(t0) < 60) {
		rds_test_kick();
		for (i = 0; i < N; i++) {
			char want[64];

			if (rds_test_recv(s[i], buf, sizeof(buf), &from,
					  MSG_DONTWAIT, NULL) < 0)
				continue;
			snprintf(want, sizeof(want), "from %d to %d",
				 (i + N - 1) % N, i);
			CU_ASSERT_STRING_EQUAL(buf, want);
			CU_ASSERT(rds_test_sin_eq(&from, &name[(i + N - 1) % N]));
			got++;
		}
	}
	CU_ASSERT_EQUAL(got, N);
	for (i = 0; i < N; i++)
		CU_ASSERT(rte_rds_close(s[i]) == 0);
	rds_test_lib_fini();
}

/* A GID of 16 zero bytes? */
static bool
gid_zero(const uint8_t *g)
{
	static const uint8_t z[RDS_IB_GID_LEN];

	return memcmp(g, z, sizeof(z)) == 0;
}

static void
gid_print(const char *what, const uint8_t *g)
{
	int i;

	printf("%s ", what);
	for (i = 0; i < RDS_IB_GID_LEN; i += 2)
		printf("%02x%02x%s", g[i], g[i + 1], i < 14 ? ":" : "");
}

/*
 * RDS_INFO_IB_CONNECTIONS: one record per ib connection, with the ring
 * sizes the address's options asked for (not the defaults): A's
 * connection a receive ring of its own (srq=0, recv_wr=512), B's the
 * shared receive queue (srq_max=2048, its most); the QP's send SGEs and
 * both GIDs; RDS6_INFO_IB_CONNECTIONS the same with mapped addresses;
 * the counters through rte_rds_xstats_get("ib") equal the typed view.
 * Non-default options on both addresses (cm_port too).
 */
static void
test_info_ib_connections(void)
{
	struct rds_info_rdma_connection rec[8];
	struct rds6_info_rdma_connection rec6[8];
	const struct rds_info_rdma_connection *ab = NULL, *ba = NULL;
	struct rte_rds_xstat xs[64];
	struct rte_rds_ib_stats st;
	struct sockaddr_in from, to_a, to_b;
	socklen_t len = 0;
	uint8_t buf[64];
	uint64_t v;
	unsigned int i, n;
	int a, b, nx;

	extra_opts = "cm_port=18700,send_wr=128,srq=0,recv_wr=512,"
		     "stall_ms=20000";
	extra_opts_b = "cm_port=18700,send_wr=128,srq_max=2048,stall_ms=20000";
	lib_up();
	extra_opts = NULL;
	extra_opts_b = NULL;
	a = ib_socket(addr_a, 0);
	b = ib_socket(addr_b, 0);
	to_a = sock_name(a);
	to_b = sock_name(b);
	/* A round trip: both connections (A -> B active, B -> A passive)
	 * carry a message, so both are up. */
	CU_ASSERT_FATAL(rds_test_send(a, "ping", 5, &to_b, 0) == 5);
	CU_ASSERT_FATAL(rds_test_wait_msg(b, buf, sizeof(buf),
					&from, 60000) == 5);
	CU_ASSERT_FATAL(rds_test_send(b, "pong", 5, &to_a, 0) == 5);
	CU_ASSERT_FATAL(rds_test_wait_msg(a, buf, sizeof(buf),
					&from, 60000) == 5);

	/* Probe, then fill. */
	CU_ASSERT(rte_rds_info(RDS_INFO_IB_CONNECTIONS, NULL, &len) == -1 &&
		  rte_errno == ENOSPC);
	printf("  RDS_INFO_IB_CONNECTIONS needs %u bytes (%zu a record)\n",
	       (unsigned int)len, sizeof(rec[0]));
	CU_ASSERT_EQUAL(len, 2 * sizeof(rec[0]));
	len = sizeof(rec);
	CU_ASSERT_EQUAL(rte_rds_info(RDS_INFO_IB_CONNECTIONS, rec, &len),
			(int)sizeof(rec[0]));
	n = len / sizeof(rec[0]);
	CU_ASSERT_EQUAL(n, 2);
	for (i = 0; i < n; i++) {
		char s[INET_ADDRSTRLEN], d[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &rec[i].src_addr, s, sizeof(s));
		inet_ntop(AF_INET, &rec[i].dst_addr, d, sizeof(d));
		printf("  %s -> %s: send_wr %u recv_wr %u send_sge %u mr_max %u "
		       "mr_size %u\n   ", s, d, rec[i].max_send_wr,
		       rec[i].max_recv_wr, rec[i].max_send_sge,
		       rec[i].rdma_mr_max, rec[i].rdma_mr_size);
		gid_print("src_gid", rec[i].src_gid);
		gid_print(" dst_gid", rec[i].dst_gid);
		printf("\n");
		if (rec[i].src_addr == inet_addr(addr_a) &&
		    rec[i].dst_addr == inet_addr(addr_b))
			ab = &rec[i];
		if (rec[i].src_addr == inet_addr(addr_b) &&
		    rec[i].dst_addr == inet_addr(addr_a))
			ba = &rec[i];
		/* The options of the address, not the defaults (127,
		 * 8192). */
		CU_ASSERT_EQUAL(rec[i].max_send_wr, 128);
		CU_ASSERT_EQUAL(rec[i].max_recv_wr,
				rec[i].src_addr == inet_addr(addr_a) ? 512 :
				2048);
		CU_ASSERT(rec[i].max_send_sge >= 2);
		CU_ASSERT_EQUAL(rec[i].rdma_mr_max, 65536);
		CU_ASSERT_EQUAL(rec[i].rdma_mr_size, 257);
		CU_ASSERT(!gid_zero(rec[i].src_gid));
		CU_ASSERT(!gid_zero(rec[i].dst_gid));
	}
	CU_ASSERT_FATAL(ab != NULL && ba != NULL);
	/* The two ends of one wire: each one's source GID is the other's
	 * destination. */
	CU_ASSERT(memcmp(ab->src_gid, ba->dst_gid, RDS_IB_GID_LEN) == 0);
	CU_ASSERT(memcmp(ab->dst_gid, ba->src_gid, RDS_IB_GID_LEN) == 0);

	len = sizeof(rec6);
	CU_ASSERT_EQUAL(rte_rds_info(RDS6_INFO_IB_CONNECTIONS, rec6, &len),
			(int)sizeof(rec6[0]));
	CU_ASSERT_EQUAL(len, 2 * sizeof(rec6[0]));
	for (i = 0; i < len / sizeof(rec6[0]); i++) {
		CU_ASSERT(IN6_IS_ADDR_V4MAPPED(&rec6[i].src_addr));
		CU_ASSERT_EQUAL(rec6[i].max_send_wr, 128);
		CU_ASSERT_EQUAL(rec6[i].max_recv_wr,
				rec6[i].src_addr.s6_addr32[3] ==
				inet_addr(addr_a) ? 512 : 2048);
		CU_ASSERT(!gid_zero(rec6[i].src_gid));
	}

	/* Counters: the generic op and the typed view agree (nothing moves
	 * in between: this thread drives the only engine). */
	nx = rte_rds_xstats_get("ib", xs, RTE_DIM(xs));
	CU_ASSERT_EQUAL(nx, (int)(sizeof(st) / sizeof(uint64_t)));
	CU_ASSERT_FATAL(rte_rds_ib_stats_get(&st) == 0);
	CU_ASSERT(nx > 0 && strcmp(xs[0].name, "connects_active") == 0 &&
		  xs[0].value == st.connects_active);
	CU_ASSERT(rte_rds_xstat_get("ib", "rx_frames", &v) == 0 &&
		  v == st.rx_frames);
	CU_ASSERT(rte_rds_xstat_get("ib", "connects_passive", &v) == 0 &&
		  v == st.connects_passive && v >= 1);
	CU_ASSERT(rte_rds_xstat_get("ib", "rx_stalls_injected", &v) == 0 &&
		  v == st.rx_stalls_injected);
	CU_ASSERT(rte_rds_xstat_get("ib", "no_such_counter", &v) == -1 &&
		  rte_errno == ENOENT);
	printf("  xstats: %d counters, rx_frames %lu, connects %lu/%lu\n", nx,
	       (unsigned long)st.rx_frames, (unsigned long)st.connects_active,
	       (unsigned long)st.connects_passive);
	rds_test_lib_fini();
}

/* dev= names the device the address must be on. */
static void
test_opts_dev(void)
{
	struct rte_rds_conf conf;
	char spec[96];

	rte_rds_conf_init(&conf);
	snprintf(spec, sizeof(spec), "%s=ib,dev=no_such_dev0", addr_a);
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(&conf, spec) == 0);
	CU_ASSERT(rte_rds_init(&conf) == -1 && rte_errno == ENODEV);
	/* A bad value fails before the device is looked at. */
	rte_rds_conf_init(&conf);
	snprintf(spec, sizeof(spec), "%s=ib,recv_wr=8", addr_a);
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(&conf, spec) == 0);
	CU_ASSERT(rte_rds_init(&conf) == -1 && rte_errno == EINVAL);
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "sizes_0_to_1MiB", test_sizes },
		{ "info_ib_connections", test_info_ib_connections },
		{ "opts_dev", test_opts_dev },
		{ "many_sockets", test_many_sockets },
		{ "stream_sha256", test_stream },
		{ "stream_qp_error", test_stream_qp_error },
		{ "stream_credits", test_stream_credits },
		{ "stream_rx_stall", test_stream_stall },
		{ "stream_rx_stall_ring", test_stream_stall_ring },
		{ "rdma_read_write_atomic", test_rdma },
		{ NULL, NULL },
	};

	addr_a = getenv("RDS_IB_ADDR_A");
	addr_b = getenv("RDS_IB_ADDR_B");
	if (addr_a == NULL || addr_b == NULL) {
		printf("SKIP: RDS_IB_ADDR_A/RDS_IB_ADDR_B not set: run me "
		       "through test/rxe/run-ib-suite.sh (inside the rxe VM)\n");
		return 77;
	}
	return rds_test_main("rxe_ib", "0", cases);
}

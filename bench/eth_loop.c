/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The eth transport's per-message cost, through the public API, without
 * a second process: two net_ring ports whose rings cross (what A sends,
 * B receives), 10.253.0.1 on A and 10.253.0.2 on B (static neighbours),
 * one inline engine, one socket on each address. One step sends --burst
 * messages of --size bytes from A to B (rte_rds_sendto), then polls the
 * engine (rte_rds_engine_poll) and receives (rte_rds_recvfrom) until all
 * are in: every message is built into frames, CRC'd, sent, parsed,
 * sequenced, acknowledged and reassembled, as over any PMD, but net_ring
 * moves mbuf pointers only, so what is left is the library's work.
 *
 * --raw does the same with plain frames and no RDS (the floor, as
 * rds-perf --raw): per message, mbufs from a pool, Ethernet/IPv4/UDP
 * headers and a 16-byte header of ours, the payload copied in (frames of
 * MTU - 44 bytes), rte_eth_tx_burst on A, rte_eth_rx_burst on B, the
 * headers checked and the payload copied out.
 *
 *   rds-bench-eth [EAL args] -- [--msgs N] [--size B] [--burst K]
 *                 [--runs R] [--raw] [--eth-opts K=V[,K=V...]]
 *
 * --eth-opts appends options to both addresses (rte_rds_eth.h), e.g.
 * rto_min_us=10000000,rto_max_us=10000000 under callgrind: valgrind runs
 * some 50 times slower, so the 200 us retransmit floor and the ACK delay
 * (an eighth of it) fire on what natively takes microseconds, which adds
 * timeouts and ACK frames that a native run does not have.
 *
 * The measured loop is bench_eth_loop() (bench_raw_loop() with --raw):
 * under valgrind --tool=callgrind --toggle-collect=bench_eth_loop its
 * instructions are counted (bench/eth-profile.sh). Without valgrind it
 * prints the time per message of each run, and the median.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_udp.h>

#include <rte_rds.h>
#include <rte_rds_eth.h>
#include <rte_rds_stats.h>

#define IP_A "10.253.0.1"
#define IP_B "10.253.0.2"
#define MAC_A "02:00:0a:fd:00:01"
#define MAC_B "02:00:0a:fd:00:02"
#define PORT_A 4000
#define PORT_B 4001
#define RAW_HDRS (14 + 20 + 8 + 16)
#define MTU 1500
#define RAW_FRAG (MTU - 20 - 8 - 16)
#define MAX_BURST 64
#define MAX_POLLS 1000000

static uint16_t port_a, port_b;
static struct rte_mempool *raw_pool;

static void
die(const char *what)
{
	fprintf(stderr, "rds-bench-eth: %s: %s\n", what,
		rte_strerror(rte_errno));
	exit(1);
}

static struct sockaddr_in
sin_of(const char *ip, uint16_t port)
{
	struct sockaddr_in s;

	memset(&s, 0, sizeof(s));
	s.sin_family = AF_INET;
	s.sin_port = htons(port);
	inet_pton(AF_INET, ip, &s.sin_addr);
	return s;
}

static int
sock_on(const char *ip, uint16_t port, int buf)
{
	struct sockaddr_in a = sin_of(ip, port);
	int s = rte_rds_socket(), trans = RTE_RDS_TRANS_ETH;

	/* Pinned: between two local addresses the library would take the
	 * loop transport. */
	if (s < 0 || rte_rds_setsockopt(s, SOL_RDS, SO_RDS_TRANSPORT, &trans,
					sizeof(trans)) != 0 ||
	    rte_rds_setsockopt(s, SOL_SOCKET, SO_SNDBUF, &buf,
					sizeof(buf)) != 0 ||
	    rte_rds_setsockopt(s, SOL_SOCKET, SO_RCVBUF, &buf,
			       sizeof(buf)) != 0 ||
	    rte_rds_bind(s, (struct sockaddr *)&a, sizeof(a)) != 0)
		die("socket/bind");
	return s;
}

static void
make_ports(void)
{
	struct rte_ring *ab, *ba;
	int ret;

	ab = rte_ring_create("bench_ab", 4096, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	ba = rte_ring_create("bench_ba", 4096, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (ab == NULL || ba == NULL)
		die("rte_ring_create");
	ret = rte_eth_from_rings("benchA", &ba, 1, &ab, 1, 0);
	if (ret < 0)
		die("rte_eth_from_rings");
	port_a = (uint16_t)ret;
	ret = rte_eth_from_rings("benchB", &ab, 1, &ba, 1, 0);
	if (ret < 0)
		die("rte_eth_from_rings");
	port_b = (uint16_t)ret;
}

/* The measured loop over RDS: n steps of k messages A -> B. Not
 * inlined, so that callgrind can toggle on it. Returns the failures. */
__attribute__((noinline)) uint64_t
bench_eth_loop(int a, int b, const struct sockaddr_in *to, uint8_t *buf,
	       size_t size, unsigned int k, uint64_t n, uint64_t *polls)
{
	uint64_t i, bad = 0;
	unsigned int j, got, p;

	for (i = 0; i < n; i++) {
		for (j = 0; j < k; j++)
			if (rte_rds_sendto(a, buf, size, MSG_DONTWAIT,
					   (const struct sockaddr *)to,
					   sizeof(*to)) != (ssize_t)size)
				bad++;
		for (got = 0, p = 0; got < k && p < MAX_POLLS; p++) {
			rte_rds_engine_poll(0);
			while (got < k &&
			       rte_rds_recvfrom(b, buf, size, MSG_DONTWAIT,
						NULL, NULL) == (ssize_t)size)
				got++;
		}
		*polls += p;
		bad += k - got;
	}
	return bad;
}

/* --raw: the headers that do not change (Ethernet, IPv4 but its length
 * and checksum, UDP ports). */
static uint8_t raw_tmpl[42];

static void
raw_tmpl_init(void)
{
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)raw_tmpl;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eh + 1);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);

	rte_ether_unformat_addr(MAC_B, &eh->dst_addr);
	rte_ether_unformat_addr(MAC_A, &eh->src_addr);
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	inet_pton(AF_INET, IP_A, &ip->src_addr);
	inet_pton(AF_INET, IP_B, &ip->dst_addr);
	udp->src_port = rte_cpu_to_be_16(18635);
	udp->dst_port = rte_cpu_to_be_16(18635);
}

/* --raw: headers of a frame with len payload bytes at off. */
static inline void
raw_build(uint8_t *b, uint64_t seq, uint32_t off, uint16_t len, bool last)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(b + 14);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	uint8_t *h = (uint8_t *)(udp + 1);
	uint16_t l4 = (uint16_t)(8 + 16 + len);
	uint32_t be_off = rte_cpu_to_be_32(off);
	uint64_t be_seq = rte_cpu_to_be_64(seq);
	uint16_t be_len = rte_cpu_to_be_16(len);

	memcpy(b, raw_tmpl, sizeof(raw_tmpl));
	ip->total_length = rte_cpu_to_be_16((uint16_t)(20 + l4));
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->dgram_len = rte_cpu_to_be_16(l4);
	h[0] = 1;
	h[1] = last ? 1 : 0;
	memcpy(h + 2, &be_len, 2);
	memcpy(h + 4, &be_off, 4);
	memcpy(h + 8, &be_seq, 8);
}

/* The measured loop without RDS: n steps of k messages A -> B, each in
 * ceil(size / RAW_FRAG) frames. Returns the failures. */
__attribute__((noinline)) uint64_t
bench_raw_loop(uint8_t *src, uint8_t *dst, size_t size, unsigned int k,
	       uint64_t n, uint64_t *polls)
{
	static struct rte_mbuf *tx[4096], *rx[MAX_BURST];
	const uint32_t nf = size == 0 ? 1 : (uint32_t)((size + RAW_FRAG - 1) /
						      RAW_FRAG);
	uint64_t i, bad = 0, seq = 0;
	uint32_t f, off, len, frames, sent, want;
	unsigned int j, p;
	uint16_t r, q;
	uint8_t *b;

	for (i = 0; i < n; i++) {
		frames = 0;
		for (j = 0; j < k; j++, seq++) {
			if (rte_pktmbuf_alloc_bulk(raw_pool, tx + frames, nf))
				return bad + 1;
			for (f = 0, off = 0; f < nf; f++, off += len) {
				len = (uint32_t)RTE_MIN((size_t)RAW_FRAG,
							size - off);
				b = (uint8_t *)rte_pktmbuf_append(tx[frames + f],
					(uint16_t)(RAW_HDRS + len));
				if (b == NULL)
					return bad + 1;
				raw_build(b, seq, off, (uint16_t)len,
					  off + len == size);
				memcpy(b + RAW_HDRS, src + off, len);
			}
			frames += nf;
		}
		for (sent = 0, p = 0; sent < frames && p < MAX_POLLS; p++) {
			want = RTE_MIN(frames - sent, 512u);
			sent += rte_eth_tx_burst(port_a, 0, tx + sent,
						 (uint16_t)want);
		}
		for (q = 0; q < frames; q += r, p++) {
			r = rte_eth_rx_burst(port_b, 0, rx, MAX_BURST);
			for (j = 0; j < r; j++) {
				const uint8_t *d = rte_pktmbuf_mtod(rx[j],
							const uint8_t *);
				const struct rte_ipv4_hdr *ip =
					(const void *)(d + 14);
				uint32_t o;
				uint16_t l;

				memcpy(&o, d + 42 + 4, 4);
				memcpy(&l, d + 42 + 2, 2);
				o = rte_be_to_cpu_32(o);
				l = rte_be_to_cpu_16(l);
				if (ip->next_proto_id != IPPROTO_UDP ||
				    o + l > size)
					bad++;
				else
					memcpy(dst + o, d + RAW_HDRS, l);
				rte_pktmbuf_free(rx[j]);
			}
			if (r == 0 && p > MAX_POLLS)
				return bad + frames - q;
		}
		*polls += p;
	}
	return bad;
}

static int
cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

static void
raw_ports(void)
{
	struct rte_eth_conf ec;
	uint16_t ports[2] = { port_a, port_b };
	unsigned int i;

	raw_tmpl_init();
	raw_pool = rte_pktmbuf_pool_create("bench_raw", 16383, 256, 0,
					   RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (raw_pool == NULL)
		die("rte_pktmbuf_pool_create");
	memset(&ec, 0, sizeof(ec));
	for (i = 0; i < 2; i++)
		if (rte_eth_dev_configure(ports[i], 1, 1, &ec) != 0 ||
		    rte_eth_rx_queue_setup(ports[i], 0, 1024, 0, NULL,
					   raw_pool) != 0 ||
		    rte_eth_tx_queue_setup(ports[i], 0, 1024, 0, NULL) != 0 ||
		    rte_eth_dev_start(ports[i]) != 0)
			die("raw port set-up");
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "msgs", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "burst", required_argument, NULL, 'k' },
		{ "runs", required_argument, NULL, 'r' },
		{ "raw", no_argument, NULL, 'w' },
		{ "eth-opts", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t n = 100000, size = 64, runs = 5, r, t0, bad, polls = 0;
	unsigned int k = 1;
	bool raw = false;
	struct rte_rds_conf conf;
	struct sockaddr_in to = sin_of(IP_B, PORT_B);
	const char *eopts = "";
	char spec[512];
	uint8_t *buf, *buf2;
	uint64_t *ns;
	int a = -1, b = -1, ret, opt, sbuf;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		die("rte_eal_init");
	argc -= ret;
	argv += ret;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'n': n = strtoull(optarg, NULL, 0); break;
		case 's': size = strtoull(optarg, NULL, 0); break;
		case 'k': k = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'r': runs = strtoull(optarg, NULL, 0); break;
		case 'w': raw = true; break;
		case 'o': eopts = optarg; break;
		default:
			fprintf(stderr, "usage: rds-bench-eth [EAL] -- [--msgs N] "
				"[--size B] [--burst K] [--runs R] [--raw] "
				"[--eth-opts K=V,...]\n");
			return 2;
		}
	}
	if (k < 1 || k > MAX_BURST || size > RTE_RDS_MAX_MSG_SIZE ||
	    runs < 1 || (raw && k * ((size + RAW_FRAG - 1) / RAW_FRAG) > 4096)) {
		fprintf(stderr, "rds-bench-eth: --burst 1..%u, --size up to 1 MiB (--raw: burst x frames <= 4096)\n",
			MAX_BURST);
		return 2;
	}
	make_ports();
	buf = calloc(1, size + 1);
	buf2 = calloc(1, size + 1);
	ns = calloc(runs, sizeof(*ns));
	if (buf == NULL || buf2 == NULL || ns == NULL)
		die("calloc");
	if (raw) {
		raw_ports();
	} else {
		rte_rds_conf_init(&conf);
		conf.engine[0].lcore_id = RTE_RDS_ENGINE_INLINE;
		conf.engine[0].idle = RTE_RDS_IDLE_BUSY;
		snprintf(spec, sizeof(spec), IP_A "=eth,port=%u,mac=" MAC_A
			 ",neigh=" IP_B "/" MAC_B "%s%s", port_a,
			 eopts[0] != '\0' ? "," : "", eopts);
		if (rte_rds_conf_add_addr_str(&conf, spec) != 0)
			die("conf A");
		snprintf(spec, sizeof(spec), IP_B "=eth,port=%u,mac=" MAC_B
			 ",neigh=" IP_A "/" MAC_A "%s%s", port_b,
			 eopts[0] != '\0' ? "," : "", eopts);
		if (rte_rds_conf_add_addr_str(&conf, spec) != 0)
			die("conf B");
		if (rte_rds_init(&conf) != 0)
			die("rte_rds_init");
		sbuf = (int)RTE_MAX(4u << 20, 2 * k * (size + 64));
		a = sock_on(IP_A, PORT_A, sbuf);
		b = sock_on(IP_B, PORT_B, sbuf);
	}
	/* Warm up: the connection, its queues, the caches. */
	bad = raw ? bench_raw_loop(buf, buf2, size, k, 1000, &polls) :
		bench_eth_loop(a, b, &to, buf, size, k, 1000, &polls);
	if (bad != 0)
		fprintf(stderr, "warm-up: %" PRIu64 " failures\n", bad);
	polls = 0;
	for (r = 0; r < runs; r++) {
		t0 = rte_rdtsc();
		bad = raw ? bench_raw_loop(buf, buf2, size, k, n, &polls) :
			bench_eth_loop(a, b, &to, buf, size, k, n, &polls);
		ns[r] = (rte_rdtsc() - t0) * 1000000000ULL / rte_get_tsc_hz();
		if (bad != 0) {
			fprintf(stderr, "run %" PRIu64 ": %" PRIu64 " failures\n",
				r, bad);
			return 1;
		}
	}
	qsort(ns, runs, sizeof(*ns), cmp_u64);
	printf("{\"what\": \"%s\", \"msgs\": %" PRIu64 ", \"size\": %" PRIu64
	       ", \"burst\": %u, \"runs\": %" PRIu64
	       ", \"polls_per_step\": %.2f, \"ns_per_msg_median\": %.1f, \"ns_per_msg_min\": %.1f}\n",
	       raw ? "raw" : "eth", n * k, size, k, runs,
	       (double)polls / (double)(n * runs),
	       (double)ns[runs / 2] / (double)(n * k),
	       (double)ns[0] / (double)(n * k));
	if (!raw) {
		struct rte_rds_eth_stats st;
		struct rte_rds_stats rs;

		if (rte_rds_eth_stats_get(&st) == 0)
			fprintf(stderr, "eth: tx_frames %" PRIu64 ", rx_frames %" PRIu64
				", ack_tx %" PRIu64 ", ack_rx %" PRIu64
				", rexmit_fast %" PRIu64 ", rexmit_timeout %" PRIu64
				"\n", st.tx_frames, st.rx_frames, st.ack_tx,
				st.ack_rx, st.rexmit_fast, st.rexmit_timeout);
		/* RDS ACK-only frames (the core's), besides eth's own. */
		if (rte_rds_stats_get(-1, &rs) == 0)
			fprintf(stderr, "rds: s_send_ack %" PRIu64
				", s_send_xmit %" PRIu64 "\n", rs.s_send_ack,
				rs.s_send_xmit);
		rte_rds_close(a);
		rte_rds_close(b);
		rte_rds_fini();
	}
	rte_eal_cleanup();
	return 0;
}

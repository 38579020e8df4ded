/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The eth transport over net_ring in one process: two ethdev ports made
 * with rte_eth_from_rings() whose rings cross (what port A sends, port B
 * receives), address 10.254.0.1 on A and 10.254.0.2 on B, so that every
 * message between them goes through frames: build, CRC, the reliable
 * frame layer, fragmentation, parse, reassembly.
 *
 *   stream/arp:      neighbours found by ARP; RDS_TEST_MSGS messages
 *                    (default 200,000: 100,000 each way) with the shared
 *                    stream checker, engine inline;
 *   stream/lcore:    static neighbours, engine on its own lcore;
 *   stream/faults:   5 % loss, 1 % duplication, 2 % reordering (depth 8),
 *                    0.5 % corruption; the counters must show the faults
 *                    and the retransmissions they caused (printed);
 *   info:            RTE_RDS_INFO_ETH_CONNECTIONS after a stream: one
 *                    record per connection with its peer's MAC, RTT
 *                    estimate, RTO and sequences (rds-info -e), and,
 *                    with delay_us=1000000, the delay signal's target,
 *                    its base (samples taken) and no delay cut; the
 *                    same through telemetry's /rds/eth_conns.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <CUnit/CUnit.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_eth_ring.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_rds.h>
#include <rte_rds_eth.h>
#include <rte_rds_stats.h>

#include "rds_test.h"
#include "rds_stream.h"

#define IPA "10.254.0.1"
#define IPB "10.254.0.2"
#define MACA "02:00:0a:fe:00:01"
#define MACB "02:00:0a:fe:00:02"

static struct rte_ring *ring_ab, *ring_ba;
static uint16_t port_a, port_b;

static int
make_ports(void)
{
	static bool made;
	int ret;

	if (made)
		return 0;
	ring_ab = rte_ring_create("eth_ab", 4096, 0,
				  RING_F_SP_ENQ | RING_F_SC_DEQ);
	ring_ba = rte_ring_create("eth_ba", 4096, 0,
				  RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (ring_ab == NULL || ring_ba == NULL)
		return -1;
	/* A: receives what B sends, sends what B receives. */
	ret = rte_eth_from_rings("ringA", &ring_ba, 1, &ring_ab, 1, 0);
	if (ret < 0) {
		printf("rte_eth_from_rings: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	port_a = (uint16_t)ret;
	ret = rte_eth_from_rings("ringB", &ring_ab, 1, &ring_ba, 1, 0);
	if (ret < 0) {
		printf("rte_eth_from_rings: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	port_b = (uint16_t)ret;
	{
		char n[RTE_ETH_NAME_MAX_LEN];

		rte_eth_dev_get_name_by_port(port_a, n);
		printf("  ports: %s (%u), ", n, port_a);
		rte_eth_dev_get_name_by_port(port_b, n);
		printf("%s (%u)\n", n, port_b);
	}
	made = true;
	return 0;
}

/* More eth keys for both addresses (the info case's delay_us). */
static const char *eth_extra = "";

/* Addresses on the ring ports; static neighbours or ARP. */
static void
eth_conf(struct rte_rds_conf *conf, uint32_t lcore, unsigned int engines,
	 bool arp)
{
	/* net_ring ports have no MAC of their own (all zeroes). */
	const char *sa = MACA, *sb = MACB;
	char spec[256];
	unsigned int i;

	CU_ASSERT_FATAL(make_ports() == 0);
	rte_rds_conf_init(conf);
	conf->nb_engines = engines;
	for (i = 0; i < engines; i++) {
		conf->engine[i].lcore_id = lcore;
		conf->engine[i].idle = RTE_RDS_IDLE_YIELD;
	}
	if (arp)
		snprintf(spec, sizeof(spec), IPA "=eth,port=%u,mac=" MACA "%s",
			 port_a, eth_extra);
	else
		snprintf(spec, sizeof(spec), IPA "=eth,port=%u,mac=" MACA
			 ",neigh=" IPB "/%s%s", port_a, sb, eth_extra);
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(conf, spec) == 0);
	if (arp)
		snprintf(spec, sizeof(spec), IPB "=eth,port=%u,mac=" MACB "%s",
			 port_b, eth_extra);
	else
		snprintf(spec, sizeof(spec), IPB "=eth,port=%u,mac=" MACB
			 ",neigh=" IPA "/%s%s", port_b, sa, eth_extra);
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(conf, spec) == 0);
}

static void
eth_stream_conf(struct rds_stream_conf *sc, uint64_t total)
{
	rds_stream_conf_default(sc, total);
	sc->nsock = 4;
	sc->ip[0] = IPA;
	sc->ip[1] = IPA;
	sc->ip[2] = IPB;
	sc->ip[3] = IPB;
	/* Both addresses are ours: without the pin, the core would take
	 * loop between them (the kernel's prefer-loopback). */
	sc->trans = RTE_RDS_TRANS_ETH;
}

static void
print_eth(const char *what, const struct rte_rds_eth_stats *s)
{
	printf("  %s: frames tx %" PRIu64 " rx %" PRIu64 ", ACK-only tx %"
	       PRIu64 ", rexmit fast %" PRIu64 " timeout %" PRIu64
	       ", dup %" PRIu64 ", ooo %" PRIu64 ", crc drops %" PRIu64
	       ", arp tx %" PRIu64 " rx %" PRIu64 ", faults: drop %" PRIu64
	       " dup %" PRIu64 " reorder %" PRIu64 " corrupt %" PRIu64
	       ", handoff %" PRIu64 "\n", what, s->tx_frames, s->rx_frames,
	       s->ack_tx, s->rexmit_fast, s->rexmit_timeout, s->rx_dup,
	       s->rx_ooo, s->rx_drop_crc, s->arp_tx, s->arp_rx,
	       s->fault_dropped, s->fault_duplicated, s->fault_reordered,
	       s->fault_corrupted, s->rx_handoff);
}

/* Every counter that is not 0 (RDS_TEST_VERBOSE). */
static void
print_xstats(void)
{
	struct rte_rds_xstat xs[64];
	struct rte_rds_stats rs = rds_test_stats();
	int n, i;

	if (getenv("RDS_TEST_VERBOSE") == NULL)
		return;
	n = rte_rds_xstats_get("eth", xs, RTE_DIM(xs));
	printf("  eth:");
	for (i = 0; i < n; i++)
		if (xs[i].value != 0)
			printf(" %s=%" PRIu64, xs[i].name, xs[i].value);
	printf("\n  core:");
	for (i = 0; i < (int)(sizeof(rs) / sizeof(uint64_t)); i++)
		if (((uint64_t *)&rs)[i] != 0)
			printf(" %s=%" PRIu64, rte_rds_stats_name((unsigned)i),
			       ((uint64_t *)&rs)[i]);
	printf("\n");
}

static bool
run_stream(const char *what, uint64_t total)
{
	struct rds_stream_conf sc;
	struct rds_stream *st;
	uint64_t t0, sent, received, bytes, eagain, enobufs;
	bool ok;

	eth_stream_conf(&sc, total);
	st = rds_stream_new(&sc);
	CU_ASSERT_FATAL(st != NULL);
	t0 = rds_test_now_ns();
	ok = rds_stream_run(st, what);
	CU_ASSERT(ok);
	if (ok) {
		CU_ASSERT(rds_stream_verify(st) == 0);
		CU_ASSERT(rds_stream_quiet(st));
	}
	rds_stream_counts(st, &sent, &received, &bytes, &eagain, &enobufs);
	printf("  %s: %" PRIu64 " messages (%" PRIu64 " bytes) in %.2f s, "
	       "EAGAIN %" PRIu64 ", ENOBUFS %" PRIu64 "\n", what, received,
	       bytes, (double)(rds_test_now_ns() - t0) / 1e9, eagain,
	       enobufs);
	print_xstats();
	rds_stream_free(st);
	return ok;
}

static void
test_stream_arp(void)
{
	struct rte_rds_eth_stats es;
	struct rte_rds_conf conf;

	rds_test_watchdog(900, "stream/arp");
	eth_conf(&conf, RTE_RDS_ENGINE_INLINE, 1, true);
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
	rte_rds_conf_free(&conf);
	run_stream("stream/arp", rds_test_env_u64("RDS_TEST_MSGS", 200000));
	CU_ASSERT(rte_rds_eth_stats_get(&es) == 0);
	print_eth("stream/arp", &es);
	/* Both ends asked, and both answered. */
	CU_ASSERT(es.arp_tx >= 2);
	CU_ASSERT(es.arp_rx >= 2);
	CU_ASSERT(es.rx_frames > 0);
	CU_ASSERT(es.rx_drop_crc == 0);
	CU_ASSERT(rds_test_lib_fini() == 0);
	rds_test_watchdog(0, NULL);
}

static void
test_stream_lcore(void)
{
	struct rte_rds_eth_stats es;
	struct rte_rds_conf conf;
	unsigned int lcore = rds_test_worker_lcore();

	CU_ASSERT_FATAL(lcore < RTE_MAX_LCORE);
	rds_test_watchdog(900, "stream/lcore");
	eth_conf(&conf, lcore, 1, false);
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
	rte_rds_conf_free(&conf);
	run_stream("stream/lcore", rds_test_env_u64("RDS_TEST_MSGS", 200000));
	CU_ASSERT(rte_rds_eth_stats_get(&es) == 0);
	print_eth("stream/lcore", &es);
	CU_ASSERT(es.arp_tx == 0);	/* static neighbours */
	CU_ASSERT(rds_test_lib_fini() == 0);
	rds_test_watchdog(0, NULL);
}

/* After a stream with losses: each connection's congestion window was
 * cut (on loss, or collapsed on a timeout), and is within its ring. */
static void
check_cwnd_cut(void)
{
	struct rte_rds_info_eth_connection recs[8];
	socklen_t len = sizeof(recs);
	unsigned int i, n;

	CU_ASSERT_FATAL(rte_rds_info(RTE_RDS_INFO_ETH_CONNECTIONS, recs,
				     &len) == (int)sizeof(recs[0]));
	n = len / sizeof(recs[0]);
	CU_ASSERT(n == 2);
	for (i = 0; i < n; i++) {
		printf("  stream/faults: conn %u: cwnd %u ssthresh %u, %u cuts,"
		       " %u collapses\n", i, recs[i].cwnd, recs[i].ssthresh,
		       recs[i].cwnd_cuts, recs[i].cwnd_collapses);
		CU_ASSERT(recs[i].cwnd_cuts + recs[i].cwnd_collapses > 0);
		CU_ASSERT(recs[i].cwnd >= 2 && recs[i].cwnd <= recs[i].wnd);
		CU_ASSERT(recs[i].ssthresh >= 2);
	}
}

static void
test_stream_faults(void)
{
	struct rte_rds_eth_faults f;
	struct rte_rds_eth_stats es;
	struct rte_rds_conf conf;

	rds_test_watchdog(1200, "stream/faults");
	eth_conf(&conf, RTE_RDS_ENGINE_INLINE, 1, false);
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
	rte_rds_conf_free(&conf);
	memset(&f, 0, sizeof(f));
	f.drop_ppm = 50000;
	f.dup_ppm = 10000;
	f.reorder_ppm = 20000;
	f.reorder_depth = 8;
	f.corrupt_ppm = 5000;
	f.seed = 7;
	CU_ASSERT_FATAL(rte_rds_eth_set_faults(&f) == 0);
	run_stream("stream/faults", rds_test_env_u64("RDS_TEST_MSGS", 200000));
	CU_ASSERT(rte_rds_eth_stats_get(&es) == 0);
	print_eth("stream/faults", &es);
	CU_ASSERT(es.fault_dropped > 0);
	CU_ASSERT(es.fault_duplicated > 0);
	CU_ASSERT(es.fault_reordered > 0);
	CU_ASSERT(es.fault_corrupted > 0);
	CU_ASSERT(es.rx_drop_crc + es.rx_drop_ip + es.rx_drop_len +
		  es.rx_drop_type + es.rx_drop_version + es.rx_drop_short > 0);
	CU_ASSERT(es.rexmit_fast + es.rexmit_timeout > 0);
	CU_ASSERT(es.rx_dup > 0);
	check_cwnd_cut();
	CU_ASSERT(rte_rds_eth_set_faults(NULL) == 0);
	CU_ASSERT(rds_test_lib_fini() == 0);
	rds_test_watchdog(0, NULL);
}

/* One record of RTE_RDS_INFO_ETH_CONNECTIONS, checked against what a
 * stream between IPA and IPB leaves. */
static void
check_eth_conn(const struct rte_rds_info_eth_connection *ec)
{
	struct in6_addr a, b;
	uint8_t ma[6] = { 2, 0, 0x0a, 0xfe, 0, 1 }, mb[6] = { 2, 0, 0x0a, 0xfe, 0, 2 };
	bool ab;

	CU_ASSERT_FATAL(inet_pton(AF_INET6, "::ffff:" IPA, &a) == 1);
	CU_ASSERT_FATAL(inet_pton(AF_INET6, "::ffff:" IPB, &b) == 1);
	ab = memcmp(&ec->laddr, &a, sizeof(a)) == 0;
	CU_ASSERT(memcmp(&ec->laddr, ab ? &a : &b, sizeof(a)) == 0);
	CU_ASSERT(memcmp(&ec->faddr, ab ? &b : &a, sizeof(a)) == 0);
	CU_ASSERT(ec->resolved == 1);
	CU_ASSERT(memcmp(ec->peer_mac, ab ? mb : ma, 6) == 0);
	CU_ASSERT(ec->unresponsive == 0);
	CU_ASSERT(ec->epoch != 0);
	CU_ASSERT(ec->peer_epoch != 0);
	CU_ASSERT(ec->snd_nxt > 0);
	CU_ASSERT(ec->rcv_nxt > 0);
	CU_ASSERT(ec->in_flight == ec->snd_nxt - ec->snd_una);
	CU_ASSERT(ec->in_flight <= ec->wnd);
	CU_ASSERT(ec->wnd > 0);
	/* A clean stream: the congestion window (on by default) grew from
	 * its start (10 frames, RDS_ETH_CWND_INIT_DEFAULT) and was never
	 * cut. */
	CU_ASSERT(ec->cwnd > 10 && ec->cwnd <= ec->wnd);
	CU_ASSERT(ec->cwnd_cuts == 0 && ec->cwnd_collapses == 0);
	/* The delay signal on (delay_us=1000000, a target no clean stream
	 * reaches): it took samples, and cut nothing. */
	CU_ASSERT(ec->delay_target_us == 1000000);
	CU_ASSERT(ec->delay_base_ns > 0);
	CU_ASSERT(ec->cwnd_delay_cuts == 0);
	CU_ASSERT(ec->srtt_ns > 0);
	CU_ASSERT(ec->rto_ns >= ec->srtt_ns);
	CU_ASSERT(ec->min_rtt_ns > 0 && ec->min_rtt_ns <= ec->rto_ns);
	printf("  info: %s: snd_nxt %u una %u rcv_nxt %u wnd %u peer_wnd %u "
	       "srtt %" PRIu64 " ns rttvar %" PRIu64 " ns min %" PRIu64
	       " ns rto %" PRIu64 " ns\n", ab ? "A->B" : "B->A", ec->snd_nxt,
	       ec->snd_una, ec->rcv_nxt, ec->wnd, ec->peer_wnd, ec->srtt_ns,
	       ec->rttvar_ns, ec->min_rtt_ns, ec->rto_ns);
}

/* The same connections through telemetry (/rds/eth_conns): their
 * count, both directions, and the sequences of a record, which do not
 * move once the stream is over. */
static void
check_eth_tel(const struct rte_rds_info_eth_connection *recs, unsigned int n)
{
	static char buf[16384 + 64];
	char key[64];
	uint64_t ms = 0;
	ssize_t r;
	int fd;

	fd = rds_test_tel_open();
	CU_ASSERT(fd != -2);
	if (fd < 0)
		return;
	r = rds_test_tel_cmd(fd, "/rds/eth_conns", buf, sizeof(buf), true, &ms);
	printf("  /rds/eth_conns (%" PRIu64 " ms): %.600s\n", ms,
	       r > 0 ? buf : "(none)");
	CU_ASSERT_FATAL(r > 0);
	CU_ASSERT(strncmp(buf, "{\"/rds/eth_conns\":", 18) == 0);
	CU_ASSERT(rds_test_json_int(buf, "count") == (long)n);
	CU_ASSERT(strstr(buf, "\"conn_1\":{") != NULL);
	CU_ASSERT(strstr(buf, "\"laddr\":\"" IPA "\",\"faddr\":\"" IPB "\"")
		  != NULL);
	CU_ASSERT(strstr(buf, "\"laddr\":\"" IPB "\",\"faddr\":\"" IPA "\"")
		  != NULL);
	CU_ASSERT(strstr(buf, "\"peer_mac\":\"02:00:0a:fe:00:0") != NULL);
	snprintf(key, sizeof(key), "\"snd_nxt\":%u,", recs[0].snd_nxt);
	CU_ASSERT(n > 0 && strstr(buf, key) != NULL);
	snprintf(key, sizeof(key), "\"rcv_nxt\":%u,", recs[0].rcv_nxt);
	CU_ASSERT(n > 0 && strstr(buf, key) != NULL);
	CU_ASSERT(strstr(buf, "\"srtt_ns\":") != NULL);
	CU_ASSERT(strstr(buf, "\"rto_ns\":") != NULL);
	snprintf(key, sizeof(key), "\"cwnd\":%u,", recs[0].cwnd);
	CU_ASSERT(n > 0 && strstr(buf, key) != NULL);
	CU_ASSERT(strstr(buf, "\"cwnd_collapses\":") != NULL);
	CU_ASSERT(strstr(buf, "\"cwnd_delay_cuts\":0,") != NULL);
	CU_ASSERT(strstr(buf, "\"delay_target_us\":1000000,") != NULL);
	close(fd);
}

static void
test_info(void)
{
	struct rte_rds_info_eth_connection recs[8];
	struct rte_rds_conf conf;
	socklen_t len = 0, len2;
	int each, s, i;

	rds_test_watchdog(300, "info");
	eth_extra = ",delay_us=1000000";
	eth_conf(&conf, RTE_RDS_ENGINE_INLINE, 1, false);
	eth_extra = "";
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
	rte_rds_conf_free(&conf);
	/* Before any connection: no record. */
	CU_ASSERT(rte_rds_info(RTE_RDS_INFO_ETH_CONNECTIONS, NULL, &len) ==
		  (int)sizeof(recs[0]));
	CU_ASSERT(len == 0);
	run_stream("info", 2000);
	/* Probe: ENOSPC and the size of every record. */
	len = 0;
	CU_ASSERT(rte_rds_info(RTE_RDS_INFO_ETH_CONNECTIONS, NULL, &len) == -1);
	CU_ASSERT(rte_errno == ENOSPC);
	/* A to B and B to A: one connection each way in this process. */
	CU_ASSERT(len == 2 * sizeof(recs[0]));
	len = sizeof(recs);
	each = rte_rds_info(RTE_RDS_INFO_ETH_CONNECTIONS, recs, &len);
	CU_ASSERT_FATAL(each == (int)sizeof(recs[0]));
	CU_ASSERT_FATAL(len == 2 * sizeof(recs[0]));
	for (i = 0; i < (int)(len / sizeof(recs[0])); i++)
		check_eth_conn(&recs[i]);
	CU_ASSERT(memcmp(&recs[0].laddr, &recs[1].laddr,
			 sizeof(recs[0].laddr)) != 0);
	/* The same through getsockopt, as rds-info takes it. */
	s = rte_rds_socket();
	CU_ASSERT_FATAL(s >= 0);
	len2 = sizeof(recs);
	CU_ASSERT(rte_rds_getsockopt(s, SOL_RDS, RTE_RDS_INFO_ETH_CONNECTIONS,
				     recs, &len2) == (int)sizeof(recs[0]));
	CU_ASSERT(len2 == len);
	/* A name of librte_rds's range that it does not know: as the
	 * kernel for any unknown name. */
	len2 = sizeof(recs);
	CU_ASSERT(rte_rds_getsockopt(s, SOL_RDS, RTE_RDS_INFO_OWN_LAST + 1,
				     recs, &len2) == -1);
	CU_ASSERT(errno == ENOPROTOOPT);
	CU_ASSERT(rte_rds_close(s) == 0);
	check_eth_tel(recs, (unsigned int)(len / sizeof(recs[0])));
	CU_ASSERT(rds_test_lib_fini() == 0);
	rds_test_watchdog(0, NULL);
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "stream/arp", test_stream_arp },
		{ "stream/lcore", test_stream_lcore },
		{ "stream/faults", test_stream_faults },
		{ "info", test_info },
		{ NULL, NULL },
	};
	int ret;

	rds_test_eal_init("eth_ring", "0-1");
	ret = rds_test_run_suite("eth_ring", cases);
	rds_test_eal_fini();
	return ret;
}

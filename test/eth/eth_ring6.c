/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The eth transport over IPv6 on net_ring in one process (as eth_ring:
 * two ethdev ports whose rings cross), fd00:fe::1 on port A and
 * fd00:fe::2 on port B, every message through IPv6 frames (Ethernet |
 * IPv6 | UDP | eth header, the CRC32C of the eth header and payload):
 *
 *   stream6/nd:      neighbours found by neighbour discovery (RFC 4861
 *                    solicitations and advertisements), RDS_TEST_MSGS6
 *                    messages (default 20,000) with the shared stream
 *                    checker (SHA-256 per pair), engine inline;
 *   stream6/static:  static IPv6 neighbours (neigh=), engine on its own
 *                    lcore: no solicitation;
 *   stream6/faults:  loss, duplication, reordering and corruption: the
 *                    frame layer recovers over IPv6 as over IPv4;
 *   mixed:           IPv4 and IPv6 addresses on the same two ports at
 *                    once, a stream over each: four connections, the
 *                    IPv6 ones listed with their addresses;
 *   linklocal:       fe80::a and fe80::b, sockets bound with a scope;
 *   errno:           neigh= items that are not unicast IPv6, and the
 *                    socket calls' IPv6 errors with eth serving.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <CUnit/CUnit.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_eth_ring.h>
#include <rte_ring.h>
#include <rte_rds.h>
#include <rte_rds_eth.h>
#include <rte_rds_info.h>

#include "rds_test.h"
#include "rds_stream.h"

#define IPA "fd00:fe::1"
#define IPB "fd00:fe::2"
#define IP4A "10.254.0.1"
#define IP4B "10.254.0.2"
#define LLA "fe80::a"
#define LLB "fe80::b"
#define MACA "02:00:0a:fe:00:01"
#define MACB "02:00:0a:fe:00:02"

static uint16_t port_a, port_b;

static int
make_ports(void)
{
	static bool made;
	struct rte_ring *ab, *ba;
	int ret;

	if (made)
		return 0;
	ab = rte_ring_create("eth6_ab", 4096, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	ba = rte_ring_create("eth6_ba", 4096, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (ab == NULL || ba == NULL)
		return -1;
	ret = rte_eth_from_rings("ring6A", &ba, 1, &ab, 1, 0);
	if (ret < 0)
		return -1;
	port_a = (uint16_t)ret;
	ret = rte_eth_from_rings("ring6B", &ab, 1, &ba, 1, 0);
	if (ret < 0)
		return -1;
	port_b = (uint16_t)ret;
	made = true;
	return 0;
}

/* ip on port p with mac; neigh: "IP/MAC" of the other end, or NULL
 * (neighbour discovery). IPv6 in brackets. */
static void
add_addr(struct rte_rds_conf *conf, const char *ip, uint16_t p,
	 const char *mac, const char *neigh)
{
	bool v6 = strchr(ip, ':') != NULL;
	char spec[256];

	snprintf(spec, sizeof(spec), "%s%s%s=eth,port=%u,mac=%s%s%s",
		 v6 ? "[" : "", ip, v6 ? "]" : "", p, mac,
		 neigh != NULL ? ",neigh=" : "", neigh != NULL ? neigh : "");
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(conf, spec) == 0);
}

static void
eth_conf(struct rte_rds_conf *conf, uint32_t lcore, const char *a,
	 const char *b, bool nd)
{
	char na[96], nb[96];

	CU_ASSERT_FATAL(make_ports() == 0);
	rte_rds_conf_init(conf);
	conf->nb_engines = 1;
	conf->engine[0].lcore_id = lcore;
	conf->engine[0].idle = RTE_RDS_IDLE_YIELD;
	snprintf(na, sizeof(na), "%s/" MACB, b);
	snprintf(nb, sizeof(nb), "%s/" MACA, a);
	add_addr(conf, a, port_a, MACA, nd ? NULL : na);
	add_addr(conf, b, port_b, MACB, nd ? NULL : nb);
}

static struct rte_rds_eth_stats
eth_stats(const char *what)
{
	struct rte_rds_eth_stats s;

	memset(&s, 0, sizeof(s));
	CU_ASSERT(rte_rds_eth_stats_get(&s) == 0);
	printf("  %s: frames tx %" PRIu64 " rx %" PRIu64 ", rexmit fast %"
	       PRIu64 " sack %" PRIu64 " timeout %" PRIu64 ", crc drops %"
	       PRIu64 ", nd tx %" PRIu64 " rx %" PRIu64 ", arp tx %" PRIu64
	       ", faults: drop %" PRIu64 " dup %" PRIu64 " corrupt %" PRIu64
	       "\n", what, s.tx_frames, s.rx_frames, s.rexmit_fast,
	       s.rexmit_sack, s.rexmit_timeout, s.rx_drop_crc, s.nd_tx,
	       s.nd_rx, s.arp_tx, s.fault_dropped, s.fault_duplicated,
	       s.fault_corrupted);
	return s;
}

static bool
run_stream(const char *what, const char *a, const char *b, uint64_t total)
{
	struct rds_stream_conf sc;
	struct rds_stream *st;
	uint64_t sent, received, bytes, eagain, enobufs;
	bool ok;

	rds_stream_conf_default(&sc, total);
	sc.nsock = 4;
	sc.ip[0] = a;
	sc.ip[1] = a;
	sc.ip[2] = b;
	sc.ip[3] = b;
	sc.trans = RTE_RDS_TRANS_ETH;
	sc.check_bytes = true;
	st = rds_stream_new(&sc);
	CU_ASSERT_FATAL(st != NULL);
	ok = rds_stream_run(st, what);
	CU_ASSERT(ok);
	if (ok) {
		CU_ASSERT(rds_stream_verify(st) == 0);
		CU_ASSERT(rds_stream_quiet(st));
	}
	rds_stream_counts(st, &sent, &received, &bytes, &eagain, &enobufs);
	printf("  %s: %" PRIu64 " messages (%" PRIu64 " bytes)\n", what,
	       received, bytes);
	CU_ASSERT_EQUAL(received, total);
	rds_stream_free(st);
	return ok;
}

static uint64_t
msgs(void)
{
	return rds_test_env_u64("RDS_TEST_MSGS6", 20000);
}

static void
test_stream_nd(void)
{
	struct rte_rds_eth_stats es;
	struct rte_rds_conf conf;

	rds_test_watchdog(900, "stream6/nd");
	eth_conf(&conf, RTE_RDS_ENGINE_INLINE, IPA, IPB, true);
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
	rte_rds_conf_free(&conf);
	run_stream("stream6/nd", IPA, IPB, msgs());
	es = eth_stats("stream6/nd");
	/* Both ends solicited and both answered: neighbour discovery, not
	 * ARP. */
	CU_ASSERT(es.nd_tx >= 2);
	CU_ASSERT(es.nd_rx >= 2);
	CU_ASSERT(es.arp_tx == 0);
	CU_ASSERT(es.rx_frames > 0);
	CU_ASSERT(es.rx_drop_crc == 0);
	CU_ASSERT(rds_test_lib_fini() == 0);
	rds_test_watchdog(0, NULL);
}

static void
test_stream_static(void)
{
	struct rte_rds_eth_stats es;
	struct rte_rds_conf conf;
	unsigned int lcore = rds_test_worker_lcore();

	CU_ASSERT_FATAL(lcore < RTE_MAX_LCORE);
	rds_test_watchdog(900, "stream6/static");
	eth_conf(&conf, lcore, IPA, IPB, false);
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
	rte_rds_conf_free(&conf);
	run_stream("stream6/static", IPA, IPB, msgs());
	es = eth_stats("stream6/static");
	CU_ASSERT(es.nd_tx == 0);	/* static neighbours */
	CU_ASSERT(es.rx_frames > 0);
	CU_ASSERT(rds_test_lib_fini() == 0);
	rds_test_watchdog(0, NULL);
}

static void
test_stream_faults(void)
{
	struct rte_rds_eth_faults f;
	struct rte_rds_eth_stats es;
	struct rte_rds_conf conf;

	rds_test_watchdog(1200, "stream6/faults");
	eth_conf(&conf, RTE_RDS_ENGINE_INLINE, IPA, IPB, false);
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
	rte_rds_conf_free(&conf);
	memset(&f, 0, sizeof(f));
	f.drop_ppm = 50000;
	f.dup_ppm = 10000;
	f.reorder_ppm = 20000;
	f.reorder_depth = 8;
	f.corrupt_ppm = 5000;
	f.seed = 11;
	CU_ASSERT_FATAL(rte_rds_eth_set_faults(&f) == 0);
	run_stream("stream6/faults", IPA, IPB, msgs());
	es = eth_stats("stream6/faults");
	CU_ASSERT(es.fault_dropped > 0);
	CU_ASSERT(es.fault_corrupted > 0);
	CU_ASSERT(es.rx_drop_crc + es.rx_drop_ip + es.rx_drop_len +
		  es.rx_drop_type + es.rx_drop_version + es.rx_drop_short > 0);
	CU_ASSERT(es.rexmit_fast + es.rexmit_sack + es.rexmit_timeout > 0);
	CU_ASSERT(es.rx_dup > 0);
	CU_ASSERT(rte_rds_eth_set_faults(NULL) == 0);
	CU_ASSERT(rds_test_lib_fini() == 0);
	rds_test_watchdog(0, NULL);
}

/* IPv4 and IPv6 side by side on the same ports. */
static void
test_mixed(void)
{
	struct rte_rds_info_eth_connection recs[8];
	struct rte_rds_conf conf;
	struct in6_addr a6, b6;
	socklen_t len = sizeof(recs);
	unsigned int i, n, v6 = 0;

	rds_test_watchdog(900, "mixed");
	eth_conf(&conf, RTE_RDS_ENGINE_INLINE, IPA, IPB, false);
	add_addr(&conf, IP4A, port_a, MACA, IP4B "/" MACB);
	add_addr(&conf, IP4B, port_b, MACB, IP4A "/" MACA);
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
	rte_rds_conf_free(&conf);
	run_stream("mixed/v6", IPA, IPB, msgs() / 2);
	run_stream("mixed/v4", IP4A, IP4B, msgs() / 2);
	CU_ASSERT_FATAL(rte_rds_info(RTE_RDS_INFO_ETH_CONNECTIONS, recs,
				     &len) == (int)sizeof(recs[0]));
	n = len / sizeof(recs[0]);
	CU_ASSERT_EQUAL(n, 4);
	inet_pton(AF_INET6, IPA, &a6);
	inet_pton(AF_INET6, IPB, &b6);
	for (i = 0; i < n; i++) {
		if (memcmp(&recs[i].laddr, &a6, 16) == 0) {
			CU_ASSERT(memcmp(&recs[i].faddr, &b6, 16) == 0);
			v6++;
		} else if (memcmp(&recs[i].laddr, &b6, 16) == 0) {
			CU_ASSERT(memcmp(&recs[i].faddr, &a6, 16) == 0);
			v6++;
		}
		CU_ASSERT(recs[i].resolved == 1);
		CU_ASSERT(recs[i].rcv_nxt > 0);
	}
	CU_ASSERT_EQUAL(v6, 2);
	eth_stats("mixed");
	CU_ASSERT(rds_test_lib_fini() == 0);
	rds_test_watchdog(0, NULL);
}

static void
test_linklocal(void)
{
	struct rte_rds_conf conf;

	rds_test_watchdog(900, "linklocal");
	eth_conf(&conf, RTE_RDS_ENGINE_INLINE, LLA, LLB, true);
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
	rte_rds_conf_free(&conf);
	run_stream("linklocal", LLA "%1", LLB "%1", msgs() / 4);
	eth_stats("linklocal");
	CU_ASSERT(rds_test_lib_fini() == 0);
	rds_test_watchdog(0, NULL);
}

#define EXPECT_ERRNO(call, e) do { \
	errno = 0; \
	CU_ASSERT_EQUAL((call), -1); \
	CU_ASSERT_EQUAL(errno, (e)); \
} while (0)

static int
init_spec(const char *spec)
{
	struct rte_rds_conf conf;
	int ret;

	CU_ASSERT_FATAL(make_ports() == 0);
	rte_rds_conf_init(&conf);
	conf.engine[0].lcore_id = RTE_RDS_ENGINE_INLINE;
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(&conf, spec) == 0);
	ret = rte_rds_init(&conf) == 0 ? 0 : rte_errno;
	if (ret == 0)
		rte_rds_fini();
	rte_rds_conf_free(&conf);
	return ret;
}

static void
test_errno(void)
{
	struct rte_rds_conf conf;
	union rds_test_addr a, d;
	char spec[160];
	int s;

	/* neigh= items that are no IPv6 unicast neighbour. */
	snprintf(spec, sizeof(spec), "[" IPA "]=eth,port=%u,mac=" MACA
		 ",neigh=ff02::1/" MACB, port_a);
	CU_ASSERT_FATAL(make_ports() == 0);
	CU_ASSERT_EQUAL(init_spec(spec), EINVAL);
	snprintf(spec, sizeof(spec), "[" IPA "]=eth,port=%u,mac=" MACA
		 ",neigh=fd00::2/33:33:00:00:00:01", port_a);
	CU_ASSERT_EQUAL(init_spec(spec), EINVAL);
	snprintf(spec, sizeof(spec), "[" IPA "]=eth,port=%u,mac=" MACA
		 ",neigh=fd00::2/02:00:00:00:00:02+" IP4B "/" MACB, port_a);
	CU_ASSERT_EQUAL(init_spec(spec), 0);

	eth_conf(&conf, RTE_RDS_ENGINE_INLINE, IPA, IPB, false);
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
	rte_rds_conf_free(&conf);
	s = rte_rds_socket();
	CU_ASSERT_FATAL(s >= 0);
	a = rds_test_addr(IPA, 4100);
	d = rds_test_addr("fd00:fe::99", 4100);
	EXPECT_ERRNO(rte_rds_bind(s, &d.sa, sizeof(d.in6)), EADDRNOTAVAIL);
	CU_ASSERT_EQUAL(rte_rds_bind(s, &a.sa, sizeof(a.in6)), 0);
	d = rds_test_addr(IP4B, 5000);
	EXPECT_ERRNO(rds_test_send_to(s, "x", 1, &d, 0), EOPNOTSUPP);
	d = rds_test_addr("ff02::1", 5000);
	EXPECT_ERRNO(rds_test_send_to(s, "x", 1, &d, 0), EINVAL);
	d = rds_test_addr(LLB, 5000);
	EXPECT_ERRNO(rds_test_send_to(s, "x", 1, &d, 0), EINVAL);
	rte_rds_close(s);
	CU_ASSERT(rds_test_lib_fini() == 0);
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "stream6/nd", test_stream_nd },
		{ "stream6/static", test_stream_static },
		{ "stream6/faults", test_stream_faults },
		{ "mixed", test_mixed },
		{ "linklocal", test_linklocal },
		{ "errno", test_errno },
		{ NULL, NULL },
	};
	int ret;

	rds_test_eal_init("eth_ring6", "0-1");
	ret = rds_test_run_suite("eth_ring6", cases);
	rds_test_eal_fini();
	return ret;
}

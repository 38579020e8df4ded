/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The eth transport with two engines on one port pair: receive queues
 * per engine, rte_flow steering, the software hand-off between engines
 * and zero-copy transmit of large fragments. Address 10.254.2.1 on port
 * A, 10.254.2.2 on port B, two inline engines; a connection belongs to
 * one engine on both sides (the engine is a hash of both addresses)
 * while port A's receive queue 0 is polled by engine 0 and port B's by
 * engine 1, so one side's frames always land on the wrong engine first.
 *
 *   handoff/ring1:  net_ring ports with one queue each: every frame
 *                   port B receives for the engine 0 connection (or A
 *                   for engine 1) goes through the hand-off rings
 *                   (rx_handoff > 0, none lost, rx_steered 0: one
 *                   queue);
 *   handoff6/ring1: handoff/ring1 over IPv6 (fd00:fc::1 and ::2, static
 *                   neighbours): an IPv6 frame finds its connection's
 *                   engine from its addresses as an IPv4 one does, and
 *                   goes through the same hand-off rings;
 *   steer/ring2:    net_ring ports with two queues each (what A's
 *                   transmit queue i sends arrives on B's receive queue
 *                   i): each engine polls its own queue, frames reach
 *                   their owner's queue in one direction (rx_steered >
 *                   0) and are handed off in the other;
 *   steer/tap:      two net_tap ports (two queues each) on a Linux
 *                   bridge in a network namespace of this process's
 *                   own: rte_flow rules (TC flower) per connection send
 *                   every frame to its owner's queue: flow_rules >= 2,
 *                   no rule refused, hand-offs under 10 % of the frames
 *                   (without the rules port B's direction, half of
 *                   them, would all be handed off); large messages go
 *                   zero-copy (tx_zc_frames > 0: net_tap takes chains).
 *                   Where the kernel refuses the rules (net_tap's TC
 *                   flower rules need the multiq qdisc, sch_multiq, which
 *                   some kernels lack) the case says so and checks the
 *                   fallback instead: one refused rule per port, after
 *                   which its connections are handed off in software.
 *                   Needs root (a network namespace, a bridge, /dev/net/
 *                   tun) and the net_tap PMD: without them the case
 *                   says why and fails.
 */

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/CUnit.h>

#include <rte_dev.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_eth_ring.h>
#include <rte_ring.h>
#include <rte_rds.h>
#include <rte_rds_eth.h>

#include "rds_test.h"
#include "rds_stream.h"

#define IPA "10.254.2.1"
#define IPB "10.254.2.2"
#define IPA6 "fd00:fc::1"
#define IPB6 "fd00:fc::2"
#define MACA "02:00:0a:fe:02:01"
#define MACB "02:00:0a:fe:02:02"

/* Why the tap case cannot run ("" when it can). */
static char tap_why[256];

/* Ports A and B from rings that cross, nq queues each; tag names them
 * apart from another case's. */
static int
ring_ports(const char *tag, unsigned int nq, uint16_t *pa, uint16_t *pb)
{
	struct rte_ring *ab[2], *ba[2];
	char name[32];
	unsigned int i;
	int ret;

	for (i = 0; i < nq; i++) {
		snprintf(name, sizeof(name), "st%s%u_ab%u", tag, nq, i);
		ab[i] = rte_ring_create(name, 4096, 0, RING_F_SP_ENQ |
					RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "st%s%u_ba%u", tag, nq, i);
		ba[i] = rte_ring_create(name, 4096, 0, RING_F_SP_ENQ |
					RING_F_SC_DEQ);
		if (ab[i] == NULL || ba[i] == NULL)
			return -1;
	}
	snprintf(name, sizeof(name), "st%s%uA", tag, nq);
	ret = rte_eth_from_rings(name, ba, nq, ab, nq, 0);
	if (ret < 0)
		return -1;
	*pa = (uint16_t)ret;
	snprintf(name, sizeof(name), "st%s%uB", tag, nq);
	ret = rte_eth_from_rings(name, ab, nq, ba, nq, 0);
	if (ret < 0)
		return -1;
	*pb = (uint16_t)ret;
	return 0;
}

static void
steer_conf(struct rte_rds_conf *conf, uint16_t pa, uint16_t pb,
	   const char *a, const char *b)
{
	bool v6 = strchr(a, ':') != NULL;
	const char *o = v6 ? "[" : "", *c = v6 ? "]" : "";
	char spec[256];
	unsigned int i;

	rte_rds_conf_init(conf);
	conf->nb_engines = 2;
	for (i = 0; i < 2; i++) {
		conf->engine[i].lcore_id = RTE_RDS_ENGINE_INLINE;
		conf->engine[i].idle = RTE_RDS_IDLE_YIELD;
	}
	snprintf(spec, sizeof(spec), "%s%s%s=eth,port=%u,mac=" MACA
		 ",neigh=%s/" MACB, o, a, c, pa, b);
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(conf, spec) == 0);
	snprintf(spec, sizeof(spec), "%s%s%s=eth,port=%u,mac=" MACB
		 ",neigh=%s/" MACA, o, b, c, pb, a);
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(conf, spec) == 0);
}

/* A stream both ways (sockets on either address), checked; the
 * counters after it. */
static void
run_on(const char *what, uint16_t pa, uint16_t pb, uint64_t total,
       struct rte_rds_eth_stats *es, const char *a, const char *b)
{
	struct rds_stream_conf sc;
	struct rds_stream *st;
	struct rte_rds_conf conf;
	bool ok;

	steer_conf(&conf, pa, pb, a, b);
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
	rte_rds_conf_free(&conf);
	rds_stream_conf_default(&sc, total);
	sc.nsock = 4;
	sc.ip[0] = a;
	sc.ip[1] = a;
	sc.ip[2] = b;
	sc.ip[3] = b;
	sc.trans = RTE_RDS_TRANS_ETH;
	sc.large_one_in = 50;	/* large messages: zero-copy fragments */
	st = rds_stream_new(&sc);
	CU_ASSERT_FATAL(st != NULL);
	ok = rds_stream_run(st, what);
	CU_ASSERT(ok);
	if (ok)
		CU_ASSERT(rds_stream_verify(st) == 0);
	rds_stream_free(st);
	CU_ASSERT(rte_rds_eth_stats_get(es) == 0);
	printf("  %s: rx_frames %" PRIu64 ", rx_steered %" PRIu64
	       ", rx_handoff %" PRIu64 ", rx_handoff_drop %" PRIu64
	       ", flow_rules %" PRIu64 ", flow_fail %" PRIu64
	       ", tx_frames %" PRIu64 ", tx_zc_frames %" PRIu64 "\n", what,
	       es->rx_frames, es->rx_steered, es->rx_handoff,
	       es->rx_handoff_drop, es->flow_rules, es->flow_fail,
	       es->tx_frames, es->tx_zc_frames);
	CU_ASSERT(rds_test_lib_fini() == 0);
}

static void
run(const char *what, uint16_t pa, uint16_t pb, uint64_t total,
    struct rte_rds_eth_stats *es)
{
	run_on(what, pa, pb, total, es, IPA, IPB);
}

/* A stream over a net_ring pair of nq queues each, between a and b. */
static void
ring_case_on(const char *what, const char *tag, unsigned int nq,
	     struct rte_rds_eth_stats *es, const char *a, const char *b)
{
	uint16_t pa = 0, pb = 0;

	rds_test_watchdog(600, what);
	CU_ASSERT_FATAL(ring_ports(tag, nq, &pa, &pb) == 0);
	run_on(what, pa, pb, rds_test_env_u64("RDS_TEST_MSGS", 40000), es, a,
	       b);
	CU_ASSERT(es->rx_handoff > 0);
	CU_ASSERT(es->rx_handoff_drop == 0);
	CU_ASSERT(es->flow_rules == 0);		/* net_ring has no rte_flow */
	rds_test_watchdog(0, NULL);
}

static void
ring_case(const char *what, unsigned int nq, struct rte_rds_eth_stats *es)
{
	ring_case_on(what, "", nq, es, IPA, IPB);
}

static void
test_handoff_ring1(void)
{
	struct rte_rds_eth_stats es;

	ring_case("handoff/ring1", 1, &es);
	CU_ASSERT(es.rx_steered == 0);		/* one queue */
}

static void
test_handoff6_ring1(void)
{
	struct rte_rds_eth_stats es;

	ring_case_on("handoff6/ring1", "v6", 1, &es, IPA6, IPB6);
	CU_ASSERT(es.rx_steered == 0);		/* one queue */
	CU_ASSERT(es.arp_tx == 0);		/* IPv6 frames only */
}

static void
test_steer_ring2(void)
{
	struct rte_rds_eth_stats es;

	ring_case("steer/ring2", 2, &es);
	CU_ASSERT(es.rx_steered > 0);		/* its own queue, one way */
}

static int
sh(const char *cmd)
{
	int ret = system(cmd);

	if (ret != 0)
		printf("  '%s': exit %d\n", cmd, ret);
	return ret;
}

static void
test_steer_tap(void)
{
	struct rte_rds_eth_stats es;
	uint16_t pa, pb;

	if (tap_why[0] != '\0') {
		printf("  steer/tap cannot run: %s\n", tap_why);
		CU_FAIL("steer/tap: no network namespace or net_tap");
		return;
	}
	rds_test_watchdog(600, "steer/tap");
	if (rte_dev_probe("net_tap_rds0,iface=rdstap0") != 0 ||
	    rte_dev_probe("net_tap_rds1,iface=rdstap1") != 0 ||
	    rte_eth_dev_get_port_by_name("net_tap_rds0", &pa) != 0 ||
	    rte_eth_dev_get_port_by_name("net_tap_rds1", &pb) != 0) {
		printf("  steer/tap cannot run: net_tap probe: %s\n",
		       rte_strerror(rte_errno));
		CU_FAIL("steer/tap: net_tap");
		return;
	}
	/* The two taps on a bridge: what A's tap sends reaches B's. */
	CU_ASSERT_FATAL(sh("ip link add rdsbr0 type bridge && "
			   "ip link set rdstap0 master rdsbr0 && "
			   "ip link set rdstap1 master rdsbr0 && "
			   "ip link set rdsbr0 up && ip link set lo up") == 0);
	run("steer/tap", pa, pb, rds_test_env_u64("RDS_TEST_MSGS", 40000),
	    &es);
	CU_ASSERT(es.tx_zc_frames > 0);
	CU_ASSERT(es.rx_handoff_drop == 0);
	if (es.flow_rules == 0 && es.flow_fail > 0) {
		/* rte_flow_validate took the rule, the kernel refused it:
		 * net_tap puts its TC flower rules under a multiq qdisc. */
		printf("  steer/tap: the kernel refused the rte_flow rules "
		       "(net_tap needs the multiq qdisc, module sch_multiq: "
		       "%s): checked instead that the connections fell back "
		       "to the software hand-off\n",
		       system("modprobe -q sch_multiq 2>/dev/null") == 0 ?
		       "loads, yet the rule failed" : "not available here");
		CU_ASSERT(es.flow_fail <= 2);	/* one try per port, then none */
		CU_ASSERT(es.rx_handoff > 0);
		rds_test_watchdog(0, NULL);
		return;
	}
	CU_ASSERT(es.flow_rules >= 2);
	CU_ASSERT(es.flow_fail == 0);
	CU_ASSERT(es.rx_steered > 0);
	CU_ASSERT(es.rx_handoff * 10 < es.rx_frames);
	rds_test_watchdog(0, NULL);
}

/* The tap case's namespace: before the EAL, so that every thread is in
 * it; the taps and the bridge go with the process. */
static void
tap_prepare(void)
{
	if (geteuid() != 0) {
		snprintf(tap_why, sizeof(tap_why), "not root");
		return;
	}
	if (unshare(CLONE_NEWNET) != 0) {
		snprintf(tap_why, sizeof(tap_why), "unshare(CLONE_NEWNET): %s",
			 strerror(errno));
		return;
	}
	if (access("/dev/net/tun", R_OK | W_OK) != 0)
		snprintf(tap_why, sizeof(tap_why), "/dev/net/tun: %s",
			 strerror(errno));
	else if (system("ip link add rdsbrt type bridge && "
			"ip link del rdsbrt") != 0)
		snprintf(tap_why, sizeof(tap_why),
			 "no Linux bridge (ip link add type bridge failed)");
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "handoff/ring1", test_handoff_ring1 },
		{ "handoff6/ring1", test_handoff6_ring1 },
		{ "steer/ring2", test_steer_ring2 },
		{ "steer/tap", test_steer_tap },
		{ NULL, NULL },
	};
	int ret;

	tap_prepare();
	rds_test_eal_init("eth_steer", "0-1");
	ret = rds_test_run_suite("eth_steer", cases);
	rds_test_eal_fini();
	return ret;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unit_eth: the neighbour table and ARP (rds_eth_arp.c).
 */

#include "unit_eth.h"

/* ------------------------------------------------------------------ */
/* Neighbours and ARP */

struct rds_engine *eng;
static struct rds_eth_engine eeng;
static struct rds_eth_port port;
static struct rds_laddr la[2];
static struct rds_eth_laddr ela[2];

static void
port_setup(unsigned int size)
{
	unsigned int i;

	memset(&eeng, 0, sizeof(eeng));
	eng->tp[rds_eth_slot] = &eeng;
	memset(&port, 0, sizeof(port));
	port.pool = pool;
	port.mac = mac_a;
	port.udp_port = UPORT;
	port.neigh = rds_eth_neigh_create(size);
	CU_ASSERT_PTR_NOT_NULL_FATAL(port.neigh);
	for (i = 0; i < 2; i++) {
		ela[i].port = &port;
		ela[i].ip = ip4(i == 0 ? "10.0.0.1" : "10.0.0.2");
		la[i].tp = &ela[i];
		port.laddrs[i] = &la[i];
	}
	port.nb_laddrs = 2;
	nb_cap = 0;
}

static void
port_teardown(void)
{
	cap_clear();
	rds_eth_neigh_free(port.neigh);
	port.neigh = NULL;
	check_no_leak();
}

/* An ARP frame, written byte by byte. */
static struct rte_mbuf *
mk_arp(uint16_t op, const struct rte_ether_addr *edst,
       const struct rte_ether_addr *sha, uint32_t sip,
       const struct rte_ether_addr *tha, uint32_t tip)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *b;

	if (m == NULL)
		abort();
	b = (uint8_t *)rte_pktmbuf_append(m, 60);
	if (b == NULL)
		abort();
	memset(b, 0, 60);
	memcpy(b, edst, 6);
	memcpy(b + 6, sha, 6);
	wr16(b + 12, 0x0806);
	wr16(b + 14, 1);
	wr16(b + 16, 0x0800);
	b[18] = 6;
	b[19] = 4;
	wr16(b + 20, op);
	memcpy(b + 22, sha, 6);
	memcpy(b + 28, &sip, 4);
	memcpy(b + 32, tha, 6);
	memcpy(b + 38, &tip, 4);
	return m;
}

static const struct rte_ether_addr bcast = {{ 0xff, 0xff, 0xff, 0xff, 0xff,
					      0xff }};
static const struct rte_ether_addr zmac;

/* Check a captured ARP frame. */
static void
check_arp(const struct rte_mbuf *m, uint16_t op,
	  const struct rte_ether_addr *edst, uint32_t sip,
	  const struct rte_ether_addr *tha, uint32_t tip)
{
	const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);

	CU_ASSERT_EQUAL(rte_pktmbuf_pkt_len(m), 60);
	CU_ASSERT(memcmp(b, edst, 6) == 0);
	CU_ASSERT(memcmp(b + 6, &mac_a, 6) == 0);
	CU_ASSERT_EQUAL(rd16(b + 12), 0x0806);
	CU_ASSERT_EQUAL(rd16(b + 14), 1);
	CU_ASSERT_EQUAL(rd16(b + 16), 0x0800);
	CU_ASSERT_EQUAL(b[18], 6);
	CU_ASSERT_EQUAL(b[19], 4);
	CU_ASSERT_EQUAL(rd16(b + 20), op);
	CU_ASSERT(memcmp(b + 22, &mac_a, 6) == 0);
	CU_ASSERT(memcmp(b + 28, &sip, 4) == 0);
	CU_ASSERT(memcmp(b + 32, tha, 6) == 0);
	CU_ASSERT(memcmp(b + 38, &tip, 4) == 0);
}

void
test_arp_request_answered(void)
{
	struct rte_ether_addr mac;

	port_setup(16);
	/* For our second address: answered from it, sender learned. */
	rds_eth_arp_input(eng, &port, mk_arp(1, &bcast, &mac_b,
					     ip4("10.0.0.9"), &zmac,
					     ip4("10.0.0.2")));
	CU_ASSERT_EQUAL_FATAL(nb_cap, 1);
	check_arp(cap[0], 2, &mac_b, ip4("10.0.0.2"), &mac_b, ip4("10.0.0.9"));
	CU_ASSERT_EQUAL(eeng.stats.arp_rx, 1);
	CU_ASSERT_EQUAL(eeng.stats.arp_tx, 1);
	CU_ASSERT_EQUAL(rds_eth_neigh_lookup(port.neigh, ip4("10.0.0.9"), &mac),
			1);
	CU_ASSERT(rte_is_same_ether_addr(&mac, &mac_b));
	CU_ASSERT_EQUAL(rds_eth_neigh_resolve(eng, &port, ip4("10.0.0.1"),
					      ip4("10.0.0.9"), &mac), 0);
	CU_ASSERT(rte_is_same_ether_addr(&mac, &mac_b));
	CU_ASSERT_EQUAL(nb_cap, 1);
	cap_clear();

	/* For someone else: no answer, the sender not learned. */
	rds_eth_arp_input(eng, &port, mk_arp(1, &bcast, &mac_c,
					     ip4("10.0.0.10"), &zmac,
					     ip4("10.0.0.77")));
	CU_ASSERT_EQUAL(nb_cap, 0);
	CU_ASSERT_EQUAL(rds_eth_neigh_lookup(port.neigh, ip4("10.0.0.10"),
					     &mac), -ENOENT);
	CU_ASSERT_EQUAL(eeng.stats.arp_rx, 2);
	CU_ASSERT_EQUAL(eeng.stats.arp_tx, 1);

	/* A probe (sender 0.0.0.0) for us: answered to its MAC, nothing
	 * learned. */
	rds_eth_arp_input(eng, &port, mk_arp(1, &bcast, &mac_c, 0, &zmac,
					     ip4("10.0.0.1")));
	CU_ASSERT_EQUAL_FATAL(nb_cap, 1);
	check_arp(cap[0], 2, &mac_c, ip4("10.0.0.1"), &mac_c, 0);
	cap_clear();

	/* Our own request back (loopback port), or someone with one of our
	 * addresses: ignored. */
	rds_eth_arp_input(eng, &port, mk_arp(1, &bcast, &mac_a,
					     ip4("10.0.0.1"), &zmac,
					     ip4("10.0.0.2")));
	rds_eth_arp_input(eng, &port, mk_arp(1, &bcast, &mac_c,
					     ip4("10.0.0.1"), &zmac,
					     ip4("10.0.0.2")));
	CU_ASSERT_EQUAL(nb_cap, 0);
	CU_ASSERT_EQUAL(rds_eth_neigh_lookup(port.neigh, ip4("10.0.0.1"),
					     &mac), -ENOENT);
	port_teardown();
}

void
test_arp_bad_frames(void)
{
	struct rte_mbuf *m;
	uint8_t *b;
	unsigned int i;

	port_setup(16);
	for (i = 0; i < 7; i++) {
		m = mk_arp(1, &bcast, &mac_b, ip4("10.0.0.9"), &zmac,
			   ip4("10.0.0.1"));
		b = rte_pktmbuf_mtod(m, uint8_t *);
		switch (i) {
		case 0: rte_pktmbuf_trim(m, 60 - 41); break;	/* short */
		case 1: wr16(b + 14, 6); break;			/* hrd */
		case 2: wr16(b + 16, 0x86dd); break;		/* pro */
		case 3: b[18] = 8; break;			/* hln */
		case 4: b[19] = 16; break;			/* pln */
		case 5: wr16(b + 20, 3); break;			/* op */
		case 6: wr16(b + 12, 0x0800); break;		/* not ARP */
		}
		rds_eth_arp_input(eng, &port, m);
	}
	CU_ASSERT_EQUAL(nb_cap, 0);
	CU_ASSERT_EQUAL(eeng.stats.arp_rx, 7);
	CU_ASSERT_EQUAL(eeng.stats.arp_tx, 0);
	CU_ASSERT_EQUAL(rds_eth_neigh_lookup(port.neigh, ip4("10.0.0.9"), NULL),
			-ENOENT);
	/* Exactly 42 bytes (no padding) is fine. */
	m = mk_arp(1, &bcast, &mac_b, ip4("10.0.0.9"), &zmac, ip4("10.0.0.1"));
	rte_pktmbuf_trim(m, 60 - 42);
	rds_eth_arp_input(eng, &port, m);
	CU_ASSERT_EQUAL(nb_cap, 1);
	port_teardown();
}

void
test_arp_resolve_reply(void)
{
	struct rte_ether_addr mac;
	uint32_t peer = ip4("10.0.0.9");

	port_setup(16);
	/* Unknown: a broadcast request from the given source address. */
	CU_ASSERT_EQUAL(rds_eth_neigh_resolve(eng, &port, ip4("10.0.0.2"), peer,
					      &mac), -EAGAIN);
	CU_ASSERT_EQUAL_FATAL(nb_cap, 1);
	check_arp(cap[0], 1, &bcast, ip4("10.0.0.2"), &zmac, peer);
	CU_ASSERT_EQUAL(eeng.stats.arp_tx, 1);
	CU_ASSERT_EQUAL(rds_eth_neigh_lookup(port.neigh, peer, &mac), 0);
	cap_clear();
	/* An unsolicited reply from someone we have no entry for: not
	 * learned. */
	rds_eth_arp_input(eng, &port, mk_arp(2, &mac_a, &mac_c,
					     ip4("10.0.0.50"), &mac_a,
					     ip4("10.0.0.2")));
	CU_ASSERT_EQUAL(rds_eth_neigh_lookup(port.neigh, ip4("10.0.0.50"),
					     NULL), -ENOENT);
	/* The reply: resolved. */
	rds_eth_arp_input(eng, &port, mk_arp(2, &mac_a, &mac_b, peer, &mac_a,
					     ip4("10.0.0.2")));
	CU_ASSERT_EQUAL(nb_cap, 0);
	memset(&mac, 0, sizeof(mac));
	CU_ASSERT_EQUAL(rds_eth_neigh_resolve(eng, &port, ip4("10.0.0.2"), peer,
					      &mac), 0);
	CU_ASSERT(rte_is_same_ether_addr(&mac, &mac_b));
	CU_ASSERT_EQUAL(eeng.stats.neigh_changed, 0);
	/* Addresses that are not neighbours. */
	CU_ASSERT_EQUAL(rds_eth_neigh_resolve(eng, &port, ip4("10.0.0.2"), 0,
					      &mac), -EINVAL);
	CU_ASSERT_EQUAL(rds_eth_neigh_resolve(eng, &port, ip4("10.0.0.2"),
					      UINT32_MAX, &mac), -EINVAL);
	CU_ASSERT_EQUAL(nb_cap, 0);
	port_teardown();
}

void
test_arp_mac_change(void)
{
	struct rte_ether_addr mac;
	uint32_t peer = ip4("10.0.0.9");

	port_setup(16);
	rds_eth_neigh_learn(eng, port.neigh, peer, &mac_b);
	CU_ASSERT_EQUAL(rds_eth_neigh_lookup(port.neigh, peer, &mac), 1);
	CU_ASSERT(rte_is_same_ether_addr(&mac, &mac_b));
	rds_eth_neigh_learn(eng, port.neigh, peer, &mac_b);
	CU_ASSERT_EQUAL(eeng.stats.neigh_changed, 0);
	/* A gratuitous ARP (request from the peer for itself) moves it. */
	rds_eth_arp_input(eng, &port, mk_arp(1, &bcast, &mac_c, peer, &zmac,
					     peer));
	CU_ASSERT_EQUAL(nb_cap, 0);
	CU_ASSERT_EQUAL(eeng.stats.neigh_changed, 1);
	CU_ASSERT_EQUAL(rds_eth_neigh_resolve(eng, &port, ip4("10.0.0.1"), peer,
					      &mac), 0);
	CU_ASSERT(rte_is_same_ether_addr(&mac, &mac_c));
	/* A frame from it at the old MAC: followed back. */
	rds_eth_neigh_learn(eng, port.neigh, peer, &mac_b);
	CU_ASSERT_EQUAL(eeng.stats.neigh_changed, 2);
	CU_ASSERT_EQUAL(rds_eth_neigh_resolve(eng, &port, ip4("10.0.0.1"), peer,
					      &mac), 0);
	CU_ASSERT(rte_is_same_ether_addr(&mac, &mac_b));
	/* Learning without an engine is not counted; nonsense is ignored. */
	rds_eth_neigh_learn(NULL, port.neigh, peer, &mac_c);
	CU_ASSERT_EQUAL(eeng.stats.neigh_changed, 2);
	rds_eth_neigh_learn(eng, port.neigh, peer, &bcast);
	rds_eth_neigh_learn(eng, port.neigh, peer, &zmac);
	rds_eth_neigh_learn(eng, port.neigh, 0, &mac_b);
	CU_ASSERT_EQUAL(rds_eth_neigh_lookup(port.neigh, peer, &mac), 1);
	CU_ASSERT(rte_is_same_ether_addr(&mac, &mac_c));
	/* learn() makes entries for new peers. */
	rds_eth_neigh_learn(eng, port.neigh, ip4("10.0.0.33"), &mac_b);
	CU_ASSERT_EQUAL(rds_eth_neigh_lookup(port.neigh, ip4("10.0.0.33"),
					     &mac), 1);
	CU_ASSERT_EQUAL(eeng.stats.neigh_changed, 2);
	port_teardown();
}

void
test_arp_rate_limit(void)
{
	struct rte_ether_addr mac;
	uint32_t peer = ip4("10.0.0.9");
	uint64_t t0, t1, ms = rte_get_tsc_hz() / 1000;
	unsigned int i, calls = 0;

	port_setup(16);
	t0 = rte_get_tsc_cycles();
	CU_ASSERT_EQUAL(rds_eth_neigh_resolve(eng, &port, ip4("10.0.0.1"), peer,
					      &mac), -EAGAIN);
	t1 = rte_get_tsc_cycles();
	/* Calls for 80 ms: still the one request. */
	while (rte_get_tsc_cycles() - t0 < ms * 80) {
		CU_ASSERT_EQUAL(rds_eth_neigh_resolve(eng, &port,
						      ip4("10.0.0.1"), peer,
						      &mac), -EAGAIN);
		calls++;
		rte_delay_us_sleep(500);
	}
	CU_ASSERT(calls > 10);
	CU_ASSERT_EQUAL(nb_cap, 1);
	/* Another address has its own limit. */
	CU_ASSERT_EQUAL(rds_eth_neigh_resolve(eng, &port, ip4("10.0.0.1"),
					      ip4("10.0.0.8"), &mac), -EAGAIN);
	CU_ASSERT_EQUAL(nb_cap, 2);
	/* 100 ms after the first: the next one. */
	while (rte_get_tsc_cycles() - t1 < ms * 101)
		rte_delay_us_sleep(1000);
	for (i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(rds_eth_neigh_resolve(eng, &port,
						      ip4("10.0.0.1"), peer,
						      &mac), -EAGAIN);
	CU_ASSERT_EQUAL(nb_cap, 3);
	CU_ASSERT_EQUAL(eeng.stats.arp_tx, 3);
	check_arp(cap[2], 1, &bcast, ip4("10.0.0.1"), &zmac, peer);
	port_teardown();
}

void
test_neigh_static(void)
{
	static const char *const bad[] = {
		"10.0.0.5", "10.0.0.5/", "/02:00:00:00:00:05",
		"10.0.0.5/02:00:00:00:00", "10.0.0.256/02:00:00:00:00:05",
		"10.0.0/02:00:00:00:00:05", "10.0.0.5/02:00:00:00:00:05+",
		"+10.0.0.5/02:00:00:00:00:05", "10.0.0.5/02:00:00:00:00:05++",
		"10.0.0.5/ff:ff:ff:ff:ff:ff", "10.0.0.5/01:00:5e:00:00:01",
		"10.0.0.5/00:00:00:00:00:00", "0.0.0.0/02:00:00:00:00:05",
		"255.255.255.255/02:00:00:00:00:05",
		"10.0.0.5/02:00:00:00:00:05 ", " 10.0.0.5/02:00:00:00:00:05",
		"10.0.0.5/02:00:00:00:00:05/x", "10.0.0.5 02:00:00:00:00:05",
		"10.0.0.5/02:00:00:00:00:0g", "10.0.0.5/02:00:00:00:00:005",
		"10.0.0.7/02:00:00:00:00:07+10.0.0.8",
		"10.0.0.1234567890123456789012345678901234567890123456789/"
		"02:00:00:00:00:05",
	};
	struct rte_ether_addr mac;
	struct rds_eth_neigh *n;
	unsigned int i;

	port_setup(16);
	for (i = 0; i < RTE_DIM(bad); i++) {
		CU_ASSERT_EQUAL(rds_eth_neigh_static(port.neigh, bad[i]),
				-EINVAL);
		if (rds_eth_neigh_static(port.neigh, bad[i]) != -EINVAL)
			printf("accepted: \"%s\"\n", bad[i]);
	}
	/* All or nothing: nothing of the bad specs went in. */
	CU_ASSERT_EQUAL(rds_eth_neigh_lookup(port.neigh, ip4("10.0.0.5"), NULL),
			-ENOENT);
	CU_ASSERT_EQUAL(rds_eth_neigh_lookup(port.neigh, ip4("10.0.0.7"), NULL),
			-ENOENT);
	CU_ASSERT_EQUAL(rds_eth_neigh_static(port.neigh, ""), 0);
	CU_ASSERT_EQUAL(rds_eth_neigh_static(port.neigh,
					     "10.0.0.5/02:00:00:00:00:0b+"
					     "10.0.0.6/0200:0000:000c"), 0);
	CU_ASSERT_EQUAL(rds_eth_neigh_resolve(eng, &port, ip4("10.0.0.1"),
					      ip4("10.0.0.5"), &mac), 0);
	CU_ASSERT(rte_is_same_ether_addr(&mac, &mac_b));
	CU_ASSERT_EQUAL(rds_eth_neigh_resolve(eng, &port, ip4("10.0.0.1"),
					      ip4("10.0.0.6"), &mac), 0);
	CU_ASSERT(rte_is_same_ether_addr(&mac, &mac_c));
	CU_ASSERT_EQUAL(nb_cap, 0);
	/* Static entries are not learned over (frames, ARP). */
	rds_eth_neigh_learn(eng, port.neigh, ip4("10.0.0.5"), &mac_c);
	rds_eth_arp_input(eng, &port, mk_arp(2, &mac_a, &mac_c, ip4("10.0.0.5"),
					     &mac_a, ip4("10.0.0.1")));
	CU_ASSERT_EQUAL(rds_eth_neigh_lookup(port.neigh, ip4("10.0.0.5"), &mac),
			1);
	CU_ASSERT(rte_is_same_ether_addr(&mac, &mac_b));
	CU_ASSERT_EQUAL(eeng.stats.neigh_changed, 0);
	/* A static entry replaces a learned one. */
	rds_eth_neigh_learn(eng, port.neigh, ip4("10.0.0.20"), &mac_b);
	CU_ASSERT_EQUAL(rds_eth_neigh_static(port.neigh,
					     "10.0.0.20/02:00:00:00:00:0c"), 0);
	CU_ASSERT_EQUAL(rds_eth_neigh_lookup(port.neigh, ip4("10.0.0.20"),
					     &mac), 1);
	CU_ASSERT(rte_is_same_ether_addr(&mac, &mac_c));
	port_teardown();

	/* A full table refuses, all or nothing. */
	n = rds_eth_neigh_create(2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(n);
	CU_ASSERT_EQUAL(rds_eth_neigh_static(n, "10.0.0.5/02:00:00:00:00:05+"
					     "10.0.0.6/02:00:00:00:00:06+"
					     "10.0.0.7/02:00:00:00:00:07"),
			-ENOSPC);
	CU_ASSERT_EQUAL(rds_eth_neigh_lookup(n, ip4("10.0.0.5"), NULL),
			-ENOENT);
	CU_ASSERT_EQUAL(rds_eth_neigh_static(n, "10.0.0.5/02:00:00:00:00:05+"
					     "10.0.0.6/02:00:00:00:00:06"), 0);
	/* Again (no new entries): fine. */
	CU_ASSERT_EQUAL(rds_eth_neigh_static(n, "10.0.0.5/02:00:00:00:00:05+"
					     "10.0.0.6/02:00:00:00:00:06"), 0);
	rds_eth_neigh_free(n);
}

void
test_neigh_full(void)
{
	struct rte_ether_addr mac;
	char ip[32];
	unsigned int i;

	port_setup(8);
	for (i = 0; i < 8; i++) {
		snprintf(ip, sizeof(ip), "10.1.0.%u", i + 1);
		CU_ASSERT_EQUAL(rds_eth_neigh_resolve(eng, &port,
						      ip4("10.0.0.1"), ip4(ip),
						      &mac), -EAGAIN);
	}
	CU_ASSERT_EQUAL(rds_eth_neigh_resolve(eng, &port, ip4("10.0.0.1"),
					      ip4("10.1.1.1"), &mac), -ENOSPC);
	/* learn() of a new peer in a full table: nothing (no crash). */
	rds_eth_neigh_learn(eng, port.neigh, ip4("10.1.1.2"), &mac_b);
	CU_ASSERT_EQUAL(rds_eth_neigh_lookup(port.neigh, ip4("10.1.1.2"), NULL),
			-ENOENT);
	/* The entries there still resolve. */
	rds_eth_neigh_learn(eng, port.neigh, ip4("10.1.0.3"), &mac_b);
	CU_ASSERT_EQUAL(rds_eth_neigh_resolve(eng, &port, ip4("10.0.0.1"),
					      ip4("10.1.0.3"), &mac), 0);
	CU_ASSERT_EQUAL(nb_cap, 8);
	port_teardown();
}

/* Readers on one thread, a writer on another flipping MACs: a reader
 * sees one of the MACs written, whole, and nothing breaks. */
#define RACE_IPS 64
static volatile bool race_stop;

static struct rte_ether_addr
race_mac(unsigned int ip, unsigned int v)
{
	struct rte_ether_addr m = {{ 0x02, 0x10, 0, 0, 0, 0 }};

	m.addr_bytes[2] = (uint8_t)ip;
	m.addr_bytes[3] = (uint8_t)(v * 0x55);
	m.addr_bytes[4] = (uint8_t)(v * 0x55);
	m.addr_bytes[5] = (uint8_t)(v * 0x55);
	return m;
}

static void *
race_writer(void *arg)
{
	struct rds_eth_neigh *n = arg;
	struct rte_ether_addr m;
	unsigned int k = 0;

	while (!__atomic_load_n(&race_stop, __ATOMIC_RELAXED)) {
		m = race_mac(k % RACE_IPS, (k / RACE_IPS) & 1);
		rds_eth_neigh_learn(NULL, n, htonl(0x0a020000u + k % RACE_IPS),
				    &m);
		k++;
	}
	return NULL;
}

void
test_neigh_concurrent(void)
{
	struct rte_ether_addr mac, m0, m1;
	uint64_t t0, reads = 0, bad = 0;
	unsigned int i;
	pthread_t th;
	int r;

	port_setup(RACE_IPS * 2);
	race_stop = false;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, race_writer,
					     port.neigh), 0);
	t0 = rte_get_tsc_cycles();
	while (rte_get_tsc_cycles() - t0 < rte_get_tsc_hz() / 5) {
		for (i = 0; i < RACE_IPS; i++) {
			r = rds_eth_neigh_lookup(port.neigh,
						 htonl(0x0a020000u + i), &mac);
			if (r != 1)
				continue;
			reads++;
			m0 = race_mac(i, 0);
			m1 = race_mac(i, 1);
			if (!rte_is_same_ether_addr(&mac, &m0) &&
			    !rte_is_same_ether_addr(&mac, &m1))
				bad++;
		}
	}
	__atomic_store_n(&race_stop, true, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	printf("(%" PRIu64 " reads) ", reads);
	CU_ASSERT(reads > 0);
	CU_ASSERT_EQUAL(bad, 0);
	port_teardown();
}


/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sending to many peers in turn (suite 'unit', binary unit_peers): the
 * caches in front of the hashes that a sender to several addresses goes
 * through on every message.
 *
 * - cong_cache: rds_cong_map_get() through its front cache
 *   (rds_cong_cache): for more addresses than it has slots, each call
 *   gives the one map of that address, the same one every time, and
 *   leaves it in its slot; rte_rds_fini() empties the cache (the maps
 *   it pointed to are freed).
 * - send_many_peers: two sockets on two local addresses send in turn to
 *   more loop addresses than the engine's connection cache has entries
 *   (RDS_CONN_CACHE), three rounds: every message arrives once, at the
 *   socket it was sent to, from the socket that sent it, with its own
 *   payload; one connection per (sender address, peer address).
 */

#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>

#include <CUnit/CUnit.h>

#include <rte_rds.h>

#include "rds_private.h"
#include "rds_test.h"

#define NB_PEERS (RDS_CONN_CACHE + 44)
#define NB_ADDRS (RDS_CONG_CACHE + 44)
#define PEER_PORT 7000
#define SEND_PORT 7001

static void
peer_ip(unsigned int i, char *buf, size_t size)
{
	snprintf(buf, size, "10.78.%u.%u", i / 200, i % 200 + 1);
}

static void
test_cong_cache(void)
{
	static struct rds_cong_map *maps[NB_ADDRS];
	struct rte_rds_conf conf;
	struct in6_addr a;
	unsigned int i, round, used = 0;
	char ip[32];

	rds_test_conf(&conf, RTE_RDS_ENGINE_INLINE, RTE_RDS_IDLE_BUSY);
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
	rte_rds_conf_free(&conf);
	for (round = 0; round < 2; round++)
		for (i = 0; i < NB_ADDRS; i++) {
			peer_ip(i, ip, sizeof(ip));
			rds_addr_from_v4(&a, inet_addr(ip));
			struct rds_cong_map *m = rds_cong_map_get(&a);

			CU_ASSERT_FATAL(m != NULL);
			CU_ASSERT(rds_addr_eq(&m->addr, &a));
			if (round == 0)
				maps[i] = m;
			CU_ASSERT_PTR_EQUAL(m, maps[i]);
			/* Found: now in its slot. */
			CU_ASSERT_PTR_EQUAL(
				rds_cong_cache[rds_cong_cache_slot(&a)], m);
		}
	/* More addresses than slots: they spread over most of them. */
	for (i = 0; i < RDS_CONG_CACHE; i++)
		used += rds_cong_cache[i] != NULL;
	printf("\n  %u addresses: %u of %u cache slots used\n", NB_ADDRS,
	       used, RDS_CONG_CACHE);
	CU_ASSERT(used > RDS_CONG_CACHE / 2);
	CU_ASSERT(rte_rds_fini() == 0);
	for (i = 0; i < RDS_CONG_CACHE; i++)
		CU_ASSERT_PTR_NULL(rds_cong_cache[i]);
}

static void
test_send_many_peers(void)
{
	static int peers[NB_PEERS];
	static const char *const src_ip[2] = { RDS_TEST_IP1, RDS_TEST_IP2 };
	struct sockaddr_in to, from, want;
	struct rte_rds_conf conf;
	struct rds_engine *e;
	uint32_t got[2], sent[2];
	int src[2], s;
	unsigned int i, j, round, bad = 0;
	char ip[32];

	rds_test_conf(&conf, RTE_RDS_ENGINE_INLINE, RTE_RDS_IDLE_BUSY);
	conf.max_sockets = NB_PEERS + 64;
	for (i = 0; i < NB_PEERS; i++) {
		peer_ip(i, ip, sizeof(ip));
		CU_ASSERT_FATAL(rte_rds_conf_add_addr(&conf, ip, "loop",
						      NULL) == 0);
	}
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
	rte_rds_conf_free(&conf);
	for (j = 0; j < 2; j++) {
		src[j] = rds_test_socket(src_ip[j], SEND_PORT, 0, 0);
		CU_ASSERT_FATAL(src[j] >= 0);
	}
	for (i = 0; i < NB_PEERS; i++) {
		peer_ip(i, ip, sizeof(ip));
		peers[i] = rds_test_socket(ip, PEER_PORT, 0, 0);
		CU_ASSERT_FATAL(peers[i] >= 0);
	}
	for (round = 0; round < 3; round++)
		for (i = 0; i < NB_PEERS; i++) {
			peer_ip(i, ip, sizeof(ip));
			to = rds_test_sin(ip, PEER_PORT);
			/* Both senders, then both messages: the peer's two
			 * connections used back to back. */
			for (j = 0; j < 2; j++) {
				sent[0] = round;
				sent[1] = i * 2 + j;
				if (rds_test_send(src[j], sent, sizeof(sent),
						  &to, MSG_DONTWAIT) !=
				    (ssize_t)sizeof(sent))
					bad++;
			}
			rds_test_kick_n(2);
			for (j = 0; j < 2; j++) {
				memset(got, 0xff, sizeof(got));
				if (rds_test_recv(peers[i], got, sizeof(got),
						  &from, MSG_DONTWAIT, NULL) !=
				    (ssize_t)sizeof(got)) {
					bad++;
					continue;
				}
				/* Sent in order on their connections; the
				 * two connections' order may differ. */
				want = rds_test_sin(src_ip[got[1] & 1],
						    SEND_PORT);
				if (got[0] != round || got[1] / 2 != i ||
				    !rds_test_sin_eq(&from, &want))
					bad++;
			}
			/* Nothing else for this peer. */
			if (rds_test_recv(peers[i], got, sizeof(got), NULL,
					  MSG_DONTWAIT, NULL) >= 0)
				bad++;
		}
	printf("\n  %u peers x 2 senders x 3 rounds: %u bad\n", NB_PEERS, bad);
	CU_ASSERT_EQUAL(bad, 0);
	/* One connection per (sender address, peer address), and the peers'
	 * own (loop: the receiving side of each). */
	e = rds_engine_get(0);
	CU_ASSERT_EQUAL(e->nb_conns, 4 * NB_PEERS);
	for (j = 0; j < 2; j++)
		CU_ASSERT(rte_rds_close(src[j]) == 0);
	for (i = 0; i < NB_PEERS; i++)
		CU_ASSERT(rte_rds_close(peers[i]) == 0);
	s = rte_rds_fini();
	CU_ASSERT_EQUAL(s, 0);
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "cong_cache", test_cong_cache },
		{ "send_many_peers", test_send_many_peers },
		{ NULL, NULL },
	};

	return rds_test_main("unit_peers", "0", cases);
}

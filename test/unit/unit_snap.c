/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Snapshot consistency (suite 'unit', binary unit_snap): a
 * snapshot reflects every call that returned before it was asked for.
 *
 * A send returns once its message is queued on the socket; the engine
 * takes it from there, stamps its sequence number and puts it on its
 * connection (creating the connection for the first one). A snapshot of
 * RDS_INFO_CONNECTIONS asked for after the send returned must therefore
 * show the connection, with next_tx_seq past that message, whatever the
 * engine was doing when the send and the snapshot came: this is checked
 * exactly after every one of many sends (no other thread sends on the
 * connection, so next_tx_seq is known).
 *
 * RDS_INFO_SEND_MESSAGES right after the same send lists the message on
 * its connection's send queue, unless the engine transmitted it already:
 * then the loop transport delivered it, and RDS_INFO_RECV_MESSAGES taken
 * next lists it at its receiver (which reads it only after the check).
 * (This one holds without the fix too, mostly: the engine may take and
 * transmit the message between the two snapshots. The CONNECTIONS check
 * is the one that catches a snapshot answered before the send was
 * taken: without the fix, about 1 in 1000 snapshots with the engine on
 * its own lcore, and about half with two engines when the socket's home
 * engine is inline.)
 *
 * RDS_INFO_SOCKETS: a socket made and bound shows, bound, in the next
 * snapshot.
 *
 * Configurations: one inline engine (the asking thread drives it); one
 * engine on its own lcore, busy with yield and with the sleep idle
 * policy (a send and a snapshot may both arrive while it sleeps, or
 * between the steps of one pass); two engines, one on its own lcore and
 * one inline, with a socket whose messages go to a connection of the
 * other engine than its own (handed over between engines).
 *
 *   RDS_TEST_SNAP_ITERS  sends per configuration (default 20000)
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <CUnit/CUnit.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_rds.h>

#include "rds_private.h"
#include "rds_test.h"

#define MAX_CONNS 64
#define PORT_A 7101
#define PORT_DST 7102

static const char *const dst_ips[] = { RDS_TEST_IP2, RDS_TEST_IP3,
				       RDS_TEST_IP4 };

static uint32_t
ip4(const char *ip)
{
	struct in_addr a;

	if (inet_pton(AF_INET, ip, &a) != 1)
		return 0;
	return a.s_addr;
}

static struct in6_addr
mapped(const char *ip)
{
	struct in6_addr a;

	rds_addr_from_v4(&a, ip4(ip));
	return a;
}

/* next_tx_seq of the connection laddr -> faddr in one snapshot; 0 when
 * it is not listed, -1 when the snapshot failed. */
static int64_t
conn_next_tx(const char *laddr, const char *faddr)
{
	static struct rds_info_connection c[MAX_CONNS];
	socklen_t len = sizeof(c);
	uint64_t tx;
	unsigned int i, n;
	int r;

	r = rte_rds_info(RDS_INFO_CONNECTIONS, c, &len);
	if (r != (int)sizeof(c[0])) {
		printf("  RDS_INFO_CONNECTIONS: %d (%s)\n", r,
		       rte_strerror(rte_errno));
		return -1;
	}
	n = len / sizeof(c[0]);
	for (i = 0; i < n; i++) {
		if (c[i].laddr != ip4(laddr) || c[i].faddr != ip4(faddr))
			continue;
		memcpy(&tx, &c[i].next_tx_seq, sizeof(tx));
		return (int64_t)tx;
	}
	return 0;
}

/*
 * Is the message seq from IP1:PORT_A to faddr:PORT_DST on its
 * connection's send queue, or (taken next) already delivered to its
 * receiver, which has not read it? 1 yes, 0 no, -1 a snapshot failed.
 * The loop transport delivers as it transmits: a message that left the
 * send queue between the two snapshots is in the second.
 */
static int
msg_sent_or_delivered(const char *faddr, uint64_t seq)
{
	static struct rds_info_message m[1024];
	static const int names[] = { RDS_INFO_SEND_MESSAGES,
				     RDS_INFO_RECV_MESSAGES };
	unsigned int i, k, n;
	socklen_t len;
	uint64_t sq;
	int r;

	for (k = 0; k < RTE_DIM(names); k++) {
		bool send = names[k] == RDS_INFO_SEND_MESSAGES;

		len = sizeof(m);
		r = rte_rds_info(names[k], m, &len);
		if (r != (int)sizeof(m[0])) {
			printf("  RDS_INFO %d: %d (%s)\n", names[k], r,
			       rte_strerror(rte_errno));
			return -1;
		}
		n = len / sizeof(m[0]);
		for (i = 0; i < n; i++) {
			memcpy(&sq, &m[i].seq, sizeof(sq));
			if (sq != seq)
				continue;
			if (send && m[i].laddr == ip4(RDS_TEST_IP1) &&
			    m[i].lport == htons(PORT_A) &&
			    m[i].faddr == ip4(faddr) &&
			    m[i].fport == htons(PORT_DST))
				return 1;
			if (!send && m[i].laddr == ip4(faddr) &&
			    m[i].lport == htons(PORT_DST) &&
			    m[i].faddr == ip4(RDS_TEST_IP1) &&
			    m[i].fport == htons(PORT_A))
				return 1;
		}
	}
	return 0;
}

static void
drain(const int *s, unsigned int n, uint64_t *got)
{
	uint8_t buf[64];
	unsigned int i;

	for (i = 0; i < n; i++)
		while (rds_test_recv(s[i], buf, sizeof(buf), NULL,
				     MSG_DONTWAIT, NULL) >= 0)
			(*got)++;
}

/*
 * Send iters messages from IP1:PORT_A, to the destinations of dsts[] in
 * turn, and take a CONNECTIONS snapshot after each send: the connection
 * must be there with next_tx_seq one past the messages sent to it.
 */
static void
run_conns(const char *what, const unsigned int *dsts, unsigned int nd,
	  uint64_t iters)
{
	struct sockaddr_in to[RTE_DIM(dst_ips)];
	int rx[RTE_DIM(dst_ips)];
	uint64_t sent[RTE_DIM(dst_ips)] = { 0 }, base[RTE_DIM(dst_ips)];
	uint64_t i, misses = 0, msg_misses = 0, got = 0, total = 0;
	struct rds_test_deadline dl;
	uint8_t msg[8] = { 0 };
	unsigned int k, d;
	int64_t tx;
	int a;
	ssize_t r;

	a = rds_test_socket(RDS_TEST_IP1, PORT_A, 0, 0);
	CU_ASSERT_FATAL(a >= 0);
	for (k = 0; k < RTE_DIM(dst_ips); k++) {
		to[k] = rds_test_sin(dst_ips[k], PORT_DST);
		rx[k] = rds_test_socket(dst_ips[k], PORT_DST, 0, 0);
		CU_ASSERT_FATAL(rx[k] >= 0);
		/* Connections outlive sockets: where this run starts. */
		tx = conn_next_tx(RDS_TEST_IP1, dst_ips[k]);
		CU_ASSERT_FATAL(tx >= 0);
		base[k] = tx == 0 ? 1 : (uint64_t)tx;
	}
	for (i = 0; i < iters; i++) {
		d = dsts[i % nd];
		rds_test_deadline_init(&dl, 10, 30);
		for (;;) {
			r = rds_test_send(a, msg, sizeof(msg), &to[d],
					  MSG_DONTWAIT);
			if (r == (ssize_t)sizeof(msg))
				break;
			if (r >= 0 || (rte_errno != EAGAIN &&
				       rte_errno != ENOBUFS)) {
				printf("  %s: send %" PRIu64 ": %s\n", what, i,
				       rte_strerror(rte_errno));
				CU_FAIL("send");
				goto out;
			}
			rds_test_kick();
			drain(rx, RTE_DIM(dst_ips), &got);
			if (rds_test_deadline_expired(&dl, "send room")) {
				CU_FAIL("no send room");
				goto out;
			}
		}
		sent[d]++;
		total++;
		tx = conn_next_tx(RDS_TEST_IP1, dst_ips[d]);
		if (tx < 0) {
			CU_FAIL("snapshot failed");
			goto out;
		}
		if ((uint64_t)tx != base[d] + sent[d]) {
			if (misses < 5)
				printf("  %s: after send %" PRIu64 " (%" PRIu64
				       " to %s) the snapshot shows %s, "
				       "next_tx_seq %" PRId64 "\n", what, i,
				       sent[d], dst_ips[d],
				       tx == 0 ? "no connection" :
				       "the connection", tx);
			misses++;
		}
		r = msg_sent_or_delivered(dst_ips[d], base[d] + sent[d] - 1);
		if (r < 0) {
			CU_FAIL("snapshot failed");
			goto out;
		}
		if (r == 0) {
			if (msg_misses < 5)
				printf("  %s: after send %" PRIu64 " (seq %"
				       PRIu64 " to %s) neither the send queue "
				       "nor the receiver's queue has it\n",
				       what, i, base[d] + sent[d] - 1,
				       dst_ips[d]);
			msg_misses++;
		}
		drain(rx, RTE_DIM(dst_ips), &got);
	}
	/* Everything arrives. */
	rds_test_deadline_init(&dl, 10, 30);
	while (got < total) {
		rds_test_kick();
		drain(rx, RTE_DIM(dst_ips), &got);
		if (rds_test_deadline_expired(&dl, "delivery"))
			break;
	}
	CU_ASSERT_EQUAL(got, total);
out:
	printf("  %s: %" PRIu64 " sends; snapshots that missed a send that "
	       "had returned: %" PRIu64 " of RDS_INFO_CONNECTIONS, %" PRIu64
	       " of RDS_INFO_SEND_MESSAGES\n", what, total, misses,
	       msg_misses);
	CU_ASSERT_EQUAL(misses, 0);
	CU_ASSERT_EQUAL(msg_misses, 0);
	CU_ASSERT(rte_rds_close(a) == 0);
	for (k = 0; k < RTE_DIM(dst_ips); k++)
		CU_ASSERT(rte_rds_close(rx[k]) == 0);
}

/* Sockets: made, bound, listed at once. */
static void
run_sockets(const char *what, unsigned int iters)
{
	static struct rds_info_socket sk[64];
	unsigned int i, j, n, misses = 0;
	socklen_t len;
	bool found;
	int s;

	for (i = 0; i < iters; i++) {
		s = rds_test_socket(RDS_TEST_IP3, (uint16_t)(8000 + i % 64),
				    0, 0);
		CU_ASSERT_FATAL(s >= 0);
		len = sizeof(sk);
		CU_ASSERT_EQUAL(rte_rds_info(RDS_INFO_SOCKETS, sk, &len),
				(int)sizeof(sk[0]));
		n = len / sizeof(sk[0]);
		found = false;
		for (j = 0; j < n; j++)
			if (sk[j].inum == (uint64_t)s &&
			    sk[j].bound_addr == ip4(RDS_TEST_IP3) &&
			    sk[j].bound_port == htons(8000 + i % 64))
				found = true;
		misses += !found;
		CU_ASSERT(rte_rds_close(s) == 0);
	}
	printf("  %s: %u sockets, %u snapshot(s) without the socket just "
	       "bound\n", what, iters, misses);
	CU_ASSERT_EQUAL(misses, 0);
}

static uint64_t
iters(void)
{
	return rds_test_env_u64("RDS_TEST_SNAP_ITERS", 20000);
}

static void
one_engine(const char *what, uint32_t lcore, enum rte_rds_idle_policy idle)
{
	static const unsigned int all[] = { 0, 1, 2 };
	struct rte_rds_conf conf;

	rds_test_conf(&conf, lcore, idle);
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
	printf("\n");
	run_sockets(what, 200);
	run_conns(what, all, RTE_DIM(all), iters());
	CU_ASSERT(rte_rds_fini() == 0);
}

static void
test_inline(void)
{
	rds_test_watchdog(300, "inline");
	one_engine("inline engine", RTE_RDS_ENGINE_INLINE, RTE_RDS_IDLE_YIELD);
	rds_test_watchdog(0, NULL);
}

static void
test_lcore_yield(void)
{
	unsigned int lc = rds_test_worker_lcore();

	if (lc >= RTE_MAX_LCORE) {
		printf("\n  SKIPPED: no worker lcore\n");
		return;
	}
	rds_test_watchdog(300, "lcore_yield");
	one_engine("engine on lcore, idle yield", lc, RTE_RDS_IDLE_YIELD);
	rds_test_watchdog(0, NULL);
}

static void
test_lcore_sleep(void)
{
	unsigned int lc = rds_test_worker_lcore();

	if (lc >= RTE_MAX_LCORE) {
		printf("\n  SKIPPED: no worker lcore\n");
		return;
	}
	rds_test_watchdog(300, "lcore_sleep");
	one_engine("engine on lcore, idle sleep", lc, RTE_RDS_IDLE_SLEEP);
	rds_test_watchdog(0, NULL);
}

/*
 * Two engines: 0 on a worker lcore, 1 inline. The socket's first message
 * goes to a destination whose connection is on one engine (its home from
 * then on); the others alternate with a destination on the other engine,
 * so they are handed over from one engine to the other.
 */
static void
test_two_engines(void)
{
	unsigned int lc = rds_test_worker_lcore(), k, home = 3, other = 3;
	struct in6_addr l = mapped(RDS_TEST_IP1), f;
	struct rte_rds_conf conf;
	unsigned int dsts[2];
	char what[96];

	if (lc >= RTE_MAX_LCORE) {
		printf("\n  SKIPPED: no worker lcore\n");
		return;
	}
	rds_test_watchdog(300, "two_engines");
	rds_test_conf(&conf, lc, RTE_RDS_IDLE_SLEEP);
	conf.nb_engines = 2;
	conf.engine[1].lcore_id = RTE_RDS_ENGINE_INLINE;
	conf.engine[1].idle = RTE_RDS_IDLE_YIELD;
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
	printf("\n");
	for (k = 0; k < RTE_DIM(dst_ips); k++) {
		f = mapped(dst_ips[k]);
		printf("  %s -> %s: engine %u\n", RDS_TEST_IP1, dst_ips[k],
		       rds_conn_engine_of(&l, &f));
	}
	/* Both directions of the hand-over: home on the lcore engine, then
	 * home on the inline one. */
	for (k = 0; k < 2; k++) {
		unsigned int j;

		home = other = RTE_DIM(dst_ips);
		for (j = 0; j < RTE_DIM(dst_ips); j++) {
			f = mapped(dst_ips[j]);
			if (rds_conn_engine_of(&l, &f) == k)
				home = home == RTE_DIM(dst_ips) ? j : home;
			else
				other = other == RTE_DIM(dst_ips) ? j : other;
		}
		if (home == RTE_DIM(dst_ips) || other == RTE_DIM(dst_ips)) {
			printf("  SKIPPED (home engine %u): the addresses do "
			       "not spread over both engines\n", k);
			continue;
		}
		dsts[0] = home;
		dsts[1] = other;
		snprintf(what, sizeof(what), "two engines, socket's home %s",
			 k == 0 ? "on the lcore" : "inline");
		run_conns(what, dsts, 2, iters());
	}
	CU_ASSERT(rte_rds_fini() == 0);
	rds_test_watchdog(0, NULL);
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "inline", test_inline },
		{ "lcore_yield", test_lcore_yield },
		{ "lcore_sleep", test_lcore_sleep },
		{ "two_engines", test_two_engines },
		{ NULL, NULL },
	};

	return rds_test_main("unit_snap", "0,1", cases);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unit_info (unit_info.c): the records of RDS_INFO_SOCKETS,
 * RDS_INFO_CONNECTIONS, RDS_INFO_RECV_MESSAGES and
 * RDS_INFO_RETRANS_MESSAGES (and their RDS6_INFO_* counterparts).
 */

#include "unit_info.h"

/* ------------------------------------------------------------------ */

static const struct rds_info_socket *
find_sock4(const struct rds_info_socket *r, unsigned int n, uint64_t inum)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (r[i].inum == inum)
			return &r[i];
	return NULL;
}

static const struct rds6_info_socket *
find_sock6(const struct rds6_info_socket *r, unsigned int n, uint64_t inum)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (r[i].inum == inum)
			return &r[i];
	return NULL;
}

void
test_sockets(void)
{
	struct sockaddr_in ba = rds_test_sin(RDS_TEST_IP2, 7402);
	const struct in6_addr any6 = IN6ADDR_ANY_INIT;
	struct in6_addr m1 = mapped(RDS_TEST_IP1), m2 = mapped(RDS_TEST_IP2);
	const struct rds_info_socket *ia, *ib, *iy, *iu;
	const struct rds6_info_socket *ja, *jb, *jy, *ju;
	struct rds_info_socket *s4;
	struct rds6_info_socket *s6;
	unsigned int n4, n6, i, j;
	int a, b, x, y, u, sndbuf = 10000;

	rds_test_watchdog(60, "sockets");
	CU_ASSERT_FATAL(lib_up() == 0);
	a = rds_test_socket(RDS_TEST_IP1, 7401, sndbuf, 0);
	b = rds_test_socket(RDS_TEST_IP2, 7402, 0, 30000);
	CU_ASSERT_FATAL(a >= 0 && b >= 0);
	CU_ASSERT(rte_rds_connect(a, (const struct sockaddr *)&ba,
				  sizeof(ba)) == 0);
	/* A socket bound, closed, and its slot taken by an unbound one:
	 * nothing of the old one may show. */
	x = rds_test_socket(RDS_TEST_IP3, 7403, 0, 0);
	CU_ASSERT_FATAL(x >= 0);
	CU_ASSERT(rte_rds_close(x) == 0);
	y = rte_rds_socket();
	u = rte_rds_socket();
	CU_ASSERT_FATAL(y >= 0 && u >= 0);
	printf("\n  sockets a=%d b=%d y=%d (slot of closed %d) u=%d\n", a, b,
	       y, x, u);

	s4 = snap(RDS_INFO_SOCKETS, &n4);
	s6 = snap(RDS6_INFO_SOCKETS, &n6);
	CU_ASSERT_EQUAL(n4, 4);
	CU_ASSERT_EQUAL(n6, n4);
	CU_ASSERT_FATAL(s4 != NULL && s6 != NULL);
	/* inum identifies a socket: distinct. */
	for (i = 0; i < n4; i++)
		for (j = i + 1; j < n4; j++)
			CU_ASSERT(s4[i].inum != s4[j].inum);
	/* The library's inum is the handle. */
	ia = find_sock4(s4, n4, (uint64_t)a);
	ib = find_sock4(s4, n4, (uint64_t)b);
	iy = find_sock4(s4, n4, (uint64_t)y);
	iu = find_sock4(s4, n4, (uint64_t)u);
	ja = find_sock6(s6, n6, (uint64_t)a);
	jb = find_sock6(s6, n6, (uint64_t)b);
	jy = find_sock6(s6, n6, (uint64_t)y);
	ju = find_sock6(s6, n6, (uint64_t)u);
	CU_ASSERT_FATAL(ia && ib && iy && iu && ja && jb && jy && ju);

	/* Bound: address and port in network order, buffers as set
	 * (the kernel reports rds_sk_sndbuf, half of what getsockopt
	 * says, i.e. the value set). */
	CU_ASSERT_EQUAL(ia->bound_addr, ip4(RDS_TEST_IP1));
	CU_ASSERT_EQUAL(ia->bound_port, htons(7401));
	CU_ASSERT_EQUAL(ia->sndbuf, (uint32_t)sndbuf);
	CU_ASSERT_EQUAL(ia->rcvbuf, DEF_BUF);
	CU_ASSERT_EQUAL(ia->connected_addr, ip4(RDS_TEST_IP2));
	CU_ASSERT_EQUAL(ia->connected_port, htons(7402));
	CU_ASSERT_EQUAL(ib->bound_addr, ip4(RDS_TEST_IP2));
	CU_ASSERT_EQUAL(ib->bound_port, htons(7402));
	CU_ASSERT_EQUAL(ib->sndbuf, DEF_BUF);
	CU_ASSERT_EQUAL(ib->rcvbuf, 30000);
	CU_ASSERT_EQUAL(ib->connected_addr, 0);
	CU_ASSERT_EQUAL(ib->connected_port, 0);
	/* Unbound: zeroes (also in the slot of a closed bound socket). */
	CU_ASSERT_EQUAL(iu->bound_addr, 0);
	CU_ASSERT_EQUAL(iu->bound_port, 0);
	CU_ASSERT_EQUAL(iy->bound_addr, 0);
	CU_ASSERT_EQUAL(iy->bound_port, 0);
	CU_ASSERT_EQUAL(iy->connected_port, 0);
	if (iy->bound_port != 0)
		printf("  unbound socket %d (reused slot) reports bound_port "
		       "%u\n", y, ntohs(iy->bound_port));

	/* RDS6: the same, v4-mapped. */
	CU_ASSERT(in6_eq(&ja->bound_addr, &m1));
	CU_ASSERT_EQUAL(ja->bound_port, htons(7401));
	CU_ASSERT_EQUAL(ja->sndbuf, (uint32_t)sndbuf);
	CU_ASSERT_EQUAL(ja->rcvbuf, DEF_BUF);
	CU_ASSERT(in6_eq(&ja->connected_addr, &m2));
	CU_ASSERT_EQUAL(ja->connected_port, htons(7402));
	CU_ASSERT(in6_eq(&jb->bound_addr, &m2));
	CU_ASSERT_EQUAL(jb->bound_port, htons(7402));
	CU_ASSERT_EQUAL(jb->rcvbuf, 30000);
	CU_ASSERT(in6_eq(&jb->connected_addr, &any6));
	CU_ASSERT(in6_eq(&ju->bound_addr, &any6));
	CU_ASSERT_EQUAL(ju->bound_port, 0);
	CU_ASSERT(in6_eq(&jy->bound_addr, &any6));
	CU_ASSERT_EQUAL(jy->bound_port, 0);
	CU_ASSERT(in6_eq(&jy->connected_addr, &any6));
	if (!in6_eq(&jy->bound_addr, &any6)) {
		char s[INET6_ADDRSTRLEN];

		{
			struct in6_addr t;

			memcpy(&t, &jy->bound_addr, sizeof(t));
			inet_ntop(AF_INET6, &t, s, sizeof(s));
		}
		printf("  RDS6: unbound socket %d (reused slot) reports "
		       "bound_addr %s\n", y, s);
	}
	free(s4);
	free(s6);

	/* Closing removes a socket from the list. */
	CU_ASSERT(rte_rds_close(u) == 0);
	CU_ASSERT_EQUAL(count(RDS_INFO_SOCKETS), 3);
	CU_ASSERT_EQUAL(count(RDS6_INFO_SOCKETS), 3);

	CU_ASSERT(rte_rds_close(a) == 0);
	CU_ASSERT(rte_rds_close(b) == 0);
	CU_ASSERT(rte_rds_close(y) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
	rds_test_watchdog(0, NULL);
}

/* ------------------------------------------------------------------ */

void
test_connections(void)
{
	struct sockaddr_in aa = rds_test_sin(RDS_TEST_IP1, 7501);
	struct sockaddr_in ba = rds_test_sin(RDS_TEST_IP2, 7502);
	struct in6_addr m1 = mapped(RDS_TEST_IP1), m2 = mapped(RDS_TEST_IP2);
	struct rds_info_connection *c4;
	struct rds6_info_connection *c6;
	uint8_t msg[64] = { 0 };
	unsigned int n4, n6, i, f12 = 0, f21 = 0, g12 = 0, g21 = 0;
	int a, b;

	rds_test_watchdog(60, "connections");
	CU_ASSERT_FATAL(lib_up() == 0);
	a = rds_test_socket(RDS_TEST_IP1, 7501, 0, 0);
	b = rds_test_socket(RDS_TEST_IP2, 7502, 0, 0);
	CU_ASSERT_FATAL(a >= 0 && b >= 0);
	CU_ASSERT_EQUAL(count(RDS_INFO_CONNECTIONS), 0);

	CU_ASSERT_EQUAL(rds_test_send(a, msg, 11, &ba, MSG_DONTWAIT), 11);
	CU_ASSERT_EQUAL(rds_test_send(a, msg, 12, &ba, MSG_DONTWAIT), 12);
	CU_ASSERT_EQUAL(rds_test_send(b, msg, 13, &aa, MSG_DONTWAIT), 13);
	CU_ASSERT_EQUAL(rds_test_wait_msg(b, msg, sizeof(msg),
					NULL, 10000), 11);
	CU_ASSERT_EQUAL(rds_test_wait_msg(b, msg, sizeof(msg),
					NULL, 10000), 12);
	CU_ASSERT_EQUAL(rds_test_wait_msg(a, msg, sizeof(msg),
					NULL, 10000), 13);
	CU_ASSERT(wait_all_acked());

	c4 = snap(RDS_INFO_CONNECTIONS, &n4);
	c6 = snap(RDS6_INFO_CONNECTIONS, &n6);
	printf("\n");
	CU_ASSERT_EQUAL(n4, 2);
	CU_ASSERT_EQUAL(n6, n4);
	for (i = 0; i < n4; i++) {
		char l[INET_ADDRSTRLEN], f[INET_ADDRSTRLEN];
		uint64_t tx, rx;

		memcpy(&tx, &c4[i].next_tx_seq, sizeof(tx));
		memcpy(&rx, &c4[i].next_rx_seq, sizeof(rx));
		inet_ntop(AF_INET, &c4[i].laddr, l, sizeof(l));
		inet_ntop(AF_INET, &c4[i].faddr, f, sizeof(f));
		printf("  %s -> %s %.16s tx %" PRIu64 " rx %" PRIu64
		       " flags 0x%x tos %u\n", l, f,
		       (const char *)c4[i].transport, tx, rx, c4[i].flags,
		       c4[i].tos);
		CU_ASSERT(memchr(c4[i].transport, '\0',
				 sizeof(c4[i].transport)) != NULL);
		/* The kernel's transport name (net/rds/loop.c t_name), so
		 * that rds-info prints the same. */
		CU_ASSERT_STRING_EQUAL((const char *)c4[i].transport,
				       "loopback");
		CU_ASSERT(c4[i].flags & RDS_INFO_CONNECTION_FLAG_CONNECTED);
		CU_ASSERT(!(c4[i].flags & RDS_INFO_CONNECTION_FLAG_CONNECTING));
		/* Everything was transmitted. */
		CU_ASSERT(!(c4[i].flags & RDS_INFO_CONNECTION_FLAG_SENDING));
		CU_ASSERT(tx > 1);
		CU_ASSERT(rx > 1);
		if (c4[i].laddr == ip4(RDS_TEST_IP1) &&
		    c4[i].faddr == ip4(RDS_TEST_IP2)) {
			f12++;
			CU_ASSERT_EQUAL(tx, 3);	/* two messages sent */
			CU_ASSERT_EQUAL(rx, 2);	/* one received */
		} else if (c4[i].laddr == ip4(RDS_TEST_IP2) &&
			   c4[i].faddr == ip4(RDS_TEST_IP1)) {
			f21++;
			CU_ASSERT_EQUAL(tx, 2);
			CU_ASSERT_EQUAL(rx, 3);
		}
	}
	CU_ASSERT_EQUAL(f12, 1);
	CU_ASSERT_EQUAL(f21, 1);
	for (i = 0; i < n6; i++) {
		uint64_t tx;

		memcpy(&tx, &c6[i].next_tx_seq, sizeof(tx));
		CU_ASSERT_STRING_EQUAL((const char *)c6[i].transport,
				       "loopback");
		CU_ASSERT(c6[i].flags & RDS_INFO_CONNECTION_FLAG_CONNECTED);
		CU_ASSERT(tx > 1);
		if (in6_eq(&c6[i].laddr, &m1) && in6_eq(&c6[i].faddr, &m2))
			g12++;
		else if (in6_eq(&c6[i].laddr, &m2) &&
			 in6_eq(&c6[i].faddr, &m1))
			g21++;
	}
	CU_ASSERT_EQUAL(g12, 1);
	CU_ASSERT_EQUAL(g21, 1);
	free(c4);
	free(c6);

	CU_ASSERT(rte_rds_close(a) == 0);
	CU_ASSERT(rte_rds_close(b) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
	rds_test_watchdog(0, NULL);
}

/* ------------------------------------------------------------------ */

void
test_recv_messages(void)
{
	struct sockaddr_in ba = rds_test_sin(RDS_TEST_IP2, 7602);
	struct in6_addr m1 = mapped(RDS_TEST_IP1), m2 = mapped(RDS_TEST_IP2);
	static const uint32_t lens[] = { 10, 20, 30 };
	struct rds_info_message *r4;
	struct rds6_info_message *r6;
	uint8_t msg[64] = { 0 };
	unsigned int n4, n6, i;
	uint64_t seq, prev = 0;
	int a, b, c;

	rds_test_watchdog(60, "recv_messages");
	CU_ASSERT_FATAL(lib_up() == 0);
	a = rds_test_socket(RDS_TEST_IP1, 7601, 0, 0);
	b = rds_test_socket(RDS_TEST_IP2, 7602, 0, 0);
	/* A bystander with nothing queued adds no records. */
	c = rds_test_socket(RDS_TEST_IP3, 7603, 0, 0);
	CU_ASSERT_FATAL(a >= 0 && b >= 0 && c >= 0);
	CU_ASSERT_EQUAL(count(RDS_INFO_RECV_MESSAGES), 0);

	for (i = 0; i < RTE_DIM(lens); i++)
		CU_ASSERT_EQUAL(rds_test_send(a, msg, lens[i], &ba,
					      MSG_DONTWAIT), (ssize_t)lens[i]);
	CU_ASSERT_FATAL(wait_queued(b, 3));

	r4 = snap(RDS_INFO_RECV_MESSAGES, &n4);
	r6 = snap(RDS6_INFO_RECV_MESSAGES, &n6);
	CU_ASSERT_EQUAL(n4, 3);
	CU_ASSERT_EQUAL(n6, 3);
	for (i = 0; i < n4 && i < 3; i++) {
		memcpy(&seq, &r4[i].seq, sizeof(seq));
		CU_ASSERT_EQUAL(r4[i].len, lens[i]);
		CU_ASSERT_EQUAL(r4[i].laddr, ip4(RDS_TEST_IP2));
		CU_ASSERT_EQUAL(r4[i].faddr, ip4(RDS_TEST_IP1));
		CU_ASSERT_EQUAL(r4[i].lport, htons(7602));
		CU_ASSERT_EQUAL(r4[i].fport, htons(7601));
		CU_ASSERT(seq > prev);
		prev = seq;
	}
	for (i = 0; i < n6 && i < 3; i++) {
		CU_ASSERT_EQUAL(r6[i].len, lens[i]);
		CU_ASSERT(in6_eq(&r6[i].laddr, &m2));
		CU_ASSERT(in6_eq(&r6[i].faddr, &m1));
		CU_ASSERT_EQUAL(r6[i].lport, htons(7602));
		CU_ASSERT_EQUAL(r6[i].fport, htons(7601));
		CU_ASSERT_EQUAL(memcmp(&r6[i].seq, &r4[i].seq, 8), 0);
	}
	free(r4);
	free(r6);

	/* MSG_PEEK leaves it queued, and listed. */
	CU_ASSERT_EQUAL(rds_test_recv(b, msg, sizeof(msg), NULL,
				      MSG_DONTWAIT | MSG_PEEK, NULL), 10);
	CU_ASSERT_EQUAL(count(RDS_INFO_RECV_MESSAGES), 3);
	/* Read one: two left, the first now 20 bytes. */
	CU_ASSERT_EQUAL(rds_test_recv(b, msg, sizeof(msg), NULL, MSG_DONTWAIT,
				      NULL), 10);
	r4 = snap(RDS_INFO_RECV_MESSAGES, &n4);
	CU_ASSERT_EQUAL(n4, 2);
	if (n4 >= 2) {
		CU_ASSERT_EQUAL(r4[0].len, 20);
		CU_ASSERT_EQUAL(r4[1].len, 30);
	}
	free(r4);
	CU_ASSERT_EQUAL(count(RDS6_INFO_RECV_MESSAGES), 2);
	/* Closing the receiver drops its queue from the list. */
	CU_ASSERT(rte_rds_close(b) == 0);
	CU_ASSERT_EQUAL(count(RDS_INFO_RECV_MESSAGES), 0);

	CU_ASSERT(rte_rds_close(a) == 0);
	CU_ASSERT(rte_rds_close(c) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
	rds_test_watchdog(0, NULL);
}

/* ------------------------------------------------------------------ */

/*
 * Messages sent and not yet acknowledged.
 *
 * The loop transport hands a frame to the peer connection at once, so
 * the only window is the delayed ACK: messages sent without
 * ACK_REQUIRED (the first max_unacked_packets - 1 of a connection, with
 * the send buffer under half full) are acknowledged by an ACK-only frame
 * RDS_DELAYED_ACK_US after arrival, and that frame is sent from the
 * engine's connection pass, which comes after the info requests in an
 * engine iteration. A snapshot that asks an inline engine runs exactly
 * one iteration and is answered in it after the engine took what the
 * sockets queued (a snapshot reflects every call that returned
 * before it) and before it transmits. So the first snapshot after the
 * sends finds the batch on the send queue and none of it awaiting an
 * ACK; its iteration transmits the batch, and the next snapshot finds
 * all of it on the retransmit queue and nothing on the send queue,
 * whatever the timing.
 */
static void
check_retrans_batch(int a, int b, uint16_t ap, uint16_t bp, bool v6,
		    uint64_t first_seq)
{
	struct sockaddr_in ba = rds_test_sin(RDS_TEST_IP2, bp);
	struct in6_addr m1 = mapped(RDS_TEST_IP1), m2 = mapped(RDS_TEST_IP2);
	static const uint32_t lens[] = { 100, 200, 300 };
	const int name = v6 ? RDS6_INFO_RETRANS_MESSAGES :
			      RDS_INFO_RETRANS_MESSAGES;
	union {
		struct rds_info_message m4[64];
		struct rds6_info_message m6[64];
	} u;
	uint8_t msg[512] = { 0 };
	uint64_t seq;
	unsigned int i;
	int n;

	for (i = 0; i < RTE_DIM(lens); i++)
		CU_ASSERT_EQUAL(rds_test_send(a, msg, lens[i], &ba,
					      MSG_DONTWAIT), (ssize_t)lens[i]);
	/* Served after the engine took the batch from the socket and
	 * before it transmits it (this call's iteration then does). */
	n = fill(v6 ? RDS6_INFO_SEND_MESSAGES : RDS_INFO_SEND_MESSAGES, &u,
		 64);
	printf("  %s: %d message(s) on the send queue right after the "
	       "sends\n", v6 ? "RDS6_INFO_SEND_MESSAGES" :
	       "RDS_INFO_SEND_MESSAGES", n);
	CU_ASSERT_EQUAL(n, 3);
	for (i = 0; n > 0 && i < (unsigned int)n && i < 3; i++) {
		if (v6)
			memcpy(&seq, &u.m6[i].seq, sizeof(seq));
		else
			memcpy(&seq, &u.m4[i].seq, sizeof(seq));
		CU_ASSERT_EQUAL(seq, first_seq + i);
		CU_ASSERT_EQUAL(v6 ? u.m6[i].len : u.m4[i].len, lens[i]);
	}
	/* Served at the start of the next iteration: all three sent,
	 * none acknowledged. */
	n = fill(name, &u, 64);
	printf("  %s: %d message(s) awaiting an ACK\n",
	       v6 ? "RDS6_INFO_RETRANS_MESSAGES" : "RDS_INFO_RETRANS_MESSAGES",
	       n);
	CU_ASSERT_EQUAL(n, 3);
	for (i = 0; n > 0 && i < (unsigned int)n && i < 3; i++) {
		if (v6) {
			struct rds6_info_message *m = &u.m6[i];

			memcpy(&seq, &m->seq, sizeof(seq));
			CU_ASSERT_EQUAL(m->len, lens[i]);
			CU_ASSERT(in6_eq(&m->laddr, &m1));
			CU_ASSERT(in6_eq(&m->faddr, &m2));
			CU_ASSERT_EQUAL(m->lport, htons(ap));
			CU_ASSERT_EQUAL(m->fport, htons(bp));
			CU_ASSERT_EQUAL(m->flags & RDS_INFO_MESSAGE_FLAG_ACK, 0);
		} else {
			struct rds_info_message *m = &u.m4[i];

			memcpy(&seq, &m->seq, sizeof(seq));
			CU_ASSERT_EQUAL(m->len, lens[i]);
			CU_ASSERT_EQUAL(m->laddr, ip4(RDS_TEST_IP1));
			CU_ASSERT_EQUAL(m->faddr, ip4(RDS_TEST_IP2));
			CU_ASSERT_EQUAL(m->lport, htons(ap));
			CU_ASSERT_EQUAL(m->fport, htons(bp));
			CU_ASSERT_EQUAL(m->flags & RDS_INFO_MESSAGE_FLAG_ACK, 0);
		}
		CU_ASSERT_EQUAL(seq, first_seq + i);
	}
	CU_ASSERT_EQUAL(fill(v6 ? RDS6_INFO_SEND_MESSAGES :
			     RDS_INFO_SEND_MESSAGES, &u, 64), 0);
	/* The delayed ACK comes: nothing left. */
	CU_ASSERT(wait_all_acked());
	for (i = 0; i < RTE_DIM(lens); i++)
		CU_ASSERT_EQUAL(rds_test_wait_msg(b, msg, sizeof(msg),
						NULL, 10000),
				(ssize_t)lens[i]);
}

void
test_retrans_messages(void)
{
	int a, b;

	struct rte_rds_loop_faults wire = { .explicit_ack = 1 };

	rds_test_watchdog(60, "retrans_messages");
	CU_ASSERT_FATAL(lib_up() == 0);
	/* Acknowledged by ACK frames, as on a wire: without that the loop
	 * transport counts a delivered message acknowledged at once. */
	CU_ASSERT_FATAL(rte_rds_loop_set_faults(&wire) == 0);
	a = rds_test_socket(RDS_TEST_IP1, 7701, 0, 0);
	b = rds_test_socket(RDS_TEST_IP2, 7702, 0, 0);
	CU_ASSERT_FATAL(a >= 0 && b >= 0);
	printf("\n");
	check_retrans_batch(a, b, 7701, 7702, false, 1);
	/* Messages 4..6 of the connection: still no ACK_REQUIRED (the
	 * 8th is the first to carry it). */
	check_retrans_batch(a, b, 7701, 7702, true, 4);
	CU_ASSERT(rte_rds_close(a) == 0);
	CU_ASSERT(rte_rds_close(b) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
	rds_test_watchdog(0, NULL);
}

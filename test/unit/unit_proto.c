/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the protocol core, through a capture transport defined
 * here: every frame the core transmits is recorded, and frames are fed
 * back with rds_recv_frame() as a peer would send them. Covers
 * sequencing, the ACK_REQUIRED policy, ACK release, retransmission after
 * a reset, the duplicate rule, pings, unbound ports, congestion maps and
 * hysteresis, malformed frames, the reconnect backoff and the engine's
 * connection cache.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>

#include <CUnit/CUnit.h>

#include "rds_test.h"
#include "rds_private.h"

#define CAP_TRANS_ID 0x7f
#define CAP_MAX 512
#define LOCAL_IP "10.255.0.1"
#define PEER_IP "10.9.9.9"

struct cap_frame {
	struct rds_hdr_info h;
	uint32_t len;
	uint8_t data[RDS_CONG_MAP_BYTES];
};

static struct {
	struct cap_frame f[CAP_MAX];
	unsigned int n;
	unsigned int room;	/* frames accepted before -EAGAIN */
	int connect_err;	/* returned by connect when non-zero */
	unsigned int connects;
	unsigned int shutdowns;
} cap;

static int
cap_record(const struct rds_header *h, const void *data, uint32_t len)
{
	struct cap_frame *f;

	if (cap.n >= cap.room || cap.n >= CAP_MAX)
		return -EAGAIN;
	f = &cap.f[cap.n++];
	CU_ASSERT_FATAL(rds_hdr_decode(h, sizeof(*h), &f->h, NULL) == 0);
	f->len = len;
	if (len != 0)
		memcpy(f->data, data, RTE_MIN(len, (uint32_t)sizeof(f->data)));
	return 0;
}

static int
cap_connect(struct rds_conn *c)
{
	cap.connects++;
	if (cap.connect_err != 0)
		return cap.connect_err;
	rds_conn_connect_complete(c);
	return 0;
}

static void
cap_shutdown(struct rds_conn *c)
{
	RTE_SET_USED(c);
	cap.shutdowns++;
}

static int
cap_xmit(struct rds_conn *c, struct rds_msg *m)
{
	struct rds_header h;

	uint64_t ack;
	int ret;

	if (cap.n >= cap.room)
		return -EAGAIN;
	ack = rds_msg_hdr(c, m, &h);
	ret = cap_record(&h, rds_msg_data(m), m->len);
	if (ret == 0)
		rds_conn_ack_sent(c, ack);
	return ret;
}

static int
cap_xmit_ack(struct rds_conn *c)
{
	struct rds_header h;

	uint64_t ack;
	int ret;

	if (cap.n >= cap.room)
		return -EAGAIN;
	ack = rds_ack_hdr(c, &h);
	ret = cap_record(&h, NULL, 0);
	if (ret == 0)
		rds_conn_ack_sent(c, ack);
	return ret;
}

static const struct rds_transport cap_transport = {
	.name = "capture",
	.trans_id = CAP_TRANS_ID,
	.conn_connect = cap_connect,
	.conn_shutdown = cap_shutdown,
	.xmit = cap_xmit,
	.xmit_ack = cap_xmit_ack,
};

RDS_TRANSPORT_REGISTER(cap_transport);

/* ------------------------------------------------------------------ */

static struct rds_sock *
sock_body(int s)
{
	return rds_slot_of(s)->body;
}

/* The reconnect backoff ends now. */
static void
skip_backoff(struct rds_conn *c)
{
	rds_timer_cancel(c->eng, &c->conn_timer);
	c->reconnect_due = true;
	rds_conn_ready(c);
}

static struct sockaddr_in peer_sin(uint16_t port)
{
	return rds_test_sin(PEER_IP, port);
}

static void
setup(void)
{
	struct rte_rds_conf conf;

	memset(&cap, 0, sizeof(cap));
	cap.room = CAP_MAX;
	rte_rds_conf_init(&conf);
	conf.engine[0].lcore_id = RTE_RDS_ENGINE_INLINE;
	CU_ASSERT_FATAL(rte_rds_conf_add_addr(&conf, LOCAL_IP, "capture",
					      NULL) == 0);
	CU_ASSERT_FATAL(rte_rds_conf_add_addr(&conf, "10.255.0.2", "loop",
					      NULL) == 0);
	CU_ASSERT_FATAL(rte_rds_init(&conf) == 0);
}

static void
teardown(void)
{
	CU_ASSERT(rte_rds_fini() == 0);
}

static void
poll_n(unsigned int n)
{
	while (n-- > 0)
		rte_rds_engine_poll(0);
}

static struct rds_conn *
peer_conn(void)
{
	struct rds_conn_key k;

	memset(&k, 0, sizeof(k));
	rds_addr_from_v4(&k.laddr, inet_addr(LOCAL_IP));
	rds_addr_from_v4(&k.faddr, inet_addr(PEER_IP));
	k.trans_id = CAP_TRANS_ID;
	return rds_conn_lookup(rds_engine_get(0), &k);
}

/* Feed a frame from the peer into our connection. */
static int
feed(uint64_t seq, uint64_t ack, uint16_t sport, uint16_t dport,
     uint8_t flags, const void *data, uint32_t len)
{
	struct rds_header h;

	rds_hdr_encode(&h, seq, ack, len, sport, dport, flags, 0);
	return rds_recv_frame(peer_conn(), &h, data, len);
}

/* Index of the n-th captured data frame (not ACK-only, not a map). */
static int
data_frame(unsigned int nth)
{
	unsigned int i;

	for (i = 0; i < cap.n; i++) {
		const struct rds_hdr_info *h = &cap.f[i].h;

		if (h->flags == RDS_FLAG_CONG_BITMAP)
			continue;
		if (h->sport == 0 && h->dport == 0 && h->len == 0)
			continue;
		if (nth-- == 0)
			return (int)i;
	}
	return -1;
}

static unsigned int
count_maps(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < cap.n; i++)
		if (cap.f[i].h.flags == RDS_FLAG_CONG_BITMAP)
			n++;
	return n;
}

static int
sock_on(uint16_t port, int sndbuf, int rcvbuf)
{
	int s = rds_test_socket(LOCAL_IP, port, sndbuf, rcvbuf);

	CU_ASSERT_FATAL(s >= 0);
	return s;
}

static void
send_n(int s, uint16_t dport, unsigned int n, size_t len)
{
	struct sockaddr_in to = peer_sin(dport);
	uint8_t buf[4096];
	unsigned int i;

	memset(buf, 0xab, sizeof(buf));
	for (i = 0; i < n; i++)
		CU_ASSERT_EQUAL(rds_test_send(s, buf, len, &to, MSG_DONTWAIT),
				(ssize_t)len);
}

/* ------------------------------------------------------------------ */

static void
test_sequence_and_map_on_connect(void)
{
	int s, i0, i1, i2;

	setup();
	s = sock_on(4000, 0, 0);
	send_n(s, 5000, 3, 100);
	poll_n(2);
	CU_ASSERT_EQUAL(cap.connects, 1);
	/* The first thing on a new connection is our congestion map,
	 * unsequenced, exactly CONG_BITMAP, 8 KiB. */
	CU_ASSERT_FATAL(cap.n >= 4);
	CU_ASSERT_EQUAL(cap.f[0].h.flags, RDS_FLAG_CONG_BITMAP);
	CU_ASSERT_EQUAL(cap.f[0].h.len, RDS_CONG_MAP_BYTES);
	CU_ASSERT_EQUAL(cap.f[0].h.seq, 0);
	i0 = data_frame(0);
	i1 = data_frame(1);
	i2 = data_frame(2);
	CU_ASSERT_FATAL(i0 > 0 && i1 > i0 && i2 > i1);
	/* Sequence numbers start at 1 and go up by one. */
	CU_ASSERT_EQUAL(cap.f[i0].h.seq, 1);
	CU_ASSERT_EQUAL(cap.f[i1].h.seq, 2);
	CU_ASSERT_EQUAL(cap.f[i2].h.seq, 3);
	CU_ASSERT_EQUAL(cap.f[i0].h.sport, 4000);
	CU_ASSERT_EQUAL(cap.f[i0].h.dport, 5000);
	CU_ASSERT_EQUAL(cap.f[i0].h.len, 100);
	CU_ASSERT_EQUAL(cap.f[i0].data[99], 0xab);
	CU_ASSERT_EQUAL(cap.f[i0].h.flags & RDS_FLAG_RETRANSMITTED, 0);
	CU_ASSERT_EQUAL(sock_body(s)->snd_bytes, 300);
	teardown();
}

static void
test_ack_required_policy(void)
{
	unsigned int i, with = 0;
	int s, idx;

	setup();
	/* A large send buffer: only the every-8-messages rule applies. */
	s = sock_on(4000, 8 << 20, 0);
	send_n(s, 5000, 16, 10);
	poll_n(2);
	for (i = 0; i < 16; i++) {
		idx = data_frame(i);
		CU_ASSERT_FATAL(idx >= 0);
		if (cap.f[idx].h.flags & RDS_FLAG_ACK_REQUIRED) {
			with++;
			/* every 8th message (8, 16) */
			CU_ASSERT_EQUAL(cap.f[idx].h.seq % 8, 0);
		}
	}
	CU_ASSERT_EQUAL(with, 2);
	rte_rds_close(s);

	/* A small send buffer: at half of it every message asks. */
	cap.n = 0;
	s = sock_on(4001, 4096, 0);
	send_n(s, 5000, 3, 1500);
	poll_n(2);
	idx = data_frame(1);	/* 3000 >= 4096 / 2 */
	CU_ASSERT_FATAL(idx >= 0);
	CU_ASSERT(cap.f[idx].h.flags & RDS_FLAG_ACK_REQUIRED);
	teardown();
}

static void
test_ack_release(void)
{
	struct rds_conn *c;
	struct rds_msg *m;
	int s, n = 0;

	setup();
	s = sock_on(4000, 0, 0);
	send_n(s, 5000, 5, 1000);
	poll_n(2);
	c = peer_conn();
	CU_ASSERT_FATAL(c != NULL);
	TAILQ_FOREACH(m, &c->retrans_q, link)
		n++;
	CU_ASSERT_EQUAL(n, 5);
	CU_ASSERT_EQUAL(sock_body(s)->snd_bytes, 5000);
	/* An ACK-only frame acknowledging 3 releases 1..3, in order. */
	CU_ASSERT_EQUAL(feed(0, 3, 0, 0, 0, NULL, 0), 0);
	n = 0;
	TAILQ_FOREACH(m, &c->retrans_q, link)
		n++;
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT_EQUAL(TAILQ_FIRST(&c->retrans_q)->seq, 4);
	CU_ASSERT_EQUAL(sock_body(s)->snd_bytes, 2000);
	/* An ACK piggybacked on a data frame releases the rest. */
	CU_ASSERT_EQUAL(feed(1, 5, 6000, 9999, 0, "x", 1), 0);
	CU_ASSERT(TAILQ_EMPTY(&c->retrans_q));
	CU_ASSERT_EQUAL(sock_body(s)->snd_bytes, 0);
	CU_ASSERT_EQUAL(rds_test_stats().s_send_acked, 5);
	CU_ASSERT_EQUAL(rds_test_stats().s_recv_ack, 1);
	teardown();
}

static void
test_retransmit_after_reset(void)
{
	struct rds_conn *c;
	unsigned int i, first;
	int s, idx;

	setup();
	s = sock_on(4000, 0, 0);
	send_n(s, 5000, 4, 10);
	poll_n(2);
	c = peer_conn();
	CU_ASSERT_FATAL(c != NULL);
	CU_ASSERT_EQUAL(feed(0, 2, 0, 0, 0, NULL, 0), 0);	/* 1, 2 acked */
	send_n(s, 5000, 1, 10);				/* 5: not sent yet */
	first = cap.n;
	rds_conn_drop(c);
	CU_ASSERT_EQUAL(c->state, RDS_CONN_DOWN);
	CU_ASSERT_EQUAL(cap.shutdowns, 1);
	poll_n(3);
	CU_ASSERT_EQUAL(c->state, RDS_CONN_UP);
	CU_ASSERT_EQUAL(cap.connects, 2);
	/* 3 and 4 go again, marked, before 5, which is not marked. */
	for (i = 0; i < 3; i++) {
		idx = data_frame(4 + i);
		CU_ASSERT_FATAL(idx >= (int)first);
		CU_ASSERT_EQUAL(cap.f[idx].h.seq, 3 + i);
		if (i < 2) {
			CU_ASSERT_EQUAL(cap.f[idx].h.flags &
				(RDS_FLAG_RETRANSMITTED | RDS_FLAG_ACK_REQUIRED),
				RDS_FLAG_RETRANSMITTED | RDS_FLAG_ACK_REQUIRED);
		} else {
			CU_ASSERT_EQUAL(cap.f[idx].h.flags &
					RDS_FLAG_RETRANSMITTED, 0);
		}
	}
	CU_ASSERT(rds_test_stats().s_send_retransmit >= 2);
	CU_ASSERT_EQUAL(rds_test_stats().s_conn_reset, 1);
	teardown();
}

static void
test_receive_dup_rule_and_ack(void)
{
	struct sockaddr_in from;
	char buf[64];
	int s, idx;

	setup();
	s = sock_on(4000, 0, 0);
	send_n(s, 5000, 1, 4);	/* creates the connection */
	poll_n(2);
	CU_ASSERT_EQUAL(feed(5, 0, 6000, 4000, 0, "five", 4), 0);
	/* A retransmitted duplicate is dropped ... */
	CU_ASSERT_EQUAL(feed(5, 0, 6000, 4000, RDS_FLAG_RETRANSMITTED,
			     "five", 4), 0);
	CU_ASSERT_EQUAL(rds_test_stats().s_recv_drop_old_seq, 1);
	/* ... an old one that is not marked is not (gaps from cancels). */
	CU_ASSERT_EQUAL(feed(4, 0, 6000, 4000, 0, "four", 4), 0);
	CU_ASSERT_EQUAL(feed(6, 0, 6000, 4000, RDS_FLAG_ACK_REQUIRED,
			     "six!", 4), 0);
	CU_ASSERT_EQUAL(rds_test_recv(s, buf, sizeof(buf), &from,
				      MSG_DONTWAIT, NULL), 4);
	CU_ASSERT_NSTRING_EQUAL(buf, "five", 4);
	CU_ASSERT_EQUAL(ntohs(from.sin_port), 6000);
	CU_ASSERT_EQUAL(from.sin_addr.s_addr, inet_addr(PEER_IP));
	CU_ASSERT_EQUAL(rds_test_recv(s, buf, sizeof(buf), NULL, MSG_DONTWAIT,
				      NULL), 4);
	CU_ASSERT_NSTRING_EQUAL(buf, "four", 4);
	CU_ASSERT_EQUAL(rds_test_recv(s, buf, sizeof(buf), NULL, MSG_DONTWAIT,
				      NULL), 4);
	CU_ASSERT_NSTRING_EQUAL(buf, "six!", 4);
	CU_ASSERT_EQUAL(rds_test_recv(s, buf, sizeof(buf), NULL, MSG_DONTWAIT,
				      NULL), -1);
	CU_ASSERT_EQUAL(rte_errno, EAGAIN);
	/* ACK_REQUIRED: an ACK-only frame for 6 goes out at the next poll. */
	cap.n = 0;
	poll_n(1);
	CU_ASSERT_FATAL(cap.n >= 1);
	CU_ASSERT_EQUAL(cap.f[cap.n - 1].h.ack, 6);
	CU_ASSERT_EQUAL(cap.f[cap.n - 1].h.len, 0);
	CU_ASSERT_EQUAL(cap.f[cap.n - 1].h.sport, 0);
	CU_ASSERT_EQUAL(cap.f[cap.n - 1].h.dport, 0);
	/* ... and the next data frame carries it too. */
	cap.n = 0;
	send_n(s, 5000, 1, 4);
	poll_n(1);
	idx = data_frame(0);
	CU_ASSERT_FATAL(idx >= 0);
	CU_ASSERT_EQUAL(cap.f[idx].h.ack, 6);
	teardown();
}

/* A peer that restarts numbers from 1 again: the ACK names what the new
 * incarnation sent, never the old incarnation's higher sequence (which
 * would acknowledge the new one's next messages before they came). */
static void
test_ack_after_peer_restart(void)
{
	char buf[64];
	int s;

	setup();
	s = sock_on(4000, 0, 0);
	send_n(s, 5000, 1, 4);	/* creates the connection */
	poll_n(2);
	CU_ASSERT_EQUAL(feed(1, 0, 6000, 4000, 0, "one", 3), 0);
	CU_ASSERT_EQUAL(feed(2, 0, 6000, 4000, 0, "two", 3), 0);
	CU_ASSERT_EQUAL(feed(3, 0, 6000, 4000, RDS_FLAG_ACK_REQUIRED, "thr",
			     3), 0);
	cap.n = 0;
	poll_n(1);
	CU_ASSERT_FATAL(cap.n >= 1);
	CU_ASSERT_EQUAL(cap.f[cap.n - 1].h.ack, 3);
	/* The restarted peer's first message. */
	CU_ASSERT_EQUAL(feed(1, 0, 6000, 4000, RDS_FLAG_ACK_REQUIRED, "new",
			     3), 0);
	cap.n = 0;
	poll_n(1);
	CU_ASSERT_FATAL(cap.n >= 1);
	CU_ASSERT_EQUAL(cap.f[cap.n - 1].h.ack, 1);
	while (rds_test_recv(s, buf, sizeof(buf), NULL, MSG_DONTWAIT,
			     NULL) >= 0)
		;
	teardown();
}

static void
test_ping_and_unbound(void)
{
	int s, idx;

	setup();
	s = sock_on(4000, 0, 0);
	send_n(s, 5000, 1, 0);
	poll_n(2);
	cap.n = 0;
	/* A ping (dport 0) is answered with a zero-length pong from port 0
	 * to the ping's source port, sequenced like any message. */
	CU_ASSERT_EQUAL(feed(1, 0, 7777, 0, 0, NULL, 0), 0);
	poll_n(1);
	idx = data_frame(0);
	CU_ASSERT_FATAL(idx >= 0);
	CU_ASSERT_EQUAL(cap.f[idx].h.sport, 0);
	CU_ASSERT_EQUAL(cap.f[idx].h.dport, 7777);
	CU_ASSERT_EQUAL(cap.f[idx].h.len, 0);
	CU_ASSERT_EQUAL(cap.f[idx].h.seq, 2);
	CU_ASSERT_EQUAL(rds_test_stats().s_recv_ping, 1);
	/* A ping from port 0 is not answered. */
	cap.n = 0;
	CU_ASSERT_EQUAL(feed(2, 0, 0, 0, RDS_FLAG_ACK_REQUIRED, "p", 1), 0);
	poll_n(1);
	CU_ASSERT_EQUAL(data_frame(0), -1);
	/* A message to an unbound port vanishes, counted. */
	CU_ASSERT_EQUAL(feed(3, 0, 7777, 4321, 0, "lost", 4), 0);
	CU_ASSERT_EQUAL(rds_test_stats().s_recv_drop_no_sock, 1);
	CU_ASSERT_EQUAL(sock_body(s)->rcv_bytes, 0);
	teardown();
}

static void
test_malformed_frames(void)
{
	struct rds_header h;
	int s;

	setup();
	s = sock_on(4000, 0, 0);
	send_n(s, 5000, 1, 0);
	poll_n(2);
	rds_hdr_encode(&h, 1, 0, 4, 6000, 4000, 0, 0);
	h.h_sport ^= 0x0100;	/* corrupt after the checksum */
	CU_ASSERT_EQUAL(rds_recv_frame(peer_conn(), &h, "abcd", 4), -EBADMSG);
	/* Length in the header and payload disagree. */
	rds_hdr_encode(&h, 1, 0, 5, 6000, 4000, 0, 0);
	CU_ASSERT_EQUAL(rds_recv_frame(peer_conn(), &h, "abcd", 4), -EBADMSG);
	/* A congestion map of the wrong size. */
	rds_hdr_encode(&h, 0, 0, 4, 0, 0, RDS_FLAG_CONG_BITMAP, 0);
	CU_ASSERT_EQUAL(rds_recv_frame(peer_conn(), &h, "abcd", 4), -EBADMSG);
	CU_ASSERT_EQUAL(rds_test_stats().s_recv_drop_bad_hdr, 3);
	CU_ASSERT_EQUAL(rds_test_stats().s_recv_delivered, 0);
	/* Nothing moved: the next good frame (seq 1) is delivered. */
	CU_ASSERT_EQUAL(feed(1, 0, 6000, 4000, 0, "good", 4), 0);
	CU_ASSERT_EQUAL(rds_test_stats().s_recv_delivered, 1);
	teardown();
}

static void
test_remote_congestion(void)
{
	static uint8_t map[RDS_CONG_MAP_BYTES];
	struct sockaddr_in to = peer_sin(5000);
	int s;

	setup();
	s = sock_on(4000, 0, 0);
	send_n(s, 5000, 1, 0);
	poll_n(2);
	/* The peer says port 5000 is congested: bit 5000 in little-endian
	 * bit order is bit 0 of byte 625. */
	memset(map, 0, sizeof(map));
	map[5000 / 8] = 1 << (5000 % 8);
	CU_ASSERT_EQUAL(feed(0, 0, 0, 0, RDS_FLAG_CONG_BITMAP, map,
			     sizeof(map)), 0);
	CU_ASSERT_EQUAL(rds_test_stats().s_recv_cong_map, 1);
	CU_ASSERT_EQUAL(rds_test_send(s, "x", 1, &to, MSG_DONTWAIT), -1);
	CU_ASSERT_EQUAL(rte_errno, ENOBUFS);
	to.sin_port = htons(5001);	/* other ports are fine */
	CU_ASSERT_EQUAL(rds_test_send(s, "x", 1, &to, MSG_DONTWAIT), 1);
	/* The map is not sequenced: the next message 1 is still new. */
	CU_ASSERT_EQUAL(peer_conn()->next_rx_seq, 0);
	memset(map, 0, sizeof(map));
	CU_ASSERT_EQUAL(feed(0, 0, 0, 0, RDS_FLAG_CONG_BITMAP, map,
			     sizeof(map)), 0);
	to.sin_port = htons(5000);
	CU_ASSERT_EQUAL(rds_test_send(s, "x", 1, &to, MSG_DONTWAIT), 1);
	teardown();
}

static void
test_local_congestion_hysteresis(void)
{
	struct rds_cong_map *lmap;
	struct in6_addr la;
	uint8_t payload[1000];
	char buf[1000];
	uint64_t seq = 1;
	unsigned int maps, i;
	int s, r;

	setup();
	s = sock_on(4000, 0, 10000);	/* rcvbuf 10000 */
	send_n(s, 5000, 1, 0);
	poll_n(2);
	rds_addr_from_v4(&la, inet_addr(LOCAL_IP));
	lmap = rds_cong_map_get(&la);
	memset(payload, 1, sizeof(payload));
	/* 10 x 1000 bytes: at the limit, not over it. */
	for (i = 0; i < 10; i++)
		CU_ASSERT_EQUAL(feed(seq++, 0, 6000, 4000, 0, payload, 1000),
				0);
	CU_ASSERT_FALSE(rds_cong_test(lmap, 4000));
	maps = count_maps();
	/* Over it: congested, and the map goes to the peer. */
	CU_ASSERT_EQUAL(feed(seq++, 0, 6000, 4000, 0, payload, 1000), 0);
	CU_ASSERT_TRUE(rds_cong_test(lmap, 4000));
	/* Messages still arrive at a congested port (rds(7)). */
	CU_ASSERT_EQUAL(feed(seq++, 0, 6000, 4000, 0, payload, 1000), 0);
	CU_ASSERT_EQUAL(sock_body(s)->rcv_bytes, 12000);
	poll_n(2);
	CU_ASSERT_EQUAL(count_maps(), maps + 1);
	CU_ASSERT_EQUAL(cap.f[cap.n - 1].h.flags, RDS_FLAG_CONG_BITMAP);
	CU_ASSERT_EQUAL(cap.f[cap.n - 1].data[4000 / 8], 1 << (4000 % 8));
	/* Draining to 6000 (above rcvbuf / 2) keeps it congested ... */
	for (i = 0; i < 6; i++) {
		r = (int)rds_test_recv(s, buf, sizeof(buf), NULL,
				       MSG_DONTWAIT, NULL);
		CU_ASSERT_EQUAL(r, 1000);
	}
	CU_ASSERT_TRUE(rds_cong_test(lmap, 4000));
	/* ... 5000 is not below 5000 ... */
	r = (int)rds_test_recv(s, buf, sizeof(buf), NULL, MSG_DONTWAIT, NULL);
	CU_ASSERT_TRUE(rds_cong_test(lmap, 4000));
	/* ... 4000 is: uncongested, and another map goes out. */
	r = (int)rds_test_recv(s, buf, sizeof(buf), NULL, MSG_DONTWAIT, NULL);
	CU_ASSERT_EQUAL(r, 1000);
	CU_ASSERT_FALSE(rds_cong_test(lmap, 4000));
	poll_n(2);
	CU_ASSERT_EQUAL(count_maps(), maps + 2);
	CU_ASSERT_EQUAL(cap.f[cap.n - 1].data[4000 / 8], 0);
	teardown();
}

static void
test_transport_backpressure(void)
{
	int s, idx;

	setup();
	s = sock_on(4000, 0, 0);
	cap.room = 3;	/* map + 2 messages */
	send_n(s, 5000, 5, 10);
	poll_n(3);
	CU_ASSERT_EQUAL(cap.n, 3);
	CU_ASSERT_EQUAL(peer_conn()->state, RDS_CONN_UP);
	cap.room = CAP_MAX;
	poll_n(2);
	idx = data_frame(4);
	CU_ASSERT_FATAL(idx >= 0);
	CU_ASSERT_EQUAL(cap.f[idx].h.seq, 5);
	CU_ASSERT_EQUAL(cap.f[idx].h.flags & RDS_FLAG_RETRANSMITTED, 0);
	teardown();
}

static void
test_reconnect_backoff(void)
{
	struct rds_conn *c;
	uint64_t ceil_seen[8];
	unsigned int i;
	int s;

	setup();
	cap.connect_err = -EIO;
	s = sock_on(4000, 0, 0);
	send_n(s, 5000, 1, 10);
	poll_n(2);
	c = peer_conn();
	CU_ASSERT_FATAL(c != NULL);
	CU_ASSERT_EQUAL(c->state, RDS_CONN_DOWN);
	/* Each failed attempt doubles the ceiling, up to the maximum. */
	for (i = 0; i < RTE_DIM(ceil_seen); i++) {
		ceil_seen[i] = c->reconnect_ceil_ms;
		skip_backoff(c);
		poll_n(1);
	}
	for (i = 1; i < RTE_DIM(ceil_seen); i++)
		CU_ASSERT(ceil_seen[i] == RTE_MIN(ceil_seen[i - 1] * 2, 1000ULL));
	CU_ASSERT(ceil_seen[0] >= 1);
	CU_ASSERT(cap.connects >= RTE_DIM(ceil_seen));
	/* The wait is respected: no attempt before reconnect_at. */
	rds_timer_arm(c->eng, &c->conn_timer,
		      rte_rdtsc() + rte_get_tsc_hz() * 100);
	c->reconnect_due = false;
	i = cap.connects;
	poll_n(5);
	CU_ASSERT_EQUAL(cap.connects, i);
	/* Once the transport connects the message goes out. */
	cap.connect_err = 0;
	skip_backoff(c);
	poll_n(2);
	CU_ASSERT_EQUAL(c->state, RDS_CONN_UP);
	CU_ASSERT_EQUAL(c->reconnect_ceil_ms, 0);
	CU_ASSERT(data_frame(0) >= 0);
	teardown();
}

static void
test_cancel_engine_side(void)
{
	struct sockaddr_in to = peer_sin(5000);
	struct rds_conn *c;
	struct rds_msg *m;
	int s, n = 0;

	setup();
	s = sock_on(4000, 0, 0);
	send_n(s, 5000, 3, 100);
	send_n(s, 5001, 2, 100);
	poll_n(2);
	c = peer_conn();
	CU_ASSERT_FATAL(c != NULL);
	/* Cancel drops queued and unacknowledged messages to 5000 only. */
	CU_ASSERT_EQUAL(rte_rds_setsockopt(s, SOL_RDS, RDS_CANCEL_SENT_TO,
					   &to, sizeof(to)), 0);
	TAILQ_FOREACH(m, &c->retrans_q, link) {
		CU_ASSERT_EQUAL(m->dport, 5001);
		n++;
	}
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT_EQUAL(sock_body(s)->snd_bytes, 200);
	/* Without an address: everything. */
	CU_ASSERT_EQUAL(rte_rds_setsockopt(s, SOL_RDS, RDS_CANCEL_SENT_TO,
					   NULL, 0), 0);
	CU_ASSERT(TAILQ_EMPTY(&c->retrans_q));
	CU_ASSERT_EQUAL(sock_body(s)->snd_bytes, 0);
	CU_ASSERT_EQUAL(rds_test_stats().s_send_cancelled, 5);
	teardown();
}

/* The engine's cache of found connections (rds_conn_lookup): the same
 * connection as the hash for many keys (more than its RDS_CONN_CACHE
 * entries, so that they collide), never the reverse direction's, and
 * nothing once a connection is destroyed. */
static void
test_conn_cache(void)
{
	struct rds_conn *cs[RDS_CONN_CACHE + 24], *c, *r;
	struct rds_conn_key k, rk;
	struct rds_engine *e;
	unsigned int i, round;
	char ip[32];

	setup();
	e = rds_engine_get(0);
	for (i = 0; i < RTE_DIM(cs); i++) {
		memset(&k, 0, sizeof(k));
		rds_addr_from_v4(&k.laddr, inet_addr(LOCAL_IP));
		snprintf(ip, sizeof(ip), "10.77.%u.%u", i / 250, i % 250 + 1);
		rds_addr_from_v4(&k.faddr, inet_addr(ip));
		k.trans_id = CAP_TRANS_ID;
		cs[i] = rds_conn_get(e, &k);
		CU_ASSERT_FATAL(cs[i] != NULL);
	}
	for (round = 0; round < 2; round++)
		for (i = 0; i < RTE_DIM(cs); i++)
			CU_ASSERT_PTR_EQUAL(rds_conn_lookup(e, &cs[i]->key),
					    cs[i]);
	/* The reverse direction is another key: not in the hash. */
	memset(&rk, 0, sizeof(rk));
	rk.laddr = cs[3]->key.faddr;
	rk.faddr = cs[3]->key.laddr;
	rk.trans_id = CAP_TRANS_ID;
	CU_ASSERT_PTR_NULL(rds_conn_lookup(e, &rk));
	/* Found (so cached), destroyed: gone from the cache too. */
	k = cs[5]->key;
	CU_ASSERT_PTR_EQUAL(rds_conn_lookup(e, &k), cs[5]);
	rds_conn_destroy(cs[5]);
	CU_ASSERT_PTR_NULL(rds_conn_lookup(e, &k));
	/* A new connection on the same key is found, not the old one. */
	c = rds_conn_get(e, &k);
	CU_ASSERT_FATAL(c != NULL);
	r = rds_conn_lookup(e, &k);
	CU_ASSERT_PTR_EQUAL(r, c);
	teardown();
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "sequence_and_map_on_connect",
		  test_sequence_and_map_on_connect },
		{ "ack_required_policy", test_ack_required_policy },
		{ "ack_release", test_ack_release },
		{ "retransmit_after_reset", test_retransmit_after_reset },
		{ "receive_dup_rule_and_ack", test_receive_dup_rule_and_ack },
		{ "ack_after_peer_restart", test_ack_after_peer_restart },
		{ "ping_and_unbound", test_ping_and_unbound },
		{ "malformed_frames", test_malformed_frames },
		{ "remote_congestion", test_remote_congestion },
		{ "local_congestion_hysteresis",
		  test_local_congestion_hysteresis },
		{ "transport_backpressure", test_transport_backpressure },
		{ "reconnect_backoff", test_reconnect_backoff },
		{ "cancel_engine_side", test_cancel_engine_side },
		{ "conn_cache", test_conn_cache },
		{ NULL, NULL },
	};

	return rds_test_main("unit_proto", "0", cases);
}

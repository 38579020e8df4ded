/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A client of an engine process for suite multiproc: no EAL, only
 * rte_rds_attach() and the socket calls.
 *
 *   mp_client stream PATH ID NCLIENTS MSGS
 *       socket ID bound to mp_addr(ID):mp_port(ID); sends MSGS messages
 *       to every other client's socket (interleaved at random, 0..4096
 *       bytes, 1 in 100 up to 256 KiB) and takes MSGS from each: per
 *       sender, the next sequence number, its length and every byte are
 *       checked (payloads are deterministic from sender, receiver and
 *       sequence). Prints "TX i j msgs bytes sha256" and "RX ..." lines
 *       (the parent compares them) and "OK" last; exits 0 only if all
 *       is well.
 *   mp_client victim PATH ID SINKPORT
 *       sends to mp_addr(0):SINKPORT without end (the parent kills it);
 *       prints "READY" once the first message was sent.
 *   mp_client block PATH ID
 *       blocks in recvmsg on mp_addr(ID):mp_port(ID) ("READY" first):
 *       the engine's going away must end it with ECONNRESET ("GONE"),
 *       a send must fail the same way and rte_rds_attached() say 0,
 *       then rte_rds_attach() again until a restarted engine takes it
 *       (10 s), and a socket bound on the same port works while the
 *       old socket's handle, never closed, is EBADF and does not
 *       close it ("REATTACHED"); exit 0 then
 *   mp_client bind PATH ID
 *       binds mp_addr(ID):mp_port(ID) once: exit 0 on success, 2 on
 *       EADDRINUSE, 1 otherwise.
 *   mp_client snap PATH ID ITERS
 *       snapshot consistency through the engine: a socket
 *       made and bound shows in the next RDS_INFO_SOCKETS; then ITERS
 *       sends from mp_addr(ID):mp_port(ID) to mp_addr(ID + 1), each
 *       followed at once by RDS_INFO_CONNECTIONS (the connection is
 *       there, next_tx_seq one past the message) and by
 *       RDS_INFO_SEND_MESSAGES (the message is on the send queue, or
 *       it was transmitted and the receiver has it and all before it:
 *       the loop transport delivers as it transmits). Prints
 *       "SNAP sends N conn_misses M msg_misses K sock_misses J"; exit 0
 *       only when nothing was missed.
 *   mp_client move PATH ID
 *       rte_rds_event_fd_move(): EBADF and EINVAL; then a socket on
 *       mp_addr(ID):mp_port(ID) whose event fd moves while another
 *       thread sleeps on it (in recvfrom, then in rte_rds_poll), with
 *       one end of a socket pair holding data dup2'd over the old
 *       number at once: the sleeper gets the next message, and neither
 *       it nor the socket's close reads from, writes into or closes the
 *       socket pair. Prints "MOVED"; exit 0 only when all is well.
 *   mp_client hold PATH ID MSGS
 *       traffic for rds-info to show: a socket on mp_addr(ID):mp_port(ID)
 *       connected to one on mp_addr(ID + 1):mp_port(ID + 1), MSGS
 *       messages sent to it and left unread; prints "HELD" and waits
 *       for stdin to close.
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <rte_errno.h>
#include <rte_rds.h>
#include <rte_rds_attach.h>

#include "rds_test.h"
#include "mp_common.h"

#define HDR 16
#define MAXLEN (256u * 1024)

struct hdr {
	uint32_t src, dst;
	uint64_t seq;
};

static uint64_t
key_of(unsigned int src, unsigned int dst, uint64_t seq)
{
	return rds_test_mix64(((uint64_t)src << 40) ^ ((uint64_t)dst << 32) ^
			      seq ^ 0x6d70636c69656e74ULL);
}

static uint32_t
len_of(unsigned int src, unsigned int dst, uint64_t seq)
{
	uint64_t k = key_of(src, dst, seq);

	if (k % 100 == 0)
		return (uint32_t)((k >> 8) % (MAXLEN + 1));
	return (uint32_t)((k >> 8) % 4097);
}

static void
build(uint8_t *b, unsigned int src, unsigned int dst, uint64_t seq,
      uint32_t len)
{
	struct hdr h = { .src = src, .dst = dst, .seq = seq };

	memcpy(b, &h, RTE_MIN(len, (uint32_t)HDR));
	if (len > HDR)
		rds_test_fill(b + HDR, len - HDR, key_of(src, dst, seq));
}

/* The stream's digests and buffers: freed by do_stream() whatever way
 * stream_run() returns (the ASan build checks the clients for leaks). */
static struct rds_test_sha tx[MP_MAX_CLIENTS], rx[MP_MAX_CLIENTS];
static uint8_t *sbuf, *rbuf, *ebuf;

static int
stream_run(unsigned int id, unsigned int n, uint64_t msgs)
{
	uint64_t next_tx[MP_MAX_CLIENTS] = { 0 }, next_rx[MP_MAX_CLIENTS] = {
		0 };
	uint64_t rng = 0x1234ULL + id, sent = 0, got = 0, want, t0, tp;
	struct sockaddr_in peer[MP_MAX_CLIENTS], from;
	bool pending = false;
	unsigned int dst = 0, j;
	uint32_t plen = 0, elen;
	char hex[65];
	int s, bufsz = 4 << 20, mflags;
	ssize_t r;

	for (j = 0; j < n; j++)
		peer[j] = mp_sin(j);
	s = rds_test_socket(mp_ip(id), mp_port(id), bufsz, bufsz);
	if (s < 0) {
		printf("socket/bind: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	/* Every socket is bound before anyone sends (a message to a port
	 * nobody has bound is dropped, as rds(7) says): the parent says go
	 * with one byte. */
	printf("BOUND\n");
	fflush(stdout);
	{
		char c;

		if (read(0, &c, 1) != 1) {
			printf("FAIL: no go\n");
			return 1;
		}
	}
	want = msgs * (n - 1);
	t0 = rds_test_now_ns();
	tp = t0;
	while (got < want || sent < want) {
		bool progress = false;
		int k;

		/* Send a burst. */
		for (k = 0; k < 64 && sent < want; k++) {
			if (!pending) {
				do {
					dst = (unsigned int)(rds_test_rand(&rng)
							     % n);
				} while (dst == id || next_tx[dst] == msgs);
				plen = len_of(id, dst, next_tx[dst]);
				build(sbuf, id, dst, next_tx[dst], plen);
				pending = true;
			}
			r = rte_rds_sendto(s, sbuf, plen, MSG_DONTWAIT,
					   (struct sockaddr *)&peer[dst],
					   sizeof(peer[dst]));
			if (r < 0) {
				if (rte_errno == EAGAIN || rte_errno == ENOBUFS)
					break;
				printf("FAIL send %u->%u: %s\n", id, dst,
				       rte_strerror(rte_errno));
				return 1;
			}
			rds_test_sha_update(&tx[dst], sbuf, plen);
			next_tx[dst]++;
			sent++;
			pending = false;
			progress = true;
		}
		/* Receive what there is. */
		for (k = 0; k < 64; k++) {
			struct hdr h;
			unsigned int src;

			r = rds_test_recv(s, rbuf, MAXLEN, &from, MSG_DONTWAIT,
					  &mflags);
			if (r < 0) {
				if (rte_errno == EAGAIN)
					break;
				printf("FAIL recv: %s\n",
				       rte_strerror(rte_errno));
				return 1;
			}
			progress = true;
			for (src = 0; src < n; src++)
				if (rds_test_sin_eq(&from, &peer[src]))
					break;
			if (src == n || src == id) {
				printf("FAIL: message from a stranger\n");
				return 1;
			}
			elen = len_of(src, id, next_rx[src]);
			build(ebuf, src, id, next_rx[src], elen);
			if ((uint32_t)r != elen || memcmp(rbuf, ebuf, elen) != 0) {
				memset(&h, 0xff, sizeof(h));
				memcpy(&h, rbuf, RTE_MIN((size_t)r, sizeof(h)));
				printf("FAIL %u->%u: expected seq %" PRIu64
				       " len %u, got len %zd header %u->%u seq %"
				       PRIu64 "\n", src, id, next_rx[src], plen,
				       r, h.src, h.dst, h.seq);
				return 1;
			}
			rds_test_sha_update(&rx[src], rbuf, (size_t)r);
			next_rx[src]++;
			got++;
		}
		if (progress)
			tp = rds_test_now_ns();
		if (!progress) {
			struct rte_rds_pollfd p = {
				.sock = s,
				.events = sent < want ? POLLIN | POLLOUT :
					  POLLIN,
			};

			if (rte_rds_poll(&p, 1, 1000) < 0) {
				printf("FAIL poll: %s\n",
				       rte_strerror(rte_errno));
				return 1;
			}
		}
		if (rds_test_now_ns() - tp > 60ULL * 1000000000ULL) {
			printf("FAIL: client %u stalled, sent %" PRIu64
			       " got %" PRIu64 " of %" PRIu64 "; from each:",
			       id, sent, got, want);
			for (j = 0; j < n; j++)
				printf(" %" PRIu64, next_rx[j]);
			printf("; to each:");
			for (j = 0; j < n; j++)
				printf(" %" PRIu64, next_tx[j]);
			printf("\n");
			return 1;
		}
	}
	for (j = 0; j < n; j++) {
		uint8_t d[RDS_TEST_SHA_LEN];

		if (j == id)
			continue;
		rds_test_sha_peek(&tx[j], d);
		printf("TX %u %u %" PRIu64 " %" PRIu64 " %s\n", id, j,
		       tx[j].msgs, tx[j].bytes, rds_test_sha_hex(d, hex));
		rds_test_sha_peek(&rx[j], d);
		printf("RX %u %u %" PRIu64 " %" PRIu64 " %s\n", j, id,
		       rx[j].msgs, rx[j].bytes, rds_test_sha_hex(d, hex));
	}
	/* Everything we sent was acknowledged once the others have it:
	 * close only after the parent says so (stdin closes). */
	printf("DONE %.2f\n", rds_test_since_s(t0));
	fflush(stdout);
	{
		char c;

		while (read(0, &c, 1) > 0)
			;
	}
	if (rte_rds_close(s) != 0) {
		printf("FAIL close: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	/* do_stream() frees the buffers and digests. */
	printf("OK\n");
	return 0;
}

static int
do_stream(unsigned int id, unsigned int n, uint64_t msgs)
{
	unsigned int j;
	int rc = 1;

	if (n > MP_MAX_CLIENTS)
		return 1;
	sbuf = malloc(MAXLEN);
	rbuf = malloc(MAXLEN);
	ebuf = malloc(MAXLEN);
	for (j = 0; j < n; j++) {
		rds_test_sha_init(&tx[j]);
		rds_test_sha_init(&rx[j]);
	}
	if (sbuf != NULL && rbuf != NULL && ebuf != NULL)
		rc = stream_run(id, n, msgs);
	for (j = 0; j < n; j++) {
		rds_test_sha_free(&tx[j]);
		rds_test_sha_free(&rx[j]);
	}
	free(sbuf);
	free(rbuf);
	free(ebuf);
	return rc;
}

static int
do_victim(unsigned int id, uint16_t sink)
{
	struct sockaddr_in to = rds_test_sin(mp_ip(0), sink);
	uint8_t buf[1024];
	bool told = false;
	int s = rds_test_socket(mp_ip(id), mp_port(id), 0, 0);

	if (s < 0)
		return 1;
	memset(buf, 0x5a, sizeof(buf));
	for (;;) {
		if (rte_rds_sendto(s, buf, sizeof(buf), 0,
				   (struct sockaddr *)&to, sizeof(to)) < 0 &&
		    rte_errno != EAGAIN && rte_errno != ENOBUFS) {
			printf("FAIL send: %s\n", rte_strerror(rte_errno));
			return 1;
		}
		if (!told) {
			printf("READY\n");
			fflush(stdout);
			told = true;
		}
	}
}

static int
do_block(const char *path, unsigned int id)
{
	struct sockaddr_in to = mp_sin(id);
	char buf[64];
	uint64_t t0;
	ssize_t r;
	int s = rds_test_socket(mp_ip(id), mp_port(id), 0, 0), s2;

	if (s < 0)
		return 1;
	printf("READY\n");
	fflush(stdout);
	r = rte_rds_recvfrom(s, buf, sizeof(buf), 0, NULL, NULL);
	if (r >= 0 || rte_errno != ECONNRESET) {
		printf("FAIL: recvfrom returned %zd (%s), not ECONNRESET\n", r,
		       rte_strerror(rte_errno));
		return 1;
	}
	if (rte_rds_sendto(s, "x", 1, 0, (struct sockaddr *)&to,
			   sizeof(to)) >= 0 || rte_errno != ECONNRESET) {
		printf("FAIL: sendto after the engine went: %s\n",
		       rte_strerror(rte_errno));
		return 1;
	}
	if (rte_rds_attached()) {
		printf("FAIL: rte_rds_attached() says 1 after the engine went\n");
		return 1;
	}
	printf("GONE\n");
	fflush(stdout);
	/* s stays open: its handle must never reach the socket the new
	 * attachment makes on the same slot. */
	t0 = rds_test_now_ns();
	while (rte_rds_attach(path) != 0) {
		if (rds_test_now_ns() - t0 > 10000000000ULL) {
			printf("FAIL: no engine to attach to again: %s\n",
			       rte_strerror(rte_errno));
			return 1;
		}
		rds_test_usleep(20000);
	}
	s2 = rds_test_socket(mp_ip(id), mp_port(id), 0, 0);
	if (s2 < 0 || !rte_rds_attached() ||
	    rte_rds_sendto(s2, "y", 1, 0, (struct sockaddr *)&to,
			   sizeof(to)) != 1 ||
	    rte_rds_recvfrom(s2, buf, sizeof(buf), 0, NULL, NULL) != 1) {
		printf("FAIL: after the new attach: %s\n",
		       rte_strerror(rte_errno));
		return 1;
	}
	if (s2 == s ||
	    rte_rds_sendto(s, "z", 1, 0, (struct sockaddr *)&to,
			   sizeof(to)) >= 0 || rte_errno != EBADF ||
	    rte_rds_close(s) >= 0 || rte_errno != EBADF) {
		printf("FAIL: the old handle %d (the new socket's %d) is not "
		       "EBADF: %s\n", s, s2, rte_strerror(rte_errno));
		return 1;
	}
	if (rte_rds_sendto(s2, "w", 1, 0, (struct sockaddr *)&to,
			   sizeof(to)) != 1 ||
	    rte_rds_recvfrom(s2, buf, sizeof(buf), 0, NULL, NULL) != 1 ||
	    buf[0] != 'w') {
		printf("FAIL: the new socket after a close of the old handle: "
		       "%s\n", rte_strerror(rte_errno));
		return 1;
	}
	printf("REATTACHED\n");
	rte_rds_close(s2);
	return 0;
}

static int
do_bind(unsigned int id)
{
	struct sockaddr_in sin = mp_sin(id);
	int s = rte_rds_socket();

	if (s < 0)
		return 1;
	if (rte_rds_bind(s, (struct sockaddr *)&sin, sizeof(sin)) != 0)
		return rte_errno == EADDRINUSE ? 2 : 1;
	rte_rds_close(s);
	return 0;
}

static uint32_t
ip4(const char *ip)
{
	struct sockaddr_in sin = rds_test_sin(ip, 0);

	return sin.sin_addr.s_addr;
}

/* next_tx_seq of laddr -> faddr (0: not listed, -1: failed). */
static int64_t
snap_next_tx(const char *laddr, const char *faddr)
{
	static struct rds_info_connection c[64];
	socklen_t len = sizeof(c);
	unsigned int i;
	uint64_t tx;

	if (rte_rds_info(RDS_INFO_CONNECTIONS, c, &len) !=
	    (int)sizeof(c[0])) {
		printf("FAIL RDS_INFO_CONNECTIONS: %s\n",
		       rte_strerror(rte_errno));
		return -1;
	}
	for (i = 0; i < len / sizeof(c[0]); i++) {
		if (c[i].laddr != ip4(laddr) || c[i].faddr != ip4(faddr))
			continue;
		memcpy(&tx, &c[i].next_tx_seq, sizeof(tx));
		return (int64_t)tx;
	}
	return 0;
}

/* Is message seq of src -> dst on the send queue? 1, 0, -1 (failed). */
static int
snap_on_send_q(const struct sockaddr_in *src, const struct sockaddr_in *dst,
	       uint64_t seq)
{
	static struct rds_info_message m[1024];
	socklen_t len = sizeof(m);
	unsigned int i;
	uint64_t sq;

	if (rte_rds_info(RDS_INFO_SEND_MESSAGES, m, &len) !=
	    (int)sizeof(m[0])) {
		printf("FAIL RDS_INFO_SEND_MESSAGES: %s\n",
		       rte_strerror(rte_errno));
		return -1;
	}
	for (i = 0; i < len / sizeof(m[0]); i++) {
		memcpy(&sq, &m[i].seq, sizeof(sq));
		if (sq == seq && m[i].laddr == src->sin_addr.s_addr &&
		    m[i].lport == src->sin_port &&
		    m[i].faddr == dst->sin_addr.s_addr &&
		    m[i].fport == dst->sin_port)
			return 1;
	}
	return 0;
}

static uint64_t
snap_drain(int s)
{
	uint8_t buf[64];
	uint64_t n = 0;

	while (rte_rds_recvfrom(s, buf, sizeof(buf), MSG_DONTWAIT, NULL,
				NULL) >= 0)
		n++;
	return n;
}

static int
do_snap(unsigned int id, uint64_t iters)
{
	static struct rds_info_socket sk[512];
	struct sockaddr_in from = mp_sin(id), to = mp_sin(id + 1);
	uint64_t i, sent = 0, got = 0, base, conn_misses = 0, msg_misses = 0;
	unsigned int j, sock_misses = 0;
	uint8_t buf[64] = { 0 };
	socklen_t len;
	bool found;
	int64_t tx;
	int a, b, r, s;

	/* Sockets: bound, then listed. */
	for (j = 0; j < 50; j++) {
		s = rds_test_socket(mp_ip(id), (uint16_t)(mp_port(id) + 100 +
			j), 0, 0);
		if (s < 0)
			return 1;
		len = sizeof(sk);
		if (rte_rds_info(RDS_INFO_SOCKETS, sk, &len) !=
		    (int)sizeof(sk[0])) {
			printf("FAIL RDS_INFO_SOCKETS: %s\n",
			       rte_strerror(rte_errno));
			return 1;
		}
		found = false;
		for (r = 0; r < (int)(len / sizeof(sk[0])); r++)
			if (sk[r].bound_addr == ip4(mp_ip(id)) &&
			    sk[r].bound_port == htons(mp_port(id) + 100 + j))
				found = true;
		sock_misses += !found;
		rte_rds_close(s);
	}
	a = rds_test_socket(mp_ip(id), mp_port(id), 0, 0);
	b = rds_test_socket(mp_ip(id + 1), mp_port(id + 1), 0, 0);
	if (a < 0 || b < 0)
		return 1;
	tx = snap_next_tx(mp_ip(id), mp_ip(id + 1));
	if (tx < 0)
		return 1;
	base = tx == 0 ? 1 : (uint64_t)tx;
	for (i = 0; i < iters; i++) {
		while (rte_rds_sendto(a, buf, 8, MSG_DONTWAIT,
				      (struct sockaddr *)&to,
				      sizeof(to)) != 8) {
			struct rte_rds_pollfd p = { .sock = a,
						    .events = POLLOUT };

			if (rte_errno != EAGAIN && rte_errno != ENOBUFS) {
				printf("FAIL send: %s\n",
				       rte_strerror(rte_errno));
				return 1;
			}
			got += snap_drain(b);
			rte_rds_poll(&p, 1, 10);
		}
		sent++;
		tx = snap_next_tx(mp_ip(id), mp_ip(id + 1));
		if (tx < 0)
			return 1;
		if ((uint64_t)tx != base + sent) {
			if (conn_misses < 5)
				printf("after send %" PRIu64 ": next_tx_seq %"
				       PRId64 ", not %" PRIu64 "\n", i, tx,
				       base + sent);
			conn_misses++;
		}
		/* Not on the send queue: transmitted, with every message
		 * before it, so delivered (the loop transport delivers as it
		 * transmits): b has them all. */
		r = snap_on_send_q(&from, &to, base + sent - 1);
		if (r < 0)
			return 1;
		got += snap_drain(b);
		if (r == 0 && got != sent) {
			if (msg_misses < 5)
				printf("after send %" PRIu64 ": message %"
				       PRIu64 " neither queued nor "
				       "delivered\n", i, base + sent - 1);
			msg_misses++;
		}
	}
	printf("SNAP sends %" PRIu64 " conn_misses %" PRIu64 " msg_misses %"
	       PRIu64 " sock_misses %u\n", sent, conn_misses, msg_misses,
	       sock_misses);
	rte_rds_close(a);
	rte_rds_close(b);
	return conn_misses == 0 && msg_misses == 0 && sock_misses == 0 ? 0 : 1;
}

struct sleeper {
	int s;
	bool poll;		/* rte_rds_poll, else recvfrom */
	int ret;
};

static void *
move_sleeper(void *arg)
{
	struct sleeper *sl = arg;
	struct rte_rds_pollfd p = { .sock = sl->s, .events = POLLIN };
	char buf[16];

	if (sl->poll)
		sl->ret = rte_rds_poll(&p, 1, 10000) == 1 &&
			  (p.revents & POLLIN) ? 1 : -1;
	else
		sl->ret = (int)rte_rds_recvfrom(sl->s, buf, sizeof(buf), 0,
						NULL, NULL);
	return NULL;
}

/* Move s's event fd while a thread sleeps on it, sp[0] over the old
 * number at once; a message wakes the sleeper. */
static int
move_under(int a, int s, const struct sockaddr_in *to, bool poll, int *sp)
{
	struct sleeper sl = { .s = s, .poll = poll, .ret = 0 };
	pthread_t t;
	int old = rte_rds_event_fd(s), fd;
	char buf[16];

	if (pthread_create(&t, NULL, move_sleeper, &sl) != 0)
		return -1;
	usleep(100000);		/* past its spinning: asleep on old */
	fd = rte_rds_event_fd_move(s, 100);
	if (fd < 100 || rte_rds_event_fd(s) != fd ||
	    dup2(sp[0], old) != old) {
		printf("FAIL move: %d (%s), now %d\n", fd,
		       rte_strerror(rte_errno), rte_rds_event_fd(s));
		return -1;
	}
	if (rte_rds_sendto(a, "m", 1, 0, (const struct sockaddr *)to,
			   sizeof(*to)) != 1)
		return -1;
	pthread_join(t, NULL);
	if (sl.ret != 1) {
		printf("FAIL the sleeper (%s) after the move: %d\n",
		       poll ? "rte_rds_poll" : "recvfrom", sl.ret);
		return -1;
	}
	if (poll && rte_rds_recvfrom(s, buf, sizeof(buf), 0, NULL, NULL) != 1)
		return -1;
	return old;
}

static int
do_move(unsigned int id)
{
	static const char data[] = "0123456789abcdef";
	struct sockaddr_in to = mp_sin(id);
	int a, s, sp[2], old1, old2;
	char buf[64];
	ssize_t n;

	a = rds_test_socket(mp_ip(id), mp_port(id) + 1, 0, 0);
	s = rds_test_socket(mp_ip(id), mp_port(id), 0, 0);
	if (a < 0 || s < 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sp) != 0)
		return 1;
	if (rte_rds_event_fd_move(-1, 0) >= 0 || rte_errno != EBADF ||
	    rte_rds_event_fd_move(s, -1) >= 0 || rte_errno != EINVAL) {
		printf("FAIL errno of rte_rds_event_fd_move\n");
		return 1;
	}
	/* Data for a stray read of an old number to take. */
	if (write(sp[1], data, 16) != 16)
		return 1;
	old1 = move_under(a, s, &to, false, sp);
	old2 = old1 < 0 ? -1 : move_under(a, s, &to, true, sp);
	if (old2 < 0)
		return 1;
	rte_rds_close(s);
	/* Both old numbers are the socket pair's, open; its data is all
	 * there and nothing else came through them. */
	if (write(old1, "1", 1) != 1 || write(old2, "2", 1) != 1) {
		printf("FAIL the socket pair at an old number was closed\n");
		return 1;
	}
	n = recv(sp[0], buf, sizeof(buf), MSG_DONTWAIT);
	if (n != 16 || memcmp(buf, data, 16) != 0) {
		printf("FAIL the socket pair holds %zd bytes, not its 16\n", n);
		return 1;
	}
	n = recv(sp[1], buf, sizeof(buf), MSG_DONTWAIT);
	if (n != 2 || memcmp(buf, "12", 2) != 0) {
		printf("FAIL %zd bytes came through the old numbers, not "
		       "\"12\"\n", n);
		return 1;
	}
	rte_rds_close(a);
	printf("MOVED\n");
	return 0;
}

static int
do_hold(unsigned int id, uint64_t msgs)
{
	struct sockaddr_in to = mp_sin(id + 1);
	uint8_t buf[256];
	uint64_t i;
	int a, b;
	char c;

	a = rds_test_socket(mp_ip(id), mp_port(id), 0, 0);
	b = rds_test_socket(mp_ip(id + 1), mp_port(id + 1), 0, 0);
	if (a < 0 || b < 0)
		return 1;
	if (rte_rds_connect(a, (struct sockaddr *)&to, sizeof(to)) != 0) {
		printf("FAIL connect: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	memset(buf, 0x42, sizeof(buf));
	for (i = 0; i < msgs; i++)
		if (rte_rds_sendto(a, buf, 100 + (size_t)i, 0, NULL, 0) < 0) {
			printf("FAIL send: %s\n", rte_strerror(rte_errno));
			return 1;
		}
	printf("HELD sockets %d %d\n", a, b);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	rte_rds_close(a);
	rte_rds_close(b);
	return 0;
}

int
main(int argc, char **argv)
{
	unsigned int id;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 4) {
		fprintf(stderr, "usage: see the source\n");
		return 1;
	}
	if (rte_rds_attach(argv[2]) != 0) {
		printf("FAIL attach %s: %s\n", argv[2], rte_strerror(rte_errno));
		return 1;
	}
	id = (unsigned int)strtoul(argv[3], NULL, 0);
	if (strcmp(argv[1], "stream") == 0 && argc == 6)
		return do_stream(id, (unsigned int)strtoul(argv[4], NULL, 0),
				 strtoull(argv[5], NULL, 0));
	if (strcmp(argv[1], "victim") == 0 && argc == 5)
		return do_victim(id, (uint16_t)strtoul(argv[4], NULL, 0));
	if (strcmp(argv[1], "bind") == 0)
		return do_bind(id);
	if (strcmp(argv[1], "snap") == 0 && argc == 5)
		return do_snap(id, strtoull(argv[4], NULL, 0));
	if (strcmp(argv[1], "hold") == 0 && argc == 5)
		return do_hold(id, strtoull(argv[4], NULL, 0));
	if (strcmp(argv[1], "block") == 0)
		return do_block(argv[2], id);
	if (strcmp(argv[1], "move") == 0)
		return do_move(id);
	fprintf(stderr, "bad arguments\n");
	return 1;
}

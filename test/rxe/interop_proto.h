/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef INTEROP_PROTO_H
#define INTEROP_PROTO_H

/*
 * The exchange of the 'interop' suite, shared by krds_peer (the kernel's
 * AF_RDS) and lrds_peer (librte_rds), so that both run the very same
 * protocol against each other over rxe.
 *
 * Each side sends n data messages (index 0..n-1) to the peer and then,
 * once it has received all n of the peer's, one last message with index
 * n, "done": it tells the peer that everything arrived. Each side expects
 * the peer's messages 0..n in order.
 *
 * Message i of direction d has a deterministic size (interop_size()) and
 * content (interop_fill()): a splitmix64 byte stream keyed by (d, i), with
 * i (little endian) in the first 8 bytes when the size is at least 8.
 * Direction 0 is sent by the side with the lower IPv4 address, 1 by the
 * other. Sizes: a handful of edge sizes (0, 1, 7, 8, 47, 48, 4095, 4096,
 * 4097, 8192, 65535, 65536), two of exactly 1 MiB (at n/4 and 3n/4), the
 * rest spread over 0..65536 in four bands (<=64, <=1 KiB, <=8 KiB,
 * <=64 KiB) so that most messages are small and the total stays within
 * what two TCG VMs move in a minute or two (about 7 MiB per direction for
 * n = 500, 2 of it in the 1 MiB messages).
 *
 * Each side keeps a running SHA-256 of what it sent and of what it
 * received (per message: its length as 4 bytes little endian, then the
 * payload; the done message excluded) and prints both, so that the run
 * script can check A's tx digest against B's rx digest and the other way.
 *
 * The exchange loop (interop_run()) is written once against a small
 * table of operations (send, receive, wait, queue counts) that each
 * program fills with its own socket API.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <openssl/evp.h>

#define INTEROP_PORT 4242		/* RDS port both sides bind */
#define INTEROP_COUNT 500		/* data messages per direction */
#define INTEROP_MAX_SIZE (1u << 20)	/* the two big ones */
#define INTEROP_DONE_SIZE 16		/* the final "done" message */
#define INTEROP_TIMEOUT_S 240		/* whole exchange */
#define INTEROP_BUFSZ (4 << 20)		/* SO_SNDBUF / SO_RCVBUF */

static inline uint64_t
interop_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint64_t
interop_key(unsigned int d, uint32_t i)
{
	return ((uint64_t)(d + 1) << 40) ^ ((uint64_t)i * 0x100000001b3ULL) ^
	       0x52445321494e5452ULL;	/* "RDS!INTR" */
}

/* Size of message i of direction d (n messages per direction). */
static inline uint32_t
interop_size(unsigned int d, uint32_t i, uint32_t n)
{
	static const uint32_t edge[] = { 0, 1, 7, 8, 47, 48, 4095, 4096,
					 4097, 8192, 65535, 65536 };
	static const uint32_t band[] = { 64, 1024, 8192, 65536 };
	uint64_t x;

	if (i == n)
		return INTEROP_DONE_SIZE;
	if (n >= 8 && (i == n / 4 || i == 3 * n / 4))
		return INTEROP_MAX_SIZE;
	/* edge sizes spread over the run, d shifts them a little */
	if (n >= 64 && i % (n / 16) == 3 + d && i / (n / 16) <
	    sizeof(edge) / sizeof(edge[0]))
		return edge[i / (n / 16)];
	x = interop_key(d, i) ^ 0x5a5a5a5aULL;
	x = interop_splitmix64(&x);
	return (uint32_t)((x >> 8) % (band[x & 3] + 1));
}

/*
 * Size of message i of fan-in stream j: the edge sizes of interop_size(),
 * then sizes spread over 0..1 MiB in four equally likely bands (<= 64,
 * <= 4 KiB, <= 64 KiB, <= 1 MiB): about 140 KB on average, a quarter of
 * the messages above 64 KiB, so that a stream keeps a receiver's ring
 * busy (a 1 MiB message is 256 fragments of 4 KiB).
 */
static inline uint32_t
interop_stream_size(unsigned int j, uint32_t i, uint32_t n)
{
	static const uint32_t edge[] = { 0, 1, 7, 8, 47, 48, 4095, 4096,
					 4097, 8192, 65535, 65536, 1u << 20 };
	static const uint32_t band[] = { 64, 4096, 65536, 1u << 20 };
	unsigned int d = 2 + j;
	uint64_t x;

	if (n >= 64 && i % (n / 16) == 3 + j && i / (n / 16) <
	    sizeof(edge) / sizeof(edge[0]))
		return edge[i / (n / 16)];
	x = interop_key(d, i) ^ 0xa5a5a5a5ULL;
	x = interop_splitmix64(&x);
	return (uint32_t)((x >> 8) % (band[x & 3] + 1));
}

/* Content of message i of direction d. */
static inline void
interop_fill(unsigned int d, uint32_t i, uint8_t *buf, uint32_t size)
{
	uint64_t x = interop_key(d, i), v;
	uint32_t off;

	for (off = 0; off + 8 <= size; off += 8) {
		v = interop_splitmix64(&x);
		memcpy(buf + off, &v, 8);
	}
	if (off < size) {
		v = interop_splitmix64(&x);
		memcpy(buf + off, &v, size - off);
	}
	if (size >= 8) {
		uint64_t le = i;	/* x86 and friends: little endian */

		memcpy(buf, &le, 8);
	}
}

static inline double
interop_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Running SHA-256 of a message stream. */
struct interop_sha {
	EVP_MD_CTX *ctx;
	char hex[65];
};

static inline int
interop_sha_init(struct interop_sha *s)
{
	s->ctx = EVP_MD_CTX_new();
	s->hex[0] = '\0';
	return s->ctx != NULL && EVP_DigestInit_ex(s->ctx, EVP_sha256(), NULL) == 1
	       ? 0 : -1;
}

static inline void
interop_sha_msg(struct interop_sha *s, const uint8_t *buf, uint32_t len)
{
	uint8_t le[4] = { len & 0xff, (len >> 8) & 0xff, (len >> 16) & 0xff,
			  (len >> 24) & 0xff };

	EVP_DigestUpdate(s->ctx, le, sizeof(le));
	if (len > 0)
		EVP_DigestUpdate(s->ctx, buf, len);
}

static inline const char *
interop_sha_final(struct interop_sha *s)
{
	uint8_t md[32];
	unsigned int mdlen = 0, k;

	EVP_DigestFinal_ex(s->ctx, md, &mdlen);
	EVP_MD_CTX_free(s->ctx);
	s->ctx = NULL;
	for (k = 0; k < 32; k++)
		snprintf(s->hex + 2 * k, 3, "%02x", md[k]);
	return s->hex;
}

/* What each program provides. Errors are positive errno values. */
struct interop_ops {
	/* Send one message to `to` without blocking: 0 or errno. */
	int (*send)(void *ctx, const struct sockaddr_in *to, const void *buf,
		    size_t len);
	/* Receive one message without blocking: length, or -errno (-EAGAIN
	 * when nothing is queued). *from gets the sender, *trunc whether the
	 * message was longer than cap. */
	long (*recv)(void *ctx, void *buf, size_t cap, struct sockaddr_in *from,
		     bool *trunc);
	/* Wait up to ms milliseconds for something to do (readable, or
	 * writable when want_out). */
	void (*wait)(void *ctx, int ms, bool want_out);
	/* Our messages to `to` still queued (RDS_INFO_SEND_MESSAGES: not
	 * yet handed to the transport) and sent but not acknowledged
	 * (RDS_INFO_RETRANS_MESSAGES). Returns 0, or -1 if unknown. */
	int (*unacked)(void *ctx, const struct sockaddr_in *to, long *queued,
		       long *unacked);
	/* Called once per loop iteration (drive an inline engine), or NULL. */
	void (*pump)(void *ctx);
	/* Fan-in: called after each message sent (sender) or received
	 * (receiver, counted over all streams), or NULL: a test's fault
	 * hook. */
	void (*on_msg)(void *ctx, uint64_t count);
	void *ctx;
};

struct interop_args {
	const char *name;		/* "krds" or "lrds": log prefix */
	struct sockaddr_in self, peer;
	uint32_t n;
	double timeout_s;
	/* After our messages are acknowledged, keep the socket open and
	 * serviced this long, so that our own ACKs of the peer's last
	 * messages go out before we leave. */
	double linger_s;
	/* Send nothing before the peer's first message has arrived, so
	 * that the peer, not we, opens the connection. */
	bool wait_first;
};

/* A send error that means "back off and try again" rather than failure:
 * send buffer full (EAGAIN), and what the kernel's selftest backs off on,
 * congested destination (ENOBUFS), ECONNRESET and EPIPE; also ENOMEM.
 * Anything else (ENOTCONN, ENETUNREACH, EMSGSIZE, ...) fails at once. */
static inline bool
interop_retryable(int err)
{
	return err == EAGAIN || err == EWOULDBLOCK || err == ENOBUFS ||
	       err == ECONNRESET || err == EPIPE || err == ENOMEM;
}

/*
 * Run the exchange. Returns 0 when every message of the peer arrived
 * intact and in order (including its "done"), ours were all sent, and the
 * peer's "done" says it got ours; 1 otherwise (with the reason printed).
 */
static inline int
interop_run(const struct interop_args *a, const struct interop_ops *ops)
{
	const char *nm = a->name;
	unsigned int dtx, drx;
	uint8_t *txbuf, *rxbuf, *want;
	uint32_t next_tx = 0, next_rx = 0, tx_size = 0, n = a->n;
	bool tx_ready = false, ok = true;
	struct interop_sha sha_tx, sha_rx;
	uint64_t tx_bytes = 0, rx_bytes = 0, retries = 0;
	double t0 = interop_now(), t_first_rx = 0, t_last_note = t0, t;
	char peer_s[INET_ADDRSTRLEN];
	uint32_t rx_count_at_note = 0;
	int last_err = 0, backoff_notes = 0;

	inet_ntop(AF_INET, &a->peer.sin_addr, peer_s, sizeof(peer_s));
	dtx = ntohl(a->self.sin_addr.s_addr) < ntohl(a->peer.sin_addr.s_addr)
	      ? 0 : 1;
	drx = 1 - dtx;
	txbuf = malloc(INTEROP_MAX_SIZE);
	rxbuf = malloc(INTEROP_MAX_SIZE + 64);
	want = malloc(INTEROP_MAX_SIZE);
	if (txbuf == NULL || rxbuf == NULL || want == NULL ||
	    interop_sha_init(&sha_tx) != 0 || interop_sha_init(&sha_rx) != 0) {
		printf("%s: FAIL: out of memory\n", nm);
		return 1;
	}
	printf("%s: exchange with %s:%u: %u messages each way, tx direction "
	       "%u, timeout %.0f s%s\n", nm, peer_s, ntohs(a->peer.sin_port),
	       n, dtx, a->timeout_s, a->wait_first ?
	       ", sending only once the peer's first message is in" : "");
	fflush(stdout);

	while (next_tx <= n || next_rx <= n) {
		int work = 0;

		if (ops->pump != NULL)
			ops->pump(ops->ctx);
		t = interop_now();
		if (t - t0 > a->timeout_s) {
			printf("%s: FAIL: timeout after %.1f s: sent %u/%u, "
			       "received %u/%u (last send error: %s)\n", nm,
			       t - t0, next_tx, n + 1, next_rx, n + 1,
			       last_err ? strerror(last_err) : "none");
			ok = false;
			break;
		}
		/* send: data first; "done" once we have all of the peer's */
		while ((next_tx < n || (next_tx == n && next_rx >= n)) &&
		       (!a->wait_first || next_rx > 0)) {
			int err;

			if (!tx_ready) {
				tx_size = interop_size(dtx, next_tx, n);
				interop_fill(dtx, next_tx, txbuf, tx_size);
				tx_ready = true;
			}
			err = ops->send(ops->ctx, &a->peer, txbuf, tx_size);
			if (err != 0) {
				if (!interop_retryable(err)) {
					printf("%s: FAIL: send of message %u "
					       "(%u bytes): %s\n", nm, next_tx,
					       tx_size, strerror(err));
					ok = false;
					goto out;
				}
				if (err != last_err && err != EAGAIN &&
				    backoff_notes++ < 20)
					printf("%s: send of message %u: %s, "
					       "backing off (%.1f s)\n", nm,
					       next_tx, strerror(err), t - t0);
				last_err = err;
				retries++;
				break;
			}
			if (next_tx < n) {
				interop_sha_msg(&sha_tx, txbuf, tx_size);
				tx_bytes += tx_size;
			}
			tx_ready = false;
			last_err = 0;
			next_tx++;
			work++;
		}
		/* receive everything queued */
		for (;;) {
			struct sockaddr_in from;
			bool trunc = false;
			uint32_t wsz;
			long r;

			r = ops->recv(ops->ctx, rxbuf, INTEROP_MAX_SIZE + 64,
				      &from, &trunc);
			if (r == -EAGAIN || r == -EWOULDBLOCK)
				break;
			if (r < 0) {
				if (interop_retryable((int)-r))
					break;
				printf("%s: FAIL: receive: %s\n", nm,
				       strerror((int)-r));
				ok = false;
				goto out;
			}
			work++;
			if (from.sin_addr.s_addr != a->peer.sin_addr.s_addr ||
			    from.sin_port != a->peer.sin_port) {
				char f[INET_ADDRSTRLEN];

				inet_ntop(AF_INET, &from.sin_addr, f, sizeof(f));
				printf("%s: FAIL: message from %s:%u, not from "
				       "the peer\n", nm, f, ntohs(from.sin_port));
				ok = false;
				goto out;
			}
			if (next_rx > n) {
				printf("%s: FAIL: extra message (%ld bytes) "
				       "after the peer's done\n", nm, r);
				ok = false;
				goto out;
			}
			wsz = interop_size(drx, next_rx, n);
			if (trunc || (uint32_t)r != wsz) {
				uint64_t idx = UINT64_MAX;

				if (r >= 8)
					memcpy(&idx, rxbuf, 8);
				printf("%s: FAIL: message %u: %ld bytes%s, want "
				       "%u (its first 8 bytes say index %" PRIu64
				       ")\n", nm, next_rx, r,
				       trunc ? " (truncated)" : "", wsz, idx);
				ok = false;
				goto out;
			}
			interop_fill(drx, next_rx, want, wsz);
			if (memcmp(rxbuf, want, wsz) != 0) {
				uint32_t k = 0;
				uint64_t idx = UINT64_MAX;

				while (k < wsz && rxbuf[k] == want[k])
					k++;
				if (wsz >= 8)
					memcpy(&idx, rxbuf, 8);
				printf("%s: FAIL: message %u (%u bytes): content "
				       "differs at byte %u (got 0x%02x, want "
				       "0x%02x; index field %" PRIu64 ")\n", nm,
				       next_rx, wsz, k, rxbuf[k], want[k], idx);
				ok = false;
				goto out;
			}
			if (next_rx == 0)
				t_first_rx = interop_now();
			if (next_rx < n) {
				interop_sha_msg(&sha_rx, rxbuf, wsz);
				rx_bytes += wsz;
			}
			next_rx++;
		}
		t = interop_now();
		if (t - t_last_note >= 10.0 || (next_rx / 100 !=
		    rx_count_at_note / 100 && next_rx <= n)) {
			printf("%s: %.1f s: sent %u, received %u (%" PRIu64
			       " bytes)\n", nm, t - t0, next_tx, next_rx,
			       rx_bytes);
			fflush(stdout);
			t_last_note = t;
			rx_count_at_note = next_rx;
		}
		/* Idle: a send was refused or there is nothing to send.
		 * Wait for POLLOUT only when the send buffer was full
		 * (EAGAIN): with ENOBUFS (congested peer) or a connection
		 * that is not up, POLLOUT is set yet sending still fails. */
		if (work == 0)
			ops->wait(ops->ctx, 5, last_err == EAGAIN &&
				  (next_tx < n || (next_tx == n && next_rx >= n)));
	}
	t = interop_now();
	if (ok) {
		printf("%s: all %u messages received intact and in order, %u "
		       "sent; the peer confirmed ours (%.1f s; first message "
		       "after %.1f s; %" PRIu64 " send retries)\n", nm, n, n,
		       t - t0, t_first_rx > 0 ? t_first_rx - t0 : 0.0,
		       retries);
		if (t_first_rx > 0 && t > t_first_rx)
			printf("%s: rate after the first message: %.2f MB/s "
			       "in, %.2f MB/s out\n", nm,
			       (double)rx_bytes / (t - t_first_rx) / 1e6,
			       (double)tx_bytes / (t - t_first_rx) / 1e6);
	}
	/*
	 * Do not close while our last messages are still queued: a closed
	 * socket drops them. Then give the ACKs a moment; that some stay
	 * unacknowledged is normal against a kernel peer, which sends a
	 * standalone ACK only for messages flagged ACK_REQUIRED (every
	 * max_unacked_packets-th, net/rds/send.c) and otherwise piggybacks
	 * ACKs on its own data, of which there is no more.
	 */
	if (ok && ops->unacked != NULL) {
		double t1 = interop_now(), t2 = 0;
		long q = -1, u = -1;

		for (;;) {
			struct sockaddr_in from;
			bool trunc;
			long r;

			if (ops->unacked(ops->ctx, &a->peer, &q, &u) != 0)
				break;
			t = interop_now();
			if (q == 0 && t2 == 0)
				t2 = t;
			if ((q == 0 && u == 0) || t - t1 > 30.0 ||
			    (t2 > 0 && t - t2 > 2.0))
				break;
			r = ops->recv(ops->ctx, rxbuf, INTEROP_MAX_SIZE + 64,
				      &from, &trunc);
			if (r >= 0) {
				printf("%s: FAIL: extra message (%ld bytes) "
				       "after the peer's done\n", nm, r);
				ok = false;
				break;
			}
			if (ops->pump != NULL)
				ops->pump(ops->ctx);
			ops->wait(ops->ctx, 20, false);
		}
		printf("%s: at the end: %ld of our messages still queued, %ld "
		       "sent and not yet acknowledged (%.1f s waited)\n", nm,
		       q, u, interop_now() - t1);
		if (q != 0) {
			printf("%s: FAIL: our last messages were never "
			       "transmitted\n", nm);
			ok = false;
		}
	}
	if (ok && a->linger_s > 0) {
		double t1 = interop_now();

		while (interop_now() - t1 < a->linger_s) {
			if (ops->pump != NULL)
				ops->pump(ops->ctx);
			ops->wait(ops->ctx, 10, false);
		}
	}
out:
	printf("%s: tx sha256 %s (%u messages, %" PRIu64 " bytes)\n", nm,
	       interop_sha_final(&sha_tx), next_tx < n ? next_tx : n,
	       tx_bytes);
	printf("%s: rx sha256 %s (%u messages, %" PRIu64 " bytes)\n", nm,
	       interop_sha_final(&sha_rx), next_rx < n ? next_rx : n,
	       rx_bytes);
	printf("%s: %s\n", nm, ok ? "PASS" : "FAIL");
	fflush(stdout);
	free(txbuf);
	free(rxbuf);
	free(want);
	return ok ? 0 : 1;
}

/*
 * Fan-in: several streams at once into one socket (the interop cases
 * k2l, three kernel sockets into one librte_rds socket, and l2k, three
 * librte_rds instances into one kernel socket). Stream j (0 <= j <
 * INTEROP_MAX_STREAMS) comes from a socket of its own; its message i has
 * the size and content of direction INTEROP_STREAM_DIR(j) (interop_size(),
 * interop_fill()), so that no two streams carry the same bytes. A sender
 * sends its n messages, then waits for the receiver's "done" for its
 * stream: INTEROP_DONE_SIZE bytes with the content of direction
 * INTEROP_DONE_DIR(j), index n. A sender starts only once the receiver's
 * "go" is in (INTEROP_DONE_SIZE bytes of direction INTEROP_GO_DIR(j),
 * index 0), which the receiver sends once its socket is bound and repeats
 * every 2 s until the stream's first message arrives (a message to a port
 * nobody has bound yet is dropped, as rds(7) says); gos are ignored
 * anywhere else. The receiver checks each stream for size,
 * content and order, keeps a running SHA-256 per stream (as interop_run()),
 * and sends a stream its done once all n messages are in. A lost message
 * shows as the next one arriving in its place (its first 8 bytes carry its
 * index): the receiver names the gap. While it waits for its done, a
 * sender reports how many of its messages its stack still holds
 * (queued, and sent but not acknowledged), so that a message the
 * receiver's stack acknowledged and never delivered stands out.
 */
#define INTEROP_MAX_STREAMS 8
#define INTEROP_MIN(a, b) ((a) < (b) ? (a) : (b))
#define INTEROP_STREAM_DIR(j) (2u + (j))
#define INTEROP_DONE_DIR(j) (64u + (j))
#define INTEROP_GO_DIR(j) (96u + (j))

struct interop_fanin_args {
	const char *name;		/* log prefix */
	struct sockaddr_in self;
	struct sockaddr_in peer;	/* sender: the receiver */
	/* receiver: stream j comes from senders[j] */
	struct sockaddr_in senders[INTEROP_MAX_STREAMS];
	unsigned int nb_senders;
	unsigned int stream;		/* sender: its stream */
	uint32_t n;			/* messages per stream */
	double timeout_s;		/* whole run */
	double linger_s;		/* as interop_args */
	/* receiver: a slow consumer, pausing pause_ms without touching its
	 * socket (nor driving an inline engine) after every pause_every
	 * messages; 0: never */
	uint32_t pause_ms, pause_every;
};

static inline const char *
interop_addr_str(const struct sockaddr_in *sin, char *buf, size_t len)
{
	char ip[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof(ip));
	snprintf(buf, len, "%s:%u", ip, ntohs(sin->sin_port));
	return buf;
}

static inline bool
interop_same_addr(const struct sockaddr_in *x, const struct sockaddr_in *y)
{
	return x->sin_addr.s_addr == y->sin_addr.s_addr &&
	       x->sin_port == y->sin_port;
}

/* One stream to a fan-in receiver. Returns 0 on success, 1 on failure. */
static inline int
interop_stream_send(const struct interop_fanin_args *a,
		    const struct interop_ops *ops)
{
	const char *nm = a->name;
	unsigned int d = INTEROP_STREAM_DIR(a->stream);
	uint8_t *buf, *rxbuf, want[INTEROP_DONE_SIZE], go[INTEROP_DONE_SIZE];
	struct interop_sha sha;
	uint32_t next = 0, size = 0, n = a->n;
	uint64_t bytes = 0, retries = 0;
	bool ready = false, done = false, ok = true, started = false;
	double t0 = interop_now(), t_note = t0, t_sent = 0, t;
	long q = -1, u = -1;
	int last_err = 0, notes = 0;
	char peer_s[32];

	interop_addr_str(&a->peer, peer_s, sizeof(peer_s));
	buf = malloc(INTEROP_MAX_SIZE);
	rxbuf = malloc(INTEROP_MAX_SIZE + 64);
	if (buf == NULL || rxbuf == NULL || interop_sha_init(&sha) != 0) {
		printf("%s: FAIL: out of memory\n", nm);
		free(buf);
		free(rxbuf);
		return 1;
	}
	interop_fill(INTEROP_DONE_DIR(a->stream), n, want, sizeof(want));
	interop_fill(INTEROP_GO_DIR(a->stream), 0, go, sizeof(go));
	printf("%s: stream %u to %s: %u messages once its go is in, timeout "
	       "%.0f s\n", nm,
	       a->stream, peer_s, n, a->timeout_s);
	while (!done) {
		int work = 0;

		if (ops->pump != NULL)
			ops->pump(ops->ctx);
		t = interop_now();
		if (t - t0 > a->timeout_s) {
			if (ops->unacked == NULL ||
			    ops->unacked(ops->ctx, &a->peer, &q, &u) != 0)
				q = u = -1;
			printf("%s: FAIL: stream %u: timeout after %.1f s: %s"
			       "sent %u/%u, no done from %s; our stack holds "
			       "%ld queued and %ld sent but unacknowledged "
			       "(last send error: %s)\n", nm, a->stream, t - t0,
			       started ? "" : "no go from the receiver; ", next,
			       n, peer_s, q, u,
			       last_err ? strerror(last_err) : "none");
			ok = false;
			break;
		}
		while (started && next < n) {
			int err;

			if (!ready) {
				size = interop_stream_size(a->stream, next, n);
				interop_fill(d, next, buf, size);
				ready = true;
			}
			err = ops->send(ops->ctx, &a->peer, buf, size);
			if (err != 0) {
				if (!interop_retryable(err)) {
					printf("%s: FAIL: stream %u: send of "
					       "message %u (%u bytes): %s\n", nm,
					       a->stream, next, size,
					       strerror(err));
					ok = false;
					goto out;
				}
				if (err != last_err && err != EAGAIN &&
				    notes++ < 20)
					printf("%s: stream %u: send of message "
					       "%u: %s, backing off (%.1f s)\n",
					       nm, a->stream, next,
					       strerror(err), t - t0);
				last_err = err;
				retries++;
				break;
			}
			interop_sha_msg(&sha, buf, size);
			bytes += size;
			ready = false;
			last_err = 0;
			work++;
			if (++next == n)
				t_sent = interop_now();
			if (ops->on_msg != NULL)
				ops->on_msg(ops->ctx, next);
		}
		for (;;) {
			struct sockaddr_in from;
			bool trunc = false;
			long r;

			/* not into buf: it may hold a message to send */
			r = ops->recv(ops->ctx, rxbuf, INTEROP_MAX_SIZE + 64,
				      &from, &trunc);
			if (r == -EAGAIN || r == -EWOULDBLOCK)
				break;
			if (r < 0) {
				if (interop_retryable((int)-r))
					break;
				printf("%s: FAIL: receive: %s\n", nm,
				       strerror((int)-r));
				ok = false;
				goto out;
			}
			work++;
			if (interop_same_addr(&from, &a->peer) && !trunc &&
			    r == INTEROP_DONE_SIZE &&
			    memcmp(rxbuf, go, sizeof(go)) == 0) {
				if (!started)
					printf("%s: stream %u: go after %.1f "
					       "s\n", nm, a->stream,
					       interop_now() - t0);
				started = true;
				continue;
			}
			if (!interop_same_addr(&from, &a->peer) || trunc ||
			    r != INTEROP_DONE_SIZE || next < n ||
			    memcmp(rxbuf, want, sizeof(want)) != 0) {
				char f[32];

				printf("%s: FAIL: stream %u: unexpected message "
				       "(%ld bytes) from %s after %u sent\n",
				       nm, a->stream, r,
				       interop_addr_str(&from, f, sizeof(f)),
				       next);
				ok = false;
				goto out;
			}
			done = true;
		}
		t = interop_now();
		if (!done && t - t_note >= 10.0) {
			if (next < n || ops->unacked == NULL ||
			    ops->unacked(ops->ctx, &a->peer, &q, &u) != 0)
				q = u = -1;
			printf("%s: %.1f s: stream %u: sent %u/%u", nm, t - t0,
			       a->stream, next, n);
			if (q >= 0)
				printf(", waiting for the done: %ld queued, "
				       "%ld unacknowledged", q, u);
			printf("\n");
			fflush(stdout);
			t_note = t;
		}
		if (work == 0)
			ops->wait(ops->ctx, 5, last_err == EAGAIN && next < n);
	}
	if (ok) {
		t = interop_now();
		printf("%s: stream %u: %u messages (%" PRIu64 " bytes) sent in "
		       "%.1f s, done from the receiver after %.1f s, %" PRIu64
		       " send retries (%.2f MB/s)\n", nm, a->stream, n, bytes,
		       t_sent - t0, t - t0, retries,
		       t > t0 ? (double)bytes / (t - t0) / 1e6 : 0.0);
	}
	/* Messages still held here after the receiver had them all are
	 * normal for a moment (the ACK of the last ones may still come). */
	if (ok && ops->unacked != NULL) {
		double t1 = interop_now();

		while (ops->unacked(ops->ctx, &a->peer, &q, &u) == 0 &&
		       (q != 0 || u != 0) && interop_now() - t1 < 10.0) {
			if (ops->pump != NULL)
				ops->pump(ops->ctx);
			ops->wait(ops->ctx, 20, false);
		}
		printf("%s: stream %u: at the end: %ld of our messages still "
		       "queued, %ld sent and not yet acknowledged\n", nm,
		       a->stream, q, u);
	}
	if (ok && a->linger_s > 0) {
		double t1 = interop_now();

		while (interop_now() - t1 < a->linger_s) {
			if (ops->pump != NULL)
				ops->pump(ops->ctx);
			ops->wait(ops->ctx, 10, false);
		}
	}
out:
	printf("%s: stream %u tx sha256 %s (%u messages, %" PRIu64
	       " bytes)\n", nm, a->stream, interop_sha_final(&sha), next,
	       bytes);
	printf("%s: %s\n", nm, ok ? "PASS" : "FAIL");
	fflush(stdout);
	free(buf);
	free(rxbuf);
	return ok ? 0 : 1;
}

/* Where a wrong 4 KiB fragment came from: a fragment of a nearby message
 * of any stream (k streams), or nothing known. */
static inline void
interop_frag_origin(const char *nm, const uint8_t *frag, uint32_t len,
		    unsigned int k, uint32_t near, uint32_t n)
{
	uint8_t *w = malloc(INTEROP_MAX_SIZE);
	uint32_t i, lo = near > 16 ? near - 16 : 0, z = 0, f;
	unsigned int j;

	while (z < len && frag[z] == 0)
		z++;
	if (z == len) {
		printf("%s:   it is all zeros\n", nm);
		free(w);
		return;
	}
	for (j = 0; w != NULL && j < k; j++) {
		for (i = lo; i < n && i <= near + 16; i++) {
			uint32_t sz = interop_stream_size(j, i, n);

			interop_fill(INTEROP_STREAM_DIR(j), i, w, sz);
			for (f = 0; f * 4096 < sz; f++) {
				uint32_t fl = INTEROP_MIN(sz - f * 4096, 4096);

				if (fl >= len &&
				    memcmp(w + f * 4096, frag, len) == 0) {
					printf("%s:   it is fragment %u of "
					       "message %u of stream %u\n", nm,
					       f, i, j);
					free(w);
					return;
				}
			}
		}
	}
	printf("%s:   it matches no fragment of messages %u..%u of any "
	       "stream\n", nm, lo, near + 16);
	free(w);
}

/* Explain a message that is not the one expected of stream j (of k). */
static inline void
interop_stream_mismatch(const char *nm, unsigned int j, unsigned int k,
			const char *who, uint32_t next, uint32_t n,
			const uint8_t *got, long r, bool trunc,
			const uint8_t *want, uint32_t wsz)
{
	unsigned int d = INTEROP_STREAM_DIR(j);
	uint64_t idx = UINT64_MAX;
	uint32_t b = 0, f, bad = 0, first_bad = UINT32_MAX;

	if (r >= 8)
		memcpy(&idx, got, 8);
	if (!trunc && idx > next && idx < n &&
	    (uint32_t)r == interop_stream_size(j, (uint32_t)idx, n)) {
		uint8_t *w = malloc((size_t)r + 1);

		if (w != NULL) {
			interop_fill(d, (uint32_t)idx, w, (uint32_t)r);
			if (memcmp(w, got, (size_t)r) == 0) {
				printf("%s: FAIL: stream %u (%s): messages %u.."
				       "%" PRIu64 " never arrived: message %"
				       PRIu64 " came in their place (%" PRIu64
				       " lost)\n", nm, j, who, next, idx - 1,
				       idx, idx - next);
				free(w);
				return;
			}
			free(w);
		}
	}
	if (trunc || (uint32_t)r != wsz) {
		printf("%s: FAIL: stream %u (%s): message %u: %ld bytes%s, want "
		       "%u (its first 8 bytes say index %" PRIu64 ")\n", nm, j,
		       who, next, r, trunc ? " (truncated)" : "", wsz, idx);
		return;
	}
	while (b < wsz && got[b] == want[b])
		b++;
	printf("%s: FAIL: stream %u (%s): message %u (%u bytes): content "
	       "differs at byte %u (got 0x%02x, want 0x%02x; index field %"
	       PRIu64 ")\n", nm, j, who, next, wsz, b, got[b], want[b], idx);
	/* Which 4 KiB fragments (the wire's unit) are wrong, and what they
	 * hold instead. */
	for (f = 0; f * 4096 < wsz; f++) {
		uint32_t fl = INTEROP_MIN(wsz - f * 4096, 4096);

		if (memcmp(got + f * 4096, want + f * 4096, fl) != 0) {
			if (first_bad == UINT32_MAX)
				first_bad = f;
			bad++;
		}
	}
	printf("%s:   %u of its %u fragments differ, the first is fragment "
	       "%u; its first bytes:", nm, bad, (wsz + 4095) / 4096,
	       first_bad);
	for (b = 0; b < 16 && first_bad * 4096 + b < wsz; b++)
		printf(" %02x", got[first_bad * 4096 + b]);
	printf("\n");
	interop_frag_origin(nm, got + first_bad * 4096,
			    INTEROP_MIN(wsz - first_bad * 4096, 4096), k, next, n);
}

/* The fan-in receiver: nb_senders streams into our one socket. Returns 0
 * when every stream arrived whole, intact and in order, 1 otherwise. */
static inline int
interop_stream_recv(const struct interop_fanin_args *a,
		    const struct interop_ops *ops)
{
	struct {
		uint32_t next;
		uint64_t bytes;
		bool done_sent;
		double t_go;		/* last go sent, 0: none yet */
		double t_last;
		struct interop_sha sha;
		char who[32];
	} st[INTEROP_MAX_STREAMS];
	const char *nm = a->name;
	unsigned int k = a->nb_senders, j, nb_done = 0;
	uint32_t n = a->n;
	uint8_t *rxbuf, *want, done_buf[INTEROP_DONE_SIZE];
	double t0 = interop_now(), t_note = t0, t_first = 0, t;
	uint64_t total = 0;
	bool ok = true;

	rxbuf = malloc(INTEROP_MAX_SIZE + 64);
	want = malloc(INTEROP_MAX_SIZE);
	if (k == 0 || k > INTEROP_MAX_STREAMS || rxbuf == NULL ||
	    want == NULL) {
		printf("%s: FAIL: bad set-up or out of memory\n", nm);
		free(rxbuf);
		free(want);
		return 1;
	}
	for (j = 0; j < k; j++) {
		st[j].next = 0;
		st[j].bytes = 0;
		st[j].done_sent = false;
		st[j].t_go = 0;
		st[j].t_last = 0;
		interop_addr_str(&a->senders[j], st[j].who, sizeof(st[j].who));
		if (interop_sha_init(&st[j].sha) != 0) {
			printf("%s: FAIL: out of memory\n", nm);
			return 1;
		}
	}
	printf("%s: fan-in of %u streams of %u messages into one socket, "
	       "timeout %.0f s\n", nm, k, n, a->timeout_s);
	fflush(stdout);
	while (nb_done < k) {
		int work = 0;

		if (ops->pump != NULL)
			ops->pump(ops->ctx);
		t = interop_now();
		if (t - t0 > a->timeout_s) {
			printf("%s: FAIL: timeout after %.1f s:", nm, t - t0);
			for (j = 0; j < k; j++)
				printf(" stream %u (%s) %u/%u", j, st[j].who,
				       st[j].next, n);
			printf("\n");
			ok = false;
			break;
		}
		for (;;) {
			struct sockaddr_in from;
			bool trunc = false;
			uint32_t wsz;
			long r;

			r = ops->recv(ops->ctx, rxbuf, INTEROP_MAX_SIZE + 64,
				      &from, &trunc);
			if (r == -EAGAIN || r == -EWOULDBLOCK)
				break;
			if (r < 0) {
				if (interop_retryable((int)-r))
					break;
				printf("%s: FAIL: receive: %s\n", nm,
				       strerror((int)-r));
				ok = false;
				goto out;
			}
			work++;
			for (j = 0; j < k; j++)
				if (interop_same_addr(&from, &a->senders[j]))
					break;
			if (j == k || st[j].next >= n) {
				char f[32];

				printf("%s: FAIL: %s message (%ld bytes) from "
				       "%s\n", nm, j == k ? "unexpected" :
				       "extra", r,
				       interop_addr_str(&from, f, sizeof(f)));
				ok = false;
				goto out;
			}
			wsz = interop_stream_size(j, st[j].next, n);
			interop_fill(INTEROP_STREAM_DIR(j), st[j].next, want,
				     wsz);
			if (trunc || (uint32_t)r != wsz ||
			    memcmp(rxbuf, want, wsz) != 0) {
				interop_stream_mismatch(nm, j, k, st[j].who,
							st[j].next, n, rxbuf, r,
							trunc, want, wsz);
				ok = false;
				goto out;
			}
			if (t_first == 0)
				t_first = interop_now();
			if (a->pause_ms != 0 && a->pause_every != 0 &&
			    (st[j].next + 1) % a->pause_every == 0) {
				struct timespec ts = {
					.tv_sec = a->pause_ms / 1000,
					.tv_nsec = (long)(a->pause_ms % 1000) *
						   1000000L };

				nanosleep(&ts, NULL);
			}
			interop_sha_msg(&st[j].sha, rxbuf, wsz);
			st[j].bytes += wsz;
			total += wsz;
			if (++st[j].next == n)
				st[j].t_last = interop_now();
			if (ops->on_msg != NULL) {
				uint64_t all = 0;
				unsigned int q;

				for (q = 0; q < k; q++)
					all += st[q].next;
				ops->on_msg(ops->ctx, all);
			}
			/* An inline engine runs only when driven: checking a
			 * backlog of large messages must not starve it. */
			if (ops->pump != NULL)
				ops->pump(ops->ctx);
		}
		/* A stream that has not started gets its go (again); a
		 * complete one its done. */
		for (j = 0; j < k; j++) {
			int err;

			if (st[j].next == 0 &&
			    (st[j].t_go == 0 || interop_now() - st[j].t_go > 2.0)) {
				interop_fill(INTEROP_GO_DIR(j), 0, done_buf,
					     sizeof(done_buf));
				err = ops->send(ops->ctx, &a->senders[j],
						done_buf, sizeof(done_buf));
				if (err == 0)
					st[j].t_go = interop_now();
				else if (!interop_retryable(err)) {
					printf("%s: FAIL: go to %s: %s\n", nm,
					       st[j].who, strerror(err));
					ok = false;
					goto out;
				}
			}
			if (st[j].next < n || st[j].done_sent)
				continue;
			interop_fill(INTEROP_DONE_DIR(j), n, done_buf,
				     sizeof(done_buf));
			err = ops->send(ops->ctx, &a->senders[j], done_buf,
					sizeof(done_buf));
			if (err == 0) {
				st[j].done_sent = true;
				nb_done++;
				work++;
			} else if (!interop_retryable(err)) {
				printf("%s: FAIL: done to %s: %s\n", nm,
				       st[j].who, strerror(err));
				ok = false;
				goto out;
			}
		}
		t = interop_now();
		if (t - t_note >= 10.0) {
			printf("%s: %.1f s:", nm, t - t0);
			for (j = 0; j < k; j++)
				printf(" stream %u %u/%u", j, st[j].next, n);
			printf(" (%" PRIu64 " bytes)\n", total);
			fflush(stdout);
			t_note = t;
		}
		if (work == 0)
			ops->wait(ops->ctx, 5, false);
	}
	t = interop_now();
	if (ok) {
		printf("%s: all %u streams of %u messages received intact and "
		       "in order (%" PRIu64 " bytes in %.1f s; first message "
		       "after %.1f s; %.2f MB/s)\n", nm, k, n, total, t - t0,
		       t_first > 0 ? t_first - t0 : 0.0, t > t_first &&
		       t_first > 0 ? (double)total / (t - t_first) / 1e6 : 0.0);
		for (j = 0; j < k; j++)
			printf("%s: stream %u (%s) complete after %.1f s\n", nm,
			       j, st[j].who, st[j].t_last - t0);
	}
	/* Our dones must leave before we close (a closed socket drops
	 * what it still holds). */
	if (ok && ops->unacked != NULL) {
		double t1 = interop_now();
		long q = 0, u = 0, qs, us;

		do {
			struct sockaddr_in from;
			bool trunc;
			long r;

			q = u = 0;
			for (j = 0; j < k; j++) {
				if (ops->unacked(ops->ctx, &a->senders[j], &qs,
						 &us) != 0) {
					q = u = 0;
					break;
				}
				q += qs;
				u += us;
			}
			if (q == 0)
				break;
			r = ops->recv(ops->ctx, rxbuf, INTEROP_MAX_SIZE + 64,
				      &from, &trunc);
			if (r >= 0) {
				printf("%s: FAIL: extra message (%ld bytes) "
				       "after every stream was complete\n", nm,
				       r);
				ok = false;
				break;
			}
			if (ops->pump != NULL)
				ops->pump(ops->ctx);
			ops->wait(ops->ctx, 20, false);
		} while (interop_now() - t1 < 30.0);
		if (ok && q != 0) {
			printf("%s: FAIL: %ld done messages were never "
			       "transmitted\n", nm, q);
			ok = false;
		}
	}
	if (ok && a->linger_s > 0) {
		double t1 = interop_now();

		while (interop_now() - t1 < a->linger_s) {
			if (ops->pump != NULL)
				ops->pump(ops->ctx);
			ops->wait(ops->ctx, 10, false);
		}
	}
out:
	for (j = 0; j < k; j++)
		printf("%s: stream %u rx sha256 %s (%u messages, %" PRIu64
		       " bytes, from %s)\n", nm, j,
		       interop_sha_final(&st[j].sha), st[j].next, st[j].bytes,
		       st[j].who);
	printf("%s: %s\n", nm, ok ? "PASS" : "FAIL");
	fflush(stdout);
	free(rxbuf);
	free(want);
	return ok ? 0 : 1;
}

#endif /* INTEROP_PROTO_H */

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
 * Direction 0 is sent by the side with the lower address (IPv4 or IPv6,
 * compared as 16 bytes with IPv4 v4-mapped, as the kernel's
 * rds_addr_cmp), 1 by the other. Sizes: a handful of edge sizes (0, 1, 7, 8, 47, 48, 4095, 4096,
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
 *
 * Declared here, defined in interop_proto.c (sizes, contents, digests,
 * interop_run()) and interop_stream.c (the fan-in), which meson builds
 * into each peer; krds_peer links no librte_rds, both link libcrypto.
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
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <openssl/evp.h>

#define INTEROP_PORT 4242		/* RDS port both sides bind */
#define INTEROP_COUNT 500		/* data messages per direction */
#define INTEROP_MAX_SIZE (1u << 20)	/* the two big ones */
#define INTEROP_DONE_SIZE 16		/* the final "done" message */
#define INTEROP_TIMEOUT_S 240		/* whole exchange */
#define INTEROP_BUFSZ (4 << 20)		/* SO_SNDBUF / SO_RCVBUF */

/* Size of message i of direction d (n messages per direction). */
uint32_t interop_size(unsigned int d, uint32_t i, uint32_t n);
/*
 * Size of message i of fan-in stream j: the edge sizes of interop_size(),
 * then sizes spread over 0..1 MiB in four equally likely bands (<= 64,
 * <= 4 KiB, <= 64 KiB, <= 1 MiB): about 140 KB on average, a quarter of
 * the messages above 64 KiB, so that a stream keeps a receiver's ring
 * busy (a 1 MiB message is 256 fragments of 4 KiB).
 */
uint32_t interop_stream_size(unsigned int j, uint32_t i, uint32_t n);
/* Content of message i of direction d. */
void interop_fill(unsigned int d, uint32_t i, uint8_t *buf, uint32_t size);

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

int interop_sha_init(struct interop_sha *s);
void interop_sha_msg(struct interop_sha *s, const uint8_t *buf, uint32_t len);
/* Finish: the digest in hex (s->hex). */
const char *interop_sha_final(struct interop_sha *s);

/* A name of either family: IPv4 (sockaddr_in) or IPv6 (sockaddr_in6,
 * with its scope for a link-local address). */
union interop_addr {
	struct sockaddr sa;
	struct sockaddr_in in;
	struct sockaddr_in6 in6;
};

static inline socklen_t
interop_addr_len(const union interop_addr *a)
{
	return a->sa.sa_family == AF_INET6 ? sizeof(a->in6) : sizeof(a->in);
}

static inline bool
interop_addr_v6(const union interop_addr *a)
{
	return a->sa.sa_family == AF_INET6;
}

/* "IP", "IP:PORT", "IPV6", "[IPV6]" or "[IPV6]:PORT", an IPv6 address
 * with an optional "%SCOPE" (interface name or index); port when none is
 * given. 0, or -1 when it does not parse. */
int interop_parse_addr(const char *arg, uint16_t port, union interop_addr *a);
/* The address as 16 bytes, IPv4 v4-mapped (the kernel's in6 form). */
void interop_addr_in6(const union interop_addr *a, struct in6_addr *out);

/* What each program provides. Errors are positive errno values. */
struct interop_ops {
	/* Send one message to `to` without blocking: 0 or errno. */
	int (*send)(void *ctx, const union interop_addr *to, const void *buf,
		    size_t len);
	/* Receive one message without blocking: length, or -errno (-EAGAIN
	 * when nothing is queued). *from gets the sender, *trunc whether the
	 * message was longer than cap. */
	long (*recv)(void *ctx, void *buf, size_t cap,
		     union interop_addr *from, bool *trunc);
	/* Wait up to ms milliseconds for something to do (readable, or
	 * writable when want_out). */
	void (*wait)(void *ctx, int ms, bool want_out);
	/* Our messages to `to` still queued (RDS_INFO_SEND_MESSAGES: not
	 * yet handed to the transport) and sent but not acknowledged
	 * (RDS_INFO_RETRANS_MESSAGES). Returns 0, or -1 if unknown. */
	int (*unacked)(void *ctx, const union interop_addr *to, long *queued,
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
	union interop_addr self, peer;
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
int interop_run(const struct interop_args *a, const struct interop_ops *ops);

/*
 * The pieces the loops of interop_run() and of the fan-in share
 * (interop_proto.c).
 */

/* Receive one message into buf (INTEROP_MAX_SIZE + 64 bytes) without
 * blocking: its length, with *from and *trunc set; INTEROP_RECV_NONE when
 * nothing is queued or on a retryable error; INTEROP_RECV_FAIL on any
 * other error (printed). */
#define INTEROP_RECV_NONE (-1L)
#define INTEROP_RECV_FAIL (-2L)
long interop_recv_one(const char *nm, const struct interop_ops *ops,
		      uint8_t *buf, union interop_addr *from, bool *trunc);

/* A sender's state across refused sends. */
struct interop_backoff {
	int last_err;		/* of the last send, 0 once one went out */
	int notes;		/* back-off lines printed (at most 20) */
	uint64_t retries;	/* sends refused with a retryable error */
};

/* Send message idx (buf, size bytes) to `to`: 0 when it went out; 1 when
 * the stack said back off (try it again later); -1 on a failure
 * (printed). label follows the log prefix ("" or "stream 1: "), elapsed
 * is the time into the run, for the log. */
int interop_try_send(const char *nm, const char *label,
		     const struct interop_ops *ops,
		     const union interop_addr *to, const uint8_t *buf,
		     uint32_t size, uint32_t idx, double elapsed,
		     struct interop_backoff *b);

/* Print why got (r bytes, trunc: it was longer) is not message next,
 * want (wsz bytes): its size, or the first byte that differs. label as
 * for interop_try_send(). Returns true when the sizes agree (the content
 * differs), false otherwise. */
bool interop_explain(const char *nm, const char *label, uint32_t next,
		     const uint8_t *got, long r, bool trunc,
		     const uint8_t *want, uint32_t wsz);

/* Keep the socket serviced (pump, wait) for s seconds. */
void interop_linger(const struct interop_ops *ops, double s);

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
	union interop_addr self;
	union interop_addr peer;	/* sender: the receiver */
	/* receiver: stream j comes from senders[j] */
	union interop_addr senders[INTEROP_MAX_STREAMS];
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

/* "ip:port" or "[ipv6]:port" of a into buf (at least 64 bytes). */
const char *interop_addr_str(const union interop_addr *a, char *buf,
			     size_t len);

/* Same family, address and port (an IPv6 scope aside)? */
static inline bool
interop_same_addr(const union interop_addr *x, const union interop_addr *y)
{
	if (x->sa.sa_family != y->sa.sa_family)
		return false;
	if (x->sa.sa_family == AF_INET6)
		return memcmp(&x->in6.sin6_addr, &y->in6.sin6_addr, 16) == 0 &&
		       x->in6.sin6_port == y->in6.sin6_port;
	return x->in.sin_addr.s_addr == y->in.sin_addr.s_addr &&
	       x->in.sin_port == y->in.sin_port;
}

/* One stream to a fan-in receiver. Returns 0 on success, 1 on failure. */
int interop_stream_send(const struct interop_fanin_args *a,
			const struct interop_ops *ops);
/* The fan-in receiver: nb_senders streams into our one socket. Returns 0
 * when every stream arrived whole, intact and in order, 1 otherwise. */
int interop_stream_recv(const struct interop_fanin_args *a,
			const struct interop_ops *ops);
/* Where a wrong 4 KiB fragment came from: a fragment of a nearby message
 * of any stream (k streams), or nothing known. */
void interop_frag_origin(const char *nm, const uint8_t *frag, uint32_t len,
			 unsigned int k, uint32_t near, uint32_t n);
/* Explain a message that is not the one expected of stream j (of k). */
void interop_stream_mismatch(const char *nm, unsigned int j, unsigned int k,
			     const char *who, uint32_t next, uint32_t n,
			     const uint8_t *got, long r, bool trunc,
			     const uint8_t *want, uint32_t wsz);

#endif /* INTEROP_PROTO_H */

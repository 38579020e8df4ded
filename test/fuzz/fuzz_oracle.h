/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RDS_FUZZ_ORACLE_H
#define RDS_FUZZ_ORACLE_H

/*
 * The oracle of the receive-path fuzz targets: a model of one RDS peer
 * and of the local sockets, written from RDS semantics (rds(7), the
 * kernel's net/rds/recv.c and ib_recv.c) and judging the library only by
 * what comes out of it: messages received through the socket calls,
 * frames it transmits, and its public counters.
 *
 * The model does not predict behaviour RDS leaves open. Where a
 * receiver may do either of two things (refuse an extension header cut
 * off by the end of its space, treat a CONG_BITMAP flag mixed with
 * others as a map or as data, ...) it allows both, and widens what it
 * knows of the connection's state accordingly (the next expected
 * sequence number becomes a range). It checks:
 *
 * - well formed frames are accepted and malformed ones refused (what the
 *   transport contract returns: 0 or -EBADMSG);
 * - every received message has the source, length and bytes of a frame
 *   injected to that socket's address and port, delivered at most once,
 *   in injection order; frames that must be delivered are (the duplicate
 *   rule: only a frame flagged RETRANSMITTED with a sequence number below
 *   the next expected one is dropped; gaps and older numbers are not);
 *   nothing arrives at another address or port; the RDMA_DEST cookie of
 *   a frame reaches the receiver unchanged;
 * - the frames the core sends back are well formed (checksum, length),
 *   never acknowledge a sequence number the peer did not send, and
 *   acknowledge every accepted one eventually; pings get exactly one
 *   pong; congestion maps name only bound ports; messages the local
 *   sockets send go out in order, once (a retransmission only after a
 *   reset, and never of what the peer acknowledged);
 * - a congestion map from the peer is obeyed by non-blocking sends;
 * - the counters agree with all of the above.
 *
 * One peer connection per oracle instance (struct fo), as many local
 * sockets as FO_MAX_SOCKS. Any violation calls fz_fail().
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_rds.h>

#include "fuzz_common.h"

#define FO_MAX_FRAMES 2048
#define FO_MAX_SOCKS 8
#define FO_MAX_SENT 4096	/* messages and pongs */
#define FO_ARENA_BYTES (24u << 20)
#define FO_MAX_PING_PORTS 64

/* What the model knows of something: certainly not, perhaps, certainly. */
enum fo_tri { FO_NO = 0, FO_MAYBE = 1, FO_YES = 2 };

/* What a receiver may make of an accepted frame. */
enum fo_class {
	FO_C_ACK,	/* ACK-only: ports 0, no payload */
	FO_C_MAP,	/* congestion map: flags CONG_BITMAP, 8 KiB */
	FO_C_SEQ,	/* sequenced: data, ping, pong */
	FO_C_ODD,	/* CONG_BITMAP with other flags or another size:
			 * a map, an ACK, or data, as the receiver sees it */
	FO_C_BAD,	/* refused (not taken at all) */
};

struct fo_frame {
	struct fz_hdr h;
	struct fz_ext_view ext;
	uint32_t len;		/* payload bytes handed over with it */
	const uint8_t *data;	/* its payload: in the arena, or stable */
	uint8_t cls;		/* enum fo_class */
	uint8_t deliver;	/* enum fo_tri */
	uint8_t dup;		/* dropped as a duplicate: enum fo_tri */
	bool matched;		/* a socket certainly received it */
	int sock;		/* socket its address and port name, or -1 */
	unsigned int step;
};

struct fo_sock {
	int id;
	uint32_t laddr;		/* IPv4, network order */
	uint16_t port;
	/* Where the matching of received messages to injected frames may
	 * stand (a set of frame indexes: frames before one are decided,
	 * delivered or not). Frames that look the same make it a set:
	 * which one arrived is known only from what arrives later. */
	uint64_t hyp[(FO_MAX_FRAMES + 64) / 64];
	uint64_t received;
	/* Sent to the peer: sent[] indexes of this socket, in order. */
	unsigned int tx_next;	/* first not yet seen on the wire */
};

struct fo_sent {
	int sock;
	uint16_t sport, dport;
	uint32_t len;
	uint64_t hash;
	uint64_t seq;		/* once seen on the wire, else 0 */
	bool on_wire;
	bool acked;		/* the peer acknowledged it since */
};

struct fo_pending_tx {
	uint8_t hdr[FZ_HDR_SIZE];
	uint32_t len;
	uint64_t hash;		/* of the payload */
	uint8_t *map;		/* a congestion map's bytes, or NULL */
};

struct fo {
	/* The connection: our address, the peer's (network order). */
	uint32_t laddr, faddr;
	/* Receive side, as the model knows it. */
	uint64_t rx_lo, rx_hi;	/* range of the next expected sequence */
	bool rx_any;		/* nothing sequenced yet: next is 0 */
	uint64_t ack_bound;	/* highest sequence the core may ACK */
	bool ack_bound_set;
	uint64_t ack_pending;	/* highest accepted, not yet ACKed */
	bool ack_pending_set;
	uint64_t tx_ack_max;	/* highest ACK the core sent */
	bool tx_ack_any;
	/* Peer's congestion map as last sent (certain unless map_unsure). */
	uint64_t peer_cong[FZ_CONG_MAP_BYTES / 8];
	bool map_unsure;

	struct fo_frame fr[FO_MAX_FRAMES];
	unsigned int nfr;
	uint8_t *arena;
	uint64_t arena_used;	/* also counts stable payloads */
	/* Bytes that never change in a run (fo_set_stable): payloads in
	 * them are kept by reference, not copied into the arena. */
	const uint8_t *stable;
	size_t stable_len;

	struct fo_sock sk[FO_MAX_SOCKS];
	unsigned int nsk;

	/* Sending side. */
	struct fo_sent sent[FO_MAX_SENT];
	unsigned int nsent;
	uint64_t tx_last_seq;	/* last new (not retransmitted) seq seen */
	uint64_t peer_acked;	/* highest ACK the peer certainly gave */
	bool resets;		/* the harness reset the connection */

	/* Frames the core transmitted, queued until fo_settle_tx(). */
	struct fo_pending_tx *txq;
	unsigned int ntxq, txq_cap;

	/* Tallies for the counters. */
	struct {
		uint64_t injected, accepted, refused, other;
		uint64_t c_ack, c_map, c_seq, c_odd;
		uint64_t dup_yes, dup_maybe;
		uint64_t ping_yes, ping_maybe;	/* ping_yes: sport != 0 */
		uint64_t nosock_yes, nosock_maybe;
		uint64_t delivered;		/* messages received */
		uint64_t tx_frames, tx_acks, tx_maps, tx_pongs;
		uint64_t tx_retrans;
	} n;
	/* Pongs owed, per source port of the pings (FO_MAX_PING_PORTS
	 * ports; past that, pongs are only counted). */
	struct fo_ping {
		uint16_t port;
		uint32_t min, max, got;
	} ping[FO_MAX_PING_PORTS];
	unsigned int nping;
	bool ping_overflow;

	/* Messages on the wire (sockets' and pongs), in sequence order. */
	unsigned int wire[FO_MAX_SENT];
	unsigned int nwire, wire_acked;	/* wire[0..wire_acked) acked */

	bool polled_since_map;	/* an engine poll since the last map */

	/* Called when a frame may have reached a socket (at injection, or
	 * when it is one of several that a received message could be:
	 * matched false) and when a socket certainly received it (matched
	 * true). */
	void (*deliver_hook)(const struct fo_frame *f, bool matched);
};

extern struct fo fo;

/* Start a new run: our address and the peer's (network order). */
void fo_reset(uint32_t laddr, uint32_t faddr);
/* Payloads handed to fo_inject() from within [p, p + n) are not copied:
 * the harness never changes those bytes after it made them (a pattern). */
void fo_set_stable(const uint8_t *p, size_t n);
/* A local socket bound to laddr:port (host order port); returns its
 * index for fo_received. */
int fo_add_sock(int id, uint32_t laddr, uint16_t port);
/* Index of a socket bound to (laddr, port), or -1. */
int fo_sock_at(uint32_t laddr, uint16_t port);

/*
 * A frame the harness handed to the core, as wire bytes (header and
 * len bytes of payload), and what the core returned. Call after every
 * injection; it also judges the frames the core sent meanwhile.
 */
void fo_inject(const uint8_t hdr[FZ_HDR_SIZE], const uint8_t *payload,
	       uint32_t len, int ret);

/* The capture transport's sink: a frame the core transmitted. Queued
 * and judged at the next fo_settle_tx() (so that the model first learns
 * of the frames that caused it). */
void fo_tx_sink(void *arg, const uint8_t hdr[48], const uint8_t *payload,
		uint32_t len);
void fo_settle_tx(void);

/* The cookie a receive reported (RDS_CMSG_RDMA_DEST). */
enum fo_cookie { FO_CK_UNKNOWN, FO_CK_NONE, FO_CK_SOME };

/*
 * A message socket index si received: from (network order address and
 * host order port), copied bytes of data out of full_len, and the cookie
 * the receive reported.
 */
void fo_received(int si, uint32_t from_addr, uint16_t from_port,
		 const uint8_t *data, uint32_t copied, uint32_t full_len,
		 enum fo_cookie ck, uint64_t cookie);

/*
 * A local socket si sent len bytes to the peer's port dport
 * (MSG_DONTWAIT): ret and errno of the call.
 */
void fo_send(int si, uint16_t dport, const uint8_t *data, uint32_t len,
	     long ret, int err);

/* The harness reset the connection (a transport error). */
void fo_reset_conn(void);
/* The harness polled the engine. */
void fo_polled(void);
/* Room for one more frame of len payload bytes? */
bool fo_room(uint32_t len);

/* Does the model still owe something that polls would produce (ACKs,
 * pongs, messages not yet on the wire)? */
bool fo_tx_owed(void);

/*
 * End of a run, after the harness polled until nothing was owed (or a
 * time limit) and drained every socket: everything that had to arrive
 * arrived, the counters agree. extra_frames: frames of other
 * connections (loop) that the counters also count.
 */
void fo_finish(const struct rte_rds_stats *st, uint64_t extra_frames);


#endif /* RDS_FUZZ_ORACLE_H */

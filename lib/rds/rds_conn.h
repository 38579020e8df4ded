/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connections (rds_conn.c): struct rds_conn, its key and states, and the
 * engine that owns a pair of addresses. Part of rds_private.h, which
 * includes it after rds_timer.h: include that, not this.
 */
#ifndef RDS_CONN_H
#define RDS_CONN_H

#ifndef RDS_PRIVATE_H
#error "include rds_private.h, not rds_conn.h"
#endif

/* ------------------------------------------------------------------ */
/* Connections: one per (local address, peer address, transport), owned
 * by one engine. States and transitions as in the kernel. */

enum rds_conn_state {
	RDS_CONN_DOWN = 0,
	RDS_CONN_CONNECTING,
	RDS_CONN_DISCONNECTING,
	RDS_CONN_UP,
	RDS_CONN_RESETTING,
	RDS_CONN_ERROR,
};

struct rds_conn_key {
	struct in6_addr laddr;
	struct in6_addr faddr;
	uint32_t trans_id;
};

/* Entries of an engine's connection cache (a power of two). */
#define RDS_CONN_CACHE 256

/* The connection cache's entry for a connection's addresses and
 * transport: the low words of the two addresses (all of an IPv4
 * address), multiplied apart so that the two directions of a pair fall
 * on different entries. */
static inline unsigned int
rds_conn_cache_slot_of(const struct in6_addr *laddr,
		       const struct in6_addr *faddr, uint32_t trans_id)
{
	uint32_t l, f;

	memcpy(&l, &laddr->s6_addr[12], sizeof(l));
	memcpy(&f, &faddr->s6_addr[12], sizeof(f));
	return ((l * 0x9e3779b1u + f) * 0x85ebca6bu + trans_id) >>
	       (32 - __builtin_ctz(RDS_CONN_CACHE));
}

static inline unsigned int
rds_conn_cache_slot(const struct rds_conn_key *key)
{
	return rds_conn_cache_slot_of(&key->laddr, &key->faddr, key->trans_id);
}

TAILQ_HEAD(rds_msg_list, rds_msg);

struct rds_conn {
	TAILQ_ENTRY(rds_conn) link;
	TAILQ_ENTRY(rds_conn) ready_link;
	bool ready;			/* on the engine's ready list */
	struct rds_conn_key key;
	struct rds_engine *eng;
	const struct rds_transport *trans;
	struct rds_laddr *la;		/* local address entry */
	struct rds_cong_map *fcong;	/* peer's congestion map */
	enum rds_conn_state state;

	/* Sending. */
	uint64_t next_tx_seq;		/* from 1 */
	struct rds_msg_list send_q;	/* stamped, not yet transmitted */
	struct rds_msg_list retrans_q;	/* transmitted, not yet acked */
	struct rds_msg *xmit_cur;	/* head of send_q the transport has
					 * started but not finished */
	uint32_t unacked_packets;
	uint64_t unacked_bytes;
	bool map_queued;		/* send our congestion map */
	bool map_synced;		/* the peer has a map of ours sent on
					 * this connection since it came up
					 * (RDS_TRANS_F_MAP_DELTA: changes
					 * alone may follow) */
	uint32_t map_gen_sent;
	struct rds_msg *map_cur;	/* the copy of it the transport may
					 * be inside (kept across -EAGAIN) */
	uint32_t map_cur_gen;

	/* Receiving. */
	uint64_t next_rx_seq;		/* not reset on reconnect */
	uint64_t ack_next;		/* highest sequence received */
	uint64_t ack_sent;		/* last ACK value sent */
	bool ack_requested;		/* peer asked for an ACK */
	bool xmit_blocked;		/* the transport's window was full at
					 * the last transmit: the send queue is
					 * no work until it calls
					 * rds_conn_xmit_unblock (an ACK, a new
					 * stream); set by the transport,
					 * cleared at each rds_send_xmit */
	bool ack_due;			/* the delayed-ACK timer fired */
	struct rds_timer ack_timer;

	/* Reconnect backoff. */
	uint64_t reconnect_ceil_ms;	/* 0: next attempt immediate */
	bool reconnect_due;		/* the backoff timer fired */
	struct rds_timer conn_timer;
	bool drop_pending;		/* transport asked for a reset */
	bool unresponsive;		/* the transport reports the peer does
					 * not answer (info, telemetry) */

	/* Wrong RDMA keys from the peer (rds_rdma_guard.c), kept across
	 * reconnects: a peer clears nothing by coming up again. */
	uint64_t rdma_bad_keys;		/* in all */
	uint32_t rdma_key_level;	/* leaky bucket: the limit resets */
	uint32_t rdma_key_resets;	/* resets for wrong keys */
	uint64_t rdma_key_leak_tsc;	/* when the bucket last leaked */
	uint64_t rdma_hold_until;	/* TSC: RDMA refused before; 0: not */

	void *tp;			/* transport private */
};

/* A frame that carries the connection's cumulative ACK ack (its
 * header's ACK field, as the header builders return it) is on its way:
 * nothing is owed until a new message arrives. The driver calls it
 * after the frame is queued (posted, delivered, in the ring), never
 * when building the header: a header built for a frame that did not go
 * (no room, a receiver that cannot take it) leaves the ACK owed. Also
 * for a frame that left and was lost (loop's fault hooks: as on a
 * wire). Not on a transport that acknowledges itself (RDS_TRANS_F_ACKS:
 * its headers carry none). */
static inline void
rds_conn_ack_sent(struct rds_conn *c, uint64_t ack)
{
	c->ack_sent = ack;
	if (ack == c->ack_next) {
		c->ack_requested = false;
		c->ack_due = false;
	}
}

/* rds_conn.c */
struct rds_conn *rds_conn_lookup(struct rds_engine *e,
				 const struct rds_conn_key *key);
struct rds_conn *rds_conn_get(struct rds_engine *e,
			      const struct rds_conn_key *key);
void rds_conn_destroy(struct rds_conn *c);
void rds_conn_drop(struct rds_conn *c);
/* RDS_CONN_RESET (v6 false) / RDS6_CONN_RESET (true) on socket rs: drop
 * the connections the request names (rds_conn_reset.c). 0 or -errno. */
struct rds_sock;
int rds_conn_user_reset(struct rds_sock *rs, const void *optval,
			socklen_t optlen, bool v6);
/* A transport reports a fatal error on c: the engine drops and
 * reconnects it at its next pass (as net/rds drivers call
 * rds_conn_drop). */
void rds_conn_error(struct rds_conn *c, const char *why);
/* c has something to do (send, ACK, connect): put it on the ready list. */
static inline void rds_conn_ready(struct rds_conn *c);
unsigned int rds_conn_run(struct rds_conn *c, uint64_t now);	/* rds_xmit.c */
unsigned int rds_conn_run_connect(struct rds_conn *c, uint64_t now);
unsigned int rds_conn_engine_of(const struct in6_addr *laddr,
				const struct in6_addr *faddr);
unsigned int rds_conn_engine_of_hash_n(uint32_t lhash, uint32_t fhash);
static inline unsigned int rds_conn_engine_of_hash(uint32_t lhash,
						   uint32_t fhash);
uint32_t rds_addr_hash(const struct in6_addr *a);
const char *rds_conn_state_name(enum rds_conn_state st);
/* Received messages were accepted: ACK now, or after the delay. */
void rds_conn_ack_later(struct rds_conn *c);

#endif /* RDS_CONN_H */

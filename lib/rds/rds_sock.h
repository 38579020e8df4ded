/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sockets: handle slots, struct rds_sock, holding and waking a socket,
 * requests to its home engine (rds_sock.c) and bound ports (rds_bind.c).
 * Part of rds_private.h, which includes it after rds_queue.h: include
 * that, not this.
 */
#ifndef RDS_SOCK_H
#define RDS_SOCK_H

#ifndef RDS_PRIVATE_H
#error "include rds_private.h, not rds_sock.h"
#endif

/* ------------------------------------------------------------------ */
/* Sockets. */

enum rds_slot_state {
	RDS_SOCK_FREE = 0,
	RDS_SOCK_OPEN,
	RDS_SOCK_CLOSING,
};

/* A socket handle's slot: small, never freed before rte_rds_fini(), so
 * that a racing call on a closed handle always finds valid memory. */
struct rds_slot {
	uint32_t state;			/* enum rds_slot_state (atomic) */
	uint32_t gen;			/* bumped on every close */
	uint32_t refs;			/* calls inside (atomic) */
	int32_t next_free;		/* free list, under the table lock */
	struct rds_sock *body;
};

/* so_flags of SO_TIMESTAMP_OLD/NEW (the kernel's SOCK_RCVTSTAMP,
 * SOCK_TSTAMP_NEW); the generic flags below them (rds_sockopt.c). */
#define RDS_SO_F_RCVTSTAMP (1u << 7)
#define RDS_SO_F_TSTAMP_NEW (1u << 8)
/* SO_RDS_MSG_RXPATH_LATENCY is set (rx_traces != 0): read with
 * RDS_SO_F_RCVTSTAMP in one test on delivery. */
#define RDS_SO_F_RXTRACE (1u << 9)
/* struct rds_msg rx_ts: which timestamp a received message carries. */
#define RDS_TS_OLD 1
#define RDS_TS_NEW 2
#define RDS_TS_MASK 3
#define RDS_TS_TRACE 4		/* with or without a timestamp: rx_trace */


struct rds_sock {
	int id;
	uint32_t gen;			/* its slot's generation */
	struct rds_slot *slot;
	rte_spinlock_t lock;		/* bind, options, request enqueue */
	rte_spinlock_t rlock;		/* receive side */

	/* Set by the application, read by engines after bind: the state
	 * the socket calls read (rds_front.h), then what only an in-process
	 * socket has. */
	struct rds_front f;
	struct rds_laddr *la;
	uint32_t rcvbuf;
	int recverr;			/* RDS_RECVERR */
	int cong_monitor;		/* RDS_CONG_MONITOR */
	uint32_t so_flags;		/* generic SOL_SOCKET flags set
					 * (rds_sockopt.c): kept, no effect,
					 * but RDS_SO_F_RCVTSTAMP (the engine
					 * reads it: atomic) */
	int so_priority;		/* SO_PRIORITY: kept, no effect */
	uint8_t tos;			/* SIOCRDSSETTOS, under lock */
	uint32_t rx_trace;		/* SO_RDS_MSG_RXPATH_LATENCY (atomic):
					 * the count in byte 0, the positions
					 * in bytes 1 to 3, as struct
					 * rds_rx_trace's n and pos[] */
	int efd;			/* eventfd for poll/epoll, or -1 */
	bool watched;			/* on the congestion watch list */
	TAILQ_ENTRY(rds_sock) watch_link;
	/* The last destination's map (atomic pointer; maps live until
	 * rte_rds_fini). */
	struct rds_cong_map *last_fcong;

	/* Requests (under lock on the producer side). */
	struct rds_queue req;
	int32_t home;			/* engine that drains req, or -1 */
	uint32_t queued;		/* a doorbell is out (atomic) */

	int64_t snd_bytes __rte_cache_aligned;	/* atomic */
	uint32_t snd_msgs;		/* messages not released (atomic) */
	uint32_t snd_err;		/* an earlier message's errno, for
					 * the next send (atomic; 0: none) */
	uint32_t armed;			/* a waiter wants efd written (atomic) */
	int64_t rcv_bytes __rte_cache_aligned;	/* atomic */
	rte_spinlock_t cong_lock;
	bool congested;			/* under cong_lock */
	uint64_t cong_mask;		/* ports seen congested (atomic) */
	uint64_t cong_notify;		/* ports now uncongested (atomic) */
	uint32_t cong_track;		/* rds_cong_generation at last poll */

	/* Received messages and notifications: engines produce (under
	 * rx_prod_lock when there are several), readers consume under
	 * rlock. */
	rte_spinlock_t rx_prod_lock;
	struct rds_queue rxq;
	struct rds_queue ntq;
	struct rds_msg *rx_head;	/* under rlock: dequeued, not consumed */

	/* Home engine only. */
	struct rds_conn *last_conn;	/* the connection of the last message */
	bool pending;			/* on the home engine's pending list */
	TAILQ_ENTRY(rds_sock) pend_link;

	/* A socket made for an attached process (rds_server*.c): its
	 * deliveries, wake-ups and releases go to the client's region.
	 * Set before the socket is bound, cleared never (NULL: ours). */
	struct rds_client *client;
	struct rds_srv_sock *client_sock;
	uint32_t nb_mrs;		/* its regions (atomic): close walks
					 * the table only when there are */
	uint32_t nb_mr_resv;		/* keys reserved for it, not (yet)
					 * regions (atomic; rds_mr_reserve) */
	struct rds_xmem *mem;		/* whose memory the socket's RDMA
					 * calls name: NULL this process, else
					 * the attached client's (a reference
					 * the socket holds until it is
					 * freed) */
};

/* rds_sock.c */
int rds_sock_table_init(const struct rte_rds_conf *conf);
void rds_sock_close_all(void);
void rds_sock_table_fini(void);

/* The slot of handle s, or NULL (no such handle yet). */
static inline struct rds_slot *
rds_slot_of(int s);

/* Hold the socket behind handle s for the duration of a call: NULL when
 * there is none or it is closing. Every hold is paired with a put. */
static inline struct rds_sock *
rds_sock_hold(int s)
{
	struct rds_slot *sl = rds_slot_of(s);

	if (sl == NULL)
		return NULL;
	__atomic_fetch_add(&sl->refs, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&sl->state, __ATOMIC_SEQ_CST) != RDS_SOCK_OPEN) {
		__atomic_fetch_sub(&sl->refs, 1, __ATOMIC_RELEASE);
		return NULL;
	}
	return sl->body;
}

static inline void
rds_sock_put(struct rds_sock *rs)
{
	__atomic_fetch_sub(&rs->slot->refs, 1, __ATOMIC_RELEASE);
}

static inline bool
rds_sock_closing(const struct rds_sock *rs)
{
	return __atomic_load_n(&rs->slot->state, __ATOMIC_ACQUIRE) !=
	       RDS_SOCK_OPEN;
}

/* Engine side: the open socket (id, gen) or NULL. Engines may use it
 * until the end of their pass (close waits for that). */
static inline struct rds_sock *rds_sock_engine_get(int id, uint32_t gen);
/* Iterate open sockets (control path): fn runs with the socket held. */
void rds_sock_foreach(void (*fn)(void *arg, struct rds_sock *rs), void *arg);

/* rds_bind.c: (local address, port) -> bound socket. */
int rds_bind_add(struct rds_laddr *la, struct rds_sock *rs, uint16_t *port);
void rds_bind_del(struct rds_laddr *la, uint16_t port,
		  const struct rds_sock *rs);
void rds_bind_fini(struct rds_laddr *la);

static inline struct rds_sock *
rds_sock_lookup_bound(const struct rds_laddr *la, uint16_t port)
{
	struct rds_sock **page = __atomic_load_n(&la->ports[port >> 8],
						 __ATOMIC_ACQUIRE);

	return page == NULL ? NULL :
	       __atomic_load_n(&page[port & 255], __ATOMIC_ACQUIRE);
}

struct rds_laddr *rds_laddr_find(const struct in6_addr *addr);
/* SIOCRDSSETTOS/GETTOS on rs (rds_sockopt.c); sent: the socket has
 * sent (the kernel's rs_conn). 0 or -errno. */
int rds_sock_tos(struct rds_sock *rs, unsigned long request, uint8_t *arg,
		 bool sent);
int rds_sock_wait_step(struct rds_sock *rs, uint64_t deadline,
		       uint64_t *spins);
uint64_t rds_deadline(uint64_t timeo_ns);
void rds_sock_wake_slow(struct rds_sock *rs);

/* Wake whoever waits on the socket (its eventfd, an attached client);
 * nobody mostly: two loads, no call. */
static inline void
rds_sock_wake(struct rds_sock *rs)
{
	if (likely(rs->client == NULL) &&
	    likely(__atomic_load_n(&rs->armed, __ATOMIC_SEQ_CST) == 0))
		return;
	rds_sock_wake_slow(rs);
}

/* rds_sock_wake for a socket the caller found to be the process's own
 * (rs->client NULL: set once, before the socket is published): the
 * armed test only. */
static inline void
rds_sock_wake_own(struct rds_sock *rs)
{
	if (likely(__atomic_load_n(&rs->armed, __ATOMIC_SEQ_CST) == 0))
		return;
	rds_sock_wake_slow(rs);
}
void rds_sock_wake_now(struct rds_sock *rs);
int rds_sock_request_slow(struct rds_sock *rs, struct rds_msg *m, bool wait);
/*
 * Queue a request on the socket and ring its home engine when the queue
 * was idle. The first request fixes the home engine: the one that owns
 * the first destination's connection, so that a socket talking to one
 * peer never crosses engines. -ENOBUFS when the queue is full (and
 * !wait), -EBADF when the socket is closing (and m is not its CLOSE).
 */
static __rte_always_inline int rds_sock_request(struct rds_sock *rs,
						 struct rds_msg *m, bool wait);
/* Send a control request (CANCEL, CLOSE) and wait for the engines. */
int rds_sock_request_wait(struct rds_sock *rs, struct rds_msg *m);
void rds_notify_queue(struct rds_engine *e, struct rds_sock *rs,
		      uint64_t token, int32_t status);
/* Bytes the library holds for sockets (bodies and queues). */
uint64_t rds_sock_mem(void);

#endif /* RDS_SOCK_H */

/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RDS_PRIVATE_H
#define RDS_PRIVATE_H

/*
 * librte_rds internals. One header for the library and its transports;
 * prototypes are grouped by the file that defines them.
 *
 * Threads: application threads touch sockets (struct rds_sock) and meet
 * engines only in channels (struct rds_chan: single-producer rings of
 * message offsets). Engines own connections (struct rds_conn) and
 * everything in them; nothing an engine owns is locked.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <netinet/in.h>

#include <rte_common.h>
#include <rte_log.h>
#include <rte_ring.h>
#include <rte_spinlock.h>
#include <rte_cycles.h>
#include <rte_errno.h>

#include "rte_rds.h"
#include "rds_wire.h"

extern int rds_logtype;
#define RDS_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, rds_logtype, "RDS: " fmt "\n", ##__VA_ARGS__)

struct rds_engine;
struct rds_sock;

#define RDS_MAX_TRANSPORTS 4
#define RDS_CHAN_RING_SIZE 4096
#define RDS_ADMIN_RING_SIZE 1024
#define RDS_BURST 32
#define RDS_NB_PORTS 65536
/* Delayed ACK: an ACK-only frame goes out when received messages stayed
 * unacknowledged this long with nothing to carry the ACK. */
#define RDS_DELAYED_ACK_US 200

/* Set rte_errno and errno and return -1: the public error convention (a
 * port of an AF_RDS program that reads errno sees the same value). */
#define RDS_ERR(e) __extension__ ({ \
	int rds_err_ = (e); \
	rte_errno = rds_err_; \
	errno = rds_err_; \
	-1; \
})

/* ------------------------------------------------------------------ */
/* Addresses: kept as struct in6_addr, IPv4 as v4-mapped. */

static inline void
rds_addr_from_v4(struct in6_addr *a, uint32_t be_v4)
{
	memset(a, 0, sizeof(*a));
	a->s6_addr[10] = 0xff;
	a->s6_addr[11] = 0xff;
	memcpy(&a->s6_addr[12], &be_v4, 4);
}

static inline uint32_t
rds_addr_v4(const struct in6_addr *a)
{
	uint32_t v;

	memcpy(&v, &a->s6_addr[12], 4);
	return v;
}

static inline bool
rds_addr_eq(const struct in6_addr *a, const struct in6_addr *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

/* ------------------------------------------------------------------ */
/* Messages.
 *
 * One buffer holds a message's metadata and its payload. The application
 * fills it on send and hands its offset to an engine through a channel;
 * the engine keeps it on a connection's queues until it is acknowledged.
 * On receive the engine fills one and hands it to the socket the same way.
 * Control requests (cancel, close) travel as payload-less messages.
 */
enum rds_msg_type {
	RDS_MSG_DATA = 1,	/* app -> engine: a message to send */
	RDS_MSG_CANCEL,		/* app -> engine: RDS_CANCEL_SENT_TO */
	RDS_MSG_CLOSE,		/* app -> engine: the socket is closing */
	RDS_MSG_PONG,		/* engine: answer to a ping */
	RDS_MSG_CONG,		/* engine: congestion map update */
	RDS_MSG_RECV,		/* engine -> app: a received message */
	RDS_MSG_NOTIFY,		/* engine -> app: an RDMA status */
	RDS_MSG_INFO,		/* app -> engine: an info snapshot */
};

enum rds_buf_kind {
	RDS_BUF_POOL_SMALL,
	RDS_BUF_POOL_LARGE,
	RDS_BUF_HEAP,
	RDS_BUF_LIBC,
};

struct rds_conn;
struct rds_rdma_op;

struct rds_msg {
	TAILQ_ENTRY(rds_msg) link;	/* engine queues */
	uint8_t type;			/* enum rds_msg_type */
	uint8_t buf_kind;		/* enum rds_buf_kind */
	uint8_t h_flags;		/* wire flags to send / received */
	uint8_t all;			/* CANCEL: every destination */
	uint32_t len;			/* payload bytes */
	uint16_t sport;			/* host order */
	uint16_t dport;
	int32_t sock;			/* sending (or receiving) socket */
	uint64_t seq;			/* connection sequence, 0 until queued */
	struct in6_addr laddr;		/* local address */
	struct in6_addr faddr;		/* peer: destination or source */
	uint8_t trans_id;		/* transport for the connection */
	volatile uint32_t done;		/* CANCEL/CLOSE: engine finished */
	uint32_t sock_gen;		/* DATA, RECV: socket generation */
	uint64_t token;			/* NOTIFY: user token */
	int32_t status;			/* NOTIFY: RDS_RDMA_* status */
	struct rds_rdma_op *op;		/* DATA: RDMA or atomic operation */
	uint64_t rdma_dest;		/* DATA, RECV: cookie shipped */
	bool has_dest;			/* rdma_dest is set */
	uint64_t tsc;			/* timestamp (queue or receive) */
	uint8_t data[] __rte_aligned(16);
};

static inline void *
rds_msg_payload(struct rds_msg *m)
{
	return m->data;
}

/* rds_buf.c */
int rds_buf_init(const struct rte_rds_conf *conf);
void rds_buf_fini(void);
struct rds_msg *rds_msg_alloc(uint32_t len);
void rds_msg_free(struct rds_msg *m);
void *rds_mem_zalloc(const char *what, size_t size);
void rds_mem_free(void *p);

/* ------------------------------------------------------------------ */
/* Channels: one per (socket, engine). Both rings are single-producer,
 * single-consumer and carry message offsets within the channel's region.
 * In-process the region is the address space (base 0); a cross-process
 * channel is the same code with a shared region and its base. */
struct rds_chan {
	struct rte_ring *tx;	/* app -> engine: sends and requests */
	struct rte_ring *rx;	/* engine -> app: received messages */
	struct rte_ring *notify; /* engine -> app: RDMA notifications */
	uintptr_t base;		/* region base for offsets */
};

static inline int
rds_chan_put(struct rte_ring *r, uintptr_t base, struct rds_msg *m)
{
	return rte_ring_enqueue(r, (void *)((uintptr_t)m - base));
}

static inline unsigned int
rds_chan_get_burst(struct rte_ring *r, uintptr_t base, struct rds_msg **ms,
		   unsigned int n)
{
	unsigned int i, got;

	got = rte_ring_dequeue_burst(r, (void **)ms, n, NULL);
	for (i = 0; i < got; i++)
		ms[i] = (struct rds_msg *)((uintptr_t)ms[i] + base);
	return got;
}

/* rds_chan.c */
int rds_chan_create(struct rds_chan *ch, int sock, unsigned int engine);
void rds_chan_destroy(struct rds_chan *ch);
unsigned int rds_chan_peek(const struct rte_ring *r, uintptr_t base,
			   struct rds_msg **ms, unsigned int n);

/* ------------------------------------------------------------------ */
/* Local addresses and congestion maps. */

struct rds_cong_map {
	struct in6_addr addr;
	uint32_t gen;			/* bumped on every change (atomic) */
	uint64_t bits[RDS_CONG_MAP_WORDS]; /* little-endian bit order per port */
};

struct rds_transport;

struct rds_laddr {
	struct in6_addr addr;
	unsigned int index;
	const struct rds_transport *trans;
	char dev[RTE_RDS_NAMESIZE];
	struct rds_cong_map *cong;	/* this address's own map */
};

/* rds_cong.c */
int rds_cong_init(void);
void rds_cong_fini(void);
struct rds_cong_map *rds_cong_map_get(const struct in6_addr *addr);
bool rds_cong_test(const struct rds_cong_map *map, uint16_t port);
void rds_cong_set(struct rds_cong_map *map, uint16_t port);
void rds_cong_clear(struct rds_cong_map *map, uint16_t port);
uint64_t rds_cong_map_update(struct rds_cong_map *map, const void *wire_bits);
void rds_cong_map_copy_out(const struct rds_cong_map *map, void *wire_bits);
struct rds_sock;
void rds_cong_sock_check(struct rds_sock *rs);
uint32_t rds_cong_generation(void);
void rds_cong_map_changed(uint64_t portmask);
void rds_cong_monitor_count(int delta);

/* ------------------------------------------------------------------ */
/* Sockets. */

enum rds_sock_state {
	RDS_SOCK_FREE = 0,
	RDS_SOCK_OPEN,
	RDS_SOCK_CLOSING,
};

struct rds_sock_engine {
	/* Engine-private: messages waiting for room in the rx ring. */
	TAILQ_HEAD(, rds_msg) overflow;
	/* Engine-private: notifications waiting for room. */
	TAILQ_HEAD(, rds_msg) notify_overflow;
	/* Engine-private: the connection the last message went to. */
	struct rds_conn *last_conn;
	bool polled;			/* channel on the engine's poll list */
} __rte_cache_aligned;

struct rds_sock {
	uint32_t state;			/* enum rds_sock_state (atomic) */
	int id;
	uint32_t gen;			/* bumped on every close */
	rte_spinlock_t lock;		/* bind, options, send enqueue */
	rte_spinlock_t rlock;		/* receive side */

	/* Set by the application, read by engines after bind. */
	bool bound;
	struct in6_addr bound_addr;
	uint16_t bound_port;		/* host order */
	struct rds_laddr *la;
	bool connected;
	struct in6_addr conn_addr;
	uint16_t conn_port;
	uint32_t trans_pinned;		/* SO_RDS_TRANSPORT or RDS_TRANS_NONE */
	uint32_t sndbuf;		/* value set; getsockopt doubles it */
	uint32_t rcvbuf;
	uint64_t sndtimeo_ns;		/* 0: forever */
	uint64_t rcvtimeo_ns;

	int64_t snd_bytes __rte_cache_aligned;	/* atomic */
	int64_t rcv_bytes __rte_cache_aligned;	/* atomic */
	rte_spinlock_t cong_lock;
	bool congested;			/* under cong_lock */

	int recverr;			/* RDS_RECVERR */
	int cong_monitor;		/* RDS_CONG_MONITOR */
	uint64_t cong_mask;		/* ports seen congested (atomic) */
	uint64_t cong_notify;		/* ports now uncongested (atomic) */
	uint32_t cong_track;		/* rds_cong_generation at last poll */
	int efd;			/* eventfd for poll/epoll, or -1 */
	uint32_t armed;			/* a waiter wants efd written (atomic) */

	/* Under lock: the last destination's congestion map (maps live
	 * until rte_rds_fini). */
	struct in6_addr last_faddr;
	struct rds_cong_map *last_fcong;

	struct rds_msg *rx_head;	/* under rlock: dequeued, not consumed */
	unsigned int rx_next;		/* under rlock: engine to look at next */
	uint32_t close_done;		/* engines that let go (atomic bitmask) */

	struct rds_chan chan[RTE_RDS_MAX_ENGINES];
	struct rds_sock_engine eng[RTE_RDS_MAX_ENGINES];
};

/* rds_sock.c */
int rds_sock_table_init(const struct rte_rds_conf *conf);
void rds_sock_close_all(void);
void rds_sock_table_fini(void);
struct rds_sock *rds_sock_get(int s);
struct rds_sock *rds_sock_lookup_bound(const struct rds_laddr *la,
				       uint16_t port);
struct rds_laddr *rds_laddr_find(const struct in6_addr *addr);
int rds_sock_wait_step(struct rds_sock *rs, uint64_t deadline, uint64_t *spins);
uint64_t rds_deadline(uint64_t timeo_ns);
void rds_sock_wake(struct rds_sock *rs);
void rds_notify_queue(struct rds_engine *e, struct rds_sock *rs,
		      uint64_t token, int32_t status);
void rds_notify_flush_overflow(struct rds_engine *e, struct rds_sock *rs);
void rds_notify_drop_overflow(struct rds_engine *e, struct rds_sock *rs);

/* rds_info.c */
struct rds_info_req {
	int name;			/* RDS_INFO_* */
	uint8_t *buf;			/* caller's buffer (for this call) */
	size_t cap;			/* its size */
	size_t used;			/* bytes the records need in all */
	size_t each;			/* record size */
	bool owned;			/* buf belongs to the request */
};
void rds_info_engine_fill(struct rds_engine *e, struct rds_info_req *r);
void rds_info_engine_answer(struct rds_engine *e, struct rds_msg *m);
int rds_info_get(int name, void *buf, size_t *len, uint64_t timeout_ns);

/* rds_sockopt.c */
/* (public setsockopt/getsockopt only) */

/* ------------------------------------------------------------------ */
/* Transports: an ops table per driver. The core calls every op from the
 * engine that owns the connection. */

#define RDS_TRANS_F_LOOPBACK 0x1	/* delivers within this instance: no
					 * congestion map on the wire */
#define RDS_TRANS_F_RDMA 0x2		/* RDMA and atomics (hardware, or the
					 * software executor) */
#define RDS_TRANS_F_MASKED_ATOMICS 0x4	/* masked atomics too */

/* A registered memory region (rds_rdma.c). */
struct rds_mr {
	uint32_t key;			/* r_key: the cookie's low half */
	uint32_t flags;			/* RDS_RDMA_USE_ONCE, READWRITE, ... */
	uintptr_t base;			/* first page */
	uint64_t len;			/* whole pages */
	int sock;			/* owner */
	uint32_t sock_gen;
	struct in6_addr laddr;		/* owner's bound address */
	const struct rds_transport *trans; /* hardware registration, or NULL */
	void *tp;			/* its private data (ibv_mr) */
	bool invalidate;		/* on release: revoke now (INVALIDATE,
					 * USE_ONCE, close), no cache */
};

enum rds_op_kind {
	RDS_OP_READ,
	RDS_OP_WRITE,
	RDS_OP_FADD,
	RDS_OP_CSWP,
	RDS_OP_MFADD,
	RDS_OP_MCSWP,
};

/* One RDMA or atomic operation riding on a message. */
struct rds_rdma_op {
	enum rds_op_kind kind;
	uint64_t cookie;		/* remote region */
	uint64_t remote_off;		/* offset past the cookie's offset */
	uint64_t bytes;
	uint64_t flags;			/* RDS_RDMA_* */
	uint64_t token;			/* user_token for the notification */
	struct iovec *local;		/* READ: where the data goes */
	uint32_t nr_local;
	uint8_t *data;			/* WRITE: the data, taken at sendmsg */
	uint64_t compare, swap_add, mask1, mask2; /* atomics */
	uint64_t *atomic_result;	/* atomics: the old value goes here */
	bool notified;
	bool executed;			/* software executor: ran once */
	int status;			/* its result */
	int recverr;			/* RDS_RECVERR at sendmsg */
	uint32_t refs;			/* the message, and a transport that
					 * has the operation in flight */
	void *tp_mr;			/* transport: local registration */
	int sock;			/* who is told how it went */
	uint32_t sock_gen;
};

/* rds_rdma.c */
int rds_mr_init(void);
void rds_mr_fini(void);
void rds_mr_sock_close(struct rds_sock *rs);
void rds_mr_unuse(uint32_t key);
void rds_mr_unuse_sock(const struct rds_sock *rs, uint32_t key);
int rds_rdma_get_mr(struct rds_sock *rs, const void *optval, socklen_t optlen,
		    bool for_dest);
int rds_rdma_free_mr(struct rds_sock *rs, const void *optval,
		     socklen_t optlen);
int rds_rdma_cmsgs(struct rds_sock *rs, const struct msghdr *msg,
		   struct rds_rdma_op **opp, uint64_t *dest_cookie,
		   bool *has_dest);
void rds_rdma_op_free(struct rds_rdma_op *op);
int rds_rdma_sw_exec(const struct in6_addr *target, struct rds_rdma_op *op);
void rds_rdma_notify(struct rds_engine *e, const struct rds_msg *m,
		     int status);
void rds_rdma_op_notify(struct rds_engine *e, struct rds_rdma_op *op,
			int status);

struct rds_engine;

struct rds_transport {
	const char *name;
	uint32_t trans_id;		/* SO_RDS_TRANSPORT value */
	uint32_t flags;			/* RDS_TRANS_F_* */
	/* Library set-up and tear-down (optional). 0 or -errno. */
	int (*init)(const struct rte_rds_conf *conf);
	void (*fini)(void);
	/* Can this transport serve local address la? 0 or -errno. */
	int (*laddr_check)(const struct rds_laddr *la);
	/* Per-engine state (optional). 0 or -errno. */
	int (*engine_init)(struct rds_engine *e);
	void (*engine_fini)(struct rds_engine *e);
	/* Per-connection state; 0 or -errno. */
	int (*conn_alloc)(struct rds_conn *c);
	void (*conn_free)(struct rds_conn *c);
	/* Start connecting. When the connection is up the transport calls
	 * rds_conn_connect_complete(), possibly from inside this call.
	 * 0 or -errno (the core then backs off and retries). */
	int (*conn_connect)(struct rds_conn *c);
	/* Tear the transport connection down; the core resets and
	 * reconnects afterwards. */
	void (*conn_shutdown)(struct rds_conn *c);
	/* Send one whole message (fragmenting as the transport needs),
	 * taking each frame's header from rds_msg_hdr(). Returns 0 when the
	 * message is on its way, -EAGAIN when there is no room now (the
	 * core retries later), another -errno to fail the connection. */
	int (*xmit)(struct rds_conn *c, struct rds_msg *m);
	/* Send an ACK-only frame with the header from rds_ack_hdr().
	 * 0, -EAGAIN or -errno as xmit. */
	int (*xmit_ack)(struct rds_conn *c);
	/* Poll receive and completion queues of engine e; returns work
	 * done. Received frames go to rds_recv_frame(). */
	unsigned int (*poll)(struct rds_engine *e);
	/* Hardware memory registration (optional): fill mr->key and
	 * mr->tp for the region mr->base, mr->len. 0 or -errno. */
	int (*mr_reg)(const struct rds_laddr *la, struct rds_mr *mr);
	void (*mr_free)(struct rds_mr *mr);
};

/* rds_transport.c */
void rds_transport_register(const struct rds_transport *t);
const struct rds_transport *rds_transport_by_name(const char *name);
const struct rds_transport *rds_transport_by_id(uint32_t id);
unsigned int rds_transport_count(void);
const struct rds_transport *rds_transport_at(unsigned int i);

#define RDS_TRANSPORT_REGISTER(t) \
	RTE_INIT(rds_transport_register_ ## t) \
	{ \
		rds_transport_register(&(t)); \
	}

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

TAILQ_HEAD(rds_msg_list, rds_msg);

struct rds_conn {
	TAILQ_ENTRY(rds_conn) link;
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
	uint32_t map_gen_sent;

	/* Receiving. */
	uint64_t next_rx_seq;		/* not reset on reconnect */
	uint64_t ack_next;		/* highest sequence received */
	uint64_t ack_sent;		/* last ACK value sent */
	bool ack_requested;		/* peer asked for an ACK */
	uint64_t ack_due_tsc;		/* delayed ACK deadline, 0: none */

	/* Reconnect backoff. */
	uint64_t reconnect_ceil_ms;	/* 0: next attempt immediate */
	uint64_t reconnect_at_tsc;
	bool drop_pending;		/* transport asked for a reset */

	void *tp;			/* transport private */
};

/* rds_conn.c */
struct rds_conn *rds_conn_lookup(struct rds_engine *e,
				 const struct rds_conn_key *key);
struct rds_conn *rds_conn_get(struct rds_engine *e,
			      const struct rds_conn_key *key);
void rds_conn_destroy(struct rds_conn *c);
void rds_conn_connect_complete(struct rds_conn *c);
void rds_conn_drop(struct rds_conn *c);
unsigned int rds_conn_run(struct rds_conn *c, uint64_t now);
unsigned int rds_conn_engine_of(const struct in6_addr *laddr,
				const struct in6_addr *faddr);
const char *rds_conn_state_name(enum rds_conn_state st);

/* ------------------------------------------------------------------ */
/* Engines. */

struct rds_engine {
	unsigned int id;
	uint32_t lcore_id;		/* RTE_RDS_ENGINE_INLINE for inline */
	enum rte_rds_idle_policy idle;
	uint32_t idle_polls;
	uint32_t idle_sleep_us;
	rte_spinlock_t poll_lock;	/* one poller at a time (inline) */
	volatile bool stop;
	bool launched;

	struct rte_ring *admin;		/* MP/SC: sockets to poll (tag 0) and
					 * info requests (tag 1) */
	struct rds_sock **socks;	/* sockets whose channels we poll */
	unsigned int nb_socks;

	struct rte_hash *conn_hash;
	TAILQ_HEAD(, rds_conn) conns;
	unsigned int nb_conns;

	uint32_t cong_gen_seen[RTE_RDS_MAX_ADDRS];
	uint32_t cong_track;		/* rds_cong_generation seen */
	uint32_t empty_polls;
	uint64_t seed;			/* backoff randomness */
	void *tp[RDS_MAX_TRANSPORTS];	/* per-transport engine state */

	struct rte_rds_stats stats __rte_cache_aligned;
};

#define rds_stat_inc(e, f) ((e)->stats.f++)
#define rds_stat_add(e, f, n) ((e)->stats.f += (n))

/* rds_engine.c */
int rds_engines_init(const struct rte_rds_conf *conf);
void rds_engines_stop(void);
void rds_engines_fini(void);
unsigned int rds_engine_run_once(struct rds_engine *e);
int rds_engine_try_poll(struct rds_engine *e);
void rds_engine_add_sock(struct rds_engine *e, struct rds_sock *rs);

/* rds_send.c */
void rds_send_queue(struct rds_engine *e, struct rds_sock *rs,
		    struct rds_msg *m);
unsigned int rds_send_xmit(struct rds_conn *c);
void rds_send_drop_acked(struct rds_conn *c, uint64_t ack);
void rds_send_path_reset(struct rds_conn *c);
void rds_send_cancel(struct rds_engine *e, struct rds_sock *rs,
		     const struct rds_msg *req);
void rds_send_release(struct rds_engine *e, struct rds_msg *m);
void rds_send_pong(struct rds_conn *c, uint16_t dport);
void rds_msg_hdr(struct rds_conn *c, const struct rds_msg *m,
		 struct rds_header *h);
void rds_ack_hdr(struct rds_conn *c, struct rds_header *h);

/* rds_recv.c */
int rds_recv_frame(struct rds_conn *c, const struct rds_header *wire,
		   const void *payload, uint32_t len);
/* The same, with the payload already in a buffer from rds_msg_alloc()
 * (m->len bytes), which the core takes over in every case. */
int rds_recv_frame_msg(struct rds_conn *c, const struct rds_header *wire,
		       struct rds_msg *m);
void rds_recv_flush_overflow(struct rds_engine *e, struct rds_sock *rs);
void rds_recv_drop_overflow(struct rds_engine *e, struct rds_sock *rs);

/* rds_init.c: the one library instance. */
struct rds_lib {
	struct rte_rds_conf conf;
	unsigned int nb_engines;
	struct rds_engine *engines[RTE_RDS_MAX_ENGINES];
	unsigned int nb_laddrs;
	struct rds_laddr laddrs[RTE_RDS_MAX_ADDRS];
	uint64_t tsc_hz;
	uint64_t delayed_ack_tsc;
	/* sockets */
	uint32_t max_sockets;
	struct rds_sock **socks;
	int32_t *bind_tab;		/* [laddr][port] -> socket id + 1 */
};

extern struct rds_lib *rds_lib;

static inline struct rds_engine *
rds_engine_get(unsigned int i)
{
	return rds_lib->engines[i];
}

/* ================================================================== */
/* BEGIN caller-argument checks (rds_uarg.c, rds_memcheck.c).
 *
 * Every length, count and pointer a caller hands in is checked in one
 * place per kind before it is used: iovec arrays (here, inline: every
 * sendmsg and recvmsg runs it), control messages, option buffers, RDMA
 * vectors (rds_uarg.c). Memory the engine touches after the call
 * returned is checked when it is handed over (rds_memcheck.c). */

#include <limits.h>
#include <sys/types.h>

/* UIO_MAXIOV: the kernel's limit on iovec arrays (EMSGSIZE above). */
#define RDS_UIO_MAXIOV 1024

/*
 * The iovec array of a sendmsg or recvmsg, as net/socket.c
 * (__copy_msghdr: more than UIO_MAXIOV is EMSGSIZE, before the array is
 * read) and lib/iov_iter.c (iovec_from_user: a length that is negative
 * as ssize_t is EINVAL). A NULL array, or a NULL base with a length, is
 * EFAULT (the kernel's copy would fail; an invalid non-NULL base faults
 * in the caller's thread, as memcpy would). *total is the sum, which
 * cannot wrap (lengths of at most SSIZE_MAX each are added with
 * saturation at SSIZE_MAX, as the kernel clamps at MAX_RW_COUNT). No
 * system call: every sendmsg and recvmsg runs this. 0 or -errno.
 */
static inline int
rds_uarg_iov(const struct iovec *iov, size_t n, size_t *total)
{
	size_t i, l, sum = 0;

	*total = 0;
	if (n == 0)
		return 0;
	if (n > RDS_UIO_MAXIOV)
		return -EMSGSIZE;
	if (iov == NULL)
		return -EFAULT;	/* the kernel's copy_from_user */
	for (i = 0; i < n; i++) {
		l = iov[i].iov_len;
		if (l > (size_t)SSIZE_MAX)
			return -EINVAL;
		if (iov[i].iov_base == NULL && l != 0)
			return -EFAULT;
		sum = l > (size_t)SSIZE_MAX - sum ? (size_t)SSIZE_MAX :
		      sum + l;
	}
	*total = sum;
	return 0;
}

/* rds_uarg.c: control messages. A walk that never reads past
 * msg_controllen (the kernel's for_each_cmsghdr + CMSG_OK). */
struct rds_cmsg_iter {
	const uint8_t *ctl;
	size_t len;
	size_t off;
};

struct rds_cmsg {
	int level;
	int type;
	const uint8_t *data;		/* CMSG_DATA: may be unaligned */
	size_t len;			/* data bytes inside cmsg_len */
};

/* 0, -ENOBUFS (msg_controllen over INT_MAX), -EFAULT (no buffer). */
int rds_uarg_cmsg_start(struct rds_cmsg_iter *it, const struct msghdr *msg);
/* 1 and *c, 0 at the end, -EINVAL for a malformed header. */
int rds_uarg_cmsg_next(struct rds_cmsg_iter *it, struct rds_cmsg *c);

/* rds_uarg.c: option buffers. A setsockopt value of at least (exact:
 * exactly) size bytes; a getsockopt buffer for size bytes. 0, -EINVAL
 * (length), -EFAULT (NULL pointer). */
int rds_uarg_optval(const void *optval, socklen_t optlen, size_t size,
		    bool exact);
int rds_uarg_optbuf(const void *optval, const socklen_t *optlen,
		    size_t size);

/* rds_uarg.c: the local vector of RDMA_ARGS (count, array, elements as
 * rds_rdma_extra_size and rds_pages_in_vec). 0 or -errno; *total bytes. */
int rds_uarg_rdma_vec(const struct rds_iovec *vec, uint64_t nr,
		      uint64_t *total);

/*
 * rds_memcheck.c: is [addr, addr + len) of process pid (0: this one)
 * mapped with at least prot (PROT_READ, PROT_READ | PROT_WRITE)? 0,
 * -EFAULT, -ENOMEM, -ESRCH (no such process). Pages are faulted in.
 * rds_mem_check(): changes no data; for registration (GET_MR, RDMA_MAP).
 * rds_mem_check_iov(): for the buffers of an RDMA operation at sendmsg;
 * with PROT_WRITE only for buffers the library will fill (a probed byte
 * may be written back with its own value).
 */
int rds_mem_check(pid_t pid, uintptr_t addr, size_t len, int prot);
int rds_mem_check_iov(pid_t pid, const struct iovec *iov, unsigned int n,
		      int prot);
void rds_mem_check_force_probe(bool on);

/* END caller-argument checks. */
/* ================================================================== */

#endif /* RDS_PRIVATE_H */

/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RDS_PRIVATE_H
#define RDS_PRIVATE_H

/*
 * librte_rds internals. One header for the library and its transports;
 * prototypes are grouped by the file that defines them.
 *
 * Threads (doc/design.md has the picture):
 * - Application threads own sockets (struct rds_sock). A socket has one
 *   request queue (app -> engine), one receive queue and one notification
 *   queue (engine -> app), allocated when first used and grown on demand
 *   (rds_queue.c). A sender that makes a socket's request queue non-empty
 *   rings the socket's home engine through a doorbell ring of its own
 *   thread (rds_thread.c), so engines never scan sockets.
 * - Engines own connections (struct rds_conn) and everything in them;
 *   nothing an engine owns is locked. Connections with work sit on the
 *   engine's ready list; deadlines live in its timer wheel (rds_timer.c).
 *   A message for a connection of another engine is handed to it through
 *   a single-producer ring per engine pair.
 * - Socket lifetime: every call holds its socket (rds_sock_hold) from
 *   start to return; close marks it closing, wakes waiters (which return
 *   EBADF), waits for the calls still inside, lets the engines finish with
 *   it (a CLOSE request, then a quiescent pass of every engine) and only
 *   then frees it and lets its slot be reused.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#include <pthread.h>
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

/* Internal data: hidden, so that the shared library reaches it without
 * the GOT. */
#define RDS_HIDDEN __attribute__((visibility("hidden")))

extern int rds_logtype;
#define RDS_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, rds_logtype, "RDS: " fmt "\n", ##__VA_ARGS__)

struct rds_engine;
struct rds_sock;
struct rds_conn;

/* Work handed to an engine (rds_engine_call). */
typedef void (*rds_engine_fn)(struct rds_engine *e, void *arg);

#define RDS_MAX_TRANSPORTS 8
#define RDS_ADMIN_RING_SIZE 1024
#define RDS_BELL_RING_SIZE 1024		/* doorbells per thread per engine */
#define RDS_HANDOFF_RING_SIZE 1024	/* messages per engine pair */
#define RDS_BURST 32
#define RDS_NB_PORTS 65536
/* Delayed ACK: an ACK-only frame goes out when received messages stayed
 * unacknowledged this long with nothing to carry the ACK. */
#define RDS_DELAYED_ACK_US 200
/* Most iovecs in a message, as the kernel's UIO_MAXIOV. */
#define RDS_MAX_IOV 1024
/* Requests an engine takes from one socket before it looks elsewhere. */
#define RDS_SOCK_BUDGET 64

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
	uint64_t x[2], y[2];

	/* struct in6_addr is only 4-byte aligned (in struct rds_conn_key
	 * it is not 8-byte aligned): copies, which compile to the same
	 * two unaligned loads without the undefined behaviour. */
	memcpy(x, a, sizeof(x));
	memcpy(y, b, sizeof(y));
	return x[0] == y[0] && x[1] == y[1];
}

/* ------------------------------------------------------------------ */
/* Messages.
 *
 * One buffer holds a message's metadata and, normally, its payload. The
 * application fills it on send and queues it to its socket; the engine
 * keeps it on a connection's queues until it is acknowledged. On receive
 * the engine fills one and queues it to the socket. A received message
 * may instead borrow the payload of another message (the loop transport
 * hands the sender's payload over without a copy): the owner is
 * reference-counted and freed with its last user. Control requests
 * (cancel, close, info) travel as payload-less messages.
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
	RDS_MSG_CALL,		/* engine -> engine: run a function */
};

struct rds_rdma_op;

struct rds_msg {
	TAILQ_ENTRY(rds_msg) link;	/* engine queues */
	/* From here to seq: zeroed by rds_msg_alloc (64 bytes). */
	uint8_t *payload;		/* len bytes: buf[] or owner's */
	struct rds_msg *owner;		/* whose payload this is, or NULL */
	struct rds_rdma_op *op;		/* DATA: RDMA or atomic operation */
	struct rds_msg *req;		/* a forwarded CANCEL/CLOSE: the
					 * request it answers for */
	uint32_t refs;			/* users of this buffer (atomic) */
	uint32_t len;			/* payload bytes */
	uint8_t type;			/* enum rds_msg_type */
	uint8_t cls;			/* size class (rds_buf.c) */
	uint8_t h_flags;		/* wire flags to send / received */
	uint8_t all;			/* CANCEL: every destination */
	uint8_t trans_id;		/* transport for the connection */
	bool has_dest;			/* rdma_dest is set */
	uint8_t eng;			/* DATA: engine owning its connection */
	uint8_t pad;
	uint16_t sport;			/* host order */
	uint16_t dport;
	int32_t sock;			/* sending (or receiving) socket */
	uint32_t sock_gen;		/* DATA, RECV: socket generation */
	uint32_t pending;		/* CANCEL/CLOSE/INFO: engines still
					 * to answer (atomic) */
	/* Not zeroed: set by whoever uses them. */
	uint64_t seq;			/* connection sequence */
	struct in6_addr laddr;		/* local address */
	struct in6_addr faddr;		/* peer: destination or source */
	uint64_t rdma_dest;		/* DATA, RECV: cookie shipped */
	uint64_t token;			/* NOTIFY: user token */
	int32_t status;			/* NOTIFY: RDS_RDMA_* status */
	uint32_t pad2;
	rds_engine_fn call;		/* CALL: what to run, with */
	void *arg;			/* CALL: its argument */
	uint8_t buf[] __rte_aligned(16);
};

static inline uint8_t *
rds_msg_data(const struct rds_msg *m)
{
	return m->payload;
}

/* rds_buf.c: size-class buffers (64 B .. 1 MiB of payload), per-thread
 * caches, no EAL call on the application side. The fast paths (a
 * thread cache hit) are inline below, after struct rds_thread. */
int rds_buf_init(const struct rte_rds_conf *conf);
void rds_buf_fini(void);
struct rds_msg *rds_msg_alloc_slow(uint32_t len);
void rds_msg_put_slow(struct rds_msg *m);
void *rds_mem_zalloc(const char *what, size_t size);
void rds_mem_free(void *p);
/* The calling thread's cached buffers go back to the shared lists. */
void rds_buf_thread_flush(void);

/* Memory a transport may register to send from buffers in place (ib's
 * zero-copy): a slab of small buffers, or one large buffer. */
struct rds_buf_region {
	uintptr_t base;
	size_t len;
	void *tp;			/* the transport's data (atomic: set
					 * with a compare and swap) */
	bool large;			/* one large buffer */
};
/* The region of buffer b (a message's own buffer: the owner of a
 * borrowed payload), made for a large buffer at its first call; NULL
 * without memory, and always with libc_alloc (every buffer is new). It
 * lasts as long as b's memory. */
struct rds_buf_region *rds_buf_region_get(const struct rds_msg *b);
/* Who is told when a region's tp goes: release(tp) when a large buffer
 * goes back to libc, at rds_buf_fini, and for every region when it is set
 * back to NULL (the transport's fini). One listener. */
void rds_buf_listener_set(void (*release)(void *tp));

/* ------------------------------------------------------------------ */
/* Queues (rds_queue.c): single-producer single-consumer queues of
 * messages, made of rte_ring segments. Nothing is allocated until the
 * first message; a full segment is followed by one twice its size (up
 * to max entries in all), the consumer frees the segments it has left.
 * The producer side may be taken by several threads under a lock of the
 * caller's. */

/* A segment: its ring, and the next segment once the producer moved on. */
struct rds_qseg {
	struct rds_qseg *next;		/* atomic */
	uint32_t size;
	size_t bytes;
	struct rte_ring ring;		/* then its slots */
};

struct rds_queue {
	struct rds_qseg *prod;		/* producer's segment */
	struct rds_qseg *cons;		/* consumer's segment */
	struct rds_qseg *first;		/* first segment, for the consumer
					 * to find (atomic) */
	uint32_t max;			/* most entries in all (checked when
					 * a segment is added) */
	uint32_t nput;			/* entries put (producer, atomic) */
	uint32_t nget;			/* entries taken (consumer, atomic) */
};

void rds_queue_init(struct rds_queue *q, uint32_t max);
int rds_queue_put_slow(struct rds_queue *q, struct rds_msg *m);
unsigned int rds_queue_get_slow(struct rds_queue *q, struct rds_msg **ms,
				unsigned int n, unsigned int got);

/* 0, -ENOBUFS (max reached) or -ENOMEM. Producer side. */
static inline int
rds_queue_put(struct rds_queue *q, struct rds_msg *m)
{
	struct rds_qseg *s = q->prod;

	if (likely(s != NULL) &&
	    likely(rte_ring_sp_enqueue(&s->ring, m) == 0)) {
		__atomic_store_n(&q->nput, q->nput + 1, __ATOMIC_RELEASE);
		return 0;
	}
	return rds_queue_put_slow(q, m);
}

/* Up to n messages; consumer side. */
static __rte_always_inline unsigned int
rds_queue_get_burst(struct rds_queue *q, struct rds_msg **ms, unsigned int n)
{
	struct rds_qseg *s = q->cons;
	unsigned int got = 0;

	if (likely(s != NULL)) {
		got = rte_ring_sc_dequeue_burst(&s->ring, (void **)ms, n, NULL);
		if (likely(got == n) ||
		    __atomic_load_n(&s->next, __ATOMIC_ACQUIRE) == NULL) {
			if (got != 0)
				__atomic_store_n(&q->nget, q->nget + got,
						 __ATOMIC_RELEASE);
			return got;
		}
	}
	return rds_queue_get_slow(q, ms, n, got);
}

/* Entries queued; any thread may ask. */
static inline uint32_t
rds_queue_count(const struct rds_queue *q)
{
	uint32_t got = __atomic_load_n(&q->nget, __ATOMIC_ACQUIRE);

	return __atomic_load_n(&q->nput, __ATOMIC_ACQUIRE) - got;
}
/* Call fn on each queued message without taking it (consumer side). */
void rds_queue_peek(const struct rds_queue *q,
		    void (*fn)(void *arg, const struct rds_msg *m), void *arg);
/* Both sides quiescent: free every message and segment. */
void rds_queue_fini(struct rds_queue *q);
/* Bytes of segment memory all queues hold. */
uint64_t rds_queue_mem_all(void);


/* ------------------------------------------------------------------ */
/* Threads (rds_thread.c): what the library keeps per thread, found
 * through one initial-exec TLS pointer (no __tls_get_addr per call):
 * the buffer caches and one doorbell ring per engine, made on the
 * thread's first ring of that engine and found by the engine through
 * its bell list. Freed by a thread-exit destructor. */

#define RDS_BUF_NB_CLASSES 15		/* 64 B .. 1 MiB of payload */
#define RDS_BUF_TC_CLASSES 9		/* from slabs, with thread caches:
					 * up to 16 KiB of payload */
#define RDS_BUF_TCACHE 32		/* buffers per thread per class */

struct rds_free_buf;

struct rds_bell {
	struct rte_ring *r;		/* SP: the thread, SC: the engine */
	uint32_t dead;			/* the thread exited (atomic) */
	TAILQ_ENTRY(rds_bell) link;	/* engine's list, under bell_lock */
};

struct rds_thread {
	uint32_t epoch;			/* library instance it belongs to */
	struct rds_bell *bell[RTE_RDS_MAX_ENGINES];
	uint16_t tc_n[RDS_BUF_TC_CLASSES];
	struct rds_free_buf *tc[RDS_BUF_TC_CLASSES][RDS_BUF_TCACHE];
};

extern __thread struct rds_thread *rds_self
	__attribute__((tls_model("initial-exec"))) RDS_HIDDEN;
extern uint32_t rds_epoch RDS_HIDDEN;		/* bumped by every init and fini */

struct rds_thread *rds_thread_slow(void);

/* This thread's state for the running instance (NULL: no memory). */
static inline struct rds_thread *
rds_thread_get(void)
{
	struct rds_thread *t = rds_self;

	if (likely(t != NULL &&
		   t->epoch == __atomic_load_n(&rds_epoch, __ATOMIC_RELAXED)))
		return t;
	return rds_thread_slow();
}

void rds_bell_ring_slow(struct rds_engine *e, struct rds_sock *rs);
void rds_thread_lib_init(void);
void rds_thread_lib_fini(void);

/* Ring engine e (number eid) for socket rs, whose rs->queued went
 * 0 -> 1. */
static inline void
rds_bell_ring(struct rds_engine *e, unsigned int eid, struct rds_sock *rs)
{
	struct rds_thread *t = rds_self;
	struct rds_bell *b;

	if (likely(t != NULL) &&
	    likely(t->epoch == __atomic_load_n(&rds_epoch, __ATOMIC_RELAXED)) &&
	    likely((b = t->bell[eid]) != NULL) &&
	    likely(rte_ring_sp_enqueue(b->r, rs) == 0))
		return;
	rds_bell_ring_slow(e, rs);
}

/* Size classes of message buffers. */
#define RDS_BUF_MIN_SHIFT 6		/* 64 B of payload */

static inline unsigned int
rds_buf_class_of(uint32_t len)
{
	return len <= (1u << RDS_BUF_MIN_SHIFT) ? 0 :
	       32 - (unsigned int)__builtin_clz(len - 1) - RDS_BUF_MIN_SHIFT;
}

static inline void
rds_msg_init(struct rds_msg *m, unsigned int c, uint32_t len)
{
	memset(&m->payload, 0,
	       offsetof(struct rds_msg, seq) - offsetof(struct rds_msg, payload));
	m->payload = m->buf;
	m->refs = 1;
	m->cls = (uint8_t)c;
	m->len = len;
	m->sock = -1;
}

/* A message buffer for len bytes of payload, or NULL. */
static inline struct rds_msg *
rds_msg_alloc(uint32_t len)
{
#ifndef RDS_LIBC_ALLOC
	unsigned int c = rds_buf_class_of(len);
	struct rds_thread *t = rds_self;
	struct rds_msg *m;

	if (likely(c < RDS_BUF_TC_CLASSES) && likely(t != NULL) &&
	    likely(t->epoch == __atomic_load_n(&rds_epoch, __ATOMIC_RELAXED)) &&
	    likely(t->tc_n[c] != 0)) {
		m = (struct rds_msg *)(void *)t->tc[c][--t->tc_n[c]];
		rds_msg_init(m, c, len);
		return m;
	}
#endif
	return rds_msg_alloc_slow(len);
}

/* Drop one reference to m's buffer; the last one frees it. */
static __rte_always_inline void
rds_msg_put(struct rds_msg *m)
{
#ifndef RDS_LIBC_ALLOC
	struct rds_thread *t = rds_self;
	unsigned int c = m->cls;
#endif

	/* A shared buffer (the owner of a borrowed payload): one user less,
	 * and the last one goes on as the only one, without a call. */
	if (__atomic_load_n(&m->refs, __ATOMIC_ACQUIRE) != 1) {
		if (__atomic_sub_fetch(&m->refs, 1, __ATOMIC_ACQ_REL) != 0)
			return;
		__atomic_store_n(&m->refs, 1, __ATOMIC_RELAXED);
	}
#ifndef RDS_LIBC_ALLOC
	if (likely(m->op == NULL) && likely(c < RDS_BUF_TC_CLASSES) &&
	    likely(t != NULL) &&
	    likely(t->epoch == __atomic_load_n(&rds_epoch, __ATOMIC_RELAXED)) &&
	    likely(t->tc_n[c] < RDS_BUF_TCACHE)) {
		t->tc[c][t->tc_n[c]++] = (struct rds_free_buf *)(void *)m;
		return;
	}
#endif
	rds_msg_put_slow(m);
}

static __rte_always_inline void
rds_msg_free(struct rds_msg *m)
{
	struct rds_msg *owner;

	if (m == NULL)
		return;
	owner = m->owner;
	rds_msg_put(m);
	if (owner != NULL)
		rds_msg_put(owner);
}

/* A message that borrows the payload of owner (a reference is taken). */
static inline struct rds_msg *
rds_msg_alloc_borrow(struct rds_msg *owner)
{
	struct rds_msg *m = rds_msg_alloc(0);

	if (m == NULL)
		return NULL;
	m->len = owner->len;
	if (owner->owner != NULL)
		owner = owner->owner;
	__atomic_fetch_add(&owner->refs, 1, __ATOMIC_RELAXED);
	m->owner = owner;
	m->payload = owner->payload;
	return m;
}

/* ------------------------------------------------------------------ */
/* Local addresses and congestion maps. */

struct rds_laddr;

/* One per address, local or remote, living until rte_rds_fini(): the
 * congestion map, and what a sender needs to know of the address. */
struct rds_cong_map {
	struct in6_addr addr;
	struct rds_laddr *la;		/* a local address of ours, or NULL */
	uint32_t hash;			/* of addr, for engine selection */
	uint32_t gen;			/* bumped on every change (atomic) */
	uint64_t bits[RDS_CONG_MAP_WORDS]; /* little-endian bit order per port */
};

struct rds_transport;

struct rds_laddr {
	struct in6_addr addr;
	unsigned int index;
	const struct rds_transport *trans;
	char dev[RTE_RDS_NAMESIZE];
	char args[RTE_RDS_ARGSIZE];	/* driver options, key=value,... */
	struct rds_cong_map *cong;	/* this address's own map */
	void *tp;			/* transport private */
	/* Bound sockets: a page of 256 per port >> 8, made on demand. */
	rte_spinlock_t bind_lock;
	struct rds_sock **ports[RDS_NB_PORTS / 256];
	uint64_t *used;			/* port bitmap, under bind_lock */
	uint64_t full[RDS_NB_PORTS / 64 / 64];	/* words of used that are full */
	uint32_t nb_bound;
};

/* rds_cong.c */
int rds_cong_init(void);
void rds_cong_fini(void);
struct rds_cong_map *rds_cong_map_get(const struct in6_addr *addr);
static inline bool
rds_cong_test(const struct rds_cong_map *map, uint16_t port)
{
	uint64_t w = __atomic_load_n(&map->bits[port / 64], __ATOMIC_ACQUIRE);

	return (w >> (port % 64)) & 1;
}
void rds_cong_set(struct rds_cong_map *map, uint16_t port);
void rds_cong_clear(struct rds_cong_map *map, uint16_t port);
uint64_t rds_cong_map_update(struct rds_cong_map *map, const void *wire_bits);
void rds_cong_map_copy_out(const struct rds_cong_map *map, void *wire_bits);
void rds_cong_sock_check(struct rds_sock *rs);
uint32_t rds_cong_generation(void);
/* Bumped when a local address's map changes (engines announce it). */
uint32_t rds_cong_local_generation(void);
void rds_cong_map_changed(uint64_t portmask);
void rds_cong_watch(struct rds_sock *rs, bool on);

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

struct rds_sock {
	int id;
	uint32_t gen;			/* its slot's generation */
	struct rds_slot *slot;
	rte_spinlock_t lock;		/* bind, options, request enqueue */
	rte_spinlock_t rlock;		/* receive side */

	/* Set by the application, read by engines after bind. */
	bool bound;
	bool connected;
	uint16_t bound_port;		/* host order */
	struct in6_addr bound_addr;
	struct rds_laddr *la;
	struct in6_addr conn_addr;
	uint16_t conn_port;
	uint32_t trans_pinned;		/* SO_RDS_TRANSPORT or RDS_TRANS_NONE */
	uint32_t sndbuf;		/* value set; getsockopt doubles it */
	uint32_t rcvbuf;
	uint64_t sndtimeo_ns;		/* 0: forever */
	uint64_t rcvtimeo_ns;
	int recverr;			/* RDS_RECVERR */
	int cong_monitor;		/* RDS_CONG_MONITOR */
	uint32_t so_flags;		/* generic SOL_SOCKET flags set
					 * (RDS_SO_F_*): kept, no effect */
	int so_priority;		/* SO_PRIORITY: kept, no effect */
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
	pid_t mem_pid;			/* whose memory the socket's RDMA
					 * calls name: 0 this process, else
					 * the attached client's */
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
void rds_sock_wake_now(struct rds_sock *rs);
int rds_sock_request_slow(struct rds_sock *rs, struct rds_msg *m, bool wait);
/*
 * Queue a request on the socket and ring its home engine when the queue
 * was idle. The first request fixes the home engine: the one that owns
 * the first destination's connection, so that a socket talking to one
 * peer never crosses engines. -ENOBUFS when the queue is full (and
 * !wait), -EBADF when the socket is closing (and m is not its CLOSE).
 */
static inline int rds_sock_request(struct rds_sock *rs, struct rds_msg *m,
				   bool wait);
/* Send a control request (CANCEL, CLOSE) and wait for the engines. */
int rds_sock_request_wait(struct rds_sock *rs, struct rds_msg *m);
void rds_notify_queue(struct rds_engine *e, struct rds_sock *rs,
		      uint64_t token, int32_t status);
/* Bytes the library holds for sockets (bodies and queues). */
uint64_t rds_sock_mem(void);

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
/* Append one record of r->each bytes (a transport's info op too):
 * counted always, copied while it fits. */
void rds_info_put(struct rds_info_req *r, const void *rec);
void rds_info_engine_answer(struct rds_engine *e, struct rds_msg *m);
int rds_info_get(int name, void *buf, size_t *len, uint64_t timeout_ns);

/* ------------------------------------------------------------------ */
/* Transports: an ops table per driver. The core calls every op from the
 * engine that owns the connection. */

#define RDS_TRANS_F_LOOPBACK 0x1	/* delivers within this instance: no
					 * congestion map on the wire */
#define RDS_TRANS_F_RDMA 0x2		/* RDMA and atomics (hardware, or the
					 * software executor) */
#define RDS_TRANS_F_MASKED_ATOMICS 0x4	/* masked atomics too */

/* Memory regions: pages of this size; at most this many regions, each of
 * at most 1 MiB of pages plus a partial one (RDS_MR_MAX_PAGES). */
#define RDS_MR_PAGE 4096ULL
#define RDS_MR_MAX 65536
#define RDS_MR_MAX_PAGES (RDS_MAX_MSG_SIZE / RDS_MR_PAGE + 1)

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
	pid_t pid;			/* 0: this process's memory, else an
					 * attached client's (rds_xmem) */
	uint32_t *owner_nb;		/* the owner's count of regions */
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
	bool executed;			/* ran once (software executor; ib:
					 * its work request completed) */
	int status;			/* its result */
	int recverr;			/* RDS_RECVERR at sendmsg */
	uint32_t refs;			/* the message, and a transport that
					 * has the operation in flight */
	void *tp_mr;			/* transport: local registration */
	uint32_t tp_flags;		/* transport: its own state */
	int sock;			/* who is told how it went */
	uint32_t sock_gen;
	pid_t pid;			/* whose memory local and
					 * atomic_result are (0: ours) */
};

/* rds_xmem.c: memory of this process (pid 0) or of an attached client
 * (process_vm_readv/writev): never a fault, -EFAULT (gone, unmapped) or
 * -ESRCH (no such process) instead. */
int rds_xmem_read(pid_t pid, void *dst, uintptr_t src, size_t n);
int rds_xmem_write(pid_t pid, uintptr_t dst, const void *src, size_t n);
/* An atomic update of a client's 64-bit word, serialised with every
 * other one (the word is reached with process_vm_*: atomic against
 * other RDMA atomics, as a NIC's are). fn gets the old value and
 * returns the new one (or the old one: no write). */
int rds_xmem_atomic(pid_t pid, uintptr_t addr,
		    uint64_t (*fn)(uint64_t old, const void *arg),
		    const void *arg, uint64_t *old);

/* rds_rdma.c, rds_rdma_cmsg.c, rds_rdma_exec.c */
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
		   bool *has_dest, bool *mapped);
void rds_rdma_unmap(struct rds_sock *rs, uint64_t cookie);
void rds_rdma_op_free(struct rds_rdma_op *op);
/* The software executor, in two halves so that they can run on two
 * hosts: the request the target runs, the target half, the initiator
 * half, and both in one process. */
struct rds_rdma_req {
	enum rds_op_kind kind;
	uint64_t cookie;
	uint64_t remote_off;
	uint64_t bytes;
	uint64_t compare, swap_add, mask1, mask2;
	const uint8_t *wdata;		/* WRITE: bytes bytes */
};
void rds_rdma_req_of(const struct rds_rdma_op *op, struct rds_rdma_req *rq);
int rds_rdma_target(const struct in6_addr *target, const struct rds_rdma_req *rq,
		    const struct iovec *rdst, uint32_t nrdst, uint64_t *old);
void rds_rdma_initiator_done(struct rds_rdma_op *op, int status,
			     const uint8_t *rdata, uint64_t old);
int rds_rdma_sw_exec(const struct in6_addr *target, struct rds_rdma_op *op);
void rds_rdma_notify(struct rds_engine *e, const struct rds_msg *m,
		     int status);
void rds_rdma_op_notify(struct rds_engine *e, struct rds_rdma_op *op,
			int status);

struct rds_transport {
	const char *name;
	const char *info_name;		/* RDS_INFO_CONNECTIONS: the kernel's
					 * name ("infiniband", "loopback") */
	uint32_t trans_id;		/* SO_RDS_TRANSPORT value */
	uint32_t flags;			/* RDS_TRANS_F_* */
	/* Library set-up and tear-down (optional). 0 or -errno. */
	int (*init)(const struct rte_rds_conf *conf);
	void (*fini)(void);
	/* Can this transport serve local address la? 0 or -errno. */
	int (*laddr_check)(struct rds_laddr *la);
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
	 * taking each frame's header from rds_msg_hdr() (or, within the
	 * instance, rds_msg_hdr_info()). Returns 0 when the message is on
	 * its way (kept until acknowledged), RDS_XMIT_ACKED when it was
	 * delivered within the process and counts as acknowledged (the
	 * kernel's loop transport), -EAGAIN when there is no room now (the
	 * core retries later), another -errno to fail the connection. */
	int (*xmit)(struct rds_conn *c, struct rds_msg *m);
	/* Send an ACK-only frame with the header from rds_ack_hdr().
	 * 0, -EAGAIN or -errno as xmit. */
	int (*xmit_ack)(struct rds_conn *c);
	/* Poll receive and completion queues of engine e; returns work
	 * done. Received frames go to rds_recv_frame(). Called every pass
	 * of an engine on which the transport is active (optional). */
	unsigned int (*poll)(struct rds_engine *e);
	/* End of an engine pass in which the transport was polled: send
	 * what xmit batched (one rte_eth_tx_burst, one post list).
	 * Optional. */
	void (*flush)(struct rds_engine *e);
	/* Hardware memory registration (optional): fill mr->key and
	 * mr->tp for the region mr->base, mr->len. 0 or -errno. */
	int (*mr_reg)(const struct rds_laddr *la, struct rds_mr *mr);
	void (*mr_free)(struct rds_mr *mr);
	/* RDS_INFO_* records the transport keeps (RDS_INFO_IB_CONNECTIONS,
	 * ...) for the connections of engine e (optional). */
	void (*info)(struct rds_engine *e, struct rds_info_req *r);
	/* Counters: nb_xstats names, and e's values added to values[]
	 * (optional); rte_rds_xstats_get() sums them over engines. */
	const char *const *xstat_names;
	unsigned int nb_xstats;
	void (*xstats)(struct rds_engine *e, uint64_t *values);
};

#define RDS_XMIT_ACKED 1

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
/* Timers (rds_timer.c): a wheel per engine, driven by its run loop. */

struct rds_timer;
typedef void (*rds_timer_fn)(struct rds_engine *e, struct rds_timer *t);

struct rds_timer {
	TAILQ_ENTRY(rds_timer) link;
	uint64_t expire;		/* TSC */
	rds_timer_fn fn;
	bool armed;
};

#define RDS_WHEEL_SLOTS 1024
TAILQ_HEAD(rds_timer_list, rds_timer);

struct rds_wheel {
	uint64_t tick;			/* next tick to process */
	uint32_t shift;			/* TSC cycles per tick = 1 << shift */
	uint32_t nb_armed;
	struct rds_timer_list slots[RDS_WHEEL_SLOTS];
};

void rds_wheel_init(struct rds_wheel *w, uint64_t now, uint64_t tsc_hz);
void rds_timer_init(struct rds_timer *t, rds_timer_fn fn);
/* Arm (or re-arm) t to fire at TSC expire. */
void rds_timer_arm(struct rds_engine *e, struct rds_timer *t,
		   uint64_t expire);
void rds_timer_cancel(struct rds_engine *e, struct rds_timer *t);
/* Fire what is due; returns the number fired. */
unsigned int rds_wheel_run(struct rds_engine *e, uint64_t now);

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
#define RDS_CONN_CACHE 16

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
	uint32_t map_gen_sent;
	struct rds_msg *map_cur;	/* the copy of it the transport may
					 * be inside (kept across -EAGAIN) */
	uint32_t map_cur_gen;

	/* Receiving. */
	uint64_t next_rx_seq;		/* not reset on reconnect */
	uint64_t ack_next;		/* highest sequence received */
	uint64_t ack_sent;		/* last ACK value sent */
	bool ack_requested;		/* peer asked for an ACK */
	bool ack_due;			/* the delayed-ACK timer fired */
	struct rds_timer ack_timer;

	/* Reconnect backoff. */
	uint64_t reconnect_ceil_ms;	/* 0: next attempt immediate */
	bool reconnect_due;		/* the backoff timer fired */
	struct rds_timer conn_timer;
	bool drop_pending;		/* transport asked for a reset */
	bool unresponsive;		/* the transport reports the peer does
					 * not answer (info, telemetry) */

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
/* A transport reports a fatal error on c: the engine drops and
 * reconnects it at its next pass (as net/rds drivers call
 * rds_conn_drop). */
void rds_conn_error(struct rds_conn *c, const char *why);
/* c has something to do (send, ACK, connect): put it on the ready list. */
static inline void rds_conn_ready(struct rds_conn *c);
unsigned int rds_conn_run(struct rds_conn *c, uint64_t now);
unsigned int rds_conn_engine_of(const struct in6_addr *laddr,
				const struct in6_addr *faddr);
unsigned int rds_conn_engine_of_hash_n(uint32_t lhash, uint32_t fhash);
static inline unsigned int rds_conn_engine_of_hash(uint32_t lhash,
						   uint32_t fhash);
uint32_t rds_addr_hash(const struct in6_addr *a);
const char *rds_conn_state_name(enum rds_conn_state st);
/* Received messages were accepted: ACK now, or after the delay. */
void rds_conn_ack_later(struct rds_conn *c);

/* ------------------------------------------------------------------ */
/* Engines. */

TAILQ_HEAD(rds_conn_list, rds_conn);
TAILQ_HEAD(rds_sock_list, rds_sock);
TAILQ_HEAD(rds_bell_list, rds_bell);

struct rds_engine {
	unsigned int id;
	uint32_t lcore_id;		/* RTE_RDS_ENGINE_INLINE for inline */
	enum rte_rds_idle_policy idle;
	uint32_t idle_polls;
	uint32_t idle_sleep_us;
	rte_spinlock_t poll_lock;	/* one poller at a time (inline) */
	volatile bool stop;
	bool launched;
	uint64_t pass;			/* passes completed (atomic): close
					 * waits for one after it unhooked a
					 * socket */
	uint64_t now;			/* TSC at the start of this pass */
	uint64_t late_tsc;		/* s_late_passes beyond this gap
					 * (UINT64_MAX: inline, never) */

	/* Doorbells: the rings of the threads that rang us. */
	rte_spinlock_t bell_lock;	/* the list, for threads to add to */
	struct rds_bell_list bells;	/* under bell_lock */
	uint32_t bell_gen;		/* bumped on a change (atomic) */
	uint32_t bell_gen_seen;
	unsigned int nb_bells;
	struct rds_bell **bell_arr;	/* engine's copy of the list */
	unsigned int bell_cap;

	struct rds_sock_list pending;	/* sockets with requests left */

	/* Messages from other engines: one queue per source engine. */
	struct rds_queue *hand_in;	/* [src engine] */
	uint64_t hand_out;		/* messages handed to others */

	struct rte_ring *admin;		/* MP/SC: info requests, calls from
					 * threads that are not engines */
	unsigned int nb_clients;	/* attached processes it serves */

	struct rte_hash *conn_hash;
	/* The last connections found in conn_hash, by rds_conn_cache_slot():
	 * a frame's lookup is mostly one of these (the engine alone uses
	 * them; rds_conn_destroy clears its entry). */
	struct rds_conn *conn_cache[RDS_CONN_CACHE];
	struct rds_conn_list conns;
	unsigned int nb_conns;
	struct rds_conn_list ready;	/* connections with work */
	struct rds_wheel wheel;

	uint32_t *cong_gen_seen;	/* [laddr] */
	uint32_t cong_local_seen;	/* rds_cong_local_generation */
	uint32_t empty_polls;
	void *tp[RDS_MAX_TRANSPORTS];	/* per-transport engine state */
	/* Transports with a poll op active on this engine. */
	const struct rds_transport *polled[RDS_MAX_TRANSPORTS];
	unsigned int nb_polled;

	struct rte_rds_stats stats __rte_cache_aligned;
};

#define rds_stat_inc(e, f) ((e)->stats.f++)
#define rds_stat_add(e, f, n) ((e)->stats.f += (n))

static inline void
rds_conn_ready(struct rds_conn *c)
{
	if (!c->ready) {
		c->ready = true;
		TAILQ_INSERT_TAIL(&c->eng->ready, c, ready_link);
	}
}

/* rds_engine.c */
int rds_engines_init(const struct rte_rds_conf *conf);
void rds_engines_stop(void);
void rds_engines_fini(void);
unsigned int rds_engine_run_once(struct rds_engine *e);
int rds_engine_try_poll(struct rds_engine *e);
/* Every engine has finished the pass it was in when this was called. */
void rds_engines_quiesce(void);
/* Engine e's poll op of transport t runs every pass from now on. */
void rds_engine_poll_transport(struct rds_engine *e,
			       const struct rds_transport *t);
/* Hand a message to engine dst, in order with what e handed it before. */
void rds_engine_handoff(struct rds_engine *e, unsigned int dst,
			struct rds_msg *m);
/* Run fn(dst engine, arg) on engine dst (in its pass, in order with what
 * e handed it before): how a transport gives work to the engine that
 * owns a connection. At once when dst is e. -ENOMEM. */
int rds_engine_call(struct rds_engine *e, unsigned int dst, rds_engine_fn fn,
		    void *arg);
/* The same from a thread that is not an engine, waiting until it ran
 * (driving inline engines meanwhile). 0 or -ENOMEM. */
int rds_engine_call_wait(unsigned int dst, rds_engine_fn fn, void *arg);

/* rds_server*.c: serving attached processes (the engine side). */
struct rds_client;
struct rds_srv_sock;
unsigned int rds_server_service(struct rds_engine *e);
int rds_server_deliver(struct rds_engine *e, struct rds_sock *rs,
		       struct rds_msg *m);
void rds_server_wake(struct rds_sock *rs);
void rds_server_released(struct rds_sock *rs, uint32_t len);
void rds_server_notify(struct rds_engine *e, struct rds_sock *rs,
		       uint64_t token, int32_t status);
void rds_server_info_recv(struct rds_sock *rs,
			  void (*fn)(void *arg, const struct rds_msg *m),
			  void *arg);
uint64_t rds_server_violations(void);
void rds_server_fini(void);
void rds_srv_efd_kick(int fd);

/* rds_client*.c: an attached process (no EAL; rds_lib is NULL). The
 * public calls go here when rds_client_active(). */
bool rds_client_active(void);
int rds_client_socket(void);
int rds_client_bind(int s, const struct sockaddr *addr, socklen_t addrlen);
int rds_client_connect(int s, const struct sockaddr *addr,
		       socklen_t addrlen);
int rds_client_getsockname(int s, struct sockaddr *addr,
			   socklen_t *addrlen);
int rds_client_close(int s);
ssize_t rds_client_sendmsg(int s, const struct msghdr *msg, int flags);
ssize_t rds_client_recvmsg(int s, struct msghdr *msg, int flags);
int rds_client_setsockopt(int s, int level, int optname, const void *optval,
			  socklen_t optlen);
int rds_client_getsockopt(int s, int level, int optname, void *optval,
			  socklen_t *optlen);
int rds_client_info(int name, void *buf, socklen_t *len);
int rds_client_stats(int engine_id, struct rte_rds_stats *st);
int rds_client_xstats(const char *transport, struct rte_rds_xstat *xs,
		      unsigned int n);
int rds_client_xstat(const char *transport, const char *name,
		     uint64_t *value);
int rds_client_event_fd(int s);
int rds_client_event_arm(int s, short events);
int rds_client_poll(struct rte_rds_pollfd *fds, unsigned int nfds,
		    int timeout_ms);

/* The public calls of a process with no library of its own but an
 * attachment: go to rds_client*.c. */
#define RDS_CLIENT_OR(call) do { \
		if (unlikely(rds_lib == NULL) && rds_client_active()) \
			return call; \
	} while (0)

/* rds_send.c */
ssize_t rds_send_make(struct rds_sock *rs, const struct msghdr *msg,
		      int flags, struct rds_msg **mp, uint64_t *dest_cookie,
		      bool *mapped);
void rds_send_unmake(struct rds_sock *rs, struct rds_msg *m, bool mapped,
		     uint64_t dest_cookie);
void rds_send_request(struct rds_engine *e, struct rds_sock *rs,
		      struct rds_msg *m);
void rds_send_queue(struct rds_engine *e, struct rds_msg *m);
unsigned int rds_send_xmit(struct rds_conn *c);
void rds_send_drop_acked(struct rds_conn *c, uint64_t ack);
void rds_send_path_reset(struct rds_conn *c);
void rds_send_cancel(struct rds_engine *e, const struct rds_msg *req);
void rds_send_release(struct rds_engine *e, struct rds_msg *m);
void rds_send_pong(struct rds_conn *c, uint16_t dport);
/* The header of m's frames, with the current ACK: encoded for a wire
 * (checksum included), or as decoded fields for a transport that never
 * leaves the process. */
void rds_msg_hdr(struct rds_conn *c, const struct rds_msg *m,
		 struct rds_header *h);
void rds_msg_hdr_info(struct rds_conn *c, const struct rds_msg *m,
		      struct rds_hdr_info *h);
void rds_ack_hdr(struct rds_conn *c, struct rds_header *h);
void rds_ack_hdr_info(struct rds_conn *c, struct rds_hdr_info *h);

/* rds_recv.c */
/* One frame from the wire (header to decode, payload copied if kept). */
int rds_recv_frame(struct rds_conn *c, const struct rds_header *wire,
		   const void *payload, uint32_t len);
/* The same, with the payload already in a buffer from rds_msg_alloc()
 * (m->len bytes), which the core takes over in every case. */
int rds_recv_frame_msg(struct rds_conn *c, const struct rds_header *wire,
		       struct rds_msg *m);
/* A decoded header, and optionally a buffer to take over (own, whose
 * payload holds len bytes) or bytes to copy (payload). */
int rds_recv_hdr(struct rds_conn *c, const struct rds_hdr_info *h,
		 const void *payload, uint32_t len, struct rds_msg *own);

/* rds_init.c: the one library instance. */
struct rds_lib {
	struct rte_rds_conf conf;
	unsigned int nb_engines;
	struct rds_engine *engines[RTE_RDS_MAX_ENGINES];
	unsigned int nb_laddrs;
	struct rds_laddr **laddrs;	/* [nb_laddrs] */
	struct rte_hash *laddr_hash;	/* address -> laddr */
	uint64_t tsc_hz;
	uint64_t delayed_ack_tsc;
	bool any_inline;		/* an engine is driven inline */
	/* sockets */
	uint32_t max_sockets;
	pthread_mutex_t sock_lock;	/* slot allocation */
	struct rds_slot **chunks;	/* [max_sockets / RDS_SLOT_CHUNK] */
	uint32_t nb_slots;		/* slots allocated */
	int32_t free_head;		/* free slot list, or -1 */
	uint32_t nb_open;
	uint64_t sock_mem;		/* bytes of socket bodies (atomic) */
};

#define RDS_SLOT_CHUNK 1024

extern struct rds_lib *rds_lib RDS_HIDDEN;

static inline struct rds_engine *
rds_engine_get(unsigned int i)
{
	return rds_lib->engines[i];
}

static inline struct rds_slot *
rds_slot_of(int s)
{
	uint32_t u = (uint32_t)s;

	if (unlikely(rds_lib == NULL) ||
	    unlikely(u >= __atomic_load_n(&rds_lib->nb_slots,
					  __ATOMIC_ACQUIRE)))
		return NULL;
	return &rds_lib->chunks[u / RDS_SLOT_CHUNK][u % RDS_SLOT_CHUNK];
}

static inline struct rds_sock *
rds_sock_engine_get(int id, uint32_t gen)
{
	struct rds_slot *sl = rds_slot_of(id);

	if (unlikely(sl == NULL) ||
	    __atomic_load_n(&sl->state, __ATOMIC_ACQUIRE) != RDS_SOCK_OPEN ||
	    __atomic_load_n(&sl->gen, __ATOMIC_ACQUIRE) != gen)
		return NULL;
	return sl->body;
}

static inline int
rds_sock_request(struct rds_sock *rs, struct rds_msg *m, bool wait)
{
	int ret;

	rte_spinlock_lock(&rs->lock);
	if (likely(rs->home >= 0)) {
		ret = rds_queue_put(&rs->req, m);
		rte_spinlock_unlock(&rs->lock);
		if (unlikely(ret != 0))
			return rds_sock_request_slow(rs, m, wait);
		if (__atomic_exchange_n(&rs->queued, 1, __ATOMIC_SEQ_CST) == 0)
			rds_bell_ring(rds_lib->engines[rs->home],
				      (unsigned int)rs->home, rs);
		return 0;
	}
	rte_spinlock_unlock(&rs->lock);
	return rds_sock_request_slow(rs, m, wait);
}

static inline unsigned int
rds_conn_engine_of_hash(uint32_t lhash, uint32_t fhash)
{
	if (likely(rds_lib->nb_engines == 1))
		return 0;
	return rds_conn_engine_of_hash_n(lhash, fhash);
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

	/* One buffer, the common case: the same checks, no loop. */
	if (likely(n == 1) && likely(iov != NULL)) {
		l = iov[0].iov_len;
		*total = 0;
		if (unlikely(l > (size_t)SSIZE_MAX))
			return -EINVAL;
		if (unlikely(iov[0].iov_base == NULL && l != 0))
			return -EFAULT;
		*total = l;
		return 0;
	}
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

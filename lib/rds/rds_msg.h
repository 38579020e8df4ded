/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Messages: struct rds_msg, the buffers that hold them (rds_buf.c) and
 * the buffers' inline fast paths (a thread cache hit: alloc, put, free,
 * borrow). Part of rds_private.h, which includes it after rds_thread.h
 * (the caches): include that, not this.
 */
#ifndef RDS_MSG_H
#define RDS_MSG_H

#ifndef RDS_PRIVATE_H
#error "include rds_private.h, not rds_msg.h"
#endif

/* ------------------------------------------------------------------ */
/* Messages.
 *
 * One buffer holds a message's metadata and, normally, its payload. The
 * application fills it on send and queues it to its socket; the engine
 * keeps it on a connection's queues until it is acknowledged. On receive
 * the engine fills one and queues it to the socket. A received message
 * may instead borrow the payload of another message (the loop transport
 * hands the sender's payload over without a copy): the owner is
 * reference-counted and freed with its last user. A message of the
 * engine process may also hold a payload that is not in its buffer at
 * all (RDS_BUF_CLS_EXT: an attached client's TX buffer, which goes back
 * to the client with the message's last reference). Control requests
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

#include "rds_rx_trace.h"

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
	union {
		uint8_t all;		/* CANCEL: every destination */
		uint8_t cancelled;	/* DATA: cancelled (close or
					 * RDS_CANCEL_SENT_TO) while half
					 * handed to the transport: it goes
					 * out whole, but never again after a
					 * reset */
	};
	uint8_t trans_id;		/* transport for the connection */
	bool has_dest;			/* rdma_dest is set */
	uint8_t eng;			/* DATA: engine owning its connection */
	uint8_t rx_ts;			/* RECV: rx_tstamp is set, as
					 * RDS_TS_OLD or RDS_TS_NEW; and
					 * RDS_TS_TRACE: rx_trace is */
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
	union {
		uint64_t token;		/* NOTIFY: user token */
		uint64_t rx_tstamp;	/* RECV (rx_ts): arrival, CLOCK_REALTIME
					 * in ns (SO_TIMESTAMP) */
	};
	int32_t status;			/* NOTIFY: RDS_RDMA_* status */
	uint32_t pad2;
	union {
		struct {
			rds_engine_fn call;	/* CALL: what to run, with */
			void *arg;		/* CALL: its argument */
		};
		struct rds_rx_trace rx_trace;	/* RECV (RDS_TS_TRACE) */
	};
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
/* The same, not zeroed: for a block the caller fills whole at once. */
void *rds_mem_alloc(const char *what, size_t size);
void rds_mem_free(void *p);
/* The calling thread's cached buffers go back to the shared lists. */
void rds_buf_thread_flush(void);
#ifdef RDS_LIBC_ALLOC
/* libc_alloc builds: message buffers, and rds_mem_zalloc() blocks, that
 * are allocated now (the fuzz targets check that an input leaves none
 * behind). */
uint64_t rds_buf_nb_live(void);
uint64_t rds_mem_nb_live(void);
#endif

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

/* A message whose payload is another's memory (an attached client's TX
 * buffer, rds_server_zc.c): its class says so, a class no buffer has,
 * so that its last put takes the slow path (rds_msg_put_slow), which
 * hands it to the hook set here and frees the message's own buffer (of
 * class 0). The hook gets the message with its buffer still there. */
#define RDS_BUF_CLS_EXT 0xff
void rds_buf_ext_hook_set(void (*release)(struct rds_msg *m));

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

/* One user more of m, a buffer of its own (m->owner NULL): a driver
 * that hands m over and must keep it if the taker frees it (rds_tcp, a
 * frame the core could not take), dropped with rds_msg_put(). */
static inline void
rds_msg_hold(struct rds_msg *m)
{
	__atomic_fetch_add(&m->refs, 1, __ATOMIC_RELAXED);
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

#endif /* RDS_MSG_H */

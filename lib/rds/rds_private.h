/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RDS_PRIVATE_H
#define RDS_PRIVATE_H

/*
 * librte_rds internals. One header for the library (drivers include
 * rds_driver.h, which brings it in); prototypes are grouped by the file
 * that defines them.
 *
 * Its parts, one per concern, are included below in the order they
 * depend on each other, and only from here: addresses (rds_addr.h),
 * threads (rds_thread.h), messages and buffers (rds_msg.h), queues
 * (rds_queue.h), the socket calls' front half (rds_front.h), sockets
 * (rds_sock.h), RDMA (rds_rdma.h), timers
 * (rds_timer.h), connections (rds_conn.h), engines (rds_engine.h),
 * caller-argument checks (rds_uarg.h) and, last, what drivers see
 * (rds_driver.h: the transport table and their calls). This
 * file keeps the base (logging, errors, limits), info requests, the
 * attached-process calls, sending and receiving, the library instance
 * and the inline functions that need it.
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
#include "rds_clock.h"

/* Internal data: hidden, so that the shared library reaches it without
 * the GOT. */
#define RDS_HIDDEN __attribute__((visibility("hidden")))

extern int rds_logtype;
#define RDS_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, rds_logtype, "RDS: " fmt "\n", ##__VA_ARGS__)

struct rds_engine;
struct rds_sock;
struct rds_conn;

/* Work handed to an engine (rds_engine_call_wait). */
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

#include "rds_addr.h"
#include "rds_thread.h"
#include "rds_msg.h"
#include "rds_queue.h"
#include "rds_front.h"
#include "rds_sock.h"

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
/* A snapshot name: the kernel's range or librte_rds's own (in-process,
 * attached clients and the engine that serves them agree on it). */
static inline bool
rds_info_name(int name)
{
	return (name >= RDS_INFO_FIRST && name <= RDS_INFO_LAST) ||
	       (name >= RTE_RDS_INFO_OWN_FIRST && name <= RTE_RDS_INFO_OWN_LAST);
}
/* Append one record of r->each bytes (a transport's info op too):
 * counted always, copied while it fits. */
void rds_info_put(struct rds_info_req *r, const void *rec);
void rds_info_engine_answer(struct rds_engine *e, struct rds_msg *m);
int rds_info_get(int name, void *buf, size_t *len, uint64_t timeout_ns);

#include "rds_rdma.h"
#include "rds_timer.h"
#include "rds_conn.h"
#include "rds_engine.h"

/* rds_server*.c: serving attached processes (the engine side). */
struct rds_client;
struct rds_srv_sock;
unsigned int rds_server_service(struct rds_engine *e);
int rds_server_deliver(struct rds_engine *e, struct rds_sock *rs,
		       struct rds_msg *m);
void rds_server_wake(struct rds_sock *rs);
/* An engine's pass begins and ends: the wake-ups of attached clients'
 * sockets asked for meanwhile are sent at its end (rds_server_wake.c). */
/* The process serves attached clients when set (rds_server.c). */
struct rds_server;
extern struct rds_server *rds_srv;
void rds_server_wake_begin(void);
void rds_server_wake_flush(void);
void rds_server_released(struct rds_sock *rs, uint32_t len);
/* The attached client of rs is told err at its next send. */
void rds_server_set_err(struct rds_sock *rs, int err);
void rds_server_notify(struct rds_engine *e, struct rds_sock *rs,
		       uint64_t token, int32_t status);
void rds_server_info_recv(struct rds_sock *rs,
			  void (*fn)(void *arg, const struct rds_msg *m),
			  void *arg);
uint64_t rds_server_violations(void);
void rds_server_fini(void);
void rds_server_fini_late(void);

/* rds_client*.c: an attached process (no EAL; rds_lib is NULL). The
 * public calls go here when rds_client_active(). */
bool rds_client_active(void);
int rds_client_socket(void);
int rds_client_bind(int s, const struct sockaddr *addr, socklen_t addrlen);
int rds_client_connect(int s, const struct sockaddr *addr,
		       socklen_t addrlen);
int rds_client_getsockname(int s, struct sockaddr *addr,
			   socklen_t *addrlen);
int rds_client_getpeername(int s, struct sockaddr *addr,
			   socklen_t *addrlen);
int rds_client_close(int s);
int rds_client_ioctl(int s, unsigned long request, int *val);
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

/* rds_send.c (the application's half) */
ssize_t rds_send_make(struct rds_sock *rs, const struct msghdr *msg,
		      int flags, struct rds_msg **mp, uint64_t *dest_cookie,
		      bool *mapped);
void rds_send_unmake(struct rds_sock *rs, struct rds_msg *m, bool mapped,
		     uint64_t dest_cookie);
int rds_send_op_check(const struct rds_rdma_op *op, uint8_t trans_id);
/* rds_xmit.c (the engine's half) */
void rds_send_request_slow(struct rds_engine *e, struct rds_sock *rs,
			   struct rds_msg *m);

/* Stamp m with c's next sequence number and queue it on c. */
static __rte_always_inline void
rds_send_enqueue(struct rds_conn *c, struct rds_msg *m)
{
	m->seq = c->next_tx_seq++;
	TAILQ_INSERT_TAIL(&c->send_q, m, link);
	rds_stat_inc(c->eng, s_send_queued);
	if (c->state == RDS_CONN_UP)
		rds_conn_ready(c);
}

/* A message from a socket's queue, on its home engine. Inline when it
 * goes to the socket's last connection and that is this engine's (most
 * sockets talk to one peer); rds_send_request_slow otherwise. */
static __rte_always_inline void
rds_send_request(struct rds_engine *e, struct rds_sock *rs, struct rds_msg *m)
{
	struct rds_conn *c = rs->last_conn;

	if (likely(m->eng == e->id) && likely(c != NULL) &&
	    likely(c->key.trans_id == m->trans_id) &&
	    likely(rds_addr_eq(&c->key.faddr, &m->faddr)) &&
	    likely(rds_addr_eq(&c->key.laddr, &m->laddr))) {
		rds_send_enqueue(c, m);
		return;
	}
	rds_send_request_slow(e, rs, m);
}
void rds_send_queue(struct rds_engine *e, struct rds_msg *m);
void rds_send_drop_acked(struct rds_conn *c, uint64_t ack);
void rds_send_path_reset(struct rds_conn *c);
void rds_send_cancel(struct rds_engine *e, const struct rds_msg *req);
void rds_send_release(struct rds_engine *e, struct rds_msg *m);
void rds_send_pong(struct rds_conn *c, uint16_t dport);
/* The header of m's frames, with the current ACK: encoded for a wire
 * (checksum included), or as decoded fields for a transport that never
 * leaves the process; and of an ACK-only frame. They change nothing of
 * the connection: the ACK value they return (or put in h->ack) is the
 * one the frame carries, for rds_conn_ack_sent() once it went. */
uint64_t rds_msg_hdr(const struct rds_conn *c, const struct rds_msg *m,
		     struct rds_header *h);
void rds_msg_hdr_info(const struct rds_conn *c, const struct rds_msg *m,
		      struct rds_hdr_info *h);
uint64_t rds_ack_hdr(const struct rds_conn *c, struct rds_header *h);
void rds_ack_hdr_info(const struct rds_conn *c, struct rds_hdr_info *h);

/* rds_deliver.c (the engine's half of receiving) */
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
	struct rds_lib *lib = rds_lib;	/* read once: the acquire below */
	uint32_t u = (uint32_t)s;	/* would read it again */

	if (unlikely(lib == NULL) ||
	    unlikely(u >= __atomic_load_n(&lib->nb_slots, __ATOMIC_ACQUIRE)))
		return NULL;
	return &lib->chunks[u / RDS_SLOT_CHUNK][u % RDS_SLOT_CHUNK];
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

/* The socket that sent m, if it is still there (its slot may have been
 * reused while a transport held the message: the generation tells). */
static __rte_always_inline struct rds_sock *
rds_send_sender(const struct rds_msg *m)
{
	if (m->type != RDS_MSG_DATA || m->sock < 0)
		return NULL;
	return rds_sock_engine_get(m->sock, m->sock_gen);
}

/* A sent message leaves the engine (acknowledged, cancelled, delivered
 * within the process): its bytes return to the sender's send buffer. */
static __rte_always_inline void
rds_send_unaccount(const struct rds_msg *m)
{
	struct rds_sock *rs = rds_send_sender(m);

	if (rs == NULL)
		return;
	__atomic_fetch_sub(&rs->snd_bytes, (int64_t)m->len, __ATOMIC_RELEASE);
	__atomic_fetch_sub(&rs->snd_msgs, 1, __ATOMIC_RELEASE);
	if (unlikely(rs->client != NULL))
		rds_server_released(rs, m->len);
	else
		rds_sock_wake_own(rs);
}

/* m's sender (if still there) is told err at its next send (or
 * SO_ERROR): a message it sent was dropped. */
static inline void
rds_send_set_err(const struct rds_msg *m, int err)
{
	struct rds_sock *rs = rds_send_sender(m);

	if (rs == NULL)
		return;
	if (unlikely(rs->client != NULL))
		rds_server_set_err(rs, err);
	else
		__atomic_store_n(&rs->snd_err, (uint32_t)err,
				 __ATOMIC_RELEASE);
}

static __rte_always_inline int
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

#include "rds_uarg.h"
/* Last: the transport table and the calls of drivers (it includes this
 * header itself, for a driver that includes only it). */
#include "rds_driver.h"

#endif /* RDS_PRIVATE_H */

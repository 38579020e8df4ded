/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RDS_IB_H
#define RDS_IB_H

/*
 * The ib transport's internals (net/rds/ib*.c): one RC QP per connection
 * with its own send CQ, all owned and busy-polled by the connection's
 * engine. Receives come from a shared receive queue (SRQ) of the engine
 * on the device, with one receive CQ for all its QPs (rds_ib_srq.c;
 * srq=0: a ring and a CQ of the connection's own). Buffers that only
 * traffic needs (receive buffers, send copies, RDMA bounce buffers) come
 * from pools of the engine on the device (rds_ib_pool.c), so that an
 * idle connection holds little more than its QP and send headers.
 * RDMA-CM events are read from a non-blocking event channel per engine;
 * the listener lives on engine 0 and hands connect requests to the
 * engine that owns the connection. Settings are options of each local
 * address (rte_rds_ib.h), parsed into struct rds_ib_opts
 * (rds_ib_opts.c); a connection takes those of its local address.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "rds_driver.h"
#include "rte_rds_ib.h"

extern int rds_ib_logtype;
#define IB_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, rds_ib_logtype, "RDS ib: " fmt "\n", \
		##__VA_ARGS__)

#define RDS_IB_SUPPORTED_PROTOCOLS 0x0003
#define RDS_IB_RESOLVE_TIMEOUT_MS 5000
#define RDS_IB_REJ_INCOMPAT 1
#define RDS_IB_HDR_SIZE RDS_HEADER_SIZE
#define RDS_IB_SLOT_SIZE (RDS_IB_HDR_SIZE + RDS_FRAG_SIZE)
/* A send slot of the connection: the header and what of the data fits
 * inline (the QP asks for 128 bytes of inline data). Data that does not
 * fit there goes from the message buffer (zero-copy) or from a copy
 * buffer of the engine's pool (RDS_FRAG_SIZE each). */
#define RDS_IB_TX_SLOT 128
#define RDS_IB_SIGNAL_EVERY 16
#define RDS_IB_BOUNCE_NB 4		/* RDMA operations in flight a conn */
#define RDS_IB_BOUNCE_SIZE RDS_MAX_MSG_SIZE
/* Pools of an engine on a device (rds_ib_pool.c): buffers a slab (one
 * allocation, one registration), and the most buffers. Receive buffers
 * are RDS_IB_SLOT_SIZE, at most srq_max (an option); send copies
 * RDS_FRAG_SIZE; RDMA bounce buffers RDS_IB_BOUNCE_SIZE. */
#define RDS_IB_RX_PER_SLAB 64
#define RDS_IB_TX_PER_SLAB 64
#define RDS_IB_TX_BUF_MAX 8192		/* 32 MiB of send copies */
#define RDS_IB_BOUNCE_MAX 16		/* 16 MiB of bounce buffers */
/* Receive completions taken by one ibv_poll_cq, and such bursts per
 * connection and engine loop; each burst's buffers go back to the ring
 * in one chained ibv_post_recv. */
#define RDS_IB_RX_BURST 64
#define RDS_IB_RX_BURSTS 8
/* Consumed buffers go back once this many wait (an eighth of a smaller
 * ring): one ibv_post_recv per batch even when completions trickle in. */
#define RDS_IB_RX_REFILL_BATCH 16
/* A standalone ACK waits this many engine passes and microseconds (both)
 * for a DATA frame to carry it: an application answering what it just
 * received, whose loop polls the engine between its receive and its
 * send, gets its reply out first. */
#define RDS_IB_ACK_WAIT_PASSES 4
#define RDS_IB_ACK_WAIT_US 5
/* The responder's minimum RNR NAK timer in the IB encoding: 10 is
 * 0.32 ms, the kernel's IB_RNR_TIMER_000_32 (rds_ib_tune_rnr). RDMA-CM
 * leaves 0, which is the longest, 655.36 ms. */
#define RDS_IB_MIN_RNR_TIMER 10
/* A connection attempt with no outcome after this long is dropped and
 * retried (at least; the stall bound counts too). */
#define RDS_IB_CONNECT_TIMEOUT_MS 15000u

/* CM private data (net/rds/ib.h); fields only ever appended. IPv4
 * connections carry struct rds_ib_connect_private (28 bytes), IPv6 ones
 * struct rds6_ib_connect_private (52 bytes), as the kernel's
 * rds_ib_cm_fill_conn_param by the connection's family; which one a
 * request carries, the listener it came to says (rds_rdma_listen_init:
 * the IPv4 listener takes IPv4 requests only, the IPv6 one IPv6 only). */
struct rds_ib_conn_priv_cmn {
	uint8_t ricpc_protocol_major;
	uint8_t ricpc_protocol_minor;
	rte_be16_t ricpc_protocol_minor_mask;
	uint8_t ricpc_dp_toss;
	uint8_t ripc_reserved1;
	rte_be16_t ripc_reserved2;
	rte_be64_t ricpc_ack_seq;
	rte_be32_t ricpc_credit;
} __rte_packed;

struct rds_ib_connect_private {
	rte_be32_t dp_saddr;
	rte_be32_t dp_daddr;
	struct rds_ib_conn_priv_cmn dp_cmn;
} __rte_packed;

struct rds6_ib_connect_private {
	uint8_t dp_saddr[16];		/* struct in6_addr */
	uint8_t dp_daddr[16];
	struct rds_ib_conn_priv_cmn dp_cmn;
} __rte_packed;

union rds_ib_conn_priv {
	struct rds_ib_connect_private v4;
	struct rds6_ib_connect_private v6;
};

_Static_assert(sizeof(struct rds_ib_connect_private) == 28, "the kernel's");
_Static_assert(sizeof(struct rds6_ib_connect_private) == 52, "the kernel's");

/* The common part of either, by family. */
static inline const struct rds_ib_conn_priv_cmn *
rds_ib_priv_cmn(const union rds_ib_conn_priv *p, bool v6)
{
	return v6 ? &p->v6.dp_cmn : &p->v4.dp_cmn;
}

static inline uint8_t
rds_ib_priv_len(bool v6)
{
	return v6 ? sizeof(struct rds6_ib_connect_private) :
		    sizeof(struct rds_ib_connect_private);
}

enum rds_ib_cstate {
	RDS_IB_IDLE = 0,
	RDS_IB_RESOLVING_ADDR,
	RDS_IB_RESOLVING_ROUTE,
	RDS_IB_CONNECTING,
	RDS_IB_ESTABLISHED,
};

#define RDS_IB_MAX_DEVS 8

struct rds_ib_dev {
	struct ibv_context *verbs;
	unsigned int idx;		/* in rds_ib_devs[] */
	struct ibv_pd *pd;
	uint32_t max_inline;
	uint8_t max_rd_atom;		/* responder resources we offer */
	uint8_t max_init_rd_atom;	/* initiator depth we ask for */
	uint32_t max_srq_wr;		/* 0: no shared receive queues */
	uint32_t max_cqe;
	bool srq_warned;		/* said it has no SRQ */
	/* Its async events' reader (rds_ib_async.c). */
	pthread_t async_tid;
	int async_stop_fd;		/* eventfd: the reader ends */
	bool async_running;
};

/* An ib address's options (rte_rds_ib.h lists the keys). */
struct rds_ib_opts {
	uint16_t cm_port;		/* RDMA-CM port: listen, connect to */
	bool cm_port_given;		/* else the family's: 18634 for IPv4,
					 * 16385 for IPv6 (RDS_CM_PORT) */
	uint32_t send_wr;		/* send ring per connection */
	uint32_t recv_wr;		/* receive ring per connection (srq=0) */
	bool flow_control;		/* advertise credits (srq=0) */
	uint32_t stall_ms;		/* no-progress bound, 0: off */
	bool zerocopy;			/* send fragments in place */
	uint32_t zc_min;		/* from this many bytes a fragment */
	bool srq;			/* receive from the engine's SRQ */
	uint32_t srq_min;		/* receives it keeps posted, at least */
	uint32_t srq_max;		/* and at most */
	uint16_t proto;			/* version we propose: 3.1, 4.1 */
};

#define RDS_IB_DEF_CM_PORT 18634
/* Half the kernel's 256, less one. What an idle connection costs is
 * mostly its send queue, on the device (rxe: 512 bytes a work request
 * with 128 bytes inline) and here (a work request and a 128-byte slot
 * each); 127 frames of 4 KiB in flight a connection. A device rounds a
 * ring of N work requests up to the power of two above N (rxe keeps one
 * slot empty), so 2^k - 1, not 2^k. */
#define RDS_IB_DEF_SEND_WR 127
#define RDS_IB_DEF_CM_PORT6 16385	/* rdma_transport.h RDS_CM_PORT */
#define RDS_IB_DEF_RECV_WR 1024
#define RDS_IB_DEF_SRQ_MIN 1024		/* the kernel's ring of a connection */
#define RDS_IB_DEF_SRQ_MAX 8192
#define RDS_IB_DEF_STALL_MS 5000
#define RDS_IB_MIN_WR 16		/* ring sizes, either ring */
#define RDS_IB_MAX_WR 32768
#define RDS_IB_MAX_STALL_MS 3600000
#define RDS_IB_DEF_ZC_MIN 1024

struct rds_ib_conn {
	TAILQ_ENTRY(rds_ib_conn) link;	/* engine's list of live QPs */
	bool on_list;
	struct rds_conn *c;
	const struct rds_ib_laddr *la;	/* its local address: options */
	struct rdma_cm_id *cm_id;
	enum rds_ib_cstate cstate;
	bool passive;
	uint16_t version;

	struct rds_ib_dev *dev;
	struct ibv_cq *scq;
	struct ibv_cq *rcq;
	struct ibv_qp *qp;
	uint32_t max_inline;
	uint32_t max_send_sge;		/* what the QP got */

	/* Send ring: slot i holds a header and what of the data fits
	 * inline (RDS_IB_TX_SLOT bytes), and its work request (swr[i]).
	 * Work requests queued in an engine pass form a chain posted once at
	 * the end of it (rds_ib_flush). */
	uint8_t *sbuf;
	struct ibv_mr *smr;
	uint32_t nsend;
	struct rds_ib_edev *ed;		/* the engine's pools on the device */
	bool srq;			/* receives from ed's SRQ */
	uint32_t qp_num;		/* its QP's number, while in the lookup */
	bool in_lookup;
	struct rds_ib_send_wr *swr;
	struct ibv_send_wr *tx_chain;	/* queued, not yet posted */
	struct ibv_send_wr *tx_chain_last;
	uint32_t tx_chain_nb;
	TAILQ_ENTRY(rds_ib_conn) flush_link;	/* engine's list to post */
	bool on_flush;
	/* ACKs (the kernel's rds_ib_attempt_ack): a standalone one waits a
	 * little for a DATA frame to carry it, and goes only when the last
	 * one completed. */
	bool ack_waiting;		/* a standalone ACK was asked for */
	uint64_t ack_wait_pass;		/* in this engine pass */
	uint64_t ack_wait_tsc;		/* at this time */
	uint64_t ack_wr;		/* wr_id of the last standalone ACK */
	uint64_t s_head;		/* slots posted */
	uint64_t s_tail;		/* slots completed */
	uint64_t s_sig;			/* wr_id of the last signalled SEND */
	uint32_t s_unsignaled;
	bool tx_blocked;		/* the last xmit found no room (ring or
					 * credits) */
	struct rds_msg *tx_msg;		/* message being fragmented */
	uint32_t tx_off;		/* next byte of it to send */
	/* Zero-copy (rds_ib_zc.c): the registration of tx_msg's buffer
	 * (NULL: copy it), that buffer, and per slot the buffer a posted
	 * frame reads, with a reference (NULL: copied). */
	struct ibv_mr *tx_zc_mr;
	struct rds_msg *tx_zc_buf;
	struct rds_msg **tx_zc;
	uint32_t tx_zc_out;		/* non-NULL entries of tx_zc */
	/* Per slot, the copy buffer of the engine's pool its data went
	 * from, plus one (0: none), until the slot's completion. */
	uint32_t *tx_cp;
	uint32_t tx_cp_out;		/* non-zero entries of tx_cp */
	struct rds_buf_region *tx_zc_slab;	/* the last slab sent from */
	bool tx_fence;			/* fence its next SEND */
	bool tx_fence_next;		/* fence the next message's first
					 * SEND (rds_ib_xmit_op: a READ or
					 * atomic must land first) */
	struct rds_rdma_op **op_slots;	/* send slot -> operation in flight */
	/* RDMA operations in flight, each with a registered bounce buffer
	 * of the engine's pool for its local side (so that no operation
	 * registers memory on the data path). */
	uint32_t bounce_out;

	/* Credit flow control (net/rds/ib_send.c), when both ends advertise. */
	bool flowctl;
	uint32_t credits;		/* SENDs the peer can take */
	uint32_t posted_adv;		/* receives posted, not yet advertised */

	/* Receive ring (srq=0): slot i is buffer i and its prepared work
	 * request. */
	uint8_t *rbuf;
	struct ibv_mr *rmr;
	uint32_t nrecv;
	struct rds_ib_recv_wr *rwr;
	struct ibv_recv_wr *rx_pend;	/* consumed, to post again: a chain */
	struct ibv_recv_wr **rx_pend_tail;
	uint32_t rx_pend_nb;
	uint32_t rx_batch;		/* post when rx_pend_nb reaches this */

	/* Progress watch (rds_ib_watch): the clock runs while work waits
	 * on the QP or for room in it. */
	uint64_t progress_tsc;		/* last progress, or start of waiting */
	bool rx_frozen;			/* test hook: receives not reposted */
	uint64_t connect_tsc;		/* this connection attempt began */

	/* Reassembly of a multi-fragment message. */
	struct rds_msg *rx_msg;
	struct rds_header rx_hdr;
	struct rds_hdr_info rx_info;
	uint32_t rx_off;
};

struct rds_ib_recv_wr {
	struct ibv_recv_wr wr;
	struct ibv_sge sge[2];
};

struct rds_ib_send_wr {
	struct ibv_send_wr wr;
	struct ibv_sge sge[2];
};

/*
 * A pool of registered buffers of one size (rds_ib_pool.c): slabs of
 * per_slab buffers, each slab one allocation and one registration on the
 * device, added when the pool runs out, up to max buffers; the free ones
 * on a stack. Buffer i is buffer i % per_slab of slab i / per_slab.
 * Owned by one engine: no lock.
 */
struct rds_ib_slab {
	uint8_t *base;
	struct ibv_mr *mr;
};

struct rds_ib_pool {
	const char *name;
	struct rds_ib_dev *dev;
	uint64_t *bytes;		/* the engine's gauge of this memory */
	uint32_t size;			/* bytes a buffer */
	uint32_t per_slab;
	uint32_t max;			/* buffers at most */
	uint32_t nb;			/* buffers allocated */
	uint32_t nb_free;
	uint32_t *free;			/* max entries */
	struct rds_ib_slab *slabs;	/* max / per_slab (rounded up) */
};

/* A receive buffer of a shared receive queue. */
enum {
	RDS_IB_RX_FREE = 0,		/* in the pool */
	RDS_IB_RX_POSTED,		/* posted, not completed */
	RDS_IB_RX_ORPHAN,		/* given up on: taken by a SEND that
					 * never completed (rds_ib_srq_age) */
};

/* A receive completion kept for later (rds_ib_srq_detach). */
struct rds_ib_rx_wc {
	uint64_t wr_id;
	uint32_t qp_num;
	uint32_t byte_len;
	enum ibv_wc_status status;
};

/*
 * What an engine holds on a device (rds_ib_srq.c): its pools of send
 * copies and bounce buffers, and for the connections with srq=1 its
 * shared receive queue, the receive CQ of all their QPs and the pool of
 * receive buffers. Made with the engine's first QP on the device,
 * released with its last one.
 */
struct rds_ib_edev {
	struct rds_ib_dev *dev;
	struct rds_ib_engine *ie;
	uint32_t users;			/* QPs of the engine on the device */
	struct rds_ib_pool tx;		/* send copies */
	struct rds_ib_pool bounce;	/* RDMA bounce buffers */
	/* The shared receive queue. */
	struct ibv_srq *srq;
	struct ibv_cq *rcq;
	struct rds_ib_pool rx;		/* receive buffers */
	uint32_t srq_users;		/* QPs on the SRQ */
	uint32_t rx_min, rx_max;	/* receives posted: bounds */
	uint32_t rx_bufs;		/* buffers at most (rx_max and those
					 * of receives given up on) */
	uint32_t rx_target;		/* receives to keep posted */
	uint32_t rx_posted;		/* receives posted, as we count them */
	uint32_t rcq_size;		/* completions the CQ holds */
	uint32_t limit;			/* SRQ limit armed (0: none,
					 * UINT32_MAX: the device refused) */
	/* The receives in the order they were posted (rds_ib_srq_age):
	 * buffer indices in a ring of rx_ring_cap, and per buffer the
	 * number of its post and its state (RDS_IB_RX_*). */
	uint32_t *rx_ring;
	uint32_t rx_ring_cap;
	uint64_t rx_head, rx_tail;	/* numbers of posts */
	uint64_t *rx_seq;
	uint8_t *rx_state;
	uint32_t rx_orphans;		/* given up on, memory kept */
	uint32_t torn_since_wc;		/* QPs torn down since the last
					 * receive completion */
	uint64_t last_wc_tsc;		/* the last receive completion */
	bool limit_hit;			/* atomic: the device's limit event */
	bool frozen;			/* test hook: no refills */
	bool polling;			/* in rds_ib_srq_poll: keep it */
	/* Completions taken from the CQ by a QP's tear-down, for the
	 * other QPs, in order; processed first at the next poll. */
	struct rds_ib_rx_wc *backlog;
	uint32_t backlog_nb, backlog_head, backlog_cap;
	/* The QP of the last completion and its connection. */
	uint32_t last_qpn;
	struct rds_ib_conn *last_ic;
};

struct rds_ib_engine {
	struct rds_engine *e;
	struct rdma_event_channel *ch;
	struct rte_ring *handoff;	/* connect requests from engine 0 */
	TAILQ_HEAD(, rds_ib_conn) conns;
	TAILQ_HEAD(, rds_ib_conn) flush;	/* with work requests queued */
	struct rds_ib_edev *edev[RDS_IB_MAX_DEVS];
	struct rte_hash *qpn;		/* QP number -> connection (SRQ) */
	uint32_t inject_seen;
	uint32_t rx_stall_seen;
	uint64_t cm_next_tsc;		/* next CM look (0: every pass) */
	struct rte_rds_ib_stats stats;
};

/* rdma_get_cm_event() is a system call even when nothing is there: while
 * every connection is established, the channel is read once in this many
 * microseconds (it was one pass in 256: thousands of system calls a
 * second in a busy-polling engine). */
#define RDS_IB_CM_POLL_US 1000

/* A connect request handed from the listener's engine to the owner. */
struct rds_ib_handoff {
	struct rdma_cm_id *id;
	struct rdma_conn_param param;
	union rds_ib_conn_priv priv;
	uint8_t priv_len;
	bool v6;			/* to an IPv6 address's listener */
};

/* Per local ib address (rds_laddr.tp). */
struct rds_ib_laddr {
	struct rds_ib_dev *dev;		/* its device: regions register there */
	struct rdma_cm_id *listen;	/* its RDMA-CM listener */
	struct rds_ib_opts opts;	/* its options */
	uint64_t stall_tsc;		/* opts.stall_ms in TSC cycles, 0: off */
	uint64_t connect_tsc;		/* bound on a connection attempt */
};

static inline struct rds_ib_laddr *
rds_ib_laddr(const struct rds_laddr *la)
{
	return la->tp;
}

/* rds_ib.c */
extern unsigned int rds_ib_slot;
extern const struct rds_transport rds_ib_transport;
/* The local address whose listener id is, or NULL. */
struct rds_laddr *rds_ib_listener(const struct rdma_cm_id *id);
const char *rds_ib_addr_str(const struct in6_addr *a, char *buf,
			    size_t len);
void rds_ib_unlisten(void);
/* Called several times a pass: inline. */
static inline struct rds_ib_engine *
rds_ib_engine(struct rds_engine *e)
{
	return e->tp[rds_ib_slot];
}
struct rds_ib_dev *rds_ib_dev_get(struct ibv_context *verbs);

/* rds_ib_opts.c */
/* Parse an ib address's options ("key=value,...", devargs style; NULL or
 * "" for the defaults) into o. 0, or -EINVAL (unknown key, bad value;
 * logged). */
int rds_ib_opts_parse(const char *args, struct rds_ib_opts *o);

/* rds_ib_info.c */
void rds_ib_info(struct rds_engine *e, struct rds_info_req *r);
#define RDS_IB_NB_XSTATS (sizeof(struct rte_rds_ib_stats) / sizeof(uint64_t))
extern const char *const rds_ib_xstat_names[];
void rds_ib_xstats(struct rds_engine *e, uint64_t *values);

/* rds_ib_cm.c */
int rds_ib_conn_connect(struct rds_conn *c);
void rds_ib_conn_shutdown(struct rds_conn *c);
void rds_ib_cm_event(struct rds_engine *e, struct rdma_cm_event *ev);
void rds_ib_accept(struct rds_engine *e, struct rds_ib_handoff *h);
int rds_ib_listen(struct rds_engine *e);

/* rds_ib_rdma.c */
int rds_ib_mr_reg(const struct rds_laddr *la, struct rds_mr *mr);
void rds_ib_mr_free(struct rds_mr *mr);
void rds_ib_mr_cache_flush(void);
int rds_ib_post_op(struct rds_ib_conn *ic, struct rds_rdma_op *op);
void rds_ib_op_complete(struct rds_ib_conn *ic, struct rds_rdma_op *op,
			enum ibv_wc_status st);
void rds_ib_ops_release(struct rds_ib_conn *ic);

/* rds_ib_send.c */
int rds_ib_send_setup(struct rds_ib_conn *ic);
void rds_ib_send_free(struct rds_ib_conn *ic);
void rds_ib_send_post_chain(struct rds_ib_conn *ic);
void rds_ib_flush(struct rds_engine *e);
int rds_ib_xmit(struct rds_conn *c, struct rds_msg *m);
int rds_ib_xmit_op(struct rds_conn *c, struct rds_msg *m);
int rds_ib_xmit_ack(struct rds_conn *c);
unsigned int rds_ib_poll_send(struct rds_ib_conn *ic);

/* rds_ib_zc.c */
void rds_ib_zc_init(void);
void rds_ib_zc_fini(void);
/* The registration on ic's device of the buffer m's payload is in, and
 * that buffer in *bufp; NULL: copy (no region, registration failed). */
struct ibv_mr *rds_ib_zc_mr(struct rds_ib_conn *ic, struct rds_msg *m,
			    struct rds_msg **bufp);
/* Slots [s_tail, upto) are done: the buffers their frames held (sent in
 * place, or copies) go. */
void rds_ib_zc_done(struct rds_ib_conn *ic, uint64_t upto);
void rds_ib_zc_drop_all(struct rds_ib_conn *ic);

/* rds_ib_recv.c */
int rds_ib_recv_setup(struct rds_ib_conn *ic);
void rds_ib_recv_free(struct rds_ib_conn *ic);
int rds_ib_recv_post_all(struct rds_ib_conn *ic);
unsigned int rds_ib_poll_recv(struct rds_ib_conn *ic);
void rds_ib_recv_reset(struct rds_ib_conn *ic);
/* One receive completion of ic: its buffer (header and data), whatever
 * its status. */
void rds_ib_recv_one(struct rds_ib_conn *ic, enum ibv_wc_status status,
		     const uint8_t *slot, uint32_t byte_len);

/* rds_ib_pool.c */
void rds_ib_pool_init(struct rds_ib_pool *p, const char *name,
		      struct rds_ib_dev *dev, uint64_t *bytes, uint32_t size,
		      uint32_t per_slab, uint32_t max);
/* A free buffer's index into *idx: 0, -ENOBUFS (max reached) or -ENOMEM
 * (no memory, or the registration failed; logged). */
int rds_ib_pool_get(struct rds_ib_pool *p, uint32_t *idx);
/* At least n buffers free (the pool grown if it must): 0, or as
 * rds_ib_pool_get. */
int rds_ib_pool_reserve(struct rds_ib_pool *p, uint32_t n);
static inline void
rds_ib_pool_put(struct rds_ib_pool *p, uint32_t idx)
{
	p->free[p->nb_free++] = idx;
}
static inline uint8_t *
rds_ib_pool_buf(const struct rds_ib_pool *p, uint32_t idx)
{
	return p->slabs[idx / p->per_slab].base +
	       (size_t)(idx % p->per_slab) * p->size;
}
static inline uint32_t
rds_ib_pool_lkey(const struct rds_ib_pool *p, uint32_t idx)
{
	return p->slabs[idx / p->per_slab].mr->lkey;
}
/* Deregister and free every slab (no buffer may be in use). */
void rds_ib_pool_fini(struct rds_ib_pool *p);

/* rds_ib_srq.c */
/* The engine's state on ic's device, made on first use; ic holds it
 * (and, with srq, is on the SRQ) until rds_ib_edev_put. 0 or -errno. */
int rds_ib_edev_get(struct rds_ib_conn *ic);
void rds_ib_edev_put(struct rds_ib_conn *ic);
void rds_ib_edev_fini(struct rds_ib_engine *ie);
/* ic's QP exists: its number goes into the lookup. 0 or -errno. */
int rds_ib_srq_attach(struct rds_ib_conn *ic);
/* ic's QP was destroyed: its completions still in the CQ are taken out
 * (their buffers back), the others kept in order, and it leaves the
 * lookup. */
void rds_ib_srq_detach(struct rds_ib_conn *ic);
unsigned int rds_ib_srq_poll(struct rds_ib_engine *ie);

/* rds_ib_async.c */
/* A control thread that reads and acknowledges d's async events. 0, or
 * -errno (logged). */
int rds_ib_async_start(struct rds_ib_dev *d);
void rds_ib_async_stop(struct rds_ib_dev *d);
/* Test hook: the SRQs are refilled no more until a QP on them resets. */
void rds_ib_srq_freeze(struct rds_ib_engine *ie);

#endif /* RDS_IB_H */

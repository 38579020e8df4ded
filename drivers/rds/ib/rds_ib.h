/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RDS_IB_H
#define RDS_IB_H

/*
 * The ib transport's internals (net/rds/ib*.c): one RC QP per connection
 * with its own send and receive CQs, all owned and busy-polled by the
 * connection's engine; RDMA-CM events read from a non-blocking event
 * channel per engine; the listener lives on engine 0 and hands connect
 * requests to the engine that owns the connection. Settings are options
 * of each local address (rte_rds_ib.h), parsed into struct rds_ib_opts
 * (rds_ib_opts.c); a connection takes those of its local address.
 */

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
#define RDS_IB_SIGNAL_EVERY 16
#define RDS_IB_BOUNCE_NB 4		/* RDMA operations in flight a conn */
#define RDS_IB_BOUNCE_SIZE RDS_MAX_MSG_SIZE
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
};

/* An ib address's options (rte_rds_ib.h lists the keys). */
struct rds_ib_opts {
	uint16_t cm_port;		/* RDMA-CM port: listen, connect to */
	bool cm_port_given;		/* else the family's: 18634 for IPv4,
					 * 16385 for IPv6 (RDS_CM_PORT) */
	uint32_t send_wr;		/* send ring per connection */
	uint32_t recv_wr;		/* receive ring per connection */
	bool flow_control;		/* advertise credits */
	uint32_t stall_ms;		/* no-progress bound, 0: off */
	bool zerocopy;			/* send fragments in place */
	uint32_t zc_min;		/* from this many bytes a fragment */
};

#define RDS_IB_DEF_CM_PORT 18634
#define RDS_IB_DEF_CM_PORT6 16385	/* rdma_transport.h RDS_CM_PORT */
#define RDS_IB_DEF_SEND_WR 256
#define RDS_IB_DEF_RECV_WR 1024
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

	/* Send ring: slot i holds a header and one fragment, and its work
	 * request (swr[i]). Work requests queued in an engine pass form a
	 * chain posted once at the end of it (rds_ib_flush). */
	uint8_t *sbuf;
	struct ibv_mr *smr;
	uint32_t nsend;
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
	struct rds_buf_region *tx_zc_slab;	/* the last slab sent from */
	bool tx_fence;			/* fence its next SEND */
	bool tx_fence_next;		/* fence the next message's first
					 * SEND (rds_ib_xmit_op: a READ or
					 * atomic must land first) */
	struct rds_rdma_op **op_slots;	/* send slot -> operation in flight */
	/* Registered bounce buffers for the local side of RDMA operations,
	 * so that no operation registers memory on the data path. */
	uint8_t *bounce;
	struct ibv_mr *bounce_mr;
	uint32_t bounce_free;		/* bitmask of free buffers */

	/* Credit flow control (net/rds/ib_send.c), when both ends advertise. */
	bool flowctl;
	uint32_t credits;		/* SENDs the peer can take */
	uint32_t posted_adv;		/* receives posted, not yet advertised */

	/* Receive ring: slot i is buffer i and its prepared work request. */
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

struct rds_ib_engine {
	struct rdma_event_channel *ch;
	struct rte_ring *handoff;	/* connect requests from engine 0 */
	TAILQ_HEAD(, rds_ib_conn) conns;
	TAILQ_HEAD(, rds_ib_conn) flush;	/* with work requests queued */
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
/* The socket name of address a (AF_INET for v4-mapped, else AF_INET6
 * with scope if link-local) and port; its length. */
socklen_t rds_ib_sockaddr(const struct in6_addr *a, uint16_t port,
			  uint32_t scope, struct sockaddr_storage *ss);
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
int rds_ib_bounce_setup(struct rds_ib_conn *ic);
void rds_ib_bounce_free(struct rds_ib_conn *ic);

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
void rds_ib_zc_done(struct rds_ib_conn *ic, uint64_t upto);
void rds_ib_zc_drop_all(struct rds_ib_conn *ic);

/* rds_ib_recv.c */
int rds_ib_recv_setup(struct rds_ib_conn *ic);
void rds_ib_recv_free(struct rds_ib_conn *ic);
int rds_ib_recv_post_all(struct rds_ib_conn *ic);
unsigned int rds_ib_poll_recv(struct rds_ib_conn *ic);
void rds_ib_recv_reset(struct rds_ib_conn *ic);

#endif /* RDS_IB_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a transport driver (drivers/rds/<name>) sees of the core: the ops
 * table it fills (struct rds_transport), its flags and registry, and the
 * calls it may make. A driver includes this header only.
 *
 * The rule: a driver reads the core's structures (struct rds_conn's key,
 * state, engine and queues; struct rds_engine's id, now and tp[]; a
 * message's payload, length and operation) but writes nothing of them
 * except the tp pointers that are its own; every change of core state
 * goes through a call below, so that the core keeps what follows from it
 * (the ready list, counters, the kernel's rules). The engine's halves of
 * sending and receiving, which these calls reach, are rds_xmit.c and
 * rds_deliver.c.
 *
 * It brings in rds_private.h for the types; rds_private.h in turn
 * includes this header last, so that the core sees the same table.
 */
#ifndef RDS_DRIVER_H
#define RDS_DRIVER_H

#include "rds_private.h"

/* ------------------------------------------------------------------ */
/* Transports: an ops table per driver. The core calls every op from the
 * engine that owns the connection. */

#define RDS_TRANS_F_LOOPBACK 0x1	/* delivers within this instance: no
					 * congestion map on the wire */
#define RDS_TRANS_F_RDMA 0x2		/* RDMA and atomics (hardware, or the
					 * software executor) */
#define RDS_TRANS_F_MASKED_ATOMICS 0x4	/* masked atomics too */
/* The transport acknowledges messages itself, as the kernel's rds_tcp
 * (rds_tcp_is_acked: a message counts as acknowledged once TCP has its
 * last byte): it calls rds_send_drop_acked(c, seq) once the peer's
 * transport took every frame of the messages up to seq, and took them
 * only as the peer's core accepted them. On its connections the core
 * sends no ACK-only frames (xmit_ack is never called and may be NULL),
 * arms no delayed ACK, ignores the ACK field of what it receives and
 * writes 0 there; ACK_REQUIRED asks the transport, not the peer's core,
 * for a prompt acknowledgement (the core no longer sets it every
 * max_unacked_packets messages: the transport's own acknowledgements
 * bound what is outstanding). One acknowledgement stream per
 * connection. */
#define RDS_TRANS_F_ACKS 0x8
/* Serves IPv6 local addresses (a transport without it has an IPv6
 * address refused at rte_rds_init(), EAFNOSUPPORT). */
#define RDS_TRANS_F_IPV6 0x10
/* The wire is our own, not the kernel's: congestion maps go as sparse
 * updates (rds_addr.h, RDS_CONG_DELTA_*): a connection's first map lists
 * the non-zero words only, and each later one the words changed since
 * the last it sent; the 8 KiB map when that is not shorter. The kernel's
 * transports (ib, tcp) keep the whole map every time. */
#define RDS_TRANS_F_MAP_DELTA 0x20

struct rds_transport {
	const char *name;
	const char *info_name;		/* RDS_INFO_CONNECTIONS: the kernel's
					 * name ("infiniband", "loopback") */
	uint32_t trans_id;		/* SO_RDS_TRANSPORT value */
	uint32_t flags;			/* RDS_TRANS_F_* */
	/* Library set-up and tear-down (optional). 0 or -errno. */
	int (*init)(const struct rte_rds_conf *conf);
	void (*fini)(void);
	/* Can this transport serve local address la? 0 or -errno. It may
	 * set la->tp and, for a link-local IPv6 address it uses on one
	 * interface, la->ifindex (binds with another scope then fail). */
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
	 * instance, rds_msg_hdr_info()) and, once a frame is queued, saying
	 * that its ACK went (rds_conn_ack_sent() with the value the header
	 * carries; not with RDS_TRANS_F_ACKS). Returns 0 when the message is on
	 * its way (kept until acknowledged), RDS_XMIT_ACKED when it was
	 * delivered within the process and counts as acknowledged (the
	 * kernel's loop transport), RDS_XMIT_TAKEN when rds_recv_take()
	 * took it, -EAGAIN when there is no room now (the core retries
	 * later), another -errno to fail the connection. */
	int (*xmit)(struct rds_conn *c, struct rds_msg *m);
	/* Run the RDMA or atomic operation of m (m->op; RDS_TRANS_F_RDMA
	 * transports), which goes before its message. The core calls it
	 * until it returns 0 or RDS_XMIT_OP_POSTED, and never again for
	 * that operation (a message sent again after a reset does not run
	 * it twice); then it applies rds-rdma(7)'s rule itself
	 * (rds_send_xmit_op): a failed operation takes its message with it,
	 * a silent one on an empty message sends no message, a message
	 * that goes is followed by the operation's notification. Returns 0
	 * when the operation has its result, recorded with
	 * rds_rdma_sw_exec(), rds_rdma_initiator_done(),
	 * rds_rdma_op_not_run() or rds_rdma_op_fail() (loop's executor;
	 * eth's answer); RDS_XMIT_OP_POSTED when it is in flight and its
	 * result comes later, reported with rds_rdma_op_completed() (ib:
	 * its work request goes before the SEND, in order; loop: flushed
	 * behind a lost frame, its result the reset's); -EAGAIN to be
	 * called again (no room; eth: waiting for the answer); another
	 * -errno to fail the connection. It builds no header of m. */
	int (*xmit_op)(struct rds_conn *c, struct rds_msg *m);
	/* Send an ACK-only frame with the header from rds_ack_hdr(), and
	 * rds_conn_ack_sent() once it is queued.
	 * 0, -EAGAIN or -errno as xmit. Never called on a transport with
	 * RDS_TRANS_F_ACKS (may be NULL there). */
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
/* xmit's message was taken by rds_recv_take(): off the send queue,
 * acknowledged, now the receiver's (the core does not touch it again). */
#define RDS_XMIT_TAKEN 2
/* xmit_op: the operation is in flight, its result comes later. */
#define RDS_XMIT_OP_POSTED 3

/* rds_transport.c */
void rds_transport_register(const struct rds_transport *t);
const struct rds_transport *rds_transport_by_name(const char *name);
const struct rds_transport *rds_transport_by_id(uint32_t id);
unsigned int rds_transport_count(void);
const struct rds_transport *rds_transport_at(unsigned int i);
/* An address's options (devargs style) against the keys its transport
 * takes (NULL-terminated; "dev" is every transport's): 0, or -EINVAL
 * with an error logged that names the first key not among them (or the
 * options, when they do not parse). */
int rds_transport_args_check(const char *trans, const char *args,
			     const char *const keys[]);

#define RDS_TRANSPORT_REGISTER(t) \
	RTE_INIT(rds_transport_register_ ## t) \
	{ \
		rds_transport_register(&(t)); \
	}

/* ------------------------------------------------------------------ */
/* Calls a driver makes. Every one runs on the engine that owns the
 * connection (or, for the engine calls, on engine e). */

/* Connections (rds_conn.c). */
/* The transport connection is up (possibly from inside conn_connect). */
void rds_conn_connect_complete(struct rds_conn *c);
/* The transport accepted a connect of the peer (the passive side): c is
 * connecting, and no active attempt of ours starts meanwhile. */
void rds_conn_accepting(struct rds_conn *c);
/* The peer asks for a connection now (rds_tcp: the higher address
 * connects so that the lower one connects back): a DOWN connection
 * waiting out its reconnect backoff connects at the engine's next run
 * of it, as the kernel's rds_conn_path_connect_if_down. Nothing in any
 * other state. */
void rds_conn_connect_now(struct rds_conn *c);
/* The transport's peer stopped answering, or answers again: a report
 * (info, telemetry), nothing is dropped for it. */
void rds_conn_set_unresponsive(struct rds_conn *c, bool on);
/* An ACK-only frame should go out at the connection's next run (ib: the
 * credits it would carry). */
void rds_conn_ack_request(struct rds_conn *c);

/* Anything for the connection to send when the transport has room again:
 * messages, an ACK asked for or due, the congestion map. The transport
 * that held back puts it on the ready list with rds_conn_ready() when
 * this is true. */
static inline bool
rds_conn_has_work(const struct rds_conn *c)
{
	return (!TAILQ_EMPTY(&c->send_q) && !c->xmit_blocked) ||
	       c->ack_requested || c->map_queued ||
	       (c->ack_due && c->ack_next > c->ack_sent);
}

/* A transport whose window is full, with frames in flight that an ACK
 * or a retransmit timer will answer: its send queue waits off the
 * ready list (not tried every pass) until rds_conn_xmit_unblock. Only
 * for a window that an event of the transport reopens: a lack of
 * buffers or descriptors has none, and stays polled. */
static inline void
rds_conn_xmit_block(struct rds_conn *c)
{
	c->xmit_blocked = true;
}

/* The window reopened: c's send queue is work again. */
static inline void
rds_conn_xmit_unblock(struct rds_conn *c)
{
	c->xmit_blocked = false;
	if (rds_conn_has_work(c))
		rds_conn_ready(c);
}

/* Receiving (rds_deliver.c): a frame the transport could not use, before
 * it reached rds_recv_*(): a header that does not decode, a length that
 * does not fit; or no memory to reassemble it. Counted; the caller
 * decides what becomes of the connection. */
void rds_recv_bad_frame(struct rds_conn *c, const char *why);
void rds_recv_no_memory(struct rds_conn *c);

/* Delivery within the process of a message that counts as acknowledged
 * once delivered (rds_deliver.c): c's message m, the head of its send
 * queue, becomes the received message of c's other end, peer, without a
 * copy or a header. RDS_XMIT_TAKEN, which xmit returns, when it was
 * taken; 0 when m is not of the common case this serves (the transport
 * then goes the general way, rds_msg_hdr_info() and rds_recv_hdr()). */
int rds_recv_take(struct rds_conn *c, struct rds_conn *peer,
		  struct rds_msg *m);

/* RDMA operations (rds_rdma_exec.c). A transport that keeps op beyond
 * its xmit call holds a reference, dropped with rds_rdma_op_free(). */
static inline void
rds_rdma_op_hold(struct rds_rdma_op *op)
{
	op->refs++;
}
/* The target answered that it did not run it: it ends DROPPED. */
static inline void
rds_rdma_op_not_run(struct rds_rdma_op *op)
{
	op->status = RDS_RDMA_DROPPED;
}
/* It failed before it could run, or it may have run but its answer will
 * never come (status: RDS_RDMA_REMOTE_ERROR, RDS_RDMA_OTHER_ERROR, ...);
 * xmit_op then returns 0, and the core drops its message. */
static inline void
rds_rdma_op_fail(struct rds_rdma_op *op, int status)
{
	op->status = status;
}
/* The result of an operation xmit_op left in flight (RDS_XMIT_OP_POSTED),
 * from the engine of its connection: RDS_RDMA_SUCCESS when it ran at the
 * target (its work request completed: a reset then resends its message
 * alone, without the operation), another status when it failed;
 * reported at once (rds_rdma_exec.c). One flushed by a reset is not
 * reported: the reset ends it DROPPED. */
void rds_rdma_op_completed(struct rds_engine *e, struct rds_rdma_op *op,
			   int status);

/* The rest a driver calls is declared with its concern: frame headers
 * and acknowledgements (rds_msg_hdr, rds_ack_hdr, rds_conn_ack_sent,
 * rds_send_drop_acked),
 * received frames (rds_recv_frame, rds_recv_frame_msg, rds_recv_hdr),
 * connection errors (rds_conn_error, rds_conn_drop, rds_conn_get), the
 * engine (rds_engine_poll_transport, timers), RDMA
 * (the software executor, rds_rdma_initiator_done) and buffers
 * (rds_msg_alloc, rds_msg_free). */

#endif /* RDS_DRIVER_H */

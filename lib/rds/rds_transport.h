/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transports: the ops table a driver fills (struct rds_transport), its
 * flags and the registry (rds_transport.c). Part of rds_private.h, which
 * includes it after rds_rdma.h: include that, not this.
 */
#ifndef RDS_TRANSPORT_H
#define RDS_TRANSPORT_H

#ifndef RDS_PRIVATE_H
#error "include rds_private.h, not rds_transport.h"
#endif

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

#endif /* RDS_TRANSPORT_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connection management (net/rds/ib_cm.c, rdma_transport.c): RDMA-CM on
 * port 18634 for IPv4 and 16385 for IPv6 (RDS_CM_PORT), CM private data
 * (28 bytes for IPv4, 52 for IPv6: the kernel's rds6_ib_connect_private)
 * with version negotiation and the ACK sequence exchange, QP set-up, the
 * kernel's connect-race rules, and tear-down. Every call here runs on the engine that owns the
 * connection, except the listener's hand-off of a connect request.
 */
#include <errno.h>
#include <stdlib.h>

#include "rds_ib.h"

/* An IPv6 connection (the kernel's c_isv6: not v4-mapped). */
static inline bool
rds_ib_conn_v6(const struct rds_conn *c)
{
	return !rds_addr_is_v4(&c->key.laddr);
}

/* The private data of c (rds_ib_cm_fill_conn_param: the IPv6 layout for
 * an IPv6 connection); its length. */
static uint8_t
rds_ib_fill_priv(union rds_ib_conn_priv *p, struct rds_conn *c,
		 uint16_t version)
{
	struct rds_ib_conn *ic = c->tp;
	bool v6 = rds_ib_conn_v6(c);
	struct rds_ib_conn_priv_cmn *cmn = v6 ? &p->v6.dp_cmn : &p->v4.dp_cmn;

	memset(p, 0, sizeof(*p));
	if (v6) {
		memcpy(p->v6.dp_saddr, &c->key.laddr, 16);
		memcpy(p->v6.dp_daddr, &c->key.faddr, 16);
	} else {
		p->v4.dp_saddr = rds_addr_v4(&c->key.laddr);
		p->v4.dp_daddr = rds_addr_v4(&c->key.faddr);
	}
	cmn->ricpc_protocol_major = version >> 8;
	cmn->ricpc_protocol_minor = version & 0xff;
	cmn->ricpc_protocol_minor_mask =
		rte_cpu_to_be_16(RDS_IB_SUPPORTED_PROTOCOLS);
	/* What we have received: the peer drops what it need not resend. */
	cmn->ricpc_ack_seq = rte_cpu_to_be_64(c->ack_next);
	/* Credits: the receives we posted, when flow control is configured
	 * (off by default, as the kernel's). It is used only when both ends
	 * advertise; otherwise RNR retries cover a full receive ring. Never
	 * from a shared receive queue: credits count a connection's own
	 * receives (the peer then keeps its credits off too). */
	if (ic->la->opts.flow_control && !ic->srq && ic->rbuf != NULL) {
		cmn->ricpc_credit = rte_cpu_to_be_32(ic->posted_adv);
		ic->posted_adv = 0;
	} else {
		cmn->ricpc_credit = 0;
	}
	return rds_ib_priv_len(v6);
}

static void
rds_ib_conn_param(struct rdma_conn_param *cp,
		  const union rds_ib_conn_priv *p, uint8_t len,
		  const struct rds_ib_dev *d)
{
	memset(cp, 0, sizeof(*cp));
	cp->private_data = p;
	cp->private_data_len = len;
	/* Outstanding READs and atomics, as the kernel: min(device, peer). */
	cp->responder_resources = d != NULL ? d->max_rd_atom : 1;
	cp->initiator_depth = d != NULL ? d->max_init_rd_atom : 1;
	cp->retry_count = 7;
	cp->rnr_retry_count = 7;	/* infinite, as the kernel */
}

/* Credits are used when the peer advertised some and so did we
 * (rds_ib_set_flow_control); a peer that advertises none here may still
 * give credits in its first headers (rds_ib_process). */
static void
rds_ib_set_flow_control(struct rds_ib_conn *ic, uint32_t peer_credits)
{
	struct rds_ib_engine *ie = rds_ib_engine(ic->c->eng);

	ic->flowctl = ic->la->opts.flow_control && !ic->srq &&
		      peer_credits != 0;
	ic->credits = ic->flowctl ? peer_credits : 0;
	if (ic->flowctl)
		ie->stats.flowctl_conns++;
}

/* Free the QP, CQs, rings and CM id; leaves the connection idle. */
static void
rds_ib_teardown(struct rds_ib_conn *ic)
{
	struct rds_engine *e = ic->c->eng;
	struct rds_ib_engine *ie = rds_ib_engine(e);

	if (ic->on_list) {
		TAILQ_REMOVE(&ie->conns, ic, link);
		ic->on_list = false;
	}
	if (ic->cm_id != NULL && ic->qp != NULL) {
		if (ic->srq) {
			/* In error first: a device flushes the receive of
			 * the SRQ it may hold for a SEND half received. */
			struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

			ibv_modify_qp(ic->qp, &a, IBV_QP_STATE);
		}
		rdma_destroy_qp(ic->cm_id);
		ic->qp = NULL;
	}
	if (ic->srq)
		rds_ib_srq_detach(ic);	/* its completions left in the CQ */
	if (ic->scq != NULL)
		ibv_destroy_cq(ic->scq);
	if (ic->rcq != NULL)
		ibv_destroy_cq(ic->rcq);
	ic->scq = NULL;
	ic->rcq = NULL;
	rds_ib_ops_release(ic);
	if (ic->op_slots != NULL)
		ie->stats.mem_wr_bytes -= sizeof(*ic->op_slots) * ic->nsend;
	rds_mem_free(ic->op_slots);
	ic->op_slots = NULL;
	rds_ib_recv_free(ic);
	rds_ib_send_free(ic);
	if (ic->smr != NULL)
		ibv_dereg_mr(ic->smr);
	if (ic->rmr != NULL)
		ibv_dereg_mr(ic->rmr);
	ic->smr = NULL;
	ic->rmr = NULL;
	if (ic->sbuf != NULL)
		ie->stats.mem_tx_bytes -= (uint64_t)ic->nsend * RDS_IB_TX_SLOT;
	if (ic->rbuf != NULL)
		ie->stats.mem_rx_bytes -= (uint64_t)ic->nrecv *
					  RDS_IB_SLOT_SIZE;
	free(ic->sbuf);
	free(ic->rbuf);
	ic->sbuf = NULL;
	ic->rbuf = NULL;
	rds_ib_edev_put(ic);
	if (ic->cm_id != NULL) {
		ic->cm_id->context = NULL;
		rdma_destroy_id(ic->cm_id);
		ic->cm_id = NULL;
	}
	rds_ib_recv_reset(ic);
	ic->tx_msg = NULL;
	ic->tx_off = 0;
	ic->tx_fence_next = false;
	ic->s_head = ic->s_tail = ic->s_sig = 0;
	ic->s_unsignaled = 0;
	ic->tx_blocked = false;
	ic->rx_frozen = false;
	ic->flowctl = false;
	ic->credits = 0;
	ic->posted_adv = 0;
	ic->cstate = RDS_IB_IDLE;
}

/*
 * CQs, QP, registered send slots, and receives: the engine's shared
 * receive queue on the device (srq=1), or a ring of the connection's own
 * with its CQ, pre-posted; on a resolved id. A CQ of N entries for a
 * ring of N work requests: a device that keeps one slot empty and rounds
 * up to a power of two (rxe) then takes no more than the ring's.
 */
static int
rds_ib_setup_qp(struct rds_ib_conn *ic, struct rdma_cm_id *id)
{
	struct rds_engine *e = ic->c->eng;
	struct rds_ib_engine *ie = rds_ib_engine(e);
	struct ibv_qp_init_attr qa;
	size_t ssz, rsz;
	int ret;

	ic->cm_id = id;
	id->context = ic;
	ic->dev = rds_ib_dev_get(id->verbs);
	if (ic->dev == NULL)
		return -ENODEV;
	ret = rds_ib_edev_get(ic);	/* ic->srq: the SRQ is there */
	if (ret != 0)
		return ret;
	ic->nsend = ic->la->opts.send_wr;
	ic->nrecv = ic->srq ? 0 : ic->la->opts.recv_wr;
	ic->scq = ibv_create_cq(id->verbs, (int)ic->nsend, NULL, NULL, 0);
	if (!ic->srq)
		ic->rcq = ibv_create_cq(id->verbs, (int)ic->nrecv, NULL,
					NULL, 0);
	if (ic->scq == NULL || (!ic->srq && ic->rcq == NULL)) {
		IB_LOG(ERR, "ibv_create_cq: %s", strerror(errno));
		return -ENOMEM;
	}
	ic->op_slots = rds_mem_zalloc("rds_ib_ops",
				      sizeof(*ic->op_slots) * ic->nsend);
	if (ic->op_slots == NULL)
		return -ENOMEM;
	ie->stats.mem_wr_bytes += sizeof(*ic->op_slots) * ic->nsend;
	ssz = (size_t)ic->nsend * RDS_IB_TX_SLOT;
	if (posix_memalign((void **)&ic->sbuf, 4096, ssz) != 0) {
		ic->sbuf = NULL;
		return -ENOMEM;
	}
	ie->stats.mem_tx_bytes += ssz;
	ic->smr = ibv_reg_mr(ic->dev->pd, ic->sbuf, ssz, IBV_ACCESS_LOCAL_WRITE);
	if (ic->smr == NULL) {
		IB_LOG(ERR, "ibv_reg_mr: %s", strerror(errno));
		return -ENOMEM;
	}
	if (!ic->srq) {
		rsz = (size_t)ic->nrecv * RDS_IB_SLOT_SIZE;
		if (posix_memalign((void **)&ic->rbuf, 4096, rsz) != 0) {
			ic->rbuf = NULL;
			return -ENOMEM;
		}
		ie->stats.mem_rx_bytes += rsz;
		ic->rmr = ibv_reg_mr(ic->dev->pd, ic->rbuf, rsz,
				     IBV_ACCESS_LOCAL_WRITE);
		if (ic->rmr == NULL) {
			IB_LOG(ERR, "ibv_reg_mr: %s", strerror(errno));
			return -ENOMEM;
		}
		if (rds_ib_recv_setup(ic) != 0)
			return -ENOMEM;
	}
	if (rds_ib_send_setup(ic) != 0)
		return -ENOMEM;

	memset(&qa, 0, sizeof(qa));
	qa.send_cq = ic->scq;
	qa.recv_cq = ic->srq ? ic->ed->rcq : ic->rcq;
	qa.srq = ic->srq ? ic->ed->srq : NULL;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = ic->nsend;
	qa.cap.max_recv_wr = ic->nrecv;
	qa.cap.max_send_sge = 2;
	qa.cap.max_recv_sge = ic->srq ? 0 : 2;
	qa.cap.max_inline_data = 128;
	if (rdma_create_qp(id, ic->dev->pd, &qa) != 0) {
		/* Not every device inlines; try again without. */
		qa.cap.max_inline_data = 0;
		if (rdma_create_qp(id, ic->dev->pd, &qa) != 0) {
			IB_LOG(ERR, "rdma_create_qp: %s (id verbs %p qp %p, "
			       "pd context %p)", strerror(errno),
			       (void *)id->verbs, (void *)id->qp,
			       (void *)ic->dev->pd->context);
			return -errno;
		}
	}
	ic->qp = id->qp;
	ic->max_inline = qa.cap.max_inline_data;
	ic->max_send_sge = qa.cap.max_send_sge;
	ic->cm_id = id;
	id->context = ic;
	if (ic->srq ? rds_ib_srq_attach(ic) != 0 :
		      rds_ib_recv_post_all(ic) != 0)
		return -EIO;
	TAILQ_INSERT_TAIL(&ie->conns, ic, link);
	ic->on_list = true;
	return 0;
}

int
rds_ib_conn_connect(struct rds_conn *c)
{
	struct rds_ib_conn *ic = c->tp;
	struct rds_ib_engine *ie = rds_ib_engine(c->eng);
	struct sockaddr_storage src, dst;
	uint32_t scope = c->la->ifindex;

	/* A link-local peer is on our link-local address's link (the
	 * kernel's c_dev_if); a global address has no link to give one. */
	if (rds_addr_is_linklocal(&c->key.faddr) && scope == 0)
		return -EINVAL;
	rds_ib_teardown(ic);
	if (rdma_create_id(ie->ch, &ic->cm_id, ic, RDMA_PS_TCP) != 0)
		return -errno;
	/* rds_ib_conn_path_connect: IPv4 to the peer's 18634, IPv6 to its
	 * 16385 (our address's cm_port is the peer's too). */
	rds_addr_sockaddr(&c->key.laddr, 0, scope, &src);
	rds_addr_sockaddr(&c->key.faddr, ic->la->opts.cm_port, scope, &dst);
	ic->passive = false;
	ic->cstate = RDS_IB_RESOLVING_ADDR;
	ic->connect_tsc = rds_clock_tsc();
	if (rdma_resolve_addr(ic->cm_id, (struct sockaddr *)&src,
			      (struct sockaddr *)&dst,
			      RDS_IB_RESOLVE_TIMEOUT_MS) != 0) {
		int err = errno;

		rds_ib_teardown(ic);
		return -err;
	}
	return 0;
}

void
rds_ib_conn_shutdown(struct rds_conn *c)
{
	struct rds_ib_conn *ic = c->tp;

	if (ic == NULL)
		return;
	if (ic->cm_id != NULL && ic->cstate == RDS_IB_ESTABLISHED)
		rdma_disconnect(ic->cm_id);
	rds_ib_teardown(ic);
}

/*
 * The RNR NAK timer our QP asks a sender to wait when our receive ring is
 * empty: as the kernel (IB_RNR_TIMER_000_32 through
 * rdma_set_min_rnr_timer, which librdmacm does not offer), 0.32 ms
 * instead of the 0 that RDMA-CM leaves, which is the longest, 655.36 ms:
 * a sender stops that long after every RNR NAK. Allowed in RTS.
 */
static void
rds_ib_tune_rnr(struct rds_ib_conn *ic)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;
	uint8_t before = 0xff;

	if (ic->qp == NULL)
		return;
	if (ibv_query_qp(ic->qp, &a, IBV_QP_MIN_RNR_TIMER | IBV_QP_TIMEOUT |
			 IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY, &init) == 0) {
		before = a.min_rnr_timer;
		IB_LOG(DEBUG, "QP %u: min_rnr_timer %u, timeout %u, retry_cnt "
		       "%u, rnr_retry %u", ic->qp->qp_num, a.min_rnr_timer,
		       a.timeout, a.retry_cnt, a.rnr_retry);
	}
	if (before == RDS_IB_MIN_RNR_TIMER)
		return;
	memset(&a, 0, sizeof(a));
	a.min_rnr_timer = RDS_IB_MIN_RNR_TIMER;
	if (ibv_modify_qp(ic->qp, &a, IBV_QP_MIN_RNR_TIMER) != 0)
		IB_LOG(WARNING, "QP %u: cannot set the RNR NAK timer: %s",
		       ic->qp->qp_num, strerror(errno));
	else
		IB_LOG(DEBUG, "QP %u: min_rnr_timer %u -> %u", ic->qp->qp_num,
		       before, RDS_IB_MIN_RNR_TIMER);
}

/* The versions whose wire we speak: 3.1, and 4.0 and 4.1, which are the
 * same on the wire without UEK's extras (doc/ib.md, "Protocol
 * versions"). A reply with another one (a zero major included, which
 * the kernel's rds_ib_cm_connect_complete also drops) ends the attempt. */
static bool
rds_ib_version_spoken(uint16_t version)
{
	return version == RDS_PROTOCOL_3_1 || version == RDS_PROTOCOL_4_0 ||
	       version == RDS_PROTOCOL_4_1;
}

static void
rds_ib_established(struct rds_ib_conn *ic, const struct rdma_cm_event *ev)
{
	struct rds_conn *c = ic->c;
	struct rds_ib_engine *ie = rds_ib_engine(c->eng);
	const union rds_ib_conn_priv *p = ev->param.conn.private_data;
	bool v6 = rds_ib_conn_v6(c);
	const struct rds_ib_conn_priv_cmn *cmn =
		p != NULL ? rds_ib_priv_cmn(p, v6) : NULL;

	if (!ic->passive) {
		/* The reply carries the version the peer chose, in the
		 * layout of the connection's family
		 * (rds_ib_cm_connect_complete). */
		uint16_t version = 0;

		if (p != NULL &&
		    ev->param.conn.private_data_len >= rds_ib_priv_len(v6))
			version = (uint16_t)(cmn->ricpc_protocol_major << 8 |
					     cmn->ricpc_protocol_minor);
		if (!rds_ib_version_spoken(version)) {
			IB_LOG(ERR, "peer chose protocol %u.%u: we speak 3.1, "
			       "4.0 and 4.1", version >> 8, version & 0xff);
			ie->stats.rejects_incompat++;
			rds_conn_error(c, NULL);
			return;
		}
		ic->version = version;
		if (cmn->ricpc_ack_seq != 0)
			rds_send_drop_acked(c,
				rte_be_to_cpu_64(cmn->ricpc_ack_seq));
		rds_ib_set_flow_control(ic,
			rte_be_to_cpu_32(cmn->ricpc_credit));
		ie->stats.connects_active++;
	} else {
		ie->stats.connects_passive++;
	}
	if (ic->version != RDS_PROTOCOL_3_1)
		ie->stats.connects_proto4++;
	rds_ib_tune_rnr(ic);
	ic->cstate = RDS_IB_ESTABLISHED;
	ic->progress_tsc = rds_clock_tsc();
	rds_conn_connect_complete(c);
}

/* An event on one of our ids (not the listener's). */
static void
rds_ib_conn_event(struct rds_engine *e, struct rdma_cm_event *ev)
{
	struct rds_ib_conn *ic = ev->id->context;
	struct rds_ib_engine *ie = rds_ib_engine(e);
	union rds_ib_conn_priv priv;
	struct rdma_conn_param cp;
	uint8_t len;
	int ret;

	IB_LOG(DEBUG, "cm event %s status %d (%s)", rdma_event_str(ev->event),
	       ev->status, ic == NULL ? "no conn" :
	       ic->passive ? "passive" : "active");
	if (ic == NULL || ic->cm_id != ev->id)
		return;		/* a stale id */
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		ic->cstate = RDS_IB_RESOLVING_ROUTE;
		if (rdma_resolve_route(ev->id, RDS_IB_RESOLVE_TIMEOUT_MS) != 0)
			rds_conn_error(ic->c, NULL);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		ret = rds_ib_setup_qp(ic, ev->id);
		if (ret != 0) {
			IB_LOG(ERR, "QP set-up failed: %s", strerror(-ret));
			rds_conn_error(ic->c, NULL);
			break;
		}
		len = rds_ib_fill_priv(&priv, ic->c, ic->la->opts.proto);
		rds_ib_conn_param(&cp, &priv, len, ic->dev);
		ic->cstate = RDS_IB_CONNECTING;
		if (rdma_connect(ev->id, &cp) != 0)
			rds_conn_error(ic->c, NULL);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		rds_ib_established(ic, ev);
		break;
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
		ie->stats.cm_errors++;
		IB_LOG(DEBUG, "connect failed: %s (status %d)",
		       rdma_event_str(ev->event), ev->status);
		rds_conn_error(ic->c, NULL);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
		rds_conn_error(ic->c, NULL);
		break;
	default:
		break;
	}
}

/* The version we answer a connect request with, as the kernel's
 * rds_ib_protocol_compatible: a 4.x proposal gets 4.0 plus the highest
 * minor in both minor masks (ours is RDS_IB_SUPPORTED_PROTOCOLS, 4.0 and
 * 4.1), 3.1 gets 3.1, a zero major (an old peer, the kernel says: it
 * cannot tell 3.0 from 2.0) gets 4.0; anything else 0, rejected. Unlike
 * the kernel, short private data is rejected too: it has no addresses to
 * tell the connection by. The layout is the listener's family's: an
 * IPv4 request in an IPv6 listener's 52 bytes (or the other way) has its
 * version where it does not look. */
static uint16_t
rds_ib_compatible(const union rds_ib_conn_priv *p, uint8_t len, bool v6)
{
	const struct rds_ib_conn_priv_cmn *cmn = rds_ib_priv_cmn(p, v6);
	uint16_t common, version;

	if (len < rds_ib_priv_len(v6))
		return 0;
	if (cmn->ricpc_protocol_major == 0)
		return RDS_PROTOCOL_4_0;
	common = rte_be_to_cpu_16(cmn->ricpc_protocol_minor_mask) &
		 RDS_IB_SUPPORTED_PROTOCOLS;
	if (cmn->ricpc_protocol_major == 4 && common != 0) {
		version = RDS_PROTOCOL_4_0;
		while ((common >>= 1) != 0)
			version++;
		return version;
	}
	if (cmn->ricpc_protocol_major == 3 && cmn->ricpc_protocol_minor == 1)
		return RDS_PROTOCOL_3_1;
	return 0;
}

/* The connection a request is for: our address (the peer's daddr) and
 * the peer's (saddr), as rds_ib_cm_handle_connect reads them. */
static void
rds_ib_priv_key(const struct rds_ib_handoff *h, struct in6_addr *laddr,
		struct in6_addr *faddr)
{
	if (h->v6) {
		memcpy(laddr, h->priv.v6.dp_daddr, 16);
		memcpy(faddr, h->priv.v6.dp_saddr, 16);
	} else {
		rds_addr_from_v4(laddr, h->priv.v4.dp_daddr);
		rds_addr_from_v4(faddr, h->priv.v4.dp_saddr);
	}
}

static void
rds_ib_reject(struct rdma_cm_id *id, uint8_t why)
{
	rdma_reject(id, &why, sizeof(why));
	rdma_destroy_id(id);
}

/* On the owning engine: accept (or refuse) a connect request. */
void
rds_ib_accept(struct rds_engine *e, struct rds_ib_handoff *h)
{
	struct rds_ib_engine *ie = rds_ib_engine(e);
	const struct rds_ib_conn_priv_cmn *cmn = rds_ib_priv_cmn(&h->priv,
								 h->v6);
	union rds_ib_conn_priv priv;
	struct rdma_conn_param cp;
	struct rds_conn_key key;
	struct rds_ib_conn *ic;
	struct rds_conn *c;
	struct rds_laddr *la;
	char l[INET6_ADDRSTRLEN], f[INET6_ADDRSTRLEN];
	uint16_t version;
	uint8_t len;
	int ret;

	version = rds_ib_compatible(&h->priv, h->priv_len, h->v6);
	if (version == 0) {
		IB_LOG(DEBUG, "connect request with protocol %u.%u (mask "
		       "0x%x): rejected", cmn->ricpc_protocol_major,
		       cmn->ricpc_protocol_minor,
		       rte_be_to_cpu_16(cmn->ricpc_protocol_minor_mask));
		ie->stats.rejects_incompat++;
		rds_ib_reject(h->id, RDS_IB_REJ_INCOMPAT);
		return;
	}
	memset(&key, 0, sizeof(key));
	rds_ib_priv_key(h, &key.laddr, &key.faddr);
	key.trans_id = RDS_TRANS_IB;
	la = rds_laddr_find(&key.laddr);
	/* Ours, on ib, and of the listener's family (an IPv6 request naming
	 * v4-mapped addresses is not an IPv4 connection). */
	if (la == NULL || la->trans->trans_id != RDS_TRANS_IB ||
	    rds_addr_is_v4(&key.laddr) == h->v6 ||
	    rds_addr_is_v4(&key.faddr) == h->v6) {
		rds_ib_reject(h->id, 0);
		return;
	}
	c = rds_conn_get(e, &key);
	if (c == NULL) {
		rds_ib_reject(h->id, 0);
		return;
	}
	ic = c->tp;
	IB_LOG(DEBUG, "connect request %s -> %s: conn %s, ours %s",
	       rds_ib_addr_str(&key.faddr, f, sizeof(f)),
	       rds_ib_addr_str(&key.laddr, l, sizeof(l)),
	       rds_conn_state_name(c->state),
	       ic->cm_id == NULL ? "none" : ic->passive ? "passive" : "active");
	if (c->state == RDS_CONN_CONNECTING && ic->passive) {
		/*
		 * We accepted an earlier request of this peer and it never
		 * completed: the peer gave that attempt up (it has one
		 * attempt at a time) and this is its next. Refusing it would
		 * keep the peer out until our dead attempt times out in the
		 * CM (a minute): take the new one.
		 */
		ie->stats.connect_replaced++;
		IB_LOG(DEBUG, "a new request replaces our pending accept");
		rds_ib_teardown(ic);
	} else if (c->state == RDS_CONN_CONNECTING) {
		/*
		 * Both sides connecting. The kernel refuses and lets random
		 * backoff decide; we also let the attempt of the lower
		 * address win at once: the higher side gives its own up and
		 * accepts, the lower side refuses. A kernel peer refuses
		 * ours as before, so this only ever shortens the race.
		 */
		ie->stats.connect_raced++;
		if (memcmp(&key.faddr, &key.laddr, sizeof(key.laddr)) > 0) {
			rds_ib_reject(h->id, 0);
			return;
		}
		rds_ib_teardown(ic);
	}
	if (c->state == RDS_CONN_UP) {
		/* A restarted peer replaces a stale connection. */
		ie->stats.listen_closed_stale++;
		rds_conn_drop(c);
	}
	rds_ib_teardown(ic);
	ic->passive = true;
	ret = rds_ib_setup_qp(ic, h->id);
	if (ret != 0) {
		IB_LOG(ERR, "QP set-up for a connect request failed: %s",
		       strerror(-ret));
		rdma_reject(h->id, NULL, 0);
		rds_ib_teardown(ic);	/* destroys h->id */
		if (c->state != RDS_CONN_DOWN)
			rds_conn_error(c, NULL);	/* back off, try again */
		return;
	}
	rds_ib_set_flow_control(ic, rte_be_to_cpu_32(cmn->ricpc_credit));
	/* The peer told us what it has: do not resend that. */
	if (cmn->ricpc_ack_seq != 0)
		rds_send_drop_acked(c, rte_be_to_cpu_64(cmn->ricpc_ack_seq));
	ic->version = version;
	len = rds_ib_fill_priv(&priv, c, version);
	rds_ib_conn_param(&cp, &priv, len, ic->dev);
	cp.responder_resources = RTE_MIN(h->param.initiator_depth,
					 cp.responder_resources);
	cp.initiator_depth = RTE_MIN(h->param.responder_resources,
				     cp.initiator_depth);
	ic->cstate = RDS_IB_CONNECTING;
	ic->connect_tsc = rds_clock_tsc();
	rds_conn_accepting(c);	/* no active attempt meanwhile */
	if (rdma_accept(ic->cm_id, &cp) != 0) {
		IB_LOG(ERR, "rdma_accept: %s", strerror(errno));
		rds_conn_error(c, NULL);
		return;
	}
	/* The QP is ready to receive now: the peer may send before our
	 * ESTABLISHED event. */
	rds_ib_tune_rnr(ic);
}

/* A connect request on the listener of la: copy what we need, hand it
 * over. */
static void
rds_ib_listen_event(struct rds_engine *e, struct rdma_cm_event *ev,
		    const struct rds_laddr *lst)
{
	struct rds_ib_handoff *h;
	struct in6_addr la, fa;
	unsigned int owner;

	if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST)
		return;
	h = rds_mem_zalloc("rds_ib_handoff", sizeof(*h));
	if (h == NULL) {
		rds_ib_reject(ev->id, 0);
		return;
	}
	h->id = ev->id;
	h->param = ev->param.conn;
	h->v6 = !rds_addr_is_v4(&lst->addr);
	h->priv_len = RTE_MIN(ev->param.conn.private_data_len,
			      (uint8_t)sizeof(h->priv));
	if (ev->param.conn.private_data != NULL)
		memcpy(&h->priv, ev->param.conn.private_data, h->priv_len);
	else
		h->priv_len = 0;
	h->param.private_data = NULL;
	h->param.private_data_len = 0;
	rds_ib_priv_key(h, &la, &fa);
	owner = rds_conn_engine_of(&la, &fa);
	if (owner == e->id || h->priv_len < rds_ib_priv_len(h->v6)) {
		ev->id->context = NULL;
		rds_ib_accept(e, h);
		rds_mem_free(h);
		return;
	}
	/* Events of that id go to the owner's channel from now on. */
	if (rdma_migrate_id(ev->id,
			    rds_ib_engine(rds_engine_get(owner))->ch) != 0 ||
	    rte_ring_enqueue(rds_ib_engine(rds_engine_get(owner))->handoff,
			     h) != 0) {
		rds_ib_reject(ev->id, 0);
		rds_mem_free(h);
	}
}

void
rds_ib_cm_event(struct rds_engine *e, struct rdma_cm_event *ev)
{
	struct rdma_cm_event copy = *ev;
	union rds_ib_conn_priv priv;
	struct rds_laddr *lst;

	/* Ack first (destroying an id waits for its events to be acked),
	 * keeping a copy of the private data. */
	if (ev->param.conn.private_data != NULL) {
		memset(&priv, 0, sizeof(priv));
		memcpy(&priv, ev->param.conn.private_data,
		       RTE_MIN(ev->param.conn.private_data_len,
			       (uint8_t)sizeof(priv)));
		copy.param.conn.private_data = &priv;
	}
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST &&
	    (lst = rds_ib_listener(ev->listen_id)) != NULL) {
		rdma_ack_cm_event(ev);
		rds_ib_listen_event(e, &copy, lst);
		return;
	}
	rdma_ack_cm_event(ev);
	rds_ib_conn_event(e, &copy);
}

struct rds_laddr *
rds_ib_listener(const struct rdma_cm_id *id)
{
	unsigned int i;

	for (i = 0; id != NULL && i < rds_lib->nb_laddrs; i++) {
		struct rds_laddr *la = rds_lib->laddrs[i];

		if (la->trans == &rds_ib_transport && la->tp != NULL &&
		    rds_ib_laddr(la)->listen == id)
			return la;
	}
	return NULL;
}

void
rds_ib_unlisten(void)
{
	unsigned int i;

	for (i = 0; rds_lib != NULL && i < rds_lib->nb_laddrs; i++) {
		struct rds_laddr *la = rds_lib->laddrs[i];
		struct rds_ib_laddr *il;

		if (la->trans != &rds_ib_transport || la->tp == NULL)
			continue;
		il = rds_ib_laddr(la);
		if (il->listen != NULL)
			rdma_destroy_id(il->listen);
		il->listen = NULL;
	}
}

/*
 * One listener per local ib address (the kernel binds the wildcard, IPv4
 * on 18634 and IPv6 on 16385; a specific address lets several instances
 * share a host, each with its own addresses, as several hosts would).
 * An IPv6 address's listener takes the kernel's IPv6 private data.
 */
int
rds_ib_listen(struct rds_engine *e)
{
	struct rds_ib_engine *ie = rds_ib_engine(e);
	struct sockaddr_storage ss;
	char a[INET6_ADDRSTRLEN];
	unsigned int i;
	int err;

	for (i = 0; i < rds_lib->nb_laddrs; i++) {
		struct rds_laddr *la = rds_lib->laddrs[i];
		struct rds_ib_laddr *il;
		uint16_t port;

		if (la->trans->trans_id != RDS_TRANS_IB)
			continue;
		il = rds_ib_laddr(la);
		port = il->opts.cm_port;
		if (rdma_create_id(ie->ch, &il->listen, NULL, RDMA_PS_TCP) != 0)
			return -errno;
		rds_addr_sockaddr(&la->addr, port, la->ifindex, &ss);
		rds_ib_addr_str(&la->addr, a, sizeof(a));
		if (rdma_bind_addr(il->listen, (struct sockaddr *)&ss) != 0 ||
		    rdma_listen(il->listen, 128) != 0) {
			err = errno;
			IB_LOG(ERR, "cannot listen on %s RDMA-CM port %u: %s "
			       "(is the kernel's rds_rdma loaded?)", a, port,
			       strerror(err));
			rds_ib_unlisten();
			return -err;
		}
		IB_LOG(INFO, "listening on %s RDMA-CM port %u", a, port);
	}
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDS messages over eth frames. A unit (an RDS frame: its 48-byte header
 * and payload; an RDMA request and its WRITE data; an RDMA response and
 * its READ data) goes out in fragments of at most MTU - 68 bytes, in the
 * reliable frame layer's order; the receiver reassembles each kind of
 * unit on its own (units of different kinds may interleave, two of the
 * same kind never do) into one contiguous buffer, so a 1 MiB message is
 * one buffer.
 *
 * RDMA: the initiator sends the request, waits for the response (the
 * target ran the operation against its regions with the software
 * executor's target half: cookie, bounds and rights checked), then
 * sends the message, as a NIC runs the operation before the SEND: the
 * message reaches the target only after the operation succeeded, and a
 * failed operation takes its message with it (REMOTE_ERROR): the core's
 * rule (rds_send_xmit_op) once xmit_op has the answer.
 *
 * Operations run once, and report how they went, across resets of
 * either stream (rds_eth.h, struct rds_eth_rdma_req): a request or an
 * answer a reset may have lost is sent again, and the target never runs
 * the same request twice. An operation whose peer does not answer ends
 * OTHER_ERROR, as an RDMA NIC's that runs out of retries (it may have
 * run): when the frame layer finds the peer unresponsive, or when no
 * answer came for dead_after retransmit timer ceilings (the peer took
 * the request and went away); the connection then resets, so that the
 * request is never sent again. DROPPED: the target says it did not run
 * it (it may have run at an earlier incarnation of the target, which
 * restarted), or the connection went away.
 */
#include <errno.h>
#include <stdlib.h>

#include <rte_random.h>

#include "rds_eth.h"

/* The payload of a frame: the IP MTU less the IPv4 (or IPv6), UDP and
 * eth headers (rds_eth_conn_alloc). */
static inline uint32_t
rds_eth_frag_max(const struct rds_eth_conn *ec)
{
	return ec->frag_max;
}

/* Send fragments of the unit [hdr (hl bytes) | data (dl bytes)] from
 * *off on, as room allows, the last one with last_flags too and
 * acknowledging RDS message rds_seq (0: none). 0 when all went, -EAGAIN
 * otherwise (*off tells how far). */
static int
rds_eth_unit_send(struct rds_eth_conn *ec, uint8_t type, const void *hdr,
		  uint32_t hl, const uint8_t *data, uint32_t dl, uint32_t *off,
		  struct rds_msg *zc, uint16_t last_flags, uint64_t rds_seq)
{
	uint32_t total = hl + dl, max = rds_eth_frag_max(ec), n, l1;
	const uint8_t *p1, *p2;
	uint16_t flags;
	int ret;

	while (*off < total) {
		n = RTE_MIN(max, total - *off);
		flags = (*off == 0 ? RDS_ETH_FL_FIRST : 0) |
			(*off + n == total ? RDS_ETH_FL_LAST | last_flags : 0);
		if (*off < hl) {
			p1 = (const uint8_t *)hdr + *off;
			l1 = RTE_MIN(hl - *off, n);
			p2 = data;
		} else {
			/* Data only: as p2, which zero-copy may attach. */
			p1 = NULL;
			l1 = 0;
			p2 = data + (*off - hl);
		}
		ret = rds_eth_rel_send_zc(ec, type, flags, *off, p1, l1, p2,
					  n - l1, zc,
					  *off + n == total ? rds_seq : 0);
		if (ret != 0)
			return ret;
		*off += n;
	}
	return 0;
}

/* The RDMA request of m's operation: a new id, or the same again
 * (RESEND). */
static int
rds_eth_req_send(struct rds_eth_conn *ec, struct rds_msg *m)
{
	const struct rds_rdma_op *op = m->op;
	struct rds_eth_rdma_req h;
	uint32_t wl = op->kind == RDS_OP_WRITE ? (uint32_t)op->bytes : 0;
	bool resend = (op->tp_flags & RDS_ETH_OP_RESEND) != 0;

	if (ec->rq_tx_off == 0 && !resend) {
		/* A random start: a target that knew an earlier instance of
		 * this connection takes no id of ours for one of its. */
		while (ec->op_next == 0)
			ec->op_next = (uint32_t)rte_rand();
		ec->op_wait_id = ec->op_next++;
	}
	memset(&h, 0, sizeof(h));
	h.op_id = rte_cpu_to_be_32(ec->op_wait_id);
	h.kind = (uint8_t)op->kind;
	h.flags = resend ? RDS_ETH_RQ_RESEND : 0;
	h.nonce = rte_cpu_to_be_32(resend ? ec->peer_nonce : 0);
	h.cookie = rte_cpu_to_be_64(op->cookie);
	h.remote_off = rte_cpu_to_be_64(op->remote_off);
	h.bytes = rte_cpu_to_be_32((uint32_t)op->bytes);
	h.compare = rte_cpu_to_be_64(op->compare);
	h.swap_add = rte_cpu_to_be_64(op->swap_add);
	h.mask1 = rte_cpu_to_be_64(op->mask1);
	h.mask2 = rte_cpu_to_be_64(op->mask2);
	return rds_eth_unit_send(ec, RDS_ETH_F_RDMA_REQ, &h, sizeof(h),
				 op->data, wl, &ec->rq_tx_off, NULL, 0, 0);
}

static void
rds_eth_tx_done(struct rds_eth_conn *ec)
{
	ec->tx_msg = NULL;
	ec->tx_off = 0;
	ec->rq_tx_off = 0;
}

/* The operation we waited for is over (answered, failed, or the
 * connection goes away): the transport's reference goes. */
static void
rds_eth_op_release(struct rds_eth_conn *ec)
{
	struct rds_rdma_op *op = ec->op_wait;

	if (op == NULL)
		return;
	ec->op_wait = NULL;
	rds_rdma_op_free(op);
	rds_conn_ready(ec->c);
}

/* The request (or its answer) may have been lost to a reset: it goes
 * again, marked, with the same id. */
static void
rds_eth_op_resend(struct rds_eth_conn *ec)
{
	struct rds_rdma_op *op = ec->op_wait;

	/* A request not all sent yet starts again anyway (new id: the
	 * target cannot have run it), or is a RESEND already. */
	if (op == NULL || (op->tp_flags & RDS_ETH_OP_DONE) ||
	    !(op->tp_flags & RDS_ETH_OP_SENT))
		return;
	op->tp_flags = (op->tp_flags & ~RDS_ETH_OP_SENT) | RDS_ETH_OP_RESEND;
	ec->op_tsc = ec->c->eng->now;
	rds_conn_ready(ec->c);
}

/* No answer will come: the peer is unresponsive (the frame layer gave up
 * counting), or its answer did not come for dead_after timer ceilings
 * since the last sign of it, counting only while the engine ran (the
 * waiting message is looked at every pass; an inline engine nobody
 * polled for a while has not given the peer a chance). */
static bool
rds_eth_op_lost(struct rds_eth_conn *ec)
{
	const struct rds_eth_port *p = ec->port;
	uint64_t now = ec->c->eng->now;

	if (now - ec->op_check_tsc > p->rto_max_tsc)
		ec->op_tsc += now - ec->op_check_tsc;
	ec->op_check_tsc = now;
	return ec->unresponsive ||
	       now - ec->op_tsc > (uint64_t)p->dead_after * p->rto_max_tsc;
}

/* The RDS header of m's unit, without its Internet checksum: the
 * frame's CRC32C covers it (0: not computed, which every receiver
 * takes, the kernel's too). No ACK in it (RDS_TRANS_F_ACKS: the frame
 * layer acknowledges), so nothing for rds_conn_ack_sent. */
static inline void
rds_eth_msg_hdr(struct rds_eth_conn *ec, const struct rds_msg *m,
		struct rds_header *h)
{
	struct rds_hdr_info hi;

	rds_msg_hdr_info(ec->c, m, &hi);
	rds_hdr_encode_info(h, &hi, false);
}

/* m's operation: its request, then its answer (the core's
 * rds_send_xmit_op applies the rest of the rule). */
int
rds_eth_msg_xmit_op(struct rds_eth_conn *ec, struct rds_msg *m)
{
	struct rds_engine *e = ec->c->eng;
	struct rds_rdma_op *op = m->op;
	int ret;

	if (unlikely(!ec->resolved))
		return -EAGAIN;
	if (op->tp_flags & RDS_ETH_OP_DONE)
		return 0;	/* answered */
	if (ec->tx_msg != m) {
		rds_eth_tx_done(ec);
		ec->tx_msg = m;
	}
	/* An operation we still wait for whose message is no longer the
	 * head (cancelled, or its socket closed, after a reset): the core
	 * reported it; its answer, if one comes, is skipped. */
	if (ec->op_wait != NULL && ec->op_wait != op)
		rds_eth_op_release(ec);
	if (ec->op_wait == op && unlikely(rds_eth_op_lost(ec))) {
		/* It may have run; it never runs again: our stream starts
		 * again without the request. */
		rds_eth_op_release(ec);
		rds_rdma_op_fail(op, RDS_RDMA_OTHER_ERROR);
		rds_eth_tx_done(ec);
		rds_conn_error(ec->c, "RDMA request not answered");
		return 0;
	}
	if (!(op->tp_flags & RDS_ETH_OP_SENT)) {
		uint32_t off = ec->rq_tx_off;

		ret = rds_eth_req_send(ec, m);
		if (ec->rq_tx_off != off) {
			/* In flight from its first fragment on (a peer that
			 * takes no more of it is one that does not answer);
			 * room again: the peer is there. */
			if (ec->op_wait != op) {
				rds_rdma_op_hold(op); /* ours */
				ec->op_wait = op;
				ec->op_check_tsc = e->now;
			}
			ec->op_tsc = e->now;
		}
		if (ret != 0)
			return ret;
		op->tp_flags |= RDS_ETH_OP_SENT;
		ec->op_req_end = ec->snd_nxt;
		ec->op_req_epoch = ec->epoch;
		/* The request is out: nothing of m's is half sent (the core
		 * may drop m without another call, the operation failed). */
		rds_eth_tx_done(ec);
		return -EAGAIN;	/* wait for the answer */
	}
	if (ec->op_wait == op)
		return -EAGAIN;
	/* Sent, and let go without an answer (not expected). */
	rds_rdma_op_not_run(op);
	rds_eth_tx_done(ec);
	return 0;
}

int
rds_eth_msg_xmit(struct rds_eth_conn *ec, struct rds_msg *m)
{
	uint16_t last;
	int ret;

	if (unlikely(!ec->resolved))
		return -EAGAIN;
	if (ec->tx_msg != m) {
		rds_eth_tx_done(ec);
		ec->tx_msg = m;
	}
	/* Acknowledged when its last frame is (rds_eth_rel.c; a map, of
	 * sequence 0, is not kept: nothing to acknowledge), which asks for
	 * the ACK at once when the message does. */
	last = m->h_flags & RDS_FLAG_ACK_REQUIRED ? RDS_ETH_FL_ACKREQ : 0;
	if (ec->tx_off == 0 && RDS_HEADER_SIZE + m->len <= rds_eth_frag_max(ec) &&
	    (m->len < RDS_ETH_ZC_MIN || !ec->port->tx_multi_seg)) {
		/* One frame, copied: header and payload straight into it. */
		struct rte_mbuf *f = rds_eth_rel_frame(ec, RDS_HEADER_SIZE +
						       m->len);
		uint8_t *p;

		if (f == NULL)
			return -EAGAIN;
		p = rds_eth_rel_payload(f);
		rds_eth_msg_hdr(ec, m, (struct rds_header *)(void *)p);
		memcpy(p + RDS_HEADER_SIZE, rds_msg_data(m), m->len);
		rds_eth_rel_commit(ec, f, RDS_ETH_F_DATA, RDS_ETH_FL_FIRST |
				   RDS_ETH_FL_LAST | last, 0, m->seq);
	} else {
		if (ec->tx_off == 0)
			rds_eth_msg_hdr(ec, m, &ec->tx_hdr);
		ret = rds_eth_unit_send(ec, RDS_ETH_F_DATA, &ec->tx_hdr,
					RDS_HEADER_SIZE, rds_msg_data(m),
					m->len, &ec->tx_off, m, last, m->seq);
		if (ret != 0)
			return ret;
	}
	rds_eth_tx_done(ec);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Target side: requests, and their responses. */

void
rds_eth_msg_pump(struct rds_eth_conn *ec)
{
	uint32_t hl = sizeof(struct rds_eth_rdma_resp);

	if (!ec->resp_pending)
		return;
	if (rds_eth_unit_send(ec, RDS_ETH_F_RDMA_RESP, ec->resp_hdr, hl,
			      ec->resp_data, ec->resp_len - hl,
			      &ec->resp_off, NULL, 0, 0) != 0)
		return;		/* the rest when the window opens */
	/* All out; kept until the next request (sent again if our stream
	 * starts again before the initiator acknowledged it). */
	ec->resp_pending = false;
	ec->resp_end = ec->snd_nxt;
	ec->resp_epoch = ec->epoch;
}

static void
rds_eth_resp_clear(struct rds_eth_conn *ec)
{
	free(ec->resp_data);
	ec->resp_data = NULL;
	ec->resp_valid = false;
	ec->resp_pending = false;
}

/* Answer op_id with status (data: READ bytes, taken; may be NULL). */
static void
rds_eth_resp_start(struct rds_eth_conn *ec, uint32_t op_id, int status,
		   uint64_t old, uint8_t *data, uint32_t dl)
{
	struct rds_eth_rdma_resp *rs = (void *)ec->resp_hdr;

	while (ec->nonce == 0)
		ec->nonce = (uint32_t)rte_rand();
	rds_eth_resp_clear(ec);
	memset(ec->resp_hdr, 0, sizeof(ec->resp_hdr));
	rs->op_id = rte_cpu_to_be_32(op_id);
	rs->status = rte_cpu_to_be_32((uint32_t)status);
	rs->old = rte_cpu_to_be_64(old);
	rs->bytes = rte_cpu_to_be_32(dl);
	rs->nonce = rte_cpu_to_be_32(ec->nonce);
	ec->resp_data = data;
	ec->resp_len = sizeof(*rs) + dl;
	ec->resp_off = 0;
	ec->resp_op_id = op_id;
	ec->resp_valid = true;
	ec->resp_pending = true;
	rds_eth_msg_pump(ec);
}

/* A whole request arrived: run it (once), answer. */
static void
rds_eth_req_run(struct rds_eth_conn *ec)
{
	struct rds_eth_engine *ee = ec->ee;
	struct rds_eth_rdma_req_h *rq = ec->rq;
	uint8_t *rdata = NULL;
	struct iovec iov;
	uint64_t old = 0;
	uint32_t dl = 0;
	int st;

	if (ec->resp_valid && rq->op_id == ec->resp_op_id) {
		/* Again (a reset of ours or the initiator's): it ran here.
		 * Its answer is going out, or went in this stream of ours
		 * (the frame layer delivers it), or goes again whole from
		 * our stream's start (rds_eth_msg_reset_tx). */
		return;
	}
	if ((rq->flags & RDS_ETH_RQ_RESEND) &&
	    (ec->nonce == 0 || rq->nonce != ec->nonce)) {
		/* Sent before, to no connection of ours the initiator heard
		 * from: it may have run at an earlier one (we restarted);
		 * not here, never now. */
		rds_eth_resp_start(ec, rq->op_id, RDS_RDMA_DROPPED, 0, NULL, 0);
		return;
	}
	/* A new request means the initiator has the last answer (one at a
	 * time): the answer going again, if any, is not needed. */
	if (rq->rq.kind == RDS_OP_READ) {
		rdata = malloc(rq->rq.bytes ? rq->rq.bytes : 1);
		if (rdata == NULL) {
			rds_eth_rel_rx_reset(ec);
			return;
		}
	}
	rq->rq.wdata = ec->rq_buf;
	iov.iov_base = rdata;
	iov.iov_len = rq->rq.bytes;
	st = rds_rdma_target(ec->c, &rq->rq, &iov, 1, &old);
	/* DROPPED: refused unlooked at (the connection is held off for
	 * wrong keys, rds_rdma_guard.c), not run. */
	if (st != RDS_RDMA_DROPPED)
		ee->stats.rdma_exec++;
	if (st == RDS_RDMA_REMOTE_ERROR)
		ee->stats.rdma_remote_error++;
	if (st == RDS_RDMA_SUCCESS && rq->rq.kind == RDS_OP_READ)
		dl = (uint32_t)rq->rq.bytes;
	if (dl == 0) {
		free(rdata);
		rdata = NULL;
	}
	rds_eth_resp_start(ec, rq->op_id, st, old, rdata, dl);
}

static void
rds_eth_req_clear(struct rds_eth_conn *ec)
{
	free(ec->rq_buf);
	ec->rq_buf = NULL;
	rds_mem_free(ec->rq);
	ec->rq = NULL;
	ec->rq_active = false;
	ec->rq_off = 0;
}

static void
rds_eth_req_input(struct rds_eth_conn *ec, const struct rds_eth_frame *f)
{
	const struct rds_eth_rdma_req *w;
	struct rds_eth_rdma_req_h *rq;
	uint32_t hl = sizeof(*w), dl, wl;
	const uint8_t *data = f->payload;

	if (f->flags & RDS_ETH_FL_FIRST) {
		if (ec->rq_active || f->len < hl || f->frag_off != 0)
			goto bad;
		w = (const void *)f->payload;
		rq = rds_mem_zalloc("rds_eth_rq", sizeof(*rq));
		if (rq == NULL)
			goto bad;
		rq->op_id = rte_be_to_cpu_32(w->op_id);
		rq->flags = w->flags;
		rq->nonce = rte_be_to_cpu_32(w->nonce);
		rq->rq.kind = (enum rds_op_kind)w->kind;
		rq->rq.cookie = rte_be_to_cpu_64(w->cookie);
		rq->rq.remote_off = rte_be_to_cpu_64(w->remote_off);
		rq->rq.bytes = rte_be_to_cpu_32(w->bytes);
		rq->rq.compare = rte_be_to_cpu_64(w->compare);
		rq->rq.swap_add = rte_be_to_cpu_64(w->swap_add);
		rq->rq.mask1 = rte_be_to_cpu_64(w->mask1);
		rq->rq.mask2 = rte_be_to_cpu_64(w->mask2);
		ec->rq = rq;
		ec->rq_active = true;
		ec->rq_off = 0;
		if (w->kind > RDS_OP_MCSWP || rq->rq.bytes > RDS_MAX_MSG_SIZE ||
		    (w->kind >= RDS_OP_FADD && rq->rq.bytes != 8) ||
		    (w->flags & ~RDS_ETH_RQ_ALL) != 0)
			goto bad;
		if (rq->rq.kind == RDS_OP_WRITE) {
			ec->rq_buf = malloc(rq->rq.bytes ? rq->rq.bytes : 1);
			if (ec->rq_buf == NULL)
				goto bad;
		}
		data += hl;
		dl = f->len - hl;
	} else {
		if (!ec->rq_active || f->frag_off != hl + ec->rq_off)
			goto bad;
		dl = f->len;
	}
	wl = ec->rq->rq.kind == RDS_OP_WRITE ? (uint32_t)ec->rq->rq.bytes : 0;
	if (dl > wl - ec->rq_off)
		goto bad;
	if (dl != 0)
		memcpy(ec->rq_buf + ec->rq_off, data, dl);
	ec->rq_off += dl;
	if (!(f->flags & RDS_ETH_FL_LAST))
		return;
	if (ec->rq_off != wl)
		goto bad;
	rds_eth_req_run(ec);
	rds_eth_req_clear(ec);
	return;
bad:
	rds_eth_req_clear(ec);
	rds_eth_rel_rx_reset(ec);
}

/* ------------------------------------------------------------------ */
/* Initiator side: responses. */

/* READ data at offset off of the operation, into its local vector. */
static void
rds_eth_op_scatter(struct rds_rdma_op *op, uint32_t off, const uint8_t *p,
		   uint32_t n)
{
	uint32_t i;
	uint64_t pos = 0;

	for (i = 0; i < op->nr_local && n != 0; i++) {
		uint64_t len = op->local[i].iov_len, k;

		if (off >= pos + len) {
			pos += len;
			continue;
		}
		k = RTE_MIN((uint64_t)n, pos + len - off);
		memcpy((uint8_t *)op->local[i].iov_base + (off - pos), p, k);
		p += k;
		off += (uint32_t)k;
		n -= (uint32_t)k;
		pos += len;
	}
}

static void
rds_eth_resp_input(struct rds_eth_conn *ec, const struct rds_eth_frame *f)
{
	const struct rds_eth_rdma_resp *w;
	struct rds_rdma_op *op = ec->op_wait;
	uint32_t hl = sizeof(*w), dl;
	const uint8_t *data = f->payload;

	if (f->flags & RDS_ETH_FL_FIRST) {
		/* After an answer we skip, the target may start the next
		 * one (it had sent ours again, and we had it already). */
		if ((ec->rs_active && !ec->rs_skip) || f->len < hl ||
		    f->frag_off != 0)
			goto bad;
		w = (const void *)f->payload;
		ec->rs_active = true;
		ec->rs_off = 0;
		ec->rs_status = (int32_t)rte_be_to_cpu_32(w->status);
		ec->rs_old = rte_be_to_cpu_64(w->old);
		ec->rs_bytes = rte_be_to_cpu_32(w->bytes);
		/* Who answers: what a request sent again names. */
		ec->peer_nonce = rte_be_to_cpu_32(w->nonce);
		/* An answer to an operation we no longer wait for (one we
		 * had already, sent again): its data is skipped. */
		ec->rs_skip = op == NULL ||
			      rte_be_to_cpu_32(w->op_id) != ec->op_wait_id;
		if (!ec->rs_skip &&
		    ((op->kind == RDS_OP_READ && ec->rs_status ==
		      RDS_RDMA_SUCCESS && ec->rs_bytes != op->bytes) ||
		     (!(op->kind == RDS_OP_READ && ec->rs_status ==
			RDS_RDMA_SUCCESS) && ec->rs_bytes != 0)))
			goto bad;
		data += hl;
		dl = f->len - hl;
	} else {
		if (!ec->rs_active || f->frag_off != hl + ec->rs_off)
			goto bad;
		dl = f->len;
	}
	if (dl > ec->rs_bytes - ec->rs_off)
		goto bad;
	/* The operation may be let go meanwhile (it failed, or the
	 * connection goes): the rest is skipped. */
	if (!ec->rs_skip && op == NULL)
		ec->rs_skip = true;
	if (!ec->rs_skip && dl != 0)
		rds_eth_op_scatter(op, ec->rs_off, data, dl);
	if (!ec->rs_skip)
		ec->op_tsc = ec->c->eng->now;	/* the peer answers */
	ec->rs_off += dl;
	if (!(f->flags & RDS_ETH_FL_LAST))
		return;
	if (ec->rs_off != ec->rs_bytes)
		goto bad;
	ec->rs_active = false;
	if (ec->rs_skip)
		return;
	if (ec->rs_status == RDS_RDMA_DROPPED) {
		/* Not run there (rds_eth_req_run). */
		rds_rdma_op_not_run(op);
	} else {
		if (ec->rs_status != RDS_RDMA_SUCCESS)
			ec->rs_status = RDS_RDMA_REMOTE_ERROR;
		rds_rdma_initiator_done(op, ec->rs_status, NULL, ec->rs_old);
	}
	op->tp_flags |= RDS_ETH_OP_DONE;
	rds_eth_op_release(ec);		/* answered: the message goes on */
	return;
bad:
	ec->rs_active = false;
	rds_eth_rel_rx_reset(ec);
}

/* ------------------------------------------------------------------ */
/* RDS frames */

static void
rds_eth_data_input(struct rds_eth_conn *ec, const struct rds_eth_frame *f)
{
	struct rds_conn *c = ec->c;
	struct rds_hdr_info h;
	const char *why = NULL;
	struct rds_msg *m;
	uint32_t dl;
	int ret;

	if (f->flags & RDS_ETH_FL_FIRST) {
		if (ec->rx_msg != NULL || f->frag_off != 0 ||
		    f->len < RDS_HEADER_SIZE)
			goto bad;
		if (rds_hdr_decode(f->payload, RDS_HEADER_SIZE, &h, &why) != 0) {
			rds_recv_bad_frame(c, why);
			goto bad;
		}
		dl = f->len - RDS_HEADER_SIZE;
		if (f->flags & RDS_ETH_FL_LAST) {
			/* A whole message in one frame. */
			if (dl != h.len)
				goto bad;
			ret = rds_recv_hdr(c, &h, f->payload + RDS_HEADER_SIZE,
					   dl, NULL);
			if (ret == -ENOMEM)
				rds_eth_rel_rx_reset(ec);
			return;
		}
		if (dl > h.len || h.len > RDS_MAX_MSG_SIZE + RDS_CONG_MAP_BYTES)
			goto bad;
		m = rds_msg_alloc(h.len);
		if (m == NULL) {
			rds_recv_no_memory(c);
			rds_eth_rel_rx_reset(ec);
			return;
		}
		memcpy(m->buf, f->payload + RDS_HEADER_SIZE, dl);
		ec->rx_msg = m;
		ec->rx_hdr = h;
		ec->rx_off = dl;
		return;
	}
	m = ec->rx_msg;
	if (m == NULL || f->frag_off != RDS_HEADER_SIZE + ec->rx_off ||
	    f->len > m->len - ec->rx_off)
		goto bad;
	memcpy(m->buf + ec->rx_off, f->payload, f->len);
	ec->rx_off += f->len;
	if (!(f->flags & RDS_ETH_FL_LAST))
		return;
	if (ec->rx_off != m->len)
		goto bad;
	ec->rx_msg = NULL;
	ec->rx_off = 0;
	/* The core takes m in every case. */
	ret = rds_recv_hdr(c, &ec->rx_hdr, NULL, m->len, m);
	if (ret == -ENOMEM)
		rds_eth_rel_rx_reset(ec);
	return;
bad:
	rds_msg_free(ec->rx_msg);
	ec->rx_msg = NULL;
	ec->rx_off = 0;
	rds_eth_rel_rx_reset(ec);
}

void
rds_eth_msg_input(struct rds_eth_conn *ec, const struct rds_eth_frame *f)
{
	switch (f->type) {
	case RDS_ETH_F_DATA:
		rds_eth_data_input(ec, f);
		break;
	case RDS_ETH_F_RDMA_REQ:
		rds_eth_req_input(ec, f);
		break;
	case RDS_ETH_F_RDMA_RESP:
		rds_eth_resp_input(ec, f);
		break;
	default:
		rds_eth_rel_rx_reset(ec);
		break;
	}
}

void
rds_eth_msg_reset_tx(struct rds_eth_conn *ec)
{
	struct rds_rdma_op *op = ec->op_wait;

	rds_eth_tx_done(ec);
	/* Our stream starts again (called before the frame layer's new
	 * epoch: snd_una and epoch are the old stream's). Our request goes
	 * again unless the target acknowledged all of it (then it ran
	 * there, and its answer comes on the target's stream, which goes
	 * on). */
	if (op != NULL && (op->tp_flags & RDS_ETH_OP_SENT) &&
	    (ec->op_req_epoch != ec->epoch ||
	     rds_eth_seq_lt(ec->snd_una, ec->op_req_end)))
		rds_eth_op_resend(ec);
	/* An answer of ours not all acknowledged goes again, whole, in
	 * the new stream; the initiator skips it if it had it. */
	if (ec->resp_valid &&
	    (ec->resp_pending || (ec->resp_epoch == ec->epoch &&
				  rds_eth_seq_lt(ec->snd_una, ec->resp_end)))) {
		ec->resp_pending = true;
		ec->resp_off = 0;
	}
}

void
rds_eth_msg_reset_rx(struct rds_eth_conn *ec)
{
	rds_msg_free(ec->rx_msg);
	ec->rx_msg = NULL;
	ec->rx_off = 0;
	rds_eth_req_clear(ec);
	ec->rs_active = false;
	/* Called before the peer's stream is taken. The answer we wait
	 * for may have been on the stream we drop: our request goes again
	 * (the target answers again or says it did not run it). With no
	 * stream taken yet (the peer's first, or a new one after we
	 * dropped its last, when the request was marked already) the
	 * answer comes on the one taken now, often in the very frame that
	 * opens it. */
	if (ec->peer_epoch != 0)
		rds_eth_op_resend(ec);
}

void
rds_eth_msg_reset(struct rds_eth_conn *ec)
{
	/* The connection goes away. */
	rds_eth_tx_done(ec);
	rds_eth_op_release(ec);
	rds_eth_resp_clear(ec);
	rds_eth_msg_reset_rx(ec);
}

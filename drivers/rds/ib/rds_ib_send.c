/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sending (net/rds/ib_send.c): every SEND is a 48-byte header plus at
 * most 4 KiB of data, the header repeated on each fragment with the
 * current ACK; the last fragment is solicited; completions are signalled
 * selectively and free the ring in order. Nothing is posted while the
 * core transmits: each slot's prepared work request joins the
 * connection's chain, and the flush op at the end of the engine pass
 * posts every chain with one ibv_post_send (doc/ib.md). A message
 * larger than the ring goes out over several calls (the core calls again
 * with the same message until it returns 0); a congestion map goes out
 * whole or not at all (the core builds a new map message for every
 * attempt). A standalone ACK waits a little for a DATA frame to carry it
 * (rds_ib_xmit_ack). A fragment of at least zc_min bytes that does not
 * fit inline goes from the message buffer itself where it is registered
 * (rds_ib_zc.c): SGE[1] is then the payload, with a reference on the
 * buffer until the slot's completion. Data that fits inline is copied
 * into the slot beside the header; any other is copied into a buffer of
 * the engine's pool on the device, held until the slot's completion
 * (the connection keeps no 4 KiB per slot).
 */
#include <errno.h>

#include "rds_ib.h"

static inline uint32_t
rds_ib_send_room(const struct rds_ib_conn *ic)
{
	return ic->nsend - (uint32_t)(ic->s_head - ic->s_tail);
}

static inline uint8_t *
rds_ib_send_slot(const struct rds_ib_conn *ic, uint64_t n)
{
	return ic->sbuf + (size_t)(n % ic->nsend) * RDS_IB_TX_SLOT;
}

/* What a connection keeps per send slot besides the slot itself. */
static inline size_t
rds_ib_send_wr_bytes(const struct rds_ib_conn *ic)
{
	return (sizeof(*ic->swr) + sizeof(*ic->tx_zc) + sizeof(*ic->tx_cp)) *
	       ic->nsend;
}

/* One prepared work request per ring slot, on the registered ring. */
int
rds_ib_send_setup(struct rds_ib_conn *ic)
{
	uint32_t i;

	ic->swr = rds_mem_zalloc("rds_ib_swr", sizeof(*ic->swr) * ic->nsend);
	ic->tx_zc = rds_mem_zalloc("rds_ib_zc", sizeof(*ic->tx_zc) * ic->nsend);
	ic->tx_cp = rds_mem_zalloc("rds_ib_cp", sizeof(*ic->tx_cp) * ic->nsend);
	ic->tx_zc_out = 0;
	ic->tx_cp_out = 0;
	if (ic->swr == NULL || ic->tx_zc == NULL || ic->tx_cp == NULL) {
		rds_mem_free(ic->swr);
		rds_mem_free(ic->tx_zc);
		rds_mem_free(ic->tx_cp);
		ic->swr = NULL;
		ic->tx_zc = NULL;
		ic->tx_cp = NULL;
		return -ENOMEM;
	}
	rds_ib_engine(ic->c->eng)->stats.mem_wr_bytes +=
		rds_ib_send_wr_bytes(ic);
	for (i = 0; i < ic->nsend; i++) {
		struct rds_ib_send_wr *w = &ic->swr[i];
		uint8_t *slot = rds_ib_send_slot(ic, i);

		w->sge[0].addr = (uintptr_t)slot;
		w->sge[0].length = RDS_IB_HDR_SIZE;
		w->sge[0].lkey = ic->smr->lkey;
		w->sge[1].addr = (uintptr_t)(slot + RDS_IB_HDR_SIZE);
		w->sge[1].lkey = ic->smr->lkey;
		w->wr.sg_list = w->sge;
		w->wr.opcode = IBV_WR_SEND;
	}
	ic->tx_chain = NULL;
	ic->tx_chain_last = NULL;
	ic->tx_chain_nb = 0;
	return 0;
}

/* Forget what was queued (the QP is gone) and free the requests. */
void
rds_ib_send_free(struct rds_ib_conn *ic)
{
	struct rds_ib_engine *ie = rds_ib_engine(ic->c->eng);

	if (ic->on_flush && ie != NULL) {
		TAILQ_REMOVE(&ie->flush, ic, flush_link);
		ic->on_flush = false;
	}
	ic->tx_chain = NULL;
	ic->tx_chain_last = NULL;
	ic->tx_chain_nb = 0;
	ic->ack_waiting = false;
	ic->ack_wr = 0;
	rds_ib_zc_drop_all(ic);		/* the QP is destroyed by now */
	if (ic->swr != NULL && ie != NULL)
		ie->stats.mem_wr_bytes -= rds_ib_send_wr_bytes(ic);
	rds_mem_free(ic->tx_zc);
	ic->tx_zc = NULL;
	rds_mem_free(ic->tx_cp);
	ic->tx_cp = NULL;
	ic->tx_zc_mr = NULL;
	ic->tx_zc_buf = NULL;
	rds_mem_free(ic->swr);
	ic->swr = NULL;
}

/* Post the chain queued on ic: one ibv_post_send for all of it. */
void
rds_ib_send_post_chain(struct rds_ib_conn *ic)
{
	struct rds_ib_engine *ie = rds_ib_engine(ic->c->eng);
	struct ibv_send_wr *bad = NULL;
	int ret;

	if (ic->on_flush) {
		TAILQ_REMOVE(&ie->flush, ic, flush_link);
		ic->on_flush = false;
	}
	if (ic->tx_chain_nb == 0)
		return;
	ic->tx_chain_last->next = NULL;
	/* Buffers sent in place, and copies, are held until a completion:
	 * the chain's last SEND asks for one, or they could wait on an idle
	 * connection for the next signalled SEND. */
	if ((ic->tx_zc_out != 0 || ic->tx_cp_out != 0) &&
	    !(ic->tx_chain_last->send_flags & IBV_SEND_SIGNALED)) {
		ic->tx_chain_last->send_flags |= IBV_SEND_SIGNALED;
		ic->s_unsignaled = 0;
		ic->s_sig = ic->tx_chain_last->wr_id;
	}
	ret = ibv_post_send(ic->qp, ic->tx_chain, &bad);
	ie->stats.tx_post_calls++;
	ie->stats.tx_wrs_posted += ic->tx_chain_nb;
	ic->tx_chain = NULL;
	ic->tx_chain_last = NULL;
	ic->tx_chain_nb = 0;
	if (ret != 0) {
		IB_LOG(ERR, "ibv_post_send: %s", strerror(ret));
		rds_conn_error(ic->c, "ibv_post_send failed");
	}
}

/* The transport's flush: every chain of this engine pass leaves. */
void
rds_ib_flush(struct rds_engine *e)
{
	struct rds_ib_engine *ie = rds_ib_engine(e);
	struct rds_ib_conn *ic;

	if (ie == NULL)
		return;
	while ((ic = TAILQ_FIRST(&ie->flush)) != NULL)
		rds_ib_send_post_chain(ic);
}

/*
 * Queue one SEND: header (and data) already in slot s_head. It joins the
 * connection's chain, posted at the end of the engine pass. Credits are
 * taken now, in the order the frames go.
 */
static int
rds_ib_post(struct rds_ib_conn *ic, uint32_t data_len, bool solicited,
	    bool fence, bool signal)
{
	struct rds_ib_engine *ie = rds_ib_engine(ic->c->eng);
	struct rds_ib_send_wr *w = &ic->swr[ic->s_head % ic->nsend];
	uint8_t *slot = rds_ib_send_slot(ic, ic->s_head);
	struct ibv_send_wr *wr = &w->wr;
	uint32_t adv;

	if (ic->flowctl) {
		/* One credit a SEND; the last one only for a frame that
		 * gives credits back (rds_ib_send_grab_credits). */
		if (ic->credits == 0 || (ic->credits == 1 && ic->posted_adv == 0)) {
			ie->stats.credit_stalls++;
			ic->tx_blocked = true;
			return -EAGAIN;
		}
		ic->credits--;
		adv = RTE_MIN(ic->posted_adv, 255u);
		ic->posted_adv -= adv;
		ie->stats.credits_advertised += adv;
		rds_hdr_set_ack((struct rds_header *)slot,
			rte_be_to_cpu_64(((struct rds_header *)slot)->h_ack),
			(uint8_t)adv);
	}
	w->sge[1].length = data_len;
	wr->wr_id = ic->s_head + 1;	/* slots up to this one are done */
	wr->next = NULL;
	wr->num_sge = data_len != 0 ? 2 : 1;
	wr->send_flags = 0;
	if (solicited)
		wr->send_flags |= IBV_SEND_SOLICITED;
	if (fence)
		wr->send_flags |= IBV_SEND_FENCE;
	if (RDS_IB_HDR_SIZE + data_len <= ic->max_inline)
		wr->send_flags |= IBV_SEND_INLINE;
	/* Selective signalling; always often enough to free the ring. */
	if (signal || ++ic->s_unsignaled >= RDS_IB_SIGNAL_EVERY ||
	    rds_ib_send_room(ic) <= ic->nsend / 4 + 1) {
		wr->send_flags |= IBV_SEND_SIGNALED;
		ic->s_unsignaled = 0;
		ic->s_sig = wr->wr_id;
	}
	if (ic->tx_chain_nb == 0)
		ic->tx_chain = wr;
	else
		ic->tx_chain_last->next = wr;
	ic->tx_chain_last = wr;
	ic->tx_chain_nb++;
	if (!ic->on_flush) {
		TAILQ_INSERT_TAIL(&ie->flush, ic, flush_link);
		ic->on_flush = true;
	}
	ic->tx_blocked = false;
	ic->s_head++;
	ie->stats.tx_frames++;
	return 0;
}

/*
 * The RDMA or atomic work request of m's operation, posted before its
 * SEND (the core's rds_send_xmit_op applies the rest of rds-rdma(7)'s
 * rule): in flight, its completion reports it (rds_ib_op_complete).
 * Nothing of m is half sent after it: the core may send no message (a
 * silent operation), and the next SEND is fenced when it must be.
 */
int
rds_ib_xmit_op(struct rds_conn *c, struct rds_msg *m)
{
	struct rds_ib_conn *ic = c->tp;
	struct rds_ib_engine *ie = rds_ib_engine(c->eng);
	struct rds_rdma_op *op = m->op;
	int ret;

	if (ic->qp == NULL || ic->cstate != RDS_IB_ESTABLISHED)
		return -ENOTCONN;
	if (rds_ib_send_room(ic) == 0) {
		ie->stats.tx_ring_full++;
		ic->tx_blocked = true;
		return -EAGAIN;
	}
	/* An atomic on a target that is not 8-byte aligned: an HCA answers
	 * Invalid Request (the QP in error), rxe never answers at all (the
	 * op would hang there). The remote address of a zero-based region
	 * is its offset: refuse it as the software executor's target does,
	 * REMOTE_ERROR, and the message goes with it (as eth's refused
	 * ops; the receiver sees a sequence gap). */
	if (op->kind >= RDS_OP_FADD &&
	    (((op->cookie >> 32) + op->remote_off) & 7) != 0) {
		rds_rdma_op_fail(op, RDS_RDMA_REMOTE_ERROR);
		return 0;
	}
	/* Its own ibv_post_send: what is queued goes first. */
	rds_ib_send_post_chain(ic);
	ret = rds_ib_post_op(ic, op);
	if (ret == -ENOMEM) {
		/* No bounce buffer can be had: the operation fails, and its
		 * message with it (rds-rdma(7)), not the connection. */
		rds_rdma_op_fail(op, RDS_RDMA_OTHER_ERROR);
		return 0;
	}
	if (ret != 0)
		return ret;
	/* A READ or atomic must land before the peer sees the message
	 * (RDS_RDMA_FENCE is the kernel's advice). */
	ic->tx_fence_next = op->kind != RDS_OP_WRITE ||
			    (op->flags & RDS_RDMA_FENCE);
	return RDS_XMIT_OP_POSTED;
}

int
rds_ib_xmit(struct rds_conn *c, struct rds_msg *m)
{
	struct rds_ib_conn *ic = c->tp;
	struct rds_ib_engine *ie = rds_ib_engine(c->eng);
	struct rds_header *h;
	uint64_t ack;
	uint32_t n;
	int ret;

	if (ic->qp == NULL || ic->cstate != RDS_IB_ESTABLISHED)
		return -ENOTCONN;
	if (ic->tx_msg != m) {
		ic->tx_msg = m;
		ic->tx_off = 0;
		ic->tx_fence = ic->tx_fence_next;
		ic->tx_fence_next = false;
		ic->tx_zc_mr = NULL;
		if (ic->la->opts.zerocopy && m->len >= ic->la->opts.zc_min &&
		    RDS_IB_HDR_SIZE + m->len > ic->max_inline)
			ic->tx_zc_mr = rds_ib_zc_mr(ic, m, &ic->tx_zc_buf);
	}
	/* A map whole or not at all: its next attempt is another buffer.
	 * Room in the ring, and a copy buffer for every fragment at hand
	 * (nothing else of the engine takes them before they are used). */
	if (m->type == RDS_MSG_CONG && ic->tx_off == 0) {
		uint32_t frags = (m->len + RDS_FRAG_SIZE - 1) / RDS_FRAG_SIZE;

		if (rds_ib_send_room(ic) < frags) {
			ie->stats.tx_ring_full++;
			ic->tx_blocked = true;
			ic->tx_msg = NULL;
			return -EAGAIN;
		}
		if (rds_ib_pool_reserve(&ic->ed->tx, frags) != 0) {
			ie->stats.tx_copy_waits++;
			ic->tx_msg = NULL;
			return -EAGAIN;
		}
	}
	do {
		struct rds_ib_send_wr *w;
		uint32_t cp = 0;	/* copy buffer + 1 */
		bool zc;

		if (rds_ib_send_room(ic) == 0) {
			ie->stats.tx_ring_full++;
			ic->tx_blocked = true;
			return -EAGAIN;
		}
		n = RTE_MIN(m->len - ic->tx_off, RDS_FRAG_SIZE);
		zc = ic->tx_zc_mr != NULL && n >= ic->la->opts.zc_min &&
		     RDS_IB_HDR_SIZE + n > ic->max_inline;
		if (!zc && RDS_IB_HDR_SIZE + n > RDS_IB_TX_SLOT) {
			/* A copy buffer of the engine's pool: none free is
			 * a wait for other connections' completions (not a
			 * full ring of this one: the core keeps it polled). */
			if (rds_ib_pool_get(&ic->ed->tx, &cp) != 0) {
				ie->stats.tx_copy_waits++;
				return -EAGAIN;
			}
			cp++;
		}
		h = (struct rds_header *)rds_ib_send_slot(ic, ic->s_head);
		w = &ic->swr[ic->s_head % ic->nsend];
		ack = rds_msg_hdr(c, m, h);	/* carries the ACK */
		if (zc) {
			w->sge[1].addr = (uintptr_t)(rds_msg_data(m) +
						     ic->tx_off);
			w->sge[1].lkey = ic->tx_zc_mr->lkey;
		} else if (cp != 0) {
			uint8_t *b = rds_ib_pool_buf(&ic->ed->tx, cp - 1);

			memcpy(b, rds_msg_data(m) + ic->tx_off, n);
			w->sge[1].addr = (uintptr_t)b;
			w->sge[1].lkey = rds_ib_pool_lkey(&ic->ed->tx, cp - 1);
		} else if (n != 0) {
			memcpy((uint8_t *)h + RDS_IB_HDR_SIZE,
			       rds_msg_data(m) + ic->tx_off, n);
			w->sge[1].addr = (uintptr_t)((uint8_t *)h +
						     RDS_IB_HDR_SIZE);
			w->sge[1].lkey = ic->smr->lkey;
		}
		ret = rds_ib_post(ic, n, ic->tx_off + n >= m->len,
				  ic->tx_fence, false);
		if (ret != 0) {
			if (cp != 0)
				rds_ib_pool_put(&ic->ed->tx, cp - 1);
			return ret;
		}
		if (cp != 0) {
			/* Held until the slot's completion (or teardown). */
			ic->tx_cp[(ic->s_head - 1) % ic->nsend] = cp;
			ic->tx_cp_out++;
		}
		rds_conn_ack_sent(c, ack);
		if (ic->ack_waiting) {
			ic->ack_waiting = false;
			ie->stats.tx_acks_piggybacked++;
		}
		if (zc) {
			/* Held until the slot's completion (or teardown). */
			__atomic_fetch_add(&ic->tx_zc_buf->refs, 1,
					   __ATOMIC_ACQ_REL);
			ic->tx_zc[(ic->s_head - 1) % ic->nsend] = ic->tx_zc_buf;
			ic->tx_zc_out++;
			ie->stats.tx_zc_frames++;
			ie->stats.tx_zc_bytes += n;
		}
		ic->tx_fence = false;
		ic->tx_off += n;
	} while (ic->tx_off < m->len);
	ic->tx_msg = NULL;
	ic->tx_off = 0;
	return 0;
}

/*
 * A standalone ACK (the kernel's rds_ib_attempt_ack). The first call
 * only notes the request: the core calls again in the next passes, and
 * the ACK goes once RDS_IB_ACK_WAIT_PASSES passes and RDS_IB_ACK_WAIT_US
 * have gone by, unless a DATA frame took it meanwhile (rds_ib_xmit: an
 * application answering what it just received sends its reply in
 * between). Then it goes, signalled, unless the previous standalone ACK
 * is still in flight (IB_ACK_IN_FLIGHT): the next one waits for its
 * completion and carries the newest sequence.
 */
int
rds_ib_xmit_ack(struct rds_conn *c)
{
	struct rds_ib_conn *ic = c->tp;
	struct rds_ib_engine *ie = rds_ib_engine(c->eng);
	struct rds_engine *e = c->eng;
	uint64_t ack;
	int ret;

	if (ic->qp == NULL || ic->cstate != RDS_IB_ESTABLISHED)
		return -ENOTCONN;
	if (!ic->ack_waiting) {
		ic->ack_waiting = true;
		ic->ack_wait_pass = e->pass;
		ic->ack_wait_tsc = e->now;
		return -EAGAIN;
	}
	if (ic->ack_wait_pass != UINT64_MAX &&
	    (e->pass - ic->ack_wait_pass < RDS_IB_ACK_WAIT_PASSES ||
	     e->now - ic->ack_wait_tsc <
	     rds_clock_hz() / 1000000 * RDS_IB_ACK_WAIT_US))
		return -EAGAIN;
	if (ic->ack_wr > ic->s_tail) {
		if (ic->ack_wait_pass != UINT64_MAX) {
			ie->stats.tx_acks_limited++;	/* once an ACK */
			ic->ack_wait_pass = UINT64_MAX;
		}
		return -EAGAIN;
	}
	if (rds_ib_send_room(ic) == 0)
		return -EAGAIN;
	ack = rds_ack_hdr(c, (struct rds_header *)rds_ib_send_slot(ic,
								   ic->s_head));
	ret = rds_ib_post(ic, 0, true, false, true);
	if (ret != 0)
		return ret;
	rds_conn_ack_sent(c, ack);
	ic->ack_waiting = false;
	ic->ack_wr = ic->s_head;	/* its wr_id */
	ie->stats.tx_acks++;
	return 0;
}

unsigned int
rds_ib_poll_send(struct rds_ib_conn *ic)
{
	struct rds_ib_engine *ie = rds_ib_engine(ic->c->eng);
	struct ibv_wc wc[RDS_BURST];
	int n, i;

	if (ic->scq == NULL)
		return 0;
	n = ibv_poll_cq(ic->scq, RDS_BURST, wc);
	for (i = 0; i < n; i++) {
		uint32_t slot = (uint32_t)((wc[i].wr_id - 1) % ic->nsend);
		struct rds_rdma_op *op = ic->op_slots[slot];

		if (op != NULL) {
			ic->op_slots[slot] = NULL;
			rds_ib_op_complete(ic, op, wc[i].status);
		}
		if (wc[i].status != IBV_WC_SUCCESS) {
			if (wc[i].status != IBV_WC_WR_FLUSH_ERR) {
				ie->stats.qp_errors++;
				IB_LOG(DEBUG, "send completion: %s",
				       ibv_wc_status_str(wc[i].status));
			}
			rds_conn_error(ic->c, NULL);
			continue;
		}
		if (wc[i].wr_id > ic->s_tail) {
			if (ic->tx_zc_out != 0 || ic->tx_cp_out != 0)
				rds_ib_zc_done(ic, wc[i].wr_id);
			ic->s_tail = wc[i].wr_id;
		}
	}
	if (n > 0)
		ic->progress_tsc = rds_clock_tsc();
	return n > 0 ? (unsigned int)n : 0;
}

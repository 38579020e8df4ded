/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receiving (net/rds/ib_recv.c): 2-SGE receives (header + one 4 KiB
 * fragment), from the engine's shared receive queue (rds_ib_srq.c), or
 * with srq=0 from a ring of the connection's own. A ring's completions
 * are taken in bursts; the consumed buffers go back to the ring in
 * batches, one chained ibv_post_recv of at least RDS_IB_RX_REFILL_BATCH
 * (an eighth of a small ring), so that the ring stays full under a fast
 * sender (an empty ring costs the sender an RNR NAK and a wait) at one
 * call per batch. Fragments of a message carry copies of its header: the
 * first one starts the message, the others must match it (else the
 * connection is reset, as the kernel does); every fragment's piggybacked
 * ACK counts.
 */
#include <errno.h>
#include <inttypes.h>

#include "rds_ib.h"

static inline uint8_t *
rds_ib_recv_slot(const struct rds_ib_conn *ic, uint32_t i)
{
	return ic->rbuf + (size_t)i * RDS_IB_SLOT_SIZE;
}

/* One prepared work request per ring slot, on the registered ring. */
int
rds_ib_recv_setup(struct rds_ib_conn *ic)
{
	uint32_t i;

	ic->rwr = rds_mem_zalloc("rds_ib_rwr", sizeof(*ic->rwr) * ic->nrecv);
	if (ic->rwr == NULL)
		return -ENOMEM;
	rds_ib_engine(ic->c->eng)->stats.mem_wr_bytes +=
		sizeof(*ic->rwr) * ic->nrecv;
	for (i = 0; i < ic->nrecv; i++) {
		struct rds_ib_recv_wr *r = &ic->rwr[i];
		uint8_t *slot = rds_ib_recv_slot(ic, i);

		r->sge[0].addr = (uintptr_t)slot;
		r->sge[0].length = RDS_IB_HDR_SIZE;
		r->sge[0].lkey = ic->rmr->lkey;
		r->sge[1].addr = (uintptr_t)(slot + RDS_IB_HDR_SIZE);
		r->sge[1].length = RDS_FRAG_SIZE;
		r->sge[1].lkey = ic->rmr->lkey;
		r->wr.wr_id = i;
		r->wr.sg_list = r->sge;
		r->wr.num_sge = 2;
	}
	ic->rx_pend = NULL;
	ic->rx_pend_tail = &ic->rx_pend;
	ic->rx_pend_nb = 0;
	ic->rx_batch = RTE_MAX(1u, RTE_MIN((uint32_t)RDS_IB_RX_REFILL_BATCH,
					   ic->nrecv / 8));
	return 0;
}

void
rds_ib_recv_free(struct rds_ib_conn *ic)
{
	if (ic->rwr != NULL)
		rds_ib_engine(ic->c->eng)->stats.mem_wr_bytes -=
			sizeof(*ic->rwr) * ic->nrecv;
	rds_mem_free(ic->rwr);
	ic->rwr = NULL;
	ic->rx_pend = NULL;
	ic->rx_pend_tail = &ic->rx_pend;
	ic->rx_pend_nb = 0;
}

/* Post a chain of receives; n of them. */
static int
rds_ib_recv_post_chain(struct rds_ib_conn *ic, struct ibv_recv_wr *head,
		       uint32_t n)
{
	struct rds_ib_engine *ie = rds_ib_engine(ic->c->eng);
	struct ibv_recv_wr *bad = NULL;
	int ret;

	ret = ibv_post_recv(ic->qp, head, &bad);
	if (ret != 0) {
		IB_LOG(ERR, "ibv_post_recv of %u receives: %s", n,
		       strerror(ret));
		return -EIO;
	}
	ie->stats.rx_post_calls++;
	return 0;
}

/* Post the consumed buffers back, once there are enough of them. */
static void
rds_ib_recv_refill(struct rds_ib_conn *ic)
{
	uint32_t nb = ic->rx_pend_nb;

	if (nb < ic->rx_batch || ic->rx_frozen)
		return;	/* (test hook: frozen rings keep theirs) */
	*ic->rx_pend_tail = NULL;
	if (rds_ib_recv_post_chain(ic, ic->rx_pend, nb) != 0) {
		rds_conn_error(ic->c, NULL);
		return;
	}
	ic->rx_pend = NULL;
	ic->rx_pend_tail = &ic->rx_pend;
	ic->rx_pend_nb = 0;
	/* Credits to give: counted from the start (the peer may turn
	 * credits on later, see rds_ib_process), carried once on. */
	if (ic->la->opts.flow_control) {
		ic->posted_adv += nb;
		/* A peer without credits may send more than we advertised;
		 * one that turns them on later cannot have. */
		if (!ic->flowctl && ic->posted_adv > ic->nrecv)
			ic->posted_adv = ic->nrecv;
	}
	/* Many credits to give and nothing to carry them: an ACK does (16,
	 * as the kernel; half of a smaller ring, whose sender may run dry
	 * first). */
	if (ic->flowctl && ic->posted_adv >= RTE_MIN(16u, ic->nrecv / 2))
		rds_conn_ack_request(ic->c);
}

int
rds_ib_recv_post_all(struct rds_ib_conn *ic)
{
	uint32_t i;

	for (i = 0; i < ic->nrecv; i++)
		ic->rwr[i].wr.next = i + 1 < ic->nrecv ?
				     &ic->rwr[i + 1].wr : NULL;
	if (rds_ib_recv_post_chain(ic, &ic->rwr[0].wr, ic->nrecv) != 0)
		return -EIO;
	ic->posted_adv = ic->nrecv;	/* advertised in the CM private data */
	return 0;
}

void
rds_ib_recv_reset(struct rds_ib_conn *ic)
{
	rds_msg_free(ic->rx_msg);
	ic->rx_msg = NULL;
	ic->rx_off = 0;
}

static void
rds_ib_conn_error(struct rds_ib_conn *ic, const char *why)
{
	rds_conn_error(ic->c, why);
}

/*
 * A complete message is about to go to the core: note a sequence number
 * that skips ahead. The kernel numbers every message of a connection, so
 * a gap is a message the sender cancelled (or closed its socket on), or
 * one that was lost below RDS; either way the cumulative ACK that follows
 * covers it. Retransmissions (behind next_rx_seq) are not gaps.
 */
static void
rds_ib_seq_check(struct rds_ib_conn *ic, const struct rds_hdr_info *h)
{
	struct rds_ib_engine *ie = rds_ib_engine(ic->c->eng);
	struct rds_conn *c = ic->c;

	if (h->flags == RDS_FLAG_CONG_BITMAP || c->next_rx_seq == 0 ||
	    h->seq <= c->next_rx_seq)
		return;
	ie->stats.rx_seq_gaps += h->seq - c->next_rx_seq;
	IB_LOG(WARNING, "sequence gap: %" PRIu64 " messages before %" PRIu64
	       " never arrived (cancelled by the sender, or lost)",
	       h->seq - c->next_rx_seq, h->seq);
}

/* One received SEND: header plus len bytes of data. */
static void
rds_ib_process(struct rds_ib_conn *ic, const uint8_t *slot, uint32_t len)
{
	struct rds_ib_engine *ie = rds_ib_engine(ic->c->eng);
	const struct rds_header *wire = (const struct rds_header *)slot;
	const uint8_t *data = slot + RDS_IB_HDR_SIZE;
	struct rds_conn *c = ic->c;
	struct rds_hdr_info h;
	const char *why = NULL;
	uint32_t want;

	if (rds_hdr_decode(wire, RDS_IB_HDR_SIZE, &h, &why) != 0) {
		rds_recv_bad_frame(c, why);
		rds_ib_conn_error(ic, why);
		return;
	}
	/*
	 * Every frame may give credits back. A peer that gives credits uses
	 * ours: the kernel turns credits on when *we* advertised some in the
	 * CM private data, while its own advertisement there is 0 when it
	 * posts its receives only once connected (net/rds/ib_cm.c); its
	 * first credits then come in a header. From then on we use credits
	 * and give ours back, or the peer runs dry of them and stops.
	 */
	if (h.credit != 0 && ic->la->opts.flow_control && !ic->srq) {
		if (!ic->flowctl) {
			ic->flowctl = true;
			ic->credits = 0;
			ie->stats.flowctl_conns++;
			IB_LOG(DEBUG, "the peer gives credits: flow control on");
		}
		ic->credits += h.credit;
		ic->progress_tsc = rds_clock_tsc();
	}
	/* ACK-only frames may come between the fragments of a message. */
	if (len == 0 && h.sport == 0 && h.dport == 0 && h.len == 0) {
		rds_recv_hdr(c, &h, NULL, 0, NULL);
		return;
	}
	if (ic->rx_msg == NULL) {
		/* A whole message in one SEND. */
		if (h.len <= RDS_FRAG_SIZE) {
			if (len != h.len) {
				rds_recv_bad_frame(c, "fragment length");
				rds_ib_conn_error(ic, "fragment length");
				return;
			}
			rds_ib_seq_check(ic, &h);
			if (rds_recv_hdr(c, &h, data, len, NULL) == -ENOMEM)
				rds_ib_conn_error(ic, "no memory");
			return;
		}
		/* The first fragment of a larger one. */
		if (len != RDS_FRAG_SIZE) {
			rds_ib_conn_error(ic, "short first fragment");
			return;
		}
		ic->rx_msg = rds_msg_alloc(h.len);
		if (ic->rx_msg == NULL) {
			rds_recv_no_memory(c);
			rds_ib_conn_error(ic, "no memory");
			return;
		}
		ic->rx_hdr = *wire;
		ic->rx_info = h;
		ic->rx_off = 0;
	} else if (h.seq != ic->rx_info.seq || h.len != ic->rx_info.len ||
		   h.sport != ic->rx_info.sport ||
		   h.dport != ic->rx_info.dport) {
		ie->stats.rx_frag_mismatch++;
		IB_LOG(DEBUG, "fragment %u of seq %" PRIu64 " len %u %u->%u: "
		       "got seq %" PRIu64 " len %u %u->%u flags %x, %u bytes",
		       ic->rx_off / RDS_FRAG_SIZE, ic->rx_info.seq,
		       ic->rx_info.len, ic->rx_info.sport, ic->rx_info.dport,
		       h.seq, h.len, h.sport, h.dport, h.flags, len);
		rds_ib_recv_reset(ic);
		rds_ib_conn_error(ic, "fragment header mismatch");
		return;
	}
	want = RTE_MIN(ic->rx_info.len - ic->rx_off, RDS_FRAG_SIZE);
	if (len != want) {
		rds_ib_recv_reset(ic);
		rds_ib_conn_error(ic, "fragment length");
		return;
	}
	/* Every fragment's ACK counts, not only the last one's. */
	if (h.ack != 0)
		rds_send_drop_acked(c, h.ack);
	memcpy(ic->rx_msg->buf + ic->rx_off, data, len);
	ic->rx_off += len;
	if (ic->rx_off < ic->rx_info.len)
		return;
	/* Complete: the last fragment's header carries the newest ACK
	 * (already applied above). */
	{
		struct rds_msg *m = ic->rx_msg;

		ic->rx_msg = NULL;
		ic->rx_off = 0;
		rds_ib_seq_check(ic, &h);
		if (rds_recv_hdr(c, &h, NULL, m->len, m) == -ENOMEM)
			rds_ib_conn_error(ic, "no memory");
	}
}

void
rds_ib_recv_one(struct rds_ib_conn *ic, enum ibv_wc_status status,
		const uint8_t *slot, uint32_t byte_len)
{
	struct rds_ib_engine *ie = rds_ib_engine(ic->c->eng);

	if (status != IBV_WC_SUCCESS) {
		if (status != IBV_WC_WR_FLUSH_ERR) {
			ie->stats.qp_errors++;
			IB_LOG(DEBUG, "receive completion: %s",
			       ibv_wc_status_str(status));
		}
		rds_conn_error(ic->c, NULL);
		return;
	}
	ie->stats.rx_frames++;
	if (byte_len < RDS_IB_HDR_SIZE)
		rds_ib_conn_error(ic, "frame shorter than a header");
	else if (!ic->c->drop_pending)
		rds_ib_process(ic, slot, byte_len - RDS_IB_HDR_SIZE);
}

/*
 * A ring of the connection's own (srq=0): take up to RDS_IB_RX_BURSTS
 * bursts of receive completions, each processed in order; consumed
 * buffers join the refill chain, posted per batch. Returns the
 * completions taken.
 */
unsigned int
rds_ib_poll_recv(struct rds_ib_conn *ic)
{
	struct ibv_wc wc[RDS_IB_RX_BURST];
	unsigned int total = 0, b;
	int n, i;

	if (ic->rcq == NULL)
		return 0;
	for (b = 0; b < RDS_IB_RX_BURSTS; b++) {
		n = ibv_poll_cq(ic->rcq, RDS_IB_RX_BURST, wc);
		if (n <= 0)
			break;
		for (i = 0; i < n; i++) {
			uint32_t slot = (uint32_t)wc[i].wr_id;

			rds_ib_recv_one(ic, wc[i].status,
					rds_ib_recv_slot(ic, slot),
					wc[i].byte_len);
			if (wc[i].status != IBV_WC_SUCCESS)
				continue;
			/* The connection may have been torn down meanwhile. */
			if (ic->qp == NULL)
				return total + (unsigned int)n;
			*ic->rx_pend_tail = &ic->rwr[slot].wr;
			ic->rx_pend_tail = &ic->rwr[slot].wr.next;
			ic->rx_pend_nb++;
		}
		total += (unsigned int)n;
		rds_ib_recv_refill(ic);
		if (n < RDS_IB_RX_BURST)
			break;
	}
	return total;
}

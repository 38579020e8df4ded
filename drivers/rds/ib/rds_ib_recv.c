/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receiving (net/rds/ib_recv.c): a ring of pre-posted 2-SGE receives
 * (header + one 4 KiB fragment), reposted as soon as they are consumed.
 * Fragments of a message carry copies of its header: the first one
 * starts the message, the others must match it (else the connection is
 * reset, as the kernel does); every fragment's piggybacked ACK counts.
 */
#include <errno.h>
#include <inttypes.h>

#include "rds_ib.h"

static inline uint8_t *
rds_ib_recv_slot(const struct rds_ib_conn *ic, uint32_t i)
{
	return ic->rbuf + (size_t)i * RDS_IB_SLOT_SIZE;
}

static int
rds_ib_recv_post(struct rds_ib_conn *ic, uint32_t i)
{
	uint8_t *slot = rds_ib_recv_slot(ic, i);
	struct ibv_recv_wr wr, *bad;
	struct ibv_sge sge[2];

	sge[0].addr = (uintptr_t)slot;
	sge[0].length = RDS_IB_HDR_SIZE;
	sge[0].lkey = ic->rmr->lkey;
	sge[1].addr = (uintptr_t)(slot + RDS_IB_HDR_SIZE);
	sge[1].length = RDS_FRAG_SIZE;
	sge[1].lkey = ic->rmr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = i;
	wr.sg_list = sge;
	wr.num_sge = 2;
	return ibv_post_recv(ic->qp, &wr, &bad);
}

int
rds_ib_recv_post_all(struct rds_ib_conn *ic)
{
	uint32_t i;

	for (i = 0; i < ic->nrecv; i++)
		if (rds_ib_recv_post(ic, i) != 0)
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
		rds_stat_inc(c->eng, s_recv_drop_bad_hdr);
		rds_ib_conn_error(ic, why);
		return;
	}
	/* Every frame may give credits back. */
	if (ic->flowctl)
		ic->credits += h.credit;
	/* ACK-only frames may come between the fragments of a message. */
	if (len == 0 && h.sport == 0 && h.dport == 0 && h.len == 0) {
		rds_recv_hdr(c, &h, NULL, 0, NULL);
		return;
	}
	if (ic->rx_msg == NULL) {
		/* A whole message in one SEND. */
		if (h.len <= RDS_FRAG_SIZE) {
			if (len != h.len) {
				rds_stat_inc(c->eng, s_recv_drop_bad_hdr);
				rds_ib_conn_error(ic, "fragment length");
				return;
			}
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
			rds_stat_inc(c->eng, s_recv_drop_nomem);
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
		if (rds_recv_hdr(c, &h, NULL, m->len, m) == -ENOMEM)
			rds_ib_conn_error(ic, "no memory");
	}
}

unsigned int
rds_ib_poll_recv(struct rds_ib_conn *ic)
{
	struct rds_ib_engine *ie = rds_ib_engine(ic->c->eng);
	struct ibv_wc wc[RDS_BURST];
	int n, i;

	if (ic->rcq == NULL)
		return 0;
	n = ibv_poll_cq(ic->rcq, RDS_BURST, wc);
	for (i = 0; i < n; i++) {
		uint32_t slot = (uint32_t)wc[i].wr_id;

		if (wc[i].status != IBV_WC_SUCCESS) {
			if (wc[i].status != IBV_WC_WR_FLUSH_ERR) {
				ie->stats.qp_errors++;
				IB_LOG(DEBUG, "receive completion: %s",
				       ibv_wc_status_str(wc[i].status));
			}
			rds_conn_error(ic->c, NULL);
			continue;
		}
		ie->stats.rx_frames++;
		if (wc[i].byte_len < RDS_IB_HDR_SIZE) {
			rds_ib_conn_error(ic, "frame shorter than a header");
		} else if (!ic->c->drop_pending) {
			rds_ib_process(ic, rds_ib_recv_slot(ic, slot),
				       wc[i].byte_len - RDS_IB_HDR_SIZE);
		}
		/* The connection may have been torn down meanwhile. */
		if (ic->qp == NULL)
			return (unsigned int)n;
		if (rds_ib_recv_post(ic, slot) != 0) {
			rds_conn_error(ic->c, NULL);
		} else if (rds_lib->conf.ib_flow_control) {
			/* Many credits to give and nothing to carry them:
			 * an ACK does (16, as the kernel). */
			if (++ic->posted_adv >= 16 && ic->flowctl)
				ic->c->ack_requested = true;
		}
	}
	return n > 0 ? (unsigned int)n : 0;
}

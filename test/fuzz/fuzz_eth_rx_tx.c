/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_eth_rx, the driver's side: what the harness makes of the frames
 * the driver transmits (its epoch, whether it took the peer's, its
 * stream frame by frame, the RDS message each unit carries) and the
 * oracles on them listed in fuzz_eth_rx.c; and, at the end of an
 * input, the acknowledgement of everything it sent.
 */
#include <stdio.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_rds.h>
#include <rte_rds_stats.h>

#include "fuzz_eth_rx.h"

/* The messages an ACK of ours lets the driver free: those whose last
 * frame it covers cumulatively (a selective ACK frees none), if it
 * names the driver's stream and no more than it sent (else the driver
 * ignores it). Returns false when it names more than the harness has
 * seen. */
static bool
ack_cover(const struct rds_eth_frame *f)
{
	uint32_t i;

	if (f->flags & RDS_ETH_FL_RESET || f->dst_epoch == 0 ||
	    f->dst_epoch != w.tx_epoch)
		return true;
	if (f->ack > w.tx_nb)
		return false;
	for (i = 0; i < f->ack; i++)
		if ((w.tx_fl[i] & (TX_LAST | TX_DATA)) == (TX_LAST | TX_DATA) &&
		    w.tx_seq[i] > w.tx_acked)
			w.tx_acked = w.tx_seq[i];
	return true;
}

/* "No more than it sent" is the driver's count when it reads the ACK:
 * frames it has numbered, some still in its batch for the wire (built
 * earlier in the pass that reads the ACK; sequence numbers are
 * predictable, an input can name them). An ACK ahead of what the
 * harness has seen waits, and is judged again against each drain's
 * frames until the driver has read every frame injected (the receive
 * ring empty after a pass). */
void
ack_model(const struct rds_eth_frame *f)
{
	if (ack_cover(f))
		return;
	if (w.nb_ack_pend == ACK_PEND_MAX) {
		memmove(&w.ack_pend[0], &w.ack_pend[1],
			sizeof(w.ack_pend[0]) * (ACK_PEND_MAX - 1));
		w.nb_ack_pend--;
	}
	w.ack_pend[w.nb_ack_pend++] = *f;
}

static void
ack_pend_judge(void)
{
	uint32_t i, n = 0;

	for (i = 0; i < w.nb_ack_pend; i++)
		if (!ack_cover(&w.ack_pend[i]))
			w.ack_pend[n++] = w.ack_pend[i];
	w.nb_ack_pend = rte_ring_count(w.rx) == 0 ? 0 : n;
}

/* A sequenced frame of the driver's stream: the unit it belongs to, and
 * the oracles on the RDS frames it sends. */
static void
tx_frame(const struct rds_eth_frame *f)
{
	struct fz_hdr h;
	uint32_t i = f->seq;
	uint8_t fl = 0;

	if (f->type != RDS_ETH_F_DATA && f->type != RDS_ETH_F_RDMA_REQ &&
	    f->type != RDS_ETH_F_RDMA_RESP)
		return;
	FZ_CHECK(i < MAX_TX_FRAMES, "driver frame %u: too many", i);
	if (i < w.tx_nb)
		return;		/* sent again by the frame layer */
	FZ_CHECK(i == w.tx_nb, "driver frame %u after %u", i, w.tx_nb);
	w.tx_nb++;
	if (f->flags & RDS_ETH_FL_FIRST)
		fl |= TX_FIRST;
	if (f->flags & RDS_ETH_FL_LAST)
		fl |= TX_LAST;
	w.tx_seq[i] = 0;
	if (f->type == RDS_ETH_F_DATA && (fl & TX_FIRST)) {
		FZ_CHECK(f->len >= FZ_HDR_SIZE && fz_hdr_csum_ok(f->payload),
			 "driver frame %u: bad RDS header", i);
		fz_hdr_decode(f->payload, &h);
		FZ_CHECK(h.ack == 0, "an ACK (%llu) in the driver's RDS header",
			 (unsigned long long)h.ack);
		FZ_CHECK(h.len != 0 || h.sport != 0 || h.dport != 0 ||
			 (h.flags & FZ_FLAG_CONG_BITMAP),
			 "an RDS ACK-only frame from the driver");
		if (!(h.flags & FZ_FLAG_CONG_BITMAP)) {
			fl |= TX_DATA;
			w.tx_seq[i] = h.seq;
			FZ_CHECK(h.seq > w.freed, "message %llu sent again after "
				 "it was acknowledged and freed (%llu freed)",
				 (unsigned long long)h.seq,
				 (unsigned long long)w.freed);
			/* Marked when it went whole before (the peer may
			 * have it); one cut short by a reset may go
			 * unmarked (the peer cannot have it). */
			if (h.seq <= w.tx_whole)
				FZ_CHECK(h.flags & FZ_FLAG_RETRANSMITTED,
					 "message %llu sent again unmarked",
					 (unsigned long long)h.seq);
			else if (h.seq > w.tx_max)
				FZ_CHECK(h.seq == w.tx_max + 1,
					 "message %llu after %llu",
					 (unsigned long long)h.seq,
					 (unsigned long long)w.tx_max);
			if (h.seq > w.tx_max)
				w.tx_max = h.seq;
			FZ_TRACE("driver message %llu from frame %u%s",
				 (unsigned long long)h.seq, i,
				 h.flags & FZ_FLAG_RETRANSMITTED ?
				 " (retransmitted)" : "");
		}
	} else if (!(fl & TX_FIRST) && i > 0) {
		fl |= w.tx_fl[i - 1] & TX_DATA;
		w.tx_seq[i] = w.tx_seq[i - 1];
	}
	if ((fl & (TX_DATA | TX_LAST)) == (TX_DATA | TX_LAST) &&
	    w.tx_seq[i] > w.tx_whole)
		w.tx_whole = w.tx_seq[i];
	w.tx_fl[i] = fl;
}

uint64_t
send_acked(void)
{
	struct rte_rds_stats st;

	FZ_CHECK(rte_rds_stats_get(-1, &st) == 0, "stats");
	return st.s_send_acked - w.st0.s_send_acked;
}

/* What the driver sent: learn its epoch and whether it took ours, and
 * follow its stream. */
void
drain_tx(void)
{
	struct rte_mbuf *m, *c;
	struct rds_eth_frame f;

	while (rte_ring_dequeue(w.tx, (void **)&m) == 0) {
		/* Large fragments go zero-copy: a chain, parsed flat. */
		c = m;
		if (m->nb_segs != 1) {
			c = rte_pktmbuf_copy(m, w.pool, 0, UINT32_MAX);
			FZ_CHECK(c != NULL, "harness pool empty");
		}
		if (rds_eth_frame_parse(c, RDS_ETH_UDP_PORT, &f) ==
		    RDS_ETH_DROP_NONE) {
			if (f.src_epoch != 0)
				w.our_epoch = f.src_epoch;
			if (f.src_epoch != 0 && f.src_epoch != w.tx_epoch) {
				/* A new stream of the driver's. */
				w.tx_epoch = f.src_epoch;
				w.tx_nb = 0;
			}
			if (f.dst_epoch == w.epoch)
				w.acked = true;
			w.rx_ack = f.ack;
			if (f.src_epoch != 0)
				tx_frame(&f);
		}
		if (c != m)
			rte_pktmbuf_free(c);
		rte_pktmbuf_free(m);
	}
	ack_pend_judge();
	FZ_CHECK(send_acked() <= w.tx_acked, "%llu messages freed, only %llu "
		 "acknowledged", (unsigned long long)send_acked(),
		 (unsigned long long)w.tx_acked);
}

/* The harness takes everything the driver sends, from a stream of its
 * own the driver has not seen (so it takes it, whatever it made of the
 * earlier ones), naming the driver's: every message the socket sent is
 * acknowledged and freed. */
void
ack_all(void)
{
	struct rte_rds_stats st;
	struct rds_eth_frame f;
	struct rte_mbuf *m;
	unsigned int k, i;
	uint64_t pongs;

	/* Newer than every epoch before (restarts only go forward):
	 * epochs are ordered, an older one would be stale. */
	w.epoch += 0x10000;
	for (i = 0; i < w.nb_epochs; i++)
		FZ_CHECK((int32_t)(w.epoch - w.epochs[i]) > 0, "epoch order");
	w.acked = false;
	FZ_TRACE("acknowledging all from stream %08x", w.epoch);
	FZ_CHECK(rte_rds_stats_get(-1, &st) == 0, "stats");
	/* (No frame of the harness's is a ping; were one made, its pong is
	 * freed as the socket's messages are.) */
	pongs = st.s_send_pong - w.st0.s_send_pong;
	for (k = 0; k < 4 * MAX_STEPS + 64 &&
	     send_acked() < w.sent_ok + pongs; k++) {
		memset(&f, 0, sizeof(f));
		f.type = RDS_ETH_F_ACK;
		f.flags = w.acked ? 0 : RDS_ETH_FL_OPEN;
		f.src_epoch = w.epoch;
		f.dst_epoch = w.tx_epoch;
		f.ack = w.tx_nb;
		f.wnd = WINDOW;
		ack_model(&f);
		m = rte_pktmbuf_alloc(w.pool);
		FZ_CHECK(m != NULL, "harness pool empty");
		FZ_CHECK(rte_pktmbuf_append(m, RDS_ETH_HDRS) != NULL, "append");
		FZ_CHECK(rds_eth_frame_build(m, &w.peer_mac, &w.our_mac,
					     w.peer_ip, w.our_ip,
					     RDS_ETH_UDP_PORT, RDS_ETH_UDP_PORT,
					     &f, false) == 0, "ack build");
		if (rte_ring_enqueue(w.rx, m) != 0)
			rte_pktmbuf_free(m);
		poll_once();
		recv_some(16);
	}
	FZ_CHECK(send_acked() == w.sent_ok + pongs, "%u messages sent "
		 "(and %llu pongs), %llu freed with all acknowledged",
		 w.sent_ok, (unsigned long long)pongs,
		 (unsigned long long)send_acked());
}

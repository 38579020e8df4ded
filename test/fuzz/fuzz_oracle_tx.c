/* SPDX-License-Identifier: BSD-3-Clause */
/* The receive-path oracle (see fuzz_oracle.h): the frames the core
 * transmitted, and the end of an input. */

#include "fuzz_oracle_int.h"

/* ------------------------------------------------------------------ */
/* Frames the core transmitted */

void
fo_tx_sink(void *arg, const uint8_t hdr[48], const uint8_t *payload,
	   uint32_t len)
{
	struct fo_pending_tx *t;

	RTE_SET_USED(arg);
	if (fo.ntxq == fo.txq_cap) {
		unsigned int cap = fo.txq_cap == 0 ? 256 : fo.txq_cap * 2;
		void *p = realloc(fo.txq, sizeof(*fo.txq) * cap);

		if (p == NULL)
			fz_fail("oracle: no memory for the transmit queue");
		fo.txq = p;
		fo.txq_cap = cap;
	}
	t = &fo.txq[fo.ntxq++];
	memcpy(t->hdr, hdr, FZ_HDR_SIZE);
	t->len = len;
	t->hash = 0;
	t->map = NULL;
	if (hdr[24] != FZ_FLAG_CONG_BITMAP)
		t->hash = fz_hash(payload, len);
	else if (len == FZ_CONG_MAP_BYTES) {
		t->map = malloc(len);
		if (t->map == NULL)
			fz_fail("oracle: no memory for a map");
		memcpy(t->map, payload, len);
	}
}

static struct fo_sent *
fo_wire_find(uint64_t seq)
{
	unsigned int i;

	for (i = 0; i < fo.nwire; i++)
		if (fo.sent[fo.wire[i]].seq == seq)
			return &fo.sent[fo.wire[i]];
	return NULL;
}

static void
fo_tx_new_seq(const struct fz_hdr *h)
{
	FZ_CHECK(h->seq > fo.tx_last_seq, "core sent sequence %llu after "
		 "%llu: sequence numbers must increase", U64(h->seq),
		 U64(fo.tx_last_seq));
	fo.tx_last_seq = h->seq;
}

static void
fo_tx_put_wire(struct fo_sent *m, uint64_t seq)
{
	m->on_wire = true;
	m->seq = seq;
	if (fo.nwire < FO_MAX_SENT)
		fo.wire[fo.nwire++] = (unsigned int)(m - fo.sent);
}

static void
fo_tx_map(const struct fo_pending_tx *t)
{
	unsigned int b, w;
	uint64_t word;

	FZ_CHECK(t->map != NULL, "core sent a map of %u bytes", t->len);
	for (w = 0; w < FZ_CONG_MAP_BYTES / 8; w++) {
		/* Bit order: port p is bit p % 8 of byte p / 8. */
		memcpy(&word, t->map + w * 8, 8);
		if (word == 0)
			continue;
		for (b = 0; b < 64; b++) {
			uint16_t port = (uint16_t)(w * 64 + b);

			if (!((t->map[port / 8] >> (port % 8)) & 1))
				continue;
			FZ_CHECK(fo_sock_at(fo.laddr, port) >= 0,
				 "core's congestion map marks port %u, which "
				 "no socket is bound to", port);
		}
	}
	fo.n.tx_maps++;
}

static void
fo_tx_pong(const struct fz_hdr *h, bool retrans)
{
	struct fo_ping *p;
	struct fo_sent *m;

	FZ_CHECK(h->len == 0, "core sent a pong of %u bytes", h->len);
	if (retrans) {
		m = fo_wire_find(h->seq);
		FZ_CHECK(m != NULL && m->sock == -1 && m->dport == h->dport,
			 "core retransmitted pong %llu it never sent",
			 U64(h->seq));
		FZ_CHECK(!m->acked, "core retransmitted pong %llu, which the "
			 "peer acknowledged", U64(h->seq));
		return;
	}
	fo_tx_new_seq(h);
	fo.n.tx_pongs++;
	p = fo_ping_of(h->dport);
	if (p != NULL) {
		p->got++;
		FZ_CHECK(p->got <= p->max, "core sent %u pong(s) to port %u, "
			 "the peer sent at most %u ping(s) from it", p->got,
			 h->dport, p->max);
	}
	if (fo.nsent < FO_MAX_SENT) {
		m = &fo.sent[fo.nsent++];
		memset(m, 0, sizeof(*m));
		m->sock = -1;
		m->dport = h->dport;
		fo_tx_put_wire(m, h->seq);
	}
}

static void
fo_tx_data(const struct fo_pending_tx *t, const struct fz_hdr *h,
	   bool retrans)
{
	struct fo_sock *s;
	struct fo_sent *m;
	unsigned int i;
	int si;

	if (retrans) {
		FZ_CHECK(fo.resets, "core sent seq %llu RETRANSMITTED without "
			 "a reset of the connection", U64(h->seq));
		m = fo_wire_find(h->seq);
		FZ_CHECK(m != NULL, "core retransmitted seq %llu, which it "
			 "never sent", U64(h->seq));
		FZ_CHECK(m->sport == h->sport && m->dport == h->dport &&
			 m->len == t->len && m->hash == t->hash,
			 "core retransmitted seq %llu with other contents",
			 U64(h->seq));
		FZ_CHECK(!m->acked, "core retransmitted seq %llu, which the "
			 "peer acknowledged", U64(h->seq));
		fo.n.tx_retrans++;
		return;
	}
	si = fo_sock_at(fo.laddr, h->sport);
	FZ_CHECK(si >= 0, "core sent a message from port %u, no socket of "
		 "ours is bound there", h->sport);
	s = &fo.sk[si];
	for (i = s->tx_next; i < fo.nsent; i++)
		if (fo.sent[i].sock == si)
			break;
	FZ_CHECK(i < fo.nsent, "core sent a message from port %u that the "
		 "socket did not send (or sent it twice)", h->sport);
	m = &fo.sent[i];
	FZ_CHECK(m->dport == h->dport && m->len == t->len &&
		 m->hash == t->hash, "core sent a message from port %u other "
		 "than the next one the socket sent (to %u, %u bytes; on the "
		 "wire: to %u, %u bytes)", h->sport, m->dport, m->len,
		 h->dport, t->len);
	s->tx_next = i + 1;
	fo_tx_new_seq(h);
	fo_tx_put_wire(m, h->seq);
}

void
fo_settle_tx(void)
{
	unsigned int i;

	for (i = 0; i < fo.ntxq; i++) {
		const struct fo_pending_tx *t = &fo.txq[i];
		struct fz_hdr h;
		bool retrans;

		fz_hdr_decode(t->hdr, &h);
		fo.n.tx_frames++;
		FZ_CHECK(fz_hdr_csum_ok(t->hdr), "core sent a frame with a bad "
			 "header checksum");
		FZ_CHECK(h.len == t->len && t->len <= FZ_MAX_MSG,
			 "core sent a frame whose header says %u bytes, with "
			 "%u", h.len, t->len);
		if (h.ack != 0)
			FZ_CHECK(fo.ack_bound_set && h.ack <= fo.ack_bound,
				 "core acknowledged sequence %llu; the highest "
				 "the peer sent is %llu%s", U64(h.ack),
				 U64(fo.ack_bound),
				 fo.ack_bound_set ? "" : " (none sent)");
		if (fo.ack_pending_set && h.ack >= fo.ack_pending)
			fo.ack_pending_set = false;
		if (!fo.tx_ack_any || h.ack > fo.tx_ack_max)
			fo.tx_ack_max = h.ack;
		fo.tx_ack_any = true;
		retrans = (h.flags & FZ_FLAG_RETRANSMITTED) != 0;
		if (h.flags == FZ_FLAG_CONG_BITMAP) {
			fo_tx_map(t);
			continue;
		}
		FZ_CHECK(!(h.flags & FZ_FLAG_CONG_BITMAP), "core sent flags "
			 "0x%x (CONG_BITMAP on a frame that is not a map)",
			 h.flags);
		if (h.sport == 0 && h.dport == 0 && h.len == 0) {
			fo.n.tx_acks++;
			continue;
		}
		if (h.sport == 0)
			fo_tx_pong(&h, retrans);
		else
			fo_tx_data(t, &h, retrans);
	}
	fo_txq_clear();
}

bool
fo_tx_owed(void)
{
	unsigned int i;

	if (fo.ack_pending_set)
		return true;
	for (i = 0; i < fo.nping; i++)
		if (fo.ping[i].got < fo.ping[i].min)
			return true;
	for (i = 0; i < fo.nsent; i++)
		if (!fo.sent[i].on_wire)
			return true;
	return false;
}

/* ------------------------------------------------------------------ */
/* The end */

#define FO_RANGE(st, name, lo, hi) \
	FZ_CHECK((st)->name >= (lo) && (st)->name <= (hi), \
		 "counter " #name " is %llu, expected %llu..%llu", \
		 U64((st)->name), U64(lo), U64(hi))

void
fo_finish(const struct rte_rds_stats *st, uint64_t extra)
{
	unsigned int i, k, last_yes;

	fo_settle_tx();
	/* Some position of the matching must have every frame that had to
	 * be delivered behind it. */
	for (k = 0; k < fo.nsk; k++) {
		last_yes = UINT32_MAX;
		for (i = 0; i < fo.nfr; i++)
			if (fo.fr[i].sock == (int)k &&
			    fo.fr[i].deliver == FO_YES)
				last_yes = i;
		if (last_yes == UINT32_MAX)
			continue;
		for (i = last_yes + 1; i <= fo.nfr; i++)
			if (hyp_test(fo.sk[k].hyp, i))
				break;
		if (i <= fo.nfr)
			continue;
		for (i = 0; i < fo.nfr; i++) {
			const struct fo_frame *f = &fo.fr[i];

			FZ_CHECK(f->sock != (int)k || f->deliver != FO_YES ||
				 f->matched, "frame %u (step %u, seq %llu, "
				 "sport %u, dport %u, len %u) had to be "
				 "delivered and never arrived", i, f->step,
				 U64(f->h.seq), f->h.sport, f->h.dport,
				 f->len);
		}
		fz_fail("socket port %u: a frame that had to be delivered "
			"(the last: %u, step %u) never arrived", fo.sk[k].port,
			last_yes, fo.fr[last_yes].step);
	}
	FZ_CHECK(!fo.ack_pending_set, "sequence %llu was accepted and never "
		 "acknowledged (the last ACK covers less)",
		 U64(fo.ack_pending));
	for (i = 0; i < fo.nsent; i++)
		FZ_CHECK(fo.sent[i].on_wire, "message %u sent from port %u "
			 "to %u never went out", i, fo.sent[i].sport,
			 fo.sent[i].dport);
	for (i = 0; i < fo.nping; i++)
		FZ_CHECK(fo.ping[i].got >= fo.ping[i].min,
			 "port %u sent %u ping(s) that were accepted, got %u "
			 "pong(s)", fo.ping[i].port, fo.ping[i].min,
			 fo.ping[i].got);

	/* Counters: what the core reports must agree with what it did. */
	FO_RANGE(st, s_recv_delivered, fo.n.delivered, fo.n.delivered);
	FO_RANGE(st, s_recv_drop_bad_hdr, fo.n.refused, fo.n.refused);
	FO_RANGE(st, s_recv_ack, fo.n.c_ack, fo.n.c_ack + fo.n.c_odd + extra);
	FO_RANGE(st, s_recv_cong_map, fo.n.c_map, fo.n.c_map + fo.n.c_odd);
	FO_RANGE(st, s_recv_drop_old_seq, fo.n.dup_yes, fo.n.dup_maybe);
	FO_RANGE(st, s_recv_ping, fo.n.ping_yes, fo.n.ping_maybe);
	FO_RANGE(st, s_recv_drop_no_sock, fo.n.nosock_yes,
		 fo.n.nosock_maybe + extra);
	FO_RANGE(st, s_send_pong, fo.n.tx_pongs, fo.n.tx_pongs);
	FZ_CHECK(st->s_send_ack >= fo.n.tx_acks, "counter s_send_ack is %llu, "
		 "%llu ACK-only frames went out", U64(st->s_send_ack),
		 U64(fo.n.tx_acks));
	FZ_CHECK(st->s_send_cong_map >= fo.n.tx_maps, "counter s_send_cong_map "
		 "is %llu, %llu maps went out", U64(st->s_send_cong_map),
		 U64(fo.n.tx_maps));
	FZ_CHECK(st->s_recv_ack + st->s_recv_cong_map +
		 st->s_recv_drop_old_seq + st->s_recv_ping +
		 st->s_recv_delivered + st->s_recv_drop_no_sock +
		 st->s_recv_drop_dead_sock + st->s_recv_drop_nomem <=
		 fo.n.accepted + fo.n.other + extra,
		 "receive counters add up to more than the %llu frames taken",
		 U64(fo.n.accepted + fo.n.other + extra));
	FZ_CHECK(st->s_recv_ack + st->s_recv_cong_map +
		 st->s_recv_drop_old_seq + st->s_recv_ping +
		 st->s_recv_delivered + st->s_recv_drop_no_sock +
		 st->s_recv_drop_dead_sock + st->s_recv_drop_nomem >=
		 fo.n.accepted, "receive counters add up to less than the "
		 "%llu frames taken", U64(fo.n.accepted));
}

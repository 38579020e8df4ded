/* SPDX-License-Identifier: BSD-3-Clause */
/* The receive-path oracle (see fuzz_oracle.h). */
#include "fuzz_oracle_int.h"

struct fo fo;

void
fo_txq_clear(void)
{
	unsigned int i;

	for (i = 0; i < fo.ntxq; i++)
		free(fo.txq[i].map);
	fo.ntxq = 0;
}

void
fo_reset(uint32_t laddr, uint32_t faddr)
{
	uint8_t *arena = fo.arena;
	struct fo_pending_tx *txq = fo.txq;
	unsigned int cap = fo.txq_cap;
	void (*hook)(const struct fo_frame *, bool) = fo.deliver_hook;

	fo_txq_clear();
	/* Everything up to the frame table, then the few fields past it. */
	memset(&fo, 0, offsetof(struct fo, fr));
	fo.nfr = 0;
	fo.arena_used = 0;
	fo.nsk = 0;
	fo.nsent = 0;
	memset(&fo.n, 0, sizeof(fo.n));
	fo.nping = 0;
	fo.ping_overflow = false;
	fo.nwire = 0;
	fo.wire_acked = 0;
	fo.polled_since_map = true;
	fo.tx_last_seq = 0;
	fo.peer_acked = 0;
	fo.resets = false;
	fo.ntxq = 0;
	fo.txq = txq;
	fo.txq_cap = cap;
	fo.deliver_hook = hook;
	if (arena == NULL) {
		arena = malloc(FO_ARENA_BYTES);
		if (arena == NULL)
			fz_fail("oracle: no memory for the arena");
	}
	fo.arena = arena;
	fo.laddr = laddr;
	fo.faddr = faddr;
	fo.rx_any = false;
}

void
fo_set_stable(const uint8_t *p, size_t n)
{
	fo.stable = p;
	fo.stable_len = n;
}

int
fo_add_sock(int id, uint32_t laddr, uint16_t port)
{
	struct fo_sock *s;

	if (fo.nsk >= FO_MAX_SOCKS)
		fz_fail("oracle: too many sockets");
	s = &fo.sk[fo.nsk];
	memset(s, 0, sizeof(*s));
	hyp_set(s->hyp, 0);
	s->id = id;
	s->laddr = laddr;
	s->port = port;
	return (int)fo.nsk++;
}

int
fo_sock_at(uint32_t laddr, uint16_t port)
{
	unsigned int i;

	for (i = 0; i < fo.nsk; i++)
		if (fo.sk[i].laddr == laddr && fo.sk[i].port == port)
			return (int)i;
	return -1;
}

bool
fo_room(uint32_t len)
{
	return fo.nfr < FO_MAX_FRAMES &&
	       fo.arena_used + len <= FO_ARENA_BYTES;
}

void
fo_polled(void)
{
	fo.polled_since_map = true;
}

/* ------------------------------------------------------------------ */
/* Pings and pongs */

struct fo_ping *
fo_ping_of(uint16_t port)
{
	unsigned int i;

	for (i = 0; i < fo.nping; i++)
		if (fo.ping[i].port == port)
			return &fo.ping[i];
	if (fo.nping >= FO_MAX_PING_PORTS) {
		fo.ping_overflow = true;
		return NULL;
	}
	memset(&fo.ping[fo.nping], 0, sizeof(fo.ping[0]));
	fo.ping[fo.nping].port = port;
	return &fo.ping[fo.nping++];
}

/* ------------------------------------------------------------------ */
/* Frames from the peer */

/* The next expected sequence may now also be v. */
static void
fo_rx_widen(uint64_t v)
{
	if (!fo.rx_any) {
		/* It was 0 (nothing sequenced yet): the range is [0, v]. */
		fo.rx_lo = RTE_MIN((uint64_t)0, v);
		fo.rx_hi = v;
		fo.rx_any = true;
		return;
	}
	fo.rx_lo = RTE_MIN(fo.rx_lo, v);
	fo.rx_hi = RTE_MAX(fo.rx_hi, v);
}

static void
fo_rx_set(uint64_t v)
{
	fo.rx_lo = fo.rx_hi = v;
	fo.rx_any = true;
}

/* Is seq certainly / perhaps below the next expected sequence? */
static enum fo_tri
fo_rx_below(uint64_t seq)
{
	uint64_t lo = fo.rx_any ? fo.rx_lo : 0, hi = fo.rx_any ? fo.rx_hi : 0;

	if (seq < lo)
		return FO_YES;
	if (seq < hi)
		return FO_MAYBE;
	return FO_NO;
}

static void
fo_ack_bound(uint64_t seq)
{
	if (!fo.ack_bound_set || seq > fo.ack_bound)
		fo.ack_bound = seq;
	fo.ack_bound_set = true;
}

/* An ACK the core certainly applied: what it covers is released and must
 * never go out again. */
static void
fo_peer_ack(uint64_t ack)
{
	while (fo.wire_acked < fo.nwire &&
	       fo.sent[fo.wire[fo.wire_acked]].seq <= ack) {
		fo.sent[fo.wire[fo.wire_acked]].acked = true;
		fo.wire_acked++;
	}
	if (ack > fo.peer_acked)
		fo.peer_acked = ack;
}

static const char *
fo_why_malformed(const struct fo_frame *f, const uint8_t *hdr, uint32_t len)
{
	if (!fz_hdr_csum_ok(hdr))
		return "bad header checksum";
	if (f->h.len != len)
		return "header length differs from the payload's";
	if (len > FZ_MAX_MSG)
		return "length over 1 MiB";
	return NULL;
}

/* The sequenced part of an accepted frame: the duplicate rule, pings,
 * delivery. sure: the frame is certainly sequenced. */
static void
fo_sequenced(struct fo_frame *f, bool sure)
{
	bool retrans = (f->h.flags & FZ_FLAG_RETRANSMITTED) != 0;
	enum fo_tri below = fo_rx_below(f->h.seq), taken;
	struct fo_ping *p;

	/* rds_recv_incoming: dropped only when old and retransmitted. */
	f->dup = retrans ? below : FO_NO;
	if (f->dup == FO_YES) {
		taken = FO_NO;
	} else if (f->dup == FO_MAYBE || !sure) {
		taken = FO_MAYBE;
		fo_rx_widen(f->h.seq + 1);
	} else {
		taken = FO_YES;
		fo_rx_set(f->h.seq + 1);
	}
	if (f->dup == FO_YES && sure)
		fo.n.dup_yes++;
	if (f->dup != FO_NO)
		fo.n.dup_maybe++;
	fo_ack_bound(f->h.seq);
	/* The ACK names the last sequence received (rds_ib_set_ack), not
	 * the highest: a peer that numbers from 1 again is acknowledged
	 * from there. */
	if (taken == FO_YES) {
		if (f->h.seq == 0) {
			/* Sequences start at 1: an ACK of 0 acknowledges
			 * nothing, so none is owed. */
			fo.ack_pending_set = false;
		} else if (!fo.tx_ack_any || f->h.seq > fo.tx_ack_max) {
			/* Accepted and not yet covered by an ACK (they
			 * are cumulative): one must follow. */
			fo.ack_pending = f->h.seq;
			fo.ack_pending_set = true;
		} else {
			/* Below an ACK already sent: covered. */
			fo.ack_pending_set = false;
		}
	} else if (taken == FO_MAYBE && fo.ack_pending_set &&
		   f->h.seq < fo.ack_pending) {
		/* If it was taken, the ACK owed names it (none for 0). */
		if (f->h.seq == 0)
			fo.ack_pending_set = false;
		else
			fo.ack_pending = f->h.seq;
	}
	if (taken == FO_NO)
		return;
	if (f->h.dport == 0) {
		/* A ping: a pong to its source port, none from port 0. */
		if (f->h.sport != 0) {
			p = fo_ping_of(f->h.sport);
			if (p != NULL) {
				p->max++;
				if (taken == FO_YES)
					p->min++;
			}
			if (taken == FO_YES)
				fo.n.ping_yes++;
		}
		fo.n.ping_maybe++;
		return;
	}
	f->sock = fo_sock_at(fo.laddr, f->h.dport);
	if (f->sock < 0 ||
	    (f->h.dport == 1 && f->h.sport == 0)) {
		/* Unbound (or the kernel's handshake pong): discarded. */
		f->sock = -1;
		if (taken == FO_YES)
			fo.n.nosock_yes++;
		fo.n.nosock_maybe++;
		return;
	}
	f->deliver = taken;
	if (fo.deliver_hook != NULL)
		fo.deliver_hook(f, false);
}

void
fo_inject(const uint8_t hdr[FZ_HDR_SIZE], const uint8_t *payload,
	  uint32_t len, int ret)
{
	struct fo_frame *f;
	const char *why;
	bool cong, must_accept;

	if (!fo_room(len))
		fz_fail("oracle: frame table full (harness bug)");
	f = &fo.fr[fo.nfr++];
	memset(f, 0, sizeof(*f));
	f->step = fz_step;
	f->sock = -1;
	fz_hdr_decode(hdr, &f->h);
	fz_ext_view(f->h.ext, &f->ext);
	f->len = len;
	if (len != 0 && payload >= fo.stable &&
	    (size_t)(payload - fo.stable) + len <= fo.stable_len) {
		f->data = payload;
	} else {
		f->data = fo.arena + fo.arena_used;
		if (len != 0)
			memcpy(fo.arena + fo.arena_used, payload, len);
	}
	/* Counted either way: the frames an input can inject are the
	 * same whether their payloads are copied or not. */
	fo.arena_used += len;
	fo.n.injected++;

	why = fo_why_malformed(f, hdr, len);
	cong = (f->h.flags & FZ_FLAG_CONG_BITMAP) != 0;
	must_accept = why == NULL && f->ext.clean &&
		      (!cong || (f->h.flags == FZ_FLAG_CONG_BITMAP &&
				 len == FZ_CONG_MAP_BYTES));
	if (ret == -EBADMSG) {
		FZ_CHECK(!must_accept, "a well formed frame was refused "
			 "(seq %llu sport %u dport %u flags 0x%x len %u)",
			 U64(f->h.seq), f->h.sport, f->h.dport, f->h.flags, len);
		f->cls = FO_C_BAD;
		fo.n.refused++;
		goto out;
	}
	if (ret == -ENOMEM) {
		/* Not kept (the transport fails the connection). */
		f->cls = FO_C_BAD;
		fo.n.other++;
		goto out;
	}
	FZ_CHECK(ret == 0, "rds_recv_frame returned %d", ret);
	FZ_CHECK(why == NULL, "a malformed frame was accepted: %s "
		 "(seq %llu len %u, header says %u)", why, U64(f->h.seq),
		 len, f->h.len);
	fo.n.accepted++;

	if (cong && f->h.flags == FZ_FLAG_CONG_BITMAP &&
	    len == FZ_CONG_MAP_BYTES) {
		/* The peer's congestion map: not sequenced, not delivered. */
		f->cls = FO_C_MAP;
		fo.n.c_map++;
		memcpy(fo.peer_cong, payload, FZ_CONG_MAP_BYTES);
		fo.map_unsure = false;
		fo.polled_since_map = false;
	} else if (cong) {
		/* Either a map (IB takes any CONG_BITMAP frame as one), an
		 * ACK-only frame, or data (TCP takes only exactly
		 * CONG_BITMAP as a map). */
		f->cls = FO_C_ODD;
		fo.n.c_odd++;
		fo.map_unsure = true;
		fo_sequenced(f, false);
	} else if (f->h.sport == 0 && f->h.dport == 0 && len == 0) {
		f->cls = FO_C_ACK;
		fo.n.c_ack++;
		fo_peer_ack(f->h.ack);
	} else {
		f->cls = FO_C_SEQ;
		fo.n.c_seq++;
		fo_sequenced(f, true);
		if (f->dup == FO_NO)
			fo_peer_ack(f->h.ack);
	}
out:
	fo_settle_tx();
}

/* ------------------------------------------------------------------ */
/* Messages received */

static bool
fo_cookie_ok(const struct fo_frame *f, enum fo_cookie ck, uint64_t cookie)
{
	unsigned int k;

	if (ck == FO_CK_UNKNOWN)
		return true;
	if (ck == FO_CK_SOME) {
		for (k = 0; k < f->ext.n_dest; k++)
			if (f->ext.dest[k] == cookie)
				return true;
		return false;
	}
	/* None reported: fine unless every reading finds a non-zero one
	 * (the kernel passes a cookie of 0 on as none). */
	return !(f->ext.n_dest_strict != 0 &&
		 f->ext.dest[f->ext.n_dest_strict - 1] != 0 &&
		 f->ext.dest[f->ext.n_dest - 1] != 0);
}

static bool
fo_match(const struct fo_frame *f, uint16_t from_port, const uint8_t *data,
	 uint32_t copied, uint32_t full_len)
{
	return f->h.sport == from_port && f->len == full_len &&
	       copied <= full_len &&
	       (copied == 0 || memcmp(f->data, data, copied) == 0);
}

/*
 * A received message moves every position of the matching to just past
 * each frame it may be: a frame of this socket, perhaps or certainly
 * delivered, that looks like it, with no frame that had to be delivered
 * in between (that would be lost or out of order). One sweep: a
 * position is alive from where it is to the next frame that had to be
 * delivered.
 */
void
fo_received(int si, uint32_t from_addr, uint16_t from_port,
	    const uint8_t *data, uint32_t copied, uint32_t full_len,
	    enum fo_cookie ck, uint64_t cookie)
{
	struct fo_sock *s = &fo.sk[si];
	uint64_t next[RTE_DIM(s->hyp)];
	unsigned int i, ncand = 0, cand = 0, first_yes = UINT32_MAX;
	bool alive = false, cookie_bad = false;
	struct fo_frame *f;

	fo.n.delivered++;
	s->received++;
	FZ_CHECK(from_addr == fo.faddr && s->laddr == fo.laddr,
		 "socket %d (port %u) received a message from 0x%08x:%u, "
		 "which sent it nothing", s->id, s->port,
		 (unsigned int)from_addr, from_port);
	memset(next, 0, sizeof(next));
	for (i = 0; i < fo.nfr; i++) {
		if (hyp_test(s->hyp, i))
			alive = true;
		if (!alive)
			continue;
		f = &fo.fr[i];
		if (f->sock != si || f->deliver == FO_NO)
			continue;
		if (fo_match(f, from_port, data, copied, full_len)) {
			if (fo_cookie_ok(f, ck, cookie)) {
				hyp_set(next, i + 1);
				ncand++;
				cand = i;
			} else {
				cookie_bad = true;
			}
		}
		if (f->deliver == FO_YES) {
			if (first_yes == UINT32_MAX)
				first_yes = i;
			alive = false;
		}
	}
	if (ncand == 0) {
		FZ_CHECK(!cookie_bad, "socket port %u: a message (from port "
			 "%u, %u bytes) arrived with RDMA_DEST cookie %s0x%llx, "
			 "not the one its frame carried", s->port, from_port,
			 full_len, ck == FO_CK_NONE ? "none, not " : "",
			 U64(cookie));
		for (i = 0; i < fo.nfr; i++) {
			f = &fo.fr[i];
			if (f->sock == -1 && f->dup == FO_YES &&
			    f->h.dport == s->port && fo.laddr == s->laddr &&
			    fo_match(f, from_port, data, copied, full_len))
				fz_fail("socket port %u received a message (from "
					"port %u, %u bytes) like frame %u (step %u, "
					"seq %llu), which was RETRANSMITTED below "
					"the next expected sequence: a duplicate "
					"must be dropped", s->port, from_port,
					full_len, i, f->step, U64(f->h.seq));
		}
		if (first_yes != UINT32_MAX)
			fz_fail("socket port %u: frame %u (step %u, seq %llu, "
				"len %u) had to be delivered before this "
				"message (from port %u, %u bytes): lost or out "
				"of order", s->port, first_yes,
				fo.fr[first_yes].step,
				U64(fo.fr[first_yes].h.seq),
				fo.fr[first_yes].len, from_port, full_len);
		fz_fail("socket port %u received a message (from port %u, %u "
			"bytes) that matches no frame injected to it (or one "
			"delivered twice)", s->port, from_port, full_len);
	}
	memcpy(s->hyp, next, sizeof(next));
	if (ncand == 1) {
		fo.fr[cand].matched = true;
		if (fo.deliver_hook != NULL)
			fo.deliver_hook(&fo.fr[cand], true);
		return;
	}
	/* One of several: each perhaps. */
	for (i = 0; i < fo.nfr && fo.deliver_hook != NULL; i++)
		if (hyp_test(next, i + 1))
			fo.deliver_hook(&fo.fr[i], false);
}

/* ------------------------------------------------------------------ */
/* Sending */

void
fo_send(int si, uint16_t dport, const uint8_t *data, uint32_t len, long ret,
	int err)
{
	struct fo_sent *m;
	bool cong = (fo.peer_cong[dport / 64] >> (dport % 64)) & 1;
	bool sure = !fo.map_unsure && fo.polled_since_map;

	if (ret < 0) {
		FZ_CHECK(err == EAGAIN || err == ENOBUFS,
			 "send to port %u failed with errno %d", dport, err);
		FZ_CHECK(err != ENOBUFS || !sure || cong,
			 "send to port %u: ENOBUFS, but the peer's map says "
			 "it is not congested", dport);
		FZ_CHECK(err == ENOBUFS || !sure || !cong,
			 "send to port %u: errno %d, but the peer's map says "
			 "it is congested (ENOBUFS)", dport, err);
		return;
	}
	FZ_CHECK(!sure || !cong, "send to port %u succeeded, but the peer's "
		 "map says it is congested", dport);
	FZ_CHECK(ret == (long)len, "send returned %ld for %u bytes", ret, len);
	if (fo.nsent >= FO_MAX_SENT)
		fz_fail("oracle: too many messages sent (harness bug)");
	m = &fo.sent[fo.nsent++];
	memset(m, 0, sizeof(*m));
	m->sock = si;
	m->sport = fo.sk[si].port;
	m->dport = dport;
	m->len = len;
	m->hash = fz_hash(data, len);
}

void
fo_reset_conn(void)
{
	fo.resets = true;
}


/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multipath lanes (net/rds MPRDS: connection.c c_path[], recv.c
 * rds_recv_hs_exthdrs and rds_start_mprds, send.c rds_send_mprds_hash
 * and rds_send_probe) on a transport that offers them (max_lanes: tcp
 * with lanes=N). Each lane is a connection of its own, keyed by its
 * lane number, with its own sequence space, retransmit queue and
 * transport connection, as the kernel's rds_conn_path; lane 0's
 * connection holds what the pair agreed on.
 *
 * The handshake: when lane 0 comes up we send a probe ping (sport
 * RDS_FLAG_PROBE_PORT, dport 0), and the pong to a probe ping goes
 * from port 0 to RDS_FLAG_PROBE_PORT; both carry NPATHS (the lanes we
 * offer), GEN_NUM (this instance's, random, not 0) and SPORT_IDX (we
 * encode the lane in our source port). The pair uses min(ours, the
 * peer's) lanes, one when the peer sends no NPATHS. Only the lower
 * address opens lanes, one after the other in lane order (the
 * transport holds lane k until lane k-1 is up). A change of the peer's
 * GEN_NUM (it restarted) starts every lane's sequences again and drops
 * what waits for the old peer's acknowledgement (rds_conn_peer_gen_update).
 *
 * A message goes on lane (source port mod lanes): a socket's messages
 * to one destination share a lane and keep their order. Before the
 * handshake everything goes on lane 0, and a socket keeps the
 * connection it last sent on (rds_send_request's cache) until it sends
 * to another destination: its order is never split across lanes.
 */
#include <rte_random.h>

#include "rds_private.h"

static uint32_t rds_gen_num;

/* This instance's GEN_NUM: random, never 0 (0 means none). */
RTE_INIT(rds_gen_num_init)
{
	do {
		rds_gen_num = (uint32_t)rte_rand();
	} while (rds_gen_num == 0);
}

unsigned int
rds_conn_max_lanes(const struct rds_conn *c)
{
	unsigned int n;

	if (c->trans->max_lanes == NULL)
		return 1;
	n = c->trans->max_lanes(c);
	return RTE_MAX(1u, RTE_MIN(n, (unsigned int)RDS_MAX_LANES));
}

static struct rds_conn *
rds_conn_lane_lookup(struct rds_conn *c, unsigned int lane, bool create)
{
	struct rds_conn_key key = c->key;

	key.lane = (uint16_t)lane;
	return create ? rds_conn_get(c->eng, &key) :
		rds_conn_lookup(c->eng, &key);
}

struct rds_conn *
rds_conn_lane0(struct rds_conn *c)
{
	struct rds_conn *c0;

	if (c->key.lane == 0)
		return c;
	c0 = rds_conn_lane_lookup(c, 0, true);
	return c0 != NULL ? c0 : c;
}

struct rds_conn *
rds_conn_lane_pick(struct rds_conn *c0, uint16_t sport)
{
	unsigned int lane = sport % c0->npaths;
	struct rds_conn *c;
	struct rds_msg *m;

	if (lane == 0)
		return c0;
	if (unlikely(!c0->lanes_spread)) {
		/* Lane 0 catches up first (as the kernels with the source
		 * port encoding: c_cp0_mprds_catchup_tx_seq): what it
		 * carried before the handshake is acknowledged before a
		 * later message can take another lane and overtake it. */
		m = TAILQ_FIRST(&c0->retrans_q);
		if (m == NULL)
			m = TAILQ_FIRST(&c0->send_q);
		if (m != NULL && m->seq != 0 && m->seq <= c0->lanes_catchup_seq)
			return c0;
		c0->lanes_spread = true;
	}
	c = rds_conn_lane_lookup(c0, lane, true);
	return c != NULL ? c : c0;
}

static void
rds_conn_send_probe(struct rds_conn *c)
{
	struct rds_msg *m = rds_msg_alloc(0);

	if (m == NULL)
		return;
	m->type = RDS_MSG_PONG;	/* the engine's own, as a pong */
	m->laddr = c->key.laddr;
	m->faddr = c->key.faddr;
	m->sport = RDS_FLAG_PROBE_PORT;
	m->dport = 0;
	rds_send_enqueue(c, m);
	rds_stat_inc(c->eng, s_send_ping);
}

void
rds_conn_lanes_up(struct rds_conn *c)
{
	struct rds_conn *c0 = rds_conn_lane0(c), *next;

	if (rds_conn_max_lanes(c0) <= 1)
		return;
	if (c->key.lane == 0)
		rds_conn_send_probe(c);
	/* The next lane of the lower address connects now (it waited for
	 * this one). */
	if (c0->npaths > c->key.lane + 1u &&
	    memcmp(&c->key.laddr, &c->key.faddr, sizeof(c->key.laddr)) < 0) {
		next = rds_conn_lane_lookup(c0, c->key.lane + 1u, true);
		if (next != NULL)
			rds_conn_connect_now(next);
	}
}

/* The peer restarted (its GEN_NUM changed): every lane's sequences start
 * again, and what waited for the old peer's acknowledgement is dropped
 * (the kernel flushes it: RDS_MSG_FLUSH), its RDMA notified DROPPED. */
static void
rds_conn_lanes_gen_reset(struct rds_conn *c0)
{
	struct rds_conn *c;
	struct rds_msg *m;
	unsigned int i;

	for (i = 0; i < RDS_MAX_LANES; i++) {
		c = rds_conn_lane_lookup(c0, i, false);
		if (c == NULL)
			continue;
		c->next_tx_seq = 1;
		c->next_rx_seq = 0;
		c->tx_epoch++;
		/* What waits to go is stamped again, from 1: the
		 * sequences stay in the order they go. */
		TAILQ_FOREACH(m, &c->send_q, link)
			if (m->seq != 0 && m != c->xmit_cur)
				m->seq = c->next_tx_seq++;
		while ((m = TAILQ_FIRST(&c->retrans_q)) != NULL) {
			TAILQ_REMOVE(&c->retrans_q, m, link);
			if (m->op != NULL)
				rds_rdma_notify(c->eng, m, RDS_RDMA_DROPPED);
			rds_send_release(c->eng, m);
			rds_stat_inc(c->eng, s_send_lane_flushed);
		}
	}
	rds_stat_inc(c0->eng, s_conn_peer_restart);
}

void
rds_conn_lanes_hs(struct rds_conn *c, const struct rds_hdr_info *h)
{
	struct rds_conn *c0 = rds_conn_lane0(c), *l1;
	unsigned int max = rds_conn_max_lanes(c0), n;

	if (max <= 1)
		return;
	if (h->ext_mask & (1u << RDS_EXTHDR_NPATHS))
		n = RTE_MAX(1u, RTE_MIN(max, (unsigned int)h->ext_npaths));
	else
		n = RTE_MAX(1u, (unsigned int)c0->npaths);
	c0->peer_sport_idx = (h->ext_mask & (1u << RDS_EXTHDR_SPORT_IDX)) != 0;
	if ((h->ext_mask & (1u << RDS_EXTHDR_GEN_NUM)) && h->ext_gen_num != 0) {
		if (c0->peer_gen_num != 0 && c0->peer_gen_num != h->ext_gen_num)
			rds_conn_lanes_gen_reset(c0);
		c0->peer_gen_num = h->ext_gen_num;
	}
	if (c0->npaths != n) {
		RDS_LOG(DEBUG, "conn %s: %u lane(s)", c0->trans->name, n);
		c0->lanes_catchup_seq = c0->next_tx_seq - 1;
		c0->lanes_spread = false;
	}
	c0->npaths = (uint8_t)n;
	/* rds_start_mprds: the lower address opens the lanes, lane 1
	 * first (rds_conn_lanes_up chains the rest). */
	if (n > 1 && memcmp(&c0->key.laddr, &c0->key.faddr,
		   sizeof(c0->key.laddr)) < 0 &&
	    c0->state == RDS_CONN_UP) {
		l1 = rds_conn_lane_lookup(c0, 1, true);
		if (l1 != NULL)
			rds_conn_connect_now(l1);
	}
}

void
rds_conn_lanes_hdr(const struct rds_conn *c, struct rds_header *h)
{
	unsigned int max;
	rte_be16_t np;
	rte_be32_t gen;
	uint8_t idx = 0;

	if (c->trans->max_lanes == NULL)
		return;
	max = rds_conn_max_lanes(c);
	if (max <= 1)
		return;
	np = rte_cpu_to_be_16((uint16_t)max);
	gen = rte_cpu_to_be_32(rds_gen_num);
	/* In the kernel's order; SPORT_IDX last and 0, so that a kernel
	 * that does not know it (its size 0) reads its byte as the end. */
	rds_hdr_add_ext(h, RDS_EXTHDR_NPATHS, &np, sizeof(np));
	rds_hdr_add_ext(h, RDS_EXTHDR_GEN_NUM, &gen, sizeof(gen));
	rds_hdr_add_ext(h, RDS_EXTHDR_SPORT_IDX, &idx, sizeof(idx));
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The eth transport's ops table, the engine poll (receive: faults, ARP,
 * parse, hand-off to the owning engine) and flush (one rte_eth_tx_burst
 * per port per pass), the connection ops and the fault-injection API.
 * Options and ports: rds_eth_port.c; counters: rds_eth_stats.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <arpa/inet.h>

#include <rte_ethdev.h>
#include <rte_kvargs.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "rds_eth.h"

RTE_LOG_REGISTER(rds_eth_logtype, pmd.rds.eth, INFO);

/* Connecting: how often to look for the peer's MAC, and for how long. */
#define RDS_ETH_RESOLVE_US 1000
#define RDS_ETH_RESOLVE_TRIES 3000

struct rds_eth_port **rds_eth_ports;
unsigned int rds_eth_nb_ports;
unsigned int rds_eth_slot;
bool rds_eth_wanted;

/* Fault settings written by the application, read by engines. */
static rte_spinlock_t rds_eth_faults_lock = RTE_SPINLOCK_INITIALIZER;
static struct rte_rds_eth_faults rds_eth_faults;
static uint32_t rds_eth_faults_gen;

unsigned int
rds_eth_port_index(const struct rds_eth_port *p)
{
	return p->index;
}

void
rds_eth_faults_reset(void)
{
	rte_spinlock_lock(&rds_eth_faults_lock);
	memset(&rds_eth_faults, 0, sizeof(rds_eth_faults));
	rds_eth_faults_gen++;
	rte_spinlock_unlock(&rds_eth_faults_lock);
}

/* ------------------------------------------------------------------ */
/* Engines */

static int
rds_eth_engine_init(struct rds_engine *e)
{
	struct rds_eth_engine *ee;
	unsigned int i;

	e->tp[rds_eth_slot] = NULL;
	if (!rds_eth_wanted)
		return 0;
	ee = rds_mem_zalloc("rds_eth_engine", sizeof(*ee));
	if (ee == NULL)
		return -ENOMEM;
	e->tp[rds_eth_slot] = ee;
	ee->port = rds_mem_zalloc("rds_eth_eport", sizeof(*ee->port) *
				  RTE_MAX(rds_eth_nb_ports, 1u));
	ee->poll = rds_mem_zalloc("rds_eth_poll", sizeof(*ee->poll) *
				  RTE_MAX(rds_eth_nb_ports, 1u));
	ee->fault = rds_eth_fault_create(0x5eed0000ULL + e->id);
	if (ee->port == NULL || ee->poll == NULL || ee->fault == NULL)
		return -ENOMEM;
	for (i = 0; i < rds_eth_nb_ports; i++) {
		struct rds_eth_eport *ep = &ee->port[i];
		struct rds_eth_port *p = rds_eth_ports[i];

		ep->p = p;
		ep->rxq = p->rxq_of[e->id];
		ep->home = p->home == e->id;
		ep->txq = (uint16_t)(p->txq_base + e->id % p->nb_txq);
		ep->tx_lock = &p->tx_lock[ep->txq - p->txq_base];
		ep->watch = ep->home && p->relink;
		/* The home engine polls a port's first queue: every port
		 * it watches is polled. */
		if (ep->rxq >= 0)
			ee->poll[ee->nb_poll++] = ep;
	}
	ee->faults_gen = UINT32_MAX;
	TAILQ_INIT(&ee->acks);
	if (rds_eth_steer_engine_init(e, ee) != 0)
		return -ENOMEM;
	rds_engine_poll_transport(e, &rds_eth_transport);
	return 0;
}

static void
rds_eth_engine_fini(struct rds_engine *e)
{
	struct rds_eth_engine *ee = rds_eth_engine(e);
	unsigned int i;
	uint16_t k;

	if (ee == NULL)
		return;
	for (i = 0; ee->port != NULL && i < rds_eth_nb_ports; i++) {
		for (k = 0; k < ee->port[i].n; k++)
			rte_pktmbuf_free(ee->port[i].pkts[k]);
		if (ee->port[i].nb_stash != 0)
			rte_mempool_put_bulk(ee->port[i].p->pool,
					     (void **)ee->port[i].stash,
					     ee->port[i].nb_stash);
	}
	if (ee->fault != NULL) {
		rds_eth_fault_flush(ee->fault);
		rds_eth_fault_free(ee->fault);
	}
	rds_eth_steer_engine_fini(ee);
	rds_mem_free(ee->port);
	rds_mem_free(ee->poll);
	rds_mem_free(ee);
	e->tp[rds_eth_slot] = NULL;
}

/* Send what is queued on port index pi (something is). Frames the PMD
 * does not take stay queued for the next flush, in order. */
static void
rds_eth_tx_flush_port(struct rds_eth_engine *ee, unsigned int pi)
{
	struct rds_eth_eport *ep = &ee->port[pi];
	struct rds_eth_port *p = ep->p;
	uint16_t sent;

	/* Never on a port being restarted (rds_eth_link_check): its frames
	 * wait here. The lock also serialises engines sharing a queue. */
	if (unlikely(__atomic_load_n(&p->restarting, __ATOMIC_ACQUIRE)))
		return;
	rte_spinlock_lock(ep->tx_lock);
	if (unlikely(__atomic_load_n(&p->restarting, __ATOMIC_ACQUIRE))) {
		rte_spinlock_unlock(ep->tx_lock);
		return;
	}
	sent = rte_eth_tx_burst(p->port_id, ep->txq, ep->pkts, ep->n);
	rte_spinlock_unlock(ep->tx_lock);
	ee->stats.tx_frames += sent;
	if (unlikely(sent < ep->n)) {
		/* Each frame counts once, however many passes it waits (a
		 * peer gone: the PMD refuses every burst for seconds). */
		uint16_t old = ep->refused > sent ? ep->refused - sent : 0;

		ee->stats.tx_full += ep->n - sent - old;
		ep->refused = ep->n - sent;
		memmove(ep->pkts, ep->pkts + sent,
			sizeof(ep->pkts[0]) * (ep->n - sent));
	} else {
		ep->refused = 0;
	}
	ep->n -= sent;
}

void
rds_eth_tx(struct rds_engine *e, struct rds_eth_port *p, struct rte_mbuf *m)
{
	struct rds_eth_engine *ee = rds_eth_engine(e);
	unsigned int pi = rds_eth_port_index(p);
	struct rds_eth_eport *tq = &ee->port[pi];

	if (unlikely(tq->n == RDS_ETH_TX_BURST)) {
		rds_eth_tx_flush_port(ee, pi);
		if (tq->n == RDS_ETH_TX_BURST) {
			/* The PMD takes nothing: the frame is lost here;
			 * sequenced ones go again by the retransmit timer. */
			ee->stats.tx_full++;
			rte_pktmbuf_free(m);
			return;
		}
	}
	tq->pkts[tq->n++] = m;
}

/* End of a pass: the ACKs due, then every port's batch. */
static void
rds_eth_flush(struct rds_engine *e)
{
	struct rds_eth_engine *ee = rds_eth_engine(e);
	unsigned int i;

	if (ee == NULL)
		return;
	if (!TAILQ_EMPTY(&ee->acks))
		rds_eth_rel_flush_acks(e);
	for (i = 0; i < rds_eth_nb_ports; i++)
		if (ee->port[i].n != 0)
			rds_eth_tx_flush_port(ee, i);
}

/* ------------------------------------------------------------------ */
/* Receiving */

static struct rds_laddr *
rds_eth_port_laddr(const struct rds_eth_port *p, uint32_t ip)
{
	unsigned int i;

	for (i = 0; i < p->nb_laddrs; i++)
		if (rds_eth_laddr(p->laddrs[i])->ip == ip &&
		    !rds_eth_laddr(p->laddrs[i])->v6)
			return p->laddrs[i];
	return NULL;
}

/* "I have no state for the epoch you sent": stateless, so that a peer
 * that restarted makes the survivor start again at once. */
void
rds_eth_send_reset(struct rds_engine *e, struct rds_eth_port *p,
		   const struct rds_eth_frame *f)
{
	struct rds_eth_frame r;
	struct rte_mbuf *m;

	if (f->type == RDS_ETH_F_ACK && (f->flags & RDS_ETH_FL_RESET))
		return;		/* never answer a reset */
	m = rte_pktmbuf_alloc(p->pool);
	if (m == NULL)
		return;
	if (rte_pktmbuf_append(m, RDS_ETH_L2L3L4 + RDS_ETH_HDR_SIZE) == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	memset(&r, 0, sizeof(r));
	r.type = RDS_ETH_F_ACK;
	r.flags = RDS_ETH_FL_RESET;
	r.src_epoch = 0;
	r.dst_epoch = f->src_epoch;
	if ((rds_eth_frame_v6(f) ?
	     rds_eth_frame_build6(m, &p->mac, &f->src_mac, &f->dst6, &f->src6,
				  p->udp_port, p->udp_port, &r) :
	     rds_eth_frame_build(m, &p->mac, &f->src_mac, f->dst_ip, f->src_ip,
				 p->udp_port, p->udp_port, &r,
				 p->ip_cksum_offload)) != 0) {
		rte_pktmbuf_free(m);
		return;
	}
	rds_eth_engine(e)->stats.ack_tx++;
	rds_eth_tx(e, p, m);
}

void
rds_eth_conn_peer(struct rds_eth_conn *ec, const struct rte_ether_addr *mac)
{
	struct rds_eth_port *p = ec->port;

	ec->peer_mac = *mac;
	ec->resolved = true;
	if (ec->v6)
		rds_eth_tmpl_init6(&ec->tmpl, &p->mac, mac, &ec->c->key.laddr,
				   &ec->c->key.faddr, p->udp_port,
				   p->udp_port);
	else
		rds_eth_tmpl_init(&ec->tmpl, &p->mac, mac, ec->lip, ec->fip,
				  p->udp_port, p->udp_port,
				  p->ip_cksum_offload);
}

static inline void rds_eth_rx_conn(struct rds_engine *e,
				   struct rds_eth_port *p, struct rte_mbuf *m,
				   const struct rds_eth_frame *f,
				   struct rds_eth_conn *ec);

/* A frame for local address la of p, on the engine that owns its
 * connection. */
static void
rds_eth_rx_frame_la(struct rds_engine *e, struct rds_eth_port *p,
		    struct rte_mbuf *m, const struct rds_eth_frame *f,
		    struct rds_laddr *la)
{
	struct rds_eth_engine *ee = rds_eth_engine(e);
	struct rds_conn_key key;
	struct rds_eth_conn *ec;
	struct rds_conn *c;

	memset(&key, 0, sizeof(key));
	key.laddr = la->addr;
	if (rds_eth_frame_v6(f))
		key.faddr = f->src6;
	else
		rds_addr_from_v4(&key.faddr, f->src_ip);
	key.trans_id = rds_eth_transport.trans_id;
	c = rds_conn_lookup(e, &key);
	if (c == NULL) {
		/* Only a frame that opens a connection makes one. */
		if (!(f->flags & RDS_ETH_FL_OPEN) ||
		    f->type == RDS_ETH_F_ACK) {
			ee->stats.rx_drop_no_conn++;
			rds_eth_send_reset(e, p, f);
			rte_pktmbuf_free(m);
			return;
		}
		c = rds_conn_get(e, &key);
		if (c == NULL) {
			rte_pktmbuf_free(m);
			return;
		}
		ee->stats.conn_opened++;
	}
	ec = c->tp;
	/* The next frames on this port are most likely this connection's
	 * too (rds_eth_rx_one; an IPv4 one: the addresses it compares are
	 * IPv4 addresses). */
	if (!ec->v6)
		ee->port[rds_eth_port_index(p)].rx_last = ec;
	rds_eth_rx_conn(e, p, m, f, ec);
}

/* A frame of connection ec, which engine e owns, arrived on port p. */
static inline void
rds_eth_rx_conn(struct rds_engine *e, struct rds_eth_port *p,
		struct rte_mbuf *m, const struct rds_eth_frame *f,
		struct rds_eth_conn *ec)
{
	/* A valid frame from the peer: its MAC (followed if it changed),
	 * into the neighbour table too. A MAC that is the connection's
	 * already goes there once per RDS_ETH_LEARN_GAP_US, not per frame:
	 * what changed the entry meanwhile (an ARP answer) is put right
	 * that much later. */
	if (unlikely(!ec->resolved ||
		     !rte_is_same_ether_addr(&ec->peer_mac, &f->src_mac) ||
		     e->now - ec->learn_tsc >= p->learn_gap_tsc)) {
		if (ec->v6)
			rds_eth_nd_learn(e, p->nd, &f->src6, &f->src_mac);
		else
			rds_eth_neigh_learn(e, p->neigh, f->src_ip,
					    &f->src_mac);
		ec->learn_tsc = e->now;
		if (!ec->resolved ||
		    !rte_is_same_ether_addr(&ec->peer_mac, &f->src_mac))
			rds_eth_conn_peer(ec, &f->src_mac);
	}
	rds_eth_rel_input(ec, m, f);
}

void
rds_eth_rx_frame(struct rds_engine *e, struct rds_eth_port *p,
		 struct rte_mbuf *m, const struct rds_eth_frame *f)
{
	struct rds_laddr *la = rds_eth_frame_v6(f) ?
		rds_eth_port_laddr6(p, &f->dst6) :
		rds_eth_port_laddr(p, f->dst_ip);

	if (la == NULL) {
		rds_eth_engine(e)->stats.rx_not_ours++;
		rte_pktmbuf_free(m);
		return;
	}
	rds_eth_rx_frame_la(e, p, m, f, la);
}

static void
rds_eth_rx_one(struct rds_engine *e, struct rds_eth_port *p,
	       struct rte_mbuf *m)
{
	struct rds_eth_engine *ee = rds_eth_engine(e);
	struct rds_eth_conn *ec;
	struct rds_eth_frame f;
	enum rds_eth_drop why;
	struct rds_laddr *la;
	struct in6_addr fa;
	unsigned int owner;

	if (unlikely(m->nb_segs != 1)) {
		/* A chain (a PMD that hands over what a peer in this process
		 * sent zero-copy, or jumbo frames): parse a flat copy; the
		 * original may be shared with its sender. */
		struct rte_mbuf *c = rte_pktmbuf_copy(m, p->pool, 0,
						      UINT32_MAX);

		rte_pktmbuf_free(m);
		if (c == NULL) {
			ee->stats.rx_drop_short++;
			return;
		}
		m = c;
	}
	why = rds_eth_frame_parse(m, p->udp_port, &f);
	switch (why) {
	case RDS_ETH_DROP_NONE:
		break;
	case RDS_ETH_DROP_NOT_OURS:
		/* Not IPv4 to our port: IPv6, ARP, or someone else's. */
		if (rds_eth_is_ipv6(m)) {
			rds_eth_rx_one6(e, p, m);
			return;
		}
		if (rds_eth_is_arp(m)) {
			rds_eth_arp_input(e, p, m);
			return;
		}
		ee->stats.rx_not_ours++;
		rte_pktmbuf_free(m);
		return;
	default:
		rds_eth_rx_drop(ee, why);
		rte_pktmbuf_free(m);
		return;
	}
	ee->stats.rx_frames++;
	/* The connection of the last frame here (one of this engine's):
	 * no address to look up, no owner to compute. */
	ec = ee->port[rds_eth_port_index(p)].rx_last;
	if (likely(ec != NULL) && ec->fip == f.src_ip && ec->lip == f.dst_ip) {
		if (p->nb_rxq > 1)
			ee->stats.rx_steered++;
		rds_eth_rx_conn(e, p, m, &f, ec);
		return;
	}
	la = rds_eth_port_laddr(p, f.dst_ip);
	if (la == NULL) {
		ee->stats.rx_not_ours++;
		rte_pktmbuf_free(m);
		return;
	}
	/* With one engine it owns every connection: no hash to compute. */
	owner = 0;
	if (rds_lib->nb_engines > 1) {
		rds_addr_from_v4(&fa, f.src_ip);
		owner = rds_conn_engine_of_hash(la->cong->hash,
						rds_addr_hash(&fa));
	}
	if (owner == e->id) {
		if (p->nb_rxq > 1)
			ee->stats.rx_steered++;
		rds_eth_rx_frame_la(e, p, m, &f, la);	/* la found above */
		return;
	}
	/* Another engine owns the connection: its inbox, at the end of
	 * this burst. */
	rds_eth_steer_handoff(e, owner, p, m, &f);
}

static void
rds_eth_faults_refresh(struct rds_eth_engine *ee)
{
	uint32_t gen = __atomic_load_n(&rds_eth_faults_gen, __ATOMIC_ACQUIRE);
	struct rte_rds_eth_faults cfg;

	if (likely(gen == ee->faults_gen))
		return;
	rte_spinlock_lock(&rds_eth_faults_lock);
	cfg = rds_eth_faults;
	ee->faults_gen = rds_eth_faults_gen;
	rte_spinlock_unlock(&rds_eth_faults_lock);
	rds_eth_fault_set(ee->fault, &cfg);
	ee->faults_on = cfg.drop_ppm || cfg.dup_ppm || cfg.reorder_ppm ||
			cfg.delay_ppm || cfg.corrupt_ppm;
}

/* The home engine's look at a port's link (relink=1): a port whose link
 * stays down is stopped and started again, with a growing wait, so that
 * a PMD that connects only when it starts (net_memif's client) finds its
 * peer again. Other engines keep off the port meanwhile: restarting is
 * set, then every transmit lock taken once, so that no burst is still
 * running on it. */
static void
rds_eth_link_check(struct rds_engine *e, struct rds_eth_engine *ee,
		   struct rds_eth_port *p)
{
	uint64_t hz = rds_clock_hz(), max = RDS_ETH_RELINK_MAX_MS * hz / 1000;
	struct rte_eth_link l;
	unsigned int q;
	int ret;

	p->link_check_tsc = e->now + RDS_ETH_LINK_CHECK_MS * hz / 1000;
	if (p->started) {
		memset(&l, 0, sizeof(l));
		if (rte_eth_link_get_nowait(p->port_id, &l) == 0 &&
		    l.link_status == RTE_ETH_LINK_UP) {
			if (!p->link_up && p->link_down_seen)
				ETH_LOG(INFO, "port %u: link up", p->port_id);
			p->link_up = true;
			p->link_down_seen = false;
			p->relink_wait = RDS_ETH_RELINK_MIN_MS * hz / 1000;
			return;
		}
		if (p->link_up)
			ETH_LOG(WARNING, "port %u: link down", p->port_id);
		p->link_up = false;
		if (!p->link_down_seen) {
			p->link_down_seen = true;
			p->down_since = e->now;
			return;
		}
	}
	if (e->now - p->down_since < p->relink_wait)
		return;
	rte_log(p->relink_wait <= RDS_ETH_RELINK_MIN_MS * hz / 1000 ?
		RTE_LOG_WARNING : RTE_LOG_DEBUG, rds_eth_logtype,
		"RDS eth: port %u: link down for %" PRIu64 " ms: restarting "
		"the port\n", p->port_id, (e->now - p->down_since) * 1000 / hz);
	__atomic_store_n(&p->restarting, true, __ATOMIC_RELEASE);
	for (q = 0; q < p->nb_txq; q++) {
		rte_spinlock_lock(&p->tx_lock[q]);
		rte_spinlock_unlock(&p->tx_lock[q]);
	}
	for (q = 0; q < p->nb_rxq; q++) {
		rte_spinlock_lock(&p->rx_lock[q]);
		rte_spinlock_unlock(&p->rx_lock[q]);
	}
	if (p->started)
		rte_eth_dev_stop(p->port_id);
	ret = rte_eth_dev_start(p->port_id);
	p->started = ret == 0;
	if (ret != 0)
		ETH_LOG(DEBUG, "port %u: start: %s", p->port_id,
			strerror(-ret));
	ee->stats.port_restarts++;
	p->link_down_seen = true;
	p->down_since = e->now;
	p->relink_wait = RTE_MIN(p->relink_wait * 2, max);
	if (p->started)
		__atomic_store_n(&p->restarting, false, __ATOMIC_RELEASE);
}

static unsigned int
rds_eth_poll(struct rds_engine *e)
{
	struct rds_eth_engine *ee = rds_eth_engine(e);
	struct rte_mbuf *in[RDS_ETH_RX_BURST], *out[2 * RDS_ETH_RX_BURST];
	unsigned int i, work = 0;
	uint16_t n, k;
	int q;

	if (ee == NULL)
		return 0;
	rds_eth_faults_refresh(ee);
	if (ee->inbox != NULL)
		work += rds_eth_steer_drain(e);
	for (i = 0; i < ee->nb_poll; i++) {
		struct rds_eth_eport *ep = ee->poll[i];
		struct rds_eth_port *p = ep->p;

		if (unlikely(ep->watch) && e->now >= p->link_check_tsc)
			rds_eth_link_check(e, ee, p);
		if (unlikely(!p->started))
			continue;	/* a restart failed: later */
		if (likely(ep->home)) {
			n = rte_eth_rx_burst(p->port_id, p->rxq, in,
					     RDS_ETH_RX_BURST);
		} else {
			q = ep->rxq;
			/* Not while the home engine restarts the port (it
			 * takes these locks once restarting is set). */
			if (unlikely(__atomic_load_n(&p->restarting,
						     __ATOMIC_ACQUIRE)))
				continue;
			rte_spinlock_lock(&p->rx_lock[q]);
			n = __atomic_load_n(&p->restarting, __ATOMIC_ACQUIRE) ?
			    0 : rte_eth_rx_burst(p->port_id,
						 (uint16_t)(p->rxq + q), in,
						 RDS_ETH_RX_BURST);
			rte_spinlock_unlock(&p->rx_lock[q]);
		}
		if (unlikely(ee->faults_on)) {
			/* Faults below the transport, as a lossy wire. */
			n = rds_eth_fault_apply(ee->fault, in, n, out,
						RTE_DIM(out), e->now,
						&ee->stats);
			for (k = 0; k < n; k++)
				rds_eth_rx_one(e, p, out[k]);
		} else {
			for (k = 0; k < n; k++)
				rds_eth_rx_one(e, p, in[k]);
		}
		if (ee->inbox != NULL)
			rds_eth_steer_flush(e);
		work += n;
	}
	return work;
}

/* ------------------------------------------------------------------ */
/* Connections */

static void
rds_eth_resolve_timer(struct rds_engine *e, struct rds_timer *t);

static int
rds_eth_conn_alloc(struct rds_conn *c)
{
	struct rds_eth_conn *ec;
	struct rds_eth_laddr *el = rds_eth_laddr(c->la);
	int ret;

	if (el == NULL || c->la->trans != &rds_eth_transport)
		return -EINVAL;
	ec = rds_mem_zalloc("rds_eth_conn", sizeof(*ec));
	if (ec == NULL)
		return -ENOMEM;
	ec->c = c;
	ec->ee = rds_eth_engine(c->eng);
	ec->port = el->port;
	ec->v6 = el->v6;
	if (ec->v6) {
		ec->lip = UINT32_MAX;
		ec->fip = UINT32_MAX;
	} else {
		ec->lip = el->ip;
		ec->fip = rds_addr_v4(&c->key.faddr);
	}
	/* The IP MTU less IPv4 (or IPv6), UDP and eth headers. */
	ec->frag_max = (uint32_t)el->port->mtu - 20 - 8 - RDS_ETH_HDR_SIZE -
		       (ec->v6 ? RDS_ETH_V6_EXTRA : 0);
	rds_timer_init(&ec->resolve_timer, rds_eth_resolve_timer);
	ret = rds_eth_rel_init(ec, el->port);
	if (ret != 0) {
		rds_mem_free(ec);
		return ret;
	}
	c->tp = ec;
	rds_eth_steer_conn_add(ec);
	return 0;
}

static void
rds_eth_conn_free(struct rds_conn *c)
{
	struct rds_eth_conn *ec = c->tp;
	struct rds_eth_engine *ee;
	unsigned int i;

	if (ec == NULL)
		return;
	ee = rds_eth_engine(c->eng);
	for (i = 0; ee != NULL && i < rds_eth_nb_ports; i++)
		if (ee->port[i].rx_last == ec)
			ee->port[i].rx_last = NULL;
	rds_timer_cancel(c->eng, &ec->resolve_timer);
	rds_eth_steer_conn_del(ec);
	rds_eth_msg_reset(ec);
	rds_eth_rel_fini(ec);
	rds_mem_free(ec);
	c->tp = NULL;
}

/* Up as soon as the peer's MAC is known. */
static bool
rds_eth_try_resolve(struct rds_eth_conn *ec)
{
	struct rds_conn *c = ec->c;

	struct rte_ether_addr mac;

	if (!ec->resolved &&
	    (ec->v6 ? rds_eth_nd_resolve(c->eng, ec->port, &c->key.laddr,
					 &c->key.faddr, &mac) :
	     rds_eth_neigh_resolve(c->eng, ec->port, ec->lip, ec->fip,
				   &mac)) == 0)
		rds_eth_conn_peer(ec, &mac);
	if (!ec->resolved)
		return false;
	rds_conn_connect_complete(c);
	return true;
}

static void
rds_eth_resolve_timer(struct rds_engine *e, struct rds_timer *t)
{
	struct rds_eth_conn *ec = container_of(t, struct rds_eth_conn,
					       resolve_timer);

	if (ec->c->state != RDS_CONN_CONNECTING)
		return;
	if (rds_eth_try_resolve(ec))
		return;
	if (++ec->resolve_tries >= RDS_ETH_RESOLVE_TRIES) {
		/* The core backs off and tries again. */
		rds_conn_error(ec->c, "peer does not answer ARP (or neighbour solicitations)");
		return;
	}
	rds_timer_arm(e, t, e->now + RDS_ETH_RESOLVE_US *
		      (rds_lib->tsc_hz / 1000000));
}

static int
rds_eth_conn_connect(struct rds_conn *c)
{
	struct rds_eth_conn *ec = c->tp;

	ec->resolve_tries = 0;
	if (rds_eth_try_resolve(ec))
		return 0;
	/* An ARP request is out: look again shortly. */
	rds_timer_arm(c->eng, &ec->resolve_timer, c->eng->now +
		      RDS_ETH_RESOLVE_US * (rds_lib->tsc_hz / 1000000));
	return 0;
}

/* The core resets the connection: our sending stream starts again in a
 * new epoch (the peer takes it, and its RDS retransmits what we never
 * acknowledged); what we receive goes on. */
static void
rds_eth_conn_shutdown(struct rds_conn *c)
{
	struct rds_eth_conn *ec = c->tp;

	if (ec == NULL)
		return;
	rds_timer_cancel(c->eng, &ec->resolve_timer);
	rds_eth_msg_reset_tx(ec);
	rds_eth_rel_new_epoch(ec);
}

static int
rds_eth_xmit(struct rds_conn *c, struct rds_msg *m)
{
	return rds_eth_msg_xmit(c->tp, m);
}

static int
rds_eth_xmit_op(struct rds_conn *c, struct rds_msg *m)
{
	return rds_eth_msg_xmit_op(c->tp, m);
}

/* ------------------------------------------------------------------ */
/* The transport (its counters: rds_eth_stats.c) */

const struct rds_transport rds_eth_transport = {
	.name = "eth",
	.info_name = "eth",
	.trans_id = RTE_RDS_TRANS_ETH,
	/* Acknowledged by the frame layer (rds_eth.h): one stream of
	 * ACKs, no RDS ACK frames. IPv4 and IPv6 frames. */
	.flags = RDS_TRANS_F_RDMA | RDS_TRANS_F_MASKED_ATOMICS |
		 RDS_TRANS_F_ACKS | RDS_TRANS_F_MAP_DELTA |
		 RDS_TRANS_F_IPV6,
	.init = rds_eth_init,
	.fini = rds_eth_fini,
	.laddr_check = rds_eth_laddr_check,
	.engine_init = rds_eth_engine_init,
	.engine_fini = rds_eth_engine_fini,
	.conn_alloc = rds_eth_conn_alloc,
	.conn_free = rds_eth_conn_free,
	.conn_connect = rds_eth_conn_connect,
	.conn_shutdown = rds_eth_conn_shutdown,
	.xmit = rds_eth_xmit,
	.xmit_op = rds_eth_xmit_op,
	.poll = rds_eth_poll,
	.flush = rds_eth_flush,
	.xstat_names = rds_eth_xstat_names,
	.nb_xstats = RDS_ETH_NB_XSTATS,
	.xstats = rds_eth_xstats,
	.info = rds_eth_info,
};

RDS_TRANSPORT_REGISTER(rds_eth_transport);

int
rte_rds_eth_set_faults(const struct rte_rds_eth_faults *faults)
{
	if (rds_lib == NULL)
		return RDS_ERR(ENXIO);
	if (faults != NULL &&
	    (faults->drop_ppm > 1000000 || faults->dup_ppm > 1000000 ||
	     faults->reorder_ppm > 1000000 || faults->delay_ppm > 1000000 ||
	     faults->corrupt_ppm > 1000000 || faults->reorder_depth > 16))
		return RDS_ERR(EINVAL);
	rte_spinlock_lock(&rds_eth_faults_lock);
	if (faults != NULL)
		rds_eth_faults = *faults;
	else
		memset(&rds_eth_faults, 0, sizeof(rds_eth_faults));
	__atomic_fetch_add(&rds_eth_faults_gen, 1, __ATOMIC_RELEASE);
	rte_spinlock_unlock(&rds_eth_faults_lock);
	return 0;
}

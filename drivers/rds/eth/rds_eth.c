/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The eth transport's ops table, options, ports and queues, the engine
 * poll (receive: faults, ARP, parse, hand-off to the owning engine) and
 * flush (one rte_eth_tx_burst per port per pass), the connection ops,
 * counters and the fault-injection API.
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

#define RDS_ETH_MAX_PORTS 32
#define RDS_ETH_RX_BURST 32
#define RDS_ETH_NB_DESC 1024
#define RDS_ETH_POOL_SIZE 16383
/* Connecting: how often to look for the peer's MAC, and for how long. */
#define RDS_ETH_RESOLVE_US 1000
#define RDS_ETH_RESOLVE_TRIES 3000
/* Link recovery: look every 100 ms; restart after 500 ms down, then
 * after 1, 2, 4, 8, 8 ... s while it stays down. */
#define RDS_ETH_LINK_CHECK_MS 100
#define RDS_ETH_RELINK_MIN_MS 500
#define RDS_ETH_RELINK_MAX_MS 8000
/* A valid frame puts its sender's MAC into the neighbour table at most
 * this often when it is the connection's already. */
#define RDS_ETH_LEARN_GAP_US 1000

struct rds_eth_port **rds_eth_ports;
unsigned int rds_eth_nb_ports;
unsigned int rds_eth_slot;
static bool rds_eth_wanted;

/* Fault settings written by the application, read by engines. */
static rte_spinlock_t rds_eth_faults_lock = RTE_SPINLOCK_INITIALIZER;
static struct rte_rds_eth_faults rds_eth_faults;
static uint32_t rds_eth_faults_gen;

unsigned int
rds_eth_port_index(const struct rds_eth_port *p)
{
	return p->index;
}

/* ------------------------------------------------------------------ */
/* Options */

struct rds_eth_opts {
	char port[RTE_ETH_NAME_MAX_LEN];
	int configure;
	unsigned int rxq, txq, mtu, udp_port, window, dead_after, relink;
	unsigned int zerocopy;
	uint64_t rto_min_us, rto_max_us;
	bool have_mac;
	struct rte_ether_addr mac;
	char neigh[RTE_RDS_ARGSIZE];
};

static int
rds_eth_opt_uint(const char *v, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(v, &end, 0);
	if (errno != 0 || end == v || *end != '\0' || x > max)
		return -EINVAL;
	*out = x;
	return 0;
}

static int
rds_eth_opts_parse(const struct rds_laddr *la, struct rds_eth_opts *o)
{
	static const char *const keys[] = {
		"port", "dev", "configure", "rxq", "txq", "mtu", "udp_port",
		"mac", "neigh", "window", "rto_min_us", "rto_max_us",
		"dead_after", "relink", "zerocopy", NULL,
	};
	struct rte_kvargs *kv;
	const char *v;
	uint64_t x;
	int ret = 0;

	memset(o, 0, sizeof(*o));
	o->configure = 1;
	o->udp_port = RDS_ETH_UDP_PORT;
	o->window = RDS_ETH_WINDOW_DEFAULT;
	o->rto_min_us = 200;
	o->rto_max_us = 1000000;
	o->dead_after = 16;
	o->relink = 1;
	o->zerocopy = 1;
	snprintf(o->port, sizeof(o->port), "%s", la->dev);
	if (la->args[0] == '\0')
		goto check;
	kv = rte_kvargs_parse(la->args, keys);
	if (kv == NULL) {
		ETH_LOG(ERR, "bad options '%s'", la->args);
		return -EINVAL;
	}
#define OPT_UINT(key, max, field) do { \
		v = rte_kvargs_get(kv, key); \
		if (v != NULL) { \
			if (rds_eth_opt_uint(v, max, &x) != 0) { \
				ETH_LOG(ERR, "bad %s '%s'", key, v); \
				ret = -EINVAL; \
				goto out; \
			} \
			o->field = x; \
		} \
	} while (0)
	v = rte_kvargs_get(kv, "port");
	if (v == NULL)
		v = rte_kvargs_get(kv, "dev");
	if (v != NULL)
		snprintf(o->port, sizeof(o->port), "%s", v);
	OPT_UINT("configure", 1, configure);
	OPT_UINT("rxq", UINT16_MAX, rxq);
	OPT_UINT("txq", UINT16_MAX, txq);
	OPT_UINT("mtu", 9000, mtu);
	OPT_UINT("udp_port", UINT16_MAX, udp_port);
	OPT_UINT("window", RDS_ETH_WINDOW_MAX, window);
	OPT_UINT("rto_min_us", 10000000, rto_min_us);
	OPT_UINT("rto_max_us", 60000000, rto_max_us);
	OPT_UINT("dead_after", 1000000, dead_after);
	OPT_UINT("relink", 1, relink);
	OPT_UINT("zerocopy", 1, zerocopy);
#undef OPT_UINT
	v = rte_kvargs_get(kv, "mac");
	if (v != NULL) {
		if (rte_ether_unformat_addr(v, &o->mac) != 0) {
			ETH_LOG(ERR, "bad mac '%s'", v);
			ret = -EINVAL;
			goto out;
		}
		o->have_mac = true;
	}
	v = rte_kvargs_get(kv, "neigh");
	if (v != NULL)
		snprintf(o->neigh, sizeof(o->neigh), "%s", v);
out:
	rte_kvargs_free(kv);
	if (ret != 0)
		return ret;
check:
	if (o->port[0] == '\0') {
		/* No port named: the only ethdev there is. */
		uint16_t id, n = 0, only = 0;

		RTE_ETH_FOREACH_DEV(id) {
			only = id;
			n++;
		}
		if (n != 1) {
			ETH_LOG(ERR, "no port= for an eth address and %u "
				"ethdevs to choose from", n);
			return -EINVAL;
		}
		snprintf(o->port, sizeof(o->port), "%u", only);
	}
	if (o->window < RDS_ETH_WINDOW_MIN || (o->window & (o->window - 1)) != 0 ||
	    o->udp_port == 0 || o->rto_min_us == 0 ||
	    o->rto_max_us < o->rto_min_us || (o->mtu != 0 && o->mtu < 576)) {
		ETH_LOG(ERR, "bad window, udp_port, mtu or rto options");
		return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Ports */

static int
rds_eth_port_id(const char *name, uint16_t *id)
{
	uint64_t x;

	if (rds_eth_opt_uint(name, RTE_MAX_ETHPORTS - 1, &x) == 0 &&
	    rte_eth_dev_is_valid_port((uint16_t)x)) {
		*id = (uint16_t)x;
		return 0;
	}
	return rte_eth_dev_get_port_by_name(name, id) == 0 ? 0 : -ENODEV;
}

static int
rds_eth_port_configure(struct rds_eth_port *p,
		       const struct rte_eth_dev_info *di, unsigned int mtu,
		       bool zc)
{
	struct rte_eth_conf ec;
	unsigned int q;
	int ret, socket = rte_eth_dev_socket_id(p->port_id);

	memset(&ec, 0, sizeof(ec));
	if (di->tx_offload_capa & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM) {
		ec.txmode.offloads |= RTE_ETH_TX_OFFLOAD_IPV4_CKSUM;
		p->ip_cksum_offload = true;
	}
	if (di->rx_offload_capa & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM) {
		ec.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_IPV4_CKSUM;
		p->rx_cksum_offload = true;
	}
	if ((di->tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) && zc)
		ec.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	p->nb_txq = (uint16_t)RTE_MAX(1u,
		RTE_MIN((unsigned int)rds_lib->conf.nb_engines,
			(unsigned int)di->max_tx_queues));
	/* A receive queue per engine where the port has them (steering:
	 * rds_eth_steer.c); no RSS, the rules and the hand-off place the
	 * frames. */
	p->nb_rxq = (uint16_t)RTE_MAX(1u,
		RTE_MIN((unsigned int)rds_lib->conf.nb_engines,
			(unsigned int)di->max_rx_queues));
	rte_eth_dev_stop(p->port_id);
	ret = rte_eth_dev_configure(p->port_id, p->nb_rxq, p->nb_txq, &ec);
	if (ret != 0) {
		ETH_LOG(ERR, "port %u: configure: %s", p->port_id,
			strerror(-ret));
		return ret;
	}
	if (mtu != 0 && rte_eth_dev_set_mtu(p->port_id, (uint16_t)mtu) != 0)
		ETH_LOG(WARNING, "port %u: cannot set MTU %u", p->port_id, mtu);
	ret = 0;
	for (q = 0; ret == 0 && q < p->nb_rxq; q++)
		ret = rte_eth_rx_queue_setup(p->port_id, (uint16_t)q,
					     RDS_ETH_NB_DESC,
					     socket < 0 ? 0 : socket, NULL,
					     p->pool);
	for (q = 0; ret == 0 && q < p->nb_txq; q++)
		ret = rte_eth_tx_queue_setup(p->port_id, q, RDS_ETH_NB_DESC,
					     socket < 0 ? 0 : socket, NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(p->port_id);
	if (ret != 0) {
		ETH_LOG(ERR, "port %u: queue set-up or start: %s", p->port_id,
			strerror(-ret));
		return ret;
	}
	p->configured_by_us = true;
	p->started = true;
	p->rxq = 0;
	p->txq_base = 0;
	return 0;
}

static struct rds_eth_port *
rds_eth_port_get(const struct rds_eth_opts *o, int *err)
{
	struct rte_eth_dev_info di;
	struct rte_eth_conf dc;
	struct rds_eth_port *p;
	char name[RTE_MEMPOOL_NAMESIZE];
	uint16_t id, mtu = 0;
	unsigned int i, room;

	*err = rds_eth_port_id(o->port, &id);
	if (*err != 0) {
		ETH_LOG(ERR, "no ethdev '%s' (give --vdev= to the EAL, or a "
			"port id)", o->port);
		return NULL;
	}
	for (i = 0; i < rds_eth_nb_ports; i++)
		if (rds_eth_ports[i]->port_id == id)
			return rds_eth_ports[i];
	if (rds_eth_nb_ports == RDS_ETH_MAX_PORTS) {
		*err = -ENOSPC;
		return NULL;
	}
	*err = -ENOMEM;
	p = rds_mem_zalloc("rds_eth_port", sizeof(*p));
	if (p == NULL)
		return NULL;
	p->port_id = id;
	*err = rte_eth_dev_info_get(id, &di);
	if (*err != 0)
		goto fail;
	if (rte_eth_dev_get_mtu(id, &mtu) != 0 || mtu == 0)
		mtu = RTE_ETHER_MTU;
	p->mtu = o->mtu != 0 ? (uint16_t)o->mtu : mtu;
	p->udp_port = (uint16_t)o->udp_port;
	p->window = o->window;
	p->rto_min_tsc = o->rto_min_us * rte_get_tsc_hz() / 1000000;
	p->rto_max_tsc = o->rto_max_us * rte_get_tsc_hz() / 1000000;
	p->rto_init_tsc = RTE_MAX(p->rto_min_tsc, rte_get_tsc_hz() / 1000);
	p->learn_gap_tsc = RDS_ETH_LEARN_GAP_US * rte_get_tsc_hz() / 1000000;
	p->dead_after = o->dead_after;
	for (i = 0; i < RTE_RDS_MAX_ENGINES; i++) {
		rte_spinlock_init(&p->tx_lock[i]);
		rte_spinlock_init(&p->rx_lock[i]);
	}
	/* Kept for the process's life: a stopped port may still hold
	 * mbufs of it, and the next instance finds it again. */
	snprintf(name, sizeof(name), "rds_eth_%u", id);
	room = RTE_MAX((unsigned int)RTE_MBUF_DEFAULT_BUF_SIZE,
		       (unsigned int)p->mtu + RTE_ETHER_HDR_LEN +
		       RTE_PKTMBUF_HEADROOM + 64);
	p->pool = rte_mempool_lookup(name);
	if (p->pool == NULL)
		p->pool = rte_pktmbuf_pool_create(name, RDS_ETH_POOL_SIZE, 256,
			0, (uint16_t)room, rte_eth_dev_socket_id(id));
	if (p->pool == NULL) {
		ETH_LOG(ERR, "port %u: mbuf pool: %s", id,
			rte_strerror(rte_errno));
		*err = -ENOMEM;
		goto fail;
	}
	if (rte_pktmbuf_data_room_size(p->pool) - RTE_PKTMBUF_HEADROOM <
	    p->mtu + RTE_ETHER_HDR_LEN) {
		ETH_LOG(ERR, "port %u: the mbufs of an earlier instance are "
			"too small for MTU %u", id, p->mtu);
		*err = -EINVAL;
		goto fail;
	}
	if (o->configure) {
		*err = rds_eth_port_configure(p, &di, o->mtu, o->zerocopy != 0);
		if (*err != 0)
			goto fail;
		if (di.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS &&
		    o->zerocopy)
			rds_eth_zc_port_init(p, &di);
		p->relink = o->relink != 0;
		p->relink_wait = RDS_ETH_RELINK_MIN_MS * rte_get_tsc_hz() / 1000;
	} else {
		p->started = true;
		p->rxq = (uint16_t)o->rxq;
		p->txq_base = (uint16_t)o->txq;
		p->nb_txq = di.nb_tx_queues > o->txq ?
			    (uint16_t)(di.nb_tx_queues - o->txq) : 1;
		p->nb_rxq = 1;
		p->ip_cksum_offload = false;
		if (o->zerocopy && rte_eth_dev_conf_get(id, &dc) == 0 &&
		    (dc.txmode.offloads & RTE_ETH_TX_OFFLOAD_MULTI_SEGS))
			rds_eth_zc_port_init(p, &di);
	}
	if (o->have_mac)
		p->mac = o->mac;
	else
		rte_eth_macaddr_get(id, &p->mac);
	p->neigh = rds_eth_neigh_create(1024);
	if (p->neigh == NULL) {
		*err = -ENOMEM;
		goto fail;
	}
	p->home = rds_eth_nb_ports % rds_lib->conf.nb_engines;
	rds_eth_steer_port_probe(p);
	p->index = rds_eth_nb_ports;
	rds_eth_ports[rds_eth_nb_ports++] = p;
	ETH_LOG(INFO, "port %u: MTU %u, %u transmit queue(s)%s, engine %u "
		"polls receive queue %u (of %u from it), %s", id, p->mtu,
		p->nb_txq,
		p->configured_by_us ? "" : " (configured by the application)",
		p->home, p->rxq, p->nb_rxq,
		p->tx_multi_seg ? "large fragments zero-copy" :
		"fragments copied");
	*err = 0;
	return p;
fail:
	if (p->configured_by_us)
		rte_eth_dev_stop(id);
	rds_mem_free(p);
	return NULL;
}

static int
rds_eth_laddr_check(struct rds_laddr *la)
{
	struct rds_eth_laddr *el;
	struct rds_eth_opts o;
	struct rds_eth_port *p;
	int ret;

	ret = rds_eth_opts_parse(la, &o);
	if (ret != 0)
		return ret;
	p = rds_eth_port_get(&o, &ret);
	if (p == NULL)
		return ret;
	if (o.neigh[0] != '\0' && rds_eth_neigh_static(p->neigh, o.neigh) != 0) {
		ETH_LOG(ERR, "bad neigh '%s' (IP/MAC+IP/MAC...)", o.neigh);
		return -EINVAL;
	}
	if (p->nb_laddrs == RTE_DIM(p->laddrs))
		return -ENOSPC;
	el = rds_mem_zalloc("rds_eth_laddr", sizeof(*el));
	if (el == NULL)
		return -ENOMEM;
	el->port = p;
	el->ip = rds_addr_v4(&la->addr);
	la->tp = el;
	p->laddrs[p->nb_laddrs++] = la;
	return 0;
}

static int
rds_eth_init(const struct rte_rds_conf *conf)
{
	unsigned int i;

	rds_eth_wanted = false;
	for (i = 0; i < conf->nb_addrs; i++)
		if (strcmp(rte_rds_conf_addr(conf, i)->transport, "eth") == 0)
			rds_eth_wanted = true;
	for (i = 0; i < rds_transport_count(); i++)
		if (rds_transport_at(i) == &rds_eth_transport)
			rds_eth_slot = i;
	rds_eth_ports = rds_mem_zalloc("rds_eth_ports",
				       sizeof(*rds_eth_ports) *
				       RDS_ETH_MAX_PORTS);
	rds_eth_nb_ports = 0;
	rte_spinlock_lock(&rds_eth_faults_lock);
	memset(&rds_eth_faults, 0, sizeof(rds_eth_faults));
	rds_eth_faults_gen++;
	rte_spinlock_unlock(&rds_eth_faults_lock);
	return rds_eth_ports == NULL ? -ENOMEM : 0;
}

static void
rds_eth_port_drain(struct rds_eth_port *p)
{
	struct rte_mbuf *m[RDS_ETH_RX_BURST];
	unsigned int q, i, k;
	uint16_t n;

	for (q = 0; q < p->nb_txq; q++)
		(void)rte_eth_tx_done_cleanup(p->port_id,
					      (uint16_t)(p->txq_base + q), 0);
	for (q = 0; q < p->nb_rxq; q++)
		for (i = 0; i < 1024; i++) {
			n = rte_eth_rx_burst(p->port_id, (uint16_t)(p->rxq + q),
					     m, RTE_DIM(m));
			if (n == 0)
				break;
			for (k = 0; k < n; k++)
				rte_pktmbuf_free(m[k]);
		}
}

static void
rds_eth_fini(void)
{
	unsigned int i;

	for (i = 0; i < rds_eth_nb_ports; i++) {
		struct rds_eth_port *p = rds_eth_ports[i];

		/* Frames of ours still in the port (a net_ring pair holds
		 * what one side sent until the other reads it; a NIC holds
		 * sent frames until it reclaims them) may hold references to
		 * message buffers (zero-copy): let them go while the
		 * buffers exist. */
		if (p->started)
			rds_eth_port_drain(p);
		if (p->configured_by_us && p->started)
			rte_eth_dev_stop(p->port_id);
		rds_eth_neigh_free(p->neigh);
		rds_mem_free(p);
	}
	for (i = 0; rds_lib != NULL && i < rds_lib->nb_laddrs; i++) {
		struct rds_laddr *la = rds_lib->laddrs[i];

		if (la->trans == &rds_eth_transport) {
			rds_mem_free(la->tp);
			la->tp = NULL;
		}
	}
	rds_mem_free(rds_eth_ports);
	rds_eth_ports = NULL;
	rds_eth_nb_ports = 0;
}

/* ------------------------------------------------------------------ */
/* Engines */

static int
rds_eth_engine_init(struct rds_engine *e)
{
	struct rds_eth_engine *ee;

	e->tp[rds_eth_slot] = NULL;
	if (!rds_eth_wanted)
		return 0;
	ee = rds_mem_zalloc("rds_eth_engine", sizeof(*ee));
	if (ee == NULL)
		return -ENOMEM;
	e->tp[rds_eth_slot] = ee;
	ee->tx = rds_mem_zalloc("rds_eth_tx",
				sizeof(*ee->tx) * RTE_MAX(rds_eth_nb_ports, 1u));
	ee->fault = rds_eth_fault_create(0x5eed0000ULL + e->id);
	if (ee->tx == NULL || ee->fault == NULL)
		return -ENOMEM;
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
	for (i = 0; ee->tx != NULL && i < rds_eth_nb_ports; i++)
		for (k = 0; k < ee->tx[i].n; k++)
			rte_pktmbuf_free(ee->tx[i].pkts[k]);
	if (ee->fault != NULL) {
		rds_eth_fault_flush(ee->fault);
		rds_eth_fault_free(ee->fault);
	}
	rds_eth_steer_engine_fini(ee);
	rds_mem_free(ee->tx);
	rds_mem_free(ee);
	e->tp[rds_eth_slot] = NULL;
}

/* Send what is queued on port index pi. Frames the PMD does not take
 * stay queued for the next flush, in order. */
static void
rds_eth_tx_flush_port(struct rds_engine *e, struct rds_eth_engine *ee,
		      unsigned int pi)
{
	struct rds_eth_txq *tq = &ee->tx[pi];
	struct rds_eth_port *p = rds_eth_ports[pi];
	uint16_t q = (uint16_t)(p->txq_base + e->id % p->nb_txq), sent;
	rte_spinlock_t *lock = &p->tx_lock[q - p->txq_base];

	if (tq->n == 0)
		return;
	/* Never on a port being restarted (rds_eth_link_check): its frames
	 * wait here. The lock also serialises engines sharing a queue. */
	if (unlikely(__atomic_load_n(&p->restarting, __ATOMIC_ACQUIRE)))
		return;
	rte_spinlock_lock(lock);
	if (unlikely(__atomic_load_n(&p->restarting, __ATOMIC_ACQUIRE))) {
		rte_spinlock_unlock(lock);
		return;
	}
	sent = rte_eth_tx_burst(p->port_id, q, tq->pkts, tq->n);
	rte_spinlock_unlock(lock);
	ee->stats.tx_frames += sent;
	if (sent < tq->n) {
		/* Each frame counts once, however many passes it waits (a
		 * peer gone: the PMD refuses every burst for seconds). */
		uint16_t old = tq->refused > sent ? tq->refused - sent : 0;

		ee->stats.tx_full += tq->n - sent - old;
		tq->refused = tq->n - sent;
		memmove(tq->pkts, tq->pkts + sent,
			sizeof(tq->pkts[0]) * (tq->n - sent));
	} else {
		tq->refused = 0;
	}
	tq->n -= sent;
}

void
rds_eth_tx(struct rds_engine *e, struct rds_eth_port *p, struct rte_mbuf *m)
{
	struct rds_eth_engine *ee = rds_eth_engine(e);
	unsigned int pi = rds_eth_port_index(p);
	struct rds_eth_txq *tq = &ee->tx[pi];

	if (unlikely(tq->n == RDS_ETH_TX_BURST)) {
		rds_eth_tx_flush_port(e, ee, pi);
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
	rds_eth_rel_flush_acks(e);
	for (i = 0; i < rds_eth_nb_ports; i++)
		rds_eth_tx_flush_port(e, ee, i);
}

/* ------------------------------------------------------------------ */
/* Receiving */

static struct rds_laddr *
rds_eth_port_laddr(const struct rds_eth_port *p, uint32_t ip)
{
	unsigned int i;

	for (i = 0; i < p->nb_laddrs; i++)
		if (rds_eth_laddr(p->laddrs[i])->ip == ip)
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
	if (rds_eth_frame_build(m, &p->mac, &f->src_mac, f->dst_ip, f->src_ip,
				p->udp_port, p->udp_port, &r,
				p->ip_cksum_offload) != 0) {
		rte_pktmbuf_free(m);
		return;
	}
	rds_eth_engine(e)->stats.ack_tx++;
	rds_eth_tx(e, p, m);
}

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
	/* A valid frame from the peer: its MAC (followed if it changed),
	 * into the neighbour table too. A MAC that is the connection's
	 * already goes there once per RDS_ETH_LEARN_GAP_US, not per frame:
	 * what changed the entry meanwhile (an ARP answer) is put right
	 * that much later. */
	if (unlikely(!ec->resolved ||
		     !rte_is_same_ether_addr(&ec->peer_mac, &f->src_mac) ||
		     e->now - ec->learn_tsc >= p->learn_gap_tsc)) {
		rds_eth_neigh_learn(e, p->neigh, f->src_ip, &f->src_mac);
		ec->learn_tsc = e->now;
		ec->peer_mac = f->src_mac;
		ec->resolved = true;
	}
	rds_eth_rel_input(ec, m, f);
}

void
rds_eth_rx_frame(struct rds_engine *e, struct rds_eth_port *p,
		 struct rte_mbuf *m, const struct rds_eth_frame *f)
{
	struct rds_laddr *la = rds_eth_port_laddr(p, f->dst_ip);

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
	if (rds_eth_is_arp(m)) {
		rds_eth_arp_input(e, p, m);
		return;
	}
	why = rds_eth_frame_parse(m, p->udp_port, &f);
	switch (why) {
	case RDS_ETH_DROP_NONE:
		break;
	case RDS_ETH_DROP_NOT_OURS:
		ee->stats.rx_not_ours++;
		rte_pktmbuf_free(m);
		return;
	default:
		if (why == RDS_ETH_DROP_SHORT)
			ee->stats.rx_drop_short++;
		else if (why == RDS_ETH_DROP_IP)
			ee->stats.rx_drop_ip++;
		else if (why == RDS_ETH_DROP_VERSION)
			ee->stats.rx_drop_version++;
		else if (why == RDS_ETH_DROP_TYPE)
			ee->stats.rx_drop_type++;
		else if (why == RDS_ETH_DROP_LEN)
			ee->stats.rx_drop_len++;
		else
			ee->stats.rx_drop_crc++;
		rte_pktmbuf_free(m);
		return;
	}
	ee->stats.rx_frames++;
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
	uint64_t hz = rte_get_tsc_hz(), max = RDS_ETH_RELINK_MAX_MS * hz / 1000;
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
	for (i = 0; i < rds_eth_nb_ports; i++) {
		struct rds_eth_port *p = rds_eth_ports[i];

		if (p->home == e->id && unlikely(p->relink &&
						 e->now >= p->link_check_tsc))
			rds_eth_link_check(e, ee, p);
		q = p->rxq_of[e->id];
		if (q < 0)
			continue;
		if (unlikely(!p->started))
			continue;	/* a restart failed: later */
		if (p->home == e->id) {
			n = rte_eth_rx_burst(p->port_id, p->rxq, in,
					     RDS_ETH_RX_BURST);
		} else {
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
	ec->port = el->port;
	ec->lip = el->ip;
	ec->fip = rds_addr_v4(&c->key.faddr);
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

	if (ec == NULL)
		return;
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

	if (!ec->resolved &&
	    rds_eth_neigh_resolve(c->eng, ec->port, ec->lip, ec->fip,
				  &ec->peer_mac) == 0)
		ec->resolved = true;
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
		rds_conn_error(ec->c, "peer does not answer ARP");
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
rds_eth_xmit_ack(struct rds_conn *c)
{
	return rds_eth_msg_xmit_ack(c->tp);
}

/* ------------------------------------------------------------------ */
/* Counters */

#define ETH_XSTAT(f) #f
static const char *const rds_eth_xstat_names[] = {
	ETH_XSTAT(tx_frames), ETH_XSTAT(tx_full), ETH_XSTAT(tx_no_mbuf),
	ETH_XSTAT(tx_window_full), ETH_XSTAT(rx_frames),
	ETH_XSTAT(rx_not_ours), ETH_XSTAT(rx_drop_short),
	ETH_XSTAT(rx_drop_ip), ETH_XSTAT(rx_drop_version),
	ETH_XSTAT(rx_drop_type), ETH_XSTAT(rx_drop_len),
	ETH_XSTAT(rx_drop_crc), ETH_XSTAT(rx_drop_no_conn),
	ETH_XSTAT(rx_drop_stale), ETH_XSTAT(rx_dup), ETH_XSTAT(rx_ooo),
	ETH_XSTAT(rx_beyond_window), ETH_XSTAT(rx_bad_unit),
	ETH_XSTAT(rx_handoff), ETH_XSTAT(ack_tx), ETH_XSTAT(ack_rx),
	ETH_XSTAT(rexmit_fast), ETH_XSTAT(rexmit_timeout),
	ETH_XSTAT(rtt_samples), ETH_XSTAT(peer_restarts),
	ETH_XSTAT(peer_unresponsive), ETH_XSTAT(conn_opened),
	ETH_XSTAT(arp_tx), ETH_XSTAT(arp_rx), ETH_XSTAT(neigh_changed),
	ETH_XSTAT(rdma_exec), ETH_XSTAT(rdma_remote_error),
	ETH_XSTAT(fault_dropped), ETH_XSTAT(fault_duplicated),
	ETH_XSTAT(fault_reordered), ETH_XSTAT(fault_delayed),
	ETH_XSTAT(fault_corrupted), ETH_XSTAT(port_restarts),
	ETH_XSTAT(rx_steered), ETH_XSTAT(rx_handoff_drop),
	ETH_XSTAT(flow_rules), ETH_XSTAT(flow_fail), ETH_XSTAT(tx_zc_frames),
};
#undef ETH_XSTAT

_Static_assert(RTE_DIM(rds_eth_xstat_names) ==
	       sizeof(struct rte_rds_eth_stats) / sizeof(uint64_t),
	       "a name per counter");

static void
rds_eth_xstats(struct rds_engine *e, uint64_t *v)
{
	struct rds_eth_engine *ee = rds_eth_engine(e);
	const uint64_t *s;
	unsigned int i;

	if (ee == NULL)
		return;
	s = (const uint64_t *)&ee->stats;
	for (i = 0; i < RTE_DIM(rds_eth_xstat_names); i++)
		v[i] += s[i];
}

const struct rds_transport rds_eth_transport = {
	.name = "eth",
	.info_name = "eth",
	.trans_id = RTE_RDS_TRANS_ETH,
	.flags = RDS_TRANS_F_RDMA | RDS_TRANS_F_MASKED_ATOMICS,
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
	.xmit_ack = rds_eth_xmit_ack,
	.poll = rds_eth_poll,
	.flush = rds_eth_flush,
	.xstat_names = rds_eth_xstat_names,
	.nb_xstats = RTE_DIM(rds_eth_xstat_names),
	.xstats = rds_eth_xstats,
};

RDS_TRANSPORT_REGISTER(rds_eth_transport);

int
rte_rds_eth_stats_get(struct rte_rds_eth_stats *st)
{
	struct rte_rds_xstat xs[RTE_DIM(rds_eth_xstat_names)];
	uint64_t *v = (uint64_t *)st;
	unsigned int i;

	if (rds_lib == NULL)
		return RDS_ERR(ENXIO);
	if (st == NULL)
		return RDS_ERR(EINVAL);
	if (rte_rds_xstats_get("eth", xs, RTE_DIM(xs)) < 0)
		return -1;
	for (i = 0; i < RTE_DIM(xs); i++)
		v[i] = xs[i].value;
	return 0;
}

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

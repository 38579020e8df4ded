/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The eth transport's options (the address's arguments) and ports: each
 * DPDK port's set-up (configured here, configure=1, or as the
 * application left it), its pool, queues and neighbour table, and the
 * transport's init and fini (rds_eth.c has the ops table).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <rte_devargs.h>
#include <rte_ethdev.h>
#include <rte_kvargs.h>
#include <rte_malloc.h>

#include "rds_eth.h"

#define RDS_ETH_MAX_PORTS 32
#define RDS_ETH_NB_DESC 1024
#define RDS_ETH_POOL_SIZE 16383
/* ACK frames: gone once sent, a few per pass. */
#define RDS_ETH_CTRL_POOL_SIZE 2047
#define RDS_ETH_CTRL_ROOM (RTE_PKTMBUF_HEADROOM + 256)

/* ------------------------------------------------------------------ */
/* Options */

struct rds_eth_opts {
	char port[RTE_ETH_NAME_MAX_LEN];
	int configure;
	unsigned int rxq, txq, mtu, udp_port, window, dead_after, relink;
	unsigned int cwnd_init;
	unsigned int delay_us;		/* UINT_MAX: not given */
	unsigned int kick_us;		/* UINT_MAX: not given */
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
		"dead_after", "relink", "zerocopy", "cwnd_init", "kick_us",
		"delay_us", NULL,
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
	o->cwnd_init = UINT_MAX;	/* not given: the default, below */
	o->kick_us = UINT_MAX;		/* not given: by the PMD */
	o->delay_us = UINT_MAX;		/* not given: the default, below */
	o->relink = 1;
	o->zerocopy = 1;
	snprintf(o->port, sizeof(o->port), "%s", la->dev);
	if (la->args[0] == '\0')
		goto check;
	if (rds_transport_args_check("eth", la->args, keys) != 0)
		return -EINVAL;
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
	OPT_UINT("cwnd_init", RDS_ETH_WINDOW_MAX, cwnd_init);
	OPT_UINT("kick_us", 1000000, kick_us);
	OPT_UINT("delay_us", 1000000, delay_us);
	/* 0 (off) or 2 (RDS_ETH_CC_MIN) .. window, checked below. */
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
	if (o->cwnd_init == UINT_MAX) {
		o->cwnd_init = RTE_MIN((unsigned int)RDS_ETH_CWND_INIT_DEFAULT,
				       o->window);
	} else if (o->cwnd_init != 0 &&
		   (o->cwnd_init < RDS_ETH_CC_MIN || o->cwnd_init > o->window)) {
		ETH_LOG(ERR, "bad cwnd_init %u: 0 (off) or %u to window "
			"(%u)", o->cwnd_init, RDS_ETH_CC_MIN, o->window);
		return -EINVAL;
	}
	/* The delay signal is part of the congestion window: asked for
	 * without one, it is a mistake. */
	if (o->delay_us == UINT_MAX) {
		o->delay_us = o->cwnd_init != 0 ? RDS_ETH_DELAY_US_DEFAULT : 0;
	} else if (o->delay_us != 0 && o->cwnd_init == 0) {
		ETH_LOG(ERR, "delay_us=%u without congestion control "
			"(cwnd_init=0)", o->delay_us);
		return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Ports */

/* Whether stopping and starting a port whose link is down can bring it
 * back (relink=1). Not a net_memif server's (the default role): its
 * listening socket takes a new client whether the port was restarted or
 * not, and a restart while a client connects races with the PMD's
 * interrupt thread (with DPDK 22.11 the server process crashed, or lost
 * the connection for good). A net_memif client connects only when its
 * port starts: it needs it. */
static bool
rds_eth_port_restartable(const struct rte_eth_dev_info *di)
{
	const struct rte_devargs *da;
	struct rte_kvargs *kv;
	const char *role;
	bool client;

	if (strcmp(di->driver_name, "net_memif") != 0)
		return true;
	da = di->device != NULL ? rte_dev_devargs(di->device) : NULL;
	if (da == NULL || da->args == NULL)
		return false;
	kv = rte_kvargs_parse(da->args, NULL);
	if (kv == NULL)
		return false;
	role = rte_kvargs_get(kv, "role");
	client = role != NULL && (strcmp(role, "client") == 0 ||
				  strcmp(role, "slave") == 0);
	rte_kvargs_free(kv);
	return client;
}

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
	unsigned int i, room, kick;

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
	p->rto_min_tsc = o->rto_min_us * rds_clock_hz() / 1000000;
	p->rto_max_tsc = o->rto_max_us * rds_clock_hz() / 1000000;
	p->rto_init_tsc = RTE_MAX(p->rto_min_tsc, rds_clock_hz() / 1000);
	p->learn_gap_tsc = RDS_ETH_LEARN_GAP_US * rds_clock_hz() / 1000000;
	p->dead_after = o->dead_after;
	p->cwnd_init = o->cwnd_init;
	p->delay_tsc = (uint64_t)o->delay_us * rds_clock_hz() / 1000000;
	/* net_af_packet leaves frames in the kernel's ring after a
	 * transmit the kernel failed (rte_rds_eth.h, kick_us). */
	kick = o->kick_us;
	if (kick == UINT_MAX)
		kick = strcmp(di.driver_name, "net_af_packet") == 0 ?
			RDS_ETH_KICK_US_AF_PACKET : 0;
	p->kick_tsc = (uint64_t)kick * rds_clock_hz() / 1000000;
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
	snprintf(name, sizeof(name), "rds_eth_c%u", id);
	p->ctrl_pool = rte_mempool_lookup(name);
	if (p->ctrl_pool == NULL)
		p->ctrl_pool = rte_pktmbuf_pool_create(name,
			RDS_ETH_CTRL_POOL_SIZE, 32, 0, RDS_ETH_CTRL_ROOM,
			rte_eth_dev_socket_id(id));
	if (p->ctrl_pool == NULL) {
		ETH_LOG(ERR, "port %u: ACK mbuf pool: %s", id,
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
		p->relink = o->relink != 0 && rds_eth_port_restartable(&di);
		p->relink_wait = RDS_ETH_RELINK_MIN_MS * rds_clock_hz() / 1000;
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
	p->nd = rds_eth_nd_create(256);
	if (p->neigh == NULL || p->nd == NULL) {
		rds_eth_neigh_free(p->neigh);
		rds_eth_nd_free(p->nd);
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

/*
 * neigh=: IPv4 items to the ARP table (rds_eth_neigh_static, all or
 * nothing), IPv6 ones ("fd00::2/02:00:00:00:00:02": an IPv6 address has
 * no '/') to the IPv6 one; every item checked before any is added.
 */
static int
rds_eth_neigh_opt(struct rds_eth_port *p, const char *spec)
{
	char v4[RTE_RDS_ARGSIZE], item[96], *slash;
	struct in6_addr ip6[RDS_ETH_PORT_NEIGH6];
	struct rte_ether_addr mac6[RDS_ETH_PORT_NEIGH6];
	const char *s, *e;
	unsigned int n6 = 0, i;
	size_t l4 = 0, l;
	int ret;

	v4[0] = '\0';
	for (s = spec;; s = e + 1) {
		e = strchr(s, '+');
		if (e == NULL)
			e = s + strlen(s);
		l = (size_t)(e - s);
		if (l == 0 || l >= sizeof(item))
			return -EINVAL;
		memcpy(item, s, l);
		item[l] = '\0';
		slash = strchr(item, '/');
		if (slash != NULL && memchr(item, ':', (size_t)(slash - item))) {
			*slash = '\0';
			if (n6 == RTE_DIM(ip6) ||
			    inet_pton(AF_INET6, item, &ip6[n6]) != 1 ||
			    rte_ether_unformat_addr(slash + 1, &mac6[n6]) != 0 ||
			    rds_addr_is_v4(&ip6[n6]) || ip6[n6].s6_addr[0] == 0xff ||
			    !rte_is_unicast_ether_addr(&mac6[n6]) ||
			    rte_is_zero_ether_addr(&mac6[n6]))
				return -EINVAL;
			n6++;
		} else {
			if (l4 + l + 2 > sizeof(v4))
				return -EINVAL;
			l4 += (size_t)snprintf(v4 + l4, sizeof(v4) - l4, "%s%s",
					       l4 != 0 ? "+" : "", item);
		}
		if (*e == '\0')
			break;
	}
	if (n6 > rds_eth_nd_room(p->nd))
		return -ENOSPC;
	ret = rds_eth_neigh_static(p->neigh, v4);
	if (ret != 0)
		return ret;
	for (i = 0; i < n6; i++) {
		ret = rds_eth_nd_static(p->nd, &ip6[i], &mac6[i]);
		if (ret != 0)
			return ret;
	}
	return 0;
}

int
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
	if (o.neigh[0] != '\0' && rds_eth_neigh_opt(p, o.neigh) != 0) {
		ETH_LOG(ERR, "bad neigh '%s' (IP/MAC+IP/MAC...)", o.neigh);
		return -EINVAL;
	}
	if (p->nb_laddrs == RTE_DIM(p->laddrs))
		return -ENOSPC;
	el = rds_mem_zalloc("rds_eth_laddr", sizeof(*el));
	if (el == NULL)
		return -ENOMEM;
	el->port = p;
	el->v6 = !rds_addr_is_v4(&la->addr);
	el->ip = el->v6 ? 0 : rds_addr_v4(&la->addr);
	la->tp = el;
	p->laddrs[p->nb_laddrs++] = la;
	return 0;
}

int
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
	rds_eth_faults_reset();
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

void
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
		rds_eth_nd_free(p->nd);
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


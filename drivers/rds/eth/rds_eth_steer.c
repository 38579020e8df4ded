/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive queues, flow steering and the software hand-off between
 * engines; zero-copy transmit of large fragments.
 *
 * Steering (rds_eth.h, "Queues, steering"): a connection belongs to the
 * engine rds_conn_engine_of_hash() picks from its local and peer
 * addresses, so one rte_flow rule per connection, IPv4 src = peer,
 * dst = local, UDP dst = our port, sends its frames to the queue its
 * engine polls. Frames that arrive elsewhere go to the owner through
 * its inbox, an rte_ring of struct rds_eth_handoff (parsed frames):
 * batched per destination during a burst, one enqueue per destination
 * at its end, no allocation per frame.
 *
 * Zero-copy: a port that takes chains (RTE_ETH_TX_OFFLOAD_MULTI_SEGS)
 * gets a fragment of a message's payload as an mbuf attached to the
 * message's buffer (rte_pktmbuf_attach_extbuf), chained after the header
 * mbuf; its shared info holds a reference to the buffer, dropped by the
 * free callback when the last user (the PMD, the retransmit queue) lets
 * go. The CRC32C is still computed over the payload (the header's CRC
 * covers the chain). On a vdev (net_memif, net_af_packet, net_tap,
 * net_ring: no DMA, segments read at their addresses) always; on a
 * device that DMAs only in IOVA-as-VA mode (the attached mbuf's IOVA is
 * its address) and for buffers in DPDK memory.
 *
 * TSO does not apply: TCP segmentation offload cuts a TCP payload and
 * copies one TCP/IP header onto each piece, but every frame here is a
 * UDP datagram with its own eth header (sequence number, fragment
 * offset, CRC32C over that frame), which no NIC can write. UDP
 * segmentation offload (RTE_ETH_TX_OFFLOAD_UDP_TSO) copies the same
 * UDP payload header into every segment as well, and a receiver without
 * GRO sees datagrams whose headers would all be the first's: not usable
 * with per-frame headers either.
 */
#include <errno.h>
#include <stdio.h>

#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_flow.h>
#include <rte_memory.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "rds_eth.h"

#define RDS_ETH_INBOX_SIZE 2048		/* frames waiting for one engine */
#define RDS_ETH_OUT_BATCH 64		/* hand-offs gathered per destination */
#define RDS_ETH_DRAIN_BURST 32
#define RDS_ETH_SHINFO_POOL 8191	/* zero-copy fragments in flight */

/* ------------------------------------------------------------------ */
/* Queues */

int
rds_eth_steer_queue_of(const struct rds_eth_port *p, unsigned int eid)
{
	unsigned int n = RTE_MAX(1u, (unsigned int)rds_lib->conf.nb_engines);
	unsigned int i = (eid + n - p->home % n) % n;

	return i < p->nb_rxq ? (int)i : -1;
}

/* ------------------------------------------------------------------ */
/* rte_flow rules */

static struct rte_flow *
rds_eth_flow(const struct rds_eth_port *p, uint32_t peer, uint32_t local,
	     uint16_t q, bool validate_only, int *ret)
{
	const struct rte_flow_attr attr = { .ingress = 1 };
	struct rte_flow_item_ipv4 ip_spec, ip_mask;
	struct rte_flow_item_udp udp_spec, udp_mask;
	struct rte_flow_action_queue queue = { .index = (uint16_t)(p->rxq + q) };
	struct rte_flow_item pat[4];
	struct rte_flow_action act[2];
	struct rte_flow_error err;
	struct rte_flow *fl = NULL;

	memset(&ip_spec, 0, sizeof(ip_spec));
	memset(&ip_mask, 0, sizeof(ip_mask));
	memset(&udp_spec, 0, sizeof(udp_spec));
	memset(&udp_mask, 0, sizeof(udp_mask));
	memset(pat, 0, sizeof(pat));
	memset(act, 0, sizeof(act));
	ip_spec.hdr.src_addr = peer;
	ip_spec.hdr.dst_addr = local;
	ip_mask.hdr.src_addr = RTE_BE32(0xffffffff);
	ip_mask.hdr.dst_addr = RTE_BE32(0xffffffff);
	udp_spec.hdr.dst_port = rte_cpu_to_be_16(p->udp_port);
	udp_mask.hdr.dst_port = RTE_BE16(0xffff);
	pat[0].type = RTE_FLOW_ITEM_TYPE_ETH;
	pat[1].type = RTE_FLOW_ITEM_TYPE_IPV4;
	pat[1].spec = &ip_spec;
	pat[1].mask = &ip_mask;
	pat[2].type = RTE_FLOW_ITEM_TYPE_UDP;
	pat[2].spec = &udp_spec;
	pat[2].mask = &udp_mask;
	pat[3].type = RTE_FLOW_ITEM_TYPE_END;
	act[0].type = RTE_FLOW_ACTION_TYPE_QUEUE;
	act[0].conf = &queue;
	act[1].type = RTE_FLOW_ACTION_TYPE_END;
	memset(&err, 0, sizeof(err));
	if (validate_only)
		*ret = rte_flow_validate(p->port_id, &attr, pat, act, &err);
	else {
		fl = rte_flow_create(p->port_id, &attr, pat, act, &err);
		*ret = fl == NULL ? -rte_errno : 0;
	}
	if (*ret != 0)
		ETH_LOG(DEBUG, "port %u: rte_flow %s: %s (%s)", p->port_id,
			validate_only ? "validate" : "create",
			err.message != NULL ? err.message : "no message",
			strerror(-*ret));
	return fl;
}

void
rds_eth_steer_port_probe(struct rds_eth_port *p)
{
	unsigned int i;
	int ret;

	for (i = 0; i < RTE_DIM(p->rxq_of); i++)
		p->rxq_of[i] = (int8_t)rds_eth_steer_queue_of(p, i);
	p->flow_ok = false;
	if (p->nb_rxq < 2)
		return;
	/* A rule of the shape the connections get, to the last queue. */
	rds_eth_flow(p, RTE_BE32(0x0a000001), RTE_BE32(0x0a000002),
		     (uint16_t)(p->nb_rxq - 1), true, &ret);
	p->flow_ok = ret == 0;
	ETH_LOG(INFO, "port %u: %u receive queues, %s", p->port_id, p->nb_rxq,
		p->flow_ok ? "rte_flow steering per connection" :
		"no rte_flow (frames handed to their engine in software)");
}

void
rds_eth_steer_conn_add(struct rds_eth_conn *ec)
{
	struct rds_eth_port *p = ec->port;
	struct rds_eth_engine *ee = ec->ee;
	int q, ret;

	/* No rule for an IPv6 connection (its frames reach their engine by
	 * the hand-off). */
	if (!__atomic_load_n(&p->flow_ok, __ATOMIC_RELAXED) ||
	    ec->flow != NULL || ee == NULL || ec->v6)
		return;
	q = rds_eth_steer_queue_of(p, ec->c->eng->id);
	if (q < 0)
		return;
	ec->flow = rds_eth_flow(p, ec->fip, ec->lip, (uint16_t)q, false, &ret);
	if (ec->flow != NULL) {
		ee->stats.flow_rules++;
		return;
	}
	/* Validated, yet refused (net_tap without the kernel's multiq
	 * qdisc): the port's connections go by the hand-off from now on. */
	ee->stats.flow_fail++;
	if (__atomic_exchange_n(&p->flow_ok, false, __ATOMIC_RELAXED))
		ETH_LOG(WARNING, "port %u: rte_flow rule refused (%s): frames "
			"are handed to their engine in software", p->port_id,
			strerror(-ret));
}

void
rds_eth_steer_conn_del(struct rds_eth_conn *ec)
{
	struct rte_flow_error err;

	if (ec->flow == NULL)
		return;
	if (rte_flow_destroy(ec->port->port_id, ec->flow, &err) != 0)
		ETH_LOG(DEBUG, "port %u: rte_flow_destroy: %s",
			ec->port->port_id,
			err.message != NULL ? err.message : "failed");
	ec->flow = NULL;
}

/* ------------------------------------------------------------------ */
/* Software hand-off */

int
rds_eth_steer_engine_init(struct rds_engine *e, struct rds_eth_engine *ee)
{
	static uint32_t gen;
	unsigned int n = rds_lib->conf.nb_engines, d;
	char name[RTE_RING_NAMESIZE];

	if (n < 2)
		return 0;
	snprintf(name, sizeof(name), "rds_eth_in%u_%u", e->id,
		 __atomic_fetch_add(&gen, 1, __ATOMIC_RELAXED));
	ee->inbox = rte_ring_create_elem(name, sizeof(struct rds_eth_handoff),
					 RDS_ETH_INBOX_SIZE, SOCKET_ID_ANY,
					 RING_F_SC_DEQ);
	if (ee->inbox == NULL) {
		ETH_LOG(ERR, "engine %u: hand-off ring: %s", e->id,
			rte_strerror(rte_errno));
		return -ENOMEM;
	}
	for (d = 0; d < n; d++) {
		if (d == e->id)
			continue;
		ee->out[d] = rds_mem_zalloc("rds_eth_out", sizeof(*ee->out[d]) *
					    RDS_ETH_OUT_BATCH);
		if (ee->out[d] == NULL)
			return -ENOMEM;
	}
	return 0;
}

void
rds_eth_steer_engine_fini(struct rds_eth_engine *ee)
{
	struct rds_eth_handoff h;
	unsigned int d, k;

	for (d = 0; d < RTE_DIM(ee->out); d++) {
		for (k = 0; ee->out[d] != NULL && k < ee->nb_out[d]; k++)
			rte_pktmbuf_free(ee->out[d][k].m);
		ee->nb_out[d] = 0;
		rds_mem_free(ee->out[d]);
		ee->out[d] = NULL;
	}
	if (ee->inbox == NULL)
		return;
	while (rte_ring_dequeue_elem(ee->inbox, &h, sizeof(h)) == 0)
		rte_pktmbuf_free(h.m);
	rte_ring_free(ee->inbox);
	ee->inbox = NULL;
}

static void
rds_eth_steer_flush_one(struct rds_eth_engine *ee, unsigned int d)
{
	struct rds_engine *de = rds_lib->engines[d];
	struct rds_eth_engine *dee = de != NULL ? rds_eth_engine(de) : NULL;
	unsigned int n = ee->nb_out[d], k = 0;

	ee->nb_out[d] = 0;
	if (dee != NULL && dee->inbox != NULL)
		k = rte_ring_enqueue_burst_elem(dee->inbox, ee->out[d],
						sizeof(*ee->out[d]), n, NULL);
	ee->stats.rx_handoff += k;
	ee->stats.rx_handoff_drop += n - k;
	for (; k < n; k++)
		rte_pktmbuf_free(ee->out[d][k].m);
}

void
rds_eth_steer_handoff(struct rds_engine *e, unsigned int owner,
		      struct rds_eth_port *p, struct rte_mbuf *m,
		      const struct rds_eth_frame *f)
{
	struct rds_eth_engine *ee = rds_eth_engine(e);
	struct rds_eth_handoff *h;

	if (unlikely(owner >= RTE_DIM(ee->out) || ee->out[owner] == NULL)) {
		ee->stats.rx_handoff_drop++;
		rte_pktmbuf_free(m);
		return;
	}
	if (ee->nb_out[owner] == RDS_ETH_OUT_BATCH)
		rds_eth_steer_flush_one(ee, owner);
	h = &ee->out[owner][ee->nb_out[owner]++];
	h->m = m;
	h->p = p;
	h->f = *f;
}

void
rds_eth_steer_flush(struct rds_engine *e)
{
	struct rds_eth_engine *ee = rds_eth_engine(e);
	unsigned int d, n = rds_lib->conf.nb_engines;

	for (d = 0; d < n && d < RTE_DIM(ee->out); d++)
		if (ee->nb_out[d] != 0)
			rds_eth_steer_flush_one(ee, d);
}

unsigned int
rds_eth_steer_drain(struct rds_engine *e)
{
	struct rds_eth_engine *ee = rds_eth_engine(e);
	struct rds_eth_handoff h[RDS_ETH_DRAIN_BURST];
	unsigned int n, k, total = 0;

	if (ee->inbox == NULL)
		return 0;
	do {
		n = rte_ring_dequeue_burst_elem(ee->inbox, h, sizeof(h[0]),
						RTE_DIM(h), NULL);
		for (k = 0; k < n; k++)
			rds_eth_rx_frame(e, h[k].p, h[k].m, &h[k].f);
		total += n;
	} while (n == RTE_DIM(h) && total < 4 * RTE_DIM(h));
	return total;
}

/* ------------------------------------------------------------------ */
/* Zero-copy transmit */

struct rds_eth_zc {
	struct rte_mbuf_ext_shared_info sh;
	struct rds_msg *buf;		/* the message whose buffer this is */
	struct rte_mempool *mp;
};

static void
rds_eth_zc_free(void *addr __rte_unused, void *opaque)
{
	struct rds_eth_zc *z = opaque;

	rds_msg_put(z->buf);
	rte_mempool_put(z->mp, z);
}

int
rds_eth_zc_port_init(struct rds_eth_port *p, const struct rte_eth_dev_info *di)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	const struct rte_bus *bus;

	p->tx_multi_seg = false;
	bus = di->device != NULL ? rte_dev_bus(di->device) : NULL;
	/* A vdev does no DMA (it reads the segments at their virtual
	 * addresses): any memory of the process will do, in either IOVA
	 * mode. A device that DMAs: IOVA as VA and DPDK memory only. */
	p->zc_check_mem = bus == NULL || strcmp(rte_bus_name(bus), "vdev") != 0;
	if (p->zc_check_mem && rte_eal_iova_mode() != RTE_IOVA_VA) {
		ETH_LOG(INFO, "port %u: IOVA as PA: fragments are copied",
			p->port_id);
		return 0;
	}
	snprintf(name, sizeof(name), "rds_eth_zc_%u", p->port_id);
	p->shinfo_pool = rte_mempool_lookup(name);
	if (p->shinfo_pool == NULL)
		p->shinfo_pool = rte_mempool_create(name, RDS_ETH_SHINFO_POOL,
			sizeof(struct rds_eth_zc), 256, 0, NULL, NULL, NULL,
			NULL, rte_eth_dev_socket_id(p->port_id), 0);
	if (p->shinfo_pool == NULL) {
		ETH_LOG(WARNING, "port %u: no zero-copy pool: %s", p->port_id,
			rte_strerror(rte_errno));
		return 0;
	}
	p->tx_multi_seg = true;
	return 0;
}

struct rte_mbuf *
rds_eth_zc_attach(struct rds_eth_port *p, struct rds_msg *msg,
		  const uint8_t *data, uint32_t len)
{
	struct rds_msg *b = msg;
	struct rds_eth_zc *z;
	struct rte_mbuf *m;
	void *z0;

	/* The message whose buffer the payload is (a borrowed payload is
	 * its owner's). */
	while (b->payload != b->buf && b->owner != NULL)
		b = b->owner;
	if (p->zc_check_mem && rte_mem_virt2memseg_list(data) == NULL)
		return NULL;
	if (rte_mempool_get(p->shinfo_pool, &z0) != 0)
		return NULL;
	z = z0;
	m = rte_pktmbuf_alloc(p->pool);
	if (m == NULL) {
		rte_mempool_put(p->shinfo_pool, z);
		return NULL;
	}
	z->buf = b;
	z->mp = p->shinfo_pool;
	z->sh.free_cb = rds_eth_zc_free;
	z->sh.fcb_opaque = z;
	rte_mbuf_ext_refcnt_set(&z->sh, 1);
	__atomic_fetch_add(&b->refs, 1, __ATOMIC_ACQ_REL);
	rte_pktmbuf_attach_extbuf(m, (void *)(uintptr_t)data,
				  (rte_iova_t)(uintptr_t)data, (uint16_t)len,
				  &z->sh);
	m->data_off = 0;
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	return m;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ib transport's ops table, per-engine state (CM event channel,
 * handoff ring, live connections), devices and protection domains, the
 * engine poll, and the test hooks. Info records and counters:
 * rds_ib_info.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <arpa/inet.h>

#include <rte_hash.h>
#include <rte_jhash.h>
#include <rte_malloc.h>

#include "rds_ib.h"

RTE_LOG_REGISTER(rds_ib_logtype, pmd.rds.ib, INFO);

unsigned int rds_ib_slot;
static bool rds_ib_wanted;	/* some local address is "ib" */
static uint32_t rds_ib_inject_gen;
static uint32_t rds_ib_rx_stall_gen;

static struct rds_ib_dev rds_ib_devs[RDS_IB_MAX_DEVS];
static unsigned int rds_ib_nb_devs;
static rte_spinlock_t rds_ib_dev_lock = RTE_SPINLOCK_INITIALIZER;

/* One protection domain per device, shared by every connection. */
struct rds_ib_dev *
rds_ib_dev_get(struct ibv_context *verbs)
{
	struct ibv_device_attr attr;
	struct rds_ib_dev *d = NULL;
	unsigned int i;

	rte_spinlock_lock(&rds_ib_dev_lock);
	for (i = 0; i < rds_ib_nb_devs; i++)
		if (rds_ib_devs[i].verbs == verbs)
			d = &rds_ib_devs[i];
	if (d == NULL && rds_ib_nb_devs < RDS_IB_MAX_DEVS) {
		d = &rds_ib_devs[rds_ib_nb_devs];
		d->verbs = verbs;
		d->idx = rds_ib_nb_devs;
		d->pd = ibv_alloc_pd(verbs);
		if (d->pd == NULL) {
			d = NULL;
		} else {
			d->max_inline = 0;
			d->max_rd_atom = 1;
			d->max_init_rd_atom = 1;
			d->max_srq_wr = 0;
			d->max_cqe = 0;
			d->srq_warned = false;
			d->async_running = false;
			if (ibv_query_device(verbs, &attr) == 0) {
				IB_LOG(INFO, "device %s: max_qp_wr %d max_sge %d "
				       "max_srq_wr %d max_cqe %d",
				       ibv_get_device_name(verbs->device),
				       attr.max_qp_wr, attr.max_sge,
				       attr.max_srq_wr, attr.max_cqe);
				d->max_rd_atom = (uint8_t)RTE_MAX(1,
					RTE_MIN(attr.max_qp_rd_atom, 16));
				d->max_init_rd_atom = (uint8_t)RTE_MAX(1,
					RTE_MIN(attr.max_qp_init_rd_atom, 16));
				if (attr.max_srq > 0 && attr.max_srq_wr > 0)
					d->max_srq_wr = (uint32_t)attr.max_srq_wr;
				if (attr.max_cqe > 0)
					d->max_cqe = (uint32_t)attr.max_cqe;
			}
			/* Without a reader of its events, no SRQ (a QP or
			 * SRQ with an event not acknowledged cannot be
			 * destroyed). */
			if (rds_ib_async_start(d) != 0)
				d->max_srq_wr = 0;
			rds_ib_nb_devs++;
		}
	}
	rte_spinlock_unlock(&rds_ib_dev_lock);
	return d;
}

static int
rds_ib_init(const struct rte_rds_conf *conf)
{
	unsigned int i;

	rds_ib_wanted = false;
	for (i = 0; i < conf->nb_addrs; i++)
		if (strcmp(rte_rds_conf_addr(conf, i)->transport, "ib") == 0)
			rds_ib_wanted = true;
	for (i = 0; i < rds_transport_count(); i++)
		if (rds_transport_at(i)->trans_id == RDS_TRANS_IB)
			rds_ib_slot = i;
	if (rds_ib_wanted)
		rds_ib_zc_init();
	return 0;
}

static void
rds_ib_fini(void)
{
	unsigned int i;

	rds_ib_unlisten();
	rds_ib_mr_cache_flush();
	if (rds_ib_wanted)
		rds_ib_zc_fini();
	for (i = 0; i < rds_ib_nb_devs; i++) {
		rds_ib_async_stop(&rds_ib_devs[i]);
		ibv_dealloc_pd(rds_ib_devs[i].pd);
	}
	rds_ib_nb_devs = 0;
	for (i = 0; i < rds_lib->nb_laddrs; i++) {
		struct rds_laddr *la = rds_lib->laddrs[i];

		if (la->trans == &rds_ib_transport) {
			rds_mem_free(la->tp);
			la->tp = NULL;
		}
	}
}

const char *
rds_ib_addr_str(const struct in6_addr *a, char *buf, size_t len)
{
	if (rds_addr_is_v4(a)) {
		uint32_t v4 = rds_addr_v4(a);

		return inet_ntop(AF_INET, &v4, buf, (socklen_t)len);
	}
	return inet_ntop(AF_INET6, a, buf, (socklen_t)len);
}

/*
 * The address must belong to an RDMA device: bind an id to it (an IPv4
 * or IPv6 one, as rds_ib_laddr_check). A link-local IPv6 address is
 * bound on its interface, the one holding it (rdma_bind_addr takes a
 * link-local address whether or not it is configured: the kernel checks
 * the interface first, and without a scope says EADDRNOTAVAIL).
 */
static int
rds_ib_laddr_check(struct rds_laddr *la)
{
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id = NULL;
	struct rds_ib_laddr *il;
	struct sockaddr_storage ss;
	char a[INET6_ADDRSTRLEN];
	uint32_t scope = 0;
	socklen_t len;
	int ret;

	il = rds_mem_zalloc("rds_ib_laddr", sizeof(*il));
	if (il == NULL)
		return -ENOMEM;
	la->tp = il;
	/* The options first: a bad one is EINVAL whatever the devices. */
	ret = rds_ib_opts_parse(la->args, &il->opts);
	if (ret != 0)
		return ret;
	if (!il->opts.cm_port_given && !rds_addr_is_v4(&la->addr))
		il->opts.cm_port = RDS_IB_DEF_CM_PORT6;
	if (rds_addr_is_linklocal(&la->addr)) {
		scope = rds_addr_ifindex(&la->addr, NULL);
		if (scope == 0) {
			IB_LOG(ERR, "%s: a link-local address on no interface "
			       "of this host", rds_ib_addr_str(&la->addr, a,
							       sizeof(a)));
			return -EADDRNOTAVAIL;
		}
		la->ifindex = scope;
	}
	il->stall_tsc = (uint64_t)il->opts.stall_ms * rds_clock_hz() / 1000;
	il->connect_tsc = il->stall_tsc == 0 ? 0 :
		(uint64_t)RTE_MAX(RDS_IB_CONNECT_TIMEOUT_MS,
				  2 * il->opts.stall_ms) *
		rds_clock_hz() / 1000;
	ret = -EADDRNOTAVAIL;

	ch = rdma_create_event_channel();
	if (ch == NULL) {
		IB_LOG(ERR, "no RDMA-CM (%s): is an RDMA device present?",
		       strerror(errno));
		return -ENODEV;
	}
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) == 0) {
		len = rds_addr_sockaddr(&la->addr, 0, scope, &ss);
		RTE_SET_USED(len);
		if (rdma_bind_addr(id, (struct sockaddr *)&ss) == 0 &&
		    id->verbs != NULL) {
			const char *name = ibv_get_device_name(id->verbs->device);

			/* Its device's PD: memory registers before any
			 * connection exists. */
			il->dev = rds_ib_dev_get(id->verbs);
			ret = il->dev != NULL ? 0 : -ENODEV;
			if (ret == 0 && la->dev[0] != '\0' &&
			    (name == NULL || strcmp(name, la->dev) != 0)) {
				IB_LOG(ERR, "dev=%s given, but the address is "
				       "on %s", la->dev, name != NULL ? name :
				       "an unnamed device");
				ret = -ENODEV;
			}
		}
		rdma_destroy_id(id);
	}
	rdma_destroy_event_channel(ch);
	if (ret != 0)
		IB_LOG(ERR, "address %s is not on an RDMA device",
		       rds_ib_addr_str(&la->addr, a, sizeof(a)));
	return ret;
}

static int
rds_ib_engine_init(struct rds_engine *e)
{
	struct rte_hash_parameters hp = {
		.entries = RTE_MAX(rds_lib->conf.max_conns, 8u),
		.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
		.key_len = sizeof(uint32_t),
		.hash_func = rte_jhash,
		.socket_id = rds_lib->conf.socket_id,
	};
	struct rds_ib_engine *ie;
	char name[RTE_RING_NAMESIZE];
	int flags;

	if (!rds_ib_wanted) {
		e->tp[rds_ib_slot] = NULL;
		return 0;
	}
	ie = rds_mem_zalloc("rds_ib_engine", sizeof(*ie));
	if (ie == NULL)
		return -ENOMEM;
	ie->e = e;
	TAILQ_INIT(&ie->conns);
	TAILQ_INIT(&ie->flush);
	ie->inject_seen = __atomic_load_n(&rds_ib_inject_gen,
					  __ATOMIC_ACQUIRE);
	ie->rx_stall_seen = __atomic_load_n(&rds_ib_rx_stall_gen,
					    __ATOMIC_ACQUIRE);
	e->tp[rds_ib_slot] = ie;
	rds_engine_poll_transport(e, &rds_ib_transport);
	ie->ch = rdma_create_event_channel();
	if (ie->ch == NULL)
		return -ENODEV;
	flags = fcntl(ie->ch->fd, F_GETFL);
	if (flags < 0 || fcntl(ie->ch->fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return -errno;
	snprintf(name, sizeof(name), "rds_ib_handoff_%u", e->id);
	ie->handoff = rte_ring_create(name, 256, rds_lib->conf.socket_id,
				      RING_F_SC_DEQ);
	if (ie->handoff == NULL)
		return -ENOMEM;
	/* QP number -> connection, for the completions of the SRQs. */
	snprintf(name, sizeof(name), "rds_ib_qpn_%u", e->id);
	hp.name = name;
	ie->qpn = rte_hash_create(&hp);
	if (ie->qpn == NULL)
		return -ENOMEM;
	if (e->id == 0)
		return rds_ib_listen(e);
	return 0;
}

static void
rds_ib_engine_fini(struct rds_engine *e)
{
	struct rds_ib_engine *ie = rds_ib_engine(e);
	void *p;

	if (ie == NULL)
		return;
	if (e->id == 0)
		rds_ib_unlisten();
	if (ie->handoff != NULL) {
		while (rte_ring_dequeue(ie->handoff, &p) == 0) {
			struct rds_ib_handoff *h = p;

			rdma_reject(h->id, NULL, 0);
			rdma_destroy_id(h->id);
			rds_mem_free(h);
		}
		rte_ring_free(ie->handoff);
	}
	if (ie->ch != NULL)
		rdma_destroy_event_channel(ie->ch);
	rds_ib_edev_fini(ie);
	rte_hash_free(ie->qpn);
	rds_mem_free(ie);
	e->tp[rds_ib_slot] = NULL;
}

static int
rds_ib_conn_alloc(struct rds_conn *c)
{
	struct rds_ib_conn *ic = rds_mem_zalloc("rds_ib_conn", sizeof(*ic));

	if (ic == NULL)
		return -ENOMEM;
	ic->c = c;
	ic->la = rds_ib_laddr(c->la);
	c->tp = ic;
	return 0;
}

static void
rds_ib_conn_free(struct rds_conn *c)
{
	rds_ib_conn_shutdown(c);
	rds_mem_free(c->tp);
	c->tp = NULL;
}

static void
rds_ib_inject(struct rds_ib_engine *ie)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };
	struct rds_ib_conn *ic;

	TAILQ_FOREACH(ic, &ie->conns, link) {
		if (ic->qp != NULL &&
		    ibv_modify_qp(ic->qp, &attr, IBV_QP_STATE) == 0)
			ie->stats.qp_errors_injected++;
	}
}

static const char *
rds_ib_conn_name(const struct rds_conn *c, char *buf, size_t len)
{
	char l[INET6_ADDRSTRLEN], f[INET6_ADDRSTRLEN];

	snprintf(buf, len, "%s -> %s",
		 rds_ib_addr_str(&c->key.laddr, l, sizeof(l)),
		 rds_ib_addr_str(&c->key.faddr, f, sizeof(f)));
	return buf;
}

/*
 * Progress watch, once per engine poll and established connection. Work
 * waits on the QP when a signalled SEND (or RDMA operation) is not
 * complete, or for room in it when the last transmit found the ring full
 * or no credits while the core still has something to send. Progress is
 * a send completion or credits coming back. Waiting without progress for
 * stall_ms (an RNR NAK that never ends, a peer that stopped
 * answering, a QP that stopped on its own) drops the connection: RDS
 * reconnects and retransmits everything not acknowledged.
 */
static void
rds_ib_watch(struct rds_ib_engine *ie, struct rds_ib_conn *ic)
{
	uint64_t stall_tsc = ic->la->stall_tsc;
	struct rds_conn *c = ic->c;
	uint64_t now;
	bool waiting;
	char name[96];

	if (stall_tsc == 0 || ic->cstate != RDS_IB_ESTABLISHED ||
	    c->state != RDS_CONN_UP || c->drop_pending)
		return;
	now = c->eng->now;	/* this pass's start: no rdtsc a connection */
	waiting = ic->s_sig > ic->s_tail ||
		  (ic->tx_blocked && rds_conn_has_work(c));
	if (!waiting || (int64_t)(now - ic->progress_tsc) < 0) {
		ic->progress_tsc = now;
		return;
	}
	if (now - ic->progress_tsc < stall_tsc)
		return;
	ie->stats.stalls++;
	IB_LOG(WARNING, "%s: no progress for %u ms with work waiting (SENDs "
	       "posted %" PRIu64 ", completed %" PRIu64 ", last signalled %"
	       PRIu64 "; %s%s): resetting the connection",
	       rds_ib_conn_name(c, name, sizeof(name)),
	       ic->la->opts.stall_ms, ic->s_head, ic->s_tail, ic->s_sig,
	       ic->tx_blocked ? "transmit blocked" : "transmit not blocked",
	       ic->flowctl ? (ic->credits == 0 ? ", no credits" :
			      ", credits left") : "");
	ic->progress_tsc = now;
	rds_conn_error(c, NULL);
}

/* A connection attempt (either role, or one the CM lost track of) with
 * no outcome for long: drop it, the core backs off and tries again. */
static void
rds_ib_watch_connect(struct rds_ib_engine *ie, struct rds_conn *c)
{
	struct rds_ib_conn *ic = c->tp;
	char name[96];

	if (ic == NULL || ic->la->connect_tsc == 0 || c->drop_pending ||
	    c->state != RDS_CONN_CONNECTING ||
	    ic->cstate == RDS_IB_ESTABLISHED ||
	    rds_clock_tsc() - ic->connect_tsc < ic->la->connect_tsc)
		return;
	ie->stats.connect_timeouts++;
	IB_LOG(WARNING, "%s: %s connection attempt without an outcome after "
	       "%" PRIu64 " ms: dropping it", rds_ib_conn_name(c, name,
	       sizeof(name)), ic->passive ? "passive" : "active",
	       (rds_clock_tsc() - ic->connect_tsc) * 1000 / rds_clock_hz());
	rds_conn_error(c, NULL);
}

static unsigned int
rds_ib_poll(struct rds_engine *e)
{
	struct rds_ib_engine *ie = rds_ib_engine(e);
	struct rdma_cm_event *ev;
	struct rds_ib_conn *ic, *next;
	struct rds_conn *c;
	unsigned int work = 0;
	uint32_t gen;
	void *p;

	if (ie == NULL)
		return 0;
	gen = __atomic_load_n(&rds_ib_inject_gen, __ATOMIC_ACQUIRE);
	if (gen != ie->inject_seen) {
		ie->inject_seen = gen;
		rds_ib_inject(ie);
	}
	gen = __atomic_load_n(&rds_ib_rx_stall_gen, __ATOMIC_ACQUIRE);
	if (gen != ie->rx_stall_seen) {
		ie->rx_stall_seen = gen;
		TAILQ_FOREACH(ic, &ie->conns, link) {
			if (ic->srq)
				continue;
			ic->rx_frozen = true;
			ie->stats.rx_stalls_injected++;
		}
		rds_ib_srq_freeze(ie);
	}
	if (ie->cm_next_tsc == 0 || e->now >= ie->cm_next_tsc) {
		bool settled = true;

		while (rdma_get_cm_event(ie->ch, &ev) == 0) {
			rds_ib_cm_event(e, ev);	/* acks the event */
			work++;
		}
		/* Connecting, or nothing to poll at all: look again at
		 * once; all settled: in a while. */
		TAILQ_FOREACH(c, &e->conns, link) {
			if (c->trans->trans_id != RDS_TRANS_IB ||
			    c->state == RDS_CONN_UP)
				continue;
			settled = false;
			rds_ib_watch_connect(ie, c);
		}
		ie->cm_next_tsc = settled ? e->now + rds_clock_hz() /
				  1000000 * RDS_IB_CM_POLL_US : 0;
	}
	while (rte_ring_dequeue(ie->handoff, &p) == 0) {
		rds_ib_accept(e, p);
		rds_mem_free(p);
		work++;
	}
	work += rds_ib_srq_poll(ie);
	for (ic = TAILQ_FIRST(&ie->conns); ic != NULL; ic = next) {
		next = TAILQ_NEXT(ic, link);
		if (!ic->srq)
			work += rds_ib_poll_recv(ic);
		work += rds_ib_poll_send(ic);
		rds_ib_watch(ie, ic);
	}
	return work;
}

const struct rds_transport rds_ib_transport = {
	.name = "ib",
	.info_name = "infiniband",
	.trans_id = RDS_TRANS_IB,
	/* Plain verbs: no masked atomics. IPv4 and IPv6, as rds_rdma. */
	.flags = RDS_TRANS_F_RDMA | RDS_TRANS_F_IPV6,
	.init = rds_ib_init,
	.fini = rds_ib_fini,
	.laddr_check = rds_ib_laddr_check,
	.engine_init = rds_ib_engine_init,
	.engine_fini = rds_ib_engine_fini,
	.conn_alloc = rds_ib_conn_alloc,
	.conn_free = rds_ib_conn_free,
	.conn_connect = rds_ib_conn_connect,
	.conn_shutdown = rds_ib_conn_shutdown,
	.xmit = rds_ib_xmit,
	.xmit_op = rds_ib_xmit_op,
	.xmit_ack = rds_ib_xmit_ack,
	.poll = rds_ib_poll,
	.flush = rds_ib_flush,
	.mr_reg = rds_ib_mr_reg,
	.mr_free = rds_ib_mr_free,
	.info = rds_ib_info,
	.xstat_names = rds_ib_xstat_names,
	.nb_xstats = RDS_IB_NB_XSTATS,
	.xstats = rds_ib_xstats,
};

RDS_TRANSPORT_REGISTER(rds_ib_transport);

int
rte_rds_ib_inject_qp_error(void)
{
	if (rds_lib == NULL)
		return RDS_ERR(ENXIO);
	__atomic_fetch_add(&rds_ib_inject_gen, 1, __ATOMIC_RELEASE);
	return 0;
}

int
rte_rds_ib_inject_rx_stall(void)
{
	if (rds_lib == NULL)
		return RDS_ERR(ENXIO);
	__atomic_fetch_add(&rds_ib_rx_stall_gen, 1, __ATOMIC_RELEASE);
	return 0;
}

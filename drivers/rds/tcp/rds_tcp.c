/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tcp transport's ops table, per-address options, per-engine state
 * (an epoll set, the hand-off ring of accepted sockets) and the engine
 * poll: epoll_wait with timeout 0 (every pass while the transport is
 * busy, every RDS_TCP_COLD_US otherwise), then the acknowledgement
 * checks of the lanes with bytes in flight and the frames the core could
 * not take yet. An engine with no socket of ours makes no call at all.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/epoll.h>

#include <rte_kvargs.h>
#include <rte_ring.h>

#include "rds_tcp.h"

RTE_LOG_REGISTER(rds_tcp_logtype, pmd.rds.tcp, INFO);

unsigned int rds_tcp_slot;
uint32_t rds_tcp_inject_gen;
/* rte_rds_tcp_inject_reset's address (:: for all), written before the
 * generation is bumped and read after it is seen. */
static struct in6_addr rds_tcp_inject_addr;
static bool rds_tcp_wanted;	/* some local address is "tcp" */

/* ------------------------------------------------------------------ */
/* Options */

static int
rds_tcp_opt_uint(const char *v, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long x;
	char *end;

	if (v == NULL || *v < '0' || *v > '9')
		return -EINVAL;
	errno = 0;
	x = strtoull(v, &end, 10);
	if (errno != 0 || *end != '\0' || x < min || x > max)
		return -EINVAL;
	*out = x;
	return 0;
}

int
rds_tcp_opts_parse(const char *args, struct rds_tcp_opts *o)
{
	static const char *const keys[] = {
		"dev", "port", "sndbuf", "rcvbuf", "accept_wait_ms", "window",
		NULL,
	};
	static const struct {
		const char *key;
		uint64_t min, max;
	} nums[] = {
		{ "port", 1, UINT16_MAX },
		{ "sndbuf", 0, INT32_MAX / 2 },
		{ "rcvbuf", 0, INT32_MAX / 2 },
		{ "accept_wait_ms", 1, 3600000 },
		{ "window", 1, RDS_TCP_SENT_MAX },
	};
	struct rte_kvargs *kv;
	uint64_t val[RTE_DIM(nums)];
	unsigned int i;
	int ret = 0;

	memset(o, 0, sizeof(*o));
	o->port = RDS_TCP_PORT;
	o->accept_wait_ms = RDS_TCP_DEF_ACCEPT_WAIT_MS;
	o->window = RDS_TCP_SENT_MAX;
	if (args == NULL || args[0] == '\0')
		return 0;
	if (rds_transport_args_check("tcp", args, keys) != 0)
		return -EINVAL;
	kv = rte_kvargs_parse(args, keys);
	if (kv == NULL)
		return -EINVAL;
	val[0] = o->port;
	val[1] = o->sndbuf;
	val[2] = o->rcvbuf;
	val[3] = o->accept_wait_ms;
	val[4] = o->window;
	for (i = 0; i < RTE_DIM(nums) && ret == 0; i++) {
		const char *v;

		if (rte_kvargs_count(kv, nums[i].key) == 0)
			continue;
		v = rte_kvargs_get(kv, nums[i].key);
		ret = rds_tcp_opt_uint(v, nums[i].min, nums[i].max, &val[i]);
		if (ret != 0)
			TCP_LOG(ERR, "option %s=%s: not a number from %" PRIu64
				" to %" PRIu64, nums[i].key, v != NULL ? v : "",
				nums[i].min, nums[i].max);
	}
	rte_kvargs_free(kv);
	if (ret != 0)
		return ret;
	o->port = (uint16_t)val[0];
	o->sndbuf = (uint32_t)val[1];
	o->rcvbuf = (uint32_t)val[2];
	o->accept_wait_ms = (uint32_t)val[3];
	o->window = (uint32_t)val[4];
	return 0;
}

/* ------------------------------------------------------------------ */
/* Library and addresses */

static int
rds_tcp_init(const struct rte_rds_conf *conf)
{
	unsigned int i;

	rds_tcp_wanted = false;
	for (i = 0; i < conf->nb_addrs; i++)
		if (strcmp(rte_rds_conf_addr(conf, i)->transport, "tcp") == 0)
			rds_tcp_wanted = true;
	for (i = 0; i < rds_transport_count(); i++)
		if (rds_transport_at(i) == &rds_tcp_transport)
			rds_tcp_slot = i;
	return 0;
}

static void
rds_tcp_fini(void)
{
	unsigned int i;

	rds_tcp_unlisten();
	for (i = 0; rds_lib != NULL && i < rds_lib->nb_laddrs; i++) {
		struct rds_laddr *la = rds_lib->laddrs[i];

		if (la->trans == &rds_tcp_transport) {
			rds_mem_free(la->tp);
			la->tp = NULL;
		}
	}
}

/* The options, and a link-local address's interface (EADDRNOTAVAIL
 * without one, as rds_tcp_laddr_check); the address is checked when its
 * listening socket binds it (engine 0's init): EADDRNOTAVAIL there. */
static int
rds_tcp_laddr_check(struct rds_laddr *la)
{
	struct rds_tcp_laddr *tl;
	char a[INET6_ADDRSTRLEN];
	int ret;

	tl = rds_mem_zalloc("rds_tcp_laddr", sizeof(*tl));
	if (tl == NULL)
		return -ENOMEM;
	tl->kind = RDS_TCP_K_LISTEN;
	tl->la = la;
	tl->lfd = -1;
	la->tp = tl;
	ret = rds_tcp_opts_parse(la->args, &tl->opts);
	if (ret != 0)
		return ret;
	if (rds_addr_is_linklocal(&la->addr)) {
		tl->scope = rds_addr_ifindex(&la->addr, la->dev);
		if (tl->scope == 0) {
			TCP_LOG(ERR, "%s: a link-local address on no interface"
				"%s%s", rds_tcp_addr_str(&la->addr, a,
							 sizeof(a)),
				la->dev[0] != '\0' ? " named " : " of this host",
				la->dev);
			return -EADDRNOTAVAIL;
		}
		la->ifindex = tl->scope;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Engines */

int
rds_tcp_ep_add(struct rds_tcp_engine *te, int fd, uint32_t events, void *obj)
{
	struct epoll_event ev = { .events = events, .data.ptr = obj };

	if (epoll_ctl(te->epfd, EPOLL_CTL_ADD, fd, &ev) != 0)
		return -errno;
	te->nb_fds++;
	te->next_wait_tsc = 0;
	return 0;
}

int
rds_tcp_ep_mod(struct rds_tcp_engine *te, int fd, uint32_t events, void *obj)
{
	struct epoll_event ev = { .events = events, .data.ptr = obj };

	if (epoll_ctl(te->epfd, EPOLL_CTL_MOD, fd, &ev) != 0)
		return -errno;
	te->next_wait_tsc = 0;
	return 0;
}

void
rds_tcp_ep_del(struct rds_tcp_engine *te, int fd)
{
	if (epoll_ctl(te->epfd, EPOLL_CTL_DEL, fd, NULL) == 0)
		te->nb_fds--;
}

static int
rds_tcp_engine_init(struct rds_engine *e)
{
	struct rds_tcp_engine *te;
	char name[RTE_RING_NAMESIZE];

	e->tp[rds_tcp_slot] = NULL;
	if (!rds_tcp_wanted)
		return 0;
	te = rds_mem_zalloc("rds_tcp_engine", sizeof(*te));
	if (te == NULL)
		return -ENOMEM;
	te->e = e;
	te->epfd = -1;
	TAILQ_INIT(&te->acks);
	TAILQ_INIT(&te->flush);
	TAILQ_INIT(&te->stalls);
	te->inject_seen = __atomic_load_n(&rds_tcp_inject_gen,
					  __ATOMIC_ACQUIRE);
	e->tp[rds_tcp_slot] = te;
	te->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (te->epfd < 0)
		return -errno;
	snprintf(name, sizeof(name), "rds_tcp_handoff_%u", e->id);
	te->handoff = rte_ring_create(name, RDS_TCP_HANDOFF,
				      rds_lib->conf.socket_id, RING_F_SC_DEQ);
	if (te->handoff == NULL)
		return -ENOMEM;
	rds_engine_poll_transport(e, &rds_tcp_transport);
	if (e->id == 0)
		return rds_tcp_listen(te);
	return 0;
}

static void
rds_tcp_engine_fini(struct rds_engine *e)
{
	struct rds_tcp_engine *te = rds_tcp_engine(e);
	void *p;

	if (te == NULL)
		return;
	if (e->id == 0)
		rds_tcp_unlisten();
	if (te->handoff != NULL) {
		while (rte_ring_dequeue(te->handoff, &p) == 0) {
			struct rds_tcp_handoff *h = p;

			close(h->fd);
			rds_mem_free(h);
		}
		rte_ring_free(te->handoff);
	}
	if (te->epfd >= 0)
		close(te->epfd);
	rds_mem_free(te);
	e->tp[rds_tcp_slot] = NULL;
}

/* ------------------------------------------------------------------ */
/* Connections */

static int
rds_tcp_conn_alloc(struct rds_conn *c)
{
	struct rds_tcp_conn *tc = rds_mem_zalloc("rds_tcp_conn", sizeof(*tc));

	if (tc == NULL)
		return -ENOMEM;
	tc->c = c;
	tc->tl = rds_tcp_laddr(c->la);
	tc->lane.sent_max = tc->tl->opts.window;
	tc->lane.sent = rds_mem_zalloc("rds_tcp_sent", tc->lane.sent_max *
				       sizeof(*tc->lane.sent));
	if (tc->lane.sent == NULL) {
		rds_mem_free(tc);
		return -ENOMEM;
	}
	tc->lower = memcmp(&c->key.laddr, &c->key.faddr,
			   sizeof(c->key.laddr)) < 0;
	tc->lane.kind = RDS_TCP_K_LANE;
	tc->lane.fd = -1;
	tc->lane.tc = tc;
	rds_tcp_rx_init(&tc->lane.rx);
	rds_tcp_conn_timer_init(tc);
	c->tp = tc;
	return 0;
}

static void
rds_tcp_conn_free(struct rds_conn *c)
{
	struct rds_tcp_conn *tc = c->tp;

	if (tc == NULL)
		return;
	rds_tcp_conn_shutdown(c);
	rds_tcp_stall_drop(tc);
	rds_tcp_rx_reset(&tc->lane.rx);
	rds_mem_free(tc->lane.stage);
	rds_mem_free(tc->lane.sent);
	rds_mem_free(tc);
	c->tp = NULL;
}

/* ------------------------------------------------------------------ */
/* The engine's poll */

static void
rds_tcp_inject(struct rds_tcp_engine *te)
{
	static const struct in6_addr any = IN6ADDR_ANY_INIT;
	struct in6_addr addr = rds_tcp_inject_addr;
	struct rds_conn *c;

	TAILQ_FOREACH(c, &te->e->conns, link) {
		struct rds_tcp_conn *tc = c->tp;
		struct linger lg = { .l_onoff = 1, .l_linger = 0 };

		if (c->trans != &rds_tcp_transport || tc == NULL ||
		    tc->lane.st != RDS_TCP_L_UP ||
		    (!rds_addr_eq(&addr, &any) &&
		     !rds_addr_eq(&addr, &c->key.laddr)))
			continue;
		/* An RST now: the socket is closed at the drop. */
		setsockopt(tc->lane.fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		te->stats.resets_injected++;
		rds_tcp_lane_error(&tc->lane, "reset injected", 0);
	}
}

static void
rds_tcp_event(struct rds_tcp_engine *te, const struct epoll_event *ev)
{
	uint8_t kind = *(const uint8_t *)ev->data.ptr;
	struct rds_tcp_lane *l;

	if (kind == RDS_TCP_K_LISTEN) {
		rds_tcp_accept_ready(te, ev->data.ptr);
		return;
	}
	l = ev->data.ptr;
	l->had_event = true;
	switch (l->st) {
	case RDS_TCP_L_CONNECTING:
	case RDS_TCP_L_KNOCK:
		rds_tcp_lane_connected(l);
		return;
	case RDS_TCP_L_UP:
		break;
	default:
		return;
	}
	/* Data first: what came before an error or the peer's FIN was
	 * acknowledged by TCP and must be delivered. */
	if (ev->events & (EPOLLIN | EPOLLHUP | EPOLLERR | EPOLLRDHUP))
		rds_tcp_lane_read(l);
	if (l->st != RDS_TCP_L_UP)
		return;
	if (ev->events & EPOLLOUT)
		rds_tcp_lane_writable(l);
	if (l->watched)
		rds_tcp_lane_acks(l, te->e->now);
}

static unsigned int
rds_tcp_poll(struct rds_engine *e)
{
	struct rds_tcp_engine *te = rds_tcp_engine(e);
	struct epoll_event ev[RDS_TCP_EVENTS];
	unsigned int work = 0;
	uint32_t gen;
	void *p;
	int i, n;

	if (te == NULL)
		return 0;
	gen = __atomic_load_n(&rds_tcp_inject_gen, __ATOMIC_ACQUIRE);
	if (unlikely(gen != te->inject_seen)) {
		te->inject_seen = gen;
		rds_tcp_inject(te);
	}
	while (rte_ring_dequeue(te->handoff, &p) == 0) {
		rds_tcp_accept(te, p);
		rds_mem_free(p);
		work++;
	}
	if (te->nb_fds != 0 && e->now >= te->next_wait_tsc) {
		te->stats.epoll_waits++;
		n = epoll_wait(te->epfd, ev, RDS_TCP_EVENTS, 0);
		for (i = 0; i < n; i++)
			rds_tcp_event(te, &ev[i]);
		if (n > 0) {
			work += (unsigned int)n;
			te->hot_until_tsc = e->now +
				rds_clock_hz() / 1000000 * RDS_TCP_HOT_US;
		}
		/* Busy lately, or bytes in flight: every pass. */
		te->next_wait_tsc = (e->now < te->hot_until_tsc ||
				     !TAILQ_EMPTY(&te->acks)) ? 0 :
			e->now + rds_clock_hz() / 1000000 * RDS_TCP_COLD_US;
	}
	if (!TAILQ_EMPTY(&te->acks))
		work += rds_tcp_ack_poll(te);
	if (!TAILQ_EMPTY(&te->stalls))
		work += rds_tcp_stall_poll(te);
	return work;
}

const struct rds_transport rds_tcp_transport = {
	.name = "tcp",
	.info_name = "tcp",
	.trans_id = RDS_TRANS_TCP,
	/* No RDMA over TCP, as the kernel's rds_tcp (no t_xmit_rdma). */
	.flags = RDS_TRANS_F_ACKS | RDS_TRANS_F_IPV6,
	.init = rds_tcp_init,
	.fini = rds_tcp_fini,
	.laddr_check = rds_tcp_laddr_check,
	.engine_init = rds_tcp_engine_init,
	.engine_fini = rds_tcp_engine_fini,
	.conn_alloc = rds_tcp_conn_alloc,
	.conn_free = rds_tcp_conn_free,
	.conn_connect = rds_tcp_conn_connect,
	.conn_shutdown = rds_tcp_conn_shutdown,
	.xmit = rds_tcp_xmit,
	.poll = rds_tcp_poll,
	.flush = rds_tcp_flush,
	.info = rds_tcp_info,
	.xstat_names = rds_tcp_xstat_names,
	.nb_xstats = RDS_TCP_NB_XSTATS,
	.xstats = rds_tcp_xstats,
};

RDS_TRANSPORT_REGISTER(rds_tcp_transport);

static int
rds_tcp_inject_reset_addr(const struct in6_addr *laddr)
{
	if (rds_lib == NULL)
		return RDS_ERR(ENXIO);
	rds_tcp_inject_addr = *laddr;
	__atomic_fetch_add(&rds_tcp_inject_gen, 1, __ATOMIC_RELEASE);
	return 0;
}

int
rte_rds_tcp_inject_reset(uint32_t laddr)
{
	struct in6_addr a;

	memset(&a, 0, sizeof(a));
	if (laddr != 0)
		rds_addr_from_v4(&a, laddr);
	return rds_tcp_inject_reset_addr(&a);
}

int
rte_rds_tcp_inject_reset6(const struct in6_addr *laddr)
{
	static const struct in6_addr any = IN6ADDR_ANY_INIT;

	return rds_tcp_inject_reset_addr(laddr != NULL ? laddr : &any);
}

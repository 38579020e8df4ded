/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sockets (net/rds/af_rds.c, bind.c): a table of small integer handles,
 * a bind table indexed by (local address, port), and the calls that
 * create, bind, connect and close. Sockets are used from application
 * threads; engines only read what bind published and queue to channels.
 */
#include <errno.h>
#include <sched.h>
#include <unistd.h>

#include <rte_random.h>
#include <rte_pause.h>

#include "rds_private.h"

int
rds_sock_table_init(const struct rte_rds_conf *conf)
{
	uint32_t i;

	rds_lib->max_sockets = conf->max_sockets;
	rds_lib->socks = rds_mem_zalloc("rds_socks",
		sizeof(*rds_lib->socks) * conf->max_sockets);
	rds_lib->bind_tab = rds_mem_zalloc("rds_bind",
		sizeof(int32_t) * RDS_NB_PORTS * RTE_MAX(rds_lib->nb_laddrs, 1u));
	if (rds_lib->socks == NULL || rds_lib->bind_tab == NULL)
		return -ENOMEM;
	for (i = 0; i < conf->max_sockets; i++) {
		struct rds_sock *rs = rds_mem_zalloc("rds_sock", sizeof(*rs));

		if (rs == NULL)
			return -ENOMEM;
		rs->id = (int)i;
		rte_spinlock_init(&rs->lock);
		rte_spinlock_init(&rs->rlock);
		rte_spinlock_init(&rs->cong_lock);
		rds_lib->socks[i] = rs;
	}
	return 0;
}

static void rds_sock_release(struct rds_sock *rs);

/* Engines are stopped: release what open sockets still hold. */
void
rds_sock_close_all(void)
{
	uint32_t i;

	if (rds_lib->socks == NULL)
		return;
	for (i = 0; i < rds_lib->max_sockets; i++) {
		struct rds_sock *rs = rds_lib->socks[i];

		if (rs != NULL && rs->state != RDS_SOCK_FREE)
			rds_sock_release(rs);
	}
}

/* Engines and their connections are gone: free the tables. */
void
rds_sock_table_fini(void)
{
	uint32_t i;

	if (rds_lib->socks != NULL)
		for (i = 0; i < rds_lib->max_sockets; i++)
			rds_mem_free(rds_lib->socks[i]);
	rds_mem_free(rds_lib->socks);
	rds_mem_free(rds_lib->bind_tab);
	rds_lib->socks = NULL;
	rds_lib->bind_tab = NULL;
}

struct rds_sock *
rds_sock_get(int s)
{
	struct rds_sock *rs;

	if (rds_lib == NULL || s < 0 || (uint32_t)s >= rds_lib->max_sockets)
		return NULL;
	rs = rds_lib->socks[s];
	if (__atomic_load_n(&rs->state, __ATOMIC_ACQUIRE) != RDS_SOCK_OPEN)
		return NULL;
	return rs;
}

struct rds_laddr *
rds_laddr_find(const struct in6_addr *addr)
{
	unsigned int i;

	for (i = 0; i < rds_lib->nb_laddrs; i++)
		if (rds_addr_eq(&rds_lib->laddrs[i].addr, addr))
			return &rds_lib->laddrs[i];
	return NULL;
}

static int32_t *
rds_bind_slot(const struct rds_laddr *la, uint16_t port)
{
	return &rds_lib->bind_tab[(size_t)la->index * RDS_NB_PORTS + port];
}

struct rds_sock *
rds_sock_lookup_bound(const struct rds_laddr *la, uint16_t port)
{
	int32_t id = __atomic_load_n(rds_bind_slot(la, port), __ATOMIC_ACQUIRE);

	return id == 0 ? NULL : rds_lib->socks[id - 1];
}

uint64_t
rds_deadline(uint64_t timeo_ns)
{
	if (timeo_ns == 0)
		return 0;
	return rte_rdtsc() + timeo_ns * (rds_lib->tsc_hz / 1000000) / 1000;
}

/*
 * One step of a blocking wait: drive the inline engines (a blocking call
 * must never deadlock on a thread that is also the engine's only driver),
 * then pause, and yield once it has waited a while. -ETIMEDOUT when the
 * deadline (0: none) passed.
 */
int
rds_sock_wait_step(struct rds_sock *rs, uint64_t deadline, uint64_t *spins)
{
	unsigned int i;
	int work = 0;

	RTE_SET_USED(rs);
	if (deadline != 0 && rte_rdtsc() >= deadline)
		return -ETIMEDOUT;
	for (i = 0; i < rds_lib->nb_engines; i++) {
		struct rds_engine *e = rds_lib->engines[i];

		if (e->lcore_id == RTE_RDS_ENGINE_INLINE)
			work += rds_engine_try_poll(e);
	}
	if (work == 0) {
		if (++*spins > 64)
			sched_yield();
		else
			rte_pause();
	}
	return 0;
}

int
rte_rds_socket(void)
{
	struct rds_sock *rs = NULL;
	uint32_t i, expect;
	unsigned int e;
	uint64_t spins = 0;

	if (rds_lib == NULL)
		return RDS_ERR(ENXIO);
	for (i = 0; i < rds_lib->max_sockets; i++) {
		expect = RDS_SOCK_FREE;
		if (__atomic_compare_exchange_n(&rds_lib->socks[i]->state,
				&expect, RDS_SOCK_CLOSING, false,
				__ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			rs = rds_lib->socks[i];
			break;
		}
	}
	if (rs == NULL)
		return RDS_ERR(EMFILE);

	rs->bound = false;
	rs->la = NULL;
	memset(&rs->bound_addr, 0, sizeof(rs->bound_addr));
	rs->bound_port = 0;
	rs->connected = false;
	memset(&rs->conn_addr, 0, sizeof(rs->conn_addr));
	rs->conn_port = 0;
	rs->trans_pinned = (uint32_t)RDS_TRANS_NONE;
	rs->sndbuf = rds_lib->conf.sndbuf_default;
	rs->rcvbuf = rds_lib->conf.rcvbuf_default;
	rs->sndtimeo_ns = 0;
	rs->rcvtimeo_ns = 0;
	rs->snd_bytes = 0;
	rs->rcv_bytes = 0;
	rs->congested = false;
	rs->rx_head = NULL;
	rs->rx_next = 0;
	rs->close_done = 0;
	rs->recverr = 0;
	rs->cong_monitor = 0;
	rs->cong_mask = 0;
	rs->cong_notify = 0;
	rs->cong_track = rds_cong_generation();
	rs->efd = -1;
	rs->armed = 0;
	rs->last_fcong = NULL;
	for (e = 0; e < rds_lib->nb_engines; e++) {
		TAILQ_INIT(&rs->eng[e].overflow);
		TAILQ_INIT(&rs->eng[e].notify_overflow);
		rs->eng[e].last_conn = NULL;
		if (rds_chan_create(&rs->chan[e], rs->id, e) != 0) {
			while (e-- > 0)
				rds_chan_destroy(&rs->chan[e]);
			__atomic_store_n(&rs->state, RDS_SOCK_FREE,
					 __ATOMIC_RELEASE);
			return RDS_ERR(ENOMEM);
		}
	}
	__atomic_store_n(&rs->state, RDS_SOCK_OPEN, __ATOMIC_RELEASE);
	/* Every engine polls the socket's channel from now on. */
	for (e = 0; e < rds_lib->nb_engines; e++)
		while (rte_ring_enqueue(rds_lib->engines[e]->admin, rs) != 0)
			rds_sock_wait_step(rs, 0, &spins);
	return rs->id;
}

static int
rds_sock_pick_port(struct rds_sock *rs, struct rds_laddr *la)
{
	uint32_t start = 1024 + (uint32_t)rte_rand_max(RDS_NB_PORTS - 1024);
	uint32_t k, port;
	int32_t expect;

	for (k = 0; k < RDS_NB_PORTS; k++) {
		port = (start + k) % RDS_NB_PORTS;
		if (port <= RDS_FLAG_PROBE_PORT)
			continue;
		expect = 0;
		if (__atomic_compare_exchange_n(rds_bind_slot(la, port),
				&expect, rs->id + 1, false,
				__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			return (int)port;
	}
	return -EADDRINUSE;
}

int
rte_rds_bind(int s, const struct sockaddr *addr, socklen_t addrlen)
{
	struct rds_sock *rs = rds_sock_get(s);
	const struct sockaddr_in *sin = (const struct sockaddr_in *)addr;
	const struct rds_transport *t;
	struct in6_addr a;
	struct rds_laddr *la;
	int32_t expect = 0;
	int port, ret = 0;

	if (rs == NULL)
		return RDS_ERR(EBADF);
	if (addr == NULL || addrlen < sizeof(sa_family_t))
		return RDS_ERR(EINVAL);
	if (addr->sa_family != AF_INET)
		return RDS_ERR(EAFNOSUPPORT);
	if (addrlen < sizeof(*sin))
		return RDS_ERR(EINVAL);
	if (sin->sin_addr.s_addr == htonl(INADDR_ANY) ||
	    sin->sin_addr.s_addr == htonl(INADDR_BROADCAST) ||
	    IN_MULTICAST(ntohl(sin->sin_addr.s_addr)))
		return RDS_ERR(EINVAL);
	port = ntohs(sin->sin_port);
	if (port == RDS_FLAG_PROBE_PORT)
		return RDS_ERR(EINVAL);
	rds_addr_from_v4(&a, sin->sin_addr.s_addr);

	rte_spinlock_lock(&rs->lock);
	if (rs->bound) {
		ret = -EINVAL;
		goto out;
	}
	la = rds_laddr_find(&a);
	if (la == NULL) {
		ret = -EADDRNOTAVAIL;
		goto out;
	}
	if (rs->trans_pinned != (uint32_t)RDS_TRANS_NONE) {
		t = rds_transport_by_id(rs->trans_pinned);
		if (t == NULL || (!(t->flags & RDS_TRANS_F_LOOPBACK) &&
				  t != la->trans)) {
			ret = -ENOPROTOOPT;
			goto out;
		}
	}
	if (port == 0) {
		port = rds_sock_pick_port(rs, la);
		if (port < 0) {
			ret = port;
			goto out;
		}
	} else if (!__atomic_compare_exchange_n(rds_bind_slot(la, port),
			&expect, rs->id + 1, false, __ATOMIC_ACQ_REL,
			__ATOMIC_RELAXED)) {
		ret = -EADDRINUSE;
		goto out;
	}
	rs->bound_addr = a;
	rs->bound_port = (uint16_t)port;
	rs->la = la;
	__atomic_store_n(&rs->bound, true, __ATOMIC_RELEASE);
out:
	rte_spinlock_unlock(&rs->lock);
	return ret == 0 ? 0 : RDS_ERR(-ret);
}

int
rte_rds_connect(int s, const struct sockaddr *addr, socklen_t addrlen)
{
	struct rds_sock *rs = rds_sock_get(s);
	const struct sockaddr_in *sin = (const struct sockaddr_in *)addr;

	if (rs == NULL)
		return RDS_ERR(EBADF);
	if (addr == NULL || addrlen < sizeof(sa_family_t))
		return RDS_ERR(EINVAL);
	if (addr->sa_family != AF_INET)
		return RDS_ERR(EAFNOSUPPORT);
	if (addrlen < sizeof(*sin))
		return RDS_ERR(EINVAL);
	if (sin->sin_addr.s_addr == htonl(INADDR_ANY))
		return RDS_ERR(EDESTADDRREQ);
	if (sin->sin_addr.s_addr == htonl(INADDR_BROADCAST) ||
	    IN_MULTICAST(ntohl(sin->sin_addr.s_addr)))
		return RDS_ERR(EINVAL);
	rte_spinlock_lock(&rs->lock);
	rds_addr_from_v4(&rs->conn_addr, sin->sin_addr.s_addr);
	rs->conn_port = ntohs(sin->sin_port);
	rs->connected = true;
	rte_spinlock_unlock(&rs->lock);
	return 0;
}

int
rte_rds_getsockname(int s, struct sockaddr *addr, socklen_t *addrlen)
{
	struct rds_sock *rs = rds_sock_get(s);
	struct sockaddr_in sin;

	if (rs == NULL)
		return RDS_ERR(EBADF);
	if (addr == NULL || addrlen == NULL)
		return RDS_ERR(EINVAL);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	if (rs->bound) {
		sin.sin_addr.s_addr = rds_addr_v4(&rs->bound_addr);
		sin.sin_port = htons(rs->bound_port);
	}
	memcpy(addr, &sin, RTE_MIN((size_t)*addrlen, sizeof(sin)));
	*addrlen = sizeof(sin);
	return 0;
}

/* Free what a closed socket holds; no engine references it any more. */
static void
rds_sock_release(struct rds_sock *rs)
{
	unsigned int e;

	for (e = 0; e < rds_lib->nb_engines; e++) {
		rds_recv_drop_overflow(rds_lib->engines[e], rs);
		rds_notify_drop_overflow(rds_lib->engines[e], rs);
		rds_chan_destroy(&rs->chan[e]);
	}
	if (rs->cong_monitor)
		rds_cong_monitor_count(-1);
	rs->cong_monitor = 0;
	if (rs->efd >= 0)
		close(rs->efd);
	rs->efd = -1;
	rds_msg_free(rs->rx_head);
	rs->rx_head = NULL;
	/* Engines are done with it: its congestion bit can go. */
	if (rs->congested && rs->la != NULL) {
		rds_cong_clear(rs->la->cong, rs->bound_port);
		rs->congested = false;
		rds_cong_map_changed(~0ULL);
	}
	if (rs->bound && rs->la != NULL)
		__atomic_store_n(rds_bind_slot(rs->la, rs->bound_port), 0,
				 __ATOMIC_RELEASE);
	rs->bound = false;
	rs->gen++;
	__atomic_store_n(&rs->state, RDS_SOCK_FREE, __ATOMIC_RELEASE);
}

int
rte_rds_close(int s)
{
	struct rds_sock *rs = rds_sock_get(s);
	struct rds_msg *req[RTE_RDS_MAX_ENGINES];
	uint64_t spins = 0;
	unsigned int e, n = rds_lib != NULL ? rds_lib->nb_engines : 0;
	bool done;

	if (rs == NULL)
		return RDS_ERR(EBADF);
	/* Requests first, so that a failure leaves the socket open. */
	for (e = 0; e < n; e++) {
		req[e] = rds_msg_alloc(0);
		if (req[e] == NULL) {
			while (e-- > 0)
				rds_msg_free(req[e]);
			return RDS_ERR(ENOMEM);
		}
		req[e]->type = RDS_MSG_CLOSE;
		req[e]->sock = rs->id;
		req[e]->all = 1;
	}
	rte_spinlock_lock(&rs->lock);
	if (__atomic_load_n(&rs->state, __ATOMIC_ACQUIRE) != RDS_SOCK_OPEN) {
		rte_spinlock_unlock(&rs->lock);
		for (e = 0; e < n; e++)
			rds_msg_free(req[e]);
		return RDS_ERR(EBADF);
	}
	__atomic_store_n(&rs->state, RDS_SOCK_CLOSING, __ATOMIC_RELEASE);
	if (rs->bound) {
		/* No engine finds the socket after this. */
		__atomic_store_n(rds_bind_slot(rs->la, rs->bound_port), 0,
				 __ATOMIC_RELEASE);
	}
	rte_spinlock_unlock(&rs->lock);
	/* Its regions go first: no peer reaches them after this. */
	rds_mr_sock_close(rs);

	/* Each engine cancels the socket's messages, drops what it holds
	 * for it and stops polling its channel. */
	for (e = 0; e < n; e++)
		while (rds_chan_put(rs->chan[e].tx, rs->chan[e].base,
				    req[e]) != 0)
			rds_sock_wait_step(rs, 0, &spins);
	do {
		done = true;
		for (e = 0; e < n; e++)
			if (!__atomic_load_n(&req[e]->done, __ATOMIC_ACQUIRE))
				done = false;
		if (!done)
			rds_sock_wait_step(rs, 0, &spins);
	} while (!done);
	for (e = 0; e < n; e++)
		rds_msg_free(req[e]);
	rds_sock_release(rs);
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sockets (net/rds/af_rds.c): small integer handles into a table of
 * slots, and the calls that create, bind, connect and close.
 *
 * Slots are made a chunk at a time as handles are first used, never
 * freed before rte_rds_fini(), and found in O(1) (a free list, then the
 * next unused slot). A socket's body is allocated at rte_rds_socket()
 * and freed when it is closed; an idle bound socket costs its body and
 * its slot, and no queue (rds_queue.c makes them on first use).
 *
 * Lifetime: every call holds the socket from start to return
 * (rds_sock_hold). rte_rds_close() marks the slot closing, so that no
 * new call gets in, unhooks the socket from the bind table, wakes the
 * calls that wait inside (they return EBADF), waits for them to leave,
 * sends its last request (CLOSE) through the socket's own queue, after
 * every message it queued, and waits for a pass of every engine; only
 * then it frees the body and lets the handle be reused. A call that
 * started on a socket therefore never reaches a newer socket on the
 * same slot.
 */
#include <errno.h>
#include <sched.h>
#include <unistd.h>

#include <rte_pause.h>
#include <rte_hash.h>

#include "rds_private.h"

/* Most requests a socket queues before a sender waits for its engine. */
#define RDS_REQ_QUEUE_MAX 65536
/* Most received messages or notifications queued to one socket. */
#define RDS_RX_QUEUE_MAX (1u << 24)

int
rds_sock_table_init(const struct rte_rds_conf *conf)
{
	uint32_t nchunks = (conf->max_sockets + RDS_SLOT_CHUNK - 1) /
			   RDS_SLOT_CHUNK;

	rds_lib->max_sockets = conf->max_sockets;
	pthread_mutex_init(&rds_lib->sock_lock, NULL);
	rds_lib->chunks = rds_mem_zalloc("rds_slot_chunks",
					 sizeof(*rds_lib->chunks) * nchunks);
	if (rds_lib->chunks == NULL)
		return -ENOMEM;
	rds_lib->nb_slots = 0;
	rds_lib->free_head = -1;
	return 0;
}

static void rds_sock_free(struct rds_sock *rs);

/* Engines are stopped: free what open sockets still hold. */
void
rds_sock_close_all(void)
{
	uint32_t i;

	if (rds_lib->chunks == NULL)
		return;
	for (i = 0; i < rds_lib->nb_slots; i++) {
		struct rds_slot *sl = rds_slot_of((int)i);

		if (sl->body != NULL) {
			rds_mr_sock_close(sl->body);
			rds_sock_free(sl->body);
		}
		sl->body = NULL;
		sl->state = RDS_SOCK_FREE;
	}
}

void
rds_sock_table_fini(void)
{
	uint32_t i, nchunks;

	if (rds_lib->chunks == NULL)
		return;
	nchunks = (rds_lib->max_sockets + RDS_SLOT_CHUNK - 1) / RDS_SLOT_CHUNK;
	for (i = 0; i < nchunks; i++)
		rds_mem_free(rds_lib->chunks[i]);
	rds_mem_free(rds_lib->chunks);
	rds_lib->chunks = NULL;
	pthread_mutex_destroy(&rds_lib->sock_lock);
}

void
rds_sock_foreach(void (*fn)(void *arg, struct rds_sock *rs), void *arg)
{
	uint32_t i, n = __atomic_load_n(&rds_lib->nb_slots, __ATOMIC_ACQUIRE);
	struct rds_sock *rs;

	for (i = 0; i < n; i++) {
		rs = rds_sock_hold((int)i);
		if (rs == NULL)
			continue;
		fn(arg, rs);
		rds_sock_put(rs);
	}
}

uint64_t
rds_sock_mem(void)
{
	return rds_lib == NULL ? 0 :
	       __atomic_load_n(&rds_lib->sock_mem, __ATOMIC_RELAXED) +
	       rds_queue_mem_all();
}

struct rds_laddr *
rds_laddr_find(const struct in6_addr *addr)
{
	void *data;

	if (rds_lib->laddr_hash == NULL ||
	    rte_hash_lookup_data(rds_lib->laddr_hash, addr, &data) < 0)
		return NULL;
	return data;
}

uint64_t
rds_deadline(uint64_t timeo_ns)
{
	if (timeo_ns == 0)
		return 0;
	return rds_clock_tsc() + timeo_ns * (rds_lib->tsc_hz / 1000000) / 1000;
}

/*
 * One step of a blocking wait: drive the inline engines (a blocking call
 * must never deadlock on a thread that is also the engine's only driver),
 * then pause, and yield once it has waited a while. -EBADF when the
 * socket (if any) is being closed, -ETIMEDOUT when the deadline (0:
 * none) passed.
 */
int
rds_sock_wait_step(struct rds_sock *rs, uint64_t deadline, uint64_t *spins)
{
	unsigned int i;
	int work = 0;

	if (rs != NULL && rds_sock_closing(rs))
		return -EBADF;
	if (deadline != 0 && rds_clock_tsc() >= deadline)
		return -ETIMEDOUT;
	if (rds_lib->any_inline) {
		for (i = 0; i < rds_lib->nb_engines; i++) {
			struct rds_engine *e = rds_lib->engines[i];

			if (e->lcore_id == RTE_RDS_ENGINE_INLINE)
				work += rds_engine_try_poll(e);
		}
	}
	if (work == 0) {
		if (++*spins > 64)
			sched_yield();
		else
			rte_pause();
	}
	return 0;
}

/* Take a slot: the free list first, then the next never used. */
static int
rds_slot_alloc(void)
{
	struct rds_slot *sl;
	int id = -1;
	uint32_t c;

	pthread_mutex_lock(&rds_lib->sock_lock);
	if (rds_lib->free_head >= 0) {
		id = rds_lib->free_head;
		sl = rds_slot_of(id);
		rds_lib->free_head = sl->next_free;
	} else if (rds_lib->nb_slots < rds_lib->max_sockets) {
		c = rds_lib->nb_slots / RDS_SLOT_CHUNK;
		if (rds_lib->chunks[c] == NULL)
			rds_lib->chunks[c] = rds_mem_zalloc("rds_slots",
				sizeof(struct rds_slot) * RDS_SLOT_CHUNK);
		if (rds_lib->chunks[c] != NULL) {
			id = (int)rds_lib->nb_slots;
			__atomic_store_n(&rds_lib->nb_slots, id + 1,
					 __ATOMIC_RELEASE);
		} else {
			id = -2;
		}
	}
	if (id >= 0)
		rds_lib->nb_open++;
	pthread_mutex_unlock(&rds_lib->sock_lock);
	return id;
}

static void
rds_slot_release(int id)
{
	struct rds_slot *sl = rds_slot_of(id);

	pthread_mutex_lock(&rds_lib->sock_lock);
	sl->body = NULL;
	__atomic_fetch_add(&sl->gen, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&sl->state, RDS_SOCK_FREE, __ATOMIC_RELEASE);
	sl->next_free = rds_lib->free_head;
	rds_lib->free_head = id;
	rds_lib->nb_open--;
	pthread_mutex_unlock(&rds_lib->sock_lock);
}

int
rte_rds_socket(void)
{
	struct rds_sock *rs;
	struct rds_slot *sl;
	int id;

	RDS_CLIENT_OR(rds_client_socket());
	if (rds_lib == NULL)
		return RDS_ERR(ENXIO);
	id = rds_slot_alloc();
	if (id == -1)
		return RDS_ERR(EMFILE);
	if (id < 0)
		return RDS_ERR(ENOMEM);
	sl = rds_slot_of(id);
	rs = rds_mem_zalloc("rds_sock", sizeof(*rs));
	if (rs == NULL) {
		rds_slot_release(id);
		return RDS_ERR(ENOMEM);
	}
	__atomic_fetch_add(&rds_lib->sock_mem, sizeof(*rs), __ATOMIC_RELAXED);
	rs->id = id;
	rs->slot = sl;
	rs->gen = __atomic_load_n(&sl->gen, __ATOMIC_ACQUIRE);
	rte_spinlock_init(&rs->lock);
	rte_spinlock_init(&rs->rlock);
	rte_spinlock_init(&rs->cong_lock);
	rte_spinlock_init(&rs->rx_prod_lock);
	rds_front_init(&rs->f, rds_lib->conf.sndbuf_default);
	rs->rcvbuf = rds_lib->conf.rcvbuf_default;
	rs->cong_track = rds_cong_generation();
	rs->efd = -1;
	rs->home = -1;
	rds_queue_init(&rs->req, RDS_REQ_QUEUE_MAX);
	rds_queue_init(&rs->rxq, RDS_RX_QUEUE_MAX);
	rds_queue_init(&rs->ntq, RDS_RX_QUEUE_MAX);
	sl->body = rs;
	__atomic_store_n(&sl->state, RDS_SOCK_OPEN, __ATOMIC_RELEASE);
	return id;
}

int
rte_rds_bind(int s, const struct sockaddr *addr, socklen_t addrlen)
{
	struct rds_sock *rs = rds_sock_hold(s);
	const struct rds_transport *t;
	struct in6_addr a;
	struct rds_laddr *la;
	uint32_t scope = 0;
	uint16_t port;
	int ret;

	if (rs == NULL) {
		RDS_CLIENT_OR(rds_client_bind(s, addr, addrlen));
		return RDS_ERR(EBADF);
	}
	ret = rds_front_bind_addr(addr, addrlen, &a, &scope, &port);
	if (ret != 0)
		goto put;
	rte_spinlock_lock(&rs->lock);
	if (rs->f.bound) {
		ret = -EINVAL;
		goto out;
	}
	/* Connected first: a link-local bind's scope must be the one the
	 * connect gave (as net/rds/bind.c). */
	if (rs->f.connected && scope != 0 && rs->f.bound_scope != 0 &&
	    scope != rs->f.bound_scope) {
		ret = -EINVAL;
		goto out;
	}
	la = rds_laddr_find(&a);
	/* A link-local address is on its own link only (the transports'
	 * laddr_check with the scope: rds_tcp_laddr_check,
	 * rds_ib_laddr_check). */
	if (la == NULL || (scope != 0 && la->ifindex != 0 &&
			   scope != la->ifindex)) {
		ret = -EADDRNOTAVAIL;
		goto out;
	}
	if (rs->f.trans_pinned != (uint32_t)RDS_TRANS_NONE) {
		t = rds_transport_by_id(rs->f.trans_pinned);
		if (t == NULL || (!(t->flags & RDS_TRANS_F_LOOPBACK) &&
				  t != la->trans)) {
			ret = -ENOPROTOOPT;
			goto out;
		}
	}
	ret = rds_bind_add(la, rs, &port);
	if (ret != 0)
		goto out;
	rs->f.bound_addr = a;
	rs->f.bound_port = port;
	rs->la = la;
	rs->f.bound_scope = scope;
	__atomic_store_n(&rs->f.bound,
			 rds_addr_is_v4(&a) ? RDS_BOUND_V4 : RDS_BOUND_V6,
			 __ATOMIC_RELEASE);
out:
	rte_spinlock_unlock(&rs->lock);
put:
	rds_sock_put(rs);
	return ret == 0 ? 0 : RDS_ERR(-ret);
}

int
rte_rds_connect(int s, const struct sockaddr *addr, socklen_t addrlen)
{
	struct rds_sock *rs = rds_sock_hold(s);
	struct in6_addr a;
	uint32_t scope;
	uint16_t port;
	int ret;

	if (rs == NULL) {
		RDS_CLIENT_OR(rds_client_connect(s, addr, addrlen));
		return RDS_ERR(EBADF);
	}
	ret = rds_front_connect_addr(addr, addrlen, &a, &scope, &port);
	if (ret == 0) {
		rte_spinlock_lock(&rs->lock);
		/* A link-local peer needs the bound scope if the socket is
		 * bound link-local, and its scope becomes the socket's (as
		 * net/rds/af_rds.c). */
		if (scope != 0 && rs->f.bound && rs->f.bound_scope != 0 &&
		    scope != rs->f.bound_scope) {
			ret = -EINVAL;
		} else {
			if (scope != 0)
				rs->f.bound_scope = scope;
			rs->f.conn_addr = a;
			rs->f.conn_port = port;
			rs->f.connected = true;
		}
		rte_spinlock_unlock(&rs->lock);
	}
	rds_sock_put(rs);
	return ret == 0 ? 0 : RDS_ERR(-ret);
}

int
rte_rds_getsockname(int s, struct sockaddr *addr, socklen_t *addrlen)
{
	struct rds_sock *rs = rds_sock_hold(s);
	union rds_front_name n;
	size_t size = 0;
	int ret = -EINVAL;

	if (rs == NULL) {
		RDS_CLIENT_OR(rds_client_getsockname(s, addr, addrlen));
		return RDS_ERR(EBADF);
	}
	if (addr != NULL && addrlen != NULL) {
		rte_spinlock_lock(&rs->lock);
		size = rds_front_sockname(&rs->f, &n);
		rte_spinlock_unlock(&rs->lock);
		ret = rds_front_sockname_out(&n, size, addr, addrlen);
	}
	rds_sock_put(rs);
	return ret == 0 ? 0 : RDS_ERR(-ret);
}

int
rte_rds_getpeername(int s, struct sockaddr *addr, socklen_t *addrlen)
{
	struct rds_sock *rs = rds_sock_hold(s);
	union rds_front_name n;
	int ret;

	if (rs == NULL) {
		RDS_CLIENT_OR(rds_client_getpeername(s, addr, addrlen));
		return RDS_ERR(EBADF);
	}
	rte_spinlock_lock(&rs->lock);
	ret = rds_front_peername(&rs->f, &n);
	rte_spinlock_unlock(&rs->lock);
	rds_sock_put(rs);
	if (ret > 0)
		ret = rds_uarg_name_out(&n, (size_t)ret, addr, addrlen);
	return ret == 0 ? 0 : RDS_ERR(-ret);
}

/* rds_sock_request() found no room at once: wait for some (if asked),
 * then queue and ring. */
int
rds_sock_request_slow(struct rds_sock *rs, struct rds_msg *m, bool wait)
{
	uint64_t spins = 0;
	int ret;

	for (;;) {
		rte_spinlock_lock(&rs->lock);
		if (unlikely(rs->home < 0))
			rs->home = m->type == RDS_MSG_DATA ? m->eng : 0;
		ret = rds_queue_put(&rs->req, m);
		rte_spinlock_unlock(&rs->lock);
		if (likely(ret == 0))
			break;
		if (!wait)
			return ret;
		ret = rds_sock_wait_step(m->type == RDS_MSG_CLOSE ? NULL : rs,
					 0, &spins);
		if (ret < 0)
			return ret;
	}
	if (__atomic_exchange_n(&rs->queued, 1, __ATOMIC_SEQ_CST) == 0)
		rds_bell_ring(rds_lib->engines[rs->home], (unsigned int)rs->home,
			      rs);
	return 0;
}

/* A CANCEL or CLOSE request: queue it after the socket's messages and
 * wait for every engine that may hold some to answer. */
int
rds_sock_request_wait(struct rds_sock *rs, struct rds_msg *m)
{
	uint64_t spins = 0;
	int ret;

	/* Nothing was ever queued: no engine holds anything of it. */
	if (__atomic_load_n(&rs->home, __ATOMIC_ACQUIRE) < 0)
		return 0;
	m->pending = 1;
	ret = rds_sock_request(rs, m, true);
	if (ret != 0)
		return ret;
	while (__atomic_load_n(&m->pending, __ATOMIC_ACQUIRE) != 0)
		rds_sock_wait_step(NULL, 0, &spins);
	return 0;
}

/* Free what a closed socket holds; no engine references it any more. */
static void
rds_sock_free(struct rds_sock *rs)
{
	rds_queue_fini(&rs->req);
	rds_queue_fini(&rs->rxq);
	rds_queue_fini(&rs->ntq);
	rds_msg_free(rs->rx_head);
	rs->rx_head = NULL;
	if (rs->watched)
		rds_cong_watch(rs, false);
	if (rs->efd >= 0)
		close(rs->efd);
	/* Engines are done with it: its congestion bit can go. */
	if (rs->congested && rs->la != NULL) {
		rds_cong_clear(rs->la->cong, rs->f.bound_port);
		rs->congested = false;
		rds_cong_map_changed(~0ULL);
	}
	if (rs->f.bound)
		rds_bind_del(rs->la, rs->f.bound_port, rs);
	rds_xmem_put(rs->mem);
	rs->mem = NULL;
	__atomic_fetch_sub(&rds_lib->sock_mem, sizeof(*rs), __ATOMIC_RELAXED);
	rds_mem_free(rs);
}

int
rte_rds_close(int s)
{
	struct rds_slot *sl = rds_slot_of(s);
	struct rds_sock *rs;
	struct rds_msg *req;
	uint64_t spins = 0;
	uint32_t open = RDS_SOCK_OPEN;

	if (sl == NULL) {
		RDS_CLIENT_OR(rds_client_close(s));
		return RDS_ERR(EBADF);
	}
	/* The request first, so that a failure leaves the socket open. */
	req = rds_msg_alloc(0);
	if (req == NULL)
		return RDS_ERR(ENOMEM);
	if (!__atomic_compare_exchange_n(&sl->state, &open, RDS_SOCK_CLOSING,
					 false, __ATOMIC_SEQ_CST,
					 __ATOMIC_RELAXED)) {
		rds_msg_free(req);
		return RDS_ERR(EBADF);
	}
	rs = sl->body;
	/* Wake the calls waiting inside and wait for them to leave. */
	rds_sock_wake_now(rs);
	while (__atomic_load_n(&sl->refs, __ATOMIC_SEQ_CST) != 0) {
		rds_sock_wait_step(NULL, 0, &spins);
		if ((spins & 1023) == 0)
			rds_sock_wake_now(rs);
	}
	/* No engine finds it by its port after this (no bind is under
	 * way: no call is inside). */
	if (rs->f.bound)
		rds_bind_del(rs->la, rs->f.bound_port, rs);
	/* Its regions go first: no peer reaches them after this. */
	rds_mr_sock_close(rs);
	/* The engines cancel what it queued (after its last message) and
	 * let it go. */
	req->type = RDS_MSG_CLOSE;
	memset(&req->faddr, 0, sizeof(req->faddr));
	req->sock = rs->id;
	req->sock_gen = rs->gen;
	req->laddr = rs->f.bound_addr;
	req->all = 1;
	rds_sock_request_wait(rs, req);
	rds_msg_free(req);
	/* The last doorbell taken, and every engine past the pass in which
	 * it may have looked the socket up. */
	while (__atomic_load_n(&rs->queued, __ATOMIC_SEQ_CST) != 0)
		rds_sock_wait_step(NULL, 0, &spins);
	rds_engines_quiesce();
	rds_sock_free(rs);
	rds_slot_release(s);
	return 0;
}

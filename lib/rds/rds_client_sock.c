/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An attached process, the socket calls other than sending and
 * receiving (rds_client.c has the whole picture): socket, bind, connect,
 * getsockname, close; options, RDS_INFO, statistics, event fds (and
 * moving one to another number) and rte_rds_poll(). Most are one call on the UNIX socket to the engine.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>


#include "rds_client_private.h"
#include "rte_rds_attach.h"

/* ------------------------------------------------------------------ */
/* Sockets */

int
rds_client_socket(void)
{
	struct rds_cl *cl = rds_cl;
	struct rds_ctl_req *q;
	struct rds_ctl_resp *r;
	struct rds_cl_sock *cs = NULL;
	unsigned int i;
	int ret, efd = -1;

	pthread_mutex_lock(&cl->slot_lock);
	for (i = 0; i < cl->nb_socks; i++) {
		if (cl->socks[i].state == RDS_SOCK_FREE) {
			cs = &cl->socks[i];
			cs->state = RDS_SOCK_CLOSING;	/* ours, not open yet */
			break;
		}
	}
	pthread_mutex_unlock(&cl->slot_lock);
	if (cs == NULL)
		return RDS_ERR(EMFILE);
	q = rds_cl_req_new(RDS_CTL_SOCKET, (int32_t)i);
	r = malloc(sizeof(*r));
	if (q == NULL || r == NULL) {
		ret = -ENOMEM;
		goto fail;
	}
	/* The engine makes the socket's wake-up descriptor (rds_region.h):
	 * it comes with the answer. */
	ret = rds_cl_call(cl, q, r, -1, &efd);
	if (ret >= 0 && efd < 0)
		ret = -EPROTO;
	if (ret < 0)
		goto fail;
	/* The engine names our sockets by their slot here (its answer is
	 * the handle of the socket it made for us, for the record). */
	cs->handle = (int32_t)i;
	cs->efd = efd;
	cs->cs = (void *)(cl->base + cl->lay.socks_off +
			  sizeof(struct rds_csock) * i);
	rds_xring_end_init(&cs->req,
		(void *)(cl->base + rds_region_csock_ring(&cl->lay, i, 0)),
		RDS_CSOCK_REQ_RING, true);
	rds_xring_end_init(&cs->rx,
		(void *)(cl->base + rds_region_csock_ring(&cl->lay, i, 1)),
		RDS_CSOCK_RX_RING, false);
	rds_xring_end_init(&cs->nt,
		(void *)(cl->base + rds_region_csock_ring(&cl->lay, i, 2)),
		RDS_CSOCK_NT_RING, false);
	rds_cl_keys_init(cl, cs, i);
	__atomic_store_n(&cs->cs->snd_queued,
			 __atomic_load_n(&cs->cs->snd_released,
					 __ATOMIC_ACQUIRE), __ATOMIC_RELEASE);
	cs->rx_head = 0;
	/* No TX buffer lacked yet (a slot's earlier socket may have left
	 * one: POLLOUT would wait for it). */
	__atomic_store_n(&cs->txb_need, 0, __ATOMIC_RELEASE);
	/* The engine's socket starts with the kernel's default send
	 * buffer (rte_rds_conf.sndbuf_default's default). */
	rds_front_init(&cs->f, 212992);
	free(q);
	free(r);
	__atomic_store_n(&cs->state, RDS_SOCK_OPEN, __ATOMIC_RELEASE);
	return rds_cl_handle(cl, i);
fail:
	if (efd >= 0)
		close(efd);
	free(q);
	free(r);
	__atomic_store_n(&cs->state, RDS_SOCK_FREE, __ATOMIC_RELEASE);
	return RDS_ERR(-ret);
}

int
rds_client_bind(int s, const struct sockaddr *addr, socklen_t addrlen)
{
	struct rds_cl *cl = rds_cl;
	struct rds_cl_sock *cs = rds_cl_hold(cl, s);
	struct sockaddr_in6 name, got;
	uint32_t len = sizeof(got), scope, nlen;
	const struct sockaddr_in *g4 = (const struct sockaddr_in *)&got;
	struct in6_addr a;
	uint16_t port;
	int ret;

	if (cs == NULL)
		return RDS_ERR(EBADF);
	/* The front half's checks, then the engine's (the port, the
	 * address, the scope, a socket bound already). */
	ret = rds_front_bind_addr(addr, addrlen, &a, &scope, &port);
	if (ret == 0) {
		nlen = rds_client_name(&a, port, scope, &name);
		memset(&got, 0, sizeof(got));
		ret = rds_cl_simple(cl, RDS_CTL_BIND, cs->handle, 0, 0, &name,
				    nlen, &got, &len);
	}
	if (ret == 0 && (got.sin6_family == AF_INET6 ?
			 len < sizeof(got) || rds_addr_is_v4(&got.sin6_addr) :
			 got.sin6_family != AF_INET ||
			 len < sizeof(struct sockaddr_in)))
		ret = -EIO;	/* not from a sane engine */
	if (ret == 0) {
		rte_spinlock_lock(&cs->lock);
		if (got.sin6_family == AF_INET) {
			rds_addr_from_v4(&cs->f.bound_addr,
					 g4->sin_addr.s_addr);
			cs->f.bound_port = ntohs(g4->sin_port);
		} else {
			cs->f.bound_addr = got.sin6_addr;
			cs->f.bound_port = ntohs(got.sin6_port);
			cs->f.bound_scope = got.sin6_scope_id;
		}
		__atomic_store_n(&cs->f.bound, got.sin6_family == AF_INET ?
				 RDS_BOUND_V4 : RDS_BOUND_V6,
				 __ATOMIC_RELEASE);
		rte_spinlock_unlock(&cs->lock);
	}
	rds_cl_put(cs);
	return ret < 0 ? RDS_ERR(-ret) : 0;
}

int
rds_client_connect(int s, const struct sockaddr *addr, socklen_t addrlen)
{
	struct rds_cl *cl = rds_cl;
	struct rds_cl_sock *cs = rds_cl_hold(cl, s);
	struct sockaddr_in6 name;
	struct in6_addr a;
	uint32_t scope, nlen;
	uint16_t port;
	int ret;

	if (cs == NULL)
		return RDS_ERR(EBADF);
	ret = rds_front_connect_addr(addr, addrlen, &a, &scope, &port);
	if (ret == 0) {
		nlen = rds_client_name(&a, port, scope, &name);
		ret = rds_cl_simple(cl, RDS_CTL_CONNECT, cs->handle, 0, 0,
				    &name, nlen, NULL, NULL);
	}
	if (ret == 0) {
		rte_spinlock_lock(&cs->lock);
		cs->f.conn_addr = a;
		cs->f.conn_port = port;
		cs->f.connected = true;
		/* A link-local peer's scope becomes the socket's, as in
		 * process (rte_rds_connect; the engine checked it). */
		if (scope != 0)
			cs->f.bound_scope = scope;
		rte_spinlock_unlock(&cs->lock);
	}
	rds_cl_put(cs);
	return ret < 0 ? RDS_ERR(-ret) : 0;
}

int
rds_client_getsockname(int s, struct sockaddr *addr, socklen_t *addrlen)
{
	struct rds_cl_sock *cs = rds_cl_hold(rds_cl, s);
	union rds_front_name n;
	size_t size;
	int ret = -EINVAL;

	if (cs == NULL)
		return RDS_ERR(EBADF);
	if (addr != NULL && addrlen != NULL) {
		rte_spinlock_lock(&cs->lock);
		size = rds_front_sockname(&cs->f, &n);
		rte_spinlock_unlock(&cs->lock);
		ret = rds_front_sockname_out(&n, size, addr, addrlen);
	}
	rds_cl_put(cs);
	return ret == 0 ? 0 : RDS_ERR(-ret);
}

int
rds_client_getpeername(int s, struct sockaddr *addr, socklen_t *addrlen)
{
	struct rds_cl_sock *cs = rds_cl_hold(rds_cl, s);
	union rds_front_name n;
	int ret;

	if (cs == NULL)
		return RDS_ERR(EBADF);
	rte_spinlock_lock(&cs->lock);
	ret = rds_front_peername(&cs->f, &n);
	rte_spinlock_unlock(&cs->lock);
	rds_cl_put(cs);
	if (ret > 0)
		ret = rds_uarg_name_out(&n, (size_t)ret, addr, addrlen);
	return ret == 0 ? 0 : RDS_ERR(-ret);
}

/* Give an RX buffer back to the engine. */
void
rds_cl_rx_back(struct rds_cl *cl, uint64_t off)
{
	rte_spinlock_lock(&cl->rxfree_lock);
	while (rds_xring_put(&cl->rxfree, off) != 0) {
		/* The engine takes them every pass. */
		rte_spinlock_unlock(&cl->rxfree_lock);
		if (rds_cl_engine_gone(cl))
			return;
		sched_yield();
		rte_spinlock_lock(&cl->rxfree_lock);
	}
	rte_spinlock_unlock(&cl->rxfree_lock);
}

/* Shut a socket's wake-up descriptor for reading (its waiters wake up
 * for good), by its number once any move of it is over. */
static void
rds_cl_efd_shut(struct rds_cl_sock *cs)
{
	int fd;

	while ((fd = rds_cl_efd_get(cs)) < 0)
		sched_yield();
	shutdown(fd, SHUT_RD);
	rds_cl_efd_put(cs);
}

int
rds_client_close(int s)
{
	struct rds_cl *cl = rds_cl;
	struct rds_cl_sock *cs;
	uint32_t open = RDS_SOCK_OPEN;
	uint64_t off;
	int ret, i = rds_cl_slot(cl, s);

	if (i < 0)
		return RDS_ERR(EBADF);
	cs = &cl->socks[i];
	if (!__atomic_compare_exchange_n(&cs->state, &open, RDS_SOCK_CLOSING,
					 false, __ATOMIC_SEQ_CST,
					 __ATOMIC_RELAXED))
		return RDS_ERR(EBADF);
	/* Waiters inside wake up and leave with EBADF: its wake-up
	 * descriptor, shut for reading, polls readable for good. */
	rds_cl_efd_shut(cs);
	while (__atomic_load_n(&cs->refs, __ATOMIC_SEQ_CST) != 0)
		sched_yield();
	ret = rds_cl_simple(cl, RDS_CTL_CLOSE, cs->handle, 0, 0, NULL, 0,
			    NULL, NULL);
	rds_cl_keys_fini(cs);
	/* What was queued to it goes back. */
	if (cs->rx_head != 0)
		rds_cl_rx_back(cl, cs->rx_head);
	cs->rx_head = 0;
	while (rds_xring_get(&cs->rx, &off) > 0)
		rds_cl_rx_back(cl, off);
	/* No call holds it now, so none uses the wake-up descriptor or
	 * moves it. */
	close(cs->efd);
	__atomic_store_n(&cs->efd, -1, __ATOMIC_RELEASE);
	__atomic_store_n(&cs->state, RDS_SOCK_FREE, __ATOMIC_RELEASE);
	/* An engine that went away closed it anyway. */
	return ret < 0 && ret != -ECONNRESET ? RDS_ERR(-ret) : 0;
}

/* ------------------------------------------------------------------ */
/* Options, readiness, snapshots */

int
rds_client_setsockopt(int s, int level, int optname, const void *optval,
		      socklen_t optlen)
{
	struct rds_cl *cl = rds_cl;
	struct rds_cl_sock *cs = rds_cl_hold(cl, s);
	uint32_t null_len = optlen;
	uint64_t ns;
	int ret, v;

	if (cs == NULL)
		return RDS_ERR(EBADF);
	if (optlen > RDS_CTL_MAX_DATA) {
		rds_cl_put(cs);
		return RDS_ERR(optval == NULL ? EFAULT : EINVAL);
	}
	if (optval == NULL && optlen != 0) {
		/* The engine's call checks the length before the value, as
		 * in-process (EINVAL before EFAULT): no data, the length in
		 * the request's cap. */
		ret = rds_cl_simple(cl, RDS_CTL_SETSOCKOPT, cs->handle, level,
				    optname, NULL, 0, NULL, &null_len);
		rds_cl_put(cs);
		return ret < 0 ? RDS_ERR(-ret) : 0;
	}
	/* A free of a region its ring mapped: through the ring. */
	if (level == SOL_RDS && optname == RDS_FREE_MR &&
	    rds_cl_free_mr(cl, cs, optval, optlen) == 1) {
		rds_cl_put(cs);
		return 0;
	}
	ret = rds_cl_simple(cl, RDS_CTL_SETSOCKOPT, cs->handle, level,
			    optname, optval, optlen, NULL, NULL);
	/* What the engine took, kept for the calls made here, by the
	 * rules the engine's socket followed (rds_front.h). */
	if (ret == 0 && level == SOL_SOCKET) {
		if ((optname == SO_SNDBUF || optname == SO_SNDBUFFORCE) &&
		    optlen >= sizeof(int)) {
			memcpy(&v, optval, sizeof(v));
			cs->f.sndbuf = rds_front_buf(v);
		} else if ((optname == SO_SNDTIMEO || optname == SO_RCVTIMEO) &&
			   rds_front_timeo(optval, optlen, &ns) == 0) {
			if (optname == SO_SNDTIMEO)
				cs->f.sndtimeo_ns = ns;
			else
				cs->f.rcvtimeo_ns = ns;
		}
	} else if (ret == 0 && level == SOL_RDS &&
		   (optname == SO_RDS_TRANSPORT ||
		    optname == RTE_RDS_SO_TRANSPORT_UEK) &&
		   optlen == sizeof(int)) {
		memcpy(&cs->f.trans_pinned, optval, sizeof(int));
	}
	rds_cl_put(cs);
	return ret < 0 ? RDS_ERR(-ret) : 0;
}

/* RDS_INFO: the records come back over the socket, after the answer. */
static int
rds_cl_info(struct rds_cl *cl, int32_t handle, int name, void *buf,
	    socklen_t *len)
{
	struct rds_ctl_req *q = rds_cl_req_new(RDS_CTL_GETSOCKOPT, handle);
	struct rds_ctl_resp *r = malloc(sizeof(*r));
	int ret;

	if (q == NULL || r == NULL) {
		free(q);
		free(r);
		return -ENOMEM;
	}
	q->level = SOL_RDS;
	q->name = name;
	q->cap = buf != NULL ? *len : 0;
	ret = rds_cl_call_info(cl, q, r, buf, q->cap);
	if (ret >= 0 || ret == -ENOSPC)
		*len = r->need;
	free(q);
	free(r);
	return ret;
}

int
rds_client_getsockopt(int s, int level, int optname, void *optval,
		      socklen_t *optlen)
{
	struct rds_cl *cl = rds_cl;
	struct rds_cl_sock *cs = rds_cl_hold(cl, s);
	uint32_t len;
	int ret;

	if (cs == NULL)
		return RDS_ERR(EBADF);
	if (optlen == NULL) {
		rds_cl_put(cs);
		return RDS_ERR(EFAULT);
	}
	if (level == SOL_RDS && rds_info_name(optname)) {
		ret = rds_cl_info(cl, cs->handle, optname, optval, optlen);
	} else {
		len = *optlen;
		if (optval == NULL && len != 0) {
			rds_cl_put(cs);
			return RDS_ERR(EFAULT);
		}
		ret = rds_cl_simple(cl, RDS_CTL_GETSOCKOPT, cs->handle, level,
				    optname, NULL, 0, optval, &len);
		if (ret >= 0)
			*optlen = len;
		/* The engine checked the call; the error it keeps for this
		 * client is in the shared part (rds_server_set_err). */
		if (ret >= 0 && level == SOL_SOCKET && optname == SO_ERROR &&
		    len >= sizeof(int)) {
			int e = (int)__atomic_exchange_n(&cs->cs->snd_err, 0,
							 __ATOMIC_ACQ_REL);

			if (e != 0)
				memcpy(optval, &e, sizeof(e));
		}
	}
	rds_cl_put(cs);
	return ret < 0 ? RDS_ERR(-ret) : ret;
}

int
rds_client_info(int name, void *buf, socklen_t *len)
{
	int ret;

	if (len == NULL)
		return RDS_ERR(EINVAL);
	/* Not an RDS_INFO name: as in-process (the engine would take the
	 * request for a socket option without a socket: EBADF). */
	if (!rds_info_name(name))
		return RDS_ERR(ENOPROTOOPT);
	ret = rds_cl_info(rds_cl, -1, name, buf, len);
	return ret < 0 ? RDS_ERR(-ret) : ret;
}

int
rds_client_stats(int engine_id, struct rte_rds_stats *st)
{
	uint32_t len = sizeof(*st);
	int ret;

	if (st == NULL)
		return RDS_ERR(EINVAL);
	ret = rds_cl_simple(rds_cl, RDS_CTL_STATS, engine_id, 0, 0, NULL, 0,
			    st, &len);
	return ret < 0 ? RDS_ERR(-ret) : 0;
}

/* Transport counters: as many as one answer holds (113; a transport
 * has a few dozen). */
int
rds_client_xstats(const char *transport, struct rte_rds_xstat *xs,
		  unsigned int n)
{
	uint32_t len;
	int ret;

	if (transport == NULL)
		return RDS_ERR(EINVAL);
	if (strnlen(transport, RTE_RDS_XSTAT_NAMESIZE) ==
	    RTE_RDS_XSTAT_NAMESIZE)
		return RDS_ERR(ENODEV);
	if (xs == NULL)
		n = 0;
	len = (uint32_t)RTE_MIN((size_t)n * sizeof(*xs),
				RDS_CTL_MAX_DATA / sizeof(*xs) * sizeof(*xs));
	ret = rds_cl_simple(rds_cl, RDS_CTL_XSTATS, -1, 0, 0, transport,
			    (uint32_t)strlen(transport) + 1, xs,
			    len != 0 ? &len : NULL);
	return ret < 0 ? RDS_ERR(-ret) : ret;
}

int
rds_client_xstat(const char *transport, const char *name, uint64_t *value)
{
	struct rte_rds_xstat *xs;
	int n, i;

	if (name == NULL || value == NULL)
		return RDS_ERR(EINVAL);
	n = rds_client_xstats(transport, NULL, 0);
	if (n <= 0)
		return n < 0 ? -1 : RDS_ERR(ENOENT);
	xs = calloc((size_t)n, sizeof(*xs));
	if (xs == NULL)
		return RDS_ERR(ENOMEM);
	n = rds_client_xstats(transport, xs, (unsigned int)n);
	for (i = 0; i < n; i++)
		if (strcmp(xs[i].name, name) == 0) {
			*value = xs[i].value;
			free(xs);
			return 0;
		}
	free(xs);
	return n < 0 ? -1 : RDS_ERR(ENOENT);
}

int
rds_client_event_fd(int s)
{
	struct rds_cl_sock *cs = rds_cl_hold(rds_cl, s);
	int fd;

	if (cs == NULL)
		return RDS_ERR(EBADF);
	fd = __atomic_load_n(&cs->efd, __ATOMIC_ACQUIRE);
	rds_cl_put(cs);
	return fd;
}

int
rte_rds_event_fd_move(int s, int min_fd)
{
	struct rds_cl *cl = rds_cl;
	struct rds_cl_sock *cs;
	int old, fd, err;

	/* The library's own sockets' event fds are written by its engines
	 * by number, from other threads: they stay where they are. */
	if (!rds_client_active())
		return RDS_ERR(ENXIO);
	cs = rds_cl_hold(cl, s);
	if (cs == NULL)
		return RDS_ERR(EBADF);
	if (min_fd < 0) {
		rds_cl_put(cs);
		return RDS_ERR(EINVAL);
	}
	pthread_mutex_lock(&cl->move_lock);
	old = cs->efd;
	fd = fcntl(old, F_DUPFD_CLOEXEC, min_fd);
	if (fd < 0) {
		err = errno == EMFILE ? EMFILE : EINVAL;
		pthread_mutex_unlock(&cl->move_lock);
		rds_cl_put(cs);
		return RDS_ERR(err);
	}
	/* New users find no number; the ones on the old number leave it
	 * at the end of their sleep (at most a slice, 10 ms: nothing but
	 * the engine can make the descriptor readable). */
	__atomic_store_n(&cs->efd_moving, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&cs->efd_users, __ATOMIC_SEQ_CST) != 0)
		nanosleep(&(struct timespec){ .tv_nsec = 100000 }, NULL);
	__atomic_store_n(&cs->efd, fd, __ATOMIC_SEQ_CST);
	__atomic_store_n(&cs->efd_moving, 0, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&cl->move_lock);
	rds_cl_put(cs);
	return fd;
}

int
rds_client_event_arm(int s, short events)
{
	struct rds_cl *cl = rds_cl;
	struct rds_cl_sock *cs = rds_cl_hold(cl, s);
	short rev;

	if (cs == NULL)
		return RDS_ERR(EBADF);
	/* An engine that went is a peer that went: an error and a hang-up,
	 * and readable and writable as asked, so that a waiter on either
	 * wakes and its call says ECONNRESET (a TCP socket reset by its
	 * peer polls so). Its wake-up descriptor hangs up by itself. */
	if (rds_cl_engine_gone(cl)) {
		rds_cl_put(cs);
		return POLLERR | POLLHUP | (events & (POLLIN | POLLRDNORM |
						      POLLOUT | POLLWRNORM));
	}
	rds_cl_arm_ev(cl, cs, (short)(events & ~RTE_RDS_ARM_EDGE));
	rev = rds_cl_revents(cs, events & ~RTE_RDS_ARM_EDGE);
	if (rev != 0 && !(events & RTE_RDS_ARM_EDGE))
		rds_cl_disarm_ev(cs, (short)(events & ~RTE_RDS_ARM_EDGE));
	rds_cl_put(cs);
	return rev;
}

int
rds_client_poll(struct rte_rds_pollfd *fds, unsigned int nfds, int timeout_ms)
{
	struct rds_cl *cl = rds_cl;
	struct rds_cl_sock *held[64];
	struct pollfd pfd[64];
	uint64_t deadline = 0, spin_until = 0, now;
	unsigned int i, ready;
	int slice;

	if (fds == NULL && nfds != 0)
		return RDS_ERR(EINVAL);
	if (timeout_ms > 0)
		deadline = rds_cl_now_ns() + (uint64_t)timeout_ms * 1000000ULL;
	for (;;) {
		ready = 0;
		for (i = 0; i < nfds; i++) {
			struct rds_cl_sock *cs = rds_cl_hold(cl, fds[i].sock);

			fds[i].revents = cs == NULL ? POLLNVAL :
				rds_cl_revents(cs, fds[i].events);
			if (cs != NULL)
				rds_cl_put(cs);
			if (fds[i].revents != 0)
				ready++;
		}
		if (ready != 0 || timeout_ms == 0)
			return (int)ready;
		now = rds_cl_now_ns();
		if (deadline != 0 && now >= deadline)
			return 0;
		if (rds_cl_engine_gone(cl))
			return RDS_ERR(ECONNRESET);
		if (spin_until == 0)
			spin_until = now + RDS_CL_SPIN_NS;
		if (now < spin_until || nfds > 64) {
			rds_cl_spin_step();
			continue;
		}
		/* Every socket held, and its wake-up descriptor's number in
		 * use, for the whole sleep (rds_cl_efd_get). */
		slice = cl->slice_ms;
		if (deadline != 0 && (deadline - now) / 1000000 <
		    (uint64_t)slice)
			slice = (int)((deadline - now) / 1000000) + 1;
		for (i = 0; i < nfds; i++) {
			struct rds_cl_sock *cs = rds_cl_hold(cl, fds[i].sock);

			held[i] = cs;
			pfd[i].fd = -1;
			pfd[i].events = POLLIN;
			if (cs == NULL) {
				slice = 0;	/* closed: POLLNVAL next */
				continue;
			}
			rds_cl_arm_ev(cl, cs, fds[i].events);
			if (rds_cl_revents(cs, fds[i].events) != 0) {
				rds_cl_disarm_ev(cs, fds[i].events);
				slice = 0;
				continue;
			}
			pfd[i].fd = rds_cl_efd_get(cs);
			if (pfd[i].fd < 0)
				slice = 0;	/* moving: look again */
		}
		/* An engine that goes hangs the wake-up descriptors up. */
		if (slice != 0 && poll(pfd, nfds, slice) > 0)
			for (i = 0; i < nfds; i++) {
				if (pfd[i].fd < 0)
					continue;
				if (pfd[i].revents & POLLIN)
					rds_cl_wake_drain(pfd[i].fd);
				if ((pfd[i].revents & (POLLHUP | POLLERR)) &&
				    held[i] != NULL &&
				    __atomic_load_n(&held[i]->state,
						    __ATOMIC_ACQUIRE) ==
				    RDS_SOCK_OPEN)
					__atomic_store_n(&cl->dead, 1,
							 __ATOMIC_RELEASE);
			}
		for (i = 0; i < nfds; i++) {
			if (held[i] == NULL)
				continue;
			if (pfd[i].fd >= 0)
				rds_cl_efd_put(held[i]);
			rds_cl_put(held[i]);
		}
	}
}

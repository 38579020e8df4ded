/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tcp transport's connections (net/rds/tcp_connect.c, tcp_listen.c):
 * a listening socket per local address on engine 0, accepted sockets
 * handed to the engine that owns their connection, and the kernel's
 * rule that only the lower address of a pair connects. The higher one,
 * with something to send, connects all the same (a "knock"): the lower
 * side resets that connection and connects back (rds_tcp_accept_one_path
 * and rds_conn_path_connect_if_down), and the higher side, whose
 * connect was answered, waits for it (accept_wait_ms; then it tries
 * again). An accepted connection on a connection that is up replaces
 * it: the peer restarted (rds_tcp_accept_one's reset of callbacks).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <rte_ring.h>

#include "rds_tcp.h"

#define RDS_TCP_LANE_EVENTS (EPOLLIN | EPOLLRDHUP)

/* Options of every connection's socket, as rds_tcp_tune and
 * rds_tcp_keepalive: no Nagle, keepalive 5 s x 5, the buffers asked
 * for. Failures are not fatal (the kernel ignores them too). */
static void
rds_tcp_tune(int fd, const struct rds_tcp_opts *o)
{
	int one = 1, idle = RDS_TCP_KEEPIDLE, cnt = RDS_TCP_KEEPCNT;
	int v;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &idle, sizeof(idle));
	if (o->sndbuf != 0) {
		v = (int)o->sndbuf;
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
	}
	if (o->rcvbuf != 0) {
		v = (int)o->rcvbuf;
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
	}
}

/* Close with an RST and no TIME_WAIT (the kernel's sock_no_linger on a
 * socket that carried no RDS data). */
static void
rds_tcp_close_rst(int fd)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(fd);
}

static struct rds_tcp_engine *
rds_tcp_lane_engine(const struct rds_tcp_lane *l)
{
	return rds_tcp_engine(l->tc->c->eng);
}

void
rds_tcp_lane_close(struct rds_tcp_lane *l)
{
	/* What the socket received was acknowledged by TCP: kept. First
	 * both directions shut (a FIN; FIN_WAIT1 with the receive side
	 * shut answers any new data with an RST instead of acknowledging
	 * it: Linux's tcp_rcv_state_process), so that nothing is
	 * acknowledged after the drain reads the last byte queued: the
	 * peer sends what was not acknowledged again after the
	 * reconnect. */
	if (l->st == RDS_TCP_L_UP) {
		if (l->fd >= 0)
			shutdown(l->fd, SHUT_RDWR);
		rds_tcp_lane_drain(l);
	}
	if (l->fd >= 0) {
		rds_tcp_ep_del(rds_tcp_lane_engine(l), l->fd);
		close(l->fd);
	}
	l->fd = -1;
	l->st = RDS_TCP_L_IDLE;
	l->out_armed = false;
}

/* The lane's socket failed or ended: closed now, the connection dropped
 * at the engine's next run of it (reset, then reconnect). */
void
rds_tcp_lane_error(struct rds_tcp_lane *l, const char *why, int err)
{
	struct rds_conn *c = l->tc->c;

	rds_tcp_lane_engine(l)->stats.resets++;
	TCP_LOG(DEBUG, "lane %u: %s%s%s", l->idx, why, err != 0 ? ": " : "",
		err != 0 ? strerror(err) : "");
	rds_tcp_lane_close(l);
	if (c->state == RDS_CONN_UP || c->state == RDS_CONN_CONNECTING)
		rds_conn_error(c, why);
}

/* A knock unanswered for accept_wait_ms: try again after the backoff. */
static void
rds_tcp_wait_expired(struct rds_engine *e, struct rds_timer *t)
{
	struct rds_tcp_conn *tc = container_of(t, struct rds_tcp_conn,
					       wait_timer);

	if (tc->lane.st != RDS_TCP_L_WAIT)
		return;
	if (!rds_conn_has_work(tc->c)) {
		/* Nothing to send: the lower address connects when it has
		 * something, or when we knock once we have. */
		rds_timer_arm(e, t, e->now + (uint64_t)tc->tl->opts.accept_wait_ms
			      * rds_clock_hz() / 1000);
		return;
	}
	rds_tcp_engine(e)->stats.accept_waits_expired++;
	tc->lane.st = RDS_TCP_L_IDLE;
	if (tc->c->state == RDS_CONN_CONNECTING)
		rds_conn_error(tc->c, "the lower address did not connect back");
}

void
rds_tcp_conn_timer_init(struct rds_tcp_conn *tc)
{
	rds_timer_init(&tc->wait_timer, rds_tcp_wait_expired);
}

void
rds_tcp_conn_shutdown(struct rds_conn *c)
{
	struct rds_tcp_conn *tc = c->tp;
	struct rds_tcp_lane *l;

	if (tc == NULL)
		return;
	l = &tc->lane;
	rds_timer_cancel(c->eng, &tc->wait_timer);
	rds_tcp_lane_close(l);
	rds_tcp_lane_tx_reset(l);
	rds_tcp_lane_settle(l);
	l->written = l->acked = 0;
}

/* An established socket becomes the connection's lane. */
static void
rds_tcp_lane_up(struct rds_tcp_lane *l, int fd, bool registered)
{
	struct rds_tcp_engine *te = rds_tcp_lane_engine(l);
	struct sockaddr_storage sa;
	struct in6_addr a;
	socklen_t len = sizeof(sa);

	l->fd = fd;
	l->st = RDS_TCP_L_UP;
	l->rx_garbage = false;
	l->written = l->acked = 0;
	l->ack_wait_us = RDS_TCP_ACK_US;
	if (getsockname(fd, (struct sockaddr *)&sa, &len) != 0 ||
	    !rds_tcp_sockaddr_addr(&sa, &a, &l->lport))
		l->lport = 0;
	len = sizeof(sa);
	if (getpeername(fd, (struct sockaddr *)&sa, &len) != 0 ||
	    !rds_tcp_sockaddr_addr(&sa, &a, &l->pport))
		l->pport = 0;
	if ((registered ? rds_tcp_ep_mod(te, fd, RDS_TCP_LANE_EVENTS, l) :
	     rds_tcp_ep_add(te, fd, RDS_TCP_LANE_EVENTS, l)) != 0) {
		if (!registered)
			l->fd = -1, close(fd);
		rds_tcp_lane_error(l, "epoll_ctl failed", errno);
		return;
	}
	rds_conn_connect_complete(l->tc->c);
}

/* A TCP socket of the address's family (tcp_connect.c: PF_INET for a
 * v4-mapped address, else PF_INET6); an IPv6 one only IPv6. */
static int
rds_tcp_socket(const struct in6_addr *a)
{
	bool v4 = rds_addr_is_v4(a);
	int fd = socket(v4 ? AF_INET : AF_INET6,
			SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
	int one = 1;

	if (fd >= 0 && !v4 &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Connect (rds_tcp_conn_path_connect): from our address, any port, to
 * the peer's. The lower address's connect becomes the lane; the higher
 * address's is a knock (above).
 */
int
rds_tcp_conn_connect(struct rds_conn *c)
{
	struct rds_tcp_conn *tc = c->tp;
	struct rds_tcp_engine *te = rds_tcp_engine(c->eng);
	struct rds_tcp_lane *l = &tc->lane;
	struct sockaddr_storage sa;
	socklen_t len;
	int fd, ret;

	rds_tcp_conn_shutdown(c);
	if (!tc->lower && !rds_conn_has_work(c)) {
		/* The higher address reconnects only when it has something
		 * to send (the kernel's rds_queue_reconnect leaves it to the
		 * lower one): waiting, a knock when there is. */
		l->st = RDS_TCP_L_WAIT;
		rds_timer_arm(c->eng, &tc->wait_timer, rds_clock_tsc() +
			      (uint64_t)tc->tl->opts.accept_wait_ms *
			      rds_clock_hz() / 1000);
		return 0;
	}
	/* A link-local peer is on our link-local address's link (the
	 * kernel's c_dev_if); a global address has no link to give one. */
	if (rds_addr_is_linklocal(&c->key.faddr) && tc->tl->scope == 0)
		return -EINVAL;
	fd = rds_tcp_socket(&c->key.laddr);
	if (fd < 0)
		return -errno;
	rds_tcp_tune(fd, &tc->tl->opts);
	/* From our address, any port, to the peer's (tcp_connect.c). */
	len = rds_addr_sockaddr(&c->key.laddr, 0, tc->tl->scope, &sa);
	if (bind(fd, (struct sockaddr *)&sa, len) != 0)
		goto fail;
	len = rds_addr_sockaddr(&c->key.faddr, tc->tl->opts.port,
			       tc->tl->scope, &sa);
	if (connect(fd, (struct sockaddr *)&sa, len) != 0 &&
	    errno != EINPROGRESS)
		goto fail;
	ret = rds_tcp_ep_add(te, fd, EPOLLOUT, l);
	if (ret != 0) {
		close(fd);
		return ret;
	}
	l->fd = fd;
	l->st = tc->lower ? RDS_TCP_L_CONNECTING : RDS_TCP_L_KNOCK;
	if (!tc->lower)
		te->stats.knocks++;
	return 0;
fail:
	ret = -errno;
	close(fd);
	te->stats.connect_fails++;
	return ret;
}

/* EPOLLOUT (or an error) on a connecting socket. */
void
rds_tcp_lane_connected(struct rds_tcp_lane *l)
{
	struct rds_tcp_conn *tc = l->tc;
	struct rds_engine *e = tc->c->eng;
	struct rds_tcp_engine *te = rds_tcp_engine(e);
	socklen_t len = sizeof(int);
	int err = 0, fd = l->fd;

	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
		err = errno;
	if (l->st == RDS_TCP_L_KNOCK) {
		/* Answered, one way or the other: the peer is there (it
		 * resets this and connects back), or it refused. */
		rds_tcp_ep_del(te, fd);
		rds_tcp_close_rst(fd);
		l->fd = -1;
		if (err != 0) {
			te->stats.connect_fails++;
			l->st = RDS_TCP_L_IDLE;
			if (tc->c->state == RDS_CONN_CONNECTING)
				rds_conn_error(tc->c, "connect refused");
			return;
		}
		l->st = RDS_TCP_L_WAIT;
		rds_timer_arm(e, &tc->wait_timer, e->now +
			      (uint64_t)tc->tl->opts.accept_wait_ms *
			      rds_clock_hz() / 1000);
		return;
	}
	if (err != 0) {
		te->stats.connect_fails++;
		rds_tcp_lane_error(l, "connect failed", err);
		return;
	}
	te->stats.connects++;
	rds_tcp_lane_up(l, fd, true);
}

/* ------------------------------------------------------------------ */
/* The passive side */

void
rds_tcp_accept(struct rds_tcp_engine *te, struct rds_tcp_handoff *h)
{
	struct rds_engine *e = te->e;
	struct rds_conn_key key;
	struct rds_tcp_conn *tc;
	struct rds_laddr *la;
	struct rds_conn *c;

	memset(&key, 0, sizeof(key));
	key.laddr = h->laddr;
	key.faddr = h->faddr;
	key.trans_id = RDS_TRANS_TCP;
	la = rds_laddr_find(&key.laddr);
	if (la == NULL || la->trans != &rds_tcp_transport) {
		te->stats.accept_refused++;
		rds_tcp_close_rst(h->fd);
		return;
	}
	c = rds_conn_get(e, &key);
	if (c == NULL) {
		te->stats.accept_refused++;
		rds_tcp_close_rst(h->fd);
		return;
	}
	tc = c->tp;
	if (tc->lower) {
		/* A knock of the higher address: refused, and answered with
		 * a connect of ours unless one is up or under way (a new
		 * connection is connecting already), as the kernel's
		 * rds_conn_path_connect_if_down: a knock often races our
		 * connect, and one that is up ends by itself when the peer
		 * is gone (its FIN, keepalive). */
		rds_tcp_close_rst(h->fd);
		te->stats.knocks_answered++;
		rds_conn_connect_now(c);
		return;
	}
	if (c->state == RDS_CONN_UP) {
		/* The peer restarted, or reconnects before we saw the end
		 * of its last connection: this one replaces it. */
		te->stats.accept_replaced++;
		rds_conn_drop(c);
	} else if (c->drop_pending && c->state != RDS_CONN_DOWN) {
		rds_conn_drop(c);
	}
	rds_tcp_conn_shutdown(c);
	rds_tcp_tune(h->fd, &tc->tl->opts);
	te->stats.accepts++;
	rds_conn_accepting(c);	/* no knock of ours meanwhile */
	rds_tcp_lane_up(&tc->lane, h->fd, false);
}

/* The listening socket is readable: accept what is there, each to the
 * engine that owns its connection. */
void
rds_tcp_accept_ready(struct rds_tcp_engine *te, struct rds_tcp_laddr *tl)
{
	struct rds_tcp_handoff h, *hp;
	struct sockaddr_storage sa;
	unsigned int i, owner;
	socklen_t len;
	int fd;

	for (i = 0; i < 16; i++) {
		len = sizeof(sa);
		fd = accept4(tl->lfd, (struct sockaddr *)&sa, &len,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		memset(&h, 0, sizeof(h));
		/* The listener's family: an IPv4 peer of an IPv4 address,
		 * an IPv6 one of an IPv6 address (IPV6_V6ONLY). */
		if (!rds_tcp_sockaddr_addr(&sa, &h.faddr, &h.pport) ||
		    rds_addr_is_v4(&h.faddr) != rds_addr_is_v4(&tl->la->addr)) {
			te->stats.accept_refused++;
			rds_tcp_close_rst(fd);
			continue;
		}
		h.fd = fd;
		h.laddr = tl->la->addr;
		owner = rds_conn_engine_of(&h.laddr, &h.faddr);
		if (owner == te->e->id) {
			rds_tcp_accept(te, &h);
			continue;
		}
		hp = rds_mem_zalloc("rds_tcp_handoff", sizeof(*hp));
		if (hp != NULL) {
			*hp = h;
			if (rte_ring_enqueue(rds_tcp_engine(
				rds_engine_get(owner))->handoff, hp) == 0) {
				te->stats.accept_handoffs++;
				continue;
			}
			rds_mem_free(hp);
		}
		te->stats.accept_refused++;
		rds_tcp_close_rst(fd);
	}
}

void
rds_tcp_unlisten(void)
{
	struct rds_engine *e0;
	unsigned int i;

	for (i = 0; rds_lib != NULL && i < rds_lib->nb_laddrs; i++) {
		struct rds_laddr *la = rds_lib->laddrs[i];
		struct rds_tcp_laddr *tl;

		if (la->trans != &rds_tcp_transport || la->tp == NULL)
			continue;
		tl = rds_tcp_laddr(la);
		if (tl->lfd < 0)
			continue;
		e0 = rds_lib->nb_engines > 0 ? rds_engine_get(0) : NULL;
		if (e0 != NULL && rds_tcp_engine(e0) != NULL)
			rds_tcp_ep_del(rds_tcp_engine(e0), tl->lfd);
		close(tl->lfd);
		tl->lfd = -1;
	}
}

/* One listening socket per local tcp address (the kernel listens on the
 * wildcard: a specific address lets several instances share a host,
 * each with its own addresses, as several hosts would). */
int
rds_tcp_listen(struct rds_tcp_engine *te)
{
	struct sockaddr_storage sa;
	unsigned int i;
	socklen_t len;
	int one = 1, err;

	for (i = 0; i < rds_lib->nb_laddrs; i++) {
		struct rds_laddr *la = rds_lib->laddrs[i];
		struct rds_tcp_laddr *tl;
		char a[INET6_ADDRSTRLEN];

		if (la->trans != &rds_tcp_transport)
			continue;
		tl = rds_tcp_laddr(la);
		rds_tcp_addr_str(&la->addr, a, sizeof(a));
		tl->lfd = rds_tcp_socket(&la->addr);
		if (tl->lfd < 0)
			return -errno;
		setsockopt(tl->lfd, SOL_SOCKET, SO_REUSEADDR, &one,
			   sizeof(one));
		len = rds_addr_sockaddr(&la->addr, tl->opts.port, tl->scope,
				       &sa);
		if (bind(tl->lfd, (struct sockaddr *)&sa, len) != 0 ||
		    listen(tl->lfd, 64) != 0) {
			err = errno;
			TCP_LOG(ERR, "cannot listen on %s%s%s:%u: %s%s",
				rds_addr_is_v4(&la->addr) ? "" : "[", a,
				rds_addr_is_v4(&la->addr) ? "" : "]",
				tl->opts.port, strerror(err),
				err == EADDRINUSE ? " (is the kernel's rds_tcp "
				"loaded?)" : err == EADDRNOTAVAIL ? " (not an "
				"address of this host)" : "");
			rds_tcp_unlisten();
			return -err;
		}
		err = rds_tcp_ep_add(te, tl->lfd, EPOLLIN, tl);
		if (err != 0) {
			rds_tcp_unlisten();
			return err;
		}
		TCP_LOG(INFO, "listening on %s%s%s:%u",
			rds_addr_is_v4(&la->addr) ? "" : "[", a,
			rds_addr_is_v4(&la->addr) ? "" : "]", tl->opts.port);
	}
	return 0;
}

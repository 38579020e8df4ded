/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Serving other processes (rte_rds_attach.h): the engine side.
 *
 * The control plane runs on the thread that calls rte_rds_server_poll():
 * it accepts clients on the UNIX socket, gives each a region (a memfd,
 * rds_region.h), and answers their calls (socket, bind, options, close,
 * info) by making the same calls on the library for them, on sockets of
 * the engine's own whose handles it keeps per client.
 *
 * The data plane runs in one engine per client (its service engine),
 * in each pass: it takes the doorbells the client's threads rang, copies
 * each request of the sockets they name out of the region into a
 * message of the engine's (checking every field: a client is input),
 * gives the TX buffer back, and queues the message as a send of the
 * socket would; it takes back the RX buffers the client consumed. Any
 * engine delivering to a client socket copies the message into an RX
 * buffer of the client's region and queues it to the socket's ring, or
 * keeps it (in order) until the client makes room.
 *
 * A client that breaks the protocol (an offset outside its pools, a
 * buffer given back twice, a ring with more entries than it holds) is
 * disconnected and counted; one that goes away has its sockets closed.
 *
 * This file: the regions given to clients, a client's arrival and
 * departure, and the public calls (start, poll, stop, stats). The data
 * plane is in rds_server_data.c, the control calls in rds_server_ctl.c,
 * what they share in rds_server_private.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>

#include "rds_server_private.h"
#include "rte_rds_attach.h"

struct rds_server *rds_srv;

/* ------------------------------------------------------------------ */
/* Region */

static uint64_t
rds_align(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* The layout of a region of about mb MiB. */
static void
rds_region_layout_make(uint32_t mb, struct rds_region_layout *l)
{
	uint64_t off = rds_align(sizeof(struct rds_region_hdr), 64);
	uint64_t ring_req = rds_xring_bytes(RDS_CSOCK_REQ_RING);
	uint64_t ring_rx = rds_xring_bytes(RDS_CSOCK_RX_RING);
	uint64_t ring_nt = rds_xring_bytes(RDS_CSOCK_NT_RING);
	uint64_t pool = ((uint64_t)mb << 20) / 2, share;
	unsigned int p, c;
	/* Of each pool: 1/8 small, 1/4 4 KiB, 1/4 64 KiB, 3/8 1 MiB. */
	static const unsigned int eighths[RDS_REGION_NB_CLASSES] = {
		1, 2, 2, 3 };

	memset(l, 0, sizeof(*l));
	l->nb_socks = RDS_SRV_SOCKS;
	l->nb_bells = RDS_SRV_BELLS;
	l->socks_off = off;
	off += sizeof(struct rds_csock) * l->nb_socks;
	off = rds_align(off, 64);
	/* Each socket's three rings follow the sockets (the engine finds
	 * them from the index, never from the offsets in rds_csock). */
	off += (ring_req + ring_rx + ring_nt) * l->nb_socks;
	l->bells_off = rds_align(off, 64);
	l->bell_stride = rds_xring_bytes(RDS_REGION_BELL_RING);
	off = l->bells_off + l->bell_stride * l->nb_bells;
	l->txfree_off = rds_align(off, 64);
	off = l->txfree_off + rds_xring_bytes(RDS_REGION_FREE_RING);
	l->rxfree_off = rds_align(off, 64);
	off = l->rxfree_off + rds_xring_bytes(RDS_REGION_FREE_RING);
	for (p = 0; p < 2; p++) {
		for (c = 0; c < RDS_REGION_NB_CLASSES; c++) {
			share = pool * eighths[c] / 8;
			off = rds_align(off, 4096);
			l->pool_off[p][c] = off;
			l->pool_nb[p][c] = (uint32_t)RTE_MAX(2ULL,
				share / rds_region_class_size[c]);
			off += (uint64_t)l->pool_nb[p][c] *
			       rds_region_class_size[c];
		}
	}
	l->size = rds_align(off, 4096);
}

static void
rds_region_init(uint8_t *base, const struct rds_region_layout *l)
{
	struct rds_region_hdr *h = (void *)base;
	uint32_t i;

	h->magic = RDS_REGION_MAGIC;
	h->version = RDS_REGION_VERSION;
	h->lay = *l;
	h->nb_laddrs = RTE_MIN(rds_lib->nb_laddrs,
			       (unsigned int)RDS_REGION_MAX_LADDRS);
	for (i = 0; i < h->nb_laddrs; i++) {
		const struct rds_laddr *la = rds_lib->laddrs[i];

		h->laddr[i].v4 = rds_addr_v4(&la->addr);
		h->laddr[i].flags = (la->trans->flags & RDS_TRANS_F_LOOPBACK) ?
				    RDS_REGION_LADDR_LOOPBACK : 0;
	}
	for (i = 0; i < l->nb_socks; i++) {
		struct rds_csock *cs = (void *)(base + l->socks_off +
						sizeof(*cs) * i);

		memset(cs, 0, sizeof(*cs));
		cs->handle = -1;
		cs->req_off = rds_region_csock_ring(l, i, 0);
		cs->rx_off = rds_region_csock_ring(l, i, 1);
		cs->nt_off = rds_region_csock_ring(l, i, 2);
		rds_xring_init((void *)(base + cs->req_off));
		rds_xring_init((void *)(base + cs->rx_off));
		rds_xring_init((void *)(base + cs->nt_off));
	}
	for (i = 0; i < l->nb_bells; i++)
		rds_xring_init((void *)(base + l->bells_off +
					l->bell_stride * i));
	rds_xring_init((void *)(base + l->txfree_off));
	rds_xring_init((void *)(base + l->rxfree_off));
}

void
rds_client_violation(struct rds_client *cl, const char *what)
{
	if (__atomic_exchange_n(&cl->bad, 1, __ATOMIC_ACQ_REL) == 0) {
		__atomic_fetch_add(&rds_srv->violations, 1, __ATOMIC_RELAXED);
		RDS_LOG(WARNING, "client pid %d: %s: disconnecting it",
			(int)cl->pid, what);
	}
}

/* Free what a client socket kept until the client made room: its
 * received messages and notifications. */
void
rds_srv_sock_flush(struct rds_srv_sock *ss)
{
	struct rds_msg *m;

	while ((m = TAILQ_FIRST(&ss->ovf)) != NULL) {
		TAILQ_REMOVE(&ss->ovf, m, link);
		rds_msg_free(m);
	}
	while ((m = TAILQ_FIRST(&ss->nt_ovf)) != NULL) {
		TAILQ_REMOVE(&ss->nt_ovf, m, link);
		rds_msg_free(m);
	}
}

static void
rds_srv_client_free(struct rds_client *cl)
{
	unsigned int c, i;

	for (i = 0; i < RDS_SRV_SOCKS; i++) {
		struct rds_srv_sock *ss = &cl->socks[i];

		rds_srv_sock_flush(ss);
		if (ss->efd >= 0)
			close(ss->efd);
	}
	for (c = 0; c < RDS_REGION_NB_CLASSES; c++) {
		free(cl->rx_free[c]);
		free(cl->rx_len[c]);
		free(cl->rx_owner[c]);
	}
	free(cl->tx_back);
	if (cl->base != NULL && cl->base != MAP_FAILED)
		munmap(cl->base, cl->size);
	if (cl->memfd >= 0)
		close(cl->memfd);
	if (cl->fd >= 0)
		close(cl->fd);
	free(cl);
}

/* A client goes: the engine lets it go, its sockets are closed. */
static void
rds_srv_client_drop(struct rds_client *cl)
{
	unsigned int i;

	if (cl->on_engine)
		rds_engine_call_wait(cl->engine, rds_srv_detach_call, cl);
	for (i = 0; i < RDS_SRV_SOCKS; i++) {
		struct rds_srv_sock *ss = &cl->socks[i];
		struct rds_sock *rs = ss->rs;

		if (rs == NULL)
			continue;
		__atomic_store_n(&ss->rs, NULL, __ATOMIC_RELEASE);
		rte_rds_close(rs->id);
	}
	TAILQ_REMOVE(&rds_srv->clients, cl, link);
	rds_srv->nb_clients--;
	rds_srv->detached++;
	rds_srv->gone_in += cl->msgs_in;
	rds_srv->gone_out += cl->msgs_out;
	RDS_LOG(INFO, "client pid %d detached", (int)cl->pid);
	rds_srv_client_free(cl);
}

static struct rds_client *
rds_srv_client_new(int fd)
{
	struct rds_client *cl = calloc(1, sizeof(*cl));
	struct ucred cred;
	socklen_t len = sizeof(cred);
	unsigned int c, i;
	uint32_t n;

	if (cl == NULL)
		return NULL;
	cl->fd = fd;
	cl->memfd = -1;
	for (i = 0; i < RDS_SRV_SOCKS; i++) {
		cl->socks[i].efd = -1;
		cl->socks[i].idx = i;
		TAILQ_INIT(&cl->socks[i].ovf);
		TAILQ_INIT(&cl->socks[i].nt_ovf);
	}
	TAILQ_INIT(&cl->ovf_socks);
	rte_spinlock_init(&cl->rx_lock);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) {
		cl->pid = cred.pid;
		cl->uid = cred.uid;
	}
	rds_region_layout_make(rds_srv->region_mb, &cl->lay);
	cl->size = cl->lay.size;
	cl->memfd = memfd_create("rds-region", MFD_CLOEXEC);
	if (cl->memfd < 0 || ftruncate(cl->memfd, (off_t)cl->size) != 0)
		goto fail;
	cl->base = mmap(NULL, cl->size, PROT_READ | PROT_WRITE, MAP_SHARED,
			cl->memfd, 0);
	if (cl->base == MAP_FAILED)
		goto fail;
	rds_region_init(cl->base, &cl->lay);
	for (c = 0; c < RDS_REGION_NB_CLASSES; c++) {
		n = cl->lay.pool_nb[RDS_POOL_RX][c];
		cl->rx_free[c] = malloc(sizeof(uint32_t) * n);
		cl->rx_len[c] = calloc(n, sizeof(uint32_t));
		cl->rx_owner[c] = malloc(sizeof(uint32_t) * n);
		if (cl->rx_free[c] == NULL || cl->rx_len[c] == NULL ||
		    cl->rx_owner[c] == NULL)
			goto fail;
		for (i = 0; i < n; i++) {
			cl->rx_free[c][i] = n - 1 - i;
			cl->rx_owner[c][i] = UINT32_MAX;
		}
		cl->rx_nfree[c] = n;
	}
	n = 0;
	for (c = 0; c < RDS_REGION_NB_CLASSES; c++)
		n += cl->lay.pool_nb[RDS_POOL_TX][c];
	cl->tx_back = malloc(sizeof(uint64_t) * n);
	if (cl->tx_back == NULL)
		goto fail;
	for (i = 0; i < RDS_SRV_BELLS; i++)
		rds_xring_end_init(&cl->bells[i],
			(void *)(cl->base + cl->lay.bells_off +
				 cl->lay.bell_stride * i),
			RDS_REGION_BELL_RING, false);
	rds_xring_end_init(&cl->txfree, (void *)(cl->base + cl->lay.txfree_off),
			   RDS_REGION_FREE_RING, true);
	rds_xring_end_init(&cl->rxfree, (void *)(cl->base + cl->lay.rxfree_off),
			   RDS_REGION_FREE_RING, false);
	cl->engine = rds_srv->next_engine++ % rds_lib->nb_engines;
	return cl;
fail:
	cl->fd = -1;	/* the caller closes it */
	rds_srv_client_free(cl);
	return NULL;
}

/* A new connection: the hello, then the region. */
static void
rds_srv_accept(void)
{
	struct rds_ctl_hello hello;
	struct rds_ctl_resp *r;
	struct rds_client *cl;
	int fd;
	ssize_t n;

	fd = accept4(rds_srv->lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	n = recv(fd, &hello, sizeof(hello), 0);
	if (n != sizeof(hello) || hello.magic != RDS_REGION_MAGIC ||
	    hello.version != RDS_REGION_VERSION ||
	    rds_srv->nb_clients >= rds_srv->max_clients) {
		RDS_LOG(WARNING, "a client with a bad hello (or too many "
			"clients): refused");
		rds_srv->refused++;
		close(fd);
		return;
	}
	cl = rds_srv_client_new(fd);
	r = calloc(1, sizeof(*r));
	if (cl == NULL || r == NULL) {
		free(r);
		if (cl != NULL)
			rds_srv_client_free(cl);
		else
			close(fd);
		rds_srv->refused++;
		return;
	}
	r->op = RDS_CTL_HELLO;
	r->ret = 0;
	r->len = sizeof(uint64_t);
	memcpy(r->data, &cl->size, sizeof(uint64_t));
	if (rds_srv_send(fd, r, cl->memfd) != 0) {
		free(r);
		rds_srv_client_free(cl);
		return;
	}
	free(r);
	TAILQ_INSERT_TAIL(&rds_srv->clients, cl, link);
	rds_srv->nb_clients++;
	rds_srv->attached++;
	rds_engine_call_wait(cl->engine, rds_srv_attach_call, cl);
	RDS_LOG(INFO, "client pid %d attached (region %zu KiB, engine %u)",
		(int)cl->pid, cl->size >> 10, cl->engine);
}

int
rte_rds_server_start(const struct rte_rds_server_conf *conf)
{
	struct sockaddr_un sa;
	struct rds_server *srv;
	unsigned int i;
	int fd, err;

	if (rds_lib == NULL)
		return RDS_ERR(ENXIO);
	if (rds_srv != NULL)
		return RDS_ERR(EEXIST);
	if (conf == NULL || conf->path == NULL ||
	    strlen(conf->path) >= sizeof(sa.sun_path))
		return RDS_ERR(EINVAL);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return RDS_ERR(errno);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", conf->path);
	/* A live engine there answers; a stale socket file does not. */
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		close(fd);
		return RDS_ERR(EADDRINUSE);
	}
	unlink(conf->path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    chmod(conf->path, conf->mode != 0 ? conf->mode : 0660) != 0 ||
	    (conf->gid != (gid_t)-1 &&
	     chown(conf->path, (uid_t)-1, conf->gid) != 0) ||
	    listen(fd, 64) != 0) {
		err = errno;
		close(fd);
		unlink(conf->path);
		return RDS_ERR(err);
	}
	srv = calloc(1, sizeof(*srv));
	if (srv == NULL) {
		close(fd);
		unlink(conf->path);
		return RDS_ERR(ENOMEM);
	}
	srv->lfd = fd;
	snprintf(srv->path, sizeof(srv->path), "%s", conf->path);
	srv->region_mb = conf->region_mb != 0 ? conf->region_mb :
			 RDS_SRV_DEFAULT_REGION_MB;
	srv->max_clients = conf->max_clients != 0 ? conf->max_clients :
			   RDS_SRV_DEFAULT_CLIENTS;
	TAILQ_INIT(&srv->clients);
	for (i = 0; i < RTE_RDS_MAX_ENGINES; i++)
		TAILQ_INIT(&rds_srv_eng_clients[i]);
	rds_srv = srv;
	RDS_LOG(INFO, "serving clients on %s", conf->path);
	return 0;
}

int
rte_rds_server_poll(int timeout_ms)
{
	struct pollfd pfd[1 + RDS_SRV_DEFAULT_CLIENTS];
	struct rds_client *cl, *next, *map[RDS_SRV_DEFAULT_CLIENTS];
	unsigned int n = 0, i, events = 0;

	if (rds_srv == NULL)
		return RDS_ERR(ENXIO);
	pfd[n].fd = rds_srv->lfd;
	pfd[n].events = POLLIN;
	n++;
	TAILQ_FOREACH(cl, &rds_srv->clients, link) {
		if (n == RTE_DIM(pfd))
			break;
		map[n - 1] = cl;
		pfd[n].fd = cl->fd;
		pfd[n].events = POLLIN;
		n++;
	}
	if (poll(pfd, n, timeout_ms) > 0) {
		if (pfd[0].revents & POLLIN) {
			rds_srv_accept();
			events++;
		}
		for (i = 1; i < n; i++) {
			cl = map[i - 1];
			if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			events++;
			if (rds_srv_handle(cl) != 0)
				__atomic_store_n(&cl->bad, 1, __ATOMIC_RELEASE);
		}
	}
	/* The ones that went away or broke the protocol. */
	for (cl = TAILQ_FIRST(&rds_srv->clients); cl != NULL; cl = next) {
		next = TAILQ_NEXT(cl, link);
		if (__atomic_load_n(&cl->bad, __ATOMIC_ACQUIRE))
			rds_srv_client_drop(cl);
	}
	return (int)events;
}

int
rte_rds_server_stop(void)
{
	struct rds_client *cl;

	if (rds_srv == NULL)
		return RDS_ERR(ENXIO);
	while ((cl = TAILQ_FIRST(&rds_srv->clients)) != NULL) {
		((struct rds_region_hdr *)(void *)cl->base)->engine_gone = 1;
		rds_srv_client_drop(cl);
	}
	close(rds_srv->lfd);
	unlink(rds_srv->path);
	free(rds_srv);
	rds_srv = NULL;
	return 0;
}

unsigned int
rte_rds_server_clients(void)
{
	return rds_srv != NULL ? rds_srv->nb_clients : 0;
}

int
rte_rds_server_stats_get(struct rte_rds_server_stats *st)
{
	struct rds_client *cl;

	if (rds_srv == NULL)
		return RDS_ERR(ENXIO);
	if (st == NULL)
		return RDS_ERR(EINVAL);
	memset(st, 0, sizeof(*st));
	st->clients = rds_srv->nb_clients;
	st->attached = rds_srv->attached;
	st->refused = rds_srv->refused;
	st->detached = rds_srv->detached;
	st->violations = __atomic_load_n(&rds_srv->violations,
					 __ATOMIC_RELAXED);
	st->calls = rds_srv->calls;
	st->msgs_in = rds_srv->gone_in;
	st->msgs_out = rds_srv->gone_out;
	/* Counted by engines: approximate while they run. */
	TAILQ_FOREACH(cl, &rds_srv->clients, link) {
		st->msgs_in += __atomic_load_n(&cl->msgs_in, __ATOMIC_RELAXED);
		st->msgs_out += __atomic_load_n(&cl->msgs_out,
						__ATOMIC_RELAXED);
	}
	return 0;
}

uint64_t
rds_server_violations(void)
{
	return rds_srv != NULL ?
	       __atomic_load_n(&rds_srv->violations, __ATOMIC_RELAXED) : 0;
}

/* rte_rds_fini: clients are let go first (their calls then fail with
 * ECONNRESET), before the sockets and engines go. */
void
rds_server_fini(void)
{
	if (rds_srv != NULL)
		rte_rds_server_stop();
}

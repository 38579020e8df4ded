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
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>

#include "rds_server_private.h"
#include "rte_rds_attach.h"

struct rds_server *rds_srv;

void
rds_client_violation(struct rds_client *cl, const char *what)
{
	__atomic_store_n(&cl->violated, 1, __ATOMIC_RELEASE);
	if (__atomic_exchange_n(&cl->bad, 1, __ATOMIC_ACQ_REL) == 0) {
		__atomic_fetch_add(&rds_srv->violations, 1, __ATOMIC_RELAXED);
		RDS_LOG(WARNING, "client pid %d: %s: disconnecting it",
			(int)cl->pid, what);
	}
}

/* Free what a client socket kept until the client made room: its
 * received messages and notifications. Under rx_lock (or with no engine
 * left to deliver). */
void
rds_srv_sock_flush(struct rds_client *cl, struct rds_srv_sock *ss)
{
	struct rds_msg *m;

	while ((m = TAILQ_FIRST(&ss->ovf)) != NULL) {
		TAILQ_REMOVE(&ss->ovf, m, link);
		cl->kept_bytes -= rds_srv_kept_cost(m);
		rds_msg_free(m);
	}
	while ((m = TAILQ_FIRST(&ss->nt_ovf)) != NULL) {
		TAILQ_REMOVE(&ss->nt_ovf, m, link);
		cl->kept_bytes -= rds_srv_kept_cost(m);
		rds_msg_free(m);
	}
}

/* A client's descriptors go: its connection, its region's memfd (the
 * mapping stays), its sockets' wake-up descriptors (they hang up). */
static void
rds_srv_client_close_fds(struct rds_client *cl)
{
	unsigned int i;

	for (i = 0; i < RDS_SRV_SOCKS; i++) {
		if (cl->socks[i].wfd >= 0)
			close(cl->socks[i].wfd);
		cl->socks[i].wfd = -1;
	}
	rds_srv_out_free(cl);
	if (cl->memfd >= 0)
		close(cl->memfd);
	cl->memfd = -1;
	if (cl->fd >= 0)
		close(cl->fd);
	cl->fd = -1;
}

void
rds_srv_client_free(struct rds_client *cl)
{
	unsigned int c, i;

	for (i = 0; i < RDS_SRV_SOCKS; i++)
		rds_srv_sock_flush(cl, &cl->socks[i]);
	rds_srv_client_close_fds(cl);
	for (c = 0; c < RDS_REGION_NB_CLASSES; c++) {
		free(cl->rx_free[c]);
		free(cl->rx_len[c]);
		free(cl->rx_owner[c]);
		free(cl->tx_state[c]);
	}
	free(cl->tx_back);
	free(cl->txfree_shadow);
	rds_srv_zc_fini(cl);
	rds_xmem_revoke(cl->mem);
	rds_xmem_put(cl->mem);
	if (cl->base != NULL && cl->base != MAP_FAILED)
		munmap(cl->base, cl->size);
	free(cl);
}

/* A client goes: the engine lets it go, its sockets are closed. */
static void
rds_srv_client_drop(struct rds_client *cl)
{
	unsigned int i;

	/* From now on nothing reaches its memory (RDMA in flight ends with
	 * an error, as when a process exits). */
	rds_xmem_revoke(cl->mem);
	/* Its sockets close as at its close(): the kernel's release of
	 * the sockets of a process that exits (rds_srv_close_call). */
	if (cl->on_engine) {
		rds_engine_call_wait(cl->engine, rds_srv_gone_call, cl);
		rds_engine_call_wait(cl->engine, rds_srv_detach_call, cl);
	}
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
	rds_srv->gone_ops_in += cl->ops_in;
	rds_srv->gone_ops_dropped += cl->ops_dropped;
	rds_srv->gone_zc += cl->msgs_zc;
	rds_srv->gone_tx_wakes += cl->tx_wakes;
	RDS_LOG(INFO, "client pid %d detached", (int)cl->pid);
	/* Messages sent from its TX buffers may still be on their way (to
	 * a socket of this process that has not read them): its region
	 * stays until they go (rds_server_zc.c). Its answers and
	 * descriptors go now. */
	if (__atomic_load_n(&cl->xbufs_out, __ATOMIC_ACQUIRE) != 0) {
		rds_srv_client_close_fds(cl);
		rds_srv_zombie_add(cl);
		return;
	}
	rds_srv_client_free(cl);
}

/* ------------------------------------------------------------------ */
/* Clients */

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

/* The peer's pidfd, as the kernel holds it for the connection (Linux
 * 6.5), else one opened from its pid (the checks in rds_xmem_open make
 * a pid reused meanwhile harmless), or -1. */
static int
rds_srv_peer_pidfd(int fd, pid_t pid)
{
	socklen_t len = sizeof(int);
	int pidfd = -1;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) == 0 &&
	    pidfd >= 0)
		return pidfd;
#ifdef SYS_pidfd_open
	if (pid > 0)
		return (int)syscall(SYS_pidfd_open, pid, 0);
#endif
	return -1;
}

static struct rds_client *
rds_srv_client_new(int fd)
{
	struct rds_client *cl = calloc(1, sizeof(*cl));
	struct ucred cred;
	socklen_t len = sizeof(cred);
	unsigned int c, i;
	int pidfd;
	uint32_t n;

	if (cl == NULL)
		return NULL;
	cl->fd = fd;
	cl->memfd = -1;
	STAILQ_INIT(&cl->out);
	for (i = 0; i < RDS_SRV_SOCKS; i++) {
		cl->socks[i].wfd = -1;
		cl->socks[i].idx = i;
		TAILQ_INIT(&cl->socks[i].ovf);
		TAILQ_INIT(&cl->socks[i].nt_ovf);
	}
	TAILQ_INIT(&cl->ovf_socks);
	rte_spinlock_init(&cl->rx_lock);
	/* Who it is, as the kernel says: never what the hello claims. */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
		goto fail;
	cl->pid = cred.pid;
	cl->uid = cred.uid;
	cl->gid = cred.gid;
	pidfd = rds_srv_peer_pidfd(fd, cred.pid);
	cl->mem = rds_xmem_open(cred.pid, pidfd, cred.uid, cred.gid);
	if (pidfd >= 0)
		close(pidfd);
	if (cl->mem == NULL)
		goto fail;
	cl->keep_max = rds_srv->keep_bytes;
	rds_region_layout_make(rds_srv->region_mb, &cl->lay);
	cl->size = cl->lay.size;
	/* Its size sealed: the client gets this descriptor, and a region
	 * it could cut short would make the engine's next read of it fault
	 * (SIGBUS), for every client. */
	cl->memfd = memfd_create("rds-region", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (cl->memfd < 0 || ftruncate(cl->memfd, (off_t)cl->size) != 0 ||
	    fcntl(cl->memfd, F_ADD_SEALS,
		  F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
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
		cl->tx_state[c] = calloc(cl->lay.pool_nb[RDS_POOL_TX][c], 1);
		if (cl->rx_free[c] == NULL || cl->rx_len[c] == NULL ||
		    cl->rx_owner[c] == NULL || cl->tx_state[c] == NULL)
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
	cl->nb_tx = n;
	/* Each TX buffer is given back once per hand-over (rds_srv_tx_own):
	 * never more of them wait than the pool holds. */
	cl->tx_back = malloc(sizeof(uint64_t) * n);
	cl->txfree_shadow = malloc(sizeof(uint64_t) * RDS_REGION_FREE_RING);
	if (cl->tx_back == NULL || cl->txfree_shadow == NULL ||
	    rds_srv_zc_init(cl) != 0)
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
	cl->txfree_seen = cl->txfree.idx;
	cl->engine = rds_srv->next_engine++ % rds_lib->nb_engines;
	return cl;
fail:
	cl->fd = -1;	/* the caller closes it */
	rds_srv_client_free(cl);
	return NULL;
}

static unsigned int
rds_srv_clients_of(uid_t uid)
{
	struct rds_client *cl;
	unsigned int n = 0;

	TAILQ_FOREACH(cl, &rds_srv->clients, link)
		n += cl->uid == uid;
	return n;
}

static uint64_t
rds_srv_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A new connection waits for its hello (non-blocking, with a deadline:
 * one that never says it holds only a pending slot, for a while). */
static void
rds_srv_accept(void)
{
	struct rds_srv_pending *p;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	unsigned int i, same = 0;
	int fd;

	fd = accept4(rds_srv->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
		close(fd);
		rds_srv->refused++;
		return;
	}
	for (i = 0; i < rds_srv->nb_pending; i++)
		same += rds_srv->pending[i].uid == cred.uid;
	if (rds_srv->nb_pending == RDS_SRV_PENDING_MAX ||
	    same >= RDS_SRV_PENDING_PER_UID) {
		RDS_LOG(WARNING, "uid %u: too many connections without a "
			"hello: refused", (unsigned int)cred.uid);
		close(fd);
		rds_srv->refused++;
		return;
	}
	p = &rds_srv->pending[rds_srv->nb_pending++];
	p->fd = fd;
	p->uid = cred.uid;
	p->deadline_ms = rds_srv_now_ms() + RDS_SRV_HELLO_MS;
}

static void
rds_srv_pending_drop(unsigned int i)
{
	rds_srv->pending[i] = rds_srv->pending[--rds_srv->nb_pending];
}

/* A pending connection's hello came (or it went): refuse it or make it
 * a client with its region. */
static void
rds_srv_hello(unsigned int pi)
{
	struct rds_srv_pending p = rds_srv->pending[pi];
	struct rds_ctl_hello hello;
	struct rds_ctl_resp *r;
	struct rds_client *cl;
	struct msghdr mh;
	struct iovec iov = { .iov_base = &hello, .iov_len = sizeof(hello) };
	const char *why = NULL;
	int err = 0;
	ssize_t n;

	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	n = recvmsg(p.fd, &mh, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;		/* not yet */
	rds_srv_pending_drop(pi);
	if (n != sizeof(hello) || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
	    hello.magic != RDS_REGION_MAGIC ||
	    hello.version != RDS_REGION_VERSION)
		why = "a bad hello";
	else if (rds_srv->nb_clients >= rds_srv->max_clients)
		why = "too many clients", err = ENFILE;
	else if (rds_srv_clients_of(p.uid) >= rds_srv->max_per_uid)
		why = "too many clients of its uid", err = EMFILE;
	if (why != NULL) {
		RDS_LOG(WARNING, "a client of uid %u: %s: refused",
			(unsigned int)p.uid, why);
		rds_srv->refused++;
		if (err != 0) {
			/* Told why, if its socket has room (never waited
			 * for). */
			struct rds_ctl_resp no = {
				.op = RDS_CTL_HELLO, .ret = -1, .err = err,
			};

			if (send(p.fd, &no, offsetof(struct rds_ctl_resp, data),
				 MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
				err = 0;
		}
		close(p.fd);
		return;
	}
	cl = rds_srv_client_new(p.fd);
	r = calloc(1, sizeof(*r));
	if (cl == NULL || r == NULL) {
		free(r);
		if (cl != NULL)
			rds_srv_client_free(cl);
		else
			close(p.fd);
		rds_srv->refused++;
		return;
	}
	r->op = RDS_CTL_HELLO;
	r->ret = 0;
	r->len = sizeof(uint64_t);
	memcpy(r->data, &cl->size, sizeof(uint64_t));
	if (rds_srv_reply(cl, r, cl->memfd) != 0) {
		free(r);
		rds_srv_client_free(cl);
		rds_srv->refused++;
		return;
	}
	free(r);
	TAILQ_INSERT_TAIL(&rds_srv->clients, cl, link);
	rds_srv->nb_clients++;
	rds_srv->attached++;
	rds_engine_call_wait(cl->engine, rds_srv_attach_call, cl);
	RDS_LOG(INFO, "client pid %d uid %u attached (region %zu KiB, "
		"engine %u%s)", (int)cl->pid, (unsigned int)cl->uid,
		cl->size >> 10, cl->engine,
		rds_xmem_usable(cl->mem) == 0 ? "" :
		", its memory out of reach");
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
	srv->max_per_uid = conf->max_clients_per_uid != 0 ?
			   conf->max_clients_per_uid : RDS_SRV_DEFAULT_PER_UID;
	srv->max_per_uid = RTE_MIN(srv->max_per_uid, srv->max_clients);
	srv->keep_bytes = (uint64_t)(conf->keep_mb != 0 ? conf->keep_mb :
				     RDS_SRV_DEFAULT_KEEP_MB) << 20;
	srv->pfd = calloc(1 + RDS_SRV_PENDING_MAX + srv->max_clients,
			  sizeof(*srv->pfd));
	srv->pmap = calloc(srv->max_clients, sizeof(*srv->pmap));
	if (srv->pfd == NULL || srv->pmap == NULL) {
		free(srv->pfd);
		free(srv->pmap);
		free(srv);
		close(fd);
		unlink(conf->path);
		return RDS_ERR(ENOMEM);
	}
	TAILQ_INIT(&srv->clients);
	for (i = 0; i < RTE_RDS_MAX_ENGINES; i++)
		TAILQ_INIT(&rds_srv_eng_clients[i]);
	rds_srv = srv;
	rds_srv_zc_start();
	RDS_LOG(INFO, "serving clients on %s", conf->path);
	return 0;
}

/* A client's socket is ready: its answers go out while there is room,
 * its requests are read while few answers wait (one that does not read
 * them stops being read: it holds up only itself). */
static unsigned int
rds_srv_client_io(struct rds_client *cl, short revents)
{
	unsigned int n = 0;

	if ((revents & POLLOUT) && rds_srv_flush(cl) != 0) {
		__atomic_store_n(&cl->bad, 1, __ATOMIC_RELEASE);
		return 1;
	}
	while (n < RDS_SRV_CALLS_PER_POLL && cl->nb_out < RDS_SRV_OUT_MAX &&
	       !__atomic_load_n(&cl->bad, __ATOMIC_ACQUIRE)) {
		int r = rds_srv_handle(cl);

		if (r == -EAGAIN)
			break;
		n++;
		if (r != 0) {
			__atomic_store_n(&cl->bad, 1, __ATOMIC_RELEASE);
			break;
		}
	}
	if (n == 0 && (revents & (POLLHUP | POLLERR)))
		__atomic_store_n(&cl->bad, 1, __ATOMIC_RELEASE);
	return n;
}

int
rte_rds_server_poll(int timeout_ms)
{
	struct pollfd *pfd;
	struct rds_client *cl, *next;
	unsigned int n = 0, i, np, nc = 0, events = 0;
	uint64_t now;

	if (rds_srv == NULL)
		return RDS_ERR(ENXIO);
	__atomic_store_n(&rds_srv->kicked, 0, __ATOMIC_RELAXED);
	pfd = rds_srv->pfd;
	pfd[n].fd = rds_srv->lfd;
	pfd[n].events = POLLIN;
	n++;
	now = rds_srv_now_ms();
	np = rds_srv->nb_pending;
	for (i = 0; i < np; i++) {
		uint64_t left = rds_srv->pending[i].deadline_ms > now ?
				rds_srv->pending[i].deadline_ms - now : 0;

		pfd[n].fd = rds_srv->pending[i].fd;
		pfd[n].events = POLLIN;
		n++;
		if (timeout_ms < 0 || left < (uint64_t)timeout_ms)
			timeout_ms = (int)left;
	}
	TAILQ_FOREACH(cl, &rds_srv->clients, link) {
		if (nc == rds_srv->max_clients)
			break;
		rds_srv->pmap[nc++] = cl;
		pfd[n].fd = cl->fd;
		pfd[n].events = (cl->nb_out < RDS_SRV_OUT_MAX ? POLLIN : 0) |
				(cl->nb_out != 0 ? POLLOUT : 0);
		n++;
	}
	if (poll(pfd, n, timeout_ms) > 0) {
		for (i = 0; i < nc; i++) {
			short re = pfd[1 + np + i].revents;

			if (re == 0)
				continue;
			events++;
			rds_srv_client_io(rds_srv->pmap[i], re);
		}
		/* Pending ones, from the last (a hello taken moves the last
		 * one into its place). */
		for (i = np; i-- > 0;)
			if (pfd[1 + i].revents != 0) {
				events++;
				rds_srv_hello(i);
			}
		if (pfd[0].revents & POLLIN) {
			rds_srv_accept();
			events++;
		}
	}
	/* Hellos that did not come in time. */
	now = rds_srv_now_ms();
	for (i = rds_srv->nb_pending; i-- > 0;)
		if (rds_srv->pending[i].deadline_ms <= now) {
			RDS_LOG(WARNING, "a connection of uid %u sent no hello "
				"in %u ms: closed",
				(unsigned int)rds_srv->pending[i].uid,
				RDS_SRV_HELLO_MS);
			close(rds_srv->pending[i].fd);
			rds_srv_pending_drop(i);
			rds_srv->hello_late++;
			rds_srv->refused++;
		}
	/* The ones that went away or broke the protocol. */
	for (cl = TAILQ_FIRST(&rds_srv->clients); cl != NULL; cl = next) {
		next = TAILQ_NEXT(cl, link);
		if (__atomic_load_n(&cl->bad, __ATOMIC_ACQUIRE))
			rds_srv_client_drop(cl);
	}
	rds_srv_zombies_reap(false);
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
	rds_srv_zombies_reap(false);
	while (rds_srv->nb_pending != 0)
		close(rds_srv->pending[--rds_srv->nb_pending].fd);
	close(rds_srv->lfd);
	unlink(rds_srv->path);
	free(rds_srv->pfd);
	free(rds_srv->pmap);
	free(rds_srv);
	rds_srv = NULL;
	return 0;
}

int
rte_rds_server_pending(void)
{
	return rds_srv != NULL &&
	       __atomic_load_n(&rds_srv->kicked, __ATOMIC_ACQUIRE) != 0;
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
	st->ops_in = rds_srv->gone_ops_in;
	st->ops_dropped = rds_srv->gone_ops_dropped;
	st->msgs_zc = rds_srv->gone_zc;
	st->tx_wakes = rds_srv->gone_tx_wakes;
	st->gone_held = rds_srv_zombies_count();
	st->hello_late = rds_srv->hello_late;
	st->kept_refused = __atomic_load_n(&rds_srv->kept_refused,
					   __ATOMIC_RELAXED);
	/* Counted by engines: approximate while they run. */
	TAILQ_FOREACH(cl, &rds_srv->clients, link) {
		st->msgs_in += __atomic_load_n(&cl->msgs_in, __ATOMIC_RELAXED);
		st->msgs_out += __atomic_load_n(&cl->msgs_out,
						__ATOMIC_RELAXED);
		st->ops_in += __atomic_load_n(&cl->ops_in, __ATOMIC_RELAXED);
		st->ops_dropped += __atomic_load_n(&cl->ops_dropped,
						   __ATOMIC_RELAXED);
		st->msgs_zc += __atomic_load_n(&cl->msgs_zc, __ATOMIC_RELAXED);
		st->tx_wakes += __atomic_load_n(&cl->tx_wakes,
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

/* The teardown, once every socket and engine went (and with them every
 * message): the regions of clients gone whose buffers messages held. */
void
rds_server_fini_late(void)
{
	rds_srv_zombies_reap(true);
}

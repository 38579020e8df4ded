/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An attached process (rte_rds_attach.h): the socket calls without an
 * EAL, on an engine process's library, through a shared region
 * (rds_region.h) for data and the UNIX socket for everything else.
 *
 * Sending: the payload goes into a TX buffer of the region (one copy),
 * its offset into the socket's request ring, and when the ring was idle
 * the socket's slot into this thread's doorbell ring, which the engine
 * reads. Receiving: the engine puts RX buffers into the socket's receive
 * ring; recvmsg copies one out (one copy) and gives it back. Waiting:
 * a little spinning, then poll(2) on the socket's eventfd, which the
 * engine writes when the socket was armed, and on the UNIX socket, whose
 * hang-up says the engine went away (ECONNRESET).
 *
 * Calls are made from any thread. A socket's request ring has one
 * producer at a time (its lock), its receive ring one consumer (its
 * receive lock); the TX pool and the free rings have locks of their own.
 *
 * This file: attaching and detaching, and the calls on the UNIX socket.
 * Sending and receiving are in rds_client_data.c, waiting in
 * rds_client_wait.c, the TX buffers in rds_client_txbuf.c, the other
 * socket calls (socket, bind, close, options, poll) in rds_client_sock.c,
 * what they share in rds_client_private.h.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <rte_pause.h>

#include "rds_client_private.h"
#include "rds_region.h"
#include "rte_rds_attach.h"

struct rds_cl *rds_cl;
static uint32_t rds_cl_epoch;
static pthread_once_t rds_cl_once = PTHREAD_ONCE_INIT;
/* One rte_rds_attach at a time (threads of a program whose engine went
 * may all try at once: one attaches, the others find it done). */
static pthread_mutex_t rds_cl_attach_lock = PTHREAD_MUTEX_INITIALIZER;

static void
rds_cl_atfork_child(void)
{
	pthread_mutex_init(&rds_cl_attach_lock, NULL);
	/* The parent's sockets are not ours: this process attaches again
	 * at its first call (rte_rds_attach.h). Nor is its connection to
	 * the engine: kept, it would hold the parent's sockets and ports
	 * for as long as the child lives after the parent went. */
	if (rds_cl != NULL) {
		rds_cl->forked = true;
		if (rds_cl->fd >= 0)
			close(rds_cl->fd);
		rds_cl->fd = -1;
	}
}

/* Where the library keeps the descriptor of its connection to the engine:
 * the lowest free number from FD_SETSIZE up, or from half the descriptor
 * limit when that is lower: away from the numbers a program counts on
 * (the preload library hides it from the program besides). */
static int
rds_cl_fd_base(void)
{
	struct rlimit rl;
	rlim_t b = FD_SETSIZE;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur / 2 < b)
		b = rl.rlim_cur / 2;
	return b < 3 ? 3 : (int)b;
}

static void
rds_cl_once_init(void)
{
	pthread_atfork(NULL, NULL, rds_cl_atfork_child);
}

/* Is this process attached (and not a child since)? */
bool
rds_client_active(void)
{
	struct rds_cl *cl = rds_cl;

	return cl != NULL && !cl->forked;
}

/* Attached, and to an engine that is there: one that went (killed, or
 * stopped) is seen at once, so that the caller can attach again to an
 * engine started since. */
int
rte_rds_attached(void)
{
	struct rds_cl *cl = rds_cl;

	if (cl == NULL || cl->forked)
		return 0;
	return rds_cl_engine_gone_now(cl) ? 0 : 1;
}

/* ------------------------------------------------------------------ */
/* The UNIX socket */

/* The records of an RDS_INFO answer (r->need bytes in
 * RDS_CTL_INFO_DATA messages) into info (room for cap): 0, or -1 (the
 * engine broke the protocol). Under cl->ctl. */
static int
rds_cl_info_data(struct rds_cl *cl, const struct rds_ctl_req *q,
		 const struct rds_ctl_resp *r, void *info, uint32_t cap)
{
	struct rds_ctl_resp *d;
	uint32_t got = 0, need = r->need;
	ssize_t n;
	int ret = 0;

	if (need > cap || info == NULL)
		return -1;
	d = malloc(sizeof(*d));
	if (d == NULL)
		return -1;
	while (got < need) {
		n = rds_ctl_recv(cl->fd, d, sizeof(*d), NULL);
		if (n < (ssize_t)offsetof(struct rds_ctl_resp, data) ||
		    d->op != RDS_CTL_INFO_DATA || d->seq != q->seq ||
		    d->len > need - got ||
		    (size_t)n != offsetof(struct rds_ctl_resp, data) + d->len) {
			ret = -1;
			break;
		}
		memcpy((uint8_t *)info + got, d->data, d->len);
		got += d->len;
	}
	free(d);
	return ret;
}

/* One call: the request (and an fd to pass), then its answer (and for
 * RDS_INFO its records into info, room for info_cap). */
static int
rds_cl_call_data(struct rds_cl *cl, struct rds_ctl_req *q,
		 struct rds_ctl_resp *r, int pass_fd, int *got_fd, void *info,
		 uint32_t info_cap)
{
	ssize_t n;

	if (got_fd != NULL)
		*got_fd = -1;
	if (__atomic_load_n(&cl->dead, __ATOMIC_ACQUIRE))
		return -ECONNRESET;
	pthread_mutex_lock(&cl->ctl);
	q->seq = ++cl->seq;
	if (rds_ctl_send(cl->fd, q, offsetof(struct rds_ctl_req, data) + q->len,
			 pass_fd, 0) != 0)
		goto dead;
	/* Said in the region too: an engine that also serves the socket
	 * between its passes looks at it now (rte_rds_server_pending). */
	if (cl->hdr != NULL)
		__atomic_store_n(&cl->hdr->ctl_kick, 1, __ATOMIC_RELEASE);
	n = rds_ctl_recv(cl->fd, r, sizeof(*r), got_fd);
	if (n < (ssize_t)offsetof(struct rds_ctl_resp, data) ||
	    r->seq != q->seq || r->op != q->op)
		goto dead;
	if (q->op == RDS_CTL_GETSOCKOPT && q->level == SOL_RDS &&
	    rds_info_name(q->name) &&
	    r->ret >= 0 && r->need != 0 &&
	    rds_cl_info_data(cl, q, r, info, info_cap) != 0)
		goto dead;
	pthread_mutex_unlock(&cl->ctl);
	if (r->ret < 0)
		return -(r->err != 0 ? r->err : EIO);
	return r->ret;
dead:
	__atomic_store_n(&cl->dead, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&cl->ctl);
	if (got_fd != NULL && *got_fd >= 0) {
		close(*got_fd);
		*got_fd = -1;
	}
	return -ECONNRESET;
}

int
rds_cl_call(struct rds_cl *cl, struct rds_ctl_req *q, struct rds_ctl_resp *r,
	    int pass_fd, int *got_fd)
{
	return rds_cl_call_data(cl, q, r, pass_fd, got_fd, NULL, 0);
}

int
rds_cl_call_info(struct rds_cl *cl, struct rds_ctl_req *q,
		 struct rds_ctl_resp *r, void *info, uint32_t cap)
{
	return rds_cl_call_data(cl, q, r, -1, NULL, info, cap);
}

struct rds_ctl_req *
rds_cl_req_new(uint32_t op, int32_t handle)
{
	struct rds_ctl_req *q = calloc(1, sizeof(*q));

	if (q != NULL) {
		q->op = op;
		q->handle = handle;
	}
	return q;
}

/* A call with small data in and out; -errno or the call's return. */
int
rds_cl_simple(struct rds_cl *cl, uint32_t op, int32_t handle, int level,
	      int name, const void *in, uint32_t len, void *out,
	      uint32_t *out_len)
{
	struct rds_ctl_req *q = rds_cl_req_new(op, handle);
	struct rds_ctl_resp *r = malloc(sizeof(*r));
	int ret;

	if (q == NULL || r == NULL || len > RDS_CTL_MAX_DATA) {
		free(q);
		free(r);
		return -ENOMEM;
	}
	q->level = level;
	q->name = name;
	q->len = len;
	q->cap = out_len != NULL ? *out_len : 0;
	if (len != 0)
		memcpy(q->data, in, len);
	ret = rds_cl_call(cl, q, r, -1, NULL);
	if (ret >= 0 && out != NULL && out_len != NULL) {
		*out_len = RTE_MIN(*out_len, r->len);
		memcpy(out, r->data, *out_len);
	}
	free(q);
	free(r);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Attach */

static int
rds_cl_setup(struct rds_cl *cl)
{
	unsigned int c, i;
	uint32_t n;

	cl->hdr = (void *)cl->base;
	if (cl->hdr->magic != RDS_REGION_MAGIC ||
	    cl->hdr->version != RDS_REGION_VERSION ||
	    cl->hdr->lay.size > cl->size)
		return -EPROTO;
	cl->lay = cl->hdr->lay;
	cl->nb_socks = RTE_MIN(cl->lay.nb_socks,
			       (uint32_t)RTE_DIM(cl->socks));
	for (c = 0; c < RDS_REGION_NB_CLASSES; c++) {
		n = cl->lay.pool_nb[RDS_POOL_TX][c];
		cl->tx_free[c] = malloc(sizeof(uint32_t) * n);
		if (cl->tx_free[c] == NULL)
			return -ENOMEM;
		for (i = 0; i < n; i++)
			cl->tx_free[c][i] = n - 1 - i;
		cl->tx_nfree[c] = n;
	}
	for (i = 0; i < cl->nb_socks; i++) {
		cl->socks[i].efd = -1;
		rte_spinlock_init(&cl->socks[i].lock);
		rte_spinlock_init(&cl->socks[i].rlock);
	}
	rds_xring_end_init(&cl->txfree, (void *)(cl->base + cl->lay.txfree_off),
			   RDS_REGION_FREE_RING, false);
	rds_xring_end_init(&cl->rxfree, (void *)(cl->base + cl->lay.rxfree_off),
			   RDS_REGION_FREE_RING, true);
	return 0;
}

static void
rds_cl_free(struct rds_cl *cl)
{
	unsigned int c, i;

	/* In a forked child the sockets' wake-up descriptors are left
	 * alone: the numbers may be another's by now (the preload library
	 * closes the ones it hid from the program in the child, and the
	 * program's own are the program's). */
	for (i = 0; !cl->forked && i < RTE_DIM(cl->socks); i++)
		if (cl->socks[i].efd >= 0)
			close(cl->socks[i].efd);
	for (c = 0; c < RDS_REGION_NB_CLASSES; c++)
		free(cl->tx_free[c]);
	if (cl->base != NULL && cl->base != MAP_FAILED)
		munmap(cl->base, cl->size);
	if (cl->fd >= 0)
		close(cl->fd);
	free(cl);
}

/*
 * An attachment whose engine went, replaced by a new one (its dead flag
 * is set, so every call on it fails with ECONNRESET before it touches
 * the region or the connection): each of its sockets is closed for good
 * (a call on one of its handles is EBADF, and the handles name no socket
 * of the new attachment, rds_cl_slot), the calls still inside them are
 * waited for (they end at once: the engine went, rds_cl_wait), then its
 * region, its buffers and its descriptors go. The structure itself stays
 * (on the new one's retired list): a thread that read rds_cl before the
 * new attachment was set, and is about to hold a socket of the old one,
 * finds the socket closed rather than memory given back. Some 50 KiB an
 * engine restart.
 */
static void
rds_cl_retire(struct rds_cl *cl)
{
	unsigned int c, i;
	uint32_t st;

	for (i = 0; i < cl->nb_socks; i++) {
		struct rds_cl_sock *cs = &cl->socks[i];

		for (;;) {
			/* A socket being made or closed on another thread is
			 * left to it: it fails (the engine went) or closes. */
			pthread_mutex_lock(&cl->slot_lock);
			st = __atomic_load_n(&cs->state, __ATOMIC_SEQ_CST);
			if (st != RDS_SOCK_CLOSING)
				__atomic_store_n(&cs->state, RDS_SOCK_CLOSING,
						 __ATOMIC_SEQ_CST);
			pthread_mutex_unlock(&cl->slot_lock);
			if (st != RDS_SOCK_CLOSING)
				break;
			sched_yield();
		}
		/* Sleepers inside woke: its wake-up descriptor hung up
		 * when the engine went. */
		while (__atomic_load_n(&cs->refs, __ATOMIC_SEQ_CST) != 0)
			sched_yield();
		if (cs->efd >= 0)
			close(cs->efd);
		__atomic_store_n(&cs->efd, -1, __ATOMIC_RELEASE);
	}
	for (c = 0; c < RDS_REGION_NB_CLASSES; c++) {
		free(cl->tx_free[c]);
		cl->tx_free[c] = NULL;
	}
	if (cl->base != NULL && cl->base != MAP_FAILED)
		munmap(cl->base, cl->size);
	cl->base = NULL;
	/* A call that looked at the dead flag before it was set may be
	 * about to use the connection's number: it finds none (-1). */
	pthread_mutex_lock(&cl->ctl);
	if (cl->fd >= 0)
		close(cl->fd);
	__atomic_store_n(&cl->fd, -1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&cl->ctl);
}

/* An attachment and the ones it replaced (detach). */
static void
rds_cl_free_all(struct rds_cl *cl)
{
	struct rds_cl *next;

	for (; cl != NULL; cl = next) {
		next = cl->retired;
		if (cl->base == NULL)	/* retired: what is left of it */
			free(cl);
		else
			rds_cl_free(cl);
	}
}

static int rds_cl_attach_locked(const char *path);

int
rte_rds_attach(const char *path)
{
	int ret;

	pthread_once(&rds_cl_once, rds_cl_once_init);
	pthread_mutex_lock(&rds_cl_attach_lock);
	ret = rds_cl_attach_locked(path);
	pthread_mutex_unlock(&rds_cl_attach_lock);
	return ret;
}

/*
 * A waiter's slice: how long it sleeps before it looks again without a
 * wake-up (RDS_CL_SLICE_MS). Every condition a waiter waits for is one
 * the engine wakes it for, so the slice only bounds the cost of a wake-up
 * lost all the same; RTE_RDS_WAIT_SLICE_MS (1 .. 3600000) sets it, so
 * that a test can make one lost show as a hang (test/multiproc mp_zc).
 */
static int
rds_cl_slice_env(void)
{
	const char *v = getenv("RTE_RDS_WAIT_SLICE_MS");
	unsigned long ms;
	char *end;

	if (v == NULL || *v == '\0')
		return RDS_CL_SLICE_MS;
	ms = strtoul(v, &end, 10);
	if (*end != '\0' || ms < 1 || ms > 3600000)
		return RDS_CL_SLICE_MS;
	return (int)ms;
}

static int
rds_cl_attach_locked(const char *path)
{
	struct sockaddr_un sa;
	struct rds_ctl_hello hello;
	struct rds_ctl_resp *r = NULL;
	struct rds_cl *cl, *old = rds_cl;
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov;
	struct msghdr mh;
	struct cmsghdr *cm;
	int memfd = -1, err;
	unsigned int i;
	uint64_t size;
	ssize_t n;

	/* Again after a fork (the parent's attachment is not ours) or
	 * after the engine went away (a restarted engine takes us). */
	if (rds_lib != NULL || (old != NULL && !old->forked &&
				!rds_cl_engine_gone_now(old)))
		return RDS_ERR(EEXIST);
	if (path == NULL)
		path = getenv("RTE_RDS_ENGINE");
	if (path == NULL || *path == '\0')
		path = RTE_RDS_ENGINE_PATH;
	if (strlen(path) >= sizeof(sa.sun_path))
		return RDS_ERR(EINVAL);
	cl = calloc(1, sizeof(*cl));
	if (cl == NULL)
		return RDS_ERR(ENOMEM);
	cl->slice_ms = rds_cl_slice_env();
	/* No wake-up descriptor yet: a failed attach must not close the
	 * caller's descriptor 0 (rds_cl_free). */
	for (i = 0; i < RTE_DIM(cl->socks); i++)
		cl->socks[i].efd = -1;
	cl->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (cl->fd < 0) {
		err = errno;
		goto fail;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (connect(cl->fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		err = errno;
		goto fail;
	}
	{
		int fd = fcntl(cl->fd, F_DUPFD_CLOEXEC, rds_cl_fd_base());

		if (fd >= 0) {
			close(cl->fd);
			cl->fd = fd;
		}
	}
	hello.magic = RDS_REGION_MAGIC;
	hello.version = RDS_REGION_VERSION;
	hello.pid = getpid();
	if (send(cl->fd, &hello, sizeof(hello), MSG_NOSIGNAL) !=
	    (ssize_t)sizeof(hello)) {
		err = errno;
		goto fail;
	}
	r = malloc(sizeof(*r));
	if (r == NULL) {
		err = ENOMEM;
		goto fail;
	}
	iov.iov_base = r;
	iov.iov_len = sizeof(*r);
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = u.buf;
	mh.msg_controllen = sizeof(u.buf);
	n = recvmsg(cl->fd, &mh, MSG_CMSG_CLOEXEC);
	err = EPROTO;
	if (n >= (ssize_t)offsetof(struct rds_ctl_resp, data) &&
	    r->op == RDS_CTL_HELLO && r->ret < 0 &&
	    (r->err == EMFILE || r->err == ENFILE)) {
		err = r->err;	/* refused: too many clients */
		goto fail;
	}
	if (n < (ssize_t)offsetof(struct rds_ctl_resp, data) + 8 ||
	    r->op != RDS_CTL_HELLO || r->ret != 0)
		goto fail;
	for (cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
			memcpy(&memfd, CMSG_DATA(cm), sizeof(int));
	memcpy(&size, r->data, sizeof(size));
	if (memfd < 0 || size < sizeof(struct rds_region_hdr))
		goto fail;
	cl->size = size;
	cl->base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, memfd,
			0);
	close(memfd);
	memfd = -1;
	if (cl->base == MAP_FAILED) {
		err = ENOMEM;
		goto fail;
	}
	err = -rds_cl_setup(cl);
	if (err != 0)
		goto fail;
	free(r);
	cl->pid = getpid();
	pthread_mutex_init(&cl->ctl, NULL);
	pthread_mutex_init(&cl->slot_lock, NULL);
	pthread_mutex_init(&cl->move_lock, NULL);
	rte_spinlock_init(&cl->tx_lock);
	rte_spinlock_init(&cl->rxfree_lock);
	cl->epoch = __atomic_add_fetch(&rds_cl_epoch, 1, __ATOMIC_ACQ_REL);
	cl->hgen = (cl->epoch - 1) & RDS_CL_GEN_MASK;
	/* A forked child lets its parent's copy go (unmapping it here does
	 * not touch the parent's; no thread of the child uses it: calls
	 * of a forked child never reach it). A process whose engine went
	 * retires its attachment once the new one is in place: its threads
	 * may still be inside calls of the old one. */
	if (old != NULL && old->forked) {
		cl->retired = old->retired;
		old->retired = NULL;
		rds_cl_free_all(old);
		old = NULL;
	} else if (old != NULL) {
		cl->retired = old;
	}
	__atomic_store_n(&rds_cl, cl, __ATOMIC_SEQ_CST);
	if (old != NULL)
		rds_cl_retire(old);
	return 0;
fail:
	if (memfd >= 0)
		close(memfd);
	free(r);
	rds_cl_free(cl);
	if (err == ENOENT || err == ECONNREFUSED || err == EACCES ||
	    err == ENOMEM || err == EINVAL || err == EMFILE || err == ENFILE)
		return RDS_ERR(err);
	return RDS_ERR(EPROTO);
}

int
rte_rds_attach_fd(void)
{
	struct rds_cl *cl = rds_cl;

	if (cl == NULL || cl->forked)
		return RDS_ERR(ENXIO);
	return cl->fd;
}

int
rte_rds_attach_fd_move(int min_fd)
{
	struct rds_cl *cl = rds_cl;
	int fd;

	if (cl == NULL || cl->forked)
		return RDS_ERR(ENXIO);
	if (min_fd < 0)
		return RDS_ERR(EINVAL);
	/* Every use of the number is a call on it, under ctl (waits look
	 * at the sockets' wake-up descriptors, which hang up too when the
	 * engine goes). */
	pthread_mutex_lock(&cl->ctl);
	fd = fcntl(cl->fd, F_DUPFD_CLOEXEC, min_fd);
	if (fd < 0) {
		int err = errno == EMFILE ? EMFILE : EINVAL;

		pthread_mutex_unlock(&cl->ctl);
		return RDS_ERR(err);
	}
	__atomic_store_n(&cl->fd, fd, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&cl->ctl);
	return fd;
}

int
rte_rds_detach(void)
{
	struct rds_cl *cl = rds_cl;
	unsigned int i;

	if (cl == NULL || cl->forked)
		return RDS_ERR(ENXIO);
	for (i = 0; i < cl->nb_socks; i++)
		if (__atomic_load_n(&cl->socks[i].state, __ATOMIC_ACQUIRE) ==
		    RDS_SOCK_OPEN)
			rte_rds_close(rds_cl_handle(cl, i));
	rds_cl = NULL;
	rds_cl_free_all(cl);
	return 0;
}

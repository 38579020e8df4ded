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
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <rte_pause.h>

#include "rds_private.h"
#include "rds_region.h"
#include "rte_rds_attach.h"

#define RDS_CL_SPIN_NS 20000		/* spin before sleeping */

struct rds_cl_sock {
	uint32_t state;			/* enum rds_slot_state (atomic) */
	uint32_t refs;			/* calls inside (atomic) */
	int32_t handle;			/* what the engine calls it: its slot */
	int efd;
	struct rds_csock *cs;
	rte_spinlock_t lock;		/* request ring producer, options */
	rte_spinlock_t rlock;		/* receive ring consumer */
	struct rds_xring_end req;
	struct rds_xring_end rx;
	struct rds_xring_end nt;	/* notifications: token, status */
	uint64_t rx_head;		/* peeked RX buffer, 0: none */
	bool bound, connected;
	struct sockaddr_in bound_sin, conn_sin;
	int trans_pinned;
	uint32_t sndbuf;
	uint64_t sndtimeo_ns, rcvtimeo_ns;
};

struct rds_cl {
	pid_t pid;
	bool forked;			/* this is a child: hands off */
	int fd;				/* the UNIX socket */
	pthread_mutex_t ctl;		/* one call at a time */
	uint32_t seq;
	uint8_t *base;
	size_t size;
	struct rds_region_layout lay;
	struct rds_region_hdr *hdr;
	pthread_mutex_t slot_lock;
	struct rds_cl_sock socks[RDS_REGION_MAX_LADDRS * 4];
	unsigned int nb_socks;
	rte_spinlock_t tx_lock;		/* TX pool and txfree */
	uint32_t *tx_free[RDS_REGION_NB_CLASSES];
	uint32_t tx_nfree[RDS_REGION_NB_CLASSES];
	struct rds_xring_end txfree;
	rte_spinlock_t rxfree_lock;
	struct rds_xring_end rxfree;
	uint32_t epoch;			/* this attach, for threads' bells */
	uint32_t dead;			/* the engine went away (atomic) */
	uint64_t gone_checked;		/* when the socket was last looked at */
};

_Static_assert(RDS_REGION_MAX_LADDRS * 4 >= 256, "client socket slots");

static struct rds_cl *rds_cl;
static uint32_t rds_cl_epoch;
static pthread_once_t rds_cl_once = PTHREAD_ONCE_INIT;

/* This thread's doorbell ring. */
struct rds_cl_thread {
	uint32_t epoch;
	int32_t bell;
	struct rds_xring_end end;
};

static __thread struct rds_cl_thread rds_cl_self
	__attribute__((tls_model("initial-exec")));

static void
rds_cl_atfork_child(void)
{
	/* The parent's sockets are not ours: this process attaches again
	 * at its first call (rte_rds_attach.h). */
	if (rds_cl != NULL)
		rds_cl->forked = true;
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

int
rte_rds_attached(void)
{
	return rds_client_active() ? 1 : 0;
}

static uint64_t
rds_cl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t
rds_cl_now_coarse_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------------ */
/* The UNIX socket */

static bool
rds_cl_engine_gone(struct rds_cl *cl)
{
	struct pollfd p = { .fd = cl->fd, .events = POLLIN };
	uint64_t now;

	if (__atomic_load_n(&cl->dead, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&cl->hdr->engine_gone, __ATOMIC_ACQUIRE))
		goto gone;
	/* An engine that was killed says nothing: its socket hangs up.
	 * Looked at once a millisecond at most (a non-blocking receive in
	 * a loop must not cost a system call each time). */
	now = rds_cl_now_coarse_ns();
	if (now - __atomic_load_n(&cl->gone_checked, __ATOMIC_RELAXED) <
	    1000000)
		return false;
	__atomic_store_n(&cl->gone_checked, now, __ATOMIC_RELAXED);
	if (poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLERR)))
		goto gone;
	return false;
gone:
	__atomic_store_n(&cl->dead, 1, __ATOMIC_RELEASE);
	return true;
}

/* One call: the request (and an fd to pass), then its answer. */
static int
rds_cl_call(struct rds_cl *cl, struct rds_ctl_req *q, struct rds_ctl_resp *r,
	    int pass_fd, int *got_fd)
{
	struct iovec iov = {
		.iov_base = q,
		.iov_len = offsetof(struct rds_ctl_req, data) + q->len,
	};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;
	ssize_t n;

	if (got_fd != NULL)
		*got_fd = -1;
	if (__atomic_load_n(&cl->dead, __ATOMIC_ACQUIRE))
		return -ECONNRESET;
	pthread_mutex_lock(&cl->ctl);
	q->seq = ++cl->seq;
	if (pass_fd >= 0) {
		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &pass_fd, sizeof(int));
	}
	if (sendmsg(cl->fd, &mh, MSG_NOSIGNAL) < 0)
		goto dead;
	iov.iov_base = r;
	iov.iov_len = sizeof(*r);
	memset(&u, 0, sizeof(u));
	mh.msg_control = u.buf;
	mh.msg_controllen = sizeof(u.buf);
	n = recvmsg(cl->fd, &mh, MSG_CMSG_CLOEXEC);
	if (n < (ssize_t)offsetof(struct rds_ctl_resp, data) ||
	    r->seq != q->seq)
		goto dead;
	for (cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_RIGHTS && got_fd != NULL)
			memcpy(got_fd, CMSG_DATA(cm), sizeof(int));
	pthread_mutex_unlock(&cl->ctl);
	if (r->ret < 0)
		return -(r->err != 0 ? r->err : EIO);
	return r->ret;
dead:
	__atomic_store_n(&cl->dead, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&cl->ctl);
	return -ECONNRESET;
}

static struct rds_ctl_req *
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
static int
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

	/* In a forked child the sockets' eventfds are the program's
	 * descriptors (the preload library's RDS descriptors): left to it. */
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

int
rte_rds_attach(const char *path)
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
	uint64_t size;
	ssize_t n;

	pthread_once(&rds_cl_once, rds_cl_once_init);
	/* Again after a fork (the parent's attachment is not ours) or
	 * after the engine went away (a restarted engine takes us). */
	if (rds_lib != NULL || (old != NULL && !old->forked &&
				!__atomic_load_n(&old->dead, __ATOMIC_ACQUIRE)))
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
	rte_spinlock_init(&cl->tx_lock);
	rte_spinlock_init(&cl->rxfree_lock);
	cl->epoch = __atomic_add_fetch(&rds_cl_epoch, 1, __ATOMIC_ACQ_REL);
	/* A forked child lets its parent's copy go (unmapping it here does
	 * not touch the parent's); so does a process whose engine went. */
	if (old != NULL)
		rds_cl_free(old);
	__atomic_store_n(&rds_cl, cl, __ATOMIC_RELEASE);
	return 0;
fail:
	if (memfd >= 0)
		close(memfd);
	free(r);
	rds_cl_free(cl);
	if (err == ENOENT || err == ECONNREFUSED || err == EACCES ||
	    err == ENOMEM || err == EINVAL)
		return RDS_ERR(err);
	return RDS_ERR(EPROTO);
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
			rte_rds_close((int)i);
	rds_cl = NULL;
	rds_cl_free(cl);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Sockets */

static struct rds_cl_sock *
rds_cl_hold(struct rds_cl *cl, int s)
{
	struct rds_cl_sock *cs;

	if (s < 0 || (unsigned int)s >= cl->nb_socks)
		return NULL;
	cs = &cl->socks[s];
	__atomic_fetch_add(&cs->refs, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&cs->state, __ATOMIC_SEQ_CST) != RDS_SOCK_OPEN) {
		__atomic_fetch_sub(&cs->refs, 1, __ATOMIC_RELEASE);
		return NULL;
	}
	return cs;
}

static inline void
rds_cl_put(struct rds_cl_sock *cs)
{
	__atomic_fetch_sub(&cs->refs, 1, __ATOMIC_RELEASE);
}

int
rds_client_socket(void)
{
	struct rds_cl *cl = rds_cl;
	struct rds_ctl_req *q;
	struct rds_ctl_resp *r;
	struct rds_cl_sock *cs = NULL;
	unsigned int i;
	int ret, efd;

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
	efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	q = rds_cl_req_new(RDS_CTL_SOCKET, (int32_t)i);
	r = malloc(sizeof(*r));
	if (efd < 0 || q == NULL || r == NULL) {
		ret = efd < 0 && errno == EMFILE ? -EMFILE : -ENOMEM;
		goto fail;
	}
	ret = rds_cl_call(cl, q, r, efd, NULL);
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
	__atomic_store_n(&cs->cs->snd_queued,
			 __atomic_load_n(&cs->cs->snd_released,
					 __ATOMIC_ACQUIRE), __ATOMIC_RELEASE);
	cs->rx_head = 0;
	cs->bound = cs->connected = false;
	cs->trans_pinned = -1;
	cs->sndbuf = 212992;
	cs->sndtimeo_ns = cs->rcvtimeo_ns = 0;
	free(q);
	free(r);
	__atomic_store_n(&cs->state, RDS_SOCK_OPEN, __ATOMIC_RELEASE);
	return (int)i;
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
	struct sockaddr_in sin;
	uint32_t len = sizeof(sin);
	int ret;

	if (cs == NULL)
		return RDS_ERR(EBADF);
	if (addr == NULL || addrlen > RDS_CTL_MAX_DATA) {
		rds_cl_put(cs);
		return RDS_ERR(addr == NULL ? EINVAL : EINVAL);
	}
	ret = rds_cl_simple(cl, RDS_CTL_BIND, cs->handle, 0, 0, addr, addrlen,
			    &sin, &len);
	if (ret == 0) {
		cs->bound_sin = sin;
		cs->bound = true;
	}
	rds_cl_put(cs);
	return ret < 0 ? RDS_ERR(-ret) : 0;
}

int
rds_client_connect(int s, const struct sockaddr *addr, socklen_t addrlen)
{
	struct rds_cl *cl = rds_cl;
	struct rds_cl_sock *cs = rds_cl_hold(cl, s);
	int ret;

	if (cs == NULL)
		return RDS_ERR(EBADF);
	if (addr == NULL || addrlen > RDS_CTL_MAX_DATA) {
		rds_cl_put(cs);
		return RDS_ERR(EINVAL);
	}
	ret = rds_cl_simple(cl, RDS_CTL_CONNECT, cs->handle, 0, 0, addr,
			    addrlen, NULL, NULL);
	if (ret == 0) {
		memcpy(&cs->conn_sin, addr, sizeof(cs->conn_sin));
		cs->connected = true;
	}
	rds_cl_put(cs);
	return ret < 0 ? RDS_ERR(-ret) : 0;
}

int
rds_client_getsockname(int s, struct sockaddr *addr, socklen_t *addrlen)
{
	struct rds_cl_sock *cs = rds_cl_hold(rds_cl, s);
	struct sockaddr_in sin;

	if (cs == NULL)
		return RDS_ERR(EBADF);
	if (addr == NULL || addrlen == NULL) {
		rds_cl_put(cs);
		return RDS_ERR(EINVAL);
	}
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	if (cs->bound)
		sin = cs->bound_sin;
	memcpy(addr, &sin, RTE_MIN((size_t)*addrlen, sizeof(sin)));
	*addrlen = sizeof(sin);
	rds_cl_put(cs);
	return 0;
}

/* Give an RX buffer back to the engine. */
static void
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

int
rds_client_close(int s)
{
	struct rds_cl *cl = rds_cl;
	struct rds_cl_sock *cs;
	uint32_t open = RDS_SOCK_OPEN;
	uint64_t off;
	int ret;

	if (s < 0 || (unsigned int)s >= cl->nb_socks)
		return RDS_ERR(EBADF);
	cs = &cl->socks[s];
	if (!__atomic_compare_exchange_n(&cs->state, &open, RDS_SOCK_CLOSING,
					 false, __ATOMIC_SEQ_CST,
					 __ATOMIC_RELAXED))
		return RDS_ERR(EBADF);
	/* Waiters inside wake up (the eventfd) and leave with EBADF. */
	rds_srv_efd_kick(cs->efd);
	while (__atomic_load_n(&cs->refs, __ATOMIC_SEQ_CST) != 0) {
		rds_srv_efd_kick(cs->efd);
		sched_yield();
	}
	ret = rds_cl_simple(cl, RDS_CTL_CLOSE, cs->handle, 0, 0, NULL, 0,
			    NULL, NULL);
	/* What was queued to it goes back. */
	if (cs->rx_head != 0)
		rds_cl_rx_back(cl, cs->rx_head);
	cs->rx_head = 0;
	while (rds_xring_get(&cs->rx, &off) > 0)
		rds_cl_rx_back(cl, off);
	close(cs->efd);
	cs->efd = -1;
	__atomic_store_n(&cs->state, RDS_SOCK_FREE, __ATOMIC_RELEASE);
	/* An engine that went away closed it anyway. */
	return ret < 0 && ret != -ECONNRESET ? RDS_ERR(-ret) : 0;
}

/* Kick an eventfd (so that a waiter returns). */
void
rds_srv_efd_kick(int fd)
{
	uint64_t one = 1;

	if (fd >= 0 && write(fd, &one, sizeof(one)) < 0)
		return;
}

/* ------------------------------------------------------------------ */
/* Waiting */

static short
rds_cl_revents(struct rds_cl_sock *cs, short events)
{
	short rev = 0;

	if (cs->rx_head != 0 || rds_xring_count(&cs->rx) != 0 ||
	    rds_xring_count(&cs->nt) >= 2)
		rev |= POLLIN | POLLRDNORM;
	if (__atomic_load_n(&cs->cs->snd_queued, __ATOMIC_ACQUIRE) -
	    __atomic_load_n(&cs->cs->snd_released, __ATOMIC_ACQUIRE) <
	    cs->sndbuf)
		rev |= POLLOUT | POLLWRNORM;
	return rev & events;
}

/* Wait until events may be ready on cs, or the deadline (0: none):
 * 0, -EBADF (closed), -ETIMEDOUT, -ECONNRESET (the engine went). */
static int
rds_cl_wait(struct rds_cl *cl, struct rds_cl_sock *cs, short events,
	    uint64_t deadline, uint64_t *spin_until)
{
	struct pollfd p[2];
	uint64_t now = rds_cl_now_ns(), v;
	int slice = 10;

	if (__atomic_load_n(&cs->state, __ATOMIC_ACQUIRE) != RDS_SOCK_OPEN)
		return -EBADF;
	if (deadline != 0 && now >= deadline)
		return -ETIMEDOUT;
	if (*spin_until == 0)
		*spin_until = now + RDS_CL_SPIN_NS;
	if (now < *spin_until) {
		rte_pause();
		return 0;
	}
	if (rds_cl_engine_gone(cl))
		return -ECONNRESET;
	/* Arm, look again, then sleep. */
	__atomic_store_n(&cs->cs->armed, 1, __ATOMIC_SEQ_CST);
	if (rds_cl_revents(cs, events) != 0) {
		__atomic_store_n(&cs->cs->armed, 0, __ATOMIC_SEQ_CST);
		return 0;
	}
	if (deadline != 0 && (deadline - now) / 1000000 < (uint64_t)slice)
		slice = (int)((deadline - now) / 1000000) + 1;
	p[0].fd = cs->efd;
	p[0].events = POLLIN;
	p[1].fd = cl->fd;
	p[1].events = 0;
	if (poll(p, 2, slice) > 0) {
		if (p[0].revents & POLLIN)
			if (read(cs->efd, &v, sizeof(v)) < 0)
				v = 0;
		if (p[1].revents & (POLLHUP | POLLERR)) {
			__atomic_store_n(&cl->dead, 1, __ATOMIC_RELEASE);
			return -ECONNRESET;
		}
	}
	return 0;
}

static uint64_t
rds_cl_deadline(uint64_t timeo_ns)
{
	return timeo_ns == 0 ? 0 : rds_cl_now_ns() + timeo_ns;
}

/* ------------------------------------------------------------------ */
/* Sending */

static int
rds_cl_tx_alloc(struct rds_cl *cl, uint32_t need, uint64_t *off)
{
	unsigned int c;
	uint64_t v;
	uint32_t slot;
	int ret = -ENOBUFS;

	rte_spinlock_lock(&cl->tx_lock);
	/* What the engine gave back. */
	while (rds_xring_get(&cl->txfree, &v) > 0) {
		for (c = 0; c < RDS_REGION_NB_CLASSES; c++) {
			uint64_t base = cl->lay.pool_off[RDS_POOL_TX][c];
			uint64_t end = base + (uint64_t)
				cl->lay.pool_nb[RDS_POOL_TX][c] *
				rds_region_class_size[c];

			if (v >= base && v < end) {
				cl->tx_free[c][cl->tx_nfree[c]++] = (uint32_t)
					((v - base) / rds_region_class_size[c]);
				break;
			}
		}
	}
	for (c = 0; c < RDS_REGION_NB_CLASSES; c++) {
		if (rds_region_class_size[c] < need || cl->tx_nfree[c] == 0)
			continue;
		slot = cl->tx_free[c][--cl->tx_nfree[c]];
		*off = cl->lay.pool_off[RDS_POOL_TX][c] +
		       (uint64_t)slot * rds_region_class_size[c];
		ret = 0;
		break;
	}
	rte_spinlock_unlock(&cl->tx_lock);
	return ret;
}

/* A TX buffer that was not queued after all. */
static void
rds_cl_tx_unalloc(struct rds_cl *cl, uint64_t off)
{
	unsigned int c;

	rte_spinlock_lock(&cl->tx_lock);
	for (c = 0; c < RDS_REGION_NB_CLASSES; c++) {
		uint64_t base = cl->lay.pool_off[RDS_POOL_TX][c];

		if (off >= base && off < base + (uint64_t)
		    cl->lay.pool_nb[RDS_POOL_TX][c] * rds_region_class_size[c]) {
			cl->tx_free[c][cl->tx_nfree[c]++] = (uint32_t)
				((off - base) / rds_region_class_size[c]);
			break;
		}
	}
	rte_spinlock_unlock(&cl->tx_lock);
}

/* This thread's doorbell, asked for on its first ring. */
static int
rds_cl_bell(struct rds_cl *cl, uint32_t idx)
{
	struct rds_cl_thread *t = &rds_cl_self;
	int ret;

	if (t->epoch != cl->epoch) {
		ret = rds_cl_simple(cl, RDS_CTL_BELL, -1, 0, 0, NULL, 0, NULL,
				    NULL);
		if (ret < 0)
			return ret;
		t->bell = ret;
		rds_xring_end_init(&t->end, (void *)(cl->base +
				   cl->lay.bells_off +
				   cl->lay.bell_stride * (uint32_t)ret),
				   RDS_REGION_BELL_RING, true);
		t->epoch = cl->epoch;
	}
	while (rds_xring_put(&t->end, idx) != 0) {
		if (rds_cl_engine_gone(cl))
			return -ECONNRESET;
		sched_yield();
	}
	return 0;
}

/* The engine's transport choice, for ENETUNREACH: a socket on an
 * address of a transport that only reaches the engine's own addresses
 * cannot send elsewhere. */
static int
rds_cl_reachable(const struct rds_cl *cl, const struct rds_cl_sock *cs,
		 uint32_t dst)
{
	uint32_t i;
	bool bound_loop = false;

	for (i = 0; i < cl->hdr->nb_laddrs && i < RDS_REGION_MAX_LADDRS; i++) {
		if (cl->hdr->laddr[i].v4 == dst)
			return 0;	/* local: loop */
		if (cl->hdr->laddr[i].v4 == cs->bound_sin.sin_addr.s_addr)
			bound_loop = cl->hdr->laddr[i].flags &
				     RDS_REGION_LADDR_LOOPBACK;
	}
	if (cs->trans_pinned >= 0)
		return 0;
	return bound_loop ? -ENETUNREACH : 0;
}

/* A send with RDMA control messages: the payload in a TX buffer, the
 * call through the UNIX socket (RDS_CTL_SENDMSG). */
static ssize_t
rds_cl_sendmsg_ctl(struct rds_cl *cl, struct rds_cl_sock *cs,
		   const struct msghdr *msg, int flags, uint32_t dst,
		   uint16_t dport, size_t len)
{
	struct rds_ctl_req *q;
	struct rds_ctl_resp *r;
	struct rds_ctl_send sd;
	uint64_t deadline = 0, spin = 0, off;
	size_t i, pos;
	int ret;

	if (msg->msg_controllen > RDS_CTL_MAX_DATA - sizeof(sd))
		return -EINVAL;
	if (!(flags & MSG_DONTWAIT))
		deadline = rds_cl_deadline(cs->sndtimeo_ns);
	while (rds_cl_tx_alloc(cl, RDS_CBUF_HDR + (uint32_t)len, &off) != 0) {
		if (flags & MSG_DONTWAIT)
			return -EAGAIN;
		ret = rds_cl_wait(cl, cs, POLLOUT, deadline, &spin);
		if (ret < 0)
			return ret;
	}
	for (i = 0, pos = 0; i < msg->msg_iovlen; i++) {
		memcpy(cl->base + off + RDS_CBUF_HDR + pos,
		       msg->msg_iov[i].iov_base, msg->msg_iov[i].iov_len);
		pos += msg->msg_iov[i].iov_len;
	}
	q = rds_cl_req_new(RDS_CTL_SENDMSG, cs->handle);
	r = malloc(sizeof(*r));
	if (q == NULL || r == NULL) {
		ret = -ENOMEM;
		goto out;
	}
	memset(&sd, 0, sizeof(sd));
	sd.off = off;
	sd.len = (uint32_t)len;
	sd.ctl_len = (uint32_t)msg->msg_controllen;
	sd.addr = msg->msg_name != NULL && msg->msg_namelen != 0 ? dst : 0;
	sd.port = dport;
	memcpy(q->data, &sd, sizeof(sd));
	memcpy(q->data + sizeof(sd), msg->msg_control, msg->msg_controllen);
	q->len = (uint32_t)(sizeof(sd) + msg->msg_controllen);
	for (;;) {
		/* After what this socket's ring holds (the engine drains it
		 * first), before what comes after. */
		rte_spinlock_lock(&cs->lock);
		ret = rds_cl_call(cl, q, r, -1, NULL);
		if (ret >= 0)
			__atomic_fetch_add(&cs->cs->snd_queued, len,
					   __ATOMIC_RELEASE);
		rte_spinlock_unlock(&cs->lock);
		if (ret != -EAGAIN || (flags & MSG_DONTWAIT))
			break;
		ret = rds_cl_wait(cl, cs, POLLOUT, deadline, &spin);
		if (ret < 0)
			break;
	}
out:
	free(q);
	free(r);
	/* The engine copied the payload in the call. */
	rds_cl_tx_unalloc(cl, off);
	return ret < 0 ? ret : (ssize_t)len;
}

static ssize_t
rds_cl_sendmsg(struct rds_cl *cl, struct rds_cl_sock *cs,
	       const struct msghdr *msg, int flags)
{
	const struct sockaddr_in *sin;
	struct rds_cbuf *b;
	struct cmsghdr *cm;
	uint64_t deadline = 0, spin = 0, off, q;
	uint32_t dst;
	uint16_t dport;
	size_t len = 0, i, pos;
	int ret;

	if (msg == NULL)
		return -EINVAL;
	if (flags & ~MSG_DONTWAIT)
		return -EOPNOTSUPP;
	if (msg->msg_name != NULL && msg->msg_namelen != 0) {
		sin = msg->msg_name;
		if (msg->msg_namelen < sizeof(*sin) ||
		    sin->sin_family != AF_INET ||
		    sin->sin_addr.s_addr == htonl(INADDR_ANY) ||
		    sin->sin_addr.s_addr == htonl(INADDR_BROADCAST) ||
		    IN_MULTICAST(ntohl(sin->sin_addr.s_addr)))
			return -EINVAL;
	} else if (cs->connected) {
		sin = &cs->conn_sin;
	} else {
		return -ENOTCONN;
	}
	if (!cs->bound)
		return -ENOTCONN;
	dst = sin->sin_addr.s_addr;
	dport = ntohs(sin->sin_port);
	ret = rds_uarg_iov(msg->msg_iov, msg->msg_iovlen, &len);
	if (ret < 0)
		return ret;
	if (len > RDS_MAX_MSG_SIZE || len > cs->sndbuf)
		return -EMSGSIZE;
	ret = rds_cl_reachable(cl, cs, dst);
	if (ret < 0)
		return ret;
	/* Control messages of ours (RDMA): the engine makes the send in
	 * this call (its errno is the call's); other levels are ignored,
	 * as the kernel does. */
	if (msg->msg_controllen != 0 && msg->msg_control != NULL) {
		struct msghdr *mh = (struct msghdr *)(uintptr_t)msg;

		for (cm = CMSG_FIRSTHDR(mh); cm != NULL;
		     cm = CMSG_NXTHDR(mh, cm)) {
			if (cm->cmsg_len < sizeof(*cm) ||
			    cm->cmsg_len > msg->msg_controllen)
				return -EINVAL;
			if (cm->cmsg_level == SOL_RDS)
				return rds_cl_sendmsg_ctl(cl, cs, msg, flags,
							  dst, dport, len);
		}
	}
	if (!(flags & MSG_DONTWAIT))
		deadline = rds_cl_deadline(cs->sndtimeo_ns);
	/* Send buffer: the last message may overshoot the limit. */
	for (;;) {
		q = __atomic_load_n(&cs->cs->snd_queued, __ATOMIC_ACQUIRE);
		if (q - __atomic_load_n(&cs->cs->snd_released,
					__ATOMIC_ACQUIRE) < cs->sndbuf &&
		    rds_cl_tx_alloc(cl, RDS_CBUF_HDR + (uint32_t)len,
				    &off) == 0)
			break;
		if (flags & MSG_DONTWAIT)
			return -EAGAIN;
		ret = rds_cl_wait(cl, cs, POLLOUT, deadline, &spin);
		if (ret < 0)
			return ret;
	}
	b = (void *)(cl->base + off);
	b->len = (uint32_t)len;
	b->ctl_len = 0;
	b->addr = dst;
	b->port = dport;
	b->flags = (flags & MSG_DONTWAIT) ? RDS_CBUF_F_DONTWAIT : 0;
	b->csock = (int32_t)(cs - cl->socks);
	for (i = 0, pos = 0; i < msg->msg_iovlen; i++) {
		memcpy((uint8_t *)b + RDS_CBUF_HDR + pos,
		       msg->msg_iov[i].iov_base, msg->msg_iov[i].iov_len);
		pos += msg->msg_iov[i].iov_len;
	}
	rte_spinlock_lock(&cs->lock);
	for (;;) {
		if (rds_xring_put(&cs->req, off) == 0)
			break;
		rte_spinlock_unlock(&cs->lock);
		if (flags & MSG_DONTWAIT) {
			rds_cl_tx_unalloc(cl, off);
			return -EAGAIN;
		}
		ret = rds_cl_wait(cl, cs, POLLOUT, deadline, &spin);
		if (ret < 0) {
			rds_cl_tx_unalloc(cl, off);
			return ret;
		}
		rte_spinlock_lock(&cs->lock);
	}
	__atomic_fetch_add(&cs->cs->snd_queued, len, __ATOMIC_RELEASE);
	rte_spinlock_unlock(&cs->lock);
	if (__atomic_exchange_n(&cs->cs->queued, 1, __ATOMIC_SEQ_CST) == 0) {
		ret = rds_cl_bell(cl, (uint32_t)(cs - cl->socks));
		if (ret < 0)
			return ret;
	}
	return (ssize_t)len;
}

ssize_t
rds_client_sendmsg(int s, const struct msghdr *msg, int flags)
{
	struct rds_cl *cl = rds_cl;
	struct rds_cl_sock *cs = rds_cl_hold(cl, s);
	ssize_t ret;

	if (cs == NULL)
		return RDS_ERR(EBADF);
	ret = rds_cl_engine_gone(cl) ? -ECONNRESET :
	      rds_cl_sendmsg(cl, cs, msg, flags);
	rds_cl_put(cs);
	return ret < 0 ? RDS_ERR((int)-ret) : ret;
}

/* ------------------------------------------------------------------ */
/* Receiving */

/* RDS_CMSG_RDMA_STATUS control messages from the nt ring, with the
 * rules of a local socket (rds_recv_notifications). Under rlock. */
static void
rds_cl_notifications(struct rds_cl_sock *cs, struct msghdr *msg, bool peek)
{
	size_t space = msg->msg_control != NULL ? msg->msg_controllen : 0;
	size_t used = 0, need = CMSG_SPACE(sizeof(struct rds_rdma_notify));
	uint8_t *base = msg->msg_control;
	struct rds_rdma_notify n;
	struct cmsghdr *cm;
	uint64_t tok, st;

	msg->msg_flags = 0;
	while (rds_xring_count(&cs->nt) >= 2) {
		if (used + CMSG_LEN(sizeof(n)) > space) {
			msg->msg_flags |= MSG_CTRUNC;
			if (used == 0 && !peek) {
				rds_xring_get(&cs->nt, &tok);
				rds_xring_get(&cs->nt, &st);
			}
			break;
		}
		if (peek)
			break;
		if (rds_xring_get(&cs->nt, &tok) <= 0 ||
		    rds_xring_get(&cs->nt, &st) <= 0)
			break;
		n.user_token = tok;
		n.status = (int32_t)(uint32_t)st;
		cm = (struct cmsghdr *)(base + used);
		cm->cmsg_len = CMSG_LEN(sizeof(n));
		cm->cmsg_level = SOL_RDS;
		cm->cmsg_type = RDS_CMSG_RDMA_STATUS;
		memcpy(CMSG_DATA(cm), &n, sizeof(n));
		used += RTE_MIN(need, space - used);
	}
	msg->msg_controllen = used;
}

static ssize_t
rds_cl_recvmsg(struct rds_cl *cl, struct rds_cl_sock *cs, struct msghdr *msg,
	       int flags)
{
	const struct rds_cbuf *b;
	struct sockaddr_in *sin;
	uint64_t deadline = 0, spin = 0, off = 0;
	size_t total, copied = 0, i, n;
	ssize_t ret;
	int r;

	if (msg == NULL)
		return -EINVAL;
	if (flags & MSG_OOB)
		return 0;
	if (flags & ~(MSG_DONTWAIT | MSG_PEEK | MSG_TRUNC | MSG_WAITALL |
		      MSG_CMSG_CLOEXEC))
		return -EOPNOTSUPP;
	r = rds_uarg_iov(msg->msg_iov, msg->msg_iovlen, &total);
	if (r < 0)
		return r;
	if (!(flags & MSG_DONTWAIT))
		deadline = rds_cl_deadline(cs->rcvtimeo_ns);
	rte_spinlock_lock(&cs->rlock);
	for (;;) {
		if (unlikely(rds_xring_count(&cs->nt) >= 2)) {
			/* RDMA notifications first, as a local socket. */
			rds_cl_notifications(cs, msg, flags & MSG_PEEK);
			rte_spinlock_unlock(&cs->rlock);
			msg->msg_namelen = 0;
			return 0;
		}
		if (cs->rx_head != 0) {
			off = cs->rx_head;
			break;
		}
		r = rds_xring_get(&cs->rx, &off);
		if (r > 0)
			break;
		rte_spinlock_unlock(&cs->rlock);
		if (flags & MSG_DONTWAIT)
			return rds_cl_engine_gone(cl) ? -ECONNRESET : -EAGAIN;
		r = rds_cl_wait(cl, cs, POLLIN, deadline, &spin);
		if (r < 0)
			return r;
		rte_spinlock_lock(&cs->rlock);
	}
	if (off >= cl->size || cl->size - off < RDS_CBUF_HDR) {
		rte_spinlock_unlock(&cs->rlock);
		return -EIO;	/* not from a sane engine */
	}
	b = (const void *)(cl->base + off);
	for (i = 0; i < msg->msg_iovlen && copied < b->len; i++) {
		n = RTE_MIN(msg->msg_iov[i].iov_len, b->len - copied);
		if (n != 0)
			memcpy(msg->msg_iov[i].iov_base,
			       (const uint8_t *)b + RDS_CBUF_HDR + copied, n);
		copied += n;
	}
	msg->msg_flags = copied < b->len ? MSG_TRUNC : 0;
	ret = (flags & MSG_TRUNC) ? (ssize_t)b->len : (ssize_t)copied;
	if (msg->msg_name != NULL) {
		if (msg->msg_namelen >= sizeof(*sin)) {
			sin = msg->msg_name;
			memset(sin, 0, sizeof(*sin));
			sin->sin_family = AF_INET;
			sin->sin_port = htons(b->port);
			sin->sin_addr.s_addr = b->addr;
		}
		msg->msg_namelen = sizeof(*sin);
	}
	if (msg->msg_control != NULL && msg->msg_controllen != 0) {
		if (b->flags & RDS_CBUF_F_DEST &&
		    msg->msg_controllen >= CMSG_LEN(sizeof(uint64_t))) {
			struct cmsghdr *cm = msg->msg_control;

			cm->cmsg_len = CMSG_LEN(sizeof(uint64_t));
			cm->cmsg_level = SOL_RDS;
			cm->cmsg_type = RDS_CMSG_RDMA_DEST;
			memcpy(CMSG_DATA(cm), &b->rdma_dest, sizeof(uint64_t));
			msg->msg_controllen = RTE_MIN(msg->msg_controllen,
				CMSG_SPACE(sizeof(uint64_t)));
		} else {
			msg->msg_controllen = 0;
		}
	}
	if (flags & MSG_PEEK) {
		cs->rx_head = off;
		rte_spinlock_unlock(&cs->rlock);
		return ret;
	}
	cs->rx_head = 0;
	rte_spinlock_unlock(&cs->rlock);
	rds_cl_rx_back(cl, off);
	return ret;
}

ssize_t
rds_client_recvmsg(int s, struct msghdr *msg, int flags)
{
	struct rds_cl *cl = rds_cl;
	struct rds_cl_sock *cs = rds_cl_hold(cl, s);
	ssize_t ret;

	if (cs == NULL)
		return RDS_ERR(EBADF);
	ret = rds_cl_recvmsg(cl, cs, msg, flags);
	rds_cl_put(cs);
	return ret < 0 ? RDS_ERR((int)-ret) : ret;
}

/* ------------------------------------------------------------------ */
/* Options, readiness, snapshots */

int
rds_client_setsockopt(int s, int level, int optname, const void *optval,
		      socklen_t optlen)
{
	struct rds_cl *cl = rds_cl;
	struct rds_cl_sock *cs = rds_cl_hold(cl, s);
	struct timeval tv;
	int ret, v;

	if (cs == NULL)
		return RDS_ERR(EBADF);
	if (optlen > RDS_CTL_MAX_DATA || (optval == NULL && optlen != 0)) {
		rds_cl_put(cs);
		return RDS_ERR(optval == NULL ? EFAULT : EINVAL);
	}
	ret = rds_cl_simple(cl, RDS_CTL_SETSOCKOPT, cs->handle, level,
			    optname, optval, optlen, NULL, NULL);
	if (ret == 0 && level == SOL_SOCKET) {
		/* What the engine took, kept for the calls made here. */
		if ((optname == SO_SNDBUF || optname == SO_SNDBUFFORCE) &&
		    optlen >= sizeof(int)) {
			uint32_t len = sizeof(v);

			if (rds_cl_simple(cl, RDS_CTL_GETSOCKOPT, cs->handle,
					  SOL_SOCKET, SO_SNDBUF, NULL, 0, &v,
					  &len) == 0)
				cs->sndbuf = (uint32_t)v / 2;
		} else if ((optname == SO_SNDTIMEO || optname == SO_RCVTIMEO) &&
			   optlen >= sizeof(tv)) {
			uint64_t ns;

			memcpy(&tv, optval, sizeof(tv));
			ns = tv.tv_sec < 0 ? 1 : (uint64_t)tv.tv_sec *
			     1000000000ULL + (uint64_t)tv.tv_usec * 1000;
			if (optname == SO_SNDTIMEO)
				cs->sndtimeo_ns = ns;
			else
				cs->rcvtimeo_ns = ns;
		}
	} else if (ret == 0 && level == SOL_RDS &&
		   optname == SO_RDS_TRANSPORT && optlen >= sizeof(int)) {
		memcpy(&cs->trans_pinned, optval, sizeof(int));
	}
	rds_cl_put(cs);
	return ret < 0 ? RDS_ERR(-ret) : 0;
}

/* RDS_INFO: the engine writes the records into buf itself. */
static int
rds_cl_info(struct rds_cl *cl, int32_t handle, int name, void *buf,
	    socklen_t *len)
{
	struct rds_ctl_req *q = rds_cl_req_new(RDS_CTL_GETSOCKOPT, handle);
	struct rds_ctl_resp *r = malloc(sizeof(*r));
	uint64_t addr = (uintptr_t)buf;
	int ret;

	if (q == NULL || r == NULL) {
		free(q);
		free(r);
		return -ENOMEM;
	}
	q->level = SOL_RDS;
	q->name = name;
	q->len = sizeof(addr);
	memcpy(q->data, &addr, sizeof(addr));
	q->cap = buf != NULL ? *len : 0;
	ret = rds_cl_call(cl, q, r, -1, NULL);
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
	if (level == SOL_RDS && optname >= RDS_INFO_FIRST &&
	    optname <= RDS_INFO_LAST) {
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
	fd = cs->efd;
	rds_cl_put(cs);
	return fd;
}

int
rds_client_event_arm(int s, short events)
{
	struct rds_cl_sock *cs = rds_cl_hold(rds_cl, s);
	short rev;

	if (cs == NULL)
		return RDS_ERR(EBADF);
	__atomic_store_n(&cs->cs->armed, 1, __ATOMIC_SEQ_CST);
	rev = rds_cl_revents(cs, events);
	if (rev != 0)
		__atomic_store_n(&cs->cs->armed, 0, __ATOMIC_SEQ_CST);
	rds_cl_put(cs);
	return rev;
}

int
rds_client_poll(struct rte_rds_pollfd *fds, unsigned int nfds, int timeout_ms)
{
	struct rds_cl *cl = rds_cl;
	struct pollfd pfd[65];
	uint64_t deadline = 0, spin_until = 0, v, now;
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
			rte_pause();
			continue;
		}
		slice = 10;
		for (i = 0; i < nfds; i++) {
			pfd[i].fd = -1;
			pfd[i].events = POLLIN;
			if (rds_client_event_arm(fds[i].sock, fds[i].events) > 0)
				slice = 0;
			else
				pfd[i].fd = rds_client_event_fd(fds[i].sock);
		}
		pfd[nfds].fd = cl->fd;
		pfd[nfds].events = 0;
		if (slice != 0 && poll(pfd, nfds + 1, slice) > 0)
			for (i = 0; i < nfds; i++)
				if (pfd[i].fd >= 0 && (pfd[i].revents & POLLIN))
					if (read(pfd[i].fd, &v, sizeof(v)) < 0)
						v = 0;
	}
}

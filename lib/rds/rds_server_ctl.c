/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Serving other processes, the control plane's calls (rds_server.c has
 * the whole picture): the messages on a client's UNIX socket, and the
 * calls they carry (socket, close, sendmsg, options, xstats), made on
 * the library for the client on sockets of the engine's own. Runs on
 * the thread of rte_rds_server_poll().
 */
#include <errno.h>
#include <linux/sockios.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>

#include "rds_server_private.h"
#include "rte_rds_attach.h"

/* ------------------------------------------------------------------ */
/* Answers: queued, sent while the client's socket has room */

void
rds_srv_out_free(struct rds_client *cl)
{
	struct rds_ctl_out *o;

	while ((o = STAILQ_FIRST(&cl->out)) != NULL) {
		STAILQ_REMOVE_HEAD(&cl->out, link);
		if (o->fd >= 0)
			close(o->fd);
		free(o->info);
		free(o);
	}
	cl->nb_out = 0;
}

/* Send one message without waiting: 1 sent, 0 no room, -errno. */
static int
rds_srv_send_now(int fd, const void *buf, size_t len, int pass_fd)
{
	int r = rds_ctl_send(fd, buf, len, pass_fd, MSG_DONTWAIT);

	return r == 0 ? 1 : r == -EAGAIN || r == -EWOULDBLOCK ? 0 : r;
}

/* What can go now: 0, or -errno (the client is to be dropped). */
int
rds_srv_flush(struct rds_client *cl)
{
	struct rds_ctl_resp *chunk = NULL;
	struct rds_ctl_out *o;
	int r = 0;

	while ((o = STAILQ_FIRST(&cl->out)) != NULL) {
		if (o->info == NULL) {
			r = rds_srv_send_now(cl->fd, o->buf, o->len, o->fd);
		} else {
			uint32_t n = RTE_MIN(o->info_len - o->info_off,
					     (uint32_t)RDS_CTL_MAX_DATA);

			if (chunk == NULL) {
				chunk = malloc(sizeof(*chunk));
				if (chunk == NULL)
					return -ENOMEM;
			}
			memset(chunk, 0, offsetof(struct rds_ctl_resp,
						      data));
			chunk->op = RDS_CTL_INFO_DATA;
			chunk->seq = o->seq;
			chunk->len = n;
			memcpy(chunk->data, o->info + o->info_off, n);
			r = rds_srv_send_now(cl->fd, chunk,
					     offsetof(struct rds_ctl_resp, data) +
					     n, -1);
			if (r == 1) {
				o->info_off += n;
				if (o->info_off < o->info_len)
					continue;
			}
		}
		if (r <= 0)
			break;
		STAILQ_REMOVE_HEAD(&cl->out, link);
		cl->nb_out--;
		if (o->fd >= 0)
			close(o->fd);
		free(o->info);
		free(o);
	}
	free(chunk);
	return r < 0 ? r : 0;
}

/* Queue an answer (and an fd to pass with it, which is ours until it is
 * sent: closed then) and send what can go: 0, or -errno. */
static int
rds_srv_queue(struct rds_client *cl, const struct rds_ctl_resp *r,
	      int pass_fd, uint8_t *info, uint32_t info_len)
{
	uint32_t len = offsetof(struct rds_ctl_resp, data) + r->len;
	struct rds_ctl_out *o = malloc(sizeof(*o) + len);

	if (o == NULL) {
		if (pass_fd >= 0)
			close(pass_fd);
		free(info);
		return -ENOMEM;
	}
	memcpy(o->buf, r, len);
	o->len = len;
	o->fd = pass_fd;
	o->seq = r->seq;
	o->info = NULL;
	o->info_len = o->info_off = 0;
	STAILQ_INSERT_TAIL(&cl->out, o, link);
	cl->nb_out++;
	if (info != NULL) {
		struct rds_ctl_out *d = calloc(1, sizeof(*d));

		if (d == NULL) {
			free(info);
			return -ENOMEM;
		}
		d->fd = -1;
		d->seq = r->seq;
		d->info = info;
		d->info_len = info_len;
		STAILQ_INSERT_TAIL(&cl->out, d, link);
		cl->nb_out++;
	}
	return rds_srv_flush(cl);
}

int
rds_srv_reply(struct rds_client *cl, const struct rds_ctl_resp *r,
	      int pass_fd)
{
	int fd = pass_fd >= 0 ? fcntl(pass_fd, F_DUPFD_CLOEXEC, 0) : -1;

	if (pass_fd >= 0 && fd < 0)
		return -errno;
	return rds_srv_queue(cl, r, fd, NULL, 0);
}

/* ------------------------------------------------------------------ */
/* Requests */

/*
 * Read one request without waiting: 0 with it, -EAGAIN when none is
 * there, or -errno: the client is dropped (-EPROTO: it broke the
 * protocol, counted and logged here). No request carries a descriptor:
 * every one that comes is closed, and counts as a violation.
 */
static int
rds_srv_recv(struct rds_client *cl, struct rds_ctl_req *q)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 8)];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = q, .iov_len = sizeof(*q) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *cm;
	unsigned int nfd = 0, i, k;
	const char *why = NULL;
	ssize_t n;

	do {
		n = recvmsg(cl->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? -EAGAIN :
		       -errno;
	if (n == 0)
		return -ECONNRESET;
	for (cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level != SOL_SOCKET ||
		    cm->cmsg_type != SCM_RIGHTS)
			continue;
		k = (unsigned int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		for (i = 0; i < k; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int),
			       sizeof(int));
			close(fd);
			nfd++;
		}
	}
	if (mh.msg_flags & MSG_TRUNC)
		why = "a request longer than any";
	else if (mh.msg_flags & MSG_CTRUNC)
		why = "a request with too many descriptors";
	else if (nfd != 0)
		why = "a request with a descriptor";
	else if ((size_t)n < offsetof(struct rds_ctl_req, data) ||
		 q->len > RDS_CTL_MAX_DATA ||
		 (size_t)n != offsetof(struct rds_ctl_req, data) + q->len)
		why = "a request whose length is not its own";
	if (why != NULL) {
		rds_client_violation(cl, why);
		return -EPROTO;
	}
	return 0;
}

/* The engine socket behind a client's socket slot. */
static struct rds_sock *
rds_srv_sock_of(struct rds_client *cl, int32_t idx)
{
	if (idx < 0 || (uint32_t)idx >= RDS_SRV_SOCKS)
		return NULL;
	return cl->socks[idx].rs;
}

/*
 * A socket for the client, in slot q->handle of its region. Its wake-up
 * descriptor is one end of a SOCK_SEQPACKET pair made here: the engine
 * keeps one end and sends to it with MSG_DONTWAIT (a per-call flag the
 * client cannot change, as it could an eventfd's O_NONBLOCK, shared by
 * every copy of the descriptor), the client gets the other, which polls
 * readable when the engine sent, and hangs up when the engine goes.
 * Returns the descriptor to pass with the answer, or -1.
 */
static int
rds_srv_do_socket(struct rds_client *cl, const struct rds_ctl_req *q,
		  struct rds_ctl_resp *r)
{
	struct rds_srv_sock *ss;
	struct rds_slot *sl;
	struct rds_sock *rs;
	int32_t idx = q->handle;
	int s, pair[2];

	r->ret = -1;
	if (idx < 0 || (uint32_t)idx >= RDS_SRV_SOCKS ||
	    cl->socks[idx].rs != NULL) {
		r->err = EINVAL;
		return -1;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC,
		       0, pair) != 0) {
		r->err = errno == EMFILE || errno == ENFILE ? EMFILE : ENOMEM;
		return -1;
	}
	/* Our end only sends: what the client might send is not kept. */
	shutdown(pair[0], SHUT_RD);
	s = rte_rds_socket();
	if (s < 0) {
		r->err = rte_errno;
		close(pair[0]);
		close(pair[1]);
		return -1;
	}
	sl = rds_slot_of(s);
	rs = sl->body;
	ss = &cl->socks[idx];
	ss->gen++;
	if (ss->wfd >= 0)
		close(ss->wfd);
	ss->wfd = pair[0];
	ss->cs = (void *)(cl->base + cl->lay.socks_off +
			  sizeof(struct rds_csock) * (uint32_t)idx);
	/* (throttled is its engine's: a socket closed throttled is
	 * drained once more and cleared there.) */
	ss->last_fcong = NULL;
	rds_xring_end_init(&ss->req,
		(void *)(cl->base + rds_region_csock_ring(&cl->lay, idx, 0)),
		RDS_CSOCK_REQ_RING, false);
	rds_xring_end_init(&ss->rx,
		(void *)(cl->base + rds_region_csock_ring(&cl->lay, idx, 1)),
		RDS_CSOCK_RX_RING, true);
	rds_xring_end_init(&ss->nt,
		(void *)(cl->base + rds_region_csock_ring(&cl->lay, idx, 2)),
		RDS_CSOCK_NT_RING, true);
	/* Keys a socket of this slot had before are not this one's: its
	 * key ring starts empty (the client sets its end up after this
	 * answer), and stays off until its first RDMA_MAP. */
	rds_xring_init((void *)(cl->base +
				rds_region_csock_ring(&cl->lay, idx, 3)));
	rds_xring_end_init(&ss->key,
		(void *)(cl->base + rds_region_csock_ring(&cl->lay, idx, 3)),
		RDS_CSOCK_KEY_RING, true);
	ss->keys_on = false;
	__atomic_store_n(&ss->cs->snd_released, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&ss->cs->closed, 0, __ATOMIC_RELAXED);
	rs->client = cl;
	rs->client_sock = ss;
	rs->mem = cl->mem;
	rds_xmem_get(rs->mem);
	rs->home = (int32_t)cl->engine;
	__atomic_store_n(&ss->rs, rs, __ATOMIC_RELEASE);
	r->ret = s;
	r->err = 0;
	return pair[1];
}

static void
rds_srv_do_close(struct rds_client *cl, const struct rds_ctl_req *q,
		 struct rds_ctl_resp *r)
{
	struct rds_srv_sock *ss;
	struct rds_sock *rs = rds_srv_sock_of(cl, q->handle);

	if (rs == NULL) {
		r->ret = -1;
		r->err = EBADF;
		return;
	}
	ss = &cl->socks[q->handle];
	/* What it queued before the close goes first; what the engine
	 * cannot take is cancelled (rds_srv_close_call). */
	rds_engine_call_wait(cl->engine, rds_srv_close_call, ss);
	__atomic_store_n(&ss->rs, NULL, __ATOMIC_RELEASE);
	r->ret = rte_rds_close(rs->id);
	r->err = r->ret < 0 ? rte_errno : 0;
	/* What was kept for it, in order: no one takes it now. */
	rte_spinlock_lock(&cl->rx_lock);
	if (ss->on_ovf) {
		TAILQ_REMOVE(&cl->ovf_socks, ss, ovf_link);
		ss->on_ovf = false;
	}
	rds_srv_sock_flush(cl, ss);
	rte_spinlock_unlock(&cl->rx_lock);
	__atomic_store_n(&ss->cs->closed, 1, __ATOMIC_RELEASE);
}

/* A send of the client's made by the control thread: queued by its
 * engine after what the socket's ring holds. */
struct rds_srv_send {
	struct rds_srv_sock *ss;
	struct rds_sock *rs;		/* ss's: only this thread closes it */
	struct rds_msg *m;
	bool mapped;			/* it made an RDMA_MAP */
};

static void
rds_srv_send_call(struct rds_engine *e, void *arg)
{
	struct rds_srv_send *sd = arg;

	if (sd->rs->client != NULL)
		rds_srv_drain(e, sd->rs->client, sd->ss);
	rds_send_request(e, sd->rs, sd->m);
	/* A socket that maps gets keys, so that its next RDMA_MAPs go
	 * through its ring (rds_server_rdma.c). */
	if (sd->mapped && !sd->ss->keys_on)
		rds_srv_keys_fill(sd->ss, sd->rs);
}

static void
rds_srv_do_sendmsg(struct rds_client *cl, const struct rds_ctl_req *q,
		   struct rds_ctl_resp *r)
{
	struct rds_sock *rs = rds_srv_sock_of(cl, q->handle);
	union {
		uint8_t b[RDS_CTL_MAX_DATA];
		struct cmsghdr align;
	} ctl;
	struct rds_srv_send sd;
	struct rds_ctl_send cs;
	struct msghdr mh;
	struct iovec iov;
	struct rds_msg *m = NULL;
	uint64_t cookie = 0;
	bool mapped = false;
	uint32_t slot;
	ssize_t len;
	int c;

	r->ret = -1;
	if (rs == NULL) {
		r->err = EBADF;
		return;
	}
	if (q->len < sizeof(cs)) {
		r->err = EINVAL;
		return;
	}
	memcpy(&cs, q->data, sizeof(cs));
	c = rds_region_slot(&cl->lay, RDS_POOL_TX, cs.off, &slot);
	if (c < 0 || cs.len > rds_region_class_size[c] - RDS_CBUF_HDR ||
	    cs.ctl_len > q->len - sizeof(cs)) {
		rds_client_violation(cl, "send with a bad buffer");
		r->err = EINVAL;
		return;
	}
	memcpy(ctl.b, q->data + sizeof(cs), cs.ctl_len);
	iov.iov_base = cl->base + cs.off + RDS_CBUF_HDR;
	iov.iov_len = cs.len;
	memset(&mh, 0, sizeof(mh));
	if (cs.namelen != 0) {
		/* rte_rds_sendmsg checks it again, as any caller's. */
		mh.msg_name = &cs.name;
		mh.msg_namelen = RTE_MIN(cs.namelen,
					 (uint32_t)sizeof(cs.name));
	}
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cs.ctl_len != 0 ? ctl.b : NULL;
	mh.msg_controllen = cs.ctl_len;
	/* Its checks and errno as a local send's; RDMA addresses in the
	 * control messages name the client's memory (rs->mem_pid). */
	len = rds_send_make(rs, &mh, MSG_DONTWAIT, &m, &cookie, &mapped);
	if (len < 0) {
		r->err = (int)-len;
		return;
	}
	sd.ss = &cl->socks[q->handle];
	sd.rs = rs;
	sd.m = m;
	sd.mapped = mapped;
	if (rds_engine_call_wait(cl->engine, rds_srv_send_call, &sd) != 0) {
		rds_send_unmake(rs, m, mapped, cookie);
		r->err = ENOMEM;
		return;
	}
	r->ret = (int32_t)len;
	r->err = 0;
}

/* Options only an engine-process socket can have (the RDMA ones hold
 * pointers of the client's: the socket's mem_pid names whose). */
static bool
rds_srv_opt_refused(int level, int name)
{
	return level == SOL_RDS && name == RDS_CONG_MONITOR;
}

/*
 * RDS_INFO for the client (getsockopt of an RDS_INFO_* name): the
 * records travel back over its socket, after the answer (need bytes in
 * RDS_CTL_INFO_DATA chunks): the engine never writes them into the
 * client's memory. As rte_rds_info: a room (q->cap) smaller than the
 * records gives ENOSPC and the bytes needed. What the engine holds for
 * it is what the records take (never the room the client claims), at
 * most RDS_SRV_INFO_MAX.
 */
static int
rds_srv_do_info(struct rds_client *cl, const struct rds_ctl_req *q,
		struct rds_ctl_resp *r)
{
	socklen_t need = 0, len;
	uint8_t *buf = NULL;
	unsigned int tries;
	int ret = -1;

	for (tries = 0; tries < 4; tries++) {
		need = 0;
		ret = rte_rds_info(q->name, NULL, &need);
		if (ret < 0 && rte_errno != ENOSPC)
			break;
		if (ret >= 0 || need == 0 || need > q->cap ||
		    need > RDS_SRV_INFO_MAX)
			break;
		free(buf);
		buf = malloc(need);
		if (buf == NULL) {
			r->ret = -1;
			r->err = ENOMEM;
			return rds_srv_queue(cl, r, -1, NULL, 0);
		}
		len = need;
		ret = rte_rds_info(q->name, buf, &len);
		if (ret >= 0) {
			need = len;
			break;
		}
		if (rte_errno != ENOSPC)
			break;
		/* It grew meanwhile: again, with its new size. */
	}
	r->ret = ret;
	r->err = ret < 0 ? rte_errno : 0;
	r->need = need;
	r->len = 0;
	if (ret < 0 && rte_errno == ENOSPC && need > RDS_SRV_INFO_MAX)
		r->err = ENOMEM;
	if (ret < 0 || need == 0 || buf == NULL) {
		free(buf);
		return rds_srv_queue(cl, r, -1, NULL, 0);
	}
	return rds_srv_queue(cl, r, -1, buf, need);
}

static void
rds_srv_do_opt(struct rds_client *cl, const struct rds_ctl_req *q,
	       struct rds_ctl_resp *r)
{
	struct rds_sock *rs = rds_srv_sock_of(cl, q->handle);
	socklen_t len;
	int ret;

	if (rs == NULL) {
		r->ret = -1;
		r->err = EBADF;
		return;
	}
	if (rds_srv_opt_refused(q->level, q->name)) {
		r->ret = -1;
		r->err = ENOPROTOOPT;
		return;
	}
	if (q->op == RDS_CTL_SETSOCKOPT) {
		/* After what the socket queued before: a cancel, and a
		 * free of a region its ring's RDMA_MAP made. */
		if (q->level == SOL_RDS && (q->name == RDS_CANCEL_SENT_TO ||
					    q->name == RDS_FREE_MR))
			rds_engine_call_wait(cl->engine, rds_srv_drain_call,
					     &cl->socks[q->handle]);
		/* No data with a cap: the client's value was NULL, cap
		 * its length (the call checks the length first). */
		ret = rte_rds_setsockopt(rs->id, q->level, q->name,
					 q->len != 0 ? q->data : NULL,
					 (socklen_t)(q->len != 0 ? q->len :
						     q->cap));
		r->ret = ret;
		r->err = ret < 0 ? rte_errno : 0;
		return;
	}
	len = RTE_MIN(q->cap, (uint32_t)RDS_CTL_MAX_DATA);
	ret = rte_rds_getsockopt(rs->id, q->level, q->name, r->data, &len);
	r->ret = ret;
	r->err = ret < 0 ? rte_errno : 0;
	r->len = ret < 0 ? 0 : len;
}

/* SIOCRDSSETTOS/GETTOS for a client's socket: has it sent (its own
 * sends go through the slot, not the engine socket's send path)? */
static void
rds_srv_do_ioctl(struct rds_client *cl, const struct rds_ctl_req *q,
		 struct rds_ctl_resp *r)
{
	struct rds_sock *rs = rds_srv_sock_of(cl, q->handle);
	struct rds_srv_sock *ss;
	uint8_t tos = 0;
	int ret;

	if (rs == NULL) {
		r->ret = -1;
		r->err = EBADF;
		return;
	}
	if (q->name != SIOCRDSSETTOS && q->name != SIOCRDSGETTOS) {
		r->ret = -1;
		r->err = ENOTTY;
		return;
	}
	if (q->len >= 1)
		tos = q->data[0];
	/* What the client counted as queued is there before its send
	 * returned (the engine may not have taken the request yet); in
	 * bytes: a socket that sent only empty messages counts once the
	 * engine took one. */
	ss = &cl->socks[q->handle];
	ret = rds_sock_tos(rs, (unsigned long)q->name, &tos,
			   ss->last_fcong != NULL ||
			   __atomic_load_n(&ss->cs->snd_queued,
					   __ATOMIC_ACQUIRE) != 0);
	r->ret = ret < 0 ? -1 : 0;
	r->err = ret < 0 ? -ret : 0;
	r->data[0] = tos;
	r->len = ret < 0 ? 0 : 1;
}

/* Transport counters (rte_rds_xstats_get): the name in, as many
 * counters out as the client has room for and an answer holds. */
static void
rds_srv_do_xstats(const struct rds_ctl_req *q, struct rds_ctl_resp *r)
{
	struct rte_rds_xstat xs[RDS_CTL_MAX_DATA / sizeof(struct rte_rds_xstat)];
	char name[RTE_RDS_XSTAT_NAMESIZE];
	unsigned int n = RTE_MIN(q->cap / sizeof(xs[0]),
				 (uint32_t)RTE_DIM(xs));

	if (q->len == 0 || q->len > sizeof(name) ||
	    q->data[q->len - 1] != '\0') {
		r->ret = -1;
		r->err = EINVAL;
		return;
	}
	memcpy(name, q->data, q->len);
	r->ret = rte_rds_xstats_get(name, n != 0 ? xs : NULL, n);
	r->err = r->ret < 0 ? rte_errno : 0;
	if (r->ret > 0 && n != 0) {
		r->len = (uint32_t)(RTE_MIN((unsigned int)r->ret, n) *
				    sizeof(xs[0]));
		memcpy(r->data, xs, r->len);
	}
}

static bool
rds_srv_is_info(const struct rds_ctl_req *q)
{
	return q->op == RDS_CTL_GETSOCKOPT && q->level == SOL_RDS &&
	       rds_info_name(q->name);
}

/*
 * One request of the client, if one came: answered (the answer queued;
 * it goes when the client's socket has room). 0, -EAGAIN (nothing
 * came), or -errno: the client is to be dropped.
 */
int
rds_srv_handle(struct rds_client *cl)
{
	struct rds_ctl_req *q = malloc(sizeof(*q));
	struct rds_ctl_resp *r = malloc(sizeof(*r));
	struct rds_sock *rs;
	struct sockaddr_in6 sin;
	socklen_t sl;
	int ret, out_fd = -1;
	uint32_t b;

	if (q == NULL || r == NULL) {
		free(q);
		free(r);
		return -ENOMEM;
	}
	ret = rds_srv_recv(cl, q);
	if (ret != 0)
		goto out;
	memset(r, 0, offsetof(struct rds_ctl_resp, data));
	r->op = q->op;
	r->seq = q->seq;
	rds_srv->calls++;
	switch (q->op) {
	case RDS_CTL_SOCKET:
		out_fd = rds_srv_do_socket(cl, q, r);
		break;
	case RDS_CTL_BIND:
	case RDS_CTL_CONNECT:
		rs = rds_srv_sock_of(cl, q->handle);
		if (rs == NULL) {
			r->ret = -1;
			r->err = EBADF;
			break;
		}
		r->ret = q->op == RDS_CTL_BIND ?
			rte_rds_bind(rs->id, (const struct sockaddr *)q->data,
				     (socklen_t)q->len) :
			rte_rds_connect(rs->id, (const struct sockaddr *)q->data,
					(socklen_t)q->len);
		r->err = r->ret < 0 ? rte_errno : 0;
		if (r->ret == 0 && q->op == RDS_CTL_BIND) {
			/* The port picked, for the client's getsockname. */
			sl = sizeof(sin);
			memset(&sin, 0, sizeof(sin));
			rte_rds_getsockname(rs->id, (struct sockaddr *)&sin, &sl);
			memcpy(r->data, &sin, RTE_MIN((size_t)sl, sizeof(sin)));
			r->len = RTE_MIN((uint32_t)sl, (uint32_t)sizeof(sin));
		}
		break;
	case RDS_CTL_CLOSE:
		rds_srv_do_close(cl, q, r);
		break;
	case RDS_CTL_SENDMSG:
		rds_srv_do_sendmsg(cl, q, r);
		break;
	case RDS_CTL_GETSOCKOPT:
		if (rds_srv_is_info(q)) {
			/* No socket needed (rte_rds_info): handle -1. */
			if (q->handle != -1 &&
			    rds_srv_sock_of(cl, q->handle) == NULL) {
				r->ret = -1;
				r->err = EBADF;
				break;
			}
			ret = rds_srv_do_info(cl, q, r);
			goto out;
		}
		/* fall through */
	case RDS_CTL_SETSOCKOPT:
		rds_srv_do_opt(cl, q, r);
		break;
	case RDS_CTL_BELL:
		b = __atomic_load_n(&cl->nb_bells, __ATOMIC_ACQUIRE);
		if (b == RDS_SRV_BELLS) {
			r->ret = -1;
			r->err = EMFILE;
			break;
		}
		/* The engine finds the ring from the count. */
		__atomic_store_n(&cl->nb_bells, b + 1, __ATOMIC_RELEASE);
		r->ret = (int32_t)b;
		break;
	case RDS_CTL_STATS:
		if (q->cap < sizeof(struct rte_rds_stats)) {
			r->ret = -1;
			r->err = EINVAL;
			break;
		}
		r->ret = rte_rds_stats_get(q->handle, (void *)r->data);
		r->err = r->ret < 0 ? rte_errno : 0;
		r->len = r->ret < 0 ? 0 : sizeof(struct rte_rds_stats);
		break;
	case RDS_CTL_XSTATS:
		rds_srv_do_xstats(q, r);
		break;
	case RDS_CTL_IOCTL:
		rds_srv_do_ioctl(cl, q, r);
		break;
	default:
		rds_srv->calls--;
		rds_client_violation(cl, "unknown call");
		ret = -EPROTO;
		goto out;
	}
	ret = rds_srv_queue(cl, r, out_fd, NULL, 0);
out:
	free(q);
	free(r);
	return ret;
}

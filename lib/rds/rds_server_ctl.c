/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Serving other processes, the control plane's calls (rds_server.c has
 * the whole picture): the messages on a client's UNIX socket, and the
 * calls they carry (socket, close, sendmsg, options, xstats), made on
 * the library for the client on sockets of the engine's own. Runs on
 * the thread of rte_rds_server_poll().
 */
#include <errno.h>
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
/* Control plane (the thread of rte_rds_server_poll) */

int
rds_srv_send(int fd, const struct rds_ctl_resp *r, int pass_fd)
{
	return rds_ctl_send(fd, r, offsetof(struct rds_ctl_resp, data) + r->len,
			    pass_fd);
}

/* A received message's passed fd (SCM_RIGHTS), or -1. */
static int
rds_srv_recv(int fd, struct rds_ctl_req *q, int *pass_fd)
{
	ssize_t n = rds_ctl_recv(fd, q, sizeof(*q), pass_fd);

	if (n < 0)
		return (int)n;
	if ((size_t)n < offsetof(struct rds_ctl_req, data) ||
	    q->len > RDS_CTL_MAX_DATA ||
	    (size_t)n != offsetof(struct rds_ctl_req, data) + q->len) {
		if (*pass_fd >= 0)
			close(*pass_fd);
		*pass_fd = -1;
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

static void
rds_srv_do_socket(struct rds_client *cl, const struct rds_ctl_req *q,
		  struct rds_ctl_resp *r, int efd)
{
	struct rds_srv_sock *ss;
	struct rds_slot *sl;
	struct rds_sock *rs;
	int32_t idx = q->handle;
	int s;

	if (idx < 0 || (uint32_t)idx >= RDS_SRV_SOCKS || efd < 0 ||
	    cl->socks[idx].rs != NULL) {
		r->ret = -1;
		r->err = EINVAL;
		if (efd >= 0)
			close(efd);
		return;
	}
	s = rte_rds_socket();
	if (s < 0) {
		r->ret = -1;
		r->err = rte_errno;
		close(efd);
		return;
	}
	sl = rds_slot_of(s);
	rs = sl->body;
	ss = &cl->socks[idx];
	ss->gen++;
	if (ss->efd >= 0)
		close(ss->efd);
	ss->efd = efd;
	ss->cs = (void *)(cl->base + cl->lay.socks_off +
			  sizeof(struct rds_csock) * (uint32_t)idx);
	ss->last_fcong = NULL;
	ss->throttled = false;
	rds_xring_end_init(&ss->req,
		(void *)(cl->base + rds_region_csock_ring(&cl->lay, idx, 0)),
		RDS_CSOCK_REQ_RING, false);
	rds_xring_end_init(&ss->rx,
		(void *)(cl->base + rds_region_csock_ring(&cl->lay, idx, 1)),
		RDS_CSOCK_RX_RING, true);
	rds_xring_end_init(&ss->nt,
		(void *)(cl->base + rds_region_csock_ring(&cl->lay, idx, 2)),
		RDS_CSOCK_NT_RING, true);
	__atomic_store_n(&ss->cs->snd_released, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&ss->cs->closed, 0, __ATOMIC_RELAXED);
	rs->client = cl;
	rs->client_sock = ss;
	rs->mem_pid = cl->pid;
	rs->home = (int32_t)cl->engine;
	__atomic_store_n(&ss->rs, rs, __ATOMIC_RELEASE);
	r->ret = s;
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
	/* What it queued before the close goes first. */
	rds_engine_call_wait(cl->engine, rds_srv_drain_call, ss);
	__atomic_store_n(&ss->rs, NULL, __ATOMIC_RELEASE);
	r->ret = rte_rds_close(rs->id);
	r->err = r->ret < 0 ? rte_errno : 0;
	/* What was kept for it, in order: no one takes it now. */
	rte_spinlock_lock(&cl->rx_lock);
	if (ss->on_ovf) {
		TAILQ_REMOVE(&cl->ovf_socks, ss, ovf_link);
		ss->on_ovf = false;
	}
	rte_spinlock_unlock(&cl->rx_lock);
	rds_srv_sock_flush(ss);
	__atomic_store_n(&ss->cs->closed, 1, __ATOMIC_RELEASE);
}

/* A send of the client's made by the control thread: queued by its
 * engine after what the socket's ring holds. */
struct rds_srv_send {
	struct rds_srv_sock *ss;
	struct rds_msg *m;
};

static void
rds_srv_send_call(struct rds_engine *e, void *arg)
{
	struct rds_srv_send *sd = arg;
	struct rds_sock *rs = sd->ss->rs;

	if (rs != NULL && rs->client != NULL)
		rds_srv_drain(e, rs->client, sd->ss);
	rds_send_request(e, sd->ss->rs != NULL ? sd->ss->rs : rs, sd->m);
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
	struct sockaddr_in sin;
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
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = cs.addr;
	sin.sin_port = htons(cs.port);
	iov.iov_base = cl->base + cs.off + RDS_CBUF_HDR;
	iov.iov_len = cs.len;
	memset(&mh, 0, sizeof(mh));
	if (cs.addr != 0) {
		mh.msg_name = &sin;
		mh.msg_namelen = sizeof(sin);
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
	sd.m = m;
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

/* Data to write back into the client's memory (RDS_INFO records). */
static int
rds_srv_write_client(struct rds_client *cl, uint64_t addr, const void *p,
		     size_t len)
{
	struct iovec local = { .iov_base = (void *)(uintptr_t)p,
			       .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr,
				.iov_len = len };

	if (len == 0)
		return 0;
	return process_vm_writev(cl->pid, &local, 1, &remote, 1, 0) ==
	       (ssize_t)len ? 0 : -EFAULT;
}

static void
rds_srv_do_opt(struct rds_client *cl, const struct rds_ctl_req *q,
	       struct rds_ctl_resp *r)
{
	struct rds_sock *rs = rds_srv_sock_of(cl, q->handle);
	bool info = q->op == RDS_CTL_GETSOCKOPT && q->level == SOL_RDS &&
		    q->name >= RDS_INFO_FIRST && q->name <= RDS_INFO_LAST;
	socklen_t len;
	uint64_t uaddr = 0;
	void *buf;
	int ret;

	/* RDS_INFO needs no socket of the caller's (rte_rds_info). */
	if (rs == NULL && !(info && q->handle == -1)) {
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
		if (q->level == SOL_RDS && q->name == RDS_CANCEL_SENT_TO)
			rds_engine_call_wait(cl->engine, rds_srv_drain_call,
					     &cl->socks[q->handle]);
		ret = rte_rds_setsockopt(rs->id, q->level, q->name,
					 q->len != 0 ? q->data : NULL,
					 (socklen_t)q->len);
		r->ret = ret;
		r->err = ret < 0 ? rte_errno : 0;
		return;
	}
	/* getsockopt: RDS_INFO records go straight into the client's buffer
	 * (its address in the request), the rest in the answer. */
	if (info) {
		if (q->len != sizeof(uaddr)) {
			r->ret = -1;
			r->err = EINVAL;
			return;
		}
		memcpy(&uaddr, q->data, sizeof(uaddr));
		len = q->cap;
		buf = len != 0 ? malloc(len) : NULL;
		if (len != 0 && buf == NULL) {
			r->ret = -1;
			r->err = ENOMEM;
			return;
		}
		ret = rte_rds_info(q->name, buf, &len);
		r->ret = ret;
		r->err = ret < 0 ? rte_errno : 0;
		r->need = len;
		if (ret >= 0 && uaddr != 0 &&
		    rds_srv_write_client(cl, uaddr, buf, len) != 0) {
			r->ret = -1;
			r->err = EFAULT;
		}
		free(buf);
		return;
	}
	len = RTE_MIN(q->cap, (uint32_t)RDS_CTL_MAX_DATA);
	ret = rte_rds_getsockopt(rs->id, q->level, q->name, r->data, &len);
	r->ret = ret;
	r->err = ret < 0 ? rte_errno : 0;
	r->len = ret < 0 ? 0 : len;
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

int
rds_srv_handle(struct rds_client *cl)
{
	struct rds_ctl_req *q = malloc(sizeof(*q));
	struct rds_ctl_resp *r = malloc(sizeof(*r));
	struct rds_sock *rs;
	struct sockaddr_in sin;
	socklen_t sl;
	int pass = -1, ret, out_fd = -1;
	uint32_t b;

	if (q == NULL || r == NULL) {
		free(q);
		free(r);
		return -ENOMEM;
	}
	ret = rds_srv_recv(cl->fd, q, &pass);
	if (ret != 0)
		goto out;
	memset(r, 0, offsetof(struct rds_ctl_resp, data));
	r->op = q->op;
	r->seq = q->seq;
	switch (q->op) {
	case RDS_CTL_SOCKET:
		rds_srv_do_socket(cl, q, r, pass);
		pass = -1;
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
			rte_rds_getsockname(rs->id, (struct sockaddr *)&sin, &sl);
			memcpy(r->data, &sin, sizeof(sin));
			r->len = sizeof(sin);
		}
		break;
	case RDS_CTL_CLOSE:
		rds_srv_do_close(cl, q, r);
		break;
	case RDS_CTL_SENDMSG:
		rds_srv_do_sendmsg(cl, q, r);
		break;
	case RDS_CTL_SETSOCKOPT:
	case RDS_CTL_GETSOCKOPT:
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
	default:
		rds_client_violation(cl, "unknown call");
		ret = -EPROTO;
		goto out;
	}
	rds_srv->calls++;
	ret = rds_srv_send(cl->fd, r, out_fd);
out:
	if (pass >= 0)
		close(pass);
	free(q);
	free(r);
	return ret;
}

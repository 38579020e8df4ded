/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An attached process, the data path (rds_client.c has the whole
 * picture): sending (a TX buffer of the region, the request ring, this
 * thread's doorbell) and receiving (an RX buffer out of the socket's
 * ring, copied and given back; notifications). Waiting on a socket is
 * rds_client_wait.c's.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <linux/sockios.h>


#include "rds_client_private.h"
#include "rds_recv_out.h"
#include "rte_rds_attach.h"

/* This thread's doorbell ring. */
struct rds_cl_thread {
	uint32_t epoch;
	int32_t bell;
	struct rds_xring_end end;
};

static __thread struct rds_cl_thread rds_cl_self
	__attribute__((tls_model("initial-exec")));

/* ------------------------------------------------------------------ */
/* Sending */

/* This thread's doorbell, asked for on its first ring. */
int
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

/* The transport choice of every send (rds_front.h), for its errno: the
 * engine makes it again for the message. dst: the destination (of the
 * socket's family). *rdma: what the chosen transport does with this
 * client's operations (RDS_REGION_LADDR_RDMA, _MASKED; 0: not known
 * here, a pinned transport). */
static int
rds_cl_trans(const struct rds_cl *cl, const struct rds_cl_sock *cs,
	     const struct in6_addr *dst, uint32_t *rdma)
{
	const struct in6_addr *bound = &cs->f.bound_addr;
	uint32_t i, bflags = 0;
	bool local = false;
	uint8_t trans_id;
	int ret;

	for (i = 0; i < cl->hdr->nb_laddrs && i < RDS_REGION_MAX_LADDRS; i++) {
		if (rds_addr_eq(&cl->hdr->laddr[i].a, dst))
			local = true;
		if (rds_addr_eq(&cl->hdr->laddr[i].a, bound))
			bflags = cl->hdr->laddr[i].flags;
	}
	*rdma = 0;
	ret = rds_front_trans(&cs->f, rds_addr_eq(dst, bound), local,
			      &trans_id);
	if (ret > 0) {
		*rdma = bflags;
		ret = rds_front_trans_bound(RDS_TRANS_NONE,
					    bflags & RDS_REGION_LADDR_LOOPBACK,
					    &trans_id);
	} else if (trans_id == RTE_RDS_TRANS_LOOP) {
		*rdma = cl->hdr->loop_flags;
	}
	/* The engine refuses an operation on a client's memory when the
	 * bound address's transport would need it registered with a NIC. */
	if (!(bflags & RDS_REGION_LADDR_RDMA))
		*rdma = 0;
	return ret;
}

/* A send got its TX buffer: POLLOUT no longer waits for one. */
static inline void
rds_cl_txb_got(struct rds_cl_sock *cs)
{
	if (unlikely(__atomic_load_n(&cs->txb_need, __ATOMIC_RELAXED) != 0))
		__atomic_store_n(&cs->txb_need, 0, __ATOMIC_RELEASE);
}

/* A send with RDMA control messages: the payload in a TX buffer, the
 * call through the UNIX socket (RDS_CTL_SENDMSG). */
static ssize_t
rds_cl_sendmsg_ctl(struct rds_cl *cl, struct rds_cl_sock *cs,
		   const struct msghdr *msg, int flags, size_t len)
{
	struct rds_ctl_req *q;
	struct rds_ctl_resp *r;
	struct rds_ctl_send sd;
	uint64_t deadline = 0, spin = 0, off;
	int ret;

	if (msg->msg_controllen > RDS_CTL_MAX_DATA - sizeof(sd))
		return -EINVAL;
	if (!(flags & MSG_DONTWAIT))
		deadline = rds_cl_deadline(cs->f.sndtimeo_ns);
	while (rds_cl_tx_alloc(cl, RDS_CBUF_HDR + (uint32_t)len, &off) != 0) {
		if (flags & MSG_DONTWAIT) {
			if (rds_cl_snd_room(cs))
				__atomic_store_n(&cs->txb_need, RDS_CBUF_HDR +
						 (uint32_t)len,
						 __ATOMIC_RELEASE);
			return -EAGAIN;
		}
		ret = rds_cl_wait(cl, cs, POLLOUT, rds_cl_snd_room(cs) ?
				  RDS_CBUF_HDR + (uint32_t)len : 0, deadline,
				  &spin);
		if (ret < 0)
			return ret;
	}
	rds_cl_txb_got(cs);
	rds_front_copy_in(cl->base + off + RDS_CBUF_HDR, msg, len);
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
	/* The name as given (the front half took it; the engine's
	 * sendmsg checks it again). */
	if (msg->msg_name != NULL && msg->msg_namelen != 0) {
		sd.namelen = RTE_MIN((uint32_t)msg->msg_namelen,
				     (uint32_t)sizeof(sd.name));
		memcpy(&sd.name, msg->msg_name, sd.namelen);
	}
	memcpy(q->data, &sd, sizeof(sd));
	memcpy(q->data + sizeof(sd), msg->msg_control, msg->msg_controllen);
	q->len = (uint32_t)(sizeof(sd) + msg->msg_controllen);
	for (;;) {
		/* After what this socket's ring holds (the engine drains it
		 * first), before what comes after. */
		rte_spinlock_lock(&cs->lock);
		/* Accounted before the engine queues it (as above). */
		__atomic_fetch_add(&cs->cs->snd_queued, len, __ATOMIC_RELEASE);
		ret = rds_cl_call(cl, q, r, -1, NULL);
		if (ret < 0)
			__atomic_fetch_sub(&cs->cs->snd_queued, len,
					   __ATOMIC_RELEASE);
		rte_spinlock_unlock(&cs->lock);
		if (ret != -EAGAIN || (flags & MSG_DONTWAIT))
			break;
		ret = rds_cl_wait(cl, cs, POLLOUT, 0, deadline, &spin);
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

/* An operation into its TX buffer, after the payload (at p): its
 * control messages, its vector (vec_n entries) and a WRITE's data (wlen
 * bytes, gathered along the copy of the vector, never past wlen). */
static void
rds_cl_op_copy(uint8_t *p, const struct msghdr *msg, uint32_t ctl_len,
	       const struct rds_iovec *vec, uint32_t vec_n, uint32_t wlen)
{
	struct rds_iovec v;
	uint64_t off = 0, n;
	uint32_t i;

	memcpy(p, msg->msg_control, ctl_len);
	p += ctl_len;
	if (vec_n != 0)
		memcpy(p, vec, sizeof(*vec) * vec_n);
	for (i = 0; i < vec_n && off < wlen; i++) {
		memcpy(&v, p + sizeof(v) * i, sizeof(v));
		n = RTE_MIN(v.bytes, wlen - off);
		memcpy(p + sizeof(v) * vec_n + off,
		       (const void *)(uintptr_t)v.addr, n);
		off += n;
	}
}

static ssize_t
rds_cl_sendmsg(struct rds_cl *cl, struct rds_cl_sock *cs,
	       const struct msghdr *msg, int flags)
{
	struct in6_addr faddr;
	struct rds_cbuf *b;
	uint64_t deadline = 0, spin = 0, off;
	const struct rds_iovec *vec = NULL;
	uint32_t rdma, ctl_len = 0, vec_n = 0, wlen = 0, key = 0, need;
	bool room;
	uint64_t wbytes = 0, dest = 0, coff = 0;
	struct rds_get_mr_args map;
	bool mapping = false;
	unsigned int what, kinds;
	uint16_t dport;
	ssize_t slen;
	size_t len;
	int ret;

	/* An earlier message the engine could not keep: said here. */
	ret = rds_front_snd_err(&cs->cs->snd_err);
	if (unlikely(ret < 0))
		return ret;
	/* The front half's checks (rds_front.h): the destination is of
	 * the socket's family. */
	slen = rds_front_send_check(&cs->f, msg, flags, &faddr, &dport);
	if (unlikely(slen < 0))
		return slen;
	len = (size_t)slen;
	ret = rds_cl_trans(cl, cs, &faddr, &rdma);
	if (ret < 0)
		return ret;
	/*
	 * Control messages of ours (RDMA): checked here as the engine
	 * would, in this process's memory, for the call's errno
	 * (rds_rdma_cmsgs_client; the walk is in-process's: ENOBUFS over
	 * INT_MAX, EFAULT without a buffer, EINVAL for a header out of
	 * bounds, never a read past msg_controllen); other levels are
	 * ignored, as the kernel does. One operation on a transport that
	 * takes this client's operations goes with the message through
	 * the ring (the engine checks it again: rds_server_rdma.c); so
	 * does an RDMA_MAP with a key of the socket's key ring, and an
	 * RDMA_DEST of a region such a map made (rds_client_rdma.c). Any
	 * other cookie (the engine's registrations), or a transport not
	 * known here, is made by the engine in a call.
	 */
	if (unlikely(msg->msg_controllen != 0)) {
		ret = rds_rdma_cmsgs_client(msg, &what, &vec, &vec_n, &wbytes,
					    &map, &dest);
		if (ret < 0)
			return ret;
		kinds = what;
		if (what != 0 && !(what & RDS_RDMA_C_MAP) &&
		    (what & RDS_RDMA_C_COOKIE) &&
		    rds_cl_key_live(cs, (uint32_t)dest))
			what &= ~RDS_RDMA_C_COOKIE;	/* a region of ours */
		if ((what & RDS_RDMA_C_MAP) && (rdma & RDS_REGION_LADDR_RDMA) &&
		    rds_cl_key_avail(cs)) {
			/* The engine's errno, found here (not after a wait
			 * for room, as in-process). */
			ret = rds_rdma_map_check(&map, &coff);
			if (ret < 0)
				return ret;
			mapping = true;
			what &= ~(RDS_RDMA_C_COOKIE | RDS_RDMA_C_MAP);
		}
		if (what != 0 &&
		    ((what & RDS_RDMA_C_COOKIE) ||
		     !(rdma & RDS_REGION_LADDR_RDMA) ||
		     ((what & RDS_RDMA_C_MASKED) &&
		      !(rdma & RDS_REGION_LADDR_MASKED)) ||
		     msg->msg_controllen > RDS_CBUF_CTL_MAX ||
		     vec_n > RDS_CBUF_VEC_MAX))
			return rds_cl_sendmsg_ctl(cl, cs, msg, flags, len);
		/* The operation goes with its vector as it is now (the
		 * kernel copies it in the call), and a WRITE with its data
		 * as it is now (an in-process WRITE's is copied in the
		 * call too) where one buffer takes it all. */
		if (kinds != 0) {
			ctl_len = (uint32_t)msg->msg_controllen;
			if (wbytes != 0 && RDS_CBUF_HDR + len + ctl_len +
			    vec_n * sizeof(*vec) + wbytes <=
			    rds_region_class_size[RDS_REGION_NB_CLASSES - 1])
				wlen = (uint32_t)wbytes;
		} else {
			vec_n = 0;
		}
	}
	if (!(flags & MSG_DONTWAIT))
		deadline = rds_cl_deadline(cs->f.sndtimeo_ns);
	/* Send buffer: the last message may overshoot the limit. Room
	 * there and no TX buffer: the sender waits for one to come back
	 * (the engine wakes it: RDS_ARM_TXB), not for the send buffer,
	 * which has room already (a wait for POLLOUT would return at once,
	 * and the sender would spin on the core the engine may need). */
	need = RDS_CBUF_HDR + (uint32_t)len + ctl_len +
	       vec_n * (uint32_t)sizeof(*vec) + wlen;
	for (;;) {
		room = rds_cl_snd_room(cs);
		if (room && rds_cl_tx_alloc(cl, need, &off) == 0)
			break;
		if (flags & MSG_DONTWAIT) {
			if (room)
				__atomic_store_n(&cs->txb_need, need,
						 __ATOMIC_RELEASE);
			return -EAGAIN;
		}
		ret = rds_cl_wait(cl, cs, POLLOUT, room ? need : 0, deadline,
				  &spin);
		if (ret < 0)
			return ret;
	}
	rds_cl_txb_got(cs);
	if (mapping && rds_cl_map_take(cs, &map, coff, &key) != 0) {
		/* Another thread took the last key meanwhile. */
		rds_cl_tx_unalloc(cl, off);
		return rds_cl_sendmsg_ctl(cl, cs, msg, flags, len);
	}
	b = (void *)(cl->base + off);
	b->len = (uint32_t)len;
	b->ctl_len = ctl_len;
	if (likely(rds_addr_is_v4(&faddr))) {
		b->addr = rds_addr_v4(&faddr);
		b->fam = 0;
	} else {
		b->addr = 0;
		b->addr6 = faddr;
		b->fam = RDS_CBUF_FAM6;
	}
	b->port = dport;
	b->flags = ((flags & MSG_DONTWAIT) ? RDS_CBUF_F_DONTWAIT : 0) |
		   (wlen != 0 ? RDS_CBUF_F_WDATA : 0) |
		   (mapping ? RDS_CBUF_F_MAP : 0);
	b->rdma_dest = key;
	b->csock = (int32_t)(cs - cl->socks);
	rds_front_copy_in((uint8_t *)b + RDS_CBUF_HDR, msg, len);
	b->vec_n = vec_n;
	if (ctl_len != 0)
		rds_cl_op_copy((uint8_t *)b + RDS_CBUF_HDR + len, msg,
			       ctl_len, vec, vec_n, wlen);
	rte_spinlock_lock(&cs->lock);
	for (;;) {
		/* Accounted before the engine can see it (and release it):
		 * the send buffer holds it from here, as a local socket's
		 * sendmsg counts it before queueing. */
		__atomic_fetch_add(&cs->cs->snd_queued, len, __ATOMIC_RELEASE);
		if (rds_xring_put(&cs->req, off) == 0)
			break;
		__atomic_fetch_sub(&cs->cs->snd_queued, len, __ATOMIC_RELEASE);
		rte_spinlock_unlock(&cs->lock);
		ret = (flags & MSG_DONTWAIT) ? -EAGAIN :
		      rds_cl_wait(cl, cs, POLLOUT, 0, deadline, &spin);
		if (ret < 0) {
			rds_cl_tx_unalloc(cl, off);
			if (mapping)
				rds_cl_map_untake(cs, key);
			return ret;
		}
		rte_spinlock_lock(&cs->lock);
	}
	rte_spinlock_unlock(&cs->lock);
	if (mapping)
		rds_cl_map_done(cs, &map, key);
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

/* rds_recv_out_notify's view of the nt ring (token, status pairs).
 * Under rlock. */
static bool
rds_cl_notify_take(void *arg, struct rds_rdma_notify *n, bool take)
{
	struct rds_cl_sock *cs = arg;
	uint64_t tok, st;

	if (rds_xring_count(&cs->nt) < 2)
		return false;
	if (!take)
		return true;
	if (rds_xring_get(&cs->nt, &tok) <= 0 ||
	    rds_xring_get(&cs->nt, &st) <= 0)
		return false;
	n->user_token = tok;
	n->status = (int32_t)(uint32_t)st;
	return true;
}

static ssize_t
rds_cl_recvmsg(struct rds_cl *cl, struct rds_cl_sock *cs, struct msghdr *msg,
	       int flags)
{
	const struct rds_cbuf *b;
	const struct in6_addr *src6;
	uint64_t deadline = 0, spin = 0, off = 0;
	struct in6_addr a6;
	uint32_t scope = 0;
	ssize_t ret;
	int r;

	r = rds_front_recv_check(msg, flags);
	if (r != 0)
		return r > 0 ? 0 : r;
	if (!(flags & MSG_DONTWAIT))
		deadline = rds_cl_deadline(cs->f.rcvtimeo_ns);
	rte_spinlock_lock(&cs->rlock);
	for (;;) {
		if (unlikely(rds_xring_count(&cs->nt) >= 2)) {
			/* RDMA notifications first, as a local socket. */
			rds_recv_out_notify(msg, flags & MSG_PEEK,
					    rds_cl_notify_take, cs);
			rte_spinlock_unlock(&cs->rlock);
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
		r = rds_cl_wait(cl, cs, POLLIN, 0, deadline, &spin);
		if (r < 0)
			return r;
		rte_spinlock_lock(&cs->rlock);
	}
	if (off >= cl->size || cl->size - off < RDS_CBUF_HDR) {
		rte_spinlock_unlock(&cs->rlock);
		return -EIO;	/* not from a sane engine */
	}
	b = (const void *)(cl->base + off);
	/* The source as the engine wrote it: an IPv6 one (to an IPv6
	 * socket) with the socket's scope, as in-process recvmsg. */
	src6 = NULL;
	if (unlikely(b->fam == RDS_CBUF_FAM6)) {
		memcpy(&a6, &b->addr6, sizeof(a6));
		src6 = &a6;
		scope = cs->f.bound_scope;
	}
	ret = rds_recv_out_msg(msg, flags, (const uint8_t *)b + RDS_CBUF_HDR,
			       b->len, b->addr, b->port,
			       (b->flags & RDS_CBUF_F_DEST) != 0,
			       b->rdma_dest,
			       ((b->flags & RDS_CBUF_F_TS_NEW) ? RDS_TS_NEW :
				(b->flags & RDS_CBUF_F_TS_OLD) ? RDS_TS_OLD :
				0) |
			       ((b->flags & RDS_CBUF_F_TRACE) ? RDS_TS_TRACE :
				0),
			       b->rx_tstamp, &b->rx_trace, src6, scope);
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
/* The socket's queues (rte_rds_ioctl) */

/* The bytes of the socket's send buffer: every message a send returned
 * for (in the socket's ring, or taken by the engine) not yet released
 * by an ACK, a cancel or a drop. A sender's add may come a moment after
 * the engine released it: never below 0. */
static int
rds_cl_outq(const struct rds_cl_sock *cs)
{
	return rds_front_outq((int64_t)(__atomic_load_n(&cs->cs->snd_queued,
							__ATOMIC_ACQUIRE) -
					__atomic_load_n(&cs->cs->snd_released,
							__ATOMIC_ACQUIRE)));
}

int
rds_client_ioctl(int s, unsigned long request, int *val)
{
	struct rds_cl *cl = rds_cl;
	struct rds_cl_sock *cs = rds_cl_hold(cl, s);
	struct msghdr msg;
	int ret = 0;

	if (cs == NULL)
		return RDS_ERR(EBADF);
	if (val == NULL) {
		ret = -EFAULT;
	} else if (rds_cl_engine_gone(cl)) {
		ret = -ECONNRESET;
	} else if (request == SIOCOUTQ) {
		*val = rds_cl_outq(cs);
	} else if (request == SIOCRDSSETTOS || request == SIOCRDSGETTOS) {
		uint8_t *tos = (uint8_t *)val;
		uint32_t len = 1;

		ret = rds_cl_simple(cl, RDS_CTL_IOCTL, cs->handle, 0,
				    (int)request, tos, 1, tos, &len);
	} else if (request == SIOCINQ) {
		memset(&msg, 0, sizeof(msg));
		ret = rds_front_inq(rds_cl_recvmsg(cl, cs, &msg, MSG_DONTWAIT |
						   MSG_PEEK | MSG_TRUNC), val);
	} else {
		ret = -ENOTTY;
	}
	rds_cl_put(cs);
	return ret < 0 ? RDS_ERR(-ret) : 0;
}

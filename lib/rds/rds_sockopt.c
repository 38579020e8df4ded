/* SPDX-License-Identifier: BSD-3-Clause */
/* Socket options (net/rds/af_rds.c and the socket core). */
#include <errno.h>
#include <linux/sockios.h>
#include <limits.h>
#include <sys/time.h>

#include "rds_private.h"

static int
rds_opt_int(const void *optval, socklen_t optlen, int *v)
{
	int ret = rds_uarg_optval(optval, optlen, sizeof(int), false);

	if (ret == 0)
		memcpy(v, optval, sizeof(int));
	return ret;
}

/* RDS_CANCEL_SENT_TO: queue the request after the socket's messages and
 * wait until every engine that may hold some dropped them. */
static int
rds_cancel_sent_to(struct rds_sock *rs, const void *optval, socklen_t optlen)
{
	const struct sockaddr_in *sin = optval;
	struct rds_msg *req;
	int ret;

	if (!rs->f.bound)
		return -ENOTCONN;
	if (optval != NULL && optlen != 0 && optlen < sizeof(*sin))
		return -EINVAL;
	req = rds_msg_alloc(0);
	if (req == NULL)
		return -ENOMEM;
	req->type = RDS_MSG_CANCEL;
	memset(&req->faddr, 0, sizeof(req->faddr));
	req->sock = rs->id;
	req->sock_gen = rs->gen;
	req->laddr = rs->f.bound_addr;
	req->all = 1;
	if (optval != NULL && optlen != 0) {
		rds_addr_from_v4(&req->faddr, sin->sin_addr.s_addr);
		req->dport = ntohs(sin->sin_port);
		req->all = 0;
	}
	ret = rds_sock_request_wait(rs, req);
	rds_msg_free(req);
	return ret;
}

static int
rds_set_transport(struct rds_sock *rs, const void *optval, socklen_t optlen)
{
	int t, ret;

	/* Already attached (bound, or pinned before): as the kernel. */
	if (rs->f.bound || rs->f.trans_pinned != (uint32_t)RDS_TRANS_NONE)
		return -EOPNOTSUPP;
	ret = rds_uarg_optval(optval, optlen, sizeof(int), true);
	if (ret != 0)
		return ret;
	memcpy(&t, optval, sizeof(t));
	if (t < 0 || t > RTE_RDS_TRANS_ETH)
		return -EINVAL;
	if (rds_transport_by_id((uint32_t)t) == NULL)
		return -ENOPROTOOPT;
	rs->f.trans_pinned = (uint32_t)t;
	return 0;
}

/* The socket layer's generic boolean options (sock_setsockopt in the
 * kernel's net/core/sock.c, which takes them for any socket, RDS's
 * included, before RDS sees the call): kept so that getsockopt returns
 * them; none changes what RDS does (rds-stress sets SO_REUSEADDR). */
static uint32_t
rds_so_flag(int optname)
{
	switch (optname) {
	case SO_REUSEADDR:
		return 1u << 0;
	case SO_REUSEPORT:
		return 1u << 1;
	case SO_KEEPALIVE:
		return 1u << 2;
	case SO_BROADCAST:
		return 1u << 3;
	case SO_DONTROUTE:
		return 1u << 4;
	case SO_OOBINLINE:
		return 1u << 5;
	case SO_DEBUG:
		return 1u << 6;
	default:
		return 0;
	}
}

/*
 * SO_TIMESTAMP_OLD/NEW (net/core/sock.c sock_set_timestamp; net/rds
 * af_rds.c takes them at SOL_RDS too): on, the arrival time of each
 * message as a control message of that type (SO_TIMESTAMP_NEW: struct
 * __kernel_sock_timeval); off, none.
 */
static int
rds_set_tstamp(struct rds_sock *rs, int optname, const void *optval,
	       socklen_t optlen, bool sol_rds)
{
	uint32_t f;
	int v, ret;

	if (sol_rds) {
		/* net/rds: anything but an int is EFAULT. */
		if (optlen != sizeof(int))
			return -EFAULT;
		if (optval == NULL)
			return -EFAULT;
		memcpy(&v, optval, sizeof(v));
	} else {
		ret = rds_opt_int(optval, optlen, &v);
		if (ret != 0)
			return ret;
	}
	rte_spinlock_lock(&rs->lock);
	f = rs->so_flags;
	if (v != 0) {
		f |= RDS_SO_F_RCVTSTAMP;
		if (optname == SO_TIMESTAMP_NEW)
			f |= RDS_SO_F_TSTAMP_NEW;
		else
			f &= ~RDS_SO_F_TSTAMP_NEW;
	} else {
		f &= ~RDS_SO_F_RCVTSTAMP;
	}
	__atomic_store_n(&rs->so_flags, f, __ATOMIC_RELAXED);
	rte_spinlock_unlock(&rs->lock);
	return 0;
}

/*
 * SO_RDS_MSG_RXPATH_LATENCY (net/rds/af_rds.c rds_recv_track_latency):
 * a struct rds_rx_trace_so exactly, at most RDS_MSG_RX_DGRAM_TRACE_MAX
 * positions each below it, else EFAULT (a bad position also turns the
 * traces off, as the kernel's loop leaves rs_rx_traces at 0); 0
 * positions turn them off. Messages delivered from now on carry
 * RDS_CMSG_RXPATH_LATENCY.
 */
static int
rds_set_rx_trace(struct rds_sock *rs, const void *optval, socklen_t optlen)
{
	struct rds_rx_trace_so t;
	unsigned int i;
	uint32_t w;
	int ret = 0;

	if (optlen != sizeof(t) || optval == NULL)
		return -EFAULT;
	memcpy(&t, optval, sizeof(t));
	if (t.rx_traces > RDS_MSG_RX_DGRAM_TRACE_MAX)
		return -EFAULT;
	w = t.rx_traces;
	for (i = 0; i < t.rx_traces; i++) {
		if (t.rx_trace_pos[i] >= RDS_MSG_RX_DGRAM_TRACE_MAX) {
			w = 0;
			ret = -EFAULT;
			break;
		}
		w |= (uint32_t)t.rx_trace_pos[i] << (8 * (i + 1));
	}
	rte_spinlock_lock(&rs->lock);
	__atomic_store_n(&rs->rx_trace, w, __ATOMIC_RELAXED);
	if (w != 0)
		__atomic_fetch_or(&rs->so_flags, RDS_SO_F_RXTRACE,
				  __ATOMIC_RELAXED);
	else
		__atomic_fetch_and(&rs->so_flags, ~RDS_SO_F_RXTRACE,
				   __ATOMIC_RELAXED);
	rte_spinlock_unlock(&rs->lock);
	return ret;
}

/*
 * SIOCRDSSETTOS and SIOCRDSGETTOS (net/rds/af_rds.c rds_ioctl), the
 * argument an rds_tos_t. Setting needs a transport that maps a TOS
 * (the socket bound, or pinned with SO_RDS_TRANSPORT), else ENOTTY (the
 * kernel's ENOIOCTLCMD), and is EINVAL once a TOS is set or the socket
 * has sent (the kernel's rs_conn, set by the first send). eth and loop
 * map every TOS to 0 as the kernel's rds_tcp does (rds_tcp_get_tos_map):
 * one connection per peer; tcp is rds_tcp. ib maps 1:1 in the kernel, with a connection
 * (an RC QP and its service level) per TOS: not built here, ENOTTY, as
 * the kernel answers for a transport without a map. Getting needs no
 * transport.
 */
int
rds_sock_tos(struct rds_sock *rs, unsigned long request, uint8_t *arg,
	     bool sent)
{
	uint32_t t;
	int ret = 0;

	if (request == SIOCRDSGETTOS) {
		rte_spinlock_lock(&rs->lock);
		*arg = rs->tos;
		rte_spinlock_unlock(&rs->lock);
		return 0;
	}
	rte_spinlock_lock(&rs->lock);
	t = rs->f.trans_pinned;
	if (t == (uint32_t)RDS_TRANS_NONE && rs->f.bound)
		t = rs->la->trans->trans_id;
	if (t != (uint32_t)RTE_RDS_TRANS_ETH && t != RTE_RDS_TRANS_LOOP &&
	    t != RDS_TRANS_TCP)
		ret = -ENOTTY;	/* none yet, or ib */
	else if (rs->tos != 0 || sent)
		ret = -EINVAL;
	else
		rs->tos = 0;	/* *arg mapped, as rds_tcp_get_tos_map */
	rte_spinlock_unlock(&rs->lock);
	return ret;
}

static int
rds_setsockopt(struct rds_sock *rs, int level, int optname,
	       const void *optval, socklen_t optlen)
{
	uint64_t ns;
	int v, ret = -ENOPROTOOPT;

	if (level == SOL_SOCKET) {
		switch (optname) {
		case SO_SNDBUF:
		case SO_RCVBUF:
		case SO_SNDBUFFORCE:
		case SO_RCVBUFFORCE:
			/* The FORCE ones are the kernel's for CAP_NET_ADMIN:
			 * the same without the sysctl cap. Here there is no
			 * cap and no privilege model: the same option. */
			ret = rds_opt_int(optval, optlen, &v);
			if (ret != 0)
				break;
			/* RDS uses the value set; getsockopt doubles it. */
			if (optname == SO_SNDBUF || optname == SO_SNDBUFFORCE)
				rs->f.sndbuf = rds_front_buf(v);
			else
				rs->rcvbuf = rds_front_buf(v);
			break;
		case SO_SNDTIMEO:
		case SO_RCVTIMEO:
			ret = rds_front_timeo(optval, optlen, &ns);
			if (ret != 0)
				break;
			if (optname == SO_SNDTIMEO)
				rs->f.sndtimeo_ns = ns;
			else
				rs->f.rcvtimeo_ns = ns;
			break;
		case SO_PRIORITY:
			ret = rds_opt_int(optval, optlen, &v);
			if (ret == 0)
				rs->so_priority = v;
			break;
		case SO_TIMESTAMP_OLD:
		case SO_TIMESTAMP_NEW:
			ret = rds_set_tstamp(rs, optname, optval, optlen,
					     false);
			break;
		default:
			if (rds_so_flag(optname) == 0)
				break;
			ret = rds_opt_int(optval, optlen, &v);
			if (ret != 0)
				break;
			rte_spinlock_lock(&rs->lock);
			if (v != 0)
				__atomic_fetch_or(&rs->so_flags,
						  rds_so_flag(optname),
						  __ATOMIC_RELAXED);
			else
				__atomic_fetch_and(&rs->so_flags,
						   ~rds_so_flag(optname),
						   __ATOMIC_RELAXED);
			rte_spinlock_unlock(&rs->lock);
			break;
		}
	} else if (level == SOL_RDS) {
		switch (optname) {
		case RDS_CANCEL_SENT_TO:
			ret = rds_cancel_sent_to(rs, optval, optlen);
			break;
		case SO_RDS_TRANSPORT:
			/* UEK's RDS_CONN_RESET has mainline's number for
			 * SO_RDS_TRANSPORT: told apart by its length. */
			if (optlen == sizeof(struct rte_rds_reset)) {
				ret = rds_conn_user_reset(rs, optval, optlen,
							  false);
				break;
			}
			/* fall through */
		case RTE_RDS_SO_TRANSPORT_UEK:
			rte_spinlock_lock(&rs->lock);
			ret = rds_set_transport(rs, optval, optlen);
			rte_spinlock_unlock(&rs->lock);
			break;
		case SO_TIMESTAMP_OLD:
		case SO_TIMESTAMP_NEW:
			ret = rds_set_tstamp(rs, optname, optval, optlen,
					     true);
			break;
		case RTE_RDS6_CONN_RESET:
			ret = rds_conn_user_reset(rs, optval, optlen, true);
			break;
		case SO_RDS_MSG_RXPATH_LATENCY:
			ret = rds_set_rx_trace(rs, optval, optlen);
			break;
		case RDS_GET_MR:
		case RDS_GET_MR_FOR_DEST:
			ret = rds_rdma_get_mr(rs, optval, optlen,
					      optname == RDS_GET_MR_FOR_DEST);
			break;
		case RDS_FREE_MR:
			ret = rds_rdma_free_mr(rs, optval, optlen);
			break;
		case RDS_RECVERR:
			ret = rds_opt_int(optval, optlen, &v);
			if (ret == 0)
				rs->recverr = v != 0;
			break;
		case RDS_CONG_MONITOR:
			ret = rds_opt_int(optval, optlen, &v);
			if (ret != 0)
				break;
			rte_spinlock_lock(&rs->lock);
			if (v != 0)
				rds_cong_watch(rs, true);
			rs->cong_monitor = v != 0;
			if (v == 0) {
				__atomic_store_n(&rs->cong_mask, 0,
						 __ATOMIC_RELEASE);
				__atomic_store_n(&rs->cong_notify, 0,
						 __ATOMIC_RELEASE);
			}
			rte_spinlock_unlock(&rs->lock);
			break;
		default:
			break;
		}
	}
	return ret;
}

int
rte_rds_setsockopt(int s, int level, int optname, const void *optval,
		   socklen_t optlen)
{
	struct rds_sock *rs = rds_sock_hold(s);
	int ret;

	if (rs == NULL) {
		RDS_CLIENT_OR(rds_client_setsockopt(s, level, optname, optval, optlen));
		return RDS_ERR(EBADF);
	}
	ret = rds_setsockopt(rs, level, optname, optval, optlen);
	rds_sock_put(rs);
	return ret == 0 ? 0 : RDS_ERR(-ret);
}

static int
rds_put_int(void *optval, socklen_t *optlen, int v)
{
	int ret = rds_uarg_optbuf(optval, optlen, sizeof(int));

	if (ret != 0)
		return ret;
	memcpy(optval, &v, sizeof(v));
	*optlen = sizeof(int);
	return 0;
}

static int
rds_put_timeo(void *optval, socklen_t *optlen, uint64_t ns)
{
	struct timeval tv;
	int ret = rds_uarg_optbuf(optval, optlen, sizeof(tv));

	if (ret != 0)
		return ret;
	tv.tv_sec = (time_t)(ns / 1000000000ULL);
	tv.tv_usec = (suseconds_t)((ns % 1000000000ULL) / 1000);
	memcpy(optval, &tv, sizeof(tv));
	*optlen = sizeof(tv);
	return 0;
}

int
rte_rds_getsockopt(int s, int level, int optname, void *optval,
		   socklen_t *optlen)
{
	struct rds_sock *rs = rds_sock_hold(s);
	int ret = -ENOPROTOOPT;
	uint32_t t;

	if (rs == NULL) {
		RDS_CLIENT_OR(rds_client_getsockopt(s, level, optname, optval, optlen));
		return RDS_ERR(EBADF);
	}
	/* As the kernel (sk_getsockopt, rds_getsockopt): the length is
	 * read first, whatever the option (and as an attached process). */
	if (optlen == NULL) {
		rds_sock_put(rs);
		return RDS_ERR(EFAULT);
	}
	if (level == SOL_SOCKET) {
		switch (optname) {
		case SO_SNDBUF:
			ret = rds_put_int(optval, optlen, (int)rs->f.sndbuf * 2);
			break;
		case SO_RCVBUF:
			ret = rds_put_int(optval, optlen, (int)rs->rcvbuf * 2);
			break;
		case SO_SNDTIMEO:
			ret = rds_put_timeo(optval, optlen, rs->f.sndtimeo_ns);
			break;
		case SO_RCVTIMEO:
			ret = rds_put_timeo(optval, optlen, rs->f.rcvtimeo_ns);
			break;
		case SO_PRIORITY:
			ret = rds_put_int(optval, optlen, rs->so_priority);
			break;
		case SO_TYPE:
			ret = rds_put_int(optval, optlen, SOCK_SEQPACKET);
			break;
		case SO_DOMAIN:
			ret = rds_put_int(optval, optlen, AF_RDS);
			break;
		case SO_PROTOCOL:
			ret = rds_put_int(optval, optlen, 0);
			break;
		case SO_ERROR:
			/* The error of a message the engine could not keep
			 * (else the next send returns it), taken as
			 * sock_error() takes sk_err. */
			ret = rds_put_int(optval, optlen,
				(int)__atomic_exchange_n(&rs->snd_err, 0,
							 __ATOMIC_ACQ_REL));
			break;
		case SO_TIMESTAMP_OLD:
		case SO_TIMESTAMP_NEW:
			/* As sk_getsockopt: on, and of this type. */
			ret = rds_put_int(optval, optlen,
				(rs->so_flags & RDS_SO_F_RCVTSTAMP) &&
				((rs->so_flags & RDS_SO_F_TSTAMP_NEW) != 0) ==
				(optname == SO_TIMESTAMP_NEW));
			break;
		default:
			if (rds_so_flag(optname) != 0)
				ret = rds_put_int(optval, optlen,
					(rs->so_flags & rds_so_flag(optname)) != 0);
			break;
		}
	} else if (level == SOL_RDS && (optname == SO_RDS_TRANSPORT ||
					optname == RTE_RDS_SO_TRANSPORT_UEK)) {
		t = rs->f.trans_pinned;
		if (t == (uint32_t)RDS_TRANS_NONE && rs->f.bound)
			t = rs->la->trans->trans_id;
		ret = rds_put_int(optval, optlen, (int)t);
	} else if (level == SOL_RDS && optname == RDS_RECVERR) {
		ret = rds_put_int(optval, optlen, rs->recverr);
	} else if (level == SOL_RDS && rds_info_name(optname)) {
		/* As the kernel: the record size on success. */
		rds_sock_put(rs);
		return rte_rds_info(optname, optval, optlen);
	}
	rds_sock_put(rs);
	return ret == 0 ? 0 : RDS_ERR(-ret);
}

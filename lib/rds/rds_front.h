/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The front half of the socket calls: their semantics, written once for
 * the two back ends (doc/design.md section 5). A socket is in-process
 * (struct rds_sock: its messages go to this process's engines,
 * rds_send.c, rds_recv.c) or attached (struct rds_cl_sock: they go
 * through the region to an rds-engined, rds_client_data.c), chosen at
 * rte_rds_socket(); both keep the state the calls read in a struct
 * rds_front and run the same checks and choices on it:
 *
 * - sendmsg: the error of an earlier message, its flags, its
 *   destination (sockaddr_in, sockaddr_in6, the connected peer; the
 *   bound family's rules), its iovecs and length, the transport
 *   (rds_front_trans, also the engine's for a client's message), the
 *   copy in;
 * - recvmsg: its arguments (rds_front_recv_check); the copy-out, the
 *   source name and every control message are rds_recv_out.h's;
 * - names: bind's and connect's address checks, getsockname,
 *   getpeername;
 * - options kept on both sides: SO_SNDBUF's rule, SO_SNDTIMEO and
 *   SO_RCVTIMEO, SO_RDS_TRANSPORT; SIOCINQ and SIOCOUTQ.
 *
 * What stays with a back end: where a message is put and how a caller
 * waits (the in-process socket's queue and doorbell; the region's TX
 * buffer, request ring and wake-up descriptor), and what only the
 * engine knows for an attached socket (its port, congestion maps,
 * registrations): those go to the engine, which checks them again
 * (doc/rds-engined.8 TRUST).
 *
 * Part of rds_private.h, which includes it before rds_sock.h (whose
 * socket embeds a struct rds_front): include that, not this.
 */
#ifndef RDS_FRONT_H
#define RDS_FRONT_H

#ifndef RDS_PRIVATE_H
#error "include rds_private.h, not rds_front.h"
#endif

#include <limits.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <netinet/in.h>

/* struct rds_front bound: how it is bound. sendmsg's IPv4 path tests for
 * RDS_BOUND_V4 alone (one compare); anything else takes the slow path. */
#define RDS_BOUND_V4 1		/* an IPv4 address (v4-mapped) */
#define RDS_BOUND_V6 2		/* an IPv6 address */

/* rds_uarg.h, which rds_private.h includes later. */
static inline int rds_uarg_iov(const struct iovec *iov, size_t n,
			       size_t *total);
static __rte_always_inline int
rds_uarg_dest_v4(const struct msghdr *msg, const struct sockaddr_in **sin);
int rds_uarg_optval(const void *optval, socklen_t optlen, size_t size,
		    bool exact);

/* SO_SNDBUF and SO_RCVBUF: the smallest buffer the socket core keeps
 * (SOCK_MIN_SNDBUF / 2); no sysctl caps them here, and the doubled
 * value stays an int. */
#define RDS_MIN_BUF 2304u
#define RDS_MAX_BUF ((uint32_t)INT_MAX / 2)

/* The state of a socket the socket calls read, in both back ends.
 * Written under the socket's lock by bind, connect and setsockopt. */
struct rds_front {
	uint8_t bound;			/* 0, RDS_BOUND_V4 or RDS_BOUND_V6
					 * (atomic: sendmsg reads it
					 * unlocked) */
	bool connected;
	uint16_t bound_port;		/* host order */
	uint16_t conn_port;
	uint32_t bound_scope;		/* sin6_scope_id of a link-local
					 * bind or connect, else 0 */
	struct in6_addr bound_addr;
	struct in6_addr conn_addr;
	uint32_t trans_pinned;		/* SO_RDS_TRANSPORT or RDS_TRANS_NONE */
	uint32_t sndbuf;		/* value set; getsockopt doubles it */
	uint64_t sndtimeo_ns;		/* 0: forever */
	uint64_t rcvtimeo_ns;
};

static inline void
rds_front_init(struct rds_front *f, uint32_t sndbuf)
{
	memset(f, 0, sizeof(*f));
	f->trans_pinned = (uint32_t)RDS_TRANS_NONE;
	f->sndbuf = sndbuf;
}

/* rds_front.c: off the IPv4 path. */
int rds_front_dest6(const struct rds_front *f, const struct msghdr *msg,
		    struct in6_addr *faddr, uint16_t *dport);
int rds_front_bound6(const struct rds_front *f, const struct msghdr *msg);

/*
 * The error of an earlier message the engine could not keep (no
 * connection for it), kept in *err: the next send says it, and sends
 * nothing; 0 when none.
 */
static __rte_always_inline int
rds_front_snd_err(uint32_t *err)
{
	if (likely(__atomic_load_n(err, __ATOMIC_RELAXED) == 0))
		return 0;
	return -(int)__atomic_exchange_n(err, 0, __ATOMIC_ACQ_REL);
}

/* The destination of a message: msg_name (a sockaddr_in, or a
 * sockaddr_in6 by rds_front_dest6's rules), else the connected peer. */
static __rte_always_inline int
rds_front_dest(const struct rds_front *f, const struct msghdr *msg,
	       struct in6_addr *faddr, uint16_t *dport)
{
	const struct sockaddr_in *sin = NULL;
	int ret = rds_uarg_dest_v4(msg, &sin);

	if (ret < 0)
		return rds_front_dest6(f, msg, faddr, dport);
	if (ret > 0) {
		rds_addr_from_v4(faddr, sin->sin_addr.s_addr);
		*dport = ntohs(sin->sin_port);
		return 0;
	}
	if (!f->connected)
		return -ENOTCONN;
	*faddr = f->conn_addr;
	*dport = f->conn_port;
	return 0;
}

/*
 * sendmsg's checks, in net/rds/send.c's order, before a back end takes
 * the message: the flags, the destination, the socket bound (and of the
 * destination's family), the iovecs and the length (EMSGSIZE over the
 * largest message or the send buffer). The length, or -errno.
 */
static __rte_always_inline ssize_t
rds_front_send_check(const struct rds_front *f, const struct msghdr *msg,
		     int flags, struct in6_addr *faddr, uint16_t *dport)
{
	size_t len = 0;
	int ret;

	if (unlikely(msg == NULL))
		return -EINVAL;
	if (unlikely(flags & ~MSG_DONTWAIT))
		return -EOPNOTSUPP;
	ret = rds_front_dest(f, msg, faddr, dport);
	if (unlikely(ret < 0))
		return ret;
	if (unlikely(__atomic_load_n(&f->bound, __ATOMIC_ACQUIRE) !=
		     RDS_BOUND_V4)) {
		ret = rds_front_bound6(f, msg);
		if (ret < 0)
			return ret;
	}
	ret = rds_uarg_iov(msg->msg_iov, msg->msg_iovlen, &len);
	if (unlikely(ret < 0))
		return ret;
	if (unlikely(len > RDS_MAX_MSG_SIZE))
		return -EMSGSIZE;
	if (unlikely(len > f->sndbuf))
		return -EMSGSIZE;
	return (ssize_t)len;
}

/*
 * The transport a message takes: to the socket's own address, loop
 * (as the kernel's TCP transport, t_prefer_loopback: a connection to
 * itself has no wire); else the one SO_RDS_TRANSPORT pinned; else loop
 * to another address of the instance; else the bound address's
 * transport: 1, for rds_front_trans_bound. The same choice in-process
 * (rds_send.c), by an attached client for its errno and by its engine
 * for its messages (rds_server_data.c).
 */
static __rte_always_inline int
rds_front_trans(const struct rds_front *f, bool to_self, bool to_local,
		uint8_t *trans_id)
{
	if (to_self) {
		*trans_id = RTE_RDS_TRANS_LOOP;
		return 0;
	}
	if (f->trans_pinned != (uint32_t)RDS_TRANS_NONE) {
		*trans_id = (uint8_t)f->trans_pinned;
		return 0;
	}
	if (to_local) {
		*trans_id = RTE_RDS_TRANS_LOOP;
		return 0;
	}
	return 1;
}

/* The bound address's transport (id): it cannot reach a peer when it
 * only reaches the instance's own addresses (loop_only: -ENETUNREACH). */
static inline int
rds_front_trans_bound(uint32_t id, bool loop_only, uint8_t *trans_id)
{
	if (loop_only)
		return -ENETUNREACH;
	*trans_id = (uint8_t)id;
	return 0;
}

/* The payload of msg (len bytes, checked by rds_front_send_check) into
 * dst. */
static __rte_always_inline void
rds_front_copy_in(uint8_t *dst, const struct msghdr *msg, size_t len)
{
	size_t i, off;

	if (likely(msg->msg_iovlen == 1)) {
		memcpy(dst, msg->msg_iov[0].iov_base, len);
		return;
	}
	for (i = 0, off = 0; i < msg->msg_iovlen; i++) {
		memcpy(dst + off, msg->msg_iov[i].iov_base,
		       msg->msg_iov[i].iov_len);
		off += msg->msg_iov[i].iov_len;
	}
}

/*
 * recvmsg's checks: 1 when the call returns 0 at once (MSG_OOB, as the
 * kernel), 0 to go on, -errno (flags other than MSG_DONTWAIT, MSG_PEEK,
 * MSG_TRUNC, MSG_WAITALL, MSG_CMSG_CLOEXEC; bad iovecs).
 */
static __rte_always_inline int
rds_front_recv_check(const struct msghdr *msg, int flags)
{
	size_t total;

	if (unlikely(msg == NULL))
		return -EINVAL;
	if (unlikely(flags & MSG_OOB))
		return 1;
	if (unlikely(flags & ~(MSG_DONTWAIT | MSG_PEEK | MSG_TRUNC |
			       MSG_WAITALL | MSG_CMSG_CLOEXEC)))
		return -EOPNOTSUPP;
	return rds_uarg_iov(msg->msg_iov, msg->msg_iovlen, &total);
}

/* An address as a name hands it back: a sockaddr_in or a sockaddr_in6. */
union rds_front_name {
	struct sockaddr sa;
	struct sockaddr_in sin;
	struct sockaddr_in6 sin6;
};

/*
 * bind's address (net/rds/bind.c): a sockaddr_in of full length, not
 * INADDR_ANY, broadcast or multicast, or a unicast sockaddr_in6; never
 * the probe port. Into *a, *scope and *port; -EINVAL or -EAFNOSUPPORT.
 */
int rds_front_bind_addr(const struct sockaddr *addr, socklen_t addrlen,
			struct in6_addr *a, uint32_t *scope, uint16_t *port);
/*
 * connect's address (net/rds/af_rds.c rds_connect): a sockaddr_in of
 * full length, not INADDR_ANY (-EDESTADDRREQ), broadcast or multicast;
 * or a sockaddr_in6 (unicast, else -EPROTOTYPE). The link-local scope
 * rule is the caller's (it needs the socket's bound scope, under its
 * lock).
 */
int rds_front_connect_addr(const struct sockaddr *addr, socklen_t addrlen,
			   struct in6_addr *a, uint32_t *scope,
			   uint16_t *port);
/* getsockname's name of f: its size. Under the socket's lock. */
size_t rds_front_sockname(const struct rds_front *f, union rds_front_name *n);
/* getpeername's: its size, or -ENOTCONN. Under the socket's lock. */
int rds_front_peername(const struct rds_front *f, union rds_front_name *n);
/* getsockname's copy out: what fits, *addrlen set to the full size;
 * -EINVAL without a buffer or a length. */
int rds_front_sockname_out(const union rds_front_name *n, size_t size,
			   struct sockaddr *addr, socklen_t *addrlen);
/* SO_SNDTIMEO, SO_RCVTIMEO: a struct timeval into ns (0: forever; a
 * negative time, already expired, is 1 ns); -EDOM for bad microseconds. */
int rds_front_timeo(const void *optval, socklen_t optlen, uint64_t *ns);
/* SO_SNDBUF, SO_RCVBUF: what the socket keeps of v (getsockopt doubles
 * it). */
static inline uint32_t
rds_front_buf(int v)
{
	return RTE_MAX(RTE_MIN((uint32_t)RTE_MAX(v, 0), RDS_MAX_BUF),
		       RDS_MIN_BUF);
}

/* SIOCOUTQ: bytes of the send buffer, clamped to an int. */
static inline int
rds_front_outq(int64_t q)
{
	return q < 0 ? 0 : q > INT_MAX ? INT_MAX : (int)q;
}

/* SIOCINQ: the size of the next message a peek that truncates to
 * nothing and never waits returned (n), 0 when none. */
static inline int
rds_front_inq(ssize_t n, int *val)
{
	if (n == -EAGAIN)
		n = 0;
	if (n < 0)
		return (int)n;
	*val = n > INT_MAX ? INT_MAX : (int)n;
	return 0;
}

#endif /* RDS_FRONT_H */

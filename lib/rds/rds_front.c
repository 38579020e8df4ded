/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The front half of the socket calls, the parts off the fast path
 * (rds_front.h has the picture): IPv6 destinations, the addresses of
 * bind and connect, the names, the timeouts.
 */
#include <errno.h>
#include <sys/time.h>

#include "rds_private.h"

/*
 * A destination that is not a valid sockaddr_in (off the IPv4 path): a
 * sockaddr_in6, checked as net/rds/send.c does, with the rules that
 * follow from the socket's bound address (unbound: ENOTCONN; an IPv4
 * socket to a true IPv6 address or an IPv6 socket to a v4-mapped one:
 * EOPNOTSUPP; a link-local scope other than the bound one: EINVAL).
 * Anything else is EINVAL.
 */
int
rds_front_dest6(const struct rds_front *f, const struct msghdr *msg,
		struct in6_addr *faddr, uint16_t *dport)
{
	const struct sockaddr_in6 *sin6 = msg->msg_name;
	uint32_t scope;
	uint8_t bound;
	int ret;

	if (msg->msg_namelen < sizeof(sa_family_t) ||
	    sin6->sin6_family != AF_INET6)
		return -EINVAL;
	ret = rds_addr_from_sin6(msg->msg_name, msg->msg_namelen, EINVAL,
				 faddr, &scope);
	if (ret < 0)
		return ret;
	bound = __atomic_load_n(&f->bound, __ATOMIC_ACQUIRE);
	if (bound == 0)
		return -ENOTCONN;
	if ((bound == RDS_BOUND_V4) != rds_addr_is_v4(faddr))
		return -EOPNOTSUPP;
	if (scope != 0 && f->bound_scope != 0 && scope != f->bound_scope)
		return -EINVAL;
	*dport = ntohs(sin6->sin6_port);
	return 0;
}

/* The bound test of sendmsg failed (not RDS_BOUND_V4): unbound, or an
 * IPv6 socket, which may send to the peer it is connected to or to an
 * IPv6 name (checked by rds_front_dest6), not to a sockaddr_in. */
int
rds_front_bound6(const struct rds_front *f, const struct msghdr *msg)
{
	const struct sockaddr *sa = msg->msg_name;

	if (__atomic_load_n(&f->bound, __ATOMIC_ACQUIRE) == 0)
		return -ENOTCONN;
	if (sa != NULL && msg->msg_namelen != 0 && sa->sa_family == AF_INET)
		return -EOPNOTSUPP;
	return 0;
}

int
rds_front_bind_addr(const struct sockaddr *addr, socklen_t addrlen,
		    struct in6_addr *a, uint32_t *scope, uint16_t *port)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)addr;
	int ret;

	*scope = 0;
	if (addr == NULL || addrlen < sizeof(sa_family_t))
		return -EINVAL;
	if (addr->sa_family == AF_INET6) {
		/* sin6_port is where sin_port is. */
		ret = rds_addr_from_sin6(addr, addrlen, EINVAL, a, scope);
		if (ret == 0 && ntohs(sin->sin_port) == RDS_FLAG_PROBE_PORT)
			ret = -EINVAL;
		if (ret != 0)
			return ret;
	} else if (addr->sa_family != AF_INET) {
		return -EAFNOSUPPORT;
	} else if (addrlen < sizeof(*sin) ||
		   sin->sin_addr.s_addr == htonl(INADDR_ANY) ||
		   sin->sin_addr.s_addr == htonl(INADDR_BROADCAST) ||
		   IN_MULTICAST(ntohl(sin->sin_addr.s_addr)) ||
		   ntohs(sin->sin_port) == RDS_FLAG_PROBE_PORT) {
		return -EINVAL;
	} else {
		rds_addr_from_v4(a, sin->sin_addr.s_addr);
	}
	*port = ntohs(sin->sin_port);
	return 0;
}

int
rds_front_connect_addr(const struct sockaddr *addr, socklen_t addrlen,
		       struct in6_addr *a, uint32_t *scope, uint16_t *port)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)addr;
	int ret;

	*scope = 0;
	if (addr == NULL || addrlen < sizeof(sa_family_t))
		return -EINVAL;
	if (addr->sa_family == AF_INET6) {
		ret = rds_addr_from_sin6(addr, addrlen, EPROTOTYPE, a, scope);
		if (ret != 0)
			return ret;
	} else if (addr->sa_family != AF_INET) {
		return -EAFNOSUPPORT;
	} else if (addrlen < sizeof(*sin)) {
		return -EINVAL;
	} else if (sin->sin_addr.s_addr == htonl(INADDR_ANY)) {
		return -EDESTADDRREQ;
	} else if (sin->sin_addr.s_addr == htonl(INADDR_BROADCAST) ||
		   IN_MULTICAST(ntohl(sin->sin_addr.s_addr))) {
		return -EINVAL;
	} else {
		rds_addr_from_v4(a, sin->sin_addr.s_addr);
	}
	*port = ntohs(sin->sin_port);
	return 0;
}

size_t
rds_front_sockname(const struct rds_front *f, union rds_front_name *n)
{
	static const struct in6_addr any = IN6ADDR_ANY_INIT;

	memset(n, 0, sizeof(*n));
	if (f->bound == RDS_BOUND_V6 ||
	    (!f->bound && f->connected && !rds_addr_is_v4(&f->conn_addr))) {
		/* An IPv6 socket (or one connected to an IPv6 peer, not yet
		 * bound: family AF_INET6, address ::). */
		if (f->bound)
			rds_addr_name6(&n->sin6, &f->bound_addr, f->bound_port,
				       f->bound_scope);
		else
			rds_addr_name6(&n->sin6, &any, 0, 0);
		return sizeof(n->sin6);
	}
	n->sin.sin_family = AF_INET;
	if (f->bound) {
		n->sin.sin_addr.s_addr = rds_addr_v4(&f->bound_addr);
		n->sin.sin_port = htons(f->bound_port);
	}
	return sizeof(n->sin);
}

/* As net/rds/af_rds.c rds_getname with peer: ENOTCONN before the
 * address is looked at (an unconnected socket's checks end there). */
int
rds_front_peername(const struct rds_front *f, union rds_front_name *n)
{
	memset(n, 0, sizeof(*n));
	if (!f->connected)
		return -ENOTCONN;
	if (!rds_addr_is_v4(&f->conn_addr)) {
		/* Its scope is the socket's (as the kernel's rds_getname). */
		rds_addr_name6(&n->sin6, &f->conn_addr, f->conn_port,
			       f->bound_scope);
		return sizeof(n->sin6);
	}
	n->sin.sin_family = AF_INET;
	n->sin.sin_addr.s_addr = rds_addr_v4(&f->conn_addr);
	n->sin.sin_port = htons(f->conn_port);
	return sizeof(n->sin);
}

int
rds_front_sockname_out(const union rds_front_name *n, size_t size,
		       struct sockaddr *addr, socklen_t *addrlen)
{
	if (addr == NULL || addrlen == NULL)
		return -EINVAL;
	memcpy(addr, n, RTE_MIN((size_t)*addrlen, size));
	*addrlen = (socklen_t)size;
	return 0;
}

int
rds_front_timeo(const void *optval, socklen_t optlen, uint64_t *ns)
{
	struct timeval tv;
	int ret = rds_uarg_optval(optval, optlen, sizeof(tv), false);

	if (ret != 0)
		return ret;
	memcpy(&tv, optval, sizeof(tv));
	if (tv.tv_usec < 0 || tv.tv_usec >= 1000000)
		return -EDOM;
	if (tv.tv_sec < 0) {
		*ns = 1;	/* already expired */
		return 0;
	}
	*ns = (uint64_t)tv.tv_sec * 1000000000ULL +
	      (uint64_t)tv.tv_usec * 1000ULL;
	return 0;
}

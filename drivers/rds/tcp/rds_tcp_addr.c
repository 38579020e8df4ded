/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tcp transport's addresses (net/rds/tcp.c rds_tcp_laddr_check,
 * tcp_connect.c, tcp_listen.c): an IPv4 address (v4-mapped inside) is
 * an AF_INET socket's, any other an AF_INET6 socket's; a link-local
 * IPv6 address needs its interface (sin6_scope_id), which the address's
 * dev= option names or, without it, is the interface holding the address
 * (the kernel's __rds_find_ifindex, for a connection request of a
 * link-local address).
 */
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include "rds_tcp.h"

socklen_t
rds_tcp_sockaddr(const struct in6_addr *a, uint16_t port, uint32_t scope,
		 struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (rds_addr_is_v4(a)) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		sin->sin_addr.s_addr = rds_addr_v4(a);
		return sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		sin6->sin6_addr = *a;
		/* Only a link-local address has a scope (tcp_connect.c
		 * passes the connection's c_dev_if, 0 unless link-local). */
		if (rds_addr_is_linklocal(a))
			sin6->sin6_scope_id = scope;
		return sizeof(*sin6);
	}
}

/* The address and port of a socket name accepted or read back: false
 * when it is neither AF_INET nor AF_INET6 (nor v4-mapped on AF_INET6:
 * our IPv6 sockets are IPV6_V6ONLY). */
bool
rds_tcp_sockaddr_addr(const struct sockaddr_storage *ss, struct in6_addr *a,
		      uint16_t *port)
{
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;

		rds_addr_from_v4(a, sin->sin_addr.s_addr);
		*port = ntohs(sin->sin_port);
		return true;
	}
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 =
			(const struct sockaddr_in6 *)ss;

		*a = sin6->sin6_addr;
		*port = ntohs(sin6->sin6_port);
		return !rds_addr_is_v4(a);
	}
	return false;
}

const char *
rds_tcp_addr_str(const struct in6_addr *a, char *buf, size_t len)
{
	if (rds_addr_is_v4(a)) {
		uint32_t v4 = rds_addr_v4(a);

		return inet_ntop(AF_INET, &v4, buf, (socklen_t)len);
	}
	return inet_ntop(AF_INET6, a, buf, (socklen_t)len);
}

/*
 * The interface of a link-local local address: the one dev names (its
 * index), else the first that holds the address (getifaddrs); 0 when
 * there is none (then the address cannot be served: EADDRNOTAVAIL, as
 * rds_tcp_laddr_check for a scope that names no interface or an address
 * not on it).
 */
uint32_t
rds_tcp_laddr_scope(const struct in6_addr *a, const char *dev)
{
	struct ifaddrs *ifa, *i;
	uint32_t idx = 0;

	if (dev != NULL && dev[0] != '\0')
		return if_nametoindex(dev);
	if (getifaddrs(&ifa) != 0)
		return 0;
	for (i = ifa; i != NULL && idx == 0; i = i->ifa_next) {
		const struct sockaddr_in6 *s6 =
			(const struct sockaddr_in6 *)i->ifa_addr;

		if (s6 == NULL || s6->sin6_family != AF_INET6 ||
		    !rds_addr_eq(&s6->sin6_addr, a))
			continue;
		idx = if_nametoindex(i->ifa_name);
	}
	freeifaddrs(ifa);
	return idx;
}

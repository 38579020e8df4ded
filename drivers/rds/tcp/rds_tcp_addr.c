/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tcp transport's addresses (net/rds/tcp.c rds_tcp_laddr_check,
 * tcp_connect.c, tcp_listen.c): an IPv4 address (v4-mapped inside) is
 * an AF_INET socket's, any other an AF_INET6 socket's; a link-local
 * IPv6 address needs its interface (sin6_scope_id): rds_addr_ifindex().
 */
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "rds_tcp.h"

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

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 addresses of the socket calls: a sockaddr_in6 name checked and
 * turned into the library's struct in6_addr (IPv4 stays v4-mapped), and
 * a struct in6_addr turned back into a sockaddr_in6. The rules are those
 * of net/rds bind.c, af_rds.c and send.c: a v4-mapped name is an IPv4
 * address (with the IPv4 checks), any other name must be unicast, and a
 * link-local one needs its scope (the interface index). And the
 * interface of a link-local local address (rds_addr_ifindex).
 */
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>

#include "rds_private.h"

/* Unicast, or v4-mapped with a unicast IPv4 address. */
bool
rds_addr_v6_ok(const struct in6_addr *a)
{
	static const struct in6_addr any = IN6ADDR_ANY_INIT;
	uint32_t v4;

	if (rds_addr_is_v4(a)) {
		v4 = ntohl(rds_addr_v4(a));
		return v4 != INADDR_ANY && v4 != INADDR_BROADCAST &&
		       !IN_MULTICAST(v4);
	}
	return !rds_addr_eq(a, &any) && a->s6_addr[0] != 0xff;
}

/*
 * sa, of family AF_INET6 and length len, into *a and *scope (0 unless
 * link-local). Returns 0, -EINVAL when shorter than a sockaddr_in6 or
 * link-local without a scope, -bad when not unicast (bind and sendmsg:
 * EINVAL; connect: EPROTOTYPE).
 */
int
rds_addr_from_sin6(const struct sockaddr *sa, socklen_t len, int bad,
		   struct in6_addr *a, uint32_t *scope)
{
	struct sockaddr_in6 s6;

	if (len < sizeof(s6))
		return -EINVAL;
	memcpy(&s6, sa, sizeof(s6));
	*a = s6.sin6_addr;
	*scope = 0;
	if (!rds_addr_v6_ok(a))
		return -bad;
	if (rds_addr_is_linklocal(a)) {
		if (s6.sin6_scope_id == 0)
			return -EINVAL;
		*scope = s6.sin6_scope_id;
	}
	return 0;
}

void
rds_addr_name6(struct sockaddr_in6 *sin6, const struct in6_addr *a,
	       uint16_t port, uint32_t scope)
{
	memset(sin6, 0, sizeof(*sin6));
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(port);
	sin6->sin6_addr = *a;
	sin6->sin6_scope_id = scope;
}

uint32_t
rds_addr_ifindex(const struct in6_addr *a, const char *ifname)
{
	struct ifaddrs *ifa, *i;
	uint32_t idx = 0;

	if (ifname != NULL && ifname[0] != '\0')
		return if_nametoindex(ifname);
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

socklen_t
rds_addr_sockaddr(const struct in6_addr *a, uint16_t port, uint32_t scope,
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
		if (rds_addr_is_linklocal(a))
			sin6->sin6_scope_id = scope;
		return sizeof(*sin6);
	}
}

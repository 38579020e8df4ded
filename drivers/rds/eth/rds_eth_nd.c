/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 neighbours of the eth transport: IPv6 -> MAC per port, filled by
 * neighbour discovery (RFC 4861: a neighbour solicitation we send for a
 * connection's peer, to its solicited-node multicast address, and the
 * advertisement that answers it; the solicitations peers send for our
 * addresses, which we answer), by valid frames (rds_eth_nd_learn, as
 * IPv4's rds_eth_neigh_learn) and by static entries (the neigh= option's
 * IPv6 items).
 *
 * The table is small and touched only when a connection resolves its
 * peer, when a frame's source is learnt (once per RDS_ETH_LEARN_GAP_US
 * a connection) and for neighbour discovery: a linear one under a
 * spinlock. No IPv4 path goes near it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_spinlock.h>

#include "rds_eth.h"

#define RDS_ETH_ND_GAP_MS 100		/* between solicitations of one
					 * address */
#define RDS_ETH_ICMP6 58
#define RDS_ETH_ND_NS 135
#define RDS_ETH_ND_NA 136
#define RDS_ETH_ND_OPT_SLLA 1
#define RDS_ETH_ND_OPT_TLLA 2
#define RDS_ETH_ND_HOPS 255		/* RFC 4861: both ways */
#define RDS_ETH_ND_NA_S 0x40000000u	/* solicited */
#define RDS_ETH_ND_NA_O 0x20000000u	/* override */

enum {
	RDS_ETH_ND_INCOMPLETE = 0,
	RDS_ETH_ND_RESOLVED,
	RDS_ETH_ND_STATIC,
};

struct rds_eth_nd_ent {
	struct in6_addr ip;
	struct rte_ether_addr mac;
	uint8_t state;
	uint64_t last_req;		/* TSC of the last solicitation */
};

struct rds_eth_nd {
	rte_spinlock_t lock;
	unsigned int n, max;
	uint64_t req_gap;
	struct rds_eth_nd_ent ent[];
};

/* An NS or NA as we send it: the ICMPv6 message with one link-layer
 * address option. One received may carry any options after its first
 * RDS_ETH_ND_BODY bytes (rds_eth_nd_find_lla). */
struct rds_eth_nd_msg {
	uint8_t type;
	uint8_t code;
	rte_be16_t cksum;
	rte_be32_t flags;		/* NA: R S O; NS: reserved */
	uint8_t target[16];
	uint8_t opt_type;
	uint8_t opt_len;		/* in 8 bytes */
	uint8_t opt_mac[RTE_ETHER_ADDR_LEN];
} __rte_packed;

#define RDS_ETH_ND_BODY offsetof(struct rds_eth_nd_msg, opt_type)
#define RDS_ETH_ND_FRAME (RTE_ETHER_HDR_LEN + \
			  sizeof(struct rte_ipv6_hdr) + \
			  sizeof(struct rds_eth_nd_msg))

struct rds_eth_nd *
rds_eth_nd_create(unsigned int size)
{
	struct rds_eth_nd *nd;

	if (size == 0 || size > 4096)
		return NULL;
	nd = calloc(1, sizeof(*nd) + size * sizeof(nd->ent[0]));
	if (nd == NULL)
		return NULL;
	rte_spinlock_init(&nd->lock);
	nd->max = size;
	nd->req_gap = rds_clock_hz() / 1000 * RDS_ETH_ND_GAP_MS;
	return nd;
}

void
rds_eth_nd_free(struct rds_eth_nd *nd)
{
	free(nd);
}

/* An address a neighbour may have: unicast, not v4-mapped, not ::. */
static bool
rds_eth_nd_ip_ok(const struct in6_addr *a)
{
	static const struct in6_addr any = IN6ADDR_ANY_INIT;

	return a->s6_addr[0] != 0xff && !rds_addr_is_v4(a) &&
	       !rds_addr_eq(a, &any);
}

static bool
rds_eth_nd_mac_ok(const struct rte_ether_addr *mac)
{
	return rte_is_unicast_ether_addr(mac) && !rte_is_zero_ether_addr(mac);
}

/* Under the lock. */
static struct rds_eth_nd_ent *
rds_eth_nd_find(struct rds_eth_nd *nd, const struct in6_addr *ip)
{
	unsigned int i;

	for (i = 0; i < nd->n; i++)
		if (rds_addr_eq(&nd->ent[i].ip, ip))
			return &nd->ent[i];
	return NULL;
}

static struct rds_eth_nd_ent *
rds_eth_nd_insert(struct rds_eth_nd *nd, const struct in6_addr *ip)
{
	struct rds_eth_nd_ent *e;

	if (nd->n >= nd->max)
		return NULL;
	e = &nd->ent[nd->n++];
	memset(e, 0, sizeof(*e));
	e->ip = *ip;
	return e;
}

int
rds_eth_nd_static(struct rds_eth_nd *nd, const struct in6_addr *ip,
		  const struct rte_ether_addr *mac)
{
	struct rds_eth_nd_ent *e;
	int ret = 0;

	if (nd == NULL || !rds_eth_nd_ip_ok(ip) || !rds_eth_nd_mac_ok(mac))
		return -EINVAL;
	rte_spinlock_lock(&nd->lock);
	e = rds_eth_nd_find(nd, ip);
	if (e == NULL)
		e = rds_eth_nd_insert(nd, ip);
	if (e == NULL) {
		ret = -ENOSPC;
	} else {
		e->mac = *mac;
		e->state = RDS_ETH_ND_STATIC;
	}
	rte_spinlock_unlock(&nd->lock);
	return ret;
}

unsigned int
rds_eth_nd_room(struct rds_eth_nd *nd)
{
	unsigned int r;

	rte_spinlock_lock(&nd->lock);
	r = nd->max - nd->n;
	rte_spinlock_unlock(&nd->lock);
	return r;
}

int
rds_eth_nd_lookup(struct rds_eth_nd *nd, const struct in6_addr *ip,
		  struct rte_ether_addr *mac)
{
	struct rds_eth_nd_ent *e;
	int ret = -ENOENT;

	rte_spinlock_lock(&nd->lock);
	e = rds_eth_nd_find(nd, ip);
	if (e != NULL) {
		ret = e->state != RDS_ETH_ND_INCOMPLETE;
		if (ret == 1 && mac != NULL)
			*mac = e->mac;
	}
	rte_spinlock_unlock(&nd->lock);
	return ret;
}

/* ip is at mac: update its entry, making one if create. */
static void
rds_eth_nd_update(struct rte_rds_eth_stats *st, struct rds_eth_nd *nd,
		  const struct in6_addr *ip, const struct rte_ether_addr *mac,
		  bool create)
{
	struct rds_eth_nd_ent *e;
	bool changed = false;
	char a[INET6_ADDRSTRLEN];

	if (!rds_eth_nd_ip_ok(ip) || !rds_eth_nd_mac_ok(mac))
		return;
	rte_spinlock_lock(&nd->lock);
	e = rds_eth_nd_find(nd, ip);
	if (e == NULL && create)
		e = rds_eth_nd_insert(nd, ip);
	if (e != NULL && e->state != RDS_ETH_ND_STATIC &&
	    (e->state != RDS_ETH_ND_RESOLVED ||
	     !rte_is_same_ether_addr(&e->mac, mac))) {
		changed = e->state == RDS_ETH_ND_RESOLVED;
		e->mac = *mac;
		e->state = RDS_ETH_ND_RESOLVED;
	}
	rte_spinlock_unlock(&nd->lock);
	if (changed) {
		if (st != NULL)
			st->neigh_changed++;
		ETH_LOG(INFO, "neighbour %s moved to " RTE_ETHER_ADDR_PRT_FMT,
			inet_ntop(AF_INET6, ip, a, sizeof(a)),
			RTE_ETHER_ADDR_BYTES(mac));
	}
}

void
rds_eth_nd_learn(struct rds_engine *e, struct rds_eth_nd *nd,
		 const struct in6_addr *ip, const struct rte_ether_addr *mac)
{
	rds_eth_nd_update(e != NULL ? &rds_eth_engine(e)->stats : NULL, nd,
			  ip, mac, true);
}

/* ------------------------------------------------------------------ */
/* Messages */

/* ff02::1:ffXX:XXXX of target t, and its MAC 33:33:ff:XX:XX:XX. */
static void
rds_eth_nd_solicited(const struct in6_addr *t, struct in6_addr *ip,
		     struct rte_ether_addr *mac)
{
	memset(ip, 0, sizeof(*ip));
	ip->s6_addr[0] = 0xff;
	ip->s6_addr[1] = 0x02;
	ip->s6_addr[11] = 0x01;
	ip->s6_addr[12] = 0xff;
	memcpy(&ip->s6_addr[13], &t->s6_addr[13], 3);
	mac->addr_bytes[0] = 0x33;
	mac->addr_bytes[1] = 0x33;
	memcpy(&mac->addr_bytes[2], &ip->s6_addr[12], 4);
}

/* An NS (type RDS_ETH_ND_NS) or NA from p: Ethernet to dmac, IPv6 from
 * sip to dip, the target, the option with p's MAC. */
static struct rte_mbuf *
rds_eth_nd_frame(struct rds_eth_port *p, uint8_t type, uint32_t flags,
		 const struct rte_ether_addr *dmac, const struct in6_addr *sip,
		 const struct in6_addr *dip, const struct in6_addr *target)
{
	struct rte_ether_hdr *eh;
	struct rte_ipv6_hdr *ip;
	struct rds_eth_nd_msg *nm;
	struct rte_mbuf *m;
	uint8_t *b;

	m = rte_pktmbuf_alloc(p->pool);
	if (m == NULL)
		return NULL;
	b = (uint8_t *)rte_pktmbuf_append(m, RDS_ETH_ND_FRAME);
	if (b == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(b, 0, RDS_ETH_ND_FRAME);
	eh = (struct rte_ether_hdr *)(void *)b;
	rte_ether_addr_copy(dmac, &eh->dst_addr);
	rte_ether_addr_copy(&p->mac, &eh->src_addr);
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
	ip = (struct rte_ipv6_hdr *)(void *)(eh + 1);
	ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16(sizeof(*nm));
	ip->proto = RDS_ETH_ICMP6;
	ip->hop_limits = RDS_ETH_ND_HOPS;
	memcpy(ip->src_addr, sip, 16);
	memcpy(ip->dst_addr, dip, 16);
	nm = (struct rds_eth_nd_msg *)(void *)(ip + 1);
	nm->type = type;
	nm->flags = rte_cpu_to_be_32(flags);
	memcpy(nm->target, target, 16);
	nm->opt_type = type == RDS_ETH_ND_NS ? RDS_ETH_ND_OPT_SLLA :
		       RDS_ETH_ND_OPT_TLLA;
	nm->opt_len = 1;
	memcpy(nm->opt_mac, p->mac.addr_bytes, RTE_ETHER_ADDR_LEN);
	nm->cksum = 0;
	nm->cksum = rte_ipv6_udptcp_cksum(ip, nm);
	return m;
}

int
rds_eth_nd_resolve(struct rds_engine *e, struct rds_eth_port *p,
		   const struct in6_addr *sip, const struct in6_addr *ip,
		   struct rte_ether_addr *mac)
{
	struct rds_eth_nd *nd = p->nd;
	struct rds_eth_nd_ent *ent;
	struct rte_ether_addr mmac;
	struct in6_addr mip;
	struct rte_mbuf *m;
	uint64_t now = rds_clock_tsc();

	if (!rds_eth_nd_ip_ok(ip))
		return -EINVAL;
	rte_spinlock_lock(&nd->lock);
	ent = rds_eth_nd_find(nd, ip);
	if (ent != NULL && ent->state != RDS_ETH_ND_INCOMPLETE) {
		*mac = ent->mac;
		rte_spinlock_unlock(&nd->lock);
		return 0;
	}
	if (ent == NULL)
		ent = rds_eth_nd_insert(nd, ip);
	if (ent == NULL) {
		rte_spinlock_unlock(&nd->lock);
		return -ENOSPC;
	}
	if (ent->last_req != 0 && now - ent->last_req < nd->req_gap) {
		rte_spinlock_unlock(&nd->lock);
		return -EAGAIN;
	}
	ent->last_req = now;
	rte_spinlock_unlock(&nd->lock);

	rds_eth_nd_solicited(ip, &mip, &mmac);
	m = rds_eth_nd_frame(p, RDS_ETH_ND_NS, 0, &mmac, sip, &mip, ip);
	if (m == NULL)
		return -EAGAIN;
	if (e != NULL)
		rds_eth_engine(e)->stats.nd_tx++;
	rds_eth_tx(e, p, m);
	return -EAGAIN;
}

/*
 * The link-layer address option of type want among an NS's or NA's
 * options (RFC 4861 4.6: type, length in units of 8 bytes, in any order
 * and number; others, such as the nonce of RFC 3971 or 7527, skipped):
 * 1 found (the first such), 0 none, -1 the message is invalid (an
 * option of length 0, which RFC 4861 says to discard the message for,
 * or one that runs past the message).
 */
static int
rds_eth_nd_find_lla(const uint8_t *o, uint32_t left, uint8_t want,
		    struct rte_ether_addr *lla)
{
	int found = 0;

	while (left >= 2) {
		uint32_t olen = (uint32_t)o[1] * 8;

		if (olen == 0 || olen > left)
			return -1;
		if (o[0] == want && found == 0 &&
		    olen >= 2 + RTE_ETHER_ADDR_LEN) {
			memcpy(lla->addr_bytes, o + 2, RTE_ETHER_ADDR_LEN);
			found = 1;
		}
		o += olen;
		left -= olen;
	}
	return found;
}

/* Is ip one of p's local IPv6 addresses? */
static bool
rds_eth_port_has_ip6(const struct rds_eth_port *p, const struct in6_addr *ip)
{
	unsigned int i;

	for (i = 0; i < p->nb_laddrs && i < RTE_DIM(p->laddrs); i++)
		if (p->laddrs[i] != NULL && rds_eth_laddr(p->laddrs[i])->v6 &&
		    rds_addr_eq(&p->laddrs[i]->addr, ip))
			return true;
	return false;
}

void
rds_eth_nd_input(struct rds_engine *e, struct rds_eth_port *p,
		 struct rte_mbuf *m)
{
	struct rte_rds_eth_stats *st = e != NULL ?
		&rds_eth_engine(e)->stats : NULL;
	const struct rte_ipv6_hdr *ip;
	const struct rds_eth_nd_msg *nm;
	struct rte_ether_addr lla, smac;
	struct in6_addr src, target;
	struct rte_mbuf *r;
	const uint8_t *b;
	bool has_lla;

	uint32_t len = rte_pktmbuf_data_len(m), plen;

	/* Other ICMPv6 messages (MLD, router discovery, echo) are not
	 * ours; an NS or NA that is not valid (RFC 4861 7.1.1, 7.1.2) is
	 * dropped and counted (nd_drop). */
	if (m->nb_segs != 1 || !rds_eth_is_ipv6(m) ||
	    len < RTE_ETHER_HDR_LEN + sizeof(*ip) + 1)
		goto not_ours;
	b = rte_pktmbuf_mtod(m, const uint8_t *);
	ip = (const struct rte_ipv6_hdr *)(const void *)(b + RTE_ETHER_HDR_LEN);
	nm = (const struct rds_eth_nd_msg *)(const void *)(ip + 1);
	if ((b[RTE_ETHER_HDR_LEN] >> 4) != 6 || ip->proto != RDS_ETH_ICMP6 ||
	    (nm->type != RDS_ETH_ND_NS && nm->type != RDS_ETH_ND_NA))
		goto not_ours;
	/* The hop limit only a neighbour can send, code 0, a length that
	 * holds the message and is in the frame, a right checksum. */
	plen = rte_be_to_cpu_16(ip->payload_len);
	if (len < RDS_ETH_ND_FRAME - 8 || ip->hop_limits != RDS_ETH_ND_HOPS ||
	    nm->code != 0 || plen < sizeof(*nm) - 8 ||
	    plen > len - RTE_ETHER_HDR_LEN - sizeof(*ip) ||
	    rte_ipv6_udptcp_cksum_verify(ip, nm) != 0) {
		if (st != NULL)
			st->nd_drop++;
		goto out;
	}
	memcpy(&src, ip->src_addr, 16);
	memcpy(&target, nm->target, 16);
	memcpy(&smac, b + RTE_ETHER_ADDR_LEN, RTE_ETHER_ADDR_LEN);
	switch (rds_eth_nd_find_lla((const uint8_t *)nm + RDS_ETH_ND_BODY,
				    plen - RDS_ETH_ND_BODY,
				    nm->type == RDS_ETH_ND_NS ?
				    RDS_ETH_ND_OPT_SLLA : RDS_ETH_ND_OPT_TLLA,
				    &lla)) {
	case 1:
		has_lla = true;
		break;
	case 0:
		has_lla = false;
		break;
	default:
		/* An option of length 0, or one past the message. */
		if (st != NULL)
			st->nd_drop++;
		goto out;
	}
	if (st != NULL)
		st->nd_rx++;
	/* Our own frame back, or someone claiming one of our addresses:
	 * not a neighbour. */
	if (rte_is_same_ether_addr(&smac, &p->mac) ||
	    rds_eth_port_has_ip6(p, &src))
		goto out;
	if (nm->type == RDS_ETH_ND_NA) {
		/* The answer to our solicitation (or an update): a
		 * neighbour we asked for, or have. */
		if (has_lla)
			rds_eth_nd_update(st, p->nd, &target, &lla, false);
		goto out;
	}
	/* A solicitation for one of our addresses from a neighbour (not
	 * duplicate address detection, whose source is ::): learn it (it
	 * is about to talk to us), answer to it directly. */
	if (!rds_eth_port_has_ip6(p, &target) || !rds_eth_nd_ip_ok(&src) ||
	    !has_lla || !rds_eth_nd_mac_ok(&lla))
		goto out;
	rds_eth_nd_update(st, p->nd, &src, &lla, true);
	r = rds_eth_nd_frame(p, RDS_ETH_ND_NA, RDS_ETH_ND_NA_S |
			     RDS_ETH_ND_NA_O, &lla, &target, &src, &target);
	if (r != NULL) {
		if (st != NULL)
			st->nd_tx++;
		rds_eth_tx(e, p, r);
	}
out:
	rte_pktmbuf_free(m);
	return;
not_ours:
	if (st != NULL)
		st->rx_not_ours++;
	rte_pktmbuf_free(m);
}

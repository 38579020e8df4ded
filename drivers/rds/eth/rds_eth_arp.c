/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Neighbours of the eth transport: IPv4 -> MAC per port, filled by ARP
 * (requests we send for our connections' peers, replies to them,
 * requests that peers send us), by valid frames (rds_eth_neigh_learn)
 * and by static entries (the neigh= option).
 *
 * The table is an open-addressing hash (linear probing, at most half
 * full) whose entries are never removed. An entry is two words that a
 * reader loads atomically: the address (0: free slot), published last
 * with a release store, and the MAC with the state bits, one 64-bit
 * word. So readers take no lock: a resolved lookup is a multiply, an
 * address compare (rarely more than one) and one 64-bit load. Writers
 * (a new entry, a changed MAC, the time of a request) take the table's
 * spinlock, one at a time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <rte_arp.h>
#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_spinlock.h>

#include "rds_eth.h"

#define RDS_ETH_NEIGH_DEFAULT 256
#define RDS_ETH_NEIGH_MAX (1u << 20)
#define RDS_ETH_ARP_GAP_MS 100		/* between requests for one address */
#define RDS_ETH_ARP_FRAME 60		/* Ethernet minimum without FCS */
#define RDS_ETH_SPEC_ITEM 64		/* longest "IP/MAC" of an option */

/* State bits above the 48 MAC bits of an entry's word. */
#define RDS_ETH_N_MAC_MASK ((UINT64_C(1) << 48) - 1)
#define RDS_ETH_N_RESOLVED (UINT64_C(1) << 48)
#define RDS_ETH_N_STATIC (UINT64_C(1) << 49)

struct rds_eth_nent {
	uint32_t ip;			/* network order, 0: free (atomic) */
	uint32_t requested;		/* a request went out (under lock) */
	uint64_t word;			/* MAC | RDS_ETH_N_* (atomic) */
	uint64_t last_req;		/* TSC of the last request (atomic,
					 * written under lock) */
};

struct rds_eth_neigh {
	rte_spinlock_t lock;		/* writers */
	uint32_t mask;			/* slots - 1 */
	uint32_t max;			/* entries allowed */
	uint32_t count;			/* entries (under lock) */
	uint64_t req_gap;		/* TSC between two requests */
	struct rds_eth_nent slot[];
};

static inline uint64_t
rds_eth_mac_pack(const struct rte_ether_addr *mac)
{
	const uint8_t *b = mac->addr_bytes;

	return (uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 |
	       (uint64_t)b[3] << 24 | (uint64_t)b[4] << 32 |
	       (uint64_t)b[5] << 40;
}

static inline void
rds_eth_mac_unpack(uint64_t w, struct rte_ether_addr *mac)
{
	unsigned int i;

	for (i = 0; i < RTE_ETHER_ADDR_LEN; i++)
		mac->addr_bytes[i] = (uint8_t)(w >> (8 * i));
}

/* A MAC a neighbour may have: unicast, not zero. */
static inline bool
rds_eth_mac_ok(const struct rte_ether_addr *mac)
{
	return rte_is_unicast_ether_addr(mac) && !rte_is_zero_ether_addr(mac);
}

static inline uint32_t
rds_eth_neigh_hash(const struct rds_eth_neigh *n, uint32_t ip)
{
	return (uint32_t)(((uint64_t)ip * UINT64_C(0x9e3779b97f4a7c15)) >> 32) &
	       n->mask;
}

/* The entry of ip, or NULL. Any thread, no lock. */
static inline struct rds_eth_nent *
rds_eth_neigh_find(struct rds_eth_neigh *n, uint32_t ip)
{
	uint32_t i, h = rds_eth_neigh_hash(n, ip);
	struct rds_eth_nent *ent;
	uint32_t x;

	for (i = 0; i <= n->mask; i++) {
		ent = &n->slot[(h + i) & n->mask];
		x = __atomic_load_n(&ent->ip, __ATOMIC_ACQUIRE);
		if (x == ip)
			return ent;
		if (x == 0)
			return NULL;
	}
	return NULL;
}

/* A new entry for ip (not in the table), with word; NULL if full. Under
 * the lock. */
static struct rds_eth_nent *
rds_eth_neigh_insert(struct rds_eth_neigh *n, uint32_t ip, uint64_t word)
{
	uint32_t i, h = rds_eth_neigh_hash(n, ip);
	struct rds_eth_nent *ent;

	if (n->count >= n->max)
		return NULL;
	for (i = 0; i <= n->mask; i++) {
		ent = &n->slot[(h + i) & n->mask];
		if (ent->ip != 0)
			continue;
		ent->requested = 0;
		__atomic_store_n(&ent->last_req, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&ent->word, word, __ATOMIC_RELAXED);
		/* Publish: a reader that sees ip sees the word. */
		__atomic_store_n(&ent->ip, ip, __ATOMIC_RELEASE);
		n->count++;
		return ent;
	}
	return NULL;
}

struct rds_eth_neigh *
rds_eth_neigh_create(unsigned int size)
{
	struct rds_eth_neigh *n;
	uint32_t slots = 16;
	size_t bytes;
	void *mem;

	if (size == 0)
		size = RDS_ETH_NEIGH_DEFAULT;
	if (size > RDS_ETH_NEIGH_MAX)
		return NULL;
	while (slots < 2 * size)
		slots <<= 1;
	bytes = sizeof(*n) + slots * sizeof(n->slot[0]);
	if (posix_memalign(&mem, RTE_CACHE_LINE_SIZE, bytes) != 0)
		return NULL;
	memset(mem, 0, bytes);
	n = mem;
	rte_spinlock_init(&n->lock);
	n->mask = slots - 1;
	n->max = size;
	n->req_gap = rds_clock_hz() / 1000 * RDS_ETH_ARP_GAP_MS;
	return n;
}

void
rds_eth_neigh_free(struct rds_eth_neigh *n)
{
	free(n);
}

int
rds_eth_neigh_lookup(struct rds_eth_neigh *n, uint32_t ip,
		     struct rte_ether_addr *mac)
{
	struct rds_eth_nent *ent = rds_eth_neigh_find(n, ip);
	uint64_t w;

	if (ip == 0 || ent == NULL)
		return -ENOENT;
	w = __atomic_load_n(&ent->word, __ATOMIC_ACQUIRE);
	if ((w & RDS_ETH_N_RESOLVED) == 0)
		return 0;
	if (mac != NULL)
		rds_eth_mac_unpack(w, mac);
	return 1;
}

/* ------------------------------------------------------------------ */
/* Static entries */

static int
rds_eth_neigh_parse_item(const char *s, size_t len, uint32_t *ip,
			 struct rte_ether_addr *mac)
{
	char buf[RDS_ETH_SPEC_ITEM];
	struct in_addr a;
	char *slash;

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	slash = strchr(buf, '/');
	if (slash == NULL)
		return -EINVAL;
	*slash = '\0';
	if (inet_pton(AF_INET, buf, &a) != 1 || a.s_addr == 0 ||
	    a.s_addr == UINT32_MAX)
		return -EINVAL;
	if (rte_ether_unformat_addr(slash + 1, mac) != 0 ||
	    !rds_eth_mac_ok(mac))
		return -EINVAL;
	*ip = a.s_addr;
	return 0;
}

int
rds_eth_neigh_static(struct rds_eth_neigh *n, const char *spec)
{
	const char *s, *e;
	struct rte_ether_addr mac;
	struct rds_eth_nent *ent;
	unsigned int nb = 0, room;
	uint32_t ip;
	int ret;

	if (n == NULL || spec == NULL)
		return -EINVAL;
	if (spec[0] == '\0')
		return 0;
	/* Check everything first: all or nothing. */
	for (s = spec;; s = e + 1) {
		e = strchr(s, '+');
		if (e == NULL)
			e = s + strlen(s);
		ret = rds_eth_neigh_parse_item(s, (size_t)(e - s), &ip, &mac);
		if (ret != 0)
			return ret;
		nb++;
		if (*e == '\0')
			break;
	}
	rte_spinlock_lock(&n->lock);
	/* Room for those not in the table yet (a repeated address is
	 * counted twice: the check errs on the safe side). */
	room = n->max - n->count;
	for (s = spec;; s = e + 1) {
		e = strchr(s, '+');
		if (e == NULL)
			e = s + strlen(s);
		(void)rds_eth_neigh_parse_item(s, (size_t)(e - s), &ip, &mac);
		if (rds_eth_neigh_find(n, ip) != NULL)
			nb--;
		if (*e == '\0')
			break;
	}
	if (nb > room) {
		rte_spinlock_unlock(&n->lock);
		return -ENOSPC;
	}
	for (s = spec;; s = e + 1) {
		uint64_t w;

		e = strchr(s, '+');
		if (e == NULL)
			e = s + strlen(s);
		(void)rds_eth_neigh_parse_item(s, (size_t)(e - s), &ip, &mac);
		w = rds_eth_mac_pack(&mac) | RDS_ETH_N_RESOLVED |
		    RDS_ETH_N_STATIC;
		ent = rds_eth_neigh_find(n, ip);
		if (ent != NULL)
			__atomic_store_n(&ent->word, w, __ATOMIC_RELEASE);
		else
			(void)rds_eth_neigh_insert(n, ip, w);
		if (*e == '\0')
			break;
	}
	rte_spinlock_unlock(&n->lock);
	return 0;
}

/* ------------------------------------------------------------------ */
/* ARP frames */

/* An ARP frame from p: op, target (tha, tip), sender ip sip. */
static struct rte_mbuf *
rds_eth_arp_frame(struct rds_eth_port *p, uint16_t op,
		  const struct rte_ether_addr *dst,
		  const struct rte_ether_addr *tha, uint32_t sip, uint32_t tip)
{
	struct rte_ether_hdr eh;
	struct rte_arp_hdr ah;
	struct rte_mbuf *m;
	uint8_t *b;

	m = rte_pktmbuf_alloc(p->pool);
	if (m == NULL)
		return NULL;
	b = (uint8_t *)rte_pktmbuf_append(m, RDS_ETH_ARP_FRAME);
	if (b == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(b, 0, RDS_ETH_ARP_FRAME);
	rte_ether_addr_copy(dst, &eh.dst_addr);
	rte_ether_addr_copy(&p->mac, &eh.src_addr);
	eh.ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	memcpy(b, &eh, sizeof(eh));

	memset(&ah, 0, sizeof(ah));
	ah.arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	ah.arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ah.arp_hlen = RTE_ETHER_ADDR_LEN;
	ah.arp_plen = sizeof(uint32_t);
	ah.arp_opcode = rte_cpu_to_be_16(op);
	rte_ether_addr_copy(&p->mac, &ah.arp_data.arp_sha);
	ah.arp_data.arp_sip = sip;
	rte_ether_addr_copy(tha, &ah.arp_data.arp_tha);
	ah.arp_data.arp_tip = tip;
	memcpy(b + RTE_ETHER_HDR_LEN, &ah, sizeof(ah));
	return m;
}

static inline struct rte_rds_eth_stats *
rds_eth_neigh_stats(struct rds_engine *e)
{
	return e != NULL ? &rds_eth_engine(e)->stats : NULL;
}

static int
rds_eth_resolve_slow(struct rds_engine *e, struct rds_eth_port *p,
		     uint32_t sip, uint32_t ip, struct rte_ether_addr *mac,
		     struct rds_eth_nent *ent)
{
	static const struct rte_ether_addr zero;
	struct rds_eth_neigh *n = p->neigh;
	struct rte_ether_addr bcast;
	struct rte_mbuf *m;
	uint64_t now, w;

	if (ip == 0 || ip == UINT32_MAX)
		return -EINVAL;
	now = rds_clock_tsc();
	/* Asked less than req_gap ago: nothing to do, no lock. */
	if (ent != NULL &&
	    __atomic_load_n(&ent->requested, __ATOMIC_RELAXED) != 0 &&
	    now - __atomic_load_n(&ent->last_req, __ATOMIC_RELAXED) <
	    n->req_gap)
		return -EAGAIN;

	rte_spinlock_lock(&n->lock);
	if (ent == NULL)
		ent = rds_eth_neigh_find(n, ip);
	if (ent == NULL)
		ent = rds_eth_neigh_insert(n, ip, 0);
	if (ent == NULL) {
		rte_spinlock_unlock(&n->lock);
		return -ENOSPC;
	}
	w = __atomic_load_n(&ent->word, __ATOMIC_ACQUIRE);
	if ((w & RDS_ETH_N_RESOLVED) != 0) {
		/* Resolved since the lookup. */
		rte_spinlock_unlock(&n->lock);
		rds_eth_mac_unpack(w, mac);
		return 0;
	}
	if (ent->requested != 0 &&
	    now - __atomic_load_n(&ent->last_req, __ATOMIC_RELAXED) <
	    n->req_gap) {
		rte_spinlock_unlock(&n->lock);
		return -EAGAIN;
	}
	__atomic_store_n(&ent->last_req, now, __ATOMIC_RELAXED);
	__atomic_store_n(&ent->requested, 1, __ATOMIC_RELAXED);
	rte_spinlock_unlock(&n->lock);

	memset(&bcast, 0xff, sizeof(bcast));
	m = rds_eth_arp_frame(p, RTE_ARP_OP_REQUEST, &bcast, &zero, sip, ip);
	if (m == NULL) {
		/* No mbuf: let the next call try again at once. */
		__atomic_store_n(&ent->requested, 0, __ATOMIC_RELAXED);
		return -EAGAIN;
	}
	if (e != NULL)
		rds_eth_engine(e)->stats.arp_tx++;
	rds_eth_tx(e, p, m);
	return -EAGAIN;
}

int
rds_eth_neigh_resolve(struct rds_engine *e, struct rds_eth_port *p,
		      uint32_t sip, uint32_t ip, struct rte_ether_addr *mac)
{
	struct rds_eth_nent *ent = rds_eth_neigh_find(p->neigh, ip);
	uint64_t w;

	if (likely(ent != NULL)) {
		w = __atomic_load_n(&ent->word, __ATOMIC_ACQUIRE);
		if (likely((w & RDS_ETH_N_RESOLVED) != 0)) {
			rds_eth_mac_unpack(w, mac);
			return 0;
		}
	}
	return rds_eth_resolve_slow(e, p, sip, ip, mac, ent);
}

/* ip is at mac: update its entry, making one if create. */
static void
rds_eth_neigh_update(struct rte_rds_eth_stats *st, struct rds_eth_neigh *n,
		     uint32_t ip, const struct rte_ether_addr *mac, bool create)
{
	struct rds_eth_nent *ent;
	uint64_t w, nw;
	bool changed;

	if (ip == 0 || ip == UINT32_MAX || !rds_eth_mac_ok(mac))
		return;
	nw = rds_eth_mac_pack(mac) | RDS_ETH_N_RESOLVED;
	ent = rds_eth_neigh_find(n, ip);
	if (likely(ent != NULL)) {
		w = __atomic_load_n(&ent->word, __ATOMIC_ACQUIRE);
		/* Known, or static: nothing to do (no lock). */
		if (likely(w == nw) || (w & RDS_ETH_N_STATIC) != 0)
			return;
	} else if (!create) {
		return;
	}

	rte_spinlock_lock(&n->lock);
	if (ent == NULL) {
		ent = rds_eth_neigh_find(n, ip);
		if (ent == NULL) {
			(void)rds_eth_neigh_insert(n, ip, nw);
			rte_spinlock_unlock(&n->lock);
			return;
		}
	}
	w = __atomic_load_n(&ent->word, __ATOMIC_ACQUIRE);
	if ((w & RDS_ETH_N_STATIC) != 0 || w == nw) {
		rte_spinlock_unlock(&n->lock);
		return;
	}
	changed = (w & RDS_ETH_N_RESOLVED) != 0;
	__atomic_store_n(&ent->word, nw, __ATOMIC_RELEASE);
	rte_spinlock_unlock(&n->lock);

	if (changed) {
		if (st != NULL)
			st->neigh_changed++;
		ETH_LOG(INFO, "neighbour %u.%u.%u.%u moved to "
			RTE_ETHER_ADDR_PRT_FMT,
			((const uint8_t *)&ip)[0], ((const uint8_t *)&ip)[1],
			((const uint8_t *)&ip)[2], ((const uint8_t *)&ip)[3],
			RTE_ETHER_ADDR_BYTES(mac));
	}
}

void
rds_eth_neigh_learn(struct rds_engine *e, struct rds_eth_neigh *n,
		    uint32_t ip, const struct rte_ether_addr *mac)
{
	rds_eth_neigh_update(rds_eth_neigh_stats(e), n, ip, mac, true);
}

/* Is ip one of p's local IPv4 addresses? (An IPv6 one's ip is 0.) */
static bool
rds_eth_port_has_ip(const struct rds_eth_port *p, uint32_t ip)
{
	unsigned int i;

	for (i = 0; i < p->nb_laddrs && i < RTE_DIM(p->laddrs); i++)
		if (p->laddrs[i] != NULL &&
		    !rds_eth_laddr(p->laddrs[i])->v6 &&
		    rds_eth_laddr(p->laddrs[i])->ip == ip)
			return true;
	return false;
}

void
rds_eth_arp_input(struct rds_engine *e, struct rds_eth_port *p,
		  struct rte_mbuf *m)
{
	struct rte_rds_eth_stats *st = rds_eth_neigh_stats(e);
	struct rte_ether_addr sha;
	struct rte_arp_hdr ah;
	struct rte_mbuf *r;
	uint32_t sip, tip;
	uint16_t op;
	bool for_us;

	if (st != NULL)
		st->arp_rx++;
	if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + sizeof(ah) ||
	    !rds_eth_is_arp(m))
		goto out;
	memcpy(&ah, rte_pktmbuf_mtod_offset(m, const uint8_t *,
					    RTE_ETHER_HDR_LEN), sizeof(ah));
	op = rte_be_to_cpu_16(ah.arp_opcode);
	if (ah.arp_hardware != rte_cpu_to_be_16(RTE_ARP_HRD_ETHER) ||
	    ah.arp_protocol != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    ah.arp_hlen != RTE_ETHER_ADDR_LEN ||
	    ah.arp_plen != sizeof(uint32_t) ||
	    (op != RTE_ARP_OP_REQUEST && op != RTE_ARP_OP_REPLY))
		goto out;
	rte_ether_addr_copy(&ah.arp_data.arp_sha, &sha);
	sip = ah.arp_data.arp_sip;
	tip = ah.arp_data.arp_tip;
	/* Our own frame back (a loopback port), or someone claiming one
	 * of our addresses: not a neighbour. */
	if (rte_is_same_ether_addr(&sha, &p->mac) ||
	    rds_eth_port_has_ip(p, sip))
		goto out;
	for_us = rds_eth_port_has_ip(p, tip);
	/* A request for us makes the entry (the sender is about to talk
	 * to us); anything else only refreshes a neighbour we have. */
	if (sip != 0)
		rds_eth_neigh_update(st, p->neigh, sip, &sha,
				     op == RTE_ARP_OP_REQUEST && for_us);
	if (op == RTE_ARP_OP_REQUEST && for_us && rds_eth_mac_ok(&sha)) {
		r = rds_eth_arp_frame(p, RTE_ARP_OP_REPLY, &sha, &sha, tip,
				      sip);
		if (r != NULL) {
			if (st != NULL)
				st->arp_tx++;
			rds_eth_tx(e, p, r);
		}
	}
out:
	rte_pktmbuf_free(m);
}

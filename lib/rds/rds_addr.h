/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Addresses: struct in6_addr helpers (IPv4 as v4-mapped), local
 * addresses (struct rds_laddr, with their bound ports) and the
 * congestion map of every address (rds_cong.c). Part of rds_private.h,
 * which includes it first of its parts: include that, not this.
 */
#ifndef RDS_ADDR_H
#define RDS_ADDR_H

#ifndef RDS_PRIVATE_H
#error "include rds_private.h, not rds_addr.h"
#endif

/* ------------------------------------------------------------------ */
/* Addresses: kept as struct in6_addr, IPv4 as v4-mapped. */

static inline void
rds_addr_from_v4(struct in6_addr *a, uint32_t be_v4)
{
	memset(a, 0, sizeof(*a));
	a->s6_addr[10] = 0xff;
	a->s6_addr[11] = 0xff;
	memcpy(&a->s6_addr[12], &be_v4, 4);
}

static inline uint32_t
rds_addr_v4(const struct in6_addr *a)
{
	uint32_t v;

	memcpy(&v, &a->s6_addr[12], 4);
	return v;
}

static inline bool
rds_addr_eq(const struct in6_addr *a, const struct in6_addr *b)
{
	uint64_t x[2], y[2];

	/* struct in6_addr is only 4-byte aligned (in struct rds_conn_key
	 * it is not 8-byte aligned): copies, which compile to the same
	 * two unaligned loads without the undefined behaviour. */
	memcpy(x, a, sizeof(x));
	memcpy(y, b, sizeof(y));
	return x[0] == y[0] && x[1] == y[1];
}

/* An IPv4 address kept as v4-mapped (::ffff:a.b.c.d). */
static inline bool
rds_addr_is_v4(const struct in6_addr *a)
{
	uint32_t w[3];

	memcpy(w, a, sizeof(w));
	return w[0] == 0 && w[1] == 0 && w[2] == htonl(0xffff);
}

/* fe80::/10: needs a scope (an interface index) to mean anything. */
static inline bool
rds_addr_is_linklocal(const struct in6_addr *a)
{
	return a->s6_addr[0] == 0xfe && (a->s6_addr[1] & 0xc0) == 0x80;
}

/* rds_addr.c: IPv6 names of the socket calls (sockaddr_in6). */
int rds_addr_from_sin6(const struct sockaddr *sa, socklen_t len, int bad,
		       struct in6_addr *a, uint32_t *scope);
bool rds_addr_v6_ok(const struct in6_addr *a);
void rds_addr_name6(struct sockaddr_in6 *sin6, const struct in6_addr *a,
		    uint16_t port, uint32_t scope);
/* The interface of a link-local local address, for a transport that uses
 * it on one (tcp, ib: sin6_scope_id): the one ifname names (its index,
 * 0 if none), else the first holding the address (getifaddrs, as the
 * kernel's __rds_find_ifindex); 0 when none does. */
uint32_t rds_addr_ifindex(const struct in6_addr *a, const char *ifname);
/* The socket name of a and port for a transport's own sockets (tcp) or
 * RDMA-CM (ib): a sockaddr_in for IPv4 (v4-mapped), else a sockaddr_in6
 * with scope as sin6_scope_id when a is link-local (the kernel passes
 * the connection's c_dev_if, 0 unless link-local). Returns its length. */
socklen_t rds_addr_sockaddr(const struct in6_addr *a, uint16_t port,
			    uint32_t scope, struct sockaddr_storage *ss);

/* ------------------------------------------------------------------ */
/* Local addresses and congestion maps. */

struct rds_laddr;

/* One per address, local or remote, living until rte_rds_fini(): the
 * congestion map, and what a sender needs to know of the address. */
/* Changes of a local map remembered for sparse updates (a power of
 * two): a connection that sent the map at generation g sends only the
 * words changed since, while the log still reaches back to g. */
#define RDS_CONG_LOG 64

struct rds_cong_map {
	struct in6_addr addr;
	struct rds_laddr *la;		/* a local address of ours, or NULL */
	uint32_t hash;			/* of addr, for engine selection */
	uint32_t gen;			/* bumped on every change (atomic) */
	uint64_t bits[RDS_CONG_MAP_WORDS]; /* little-endian bit order per port */
	/* A local map's changes (rds_cong_set/clear, under log_lock):
	 * log_word[g % RDS_CONG_LOG] is the word generation g changed. */
	rte_spinlock_t log_lock;
	uint16_t log_word[RDS_CONG_LOG];
};

struct rds_transport;

struct rds_laddr {
	struct in6_addr addr;
	unsigned int index;
	const struct rds_transport *trans;
	char dev[RTE_RDS_NAMESIZE];
	char args[RTE_RDS_ARGSIZE];	/* driver options, key=value,... */
	struct rds_cong_map *cong;	/* this address's own map */
	void *tp;			/* transport private */
	/* A link-local IPv6 address's interface index, set by the
	 * transport's laddr_check when it uses the address on one
	 * interface (tcp, ib): a bind with another scope is EADDRNOTAVAIL,
	 * as net/rds's laddr_check(net, addr, scope_id). 0: any scope. */
	uint32_t ifindex;
	/* Bound sockets: a page of 256 per port >> 8, made on demand. */
	rte_spinlock_t bind_lock;
	struct rds_sock **ports[RDS_NB_PORTS / 256];
	uint64_t *used;			/* port bitmap, under bind_lock */
	uint64_t full[RDS_NB_PORTS / 64 / 64];	/* words of used that are full */
	uint32_t nb_bound;
};

/* rds_cong.c */
int rds_cong_init(void);
void rds_cong_fini(void);
struct rds_cong_map *rds_cong_map_get_slow(const struct in6_addr *addr);

/* In front of the maps' hash: the map last found for each slot
 * (rds_cong_cache_slot), read and written by any thread without a lock
 * (maps live until rte_rds_fini(), which clears it; a slot holding
 * another address's map is a miss). A sender to many addresses in turn
 * finds each map here instead of in the hash (rte_jhash + rte_hash
 * lookup, about 200 instructions). A power of two. */
#define RDS_CONG_CACHE 256
extern struct rds_cong_map *rds_cong_cache[RDS_CONG_CACHE] RDS_HIDDEN;

static inline unsigned int
rds_cong_cache_slot(const struct in6_addr *a)
{
	uint32_t w[4];

	memcpy(w, a, sizeof(w));
	/* w[3] is all of an IPv4 address (v4-mapped). */
	return (((w[0] ^ w[1] ^ w[2]) * 0x9e3779b1u + w[3]) * 0x85ebca6bu) >>
	       (32 - __builtin_ctz(RDS_CONG_CACHE));
}

/* Find, or create, the map of an address; NULL without memory. */
static inline struct rds_cong_map *
rds_cong_map_get(const struct in6_addr *addr)
{
	struct rds_cong_map *map = __atomic_load_n(
		&rds_cong_cache[rds_cong_cache_slot(addr)], __ATOMIC_ACQUIRE);

	if (__builtin_expect(map != NULL, 1) &&
	    __builtin_expect(rds_addr_eq(&map->addr, addr), 1))
		return map;
	return rds_cong_map_get_slow(addr);
}
static inline bool
rds_cong_test(const struct rds_cong_map *map, uint16_t port)
{
	uint64_t w = __atomic_load_n(&map->bits[port / 64], __ATOMIC_ACQUIRE);

	return (w >> (port % 64)) & 1;
}
void rds_cong_set(struct rds_cong_map *map, uint16_t port);
void rds_cong_clear(struct rds_cong_map *map, uint16_t port);
uint64_t rds_cong_map_update(struct rds_cong_map *map, const void *wire_bits);
void rds_cong_map_copy_out(const struct rds_cong_map *map, void *wire_bits);
/*
 * Sparse maps, for a transport whose wire is our own
 * (RDS_TRANS_F_MAP_DELTA): a CONG_BITMAP message shorter than the 8 KiB
 * map is RDS_CONG_DELTA_HDR bytes (version RDS_CONG_DELTA_VERSION, flags,
 * a big-endian count) and that many records of RDS_CONG_DELTA_REC bytes
 * (a big-endian word index under RDS_CONG_MAP_WORDS, then the word's 8
 * bytes in the map's wire order). RDS_CONG_DELTA_FULL: every word not
 * listed is 0 (a connection's first map); else the words not listed are
 * unchanged.
 */
#define RDS_CONG_DELTA_VERSION 1
#define RDS_CONG_DELTA_FULL 0x01
#define RDS_CONG_DELTA_HDR 4
#define RDS_CONG_DELTA_REC 10
/* The words of a local map that changed from generation since to the
 * map's generation now (read once by the caller): their number (each
 * once) into words[RDS_CONG_MAP_WORDS], or -1 when the log no longer
 * reaches back that far. */
int rds_cong_changed_since(struct rds_cong_map *map, uint32_t since,
			   uint32_t now, uint16_t *words);
/* The sparse update of map's words[0..n) into out (room for
 * RDS_CONG_MAP_BYTES); its length, or 0 when it would not be shorter
 * than the whole map (send that instead). */
uint32_t rds_cong_delta_encode(const struct rds_cong_map *map,
			       const uint16_t *words, unsigned int n,
			       bool full, void *out);
/* All non-zero words of map (a connection's first map), as above. */
uint32_t rds_cong_delta_encode_full(const struct rds_cong_map *map,
				    void *out);
/* Apply a sparse update received (checked whole first: nothing applied
 * from a malformed one). 0 and *uncongested (the ports that may have
 * become uncongested, as rds_cong_map_update's), or -EBADMSG. */
int rds_cong_delta_apply(struct rds_cong_map *map, const void *buf,
			 uint32_t len, uint64_t *uncongested);
void rds_cong_sock_check(struct rds_sock *rs);
uint32_t rds_cong_generation(void);
/* Bumped when a local address's map changes (engines announce it);
 * read on every engine pass, inline. */
extern uint32_t rds_cong_local_gen RDS_HIDDEN;

static inline uint32_t
rds_cong_local_generation(void)
{
	return __atomic_load_n(&rds_cong_local_gen, __ATOMIC_ACQUIRE);
}
void rds_cong_map_changed(uint64_t portmask);
void rds_cong_watch(struct rds_sock *rs, bool on);

#endif /* RDS_ADDR_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Congestion maps (net/rds/cong.c): one 65536-bit map per address, a bit
 * per port in little-endian bit order. The map of a local address is
 * written when one of its sockets crosses its receive-buffer limit and
 * sent to peers; the map of a remote address is what the peer last sent.
 * Senders on any thread test bits without locks; engines bump the
 * generation on every change so that updates get sent.
 */
#include <errno.h>

#include <rte_hash.h>
#include <rte_jhash.h>
#include <rte_malloc.h>

#include "rds_private.h"

#define RDS_CONG_MAX_MAPS 16384

static struct rte_hash *rds_cong_hash;
struct rds_cong_map *rds_cong_cache[RDS_CONG_CACHE];
static rte_spinlock_t rds_cong_lock = RTE_SPINLOCK_INITIALIZER;
/* Bumped whenever any map changes (rds_cong_generation). */
static uint32_t rds_cong_gen;
/* Bumped whenever a local address's map changes (read inline by every
 * engine pass: rds_cong_local_generation). */
uint32_t rds_cong_local_gen;
/* Sockets to tell about map changes: those with an event fd (a waiter
 * may sleep on it) and those with RDS_CONG_MONITOR. Never every socket. */
static TAILQ_HEAD(, rds_sock) rds_cong_watchers =
	TAILQ_HEAD_INITIALIZER(rds_cong_watchers);
static rte_spinlock_t rds_cong_watch_lock = RTE_SPINLOCK_INITIALIZER;

uint32_t
rds_cong_generation(void)
{
	return __atomic_load_n(&rds_cong_gen, __ATOMIC_ACQUIRE);
}

void
rds_cong_watch(struct rds_sock *rs, bool on)
{
	rte_spinlock_lock(&rds_cong_watch_lock);
	if (on && !rs->watched)
		TAILQ_INSERT_TAIL(&rds_cong_watchers, rs, watch_link);
	else if (!on && rs->watched)
		TAILQ_REMOVE(&rds_cong_watchers, rs, watch_link);
	rs->watched = on;
	rte_spinlock_unlock(&rds_cong_watch_lock);
}

/*
 * A map changed (rds_cong_map_updated): portmask has bit (port % 64) set
 * for ports that may have become uncongested. Monitoring sockets that
 * saw one of those ports congested get a notification; every socket a
 * waiter may sleep on is woken, since POLLIN reports map changes.
 */
void
rds_cong_map_changed(uint64_t portmask)
{
	struct rds_sock *rs;
	uint64_t hit;

	__atomic_fetch_add(&rds_cong_gen, 1, __ATOMIC_ACQ_REL);
	rte_spinlock_lock(&rds_cong_watch_lock);
	TAILQ_FOREACH(rs, &rds_cong_watchers, watch_link) {
		if (rs->cong_monitor) {
			hit = __atomic_load_n(&rs->cong_mask, __ATOMIC_ACQUIRE)
			      & portmask;
			if (hit != 0) {
				__atomic_fetch_or(&rs->cong_notify, hit,
						  __ATOMIC_RELEASE);
				__atomic_fetch_and(&rs->cong_mask, ~hit,
						   __ATOMIC_RELEASE);
			}
		}
		rds_sock_wake(rs);
	}
	rte_spinlock_unlock(&rds_cong_watch_lock);
}

int
rds_cong_init(void)
{
	struct rte_hash_parameters p = {
		.name = "rds_cong",
		.entries = RDS_CONG_MAX_MAPS,
		.key_len = sizeof(struct in6_addr),
		.hash_func = rte_jhash,
		.socket_id = rds_lib->conf.socket_id,
		.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF,
	};

	rds_cong_hash = rte_hash_create(&p);
	return rds_cong_hash == NULL ? -rte_errno : 0;
}

void
rds_cong_fini(void)
{
	const void *key;
	void *data;
	uint32_t it = 0;

	if (rds_cong_hash == NULL)
		return;
	memset(rds_cong_cache, 0, sizeof(rds_cong_cache));
	while (rte_hash_iterate(rds_cong_hash, &key, &data, &it) >= 0)
		rds_mem_free(data);
	rte_hash_free(rds_cong_hash);
	rds_cong_hash = NULL;
}

/* rds_cong_map_get() past its cache: the hash, whose lookups are
 * lock-free; the rare creation is serialised. Maps live until
 * rte_rds_fini(). The map found goes into the cache. */
struct rds_cong_map *
rds_cong_map_get_slow(const struct in6_addr *addr)
{
	struct rds_cong_map *map;
	void *data;

	if (rte_hash_lookup_data(rds_cong_hash, addr, &data) >= 0) {
		map = data;
		goto found;
	}
	rte_spinlock_lock(&rds_cong_lock);
	if (rte_hash_lookup_data(rds_cong_hash, addr, &data) >= 0) {
		map = data;
	} else {
		map = rds_mem_zalloc("rds_cong_map", sizeof(*map));
		if (map != NULL) {
			rte_spinlock_init(&map->log_lock);
			map->addr = *addr;
			map->hash = rds_addr_hash(addr);
			if (rte_hash_add_key_data(rds_cong_hash, addr,
						  map) < 0) {
				rds_mem_free(map);
				map = NULL;
			}
		}
	}
	rte_spinlock_unlock(&rds_cong_lock);
	if (map == NULL)
		return NULL;
found:
	__atomic_store_n(&rds_cong_cache[rds_cong_cache_slot(addr)], map,
			 __ATOMIC_RELEASE);
	return map;
}

/* A local map's port set or cleared: the bit, the generation and the
 * log of changed words together (rare: a socket crossing its receive
 * buffer's limit). */
static void
rds_cong_change(struct rds_cong_map *map, uint16_t port, bool set)
{
	uint32_t gen;

	rte_spinlock_lock(&map->log_lock);
	if (set)
		__atomic_fetch_or(&map->bits[port / 64], 1ULL << (port % 64),
				  __ATOMIC_RELEASE);
	else
		__atomic_fetch_and(&map->bits[port / 64],
				   ~(1ULL << (port % 64)), __ATOMIC_RELEASE);
	gen = __atomic_add_fetch(&map->gen, 1, __ATOMIC_RELEASE);
	map->log_word[gen & (RDS_CONG_LOG - 1)] = port / 64;
	rte_spinlock_unlock(&map->log_lock);
	__atomic_fetch_add(&rds_cong_local_gen, 1, __ATOMIC_RELEASE);
}

void
rds_cong_set(struct rds_cong_map *map, uint16_t port)
{
	rds_cong_change(map, port, true);
}

void
rds_cong_clear(struct rds_cong_map *map, uint16_t port)
{
	rds_cong_change(map, port, false);
}

int
rds_cong_changed_since(struct rds_cong_map *map, uint32_t since,
		       uint32_t now, uint16_t *words)
{
	uint64_t seen[RDS_CONG_MAP_WORDS / 64] = { 0 };
	uint32_t g;
	uint16_t w;
	int n = 0;

	/* Generations since+1 .. now: the log holds the last RDS_CONG_LOG
	 * generations up to the map's current one (now or later). */
	rte_spinlock_lock(&map->log_lock);
	if (map->gen - since > RDS_CONG_LOG) {
		rte_spinlock_unlock(&map->log_lock);
		return -1;
	}
	for (g = since + 1; g != now + 1; g++) {
		w = map->log_word[g & (RDS_CONG_LOG - 1)];
		if (seen[w / 64] & (1ULL << (w % 64)))
			continue;
		seen[w / 64] |= 1ULL << (w % 64);
		words[n++] = w;
	}
	rte_spinlock_unlock(&map->log_lock);
	return n;
}

uint32_t
rds_cong_delta_encode(const struct rds_cong_map *map, const uint16_t *words,
		      unsigned int n, bool full, void *out)
{
	uint8_t *p = out;
	uint32_t len = RDS_CONG_DELTA_HDR + n * RDS_CONG_DELTA_REC;
	rte_be16_t idx;
	unsigned int i;
	uint64_t w;

	if (len >= RDS_CONG_MAP_BYTES)
		return 0;
	p[0] = RDS_CONG_DELTA_VERSION;
	p[1] = full ? RDS_CONG_DELTA_FULL : 0;
	idx = rte_cpu_to_be_16((uint16_t)n);
	memcpy(p + 2, &idx, 2);
	p += RDS_CONG_DELTA_HDR;
	for (i = 0; i < n; i++, p += RDS_CONG_DELTA_REC) {
		idx = rte_cpu_to_be_16(words[i]);
		w = rte_cpu_to_le_64(__atomic_load_n(&map->bits[words[i]],
						     __ATOMIC_ACQUIRE));
		memcpy(p, &idx, 2);
		memcpy(p + 2, &w, 8);
	}
	return len;
}

uint32_t
rds_cong_delta_encode_full(const struct rds_cong_map *map, void *out)
{
	uint16_t words[RDS_CONG_MAP_WORDS];
	unsigned int i, n = 0;

	for (i = 0; i < RDS_CONG_MAP_WORDS; i++)
		if (__atomic_load_n(&map->bits[i], __ATOMIC_ACQUIRE) != 0)
			words[n++] = (uint16_t)i;
	return rds_cong_delta_encode(map, words, n, true, out);
}

int
rds_cong_delta_apply(struct rds_cong_map *map, const void *buf, uint32_t len,
		     uint64_t *uncongested)
{
	const uint8_t *p = buf;
	uint64_t listed[RDS_CONG_MAP_WORDS / 64] = { 0 };
	uint64_t w, old, unc = 0;
	bool changed = false, full;
	rte_be16_t be;
	uint16_t idx;
	unsigned int i, n;

	if (len < RDS_CONG_DELTA_HDR || p[0] != RDS_CONG_DELTA_VERSION ||
	    (p[1] & ~RDS_CONG_DELTA_FULL) != 0)
		return -EBADMSG;
	memcpy(&be, p + 2, 2);
	n = rte_be_to_cpu_16(be);
	if (len != RDS_CONG_DELTA_HDR + n * RDS_CONG_DELTA_REC ||
	    len >= RDS_CONG_MAP_BYTES)
		return -EBADMSG;
	full = (p[1] & RDS_CONG_DELTA_FULL) != 0;
	for (i = 0; i < n; i++) {
		memcpy(&be, p + RDS_CONG_DELTA_HDR + i * RDS_CONG_DELTA_REC,
		       2);
		idx = rte_be_to_cpu_16(be);
		if (idx >= RDS_CONG_MAP_WORDS ||
		    (listed[idx / 64] & (1ULL << (idx % 64))))
			return -EBADMSG;
		listed[idx / 64] |= 1ULL << (idx % 64);
	}
	/* A first map: the words it does not list are 0. */
	for (i = 0; full && i < RDS_CONG_MAP_WORDS; i++) {
		if (listed[i / 64] & (1ULL << (i % 64)))
			continue;
		old = __atomic_exchange_n(&map->bits[i], 0, __ATOMIC_ACQ_REL);
		unc |= old;
		changed |= old != 0;
	}
	p += RDS_CONG_DELTA_HDR;
	for (i = 0; i < n; i++, p += RDS_CONG_DELTA_REC) {
		memcpy(&be, p, 2);
		idx = rte_be_to_cpu_16(be);
		memcpy(&w, p + 2, 8);
		w = rte_le_to_cpu_64(w);
		old = __atomic_exchange_n(&map->bits[idx], w,
					  __ATOMIC_ACQ_REL);
		unc |= ~w & old;
		changed |= w != old;
	}
	if (changed)
		__atomic_fetch_add(&map->gen, 1, __ATOMIC_RELEASE);
	*uncongested = unc;
	return 0;
}

/* Wire bytes are little-endian bit order: bit p is bit (p % 8) of byte
 * p / 8, which is bit (p % 64) of little-endian 64-bit word p / 64. */
uint64_t
rds_cong_map_update(struct rds_cong_map *map, const void *wire_bits)
{
	const uint8_t *src = wire_bits;
	uint64_t w, old, uncongested = 0;
	bool changed = false;
	unsigned int i;

	for (i = 0; i < RDS_CONG_MAP_WORDS; i++) {
		memcpy(&w, src + i * 8, 8);
		w = rte_le_to_cpu_64(w);
		old = __atomic_exchange_n(&map->bits[i], w, __ATOMIC_ACQ_REL);
		uncongested |= ~w & old;
		changed |= w != old;
	}
	if (changed)
		__atomic_fetch_add(&map->gen, 1, __ATOMIC_RELEASE);
	return uncongested;
}

void
rds_cong_map_copy_out(const struct rds_cong_map *map, void *wire_bits)
{
	uint8_t *dst = wire_bits;
	unsigned int i;
	uint64_t w;

	for (i = 0; i < RDS_CONG_MAP_WORDS; i++) {
		w = rte_cpu_to_le_64(__atomic_load_n(&map->bits[i],
						     __ATOMIC_ACQUIRE));
		memcpy(dst + i * 8, &w, 8);
	}
}

/*
 * Re-evaluate a socket against its receive buffer, with the kernel's
 * hysteresis: congested above rcvbuf, uncongested below rcvbuf / 2.
 * Called by engines after a delivery and by readers after a receive.
 */
void
rds_cong_sock_check(struct rds_sock *rs)
{
	int64_t rcv = __atomic_load_n(&rs->rcv_bytes, __ATOMIC_ACQUIRE);
	int64_t limit = rs->rcvbuf;

	bool changed = false;

	if (!__atomic_load_n(&rs->congested, __ATOMIC_ACQUIRE) ?
	    rcv <= limit : rcv >= limit / 2)
		return;
	rte_spinlock_lock(&rs->cong_lock);
	rcv = __atomic_load_n(&rs->rcv_bytes, __ATOMIC_ACQUIRE);
	if (!rs->congested && rcv > limit) {
		__atomic_store_n(&rs->congested, true, __ATOMIC_RELEASE);
		rds_cong_set(rs->la->cong, rs->f.bound_port);
		changed = true;
	} else if (rs->congested && rcv < limit / 2) {
		__atomic_store_n(&rs->congested, false, __ATOMIC_RELEASE);
		rds_cong_clear(rs->la->cong, rs->f.bound_port);
		changed = true;
	}
	rte_spinlock_unlock(&rs->cong_lock);
	/* Local senders see the map at once; as the kernel does for
	 * loopback, tell monitors about every port. */
	if (changed)
		rds_cong_map_changed(~0ULL);
}

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

#define RDS_CONG_MAX_MAPS 1024

static struct rte_hash *rds_cong_hash;
static rte_spinlock_t rds_cong_lock = RTE_SPINLOCK_INITIALIZER;

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
	while (rte_hash_iterate(rds_cong_hash, &key, &data, &it) >= 0)
		rds_mem_free(data);
	rte_hash_free(rds_cong_hash);
	rds_cong_hash = NULL;
}

/* Find, or create, the map of an address. Lookups are lock-free; the rare
 * creation is serialised. Maps live until rte_rds_fini(). */
struct rds_cong_map *
rds_cong_map_get(const struct in6_addr *addr)
{
	struct rds_cong_map *map;
	void *data;

	if (rte_hash_lookup_data(rds_cong_hash, addr, &data) >= 0)
		return data;
	rte_spinlock_lock(&rds_cong_lock);
	if (rte_hash_lookup_data(rds_cong_hash, addr, &data) >= 0) {
		map = data;
	} else {
		map = rds_mem_zalloc("rds_cong_map", sizeof(*map));
		if (map != NULL) {
			map->addr = *addr;
			if (rte_hash_add_key_data(rds_cong_hash, addr,
						  map) < 0) {
				rds_mem_free(map);
				map = NULL;
			}
		}
	}
	rte_spinlock_unlock(&rds_cong_lock);
	return map;
}

bool
rds_cong_test(const struct rds_cong_map *map, uint16_t port)
{
	uint64_t w = __atomic_load_n(&map->bits[port / 64], __ATOMIC_ACQUIRE);

	return (w >> (port % 64)) & 1;
}

void
rds_cong_set(struct rds_cong_map *map, uint16_t port)
{
	__atomic_fetch_or(&map->bits[port / 64], 1ULL << (port % 64),
			  __ATOMIC_RELEASE);
	__atomic_fetch_add(&map->gen, 1, __ATOMIC_RELEASE);
}

void
rds_cong_clear(struct rds_cong_map *map, uint16_t port)
{
	__atomic_fetch_and(&map->bits[port / 64], ~(1ULL << (port % 64)),
			   __ATOMIC_RELEASE);
	__atomic_fetch_add(&map->gen, 1, __ATOMIC_RELEASE);
}

/* Wire bytes are little-endian bit order: bit p is bit (p % 8) of byte
 * p / 8, which is bit (p % 64) of little-endian 64-bit word p / 64. */
void
rds_cong_map_update(struct rds_cong_map *map, const void *wire_bits)
{
	const uint8_t *src = wire_bits;
	unsigned int i;
	uint64_t w;

	for (i = 0; i < RDS_CONG_MAP_WORDS; i++) {
		memcpy(&w, src + i * 8, 8);
		__atomic_store_n(&map->bits[i], rte_le_to_cpu_64(w),
				 __ATOMIC_RELEASE);
	}
	__atomic_fetch_add(&map->gen, 1, __ATOMIC_RELEASE);
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

	if (!rs->congested ? rcv <= limit : rcv >= limit / 2)
		return;
	rte_spinlock_lock(&rs->cong_lock);
	rcv = __atomic_load_n(&rs->rcv_bytes, __ATOMIC_ACQUIRE);
	if (!rs->congested && rcv > limit) {
		rs->congested = true;
		rds_cong_set(rs->la->cong, rs->bound_port);
	} else if (rs->congested && rcv < limit / 2) {
		rs->congested = false;
		rds_cong_clear(rs->la->cong, rs->bound_port);
	}
	rte_spinlock_unlock(&rs->cong_lock);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the unit_eth sources share (unit_eth.c: the transport's needs,
 * mbuf pools, the independent frame encoding; unit_eth_wire.c,
 * unit_eth_arp.c, unit_eth_fault.c, unit_eth_crc.c: the tests by module).
 */
#ifndef UNIT_ETH_H_
#define UNIT_ETH_H_

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <CUnit/CUnit.h>

#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_hash_crc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "rds_test.h"
#include "rds_eth.h"

#define POOL_N 4095

#define UPORT RDS_ETH_UDP_PORT

/* Offsets in a frame without IP options. */
#define O_ETYPE 12
#define O_IP 14
#define O_IPLEN (O_IP + 2)
#define O_FRAG (O_IP + 6)
#define O_TTL (O_IP + 8)
#define O_PROTO (O_IP + 9)
#define O_IPSUM (O_IP + 10)
#define O_SIP (O_IP + 12)
#define O_DIP (O_IP + 16)
#define O_UDP 34
#define O_UDPLEN (O_UDP + 4)
#define O_H 42
#define O_VER (O_H + 0)
#define O_TYPE (O_H + 1)
#define O_FLAGS (O_H + 2)
#define O_LEN (O_H + 30)
#define O_CRC (O_H + 36)
#define O_PAY 82

extern unsigned int rds_eth_slot;
extern struct rte_mbuf *cap[];
extern unsigned int nb_cap;
extern struct rte_mempool *pool;
extern struct rte_mempool *bigpool;
extern struct rte_mempool *tinypool;
extern const struct rte_ether_addr mac_a;
extern const struct rte_ether_addr mac_b;
extern const struct rte_ether_addr mac_c;
extern struct rds_engine *eng;

void cap_clear(void);
uint32_t ip4(const char *s);
unsigned int pool_free(struct rte_mempool *mp);
void check_no_leak(void);
uint32_t ref_crc32c(uint32_t crc, const void *buf, size_t len);
uint16_t ref_sum(const uint8_t *p, size_t len);
uint16_t rd16(const uint8_t *p);
uint32_t rd32(const uint8_t *p);
void wr16(uint8_t *p, uint16_t v);
void fix_ipsum(uint8_t *b);
void fix_crc(uint8_t *h, uint32_t plen);
void frame_fields(struct rds_eth_frame *f, uint64_t *rs, uint16_t len);
struct rte_mbuf *
mk_frame(struct rte_mempool *mp, const struct rds_eth_frame *f, uint64_t key,
	 bool offload);
uint8_t *flat(const struct rte_mbuf *m, uint32_t *len);
enum rds_eth_drop
parse_prefix(const uint8_t *b, uint32_t len, struct rds_eth_frame *f);
bool
same_fields(const struct rds_eth_frame *a, const struct rds_eth_frame *b);
void test_crc_vector(void);
void test_crc_known(void);
void test_crc_dispatch(void);
void test_crc_interleaved(void);
void test_crc_fallback(void);
void test_crc_reparse(void);
void test_build_layout(void);
void test_build_invalid(void);
void test_build_ip_cksum(void);
void test_parse_ip_cksum(void);
void test_roundtrip(void);
void test_chain(void);
void test_truncated(void);
void test_padding(void);
void test_not_ours(void);
void test_bad_ip(void);
void test_bad_header(void);
void test_bit_flips(void);
void test_is_arp(void);
void test_arp_request_answered(void);
void test_arp_bad_frames(void);
void test_arp_resolve_reply(void);
void test_arp_mac_change(void);
void test_arp_rate_limit(void);
void test_neigh_static(void);
void test_neigh_full(void);
void test_neigh_concurrent(void);
/* unit_eth_v6.c */
void test_v6_build_layout(void);
void test_v6_roundtrip(void);
void test_v6_bad(void);
void test_nd_solicit_answered(void);
void test_nd_resolve(void);
void test_nd_options(void);
void test_nd_ignored(void);
void test_nd_static_learn(void);
void test_nd_arp_zero(void);
void test_fault_zero(void);
void test_fault_drop(void);
void test_fault_dup(void);
void test_fault_reorder(void);
void test_fault_reorder_timeout(void);
void test_fault_delay(void);
void test_fault_corrupt(void);
void test_fault_reproducible(void);
void test_fault_flush(void);
void test_fault_all(void);
/* unit_eth_cc.c */
void test_cc_slow_start(void);
void test_cc_loss_once(void);
void test_cc_timeout(void);
void test_cc_off(void);
void test_cc_delay(void);

#endif /* UNIT_ETH_H_ */

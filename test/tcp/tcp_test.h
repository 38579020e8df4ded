/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef TCP_TEST_H
#define TCP_TEST_H

/*
 * The tcp suite's shared parts (tcp_stream.c, tcp_peer.c, tcp_v6.c): the
 * addresses of the run, the library's set-up, the transport's counters,
 * and the kernel's RDS header as a peer played with plain TCP sockets
 * writes it (net/rds/rds.h, written here, not the library's encoder: the
 * test checks the library against it).
 *
 * A run is IPv4 (tcp_stream) or IPv6 (tcp_stream v6, from tcp_v6.sh in a
 * network namespace of its own): A and B are the library's two
 * addresses, LO a played peer lower than both, HI one higher than both.
 * IPv4: 127.84.N.10, .20, .5, .30 on the loopback interface, N from the
 * process id, so that two runs (the normal and the ASan build) do not
 * meet. IPv6: fd00:84::10, ::20, ::5, ::30 on lo, and the link-local
 * fe80::10 and fe80::20 on the veth v0 (TCP_LL_DEV).
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <rte_rds_tcp.h>

#include "rds_test.h"

#define TCP_LL_DEV "v0"
#define TCP_LL_A "fe80::10"
#define TCP_LL_B "fe80::20"

extern bool tcp_v6;
extern char ip_a[48], ip_b[48], ip_lo[48], ip_hi[48];

void tcp_addrs_init(bool v6);
/* The library with A and B on tcp, one engine on the worker lcore. */
void tcp_lib_up(void);
struct rte_rds_tcp_stats tcp_stats(void);
void tcp_print_stats(const char *what);
/* The address of a string, as the library keeps it (IPv4 v4-mapped). */
struct in6_addr tcp_in6(const char *ip);

/* The kernel's struct rds_header. */
#define HDR_LEN 48
#define FLAG_CONG_BITMAP 0x01
#define CONG_MAP_BYTES 8192

struct raw_hdr {
	uint64_t seq, ack;
	uint32_t len;
	uint16_t sport, dport;
	uint8_t flags;
};

void raw_encode(uint8_t *p, const struct raw_hdr *h, bool csum);
bool raw_decode(const uint8_t *p, struct raw_hdr *h);
/* A TCP connection from `from` (any port) to to:16385, or -1. */
int raw_connect(const char *from, const char *to);
ssize_t raw_read(int fd, void *buf, size_t len, int timeout_ms);
bool raw_closed(int fd);
bool raw_send_frame(int fd, uint64_t seq, uint16_t sport, uint16_t dport,
		    const void *p, uint32_t len, bool csum);

/* tcp_peer.c */
void test_raw_peer(void);
void test_knock(void);

/* tcp_v6.c: the IPv6 run's own cases. */
void test_v6_linklocal(void);
void test_v6_errno(void);
void test_v6_info(void);

#endif /* TCP_TEST_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Seed corpus of fuzz_eth: fuzz_eth_corpus DIR writes one file per frame
 * into DIR (corpus/eth is its output, committed). Frames are made with
 * rds_eth_frame_build, so they follow the wire format as the transport
 * sends it, plus the variants parse has to tell apart: every frame type,
 * payloads from 0 to 1400 bytes, IPv4 options, Ethernet padding, and one
 * of each refusal (truncated, VLAN tag, ARP, fragment, bad checksum,
 * other port, bad version, type, length, CRC). Deterministic: the same
 * files every run.
 *
 *   cc -O2 -msse4.2 -mpclmul -Ilib/rds -Idrivers/rds/eth -Ibuild \
 *      $(pkg-config --cflags libdpdk) -include rte_config.h \
 *      -DALLOW_EXPERIMENTAL_API test/fuzz/fuzz_eth_corpus.c \
 *      drivers/rds/eth/rds_eth_wire.c drivers/rds/eth/rds_eth_crc.c \
 *      $(pkg-config --libs libdpdk) -o /tmp/fuzz_eth_corpus
 *   /tmp/fuzz_eth_corpus test/fuzz/corpus/eth
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "rds_eth.h"
#include "fuzz_eth.h"

static struct fuzz_eth_mbuf fm;
static const char *dir;
static unsigned int nb_files;

static const struct rte_ether_addr mac_a = {{ 0x02, 0, 0, 0, 0, 0x0a }};
static const struct rte_ether_addr mac_b = {{ 0x02, 0, 0, 0, 0, 0x0b }};

static const char *const reasons[RDS_ETH_DROP_MAX] = {
	"accepted", "SHORT", "NOT_OURS", "IP", "VERSION", "TYPE", "LEN", "CRC",
};

/* Write the seed, and say what parse makes of it. */
static void
put(const char *name, const uint8_t *b, uint32_t len)
{
	struct rds_eth_frame f;
	char path[4096];
	FILE *fp;

	printf("%02u-%-16s %5u bytes: %s\n", nb_files, name, len,
	       reasons[rds_eth_frame_parse_buf(b, len, RDS_ETH_UDP_PORT, &f)]);

	snprintf(path, sizeof(path), "%s/%02u-%s", dir, nb_files++, name);
	fp = fopen(path, "wb");
	if (fp == NULL || fwrite(b, 1, len, fp) != len || fclose(fp) != 0) {
		perror(path);
		exit(1);
	}
}

/* A frame as the transport builds it; returns its bytes (in fm). */
static uint8_t *
frame(uint8_t type, uint16_t flags, uint16_t len, uint32_t seq)
{
	struct rds_eth_frame f;
	struct rte_mbuf *m;
	uint8_t *b;
	uint32_t i;

	memset(&f, 0, sizeof(f));
	f.type = type;
	f.flags = flags;
	f.src_epoch = 0x1234567;
	f.dst_epoch = type == RDS_ETH_F_DATA && seq == 0 ? 0 : 0x7654321;
	f.seq = seq;
	f.ack = seq / 2;
	f.sack = seq != 0 ? 0x5 : 0;
	f.wnd = 128;
	f.len = len;
	f.frag_off = (flags & RDS_ETH_FL_FIRST) != 0 ? 0 : 1400;
	m = fuzz_eth_mbuf(&fm, NULL, RDS_ETH_HDRS + len);
	b = rte_pktmbuf_mtod(m, uint8_t *);
	for (i = 0; i < len; i++)
		b[RDS_ETH_HDRS + i] = (uint8_t)(i * 7 + seq);
	if (rds_eth_frame_build(m, &mac_a, &mac_b, inet_addr("10.0.0.1"),
				inet_addr("10.0.0.2"), 49152, RDS_ETH_UDP_PORT,
				&f, false) != 0) {
		fprintf(stderr, "build failed\n");
		exit(1);
	}
	return b;
}

/* The same over IPv6 (fd00::1 to fd00::2): 20 bytes more in front. */
static uint8_t *
frame6(uint8_t type, uint16_t flags, uint16_t len, uint32_t seq)
{
	struct rds_eth_frame f;
	struct rte_mbuf *m;
	struct in6_addr s, d;
	uint8_t *b;
	uint32_t i;

	memset(&f, 0, sizeof(f));
	f.type = type;
	f.flags = flags;
	f.src_epoch = 0x1234567;
	f.dst_epoch = 0x7654321;
	f.seq = seq;
	f.ack = seq / 2;
	f.wnd = 128;
	f.len = len;
	inet_pton(AF_INET6, "fd00::1", &s);
	inet_pton(AF_INET6, "fd00::2", &d);
	m = fuzz_eth_mbuf(&fm, NULL, RDS_ETH_HDRS + len);
	b = rte_pktmbuf_mtod(m, uint8_t *);
	for (i = 0; i < len; i++)
		b[RDS_ETH_HDRS + i] = (uint8_t)(i * 5 + seq);
	if (rds_eth_frame_build6(m, &mac_a, &mac_b, &s, &d, 49152,
				 RDS_ETH_UDP_PORT, &f) != 0) {
		fprintf(stderr, "build6 failed\n");
		exit(1);
	}
	return rte_pktmbuf_mtod(m, uint8_t *);
}

static void
fix_ipsum(uint8_t *b)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(void *)(b + 14);

	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

int
main(int argc, char **argv)
{
	static uint8_t buf[2048];
	uint8_t *b;
	uint32_t n;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	dir = argv[1];

	/* Accepted frames. */
	b = frame(RDS_ETH_F_DATA, RDS_ETH_FL_OPEN | RDS_ETH_FL_FIRST |
		  RDS_ETH_FL_LAST, 48, 0);
	put("data-open-48", b, RDS_ETH_HDRS + 48);
	b = frame(RDS_ETH_F_DATA, RDS_ETH_FL_FIRST, 1400, 1);
	put("data-first-1400", b, RDS_ETH_HDRS + 1400);
	b = frame(RDS_ETH_F_DATA, RDS_ETH_FL_LAST, 1, 2);
	put("data-last-1", b, RDS_ETH_HDRS + 1);
	b = frame(RDS_ETH_F_DATA, 0, 0, 3);
	put("data-0", b, RDS_ETH_HDRS);
	b = frame(RDS_ETH_F_RDMA_REQ, RDS_ETH_FL_FIRST | RDS_ETH_FL_LAST, 64,
		  4);
	put("rdma-req-64", b, RDS_ETH_HDRS + 64);
	b = frame(RDS_ETH_F_RDMA_RESP, RDS_ETH_FL_FIRST, 200, 5);
	put("rdma-resp-200", b, RDS_ETH_HDRS + 200);
	b = frame(RDS_ETH_F_ACK, 0, 0, 6);
	put("ack", b, RDS_ETH_HDRS);

	/* Ethernet padding after the datagram. */
	b = frame(RDS_ETH_F_ACK, 0, 0, 7);
	memcpy(buf, b, RDS_ETH_HDRS);
	memset(buf + RDS_ETH_HDRS, 0, 18);
	put("ack-padded", buf, RDS_ETH_HDRS + 18);

	/* IPv4 options (IHL 6: a NOP and an end of list). */
	b = frame(RDS_ETH_F_DATA, RDS_ETH_FL_FIRST | RDS_ETH_FL_LAST, 10, 8);
	memcpy(buf, b, 34);
	buf[34] = 1;
	buf[35] = 1;
	buf[36] = 1;
	buf[37] = 0;
	memcpy(buf + 38, b + 34, RDS_ETH_HDRS + 10 - 34);
	buf[14] = 0x46;
	buf[16] = 0;
	buf[17] = (uint8_t)(RDS_ETH_HDRS + 10 - 14 + 4);
	fix_ipsum(buf);
	put("ip-options", buf, RDS_ETH_HDRS + 10 + 4);

	/* Refusals, one of each. */
	b = frame(RDS_ETH_F_DATA, 0, 20, 9);
	put("short", b, RDS_ETH_HDRS + 10);
	n = RDS_ETH_HDRS + 20;
	memcpy(buf, b, 12);			/* VLAN tag */
	buf[12] = 0x81;
	buf[13] = 0x00;
	buf[14] = 0x00;
	buf[15] = 0x05;
	memcpy(buf + 16, b + 12, n - 12);
	put("vlan", buf, n + 4);
	memcpy(buf, b, n);			/* a first fragment */
	buf[20] = 0x20;
	buf[21] = 0;
	fix_ipsum(buf);
	put("fragment", buf, n);
	memcpy(buf, b, n);			/* checksum */
	buf[24] ^= 0xff;
	put("ip-cksum", buf, n);
	memcpy(buf, b, n);			/* another port */
	buf[37] ^= 1;
	put("port", buf, n);
	memcpy(buf, b, n);			/* version: the one before */
	buf[42] = RDS_ETH_VERSION - 1;
	put("version", buf, n);
	memcpy(buf, b, n);			/* type */
	buf[43] = 9;
	put("type", buf, n);
	memcpy(buf, b, n);			/* length */
	buf[73] ^= 1;
	put("len", buf, n);
	memcpy(buf, b, n);			/* CRC */
	buf[n - 1] ^= 0x80;
	put("crc", buf, n);

	/* An ARP request (not for the parser: NOT_OURS). */
	memset(buf, 0, 60);
	memset(buf, 0xff, 6);
	memcpy(buf + 6, &mac_a, 6);
	buf[12] = 0x08;
	buf[13] = 0x06;
	buf[15] = 1;
	buf[16] = 0x08;
	buf[18] = 6;
	buf[19] = 4;
	buf[21] = 1;
	memcpy(buf + 22, &mac_a, 6);
	memcpy(buf + 28, "\x0a\x00\x00\x01", 4);
	memcpy(buf + 38, "\x0a\x00\x00\x02", 4);
	put("arp", buf, 60);

	/* IPv6: accepted frames, and the refusals of its own. */
	n = RDS_ETH_HDRS + RDS_ETH_V6_EXTRA;
	b = frame6(RDS_ETH_F_DATA, RDS_ETH_FL_OPEN | RDS_ETH_FL_FIRST |
		   RDS_ETH_FL_LAST, 48, 0);
	put("v6-data-open-48", b, n + 48);
	b = frame6(RDS_ETH_F_DATA, RDS_ETH_FL_FIRST, 1400, 1);
	put("v6-data-first-1400", b, n + 1400);
	b = frame6(RDS_ETH_F_ACK, 0, 0, 2);
	put("v6-ack", b, n);
	b = frame6(RDS_ETH_F_DATA, RDS_ETH_FL_LAST, 20, 3);
	memcpy(buf, b, n + 20);
	put("v6-short", buf, n + 10);
	buf[20] = 0;				/* a hop-by-hop header */
	put("v6-ext-header", buf, n + 20);
	memcpy(buf, b, n + 20);			/* a multicast source */
	buf[22] = 0xff;
	put("v6-mcast-src", buf, n + 20);
	memcpy(buf, b, n + 20);			/* payload length */
	buf[19] ^= 4;
	put("v6-plen", buf, n + 20);
	memcpy(buf, b, n + 20);			/* CRC */
	buf[n + 19] ^= 0x80;
	put("v6-crc", buf, n + 20);
	/* A neighbour solicitation (ICMPv6: NOT_OURS for the parser). */
	memcpy(buf, b, 14 + 40);
	buf[18] = 0;
	buf[19] = 32;
	buf[20] = 58;
	buf[21] = 255;
	memset(buf + 54, 0, 32);
	buf[54] = 135;
	memcpy(buf + 62, buf + 38, 16);
	buf[78] = 1;
	buf[79] = 1;
	memcpy(buf + 80, &mac_a, 6);
	put("v6-nd-solicit", buf, 14 + 40 + 32);

	printf("%u seeds in %s\n", nb_files, dir);
	return 0;
}

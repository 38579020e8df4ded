/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RDS_ETH_WIRE_H
#define RDS_ETH_WIRE_H

/*
 * The eth transport's frame layout and CRC32C: the wire format (see
 * rds_eth.h's header comment), build and parse (rds_eth_wire.c), the
 * CRC (rds_eth_crc.c). Included by rds_eth.h; stands on its own for the
 * modules that only build and parse frames.
 */

#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#define RDS_ETH_UDP_PORT 18634
/* 3: congestion maps as sparse updates (RDS_TRANS_F_MAP_DELTA); 2: the
 * frame ACKs acknowledge RDS messages (rds_eth.h). */
#define RDS_ETH_VERSION 3
#define RDS_ETH_L2L3L4 (14 + 20 + 8)	/* Ethernet + IPv4 + UDP */
/* An IPv6 header is 20 bytes longer than an IPv4 one without options:
 * an IPv6 frame's headers take that much more in front of the IPv4
 * layout (rds_eth_frame_build6). */
#define RDS_ETH_V6_EXTRA 20
/* An IPv6 frame's CRC32C covers its addresses too (the 32 bytes of
 * source and destination, as in the IPv6 header, before the eth
 * header): IPv6 has no header checksum and the UDP checksum is 0, so
 * that a corrupted address would otherwise go unseen. */
#define RDS_ETH_V6_ADDRS 32

/* ------------------------------------------------------------------ */
/* Wire (rds_eth_wire.c) */

enum rds_eth_ftype {
	RDS_ETH_F_DATA = 1,		/* sequenced: fragment of an RDS frame */
	RDS_ETH_F_RDMA_REQ = 2,		/* sequenced: fragment of a request */
	RDS_ETH_F_RDMA_RESP = 3,	/* sequenced: fragment of a response */
	RDS_ETH_F_ACK = 4,		/* acknowledgement only */
};

#define RDS_ETH_FL_OPEN 0x01	/* the sender's epoch is not acknowledged
				 * yet: the frame may create state */
#define RDS_ETH_FL_FIRST 0x02	/* first fragment of a unit */
#define RDS_ETH_FL_LAST 0x04	/* last fragment of a unit */
#define RDS_ETH_FL_RESET 0x08	/* (ACK) no state for the dst_epoch the
				 * receiver sent: start again */
#define RDS_ETH_FL_ACKREQ 0x10	/* acknowledge now, not after the delay:
				 * (DATA) its sender waits for the
				 * buffer; (ACK) a poke, its sender holds
				 * nothing the receiver lacks but has not
				 * seen the ACK that says so */
#define RDS_ETH_FL_ALL (RDS_ETH_FL_OPEN | RDS_ETH_FL_FIRST | \
			RDS_ETH_FL_LAST | RDS_ETH_FL_RESET | \
			RDS_ETH_FL_ACKREQ)
/* Not on the wire: set by rds_eth_frame_parse6 in a decoded frame's
 * flags (an IPv6 frame: src6/dst6 are its addresses, src_ip and dst_ip
 * 0), and by the driver in the frames it answers from (a reset). */
#define RDS_ETH_FF_V6 0x8000

struct rds_eth_hdr {
	uint8_t version;		/* RDS_ETH_VERSION */
	uint8_t type;			/* enum rds_eth_ftype */
	rte_be16_t flags;		/* RDS_ETH_FL_* */
	rte_be32_t src_epoch;		/* the sender's incarnation, never 0 */
	rte_be32_t dst_epoch;		/* the receiver's, as the sender knows
					 * it (0: not yet) */
	rte_be32_t seq;			/* sequenced types: frame number from
					 * 0 in each epoch */
	rte_be32_t ack;			/* every frame of the peer's below this
					 * arrived */
	rte_be64_t sack;		/* bit i: frame ack + 1 + i arrived */
	rte_be16_t wnd;			/* frames the sender of this can take
					 * from ack on */
	rte_be16_t len;			/* payload bytes after this header */
	rte_be32_t frag_off;		/* the fragment's offset in its unit */
	rte_be32_t crc;			/* CRC32C of this header (crc 0) and
					 * the payload */
} __rte_packed;

#define RDS_ETH_HDR_SIZE 40
_Static_assert(sizeof(struct rds_eth_hdr) == RDS_ETH_HDR_SIZE,
	       "eth header size");

/* A frame's header, decoded (host byte order). */
struct rds_eth_frame {
	uint8_t type;
	uint16_t flags;
	uint32_t src_epoch;
	uint32_t dst_epoch;
	uint32_t seq;
	uint32_t ack;
	uint64_t sack;
	uint16_t wnd;
	uint16_t len;
	uint32_t frag_off;
	/* From the outer headers. */
	struct rte_ether_addr src_mac;
	uint32_t src_ip;		/* network byte order */
	uint32_t dst_ip;
	uint16_t src_port;		/* UDP, host order */
	const uint8_t *payload;		/* len bytes, inside the mbuf */
	/* An IPv6 frame's addresses (flags has RDS_ETH_FF_V6; not written
	 * for an IPv4 frame). */
	struct in6_addr src6;
	struct in6_addr dst6;
};

static inline bool
rds_eth_frame_v6(const struct rds_eth_frame *f)
{
	return (f->flags & RDS_ETH_FF_V6) != 0;
}

/* Why a frame was refused (counted per reason). */
enum rds_eth_drop {
	RDS_ETH_DROP_NONE = 0,
	RDS_ETH_DROP_SHORT,		/* shorter than its headers say */
	RDS_ETH_DROP_NOT_OURS,		/* other ethertype, protocol, port or
					 * address: not for RDS (not an error) */
	RDS_ETH_DROP_IP,		/* bad IPv4 header (version, length,
					 * fragment, checksum) or IPv6 header
					 * (version, multicast or v4-mapped
					 * source, an extension header in a
					 * frame to our UDP port) */
	RDS_ETH_DROP_VERSION,		/* unknown eth header version */
	RDS_ETH_DROP_TYPE,		/* unknown frame type or flags */
	RDS_ETH_DROP_LEN,		/* payload length inconsistent */
	RDS_ETH_DROP_CRC,		/* CRC32C mismatch */
	RDS_ETH_DROP_MAX,
};

/* Build the outer headers and the eth header of a frame in m.
 *
 * Convention: the caller allocates m and reserves the first RDS_ETH_HDRS
 * (82) bytes of its data for the headers (rte_pktmbuf_append(m,
 * RDS_ETH_HDRS), contents unimportant), then appends the payload, f->len
 * bytes, after them (in the first segment or in further segments: a
 * chain is fine here, only the 82 header bytes must be in the first
 * one). So rte_pktmbuf_pkt_len(m) == RDS_ETH_HDRS + f->len, and
 * f->len <= RDS_ETH_MAX_PAYLOAD. Build fills the 82 bytes: Ethernet from
 * src to dst MAC (IPv4 ethertype, no VLAN tag), IPv4 from sip to dip
 * (network order; IHL 5, DF, TTL 64, id 0, total length), UDP from sport
 * to dport (host order; checksum 0, length), the eth header from f (type,
 * flags, epochs, seq, ack, sack, wnd, len, frag_off; the outer-header
 * fields of f are not used) with the CRC32C over header and payload. The
 * IPv4 checksum is computed in software, unless ip_offload: then the
 * field is 0, m->ol_flags gets RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM
 * and l2_len/l3_len are set (without it those two flags are cleared).
 * Returns 0, or -EINVAL (lengths do not match, the first segment holds
 * fewer than 82 bytes, a type or flag parse would refuse, an ACK with a
 * payload): build never makes a frame that rds_eth_frame_parse refuses. */
int rds_eth_frame_build(struct rte_mbuf *m, const struct rte_ether_addr *src,
			const struct rte_ether_addr *dst, uint32_t sip,
			uint32_t dip, uint16_t sport, uint16_t dport,
			const struct rds_eth_frame *f, bool ip_offload);

/* The same for an IPv6 frame (Ethernet, IPv6 from sip to dip, hop
 * limit 64, no traffic class or flow label, no extension headers; UDP
 * with checksum 0, which RFC 6936 allows a protocol with its own check
 * of the payload: the CRC32C, here over the IPv6 addresses too,
 * rds_eth_crc6), from the same mbuf: the caller reserves
 * RDS_ETH_HDRS bytes as for rds_eth_frame_build, and the build takes
 * RDS_ETH_V6_EXTRA more in front (rte_pktmbuf_prepend), so that the
 * payload stays where the caller put it. No offload flags (the IPv4
 * ones are cleared). Returns 0, or -EINVAL as rds_eth_frame_build, or
 * when the mbuf has less than RDS_ETH_V6_EXTRA bytes of headroom
 * (nothing written then). */
int rds_eth_frame_build6(struct rte_mbuf *m, const struct rte_ether_addr *src,
			 const struct rte_ether_addr *dst,
			 const struct in6_addr *sip,
			 const struct in6_addr *dip, uint16_t sport,
			 uint16_t dport, const struct rds_eth_frame *f);

/* The outer headers of every frame from one endpoint to another,
 * written once (rds_eth_tmpl_init): Ethernet, IPv4 with total length
 * and checksum 0, UDP with length and checksum 0, as
 * rds_eth_frame_build writes them; and the sum that the IPv4 checksum
 * starts from. An IPv6 template (rds_eth_tmpl_init6, v6): Ethernet,
 * IPv6 with payload length 0, UDP, as rds_eth_frame_build6 writes
 * them, RDS_ETH_V6_EXTRA bytes more. */
struct rds_eth_tmpl {
	uint8_t hdr[RDS_ETH_L2L3L4 + RDS_ETH_V6_EXTRA];
	bool ip_offload;
	bool v6;
	uint32_t ip_sum;		/* one's complement, not folded, of the
					 * IPv4 header but its total length */
};

/* A template for rds_eth_frame_build's arguments of the same names. */
void rds_eth_tmpl_init(struct rds_eth_tmpl *t, const struct rte_ether_addr *src,
		       const struct rte_ether_addr *dst, uint32_t sip,
		       uint32_t dip, uint16_t sport, uint16_t dport,
		       bool ip_offload);

/* The same for rds_eth_frame_build6's arguments. */
void rds_eth_tmpl_init6(struct rds_eth_tmpl *t,
			const struct rte_ether_addr *src,
			const struct rte_ether_addr *dst,
			const struct in6_addr *sip, const struct in6_addr *dip,
			uint16_t sport, uint16_t dport);

/* rds_eth_frame_build (or _build6, for an IPv6 template) from a
 * template: the same frame byte for byte,
 * without its checks, which the caller's frames pass by construction
 * (the driver's own). */
void rds_eth_frame_build_tmpl(struct rte_mbuf *m, const struct rds_eth_tmpl *t,
			      const struct rds_eth_frame *f);

/* Parse a received frame: Ethernet, IPv4 (to one of our addresses is
 * checked by the caller, with f->dst_ip), UDP to udp_port, eth header,
 * CRC. Fills f (only when the frame is accepted; f->payload points into
 * the mbuf's data, f->len bytes). Returns RDS_ETH_DROP_NONE or why it is
 * refused; never reads past the mbuf's data. A multi-segment mbuf is
 * refused (RDS_ETH_DROP_SHORT) unless linearised by the caller first.
 * The IPv4 checksum is verified in software unless m->ol_flags says
 * RTE_MBUF_F_RX_IP_CKSUM_GOOD (or _NONE); _BAD is RDS_ETH_DROP_IP.
 * Bytes after the IPv4 total length (Ethernet padding) are ignored. */
enum rds_eth_drop rds_eth_frame_parse(const struct rte_mbuf *m,
				      uint16_t udp_port,
				      struct rds_eth_frame *f);

/* The same for a frame that rds_eth_frame_parse accepted before and
 * that nothing changed since (the receiver's out-of-order frames, kept
 * as they came, decoded again in order): every check but the CRC32C,
 * which was checked then and would only cost the payload's bytes
 * again. */
enum rds_eth_drop rds_eth_frame_reparse(const struct rte_mbuf *m,
					uint16_t udp_port,
					struct rds_eth_frame *f);

/* Parse a received IPv6 frame: Ethernet (IPv6 ethertype, else
 * RDS_ETH_DROP_NOT_OURS), IPv6 (version 6, else RDS_ETH_DROP_IP; the
 * payload length within the frame, else RDS_ETH_DROP_SHORT; bytes after
 * it are padding; next header UDP, else RDS_ETH_DROP_NOT_OURS, unless a
 * chain of extension headers leads to UDP to udp_port: RDS_ETH_DROP_IP,
 * we never send one; a multicast or v4-mapped source: RDS_ETH_DROP_IP;
 * any hop limit), UDP to udp_port (its length the payload length, else
 * RDS_ETH_DROP_LEN; its checksum not checked), then the eth header as
 * rds_eth_frame_parse and the CRC32C over the addresses, eth header and
 * payload (rds_eth_crc6). Fills f with RDS_ETH_FF_V6 in its flags,
 * src6 and dst6, src_ip and dst_ip 0. Whether dst6 is ours is the
 * caller's to check. */
enum rds_eth_drop rds_eth_frame_parse6(const struct rte_mbuf *m,
				       uint16_t udp_port,
				       struct rds_eth_frame *f);

/* rds_eth_frame_reparse for an IPv6 frame. */
enum rds_eth_drop rds_eth_frame_reparse6(const struct rte_mbuf *m,
					 uint16_t udp_port,
					 struct rds_eth_frame *f);

/* The same on a flat buffer (the fuzz target uses it): an IPv6 frame
 * (its ethertype) as rds_eth_frame_parse6, any other as
 * rds_eth_frame_parse. */
enum rds_eth_drop rds_eth_frame_parse_buf(const uint8_t *p, uint32_t len,
					  uint16_t udp_port,
					  struct rds_eth_frame *f);

/* CRC32C (Castagnoli) of an eth header (its crc field taken as 0) and
 * payload: the standard CRC32C (initial value ~0, reflected, final
 * complement; "123456789" gives 0xe3069283), computed with
 * rds_eth_crc_update. Stored in the header big-endian. */
uint32_t rds_eth_crc(const struct rds_eth_hdr *h, const void *payload,
		     uint32_t len);

/* The CRC32C of an IPv6 frame: the same over its addresses (addrs: the
 * RDS_ETH_V6_ADDRS bytes of the IPv6 header's source and destination),
 * the eth header (crc 0) and the payload. */
uint32_t rds_eth_crc6(const void *addrs, const struct rds_eth_hdr *h,
		      const void *payload, uint32_t len);

/* ------------------------------------------------------------------ */
/* CRC32C (rds_eth_crc.c; the math is in its header comment) */

/* Buffers of at least this many bytes take the interleaved code (three
 * chains of at least 2 words each: rds-bench-crc found 64 bytes 1.2x
 * the serial code, 48 bytes even); shorter ones one chain of crc32
 * instructions (where the CPU has them), or the serial code. */
#define RDS_ETH_CRC_MIN 64
/* Words (8 bytes) per chain and round of the interleaved code: a round
 * covers at most 3 * 8 * 512 = 12 KiB. */
#define RDS_ETH_CRC_WORDS_MAX 512

enum rds_eth_crc_impl {
	RDS_ETH_CRC_SERIAL,		/* one chain of rte_hash_crc_8byte */
	RDS_ETH_CRC_INTERLEAVED,	/* x86 SSE4.2 + PCLMULQDQ, 3 chains */
};

/* The bare reflected CRC32C update of crc over len bytes at buf (any
 * alignment), no initial or final complement: the standard CRC32C is
 * ~rds_eth_crc_update(~0, buf, len). Takes the implementation that
 * rds_eth_crc_impl_get() says (the interleaved one from start-up where
 * the CPU has SSE4.2 and PCLMULQDQ). */
uint32_t rds_eth_crc_update(uint32_t crc, const void *buf, uint32_t len);

/* rds_eth_crc_update(rds_eth_crc_hdr0(h), buf, len) in one call: a
 * frame's header and (the first part of) its payload. */
uint32_t rds_eth_crc_hdr_update(const struct rds_eth_hdr *h, const void *buf,
				uint32_t len);

/* The same, always the serial code (the reference, and the fallback). */
uint32_t rds_eth_crc_update_serial(uint32_t crc, const void *buf,
				   uint32_t len);

/* The update from ~0 over the eth header h with its crc field taken as
 * 0 (what rds_eth_crc starts from): on the instructions directly where
 * the interleaved implementation is in use, else the serial code over a
 * copy. */
uint32_t rds_eth_crc_hdr0(const struct rds_eth_hdr *h);
enum rds_eth_crc_impl rds_eth_crc_impl_get(void);

/* For tests and benchmarks (not thread-safe against CRCs under way):
 * take impl from now on (-ENOTSUP: the interleaved code on a CPU or
 * architecture without it; -EINVAL: no such impl); table: the serial
 * code uses DPDK's table code (CRC32_SW) instead of the CRC
 * instructions. Returns 0 or the negative errno. */
int rds_eth_crc_impl_set(enum rds_eth_crc_impl impl, bool table);

/* Is m an ARP frame? (ethertype), for rds_eth_arp_input. */
bool rds_eth_is_arp(const struct rte_mbuf *m);
/* Is m an IPv6 frame? (ethertype) */
bool rds_eth_is_ipv6(const struct rte_mbuf *m);


#endif /* RDS_ETH_WIRE_H */

/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RTE_RDS_ETH_H
#define RTE_RDS_ETH_H

/**
 * @file
 * The eth transport: RDS over UDP/IPv4 or UDP/IPv6 (port 18634) on any
 * DPDK ethdev PMD (a NIC, net_memif between processes, net_af_packet or net_af_xdp
 * on a veth, net_ring in one process), with a reliable frame layer of
 * its own below RDS sequencing: per-frame sequence numbers, a window,
 * cumulative and selective acknowledgements, fast retransmit and a
 * retransmit timer from the measured round trip (a floor in
 * microseconds), a CRC32C over each frame, fragmentation of messages up
 * to 1 MiB to the MTU. RDMA READ, WRITE and atomics are frames the
 * peer's engine executes against its memory regions.
 *
 * An address is declared with transport "eth" and options (key=value,
 * comma separated: rte_rds_conf_add_addr_str(conf,
 * "10.0.0.1=eth,port=net_memif0")). An IPv6 address ("[fd00::1]=eth")
 * has IPv6 frames (Ethernet | IPv6 | UDP, the same eth header; the
 * CRC32C covers the IPv6 source and destination too; UDP checksum 0, as
 * RFC 6936 allows a protocol that checks its own payload) and its peers
 * are IPv6 addresses; its neighbours come from neighbour discovery
 * (RFC 4861 solicitations and advertisements on the port; invalid ones
 * counted in nd_drop), from neigh= or from their frames. A link-local
 * one ("[fe80::1]=eth") is on the port's link: a DPDK port has no
 * interface index, so the socket's scope is not checked against it.
 *
 *   port=NAME|ID     the ethdev (its name, e.g. net_memif0, or its port
 *                    id; "dev=" is a synonym); may be left out when the
 *                    process has exactly one ethdev
 *   configure=0|1    1 (default): the library configures the port (a
 *                    receive and a transmit queue per engine, as many as
 *                    the PMD has; the MTU; MULTI_SEGS where advertised),
 *                    starts it and stops it at rte_rds_fini(); 0: the
 *                    application configured and started it, the library
 *                    polls rxq and transmits on txq
 *   rxq=N            the receive queue to poll (configure=0; default 0)
 *   txq=N            the first transmit queue (configure=0; default 0;
 *                    engine i uses txq + i if the port has it)
 *   mtu=N            IP MTU (default: the port's, 1500 if unknown)
 *   udp_port=N       UDP port (default 18634)
 *   mac=MAC          source MAC (default: the port's)
 *   neigh=IP/MAC[+IP/MAC...]
 *                    static neighbours, IPv4 or IPv6
 *                    ("10.0.0.2/02:00:00:00:00:02+fd00::2/02:00:00:00:
 *                    00:02"; ARP, or neighbour discovery, resolves the
 *                    others)
 *   window=N         frames in flight per connection, a power of two
 *                    from 8 to 4096 (default 128: larger ones were not
 *                    faster on net_memif, doc/perf.md); each frame in flight
 *                    holds an mbuf (two when zero-copy) of the port's
 *                    pool of 16383 until it is acknowledged
 *   cwnd_init=N      congestion control: the congestion window a
 *                    connection starts with, in frames, 2 to window
 *                    (default 10, RFC 6928's initial window, or window
 *                    if smaller); it grows as frames are acknowledged
 *                    and halves on loss (AIMD, doc/guide.md); 0: off,
 *                    every connection may fill its window at once;
 *                    other values (1, above window, not a number):
 *                    EINVAL
 *   delay_us=N       congestion control's delay signal (Swift-like,
 *                    doc/guide.md): a round trip more than N us above
 *                    the smallest one the connection saw (less the
 *                    receiver's ACK delay, which its ACK frames report)
 *                    stops the window's growth and cuts it in
 *                    proportion to the excess, at most once a round trip
 *                    and by at most half; 0 (default): off, loss is the
 *                    only signal; up to 1000000; with cwnd_init=0:
 *                    EINVAL
 *   zerocopy=0|1     1 (default): where the port takes chained mbufs
 *                    (RTE_ETH_TX_OFFLOAD_MULTI_SEGS; a device that DMAs:
 *                    also IOVA as VA and buffers in DPDK memory),
 *                    fragments of at least 512 bytes go as a header mbuf
 *                    chained to an mbuf attached to the message's own
 *                    buffer (no copy; the message is kept until the PMD
 *                    and the retransmit queue let go); 0: always copied
 *   rto_min_us=N     retransmit timer floor (default 200)
 *   kick_us=N        a connection with frames in flight that has
 *                    heard nothing for N us sends an ACK frame asking
 *                    the peer for its ACK (a kick), once until the
 *                    peer's ACKs move again; 0: off (default: 100 on a
 *                    net_af_packet port, 0 elsewhere). On net_af_packet
 *                    a frame the kernel drops on transmit (a full or
 *                    dropping qdisc, netfilter on egress) stops the
 *                    kernel's walk of the transmit ring, and the frames
 *                    behind it leave only at the PMD's next transmit:
 *                    the kick is that transmit, on both sides (the
 *                    peer's ACK is one), long before the tail probe
 *                    (max(2 srtt, rto_min_us))
 *   rto_max_us=N     retransmit timer ceiling (default 1000000)
 *   dead_after=N     timeouts in a row before the peer is reported
 *                    unresponsive (default 16; it is kept trying, and its
 *                    messages stay queued until cancelled)
 *   relink=0|1       1 (default, with configure=1): a port whose link
 *                    stays down for 500 ms is stopped and started again,
 *                    then again after 1, 2, 4 and 8 s while it stays
 *                    down (a net_memif client connects only when its
 *                    port starts: without this it never finds a server
 *                    that restarted, or one that came after it). Never
 *                    a net_memif server's port (role=server, memif's
 *                    default): its listening socket takes a new client
 *                    anyway, and a restart while the client connects
 *                    races with the PMD's interrupt thread
 *
 * Several addresses may share a port. With several engines (configure=1)
 * each polls a receive queue of its own; a connection's frames are sent
 * to its engine's queue by an rte_flow rule (IPv4 source = peer,
 * destination = local address, UDP destination = udp_port -> queue)
 * where rte_flow_validate and rte_flow_create take it, and are handed to
 * the owning engine in software (an rte_ring per engine, batched, no
 * allocation) where the PMD has no rte_flow or a frame arrives elsewhere
 * (rx_steered, rx_handoff, flow_rules, flow_fail count which).
 *
 * Offloads: the IPv4 header checksum where the port computes it (and
 * checks it on receive); chained mbufs as above. TCP segmentation
 * offload does not apply: it cuts one TCP payload and repeats one
 * header, while every frame here is a UDP datagram with its own eth
 * header (sequence, fragment offset, a CRC32C of that frame) that a NIC
 * cannot write; UDP segmentation offload repeats one UDP payload header
 * the same way, so it is not used either. The CRC32C is always software:
 * on x86-64 with SSE4.2 and PCLMULQDQ three interleaved chains of crc32
 * instructions, combined (drivers/rds/eth/rds_eth_crc.c), elsewhere
 * rte_hash_crc (SSE4.2, ARMv8 CRC instructions or tables); the same
 * value either way.
 *
 * Counters: rte_rds_xstats_get("eth", ...) with the names of struct
 * rte_rds_eth_stats's fields.
 */

#include <stdint.h>

#include <rte_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Counters of the eth transport, summed over engines (the typed view of
 * rte_rds_xstats_get("eth", ...), same names, same order). */
struct rte_rds_eth_stats {
	uint64_t tx_frames;		/**< frames handed to the PMD */
	uint64_t tx_full;		/**< frames the PMD refused (resent later) */
	uint64_t tx_no_mbuf;		/**< sends held back for lack of mbufs
					 * (none left, or the port's pool at its
					 * reserve) */
	uint64_t tx_window_full;	/**< sends held back by the window */
	uint64_t rx_frames;		/**< frames received for RDS */
	uint64_t rx_not_ours;		/**< frames for someone else (ignored) */
	uint64_t rx_drop_short;		/**< truncated frames */
	uint64_t rx_drop_ip;		/**< bad IPv4 or IPv6 headers */
	uint64_t rx_drop_version;	/**< unknown eth header versions */
	uint64_t rx_drop_type;		/**< unknown frame types */
	uint64_t rx_drop_len;		/**< inconsistent lengths */
	uint64_t rx_drop_crc;		/**< CRC32C mismatches */
	uint64_t rx_drop_no_conn;	/**< frames for no connection, not
					 * opening one */
	uint64_t rx_drop_stale;		/**< frames of an old epoch */
	uint64_t rx_dup;		/**< duplicates dropped */
	uint64_t rx_ooo;		/**< frames kept out of order */
	uint64_t rx_beyond_window;	/**< frames past the window, dropped */
	uint64_t rx_bad_unit;		/**< fragments that did not fit their
					 * unit (connection reset) */
	uint64_t rx_handoff;		/**< frames handed to another engine */
	uint64_t ack_tx;		/**< ACK-only frames sent */
	uint64_t ack_rx;		/**< ACK-only frames received */
	uint64_t rexmit_fast;		/**< fast retransmissions (a frame sent
					 * once, three SACKed above it) */
	uint64_t rexmit_timeout;	/**< retransmissions by the RTO */
	uint64_t rtt_samples;		/**< round trips measured */
	uint64_t peer_restarts;		/**< peers seen with a new epoch */
	uint64_t peer_unresponsive;	/**< peers reported unresponsive */
	uint64_t conn_opened;		/**< connections made by a peer's
					 * first frame */
	uint64_t arp_tx;		/**< ARP requests and replies sent */
	uint64_t arp_rx;		/**< ARP frames received */
	uint64_t neigh_changed;		/**< peers whose MAC changed */
	uint64_t rdma_exec;		/**< RDMA requests run for peers */
	uint64_t rdma_remote_error;	/**< ... that failed (REMOTE_ERROR) */
	uint64_t fault_dropped;		/**< frames the fault hook dropped */
	uint64_t fault_duplicated;	/**< ... duplicated */
	uint64_t fault_reordered;	/**< ... held back to reorder */
	uint64_t fault_delayed;		/**< ... delayed */
	uint64_t fault_corrupted;	/**< ... corrupted */
	uint64_t port_restarts;		/**< ports stopped and started again
					 * because their link stayed down */
	uint64_t rx_steered;		/**< frames that arrived on the queue of
					 * the engine owning their connection,
					 * on a port with several receive
					 * queues (rte_flow rules, or the PMD's
					 * own spreading) */
	uint64_t rx_handoff_drop;	/**< hand-offs lost: the owner's inbox
					 * was full (sent again by the peer) */
	uint64_t flow_rules;		/**< rte_flow steering rules made */
	uint64_t flow_fail;		/**< rules the PMD refused (those
					 * connections' frames are handed off
					 * in software) */
	uint64_t tx_zc_frames;		/**< frames sent as a header chained to
					 * the message's own buffer (no copy) */
	uint64_t rexmit_sack;		/**< retransmissions of frames the
					 * peer's SACK showed missing (a frame
					 * sent a reordering window before
					 * one acknowledged, RACK; also a lost
					 * retransmission) */
	uint64_t rexmit_probe;		/**< tail probes: the newest frame
					 * sent again, once, before the RTO */
	uint64_t tx_kicks;		/**< ACK frames sent by kick_us (a
					 * connection heard nothing for that
					 * long with frames in flight) */
	uint64_t nd_tx;			/**< IPv6 neighbour solicitations and
					 * advertisements sent */
	uint64_t nd_rx;			/**< IPv6 neighbour solicitations and
					 * advertisements received (valid
					 * ICMPv6) */
	uint64_t nd_drop;		/**< IPv6 neighbour solicitations and
					 * advertisements dropped: hop limit
					 * not 255, code not 0, truncated,
					 * bad ICMPv6 checksum (RFC 4861
					 * 7.1) */
	uint64_t cc_delay_cuts;		/**< congestion windows cut by the
					 * delay signal (delay_us): a round
					 * trip above its target */
};

/**
 * Read the eth transport's counters.
 *
 * @param st
 *   Filled with the counters.
 * @return
 *   0, or -1 with rte_errno ENXIO (not initialised) or EINVAL (NULL).
 */
int rte_rds_eth_stats_get(struct rte_rds_eth_stats *st);

/** Faults injected below the transport, on every frame sent and
 * received, with a seeded generator (reproducible). Rates are in parts
 * per million. All zero: no faults. */
struct rte_rds_eth_faults {
	uint32_t drop_ppm;		/**< frames lost */
	uint32_t dup_ppm;		/**< frames delivered twice */
	uint32_t reorder_ppm;		/**< frames held back ... */
	uint32_t reorder_depth;		/**< ... behind this many others (1..16) */
	uint32_t delay_ppm;		/**< frames delayed ... */
	uint32_t delay_us;		/**< ... this long */
	uint32_t corrupt_ppm;		/**< frames with one byte changed */
	uint64_t seed;			/**< generator seed (0: fixed default) */
};

/**
 * Set the fault injection of the eth transport; every engine takes it at
 * its next poll.
 *
 * @param faults
 *   The faults; NULL turns them off.
 * @return
 *   0, or -1 with rte_errno ENXIO (not initialised) or EINVAL (a rate
 *   over 1,000,000, a reorder depth over 16).
 *
 * @warning @b EXPERIMENTAL: a test and benchmark hook; it may change
 * without notice.
 */
__rte_experimental
int rte_rds_eth_set_faults(const struct rte_rds_eth_faults *faults);

#ifdef __cplusplus
}
#endif

#endif /* RTE_RDS_ETH_H */

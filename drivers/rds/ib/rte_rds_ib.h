/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RTE_RDS_IB_H
#define RTE_RDS_IB_H

/**
 * @file
 * The ib transport: RDS over verbs RC queue pairs and RDMA-CM, speaking
 * the kernel's RDS-over-IB wire protocol 3.1. Addresses declared with
 * transport "ib" must belong to an RDMA device (rdma_cm finds it). IPv4
 * and IPv6 addresses both, as the kernel's rds_rdma: an IPv6
 * connection's CM private data is the kernel's 52-byte IPv6 layout
 * (struct rds6_ib_connect_private: the two addresses as 16 bytes each,
 * then the same version, ACK sequence and credits), its CM port 16385
 * (RDS_CM_PORT) instead of 18634. A link-local IPv6 address is used on
 * its interface (the one holding it; none: EADDRNOTAVAIL at
 * rte_rds_init()), and its peers are link-local on that link.
 *
 * An address takes options (key=value, comma separated, DPDK's devargs
 * style: rte_rds_conf_add_addr_str(conf,
 * "10.0.0.1=ib,srq_min=256,send_wr=255"), or
 * rte_rds_addr_conf.args); each connection uses those of its local
 * address:
 *
 *   dev=NAME         the verbs device the address must be on (e.g.
 *                    rxe0; default: whichever rdma_cm finds; another one
 *                    fails rte_rds_init() with ENODEV)
 *   cm_port=N        RDMA-CM port, 1..65535: the address listens on it
 *                    and connects to it on peers (default 18634 for an
 *                    IPv4 address, 16385 for an IPv6 one: the kernel's,
 *                    a kernel peer listens there only)
 *   send_wr=N        send ring per connection, 16..32768 work requests
 *                    of one 4 KiB fragment each (default 127: half the
 *                    kernel's 256, less one, for what an idle connection
 *                    costs: its send queue is most of it)
 *   srq=0|1          receive from a shared receive queue (SRQ) of the
 *                    engine on the device, for all its connections
 *                    (default 1), or from a ring of each connection's
 *                    own (0). The SRQ is invisible on the wire (the
 *                    kernel's UEK has one too); what it changes is that
 *                    receive buffers grow with traffic, not with peers.
 *                    A device without SRQs gets the rings, with a
 *                    warning. The rings stay as an option for what only
 *                    they give: credits (flow_control=1), and a bound on
 *                    what one peer can take of the receive buffers
 *   srq_min=N        receives the SRQ keeps posted at least,
 *                    16..32768 buffers of 4 KiB (default 1024, one
 *                    kernel connection's ring); doubled, up to srq_max,
 *                    when a pass finds three quarters of them used or
 *                    the device's SRQ limit event comes; with srq=1 only
 *   srq_max=N        receives it may post at most, srq_min..32768
 *                    (default 8192: 32 MiB; also what
 *                    RDS_INFO_IB_CONNECTIONS gives as max_recv_wr); the
 *                    receive CQ holds that many, and an eighth more,
 *                    from the start. The addresses of a device share
 *                    its SRQ on an engine: the largest srq_min and
 *                    srq_max of them count
 *   recv_wr=N        with srq=0: receive ring per connection, 16..32768
 *                    buffers of 4 KiB (default 1024, the kernel's: 4 MiB)
 *   flow_control=0|1 with srq=0: advertise receive credits (default 1
 *                    with srq=0, 0 with the SRQ, where credits stay off:
 *                    they count a connection's own receives); they are
 *                    used when the peer advertises too (the kernel does
 *                    with its flow_control sysctl, off by default);
 *                    without them RNR retries cover a full receive ring
 *   stall_ms=N       reset a connection whose QP has work waiting and
 *                    makes no progress this long, 0..3600000 (default
 *                    5000; 0: never, and no bound on connection
 *                    attempts either, which is otherwise the larger of
 *                    15 s and twice this)
 *   zerocopy=0|1     send fragments from the message buffer itself,
 *                    registered on the device, instead of a copy (into
 *                    a copy buffer of the engine's pool on the device,
 *                    or the send slot when it fits inline) (default 1;
 *                    0: always copy). Buffers are
 *                    registered at their first such send and stay so
 *                    while cached; the header is still built in the slot.
 *                    A build with libc_alloc always copies
 *   zc_min=N         the smallest fragment sent in place, 1..4096 bytes
 *                    (default 1024); smaller ones, and any frame that
 *                    fits inline (header and data within the QP's
 *                    inline size, 128 bytes), are copied
 *   proto=3.1|4.1    the protocol version proposed when connecting
 *                    (default 3.1, as mainline kernels; UEK kernels
 *                    propose 4.1). A request is answered as the kernel
 *                    does: 4.1 or 4.0 to a 4.x proposal (the highest
 *                    minor both masks have), 3.1 to 3.1; an active
 *                    connection accepts any of the three in the reply.
 *                    The wire is the same: 4.1's UEK extras (fragments
 *                    above 4 KiB, heartbeats, payload checksums) are
 *                    not spoken, and a UEK peer falls back from them
 *
 * An unknown key, a value out of range, not a decimal number, a key
 * given twice, recv_wr or flow_control=1 without srq=0, srq_min or
 * srq_max with srq=0, srq_min over srq_max, or a proto other than 3.1
 * and 4.1 fails rte_rds_init() with
 * EINVAL. These settings were fields of struct rte_rds_conf (ib_cm_port,
 * ib_send_wr, ib_recv_wr, ib_flow_control, ib_stall_ms) before; they are
 * options of an address now, as the eth transport's.
 *
 * Counters: rte_rds_xstats_get("ib", ...) with the names of struct
 * rte_rds_ib_stats's fields, or rte_rds_ib_stats_get(). Connections:
 * rte_rds_info(RDS_INFO_IB_CONNECTIONS) gives a struct
 * rds_info_rdma_connection per IPv4 ib connection, and
 * RDS6_INFO_IB_CONNECTIONS a struct rds6_info_rdma_connection per ib
 * connection of either family (rte_rds_info.h), as the kernel.
 */

#include <stdint.h>

#include <rte_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Counters of the ib transport, summed over engines (the typed view of
 * rte_rds_xstats_get("ib", ...), same names, same order). */
struct rte_rds_ib_stats {
	uint64_t connects_active;	/**< connections we initiated that came up */
	uint64_t connects_passive;	/**< connections we accepted that came up */
	uint64_t connect_raced;		/**< requests rejected: we were connecting */
	uint64_t listen_closed_stale;	/**< up connections replaced by a request */
	uint64_t rejects_incompat;	/**< requests with a protocol we do not speak */
	uint64_t connects_proto4;	/**< connections up at protocol 4.0 or
					 * 4.1 (the others run 3.1) */
	uint64_t cm_errors;		/**< address, route, connect errors */
	uint64_t tx_frames;		/**< SENDs posted */
	uint64_t tx_ring_full;		/**< transmit attempts with a full ring */
	uint64_t rx_frames;		/**< receive completions */
	uint64_t rx_frag_mismatch;	/**< fragment headers that did not match */
	uint64_t qp_errors;		/**< completions in error (not flushes) */
	uint64_t qp_errors_injected;	/**< QPs put in error by the test hook */
	uint64_t flowctl_conns;		/**< connections up with credits on */
	uint64_t credit_stalls;		/**< sends held back for lack of credits */
	uint64_t credits_advertised;	/**< receive credits given to peers */
	uint64_t rx_post_calls;		/**< ibv_post_recv calls (each a chain
					 * of the buffers of a burst) */
	uint64_t rx_seq_gaps;		/**< messages skipped in a peer's
					 * sequence (cancelled by the sender,
					 * or lost below RDS) */
	uint64_t stalls;		/**< connections reset: work waited on
					 * the QP with no progress for
					 * stall_ms */
	uint64_t connect_timeouts;	/**< connection attempts dropped with
					 * no outcome after the connect bound */
	uint64_t connect_replaced;	/**< pending accepts replaced by the
					 * same peer's next request */
	uint64_t rx_stalls_injected;	/**< receive rings frozen by the test
					 * hook */
	uint64_t tx_post_calls;		/**< ibv_post_send calls for SENDs
					 * (each a chain of the work requests
					 * of an engine pass) */
	uint64_t tx_wrs_posted;		/**< SEND work requests in them */
	uint64_t tx_acks;		/**< standalone ACK frames sent */
	uint64_t tx_acks_piggybacked;	/**< standalone ACKs asked for that a
					 * DATA frame carried instead */
	uint64_t tx_acks_limited;	/**< standalone ACKs held back while
					 * the previous one was in flight */
	uint64_t tx_zc_frames;		/**< SENDs whose data went from the
					 * message buffer itself (zero-copy),
					 * not a copy in the send slot */
	uint64_t tx_zc_bytes;		/**< data bytes of those SENDs */
	uint64_t tx_zc_released;	/**< buffer references those SENDs
					 * held, dropped at their completion
					 * or the QP's teardown (equal to
					 * tx_zc_frames once nothing is in
					 * flight) */
	uint64_t tx_zc_regs;		/**< buffer regions registered for
					 * zero-copy (a slab of small
					 * buffers, or a large buffer) */
	uint64_t tx_zc_reg_fails;	/**< such registrations that failed
					 * (the region is copied) */
	uint64_t rx_srq_grows;		/**< times a shared receive queue
					 * doubled the receives it keeps
					 * posted (up to srq_max) */
	uint64_t rx_srq_limit_events;	/**< the device's SRQ limit events
					 * (fewer than an eighth of the
					 * receives left posted) */
	uint64_t rx_srq_dry;		/**< polls that found a shared receive
					 * queue with no receive posted (a
					 * peer's SEND met an RNR NAK and was
					 * retried) */
	uint64_t rx_srq_flushed;	/**< receive completions of a QP torn
					 * down, found in the shared CQ after
					 * it went (their buffers back) */
	uint64_t rx_stale_wcs;		/**< receive completions of no known
					 * QP any more (their buffers back) */
	uint64_t tx_copy_waits;		/**< sends that waited for a copy
					 * buffer of the engine's pool (all
					 * of its most in flight) */
	uint64_t rx_srq_orphans;	/**< receives of a shared receive
					 * queue given up on and posted anew:
					 * still outstanding after twice as
					 * many later posts as it keeps, or
					 * no receive completing after a QP
					 * on it was torn down (a QP
					 * destroyed halfway through a SEND
					 * takes the receive with it) */
	/* Gauges, not counters: what is there now. */
	uint64_t rx_srq_posted;		/**< receives posted to the shared
					 * receive queues now */
	uint64_t rx_srq_orphans_out;	/**< receives given up on that have
					 * not completed since (their
					 * buffers held) */
	uint64_t mem_rx_bytes;		/**< receive buffers now: the shared
					 * receive queues' pools and the
					 * rings of srq=0 connections */
	uint64_t mem_tx_bytes;		/**< send buffers now: the slots of
					 * each connection (header and
					 * inline data) and the engines'
					 * pools of copy buffers */
	uint64_t mem_bounce_bytes;	/**< RDMA bounce buffers now (the
					 * engines' pools) */
	uint64_t mem_wr_bytes;		/**< work requests and per-slot
					 * bookkeeping of the connections
					 * now */
};

/**
 * Read the ib transport's counters.
 *
 * @param st
 *   Filled with the counters.
 * @return
 *   0, or -1 with rte_errno ENXIO (not initialised) or EINVAL (NULL).
 */
int rte_rds_ib_stats_get(struct rte_rds_ib_stats *st);

/**
 * Test hook: at its next poll, every engine moves the queue pairs of its
 * ib connections to the error state, as a fatal transport error would.
 * The connections then reset, reconnect and retransmit.
 *
 * @return
 *   0, or -1 with rte_errno ENXIO (not initialised).
 *
 * @warning @b EXPERIMENTAL: a test and benchmark hook; it may change
 * without notice.
 */
__rte_experimental
int rte_rds_ib_inject_qp_error(void);

/**
 * Test hook: at its next poll, every engine stops giving receive buffers
 * back to its shared receive queues, until a connection on each resets,
 * and to the rings of its srq=0 connections, until each resets. A peer
 * that sends then finds no receive posted and waits on RNR NAKs
 * forever, with no error: the no-progress watch (stall_ms) of the
 * sending side must reset the connection, and RDS recover.
 *
 * @return
 *   0, or -1 with rte_errno ENXIO (not initialised).
 *
 * @warning @b EXPERIMENTAL: a test and benchmark hook; it may change
 * without notice.
 */
__rte_experimental
int rte_rds_ib_inject_rx_stall(void);

#ifdef __cplusplus
}
#endif

#endif /* RTE_RDS_IB_H */

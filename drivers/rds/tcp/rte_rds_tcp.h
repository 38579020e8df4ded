/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RTE_RDS_TCP_H
#define RTE_RDS_TCP_H

/**
 * @file
 * The tcp transport: the Linux kernel's rds_tcp wire over the host's own
 * TCP sockets, so that a kernel peer running rds_tcp is reached, and two
 * librte_rds instances talk over TCP.
 *
 * The wire is the kernel's: a TCP connection to port 16385 carries RDS
 * headers (48 bytes, the same as ib's) each followed by its whole
 * payload (up to 1 MiB, not fragmented); congestion maps are messages of
 * 8 KiB with the CONG_BITMAP flag. There are no RDS ACK frames: a
 * message counts as acknowledged once TCP has acknowledged its last
 * byte (the socket's unacknowledged bytes, SIOCOUTQ, against what was
 * written). After a reset, what was not acknowledged is sent again,
 * marked RETRANSMITTED, and the receiver drops what it had. Only the
 * lower address of a pair connects, as the kernel requires: the higher
 * one makes a connection that the lower answers by resetting it and
 * connecting back. RDMA is not carried (sendmsg with an RDMA control
 * message: EOPNOTSUPP), as in the kernel.
 *
 * The sockets are non-blocking and polled by the engine that owns each
 * connection (an epoll set per engine, waited on with timeout 0), with
 * no thread of their own. The listening socket of each address is
 * polled by engine 0, which hands accepted sockets to their owner.
 *
 * An address is declared with transport "tcp" and options (key=value,
 * comma separated: rte_rds_conf_add_addr_str(conf,
 * "10.0.0.1=tcp,sndbuf=1048576")). The address must be one of the
 * host's (its listening socket binds it). IPv4 and IPv6 addresses are
 * both served, as the kernel's rds_tcp serves them: an IPv6 address's
 * connections are AF_INET6 TCP connections ("[fd00::1]=tcp"); the
 * higher address of a pair is the one greater as 16 bytes in network
 * order (an IPv4 address as v4-mapped, \::ffff:a.b.c.d), as the
 * kernel's rds_addr_cmp. A link-local IPv6 address (fe80::/10) is used
 * on its interface (sin6_scope_id): the one holding the address, or the
 * one dev names; its peers are link-local peers on that link.
 *
 *   dev=IFNAME        the interface of a link-local IPv6 address (default:
 *                     the first interface holding the address; none:
 *                     EADDRNOTAVAIL at rte_rds_init())
 *   port=N            TCP port to listen on and connect to (default
 *                     16385, RDS_TCP_PORT; the kernel's is fixed)
 *   sndbuf=N          SO_SNDBUF of each socket in bytes (default: the
 *                     kernel's, net.ipv4.tcp_wmem, as rds_tcp's sysctl
 *                     rds_tcp_sndbuf when 0)
 *   rcvbuf=N          SO_RCVBUF likewise
 *   accept_wait_ms=N  the higher address, after its connection to the
 *                     lower one was answered, waits this long for the
 *                     lower address to connect back before it tries
 *                     again (default 3000)
 *   window=N          messages a connection has written and TCP has not
 *                     yet acknowledged, at most (1 to 4096, the
 *                     default): past it the connection waits
 *
 * Anything else is EINVAL at rte_rds_init().
 */

#include <stdint.h>
#include <netinet/in.h>

#include <rte_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Counters of the tcp transport, summed over engines: the typed view of
 * rte_rds_xstats_get("tcp", ...), whose counters have these names, in
 * this order. */
struct rte_rds_tcp_stats {
	uint64_t connects;	/**< active connections established */
	uint64_t connect_fails;	/**< active connections that failed */
	uint64_t accepts;	/**< passive connections taken */
	uint64_t knocks;	/**< connections made by the higher address
				 * for the lower one to connect back */
	uint64_t knocks_answered; /**< such connections reset and answered
				   * with a connect (lower address) */
	uint64_t accept_replaced; /**< an accepted connection replaced a
				   * live one (the peer restarted) */
	uint64_t accept_refused; /**< accepted connections closed: no such
				  * local tcp address, or no memory */
	uint64_t accept_handoffs; /**< accepted connections handed by engine
				   * 0 to the engine owning them */
	uint64_t accept_waits_expired; /**< knocks the lower address never
					* answered in accept_wait_ms */
	uint64_t tx_msgs;	/**< messages written whole */
	uint64_t tx_bytes;	/**< bytes written, headers included */
	uint64_t tx_calls;	/**< sendmsg calls */
	uint64_t tx_partial;	/**< sendmsg calls that wrote part */
	uint64_t tx_window_full; /**< sends held back: 4,096 messages
				  * unacknowledged on the connection */
	uint64_t tx_acked_msgs;	/**< messages acknowledged by TCP */
	uint64_t ack_checks;	/**< SIOCOUTQ calls */
	uint64_t rx_msgs;	/**< frames read whole */
	uint64_t rx_bytes;	/**< bytes read */
	uint64_t rx_calls;	/**< recv calls */
	uint64_t rx_bad_frames;	/**< frames that did not decode: dropped,
				 * the connection reset */
	uint64_t rx_stalls;	/**< frames the receiver could not take at
				 * once (kept and offered again) */
	uint64_t epoll_waits;	/**< epoll_wait calls */
	uint64_t resets;	/**< connections closed on an error or EOF */
	uint64_t resets_injected; /**< by rte_rds_tcp_inject_reset() */
};

/**
 * Read the tcp transport's counters.
 *
 * @param st
 *   Filled with the counters.
 * @return
 *   0, or -1 with rte_errno ENXIO (library not initialised) or EINVAL
 *   (NULL).
 */
int rte_rds_tcp_stats_get(struct rte_rds_tcp_stats *st);

/**
 * Reset the established tcp connections of a local address (or of every
 * one), as a crash of this host or a middlebox would: each socket is
 * closed with an RST (SO_LINGER 0), losing what it had not sent yet; the
 * peer reads what it had received, then sees the reset. RDS reconnects
 * and sends again what TCP had not acknowledged. Takes effect on every
 * engine at its next pass.
 *
 * @param laddr
 *   The local address (IPv4, network byte order), or 0 for all.
 * @return
 *   0, or -1 with rte_errno ENXIO (library not initialised).
 *
 * @warning @b EXPERIMENTAL: a test hook; it may change without notice.
 */
__rte_experimental
int rte_rds_tcp_inject_reset(uint32_t laddr);

/**
 * rte_rds_tcp_inject_reset() for a local address of either family.
 *
 * @param laddr
 *   The local address (IPv4 as v4-mapped, \::ffff:a.b.c.d), or NULL or
 *   \:: for all.
 * @return
 *   0, or -1 with rte_errno ENXIO (library not initialised).
 *
 * @warning @b EXPERIMENTAL: a test hook; it may change without notice.
 */
__rte_experimental
int rte_rds_tcp_inject_reset6(const struct in6_addr *laddr);

#ifdef __cplusplus
}
#endif

#endif /* RTE_RDS_TCP_H */

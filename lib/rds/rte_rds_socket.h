/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RTE_RDS_SOCKET_H
#define RTE_RDS_SOCKET_H

/**
 * @file
 * librte_rds sockets: the AF_RDS socket calls, by other names.
 *
 * Socket handles are small integers, like file descriptors. Option names,
 * control-message types, flags and structures are the kernel's own, from
 * <linux/rds.h>; addresses are libc's struct sockaddr_in, and messages
 * libc's struct msghdr, so a program written for AF_RDS ports by renaming
 * its calls.
 *
 * Calls block by default, as in the kernel (MSG_DONTWAIT, SO_SNDTIMEO and
 * SO_RCVTIMEO change that). A blocking call never deadlocks: while it
 * waits, it drives any inline engine it depends on.
 */

#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/sockios.h>
#include <linux/rds.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef AF_RDS
/** The kernel's address family number of RDS, for programs ported from
 * AF_RDS (older C libraries do not define it). */
#define AF_RDS 21
#endif

/** SO_RDS_TRANSPORT value that pins the library's loop transport
 * (an extension: the kernel's values are RDS_TRANS_IB, RDS_TRANS_TCP,
 * which pin the ib and the tcp transports). */
#define RTE_RDS_TRANS_LOOP 3
/** SO_RDS_TRANSPORT value for the eth transport (an extension, as
 * RTE_RDS_TRANS_LOOP; the kernel's RDS_TRANS_TCP is the tcp transport,
 * the kernel's rds_tcp wire). */
#define RTE_RDS_TRANS_ETH 4

/** SO_RDS_TRANSPORT's number in Oracle's UEK kernels and in the
 * rds-tools header (9; mainline's is 8, where UEK has RDS_CONN_RESET):
 * taken as SO_RDS_TRANSPORT too, so that a program built against either
 * header works. */
#define RTE_RDS_SO_TRANSPORT_UEK 9

/** UEK's RDS_CONN_RESET: SO_RDS_TRANSPORT's number (8) with a struct
 * rte_rds_reset (12 bytes) instead of an int, told apart by optlen. */
#define RTE_RDS_CONN_RESET 8
/** UEK's RDS6_CONN_RESET, with a struct rte_rds6_reset. */
#define RTE_RDS6_CONN_RESET 11

/** The argument of RTE_RDS_CONN_RESET (UEK's struct rds_reset). */
struct rte_rds_reset {
	uint8_t tos;		/**< type of service (only 0 has connections) */
	struct in_addr src;	/**< local address */
	struct in_addr dst;	/**< peer address; 0: every peer of src */
};

/** The argument of RTE_RDS6_CONN_RESET (UEK's struct rds6_reset);
 * IPv4 addresses v4-mapped. */
struct rte_rds6_reset {
	uint8_t tos;		/**< type of service (only 0 has connections) */
	struct in6_addr src;	/**< local address */
	struct in6_addr dst;	/**< peer address; :: every peer of src */
};

/**
 * @page rds_ipv6 IPv6 addresses
 *
 * The socket calls take and give struct sockaddr_in6 as well as struct
 * sockaddr_in, as net/rds: bind, connect, sendmsg/sendto (msg_name)
 * accept either; recvmsg/recvfrom give a sockaddr_in6 source on a socket
 * bound to an IPv6 address (a sockaddr_in on an IPv4 one);
 * getsockname/getpeername give a sockaddr_in6 for an IPv6 address.
 * A v4-mapped sockaddr_in6 (\::ffff:a.b.c.d) is that IPv4 address. A
 * link-local address (fe80::/10) needs a non-zero sin6_scope_id, and a
 * socket bound or connected link-local sends only on its own link
 * (EINVAL). An IPv4 socket cannot send to an IPv6 address, nor an IPv6
 * socket to an IPv4 one (EOPNOTSUPP).
 *
 * Every transport serves IPv6 local addresses (rte_rds_conf_add_addr()
 * with an IPv6 string) on its IPv6 wire: "loop" within the process,
 * "tcp" AF_INET6 connections as the kernel's rds_tcp, "ib" the kernel's
 * IPv6 CM exchange (52-byte private data, RDMA-CM port 16385), "eth"
 * UDP/IPv6 frames with neighbour discovery. A link-local address that
 * "tcp" or "ib" uses on one interface takes binds with that interface's
 * scope only (another: EADDRNOTAVAIL, as the kernel's laddr_check). The
 * IPv4 info names (RDS_INFO_CONNECTIONS, RDS_INFO_SOCKETS, the send and
 * retransmit queues, RDS_INFO_TCP_SOCKETS, RDS_INFO_IB_CONNECTIONS) skip
 * IPv6 entries, as the kernel's; their RDS6_INFO_* names list all. A
 * process attached to rds-engined (rte_rds_attach()) takes IPv6 names
 * as an in-process socket does, for the addresses its engine serves.
 * The bind table's key is
 * address and port, not the scope too: a link-local address and port
 * is bound once, not once per link.
 */

/** Largest message payload, as the kernel's RDS_MAX_MSG_SIZE. */
#define RTE_RDS_MAX_MSG_SIZE (1u << 20)

/**
 * Create an RDS socket.
 *
 * @return
 *   Socket handle (>= 0), or -1 with rte_errno: ENXIO (library not
 *   initialised), EMFILE (socket table full).
 */
int rte_rds_socket(void);

/**
 * Bind a socket to a local address and port.
 *
 * @param s
 *   Socket handle.
 * @param addr
 *   struct sockaddr_in, or struct sockaddr_in6 (@ref rds_ipv6; a
 *   v4-mapped one binds the IPv4 address); port 0 picks a free port.
 * @param addrlen
 *   Size of *addr.
 * @return
 *   0, or -1 with rte_errno: EBADF (bad handle), EINVAL (short or bad
 *   address, INADDR_ANY, ::, multicast or broadcast, link-local without
 *   sin6_scope_id or with a scope other than the connected peer's, port
 *   1, already bound), EAFNOSUPPORT (neither AF_INET nor AF_INET6),
 *   EADDRNOTAVAIL (not a local address of this instance; a link-local
 *   one with the scope of another interface than the transport's),
 *   ENOPROTOOPT (the transport pinned with SO_RDS_TRANSPORT
 *   does not serve that address), EADDRINUSE (port taken).
 */
int rte_rds_bind(int s, const struct sockaddr *addr, socklen_t addrlen);

/**
 * Set the default destination of a socket (no connection is made).
 *
 * @param s
 *   Socket handle.
 * @param addr
 *   struct sockaddr_in or struct sockaddr_in6 (@ref rds_ipv6).
 * @param addrlen
 *   Size of *addr.
 * @return
 *   0, or -1 with rte_errno: EBADF, EINVAL (short address, multicast or
 *   broadcast IPv4; link-local IPv6 without sin6_scope_id or with a
 *   scope other than the bound one), EPROTOTYPE (IPv6 not unicast, or
 *   v4-mapped of a non-unicast IPv4 address), EAFNOSUPPORT (neither
 *   AF_INET nor AF_INET6), EDESTADDRREQ (INADDR_ANY).
 */
int rte_rds_connect(int s, const struct sockaddr *addr, socklen_t addrlen);

/**
 * Local address of a socket.
 *
 * @param s
 *   Socket handle.
 * @param addr
 *   Buffer for a struct sockaddr_in, or a struct sockaddr_in6 (with the
 *   bound scope) when bound to an IPv6 address or, unbound, connected
 *   to one (address ::).
 * @param addrlen
 *   In: size of *addr; out: size of the address.
 * @return
 *   0 (a short buffer gets what fits, *addrlen the full size), or -1 with
 *   rte_errno EBADF or EINVAL (NULL addr or addrlen).
 */
int rte_rds_getsockname(int s, struct sockaddr *addr, socklen_t *addrlen);

/**
 * Address of the socket's default destination (rte_rds_connect()), as
 * the kernel's getpeername(2) on an RDS socket (net/rds rds_getname):
 * the errors in its order.
 *
 * @param s
 *   Socket handle.
 * @param addr
 *   Buffer for a struct sockaddr_in, or a struct sockaddr_in6 for an
 *   IPv6 peer (with the socket's scope); may be NULL when *addrlen is 0.
 * @param addrlen
 *   In: size of *addr; out: size of the address (a short buffer gets
 *   what fits).
 * @return
 *   0, or -1 with rte_errno: EBADF, ENOTCONN (no rte_rds_connect()
 *   yet), EFAULT (NULL addrlen, or NULL addr with a non-zero *addrlen),
 *   EINVAL (*addrlen negative as an int).
 */
int rte_rds_getpeername(int s, struct sockaddr *addr, socklen_t *addrlen);

/**
 * Close a socket. Messages it queued and that were not yet acknowledged
 * are cancelled (they may or may not arrive); messages queued to it are
 * dropped. Blocks until every engine has let go of the socket.
 *
 * @param s
 *   Socket handle.
 * @return
 *   0, or -1 with rte_errno EBADF.
 */
int rte_rds_close(int s);

/**
 * Send one message.
 *
 * @param s
 *   Socket handle, bound.
 * @param msg
 *   msg_name: destination (struct sockaddr_in or struct sockaddr_in6,
 *   @ref rds_ipv6), or NULL for the connect() destination; msg_iov:
 *   payload (0 to 1 MiB in all);
 *   msg_control: RDS control messages (RDS_CMSG_RDMA_ARGS, _DEST, _MAP
 *   and the atomics, as rds-rdma(7); doc/guide.md section 5).
 * @param flags
 *   0 or MSG_DONTWAIT.
 * @return
 *   The payload length, or -1 with rte_errno: EBADF, EOPNOTSUPP
 *   (unsupported flag; masked atomics on ib; RDMA from an attached
 *   process's memory on ib),
 *   EOPNOTSUPP also for an IPv4 socket to an IPv6 name or an IPv6
 *   socket to an IPv4 one (sockaddr_in or v4-mapped),
 *   EINVAL (bad, broadcast or multicast name, bad family, an IPv6 name
 *   shorter than sockaddr_in6, not unicast, link-local without scope or
 *   on another link than the bound one, malformed or
 *   unknown SOL_RDS control message; other levels are ignored; an
 *   iov_len over SSIZE_MAX), EFAULT (msg_iov NULL, or an iov_base NULL
 *   with a length), ENOTCONN (not bound, or no destination), EMSGSIZE
 *   (over 1 MiB or over the send buffer, or more than 1024 iovecs as
 *   the kernel's UIO_MAXIOV), ENETUNREACH (no transport
 *   reaches the destination), EAGAIN (send buffer full, non-blocking),
 *   ENOBUFS (destination port congested, non-blocking), ETIMEDOUT
 *   (SO_SNDTIMEO expired).
 */
ssize_t rte_rds_sendmsg(int s, const struct msghdr *msg, int flags);

/**
 * Receive one message, or one notification. Notifications come first:
 * queued RDMA statuses (as many RDS_CMSG_RDMA_STATUS as fit in the
 * control buffer, MSG_CTRUNC when not all fit), then a congestion update
 * (RDS_CMSG_CONG_UPDATE, with RDS_CONG_MONITOR), each as an empty
 * message (return 0), then data.
 *
 * @param s
 *   Socket handle.
 * @param msg
 *   msg_name receives the sender (struct sockaddr_in; struct
 *   sockaddr_in6 with the socket's scope on a socket bound to an IPv6
 *   address; written only when it fits whole, msg_namelen set to its
 *   size either way), msg_iov the
 *   payload, msg_control the control messages; msg_flags is set
 *   (MSG_TRUNC, MSG_CTRUNC).
 * @param flags
 *   0 or any of MSG_DONTWAIT, MSG_PEEK, MSG_TRUNC.
 * @return
 *   Bytes copied (the full length with MSG_TRUNC), or -1 with rte_errno:
 *   EBADF, EOPNOTSUPP (unsupported flag), EMSGSIZE (more than 1024
 *   iovecs), EINVAL (an iov_len over SSIZE_MAX), EFAULT (msg_iov NULL,
 *   or an iov_base NULL with a length), EAGAIN (nothing queued,
 *   non-blocking), ETIMEDOUT (SO_RCVTIMEO expired).
 */
ssize_t rte_rds_recvmsg(int s, struct msghdr *msg, int flags);

/**
 * Send one message from a flat buffer (sendmsg() with one iovec).
 *
 * @param s
 *   Socket handle.
 * @param buf
 *   Payload.
 * @param len
 *   Payload length.
 * @param flags
 *   As rte_rds_sendmsg().
 * @param to
 *   Destination, or NULL for the connect() destination.
 * @param tolen
 *   Size of *to.
 * @return
 *   As rte_rds_sendmsg().
 */
ssize_t rte_rds_sendto(int s, const void *buf, size_t len, int flags,
		       const struct sockaddr *to, socklen_t tolen);

/**
 * Receive one message into a flat buffer (recvmsg() with one iovec).
 *
 * @param s
 *   Socket handle.
 * @param buf
 *   Buffer.
 * @param len
 *   Buffer size.
 * @param flags
 *   As rte_rds_recvmsg().
 * @param from
 *   Sender address, or NULL.
 * @param fromlen
 *   In: size of *from; out: size of the address. NULL if from is NULL.
 * @return
 *   As rte_rds_recvmsg().
 */
ssize_t rte_rds_recvfrom(int s, void *buf, size_t len, int flags,
			 struct sockaddr *from, socklen_t *fromlen);

/**
 * Set a socket option.
 *
 * SOL_SOCKET: SO_SNDBUF, SO_RCVBUF (int; getsockopt then returns twice
 * the value, RDS uses the value set; no sysctl caps them),
 * SO_SNDBUFFORCE, SO_RCVBUFFORCE (the same: the kernel's need
 * CAP_NET_ADMIN, there is no privilege model here), SO_SNDTIMEO,
 * SO_RCVTIMEO (struct timeval); the socket layer's generic SO_REUSEADDR,
 * SO_REUSEPORT, SO_KEEPALIVE, SO_BROADCAST, SO_DONTROUTE, SO_OOBINLINE,
 * SO_DEBUG and SO_PRIORITY (int), which the kernel accepts for any
 * socket: kept for getsockopt, no effect on RDS; SO_TIMESTAMP_OLD and
 * SO_TIMESTAMP_NEW (int, also at SOL_RDS as the kernel's RDS takes them,
 * where a length other than an int's is EFAULT): each message that
 * arrives while it is on carries its arrival time (CLOCK_REALTIME) to
 * rte_rds_recvmsg() as a SOL_SOCKET control message of that type (a
 * struct timeval, or two 64-bit fields for SO_TIMESTAMP_NEW), as
 * net/rds/recv.c; SO_TIMESTAMPNS and SO_TIMESTAMPING are not taken
 * (ENOPROTOOPT). SOL_RDS:
 * RDS_CANCEL_SENT_TO (optional
 * struct sockaddr_in; none cancels every destination), SO_RDS_TRANSPORT
 * (int, before bind; also under UEK's number, RTE_RDS_SO_TRANSPORT_UEK),
 * UEK's RTE_RDS_CONN_RESET and RTE_RDS6_CONN_RESET (struct
 * rte_rds_reset, rte_rds6_reset: drop the connections from src to dst,
 * or to every peer when dst is 0, of the socket's transport, or of
 * every transport when dst is 0; they come back, and RDS sends again
 * what was not acknowledged; 0 when none matches, as the kernel; an
 * attached process only for the address its socket is bound to, else
 * EPERM), RDS_RECVERR (int: also notify failed RDMA
 * operations), RDS_CONG_MONITOR (int: report ports that were congested
 * for this socket's sends and are no more, as RDS_CMSG_CONG_UPDATE with a
 * 64-bit mask, bit port % 64), RDS_GET_MR, RDS_GET_MR_FOR_DEST and
 * RDS_FREE_MR (rds-rdma(7), doc/guide.md section 5: on loop and eth the
 * cookie's key comes from getrandom(2), and a registration fails with
 * that call's errno, ENOSYS, when the kernel gives no randomness),
 * SO_RDS_MSG_RXPATH_LATENCY (a struct rds_rx_trace_so exactly, at most
 * RDS_MSG_RX_DGRAM_TRACE_MAX positions each below it, else EFAULT; 0
 * positions: off): each message that arrives while it is set carries a
 * SOL_RDS RDS_CMSG_RXPATH_LATENCY control message (struct
 * rds_cmsg_rx_trace, ns per position, as net/rds/recv.c):
 * RDS_MSG_RX_HDR_TO_DGRAM_START is the time from the start of the
 * engine pass that took the message's last frame to its delivery to the
 * socket, RDS_MSG_RX_DGRAM_REASSEMBLE is 0 (the message is queued whole,
 * in one step), RDS_MSG_RX_DGRAM_DELIVERED the time on the socket's
 * queue until rte_rds_recvmsg() (CLOCK_MONOTONIC).
 *
 * @param s
 *   Socket handle.
 * @param level
 *   SOL_SOCKET or SOL_RDS.
 * @param optname
 *   Option.
 * @param optval
 *   Value.
 * @param optlen
 *   Size of the value.
 * @return
 *   0, or -1 with rte_errno: EBADF, ENOPROTOOPT (unknown level or
 *   option, or a transport that is not available), EINVAL (short value,
 *   bad transport), EFAULT (optval NULL with a length; a bad
 *   SO_RDS_MSG_RXPATH_LATENCY), EDOM (bad struct timeval), ENOTCONN
 *   (RDS_CANCEL_SENT_TO on an unbound socket), EOPNOTSUPP
 *   (SO_RDS_TRANSPORT after bind).
 */
int rte_rds_setsockopt(int s, int level, int optname, const void *optval,
		       socklen_t optlen);

/**
 * Read a socket option: SO_SNDBUF, SO_RCVBUF, SO_SNDTIMEO, SO_RCVTIMEO,
 * the generic options rte_rds_setsockopt() keeps, SO_TIMESTAMP_OLD and
 * _NEW (1 when on and of that type), SO_TYPE
 * (SOCK_SEQPACKET), SO_DOMAIN (AF_RDS), SO_PROTOCOL (0), SO_ERROR (0),
 * SO_RDS_TRANSPORT (RDS_TRANS_NONE until bound or pinned; also under
 * RTE_RDS_SO_TRANSPORT_UEK), RDS_RECVERR, and the RDS_INFO_* snapshots (see rte_rds_info(): the call then returns
 * the record size, as the kernel's does).
 *
 * @param s
 *   Socket handle.
 * @param level
 *   SOL_SOCKET or SOL_RDS.
 * @param optname
 *   Option.
 * @param optval
 *   Buffer for the value.
 * @param optlen
 *   In: size of the buffer; out: size of the value.
 * @return
 *   0 (an RDS_INFO_* name: the record size), or -1 with rte_errno: EBADF,
 *   ENOPROTOOPT, EINVAL (short buffer), EFAULT (optval or optlen NULL),
 *   ENOSPC (RDS_INFO_* buffer too
 *   small; *optlen is set to the size needed).
 */
int rte_rds_getsockopt(int s, int level, int optname, void *optval,
		       socklen_t *optlen);

/**
 * The socket's queues, as ioctl(2) on a socket (the kernel's RDS has
 * neither: rds_ioctl answers ENOTTY). SIOCOUTQ (TIOCOUTQ): the payload
 * bytes in the socket's send buffer, every message a send returned for
 * that has not been acknowledged or cancelled yet (what a close would
 * cancel at most), the same count sendmsg waits on (0 once every message
 * sent is acknowledged: wait for it before close to lose nothing).
 * SIOCINQ (FIONREAD): the size of the next message recvmsg would return
 * (0 when none, or when an RDMA notification comes first).
 * SIOCRDSSETTOS and SIOCRDSGETTOS (net/rds/af_rds.c rds_ioctl): val
 * then points to an rds_tos_t (one byte, as the kernel's argument).
 * Setting needs the socket bound or its transport pinned
 * (SO_RDS_TRANSPORT), else ENOTTY, and is EINVAL once a TOS is set or
 * the socket has sent. On eth and loop every TOS maps to 0, as on the
 * kernel's rds_tcp (one connection per peer; GETTOS then says 0); on
 * ib, where the kernel maps it 1:1 to a connection of its own, setting
 * is ENOTTY (not built: the kernel's answer for a transport without a
 * TOS map).
 *
 * @param s
 *   Socket handle.
 * @param request
 *   SIOCOUTQ, SIOCINQ, SIOCRDSSETTOS or SIOCRDSGETTOS.
 * @param val
 *   The value (an int, as ioctl(2)'s argument; an rds_tos_t for the
 *   TOS requests).
 * @return
 *   0, or -1 with rte_errno: EBADF, EFAULT (val NULL), ENOTTY (another
 *   request; SIOCRDSSETTOS without a transport or on ib), EINVAL
 *   (SIOCRDSSETTOS after a TOS was set or the socket sent), ECONNRESET
 *   (an attached process whose engine went).
 */
int rte_rds_ioctl(int s, unsigned long request, int *val);

/** One socket to wait on with rte_rds_poll(), as struct pollfd. */
struct rte_rds_pollfd {
	int sock;	/**< socket handle */
	short events;	/**< POLLIN, POLLOUT */
	short revents;	/**< filled: POLLIN, POLLOUT, POLLWRBAND, POLLNVAL */
};

/**
 * Wait for sockets to become readable or writable, with the kernel's
 * rules (rds-facts "poll"): POLLIN when a message, an RDMA notification
 * or (with RDS_CONG_MONITOR) a congestion update is queued, or, without
 * the monitor, when any congestion map changed since the socket's last
 * poll (then with POLLWRBAND); POLLOUT while the send buffer has room (a
 * send may still fail with ENOBUFS). Inline engines are driven while
 * waiting; with engines on their own lcores the thread sleeps in poll(2)
 * on the sockets' event file descriptors. Every socket is held for the
 * whole call: one closed meanwhile (even if its handle is reused at
 * once) reports POLLNVAL, never the newer socket's state.
 *
 * @param fds
 *   Sockets and events.
 * @param nfds
 *   Number of entries.
 * @param timeout_ms
 *   Milliseconds to wait; 0 returns at once, negative waits forever.
 * @return
 *   Number of entries with non-zero revents (0 on timeout), or -1 with
 *   rte_errno: ENXIO (not initialised), EINVAL (NULL fds, or more
 *   entries than max_sockets, as poll(2) over RLIMIT_NOFILE), ENOMEM.
 */
int rte_rds_poll(struct rte_rds_pollfd *fds, unsigned int nfds,
		 int timeout_ms);

/**
 * File descriptor that an application can add to its own poll or epoll
 * set: it polls readable when the engine signalled it, which the engines
 * do only after rte_rds_event_arm() asked for it, once per arming. Read
 * it without blocking until it has nothing more (EAGAIN) to reset it,
 * then arm again before waiting. In the engine's process it is an
 * eventfd; in an attached process (rte_rds_attach.h) one end of a
 * SOCK_SEQPACKET pair the engine made (a byte a signal), which also
 * hangs up (POLLHUP) when the engine goes.
 *
 * @param s
 *   Socket handle.
 * @return
 *   The file descriptor (owned by the socket, closed with it; after
 *   rte_rds_event_fd_move(), the one it moved to), or -1 with
 *   rte_errno: EBADF, EMFILE or ENOMEM (eventfd failed).
 */
int rte_rds_event_fd(int s);

/**
 * rte_rds_event_arm() flag: stay armed even when something is ready now,
 * so that the next change of the socket's state (a message in, room to
 * send) writes the event fd: for an edge-triggered waiter, which wants
 * to hear of each new event, not of the state it already saw. Not a
 * poll(2) event bit.
 */
#define RTE_RDS_ARM_EDGE 0x4000

/**
 * Ask for the socket's event fd to be written when its state may have
 * changed. Arms only when nothing is ready now, so the caller never
 * sleeps on an event that already happened (unless RTE_RDS_ARM_EDGE is
 * given). The engines write it once per arming.
 *
 * In an attached process (rte_rds_attach.h) whose engine went, the
 * socket reports POLLERR | POLLHUP and the POLLIN and POLLOUT asked for,
 * as a socket whose peer went: the calls that follow fail with
 * ECONNRESET.
 *
 * @param s
 *   Socket handle.
 * @param events
 *   POLLIN and/or POLLOUT, and RTE_RDS_ARM_EDGE.
 * @return
 *   The events ready now (> 0: do not sleep; with RTE_RDS_ARM_EDGE the
 *   socket is armed all the same), 0 when armed, or -1 with rte_errno
 *   EBADF.
 */
int rte_rds_event_arm(int s, short events);

/** A received message handed out by rte_rds_recv_burst(). */
struct rte_rds_msg;

/**
 * Zero-copy receive: take up to n queued messages off a socket without
 * copying them. Never blocks. Each message must be given back with
 * rte_rds_msg_free(); until then it counts against the receive buffer.
 *
 * @param s
 *   Socket handle.
 * @param msgs
 *   Array for the message handles.
 * @param n
 *   Size of the array.
 * @return
 *   Number of messages taken (0 when none, or on a bad handle).
 */
uint16_t rte_rds_recv_burst(int s, struct rte_rds_msg **msgs, uint16_t n);

/**
 * Payload of a received message.
 *
 * @param m
 *   Message handle.
 * @return
 *   Pointer to the payload, valid until rte_rds_msg_free().
 */
const void *rte_rds_msg_data(const struct rte_rds_msg *m);

/**
 * Payload length of a received message.
 *
 * @param m
 *   Message handle.
 * @return
 *   Length in bytes.
 */
uint32_t rte_rds_msg_len(const struct rte_rds_msg *m);

/**
 * Sender of a received message.
 *
 * @param m
 *   Message handle.
 * @param from
 *   Filled with the sender's address and port.
 */
void rte_rds_msg_src(const struct rte_rds_msg *m, struct sockaddr_in *from);

/**
 * Give a received message back.
 *
 * @param m
 *   Message handle from rte_rds_recv_burst(); NULL is ignored.
 */
void rte_rds_msg_free(struct rte_rds_msg *m);

#ifdef __cplusplus
}
#endif

#endif /* RTE_RDS_SOCKET_H */

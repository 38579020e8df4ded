/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RDS_REGION_H
#define RDS_REGION_H

/*
 * The memory an engine process (rds-engined) shares with one attached
 * client: a memfd the engine creates, sizes and lays out, and passes
 * over the UNIX socket the client attached on. Everything in it is
 * addressed by offsets from its start. The client reads and writes it
 * freely; the engine treats every byte of it as client input: offsets
 * and lengths are checked against its own copy of the layout, rings are
 * rds_xring (the engine keeps their geometry to itself), and the
 * engine's own state (sockets, allocators, which buffers are out) never
 * lives here. A client that scribbles on its region hurts only itself.
 *
 * Layout (struct rds_region_layout gives every offset):
 *
 *   header | sockets (struct rds_csock) and each one's rings |
 *   doorbell rings (one per client thread) | free rings |
 *   TX buffers (the client's: it allocates them, the engine hands them
 *   back on txfree once it copied them) |
 *   RX buffers (the engine's: it allocates them, the client hands them
 *   back on rxfree once it consumed them)
 *
 * Buffers come in a few size classes, each a contiguous array of slots,
 * so that an offset says its class and slot.
 */

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <netinet/in.h>

#include "rds_rx_trace.h"
#include "rds_xring.h"

#define RDS_REGION_MAGIC 0x52445352u	/* "RDSR" */
#define RDS_REGION_VERSION 5

#define RDS_REGION_NB_CLASSES 4
#define RDS_CSOCK_REQ_RING 256		/* requests a socket queues */
#define RDS_CSOCK_RX_RING 256		/* messages queued to a socket */
#define RDS_CSOCK_NT_RING 64		/* notifications queued to a socket */
#define RDS_CSOCK_KEY_RING 16		/* RDMA keys reserved for a socket */
#define RDS_REGION_BELL_RING 256
#define RDS_REGION_FREE_RING 4096

/* The most control message bytes a TX buffer carries (an operation's
 * takes 88; other levels' ride along, ignored, up to this). */
#define RDS_CBUF_CTL_MAX 512
/* The most entries of an RDMA_ARGS' local vector a TX buffer carries
 * (a longer one is sent by a call). */
#define RDS_CBUF_VEC_MAX 64
/* Room past a payload for an operation's control messages and vector,
 * so that a 64 KiB WRITE's data and its operation take one 64 KiB
 * buffer, not one of the few 1 MiB ones. */
#define RDS_CBUF_OP_ROOM 2048
_Static_assert(RDS_CBUF_CTL_MAX + RDS_CBUF_VEC_MAX * 16 <= RDS_CBUF_OP_ROOM,
	       "an operation fits its room");

/* Sizes of the buffer classes (header included) and their counts in a
 * region of the default size; rds-engined scales the counts. */
#define RDS_CBUF_HDR 128
static const uint32_t rds_region_class_size[RDS_REGION_NB_CLASSES] = {
	RDS_CBUF_HDR + 256, RDS_CBUF_HDR + 4096,
	RDS_CBUF_HDR + 65536 + RDS_CBUF_OP_ROOM,
	RDS_CBUF_HDR + (1u << 20) + 8192,
};

struct rds_region_layout {
	uint64_t size;			/* bytes in all */
	uint32_t nb_socks;
	uint32_t nb_bells;
	uint64_t socks_off;		/* struct rds_csock[nb_socks] */
	uint64_t bells_off;		/* nb_bells rings, bell_stride apart */
	uint64_t bell_stride;
	uint64_t txfree_off;		/* ring: engine -> client */
	uint64_t rxfree_off;		/* ring: client -> engine */
	/* TX and RX pools: class c's slots start at pool_off[pool][c]. */
	uint64_t pool_off[2][RDS_REGION_NB_CLASSES];
	uint32_t pool_nb[2][RDS_REGION_NB_CLASSES];
};

enum { RDS_POOL_TX = 0, RDS_POOL_RX = 1 };

#define RDS_REGION_MAX_LADDRS 64
#define RDS_REGION_LADDR_LOOPBACK 0x1	/* served by a transport that only
					 * reaches this engine's addresses */
/* What the transport of an address does with a client's RDMA and atomic
 * operations, so that a client knows which of its sends with an
 * operation can go through its request ring (the engine checks every
 * one again, and drops one that fails, telling the sender's next send):
 * RDMA on the client's memory (RDS_TRANS_F_RDMA, and no NIC that would
 * need it registered), masked atomics too. hdr.loop_flags: the same of
 * the loop transport (a send to another address of the engine). */
#define RDS_REGION_LADDR_RDMA 0x2
#define RDS_REGION_LADDR_MASKED 0x4

struct rds_region_hdr {
	uint32_t magic;
	uint32_t version;
	struct rds_region_layout lay;
	uint32_t engine_gone;		/* set by an engine that stops */
	uint32_t nb_laddrs;		/* the engine's local addresses, so that
					 * a client answers ENETUNREACH as a
					 * local socket would */
	uint32_t loop_flags;		/* RDS_REGION_LADDR_RDMA, _MASKED of
					 * the loop transport */
	uint32_t ctl_kick;		/* client: a control call was sent
					 * (a hint the engine's pass takes:
					 * rte_rds_server_pending) */
	uint32_t tx_wait;		/* client: a sender waits for a TX
					 * buffer (RDS_ARM_TXB armed on its
					 * socket); the engine, when it gives
					 * buffers back on txfree, clears it
					 * and wakes those sockets */
	struct {
		struct in6_addr a;	/* IPv4 as v4-mapped */
		uint32_t flags;		/* RDS_REGION_LADDR_* */
		uint32_t pad;
	} laddr[RDS_REGION_MAX_LADDRS];
};

/* The bits of a socket's armed word: waiters for readability
 * (deliveries, notifications) and for room (releases, requests taken
 * off the ring); the engine wakes on a change only when a waiter waits
 * for it, so that a receiver blocked in recv is not woken (a byte, a
 * poll return and a drain: a system call each) when the engine releases
 * what it sent. Anything else (close, errors) wakes every waiter. */
#define RDS_ARM_IN	1u
#define RDS_ARM_OUT	2u
#define RDS_ARM_TXB	4u	/* a sender with room in its send buffer
				 * waits for a TX buffer of the region
				 * (rds_region_hdr.tx_wait) */
#define RDS_ARM_ALL	(RDS_ARM_IN | RDS_ARM_OUT | RDS_ARM_TXB)

/* One client socket's shared state. Written by one side each, as
 * marked; the engine reads what the client writes only as hints. */
struct rds_csock {
	/* Client. */
	uint32_t in_use;
	int32_t handle;			/* the engine's socket handle */
	uint32_t armed;			/* RDS_ARM_*: what waiters wait
					 * for (the engine sends the wake
					 * byte on a change of it) */
	uint32_t queued;		/* a doorbell is out (client sets it,
					 * the engine clears it) */
	uint64_t snd_queued;		/* bytes queued in all */
	uint8_t pad0[RTE_CACHE_LINE_SIZE - 24];
	/* Engine. */
	uint64_t snd_released;		/* bytes acknowledged or dropped */
	uint64_t cong_notify;		/* RDS_CONG_MONITOR: ports free again */
	uint32_t cong_gen;		/* congestion map generation */
	uint32_t closed;		/* the engine closed it */
	uint32_t snd_err;		/* an earlier message's errno, for
					 * the next send (the client takes
					 * it; 0: none) */
	uint8_t pad1[RTE_CACHE_LINE_SIZE - 28];
	/* Rings (offsets from the region's start). */
	uint64_t req_off;		/* client -> engine: TX buffers */
	uint64_t rx_off;		/* engine -> client: RX buffers */
	uint64_t nt_off;		/* engine -> client: notifications */
	uint64_t key_off;		/* engine -> client: RDMA keys */
	uint8_t pad2[RTE_CACHE_LINE_SIZE - 32];
} __rte_cache_aligned;

static inline uint64_t
rds_region_align(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* The bytes of one socket's rings (rds_region_csock_ring). */
static inline uint64_t
rds_region_csock_rings_bytes(void)
{
	return rds_xring_bytes(RDS_CSOCK_REQ_RING) +
	       rds_xring_bytes(RDS_CSOCK_RX_RING) +
	       rds_xring_bytes(RDS_CSOCK_NT_RING) +
	       rds_xring_bytes(RDS_CSOCK_KEY_RING);
}

/* Where socket idx's rings are (which: 0 requests, 1 receive, 2
 * notifications, 3 RDMA keys): after the sockets, four per socket. Both
 * sides compute it; the engine never reads it back from the region. */
static inline uint64_t
rds_region_csock_ring(const struct rds_region_layout *l, uint32_t idx,
		      unsigned int which)
{
	uint64_t ring_req = rds_xring_bytes(RDS_CSOCK_REQ_RING);
	uint64_t ring_rx = rds_xring_bytes(RDS_CSOCK_RX_RING);
	uint64_t ring_nt = rds_xring_bytes(RDS_CSOCK_NT_RING);
	uint64_t base = rds_region_align(l->socks_off +
					 sizeof(struct rds_csock) *
					 l->nb_socks, 64) +
			rds_region_csock_rings_bytes() * idx;

	return which == 0 ? base : which == 1 ? base + ring_req :
	       which == 2 ? base + ring_req + ring_rx :
	       base + ring_req + ring_rx + ring_nt;
}

/* The header of a TX or RX buffer. */
struct rds_cbuf {
	uint32_t len;			/* payload bytes after the header */
	uint32_t ctl_len;		/* TX: control messages after the
					 * payload (RDS_CBUF_CTL_MAX at
					 * most): an RDMA or atomic
					 * operation's (RDS_CMSG_RDMA_ARGS,
					 * RDS_CMSG_ATOMIC_*) */
	uint32_t addr;			/* TX: destination, RX: source (IPv4,
					 * network order), when fam is 0 */
	uint16_t port;			/* TX: destination, RX: source (host) */
	uint8_t flags;			/* RDS_CBUF_F_* */
	uint8_t fam;			/* 0: addr; RDS_CBUF_FAM6: addr6 */
	int32_t csock;			/* TX: the socket's slot */
	uint32_t vec_n;			/* TX: entries of the RDMA_ARGS'
					 * local vector (struct rds_iovec,
					 * RDS_CBUF_VEC_MAX at most) after
					 * the control messages: the vector
					 * as it was at the send */
	uint64_t rdma_dest;		/* RX: RDS_CMSG_RDMA_DEST cookie;
					 * TX (RDS_CBUF_F_MAP): the key the
					 * client took off the socket's key
					 * ring for its RDMA_MAP; TX
					 * (RDS_CBUF_F_FREE): the cookie */
	uint64_t seq;			/* RX: RDS sequence (info) */
	uint64_t rx_tstamp;		/* RX (RDS_CBUF_F_TS*): arrival,
					 * CLOCK_REALTIME in ns */
	struct rds_rx_trace rx_trace;	/* RX (RDS_CBUF_F_TRACE) */
	struct in6_addr addr6;		/* TX: destination, RX: source, when
					 * fam is RDS_CBUF_FAM6 (an IPv6
					 * address, never v4-mapped) */
	uint8_t pad[48];		/* the payload on a cache line */
};

#define RDS_CBUF_FAM6 6

_Static_assert(sizeof(struct rds_cbuf) == RDS_CBUF_HDR,
	       "struct rds_cbuf is the buffer header");


#define RDS_CBUF_F_DEST 0x1		/* RX: rdma_dest is set */
#define RDS_CBUF_F_DONTWAIT 0x2		/* TX: the sender did not block */
#define RDS_CBUF_F_TS_OLD 0x4		/* RX: rx_tstamp, SO_TIMESTAMP_OLD */
#define RDS_CBUF_F_TS_NEW 0x8		/* RX: rx_tstamp, SO_TIMESTAMP_NEW */
#define RDS_CBUF_F_TRACE 0x10		/* RX: rx_trace (SO_RDS_MSG_RXPATH_
					 * LATENCY) */
#define RDS_CBUF_F_WDATA 0x20		/* TX: an RDMA WRITE's data (the
					 * vector's bytes, read in the send)
					 * after the vector */
#define RDS_CBUF_F_MAP 0x40		/* TX: RDMA_MAP among the control
					 * messages, with a reserved key */
#define RDS_CBUF_F_FREE 0x80		/* TX: no message: RDS_FREE_MR of
					 * rdma_dest (no INVALIDATE) */

/* A notification (RDS_CMSG_RDMA_STATUS): two slots of the nt ring. */

/*
 * RDMA keys reserved for a socket (its key ring): software keys (loop,
 * eth: the engine's registrations, drawn from the kernel's CSPRNG) the
 * engine holds for the socket in its region table without a region, so
 * that a send with RDMA_MAP goes through the request ring: the client
 * takes a key, writes the cookie (the key | the offset in the first
 * page << 32) where RDMA_MAP asked for it, and queues the send with the
 * key in its TX buffer (RDS_CBUF_F_MAP); the engine registers the
 * region under that key when it takes the send, once it checked the key
 * is one it reserved for this socket (a client's lie drops the send).
 * A socket gets keys once it made an RDMA_MAP by a call (the first);
 * the engine keeps at most RDS_CSOCK_KEY_RING reserved per socket, so a
 * client taking keys it never uses gets no more (its RDMA_MAPs go by
 * call). Entries are the keys.
 */

/* Attach messages on the UNIX socket (SOCK_SEQPACKET). */
enum rds_ctl_op {
	RDS_CTL_HELLO = 1,		/* -> region fd, layout */
	RDS_CTL_SOCKET,			/* -> handle, and the socket's wake-up
					 * descriptor (one end of a
					 * SOCK_SEQPACKET pair the engine
					 * made: it sends to the other end,
					 * never blocking, when the socket is
					 * armed) */
	RDS_CTL_BIND,
	RDS_CTL_CONNECT,
	RDS_CTL_CLOSE,
	RDS_CTL_SETSOCKOPT,
	RDS_CTL_GETSOCKOPT,
	RDS_CTL_GETSOCKNAME,
	RDS_CTL_INFO,
	RDS_CTL_BELL,			/* -> a doorbell ring for a thread */
	RDS_CTL_STATS,
	RDS_CTL_SENDMSG,		/* a send with control messages (RDMA):
					 * struct rds_ctl_send, then the
					 * control bytes; the payload in a TX
					 * buffer the client keeps */
	RDS_CTL_XSTATS,			/* transport name -> rte_rds_xstat[] */
	RDS_CTL_INFO_DATA,		/* engine -> client: the records of an
					 * RDS_INFO answer (GETSOCKOPT of an
					 * RDS_INFO_* name), after its answer:
					 * need bytes in all, in chunks of at
					 * most RDS_CTL_MAX_DATA */
	RDS_CTL_IOCTL,			/* SIOCRDSSETTOS/GETTOS: name the
					 * request, one byte of data */
};

/* RDS_CTL_SENDMSG: made in the caller's call, so that its errno is the
 * call's (the ring's sends are asynchronous). */
struct rds_ctl_send {
	uint64_t off;			/* TX buffer with the payload */
	uint32_t len;			/* payload bytes */
	uint32_t ctl_len;		/* control bytes after this struct */
	uint32_t namelen;		/* of name: 0, the connected one */
	struct sockaddr_in6 name;	/* the caller's msg_name (a
					 * sockaddr_in or sockaddr_in6 the
					 * front half took) */
	uint16_t flags;			/* MSG_DONTWAIT (1) */
	uint16_t pad;
};

#define RDS_CTL_MAX_DATA 8192

struct rds_ctl_req {
	uint32_t op;
	uint32_t seq;
	int32_t handle;
	int32_t level;
	int32_t name;
	uint32_t len;			/* bytes of data */
	uint32_t cap;			/* room for the answer's data;
					 * SETSOCKOPT without data: the
					 * length of the client's NULL
					 * value */
	uint32_t pad;
	uint8_t data[RDS_CTL_MAX_DATA];
};

struct rds_ctl_resp {
	uint32_t op;
	uint32_t seq;
	int32_t ret;			/* the call's return */
	int32_t err;			/* its errno when ret < 0 */
	uint32_t len;			/* bytes of data */
	uint32_t need;			/* RDS_INFO: bytes needed (when ret >=
					 * 0: the bytes of RDS_CTL_INFO_DATA
					 * that follow) */
	uint8_t data[RDS_CTL_MAX_DATA];
};

struct rds_ctl_hello {
	uint32_t magic;
	uint32_t version;
	int32_t pid;
};

/* rds_ctl.c: one message on the UNIX socket. Send buf[0, len), and
 * pass_fd with it when >= 0, with sendmsg flags (MSG_DONTWAIT): 0, or
 * -errno. */
int rds_ctl_send(int fd, const void *buf, size_t len, int pass_fd,
		 int flags);
/* Receive one message of at most len bytes into buf, and the fd passed
 * with it into *got_fd (-1: none; closed when got_fd is NULL): its
 * length, or -errno (-ECONNRESET at end of file). */
ssize_t rds_ctl_recv(int fd, void *buf, size_t len, int *got_fd);

#endif /* RDS_REGION_H */

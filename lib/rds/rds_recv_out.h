/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What recvmsg hands back, once for both back ends: the socket calls of
 * this process (rds_recv.c) and those of an attached process
 * (rds_client_data.c) queue their messages differently, and call these
 * to fill the caller's struct msghdr, so that both give the same
 * results (net/rds/recv.c rds_recvmsg and rds_cmsg_recv,
 * rds_notify_queue_get; net/core/scm.c put_cmsg; net/socket.c, which
 * writes back msg_controllen as what was written):
 *
 * - the payload scattered over the iovecs (checked by rds_uarg_iov
 *   first), MSG_TRUNC in msg_flags when it did not all fit, the length
 *   copied returned, or the message's with MSG_TRUNC in flags;
 * - the source address (rds_uarg_name_v4);
 * - control messages, each whole or not at all: one that does not fit
 *   sets MSG_CTRUNC and is not written (KERNEL: put_cmsg writes a
 *   truncated one where there is room for its header); msg_control NULL
 *   is no room;
 * - msg_controllen: what was written, 0 when nothing was, always.
 *
 * Part of rds_private.h's world: include that first.
 */
#ifndef RDS_RECV_OUT_H
#define RDS_RECV_OUT_H

#ifndef RDS_PRIVATE_H
#error "include rds_private.h before rds_recv_out.h"
#endif

#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <time.h>

#include <rte_common.h>

/* The caller's control buffer as it is filled. */
struct rds_cmsg_out {
	uint8_t *base;
	size_t space;
	size_t used;
};

static __rte_always_inline void
rds_cmsg_out_init(struct rds_cmsg_out *o, const struct msghdr *msg)
{
	o->base = msg->msg_control;
	o->space = o->base != NULL ? msg->msg_controllen : 0;
	o->used = 0;
}

/* One control message of level and type, len bytes of data: false,
 * with MSG_CTRUNC in msg_flags, when it does not fit. */
static inline bool
rds_cmsg_put_level(struct rds_cmsg_out *o, struct msghdr *msg, int level,
		   int type, const void *data, size_t len)
{
	struct cmsghdr *cm;

	if (o->space - o->used < CMSG_LEN(len)) {
		msg->msg_flags |= MSG_CTRUNC;
		return false;
	}
	cm = (struct cmsghdr *)(o->base + o->used);
	cm->cmsg_len = CMSG_LEN(len);
	cm->cmsg_level = level;
	cm->cmsg_type = type;
	memcpy(CMSG_DATA(cm), data, len);
	o->used += RTE_MIN(CMSG_SPACE(len), o->space - o->used);
	return true;
}

/* One SOL_RDS control message. */
static inline bool
rds_cmsg_put(struct rds_cmsg_out *o, struct msghdr *msg, int type,
	     const void *data, size_t len)
{
	return rds_cmsg_put_level(o, msg, SOL_RDS, type, data, len);
}

/* The arrival time (RDS_TS_OLD or RDS_TS_NEW, ns of CLOCK_REALTIME) as
 * net/rds/recv.c rds_cmsg_recv writes it: SOL_SOCKET, SO_TIMESTAMP_OLD
 * with a struct timeval, or SO_TIMESTAMP_NEW with a struct
 * __kernel_sock_timeval (two 64-bit fields). */
static inline void
rds_cmsg_put_tstamp(struct rds_cmsg_out *o, struct msghdr *msg, uint8_t ts,
		    uint64_t ns)
{
	if ((ts & RDS_TS_MASK) == RDS_TS_NEW) {
		int64_t v[2] = { (int64_t)(ns / 1000000000ULL),
				 (int64_t)(ns % 1000000000ULL / 1000) };

		rds_cmsg_put_level(o, msg, SOL_SOCKET, SO_TIMESTAMP_NEW, v,
				   sizeof(v));
	} else {
		struct timeval tv = {
			.tv_sec = (time_t)(ns / 1000000000ULL),
			.tv_usec = (suseconds_t)(ns % 1000000000ULL / 1000),
		};

		rds_cmsg_put_level(o, msg, SOL_SOCKET, SO_TIMESTAMP_OLD, &tv,
				   sizeof(tv));
	}
}

/*
 * RDS_CMSG_RXPATH_LATENCY (net/rds/recv.c rds_cmsg_recv): for each
 * position set, the ns between two of the kernel's four stamps, RX_HDR,
 * RX_START, RX_END and RX_CMSG. Here RX_HDR is the start of the engine
 * pass that took the message's last frame, RX_START and RX_END are its
 * delivery (it is queued whole, in one step: 0 between them; the
 * kernel's START to END also covers its reassembly), RX_CMSG is now.
 */
static __rte_noinline void
rds_cmsg_put_rx_trace(struct rds_cmsg_out *o, struct msghdr *msg,
		      const struct rds_rx_trace *tr)
{
	struct rds_cmsg_rx_trace t;
	uint64_t d[RDS_MSG_RX_DGRAM_TRACE_MAX], now;
	struct timespec ts;
	unsigned int i;

	rds_clock_monotonic(&ts);
	now = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	d[RDS_MSG_RX_HDR_TO_DGRAM_START] = tr->hdr_ns;
	d[RDS_MSG_RX_DGRAM_REASSEMBLE] = 0;
	d[RDS_MSG_RX_DGRAM_DELIVERED] = now > tr->end_ns ?
					now - tr->end_ns : 0;
	memset(&t, 0, sizeof(t));
	t.rx_traces = RTE_MIN(tr->n, RDS_MSG_RX_DGRAM_TRACE_MAX);
	for (i = 0; i < t.rx_traces; i++) {
		/* Checked by setsockopt; a bad one from an attached
		 * process's region is taken as no position. */
		if (tr->pos[i] >= RDS_MSG_RX_DGRAM_TRACE_MAX)
			continue;
		t.rx_trace_pos[i] = tr->pos[i];
		t.rx_trace[i] = d[tr->pos[i]];
	}
	rds_cmsg_put(o, msg, RDS_CMSG_RXPATH_LATENCY, &t, sizeof(t));
}

/* Would a control message of len bytes of data fit? */
static __rte_always_inline bool
rds_cmsg_fits(const struct rds_cmsg_out *o, size_t len)
{
	return o->space - o->used >= CMSG_LEN(len);
}

static __rte_always_inline void
rds_cmsg_out_done(const struct rds_cmsg_out *o, struct msghdr *msg)
{
	msg->msg_controllen = o->used;
}

/*
 * The next RDMA notification of a socket: with take false, whether there
 * is one; with take true, it is dequeued into *n (false when none).
 */
typedef bool (*rds_notify_next_t)(void *arg, struct rds_rdma_notify *n,
				  bool take);

/*
 * RDMA notifications as RDS_CMSG_RDMA_STATUS control messages, the
 * answer of a recvmsg that returns 0 with no address: as many as fit;
 * when not all fit the rest stay queued and MSG_CTRUNC is set; when none
 * fits, one is consumed (the kernel's rds_notify_queue_get takes at
 * least one, and put_cmsg drops it) so that a caller without a control
 * buffer cannot spin. MSG_PEEK takes none (MSG_CTRUNC when none fits).
 */
static inline void
rds_recv_out_notify(struct msghdr *msg, bool peek, rds_notify_next_t next,
		    void *arg)
{
	struct rds_rdma_notify n;
	struct rds_cmsg_out o;

	rds_cmsg_out_init(&o, msg);
	msg->msg_flags = 0;
	while (next(arg, NULL, false)) {
		if (!rds_cmsg_fits(&o, sizeof(n))) {
			msg->msg_flags |= MSG_CTRUNC;
			if (o.used == 0 && !peek)
				next(arg, &n, true);
			break;
		}
		if (peek || !next(arg, &n, true))
			break;
		rds_cmsg_put(&o, msg, RDS_CMSG_RDMA_STATUS, &n, sizeof(n));
	}
	rds_cmsg_out_done(&o, msg);
	msg->msg_namelen = 0;
}

/* len bytes of src scattered over the caller's iovecs: what was copied. */
static __rte_always_inline size_t
rds_recv_out_iov(const struct msghdr *msg, const uint8_t *src, size_t len)
{
	size_t i, off = 0, n;

	if (likely(msg->msg_iovlen == 1)) {	/* recvfrom: no loop */
		n = RTE_MIN(msg->msg_iov[0].iov_len, len);
		if (n != 0)
			memcpy(msg->msg_iov[0].iov_base, src, n);
		return n;
	}
	for (i = 0; i < msg->msg_iovlen && off < len; i++) {
		n = RTE_MIN(msg->msg_iov[i].iov_len, len - off);
		if (n != 0)
			memcpy(msg->msg_iov[i].iov_base, src + off, n);
		off += n;
	}
	return off;
}

/* The control messages of a data message that has some, in the
 * kernel's order: its RDS_CMSG_RDMA_DEST cookie, its arrival time, its
 * receive path's latencies. Out of line: most messages have none. */
static __rte_noinline void
rds_recv_out_ctl(struct msghdr *msg, bool has_dest, uint64_t dest_cookie,
		 uint8_t ts, uint64_t ts_ns, const struct rds_rx_trace *tr)
{
	struct rds_cmsg_out o;

	rds_cmsg_out_init(&o, msg);
	if (has_dest)
		rds_cmsg_put(&o, msg, RDS_CMSG_RDMA_DEST, &dest_cookie,
			     sizeof(dest_cookie));
	if ((ts & RDS_TS_MASK) != 0)
		rds_cmsg_put_tstamp(&o, msg, ts, ts_ns);
	if ((ts & RDS_TS_TRACE) && tr != NULL)
		rds_cmsg_put_rx_trace(&o, msg, tr);
	rds_cmsg_out_done(&o, msg);
}

/*
 * A data message out: payload, msg_flags, source address (src6, the
 * source of a message to an IPv6 socket, with scope: a sockaddr_in6;
 * NULL: addr_be, a sockaddr_in), its
 * RDS_CMSG_RDMA_DEST cookie when the sender shipped one, its arrival time
 * when it was stamped (ts: RDS_TS_*, 0 none; SO_TIMESTAMP), its
 * receive path's latencies (ts has RDS_TS_TRACE: tr;
 * SO_RDS_MSG_RXPATH_LATENCY), msg_controllen (0 when nothing was written). Returns what recvmsg
 * returns.
 */
static __rte_always_inline ssize_t
rds_recv_out_msg(struct msghdr *msg, int flags, const uint8_t *data,
		 size_t len, uint32_t addr_be, uint16_t port, bool has_dest,
		 uint64_t dest_cookie, uint8_t ts, uint64_t ts_ns,
		 const struct rds_rx_trace *tr, const struct in6_addr *src6,
		 uint32_t scope)
{
	size_t copied = rds_recv_out_iov(msg, data, len);

	msg->msg_flags = copied < len ? MSG_TRUNC : 0;
	if (unlikely(src6 != NULL))
		rds_uarg_name_v6(msg, src6, port, scope);
	else
		rds_uarg_name_v4(msg, addr_be, port);
	if (likely(!has_dest && ts == 0))
		msg->msg_controllen = 0;
	else
		rds_recv_out_ctl(msg, has_dest, dest_cookie, ts, ts_ns, tr);
	return (flags & MSG_TRUNC) ? (ssize_t)len : (ssize_t)copied;
}

#endif /* RDS_RECV_OUT_H */

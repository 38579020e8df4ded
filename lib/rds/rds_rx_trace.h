/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receive path's trace of one message, in the engine's queue
 * (struct rds_msg) and in an attached process's region (struct
 * rds_cbuf): both include this.
 */
#ifndef RDS_RX_TRACE_H
#define RDS_RX_TRACE_H

#include <stdint.h>

/*
 * SO_RDS_MSG_RXPATH_LATENCY: where a received message spent its time
 * (net/rds/recv.c rds_cmsg_recv), stamped by the engine at delivery
 * when the socket asks for it: the trace positions then set, the ns
 * from the start of the engine pass that took the message's last frame
 * to its delivery (the kernel's RX_HDR to RX_START), and CLOCK_MONOTONIC
 * at delivery (RX_END; recvmsg adds RX_CMSG).
 */
struct rds_rx_trace {
	uint64_t end_ns;		/* CLOCK_MONOTONIC at delivery */
	uint32_t hdr_ns;		/* pass start to delivery */
	uint8_t n;			/* positions, at most 3 */
	uint8_t pos[3];			/* RDS_MSG_RX_* of each */
};

#endif /* RDS_RX_TRACE_H */

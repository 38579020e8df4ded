/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RDS_FUZZ_CAP_H
#define RDS_FUZZ_CAP_H

/*
 * The capture transport of the fuzz targets: a transport (struct
 * rds_transport, registered with RDS_TRANSPORT_REGISTER) whose wire is
 * the harness. Everything the core transmits on it (messages, pongs,
 * ACK-only frames, congestion maps) is encoded with the core's own
 * rds_msg_hdr / rds_ack_hdr, as a real transport would put it on a wire,
 * and handed to a callback; frames the harness injects go in through
 * rds_recv_frame / rds_recv_frame_msg on the connection, as a real
 * transport's receive path calls them. Connecting succeeds at once.
 *
 * Its connections are the core's: fz_cap_conn() finds or creates the one
 * to a peer, as a transport's passive side would on an incoming connect.
 */

#include <stdbool.h>
#include <stdint.h>

#include "rds_private.h"

#define FZ_CAP_NAME "fzcap"
#define FZ_CAP_TRANS_ID 0x7e

/* Called for every frame the core transmits: the 48 wire bytes and the
 * payload (len bytes). */
typedef void (*fz_cap_fn)(void *arg, const uint8_t hdr[48],
			  const uint8_t *payload, uint32_t len);

void fz_cap_set_sink(fz_cap_fn fn, void *arg);

/* The connection (local address, peer address) of this transport,
 * created (and connecting) if it does not exist; NULL without memory.
 * Addresses are IPv4, network order. */
struct rds_conn *fz_cap_conn(uint32_t laddr, uint32_t faddr);

/* Counters of the transport itself. */
struct fz_cap_stats {
	uint64_t connects;
	uint64_t shutdowns;
	uint64_t frames;	/* frames handed to the sink */
};

void fz_cap_stats(struct fz_cap_stats *st);
void fz_cap_reset_stats(void);

#endif /* RDS_FUZZ_CAP_H */

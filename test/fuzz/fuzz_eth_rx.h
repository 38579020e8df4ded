/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RDS_FUZZ_ETH_RX_H
#define RDS_FUZZ_ETH_RX_H

/*
 * fuzz_eth_rx (see fuzz_eth_rx.c): what its two files share. The
 * harness's world (the port's rings, the peer's stream and schedule,
 * the model of the driver's stream, the oracle's state) is one object,
 * w; fuzz_eth_rx.c has the peer's side (schedule, frames, socket,
 * steps, set-up), fuzz_eth_rx_tx.c the model of what the driver sends
 * and its oracles (and the final acknowledgement of everything).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "fuzz_common.h"
#include "fuzz_state.h"
#include "rds_eth.h"

#define OUR_IP "10.254.0.1"
#define PEER_IP "10.254.0.2"
#define OUR_MAC "02:00:0a:fe:00:01"
#define PEER_MAC "02:00:0a:fe:00:02"
#define OUR_PORT 4000
#define PEER_PORT 5000
#define WINDOW 8
#define MAX_MSGS 8
#define MAX_FRAMES 4096		/* of one schedule */
#define MAX_STEPS 256
#define POOL_SIZE 4095
#define FRAG_MAX 1400		/* payload of one frame, at most */
#define SLEEP_BUDGET_US 3000
#define MAX_TX_FRAMES 4096	/* of one stream of the driver's */
#define ACK_PEND_MAX 16		/* ACKs ahead of what was seen */
#define TX_FIRST 0x1		/* first frame of a unit */
#define TX_LAST 0x2		/* last frame of a unit */
#define TX_DATA 0x4		/* ... of an RDS frame (not the map) */

/* A frame of the schedule. */
struct sframe {
	uint8_t msg;
	uint8_t hflags;		/* of its RDS header */
	uint16_t flags;		/* FIRST / LAST */
	uint32_t off;		/* in the unit (header included) */
	uint16_t len;
};

struct fzrx_world {
	struct rte_ring *rx, *tx;	/* the port's: we fill rx, drain tx */
	uint16_t port;
	struct rte_mempool *pool;	/* the peer's frames */
	uint32_t our_ip, peer_ip;
	struct rte_ether_addr our_mac, peer_mac;
	int s;
	/* The peer. */
	uint32_t epoch, epoch_prev;	/* its stream's */
	uint32_t our_epoch;		/* ours as it saw it, 0: not yet */
	bool acked;			/* our side acknowledged its epoch */
	uint32_t rx_ack;		/* our cumulative ACK, as last seen */
	uint32_t next;			/* next sequence to send in order */
	uint32_t nmsg, frag;
	uint32_t len[MAX_MSGS];		/* RDS payload bytes */
	uint32_t first;			/* the schedule's first message */
	struct sframe sch[MAX_FRAMES];
	uint32_t nb_sch;
	struct sframe sch_prev[MAX_FRAMES];	/* previous epoch's */
	uint32_t nb_sch_prev, first_prev;
	/* The driver's stream as the harness saw it last (its epoch, and
	 * per frame TX_* and the RDS sequence of its unit). */
	uint32_t tx_epoch;
	uint32_t tx_nb;
	uint8_t tx_fl[MAX_TX_FRAMES];
	uint64_t tx_seq[MAX_TX_FRAMES];
	uint64_t tx_acked;		/* highest message whose last frame
					 * an ACK of ours covered */
	/* ACKs of ours naming frames the harness had not yet seen (the
	 * driver may have built them, in its batch for the wire, before
	 * it reads the ACK): judged again at each drain until the driver
	 * has read every frame injected (ack_model). */
	struct rds_eth_frame ack_pend[ACK_PEND_MAX];
	uint32_t nb_ack_pend;
	uint64_t tx_max;		/* highest message seen sent */
	uint64_t tx_whole;		/* ... with its last frame too */
	uint64_t freed;			/* s_send_acked before the poll */
	uint32_t sent_ok;		/* messages the socket sent */
	uint32_t epochs[MAX_STEPS + 2];	/* every epoch of the harness's */
	uint32_t nb_epochs;
	/* The oracle. */
	bool delivered[MAX_MSGS];
	bool tainted;			/* an undetectable lie was sent */
	uint64_t bad_crc, bad_type;	/* frames sent so */
	uint64_t crc0, type0;		/* rx_drop_crc, _type at the start */
	struct rte_rds_stats st0;	/* the counters at the start */
	unsigned int slept_us;
	/* The library between inputs (fuzz_state.h). */
	struct fz_state clean;
	bool warm;
};

extern struct fzrx_world w;

/* fuzz_eth_rx.c */
void poll_once(void);
void recv_some(unsigned int max);

/* fuzz_eth_rx_tx.c: the driver's stream, as the harness follows it. */
/* Account for an ACK of the harness's (before it is sent). */
void ack_model(const struct rds_eth_frame *f);
/* The socket's messages the library freed as acknowledged. */
uint64_t send_acked(void);
/* Take and judge everything the driver transmitted. */
void drain_tx(void);
/* Acknowledge all the driver sent, from a new stream of the harness's,
 * and check that every message the socket sent was freed. */
void ack_all(void);

#endif /* RDS_FUZZ_ETH_RX_H */

/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ETH_MP_H
#define ETH_MP_H

/*
 * The eth transport between two processes: what eth_mp (the test, no
 * EAL) and eth_peer (one peer process, its own EAL, library and
 * address) agree on.
 *
 * Processes: eth_mp spawns two eth_peer processes (posix_spawn; for
 * af_packet through "ip netns exec"), A and B, each with its own EAL
 * (--no-pci, its own --file-prefix, one lcore: A on 0, B on 1), the
 * library with one inline engine and one eth address, A's on the ethdev
 * given, B's on the other end. A peer talks to eth_mp over two pipes:
 * commands on fd 3, reports on fd 4 (one line each); its stdout and
 * stderr go to a third pipe, which eth_mp prints with the peer's name.
 *
 * Sockets (the shared stream checker, rds_stream, every process with
 * the same configuration): 0 and 1 on A's address, 2 and 3 on B's, ports
 * ETH_MP_PORT0 and + 1; A's sockets send to B's and B's to A's, so each
 * process owns two sockets and checks what they receive from the two
 * remote ones. RDMA: one socket per peer on ETH_MP_RDMA_PORT.
 *
 * Reports (peer -> eth_mp):
 *   UP                     the library is up (for memif: the server
 *                          listens)
 *   READY                  the link is up, the sockets are bound
 *   PROGRESS rx tx ok      messages received and sent so far, RDMA
 *                          operations that succeeded (initiator)
 *   DONE ok|fail           the run ended, and everything this peer sent
 *                          is acknowledged (no message in its send or
 *                          retransmit queue)
 *   TX src dst msgs bytes sha        the sending side of a pair
 *   RX src dst msgs bytes first sha  the receiving side (first: the
 *                          first sequence taken, for a stream taken from
 *                          the middle after a restart)
 *   RDMA gen issued success dropped remote_error other max_old
 *                          (initiator) operations with gen's cookie
 *   TARGET gen msgs late counter     (target) operation messages of its
 *                          own cookie, of an older one, and its counter
 *   STAT name value        an eth counter (rte_rds_xstats_get("eth"))
 *   BYE ok|fail            last line; the peer then exits
 * Commands (eth_mp -> peer): GO (start), EXIT (finish: the other peer
 * has everything acknowledged too).
 */

#include <stdint.h>

#define ETH_MP_NSOCK 4
#define ETH_MP_PORT0 4001
#define ETH_MP_RDMA_PORT 4100

#define ETH_MP_COOKIE_MAGIC 0x434f4f4bu	/* "COOK" */
#define ETH_MP_OP_MAGIC 0x4f504d47u		/* operation message */

/* The target's cookie, from its RDMA socket to the initiator's. */
struct eth_mp_cookie_msg {
	uint32_t magic;
	uint32_t gen;			/* the target's incarnation */
	uint64_t cookie;
};

/* The message of one atomic operation (the target receives it after the
 * operation ran). */
struct eth_mp_op_msg {
	uint32_t magic;
	uint32_t gen;			/* of the cookie it used */
	uint64_t op;			/* operation number, from 0 */
};

#endif /* ETH_MP_H */

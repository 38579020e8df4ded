/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RDMA_COMMON_H
#define RDMA_COMMON_H

/*
 * Helpers shared by the 'rdma' suite (RDS RDMA, the rds-rdma(7) flow):
 * the transport the suite runs over, library set-up with a client socket
 * on address 1 and a server socket on address 2, guarded memory areas,
 * the RDS_GET_MR / RDS_FREE_MR options, and sendmsg / recvmsg wrappers
 * that build and parse the SOL_RDS control messages of <linux/rds.h>.
 *
 * Every suite runs over any transport registered here, chosen by
 * --transport=NAME or RDS_TEST_TRANSPORT=NAME (default loop):
 *
 *   loop  the four local addresses 10.255.0.1..4 of the loop transport
 *         (this file);
 *   eth   two net_ring ports in the process whose rings cross, address
 *         1 on the first and 2 on the second, 3 and 4 on the first too,
 *         static neighbours, every socket pinned to the eth transport
 *         (rdma_eth.c); so every operation is a request frame the peer
 *         engine runs and answers, then the RDS message.
 *
 *   ib    the rxe device of the test VM (test/rxe/run-in-vm.sh), four
 *         addresses on it, every socket pinned to the ib transport
 *         (rdma_ib.c): each operation a verbs work request on an RC QP;
 *         exit 77 (skip) outside the VM.
 *
 * A transport is a struct rdma_transport registered from a constructor
 * (rdma_transport_register), so a binary gets the ones it links.
 *
 * All of it runs on the test thread with one inline engine: nothing moves
 * unless the test polls (rdma_pump) or blocks in a library call.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

#include <rte_rds.h>

#include "rds_test.h"

#define RDMA_PAGE 4096u
#define RDMA_CLI_PORT 4001
#define RDMA_SRV_PORT 4002

/* ------------------------------------------------------------------ */
/* Transports */

#define RDMA_NB_IP 4	/* local addresses 1..4 every transport has */

struct rdma_transport {
	const char *name;	/* --transport= value */
	/* SO_RDS_TRANSPORT set on every socket before bind (-1: none,
	 * the core's choice: loop between local addresses). */
	int pin;
	/* A check that nothing (more) arrives watches at least this long,
	 * besides its polls: a transport with a wire has frames and timers
	 * in flight for a while. */
	unsigned int quiet_ms;
	/* Local addresses 1..4 ([0] unused). 1 and 2 are the client's and
	 * the server's; 3 and 4 are other local addresses (another
	 * socket's, one with no socket at all). */
	const char *ip[RDMA_NB_IP + 1];
	/* Fill conf: one engine on lcore (or RTE_RDS_ENGINE_INLINE) with
	 * the idle policy and the transport's addresses (whatever else the
	 * transport needs is set up here, once per process). 0 or -1. */
	int (*conf)(struct rte_rds_conf *conf, uint32_t lcore,
		    enum rte_rds_idle_policy idle);
	/* rdma_env_down: undo what a test set up for the transport (fault
	 * hooks); may be NULL. */
	void (*clear)(void);
	/* NULL if the transport can run here, else why not (rdma_main then
	 * prints "SKIP: why" and exits 77); may be NULL (always can). */
	const char *(*unavailable)(void);
	/* Waits (rdma_wait_msg, rdma_collect) and watchdogs are this many
	 * times longer (0 or 1: as written): a transport on an emulated
	 * machine (ib in the TCG VM) takes far longer for a round trip. */
	unsigned int slow;
	/* No masked atomics (RDS_CMSG_MASKED_ATOMIC_*): sendmsg refuses
	 * them with EOPNOTSUPP (ib: plain verbs has none). */
	bool no_masked_atomics;
	/* A refused operation (REMOTE_ERROR) takes the connection down (ib:
	 * the QP goes to error, as the kernel's): the operations in flight
	 * behind it on that connection end DROPPED (never ran, their
	 * messages not delivered), and RDS reconnects for the rest. */
	bool error_resets;
	/* A cookie is good from any local address of the device (ib: the
	 * HCA checks the rkey against its protection domain, not the RDS
	 * address an op was sent to), not only from the one it was
	 * registered for. */
	bool rkey_per_device;
	struct rdma_transport *next;
};

/* Make t selectable (from a constructor). */
void rdma_transport_register(struct rdma_transport *t);
/* The transport of this run (loop until rdma_transport_select()). */
const struct rdma_transport *rdma_tr(void);
/* Choose by name; false (message printed) if none has it. */
bool rdma_transport_select(const char *name);
/* Is this run over the named transport? */
bool rdma_tr_is(const char *name);

/* Local address n (1..4) of the transport, and as a sockaddr. */
const char *rdma_ip(unsigned int n);
struct sockaddr_in rdma_sin(unsigned int n, uint16_t port);
/* A socket bound to address n, pinned as the transport says
 * (rds_test_socket_trans). */
int rdma_socket(unsigned int n, uint16_t port, int sndbuf, int rcvbuf);
/* The library configuration for the transport (see conf above). */
int rdma_conf(struct rte_rds_conf *conf, uint32_t lcore,
	      enum rte_rds_idle_policy idle);

/*
 * main() of a suite: the transport from argv (--transport=NAME) or
 * RDS_TEST_TRANSPORT, the EAL (one lcore; the file prefix names suite and
 * transport), the cases, the EAL down. Returns the exit status.
 */
int rdma_main(int argc, char **argv, const char *suite,
	      const struct rds_test_case *cases);

/* ------------------------------------------------------------------ */
/* Library and sockets */

/* The library and two bound sockets: the client (owner of the memory)
 * and the server (which runs the operations). */
struct rdma_env {
	int cli;
	int srv;
	struct sockaddr_in ca;	/* client address */
	struct sockaddr_in sa;	/* server address */
};

/* Library up (one inline engine, the transport's addresses), client on
 * address 1, server on address 2, both bound. Returns 0 or -1 (message
 * printed). */
int rdma_env_up(struct rdma_env *env);
/* Close both sockets (if open) and shut the library down. */
void rdma_env_down(struct rdma_env *env);

/* Poll the inline engine once (rds_test_kick), then the poll hook if one
 * is set; returns the engine's work. Every helper here polls with it. */
int rdma_kick(void);
/* Polls made by rdma_kick so far. */
uint64_t rdma_polls(void);
/* Poll the inline engine n times (rdma_kick). */
void rdma_pump(unsigned int n);
/* Call fn(arg) after every poll of rdma_kick (NULL: none): a test that
 * injects faults between polls. */
void rdma_set_poll_hook(void (*fn)(void *), void *arg);

/*
 * An anonymous mapping of npages + 2 pages whose first and last pages are
 * PROT_NONE: pages points at the npages accessible ones, so that any
 * access before or after them faults.
 */
struct rdma_guard {
	uint8_t *map;
	size_t map_len;
	uint8_t *pages;
	size_t len;		/* npages * 4096 */
};

int rdma_guard_alloc(struct rdma_guard *g, size_t npages);
void rdma_guard_free(struct rdma_guard *g);

/* Cookie helpers (rds_rdma_make_cookie and friends). */
static inline uint32_t
rdma_cookie_key(uint64_t c)
{
	return (uint32_t)c;
}

static inline uint32_t
rdma_cookie_off(uint64_t c)
{
	return (uint32_t)(c >> 32);
}

/* setsockopt RDS_GET_MR; returns 0 or -1 with rte_errno. */
int rdma_get_mr(int s, const void *addr, uint64_t bytes, uint64_t flags,
		uint64_t *cookie);
/* setsockopt RDS_GET_MR_FOR_DEST. */
int rdma_get_mr_for_dest(int s, const struct sockaddr_in *dest,
			 const void *addr, uint64_t bytes, uint64_t flags,
			 uint64_t *cookie);
/* setsockopt RDS_FREE_MR. */
int rdma_free_mr(int s, uint64_t cookie, uint64_t flags);
/* setsockopt RDS_RECVERR. */
int rdma_set_recverr(int s, int on);

/*
 * A control buffer under construction: up to a few SOL_RDS cmsgs,
 * aligned for struct cmsghdr.
 */
struct rdma_cbuf {
	union {
		struct cmsghdr align;
		uint8_t b[1024];
	} u;
	size_t len;
};

void rdma_cbuf_init(struct rdma_cbuf *cb);
/* Append one cmsg (level SOL_RDS) with the given data. */
void rdma_cbuf_add(struct rdma_cbuf *cb, int type, const void *data,
		   size_t len);

/* sendmsg of payload [buf, len) to *to with the control buffer cb (may be
 * NULL); returns sendmsg's result (rte_errno set on -1). */
ssize_t rdma_sendmsg(int s, const struct sockaddr_in *to, const void *buf,
		     size_t len, const struct rdma_cbuf *cb, int flags);

/* Shorthands: a message with RDS_CMSG_RDMA_DEST, RDS_CMSG_RDMA_MAP
 * (registers [addr, addr + bytes) and ships the cookie, returned in
 * *cookie), RDS_CMSG_RDMA_ARGS, or an atomic cmsg (type). */
ssize_t rdma_send_dest(int s, const struct sockaddr_in *to, const void *buf,
		       size_t len, uint64_t cookie);
ssize_t rdma_send_map(int s, const struct sockaddr_in *to, const void *buf,
		      size_t len, const void *addr, uint64_t bytes,
		      uint64_t flags, uint64_t *cookie);
ssize_t rdma_send_args(int s, const struct sockaddr_in *to, const void *buf,
		       size_t len, const struct rds_rdma_args *a);
ssize_t rdma_send_atomic(int s, const struct sockaddr_in *to,
			 const void *buf, size_t len, int type,
			 const struct rds_atomic_args *a);

/* What one recvmsg returned. */
#define RDMA_MAX_ST 160	/* > 4096 / CMSG_SPACE(sizeof(struct rds_rdma_notify)) */
struct rdma_rx {
	ssize_t ret;		/* recvmsg's return */
	int err;		/* rte_errno when ret < 0 */
	int msg_flags;
	socklen_t namelen;
	struct sockaddr_in from;
	bool has_dest;		/* RDS_CMSG_RDMA_DEST seen */
	uint64_t dest;
	unsigned int ndest;	/* how many RDMA_DEST cmsgs */
	unsigned int nst;	/* RDS_CMSG_RDMA_STATUS cmsgs */
	struct rds_rdma_notify st[RDMA_MAX_ST];
	unsigned int nother;	/* any other cmsg */
};

/*
 * One recvmsg into [buf, cap) with a control buffer of ctl_space bytes
 * (at most 4096). Parses the SOL_RDS cmsgs into *rx.
 */
void rdma_recv(int s, void *buf, size_t cap, size_t ctl_space, int flags,
	       struct rdma_rx *rx);

/* Is rx an RDMA notification (an empty message with RDMA_STATUS)? */
static inline bool
rdma_rx_is_notify(const struct rdma_rx *rx)
{
	return rx->ret == 0 && rx->nst > 0;
}

/*
 * Wait (polling the engine) up to timeout_ms for a data message on s;
 * notifications met on the way are appended to nt[*nnt] (up to maxnt,
 * may be NULL). Returns true with *rx filled, or false on timeout.
 */
bool rdma_wait_msg(int s, void *buf, size_t cap, unsigned int timeout_ms,
		   struct rdma_rx *rx, struct rds_rdma_notify *nt,
		   unsigned int *nnt, unsigned int maxnt);

/*
 * Poll the engine and collect notifications of s until want of them were
 * seen (or, with want 0, until idle_polls polls in a row brought nothing
 * and nothing came for the transport's quiet_ms) or timeout_ms passed. Data messages met on the way count in *ndata
 * (may be NULL) and are dropped. ctl_space as rdma_recv. Returns the
 * number of notifications appended to nt (up to max; more are counted
 * in the return value but not stored).
 */
unsigned int rdma_collect(int s, struct rds_rdma_notify *nt, unsigned int max,
			  unsigned int want, unsigned int idle_polls,
			  unsigned int timeout_ms, size_t ctl_space,
			  unsigned int *ndata);

/* Nothing (message or notification) queued on s after n polls (and the
 * transport's quiet_ms)? */
bool rdma_quiet(int s, unsigned int polls);

/*
 * Split total bytes into n iovecs (1 <= n <= total) of mixed sizes, laid
 * out in buf with gaps of 1..16 canary bytes between and around them.
 * buf must hold rdma_scatter_space(total, n) bytes; the whole of buf is
 * first set to canary. Returns n.
 */
size_t rdma_scatter_space(size_t total, size_t n);
size_t rdma_scatter(uint8_t *buf, size_t total, size_t n, uint64_t seed,
		    uint8_t canary, struct rds_iovec *iov);
/* Are all bytes of buf outside the iovecs still canary? */
bool rdma_scatter_canary_ok(const uint8_t *buf, size_t space,
			    const struct rds_iovec *iov, size_t n,
			    uint8_t canary);
/* Gather the iovecs into out (total bytes). */
void rdma_gather(const struct rds_iovec *iov, size_t n, uint8_t *out);

/* Index of the first differing byte, or -1. */
long rdma_first_diff(const void *a, const void *b, size_t len);

#endif /* RDMA_COMMON_H */

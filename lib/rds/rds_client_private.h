/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An attached process (rds_client.c, rds_client_data.c, rds_client_wait.c,
 * rds_client_txbuf.c, rds_client_sock.c, rds_client_rdma.c): what the
 * files share. Internal to the library.
 */
#ifndef RDS_CLIENT_PRIVATE_H
#define RDS_CLIENT_PRIVATE_H

#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include "rds_private.h"
#include "rds_region.h"

#define RDS_CL_SPIN_NS 20000		/* spin before sleeping */
#define RDS_CL_SLICE_MS 10		/* sleep, then look again */

/* The armed bits (rds_region.h) a waiter for events sets: set and
 * cleared with an OR and an AND, so that a waiter for room and one for
 * data on the same socket do not undo each other's. */
static inline uint32_t
rds_cl_arm_bits(short events)
{
	uint32_t b = 0;

	if (events & (POLLIN | POLLRDNORM | POLLRDBAND | POLLPRI))
		b |= RDS_ARM_IN;
	if (events & (POLLOUT | POLLWRNORM | POLLWRBAND))
		b |= RDS_ARM_OUT;
	return b != 0 ? b : RDS_ARM_ALL;
}

static inline void
rds_cl_arm(uint32_t *armed, short events)
{
	__atomic_fetch_or(armed, rds_cl_arm_bits(events), __ATOMIC_SEQ_CST);
}

static inline void
rds_cl_disarm(uint32_t *armed, short events)
{
	__atomic_fetch_and(armed, ~rds_cl_arm_bits(events), __ATOMIC_SEQ_CST);
}

/*
 * One step of that spin: sched_yield(), not a pause. The peer the caller
 * waits for (the other end of a ping-pong, a process the engine just
 * woke) is often runnable on the same core; a pause loop would keep it
 * off that core for the whole spin, and a blocking ping-pong of two
 * processes on one core took two spins a round trip (95 us RTT against
 * 12 us with the yield, doc/perf.md "Multi-process"). With nothing else
 * runnable the yield returns at once.
 */
static inline void
rds_cl_spin_step(void)
{
	sched_yield();
}

struct rds_cl_sock {
	uint32_t state;			/* enum rds_slot_state (atomic) */
	uint32_t refs;			/* calls inside (atomic) */
	int32_t handle;			/* what the engine calls it: its slot */
	int efd;			/* the wake-up descriptor (atomic:
					 * it can move) */
	uint32_t efd_users;		/* calls using efd's number (atomic) */
	uint32_t efd_moving;		/* rte_rds_event_fd_move (atomic) */
	struct rds_csock *cs;
	rte_spinlock_t lock;		/* request ring producer, options */
	rte_spinlock_t rlock;		/* receive ring consumer */
	struct rds_xring_end req;
	struct rds_xring_end rx;
	struct rds_xring_end nt;	/* notifications: token, status */
	struct rds_xring_end key;	/* RDMA keys reserved (under lock) */
	void *live_keys;		/* tsearch set of the keys of regions
					 * its ring's RDMA_MAPs made (under
					 * lock; rds_client_rdma.c) */
	uint32_t spare[4];		/* keys taken and not used (lock) */
	uint32_t nb_spare;
	uint64_t rx_head;		/* peeked RX buffer, 0: none */
	uint32_t txb_need;		/* a non-blocking send had room in
					 * the send buffer and no TX buffer
					 * of this many bytes: POLLOUT waits
					 * for one (0: none; atomic) */
	/* The state the socket calls read (rds_front.h), as an in-process
	 * socket's; under lock. */
	struct rds_front f;
};

struct rds_cl {
	pid_t pid;
	bool forked;			/* this is a child: hands off */
	int fd;				/* the UNIX socket */
	pthread_mutex_t ctl;		/* one call at a time */
	uint32_t seq;
	uint8_t *base;
	size_t size;
	struct rds_region_layout lay;
	struct rds_region_hdr *hdr;
	pthread_mutex_t slot_lock;
	pthread_mutex_t move_lock;	/* one rte_rds_event_fd_move at a time */
	struct rds_cl_sock socks[RDS_REGION_MAX_LADDRS * 4];
	unsigned int nb_socks;
	rte_spinlock_t tx_lock;		/* TX pool and txfree */
	uint32_t *tx_free[RDS_REGION_NB_CLASSES];
	uint32_t tx_nfree[RDS_REGION_NB_CLASSES];
	struct rds_xring_end txfree;
	rte_spinlock_t rxfree_lock;
	struct rds_xring_end rxfree;
	uint32_t epoch;			/* this attach, for threads' bells */
	uint32_t hgen;			/* this attach, in its handles */
	uint32_t dead;			/* the engine went away (atomic) */
	uint64_t gone_checked;		/* when the socket was last looked at */
	int slice_ms;			/* a waiter's sleep before it looks
					 * again without a wake-up
					 * (RDS_CL_SLICE_MS; RTE_RDS_WAIT_SLICE_MS) */
	struct rds_cl *retired;		/* the attachment before this one */
};

_Static_assert(RDS_REGION_MAX_LADDRS * 4 >= 256, "client socket slots");

/*
 * A handle is the socket's slot in its attachment and the attachment's
 * generation (4 bits above the slot's 8): a handle of an attachment that
 * went (its engine stopped, or this process is a forked child) never
 * names a socket of the one after it on the same slot (EBADF). Handles
 * stay below 4096.
 */
#define RDS_CL_SLOT_BITS 8
#define RDS_CL_GEN_MASK 0xfu
_Static_assert(RDS_REGION_MAX_LADDRS * 4 <= (1u << RDS_CL_SLOT_BITS),
	       "client slots fit their bits of a handle");

extern struct rds_cl *rds_cl;

/* The handle of slot i. */
static inline int
rds_cl_handle(const struct rds_cl *cl, unsigned int i)
{
	return (int)(i | (cl->hgen << RDS_CL_SLOT_BITS));
}

/* The slot a handle names in cl, or -1 (not one of cl's). */
static inline int
rds_cl_slot(const struct rds_cl *cl, int s)
{
	unsigned int i = (unsigned int)s & ((1u << RDS_CL_SLOT_BITS) - 1);

	if (s < 0 || ((unsigned int)s >> RDS_CL_SLOT_BITS) != cl->hgen ||
	    i >= cl->nb_socks)
		return -1;
	return (int)i;
}

static inline struct rds_cl_sock *
rds_cl_hold(struct rds_cl *cl, int s)
{
	struct rds_cl_sock *cs;
	int i = rds_cl_slot(cl, s);

	if (i < 0)
		return NULL;
	cs = &cl->socks[i];
	__atomic_fetch_add(&cs->refs, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&cs->state, __ATOMIC_SEQ_CST) != RDS_SOCK_OPEN) {
		__atomic_fetch_sub(&cs->refs, 1, __ATOMIC_RELEASE);
		return NULL;
	}
	return cs;
}

static inline void
rds_cl_put(struct rds_cl_sock *cs)
{
	__atomic_fetch_sub(&cs->refs, 1, __ATOMIC_RELEASE);
}

/*
 * A call that polls, reads or shuts a socket's wake-up descriptor by its
 * number does so between rds_cl_efd_get() and rds_cl_efd_put(), so that
 * rte_rds_event_fd_move() knows when the old number is out of use and
 * can be handed to its caller (who may put another file there at once).
 * During a move there is no number (-1): the caller looks again instead
 * of sleeping.
 */
static inline int
rds_cl_efd_get(struct rds_cl_sock *cs)
{
	__atomic_fetch_add(&cs->efd_users, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&cs->efd_moving, __ATOMIC_SEQ_CST)) {
		__atomic_fetch_sub(&cs->efd_users, 1, __ATOMIC_RELEASE);
		return -1;
	}
	return __atomic_load_n(&cs->efd, __ATOMIC_ACQUIRE);
}

static inline void
rds_cl_efd_put(struct rds_cl_sock *cs)
{
	__atomic_fetch_sub(&cs->efd_users, 1, __ATOMIC_RELEASE);
}

/* rds_client.c: the UNIX socket */
int rds_cl_call(struct rds_cl *cl, struct rds_ctl_req *q,
		struct rds_ctl_resp *r, int pass_fd, int *got_fd);
/* RDS_INFO: the answer, then its records into info (room for cap). */
int rds_cl_call_info(struct rds_cl *cl, struct rds_ctl_req *q,
		     struct rds_ctl_resp *r, void *info, uint32_t cap);
struct rds_ctl_req *rds_cl_req_new(uint32_t op, int32_t handle);
int rds_cl_simple(struct rds_cl *cl, uint32_t op, int32_t handle, int level,
		  int name, const void *in, uint32_t len, void *out,
		  uint32_t *out_len);

/*
 * The name an attached client gives its engine for bind and connect: the
 * address the front half took (rds_front.h), IPv4 (or v4-mapped) as a
 * sockaddr_in, IPv6 as a sockaddr_in6 with its scope. Its length.
 */
static inline uint32_t
rds_client_name(const struct in6_addr *a, uint16_t port, uint32_t scope,
		struct sockaddr_in6 *name)
{
	memset(name, 0, sizeof(*name));
	if (rds_addr_is_v4(a)) {
		struct sockaddr_in *sin = (struct sockaddr_in *)name;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		sin->sin_addr.s_addr = rds_addr_v4(a);
		return sizeof(*sin);
	}
	name->sin6_family = AF_INET6;
	name->sin6_port = htons(port);
	name->sin6_addr = *a;
	name->sin6_scope_id = scope;
	return sizeof(*name);
}

/* rds_client_wait.c: the engine's liveness, readiness, waiting. Wait
 * until events may be ready on cs (need != 0: a TX buffer of need bytes,
 * the send buffer having room), or the deadline (0: none): 0, -EBADF
 * (closed), -ETIMEDOUT, -ECONNRESET (the engine went). */
int rds_cl_wait(struct rds_cl *cl, struct rds_cl_sock *cs, short events,
		uint32_t need, uint64_t deadline, uint64_t *spin_until);
/* Now plus timeo_ns, 0 for none. */
uint64_t rds_cl_deadline(uint64_t timeo_ns);
uint64_t rds_cl_now_ns(void);
bool rds_cl_engine_gone(struct rds_cl *cl);
bool rds_cl_engine_gone_now(struct rds_cl *cl);
short rds_cl_revents(struct rds_cl_sock *cs, short events);
/* A waiter for events on cs (poll, epoll through the wake-up
 * descriptor) arms them; one for POLLOUT on a socket whose last
 * non-blocking send found no TX buffer (txb_need) also arms RDS_ARM_TXB,
 * as a blocked sender does, so that a buffer given back wakes it. */
void rds_cl_arm_ev(struct rds_cl *cl, struct rds_cl_sock *cs, short events);
void rds_cl_disarm_ev(struct rds_cl_sock *cs, short events);

/* Send: this thread's doorbell for socket idx. */
int rds_cl_bell(struct rds_cl *cl, uint32_t idx);

/* Room in the socket's send buffer (the last message may overshoot). */
static inline bool
rds_cl_snd_room(const struct rds_cl_sock *cs)
{
	return __atomic_load_n(&cs->cs->snd_queued, __ATOMIC_ACQUIRE) -
	       __atomic_load_n(&cs->cs->snd_released, __ATOMIC_ACQUIRE) <
	       cs->f.sndbuf;
}

/* rds_client_txbuf.c: a TX buffer of at least need bytes (0, or
 * -ENOBUFS), one given back unused, whether a waiter for one may have
 * it now. */
int rds_cl_tx_alloc(struct rds_cl *cl, uint32_t need, uint64_t *off);
void rds_cl_tx_unalloc(struct rds_cl *cl, uint64_t off);
/* A TX buffer of need bytes may be had now (a hint, as rds_cl_tx_ready,
 * without the send buffer's part). */
bool rds_cl_tx_avail(struct rds_cl *cl, uint32_t need);
bool rds_cl_tx_ready(struct rds_cl *cl, const struct rds_cl_sock *cs,
		     uint32_t need);

/* rds_client_rdma.c: RDMA_MAP and RDS_FREE_MR through the ring */
void rds_cl_keys_init(struct rds_cl *cl, struct rds_cl_sock *cs,
		      unsigned int i);
void rds_cl_keys_fini(struct rds_cl_sock *cs);
/* Is a key there to take? */
bool rds_cl_key_avail(struct rds_cl_sock *cs);
/* Take a key for RDMA_MAP a (checked: rds_rdma_map_check, whose cookie
 * offset is cookie_off) and write its cookie: 0 with *key, or -ENOENT
 * (none left: a call). */
int rds_cl_map_take(struct rds_cl_sock *cs, const struct rds_get_mr_args *a,
		    uint64_t cookie_off, uint32_t *key);
/* The send did not go: the key is the next one's. */
void rds_cl_map_untake(struct rds_cl_sock *cs, uint32_t key);
/* The send is in the ring: its region will be there. */
void rds_cl_map_done(struct rds_cl_sock *cs, const struct rds_get_mr_args *a,
		     uint32_t key);
/* Is key one of a region its ring's RDMA_MAP made (and not freed)? */
bool rds_cl_key_live(struct rds_cl_sock *cs, uint32_t key);
/* RDS_FREE_MR through the ring: 1 done (0 is the answer), 0 a call. */
int rds_cl_free_mr(struct rds_cl *cl, struct rds_cl_sock *cs,
		   const void *optval, socklen_t optlen);

/* rds_client_sock.c: sockets, options, readiness */
void rds_cl_rx_back(struct rds_cl *cl, uint64_t off);

/* Take what the engine sent to a socket's wake-up descriptor (one byte
 * a message; nothing once it is shut or the engine went). */
static inline void
rds_cl_wake_drain(int fd)
{
	char b[16];

	while (recv(fd, b, sizeof(b), MSG_DONTWAIT) > 0)
		;
}

#endif /* RDS_CLIENT_PRIVATE_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine's side of serving other processes (rds_server.c,
 * rds_server_data.c, rds_server_ctl.c): what the three files share.
 * Internal to the library.
 */
#ifndef RDS_SERVER_PRIVATE_H
#define RDS_SERVER_PRIVATE_H

#include <poll.h>
#include <sys/un.h>

#include "rds_private.h"
#include "rds_region.h"

#define RDS_SRV_DEFAULT_REGION_MB 32
#define RDS_SRV_DEFAULT_CLIENTS 256
#define RDS_SRV_DEFAULT_PER_UID 64	/* clients of one uid at once */
#define RDS_SRV_DEFAULT_KEEP_MB 64	/* messages kept for one client */
#define RDS_SRV_SOCKS 256		/* sockets per client */
#define RDS_SRV_BELLS 64		/* threads per client */
#define RDS_SRV_HELLO_MS 2000		/* a new connection's hello */
#define RDS_SRV_PENDING_MAX 64		/* connections before their hello */
#define RDS_SRV_PENDING_PER_UID 8
#define RDS_SRV_OUT_MAX 4		/* answers queued for a client before
					 * its next request is read */
#define RDS_SRV_CALLS_PER_POLL 16	/* requests of one client a poll */
#define RDS_SRV_INFO_MAX (256u << 20)	/* an RDS_INFO answer, at most */
#define RDS_SRV_MSG_COST 256		/* a message's least weight in a
					 * client's send buffer */
_Static_assert(RDS_CSOCK_KEY_RING == RDS_MR_RESV_MAX,
	       "a socket's key ring holds every key reserved for it");

/* A TX buffer slot: whose it is (the engine's own record; a buffer
 * handed over while it is not the client's breaks the protocol). */
enum {
	RDS_TXB_CLIENT = 0,		/* the client's */
	RDS_TXB_BACK,			/* given back, not yet taken off txfree
					 * by the client */
	RDS_TXB_HELD,			/* a message's payload (sent from the
					 * buffer: rds_server_zc.c) */
};

/* A client's request, as the engine checked it (rds_server_data.c). */
struct rds_srv_req {
	uint64_t off;			/* its TX buffer */
	unsigned int c;			/* class */
	uint32_t slot;
	struct rds_cbuf h;		/* the one copy of its header */
};

/* An answer waiting for room on a client's socket: a message (len bytes
 * of buf, with fd passed along), or the records of an RDS_INFO answer
 * still to go (info: total bytes, off sent), in RDS_CTL_INFO_DATA
 * chunks. */
struct rds_ctl_out {
	STAILQ_ENTRY(rds_ctl_out) link;
	int fd;				/* closed once sent */
	uint32_t len;
	uint32_t seq;			/* info chunks: the call's */
	uint8_t *info;
	uint32_t info_len, info_off;
	uint8_t buf[];
};
STAILQ_HEAD(rds_ctl_out_list, rds_ctl_out);

struct rds_srv_sock {
	struct rds_sock *rs;		/* NULL: free (atomic: engines read) */
	uint32_t gen;			/* bumped when the slot is reused */
	int wfd;			/* our end of the socket's wake-up pair
					 * (the client polls the other) */
	struct rds_xring_end req;	/* consumer */
	struct rds_xring_end rx;	/* producer (under rs->rx_prod_lock) */
	struct rds_xring_end nt;	/* producer */
	struct rds_xring_end key;	/* producer: RDMA keys reserved */
	bool keys_on;			/* it made an RDMA_MAP: keep its key
					 * ring filled (rds_srv_keys_fill) */
	struct rds_msg_list ovf;	/* received, waiting for room */
	struct rds_msg_list nt_ovf;	/* notifications waiting for room */
	bool on_ovf;
	TAILQ_ENTRY(rds_srv_sock) ovf_link;
	bool throttled;			/* over its send buffer, or its next
					 * request's destination congested:
					 * later (rds_srv_throttle) */
	struct rds_cong_map *last_fcong;
	struct rds_csock *cs;		/* its shared part */
	uint32_t idx;
};

struct rds_client {
	TAILQ_ENTRY(rds_client) link;	/* the server's list */
	TAILQ_ENTRY(rds_client) eng_link; /* its engine's list */
	int fd;				/* non-blocking */
	pid_t pid;			/* as the kernel saw it (0: not
					 * visible here) */
	uid_t uid;
	gid_t gid;
	struct rds_xmem *mem;		/* its memory (rds_xmem.h) */
	struct rds_ctl_out_list out;	/* answers waiting for room */
	uint32_t nb_out;
	int memfd;
	uint8_t *base;
	size_t size;
	struct rds_region_layout lay;	/* our copy: never read back */
	struct rds_srv_sock socks[RDS_SRV_SOCKS];
	struct rds_xring_end bells[RDS_SRV_BELLS];
	uint32_t nb_bells;		/* given out (atomic) */
	uint32_t nb_throttled;		/* sockets throttled (its engine) */
	struct rds_xring_end txfree;	/* producer */
	struct rds_xring_end rxfree;	/* consumer */
	rte_spinlock_t rx_lock;		/* RX allocator: engines deliver */
	uint32_t *rx_free[RDS_REGION_NB_CLASSES];
	uint32_t rx_nfree[RDS_REGION_NB_CLASSES];
	uint32_t *rx_len[RDS_REGION_NB_CLASSES];
	uint32_t *rx_owner[RDS_REGION_NB_CLASSES]; /* idx | gen << 16, ~0 */
	uint64_t *tx_back;		/* TX buffers txfree had no room for */
	uint32_t nb_tx_back, nb_tx;	/* nb_tx: TX slots in all */
	uint8_t *tx_state[RDS_REGION_NB_CLASSES]; /* RDS_TXB_* per slot */
	uint64_t *txfree_shadow;	/* what we put on txfree, by index */
	uint32_t txfree_seen;		/* client's txfree consumer, as seen */
	uint32_t txfree_woke;		/* txfree's producer when its waiters
					 * were last looked for
					 * (rds_srv_tx_wake) */
	uint64_t tx_wakes;		/* senders woken for a TX buffer */
	uint64_t kept_bytes;		/* in the sockets' ovf (rx_lock) */
	uint64_t keep_max;
	uint64_t kept_logged;		/* TSC of the last warning (atomic) */
	TAILQ_HEAD(, rds_srv_sock) ovf_socks;	/* under rx_lock */
	unsigned int engine;
	uint32_t bad;			/* broke the protocol, or went
					 * (atomic) */
	uint32_t violated;		/* broke the protocol (atomic) */
	bool on_engine;
	uint64_t msgs_in, msgs_out;
	uint64_t msgs_zc;		/* of msgs_in, from its TX buffers */
	uint64_t ops_in, ops_dropped;	/* queued operations taken, and
					 * dropped (rds_server_rdma.c) */
	struct rte_ring *tx_done;	/* TX buffers messages held, back
					 * (rds_server_zc.c) */
	uint32_t xbufs_out;		/* TX buffers messages hold (atomic) */
};

/* A connection that has not said hello yet. */
struct rds_srv_pending {
	int fd;
	uid_t uid;
	uint64_t deadline_ms;
};

struct rds_server {
	int lfd;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	uint32_t region_mb;
	uint32_t max_clients;
	uint32_t max_per_uid;
	uint64_t keep_bytes;
	unsigned int nb_clients;
	struct rds_srv_pending pending[RDS_SRV_PENDING_MAX];
	unsigned int nb_pending;
	struct pollfd *pfd;		/* rte_rds_server_poll's, sized for
					 * every client and pending one */
	struct rds_client **pmap;
	unsigned int next_engine;
	TAILQ_HEAD(, rds_client) clients;
	uint64_t violations;
	uint64_t attached, refused, detached, calls;
	uint64_t hello_late;		/* no hello in time */
	uint32_t kicked;		/* a client said it sent a call
					 * (atomic: rte_rds_server_pending) */
	uint64_t kept_refused;		/* deliveries refused: kept too much */
	uint64_t gone_in, gone_out;	/* msgs_in/out of clients gone */
	uint64_t gone_ops_in, gone_ops_dropped, gone_zc, gone_tx_wakes;
};

extern struct rds_server *rds_srv;

/* Per engine: the clients it serves (engine-private; changed only by
 * calls run on the engine). */
TAILQ_HEAD(rds_client_list, rds_client);
extern struct rds_client_list rds_srv_eng_clients[RTE_RDS_MAX_ENGINES];

/* Which class and slot an offset of pool p is, or -1. */
static inline int
rds_region_slot(const struct rds_region_layout *l, unsigned int p,
		uint64_t off, uint32_t *slot)
{
	unsigned int c;
	uint64_t rel;

	for (c = 0; c < RDS_REGION_NB_CLASSES; c++) {
		if (off < l->pool_off[p][c])
			continue;
		rel = off - l->pool_off[p][c];
		if (rel >= (uint64_t)l->pool_nb[p][c] * rds_region_class_size[c])
			continue;
		if (rel % rds_region_class_size[c] != 0)
			return -1;
		*slot = (uint32_t)(rel / rds_region_class_size[c]);
		return (int)c;
	}
	return -1;
}

/* rds_server.c: regions and clients */
void rds_client_violation(struct rds_client *cl, const char *what);
void rds_srv_client_free(struct rds_client *cl);
void rds_srv_sock_flush(struct rds_client *cl, struct rds_srv_sock *ss);

/* A warning about a client that goes on misbehaving: at most once a
 * second (*last: the TSC of the last one). */
static inline bool
rds_srv_log_due(uint64_t *last)
{
	uint64_t now = rds_clock_tsc(), l = __atomic_load_n(last, __ATOMIC_RELAXED);

	return now - l >= rds_clock_hz() &&
	       __atomic_compare_exchange_n(last, &l, now, false,
					   __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/* What a message of len bytes counts against a client socket's receive
 * buffer (rds_server_deliver). */
static inline int64_t
rds_srv_rcv_charge(uint32_t len)
{
	return len > RDS_SRV_MSG_COST ? (int64_t)len : RDS_SRV_MSG_COST;
}

/* What a message kept for a client costs the engine (keep_max). */
static inline uint64_t
rds_srv_kept_cost(const struct rds_msg *m)
{
	return (uint64_t)m->len + sizeof(*m);
}

/* rds_server_data.c: the data plane (engines) */
/* rds_server_rdma.c: a queued send's operation onto m, from its TX
 * buffer (buf: right after the payload, room bytes to the slot's end;
 * h: the engine's copy of its header, bounds checked): 0, or -errno when
 * it was dropped (told as the operation asked). Then whether the
 * transport m goes by (trans_id) runs it: the same. */
int rds_srv_take_op(struct rds_engine *e, struct rds_client *cl,
		    struct rds_sock *rs, const uint8_t *buf, size_t room,
		    const struct rds_cbuf *h, struct rds_msg *m, bool *mapped);
/* Reserve keys for socket ss (rs) up to RDS_MR_RESV_MAX and put them on
 * its key ring; turns the ring on. Its service engine. */
void rds_srv_keys_fill(struct rds_srv_sock *ss, struct rds_sock *rs);
/* The same, for a socket whose ring is on and runs low. */
static inline void
rds_srv_keys_check(struct rds_srv_sock *ss, struct rds_sock *rs)
{
	if (ss->keys_on && __atomic_load_n(&rs->nb_mr_resv, __ATOMIC_RELAXED) <
			   RDS_MR_RESV_MAX / 2)
		rds_srv_keys_fill(ss, rs);
}
int rds_srv_op_trans(struct rds_engine *e, struct rds_client *cl,
		     struct rds_sock *rs, struct rds_msg *m, uint8_t trans_id);
/* The RDS_REGION_LADDR_RDMA/_MASKED bits of a transport (NULL: 0). */
static inline uint32_t
rds_srv_rdma_flags(const struct rds_transport *t)
{
	if (t == NULL || !(t->flags & RDS_TRANS_F_RDMA) || t->mr_reg != NULL)
		return 0;
	return RDS_REGION_LADDR_RDMA |
	       ((t->flags & RDS_TRANS_F_MASKED_ATOMICS) ?
		RDS_REGION_LADDR_MASKED : 0);
}
unsigned int rds_srv_drain(struct rds_engine *e, struct rds_client *cl,
			   struct rds_srv_sock *ss);
/* A socket is throttled, or not (its client's engine). */
static inline void
rds_srv_throttle(struct rds_client *cl, struct rds_srv_sock *ss, bool on)
{
	if (ss->throttled != on) {
		ss->throttled = on;
		if (on)
			cl->nb_throttled++;
		else
			cl->nb_throttled--;
	}
}
void rds_srv_drain_call(struct rds_engine *e, void *arg);
void rds_srv_close_call(struct rds_engine *e, void *arg);
void rds_srv_gone_call(struct rds_engine *e, void *arg);
void rds_srv_attach_call(struct rds_engine *e, void *arg);
void rds_srv_detach_call(struct rds_engine *e, void *arg);

/* rds_server_ctl.c: the control plane's calls */
int rds_srv_reply(struct rds_client *cl, const struct rds_ctl_resp *r,
		  int pass_fd);
int rds_srv_flush(struct rds_client *cl);
void rds_srv_out_free(struct rds_client *cl);
int rds_srv_handle(struct rds_client *cl);
/* rds_server_region.c: a client's region, made at its attach */
void rds_region_layout_make(uint32_t mb, struct rds_region_layout *l);
void rds_region_init(uint8_t *base, const struct rds_region_layout *l);
/* rds_server_txbuf.c: TX buffers' ownership */
void rds_srv_txfree_reap(struct rds_client *cl);
void rds_srv_tx_back_flush(struct rds_client *cl);
int rds_srv_tx_own(struct rds_client *cl, uint64_t off, unsigned int *c,
		   uint32_t *slot);
void rds_srv_tx_back(struct rds_client *cl, uint64_t off, unsigned int c,
		     uint32_t slot);

/* rds_server_zc.c: messages sent from a client's TX buffer, from this
 * many bytes of payload: below, the copy costs the engine less than the
 * buffer's way back through tx_done (callgrind, doc/perf.md: 64 B and
 * 512 B cost more instructions from the TX buffer, 2 KiB and 64 KiB
 * fewer). */
#define RDS_SRV_ZC_MIN 1024
/* rds_server_zc.c: messages sent from a client's TX buffer */
int rds_srv_zc_init(struct rds_client *cl);
void rds_srv_zc_fini(struct rds_client *cl);
/* The hook of their last reference (rte_rds_server_start). */
void rds_srv_zc_start(void);
/* A message whose payload is request rq's TX buffer (NULL: no memory);
 * the buffer is the engine's until the message goes. */
struct rds_msg *rds_srv_zc_msg(struct rds_client *cl,
			       const struct rds_srv_req *rq);
/* The TX buffers such messages held, back to the client (its engine):
 * how many. */
unsigned int rds_srv_zc_reap(struct rds_client *cl);
/* m, or (a message holding a client's TX buffer) a copy with a payload
 * of its own (m is the caller's still); NULL without memory. */
struct rds_msg *rds_srv_zc_own(struct rds_msg *m);
/* A client gone whose buffers messages still hold; free the ones whose
 * buffers all came back (last: the teardown, the rest said). Control
 * thread. */
void rds_srv_zombie_add(struct rds_client *cl);
void rds_srv_zombies_reap(bool last);
unsigned int rds_srv_zombies_count(void);

/* rds_server_wake.c: wake the socket's waiters when one waits for ev
 * (RDS_ARM_* bits); in an engine's pass, at its end. */
void rds_srv_wake_ev(struct rds_sock *rs, uint32_t ev);
/* TX buffers went back onto the client's txfree since the last look:
 * wake its senders that wait for one (RDS_ARM_TXB). Its engine. */
void rds_srv_tx_wake(struct rds_client *cl);

#endif /* RDS_SERVER_PRIVATE_H */

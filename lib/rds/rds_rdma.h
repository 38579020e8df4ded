/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA as the core and the transports see it: registered memory regions,
 * the operations riding on messages, the memory of an attached client
 * (rds_xmem.c) and the calls of rds_rdma*.c (what only those files share
 * is in rds_rdma_private.h). Part of rds_private.h, which includes it
 * after rds_sock.h: include that, not this.
 */
#ifndef RDS_RDMA_H
#define RDS_RDMA_H

#ifndef RDS_PRIVATE_H
#error "include rds_private.h, not rds_rdma.h"
#endif

/* Memory regions: pages of this size; at most this many regions, each of
 * at most 1 MiB of pages plus a partial one (RDS_MR_MAX_PAGES). */
#define RDS_MR_PAGE 4096ULL
#define RDS_MR_MAX 65536
#define RDS_MR_MAX_PAGES (RDS_MAX_MSG_SIZE / RDS_MR_PAGE + 1)
/* Keys reserved for one socket at most (rds_mr_reserve). */
#define RDS_MR_RESV_MAX 16

/* What a table entry is (rds_rdma.c): a region, or a key reserved for
 * an attached client's socket (rds_region.h, the key ring) that no
 * region has yet, or one whose RDMA_MAP was freed (RDS_FREE_MR by a
 * call) before the engine took it. Only a region is ever reached. */
enum rds_mr_state {
	RDS_MR_LIVE = 0,
	RDS_MR_RESERVED,
	RDS_MR_CANCELLED,
};

/* A registered memory region (rds_rdma.c). */
struct rds_mr {
	uint32_t key;			/* r_key: the cookie's low half */
	uint32_t flags;			/* RDS_RDMA_USE_ONCE, READWRITE, ... */
	uintptr_t base;			/* first page */
	uint64_t len;			/* whole pages */
	int sock;			/* owner */
	uint32_t sock_gen;
	struct in6_addr laddr;		/* owner's bound address */
	const struct rds_transport *trans; /* hardware registration, or NULL */
	void *tp;			/* its private data (ibv_mr) */
	bool invalidate;		/* on release: revoke now (INVALIDATE,
					 * USE_ONCE, close), no cache */
	struct rds_xmem *mem;		/* NULL: this process's memory, else
					 * an attached client's (a reference) */
	uint32_t *owner_nb;		/* the owner's count of regions */
	uint32_t *owner_resv;		/* the owner's count of reservations
					 * (state not LIVE) */
	uint8_t state;			/* enum rds_mr_state */
};

enum rds_op_kind {
	RDS_OP_READ,
	RDS_OP_WRITE,
	RDS_OP_FADD,
	RDS_OP_CSWP,
	RDS_OP_MFADD,
	RDS_OP_MCSWP,
};

/* One RDMA or atomic operation riding on a message. */
struct rds_rdma_op {
	enum rds_op_kind kind;
	uint64_t cookie;		/* remote region */
	uint64_t remote_off;		/* offset past the cookie's offset */
	uint64_t bytes;
	uint64_t flags;			/* RDS_RDMA_* */
	uint64_t token;			/* user_token for the notification */
	struct iovec *local;		/* READ: where the data goes */
	uint32_t nr_local;
	uint8_t *data;			/* WRITE: the data, taken at sendmsg */
	uint64_t compare, swap_add, mask1, mask2; /* atomics */
	uint64_t *atomic_result;	/* atomics: the old value goes here */
	bool notified;
	bool executed;			/* ran once (software executor; ib:
					 * its work request completed) */
	/* The core's (rds_send_xmit_op): xmit_op is called no more. */
	bool done;			/* it returned 0: status is final */
	bool posted;			/* RDS_XMIT_OP_POSTED: the result
					 * comes with rds_rdma_op_completed */
	int status;			/* its result */
	int recverr;			/* RDS_RECVERR at sendmsg */
	uint32_t refs;			/* the message, and a transport that
					 * has the operation in flight */
	void *tp_mr;			/* transport: local registration */
	uint32_t tp_flags;		/* transport: its own state */
	int sock;			/* who is told how it went */
	uint32_t sock_gen;
	struct rds_xmem *mem;		/* whose memory local and
					 * atomic_result are (NULL: ours; else
					 * a reference) */
};

#include "rds_xmem.h"

/* rds_rdma.c, rds_rdma_cmsg.c, rds_rdma_exec.c */
int rds_mr_init(void);
void rds_mr_fini(void);
void rds_mr_sock_close(struct rds_sock *rs);
void rds_mr_unuse(uint32_t key);
void rds_mr_unuse_sock(const struct rds_sock *rs, uint32_t key);
int rds_rdma_get_mr(struct rds_sock *rs, const void *optval, socklen_t optlen,
		    bool for_dest);
int rds_rdma_free_mr(struct rds_sock *rs, const void *optval,
		     socklen_t optlen);
int rds_rdma_cmsgs(struct rds_sock *rs, const struct msghdr *msg,
		   struct rds_rdma_op **opp, uint64_t *dest_cookie,
		   bool *has_dest, bool *mapped);
void rds_rdma_unmap(struct rds_sock *rs, uint64_t cookie);
/* Keys for an attached client's socket (rds_region.h, the key ring):
 * up to n (RDS_MR_RESV_MAX at most) reserved into keys[]; the count, or
 * -errno. */
int rds_mr_reserve(struct rds_sock *rs, uint32_t *keys, unsigned int n);
/* Free one key of rs (RDS_FREE_MR that went through the request ring,
 * which has no INVALIDATE: the same as rds_rdma_free_mr then, whose
 * errno nobody waits for). */
void rds_mr_free_key(struct rds_sock *rs, uint32_t key);
/* rds_rdma_cmsgs_client's *what. */
#define RDS_RDMA_C_OP 0x1
#define RDS_RDMA_C_MASKED 0x2
#define RDS_RDMA_C_COOKIE 0x4
#define RDS_RDMA_C_MAP 0x8		/* the cookie is RDMA_MAP's */
/* An attached client's RDMA_MAP, checked in its own memory as the engine
 * would (EINVAL, EMSGSIZE, EFAULT): 0 with the cookie's offset (its
 * high half), or -errno. */
int rds_rdma_map_check(const struct rds_get_mr_args *a, uint64_t *cookie_off);
int rds_rdma_cmsgs_client(const struct msghdr *msg, unsigned int *what,
			  const struct rds_iovec **vec, uint32_t *nvec,
			  uint64_t *wbytes, struct rds_get_mr_args *map,
			  uint64_t *dest);
/* What an attached client's queued send carried with its operation
 * (rds_server_rdma.c): copies the engine made of its RDMA_ARGS' local
 * vector, and where a WRITE's data is (in the client's region, with
 * room for wlen bytes there; NULL: read at the vector, in the client's
 * memory). */
struct rds_rdma_given {
	const struct rds_iovec *vec;
	const uint8_t *wdata;
	uint64_t wlen;
	bool map_key_set;		/* RDMA_MAP takes map_key, a key
					 * reserved for the socket, and writes
					 * no cookie (the client did) */
	uint32_t map_key;
};
/* rds_rdma_cmsgs with what a queued send carried (g; NULL: nothing). */
int rds_rdma_cmsgs_vec(struct rds_sock *rs, const struct msghdr *msg,
		       const struct rds_rdma_given *g, struct rds_rdma_op **opp,
		       uint64_t *dest_cookie, bool *has_dest, bool *mapped);
void rds_rdma_op_free(struct rds_rdma_op *op);
/* The software executor, in two halves so that they can run on two
 * hosts: the request the target runs, the target half (given the
 * target's end of the connection the request came in on: a peer that
 * presents wrong keys is counted there), the initiator half, and both in
 * one process. */
struct rds_rdma_req {
	enum rds_op_kind kind;
	uint64_t cookie;
	uint64_t remote_off;
	uint64_t bytes;
	uint64_t compare, swap_add, mask1, mask2;
	const uint8_t *wdata;		/* WRITE: bytes bytes */
};
void rds_rdma_req_of(const struct rds_rdma_op *op, struct rds_rdma_req *rq);
int rds_rdma_target(struct rds_conn *tc, const struct rds_rdma_req *rq,
		    const struct iovec *rdst, uint32_t nrdst, uint64_t *old);
void rds_rdma_initiator_done(struct rds_rdma_op *op, int status,
			     const uint8_t *rdata, uint64_t old);
int rds_rdma_sw_exec(struct rds_conn *target, struct rds_rdma_op *op);
void rds_rdma_notify(struct rds_engine *e, const struct rds_msg *m,
		     int status);
void rds_rdma_op_notify(struct rds_engine *e, struct rds_rdma_op *op,
			int status);

#endif /* RDS_RDMA_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Serving other processes (rte_rds_attach.h): the engine side.
 *
 * The control plane runs on the thread that calls rte_rds_server_poll():
 * it accepts clients on the UNIX socket, gives each a region (a memfd,
 * rds_region.h), and answers their calls (socket, bind, options, close,
 * info) by making the same calls on the library for them, on sockets of
 * the engine's own whose handles it keeps per client.
 *
 * The data plane runs in one engine per client (its service engine),
 * in each pass: it takes the doorbells the client's threads rang, copies
 * each request of the sockets they name out of the region into a
 * message of the engine's (checking every field: a client is input),
 * gives the TX buffer back, and queues the message as a send of the
 * socket would; it takes back the RX buffers the client consumed. Any
 * engine delivering to a client socket copies the message into an RX
 * buffer of the client's region and queues it to the socket's ring, or
 * keeps it (in order) until the client makes room.
 *
 * A client that breaks the protocol (an offset outside its pools, a
 * buffer given back twice, a ring with more entries than it holds) is
 * disconnected and counted; one that goes away has its sockets closed.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>

#include "rds_private.h"
#include "rds_region.h"
#include "rte_rds_attach.h"

#define RDS_SRV_DEFAULT_REGION_MB 32
#define RDS_SRV_DEFAULT_CLIENTS 256
#define RDS_SRV_SOCKS 256		/* sockets per client */
#define RDS_SRV_BELLS 64		/* threads per client */

struct rds_srv_sock {
	struct rds_sock *rs;		/* NULL: free (atomic: engines read) */
	uint32_t gen;			/* bumped when the slot is reused */
	int efd;			/* the client's eventfd (ours) */
	struct rds_xring_end req;	/* consumer */
	struct rds_xring_end rx;	/* producer (under rs->rx_prod_lock) */
	struct rds_xring_end nt;	/* producer */
	struct rds_msg_list ovf;	/* received, waiting for room */
	struct rds_msg_list nt_ovf;	/* notifications waiting for room */
	bool on_ovf;
	TAILQ_ENTRY(rds_srv_sock) ovf_link;
	bool throttled;			/* over its send buffer: later */
	struct rds_cong_map *last_fcong;
	struct rds_csock *cs;		/* its shared part */
	uint32_t idx;
};

struct rds_client {
	TAILQ_ENTRY(rds_client) link;	/* the server's list */
	TAILQ_ENTRY(rds_client) eng_link; /* its engine's list */
	int fd;
	pid_t pid;
	uid_t uid;
	int memfd;
	uint8_t *base;
	size_t size;
	struct rds_region_layout lay;	/* our copy: never read back */
	struct rds_srv_sock socks[RDS_SRV_SOCKS];
	struct rds_xring_end bells[RDS_SRV_BELLS];
	uint32_t nb_bells;		/* given out (atomic) */
	struct rds_xring_end txfree;	/* producer */
	struct rds_xring_end rxfree;	/* consumer */
	rte_spinlock_t rx_lock;		/* RX allocator: engines deliver */
	uint32_t *rx_free[RDS_REGION_NB_CLASSES];
	uint32_t rx_nfree[RDS_REGION_NB_CLASSES];
	uint32_t *rx_len[RDS_REGION_NB_CLASSES];
	uint32_t *rx_owner[RDS_REGION_NB_CLASSES]; /* idx | gen << 16, ~0 */
	uint64_t *tx_back;		/* TX buffers txfree had no room for */
	uint32_t nb_tx_back;
	TAILQ_HEAD(, rds_srv_sock) ovf_socks;	/* under rx_lock */
	unsigned int engine;
	uint32_t bad;			/* broke the protocol (atomic) */
	bool on_engine;
	uint64_t msgs_in, msgs_out;
};

struct rds_server {
	int lfd;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	uint32_t region_mb;
	uint32_t max_clients;
	unsigned int nb_clients;
	unsigned int next_engine;
	TAILQ_HEAD(, rds_client) clients;
	uint64_t violations;
	uint64_t attached, refused, detached, calls;
	uint64_t gone_in, gone_out;	/* msgs_in/out of clients gone */
};

static struct rds_server *rds_srv;

/* Per engine: the clients it serves (engine-private; changed only by
 * calls run on the engine). */
static TAILQ_HEAD(rds_client_list, rds_client)
	rds_srv_eng_clients[RTE_RDS_MAX_ENGINES];

/* ------------------------------------------------------------------ */
/* Region */

static uint64_t
rds_align(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* The layout of a region of about mb MiB. */
static void
rds_region_layout_make(uint32_t mb, struct rds_region_layout *l)
{
	uint64_t off = rds_align(sizeof(struct rds_region_hdr), 64);
	uint64_t ring_req = rds_xring_bytes(RDS_CSOCK_REQ_RING);
	uint64_t ring_rx = rds_xring_bytes(RDS_CSOCK_RX_RING);
	uint64_t ring_nt = rds_xring_bytes(RDS_CSOCK_NT_RING);
	uint64_t pool = ((uint64_t)mb << 20) / 2, share;
	unsigned int p, c;
	/* Of each pool: 1/8 small, 1/4 4 KiB, 1/4 64 KiB, 3/8 1 MiB. */
	static const unsigned int eighths[RDS_REGION_NB_CLASSES] = {
		1, 2, 2, 3 };

	memset(l, 0, sizeof(*l));
	l->nb_socks = RDS_SRV_SOCKS;
	l->nb_bells = RDS_SRV_BELLS;
	l->socks_off = off;
	off += sizeof(struct rds_csock) * l->nb_socks;
	off = rds_align(off, 64);
	/* Each socket's three rings follow the sockets (the engine finds
	 * them from the index, never from the offsets in rds_csock). */
	off += (ring_req + ring_rx + ring_nt) * l->nb_socks;
	l->bells_off = rds_align(off, 64);
	l->bell_stride = rds_xring_bytes(RDS_REGION_BELL_RING);
	off = l->bells_off + l->bell_stride * l->nb_bells;
	l->txfree_off = rds_align(off, 64);
	off = l->txfree_off + rds_xring_bytes(RDS_REGION_FREE_RING);
	l->rxfree_off = rds_align(off, 64);
	off = l->rxfree_off + rds_xring_bytes(RDS_REGION_FREE_RING);
	for (p = 0; p < 2; p++) {
		for (c = 0; c < RDS_REGION_NB_CLASSES; c++) {
			share = pool * eighths[c] / 8;
			off = rds_align(off, 4096);
			l->pool_off[p][c] = off;
			l->pool_nb[p][c] = (uint32_t)RTE_MAX(2ULL,
				share / rds_region_class_size[c]);
			off += (uint64_t)l->pool_nb[p][c] *
			       rds_region_class_size[c];
		}
	}
	l->size = rds_align(off, 4096);
}

static void
rds_region_init(uint8_t *base, const struct rds_region_layout *l)
{
	struct rds_region_hdr *h = (void *)base;
	uint32_t i;

	h->magic = RDS_REGION_MAGIC;
	h->version = RDS_REGION_VERSION;
	h->lay = *l;
	h->nb_laddrs = RTE_MIN(rds_lib->nb_laddrs,
			       (unsigned int)RDS_REGION_MAX_LADDRS);
	for (i = 0; i < h->nb_laddrs; i++) {
		const struct rds_laddr *la = rds_lib->laddrs[i];

		h->laddr[i].v4 = rds_addr_v4(&la->addr);
		h->laddr[i].flags = (la->trans->flags & RDS_TRANS_F_LOOPBACK) ?
				    RDS_REGION_LADDR_LOOPBACK : 0;
	}
	for (i = 0; i < l->nb_socks; i++) {
		struct rds_csock *cs = (void *)(base + l->socks_off +
						sizeof(*cs) * i);

		memset(cs, 0, sizeof(*cs));
		cs->handle = -1;
		cs->req_off = rds_region_csock_ring(l, i, 0);
		cs->rx_off = rds_region_csock_ring(l, i, 1);
		cs->nt_off = rds_region_csock_ring(l, i, 2);
		rds_xring_init((void *)(base + cs->req_off));
		rds_xring_init((void *)(base + cs->rx_off));
		rds_xring_init((void *)(base + cs->nt_off));
	}
	for (i = 0; i < l->nb_bells; i++)
		rds_xring_init((void *)(base + l->bells_off +
					l->bell_stride * i));
	rds_xring_init((void *)(base + l->txfree_off));
	rds_xring_init((void *)(base + l->rxfree_off));
}

/* Which class and slot an offset of pool p is, or -1. */
static int
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

static void
rds_client_violation(struct rds_client *cl, const char *what)
{
	if (__atomic_exchange_n(&cl->bad, 1, __ATOMIC_ACQ_REL) == 0) {
		__atomic_fetch_add(&rds_srv->violations, 1, __ATOMIC_RELAXED);
		RDS_LOG(WARNING, "client pid %d: %s: disconnecting it",
			(int)cl->pid, what);
	}
}

/* ------------------------------------------------------------------ */
/* Data plane (engines) */

static void
rds_srv_efd_write(int fd)
{
	uint64_t one = 1;

	if (fd >= 0 && write(fd, &one, sizeof(one)) < 0)
		RDS_LOG(DEBUG, "client eventfd write failed");
}

void
rds_server_wake(struct rds_sock *rs)
{
	struct rds_srv_sock *ss = rs->client_sock;

	if (ss == NULL)
		return;
	if (__atomic_load_n(&ss->cs->armed, __ATOMIC_SEQ_CST) == 0)
		return;
	if (__atomic_exchange_n(&ss->cs->armed, 0, __ATOMIC_SEQ_CST) == 0)
		return;
	rds_srv_efd_write(ss->efd);
}

void
rds_server_released(struct rds_sock *rs, uint32_t len)
{
	struct rds_srv_sock *ss = rs->client_sock;

	if (ss == NULL)
		return;
	__atomic_fetch_add(&ss->cs->snd_released, len, __ATOMIC_RELEASE);
	rds_server_wake(rs);
}

/* Copy m into an RX buffer of the client and queue it: 0, or -ENOBUFS
 * (no buffer, or the ring is full). Under rx_lock. */
static int
rds_srv_copy_out(struct rds_client *cl, struct rds_srv_sock *ss,
		 struct rds_msg *m)
{
	const struct rds_region_layout *l = &cl->lay;
	struct rds_cbuf *b;
	uint32_t need = RDS_CBUF_HDR + m->len, slot;
	uint64_t off;
	unsigned int c;

	for (c = 0; c < RDS_REGION_NB_CLASSES; c++)
		if (rds_region_class_size[c] >= need && cl->rx_nfree[c] != 0)
			break;
	if (c == RDS_REGION_NB_CLASSES)
		return -ENOBUFS;
	slot = cl->rx_free[c][cl->rx_nfree[c] - 1];
	off = l->pool_off[RDS_POOL_RX][c] +
	      (uint64_t)slot * rds_region_class_size[c];
	b = (void *)(cl->base + off);
	b->len = m->len;
	b->ctl_len = 0;
	b->addr = rds_addr_v4(&m->faddr);
	b->port = m->sport;
	b->flags = m->has_dest ? RDS_CBUF_F_DEST : 0;
	b->csock = (int32_t)ss->idx;
	b->rdma_dest = m->rdma_dest;
	b->seq = m->seq;
	if (m->len != 0)
		memcpy((uint8_t *)b + RDS_CBUF_HDR, rds_msg_data(m), m->len);
	if (rds_xring_put(&ss->rx, off) != 0)
		return -ENOBUFS;
	cl->rx_nfree[c]--;
	cl->rx_len[c][slot] = m->len;
	cl->rx_owner[c][slot] = ss->idx | (ss->gen << 16);
	cl->msgs_out++;
	return 0;
}

static void
rds_srv_ovf_add(struct rds_client *cl, struct rds_srv_sock *ss)
{
	if (!ss->on_ovf) {
		ss->on_ovf = true;
		TAILQ_INSERT_TAIL(&cl->ovf_socks, ss, ovf_link);
	}
}

/* A message for a client socket (rds_recv_deliver, on any engine). */
int
rds_server_deliver(struct rds_engine *e, struct rds_sock *rs,
		   struct rds_msg *m)
{
	struct rds_srv_sock *ss = rs->client_sock;
	struct rds_client *cl = rs->client;

	__atomic_fetch_add(&rs->rcv_bytes, (int64_t)m->len, __ATOMIC_RELEASE);
	rds_stat_inc(e, s_recv_delivered);
	rte_spinlock_lock(&cl->rx_lock);
	if (!TAILQ_EMPTY(&ss->ovf) || rds_srv_copy_out(cl, ss, m) != 0) {
		/* Kept, in order, until the client makes room. */
		TAILQ_INSERT_TAIL(&ss->ovf, m, link);
		rds_srv_ovf_add(cl, ss);
		m = NULL;
	}
	rte_spinlock_unlock(&cl->rx_lock);
	rds_msg_free(m);
	rds_cong_sock_check(rs);
	rds_server_wake(rs);
	return 0;
}

/*
 * RDS_INFO_RECV_MESSAGES for a client socket: the messages delivered to
 * it and not yet received are in its RX ring (from the client's consumer
 * index to ours) and then in its overflow list. The ring's slots and
 * the buffers' headers are in the region, which the client can write:
 * an entry is taken only when it names an RX buffer the engine gave to
 * this socket, its length is the engine's, and the source and sequence
 * (the headers') are only reported. The caller holds rs, so the client
 * is not freed meanwhile (its sockets' closes wait for the holders); a
 * message the client peeked at (MSG_PEEK keeps it in the client) is not
 * seen.
 */
void
rds_server_info_recv(struct rds_sock *rs,
		     void (*fn)(void *arg, const struct rds_msg *m),
		     void *arg)
{
	struct rds_srv_sock *ss = rs->client_sock;
	struct rds_client *cl = rs->client;
	const struct rds_cbuf *b;
	struct rds_msg one, *m;
	uint32_t cons, i, slot;
	uint64_t off;
	int c;

	memset(&one, 0, sizeof(one));
	rte_spinlock_lock(&cl->rx_lock);
	if (__atomic_load_n(&ss->rs, __ATOMIC_ACQUIRE) != rs)
		goto out;
	cons = __atomic_load_n(&ss->rx.r->cons, __ATOMIC_ACQUIRE);
	if ((uint32_t)(ss->rx.idx - cons) > ss->rx.size)
		cons = ss->rx.idx;	/* a client's garbage: nothing */
	for (i = cons; i != ss->rx.idx; i++) {
		off = __atomic_load_n(&ss->rx.r->slot[i & (ss->rx.size - 1)],
				      __ATOMIC_RELAXED);
		c = rds_region_slot(&cl->lay, RDS_POOL_RX, off, &slot);
		if (c < 0 || cl->rx_owner[c][slot] !=
			     (ss->idx | (ss->gen << 16)))
			continue;
		b = (const void *)(cl->base + off);
		one.len = cl->rx_len[c][slot];
		one.seq = __atomic_load_n(&b->seq, __ATOMIC_RELAXED);
		one.sport = __atomic_load_n(&b->port, __ATOMIC_RELAXED);
		rds_addr_from_v4(&one.faddr,
				__atomic_load_n(&b->addr, __ATOMIC_RELAXED));
		fn(arg, &one);
	}
	TAILQ_FOREACH(m, &ss->ovf, link)
		fn(arg, m);
out:
	rte_spinlock_unlock(&cl->rx_lock);
}

/* One notification into the socket's nt ring (two entries: the token,
 * then the status): 0, or -ENOBUFS. Under rx_lock. */
static int
rds_srv_nt_put(struct rds_srv_sock *ss, uint64_t token, int32_t status)
{
	uint32_t cons = __atomic_load_n(&ss->nt.r->cons, __ATOMIC_ACQUIRE);

	if ((uint32_t)(ss->nt.idx - cons) + 2 > ss->nt.size)
		return -ENOBUFS;
	/* The status first in the slot, the token in the entry the
	 * consumer takes second: one publication for both. */
	ss->nt.r->slot[ss->nt.idx & (ss->nt.size - 1)] = token;
	ss->nt.r->slot[(ss->nt.idx + 1) & (ss->nt.size - 1)] =
		(uint64_t)(uint32_t)status;
	ss->nt.idx += 2;
	__atomic_store_n(&ss->nt.r->prod, ss->nt.idx, __ATOMIC_RELEASE);
	return 0;
}

/* An RDMA notification for a client socket (rds_rdma_op_notify). */
void
rds_server_notify(struct rds_engine *e, struct rds_sock *rs, uint64_t token,
		  int32_t status)
{
	struct rds_srv_sock *ss = rs->client_sock;
	struct rds_client *cl = rs->client;
	struct rds_msg *m;

	RTE_SET_USED(e);
	rte_spinlock_lock(&cl->rx_lock);
	if (!TAILQ_EMPTY(&ss->nt_ovf) ||
	    rds_srv_nt_put(ss, token, status) != 0) {
		m = rds_msg_alloc(0);
		if (m != NULL) {
			m->type = RDS_MSG_NOTIFY;
			m->token = token;
			m->status = status;
			TAILQ_INSERT_TAIL(&ss->nt_ovf, m, link);
			rds_srv_ovf_add(cl, ss);
		} else {
			RDS_LOG(ERR, "client pid %d: notification lost (no "
				"memory)", (int)cl->pid);
		}
	}
	rte_spinlock_unlock(&cl->rx_lock);
	rds_server_wake(rs);
}

/* Move what waits into the region while there is room. Under rx_lock. */
static unsigned int
rds_srv_pump(struct rds_client *cl)
{
	struct rds_srv_sock *ss, *next;
	struct rds_msg *m;
	unsigned int n = 0;

	for (ss = TAILQ_FIRST(&cl->ovf_socks); ss != NULL; ss = next) {
		next = TAILQ_NEXT(ss, ovf_link);
		while ((m = TAILQ_FIRST(&ss->nt_ovf)) != NULL) {
			if (rds_srv_nt_put(ss, m->token, m->status) != 0)
				break;
			TAILQ_REMOVE(&ss->nt_ovf, m, link);
			rds_msg_free(m);
			n++;
		}
		while ((m = TAILQ_FIRST(&ss->ovf)) != NULL) {
			if (rds_srv_copy_out(cl, ss, m) != 0)
				break;
			TAILQ_REMOVE(&ss->ovf, m, link);
			rds_msg_free(m);
			n++;
		}
		if (TAILQ_EMPTY(&ss->ovf) && TAILQ_EMPTY(&ss->nt_ovf)) {
			TAILQ_REMOVE(&cl->ovf_socks, ss, ovf_link);
			ss->on_ovf = false;
		}
		if (n != 0 && ss->rs != NULL)
			rds_server_wake(ss->rs);
	}
	return n;
}

/* An RX buffer came back. */
static int
rds_srv_rx_back(struct rds_client *cl, uint64_t off)
{
	uint32_t slot, own, idx;
	struct rds_srv_sock *ss;
	int c = rds_region_slot(&cl->lay, RDS_POOL_RX, off, &slot);

	if (c < 0)
		return -EPROTO;
	own = cl->rx_owner[c][slot];
	if (own == UINT32_MAX)
		return -EPROTO;		/* not out: given back twice */
	cl->rx_owner[c][slot] = UINT32_MAX;
	cl->rx_free[c][cl->rx_nfree[c]++] = slot;
	idx = own & 0xffff;
	ss = &cl->socks[idx];
	if (ss->rs != NULL && (ss->gen & 0xffff) == (own >> 16)) {
		__atomic_fetch_sub(&ss->rs->rcv_bytes,
				   (int64_t)cl->rx_len[c][slot],
				   __ATOMIC_RELEASE);
		if (__atomic_load_n(&ss->rs->congested, __ATOMIC_ACQUIRE))
			rds_cong_sock_check(ss->rs);
	}
	return 0;
}

static void
rds_srv_tx_back(struct rds_client *cl, uint64_t off)
{
	if (cl->nb_tx_back == 0 && rds_xring_put(&cl->txfree, off) == 0)
		return;
	/* The client does not take them back: they wait here (bounded by
	 * its pool). */
	cl->tx_back[cl->nb_tx_back++] = off;
}

static void
rds_srv_tx_back_flush(struct rds_client *cl)
{
	uint32_t i = 0;

	while (i < cl->nb_tx_back &&
	       rds_xring_put(&cl->txfree, cl->tx_back[i]) == 0)
		i++;
	if (i != 0) {
		memmove(cl->tx_back, cl->tx_back + i,
			sizeof(*cl->tx_back) * (cl->nb_tx_back - i));
		cl->nb_tx_back -= i;
	}
}

/* One request of a client socket: check it, copy it into a message of
 * ours, send it as the socket would. false: stop (throttled). */
static bool
rds_srv_take(struct rds_engine *e, struct rds_client *cl,
	     struct rds_srv_sock *ss, uint64_t off)
{
	struct rds_sock *rs = ss->rs;
	const struct rds_cbuf *b;
	struct rds_cbuf h;
	struct rds_cong_map *fc;
	struct in6_addr faddr;
	struct rds_msg *m;
	uint32_t slot;
	uint8_t trans_id;
	int c = rds_region_slot(&cl->lay, RDS_POOL_TX, off, &slot);

	if (c < 0) {
		rds_client_violation(cl, "TX offset outside its pool");
		return false;
	}
	b = (const void *)(cl->base + off);
	/* One copy of the header: the client may change it meanwhile. */
	memcpy(&h, b, sizeof(h));
	if (h.len > rds_region_class_size[c] - RDS_CBUF_HDR ||
	    h.len > RDS_MAX_MSG_SIZE || h.ctl_len != 0) {
		rds_client_violation(cl, "TX buffer with a bad length");
		rds_srv_tx_back(cl, off);
		return true;
	}
	m = rds_msg_alloc(h.len);
	if (m == NULL) {
		rds_srv_tx_back(cl, off);
		return true;	/* as a send that failed: lost */
	}
	if (h.len != 0)
		memcpy(m->buf, (const uint8_t *)b + RDS_CBUF_HDR, h.len);
	rds_srv_tx_back(cl, off);
	cl->msgs_in++;
	rds_addr_from_v4(&faddr, h.addr);
	fc = ss->last_fcong;
	if (fc == NULL || !rds_addr_eq(&fc->addr, &faddr)) {
		fc = rds_cong_map_get(&faddr);
		ss->last_fcong = fc;
	}
	if (fc == NULL || !rs->bound) {
		rds_msg_free(m);
		return true;
	}
	/* The same choice of transport as a local send (the client made
	 * the same one to answer ENETUNREACH itself). */
	if (fc->la == rs->la || fc->la != NULL)
		trans_id = RTE_RDS_TRANS_LOOP;
	else if (rs->trans_pinned != (uint32_t)RDS_TRANS_NONE)
		trans_id = (uint8_t)rs->trans_pinned;
	else if (rs->la->trans->flags & RDS_TRANS_F_LOOPBACK) {
		rds_msg_free(m);
		return true;
	} else
		trans_id = (uint8_t)rs->la->trans->trans_id;
	if (rs->trans_pinned != (uint32_t)RDS_TRANS_NONE && fc->la != rs->la)
		trans_id = (uint8_t)rs->trans_pinned;
	m->type = RDS_MSG_DATA;
	m->sock = rs->id;
	m->sock_gen = rs->gen;
	m->laddr = rs->bound_addr;
	m->faddr = faddr;
	m->sport = rs->bound_port;
	m->dport = h.port;
	m->trans_id = trans_id;
	m->eng = (uint8_t)rds_conn_engine_of_hash(rs->la->cong->hash,
						  fc->hash);
	if (__atomic_add_fetch(&rs->snd_bytes, (int64_t)h.len,
			       __ATOMIC_ACQ_REL) >= (int64_t)rs->sndbuf / 2)
		m->h_flags = RDS_FLAG_ACK_REQUIRED;
	__atomic_fetch_add(&rs->snd_msgs, 1, __ATOMIC_ACQ_REL);
	rds_send_request(e, rs, m);
	/* A client over twice its send buffer waits for its ACKs. */
	return __atomic_load_n(&rs->snd_bytes, __ATOMIC_ACQUIRE) <
	       2 * (int64_t)rs->sndbuf;
}

static unsigned int
rds_srv_drain(struct rds_engine *e, struct rds_client *cl,
	      struct rds_srv_sock *ss)
{
	unsigned int n = 0;
	uint64_t off;
	int r;

	ss->throttled = false;
	if (ss->rs == NULL)
		return 0;
	/* The congestion of the destination is waited for here: a
	 * client's send never fails with ENOBUFS (rte_rds_attach.h). */
	for (;;) {
		if (__atomic_load_n(&ss->rs->snd_bytes, __ATOMIC_ACQUIRE) >=
		    2 * (int64_t)ss->rs->sndbuf) {
			ss->throttled = true;
			break;
		}
		r = rds_xring_get(&ss->req, &off);
		if (r == 0)
			break;
		if (r < 0) {
			rds_client_violation(cl, "request ring overrun");
			break;
		}
		n++;
		if (!rds_srv_take(e, cl, ss, off)) {
			ss->throttled = !__atomic_load_n(&cl->bad,
							 __ATOMIC_ACQUIRE);
			break;
		}
	}
	return n;
}

/* Drain one client socket at once (before a CANCEL or CLOSE, so that it
 * comes after every message queued before it). */
static void
rds_srv_drain_call(struct rds_engine *e, void *arg)
{
	struct rds_srv_sock *ss = arg;

	if (ss->rs != NULL && ss->rs->client != NULL)
		rds_srv_drain(e, ss->rs->client, ss);
}

static unsigned int
rds_srv_service_one(struct rds_engine *e, struct rds_client *cl)
{
	unsigned int work = 0, b, nb, i;
	uint64_t v;
	int r;

	if (__atomic_load_n(&cl->bad, __ATOMIC_ACQUIRE))
		return 0;
	rte_spinlock_lock(&cl->rx_lock);
	while ((r = rds_xring_get(&cl->rxfree, &v)) > 0) {
		if (rds_srv_rx_back(cl, v) != 0) {
			r = -EPROTO;
			break;
		}
		work++;
	}
	if (!TAILQ_EMPTY(&cl->ovf_socks))
		work += rds_srv_pump(cl);
	rte_spinlock_unlock(&cl->rx_lock);
	if (r < 0) {
		rds_client_violation(cl, "bad RX buffer given back");
		return work;
	}
	if (cl->nb_tx_back != 0)
		rds_srv_tx_back_flush(cl);
	nb = __atomic_load_n(&cl->nb_bells, __ATOMIC_ACQUIRE);
	for (b = 0; b < nb; b++) {
		while ((r = rds_xring_get(&cl->bells[b], &v)) > 0) {
			struct rds_srv_sock *ss;

			if (v >= cl->lay.nb_socks) {
				r = -EPROTO;
				break;
			}
			ss = &cl->socks[v];
			if (__atomic_load_n(&ss->rs, __ATOMIC_ACQUIRE) == NULL)
				continue;
			/* Cleared before the ring is read: a request put
			 * after this rings again. */
			__atomic_store_n(&ss->cs->queued, 0, __ATOMIC_SEQ_CST);
			work += rds_srv_drain(e, cl, ss) + 1;
		}
		if (r < 0) {
			rds_client_violation(cl, "doorbell ring overrun");
			return work;
		}
	}
	/* Sockets that waited for their ACKs. */
	for (i = 0; i < cl->lay.nb_socks; i++)
		if (cl->socks[i].throttled && cl->socks[i].rs != NULL &&
		    __atomic_load_n(&cl->socks[i].rs->snd_bytes,
				    __ATOMIC_ACQUIRE) <
		    2 * (int64_t)cl->socks[i].rs->sndbuf)
			work += rds_srv_drain(e, cl, &cl->socks[i]);
	return work;
}

unsigned int
rds_server_service(struct rds_engine *e)
{
	struct rds_client *cl;
	unsigned int work = 0;

	TAILQ_FOREACH(cl, &rds_srv_eng_clients[e->id], eng_link)
		work += rds_srv_service_one(e, cl);
	return work;
}

static void
rds_srv_attach_call(struct rds_engine *e, void *arg)
{
	struct rds_client *cl = arg;

	TAILQ_INSERT_TAIL(&rds_srv_eng_clients[e->id], cl, eng_link);
	cl->on_engine = true;
	e->nb_clients++;
}

static void
rds_srv_detach_call(struct rds_engine *e, void *arg)
{
	struct rds_client *cl = arg;

	if (!cl->on_engine)
		return;
	TAILQ_REMOVE(&rds_srv_eng_clients[e->id], cl, eng_link);
	cl->on_engine = false;
	e->nb_clients--;
}

/* ------------------------------------------------------------------ */
/* Control plane (the thread of rte_rds_server_poll) */

static int
rds_srv_send(int fd, const struct rds_ctl_resp *r, int pass_fd)
{
	struct iovec iov = {
		.iov_base = (void *)(uintptr_t)r,
		.iov_len = offsetof(struct rds_ctl_resp, data) + r->len,
	};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (pass_fd >= 0) {
		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &pass_fd, sizeof(int));
	}
	return sendmsg(fd, &mh, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

static void
rds_srv_client_free(struct rds_client *cl)
{
	unsigned int c, i;
	struct rds_msg *m;

	for (i = 0; i < RDS_SRV_SOCKS; i++) {
		struct rds_srv_sock *ss = &cl->socks[i];

		while ((m = TAILQ_FIRST(&ss->ovf)) != NULL) {
			TAILQ_REMOVE(&ss->ovf, m, link);
			rds_msg_free(m);
		}
		while ((m = TAILQ_FIRST(&ss->nt_ovf)) != NULL) {
			TAILQ_REMOVE(&ss->nt_ovf, m, link);
			rds_msg_free(m);
		}
		if (ss->efd >= 0)
			close(ss->efd);
	}
	for (c = 0; c < RDS_REGION_NB_CLASSES; c++) {
		free(cl->rx_free[c]);
		free(cl->rx_len[c]);
		free(cl->rx_owner[c]);
	}
	free(cl->tx_back);
	if (cl->base != NULL && cl->base != MAP_FAILED)
		munmap(cl->base, cl->size);
	if (cl->memfd >= 0)
		close(cl->memfd);
	if (cl->fd >= 0)
		close(cl->fd);
	free(cl);
}

/* A client goes: the engine lets it go, its sockets are closed. */
static void
rds_srv_client_drop(struct rds_client *cl)
{
	unsigned int i;

	if (cl->on_engine)
		rds_engine_call_wait(cl->engine, rds_srv_detach_call, cl);
	for (i = 0; i < RDS_SRV_SOCKS; i++) {
		struct rds_srv_sock *ss = &cl->socks[i];
		struct rds_sock *rs = ss->rs;

		if (rs == NULL)
			continue;
		__atomic_store_n(&ss->rs, NULL, __ATOMIC_RELEASE);
		rte_rds_close(rs->id);
	}
	TAILQ_REMOVE(&rds_srv->clients, cl, link);
	rds_srv->nb_clients--;
	rds_srv->detached++;
	rds_srv->gone_in += cl->msgs_in;
	rds_srv->gone_out += cl->msgs_out;
	RDS_LOG(INFO, "client pid %d detached", (int)cl->pid);
	rds_srv_client_free(cl);
}

static struct rds_client *
rds_srv_client_new(int fd)
{
	struct rds_client *cl = calloc(1, sizeof(*cl));
	struct ucred cred;
	socklen_t len = sizeof(cred);
	unsigned int c, i;
	uint32_t n;

	if (cl == NULL)
		return NULL;
	cl->fd = fd;
	cl->memfd = -1;
	for (i = 0; i < RDS_SRV_SOCKS; i++) {
		cl->socks[i].efd = -1;
		cl->socks[i].idx = i;
		TAILQ_INIT(&cl->socks[i].ovf);
		TAILQ_INIT(&cl->socks[i].nt_ovf);
	}
	TAILQ_INIT(&cl->ovf_socks);
	rte_spinlock_init(&cl->rx_lock);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) {
		cl->pid = cred.pid;
		cl->uid = cred.uid;
	}
	rds_region_layout_make(rds_srv->region_mb, &cl->lay);
	cl->size = cl->lay.size;
	cl->memfd = memfd_create("rds-region", MFD_CLOEXEC);
	if (cl->memfd < 0 || ftruncate(cl->memfd, (off_t)cl->size) != 0)
		goto fail;
	cl->base = mmap(NULL, cl->size, PROT_READ | PROT_WRITE, MAP_SHARED,
			cl->memfd, 0);
	if (cl->base == MAP_FAILED)
		goto fail;
	rds_region_init(cl->base, &cl->lay);
	for (c = 0; c < RDS_REGION_NB_CLASSES; c++) {
		n = cl->lay.pool_nb[RDS_POOL_RX][c];
		cl->rx_free[c] = malloc(sizeof(uint32_t) * n);
		cl->rx_len[c] = calloc(n, sizeof(uint32_t));
		cl->rx_owner[c] = malloc(sizeof(uint32_t) * n);
		if (cl->rx_free[c] == NULL || cl->rx_len[c] == NULL ||
		    cl->rx_owner[c] == NULL)
			goto fail;
		for (i = 0; i < n; i++) {
			cl->rx_free[c][i] = n - 1 - i;
			cl->rx_owner[c][i] = UINT32_MAX;
		}
		cl->rx_nfree[c] = n;
	}
	n = 0;
	for (c = 0; c < RDS_REGION_NB_CLASSES; c++)
		n += cl->lay.pool_nb[RDS_POOL_TX][c];
	cl->tx_back = malloc(sizeof(uint64_t) * n);
	if (cl->tx_back == NULL)
		goto fail;
	for (i = 0; i < RDS_SRV_BELLS; i++)
		rds_xring_end_init(&cl->bells[i],
			(void *)(cl->base + cl->lay.bells_off +
				 cl->lay.bell_stride * i),
			RDS_REGION_BELL_RING, false);
	rds_xring_end_init(&cl->txfree, (void *)(cl->base + cl->lay.txfree_off),
			   RDS_REGION_FREE_RING, true);
	rds_xring_end_init(&cl->rxfree, (void *)(cl->base + cl->lay.rxfree_off),
			   RDS_REGION_FREE_RING, false);
	cl->engine = rds_srv->next_engine++ % rds_lib->nb_engines;
	return cl;
fail:
	cl->fd = -1;	/* the caller closes it */
	rds_srv_client_free(cl);
	return NULL;
}

/* A received message's passed fd (SCM_RIGHTS), or -1. */
static int
rds_srv_recv(int fd, struct rds_ctl_req *q, int *pass_fd)
{
	struct iovec iov = { .iov_base = q, .iov_len = sizeof(*q) };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *cm;
	ssize_t n;

	*pass_fd = -1;
	n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
	if (n <= 0)
		return n == 0 ? -ECONNRESET : -errno;
	for (cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_RIGHTS &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(int))) {
			if (*pass_fd >= 0)
				close(*pass_fd);
			memcpy(pass_fd, CMSG_DATA(cm), sizeof(int));
		}
	if ((size_t)n < offsetof(struct rds_ctl_req, data) ||
	    q->len > RDS_CTL_MAX_DATA ||
	    (size_t)n != offsetof(struct rds_ctl_req, data) + q->len) {
		if (*pass_fd >= 0)
			close(*pass_fd);
		*pass_fd = -1;
		return -EPROTO;
	}
	return 0;
}

/* The engine socket behind a client's socket slot. */
static struct rds_sock *
rds_srv_sock_of(struct rds_client *cl, int32_t idx)
{
	if (idx < 0 || (uint32_t)idx >= RDS_SRV_SOCKS)
		return NULL;
	return cl->socks[idx].rs;
}

static void
rds_srv_do_socket(struct rds_client *cl, const struct rds_ctl_req *q,
		  struct rds_ctl_resp *r, int efd)
{
	struct rds_srv_sock *ss;
	struct rds_slot *sl;
	struct rds_sock *rs;
	int32_t idx = q->handle;
	int s;

	if (idx < 0 || (uint32_t)idx >= RDS_SRV_SOCKS || efd < 0 ||
	    cl->socks[idx].rs != NULL) {
		r->ret = -1;
		r->err = EINVAL;
		if (efd >= 0)
			close(efd);
		return;
	}
	s = rte_rds_socket();
	if (s < 0) {
		r->ret = -1;
		r->err = rte_errno;
		close(efd);
		return;
	}
	sl = rds_slot_of(s);
	rs = sl->body;
	ss = &cl->socks[idx];
	ss->gen++;
	if (ss->efd >= 0)
		close(ss->efd);
	ss->efd = efd;
	ss->cs = (void *)(cl->base + cl->lay.socks_off +
			  sizeof(struct rds_csock) * (uint32_t)idx);
	ss->last_fcong = NULL;
	ss->throttled = false;
	rds_xring_end_init(&ss->req,
		(void *)(cl->base + rds_region_csock_ring(&cl->lay, idx, 0)),
		RDS_CSOCK_REQ_RING, false);
	rds_xring_end_init(&ss->rx,
		(void *)(cl->base + rds_region_csock_ring(&cl->lay, idx, 1)),
		RDS_CSOCK_RX_RING, true);
	rds_xring_end_init(&ss->nt,
		(void *)(cl->base + rds_region_csock_ring(&cl->lay, idx, 2)),
		RDS_CSOCK_NT_RING, true);
	__atomic_store_n(&ss->cs->snd_released, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&ss->cs->closed, 0, __ATOMIC_RELAXED);
	rs->client = cl;
	rs->client_sock = ss;
	rs->mem_pid = cl->pid;
	rs->home = (int32_t)cl->engine;
	__atomic_store_n(&ss->rs, rs, __ATOMIC_RELEASE);
	r->ret = s;
}

static void
rds_srv_do_close(struct rds_client *cl, const struct rds_ctl_req *q,
		 struct rds_ctl_resp *r)
{
	struct rds_srv_sock *ss;
	struct rds_sock *rs = rds_srv_sock_of(cl, q->handle);

	if (rs == NULL) {
		r->ret = -1;
		r->err = EBADF;
		return;
	}
	ss = &cl->socks[q->handle];
	/* What it queued before the close goes first. */
	rds_engine_call_wait(cl->engine, rds_srv_drain_call, ss);
	__atomic_store_n(&ss->rs, NULL, __ATOMIC_RELEASE);
	r->ret = rte_rds_close(rs->id);
	r->err = r->ret < 0 ? rte_errno : 0;
	/* What was kept for it, in order: no one takes it now. */
	rte_spinlock_lock(&cl->rx_lock);
	if (ss->on_ovf) {
		TAILQ_REMOVE(&cl->ovf_socks, ss, ovf_link);
		ss->on_ovf = false;
	}
	rte_spinlock_unlock(&cl->rx_lock);
	{
		struct rds_msg *m;

		while ((m = TAILQ_FIRST(&ss->ovf)) != NULL) {
			TAILQ_REMOVE(&ss->ovf, m, link);
			rds_msg_free(m);
		}
		while ((m = TAILQ_FIRST(&ss->nt_ovf)) != NULL) {
			TAILQ_REMOVE(&ss->nt_ovf, m, link);
			rds_msg_free(m);
		}
	}
	__atomic_store_n(&ss->cs->closed, 1, __ATOMIC_RELEASE);
}

/* A send of the client's made by the control thread: queued by its
 * engine after what the socket's ring holds. */
struct rds_srv_send {
	struct rds_srv_sock *ss;
	struct rds_msg *m;
};

static void
rds_srv_send_call(struct rds_engine *e, void *arg)
{
	struct rds_srv_send *sd = arg;
	struct rds_sock *rs = sd->ss->rs;

	if (rs != NULL && rs->client != NULL)
		rds_srv_drain(e, rs->client, sd->ss);
	rds_send_request(e, sd->ss->rs != NULL ? sd->ss->rs : rs, sd->m);
}

static void
rds_srv_do_sendmsg(struct rds_client *cl, const struct rds_ctl_req *q,
		   struct rds_ctl_resp *r)
{
	struct rds_sock *rs = rds_srv_sock_of(cl, q->handle);
	union {
		uint8_t b[RDS_CTL_MAX_DATA];
		struct cmsghdr align;
	} ctl;
	struct rds_srv_send sd;
	struct rds_ctl_send cs;
	struct sockaddr_in sin;
	struct msghdr mh;
	struct iovec iov;
	struct rds_msg *m = NULL;
	uint64_t cookie = 0;
	bool mapped = false;
	uint32_t slot;
	ssize_t len;
	int c;

	r->ret = -1;
	if (rs == NULL) {
		r->err = EBADF;
		return;
	}
	if (q->len < sizeof(cs)) {
		r->err = EINVAL;
		return;
	}
	memcpy(&cs, q->data, sizeof(cs));
	c = rds_region_slot(&cl->lay, RDS_POOL_TX, cs.off, &slot);
	if (c < 0 || cs.len > rds_region_class_size[c] - RDS_CBUF_HDR ||
	    cs.ctl_len > q->len - sizeof(cs)) {
		rds_client_violation(cl, "send with a bad buffer");
		r->err = EINVAL;
		return;
	}
	memcpy(ctl.b, q->data + sizeof(cs), cs.ctl_len);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = cs.addr;
	sin.sin_port = htons(cs.port);
	iov.iov_base = cl->base + cs.off + RDS_CBUF_HDR;
	iov.iov_len = cs.len;
	memset(&mh, 0, sizeof(mh));
	if (cs.addr != 0) {
		mh.msg_name = &sin;
		mh.msg_namelen = sizeof(sin);
	}
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cs.ctl_len != 0 ? ctl.b : NULL;
	mh.msg_controllen = cs.ctl_len;
	/* Its checks and errno as a local send's; RDMA addresses in the
	 * control messages name the client's memory (rs->mem_pid). */
	len = rds_send_make(rs, &mh, MSG_DONTWAIT, &m, &cookie, &mapped);
	if (len < 0) {
		r->err = (int)-len;
		return;
	}
	sd.ss = &cl->socks[q->handle];
	sd.m = m;
	if (rds_engine_call_wait(cl->engine, rds_srv_send_call, &sd) != 0) {
		rds_send_unmake(rs, m, mapped, cookie);
		r->err = ENOMEM;
		return;
	}
	r->ret = (int32_t)len;
	r->err = 0;
}

/* Options only an engine-process socket can have (the RDMA ones hold
 * pointers of the client's: the socket's mem_pid names whose). */
static bool
rds_srv_opt_refused(int level, int name)
{
	return level == SOL_RDS && name == RDS_CONG_MONITOR;
}

/* Data to write back into the client's memory (RDS_INFO records). */
static int
rds_srv_write_client(struct rds_client *cl, uint64_t addr, const void *p,
		     size_t len)
{
	struct iovec local = { .iov_base = (void *)(uintptr_t)p,
			       .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr,
				.iov_len = len };

	if (len == 0)
		return 0;
	return process_vm_writev(cl->pid, &local, 1, &remote, 1, 0) ==
	       (ssize_t)len ? 0 : -EFAULT;
}

static void
rds_srv_do_opt(struct rds_client *cl, const struct rds_ctl_req *q,
	       struct rds_ctl_resp *r)
{
	struct rds_sock *rs = rds_srv_sock_of(cl, q->handle);
	bool info = q->op == RDS_CTL_GETSOCKOPT && q->level == SOL_RDS &&
		    q->name >= RDS_INFO_FIRST && q->name <= RDS_INFO_LAST;
	socklen_t len;
	uint64_t uaddr = 0;
	void *buf;
	int ret;

	/* RDS_INFO needs no socket of the caller's (rte_rds_info). */
	if (rs == NULL && !(info && q->handle == -1)) {
		r->ret = -1;
		r->err = EBADF;
		return;
	}
	if (rds_srv_opt_refused(q->level, q->name)) {
		r->ret = -1;
		r->err = ENOPROTOOPT;
		return;
	}
	if (q->op == RDS_CTL_SETSOCKOPT) {
		if (q->level == SOL_RDS && q->name == RDS_CANCEL_SENT_TO)
			rds_engine_call_wait(cl->engine, rds_srv_drain_call,
					     &cl->socks[q->handle]);
		ret = rte_rds_setsockopt(rs->id, q->level, q->name,
					 q->len != 0 ? q->data : NULL,
					 (socklen_t)q->len);
		r->ret = ret;
		r->err = ret < 0 ? rte_errno : 0;
		return;
	}
	/* getsockopt: RDS_INFO records go straight into the client's buffer
	 * (its address in the request), the rest in the answer. */
	if (info) {
		if (q->len != sizeof(uaddr)) {
			r->ret = -1;
			r->err = EINVAL;
			return;
		}
		memcpy(&uaddr, q->data, sizeof(uaddr));
		len = q->cap;
		buf = len != 0 ? malloc(len) : NULL;
		if (len != 0 && buf == NULL) {
			r->ret = -1;
			r->err = ENOMEM;
			return;
		}
		ret = rte_rds_info(q->name, buf, &len);
		r->ret = ret;
		r->err = ret < 0 ? rte_errno : 0;
		r->need = len;
		if (ret >= 0 && uaddr != 0 &&
		    rds_srv_write_client(cl, uaddr, buf, len) != 0) {
			r->ret = -1;
			r->err = EFAULT;
		}
		free(buf);
		return;
	}
	len = RTE_MIN(q->cap, (uint32_t)RDS_CTL_MAX_DATA);
	ret = rte_rds_getsockopt(rs->id, q->level, q->name, r->data, &len);
	r->ret = ret;
	r->err = ret < 0 ? rte_errno : 0;
	r->len = ret < 0 ? 0 : len;
}

/* Transport counters (rte_rds_xstats_get): the name in, as many
 * counters out as the client has room for and an answer holds. */
static void
rds_srv_do_xstats(const struct rds_ctl_req *q, struct rds_ctl_resp *r)
{
	struct rte_rds_xstat xs[RDS_CTL_MAX_DATA / sizeof(struct rte_rds_xstat)];
	char name[RTE_RDS_XSTAT_NAMESIZE];
	unsigned int n = RTE_MIN(q->cap / sizeof(xs[0]),
				 (uint32_t)RTE_DIM(xs));

	if (q->len == 0 || q->len > sizeof(name) ||
	    q->data[q->len - 1] != '\0') {
		r->ret = -1;
		r->err = EINVAL;
		return;
	}
	memcpy(name, q->data, q->len);
	r->ret = rte_rds_xstats_get(name, n != 0 ? xs : NULL, n);
	r->err = r->ret < 0 ? rte_errno : 0;
	if (r->ret > 0 && n != 0) {
		r->len = (uint32_t)(RTE_MIN((unsigned int)r->ret, n) *
				    sizeof(xs[0]));
		memcpy(r->data, xs, r->len);
	}
}

static int
rds_srv_handle(struct rds_client *cl)
{
	struct rds_ctl_req *q = malloc(sizeof(*q));
	struct rds_ctl_resp *r = malloc(sizeof(*r));
	struct rds_sock *rs;
	struct sockaddr_in sin;
	socklen_t sl;
	int pass = -1, ret, out_fd = -1;
	uint32_t b;

	if (q == NULL || r == NULL) {
		free(q);
		free(r);
		return -ENOMEM;
	}
	ret = rds_srv_recv(cl->fd, q, &pass);
	if (ret != 0)
		goto out;
	memset(r, 0, offsetof(struct rds_ctl_resp, data));
	r->op = q->op;
	r->seq = q->seq;
	switch (q->op) {
	case RDS_CTL_SOCKET:
		rds_srv_do_socket(cl, q, r, pass);
		pass = -1;
		break;
	case RDS_CTL_BIND:
	case RDS_CTL_CONNECT:
		rs = rds_srv_sock_of(cl, q->handle);
		if (rs == NULL) {
			r->ret = -1;
			r->err = EBADF;
			break;
		}
		r->ret = q->op == RDS_CTL_BIND ?
			rte_rds_bind(rs->id, (const struct sockaddr *)q->data,
				     (socklen_t)q->len) :
			rte_rds_connect(rs->id, (const struct sockaddr *)q->data,
					(socklen_t)q->len);
		r->err = r->ret < 0 ? rte_errno : 0;
		if (r->ret == 0 && q->op == RDS_CTL_BIND) {
			/* The port picked, for the client's getsockname. */
			sl = sizeof(sin);
			rte_rds_getsockname(rs->id, (struct sockaddr *)&sin, &sl);
			memcpy(r->data, &sin, sizeof(sin));
			r->len = sizeof(sin);
		}
		break;
	case RDS_CTL_CLOSE:
		rds_srv_do_close(cl, q, r);
		break;
	case RDS_CTL_SENDMSG:
		rds_srv_do_sendmsg(cl, q, r);
		break;
	case RDS_CTL_SETSOCKOPT:
	case RDS_CTL_GETSOCKOPT:
		rds_srv_do_opt(cl, q, r);
		break;
	case RDS_CTL_BELL:
		b = __atomic_load_n(&cl->nb_bells, __ATOMIC_ACQUIRE);
		if (b == RDS_SRV_BELLS) {
			r->ret = -1;
			r->err = EMFILE;
			break;
		}
		/* The engine finds the ring from the count. */
		__atomic_store_n(&cl->nb_bells, b + 1, __ATOMIC_RELEASE);
		r->ret = (int32_t)b;
		break;
	case RDS_CTL_STATS:
		if (q->cap < sizeof(struct rte_rds_stats)) {
			r->ret = -1;
			r->err = EINVAL;
			break;
		}
		r->ret = rte_rds_stats_get(q->handle, (void *)r->data);
		r->err = r->ret < 0 ? rte_errno : 0;
		r->len = r->ret < 0 ? 0 : sizeof(struct rte_rds_stats);
		break;
	case RDS_CTL_XSTATS:
		rds_srv_do_xstats(q, r);
		break;
	default:
		rds_client_violation(cl, "unknown call");
		ret = -EPROTO;
		goto out;
	}
	rds_srv->calls++;
	ret = rds_srv_send(cl->fd, r, out_fd);
out:
	if (pass >= 0)
		close(pass);
	free(q);
	free(r);
	return ret;
}

/* A new connection: the hello, then the region. */
static void
rds_srv_accept(void)
{
	struct rds_ctl_hello hello;
	struct rds_ctl_resp *r;
	struct rds_client *cl;
	int fd;
	ssize_t n;

	fd = accept4(rds_srv->lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	n = recv(fd, &hello, sizeof(hello), 0);
	if (n != sizeof(hello) || hello.magic != RDS_REGION_MAGIC ||
	    hello.version != RDS_REGION_VERSION ||
	    rds_srv->nb_clients >= rds_srv->max_clients) {
		RDS_LOG(WARNING, "a client with a bad hello (or too many "
			"clients): refused");
		rds_srv->refused++;
		close(fd);
		return;
	}
	cl = rds_srv_client_new(fd);
	r = calloc(1, sizeof(*r));
	if (cl == NULL || r == NULL) {
		free(r);
		if (cl != NULL)
			rds_srv_client_free(cl);
		else
			close(fd);
		rds_srv->refused++;
		return;
	}
	r->op = RDS_CTL_HELLO;
	r->ret = 0;
	r->len = sizeof(uint64_t);
	memcpy(r->data, &cl->size, sizeof(uint64_t));
	if (rds_srv_send(fd, r, cl->memfd) != 0) {
		free(r);
		rds_srv_client_free(cl);
		return;
	}
	free(r);
	TAILQ_INSERT_TAIL(&rds_srv->clients, cl, link);
	rds_srv->nb_clients++;
	rds_srv->attached++;
	rds_engine_call_wait(cl->engine, rds_srv_attach_call, cl);
	RDS_LOG(INFO, "client pid %d attached (region %zu KiB, engine %u)",
		(int)cl->pid, cl->size >> 10, cl->engine);
}

int
rte_rds_server_start(const struct rte_rds_server_conf *conf)
{
	struct sockaddr_un sa;
	struct rds_server *srv;
	unsigned int i;
	int fd, err;

	if (rds_lib == NULL)
		return RDS_ERR(ENXIO);
	if (rds_srv != NULL)
		return RDS_ERR(EEXIST);
	if (conf == NULL || conf->path == NULL ||
	    strlen(conf->path) >= sizeof(sa.sun_path))
		return RDS_ERR(EINVAL);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return RDS_ERR(errno);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", conf->path);
	/* A live engine there answers; a stale socket file does not. */
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		close(fd);
		return RDS_ERR(EADDRINUSE);
	}
	unlink(conf->path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    chmod(conf->path, conf->mode != 0 ? conf->mode : 0660) != 0 ||
	    (conf->gid != (gid_t)-1 &&
	     chown(conf->path, (uid_t)-1, conf->gid) != 0) ||
	    listen(fd, 64) != 0) {
		err = errno;
		close(fd);
		unlink(conf->path);
		return RDS_ERR(err);
	}
	srv = calloc(1, sizeof(*srv));
	if (srv == NULL) {
		close(fd);
		unlink(conf->path);
		return RDS_ERR(ENOMEM);
	}
	srv->lfd = fd;
	snprintf(srv->path, sizeof(srv->path), "%s", conf->path);
	srv->region_mb = conf->region_mb != 0 ? conf->region_mb :
			 RDS_SRV_DEFAULT_REGION_MB;
	srv->max_clients = conf->max_clients != 0 ? conf->max_clients :
			   RDS_SRV_DEFAULT_CLIENTS;
	TAILQ_INIT(&srv->clients);
	for (i = 0; i < RTE_RDS_MAX_ENGINES; i++)
		TAILQ_INIT(&rds_srv_eng_clients[i]);
	rds_srv = srv;
	RDS_LOG(INFO, "serving clients on %s", conf->path);
	return 0;
}

int
rte_rds_server_poll(int timeout_ms)
{
	struct pollfd pfd[1 + RDS_SRV_DEFAULT_CLIENTS];
	struct rds_client *cl, *next, *map[RDS_SRV_DEFAULT_CLIENTS];
	unsigned int n = 0, i, events = 0;

	if (rds_srv == NULL)
		return RDS_ERR(ENXIO);
	pfd[n].fd = rds_srv->lfd;
	pfd[n].events = POLLIN;
	n++;
	TAILQ_FOREACH(cl, &rds_srv->clients, link) {
		if (n == RTE_DIM(pfd))
			break;
		map[n - 1] = cl;
		pfd[n].fd = cl->fd;
		pfd[n].events = POLLIN;
		n++;
	}
	if (poll(pfd, n, timeout_ms) > 0) {
		if (pfd[0].revents & POLLIN) {
			rds_srv_accept();
			events++;
		}
		for (i = 1; i < n; i++) {
			cl = map[i - 1];
			if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			events++;
			if (rds_srv_handle(cl) != 0)
				__atomic_store_n(&cl->bad, 1, __ATOMIC_RELEASE);
		}
	}
	/* The ones that went away or broke the protocol. */
	for (cl = TAILQ_FIRST(&rds_srv->clients); cl != NULL; cl = next) {
		next = TAILQ_NEXT(cl, link);
		if (__atomic_load_n(&cl->bad, __ATOMIC_ACQUIRE))
			rds_srv_client_drop(cl);
	}
	return (int)events;
}

int
rte_rds_server_stop(void)
{
	struct rds_client *cl;

	if (rds_srv == NULL)
		return RDS_ERR(ENXIO);
	while ((cl = TAILQ_FIRST(&rds_srv->clients)) != NULL) {
		((struct rds_region_hdr *)(void *)cl->base)->engine_gone = 1;
		rds_srv_client_drop(cl);
	}
	close(rds_srv->lfd);
	unlink(rds_srv->path);
	free(rds_srv);
	rds_srv = NULL;
	return 0;
}

unsigned int
rte_rds_server_clients(void)
{
	return rds_srv != NULL ? rds_srv->nb_clients : 0;
}

int
rte_rds_server_stats_get(struct rte_rds_server_stats *st)
{
	struct rds_client *cl;

	if (rds_srv == NULL)
		return RDS_ERR(ENXIO);
	if (st == NULL)
		return RDS_ERR(EINVAL);
	memset(st, 0, sizeof(*st));
	st->clients = rds_srv->nb_clients;
	st->attached = rds_srv->attached;
	st->refused = rds_srv->refused;
	st->detached = rds_srv->detached;
	st->violations = __atomic_load_n(&rds_srv->violations,
					 __ATOMIC_RELAXED);
	st->calls = rds_srv->calls;
	st->msgs_in = rds_srv->gone_in;
	st->msgs_out = rds_srv->gone_out;
	/* Counted by engines: approximate while they run. */
	TAILQ_FOREACH(cl, &rds_srv->clients, link) {
		st->msgs_in += __atomic_load_n(&cl->msgs_in, __ATOMIC_RELAXED);
		st->msgs_out += __atomic_load_n(&cl->msgs_out,
						__ATOMIC_RELAXED);
	}
	return 0;
}

uint64_t
rds_server_violations(void)
{
	return rds_srv != NULL ?
	       __atomic_load_n(&rds_srv->violations, __ATOMIC_RELAXED) : 0;
}

/* rte_rds_fini: clients are let go first (their calls then fail with
 * ECONNRESET), before the sockets and engines go. */
void
rds_server_fini(void)
{
	if (rds_srv != NULL)
		rte_rds_server_stop();
}

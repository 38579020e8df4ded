/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Serving other processes: a client's message sent from its own TX
 * buffer, not a copy (rds_server.c has the whole picture). A plain send
 * (no operation) that goes by the loop transport becomes a message
 * whose payload is the TX buffer in the client's region
 * (RDS_BUF_CLS_EXT, rds_msg.h); the engine copies it once, into the
 * receiving client's RX buffer (rds_srv_copy_out), and the TX buffer
 * goes back to its client when the message's last reference goes.
 *
 * What the engine acts on is its own copy of the buffer's header, made
 * and checked when it took the request (rds_srv_next): length, address,
 * port, socket. The payload is bytes it only copies: a client that writes
 * into a TX buffer it handed over changes only its own message, as
 * MSG_ZEROCOPY's sender does. The buffer stays the engine's meanwhile
 * (RDS_TXB_HELD): handed over again, it is a violation.
 *
 * The last reference may go on any thread (a connection's engine, an
 * application thread that received it from a socket of the engine
 * process): the buffer is put on the client's tx_done ring (an rte_ring,
 * many producers, its service engine the one consumer, which gives it
 * back on txfree in its next pass), and counted off the client's
 * xbufs_out. A client that goes while messages still hold its buffers
 * keeps its region mapped (a zombie) until the last comes back; the
 * control thread frees it then (rte_rds_server_poll), or the library's
 * teardown, after every socket and engine is gone.
 *
 * Not from the TX buffer: a send with an operation (its parse copies
 * what it needs), a small one (under RDS_SRV_ZC_MIN: its copy costs
 * less than the buffer's way back), one for another transport (eth and ib
 * read a payload more than once: a checksum and the frame, or a NIC
 * after the engine; a client writing meanwhile must not make the shared
 * connection's frames fail). A message kept for a receiving client that
 * does not read (rds_server_deliver) is copied into the engine's memory
 * first, so that a slow reader never holds its senders' TX buffers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_ring.h>

#include "rds_server_private.h"

/* Where an EXT message's TX buffer is: in its own (unused) payload
 * room. */
struct rds_srv_xbuf {
	struct rds_client *cl;
	uint64_t off;
};

_Static_assert(sizeof(struct rds_srv_xbuf) <= (1u << RDS_BUF_MIN_SHIFT),
	       "an EXT message's record fits its class 0 buffer");

/* Clients gone with buffers out (control thread, and the teardown). */
static TAILQ_HEAD(, rds_client) rds_srv_zombies =
	TAILQ_HEAD_INITIALIZER(rds_srv_zombies);

int
rds_srv_zc_init(struct rds_client *cl)
{
	char name[RTE_RING_NAMESIZE];
	ssize_t sz = rte_ring_get_memsize_elem(sizeof(void *),
						 rte_align32pow2(cl->nb_tx + 1));
	void *mem = NULL;

	/* Room for every TX buffer of the client (nb_tx, exactly: an
	 * RING_F_EXACT_SZ ring of that count, whose memory is that of the
	 * power of two above it). It can never be full: a buffer goes on
	 * it once, at the last reference of the one message whose payload
	 * it is; it is RDS_TXB_HELD from that message's making until the
	 * engine takes it off the ring (rds_srv_zc_reap), and a request
	 * naming a buffer that is not RDS_TXB_CLIENT is refused
	 * (rds_srv_tx_own), so no second message can hold it meanwhile: at
	 * most nb_tx entries, each a different buffer. */
	if (sz < 0 || posix_memalign(&mem, RTE_CACHE_LINE_SIZE,
				     (size_t)sz) != 0)
		return -ENOMEM;
	snprintf(name, sizeof(name), "rds_txd_%p", (void *)cl);
	if (rte_ring_init(mem, name, cl->nb_tx,
			  RING_F_SC_DEQ | RING_F_EXACT_SZ) != 0) {
		free(mem);
		return -ENOMEM;
	}
	cl->tx_done = mem;
	return 0;
}

void
rds_srv_zc_fini(struct rds_client *cl)
{
	free(cl->tx_done);
	cl->tx_done = NULL;
}

/* The hook of RDS_BUF_CLS_EXT (rds_buf.c): any thread. */
static void
rds_srv_zc_release(struct rds_msg *m)
{
	struct rds_srv_xbuf x;

	memcpy(&x, m->buf, sizeof(x));
	/* Never full (rds_srv_zc_init): cannot fail. */
	RTE_VERIFY(rte_ring_mp_enqueue(x.cl->tx_done,
				       (void *)(uintptr_t)x.off) == 0);
	__atomic_fetch_sub(&x.cl->xbufs_out, 1, __ATOMIC_RELEASE);
}

void
rds_srv_zc_start(void)
{
	rds_buf_ext_hook_set(rds_srv_zc_release);
}

struct rds_msg *
rds_srv_zc_msg(struct rds_client *cl, const struct rds_srv_req *rq)
{
	struct rds_srv_xbuf x = { .cl = cl, .off = rq->off };
	struct rds_msg *m = rds_msg_alloc(0);

	if (m == NULL)
		return NULL;
	memcpy(m->buf, &x, sizeof(x));
	m->payload = cl->base + rq->off + RDS_CBUF_HDR;
	m->len = rq->h.len;
	m->cls = RDS_BUF_CLS_EXT;
	cl->tx_state[rq->c][rq->slot] = RDS_TXB_HELD;
	__atomic_fetch_add(&cl->xbufs_out, 1, __ATOMIC_RELAXED);
	return m;
}

unsigned int
rds_srv_zc_reap(struct rds_client *cl)
{
	void *v[32];
	unsigned int n, i, done = 0;
	uint32_t slot;
	int c;

	do {
		n = rte_ring_sc_dequeue_burst(cl->tx_done, v, RTE_DIM(v),
					      NULL);
		for (i = 0; i < n; i++) {
			uint64_t off = (uintptr_t)v[i];

			c = rds_region_slot(&cl->lay, RDS_POOL_TX, off, &slot);
			if (c >= 0)	/* always: the engine put it */
				rds_srv_tx_back(cl, off, (unsigned int)c, slot);
		}
		done += n;
	} while (n == RTE_DIM(v));
	return done;
}

struct rds_msg *
rds_srv_zc_own(struct rds_msg *m)
{
	const struct rds_msg *o = m->owner != NULL ? m->owner : m;
	struct rds_msg *c;

	if (o->cls != RDS_BUF_CLS_EXT)
		return m;
	/* A received message (RDS_MSG_RECV, no operation: a send with one
	 * is never from the TX buffer). */
	RTE_ASSERT(m->op == NULL && m->req == NULL);
	c = rds_msg_alloc(m->len);
	if (c == NULL)
		return NULL;
	/* What a received message carries to its socket, field by field
	 * (rds_msg_alloc set the rest: refs, class, length, payload). */
	c->type = m->type;
	c->h_flags = m->h_flags;
	c->cancelled = m->cancelled;
	c->trans_id = m->trans_id;
	c->has_dest = m->has_dest;
	c->eng = m->eng;
	c->rx_ts = m->rx_ts;
	c->sport = m->sport;
	c->dport = m->dport;
	c->sock = m->sock;
	c->sock_gen = m->sock_gen;
	c->pending = m->pending;
	c->seq = m->seq;
	c->laddr = m->laddr;
	c->faddr = m->faddr;
	c->rdma_dest = m->rdma_dest;
	c->rx_tstamp = m->rx_tstamp;
	c->status = m->status;
	if (m->rx_ts & RDS_TS_TRACE)
		c->rx_trace = m->rx_trace;
	memcpy(c->buf, rds_msg_data(m), m->len);
	return c;
}

static unsigned int rds_srv_nb_zombies;

void
rds_srv_zombie_add(struct rds_client *cl)
{
	TAILQ_INSERT_TAIL(&rds_srv_zombies, cl, link);
	rds_srv_nb_zombies++;
}

unsigned int
rds_srv_zombies_count(void)
{
	return rds_srv_nb_zombies;
}

void
rds_srv_zombies_reap(bool last)
{
	struct rds_client *cl, *next;

	for (cl = TAILQ_FIRST(&rds_srv_zombies); cl != NULL; cl = next) {
		next = TAILQ_NEXT(cl, link);
		if (__atomic_load_n(&cl->xbufs_out, __ATOMIC_ACQUIRE) != 0) {
			if (last)
				RDS_LOG(ERR, "client pid %d: %u messages "
					"still hold its buffers: its region "
					"stays mapped", (int)cl->pid,
					cl->xbufs_out);
			continue;
		}
		TAILQ_REMOVE(&rds_srv_zombies, cl, link);
		rds_srv_nb_zombies--;
		rds_srv_client_free(cl);
	}
}

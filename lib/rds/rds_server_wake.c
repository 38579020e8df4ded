/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Serving other processes: waking an attached client's waiters (a
 * blocking call, or the client's poll/epoll on the socket's descriptor)
 * when the engine changed what they wait for. A waiter sets the
 * socket's armed word in the region (RDS_ARM_IN, RDS_ARM_OUT), looks at
 * the socket's rings once more and sleeps in poll(2) on its end of the
 * socket's wake-up pair; the engine, when it changed what an armed
 * waiter waits for, clears the word and sends a byte to the other end,
 * never waiting (MSG_DONTWAIT: a full pair is readable already).
 */
#include <sys/socket.h>

#include "rds_server_private.h"

/* Wake the client's waiter: a byte on the socket's wake-up pair. Never
 * waits: when the client's end is full it is readable already. */
static void
rds_srv_wake_send(int fd)
{
	static const uint8_t one = 1;

	if (fd >= 0)
		(void)send(fd, &one, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
}

/* Wake the socket's waiters now when one waits for what changed
 * (RDS_ARM_* bits): every waiter wakes (the byte makes the descriptor
 * readable) and arms again. The full barrier orders the caller's
 * publication (a ring's producer or consumer index, a release count:
 * stores) before the load of the armed word, against the client's arm
 * (a locked OR) then its look at the rings: without it a load may pass
 * the store (x86 allows it) and both sides miss the other's change,
 * the waiter asleep until its slice ends. */
static void
rds_server_wake_now(struct rds_sock *rs, uint32_t ev)
{
	struct rds_srv_sock *ss = rs->client_sock;

	if (ss == NULL)
		return;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if ((__atomic_load_n(&ss->cs->armed, __ATOMIC_RELAXED) & ev) == 0)
		return;
	if (__atomic_exchange_n(&ss->cs->armed, 0, __ATOMIC_SEQ_CST) == 0)
		return;
	rds_srv_wake_send(ss->wfd);
}

/*
 * Wake-ups asked for during an engine's pass wait for its end
 * (rds_server_wake_flush): the wake byte's send() (a system call that
 * wakes the poller, 8-12 us in the engine's pass on the development
 * host, doc/perf.md) then no longer sits between one delivery and the
 * next, a socket that got several messages in a pass is woken once, and
 * a waiter that found its message meanwhile (and disarmed) costs no
 * send at all. The sockets are the thread's (an engine's pass runs on
 * one thread); they are held until the pass ends, as the pass holds
 * every socket it looked up (rte_rds_close waits for the passes under
 * way: rds_engines_quiesce). Outside a pass (the control thread, a
 * close), or when the batch is full, the wake is sent at once.
 */
#define RDS_SRV_WAKE_BATCH 64

static __thread struct {
	unsigned int depth;		/* passes under way on this thread */
	unsigned int n;
	struct {
		struct rds_sock *rs;
		uint32_t ev;
	} q[RDS_SRV_WAKE_BATCH];
} rds_srv_wq;

void
rds_server_wake_begin(void)
{
	rds_srv_wq.depth++;
}

void
rds_server_wake_flush(void)
{
	unsigned int i, n = rds_srv_wq.n;

	rds_srv_wq.n = 0;
	for (i = 0; i < n; i++)
		rds_server_wake_now(rds_srv_wq.q[i].rs, rds_srv_wq.q[i].ev);
	if (rds_srv_wq.depth != 0)
		rds_srv_wq.depth--;
}

void
rds_srv_wake_ev(struct rds_sock *rs, uint32_t ev)
{
	unsigned int i, n = rds_srv_wq.n;

	if (rs->client_sock == NULL)
		return;
	if (rds_srv_wq.depth == 0) {
		rds_server_wake_now(rs, ev);
		return;
	}
	for (i = 0; i < n; i++)
		if (rds_srv_wq.q[i].rs == rs) {
			rds_srv_wq.q[i].ev |= ev;
			return;
		}
	if (n == RDS_SRV_WAKE_BATCH) {
		rds_server_wake_now(rs, ev);
		return;
	}
	rds_srv_wq.q[n].rs = rs;
	rds_srv_wq.q[n].ev = ev;
	rds_srv_wq.n = n + 1;
}

/*
 * TX buffers are the client's, not a socket's: a sender with room in its
 * send buffer and no TX buffer arms RDS_ARM_TXB on its socket and sets
 * the region's tx_wait (rds_client_data.c). When buffers went back onto
 * txfree since the last look (the message that held one went: tx_done,
 * rds_server_zc.c; a request taken without a message; a close), the
 * engine clears tx_wait and wakes the sockets so armed, at the end of
 * its pass. Without it such a sender slept its whole slice (10 ms) with
 * its buffer back. The fence orders the puts onto txfree before the load
 * of tx_wait, against the client's store of it then its look at txfree.
 */
void
rds_srv_tx_wake(struct rds_client *cl)
{
	struct rds_region_hdr *h = (void *)cl->base;
	unsigned int i;

	if (cl->txfree.idx == cl->txfree_woke)
		return;
	cl->txfree_woke = cl->txfree.idx;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&h->tx_wait, __ATOMIC_RELAXED) == 0 ||
	    __atomic_exchange_n(&h->tx_wait, 0, __ATOMIC_SEQ_CST) == 0)
		return;
	for (i = 0; i < cl->lay.nb_socks && i < RDS_SRV_SOCKS; i++) {
		struct rds_srv_sock *ss = &cl->socks[i];
		struct rds_sock *rs = __atomic_load_n(&ss->rs,
						      __ATOMIC_ACQUIRE);

		if (rs == NULL || !(__atomic_load_n(&ss->cs->armed,
						     __ATOMIC_RELAXED) &
				    RDS_ARM_TXB))
			continue;
		__atomic_fetch_add(&cl->tx_wakes, 1, __ATOMIC_RELAXED);
		rds_srv_wake_ev(rs, RDS_ARM_TXB);
	}
}

/* Anything (a close, an error): every waiter. */
void
rds_server_wake(struct rds_sock *rs)
{
	rds_srv_wake_ev(rs, RDS_ARM_ALL);
}

void
rds_server_set_err(struct rds_sock *rs, int err)
{
	struct rds_srv_sock *ss = rs->client_sock;

	if (ss == NULL)
		return;
	__atomic_store_n(&ss->cs->snd_err, (uint32_t)err, __ATOMIC_RELEASE);
}

void
rds_server_released(struct rds_sock *rs, uint32_t len)
{
	struct rds_srv_sock *ss = rs->client_sock;

	if (ss == NULL)
		return;
	__atomic_fetch_add(&ss->cs->snd_released, len, __ATOMIC_RELEASE);
	rds_srv_wake_ev(rs, RDS_ARM_OUT);
}

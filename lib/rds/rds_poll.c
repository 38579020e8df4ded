/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Readiness (net/rds/af_rds.c rds_poll) and notifications. A socket's
 * state is read lock-free from any thread; sleeping waiters get an
 * eventfd that engines write only when a waiter armed it, so the data
 * path pays one atomic load per delivery when nobody waits.
 */
#include <errno.h>
#include <poll.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include <rte_pause.h>

#include "rds_private.h"

void
rds_sock_wake(struct rds_sock *rs)
{
	uint64_t one = 1;

	if (__atomic_load_n(&rs->armed, __ATOMIC_SEQ_CST) == 0)
		return;
	if (__atomic_exchange_n(&rs->armed, 0, __ATOMIC_SEQ_CST) == 0)
		return;
	if (rs->efd >= 0 && write(rs->efd, &one, sizeof(one)) < 0)
		RDS_LOG(DEBUG, "socket %d: eventfd write failed", rs->id);
}

static bool
rds_rings_pending(struct rds_sock *rs, bool notify)
{
	unsigned int e;

	for (e = 0; e < rds_lib->nb_engines; e++) {
		const struct rte_ring *r = notify ? rs->chan[e].notify :
						    rs->chan[e].rx;

		if (rte_ring_count(r) != 0)
			return true;
	}
	return false;
}

/* The kernel's poll rules. Updates the congestion tracking as it does. */
static short
rds_sock_revents(struct rds_sock *rs, short events)
{
	short rev = 0;
	uint32_t gen;

	if (rs->rx_head != NULL || rds_rings_pending(rs, false) ||
	    rds_rings_pending(rs, true))
		rev |= POLLIN | POLLRDNORM;
	if (rs->cong_monitor) {
		if (__atomic_load_n(&rs->cong_notify, __ATOMIC_ACQUIRE) != 0)
			rev |= POLLIN | POLLRDNORM;
	} else {
		gen = rds_cong_generation();
		if (gen != __atomic_load_n(&rs->cong_track, __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&rs->cong_track, gen, __ATOMIC_RELEASE);
			rev |= POLLIN | POLLRDNORM | POLLWRBAND;
		}
	}
	if (__atomic_load_n(&rs->snd_bytes, __ATOMIC_ACQUIRE) <
	    (int64_t)rs->sndbuf)
		rev |= POLLOUT | POLLWRNORM;
	return rev & (events | POLLWRBAND);
}

int
rte_rds_event_fd(int s)
{
	struct rds_sock *rs = rds_sock_get(s);
	int fd;

	if (rs == NULL)
		return RDS_ERR(EBADF);
	rte_spinlock_lock(&rs->lock);
	if (rs->efd < 0) {
		fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (fd < 0) {
			rte_spinlock_unlock(&rs->lock);
			return RDS_ERR(errno == EMFILE ? EMFILE : ENOMEM);
		}
		rs->efd = fd;
	}
	fd = rs->efd;
	rte_spinlock_unlock(&rs->lock);
	return fd;
}

int
rte_rds_event_arm(int s, short events)
{
	struct rds_sock *rs = rds_sock_get(s);
	short rev;

	if (rs == NULL)
		return RDS_ERR(EBADF);
	/* Arm first, then look: an engine that changes the state after we
	 * looked sees the flag. */
	__atomic_store_n(&rs->armed, 1, __ATOMIC_SEQ_CST);
	rev = rds_sock_revents(rs, events);
	if (rev & (events | POLLWRBAND)) {
		__atomic_store_n(&rs->armed, 0, __ATOMIC_SEQ_CST);
		return rev;
	}
	return 0;
}

static bool
rds_any_inline(void)
{
	unsigned int i;

	for (i = 0; i < rds_lib->nb_engines; i++)
		if (rds_lib->engines[i]->lcore_id == RTE_RDS_ENGINE_INLINE)
			return true;
	return false;
}

int
rte_rds_poll(struct rte_rds_pollfd *fds, unsigned int nfds, int timeout_ms)
{
	struct pollfd pfd[64];
	uint64_t deadline = 0, now, spins = 0;
	unsigned int i, ready;
	int slice;

	if (rds_lib == NULL)
		return RDS_ERR(ENXIO);
	if (fds == NULL && nfds != 0)
		return RDS_ERR(EINVAL);
	if (timeout_ms > 0)
		deadline = rte_rdtsc() +
			   (uint64_t)timeout_ms * (rds_lib->tsc_hz / 1000);
	for (;;) {
		ready = 0;
		for (i = 0; i < nfds; i++) {
			struct rds_sock *rs = rds_sock_get(fds[i].sock);

			fds[i].revents = rs == NULL ? POLLNVAL :
				rds_sock_revents(rs, fds[i].events);
			if (fds[i].revents != 0)
				ready++;
		}
		if (ready != 0 || timeout_ms == 0)
			return (int)ready;
		now = rte_rdtsc();
		if (deadline != 0 && now >= deadline)
			return 0;
		if (rds_any_inline() || nfds > RTE_DIM(pfd)) {
			/* Someone must drive the engines: this thread. */
			rds_sock_wait_step(NULL, 0, &spins);
			continue;
		}
		/* Engines on their own lcores: sleep on the event fds. */
		for (i = 0; i < nfds; i++) {
			pfd[i].fd = rte_rds_event_fd(fds[i].sock);
			pfd[i].events = POLLIN;
			if (pfd[i].fd < 0 ||
			    rte_rds_event_arm(fds[i].sock, fds[i].events) != 0)
				pfd[i].fd = -1;	/* ready now: look again */
		}
		slice = 10;
		if (deadline != 0 && (deadline - now) * 1000 / rds_lib->tsc_hz <
		    (uint64_t)slice)
			slice = (int)((deadline - now) * 1000 /
				      rds_lib->tsc_hz) + 1;
		if (poll(pfd, nfds, slice) > 0) {
			uint64_t v;

			for (i = 0; i < nfds; i++)
				if (pfd[i].fd >= 0 && (pfd[i].revents & POLLIN))
					if (read(pfd[i].fd, &v, sizeof(v)) < 0)
						v = 0;
		}
	}
}

/* ------------------------------------------------------------------ */
/* Notifications: engines queue RDMA statuses; recvmsg hands them out
 * before any data. */

void
rds_notify_queue(struct rds_engine *e, struct rds_sock *rs, uint64_t token,
		 int32_t status)
{
	struct rds_sock_engine *se = &rs->eng[e->id];
	struct rds_msg *m = rds_msg_alloc(0);

	if (m == NULL) {
		RDS_LOG(ERR, "socket %d: notification lost (no memory)", rs->id);
		return;
	}
	m->type = RDS_MSG_NOTIFY;
	m->sock = rs->id;
	m->token = token;
	m->status = status;
	if (!TAILQ_EMPTY(&se->notify_overflow) ||
	    rds_chan_put(rs->chan[e->id].notify, rs->chan[e->id].base, m) != 0)
		TAILQ_INSERT_TAIL(&se->notify_overflow, m, link);
	rds_sock_wake(rs);
}

void
rds_notify_flush_overflow(struct rds_engine *e, struct rds_sock *rs)
{
	struct rds_sock_engine *se = &rs->eng[e->id];
	struct rds_msg *m;

	while ((m = TAILQ_FIRST(&se->notify_overflow)) != NULL) {
		if (rds_chan_put(rs->chan[e->id].notify, rs->chan[e->id].base,
				 m) != 0)
			break;
		TAILQ_REMOVE(&se->notify_overflow, m, link);
	}
}

void
rds_notify_drop_overflow(struct rds_engine *e, struct rds_sock *rs)
{
	struct rds_sock_engine *se = &rs->eng[e->id];
	struct rds_msg *m;

	while ((m = TAILQ_FIRST(&se->notify_overflow)) != NULL) {
		TAILQ_REMOVE(&se->notify_overflow, m, link);
		rds_msg_free(m);
	}
}

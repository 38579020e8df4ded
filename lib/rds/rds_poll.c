/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Readiness (net/rds/af_rds.c rds_poll) and notifications. A socket's
 * state is read lock-free from any thread; sleeping waiters get an
 * eventfd that engines write only when a waiter armed it, so the data
 * path pays one atomic load per delivery when nobody waits.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include <rte_pause.h>

#include "rds_private.h"

static void
rds_efd_write(const struct rds_sock *rs)
{
	uint64_t one = 1;
	int fd = __atomic_load_n(&rs->efd, __ATOMIC_ACQUIRE);

	if (fd >= 0 && write(fd, &one, sizeof(one)) < 0)
		RDS_LOG(DEBUG, "socket %d: eventfd write failed", rs->id);
}

void
rds_sock_wake_slow(struct rds_sock *rs)
{
	if (unlikely(rs->client != NULL)) {
		rds_server_wake(rs);
		return;
	}
	if (likely(__atomic_load_n(&rs->armed, __ATOMIC_SEQ_CST) == 0))
		return;
	if (__atomic_exchange_n(&rs->armed, 0, __ATOMIC_SEQ_CST) == 0)
		return;
	rds_efd_write(rs);
}

/* Close: whoever sleeps on the socket's eventfd wakes up. */
void
rds_sock_wake_now(struct rds_sock *rs)
{
	__atomic_store_n(&rs->armed, 0, __ATOMIC_SEQ_CST);
	rds_efd_write(rs);
}

/* The kernel's poll rules. Updates the congestion tracking as it does. */
static short
rds_sock_revents(struct rds_sock *rs, short events)
{
	short rev = 0;
	uint32_t gen;

	if (__atomic_load_n(&rs->rx_head, __ATOMIC_ACQUIRE) != NULL ||
	    rds_queue_count(&rs->rxq) != 0 || rds_queue_count(&rs->ntq) != 0)
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
	    (int64_t)rs->f.sndbuf)
		rev |= POLLOUT | POLLWRNORM;
	return rev & (events | POLLWRBAND);
}

static int
rds_event_fd(struct rds_sock *rs)
{
	int fd;

	rte_spinlock_lock(&rs->lock);
	if (rs->efd < 0) {
		fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (fd < 0) {
			fd = errno == EMFILE ? -EMFILE : -ENOMEM;
			rte_spinlock_unlock(&rs->lock);
			return fd;
		}
		__atomic_store_n(&rs->efd, fd, __ATOMIC_RELEASE);
		/* Congestion changes wake it too. */
		rds_cong_watch(rs, true);
	}
	fd = rs->efd;
	rte_spinlock_unlock(&rs->lock);
	return fd;
}

int
rte_rds_event_fd(int s)
{
	struct rds_sock *rs = rds_sock_hold(s);
	int fd;

	if (rs == NULL) {
		RDS_CLIENT_OR(rds_client_event_fd(s));
		return RDS_ERR(EBADF);
	}
	fd = rds_event_fd(rs);
	rds_sock_put(rs);
	return fd < 0 ? RDS_ERR(-fd) : fd;
}

/* Arm first, then look: an engine that changes the state after we
 * looked sees the flag. */
static int
rds_event_arm(struct rds_sock *rs, short events)
{
	short rev;

	__atomic_store_n(&rs->armed, 1, __ATOMIC_SEQ_CST);
	rev = rds_sock_revents(rs, events & ~RTE_RDS_ARM_EDGE);
	if (rev & (events | POLLWRBAND)) {
		/* An edge-triggered waiter wants the next change too. */
		if (!(events & RTE_RDS_ARM_EDGE))
			__atomic_store_n(&rs->armed, 0, __ATOMIC_SEQ_CST);
		return rev;
	}
	return 0;
}

int
rte_rds_event_arm(int s, short events)
{
	struct rds_sock *rs = rds_sock_hold(s);
	int ret;

	if (rs == NULL) {
		RDS_CLIENT_OR(rds_client_event_arm(s, events));
		return RDS_ERR(EBADF);
	}
	ret = rds_event_arm(rs, events);
	rds_sock_put(rs);
	return ret;
}

#define RDS_POLL_SLEEP_MAX 64

/* One look at every socket the call holds (a closed one, or one that
 * closes meanwhile, is POLLNVAL: a handle reused during the call never
 * reports the newer socket). */
static unsigned int
rds_poll_scan(struct rte_rds_pollfd *fds, unsigned int nfds,
	      struct rds_sock *const *held)
{
	unsigned int i, ready = 0;

	for (i = 0; i < nfds; i++) {
		struct rds_sock *rs = held[i];

		fds[i].revents = rs == NULL || rds_sock_closing(rs) ? POLLNVAL :
			rds_sock_revents(rs, fds[i].events);
		if (fds[i].revents != 0)
			ready++;
	}
	return ready;
}

/* Engines on their own lcores: sleep on the sockets' event fds, at most
 * slice_ms (close wakes us through the fd). */
static unsigned int
rds_poll_sleep(struct rte_rds_pollfd *fds, unsigned int nfds,
	       struct rds_sock *const *held, int slice_ms)
{
	struct pollfd pfd[RDS_POLL_SLEEP_MAX];
	unsigned int i, ready;
	uint64_t v;

	ready = rds_poll_scan(fds, nfds, held);
	if (ready != 0)
		return ready;
	for (i = 0; i < nfds; i++) {
		pfd[i].fd = -1;
		pfd[i].events = POLLIN;
		if (held[i] == NULL)
			continue;
		pfd[i].fd = rds_event_fd(held[i]);
		if (pfd[i].fd < 0 ||
		    rds_event_arm(held[i], fds[i].events) != 0 ||
		    rds_sock_closing(held[i]))
			slice_ms = 0;	/* ready now: look again */
	}
	if (slice_ms != 0 && poll(pfd, nfds, slice_ms) > 0) {
		for (i = 0; i < nfds; i++)
			if (pfd[i].fd >= 0 && (pfd[i].revents & POLLIN))
				if (read(pfd[i].fd, &v, sizeof(v)) < 0)
					v = 0;
	}
	return 0;
}

static int
rds_poll_held(struct rte_rds_pollfd *fds, unsigned int nfds,
	      struct rds_sock *const *held, int timeout_ms)
{
	uint64_t deadline = 0, now, spins = 0, left_ms;
	unsigned int ready;
	int slice;

	if (timeout_ms > 0)
		deadline = rds_clock_tsc() +
			   (uint64_t)timeout_ms * (rds_lib->tsc_hz / 1000);
	for (;;) {
		ready = rds_poll_scan(fds, nfds, held);
		if (ready != 0 || timeout_ms == 0)
			return (int)ready;
		now = rds_clock_tsc();
		if (deadline != 0 && now >= deadline)
			return 0;
		if (rds_lib->any_inline || nfds > RDS_POLL_SLEEP_MAX) {
			/* Someone must drive the engines: this thread. */
			rds_sock_wait_step(NULL, 0, &spins);
			continue;
		}
		slice = 10;
		if (deadline != 0) {
			left_ms = (deadline - now) * 1000 / rds_lib->tsc_hz;
			if (left_ms < (uint64_t)slice)
				slice = (int)left_ms + 1;
		}
		ready = rds_poll_sleep(fds, nfds, held, slice);
		if (ready != 0)
			return (int)ready;
	}
}

int
rte_rds_poll(struct rte_rds_pollfd *fds, unsigned int nfds, int timeout_ms)
{
	struct rds_sock *stack[RDS_POLL_SLEEP_MAX], **held = stack;
	unsigned int i;
	int ret;

	RDS_CLIENT_OR(rds_client_poll(fds, nfds, timeout_ms));
	if (rds_lib == NULL)
		return RDS_ERR(ENXIO);
	if (fds == NULL && nfds != 0)
		return RDS_ERR(EINVAL);
	if (nfds > RDS_POLL_SLEEP_MAX) {
		if (nfds > rds_lib->conf.max_sockets)
			return RDS_ERR(EINVAL);
		held = malloc(sizeof(*held) * nfds);
		if (held == NULL)
			return RDS_ERR(ENOMEM);
	}
	/* Every socket is held for the whole call: what it reports is about
	 * the sockets the handles named when it started. */
	for (i = 0; i < nfds; i++)
		held[i] = rds_sock_hold(fds[i].sock);
	ret = rds_poll_held(fds, nfds, held, timeout_ms);
	for (i = 0; i < nfds; i++)
		if (held[i] != NULL)
			rds_sock_put(held[i]);
	if (held != stack)
		free(held);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Notifications: engines queue RDMA statuses; recvmsg hands them out
 * before any data. */

void
rds_notify_queue(struct rds_engine *e, struct rds_sock *rs, uint64_t token,
		 int32_t status)
{
	struct rds_msg *m = rds_msg_alloc(0);
	int ret;

	RTE_SET_USED(e);
	if (m == NULL) {
		RDS_LOG(ERR, "socket %d: notification lost (no memory)", rs->id);
		return;
	}
	m->type = RDS_MSG_NOTIFY;
	m->sock = rs->id;
	m->token = token;
	m->status = status;
	rte_spinlock_lock(&rs->rx_prod_lock);
	ret = rds_queue_put(&rs->ntq, m);
	rte_spinlock_unlock(&rs->rx_prod_lock);
	if (ret != 0) {
		RDS_LOG(ERR, "socket %d: notification lost (queue)", rs->id);
		rds_msg_free(m);
		return;
	}
	rds_sock_wake(rs);
}

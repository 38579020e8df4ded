/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An attached process, waiting (rds_client.c has the whole picture):
 * whether the engine went away (its UNIX socket or the wake-up
 * descriptors hung up), what a socket is ready for, arming its wake-up
 * bits, and waiting on it: a little spinning, then poll(2) on its
 * eventfd. The calls that wait are in rds_client_data.c.
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#include "rds_client_private.h"

uint64_t
rds_cl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t
rds_cl_now_coarse_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The engine's connection hung up (it was killed: it says nothing).
 * Its number is in use only under ctl (rte_rds_attach_fd_move): with
 * wait, the call in progress is waited for (it ends at once when the
 * engine went); without, it finds out by itself. */
static bool
rds_cl_ctl_hup(struct rds_cl *cl, bool wait)
{
	struct pollfd p = { .fd = -1, .events = POLLIN };
	int r = 0;

	if (wait)
		pthread_mutex_lock(&cl->ctl);
	else if (pthread_mutex_trylock(&cl->ctl) != 0)
		return false;
	p.fd = cl->fd;
	if (p.fd >= 0)
		r = poll(&p, 1, 0);
	pthread_mutex_unlock(&cl->ctl);
	return r > 0 && (p.revents & (POLLHUP | POLLERR));
}

static bool
rds_cl_gone_said(struct rds_cl *cl)
{
	return __atomic_load_n(&cl->dead, __ATOMIC_ACQUIRE) ||
	       __atomic_load_n(&cl->hdr->engine_gone, __ATOMIC_ACQUIRE);
}

bool
rds_cl_engine_gone(struct rds_cl *cl)
{
	uint64_t now;

	if (rds_cl_gone_said(cl))
		goto gone;
	/* Looked at once a millisecond at most (a non-blocking receive in
	 * a loop must not cost a system call each time). */
	now = rds_cl_now_coarse_ns();
	if (now - __atomic_load_n(&cl->gone_checked, __ATOMIC_RELAXED) <
	    1000000)
		return false;
	__atomic_store_n(&cl->gone_checked, now, __ATOMIC_RELAXED);
	if (rds_cl_ctl_hup(cl, false))
		goto gone;
	return false;
gone:
	__atomic_store_n(&cl->dead, 1, __ATOMIC_RELEASE);
	return true;
}

/* Has the wake-up descriptor of an open socket hung up? The engine's end
 * of each closes as it goes, and may close before its end of the
 * connection does (a killed process's descriptors close one by one). */
static bool
rds_cl_wake_hup(struct rds_cl *cl)
{
	struct rds_cl_sock *held[RTE_DIM(cl->socks)];
	struct pollfd pfd[RTE_DIM(cl->socks)];
	unsigned int i, n = 0;
	bool hup = false;

	for (i = 0; i < cl->nb_socks; i++) {
		struct rds_cl_sock *cs = rds_cl_hold(cl, rds_cl_handle(cl, i));

		if (cs == NULL)
			continue;
		pfd[n].fd = rds_cl_efd_get(cs);
		if (pfd[n].fd < 0) {
			rds_cl_put(cs);
			continue;
		}
		pfd[n].events = POLLIN;
		held[n++] = cs;
	}
	if (n != 0 && poll(pfd, n, 0) > 0)
		for (i = 0; i < n; i++)
			if (pfd[i].revents & (POLLHUP | POLLERR))
				hup = true;
	for (i = 0; i < n; i++) {
		rds_cl_efd_put(held[i]);
		rds_cl_put(held[i]);
	}
	return hup;
}

/* The same, looked at now, the sockets' wake-up descriptors too
 * (rte_rds_attached: a caller about to attach again, or that saw a
 * wake-up descriptor hang up, must not be told of an engine that went a
 * moment ago that it is there). */
bool
rds_cl_engine_gone_now(struct rds_cl *cl)
{
	if (!rds_cl_gone_said(cl) && !rds_cl_ctl_hup(cl, true) &&
	    !rds_cl_wake_hup(cl))
		return false;
	__atomic_store_n(&cl->dead, 1, __ATOMIC_RELEASE);
	return true;
}

/* ------------------------------------------------------------------ */
/* Waiting */

short
rds_cl_revents(struct rds_cl_sock *cs, short events)
{
	short rev = 0;

	if (cs->rx_head != 0 || rds_xring_count(&cs->rx) != 0 ||
	    rds_xring_count(&cs->nt) >= 2)
		rev |= POLLIN | POLLRDNORM;
	/* Room in the send buffer, and in the ring a send goes through
	 * (else a waiting sender would spin on a full ring: the engine
	 * wakes it when it takes requests off). */
	if (__atomic_load_n(&cs->cs->snd_queued, __ATOMIC_ACQUIRE) -
	    __atomic_load_n(&cs->cs->snd_released, __ATOMIC_ACQUIRE) <
	    cs->f.sndbuf &&
	    (uint32_t)(__atomic_load_n(&cs->req.idx, __ATOMIC_RELAXED) -
		       __atomic_load_n(&cs->req.r->cons, __ATOMIC_ACQUIRE)) <
	    cs->req.size)
		rev |= POLLOUT | POLLWRNORM;
	/* And a TX buffer, where the last non-blocking send found none:
	 * else an event loop would be told "writable", send, get EAGAIN
	 * and poll again at once, spinning on the core the engine needs
	 * to give buffers back. */
	if ((rev & POLLOUT) && (events & (POLLOUT | POLLWRNORM))) {
		uint32_t need = __atomic_load_n(&cs->txb_need,
						__ATOMIC_ACQUIRE);

		if (need != 0 && !rds_cl_tx_avail(rds_cl, need))
			rev &= ~(POLLOUT | POLLWRNORM);
	}
	return rev & events;
}

void
rds_cl_arm_ev(struct rds_cl *cl, struct rds_cl_sock *cs, short events)
{
	rds_cl_arm(&cs->cs->armed, events);
	if ((events & (POLLOUT | POLLWRNORM)) &&
	    __atomic_load_n(&cs->txb_need, __ATOMIC_ACQUIRE) != 0) {
		/* As rds_cl_arm_look's sender: both stores before the
		 * caller's look (rds_cl_revents). */
		__atomic_fetch_or(&cs->cs->armed, RDS_ARM_TXB,
				  __ATOMIC_SEQ_CST);
		(void)__atomic_exchange_n(&cl->hdr->tx_wait, 1,
					  __ATOMIC_SEQ_CST);
	}
}

void
rds_cl_disarm_ev(struct rds_cl_sock *cs, short events)
{
	rds_cl_disarm(&cs->cs->armed, events);
	if ((events & (POLLOUT | POLLWRNORM)) &&
	    __atomic_load_n(&cs->txb_need, __ATOMIC_ACQUIRE) != 0)
		__atomic_fetch_and(&cs->cs->armed, ~RDS_ARM_TXB,
				   __ATOMIC_SEQ_CST);
}

/*
 * Arm, and look once more: is what the waiter waits for there already?
 * A sender waiting for a TX buffer (need != 0) arms RDS_ARM_TXB on its
 * socket and says so in the region's tx_wait, which the engine reads
 * when it gives buffers back (rds_srv_tx_wake): the buffers are the
 * client's, not a socket's. Both stores are locked (a full barrier each)
 * before the look, against the engine's put onto txfree, its fence and
 * its load of tx_wait.
 */
static bool
rds_cl_arm_look(struct rds_cl *cl, struct rds_cl_sock *cs, short events,
		uint32_t need)
{
	if (need == 0) {
		rds_cl_arm(&cs->cs->armed, events);
		if (rds_cl_revents(cs, events) == 0)
			return false;
		rds_cl_disarm(&cs->cs->armed, events);
		return true;
	}
	__atomic_fetch_or(&cs->cs->armed, RDS_ARM_TXB, __ATOMIC_SEQ_CST);
	(void)__atomic_exchange_n(&cl->hdr->tx_wait, 1, __ATOMIC_SEQ_CST);
	if (!rds_cl_tx_ready(cl, cs, need))
		return false;
	__atomic_fetch_and(&cs->cs->armed, ~RDS_ARM_TXB, __ATOMIC_SEQ_CST);
	return true;
}

/* Wait until events may be ready on cs (need != 0: a TX buffer of need
 * bytes, the send buffer having room), or the deadline (0: none): 0,
 * -EBADF (closed), -ETIMEDOUT, -ECONNRESET (the engine went). */
int
rds_cl_wait(struct rds_cl *cl, struct rds_cl_sock *cs, short events,
	    uint32_t need, uint64_t deadline, uint64_t *spin_until)
{
	struct pollfd p[2];
	uint64_t now = rds_cl_now_ns();
	int slice = cl->slice_ms, ret = 0;

	if (__atomic_load_n(&cs->state, __ATOMIC_ACQUIRE) != RDS_SOCK_OPEN)
		return -EBADF;
	if (deadline != 0 && now >= deadline)
		return -ETIMEDOUT;
	if (*spin_until == 0)
		*spin_until = now + RDS_CL_SPIN_NS;
	if (now < *spin_until) {
		rds_cl_spin_step();
		return 0;
	}
	if (rds_cl_engine_gone(cl))
		return -ECONNRESET;
	/* Arm, look again, then sleep. */
	if (rds_cl_arm_look(cl, cs, events, need))
		return 0;
	if (deadline != 0 && (deadline - now) / 1000000 < (uint64_t)slice)
		slice = (int)((deadline - now) / 1000000) + 1;
	p[0].fd = rds_cl_efd_get(cs);
	if (p[0].fd < 0) {
		/* Its wake-up descriptor is moving: nothing to sleep on for
		 * a moment (left armed: other waiters may sleep on it). */
		sched_yield();
		return 0;
	}
	p[0].events = POLLIN;
	/* The wake-up descriptor hangs up when the engine goes (its end
	 * closes): the engine's connection need not be watched here. */
	if (poll(p, 1, slice) > 0) {
		if (p[0].revents & POLLIN)
			rds_cl_wake_drain(p[0].fd);
		if ((p[0].revents & (POLLHUP | POLLERR)) &&
		    __atomic_load_n(&cs->state, __ATOMIC_ACQUIRE) ==
		    RDS_SOCK_OPEN) {
			__atomic_store_n(&cl->dead, 1, __ATOMIC_RELEASE);
			ret = -ECONNRESET;
		}
	}
	rds_cl_efd_put(cs);
	return ret;
}

uint64_t
rds_cl_deadline(uint64_t timeo_ns)
{
	return timeo_ns == 0 ? 0 : rds_cl_now_ns() + timeo_ns;
}

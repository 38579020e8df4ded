/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * librte_rds_preload.so, the waits (rds_preload.c has the whole
 * picture): poll, ppoll, select, pselect, epoll_ctl, epoll_wait and
 * epoll_pwait on sets that mix RDS descriptors (the sockets' wake-up
 * descriptors, armed before the wait) with anything else.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_rds.h>
#include <rte_rds_attach.h>

#include "rds_preload_private.h"

/* ------------------------------------------------------------------ */
/* Waiting: poll, ppoll, select, pselect, epoll */

static uint64_t
pl_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Arm an RDS socket for events (the engine then signals its wake-up
 * descriptor), and say what is ready now. */
static short
pl_arm(const struct pl_fd *p, short events)
{
	int r = PL_CALL(rte_rds_event_arm(p->handle, events));

	return r < 0 ? POLLNVAL : (short)r;
}

/* What a wait reports of an RDS descriptor: a stale one's (PL_DEAD: a
 * peer that went; a forked child's: POLLNVAL), a hung-up one's (the
 * kernel saw its wake-up socket hang up, hup: the engine went, as the
 * library says too once it looks), else the socket's, armed (edge:
 * armed even when ready, for the next change). */
static short
pl_revents(const struct pl_fd *p, short events, bool hup, bool edge)
{
	if (p->stale)
		return pl_stale_revents(p, events);
	if (hup) {
		/* The library looks at its connection now, not at its next
		 * look (at most one a millisecond): the call the program
		 * makes next says ECONNRESET, not EAGAIN. */
		PL_CALL(rte_rds_attached());
		return POLLERR | POLLHUP |
		       (events & (POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM));
	}
	return pl_arm(p, edge ? (short)(events | RTE_RDS_ARM_EDGE) : events);
}

/* Take what the engine sent to an RDS descriptor's wake-up descriptor (a
 * SOCK_SEQPACKET socket of the engine's: a byte a message) after the
 * kernel saw it readable: only while the number is still that socket's
 * (a close or dup2 on another thread may have put a file of the
 * program's there, which is not ours to read). */
static void
pl_drain(int fd)
{
	struct pl_fd *p;
	char b[16];

	pthread_mutex_lock(&pl_lock);
	p = pl_get(fd);
	while (p != NULL && !p->stale &&
	       REAL(recv)(fd, b, sizeof(b), MSG_DONTWAIT) > 0)
		;
	pthread_mutex_unlock(&pl_lock);
}

/*
 * poll over a set with RDS descriptors: the RDS ones are armed and
 * looked at first; when none is ready the kernel waits on all (the RDS
 * ones through their wake-up descriptors), then they are looked at
 * again. A number only the library has open is POLLNVAL, as one with
 * nothing open.
 */
static int
pl_poll(struct pollfd *fds, nfds_t n, int timeout_ms, const sigset_t *mask)
{
	uint64_t deadline = timeout_ms > 0 ? pl_now_ms() + (uint64_t)timeout_ms :
			    0;
	short *want = NULL, stack_want[64];
	nfds_t i;
	int ready, rds_ready, left = timeout_ms, r;
	struct timespec ts;
	bool hup;

	want = n <= 64 ? stack_want : malloc(sizeof(*want) * n);
	if (want == NULL) {
		errno = ENOMEM;
		return -1;
	}
	for (;;) {
		rds_ready = 0;
		for (i = 0; i < n; i++) {
			struct pl_fd *p = pl_get(fds[i].fd);

			want[i] = -1;
			if (p == NULL) {
				if (pl_is_hidden(fds[i].fd)) {
					/* Nothing of the program's is there:
					 * POLLNVAL; the kernel skips it (a
					 * negative fd until it returns). */
					want[i] = -2;
					fds[i].fd = ~fds[i].fd;
					rds_ready++;
				}
				continue;
			}
			want[i] = fds[i].events;
			fds[i].revents = pl_revents(p, fds[i].events, false,
						    false);
			if (fds[i].revents != 0)
				rds_ready++;
			/* The kernel sees the wake-up descriptor: readable
			 * when the engine signals. */
			fds[i].events = POLLIN;
		}
		if (rds_ready != 0)
			left = 0;
		if (mask != NULL || left >= 0) {
			if (left >= 0) {
				ts.tv_sec = left / 1000;
				ts.tv_nsec = (long)(left % 1000) * 1000000;
			}
			r = REAL(ppoll)(fds, n, left >= 0 ? &ts : NULL, mask);
		} else {
			r = REAL(poll)(fds, n, -1);
		}
		ready = 0;
		for (i = 0; i < n; i++) {
			struct pl_fd *p;

			if (want[i] == -2) {
				fds[i].fd = ~fds[i].fd;
				fds[i].revents = POLLNVAL;
				ready++;
				continue;
			}
			if (want[i] < 0) {
				if (r > 0 && fds[i].revents != 0)
					ready++;
				continue;
			}
			hup = r > 0 && (fds[i].revents & (POLLHUP | POLLERR));
			if (r > 0 && (fds[i].revents & POLLIN))
				pl_drain(fds[i].fd);
			p = pl_get(fds[i].fd);
			fds[i].events = want[i];
			if (p == NULL)
				fds[i].revents = POLLNVAL;
			else	/* looked at again (and disarmed if ready) */
				fds[i].revents = pl_revents(p, want[i], hup,
							    false);
			if (fds[i].revents != 0)
				ready++;
		}
		if (r < 0 && ready == 0)
			break;
		if (ready != 0 || timeout_ms == 0)
			break;
		if (timeout_ms > 0) {
			uint64_t now = pl_now_ms();

			if (now >= deadline)
				break;
			left = (int)(deadline - now);
		}
	}
	if (want != stack_want)
		free(want);
	return r < 0 && ready == 0 ? r : ready;
}

static bool
pl_any_rds(const struct pollfd *fds, nfds_t n)
{
	nfds_t i;

	if (__atomic_load_n(&pl_fds, __ATOMIC_ACQUIRE) == NULL || pl_inside)
		return false;
	for (i = 0; i < n; i++)
		if (pl_get(fds[i].fd) != NULL || pl_is_hidden(fds[i].fd))
			return true;
	return false;
}

/* glibc declares poll's array write-only (access attribute): reading it
 * here is what a poll does, not a use of uninitialised memory. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

PL_EXPORT int
poll(struct pollfd *fds, nfds_t n, int timeout_ms)
{
	if (!pl_any_rds(fds, n))
		return REAL(poll)(fds, n, timeout_ms);
	return pl_poll(fds, n, timeout_ms, NULL);
}

PL_EXPORT int
ppoll(struct pollfd *fds, nfds_t n, const struct timespec *ts,
      const sigset_t *mask)
{
	int ms;

	if (!pl_any_rds(fds, n))
		return REAL(ppoll)(fds, n, ts, mask);
	ms = ts == NULL ? -1 : (int)(ts->tv_sec * 1000 + ts->tv_nsec / 1000000);
	return pl_poll(fds, n, ms, mask);
}

/*
 * select's sets are bit arrays of nfds bits in the kernel's layout (bit
 * fd % PL_NFDBITS of long fd / PL_NFDBITS), of any length a program
 * allocates: FD_ISSET and FD_SET stop at FD_SETSIZE, these do not.
 */
#define PL_NFDBITS (8 * (int)sizeof(long))

static inline unsigned long
pl_set_word(const fd_set *set, int w)
{
	return set == NULL ? 0 : (unsigned long)((const long *)(const void *)
						 set)[w];
}

static inline void
pl_set_bit(fd_set *set, int fd)
{
	((long *)(void *)set)[fd / PL_NFDBITS] |= 1L << (fd % PL_NFDBITS);
}

/*
 * How many bits of the sets to look at: nfds, but no more than the
 * kernel's descriptor table has (FDSize in /proc/self/status; every open
 * descriptor is below it), as the kernel's select looks at no more
 * either: a program that passes a large nfds with a smaller bitmap
 * (getdtablesize(), say) works as it does there.
 */
static int
pl_select_bits(int nfds)
{
	char buf[2048], *l;
	ssize_t n;
	long sz;
	int fd;

	if (nfds <= FD_SETSIZE)
		return nfds;
	fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return nfds;
	n = REAL(read)(fd, buf, sizeof(buf) - 1);
	REAL(close)(fd);
	if (n <= 0)
		return nfds;
	buf[n] = '\0';
	l = strstr(buf, "\nFDSize:");
	if (l == NULL)
		return nfds;
	sz = strtol(l + 8, NULL, 10);
	return sz > 0 && sz < nfds ? (int)sz : nfds;
}

/*
 * The descriptors in the sets' first nbits bits, with the events each
 * asks for, into pf (when not NULL): how many; *any when one of them is
 * an RDS descriptor.
 */
static int
pl_select_scan(int nbits, const fd_set *rd, const fd_set *wr,
	       const fd_set *ex, struct pollfd *pf, bool *any)
{
	int words = (nbits + PL_NFDBITS - 1) / PL_NFDBITS, w, n = 0, fd;
	unsigned long m, r, x, bit;

	for (w = 0; w < words; w++) {
		r = pl_set_word(rd, w);
		x = pl_set_word(wr, w);
		m = r | x | pl_set_word(ex, w);
		if (w == words - 1 && nbits % PL_NFDBITS != 0)
			m &= (1UL << (nbits % PL_NFDBITS)) - 1;
		for (; m != 0; m &= m - 1) {
			fd = w * PL_NFDBITS + __builtin_ctzl(m);
			bit = 1UL << (fd % PL_NFDBITS);
			if (pl_get(fd) != NULL || pl_is_hidden(fd))
				*any = true;
			if (pf != NULL) {
				pf[n].fd = fd;
				pf[n].events = (short)((r & bit ? POLLIN : 0) |
					(x & bit ? POLLOUT : 0) |
					(pl_set_word(ex, w) & bit ? POLLPRI : 0));
				pf[n].revents = 0;
			}
			n++;
		}
	}
	return n;
}

/* select and pselect through pl_poll when an RDS descriptor is in a set;
 * any nfds. */
static int
pl_select(int nfds, fd_set *rd, fd_set *wr, fd_set *ex, int ms,
	  const sigset_t *mask, bool *handled)
{
	struct pollfd stack_pf[64], *pf = stack_pf;
	int i, n, ret, cnt = 0, nbits, words;
	bool any = false;

	*handled = false;
	if (__atomic_load_n(&pl_fds, __ATOMIC_ACQUIRE) == NULL || pl_inside ||
	    nfds <= 0)
		return 0;
	nbits = pl_select_bits(nfds);
	words = (nbits + PL_NFDBITS - 1) / PL_NFDBITS;
	n = pl_select_scan(nbits, rd, wr, ex, NULL, &any);
	if (!any)
		return 0;
	*handled = true;
	if (n > (int)RTE_DIM(stack_pf)) {
		pf = malloc(sizeof(*pf) * (size_t)n);
		if (pf == NULL) {
			errno = ENOMEM;
			return -1;
		}
	}
	n = pl_select_scan(nbits, rd, wr, ex, pf, &any);
	ret = pl_poll(pf, (nfds_t)n, ms, mask);
	if (ret < 0)
		goto out;
	for (i = 0; i < n; i++)
		if (pf[i].revents & POLLNVAL) {
			errno = EBADF;
			ret = -1;
			goto out;
		}
	/* As the kernel writes them back: every word up to nbits. */
	if (rd != NULL)
		memset(rd, 0, sizeof(long) * (size_t)words);
	if (wr != NULL)
		memset(wr, 0, sizeof(long) * (size_t)words);
	if (ex != NULL)
		memset(ex, 0, sizeof(long) * (size_t)words);
	for (i = 0; i < n; i++) {
		if (rd != NULL && (pf[i].events & POLLIN) &&
		    (pf[i].revents & (POLLIN | POLLHUP | POLLERR))) {
			pl_set_bit(rd, pf[i].fd);
			cnt++;
		}
		if (wr != NULL && (pf[i].events & POLLOUT) &&
		    (pf[i].revents & (POLLOUT | POLLERR))) {
			pl_set_bit(wr, pf[i].fd);
			cnt++;
		}
		if (ex != NULL && (pf[i].events & POLLPRI) &&
		    (pf[i].revents & POLLPRI)) {
			pl_set_bit(ex, pf[i].fd);
			cnt++;
		}
	}
	ret = cnt;
out:
	if (pf != stack_pf)
		free(pf);
	return ret;
}

PL_EXPORT int
select(int nfds, fd_set *rd, fd_set *wr, fd_set *ex, struct timeval *tv)
{
	bool handled;
	int ms = tv == NULL ? -1 : (int)(tv->tv_sec * 1000 +
					 tv->tv_usec / 1000);
	int ret = pl_select(nfds, rd, wr, ex, ms, NULL, &handled);

	if (!handled)
		return REAL(select)(nfds, rd, wr, ex, tv);
	return ret;
}

PL_EXPORT int
pselect(int nfds, fd_set *rd, fd_set *wr, fd_set *ex,
	const struct timespec *ts, const sigset_t *mask)
{
	bool handled;
	int ms = ts == NULL ? -1 : (int)(ts->tv_sec * 1000 +
					 ts->tv_nsec / 1000000);
	int ret = pl_select(nfds, rd, wr, ex, ms, mask, &handled);

	if (!handled)
		return REAL(pselect)(nfds, rd, wr, ex, ts, mask);
	return ret;
}

/* The entry of (epfd, fd), or pl_nb_ep (under pl_lock). */
static unsigned int
pl_ep_find(int epfd, int fd)
{
	unsigned int i;

	for (i = 0; i < pl_nb_ep; i++)
		if (pl_ep[i].epfd == epfd && pl_ep[i].fd == fd)
			break;
	return i;
}

static short
pl_ep2poll(uint32_t e)
{
	return (short)(((e & EPOLLIN) ? POLLIN : 0) |
		       ((e & EPOLLOUT) ? POLLOUT : 0));
}

static uint32_t
pl_poll2ep(short r)
{
	return ((r & POLLIN) ? EPOLLIN : 0) | ((r & POLLOUT) ? EPOLLOUT : 0) |
	       ((r & (POLLNVAL | POLLERR)) ? EPOLLERR : 0) |
	       ((r & POLLHUP) ? EPOLLHUP : 0);
}

/*
 * The kernel watches the wake-up descriptor for input (a byte from the
 * engine, or its hang-up), with data of ours that names the descriptor
 * and the program's EPOLLET and EPOLLONESHOT; what the program asked for
 * and its data are kept in pl_ep. An edge-triggered one is armed to stay
 * armed (RTE_RDS_ARM_EDGE): each change of the socket after it makes the
 * engine send a byte, which is an edge for the kernel, and so an event
 * for the program, once. What is ready at the moment it is registered is
 * reported once, at the next wait, as the kernel's first look at a
 * descriptor added to an epoll set does.
 */
PL_EXPORT int
epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev)
{
	struct pl_fd *p = pl_get(fd);
	struct epoll_event mine;
	unsigned int i;
	short r = 0;
	int ret;

	if (p == NULL)
		return PL_LIBC(fd, REAL(epoll_ctl)(epfd, op, fd, ev));
	if (p->stale == PL_FORKED)
		return pl_stale();
	if (op == EPOLL_CTL_DEL) {
		ret = REAL(epoll_ctl)(epfd, op, fd, ev);
		pthread_mutex_lock(&pl_lock);
		i = pl_ep_find(epfd, fd);
		if (i < pl_nb_ep)
			pl_ep[i] = pl_ep[--pl_nb_ep];
		pthread_mutex_unlock(&pl_lock);
		return ret;
	}
	if (ev == NULL) {
		errno = EFAULT;
		return -1;
	}
	mine.events = EPOLLIN | (ev->events & (EPOLLET | EPOLLONESHOT));
	mine.data.u64 = pl_tag | (uint32_t)fd;
	ret = REAL(epoll_ctl)(epfd, op, fd, &mine);
	if (ret != 0)
		return ret;
	pthread_mutex_lock(&pl_lock);
	i = pl_ep_find(epfd, fd);
	if (i == pl_nb_ep) {
		if (pl_nb_ep == PL_EPOLL_MAX) {
			pthread_mutex_unlock(&pl_lock);
			REAL(epoll_ctl)(epfd, EPOLL_CTL_DEL, fd, &mine);
			errno = ENOSPC;
			return -1;
		}
		pl_nb_ep++;
	}
	pl_ep[i].epfd = epfd;
	pl_ep[i].fd = fd;
	pl_ep[i].events = ev->events;
	pl_ep[i].data = ev->data.u64;
	pl_ep[i].off = false;
	pl_ep[i].pending = false;
	if (ev->events & EPOLLET) {
		r = pl_revents(p, pl_ep2poll(ev->events), false, true);
		pl_ep[i].pending = (r & (pl_ep2poll(ev->events) | POLLERR |
					 POLLHUP | POLLNVAL)) != 0;
	}
	pthread_mutex_unlock(&pl_lock);
	return 0;
}

/* An event of an RDS descriptor reported by a wait. */
struct pl_ep_ready {
	int fd;
	short r;
	uint64_t data;
};

/*
 * What entry j has to report now (0: nothing), the kernel having said
 * that its wake-up descriptor was readable (kev: its events) or not
 * (kev 0: the look before the wait, which reports level-triggered
 * entries and edge-triggered ones ready when registered). Marks a
 * one-shot entry off. Under pl_lock.
 */
static short
pl_ep_look(unsigned int j, uint32_t kev)
{
	struct pl_ep *e = &pl_ep[j];
	struct pl_fd *p = pl_get(e->fd);
	bool et = (e->events & EPOLLET) != 0;
	short want = pl_ep2poll(e->events), r;

	if (p == NULL || p->stale == PL_FORKED || e->off)
		return 0;
	if (kev == 0 && et && !e->pending)
		return 0;
	e->pending = false;
	r = pl_revents(p, want, (kev & (EPOLLHUP | EPOLLERR)) != 0, et);
	r &= want | POLLERR | POLLHUP | POLLNVAL;
	if (r != 0 && (e->events & EPOLLONESHOT))
		e->off = true;
	return r;
}

static int
pl_epoll(int epfd, struct epoll_event *evs, int max, int timeout_ms,
	 const sigset_t *mask)
{
	uint64_t deadline = timeout_ms > 0 ? pl_now_ms() + (uint64_t)timeout_ms :
			    0;
	struct pl_ep_ready stack_pre[16], *pre = stack_pre;
	int n, i, k, left = timeout_ms, npre, cap_pre = 16;
	unsigned int j;
	bool ours;

	if (max <= 0)
		return REAL(epoll_wait)(epfd, evs, max, timeout_ms);
	for (;;) {
		/* Arm ours; the ones ready now are reported without a
		 * wait (the kernel is only asked what else is ready). */
		ours = false;
		npre = 0;
		pthread_mutex_lock(&pl_lock);
		for (j = 0; j < pl_nb_ep; j++) {
			short r;

			if (pl_ep[j].epfd != epfd)
				continue;
			ours = true;
			if (npre == max)
				continue;
			r = pl_ep_look(j, 0);
			if (r == 0)
				continue;
			if (npre == cap_pre) {
				struct pl_ep_ready *np = malloc(sizeof(*np) *
						(size_t)cap_pre * 2);

				if (np == NULL) {
					pl_ep[j].pending = true;
					pl_ep[j].off = false;
					continue;
				}
				memcpy(np, pre, sizeof(*np) * (size_t)npre);
				if (pre != stack_pre)
					free(pre);
				pre = np;
				cap_pre *= 2;
			}
			pre[npre].fd = pl_ep[j].fd;
			pre[npre].r = r;
			pre[npre].data = pl_ep[j].data;
			npre++;
		}
		pthread_mutex_unlock(&pl_lock);
		if (npre == max) {
			n = 0;
		} else {
			int wait = npre != 0 ? 0 : left;

			n = mask != NULL ?
			    REAL(epoll_pwait)(epfd, evs, max - npre, wait, mask) :
			    REAL(epoll_wait)(epfd, evs, max - npre, wait);
		}
		if (!ours) {
			k = n;
			break;
		}
		if (n < 0 && npre == 0) {
			k = n;
			break;
		}
		for (i = 0, k = 0; i < n; i++) {
			uint64_t d = evs[i].data.u64;
			uint32_t kev = evs[i].events;
			int fd, m;
			short r;

			if ((d >> 32) != (pl_tag >> 32)) {
				evs[k++] = evs[i];
				continue;
			}
			fd = (int)(uint32_t)d;
			pl_drain(fd);
			for (m = 0; m < npre && pre[m].fd != fd; m++)
				;
			if (m < npre)
				continue;	/* reported below */
			pthread_mutex_lock(&pl_lock);
			j = pl_ep_find(epfd, fd);
			r = j < pl_nb_ep ? pl_ep_look(j, kev | EPOLLIN) : 0;
			if (r == 0 && j < pl_nb_ep &&
			    (pl_ep[j].events & EPOLLONESHOT) && !pl_ep[j].off) {
				/* Nothing after all: the kernel's one shot
				 * is not the program's. */
				struct epoll_event again = {
					.events = EPOLLIN | EPOLLONESHOT |
						(pl_ep[j].events & EPOLLET),
					.data.u64 = d,
				};

				REAL(epoll_ctl)(epfd, EPOLL_CTL_MOD, fd, &again);
			}
			if (r != 0) {
				evs[k].events = pl_poll2ep(r);
				evs[k].data.u64 = pl_ep[j].data;
				k++;
			}
			pthread_mutex_unlock(&pl_lock);
		}
		for (i = 0; i < npre && k < max; i++) {
			evs[k].events = pl_poll2ep(pre[i].r);
			evs[k].data.u64 = pre[i].data;
			k++;
		}
		if (k != 0 || timeout_ms == 0)
			break;
		if (timeout_ms > 0) {
			uint64_t now = pl_now_ms();

			if (now >= deadline)
				break;
			left = (int)(deadline - now);
		}
	}
	if (pre != stack_pre)
		free(pre);
	return k;
}

PL_EXPORT int
epoll_wait(int epfd, struct epoll_event *evs, int max, int timeout_ms)
{
	if (pl_inside || pl_nb_ep == 0)
		return REAL(epoll_wait)(epfd, evs, max, timeout_ms);
	return pl_epoll(epfd, evs, max, timeout_ms, NULL);
}

PL_EXPORT int
epoll_pwait(int epfd, struct epoll_event *evs, int max, int timeout_ms,
	    const sigset_t *mask)
{
	if (pl_inside || pl_nb_ep == 0)
		return REAL(epoll_pwait)(epfd, evs, max, timeout_ms, mask);
	return pl_epoll(epfd, evs, max, timeout_ms, mask);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite 'race', binary race_stress: threads racing every call on the same
 * sockets and on reused handles, for a bounded time.
 *
 * NTHREADS threads (more than the two cores) do random operations for
 * RDS_TEST_RACE_SECS seconds (default 4) on a shared pool of NPOOL
 * handles: socket + bind, close (of a pool entry, or of any handle
 * number: a stale close that may hit a socket that reused it), sendmsg
 * (non-blocking, or blocking with the socket's SO_SNDTIMEO of 1..5 ms),
 * recvmsg (non-blocking, or blocking with its SO_RCVTIMEO of 1..5 ms),
 * rte_rds_recv_burst, rte_rds_poll, rte_rds_event_fd/event_arm,
 * setsockopt, getsockopt, RDS_INFO_* (through getsockopt and
 * rte_rds_info), bind of a bound socket, and rte_rds_engine_poll.
 *
 * Bookkeeping, per handle number: the socket incarnation registered on
 * it (a unique 64-bit id, registered when its bind succeeds), under a
 * send lock and a receive lock that senders and receivers of that
 * handle hold for their call, and that bind and registration hold
 * together; close takes neither, so closes race every call. The incarnation is also recorded
 * in a table keyed by (address, port) at bind time, where senders look
 * the destination's id up. Ports are handed out once each (per address,
 * wrapping only after ~55,000 binds), so that a message can only reach a
 * socket bound to the port it was sent to.
 *
 * Every message carries its destination's incarnation id, its sender's
 * id and address, a sequence number per sender incarnation, its length
 * and bytes derived from all that. A receiver checks that every message
 * it gets is for its own incarnation (a message may be lost when either
 * end closed, never delivered to another incarnation; one sent to an
 * older incarnation on the same address and port is counted apart), is
 * from the address it claims, intact, and that messages of one sender
 * incarnation arrive in increasing order without duplicates. Every
 * error must be one the call documents for the situation (EBADF,
 * EAGAIN, ETIMEDOUT, ENOBUFS, EADDRINUSE, ENOTCONN, ...). Operations are
 * counted and printed.
 *
 * At the end: every handle is closed, the library must hold no socket
 * and no queued message (RDS_INFO_*), the engine counters must balance
 * (every message the threads sent was queued and then acknowledged or
 * cancelled), and after rte_rds_fini() the DPDK heap and the libc heap
 * must be back where they were before rte_rds_init() (ASan's leak
 * checker does the rest in the sanitizer build).
 *
 * Two runs: engine inline (driven by the threads' blocking calls and
 * explicit rte_rds_engine_poll), and engine on its own lcore.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <CUnit/CUnit.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_rds.h>

#include "rds_test.h"

#define NTHREADS 6
#define NPOOL 16
#define MAXH 128		/* conf.max_sockets: handles stay below */
#define NADDR 4
#define PORT_FIRST 10000
#define PORT_LAST 65000
#define PORT_UNBOUND 6000	/* PORT_UNBOUND.. +99: never bound */
#define RXMAP 1024		/* sender incarnations tracked per receiver */
#define MAXLEN 65536
#define INFO_BUF (512u << 10)
#define LOCK_WAIT_MS 200	/* a creator waits this long for a handle */
#define TIMEO_MS 5		/* SO_SNDTIMEO, SO_RCVTIMEO: 1..TIMEO_MS */
#define MAGIC 0x52414345u	/* "RACE" */
/*
 * libc heap in use may grow by a few KiB a run outside the library (the
 * first runs of a process: 29 KiB, 11 KiB, 2 KiB, 1 KiB, then nothing,
 * measured here, with no library object left; glibc and EAL per-thread
 * state of the threads that came and went). A leaked socket or message
 * per incarnation would be megabytes.
 */
#define LIBC_SLACK (64u << 10)

struct race_hdr {
	uint32_t magic;
	uint32_t len;		/* the whole payload */
	uint64_t dst_inc;	/* 0: sent to a port nobody binds */
	uint64_t src_inc;
	uint64_t seq;
	uint16_t dst_port;
	uint16_t src_port;
	uint8_t dst_addr;
	uint8_t src_addr;
	uint8_t pad[2];
};

enum op {
	OP_CREATE,
	OP_CLOSE,
	OP_CLOSE_ANY,
	OP_SEND,
	OP_SEND_BLOCK,
	OP_RECV,
	OP_RECV_BLOCK,
	OP_BURST,
	OP_POLL,
	OP_ARM,
	OP_SETOPT,
	OP_GETOPT,
	OP_INFO,
	OP_REBIND,
	OP_KICK,
	NOPS
};

static const char *const op_names[NOPS] = {
	"socket+bind", "close", "close(any handle)", "send", "send(blocking)",
	"recv", "recv(blocking)", "recv_burst", "poll", "event_arm",
	"setsockopt", "getsockopt", "RDS_INFO", "bind(again)",
	"engine_poll",
};

/* Relative frequencies. */
static const unsigned int op_weight[NOPS] = {
	[OP_CREATE] = 4, [OP_CLOSE] = 3, [OP_CLOSE_ANY] = 1,
	[OP_SEND] = 30, [OP_SEND_BLOCK] = 6, [OP_RECV] = 20,
	[OP_RECV_BLOCK] = 6, [OP_BURST] = 4, [OP_POLL] = 5, [OP_ARM] = 3,
	[OP_SETOPT] = 3, [OP_GETOPT] = 3, [OP_INFO] = 2, [OP_REBIND] = 1,
	[OP_KICK] = 8,
};

/* errno values counted one by one; anything else is "other". */
static const int err_vals[] = {
	EBADF, EAGAIN, ETIMEDOUT, ENOBUFS, EADDRINUSE, ENOTCONN, EINVAL,
	EOPNOTSUPP, EMSGSIZE, EMFILE, ENOSPC, ENOMEM,
};
#define NERR (RTE_DIM(err_vals) + 1)

#define E(x) (1u << (x))
enum {
	EI_BADF, EI_AGAIN, EI_TIMEDOUT, EI_NOBUFS, EI_ADDRINUSE, EI_NOTCONN,
	EI_INVAL, EI_OPNOTSUPP, EI_MSGSIZE, EI_MFILE, EI_NOSPC, EI_NOMEM,
};

/* Per handle number. */
struct hstate {
	pthread_mutex_t tx_lock;
	pthread_mutex_t rx_lock;
	/* Written under both locks, read under either. */
	uint64_t inc;
	uint8_t addr;
	uint16_t port;
	/* Under tx_lock. */
	uint64_t tx_seq;
	/* Under rx_lock: last sequence per sender incarnation. */
	struct {
		uint64_t src;
		uint64_t seq;
	} rx[RXMAP];
	unsigned int rx_used;
};

struct worker {
	unsigned int id;
	pthread_t th;
	uint64_t rng;
	uint64_t ops[NOPS];
	uint64_t ok[NOPS];
	uint64_t err[NOPS][NERR];
	uint64_t sent;			/* messages sendmsg took */
	uint64_t received;		/* messages checked */
	uint64_t late;			/* for an older socket on our port */
	uint64_t unordered;		/* RXMAP full: order not checked */
	uint64_t records;		/* RDS_INFO records checked */
	uint64_t gave_up;		/* creates that found the handle busy */
	bool registered;
	bool failed;
	char why[512];
	uint8_t *sbuf, *rbuf, *want, *ibuf;
};

static struct hstate hs[MAXH];
static int pool[NPOOL];			/* handles, -1: none (atomic) */
static uint32_t dest[NPOOL];		/* addr << 16 | port, 0: none */
static uint64_t inc_at[NADDR][65536];	/* (address, port) -> incarnation */
static uint32_t next_port[NADDR];
static uint64_t next_inc;
static struct worker workers[NTHREADS];
static int stop_all;
static bool engine_inline;
static struct sockaddr_in addrs[NADDR];
static unsigned int op_total_weight;

static const char *const ips[NADDR] = {
	RDS_TEST_IP1, RDS_TEST_IP2, RDS_TEST_IP3, RDS_TEST_IP4,
};

static void
wfail(struct worker *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
wfail(struct worker *w, const char *fmt, ...)
{
	va_list ap;

	if (!w->failed) {
		va_start(ap, fmt);
		vsnprintf(w->why, sizeof(w->why), fmt, ap);
		va_end(ap);
		printf("  thread %u: FAIL: %s\n", w->id, w->why);
	}
	w->failed = true;
}

static unsigned int
err_index(int e)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(err_vals); i++)
		if (err_vals[i] == e)
			return i;
	return NERR - 1;
}

/* Count a result; an errno outside allowed fails the thread. */
static void
count(struct worker *w, enum op op, bool ok, int e, uint32_t allowed)
{
	unsigned int i;

	w->ops[op]++;
	if (ok) {
		w->ok[op]++;
		return;
	}
	i = err_index(e);
	w->err[op][i]++;
	if (i == NERR - 1 || !(allowed & E(i)))
		wfail(w, "%s: unexpected errno %d (%s)", op_names[op], e,
		      strerror(e));
}

static uint64_t
rnd(struct worker *w, uint64_t lo, uint64_t hi)
{
	return rds_test_rand_range(&w->rng, lo, hi);
}

static int
pool_get(unsigned int i)
{
	return __atomic_load_n(&pool[i], __ATOMIC_ACQUIRE);
}

/* A handle from the pool, or -1. */
static int
pick_handle(struct worker *w)
{
	return pool_get((unsigned int)rnd(w, 0, NPOOL - 1));
}

static uint16_t
alloc_port(unsigned int a)
{
	uint32_t n = __atomic_fetch_add(&next_port[a], 1, __ATOMIC_RELAXED);

	return (uint16_t)(PORT_FIRST + n % (PORT_LAST - PORT_FIRST));
}

static void
set_timeo(int h, int opt, unsigned int ms)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = (long)ms * 1000 };

	rte_rds_setsockopt(h, SOL_SOCKET, opt, &tv, sizeof(tv));
}

/* Both locks of handle h, or false after LOCK_WAIT_MS. */
static bool
lock_both(int h)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += LOCK_WAIT_MS * 1000000L;
	ts.tv_sec += ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	if (pthread_mutex_timedlock(&hs[h].tx_lock, &ts) != 0)
		return false;
	if (pthread_mutex_timedlock(&hs[h].rx_lock, &ts) != 0) {
		pthread_mutex_unlock(&hs[h].tx_lock);
		return false;
	}
	return true;
}

/* ------------------------------------------------------------------ */
/* socket + bind, close */

static void
op_create(struct worker *w)
{
	uint32_t allowed = E(EI_BADF) | E(EI_INVAL) | E(EI_ADDRINUSE);
	struct sockaddr_in sin;
	unsigned int a, i, k;
	uint16_t port;
	uint64_t inc;
	int h, v, r, e, expect;

	h = rte_rds_socket();
	if (h < 0) {
		count(w, OP_CREATE, false, errno, E(EI_MFILE) | E(EI_NOMEM));
		return;
	}
	if (h >= MAXH) {
		wfail(w, "socket: handle %d, at most %d sockets are open", h,
		      MAXH);
		rte_rds_close(h);
		return;
	}
	/* Timeouts first: every blocking call on a registered socket
	 * ends in at most TIMEO_MS. */
	set_timeo(h, SO_SNDTIMEO, (unsigned int)rnd(w, 1, TIMEO_MS));
	set_timeo(h, SO_RCVTIMEO, (unsigned int)rnd(w, 1, TIMEO_MS));
	if (rnd(w, 0, 3) == 0) {
		v = (int)rnd(w, 4096, 256 << 10);
		rte_rds_setsockopt(h, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
	}
	a = (unsigned int)rnd(w, 0, NADDR - 1);
	port = alloc_port(a);
	inc = __atomic_add_fetch(&next_inc, 1, __ATOMIC_RELAXED);
	/* A call still inside on this handle (on this very socket, made
	 * by a thread that read the handle before it was reused) would
	 * keep the locks: close it and give up. */
	if (!lock_both(h)) {
		w->gave_up++;
		rte_rds_close(h);
		return;
	}
	/* Bind and register together, under both locks: no send or
	 * receive on the handle runs meanwhile, and no other bind (a
	 * stale op_rebind binds only to the registered address), so the
	 * socket behind the handle is always bound where its registration
	 * says, or not bound. */
	sin = rds_test_sin(ips[a], port);
	r = rte_rds_bind(h, (const struct sockaddr *)&sin, sizeof(sin));
	e = errno;
	if (r == 0) {
		hs[h].inc = inc;
		hs[h].addr = (uint8_t)a;
		hs[h].port = port;
		hs[h].tx_seq = 0;
		memset(hs[h].rx, 0, sizeof(hs[h].rx));
		hs[h].rx_used = 0;
	}
	pthread_mutex_unlock(&hs[h].rx_lock);
	pthread_mutex_unlock(&hs[h].tx_lock);
	if (r != 0) {
		/* EBADF: a stale close got it (do not close again: the
		 * handle may be another socket's by now); EINVAL: a stale
		 * bind got there first, to the address of the incarnation
		 * registered before; EADDRINUSE: the port came round. */
		count(w, OP_CREATE, false, e, allowed);
		if (e != EBADF)
			rte_rds_close(h);
		return;
	}
	__atomic_store_n(&inc_at[a][port], inc, __ATOMIC_RELEASE);
	i = (unsigned int)rnd(w, 0, NPOOL - 1);
	for (k = 0; k < NPOOL; k++, i = (i + 1) % NPOOL) {
		expect = -1;
		if (__atomic_compare_exchange_n(&pool[i], &expect, h, false,
						__ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			break;
	}
	if (k == NPOOL) {
		/* The pool is full: this one goes at once. */
		rte_rds_close(h);
	} else {
		__atomic_store_n(&dest[i], (uint32_t)a << 16 | port,
				 __ATOMIC_RELEASE);
	}
	count(w, OP_CREATE, true, 0, 0);
}

static void
op_close(struct worker *w)
{
	unsigned int i = (unsigned int)rnd(w, 0, NPOOL - 1);
	int h, r;

	__atomic_store_n(&dest[i], 0, __ATOMIC_RELEASE);
	h = __atomic_exchange_n(&pool[i], -1, __ATOMIC_ACQ_REL);
	if (h < 0)
		return;
	/* EBADF: a stale close was first. */
	r = rte_rds_close(h);
	count(w, OP_CLOSE, r == 0, errno, E(EI_BADF));
}

/* Close any handle number: the socket behind it may be one that reused
 * a handle another thread still uses, or none. */
static void
op_close_any(struct worker *w)
{
	int h = (int)rnd(w, 0, NPOOL + NTHREADS), r;

	r = rte_rds_close(h);
	count(w, OP_CLOSE_ANY, r == 0, errno, E(EI_BADF));
}

/* ------------------------------------------------------------------ */
/* Messages */

static uint64_t
msg_key(uint64_t src_inc, uint64_t seq, uint32_t len)
{
	return rds_test_mix64(src_inc * 0x9e3779b97f4a7c15ULL ^ seq ^
			      ((uint64_t)len << 40));
}

static uint32_t
msg_len(struct worker *w)
{
	uint64_t r = rnd(w, 0, 999);

	if (r == 0)
		return (uint32_t)rnd(w, 16384, MAXLEN);
	if (r < 20)
		return (uint32_t)rnd(w, 2048, 16384);
	return (uint32_t)rnd(w, sizeof(struct race_hdr), 1500);
}

static void
op_send(struct worker *w, bool block)
{
	enum op op = block ? OP_SEND_BLOCK : OP_SEND;
	uint32_t allowed = E(EI_BADF) | E(EI_AGAIN) | E(EI_NOBUFS) |
			   E(EI_NOTCONN) | E(EI_MSGSIZE);
	struct race_hdr hdr;
	struct sockaddr_in to;
	uint32_t d, len;
	unsigned int a;
	uint16_t port;
	ssize_t r;
	int h = pick_handle(w);

	if (h < 0)
		return;
	if (block)
		allowed |= E(EI_TIMEDOUT);
	d = __atomic_load_n(&dest[rnd(w, 0, NPOOL - 1)], __ATOMIC_ACQUIRE);
	memset(&hdr, 0, sizeof(hdr));
	if (d == 0 || rnd(w, 0, 19) == 0) {
		a = (unsigned int)rnd(w, 0, NADDR - 1);
		port = (uint16_t)(PORT_UNBOUND + rnd(w, 0, 99));
		hdr.dst_inc = 0;
	} else {
		a = d >> 16;
		port = (uint16_t)d;
		hdr.dst_inc = __atomic_load_n(&inc_at[a][port],
					      __ATOMIC_ACQUIRE);
	}
	to = rds_test_sin(ips[a], port);
	len = msg_len(w);

	pthread_mutex_lock(&hs[h].tx_lock);
	hdr.magic = MAGIC;
	hdr.len = len;
	hdr.dst_addr = (uint8_t)a;
	hdr.dst_port = port;
	hdr.src_inc = hs[h].inc;
	hdr.src_addr = hs[h].addr;
	hdr.src_port = hs[h].port;
	hdr.seq = ++hs[h].tx_seq;
	memcpy(w->sbuf, &hdr, sizeof(hdr));
	rds_test_fill(w->sbuf + sizeof(hdr), len - sizeof(hdr),
		      msg_key(hdr.src_inc, hdr.seq, len));
	r = rds_test_send(h, w->sbuf, len, &to, block ? 0 : MSG_DONTWAIT);
	pthread_mutex_unlock(&hs[h].tx_lock);
	if (r >= 0 && r != (ssize_t)len) {
		wfail(w, "send: returned %zd for %u bytes", r, len);
		return;
	}
	if (r >= 0)
		w->sent++;
	count(w, op, r >= 0, errno, allowed);
}

/* Last sequence of sender src seen by the receiver of handle h (under
 * its rx_lock), or NULL when the map is full. */
static uint64_t *
rx_slot(int h, uint64_t src)
{
	struct hstate *st = &hs[h];
	unsigned int i = (unsigned int)(rds_test_mix64(src) % RXMAP), k;

	for (k = 0; k < RXMAP; k++, i = (i + 1) % RXMAP) {
		if (st->rx[i].src == src)
			return &st->rx[i].seq;
		if (st->rx[i].src == 0) {
			if (st->rx_used >= RXMAP / 2)
				return NULL;
			st->rx_used++;
			st->rx[i].src = src;
			st->rx[i].seq = 0;
			return &st->rx[i].seq;
		}
	}
	return NULL;
}

/* A message received on handle h (its rx_lock held). */
static void
check_msg(struct worker *w, int h, const uint8_t *buf, size_t n,
	  const struct sockaddr_in *from)
{
	const struct hstate *st = &hs[h];
	struct race_hdr hdr;
	char fs[32], ws[32];
	uint64_t *last;

	if (n < sizeof(hdr)) {
		wfail(w, "recv on %d: %zu bytes, shorter than any message "
		      "sent", h, n);
		return;
	}
	memcpy(&hdr, buf, sizeof(hdr));
	if (hdr.magic != MAGIC || hdr.len != n) {
		wfail(w, "recv on %d: %zu bytes, header magic %08x len %u", h,
		      n, hdr.magic, hdr.len);
		return;
	}
	if (hdr.dst_inc != st->inc) {
		if (hdr.dst_inc != 0 && hdr.dst_inc < st->inc &&
		    hdr.dst_addr == st->addr && hdr.dst_port == st->port) {
			/* Sent to an older socket on this address and port
			 * (the port came round): RDS names sockets by port. */
			w->late++;
			return;
		}
		wfail(w, "recv on handle %d (incarnation %" PRIu64 ", %s:%u): "
		      "message for incarnation %" PRIu64 " (%s:%u) from %"
		      PRIu64 " seq %" PRIu64, h, st->inc, ips[st->addr],
		      st->port, hdr.dst_inc,
		      hdr.dst_addr < NADDR ? ips[hdr.dst_addr] : "?",
		      hdr.dst_port, hdr.src_inc, hdr.seq);
		return;
	}
	if (hdr.src_addr >= NADDR || from == NULL ||
	    from->sin_addr.s_addr != addrs[hdr.src_addr].sin_addr.s_addr ||
	    ntohs(from->sin_port) != hdr.src_port) {
		if (from != NULL)
			rds_test_sin_str(from, fs, sizeof(fs));
		snprintf(ws, sizeof(ws), "%s:%u",
			 hdr.src_addr < NADDR ? ips[hdr.src_addr] : "?",
			 hdr.src_port);
		wfail(w, "recv on %d: from %s, the message says %s", h,
		      from != NULL ? fs : "?", ws);
		return;
	}
	rds_test_fill(w->want, n - sizeof(hdr),
		      msg_key(hdr.src_inc, hdr.seq, hdr.len));
	if (memcmp(buf + sizeof(hdr), w->want, n - sizeof(hdr)) != 0) {
		wfail(w, "recv on %d: %zu bytes from %" PRIu64 " seq %" PRIu64
		      ": payload differs", h, n, hdr.src_inc, hdr.seq);
		return;
	}
	last = rx_slot(h, hdr.src_inc);
	if (last == NULL) {
		w->unordered++;
	} else if (hdr.seq <= *last) {
		wfail(w, "recv on %d (incarnation %" PRIu64 "): from %" PRIu64
		      " seq %" PRIu64 " after seq %" PRIu64 " (%s)", h,
		      st->inc, hdr.src_inc, hdr.seq, *last,
		      hdr.seq == *last ? "duplicate" : "out of order");
		return;
	} else {
		*last = hdr.seq;
	}
	w->received++;
}

static void
op_recv(struct worker *w, bool block)
{
	enum op op = block ? OP_RECV_BLOCK : OP_RECV;
	uint32_t allowed = E(EI_BADF) | E(EI_AGAIN);
	struct sockaddr_in from;
	ssize_t r;
	int h = pick_handle(w), e;

	if (h < 0)
		return;
	if (block)
		allowed |= E(EI_TIMEDOUT);
	pthread_mutex_lock(&hs[h].rx_lock);
	memset(&from, 0, sizeof(from));
	r = rds_test_recv(h, w->rbuf, MAXLEN + 1, &from,
			  block ? 0 : MSG_DONTWAIT, NULL);
	e = errno;
	if (r >= 0)
		check_msg(w, h, w->rbuf, (size_t)r, &from);
	pthread_mutex_unlock(&hs[h].rx_lock);
	count(w, op, r >= 0, e, allowed);
}

static void
op_burst(struct worker *w)
{
	struct rte_rds_msg *ms[8];
	struct sockaddr_in from;
	uint16_t n, i;
	int h = pick_handle(w);

	if (h < 0)
		return;
	pthread_mutex_lock(&hs[h].rx_lock);
	n = rte_rds_recv_burst(h, ms, (uint16_t)rnd(w, 1, RTE_DIM(ms)));
	for (i = 0; i < n; i++) {
		memset(&from, 0, sizeof(from));
		rte_rds_msg_src(ms[i], &from);
		check_msg(w, h, rte_rds_msg_data(ms[i]),
			  rte_rds_msg_len(ms[i]), &from);
	}
	pthread_mutex_unlock(&hs[h].rx_lock);
	/* Given back after the lock, some after a close may have come. */
	for (i = 0; i < n; i++)
		rte_rds_msg_free(ms[i]);
	count(w, OP_BURST, true, 0, 0);
}

/* ------------------------------------------------------------------ */
/* Readiness */

static void
op_poll(struct worker *w)
{
	const short any = POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM |
			  POLLWRBAND | POLLNVAL;
	struct rte_rds_pollfd fds[3];
	unsigned int n = (unsigned int)rnd(w, 1, 3), i, ready = 0;
	int timeout, r;

	for (i = 0; i < n; i++) {
		fds[i].sock = pick_handle(w);
		fds[i].events = (short)(rnd(w, 0, 1) ? POLLIN : 0) |
				(short)(rnd(w, 0, 1) ? POLLOUT : 0);
		fds[i].revents = 0;
	}
	switch (rnd(w, 0, 9)) {
	case 0:
		/* Forever, for a send buffer with room (or a closed
		 * handle): ends as soon as the engine releases some. */
		timeout = -1;
		for (i = 0; i < n; i++)
			fds[i].events = POLLOUT;
		break;
	case 1:
	case 2:
	case 3:
		timeout = (int)rnd(w, 1, 5);
		break;
	default:
		timeout = 0;
		break;
	}
	r = rte_rds_poll(fds, n, timeout);
	if (r < 0) {
		count(w, OP_POLL, false, errno, 0);
		return;
	}
	for (i = 0; i < n; i++) {
		if (fds[i].revents & ~any)
			wfail(w, "poll: revents 0x%x", fds[i].revents);
		if (fds[i].sock < 0 && fds[i].revents != POLLNVAL)
			wfail(w, "poll: handle -1 gave revents 0x%x, not "
			      "POLLNVAL", fds[i].revents);
		if (fds[i].revents != 0)
			ready++;
	}
	if ((unsigned int)r != ready)
		wfail(w, "poll: returned %d, %u entries have revents", r,
		      ready);
	count(w, OP_POLL, true, 0, 0);
}

static void
op_arm(struct worker *w)
{
	struct pollfd pfd;
	int h = pick_handle(w), fd, r;

	if (h < 0)
		return;
	fd = rte_rds_event_fd(h);
	if (fd < 0) {
		count(w, OP_ARM, false, errno,
		      E(EI_BADF) | E(EI_MFILE) | E(EI_NOMEM));
		return;
	}
	r = rte_rds_event_arm(h, POLLIN | POLLOUT);
	if (r < 0) {
		count(w, OP_ARM, false, errno, E(EI_BADF));
		return;
	}
	if (r == 0 && rnd(w, 0, 3) == 0) {
		/* Look at the fd without reading it: by now it may be
		 * closed, or another socket's. */
		pfd.fd = fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		(void)poll(&pfd, 1, (int)rnd(w, 0, 1));
	}
	count(w, OP_ARM, true, 0, 0);
}

/* ------------------------------------------------------------------ */
/* Options and snapshots */

static void
op_setopt(struct worker *w)
{
	uint32_t allowed = E(EI_BADF);
	struct sockaddr_in sin;
	struct timeval tv;
	uint32_t d;
	int h = pick_handle(w), v, r;

	if (h < 0)
		return;
	switch (rnd(w, 0, 7)) {
	case 0:
		v = (int)rnd(w, 2304, 256 << 10);
		r = rte_rds_setsockopt(h, SOL_SOCKET, SO_SNDBUF, &v,
				       sizeof(v));
		break;
	case 1:
		v = (int)rnd(w, 4096, 256 << 10);
		r = rte_rds_setsockopt(h, SOL_SOCKET, SO_RCVBUF, &v,
				       sizeof(v));
		break;
	case 2:
	case 3:
		tv.tv_sec = 0;
		tv.tv_usec = (long)rnd(w, 1, TIMEO_MS) * 1000;
		r = rte_rds_setsockopt(h, SOL_SOCKET,
				       rnd(w, 0, 1) ? SO_SNDTIMEO : SO_RCVTIMEO,
				       &tv, sizeof(tv));
		break;
	case 4:
		v = (int)rnd(w, 0, 1);
		r = rte_rds_setsockopt(h, SOL_RDS, RDS_RECVERR, &v,
				       sizeof(v));
		break;
	case 5:
		/* After bind: EOPNOTSUPP; before: pins loop. */
		v = RTE_RDS_TRANS_LOOP;
		r = rte_rds_setsockopt(h, SOL_RDS, SO_RDS_TRANSPORT, &v,
				       sizeof(v));
		allowed |= E(EI_OPNOTSUPP);
		break;
	default:
		/* Cancel what was sent to one destination (rarely all):
		 * lost messages, never misdelivered ones. ENOTCONN when
		 * not bound. */
		allowed |= E(EI_NOTCONN);
		d = __atomic_load_n(&dest[rnd(w, 0, NPOOL - 1)],
				    __ATOMIC_ACQUIRE);
		if (d == 0 || rnd(w, 0, 7) == 0) {
			r = rte_rds_setsockopt(h, SOL_RDS, RDS_CANCEL_SENT_TO,
					       NULL, 0);
		} else {
			sin = rds_test_sin(ips[d >> 16], (uint16_t)d);
			r = rte_rds_setsockopt(h, SOL_RDS, RDS_CANCEL_SENT_TO,
					       &sin, sizeof(sin));
		}
		break;
	}
	count(w, OP_SETOPT, r == 0, errno, allowed);
}

static void
op_getopt(struct worker *w)
{
	struct timeval tv;
	socklen_t len;
	int h = pick_handle(w), v = -1, r, which;

	if (h < 0)
		return;
	which = (int)rnd(w, 0, 5);
	len = sizeof(v);
	switch (which) {
	case 0:
		r = rte_rds_getsockopt(h, SOL_SOCKET, SO_SNDBUF, &v, &len);
		if (r == 0 && (v < 2 * 2304 || v % 2 != 0))
			wfail(w, "SO_SNDBUF %d", v);
		break;
	case 1:
		r = rte_rds_getsockopt(h, SOL_SOCKET, SO_RCVBUF, &v, &len);
		if (r == 0 && (v < 2 * 2304 || v % 2 != 0))
			wfail(w, "SO_RCVBUF %d", v);
		break;
	case 2:
	case 3:
		len = sizeof(tv);
		memset(&tv, 0, sizeof(tv));
		r = rte_rds_getsockopt(h, SOL_SOCKET,
				       which == 2 ? SO_SNDTIMEO : SO_RCVTIMEO,
				       &tv, &len);
		/* 0 (forever) until its creator set them. */
		if (r == 0 && (tv.tv_sec != 0 || tv.tv_usec > TIMEO_MS * 1000))
			wfail(w, "timeout %ld.%06ld s", (long)tv.tv_sec,
			      (long)tv.tv_usec);
		break;
	case 4:
		r = rte_rds_getsockopt(h, SOL_RDS, SO_RDS_TRANSPORT, &v, &len);
		if (r == 0 && v != RDS_TRANS_NONE && v != RTE_RDS_TRANS_LOOP)
			wfail(w, "SO_RDS_TRANSPORT %d", v);
		break;
	default:
		r = rte_rds_getsockopt(h, SOL_RDS, RDS_RECVERR, &v, &len);
		if (r == 0 && v != 0 && v != 1)
			wfail(w, "RDS_RECVERR %d", v);
		break;
	}
	count(w, OP_GETOPT, r == 0, errno, E(EI_BADF));
}

static bool
our_ip(uint32_t a)
{
	unsigned int i;

	for (i = 0; i < NADDR; i++)
		if (addrs[i].sin_addr.s_addr == a)
			return true;
	return false;
}

static void
info_check(struct worker *w, int name, socklen_t len, int each)
{
	const struct rds_info_message *im;
	const struct rds_info_socket *is;
	socklen_t off;

	if (each <= 0 || len % (socklen_t)each != 0) {
		wfail(w, "RDS_INFO %d: record size %d, %u bytes", name, each,
		      (unsigned int)len);
		return;
	}
	for (off = 0; off < len; off += (socklen_t)each) {
		w->records++;
		switch (name) {
		case RDS_INFO_RECV_MESSAGES:
		case RDS_INFO_SEND_MESSAGES:
		case RDS_INFO_RETRANS_MESSAGES:
			im = (const void *)(w->ibuf + off);
			if (!our_ip(im->laddr) || !our_ip(im->faddr) ||
			    im->len < sizeof(struct race_hdr) ||
			    im->len > MAXLEN)
				wfail(w, "RDS_INFO %d: message %08x:%u -> "
				      "%08x:%u len %u", name, ntohl(im->laddr),
				      ntohs(im->lport), ntohl(im->faddr),
				      ntohs(im->fport), im->len);
			break;
		case RDS_INFO_SOCKETS:
			is = (const void *)(w->ibuf + off);
			if ((is->bound_addr != 0 && !our_ip(is->bound_addr)) ||
			    is->sndbuf < 2304 || is->rcvbuf < 2304 ||
			    is->inum >= MAXH)
				wfail(w, "RDS_INFO_SOCKETS: %08x:%u sndbuf %u "
				      "rcvbuf %u inum %" PRIu64,
				      ntohl(is->bound_addr),
				      ntohs(is->bound_port), is->sndbuf,
				      is->rcvbuf, (uint64_t)is->inum);
			break;
		default:
			break;
		}
	}
}

static void
op_info(struct worker *w)
{
	static const int names[] = {
		RDS_INFO_COUNTERS, RDS_INFO_CONNECTIONS, RDS_INFO_SOCKETS,
		RDS_INFO_RECV_MESSAGES, RDS_INFO_SEND_MESSAGES,
		RDS_INFO_RETRANS_MESSAGES, RDS_INFO_RECV_MESSAGES,
		RDS_INFO_SOCKETS,
	};
	int name = names[rnd(w, 0, RTE_DIM(names) - 1)], h, r;
	socklen_t len = INFO_BUF;

	if (rnd(w, 0, 1)) {
		h = pick_handle(w);
		if (h < 0)
			return;
		r = rte_rds_getsockopt(h, SOL_RDS, name, w->ibuf, &len);
	} else {
		r = rte_rds_info(name, w->ibuf, &len);
	}
	if (r >= 0)
		info_check(w, name, len, r);
	count(w, OP_INFO, r >= 0, errno, E(EI_BADF) | E(EI_NOSPC));
}

/* bind of a socket that is bound: EINVAL. The handle may be a socket
 * that reused it and is not bound yet: it is bound to the address and
 * port of the incarnation registered on the handle, so that whatever
 * it sends or receives there is what that incarnation would. */
static void
op_rebind(struct worker *w)
{
	struct sockaddr_in sin;
	int h = pick_handle(w), r;

	if (h < 0)
		return;
	pthread_mutex_lock(&hs[h].tx_lock);
	pthread_mutex_lock(&hs[h].rx_lock);
	if (hs[h].inc == 0) {
		pthread_mutex_unlock(&hs[h].rx_lock);
		pthread_mutex_unlock(&hs[h].tx_lock);
		return;
	}
	sin = rds_test_sin(ips[hs[h].addr], hs[h].port);
	r = rte_rds_bind(h, (const struct sockaddr *)&sin, sizeof(sin));
	pthread_mutex_unlock(&hs[h].rx_lock);
	pthread_mutex_unlock(&hs[h].tx_lock);
	count(w, OP_REBIND, r == 0, errno,
	      E(EI_BADF) | E(EI_INVAL) | E(EI_ADDRINUSE));
}

static void
op_kick(struct worker *w)
{
	int r = rte_rds_engine_poll(0);

	/* EINVAL: the engine runs on its own lcore. */
	count(w, OP_KICK, r >= 0, errno, engine_inline ? 0 : E(EI_INVAL));
}

/* ------------------------------------------------------------------ */

static enum op
pick_op(struct worker *w)
{
	unsigned int r = (unsigned int)rnd(w, 0, op_total_weight - 1), i;

	for (i = 0; i < NOPS; i++) {
		if (r < op_weight[i])
			return (enum op)i;
		r -= op_weight[i];
	}
	return OP_KICK;
}

static void *
worker_main(void *arg)
{
	struct worker *w = arg;

	w->registered = rte_thread_register() == 0;
	if (!w->registered)
		wfail(w, "rte_thread_register: %s", rte_strerror(rte_errno));
	while (!w->failed && !__atomic_load_n(&stop_all, __ATOMIC_ACQUIRE)) {
		switch (pick_op(w)) {
		case OP_CREATE:
			op_create(w);
			break;
		case OP_CLOSE:
			op_close(w);
			break;
		case OP_CLOSE_ANY:
			op_close_any(w);
			break;
		case OP_SEND:
			op_send(w, false);
			break;
		case OP_SEND_BLOCK:
			op_send(w, true);
			break;
		case OP_RECV:
			op_recv(w, false);
			break;
		case OP_RECV_BLOCK:
			op_recv(w, true);
			break;
		case OP_BURST:
			op_burst(w);
			break;
		case OP_POLL:
			op_poll(w);
			break;
		case OP_ARM:
			op_arm(w);
			break;
		case OP_SETOPT:
			op_setopt(w);
			break;
		case OP_GETOPT:
			op_getopt(w);
			break;
		case OP_INFO:
			op_info(w);
			break;
		case OP_REBIND:
			op_rebind(w);
			break;
		default:
			op_kick(w);
			break;
		}
	}
	if (w->failed)
		__atomic_store_n(&stop_all, 1, __ATOMIC_RELEASE);
	if (w->registered)
		rte_thread_unregister();
	return NULL;
}

/* ------------------------------------------------------------------ */

struct mem {
	size_t libc;
	size_t dpdk;
};

static struct mem
mem_now(void)
{
	struct rte_malloc_socket_stats st;
	struct mallinfo2 mi = mallinfo2();
	struct mem m = { .libc = mi.uordblks + mi.hblkhd, .dpdk = 0 };
	int sock;

	for (sock = 0; sock < RTE_MAX_NUMA_NODES; sock++)
		if (rte_malloc_get_socket_stats(sock, &st) == 0)
			m.dpdk += st.heap_allocsz_bytes;
	return m;
}

/* Records in a snapshot (or -1). */
static long
info_records(int name)
{
	static uint8_t buf[64 << 10];
	socklen_t len = sizeof(buf);
	int r = rte_rds_info(name, buf, &len);

	return r > 0 ? (long)(len / (socklen_t)r) : r == 0 ? 0 : -1;
}

static void
print_ops(uint64_t *total_ops, uint64_t *ebadf)
{
	uint64_t ops, ok, e[NERR];
	unsigned int o, t, i;
	char line[512];
	int n;

	*total_ops = 0;
	*ebadf = 0;
	for (o = 0; o < NOPS; o++) {
		ops = ok = 0;
		memset(e, 0, sizeof(e));
		for (t = 0; t < NTHREADS; t++) {
			ops += workers[t].ops[o];
			ok += workers[t].ok[o];
			for (i = 0; i < NERR; i++)
				e[i] += workers[t].err[o][i];
		}
		*total_ops += ops;
		if (o == OP_SEND || o == OP_SEND_BLOCK || o == OP_RECV ||
		    o == OP_RECV_BLOCK)
			*ebadf += e[EI_BADF];
		n = snprintf(line, sizeof(line), "    %-18s %9" PRIu64
			     " calls, %9" PRIu64 " ok", op_names[o], ops, ok);
		for (i = 0; i < NERR && n < (int)sizeof(line); i++) {
			if (e[i] == 0)
				continue;
			n += snprintf(line + n, sizeof(line) - (size_t)n,
				      ", %s %" PRIu64, i < RTE_DIM(err_vals) ?
				      strerrorname_np(err_vals[i]) : "other",
				      e[i]);
		}
		printf("%s\n", line);
	}
}

static void
stress(bool inline_engine)
{
	const char *what = inline_engine ? "stress/inline-engine" :
					   "stress/lcore-engine";
	uint64_t secs = rds_test_env_u64("RDS_TEST_RACE_SECS", 4);
	uint64_t sent = 0, received = 0, late = 0, unordered = 0, records = 0;
	uint64_t total_ops, ebadf, t0;
	struct rte_rds_conf conf;
	struct rte_rds_stats st;
	struct mem m0, m1;
	pthread_attr_t attr;
	cpu_set_t cpus;
	unsigned int i, started = 0, orphans = 0, failed = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int h;

	rds_test_watchdog((unsigned int)secs + 100, what);
	engine_inline = inline_engine;
	/* Bookkeeping from scratch. */
	memset(hs, 0, sizeof(hs));
	for (h = 0; h < MAXH; h++) {
		pthread_mutex_init(&hs[h].tx_lock, NULL);
		pthread_mutex_init(&hs[h].rx_lock, NULL);
	}
	for (i = 0; i < NPOOL; i++) {
		pool[i] = -1;
		dest[i] = 0;
	}
	memset(inc_at, 0, sizeof(inc_at));
	memset(next_port, 0, sizeof(next_port));
	next_inc = 0;
	memset(workers, 0, sizeof(workers));
	stop_all = 0;
	op_total_weight = 0;
	for (i = 0; i < NOPS; i++)
		op_total_weight += op_weight[i];
	for (i = 0; i < NADDR; i++)
		addrs[i] = rds_test_sin(ips[i], 0);

	m0 = mem_now();
	rds_test_conf(&conf, inline_engine ? RTE_RDS_ENGINE_INLINE :
			     rds_test_worker_lcore(), RTE_RDS_IDLE_YIELD);
	conf.max_sockets = MAXH;
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);

	/* The EAL pinned this thread to lcore 0: the workers may run on
	 * every CPU, so that calls truly run at the same time. */
	CPU_ZERO(&cpus);
	for (i = 0; i < (unsigned int)ncpu && i < CPU_SETSIZE; i++)
		CPU_SET(i, &cpus);
	pthread_attr_init(&attr);
	pthread_attr_setaffinity_np(&attr, sizeof(cpus), &cpus);

	printf("\n  %s: %d threads, %d handles, %" PRIu64 " s, engine %s\n",
	       what, NTHREADS, NPOOL, secs, inline_engine ?
	       "inline (driven by the threads)" : "on its own lcore");
	for (i = 0; i < NTHREADS; i++) {
		struct worker *w = &workers[i];

		w->id = i;
		w->rng = 0x5eed0000ULL + i * 7919 + (inline_engine ? 0 : 1);
		w->sbuf = malloc(MAXLEN);
		w->rbuf = malloc(MAXLEN + 1);
		w->want = malloc(MAXLEN);
		w->ibuf = malloc(INFO_BUF);
		CU_ASSERT_FATAL(w->sbuf != NULL && w->rbuf != NULL &&
				w->want != NULL && w->ibuf != NULL);
		if (pthread_create(&w->th, &attr, worker_main, w) != 0)
			break;
		started++;
	}
	pthread_attr_destroy(&attr);
	CU_ASSERT_FATAL(started == NTHREADS);

	t0 = rds_test_now_ns();
	while (rds_test_since_s(t0) < (double)secs &&
	       !__atomic_load_n(&stop_all, __ATOMIC_ACQUIRE))
		rds_test_usleep(10000);
	__atomic_store_n(&stop_all, 1, __ATOMIC_RELEASE);
	/* Every blocking call ends within TIMEO_MS, or when its socket is
	 * closed; closing every handle ends the others. */
	for (i = 0; i < NTHREADS; i++) {
		struct timespec ts;

		for (;;) {
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 2;
			if (pthread_timedjoin_np(workers[i].th, NULL, &ts) == 0)
				break;
			printf("  thread %u still running after the end: "
			       "closing every handle\n", i);
			for (h = 0; h < MAXH; h++)
				rte_rds_close(h);
			CU_ASSERT_FATAL(rds_test_since_s(t0) < secs + 60);
		}
	}
	printf("  %s: ran %.2f s\n", what, rds_test_since_s(t0));

	for (i = 0; i < NTHREADS; i++) {
		struct worker *w = &workers[i];

		if (w->failed) {
			failed++;
			printf("  thread %u failed: %s\n", i, w->why);
		}
		sent += w->sent;
		received += w->received;
		late += w->late;
		unordered += w->unordered;
		records += w->records;
		free(w->sbuf);
		free(w->rbuf);
		free(w->want);
		free(w->ibuf);
	}
	print_ops(&total_ops, &ebadf);
	printf("  %" PRIu64 " operations: %" PRIu64 " messages sent, %" PRIu64
	       " received and checked, %" PRIu64 " to an older socket on "
	       "the same port, %" PRIu64 " not checked for order, %" PRIu64
	       " RDS_INFO records checked, %" PRIu64 " incarnations\n",
	       total_ops, sent, received, late, unordered, records,
	       __atomic_load_n(&next_inc, __ATOMIC_RELAXED));
	CU_ASSERT_EQUAL(failed, 0);
	/* The run did race: sockets came and went, messages flowed. */
	CU_ASSERT(received > 0);
	CU_ASSERT(total_ops > 1000);
	CU_ASSERT(ebadf > 0);

	/* Close everything: the pool, then any handle left over. */
	for (i = 0; i < NPOOL; i++) {
		h = __atomic_exchange_n(&pool[i], -1, __ATOMIC_ACQ_REL);
		if (h >= 0)
			rte_rds_close(h);
	}
	for (h = 0; h < MAXH; h++)
		if (rte_rds_close(h) == 0)
			orphans++;
	if (orphans != 0)
		printf("  %u sockets outside the pool closed at the end\n",
		       orphans);
	/* Nothing left inside the library. */
	if (inline_engine)
		rds_test_kick_n(100);
	else
		rds_test_usleep(20000);
	CU_ASSERT_EQUAL(info_records(RDS_INFO_SOCKETS), 0);
	CU_ASSERT_EQUAL(info_records(RDS_INFO_RECV_MESSAGES), 0);
	CU_ASSERT_EQUAL(info_records(RDS_INFO_SEND_MESSAGES), 0);
	CU_ASSERT_EQUAL(info_records(RDS_INFO_RETRANS_MESSAGES), 0);
	st = rds_test_stats();
	rds_test_stats_print("  engine counters:", &st);
	/* Every message sendmsg took was queued, then acknowledged or
	 * cancelled (by close or RDS_CANCEL_SENT_TO). */
	CU_ASSERT_EQUAL(st.s_send_queued, sent);
	CU_ASSERT_EQUAL(st.s_send_queued, st.s_send_acked +
			st.s_send_cancelled);
	CU_ASSERT(received <= st.s_recv_delivered);
	CU_ASSERT_EQUAL(st.s_recv_drop_bad_hdr, 0);
	CU_ASSERT_EQUAL(st.s_recv_drop_nomem, 0);

	CU_ASSERT(rds_test_lib_fini() == 0);
	m1 = mem_now();
	printf("  memory before rte_rds_init -> after rte_rds_fini: libc %zu "
	       "-> %zu, dpdk %zu -> %zu\n", m0.libc, m1.libc, m0.dpdk,
	       m1.dpdk);
	if (m1.libc == 0)
		printf("  libc heap not measurable here (mallinfo2 reports 0, "
		       "as under ASan): leaks are left to LeakSanitizer\n");
	CU_ASSERT(m1.dpdk <= m0.dpdk);
	CU_ASSERT(m1.libc <= m0.libc + LIBC_SLACK);
	for (h = 0; h < MAXH; h++) {
		pthread_mutex_destroy(&hs[h].tx_lock);
		pthread_mutex_destroy(&hs[h].rx_lock);
	}
	rds_test_watchdog(0, NULL);
}

static void
test_stress_inline(void)
{
	stress(true);
}

static void
test_stress_lcore(void)
{
	stress(false);
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "stress_inline_engine", test_stress_inline },
		{ "stress_lcore_engine", test_stress_lcore },
		{ NULL, NULL },
	};
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	rds_test_eal_init("race_stress", "0-1");
	rc = rds_test_run_suite("race_stress", cases);
	rds_test_eal_fini();
	return rc;
}

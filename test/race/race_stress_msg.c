/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * race_stress: the random calls on sockets and messages (socket + bind,
 * close, sendmsg, recvmsg, rte_rds_recv_burst) and readiness
 * (rte_rds_poll, rte_rds_event_arm).
 */

#include "race_stress.h"

/* ------------------------------------------------------------------ */
/* socket + bind, close */

void
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

void
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
void
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

void
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

void
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

void
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

void
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

void
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


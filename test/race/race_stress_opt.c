/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * race_stress: the random calls on options and snapshots (setsockopt,
 * SO_TIMESTAMP, SO_RDS_MSG_RXPATH_LATENCY and RDS_CONN_RESET among them,
 * getsockopt, RDS_INFO_*, bind of a bound socket, rte_rds_engine_poll).
 */

#include "race_stress.h"

/* ------------------------------------------------------------------ */
/* Options and snapshots */

void
op_setopt(struct worker *w)
{
	uint32_t allowed = E(EI_BADF);
	struct sockaddr_in sin;
	struct timeval tv;
	uint32_t d;
	int h = pick_handle(w), v, r;

	if (h < 0)
		return;
	switch (rnd(w, 0, 9)) {
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
	case 6:
		/* Arrival stamps and receive-path traces on and off while
		 * messages come. */
		v = (int)rnd(w, 0, 1);
		if (rnd(w, 0, 1)) {
			struct rds_rx_trace_so t = {
				.rx_traces = (uint8_t)rnd(w, 0, 3),
				.rx_trace_pos = { 2, 0, 1 },
			};

			r = rte_rds_setsockopt(h, SOL_RDS,
					       SO_RDS_MSG_RXPATH_LATENCY, &t,
					       sizeof(t));
			break;
		}
		r = rte_rds_setsockopt(h, SOL_SOCKET,
				       rnd(w, 0, 1) ? SO_TIMESTAMP_OLD :
						      SO_TIMESTAMP_NEW,
				       &v, sizeof(v));
		break;
	case 7:
		/* Now and then, UEK's connection reset of every connection
		 * from one address: RDS sends again what was not
		 * acknowledged; nothing lost or twice. */
		if (rnd(w, 0, 15) != 0) {
			v = 0;
			r = rte_rds_setsockopt(h, SOL_RDS, RDS_RECVERR, &v,
					       sizeof(v));
			break;
		}
		{
			struct rte_rds_reset rr;

			memset(&rr, 0, sizeof(rr));
			rr.src.s_addr = inet_addr(ips[rnd(w, 0, NADDR - 1)]);
			r = rte_rds_setsockopt(h, SOL_RDS, RTE_RDS_CONN_RESET,
					       &rr, sizeof(rr));
		}
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

void
op_getopt(struct worker *w)
{
	struct timeval tv;
	socklen_t len;
	int h = pick_handle(w), v = -1, r, which;

	if (h < 0)
		return;
	which = (int)rnd(w, 0, 6);
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
	case 6:
		/* Takes a pending error: none, or a message the engine
		 * could not keep (ENOMEM). */
		r = rte_rds_getsockopt(h, SOL_SOCKET, SO_ERROR, &v, &len);
		if (r == 0 && v != 0 && v != ENOMEM)
			wfail(w, "SO_ERROR %d", v);
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

void
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
void
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

void
op_kick(struct worker *w)
{
	int r = rte_rds_engine_poll(0);

	/* EINVAL: the engine runs on its own lcore. */
	count(w, OP_KICK, r >= 0, errno, engine_inline ? 0 : E(EI_INVAL));
}


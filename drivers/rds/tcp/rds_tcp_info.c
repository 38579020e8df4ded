/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the tcp transport tells through the core's ops: RDS_INFO_TCP_SOCKETS
 * and RDS6_INFO_TCP_SOCKETS (net/rds/tcp.c rds_tcp_tc_info: one record
 * per connected socket; the IPv4 records skip IPv6 connections, the
 * IPv6 ones have all, IPv4 v4-mapped), and the counters (rte_rds_xstats_get("tcp"), of
 * which rte_rds_tcp_stats_get() is the typed view).
 *
 * The kernel's last_sent_nxt, last_expected_una and last_seen_una are
 * TCP sequence numbers; ours count the socket's bytes from 0 (the start
 * of the last message written, its end, and the bytes acknowledged), mod
 * 2^32: the same differences, without the initial sequence number.
 */
#include <string.h>
#include <arpa/inet.h>

#include "rds_tcp.h"

static void
rds_tcp_info_lane(struct rds_info_req *r, const struct rds_conn *c,
		  const struct rds_tcp_lane *l)
{
	uint64_t hdr_rem, data_rem, last_end = l->written, last_start;

	rds_tcp_rx_rem(&l->rx, &hdr_rem, &data_rem);
	if (l->sent_n != 0)
		last_end = l->sent[(l->sent_head + l->sent_n - 1) %
				   l->sent_max].end;
	last_start = l->sent_n > 1 ? l->sent[(l->sent_head + l->sent_n - 2) %
					      l->sent_max].end : l->acked;
	if (r->name == RDS6_INFO_TCP_SOCKETS) {
		struct rds6_info_tcp_socket ts;

		memset(&ts, 0, sizeof(ts));
		memcpy(&ts.local_addr, &c->key.laddr, sizeof(ts.local_addr));
		memcpy(&ts.peer_addr, &c->key.faddr, sizeof(ts.peer_addr));
		ts.local_port = htons(l->lport);
		ts.peer_port = htons(l->pport);
		ts.hdr_rem = hdr_rem;
		ts.data_rem = data_rem;
		ts.last_sent_nxt = (uint32_t)last_start;
		ts.last_expected_una = (uint32_t)last_end;
		ts.last_seen_una = (uint32_t)l->acked;
		rds_info_put(r, &ts);
	} else if (rds_addr_is_v4(&c->key.laddr)) {
		/* The IPv4 records skip IPv6 connections (rds_tcp_tc_info);
		 * RDS6_INFO_TCP_SOCKETS has every one, IPv4 v4-mapped. */
		struct rds_info_tcp_socket ts;

		memset(&ts, 0, sizeof(ts));
		ts.local_addr = rds_addr_v4(&c->key.laddr);
		ts.peer_addr = rds_addr_v4(&c->key.faddr);
		ts.local_port = htons(l->lport);
		ts.peer_port = htons(l->pport);
		ts.hdr_rem = hdr_rem;
		ts.data_rem = data_rem;
		ts.last_sent_nxt = (uint32_t)last_start;
		ts.last_expected_una = (uint32_t)last_end;
		ts.last_seen_una = (uint32_t)l->acked;
		rds_info_put(r, &ts);
	}
}

void
rds_tcp_info(struct rds_engine *e, struct rds_info_req *r)
{
	const struct rds_conn *c;

	if (r->name != RDS_INFO_TCP_SOCKETS &&
	    r->name != RDS6_INFO_TCP_SOCKETS)
		return;
	TAILQ_FOREACH(c, &e->conns, link) {
		const struct rds_tcp_conn *tc = c->tp;

		if (c->trans != &rds_tcp_transport || tc == NULL ||
		    tc->lane.st != RDS_TCP_L_UP)
			continue;
		rds_tcp_info_lane(r, c, &tc->lane);
	}
}

/* ------------------------------------------------------------------ */
/* Counters */

#define TCP_XSTAT(f) #f
const char *const rds_tcp_xstat_names[] = {
	TCP_XSTAT(connects), TCP_XSTAT(connect_fails), TCP_XSTAT(accepts),
	TCP_XSTAT(knocks), TCP_XSTAT(knocks_answered),
	TCP_XSTAT(accept_replaced), TCP_XSTAT(accept_refused),
	TCP_XSTAT(accept_handoffs),
	TCP_XSTAT(accept_waits_expired), TCP_XSTAT(tx_msgs),
	TCP_XSTAT(tx_bytes), TCP_XSTAT(tx_calls), TCP_XSTAT(tx_partial),
	TCP_XSTAT(tx_window_full), TCP_XSTAT(tx_acked_msgs),
	TCP_XSTAT(ack_checks), TCP_XSTAT(rx_msgs), TCP_XSTAT(rx_bytes),
	TCP_XSTAT(rx_calls), TCP_XSTAT(rx_bad_frames), TCP_XSTAT(rx_stalls),
	TCP_XSTAT(epoll_waits), TCP_XSTAT(resets),
	TCP_XSTAT(resets_injected),
};
#undef TCP_XSTAT

_Static_assert(sizeof(rds_tcp_xstat_names) / sizeof(rds_tcp_xstat_names[0])
	       == RDS_TCP_NB_XSTATS, "a name per counter");
_Static_assert(sizeof(struct rte_rds_tcp_stats) ==
	       sizeof(struct rds_tcp_stats), "the public view");

void
rds_tcp_xstats(struct rds_engine *e, uint64_t *v)
{
	struct rds_tcp_engine *te = rds_tcp_engine(e);
	const uint64_t *s;
	unsigned int i;

	if (te == NULL)
		return;
	s = (const uint64_t *)&te->stats;
	for (i = 0; i < RDS_TCP_NB_XSTATS; i++)
		v[i] += s[i];
}

int
rte_rds_tcp_stats_get(struct rte_rds_tcp_stats *st)
{
	struct rte_rds_xstat xs[RDS_TCP_NB_XSTATS];
	uint64_t *v = (uint64_t *)st;
	unsigned int i;

	if (rds_lib == NULL)
		return RDS_ERR(ENXIO);
	if (st == NULL)
		return RDS_ERR(EINVAL);
	if (rte_rds_xstats_get("tcp", xs, RDS_TCP_NB_XSTATS) < 0)
		return -1;
	for (i = 0; i < RDS_TCP_NB_XSTATS; i++)
		v[i] = xs[i].value;
	return 0;
}

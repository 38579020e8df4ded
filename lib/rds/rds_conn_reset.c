/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDS_CONN_RESET and RDS6_CONN_RESET, the connection reset a program asks
 * for (Oracle's UEK kernels, net/rds/af_rds.c rds_user_reset; rds-tools
 * has their numbers): the connections from an address to another (or to
 * every other when the destination is 0) are dropped, as a transport
 * error would drop them, and come back with the kernel's retransmission
 * of what was not acknowledged. Like the kernel's, the call succeeds when
 * no connection matches; a destination names the connection of the
 * socket's transport (none before bind or SO_RDS_TRANSPORT, so nothing),
 * a destination 0 those of every transport. TOS: there is one connection
 * per pair here, of TOS 0; a reset for another TOS matches nothing.
 *
 * Connections live on engines: each engine drops its own, called from
 * this thread (rds_engine_call_wait).
 */
#include <errno.h>

#include "rds_private.h"

struct rds_reset_req {
	struct in6_addr laddr;
	struct in6_addr faddr;
	bool any_faddr;			/* destination 0: every connection */
	uint32_t trans_id;
	unsigned int dropped;
};

static void
rds_conn_reset_call(struct rds_engine *e, void *arg)
{
	struct rds_reset_req *q = arg;
	struct rds_conn *c;

	TAILQ_FOREACH(c, &e->conns, link) {
		if (!rds_addr_eq(&c->key.laddr, &q->laddr))
			continue;
		if (!q->any_faddr && (c->key.trans_id != q->trans_id ||
				      !rds_addr_eq(&c->key.faddr, &q->faddr)))
			continue;
		rds_conn_drop(c);
		q->dropped++;
	}
}

static bool
rds_addr_is_mapped(const struct in6_addr *a)
{
	static const uint8_t pfx[12] = { [10] = 0xff, [11] = 0xff };

	return memcmp(a->s6_addr, pfx, sizeof(pfx)) == 0;
}

static bool
rds_addr_is_any(const struct in6_addr *a)
{
	static const struct in6_addr zero;

	return memcmp(a, &zero, sizeof(zero)) == 0;
}

int
rds_conn_user_reset(struct rds_sock *rs, const void *optval, socklen_t optlen,
		    bool v6)
{
	struct rds_reset_req q;
	uint8_t tos;
	unsigned int i;
	int ret;

	ret = rds_uarg_optval(optval, optlen,
			      v6 ? sizeof(struct rte_rds6_reset) :
				   sizeof(struct rte_rds_reset), true);
	if (ret != 0)
		return ret;
	memset(&q, 0, sizeof(q));
	if (v6) {
		struct rte_rds6_reset r;

		memcpy(&r, optval, sizeof(r));
		tos = r.tos;
		/* Only IPv4 here: an IPv6 source is no address of ours. */
		if (!rds_addr_is_mapped(&r.src))
			return 0;
		q.laddr = r.src;
		q.faddr = r.dst;
		q.any_faddr = rds_addr_is_any(&r.dst) ||
			      (rds_addr_is_mapped(&r.dst) &&
			       rds_addr_v4(&r.dst) == 0);
		if (!q.any_faddr && !rds_addr_is_mapped(&r.dst))
			return 0;
	} else {
		struct rte_rds_reset r;

		memcpy(&r, optval, sizeof(r));
		tos = r.tos;
		rds_addr_from_v4(&q.laddr, r.src.s_addr);
		rds_addr_from_v4(&q.faddr, r.dst.s_addr);
		q.any_faddr = r.dst.s_addr == 0;
	}
	/*
	 * An attached process resets only what its socket sends from: the
	 * kernel lets any local program reset any connection, but an
	 * engine keeps each client to what it owns (rds-engined(8),
	 * TRUST), and a reset delays the others' messages.
	 */
	if (rs->client != NULL &&
	    (!rs->f.bound || !rds_addr_eq(&rs->f.bound_addr, &q.laddr)))
		return -EPERM;
	if (tos != 0)
		return 0;
	if (!q.any_faddr) {
		if (rs->f.trans_pinned != (uint32_t)RDS_TRANS_NONE)
			q.trans_id = rs->f.trans_pinned;
		else if (rs->f.bound)
			q.trans_id = rs->la->trans->trans_id;
		else
			return 0;	/* no transport: no connection */
	}
	for (i = 0; i < rds_lib->nb_engines; i++) {
		ret = rds_engine_call_wait(i, rds_conn_reset_call, &q);
		if (ret != 0)
			return ret;
	}
	RDS_LOG(DEBUG, "connection reset asked for: %u dropped", q.dropped);
	return 0;
}

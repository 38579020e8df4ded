/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the ib transport tells through the core's ops: the
 * RDS_INFO_IB_CONNECTIONS records (net/rds/ib.c's connection visitor:
 * one per ib connection, its queue pair's figures once it is up) and the
 * counters (rte_rds_xstats_get("ib"), of which rte_rds_ib_stats_get() is
 * the typed view).
 */
#include <string.h>

#include "rds_ib.h"

/* The GIDs and rings of an established connection; zero otherwise, as
 * the kernel's visitor leaves them. */
static void
rds_ib_info_qp(const struct rds_ib_conn *ic, uint8_t *src_gid,
	       uint8_t *dst_gid, uint32_t *max_send_wr, uint32_t *max_recv_wr,
	       uint32_t *max_send_sge, uint32_t *mr_max, uint32_t *mr_size)
{
	const struct rdma_ib_addr *ia;

	if (ic == NULL || ic->cstate != RDS_IB_ESTABLISHED ||
	    ic->cm_id == NULL || ic->qp == NULL)
		return;
	ia = &ic->cm_id->route.addr.addr.ibaddr;
	memcpy(src_gid, ia->sgid.raw, RDS_IB_GID_LEN);
	memcpy(dst_gid, ia->dgid.raw, RDS_IB_GID_LEN);
	*max_send_wr = ic->nsend;
	/* From the SRQ: the most receives it may post for all. */
	*max_recv_wr = ic->srq ? ic->ed->rx_max : ic->nrecv;
	*max_send_sge = ic->max_send_sge;
	/* Regions are registered one by one, not from a pool: the most
	 * regions and the most pages in one. */
	*mr_max = RDS_MR_MAX;
	*mr_size = (uint32_t)RDS_MR_MAX_PAGES;
}

static void
rds_ib_info_conn(struct rds_info_req *r, const struct rds_conn *c)
{
	const struct rds_ib_conn *ic = c->tp;

	if (r->name == RDS6_INFO_IB_CONNECTIONS) {
		struct rds6_info_rdma_connection ri;

		memset(&ri, 0, sizeof(ri));
		memcpy(&ri.src_addr, &c->key.laddr, sizeof(ri.src_addr));
		memcpy(&ri.dst_addr, &c->key.faddr, sizeof(ri.dst_addr));
		rds_ib_info_qp(ic, ri.src_gid, ri.dst_gid, &ri.max_send_wr,
			       &ri.max_recv_wr, &ri.max_send_sge,
			       &ri.rdma_mr_max, &ri.rdma_mr_size);
		rds_info_put(r, &ri);
	} else {
		struct rds_info_rdma_connection ri;

		memset(&ri, 0, sizeof(ri));
		ri.src_addr = rds_addr_v4(&c->key.laddr);
		ri.dst_addr = rds_addr_v4(&c->key.faddr);
		rds_ib_info_qp(ic, ri.src_gid, ri.dst_gid, &ri.max_send_wr,
			       &ri.max_recv_wr, &ri.max_send_sge,
			       &ri.rdma_mr_max, &ri.rdma_mr_size);
		rds_info_put(r, &ri);
	}
}

void
rds_ib_info(struct rds_engine *e, struct rds_info_req *r)
{
	const struct rds_conn *c;

	if (r->name != RDS_INFO_IB_CONNECTIONS &&
	    r->name != RDS6_INFO_IB_CONNECTIONS)
		return;
	/* The IPv4 name reports IPv4 connections only (net/rds/ib.c
	 * rds_ib_conn_info_visitor: c_isv6), the IPv6 one every one. */
	TAILQ_FOREACH(c, &e->conns, link)
		if (c->trans == &rds_ib_transport &&
		    (r->name == RDS6_INFO_IB_CONNECTIONS ||
		     rds_addr_is_v4(&c->key.laddr)))
			rds_ib_info_conn(r, c);
}

/* ------------------------------------------------------------------ */
/* Counters */

#define IB_XSTAT(f) #f
const char *const rds_ib_xstat_names[] = {
	IB_XSTAT(connects_active), IB_XSTAT(connects_passive),
	IB_XSTAT(connect_raced), IB_XSTAT(listen_closed_stale),
	IB_XSTAT(rejects_incompat), IB_XSTAT(connects_proto4),
	IB_XSTAT(cm_errors),
	IB_XSTAT(tx_frames), IB_XSTAT(tx_ring_full), IB_XSTAT(rx_frames),
	IB_XSTAT(rx_frag_mismatch), IB_XSTAT(qp_errors),
	IB_XSTAT(qp_errors_injected), IB_XSTAT(flowctl_conns),
	IB_XSTAT(credit_stalls), IB_XSTAT(credits_advertised),
	IB_XSTAT(rx_post_calls), IB_XSTAT(rx_seq_gaps), IB_XSTAT(stalls),
	IB_XSTAT(connect_timeouts), IB_XSTAT(connect_replaced),
	IB_XSTAT(rx_stalls_injected), IB_XSTAT(tx_post_calls),
	IB_XSTAT(tx_wrs_posted), IB_XSTAT(tx_acks),
	IB_XSTAT(tx_acks_piggybacked), IB_XSTAT(tx_acks_limited),
	IB_XSTAT(tx_zc_frames), IB_XSTAT(tx_zc_bytes),
	IB_XSTAT(tx_zc_released), IB_XSTAT(tx_zc_regs),
	IB_XSTAT(tx_zc_reg_fails), IB_XSTAT(rx_srq_grows),
	IB_XSTAT(rx_srq_limit_events), IB_XSTAT(rx_srq_dry),
	IB_XSTAT(rx_srq_flushed), IB_XSTAT(rx_stale_wcs),
	IB_XSTAT(tx_copy_waits), IB_XSTAT(rx_srq_orphans),
	IB_XSTAT(rx_srq_posted), IB_XSTAT(rx_srq_orphans_out),
	IB_XSTAT(mem_rx_bytes), IB_XSTAT(mem_tx_bytes),
	IB_XSTAT(mem_bounce_bytes), IB_XSTAT(mem_wr_bytes),
};
#undef IB_XSTAT

_Static_assert(sizeof(rds_ib_xstat_names) / sizeof(rds_ib_xstat_names[0]) ==
	       RDS_IB_NB_XSTATS, "a name per counter");

void
rds_ib_xstats(struct rds_engine *e, uint64_t *v)
{
	struct rds_ib_engine *ie = rds_ib_engine(e);
	const uint64_t *s;
	unsigned int i;

	if (ie == NULL)
		return;
	s = (const uint64_t *)&ie->stats;
	for (i = 0; i < RDS_IB_NB_XSTATS; i++)
		v[i] += s[i];
}

int
rte_rds_ib_stats_get(struct rte_rds_ib_stats *st)
{
	struct rte_rds_xstat xs[RDS_IB_NB_XSTATS];
	uint64_t *v = (uint64_t *)st;
	unsigned int i;

	if (rds_lib == NULL)
		return RDS_ERR(ENXIO);
	if (st == NULL)
		return RDS_ERR(EINVAL);
	if (rte_rds_xstats_get("ib", xs, RDS_IB_NB_XSTATS) < 0)
		return -1;
	for (i = 0; i < RDS_IB_NB_XSTATS; i++)
		v[i] = xs[i].value;
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* Counters: kept per engine without atomics, summed on read. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "rds_private.h"

#define RDS_STAT_NAME(f) [offsetof(struct rte_rds_stats, f) / sizeof(uint64_t)] = #f

static const char *const rds_stat_names[RTE_RDS_STATS_NUM] = {
	RDS_STAT_NAME(s_polls),
	RDS_STAT_NAME(s_idle_polls),
	RDS_STAT_NAME(s_send_queued),
	RDS_STAT_NAME(s_send_xmit),
	RDS_STAT_NAME(s_send_ack_required),
	RDS_STAT_NAME(s_send_retransmit),
	RDS_STAT_NAME(s_send_pong),
	RDS_STAT_NAME(s_send_ack),
	RDS_STAT_NAME(s_send_cong_map),
	RDS_STAT_NAME(s_send_acked),
	RDS_STAT_NAME(s_send_cancelled),
	RDS_STAT_NAME(s_recv_delivered),
	RDS_STAT_NAME(s_recv_drop_old_seq),
	RDS_STAT_NAME(s_recv_drop_no_sock),
	RDS_STAT_NAME(s_recv_drop_dead_sock),
	RDS_STAT_NAME(s_recv_drop_bad_hdr),
	RDS_STAT_NAME(s_recv_drop_nomem),
	RDS_STAT_NAME(s_recv_ping),
	RDS_STAT_NAME(s_recv_pong),
	RDS_STAT_NAME(s_recv_ack),
	RDS_STAT_NAME(s_recv_cong_map),
	RDS_STAT_NAME(s_cong_update_queued),
	RDS_STAT_NAME(s_conn_reset),
	RDS_STAT_NAME(s_conn_connect),
	RDS_STAT_NAME(s_conn_reconnect_delayed),
	RDS_STAT_NAME(s_late_passes),
	RDS_STAT_NAME(s_send_drop_nomem),
	RDS_STAT_NAME(s_rdma_bad_key),
	RDS_STAT_NAME(s_rdma_stale_key),
	RDS_STAT_NAME(s_rdma_bad_key_reset),
	RDS_STAT_NAME(s_rdma_held),
	RDS_STAT_NAME(s_send_cong_map_bytes),
};

const char *
rte_rds_stats_name(unsigned int idx)
{
	return idx < RTE_RDS_STATS_NUM ? rds_stat_names[idx] : NULL;
}

int
rte_rds_stats_get(int engine_id, struct rte_rds_stats *stats)
{
	const uint64_t *src;
	uint64_t *dst;
	unsigned int e, i;

	RDS_CLIENT_OR(rds_client_stats(engine_id, stats));
	if (rds_lib == NULL)
		return RDS_ERR(ENXIO);
	if (stats == NULL || engine_id < -1 ||
	    (engine_id >= 0 && (unsigned int)engine_id >= rds_lib->nb_engines))
		return RDS_ERR(EINVAL);
	memset(stats, 0, sizeof(*stats));
	dst = (uint64_t *)stats;
	for (e = 0; e < rds_lib->nb_engines; e++) {
		if (engine_id >= 0 && e != (unsigned int)engine_id)
			continue;
		src = (const uint64_t *)&rds_lib->engines[e]->stats;
		for (i = 0; i < RTE_RDS_STATS_NUM; i++)
			dst[i] += __atomic_load_n(&src[i], __ATOMIC_RELAXED);
	}
	return 0;
}

/* Transport counters: the driver names them and adds each engine's. */
static int
rds_xstats_sum(const struct rds_transport *t, uint64_t *values)
{
	unsigned int e;

	memset(values, 0, sizeof(*values) * t->nb_xstats);
	for (e = 0; e < rds_lib->nb_engines; e++)
		t->xstats(rds_lib->engines[e], values);
	return (int)t->nb_xstats;
}

static const struct rds_transport *
rds_xstats_transport(const char *transport)
{
	const struct rds_transport *t;

	if (rds_lib == NULL) {
		RDS_ERR(ENXIO);
		return NULL;
	}
	if (transport == NULL) {
		RDS_ERR(EINVAL);
		return NULL;
	}
	t = rds_transport_by_name(transport);
	if (t == NULL) {
		RDS_ERR(ENODEV);
		return NULL;
	}
	return t;
}

int
rte_rds_xstats_get(const char *transport, struct rte_rds_xstat *xs,
		   unsigned int n)
{
	const struct rds_transport *t;
	uint64_t *v;
	unsigned int i;

	RDS_CLIENT_OR(rds_client_xstats(transport, xs, n));
	t = rds_xstats_transport(transport);
	if (t == NULL)
		return -1;
	if (t->xstats == NULL || t->nb_xstats == 0)
		return 0;
	if (xs == NULL || n == 0)
		return (int)t->nb_xstats;
	v = calloc(t->nb_xstats, sizeof(*v));
	if (v == NULL)
		return RDS_ERR(ENOMEM);
	rds_xstats_sum(t, v);
	for (i = 0; i < n && i < t->nb_xstats; i++) {
		snprintf(xs[i].name, sizeof(xs[i].name), "%s",
			 t->xstat_names[i]);
		xs[i].value = v[i];
	}
	free(v);
	return (int)t->nb_xstats;
}

int
rte_rds_xstat_get(const char *transport, const char *name, uint64_t *value)
{
	const struct rds_transport *t;
	uint64_t *v;
	unsigned int i;

	RDS_CLIENT_OR(rds_client_xstat(transport, name, value));
	t = rds_xstats_transport(transport);
	if (t == NULL)
		return -1;
	if (name == NULL || value == NULL)
		return RDS_ERR(EINVAL);
	for (i = 0; i < t->nb_xstats; i++)
		if (strcmp(t->xstat_names[i], name) == 0)
			break;
	if (t->xstats == NULL || i == t->nb_xstats)
		return RDS_ERR(ENOENT);
	v = calloc(t->nb_xstats, sizeof(*v));
	if (v == NULL)
		return RDS_ERR(ENOMEM);
	rds_xstats_sum(t, v);
	*value = v[i];
	free(v);
	return 0;
}

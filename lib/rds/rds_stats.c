/* SPDX-License-Identifier: BSD-3-Clause */
/* Counters: kept per engine without atomics, summed on read. */
#include <errno.h>

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

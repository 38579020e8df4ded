/* SPDX-License-Identifier: BSD-3-Clause */
/* The library instance: configuration, set-up and tear-down. */
#include <errno.h>
#include <stdio.h>
#include <arpa/inet.h>

#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_memory.h>

#include "rds_private.h"

RTE_LOG_REGISTER_DEFAULT(rds_logtype, INFO);

struct rds_lib *rds_lib;

void
rte_rds_conf_init(struct rte_rds_conf *conf)
{
	unsigned int i;

	if (conf == NULL)
		return;
	memset(conf, 0, sizeof(*conf));
	conf->nb_engines = 1;
	for (i = 0; i < RTE_RDS_MAX_ENGINES; i++) {
		conf->engine[i].lcore_id = RTE_RDS_ENGINE_INLINE;
		conf->engine[i].idle = RTE_RDS_IDLE_YIELD;
		conf->engine[i].idle_polls = 1024;
		conf->engine[i].idle_sleep_us = 50;
	}
	conf->max_sockets = 1024;
	conf->nb_small_bufs = 32767;
	conf->sndbuf_default = 212992;
	conf->rcvbuf_default = 212992;
	conf->reconnect_min_ms = 1;
	conf->reconnect_max_ms = 1000;
	conf->max_unacked_packets = 8;
	conf->max_unacked_bytes = 16u << 20;
	conf->socket_id = SOCKET_ID_ANY;
	conf->ib_cm_port = 18634;
	conf->ib_send_wr = 256;
	conf->ib_recv_wr = 1024;
	conf->ib_flow_control = 1;
	conf->ib_stall_ms = 5000;
}

int
rte_rds_conf_add_addr(struct rte_rds_conf *conf, const char *ip,
		      const char *transport, const char *dev)
{
	struct rte_rds_addr_conf *ac;
	struct in_addr a;

	if (conf == NULL || ip == NULL || transport == NULL ||
	    inet_pton(AF_INET, ip, &a) != 1 ||
	    strlen(transport) >= RTE_RDS_NAMESIZE ||
	    (dev != NULL && strlen(dev) >= RTE_RDS_NAMESIZE))
		return RDS_ERR(EINVAL);
	if (conf->nb_addrs >= RTE_RDS_MAX_ADDRS)
		return RDS_ERR(ENOSPC);
	ac = &conf->addr[conf->nb_addrs++];
	memset(ac, 0, sizeof(*ac));
	ac->addr = a;
	snprintf(ac->transport, sizeof(ac->transport), "%s", transport);
	if (dev != NULL)
		snprintf(ac->dev, sizeof(ac->dev), "%s", dev);
	return 0;
}

static int
rds_conf_check(const struct rte_rds_conf *conf)
{
	unsigned int i, j;

	if (conf->nb_engines == 0 || conf->nb_engines > RTE_RDS_MAX_ENGINES ||
	    conf->nb_addrs > RTE_RDS_MAX_ADDRS || conf->max_sockets == 0 ||
	    conf->reconnect_min_ms == 0 ||
	    conf->reconnect_max_ms < conf->reconnect_min_ms ||
	    conf->max_unacked_packets == 0 || conf->nb_small_bufs < 64)
		return -EINVAL;
	for (i = 0; i < conf->nb_engines; i++)
		if ((unsigned int)conf->engine[i].idle > RTE_RDS_IDLE_SLEEP)
			return -EINVAL;
	for (i = 0; i < conf->nb_addrs; i++) {
		uint32_t a = ntohl(conf->addr[i].addr.s_addr);

		if (a == INADDR_ANY || a == INADDR_BROADCAST || IN_MULTICAST(a))
			return -EINVAL;
		for (j = 0; j < i; j++)
			if (conf->addr[j].addr.s_addr ==
			    conf->addr[i].addr.s_addr)
				return -EINVAL;
	}
	return 0;
}

static int
rds_laddrs_init(const struct rte_rds_conf *conf)
{
	unsigned int i;
	int ret;

	for (i = 0; i < conf->nb_addrs; i++) {
		struct rds_laddr *la = &rds_lib->laddrs[i];

		la->index = i;
		rds_addr_from_v4(&la->addr, conf->addr[i].addr.s_addr);
		memcpy(la->dev, conf->addr[i].dev, sizeof(la->dev));
		la->trans = rds_transport_by_name(conf->addr[i].transport);
		if (la->trans == NULL) {
			RDS_LOG(ERR, "address %u: unknown transport '%s'", i,
				conf->addr[i].transport);
			return -EINVAL;
		}
		if (la->trans->laddr_check != NULL) {
			ret = la->trans->laddr_check(la);
			if (ret != 0)
				return ret;
		}
		la->cong = rds_cong_map_get(&la->addr);
		if (la->cong == NULL)
			return -ENOMEM;
		rds_lib->nb_laddrs = i + 1;
	}
	return 0;
}

static void
rds_teardown(void)
{
	unsigned int t;

	if (rds_lib->nb_engines != 0)
		rds_engines_stop();
	rds_sock_close_all();
	rds_engines_fini();
	rds_sock_table_fini();
	rds_mr_fini();	/* before the transports free their devices */
	for (t = 0; t < rds_transport_count(); t++) {
		const struct rds_transport *tr = rds_transport_at(t);

		if (tr->fini != NULL)
			tr->fini();
	}
	rds_cong_fini();
	rds_buf_fini();
	rds_mem_free(rds_lib);
	rds_lib = NULL;
}

int
rte_rds_init(const struct rte_rds_conf *conf)
{
	struct rte_rds_conf defaults;
	unsigned int t;
	int ret;

	if (rds_lib != NULL)
		return RDS_ERR(EEXIST);
	if (rte_eal_process_type() == RTE_PROC_INVALID)
		return RDS_ERR(ENXIO);
	if (conf == NULL) {
		rte_rds_conf_init(&defaults);
		conf = &defaults;
	}
	ret = rds_conf_check(conf);
	if (ret != 0)
		return RDS_ERR(-ret);
	rds_lib = rds_mem_zalloc("rds_lib", sizeof(*rds_lib));
	if (rds_lib == NULL)
		return RDS_ERR(ENOMEM);
	rds_lib->conf = *conf;
	rds_lib->tsc_hz = rte_get_tsc_hz();
	rds_lib->delayed_ack_tsc = rds_lib->tsc_hz / 1000000 *
				   RDS_DELAYED_ACK_US;

	ret = rds_buf_init(conf);
	if (ret == 0)
		ret = rds_cong_init();
	if (ret == 0)
		ret = rds_mr_init();
	for (t = 0; ret == 0 && t < rds_transport_count(); t++) {
		const struct rds_transport *tr = rds_transport_at(t);

		if (tr->init != NULL)
			ret = tr->init(conf);
	}
	if (ret == 0)
		ret = rds_laddrs_init(conf);
	if (ret == 0)
		ret = rds_sock_table_init(conf);
	if (ret == 0)
		ret = rds_engines_init(conf);
	if (ret != 0) {
		RDS_LOG(ERR, "init failed: %s", rte_strerror(-ret));
		rds_teardown();
		return RDS_ERR(-ret);
	}
	return 0;
}

int
rte_rds_fini(void)
{
	if (rds_lib == NULL)
		return RDS_ERR(ENXIO);
	rds_teardown();
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* The library instance: configuration, set-up and tear-down. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <arpa/inet.h>

#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_memory.h>
#include <rte_hash.h>
#include <rte_jhash.h>

#include "rds_private.h"

RTE_LOG_REGISTER_DEFAULT(rds_logtype, INFO);

struct rds_lib *rds_lib;

#ifdef RDS_SIM_CLOCK
/* The virtual TSC of the simulation build (rds_clock.h). */
uint64_t rds_sim_clock_now;
#endif
#ifdef RDS_FUZZ_CLOCK
/* The clock the fuzz harness may hold (rds_clock.h). */
struct rds_fuzz_clock rds_fuzz_clock;
#endif

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
	conf->max_sockets = 65536;
	conf->max_conns = 4096;
	conf->buf_cache_bytes = 64u << 20;
	conf->sndbuf_default = 212992;
	conf->rcvbuf_default = 212992;
	conf->reconnect_min_ms = 1;
	conf->reconnect_max_ms = 1000;
	conf->max_unacked_packets = 8;
	conf->max_unacked_bytes = 16u << 20;
	conf->socket_id = SOCKET_ID_ANY;
}

int
rte_rds_conf_add_addr(struct rte_rds_conf *conf, const char *ip,
		      const char *transport, const char *dev)
{
	struct rte_rds_addr_conf *ac;
	struct in6_addr a6;
	struct in_addr a;
	sa_family_t fam = AF_INET;

	if (ip != NULL && inet_pton(AF_INET, ip, &a) != 1) {
		/* IPv6 (a v4-mapped one is IPv4). */
		if (inet_pton(AF_INET6, ip, &a6) != 1)
			return RDS_ERR(EINVAL);
		if (rds_addr_is_v4(&a6))
			a.s_addr = rds_addr_v4(&a6);
		else
			fam = AF_INET6;
	}
	if (conf == NULL || ip == NULL || transport == NULL ||
	    strlen(transport) >= RTE_RDS_NAMESIZE ||
	    (dev != NULL && strlen(dev) >= RTE_RDS_NAMESIZE))
		return RDS_ERR(EINVAL);
	if (conf->nb_addrs >= UINT16_MAX)
		return RDS_ERR(EINVAL);
	if (conf->nb_addrs < RTE_RDS_CONF_INLINE_ADDRS) {
		ac = &conf->addr[conf->nb_addrs];
	} else {
		/* Past the inline ones: an array grown by doubling. */
		uint32_t k = conf->nb_addrs - RTE_RDS_CONF_INLINE_ADDRS;

		if ((k & (k - 1)) == 0) {
			ac = realloc(conf->addr_more,
				     sizeof(*ac) * (k == 0 ? 16 : k * 2));
			if (ac == NULL)
				return RDS_ERR(ENOMEM);
			conf->addr_more = ac;
		}
		ac = &conf->addr_more[k];
	}
	conf->nb_addrs++;

	memset(ac, 0, sizeof(*ac));
	ac->family = fam;
	if (fam == AF_INET6)
		ac->addr6 = a6;
	else
		ac->addr = a;
	snprintf(ac->transport, sizeof(ac->transport), "%s", transport);
	if (dev != NULL)
		snprintf(ac->dev, sizeof(ac->dev), "%s", dev);
	return 0;
}

void
rte_rds_conf_free(struct rte_rds_conf *conf)
{
	if (conf == NULL)
		return;
	if (conf->nb_addrs > RTE_RDS_CONF_INLINE_ADDRS)
		free(conf->addr_more);
	conf->addr_more = NULL;
	conf->nb_addrs = 0;
}

const struct rte_rds_addr_conf *
rte_rds_conf_addr(const struct rte_rds_conf *conf, uint32_t i)
{
	if (conf == NULL || i >= conf->nb_addrs)
		return NULL;
	return i < RTE_RDS_CONF_INLINE_ADDRS ? &conf->addr[i] :
	       &conf->addr_more[i - RTE_RDS_CONF_INLINE_ADDRS];
}

int
rte_rds_conf_add_addr_str(struct rte_rds_conf *conf, const char *spec)
{
	char ip[INET6_ADDRSTRLEN], trans[RTE_RDS_NAMESIZE];
	const char *eq, *comma, *args = "", *dev;
	char devbuf[RTE_RDS_NAMESIZE];
	struct rte_rds_addr_conf *ac;
	size_t n;

	if (conf == NULL || spec == NULL)
		return RDS_ERR(EINVAL);
	if (spec[0] == '[') {
		/* "[IPv6]=...": the address between the brackets. */
		eq = strchr(spec, ']');
		if (eq == NULL || eq[1] != '=' ||
		    (size_t)(eq - spec - 1) >= sizeof(ip))
			return RDS_ERR(EINVAL);
		memcpy(ip, spec + 1, (size_t)(eq - spec - 1));
		ip[eq - spec - 1] = '\0';
		eq++;
	} else {
		eq = strchr(spec, '=');
		if (eq == NULL || (size_t)(eq - spec) >= sizeof(ip))
			return RDS_ERR(EINVAL);
		memcpy(ip, spec, (size_t)(eq - spec));
		ip[eq - spec] = '\0';
	}
	comma = strchr(eq + 1, ',');
	n = comma != NULL ? (size_t)(comma - eq - 1) : strlen(eq + 1);
	if (n == 0 || n >= sizeof(trans))
		return RDS_ERR(EINVAL);
	memcpy(trans, eq + 1, n);
	trans[n] = '\0';
	if (comma != NULL)
		args = comma + 1;
	if (strlen(args) >= RTE_RDS_ARGSIZE)
		return RDS_ERR(EINVAL);
	/* "dev=NAME" among the options also names the device. */
	dev = NULL;
	{
		const char *d = strstr(args, "dev=");

		if (d != NULL && (d == args || d[-1] == ',')) {
			d += 4;
			n = strcspn(d, ",");
			if (n >= sizeof(devbuf))
				return RDS_ERR(EINVAL);
			memcpy(devbuf, d, n);
			devbuf[n] = '\0';
			dev = devbuf;
		}
	}
	if (rte_rds_conf_add_addr(conf, ip, trans, dev) != 0)
		return -1;
	ac = (struct rte_rds_addr_conf *)(uintptr_t)
		rte_rds_conf_addr(conf, conf->nb_addrs - 1);
	snprintf(ac->args, sizeof(ac->args), "%s", args);
	return 0;
}

static int
rds_conf_check(const struct rte_rds_conf *conf)
{
	unsigned int i;

	if (conf->nb_engines == 0 || conf->nb_engines > RTE_RDS_MAX_ENGINES ||
	    (conf->nb_addrs > RTE_RDS_CONF_INLINE_ADDRS &&
	     conf->addr_more == NULL) ||
	    conf->max_sockets == 0 || conf->max_sockets > (1u << 24) ||
	    conf->max_conns < 8 || conf->max_conns > (1u << 24) ||
	    conf->reconnect_min_ms == 0 ||
	    conf->reconnect_max_ms < conf->reconnect_min_ms ||
	    conf->max_unacked_packets == 0)
		return -EINVAL;
	for (i = 0; i < conf->nb_engines; i++)
		if ((unsigned int)conf->engine[i].idle > RTE_RDS_IDLE_SLEEP)
			return -EINVAL;
	/* Duplicates are found when the addresses are set up. */
	for (i = 0; i < conf->nb_addrs; i++) {
		const struct rte_rds_addr_conf *ac = rte_rds_conf_addr(conf, i);
		uint32_t a = ntohl(ac->addr.s_addr);

		if (ac->family == AF_INET6) {
			if (!rds_addr_v6_ok(&ac->addr6) ||
			    rds_addr_is_v4(&ac->addr6))
				return -EINVAL;
		} else if (ac->family != 0 && ac->family != AF_INET) {
			return -EAFNOSUPPORT;
		} else if (a == INADDR_ANY || a == INADDR_BROADCAST ||
			   IN_MULTICAST(a)) {
			return -EINVAL;
		}
	}
	return 0;
}

static int
rds_laddrs_init(const struct rte_rds_conf *conf)
{
	struct rte_hash_parameters hp = {
		.name = "rds_laddrs",
		.entries = RTE_MAX(conf->nb_addrs * 2, 8u),
		.key_len = sizeof(struct in6_addr),
		.hash_func = rte_jhash,
		.socket_id = conf->socket_id,
	};
	unsigned int i;
	int ret;

	rds_lib->laddrs = rds_mem_zalloc("rds_laddrs",
		sizeof(*rds_lib->laddrs) * RTE_MAX(conf->nb_addrs, 1u));
	rds_lib->laddr_hash = rte_hash_create(&hp);
	if (rds_lib->laddrs == NULL || rds_lib->laddr_hash == NULL)
		return -ENOMEM;
	for (i = 0; i < conf->nb_addrs; i++) {
		const struct rte_rds_addr_conf *ac = rte_rds_conf_addr(conf, i);
		struct rds_laddr *la = rds_mem_zalloc("rds_laddr", sizeof(*la));

		if (la == NULL)
			return -ENOMEM;
		rds_lib->laddrs[i] = la;
		rds_lib->nb_laddrs = i + 1;
		la->index = i;
		rte_spinlock_init(&la->bind_lock);
		if (ac->family == AF_INET6)
			la->addr = ac->addr6;
		else
			rds_addr_from_v4(&la->addr, ac->addr.s_addr);
		memcpy(la->dev, ac->dev, sizeof(la->dev));
		memcpy(la->args, ac->args, sizeof(la->args));
		la->args[sizeof(la->args) - 1] = '\0';
		la->trans = rds_transport_by_name(ac->transport);
		if (la->trans == NULL) {
			RDS_LOG(ERR, "address %u: unknown transport '%s'", i,
				ac->transport);
			return -EINVAL;
		}
		if (ac->family == AF_INET6 &&
		    !(la->trans->flags & RDS_TRANS_F_IPV6)) {
			RDS_LOG(ERR, "address %u: transport '%s' has no IPv6",
				i, ac->transport);
			return -EAFNOSUPPORT;
		}
		if (rds_laddr_find(&la->addr) != NULL) {
			RDS_LOG(ERR, "address %u declared twice", i);
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
		la->cong->la = la;
		if (rte_hash_add_key_data(rds_lib->laddr_hash, &la->addr,
					  la) < 0)
			return -ENOMEM;
	}
	return 0;
}

static void
rds_laddrs_fini(void)
{
	unsigned int i;

	for (i = 0; i < rds_lib->nb_laddrs; i++) {
		rds_bind_fini(rds_lib->laddrs[i]);
		rds_mem_free(rds_lib->laddrs[i]);
	}
	rds_mem_free(rds_lib->laddrs);
	rte_hash_free(rds_lib->laddr_hash);
	rds_lib->laddrs = NULL;
	rds_lib->laddr_hash = NULL;
	rds_lib->nb_laddrs = 0;
}

static void
rds_teardown(void)
{
	unsigned int t;

	if (rds_lib->nb_engines != 0)
		rds_engines_stop();
	rds_sock_close_all();
	rds_engines_fini();
	rds_server_fini_late();
	rds_sock_table_fini();
	rds_mr_fini();	/* before the transports free their devices */
	for (t = 0; t < rds_transport_count(); t++) {
		const struct rds_transport *tr = rds_transport_at(t);

		if (tr->fini != NULL)
			tr->fini();
	}
	rds_laddrs_fini();
	rds_cong_fini();
	rds_thread_lib_fini();
	rds_buf_fini();
	rte_rds_conf_free(&rds_lib->conf);
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
	rds_lib->conf.addr_more = NULL;
	if (conf->nb_addrs > RTE_RDS_CONF_INLINE_ADDRS) {
		size_t more = conf->nb_addrs - RTE_RDS_CONF_INLINE_ADDRS;

		rds_lib->conf.addr_more = malloc(sizeof(*conf->addr) * more);
		if (rds_lib->conf.addr_more == NULL) {
			rds_mem_free(rds_lib);
			rds_lib = NULL;
			return RDS_ERR(ENOMEM);
		}
		memcpy(rds_lib->conf.addr_more, conf->addr_more,
		       sizeof(*conf->addr) * more);
	}
	rds_lib->tsc_hz = rds_clock_hz();
	rds_lib->delayed_ack_tsc = rds_lib->tsc_hz / 1000000 *
				   RDS_DELAYED_ACK_US;

	rds_thread_lib_init();
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
	rds_server_fini();
	rds_teardown();
	return 0;
}

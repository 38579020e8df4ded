/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_telemetry commands (readable with dpdk-telemetry.py):
 *   /rds/info         library summary
 *   /rds/stats        counters summed over engines
 *   /rds/engine,<id>  one engine's counters
 *   /rds/conns        connections (asks the engines; inline engines must
 *                     be polled by the application meanwhile)
 *   /rds/sockets      open sockets
 *   /rds/eth_conns    the eth transport's connections: frame layer,
 *                     window, RTT and RTO (RTE_RDS_INFO_ETH_CONNECTIONS;
 *                     asks the engines as /rds/conns does)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <arpa/inet.h>

#include <rte_ether.h>
#include <rte_telemetry.h>

#include "rds_private.h"

/* How long telemetry waits for an engine: it never drives one itself. */
#define RDS_TEL_TIMEOUT_NS (500ULL * 1000 * 1000)

static void
rds_tel_stats(struct rte_tel_data *d, const struct rte_rds_stats *st)
{
	const uint64_t *v = (const uint64_t *)st;
	unsigned int i;

	rte_tel_data_start_dict(d);
	for (i = 0; i < RTE_RDS_STATS_NUM; i++)
		rte_tel_data_add_dict_u64(d, rte_rds_stats_name(i), v[i]);
}

static int
rds_tel_handle_stats(const char *cmd, const char *params,
		     struct rte_tel_data *d)
{
	struct rte_rds_stats st;
	int id = -1;

	RTE_SET_USED(cmd);
	if (rds_lib == NULL)
		return -ENXIO;
	if (strcmp(cmd, "/rds/engine") == 0) {
		if (params == NULL || *params == '\0')
			return -EINVAL;
		id = atoi(params);
	}
	if (rte_rds_stats_get(id, &st) != 0)
		return -rte_errno;
	rds_tel_stats(d, &st);
	return 0;
}

static int
rds_tel_handle_info(const char *cmd, const char *params,
		    struct rte_tel_data *d)
{
	char buf[INET_ADDRSTRLEN];
	struct rte_tel_data *addrs;
	unsigned int i;
	uint32_t a, open;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	if (rds_lib == NULL)
		return -ENXIO;
	pthread_mutex_lock(&rds_lib->sock_lock);
	open = rds_lib->nb_open;
	pthread_mutex_unlock(&rds_lib->sock_lock);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "version", RTE_RDS_VERSION);
	rte_tel_data_add_dict_int(d, "engines", (int)rds_lib->nb_engines);
	rte_tel_data_add_dict_int(d, "sockets_open", (int)open);
	rte_tel_data_add_dict_int(d, "max_sockets", (int)rds_lib->max_sockets);
	addrs = rte_tel_data_alloc();
	if (addrs == NULL)
		return -ENOMEM;
	rte_tel_data_start_array(addrs, RTE_TEL_STRING_VAL);
	for (i = 0; i < rds_lib->nb_laddrs; i++) {
		char s[INET_ADDRSTRLEN + RTE_RDS_NAMESIZE + 2];

		a = rds_addr_v4(&rds_lib->laddrs[i]->addr);
		inet_ntop(AF_INET, &a, buf, sizeof(buf));
		snprintf(s, sizeof(s), "%s/%s", buf,
			 rds_lib->laddrs[i]->trans->name);
		rte_tel_data_add_array_string(addrs, s);
	}
	rte_tel_data_add_dict_container(d, "addresses", addrs, 0);
	return 0;
}

/*
 * A snapshot of name (records of size bytes) into *bufp (malloc'd, the
 * caller frees it) and its length in bytes into *lenp: probe, then
 * fill, again while records come in between. Returns 0 or -errno.
 */
static int
rds_tel_fetch(int name, size_t size, void **bufp, size_t *lenp)
{
	void *buf = NULL;
	size_t len = 0;
	int ret;

	for (;;) {
		ret = rds_info_get(name, buf, &len, RDS_TEL_TIMEOUT_NS);
		if (ret != -ENOSPC)
			break;
		free(buf);
		len += 8 * size;
		buf = malloc(len);
		if (buf == NULL)
			return -ENOMEM;
	}
	if (ret < 0) {
		free(buf);
		return ret;
	}
	*bufp = buf;
	*lenp = len;
	return 0;
}

static int
rds_tel_handle_conns(const char *cmd, const char *params,
		     struct rte_tel_data *d)
{
	struct rds_info_connection *ic = NULL;
	char l[INET_ADDRSTRLEN], f[INET_ADDRSTRLEN], s[128];
	size_t len = 0, i;
	int ret;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	if (rds_lib == NULL)
		return -ENXIO;
	ret = rds_tel_fetch(RDS_INFO_CONNECTIONS, sizeof(*ic), (void **)&ic,
			    &len);
	if (ret < 0)
		return ret;
	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	for (i = 0; i < len / sizeof(*ic); i++) {
		inet_ntop(AF_INET, &ic[i].laddr, l, sizeof(l));
		inet_ntop(AF_INET, &ic[i].faddr, f, sizeof(f));
		snprintf(s, sizeof(s), "%s->%s %s tx_seq=%" PRIu64
			 " rx_seq=%" PRIu64 " flags=%u", l, f,
			 (const char *)ic[i].transport, (uint64_t)ic[i].next_tx_seq,
			 (uint64_t)ic[i].next_rx_seq, ic[i].flags);
		rte_tel_data_add_array_string(d, s);
	}
	free(ic);
	return 0;
}

/* An address of a snapshot record: IPv4 when v4-mapped. */
static void
rds_tel_addr(const struct in6_addr *a, char *buf, size_t size)
{
	uint32_t v4;

	if (rds_addr_is_v4(a)) {
		v4 = rds_addr_v4(a);
		inet_ntop(AF_INET, &v4, buf, size);
	} else {
		inet_ntop(AF_INET6, a, buf, size);
	}
}

/* One eth connection as a dictionary (its fields named as in struct
 * rte_rds_info_eth_connection). */
static struct rte_tel_data *
rds_tel_eth_conn(const struct rte_rds_info_eth_connection *ec)
{
	struct rte_tel_data *c = rte_tel_data_alloc();
	char l[INET6_ADDRSTRLEN], f[INET6_ADDRSTRLEN];
	char mac[RTE_ETHER_ADDR_FMT_SIZE];

	if (c == NULL)
		return NULL;
	rds_tel_addr(&ec->laddr, l, sizeof(l));
	rds_tel_addr(&ec->faddr, f, sizeof(f));
	rte_tel_data_start_dict(c);
	rte_tel_data_add_dict_string(c, "laddr", l);
	rte_tel_data_add_dict_string(c, "faddr", f);
	snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x",
		 ec->peer_mac[0], ec->peer_mac[1], ec->peer_mac[2],
		 ec->peer_mac[3], ec->peer_mac[4], ec->peer_mac[5]);
	rte_tel_data_add_dict_string(c, "peer_mac", mac);
	rte_tel_data_add_dict_u64(c, "resolved", ec->resolved);
	rte_tel_data_add_dict_u64(c, "unresponsive", ec->unresponsive);
	rte_tel_data_add_dict_u64(c, "epoch", ec->epoch);
	rte_tel_data_add_dict_u64(c, "peer_epoch", ec->peer_epoch);
	rte_tel_data_add_dict_u64(c, "snd_nxt", ec->snd_nxt);
	rte_tel_data_add_dict_u64(c, "snd_una", ec->snd_una);
	rte_tel_data_add_dict_u64(c, "in_flight", ec->in_flight);
	rte_tel_data_add_dict_u64(c, "wnd", ec->wnd);
	rte_tel_data_add_dict_u64(c, "peer_wnd", ec->peer_wnd);
	rte_tel_data_add_dict_u64(c, "rcv_nxt", ec->rcv_nxt);
	rte_tel_data_add_dict_u64(c, "rx_out_of_order", ec->rx_out_of_order);
	rte_tel_data_add_dict_u64(c, "timeouts", ec->timeouts);
	rte_tel_data_add_dict_u64(c, "srtt_ns", ec->srtt_ns);
	rte_tel_data_add_dict_u64(c, "rttvar_ns", ec->rttvar_ns);
	rte_tel_data_add_dict_u64(c, "min_rtt_ns", ec->min_rtt_ns);
	rte_tel_data_add_dict_u64(c, "rto_ns", ec->rto_ns);
	rte_tel_data_add_dict_u64(c, "cwnd", ec->cwnd);
	rte_tel_data_add_dict_u64(c, "ssthresh", ec->ssthresh);
	rte_tel_data_add_dict_u64(c, "cwnd_cuts", ec->cwnd_cuts);
	rte_tel_data_add_dict_u64(c, "cwnd_collapses", ec->cwnd_collapses);
	rte_tel_data_add_dict_u64(c, "cwnd_delay_cuts", ec->cwnd_delay_cuts);
	rte_tel_data_add_dict_u64(c, "delay_target_us", ec->delay_target_us);
	rte_tel_data_add_dict_u64(c, "delay_base_ns", ec->delay_base_ns);
	return c;
}

/* At most this many connections in a reply (a reply is bounded by the
 * telemetry socket's output length, 16 KiB, and a dictionary by
 * RTE_TEL_MAX_DICT_ENTRIES): "count" says how many there are, and each
 * of the first ones is a dictionary under "conn_<i>" (a telemetry name
 * holds letters, digits, '_' and '/' only, not an address). A dictionary
 * at its longest (IPv6 addresses, every number at its widest) is some
 * 720 bytes: 20 of them fit. */
#define RDS_TEL_ETH_CONNS 20

static int
rds_tel_handle_eth_conns(const char *cmd, const char *params,
			 struct rte_tel_data *d)
{
	struct rte_rds_info_eth_connection *ec = NULL;
	struct rte_tel_data *c;
	char key[32];
	size_t len = 0, i, n;
	int ret;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	if (rds_lib == NULL)
		return -ENXIO;
	ret = rds_tel_fetch(RTE_RDS_INFO_ETH_CONNECTIONS, sizeof(*ec),
			    (void **)&ec, &len);
	if (ret < 0)
		return ret;
	n = len / sizeof(*ec);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "count", n);
	for (i = 0; i < n && i < RDS_TEL_ETH_CONNS; i++) {
		c = rds_tel_eth_conn(&ec[i]);
		if (c == NULL) {
			ret = -ENOMEM;
			break;
		}
		snprintf(key, sizeof(key), "conn_%zu", i);
		if (rte_tel_data_add_dict_container(d, key, c, 0) != 0) {
			rte_tel_data_free(c);
			ret = -E2BIG;
			break;
		}
	}
	free(ec);
	return ret;
}

struct rds_tel_socks {
	struct rte_tel_data *d;
	unsigned int n;
};

static void
rds_tel_sock(void *arg, struct rds_sock *rs)
{
	struct rds_tel_socks *t = arg;
	char a[INET_ADDRSTRLEN], s[128];
	uint32_t v4;

	/* A telemetry array holds a bounded number of entries. */
	if (t->n++ >= RTE_TEL_MAX_ARRAY_ENTRIES)
		return;
	v4 = rs->f.bound ? rds_addr_v4(&rs->f.bound_addr) : 0;
	inet_ntop(AF_INET, &v4, a, sizeof(a));
	snprintf(s, sizeof(s), "%d %s:%u snd=%" PRId64 "/%u rcv=%" PRId64
		 "/%u%s", rs->id, a, rs->f.bound_port,
		 __atomic_load_n(&rs->snd_bytes, __ATOMIC_RELAXED), rs->f.sndbuf,
		 __atomic_load_n(&rs->rcv_bytes, __ATOMIC_RELAXED), rs->rcvbuf,
		 rs->congested ? " congested" : "");
	rte_tel_data_add_array_string(t->d, s);
}

static int
rds_tel_handle_sockets(const char *cmd, const char *params,
		       struct rte_tel_data *d)
{
	struct rds_tel_socks t = { .d = d, .n = 0 };

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	if (rds_lib == NULL)
		return -ENXIO;
	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	rds_sock_foreach(rds_tel_sock, &t);
	return 0;
}

RTE_INIT(rds_telemetry_init)
{
	rte_telemetry_register_cmd("/rds/info", rds_tel_handle_info,
		"librte_rds summary. No parameters");
	rte_telemetry_register_cmd("/rds/stats", rds_tel_handle_stats,
		"librte_rds counters, summed over engines. No parameters");
	rte_telemetry_register_cmd("/rds/engine", rds_tel_handle_stats,
		"librte_rds counters of one engine. Parameters: engine id");
	rte_telemetry_register_cmd("/rds/conns", rds_tel_handle_conns,
		"librte_rds connections. No parameters");
	rte_telemetry_register_cmd("/rds/sockets", rds_tel_handle_sockets,
		"librte_rds open sockets. No parameters");
	rte_telemetry_register_cmd("/rds/eth_conns", rds_tel_handle_eth_conns,
		"librte_rds eth connections (frame layer, window, RTT). "
		"No parameters");
}

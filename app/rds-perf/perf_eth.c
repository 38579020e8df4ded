/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rds-perf over the eth transport: the address (--local, --eth-opts), the
 * ethdev it uses, faults (--faults), the transport's counters, and what
 * to say when the peer does not answer (link down, ARP unanswered).
 */

#include <inttypes.h>
#include <stdlib.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_log.h>

#include "perf.h"

/* "IP=eth[,--eth-opts]". */
void
perf_eth_spec(const struct perf_opts *o, char *buf, size_t len)
{
	int n;

	if (o->eth_opts != NULL)
		n = snprintf(buf, len, "%s=eth,%s", o->local, o->eth_opts);
	else
		n = snprintf(buf, len, "%s=eth", o->local);
	if (n < 0 || (size_t)n >= len)
		perf_die("--local and --eth-opts are too long");
}

/* The value of key in "k=v,k=v" (copied into val), or false. */
static bool
perf_kv_get(const char *s, const char *key, char *val, size_t len)
{
	size_t kl = strlen(key), n;
	const char *p = s;

	while (p != NULL && *p != '\0') {
		if (strncmp(p, key, kl) == 0 && p[kl] == '=') {
			p += kl + 1;
			n = strcspn(p, ",");
			if (n >= len)
				n = len - 1;
			memcpy(val, p, n);
			val[n] = '\0';
			return true;
		}
		p = strchr(p, ',');
		if (p != NULL)
			p++;
	}
	return false;
}

/* The ethdev of the address: port= (or dev=) in --eth-opts, a name or an
 * id, else the only ethdev of the process. 0, or -1 (printed). */
int
perf_eth_port_id(const struct perf_opts *o, uint16_t *id)
{
	char name[RTE_ETH_NAME_MAX_LEN];
	uint16_t p, n = 0, only = 0;
	char *end;
	unsigned long v;

	if (o->eth_opts != NULL &&
	    (perf_kv_get(o->eth_opts, "port", name, sizeof(name)) ||
	     perf_kv_get(o->eth_opts, "dev", name, sizeof(name)))) {
		v = strtoul(name, &end, 10);
		if (end != name && *end == '\0' && v < RTE_MAX_ETHPORTS &&
		    rte_eth_dev_is_valid_port((uint16_t)v)) {
			*id = (uint16_t)v;
			return 0;
		}
		if (rte_eth_dev_get_port_by_name(name, id) == 0)
			return 0;
		fprintf(stderr, "rds-perf: no ethdev '%s' (give the EAL --vdev=...)\n",
			name);
		return -1;
	}
	RTE_ETH_FOREACH_DEV(p) {
		only = p;
		n++;
	}
	if (n != 1) {
		fprintf(stderr, "rds-perf: %u ethdevs: name one with --eth-opts port=NAME (and give the EAL --vdev=...)\n",
			n);
		return -1;
	}
	*id = only;
	return 0;
}

/* "net_memif0 (driver net_memif)" of the address's port, or "?". */
const char *
perf_eth_port_str(const struct perf_opts *o, char *buf, size_t len)
{
	char name[RTE_ETH_NAME_MAX_LEN];
	struct rte_eth_dev_info di;
	uint16_t id;

	if (perf_eth_port_id(o, &id) < 0 ||
	    rte_eth_dev_get_name_by_port(id, name) != 0 ||
	    rte_eth_dev_info_get(id, &di) != 0) {
		snprintf(buf, len, "?");
		return buf;
	}
	snprintf(buf, len, "%s (port %u, driver %s)", name, id,
		 di.driver_name != NULL ? di.driver_name : "?");
	return buf;
}

/* The address's PMD (driver name, e.g. "net_memif"), for the JSON. */
const char *
perf_eth_pmd(const struct perf_opts *o)
{
	struct rte_eth_dev_info di;
	uint16_t id;

	if (perf_eth_port_id(o, &id) < 0 || rte_eth_dev_info_get(id, &di) != 0 ||
	    di.driver_name == NULL)
		return "?";
	return di.driver_name;
}

/* After rte_rds_init(): the faults of --faults, if any. */
void
perf_eth_started(const struct perf_opts *o)
{
	const struct rte_rds_eth_faults *f = &o->faults;

	if (!o->faults_set)
		return;
	if (rte_rds_eth_set_faults(f) < 0)
		perf_fail("rte_rds_eth_set_faults()");
	printf("rds-perf: faults on every frame received (ppm): drop %u, dup %u, reorder %u (depth %u), corrupt %u, delay %u (%u us), seed %" PRIu64 "\n",
	       f->drop_ppm, f->dup_ppm, f->reorder_ppm, f->reorder_depth,
	       f->corrupt_ppm, f->delay_ppm, f->delay_us, f->seed);
}

/* The eth transport's counters (the non-zero ones, unless all). */
void
perf_eth_print_stats(FILE *f, bool all)
{
	static const char *const names[] = {
#define N(x) #x
		N(tx_frames), N(tx_full), N(tx_no_mbuf), N(tx_window_full),
		N(rx_frames), N(rx_not_ours), N(rx_drop_short), N(rx_drop_ip),
		N(rx_drop_version), N(rx_drop_type), N(rx_drop_len),
		N(rx_drop_crc), N(rx_drop_no_conn), N(rx_drop_stale),
		N(rx_dup), N(rx_ooo), N(rx_beyond_window), N(rx_bad_unit),
		N(rx_handoff), N(ack_tx), N(ack_rx), N(rexmit_fast),
		N(rexmit_timeout), N(rtt_samples), N(peer_restarts),
		N(peer_unresponsive), N(conn_opened), N(arp_tx), N(arp_rx),
		N(neigh_changed), N(rdma_exec), N(rdma_remote_error),
		N(fault_dropped), N(fault_duplicated), N(fault_reordered),
		N(fault_delayed), N(fault_corrupted), N(port_restarts),
		N(rx_steered), N(rx_handoff_drop), N(flow_rules),
		N(flow_fail), N(tx_zc_frames), N(rexmit_sack), N(rexmit_probe),
		N(tx_kicks), N(nd_tx), N(nd_rx), N(nd_drop),
		N(cc_delay_cuts),
#undef N
	};
	struct rte_rds_eth_stats st;
	const uint64_t *v = (const uint64_t *)&st;
	unsigned int i;

	RTE_BUILD_BUG_ON(RTE_DIM(names) != sizeof(st) / sizeof(uint64_t));
	if (rte_rds_eth_stats_get(&st) < 0) {
		fprintf(f, "eth transport counters: none (%s)\n",
			rte_strerror(rte_errno));
		return;
	}
	fprintf(f, "eth transport counters%s:\n", all ? "" : " (non-zero)");
	for (i = 0; i < RTE_DIM(names); i++)
		if (all || v[i] != 0)
			fprintf(f, "  %-28s %" PRIu64 "\n", names[i], v[i]);
}

/* The port's link, e.g. "up, 10000 Mbps" or "down". */
static const char *
perf_eth_link_str(uint16_t id, char *buf, size_t len)
{
	struct rte_eth_link link;

	memset(&link, 0, sizeof(link));
	if (rte_eth_link_get_nowait(id, &link) != 0)
		snprintf(buf, len, "unknown");
	else if (link.link_status == RTE_ETH_LINK_DOWN)
		snprintf(buf, len, "down");
	else
		snprintf(buf, len, "up, %u Mbps", link.link_speed);
	return buf;
}

/* Why the peer may not answer, in one line (the client gave up). */
void
perf_eth_diag(const struct perf_opts *o, char *buf, size_t len)
{
	struct rte_rds_eth_stats st;
	char port[96], link[32];
	struct rte_eth_link l;
	uint16_t id;

	if (perf_eth_port_id(o, &id) < 0) {
		snprintf(buf, len, "no ethdev");
		return;
	}
	perf_eth_port_str(o, port, sizeof(port));
	memset(&l, 0, sizeof(l));
	if (rte_eth_link_get_nowait(id, &l) == 0 &&
	    l.link_status == RTE_ETH_LINK_DOWN) {
		snprintf(buf, len, "%s: link down: nothing is on the other end (net_memif: is the peer running with the same socket=? af_packet: is the interface up?)",
			 port);
		return;
	}
	if (rte_rds_eth_stats_get(&st) == 0 && st.rx_frames == 0 &&
	    st.arp_rx == 0) {
		snprintf(buf, len, "%s: link %s, but nothing came back (%" PRIu64 " ARP requests and replies sent, none received): is the peer running with --local %s?",
			 port, perf_eth_link_str(id, link, sizeof(link)),
			 st.arp_tx, o->peer != NULL ? o->peer : "?");
		return;
	}
	snprintf(buf, len, "%s: link %s; frames come back, but no answer from rds-perf: is the server on --port %u?",
		 port, perf_eth_link_str(id, link, sizeof(link)), o->port);
}

/* Log types silenced while a net_memif port cannot start yet: each try
 * logs the same failure. */
static const char *const perf_eth_noisy[] = {
	"pmd.net.memif", "pmd.rds.eth", "lib.rds", "lib.ethdev",
};

static void
perf_eth_logs(bool quiet, int *saved)
{
	unsigned int i;
	int t;

	for (i = 0; i < RTE_DIM(perf_eth_noisy); i++) {
		t = rte_log_register(perf_eth_noisy[i]);
		if (t < 0)
			continue;
		if (quiet) {
			saved[i] = rte_log_get_level((uint32_t)t);
			rte_log_set_level((uint32_t)t, RTE_LOG_EMERG);
		} else if (saved[i] > 0) {
			rte_log_set_level((uint32_t)t, (uint32_t)saved[i]);
		}
	}
}

/*
 * start() of the address's port, again every 100 ms for up to --wait
 * while it fails on net_memif (a memif client's start fails until the
 * server's socket exists: run the two processes in either order). 0, or
 * what the last try returned (rte_errno set) once the time is up or on
 * another PMD.
 */
int
perf_eth_start_retry(const struct perf_opts *o, int (*start)(void *),
		     void *arg)
{
	const uint64_t hz = rte_get_tsc_hz();
	const uint64_t end = rte_rdtsc() + (uint64_t)(o->wait * (double)hz);
	int saved[RTE_DIM(perf_eth_noisy)] = { 0 };
	bool memif = strcmp(perf_eth_pmd(o), "net_memif") == 0;
	bool quiet = false;
	char port[96];
	int ret, err;

	for (;;) {
		ret = start(arg);
		err = rte_errno;
		if (ret == 0 || !memif || rte_rdtsc() > end)
			break;
		if (!quiet) {
			printf("rds-perf: %s does not start yet (a net_memif client needs the server's socket): trying again for up to %.1f s\n",
			       perf_eth_port_str(o, port, sizeof(port)),
			       o->wait);
			fflush(stdout);
			perf_eth_logs(true, saved);
			quiet = true;
		}
		rte_delay_ms(100);
	}
	if (quiet)
		perf_eth_logs(false, saved);
	if (ret != 0 && memif) {
		fflush(stdout);
		fprintf(stderr, "rds-perf: %s did not start within %.1f s: no net_memif peer on its socket (start the other process, the --vdev with the same socket= and the other role=)\n",
			perf_eth_port_str(o, port, sizeof(port)), o->wait);
	}
	rte_errno = err;
	return ret;
}

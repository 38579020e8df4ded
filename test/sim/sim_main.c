/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rds_sim: N hosts on the library's own code in one process, in virtual
 * time (sim.h, test/README.md suite sim).
 *
 *   rds_sim [--seed N] [--hosts N] [--per-port N] [--mem-mb N]
 *           [--workload pair|all|incast|perm]
 *           [--msgs N] [--len MIN:MAX] [--gbps N] [--lat-ns N]
 *           [--spread-ns N] [--buf N] [--loss P] [--dup P] [--reorder P]
 *           [--reorder-ns N] [--corrupt P] [--cwnd N] [--max-conns N]
 *           [--rcvbuf N]
 *           [--flap SHARE --flap-at-us N --flap-for-us N
 *            [--flap-bound-ms N]] [--quantum-ns N] [--limit-ms N]
 *           [--bug-dup] [-v]
 *
 * Loop: poll the engine, take what the ports sent, send and receive for
 * the workload, deliver what is due, while any of that does work; then
 * advance virtual time to the next fabric event or the engine's next
 * timer tick, whichever is first. No wall clock, no threads but the
 * EAL's, one seed: the last line is the digest of the whole event log,
 * which a replay of the seed must print again. A failure prints the seed
 * and the command that replays it. Exit 0 on success, 1 on a violation.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/rds.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <arpa/inet.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_random.h>
#include <rte_rds.h>
#include <rte_rds_socket.h>
#include <rte_rds_stats.h>

#include "rds_private.h"
#include "rds_eth.h"
#include "sim.h"

_Static_assert(SIM_HOSTS_PER_PORT <= RDS_ETH_PORT_LADDRS,
	       "eth must take every host of a port");

static struct sim_conf conf = {
	.seed = 1, .hosts = 2, .per_port = 8, .workload = "pair", .msgs = 1000,
	.min_len = 64, .max_len = 4000, .gbps = 10, .lat_ns = 1000,
	.lat_spread_ns = 500, .buf_bytes = 131072, .reorder_ns = 20000,
	.cwnd_init = 10, .quantum_ns = 1000, .limit_ns = 0,
};
static int socks[SIM_MAX_HOSTS];
static const char *prog = "rds_sim";

static unsigned int
nb_ports(void)
{
	return (conf.hosts + conf.per_port - 1) / conf.per_port;
}

static void
usage(void)
{
	printf("usage: rds_sim [--seed N] [--hosts N] [--per-port N] "
	       "[--mem-mb N] [--workload "
	       "pair|all|incast|perm] [--msgs N] [--len MIN:MAX] [--gbps N] "
	       "[--lat-ns N] [--spread-ns N] [--buf BYTES] [--loss P] "
	       "[--dup P] [--reorder P] [--reorder-ns N] [--corrupt P] "
	       "[--cwnd N] [--max-conns N] [--rcvbuf N] [--flap SHARE --flap-at-us N --flap-for-us N "
	       "[--flap-bound-ms N]] [--quantum-ns N] [--limit-ms N] "
	       "[--bug-dup] [-v]\n");
	exit(2);
}

static void
parse(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--bug-dup") == 0) {
			conf.bug_dup = true;
			continue;
		}
		if (strcmp(a, "-v") == 0) {
			conf.verbose = true;
			continue;
		}
		if (v == NULL)
			usage();
		i++;
		if (strcmp(a, "--seed") == 0)
			conf.seed = strtoull(v, NULL, 0);
		else if (strcmp(a, "--hosts") == 0)
			conf.hosts = (unsigned int)atoi(v);
		else if (strcmp(a, "--per-port") == 0)
			conf.per_port = (unsigned int)atoi(v);
		else if (strcmp(a, "--mem-mb") == 0)
			conf.mem_mb = (unsigned int)atoi(v);
		else if (strcmp(a, "--workload") == 0)
			conf.workload = v;
		else if (strcmp(a, "--msgs") == 0)
			conf.msgs = (unsigned int)atoi(v);
		else if (strcmp(a, "--len") == 0 &&
			 sscanf(v, "%u:%u", &conf.min_len, &conf.max_len) == 2)
			;
		else if (strcmp(a, "--gbps") == 0)
			conf.gbps = (unsigned int)atoi(v);
		else if (strcmp(a, "--lat-ns") == 0)
			conf.lat_ns = (unsigned int)atoi(v);
		else if (strcmp(a, "--spread-ns") == 0)
			conf.lat_spread_ns = (unsigned int)atoi(v);
		else if (strcmp(a, "--buf") == 0)
			conf.buf_bytes = (unsigned int)atoi(v);
		else if (strcmp(a, "--loss") == 0)
			conf.loss = atof(v);
		else if (strcmp(a, "--dup") == 0)
			conf.dup = atof(v);
		else if (strcmp(a, "--reorder") == 0)
			conf.reorder = atof(v);
		else if (strcmp(a, "--reorder-ns") == 0)
			conf.reorder_ns = (unsigned int)atoi(v);
		else if (strcmp(a, "--corrupt") == 0)
			conf.corrupt = atof(v);
		else if (strcmp(a, "--cwnd") == 0)
			conf.cwnd_init = (unsigned int)atoi(v);
		else if (strcmp(a, "--max-conns") == 0)
			conf.max_conns = (unsigned int)atoi(v);
		else if (strcmp(a, "--rcvbuf") == 0)
			conf.rcvbuf = (unsigned int)atoi(v);
		else if (strcmp(a, "--flap") == 0)
			conf.flap = atof(v);
		else if (strcmp(a, "--flap-at-us") == 0)
			conf.flap_at_ns = strtoull(v, NULL, 0) * 1000;
		else if (strcmp(a, "--flap-for-us") == 0)
			conf.flap_for_ns = strtoull(v, NULL, 0) * 1000;
		else if (strcmp(a, "--flap-bound-ms") == 0)
			conf.flap_bound_ns = strtoull(v, NULL, 0) * 1000000;
		else if (strcmp(a, "--quantum-ns") == 0)
			conf.quantum_ns = strtoull(v, NULL, 0);
		else if (strcmp(a, "--limit-ms") == 0)
			conf.limit_ns = strtoull(v, NULL, 0) * 1000000;
		else
			usage();
	}
	if (conf.hosts < 2 || conf.hosts > SIM_MAX_HOSTS || conf.gbps == 0 ||
	    conf.per_port == 0 || conf.per_port > SIM_HOSTS_PER_PORT ||
	    nb_ports() > SIM_MAX_PORTS ||
	    (strcmp(conf.workload, "pair") != 0 &&
	     strcmp(conf.workload, "all") != 0 &&
	     strcmp(conf.workload, "incast") != 0 &&
	     strcmp(conf.workload, "perm") != 0))
		usage();
	if (conf.limit_ns == 0)
		conf.limit_ns = UINT64_C(60) * 1000000000;	/* 60 s */
}

static void
print_replay(void)
{
	printf("FAILED: seed %" PRIu64 "; replay: %s --seed %" PRIu64
	       " --hosts %u --per-port %u --workload %s --msgs %u --len %u:%u "
	       "--gbps %u --lat-ns %u --spread-ns %u --buf %u --loss %g --dup %g "
	       "--reorder %g --reorder-ns %u --corrupt %g --cwnd %u "
	       "--max-conns %u --rcvbuf %u --flap %g --flap-at-us %" PRIu64 " --flap-for-us %" PRIu64
	       " --flap-bound-ms %" PRIu64 " "
	       "--quantum-ns %" PRIu64 " --limit-ms %" PRIu64 "%s\n", conf.seed,
	       prog, conf.seed, conf.hosts, conf.per_port, conf.workload, conf.msgs,
	       conf.min_len, conf.max_len,
	       conf.gbps, conf.lat_ns, conf.lat_spread_ns, conf.buf_bytes,
	       conf.loss, conf.dup, conf.reorder, conf.reorder_ns,
	       conf.corrupt, conf.cwnd_init, conf.max_conns, conf.rcvbuf,
	       conf.flap, conf.flap_at_ns / 1000, conf.flap_for_ns / 1000,
	       conf.flap_bound_ns / 1000000, conf.quantum_ns,
	       conf.limit_ns / 1000000,
	       conf.bug_dup ? " --bug-dup" : "");
}

static int
eal_init(void)
{
	char mem[32], prefix[64];
	unsigned int ports = nb_ports();
	char *argv[] = { "rds_sim", "--no-pci", "--no-huge", "-m", mem,
			 "--file-prefix", prefix, "--no-telemetry", "-l", "0",
			 "--log-level", "lib.eal:error", "--log-level",
			 "pmd.net.ring:error", "--log-level", NULL, NULL };

	/* eth's per-peer lines (unresponsive, answers again) by the
	 * thousand at scale: with -v only. */
	argv[RTE_DIM(argv) - 2] = conf.verbose ? "pmd.rds.eth:info" :
					       "pmd.rds.eth:error";

	/* Each port's pool (16383 mbufs), the fabric's copies, the rest. */
	snprintf(mem, sizeof(mem), "%u", conf.mem_mb != 0 ? conf.mem_mb :
		 256 + 48 * (ports + 1) + conf.hosts);
	snprintf(prefix, sizeof(prefix), "rds_sim_%d", (int)getpid());
	if (rte_eal_init((int)RTE_DIM(argv) - 1, argv) < 0) {
		printf("rte_eal_init: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

static int
lib_init(void)
{
	struct rte_rds_conf c;
	char spec[256], ip[INET_ADDRSTRLEN];
	unsigned int h, p;
	uint32_t a;
	int trans = RTE_RDS_TRANS_ETH, ret;

	rte_rds_conf_init(&c);
	c.nb_engines = 1;
	c.engine[0].lcore_id = RTE_RDS_ENGINE_INLINE;
	if (conf.max_conns != 0)
		c.max_conns = conf.max_conns;
	for (h = 0; h < conf.hosts; h++) {
		a = sim_host_ip(h);
		p = h / conf.per_port;
		inet_ntop(AF_INET, &a, ip, sizeof(ip));
		snprintf(spec, sizeof(spec), "%s=eth,port=%u,mac=02:00:00:00:"
			 "%02x:00,cwnd_init=%u", ip, p, p, conf.cwnd_init);
		if (rte_rds_conf_add_addr_str(&c, spec) != 0) {
			printf("address %s: %s\n", spec,
			       rte_strerror(rte_errno));
			return -1;
		}
	}
	ret = rte_rds_init(&c);
	rte_rds_conf_free(&c);
	if (ret != 0) {
		printf("rte_rds_init: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	/* Every host's MAC in every port's table, static, as neigh= would
	 * put it: eth takes no ARP between two addresses of one port (its
	 * guard against a port that loops back), and an address's options
	 * (RTE_RDS_ARGSIZE bytes) hold a few neighbours only. */
	for (p = 0; p < rds_eth_nb_ports; p++)
		for (h = 0; h < conf.hosts; h++) {
			a = sim_host_ip(h);
			inet_ntop(AF_INET, &a, ip, sizeof(ip));
			snprintf(spec, sizeof(spec), "%s/02:00:00:00:%02x:00",
				 ip, h / conf.per_port);
			if (rds_eth_neigh_static(rds_eth_ports[p]->neigh,
						 spec) != 0) {
				printf("neighbour %s on port %u: failed\n",
				       spec, p);
				return -1;
			}
		}
	for (h = 0; h < conf.hosts; h++) {
		struct sockaddr_in sin = { .sin_family = AF_INET,
					   .sin_port = htons(4000),
					   .sin_addr.s_addr = sim_host_ip(h) };

		socks[h] = rte_rds_socket();
		if (socks[h] < 0 ||
		    rte_rds_setsockopt(socks[h], SOL_RDS, SO_RDS_TRANSPORT,
				       &trans, sizeof(trans)) != 0 ||
		    (conf.rcvbuf != 0 &&
		     rte_rds_setsockopt(socks[h], SOL_SOCKET, SO_RCVBUF,
					&conf.rcvbuf, sizeof(int)) != 0) ||
		    rte_rds_bind(socks[h], (const struct sockaddr *)&sin,
				 sizeof(sin)) != 0) {
			printf("socket of host %u: %s\n", h,
			       rte_strerror(rte_errno));
			return -1;
		}
	}
	return 0;
}

/* The engine's next timer tick after now (rds_timer.h: a timer fires in
 * the first pass of its tick). */
static uint64_t
next_timer(uint64_t now)
{
	const struct rds_wheel *w = &rds_engine_get(0)->wheel;
	uint64_t tick = now >> w->shift;

	if (w->nb_armed == 0)
		return UINT64_MAX;
	return RTE_MAX(w->due, tick + 1) << w->shift;
}

static void
print_eth(void)
{
	struct rte_rds_xstat xs[128];
	struct rte_rds_stats rs;
	int n, i;

	/* Every eth counter that is not 0, and the core's with -v. */
	n = rte_rds_xstats_get("eth", xs, RTE_DIM(xs));
	printf("  eth:");
	for (i = 0; i < n && i < (int)RTE_DIM(xs); i++)
		if (xs[i].value != 0)
			printf(" %s=%" PRIu64, xs[i].name, xs[i].value);
	printf("\n");
	if (!conf.verbose || rte_rds_stats_get(-1, &rs) != 0)
		return;
	printf("  core:");
	for (i = 0; i < (int)(sizeof(rs) / sizeof(uint64_t)); i++)
		if (((uint64_t *)&rs)[i] != 0)
			printf(" %s=%" PRIu64, rte_rds_stats_name((unsigned)i),
			       ((uint64_t *)&rs)[i]);
	printf("\n");
}

/* The library's state is libc's (rds_mem_zalloc): bytes in use. */
static uint64_t
heap_bytes(void)
{
	return mallinfo2().uordblks;
}

/* Connections, libc bytes allocated since before the first message
 * (less the fabric's own growth), and the fixed parts of one. */
static void
print_state(uint64_t before, uint64_t fabric_before)
{
	uint64_t conns = 0;
	int64_t d;
	unsigned int e, wnd = rds_eth_nb_ports > 0 ?
			      rds_eth_ports[0]->window : 0;

	for (e = 0; e < rte_rds_engine_count(); e++)
		conns += rds_engine_get(e)->nb_conns;
	d = (int64_t)(heap_bytes() - before) -
	    (int64_t)(sim_fabric_heap_bytes() - fabric_before);
	printf("  state: %" PRIu64 " connections, %" PRId64 " bytes since the "
	       "start: %.0f a connection (struct rds_conn %zu, rds_eth_conn "
	       "%zu, window %u: sent %zu + out of order %zu)\n", conns, d,
	       conns != 0 ? (double)d / conns : 0, sizeof(struct rds_conn),
	       sizeof(struct rds_eth_conn), wnd,
	       wnd * sizeof(struct rds_eth_sent),
	       wnd * sizeof(struct rte_mbuf *));
}

/* CPU seconds of the process (user + system). */
static double
cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static double
wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	const struct sim_fabric_stats *fs;
	uint64_t now = 0, next, polls = 0, bad, mem0, fmem0;
	unsigned int work, h;
	double t0, c0;
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	prog = argv[0];
	parse(argc, argv);
	printf("rds_sim: seed %" PRIu64 ", %u hosts, workload %s, %u "
	       "messages per pair, %u..%u bytes; links %u Gb/s %u+%u ns, "
	       "buffer %u B; loss %g dup %g reorder %g corrupt %g; "
	       "cwnd_init %u\n", conf.seed, conf.hosts, conf.workload,
	       conf.msgs, conf.min_len, conf.max_len, conf.gbps, conf.lat_ns,
	       conf.lat_spread_ns, conf.buf_bytes, conf.loss, conf.dup,
	       conf.reorder, conf.corrupt, conf.cwnd_init);
	if (eal_init() != 0)
		return 2;
	/* The run's chance: ours, and the library's rte_rand(). */
	sim_srand(conf.seed);
	rte_srand(conf.seed);
	rds_sim_clock_now = 0;
	if (sim_fabric_init(&conf, NULL, nb_ports()) != 0 ||
	    lib_init() != 0 || sim_work_init(&conf, socks) != 0) {
		print_replay();
		return 2;
	}
	mem0 = heap_bytes();
	fmem0 = sim_fabric_heap_bytes();
	t0 = wall_s();
	c0 = cpu_s();
	for (;;) {
		do {
			r = rte_rds_engine_poll(0);
			if (r < 0) {
				printf("rte_rds_engine_poll: %s\n",
				       rte_strerror(rte_errno));
				return 2;
			}
			work = (unsigned int)r;
			work += sim_fabric_collect(now);
			work += sim_work_step(now);
			work += sim_fabric_deliver(now);
			polls++;
		} while (work > 0 && !sim_work_done());
		if (sim_work_done())
			break;
		next = RTE_MIN(sim_fabric_next(), next_timer(now));
		if (next == UINT64_MAX || next > conf.limit_ns) {
			printf("  stuck at %.3f ms virtual: %s\n", now / 1e6,
			       next == UINT64_MAX ? "no event, no timer" :
			       "past the time limit");
			break;
		}
		now = RTE_MAX(next, now + 1);
		/* Passes at most every quantum: what is due within one is
		 * taken by one pass at its end. */
		if (conf.quantum_ns > 1)
			now = (now + conf.quantum_ns - 1) / conf.quantum_ns *
			      conf.quantum_ns;
		rds_sim_clock_now = now;
	}
	fs = sim_fabric_stats();
	bad = sim_work_report(now);
	if (conf.flap > 0) {
		uint64_t up = conf.flap_at_ns + conf.flap_for_ns,
			 last = sim_work_last_ns();

		printf("  flap: %" PRIu64 " hosts' links down from %.3f to "
		       "%.3f ms (%" PRIu64 " frames dropped); the last message "
		       "arrived at %.3f ms, %.3f ms after they came back\n",
		       fs->flapped_hosts, conf.flap_at_ns / 1e6, up / 1e6,
		       fs->dropped_flap, last / 1e6,
		       last > up ? (last - up) / 1e6 : 0.0);
		if (fs->dropped_flap == 0) {
			printf("  VIOLATION: the flap dropped nothing (no "
			       "traffic then: move it)\n");
			bad++;
		}
		if (conf.flap_bound_ns != 0 && last > up &&
		    last - up > conf.flap_bound_ns) {
			printf("  VIOLATION: recovery took longer than %.3f "
			       "ms\n", conf.flap_bound_ns / 1e6);
			bad++;
		}
	}
	{
		double dt = wall_s() - t0, dc = cpu_s() - c0;

		printf("  fabric: %" PRIu64 " frames (%" PRIu64 " bytes), arp %"
		       PRIu64 ", lost %" PRIu64 ", buffer drops %" PRIu64
		       ", ring drops %" PRIu64 ", duplicated %" PRIu64
		       ", reordered %" PRIu64 ", corrupted %" PRIu64
		       ", unroutable %" PRIu64 "\n", fs->frames, fs->bytes,
		       fs->arp, fs->dropped_loss, fs->dropped_buf,
		       fs->dropped_ring, fs->duplicated, fs->reordered,
		       fs->corrupted, fs->unroutable);
		print_eth();
		print_state(mem0, fmem0);
		printf("  simulator: %" PRIu64 " events, %" PRIu64 " passes, "
		       "%.3f ms virtual in %.2f s wall, %.2f s CPU: %.0f "
		       "events/s wall, %.0f per CPU second\n", fs->events,
		       polls, now / 1e6, dt, dc, dt > 0 ? fs->events / dt : 0,
		       dc > 0 ? fs->events / dc : 0);
	}
	printf("digest %016" PRIx64 "\n", sim_digest());
	sim_work_fini();
	for (h = 0; h < conf.hosts; h++)
		rte_rds_close(socks[h]);
	/* Frames on the wire first: zero-copy ones point into messages
	 * that rte_rds_fini() frees. */
	sim_fabric_fini();
	rte_rds_fini();
	rte_eal_cleanup();
	if (bad != 0) {
		print_replay();
		return 1;
	}
	printf("PASS\n");
	return 0;
}

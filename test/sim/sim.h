/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test/sim: a deterministic simulation of many hosts on the library's
 * own code (test/README.md, suite sim).
 *
 * One library instance (rte_rds_init() is one per process) holds every
 * host: a host is one local eth address, with its own socket; hosts are
 * spread over net_ring ports, per_port to a port (8 by default; DPDK has
 * at most RTE_MAX_ETHPORTS ports, 32 here, and this copy of eth is built
 * with RDS_ETH_PORT_LADDRS = SIM_HOSTS_PER_PORT = 32 addresses a port
 * at most, the normal build's 8). Every
 * socket is pinned to eth (SO_RDS_TRANSPORT), so that a message between
 * two hosts is eth frames on the simulated wire and never loop. One
 * inline engine, driven by the harness loop with the library's clock
 * (rds_clock.h, -DRDS_SIM_CLOCK) set to virtual time.
 *
 * The fabric (sim_fabric.c) takes every frame a port transmits, finds
 * its source and destination hosts by IPv4 address (ARP: by the target
 * address), and models one switch: each host's uplink and downlink with
 * a rate and a latency, a finite buffer per downlink (tail drop), and
 * loss, duplication, reordering and corruption drawn from the seed.
 */
#ifndef SIM_H
#define SIM_H

#include <stdbool.h>
#include <stdint.h>

struct rte_mbuf;

#define SIM_HOSTS_PER_PORT 32	/* = RDS_ETH_PORT_LADDRS (meson.build) */
#define SIM_MAX_PORTS 32	/* RTE_MAX_ETHPORTS */
#define SIM_MAX_HOSTS (SIM_HOSTS_PER_PORT * SIM_MAX_PORTS)

/* Run parameters (sim_main.c parses them). */
struct sim_conf {
	uint64_t seed;
	unsigned int hosts;
	unsigned int per_port;		/* hosts on one port */
	unsigned int mem_mb;		/* EAL memory (0: from the sizes) */
	const char *workload;		/* "pair", "all", "incast", "perm" */
	unsigned int msgs;		/* per (sender, receiver) pair */
	unsigned int min_len, max_len;	/* message sizes, from the seed */
	unsigned int gbps;		/* link rate */
	unsigned int lat_ns;		/* per link, one way */
	unsigned int lat_spread_ns;	/* + per host, from the seed */
	unsigned int buf_bytes;		/* per switch downlink */
	double loss, dup, reorder, corrupt;	/* per frame */
	unsigned int reorder_ns;	/* at most this extra delay */
	unsigned int cwnd_init;		/* eth cwnd_init= */
	unsigned int max_conns;		/* rte_rds_conf.max_conns (0: the
					 * library's default) */
	unsigned int rcvbuf;		/* SO_RCVBUF of every host's socket
					 * (0: the default) */
	double flap;			/* hosts whose links go down, share */
	uint64_t flap_at_ns, flap_for_ns;	/* from, for how long */
	uint64_t flap_bound_ns;		/* all delivered this soon after */
	uint64_t quantum_ns;		/* engine passes at most this often
					 * (0: at every event) */
	uint64_t limit_ns;		/* virtual time allowed */
	bool bug_dup;			/* harness bug: deliver one twice */
	bool verbose;
};

/* Deterministic PRNG (splitmix64), the run's only source of chance. */
uint64_t sim_rand(void);
void sim_srand(uint64_t seed);
static inline double
sim_rand_unit(void)
{
	return (double)(sim_rand() >> 11) / (double)(UINT64_C(1) << 53);
}

/* The fabric. */
struct sim_fabric_stats {
	uint64_t frames, bytes, arp, dropped_loss, dropped_buf, dropped_ring,
		 duplicated, reordered, corrupted, unroutable, events,
		 dropped_flap, flapped_hosts;
};
int sim_fabric_init(const struct sim_conf *c, const uint16_t *port_of_host,
		    unsigned int nb_ports);
/* IPv4 address of host h (network order). */
uint32_t sim_host_ip(unsigned int h);
/* Take what the ports transmitted; returns frames taken. */
unsigned int sim_fabric_collect(uint64_t now);
/* Deliver what is due at now; returns frames delivered. */
unsigned int sim_fabric_deliver(uint64_t now);
/* Time of the next event, UINT64_MAX if none. */
uint64_t sim_fabric_next(void);
const struct sim_fabric_stats *sim_fabric_stats(void);
/* Bytes of the event queue (malloc'd). */
uint64_t sim_fabric_heap_bytes(void);
/* Digest of every event so far (time, kind, hosts, frame bytes). */
uint64_t sim_digest(void);
void sim_digest_add(const void *p, size_t n);
void sim_fabric_fini(void);

/* Workloads and the checker (sim_work.c). */
int sim_work_init(const struct sim_conf *c, const int *sock_of_host);
/* Send and receive what can be; returns units of work. */
unsigned int sim_work_step(uint64_t now);
bool sim_work_done(void);
/* Virtual time of the last message delivered in order. */
uint64_t sim_work_last_ns(void);
/* Print the results; returns the number of violations found. */
uint64_t sim_work_report(uint64_t now);
void sim_work_fini(void);

#endif /* SIM_H */

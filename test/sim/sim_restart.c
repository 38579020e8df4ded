/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rack restart (sim.h): --restart SHARE of the hosts, drawn from the
 * seed, restart at once at --restart-at-us and come back
 * --restart-down-us later, as processes that were killed and started
 * again on the same address and port.
 *
 * They go: the fabric drops their frames in flight and every frame from
 * or to them until they are back (a host whose process is gone answers
 * nothing: its NIC is the process's); the checker takes what their
 * sockets hold (delivered to the old incarnation) and is told, for each
 * pair, what it may see next (sim_work.c); their sockets are closed;
 * every connection of theirs (local address theirs) is destroyed with
 * its eth frame-layer state (rds_conn_destroy, as test/fuzz/fuzz_state.c
 * does between inputs), and their congestion maps cleared. What is left
 * of them in the instance is what a restarted process finds again: its
 * address, port and MAC, and the neighbour tables. A survivor's
 * connections to them stay as they were: it learns of the restart from
 * the wire (eth's epochs, doc/guide.md).
 *
 * They come back: a new socket each, bound on the same address and port,
 * and the workload goes on. Their new connections start new epochs of
 * the clock (rds_eth_epoch.c): a restart within the epoch unit of the
 * old connections' start (1/1024 s) breaks eth's assumption that the
 * clock moved on, hence --restart-down-us (2,000 by default).
 *
 * The hosts are in one instance, so "their connections" are the
 * instance's connections whose local address is theirs; both ends of a
 * pair are connections of the one engine, and a survivor's end is never
 * touched.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_rds.h>
#include <rte_rds_socket.h>

#include "rds_private.h"
#include "sim.h"

static struct {
	struct sim_conf c;
	int *sock;
	bool down[SIM_MAX_HOSTS];	/* restarting */
	unsigned int nb;		/* how many */
	enum { R_NONE, R_PENDING, R_DOWN, R_BACK } state;
	uint64_t conns_destroyed, maps_cleared;
	uint64_t at_ns, back_ns;	/* when they went, came back */
} R;

int
sim_restart_init(const struct sim_conf *c, int *sock_of_host)
{
	unsigned int *order, i, j, t;

	memset(&R, 0, sizeof(R));
	R.c = *c;
	R.sock = sock_of_host;
	if (c->restart <= 0)
		return 0;
	/* round(share x hosts) of them, at least one, from the seed: the
	 * first of a shuffle. */
	R.nb = (unsigned int)(c->restart * c->hosts + 0.5);
	R.nb = RTE_MAX(R.nb, 1u);
	order = malloc(c->hosts * sizeof(*order));
	if (order == NULL)
		return -1;
	for (i = 0; i < c->hosts; i++)
		order[i] = i;
	for (i = 0; i < R.nb; i++) {
		j = i + (unsigned int)(sim_rand() % (c->hosts - i));
		t = order[i];
		order[i] = order[j];
		order[j] = t;
		R.down[order[i]] = true;
	}
	free(order);
	R.state = R_PENDING;
	return 0;
}

uint64_t
sim_restart_next(void)
{
	if (R.state == R_PENDING)
		return R.c.restart_at_ns;
	if (R.state == R_DOWN)
		return R.at_ns + R.c.restart_down_ns;
	return UINT64_MAX;
}

/* The oldest message from s to d that s's connection still holds, as the
 * checker numbers it (its header's seq); dflt if none. */
static uint32_t
unacked_lo(unsigned int s, unsigned int d, uint32_t dflt)
{
	const struct rds_msg_list *lists[2];
	struct rds_conn_key key;
	struct rds_conn *c;
	struct rds_msg *m;
	uint32_t lo = dflt;
	struct sim_hdr hd;
	unsigned int i;

	memset(&key, 0, sizeof(key));
	rds_addr_from_v4(&key.laddr, sim_host_ip(s));
	rds_addr_from_v4(&key.faddr, sim_host_ip(d));
	key.trans_id = RTE_RDS_TRANS_ETH;
	c = rds_conn_lookup(rds_engine_get(0), &key);
	if (c == NULL)
		return dflt;
	lists[0] = &c->retrans_q;
	lists[1] = &c->send_q;
	for (i = 0; i < 2; i++)
		TAILQ_FOREACH(m, lists[i], link) {
			if (m->type != RDS_MSG_DATA || m->len < sizeof(hd))
				continue;
			memcpy(&hd, rds_msg_data(m), sizeof(hd));
			if (hd.magic == SIM_MAGIC && hd.seq < lo)
				lo = hd.seq;
		}
	return lo;
}

/* Everything of host h's in the library goes but its address. */
static void
host_gone(unsigned int h)
{
	struct rds_engine *e = rds_engine_get(0);
	struct rds_conn *c, *next;
	struct rds_cong_map *map;
	struct in6_addr a;
	unsigned int w;

	rds_addr_from_v4(&a, sim_host_ip(h));
	for (c = TAILQ_FIRST(&e->conns); c != NULL; c = next) {
		next = TAILQ_NEXT(c, link);
		if (!rds_addr_eq(&c->key.laddr, &a))
			continue;
		rds_conn_destroy(c);
		R.conns_destroyed++;
	}
	/* A new process's map has no port congested. */
	map = rds_cong_map_get(&a);
	for (w = 0; map != NULL && w < RDS_CONG_MAP_WORDS; w++)
		if (map->bits[w] != 0) {
			memset(map->bits, 0, sizeof(map->bits));
			__atomic_add_fetch(&map->gen, 1, __ATOMIC_RELEASE);
			R.maps_cleared++;
			break;
		}
}

static int
rack_down(uint64_t now)
{
	unsigned int h;

	R.at_ns = now;
	for (h = 0; h < R.c.hosts; h++)
		if (R.down[h])
			sim_fabric_set_down(h, true);
	sim_work_restart(R.down, now, unacked_lo);
	for (h = 0; h < R.c.hosts; h++) {
		if (!R.down[h])
			continue;
		if (rte_rds_close(R.sock[h]) != 0) {
			printf("close of host %u's socket: %s\n", h,
			       rte_strerror(rte_errno));
			return -1;
		}
		R.sock[h] = -1;
	}
	/* The engine lets the sockets go, then their connections go. */
	if (rte_rds_engine_poll(0) < 0)
		return -1;
	for (h = 0; h < R.c.hosts; h++)
		if (R.down[h])
			host_gone(h);
	R.state = R_DOWN;
	return 1;
}

static int
rack_back(uint64_t now)
{
	unsigned int h;

	R.back_ns = now;
	for (h = 0; h < R.c.hosts; h++) {
		if (!R.down[h])
			continue;
		R.sock[h] = sim_host_socket(h);
		if (R.sock[h] < 0)
			return -1;
		sim_fabric_set_down(h, false);
	}
	sim_work_comeback(now);
	R.state = R_BACK;
	return 1;
}

int
sim_restart_step(uint64_t now)
{
	if (now < sim_restart_next())
		return 0;
	return R.state == R_PENDING ? rack_down(now) : rack_back(now);
}

uint64_t
sim_restart_report(void)
{
	const struct sim_fabric_stats *fs = sim_fabric_stats();
	uint64_t bad = 0;
	unsigned int h, n = 0;

	printf("  restart: %u hosts (", R.nb);
	for (h = 0; h < R.c.hosts; h++)
		if (R.down[h])
			printf("%s%u", n++ != 0 ? " " : "", h);
	printf(") ");
	if (R.state == R_PENDING) {
		printf("never went: the run ended first\n");
		return 1;
	}
	printf("went at %.3f ms", R.at_ns / 1e6);
	if (R.state == R_BACK)
		printf(", back at %.3f ms", R.back_ns / 1e6);
	printf("; %" PRIu64 " connections destroyed, %" PRIu64 " maps "
	       "cleared; fabric: %" PRIu64 " frames purged, %" PRIu64
	       " dropped while down\n", R.conns_destroyed, R.maps_cleared,
	       fs->purged, fs->dropped_down);
	if (R.state != R_BACK) {
		printf("  VIOLATION: the restarted hosts never came back\n");
		bad++;
	}
	return bad;
}

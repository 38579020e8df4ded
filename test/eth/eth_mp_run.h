/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the eth_mp sources share: the run's transport and what it made
 * (eth_mp_env.c: clean-up, signals, commands, namespaces), the peers
 * (eth_mp_peers.c: start, commands, reports, waits, digests) and the
 * tests (eth_mp.c). The protocol with eth_peer is eth_mp.h.
 */
#ifndef ETH_MP_RUN_H_
#define ETH_MP_RUN_H_

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <CUnit/CUnit.h>

#include "rds_test.h"
#include "eth_mp.h"

enum xport { XP_MEMIF, XP_AFP };

#define IPA_MEMIF "10.253.0.1"
#define IPB_MEMIF "10.253.0.2"
#define MACA_MEMIF "02:00:0a:fd:00:01"
#define MACB_MEMIF "02:00:0a:fd:00:02"
/* The namespaces' own addresses (kernel), and RDS's on the same link. */
#define KIPA_AFP "10.253.1.1"
#define KIPB_AFP "10.253.1.2"
#define IPA_AFP "10.253.1.11"
#define IPB_AFP "10.253.1.12"
/* "eth_mp afpacket6": RDS's addresses are IPv6 (neighbour discovery on
 * the veth, the kernels' IPv6 off: they see only frames). */
#define IPA_AFP6 "fd00:fd::11"
#define IPB_AFP6 "fd00:fd::12"
#define NS_PREFIX "rdst-eth-"

#define MAX_PEERS 4

struct kv {
	char name[48];
	uint64_t v;
};

struct pair_digest {
	unsigned int src, dst;
	uint64_t msgs, bytes, first;
	char sha[65];
};

struct peer {
	const char *name;
	int slot;			/* in live_pids */
	pid_t pid;
	int cmd_fd, rep_fd, out_fd;
	char rbuf[4096], obuf[8192];
	size_t rlen, olen;
	bool exited;
	int status;
	bool up, ready, done, done_ok, bye, bye_ok;
	uint64_t prog_rx, prog_tx, prog_ok;
	struct kv stat[64];
	unsigned int nstat;
	struct pair_digest tx[16], rx[16];
	unsigned int ntx, nrx;
	uint64_t rdma[2][7];		/* RDMA lines, per cookie gen */
	bool has_rdma[2];
	uint64_t target[4];		/* TARGET: gen msgs late counter */
	bool has_target;
};

/* What a peer is started with. */
struct peer_args {
	const char *name;
	unsigned int index;
	const char *lcore;
	const char *vdev;
	uint64_t msgs;
	const char *faults, *faults_at;
	uint64_t seed;
	unsigned int gen, peer_gen;
	bool resync;
	const char *rdma;
	const char *mr_file;
	uint64_t rdma_ops;
};

typedef bool (*pred_fn)(struct peer **ps, unsigned int n);

extern enum xport xport;
extern bool mp_v6;			/* afpacket6 */
extern char peer_path[];
extern pid_t self;
extern volatile pid_t live_pids[];
extern char ns_a[], ns_b[64];
extern char shm_files[][128];
extern volatile int shm_made;

void cleanup_all(void);
void watchdog(unsigned int secs);
void signals_init(void);
void sweep_stale_netns(void);
void sweep_stale_shm(void);
int netns_up(void);
void netns_down(void);
int peer_spawn(struct peer *p, const struct peer_args *a, int slot);
void peer_cmd(struct peer *p, const char *cmd);
uint64_t peer_stat(const struct peer *p, const char *name);
void peer_reap(struct peer *p, bool block);
void pump(struct peer **ps, unsigned int n, int ms);
bool
wait_for(struct peer **ps, unsigned int n, pred_fn pred, unsigned int secs,
	 const char *what);
bool all_up(struct peer **ps, unsigned int n);
bool all_ready(struct peer **ps, unsigned int n);
bool all_done_or_failed(struct peer **ps, unsigned int n);
void peers_finish(struct peer **ps, unsigned int n);
bool peer_ok(const struct peer *p);
int
compare_pairs(const struct peer *tx, const struct peer *rx,
	      uint32_t src_mask);
void print_eth(const struct peer *p);

#endif /* ETH_MP_RUN_H_ */

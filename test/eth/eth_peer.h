/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the eth_peer sources share: the options, reports and faults
 * (eth_peer.c, with the run), the RDMA initiator and target
 * (eth_peer_rdma.c).
 */
#ifndef ETH_PEER_H_
#define ETH_PEER_H_

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <linux/rds.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_rds.h>
#include <rte_rds_eth.h>
#include <rte_rds_info.h>
#include <rte_rds_stats.h>

#include "rds_test.h"
#include "rds_stream.h"
#include "eth_mp.h"

struct opts {
	const char *name;
	unsigned int index;		/* 0: A (sockets 0, 1), 1: B (2, 3) */
	const char *ipa, *ipb;
	const char *dev;
	const char *vdev;
	const char *lcore;
	const char *mac, *peer_mac;	/* static neighbours, or ARP */
	uint64_t msgs;			/* each way */
	uint32_t large_one_in;
	const char *faults;		/* none, all, dupreorder */
	const char *faults_at;		/* go, cookie */
	uint64_t seed;
	uint32_t gen, peer_gen;
	bool resync;
	const char *rdma;		/* none, initiator, target */
	const char *mr_file;
	uint64_t rdma_ops;
	uint32_t old_op_us;
	long ppid;
	bool pin;
};

#define MAX_OPS (1 << 18)
#define MAX_GEN 4

/* The RDMA initiator's state. */
struct rdma_ini {
	int32_t status[MAX_OPS];	/* -1: not notified yet */
	uint32_t gen[MAX_OPS];
	uint64_t res[MAX_OPS];		/* old values (atomic results) */
	uint32_t n, outstanding;
	uint64_t cookie;
	int cookie_gen;			/* -1: none yet */
	uint64_t last_old_tsc;
	uint64_t issued[MAX_GEN];
	uint64_t st[MAX_GEN][RDS_RDMA_OTHER_ERROR + 2];
};

/* The RDMA target's state. */
struct rdma_tgt {
	volatile uint64_t *counter;
	uint64_t cookie;
	bool cookie_sent;
	uint64_t msgs, late;
	int64_t last_op;
};

extern struct opts o;
extern const char *lip, *fip;
extern bool failed;
extern int rsock;
extern struct rdma_ini ini;
extern struct rdma_tgt tgt;

void report(const char *fmt, ...);
void set_faults(const char *mode);
bool rdma_on(void);
bool is_initiator(void);
int rdma_setup(void);
int rdma_recv_one(void);
int rdma_step(void);
bool rdma_finished(void);
void ini_results(void);

#endif /* ETH_PEER_H_ */

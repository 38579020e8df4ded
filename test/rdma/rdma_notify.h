/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the rdma_notify sources share: the client's region and the batch
 * of operations, their sending and the checks of their notifications and
 * effects (rdma_notify.c, with main); the cases on notifications and
 * RDS_CANCEL_SENT_TO (rdma_notify_cases.c) and on resets and lost frames
 * (rdma_notify_faults.c).
 */
#ifndef RDMA_NOTIFY_H_
#define RDMA_NOTIFY_H_

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include <rte_errno.h>
#include <rte_rds.h>
#include <rte_rds_eth.h>
#include <rte_rds_loop.h>
#include <rte_rds_stats.h>
#ifdef RDMA_HAVE_IB
#include <rte_rds_ib.h>
#endif

#include "rdma_common.h"
#ifdef RDMA_HAVE_IB
#include "rdma_ib.h"
#endif
#include "rdma_eth.h"

#define SENTINEL 0xDEADBEEFCAFEF00DULL

#define MAX_OPS 128

/* Client region (READWRITE) whose cookie the server has received. */
struct setup {
	struct rdma_env env;
	struct rdma_guard g;
	uint64_t cookie;
};

/* One operation of a batch. */
enum kind { K_READ, K_WRITE, K_FADD, K_CSWP, K_NB };

struct op {
	enum kind kind;
	bool bad;		/* targets outside the region: must fail */
	uint64_t token;
	uint64_t result;	/* atomics: old value */
	uint8_t local[256];
	struct rds_iovec iov[2];
};

extern const char *const kind_name[];
extern struct op ops[];

bool setup_up(struct setup *su);
void setup_down(struct setup *su);
bool op_send(struct setup *su, unsigned int i, uint64_t flags);
void make_tokens(unsigned int n, uint64_t seed);
int token_index(uint64_t token, unsigned int n);
unsigned int
client_drain(struct setup *su, unsigned int n, uint8_t *got,
	     unsigned int want, unsigned int timeout_ms);
unsigned int
check_notes(const struct rds_rdma_notify *nt, unsigned int nnt,
	    unsigned int n, int want_good, int want_bad, const char *what);
void
run_batch(unsigned int n, unsigned int bad_every, uint64_t flags,
	  int recverr, size_t ctl_space, int want_good, int want_bad,
	  const char *what);
void test_notify_me(void);
void test_notify_me_mixed(void);
void test_silent(void);
void test_recverr(void);
void test_notify_first(void);
void test_recverr_at_sendmsg(void);
void test_silent_flag(void);
void test_cancel(void);
void test_reset(void);
void test_drop(void);

#endif /* RDMA_NOTIFY_H_ */

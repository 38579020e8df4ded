/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the rdma_faults sources share: the context, the operations and
 * their checks, a case's start and end (rdma_faults.c, with main); the
 * cases on a faulty wire (rdma_faults_wire.c: frame faults, resets, a
 * small window) and on peers that are gone (rdma_faults_gone.c).
 */
#ifndef RDMA_FAULTS_H_
#define RDMA_FAULTS_H_

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include <rte_errno.h>
#include <rte_rds.h>
#include <rte_rds_eth.h>
#include <rte_rds_stats.h>

#include "rds_eth.h"		/* RDS_ETH_F_* frame types */
#include "rdma_common.h"
#include "rdma_eth.h"

#define SENTINEL 0xDEADBEEFCAFEF00DULL

#define GAP 16
#define MAX_OPS 64
#define GONE_PORT 4001

enum kind { K_READ, K_WRITE, K_FADD, K_CSWP };

struct op {
	enum kind kind;
	size_t bytes;
	uint64_t remote;	/* offset in the region */
	uint8_t *buf;		/* GAP canaries, bytes, GAP canaries */
	uint8_t *want;		/* READ: the region's bytes; WRITE: ours */
	uint64_t token;
	uint64_t result;	/* atomics */
	uint64_t cswp_new;
	int status;		/* -1: none yet */
	unsigned int nstatus;
	unsigned int nmsg;
};

struct ctx {
	struct rdma_env env;
	struct rdma_guard g;
	uint8_t *before;	/* the region before */
	uint64_t cookie;
	struct op ops[MAX_OPS];
	unsigned int n;
};

bool ctx_up(struct ctx *cx);
void ctx_down(struct ctx *cx);
struct op *
op_new(struct ctx *cx, enum kind k, size_t bytes, uint64_t remote);
bool
op_send(struct ctx *cx, struct op *o, const struct sockaddr_in *to,
	uint64_t cookie);
unsigned int
take_notes(struct ctx *cx, unsigned int want, unsigned int timeout_ms,
	   unsigned int *bad);
void
take_msgs(struct ctx *cx, unsigned int timeout_ms, unsigned int *bad);
bool canaries_ok(const struct op *o);
unsigned int
check_ops(struct ctx *cx, const uint64_t *counter, bool may_drop,
	  const char *what);
uint64_t *
case_up(struct ctx *cx, unsigned int secs, const char *name,
	const char *opts);
void
case_end(struct ctx *cx, const uint64_t *counter, unsigned int bad,
	 const char *what);
void test_faults(void);
void test_faults_resets(void);
void test_reset_answer_initiator(void);
void test_reset_answer_target(void);
void test_reset_message(void);
void test_small_window(void);
void test_gone(void);
void test_gone_after_ack(void);
void test_pause(void);
void test_gone_dark(void);

#endif /* RDMA_FAULTS_H_ */

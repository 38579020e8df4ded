/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the rdma_security sources share: the context, the registration
 * and the checked operation (rdma_security.c, with main), the cases on
 * cookies and bounds (rdma_security_keys.c), on the memory under a
 * region (rdma_security_mem.c), on guessing keys
 * (rdma_security_guess.c) and on a peer that presents wrong ones
 * (rdma_security_abuse.c).
 */
#ifndef RDMA_SECURITY_H_
#define RDMA_SECURITY_H_

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <CUnit/CUnit.h>

#include <rte_errno.h>
#include <rte_rds.h>

#include "rdma_common.h"

#define NPAGES 4
#define REGION_LEN (NPAGES * RDMA_PAGE)

enum kind { K_READ, K_WRITE, K_FADD, K_CSWP };

struct ctx {
	struct rdma_env env;
	struct rdma_guard g;	/* the client's pages */
	uint8_t *snap;		/* their content before each op */
	uint8_t *local;		/* server's iovec area */
	size_t local_space;
	unsigned int seq;
	unsigned int fails;
};

/* Where an op goes and where the SYNC that follows it goes. */
struct dest {
	const struct sockaddr_in *op_to;
	const struct sockaddr_in *sync_to;
	int sync_sock;
};

#define DEST_CLIENT(cx) { &(cx)->env.ca, &(cx)->env.ca, (cx)->env.cli }

void ctx_begin(struct ctx *cx, unsigned int secs, const char *name);
void ctx_end(struct ctx *cx);
uint64_t
reg(struct ctx *cx, int s, const struct sockaddr_in *from, const void *addr,
    uint64_t bytes, uint64_t flags);
void
run_op(struct ctx *cx, const struct dest *d, enum kind k, uint64_t cookie,
       uint64_t off, uint64_t len, bool ok, const uint8_t *target,
       const char *what);
void test_bounds(void);
void test_cookies(void);
void test_owner(void);
void test_rights(void);
void test_unaligned(void);
void test_handover_region(void);
void test_handover_local(void);
void test_readonly(void);
void test_remap(void);
void test_predictor(void);
void test_keys(void);
void test_key_source(void);
void test_bad_keys(void);
void test_stale_keys(void);
bool hardware_keys(void);

#endif /* RDMA_SECURITY_H_ */

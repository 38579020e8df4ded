/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the sources of rxe_ib share (rxe_ib.c says what the binary
 * tests): includes, the addresses, the helpers of rxe_ib.c, the test of
 * rxe_ib_rdma.c.
 */
#ifndef RDS_RXE_IB_H
#define RDS_RXE_IB_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <CUnit/CUnit.h>

#include <rte_errno.h>
#include <rte_rds.h>
#include <rte_rds_ib.h>

#include "rds_test.h"

/* The two local addresses (RDS_IB_ADDR_A, RDS_IB_ADDR_B). */
extern const char *addr_a, *addr_b;
/* Credit flow control on both ends, with a small receive ring. */
extern bool use_credits;
extern bool use_stall;	/* no credits, a short stall_ms */
extern bool use_ring;	/* with use_stall: srq=0, a small ring */
extern const char *extra_opts;	/* more options of both addresses */
extern const char *extra_opts_b;	/* B's instead, if not NULL */

/* Helpers (rxe_ib.c). */

int ib_socket(const char *ip, int bufsz);
struct sockaddr_in sock_name(int s);
void lib_up(void);

/* The tests of rxe_ib_rdma.c. */
/* One-sided READ, WRITE and atomics over a real RC QP, with zero-based
 * regions (the cookie's offset is the in-page offset). */
void test_rdma(void);

#endif /* RDS_RXE_IB_H */

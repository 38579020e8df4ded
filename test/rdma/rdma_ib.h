/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RDMA_IB_H
#define RDMA_IB_H

/*
 * The ib transport of the rdma suite (rdma_ib.c): the rxe device of the
 * test VM, addresses 1..4 from RDS_IB_ADDR_A .. RDS_IB_ADDR_D, each
 * declared "IP=ib" with the options of rte_rds_ib.h. Built where the ib
 * driver is (RDMA_HAVE_IB).
 */

/* Options appended to every ib address for the next rdma_conf() (e.g.
 * "recv_wr=32,flow_control=0,stall_ms=1000"); NULL or "" for none,
 * as after rdma_env_down(). RDS_TEST_IB_OPTS is appended as well. */
void rdma_ib_set_opts(const char *opts);

#endif /* RDMA_IB_H */

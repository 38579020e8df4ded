/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the ib test binaries that run inside the rxe VM
 * (test/rxe/run-in-vm.sh): their addresses, and a socket's name.
 */
#include <stdio.h>
#include <stdlib.h>

#include <rte_rds.h>

#include "rds_test.h"

bool
rds_test_ib_addrs(const char **a, const char **b)
{
	*a = getenv("RDS_IB_ADDR_A");
	*b = getenv("RDS_IB_ADDR_B");
	if (*a != NULL && *b != NULL)
		return true;
	printf("SKIP: RDS_IB_ADDR_A/RDS_IB_ADDR_B not set: run me through "
	       "test/rxe/run-in-vm.sh (inside the rxe VM)\n");
	return false;
}

struct sockaddr_in
rds_test_sock_name(int s)
{
	struct sockaddr_in sin = { 0 };
	socklen_t len = sizeof(sin);

	if (rte_rds_getsockname(s, (struct sockaddr *)&sin, &len) != 0)
		printf("rte_rds_getsockname(%d) failed\n", s);
	return sin;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ib transport of the rdma suite: the rxe (soft-RoCE) device of the
 * test VM (test/rxe/run-in-vm.sh), four local addresses on it, every
 * socket pinned to RDS_TRANS_IB; so every operation is a verbs work
 * request on an RC queue pair (READ, WRITE, atomic) between two local
 * addresses, and every region a verbs MR.
 *
 *   address 1  $RDS_IB_ADDR_A (the client; the VM's 10.0.2.15)
 *   address 2  $RDS_IB_ADDR_B (the server; 10.0.2.16)
 *   address 3  $RDS_IB_ADDR_C (another local address; 10.0.2.17)
 *   address 4  $RDS_IB_ADDR_D (a local address with no socket; 10.0.2.18)
 *
 * Each is declared "IP=ib" with the per-address options of rte_rds_ib.h:
 * dev=$RDS_IB_DEV when set (run-in-vm.sh: rxe0), those a test set with
 * rdma_ib_set_opts() and $RDS_TEST_IB_OPTS appended (e.g.
 * "stall_ms=2000"). With no RDMA device (no entry in
 * /sys/class/infiniband) or the addresses unset, the binary prints why
 * and exits 77: it never runs the cases over something else.
 */

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_rds.h>

#include "rdma_common.h"
#include "rdma_ib.h"

static const char *const ib_env[RDMA_NB_IP + 1] = {
	NULL, "RDS_IB_ADDR_A", "RDS_IB_ADDR_B", "RDS_IB_ADDR_C",
	"RDS_IB_ADDR_D",
};

static struct rdma_transport rdma_ib;
static char extra_opts[128];

void
rdma_ib_set_opts(const char *opts)
{
	snprintf(extra_opts, sizeof(extra_opts), "%s",
		 opts != NULL ? opts : "");
}

static const char *
ib_unavailable(void)
{
	static char why[160];
	struct dirent *de;
	unsigned int i, ndev = 0;
	DIR *d;

	for (i = 1; i <= RDMA_NB_IP; i++) {
		const char *v = getenv(ib_env[i]);

		if (v == NULL || v[0] == '\0') {
			snprintf(why, sizeof(why), "%s not set: run me "
				 "through test/rxe/run-in-vm.sh (the rxe VM)",
				 ib_env[i]);
			return why;
		}
		rdma_ib.ip[i] = v;
	}
	d = opendir("/sys/class/infiniband");
	if (d != NULL) {
		while ((de = readdir(d)) != NULL)
			if (de->d_name[0] != '.')
				ndev++;
		closedir(d);
	}
	if (ndev == 0)
		return "no RDMA device (/sys/class/infiniband is empty or "
		       "missing)";
	return NULL;
}

static int
ib_conf(struct rte_rds_conf *conf, uint32_t lcore,
	enum rte_rds_idle_policy idle)
{
	const char *dev = getenv("RDS_IB_DEV");
	const char *opts = getenv("RDS_TEST_IB_OPTS");
	char spec[RTE_RDS_ARGSIZE + 32];
	unsigned int i;
	int n;

	rte_rds_conf_init(conf);
	conf->nb_engines = 1;
	conf->engine[0].lcore_id = lcore;
	conf->engine[0].idle = idle;
	for (i = 1; i <= RDMA_NB_IP; i++) {
		n = snprintf(spec, sizeof(spec), "%s=ib%s%s%s%s%s%s",
			     rdma_ib.ip[i],
			     dev != NULL && dev[0] != '\0' ? ",dev=" : "",
			     dev != NULL ? dev : "",
			     extra_opts[0] != '\0' ? "," : "", extra_opts,
			     opts != NULL && opts[0] != '\0' ? "," : "",
			     opts != NULL ? opts : "");
		if (n < 0 || (size_t)n >= sizeof(spec) ||
		    rte_rds_conf_add_addr_str(conf, spec) != 0) {
			printf("ib address '%s': %s\n", spec,
			       rte_strerror(rte_errno));
			rte_rds_conf_free(conf);
			return -1;
		}
	}
	return 0;
}

static void
ib_clear(void)
{
	rdma_ib_set_opts(NULL);
}

static struct rdma_transport rdma_ib = {
	.name = "ib",
	.pin = RDS_TRANS_IB,
	/* Completions and ACKs of a few round trips under TCG (ib_send_lat
	 * there: 12-15 us; the machine is shared). */
	.quiet_ms = 20,
	.conf = ib_conf,
	.clear = ib_clear,
	.unavailable = ib_unavailable,
	/* rxe_rdma.c waited 30 s where the loop suite waits 5 s. */
	.slow = 6,
	.no_masked_atomics = true,
	.error_resets = true,
	.rkey_per_device = true,
};

RTE_INIT(rdma_ib_register)
{
	rdma_transport_register(&rdma_ib);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the ib transport's per-address options (rte_rds_ib.h):
 * the defaults, every key, the two sets of receive keys (the shared
 * receive queue's, a ring of each connection's own), and bad keys or
 * values refused with EINVAL, both by the parser and by rte_rds_init()
 * before it looks for an RDMA device (none is needed here).
 */
#include <errno.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "rds_test.h"
#include "rds_ib.h"

#define IB_IP "10.254.0.1"

static void
test_defaults(void)
{
	struct rds_ib_opts o;

	memset(&o, 0xa5, sizeof(o));
	CU_ASSERT_EQUAL(rds_ib_opts_parse(NULL, &o), 0);
	CU_ASSERT_EQUAL(o.cm_port, 18634);
	CU_ASSERT_EQUAL(o.send_wr, 127);
	CU_ASSERT_EQUAL(o.recv_wr, 1024);
	/* The shared receive queue, hence no credits. */
	CU_ASSERT(o.srq);
	CU_ASSERT_EQUAL(o.srq_min, 1024);
	CU_ASSERT_EQUAL(o.srq_max, 8192);
	CU_ASSERT(!o.flow_control);
	CU_ASSERT_EQUAL(o.stall_ms, 5000);
	CU_ASSERT(o.zerocopy);
	CU_ASSERT_EQUAL(o.zc_min, 1024);
	CU_ASSERT_EQUAL(o.proto, 0x0301);	/* mainline's proposal */
	memset(&o, 0xa5, sizeof(o));
	CU_ASSERT_EQUAL(rds_ib_opts_parse("", &o), 0);
	CU_ASSERT_EQUAL(o.cm_port, 18634);
	CU_ASSERT(o.srq);
	CU_ASSERT(!o.flow_control);
	/* One key leaves the others at their defaults. */
	CU_ASSERT_EQUAL(rds_ib_opts_parse("srq_min=64", &o), 0);
	CU_ASSERT_EQUAL(o.srq_min, 64);
	CU_ASSERT_EQUAL(o.srq_max, 8192);
	CU_ASSERT_EQUAL(o.send_wr, 127);
	CU_ASSERT_EQUAL(o.cm_port, 18634);
	CU_ASSERT_EQUAL(o.stall_ms, 5000);
	/* srq=0: a ring of the connection's own, with credits. */
	CU_ASSERT_EQUAL(rds_ib_opts_parse("srq=0", &o), 0);
	CU_ASSERT(!o.srq);
	CU_ASSERT(o.flow_control);
	CU_ASSERT_EQUAL(o.recv_wr, 1024);
	CU_ASSERT_EQUAL(rds_ib_opts_parse("srq=0,recv_wr=64", &o), 0);
	CU_ASSERT_EQUAL(o.recv_wr, 64);
	CU_ASSERT(o.flow_control);
	/* The bound left at its default follows the one given. */
	CU_ASSERT_EQUAL(rds_ib_opts_parse("srq_max=256", &o), 0);
	CU_ASSERT_EQUAL(o.srq_min, 256);
	CU_ASSERT_EQUAL(o.srq_max, 256);
	CU_ASSERT_EQUAL(rds_ib_opts_parse("srq_min=16384", &o), 0);
	CU_ASSERT_EQUAL(o.srq_min, 16384);
	CU_ASSERT_EQUAL(o.srq_max, 16384);
}

static void
test_every_key(void)
{
	struct rds_ib_opts o;

	CU_ASSERT_EQUAL(rds_ib_opts_parse("dev=rxe0,cm_port=7000,send_wr=512,"
					  "srq=0,recv_wr=16,flow_control=0,"
					  "stall_ms=0,zerocopy=0,zc_min=1",
					  &o), 0);
	CU_ASSERT(!o.srq);
	CU_ASSERT(!o.zerocopy);
	CU_ASSERT_EQUAL(o.zc_min, 1);
	CU_ASSERT_EQUAL(o.cm_port, 7000);
	CU_ASSERT_EQUAL(o.send_wr, 512);
	CU_ASSERT_EQUAL(o.recv_wr, 16);
	CU_ASSERT(!o.flow_control);
	CU_ASSERT_EQUAL(o.stall_ms, 0);
	/* The bounds themselves. */
	CU_ASSERT_EQUAL(rds_ib_opts_parse("cm_port=1,send_wr=16,srq=0,"
					  "recv_wr=32768,flow_control=1,"
					  "stall_ms=3600000,zerocopy=1,"
					  "zc_min=4096", &o), 0);
	CU_ASSERT(o.zerocopy);
	CU_ASSERT_EQUAL(o.zc_min, 4096);
	CU_ASSERT_EQUAL(o.cm_port, 1);
	CU_ASSERT_EQUAL(o.send_wr, 16);
	CU_ASSERT_EQUAL(o.recv_wr, 32768);
	CU_ASSERT(o.flow_control);
	CU_ASSERT_EQUAL(o.stall_ms, 3600000);
	CU_ASSERT_EQUAL(rds_ib_opts_parse("cm_port=65535", &o), 0);
	CU_ASSERT_EQUAL(o.cm_port, 65535);
	CU_ASSERT_EQUAL(rds_ib_opts_parse("srq=1,srq_min=16,srq_max=32768,"
					  "flow_control=0", &o), 0);
	CU_ASSERT(o.srq);
	CU_ASSERT(!o.flow_control);
	CU_ASSERT_EQUAL(o.srq_min, 16);
	CU_ASSERT_EQUAL(o.srq_max, 32768);
	/* The version proposed: either of the two the kernels propose. */
	CU_ASSERT_EQUAL(rds_ib_opts_parse("proto=4.1", &o), 0);
	CU_ASSERT_EQUAL(o.proto, 0x0401);
	CU_ASSERT_EQUAL(rds_ib_opts_parse("send_wr=64,proto=3.1", &o), 0);
	CU_ASSERT_EQUAL(o.proto, 0x0301);
	CU_ASSERT_EQUAL(o.send_wr, 64);
}

static const char *const bad_opts[] = {
	"foo=1",			/* unknown key */
	"ib_recv_wr=64",		/* the old conf field's name */
	"srq=0,recv_wr=64,bogus=2",
	"recv_wr=64",			/* a ring's: not with the SRQ */
	"srq=1,recv_wr=64",
	"flow_control=1",		/* credits need a ring of one's own */
	"srq=0,srq_min=64",		/* the SRQ's: not with a ring */
	"srq=0,srq_max=64",
	"srq=2",
	"srq_min=15",
	"srq_max=32769",
	"srq_min=512,srq_max=256",	/* min over max */
	"send_wr=abc",
	"send_wr=64k",
	"send_wr=0x100",		/* decimal only */
	"send_wr=-16",
	"send_wr=+64",
	"send_wr= 64",
	"send_wr=",
	"send_wr",			/* no value */
	"send_wr=15",			/* under 16 */
	"srq=0,recv_wr=0",
	"srq=0,recv_wr=32769",		/* over 32768 */
	"srq=0,recv_wr=18446744073709551617",	/* overflows */
	"cm_port=0",
	"cm_port=65536",
	"srq=0,flow_control=2",
	"srq=0,flow_control=yes",
	"stall_ms=3600001",
	"stall_ms=-1",
	"zerocopy=2",
	"zc_min=0",
	"zc_min=4097",			/* over a fragment */
	"send_wr=64,send_wr=128",	/* twice */
	"port=1",			/* eth's key, not ib's */
	"srq_min=64;send_wr=64",
	"proto=4.0",			/* accepted from a peer, never proposed */
	"proto=3.0",
	"proto=4",
	"proto=4.1x",
	"proto=",
	"proto",
	"proto=3.1,proto=4.1",		/* twice */
};

static void
test_bad_parse(void)
{
	struct rds_ib_opts o;
	unsigned int i;

	for (i = 0; i < RTE_DIM(bad_opts); i++) {
		int ret = rds_ib_opts_parse(bad_opts[i], &o);

		if (ret != -EINVAL)
			printf("  '%s': %d, want -EINVAL\n", bad_opts[i], ret);
		CU_ASSERT_EQUAL(ret, -EINVAL);
	}
}

/* Through the public calls: "IP=ib,<opts>". */
static int
init_with(const char *opts)
{
	struct rte_rds_conf conf;
	char spec[RTE_RDS_ARGSIZE + 32];
	int ret;

	rte_rds_conf_init(&conf);
	snprintf(spec, sizeof(spec), "%s=ib%s%s", IB_IP,
		 opts[0] != '\0' ? "," : "", opts);
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(&conf, spec) == 0);
	ret = rte_rds_init(&conf);
	if (ret == 0) {
		/* An RDMA device that has the address after all. */
		CU_ASSERT(rte_rds_fini() == 0);
		return 0;
	}
	CU_ASSERT_EQUAL(ret, -1);
	CU_ASSERT_EQUAL(errno, rte_errno);
	return rte_errno;
}

static void
test_bad_init(void)
{
	unsigned int i;
	int err;

	for (i = 0; i < RTE_DIM(bad_opts); i++) {
		if (strchr(bad_opts[i], ';') != NULL)
			continue;	/* add_addr_str takes it as one key */
		err = init_with(bad_opts[i]);
		if (err != EINVAL)
			printf("  '%s': rte_rds_init errno %d, want EINVAL\n",
			       bad_opts[i], err);
		CU_ASSERT_EQUAL(err, EINVAL);
	}
	/* Good options get past the parser: whatever happens next (no RDMA
	 * device here: ENODEV or EADDRNOTAVAIL), it is not EINVAL. */
	err = init_with("");
	printf("  no options: rte_rds_init errno %d (%s)\n", err,
	       err != 0 ? strerror(err) : "up");
	CU_ASSERT_NOT_EQUAL(err, EINVAL);
	err = init_with("cm_port=7000,send_wr=512,srq=0,recv_wr=64,"
			"flow_control=0,stall_ms=0");
	CU_ASSERT_NOT_EQUAL(err, EINVAL);
	err = init_with("srq_min=64,srq_max=128");
	CU_ASSERT_NOT_EQUAL(err, EINVAL);
}

/* A key ib does not take is named in the error (a typo, eth's port=). */
static void
test_unknown_key_named(void)
{
	static const char *const cases[][2] = {
		{ "stall_ms=5,port=1", "'port'" },
		{ "srq_min=64,sendwr=64", "'sendwr'" },
	};
	struct rds_ib_opts o;
	unsigned int i;

	for (i = 0; i < RTE_DIM(cases); i++) {
		char *log = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&log, &len);

		CU_ASSERT_FATAL(f != NULL);
		rte_openlog_stream(f);
		CU_ASSERT_EQUAL(rds_ib_opts_parse(cases[i][0], &o), -EINVAL);
		rte_openlog_stream(NULL);
		fclose(f);
		if (log == NULL || strstr(log, "unknown option") == NULL ||
		    strstr(log, cases[i][1]) == NULL) {
			printf("  '%s': the error does not name %s: %s\n",
			       cases[i][0], cases[i][1],
			       log != NULL ? log : "(nothing)");
			CU_FAIL("unknown key not named");
		}
		free(log);
	}
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "defaults", test_defaults },
		{ "every_key", test_every_key },
		{ "bad_keys_and_values", test_bad_parse },
		{ "bad_options_fail_init", test_bad_init },
		{ "unknown_key_named", test_unknown_key_named },
		{ NULL, NULL },
	};

	return rds_test_main("unit_ib_opts", "0", cases);
}

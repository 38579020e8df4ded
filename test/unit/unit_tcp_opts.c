/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the tcp transport's per-address options (rte_rds_tcp.h):
 * the defaults, every key at its bounds, bad keys and values refused
 * with EINVAL by the parser and by rte_rds_init() (window=N among them:
 * 1 to 4096 messages), and good ones through rte_rds_init() on a
 * loopback address.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/CUnit.h>

#include "rds_test.h"
#include "rds_tcp.h"

#define TCP_IP "127.0.0.1"

static void
test_defaults(void)
{
	struct rds_tcp_opts o;

	memset(&o, 0xa5, sizeof(o));
	CU_ASSERT_EQUAL(rds_tcp_opts_parse(NULL, &o), 0);
	CU_ASSERT_EQUAL(o.port, RDS_TCP_PORT);
	CU_ASSERT_EQUAL(o.port, 16385);
	CU_ASSERT_EQUAL(o.sndbuf, 0);
	CU_ASSERT_EQUAL(o.rcvbuf, 0);
	CU_ASSERT_EQUAL(o.accept_wait_ms, RDS_TCP_DEF_ACCEPT_WAIT_MS);
	CU_ASSERT_EQUAL(o.window, RDS_TCP_SENT_MAX);
	CU_ASSERT_EQUAL(o.window, 4096);
	memset(&o, 0xa5, sizeof(o));
	CU_ASSERT_EQUAL(rds_tcp_opts_parse("", &o), 0);
	CU_ASSERT_EQUAL(o.port, RDS_TCP_PORT);
	CU_ASSERT_EQUAL(o.window, RDS_TCP_SENT_MAX);
	/* One key leaves the others at their defaults. */
	CU_ASSERT_EQUAL(rds_tcp_opts_parse("window=1", &o), 0);
	CU_ASSERT_EQUAL(o.window, 1);
	CU_ASSERT_EQUAL(o.port, RDS_TCP_PORT);
	CU_ASSERT_EQUAL(o.accept_wait_ms, RDS_TCP_DEF_ACCEPT_WAIT_MS);
}

static void
test_every_key(void)
{
	struct rds_tcp_opts o;

	CU_ASSERT_EQUAL(rds_tcp_opts_parse("port=1,sndbuf=0,rcvbuf=0,"
					   "accept_wait_ms=1,window=1", &o), 0);
	CU_ASSERT_EQUAL(o.port, 1);
	CU_ASSERT_EQUAL(o.sndbuf, 0);
	CU_ASSERT_EQUAL(o.rcvbuf, 0);
	CU_ASSERT_EQUAL(o.accept_wait_ms, 1);
	CU_ASSERT_EQUAL(o.window, 1);
	CU_ASSERT_EQUAL(rds_tcp_opts_parse("port=65535,sndbuf=1073741823,"
					   "rcvbuf=1073741823,"
					   "accept_wait_ms=3600000,window=4096",
					   &o), 0);
	CU_ASSERT_EQUAL(o.port, 65535);
	CU_ASSERT_EQUAL(o.sndbuf, 1073741823u);
	CU_ASSERT_EQUAL(o.rcvbuf, 1073741823u);
	CU_ASSERT_EQUAL(o.accept_wait_ms, 3600000u);
	CU_ASSERT_EQUAL(o.window, 4096);
	CU_ASSERT_EQUAL(rds_tcp_opts_parse("dev=lo,window=77", &o), 0);
	CU_ASSERT_EQUAL(o.window, 77);
}

static const char *const bad_opts[] = {
	"window=0", "window=4097", "window=-1", "window=", "window=1x",
	"window= 8", "window=+8", "window=99999999999999999999",
	"port=0", "port=65536", "port=abc",
	"sndbuf=1073741824", "rcvbuf=-5",
	"accept_wait_ms=0", "accept_wait_ms=3600001",
	"windows=8", "mtu=1500", "window",
};

static void
test_bad_parse(void)
{
	struct rds_tcp_opts o;
	unsigned int i;

	for (i = 0; i < RTE_DIM(bad_opts); i++) {
		int ret = rds_tcp_opts_parse(bad_opts[i], &o);

		if (ret != -EINVAL)
			printf("  '%s': %d, want -EINVAL\n", bad_opts[i], ret);
		CU_ASSERT_EQUAL(ret, -EINVAL);
	}
}

/* Through the public calls: "127.0.0.1=tcp,<opts>". */
static int
init_with(const char *opts)
{
	struct rte_rds_conf conf;
	char spec[RTE_RDS_ARGSIZE + 32];
	int ret;

	rte_rds_conf_init(&conf);
	conf.engine[0].lcore_id = RTE_RDS_ENGINE_INLINE;
	snprintf(spec, sizeof(spec), "%s=tcp%s%s", TCP_IP,
		 opts[0] != '\0' ? "," : "", opts);
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(&conf, spec) == 0);
	ret = rte_rds_init(&conf);
	if (ret == 0) {
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
	char good[64];
	unsigned int i;
	int err;

	for (i = 0; i < RTE_DIM(bad_opts); i++) {
		err = init_with(bad_opts[i]);
		if (err != EINVAL)
			printf("  '%s': rte_rds_init errno %d, want EINVAL\n",
			       bad_opts[i], err);
		CU_ASSERT_EQUAL(err, EINVAL);
	}
	/* Good ones come up (a port of this process's own: another test
	 * may hold 16385). */
	snprintf(good, sizeof(good), "port=%u,window=1",
		 30000u + (unsigned int)getpid() % 20000u);
	err = init_with(good);
	if (err != 0)
		printf("  '%s': rte_rds_init errno %d (%s)\n", good, err,
		       strerror(err));
	CU_ASSERT_EQUAL(err, 0);
	snprintf(good, sizeof(good), "port=%u,window=4096,accept_wait_ms=5",
		 30001u + (unsigned int)getpid() % 20000u);
	err = init_with(good);
	CU_ASSERT_EQUAL(err, 0);
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "defaults", test_defaults },
		{ "every_key", test_every_key },
		{ "bad_keys_and_values", test_bad_parse },
		{ "bad_options_fail_init", test_bad_init },
		{ NULL, NULL },
	};

	return rds_test_main("unit_tcp_opts", "0", cases);
}

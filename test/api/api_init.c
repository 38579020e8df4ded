/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The socket API (suite 'api', binary api_init; api_common.h says how).
 *
 * Library set-up and teardown: the calls before rte_rds_init, the default
 * configuration and rte_rds_conf_add_addr*, init twice and re-init, bad
 * configurations (ENODEV and ENOPROTOOPT from the stub transport; an
 * option no transport takes, named in the error),
 * rte_rds_engine_poll and the counters, and errno of every public call.
 */

#include "api_common.h"

/* ------------------------------------------------------------------ */
/* Why the cases of rte_rds_init are skipped in an attached run. */
#define INIT_IS_THE_ENGINES "rte_rds_init and its conf are the engine's " \
	"(an attached process has no EAL and no conf of its own)"

/* Before rte_rds_init */

static void
test_before_init(void)
{
	struct sockaddr_in sin = rds_test_sin(RDS_TEST_IP1, 4000);
	struct rte_rds_loop_stats lst;
	struct rte_rds_stats st;
	struct rte_rds_msg *m[2];
	socklen_t len = sizeof(int);
	int v = 0;

	ctx = "before init";
	CU_ASSERT_EQUAL(rte_rds_engine_count(), 0);
	EXPECT_ERR(rte_rds_socket(), ENXIO);
	EXPECT_ERR(rte_rds_engine_poll(0), ENXIO);
	EXPECT_ERR(rte_rds_start(), ENXIO);
	EXPECT_ERR(rte_rds_fini(), ENXIO);
	EXPECT_ERR(rte_rds_stats_get(-1, &st), ENXIO);
	EXPECT_ERR(rte_rds_stats_get(0, &st), ENXIO);
	EXPECT_ERR(rte_rds_loop_set_faults(NULL), ENXIO);
	EXPECT_ERR(rte_rds_loop_stats_get(&lst), ENXIO);
	EXPECT_ERR(rte_rds_poll(NULL, 0, 0), ENXIO);
	{
		struct rte_rds_pollfd pfd = { .sock = 0, .events = POLLIN };

		EXPECT_ERR(rte_rds_poll(&pfd, 1, 10), ENXIO);
	}
	len = 0;
	EXPECT_ERR(rte_rds_info(RDS_INFO_COUNTERS, NULL, &len), ENXIO);
	EXPECT_ERR(rte_rds_event_fd(0), EBADF);
	EXPECT_ERR(rte_rds_event_arm(0, POLLIN), EBADF);
	len = sizeof(int);
	/* No socket exists: every handle is bad. */
	EXPECT_ERR(rte_rds_bind(0, CSA(&sin), sizeof(sin)), EBADF);
	EXPECT_ERR(rte_rds_setsockopt(0, SOL_SOCKET, SO_SNDBUF, &v,
				      sizeof(v)), EBADF);
	EXPECT_ERR(rte_rds_getsockopt(0, SOL_SOCKET, SO_SNDBUF, &v, &len),
		   EBADF);
	EXPECT_ERR(rte_rds_close(0), EBADF);
	CU_ASSERT_EQUAL(rte_rds_recv_burst(0, m, 2), 0);
}

/* ------------------------------------------------------------------ */
/* Configuration and lifetime */

static void
test_conf_defaults_and_add_addr(void)
{
	struct rte_rds_conf conf;
	char longname[RTE_RDS_NAMESIZE + 1];
	char ip[32];
	unsigned int i;

	ctx = "conf";
	memset(&conf, 0xa5, sizeof(conf));
	rte_rds_conf_init(&conf);
	/* The defaults rte_rds.h documents. */
	CU_ASSERT_EQUAL(conf.nb_engines, 1);
	CU_ASSERT_EQUAL(conf.nb_addrs, 0);
	CU_ASSERT_EQUAL(conf.engine[0].lcore_id, RTE_RDS_ENGINE_INLINE);
	CU_ASSERT_EQUAL(conf.engine[0].idle, RTE_RDS_IDLE_YIELD);
	CU_ASSERT_EQUAL(conf.max_sockets, 65536);
	CU_ASSERT_EQUAL(conf.buf_cache_bytes, 64u << 20);
	CU_ASSERT_EQUAL(conf.sndbuf_default, DEF_BUF);
	CU_ASSERT_EQUAL(conf.rcvbuf_default, DEF_BUF);
	CU_ASSERT_EQUAL(conf.reconnect_min_ms, 1);
	CU_ASSERT_EQUAL(conf.reconnect_max_ms, 1000);
	CU_ASSERT_EQUAL(conf.max_unacked_packets, 8);
	CU_ASSERT_EQUAL(conf.max_unacked_bytes, 16u << 20);
	CU_ASSERT_EQUAL(conf.socket_id, SOCKET_ID_ANY);

	/* Bad addresses and names: EINVAL, nothing added. */
	EXPECT_ERR(rte_rds_conf_add_addr(&conf, "10.0.0", "loop", NULL),
		   EINVAL);
	EXPECT_ERR(rte_rds_conf_add_addr(&conf, "not-an-ip", "loop", NULL),
		   EINVAL);
	EXPECT_ERR(rte_rds_conf_add_addr(&conf, "10.0.0.256", "loop", NULL),
		   EINVAL);
	EXPECT_ERR(rte_rds_conf_add_addr(&conf, "fd00::zz", "loop", NULL),
		   EINVAL);
	EXPECT_ERR(rte_rds_conf_add_addr(&conf, "", "loop", NULL), EINVAL);
	EXPECT_ERR(rte_rds_conf_add_addr(&conf, NULL, "loop", NULL), EINVAL);
	EXPECT_ERR(rte_rds_conf_add_addr(&conf, "10.0.0.1", NULL, NULL),
		   EINVAL);
	EXPECT_ERR(rte_rds_conf_add_addr(NULL, "10.0.0.1", "loop", NULL),
		   EINVAL);
	memset(longname, 'x', RTE_RDS_NAMESIZE);
	longname[RTE_RDS_NAMESIZE] = '\0';
	EXPECT_ERR(rte_rds_conf_add_addr(&conf, "10.0.0.1", longname, NULL),
		   EINVAL);
	EXPECT_ERR(rte_rds_conf_add_addr(&conf, "10.0.0.1", "eth", longname),
		   EINVAL);
	CU_ASSERT_EQUAL(conf.nb_addrs, 0);

	/* One address is recorded as given. */
	EXPECT_OK(rte_rds_conf_add_addr(&conf, "10.0.0.1", "eth", "net_ring0"));
	CU_ASSERT_EQUAL(conf.nb_addrs, 1);
	CU_ASSERT_EQUAL(conf.addr[0].addr.s_addr, inet_addr("10.0.0.1"));
	CU_ASSERT_STRING_EQUAL(conf.addr[0].transport, "eth");
	CU_ASSERT_STRING_EQUAL(conf.addr[0].dev, "net_ring0");

	/* No small fixed limit: past the inline ones, in order. */
	for (i = 1; i < 1000; i++) {
		snprintf(ip, sizeof(ip), "10.0.%u.%u", i / 250, i % 250 + 1);
		EXPECT_OK(rte_rds_conf_add_addr(&conf, ip, "loop", NULL));
	}
	CU_ASSERT_EQUAL(conf.nb_addrs, 1000);
	CU_ASSERT_PTR_NULL(rte_rds_conf_addr(&conf, 1000));
	for (i = 1; i < 1000; i++) {
		snprintf(ip, sizeof(ip), "10.0.%u.%u", i / 250, i % 250 + 1);
		CU_ASSERT_EQUAL(rte_rds_conf_addr(&conf, i)->addr.s_addr,
				inet_addr(ip));
	}
	rte_rds_conf_free(&conf);
	CU_ASSERT_EQUAL(conf.nb_addrs, 0);
}

static void
test_init_twice_and_reinit(void)
{
	struct rte_rds_conf conf;
	struct sockaddr_in sin = rds_test_sin(RDS_TEST_IP1, 4000);
	int s, round;

	API_IN_PROCESS_ONLY(INIT_IS_THE_ENGINES);

	ctx = "init twice";
	std_conf(&conf);
	for (round = 0; round < 3; round++) {
		EXPECT_OK(rte_rds_init(&conf));
		CU_ASSERT_EQUAL(rte_rds_engine_count(), 1);
		EXPECT_ERR(rte_rds_init(&conf), EEXIST);
		EXPECT_ERR(rte_rds_init(NULL), EEXIST);
		/* The instance that is up is unharmed by the refusal. */
		CU_ASSERT_EQUAL(rte_rds_engine_count(), 1);
		s = rte_rds_socket();
		CU_ASSERT(s >= 0);
		/* The port taken in the previous round is free again. */
		EXPECT_OK(rte_rds_bind(s, CSA(&sin), sizeof(sin)));
		EXPECT_OK(rte_rds_start());
		EXPECT_OK(rte_rds_fini());
		CU_ASSERT_EQUAL(rte_rds_engine_count(), 0);
		EXPECT_ERR(rte_rds_fini(), ENXIO);
		EXPECT_ERR(rte_rds_socket(), ENXIO);
		/* Handles die with the instance. */
		EXPECT_ERR(rte_rds_close(s), EBADF);
	}

	/* NULL: the defaults (one inline engine, no address). */
	ctx = "init NULL";
	EXPECT_OK(rte_rds_init(NULL));
	CU_ASSERT_EQUAL(rte_rds_engine_count(), 1);
	EXPECT_RET(rte_rds_engine_poll(0) >= 0, 1);
	s = rte_rds_socket();
	CU_ASSERT(s >= 0);
	CU_ASSERT_EQUAL(get_int(s, SOL_SOCKET, SO_SNDBUF), 2 * DEF_BUF);
	CU_ASSERT_EQUAL(get_int(s, SOL_SOCKET, SO_RCVBUF), 2 * DEF_BUF);
	/* No local address declared. */
	EXPECT_ERR(rte_rds_bind(s, CSA(&sin), sizeof(sin)), EADDRNOTAVAIL);
	lib_down();
}

/* rte_rds_init(conf) must fail with err and leave nothing up. */
static void
expect_init_fails(const struct rte_rds_conf *conf, int err, const char *what)
{
	ctx = what;
	EXPECT_ERR(rte_rds_init(conf), err);
	CU_ASSERT_EQUAL(rte_rds_engine_count(), 0);
	EXPECT_ERR(rte_rds_socket(), ENXIO);
	if (rds_test_lib_up())
		rte_rds_fini();
}

static void
test_init_bad_conf(void)
{
	struct rte_rds_conf conf;

	API_IN_PROCESS_ONLY(INIT_IS_THE_ENGINES);

	std_conf(&conf);
	conf.nb_engines = 0;
	expect_init_fails(&conf, EINVAL, "0 engines");

	std_conf(&conf);
	conf.nb_engines = RTE_RDS_MAX_ENGINES + 1;
	expect_init_fails(&conf, EINVAL, "too many engines");

	std_conf(&conf);
	CU_ASSERT_EQUAL_FATAL(rte_rds_conf_add_addr(&conf, "10.255.0.9",
						    "nosuch", NULL), 0);
	expect_init_fails(&conf, EINVAL, "unknown transport");

	std_conf(&conf);
	CU_ASSERT_EQUAL_FATAL(rte_rds_conf_add_addr(&conf, RDS_TEST_IP2,
						    "loop", NULL), 0);
	expect_init_fails(&conf, EINVAL, "duplicate address");

	std_conf(&conf);
	CU_ASSERT_EQUAL_FATAL(rte_rds_conf_add_addr(&conf, "0.0.0.0",
						    "loop", NULL), 0);
	expect_init_fails(&conf, EINVAL, "INADDR_ANY address");

	std_conf(&conf);
	CU_ASSERT_EQUAL_FATAL(rte_rds_conf_add_addr(&conf, "255.255.255.255",
						    "loop", NULL), 0);
	expect_init_fails(&conf, EINVAL, "broadcast address");

	std_conf(&conf);
	CU_ASSERT_EQUAL_FATAL(rte_rds_conf_add_addr(&conf, "224.0.0.1",
						    "loop", NULL), 0);
	expect_init_fails(&conf, EINVAL, "multicast address");

	std_conf(&conf);
	conf.engine[0].lcore_id = rte_get_main_lcore();
	expect_init_fails(&conf, EINVAL, "engine on the main lcore");

	std_conf(&conf);
	conf.engine[0].lcore_id = RTE_MAX_LCORE - 1;	/* not enabled */
	expect_init_fails(&conf, EINVAL, "engine on a disabled lcore");

	std_conf(&conf);
	conf.engine[0].lcore_id = RTE_MAX_LCORE + 5;
	expect_init_fails(&conf, EINVAL, "engine lcore out of range");

	std_conf(&conf);
	conf.engine[0].idle = (enum rte_rds_idle_policy)17;
	expect_init_fails(&conf, EINVAL, "bad idle policy");

	std_conf(&conf);
	conf.max_sockets = 0;
	expect_init_fails(&conf, EINVAL, "max_sockets 0");

	std_conf(&conf);
	conf.reconnect_min_ms = 100;
	conf.reconnect_max_ms = 10;
	expect_init_fails(&conf, EINVAL, "reconnect max < min");

	/* A transport that cannot open its device: ENODEV. */
	std_conf(&conf);
	CU_ASSERT_EQUAL_FATAL(rte_rds_conf_add_addr(&conf, FAKE_IP,
						    "ut_fake", "nodev"), 0);
	expect_init_fails(&conf, ENODEV, "transport without its device");

	/* After all that, a good configuration comes up. */
	ctx = "good conf after failures";
	std_conf(&conf);
	EXPECT_OK(rte_rds_init(&conf));
	CU_ASSERT_EQUAL(rte_rds_engine_count(), 1);
	lib_down();
}

/*
 * An option its transport does not take ("IP=loop,foo=bar", another
 * transport's key, a typo) is refused with EINVAL and an error that
 * names it, by every transport: an address is never brought up without
 * a setting its user asked for. The log is caught to see the name.
 */
static bool
init_refuses_option(const char *spec, const char *key)
{
	struct rte_rds_conf conf;
	char *log = NULL, want[64];
	size_t log_len = 0;
	FILE *f = open_memstream(&log, &log_len);
	bool named;

	CU_ASSERT_FATAL(f != NULL);
	std_conf(&conf);
	CU_ASSERT_EQUAL_FATAL(rte_rds_conf_add_addr_str(&conf, spec), 0);
	rte_openlog_stream(f);
	expect_init_fails(&conf, EINVAL, spec);
	rte_openlog_stream(NULL);
	fclose(f);
	snprintf(want, sizeof(want), "unknown option '%s'", key);
	named = log != NULL && strstr(log, want) != NULL;
	if (!named)
		printf("  %s: the log does not say \"%s\": %s\n", spec, want,
		       log != NULL ? log : "(nothing)");
	free(log);
	return named;
}

static void
test_init_unknown_option(void)
{
	API_IN_PROCESS_ONLY(INIT_IS_THE_ENGINES);

	CU_ASSERT(init_refuses_option("10.255.0.9=loop,foo=bar", "foo"));
	CU_ASSERT(init_refuses_option("10.255.0.9=loop,dev=x,window=4",
				      "window"));
	CU_ASSERT(init_refuses_option("10.255.0.9=eth,port=net_ring0,"
				      "windw=64", "windw"));
	CU_ASSERT(init_refuses_option("10.255.0.9=eth,foo", "foo"));
	/* ib's: test/unit/unit_ib_opts.c (where ib is built). */
	/* Known keys still pass that check (loop takes dev alone). */
	ctx = "loop with dev";
	{
		struct rte_rds_conf conf;

		std_conf(&conf);
		EXPECT_OK(rte_rds_conf_add_addr_str(&conf,
						    "10.255.0.9=loop,dev=x"));
		EXPECT_OK(rte_rds_init(&conf));
		lib_down();
	}
}

/* ------------------------------------------------------------------ */
/* Engines and counters */

static void
test_engine_poll_and_stats(void)
{
	struct rte_rds_loop_stats lst;
	struct rte_rds_stats st, st_all;
	const char *name;
	unsigned int i, j;
	int w;

	ctx = "stats names";
	CU_ASSERT_PTR_NULL(rte_rds_stats_name(RTE_RDS_STATS_NUM));
	CU_ASSERT_PTR_NULL(rte_rds_stats_name(RTE_RDS_STATS_NUM + 1));
	CU_ASSERT_PTR_NULL(rte_rds_stats_name(UINT_MAX));
	for (i = 0; i < RTE_RDS_STATS_NUM; i++) {
		name = rte_rds_stats_name(i);
		CU_ASSERT_PTR_NOT_NULL(name);
		if (name == NULL) {
			printf("\n    counter %u has no name\n", i);
			continue;
		}
		CU_ASSERT(strncmp(name, "s_", 2) == 0);
		for (j = 0; j < i; j++)
			if (rte_rds_stats_name(j) != NULL)
				CU_ASSERT(strcmp(name,
						 rte_rds_stats_name(j)) != 0);
	}
	/* Names are at their fields' indexes. */
	CU_ASSERT_STRING_EQUAL(rte_rds_stats_name(0), "s_polls");
	CU_ASSERT_STRING_EQUAL(rte_rds_stats_name(
		offsetof(struct rte_rds_stats, s_send_xmit) / sizeof(uint64_t)),
		"s_send_xmit");
	CU_ASSERT_STRING_EQUAL(rte_rds_stats_name(RTE_RDS_STATS_NUM - 1),
			       "s_send_cong_map_bytes");

	if (api_attached) {
		/* Documented for a client (rte_rds_attach.h): ENXIO. */
		ctx = "engine poll attached";
		lib_up();
		EXPECT_ERR(rte_rds_engine_poll(0), ENXIO);
		lib_down();
	}
	if (api_skip_attached("the engine's counters and its loop driver "
			      "are the engine process's"))
		return;
	ctx = "engine poll";
	lib_up();
	CU_ASSERT_EQUAL(rte_rds_engine_count(), 1);
	EXPECT_ERR(rte_rds_engine_poll(1), EINVAL);
	EXPECT_ERR(rte_rds_engine_poll(RTE_RDS_MAX_ENGINES), EINVAL);
	EXPECT_ERR(rte_rds_engine_poll(UINT_MAX), EINVAL);
	for (i = 0; i < 10; i++) {
		w = rte_rds_engine_poll(0);
		CU_ASSERT(w >= 0);
	}

	ctx = "stats get";
	EXPECT_ERR(rte_rds_stats_get(1, &st), EINVAL);
	EXPECT_ERR(rte_rds_stats_get(-2, &st), EINVAL);
	EXPECT_ERR(rte_rds_stats_get(INT_MAX, &st), EINVAL);
	EXPECT_ERR(rte_rds_stats_get(-1, NULL), EINVAL);
	EXPECT_ERR(rte_rds_stats_get(0, NULL), EINVAL);
	memset(&st, 0xff, sizeof(st));
	EXPECT_OK(rte_rds_stats_get(0, &st));
	CU_ASSERT(st.s_polls >= 10);
	CU_ASSERT(st.s_idle_polls <= st.s_polls);
	EXPECT_OK(rte_rds_stats_get(-1, &st_all));
	CU_ASSERT(st_all.s_polls >= st.s_polls);

	ctx = "loop driver";
	EXPECT_ERR(rte_rds_loop_stats_get(NULL), EINVAL);
	EXPECT_OK(rte_rds_loop_stats_get(&lst));
	EXPECT_OK(rte_rds_loop_set_faults(NULL));
	lib_down();

	/* Counters start from zero with a new instance. */
	ctx = "stats after re-init";
	lib_up();
	EXPECT_OK(rte_rds_stats_get(-1, &st));
	CU_ASSERT_EQUAL(st.s_polls, 0);
	lib_down();
	EXPECT_ERR(rte_rds_engine_poll(0), ENXIO);
	EXPECT_ERR(rte_rds_stats_get(-1, &st), ENXIO);
}

/*
 * errno as well as rte_errno on every public error path: a port of an
 * AF_RDS program that missed one rename reads errno, and must not read a
 * stale value. errno is set to a value no call returns first.
 */
static void
test_errno(void)
{
	struct sockaddr_in to = rds_test_sin(RDS_TEST_IP2, 5000);
	struct rte_rds_stats st;
	socklen_t len = sizeof(int);
	int s, v = 0;

	ctx = "errno";
	/* Before init. */
	errno = EDEADLK;
	CU_ASSERT_EQUAL(rte_rds_socket(), -1);
	CU_ASSERT_EQUAL(errno, rte_errno);
	CU_ASSERT_EQUAL(errno, ENXIO);
	lib_up();
	s = sock_at(RDS_TEST_IP1, 4000);
	errno = EDEADLK;
	CU_ASSERT_EQUAL(rte_rds_close(-5), -1);
	CU_ASSERT_EQUAL(errno, EBADF);
	CU_ASSERT_EQUAL(errno, rte_errno);
	errno = EDEADLK;
	CU_ASSERT_EQUAL(rds_test_send(s, "x", 1, NULL, MSG_DONTWAIT), -1);
	CU_ASSERT_EQUAL(errno, ENOTCONN);
	CU_ASSERT_EQUAL(errno, rte_errno);
	errno = EDEADLK;
	CU_ASSERT_EQUAL(rds_test_recv(s, &v, sizeof(v), NULL, MSG_DONTWAIT,
				      NULL), -1);
	CU_ASSERT_EQUAL(errno, EAGAIN);
	CU_ASSERT_EQUAL(errno, rte_errno);
	errno = EDEADLK;
	CU_ASSERT_EQUAL(rte_rds_setsockopt(s, SOL_RDS, 12345, &v, sizeof(v)),
			-1);
	CU_ASSERT_EQUAL(errno, ENOPROTOOPT);
	CU_ASSERT_EQUAL(errno, rte_errno);
	errno = EDEADLK;
	CU_ASSERT_EQUAL(rte_rds_getsockopt(s, SOL_SOCKET, SO_SNDBUF, &v,
					   &(socklen_t){ 1 }), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(errno, rte_errno);
	errno = EDEADLK;
	CU_ASSERT_EQUAL(rte_rds_bind(s, CSA(&to), sizeof(to)), -1);
	CU_ASSERT_EQUAL(errno, rte_errno);
	CU_ASSERT_NOT_EQUAL(errno, EDEADLK);
	errno = EDEADLK;
	CU_ASSERT_EQUAL(rte_rds_stats_get(7, &st), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(errno, rte_errno);
	errno = EDEADLK;
	CU_ASSERT_EQUAL(rte_rds_info(RDS_INFO_COUNTERS, NULL, &len), -1);
	CU_ASSERT_EQUAL(errno, rte_errno);
	CU_ASSERT_EQUAL(errno, ENOSPC);
	EXPECT_OK(rte_rds_close(s));
	lib_down();
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "before_init", test_before_init },
		{ "conf_defaults_and_add_addr",
		  test_conf_defaults_and_add_addr },
		{ "init_twice_and_reinit", test_init_twice_and_reinit },
		{ "init_bad_conf", test_init_bad_conf },
		{ "init_unknown_option", test_init_unknown_option },
		{ "engine_poll_and_stats", test_engine_poll_and_stats },
		{ "errno", test_errno },
		{ NULL, NULL },
	};

	return api_main("api_init", cases);
}

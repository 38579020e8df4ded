/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers shared by the librte_rds CUnit suites (see rds_test.h).
 */

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/uio.h>

#include <CUnit/Basic.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include "rds_test.h"

/* ------------------------------------------------------------------ */
/* EAL */

#define EAL_MAX_ARGS 64

static char eal_prefix[96];
static char eal_runtime_dir[PATH_MAX];
static bool eal_up;

static void sweep_stale_runtime_dirs(void);

static int
split_args(char *s, char **argv, int max)
{
	int n = 0;
	char *save = NULL;
	char *tok;

	for (tok = strtok_r(s, " \t", &save); tok != NULL && n < max;
	     tok = strtok_r(NULL, " \t", &save))
		argv[n++] = tok;
	return n;
}

void
rds_test_eal_init(const char *name, const char *lcores)
{
	static char mem_buf[256], extra_buf[512], lcores_buf[64];
	char *argv[EAL_MAX_ARGS];
	const char *env;
	int argc = 0, i, ret;

	snprintf(eal_prefix, sizeof(eal_prefix), "--file-prefix=rdst-%s-%d",
		 name, (int)getpid());
	snprintf(lcores_buf, sizeof(lcores_buf), "%s", lcores);

	argv[argc++] = (char *)(uintptr_t)name;
	argv[argc++] = (char *)(uintptr_t)"-l";
	argv[argc++] = lcores_buf;
	argv[argc++] = (char *)(uintptr_t)"--no-pci";
	env = getenv("RDS_TEST_EAL_MEM");
	snprintf(mem_buf, sizeof(mem_buf), "%s",
		 env != NULL && env[0] != '\0' ? env : "--no-huge -m 1024");
	argc += split_args(mem_buf, &argv[argc], 8);
	argv[argc++] = eal_prefix;
	argv[argc++] = (char *)(uintptr_t)"--log-level=lib.eal:error";
	env = getenv("RDS_TEST_EAL_ARGS");
	if (env != NULL) {
		snprintf(extra_buf, sizeof(extra_buf), "%s", env);
		argc += split_args(extra_buf, &argv[argc],
				   EAL_MAX_ARGS - 1 - argc);
	}
	argv[argc] = NULL;

	printf("EAL:");
	for (i = 0; i < argc; i++)
		printf(" %s", argv[i]);
	printf("\n");
	fflush(stdout);

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "rte_eal_init failed: %s\n",
			rte_strerror(rte_errno));
		exit(1);
	}
	snprintf(eal_runtime_dir, sizeof(eal_runtime_dir), "%s",
		 rte_eal_get_runtime_dir());
	eal_up = true;
	sweep_stale_runtime_dirs();
}

/* Remove the files of a test runtime directory, then the directory. */
static void
remove_dir_files(const char *dir)
{
	char path[PATH_MAX + 256];
	struct dirent *de;
	DIR *d;

	d = opendir(dir);
	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

/* Our own runtime directory (only ours: rdst-*). */
static void
remove_runtime_dir(void)
{
	if (eal_runtime_dir[0] == '\0' ||
	    strstr(eal_runtime_dir, "/rdst-") == NULL)
		return;
	remove_dir_files(eal_runtime_dir);
}

/*
 * Runtime directories of earlier test processes that died without
 * cleaning up (killed by a timeout, the watchdog): rdst-<name>-<pid>
 * next to ours, whose pid no longer exists. Each holds ~12 MB of fbarray
 * files (in /var/run, i.e. memory).
 */
static void
sweep_stale_runtime_dirs(void)
{
	char parent[PATH_MAX], path[PATH_MAX + 256];
	struct dirent *de;
	const char *dash;
	char *slash, *end;
	long pid;
	DIR *d;

	snprintf(parent, sizeof(parent), "%s", eal_runtime_dir);
	slash = strrchr(parent, '/');
	if (slash == NULL || strstr(slash, "/rdst-") != slash)
		return;
	*slash = '\0';
	d = opendir(parent);
	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "rdst-", 5) != 0)
			continue;
		dash = strrchr(de->d_name, '-');
		if (dash == NULL || dash[1] == '\0')
			continue;
		pid = strtol(dash + 1, &end, 10);
		if (*end != '\0' || pid <= 0 || pid == (long)getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;	/* alive (or not ours to judge) */
		snprintf(path, sizeof(path), "%s/%s", parent, de->d_name);
		remove_dir_files(path);
	}
	closedir(d);
}

void
rds_test_eal_fini(void)
{
	if (!eal_up)
		return;
	rds_test_lib_fini();
	rte_eal_cleanup();
	remove_runtime_dir();
	eal_up = false;
}

/* The watchdog (rds_test_watchdog): here, as it removes the EAL's
 * runtime directory when it fires. */

static char watchdog_what[128];
static unsigned int watchdog_secs;

static void
watchdog_fire(int sig)
{
	char msg[256];
	int n;

	static const char *const files[] = {
		"config", "mp_socket", "dpdk_telemetry.v2", "fbarray_memzone",
		"fbarray_nohugemem",
	};
	char path[PATH_MAX + 64];
	unsigned int i;

	(void)sig;
	n = snprintf(msg, sizeof(msg),
		     "\nwatchdog: %s still running after %u s: failing\n",
		     watchdog_what, watchdog_secs);
	if (n > 0 && write(STDOUT_FILENO, msg, (size_t)n) < 0)
		n = 0;
	/* Only async-signal-safe calls: unlink the EAL's usual runtime
	 * files by name (the next test run sweeps whatever remains). */
	if (eal_runtime_dir[0] != '\0' &&
	    strstr(eal_runtime_dir, "/rdst-") != NULL) {
		for (i = 0; i < RTE_DIM(files); i++) {
			n = snprintf(path, sizeof(path), "%s/%s",
				     eal_runtime_dir, files[i]);
			if (n > 0 && (size_t)n < sizeof(path))
				unlink(path);
		}
		rmdir(eal_runtime_dir);
	}
	_exit(2);
}

static unsigned int watchdog_mul = 1;

void
rds_test_watchdog_scale(unsigned int mul)
{
	watchdog_mul = mul > 0 ? mul : 1;
}

void
rds_test_watchdog(unsigned int seconds, const char *what)
{
	struct sigaction sa;

	alarm(0);
	if (seconds == 0)
		return;
	seconds *= watchdog_mul;
	snprintf(watchdog_what, sizeof(watchdog_what), "%s",
		 what != NULL ? what : "test");
	watchdog_secs = seconds;
	fflush(stdout);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = watchdog_fire;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	alarm(seconds);
}

/* ------------------------------------------------------------------ */
/* CUnit */

static void
teardown_lib(void)
{
	rds_test_watchdog(0, NULL);
	if (rds_test_lib_up()) {
		printf("  (teardown: the test left the library up; "
		       "calling rte_rds_fini)\n");
		rds_test_lib_fini();
	}
}

int
rds_test_run_registry(void)
{
	unsigned int failures, tests_failed, asserts, tests_run;
	CU_pRunSummary sum;

	CU_basic_set_mode(CU_BRM_VERBOSE);
	if (CU_basic_run_tests() != CUE_SUCCESS) {
		fprintf(stderr, "CUnit error: %s\n", CU_get_error_msg());
		return 1;
	}
	failures = CU_get_number_of_failures();
	sum = CU_get_run_summary();
	tests_run = sum != NULL ? sum->nTestsRun : 0;
	tests_failed = sum != NULL ? sum->nTestsFailed : 0;
	asserts = sum != NULL ? sum->nAsserts : 0;
	printf("\n");
	if (failures > 0)
		CU_basic_show_failures(CU_get_failure_list());
	printf("\nSUMMARY: %u tests run, %u failed, %u asserts, %u failures "
	       "-> %s\n", tests_run, tests_failed, asserts, failures,
	       failures == 0 && tests_failed == 0 ? "PASS" : "FAIL");
	fflush(stdout);
	return failures == 0 && tests_failed == 0 ? 0 : 1;
}

int
rds_test_run_suite(const char *suite, const struct rds_test_case *cases)
{
	const char *filter = getenv("RDS_TEST_FILTER");
	CU_pSuite s;
	int rc;

	if (CU_initialize_registry() != CUE_SUCCESS) {
		fprintf(stderr, "CU_initialize_registry: %s\n",
			CU_get_error_msg());
		return 1;
	}
	s = CU_add_suite_with_setup_and_teardown(suite, NULL, NULL, NULL,
						 teardown_lib);
	if (s == NULL) {
		fprintf(stderr, "CU_add_suite: %s\n", CU_get_error_msg());
		CU_cleanup_registry();
		return 1;
	}
	for (; cases->name != NULL; cases++) {
		if (filter != NULL && filter[0] != '\0' &&
		    strstr(cases->name, filter) == NULL)
			continue;
		if (CU_add_test(s, cases->name, cases->fn) == NULL) {
			fprintf(stderr, "CU_add_test: %s\n",
				CU_get_error_msg());
			CU_cleanup_registry();
			return 1;
		}
	}
	rc = rds_test_run_registry();
	CU_cleanup_registry();
	return rc;
}

int
rds_test_main(const char *name, const char *lcores,
	      const struct rds_test_case *cases)
{
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (lcores != NULL)
		rds_test_eal_init(name, lcores);
	rc = rds_test_run_suite(name, cases);
	if (lcores != NULL)
		rds_test_eal_fini();
	return rc;
}

/* ------------------------------------------------------------------ */
/* Library */

static unsigned int inline_ids[RTE_RDS_MAX_ENGINES];
static unsigned int nb_inline;

void
rds_test_conf(struct rte_rds_conf *conf, uint32_t engine_lcore,
	      enum rte_rds_idle_policy idle)
{
	static const char *const ips[] = {
		RDS_TEST_IP1, RDS_TEST_IP2, RDS_TEST_IP3, RDS_TEST_IP4,
	};
	unsigned int i;

	rte_rds_conf_init(conf);
	conf->nb_engines = 1;
	conf->engine[0].lcore_id = engine_lcore;
	conf->engine[0].idle = idle;
	for (i = 0; i < RTE_DIM(ips); i++) {
		if (rte_rds_conf_add_addr(conf, ips[i], "loop", NULL) != 0)
			printf("rte_rds_conf_add_addr(%s): %s\n", ips[i],
			       rte_strerror(rte_errno));
	}
}

int
rds_test_lib_init(const struct rte_rds_conf *conf)
{
	unsigned int i;

	nb_inline = 0;
	if (rte_rds_init(conf) != 0) {
		printf("rte_rds_init: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	if (rte_rds_start() != 0) {
		int err = rte_errno;

		printf("rte_rds_start: %s\n", rte_strerror(err));
		rte_rds_fini();
		rte_errno = err;
		return -1;
	}
	for (i = 0; conf != NULL && i < conf->nb_engines; i++) {
		if (conf->engine[i].lcore_id == RTE_RDS_ENGINE_INLINE)
			inline_ids[nb_inline++] = i;
	}
	if (conf == NULL)	/* the defaults: one inline engine */
		inline_ids[nb_inline++] = 0;
	return 0;
}

bool
rds_test_lib_up(void)
{
	return rte_rds_engine_count() > 0;
}

int
rds_test_lib_fini(void)
{
	int ret;

	if (!rds_test_lib_up())
		return 0;
	ret = rte_rds_fini();
	if (ret != 0)
		printf("rte_rds_fini: %s\n", rte_strerror(rte_errno));
	nb_inline = 0;
	return ret;
}

int
rds_test_kick(void)
{
	unsigned int i;
	int work = 0, r;

	if (nb_inline == 0) {
		sched_yield();
		return 0;
	}
	for (i = 0; i < nb_inline; i++) {
		r = rte_rds_engine_poll(inline_ids[i]);
		if (r > 0)
			work += r;
	}
	return work;
}

unsigned int
rds_test_inline_engines(void)
{
	return nb_inline;
}

void
rds_test_kick_n(unsigned int n)
{
	while (n-- > 0)
		rds_test_kick();
}

unsigned int
rds_test_worker_lcore(void)
{
	return rte_get_next_lcore(-1, 1, 0);
}

struct rte_rds_stats
rds_test_stats(void)
{
	struct rte_rds_stats st;

	memset(&st, 0, sizeof(st));
	if (rte_rds_stats_get(-1, &st) != 0) {
		printf("rte_rds_stats_get: %s\n", rte_strerror(rte_errno));
		memset(&st, 0, sizeof(st));
	}
	return st;
}

void
rds_test_stats_print(const char *prefix, const struct rte_rds_stats *st)
{
	const uint64_t *v = (const uint64_t *)st;
	unsigned int i, col = 0;
	const char *name;

	printf("%s", prefix);
	for (i = 0; i < RTE_RDS_STATS_NUM; i++) {
		if (v[i] == 0)
			continue;
		name = rte_rds_stats_name(i);
		printf("%s%s=%" PRIu64, col++ % 4 == 0 ? "\n    " : " ",
		       name != NULL ? name : "?", v[i]);
	}
	printf("\n");
}

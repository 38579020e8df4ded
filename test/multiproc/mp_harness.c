/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite multiproc's engine side (mp_harness.h): this process is the
 * engine, its clients are processes it spawns and watches.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <CUnit/CUnit.h>

#include <rte_errno.h>
#include <rte_rds.h>
#include <rte_rds_attach.h>

#include "rds_test.h"
#include "mp_common.h"
#include "mp_harness.h"

extern char **environ;

#define LINE 512

char sock_path[108];
char client_bin[4096], evil_bin[4096], rdma_bin[4096], attack_bin[4096];
char rdma_map_bin[4096];

void
bin_paths(const char *argv0)
{
	const char *slash = strrchr(argv0, '/');
	int n = slash == NULL ? 0 : (int)(slash - argv0 + 1);

	snprintf(client_bin, sizeof(client_bin), "%.*smp_client", n, argv0);
	snprintf(evil_bin, sizeof(evil_bin), "%.*smp_evil", n, argv0);
	snprintf(rdma_bin, sizeof(rdma_bin), "%.*smp_rdma", n, argv0);
	snprintf(attack_bin, sizeof(attack_bin), "%.*smp_attack", n, argv0);
	snprintf(rdma_map_bin, sizeof(rdma_map_bin), "%.*smp_rdma_map", n,
		 argv0);
}

int
child_spawn(struct child *c, const char *bin, char *const args[])
{
	posix_spawn_file_actions_t fa;
	int out[2], in[2], ret;

	memset(c, 0, sizeof(*c));
	if (pipe(out) != 0 || pipe(in) != 0)
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_addclose(&fa, out[0]);
	posix_spawn_file_actions_addclose(&fa, in[1]);
	ret = posix_spawn(&c->pid, bin, &fa, NULL, args, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(out[1]);
	close(in[0]);
	if (ret != 0) {
		printf("  posix_spawn %s: %s\n", bin, strerror(ret));
		close(out[0]);
		close(in[1]);
		return -1;
	}
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	c->out = out[0];
	c->in = in[1];
	return 0;
}

void
child_read(struct child *c)
{
	ssize_t n;

	while (c->len + 1 < sizeof(c->buf) &&
	       (n = read(c->out, c->buf + c->len,
			 sizeof(c->buf) - 1 - c->len)) > 0)
		c->len += (size_t)n;
	c->buf[c->len] = '\0';
	if (strstr(c->buf, "DONE") != NULL)
		c->done = true;
	if (strstr(c->buf, "BOUND") != NULL)
		c->bound = true;
	if (!c->exited && waitpid(c->pid, &c->status, WNOHANG) == c->pid) {
		c->exited = true;
		while ((n = read(c->out, c->buf + c->len,
				 sizeof(c->buf) - 1 - c->len)) > 0)
			c->len += (size_t)n;
		c->buf[c->len] = '\0';
		c->ok = WIFEXITED(c->status) && WEXITSTATUS(c->status) == 0;
	}
}

void
child_reap(struct child *c)
{
	if (c->pid > 0 && !c->exited) {
		kill(c->pid, SIGKILL);
		waitpid(c->pid, &c->status, 0);
		c->exited = true;
	}
	if (c->out > 0)
		close(c->out);
	if (c->in > 0)
		close(c->in);
	c->out = c->in = -1;
}

/* Serve and read the children until pred holds or timeout_s passes. */
bool
serve_until(struct child *cs, unsigned int n, bool (*pred)(struct child *,
	    unsigned int), unsigned int timeout_s)
{
	uint64_t t0 = rds_test_now_ns();
	unsigned int i;

	while (rds_test_now_ns() - t0 < (uint64_t)timeout_s * 1000000000ULL) {
		rte_rds_server_poll(2);
		for (i = 0; i < n; i++)
			child_read(&cs[i]);
		if (pred(cs, n))
			return true;
	}
	return false;
}

bool
all_done(struct child *cs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!cs[i].done && !cs[i].exited)
			return false;
	return true;
}

bool
all_bound(struct child *cs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!cs[i].bound && !cs[i].exited)
			return false;
	return true;
}

bool
all_exited(struct child *cs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!cs[i].exited)
			return false;
	return true;
}

int
lib_up_with(enum rte_rds_idle_policy idle,
	    const struct rte_rds_server_conf *base)
{
	struct rte_rds_server_conf sc;
	struct rte_rds_conf conf;
	unsigned int lcore = rds_test_worker_lcore();

	rte_rds_conf_init(&conf);
	conf.nb_engines = 1;
	conf.engine[0].lcore_id = lcore < RTE_MAX_LCORE ? lcore :
				  RTE_RDS_ENGINE_INLINE;
	conf.engine[0].idle = idle;
	if (rte_rds_conf_add_addr(&conf, MP_IP0, "loop", NULL) != 0 ||
	    rte_rds_conf_add_addr(&conf, MP_IP1, "loop", NULL) != 0 ||
	    rds_test_lib_init(&conf) != 0)
		return -1;
	memset(&sc, 0, sizeof(sc));
	if (base != NULL)
		sc = *base;
	sc.path = sock_path;
	if (base == NULL)
		sc.gid = (gid_t)-1;
	if (sc.region_mb == 0)
		sc.region_mb = 16;
	if (rte_rds_server_start(&sc) != 0) {
		printf("  rte_rds_server_start: %s\n", rte_strerror(rte_errno));
		rds_test_lib_fini();
		return -1;
	}
	return 0;
}

int
lib_up_idle(enum rte_rds_idle_policy idle)
{
	return lib_up_with(idle, NULL);
}

int
lib_up(void)
{
	return lib_up_idle(RTE_RDS_IDLE_YIELD);
}

void
lib_down(void)
{
	CU_ASSERT(rte_rds_server_stop() == 0);
	CU_ASSERT(rds_test_lib_fini() == 0);
}

int
spawn_stream(struct child *c, unsigned int id, unsigned int n,
	     uint64_t msgs)
{
	char sid[16], sn[16], sm[32];
	char *args[] = { client_bin, (char *)"stream", sock_path, sid, sn, sm,
			 NULL };

	snprintf(sid, sizeof(sid), "%u", id);
	snprintf(sn, sizeof(sn), "%u", n);
	snprintf(sm, sizeof(sm), "%" PRIu64, msgs);
	return child_spawn(c, client_bin, args);
}

/* Every TX line must have the same RX line at the receiver. */
unsigned int
compare_digests(struct child *cs, unsigned int n, uint64_t msgs)
{
	unsigned int i, j, bad = 0, pairs = 0;
	char want[LINE], *p;

	for (i = 0; i < n; i++) {
		for (p = cs[i].buf; (p = strstr(p, "TX ")) != NULL; p++) {
			unsigned int a, b;
			uint64_t m, by;
			char sha[65];

			if (sscanf(p, "TX %u %u %" SCNu64 " %" SCNu64 " %64s",
				   &a, &b, &m, &by, sha) != 5 || b >= n)
				continue;
			snprintf(want, sizeof(want), "RX %u %u %" PRIu64 " %"
				 PRIu64 " %s\n", a, b, m, by, sha);
			pairs++;
			if (m != msgs || strstr(cs[b].buf, want) == NULL) {
				printf("  pair %u->%u: sender says %" PRIu64
				       " msgs %s, receiver does not agree\n",
				       a, b, m, sha);
				bad++;
			}
		}
	}
	j = n * (n - 1);
	if (pairs != j) {
		printf("  %u pairs reported, %u expected\n", pairs, j);
		bad++;
	}
	return bad;
}

void
run_streams(unsigned int n, uint64_t msgs, struct child *extra,
	    unsigned int nextra, void (*during)(struct child *cs,
	    unsigned int n))
{
	struct child cs[MP_MAX_CLIENTS + 16];
	struct rte_rds_server_stats ss;
	unsigned int i;
	uint64_t t0 = rds_test_now_ns();

	for (i = 0; i < n; i++)
		CU_ASSERT_FATAL(spawn_stream(&cs[i], i, n, msgs) == 0);
	for (i = 0; i < nextra; i++)
		cs[n + i] = extra[i];
	/* All bound: go. */
	CU_ASSERT(serve_until(cs, n, all_bound, 120));
	for (i = 0; i < n; i++)
		if (write(cs[i].in, "g", 1) != 1)
			CU_FAIL("cannot tell a client to go");
	if (during != NULL)
		during(cs, n + nextra);
	if (!serve_until(cs, n, all_done, 600)) {
		CU_FAIL("streams did not finish");
		for (i = 0; i < n; i++)
			printf("  client %u: %s\n", i, cs[i].buf);
	}
	/* All received: let them close and exit. */
	for (i = 0; i < n; i++) {
		close(cs[i].in);
		cs[i].in = -1;
	}
	CU_ASSERT(serve_until(cs, n, all_exited, 60));
	for (i = 0; i < n; i++) {
		if (!cs[i].ok) {
			printf("  client %u failed (status %d): %s\n", i,
			       cs[i].status, cs[i].buf);
			CU_FAIL("a client failed");
		}
	}
	CU_ASSERT(compare_digests(cs, n, msgs) == 0);
	printf("  %u clients, %" PRIu64 " messages each way per pair: %.2f s\n",
	       n, msgs, rds_test_since_s(t0));
	/* The engine let them all go. */
	CU_ASSERT(serve_until(cs, 0, all_exited, 0) || true);
	for (i = 0; i < 50 && rte_rds_server_clients() > nextra; i++)
		rte_rds_server_poll(10);
	CU_ASSERT(rte_rds_server_stats_get(&ss) == 0);
	printf("  server: attached %" PRIu64 ", detached %" PRIu64
	       ", violations %" PRIu64 ", calls %" PRIu64 ", msgs in %"
	       PRIu64 " out %" PRIu64 "\n", ss.attached, ss.detached,
	       ss.violations, ss.calls, ss.msgs_in, ss.msgs_out);
	for (i = 0; i < n; i++)
		child_reap(&cs[i]);
}


/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite multiproc: this process is the engine (rte_rds_init with two
 * loop addresses, an engine on its own lcore, rte_rds_server_start on a
 * UNIX socket) and the clients are other processes (mp_client, mp_evil:
 * no EAL). The test thread serves the socket (rte_rds_server_poll)
 * while it watches the clients' output.
 *
 *   streams:     8 clients (more than cores) at once, each sending
 *                RDS_TEST_MP_MSGS (default 1500) messages to each of the
 *                7 others and checking every byte and the order of what
 *                it gets; the SHA-256 per (sender, receiver) printed by
 *                sender and receiver must match, every client exits 0,
 *                and the engine ends with no client and no socket.
 *   kill:        the same 8, plus a victim that sends without end to a
 *                socket of ours; SIGKILL mid-stream: within a second the
 *                engine has let it go and its port can be bound again
 *                (by us, and by a new client); the 8 streams are intact.
 *   evil:        hostile clients (forged offsets, bad lengths, ring
 *                overruns, bad doorbells, a buffer given back twice or
 *                never handed out, garbage over the region, an unknown
 *                call) are each disconnected and counted as violations,
 *                while 4 streams go on intact.
 *   engine_gone: a client blocked in recvmsg when the server stops
 *                gets ECONNRESET (never hangs); a restarted server takes
 *                a new attach.
 *   snapshot:    a client's RDS_INFO snapshots reflect every call of its
 *                that returned before (mp_client snap), with the engine
 *                sleeping when idle and yielding.
 *   event_fd_move: a client's event fd moves (rte_rds_event_fd_move)
 *                under a thread asleep on it and a pipe is dup2'd over
 *                the old number: the sleeper wakes on the next message,
 *                the pipe is never written to or closed.
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

extern char **environ;

#define SINK_PORT 9999
#define LINE 512

static char sock_path[108];
static char client_bin[4096], evil_bin[4096], rdma_bin[4096];

struct child {
	pid_t pid;
	int out;		/* its stdout (ours to read) */
	int in;			/* its stdin (ours to write; close = go) */
	char buf[1 << 16];
	size_t len;
	bool bound, done, ok, exited;
	int status;
};

static void
bin_paths(const char *argv0)
{
	const char *slash = strrchr(argv0, '/');
	int n = slash == NULL ? 0 : (int)(slash - argv0 + 1);

	snprintf(client_bin, sizeof(client_bin), "%.*smp_client", n, argv0);
	snprintf(evil_bin, sizeof(evil_bin), "%.*smp_evil", n, argv0);
	snprintf(rdma_bin, sizeof(rdma_bin), "%.*smp_rdma", n, argv0);
}

static int
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

static void
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

static void
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
static bool
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

static bool
all_done(struct child *cs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!cs[i].done && !cs[i].exited)
			return false;
	return true;
}

static bool
all_bound(struct child *cs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!cs[i].bound && !cs[i].exited)
			return false;
	return true;
}

static bool
all_exited(struct child *cs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!cs[i].exited)
			return false;
	return true;
}

static int
lib_up_idle(enum rte_rds_idle_policy idle)
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
	sc.path = sock_path;
	sc.gid = (gid_t)-1;
	sc.region_mb = 16;
	if (rte_rds_server_start(&sc) != 0) {
		printf("  rte_rds_server_start: %s\n", rte_strerror(rte_errno));
		rds_test_lib_fini();
		return -1;
	}
	return 0;
}

static int
lib_up(void)
{
	return lib_up_idle(RTE_RDS_IDLE_YIELD);
}

static void
lib_down(void)
{
	CU_ASSERT(rte_rds_server_stop() == 0);
	CU_ASSERT(rds_test_lib_fini() == 0);
}

static int
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
static unsigned int
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

static void
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

static void
test_streams(void)
{
	struct rte_rds_server_stats ss;
	uint64_t msgs = rds_test_env_u64("RDS_TEST_MP_MSGS", 1500);

	rds_test_watchdog(900, "multiproc/streams");
	CU_ASSERT_FATAL(lib_up() == 0);
	run_streams((unsigned int)rds_test_env_u64("RDS_TEST_MP_CLIENTS", 8), msgs, NULL, 0, NULL);
	CU_ASSERT(rte_rds_server_stats_get(&ss) == 0);
	CU_ASSERT(ss.clients == 0);
	CU_ASSERT(ss.attached == 8);
	CU_ASSERT(ss.detached == 8);
	CU_ASSERT(ss.violations == 0);
	CU_ASSERT(ss.msgs_in == 8 * 7 * msgs);
	CU_ASSERT(ss.msgs_out == 8 * 7 * msgs);
	lib_down();
	rds_test_watchdog(0, NULL);
}

/* kill: the victim and our sink. */
static int sink = -1;
static struct child victim;
static double kill_gone_s = -1, kill_bind_s = -1;

static void
kill_during(struct child *cs, unsigned int n)
{
	uint64_t t0, t1;
	struct sockaddr_in sin = mp_sin(8);
	unsigned int before, i, drained = 0;
	char buf[2048];
	int s, k;

	(void)n;
	/* Streams running, victim sending. */
	for (k = 0; k < 2000 && strstr(victim.buf, "READY") == NULL; k++) {
		rte_rds_server_poll(2);
		child_read(&victim);
		while (rte_rds_recvfrom(sink, buf, sizeof(buf), MSG_DONTWAIT,
					NULL, NULL) >= 0)
			drained++;
	}
	CU_ASSERT_FATAL(strstr(victim.buf, "READY") != NULL);
	for (k = 0; k < 200; k++) {
		rte_rds_server_poll(1);
		for (i = 0; i < 8; i++)
			child_read(&cs[i]);
		while (rte_rds_recvfrom(sink, buf, sizeof(buf), MSG_DONTWAIT,
					NULL, NULL) >= 0)
			drained++;
	}
	before = rte_rds_server_clients();
	t0 = rds_test_now_ns();
	kill(victim.pid, SIGKILL);
	waitpid(victim.pid, &victim.status, 0);
	victim.exited = true;
	/* The engine notices the hang-up in its next server poll. */
	while (rte_rds_server_clients() >= before &&
	       rds_test_now_ns() - t0 < 5000000000ULL)
		rte_rds_server_poll(1);
	kill_gone_s = rds_test_since_s(t0);
	/* Its port is free again. */
	s = rte_rds_socket();
	CU_ASSERT_FATAL(s >= 0);
	t1 = rds_test_now_ns();
	while (rte_rds_bind(s, (struct sockaddr *)&sin, sizeof(sin)) != 0 &&
	       rds_test_now_ns() - t0 < 5000000000ULL)
		rte_rds_server_poll(1);
	kill_bind_s = rds_test_since_s(t0);
	(void)t1;
	CU_ASSERT(rte_rds_close(s) == 0);
	printf("  victim killed: engine let it go in %.3f s, port bound "
	       "again %.3f s after the kill (%u messages drained)\n",
	       kill_gone_s, kill_bind_s, drained);
}

static void
test_kill(void)
{
	struct sockaddr_in sin = rds_test_sin(MP_IP0, SINK_PORT);
	char sid[16] = "8", sp[16];
	char *args[] = { client_bin, (char *)"victim", sock_path, sid, sp,
			 NULL };
	struct child rebind;
	char *bargs[] = { client_bin, (char *)"bind", sock_path, sid, NULL };

	rds_test_watchdog(900, "multiproc/kill");
	CU_ASSERT_FATAL(lib_up() == 0);
	sink = rte_rds_socket();
	CU_ASSERT_FATAL(sink >= 0);
	CU_ASSERT_FATAL(rte_rds_bind(sink, (struct sockaddr *)&sin,
				     sizeof(sin)) == 0);
	snprintf(sp, sizeof(sp), "%u", SINK_PORT);
	CU_ASSERT_FATAL(child_spawn(&victim, client_bin, args) == 0);
	run_streams(8, rds_test_env_u64("RDS_TEST_MP_MSGS", 1500) / 2,
		    NULL, 0, kill_during);
	CU_ASSERT(kill_gone_s >= 0 && kill_gone_s < 1.0);
	CU_ASSERT(kill_bind_s >= 0 && kill_bind_s < 1.0);
	/* A new client binds the victim's port too. */
	CU_ASSERT_FATAL(child_spawn(&rebind, client_bin, bargs) == 0);
	CU_ASSERT(serve_until(&rebind, 1, all_exited, 30));
	CU_ASSERT(rebind.exited && WIFEXITED(rebind.status) &&
		  WEXITSTATUS(rebind.status) == 0);
	child_reap(&rebind);
	child_reap(&victim);
	CU_ASSERT(rte_rds_close(sink) == 0);
	lib_down();
	rds_test_watchdog(0, NULL);
}

static const char *const evil_modes[] = {
	"offset", "badlen", "ring", "bell", "double", "foreign", "garbage",
	"call",
};
#define NB_EVIL RTE_DIM(evil_modes)
static struct child evil[NB_EVIL];

static void
evil_during(struct child *cs, unsigned int n)
{
	unsigned int i, k;
	char sid[16];
	int s = rte_rds_socket();

	(void)cs;
	(void)n;
	CU_ASSERT_FATAL(s >= 0);
	CU_ASSERT_FATAL(rte_rds_bind(s, &(struct sockaddr){ 0 }, 0) != 0 ||
			true);
	{
		struct sockaddr_in sin = rds_test_sin(MP_IP0, SINK_PORT + 1);

		CU_ASSERT_FATAL(rte_rds_bind(s, (struct sockaddr *)&sin,
					     sizeof(sin)) == 0);
	}
	for (i = 0; i < NB_EVIL; i++) {
		char *args[] = { evil_bin, sock_path, (char *)evil_modes[i],
				 sid, NULL };

		snprintf(sid, sizeof(sid), "%u", 10 + i);
		CU_ASSERT_FATAL(child_spawn(&evil[i], evil_bin, args) == 0);
		/* "double" needs a message to give back twice. */
		for (k = 0; k < 5000 && strstr(evil[i].buf, "READY") == NULL &&
		     !evil[i].exited; k++) {
			rte_rds_server_poll(1);
			child_read(&evil[i]);
		}
		if (strcmp(evil_modes[i], "double") == 0) {
			struct sockaddr_in to = mp_sin(10 + i);

			CU_ASSERT(rte_rds_sendto(s, "x", 1, 0,
				  (struct sockaddr *)&to, sizeof(to)) == 1);
		}
	}
	CU_ASSERT(serve_until(evil, NB_EVIL, all_exited, 60));
	for (i = 0; i < NB_EVIL; i++) {
		printf("  evil %-8s: %s", evil_modes[i], evil[i].buf);
		CU_ASSERT(evil[i].exited && WIFEXITED(evil[i].status) &&
			  WEXITSTATUS(evil[i].status) == 0);
		child_reap(&evil[i]);
	}
	CU_ASSERT(rte_rds_close(s) == 0);
}

static void
test_evil(void)
{
	struct rte_rds_server_stats ss;

	rds_test_watchdog(900, "multiproc/evil");
	CU_ASSERT_FATAL(lib_up() == 0);
	run_streams(4, rds_test_env_u64("RDS_TEST_MP_MSGS", 1500) / 2,
		    NULL, 0, evil_during);
	CU_ASSERT(rte_rds_server_stats_get(&ss) == 0);
	/* Every hostile client but "call" broke the region protocol; the
	 * unknown call counts too. */
	CU_ASSERT(ss.violations == NB_EVIL);
	CU_ASSERT(ss.clients == 0);
	lib_down();
	rds_test_watchdog(0, NULL);
}

/*
 * snapshot: a client's snapshots reflect its calls (issue 11). The
 * client's sends wait in its region until the engine takes them, and
 * its RDS_INFO calls are answered by this thread; the engine sleeps
 * when idle, so a send and the snapshot after it often come in the same
 * sleep. See mp_client snap.
 */
static void
run_snap(enum rte_rds_idle_policy idle, const char *what)
{
	char iters[32];
	char *args[] = { client_bin, (char *)"snap", sock_path, (char *)"0",
			 iters, NULL };
	struct child c;

	snprintf(iters, sizeof(iters), "%" PRIu64,
		 rds_test_env_u64("RDS_TEST_MP_SNAP_ITERS", 5000));
	CU_ASSERT_FATAL(lib_up_idle(idle) == 0);
	CU_ASSERT_FATAL(child_spawn(&c, client_bin, args) == 0);
	CU_ASSERT(serve_until(&c, 1, all_exited, 300));
	printf("  %s: %s", what, c.buf);
	CU_ASSERT(c.exited && c.ok);
	CU_ASSERT(strstr(c.buf, "SNAP sends") != NULL);
	child_reap(&c);
	lib_down();
}

static void
test_snapshot(void)
{
	rds_test_watchdog(600, "multiproc/snapshot");
	printf("\n");
	run_snap(RTE_RDS_IDLE_SLEEP, "engine on its lcore, idle sleep");
	run_snap(RTE_RDS_IDLE_YIELD, "engine on its lcore, idle yield");
	rds_test_watchdog(0, NULL);
}

/* RDMA between two clients: regions and local vectors in their own
 * memory (mp_rdma.c has the checks). */
static void
test_rdma(void)
{
	struct child c[2];
	char *targs[] = { rdma_bin, (char *)"target", sock_path, NULL };
	char *iargs[] = { rdma_bin, (char *)"initiator", sock_path, NULL };
	unsigned int i;

	rds_test_watchdog(300, "multiproc/rdma");
	CU_ASSERT_FATAL(lib_up() == 0);
	CU_ASSERT_FATAL(child_spawn(&c[0], rdma_bin, targs) == 0);
	for (i = 0; i < 5000 && strstr(c[0].buf, "READY") == NULL &&
	     !c[0].exited; i++) {
		rte_rds_server_poll(1);
		child_read(&c[0]);
	}
	CU_ASSERT_FATAL(child_spawn(&c[1], rdma_bin, iargs) == 0);
	CU_ASSERT(serve_until(c, 2, all_exited, 120));
	for (i = 0; i < 2; i++) {
		printf("  %s: %s", i == 0 ? "target" : "initiator", c[i].buf);
		CU_ASSERT(c[i].ok);
		child_reap(&c[i]);
	}
	lib_down();
	rds_test_watchdog(0, NULL);
}

/* The engine goes (server stopped) under a client blocked in recvmsg:
 * ECONNRESET, no hang; a restarted server takes a new attach. */
static void
test_engine_gone(void)
{
	struct rte_rds_server_conf sc;
	struct child c;
	char sid[16] = "3";
	char *args[] = { client_bin, (char *)"block", sock_path, sid, NULL };
	unsigned int i;

	rds_test_watchdog(300, "multiproc/engine_gone");
	CU_ASSERT_FATAL(lib_up() == 0);
	CU_ASSERT_FATAL(child_spawn(&c, client_bin, args) == 0);
	for (i = 0; i < 5000 && strstr(c.buf, "READY") == NULL && !c.exited;
	     i++) {
		rte_rds_server_poll(1);
		child_read(&c);
	}
	CU_ASSERT_FATAL(strstr(c.buf, "READY") != NULL);
	rds_test_usleep(200000);	/* it is in recvmsg now */
	CU_ASSERT(rte_rds_server_stop() == 0);
	for (i = 0; i < 1000 && strstr(c.buf, "GONE") == NULL && !c.exited;
	     i++) {
		rds_test_usleep(5000);
		child_read(&c);
	}
	CU_ASSERT(strstr(c.buf, "GONE") != NULL);
	/* Serving again, on the same path. */
	memset(&sc, 0, sizeof(sc));
	sc.path = sock_path;
	sc.gid = (gid_t)-1;
	sc.region_mb = 16;
	CU_ASSERT_FATAL(rte_rds_server_start(&sc) == 0);
	CU_ASSERT(serve_until(&c, 1, all_exited, 60));
	printf("  client: %s", c.buf);
	CU_ASSERT(c.ok && strstr(c.buf, "REATTACHED") != NULL);
	child_reap(&c);
	lib_down();
	rds_test_watchdog(0, NULL);
}

/* A client's event fd moved under a thread asleep on it, a pipe over the
 * old number at once (mp_client move has the checks). */
static void
test_event_fd_move(void)
{
	struct child c;
	char *args[] = { client_bin, (char *)"move", sock_path, (char *)"4",
			 NULL };

	rds_test_watchdog(120, "multiproc/event_fd_move");
	CU_ASSERT_FATAL(lib_up() == 0);
	CU_ASSERT_FATAL(child_spawn(&c, client_bin, args) == 0);
	CU_ASSERT(serve_until(&c, 1, all_exited, 60));
	printf("  client: %s", c.buf);
	CU_ASSERT(c.exited && c.ok && strstr(c.buf, "MOVED") != NULL);
	child_reap(&c);
	lib_down();
	rds_test_watchdog(0, NULL);
}

int
main(int argc, char **argv)
{
	static const struct rds_test_case cases[] = {
		{ "event_fd_move", test_event_fd_move },
		{ "engine_gone", test_engine_gone },
		{ "streams", test_streams },
		{ "kill", test_kill },
		{ "evil", test_evil },
		{ "snapshot", test_snapshot },
		{ "rdma", test_rdma },
		{ NULL, NULL },
	};
	int ret;

	(void)argc;
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	bin_paths(argv[0]);
	snprintf(sock_path, sizeof(sock_path), "/tmp/rds-mp-%d.sock",
		 (int)getpid());
	rds_test_eal_init("mp_engine", "0-1");
	ret = rds_test_run_suite("multiproc", cases);
	rds_test_eal_fini();
	unlink(sock_path);
	return ret;
}

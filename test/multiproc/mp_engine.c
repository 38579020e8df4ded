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
 *                socket of ours; SIGKILL mid-stream: at its hang-up the
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
#include "mp_harness.h"

#define SINK_PORT 9999

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
	/* Plain loop sends of 1 KiB or more go from the sender's TX
	 * buffer, not a copy (rds_server_zc.c): about 3 in 4 of these
	 * lengths (0 .. 4 KiB, 1 in 100 up to 256 KiB); their content is
	 * what the receivers' SHA-256 checked above, with every sender
	 * reusing its TX buffers as they come back. */
	printf("  sent from the TX buffer: %" PRIu64 " of %" PRIu64 "\n",
	       ss.msgs_zc, ss.msgs_in);
	CU_ASSERT(ss.msgs_zc <= ss.msgs_in);
	CU_ASSERT(ss.msgs_zc >= ss.msgs_in / 2);
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
	/* Timed from the victim's reaping, not the kill: a killed process
	 * frees its memory before its descriptors close, which on an
	 * oversubscribed machine alone took 2-6 s (the engine cannot see
	 * the hang-up before that). */
	kill(victim.pid, SIGKILL);
	waitpid(victim.pid, &victim.status, 0);
	victim.exited = true;
	t0 = rds_test_now_ns();
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
	       "again %.3f s after its reaping (%u messages drained)\n",
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
	/* Noticed from the hang-up, not a timeout: milliseconds on a quiet
	 * machine (the figure printed above), counted from the victim's
	 * reaping; the bound leaves room for an oversubscribed one. */
	CU_ASSERT(kill_gone_s >= 0 && kill_gone_s < 5.0);
	CU_ASSERT(kill_bind_s >= 0 && kill_bind_s < 5.0);
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
 * snapshot: a client's snapshots reflect its calls. The
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
	struct rte_rds_server_stats s0, s1;
	struct child c[2];
	char *targs[] = { rdma_bin, (char *)"target", sock_path, NULL };
	char *iargs[] = { rdma_bin, (char *)"initiator", sock_path, NULL };
	unsigned int i;

	rds_test_watchdog(300, "multiproc/rdma");
	CU_ASSERT_FATAL(lib_up() == 0);
	CU_ASSERT(rte_rds_server_stats_get(&s0) == 0);
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
	/* The initiator's 118 operations (15 WRITEs, a READ, 100 FADDs, a
	 * CSWP, the WRITE to a freed region) went with their sends through
	 * its request ring, not a call each (rds_server_rdma.c): the two
	 * made a few dozen calls in all (sockets, options, regions). */
	CU_ASSERT(rte_rds_server_stats_get(&s1) == 0);
	printf("  operations through the ring %" PRIu64 " (dropped %" PRIu64
	       "), control calls %" PRIu64 "\n", s1.ops_in - s0.ops_in,
	       s1.ops_dropped - s0.ops_dropped, s1.calls - s0.calls);
	CU_ASSERT(s1.ops_in - s0.ops_in >= 118);
	CU_ASSERT(s1.ops_dropped == s0.ops_dropped);
	CU_ASSERT(s1.calls - s0.calls < 100);
	CU_ASSERT(s1.violations == s0.violations);
	lib_down();
	rds_test_watchdog(0, NULL);
}

/* rds-stress's RDMA: a request with RDMA_MAP, a WRITE into it, its
 * FREE_MR, 200 times (mp_rdma_map.c has the checks, the kernel's errnos
 * among them). RDMA_MAP and FREE_MR go through the socket's request
 * ring once it has keys: a few calls in all, not two per request. */
static void
test_rdma_map(void)
{
	struct rte_rds_server_stats s0, s1;
	char *args[] = { rdma_map_bin, (char *)"map", sock_path, NULL };
	struct child c;

	rds_test_watchdog(300, "multiproc/rdma_map");
	CU_ASSERT_FATAL(lib_up() == 0);
	CU_ASSERT(rte_rds_server_stats_get(&s0) == 0);
	CU_ASSERT_FATAL(child_spawn(&c, rdma_map_bin, args) == 0);
	CU_ASSERT(serve_until(&c, 1, all_exited, 120));
	printf("  client: %s", c.buf);
	CU_ASSERT(c.ok);
	child_reap(&c);
	CU_ASSERT(rte_rds_server_stats_get(&s1) == 0);
	printf("  control calls %" PRIu64 " for 203 requests with RDMA_MAP "
	       "and their FREE_MRs\n", s1.calls - s0.calls);
	CU_ASSERT(s1.calls - s0.calls < 50);
	CU_ASSERT(s1.ops_dropped == s0.ops_dropped);
	CU_ASSERT(s1.violations == s0.violations);
	lib_down();
	rds_test_watchdog(0, NULL);
}

/* A READ from a client whose local buffer is unmapped while its send
 * waits in the request ring: its data's write into the client's memory
 * fails when it comes back, and it ends with RDS_RDMA_OTHER_ERROR, its
 * message dropped (mp_rdma unmap). The engine does not look at a queued
 * operation's buffers again when it takes it: nothing is dropped then. */
static void
test_rdma_unmap(void)
{
	struct rte_rds_server_stats s0, s1;
	char *args[] = { rdma_bin, (char *)"unmap", sock_path, NULL };
	struct child c;

	rds_test_watchdog(300, "multiproc/rdma_unmap");
	CU_ASSERT_FATAL(lib_up() == 0);
	CU_ASSERT(rte_rds_server_stats_get(&s0) == 0);
	CU_ASSERT_FATAL(child_spawn(&c, rdma_bin, args) == 0);
	CU_ASSERT(serve_until(&c, 1, all_exited, 120));
	printf("  unmap: %s", c.buf);
	CU_ASSERT(c.ok);
	child_reap(&c);
	CU_ASSERT(rte_rds_server_stats_get(&s1) == 0);
	CU_ASSERT_EQUAL(s1.ops_dropped - s0.ops_dropped, 0);
	CU_ASSERT(s1.violations == s0.violations);
	lib_down();
	rds_test_watchdog(0, NULL);
}

static bool
flooding(struct child *cs, unsigned int n)
{
	(void)n;
	return strstr(cs->buf, "FLOODING") != NULL || cs->exited;
}

/* A client killed with RDMA WRITEs in flight (its sends in the ring,
 * operations on the engine's connections, notifications on their way):
 * the engine lets it go (no violation, its sockets closed), and RDMA
 * between two new clients works. */
static void
test_rdma_killed(void)
{
	struct rte_rds_server_stats s0, s1;
	char *fargs[] = { rdma_bin, (char *)"flood", sock_path, NULL };
	char *targs[] = { rdma_bin, (char *)"target", sock_path, NULL };
	char *iargs[] = { rdma_bin, (char *)"initiator", sock_path, NULL };
	struct child f, c[2];
	unsigned int i;

	rds_test_watchdog(300, "multiproc/rdma_killed");
	CU_ASSERT_FATAL(lib_up() == 0);
	CU_ASSERT(rte_rds_server_stats_get(&s0) == 0);
	CU_ASSERT_FATAL(child_spawn(&f, rdma_bin, fargs) == 0);
	CU_ASSERT(serve_until(&f, 1, flooding, 60));
	CU_ASSERT(!f.exited);
	kill(f.pid, SIGKILL);
	for (i = 0; i < 30000 && rte_rds_server_clients() != 0; i++) {
		rte_rds_server_poll(1);
		child_read(&f);
	}
	CU_ASSERT_EQUAL(rte_rds_server_clients(), 0);
	child_reap(&f);
	CU_ASSERT_FATAL(child_spawn(&c[0], rdma_bin, targs) == 0);
	for (i = 0; i < 5000 && strstr(c[0].buf, "READY") == NULL &&
	     !c[0].exited; i++) {
		rte_rds_server_poll(1);
		child_read(&c[0]);
	}
	CU_ASSERT_FATAL(child_spawn(&c[1], rdma_bin, iargs) == 0);
	CU_ASSERT(serve_until(c, 2, all_exited, 120));
	for (i = 0; i < 2; i++) {
		CU_ASSERT(c[i].ok);
		child_reap(&c[i]);
	}
	CU_ASSERT(rte_rds_server_stats_get(&s1) == 0);
	printf("  flood: %" PRIu64 " operations through the ring before and "
	       "after the kill\n", s1.ops_in - s0.ops_in);
	CU_ASSERT(s1.ops_in - s0.ops_in >= 8 + 118);
	CU_ASSERT(s1.violations == s0.violations);
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

/* A client's control call is said in its region: an engine's pass
 * takes it, rte_rds_server_pending() says so before the socket is
 * served, and serving it clears it. */
static void
test_call_pending(void)
{
	char *args[] = { client_bin, (char *)"bind", sock_path, (char *)"5",
			 NULL };
	struct child c;
	unsigned int i;

	rds_test_watchdog(120, "multiproc/call_pending");
	CU_ASSERT_FATAL(lib_up() == 0);
	CU_ASSERT_EQUAL(rte_rds_server_pending(), 0);
	CU_ASSERT_FATAL(child_spawn(&c, client_bin, args) == 0);
	/* Its hello answered (no region before it: no hint), then its
	 * first call (the socket) waits, unserved, for the hint. */
	for (i = 0; i < 10000 && rte_rds_server_clients() == 0; i++)
		rte_rds_server_poll(1);
	CU_ASSERT_FATAL(rte_rds_server_clients() == 1);
	for (i = 0; i < 10000 && !rte_rds_server_pending(); i++)
		rds_test_usleep(1000);
	CU_ASSERT_EQUAL(rte_rds_server_pending(), 1);
	CU_ASSERT(rte_rds_server_poll(0) >= 0);
	CU_ASSERT(serve_until(&c, 1, all_exited, 60));
	CU_ASSERT(c.exited && WIFEXITED(c.status) &&
		  WEXITSTATUS(c.status) == 0);
	child_reap(&c);
	rte_rds_server_poll(0);
	CU_ASSERT_EQUAL(rte_rds_server_pending(), 0);
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
		{ "rdma_map", test_rdma_map },
		{ "call_pending", test_call_pending },
		{ "rdma_unmap", test_rdma_unmap },
		{ "rdma_killed", test_rdma_killed },
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

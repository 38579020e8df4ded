/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The eth transport between two processes, each with its own EAL, ethdev
 * and library instance (eth_peer, started here with posix_spawn; this
 * process never initialises the EAL): over net_memif ("eth_mp memif")
 * or over net_af_packet on a veth pair between two network namespaces
 * that the test makes and removes ("eth_mp afpacket"). See eth_mp.h for
 * the protocol between the two.
 *
 *   stream:  A (10.253.x.1) and B (.2) each send RDS_TEST_MSGS (default
 *            100,000) messages to the other's two sockets (most 0 B ..
 *            4 KiB, 1 % 4 KiB .. 1 MiB) with the shared stream checker:
 *            every receiver checks each message's sequence, length and
 *            every byte; the running SHA-256 of each of the 8 (sender,
 *            receiver) pairs, taken by the sender in one process and the
 *            receiver in the other, must match. Each peer reports DONE
 *            only once nothing it sent is unacknowledged, and exits only
 *            when both are done.
 *   faults:  the same with 5 % loss, 1 % duplication, 2 % reordering
 *            (depth 8) and 0.5 % corruption injected in both processes;
 *            both must show the faults and the retransmissions.
 *   restart: B registers an MR over a shared file and sends A its
 *            cookie; A streams to B and runs atomic FETCH_ADD 1 with
 *            RDS_RDMA_NOTIFY_ME against it while B streams to A. B is
 *            SIGKILLed mid-stream and a new B (incarnation 1, new
 *            epoch) is started on the same address: A must count a
 *            peer restart, the new B takes A's streams from wherever
 *            they resume (strictly in order after that: nothing twice),
 *            A takes the new B's streams whole, the new B registers a
 *            new MR and sends its cookie, and A runs RDS_TEST_RDMA_OPS
 *            (default 2000) atomics against it under 2 % duplication
 *            and 2 % reordering: all SUCCESS, the counter in the new MR
 *            equals their number, their old values are exactly 0 ..
 *            N-1, and the new B got one message per operation. The
 *            operations with the old cookie all end SUCCESS, DROPPED or
 *            REMOTE_ERROR (one that reached the new B), and the old
 *            counter (read from the file after the kill) lies between
 *            the SUCCESSes and SUCCESS + DROPPED: none ran twice.
 *            With memif B is the client (the server stays).
 *   restart_server (memif): the same with B the memif server: A, the
 *            client, must restart its port to find the new server
 *            (relink).
 *
 * af_packet needs root (network namespaces, veth); without it the test
 * fails and says why. Leftovers of a run that was killed (namespaces,
 * shared files) are removed at start; every exit path (failure, watchdog,
 * SIGTERM from meson's timeout) kills the peers and removes what this
 * run made.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <CUnit/CUnit.h>

#include "rds_test.h"
#include "eth_mp.h"

extern char **environ;

enum xport { XP_MEMIF, XP_AFP };

static enum xport xport;
static char peer_path[PATH_MAX];
static pid_t self;

#define IPA_MEMIF "10.253.0.1"
#define IPB_MEMIF "10.253.0.2"
#define MACA_MEMIF "02:00:0a:fd:00:01"
#define MACB_MEMIF "02:00:0a:fd:00:02"
/* The namespaces' own addresses (kernel), and RDS's on the same link. */
#define KIPA_AFP "10.253.1.1"
#define KIPB_AFP "10.253.1.2"
#define IPA_AFP "10.253.1.11"
#define IPB_AFP "10.253.1.12"
#define NS_PREFIX "rdst-eth-"

/* ------------------------------------------------------------------ */
/* What this run made, for clean-up on every exit path */

#define MAX_PEERS 4

static volatile pid_t live_pids[MAX_PEERS];
static char ns_a[64], ns_b[64];
static volatile int ns_made;
static char shm_files[2][128];
static volatile int shm_made;

/* Async-signal-safe: run "ip netns del NAME" and wait. */
static void
ns_del_raw(const char *name)
{
	char *const argv[] = { (char *)"ip", (char *)"netns", (char *)"del",
			       (char *)name, NULL };
	pid_t p = fork();
	int status;

	if (p == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execv("/usr/sbin/ip", argv);
		execv("/sbin/ip", argv);
		execv("/usr/bin/ip", argv);
		_exit(127);
	}
	if (p > 0)
		waitpid(p, &status, 0);
}

/* Kill the peers, remove namespaces and files (async-signal-safe). */
static void
cleanup_all(void)
{
	unsigned int i;
	int status;

	for (i = 0; i < MAX_PEERS; i++) {
		pid_t p = live_pids[i];

		if (p > 0) {
			kill(p, SIGKILL);
			waitpid(p, &status, 0);
			live_pids[i] = 0;
		}
	}
	if (ns_made) {
		ns_del_raw(ns_a);
		ns_del_raw(ns_b);
		ns_made = 0;
	}
	for (i = 0; shm_made && i < 2; i++)
		unlink(shm_files[i]);
	shm_made = 0;
}

static void
on_signal(int sig)
{
	static const char m1[] = "eth_mp: signal ";
	static const char m2[] = ": killing the peers, removing namespaces\n";
	char d[4] = { (char)('0' + sig / 10), (char)('0' + sig % 10), 0, 0 };

	if (write(2, m1, sizeof(m1) - 1) < 0 || write(2, d, 2) < 0 ||
	    write(2, m2, sizeof(m2) - 1) < 0) {
		/* nothing to do */
	}
	cleanup_all();
	_exit(sig == SIGALRM ? 2 : 128 + sig);
}

static void
watchdog(unsigned int secs)
{
	alarm(secs);
}

static void
signals_init(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGABRT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	atexit(cleanup_all);
}

/* ------------------------------------------------------------------ */
/* Commands */

/* Run argv (PATH search), wait; its exit status (or -1), printed when it
 * is not 0 and !quiet. */
static int
run_argv(char *const argv[], bool quiet)
{
	posix_spawn_file_actions_t fa;
	pid_t p;
	int status, ret, i;

	posix_spawn_file_actions_init(&fa);
	if (quiet) {
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY,
						 0);
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY,
						 0);
	}
	ret = posix_spawnp(&p, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (ret != 0) {
		printf("  cannot run %s: %s\n", argv[0], strerror(ret));
		return -1;
	}
	if (waitpid(p, &status, 0) < 0)
		return -1;
	ret = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	if (ret != 0 && !quiet) {
		printf("  FAILED (status %d):", ret);
		for (i = 0; argv[i] != NULL; i++)
			printf(" %s", argv[i]);
		printf("\n");
	}
	return ret;
}

/* Run a command given as words (NULL-terminated). */
static int
run(bool quiet, const char *a0, ...)
{
	char *argv[32];
	va_list ap;
	int n = 0;

	argv[n++] = (char *)(uintptr_t)a0;
	va_start(ap, a0);
	while (n < 31 && (argv[n] = va_arg(ap, char *)) != NULL)
		n++;
	va_end(ap);
	argv[n] = NULL;
	return run_argv(argv, quiet);
}

/* Is the eth_mp of pid gone: no such process, a zombie (killed, not yet
 * reaped), or the pid reused by another program? */
static bool
pid_gone(long pid)
{
	char path[64], buf[256], *rp;
	ssize_t n;
	int fd;

	if (kill((pid_t)pid, 0) != 0)
		return errno == ESRCH;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* "pid (comm) S ...": comm may hold anything but ends at the last
	 * ')'. */
	rp = strrchr(buf, ')');
	if (rp == NULL || rp[1] != ' ')
		return false;
	if (rp[2] == 'Z')
		return true;
	*rp = '\0';
	return strstr(buf, "(eth_mp") == NULL;
}

/* Namespaces rdst-eth-<pid>-a/b of runs whose process is gone. */
static void
sweep_stale_netns(void)
{
	struct dirent *de;
	DIR *d = opendir("/run/netns");
	char name[300];

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		long pid;
		char *end;

		if (strncmp(de->d_name, NS_PREFIX, strlen(NS_PREFIX)) != 0)
			continue;
		pid = strtol(de->d_name + strlen(NS_PREFIX), &end, 10);
		if (pid <= 0 || *end != '-' || pid == (long)self ||
		    !pid_gone(pid))
			continue;
		snprintf(name, sizeof(name), "%s", de->d_name);
		printf("  removing namespace %s of an earlier run (pid %ld "
		       "gone)\n", name, pid);
		run(true, "ip", "netns", "del", name, NULL);
	}
	closedir(d);
}

/* Shared files rdst-ethmp-<pid>-* of runs whose process is gone. */
static void
sweep_stale_shm(void)
{
	struct dirent *de;
	DIR *d = opendir("/dev/shm");
	char path[600];

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		long pid;
		char *end;

		if (strncmp(de->d_name, "rdst-ethmp-", 11) != 0)
			continue;
		pid = strtol(de->d_name + 11, &end, 10);
		if (pid <= 0 || *end != '-' || pid == (long)self ||
		    !pid_gone(pid))
			continue;
		snprintf(path, sizeof(path), "/dev/shm/%s", de->d_name);
		unlink(path);
	}
	closedir(d);
}

/* Two namespaces joined by a veth pair (veth0 in each), IPv6 off,
 * addresses, up. 0, or -1 with the reason printed. */
static int
netns_up(void)
{
	const char *ns[2] = { ns_a, ns_b };
	const char *kip[2] = { KIPA_AFP "/24", KIPB_AFP "/24" };
	unsigned int i;

	if (geteuid() != 0) {
		printf("  FAIL: the af_packet tests make network namespaces "
		       "and a veth pair, which needs root (euid %d)\n",
		       (int)geteuid());
		return -1;
	}
	snprintf(ns_a, sizeof(ns_a), NS_PREFIX "%d-a", (int)self);
	snprintf(ns_b, sizeof(ns_b), NS_PREFIX "%d-b", (int)self);
	/* Ours from an earlier test of this process, if it failed. */
	run(true, "ip", "netns", "del", ns_a, NULL);
	run(true, "ip", "netns", "del", ns_b, NULL);
	ns_made = 1;
	if (run(false, "ip", "netns", "add", ns_a, NULL) != 0 ||
	    run(false, "ip", "netns", "add", ns_b, NULL) != 0) {
		printf("  FAIL: cannot make network namespaces (ip netns "
		       "add): not root, or no netns support\n");
		return -1;
	}
	if (run(false, "ip", "link", "add", "veth0", "netns", ns_a, "type",
		"veth", "peer", "name", "veth0", "netns", ns_b, NULL) != 0) {
		printf("  FAIL: cannot make a veth pair between %s and %s\n",
		       ns_a, ns_b);
		return -1;
	}
	for (i = 0; i < 2; i++) {
		if (run(false, "ip", "netns", "exec", ns[i], "sysctl", "-q",
			"-w", "net.ipv6.conf.all.disable_ipv6=1", NULL) != 0 ||
		    run(false, "ip", "netns", "exec", ns[i], "sysctl", "-q",
			"-w", "net.ipv6.conf.default.disable_ipv6=1",
			NULL) != 0 ||
		    run(false, "ip", "netns", "exec", ns[i], "sysctl", "-q",
			"-w", "net.ipv6.conf.veth0.disable_ipv6=1",
			NULL) != 0 ||
		    run(false, "ip", "-n", ns[i], "addr", "add", kip[i], "dev",
			"veth0", NULL) != 0 ||
		    run(false, "ip", "-n", ns[i], "link", "set", "lo", "up",
			NULL) != 0 ||
		    run(false, "ip", "-n", ns[i], "link", "set", "veth0", "up",
			NULL) != 0) {
			printf("  FAIL: cannot set up veth0 in %s\n", ns[i]);
			return -1;
		}
	}
	printf("  namespaces %s (veth0 %s) and %s (veth0 %s), IPv6 off; RDS "
	       "on %s and %s\n", ns_a, KIPA_AFP, ns_b, KIPB_AFP, IPA_AFP,
	       IPB_AFP);
	return 0;
}

static void
netns_down(void)
{
	if (!ns_made)
		return;
	run(false, "ip", "netns", "del", ns_a, NULL);
	run(false, "ip", "netns", "del", ns_b, NULL);
	ns_made = 0;
}

/* ------------------------------------------------------------------ */
/* Peers */

struct kv {
	char name[48];
	uint64_t v;
};

struct pair_digest {
	unsigned int src, dst;
	uint64_t msgs, bytes, first;
	char sha[65];
};

struct peer {
	const char *name;
	int slot;			/* in live_pids */
	pid_t pid;
	int cmd_fd, rep_fd, out_fd;
	char rbuf[4096], obuf[8192];
	size_t rlen, olen;
	bool exited;
	int status;
	bool up, ready, done, done_ok, bye, bye_ok;
	uint64_t prog_rx, prog_tx, prog_ok;
	struct kv stat[64];
	unsigned int nstat;
	struct pair_digest tx[16], rx[16];
	unsigned int ntx, nrx;
	uint64_t rdma[2][7];		/* RDMA lines, per cookie gen */
	bool has_rdma[2];
	uint64_t target[4];		/* TARGET: gen msgs late counter */
	bool has_target;
};

/* What a peer is started with. */
struct peer_args {
	const char *name;
	unsigned int index;
	const char *lcore;
	const char *vdev;
	uint64_t msgs;
	const char *faults, *faults_at;
	uint64_t seed;
	unsigned int gen, peer_gen;
	bool resync;
	const char *rdma;
	const char *mr_file;
	uint64_t rdma_ops;
};

static int
high_fd(int fd)
{
	int n = fcntl(fd, F_DUPFD_CLOEXEC, 20);

	close(fd);
	return n;
}

static int
peer_spawn(struct peer *p, const struct peer_args *a, int slot)
{
	char *argv[64];
	char idx[8], msgs[24], seed[24], gen[8], pgen[8], ops[24], ppid[16];
	int cmd[2], rep[2], out[2], n = 0, ret;
	posix_spawn_file_actions_t fa;
	const char *ipa, *ipb;

	memset(p, 0, sizeof(*p));
	p->name = a->name;
	p->slot = slot;
	p->cmd_fd = p->rep_fd = p->out_fd = -1;
	if (pipe(cmd) != 0 || pipe(rep) != 0 || pipe(out) != 0) {
		printf("  pipe: %s\n", strerror(errno));
		return -1;
	}
	cmd[0] = high_fd(cmd[0]);
	cmd[1] = high_fd(cmd[1]);
	rep[0] = high_fd(rep[0]);
	rep[1] = high_fd(rep[1]);
	out[0] = high_fd(out[0]);
	out[1] = high_fd(out[1]);
	snprintf(idx, sizeof(idx), "%u", a->index);
	snprintf(msgs, sizeof(msgs), "%" PRIu64, a->msgs);
	snprintf(seed, sizeof(seed), "%" PRIu64, a->seed);
	snprintf(gen, sizeof(gen), "%u", a->gen);
	snprintf(pgen, sizeof(pgen), "%u", a->peer_gen);
	snprintf(ops, sizeof(ops), "%" PRIu64, a->rdma_ops);
	snprintf(ppid, sizeof(ppid), "%d", (int)self);
	if (xport == XP_AFP) {
		argv[n++] = (char *)(uintptr_t)"ip";
		argv[n++] = (char *)(uintptr_t)"netns";
		argv[n++] = (char *)(uintptr_t)"exec";
		argv[n++] = a->index == 0 ? ns_a : ns_b;
		ipa = IPA_AFP;
		ipb = IPB_AFP;
	} else {
		ipa = IPA_MEMIF;
		ipb = IPB_MEMIF;
	}
#define ARG(x) (argv[n++] = (char *)(uintptr_t)(x))
	ARG(peer_path);
	ARG("--name"); ARG(a->name);
	ARG("--index"); ARG(idx);
	ARG("--ipa"); ARG(ipa);
	ARG("--ipb"); ARG(ipb);
	ARG("--dev"); ARG(xport == XP_AFP ? "net_af_packet0" : "net_memif0");
	ARG("--vdev"); ARG(a->vdev);
	ARG("--lcore"); ARG(a->lcore);
	if (xport == XP_MEMIF) {
		ARG("--mac"); ARG(a->index == 0 ? MACA_MEMIF : MACB_MEMIF);
		ARG("--peer-mac"); ARG(a->index == 0 ? MACB_MEMIF : MACA_MEMIF);
	}
	ARG("--msgs"); ARG(msgs);
	ARG("--faults"); ARG(a->faults != NULL ? a->faults : "none");
	ARG("--faults-at"); ARG(a->faults_at != NULL ? a->faults_at : "go");
	ARG("--seed"); ARG(seed);
	ARG("--gen"); ARG(gen);
	ARG("--peer-gen"); ARG(pgen);
	if (a->resync)
		ARG("--resync");
	ARG("--rdma"); ARG(a->rdma != NULL ? a->rdma : "none");
	if (a->mr_file != NULL) {
		ARG("--mr-file"); ARG(a->mr_file);
	}
	ARG("--rdma-ops"); ARG(ops);
	ARG("--ppid"); ARG(ppid);
#undef ARG
	argv[n] = NULL;
	printf("  start %s:", a->name);
	for (ret = 0; ret < n; ret++)
		printf(" %s", argv[ret]);
	printf("\n");
	fflush(stdout);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, cmd[0], 3);
	posix_spawn_file_actions_adddup2(&fa, rep[1], 4);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_adddup2(&fa, out[1], 2);
	ret = posix_spawnp(&p->pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(cmd[0]);
	close(rep[1]);
	close(out[1]);
	if (ret != 0) {
		printf("  cannot start %s: %s\n", argv[0], strerror(ret));
		close(cmd[1]);
		close(rep[0]);
		close(out[0]);
		return -1;
	}
	live_pids[slot] = p->pid;
	p->cmd_fd = cmd[1];
	p->rep_fd = rep[0];
	p->out_fd = out[0];
	fcntl(p->rep_fd, F_SETFL, O_NONBLOCK);
	fcntl(p->out_fd, F_SETFL, O_NONBLOCK);
	return 0;
}

static void
peer_cmd(struct peer *p, const char *cmd)
{
	char line[64];
	int n = snprintf(line, sizeof(line), "%s\n", cmd);

	if (p->cmd_fd < 0 || write(p->cmd_fd, line, (size_t)n) != n)
		printf("  %s: cannot send %s (%s)\n", p->name, cmd,
		       strerror(errno));
}

static uint64_t
peer_stat(const struct peer *p, const char *name)
{
	unsigned int i;

	for (i = 0; i < p->nstat; i++)
		if (strcmp(p->stat[i].name, name) == 0)
			return p->stat[i].v;
	return 0;
}

static void
peer_report(struct peer *p, char *line)
{
	struct pair_digest d;
	char name[48];
	uint64_t v[7];
	unsigned int g;

	if (strcmp(line, "UP") == 0) {
		p->up = true;
	} else if (strcmp(line, "READY") == 0) {
		p->ready = true;
	} else if (sscanf(line, "PROGRESS %" SCNu64 " %" SCNu64 " %" SCNu64,
			  &v[0], &v[1], &v[2]) == 3) {
		p->prog_rx = v[0];
		p->prog_tx = v[1];
		p->prog_ok = v[2];
	} else if (strncmp(line, "DONE ", 5) == 0) {
		p->done = true;
		p->done_ok = strcmp(line + 5, "ok") == 0;
		printf("  %s: DONE %s\n", p->name, line + 5);
	} else if (strncmp(line, "BYE ", 4) == 0) {
		p->bye = true;
		p->bye_ok = strcmp(line + 4, "ok") == 0;
	} else if (sscanf(line, "TX %u %u %" SCNu64 " %" SCNu64 " %64s",
			  &d.src, &d.dst, &d.msgs, &d.bytes, d.sha) == 5) {
		d.first = 0;
		if (p->ntx < RTE_DIM(p->tx))
			p->tx[p->ntx++] = d;
	} else if (sscanf(line, "RX %u %u %" SCNu64 " %" SCNu64 " %" SCNu64
			  " %64s", &d.src, &d.dst, &d.msgs, &d.bytes, &d.first,
			  d.sha) == 6) {
		if (p->nrx < RTE_DIM(p->rx))
			p->rx[p->nrx++] = d;
	} else if (sscanf(line, "RDMA %u %" SCNu64 " %" SCNu64 " %" SCNu64
			  " %" SCNu64 " %" SCNu64 " %" SCNu64, &g, &v[0],
			  &v[1], &v[2], &v[3], &v[4], &v[5]) == 7 && g < 2) {
		memcpy(p->rdma[g], v, sizeof(p->rdma[g]));
		p->has_rdma[g] = true;
	} else if (sscanf(line, "TARGET %" SCNu64 " %" SCNu64 " %" SCNu64
			  " %" SCNu64, &v[0], &v[1], &v[2], &v[3]) == 4) {
		memcpy(p->target, v, sizeof(p->target));
		p->has_target = true;
	} else if (sscanf(line, "STAT %47s %" SCNu64, name, &v[0]) == 2) {
		if (p->nstat < RTE_DIM(p->stat)) {
			snprintf(p->stat[p->nstat].name,
				 sizeof(p->stat[0].name), "%s", name);
			p->stat[p->nstat++].v = v[0];
		}
	} else {
		printf("  %s: unknown report '%s'\n", p->name, line);
	}
}

/* Read what fd has; call fn on each line. false at EOF. */
static bool
drain_fd(struct peer *p, int *fd, char *buf, size_t *len, size_t cap,
	 bool report)
{
	ssize_t r;
	char *nl;

	for (;;) {
		r = read(*fd, buf + *len, cap - 1 - *len);
		if (r < 0)
			return errno == EAGAIN || errno == EINTR;
		if (r == 0) {
			if (*len > 0) {
				buf[*len] = '\0';
				if (report)
					peer_report(p, buf);
				else
					printf("[%s] %s\n", p->name, buf);
				*len = 0;
			}
			close(*fd);
			*fd = -1;
			return false;
		}
		*len += (size_t)r;
		while ((nl = memchr(buf, '\n', *len)) != NULL) {
			*nl = '\0';
			if (report)
				peer_report(p, buf);
			else
				printf("[%s] %s\n", p->name, buf);
			*len -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, *len);
		}
		if (*len == cap - 1) {	/* a line too long: print it */
			buf[*len] = '\0';
			if (!report)
				printf("[%s] %s\n", p->name, buf);
			*len = 0;
		}
	}
}

static void
peer_reap(struct peer *p, bool block)
{
	int status;

	if (p->exited || p->pid <= 0)
		return;
	if (waitpid(p->pid, &status, block ? 0 : WNOHANG) == p->pid) {
		p->exited = true;
		p->status = status;
		live_pids[p->slot] = 0;
		if (WIFEXITED(status))
			printf("  %s (pid %d) exited with status %d\n", p->name,
			       (int)p->pid, WEXITSTATUS(status));
		else if (WIFSIGNALED(status))
			printf("  %s (pid %d) killed by signal %d\n", p->name,
			       (int)p->pid, WTERMSIG(status));
	}
}

/* Serve every peer's pipes for up to ms milliseconds. */
static void
pump(struct peer **ps, unsigned int n, int ms)
{
	struct pollfd pf[2 * MAX_PEERS];
	unsigned int i, k = 0;

	for (i = 0; i < n; i++) {
		if (ps[i]->rep_fd >= 0)
			pf[k++] = (struct pollfd){ .fd = ps[i]->rep_fd,
						   .events = POLLIN };
		if (ps[i]->out_fd >= 0)
			pf[k++] = (struct pollfd){ .fd = ps[i]->out_fd,
						   .events = POLLIN };
	}
	if (k == 0) {
		rds_test_usleep((unsigned int)ms * 1000);
	} else if (poll(pf, k, ms) < 0 && errno != EINTR) {
		printf("  poll: %s\n", strerror(errno));
		rds_test_usleep(1000);
	}
	for (i = 0; i < n; i++) {
		struct peer *p = ps[i];

		if (p->out_fd >= 0)
			drain_fd(p, &p->out_fd, p->obuf, &p->olen,
				 sizeof(p->obuf), false);
		if (p->rep_fd >= 0)
			drain_fd(p, &p->rep_fd, p->rbuf, &p->rlen,
				 sizeof(p->rbuf), true);
		if (p->rep_fd < 0 && p->out_fd < 0)
			peer_reap(p, false);
	}
	fflush(stdout);
}

typedef bool (*pred_fn)(struct peer **ps, unsigned int n);

/* Pump until pred holds (true), or a peer that must stay ended, or the
 * time is up (false, printed). */
static bool
wait_for(struct peer **ps, unsigned int n, pred_fn pred, unsigned int secs,
	 const char *what)
{
	uint64_t t0 = rds_test_now_ns();
	unsigned int i;

	for (;;) {
		pump(ps, n, 100);
		if (pred(ps, n))
			return true;
		for (i = 0; i < n; i++) {
			if (ps[i]->rep_fd < 0 && !ps[i]->bye) {
				printf("  FAIL: %s ended before %s\n",
				       ps[i]->name, what);
				return false;
			}
		}
		if (rds_test_since_s(t0) > secs) {
			printf("  FAIL: no %s after %u s\n", what, secs);
			return false;
		}
	}
}

static bool
all_up(struct peer **ps, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!ps[i]->up)
			return false;
	return true;
}

static bool
all_ready(struct peer **ps, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!ps[i]->ready)
			return false;
	return true;
}

static bool
all_done(struct peer **ps, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!ps[i]->done)
			return false;
	return true;
}

static bool
any_failed(struct peer **ps, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (ps[i]->done && !ps[i]->done_ok)
			return true;
	return false;
}

static bool
all_done_or_failed(struct peer **ps, unsigned int n)
{
	return all_done(ps, n) || any_failed(ps, n);
}

static bool
all_gone(struct peer **ps, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (ps[i]->rep_fd >= 0 || ps[i]->out_fd >= 0)
			return false;
	return true;
}

/* EXIT to each in turn, from the last to the first, and wait until it
 * said BYE and exited (or 120 s passed: then it is killed). One at a
 * time: DPDK 22.11's memif PMD crashes (a NULL dereference in its
 * interrupt thread, seen in both processes) when one end tears its port
 * down while the other end's disconnect reaches it; the end that stays
 * takes the disconnect while it still polls. */
static void
peers_finish(struct peer **ps, unsigned int n)
{
	uint64_t t0;
	unsigned int i;
	struct peer *p;

	for (i = n; i-- > 0;) {
		p = ps[i];
		peer_cmd(p, "EXIT");
		t0 = rds_test_now_ns();
		while (!all_gone(&p, 1) && rds_test_since_s(t0) < 120)
			pump(ps, n, 100);
		/* One whose pipes are still open has not exited. */
		if (!all_gone(&p, 1)) {
			printf("  FAIL: %s did not exit within 120 s\n",
			       p->name);
			if (!p->exited && p->pid > 0)
				kill(p->pid, SIGKILL);
		}
		peer_reap(p, true);
		if (p->cmd_fd >= 0)
			close(p->cmd_fd);
		p->cmd_fd = -1;
	}
}

static bool
peer_ok(const struct peer *p)
{
	bool ok = p->done_ok && p->bye_ok && p->exited &&
		  WIFEXITED(p->status) && WEXITSTATUS(p->status) == 0;

	if (!ok)
		printf("  FAIL: %s: DONE %s, BYE %s, exit %s %d\n", p->name,
		       p->done ? (p->done_ok ? "ok" : "fail") : "missing",
		       p->bye ? (p->bye_ok ? "ok" : "fail") : "missing",
		       WIFSIGNALED(p->status) ? "signal" : "status",
		       WIFSIGNALED(p->status) ? WTERMSIG(p->status) :
		       WEXITSTATUS(p->status));
	return ok;
}

/* The receiving side's digests in rx against the sending side's in tx:
 * every pair of tx from a sender in src_mask must be in rx, equal (with
 * a resync, rx's first > 0 and only printed). Returns the pairs that
 * match, -1 on a mismatch. */
static int
compare_pairs(const struct peer *tx, const struct peer *rx,
	      uint32_t src_mask)
{
	unsigned int i, k;
	int match = 0;

	for (i = 0; i < tx->ntx; i++) {
		const struct pair_digest *t = &tx->tx[i], *r = NULL;

		if (!((src_mask >> t->src) & 1))
			continue;
		for (k = 0; k < rx->nrx; k++)
			if (rx->rx[k].src == t->src && rx->rx[k].dst == t->dst)
				r = &rx->rx[k];
		if (r == NULL) {
			printf("  FAIL: pair %u->%u: no receiving side in %s\n",
			       t->src, t->dst, rx->name);
			return -1;
		}
		if (r->first != 0) {
			printf("  pair %u->%u: %s sent %" PRIu64 " messages, %s "
			       "took %" PRIu64 " from sequence %" PRIu64
			       " on\n", t->src, t->dst, tx->name, t->msgs,
			       rx->name, r->msgs, r->first);
			if (r->first + r->msgs != t->msgs) {
				printf("  FAIL: pair %u->%u: %" PRIu64 " + %"
				       PRIu64 " != %" PRIu64 "\n", t->src,
				       t->dst, r->first, r->msgs, t->msgs);
				return -1;
			}
			continue;
		}
		if (t->msgs != r->msgs || t->bytes != r->bytes ||
		    strcmp(t->sha, r->sha) != 0) {
			printf("  FAIL: pair %u->%u: %s sent %" PRIu64 " msgs %"
			       PRIu64 " B sha %.16s, %s received %" PRIu64
			       " msgs %" PRIu64 " B sha %.16s\n", t->src,
			       t->dst, tx->name, t->msgs, t->bytes, t->sha,
			       rx->name, r->msgs, r->bytes, r->sha);
			return -1;
		}
		printf("  pair %u->%u: %" PRIu64 " messages, %" PRIu64
		       " bytes, SHA-256 %.16s.. on both sides\n", t->src,
		       t->dst, t->msgs, t->bytes, t->sha);
		match++;
	}
	return match;
}

static void
print_eth(const struct peer *p)
{
	printf("  %s: frames tx %" PRIu64 " rx %" PRIu64 ", ACK-only tx %"
	       PRIu64 ", rexmit fast %" PRIu64 " timeout %" PRIu64 ", dup %"
	       PRIu64 ", ooo %" PRIu64 ", crc drops %" PRIu64 ", stale %"
	       PRIu64 ", tx_full %" PRIu64 ", arp tx %" PRIu64 " rx %" PRIu64
	       ", peer restarts %" PRIu64 ", faults: drop %" PRIu64 " dup %"
	       PRIu64 " reorder %" PRIu64 " corrupt %" PRIu64 "\n", p->name,
	       peer_stat(p, "tx_frames"), peer_stat(p, "rx_frames"),
	       peer_stat(p, "ack_tx"), peer_stat(p, "rexmit_fast"),
	       peer_stat(p, "rexmit_timeout"), peer_stat(p, "rx_dup"),
	       peer_stat(p, "rx_ooo"), peer_stat(p, "rx_drop_crc"),
	       peer_stat(p, "rx_drop_stale"), peer_stat(p, "tx_full"),
	       peer_stat(p, "arp_tx"), peer_stat(p, "arp_rx"),
	       peer_stat(p, "peer_restarts"), peer_stat(p, "fault_dropped"),
	       peer_stat(p, "fault_duplicated"),
	       peer_stat(p, "fault_reordered"),
	       peer_stat(p, "fault_corrupted"));
}

/* ------------------------------------------------------------------ */
/* Transports */

static char memif_sock[96];
static unsigned int memif_runs;
static char vdev_a[160], vdev_b[160];
/* memif: B is the server (else A). */
static bool b_server;

static int
xport_up(void)
{
	if (xport == XP_AFP) {
		sweep_stale_netns();
		if (netns_up() != 0)
			return -1;
		snprintf(vdev_a, sizeof(vdev_a),
			 "net_af_packet0,iface=veth0,qpairs=1");
		snprintf(vdev_b, sizeof(vdev_b),
			 "net_af_packet0,iface=veth0,qpairs=1");
		return 0;
	}
	/* DPDK 22.11's memif socket is in the abstract namespace: a name
	 * unique to this run and test, no file. */
	snprintf(memif_sock, sizeof(memif_sock), "/rdst-memif-%d-%u",
		 (int)self, memif_runs++);
	snprintf(vdev_a, sizeof(vdev_a), "net_memif0,role=%s,socket=%s",
		 b_server ? "client" : "server", memif_sock);
	snprintf(vdev_b, sizeof(vdev_b), "net_memif0,role=%s,socket=%s",
		 b_server ? "server" : "client", memif_sock);
	return 0;
}

static void
xport_down(void)
{
	if (xport == XP_AFP)
		netns_down();
}

static const char *
xport_name(void)
{
	return xport == XP_AFP ? "af_packet/veth" : "memif";
}

/* ------------------------------------------------------------------ */
/* Tests */

static struct peer pa, pb, pb2;

static bool
start_pair(struct peer *a, const struct peer_args *aa, struct peer *b,
	   const struct peer_args *ba)
{
	struct peer *ps[2] = { a, b };
	bool bfirst = xport == XP_MEMIF && b_server;

	/* The memif server first: it must listen before the client comes
	 * (a 22.11 memif client connects only when its port starts). */
	if (peer_spawn(bfirst ? b : a, bfirst ? ba : aa, bfirst ? 1 : 0) != 0)
		return false;
	if (!wait_for(bfirst ? &ps[1] : ps, 1, all_up, 180,
		      "the first peer's library up"))
		return false;
	if (peer_spawn(bfirst ? a : b, bfirst ? aa : ba, bfirst ? 0 : 1) != 0)
		return false;
	if (!wait_for(ps, 2, all_ready, 180, "both peers ready"))
		return false;
	peer_cmd(a, "GO");
	peer_cmd(b, "GO");
	return true;
}

static void
run_stream(const char *faults)
{
	struct peer *ps[2] = { &pa, &pb };
	struct peer_args aa, ba;
	uint64_t msgs = rds_test_env_u64("RDS_TEST_MSGS", 100000);
	uint64_t t0;
	int m1, m2;
	bool fl = strcmp(faults, "none") != 0;
	unsigned int i;

	watchdog(1500);
	cleanup_all();		/* what an earlier test left, if it failed */
	if (xport_up() != 0) {
		CU_FAIL("cannot set the transport up");
		goto out;
	}
	memset(&aa, 0, sizeof(aa));
	aa.name = "A";
	aa.index = 0;
	aa.lcore = "0";
	aa.vdev = vdev_a;
	aa.msgs = msgs;
	aa.faults = faults;
	aa.seed = 11;
	ba = aa;
	ba.name = "B";
	ba.index = 1;
	ba.lcore = "1";
	ba.vdev = vdev_b;
	ba.seed = 22;
	printf("  %s: %" PRIu64 " messages each way%s\n", xport_name(), msgs,
	       fl ? ", with faults in both processes" : "");
	t0 = rds_test_now_ns();
	if (!start_pair(&pa, &aa, &pb, &ba)) {
		CU_FAIL("peers did not start");
		goto out;
	}
	CU_ASSERT(wait_for(ps, 2, all_done_or_failed, 1400, "DONE"));
	printf("  both done in %.2f s\n", rds_test_since_s(t0));
	peers_finish(ps, 2);
	CU_ASSERT(peer_ok(&pa));
	CU_ASSERT(peer_ok(&pb));
	m1 = compare_pairs(&pa, &pb, 0x3);
	m2 = compare_pairs(&pb, &pa, 0xc);
	CU_ASSERT(m1 == 4);
	CU_ASSERT(m2 == 4);
	for (i = 0; i < 2; i++) {
		struct peer *p = ps[i];

		print_eth(p);
		CU_ASSERT(peer_stat(p, "rx_frames") > 0);
		if (xport == XP_AFP)	/* neighbours by ARP */
			CU_ASSERT(peer_stat(p, "arp_rx") > 0);
		if (!fl) {
			/* A clean link corrupts nothing. */
			CU_ASSERT(peer_stat(p, "rx_drop_crc") == 0);
			continue;
		}
		CU_ASSERT(peer_stat(p, "fault_dropped") > 0);
		CU_ASSERT(peer_stat(p, "fault_duplicated") > 0);
		CU_ASSERT(peer_stat(p, "fault_reordered") > 0);
		CU_ASSERT(peer_stat(p, "fault_corrupted") > 0);
		CU_ASSERT(peer_stat(p, "rx_drop_crc") +
			  peer_stat(p, "rx_drop_ip") +
			  peer_stat(p, "rx_drop_len") +
			  peer_stat(p, "rx_drop_type") +
			  peer_stat(p, "rx_drop_version") +
			  peer_stat(p, "rx_drop_short") > 0);
		CU_ASSERT(peer_stat(p, "rexmit_fast") +
			  peer_stat(p, "rexmit_timeout") > 0);
		CU_ASSERT(peer_stat(p, "rx_dup") > 0);
		CU_ASSERT(peer_stat(p, "rx_ooo") > 0);
	}
	if (xport == XP_AFP)
		CU_ASSERT(peer_stat(&pa, "arp_tx") + peer_stat(&pb, "arp_tx") >=
			  2);
out:
	cleanup_all();
	xport_down();
	watchdog(0);
}

static void
test_stream(void)
{
	run_stream("none");
}

static void
test_faults(void)
{
	run_stream("all");
}

static bool
b_progressed(struct peer **ps, unsigned int n)
{
	static uint64_t want_rx;

	RTE_SET_USED(n);
	if (want_rx == 0)
		want_rx = rds_test_env_u64("RDS_TEST_MSGS", 40000) / 5;
	/* ps[0]: A (initiator), ps[1]: B. */
	return ps[1]->prog_rx >= want_rx && ps[0]->prog_ok >= 20;
}

static int
shm_make(unsigned int i)
{
	int fd;

	snprintf(shm_files[i], sizeof(shm_files[i]),
		 "/dev/shm/rdst-ethmp-%d-mr%u", (int)self, i);
	shm_made = 1;
	fd = open(shm_files[i], O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, 4096) != 0) {
		printf("  %s: %s\n", shm_files[i], strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static uint64_t
shm_counter(unsigned int i)
{
	uint64_t v = UINT64_MAX;
	int fd = open(shm_files[i], O_RDONLY);

	if (fd >= 0) {
		if (pread(fd, &v, sizeof(v), 0) != (ssize_t)sizeof(v))
			v = UINT64_MAX;
		close(fd);
	}
	return v;
}

static void
run_restart(void)
{
	struct peer *ps[3] = { &pa, &pb, &pb2 };
	struct peer *live[2] = { &pa, &pb2 };
	struct peer_args aa, ba, b2;
	uint64_t msgs = rds_test_env_u64("RDS_TEST_MSGS", 40000);
	uint64_t nops = rds_test_env_u64("RDS_TEST_RDMA_OPS", 2000);
	uint64_t c_old, c_new, *r0, *r1;
	const char *faults, *faults_at;
	uint64_t t0;
	int m;

	watchdog(1500);
	cleanup_all();		/* what an earlier test left, if it failed */
	if (xport_up() != 0 || shm_make(0) != 0 || shm_make(1) != 0) {
		CU_FAIL("cannot set the transport or the shared files up");
		goto out;
	}
	memset(&aa, 0, sizeof(aa));
	aa.name = "A";
	aa.index = 0;
	aa.lcore = "0";
	aa.vdev = vdev_a;
	aa.msgs = msgs;
	aa.seed = 11;
	aa.peer_gen = 1;
	aa.rdma = "initiator";
	aa.rdma_ops = nops;
	/* Faults after the restart (A: from the new cookie on, B2: from its
	 * start); RDS_TEST_RESTART_FAULTS=all adds loss and corruption, and
	 * RDS_TEST_RESTART_FAULTS_AT=go turns them on in A from the start. */
	faults = getenv("RDS_TEST_RESTART_FAULTS");
	if (faults == NULL || faults[0] == '\0')
		faults = "dupreorder";
	faults_at = getenv("RDS_TEST_RESTART_FAULTS_AT");
	if (faults_at == NULL || faults_at[0] == '\0')
		faults_at = "cookie";
	aa.faults = faults;
	aa.faults_at = faults_at;
	memset(&ba, 0, sizeof(ba));
	ba.name = "B";
	ba.index = 1;
	ba.lcore = "1";
	ba.vdev = vdev_b;
	ba.msgs = msgs;
	ba.seed = 22;
	ba.rdma = "target";
	ba.mr_file = shm_files[0];
	b2 = ba;
	b2.name = "B2";
	b2.seed = 33;
	b2.gen = 1;
	b2.resync = true;
	b2.mr_file = shm_files[1];
	b2.faults = faults;
	b2.faults_at = "go";
	printf("  %s: %" PRIu64 " messages each way, B killed mid-stream and "
	       "started again as B2%s\n", xport_name(), msgs,
	       xport != XP_MEMIF ? "" : b_server ? " (B is the memif server)" :
	       " (B is the memif client)");
	t0 = rds_test_now_ns();
	if (!start_pair(&pa, &aa, &pb, &ba)) {
		CU_FAIL("peers did not start");
		goto out;
	}
	if (!wait_for(ps, 2, b_progressed, 600, "progress before the kill")) {
		CU_FAIL("no progress before the kill");
		goto out;
	}
	if (pb.done || pa.done) {
		/* Then the restarted B would wait for streams that ended. */
		printf("  FAIL: a peer finished before the kill\n");
		CU_FAIL("a peer finished before the kill");
		goto out;
	}
	printf("  SIGKILL B (pid %d): it had received %" PRIu64 " and sent %"
	       PRIu64 " messages; A had received %" PRIu64 ", sent %" PRIu64
	       ", %" PRIu64 " atomics SUCCESS\n", (int)pb.pid, pb.prog_rx,
	       pb.prog_tx, pa.prog_rx, pa.prog_tx, pa.prog_ok);
	kill(pb.pid, SIGKILL);
	peer_reap(&pb, true);
	CU_ASSERT(pb.exited && WIFSIGNALED(pb.status) &&
		  WTERMSIG(pb.status) == SIGKILL);
	while (pb.rep_fd >= 0 || pb.out_fd >= 0)
		pump(&ps[1], 1, 10);
	c_old = shm_counter(0);
	printf("  B's counter after the kill: %" PRIu64 "\n", c_old);
	if (peer_spawn(&pb2, &b2, 2) != 0) {
		CU_FAIL("B2 did not start");
		goto out;
	}
	if (!wait_for(live, 2, all_ready, 180, "B2 ready")) {
		CU_FAIL("B2 not ready");
		goto out;
	}
	peer_cmd(&pb2, "GO");
	CU_ASSERT(wait_for(live, 2, all_done_or_failed, 1200, "DONE"));
	printf("  both done %.2f s after the start\n", rds_test_since_s(t0));
	peers_finish(live, 2);
	CU_ASSERT(peer_ok(&pa));
	CU_ASSERT(peer_ok(&pb2));
	print_eth(&pa);
	print_eth(&pb2);
	/* B2's streams, whole at A; A's, from where they resumed, at B2. */
	m = compare_pairs(&pb2, &pa, 0xc);
	CU_ASSERT(m == 4);
	CU_ASSERT(compare_pairs(&pa, &pb2, 0x3) >= 0);
	CU_ASSERT(peer_stat(&pa, "peer_restarts") >= 1);
	printf("  A: port restarts %" PRIu64 "\n",
	       peer_stat(&pa, "port_restarts"));
	/* While B was gone the PMD refused A's frames pass after pass: each
	 * counts once in tx_full. */
	CU_ASSERT(peer_stat(&pa, "tx_full") <= peer_stat(&pa, "tx_frames"));
	if (xport == XP_MEMIF && b_server)
		/* A memif client connects only when its port starts. */
		CU_ASSERT(peer_stat(&pa, "port_restarts") >= 1);
	CU_ASSERT(peer_stat(&pb2, "fault_duplicated") > 0);
	CU_ASSERT(peer_stat(&pa, "fault_duplicated") > 0);
	CU_ASSERT(peer_stat(&pa, "fault_reordered") +
		  peer_stat(&pb2, "fault_reordered") > 0);
	/* RDMA: r[g] = issued, SUCCESS, DROPPED, REMOTE_ERROR, other,
	 * largest old value. */
	CU_ASSERT(pa.has_rdma[0] && pa.has_rdma[1] && pb2.has_target);
	if (!pa.has_rdma[0] || !pa.has_rdma[1] || !pb2.has_target)
		goto out;
	r0 = pa.rdma[0];
	r1 = pa.rdma[1];
	c_new = shm_counter(1);
	printf("  old cookie: %" PRIu64 " atomics: SUCCESS %" PRIu64
	       ", DROPPED %" PRIu64 ", REMOTE_ERROR %" PRIu64 ", other %"
	       PRIu64 "; B's counter %" PRIu64 "\n", r0[0], r0[1], r0[2],
	       r0[3], r0[4], c_old);
	printf("  new cookie: %" PRIu64 " atomics: SUCCESS %" PRIu64
	       ", DROPPED %" PRIu64 ", REMOTE_ERROR %" PRIu64 ", other %"
	       PRIu64 "; B2's counter %" PRIu64 " (B2 says %" PRIu64 "), "
	       "B2 got %" PRIu64 " operation messages (%" PRIu64 " of the "
	       "old cookie)\n", r1[0], r1[1], r1[2], r1[3], r1[4], c_new,
	       pb2.target[3], pb2.target[1], pb2.target[2]);
	/* Old: every one ended SUCCESS, DROPPED or REMOTE_ERROR, and ran
	 * at most once: SUCCESS <= counter <= SUCCESS + DROPPED. */
	CU_ASSERT(r0[0] > 0);
	CU_ASSERT(r0[4] == 0);
	CU_ASSERT(r0[1] + r0[2] + r0[3] == r0[0]);
	CU_ASSERT(c_old >= r0[1]);
	CU_ASSERT(c_old <= r0[1] + r0[2]);
	CU_ASSERT(r0[1] == 0 || r0[5] < c_old);
	/* New: all ran, once each. */
	CU_ASSERT(r1[0] == nops);
	CU_ASSERT(r1[1] == nops);
	CU_ASSERT(c_new == r1[1]);
	CU_ASSERT(pb2.target[3] == c_new);
	CU_ASSERT(pb2.target[1] == r1[1]);
	CU_ASSERT(r1[1] == 0 || r1[5] == r1[1] - 1);
out:
	cleanup_all();
	xport_down();
	watchdog(0);
}

static void
test_restart(void)
{
	b_server = false;
	run_restart();
}

/* memif: the server dies and comes back; the client that stays must
 * connect to the new one. */
static void
test_restart_server(void)
{
	b_server = true;
	run_restart();
	b_server = false;
}

static void
find_peer(const char *argv0)
{
	const char *env = getenv("ETH_PEER");
	char self_exe[PATH_MAX - 16];
	ssize_t n;
	char *slash;

	if (env != NULL && env[0] != '\0') {
		snprintf(peer_path, sizeof(peer_path), "%s", env);
		return;
	}
	n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	if (n <= 0) {
		snprintf(self_exe, sizeof(self_exe), "%s", argv0);
		n = (ssize_t)strlen(self_exe);
	}
	self_exe[n] = '\0';
	slash = strrchr(self_exe, '/');
	if (slash != NULL)
		*slash = '\0';
	snprintf(peer_path, sizeof(peer_path), "%s/eth_peer",
		 slash != NULL ? self_exe : ".");
}

int
main(int argc, char **argv)
{
	static const struct rds_test_case cases[] = {
		{ "stream", test_stream },
		{ "faults", test_faults },
		{ "restart", test_restart },
		{ NULL, NULL },
	};
	static const struct rds_test_case memif_cases[] = {
		{ "stream", test_stream },
		{ "faults", test_faults },
		{ "restart", test_restart },
		{ "restart_server", test_restart_server },
		{ NULL, NULL },
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2 || (strcmp(argv[1], "memif") != 0 &&
			 strcmp(argv[1], "afpacket") != 0)) {
		fprintf(stderr, "usage: eth_mp memif|afpacket\n");
		return 2;
	}
	xport = strcmp(argv[1], "memif") == 0 ? XP_MEMIF : XP_AFP;
	self = getpid();
	find_peer(argv[0]);
	if (access(peer_path, X_OK) != 0) {
		printf("FAIL: no peer binary %s (%s); set ETH_PEER\n",
		       peer_path, strerror(errno));
		return 1;
	}
	signals_init();
	sweep_stale_shm();
	if (xport == XP_MEMIF)
		return rds_test_run_suite("eth_memif", memif_cases);
	return rds_test_run_suite("eth_afpacket", cases);
}

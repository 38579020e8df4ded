/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eth_mp: what a run made and its clean-up on every exit path (signals,
 * watchdog, stale namespaces and shared files), commands, namespaces.
 */

#include "eth_mp_run.h"

/* ------------------------------------------------------------------ */
/* What this run made, for clean-up on every exit path */


volatile pid_t live_pids[MAX_PEERS];
char ns_a[64], ns_b[64];
static volatile int ns_made;
char shm_files[2][128];
volatile int shm_made;

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
void
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

void
watchdog(unsigned int secs)
{
	alarm(secs);
}

void
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
void
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
void
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
int
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
	       "on %s and %s\n", ns_a, KIPA_AFP, ns_b, KIPB_AFP,
	       mp_v6 ? IPA_AFP6 : IPA_AFP, mp_v6 ? IPB_AFP6 : IPB_AFP);
	return 0;
}

void
netns_down(void)
{
	if (!ns_made)
		return;
	run(false, "ip", "netns", "del", ns_a, NULL);
	run(false, "ip", "netns", "del", ns_b, NULL);
	ns_made = 0;
}


/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eth_mp: the peers (eth_peer processes): start, commands, reports and
 * their output, waits, exit, digests compared across the processes.
 */

#include "eth_mp_run.h"

/* ------------------------------------------------------------------ */
/* Peers */

/* Print the first line of a /proc file, prefixed. */
static void
proc_line(const char *pfx, const char *path)
{
	char buf[512];
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return;
	while (fgets(buf, sizeof(buf), f) != NULL) {
		buf[strcspn(buf, "\n")] = '\0';
		printf("    %s%s\n", pfx, buf);
		if (strcmp(pfx, "stack ") != 0)
			break;	/* a kernel stack: every frame */
	}
	fclose(f);
}

/* A peer that says it failed: where each of its threads is (name, state,
 * kernel wait channel, system call and kernel stack), and the memif
 * sockets the kernel knows of, so that a hang in a PMD's control path
 * or in the library shows in the log of the run that met it. */
static void
peer_dump(const struct peer *p)
{
	char path[320], comm[64], line[512];
	struct dirent *de;
	FILE *f;
	DIR *d;

	if (p->pid <= 0 || p->exited)
		return;
	printf("  %s (pid %d): its threads\n", p->name, (int)p->pid);
	snprintf(path, sizeof(path), "/proc/%d/task", (int)p->pid);
	d = opendir(path);
	while (d != NULL && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/comm",
			 (int)p->pid, de->d_name);
		f = fopen(path, "r");
		comm[0] = '\0';
		if (f != NULL) {
			if (fgets(comm, sizeof(comm), f) == NULL)
				comm[0] = '\0';
			comm[strcspn(comm, "\n")] = '\0';
			fclose(f);
		}
		printf("   thread %s (%s)\n", de->d_name, comm);
		snprintf(path, sizeof(path), "/proc/%d/task/%s/wchan",
			 (int)p->pid, de->d_name);
		proc_line("wchan ", path);
		snprintf(path, sizeof(path), "/proc/%d/task/%s/syscall",
			 (int)p->pid, de->d_name);
		proc_line("syscall ", path);
		snprintf(path, sizeof(path), "/proc/%d/task/%s/stack",
			 (int)p->pid, de->d_name);
		proc_line("stack ", path);
	}
	if (d != NULL)
		closedir(d);
	/* Its sockets (inodes, to match the memif lines below). */
	printf("    sockets:");
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)p->pid);
	d = opendir(path);
	while (d != NULL && (de = readdir(d)) != NULL) {
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/%d/fd/%s", (int)p->pid,
			 de->d_name);
		n = readlink(path, line, sizeof(line) - 1);
		if (n <= 0)
			continue;
		line[n] = '\0';
		if (strncmp(line, "socket:", 7) == 0)
			printf(" fd %s %s", de->d_name, line + 7);
	}
	printf("\n");
	if (d != NULL)
		closedir(d);
	f = fopen("/proc/net/unix", "r");
	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (strstr(line, "rdst-memif") != NULL)
			printf("    unix: %s", line);
	if (f != NULL)
		fclose(f);
}

static int
high_fd(int fd)
{
	int n = fcntl(fd, F_DUPFD_CLOEXEC, 20);

	close(fd);
	return n;
}

int
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
		ipa = mp_v6 ? IPA_AFP6 : IPA_AFP;
		ipb = mp_v6 ? IPB_AFP6 : IPB_AFP;
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

void
peer_cmd(struct peer *p, const char *cmd)
{
	char line[64];
	int n = snprintf(line, sizeof(line), "%s\n", cmd);

	if (p->cmd_fd < 0 || write(p->cmd_fd, line, (size_t)n) != n)
		printf("  %s: cannot send %s (%s)\n", p->name, cmd,
		       strerror(errno));
}

uint64_t
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
		if (!p->done_ok)
			peer_dump(p);
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

void
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
void
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


/* Pump until pred holds (true), or a peer that must stay ended, or the
 * time is up (false, printed). */
bool
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

/* Whether the bool at offset off of struct peer is set in every peer. */
static bool
all_set(struct peer **ps, unsigned int n, size_t off)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!*(const bool *)((const char *)ps[i] + off))
			return false;
	return true;
}

bool
all_up(struct peer **ps, unsigned int n)
{
	return all_set(ps, n, offsetof(struct peer, up));
}

bool
all_ready(struct peer **ps, unsigned int n)
{
	return all_set(ps, n, offsetof(struct peer, ready));
}

static bool
all_done(struct peer **ps, unsigned int n)
{
	return all_set(ps, n, offsetof(struct peer, done));
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

bool
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
void
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
			peer_dump(p);
			if (!p->exited && p->pid > 0)
				kill(p->pid, SIGKILL);
		}
		peer_reap(p, true);
		if (p->cmd_fd >= 0)
			close(p->cmd_fd);
		p->cmd_fd = -1;
	}
}

bool
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
int
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

void
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


/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One peer process of the eth two-process tests (see eth_mp.h for the
 * protocol with eth_mp, which starts it): its own EAL with the ethdev
 * given (--vdev), the library with one inline engine and one eth
 * address, its half of the stream checker's sockets (rds_stream with
 * local_mask), and optionally one side of the RDMA exchange:
 *
 *   target:    registers an MR over a shared file that eth_mp made (so
 *              that eth_mp can read the counter after a SIGKILL), sends
 *              its cookie to the initiator, and checks the messages of
 *              the operations that ran (its own cookie's, in order, each
 *              once);
 *   initiator: runs atomic FETCH_ADD 1 operations with RDS_RDMA_NOTIFY_ME
 *              against the latest cookie it was sent, at most 8
 *              outstanding: with an older incarnation's cookie, one per
 *              --old-op-us until the final one's comes; then --rdma-ops
 *              with the final one; every operation must be notified
 *              exactly once, and the old values the successes returned
 *              must be distinct (for the final cookie: exactly 0 .. S-1).
 */

#include "eth_peer.h"

#define CMD_FD 3
#define REP_FD 4


struct opts o = {
	.name = "?", .dev = NULL, .lcore = "0", .msgs = 100000,
	.large_one_in = 100, .faults = "none", .faults_at = "go",
	.seed = 1, .rdma = "none", .rdma_ops = 2000, .old_op_us = 200,
	.ppid = -1,
};

const char *lip, *fip;
bool failed;

/* ------------------------------------------------------------------ */
/* Reports and commands */

void
report(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(REP_FD, buf, (size_t)n) != n) {
		fprintf(stderr, "%s: report pipe: %s\n", o.name,
			strerror(errno));
		_exit(3);
	}
}

static char cmd_buf[256];
static size_t cmd_len;

/* A command from eth_mp, if one came ("GO", "EXIT"); NULL otherwise.
 * eth_mp gone (EOF): exit. */
static const char *
cmd_poll(void)
{
	static char line[256];
	char *nl;
	ssize_t r;

	for (;;) {
		nl = memchr(cmd_buf, '\n', cmd_len);
		if (nl != NULL) {
			size_t l = (size_t)(nl - cmd_buf);

			memcpy(line, cmd_buf, l);
			line[l] = '\0';
			memmove(cmd_buf, nl + 1, cmd_len - l - 1);
			cmd_len -= l + 1;
			return line;
		}
		r = read(CMD_FD, cmd_buf + cmd_len,
			 sizeof(cmd_buf) - 1 - cmd_len);
		if (r > 0) {
			cmd_len += (size_t)r;
			continue;
		}
		if (r == 0) {
			printf("%s: eth_mp went away; exiting\n", o.name);
			_exit(3);
		}
		return NULL;	/* EAGAIN */
	}
}

/* ------------------------------------------------------------------ */
/* Faults */

void
set_faults(const char *mode)
{
	struct rte_rds_eth_faults f;

	memset(&f, 0, sizeof(f));
	f.seed = o.seed;
	if (strcmp(mode, "all") == 0) {
		f.drop_ppm = 50000;
		f.dup_ppm = 10000;
		f.reorder_ppm = 20000;
		f.reorder_depth = 8;
		f.corrupt_ppm = 5000;
	} else if (strcmp(mode, "dupreorder") == 0) {
		f.dup_ppm = 20000;
		f.reorder_ppm = 20000;
		f.reorder_depth = 8;
	} else {
		return;
	}
	if (rte_rds_eth_set_faults(&f) != 0) {
		printf("%s: rte_rds_eth_set_faults: %s\n", o.name,
		       rte_strerror(rte_errno));
		failed = true;
		return;
	}
	printf("%s: faults '%s' on: drop %u dup %u reorder %u (depth %u) "
	       "corrupt %u ppm, seed %" PRIu64 "\n", o.name, mode, f.drop_ppm,
	       f.dup_ppm, f.reorder_ppm, f.reorder_depth, f.corrupt_ppm,
	       f.seed);
}

/* ------------------------------------------------------------------ */
/* The run */

static struct rds_stream *st;

/* Messages in this peer's send and retransmit queues. */
static int
queued(void)
{
	static const int names[] = {
		RDS_INFO_SEND_MESSAGES, RDS_INFO_RETRANS_MESSAGES,
	};
	unsigned int i;
	socklen_t len;
	int n = 0;

	for (i = 0; i < RTE_DIM(names); i++) {
		len = 0;
		if (rte_rds_info(names[i], NULL, &len) < 0) {
			if (rte_errno != ENOSPC)
				return -1;
			n += (int)(len / sizeof(struct rds_info_message));
			if (len != 0 && n == 0)
				n = 1;
		}
	}
	return n;
}

static void
print_counters(void)
{
	struct rte_rds_xstat xs[64];
	struct rte_rds_stats rs = rds_test_stats();
	int n, i;

	n = rte_rds_xstats_get("eth", xs, RTE_DIM(xs));
	printf("%s: eth:", o.name);
	for (i = 0; i < n; i++)
		if (xs[i].value != 0)
			printf(" %s=%" PRIu64, xs[i].name, xs[i].value);
	printf("\n");
	rds_test_stats_print("  core:", &rs);
	for (i = 0; i < n; i++)
		report("STAT %s %" PRIu64, xs[i].name, xs[i].value);
}

static void
report_digests(void)
{
	uint8_t d[RDS_TEST_SHA_LEN];
	uint64_t msgs, bytes, first;
	unsigned int i, j;
	char hex[65];

	for (i = 0; i < ETH_MP_NSOCK; i++) {
		for (j = 0; j < ETH_MP_NSOCK; j++) {
			if (rds_stream_expected(st, i, j) == 0)
				continue;
			if (rds_stream_digest(st, true, i, j, d, &msgs, &bytes,
					      NULL))
				report("TX %u %u %" PRIu64 " %" PRIu64 " %s", i,
				       j, msgs, bytes, rds_test_sha_hex(d, hex));
			if (rds_stream_digest(st, false, i, j, d, &msgs,
					      &bytes, &first))
				report("RX %u %u %" PRIu64 " %" PRIu64 " %"
				       PRIu64 " %s", i, j, msgs, bytes, first,
				       rds_test_sha_hex(d, hex));
		}
	}
}

static int
wait_link(void)
{
	struct rte_eth_link link;
	uint16_t port;
	uint64_t t0 = rds_test_now_ns();

	if (rte_eth_dev_get_port_by_name(o.dev, &port) != 0) {
		printf("%s: no ethdev %s\n", o.name, o.dev);
		return -1;
	}
	for (;;) {
		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(port, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_UP)
			break;
		if (rds_test_since_s(t0) > 60) {
			printf("%s: link of %s still down after 60 s\n", o.name,
			       o.dev);
			return -1;
		}
		rds_test_kick();
		rds_test_usleep(1000);
		cmd_poll();
	}
	printf("%s: link of %s (port %u) up after %.3f s\n", o.name, o.dev,
	       port, rds_test_since_s(t0));
	return 0;
}

static void
stream_setup(struct rds_stream_conf *sc)
{
	unsigned int i, remote;

	rds_stream_conf_default(sc, 2 * o.msgs);
	sc->nsock = ETH_MP_NSOCK;
	for (i = 0; i < ETH_MP_NSOCK; i++) {
		sc->ip[i] = i < 2 ? o.ipa : o.ipb;
		sc->port[i] = (uint16_t)(ETH_MP_PORT0 + i % 2);
		sc->dst_mask[i] = i < 2 ? 0xc : 0x3;
	}
	sc->local_mask = o.index == 0 ? 0x3 : 0xc;
	remote = o.index == 0 ? 0xc : 0x3;
	/* Most 0 B .. 4 KiB, one in large_one_in 4 KiB .. 1 MiB. */
	sc->small_max = 4096;
	sc->large_one_in = o.large_one_in;
	sc->large_min = 4097;
	sc->large_max = RTE_RDS_MAX_MSG_SIZE;
	sc->check_bytes = true;
	for (i = 0; i < ETH_MP_NSOCK; i++)
		sc->gen[i] = (remote >> i) & 1 ? o.peer_gen : o.gen;
	sc->resync_mask = o.resync ? remote : 0;
	sc->stall_s = 60;
	sc->limit_s = 1200;
}

/* The EAL pinned this thread to its lcore's CPU. On a shared machine a
 * pinned spinning peer may sit on a CPU that another process's busy
 * thread is pinned to too; let the scheduler place it (--pin keeps the
 * EAL's pinning). */
static void
unpin(void)
{
	rte_cpuset_t set;
	long i, n = sysconf(_SC_NPROCESSORS_ONLN);

	CPU_ZERO(&set);
	for (i = 0; i < n && i < CPU_SETSIZE; i++)
		CPU_SET((int)i, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0)
		printf("%s: cannot unpin the main thread\n", o.name);
}

static void
usage(void)
{
	fprintf(stderr, "eth_peer: started by eth_mp (see eth_mp.h)\n");
	exit(2);
}

static void
parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "name", 1, NULL, 'n' }, { "index", 1, NULL, 'i' },
		{ "ipa", 1, NULL, 'a' }, { "ipb", 1, NULL, 'b' },
		{ "dev", 1, NULL, 'd' }, { "vdev", 1, NULL, 'v' },
		{ "lcore", 1, NULL, 'l' }, { "mac", 1, NULL, 'm' },
		{ "peer-mac", 1, NULL, 'M' }, { "msgs", 1, NULL, 'N' },
		{ "large-one-in", 1, NULL, 'L' }, { "faults", 1, NULL, 'f' },
		{ "faults-at", 1, NULL, 'F' }, { "seed", 1, NULL, 's' },
		{ "gen", 1, NULL, 'g' }, { "peer-gen", 1, NULL, 'G' },
		{ "resync", 0, NULL, 'r' }, { "rdma", 1, NULL, 'R' },
		{ "mr-file", 1, NULL, 'x' }, { "rdma-ops", 1, NULL, 'O' },
		{ "old-op-us", 1, NULL, 'u' }, { "ppid", 1, NULL, 'p' },
		{ "pin", 0, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'n': o.name = optarg; break;
		case 'i': o.index = (unsigned int)atoi(optarg); break;
		case 'a': o.ipa = optarg; break;
		case 'b': o.ipb = optarg; break;
		case 'd': o.dev = optarg; break;
		case 'v': o.vdev = optarg; break;
		case 'l': o.lcore = optarg; break;
		case 'm': o.mac = optarg; break;
		case 'M': o.peer_mac = optarg; break;
		case 'N': o.msgs = strtoull(optarg, NULL, 0); break;
		case 'L': o.large_one_in = (uint32_t)atoi(optarg); break;
		case 'f': o.faults = optarg; break;
		case 'F': o.faults_at = optarg; break;
		case 's': o.seed = strtoull(optarg, NULL, 0); break;
		case 'g': o.gen = (uint32_t)atoi(optarg); break;
		case 'G': o.peer_gen = (uint32_t)atoi(optarg); break;
		case 'r': o.resync = true; break;
		case 'R': o.rdma = optarg; break;
		case 'x': o.mr_file = optarg; break;
		case 'O': o.rdma_ops = strtoull(optarg, NULL, 0); break;
		case 'u': o.old_op_us = (uint32_t)atoi(optarg); break;
		case 'p': o.ppid = atol(optarg); break;
		case 'P': o.pin = true; break;
		default: usage();
		}
	}
	if (o.ipa == NULL || o.ipb == NULL || o.dev == NULL || o.index > 1 ||
	    o.gen >= MAX_GEN || o.peer_gen >= MAX_GEN ||
	    (strcmp(o.rdma, "target") == 0 && o.mr_file == NULL) ||
	    o.rdma_ops > MAX_OPS / 2)
		usage();
	lip = o.index == 0 ? o.ipa : o.ipb;
	fip = o.index == 0 ? o.ipb : o.ipa;
}

int
main(int argc, char **argv)
{
	struct rds_test_deadline dl;
	struct rds_stream_conf sc;
	struct rte_rds_conf conf;
	char spec[RTE_RDS_ARGSIZE + 64], eal[1024], elname[32];
	const char *env, *cmd;
	uint64_t last_prog = 0, sent, received, bytes, eagain, enobufs;
	uint64_t t0;
	int progress, q;

	parse_args(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Die with eth_mp, whatever happens to it. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (o.ppid > 0 && getppid() != (pid_t)o.ppid) {
		printf("%s: eth_mp is gone already\n", o.name);
		return 3;
	}
	if (fcntl(CMD_FD, F_SETFL, O_NONBLOCK) != 0) {
		printf("%s: fd %d: %s (start me with eth_mp)\n", o.name, CMD_FD,
		       strerror(errno));
		return 2;
	}
	printf("%s: pid %d, %s on %s, peer %s, incarnation %u%s\n", o.name,
	       (int)getpid(), lip, o.dev, fip, o.gen,
	       o.resync ? " (restarted: takes the peer's streams from "
			  "anywhere)" : "");

	env = getenv("RDS_TEST_EAL_ARGS");
	snprintf(eal, sizeof(eal), "%s%s--vdev=%s", env != NULL ? env : "",
		 env != NULL ? " " : "", o.vdev);
	setenv("RDS_TEST_EAL_ARGS", eal, 1);
	snprintf(elname, sizeof(elname), "eth_peer%s", o.name);
	rds_test_eal_init(elname, o.lcore);
	if (!o.pin)
		unpin();

	rte_rds_conf_init(&conf);
	conf.nb_engines = 1;
	conf.engine[0].lcore_id = RTE_RDS_ENGINE_INLINE;
	conf.engine[0].idle = RTE_RDS_IDLE_YIELD;
	/* An IPv6 address in brackets. */
	if (o.mac != NULL && o.peer_mac != NULL)
		snprintf(spec, sizeof(spec),
			 "%s%s%s=eth,port=%s,mac=%s,neigh=%s/%s",
			 strchr(lip, ':') != NULL ? "[" : "", lip,
			 strchr(lip, ':') != NULL ? "]" : "", o.dev, o.mac,
			 fip, o.peer_mac);
	else
		snprintf(spec, sizeof(spec), "%s%s%s=eth,port=%s",
			 strchr(lip, ':') != NULL ? "[" : "", lip,
			 strchr(lip, ':') != NULL ? "]" : "", o.dev);
	printf("%s: address %s\n", o.name, spec);
	if (rte_rds_conf_add_addr_str(&conf, spec) != 0 ||
	    rds_test_lib_init(&conf) != 0) {
		printf("%s: library set-up failed: %s\n", o.name,
		       rte_strerror(rte_errno));
		report("DONE fail");
		return 1;
	}
	rte_rds_conf_free(&conf);
	report("UP");
	if (wait_link() != 0)
		goto fail_early;
	stream_setup(&sc);
	st = rds_stream_new(&sc);
	if (st == NULL || rdma_setup() != 0)
		goto fail_early;
	report("READY");
	while ((cmd = cmd_poll()) == NULL || strcmp(cmd, "GO") != 0) {
		rds_test_kick();
		rds_test_usleep(200);
	}
	if (strcmp(o.faults_at, "go") == 0)
		set_faults(o.faults);

	/* The stream and the RDMA work, to the end. */
	t0 = rds_test_now_ns();
	rds_test_deadline_init(&dl, 60, 1500);
	while (!failed && !(rds_stream_finished(st) && rdma_finished())) {
		progress = rds_stream_step(st);
		if (progress < 0) {
			failed = true;
			break;
		}
		progress += rdma_step();
		if (progress > 0) {
			rds_test_deadline_progress(&dl);
		} else {
			if (rds_test_deadline_expired(&dl, o.name))
				failed = true;
			/* Waiting for the peer: on a shared machine, let it
			 * (or whatever else runs here) have the CPU. */
			sched_yield();
		}
		if (rds_test_now_ns() - last_prog > 100000000ULL) {
			last_prog = rds_test_now_ns();
			rds_stream_counts(st, &sent, &received, &bytes, &eagain,
					  &enobufs);
			report("PROGRESS %" PRIu64 " %" PRIu64 " %" PRIu64,
			       received, sent,
			       ini.st[0][RDS_RDMA_SUCCESS]);
			cmd_poll();
		}
	}
	rds_stream_counts(st, &sent, &received, &bytes, &eagain, &enobufs);
	printf("%s: %s: sent %" PRIu64 ", received %" PRIu64 " messages (%"
	       PRIu64 " bytes, every byte checked) in %.2f s, EAGAIN %" PRIu64
	       ", ENOBUFS %" PRIu64 "\n", o.name, failed ? "FAILED" : "done",
	       sent, received, bytes, rds_test_since_s(t0), eagain, enobufs);
	/* Until everything we sent is acknowledged. */
	rds_test_deadline_init(&dl, 60, 60);
	while (!failed && (q = queued()) != 0) {
		if (q < 0 || rds_test_deadline_expired(&dl, "acknowledged")) {
			printf("%s: FAIL: %d messages still queued\n", o.name,
			       q);
			failed = true;
			break;
		}
		if (!rds_stream_idle(st))
			failed = true;
		rdma_step();
		rds_test_usleep(50);
	}
	report("DONE %s", failed ? "fail" : "ok");
	/* Until the other peer has everything acknowledged too. */
	while ((cmd = cmd_poll()) == NULL || strcmp(cmd, "EXIT") != 0) {
		if (!rds_stream_idle(st))
			failed = true;
		rdma_step();
		rds_test_usleep(20);
	}
	while (rdma_on() && rdma_recv_one() > 0)
		;
	if (!rds_stream_quiet(st))
		failed = true;
	report_digests();
	if (is_initiator())
		ini_results();
	else if (rdma_on()) {
		printf("%s: target: %" PRIu64 " operation messages of its "
		       "cookie (last operation %" PRId64 "), %" PRIu64
		       " of an older one, counter %" PRIu64 "\n", o.name,
		       tgt.msgs, tgt.last_op, tgt.late, *tgt.counter);
		report("TARGET %u %" PRIu64 " %" PRIu64 " %" PRIu64, o.gen,
		       tgt.msgs, tgt.late, *tgt.counter);
	}
	print_counters();
	rds_stream_free(st);
	if (rsock >= 0)
		rte_rds_close(rsock);
	if (rds_test_lib_fini() != 0)
		failed = true;
	report("BYE %s", failed ? "fail" : "ok");
	rds_test_eal_fini();
	return failed ? 1 : 0;

fail_early:
	report("DONE fail");
	report("BYE fail");
	rds_test_eal_fini();
	return 1;
}

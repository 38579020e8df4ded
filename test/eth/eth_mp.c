/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The eth transport between two processes, each with its own EAL, ethdev
 * and library instance (eth_peer, started here with posix_spawn; this
 * process never initialises the EAL): over net_memif ("eth_mp memif")
 * or over net_af_packet on a veth pair between two network namespaces
 * that the test makes and removes ("eth_mp afpacket"; "eth_mp afpacket6":
 * stream, faults and restart with IPv6 addresses, the neighbours found
 * by neighbour discovery). See eth_mp.h for the protocol between the two.
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

#include "eth_mp_run.h"

extern char **environ;


enum xport xport;
bool mp_v6;
char peer_path[PATH_MAX];
pid_t self;


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

/* A test's start: its watchdog, what an earlier test left (if it
 * failed) removed, the transport up. 0, or -1. */
static int
test_begin(void)
{
	watchdog(1500);
	cleanup_all();
	return xport_up();
}

/* Peer A's arguments, msgs messages each way (B's start as a copy). */
static void
args_a(struct peer_args *aa, uint64_t msgs)
{
	memset(aa, 0, sizeof(*aa));
	aa->name = "A";
	aa->index = 0;
	aa->lcore = "0";
	aa->vdev = vdev_a;
	aa->msgs = msgs;
	aa->seed = 11;
}

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

	if (test_begin() != 0) {
		CU_FAIL("cannot set the transport up");
		goto out;
	}
	args_a(&aa, msgs);
	aa.faults = faults;
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
		if (xport == XP_AFP)	/* neighbours by ARP, or ND */
			CU_ASSERT(peer_stat(p, mp_v6 ? "nd_rx" : "arp_rx") > 0);
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
		CU_ASSERT(peer_stat(&pa, mp_v6 ? "nd_tx" : "arp_tx") +
			  peer_stat(&pb, mp_v6 ? "nd_tx" : "arp_tx") >= 2);
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

	if (test_begin() != 0 || shm_make(0) != 0 || shm_make(1) != 0) {
		CU_FAIL("cannot set the transport or the shared files up");
		goto out;
	}
	args_a(&aa, msgs);
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
	if (xport == XP_MEMIF) {
		/* A memif server is never restarted: its listening socket
		 * takes the new client, and a restart while the client
		 * connects races with the PMD's interrupt thread. */
		const struct peer *srv = b_server ? &pb2 : &pa;

		printf("  %s (the memif server): port restarts %" PRIu64 "\n",
		       srv->name, peer_stat(srv, "port_restarts"));
		CU_ASSERT(peer_stat(srv, "port_restarts") == 0);
	}
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
	static const struct rds_test_case v6_cases[] = {
		{ "stream6", test_stream },
		{ "faults6", test_faults },
		{ "restart6", test_restart },
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
			 strcmp(argv[1], "afpacket") != 0 &&
			 strcmp(argv[1], "afpacket6") != 0)) {
		fprintf(stderr, "usage: eth_mp memif|afpacket|afpacket6\n");
		return 2;
	}
	xport = strcmp(argv[1], "memif") == 0 ? XP_MEMIF : XP_AFP;
	mp_v6 = strcmp(argv[1], "afpacket6") == 0;
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
	if (mp_v6)
		return rds_test_run_suite("eth_afpacket6", v6_cases);
	return rds_test_run_suite("eth_afpacket", cases);
}

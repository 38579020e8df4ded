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

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <linux/rds.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_rds.h>
#include <rte_rds_eth.h>
#include <rte_rds_info.h>
#include <rte_rds_stats.h>

#include "rds_test.h"
#include "rds_stream.h"
#include "eth_mp.h"

#define CMD_FD 3
#define REP_FD 4

struct opts {
	const char *name;
	unsigned int index;		/* 0: A (sockets 0, 1), 1: B (2, 3) */
	const char *ipa, *ipb;
	const char *dev;
	const char *vdev;
	const char *lcore;
	const char *mac, *peer_mac;	/* static neighbours, or ARP */
	uint64_t msgs;			/* each way */
	uint32_t large_one_in;
	const char *faults;		/* none, all, dupreorder */
	const char *faults_at;		/* go, cookie */
	uint64_t seed;
	uint32_t gen, peer_gen;
	bool resync;
	const char *rdma;		/* none, initiator, target */
	const char *mr_file;
	uint64_t rdma_ops;
	uint32_t old_op_us;
	long ppid;
	bool pin;
};

static struct opts o = {
	.name = "?", .dev = NULL, .lcore = "0", .msgs = 100000,
	.large_one_in = 100, .faults = "none", .faults_at = "go",
	.seed = 1, .rdma = "none", .rdma_ops = 2000, .old_op_us = 200,
	.ppid = -1,
};

static const char *lip, *fip;
static bool failed;

/* ------------------------------------------------------------------ */
/* Reports and commands */

static void
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

static void
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
/* RDMA */

#define MAX_OPS (1 << 18)
#define MAX_OUTSTANDING 8
#define MAX_GEN 4

static int rsock = -1;
static struct sockaddr_in rpeer;

/* Initiator. */
static struct {
	int32_t status[MAX_OPS];	/* -1: not notified yet */
	uint32_t gen[MAX_OPS];
	uint64_t res[MAX_OPS];		/* old values (atomic results) */
	uint32_t n, outstanding;
	uint64_t cookie;
	int cookie_gen;			/* -1: none yet */
	uint64_t last_old_tsc;
	uint64_t issued[MAX_GEN];
	uint64_t st[MAX_GEN][RDS_RDMA_OTHER_ERROR + 2];
} ini = { .cookie_gen = -1 };

/* Target. */
static struct {
	volatile uint64_t *counter;
	uint64_t cookie;
	bool cookie_sent;
	uint64_t msgs, late;
	int64_t last_op;
} tgt = { .last_op = -1 };

static bool
rdma_on(void)
{
	return strcmp(o.rdma, "none") != 0;
}

static bool
is_initiator(void)
{
	return strcmp(o.rdma, "initiator") == 0;
}

static int
rdma_setup(void)
{
	struct rds_get_mr_args a;
	int fd;

	if (!rdma_on())
		return 0;
	rsock = rds_test_socket(lip, ETH_MP_RDMA_PORT, 1 << 20, 1 << 20);
	if (rsock < 0)
		return -1;
	rpeer = rds_test_sin(fip, ETH_MP_RDMA_PORT);
	if (is_initiator())
		return 0;
	fd = open(o.mr_file, O_RDWR);
	if (fd < 0) {
		printf("%s: open %s: %s\n", o.name, o.mr_file, strerror(errno));
		return -1;
	}
	tgt.counter = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
			   fd, 0);
	close(fd);
	if (tgt.counter == MAP_FAILED) {
		printf("%s: mmap: %s\n", o.name, strerror(errno));
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.vec.addr = (uint64_t)(uintptr_t)tgt.counter;
	a.vec.bytes = 4096;
	a.cookie_addr = (uint64_t)(uintptr_t)&tgt.cookie;
	a.flags = RDS_RDMA_READWRITE;
	if (rte_rds_setsockopt(rsock, SOL_RDS, RDS_GET_MR, &a,
			       sizeof(a)) != 0) {
		printf("%s: RDS_GET_MR: %s\n", o.name, rte_strerror(rte_errno));
		return -1;
	}
	printf("%s: MR over %s, cookie 0x%016" PRIx64 ", counter %" PRIu64
	       "\n", o.name, o.mr_file, tgt.cookie, *tgt.counter);
	return 0;
}

static const char *
status_name(int st)
{
	switch (st) {
	case RDS_RDMA_SUCCESS: return "SUCCESS";
	case RDS_RDMA_REMOTE_ERROR: return "REMOTE_ERROR";
	case RDS_RDMA_CANCELED: return "CANCELED";
	case RDS_RDMA_DROPPED: return "DROPPED";
	case RDS_RDMA_OTHER_ERROR: return "OTHER_ERROR";
	default: return "?";
	}
}

static void
ini_notified(uint64_t token, int32_t status)
{
	uint64_t op = token - 1;
	unsigned int k;

	if (token == 0 || op >= ini.n) {
		printf("%s: FAIL: notification for unknown token %" PRIu64
		       "\n", o.name, token);
		failed = true;
		return;
	}
	if (ini.status[op] != -1) {
		printf("%s: FAIL: operation %" PRIu64 " notified twice (%s, "
		       "then %s)\n", o.name, op, status_name(ini.status[op]),
		       status_name(status));
		failed = true;
		return;
	}
	ini.status[op] = status;
	ini.outstanding--;
	k = status >= 0 && status <= RDS_RDMA_OTHER_ERROR ?
	    (unsigned int)status : RDS_RDMA_OTHER_ERROR + 1;
	ini.st[ini.gen[op]][k]++;
	if (status != RDS_RDMA_SUCCESS)
		printf("%s: operation %" PRIu64 " (cookie of incarnation %u): "
		       "%s\n", o.name, op, ini.gen[op], status_name(status));
}

static void
ini_cookie(const struct eth_mp_cookie_msg *cm)
{
	if ((int)cm->gen < ini.cookie_gen || cm->gen >= MAX_GEN ||
	    cm->gen > o.peer_gen) {
		printf("%s: FAIL: cookie of incarnation %u after %d\n", o.name,
		       cm->gen, ini.cookie_gen);
		failed = true;
		return;
	}
	printf("%s: cookie 0x%016" PRIx64 " of incarnation %u (after %"
	       PRIu64 " operations)\n", o.name, cm->cookie, cm->gen,
	       (uint64_t)ini.n);
	ini.cookie = cm->cookie;
	ini.cookie_gen = (int)cm->gen;
	if (cm->gen == o.peer_gen && strcmp(o.faults_at, "cookie") == 0)
		set_faults(o.faults);
}

/* One receive on the RDMA socket; 1 if something came. */
static int
rdma_recv_one(void)
{
	union {
		struct cmsghdr align;
		uint8_t b[4096];
	} ctl;
	uint8_t buf[256];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct sockaddr_in from;
	struct msghdr mh;
	struct cmsghdr *cm;
	unsigned int nst = 0;
	ssize_t r;

	memset(&mh, 0, sizeof(mh));
	mh.msg_name = &from;
	mh.msg_namelen = sizeof(from);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = ctl.b;
	mh.msg_controllen = sizeof(ctl.b);
	r = rte_rds_recvmsg(rsock, &mh, MSG_DONTWAIT);
	if (r < 0) {
		if (rte_errno == EAGAIN)
			return 0;
		printf("%s: FAIL: recvmsg on the RDMA socket: %s\n", o.name,
		       rte_strerror(rte_errno));
		failed = true;
		return 0;
	}
	for (cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm)) {
		struct rds_rdma_notify n;

		if (cm->cmsg_level != SOL_RDS ||
		    cm->cmsg_type != RDS_CMSG_RDMA_STATUS ||
		    cm->cmsg_len < CMSG_LEN(sizeof(n))) {
			printf("%s: FAIL: unexpected cmsg %d/%d\n", o.name,
			       cm->cmsg_level, cm->cmsg_type);
			failed = true;
			continue;
		}
		memcpy(&n, CMSG_DATA(cm), sizeof(n));
		nst++;
		if (!is_initiator()) {
			printf("%s: FAIL: the target got a notification\n",
			       o.name);
			failed = true;
			continue;
		}
		ini_notified(n.user_token, n.status);
	}
	if (r == 0 && nst > 0)
		return 1;
	if (is_initiator() && r == (ssize_t)sizeof(struct eth_mp_cookie_msg) &&
	    ((struct eth_mp_cookie_msg *)buf)->magic == ETH_MP_COOKIE_MAGIC) {
		struct eth_mp_cookie_msg c;

		memcpy(&c, buf, sizeof(c));
		ini_cookie(&c);
		return 1;
	}
	if (!is_initiator() && r == (ssize_t)sizeof(struct eth_mp_op_msg) &&
	    ((struct eth_mp_op_msg *)buf)->magic == ETH_MP_OP_MAGIC) {
		struct eth_mp_op_msg m;

		memcpy(&m, buf, sizeof(m));
		if (m.gen == o.gen && (int64_t)m.op > tgt.last_op) {
			tgt.last_op = (int64_t)m.op;
			tgt.msgs++;
		} else if (m.gen < o.gen) {
			/* An operation that ran on an older incarnation,
			 * whose message was not yet sent when it died. */
			printf("%s: message of operation %" PRIu64 " of "
			       "incarnation %u's cookie\n", o.name, m.op,
			       m.gen);
			tgt.late++;
		} else {
			printf("%s: FAIL: message of operation %" PRIu64
			       " (cookie of incarnation %u) after operation "
			       "%" PRId64 "\n", o.name, m.op, m.gen,
			       tgt.last_op);
			failed = true;
		}
		return 1;
	}
	printf("%s: FAIL: unexpected message of %zd bytes on the RDMA "
	       "socket\n", o.name, r);
	failed = true;
	return 1;
}

static int
ini_issue(void)
{
	union {
		struct cmsghdr align;
		uint8_t b[CMSG_SPACE(sizeof(struct rds_atomic_args))];
	} ctl;
	struct rds_atomic_args a;
	struct eth_mp_op_msg m;
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
	struct msghdr mh;
	struct cmsghdr *cm;
	uint32_t gen = (uint32_t)ini.cookie_gen, op = ini.n;
	uint64_t now = rte_rdtsc();

	if (ini.cookie_gen < 0 || ini.outstanding >= MAX_OUTSTANDING ||
	    ini.n >= MAX_OPS)
		return 0;
	if (gen == o.peer_gen) {
		if (ini.issued[gen] >= o.rdma_ops)
			return 0;
	} else if (now - ini.last_old_tsc <
		   (uint64_t)o.old_op_us * rte_get_tsc_hz() / 1000000 ||
		   ini.n >= MAX_OPS / 2) {
		return 0;
	}
	memset(&a, 0, sizeof(a));
	a.cookie = ini.cookie;
	a.local_addr = (uint64_t)(uintptr_t)&ini.res[op];
	a.remote_addr = 0;
	a.fadd.add = 1;
	a.flags = RDS_RDMA_NOTIFY_ME;
	a.user_token = (uint64_t)op + 1;
	m.magic = ETH_MP_OP_MAGIC;
	m.gen = gen;
	m.op = op;
	memset(&ctl, 0, sizeof(ctl));
	memset(&mh, 0, sizeof(mh));
	mh.msg_name = &rpeer;
	mh.msg_namelen = sizeof(rpeer);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = ctl.b;
	mh.msg_controllen = sizeof(ctl.b);
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_RDS;
	cm->cmsg_type = RDS_CMSG_ATOMIC_FADD;
	cm->cmsg_len = CMSG_LEN(sizeof(a));
	memcpy(CMSG_DATA(cm), &a, sizeof(a));
	ini.status[op] = -1;
	ini.gen[op] = gen;
	ini.res[op] = UINT64_MAX;
	if (rte_rds_sendmsg(rsock, &mh, MSG_DONTWAIT) < 0) {
		if (rte_errno == EAGAIN || rte_errno == ENOBUFS)
			return 0;
		printf("%s: FAIL: atomic FADD: %s\n", o.name,
		       rte_strerror(rte_errno));
		failed = true;
		return 0;
	}
	ini.n++;
	ini.outstanding++;
	ini.issued[gen]++;
	if (gen != o.peer_gen)
		ini.last_old_tsc = now;
	return 1;
}

static int
tgt_send_cookie(void)
{
	struct eth_mp_cookie_msg cm = {
		.magic = ETH_MP_COOKIE_MAGIC, .gen = o.gen, .cookie = tgt.cookie,
	};

	if (tgt.cookie_sent)
		return 0;
	if (rds_test_send(rsock, &cm, sizeof(cm), &rpeer, MSG_DONTWAIT) < 0) {
		if (rte_errno == EAGAIN || rte_errno == ENOBUFS)
			return 0;
		printf("%s: FAIL: sending the cookie: %s\n", o.name,
		       rte_strerror(rte_errno));
		failed = true;
		return 0;
	}
	tgt.cookie_sent = true;
	printf("%s: cookie sent\n", o.name);
	return 1;
}

/* RDMA work of one round: the progress made. */
static int
rdma_step(void)
{
	int work = 0, k;

	if (!rdma_on())
		return 0;
	for (k = 0; k < 64 && rdma_recv_one() > 0; k++)
		work++;
	if (is_initiator()) {
		while (ini_issue() > 0)
			work++;
	} else {
		work += tgt_send_cookie();
	}
	return work;
}

static bool
rdma_finished(void)
{
	if (!rdma_on())
		return true;
	if (is_initiator())
		return ini.cookie_gen == (int)o.peer_gen &&
		       ini.issued[o.peer_gen] == o.rdma_ops &&
		       ini.outstanding == 0;
	return tgt.cookie_sent;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The old values the successes returned, per cookie: distinct; for the
 * final cookie exactly 0 .. S-1 (each increment ran once, none twice).
 * Reports RDMA lines. */
static void
ini_results(void)
{
	static uint64_t v[MAX_OPS];
	uint32_t g, i, n;

	for (g = 0; g <= o.peer_gen && g < MAX_GEN; g++) {
		uint64_t max = 0;

		n = 0;
		for (i = 0; i < ini.n; i++)
			if (ini.gen[i] == g && ini.status[i] == RDS_RDMA_SUCCESS)
				v[n++] = ini.res[i];
		qsort(v, n, sizeof(v[0]), cmp_u64);
		for (i = 0; i < n; i++) {
			if ((i > 0 && v[i] == v[i - 1]) ||
			    (g == o.peer_gen && v[i] != i)) {
				printf("%s: FAIL: cookie %u: the %u-th smallest "
				       "old value is %" PRIu64 " (an increment "
				       "ran twice or was lost)\n", o.name, g,
				       i, v[i]);
				failed = true;
				break;
			}
		}
		if (n > 0)
			max = v[n - 1];
		for (i = 0; i < ini.n; i++)
			if (ini.gen[i] == g && ini.status[i] == -1) {
				printf("%s: FAIL: operation %u never "
				       "notified\n", o.name, i);
				failed = true;
			}
		printf("%s: RDMA with incarnation %u's cookie: %" PRIu64
		       " issued, SUCCESS %" PRIu64 ", DROPPED %" PRIu64
		       ", REMOTE_ERROR %" PRIu64 ", other %" PRIu64
		       ", largest old value %" PRIu64 "\n", o.name, g,
		       ini.issued[g], ini.st[g][RDS_RDMA_SUCCESS],
		       ini.st[g][RDS_RDMA_DROPPED],
		       ini.st[g][RDS_RDMA_REMOTE_ERROR],
		       ini.st[g][RDS_RDMA_CANCELED] +
		       ini.st[g][RDS_RDMA_OTHER_ERROR] +
		       ini.st[g][RDS_RDMA_OTHER_ERROR + 1], max);
		report("RDMA %u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		       " %" PRIu64 " %" PRIu64, g, ini.issued[g],
		       ini.st[g][RDS_RDMA_SUCCESS], ini.st[g][RDS_RDMA_DROPPED],
		       ini.st[g][RDS_RDMA_REMOTE_ERROR],
		       ini.st[g][RDS_RDMA_CANCELED] +
		       ini.st[g][RDS_RDMA_OTHER_ERROR] +
		       ini.st[g][RDS_RDMA_OTHER_ERROR + 1], max);
	}
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
	if (o.mac != NULL && o.peer_mac != NULL)
		snprintf(spec, sizeof(spec), "%s=eth,port=%s,mac=%s,neigh=%s/%s",
			 lip, o.dev, o.mac, fip, o.peer_mac);
	else
		snprintf(spec, sizeof(spec), "%s=eth,port=%s", lip, o.dev);
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

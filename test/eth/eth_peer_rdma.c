/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eth_peer: RDMA (the restart tests): the target registers an MR over
 * the shared file and sends its cookie, the initiator runs FETCH_ADDs
 * against it and counts their notifications per cookie generation.
 */

#include "eth_peer.h"

/* ------------------------------------------------------------------ */
/* RDMA */

#define MAX_OUTSTANDING 8

int rsock = -1;
static union rds_test_addr rpeer;	/* IPv4 or IPv6 (afpacket6) */

struct rdma_ini ini = { .cookie_gen = -1 };
struct rdma_tgt tgt = { .last_op = -1 };

/* A message header for one iovec, its address and control buffer. */
static void
msg_setup(struct msghdr *mh, union rds_test_addr *addr, struct iovec *iov,
	  void *ctl, size_t ctl_len)
{
	memset(mh, 0, sizeof(*mh));
	mh->msg_name = addr;
	mh->msg_namelen = addr->sa.sa_family == AF_UNSPEC ? sizeof(*addr) :
			  rds_test_addr_len(addr);
	mh->msg_iov = iov;
	mh->msg_iovlen = 1;
	mh->msg_control = ctl;
	mh->msg_controllen = ctl_len;
}

bool
rdma_on(void)
{
	return strcmp(o.rdma, "none") != 0;
}

bool
is_initiator(void)
{
	return strcmp(o.rdma, "initiator") == 0;
}

int
rdma_setup(void)
{
	struct rds_get_mr_args a;
	int fd;

	if (!rdma_on())
		return 0;
	rsock = rds_test_socket(lip, ETH_MP_RDMA_PORT, 1 << 20, 1 << 20);
	if (rsock < 0)
		return -1;
	rpeer = rds_test_addr(fip, ETH_MP_RDMA_PORT);
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
int
rdma_recv_one(void)
{
	union {
		struct cmsghdr align;
		uint8_t b[4096];
	} ctl;
	uint8_t buf[256];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	union rds_test_addr from;
	struct msghdr mh;
	struct cmsghdr *cm;
	unsigned int nst = 0;
	ssize_t r;

	memset(&from, 0, sizeof(from));
	msg_setup(&mh, &from, &iov, ctl.b, sizeof(ctl.b));
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
	msg_setup(&mh, &rpeer, &iov, ctl.b, sizeof(ctl.b));
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
	if (rds_test_send_to(rsock, &cm, sizeof(cm), &rpeer, MSG_DONTWAIT) < 0) {
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
int
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

bool
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
void
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


/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Attacks on the engine of suite multiproc (mp_hostile.c runs them), one
 * per way a local client once crossed the engine's boundary or stopped
 * it for everyone. Spoken by hand (mp_proto.h), run as root or, with
 * --as UID, as another user.
 *
 *   mp_attack PATH MODE ID [--as UID] [ARG]
 *     twice     one zero-length TX buffer queued 20,000 times, never
 *               taken back off txfree       -> DISCONNECTED
 *     nohello   connects and says nothing   -> CLOSED (the engine's
 *               deadline), and the engine served others meanwhile
 *     noread    2,000 calls, no answer read -> SENT n, then on "g"
 *               (stdin) reads what came: ANSWERS m, still connected
 *     pipefd    a pipe passed with a call   -> DISCONNECTED
 *     fds       8 descriptors with a call   -> DISCONNECTED
 *     trunc     a request shorter than its header -> DISCONNECTED
 *     oversize  a request longer than any   -> DISCONNECTED
 *     badlen    a request whose length field lies -> DISCONNECTED
 *     infocap   RDS_INFO with room 4 GiB    -> INFO n bytes (the
 *               records, in chunks); the engine held only those
 *     zeroflood ARG zero-length messages to a socket of its own that it
 *               never reads                 -> SENT n (then "g")
 *     wakefull  a socket armed all along whose wake-up descriptor is
 *               never drained, and made blocking -> on "g": still
 *               connected (the engine never waited on it)
 *     slots     attaches again and again    -> SLOTS n then REFUSED
 *               errno (EMFILE)
 *     exec      ARG is a set-uid program: the process forks, the
 *               child keeps the connection, the parent execs ARG (which
 *               writes the address of a secret of its own to fd 3); the
 *               child registers that page -> REFUSED errno, or
 *               REGISTERED (the engine reached the set-uid program)
 *     unseen    the engine cannot see this process's pid (it runs in
 *               another pid namespace): a region, and an RDMA READ into a
 *               vector of ours                -> REFUSED errno for both
 *     keys      RDMA keys reserved for its sockets (rds_region.h, the key
 *               ring) used against the rules: socket 1 maps with a key
 *               of socket 0's (-> its send dropped, EINVAL for its next
 *               send), frees a region of socket 0's through its ring
 *               (-> nothing: socket 0 frees it after, 0), maps with key
 *               0, frees garbage, says it took 1000 keys more than it
 *               was given                     -> KEYS HELD
 *     shrink    the region's descriptor, which came with the hello, cut
 *               to nothing (then to a page) and its requests rung: the
 *               engine reads the region on -> SEALED (refused, EPERM),
 *               or SHRUNK (the engine would fault on its next read)
 * "READY" once set up. Exit 0 when the engine did what it must.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <grp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/rds.h>

#include "rds_test.h"
#include "mp_common.h"
#include "mp_proto.h"

static struct mp_proto pr;
static struct rds_ctl_req q;
static struct rds_ctl_resp r;

static int
disconnected(void)
{
	if (mp_proto_hung_up(&pr, 10000)) {
		printf("DISCONNECTED\n");
		return 0;
	}
	printf("STILL CONNECTED\n");
	return 1;
}

static void
wait_go(void)
{
	char c;

	if (read(0, &c, 1) < 0)
		c = 0;
}

/* A socket of ours in slot 0, bound to mp_sin(id), and a doorbell. */
static int
setup_sock(unsigned int id, struct rds_xring_end *req,
	   struct rds_xring_end *bell)
{
	struct sockaddr_in sin = mp_sin(id);
	int wake, b;

	if (mp_proto_socket(&pr, 0, &sin, &wake) != 0)
		return -1;
	b = mp_proto_bell(&pr);
	if (b < 0)
		return -1;
	*req = mp_proto_ring(&pr, rds_region_csock_ring(&pr.lay, 0, 0),
			     RDS_CSOCK_REQ_RING, true);
	*bell = mp_proto_ring(&pr, pr.lay.bells_off +
			      pr.lay.bell_stride * (uint32_t)b,
			      RDS_REGION_BELL_RING, true);
	return 0;
}

/* A zero-length message to mp_sin(id) in TX buffer off. */
static void
tx_fill(uint64_t off, unsigned int id)
{
	struct rds_cbuf *b = (void *)(pr.base + off);
	struct sockaddr_in to = mp_sin(id);

	memset(b, 0, sizeof(*b));
	b->addr = to.sin_addr.s_addr;
	b->port = ntohs(to.sin_port);
	b->csock = 0;
}

static int
attack_twice(unsigned int id)
{
	struct rds_xring_end req, bell;
	uint64_t off = pr.lay.pool_off[RDS_POOL_TX][0];
	unsigned int n = 0, i;

	if (setup_sock(id, &req, &bell) != 0)
		return 1;
	tx_fill(off, id);
	printf("READY\n");
	while (n < 20000) {
		for (i = 0; i < 64 && rds_xring_put(&req, off) == 0; i++)
			n++;
		rds_xring_put(&bell, 0);
		if (mp_proto_hung_up(&pr, 1))
			break;
	}
	printf("QUEUED %u\n", n);
	return disconnected();
}

static int
attack_nohello(const char *path)
{
	struct pollfd p;
	uint64_t t0 = rds_test_now_ns();
	char c;
	int fd = mp_proto_connect(path);

	if (fd < 0)
		return 1;
	printf("READY\n");
	p.fd = fd;
	p.events = POLLIN;
	while (rds_test_now_ns() - t0 < 10000000000ULL) {
		if (poll(&p, 1, 100) > 0 &&
		    ((p.revents & (POLLHUP | POLLERR)) ||
		     recv(fd, &c, 1, MSG_DONTWAIT) == 0)) {
			printf("CLOSED after %.1f s\n", rds_test_since_s(t0));
			return 0;
		}
	}
	printf("STILL OPEN\n");
	return 1;
}

static int
attack_noread(void)
{
	struct iovec iov;
	struct msghdr mh;
	unsigned int sent = 0, answers = 0, i;

	memset(&q, 0, sizeof(q));
	q.op = RDS_CTL_STATS;
	q.handle = -1;
	q.cap = sizeof(r.data);
	iov.iov_base = &q;
	iov.iov_len = offsetof(struct rds_ctl_req, data);
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	printf("READY\n");
	for (i = 0; i < 2000; i++) {
		q.seq = ++pr.seq;
		if (sendmsg(pr.fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
			if (errno != EAGAIN)
				break;
			usleep(1000);
			continue;
		}
		sent++;
	}
	printf("SENT %u\n", sent);
	wait_go();
	/* What came meanwhile is there; the rest comes as we read. */
	while (answers < sent) {
		struct pollfd p = { .fd = pr.fd, .events = POLLIN };

		if (poll(&p, 1, 5000) <= 0)
			break;
		if (mp_proto_recv(&pr, &r, NULL) <= 0)
			break;
		answers++;
	}
	printf("ANSWERS %u\n", answers);
	return answers == sent ? 0 : 1;
}

/* A call with fds passed along. */
static int
attack_fds(unsigned int nfd, bool pipe_only)
{
	int fds[16], p[2];
	unsigned int i;

	memset(&q, 0, sizeof(q));
	if (pipe_only) {
		if (pipe(p) != 0)
			return 1;
		fds[0] = p[1];
		nfd = 1;
		q.op = RDS_CTL_SOCKET;
		q.handle = 0;
	} else {
		for (i = 0; i < nfd; i++)
			fds[i] = dup(1);
		q.op = RDS_CTL_STATS;
		q.handle = -1;
		q.cap = sizeof(r.data);
	}
	printf("READY\n");
	if (mp_proto_send(&pr, &q, fds, nfd) != 0)
		return 1;
	return disconnected();
}

/* A request of len bytes whose header says data_len. */
static int
attack_len(size_t len, uint32_t data_len)
{
	static uint8_t buf[sizeof(struct rds_ctl_req) + 4096];
	struct rds_ctl_req *rq = (void *)buf;

	memset(buf, 0, sizeof(buf));
	rq->op = RDS_CTL_STATS;
	rq->handle = -1;
	rq->cap = sizeof(r.data);
	rq->len = data_len;
	printf("READY\n");
	if (send(pr.fd, buf, len, MSG_NOSIGNAL) != (ssize_t)len)
		return 1;
	return disconnected();
}

static int
attack_infocap(void)
{
	static uint8_t recs[64 << 20];
	uint32_t got = 0;
	ssize_t n;

	memset(&q, 0, sizeof(q));
	q.op = RDS_CTL_GETSOCKOPT;
	q.handle = -1;
	q.level = SOL_RDS;
	q.name = RDS_INFO_COUNTERS;
	q.cap = UINT32_MAX;
	printf("READY\n");
	if (mp_proto_call(&pr, &q, &r, NULL) < 0) {
		printf("INFO refused %d\n", r.err);
		return 1;
	}
	while (got < r.need) {
		static struct rds_ctl_resp d;

		n = mp_proto_recv(&pr, &d, NULL);
		if (n < (ssize_t)offsetof(struct rds_ctl_resp, data) ||
		    d.op != RDS_CTL_INFO_DATA || d.seq != q.seq ||
		    d.len > r.need - got || got + d.len > sizeof(recs)) {
			printf("INFO bad chunk\n");
			return 1;
		}
		memcpy(recs + got, d.data, d.len);
		got += d.len;
	}
	printf("INFO %u bytes, record %d\n", got, r.ret);
	return got == r.need && got > 0 ? 0 : 1;
}

/* n zero-length messages to a socket of ours that never reads (slot 0,
 * mp_sin(id)), from ZF_SENDERS sockets of ours at once (ports 7100 +
 * k), TX buffers taken back as a client must; for 5 s at most. */
#define ZF_SENDERS 16

static int
attack_zeroflood(unsigned int id, uint64_t n)
{
	struct rds_xring_end req[ZF_SENDERS + 1], bell, txfree;
	uint32_t nb = pr.lay.pool_nb[RDS_POOL_TX][0], top = 0, i, k;
	uint64_t *free_off = calloc(nb, sizeof(uint64_t)), sent = 0, off;
	uint64_t t0 = rds_test_now_ns();
	struct sockaddr_in sin;
	int wake, b;

	if (free_off == NULL || setup_sock(id, &req[0], &bell) != 0)
		return 1;
	for (k = 1; k <= ZF_SENDERS; k++) {
		sin = rds_test_sin(mp_ip(id), (uint16_t)(7100 + k));
		if (mp_proto_socket(&pr, (int32_t)k, &sin, &wake) != 0)
			return 1;
		req[k] = mp_proto_ring(&pr,
				       rds_region_csock_ring(&pr.lay, k, 0),
				       RDS_CSOCK_REQ_RING, true);
	}
	b = mp_proto_bell(&pr);
	if (b < 0)
		return 1;
	bell = mp_proto_ring(&pr, pr.lay.bells_off +
			     pr.lay.bell_stride * (uint32_t)b,
			     RDS_REGION_BELL_RING, true);
	txfree = mp_proto_ring(&pr, pr.lay.txfree_off, RDS_REGION_FREE_RING,
			       false);
	for (i = 0; i < nb; i++)
		free_off[top++] = pr.lay.pool_off[RDS_POOL_TX][0] +
				  (uint64_t)i * rds_region_class_size[0];
	printf("READY\n");
	while (sent < n && rds_test_now_ns() - t0 < 5000000000ULL) {
		bool put = false;

		while (rds_xring_get(&txfree, &off) > 0)
			free_off[top++] = off;
		for (k = 1; k <= ZF_SENDERS && top != 0; k++) {
			off = free_off[top - 1];
			tx_fill(off, id);
			((struct rds_cbuf *)(void *)(pr.base + off))->csock =
				(int32_t)k;
			if (rds_xring_put(&req[k], off) != 0)
				continue;
			top--;
			sent++;
			put = true;
			rds_xring_put(&bell, k);
		}
		if (!put) {
			if (mp_proto_hung_up(&pr, 0)) {
				printf("DISCONNECTED after %" PRIu64 "\n", sent);
				return 1;
			}
			usleep(100);
		}
	}
	printf("SENT %" PRIu64 "\n", sent);
	free(free_off);
	wait_go();
	return 0;
}

static int
attack_wakefull(unsigned int id)
{
	struct sockaddr_in sin = mp_sin(id);
	struct rds_csock *cs = (void *)(pr.base + pr.lay.socks_off);
	struct pollfd p = { .fd = 0, .events = POLLIN };
	int wake;

	if (mp_proto_socket(&pr, 0, &sin, &wake) != 0)
		return 1;
	/* Blocking, as a descriptor the engine writes could be made. */
	if (fcntl(wake, F_SETFL, 0) != 0)
		return 1;
	printf("READY\n");
	while (poll(&p, 1, 0) == 0) {
		__atomic_store_n(&cs->armed, 1, __ATOMIC_SEQ_CST);
		usleep(100);
	}
	if (mp_proto_hung_up(&pr, 0)) {
		printf("DISCONNECTED\n");
		return 1;
	}
	printf("STILL CONNECTED\n");
	return 0;
}

static int
attack_slots(const char *path)
{
	struct mp_proto more;
	unsigned int n = 1;

	printf("READY\n");
	for (;;) {
		if (mp_proto_attach(&more, path) != 0) {
			printf("SLOTS %u REFUSED %s\n", n, strerror(errno));
			return errno == EMFILE ? 0 : 1;
		}
		if (++n > 1000) {
			printf("SLOTS %u, never refused\n", n);
			return 1;
		}
	}
}

/* RDS_GET_MR over [addr, addr + len) on socket 0: r.ret, r.err. */
static int
get_mr(uint64_t addr, uint64_t len)
{
	struct rds_get_mr_args a;
	uint64_t cookie = 0;

	memset(&a, 0, sizeof(a));
	a.vec.addr = addr;
	a.vec.bytes = len;
	a.cookie_addr = (uintptr_t)&cookie;
	return mp_proto_sockopt(&pr, RDS_CTL_SETSOCKOPT, 0, SOL_RDS,
				RDS_GET_MR, &a, sizeof(a), &r);
}

static int
attack_exec(unsigned int id, const char *prog)
{
	struct rds_xring_end req, bell;
	unsigned long long addr = 0;
	char line[64];
	int p[2], st, euid = -1;
	pid_t child;
	FILE *f;

	if (setup_sock(id, &req, &bell) != 0 || pipe(p) != 0)
		return 1;
	/* Our own memory first: allowed. */
	if (get_mr((uintptr_t)line, sizeof(line)) < 0) {
		printf("own region refused (%d)\n", r.err);
		return 1;
	}
	printf("READY\n");
	child = fork();
	if (child < 0)
		return 1;
	if (child != 0) {
		/* The process the engine authenticated becomes the set-uid
		 * program; the child goes on with the connection. */
		char *args[] = { (char *)prog, NULL };

		close(p[0]);
		if (dup2(p[1], 3) != 3)
			_exit(1);
		close(pr.fd);
		execv(prog, args);
		_exit(1);
	}
	close(p[1]);
	f = fdopen(p[0], "r");
	if (f == NULL || fgets(line, sizeof(line), f) == NULL ||
	    sscanf(line, "%llx %d", &addr, &euid) != 2) {
		printf("no address from %s\n", prog);
		return 1;
	}
	printf("%s runs with euid %d\n", prog, euid);
	st = get_mr(addr, 4096);
	kill(getppid(), SIGTERM);
	if (st >= 0) {
		printf("REGISTERED the page of %s at %llx\n", prog, addr);
		return 1;
	}
	printf("REFUSED %s\n", strerror(r.err));
	return 0;
}

/* A send with an RDMA READ whose local vector is at vec_addr: r.ret. */
static int
rdma_send(unsigned int id, uint64_t vec_addr)
{
	union {
		uint8_t b[CMSG_SPACE(sizeof(struct rds_rdma_args))];
		struct cmsghdr a;
	} u;
	struct sockaddr_in to = mp_sin(id);
	struct rds_ctl_send cs;
	struct rds_rdma_args ra;
	struct cmsghdr *cm = &u.a;

	memset(&u, 0, sizeof(u));
	memset(&ra, 0, sizeof(ra));
	ra.cookie = 0x1234;
	ra.remote_vec.bytes = 64;
	ra.local_vec_addr = vec_addr;
	ra.nr_local = 1;
	cm->cmsg_level = SOL_RDS;
	cm->cmsg_type = RDS_CMSG_RDMA_ARGS;
	cm->cmsg_len = CMSG_LEN(sizeof(ra));
	memcpy(CMSG_DATA(cm), &ra, sizeof(ra));
	memset(&cs, 0, sizeof(cs));
	cs.off = pr.lay.pool_off[RDS_POOL_TX][0];
	cs.ctl_len = CMSG_SPACE(sizeof(ra));
	cs.namelen = sizeof(to);
	memcpy(&cs.name, &to, sizeof(to));
	memset(&q, 0, sizeof(q));
	q.op = RDS_CTL_SENDMSG;
	q.handle = 0;
	q.len = sizeof(cs) + cs.ctl_len;
	memcpy(q.data, &cs, sizeof(cs));
	memcpy(q.data + sizeof(cs), u.b, cs.ctl_len);
	return mp_proto_call(&pr, &q, &r, NULL);
}

/* The engine cannot see our pid: none of our memory is reachable, and a
 * vector pointer of ours is never followed in the engine's own memory. */
static int
attack_unseen(unsigned int id)
{
	struct rds_xring_end req, bell;
	static uint8_t page[4096] __attribute__((aligned(4096)));
	struct rds_iovec v = { .addr = (uintptr_t)page, .bytes = 64 };
	int st, bad = 0;

	if (setup_sock(id, &req, &bell) != 0)
		return 1;
	printf("READY\n");
	st = get_mr((uintptr_t)page, sizeof(page));
	printf("GET_MR %s\n", st >= 0 ? "REGISTERED" : strerror(r.err));
	bad += st >= 0 || r.err != EPERM;
	/* A vector of ours, and one at an address mapped nowhere. */
	st = rdma_send(id, (uintptr_t)&v);
	printf("RDMA READ, our vector: %s\n", st >= 0 ? "SENT" :
	       strerror(r.err));
	bad += st >= 0 || r.err != EPERM;
	st = rdma_send(id, 0x1000);
	printf("RDMA READ, vector at 0x1000: %s\n", st == -2 ? "HUNG UP" :
	       st >= 0 ? "SENT" : strerror(r.err));
	bad += st >= 0 || st == -2 || r.err != EPERM;
	/* Still served. */
	st = get_mr((uintptr_t)page, sizeof(page));
	bad += st == -2;
	printf(bad == 0 ? "REFUSED all\n" : "FAILED %d\n", bad);
	return bad == 0 ? 0 : 1;
}

/* A send on socket idx to mp_sin(to) with RDMA_MAP of a page of ours,
 * by a call (the payload, empty, in TX buffer off): r.ret. */
static int
map_call(int32_t idx, unsigned int to_id, uint64_t off, uint64_t addr)
{
	union {
		uint8_t b[CMSG_SPACE(sizeof(struct rds_get_mr_args))];
		struct cmsghdr a;
	} u;
	struct sockaddr_in to = mp_sin(to_id);
	struct rds_get_mr_args a;
	struct rds_ctl_send cs;
	struct cmsghdr *cm = &u.a;

	memset(&u, 0, sizeof(u));
	memset(&a, 0, sizeof(a));
	a.vec.addr = addr;
	a.vec.bytes = 4096;
	a.flags = RDS_RDMA_READWRITE;
	cm->cmsg_level = SOL_RDS;
	cm->cmsg_type = RDS_CMSG_RDMA_MAP;
	cm->cmsg_len = CMSG_LEN(sizeof(a));
	memcpy(CMSG_DATA(cm), &a, sizeof(a));
	memset(&cs, 0, sizeof(cs));
	cs.off = off;
	cs.ctl_len = CMSG_SPACE(sizeof(a));
	cs.namelen = sizeof(to);
	memcpy(&cs.name, &to, sizeof(to));
	memset(&q, 0, sizeof(q));
	q.op = RDS_CTL_SENDMSG;
	q.handle = idx;
	q.len = sizeof(cs) + cs.ctl_len;
	memcpy(q.data, &cs, sizeof(cs));
	memcpy(q.data + sizeof(cs), u.b, cs.ctl_len);
	return mp_proto_call(&pr, &q, &r, NULL);
}

/* Queue TX buffer off on socket idx (ring req, doorbell bell): a send to
 * mp_sin(to_id) with flags and rdma_dest v, and RDMA_MAP of a page of
 * ours when flags has RDS_CBUF_F_MAP; then wait (2 s) until the engine
 * took it, and take the socket's error: it, or -1 (never taken). */
static int
queue_one(int32_t idx, struct rds_xring_end *req, struct rds_xring_end *bell,
	  uint64_t off, unsigned int to_id, uint8_t flags, uint64_t v,
	  uint64_t addr)
{
	struct rds_cbuf *b = (void *)(pr.base + off);
	struct rds_csock *cs = (void *)(pr.base + pr.lay.socks_off +
					sizeof(*cs) * (uint32_t)idx);
	struct sockaddr_in to = mp_sin(to_id);
	uint64_t t0 = rds_test_now_ns();

	memset(b, 0, sizeof(*b));
	b->addr = to.sin_addr.s_addr;
	b->port = ntohs(to.sin_port);
	b->csock = idx;
	b->flags = flags;
	b->rdma_dest = v;
	if (flags & RDS_CBUF_F_MAP) {
		struct cmsghdr *cm = (void *)((uint8_t *)b + RDS_CBUF_HDR);
		struct rds_get_mr_args a;

		memset(&a, 0, sizeof(a));
		a.vec.addr = addr;
		a.vec.bytes = 4096;
		a.flags = RDS_RDMA_READWRITE;
		cm->cmsg_level = SOL_RDS;
		cm->cmsg_type = RDS_CMSG_RDMA_MAP;
		cm->cmsg_len = CMSG_LEN(sizeof(a));
		memcpy(CMSG_DATA(cm), &a, sizeof(a));
		b->ctl_len = CMSG_SPACE(sizeof(a));
	}
	if (rds_xring_put(req, off) != 0)
		return -1;
	rds_xring_put(bell, (uint64_t)idx);
	while (__atomic_load_n(&req->r->cons, __ATOMIC_ACQUIRE) != req->idx)
		if (rds_test_now_ns() - t0 > 2000000000ULL ||
		    mp_proto_hung_up(&pr, 1))
			return -1;
	return (int)__atomic_exchange_n(&cs->snd_err, 0, __ATOMIC_SEQ_CST);
}

static int
attack_keys(unsigned int id)
{
	static uint8_t page[2][4096] __attribute__((aligned(4096)));
	struct rds_xring_end req[2], key0, bell;
	struct sockaddr_in sin = rds_test_sin(mp_ip(id), 7190);
	uint64_t tx = pr.lay.pool_off[RDS_POOL_TX][0], k0 = 0, t0;
	struct rds_free_mr_args f;
	int wake, bad = 0, e;

	if (setup_sock(id, &req[0], &bell) != 0 ||
	    mp_proto_socket(&pr, 1, &sin, &wake) != 0)
		return 1;
	req[1] = mp_proto_ring(&pr, rds_region_csock_ring(&pr.lay, 1, 0),
			       RDS_CSOCK_REQ_RING, true);
	key0 = mp_proto_ring(&pr, rds_region_csock_ring(&pr.lay, 0, 3),
			     RDS_CSOCK_KEY_RING, false);
	printf("READY\n");
	/* A first RDMA_MAP by a call on each: keys for both. */
	if (map_call(0, id, tx, (uintptr_t)page[0]) < 0 ||
	    map_call(1, id, tx, (uintptr_t)page[1]) < 0) {
		printf("RDMA_MAP by a call refused: %s\n", strerror(r.err));
		return 1;
	}
	for (t0 = rds_test_now_ns(); rds_xring_get(&key0, &k0) <= 0;)
		if (rds_test_now_ns() - t0 > 2000000000ULL) {
			printf("no key came\n");
			return 1;
		}
	/* Socket 0's key, by socket 1. */
	e = queue_one(1, &req[1], &bell, tx + rds_region_class_size[0] * 1,
		      id, RDS_CBUF_F_MAP, k0, (uintptr_t)page[1]);
	printf("socket 1 maps with socket 0's key: error %d\n", e);
	bad += e != EINVAL;
	/* Its owner's. */
	e = queue_one(0, &req[0], &bell, tx + rds_region_class_size[0] * 2,
		      id, RDS_CBUF_F_MAP, k0, (uintptr_t)page[0]);
	printf("socket 0 maps with its key: error %d\n", e);
	bad += e != 0;
	/* Socket 1 frees socket 0's region: nothing. */
	e = queue_one(1, &req[1], &bell, tx + rds_region_class_size[0] * 3,
		      id, RDS_CBUF_F_FREE, k0, 0);
	bad += e != 0;
	memset(&f, 0, sizeof(f));
	f.cookie = k0;
	e = mp_proto_sockopt(&pr, RDS_CTL_SETSOCKOPT, 0, SOL_RDS, RDS_FREE_MR,
			     &f, sizeof(f), &r);
	printf("socket 0 frees its region after socket 1 did: %s\n",
	       e == 0 ? "0" : strerror(r.err));
	bad += e != 0;
	/* Garbage: key 0, a key never given, a freed cookie freed again
	 * through the ring, a key ring said to be read far ahead. */
	e = queue_one(0, &req[0], &bell, tx + rds_region_class_size[0] * 4,
		      id, RDS_CBUF_F_MAP, 0, (uintptr_t)page[0]);
	bad += e != EINVAL;
	e = queue_one(0, &req[0], &bell, tx + rds_region_class_size[0] * 5,
		      id, RDS_CBUF_F_MAP, 0x5eedf00d, (uintptr_t)page[0]);
	bad += e != EINVAL;
	e = queue_one(0, &req[0], &bell, tx + rds_region_class_size[0] * 6,
		      id, RDS_CBUF_F_FREE | RDS_CBUF_F_MAP, ~0ULL, 0);
	bad += e != 0;
	__atomic_store_n(&key0.r->cons, key0.idx + 1000, __ATOMIC_RELEASE);
	if (map_call(0, id, tx, (uintptr_t)page[0]) < 0)
		bad++;
	e = queue_one(0, &req[0], &bell, tx + rds_region_class_size[0] * 7,
		      id, RDS_CBUF_F_MAP, k0 + 1, (uintptr_t)page[0]);
	bad += e != EINVAL;
	if (mp_proto_hung_up(&pr, 100)) {
		printf("DISCONNECTED\n");
		return 1;
	}
	printf(bad == 0 ? "KEYS HELD\n" : "FAILED %d\n", bad);
	return bad == 0 ? 0 : 1;
}

static int
attack_shrink(unsigned int id)
{
	struct rds_xring_end req, bell;
	int a, b;

	if (setup_sock(id, &req, &bell) != 0)
		return 1;
	printf("READY\n");
	a = ftruncate(pr.memfd, 0);
	b = ftruncate(pr.memfd, 4096);
	if (a == 0 || b == 0) {
		/* The engine's next look at its region faults (SIGBUS). */
		printf("SHRUNK\n");
		rds_xring_put(&bell, 0);
		return 1;
	}
	printf("SEALED %s\n", strerror(errno));
	return errno == EPERM ? 0 : 1;
}

int
main(int argc, char **argv)
{
	const char *mode, *arg = NULL;
	unsigned int id;
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 4)
		return 1;
	mode = argv[2];
	id = (unsigned int)atoi(argv[3]);
	for (i = 4; i < argc; i++) {
		if (strcmp(argv[i], "--as") == 0 && i + 1 < argc) {
			uid_t u = (uid_t)atoi(argv[++i]);

			/* As a process of that user started by itself
			 * would be: dumpable (a change of credentials
			 * leaves it not, and then not even its own user
			 * may trace it). */
			if (setgroups(0, NULL) != 0 || setgid(u) != 0 ||
			    setuid(u) != 0 ||
			    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) != 0) {
				perror("setuid");
				return 1;
			}
		} else {
			arg = argv[i];
		}
	}
	if (strcmp(mode, "nohello") == 0)
		return attack_nohello(argv[1]);
	if (mp_proto_attach(&pr, argv[1]) != 0) {
		printf("attach refused: %s\n", strerror(errno));
		return 1;
	}
	if (strcmp(mode, "twice") == 0)
		return attack_twice(id);
	if (strcmp(mode, "noread") == 0)
		return attack_noread();
	if (strcmp(mode, "pipefd") == 0)
		return attack_fds(1, true);
	if (strcmp(mode, "fds") == 0)
		return attack_fds(8, false);
	if (strcmp(mode, "trunc") == 0)
		return attack_len(10, 0);
	if (strcmp(mode, "oversize") == 0)
		return attack_len(sizeof(struct rds_ctl_req) + 100,
				  RDS_CTL_MAX_DATA);
	if (strcmp(mode, "badlen") == 0)
		return attack_len(offsetof(struct rds_ctl_req, data) + 50, 100);
	if (strcmp(mode, "infocap") == 0)
		return attack_infocap();
	if (strcmp(mode, "zeroflood") == 0)
		return attack_zeroflood(id, arg != NULL ?
					strtoull(arg, NULL, 0) : 1000000);
	if (strcmp(mode, "slots") == 0)
		return attack_slots(argv[1]);
	if (strcmp(mode, "wakefull") == 0)
		return attack_wakefull(id);
	if (strcmp(mode, "exec") == 0 && arg != NULL)
		return attack_exec(id, arg);
	if (strcmp(mode, "unseen") == 0)
		return attack_unseen(id);
	if (strcmp(mode, "keys") == 0)
		return attack_keys(id);
	if (strcmp(mode, "shrink") == 0)
		return attack_shrink(id);
	printf("unknown mode %s\n", mode);
	return 1;
}

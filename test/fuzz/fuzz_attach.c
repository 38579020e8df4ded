/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the engine's side of the attach protocol
 * (rds_server*.c, rds_region.h). This process is the engine (the
 * library, two loop addresses, an inline engine, rte_rds_server_start on
 * a socket of its own) and two clients spoken by hand on that socket:
 *
 * - client A is the input's: every input attaches it anew, gives it a
 *   socket bound to A_IP:7000 and a doorbell, then runs steps from the
 *   input: control requests with any op, handle, option, length and
 *   room, sent whole, cut short, padded past any request, or with
 *   descriptors; writes of any bytes anywhere in its region (rings,
 *   socket records, buffer headers); ring entries (requests, doorbells,
 *   buffers given back) with valid-looking or any offsets; ring indexes
 *   set to anything; passes of the engine and the server;
 * - client B is well behaved and modelled here: attached once, with a
 *   socket bound to B_IP:7001; after every input it sends a message to
 *   a socket of this process and gets one back, both checked byte for
 *   byte, and its TX buffers (which the engine must never write) are
 *   checked against what B wrote.
 *
 * Both connect from a helper process of ours that passes the connected
 * socket back (SO_PEERCRED names the helper): what the engine reaches of
 * "their" memory for RDMA is the helper's, never this process's.
 *
 * Oracles, after every step and at the end of the input: ASan and UBSan;
 * the engine's own record of client A within its bounds (TX buffers on
 * their way back at most the pool, what is kept for it at most keep_mb,
 * answers queued at most the limit and one RDS_INFO stream); after the
 * input, once A is gone, the engine holds no more descriptors than
 * before it; a violation the server counted means A was disconnected;
 * B's round trip and TX buffers intact.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <arpa/inet.h>
#include <linux/rds.h>

#include <rte_errno.h>
#include <rte_rds.h>
#include <rte_rds_attach.h>

#include "rds_server_private.h"
#include "fuzz_common.h"
#include "fuzz_attach_op.h"

#define A_IP "10.252.0.1"
#define B_IP "10.252.0.2"
#define A_PORT 7000
#define B_PORT 7001
#define S_PORT 7002
#define FZ_STEPS 64
#define B_MSG 200

/* A client spoken by hand, without waiting: the engine is this thread. */
struct fz_cl {
	int fd;
	uint8_t *base;
	uint64_t size;
	struct rds_region_layout lay;
	uint32_t seq;
	int wake;
	struct rds_xring_end req, bell, rxr, rxfree, txfree;
};

static char sock_path[108];
static int helper_fd = -1;		/* to the helper that connects */
static pid_t helper_pid;
static struct fz_cl b;
static int s_sock = -1;			/* ours: B's peer */
static unsigned int base_fds;
static uint64_t b_round;

/* ------------------------------------------------------------------ */
/* The engine and the server */

static void
pump(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		rte_rds_engine_poll(0);
		rte_rds_server_poll(0);
	}
}

/* Our descriptors but pipes: the sanitizers open pipes of their own to
 * their symbolizer when they report (and the engine never makes one;
 * what a client passes here is a socket). */
static unsigned int
open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char path[300], link[64];
	unsigned int n = 0;
	ssize_t k;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		k = readlink(path, link, sizeof(link) - 1);
		link[k > 0 ? k : 0] = '\0';
		n += strncmp(link, "pipe:", 5) != 0;
	}
	closedir(d);
	return n;
}

/* The engine's record of a client, within its bounds. */
static void
check_client_state(void)
{
	struct rds_client *cl;

	TAILQ_FOREACH(cl, &rds_srv->clients, link) {
		FZ_CHECK(cl->nb_tx_back <= cl->nb_tx,
			 "%u TX buffers on their way back, pool %u",
			 cl->nb_tx_back, cl->nb_tx);
		FZ_CHECK(cl->kept_bytes <= cl->keep_max,
			 "kept %" PRIu64 " > %" PRIu64, cl->kept_bytes,
			 cl->keep_max);
		FZ_CHECK(cl->nb_out <= RDS_SRV_OUT_MAX + 1,
			 "%u answers queued", cl->nb_out);
	}
}

/* ------------------------------------------------------------------ */
/* The helper that connects for the clients */

static void
helper_main(int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr a;
	} u;
	struct sockaddr_un sa;
	struct iovec iov;
	struct msghdr mh;
	char c;
	int s;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
	while (read(fd, &c, 1) == 1) {
		s = socket(AF_UNIX, SOCK_SEQPACKET, 0);
		if (s >= 0 && connect(s, (struct sockaddr *)&sa,
				      sizeof(sa)) != 0) {
			close(s);
			s = -1;
		}
		memset(&u, 0, sizeof(u));
		iov.iov_base = &c;
		iov.iov_len = 1;
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		if (s >= 0) {
			struct cmsghdr *cm;

			mh.msg_control = u.buf;
			mh.msg_controllen = sizeof(u.buf);
			cm = CMSG_FIRSTHDR(&mh);
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(cm), &s, sizeof(int));
		}
		if (sendmsg(fd, &mh, 0) < 0)
			_exit(1);
		if (s >= 0)
			close(s);
	}
	_exit(0);
}

static void
helper_start(void)
{
	int sv[2];

	if (helper_fd >= 0)
		close(helper_fd);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		fz_fail("socketpair: errno %d", errno);
	helper_pid = fork();
	if (helper_pid < 0)
		fz_fail("fork: errno %d", errno);
	if (helper_pid == 0) {
		close(sv[0]);
		helper_main(sv[1]);
	}
	close(sv[1]);
	helper_fd = sv[0];
}

/* A socket connected to the engine by the helper, or -1. */
static int
helper_connect(void)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr a;
	} u;
	struct iovec iov;
	struct msghdr mh;
	struct cmsghdr *cm;
	unsigned int tries;
	char c = 'c';
	int fd = -1;

	for (tries = 0; tries < 2 && fd < 0; tries++) {
		/* RDMA of the input may have broken the helper: anew. */
		if (tries != 0 || helper_fd < 0)
			helper_start();
		if (write(helper_fd, &c, 1) != 1)
			continue;
		iov.iov_base = &c;
		iov.iov_len = 1;
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		if (recvmsg(helper_fd, &mh, MSG_CMSG_CLOEXEC) <= 0)
			continue;
		cm = CMSG_FIRSTHDR(&mh);
		if (cm != NULL)
			memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	}
	return fd;
}

/* ------------------------------------------------------------------ */
/* Hand-spoken clients */

static int
fz_send(struct fz_cl *c, const void *buf, size_t len, const int *fds,
	unsigned int nfd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 4)];
		struct cmsghdr a;
	} u;
	struct iovec iov = { .iov_base = (void *)(uintptr_t)buf,
			     .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (nfd != 0) {
		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfd);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * nfd);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfd);
	}
	return sendmsg(c->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 ? -1 : 0;
}

/* One message from the engine, serving it meanwhile: its length, -1 on
 * hang-up or nothing after a while. */
static ssize_t
fz_recv(struct fz_cl *c, struct rds_ctl_resp *r, int *got)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr a;
	} u;
	struct iovec iov = { .iov_base = r, .iov_len = sizeof(*r) };
	struct msghdr mh;
	struct cmsghdr *cm;
	unsigned int i;
	ssize_t n;

	if (got != NULL)
		*got = -1;
	for (i = 0; i < 2000; i++) {
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		n = recvmsg(c->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n > 0) {
			for (cm = CMSG_FIRSTHDR(&mh); cm != NULL;
			     cm = CMSG_NXTHDR(&mh, cm)) {
				int fd;

				memcpy(&fd, CMSG_DATA(cm), sizeof(int));
				if (got != NULL && *got < 0)
					*got = fd;
				else
					close(fd);
			}
			return n;
		}
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			return -1;
		pump(1);
	}
	return -1;
}

/* Drop every answer that came (client A does not wait for them). */
static void
fz_drain(struct fz_cl *c)
{
	static struct rds_ctl_resp r;

	/* (A descriptor that came with one is closed by the kernel: no
	 * room was given for it.) */
	while (recv(c->fd, &r, sizeof(r), MSG_DONTWAIT) > 0)
		;
}

static int
fz_call(struct fz_cl *c, struct rds_ctl_req *q, struct rds_ctl_resp *r,
	int *got)
{
	q->seq = ++c->seq;
	if (fz_send(c, q, offsetof(struct rds_ctl_req, data) + q->len, NULL,
		    0) != 0 ||
	    fz_recv(c, r, got) < (ssize_t)offsetof(struct rds_ctl_resp, data))
		return -2;
	return r->ret;
}

static bool
fz_hung_up(struct fz_cl *c)
{
	struct pollfd p = { .fd = c->fd, .events = POLLIN };
	char ch;

	if (poll(&p, 1, 0) <= 0)
		return false;
	if (p.revents & (POLLHUP | POLLERR))
		return true;
	return recv(c->fd, &ch, 1, MSG_DONTWAIT | MSG_PEEK) == 0;
}

static void
fz_detach(struct fz_cl *c)
{
	if (c->base != NULL)
		munmap(c->base, c->size);
	if (c->wake >= 0)
		close(c->wake);
	if (c->fd >= 0)
		close(c->fd);
	memset(c, 0, sizeof(*c));
	c->fd = c->wake = -1;
}

/* Attach, a socket in slot 0 bound to ip:port, a doorbell. */
static int
fz_attach(struct fz_cl *c, const char *ip, uint16_t port)
{
	static struct rds_ctl_req q;
	static struct rds_ctl_resp r;
	struct rds_ctl_hello hello = {
		.magic = RDS_REGION_MAGIC, .version = RDS_REGION_VERSION,
	};
	struct sockaddr_in sin;
	int memfd, bell;

	memset(c, 0, sizeof(*c));
	c->wake = -1;
	c->fd = helper_connect();
	if (c->fd < 0)
		return -1;
	pump(1);
	if (fz_send(c, &hello, sizeof(hello), NULL, 0) != 0 ||
	    fz_recv(c, &r, &memfd) < (ssize_t)offsetof(struct rds_ctl_resp,
							data) + 8 ||
	    memfd < 0)
		return -1;
	memcpy(&c->size, r.data, sizeof(c->size));
	c->base = mmap(NULL, c->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       memfd, 0);
	close(memfd);
	if (c->base == MAP_FAILED) {
		c->base = NULL;
		return -1;
	}
	c->lay = ((struct rds_region_hdr *)(void *)c->base)->lay;
	memset(&q, 0, sizeof(q));
	q.op = RDS_CTL_SOCKET;
	q.handle = 0;
	if (fz_call(c, &q, &r, &c->wake) < 0)
		return -1;
	memset(&q, 0, sizeof(q));
	q.op = RDS_CTL_BIND;
	q.handle = 0;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	inet_pton(AF_INET, ip, &sin.sin_addr);
	q.len = sizeof(sin);
	memcpy(q.data, &sin, sizeof(sin));
	if (fz_call(c, &q, &r, NULL) < 0)
		return -1;
	memset(&q, 0, sizeof(q));
	q.op = RDS_CTL_BELL;
	bell = fz_call(c, &q, &r, NULL);
	if (bell < 0)
		return -1;
	rds_xring_end_init(&c->req, (void *)(c->base +
			   rds_region_csock_ring(&c->lay, 0, 0)),
			   RDS_CSOCK_REQ_RING, true);
	rds_xring_end_init(&c->rxr, (void *)(c->base +
			   rds_region_csock_ring(&c->lay, 0, 1)),
			   RDS_CSOCK_RX_RING, false);
	rds_xring_end_init(&c->bell, (void *)(c->base + c->lay.bells_off +
			   c->lay.bell_stride * (uint32_t)bell),
			   RDS_REGION_BELL_RING, true);
	rds_xring_end_init(&c->rxfree, (void *)(c->base + c->lay.rxfree_off),
			   RDS_REGION_FREE_RING, true);
	rds_xring_end_init(&c->txfree, (void *)(c->base + c->lay.txfree_off),
			   RDS_REGION_FREE_RING, false);
	return 0;
}

/* TX buffer slot of class 0 at index i. */
static uint64_t
tx_off(const struct fz_cl *c, uint32_t i)
{
	return c->lay.pool_off[RDS_POOL_TX][0] +
	       (uint64_t)(i % c->lay.pool_nb[RDS_POOL_TX][0]) *
	       rds_region_class_size[0];
}

/* ------------------------------------------------------------------ */
/* Client B: one round trip, checked */

/* Our next message from B (others', client A's, skipped): its length. */
static ssize_t
s_recv_from_b(uint8_t *buf, size_t len)
{
	struct sockaddr_in from;
	socklen_t fl;
	unsigned int i;
	ssize_t n;

	for (i = 0; i < 20000; i++) {
		fl = sizeof(from);
		n = rte_rds_recvfrom(s_sock, buf, len, MSG_DONTWAIT,
				     (struct sockaddr *)&from, &fl);
		if (n >= 0 && ntohs(from.sin_port) == B_PORT)
			return n;
		if (n < 0)
			pump(1);
	}
	return -1;
}

/* B's next message from us (others' given back): its RX buffer, or 0. */
static uint64_t
b_recv_from_s(void)
{
	struct rds_cbuf *h;
	unsigned int i;
	uint64_t off;

	for (i = 0; i < 20000; i++) {
		if (rds_xring_get(&b.rxr, &off) <= 0) {
			pump(1);
			continue;
		}
		h = (void *)(b.base + off);
		if (h->port == S_PORT)
			return off;
		rds_xring_put(&b.rxfree, off);
	}
	return 0;
}

static void
b_round_trip(void)
{
	struct sockaddr_in to;
	struct rds_cbuf *h;
	uint8_t want[B_MSG], got[B_MSG];
	uint64_t off = tx_off(&b, (uint32_t)(b_round % 8)), v;
	ssize_t n;

	/* B -> S, through B's region. */
	fz_pattern(want, sizeof(want), b_round);
	while (rds_xring_get(&b.txfree, &v) > 0)
		;
	h = (void *)(b.base + off);
	memset(h, 0, sizeof(*h));
	inet_pton(AF_INET, A_IP, &h->addr);
	h->port = S_PORT;
	h->len = B_MSG;
	memcpy((uint8_t *)h + RDS_CBUF_HDR, want, B_MSG);
	FZ_CHECK(rds_xring_put(&b.req, off) == 0, "B's request ring full");
	__atomic_store_n(&((struct rds_csock *)(void *)(b.base +
			 b.lay.socks_off))->queued, 1, __ATOMIC_SEQ_CST);
	FZ_CHECK(rds_xring_put(&b.bell, 0) == 0, "B's doorbell full");
	n = s_recv_from_b(got, sizeof(got));
	FZ_CHECK(n == B_MSG && memcmp(got, want, B_MSG) == 0,
		 "B's message to us: %zd bytes, %s", n,
		 n == B_MSG ? "other bytes" : "not that length");
	/* S -> B, into B's region. */
	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	to.sin_port = htons(B_PORT);
	inet_pton(AF_INET, B_IP, &to.sin_addr);
	fz_pattern(want, sizeof(want), ~b_round);
	FZ_CHECK(rte_rds_sendto(s_sock, want, B_MSG, MSG_DONTWAIT,
				(struct sockaddr *)&to, sizeof(to)) == B_MSG,
		 "our send to B: %s", rte_strerror(rte_errno));
	off = b_recv_from_s();
	FZ_CHECK(off != 0, "nothing came to B");
	h = (void *)(b.base + off);
	FZ_CHECK(h->len == B_MSG && memcmp((uint8_t *)h + RDS_CBUF_HDR, want,
					   B_MSG) == 0,
		 "B got %u bytes, not ours", h->len);
	rds_xring_put(&b.rxfree, off);
	/* The engine never writes a TX buffer: B's last one is as B left
	 * it. */
	fz_pattern(want, sizeof(want), b_round);
	h = (void *)(b.base + tx_off(&b, (uint32_t)(b_round % 8)));
	FZ_CHECK(memcmp((uint8_t *)h + RDS_CBUF_HDR, want, B_MSG) == 0,
		 "B's TX buffer changed");
	b_round++;
}

/* ------------------------------------------------------------------ */
/* Client A: the input's steps */

static const uint32_t ops[] = {
	RDS_CTL_HELLO, RDS_CTL_SOCKET, RDS_CTL_BIND, RDS_CTL_CONNECT,
	RDS_CTL_CLOSE, RDS_CTL_SETSOCKOPT, RDS_CTL_GETSOCKOPT,
	RDS_CTL_GETSOCKNAME, RDS_CTL_INFO, RDS_CTL_BELL, RDS_CTL_STATS,
	RDS_CTL_SENDMSG, RDS_CTL_XSTATS, RDS_CTL_INFO_DATA, 0, 999,
};
static const int32_t handles[] = { -1, 0, 1, 2, 255, 256, INT32_MIN };
static const int levels[] = { SOL_RDS, SOL_SOCKET, 0, -1 };
static const int names[] = {
	RDS_CANCEL_SENT_TO, RDS_GET_MR, RDS_FREE_MR, RDS_RECVERR,
	RDS_CONG_MONITOR, RDS_GET_MR_FOR_DEST, SO_RDS_TRANSPORT,
	SO_SNDBUF, SO_RCVBUF, SO_SNDTIMEO, RDS_INFO_COUNTERS,
	RDS_INFO_CONNECTIONS, RDS_INFO_SOCKETS, RDS_INFO_RECV_MESSAGES,
	RDS_INFO_SEND_MESSAGES, 10000, RDS_INFO_LAST + 1,
};

#define PICK(in, arr) ((arr)[fz_u8(in) % RTE_DIM(arr)])

static void
a_request(struct fz_cl *a, struct fz_in *in)
{
	static uint8_t buf[sizeof(struct rds_ctl_req) + 512];
	struct rds_ctl_req *q = (void *)buf;
	unsigned int how = fz_u8(in) % 8, nfd = 0, i;
	size_t len;
	int fds[4], p[2] = { -1, -1 };

	memset(buf, 0, sizeof(buf));
	q->op = fz_u8(in) & 0x80 ? fz_u32(in) : PICK(in, ops);
	q->handle = fz_u8(in) & 0x80 ? (int32_t)fz_u32(in) : PICK(in, handles);
	q->level = PICK(in, levels);
	q->name = fz_u8(in) & 0x80 ? (int)fz_u32(in) : PICK(in, names);
	q->len = fz_u16(in) % (RDS_CTL_MAX_DATA + 1);
	q->cap = fz_u8(in) & 0x80 ? fz_u32(in) : fz_u16(in);
	if (q->op == RDS_CTL_SENDMSG && fz_u8(in) & 1) {
		struct rds_ctl_send cs;

		fz_bytes(in, &cs, sizeof(cs));
		cs.off = fz_u8(in) & 1 ? tx_off(a, fz_u16(in)) : cs.off;
		memcpy(q->data, &cs, sizeof(cs));
	}
	fz_bytes(in, q->data + sizeof(struct rds_ctl_send),
		 RTE_MIN((size_t)q->len, (size_t)256));
	q->seq = ++a->seq;
	len = offsetof(struct rds_ctl_req, data) + q->len;
	switch (how) {
	case 0:		/* cut short */
		len = fz_u16(in) % (len + 1);
		break;
	case 1:		/* longer than any request */
		len = sizeof(struct rds_ctl_req) + 1 + fz_u8(in);
		if (len > sizeof(buf))
			len = sizeof(buf);
		break;
	case 2:		/* with descriptors */
		nfd = 1 + fz_u8(in) % 3;
		if (socketpair(AF_UNIX, SOCK_DGRAM, 0, p) != 0)
			return;
		for (i = 0; i < nfd; i++)
			fds[i] = i & 1 ? p[0] : p[1];
		break;
	default:
		break;
	}
	if (len > sizeof(buf))
		len = sizeof(buf);	/* the data part past 512 is zero */
	if (len <= sizeof(buf))
		fz_send(a, buf, len, fds, nfd);
	if (p[0] >= 0) {
		close(p[0]);
		close(p[1]);
	}
}

/* A region offset the step names: in the rings and records part, or a
 * buffer header, or anywhere. */
static uint64_t
a_offset(const struct fz_cl *a, struct fz_in *in)
{
	switch (fz_u8(in) % 4) {
	case 0:
		return fz_u32(in) % a->lay.pool_off[RDS_POOL_TX][0];
	case 1:
		return tx_off(a, fz_u16(in));
	case 2:
		return a->lay.pool_off[RDS_POOL_RX][fz_u8(in) % 4] +
		       (uint64_t)fz_u16(in) * rds_region_class_size[0];
	default:
		return fz_u64(in);
	}
}

static void
a_step(struct fz_cl *a, struct fz_in *in)
{
	uint64_t off, v;
	uint8_t bytes[64];
	size_t n;

	switch (fz_u8(in) % 8) {
	case 0:
		a_request(a, in);
		break;
	case 1:		/* any bytes anywhere in the region */
		off = a_offset(a, in);
		n = fz_bytes(in, bytes, 1 + fz_u8(in) % sizeof(bytes));
		if (off < a->size && n <= a->size - off)
			memcpy(a->base + off, bytes, n);
		break;
	case 2:		/* a request */
		v = fz_u8(in) & 1 ? tx_off(a, fz_u16(in)) : a_offset(a, in);
		rds_xring_put(&a->req, v);
		break;
	case 3:		/* a doorbell */
		rds_xring_put(&a->bell, fz_u8(in) & 1 ? 0 : fz_u64(in));
		break;
	case 4:		/* a buffer given back */
		if (fz_u8(in) & 1 && rds_xring_get(&a->rxr, &v) > 0)
			rds_xring_put(&a->rxfree, v);
		else
			rds_xring_put(&a->rxfree, a_offset(a, in));
		break;
	case 5: {	/* a ring index set to anything */
		struct rds_xring *r;

		off = fz_u8(in) % 3 == 0 ? a->lay.txfree_off :
		      fz_u8(in) & 1 ? a->lay.rxfree_off :
		      rds_region_csock_ring(&a->lay, fz_u8(in) % 4,
					    fz_u8(in) % 4);
		r = (void *)(a->base + off);
		if (fz_u8(in) & 1)
			__atomic_store_n(&r->prod, fz_u32(in), __ATOMIC_RELEASE);
		else
			__atomic_store_n(&r->cons, fz_u32(in), __ATOMIC_RELEASE);
		break;
	}
	case 6: {	/* a TX buffer filled in */
		struct rds_cbuf *h;

		off = tx_off(a, fz_u16(in));
		h = (void *)(a->base + off);
		h->len = fz_u8(in) & 1 ? fz_u32(in) : fz_u8(in);
		h->ctl_len = fz_u8(in) & 0x80 ? fz_u32(in) : 0;
		inet_pton(AF_INET, fz_u8(in) & 1 ? A_IP : B_IP, &h->addr);
		h->port = fz_u8(in) & 1 ? (uint16_t)fz_u16(in) :
			  fz_u8(in) & 1 ? S_PORT : A_PORT;
		h->csock = fz_u8(in) & 1 ? 0 : (int32_t)fz_u32(in);
		fz_attach_op(h, in);	/* an operation with it, or none */
		break;
	}
	default:
		pump(1 + fz_u8(in) % 8);
		fz_drain(a);
		break;
	}
}

/* ------------------------------------------------------------------ */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct rte_rds_server_conf sc;
	struct rte_rds_conf conf;
	struct sockaddr_in sin;

	(void)argc;
	(void)argv;
	snprintf(sock_path, sizeof(sock_path), "/tmp/rds-fz-attach-%d.sock",
		 (int)getpid());
	/* Before the EAL's threads: the helper is a plain process. */
	helper_start();
	fz_eal_init("fuzz_attach");
	rte_rds_conf_init(&conf);
	conf.engine[0].lcore_id = RTE_RDS_ENGINE_INLINE;
	if (rte_rds_conf_add_addr(&conf, A_IP, "loop", NULL) != 0 ||
	    rte_rds_conf_add_addr(&conf, B_IP, "loop", NULL) != 0 ||
	    rte_rds_init(&conf) != 0)
		fz_fail("rte_rds_init: errno %d", rte_errno);
	memset(&sc, 0, sizeof(sc));
	sc.path = sock_path;
	sc.gid = (gid_t)-1;
	sc.region_mb = 4;
	sc.keep_mb = 1;
	if (rte_rds_server_start(&sc) != 0)
		fz_fail("rte_rds_server_start: errno %d", rte_errno);
	s_sock = rte_rds_socket();
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(S_PORT);
	inet_pton(AF_INET, A_IP, &sin.sin_addr);
	if (s_sock < 0 || rte_rds_bind(s_sock, (struct sockaddr *)&sin,
				       sizeof(sin)) != 0)
		fz_fail("our socket: errno %d", rte_errno);
	if (fz_attach(&b, B_IP, B_PORT) != 0)
		fz_fail("client B cannot attach");
	b_round_trip();
	base_fds = open_fds();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rte_rds_server_stats before, after;
	struct fz_cl a;
	struct fz_in in;
	unsigned int i;

	fz_in_init(&in, data, size);
	rte_rds_server_stats_get(&before);
	FZ_CHECK(fz_attach(&a, A_IP, A_PORT) == 0, "client A cannot attach");
	for (fz_step = 0; fz_step < FZ_STEPS && !in.eof && in.left != 0;
	     fz_step++) {
		a_step(&a, &in);
		check_client_state();
	}
	pump(16);
	check_client_state();
	rte_rds_server_stats_get(&after);
	if (after.violations != before.violations) {
		/* It broke the protocol: it was let go. */
		for (i = 0; i < 100 && !fz_hung_up(&a); i++)
			pump(1);
		FZ_CHECK(fz_hung_up(&a), "a violation, and A still attached");
	}
	fz_detach(&a);
	for (i = 0; i < 100000 && rte_rds_server_clients() > 1; i++)
		pump(1);
	FZ_CHECK(rte_rds_server_clients() == 1, "A is not let go (%u polls)",
		 i);
	if (i > 1000)
		fprintf(stderr, "fuzz_attach: A let go after %u polls\n", i);
	/* Its sockets go when the engine is done with them (and their last
	 * reference to its memory descriptors with them). */
	for (i = 0; i < 1000 && open_fds() != base_fds; i++)
		pump(1);
	FZ_CHECK(open_fds() == base_fds, "the engine holds %u descriptors, "
		 "%u before", open_fds(), base_fds);
	/* Messages A sent to our socket (allowed): not B's business. */
	while (rte_rds_recvfrom(s_sock, NULL, 0, MSG_DONTWAIT | MSG_TRUNC,
				NULL, NULL) >= 0)
		;
	b_round_trip();
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The attach protocol spoken by hand (mp_proto.h).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "mp_proto.h"

int
mp_proto_connect(const char *path)
{
	struct sockaddr_un sa;
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	if (fd < 0)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int
mp_proto_attach(struct mp_proto *p, const char *path)
{
	static struct rds_ctl_resp r;
	struct rds_ctl_hello hello = {
		.magic = RDS_REGION_MAGIC, .version = RDS_REGION_VERSION,
		.pid = getpid(),
	};
	int memfd = -1;
	ssize_t n;

	memset(p, 0, sizeof(*p));
	p->fd = mp_proto_connect(path);
	if (p->fd < 0)
		return -1;
	if (send(p->fd, &hello, sizeof(hello), 0) != sizeof(hello))
		return -1;
	n = mp_proto_recv(p, &r, &memfd);
	if (n >= (ssize_t)offsetof(struct rds_ctl_resp, data) && r.ret < 0) {
		errno = r.err;
		return -1;
	}
	if (n < (ssize_t)offsetof(struct rds_ctl_resp, data) + 8 ||
	    memfd < 0) {
		errno = EPROTO;
		return -1;
	}
	memcpy(&p->size, r.data, sizeof(p->size));
	p->base = mmap(NULL, p->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       memfd, 0);
	if (p->base == MAP_FAILED) {
		close(memfd);
		return -1;
	}
	p->memfd = memfd;	/* kept: a hostile client may resize it */
	p->lay = ((struct rds_region_hdr *)(void *)p->base)->lay;
	return 0;
}

int
mp_proto_send(struct mp_proto *p, struct rds_ctl_req *q, const int *fds,
	      unsigned int nfd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 16)];
		struct cmsghdr a;
	} u;
	struct iovec iov = { .iov_base = q,
		.iov_len = offsetof(struct rds_ctl_req, data) + q->len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (nfd > 16)
		return -1;
	q->seq = ++p->seq;
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
	return sendmsg(p->fd, &mh, MSG_NOSIGNAL) < 0 ? -1 : 0;
}

ssize_t
mp_proto_recv(struct mp_proto *p, struct rds_ctl_resp *r, int *got)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr a;
	} u;
	struct iovec iov = { .iov_base = r, .iov_len = sizeof(*r) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *cm;
	ssize_t n;
	int fd = -1;

	n = recvmsg(p->fd, &mh, MSG_CMSG_CLOEXEC);
	for (cm = CMSG_FIRSTHDR(&mh); n > 0 && cm != NULL;
	     cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
			memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	if (got != NULL)
		*got = fd;
	else if (fd >= 0)
		close(fd);
	return n;
}

int
mp_proto_call(struct mp_proto *p, struct rds_ctl_req *q,
	      struct rds_ctl_resp *r, int *got)
{
	if (got != NULL)
		*got = -1;
	if (mp_proto_send(p, q, NULL, 0) != 0)
		return -2;
	if (mp_proto_recv(p, r, got) <
	    (ssize_t)offsetof(struct rds_ctl_resp, data))
		return -2;
	return r->ret;
}

int
mp_proto_socket(struct mp_proto *p, int32_t idx, const struct sockaddr_in *sin,
		int *wake)
{
	static struct rds_ctl_req q;
	static struct rds_ctl_resp r;

	memset(&q, 0, sizeof(q));
	q.op = RDS_CTL_SOCKET;
	q.handle = idx;
	if (mp_proto_call(p, &q, &r, wake) < 0)
		return -1;
	memset(&q, 0, sizeof(q));
	q.op = RDS_CTL_BIND;
	q.handle = idx;
	q.len = sizeof(*sin);
	memcpy(q.data, sin, sizeof(*sin));
	return mp_proto_call(p, &q, &r, NULL) < 0 ? -1 : 0;
}

int
mp_proto_bell(struct mp_proto *p)
{
	static struct rds_ctl_req q;
	static struct rds_ctl_resp r;

	memset(&q, 0, sizeof(q));
	q.op = RDS_CTL_BELL;
	return mp_proto_call(p, &q, &r, NULL);
}

struct rds_xring_end
mp_proto_ring(struct mp_proto *p, uint64_t off, uint32_t size, bool producer)
{
	struct rds_xring_end x;

	rds_xring_end_init(&x, (void *)(p->base + off), size, producer);
	return x;
}

int
mp_proto_sockopt(struct mp_proto *p, uint32_t op, int32_t handle, int level,
		 int name, const void *val, uint32_t len,
		 struct rds_ctl_resp *r)
{
	static struct rds_ctl_req q;

	memset(&q, 0, sizeof(q));
	q.op = op;
	q.handle = handle;
	q.level = level;
	q.name = name;
	if (op == RDS_CTL_SETSOCKOPT) {
		q.len = len;
		memcpy(q.data, val, len);
	} else {
		q.cap = len;
	}
	return mp_proto_call(p, &q, r, NULL);
}

bool
mp_proto_hung_up(struct mp_proto *p, int ms)
{
	struct pollfd pf = { .fd = p->fd, .events = POLLIN };
	char c;

	for (;;) {
		if (poll(&pf, 1, ms) <= 0)
			return false;
		if (pf.revents & (POLLHUP | POLLERR))
			return true;
		/* An answer still queued is read past. */
		if (recv(p->fd, &c, 1, MSG_DONTWAIT) == 0)
			return true;
	}
}

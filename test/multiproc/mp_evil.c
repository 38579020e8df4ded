/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A hostile client for suite multiproc: it speaks the attach protocol
 * itself (rds_region.h), gets a region, makes a socket, then breaks the
 * protocol in one way and waits to be disconnected.
 *
 *   mp_evil PATH MODE ID
 *     offset   a request naming a buffer outside its TX pool
 *     badlen   a TX buffer whose length is larger than its slot
 *     ring     a request ring whose producer claims 100000 entries
 *     bell     a doorbell naming a socket slot that does not exist
 *     double   an RX buffer given back twice (the parent sends it one
 *              message on mp_addr(ID):mp_port(ID) after "READY")
 *     foreign  an RX buffer given back that was never handed out
 *     garbage  random bytes over every ring and socket of the region
 *     call     a control call with an unknown operation
 * Prints "READY" when its socket is bound, then "DISCONNECTED" (exit 0)
 * when the engine hung up on it, or "STILL CONNECTED" (exit 1) after
 * 10 s.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <rte_common.h>

#include "rds_region.h"
#include "rds_xring.h"
#include "rds_test.h"
#include "mp_common.h"

static int fd = -1;
static uint8_t *base;
static struct rds_region_layout lay;

static int
call(struct rds_ctl_req *q, struct rds_ctl_resp *r, int pass, int *got)
{
	struct iovec iov = { .iov_base = q,
		.iov_len = offsetof(struct rds_ctl_req, data) + q->len };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr a;
	} u;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	memset(&u, 0, sizeof(u));
	if (pass >= 0) {
		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &pass, sizeof(int));
	}
	if (sendmsg(fd, &mh, MSG_NOSIGNAL) < 0)
		return -1;
	iov.iov_base = r;
	iov.iov_len = sizeof(*r);
	mh.msg_control = u.buf;
	mh.msg_controllen = sizeof(u.buf);
	if (recvmsg(fd, &mh, 0) < (ssize_t)offsetof(struct rds_ctl_resp, data))
		return -1;
	if (got != NULL) {
		*got = -1;
		for (cm = CMSG_FIRSTHDR(&mh); cm != NULL;
		     cm = CMSG_NXTHDR(&mh, cm))
			if (cm->cmsg_type == SCM_RIGHTS)
				memcpy(got, CMSG_DATA(cm), sizeof(int));
	}
	return r->ret;
}

static bool
hung_up(int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c;

	if (poll(&p, 1, ms) <= 0)
		return false;
	if (p.revents & (POLLHUP | POLLERR))
		return true;
	return recv(fd, &c, 1, MSG_DONTWAIT) == 0;
}

static struct rds_xring_end
end_of(uint64_t off, uint32_t size, bool producer)
{
	struct rds_xring_end x;

	rds_xring_end_init(&x, (void *)(base + off), size, producer);
	return x;
}

int
main(int argc, char **argv)
{
	static struct rds_ctl_req q;
	static struct rds_ctl_resp r;
	struct sockaddr_un sa;
	struct rds_ctl_hello hello;
	struct sockaddr_in sin;
	struct rds_xring_end req, bell, rxr, rxfree;
	const char *mode;
	uint64_t size, off, v;
	unsigned int id, i;
	int memfd, efd, bellno;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 4)
		return 1;
	mode = argv[2];
	id = (unsigned int)atoi(argv[3]);
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", argv[1]);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		perror("connect");
		return 1;
	}
	hello.magic = RDS_REGION_MAGIC;
	hello.version = RDS_REGION_VERSION;
	hello.pid = getpid();
	if (send(fd, &hello, sizeof(hello), 0) != sizeof(hello))
		return 1;
	{
		struct iovec iov = { .iov_base = &r, .iov_len = sizeof(r) };
		union {
			char buf[CMSG_SPACE(sizeof(int))];
			struct cmsghdr a;
		} u;
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = u.buf, .msg_controllen = sizeof(u.buf) };

		if (recvmsg(fd, &mh, 0) <= 0 || CMSG_FIRSTHDR(&mh) == NULL)
			return 1;
		memcpy(&memfd, CMSG_DATA(CMSG_FIRSTHDR(&mh)), sizeof(int));
		memcpy(&size, r.data, sizeof(size));
	}
	base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	if (base == MAP_FAILED)
		return 1;
	lay = ((struct rds_region_hdr *)(void *)base)->lay;
	if (strcmp(mode, "call") == 0) {
		memset(&q, 0, sizeof(q));
		q.op = 999;
		call(&q, &r, -1, NULL);
		goto wait;
	}
	memset(&q, 0, sizeof(q));
	q.op = RDS_CTL_SOCKET;
	q.handle = 0;
	if (call(&q, &r, -1, &efd) < 0) {
		printf("socket refused\n");
		return 1;
	}
	sin = mp_sin(id);
	memset(&q, 0, sizeof(q));
	q.op = RDS_CTL_BIND;
	q.handle = 0;
	q.len = sizeof(sin);
	memcpy(q.data, &sin, sizeof(sin));
	if (call(&q, &r, -1, NULL) < 0) {
		printf("bind refused (%d)\n", r.err);
		return 1;
	}
	memset(&q, 0, sizeof(q));
	q.op = RDS_CTL_BELL;
	bellno = call(&q, &r, -1, NULL);
	if (bellno < 0)
		return 1;
	req = end_of(rds_region_csock_ring(&lay, 0, 0), RDS_CSOCK_REQ_RING,
		     true);
	rxr = end_of(rds_region_csock_ring(&lay, 0, 1), RDS_CSOCK_RX_RING,
		     false);
	bell = end_of(lay.bells_off + lay.bell_stride * (uint32_t)bellno,
		      RDS_REGION_BELL_RING, true);
	rxfree = end_of(lay.rxfree_off, RDS_REGION_FREE_RING, true);
	printf("READY\n");
	if (strcmp(mode, "offset") == 0) {
		rds_xring_put(&req, size + 4096);
		rds_xring_put(&bell, 0);
	} else if (strcmp(mode, "badlen") == 0) {
		struct rds_cbuf *b;

		off = lay.pool_off[RDS_POOL_TX][0];
		b = (void *)(base + off);
		memset(b, 0, sizeof(*b));
		b->len = 1u << 30;
		b->addr = sin.sin_addr.s_addr;
		b->port = 1;
		rds_xring_put(&req, off);
		rds_xring_put(&bell, 0);
	} else if (strcmp(mode, "ring") == 0) {
		struct rds_xring *x = (void *)(base +
			rds_region_csock_ring(&lay, 0, 0));

		__atomic_store_n(&x->prod, x->cons + 100000, __ATOMIC_RELEASE);
		rds_xring_put(&bell, 0);
	} else if (strcmp(mode, "bell") == 0) {
		rds_xring_put(&bell, 100000);
	} else if (strcmp(mode, "double") == 0 ||
		   strcmp(mode, "foreign") == 0) {
		if (strcmp(mode, "double") == 0) {
			/* The parent sends one message. */
			for (i = 0; i < 10000; i++) {
				if (rds_xring_get(&rxr, &off) > 0)
					break;
				usleep(1000);
			}
			if (i == 10000) {
				printf("no message came\n");
				return 1;
			}
			rds_xring_put(&rxfree, off);
			rds_xring_put(&rxfree, off);
		} else {
			rds_xring_put(&rxfree,
				      lay.pool_off[RDS_POOL_RX][1] +
				      rds_region_class_size[1]);
		}
	} else if (strcmp(mode, "garbage") == 0) {
		uint64_t rng = 42, *p;
		uint64_t from = lay.socks_off, to = lay.pool_off[RDS_POOL_TX][0];

		for (p = (void *)(base + from); (uint8_t *)p < base + to; p++)
			*p = rds_test_rand(&rng);
		v = 0;
		rds_xring_put(&bell, v);
	} else {
		printf("unknown mode %s\n", mode);
		return 1;
	}
wait:
	if (hung_up(10000)) {
		printf("DISCONNECTED\n");
		return 0;
	}
	printf("STILL CONNECTED\n");
	return 1;
}

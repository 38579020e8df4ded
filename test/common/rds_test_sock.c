/* SPDX-License-Identifier: BSD-3-Clause */
/* rds_test.h's sockets and addresses: names of either family, sockets
 * bound for a test, send, receive and wait. */

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/uio.h>

#include <rte_errno.h>

#include "rds_test.h"

/* ------------------------------------------------------------------ */
/* Sockets */

struct sockaddr_in
rds_test_sin(const char *ip, uint16_t port)
{
	struct sockaddr_in sin;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	if (inet_pton(AF_INET, ip, &sin.sin_addr) != 1)
		sin.sin_addr.s_addr = htonl(INADDR_NONE);
	return sin;
}

bool
rds_test_sin_eq(const struct sockaddr_in *a, const struct sockaddr_in *b)
{
	return a->sin_family == b->sin_family &&
	       a->sin_addr.s_addr == b->sin_addr.s_addr &&
	       a->sin_port == b->sin_port;
}

const char *
rds_test_sin_str(const struct sockaddr_in *a, char *buf, size_t size)
{
	char ip[INET_ADDRSTRLEN];

	if (inet_ntop(AF_INET, &a->sin_addr, ip, sizeof(ip)) == NULL)
		snprintf(ip, sizeof(ip), "?");
	snprintf(buf, size, "%s:%u%s", ip, ntohs(a->sin_port),
		 a->sin_family == AF_INET ? "" : "(!AF_INET)");
	return buf;
}

union rds_test_addr
rds_test_addr(const char *ip, uint16_t port)
{
	union rds_test_addr a;
	char buf[INET6_ADDRSTRLEN + IF_NAMESIZE + 2];
	char *pct, *end;
	unsigned long idx;

	memset(&a, 0, sizeof(a));
	if (inet_pton(AF_INET, ip, &a.in.sin_addr) == 1) {
		a.in.sin_family = AF_INET;
		a.in.sin_port = htons(port);
		return a;
	}
	snprintf(buf, sizeof(buf), "%s", ip);
	pct = strchr(buf, '%');
	if (pct != NULL)
		*pct++ = '\0';
	if (inet_pton(AF_INET6, buf, &a.in6.sin6_addr) != 1)
		return a;	/* AF_UNSPEC */
	a.in6.sin6_family = AF_INET6;
	a.in6.sin6_port = htons(port);
	if (pct != NULL) {
		idx = strtoul(pct, &end, 10);
		a.in6.sin6_scope_id = (*end == '\0' && end != pct) ?
			(uint32_t)idx : if_nametoindex(pct);
	}
	return a;
}

socklen_t
rds_test_addr_len(const union rds_test_addr *a)
{
	return a->sa.sa_family == AF_INET6 ? sizeof(a->in6) : sizeof(a->in);
}

bool
rds_test_addr_eq(const union rds_test_addr *a, const union rds_test_addr *b)
{
	if (a->sa.sa_family != b->sa.sa_family)
		return false;
	if (a->sa.sa_family == AF_INET6)
		return memcmp(&a->in6.sin6_addr, &b->in6.sin6_addr, 16) == 0 &&
		       a->in6.sin6_port == b->in6.sin6_port;
	return rds_test_sin_eq(&a->in, &b->in);
}

const char *
rds_test_addr_str(const union rds_test_addr *a, char *buf, size_t size)
{
	char ip[INET6_ADDRSTRLEN];

	if (a->sa.sa_family != AF_INET6)
		return rds_test_sin_str(&a->in, buf, size);
	if (inet_ntop(AF_INET6, &a->in6.sin6_addr, ip, sizeof(ip)) == NULL)
		snprintf(ip, sizeof(ip), "?");
	if (a->in6.sin6_scope_id != 0)
		snprintf(buf, size, "[%s%%%u]:%u", ip, a->in6.sin6_scope_id,
			 ntohs(a->in6.sin6_port));
	else
		snprintf(buf, size, "[%s]:%u", ip, ntohs(a->in6.sin6_port));
	return buf;
}

int
rds_test_socket(const char *ip, uint16_t port, int sndbuf, int rcvbuf)
{
	return rds_test_socket_trans(ip, port, sndbuf, rcvbuf, -1);
}

int
rds_test_socket_trans(const char *ip, uint16_t port, int sndbuf, int rcvbuf,
		      int trans)
{
	union rds_test_addr sin = rds_test_addr(ip, port);
	int s, err;

	s = rte_rds_socket();
	if (s < 0) {
		printf("rte_rds_socket: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	if (trans >= 0 &&
	    rte_rds_setsockopt(s, SOL_RDS, SO_RDS_TRANSPORT, &trans,
			       sizeof(trans)) != 0) {
		printf("SO_RDS_TRANSPORT %d: %s\n", trans,
		       rte_strerror(rte_errno));
		goto fail;
	}
	if (sndbuf > 0 &&
	    rte_rds_setsockopt(s, SOL_SOCKET, SO_SNDBUF, &sndbuf,
			       sizeof(sndbuf)) != 0) {
		printf("SO_SNDBUF %d: %s\n", sndbuf, rte_strerror(rte_errno));
		goto fail;
	}
	if (rcvbuf > 0 &&
	    rte_rds_setsockopt(s, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
			       sizeof(rcvbuf)) != 0) {
		printf("SO_RCVBUF %d: %s\n", rcvbuf, rte_strerror(rte_errno));
		goto fail;
	}
	if (rte_rds_bind(s, &sin.sa, rds_test_addr_len(&sin)) != 0) {
		printf("rte_rds_bind(%s:%u): %s\n", ip, port,
		       rte_strerror(rte_errno));
		goto fail;
	}
	return s;
fail:
	err = rte_errno;
	rte_rds_close(s);
	rte_errno = err;
	return -1;
}

/* sendmsg of one iovec to to (tolen bytes), with ctl of clen bytes
 * (none if 0). */
static ssize_t
send_name(int s, const void *buf, size_t len, const void *to,
	  socklen_t tolen, void *ctl, size_t clen, int flags)
{
	struct iovec iov = { .iov_base = (void *)(uintptr_t)buf,
			     .iov_len = len };
	struct msghdr mh;

	memset(&mh, 0, sizeof(mh));
	mh.msg_name = (void *)(uintptr_t)to;
	mh.msg_namelen = to != NULL ? tolen : 0;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = clen > 0 ? ctl : NULL;
	mh.msg_controllen = clen;
	return rte_rds_sendmsg(s, &mh, flags);
}

static ssize_t
send_one(int s, const void *buf, size_t len, const struct sockaddr_in *to,
	 void *ctl, size_t clen, int flags)
{
	return send_name(s, buf, len, to, sizeof(*to), ctl, clen, flags);
}

ssize_t
rds_test_send(int s, const void *buf, size_t len,
	      const struct sockaddr_in *to, int flags)
{
	return send_one(s, buf, len, to, NULL, 0, flags);
}

ssize_t
rds_test_send_to(int s, const void *buf, size_t len,
		 const union rds_test_addr *to, int flags)
{
	return send_name(s, buf, len, to, to != NULL ? rds_test_addr_len(to) :
			 0, NULL, 0, flags);
}

ssize_t
rds_test_send_cmsg(int s, const void *buf, size_t len,
		   const struct sockaddr_in *to, int level, int type,
		   const void *data, size_t dlen, int flags)
{
	union {
		struct cmsghdr h;
		uint8_t b[CMSG_SPACE(RDS_TEST_CMSG_MAX)];
	} cbuf;
	struct msghdr mh;
	struct cmsghdr *cm;

	if (dlen > RDS_TEST_CMSG_MAX) {
		rte_errno = EINVAL;
		errno = EINVAL;
		return -1;
	}
	memset(&cbuf, 0, sizeof(cbuf));
	memset(&mh, 0, sizeof(mh));
	mh.msg_control = cbuf.b;
	mh.msg_controllen = CMSG_SPACE(dlen);
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = level;
	cm->cmsg_type = type;
	cm->cmsg_len = CMSG_LEN(dlen);
	if (data != NULL && dlen > 0)
		memcpy(CMSG_DATA(cm), data, dlen);
	return send_one(s, buf, len, to, cbuf.b, CMSG_SPACE(dlen), flags);
}

ssize_t
rds_test_recv(int s, void *buf, size_t len, struct sockaddr_in *from,
	      int flags, int *msg_flags)
{
	return rds_test_recv_ctl(s, buf, len, from, flags, NULL, NULL,
				 msg_flags);
}

static ssize_t
recv_name(int s, void *buf, size_t len, union rds_test_addr *from,
	  int flags, void *ctl, size_t *clen, int *msg_flags)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	union rds_test_addr sin;
	struct msghdr mh;
	ssize_t r;

	memset(&sin, 0, sizeof(sin));
	memset(&mh, 0, sizeof(mh));
	mh.msg_name = &sin;
	mh.msg_namelen = sizeof(sin);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (clen != NULL && *clen > 0) {
		mh.msg_control = ctl;
		mh.msg_controllen = *clen;
	}
	r = rte_rds_recvmsg(s, &mh, flags);
	if (r >= 0) {
		if (from != NULL)
			*from = sin;
		if (msg_flags != NULL)
			*msg_flags = mh.msg_flags;
		if (clen != NULL)
			*clen = mh.msg_controllen;
	}
	return r;
}

ssize_t
rds_test_recv_ctl(int s, void *buf, size_t len, struct sockaddr_in *from,
		  int flags, void *ctl, size_t *clen, int *msg_flags)
{
	union rds_test_addr a;
	ssize_t r;

	r = recv_name(s, buf, len, &a, flags, ctl, clen, msg_flags);
	if (r >= 0 && from != NULL)
		*from = a.in;
	return r;
}

ssize_t
rds_test_recv_from(int s, void *buf, size_t len, union rds_test_addr *from,
		   int flags, int *msg_flags)
{
	return recv_name(s, buf, len, from, flags, NULL, NULL, msg_flags);
}

ssize_t
rds_test_wait_msg(int s, void *buf, size_t len, struct sockaddr_in *from,
		  unsigned int timeout_ms)
{
	return rds_test_wait_msg_ctl(s, buf, len, from, NULL, NULL,
				     timeout_ms);
}

static ssize_t
wait_name(int s, void *buf, size_t len, union rds_test_addr *from,
	  void *ctl, size_t *clen, unsigned int timeout_ms);

ssize_t
rds_test_wait_msg_from(int s, void *buf, size_t len,
		       union rds_test_addr *from, unsigned int timeout_ms)
{
	return wait_name(s, buf, len, from, NULL, NULL, timeout_ms);
}

ssize_t
rds_test_wait_msg_ctl(int s, void *buf, size_t len, struct sockaddr_in *from,
		      void *ctl, size_t *clen, unsigned int timeout_ms)
{
	union rds_test_addr a;
	ssize_t r;

	r = wait_name(s, buf, len, &a, ctl, clen, timeout_ms);
	if (r >= 0 && from != NULL)
		*from = a.in;
	return r;
}

static ssize_t
wait_name(int s, void *buf, size_t len, union rds_test_addr *from,
	  void *ctl, size_t *clen, unsigned int timeout_ms)
{
	uint64_t t0 = rds_test_now_ns();
	uint64_t limit = (uint64_t)timeout_ms * 1000000ULL, spent;
	struct rte_rds_pollfd p = { .sock = s, .events = POLLIN };
	ssize_t r;

	for (;;) {
		r = recv_name(s, buf, len, from, MSG_DONTWAIT, ctl, clen,
			      NULL);
		if (r >= 0 || rte_errno != EAGAIN)
			return r;
		spent = rds_test_now_ns() - t0;
		if (spent >= limit)
			break;
		if (rds_test_inline_engines() > 0) {
			rds_test_kick();
		} else {
			p.revents = 0;
			/* At most 10 ms a wait: the deadline stays close. */
			rte_rds_poll(&p, 1, RTE_MIN(10,
				(int)((limit - spent) / 1000000ULL) + 1));
		}
	}
	printf("  TIMEOUT: no message on socket %d in %u ms\n", s, timeout_ms);
	rte_errno = ETIMEDOUT;
	errno = ETIMEDOUT;
	return -1;
}

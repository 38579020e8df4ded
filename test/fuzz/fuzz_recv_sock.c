/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_recv: the socket side of an input (fuzz_recv_sock.h): receives
 * in the ways a program makes them (whole, into a small buffer and
 * control space, MSG_PEEK first, rte_rds_recv_burst), each message
 * handed to the oracle with what recvmsg said about it (source,
 * MSG_TRUNC, the RDMA_DEST cookie), and the receive calls' own contract
 * checked (errno, MSG_PEEK showing the next message).
 */
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "fuzz_common.h"
#include "fuzz_oracle.h"
#include "fuzz_recv_sock.h"
#include "rds_private.h"

static uint8_t rbuf[FZ_MAX_MSG + 64];
static uint8_t pbuf[FZ_MAX_MSG + 64];


/* One recvmsg; returns false when nothing was queued. */
static bool
recv_one(int h, int oi, unsigned int i, size_t cap, size_t ctl_cap,
	 bool peek_first)
{
	uint8_t ctl[CMSG_SPACE(sizeof(uint64_t)) + 32];
	struct sockaddr_in from, from2;
	struct msghdr msg;
	struct iovec iov;
	struct cmsghdr *cm;
	enum fo_cookie ck = FO_CK_UNKNOWN;
	uint64_t cookie = 0;
	ssize_t ret, ret2 = 0;
	uint32_t copied;

	ctl_cap = RTE_MIN(ctl_cap, sizeof(ctl));
	if (peek_first) {
		memset(&msg, 0, sizeof(msg));
		iov.iov_base = pbuf;
		iov.iov_len = cap;
		msg.msg_name = &from2;
		msg.msg_namelen = sizeof(from2);
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		ret2 = rte_rds_recvmsg(h, &msg,
				       MSG_DONTWAIT | MSG_PEEK | MSG_TRUNC);
		if (ret2 < 0) {
			FZ_CHECK(errno == EAGAIN, "recvmsg peek: errno %d",
				 errno);
			return false;
		}
	}
	memset(&msg, 0, sizeof(msg));
	iov.iov_base = rbuf;
	iov.iov_len = cap;
	msg.msg_name = &from;
	msg.msg_namelen = sizeof(from);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = ctl_cap != 0 ? ctl : NULL;
	msg.msg_controllen = ctl_cap;
	ret = rte_rds_recvmsg(h, &msg, MSG_DONTWAIT | MSG_TRUNC);
	if (ret < 0) {
		FZ_CHECK(errno == EAGAIN && !peek_first,
			 "recvmsg: errno %d%s", errno,
			 peek_first ? " after a successful MSG_PEEK" : "");
		return false;
	}
	FZ_CHECK(msg.msg_namelen == sizeof(from) && from.sin_family == AF_INET,
		 "socket %u: a message without a source (a notification on a "
		 "socket that asked for none?)", i);
	copied = (uint32_t)RTE_MIN((size_t)ret, cap);
	FZ_CHECK(((msg.msg_flags & MSG_TRUNC) != 0) == ((size_t)ret > cap),
		 "socket %u: MSG_TRUNC %s for %zd bytes into %zu", i,
		 (msg.msg_flags & MSG_TRUNC) ? "set" : "not set", ret, cap);
	if (peek_first)
		FZ_CHECK(ret2 == ret && from2.sin_port == from.sin_port &&
			 from2.sin_addr.s_addr == from.sin_addr.s_addr &&
			 memcmp(pbuf, rbuf, copied) == 0,
			 "socket %u: MSG_PEEK showed another message than the "
			 "next receive took", i);
	if (ctl_cap >= CMSG_SPACE(sizeof(uint64_t)) &&
	    !(msg.msg_flags & MSG_CTRUNC)) {
		ck = FO_CK_NONE;
		for (cm = CMSG_FIRSTHDR(&msg); cm != NULL;
		     cm = CMSG_NXTHDR(&msg, cm)) {
			if (cm->cmsg_level != SOL_RDS)
				continue;
			FZ_CHECK(cm->cmsg_type == RDS_CMSG_RDMA_DEST &&
				 cm->cmsg_len == CMSG_LEN(sizeof(uint64_t)),
				 "socket %u: unexpected control message type "
				 "%d", i, cm->cmsg_type);
			FZ_CHECK(ck == FO_CK_NONE, "socket %u: two RDMA_DEST "
				 "control messages", i);
			memcpy(&cookie, CMSG_DATA(cm), sizeof(cookie));
			ck = FO_CK_SOME;
		}
	}
	FZ_TRACE("socket %u received %zd bytes from port %u%s", i, ret,
		 ntohs(from.sin_port), ck == FO_CK_SOME ? " with a cookie" : "");
	fo_received(oi, from.sin_addr.s_addr, ntohs(from.sin_port),
		    rbuf, copied, (uint32_t)ret, ck, cookie);
	return true;
}

void
fz_recv_full(int h, int oi, unsigned int i, unsigned int max)
{
	while (max-- > 0 && recv_one(h, oi, i, sizeof(rbuf), CMSG_SPACE(8), false))
		;
}

/* rte_rds_recv_burst: the message handed out, then freed. */
static void
recv_burst(int h, int oi, uint16_t n)
{
	struct rte_rds_msg *ms[8];
	struct sockaddr_in from;
	uint16_t got, k;

	got = rte_rds_recv_burst(h, ms, RTE_MIN(n, (uint16_t)8));
	for (k = 0; k < got; k++) {
		rte_rds_msg_src(ms[k], &from);
		fo_received(oi, from.sin_addr.s_addr,
			    ntohs(from.sin_port), rte_rds_msg_data(ms[k]),
			    rte_rds_msg_len(ms[k]), rte_rds_msg_len(ms[k]),
			    FO_CK_UNKNOWN, 0);
		rte_rds_msg_free(ms[k]);
	}
}

/* Receive: socket, way (whole, small buffer and control space, peek
 * first, burst), how many. */
void
fz_op_recv(struct fz_in *in, const int *s, const int *si)
{
	uint8_t b = fz_u8(in);
	unsigned int i = b % 4, n = (b >> 4) + 1;
	size_t cap;

	switch ((b >> 2) & 3) {
	case 0:
		while (n-- > 0 && recv_one(s[i], si[i], i, sizeof(rbuf), CMSG_SPACE(8),
					   false))
			;
		break;
	case 1:
		cap = fz_u8(in);
		while (n-- > 0 && recv_one(s[i], si[i], i, cap, fz_u8(in) % 48, false))
			;
		break;
	case 2:
		cap = fz_u16(in) % 4097;
		while (n-- > 0 && recv_one(s[i], si[i], i, cap, CMSG_SPACE(8), true))
			;
		break;
	default:
		recv_burst(s[i], si[i], (uint16_t)n);
		break;
	}
}

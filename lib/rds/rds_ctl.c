/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One message on the UNIX socket between an attached process and its
 * engine (rds_region.h), with at most one file descriptor passed along
 * (SCM_RIGHTS): what the client (rds_client.c) and the engine
 * (rds_server_ctl.c) both send and receive with.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "rds_region.h"

union rds_ctl_cmsg {
	char buf[CMSG_SPACE(sizeof(int))];
	struct cmsghdr align;
};

int
rds_ctl_send(int fd, const void *buf, size_t len, int pass_fd, int flags)
{
	struct iovec iov = { .iov_base = (void *)(uintptr_t)buf,
			     .iov_len = len };
	union rds_ctl_cmsg u;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (pass_fd >= 0) {
		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &pass_fd, sizeof(int));
	}
	while (sendmsg(fd, &mh, MSG_NOSIGNAL | flags) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

ssize_t
rds_ctl_recv(int fd, void *buf, size_t len, int *got_fd)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	union rds_ctl_cmsg u;
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *cm;
	ssize_t n;
	int got = -1;

	if (got_fd != NULL)
		*got_fd = -1;
	memset(&u, 0, sizeof(u));
	n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
	if (n <= 0)
		return n == 0 ? -ECONNRESET : -errno;
	/* The first descriptor is the one; any other is closed. */
	for (cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm)) {
		size_t i, k;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < k; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int),
			       sizeof(int));
			if (got < 0)
				got = fd;
			else
				close(fd);
		}
	}
	if (got_fd != NULL)
		*got_fd = got;
	else if (got >= 0)
		close(got);
	return n;
}

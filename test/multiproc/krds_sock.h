/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the AF_RDS programs of the multiproc suite (krds_*.c, run on the
 * kernel's RDS and under the preload alike) share: an IPv4 address and
 * a bound RDS socket, with plain socket calls only.
 */
#ifndef KRDS_SOCK_H
#define KRDS_SOCK_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef AF_RDS
#define AF_RDS 21
#endif

static inline struct sockaddr_in
sin_of(const char *ip, uint16_t port)
{
	struct sockaddr_in s = { .sin_family = AF_INET,
				 .sin_port = htons(port) };

	inet_pton(AF_INET, ip, &s.sin_addr);
	return s;
}

/* An RDS socket bound to ip:port, or -1 with socket's or bind's errno. */
static inline int
krds_bound(const char *ip, uint16_t port)
{
	struct sockaddr_in s = sin_of(ip, port);
	int fd = socket(AF_RDS, SOCK_SEQPACKET, 0);

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&s, sizeof(s)) != 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

#endif

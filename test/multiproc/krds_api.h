/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * krds_api: what its files share (krds_api.c has what the program
 * checks): the CHECK macro and its count, the helpers, and the checks
 * each file has.
 */
#ifndef KRDS_API_H
#define KRDS_API_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/rds.h>


#ifndef AF_RDS
#define AF_RDS 21
#endif
#ifndef SOL_RDS
#define SOL_RDS 276
#endif

#include "krds_sock.h"

#ifndef AF_RDS
#define AF_RDS 21
#endif
#ifndef SOL_RDS
#define SOL_RDS 276
#endif

extern unsigned int fails;
extern bool kernel;	/* KRDS_API_KERNEL=1: the kernel's own sharing rules */

#define CHECK(cond, what) do { \
		if (cond) { \
			printf("ok   %s\n", what); \
		} else { \
			printf("FAIL %s (errno %d: %s)\n", what, errno, \
			       strerror(errno)); \
			fails++; \
		} \
	} while (0)

/* krds_api.c: helpers */
int bound_elsewhere(const char *ip, uint16_t port);
bool cong_spurious(int fd);
int readable(int fd, int ms);
bool pass_one(int s, const char *ip, uint16_t port, int r);
const char * pipe_has(int rfd, char *buf, size_t len);
void fds_open(bool *open, int max);
int fd_table_size(void);

/* krds_api_fds.c: descriptors are the program's */
void check_dup2_over(const char *ipb, uint16_t port, int sa);
void check_double_close(const char *ipb, uint16_t port, int sa);
void check_nonblock_shared(const char *ipb, uint16_t port);
void check_not_mine(const char *ipb, uint16_t port, int sa);
void check_select_big(const char *ipb, uint16_t port, int sa);
void check_closefrom(const char *ipb, uint16_t port, int sa);
void check_own_numbers(const char *ipb, uint16_t port);
void check_fioclex(const char *ipb, uint16_t port);

/* krds_api_proc.c: fork, vfork, getpeername, close racing other threads */
void check_child_keeps_nothing(const char *ipb, uint16_t port);
void check_getpeername(const char *ipb, uint16_t port, const char *ipa,
		  uint16_t aport);
void check_vfork(const char *ipb, uint16_t port, int sa);
void check_close_race(const char *ipb, uint16_t port);
void check_close_reuse(const char *ipb, uint16_t port);

/* krds_api_epoll.c: edge-triggered and one-shot epoll */
void check_epoll_edge(const char *ipb, uint16_t port, int sa);

#endif /* KRDS_API_H */

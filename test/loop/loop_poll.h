/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the sources of loop_poll share (loop_poll.c says what the binary
 * tests): includes, the helpers of loop_poll.c, the tests of the other.
 */
#ifndef RDS_LOOP_POLL_H
#define RDS_LOOP_POLL_H

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>

#include <CUnit/CUnit.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_rds.h>

#include "rds_test.h"

#define MSG 1024
#define SMALL_RCVBUF 16384

/* Helpers (loop_poll.c). */

int lib_up_inline(void);
int lib_up_lcore(void);
uint64_t ms_since(uint64_t t0);
/* One rte_rds_poll() on one socket; *rev gets revents. */
int poll1(int s, short events, int timeout_ms, short *rev);
/*
 * Call rte_rds_poll() until revents has one of the bits in want or the
 * time is up; *calls counts the calls (1 when the first call waited as
 * it should). Returns the last revents.
 */
short poll_until(int s, short events, short want, unsigned int timeout_ms,
		 unsigned int *calls);
/*
 * Inline engine: send MSG-byte messages from a to *to, polling the
 * engine after each, until the destination port is congested (ENOBUFS).
 * Returns the number accepted; *err gets the error that stopped it.
 */
uint64_t congest(int a, const struct sockaddr_in *to, int *err);
/* Read from b until fewer than rcvbuf / 2 bytes of the *queued MSG-byte
 * messages are left (the kernel's uncongestion point). */
bool drain_below_half(int b, uint64_t *queued, int rcvbuf);

/* The tests of loop_poll_notify.c. */
void test_event_fd_epoll(void);
void test_cong_monitor(void);
void test_recverr_opt(void);
void test_timeouts(void);

#endif /* RDS_LOOP_POLL_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the race_close sources share: the helper thread that makes the
 * posted call, the library's set-up, a round's race and its checks
 * (race_close.c), and the test cases (race_close_recv.c,
 * race_close_poll.c).
 */
#ifndef RACE_CLOSE_H_
#define RACE_CLOSE_H_

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <CUnit/CUnit.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_rds.h>
#include <rte_rds_loop.h>

#include "rds_test.h"

enum job_kind {
	JOB_RECV = 1,		/* blocking recvmsg on s */
	JOB_SEND,		/* blocking sendmsg of len bytes on s to to */
	JOB_POLL,		/* rte_rds_poll(s, events, timeout_ms) */
	JOB_ARM_LOOP,		/* event_arm / poll on s until the handle fails */
	JOB_INFO_LOOP,		/* RDS_INFO_* on s until stop */
	JOB_QUIT,
};

/* Ports: one per role, so that tests never meet each other's traffic. */
#define PORT_A 4001
#define PORT_B 4002
#define PORT_TX 5001
#define PORT_Q 5002
#define PORT_INFO_BASE 4100
#define INFO_PORTS 64
#define INFO_MSGS 4
#define INFO_LEN 100

/* One helper thread, registered with the EAL, that runs posted jobs. */
struct helper {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	/* Set by the test thread under mu before posting. */
	enum job_kind kind;
	int s;
	short events;
	int timeout_ms;
	uint32_t len;
	struct sockaddr_in to;
	uint64_t posted;
	/* Set by the helper (atomics). */
	uint64_t started;
	uint64_t done;
	uint64_t iters;
	int stop;		/* loop jobs: end now (set by the test) */
	/* Results, read once done == posted. */
	ssize_t ret;
	int err;
	short revents;
	uint8_t data[64];
	uint64_t records;	/* info loop: records checked */
	uint64_t enospc;
	bool bad;
	char why[256];
};

extern struct helper helper;
extern unsigned int rounds;

void helper_post(struct helper *h, enum job_kind kind, int s);
bool helper_done(struct helper *h);
void helper_wait(struct helper *h, const char *what);
void lib_up(bool inline_engine, const char *what);
int lib_up_tx(bool inline_engine, const char *what);
void lib_down(void);
/* Count a failed round, print the first few. */
void round_fail(unsigned int *fails, unsigned int round, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
bool
post_and_close(enum job_kind job, int s, uint64_t *rng, const char *what,
	       unsigned int *fails, unsigned int round);
void
check_closed_poll(unsigned int *fails, unsigned int round, const char *call);

/* The two cases of a test: engine inline, engine on its own lcore. */
#define RACE_CASES(fn) \
	void test_##fn##_inline(void) { fn(true, #fn "_inline"); } \
	void test_##fn##_lcore(void) { fn(false, #fn "_lcore"); }

/* race_close.c: (a) recv_close, (d) poll_close; race_close_recv.c: (b),
 * (c); race_close_poll.c: the rest of (d), (e). */
void test_recv_close_inline(void);
void test_recv_close_lcore(void);
void test_recv_close_reuse_inline(void);
void test_recv_close_reuse_lcore(void);
void test_send_close_reuse_inline(void);
void test_send_close_reuse_lcore(void);
void test_poll_close_inline(void);
void test_poll_close_lcore(void);
void test_poll_close_reuse_inline(void);
void test_poll_close_reuse_lcore(void);
void test_arm_close_inline(void);
void test_arm_close_lcore(void);
void test_info_close_inline(void);
void test_info_close_lcore(void);

#endif /* RACE_CLOSE_H_ */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the race_stress sources share: the pool of handles, the socket
 * incarnations, the workers and their counts (race_stress.c, with the
 * run and its checks), and the random calls (race_stress_msg.c: socket,
 * bind, close, messages, readiness; race_stress_opt.c: options, info,
 * rebind, engine polls).
 */
#ifndef RACE_STRESS_H_
#define RACE_STRESS_H_

#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <CUnit/CUnit.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_rds.h>

#include "rds_test.h"

#define NTHREADS 6
#define NPOOL 16
#define MAXH 128		/* conf.max_sockets: handles stay below */
#define NADDR 4

#define PORT_UNBOUND 6000	/* PORT_UNBOUND.. +99: never bound */
#define RXMAP 1024		/* sender incarnations tracked per receiver */
#define MAXLEN 65536
#define INFO_BUF (512u << 10)

#define TIMEO_MS 5		/* SO_SNDTIMEO, SO_RCVTIMEO: 1..TIMEO_MS */
#define MAGIC 0x52414345u	/* "RACE" */

struct race_hdr {
	uint32_t magic;
	uint32_t len;		/* the whole payload */
	uint64_t dst_inc;	/* 0: sent to a port nobody binds */
	uint64_t src_inc;
	uint64_t seq;
	uint16_t dst_port;
	uint16_t src_port;
	uint8_t dst_addr;
	uint8_t src_addr;
	uint8_t pad[2];
};

enum op {
	OP_CREATE,
	OP_CLOSE,
	OP_CLOSE_ANY,
	OP_SEND,
	OP_SEND_BLOCK,
	OP_RECV,
	OP_RECV_BLOCK,
	OP_BURST,
	OP_POLL,
	OP_ARM,
	OP_SETOPT,
	OP_GETOPT,
	OP_INFO,
	OP_REBIND,
	OP_KICK,
	NOPS
};

/* Index of each errno of err_vals (race_stress.c), counted one by one;
 * anything else is "other" (NERR_VALS). */
enum {
	EI_BADF, EI_AGAIN, EI_TIMEDOUT, EI_NOBUFS, EI_ADDRINUSE, EI_NOTCONN,
	EI_INVAL, EI_OPNOTSUPP, EI_MSGSIZE, EI_MFILE, EI_NOSPC, EI_NOMEM,
	NERR_VALS
};
#define NERR (NERR_VALS + 1)

#define E(x) (1u << (x))

/* Per handle number. */
struct hstate {
	pthread_mutex_t tx_lock;
	pthread_mutex_t rx_lock;
	/* Written under both locks, read under either. */
	uint64_t inc;
	uint8_t addr;
	uint16_t port;
	/* Under tx_lock. */
	uint64_t tx_seq;
	/* Under rx_lock: last sequence per sender incarnation. */
	struct {
		uint64_t src;
		uint64_t seq;
	} rx[RXMAP];
	unsigned int rx_used;
};

struct worker {
	unsigned int id;
	pthread_t th;
	uint64_t rng;
	uint64_t ops[NOPS];
	uint64_t ok[NOPS];
	uint64_t err[NOPS][NERR];
	uint64_t sent;			/* messages sendmsg took */
	uint64_t received;		/* messages checked */
	uint64_t late;			/* for an older socket on our port */
	uint64_t unordered;		/* RXMAP full: order not checked */
	uint64_t records;		/* RDS_INFO records checked */
	uint64_t gave_up;		/* creates that found the handle busy */
	bool registered;
	bool failed;
	char why[512];
	uint8_t *sbuf, *rbuf, *want, *ibuf;
};

extern struct hstate hs[];
extern int pool[];
extern uint32_t dest[];
extern uint64_t inc_at[][65536];
extern uint64_t next_inc;
extern bool engine_inline;
extern struct sockaddr_in addrs[];
extern const char *const ips[];

void wfail(struct worker *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void
count(struct worker *w, enum op op, bool ok, int e, uint32_t allowed);
uint64_t rnd(struct worker *w, uint64_t lo, uint64_t hi);
int pick_handle(struct worker *w);
uint16_t alloc_port(unsigned int a);
void set_timeo(int h, int opt, unsigned int ms);
bool lock_both(int h);
void op_create(struct worker *w);
void op_close(struct worker *w);
void op_close_any(struct worker *w);
void op_send(struct worker *w, bool block);
void op_recv(struct worker *w, bool block);
void op_burst(struct worker *w);
void op_poll(struct worker *w);
void op_arm(struct worker *w);
void op_setopt(struct worker *w);
void op_getopt(struct worker *w);
void op_info(struct worker *w);
void op_rebind(struct worker *w);
void op_kick(struct worker *w);

#endif /* RACE_STRESS_H_ */

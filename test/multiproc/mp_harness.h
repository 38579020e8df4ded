/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite multiproc's engine side, shared by mp_engine.c and mp_hostile.c:
 * the library up with a server on a UNIX socket, client processes
 * spawned with their stdin and stdout ours, served and watched until a
 * condition holds, and the streams of mp_client checked end to end.
 */
#ifndef MP_HARNESS_H
#define MP_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <rte_rds.h>
#include <rte_rds_attach.h>

extern char sock_path[108];
extern char client_bin[4096], evil_bin[4096], rdma_bin[4096],
	    attack_bin[4096];
extern char rdma_map_bin[4096];

struct child {
	pid_t pid;
	int out;		/* its stdout (ours to read) */
	int in;			/* its stdin (ours to write; close = go) */
	char buf[1 << 16];
	size_t len;
	bool bound, done, ok, exited;
	int status;
};

/* The clients' programs, next to argv0. */
void bin_paths(const char *argv0);
int child_spawn(struct child *c, const char *bin, char *const args[]);
/* Read what it printed (non-blocking) and whether it exited. */
void child_read(struct child *c);
/* Kill it if it runs, and close its pipes. */
void child_reap(struct child *c);
/* Serve and read the children until pred holds or timeout_s passes. */
bool serve_until(struct child *cs, unsigned int n,
		 bool (*pred)(struct child *, unsigned int),
		 unsigned int timeout_s);
bool all_done(struct child *cs, unsigned int n);
bool all_bound(struct child *cs, unsigned int n);
bool all_exited(struct child *cs, unsigned int n);
/* The library with two loop addresses and an engine on its own lcore,
 * serving on sock_path (base: the server's settings, NULL: defaults). */
int lib_up_with(enum rte_rds_idle_policy idle,
		const struct rte_rds_server_conf *base);
int lib_up_idle(enum rte_rds_idle_policy idle);
int lib_up(void);
void lib_down(void);
int spawn_stream(struct child *c, unsigned int id, unsigned int n,
		 uint64_t msgs);
/* n mp_client streams (and nextra children already running), every
 * digest checked; during() runs once they all go. */
void run_streams(unsigned int n, uint64_t msgs, struct child *extra,
		 unsigned int nextra,
		 void (*during)(struct child *cs, unsigned int n));

#endif /* MP_HARNESS_H */

/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RDS_TEST_H
#define RDS_TEST_H

/*
 * Helpers shared by the librte_rds CUnit suites.
 *
 * - EAL set-up for tests (no PCI, no hugepages, a private file prefix).
 * - A CUnit runner that exits non-zero on any failure.
 * - Library set-up over the loop transport, and an engine "kick" that polls
 *   inline engines (and only yields when engines run on their own lcores).
 * - sockaddr_in helpers and thin send/receive wrappers.
 * - A deterministic PRNG (splitmix64) and a byte filler keyed by a number.
 * - Running SHA-256 (OpenSSL EVP), one or a matrix per (sender, receiver).
 * - Time helpers: monotonic clock, stall/total deadlines, a SIGALRM
 *   watchdog so that no test can hang forever.
 *
 * Nothing here uses CUnit assertions from other threads: CUnit is not
 * thread-safe, so worker threads report through their own structures.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <netinet/in.h>

#include <CUnit/CUnit.h>

#include <rte_common.h>
#include <rte_rds.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Local addresses every loop test declares (transport "loop"). */
#define RDS_TEST_IP1 "10.255.0.1"
#define RDS_TEST_IP2 "10.255.0.2"
#define RDS_TEST_IP3 "10.255.0.3"
#define RDS_TEST_IP4 "10.255.0.4"

/* ------------------------------------------------------------------ */
/* EAL */

/*
 * Initialise the EAL for a test binary: --no-pci --no-huge -m 1024
 * --file-prefix=rdst-<name>-<pid> --log-level=lib.eal:error -l <lcores>.
 * The memory arguments can be replaced with RDS_TEST_EAL_MEM (e.g.
 * "--in-memory"), and extra arguments appended with RDS_TEST_EAL_ARGS.
 * Exits the process (status 1) when the EAL does not come up.
 */
void rds_test_eal_init(const char *name, const char *lcores);

/* rte_eal_cleanup() and removal of the test's runtime directory. */
void rds_test_eal_fini(void);

/* ------------------------------------------------------------------ */
/* CUnit */

struct rds_test_case {
	const char *name;
	CU_TestFunc fn;
};

/*
 * Register one suite with the given cases (array ended by {NULL, NULL}),
 * whose per-test teardown shuts the library down if a test left it up
 * (e.g. after a fatal assertion), run it, print the summary, clean the
 * registry up. If RDS_TEST_FILTER is set, only tests whose name contains
 * it are registered.
 * Returns the process exit status: 0 when every test passed, 1 otherwise.
 */
int rds_test_run_suite(const char *suite, const struct rds_test_case *cases);

/*
 * Run the current registry (CU_BRM_VERBOSE), print the summary and
 * return 0 if nothing failed, 1 otherwise.
 */
int rds_test_run_registry(void);

/*
 * The whole main() of a test binary: stdout line-buffered, the EAL up
 * (rds_test_eal_init(name, lcores); none when lcores is NULL), the cases
 * run as suite name (rds_test_run_suite), the EAL down.
 * Returns the process exit status (rds_test_run_suite's).
 */
int rds_test_main(const char *name, const char *lcores,
		  const struct rds_test_case *cases);

/* ------------------------------------------------------------------ */
/* Library set-up */

/*
 * Default test configuration: one engine on engine_lcore (or
 * RTE_RDS_ENGINE_INLINE) with the given idle policy, and the four loop
 * addresses RDS_TEST_IP1..4.
 */
void rds_test_conf(struct rte_rds_conf *conf, uint32_t engine_lcore,
		   enum rte_rds_idle_policy idle);

/*
 * rte_rds_init(conf) then rte_rds_start(). Remembers which engines are
 * inline for rds_test_kick(). Returns 0, or -1 with rte_errno set (and a
 * message printed).
 */
int rds_test_lib_init(const struct rte_rds_conf *conf);

/* rte_rds_fini() if the library is up; returns its result (0 if down). */
int rds_test_lib_fini(void);

/* Is the library up (rte_rds_engine_count() > 0)? */
bool rds_test_lib_up(void);

/*
 * Drive the engines once: rte_rds_engine_poll() on every inline engine;
 * when no engine is inline, sched_yield() so that an engine lcore that
 * shares a core with us gets to run. Returns the work done (inline).
 */
int rds_test_kick(void);

/* Inline engines rds_test_kick() drives (0: none). */
unsigned int rds_test_inline_engines(void);

/* Poll inline engines n times (yield when none is inline). */
void rds_test_kick_n(unsigned int n);

/* First worker lcore (for an engine), or RTE_MAX_LCORE if none. */
unsigned int rds_test_worker_lcore(void);

/* Sum of every engine's counters (zeroes if the call fails). */
struct rte_rds_stats rds_test_stats(void);

/* Print the non-zero counters, with a prefix. */
void rds_test_stats_print(const char *prefix, const struct rte_rds_stats *st);

/* ------------------------------------------------------------------ */
/* Sockets and addresses */

/* sockaddr_in for a dotted IPv4 address and a host-order port. */
struct sockaddr_in rds_test_sin(const char *ip, uint16_t port);

/* Same address and port? */
bool rds_test_sin_eq(const struct sockaddr_in *a, const struct sockaddr_in *b);

/* "a.b.c.d:port" into buf (at least 24 bytes); returns buf. */
const char *rds_test_sin_str(const struct sockaddr_in *a, char *buf,
			     size_t size);

/* An IPv4 or an IPv6 socket name. */
union rds_test_addr {
	struct sockaddr sa;
	struct sockaddr_in in;
	struct sockaddr_in6 in6;
};

/* The name of ip (dotted IPv4, or IPv6 with an optional "%SCOPE", an
 * interface name or index) and a host-order port; family AF_UNSPEC when
 * ip is neither. */
union rds_test_addr rds_test_addr(const char *ip, uint16_t port);
/* Its length (sockaddr_in or sockaddr_in6). */
socklen_t rds_test_addr_len(const union rds_test_addr *a);
/* Same family, address and port (the IPv6 scope aside)? */
bool rds_test_addr_eq(const union rds_test_addr *a,
		      const union rds_test_addr *b);
/* "a.b.c.d:port" or "[v6%scope]:port" into buf (at least 64 bytes). */
const char *rds_test_addr_str(const union rds_test_addr *a, char *buf,
			      size_t size);

/*
 * Create a socket, set SO_SNDBUF/SO_RCVBUF when > 0, bind it to ip:port
 * (ip as rds_test_addr() takes it).
 * Returns the handle or -1 (with a message printed, rte_errno set).
 */
int rds_test_socket(const char *ip, uint16_t port, int sndbuf, int rcvbuf);
/* The same with SO_RDS_TRANSPORT trans set before bind (trans < 0:
 * none). */
int rds_test_socket_trans(const char *ip, uint16_t port, int sndbuf,
			  int rcvbuf, int trans);

/* The addresses of the ib tests in the rxe VM (RDS_IB_ADDR_A, _B, set by
 * test/rxe/run-in-vm.sh): true, or false with a SKIP line printed
 * (rds_test_ib.c). */
bool rds_test_ib_addrs(const char **a, const char **b);

/* A socket's bound name (zeroes, and a line printed, on failure). */
struct sockaddr_in rds_test_sock_name(int s);

/* sendmsg with one iovec to *to. */
ssize_t rds_test_send(int s, const void *buf, size_t len,
		      const struct sockaddr_in *to, int flags);

/* The same to a name of either family. */
ssize_t rds_test_send_to(int s, const void *buf, size_t len,
			 const union rds_test_addr *to, int flags);
/* rds_test_recv() of a name of either family. */
ssize_t rds_test_recv_from(int s, void *buf, size_t len,
			   union rds_test_addr *from, int flags,
			   int *msg_flags);
/* rds_test_wait_msg() of a name of either family. */
ssize_t rds_test_wait_msg_from(int s, void *buf, size_t len,
			       union rds_test_addr *from,
			       unsigned int timeout_ms);

/* Most data rds_test_send_cmsg() carries in its control message. */
#define RDS_TEST_CMSG_MAX 256

/*
 * The same with one control message (level, type, dlen bytes of data;
 * zeros when data is NULL). dlen over RDS_TEST_CMSG_MAX: -1, EINVAL.
 */
ssize_t rds_test_send_cmsg(int s, const void *buf, size_t len,
			   const struct sockaddr_in *to, int level, int type,
			   const void *data, size_t dlen, int flags);

/*
 * recvmsg with one iovec; fills *from (if not NULL) and *msg_flags (if
 * not NULL).
 */
ssize_t rds_test_recv(int s, void *buf, size_t len, struct sockaddr_in *from,
		      int flags, int *msg_flags);

/*
 * The same with a control buffer: ctl of *clen bytes (no control buffer
 * when clen is NULL or *clen is 0); on success *clen gets msg_controllen
 * as recvmsg left it. Walk the cmsgs with a msghdr of msg_control ctl and
 * msg_controllen *clen.
 */
ssize_t rds_test_recv_ctl(int s, void *buf, size_t len,
			  struct sockaddr_in *from, int flags, void *ctl,
			  size_t *clen, int *msg_flags);

/*
 * Wait for one message on s, at most timeout_ms: non-blocking receives,
 * with the inline engines kicked in between (rds_test_kick) or, when no
 * engine is inline (an engine on its own lcore, a client process),
 * rte_rds_poll() of s for up to 10 ms at a time. Fills *from (if not
 * NULL). Returns the message's length (0 for an empty message or a
 * notification), or -1 with rte_errno and errno set: the receive's error,
 * or ETIMEDOUT (with a "TIMEOUT" line printed) when nothing came.
 */
ssize_t rds_test_wait_msg(int s, void *buf, size_t len,
			  struct sockaddr_in *from, unsigned int timeout_ms);
/* The same with a control buffer, as rds_test_recv_ctl(). */
ssize_t rds_test_wait_msg_ctl(int s, void *buf, size_t len,
			      struct sockaddr_in *from, void *ctl,
			      size_t *clen, unsigned int timeout_ms);

/* ------------------------------------------------------------------ */
/* Deterministic PRNG */

/* splitmix64 step. */
uint64_t rds_test_rand(uint64_t *state);

/* Uniform-ish value in [lo, hi] (inclusive). */
uint64_t rds_test_rand_range(uint64_t *state, uint64_t lo, uint64_t hi);

/* Stateless 64-bit mix (splitmix64 finaliser). */
uint64_t rds_test_mix64(uint64_t x);

/* Fill buf with len deterministic bytes derived from key. */
void rds_test_fill(void *buf, size_t len, uint64_t key);

/* ------------------------------------------------------------------ */
/* Running SHA-256 */

#define RDS_TEST_SHA_LEN 32

struct rds_test_sha {
	void *ctx;		/* EVP_MD_CTX */
	uint64_t bytes;		/* bytes hashed */
	uint64_t msgs;		/* updates */
};

int rds_test_sha_init(struct rds_test_sha *h);
void rds_test_sha_update(struct rds_test_sha *h, const void *data, size_t len);
/* Digest of everything so far (the running state is kept). */
void rds_test_sha_peek(const struct rds_test_sha *h,
		       uint8_t out[RDS_TEST_SHA_LEN]);
void rds_test_sha_free(struct rds_test_sha *h);
/* Hex string of a digest (buf at least 65 bytes). */
const char *rds_test_sha_hex(const uint8_t d[RDS_TEST_SHA_LEN], char *buf);

/*
 * One running SHA-256 per (sender, receiver) pair of n endpoints; a
 * message is hashed as its 4-byte length followed by its bytes, so that
 * zero-length messages count too.
 */
struct rds_test_sha_matrix {
	unsigned int n;
	struct rds_test_sha *h;	/* n * n */
};

int rds_test_sha_matrix_init(struct rds_test_sha_matrix *m, unsigned int n);
void rds_test_sha_matrix_msg(struct rds_test_sha_matrix *m, unsigned int src,
			     unsigned int dst, const void *data, size_t len);
struct rds_test_sha *rds_test_sha_matrix_at(struct rds_test_sha_matrix *m,
					    unsigned int src, unsigned int dst);
void rds_test_sha_matrix_free(struct rds_test_sha_matrix *m);

/* ------------------------------------------------------------------ */
/* Time and limits */

/* CLOCK_MONOTONIC in ns (works on any thread). */
uint64_t rds_test_now_ns(void);

/* Seconds since t0 (from rds_test_now_ns()). */
double rds_test_since_s(uint64_t t0);

/* Sleep a few microseconds (nanosleep). */
void rds_test_usleep(unsigned int us);

/*
 * A deadline with two limits: no progress for stall_s seconds, or more
 * than total_s seconds in all.
 */
struct rds_test_deadline {
	uint64_t start;
	uint64_t last_progress;
	uint64_t stall_ns;
	uint64_t total_ns;
};

void rds_test_deadline_init(struct rds_test_deadline *d, unsigned int stall_s,
			    unsigned int total_s);
void rds_test_deadline_progress(struct rds_test_deadline *d);
/* True (and prints why, with what) once a limit is passed. */
bool rds_test_deadline_expired(const struct rds_test_deadline *d,
			       const char *what);

/*
 * Arm (seconds > 0) or disarm (0) a SIGALRM watchdog: if it fires, it
 * prints "watchdog: <what> still running after N s" and exits with
 * status 2, so that a hung library call fails the test rather than
 * hanging it.
 */
void rds_test_watchdog(unsigned int seconds, const char *what);
/* From now on every rds_test_watchdog() bound is mul times longer (a
 * transport on an emulated machine, e.g. ib in the TCG VM). */
void rds_test_watchdog_scale(unsigned int mul);

/* ------------------------------------------------------------------ */
/* Environment */

/* Unsigned integer from the environment, or def if unset or invalid. */
uint64_t rds_test_env_u64(const char *name, uint64_t def);

/* ------------------------------------------------------------------ */
/* Telemetry (rds_test_tel.c) */

/* Connect to this process's EAL telemetry socket and read its greeting.
 * Returns the socket; -1 when there is none (telemetry disabled: the
 * reason printed, "TELEMETRY CHECK SKIPPED"), -2 when it gave no
 * greeting (a failure). */
int rds_test_tel_open(void);
/* Send one command and read the reply into buf (NUL-terminated), its
 * time in *ms; while waiting, drive the inline engines when kick is set
 * (up to 5 s). Returns the reply length, -1 on error, -2 when kick is
 * not set and nothing came within 100 ms. */
ssize_t rds_test_tel_cmd(int fd, const char *cmd, char *buf, size_t size,
			 bool kick, uint64_t *ms);
/* The integer value of "key" in a JSON text (-1 when absent). */
long rds_test_json_int(const char *json, const char *key);

#ifdef __cplusplus
}
#endif

#endif /* RDS_TEST_H */

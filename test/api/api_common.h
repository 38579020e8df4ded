/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RDS_API_COMMON_H
#define RDS_API_COMMON_H

/*
 * The socket API, errno by errno (suite 'api', test/api/api_*.c: one
 * binary per concern, each file's header says which; this header and
 * api_common.c are what they share).
 *
 * Every errno that rte_rds.h, rte_rds_socket.h, rte_rds_stats.h and
 * rte_rds_loop.h document is provoked here, each with its own assertion
 * on both the return value and rte_errno, together with the kernel's
 * AF_RDS semantics that an application can observe through them
 * (net/rds/af_rds.c, bind.c, send.c, recv.c; rds(7)): binding rules,
 * port 0, connect() as a default destination, the 1 MiB and SO_SNDBUF
 * limits, zero-length messages, MSG_PEEK and MSG_TRUNC, SO_SNDBUF
 * doubling, timeouts, SO_RDS_TRANSPORT, RDS_CANCEL_SENT_TO, congestion
 * (ENOBUFS, SO_SNDTIMEO, RDS_CONG_MONITOR), RDS_RECVERR, the RDS_INFO_*
 * probe-then-fill contract, rte_rds_poll() and the event fds.
 *
 * The library runs one inline engine (driven by the test thread, and by
 * blocking calls while they wait) with the loop addresses 10.255.0.1 to
 * 10.255.0.4, brought up and down by each test, so re-init is exercised
 * between tests. Every binary runs with -l 0.
 *
 * A few checks need a transport that is not "loop" (bind with a pinned
 * transport that does not serve the address: ENOPROTOOPT; a transport
 * that cannot open its device: ENODEV; the transport id of a bound
 * socket on a non-loop address). Every binary registers a stub transport,
 * "ut_fake", with an id no driver takes (API_TRANS_FAKE); it never
 * carries a message (its connections cannot be created). No "ib" transport is
 * registered, so RDS_TRANS_IB gives ENOPROTOOPT.
 *
 * Where the kernel and the library differ, the test asserts the kernel
 * (or the header's documentation), and the comment says "KERNEL:".
 * Things that cannot be provoked here and are not checked: ENOMEM;
 * rte_rds_start() EBUSY and rte_rds_engine_poll() EINVAL for an engine
 * on its own lcore (the binaries run with -l 0); rte_rds_info()
 * ETIMEDOUT; ENOSPC/ETIMEDOUT of a socket's channel.
 */

#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <CUnit/CUnit.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_memory.h>
#include <rte_rds.h>
#include <rte_rds_attach.h>
#include <rte_rds_loop.h>

#include "rds_private.h"
#include "rds_test.h"

/* The stub transport's id: past the ids SO_RDS_TRANSPORT takes. */
#define API_TRANS_FAKE 5

#define SA(p) ((struct sockaddr *)(p))
#define CSA(p) ((const struct sockaddr *)(p))

/* Default SO_SNDBUF / SO_RCVBUF (kernel wmem_default / rmem_default). */
#define DEF_BUF 212992
/* What getsockopt reports for a tiny SO_SNDBUF (kernel SOCK_MIN_SNDBUF;
 * RDS then uses half of it). */
#define MIN_SNDBUF_REPORTED 4608
/* An address that is not local to this instance. */
#define FOREIGN_IP "10.1.2.3"
/* Address served by the stub transport (tests that declare it). */
#define FAKE_IP "10.255.1.1"

/* What the current check is about, printed with a failure. */
extern const char *ctx;

/* call must return -1 with rte_errno and errno err: three assertions
 * (public calls set both, as a socket call sets errno). */
#define EXPECT_ERR(call, err) do { \
	long r_ = 0; \
	int e_, ue_; \
	rte_errno = 0; \
	errno = 0; \
	r_ = (long)(call); \
	e_ = rte_errno; \
	ue_ = errno; \
	CU_ASSERT_EQUAL(r_, -1); \
	CU_ASSERT_EQUAL(e_, (err)); \
	CU_ASSERT_EQUAL(ue_, (err)); \
	if (r_ != -1 || e_ != (err) || ue_ != (err)) \
		printf("\n    line %d [%s] %s: got %ld, rte_errno %d (%s)," \
		       " errno %d; want -1, %s\n", __LINE__, ctx, #call, r_, \
		       e_, e_ != 0 ? strerror(e_) : "0", ue_, #err); \
} while (0)

/* call must return want (>= 0). */
#define EXPECT_RET(call, want) do { \
	long r_ = 0; \
	int e_; \
	rte_errno = 0; \
	r_ = (long)(call); \
	e_ = rte_errno; \
	CU_ASSERT_EQUAL(r_, (long)(want)); \
	if (r_ != (long)(want)) \
		printf("\n    line %d [%s] %s: got %ld (rte_errno %d %s);" \
		       " want %ld\n", __LINE__, ctx, #call, r_, e_, \
		       r_ < 0 ? strerror(e_) : "-", (long)(want)); \
} while (0)

#define EXPECT_OK(call) EXPECT_RET(call, 0)

/*
 * The back end. Every binary runs twice (test/api/meson.build): in-process
 * (rte_rds_init, the inline engine above), and attached (rte_rds_attach)
 * to an rds-engined that test/api/api_attached.sh starts for the run with
 * the same four loop addresses, its socket named by RDS_API_ENGINE. The
 * attached run has no EAL, as a real client. What rte_rds_attach.h and
 * doc/guide.md section 4 document as different for a client (no
 * rte_rds_engine_poll or zero-copy receive: ENXIO; a congested send waits
 * in the engine, RDS_CONG_MONITOR is ENOPROTOOPT; at most 256 sockets; the
 * engine's configuration, addresses and transports are its own) is
 * skipped there, case by case, with the reason printed: never silently.
 */
extern bool api_attached;

/* The reason is printed ("SKIP (attached): ...") and true returned when
 * the run is attached: `if (api_skip_attached("...")) return;` at the
 * top of a case, or around one check. */
bool api_skip_attached(const char *why);
#define API_IN_PROCESS_ONLY(why) do { \
	if (api_skip_attached(why)) \
		return; \
} while (0)

/*
 * The main() of every api binary: the stub transport registered (before
 * the EAL: transports register from constructors, and so does this one,
 * if there is room), then rds_test_main(name, "0", cases).
 */
int api_main(const char *name, const struct rds_test_case *cases);

/* The helpers (api_common.c). */

/* rds_test_conf with one inline engine, busy idle policy. */
void std_conf(struct rte_rds_conf *conf);
/* The library up with conf (a fatal assertion if not); returns 0.
 * In-process only: an attached run fails the case (it has no conf of its
 * own; the case must say API_IN_PROCESS_ONLY first). */
int lib_up_conf(const struct rte_rds_conf *conf);
/* The library up with std_conf, or attached to the run's engine. */
int lib_up(void);
/* The watchdog off, rte_rds_fini() asserted, no engine left; attached:
 * rte_rds_detach() asserted (it closes the sockets left). */
void lib_down(void);

/* setsockopt of a timeval (SO_RCVTIMEO, SO_SNDTIMEO), or of an int;
 * fatal assertion that it worked. */
void set_timeo(int s, int opt, long sec, long usec);
void set_int(int s, int level, int opt, int v);
/* getsockopt of an int (asserted to work, and to be an int's size). */
int get_int(int s, int level, int opt);

/* A socket bound to ip:port whose blocking receives give up after 2 s. */
int sock_at(const char *ip, uint16_t port);

ssize_t send_to(int s, const void *buf, size_t len, const char *ip,
		uint16_t port, int flags);

/* sendmsg of "x" with one control message (level, type, data of dlen). */
ssize_t send_cmsg(int s, const char *ip, uint16_t port, int level,
		  int type, size_t dlen);

/* Blocking receive (the socket's SO_RCVTIMEO bounds it). */
ssize_t recv_one(int s, void *buf, size_t len, struct sockaddr_in *from,
		 int flags, int *mflags);

/* Expect exactly len bytes equal to want from ip:port on s. */
void expect_msg(int s, const void *want, size_t len, const char *ip,
		uint16_t port);

/* Nothing queued on s, even after the engine ran a while. */
void expect_nothing(int s);

/* Drive the engine for 20 ms: delayed ACKs (200 us) go out. */
void settle(void);

/* Congest IP3:5000 (a socket with the smallest SO_RCVBUF): three
 * 1000-byte messages from s, delivered. */
void congest(int s, const uint8_t *buf);

/* Milliseconds since t0 (rds_test_now_ns()). */
uint64_t elapsed_ms(uint64_t t0);

#endif /* RDS_API_COMMON_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite multiproc: the sends of an attached client that go from its own
 * TX buffer (the loop transport), not a copy in the engine. This process
 * is the engine (as mp_engine) and the receiver: a socket of its own,
 * read by the test thread, so that the messages wait in it holding the
 * sender's TX buffers as long as the test decides. The same program is
 * the sender (no EAL):
 *
 *   mp_zc send PATH ID PORT MSGS
 *       socket on mp_addr(ID):mp_port(ID); MSGS messages to
 *       mp_addr(0):PORT from one buffer of ours that every send rewrites
 *       (the library takes TX buffers as they come back): message i is
 *       len_of(i) bytes, its sequence number then bytes from i. Prints
 *       "SENT" and waits for its stdin to close; exit 0.
 *   mp_zc sendbig PATH ID PORT MSGS
 *       the same, every message 64 KiB.
 *
 *   reuse:  20,000 messages (1 KiB .. 64 KiB); the receiver lets them pile
 *           up (a receive buffer of 1 MiB: the sender waits on its
 *           congestion) and reads them in bursts, checking the order and
 *           every byte, while the sender writes each TX buffer that
 *           comes back at once: a buffer given back before its message
 *           was read shows as another message's bytes. Every message
 *           counted in msgs_zc.
 *   killed: the sender is killed while the receiver holds its 48
 *           messages unread: the engine lets the client go but keeps
 *           its region (gone_held 1); every byte is then read from it,
 *           and the next server poll frees it (gone_held 0). A second
 *           sender killed the same way is never read: the library's
 *           teardown frees its region after the socket's close (the
 *           ASan build sees any use after the unmap, and any leak).
 *   txwait: a blocking sender of 64 KiB messages in a 4 MiB region (9
 *           TX buffers of 64 KiB or more) with room in its send buffer
 *           runs out of TX buffers while the receiver holds its
 *           messages; the receiver then reads one at a time, each time
 *           the engine has taken nothing more for a moment. The sender
 *           must sleep until a buffer comes back, and the engine must
 *           wake it then (tx_wakes): its slice (RTE_RDS_WAIT_SLICE_MS)
 *           is an hour, so a wake-up not sent leaves it asleep and the
 *           messages stop (a failure after 20 s without one). Before
 *           the wake-up, such a sender spun on the core without sleeping
 *           (tx_wakes 0).
 *   pollout: the same, the sender non-blocking (MSG_DONTWAIT) and
 *           waiting in rte_rds_poll() for POLLOUT after each EAGAIN, as
 *           an event loop does. Its send buffer has room, so before,
 *           poll said POLLOUT at once while no TX buffer was free and
 *           the sender spun (poll, send, EAGAIN: thousands of times).
 *           Now POLLOUT waits for a TX buffer of the size its last send
 *           lacked, and the engine wakes the poller when one comes back:
 *           no POLLOUT is followed by an EAGAIN, and with an hour's
 *           slice a wake-up not sent stops the messages.
 *
 *   mp_zc pollbig PATH ID PORT MSGS
 *       as sendbig, non-blocking with rte_rds_poll(); prints
 *       "SENT spurious=N" (EAGAINs right after a POLLOUT).
 */
#include <errno.h>
#include <poll.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <CUnit/CUnit.h>

#include <rte_errno.h>
#include <rte_rds.h>
#include <rte_rds_attach.h>

#include "rds_test.h"
#include "mp_common.h"
#include "mp_harness.h"

#define SINK_PORT 9998
#define MAXLEN (64u * 1024)

static char self_bin[4096];
static uint32_t fixed_len;	/* every message this long (sendbig) */
static bool poll_mode;		/* pollbig: MSG_DONTWAIT and rte_rds_poll */

static uint32_t
len_of(uint64_t seq)
{
	uint64_t k = rds_test_mix64(seq ^ 0x7a63ULL);

	if (fixed_len != 0)
		return fixed_len;
	/* 1 KiB or more: sent from the TX buffer (RDS_SRV_ZC_MIN). */
	return 1024 + (uint32_t)((k >> 8) %
				 ((seq % 16 == 0 ? MAXLEN : 4096) - 1023));
}

static void
build(uint8_t *b, uint64_t seq)
{
	uint32_t len = len_of(seq);

	memcpy(b, &seq, 8);
	rds_test_fill(b + 8, len - 8, rds_test_mix64(seq + 1));
}

/* The sender (a client process). */
static int
do_send(unsigned int id, uint16_t port, uint64_t msgs)
{
	struct sockaddr_in to = rds_test_sin(mp_ip(0), port);
	uint8_t *b = malloc(MAXLEN);
	uint64_t i, spurious = 0;
	bool polled = false;
	char c;
	int s = rds_test_socket(mp_ip(id), mp_port(id), 4 << 20, 0);

	if (s < 0 || b == NULL) {
		printf("FAIL socket: %s\n", rte_strerror(rte_errno));
		free(b);
		return 1;
	}
	for (i = 0; i < msgs; i++) {
		build(b, i);
		while (rte_rds_sendto(s, b, len_of(i),
				      poll_mode ? MSG_DONTWAIT : 0,
				      (struct sockaddr *)&to, sizeof(to)) < 0) {
			struct rte_rds_pollfd p = { .sock = s,
						    .events = POLLOUT };

			if (rte_errno != EAGAIN && rte_errno != ENOBUFS) {
				printf("FAIL send %" PRIu64 ": %s\n", i,
				       rte_strerror(rte_errno));
				free(b);
				return 1;
			}
			if (!poll_mode) {
				usleep(100);
				continue;
			}
			if (polled)
				spurious++;
			polled = rte_rds_poll(&p, 1, -1) == 1 &&
				 (p.revents & POLLOUT);
		}
		polled = false;
	}
	free(b);
	if (poll_mode)
		printf("SENT spurious=%" PRIu64 "\n", spurious);
	else
		printf("SENT\n");
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	rte_rds_close(s);
	return 0;
}

static int
spawn_send(struct child *c, unsigned int id, uint64_t msgs)
{
	char sid[16], sp[16], sm[32];
	char *args[] = { self_bin, (char *)(poll_mode ? "pollbig" :
					    fixed_len != 0 ? "sendbig" :
					    "send"), sock_path, sid, sp, sm,
			 NULL };

	snprintf(sid, sizeof(sid), "%u", id);
	snprintf(sp, sizeof(sp), "%u", SINK_PORT);
	snprintf(sm, sizeof(sm), "%" PRIu64, msgs);
	return child_spawn(c, self_bin, args);
}

/* One message off the sink, checked: 1 good, 0 none, -1 bad. */
static int
take_one(int sink, uint64_t want, uint8_t *buf, uint8_t *ref)
{
	ssize_t r = rte_rds_recvfrom(sink, buf, MAXLEN, MSG_DONTWAIT, NULL,
				     NULL);
	uint64_t seq;

	if (r < 0)
		return rte_errno == EAGAIN ? 0 : -1;
	memcpy(&seq, buf, 8);
	if (r < 8 || seq != want || (uint32_t)r != len_of(want)) {
		printf("  message %" PRIu64 ": seq %" PRIu64 ", %zd B\n", want,
		       r >= 8 ? seq : UINT64_MAX, r);
		return -1;
	}
	build(ref, want);
	if (memcmp(buf, ref, (size_t)r) != 0) {
		printf("  message %" PRIu64 ": its bytes differ\n", want);
		return -1;
	}
	return 1;
}

static void
test_reuse(void)
{
	uint64_t msgs = rds_test_env_u64("RDS_TEST_MP_ZC_MSGS", 20000);
	uint8_t *buf = malloc(MAXLEN), *ref = malloc(MAXLEN);
	struct rte_rds_server_stats s0, s1;
	uint64_t got = 0, bad = 0, round = 0, most = 0, burst;
	struct child c;
	int sink, r;

	rds_test_watchdog(600, "multiproc/zc reuse");
	CU_ASSERT_FATAL(buf != NULL && ref != NULL);
	CU_ASSERT_FATAL(lib_up() == 0);
	sink = rds_test_socket(MP_IP0, SINK_PORT, 0, 1 << 20);
	CU_ASSERT_FATAL(sink >= 0);
	CU_ASSERT(rte_rds_server_stats_get(&s0) == 0);
	CU_ASSERT_FATAL(spawn_send(&c, 1, msgs) == 0);
	while (got < msgs && bad == 0 && !c.exited) {
		rte_rds_server_poll(1);
		child_read(&c);
		/* Four polls in eight leave the messages waiting. */
		if (round++ % 8 < 4)
			continue;
		burst = 0;
		while (got < msgs && (r = take_one(sink, got, buf, ref)) != 0) {
			if (r < 0) {
				bad++;
				break;
			}
			got++;
			burst++;
		}
		most = RTE_MAX(most, burst);
	}
	CU_ASSERT(rte_rds_server_stats_get(&s1) == 0);
	printf("  %" PRIu64 " of %" PRIu64 " messages checked, at most %"
	       PRIu64 " read at once; sent from the TX buffer: %" PRIu64 "\n",
	       got, msgs, most, s1.msgs_zc - s0.msgs_zc);
	CU_ASSERT(bad == 0);
	CU_ASSERT(got == msgs);
	CU_ASSERT(most > 1);
	CU_ASSERT(s1.msgs_zc - s0.msgs_zc == msgs);
	close(c.in);
	c.in = -1;
	CU_ASSERT(serve_until(&c, 1, all_exited, 60));
	CU_ASSERT(c.exited && WIFEXITED(c.status) &&
		  WEXITSTATUS(c.status) == 0);
	child_reap(&c);
	CU_ASSERT(rte_rds_close(sink) == 0);
	lib_down();
	free(buf);
	free(ref);
	rds_test_watchdog(0, NULL);
}

static bool
sent(struct child *cs, unsigned int n)
{
	(void)n;
	return strstr(cs->buf, "SENT") != NULL || cs->exited;
}

/* A sender of msgs, killed once the engine took them all. */
static void
send_and_kill(unsigned int id, uint64_t msgs)
{
	struct rte_rds_server_stats s0, s1;
	unsigned int before;
	struct child c;
	int k;

	CU_ASSERT(rte_rds_server_stats_get(&s0) == 0);
	CU_ASSERT_FATAL(spawn_send(&c, id, msgs) == 0);
	CU_ASSERT_FATAL(serve_until(&c, 1, sent, 60));
	CU_ASSERT_FATAL(!c.exited);
	for (k = 0; k < 60000; k++) {
		rte_rds_server_stats_get(&s1);
		if (s1.msgs_in - s0.msgs_in == msgs)
			break;
		rte_rds_server_poll(1);
	}
	CU_ASSERT_FATAL(s1.msgs_in - s0.msgs_in == msgs);
	CU_ASSERT(s1.msgs_zc - s0.msgs_zc == msgs);
	before = rte_rds_server_clients();
	kill(c.pid, SIGKILL);
	waitpid(c.pid, &c.status, 0);
	c.exited = true;
	for (k = 0; k < 60000 && rte_rds_server_clients() >= before; k++)
		rte_rds_server_poll(1);
	CU_ASSERT(rte_rds_server_clients() < before);
	child_reap(&c);
}

static void
test_killed(void)
{
	uint8_t *buf = malloc(MAXLEN), *ref = malloc(MAXLEN);
	struct rte_rds_server_stats st;
	uint64_t got = 0, msgs = 48;
	int sink, sink2, r, k;

	rds_test_watchdog(300, "multiproc/zc killed");
	CU_ASSERT_FATAL(buf != NULL && ref != NULL);
	CU_ASSERT_FATAL(lib_up() == 0);
	sink = rds_test_socket(MP_IP0, SINK_PORT, 0, 4 << 20);
	CU_ASSERT_FATAL(sink >= 0);
	send_and_kill(1, msgs);
	CU_ASSERT(rte_rds_server_stats_get(&st) == 0);
	printf("  killed: clients gone with buffers held: %" PRIu64 "\n",
	       st.gone_held);
	CU_ASSERT(st.gone_held == 1);
	/* Every byte, from the region of a process that is gone. */
	while (got < msgs && (r = take_one(sink, got, buf, ref)) > 0)
		got++;
	CU_ASSERT(got == msgs);
	for (k = 0; k < 1000 && st.gone_held != 0; k++) {
		rte_rds_server_poll(1);
		rte_rds_server_stats_get(&st);
	}
	printf("  read %" PRIu64 " of %" PRIu64 ": held %" PRIu64 "\n", got,
	       msgs, st.gone_held);
	CU_ASSERT(st.gone_held == 0);
	CU_ASSERT(rte_rds_close(sink) == 0);
	/* Another, never read: freed by the teardown. */
	sink2 = rds_test_socket(MP_IP0, SINK_PORT, 0, 4 << 20);
	CU_ASSERT_FATAL(sink2 >= 0);
	send_and_kill(3, msgs);
	CU_ASSERT(rte_rds_server_stats_get(&st) == 0);
	CU_ASSERT(st.gone_held == 1);
	lib_down();
	free(buf);
	free(ref);
	rds_test_watchdog(0, NULL);
}

/* The engine's count of messages taken from regions. */
static uint64_t
msgs_in(void)
{
	struct rte_rds_server_stats st;

	return rte_rds_server_stats_get(&st) == 0 ? st.msgs_in : 0;
}

static void
txwait(bool polling)
{
	uint64_t msgs = rds_test_env_u64("RDS_TEST_MP_ZC_TXWAIT_MSGS", 60);
	uint8_t *buf = malloc(MAXLEN), *ref = malloc(MAXLEN);
	struct rte_rds_server_stats s0, s1;
	struct rte_rds_server_conf sc;
	uint64_t got = 0, bad = 0, in0, in, last;
	unsigned int still;
	struct child c;
	int sink, r, k;

	const char *sp;
	uint64_t spurious = UINT64_MAX;

	rds_test_watchdog(300, polling ? "multiproc/zc pollout" :
			  "multiproc/zc txwait");
	CU_ASSERT_FATAL(buf != NULL && ref != NULL);
	memset(&sc, 0, sizeof(sc));
	sc.gid = (gid_t)-1;
	sc.region_mb = 4;
	CU_ASSERT_FATAL(lib_up_with(RTE_RDS_IDLE_YIELD, &sc) == 0);
	sink = rds_test_socket(MP_IP0, SINK_PORT, 0, 16 << 20);
	CU_ASSERT_FATAL(sink >= 0);
	CU_ASSERT(rte_rds_server_stats_get(&s0) == 0);
	in0 = s0.msgs_in;
	fixed_len = MAXLEN;
	poll_mode = polling;
	setenv("RTE_RDS_WAIT_SLICE_MS", "3600000", 1);
	CU_ASSERT_FATAL(spawn_send(&c, 1, msgs) == 0);
	unsetenv("RTE_RDS_WAIT_SLICE_MS");
	last = 0;
	while (got < msgs && bad == 0 && !c.exited) {
		/* Serve until the engine took nothing more for 20 polls in a
		 * row (the sender out of TX buffers, or every message in)
		 * with a message to read, and for 20 s at most. */
		for (still = 0, k = 0; (still < 20 || last <= got) &&
		     k < 20000; k++) {
			rte_rds_server_poll(1);
			child_read(&c);
			in = msgs_in() - in0;
			still = in == last ? still + 1 : 0;
			last = in;
		}
		if (last <= got) {
			printf("  no message for 20 s after %" PRIu64
			       ": the sender was not woken\n", got);
			break;
		}
		/* One back: its TX buffer with it. */
		r = take_one(sink, got, buf, ref);
		for (k = 0; r == 0 && k < 1000; k++) {
			rte_rds_server_poll(1);
			r = take_one(sink, got, buf, ref);
		}
		if (r < 0)
			bad++;
		else if (r > 0)
			got++;
	}
	CU_ASSERT(rte_rds_server_stats_get(&s1) == 0);
	printf("  %" PRIu64 " of %" PRIu64 " messages of 64 KiB read one at a "
	       "time; senders woken for a TX buffer: %" PRIu64 "\n", got, msgs,
	       s1.tx_wakes - s0.tx_wakes);
	CU_ASSERT(bad == 0);
	CU_ASSERT(got == msgs);
	CU_ASSERT(s1.tx_wakes - s0.tx_wakes >= 1);
	CU_ASSERT(s1.msgs_zc - s0.msgs_zc == msgs);
	CU_ASSERT(serve_until(&c, 1, sent, 60));
	if (polling) {
		sp = strstr(c.buf, "spurious=");
		if (sp != NULL)
			spurious = strtoull(sp + 9, NULL, 10);
		printf("  POLLOUT followed by EAGAIN: %" PRIu64 " times\n",
		       spurious);
		CU_ASSERT(spurious == 0);
	}
	close(c.in);
	c.in = -1;
	CU_ASSERT(serve_until(&c, 1, all_exited, 60));
	CU_ASSERT(c.exited && WIFEXITED(c.status) &&
		  WEXITSTATUS(c.status) == 0);
	child_reap(&c);
	fixed_len = 0;
	poll_mode = false;
	CU_ASSERT(rte_rds_close(sink) == 0);
	lib_down();
	free(buf);
	free(ref);
	rds_test_watchdog(0, NULL);
}

static void
test_txwait(void)
{
	txwait(false);
}

static void
test_pollout(void)
{
	txwait(true);
}

int
main(int argc, char **argv)
{
	static const struct rds_test_case cases[] = {
		{ "reuse", test_reuse },
		{ "killed", test_killed },
		{ "txwait", test_txwait },
		{ "pollout", test_pollout },
		{ NULL, NULL },
	};
	int ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 6 && (strcmp(argv[1], "send") == 0 ||
			  strcmp(argv[1], "sendbig") == 0 ||
			  strcmp(argv[1], "pollbig") == 0)) {
		if (strcmp(argv[1], "send") != 0)
			fixed_len = MAXLEN;
		poll_mode = strcmp(argv[1], "pollbig") == 0;
		if (rte_rds_attach(argv[2]) != 0) {
			printf("FAIL attach %s: %s\n", argv[2],
			       rte_strerror(rte_errno));
			return 1;
		}
		return do_send((unsigned int)strtoul(argv[3], NULL, 0),
			       (uint16_t)strtoul(argv[4], NULL, 0),
			       strtoull(argv[5], NULL, 0));
	}
	signal(SIGPIPE, SIG_IGN);
	bin_paths(argv[0]);
	snprintf(self_bin, sizeof(self_bin), "%s", argv[0]);
	snprintf(sock_path, sizeof(sock_path), "/tmp/rds-mpzc-%d.sock",
		 (int)getpid());
	rds_test_eal_init("mp_zc", "0-1");
	ret = rds_test_run_suite("multiproc", cases);
	rds_test_eal_fini();
	unlink(sock_path);
	return ret;
}

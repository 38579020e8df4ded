/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eth_rexmit: loss recovery of eth's frame layer (rds_eth_rexmit.c),
 * frame by frame against a peer the test plays, as eth_ack does: the
 * library's address 10.254.4.1 is on a net_ring port whose receive ring
 * the test fills and whose transmit ring it drains; the test is
 * 10.254.4.2 (a static neighbour) and decides what it acknowledges.
 *
 *   sack_holes_only: with the congestion window on by default: a
 *                    message of more frames than the initial window (10,
 *                    RDS_ETH_CWND_INIT_DEFAULT): exactly 10 frames leave
 *                    (N) until an ACK comes. The peer SACKs frames 1..8
 *                    and says nothing of 9. Frame 0 goes again at once
 *                    (fast: 8 SACKed above it), alone: the cut window
 *                    (5) lets nothing new go. Then, with no more ACKs,
 *                    first the tail probe: one frame, the newest (N-1),
 *                    no timeout; then the RTO sends again only the hole
 *                    below the highest SACKed frame (0), never a SACKed
 *                    frame and never the frame past it the peer may hold
 *                    (9). Then the peer acknowledges what it got, round
 *                    after round: the rest of the message goes a window
 *                    at a time (more than one round, never more frames
 *                    unacknowledged than the window), and once the peer
 *                    has acknowledged all, the message is freed and
 *                    nothing more goes.
 *   zero_window:     the peer acknowledges the first window's frames
 *                    with a window of 0: nothing more goes, however long
 *                    the test waits; its next ACK, which acknowledges
 *                    nothing new but opens the window, lets the message
 *                    go on (a window update alone reopens a send queue
 *                    that waited for it).
 *   all_sacked:      every frame in flight SACKed and none acknowledged
 *                    (the cumulative ACK that passes them lost): the
 *                    library has nothing to send again; its timer sends
 *                    an ACK frame asking for one (FL_ACKREQ), and the
 *                    peer's answer lets the message go on. Without it
 *                    the stream waits for good (an RDMA test under load
 *                    stalled so).
 *   kick:            kick_us=2000 (off by default on net_ring: no ACK
 *                    request in the other cases): a first window out
 *                    and no answer: after 2 ms one ACK frame asking for
 *                    an ACK (tx_kicks 1), before the tail probe and
 *                    without sending a DATA frame again; then nothing
 *                    more of the kind while nothing moves (the probe
 *                    comes, no second kick); an ACK that acknowledges
 *                    something lets the next silence kick again. Out of
 *                    range or not a number: EINVAL.
 *   probe_sacked:    a first window lost whole, on a connection with
 *                    no RTT sample yet: the tail probe (the newest
 *                    frame, N-1) is SACKed at once. RACK cannot take a
 *                    copy sent again with no sample (it may acknowledge
 *                    the first one), so nothing goes at once; the next
 *                    turn is the RTO, which sends the holes below it
 *                    (0..N-2), not a second probe (N-2: one frame an
 *                    RTO, newest first, a window took N RTOs to come
 *                    back, found by the simulator's rack restart).
 *   delay_hold:      the delay signal (delay_us=50000, the timers'
 *                    floor 1 s so that no timer fires): a first window
 *                    ACKed at once sets the base; the second one ACKed
 *                    200 ms after it left cuts the window (the
 *                    counter cc_delay_cuts, and fewer frames go
 *                    than a window not cut would let go) when the ACK
 *                    frame says it was held 0 ns, and cuts nothing
 *                    when it says it was held those 200 ms (the
 *                    receiver's ACK delay is not the network's). Also
 *                    delay_us without congestion control (cwnd_init=0),
 *                    above 1 s or not a number: EINVAL.
 *   cwnd_conf:       the key cwnd_init: 0 (off) lets the whole message
 *                    go at once (the fixed window), 4 lets 4 frames go;
 *                    window=8 without cwnd_init starts at 8 (the default
 *                    10 is held to the window); 1, above the window,
 *                    negative, not a number, empty: rte_rds_init() -1,
 *                    EINVAL.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>

#include <CUnit/CUnit.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_random.h>
#include <rte_ring.h>
#include <rte_rds.h>
#include <rte_rds_eth.h>
#include <rte_rds_stats.h>

#include "rds_test.h"
#include "rds_eth.h"

#define LIB_IP "10.254.4.1"
#define PEER_IP "10.254.4.2"
#define LIB_MAC "02:00:0a:fe:04:01"
#define PEER_MAC "02:00:0a:fe:04:02"
#define LIB_PORT 4000
#define PEER_PORT 5000
#define MAX_LOG 256

static struct {
	struct rte_ring *rx, *tx;
	uint16_t port;
	struct rte_mempool *pool;
	struct rte_ether_addr lib_mac, peer_mac;
	uint32_t lib_ip, peer_ip;
	uint32_t epoch, lib_epoch;
	struct rds_eth_frame log[MAX_LOG];	/* the library's DATA frames */
	unsigned int nb_log;
	unsigned int pokes;		/* its ACK frames asking for one */
	uint32_t ack_hold;		/* the ACK frames' hold (frag_off) */
} h;

static void
drain(void)
{
	struct rte_mbuf *m, *c;
	struct rds_eth_frame f;

	while (rte_ring_dequeue(h.tx, (void **)&m) == 0) {
		c = m->nb_segs != 1 ? rte_pktmbuf_copy(m, h.pool, 0,
						       UINT32_MAX) : NULL;
		if (rds_eth_frame_parse(c != NULL ? c : m, RDS_ETH_UDP_PORT,
					&f) == RDS_ETH_DROP_NONE) {
			h.lib_epoch = f.src_epoch;
			if (f.type == RDS_ETH_F_DATA) {
				CU_ASSERT_FATAL(h.nb_log < MAX_LOG);
				f.payload = NULL;
				h.log[h.nb_log++] = f;
			}
			if (f.type == RDS_ETH_F_ACK &&
			    (f.flags & RDS_ETH_FL_ACKREQ))
				h.pokes++;
		}
		rte_pktmbuf_free(c);
		rte_pktmbuf_free(m);
	}
}

static void
poll_n(unsigned int n)
{
	while (n-- != 0)
		rte_rds_engine_poll(0);
	drain();
}

static void
peer_ack_wnd(uint32_t ack, uint64_t sack, uint16_t wnd)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(h.pool);
	struct rds_eth_frame f;

	CU_ASSERT_FATAL(m != NULL);
	CU_ASSERT_FATAL(rte_pktmbuf_append(m, RDS_ETH_HDRS) != NULL);
	memset(&f, 0, sizeof(f));
	f.type = RDS_ETH_F_ACK;
	f.flags = RDS_ETH_FL_OPEN;
	f.src_epoch = h.epoch;
	f.dst_epoch = h.lib_epoch;
	f.ack = ack;
	f.sack = sack;
	f.wnd = wnd;
	f.frag_off = h.ack_hold;
	CU_ASSERT_FATAL(rds_eth_frame_build(m, &h.peer_mac, &h.lib_mac,
					    h.peer_ip, h.lib_ip,
					    RDS_ETH_UDP_PORT, RDS_ETH_UDP_PORT,
					    &f, false) == 0);
	CU_ASSERT_FATAL(rte_ring_enqueue(h.rx, m) == 0);
}

static void
peer_ack(uint32_t ack, uint64_t sack)
{
	peer_ack_wnd(ack, sack, 128);
}

static struct rte_rds_eth_stats
eth_stats(void)
{
	struct rte_rds_eth_stats st;

	CU_ASSERT_FATAL(rte_rds_eth_stats_get(&st) == 0);
	return st;
}

/* Poll until *counter (a field of the eth counters) reaches want, at
 * most 5 s; false if it never does. */
static bool
poll_until(size_t field, uint64_t want)
{
	uint64_t end = rte_get_tsc_cycles() + 5 * rte_get_tsc_hz();
	struct rte_rds_eth_stats st;

	do {
		poll_n(1);
		st = eth_stats();
		if (*(const uint64_t *)(const void *)
		    ((const uint8_t *)&st + field) >= want)
			return true;
		rte_delay_us_sleep(100);
	} while (rte_get_tsc_cycles() < end);
	return false;
}

/* The library with LIB_IP on the port, more eth keys in opts (e.g.
 * ",cwnd_init=0"): rte_rds_init()'s return, rte_errno set on -1. */
static int
lib_up_opts(const char *opts)
{
	struct rte_rds_conf conf;
	char spec[256];
	int ret;

	if (h.pool == NULL) {
		h.rx = rte_ring_create("rx_rx", 1024, 0,
				       RING_F_SP_ENQ | RING_F_SC_DEQ);
		h.tx = rte_ring_create("rx_tx", 1024, 0,
				       RING_F_SP_ENQ | RING_F_SC_DEQ);
		CU_ASSERT_FATAL(h.rx != NULL && h.tx != NULL);
		ret = rte_eth_from_rings("rexmitH", &h.rx, 1, &h.tx, 1, 0);
		CU_ASSERT_FATAL(ret >= 0);
		h.port = (uint16_t)ret;
		h.pool = rte_pktmbuf_pool_create("rexmit_peer", 1023, 0, 0,
						 RTE_MBUF_DEFAULT_BUF_SIZE,
						 SOCKET_ID_ANY);
		CU_ASSERT_FATAL(h.pool != NULL);
		rte_ether_unformat_addr(LIB_MAC, &h.lib_mac);
		rte_ether_unformat_addr(PEER_MAC, &h.peer_mac);
		h.lib_ip = inet_addr(LIB_IP);
		h.peer_ip = inet_addr(PEER_IP);
	}
	rte_rds_conf_init(&conf);
	conf.engine[0].lcore_id = RTE_RDS_ENGINE_INLINE;
	/* 20 ms timers: the probe and the RTO come when the case waits
	 * for them, not between two of its steps. */
	snprintf(spec, sizeof(spec), LIB_IP "=eth,port=%u,mac=" LIB_MAC
		 ",neigh=" PEER_IP "/" PEER_MAC
		 ",rto_min_us=20000,rto_max_us=1000000%s", h.port, opts);
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(&conf, spec) == 0);
	ret = rte_rds_init(&conf);
	rte_rds_conf_free(&conf);
	h.epoch = (uint32_t)rte_rand() | 1;
	h.lib_epoch = 0;
	h.nb_log = 0;
	h.pokes = 0;
	return ret;
}

static void
lib_up(void)
{
	CU_ASSERT_FATAL(lib_up_opts("") == 0);
}

static void
lib_down(void)
{
	struct rte_mbuf *m;

	CU_ASSERT(rte_rds_fini() == 0);
	while (rte_ring_dequeue(h.tx, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	while (rte_ring_dequeue(h.rx, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(h.pool), 1023);
}

/* Send a 40,000 B message (28 frames, and the congestion map's one before
 * them) from a new socket; its descriptor. */
static int
send_big(void)
{
	static uint8_t buf[40000];
	struct sockaddr_in to = rds_test_sin(PEER_IP, PEER_PORT);
	int s;

	s = rds_test_socket_trans(LIB_IP, LIB_PORT, 0, 0, RTE_RDS_TRANS_ETH);
	CU_ASSERT_FATAL(s >= 0);
	memset(buf, 7, sizeof(buf));
	CU_ASSERT_EQUAL(rte_rds_sendto(s, buf, sizeof(buf), MSG_DONTWAIT,
				       (struct sockaddr *)&to, sizeof(to)),
			(ssize_t)sizeof(buf));
	return s;
}

/* The highest sequence the library sent, and one past it. */
static uint32_t
sent_end(void)
{
	uint32_t i, end = 0;

	for (i = 0; i < h.nb_log; i++)
		if (h.log[i].seq + 1 > end)
			end = h.log[i].seq + 1;
	return end;
}

/* The peer acknowledges all the library sent, round after round, until
 * the message is freed: each round lets something new go (the window
 * opened), never more unacknowledged than the ring. The rounds less
 * one. */
static unsigned int
ack_rounds(void)
{
	unsigned int rounds;
	uint32_t acked;

	for (rounds = 0; rounds < 64; rounds++) {
		acked = sent_end();
		peer_ack(acked, 0);
		poll_n(2);
		if (rds_test_stats().s_send_acked == 1)
			break;
		CU_ASSERT_FATAL(sent_end() > acked);
		CU_ASSERT(sent_end() - acked <= 128);
	}
	CU_ASSERT_EQUAL(rds_test_stats().s_send_acked, 1);
	return rounds;
}

/* The library up, a big message sent: its first window (*n frames, the
 * initial congestion window) out. The socket. */
static int
first_window(unsigned int *n)
{
	int s;

	lib_up();
	s = send_big();
	poll_n(4);
	*n = h.nb_log;
	CU_ASSERT_EQUAL_FATAL(*n, RDS_ETH_CWND_INIT_DEFAULT);
	return s;
}

static void
test_sack_holes_only(void)
{
	struct rte_rds_eth_stats st;
	unsigned int i, n, mark, rounds;
	int s;

	/* The initial window, and nothing more without an ACK. */
	s = first_window(&n);
	for (i = 0; i < n; i++)
		CU_ASSERT_FATAL(h.log[i].seq == i);
	CU_ASSERT(eth_stats().tx_window_full > 0);
	/* The frame that fills the window asks for the ACK, no other. */
	for (i = 0; i < n; i++)
		CU_ASSERT_EQUAL(!!(h.log[i].flags & RDS_ETH_FL_ACKREQ),
				i == n - 1);

	/* Frames 1..8 SACKed: frame 0 at once (fast), alone. */
	peer_ack(0, 0xff);
	poll_n(2);
	st = eth_stats();
	CU_ASSERT_EQUAL(st.rexmit_fast, 1);
	CU_ASSERT_EQUAL_FATAL(h.nb_log, n + 1);
	CU_ASSERT_EQUAL(h.log[n].seq, 0);

	/* Silence: first the probe, the newest frame, before any RTO. */
	mark = h.nb_log;
	CU_ASSERT_FATAL(poll_until(offsetof(struct rte_rds_eth_stats,
					    rexmit_probe), 1));
	st = eth_stats();
	CU_ASSERT_EQUAL(st.rexmit_timeout, 0);
	CU_ASSERT_EQUAL_FATAL(h.nb_log, mark + 1);
	CU_ASSERT_EQUAL(h.log[mark].seq, n - 1);

	/* Then the RTO: the hole below the highest SACKed frame only. */
	mark = h.nb_log;
	CU_ASSERT_FATAL(poll_until(offsetof(struct rte_rds_eth_stats,
					    rexmit_timeout), 1));
	CU_ASSERT(h.nb_log > mark);
	for (i = mark; i < h.nb_log; i++) {
		if (h.log[i].seq != 0)
			printf("\n    the RTO sent frame %u again (a SACKed "
			       "one, or one past the SACK)", h.log[i].seq);
		CU_ASSERT_EQUAL(h.log[i].seq, 0);
	}
	st = eth_stats();
	CU_ASSERT_EQUAL(st.rexmit_timeout, h.nb_log - mark);

	/* The peer acknowledges all it got, round after round: the rest
	 * goes a window at a time, and the message is freed at the end. */
	rounds = ack_rounds();
	/* 28 frames and the map's, from a window of 2 after the RTO:
	 * several rounds, not one. */
	CU_ASSERT(rounds >= 2);
	printf("\n    rest of the message in %u ACK rounds\n", rounds + 1);
	mark = h.nb_log;
	rte_delay_us_sleep(50000);
	poll_n(2);
	CU_ASSERT_EQUAL(h.nb_log, mark);
	CU_ASSERT(rte_rds_close(s) == 0);
	lib_down();
}

static void
test_probe_sacked(void)
{
	struct rte_rds_eth_stats st;
	unsigned int i, n, mark;
	int s;

	/* The first window out, no ACK: no RTT sample. The probe. */
	s = first_window(&n);
	CU_ASSERT_FATAL(poll_until(offsetof(struct rte_rds_eth_stats,
					    rexmit_probe), 1));
	CU_ASSERT_EQUAL_FATAL(h.nb_log, n + 1);
	CU_ASSERT_EQUAL(h.log[n].seq, n - 1);
	/* Its SACK (bit i: frame 1 + i), at once: nothing goes. */
	peer_ack(0, 1ULL << (n - 2));
	poll_n(2);
	CU_ASSERT_EQUAL(h.nb_log, n + 1);
	/* The next turn: the RTO and the holes below it, no probe. */
	mark = h.nb_log;
	CU_ASSERT_FATAL(poll_until(offsetof(struct rte_rds_eth_stats,
					    rexmit_timeout), 1));
	st = eth_stats();
	if (st.rexmit_probe != 1 || h.log[mark].seq != 0)
		printf("\n    after the probe's SACK: %" PRIu64 " probes, "
		       "then frame %u", st.rexmit_probe, h.log[mark].seq);
	CU_ASSERT_EQUAL(st.rexmit_probe, 1);
	CU_ASSERT_EQUAL_FATAL(h.nb_log - mark, n - 1);
	for (i = 0; i < n - 1; i++)
		CU_ASSERT_EQUAL(h.log[mark + i].seq, i);
	CU_ASSERT_EQUAL(st.rexmit_timeout, n - 1);
	/* Everything acknowledged: the message goes on and is freed. */
	ack_rounds();
	CU_ASSERT(rte_rds_close(s) == 0);
	lib_down();
}

/* lib_up_opts(opts) must fail with EINVAL. */
static void
bad_conf(const char *opts)
{
	int ret;

	rte_errno = 0;
	ret = lib_up_opts(opts);
	if (ret != -1 || rte_errno != EINVAL)
		printf("\n    '%s': %d (%s), want -1 EINVAL", opts, ret,
		       rte_strerror(rte_errno));
	CU_ASSERT_EQUAL(ret, -1);
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	if (ret == 0)
		lib_down();
}

/* lib_up_opts(opts), a big message sent: the DATA frames that left
 * without an ACK. */
static unsigned int
frames_at_once(const char *opts)
{
	unsigned int n;
	int s;

	CU_ASSERT_FATAL(lib_up_opts(opts) == 0);
	s = send_big();
	poll_n(4);
	n = h.nb_log;
	CU_ASSERT(rte_rds_close(s) == 0);
	lib_down();
	return n;
}

static void
test_cwnd_conf(void)
{
	static const char *const bad[] = {
		",cwnd_init=1",		/* under RDS_ETH_CC_MIN */
		",cwnd_init=129",	/* above the window (128) */
		",window=8,cwnd_init=9",
		",cwnd_init=4097",	/* above any window */
		",cwnd_init=-1",
		",cwnd_init=ten",
		",cwnd_init=10k",
		",cwnd_init=",
		",cwnd_init=18446744073709551617",
	};
	unsigned int i, n;

	for (i = 0; i < RTE_DIM(bad); i++)
		bad_conf(bad[i]);
	/* Off: the fixed window, the whole message (28 frames and the
	 * map's one) at once. */
	n = frames_at_once(",cwnd_init=0");
	CU_ASSERT(n >= 29);
	CU_ASSERT_EQUAL(frames_at_once(",cwnd_init=4"), 4);
	CU_ASSERT_EQUAL(frames_at_once(",cwnd_init=128"), n);
	/* The default held to a window under it. */
	CU_ASSERT_EQUAL(frames_at_once(",window=8"), 8);
	CU_ASSERT_EQUAL(frames_at_once(""), RDS_ETH_CWND_INIT_DEFAULT);
	printf("\n    off: %u frames at once\n", n);
}

/* With delay_us=50000: the second window ACKed 200 ms after it left,
 * its ACK frame saying it was held 0 ns, or (held) the time since it
 * left (measured: a sleep that overran under load is still taken out).
 * The delay cuts counted, and *after: the frames that the ACK let go. */
static uint64_t
delay_round(bool held, unsigned int *after)
{
	uint64_t t0;
	static uint8_t buf[40000];
	struct sockaddr_in to = rds_test_sin(PEER_IP, PEER_PORT);
	uint64_t c0;
	unsigned int n, mark;
	int s;

	CU_ASSERT_FATAL(lib_up_opts(",delay_us=50000,rto_min_us=1000000")
			== 0);
	s = send_big();
	/* A second message: 60 frames in all. */
	CU_ASSERT_EQUAL(rte_rds_sendto(s, buf, sizeof(buf), MSG_DONTWAIT,
				       (struct sockaddr *)&to, sizeof(to)),
			(ssize_t)sizeof(buf));
	poll_n(4);
	n = h.nb_log;
	CU_ASSERT_EQUAL(n, RDS_ETH_CWND_INIT_DEFAULT);
	/* At once: the base (slow start: 20 frames go). */
	h.ack_hold = 0;
	peer_ack(sent_end(), 0);
	poll_n(4);
	mark = h.nb_log;
	CU_ASSERT_EQUAL(mark - n, 2 * RDS_ETH_CWND_INIT_DEFAULT);
	c0 = eth_stats().cc_delay_cuts;
	t0 = rte_get_tsc_cycles();
	rte_delay_us_sleep(200000);
	h.ack_hold = held ? (uint32_t)((rte_get_tsc_cycles() - t0) *
				       1000000000ull / rte_get_tsc_hz()) : 0;
	peer_ack(sent_end(), 0);
	poll_n(4);
	*after = h.nb_log - mark;
	c0 = eth_stats().cc_delay_cuts - c0;
	h.ack_hold = 0;
	CU_ASSERT(rte_rds_close(s) == 0);
	lib_down();
	return c0;
}

static void
test_delay_hold(void)
{
	static const char *const bad[] = {
		",cwnd_init=0,delay_us=100",
		",delay_us=1000001",
		",delay_us=ten",
		",delay_us=-1",
		",delay_us=",
	};
	unsigned int i, after;
	uint64_t cuts;

	for (i = 0; i < RTE_DIM(bad); i++)
		bad_conf(bad[i]);
	/* Off without congestion control is no error. */
	CU_ASSERT_FATAL(lib_up_opts(",cwnd_init=0,delay_us=0") == 0);
	lib_down();
	/* Held 0 ns: 200 ms above a base of a few us. The messages' 58
	 * frames and the map's: 10 + 20 went; the ACK of the 20 takes the
	 * window to 40 (slow start), which lets the 29 left go, unless the
	 * cut halved it (0.8 x (200 - base - 50) / 200 is over 0.5): 20. */
	cuts = delay_round(false, &after);
	printf("\n    held 0: %" PRIu64 " delay cuts, %u frames after\n",
	       cuts, after);
	CU_ASSERT_EQUAL(cuts, 1);
	CU_ASSERT_EQUAL(after, 20);
	/* Held the 200 ms (as long as it took): the network's round trip
	 * is small. */
	cuts = delay_round(true, &after);
	printf("    held 200 ms: %" PRIu64 " delay cuts, %u frames after\n",
	       cuts, after);
	CU_ASSERT_EQUAL(cuts, 0);
	CU_ASSERT(after > 20);
}

static void
test_zero_window(void)
{
	unsigned int n, mark;
	int s;

	s = first_window(&n);
	/* All acknowledged, window 0: nothing in flight and nothing may
	 * go (no timer runs either). */
	peer_ack_wnd(sent_end(), 0, 0);
	poll_n(4);
	mark = h.nb_log;
	CU_ASSERT_EQUAL(mark, n);
	rte_delay_us_sleep(50000);
	poll_n(4);
	CU_ASSERT_EQUAL(h.nb_log, mark);
	/* The window update alone (nothing new acknowledged) lets the
	 * message go on. */
	peer_ack_wnd(sent_end(), 0, 128);
	poll_n(4);
	if (h.nb_log == mark)
		printf("\n    nothing sent after the window reopened");
	CU_ASSERT(h.nb_log > mark);
	printf("\n    %u frames after the window reopened\n",
	       h.nb_log - mark);
	CU_ASSERT(rte_rds_close(s) == 0);
	lib_down();
}

static void
test_all_sacked(void)
{
	unsigned int n, rounds;
	uint64_t end;
	int s;

	s = first_window(&n);
	/* Every frame in flight SACKed (as the sequence before frame 0
	 * sees them), none acknowledged: the library lets their buffers go
	 * and has nothing to send again. */
	peer_ack(UINT32_MAX, (1ULL << n) - 1);
	poll_n(2);
	CU_ASSERT_EQUAL(h.nb_log, n);
	/* Its timer asks for the ACK instead (the probe's turn first). */
	end = rte_get_tsc_cycles() + 5 * rte_get_tsc_hz();
	while (h.pokes == 0 && rte_get_tsc_cycles() < end) {
		poll_n(1);
		rte_delay_us_sleep(100);
	}
	if (h.pokes == 0)
		printf("\n    no ACK asked for in 5 s: the stream waits for "
		       "good");
	CU_ASSERT_FATAL(h.pokes > 0);
	CU_ASSERT_EQUAL(h.nb_log, n);
	/* The answer passes them all; the rest of the message goes. */
	rounds = ack_rounds();
	printf("\n    %u ACK request(s), then the message in %u rounds\n",
	       h.pokes, rounds + 1);
	CU_ASSERT(rte_rds_close(s) == 0);
	lib_down();
}

/* Poll until h.pokes reaches want or 5 s passed; h.pokes. */
static unsigned int
wait_pokes(unsigned int want)
{
	uint64_t end = rte_get_tsc_cycles() + 5 * rte_get_tsc_hz();

	while (h.pokes < want && rte_get_tsc_cycles() < end) {
		poll_n(1);
		rte_delay_us_sleep(100);
	}
	return h.pokes;
}

static void
test_kick(void)
{
	static const char *const bad[] = {
		",kick_us=1000001", ",kick_us=-1", ",kick_us=", ",kick_us=2ms",
	};
	struct rte_rds_eth_stats st;
	unsigned int i, n;
	int s;

	for (i = 0; i < RTE_DIM(bad); i++)
		bad_conf(bad[i]);
	CU_ASSERT_FATAL(lib_up_opts(",kick_us=2000") == 0);
	s = send_big();
	poll_n(4);
	n = h.nb_log;
	CU_ASSERT_EQUAL_FATAL(n, RDS_ETH_CWND_INIT_DEFAULT);
	/* No answer: the kick, alone, before the probe (20 ms). */
	if (wait_pokes(1) == 0)
		printf("\n    no kick in 5 s");
	CU_ASSERT_FATAL(h.pokes == 1);
	st = eth_stats();
	CU_ASSERT_EQUAL(st.tx_kicks, 1);
	CU_ASSERT_EQUAL(st.rexmit_probe, 0);
	CU_ASSERT_EQUAL(st.rexmit_timeout, 0);
	CU_ASSERT_EQUAL(h.nb_log, n);
	/* Still nothing: the probe next, and no second kick. */
	CU_ASSERT_FATAL(poll_until(offsetof(struct rte_rds_eth_stats,
					    rexmit_probe), 1));
	CU_ASSERT_EQUAL(h.pokes, 1);
	CU_ASSERT_EQUAL(eth_stats().tx_kicks, 1);
	/* Progress (the first frame acknowledged): the next silence kicks
	 * again. */
	peer_ack(h.log[0].seq + 1, 0);
	poll_n(2);
	if (wait_pokes(2) < 2)
		printf("\n    no kick after progress in 5 s");
	CU_ASSERT_EQUAL(h.pokes, 2);
	CU_ASSERT_EQUAL(eth_stats().tx_kicks, 2);
	printf("\n    %u kicks, %" PRIu64 " probe(s)\n", h.pokes,
	       eth_stats().rexmit_probe);
	CU_ASSERT(rte_rds_close(s) == 0);
	lib_down();
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "sack_holes_only", test_sack_holes_only },
		{ "probe_sacked", test_probe_sacked },
		{ "cwnd_conf", test_cwnd_conf },
		{ "delay_hold", test_delay_hold },
		{ "zero_window", test_zero_window },
		{ "all_sacked", test_all_sacked },
		{ "kick", test_kick },
		{ NULL, NULL },
	};

	return rds_test_main("eth_rexmit", "0", cases);
}

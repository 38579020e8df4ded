/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_recv: libFuzzer target for the receive path of the librte_rds
 * core, entered where a peer's bytes enter: frames as a transport
 * receives them, handed to rds_recv_frame() / rds_recv_frame_msg() on a
 * connection of the capture transport (fuzz_cap.c), interleaved with
 * engine polls, socket receives and sends, connection resets, RDMA
 * operations of a local initiator and RDS_FREE_MR, as the input says.
 * What comes out (messages received, frames the core transmits, RDMA
 * effects on guard-paged regions, counters) is judged by the oracles in
 * fuzz_oracle.c and fuzz_mr.c, which abort on a violation.
 *
 * The EAL and the library come up once per process; each input opens
 * the sockets, registers the regions, meets a new connection to the
 * peer and leaves nothing behind (fuzz_state.h, checked: a leak aborts).
 * A fixed random seed and the engines' clock held at the same phase for
 * each (time moves by the input's delays and the harness's settling
 * only): an input alone reproduces what it found. The world of a run:
 *
 *   10.255.0.1  capture transport, peer 10.9.9.9 (the harness):
 *               sockets on 4000, 4001 (SO_RCVBUF at its minimum, to
 *               congest), 4002; regions R0 (4000, USE_ONCE, 2 pages),
 *               R1 (4000, read-write), R2 (4001, USE_ONCE), R3 (4002,
 *               read-only, across a page boundary)
 *   10.255.0.2  loop: a socket on 4000 (owns R4, USE_ONCE), the RDMA
 *               initiator on 5001
 *
 * Input: a sequence of steps, each an opcode byte and its arguments
 * (see the op_* functions); reads past the end give zeros. Frames come
 * structured (the harness fills in the checksum, sequence numbers that
 * follow on, keys and cookies of the live regions, unless the input asks
 * for a zero or a corrupt checksum) or raw (48 header bytes and a
 * payload exactly as given, checksum included).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <rte_random.h>

#include "fuzz_common.h"
#include "fuzz_cap.h"
#include "fuzz_mr.h"
#include "fuzz_oracle.h"
#include "fuzz_recv_sock.h"
#include "fuzz_state.h"
#include "rds_private.h"

#define CAP_IP "10.255.0.1"
#define LOOP_IP "10.255.0.2"
#define PEER_IP "10.9.9.9"

#define NB_SOCKS 5
#define SOCK_INITIATOR 4	/* index in world.s[] */
/* Steps of one input: each injects at most one frame and sends at most
 * one message, which keeps the oracle's tables (FO_MAX_FRAMES,
 * FO_MAX_SENT) from filling. */
#define MAX_STEPS 512
_Static_assert(MAX_STEPS <= FO_MAX_FRAMES && 2 * MAX_STEPS <= FO_MAX_SENT,
	       "oracle tables too small for MAX_STEPS");
#define DELAY_BUDGET_US 600
#define SETTLE_MS 40

static const struct {
	const char *ip;
	uint16_t port;
	int rcvbuf;		/* 0: default */
} sock_conf[NB_SOCKS] = {
	{ CAP_IP, 4000, 0 },
	{ CAP_IP, 4001, 1 },	/* the minimum */
	{ CAP_IP, 4002, 0 },
	{ LOOP_IP, 4000, 0 },
	{ LOOP_IP, 5001, 0 },
};

/* Region i: pages, registered offset and length, flags, owner socket. */
static const struct {
	unsigned int pages;
	uint32_t off, len;
	uint64_t flags;
	int owner;
} region_conf[] = {
	{ 2, 100, 2 * FM_PAGE - 100, RDS_RDMA_USE_ONCE | RDS_RDMA_READWRITE, 0 },
	{ 1, 0, FM_PAGE, RDS_RDMA_READWRITE, 0 },
	{ 1, 8, 64, RDS_RDMA_USE_ONCE | RDS_RDMA_READWRITE, 1 },
	{ 2, 4000, 200, 0, 2 },
	{ 1, 0, FM_PAGE, RDS_RDMA_USE_ONCE | RDS_RDMA_READWRITE, 3 },
};
#define NB_REGIONS RTE_DIM(region_conf)

static struct {
	uint32_t cap_ip, loop_ip, peer_ip;	/* network order */
	int s[NB_SOCKS];			/* handles */
	int si[NB_SOCKS];			/* oracle indexes */
	struct rds_conn *conn;			/* to the peer */
	uint64_t peer_seq;			/* peer's last sequence */
	uint64_t shutdowns;
	unsigned int delay_us;
	struct rte_rds_stats st0;		/* counters at the input's start */
	struct fz_state clean;			/* the library between inputs */
	bool warm;				/* clean was taken */
} world;

static uint8_t pay[FZ_MAX_MSG + 64];
/* Large payloads: windows of one pattern, made once. */
#define PAT_SEEDS 64
#define PAT_STEP 4099
static uint8_t patbuf[FZ_MAX_MSG + 64 + PAT_SEEDS * PAT_STEP];

/* ------------------------------------------------------------------ */
/* World */

static void
poll_once(void)
{
	struct fz_cap_stats cs;

	FZ_TRACE("poll");
	rte_rds_engine_poll(0);
	fz_cap_stats(&cs);
	if (cs.shutdowns != world.shutdowns) {
		/* The core reset the connection itself. */
		world.shutdowns = cs.shutdowns;
		fo_reset_conn();
	}
	fo_polled();
	fo_settle_tx();
}

static int
sock_open(const char *ip, uint16_t port, int rcvbuf)
{
	struct sockaddr_in sin;
	int s = rte_rds_socket();

	FZ_CHECK(s >= 0, "rte_rds_socket: errno %d", errno);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = inet_addr(ip);
	sin.sin_port = htons(port);
	FZ_CHECK(rte_rds_bind(s, (struct sockaddr *)&sin, sizeof(sin)) == 0,
		 "bind %s:%u: errno %d", ip, port, errno);
	if (rcvbuf != 0)
		FZ_CHECK(rte_rds_setsockopt(s, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
					    sizeof(rcvbuf)) == 0,
			 "SO_RCVBUF: errno %d", errno);
	return s;
}

static void
world_up(void)
{
	unsigned int i, tries;

	fz_step = 0;
	rte_srand(0x5eed);
	fz_clock_input();
	fz_cap_reset_stats();
	world.shutdowns = 0;
	world.peer_seq = 0;
	world.delay_us = 0;
	fo_reset(world.cap_ip, world.peer_ip);
	FZ_CHECK(rte_rds_stats_get(-1, &world.st0) == 0, "rte_rds_stats_get");
	for (i = 0; i < NB_SOCKS; i++) {
		world.s[i] = sock_open(sock_conf[i].ip, sock_conf[i].port,
				       sock_conf[i].rcvbuf);
		world.si[i] = fo_add_sock(world.s[i],
					  inet_addr(sock_conf[i].ip),
					  sock_conf[i].port);
	}
	fm_reset(world.s[SOCK_INITIATOR]);
	for (i = 0; i < NB_REGIONS; i++) {
		int o = region_conf[i].owner;

		fm_register(i, world.s[o], world.si[o],
			    inet_addr(sock_conf[o].ip));
	}
	/* The peer connects (a transport's passive side). */
	world.conn = fz_cap_conn(world.cap_ip, world.peer_ip);
	FZ_CHECK(world.conn != NULL, "no connection to the peer");
	for (tries = 0; tries < 16 && world.conn->state != RDS_CONN_UP;
	     tries++)
		poll_once();
	FZ_CHECK(world.conn->state == RDS_CONN_UP, "connection not up");
	poll_once();
}

/* Drain socket i completely, through the oracle. */

static void
world_down(void)
{
	struct rte_rds_stats st, st1;
	unsigned int i, t;

	/* Let the core finish what it owes (ACKs after the delayed-ACK
	 * time, pongs, messages), within a bound. */
	poll_once();
	for (t = 0; fo_tx_owed() && t < SETTLE_MS * 1000; t += 20) {
		fz_clock_us(20);
		poll_once();
	}
	for (i = 0; i < NB_SOCKS; i++)
		fz_recv_full(world.s[i], world.si[i], i, FO_MAX_FRAMES + 1);
	poll_once();
	FZ_CHECK(rte_rds_stats_get(-1, &st1) == 0, "rte_rds_stats_get");
	fz_stats_sub(&st, &st1, &world.st0);
	fz_digest_add(&st, sizeof(st));
	fo_finish(&st, fm.ops);
	fm_finish();
	fz_input_end(world.s, NB_SOCKS, world.peer_ip,
		     world.warm ? &world.clean : NULL);
	world.conn = NULL;
}

/* ------------------------------------------------------------------ */
/* Frames */

static void
inject(const uint8_t w[FZ_HDR_SIZE], const uint8_t *p, uint32_t len,
       bool use_msg)
{
	const struct rds_header *h = (const void *)w;
	struct rds_msg *m = NULL;
	int ret;

	if (!fo_room(len))
		return;
	if (use_msg && len <= FZ_MAX_MSG)
		m = rds_msg_alloc(len);
	if (m != NULL) {
		/* The transport hands its buffer over (reassembly). */
		if (len != 0)
			memcpy(rds_msg_data(m), p, len);
		ret = rds_recv_frame_msg(world.conn, h, m);
	} else {
		ret = rds_recv_frame(world.conn, h, p, len);
	}
	if (unlikely(fz_trace)) {
		struct fz_hdr th;

		fz_hdr_decode(w, &th);
		FZ_TRACE("frame seq %llu ack %llu sport %u dport %u flags 0x%02x "
			 "hlen %u len %u csum %s%s: %d",
			 (unsigned long long)th.seq, (unsigned long long)th.ack,
			 th.sport, th.dport, th.flags, th.len, len,
			 fz_hdr_csum_ok(w) ? "ok" : "bad",
			 m != NULL ? " (buffer)" : "", ret);
	}
	fo_inject(w, p, len, ret);
	if (ret == -ENOMEM) {
		/* The contract: the transport fails the connection. */
		rds_conn_error(world.conn, "fuzz: frame not kept");
		fo_reset_conn();
	}
}

/* A key the input picks: one of a region, 0, or any. */
static uint32_t
pick_key(struct fz_in *in)
{
	uint8_t sel = fz_u8(in) % 8;

	if (sel < NB_REGIONS)
		return (uint32_t)fm.r[sel].cookie;
	if (sel == NB_REGIONS)
		return 0;
	return fz_u32(in);
}

static uint16_t
pick_port(struct fz_in *in, uint8_t sel)
{
	static const uint16_t ports[] = { 4000, 4001, 4002, 4003, 0, 1, 4000 };

	sel %= RTE_DIM(ports) + 1;
	return sel < RTE_DIM(ports) ? ports[sel] : fz_u16(in);
}

/* Extension headers: structured (what fits, keys and cookies of live
 * regions on request) or 16 raw bytes. */
static void
build_ext(struct fz_in *in, uint8_t ext[FZ_EXT_SPACE])
{
	uint8_t b = fz_u8(in);
	unsigned int n = b & 3, off = 0, i, type, sz;
	uint32_t v;

	memset(ext, 0, FZ_EXT_SPACE);
	if (b & 4) {
		fz_bytes(in, ext, FZ_EXT_SPACE);
		return;
	}
	for (i = 0; i < n; i++) {
		type = fz_u8(in) % FZ_EXT_MAX;
		sz = fz_ext_size(type);
		if (off + 1 + sz > FZ_EXT_SPACE)
			break;
		ext[off++] = (uint8_t)type;
		if (type == FZ_EXT_RDMA || type == FZ_EXT_RDMA_DEST) {
			v = pick_key(in);
			ext[off] = (uint8_t)(v >> 24);
			ext[off + 1] = (uint8_t)(v >> 16);
			ext[off + 2] = (uint8_t)(v >> 8);
			ext[off + 3] = (uint8_t)v;
			if (type == FZ_EXT_RDMA_DEST)
				fz_bytes(in, &ext[off + 4], 4);
		} else {
			fz_bytes(in, &ext[off], sz);
		}
		off += sz;
	}
}

/* Any length up to just over 1 MiB from v: its low 28 bits modulo that,
 * shifted right by its top 4 (v below 2^28: the length v % (1 MiB +
 * 17), as before the shift; the seeds' lengths are such). Every length
 * stays reachable, and lengths near 1 MiB are 1/16 of random v, not half
 * of them: a buffer over 128 KiB is an mmap under ASan, a page fault per
 * 4 KiB, and they made most of an input's time. 1 MiB and the limit
 * have their own selector (near 1 MiB). */
static uint32_t
pick_big_len(uint32_t v)
{
	return ((v & 0x0fffffffu) % (FZ_MAX_MSG + 17)) >> (v >> 28);
}

/* A payload: bytes from the input, a congestion map, a large pattern
 * (up to 64 KiB, or near 8 KiB, or near 1 MiB, or any size up to just
 * over 1 MiB), or nothing. *p is where it is. */
static uint32_t
build_payload(struct fz_in *in, const uint8_t **p)
{
	uint8_t b = fz_u8(in), sel;
	uint32_t len, i, n;
	uint16_t port;

	*p = pay;
	switch (b & 3) {
	case 0:
		len = fz_u16(in) % 2049;
		fz_bytes(in, pay, len);
		return len;
	case 1:
		memset(pay, 0, FZ_CONG_MAP_BYTES);
		n = (b >> 2) & 7;
		for (i = 0; i < n; i++) {
			port = pick_port(in, fz_u8(in));
			pay[port / 8] |= (uint8_t)(1u << (port % 8));
		}
		return FZ_CONG_MAP_BYTES;
	case 2:
		sel = fz_u8(in);
		switch (sel & 3) {
		case 0:
			len = fz_u16(in);
			break;
		case 1:
			len = FZ_CONG_MAP_BYTES - 8 + fz_u8(in) % 17;
			break;
		case 2:
			len = FZ_MAX_MSG - 8 + fz_u8(in) % 17;
			break;
		default:
			len = pick_big_len(fz_u32(in));
			break;
		}
		*p = patbuf + (sel >> 2) % PAT_SEEDS * PAT_STEP;
		return len;
	default:
		return 0;
	}
}

/*
 * Structured frame: mode, flags, sport, dport, extensions, payload.
 * mode bits 0-1: checksum (0, 1: right; 2: zero; 3: wrong), bit 2:
 * buffer handed over (rds_recv_frame_msg), bit 3: header length off by a
 * little, bits 4-5: sequence (next, same, any, a little back), bits 6-7:
 * ACK (0, the core's last, any, near the core's last).
 */
static void
op_frame(struct fz_in *in)
{
	uint8_t mode = fz_u8(in), w[FZ_HDR_SIZE];
	const uint8_t *p;
	struct fz_hdr h;
	uint32_t len;
	int d;

	memset(&h, 0, sizeof(h));
	h.flags = fz_u8(in);
	switch ((mode >> 4) & 3) {
	case 0:
		h.seq = ++world.peer_seq;
		break;
	case 1:
		h.seq = world.peer_seq;
		break;
	case 2:
		h.seq = fz_u64(in);
		world.peer_seq = h.seq;
		break;
	default:
		h.seq = world.peer_seq - fz_u8(in) % 8;
		break;
	}
	switch (mode >> 6) {
	case 0:
		h.ack = 0;
		break;
	case 1:
		h.ack = fo.tx_last_seq;
		break;
	case 2:
		h.ack = fz_u64(in);
		break;
	default:
		h.ack = fo.tx_last_seq + (int8_t)fz_u8(in) % 4;
		break;
	}
	switch (fz_u8(in) % 4) {
	case 0:
		h.sport = 6000;
		break;
	case 1:
		h.sport = 6001;
		break;
	case 2:
		h.sport = 0;
		break;
	default:
		h.sport = fz_u16(in);
		break;
	}
	h.dport = pick_port(in, fz_u8(in));
	build_ext(in, h.ext);
	len = build_payload(in, &p);
	h.len = len;
	if (mode & 8) {
		d = (int)(fz_u8(in) % 5) - 2;
		h.len = (uint32_t)((int64_t)len + (d == 0 ? 1 : d));
	}
	fz_hdr_encode(&h, w);
	switch (mode & 3) {
	case 2:
		break;	/* 0: not computed */
	case 3:
		fz_hdr_csum_fix(w);
		w[30] ^= (uint8_t)(1 + fz_u8(in) % 255);
		break;
	default:
		fz_hdr_csum_fix(w);
		break;
	}
	inject(w, p, len, (mode & 4) != 0);
}

/* Raw frame: 48 header bytes, a payload length, the payload. */
static void
op_raw(struct fz_in *in)
{
	uint8_t w[FZ_HDR_SIZE];
	uint32_t len;
	bool use_msg = fz_u8(in) & 1;

	fz_bytes(in, w, sizeof(w));
	len = fz_u16(in) % 4097;
	fz_bytes(in, pay, len);
	inject(w, pay, len, use_msg);
}

/* Send from a socket of ours to the peer: socket, port, bytes. */
static void
op_send(struct fz_in *in)
{
	static const uint16_t ports[] = { 7000, 7001, 6000 };
	uint8_t b = fz_u8(in), sel = fz_u8(in) % 4;
	unsigned int i = b % 3;
	uint16_t dport = sel < RTE_DIM(ports) ? ports[sel] : fz_u16(in);
	uint32_t len = fz_u16(in) % 2049;
	struct sockaddr_in to;
	ssize_t ret;
	int err;

	fz_bytes(in, pay, len);
	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	to.sin_addr.s_addr = world.peer_ip;
	to.sin_port = htons(dport);
	ret = rte_rds_sendto(world.s[i], pay, len, MSG_DONTWAIT,
			     (struct sockaddr *)&to, sizeof(to));
	err = ret < 0 ? errno : 0;
	FZ_TRACE("socket %u sends %u bytes to port %u: %zd (errno %d)", i,
		 len, dport, ret, err);
	fo_send(world.si[i], dport, pay, len, (long)ret, err);
}

/* ------------------------------------------------------------------ */
/* RDMA, resets, time */

/* An operation of the initiator: kind, cookie (a region's, with another
 * offset, any, or a region's at the wrong address), offset, length,
 * atomic arguments, write data. */
static void
op_rdma(struct fz_in *in)
{
	uint8_t k = fz_u8(in) % FM_NB_KINDS, rs = fz_u8(in), os = fz_u8(in);
	const struct fm_region *r = &fm.r[(rs >> 3) % NB_REGIONS];
	uint32_t target = r->laddr, len;
	uint64_t cookie = r->cookie, off, a[4];
	unsigned int i;

	switch (rs % 4) {
	case 0:
		break;
	case 1:
		cookie = (uint32_t)r->cookie | (uint64_t)fz_u16(in) << 32;
		break;
	case 2:
		cookie = fz_u64(in);
		break;
	default:
		target = target == world.cap_ip ? world.loop_ip :
			 world.cap_ip;
		break;
	}
	off = (os & 0x80) ? fz_u64(in) : fz_u16(in) % (3 * FM_PAGE);
	len = fz_u16(in) % (2 * FM_PAGE + 16);
	for (i = 0; i < 4; i++)
		a[i] = k >= FM_FADD ? fz_u64(in) : 0;
	FZ_TRACE("rdma kind %u cookie 0x%llx off %llu len %u", k,
		 (unsigned long long)cookie, (unsigned long long)off, len);
	fm_op((enum fm_op_kind)k, target, 9, cookie, off, len, a, fz_u8(in),
	      poll_once);
}

static void
op_reset(void)
{
	/* A transport error: the core drops the connection and connects
	 * again (retransmitting what was not acknowledged). */
	FZ_TRACE("reset");
	rds_conn_error(world.conn, "fuzz: transport error");
	fo_reset_conn();
	poll_once();
	poll_once();
}

static void
op_delay(struct fz_in *in)
{
	unsigned int us = (fz_u8(in) % 4) * 100;

	if (world.delay_us + us > DELAY_BUDGET_US)
		return;
	world.delay_us += us;
	fz_clock_us(us);
	poll_once();
}

/* ------------------------------------------------------------------ */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
static void run_input(const uint8_t *data, size_t size);

/* A send of socket 0 to the peer's port 7001, 45 bytes. */
static const uint8_t warm_up[] = { 0x3b, 0x2d };

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct rte_rds_conf conf;
	unsigned int i;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	fz_eal_init("fuzz_recv");
	world.cap_ip = inet_addr(CAP_IP);
	world.loop_ip = inet_addr(LOOP_IP);
	world.peer_ip = inet_addr(PEER_IP);
	for (i = 0; i < NB_REGIONS; i++)
		fm_add_region(region_conf[i].pages, region_conf[i].off,
			      region_conf[i].len, region_conf[i].flags);
	fm_set_lbuf(3);
	fz_pattern(patbuf, sizeof(patbuf), 0x9a77);
	fo_set_stable(patbuf, sizeof(patbuf));
	fz_digest_inner(fo_tx_sink);
	fz_cap_set_sink(fz_digest_sink, NULL);
	fo.deliver_hook = fm_deliver_hook;
	fz_clock_hold();
	rte_rds_conf_init(&conf);
	conf.engine[0].lcore_id = RTE_RDS_ENGINE_INLINE;
	if (rte_rds_conf_add_addr(&conf, CAP_IP, FZ_CAP_NAME, NULL) != 0 ||
	    rte_rds_conf_add_addr(&conf, LOOP_IP, "loop", NULL) != 0 ||
	    rte_rds_init(&conf) != 0)
		fz_fail("rte_rds_init: errno %d", rte_errno);
	/* The library between inputs: as after a first input that makes
	 * what lives as long as it (the peer's congestion map, the ports'
	 * pages, this thread's doorbell, made at its first send). */
	run_input(warm_up, sizeof(warm_up));
	fz_state_take(&world.clean);
	world.warm = true;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_recheck_run(run_input, data, size);
	return 0;
}

static void
run_input(const uint8_t *data, size_t size)
{
	struct fz_in in;
	uint8_t op;

	FZ_TRACE("input of %zu bytes", size);
	fz_in_init(&in, data, size);
	world_up();
	while (!in.eof && in.left > 0 && fz_step < MAX_STEPS) {
		fz_step++;
		op = fz_u8(&in);
		switch (op % 16) {
		case 0: case 1: case 2: case 3: case 4: case 5: case 6:
			op_frame(&in);
			break;
		case 7:
			op_raw(&in);
			break;
		case 8: case 9:
			poll_once();
			if (op & 0x10)
				poll_once();
			break;
		case 10:
			fz_op_recv(&in, world.s, world.si);
			break;
		case 11:
			op_send(&in);
			break;
		case 12:
			op_rdma(&in);
			break;
		case 13:
			if (op & 0x80)
				op_reset();
			else
				fm_free(fz_u8(&in) % NB_REGIONS);
			break;
		case 14:
			op_delay(&in);
			break;
		default:
			/* A frame the checksum of which the fuzzer must get
			 * right (or leave at zero). */
			op_raw(&in);
			break;
		}
	}
	fz_step++;
	world_down();
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_eth_rx: libFuzzer target for the eth transport's receive path
 * after the frame parser: the reliable frame layer (rds_eth_rel.c:
 * sequence numbers, window, frames kept out of order, duplicates,
 * epochs, a restarted peer, ACK/SACK fields) and the reassembly of
 * fragmented messages up to 1 MiB (rds_eth_msg.c), through the real
 * driver: the library with one eth address, 10.254.0.1, on a net_ring
 * port whose receive ring the harness fills and whose transmit ring it
 * drains. The harness is the peer 10.254.0.2 (a static neighbour).
 *
 * The EAL, rings, port, the harness's mbuf pool and the library come up
 * once per process; each input opens the socket, meets a new connection
 * and leaves nothing behind (the socket closed, every connection
 * destroyed, fuzz_state.h checked: a leak aborts). A fixed random seed
 * and the engines' clock held at the same phase for each (time moves by
 * the input's sleeps only): an input alone reproduces what it found.
 * An input is a prologue and steps:
 *
 *   prologue: peer epoch (u32), number of messages (1..8), fragment
 *             size, and per message its length (bit 15 of the first
 *             u16: a large one, up to 1 MiB);
 *   steps:    an opcode byte and its arguments: send one frame of the
 *             peer's stream (any sequence near the next, with faults
 *             the input picks: bad CRC, flags flipped, fragment offset
 *             moved, payload cut short, unknown type, wrong dst epoch,
 *             a payload byte changed under a valid CRC), a burst of
 *             frames in order, an engine poll, a short sleep (timers),
 *             a socket receive, a restart of the peer (new epoch, the
 *             stream again from a message the input picks), a stale
 *             frame of the previous epoch, a bare ACK with fields from
 *             the input, a message from the socket to the peer (so
 *             that ACK/SACK input has frames to act on).
 *
 * The peer's stream is a schedule: message i is an RDS frame (48-byte
 * header, kernel format, sequence i + 1, to port 4000 from 5000) whose
 * payload byte at offset o is pat(i, o), cut in fragments of the
 * fragment size, one per sequence number; after a restart the stream
 * starts again at sequence 0 from the message the input picks, every
 * message marked RETRANSMITTED (as RDS resends after a reset). Oracles (abort on violation):
 * - every message the socket receives has the length of some message i
 *   and exactly its bytes, from 10.254.0.2:5000 (unless the input sent
 *   a payload byte changed under a valid CRC, which no receiver can
 *   tell: then only the next ones hold);
 * - no message i is received twice;
 * - every frame with a bad CRC and every frame of unknown type is
 *   counted (rx_drop_crc, rx_drop_type) by the end of the input;
 * - the harness's mbufs all come back by the end of the input, its
 *   connection destroyed (the driver frees what it took); ASan/UBSan;
 *   LeakSanitizer at exit.
 *
 * And on what the driver sends, whose only acknowledgement is the
 * harness's frame ACKs (RDS_TRANS_F_ACKS; the model follows the
 * driver's stream frame by frame, each frame's flags and the RDS
 * message its unit carries, and every ACK the harness sends):
 * - no RDS ACK-only frame, and no ACK in an RDS header;
 * - the socket's messages are freed (s_send_acked) only when an ACK of
 *   the harness's covered the last frame of each, cumulatively, in the
 *   stream it went in (they are freed in order: message k is freed only
 *   once k's last frame was acknowledged); an ACK may name a frame the
 *   driver numbered and had not yet put on the wire when it read the
 *   ACK (its batch goes at the end of the pass), so an ACK ahead of the
 *   frames seen counts for those the same pass sends;
 * - a message is never sent again once freed; one sent again (in a new
 *   stream, after a reset) is marked RETRANSMITTED; new ones go in
 *   order;
 * - at the end, with the harness acknowledging all the driver sends
 *   (from a new stream of its own, which the driver always takes),
 *   every message the socket sent is freed: none was lost to a reset
 *   unsent.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_eth_ring.h>
#include <rte_mbuf.h>
#include <rte_random.h>
#include <rte_ring.h>
#include <rte_rds.h>
#include <rte_rds_eth.h>
#include <rte_rds_stats.h>

#include "fuzz_common.h"
#include "fuzz_eth_rx.h"
#include "fuzz_state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fzrx_world w;

static uint8_t rbuf[(1u << 20) + 64];

static inline uint8_t
pat(uint32_t i, uint32_t o)
{
	uint32_t x = (o + 1) * 2654435761u ^ (i + 1) * 0x9e3779b9u;

	return (uint8_t)(x >> 13 ^ x >> 24);
}

/* Bytes [off, off + len) of unit i into dst (its RDS header with
 * flags hflags). */
static void
unit_bytes(uint32_t i, uint8_t hflags, uint32_t off, uint32_t len,
	   uint8_t *dst)
{
	uint8_t hdr[FZ_HDR_SIZE];
	uint32_t k;

	if (off < FZ_HDR_SIZE) {
		struct fz_hdr h;

		memset(&h, 0, sizeof(h));
		h.seq = i + 1;
		h.len = w.len[i];
		h.sport = PEER_PORT;
		h.dport = OUR_PORT;
		h.flags = hflags;
		fz_hdr_encode(&h, hdr);
		fz_hdr_csum_fix(hdr);
	}
	for (k = 0; k < len; k++) {
		uint32_t o = off + k;

		dst[k] = o < FZ_HDR_SIZE ? hdr[o] : pat(i, o - FZ_HDR_SIZE);
	}
}

/* The schedule from message 'from' on: in a new stream of the peer's
 * (rexmit), messages are marked RETRANSMITTED, as RDS does after a
 * reset, so that the core drops those it has (a message not so marked
 * with an old sequence is a restarted peer's new one, and taken). */
static void
schedule(uint32_t from, bool rexmit)
{
	uint32_t i, off, n;

	w.nb_sch = 0;
	w.first = from;
	for (i = from; i < w.nmsg; i++) {
		uint32_t ulen = FZ_HDR_SIZE + w.len[i];

		for (off = 0; off < ulen && w.nb_sch < MAX_FRAMES; off += n) {
			struct sframe *s = &w.sch[w.nb_sch++];

			n = RTE_MIN(w.frag, ulen - off);
			s->msg = (uint8_t)i;
			s->hflags = rexmit ? FZ_FLAG_RETRANSMITTED : 0;
			s->off = off;
			s->len = (uint16_t)n;
			s->flags = (off == 0 ? RDS_ETH_FL_FIRST : 0) |
				   (off + n == ulen ? RDS_ETH_FL_LAST : 0);
		}
	}
}

/* ------------------------------------------------------------------ */
/* Frames */

static void
inject(const uint8_t *b, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(w.pool);
	char *d;

	FZ_CHECK(m != NULL, "harness pool empty");
	d = rte_pktmbuf_append(m, (uint16_t)len);
	FZ_CHECK(d != NULL, "frame too long for an mbuf");
	memcpy(d, b, len);
	if (rte_ring_enqueue(w.rx, m) != 0)
		rte_pktmbuf_free(m);
}

/* Faults of a frame step (bits of a byte). */
#define M_BAD_CRC 0x01
#define M_FLAGS 0x02
#define M_OFF 0x04
#define M_SHORT 0x08
#define M_TYPE 0x10
#define M_DST 0x20
#define M_BYTE 0x40

/* Build and inject frame f of type DATA with payload from unit msg. */
static void
send_frame(const struct sframe *s, uint32_t seq, uint32_t epoch, uint8_t mut,
	   struct fz_in *in)
{
	struct rds_eth_frame f;
	struct rte_mbuf *m;
	uint32_t len = s->len;
	uint8_t arg = mut ? fz_u8(in) : 0;

	memset(&f, 0, sizeof(f));
	f.type = RDS_ETH_F_DATA;
	f.flags = s->flags | (w.acked ? 0 : RDS_ETH_FL_OPEN);
	f.src_epoch = epoch;
	f.dst_epoch = w.our_epoch;
	f.seq = seq;
	f.ack = 0;
	f.wnd = WINDOW;
	f.frag_off = s->off;
	if (mut & M_FLAGS)
		f.flags ^= (arg & 3) << 1;	/* FIRST, LAST */
	if (mut & M_OFF)
		f.frag_off += (uint32_t)(int8_t)arg | 1;
	if ((mut & M_SHORT) && len > 1)
		len -= 1 + arg % (len - 1);
	if (mut & M_DST)
		f.dst_epoch ^= 1u + arg;
	f.len = (uint16_t)len;
	m = rte_pktmbuf_alloc(w.pool);
	FZ_CHECK(m != NULL, "harness pool empty");
	FZ_CHECK(rte_pktmbuf_append(m, (uint16_t)(RDS_ETH_HDRS + len)) != NULL,
		 "append");
	/* The bytes of the offset the frame claims (a moved offset is a
	 * consistent lie: a receiver that ignored it would misplace them). */
	unit_bytes(s->msg, s->hflags, f.frag_off, len,
		   rte_pktmbuf_mtod_offset(m, uint8_t *, RDS_ETH_HDRS));
	if ((mut & M_BYTE) && len != 0) {
		rte_pktmbuf_mtod_offset(m, uint8_t *, RDS_ETH_HDRS)
			[arg % len] ^= 0x5a;
		w.tainted = true;
	}
	FZ_CHECK(rds_eth_frame_build(m, &w.peer_mac, &w.our_mac, w.peer_ip,
				     w.our_ip, RDS_ETH_UDP_PORT,
				     RDS_ETH_UDP_PORT, &f, false) == 0,
		 "frame build");
	if (mut & M_BAD_CRC) {
		struct rds_eth_hdr *h = rte_pktmbuf_mtod_offset(m,
			struct rds_eth_hdr *, RDS_ETH_L2L3L4);

		h->crc ^= rte_cpu_to_be_32(1u << (arg % 32));
		w.bad_crc++;
	} else if (mut & M_TYPE) {
		/* Unknown type, CRC made again so that only it is wrong. */
		struct rds_eth_hdr *h = rte_pktmbuf_mtod_offset(m,
			struct rds_eth_hdr *, RDS_ETH_L2L3L4);

		h->type = (uint8_t)(5 + arg % 250);
		h->crc = 0;
		h->crc = rte_cpu_to_be_32(rds_eth_crc(h, h + 1, len));
		w.bad_type++;
	}
	FZ_TRACE("frame seq %u epoch %08x msg %u off %u len %u flags %x mut %x",
		 seq, epoch, s->msg, f.frag_off, len, f.flags, mut);
	if (rte_ring_enqueue(w.rx, m) != 0)
		rte_pktmbuf_free(m);
}

static void
send_ack(struct fz_in *in)
{
	struct rds_eth_frame f;
	uint8_t b[RDS_ETH_HDRS];
	struct rte_mbuf m;

	memset(&f, 0, sizeof(f));
	f.type = RDS_ETH_F_ACK;
	f.flags = (uint16_t)(fz_u8(in) & RDS_ETH_FL_RESET) |
		  (w.acked ? 0 : RDS_ETH_FL_OPEN);
	f.src_epoch = w.epoch;
	f.dst_epoch = w.our_epoch;
	f.ack = fz_u8(in) % 64;
	f.sack = fz_u64(in);
	f.wnd = fz_u16(in);
	ack_model(&f);
	memset(&m, 0, sizeof(m));
	m.buf_addr = b;
	m.buf_len = sizeof(b);
	m.data_len = sizeof(b);
	m.pkt_len = sizeof(b);
	m.nb_segs = 1;
	FZ_CHECK(rds_eth_frame_build(&m, &w.peer_mac, &w.our_mac, w.peer_ip,
				     w.our_ip, RDS_ETH_UDP_PORT,
				     RDS_ETH_UDP_PORT, &f, false) == 0,
		 "ack build");
	FZ_TRACE("ack %u sack %016llx wnd %u flags %x", f.ack,
		 (unsigned long long)f.sack, f.wnd, f.flags);
	inject(b, sizeof(b));
}

void
poll_once(void)
{
	w.freed = send_acked();
	rte_rds_engine_poll(0);
	drain_tx();
}

/* ------------------------------------------------------------------ */
/* The socket */

static void
check_msg(const uint8_t *b, uint32_t n, const struct sockaddr_in *from)
{
	uint32_t i, o, twice;

	FZ_CHECK(from->sin_addr.s_addr == w.peer_ip &&
		 ntohs(from->sin_port) == PEER_PORT,
		 "message from %08x:%u", from->sin_addr.s_addr,
		 ntohs(from->sin_port));
	/* Messages with the same bytes (short ones) are told apart by
	 * which of them is still due. */
	for (i = 0, twice = w.nmsg; i < w.nmsg; i++) {
		if (w.len[i] != n)
			continue;
		for (o = 0; o < n && b[o] == pat(i, o); o++)
			;
		if (o != n)
			continue;
		if (!w.delivered[i])
			break;
		twice = i;
	}
	if (i == w.nmsg) {
		FZ_CHECK(twice == w.nmsg, "message %u (%u bytes) delivered "
			 "twice", twice, n);
		FZ_CHECK(w.tainted, "a message of %u bytes that the peer never "
			 "sent (corrupted or partial)", n);
		return;
	}
	w.delivered[i] = true;
	FZ_TRACE("received message %u (%u bytes)", i, n);
}

void
recv_some(unsigned int max)
{
	struct sockaddr_in from;
	unsigned int k;

	for (k = 0; k < max; k++) {
		struct iovec iov = { rbuf, sizeof(rbuf) };
		struct msghdr mh;
		ssize_t r;

		memset(&mh, 0, sizeof(mh));
		memset(&from, 0, sizeof(from));
		mh.msg_name = &from;
		mh.msg_namelen = sizeof(from);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		r = rte_rds_recvmsg(w.s, &mh, MSG_DONTWAIT);
		if (r < 0) {
			FZ_CHECK(errno == EAGAIN, "recvmsg: errno %d", errno);
			return;
		}
		FZ_CHECK(!(mh.msg_flags & MSG_TRUNC), "truncated");
		check_msg(rbuf, (uint32_t)r, &from);
	}
}

static void
sock_send(struct fz_in *in)
{
	struct sockaddr_in to;
	uint32_t len = fz_u16(in) % 6000;

	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	to.sin_addr.s_addr = w.peer_ip;
	to.sin_port = htons(PEER_PORT);
	memset(rbuf, 0xa5, len);
	if (rte_rds_sendto(w.s, rbuf, len, MSG_DONTWAIT,
			   (struct sockaddr *)&to, sizeof(to)) == (ssize_t)len)
		w.sent_ok++;
}

/* ------------------------------------------------------------------ */
/* World */

/* The eth counters rx_drop_crc and rx_drop_type (one call: it names
 * all of them). */
static void
drops(uint64_t *crc, uint64_t *type)
{
	struct rte_rds_xstat xs[96];
	int n, i, found = 0;

	n = rte_rds_xstats_get("eth", xs, RTE_DIM(xs));
	FZ_CHECK(n > 0 && n <= (int)RTE_DIM(xs), "xstats: %d", n);
	for (i = 0; i < n; i++) {
		if (strcmp(xs[i].name, "rx_drop_crc") == 0) {
			*crc = xs[i].value;
			found |= 1;
		} else if (strcmp(xs[i].name, "rx_drop_type") == 0) {
			*type = xs[i].value;
			found |= 2;
		}
	}
	FZ_CHECK(found == 3, "no eth counter rx_drop_crc or rx_drop_type");
}

static void world_up(struct fz_in *in);
static void world_down(void);

static void
once(void)
{
	static bool done;
	static const uint8_t warm_up[] = { 0, 0, 0, 1, 0, 0, 0, 0, 16,
					   8, 0, 32 };
	struct rte_rds_conf conf;
	char spec[256];
	int ret;

	if (done)
		return;
	done = true;
	fz_eal_init("fuzz_eth_rx");
	w.rx = rte_ring_create("fzrx_rx", 8192, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	w.tx = rte_ring_create("fzrx_tx", 8192, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	FZ_CHECK(w.rx != NULL && w.tx != NULL, "rings");
	ret = rte_eth_from_rings("fzrx", &w.rx, 1, &w.tx, 1, 0);
	FZ_CHECK(ret >= 0, "rte_eth_from_rings: %d", rte_errno);
	w.port = (uint16_t)ret;
	w.pool = rte_pktmbuf_pool_create("fzrx_peer", POOL_SIZE, 0, 0,
					 RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	FZ_CHECK(w.pool != NULL, "pool");
	w.our_ip = inet_addr(OUR_IP);
	w.peer_ip = inet_addr(PEER_IP);
	rte_ether_unformat_addr(OUR_MAC, &w.our_mac);
	rte_ether_unformat_addr(PEER_MAC, &w.peer_mac);
	fz_clock_hold();
	rte_rds_conf_init(&conf);
	conf.engine[0].lcore_id = RTE_RDS_ENGINE_INLINE;
	snprintf(spec, sizeof(spec), OUR_IP "=eth,port=%u,mac=" OUR_MAC
		 ",neigh=" PEER_IP "/" PEER_MAC ",window=%u", w.port, WINDOW);
	FZ_CHECK(rte_rds_conf_add_addr_str(&conf, spec) == 0, "conf");
	FZ_CHECK(rte_rds_init(&conf) == 0, "rte_rds_init: errno %d",
		 rte_errno);
	/* The library between inputs: as after a first input that makes
	 * what lives as long as it (this thread's doorbell, made at its
	 * first send): one message of 16 bytes, the socket sends 32. */
	LLVMFuzzerTestOneInput(warm_up, sizeof(warm_up));
	fz_state_take(&w.clean);
	w.warm = true;
}

static void
world_up(struct fz_in *in)
{
	struct sockaddr_in sin;
	uint32_t i;

	fz_step = 0;
	rte_srand(0x5eed);
	fz_clock_input();
	drops(&w.crc0, &w.type0);
	FZ_CHECK(rte_rds_stats_get(-1, &w.st0) == 0, "stats");
	w.s = rte_rds_socket();
	FZ_CHECK(w.s >= 0, "socket");
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = w.our_ip;
	sin.sin_port = htons(OUR_PORT);
	FZ_CHECK(rte_rds_bind(w.s, (struct sockaddr *)&sin, sizeof(sin)) == 0,
		 "bind: errno %d", errno);

	w.epoch = fz_u32(in) | 1;
	w.epoch_prev = 0;
	w.our_epoch = 0;
	w.acked = false;
	w.rx_ack = 0;
	w.next = 0;
	w.nmsg = 1 + fz_u8(in) % MAX_MSGS;
	w.frag = FZ_HDR_SIZE + fz_u16(in) % (FRAG_MAX - FZ_HDR_SIZE + 1);
	for (i = 0; i < w.nmsg; i++) {
		uint16_t v = fz_u16(in);

		/* Large: up to 1 MiB in steps of 4 KiB, and an odd tail. */
		w.len[i] = v & 0x8000 ? ((v & 0xff) + 1) * 4096 - (v >> 8 & 0x7f)
				      : v % 3000;
		if (w.len[i] > (1u << 20))
			w.len[i] = 1u << 20;
		w.delivered[i] = false;
	}
	w.tainted = false;
	w.tx_epoch = w.tx_nb = 0;
	w.tx_acked = w.tx_max = w.tx_whole = w.freed = 0;
	w.nb_ack_pend = 0;
	w.sent_ok = 0;
	w.epochs[0] = w.epoch;
	w.nb_epochs = 1;
	w.bad_crc = w.bad_type = 0;
	w.slept_us = 0;
	w.nb_sch_prev = 0;
	schedule(0, false);
}

static void
world_down(void)
{
	uint64_t crc = 0, type = 0;
	unsigned int k;
	struct rte_mbuf *m;

	for (k = 0; k < 64 && (rte_ring_count(w.rx) != 0 || k < 4); k++) {
		poll_once();
		recv_some(16);
	}
	ack_all();
	recv_some(64);
	drops(&crc, &type);
	FZ_CHECK(crc - w.crc0 >= w.bad_crc,
		 "%llu frames with a bad CRC, rx_drop_crc %llu in the input",
		 (unsigned long long)w.bad_crc,
		 (unsigned long long)(crc - w.crc0));
	FZ_CHECK(type - w.type0 >= w.bad_type,
		 "%llu frames of unknown type, rx_drop_type %llu in the input",
		 (unsigned long long)w.bad_type,
		 (unsigned long long)(type - w.type0));
	/* Frames left on the port's receive ring go in this input still
	 * (the next one's world is a new connection). */
	while (rte_ring_dequeue(w.rx, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	fz_input_end(&w.s, 1, w.peer_ip, w.warm ? &w.clean : NULL);
	while (rte_ring_dequeue(w.tx, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	FZ_CHECK(rte_mempool_avail_count(w.pool) == POOL_SIZE,
		 "harness mbufs not returned: %u of %u",
		 rte_mempool_avail_count(w.pool), POOL_SIZE);
}

/* ------------------------------------------------------------------ */
/* Steps */

static void
op_frame(struct fz_in *in)
{
	int8_t d = (int8_t)fz_u8(in);
	uint8_t mut = fz_u8(in);
	uint32_t seq = w.next + (uint32_t)(d % 12);

	if (mut & 0x80)
		mut = 0;	/* half the frames true */
	if (seq >= w.nb_sch)
		return;
	send_frame(&w.sch[seq], seq, w.epoch, mut, in);
	if (seq == w.next && !mut)
		w.next++;
}

static void
op_burst(struct fz_in *in)
{
	uint32_t n = 1 + fz_u8(in) % 128, k;

	for (k = 0; k < n && w.next < w.nb_sch; k++) {
		/* No more than the window ahead of what was taken. */
		if (w.next - w.rx_ack >= WINDOW) {
			poll_once();
			if (w.next - w.rx_ack >= WINDOW)
				w.rx_ack = w.next - WINDOW / 2;
		}
		send_frame(&w.sch[w.next], w.next, w.epoch, 0, in);
		w.next++;
	}
	poll_once();
}

static void
op_restart(struct fz_in *in)
{
	uint8_t a = fz_u8(in);

	/* Stale frames come from the epoch just before the current one,
	 * if the driver took it (else there are none to send). Epochs go
	 * forward (ordered: rds_eth_epoch.c), so the driver takes no
	 * older stream, whatever it made of the ones between. */
	if (w.acked) {
		memcpy(w.sch_prev, w.sch, sizeof(w.sch[0]) * w.nb_sch);
		w.nb_sch_prev = w.nb_sch;
		w.first_prev = w.first;
		w.epoch_prev = w.epoch;
	} else {
		w.nb_sch_prev = 0;
		w.epoch_prev = 0;
	}
	w.epoch = (w.epoch + 2 + (uint32_t)a * 2) | 1;
	w.epochs[w.nb_epochs++] = w.epoch;
	w.acked = false;
	if (a & 1)
		w.our_epoch = 0;	/* a restarted peer knows ours no more */
	w.next = 0;
	w.rx_ack = 0;
	schedule(fz_u8(in) % w.nmsg, true);
	FZ_TRACE("restart epoch %08x from message %u", w.epoch, w.first);
}

static void
op_stale(struct fz_in *in)
{
	uint32_t seq = fz_u8(in);

	if (w.epoch_prev == 0 || seq >= w.nb_sch_prev)
		return;
	send_frame(&w.sch_prev[seq], seq, w.epoch_prev, 0, in);
}

static void
op_sleep(struct fz_in *in)
{
	unsigned int us = 50 + fz_u8(in) * 4u;

	if (w.slept_us + us > SLEEP_BUDGET_US)
		return;
	w.slept_us += us;
	fz_clock_us(us);
	poll_once();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in;

	once();
	FZ_TRACE("input of %zu bytes", size);
	fz_in_init(&in, data, size);
	world_up(&in);
	for (fz_step = 1; fz_step <= MAX_STEPS && !in.eof; fz_step++) {
		switch (fz_u8(&in) % 10) {
		case 0:
		case 1:
			op_frame(&in);
			break;
		case 2:
			op_burst(&in);
			break;
		case 3:
			poll_once();
			break;
		case 4:
			recv_some(1 + fz_u8(&in) % 8);
			break;
		case 5:
			op_restart(&in);
			break;
		case 6:
			op_stale(&in);
			break;
		case 7:
			send_ack(&in);
			break;
		case 8:
			sock_send(&in);
			break;
		default:
			op_sleep(&in);
			break;
		}
	}
	world_down();
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rds-perf's private header: the constants, the options, the state of one
 * run (struct perf_ctx) and the functions each file of the program offers
 * the others. Only the public API of librte_rds is used (rte_rds*.h).
 *
 *   main.c         the order of a run: options, set-up, handshake, run,
 *                  report, teardown, floors
 *   perf_opts.c    names, usage, command line
 *   perf_util.c    failures, verification errors, addresses, push-back
 *   perf_setup.c   engine and transport set-up, sockets, the run's state
 *   perf_stats.c   RTT log, percentiles, results (perf_stats.h: the log)
 *   perf_run.c     the measured run (warm-up, window, drain), stalls
 *   perf_client.c  the client's requests and replies
 *   perf_server.c  the server's requests and replies
 *   perf_ctl.c     control messages (ib hello/done, loop RDMA hello)
 *   perf_rdma.c    RDMA modes: region, checks, the client's side
 *   perf_rdma_srv.c RDMA modes: the server's side, loop handshake
 *   perf_peer.c    two processes (ib, eth): hello and done exchanges,
 *                  the server's run
 *   perf_eth.c     eth: the address, its ethdev, faults, counters, why
 *                  a peer does not answer
 *   perf_rawpkt.c  --raw: the port, frames, transmit queue, reassembly
 *   perf_rawrun.c  --raw: one run of this process, its output
 *   perf_rawcli.c  --raw: the client
 *   perf_rawsrv.c  --raw: the server
 *   perf_report.c  text and JSON output, library counters
 *   perf_raw.c     raw ring floors (no RDS)
 *   perf_attach.c  --attach: a run as a client of an engine process
 *   perf_sweep.c, perf_tasks.c, perf_hist.c, perf_progress.c
 *                  size lists, --tasks, --histogram, --progress
 *                  (perf_sweep.h)
 */

#ifndef RDS_PERF_H
#define RDS_PERF_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>

#include <rte_rds.h>
#include <rte_rds_eth.h>

#include "perf_stats.h"
#include "perf_sweep.h"

/* Exit status for a bad command line (usage). */
#define PERF_EXIT_USAGE 2

/* Most messages taken or sent per step of one side. */
#define PERF_BURST 32
/* Default requests in flight in bw mode. */
#define PERF_DEPTH_DEFAULT 32
/* Most requests in flight. */
#define PERF_DEPTH_MAX 65536
/* Run this long before measuring (not counted). */
#define PERF_WARMUP_MS 200
/* After the run, wait this long for stray (duplicated) messages. */
#define PERF_SETTLE_MS 10
/* A run that makes no progress for this long is reported as stalled. */
#define PERF_STALL_S 5
/* Verification errors printed in full; the rest are only counted. */
#define PERF_ERR_PRINT_MAX 10
/* Room over --size in receive buffers, so that a long message shows. */
#define PERF_RX_SLACK 64
/* Socket buffer headroom over depth * size. */
#define PERF_BUF_SLACK (64u * 1024)

/* Loop transport: two local addresses of this instance. They are only
 * names inside the library: no packet reaches any network. */
#define PERF_LOOP_CLIENT_IP "10.255.0.1"
#define PERF_LOOP_SERVER_IP "10.255.0.2"

/* ib, eth: the server's RDS port (--port) and how long either side waits
 * for the other to show up (--wait; the server: --secs when given, and
 * no --wait). */
#define PERF_IB_PORT_DEFAULT 18000
#define PERF_IB_WAIT_DEFAULT 30.0
/* ib: the client repeats its hello this often until the server answers. */
#define PERF_HELLO_RETRY_MS 1000
/* ib: how long the client waits for the server's answer to "done". */
#define PERF_DONE_WAIT_S 10
/* ib: how long the server keeps driving the engine after its last answer,
 * at most, waiting for it to be acknowledged. */
#define PERF_LINGER_MS 1000
/* eth: net_memif (DPDK 22.11) unmaps a port's rings from its interrupt
 * thread when the peer disconnects, while rte_eth_rx_burst() may be
 * reading them: a process that polls while its peer stops its port may
 * crash (seen: the server, in its linger). So neither side polls when
 * the other stops: the client polls PERF_ETH_BYE_POLL_MS after the done
 * answer (its acknowledgements go out), then waits PERF_LINGER_MS +
 * PERF_ETH_BYE_MS without polling before it stops; the server, after its
 * linger, waits PERF_ETH_BYE_MS without polling. */
#define PERF_ETH_BYE_POLL_MS 20
#define PERF_ETH_BYE_MS 200

/* ib control messages: magic "RDSP", version, types. */
#define PERF_CTL_MAGIC 0x52445350u
#define PERF_CTL_VERSION 1

/* RDMA modes: request and reply ("RDMA ACK") payloads. A request carries
 * its sequence number and flags (PERF_REQ_STAMPED: the client stamped the
 * sequence number into the request's slot of the region, rdma-read); a
 * reply carries the sequence number of the request it answers. */
#define PERF_RDMA_REQ_LEN 16
#define PERF_RDMA_REPLY_LEN 8
#define PERF_REQ_STAMPED 1u
/* RDMA modes: the region holds at most this many bytes (the library's and
 * the kernel's limit on a region: 1 MiB). */
#define PERF_RDMA_REGION_MAX RTE_RDS_MAX_MSG_SIZE
/* rdma-write: NOTIFY_ME on op 0 and on every PERF_RDMA_NOTIFY_EVERY-th op
 * (RDS_RECVERR reports any failed op anyway). rdma-read asks on every op:
 * the server needs to know when its buffer holds the data. */
#define PERF_RDMA_NOTIFY_EVERY 1024
/* RDMA modes: the whole payload (not only the sequence numbers) is
 * compared with the pattern on the first op checked and every
 * PERF_RDMA_FULL_CHECK_EVERY-th op checked. */
#define PERF_RDMA_FULL_CHECK_EVERY 64
/* RDMA modes: notifications taken by one recvmsg, at most. */
#define PERF_RDMA_NOTIFY_BURST 32

/* Raw ring floor: ring size and message size. */
#define PERF_RAW_RING_SIZE 1024
#define PERF_RAW_MSG_SIZE 32
/* Raw ring loop iterations between two clock reads. */
#define PERF_RAW_CLOCK_EVERY 64
/* Raw ring ping-pong: ring size (one object in flight), object size. */
#define PERF_PP_RING_SIZE 64
#define PERF_PP_OBJ_SIZE 64
/* Core crossings in one round trip: the raw ping-pong's (app -> worker ->
 * app), and rds-perf's over loop with --engine lcore (app -> engine ->
 * app -> engine -> app: the request and the reply each cross to the
 * engine and back). The scaled floor is RTT x lat / pp. */
#define PERF_PP_CROSSINGS 2
#define PERF_PP_CROSSINGS_LAT_LCORE 4

enum perf_transport {
	PERF_TRANSPORT_LOOP,
	PERF_TRANSPORT_IB,
	PERF_TRANSPORT_ETH,
};

/* The values travel in the ib hello: append, never renumber. */
enum perf_mode {
	PERF_MODE_LAT,
	PERF_MODE_BW,
	PERF_MODE_RDMA_READ,
	PERF_MODE_RDMA_WRITE,
	PERF_MODE_STREAM,
};

enum perf_engine {
	PERF_ENGINE_INLINE,
	PERF_ENGINE_LCORE,
};

/* Which side a process plays: both (loop), or one of them (ib). */
enum perf_role {
	PERF_ROLE_BOTH,
	PERF_ROLE_SERVER,
	PERF_ROLE_CLIENT,
};

/* ib control message types. */
enum perf_ctl_type {
	PERF_CTL_HELLO = 1,	/* client -> server: mode, size, depth, data port;
				 * RDMA modes: v[0] region slots, and the
				 * region's cookie in RDS_CMSG_RDMA_DEST;
				 * stream: v[1] --secs in us */
	PERF_CTL_HELLO_ACK,	/* server -> client */
	PERF_CTL_DONE,		/* client -> server: requests sent, replies received */
	PERF_CTL_DONE_ACK,	/* server -> client: requests received, replies sent, errors */
	PERF_CTL_RESULT,	/* server -> client, stream, before DONE_ACK:
				 * messages received in the server's measured
				 * window, its length in ns */
};
#define PERF_CTL_TYPE_MAX PERF_CTL_RESULT

/* An ib control message as it travels: every field big-endian. It is
 * shorter than PERF_RX_SLACK, so it fits any receive buffer. */
struct perf_ctl_msg {
	uint32_t magic;
	uint16_t version;
	uint16_t type;
	uint32_t mode;
	uint32_t size;
	uint32_t depth;
	uint16_t data_port;	/* the client's data socket */
	uint16_t reserved;
	uint64_t v[3];		/* counts (DONE, DONE_ACK) */
} __rte_packed;

/* Command-line options: the only state outside main()'s stack frames. */
struct perf_opts {
	enum perf_transport transport;
	enum perf_mode mode;
	enum perf_engine engine;
	uint32_t size;		/* request payload, bytes */
	uint32_t depth;		/* requests in flight (bw, rdma-*); stream:
				 * sizes the socket buffers only */
	double secs;		/* measured duration */
	bool json;
	bool verbose;
	bool raw_ring;
	bool raw_ring_pp;	/* two-lcore raw ring ping-pong floor */
	/* ib, eth: which side this process plays, its local address, the
	 * peer's, the server's RDS port, how long to wait for the peer. */
	enum perf_role role;
	const char *local;
	const char *peer;
	uint16_t port;
	double wait;
	/* ib only: options appended to the address ("k=v,..."). */
	const char *ib_opts;
	/* eth only: options appended to the address ("k=v,..."), faults
	 * (--faults), and --raw (plain Ethernet/UDP frames, no RDS). */
	const char *eth_opts;
	bool faults_set;
	struct rte_rds_eth_faults faults;
	bool raw;
	const char *attach;	/* --attach: the engine's socket, or NULL */
	/* --size's list (sizes[0] also in size), --tasks, --progress,
	 * --histogram, --plot (perf_sweep.h). */
	uint32_t sizes[PERF_SIZES_MAX];
	unsigned int nb_sizes;
	unsigned int tasks;
	bool progress;
	bool stress_columns;		/* --rds-stress-columns */
	const char *histogram;
	const char *plot;
};

/* One run: both sides of the exchange, as set up by the transport. */
struct perf_ctx {
	const struct perf_opts *o;
	bool inline_engine;
	uint32_t window;		/* requests in flight: 1 (lat) or depth
					 * (stream: socket buffers only) */

	/* Client side (cli < 0: not played by this process). */
	int cli;
	struct sockaddr_in cli_name;	/* where the client is bound */
	struct sockaddr_in dst;		/* where requests go */
	uint8_t *cli_tx;		/* request payload */
	uint8_t *cli_rx;		/* reply buffer */
	uint64_t *sent_tsc;		/* send time, by seq % window */
	uint64_t tx_seq;		/* requests sent */
	uint64_t rx_seq;		/* replies received */
	uint8_t *region;		/* RDMA: the registered region */
	uint64_t cookie;		/* RDMA: its cookie */
	uint32_t slots;			/* RDMA: --size slots in the region */
	uint64_t rdma_checked;		/* rdma-write: slots checked */
	uint64_t rdma_full_checked;	/* ... of which whole payloads */
	uint8_t *pattern;		/* RDMA: --size bytes of the pattern */

	/* Server side (srv < 0: not played by this process). */
	int srv;
	struct sockaddr_in srv_name;	/* where the server is bound */
	bool check_src;			/* requests must come from cli_name */
	uint8_t *srv_buf;		/* request buffer, echoed in lat */
	uint64_t srv_rx;		/* requests received */
	uint64_t srv_tx;		/* replies sent */
	uint32_t owed;			/* replies due for the last requests */
	uint32_t owed_next;		/* next of those to send */
	struct sockaddr_in reply_to[PERF_BURST];
	/* RDMA modes: the client's cookie, the server's local buffers (read:
	 * one per request in flight; write: one), which of them an op still
	 * owns (busy: until its notification) and whether the client stamped
	 * the slot read into it; flags of the requests not yet answered,
	 * by sequence % window; notifications. */
	bool has_cookie;
	uint64_t peer_cookie;
	uint8_t *srv_local;
	uint8_t *srv_busy;
	uint8_t *srv_stamped;
	uint32_t *req_flags;
	uint64_t notif_pending;		/* asked for, not yet received */
	uint64_t notif_got;		/* received */
	uint64_t notif_failed;		/* status other than SUCCESS */
	uint64_t srv_checked;		/* rdma-read: local buffers checked */
	uint64_t srv_full_checked;	/* ... of which whole payloads */

	/* ib control exchange. Client: its control socket (ctl >= 0), and
	 * the server's counts from DONE_ACK. Server: where the client's
	 * control messages come from (has_ctl), and the client's counts from
	 * DONE. */
	int ctl;
	bool has_ctl;
	struct sockaddr_in ctl_src;
	bool done;
	uint64_t peer_v[3];
	uint64_t ctl_ignored;		/* server: repeated hellos */
	double setup_ms;		/* client: hello round trip */
	char eth_pmd[32];		/* eth: the PMD (for the JSON, printed
					 * after rte_eal_cleanup()) */
	uint64_t raw_lost;		/* --raw: messages lost */
	double raw_frame_mb_per_s;	/* --raw, stream: message bytes of all
					 * frames received, per second */

	/* Measurement. */
	bool measuring;
	uint64_t t_start;
	uint64_t t_stop;
	/* --rds-stress-columns: the process's CPU time at t_start and
	 * t_stop (CLOCK_PROCESS_CPUTIME_ID), and the time spent in the
	 * client's send calls while measuring. */
	uint64_t cpu_ns_start;
	uint64_t cpu_ns_stop;
	uint64_t send_cycles;
	uint64_t send_calls;
	uint64_t msgs;			/* round trips completed while measuring;
					 * stream: messages received (counted
					 * by the receiver) */
	struct perf_rtt rtt;
	/* stream: messages sent while measuring (the sender's count); ib
	 * client: the server's count and window (PERF_CTL_RESULT). */
	uint64_t sent_msgs;
	bool has_peer_result;
	uint64_t peer_msgs;
	uint64_t peer_ns;

	/* Push-back and errors. */
	uint64_t eagain;
	uint64_t enobufs;
	uint64_t errors;

	double attach_ms;		/* --attach: rte_rds_attach() */
	/* Several runs (perf_sweep.h): this run's index and how many
	 * (server: from the client's hello), --tasks, --progress (task 0). */
	unsigned int run, runs;
	unsigned int tasks;
	struct perf_progress *progress;
};

/* Results, in the units printed. msgs, secs and the rates are the
 * receiver's in stream mode (one_way), with the sender's in sent_*; RTTs
 * exist in the other modes only. */
struct perf_result {
	uint64_t msgs;
	double secs;
	double msgs_per_s;
	double mb_per_s;
	uint64_t p50;
	uint64_t p90;
	uint64_t p99;
	uint64_t p999;
	uint64_t max;
	bool one_way;
	uint64_t sent_msgs;
	double sent_secs;
	double sent_msgs_per_s;
	double sent_mb_per_s;
	/* --rds-stress-columns */
	double rtt_mean_ns;		/* mean of the logged round trips */
	double send_us;			/* mean time in a send call */
	double cpu_pct;			/* process CPU time / window */
};

static inline bool
perf_is_rdma(enum perf_mode m)
{
	return m == PERF_MODE_RDMA_READ || m == PERF_MODE_RDMA_WRITE;
}

static inline bool
perf_is_stream(enum perf_mode m)
{
	return m == PERF_MODE_STREAM;
}

static inline bool
perf_sin_equal(const struct sockaddr_in *a, const struct sockaddr_in *b)
{
	return a->sin_addr.s_addr == b->sin_addr.s_addr &&
		a->sin_port == b->sin_port;
}

/*
 * Sequence numbers: written at the head of the payload, and at its tail
 * too when it is long enough, so that a reply assembled from the wrong
 * pieces shows.
 */
static inline void
perf_seq_put(uint8_t *p, uint32_t size, uint64_t seq)
{
	if (size >= sizeof(seq))
		memcpy(p, &seq, sizeof(seq));
	if (size >= 2 * sizeof(seq))
		memcpy(p + size - sizeof(seq), &seq, sizeof(seq));
}

/* 0 if p carries seq (or is too short to carry one), else -1 with the
 * head value found in *got. */
static inline int
perf_seq_check(const uint8_t *p, uint32_t size, uint64_t seq, uint64_t *got)
{
	uint64_t head = seq, tail = seq;

	if (size >= sizeof(seq))
		memcpy(&head, p, sizeof(head));
	if (size >= 2 * sizeof(seq))
		memcpy(&tail, p + size - sizeof(seq), sizeof(tail));
	*got = head != seq ? head : tail;
	return head == seq && tail == seq ? 0 : -1;
}

/* Raw ring floors (no RDS), measured after the library's end. */
struct perf_floors {
	bool ring;			/* --raw-ring */
	double ring_rate;		/* messages per second */
	uint64_t ring_errors;
	bool pp;			/* --raw-ring-pp */
	unsigned int pp_lcore[2];	/* this lcore, the worker */
	uint64_t pp_rtts;		/* round trips measured */
	size_t pp_samples;		/* of which kept for percentiles */
	uint64_t pp_p50, pp_p99, pp_p999, pp_max;	/* RTT, ns */
	uint64_t pp_errors;
};

/*
 * --raw (perf_rawpkt.c, perf_rawrun.c): plain Ethernet / IPv4 / UDP
 * frames on the eth address's ethdev, no RDS. Each frame carries a small
 * header of ours after UDP, then up to mtu - 20 - 8 - 16 bytes of a
 * message: a message over that size goes in several frames, as RDS
 * fragments it. Nothing is sent again: a lost frame loses its message.
 */
#define PERF_RAW_UDP_PORT 18635		/* RDS over eth uses 18634 */
#define PERF_RAW_POOL_SIZE 16383	/* mbufs, as the eth transport */
#define PERF_RAW_NB_DESC 1024		/* ring descriptors, as eth */
#define PERF_RAW_TXQ_MAX 4096		/* frames queued for tx_burst */
#define PERF_RAW_CTL_RETRY_MS 100	/* control frames repeated */
#define PERF_RAW_TIMEOUT_MS 1000		/* an answer later than this: lost */
#define PERF_RAW_LINGER_MS 300		/* server: answer repeated dones; the
					 * client waits this + PERF_ETH_BYE_MS
					 * without polling before it stops */
#define PERF_RAW_DRAIN_MS 20		/* server: quiet this long after done */

enum perf_raw_type {
	PERF_RAW_DATA = 1,		/* a fragment of a message */
	PERF_RAW_REPLY,			/* bw: the 0-byte answer to message seq */
	PERF_RAW_CTL,			/* a struct perf_ctl_msg */
};
#define PERF_RAW_FL_LAST 0x01		/* last fragment of its message */

/* After the UDP header; big-endian. */
struct perf_raw_hdr {
	uint8_t type;
	uint8_t flags;
	uint16_t len;			/* message bytes in this frame */
	uint32_t off;			/* their offset in the message */
	uint64_t seq;			/* the message's number */
} __rte_packed;
#define PERF_RAW_HDRS (14 + 20 + 8 + 16)

/* A frame received, decoded. */
struct perf_raw_frame {
	uint8_t type;
	uint8_t flags;
	uint16_t len;
	uint32_t off;
	uint64_t seq;
	const uint8_t *data;
	uint32_t sip;			/* network order */
	uint8_t src_mac[6];
};

struct rte_mempool;
struct rte_mbuf;

struct perf_raw_port {
	uint16_t id;
	uint16_t mtu;
	uint32_t frag;			/* message bytes per frame */
	struct rte_mempool *pool;
	uint8_t mac[6];
	uint8_t peer_mac[6];		/* broadcast until learned */
	bool has_peer_mac;
	uint32_t lip;			/* network order */
	uint32_t pip;			/* 0: any */
	struct rte_mbuf *txq[PERF_RAW_TXQ_MAX];	/* a ring */
	uint32_t txq_head, txq_n;
	struct rte_mbuf *tmp[PERF_RAW_TXQ_MAX];	/* a message's frames */
	/* Counters. */
	uint64_t tx_frames;		/* taken by the PMD */
	uint64_t tx_refused;		/* tx_burst calls that took less than
					 * offered (the frames stay queued) */
	uint64_t tx_no_room;		/* messages held back: queue or pool */
	uint64_t rx_frames;		/* ours, well formed */
	uint64_t rx_ignored;		/* not ours (ARP, other ports, ...) */
	uint64_t rx_bad;		/* ours, but malformed */
};

/* Reassembly of one message from its frames. */
struct perf_raw_rx {
	bool active;
	uint64_t seq;
	uint32_t got;			/* bytes so far (the next offset) */
};

/* rdma-write: the server asks NOTIFY_ME on this op. */
static inline bool
perf_rdma_notify(const struct perf_ctx *ctx, uint64_t seq)
{
	return ctx->o->mode == PERF_MODE_RDMA_READ ||
		seq % PERF_RDMA_NOTIFY_EVERY == 0;
}

/* perf_opts.c */
const char *perf_transport_name(enum perf_transport t);
const char *perf_mode_name(enum perf_mode m);
const char *perf_engine_name(enum perf_engine e);
uint32_t perf_window(const struct perf_opts *o);
void perf_usage(const char *prog);
int perf_parse_args(int argc, char **argv, struct perf_opts *o);

/* perf_util.c */
__rte_noreturn __rte_format_printf(1, 2) void perf_fail(const char *fmt, ...);
__rte_noreturn __rte_format_printf(1, 2) void perf_die(const char *fmt, ...);
__rte_format_printf(2, 3) void perf_error(struct perf_ctx *ctx,
					   const char *fmt, ...);
const char *perf_sin_str(const struct sockaddr_in *sin, char *buf,
			 size_t len);
void perf_send_pushback(struct perf_ctx *ctx, const char *call);

/* Drive the engine, if it is ours to drive. */
static inline void
perf_poll(const struct perf_ctx *ctx)
{
	if (ctx->inline_engine && rte_rds_engine_poll(0) < 0)
		perf_fail("rte_rds_engine_poll(0)");
}

/* perf_attach.c */
extern uint64_t perf_attach_tsc_hz;	/* measured when attached, else 0 */
bool perf_attach_wanted(int argc, char **argv);
int perf_attach_main(int argc, char **argv);
void perf_attach_server_recv(struct perf_ctx *ctx);

/* The TSC rate: the EAL's, or measured when attached (no EAL). */
static inline uint64_t
perf_tsc_hz(void)
{
	return perf_attach_tsc_hz != 0 ? perf_attach_tsc_hz : rte_get_tsc_hz();
}

/* perf_setup.c */
int perf_sock_buf(const struct perf_opts *o);
int perf_open_socket(const char *what, const char *ip, uint16_t port,
		     int trans, int buf, struct sockaddr_in *name);
void perf_set_bufs(int s, const char *what, int buf);
void perf_engine_conf(const struct perf_opts *o, struct rte_rds_conf *conf);
void perf_setup_transport(struct perf_ctx *ctx, struct rte_rds_conf *conf);
void perf_ctx_init(struct perf_ctx *ctx, const struct perf_opts *o);
void perf_open_data_sockets(struct perf_ctx *ctx);
void perf_ctx_close(struct perf_ctx *ctx);
void perf_ctx_free(struct perf_ctx *ctx);

/* perf_stats.c: see perf_stats.h; and */
void perf_result(struct perf_ctx *ctx, struct perf_result *r);
uint64_t perf_cpu_ns(void);
void perf_print_stress_columns(const struct perf_ctx *ctx,
			       const struct perf_result *r);

/* perf_run.c */
bool perf_quiet(const struct perf_ctx *ctx);
__rte_noreturn void perf_stalled(const struct perf_ctx *ctx,
				 const char *phase);
void perf_run(struct perf_ctx *ctx);
void perf_check_counts(struct perf_ctx *ctx);

/* perf_client.c */
void perf_client_step(struct perf_ctx *ctx, bool may_send);

/* perf_server.c */
void perf_server_control(struct perf_ctx *ctx, const void *p, size_t len);
void perf_server_check(struct perf_ctx *ctx, const uint8_t *p, size_t len,
		       bool trunc, unsigned int idx);
void perf_server_step(struct perf_ctx *ctx);

/* perf_ctl.c */
void perf_ctl_put(struct perf_ctl_msg *m, enum perf_ctl_type type,
		  const struct perf_opts *o, uint16_t data_port_be,
		  uint64_t v0, uint64_t v1, uint64_t v2);
int perf_ctl_get(const void *p, size_t len, struct perf_ctl_msg *m);
void perf_ctl_take_hello(struct perf_ctx *ctx, struct perf_opts *o,
			 const struct perf_ctl_msg *in);
void perf_ctl_send(const struct perf_ctx *ctx, int s,
		   const struct sockaddr_in *to, const struct perf_ctl_msg *m,
		   const char *what, double secs);
ssize_t perf_ctl_sendmsg(const struct perf_ctx *ctx, int s,
			 const struct sockaddr_in *to,
			 const struct perf_ctl_msg *m);
bool perf_cmsg_cookie(struct msghdr *mh, uint64_t *cookie);

/* perf_rdma.c */
void perf_rdma_client_setup(struct perf_ctx *ctx);
void perf_rdma_server_setup(struct perf_ctx *ctx, uint32_t slots);
bool perf_client_send_rdma(struct perf_ctx *ctx);
void perf_rdma_client_check(struct perf_ctx *ctx, uint64_t seq);
void perf_rdma_check(struct perf_ctx *ctx, const uint8_t *p, uint64_t seq,
		     bool full, const char *what);
const char *perf_rdma_status_name(int status);

/* perf_rdma_srv.c */
void perf_server_rdma_step(struct perf_ctx *ctx);
void perf_rdma_server_final(struct perf_ctx *ctx);
void perf_rdma_loop_handshake(struct perf_ctx *ctx);

/* perf_peer.c */
void perf_peer_client_hello(struct perf_ctx *ctx);
void perf_peer_client_done(struct perf_ctx *ctx);
void perf_peer_server_hello(struct perf_ctx *ctx, struct perf_opts *o);
void perf_peer_server_run(struct perf_ctx *ctx);
void perf_peer_server_done(struct perf_ctx *ctx);
__rte_noreturn __rte_format_printf(2, 3) void
perf_gave_up(const struct perf_ctx *ctx, const char *fmt, ...);

/* perf_eth.c */
void perf_eth_spec(const struct perf_opts *o, char *buf, size_t len);
int perf_eth_port_id(const struct perf_opts *o, uint16_t *id);
const char *perf_eth_port_str(const struct perf_opts *o, char *buf,
			      size_t len);
const char *perf_eth_pmd(const struct perf_opts *o);
void perf_eth_started(const struct perf_opts *o);
void perf_eth_print_stats(FILE *f, bool all);
void perf_eth_diag(const struct perf_opts *o, char *buf, size_t len);
int perf_eth_start_retry(const struct perf_opts *o, int (*start)(void *),
			 void *arg);

/* perf_rawpkt.c */
void perf_raw_port_open(const struct perf_opts *o, struct perf_raw_port *p);
void perf_raw_port_close(struct perf_raw_port *p);
uint32_t perf_raw_frames_of(const struct perf_raw_port *p, uint32_t size);
int perf_raw_send_msg(struct perf_raw_port *p, uint8_t type, uint64_t seq,
		      const uint8_t *data, uint32_t size);
void perf_raw_flush(struct perf_raw_port *p);
uint16_t perf_raw_rx_burst(struct perf_raw_port *p, struct rte_mbuf **m,
			   uint16_t n);
int perf_raw_parse(struct perf_raw_port *p, struct rte_mbuf *m,
		   struct perf_raw_frame *f);
int perf_raw_take(struct perf_raw_rx *r, const struct perf_raw_frame *f,
		  uint8_t *buf, uint32_t size, uint64_t *lost_frames);
void perf_raw_learn(struct perf_raw_port *p, const struct perf_raw_frame *f);
void perf_raw_print_stats(const struct perf_raw_port *p, FILE *f);

/* perf_rawrun.c, perf_rawcli.c, perf_rawsrv.c: one --raw run. */
struct perf_raw {	/* one --raw run of this process */
	struct perf_raw_port port;
	struct perf_raw_rx rx;
	uint64_t lost_frames;		/* messages broken by a missing frame */
	uint64_t lost_msgs;		/* client: answers given up; server:
					 * requests never received whole */
	uint64_t late;			/* client: answers after their time */
	uint64_t exp_seq;		/* server: next request expected */
	uint64_t bytes;			/* server, stream: message bytes of the
					 * frames received while measuring */
	uint64_t owed[PERF_DEPTH_MAX > 4096 ? 4096 : PERF_DEPTH_MAX];
	uint32_t owed_head, owed_n;	/* server: answers not queued yet */
};

void perf_raw_run(struct perf_ctx *ctx, struct perf_opts *o,
		  struct perf_sweep *s);
__rte_noreturn __rte_format_printf(3, 4) void
perf_raw_give_up(struct perf_ctx *ctx, struct perf_raw *r, const char *fmt,
		 ...);
const char *perf_raw_link(const struct perf_raw *r);
void perf_raw_ctl(struct perf_raw *r, enum perf_ctl_type type,
		  const struct perf_opts *o, uint64_t v0, uint64_t v1,
		  uint64_t v2);
void perf_raw_client_hello(struct perf_ctx *ctx, struct perf_raw *r);
void perf_raw_client_run(struct perf_ctx *ctx, struct perf_raw *r);
void perf_raw_client_done(struct perf_ctx *ctx, struct perf_raw *r);
void perf_raw_server_hello(struct perf_ctx *ctx, struct perf_raw *r,
			   struct perf_opts *o);
void perf_raw_server_run(struct perf_ctx *ctx, struct perf_raw *r);

/* perf_report.c */
void perf_print_stats(const struct perf_opts *o, FILE *f);
void perf_print_setup(const struct perf_ctx *ctx,
		      const struct rte_rds_conf *conf);
void perf_print_result(const struct perf_ctx *ctx,
		       const struct perf_result *r);
void perf_print_server(const struct perf_ctx *ctx,
		       const struct perf_result *r);
void perf_print_json(const struct perf_ctx *ctx, const struct perf_result *r,
		     const struct perf_floors *f);
void perf_print_server_json(const struct perf_ctx *ctx,
			    const struct perf_result *r,
			    const struct perf_floors *f);
void perf_print_floors(const struct perf_floors *f);

/* perf_raw.c */
double perf_raw_ring(double secs, uint64_t *errors);
unsigned int perf_raw_ring_pp_lcore(void);
void perf_raw_ring_pp(double secs, struct perf_floors *f);

#endif /* RDS_PERF_H */

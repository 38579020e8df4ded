/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rds-perf: the librte_rds benchmark.
 *
 * One application thread (the main lcore) plays both the client and the
 * server of a request/reply exchange between two RDS sockets. A round trip
 * runs from the client's send of a request to its receipt of the reply, in
 * every mode:
 *
 *   lat  one request of --size bytes at a time; the server echoes it.
 *   bw   up to --depth requests of --size bytes in flight; the server
 *        answers each with a 0-byte reply.
 *   rdma-read, rdma-write
 *        rds-rdma(7)'s flow: the client registers a region (RDS_GET_MR)
 *        once and ships its cookie (RDS_CMSG_RDMA_DEST) in the handshake;
 *        each round trip is a 16-byte request, then the server's 8-byte
 *        reply (the "RDMA ACK") carrying an RDMA READ of --size bytes from
 *        the client's region, or a WRITE of --size bytes into it
 *        (RDS_CMSG_RDMA_ARGS). Up to --depth requests in flight, each on
 *        its own slot of the region while depth * size fits in 1 MiB.
 *
 * Every socket call is non-blocking (MSG_DONTWAIT) and the loop polls, so no
 * time hides in a blocking wait. With an inline engine the loop also drives
 * the engine (rte_rds_engine_poll); with an lcore engine the engine
 * busy-polls on its own worker lcore and the loop never touches it.
 *
 * The server takes requests with rte_rds_recvmsg() in lat mode and with the
 * zero-copy burst API (rte_rds_recv_burst) in bw mode; the client always uses
 * rte_rds_recvmsg(), so both receive paths are exercised. The length of
 * every request and reply is checked, and so is every sequence number
 * (--size >= 8): the server checks that requests arrive once and in order,
 * the client that each lat reply echoes its request. Any mismatch counts as
 * an error and makes the exit status 1.
 *
 * --raw-ring adds a separate peer measurement: the same single-thread
 * enqueue/dequeue loop over a plain SP/SC rte_ring, the floor that any
 * in-process message path is compared with.
 *
 * With --transport ib the two sides are two processes (--role server and
 * --role client), each with its own library instance that declares its
 * --local address as "ib"; requests and replies cross a verbs RC queue
 * pair. The client says hello (mode, size, depth) from a separate control
 * socket and waits for the answer, which covers the connection set-up; then
 * it runs the same warm-up, measurement and drain as the loop transport,
 * and at the end sends "done" with its counts. The server answers with its
 * own counts and errors, and exits.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_memory.h>
#include <rte_ring.h>

#include <rte_rds.h>
#include <rte_rds_loop.h>
#ifdef RDS_PERF_HAVE_IB
#include <rte_rds_ib.h>
#endif

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
/* RTT samples kept; beyond that the log keeps every 2nd, 4th, ... RTT. */
#define PERF_RTT_CAP (20u * 1000 * 1000)
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

/* ib: the server's RDS port (--port) and how long either side waits for
 * the other to show up (--wait). */
#define PERF_IB_PORT_DEFAULT 18000
#define PERF_IB_WAIT_DEFAULT 30.0
/* ib: the client repeats its hello this often until the server answers. */
#define PERF_HELLO_RETRY_MS 1000
/* ib: how long the client waits for the server's answer to "done". */
#define PERF_DONE_WAIT_S 10
/* ib: how long the server keeps driving the engine after its last answer,
 * at most, waiting for it to be acknowledged. */
#define PERF_LINGER_MS 1000

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

enum perf_transport {
	PERF_TRANSPORT_LOOP,
	PERF_TRANSPORT_IB,
	PERF_TRANSPORT_ETH,
};

enum perf_mode {
	PERF_MODE_LAT,
	PERF_MODE_BW,
	PERF_MODE_RDMA_READ,
	PERF_MODE_RDMA_WRITE,
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
				 * region's cookie in RDS_CMSG_RDMA_DEST */
	PERF_CTL_HELLO_ACK,	/* server -> client */
	PERF_CTL_DONE,		/* client -> server: requests sent, replies received */
	PERF_CTL_DONE_ACK,	/* server -> client: requests received, replies sent, errors */
};

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
	uint32_t depth;		/* requests in flight (bw, rdma-*) */
	double secs;		/* measured duration */
	bool json;
	bool verbose;
	bool raw_ring;
	/* ib only: which side this process plays, its local address, the
	 * peer's, the server's RDS port, how long to wait for the peer. */
	enum perf_role role;
	const char *local;
	const char *peer;
	uint16_t port;
	double wait;
};

/* RTT log: keeps up to PERF_RTT_CAP samples; when full it drops every other
 * sample and from then on keeps one RTT in 'stride' (a uniform sample). The
 * maximum is tracked over every RTT. */
struct perf_rtt {
	uint64_t *v;
	size_t n;
	size_t cap;
	uint32_t stride;
	uint32_t skip;
	uint64_t max;
};

/* One run: both sides of the exchange, as set up by the transport. */
struct perf_ctx {
	const struct perf_opts *o;
	bool inline_engine;
	uint32_t window;		/* requests in flight: 1 (lat) or depth */

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

	/* Measurement. */
	bool measuring;
	uint64_t t_start;
	uint64_t t_stop;
	uint64_t msgs;			/* round trips completed while measuring */
	struct perf_rtt rtt;

	/* Push-back and errors. */
	uint64_t eagain;
	uint64_t enobufs;
	uint64_t errors;
};

/* Results, in the units printed. */
struct perf_result {
	uint64_t msgs;
	double secs;
	double msgs_per_s;
	double mb_per_s;
	uint64_t p50;
	uint64_t p99;
	uint64_t p999;
	uint64_t max;
};

static const char *
perf_transport_name(enum perf_transport t)
{
	switch (t) {
	case PERF_TRANSPORT_LOOP:
		return "loop";
	case PERF_TRANSPORT_IB:
		return "ib";
	case PERF_TRANSPORT_ETH:
		return "eth";
	}
	return "?";
}

static const char *
perf_mode_name(enum perf_mode m)
{
	switch (m) {
	case PERF_MODE_LAT:
		return "lat";
	case PERF_MODE_BW:
		return "bw";
	case PERF_MODE_RDMA_READ:
		return "rdma-read";
	case PERF_MODE_RDMA_WRITE:
		return "rdma-write";
	}
	return "?";
}

static inline bool
perf_is_rdma(enum perf_mode m)
{
	return m == PERF_MODE_RDMA_READ || m == PERF_MODE_RDMA_WRITE;
}

/* Requests in flight: 1 in lat, --depth otherwise. */
static uint32_t
perf_window(const struct perf_opts *o)
{
	return o->mode == PERF_MODE_LAT ? 1 : o->depth;
}

static const char *
perf_engine_name(enum perf_engine e)
{
	return e == PERF_ENGINE_INLINE ? "inline" : "lcore";
}

/* A library call failed: print the call and rte_errno, exit 1. */
static __rte_noreturn __rte_format_printf(1, 2) void
perf_fail(const char *fmt, ...)
{
	int err = rte_errno;
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "rds-perf: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " failed: %s (rte_errno %d)\n", rte_strerror(err), err);
	exit(EXIT_FAILURE);
}

/* Something other than a library call failed (out of memory, ...): exit 1. */
static __rte_noreturn __rte_format_printf(1, 2) void
perf_die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "rds-perf: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(EXIT_FAILURE);
}

/* The data were wrong: count it, print the first few. */
static __rte_format_printf(2, 3) void
perf_error(struct perf_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	ctx->errors++;
	if (ctx->errors > PERF_ERR_PRINT_MAX)
		return;
	fflush(stdout);
	fprintf(stderr, "rds-perf: error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	if (ctx->errors == PERF_ERR_PRINT_MAX)
		fprintf(stderr, "rds-perf: further errors are only counted\n");
}

static void
usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [EAL args] -- [options]\n"
		"  --transport loop|ib transport (default loop; eth is not supported\n"
		"                      by rds-perf yet). loop: both sides in this\n"
		"                      process; ib: one side per process, see --role\n"
		"  --mode lat|bw|rdma-read|rdma-write\n"
		"                      lat: one request at a time, echoed (default);\n"
		"                      bw: --depth requests in flight, 0-byte replies;\n"
		"                      rdma-read/rdma-write: --depth small requests in\n"
		"                      flight, each answered by a reply that carries an\n"
		"                      RDMA READ/WRITE of --size bytes of the client's\n"
		"                      registered region (rds-rdma(7))\n"
		"  --size N            request payload in bytes, 0..%u (default 64);\n"
		"                      rdma-*: the RDMA payload, 1..%u\n"
		"  --secs S            measured duration in seconds (default 2), after\n"
		"                      a %u ms warm-up\n"
		"  --depth N           requests in flight in bw and rdma-* modes, 1..%u\n"
		"                      (default %u in bw, 1 in rdma-*)\n"
		"  --engine inline|lcore\n"
		"                      inline: this thread polls the engine (default);\n"
		"                      lcore: the engine busy-polls the first worker\n"
		"                      lcore (pass -l 0-1 or more to the EAL)\n"
		"  --raw-ring          also measure a plain SP/SC rte_ring, burst %u,\n"
		"                      one thread (the raw ring floor)\n"
		"  --json              end the output with one JSON object line\n"
		"  --verbose           print the engine counters at the end\n"
		"  --help              this text\n"
		"ib transport only:\n"
		"  --role server|client\n"
		"                      server: answer the client's requests (mode,\n"
		"                      size and depth come from the client), exit when\n"
		"                      it is done; client: send, measure, print\n"
		"  --local IP          this process's address, declared as \"ib\" (it\n"
		"                      must belong to an RDMA device)\n"
		"  --peer IP           client: the server's address (required);\n"
		"                      server: requests must come from it (optional)\n"
		"  --port N            the server's RDS port (default %u)\n"
		"  --wait S            how long the server waits for the client, and\n"
		"                      the client for the server's first answer\n"
		"                      (default %.0f)\n",
		prog, RTE_RDS_MAX_MSG_SIZE, RTE_RDS_MAX_MSG_SIZE,
		PERF_WARMUP_MS, PERF_DEPTH_MAX,
		PERF_DEPTH_DEFAULT, PERF_BURST, PERF_IB_PORT_DEFAULT,
		PERF_IB_WAIT_DEFAULT);
}

/* Parse a decimal unsigned integer in [min, max]. */
static int
parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	unsigned long v;
	char *end;

	if (s == NULL || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* Parse the application's options (after the EAL's). 0 or -1 (printed). */
static int
parse_args(int argc, char **argv, struct perf_opts *o)
{
	enum {
		OPT_TRANSPORT = 256,
		OPT_MODE,
		OPT_SIZE,
		OPT_SECS,
		OPT_DEPTH,
		OPT_ENGINE,
		OPT_JSON,
		OPT_VERBOSE,
		OPT_RAW_RING,
		OPT_ROLE,
		OPT_LOCAL,
		OPT_PEER,
		OPT_PORT,
		OPT_WAIT,
		OPT_HELP,
	};
	static const struct option longopts[] = {
		{ "transport", required_argument, NULL, OPT_TRANSPORT },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "size", required_argument, NULL, OPT_SIZE },
		{ "secs", required_argument, NULL, OPT_SECS },
		{ "depth", required_argument, NULL, OPT_DEPTH },
		{ "engine", required_argument, NULL, OPT_ENGINE },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "verbose", no_argument, NULL, OPT_VERBOSE },
		{ "raw-ring", no_argument, NULL, OPT_RAW_RING },
		{ "role", required_argument, NULL, OPT_ROLE },
		{ "local", required_argument, NULL, OPT_LOCAL },
		{ "peer", required_argument, NULL, OPT_PEER },
		{ "port", required_argument, NULL, OPT_PORT },
		{ "wait", required_argument, NULL, OPT_WAIT },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	const char *prog = argv[0];
	bool port_set = false, wait_set = false, role_set = false;
	bool depth_set = false;
	struct in_addr a_local, a_peer;
	uint32_t port;
	char *end;
	int opt;

	o->transport = PERF_TRANSPORT_LOOP;
	o->mode = PERF_MODE_LAT;
	o->engine = PERF_ENGINE_INLINE;
	o->size = 64;
	o->depth = PERF_DEPTH_DEFAULT;
	o->secs = 2.0;
	o->role = PERF_ROLE_BOTH;
	o->port = PERF_IB_PORT_DEFAULT;
	o->wait = PERF_IB_WAIT_DEFAULT;

	optind = 1;	/* the EAL used getopt before us */
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case OPT_TRANSPORT:
			if (strcmp(optarg, "loop") == 0) {
				o->transport = PERF_TRANSPORT_LOOP;
			} else if (strcmp(optarg, "ib") == 0) {
				o->transport = PERF_TRANSPORT_IB;
			} else if (strcmp(optarg, "eth") == 0) {
				o->transport = PERF_TRANSPORT_ETH;
			} else {
				fprintf(stderr, "rds-perf: unknown transport '%s'\n",
					optarg);
				return -1;
			}
			break;
		case OPT_MODE:
			if (strcmp(optarg, "lat") == 0) {
				o->mode = PERF_MODE_LAT;
			} else if (strcmp(optarg, "bw") == 0) {
				o->mode = PERF_MODE_BW;
			} else if (strcmp(optarg, "rdma-read") == 0) {
				o->mode = PERF_MODE_RDMA_READ;
			} else if (strcmp(optarg, "rdma-write") == 0) {
				o->mode = PERF_MODE_RDMA_WRITE;
			} else {
				fprintf(stderr, "rds-perf: --mode must be lat, bw, rdma-read or rdma-write\n");
				return -1;
			}
			break;
		case OPT_SIZE:
			if (parse_u32(optarg, 0, RTE_RDS_MAX_MSG_SIZE,
				      &o->size) < 0) {
				fprintf(stderr, "rds-perf: --size must be 0..%u\n",
					RTE_RDS_MAX_MSG_SIZE);
				return -1;
			}
			break;
		case OPT_SECS:
			errno = 0;
			o->secs = strtod(optarg, &end);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    !(o->secs >= 0.001 && o->secs <= 86400.0)) {
				fprintf(stderr, "rds-perf: --secs must be 0.001..86400\n");
				return -1;
			}
			break;
		case OPT_DEPTH:
			if (parse_u32(optarg, 1, PERF_DEPTH_MAX, &o->depth) < 0) {
				fprintf(stderr, "rds-perf: --depth must be 1..%u\n",
					PERF_DEPTH_MAX);
				return -1;
			}
			depth_set = true;
			break;
		case OPT_ENGINE:
			if (strcmp(optarg, "inline") == 0) {
				o->engine = PERF_ENGINE_INLINE;
			} else if (strcmp(optarg, "lcore") == 0) {
				o->engine = PERF_ENGINE_LCORE;
			} else {
				fprintf(stderr, "rds-perf: --engine must be inline or lcore\n");
				return -1;
			}
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_VERBOSE:
			o->verbose = true;
			break;
		case OPT_RAW_RING:
			o->raw_ring = true;
			break;
		case OPT_ROLE:
			if (strcmp(optarg, "server") == 0) {
				o->role = PERF_ROLE_SERVER;
			} else if (strcmp(optarg, "client") == 0) {
				o->role = PERF_ROLE_CLIENT;
			} else {
				fprintf(stderr, "rds-perf: --role must be server or client\n");
				return -1;
			}
			role_set = true;
			break;
		case OPT_LOCAL:
			o->local = optarg;
			break;
		case OPT_PEER:
			o->peer = optarg;
			break;
		case OPT_PORT:
			if (parse_u32(optarg, 1, 65535, &port) < 0) {
				fprintf(stderr, "rds-perf: --port must be 1..65535\n");
				return -1;
			}
			o->port = (uint16_t)port;
			port_set = true;
			break;
		case OPT_WAIT:
			errno = 0;
			o->wait = strtod(optarg, &end);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    !(o->wait >= 0.1 && o->wait <= 86400.0)) {
				fprintf(stderr, "rds-perf: --wait must be 0.1..86400\n");
				return -1;
			}
			wait_set = true;
			break;
		case 'h':
		case OPT_HELP:
			usage(prog);
			exit(EXIT_SUCCESS);
		default:	/* getopt_long printed the reason */
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rds-perf: unexpected argument '%s'\n",
			argv[optind]);
		return -1;
	}
	if (perf_is_rdma(o->mode) && !depth_set)
		o->depth = 1;	/* rdma-*: one op at a time unless asked */
	if (perf_is_rdma(o->mode) && o->size == 0) {
		fprintf(stderr, "rds-perf: --mode %s needs --size 1..%u (an RDMA moves at least one byte)\n",
			perf_mode_name(o->mode), RTE_RDS_MAX_MSG_SIZE);
		return -1;
	}

	switch (o->transport) {
	case PERF_TRANSPORT_LOOP:
		if (role_set || o->local != NULL || o->peer != NULL ||
		    port_set || wait_set) {
			fprintf(stderr, "rds-perf: --role, --local, --peer, --port and --wait do not apply to the loop transport (both sides run in this process)\n");
			return -1;
		}
		break;
	case PERF_TRANSPORT_IB:
#ifndef RDS_PERF_HAVE_IB
		fprintf(stderr, "rds-perf: built without the ib transport (libibverbs or librdmacm missing)\n");
		return -1;
#endif
		if (!role_set) {
			fprintf(stderr, "rds-perf: --transport ib needs --role server or --role client\n");
			return -1;
		}
		if (o->local == NULL ||
		    inet_pton(AF_INET, o->local, &a_local) != 1) {
			fprintf(stderr, "rds-perf: --transport ib needs --local, this process's IPv4 address\n");
			return -1;
		}
		if (o->role == PERF_ROLE_CLIENT && o->peer == NULL) {
			fprintf(stderr, "rds-perf: the client needs --peer, the server's IPv4 address\n");
			return -1;
		}
		if (o->peer != NULL) {
			if (inet_pton(AF_INET, o->peer, &a_peer) != 1) {
				fprintf(stderr, "rds-perf: bad --peer address '%s'\n",
					o->peer);
				return -1;
			}
			if (a_peer.s_addr == a_local.s_addr) {
				fprintf(stderr, "rds-perf: --peer must differ from --local\n");
				return -1;
			}
		}
		break;
	case PERF_TRANSPORT_ETH:
		fprintf(stderr, "rds-perf: transport '%s' is not supported by rds-perf yet; only 'loop' and 'ib' are\n",
			perf_transport_name(o->transport));
		return -1;
	}
	return 0;
}

/* Socket buffer size: room for every request in flight, with headroom. */
static int
perf_sock_buf(const struct perf_opts *o)
{
	uint64_t depth = perf_window(o);
	uint64_t b = depth * o->size + PERF_BUF_SLACK;

	if (b < 212992)		/* never below the kernel's default */
		b = 212992;
	if (o->size >= PERF_BUF_SLACK &&
	    b < RTE_RDS_MAX_MSG_SIZE + PERF_BUF_SLACK)
		b = RTE_RDS_MAX_MSG_SIZE + PERF_BUF_SLACK;
	if (b > INT_MAX / 2)	/* getsockopt reports twice the value */
		b = INT_MAX / 2;
	return (int)b;
}

static const char *
perf_sin_str(const struct sockaddr_in *sin, char *buf, size_t len)
{
	char ip[INET_ADDRSTRLEN];

	if (inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof(ip)) == NULL)
		snprintf(ip, sizeof(ip), "?");
	snprintf(buf, len, "%s:%u", ip, ntohs(sin->sin_port));
	return buf;
}

static bool
perf_sin_equal(const struct sockaddr_in *a, const struct sockaddr_in *b)
{
	return a->sin_addr.s_addr == b->sin_addr.s_addr &&
		a->sin_port == b->sin_port;
}

/* Set a socket's SO_SNDBUF and SO_RCVBUF. */
static void
perf_set_bufs(int s, const char *what, int buf)
{
	if (rte_rds_setsockopt(s, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf)) < 0)
		perf_fail("rte_rds_setsockopt(%s, SO_SNDBUF, %d)", what, buf);
	if (rte_rds_setsockopt(s, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf)) < 0)
		perf_fail("rte_rds_setsockopt(%s, SO_RCVBUF, %d)", what, buf);
}

/* Open an RDS socket, pin its transport (trans >= 0: an SO_RDS_TRANSPORT
 * value), size its buffers (buf > 0; else the defaults), bind it to
 * ip:port (port 0: any free port), and read back the address it got. */
static int
perf_open_socket(const char *what, const char *ip, uint16_t port, int trans,
		 int buf, struct sockaddr_in *name)
{
	struct sockaddr_in sin;
	socklen_t len;
	int s;

	s = rte_rds_socket();
	if (s < 0)
		perf_fail("rte_rds_socket() for the %s", what);
	if (trans >= 0 && rte_rds_setsockopt(s, SOL_RDS, SO_RDS_TRANSPORT,
					     &trans, sizeof(trans)) < 0)
		perf_fail("rte_rds_setsockopt(%s, SO_RDS_TRANSPORT, %d)", what,
			  trans);
	if (buf > 0)
		perf_set_bufs(s, what, buf);

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	if (inet_pton(AF_INET, ip, &sin.sin_addr) != 1)
		perf_die("bad IPv4 address '%s'", ip);
	if (rte_rds_bind(s, (const struct sockaddr *)&sin, sizeof(sin)) < 0)
		perf_fail("rte_rds_bind(%s, %s:%u)", what, ip, port);

	len = sizeof(*name);
	memset(name, 0, sizeof(*name));
	if (rte_rds_getsockname(s, (struct sockaddr *)name, &len) < 0)
		perf_fail("rte_rds_getsockname(%s)", what);
	if (len < sizeof(*name) || name->sin_family != AF_INET ||
	    name->sin_addr.s_addr != sin.sin_addr.s_addr ||
	    name->sin_port == 0 || (port != 0 && name->sin_port != sin.sin_port))
		perf_die("rte_rds_getsockname(%s) returned a wrong address", what);
	return s;
}

/* Engine configuration, common to every transport: one engine, inline or
 * on the first worker lcore; busy-polling either way (this is a
 * benchmark). */
static void
perf_engine_conf(const struct perf_opts *o, struct rte_rds_conf *conf)
{
	unsigned int lcore;

	conf->nb_engines = 1;
	conf->engine[0].idle = RTE_RDS_IDLE_BUSY;
	if (o->engine == PERF_ENGINE_INLINE) {
		conf->engine[0].lcore_id = RTE_RDS_ENGINE_INLINE;
		return;
	}
	lcore = rte_get_next_lcore(-1, 1, 0);
	if (lcore >= RTE_MAX_LCORE) {
		fprintf(stderr, "rds-perf: --engine lcore needs a worker lcore; give the EAL two lcores or more, e.g. -l 0-1\n");
		rte_eal_cleanup();
		exit(PERF_EXIT_USAGE);
	}
	conf->engine[0].lcore_id = lcore;
}

/*
 * Everything that depends on the transport: the local addresses, library
 * init and start, and the sockets this process plays.
 *
 * loop: two local addresses of this instance; the client binds the first,
 * the server the second, and messages between them go over the loop
 * transport inside this process.
 *
 * ib: --local is declared with transport "ib" (rdma_cm finds its device);
 * --role says which side this process plays, and the other side is left
 * at -1. The server binds --local:--port and answers whoever asks (the
 * client, once its hello came). The client binds a data socket and a
 * control socket to --local, port 0 each, and sends to --peer:--port.
 * Every socket is pinned to RDS_TRANS_IB.
 */
static void
perf_setup_transport(struct perf_ctx *ctx, struct rte_rds_conf *conf)
{
	const struct perf_opts *o = ctx->o;
	int buf = perf_sock_buf(o);

	switch (o->transport) {
	case PERF_TRANSPORT_LOOP:
		if (rte_rds_conf_add_addr(conf, PERF_LOOP_CLIENT_IP, "loop",
					  NULL) < 0)
			perf_fail("rte_rds_conf_add_addr(%s, loop)",
				  PERF_LOOP_CLIENT_IP);
		if (rte_rds_conf_add_addr(conf, PERF_LOOP_SERVER_IP, "loop",
					  NULL) < 0)
			perf_fail("rte_rds_conf_add_addr(%s, loop)",
				  PERF_LOOP_SERVER_IP);
		if (rte_rds_init(conf) < 0)
			perf_fail("rte_rds_init()");
		if (rte_rds_start() < 0)
			perf_fail("rte_rds_start()");
		ctx->cli = perf_open_socket("client", PERF_LOOP_CLIENT_IP, 0,
					    -1, buf, &ctx->cli_name);
		ctx->srv = perf_open_socket("server", PERF_LOOP_SERVER_IP, 0,
					    -1, buf, &ctx->srv_name);
		ctx->dst = ctx->srv_name;
		ctx->check_src = true;
		break;
	case PERF_TRANSPORT_IB:
		if (rte_rds_conf_add_addr(conf, o->local, "ib", NULL) < 0)
			perf_fail("rte_rds_conf_add_addr(%s, ib)", o->local);
		if (rte_rds_init(conf) < 0)
			perf_fail("rte_rds_init() with %s on the ib transport", o->local);
		if (rte_rds_start() < 0)
			perf_fail("rte_rds_start()");
		if (o->role == PERF_ROLE_SERVER) {
			/* Buffers are sized again when the hello tells the
			 * mode, size and depth. */
			ctx->srv = perf_open_socket("server", o->local, o->port,
						    RDS_TRANS_IB, buf,
						    &ctx->srv_name);
			if (o->peer != NULL) {
				/* Only the address is known before the hello. */
				ctx->cli_name.sin_family = AF_INET;
				inet_pton(AF_INET, o->peer,
					  &ctx->cli_name.sin_addr);
			}
		} else {
			ctx->cli = perf_open_socket("client", o->local, 0,
						    RDS_TRANS_IB, buf,
						    &ctx->cli_name);
			ctx->ctl = perf_open_socket("control", o->local, 0,
						    RDS_TRANS_IB, 0,
						    &ctx->ctl_src);
			memset(&ctx->dst, 0, sizeof(ctx->dst));
			ctx->dst.sin_family = AF_INET;
			ctx->dst.sin_port = htons(o->port);
			inet_pton(AF_INET, o->peer, &ctx->dst.sin_addr);
			ctx->srv_name = ctx->dst;
			ctx->check_src = true;
		}
		break;
	case PERF_TRANSPORT_ETH:
		/* parse_args() rejects it for now. */
		perf_die("transport '%s' is not supported yet",
			 perf_transport_name(o->transport));
	}
}

/* Drive the engine, if it is ours to drive. */
static inline void
perf_poll(const struct perf_ctx *ctx)
{
	if (ctx->inline_engine && rte_rds_engine_poll(0) < 0)
		perf_fail("rte_rds_engine_poll(0)");
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

static int
perf_rtt_init(struct perf_rtt *r)
{
	r->cap = PERF_RTT_CAP;
	r->v = malloc(r->cap * sizeof(*r->v));
	r->n = 0;
	r->stride = 1;
	r->skip = 0;
	r->max = 0;
	return r->v == NULL ? -1 : 0;
}

static inline void
perf_rtt_add(struct perf_rtt *r, uint64_t cycles)
{
	size_t i;

	if (cycles > r->max)
		r->max = cycles;
	if (++r->skip < r->stride)
		return;
	r->skip = 0;
	if (unlikely(r->n == r->cap)) {
		/* Full: keep every other sample, and from now on one RTT in
		 * twice as many. */
		for (i = 0; i < r->n / 2; i++)
			r->v[i] = r->v[2 * i + 1];
		r->n /= 2;
		r->stride *= 2;
	}
	r->v[r->n++] = cycles;
}

static int
perf_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a;
	uint64_t y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile, per 10000, of sorted samples. */
static uint64_t
perf_pct(const uint64_t *v, size_t n, unsigned int per10k)
{
	size_t rank;

	if (n == 0)
		return 0;
	rank = (n * per10k + 9999) / 10000;
	return v[rank == 0 ? 0 : rank - 1];
}

static uint64_t
perf_cycles_ns(uint64_t cycles, uint64_t hz)
{
	return (uint64_t)((double)cycles * 1e9 / (double)hz + 0.5);
}

/* A send was refused: retry later on push-back, fail on anything else. */
static void
perf_send_pushback(struct perf_ctx *ctx, const char *call)
{
	if (rte_errno == EAGAIN)
		ctx->eagain++;	/* our send buffer is full */
	else if (rte_errno == ENOBUFS)
		ctx->enobufs++;	/* the destination port is congested */
	else
		perf_fail("%s", call);
}

/*
 * RDMA modes (rds-rdma(7)).
 *
 * The client's region holds 'slots' slots of --size bytes; request seq
 * uses slot seq % slots. There is one slot per request in flight
 * (slots = depth) while depth * size fits in PERF_RDMA_REGION_MAX, else
 * as many as fit, and then requests in flight share slots.
 *
 * rdma-read: the region holds the pattern; before sending request seq
 * the client stamps seq into its slot (head and tail, as perf_seq_put),
 * unless an earlier request still in flight uses that slot (then the
 * request says so, and the server does not check that op). The server
 * READs the slot into a local buffer of its own (one per request in
 * flight), asks NOTIFY_ME on every op (only the notification says its
 * buffer holds the data, and when the buffer is free again) and checks
 * the buffer when the notification comes.
 *
 * rdma-write: the region starts as 0xff bytes. The server WRITEs its
 * local buffer (the pattern, with seq stamped) into the slot, with
 * NOTIFY_ME on op 0 and every PERF_RDMA_NOTIFY_EVERY-th op (and
 * RDS_RECVERR, so that any failed op is reported); the library copies
 * WRITE data at sendmsg, so one local buffer does. The client checks the
 * slot when the reply comes (the RDMA and its message are atomic, and the
 * message comes after the data), unless a later request that uses the
 * same slot is already out.
 *
 * Both: sequence numbers on every op checked, the whole payload against
 * the pattern on the first op checked and every
 * PERF_RDMA_FULL_CHECK_EVERY-th.
 */
static uint32_t
perf_rdma_slots(uint32_t size, uint32_t window)
{
	uint32_t fit = size == 0 ? window : PERF_RDMA_REGION_MAX / size;

	return RTE_MAX(1u, RTE_MIN(window, fit));
}

static uint8_t *
perf_pattern_new(uint32_t size)
{
	uint8_t *p = malloc(size + 1);
	uint32_t i;

	if (p == NULL)
		perf_die("out of memory");
	for (i = 0; i < size; i++)
		p[i] = (uint8_t)(i * 7 + 1);
	return p;
}

/* 0 when p matches the pattern outside the sequence numbers; else -1
 * with the first differing offset in *off. */
static int
perf_pattern_check(const struct perf_ctx *ctx, const uint8_t *p,
		   uint32_t *off)
{
	const uint32_t size = ctx->o->size;
	const uint32_t head = size >= 8 ? 8 : 0;
	const uint32_t tail = size >= 16 ? 8 : 0;
	uint32_t i;

	if (memcmp(p + head, ctx->pattern + head, size - head - tail) == 0)
		return 0;
	for (i = head; i < size - tail && p[i] == ctx->pattern[i]; i++)
		;
	*off = i;
	return -1;
}

/* Check one payload that should carry seq over the pattern (full: the
 * whole payload, else only the sequence numbers). */
static void
perf_rdma_check(struct perf_ctx *ctx, const uint8_t *p, uint64_t seq,
		bool full, const char *what)
{
	uint64_t got;
	uint32_t off;

	if (perf_seq_check(p, ctx->o->size, seq, &got) < 0)
		perf_error(ctx, "%s %" PRIu64 ": carries sequence number %" PRIu64,
			   what, seq, got);
	else if (full && perf_pattern_check(ctx, p, &off) < 0)
		perf_error(ctx, "%s %" PRIu64 ": byte %u is 0x%02x, expected 0x%02x",
			   what, seq, off, p[off], ctx->pattern[off]);
}

static const char *
perf_rdma_status_name(int status)
{
	switch (status) {
	case RDS_RDMA_SUCCESS:
		return "SUCCESS";
	case RDS_RDMA_REMOTE_ERROR:
		return "REMOTE_ERROR";
	case RDS_RDMA_CANCELED:
		return "CANCELED";
	case RDS_RDMA_DROPPED:
		return "DROPPED";
	case RDS_RDMA_OTHER_ERROR:
		return "OTHER_ERROR";
	}
	return "?";
}

/* rdma-write: the server asks NOTIFY_ME on this op. */
static inline bool
perf_rdma_notify(const struct perf_ctx *ctx, uint64_t seq)
{
	return ctx->o->mode == PERF_MODE_RDMA_READ ||
		seq % PERF_RDMA_NOTIFY_EVERY == 0;
}

/* Client, RDMA modes: allocate and register the region (RDS_GET_MR on the
 * data socket; READWRITE for rdma-write), once. */
static void
perf_rdma_client_setup(struct perf_ctx *ctx)
{
	const struct perf_opts *o = ctx->o;
	struct rds_get_mr_args mr;
	size_t bytes, len;
	uint32_t i;

	ctx->slots = perf_rdma_slots(o->size, ctx->window);
	bytes = (size_t)ctx->slots * o->size;
	len = RTE_ALIGN_CEIL(bytes, 4096);
	ctx->region = aligned_alloc(4096, len);
	if (ctx->pattern == NULL)
		ctx->pattern = perf_pattern_new(o->size);
	if (ctx->region == NULL)
		perf_die("out of memory");
	if (o->mode == PERF_MODE_RDMA_READ)
		for (i = 0; i < ctx->slots; i++)
			memcpy(ctx->region + (size_t)i * o->size,
			       ctx->pattern, o->size);
	else
		memset(ctx->region, 0xff, len);
	memset(&mr, 0, sizeof(mr));
	mr.vec.addr = (uintptr_t)ctx->region;
	mr.vec.bytes = bytes;
	mr.cookie_addr = (uintptr_t)&ctx->cookie;
	mr.flags = o->mode == PERF_MODE_RDMA_WRITE ? RDS_RDMA_READWRITE : 0;
	if (rte_rds_setsockopt(ctx->cli, SOL_RDS, RDS_GET_MR, &mr,
			       sizeof(mr)) < 0)
		perf_fail("rte_rds_setsockopt(client, RDS_GET_MR, %zu bytes%s)",
			  bytes, o->mode == PERF_MODE_RDMA_WRITE ?
			  ", READWRITE" : "");
}

/* Server, RDMA modes: local buffers and state, once the mode, size, depth
 * and slots are known; RDS_RECVERR on. */
static void
perf_rdma_server_setup(struct perf_ctx *ctx, uint32_t slots)
{
	const struct perf_opts *o = ctx->o;
	size_t nloc = o->mode == PERF_MODE_RDMA_READ ? ctx->window : 1;
	int one = 1;

	ctx->slots = slots;
	free(ctx->pattern);
	ctx->pattern = perf_pattern_new(o->size);
	ctx->srv_local = malloc(nloc * o->size);
	ctx->srv_busy = calloc(ctx->window, 1);
	ctx->srv_stamped = calloc(ctx->window, 1);
	ctx->req_flags = calloc(ctx->window, sizeof(*ctx->req_flags));
	if (ctx->srv_local == NULL || ctx->srv_busy == NULL ||
	    ctx->srv_stamped == NULL || ctx->req_flags == NULL)
		perf_die("out of memory");
	if (o->mode == PERF_MODE_RDMA_WRITE)
		memcpy(ctx->srv_local, ctx->pattern, o->size);
	else
		memset(ctx->srv_local, 0, nloc * o->size);
	if (rte_rds_setsockopt(ctx->srv, SOL_RDS, RDS_RECVERR, &one,
			       sizeof(one)) < 0)
		perf_fail("rte_rds_setsockopt(server, RDS_RECVERR)");
}

/* Send a control message from s, non-blocking, with the client's cookie
 * in RDS_CMSG_RDMA_DEST when there is a region (RDMA modes). */
static ssize_t
perf_ctl_sendmsg(const struct perf_ctx *ctx, int s,
		 const struct sockaddr_in *to, const struct perf_ctl_msg *m)
{
	union {
		struct cmsghdr align;
		uint8_t b[CMSG_SPACE(sizeof(uint64_t))];
	} cbuf;
	struct iovec iov = {
		.iov_base = (void *)(uintptr_t)m,
		.iov_len = sizeof(*m),
	};
	struct msghdr mh = {
		.msg_name = (void *)(uintptr_t)to,
		.msg_namelen = sizeof(*to),
		.msg_iov = &iov,
		.msg_iovlen = 1,
	};
	struct cmsghdr *cm;

	if (ctx->region != NULL) {
		memset(&cbuf, 0, sizeof(cbuf));
		mh.msg_control = &cbuf;
		mh.msg_controllen = sizeof(cbuf.b);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_RDS;
		cm->cmsg_type = RDS_CMSG_RDMA_DEST;
		cm->cmsg_len = CMSG_LEN(sizeof(uint64_t));
		memcpy(CMSG_DATA(cm), &ctx->cookie, sizeof(uint64_t));
	}
	return rte_rds_sendmsg(s, &mh, MSG_DONTWAIT);
}

/* The cookie of a received message (RDS_CMSG_RDMA_DEST), if any. */
static bool
perf_cmsg_cookie(struct msghdr *mh, uint64_t *cookie)
{
	struct cmsghdr *cm;

	if (mh->msg_control == NULL || mh->msg_controllen == 0)
		return false;
	for (cm = CMSG_FIRSTHDR(mh); cm != NULL; cm = CMSG_NXTHDR(mh, cm))
		if (cm->cmsg_level == SOL_RDS &&
		    cm->cmsg_type == RDS_CMSG_RDMA_DEST &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(uint64_t))) {
			memcpy(cookie, CMSG_DATA(cm), sizeof(*cookie));
			return true;
		}
	return false;
}

/* Client, RDMA modes: send request tx_seq (16 bytes: seq, flags). */
static bool
perf_client_send_rdma(struct perf_ctx *ctx)
{
	const uint32_t size = ctx->o->size;
	const uint64_t seq = ctx->tx_seq;
	uint64_t req[2] = { seq, 0 }, tsc;
	ssize_t n;

	/* rdma-read: stamp the slot, unless a request still in flight
	 * (seq - slots or earlier) uses it. */
	if (ctx->o->mode == PERF_MODE_RDMA_READ &&
	    (seq < ctx->slots || ctx->rx_seq > seq - ctx->slots)) {
		perf_seq_put(ctx->region + (seq % ctx->slots) * size, size,
			     seq);
		req[1] = PERF_REQ_STAMPED;
	}
	tsc = rte_rdtsc();
	n = rte_rds_sendto(ctx->cli, req, sizeof(req), MSG_DONTWAIT,
			   (const struct sockaddr *)&ctx->dst,
			   sizeof(ctx->dst));
	if (n < 0) {
		perf_send_pushback(ctx, "rte_rds_sendto(client, request)");
		return false;
	}
	if ((size_t)n != sizeof(req))
		perf_error(ctx, "request %" PRIu64 ": rte_rds_sendto returned %zd, not %zu",
			   seq, n, sizeof(req));
	ctx->sent_tsc[seq % ctx->window] = tsc;
	ctx->tx_seq++;
	return true;
}

/* Client, rdma-write: reply seq came; check its slot unless a later
 * request that uses the same slot is out already. */
static void
perf_rdma_client_check(struct perf_ctx *ctx, uint64_t seq)
{
	const bool full = ctx->rdma_checked % PERF_RDMA_FULL_CHECK_EVERY == 0;

	if (ctx->tx_seq > seq + ctx->slots)
		return;
	perf_rdma_check(ctx, ctx->region + (seq % ctx->slots) * ctx->o->size,
			seq, full, "rdma-write: client region after op");
	ctx->rdma_checked++;
	if (full)
		ctx->rdma_full_checked++;
}

/* Client: send request tx_seq. False when the library pushed back. */
static bool
perf_client_send(struct perf_ctx *ctx)
{
	uint32_t size = ctx->o->size;
	uint64_t tsc;
	ssize_t n;

	if (perf_is_rdma(ctx->o->mode))
		return perf_client_send_rdma(ctx);
	perf_seq_put(ctx->cli_tx, size, ctx->tx_seq);
	tsc = rte_rdtsc();
	n = rte_rds_sendto(ctx->cli, ctx->cli_tx, size, MSG_DONTWAIT,
			   (const struct sockaddr *)&ctx->dst,
			   sizeof(ctx->dst));
	if (n < 0) {
		perf_send_pushback(ctx, "rte_rds_sendto(client, request)");
		return false;
	}
	if ((size_t)n != size)
		perf_error(ctx, "request %" PRIu64 ": rte_rds_sendto returned %zd, not %u",
			   ctx->tx_seq, n, size);
	ctx->sent_tsc[ctx->tx_seq % ctx->window] = tsc;
	ctx->tx_seq++;
	return true;
}

/* Client: take the replies that are there (rte_rds_recvmsg), check them
 * and record their round trips. */
static void
perf_client_recv(struct perf_ctx *ctx)
{
	const uint32_t size = ctx->o->size;
	const bool rdma = perf_is_rdma(ctx->o->mode);
	const uint32_t want = rdma ? PERF_RDMA_REPLY_LEN :
		ctx->o->mode == PERF_MODE_LAT ? size : 0;
	char a[32], b[32];
	unsigned int i;

	for (i = 0; i < PERF_BURST; i++) {
		struct sockaddr_in from;
		struct iovec iov = {
			.iov_base = ctx->cli_rx,
			.iov_len = size + PERF_RX_SLACK,
		};
		struct msghdr mh = {
			.msg_name = &from,
			.msg_namelen = sizeof(from),
			.msg_iov = &iov,
			.msg_iovlen = 1,
		};
		uint64_t tsc, got;
		ssize_t n;

		n = rte_rds_recvmsg(ctx->cli, &mh, MSG_DONTWAIT);
		tsc = rte_rdtsc();
		if (n < 0) {
			if (rte_errno == EAGAIN)
				return;
			perf_fail("rte_rds_recvmsg(client)");
		}
		if (n == 0 && mh.msg_namelen == 0) {
			perf_error(ctx, "client got a notification (it asked for none)");
			continue;
		}
		if (ctx->rx_seq == ctx->tx_seq) {
			perf_error(ctx, "client got a %zd-byte reply with no request in flight (duplicate?)",
				   n);
			continue;
		}
		if ((size_t)n != want || (mh.msg_flags & MSG_TRUNC))
			perf_error(ctx, "reply %" PRIu64 ": %zd bytes%s, expected %u",
				   ctx->rx_seq, n,
				   (mh.msg_flags & MSG_TRUNC) ? " (MSG_TRUNC)" : "",
				   want);
		else if (want > 0 &&
			 perf_seq_check(ctx->cli_rx, want, ctx->rx_seq, &got) < 0)
			perf_error(ctx, "reply %" PRIu64 ": %s sequence number %" PRIu64,
				   ctx->rx_seq, rdma ? "carries" : "echoes",
				   got);
		if (ctx->o->mode == PERF_MODE_RDMA_WRITE)
			perf_rdma_client_check(ctx, ctx->rx_seq);
		if (!perf_sin_equal(&from, &ctx->dst))
			perf_error(ctx, "reply %" PRIu64 ": from %s, expected %s",
				   ctx->rx_seq,
				   perf_sin_str(&from, a, sizeof(a)),
				   perf_sin_str(&ctx->dst, b, sizeof(b)));
		if (ctx->measuring) {
			perf_rtt_add(&ctx->rtt,
				     tsc - ctx->sent_tsc[ctx->rx_seq % ctx->window]);
			ctx->msgs++;
		}
		ctx->rx_seq++;
	}
}

/* Client: fill the window (unless draining), then take replies. Replies
 * come back in order, so request rx_seq is the one being answered. */
static void
perf_client_step(struct perf_ctx *ctx, bool may_send)
{
	unsigned int i;

	for (i = 0; may_send && i < PERF_BURST &&
	     ctx->tx_seq - ctx->rx_seq < ctx->window; i++)
		if (!perf_client_send(ctx))
			break;
	perf_client_recv(ctx);
}

/*
 * ib control messages. They travel between the client's control socket and
 * the server's socket, so the server tells them from requests by their
 * source, never by their length or contents.
 */
static void
perf_ctl_put(struct perf_ctl_msg *m, enum perf_ctl_type type,
	     const struct perf_opts *o, uint16_t data_port_be,
	     uint64_t v0, uint64_t v1, uint64_t v2)
{
	memset(m, 0, sizeof(*m));
	m->magic = rte_cpu_to_be_32(PERF_CTL_MAGIC);
	m->version = rte_cpu_to_be_16(PERF_CTL_VERSION);
	m->type = rte_cpu_to_be_16((uint16_t)type);
	m->mode = rte_cpu_to_be_32((uint32_t)o->mode);
	m->size = rte_cpu_to_be_32(o->size);
	m->depth = rte_cpu_to_be_32(o->depth);
	m->data_port = data_port_be;
	m->v[0] = rte_cpu_to_be_64(v0);
	m->v[1] = rte_cpu_to_be_64(v1);
	m->v[2] = rte_cpu_to_be_64(v2);
}

/* Decode a control message in place (to host order). Its type, or 0 when
 * it is not one of ours. */
static int
perf_ctl_get(const void *p, size_t len, struct perf_ctl_msg *m)
{
	unsigned int i;

	if (len != sizeof(*m))
		return 0;
	memcpy(m, p, sizeof(*m));
	if (rte_be_to_cpu_32(m->magic) != PERF_CTL_MAGIC ||
	    rte_be_to_cpu_16(m->version) != PERF_CTL_VERSION)
		return 0;
	m->type = rte_be_to_cpu_16(m->type);
	m->mode = rte_be_to_cpu_32(m->mode);
	m->size = rte_be_to_cpu_32(m->size);
	m->depth = rte_be_to_cpu_32(m->depth);
	for (i = 0; i < RTE_DIM(m->v); i++)
		m->v[i] = rte_be_to_cpu_64(m->v[i]);
	if (m->type < PERF_CTL_HELLO || m->type > PERF_CTL_DONE_ACK)
		return 0;
	return m->type;
}

/* Send a control message, retrying on push-back (driving the engine) for
 * up to 'secs'. */
static void
perf_ctl_send(const struct perf_ctx *ctx, int s,
	      const struct sockaddr_in *to, const struct perf_ctl_msg *m,
	      const char *what, double secs)
{
	const uint64_t hz = rte_get_tsc_hz();
	const uint64_t end = rte_rdtsc() + (uint64_t)(secs * (double)hz);
	ssize_t n;

	for (;;) {
		n = rte_rds_sendto(s, m, sizeof(*m), MSG_DONTWAIT,
				   (const struct sockaddr *)to, sizeof(*to));
		if (n == (ssize_t)sizeof(*m))
			return;
		if (n >= 0)
			perf_die("rte_rds_sendto(%s) returned %zd, not %zu",
				 what, n, sizeof(*m));
		if (rte_errno != EAGAIN && rte_errno != ENOBUFS)
			perf_fail("rte_rds_sendto(%s)", what);
		if (rte_rdtsc() > end)
			perf_fail("rte_rds_sendto(%s) (pushed back for %.0f s)",
				  what, secs);
		perf_poll(ctx);
	}
}

/* Server: a control message came from the client's control socket. */
static void
perf_server_control(struct perf_ctx *ctx, const void *p, size_t len)
{
	struct perf_ctl_msg m;

	switch (perf_ctl_get(p, len, &m)) {
	case PERF_CTL_HELLO:
		/* The client repeated its hello before our answer reached
		 * it: it has that answer by now. */
		ctx->ctl_ignored++;
		break;
	case PERF_CTL_DONE:
		if (ctx->done) {
			perf_error(ctx, "the client said done twice");
			break;
		}
		ctx->done = true;
		memcpy(ctx->peer_v, m.v, sizeof(ctx->peer_v));
		break;
	default:
		perf_error(ctx, "bad %zu-byte control message from the client",
			   len);
		break;
	}
}

/* Server: check one request; the sender is already in reply_to[idx]. */
static void
perf_server_check(struct perf_ctx *ctx, const uint8_t *p, size_t len,
		  bool trunc, unsigned int idx)
{
	const uint32_t size = ctx->o->size;
	const struct sockaddr_in *from = &ctx->reply_to[idx];
	char a[32], b[32];
	uint64_t got;

	if (len != size || trunc)
		perf_error(ctx, "request %" PRIu64 ": %zu bytes%s, expected %u",
			   ctx->srv_rx, len, trunc ? " (MSG_TRUNC)" : "", size);
	else if (perf_seq_check(p, size, ctx->srv_rx, &got) < 0)
		perf_error(ctx, "request %" PRIu64 ": carries sequence number %" PRIu64 " (lost, duplicated or reordered)",
			   ctx->srv_rx, got);
	if (ctx->check_src && !perf_sin_equal(from, &ctx->cli_name))
		perf_error(ctx, "request %" PRIu64 ": from %s, expected %s",
			   ctx->srv_rx, perf_sin_str(from, a, sizeof(a)),
			   perf_sin_str(&ctx->cli_name, b, sizeof(b)));
	ctx->srv_rx++;
}

/* Server: send the replies still owed. True when none is left. */
static bool
perf_server_flush(struct perf_ctx *ctx)
{
	/* lat echoes the request (in srv_buf); bw answers with 0 bytes. */
	const size_t len = ctx->o->mode == PERF_MODE_LAT ? ctx->o->size : 0;

	while (ctx->owed_next < ctx->owed) {
		struct iovec iov = {
			.iov_base = ctx->srv_buf,
			.iov_len = len,
		};
		struct msghdr mh = {
			.msg_name = &ctx->reply_to[ctx->owed_next],
			.msg_namelen = sizeof(struct sockaddr_in),
			.msg_iov = &iov,
			.msg_iovlen = 1,
		};
		ssize_t n;

		n = rte_rds_sendmsg(ctx->srv, &mh, MSG_DONTWAIT);
		if (n < 0) {
			perf_send_pushback(ctx, "rte_rds_sendmsg(server, reply)");
			return false;
		}
		if ((size_t)n != len)
			perf_error(ctx, "reply %" PRIu64 ": rte_rds_sendmsg returned %zd, not %zu",
				   ctx->srv_tx, n, len);
		ctx->owed_next++;
		ctx->srv_tx++;
	}
	ctx->owed = 0;
	ctx->owed_next = 0;
	return true;
}

/* Server, lat: one request with rte_rds_recvmsg, into srv_buf. */
static void
perf_server_recv_copy(struct perf_ctx *ctx)
{
	struct iovec iov = {
		.iov_base = ctx->srv_buf,
		.iov_len = ctx->o->size + PERF_RX_SLACK,
	};
	struct msghdr mh = {
		.msg_name = &ctx->reply_to[0],
		.msg_namelen = sizeof(ctx->reply_to[0]),
		.msg_iov = &iov,
		.msg_iovlen = 1,
	};
	ssize_t n;

	n = rte_rds_recvmsg(ctx->srv, &mh, MSG_DONTWAIT);
	if (n < 0) {
		if (rte_errno == EAGAIN)
			return;
		perf_fail("rte_rds_recvmsg(server)");
	}
	if (ctx->has_ctl && perf_sin_equal(&ctx->reply_to[0], &ctx->ctl_src)) {
		perf_server_control(ctx, ctx->srv_buf, (size_t)n);
		return;
	}
	perf_server_check(ctx, ctx->srv_buf, (size_t)n,
			  (mh.msg_flags & MSG_TRUNC) != 0, 0);
	ctx->owed = 1;
}

/* Server, bw: a burst of requests with the zero-copy API. */
static void
perf_server_recv_zc(struct perf_ctx *ctx)
{
	struct rte_rds_msg *m[PERF_BURST];
	uint16_t i, n, k = 0;

	n = rte_rds_recv_burst(ctx->srv, m, PERF_BURST);
	for (i = 0; i < n; i++) {
		rte_rds_msg_src(m[i], &ctx->reply_to[k]);
		if (ctx->has_ctl &&
		    perf_sin_equal(&ctx->reply_to[k], &ctx->ctl_src))
			perf_server_control(ctx, rte_rds_msg_data(m[i]),
					    rte_rds_msg_len(m[i]));
		else
			perf_server_check(ctx, rte_rds_msg_data(m[i]),
					  rte_rds_msg_len(m[i]), false, k++);
		rte_rds_msg_free(m[i]);
	}
	ctx->owed = k;
}

/* Server, RDMA modes: one notification (RDS_CMSG_RDMA_STATUS). */
static void
perf_server_rdma_status(struct perf_ctx *ctx, uint64_t token, int status)
{
	const uint32_t size = ctx->o->size;
	uint32_t l;
	bool full;

	ctx->notif_got++;
	if (status != RDS_RDMA_SUCCESS) {
		ctx->notif_failed++;
		perf_error(ctx, "op %" PRIu64 ": notification status %d (%s), not RDS_RDMA_SUCCESS",
			   token, status, perf_rdma_status_name(status));
		if (!perf_rdma_notify(ctx, token))
			return;	/* RDS_RECVERR: not asked for */
	} else if (!perf_rdma_notify(ctx, token) || token >= ctx->srv_tx) {
		perf_error(ctx, "op %" PRIu64 ": notification that was not asked for (%" PRIu64 " ops sent)",
			   token, ctx->srv_tx);
		return;
	}
	if (ctx->notif_pending == 0) {
		perf_error(ctx, "op %" PRIu64 ": one notification too many",
			   token);
		return;
	}
	ctx->notif_pending--;
	if (ctx->o->mode != PERF_MODE_RDMA_READ)
		return;
	l = (uint32_t)(token % ctx->window);
	if (!ctx->srv_busy[l]) {
		perf_error(ctx, "op %" PRIu64 ": notified twice", token);
		return;
	}
	ctx->srv_busy[l] = 0;
	if (status != RDS_RDMA_SUCCESS || !ctx->srv_stamped[l])
		return;
	full = ctx->srv_checked % PERF_RDMA_FULL_CHECK_EVERY == 0;
	perf_rdma_check(ctx, ctx->srv_local + (size_t)l * size, token, full,
			"rdma-read: server buffer after op");
	ctx->srv_checked++;
	if (full)
		ctx->srv_full_checked++;
}

/* Server, RDMA modes: take one message with rte_rds_recvmsg (which hands
 * out notifications first): a notification, a control message or a
 * request. False when there was none. */
static bool
perf_server_rdma_recv(struct perf_ctx *ctx)
{
	union {
		struct cmsghdr align;
		uint8_t b[PERF_RDMA_NOTIFY_BURST *
			  CMSG_SPACE(sizeof(struct rds_rdma_notify))];
	} cbuf;
	struct sockaddr_in from;
	struct iovec iov = {
		.iov_base = ctx->srv_buf,
		.iov_len = ctx->o->size + PERF_RX_SLACK,
	};
	struct msghdr mh = {
		.msg_name = &from,
		.msg_namelen = sizeof(from),
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = &cbuf,
		.msg_controllen = sizeof(cbuf.b),
	};
	struct cmsghdr *cm;
	char a[32], b[32];
	uint64_t req[2];
	unsigned int k = 0;
	ssize_t n;

	n = rte_rds_recvmsg(ctx->srv, &mh, MSG_DONTWAIT);
	if (n < 0) {
		if (rte_errno == EAGAIN)
			return false;
		perf_fail("rte_rds_recvmsg(server)");
	}
	if (n == 0 && mh.msg_namelen == 0) {
		/* Notifications: an empty message without an address. */
		for (cm = CMSG_FIRSTHDR(&mh); cm != NULL;
		     cm = CMSG_NXTHDR(&mh, cm)) {
			struct rds_rdma_notify nt;

			if (cm->cmsg_level != SOL_RDS ||
			    cm->cmsg_type != RDS_CMSG_RDMA_STATUS ||
			    cm->cmsg_len < CMSG_LEN(sizeof(nt))) {
				perf_error(ctx, "unexpected control message (level %d, type %d) in a notification",
					   cm->cmsg_level, cm->cmsg_type);
				continue;
			}
			memcpy(&nt, CMSG_DATA(cm), sizeof(nt));
			perf_server_rdma_status(ctx, nt.user_token, nt.status);
			k++;
		}
		if (k == 0)
			perf_error(ctx, "an empty message without an address and without RDS_CMSG_RDMA_STATUS");
		return true;
	}
	if (ctx->has_ctl && perf_sin_equal(&from, &ctx->ctl_src)) {
		perf_server_control(ctx, ctx->srv_buf, (size_t)n);
		return true;
	}
	memset(req, 0, sizeof(req));
	if (n != PERF_RDMA_REQ_LEN || (mh.msg_flags & MSG_TRUNC)) {
		perf_error(ctx, "request %" PRIu64 ": %zd bytes%s, expected %u",
			   ctx->srv_rx, n,
			   (mh.msg_flags & MSG_TRUNC) ? " (MSG_TRUNC)" : "",
			   PERF_RDMA_REQ_LEN);
	} else {
		memcpy(req, ctx->srv_buf, sizeof(req));
		if (req[0] != ctx->srv_rx)
			perf_error(ctx, "request %" PRIu64 ": carries sequence number %" PRIu64 " (lost, duplicated or reordered)",
				   ctx->srv_rx, req[0]);
	}
	if (ctx->check_src && !perf_sin_equal(&from, &ctx->cli_name))
		perf_error(ctx, "request %" PRIu64 ": from %s, expected %s",
			   ctx->srv_rx, perf_sin_str(&from, a, sizeof(a)),
			   perf_sin_str(&ctx->cli_name, b, sizeof(b)));
	if (ctx->srv_rx - ctx->srv_tx >= ctx->window)
		perf_error(ctx, "request %" PRIu64 ": more than %u requests unanswered",
			   ctx->srv_rx, ctx->window);
	ctx->req_flags[ctx->srv_rx % ctx->window] = (uint32_t)req[1];
	ctx->srv_rx++;
	return true;
}

/* Server, RDMA modes: answer the requests received, in order, each with
 * an 8-byte reply (its sequence number) that carries the RDMA
 * (RDS_CMSG_RDMA_ARGS) to the client's slot. False when the library
 * pushed back, or (rdma-read) the local buffer is still owned by an op
 * whose notification has not come yet. */
static bool
perf_server_rdma_flush(struct perf_ctx *ctx)
{
	const struct perf_opts *o = ctx->o;
	const bool read = o->mode == PERF_MODE_RDMA_READ;

	while (ctx->srv_tx < ctx->srv_rx) {
		union {
			struct cmsghdr align;
			uint8_t b[CMSG_SPACE(sizeof(struct rds_rdma_args))];
		} cbuf;
		const uint64_t seq = ctx->srv_tx;
		const uint32_t l = read ? (uint32_t)(seq % ctx->window) : 0;
		const bool notify = perf_rdma_notify(ctx, seq);
		struct rds_iovec lv = {
			.addr = (uintptr_t)(ctx->srv_local + (size_t)l * o->size),
			.bytes = o->size,
		};
		struct rds_rdma_args ra;
		uint64_t reply = seq;
		struct iovec iov = {
			.iov_base = &reply,
			.iov_len = sizeof(reply),
		};
		struct msghdr mh = {
			.msg_name = &ctx->cli_name,
			.msg_namelen = sizeof(ctx->cli_name),
			.msg_iov = &iov,
			.msg_iovlen = 1,
			.msg_control = &cbuf,
			.msg_controllen = sizeof(cbuf.b),
		};
		struct cmsghdr *cm;
		ssize_t n;

		if (read && ctx->srv_busy[l])
			return false;	/* its notification is due first */
		if (!read)
			perf_seq_put(ctx->srv_local, o->size, seq);
		memset(&ra, 0, sizeof(ra));
		ra.cookie = ctx->peer_cookie;
		ra.remote_vec.addr = (seq % ctx->slots) * o->size;
		ra.remote_vec.bytes = o->size;
		ra.local_vec_addr = (uintptr_t)&lv;
		ra.nr_local = 1;
		ra.flags = (read ? 0 : RDS_RDMA_READWRITE) |
			   (notify ? RDS_RDMA_NOTIFY_ME : 0);
		ra.user_token = seq;
		memset(&cbuf, 0, sizeof(cbuf));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_RDS;
		cm->cmsg_type = RDS_CMSG_RDMA_ARGS;
		cm->cmsg_len = CMSG_LEN(sizeof(ra));
		memcpy(CMSG_DATA(cm), &ra, sizeof(ra));

		n = rte_rds_sendmsg(ctx->srv, &mh, MSG_DONTWAIT);
		if (n < 0) {
			perf_send_pushback(ctx, "rte_rds_sendmsg(server, reply with RDS_CMSG_RDMA_ARGS)");
			return false;
		}
		if ((size_t)n != sizeof(reply))
			perf_error(ctx, "reply %" PRIu64 ": rte_rds_sendmsg returned %zd, not %zu",
				   seq, n, sizeof(reply));
		if (notify)
			ctx->notif_pending++;
		if (read) {
			ctx->srv_busy[l] = 1;
			ctx->srv_stamped[l] =
				(ctx->req_flags[seq % ctx->window] &
				 PERF_REQ_STAMPED) != 0;
		}
		ctx->srv_tx++;
	}
	return true;
}

/* Server, RDMA modes: answer, take what came (notifications, requests),
 * answer again. */
static void
perf_server_rdma_step(struct perf_ctx *ctx)
{
	unsigned int i;

	perf_server_rdma_flush(ctx);
	for (i = 0; i < PERF_BURST; i++)
		if (!perf_server_rdma_recv(ctx))
			break;
	perf_server_rdma_flush(ctx);
}

/* Server, RDMA modes, after the run: every notification asked for came,
 * and op 0's at least. */
static void
perf_rdma_server_final(struct perf_ctx *ctx)
{
	if (ctx->notif_pending != 0)
		perf_error(ctx, "%" PRIu64 " notifications asked for never came",
			   ctx->notif_pending);
	if (ctx->srv_tx > 0 && ctx->notif_got == 0)
		perf_error(ctx, "no notification came (op 0 asked for one)");
}

/* Server: finish the replies owed, then take new requests and answer
 * them. Requests stay in the library (counted against the receive buffer)
 * until every earlier reply is out: that is the back-pressure. */
static void
perf_server_step(struct perf_ctx *ctx)
{
	if (perf_is_rdma(ctx->o->mode)) {
		perf_server_rdma_step(ctx);
		return;
	}
	if (!perf_server_flush(ctx))
		return;
	if (ctx->o->mode == PERF_MODE_LAT)
		perf_server_recv_copy(ctx);
	else
		perf_server_recv_zc(ctx);
	perf_server_flush(ctx);
}

/* Nothing in flight on either side. */
static bool
perf_quiet(const struct perf_ctx *ctx)
{
	return (ctx->cli < 0 || ctx->tx_seq == ctx->rx_seq) &&
		(ctx->srv < 0 || (ctx->owed_next == ctx->owed &&
				  ctx->srv_tx == ctx->srv_rx &&
				  ctx->notif_pending == 0));
}

static void
perf_print_engine_stats(FILE *f)
{
	uint64_t v[RTE_RDS_STATS_NUM];
	struct rte_rds_stats st;
	const char *name;
	unsigned int i;

	if (rte_rds_stats_get(-1, &st) < 0)
		perf_fail("rte_rds_stats_get(-1)");
	memcpy(v, &st, sizeof(v));
	fprintf(f, "engine counters (all engines):\n");
	for (i = 0; i < RTE_RDS_STATS_NUM; i++) {
		name = rte_rds_stats_name(i);
		fprintf(f, "  %-28s %" PRIu64 "\n", name != NULL ? name : "?",
			v[i]);
	}
}

/* Loop transport counters: frames carried, and fault-hook effects. */
static void
perf_print_loop_stats(FILE *f)
{
	struct rte_rds_loop_stats st;

	if (rte_rds_loop_stats_get(&st) < 0)
		perf_fail("rte_rds_loop_stats_get()");
	fprintf(f, "loop transport counters:\n"
		"  %-28s %" PRIu64 "\n  %-28s %" PRIu64 "\n"
		"  %-28s %" PRIu64 "\n  %-28s %" PRIu64 "\n",
		"frames", st.frames, "dropped", st.dropped,
		"flushed", st.flushed, "resets", st.resets);
}

#ifdef RDS_PERF_HAVE_IB
/* ib transport counters. */
static void
perf_print_ib_stats(FILE *f)
{
	struct rte_rds_ib_stats st;

	if (rte_rds_ib_stats_get(&st) < 0)
		perf_fail("rte_rds_ib_stats_get()");
	fprintf(f, "ib transport counters:\n");
#define PERF_IB_STAT(x) fprintf(f, "  %-28s %" PRIu64 "\n", #x, st.x)
	PERF_IB_STAT(connects_active);
	PERF_IB_STAT(connects_passive);
	PERF_IB_STAT(connect_raced);
	PERF_IB_STAT(listen_closed_stale);
	PERF_IB_STAT(rejects_incompat);
	PERF_IB_STAT(cm_errors);
	PERF_IB_STAT(tx_frames);
	PERF_IB_STAT(tx_ring_full);
	PERF_IB_STAT(rx_frames);
	PERF_IB_STAT(rx_frag_mismatch);
	PERF_IB_STAT(qp_errors);
	PERF_IB_STAT(qp_errors_injected);
#undef PERF_IB_STAT
}
#endif

/* Library counters: the engines', and the transport's. */
static void
perf_print_stats(const struct perf_opts *o, FILE *f)
{
	perf_print_engine_stats(f);
	if (o->transport == PERF_TRANSPORT_LOOP)
		perf_print_loop_stats(f);
#ifdef RDS_PERF_HAVE_IB
	if (o->transport == PERF_TRANSPORT_IB)
		perf_print_ib_stats(f);
#endif
}

/* No progress for PERF_STALL_S: say where everything stands, exit 1. */
static __rte_noreturn void
perf_stalled(const struct perf_ctx *ctx, const char *phase)
{
	fflush(stdout);
	fprintf(stderr, "rds-perf: stalled: no message moved for %u s (%s)\n",
		PERF_STALL_S, phase);
	if (ctx->cli >= 0)	/* (ib: only the side this process plays) */
		fprintf(stderr, "  client: requests sent %" PRIu64 ", replies received %" PRIu64 ", in flight %" PRIu64 "\n",
			ctx->tx_seq, ctx->rx_seq, ctx->tx_seq - ctx->rx_seq);
	if (ctx->srv >= 0)
		fprintf(stderr, "  server: requests received %" PRIu64 ", replies sent %" PRIu64 ", replies owed %u\n",
			ctx->srv_rx, ctx->srv_tx, ctx->owed - ctx->owed_next);
	if (ctx->srv >= 0 && perf_is_rdma(ctx->o->mode))
		fprintf(stderr, "  server: RDMA notifications received %" PRIu64 " (%" PRIu64 " failed), still due %" PRIu64 "\n",
			ctx->notif_got, ctx->notif_failed,
			ctx->notif_pending);
	fprintf(stderr, "  send push-back: EAGAIN %" PRIu64 ", ENOBUFS %" PRIu64 "\n",
		ctx->eagain, ctx->enobufs);
	perf_print_stats(ctx->o, stderr);
	exit(EXIT_FAILURE);
}

/*
 * Loop, RDMA modes: the handshake, before the warm-up. The client ships
 * its cookie (RDS_CMSG_RDMA_DEST) in a hello from its data socket; the
 * server takes it with rte_rds_recvmsg.
 */
static void
perf_rdma_loop_handshake(struct perf_ctx *ctx)
{
	const uint64_t hz = rte_get_tsc_hz();
	const uint64_t end = rte_rdtsc() + hz * PERF_STALL_S;
	union {
		struct cmsghdr align;
		uint8_t b[CMSG_SPACE(sizeof(uint64_t)) + 64];
	} cbuf;
	struct perf_ctl_msg m, in;
	struct sockaddr_in from;
	uint64_t cookie = 0;
	bool sent = false;
	char a[32];
	ssize_t n;

	perf_ctl_put(&m, PERF_CTL_HELLO, ctx->o, ctx->cli_name.sin_port,
		     ctx->slots, 0, 0);
	for (;;) {
		struct iovec iov = {
			.iov_base = ctx->srv_buf,
			.iov_len = ctx->o->size + PERF_RX_SLACK,
		};
		struct msghdr mh = {
			.msg_name = &from,
			.msg_namelen = sizeof(from),
			.msg_iov = &iov,
			.msg_iovlen = 1,
			.msg_control = &cbuf,
			.msg_controllen = sizeof(cbuf.b),
		};

		if (!sent) {
			n = perf_ctl_sendmsg(ctx, ctx->cli, &ctx->dst, &m);
			if (n >= 0)
				sent = true;
			else if (rte_errno != EAGAIN && rte_errno != ENOBUFS)
				perf_fail("rte_rds_sendmsg(client, hello with RDS_CMSG_RDMA_DEST)");
		}
		perf_poll(ctx);
		n = rte_rds_recvmsg(ctx->srv, &mh, MSG_DONTWAIT);
		if (n >= 0) {
			if (!perf_sin_equal(&from, &ctx->cli_name) ||
			    perf_ctl_get(ctx->srv_buf, (size_t)n, &in) !=
			    PERF_CTL_HELLO ||
			    !perf_cmsg_cookie(&mh, &cookie))
				perf_error(ctx, "RDMA handshake: a %zd-byte message from %s that is not the client's hello with its cookie",
					   n, perf_sin_str(&from, a, sizeof(a)));
			break;
		}
		if (rte_errno != EAGAIN)
			perf_fail("rte_rds_recvmsg(server, hello)");
		if (rte_rdtsc() > end)
			perf_stalled(ctx, "RDMA handshake");
	}
	if (cookie != ctx->cookie)
		perf_error(ctx, "RDMA handshake: the server got cookie 0x%016" PRIx64 ", the client sent 0x%016" PRIx64,
			   cookie, ctx->cookie);
	ctx->has_cookie = true;
	ctx->peer_cookie = cookie;
}

/*
 * The run: warm-up (not counted), the measured window, then a drain in
 * which nothing new is sent, every request still in flight is answered,
 * and a short settle period catches any duplicate that would still come.
 */
static void
perf_run(struct perf_ctx *ctx)
{
	enum { WARMUP, MEASURE, DRAIN } phase = WARMUP;
	static const char * const phase_name[] = {
		"warm-up", "measuring", "draining",
	};
	const uint64_t hz = rte_get_tsc_hz();
	uint64_t now = rte_rdtsc();
	const uint64_t warm_end = now + hz * PERF_WARMUP_MS / 1000;
	const uint64_t run_end = warm_end + (uint64_t)(ctx->o->secs * (double)hz);
	const uint64_t stall = hz * PERF_STALL_S;
	uint64_t settle_end = 0;
	uint64_t last_move = now;
	uint64_t moved = 0, cur;

	for (;;) {
		now = rte_rdtsc();
		if (phase == WARMUP && now >= warm_end) {
			phase = MEASURE;
			ctx->measuring = true;
			ctx->t_start = now;
		} else if (phase == MEASURE && now >= run_end) {
			phase = DRAIN;
			ctx->measuring = false;
			ctx->t_stop = now;
		} else if (phase == DRAIN && perf_quiet(ctx)) {
			if (settle_end == 0)
				settle_end = now + hz * PERF_SETTLE_MS / 1000;
			else if (now >= settle_end)
				break;
		}

		if (ctx->cli >= 0) {
			perf_client_step(ctx, phase != DRAIN);
			perf_poll(ctx);
		}
		if (ctx->srv >= 0) {
			perf_server_step(ctx);
			perf_poll(ctx);
		}

		cur = ctx->tx_seq + ctx->rx_seq + ctx->srv_rx + ctx->srv_tx +
			ctx->notif_got;
		if (cur != moved) {
			moved = cur;
			last_move = now;
		} else if (now - last_move > stall) {
			perf_stalled(ctx, phase_name[phase]);
		}
	}
}

/* ib: no peer within the allowed time. Print the counters, exit 1. */
static __rte_noreturn __rte_format_printf(2, 3) void
perf_gave_up(const struct perf_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "rds-perf: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	perf_print_stats(ctx->o, stderr);
	exit(EXIT_FAILURE);
}

/*
 * ib client: say hello from the control socket, again every
 * PERF_HELLO_RETRY_MS, until the server answers, for up to --wait. The
 * first send sets the connection up (and may wait for the server to come
 * up): that time is printed, not measured.
 */
static void
perf_ib_client_hello(struct perf_ctx *ctx)
{
	const struct perf_opts *o = ctx->o;
	const uint64_t hz = rte_get_tsc_hz();
	const uint64_t t0 = rte_rdtsc();
	const uint64_t end = t0 + (uint64_t)(o->wait * (double)hz);
	const uint64_t retry = hz * PERF_HELLO_RETRY_MS / 1000;
	uint8_t buf[sizeof(struct perf_ctl_msg) + PERF_RX_SLACK];
	struct perf_ctl_msg m, in;
	struct sockaddr_in from;
	uint64_t next = t0, now;
	unsigned int sent = 0;
	socklen_t flen;
	char a[32];
	ssize_t n;

	perf_ctl_put(&m, PERF_CTL_HELLO, o, ctx->cli_name.sin_port,
		     ctx->slots, 0, 0);
	for (;;) {
		now = rte_rdtsc();
		if (now >= next) {
			/* RDMA modes: the cookie goes with every hello. */
			n = perf_ctl_sendmsg(ctx, ctx->ctl, &ctx->dst, &m);
			if (n >= 0)
				sent++;
			else if (rte_errno != EAGAIN && rte_errno != ENOBUFS)
				perf_fail("rte_rds_sendto(control, hello)");
			next = now + retry;
		}
		perf_poll(ctx);
		flen = sizeof(from);
		n = rte_rds_recvfrom(ctx->ctl, buf, sizeof(buf), MSG_DONTWAIT,
				     (struct sockaddr *)&from, &flen);
		if (n >= 0) {
			if (perf_sin_equal(&from, &ctx->dst) &&
			    perf_ctl_get(buf, (size_t)n, &in) ==
			    PERF_CTL_HELLO_ACK)
				break;
			perf_error(ctx, "unexpected %zd-byte message from %s on the control socket",
				   n, perf_sin_str(&from, a, sizeof(a)));
			continue;
		}
		if (rte_errno != EAGAIN)
			perf_fail("rte_rds_recvfrom(control)");
		if (now > end)
			perf_gave_up(ctx, "no answer from the server %s within %.1f s (hello sent %u times): is it running, with --port %u, and is %s an ib address?",
				     perf_sin_str(&ctx->dst, a, sizeof(a)),
				     o->wait, sent, o->port, o->peer);
	}
	ctx->setup_ms = (double)(rte_rdtsc() - t0) * 1e3 / (double)hz;
	printf("rds-perf: server %s answered the hello after %.1f ms (hello sent %u times; connection set-up included, not measured)\n",
	       perf_sin_str(&ctx->dst, a, sizeof(a)), ctx->setup_ms, sent);
}

/* ib client, after the run: say done with our counts and compare them
 * with the server's answer. */
static void
perf_ib_client_done(struct perf_ctx *ctx)
{
	const uint64_t hz = rte_get_tsc_hz();
	uint8_t buf[sizeof(struct perf_ctl_msg) + PERF_RX_SLACK];
	struct perf_ctl_msg m, in;
	struct sockaddr_in from;
	uint64_t end;
	socklen_t flen;
	char a[32];
	ssize_t n;

	perf_ctl_put(&m, PERF_CTL_DONE, ctx->o, ctx->cli_name.sin_port,
		     ctx->tx_seq, ctx->rx_seq, ctx->errors);
	perf_ctl_send(ctx, ctx->ctl, &ctx->dst, &m, "control, done",
		      PERF_DONE_WAIT_S);
	end = rte_rdtsc() + hz * PERF_DONE_WAIT_S;
	for (;;) {
		perf_poll(ctx);
		flen = sizeof(from);
		n = rte_rds_recvfrom(ctx->ctl, buf, sizeof(buf), MSG_DONTWAIT,
				     (struct sockaddr *)&from, &flen);
		if (n >= 0) {
			int type = perf_ctl_get(buf, (size_t)n, &in);

			if (!perf_sin_equal(&from, &ctx->dst) || type == 0) {
				perf_error(ctx, "unexpected %zd-byte message from %s on the control socket",
					   n, perf_sin_str(&from, a, sizeof(a)));
				continue;
			}
			if (type == PERF_CTL_DONE_ACK)
				break;
			continue;	/* a late answer to a repeated hello */
		}
		if (rte_errno != EAGAIN)
			perf_fail("rte_rds_recvfrom(control)");
		if (rte_rdtsc() > end) {
			perf_error(ctx, "the server did not answer done within %u s",
				   PERF_DONE_WAIT_S);
			return;
		}
	}
	memcpy(ctx->peer_v, in.v, sizeof(ctx->peer_v));
	if (in.v[0] != ctx->tx_seq || in.v[1] != ctx->rx_seq)
		perf_error(ctx, "counts disagree: client sent %" PRIu64 ", server received %" PRIu64 ", server replied %" PRIu64 ", client received %" PRIu64,
			   ctx->tx_seq, in.v[0], in.v[1], ctx->rx_seq);
	if (in.v[2] != 0)
		perf_error(ctx, "the server counted %" PRIu64 " errors (see its output)",
			   in.v[2]);
}

/*
 * ib server: wait up to --wait for the client's hello, take the mode, size
 * and depth from it, size the buffers, answer. From then on, messages from
 * the hello's source are control messages, and requests must come from
 * the hello's address and data port.
 */
static void
perf_ib_server_hello(struct perf_ctx *ctx, struct perf_opts *o)
{
	const uint64_t hz = rte_get_tsc_hz();
	const uint64_t end = rte_rdtsc() + (uint64_t)(o->wait * (double)hz);
	struct perf_ctl_msg m, in;
	struct sockaddr_in from;
	union {
		struct cmsghdr align;
		uint8_t b[CMSG_SPACE(sizeof(uint64_t)) + 64];
	} cbuf;
	uint64_t cookie = 0;
	bool has_cookie;
	uint8_t *buf;
	char a[32], b[32], c[32];
	ssize_t n;

	for (;;) {
		struct iovec iov = {
			.iov_base = ctx->srv_buf,
			.iov_len = o->size + PERF_RX_SLACK,
		};
		struct msghdr mh = {
			.msg_name = &from,
			.msg_namelen = sizeof(from),
			.msg_iov = &iov,
			.msg_iovlen = 1,
			.msg_control = &cbuf,
			.msg_controllen = sizeof(cbuf.b),
		};

		perf_poll(ctx);
		n = rte_rds_recvmsg(ctx->srv, &mh, MSG_DONTWAIT);
		if (n < 0) {
			if (rte_errno != EAGAIN)
				perf_fail("rte_rds_recvfrom(server)");
			if (rte_rdtsc() > end)
				perf_gave_up(ctx, "no client said hello to %s within %.1f s",
					     perf_sin_str(&ctx->srv_name, a,
							  sizeof(a)),
					     o->wait);
			continue;
		}
		if (n == 0 && mh.msg_namelen == 0) {
			perf_error(ctx, "a notification before any hello");
			continue;
		}
		if (perf_ctl_get(ctx->srv_buf, (size_t)n, &in) !=
		    PERF_CTL_HELLO) {
			perf_error(ctx, "%zd-byte message from %s before any hello: ignored",
				   n, perf_sin_str(&from, a, sizeof(a)));
			continue;
		}
		if (o->peer != NULL &&
		    from.sin_addr.s_addr != ctx->cli_name.sin_addr.s_addr) {
			perf_error(ctx, "hello from %s, not from --peer %s: ignored",
				   perf_sin_str(&from, a, sizeof(a)), o->peer);
			continue;
		}
		if (in.mode > PERF_MODE_RDMA_WRITE ||
		    in.size > RTE_RDS_MAX_MSG_SIZE ||
		    in.depth < 1 || in.depth > PERF_DEPTH_MAX ||
		    (perf_is_rdma(in.mode) &&
		     (in.size == 0 || in.v[0] < 1 || in.v[0] > in.depth ||
		      (in.v[0] > 1 &&
		       in.v[0] * in.size > PERF_RDMA_REGION_MAX)))) {
			perf_error(ctx, "hello from %s with mode %u, size %u, depth %u, slots %" PRIu64 ": ignored",
				   perf_sin_str(&from, a, sizeof(a)), in.mode,
				   in.size, in.depth, in.v[0]);
			continue;
		}
		has_cookie = perf_cmsg_cookie(&mh, &cookie);
		if (perf_is_rdma(in.mode) && !has_cookie) {
			perf_error(ctx, "hello from %s for %s without a cookie (RDS_CMSG_RDMA_DEST): ignored",
				   perf_sin_str(&from, a, sizeof(a)),
				   perf_mode_name(in.mode));
			continue;
		}
		break;
	}

	o->mode = (enum perf_mode)in.mode;
	o->size = in.size;
	o->depth = in.depth;
	ctx->window = perf_window(o);
	buf = realloc(ctx->srv_buf, o->size + PERF_RX_SLACK);
	if (buf == NULL)
		perf_die("out of memory");
	ctx->srv_buf = buf;
	perf_set_bufs(ctx->srv, "server", perf_sock_buf(o));
	if (perf_is_rdma(o->mode)) {
		ctx->has_cookie = true;
		ctx->peer_cookie = cookie;
		perf_rdma_server_setup(ctx, (uint32_t)in.v[0]);
	}

	ctx->ctl_src = from;
	ctx->has_ctl = true;
	ctx->cli_name = from;
	ctx->cli_name.sin_port = in.data_port;
	ctx->check_src = true;

	perf_ctl_put(&m, PERF_CTL_HELLO_ACK, o, 0, 0, 0, 0);
	perf_ctl_send(ctx, ctx->srv, &from, &m, "server, hello answer",
		      o->wait);
	printf("rds-perf: server %s: client %s (control %s) says hello: mode %s, size %u, depth %u\n",
	       perf_sin_str(&ctx->srv_name, a, sizeof(a)),
	       perf_sin_str(&ctx->cli_name, b, sizeof(b)),
	       perf_sin_str(&from, c, sizeof(c)),
	       perf_mode_name(o->mode), o->size, ctx->window);
	if (perf_is_rdma(o->mode))
		printf("rds-perf: server: client's region cookie 0x%016" PRIx64 " (RDS_CMSG_RDMA_DEST), %u slots of %u bytes\n",
		       ctx->peer_cookie, ctx->slots, o->size);
	fflush(stdout);
}

/* ib server: answer requests until the client says done and every reply
 * is out. No message for PERF_STALL_S before that is a stall. */
static void
perf_ib_server_run(struct perf_ctx *ctx)
{
	const uint64_t stall = rte_get_tsc_hz() * PERF_STALL_S;
	uint64_t last_move = rte_rdtsc(), moved = 0, cur, now;

	for (;;) {
		perf_server_step(ctx);
		perf_poll(ctx);
		if (ctx->done && perf_quiet(ctx))
			break;
		now = rte_rdtsc();
		cur = ctx->srv_rx + ctx->srv_tx + ctx->notif_got;
		if (cur != moved) {
			moved = cur;
			last_move = now;
		} else if (now - last_move > stall) {
			perf_stalled(ctx, "serving");
		}
	}
}

/* True while this instance has messages not yet sent or not yet
 * acknowledged (or when it cannot tell). */
static bool
perf_sends_pending(void)
{
	static const int names[] = {
		RDS_INFO_SEND_MESSAGES, RDS_INFO_RETRANS_MESSAGES,
	};
	unsigned int i;
	socklen_t len;

	for (i = 0; i < RTE_DIM(names); i++) {
		len = 0;
		if (rte_rds_info(names[i], NULL, &len) < 0 &&
		    rte_errno != ENOSPC)
			return true;
		if (len > 0)
			return true;
	}
	return false;
}

/* ib server, after the run: check the client's counts, answer done with
 * ours, then keep driving the engine until that answer is acknowledged
 * (at most PERF_LINGER_MS), so that closing does not cancel it. */
static void
perf_ib_server_done(struct perf_ctx *ctx)
{
	const uint64_t hz = rte_get_tsc_hz();
	const uint64_t end = rte_rdtsc() + hz * PERF_LINGER_MS / 1000;
	uint64_t next_check = 0, now;
	struct perf_ctl_msg m;

	if (perf_is_rdma(ctx->o->mode))
		perf_rdma_server_final(ctx);
	if (ctx->peer_v[0] != ctx->srv_rx || ctx->peer_v[1] != ctx->srv_tx)
		perf_error(ctx, "counts disagree: client sent %" PRIu64 ", server received %" PRIu64 ", server replied %" PRIu64 ", client received %" PRIu64,
			   ctx->peer_v[0], ctx->srv_rx, ctx->srv_tx,
			   ctx->peer_v[1]);
	perf_ctl_put(&m, PERF_CTL_DONE_ACK, ctx->o, 0, ctx->srv_rx,
		     ctx->srv_tx, ctx->errors);
	perf_ctl_send(ctx, ctx->srv, &ctx->ctl_src, &m, "server, done answer",
		      PERF_DONE_WAIT_S);
	while ((now = rte_rdtsc()) < end) {
		perf_poll(ctx);
		if (now >= next_check) {
			if (!perf_sends_pending())
				break;
			next_check = now + hz / 100;
		}
	}
}

static void
perf_result(struct perf_ctx *ctx, struct perf_result *r)
{
	const uint64_t hz = rte_get_tsc_hz();
	struct perf_rtt *rtt = &ctx->rtt;

	memset(r, 0, sizeof(*r));
	r->msgs = ctx->msgs;
	r->secs = (double)(ctx->t_stop - ctx->t_start) / (double)hz;
	if (r->secs > 0) {
		r->msgs_per_s = (double)r->msgs / r->secs;
		r->mb_per_s = (double)r->msgs * ctx->o->size / r->secs / 1e6;
	}
	qsort(rtt->v, rtt->n, sizeof(*rtt->v), perf_u64_cmp);
	r->p50 = perf_cycles_ns(perf_pct(rtt->v, rtt->n, 5000), hz);
	r->p99 = perf_cycles_ns(perf_pct(rtt->v, rtt->n, 9900), hz);
	r->p999 = perf_cycles_ns(perf_pct(rtt->v, rtt->n, 9990), hz);
	r->max = perf_cycles_ns(rtt->max, hz);
}

static void
perf_print_result(const struct perf_ctx *ctx, const struct perf_result *r)
{
	const struct perf_opts *o = ctx->o;
	char a[32], b[32];

	printf("transport:    %s (client %s, server %s)\n",
	       perf_transport_name(o->transport),
	       perf_sin_str(&ctx->cli_name, a, sizeof(a)),
	       perf_sin_str(&ctx->srv_name, b, sizeof(b)));
	printf("engine:       %s\n", perf_engine_name(o->engine));
	static const char * const what[] = {
		[PERF_MODE_LAT] = "one request in flight, echoed",
		[PERF_MODE_BW] = "requests in flight up to depth, 0-byte replies",
		[PERF_MODE_RDMA_READ] = "the server's reply carries an RDMA READ of size bytes from the client's region",
		[PERF_MODE_RDMA_WRITE] = "the server's reply carries an RDMA WRITE of size bytes into the client's region",
	};
	const bool rdma = perf_is_rdma(o->mode);

	printf("mode:         %s (%s)\n", perf_mode_name(o->mode),
	       what[o->mode]);
	if (rdma)
		printf("size:         %u bytes (RDMA payload; %u-byte requests, %u-byte replies)\n",
		       o->size, PERF_RDMA_REQ_LEN, PERF_RDMA_REPLY_LEN);
	else
		printf("size:         %u bytes\n", o->size);
	printf("depth:        %u\n", ctx->window);
	if (rdma) {
		printf("rdma:         region %zu bytes (%u slots of %u), cookie 0x%016" PRIx64 "; NOTIFY_ME %s\n",
		       (size_t)ctx->slots * o->size, ctx->slots, o->size,
		       ctx->cookie,
		       o->mode == PERF_MODE_RDMA_READ ? "on every op" :
		       "on op 0 and every 1024th (RDS_RECVERR on)");
		if (o->mode == PERF_MODE_RDMA_WRITE)
			printf("checks:       client region after %" PRIu64 " ops (%" PRIu64 " whole payloads)\n",
			       ctx->rdma_checked, ctx->rdma_full_checked);
		else if (ctx->srv >= 0)
			printf("checks:       server buffer after %" PRIu64 " ops (%" PRIu64 " whole payloads)\n",
			       ctx->srv_checked, ctx->srv_full_checked);
		else
			printf("checks:       by the server (see its output)\n");
		if (ctx->srv >= 0)
			printf("notifications: %" PRIu64 " received, %" PRIu64 " failed\n",
			       ctx->notif_got, ctx->notif_failed);
	}
	printf("duration:     %.3f s (after a %u ms warm-up)\n", r->secs,
	       PERF_WARMUP_MS);
	printf("msgs:         %" PRIu64 " round trips\n", r->msgs);
	printf("msgs/s:       %.1f%s\n", r->msgs_per_s,
	       o->mode == PERF_MODE_LAT ? " (round trips/s)" : "");
	printf("MB/s:         %.3f (%s payload, one way, 10^6 B/s)\n",
	       r->mb_per_s, rdma ? "RDMA" : "request");
	printf("rtt p50:      %" PRIu64 " ns\n", r->p50);
	printf("rtt p99:      %" PRIu64 " ns\n", r->p99);
	printf("rtt p99.9:    %" PRIu64 " ns\n", r->p999);
	printf("rtt max:      %" PRIu64 " ns\n", r->max);
	printf("rtt samples:  %zu (one round trip in %u)\n", ctx->rtt.n,
	       ctx->rtt.stride);
	printf("push-back:    EAGAIN %" PRIu64 ", ENOBUFS %" PRIu64 "\n",
	       ctx->eagain, ctx->enobufs);
	printf("errors:       %" PRIu64 "\n", ctx->errors);
}

/* ib server: what it saw. */
static void
perf_print_server(const struct perf_ctx *ctx)
{
	const struct perf_opts *o = ctx->o;
	char a[32], b[32];

	printf("transport:    %s (server %s, client %s)\n",
	       perf_transport_name(o->transport),
	       perf_sin_str(&ctx->srv_name, a, sizeof(a)),
	       perf_sin_str(&ctx->cli_name, b, sizeof(b)));
	printf("role:         server (mode, size and depth from the client)\n");
	printf("engine:       %s\n", perf_engine_name(o->engine));
	printf("mode:         %s\n", perf_mode_name(o->mode));
	printf("size:         %u bytes\n", o->size);
	printf("depth:        %u\n", ctx->window);
	printf("requests:     %" PRIu64 " received\n", ctx->srv_rx);
	printf("replies:      %" PRIu64 " sent\n", ctx->srv_tx);
	if (perf_is_rdma(o->mode)) {
		printf("rdma:         client's cookie 0x%016" PRIx64 ", %u slots; NOTIFY_ME %s\n",
		       ctx->peer_cookie, ctx->slots,
		       o->mode == PERF_MODE_RDMA_READ ? "on every op" :
		       "on op 0 and every 1024th (RDS_RECVERR on)");
		printf("notifications: %" PRIu64 " received, %" PRIu64 " failed, %" PRIu64 " still due\n",
		       ctx->notif_got, ctx->notif_failed, ctx->notif_pending);
		if (o->mode == PERF_MODE_RDMA_READ)
			printf("checks:       server buffer after %" PRIu64 " ops (%" PRIu64 " whole payloads)\n",
			       ctx->srv_checked, ctx->srv_full_checked);
	}
	printf("push-back:    EAGAIN %" PRIu64 ", ENOBUFS %" PRIu64 "\n",
	       ctx->eagain, ctx->enobufs);
	printf("errors:       %" PRIu64 "\n", ctx->errors);
}

static void
perf_print_server_json(const struct perf_ctx *ctx)
{
	const struct perf_opts *o = ctx->o;

	printf("{\"transport\":\"%s\",\"role\":\"server\",\"mode\":\"%s\","
	       "\"size\":%u,\"requests\":%" PRIu64 ",\"replies\":%" PRIu64 ","
	       "\"errors\":%" PRIu64 ",\"engine\":\"%s\",\"depth\":%u",
	       perf_transport_name(o->transport), perf_mode_name(o->mode),
	       o->size, ctx->srv_rx, ctx->srv_tx, ctx->errors,
	       perf_engine_name(o->engine), ctx->window);
	if (perf_is_rdma(o->mode))
		printf(",\"notifications\":%" PRIu64 ",\"notify_failed\":%" PRIu64,
		       ctx->notif_got, ctx->notif_failed);
	printf("}\n");
}

static void
perf_print_json(const struct perf_ctx *ctx, const struct perf_result *r)
{
	const struct perf_opts *o = ctx->o;

	printf("{\"transport\":\"%s\",\"mode\":\"%s\",\"size\":%u,"
	       "\"msgs\":%" PRIu64 ",\"msgs_per_s\":%.1f,\"mb_per_s\":%.3f,"
	       "\"rtt_ns_p50\":%" PRIu64 ",\"rtt_ns_p99\":%" PRIu64 ","
	       "\"rtt_ns_p999\":%" PRIu64 ",\"rtt_ns_max\":%" PRIu64 ","
	       "\"engine\":\"%s\",\"depth\":%u,\"errors\":%" PRIu64 "}\n",
	       perf_transport_name(o->transport), perf_mode_name(o->mode),
	       o->size, r->msgs, r->msgs_per_s, r->mb_per_s, r->p50, r->p99,
	       r->p999, r->max, perf_engine_name(o->engine), ctx->window,
	       ctx->errors);
}

/*
 * The raw ring floor: one thread enqueues bursts of PERF_BURST pointers to
 * 32-byte messages into an SP/SC rte_ring and dequeues them again, stamping
 * a sequence number into each message and checking it on the way out. No
 * RDS code runs. Returns messages through the ring per second.
 */
static double
perf_raw_ring(double secs, uint64_t *errors)
{
	const uint64_t hz = rte_get_tsc_hz();
	void *in[PERF_BURST], *out[PERF_BURST];
	uint64_t seq = 0, total = 0, t0, t1, warm_end, end;
	bool measuring = false;
	struct rte_ring *r;
	uint8_t *msgs;
	unsigned int i, k, n;

	r = rte_ring_create("rds_perf_raw", PERF_RAW_RING_SIZE, SOCKET_ID_ANY,
			    RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (r == NULL)
		perf_fail("rte_ring_create(rds_perf_raw)");
	msgs = calloc(PERF_BURST, PERF_RAW_MSG_SIZE);
	if (msgs == NULL)
		perf_die("out of memory");
	for (i = 0; i < PERF_BURST; i++)
		in[i] = msgs + i * PERF_RAW_MSG_SIZE;

	t0 = rte_rdtsc();
	warm_end = t0 + hz * PERF_WARMUP_MS / 1000;
	end = warm_end + (uint64_t)(secs * (double)hz);
	t1 = t0;
	for (;;) {
		for (k = 0; k < PERF_RAW_CLOCK_EVERY; k++) {
			for (i = 0; i < PERF_BURST; i++) {
				uint64_t s = seq + i;

				memcpy(in[i], &s, sizeof(s));
			}
			n = rte_ring_enqueue_burst(r, in, PERF_BURST, NULL);
			if (rte_ring_dequeue_burst(r, out, PERF_BURST, NULL) != n ||
			    n != PERF_BURST) {
				(*errors)++;
				break;
			}
			for (i = 0; i < n; i++) {
				uint64_t s;

				memcpy(&s, out[i], sizeof(s));
				if (s != seq + i)
					(*errors)++;
			}
			seq += n;
			if (measuring)
				total += n;
		}
		t1 = rte_rdtsc();
		if (!measuring && t1 >= warm_end) {
			measuring = true;
			t0 = t1;
		} else if (measuring && t1 >= end) {
			break;
		}
	}
	rte_ring_free(r);
	free(msgs);
	return (double)total / ((double)(t1 - t0) / (double)hz);
}

int
main(int argc, char **argv)
{
	struct perf_opts opts = { 0 };
	struct perf_ctx ctx = { 0 };
	struct perf_result res;
	struct rte_rds_conf conf;
	uint64_t raw_errors = 0;
	double raw_rate = 0;
	int ret;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		perf_fail("rte_eal_init() (EAL arguments go before '--', rds-perf's after)");
	argc -= ret;
	argv += ret;

	if (parse_args(argc, argv, &opts) < 0) {
		usage(argv[0]);
		rte_eal_cleanup();
		return PERF_EXIT_USAGE;
	}

	ctx.o = &opts;
	ctx.cli = -1;
	ctx.srv = -1;
	ctx.ctl = -1;
	ctx.inline_engine = opts.engine == PERF_ENGINE_INLINE;
	ctx.window = perf_window(&opts);
	ctx.cli_tx = calloc(1, opts.size + PERF_RX_SLACK);
	ctx.cli_rx = calloc(1, opts.size + PERF_RX_SLACK);
	ctx.srv_buf = calloc(1, opts.size + PERF_RX_SLACK);
	ctx.sent_tsc = calloc(ctx.window, sizeof(*ctx.sent_tsc));
	if (ctx.cli_tx == NULL || ctx.cli_rx == NULL || ctx.srv_buf == NULL ||
	    ctx.sent_tsc == NULL || perf_rtt_init(&ctx.rtt) < 0)
		perf_die("out of memory");
	/* A recognisable pattern under the sequence numbers. */
	for (size_t i = 0; i < opts.size; i++)
		ctx.cli_tx[i] = (uint8_t)(i * 7 + 1);

	rte_rds_conf_init(&conf);
	perf_engine_conf(&opts, &conf);
	perf_setup_transport(&ctx, &conf);
	if (perf_is_rdma(opts.mode) && ctx.cli >= 0)
		perf_rdma_client_setup(&ctx);
	if (opts.role == PERF_ROLE_CLIENT) {
		perf_ib_client_hello(&ctx);
	} else if (opts.role == PERF_ROLE_SERVER) {
		perf_ib_server_hello(&ctx, &opts);
	} else if (perf_is_rdma(opts.mode)) {
		perf_rdma_server_setup(&ctx, ctx.slots);
		perf_rdma_loop_handshake(&ctx);
	}

	if (opts.verbose) {
		int v = 0;
		socklen_t len = sizeof(v);
		int s = ctx.cli >= 0 ? ctx.cli : ctx.srv;

		if (rte_rds_getsockopt(s, SOL_SOCKET, SO_SNDBUF, &v,
				       &len) < 0)
			perf_fail("rte_rds_getsockopt(SO_SNDBUF)");
		if (ctx.inline_engine)
			printf("rds-perf: engine inline (polled by lcore %u)\n",
			       rte_lcore_id());
		else
			printf("rds-perf: engine on lcore %u, application on lcore %u\n",
			       conf.engine[0].lcore_id, rte_lcore_id());
		printf("rds-perf: TSC %" PRIu64 " Hz, SO_SNDBUF/SO_RCVBUF set to %d (getsockopt: %d)\n",
		       rte_get_tsc_hz(), perf_sock_buf(&opts), v);
	}

	if (opts.role == PERF_ROLE_SERVER) {
		perf_ib_server_run(&ctx);
		perf_ib_server_done(&ctx);
		perf_print_server(&ctx);
	} else {
		perf_run(&ctx);
		if (opts.role == PERF_ROLE_CLIENT)
			perf_ib_client_done(&ctx);
		if (ctx.cli >= 0 && ctx.srv >= 0 &&
		    (ctx.srv_rx != ctx.tx_seq || ctx.srv_tx != ctx.rx_seq))
			perf_error(&ctx, "counts disagree: client sent %" PRIu64 ", server received %" PRIu64 ", server replied %" PRIu64 ", client received %" PRIu64,
				   ctx.tx_seq, ctx.srv_rx, ctx.srv_tx,
				   ctx.rx_seq);
		if (ctx.srv >= 0 && perf_is_rdma(opts.mode))
			perf_rdma_server_final(&ctx);
		if (ctx.msgs == 0)
			perf_error(&ctx, "no round trip completed in the measured window");
		perf_result(&ctx, &res);
		perf_print_result(&ctx, &res);
	}
	if (opts.verbose)
		perf_print_stats(&opts, stdout);

	if (ctx.cli >= 0 && rte_rds_close(ctx.cli) < 0)
		perf_fail("rte_rds_close(client)");
	if (ctx.ctl >= 0 && rte_rds_close(ctx.ctl) < 0)
		perf_fail("rte_rds_close(control)");
	if (ctx.srv >= 0 && rte_rds_close(ctx.srv) < 0)
		perf_fail("rte_rds_close(server)");
	if (rte_rds_fini() < 0)
		perf_fail("rte_rds_fini()");

	/* The floor runs with the library gone, so no engine competes. */
	if (opts.raw_ring) {
		raw_rate = perf_raw_ring(opts.secs, &raw_errors);
		printf("raw ring floor (not RDS: plain rte_ring SP/SC, burst %u, %u-byte messages, one thread): %.2f Mops/s (%.2f ns/msg)%s\n",
		       PERF_BURST, PERF_RAW_MSG_SIZE, raw_rate / 1e6,
		       raw_rate > 0 ? 1e9 / raw_rate : 0.0,
		       raw_errors != 0 ? " ERRORS" : "");
		ctx.errors += raw_errors;
	}

	free(ctx.rtt.v);
	free(ctx.region);	/* its registration ended with the socket */
	free(ctx.pattern);
	free(ctx.srv_local);
	free(ctx.srv_busy);
	free(ctx.srv_stamped);
	free(ctx.req_flags);
	free(ctx.sent_tsc);
	free(ctx.srv_buf);
	free(ctx.cli_rx);
	free(ctx.cli_tx);

	/* The EAL logs to stdout: clean up before the JSON line, so that it
	 * stays the last one. */
	if (rte_eal_cleanup() < 0)
		perf_fail("rte_eal_cleanup()");
	if (opts.json && opts.role == PERF_ROLE_SERVER)
		perf_print_server_json(&ctx);
	else if (opts.json)
		perf_print_json(&ctx, &res);
	fflush(stdout);
	return ctx.errors != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

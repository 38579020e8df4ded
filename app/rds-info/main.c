/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rds-info: what an engine process (rds-engined) knows, in the layout of
 * the kernel's rds-info (oracle/rds-tools): the RDS_INFO_* snapshots
 * (counters, sockets, connections, receive, send and retransmit queues,
 * IB connections), and librte_rds's own counters per engine and per
 * transport (-x). It attaches to the engine (rte_rds_attach, no EAL)
 * and takes each snapshot as the kernel's tool does: getsockopt(SOL_RDS,
 * RDS_INFO_*) on an RDS socket, probe then fill. With no option, the
 * kernel tool's eight sources in its order (I T c k n r s t; the TCP
 * and IB tables are empty here).
 *
 *   rds-info [-cknrstIT] [-e] [-x] [-v] [-E PATH]
 *
 * See doc/rds-info.8.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <rte_rds.h>

#ifndef RDS_INFO_CONNECTION_FLAG_ERROR
#define RDS_INFO_CONNECTION_FLAG_ERROR 0x08	/* UEK's; never set here */
#endif

#define RDS_INFO_TOOL_VERSION "0.1.0"

/* Exit codes. */
#define EXIT_OK 0
#define EXIT_FAIL 1		/* no engine, or a source could not be read */
#define EXIT_USAGE 2

static int verbose;
static const char *prog = "rds-info";

/* An IPv4 address (network order) as text; eight in turn, so that one
 * printf can take several. */
static const char *
ip4s(uint32_t a)
{
	static char bufs[8][INET_ADDRSTRLEN];
	static unsigned int next;
	char *b = bufs[next++ % 8];

	if (inet_ntop(AF_INET, &a, b, INET_ADDRSTRLEN) == NULL)
		snprintf(b, INET_ADDRSTRLEN, "?");
	return b;
}

static const char *
gids(const uint8_t *gid)
{
	static char bufs[2][INET6_ADDRSTRLEN];
	static unsigned int next;
	char *b = bufs[next++ % 2];

	if (inet_ntop(AF_INET6, gid, b, INET6_ADDRSTRLEN) == NULL)
		snprintf(b, INET6_ADDRSTRLEN, "?");
	return b;
}

/* ------------------------------------------------------------------ */
/* RDS_INFO_* sources */

struct source {
	int opt;		/* its option letter */
	int name;		/* RDS_INFO_* */
	const char *what;	/* for -h and errors */
	void (*print)(const struct source *s, const uint8_t *data,
		      size_t each, size_t len);
	const char *title;	/* message queues: which one */
	bool given;
	bool own;		/* librte_rds's, not in the default set */
};

/* Each record as the struct we know: a shorter one (an older layout) is
 * zero-filled, a longer one cut. */
#define for_each_record(rec, data, each, len, off) \
	for ((off) = 0; (each) != 0 && (off) + (each) <= (len) && \
	     (memset(&(rec), 0, sizeof(rec)), \
	      memcpy(&(rec), (data) + (off), \
		     (each) < sizeof(rec) ? (each) : sizeof(rec)), 1); \
	     (off) += (each))

static void
print_counters(const struct source *s, const uint8_t *data, size_t each,
	       size_t len)
{
	struct rds_info_counter c;
	char name[sizeof(c.name) + 1];
	size_t off;

	(void)s;
	printf("\nCounters:\n%25s %16s\n", "CounterName", "Value");
	for_each_record(c, data, each, len, off) {
		memcpy(name, c.name, sizeof(c.name));
		name[sizeof(c.name)] = '\0';
		printf("%25s %16" PRIu64 "\n", name, (uint64_t)c.value);
	}
}

static void
print_sockets(const struct source *s, const uint8_t *data, size_t each,
	      size_t len)
{
	struct rds_info_socket k;
	size_t off;

	(void)s;
	printf("\nRDS Sockets:\n%15s %5s %15s %5s %10s %10s %8s\n",
	       "BoundAddr", "BPort", "ConnAddr", "CPort", "SndBuf", "RcvBuf",
	       "Inode");
	for_each_record(k, data, each, len, off)
		printf("%15s %5u %15s %5u %10u %10u %8" PRIu64 "\n",
		       ip4s(k.bound_addr), ntohs(k.bound_port),
		       ip4s(k.connected_addr), ntohs(k.connected_port),
		       k.sndbuf, k.rcvbuf, (uint64_t)k.inum);
}

static char
flag(const struct rds_info_connection *c, uint8_t f, char letter)
{
	return (c->flags & f) ? letter : '-';
}

static void
print_conns(const struct source *s, const uint8_t *data, size_t each,
	    size_t len)
{
	struct rds_info_connection c;
	char trans[sizeof(c.transport) + 1];
	size_t off;

	(void)s;
	printf("\nRDS Connections:\n%15s %15s %4s %16s %16s %4s%s\n",
	       "LocalAddr", "RemoteAddr", "Tos", "NextTX", "NextRX", "Flgs",
	       verbose ? "  Transport" : "");
	for_each_record(c, data, each, len, off) {
		memcpy(trans, c.transport, sizeof(c.transport));
		trans[sizeof(c.transport)] = '\0';
		printf("%15s %15s %4u %16" PRIu64 " %16" PRIu64 " %c%c%c%c",
		       ip4s(c.laddr), ip4s(c.faddr), c.tos,
		       (uint64_t)c.next_tx_seq, (uint64_t)c.next_rx_seq,
		       flag(&c, RDS_INFO_CONNECTION_FLAG_SENDING, 's'),
		       flag(&c, RDS_INFO_CONNECTION_FLAG_CONNECTING, 'c'),
		       flag(&c, RDS_INFO_CONNECTION_FLAG_CONNECTED, 'C'),
		       flag(&c, RDS_INFO_CONNECTION_FLAG_ERROR, 'E'));
		if (verbose)
			printf("  %s", trans);
		printf("\n");
	}
}

static void
print_msgs(const struct source *s, const uint8_t *data, size_t each,
	   size_t len)
{
	struct rds_info_message m;
	size_t off;

	printf("\n%s Message Queue:\n%15s %5s %15s %5s %4s %16s %10s\n",
	       s->title, "LocalAddr", "LPort", "RemoteAddr", "RPort", "Tos",
	       "Seq", "Bytes");
	for_each_record(m, data, each, len, off)
		printf("%15s %5u %15s %5u %4u %16" PRIu64 " %10u\n",
		       ip4s(m.laddr), ntohs(m.lport), ip4s(m.faddr),
		       ntohs(m.fport), m.tos, (uint64_t)m.seq, m.len);
}

static void
print_tcp(const struct source *s, const uint8_t *data, size_t each,
	  size_t len)
{
	struct rds_info_tcp_socket t;
	size_t off;

	(void)s;
	printf("\nTCP Connections:\n%15s %5s %15s %5s %10s %10s %10s %10s "
	       "%10s\n", "LocalAddr", "LPort", "RemoteAddr", "RPort",
	       "HdrRemain", "DataRemain", "SentNxt", "ExpectUna", "SeenUna");
	for_each_record(t, data, each, len, off)
		printf("%15s %5u %15s %5u %10" PRIu64 " %10" PRIu64
		       " %10u %10u %10u\n", ip4s(t.local_addr),
		       ntohs(t.local_port), ip4s(t.peer_addr),
		       ntohs(t.peer_port), (uint64_t)t.hdr_rem,
		       (uint64_t)t.data_rem, t.last_sent_nxt,
		       t.last_expected_una, t.last_seen_una);
}

static void
print_ib(const struct source *s, const uint8_t *data, size_t each,
	 size_t len)
{
	struct rds_info_rdma_connection ic;
	size_t off;

	(void)s;
	printf("\nRDS IB Connections:\n%15s %15s %4s %3s %32s %32s\n",
	       "LocalAddr", "RemoteAddr", "Tos", "SL", "LocalDev",
	       "RemoteDev");
	for_each_record(ic, data, each, len, off) {
		printf("%15s %15s %4u %3u %32s %32s", ip4s(ic.src_addr),
		       ip4s(ic.dst_addr), ic.tos, ic.sl, gids(ic.src_gid),
		       gids(ic.dst_gid));
		if (verbose)
			printf("  send_wr=%u, recv_wr=%u, send_sge=%u, "
			       "rdma_mr_max=%u, rdma_mr_size=%u, "
			       "cache_allocs=%u", ic.max_send_wr,
			       ic.max_recv_wr, ic.max_send_sge,
			       ic.rdma_mr_max, ic.rdma_mr_size,
			       ic.cache_allocs);
		printf("\n");
	}
}

static const char *
macs(const uint8_t *m)
{
	static char b[18];

	snprintf(b, sizeof(b), "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1],
		 m[2], m[3], m[4], m[5]);
	return b;
}

/* An address of a record (IPv4 v4-mapped, or IPv6) as text; eight in
 * turn, as ip4s. */
static const char *
ip6s(const struct in6_addr *a)
{
	static char bufs[8][INET6_ADDRSTRLEN];
	static unsigned int next;
	char *b = bufs[next++ % 8];

	if (IN6_IS_ADDR_V4MAPPED(a))
		return ip4s(a->s6_addr32[3]);
	if (inet_ntop(AF_INET6, a, b, INET6_ADDRSTRLEN) == NULL)
		snprintf(b, INET6_ADDRSTRLEN, "?");
	return b;
}

/* librte_rds's own: the eth transport's frame layer per connection. */
static void
print_eth(const struct source *s, const uint8_t *data, size_t each,
	  size_t len)
{
	struct rte_rds_info_eth_connection ec;
	size_t off;

	(void)s;
	printf("\nRDS eth Connections:\n%15s %15s %17s %8s %6s %8s %6s "
	       "%10s %10s %10s %5s\n", "LocalAddr", "RemoteAddr", "PeerMAC",
	       "InFlight", "CWnd", "PeerWnd", "OutOfO", "SRTT(ns)",
	       "RTTVar(ns)", "RTO(ns)", "TOuts");
	for_each_record(ec, data, each, len, off) {
		printf("%15s %15s %17s %8u %6u %8u %6u %10" PRIu64 " %10" PRIu64
		       " %10" PRIu64 " %5u%s", ip6s(&ec.laddr),
		       ip6s(&ec.faddr), ec.resolved ? macs(ec.peer_mac) :
		       "unresolved", ec.in_flight, ec.cwnd, ec.peer_wnd,
		       ec.rx_out_of_order, ec.srtt_ns, ec.rttvar_ns,
		       ec.rto_ns, ec.timeouts,
		       ec.unresponsive ? " unresponsive" : "");
		if (verbose)
			printf("  epoch=%u, peer_epoch=%u, snd_nxt=%u, "
			       "snd_una=%u, rcv_nxt=%u, wnd=%u, "
			       "min_rtt_ns=%" PRIu64 ", ssthresh=%u, "
			       "cwnd_cuts=%u, cwnd_collapses=%u, "
			       "cwnd_delay_cuts=%u, delay_target_us=%u, "
			       "delay_base_ns=%" PRIu64, ec.epoch,
			       ec.peer_epoch, ec.snd_nxt, ec.snd_una,
			       ec.rcv_nxt, ec.wnd, ec.min_rtt_ns, ec.ssthresh,
			       ec.cwnd_cuts, ec.cwnd_collapses,
			       ec.cwnd_delay_cuts, ec.delay_target_us,
			       ec.delay_base_ns);
		printf("\n");
	}
}

/* In the kernel tool's order (its table is indexed by the letter);
 * librte_rds's own after them, shown only when asked for. */
static struct source sources[] = {
	{ 'I', RDS_INFO_IB_CONNECTIONS, "IB transport connections",
	  print_ib, NULL, false },
	{ 'T', RDS_INFO_TCP_SOCKETS, "TCP transport sockets",
	  print_tcp, NULL, false },
	{ 'c', RDS_INFO_COUNTERS, "statistic counters",
	  print_counters, NULL, false },
	{ 'k', RDS_INFO_SOCKETS, "sockets", print_sockets, NULL, false },
	{ 'n', RDS_INFO_CONNECTIONS, "connections", print_conns, NULL, false },
	{ 'r', RDS_INFO_RECV_MESSAGES, "recv queue messages", print_msgs,
	  "Receive", false },
	{ 's', RDS_INFO_SEND_MESSAGES, "send queue messages", print_msgs,
	  "Send", false },
	{ 't', RDS_INFO_RETRANS_MESSAGES, "retransmit queue messages",
	  print_msgs, "Retransmit", false },
	{ 'e', RTE_RDS_INFO_ETH_CONNECTIONS, "eth transport connections",
	  print_eth, NULL, false, true },
};
#define NB_SOURCES (sizeof(sources) / sizeof(sources[0]))

/* Probe, then fill, as the kernel's tool: getsockopt(SOL_RDS, name) on
 * an RDS socket, again while the list grows in between. */
static int
take(int fd, const struct source *s)
{
	uint8_t *data = NULL, *p;
	socklen_t len = 0;
	int each, tries;

	for (tries = 0; tries < 100; tries++) {
		each = rte_rds_getsockopt(fd, SOL_RDS, s->name, data, &len);
		if (each >= 0)
			break;
		if (errno != ENOSPC) {
			fprintf(stderr, "%s: cannot read the %s (RDS_INFO %d):"
				" %s\n", prog, s->what, s->name,
				strerror(errno));
			free(data);
			return -1;
		}
		p = realloc(data, len != 0 ? len : 1);
		if (p == NULL) {
			fprintf(stderr, "%s: no memory for %u bytes of %s\n",
				prog, (unsigned int)len, s->what);
			free(data);
			return -1;
		}
		data = p;
	}
	if (each < 0) {
		fprintf(stderr, "%s: the %s kept growing\n", prog, s->what);
		free(data);
		return -1;
	}
	s->print(s, data != NULL ? data : (const uint8_t *)"", (size_t)each,
		 len);
	free(data);
	return 0;
}

/* ------------------------------------------------------------------ */
/* librte_rds counters (-x) */

static int
print_engine_stats(void)
{
	struct rte_rds_stats st[RTE_RDS_MAX_ENGINES], total;
	const uint64_t *v, *t = (const uint64_t *)&total;
	unsigned int n, e, i;
	char col[32];

	for (n = 0; n < RTE_RDS_MAX_ENGINES; n++)
		if (rte_rds_stats_get((int)n, &st[n]) != 0)
			break;
	if (n == 0 || rte_rds_stats_get(-1, &total) != 0) {
		fprintf(stderr, "%s: cannot read the engine counters: %s\n",
			prog, strerror(errno));
		return -1;
	}
	printf("\nlibrte_rds Engine Counters:\n%25s", "CounterName");
	for (e = 0; e < n; e++) {
		snprintf(col, sizeof(col), "Engine%u", e);
		printf(" %16s", col);
	}
	printf(" %16s\n", "Total");
	for (i = 0; i < RTE_RDS_STATS_NUM; i++) {
		printf("%25s", rte_rds_stats_name(i));
		for (e = 0; e < n; e++) {
			v = (const uint64_t *)&st[e];
			printf(" %16" PRIu64, v[i]);
		}
		printf(" %16" PRIu64 "\n", t[i]);
	}
	return 0;
}

/* The transports librte_rds has; one the engine was built without is
 * left out (ENODEV). */
static const char *const transports[] = { "loop", "eth", "ib", "tcp" };

static int
print_xstats(const char *tr)
{
	struct rte_rds_xstat *xs;
	int n, m, i, w = 25;

	n = rte_rds_xstats_get(tr, NULL, 0);
	if (n < 0 && errno == ENODEV)
		return 0;
	if (n < 0) {
		fprintf(stderr, "%s: cannot read the %s transport's counters:"
			" %s\n", prog, tr, strerror(errno));
		return -1;
	}
	xs = calloc(n != 0 ? (size_t)n : 1, sizeof(*xs));
	if (xs == NULL) {
		fprintf(stderr, "%s: no memory\n", prog);
		return -1;
	}
	m = n != 0 ? rte_rds_xstats_get(tr, xs, (unsigned int)n) : 0;
	if (m < 0) {
		fprintf(stderr, "%s: cannot read the %s transport's counters:"
			" %s\n", prog, tr, strerror(errno));
		free(xs);
		return -1;
	}
	if (m > n)
		m = n;
	for (i = 0; i < m; i++)
		if ((int)strlen(xs[i].name) > w)
			w = (int)strlen(xs[i].name);
	printf("\nTransport Counters (%s):\n%*s %16s\n", tr, w, "CounterName",
	       "Value");
	for (i = 0; i < m; i++)
		printf("%*s %16" PRIu64 "\n", w, xs[i].name, xs[i].value);
	free(xs);
	return 0;
}

/* ------------------------------------------------------------------ */

static void
usage(FILE *f)
{
	unsigned int i;

	fprintf(f, "rds-info version %s (librte_rds)\n"
		"Usage: %s [-cknrstIT] [-e] [-x] [-v] [-E PATH]\n"
		"The following options limit output to the given sources:\n",
		RDS_INFO_TOOL_VERSION, prog);
	for (i = 0; i < NB_SOURCES; i++)
		fprintf(f, "    -%c %s\n", sources[i].opt, sources[i].what);
	fprintf(f, "\nIf no options are given then all sources but -e are "
		"used.\n"
		"\n    -x      librte_rds counters, per engine and per "
		"transport (never by default)\n"
		"    -C      the same as -c\n"
		"    -v      verbose (IB connection settings, transport of a "
		"connection)\n"
		"    -E PATH the engine's socket (default $RTE_RDS_ENGINE, "
		"else %s)\n"
		"    -h      this help\n", RTE_RDS_ENGINE_PATH);
}

static int
attach(const char *path)
{
	const char *shown = path;

	if (shown == NULL) {
		shown = getenv("RTE_RDS_ENGINE");
		if (shown == NULL || *shown == '\0')
			shown = RTE_RDS_ENGINE_PATH;
	}
	if (rte_rds_attach(path) == 0)
		return 0;
	switch (errno) {
	case ENOENT:
	case ECONNREFUSED:
		fprintf(stderr, "%s: no engine at %s (%s): is rds-engined "
			"running? (-E PATH or RTE_RDS_ENGINE name another "
			"socket)\n", prog, shown, strerror(errno));
		break;
	case EACCES:
		fprintf(stderr, "%s: no permission to reach the engine at %s "
			"(%s)\n", prog, shown, strerror(errno));
		break;
	case EPROTO:
		fprintf(stderr, "%s: %s is not an engine of this version "
			"(%s)\n", prog, shown, strerror(errno));
		break;
	default:
		fprintf(stderr, "%s: cannot attach to the engine at %s: %s\n",
			prog, shown, strerror(errno));
		break;
	}
	return -1;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = NULL;
	bool any = false, xstats = false, all;
	unsigned int i;
	int opt, fd, rc = EXIT_OK;

	while ((opt = getopt_long(argc, argv, "cknrstITCexvE:h", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'v':
			verbose++;
			continue;
		case 'E':
			path = optarg;
			continue;
		case 'x':
			xstats = true;
			any = true;
			continue;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'C':
			opt = 'c';
			break;
		default:
			break;
		}
		for (i = 0; i < NB_SOURCES; i++)
			if (sources[i].opt == opt)
				break;
		if (i == NB_SOURCES) {	/* '?' and the like */
			usage(stderr);
			return EXIT_USAGE;
		}
		sources[i].given = true;
		any = true;
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", prog,
			argv[optind]);
		usage(stderr);
		return EXIT_USAGE;
	}
	if (attach(path) != 0)
		return EXIT_FAIL;
	/* The snapshots are the engine's (every client's sockets, every
	 * connection); the socket only carries the calls, and is listed
	 * among the sockets itself, unbound, as the kernel's tool's is. */
	fd = rte_rds_socket();
	if (fd < 0) {
		fprintf(stderr, "%s: Unable to create socket: %s\n", prog,
			strerror(errno));
		rte_rds_detach();
		return EXIT_FAIL;
	}
	all = !any;
	for (i = 0; i < NB_SOURCES; i++) {
		if (all ? sources[i].own : !sources[i].given)
			continue;
		if (take(fd, &sources[i]) != 0)
			rc = EXIT_FAIL;
	}
	if (xstats) {
		if (print_engine_stats() != 0)
			rc = EXIT_FAIL;
		for (i = 0; i < sizeof(transports) / sizeof(transports[0]); i++)
			if (print_xstats(transports[i]) != 0)
				rc = EXIT_FAIL;
	}
	rte_rds_close(fd);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "%s: cannot write: %s\n", prog,
			strerror(errno));
		rc = EXIT_FAIL;
	}
	rte_rds_detach();
	return rc;
}

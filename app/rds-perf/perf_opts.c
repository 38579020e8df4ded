/* SPDX-License-Identifier: BSD-3-Clause */

/* rds-perf options: names of the enumerations, the usage text and the
 * command line. */

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>

#include "perf.h"

const char *
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

const char *
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
	case PERF_MODE_STREAM:
		return "stream";
	}
	return "?";
}

/* Requests in flight: 1 in lat, --depth otherwise (stream: only the
 * socket buffers' size, see perf_sock_buf()). */
uint32_t
perf_window(const struct perf_opts *o)
{
	return o->mode == PERF_MODE_LAT ? 1 : o->depth;
}

const char *
perf_engine_name(enum perf_engine e)
{
	return e == PERF_ENGINE_INLINE ? "inline" : "lcore";
}

void
perf_usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [EAL args] -- [options]\n"
		"  --transport loop|ib|eth\n"
		"                      loop: both sides in this process (default);\n"
		"                      ib, eth: one side per process, see --role\n"
		"  --mode lat|bw|stream|rdma-read|rdma-write\n"
		"                      lat: one request at a time, echoed (default);\n"
		"                      bw: --depth requests in flight, 0-byte replies;\n"
		"                      stream: one-way messages, no replies, counted\n"
		"                      by the receiver (the sender's count too);\n"
		"                      rdma-read/rdma-write: --depth small requests in\n"
		"                      flight, each answered by a reply that carries an\n"
		"                      RDMA READ/WRITE of --size bytes of the client's\n"
		"                      registered region (rds-rdma(7))\n"
		"  --size N[,N...]|A:B:xF|A:B:+S\n"
		"                      request payload in bytes, 0..%u (default 64);\n"
		"                      rdma-*: the RDMA payload, 1..%u; k/K/M: x1024,\n"
		"                      x1048576; a list (64,4k,64k) or a sweep from A\n"
		"                      to B times F or plus S (1:1M:x4) runs once per\n"
		"                      size (at most %u sizes), then prints a table\n"
		"  --secs S            measured duration in seconds (default 2), after\n"
		"                      a %u ms warm-up; a server (ib, eth) waits this\n"
		"                      long for the client when --wait is not given\n"
		"  --depth N           requests in flight in bw and rdma-* modes, 1..%u\n"
		"                      (default %u in bw, 1 in rdma-*); stream: socket\n"
		"                      buffers sized for N messages (default %u)\n"
		"  --engine inline|lcore\n"
		"                      inline: this thread polls the engine (default);\n"
		"                      lcore: the engine busy-polls the first worker\n"
		"                      lcore (pass -l 0-1 or more to the EAL)\n"
		"  --raw-ring          also measure a plain SP/SC rte_ring, burst %u,\n"
		"                      one thread (the raw ring floor)\n"
		"  --raw-ring-pp       also measure a raw rte_ring ping-pong between\n"
		"                      this lcore and the first worker lcore (pass\n"
		"                      -l 0-1): one SP/SC ring each way, one %u-byte\n"
		"                      object; RTT p50/p99 and the floor of --mode lat\n"
		"                      --engine lcore (RTT x %u/%u core crossings)\n"
		"  --attach PATH       run as a client of the engine process listening\n"
		"                      on PATH (rds-engined; \"\": $RTE_RDS_ENGINE):\n"
		"                      no EAL (its arguments are ignored), both sides\n"
		"                      here on --local/--peer, addresses the engine\n"
		"                      serves (default 10.9.0.1, 10.9.0.2); lat, bw,\n"
		"                      stream, rdma-read, rdma-write\n"
		"  --tasks N           loop: N socket pairs, each on its own thread\n"
		"                      (1..%u, default 1); msgs/s summed, RTTs merged\n"
		"  --progress          a progress line once a second on stderr\n"
		"  --rds-stress-columns\n"
		"                      also print each run as rds-stress's summary\n"
		"                      columns (tsks tx/s rx/s tx+rx K/s mbi K/s mbo\n"
		"                      K/s tx us/c rtt us cpu %%)\n"
		"  --histogram FILE    write the RTT CDF (ns, fraction), one gnuplot\n"
		"                      data block per size\n"
		"  --plot FILE.png     draw the RTT CDF with gnuplot (gnuplot-nox)\n"
		"  --json              end the output with one JSON object line (one\n"
		"                      per size)\n"
		"  --verbose           print the engine counters at the end\n"
		"  --help              this text\n"
		"ib and eth transports (two processes):\n"
		"  --role server|client\n"
		"                      server: answer the client's requests (mode,\n"
		"                      size and depth come from the client), exit after\n"
		"                      its last run (one per size); client: send,\n"
		"                      measure, print\n"
		"  --local IP          this process's address, declared as \"ib\" (it\n"
		"                      must belong to an RDMA device) or \"eth\"\n"
		"  --peer IP           client: the server's address (required);\n"
		"                      server: requests must come from it (optional)\n"
		"  --port N            the server's RDS port (default %u)\n"
		"  --wait S            how long the server waits for the client, and\n"
		"                      the client for the server's first answer\n"
		"                      (default %.0f; server: --secs if given)\n"
		"ib transport only:\n"
		"  --ib-opts K=V[,K=V...]\n"
		"                      options of the ib address, appended to\n"
		"                      \"IP=ib\": cm_port=, send_wr=, recv_wr=,\n"
		"                      flow_control=0|1, stall_ms= (rte_rds_ib.h)\n"
		"eth transport only (the ethdev comes from the EAL, e.g.\n"
		"--vdev=net_memif0,role=server,socket=/tmp/x.sock; port= may be left\n"
		"out when the process has one ethdev):\n"
		"  --eth-opts K=V[,K=V...]\n"
		"                      options of the eth address, appended to\n"
		"                      \"IP=eth\": port=NAME|ID, mac=, neigh=IP/MAC,\n"
		"                      mtu=, window=, rto_min_us=, ... (rte_rds_eth.h)\n"
		"  --faults drop=PPM,dup=PPM,reorder=PPM,corrupt=PPM[,delay=PPM,\n"
		"           delay_us=N,depth=N,seed=N]\n"
		"                      faults on every frame this process receives\n"
		"                      (rte_rds_eth_set_faults; parts per million:\n"
		"                      drop=10000 is 1 %% loss)\n"
		"  --raw               no RDS: plain Ethernet/IPv4/UDP frames on the\n"
		"                      same port, same modes, sizes and output (the\n"
		"                      floor); both processes need it; messages over\n"
		"                      the MTU go in MTU-sized frames, and a lost\n"
		"                      frame is not sent again (see doc/rds-perf.md)\n",
		prog, RTE_RDS_MAX_MSG_SIZE, RTE_RDS_MAX_MSG_SIZE,
		PERF_SIZES_MAX, PERF_WARMUP_MS, PERF_DEPTH_MAX,
		PERF_DEPTH_DEFAULT, PERF_DEPTH_DEFAULT, PERF_BURST,
		PERF_PP_OBJ_SIZE, PERF_PP_CROSSINGS_LAT_LCORE, PERF_PP_CROSSINGS,
		PERF_TASKS_MAX,
		PERF_IB_PORT_DEFAULT,
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

/* --faults: "drop=PPM,dup=PPM,reorder=PPM,corrupt=PPM,delay=PPM,
 * delay_us=N,depth=N,seed=N", any subset, any order. 0 or -1 (printed). */
static int
parse_faults(const char *arg, struct rte_rds_eth_faults *f)
{
	static const struct {
		const char *key;
		size_t off;
		uint32_t max;
	} keys[] = {
		{ "drop", offsetof(struct rte_rds_eth_faults, drop_ppm), 1000000 },
		{ "dup", offsetof(struct rte_rds_eth_faults, dup_ppm), 1000000 },
		{ "reorder", offsetof(struct rte_rds_eth_faults, reorder_ppm), 1000000 },
		{ "corrupt", offsetof(struct rte_rds_eth_faults, corrupt_ppm), 1000000 },
		{ "delay", offsetof(struct rte_rds_eth_faults, delay_ppm), 1000000 },
		{ "delay_us", offsetof(struct rte_rds_eth_faults, delay_us), 10000000 },
		{ "depth", offsetof(struct rte_rds_eth_faults, reorder_depth), 16 },
	};
	char buf[256], *tok, *save = NULL, *eq;
	unsigned long long seed;
	unsigned int i;
	uint32_t v;
	char *end;

	memset(f, 0, sizeof(*f));
	if (snprintf(buf, sizeof(buf), "%s", arg) >= (int)sizeof(buf)) {
		fprintf(stderr, "rds-perf: --faults: too long\n");
		return -1;
	}
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		eq = strchr(tok, '=');
		if (eq == NULL) {
			fprintf(stderr, "rds-perf: --faults: '%s' is not key=value\n",
				tok);
			return -1;
		}
		*eq++ = '\0';
		if (strcmp(tok, "seed") == 0) {
			errno = 0;
			seed = strtoull(eq, &end, 0);
			if (errno != 0 || end == eq || *end != '\0') {
				fprintf(stderr, "rds-perf: --faults: bad seed '%s'\n",
					eq);
				return -1;
			}
			f->seed = seed;
			continue;
		}
		for (i = 0; i < RTE_DIM(keys); i++)
			if (strcmp(tok, keys[i].key) == 0)
				break;
		if (i == RTE_DIM(keys)) {
			fprintf(stderr, "rds-perf: --faults: unknown key '%s' (drop, dup, reorder, corrupt, delay: parts per million; delay_us, depth, seed)\n",
				tok);
			return -1;
		}
		if (parse_u32(eq, 0, keys[i].max, &v) < 0) {
			fprintf(stderr, "rds-perf: --faults: %s must be 0..%u\n",
				tok, keys[i].max);
			return -1;
		}
		memcpy((uint8_t *)f + keys[i].off, &v, sizeof(v));
	}
	return 0;
}

/* Parse the application's options (after the EAL's). 0 or -1 (printed). */
int
perf_parse_args(int argc, char **argv, struct perf_opts *o)
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
		OPT_RAW_RING_PP,
		OPT_ROLE,
		OPT_LOCAL,
		OPT_PEER,
		OPT_PORT,
		OPT_WAIT,
		OPT_ETH_OPTS,
		OPT_IB_OPTS,
		OPT_FAULTS,
		OPT_RAW,
		OPT_TASKS,
		OPT_PROGRESS,
		OPT_STRESS_COLUMNS,
		OPT_HISTOGRAM,
		OPT_PLOT,
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
		{ "raw-ring-pp", no_argument, NULL, OPT_RAW_RING_PP },
		{ "role", required_argument, NULL, OPT_ROLE },
		{ "local", required_argument, NULL, OPT_LOCAL },
		{ "peer", required_argument, NULL, OPT_PEER },
		{ "port", required_argument, NULL, OPT_PORT },
		{ "wait", required_argument, NULL, OPT_WAIT },
		{ "eth-opts", required_argument, NULL, OPT_ETH_OPTS },
		{ "ib-opts", required_argument, NULL, OPT_IB_OPTS },
		{ "faults", required_argument, NULL, OPT_FAULTS },
		{ "raw", no_argument, NULL, OPT_RAW },
		{ "tasks", required_argument, NULL, OPT_TASKS },
		{ "progress", no_argument, NULL, OPT_PROGRESS },
		{ "rds-stress-columns", no_argument, NULL, OPT_STRESS_COLUMNS },
		{ "histogram", required_argument, NULL, OPT_HISTOGRAM },
		{ "plot", required_argument, NULL, OPT_PLOT },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	const char *prog = argv[0];
	bool port_set = false, wait_set = false, role_set = false;
	bool depth_set = false, secs_set = false, engine_set = false;
	struct in_addr a_local, a_peer;
	uint32_t port, v;
	unsigned int i;
	char *end;
	int opt;

	o->transport = PERF_TRANSPORT_LOOP;
	o->mode = PERF_MODE_LAT;
	o->engine = PERF_ENGINE_INLINE;
	o->size = 64;
	o->sizes[0] = 64;
	o->nb_sizes = 1;
	o->tasks = 1;
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
			} else if (strcmp(optarg, "stream") == 0) {
				o->mode = PERF_MODE_STREAM;
			} else {
				fprintf(stderr, "rds-perf: --mode must be lat, bw, stream, rdma-read or rdma-write\n");
				return -1;
			}
			break;
		case OPT_SIZE:
			if (perf_parse_sizes(optarg, o->sizes,
					     &o->nb_sizes) < 0)
				return -1;
			o->size = o->sizes[0];
			break;
		case OPT_TASKS:
			if (parse_u32(optarg, 1, PERF_TASKS_MAX, &v) < 0) {
				fprintf(stderr, "rds-perf: --tasks must be 1..%u\n",
					PERF_TASKS_MAX);
				return -1;
			}
			o->tasks = v;
			break;
		case OPT_PROGRESS:
			o->progress = true;
			break;
		case OPT_STRESS_COLUMNS:
			o->stress_columns = true;
			break;
		case OPT_HISTOGRAM:
			o->histogram = optarg;
			break;
		case OPT_PLOT:
			o->plot = optarg;
			break;
		case OPT_SECS:
			errno = 0;
			o->secs = strtod(optarg, &end);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    !(o->secs >= 0.001 && o->secs <= 86400.0)) {
				fprintf(stderr, "rds-perf: --secs must be 0.001..86400\n");
				return -1;
			}
			secs_set = true;
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
			engine_set = true;
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
		case OPT_RAW_RING_PP:
			o->raw_ring_pp = true;
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
		case OPT_ETH_OPTS:
			if (*optarg == '\0' || *optarg == ',' ||
			    strlen(optarg) >= RTE_RDS_ARGSIZE) {
				fprintf(stderr, "rds-perf: --eth-opts must be K=V[,K=V...], under %u characters\n",
					RTE_RDS_ARGSIZE);
				return -1;
			}
			o->eth_opts = optarg;
			break;
		case OPT_IB_OPTS:
			if (*optarg == '\0' || *optarg == ',' ||
			    strlen(optarg) >= RTE_RDS_ARGSIZE) {
				fprintf(stderr, "rds-perf: --ib-opts must be K=V[,K=V...], under %u characters\n",
					RTE_RDS_ARGSIZE);
				return -1;
			}
			o->ib_opts = optarg;
			break;
		case OPT_FAULTS:
			if (parse_faults(optarg, &o->faults) < 0)
				return -1;
			o->faults_set = true;
			break;
		case OPT_RAW:
			o->raw = true;
			break;
		case 'h':
		case OPT_HELP:
			perf_usage(prog);
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
	for (i = 0; i < o->nb_sizes && o->sizes[i] != 0; i++)
		;
	if (perf_is_rdma(o->mode) && i < o->nb_sizes) {
		fprintf(stderr, "rds-perf: --mode %s needs --size 1..%u (an RDMA moves at least one byte)\n",
			perf_mode_name(o->mode), RTE_RDS_MAX_MSG_SIZE);
		return -1;
	}

	if (o->transport != PERF_TRANSPORT_IB && o->ib_opts != NULL) {
		fprintf(stderr, "rds-perf: --ib-opts needs --transport ib\n");
		return -1;
	}
	if (o->transport != PERF_TRANSPORT_ETH &&
	    (o->eth_opts != NULL || o->faults_set || o->raw)) {
		fprintf(stderr, "rds-perf: --eth-opts, --faults and --raw need --transport eth\n");
		return -1;
	}
	if (o->tasks > 1 && o->transport != PERF_TRANSPORT_LOOP) {
		fprintf(stderr, "rds-perf: --tasks needs --transport loop\n");
		return -1;
	}
	if (o->stress_columns && (o->raw || o->role == PERF_ROLE_SERVER)) {
		fprintf(stderr, "rds-perf: --rds-stress-columns: the client's figures over RDS (not --raw, not a server)\n");
		return -1;
	}
	if ((o->histogram != NULL || o->plot != NULL) &&
	    (perf_is_stream(o->mode) || o->role == PERF_ROLE_SERVER)) {
		fprintf(stderr, "rds-perf: --histogram and --plot need round trips: not in stream mode, not on a server\n");
		return -1;
	}
	switch (o->transport) {
	case PERF_TRANSPORT_LOOP:
		if (role_set || o->local != NULL || o->peer != NULL ||
		    port_set || wait_set) {
			fprintf(stderr, "rds-perf: --role, --local, --peer, --port and --wait do not apply to the loop transport (both sides run in this process)\n");
			return -1;
		}
		return 0;
	case PERF_TRANSPORT_IB:
#ifndef RDS_PERF_HAVE_IB
		fprintf(stderr, "rds-perf: built without the ib transport (libibverbs or librdmacm missing)\n");
		return -1;
#endif
		break;
	case PERF_TRANSPORT_ETH:
		if (o->raw && (o->faults_set || perf_is_rdma(o->mode) ||
			       engine_set || o->eth_opts != NULL)) {
			fprintf(stderr, "rds-perf: --raw sends plain frames without RDS: no --faults, --engine, --eth-opts or rdma-* modes\n");
			return -1;
		}
		break;
	}

	/* ib, eth: two processes. */
	if (!role_set) {
		fprintf(stderr, "rds-perf: --transport %s needs --role server or --role client\n",
			perf_transport_name(o->transport));
		return -1;
	}
	if (o->local == NULL || inet_pton(AF_INET, o->local, &a_local) != 1) {
		fprintf(stderr, "rds-perf: --transport %s needs --local, this process's IPv4 address\n",
			perf_transport_name(o->transport));
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
	/* A server given --secs and no --wait waits that long for its
	 * client (its run's length comes from the client's hello). */
	if (o->role == PERF_ROLE_SERVER && secs_set && !wait_set)
		o->wait = o->secs;
	return 0;
}

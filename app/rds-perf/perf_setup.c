/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rds-perf set-up: the engine, the transport (library init and start, the
 * addresses and the sockets this process plays: one function per
 * transport), and the run's state (struct perf_ctx), from its allocation
 * to the sockets' close and the library's end.
 */

#include <limits.h>
#include <stdlib.h>

#include <rte_eal.h>
#include <rte_lcore.h>

#include "perf.h"

/* Socket buffer size: room for every request in flight, with headroom. */
int
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

/* Set a socket's SO_SNDBUF and SO_RCVBUF. */
void
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
int
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
void
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
 * loop: two local addresses of this instance; the client binds the first,
 * the server the second, and messages between them go over the loop
 * transport inside this process.
 */
static void
perf_setup_loop(struct perf_ctx *ctx, struct rte_rds_conf *conf, int buf)
{
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
}

static int
perf_init_cb(void *conf)
{
	return rte_rds_init(conf);
}

/*
 * Two processes (ib, eth): --role says which side this process plays, and
 * the other side is left at -1. The server binds --local:--port and
 * answers whoever asks (the client, once its hello came). The client
 * binds a data socket and a control socket to --local, port 0 each, and
 * sends to --peer:--port. Every socket is pinned to the transport (trans:
 * an SO_RDS_TRANSPORT value). The caller declared --local.
 */
static void
perf_setup_peer(struct perf_ctx *ctx, struct rte_rds_conf *conf, int buf,
		int trans)
{
	const struct perf_opts *o = ctx->o;

	if ((o->transport == PERF_TRANSPORT_ETH ?
	     perf_eth_start_retry(o, perf_init_cb, conf) :
	     rte_rds_init(conf)) < 0)
		perf_fail("rte_rds_init() with %s on the %s transport", o->local,
			  perf_transport_name(o->transport));
	if (o->transport == PERF_TRANSPORT_ETH)
		perf_eth_started(o);
	if (rte_rds_start() < 0)
		perf_fail("rte_rds_start()");
	if (o->role == PERF_ROLE_SERVER) {
		/* Buffers are sized again when the hello tells the
		 * mode, size and depth. */
		ctx->srv = perf_open_socket("server", o->local, o->port,
					    trans, buf, &ctx->srv_name);
		if (o->peer != NULL) {
			/* Only the address is known before the hello. */
			ctx->cli_name.sin_family = AF_INET;
			inet_pton(AF_INET, o->peer,
				  &ctx->cli_name.sin_addr);
		}
	} else {
		ctx->cli = perf_open_socket("client", o->local, 0,
					    trans, buf, &ctx->cli_name);
		ctx->ctl = perf_open_socket("control", o->local, 0,
					    trans, 0, &ctx->ctl_src);
		memset(&ctx->dst, 0, sizeof(ctx->dst));
		ctx->dst.sin_family = AF_INET;
		ctx->dst.sin_port = htons(o->port);
		inet_pton(AF_INET, o->peer, &ctx->dst.sin_addr);
		ctx->srv_name = ctx->dst;
		ctx->check_src = true;
	}
}

/* ib: --local is declared as "IP=ib[,--ib-opts]" (rdma_cm finds its
 * device). */
static void
perf_setup_ib(struct perf_ctx *ctx, struct rte_rds_conf *conf, int buf)
{
	const struct perf_opts *o = ctx->o;
	char spec[INET_ADDRSTRLEN + RTE_RDS_ARGSIZE + 8];
	int n;

	if (o->ib_opts != NULL)
		n = snprintf(spec, sizeof(spec), "%s=ib,%s", o->local,
			     o->ib_opts);
	else
		n = snprintf(spec, sizeof(spec), "%s=ib", o->local);
	if (n < 0 || (size_t)n >= sizeof(spec))
		perf_die("--local and --ib-opts are too long");
	if (rte_rds_conf_add_addr_str(conf, spec) < 0)
		perf_fail("rte_rds_conf_add_addr_str(\"%s\")", spec);
	perf_setup_peer(ctx, conf, buf, RDS_TRANS_IB);
}

/* eth: --local is declared as "IP=eth[,--eth-opts]"; the ethdev comes
 * from the EAL's --vdev (port= in --eth-opts, or the only one). */
static void
perf_setup_eth(struct perf_ctx *ctx, struct rte_rds_conf *conf, int buf)
{
	char spec[INET_ADDRSTRLEN + RTE_RDS_ARGSIZE + 8];

	perf_eth_spec(ctx->o, spec, sizeof(spec));
	snprintf(ctx->eth_pmd, sizeof(ctx->eth_pmd), "%s",
		 perf_eth_pmd(ctx->o));
	if (rte_rds_conf_add_addr_str(conf, spec) < 0)
		perf_fail("rte_rds_conf_add_addr_str(\"%s\")", spec);
	perf_setup_peer(ctx, conf, buf, RTE_RDS_TRANS_ETH);
}

/*
 * Everything that depends on the transport: the local addresses, library
 * init and start, and the sockets this process plays.
 */
void
perf_setup_transport(struct perf_ctx *ctx, struct rte_rds_conf *conf)
{
	const struct perf_opts *o = ctx->o;
	int buf = perf_sock_buf(o);

	switch (o->transport) {
	case PERF_TRANSPORT_LOOP:
		perf_setup_loop(ctx, conf, buf);
		break;
	case PERF_TRANSPORT_IB:
		perf_setup_ib(ctx, conf, buf);
		break;
	case PERF_TRANSPORT_ETH:
		perf_setup_eth(ctx, conf, buf);
		break;
	}
}

/*
 * Open the data sockets again (closing the old ones, with any region
 * registered on them): both of loop's, or an ib or eth client's data
 * socket (its control socket stays). For the next size of a list, and
 * for --tasks' other socket pairs (then ctx has none yet).
 */
void
perf_open_data_sockets(struct perf_ctx *ctx)
{
	const struct perf_opts *o = ctx->o;
	const int buf = perf_sock_buf(o);
	const int trans = o->transport == PERF_TRANSPORT_IB ? RDS_TRANS_IB :
		RTE_RDS_TRANS_ETH;

	if (ctx->cli >= 0 && rte_rds_close(ctx->cli) < 0)
		perf_fail("rte_rds_close(client)");
	ctx->cli = -1;
	if (o->transport == PERF_TRANSPORT_LOOP) {
		if (ctx->srv >= 0 && rte_rds_close(ctx->srv) < 0)
			perf_fail("rte_rds_close(server)");
		/* --attach: the two addresses the engine process serves. */
		ctx->cli = perf_open_socket("client", o->attach != NULL ?
					    o->local : PERF_LOOP_CLIENT_IP, 0,
					    -1, buf, &ctx->cli_name);
		ctx->srv = perf_open_socket("server", o->attach != NULL ?
					    o->peer : PERF_LOOP_SERVER_IP, 0,
					    -1, buf, &ctx->srv_name);
		ctx->dst = ctx->srv_name;
		ctx->check_src = true;
		return;
	}
	ctx->cli = perf_open_socket("client", o->local, 0, trans, buf,
				    &ctx->cli_name);
}

/* The run's state before the set-up: no socket, buffers for --size, the
 * RTT log, the request payload's pattern. Exits when out of memory. */
void
perf_ctx_init(struct perf_ctx *ctx, const struct perf_opts *o)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->o = o;
	ctx->cli = -1;
	ctx->srv = -1;
	ctx->ctl = -1;
	/* --attach: the engine process polls, nothing here does. */
	ctx->inline_engine = o->engine == PERF_ENGINE_INLINE &&
		o->attach == NULL;
	ctx->window = perf_window(o);
	ctx->cli_tx = calloc(1, o->size + PERF_RX_SLACK);
	ctx->cli_rx = calloc(1, o->size + PERF_RX_SLACK);
	ctx->srv_buf = calloc(1, o->size + PERF_RX_SLACK);
	ctx->sent_tsc = calloc(ctx->window, sizeof(*ctx->sent_tsc));
	if (ctx->cli_tx == NULL || ctx->cli_rx == NULL ||
	    ctx->srv_buf == NULL || ctx->sent_tsc == NULL ||
	    perf_rtt_init(&ctx->rtt, 0) < 0)
		perf_die("out of memory");
	/* A recognisable pattern under the sequence numbers. */
	for (size_t i = 0; i < o->size; i++)
		ctx->cli_tx[i] = (uint8_t)(i * 7 + 1);
}

/* Close the sockets this process played, and end the library. */
void
perf_ctx_close(struct perf_ctx *ctx)
{
	if (ctx->cli >= 0 && rte_rds_close(ctx->cli) < 0)
		perf_fail("rte_rds_close(client)");
	if (ctx->ctl >= 0 && rte_rds_close(ctx->ctl) < 0)
		perf_fail("rte_rds_close(control)");
	if (ctx->srv >= 0 && rte_rds_close(ctx->srv) < 0)
		perf_fail("rte_rds_close(server)");
	ctx->cli = ctx->ctl = ctx->srv = -1;
	if (rte_rds_fini() < 0)
		perf_fail("rte_rds_fini()");
}

/* Free the run's memory (after perf_ctx_close: the region's registration
 * ended with its socket). Counts and results stay. */
void
perf_ctx_free(struct perf_ctx *ctx)
{
	perf_rtt_free(&ctx->rtt);
	free(ctx->region);
	free(ctx->pattern);
	free(ctx->srv_local);
	free(ctx->srv_busy);
	free(ctx->srv_stamped);
	free(ctx->req_flags);
	free(ctx->sent_tsc);
	free(ctx->srv_buf);
	free(ctx->cli_rx);
	free(ctx->cli_tx);
	ctx->region = ctx->pattern = ctx->srv_local = NULL;
	ctx->srv_busy = ctx->srv_stamped = NULL;
	ctx->req_flags = NULL;
	ctx->sent_tsc = NULL;
	ctx->srv_buf = ctx->cli_rx = ctx->cli_tx = NULL;
}

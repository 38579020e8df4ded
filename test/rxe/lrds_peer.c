/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lrds_peer: librte_rds's side of the 'interop' suite. Runs the exchange
 * of interop_proto.h with a librte_rds socket over the ib transport (rxe),
 * against krds_peer, the kernel's own AF_RDS, in the other VM. The
 * kernel's rds_rdma must not be loaded here (it would hold RDMA-CM port
 * 18634).
 *
 * Usage: lrds_peer [-P] [-n COUNT] [-p PORT] [-t SECONDS] LOCAL_IP PEER_IP
 *        lrds_peer -S STREAM [-n COUNT] [-t SECONDS] LOCAL_IP[:PORT] PEER_IP[:PORT]
 *        lrds_peer -F SENDER_IP[:PORT] [-F ...] [-n COUNT] [-t SECONDS] LOCAL_IP[:PORT]
 *   -P  passive start: send nothing until the peer's first message has
 *       arrived, so that the peer opens the connection and librte_rds
 *       accepts it (without -P librte_rds usually connects first)
 *   -S  one stream of a fan-in (interop_stream_send) to the receiver
 *   -F  the fan-in receiver (interop_stream_recv), stream j from the j-th
 *       -F address
 *   -M  EAL memory in MiB (default 512)
 *   -B  SO_SNDBUF/SO_RCVBUF (default 4 MiB; 0: the library's defaults)
 *   -Z  MS[/EVERY]: the fan-in receiver pauses MS ms after every EVERY
 *       (100) messages of a stream, as a slow consumer
 * A port given with an address overrides -p (default 4242) for it. An
 * address is IPv4 or IPv6 ("[fd99::2]:4242"; a link-local one with its
 * interface, "fe80::2%eth0", which becomes the tcp address's dev=).
 *
 * EAL: -l 0 --no-pci --no-huge -m 512 --file-prefix=lrds-PID, plus the
 * words of $INTEROP_EAL_ARGS (e.g. "--log-level=lib.rds:debug
 * --log-level=pmd.rds.ib:debug"). $INTEROP_LRDS_CONF gives the ib
 * address options for experiments, e.g. "recv_wr=256 flow_control=0"
 * (the keys of rte_rds_ib.h);
 * $INTEROP_LRDS_QP_ERROR_EVERY=N puts the QP in error after every N
 * fan-in messages (rte_rds_ib_inject_qp_error), for reset tests.
 * $INTEROP_LRDS_TRANS=tcp runs it over the tcp transport instead (the
 * kernel's rds_tcp in the other VM; this one must not have rds_tcp
 * loaded, it would hold port 16385); the QP error is then a reset of the
 * TCP connection (rte_rds_tcp_inject_reset).
 * Exit 0 on success, 1 on failure, 2 on a usage or set-up error.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_rds.h>
#include <rte_rds_ib.h>
#include <rte_rds_stats.h>
#include <rte_rds_tcp.h>

#include "interop_proto.h"

struct lrds {
	int s;
	union interop_addr self, peer;
};

static int
l_send(void *ctx, const union interop_addr *to, const void *buf,
       size_t len)
{
	struct lrds *l = ctx;
	ssize_t r;

	r = rte_rds_sendto(l->s, buf, len, MSG_DONTWAIT, &to->sa,
			   interop_addr_len(to));
	if (r < 0)
		return rte_errno;
	if ((size_t)r != len)
		return EIO;
	return 0;
}

static long
l_recv(void *ctx, void *buf, size_t cap, union interop_addr *from,
       bool *trunc)
{
	struct lrds *l = ctx;
	struct iovec iov = { .iov_base = buf, .iov_len = cap };
	struct msghdr msg;
	ssize_t r;

	memset(&msg, 0, sizeof(msg));
	memset(from, 0, sizeof(*from));
	msg.msg_name = from;
	msg.msg_namelen = sizeof(*from);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	r = rte_rds_recvmsg(l->s, &msg, MSG_DONTWAIT);
	if (r < 0)
		return -rte_errno;
	*trunc = (msg.msg_flags & MSG_TRUNC) != 0;
	return (long)r;
}

static void
l_wait(void *ctx, int ms, bool want_out)
{
	struct lrds *l = ctx;
	struct rte_rds_pollfd p = { .sock = l->s,
				    .events = POLLIN | (want_out ? POLLOUT : 0) };

	/* drives the inline engine while it waits */
	rte_rds_poll(&p, 1, ms);
}

/* $INTEROP_LRDS_QP_ERROR_EVERY=N: a QP error every N fan-in messages. */
static uint64_t l_qp_error_every;
/* $INTEROP_LRDS_TRANS: "ib" (default) or "tcp". */
static const char *l_trans = "ib";

static bool
l_tcp(void)
{
	return strcmp(l_trans, "tcp") == 0;
}

static void
l_on_msg(void *ctx, uint64_t count)
{
	(void)ctx;
	if (l_qp_error_every != 0 && count % l_qp_error_every == 0) {
		printf("lrds: injecting a %s after %llu messages\n",
		       l_tcp() ? "TCP reset" : "QP error",
		       (unsigned long long)count);
		if (l_tcp())
			rte_rds_tcp_inject_reset(0);
		else
			rte_rds_ib_inject_qp_error();
	}
}

static void
l_pump(void *ctx)
{
	int k;

	(void)ctx;
	for (k = 0; k < 4; k++)
		if (rte_rds_engine_poll(0) <= 0)
			break;
}

static int
l_info(int name, void **out, socklen_t *len)
{
	void *buf = NULL;
	int tries, r;

	*out = NULL;
	*len = 0;
	for (tries = 0; tries < 8; tries++) {
		r = rte_rds_info(name, buf, len);
		if (r >= 0) {
			*out = buf;
			return r;
		}
		free(buf);
		if (rte_errno != ENOSPC)
			return -1;
		*len += 4096;
		buf = malloc(*len);
		if (buf == NULL)
			return -1;
	}
	free(buf);
	rte_errno = ENOSPC;
	return -1;
}

/* Our messages to `to` queued and unacknowledged (RDS6_INFO_*: every
 * connection, IPv4 v4-mapped). */
static int
l_unacked(void *ctx, const union interop_addr *to, long *queued,
	  long *unacked)
{
	static const int names[] = { RDS6_INFO_SEND_MESSAGES,
				     RDS6_INFO_RETRANS_MESSAGES };
	struct lrds *l = ctx;
	long count[2] = { 0, 0 };
	struct in6_addr self6, to6;
	unsigned int q;

	interop_addr_in6(&l->self, &self6);
	interop_addr_in6(to, &to6);
	for (q = 0; q < 2; q++) {
		socklen_t len, off;
		void *buf;
		int esz = l_info(names[q], &buf, &len);

		if (esz < 0)
			return -1;
		for (off = 0; esz > 0 && off + (socklen_t)esz <= len;
		     off += esz) {
			struct rds6_info_message m;

			memcpy(&m, (uint8_t *)buf + off, sizeof(m));
			if (memcmp(&m.laddr, &self6, 16) == 0 &&
			    memcmp(&m.faddr, &to6, 16) == 0 &&
			    m.lport == l->self.in.sin_port &&
			    m.fport == to->in.sin_port)
				count[q]++;
		}
		free(buf);
	}
	*queued = count[0];
	*unacked = count[1];
	return 0;
}

static void
l_show(void)
{
	struct rte_rds_ib_stats st;
	socklen_t len, off;
	void *buf;
	int esz;

	/* RDS6: IPv4 and IPv6 connections alike. */
	esz = l_info(RDS6_INFO_CONNECTIONS, &buf, &len);
	for (off = 0; esz > 0 && off + (socklen_t)esz <= len; off += esz) {
		struct rds6_info_connection c;
		char la[INET6_ADDRSTRLEN], fa[INET6_ADDRSTRLEN];

		memcpy(&c, (uint8_t *)buf + off, sizeof(c));
		c.transport[TRANSNAMSIZ - 1] = '\0';
		inet_ntop(AF_INET6, &c.laddr, la, sizeof(la));
		inet_ntop(AF_INET6, &c.faddr, fa, sizeof(fa));
		printf("lrds: connection %s -> %s transport %s flags 0x%x "
		       "next_tx_seq %llu next_rx_seq %llu\n", la, fa,
		       (const char *)c.transport, c.flags,
		       (unsigned long long)c.next_tx_seq,
		       (unsigned long long)c.next_rx_seq);
	}
	free(buf);
	{
		struct rte_rds_stats cs;
		const uint64_t *v = (const uint64_t *)&cs;
		unsigned int i, col = 0;

		if (rte_rds_stats_get(-1, &cs) == 0) {
			printf("lrds: non-zero counters:");
			for (i = 0; i < RTE_RDS_STATS_NUM; i++) {
				if (v[i] == 0 || i < 2)
					continue;
				if (col++ % 5 == 0)
					printf("\nlrds:  ");
				printf(" %s=%llu", rte_rds_stats_name(i),
				       (unsigned long long)v[i]);
			}
			printf("\n");
		}
	}
	if (l_tcp()) {
		struct rte_rds_tcp_stats ts;

		if (rte_rds_tcp_stats_get(&ts) == 0)
			printf("lrds: tcp: connects %llu accepts %llu knocks "
			       "%llu answered %llu replaced %llu; msgs tx %llu "
			       "rx %llu acked %llu; sendmsg %llu partial %llu "
			       "recv %llu; resets %llu injected %llu; bad %llu "
			       "stalls %llu\n",
			       (unsigned long long)ts.connects,
			       (unsigned long long)ts.accepts,
			       (unsigned long long)ts.knocks,
			       (unsigned long long)ts.knocks_answered,
			       (unsigned long long)ts.accept_replaced,
			       (unsigned long long)ts.tx_msgs,
			       (unsigned long long)ts.rx_msgs,
			       (unsigned long long)ts.tx_acked_msgs,
			       (unsigned long long)ts.tx_calls,
			       (unsigned long long)ts.tx_partial,
			       (unsigned long long)ts.rx_calls,
			       (unsigned long long)ts.resets,
			       (unsigned long long)ts.resets_injected,
			       (unsigned long long)ts.rx_bad_frames,
			       (unsigned long long)ts.rx_stalls);
	} else if (rte_rds_ib_stats_get(&st) == 0) {
		printf("lrds: ib: connects active %llu passive %llu raced %llu "
		       "replaced %llu stale %llu incompat %llu cm_errors %llu "
		       "connect_timeouts %llu proto4 %llu\n",
		       (unsigned long long)st.connects_active,
		       (unsigned long long)st.connects_passive,
		       (unsigned long long)st.connect_raced,
		       (unsigned long long)st.connect_replaced,
		       (unsigned long long)st.listen_closed_stale,
		       (unsigned long long)st.rejects_incompat,
		       (unsigned long long)st.cm_errors,
		       (unsigned long long)st.connect_timeouts,
		       (unsigned long long)st.connects_proto4);
		printf("lrds: ib: tx_frames %llu ring_full %llu rx_frames %llu "
		       "rx_post_calls %llu frag_mismatch %llu seq_gaps %llu "
		       "qp_errors %llu stalls %llu; credits: conns %llu stalls "
		       "%llu advertised %llu\n",
		       (unsigned long long)st.tx_frames,
		       (unsigned long long)st.tx_ring_full,
		       (unsigned long long)st.rx_frames,
		       (unsigned long long)st.rx_post_calls,
		       (unsigned long long)st.rx_frag_mismatch,
		       (unsigned long long)st.rx_seq_gaps,
		       (unsigned long long)st.qp_errors,
		       (unsigned long long)st.stalls,
		       (unsigned long long)st.flowctl_conns,
		       (unsigned long long)st.credit_stalls,
		       (unsigned long long)st.credits_advertised);
		printf("lrds: ib: zero-copy SENDs %llu (%llu bytes), references "
		       "dropped %llu, regions registered %llu, failed %llu\n",
		       (unsigned long long)st.tx_zc_frames,
		       (unsigned long long)st.tx_zc_bytes,
		       (unsigned long long)st.tx_zc_released,
		       (unsigned long long)st.tx_zc_regs,
		       (unsigned long long)st.tx_zc_reg_fails);
	}
}

/* $INTEROP_LRDS_CONF: the address's options, "key=value ..." (spaces
 * or commas between them), appended to "IP=ib" (or "IP=tcp"; IPv6 in
 * brackets, a link-local tcp address with dev= its interface). */
static int
addr_spec(const union interop_addr *self, char *spec, size_t len)
{
	const char *env = getenv("INTEROP_LRDS_CONF");
	char buf[RTE_RDS_ARGSIZE], *tok, *save = NULL;
	char ip[INET6_ADDRSTRLEN], ifn[IF_NAMESIZE];
	int n;

	if (interop_addr_v6(self)) {
		inet_ntop(AF_INET6, &self->in6.sin6_addr, ip, sizeof(ip));
		n = snprintf(spec, len, "[%s]=%s", ip, l_trans);
		if (self->in6.sin6_scope_id != 0 && l_tcp() &&
		    if_indextoname(self->in6.sin6_scope_id, ifn) != NULL)
			n += snprintf(spec + n, len - (size_t)n, ",dev=%s",
				      ifn);
	} else {
		inet_ntop(AF_INET, &self->in.sin_addr, ip, sizeof(ip));
		n = snprintf(spec, len, "%s=%s", ip, l_trans);
	}

	if (env == NULL || *env == '\0')
		return 0;
	if (strlen(env) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", env);
	for (tok = strtok_r(buf, " \t,", &save); tok != NULL;
	     tok = strtok_r(NULL, " \t,", &save)) {
		if (strchr(tok, '=') == NULL)
			return -1;
		n += snprintf(spec + n, len - (size_t)n, ",%s", tok);
		if ((size_t)n >= len)
			return -1;
	}
	printf("lrds: address %s\n", spec);
	return 0;
}

static int
eal_up(const char *prog, const char *mem_mb)
{
	static char prefix[64], extra[512];
	char *argv[48];
	int argc = 0;
	const char *env = getenv("INTEROP_EAL_ARGS");
	char *tok, *save = NULL;

	snprintf(prefix, sizeof(prefix), "--file-prefix=lrds-%d", (int)getpid());
	argv[argc++] = (char *)(uintptr_t)prog;
	argv[argc++] = (char *)(uintptr_t)"-l";
	argv[argc++] = (char *)(uintptr_t)"0";
	argv[argc++] = (char *)(uintptr_t)"--no-pci";
	argv[argc++] = (char *)(uintptr_t)"--no-huge";
	argv[argc++] = (char *)(uintptr_t)"-m";
	argv[argc++] = (char *)(uintptr_t)mem_mb;
	argv[argc++] = prefix;
	argv[argc++] = (char *)(uintptr_t)"--log-level=lib.eal:error";
	if (env != NULL) {
		snprintf(extra, sizeof(extra), "%s", env);
		for (tok = strtok_r(extra, " \t", &save);
		     tok != NULL && argc < 47;
		     tok = strtok_r(NULL, " \t", &save))
			argv[argc++] = tok;
	}
	argv[argc] = NULL;
	if (rte_eal_init(argc, argv) < 0) {
		printf("lrds: rte_eal_init: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct interop_args a = { .name = "lrds", .n = INTEROP_COUNT,
				  .timeout_s = INTEROP_TIMEOUT_S,
				  .linger_s = 1.0 };
	struct interop_fanin_args f = { .name = "lrds", .linger_s = 1.0 };
	struct interop_ops ops = { .send = l_send, .recv = l_recv,
				   .wait = l_wait, .unacked = l_unacked,
				   .pump = l_pump, .on_msg = l_on_msg };
	const char *senders[INTEROP_MAX_STREAMS];
	const char *mem_mb = "512";
	struct rte_rds_conf conf;
	struct lrds l;
	unsigned long port = INTEROP_PORT;
	unsigned int nb_senders = 0, j;
	int opt, t = RDS_TRANS_IB, bufsz = INTEROP_BUFSZ, rc, stream = -1;
	int positional;
	char spec[INET6_ADDRSTRLEN + RTE_RDS_ARGSIZE + 32];
	double t0 = interop_now();

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("INTEROP_LRDS_TRANS") != NULL &&
	    strcmp(getenv("INTEROP_LRDS_TRANS"), "tcp") == 0) {
		l_trans = "tcp";
		t = RDS_TRANS_TCP;
	}
	if (getenv("INTEROP_LRDS_QP_ERROR_EVERY") != NULL)
		l_qp_error_every = strtoull(getenv("INTEROP_LRDS_QP_ERROR_EVERY"),
					    NULL, 0);
	while ((opt = getopt(argc, argv, "B:F:Z:M:Pn:p:S:t:")) != -1) {
		switch (opt) {
		case 'B': bufsz = atoi(optarg); break;
		case 'Z':
			/* MS[/EVERY]: a slow consumer (fan-in receiver) */
			f.pause_ms = (uint32_t)strtoul(optarg, NULL, 0);
			f.pause_every = strchr(optarg, '/') != NULL ?
				(uint32_t)strtoul(strchr(optarg, '/') + 1,
						  NULL, 0) : 100;
			break;
		case 'F':
			if (nb_senders == INTEROP_MAX_STREAMS)
				goto usage;
			senders[nb_senders++] = optarg;
			break;
		case 'M': mem_mb = optarg; break;
		case 'P': a.wait_first = true; break;
		case 'n': a.n = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'p': port = strtoul(optarg, NULL, 0); break;
		case 'S': stream = atoi(optarg); break;
		case 't': a.timeout_s = strtod(optarg, NULL); break;
		default: goto usage;
		}
	}
	positional = nb_senders > 0 ? 1 : 2;
	if (argc - optind != positional || a.n == 0 || port == 0 ||
	    port > 65535 || (nb_senders > 0 && stream >= 0) ||
	    stream >= INTEROP_MAX_STREAMS)
		goto usage;
	memset(&l, 0, sizeof(l));
	if (interop_parse_addr(argv[optind], (uint16_t)port, &l.self) != 0 ||
	    (positional == 2 &&
	     interop_parse_addr(argv[optind + 1], (uint16_t)port,
				&l.peer) != 0))
		goto usage;
	for (j = 0; j < nb_senders; j++)
		if (interop_parse_addr(senders[j], (uint16_t)port,
				       &f.senders[j]) != 0)
			goto usage;
	a.self = l.self;
	a.peer = l.peer;
	f.self = l.self;
	f.peer = l.peer;
	f.nb_senders = nb_senders;
	f.stream = stream >= 0 ? (unsigned int)stream : 0;
	f.n = a.n;
	f.timeout_s = a.timeout_s;

	if (eal_up(argv[0], mem_mb) != 0)
		return 2;
	rte_rds_conf_init(&conf);
	conf.nb_engines = 1;
	conf.engine[0].lcore_id = RTE_RDS_ENGINE_INLINE;
	conf.engine[0].idle = RTE_RDS_IDLE_YIELD;
	if (addr_spec(&l.self, spec, sizeof(spec)) != 0) {
		printf("lrds: bad INTEROP_LRDS_CONF\n");
		rte_eal_cleanup();
		return 2;
	}
	if (rte_rds_conf_add_addr_str(&conf, spec) != 0 ||
	    rte_rds_init(&conf) != 0) {
		printf("lrds: rte_rds_init with %s: %s\n", spec,
		       rte_strerror(rte_errno));
		rte_eal_cleanup();
		return 2;
	}
	l.s = rte_rds_socket();
	if (l.s < 0 ||
	    rte_rds_setsockopt(l.s, SOL_RDS, SO_RDS_TRANSPORT, &t,
			       sizeof(t)) != 0 ||
	    (bufsz > 0 &&
	     (rte_rds_setsockopt(l.s, SOL_SOCKET, SO_SNDBUF, &bufsz,
				 sizeof(bufsz)) != 0 ||
	      rte_rds_setsockopt(l.s, SOL_SOCKET, SO_RCVBUF, &bufsz,
				 sizeof(bufsz)) != 0)) ||
	    rte_rds_bind(l.s, &l.self.sa, interop_addr_len(&l.self)) != 0) {
		printf("lrds: socket set-up on %s: %s\n", argv[optind],
		       rte_strerror(rte_errno));
		rte_rds_fini();
		rte_eal_cleanup();
		return 2;
	}
	printf("lrds: librte_rds socket bound to %s over %s, "
	       "SO_SNDBUF/SO_RCVBUF %d (up %.1f s after start)\n",
	       argv[optind], l_trans, bufsz, interop_now() - t0);
	ops.ctx = &l;
	if (nb_senders > 0)
		rc = interop_stream_recv(&f, &ops);
	else if (stream >= 0)
		rc = interop_stream_send(&f, &ops);
	else
		rc = interop_run(&a, &ops);
	l_show();
	/* The kernel numbers every message of a connection and cancels
	 * nothing here: a skipped sequence number is a message lost under
	 * RDS that our cumulative ACK then covered. */
	if (stream < 0 && !l_tcp()) {
		struct rte_rds_ib_stats st;

		if (rte_rds_ib_stats_get(&st) == 0 && st.rx_seq_gaps != 0) {
			printf("lrds: FAIL: %llu messages skipped in the peer's "
			       "sequence (lost under RDS, then acknowledged)\n",
			       (unsigned long long)st.rx_seq_gaps);
			rc = 1;
		}
	}
	rte_rds_close(l.s);
	rte_rds_fini();
	rte_eal_cleanup();
	return rc;
usage:
	fprintf(stderr, "usage: %s [-P] [-n COUNT] [-p PORT] [-t SECONDS] "
		"LOCAL_IP PEER_IP\n"
		"       %s -S STREAM [-M MIB] [-n COUNT] [-t SECONDS] "
		"LOCAL_IP[:PORT] PEER_IP[:PORT]\n"
		"       %s -F SENDER_IP[:PORT] [-F ...] [-M MIB] [-n COUNT] "
		"[-t SECONDS] LOCAL_IP[:PORT]\n", argv[0], argv[0], argv[0]);
	return 2;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * krds_peer: the kernel's side of the 'interop' suite. Runs the exchange
 * of interop_proto.h over the kernel's own AF_RDS socket, pinned to the
 * InfiniBand transport (rds_rdma over rxe), against lrds_peer (librte_rds)
 * in the other VM. Not linked with DPDK.
 *
 * Usage: krds_peer [-P] [-n COUNT] [-p PORT] [-t SECONDS] LOCAL_IP PEER_IP
 *        krds_peer -S STREAM [-n COUNT] [-t SECONDS] LOCAL_IP[:PORT] PEER_IP[:PORT]
 *        krds_peer -F SENDER_IP[:PORT] [-F ...] [-n COUNT] [-t SECONDS] LOCAL_IP[:PORT]
 *   (default) the two-way exchange of interop_proto.h (interop_run)
 *   -S  one stream of a fan-in (interop_stream_send) to the receiver at
 *       PEER_IP
 *   -F  the fan-in receiver (interop_stream_recv), stream j from the j-th
 *       -F address
 *   -B  SO_SNDBUF/SO_RCVBUF (default 4 MiB; 0: the system's defaults)
 *   -T  ib|tcp|none: the transport pinned with SO_RDS_TRANSPORT (default
 *       ib; none pins nothing, e.g. on loop addresses under the preload)
 *   -Z  MS[/EVERY]: the fan-in receiver pauses MS ms after every EVERY
 *       (100) messages of a stream, as a slow consumer
 *   -P  the exchange: send only once the peer's first message is in (as
 *       lrds_peer -P), so that the peer connects; the peer must be bound
 *       when it starts sending
 * A port given with an address overrides -p (default 4242) for it. An
 * address is IPv4 or IPv6 ("[fd99::1]:4242", "fe80::1%eth0"): the kernel's
 * AF_RDS takes both; both ends of a run are of one family.
 *
 * At the end it prints the kernel's RDS_INFO_CONNECTIONS (RDS6_ for IPv6;
 * the transport
 * of the connection to each peer must be "infiniband": it went over IB,
 * not TCP) and its non-zero RDS counters. Exit 0 on success, 1 on failure,
 * 2 on a usage or set-up error.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/rds.h>

#include "interop_proto.h"

#ifndef AF_RDS
#define AF_RDS 21
#endif
#ifndef SOL_RDS
#define SOL_RDS 276
#endif

struct krds {
	int fd;
	union interop_addr self, peer;
};

static int
k_send(void *ctx, const union interop_addr *to, const void *buf,
       size_t len)
{
	struct krds *k = ctx;
	ssize_t r;

	r = sendto(k->fd, buf, len, MSG_DONTWAIT, &to->sa,
		   interop_addr_len(to));
	if (r < 0)
		return errno;
	if ((size_t)r != len)
		return EIO;
	return 0;
}

static long
k_recv(void *ctx, void *buf, size_t cap, union interop_addr *from,
       bool *trunc)
{
	struct krds *k = ctx;
	struct iovec iov = { .iov_base = buf, .iov_len = cap };
	struct msghdr msg;
	ssize_t r;

	memset(&msg, 0, sizeof(msg));
	memset(from, 0, sizeof(*from));
	msg.msg_name = from;
	msg.msg_namelen = sizeof(*from);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	r = recvmsg(k->fd, &msg, MSG_DONTWAIT);
	if (r < 0)
		return -errno;
	*trunc = (msg.msg_flags & MSG_TRUNC) != 0;
	return (long)r;
}

static void
k_wait(void *ctx, int ms, bool want_out)
{
	struct krds *k = ctx;
	struct pollfd p = { .fd = k->fd,
			    .events = POLLIN | (want_out ? POLLOUT : 0) };

	poll(&p, 1, ms);
}

/* An RDS_INFO_* snapshot: probe, allocate, fill. Returns the record size
 * (the buffer in *out, total length in *len) or -1 with errno. */
static int
k_info(int fd, int name, void **out, socklen_t *len)
{
	void *buf = NULL;
	int tries, r;

	*out = NULL;
	*len = 0;
	for (tries = 0; tries < 8; tries++) {
		r = getsockopt(fd, SOL_RDS, name, buf, len);
		if (r >= 0) {
			*out = buf;
			return r;
		}
		if (errno != ENOSPC) {
			free(buf);
			return -1;
		}
		free(buf);
		*len += 4096;	/* room for records that appear meanwhile */
		buf = malloc(*len);
		if (buf == NULL)
			return -1;
	}
	free(buf);
	errno = ENOSPC;
	return -1;
}

/* Our messages to `to` in the kernel's send and retransmit queues
 * (RDS6_INFO_*: every connection, IPv4 v4-mapped). */
static int
k_unacked(void *ctx, const union interop_addr *to, long *queued,
	  long *unacked)
{
	static const int names[] = { RDS6_INFO_SEND_MESSAGES,
				     RDS6_INFO_RETRANS_MESSAGES };
	struct krds *k = ctx;
	long count[2] = { 0, 0 };
	struct in6_addr self6, to6;
	unsigned int q;

	interop_addr_in6(&k->self, &self6);
	interop_addr_in6(to, &to6);
	for (q = 0; q < 2; q++) {
		socklen_t len, off;
		void *buf;
		int esz = k_info(k->fd, names[q], &buf, &len);

		if (esz < 0)
			return -1;
		for (off = 0; esz > 0 && off + (socklen_t)esz <= len;
		     off += esz) {
			struct rds6_info_message m;

			memcpy(&m, (uint8_t *)buf + off, sizeof(m));
			if (memcmp(&m.laddr, &self6, 16) == 0 &&
			    memcmp(&m.faddr, &to6, 16) == 0 &&
			    m.lport == k->self.in.sin_port &&
			    m.fport == to->in.sin_port)
				count[q]++;
		}
		free(buf);
	}
	*queued = count[0];
	*unacked = count[1];
	return 0;
}

/* Print the connections (RDS6_INFO_CONNECTIONS for IPv6, whose IPv4
 * list skips them); return 0 if the one to each of the nb peers is over
 * IB. */
static int
k_show_connections(struct krds *k, const union interop_addr *peers,
		   unsigned int nb)
{
	bool v6 = interop_addr_v6(&k->self);
	const char *nm = v6 ? "RDS6_INFO_CONNECTIONS" : "RDS_INFO_CONNECTIONS";
	socklen_t len, off;
	void *buf;
	unsigned int found_ib = 0, found = 0, p;
	struct in6_addr self6, peer6;
	int esz;

	esz = k_info(k->fd, v6 ? RDS6_INFO_CONNECTIONS : RDS_INFO_CONNECTIONS,
		     &buf, &len);
	if (esz < 0) {
		printf("krds: %s: %s\n", nm, strerror(errno));
		return -1;
	}
	interop_addr_in6(&k->self, &self6);
	for (off = 0; esz > 0 && off + (socklen_t)esz <= len; off += esz) {
		struct rds6_info_connection c;
		char l[INET6_ADDRSTRLEN], f[INET6_ADDRSTRLEN];

		if (v6) {
			memcpy(&c, (uint8_t *)buf + off, sizeof(c));
		} else {
			struct rds_info_connection c4;

			memcpy(&c4, (uint8_t *)buf + off, sizeof(c4));
			memset(&c, 0, sizeof(c));
			c.next_tx_seq = c4.next_tx_seq;
			c.next_rx_seq = c4.next_rx_seq;
			c.laddr.s6_addr[10] = c.laddr.s6_addr[11] = 0xff;
			memcpy(&c.laddr.s6_addr[12], &c4.laddr, 4);
			c.faddr.s6_addr[10] = c.faddr.s6_addr[11] = 0xff;
			memcpy(&c.faddr.s6_addr[12], &c4.faddr, 4);
			memcpy(c.transport, c4.transport, TRANSNAMSIZ);
			c.flags = c4.flags;
		}
		c.transport[TRANSNAMSIZ - 1] = '\0';
		if (v6) {
			inet_ntop(AF_INET6, &c.laddr, l, sizeof(l));
			inet_ntop(AF_INET6, &c.faddr, f, sizeof(f));
		} else {
			inet_ntop(AF_INET, &c.laddr.s6_addr[12], l, sizeof(l));
			inet_ntop(AF_INET, &c.faddr.s6_addr[12], f, sizeof(f));
		}
		printf("krds: %s: %s -> %s transport %s "
		       "flags 0x%x%s%s%s next_tx_seq %llu next_rx_seq %llu\n",
		       nm, l, f, (const char *)c.transport, c.flags,
		       c.flags & RDS_INFO_CONNECTION_FLAG_SENDING ? " sending" : "",
		       c.flags & RDS_INFO_CONNECTION_FLAG_CONNECTING ?
		       " connecting" : "",
		       c.flags & RDS_INFO_CONNECTION_FLAG_CONNECTED ?
		       " connected" : "",
		       (unsigned long long)c.next_tx_seq,
		       (unsigned long long)c.next_rx_seq);
		for (p = 0; p < nb; p++) {
			interop_addr_in6(&peers[p], &peer6);
			if (memcmp(&c.laddr, &self6, 16) != 0 ||
			    memcmp(&c.faddr, &peer6, 16) != 0)
				continue;
			found |= 1u << p;
			if (strcmp((const char *)c.transport, "infiniband") == 0)
				found_ib |= 1u << p;
		}
	}
	free(buf);
	for (p = 0; p < nb; p++)
		if (!(found & (1u << p)))
			printf("krds: no connection to peer %u in %s\n", p,
			       nm);
	return found_ib == (1u << nb) - 1 ? 0 : -1;
}

static void
k_show_counters(struct krds *k)
{
	socklen_t len, off;
	void *buf;
	int esz, col = 0;

	esz = k_info(k->fd, RDS_INFO_COUNTERS, &buf, &len);
	if (esz < 0) {
		printf("krds: RDS_INFO_COUNTERS: %s\n", strerror(errno));
		return;
	}
	printf("krds: non-zero counters:");
	for (off = 0; esz > 0 && off + (socklen_t)esz <= len; off += esz) {
		struct rds_info_counter c;

		memcpy(&c, (uint8_t *)buf + off, sizeof(c));
		if (c.value == 0)
			continue;
		c.name[sizeof(c.name) - 1] = '\0';
		if (col++ % 4 == 0)
			printf("\nkrds:  ");
		printf(" %s=%llu", (const char *)c.name,
		       (unsigned long long)c.value);
	}
	printf("\n");
	free(buf);
}

int
main(int argc, char **argv)
{
	struct interop_args a = { .name = "krds", .n = INTEROP_COUNT,
				  .timeout_s = INTEROP_TIMEOUT_S };
	struct interop_fanin_args f = { .name = "krds" };
	struct interop_ops ops = { .send = k_send, .recv = k_recv,
				   .wait = k_wait, .unacked = k_unacked };
	const char *senders[INTEROP_MAX_STREAMS];
	struct krds k;
	unsigned long port = INTEROP_PORT;
	unsigned int nb_senders = 0, j;
	int opt, t = RDS_TRANS_IB, bufsz = INTEROP_BUFSZ, rc, stream = -1;
	int positional;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "B:F:PT:Z:n:p:S:t:")) != -1) {
		switch (opt) {
		case 'B': bufsz = atoi(optarg); break;
		case 'T':
			/* The transport to pin: ib (default), tcp, none (the
			 * kernel picks; under the preload on loop addresses) */
			t = strcmp(optarg, "tcp") == 0 ? RDS_TRANS_TCP :
			    strcmp(optarg, "none") == 0 ? -1 : RDS_TRANS_IB;
			break;
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
	memset(&k, 0, sizeof(k));
	if (interop_parse_addr(argv[optind], (uint16_t)port, &k.self) != 0 ||
	    (positional == 2 &&
	     interop_parse_addr(argv[optind + 1], (uint16_t)port,
				&k.peer) != 0))
		goto usage;
	for (j = 0; j < nb_senders; j++)
		if (interop_parse_addr(senders[j], (uint16_t)port,
				       &f.senders[j]) != 0)
			goto usage;
	a.self = k.self;
	a.peer = k.peer;
	f.self = k.self;
	f.peer = k.peer;
	f.nb_senders = nb_senders;
	f.stream = stream >= 0 ? (unsigned int)stream : 0;
	f.n = a.n;
	f.timeout_s = a.timeout_s;

	k.fd = socket(AF_RDS, SOCK_SEQPACKET, 0);
	if (k.fd < 0) {
		printf("krds: socket(AF_RDS): %s (is the rds module there?)\n",
		       strerror(errno));
		return 2;
	}
	if (t >= 0 &&
	    setsockopt(k.fd, SOL_RDS, SO_RDS_TRANSPORT, &t, sizeof(t)) != 0) {
		printf("krds: SO_RDS_TRANSPORT RDS_TRANS_IB: %s\n",
		       strerror(errno));
		return 2;
	}
	if (bufsz > 0 &&
	    (setsockopt(k.fd, SOL_SOCKET, SO_SNDBUFFORCE, &bufsz,
			sizeof(bufsz)) != 0 ||
	     setsockopt(k.fd, SOL_SOCKET, SO_RCVBUFFORCE, &bufsz,
			sizeof(bufsz)) != 0)) {
		printf("krds: SO_SNDBUFFORCE/SO_RCVBUFFORCE: %s (not root?)\n",
		       strerror(errno));
		return 2;
	}
	if (bind(k.fd, &k.self.sa, interop_addr_len(&k.self)) != 0) {
		printf("krds: bind %s: %s (rds_rdma loaded? rxe0 up?)\n",
		       argv[optind], strerror(errno));
		return 2;
	}
	printf("krds: kernel AF_RDS socket bound to %s over %s, "
	       "SO_SNDBUF/SO_RCVBUF %d\n", argv[optind],
	       t == RDS_TRANS_IB ? "RDS_TRANS_IB" : t == RDS_TRANS_TCP ?
	       "RDS_TRANS_TCP" : "no pinned transport", bufsz);
	ops.ctx = &k;
	if (nb_senders > 0)
		rc = interop_stream_recv(&f, &ops);
	else if (stream >= 0)
		rc = interop_stream_send(&f, &ops);
	else
		rc = interop_run(&a, &ops);
	/* (Over IB only: with -T none the connection's transport is the
	 * one the stack picked.) */
	if ((nb_senders > 0 ?
	     k_show_connections(&k, f.senders, nb_senders) != 0 :
	     k_show_connections(&k, &k.peer, 1) != 0) && t == RDS_TRANS_IB) {
		printf("krds: FAIL: a connection to the peer is not over "
		       "\"infiniband\"\n");
		rc = 1;
	}
	k_show_counters(&k);
	close(k.fd);
	return rc;
usage:
	fprintf(stderr, "usage: %s [-P] [-n COUNT] [-p PORT] [-t SECONDS] "
		"LOCAL_IP PEER_IP\n"
		"       %s -S STREAM [-n COUNT] [-t SECONDS] LOCAL_IP[:PORT] "
		"PEER_IP[:PORT]\n"
		"       %s -F SENDER_IP[:PORT] [-F ...] [-n COUNT] [-t SECONDS] "
		"LOCAL_IP[:PORT]\n", argv[0], argv[0], argv[0]);
	return 2;
}

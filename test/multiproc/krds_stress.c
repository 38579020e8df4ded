/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * krds_stress: an AF_RDS program in the manner of rds-stress, built
 * against the kernel's headers only (never linked with librte_rds): a
 * TCP control connection between two parents, and one child process per
 * task, forked after the control connection is up, each with an RDS
 * socket of its own.
 *
 *   krds_stress -s LOCAL_IP [-p TCP_PORT] [options]          (passive)
 *   krds_stress -c PEER_IP -s LOCAL_IP [-p TCP_PORT] [options] (active)
 *     -r RDS_IP   the peer's RDS address when it is not the address of
 *                 the control connection (e.g. loop addresses of an
 *                 engine on this host); the passive side listens on
 *                 every address
 *     -t TASKS    children per side (default 4, at most 64)
 *     -n MSGS     messages each child sends to its peer child (default
 *                 2000): sizes 0..8192 bytes, one in 50 up to 256 KiB
 *     -P PORT     first RDS port (default 19000; task i binds PORT + i)
 *     -T ib|tcp|none  SO_RDS_TRANSPORT to pin (default none)
 *     -w SECONDS  give up after this long (default 120)
 *     -S BYTES    every message this size (0..262144) instead of the
 *                 mix above (both sides must say the same)
 *     -o          one way: only the active side sends (-n messages per
 *                 task), the passive side only receives and checks
 *                 (both sides must say it; an incast: test/fabric)
 *     -B BYTES    SO_SNDBUF and SO_RCVBUF (default 1 MiB; as root
 *                 SO_SNDBUFFORCE / SO_RCVBUFFORCE: the kernel caps
 *                 SO_SNDBUF at net.core.wmem_max, 208 KiB by default,
 *                 and refuses a message larger than half the send
 *                 buffer with EMSGSIZE)
 *
 * Task i of one side talks to task i of the other. Each child sends its
 * messages (deterministic content and size from direction, task and
 * index) and checks every byte and the order of what it receives,
 * keeping a running SHA-256 of each direction; the parents swap the
 * children's digests over the control connection, and each side checks
 * that what the other sent is what it received. The children are told
 * to start only once every child of both sides has bound its socket.
 * Exit 0 when every task of both sides matched; 1 otherwise; 2 on a bad
 * command line.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/rds.h>

#include <openssl/evp.h>

#ifndef AF_RDS
#define AF_RDS 21
#endif
#ifndef SOL_RDS
#define SOL_RDS 276
#endif

#define MAX_TASKS 64
#define MAX_SIZE (256u * 1024)

struct opts {
	const char *local, *peer, *rds_peer;
	uint16_t tcp_port, rds_port;
	unsigned int tasks, msgs, wait_s;
	int trans, bufsz;
	long fixed;		/* -S: every message's size, -1: the mix */
	bool oneway;		/* -o */
};

static const struct opts *g_opts;

struct result {
	uint32_t task;
	uint32_t ok;
	uint64_t sent, received;
	uint8_t tx[32], rx[32];
};

static uint64_t
mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint32_t
msg_size(unsigned int dir, unsigned int task, uint32_t i)
{
	uint64_t k = mix(((uint64_t)dir << 48) ^ ((uint64_t)task << 32) ^ i);

	if (g_opts->fixed >= 0)
		return (uint32_t)g_opts->fixed;
	if (k % 50 == 0)
		return (uint32_t)((k >> 8) % (MAX_SIZE + 1));
	return (uint32_t)((k >> 8) % 8193);
}

static void
msg_fill(uint8_t *b, uint32_t len, unsigned int dir, unsigned int task,
	 uint32_t i)
{
	uint64_t x = ((uint64_t)dir << 48) ^ ((uint64_t)task << 32) ^ i;
	uint32_t k;

	for (k = 0; k < len; k += 8) {
		uint64_t v = mix(x + k);

		memcpy(b + k, &v, len - k < 8 ? len - k : 8);
	}
	if (len >= 4)
		memcpy(b, &i, 4);
}

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int
full_io(int fd, void *buf, size_t len, bool wr)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = wr ? write(fd, (char *)buf + done, len - done) :
			 read(fd, (char *)buf + done, len - done);
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			return -1;
		}
		done += (size_t)n;
	}
	return 0;
}

/*
 * A socket buffer size: the FORCE option first (root: past the kernel's
 * net.core.[wr]mem_max), the plain one when that is not allowed.
 */
static int
set_buf(int s, int force, int plain, int v)
{
	if (setsockopt(s, SOL_SOCKET, force, &v, sizeof(v)) == 0)
		return 0;
	if (errno != EPERM)
		return -1;
	return setsockopt(s, SOL_SOCKET, plain, &v, sizeof(v));
}

/* One child: its RDS socket, its stream both ways. */
static int
child(const struct opts *o, unsigned int task, unsigned int dir, int up,
      int go)
{
	struct sockaddr_in self = { .sin_family = AF_INET }, peer = self, from;
	struct result res;
	EVP_MD_CTX *htx = EVP_MD_CTX_new(), *hrx = EVP_MD_CTX_new();
	uint8_t *sb = malloc(MAX_SIZE), *rb = malloc(MAX_SIZE),
		*eb = malloc(MAX_SIZE);
	uint32_t sent = 0, got = 0, len, elen;
	/* One way (-o): direction 0 (the active side's) only. */
	uint32_t to_send = o->oneway && dir == 1 ? 0 : o->msgs;
	uint32_t to_get = o->oneway && dir == 0 ? 0 : o->msgs;
	uint64_t deadline, t0 = 0, rx_bytes = 0;
	socklen_t fl;
	char c;
	int s;
	ssize_t r;

	memset(&res, 0, sizeof(res));
	res.task = task;
	EVP_DigestInit_ex(htx, EVP_sha256(), NULL);
	EVP_DigestInit_ex(hrx, EVP_sha256(), NULL);
	inet_pton(AF_INET, o->local, &self.sin_addr);
	inet_pton(AF_INET, o->rds_peer != NULL ? o->rds_peer : o->peer,
		  &peer.sin_addr);
	self.sin_port = htons((uint16_t)(o->rds_port + task));
	peer.sin_port = self.sin_port;
	s = socket(AF_RDS, SOCK_SEQPACKET, 0);
	if (s < 0) {
		fprintf(stderr, "task %u: socket(AF_RDS): %s\n", task,
			strerror(errno));
		goto out;
	}
	if ((o->trans >= 0 && setsockopt(s, SOL_RDS, SO_RDS_TRANSPORT,
					 &o->trans, sizeof(o->trans)) != 0) ||
	    set_buf(s, SO_SNDBUFFORCE, SO_SNDBUF, o->bufsz) != 0 ||
	    set_buf(s, SO_RCVBUFFORCE, SO_RCVBUF, o->bufsz) != 0 ||
	    bind(s, (struct sockaddr *)&self, sizeof(self)) != 0) {
		fprintf(stderr, "task %u: set-up: %s\n", task, strerror(errno));
		goto out;
	}
	/* Bound: tell the parent, wait for go. */
	c = 'b';
	if (write(up, &c, 1) != 1 || read(go, &c, 1) != 1)
		goto out;
	t0 = now_ms();
	deadline = t0 + (uint64_t)o->wait_s * 1000;
	while (sent < to_send || got < to_get) {
		struct pollfd p = { .fd = s, .events = POLLIN };
		bool progress = false;

		if (now_ms() > deadline) {
			fprintf(stderr, "task %u: timed out (sent %u, got %u)\n",
				task, sent, got);
			goto out;
		}
		while (sent < to_send) {
			len = msg_size(dir, task, sent);
			msg_fill(sb, len, dir, task, sent);
			r = sendto(s, sb, len, MSG_DONTWAIT,
				   (struct sockaddr *)&peer, sizeof(peer));
			if (r < 0) {
				if (errno == EAGAIN || errno == ENOBUFS)
					break;
				fprintf(stderr, "task %u: sendto: %s\n", task,
					strerror(errno));
				goto out;
			}
			EVP_DigestUpdate(htx, sb, len);
			sent++;
			progress = true;
		}
		for (;;) {
			fl = sizeof(from);
			r = recvfrom(s, rb, MAX_SIZE, MSG_DONTWAIT,
				     (struct sockaddr *)&from, &fl);
			if (r < 0) {
				if (errno == EAGAIN)
					break;
				fprintf(stderr, "task %u: recvfrom: %s\n", task,
					strerror(errno));
				goto out;
			}
			elen = msg_size(1 - dir, task, got);
			msg_fill(eb, elen, 1 - dir, task, got);
			if (from.sin_addr.s_addr != peer.sin_addr.s_addr ||
			    from.sin_port != peer.sin_port ||
			    (uint32_t)r != elen || memcmp(rb, eb, elen) != 0) {
				fprintf(stderr, "task %u: message %u: got %zd "
					"bytes, expected %u (or from another "
					"sender)\n", task, got, r, elen);
				goto out;
			}
			EVP_DigestUpdate(hrx, rb, (size_t)r);
			rx_bytes += (uint64_t)r;
			got++;
			progress = true;
		}
		if (!progress)
			poll(&p, 1, sent < to_send ? 1 : 100);
	}
	res.ok = 1;
out:
	/* What this task took, for goodput (bench and test/fabric). */
	if (t0 != 0)
		printf("task %u: received %u messages, %" PRIu64 " bytes in "
		       "%" PRIu64 " ms\n", task, got, rx_bytes,
		       now_ms() - t0);
	fflush(stdout);
	res.sent = sent;
	res.received = got;
	EVP_DigestFinal_ex(htx, res.tx, NULL);
	EVP_DigestFinal_ex(hrx, res.rx, NULL);
	full_io(up, &res, sizeof(res), true);
	/* Stay until told: the peer may still need our ACKs. */
	if (read(go, &c, 1) < 0)
		c = 0;
	if (s >= 0)
		close(s);
	return res.ok ? 0 : 1;
}

static int
tcp_setup(const struct opts *o, bool active)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd, l, one = 1;
	uint64_t end = now_ms() + (uint64_t)o->wait_s * 1000;

	a.sin_port = htons(o->tcp_port);
	if (active) {
		/* Connect, retrying while the passive side starts. */
		inet_pton(AF_INET, o->peer, &a.sin_addr);
		for (;;) {
			fd = socket(AF_INET, SOCK_STREAM, 0);
			if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
				break;
			close(fd);
			if (now_ms() > end)
				return -1;
			usleep(100000);
		}
	} else {
		a.sin_addr.s_addr = htonl(INADDR_ANY);
		l = socket(AF_INET, SOCK_STREAM, 0);
		setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(l, (struct sockaddr *)&a, sizeof(a)) != 0 ||
		    listen(l, 1) != 0) {
			perror("control socket");
			return -1;
		}
		fd = accept(l, NULL, NULL);
		close(l);
	}
	if (fd >= 0)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

int
main(int argc, char **argv)
{
	struct opts o = { .tcp_port = 18999, .rds_port = 19000, .tasks = 4,
			  .msgs = 2000, .wait_s = 120, .trans = -1,
			  .bufsz = 1 << 20, .fixed = -1 };
	struct result mine[MAX_TASKS], theirs[MAX_TASKS];
	int ups[MAX_TASKS], gos[MAX_TASKS], p[2], q[2];
	pid_t pids[MAX_TASKS];
	unsigned int i, dir, bad = 0;
	bool active = false;
	char c;
	int opt, ctl, st, rc = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	g_opts = &o;
	while ((opt = getopt(argc, argv, "c:r:s:p:t:n:P:T:w:B:S:o")) != -1) {
		switch (opt) {
		case 'c': o.peer = optarg; active = true; break;
		case 'r': o.rds_peer = optarg; break;
		case 's': o.local = optarg; break;
		case 'p': o.tcp_port = (uint16_t)atoi(optarg); break;
		case 't': o.tasks = (unsigned int)atoi(optarg); break;
		case 'n': o.msgs = (unsigned int)atoi(optarg); break;
		case 'P': o.rds_port = (uint16_t)atoi(optarg); break;
		case 'w': o.wait_s = (unsigned int)atoi(optarg); break;
		case 'B': o.bufsz = atoi(optarg); break;
		case 'S': o.fixed = atol(optarg); break;
		case 'o': o.oneway = true; break;
		case 'T':
			o.trans = strcmp(optarg, "ib") == 0 ? RDS_TRANS_IB :
				  strcmp(optarg, "tcp") == 0 ? RDS_TRANS_TCP : -1;
			break;
		default:
			goto usage;
		}
	}
	if (o.local == NULL || o.tasks == 0 || o.tasks > MAX_TASKS ||
	    o.fixed > (long)MAX_SIZE)
		goto usage;
	signal(SIGPIPE, SIG_IGN);
	ctl = tcp_setup(&o, active);
	if (ctl < 0) {
		fprintf(stderr, "no control connection\n");
		return 1;
	}
	/* The passive side learns the peer from the connection. */
	if (!active) {
		static char pbuf[INET_ADDRSTRLEN];
		struct sockaddr_in a;
		socklen_t al = sizeof(a);

		getpeername(ctl, (struct sockaddr *)&a, &al);
		inet_ntop(AF_INET, &a.sin_addr, pbuf, sizeof(pbuf));
		o.peer = pbuf;
		if (full_io(ctl, &o.tasks, sizeof(o.tasks), false) != 0 ||
		    full_io(ctl, &o.msgs, sizeof(o.msgs), false) != 0)
			return 1;
	} else if (full_io(ctl, &o.tasks, sizeof(o.tasks), true) != 0 ||
		   full_io(ctl, &o.msgs, sizeof(o.msgs), true) != 0) {
		return 1;
	}
	/* Direction 0 is the active side's. */
	dir = active ? 0 : 1;
	for (i = 0; i < o.tasks; i++) {
		if (pipe(p) != 0 || pipe(q) != 0)
			return 1;
		pids[i] = fork();
		if (pids[i] == 0) {
			unsigned int j;

			/* The earlier children's pipes are not ours: their
			 * ends must close when the parent closes them. */
			for (j = 0; j < i; j++) {
				close(ups[j]);
				close(gos[j]);
			}
			close(p[0]);
			close(q[1]);
			close(ctl);
			_exit(child(&o, i, dir, p[1], q[0]));
		}
		close(p[1]);
		close(q[0]);
		ups[i] = p[0];
		gos[i] = q[1];
	}
	/* Every child bound, on both sides: go. */
	for (i = 0; i < o.tasks; i++)
		if (read(ups[i], &c, 1) != 1)
			rc = 1;
	c = rc == 0 ? 'r' : 'x';
	if (full_io(ctl, &c, 1, true) != 0 || full_io(ctl, &c, 1, false) != 0 ||
	    c != 'r')
		rc = 1;
	for (i = 0; i < o.tasks; i++)
		if (write(gos[i], "g", 1) != 1)
			rc = 1;
	for (i = 0; i < o.tasks; i++)
		if (full_io(ups[i], &mine[i], sizeof(mine[i]), false) != 0) {
			memset(&mine[i], 0, sizeof(mine[i]));
			rc = 1;
		}
	/* Swap results; then the children may go. */
	if (full_io(ctl, mine, sizeof(mine[0]) * o.tasks, true) != 0 ||
	    full_io(ctl, theirs, sizeof(theirs[0]) * o.tasks, false) != 0)
		rc = 1;
	for (i = 0; i < o.tasks; i++) {
		close(gos[i]);
		waitpid(pids[i], &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			rc = 1;
	}
	for (i = 0; i < o.tasks && rc == 0; i++) {
		if (!mine[i].ok || !theirs[i].ok ||
		    memcmp(mine[i].rx, theirs[i].tx, 32) != 0 ||
		    mine[i].received != theirs[i].sent ||
		    mine[i].received != (o.oneway && active ? 0 : o.msgs)) {
			printf("task %u: received %" PRIu64 " of %" PRIu64
			       " sent, digests %s\n", i, mine[i].received,
			       theirs[i].sent,
			       memcmp(mine[i].rx, theirs[i].tx, 32) ? "differ" :
			       "match");
			bad++;
		}
	}
	if (rc == 0 && bad == 0) {
		char hex[65];

		for (i = 0; i < 32; i++)
			snprintf(hex + 2 * i, 3, "%02x", mine[0].rx[i]);
		printf("krds_stress: %u tasks x %u messages each way, every "
		       "digest matches (task 0 rx %.16s)\n", o.tasks, o.msgs,
		       hex);
		return 0;
	}
	printf("krds_stress: FAILED (%u tasks bad)\n", bad);
	return 1;
usage:
	fprintf(stderr, "usage: krds_stress -s LOCAL [-c PEER] [-r RDS_PEER] [-p TCPPORT] "
		"[-t TASKS] [-n MSGS] [-P RDSPORT] [-T ib|tcp|none] [-w S] "
		"[-B BYTES] [-S BYTES] [-o]\n");
	return 2;
}

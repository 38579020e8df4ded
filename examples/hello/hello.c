/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hello: the smallest complete librte_rds program.
 *
 * It brings up the DPDK EAL, starts librte_rds with one inline engine and
 * two local addresses served by the in-process "loop" transport, sends one
 * message from one socket to the other and receives it.
 *
 *   ./hello -l 0 --no-pci --no-huge -m 256 --file-prefix=rds-hello \
 *           --log-level=lib.eal:error
 *
 * Every argument goes to rte_eal_init(); hello takes none of its own.
 * It prints what it received and exits 0 when the message arrived intact,
 * 1 otherwise.
 *
 * Build it against an installed librte_rds with the Makefile next to this
 * file (pkg-config librte_rds), or by hand:
 *
 *   cc -Wall -Wextra -std=gnu11 $(pkg-config --cflags librte_rds) \
 *      -o hello hello.c $(pkg-config --libs librte_rds)
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/time.h>

#include <rte_eal.h>
#include <rte_errno.h>

/* One header for the whole API: rte_rds.h includes the socket calls
 * (rte_rds_socket.h) and the counters (rte_rds_stats.h). */
#include <rte_rds.h>

#define ADDR_A "10.255.0.1"
#define ADDR_B "10.255.0.2"
#define PORT_A 4000
#define PORT_B 4001

static const char greeting[] = "hello, RDS";

/* Fill a struct sockaddr_in from a dotted address and a host-order port. */
static void
make_addr(struct sockaddr_in *sin, const char *ip, uint16_t port)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	inet_pton(AF_INET, ip, &sin->sin_addr);
}

/* Create a socket and bind it; -1 on error (message printed). */
static int
open_bound(const char *ip, uint16_t port)
{
	struct sockaddr_in sin;
	int s;

	s = rte_rds_socket();
	if (s < 0) {
		fprintf(stderr, "hello: rte_rds_socket: %s\n",
			rte_strerror(rte_errno));
		return -1;
	}
	make_addr(&sin, ip, port);
	if (rte_rds_bind(s, (const struct sockaddr *)&sin, sizeof(sin)) < 0) {
		fprintf(stderr, "hello: rte_rds_bind %s:%u: %s\n", ip, port,
			rte_strerror(rte_errno));
		rte_rds_close(s);
		return -1;
	}
	return s;
}

int
main(int argc, char **argv)
{
	struct rte_rds_conf conf;
	struct sockaddr_in to, from;
	socklen_t fromlen = sizeof(from);
	struct timeval tmo = { .tv_sec = 10, .tv_usec = 0 };
	char buf[256];
	char from_ip[INET_ADDRSTRLEN];
	ssize_t n;
	int a = -1, b = -1;
	int rc = EXIT_FAILURE;

	/*
	 * 1. The EAL. librte_rds needs it up before rte_rds_init(); the
	 * calls below run on the main lcore, which is an EAL thread, as
	 * rte_rds_engine_poll() (and so a blocking call driving an inline
	 * engine) requires.
	 */
	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "hello: rte_eal_init: %s\n",
			rte_strerror(rte_errno));
		return EXIT_FAILURE;
	}

	/*
	 * 2. The configuration. rte_rds_conf_init() gives the defaults; we
	 * spell out the engine anyway: one engine, inline, meaning no lcore
	 * of its own. Nothing polls it in the background: the application's
	 * own calls drive it (a blocking call polls it while it waits, or
	 * the application calls rte_rds_engine_poll()).
	 *
	 * Two local addresses on the "loop" transport, which carries frames
	 * between addresses of this process: no NIC, nothing on a network.
	 */
	rte_rds_conf_init(&conf);
	conf.nb_engines = 1;
	conf.engine[0].lcore_id = RTE_RDS_ENGINE_INLINE;
	if (rte_rds_conf_add_addr(&conf, ADDR_A, "loop", NULL) < 0 ||
	    rte_rds_conf_add_addr(&conf, ADDR_B, "loop", NULL) < 0) {
		fprintf(stderr, "hello: rte_rds_conf_add_addr: %s\n",
			rte_strerror(rte_errno));
		goto out_eal;
	}

	/* 3. The library instance: engine, socket table, buffers, transports. */
	if (rte_rds_init(&conf) < 0) {
		fprintf(stderr, "hello: rte_rds_init: %s\n",
			rte_strerror(rte_errno));
		goto out_eal;
	}

	/* 4. Two sockets, one on each address. As with AF_RDS, a socket
	 * must be bound before it sends or receives. */
	a = open_bound(ADDR_A, PORT_A);
	b = open_bound(ADDR_B, PORT_B);
	if (a < 0 || b < 0)
		goto out_rds;

	/* A receive timeout, so that a broken set-up fails instead of
	 * blocking forever (ETIMEDOUT). */
	if (rte_rds_setsockopt(b, SOL_SOCKET, SO_RCVTIMEO, &tmo,
			       sizeof(tmo)) < 0) {
		fprintf(stderr, "hello: rte_rds_setsockopt: %s\n",
			rte_strerror(rte_errno));
		goto out_rds;
	}

	/*
	 * 5. Send. The message is queued to the engine; RDS makes the
	 * connection between the two addresses on first use.
	 */
	make_addr(&to, ADDR_B, PORT_B);
	n = rte_rds_sendto(a, greeting, sizeof(greeting), 0,
			   (const struct sockaddr *)&to, sizeof(to));
	if (n != (ssize_t)sizeof(greeting)) {
		fprintf(stderr, "hello: rte_rds_sendto: %s\n",
			n < 0 ? rte_strerror(rte_errno) : "short send");
		goto out_rds;
	}

	/*
	 * 6. Receive, blocking. The engine is inline and nobody else polls
	 * it, so this call drives it while it waits: connect, transmit,
	 * deliver. The sender's address comes back in from.
	 */
	memset(buf, 0, sizeof(buf));
	n = rte_rds_recvfrom(b, buf, sizeof(buf), 0,
			     (struct sockaddr *)&from, &fromlen);
	if (n < 0) {
		fprintf(stderr, "hello: rte_rds_recvfrom: %s\n",
			rte_strerror(rte_errno));
		goto out_rds;
	}
	inet_ntop(AF_INET, &from.sin_addr, from_ip, sizeof(from_ip));
	printf("hello: received %zd bytes from %s:%u: \"%.*s\"\n", n, from_ip,
	       ntohs(from.sin_port), (int)strnlen(buf, (size_t)n), buf);

	/* 7. Check it: the whole message, from the right socket. */
	if (n != (ssize_t)sizeof(greeting) ||
	    memcmp(buf, greeting, sizeof(greeting)) != 0) {
		fprintf(stderr, "hello: payload differs from what was sent\n");
		goto out_rds;
	}
	if (fromlen != sizeof(from) || strcmp(from_ip, ADDR_A) != 0 ||
	    ntohs(from.sin_port) != PORT_A) {
		fprintf(stderr, "hello: wrong sender, expected %s:%u\n",
			ADDR_A, PORT_A);
		goto out_rds;
	}
	printf("hello: OK\n");
	rc = EXIT_SUCCESS;

out_rds:
	/*
	 * 8. Tear down. rte_rds_fini() would close the sockets itself;
	 * closing them first is the tidy order. Then the library, then the
	 * EAL.
	 */
	if (a >= 0)
		rte_rds_close(a);
	if (b >= 0)
		rte_rds_close(b);
	if (rte_rds_fini() < 0) {
		fprintf(stderr, "hello: rte_rds_fini: %s\n",
			rte_strerror(rte_errno));
		rc = EXIT_FAILURE;
	}
out_eal:
	rte_eal_cleanup();
	return rc;
}

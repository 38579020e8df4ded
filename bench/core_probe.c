/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A second count of the core's instructions per message, written only
 * against the public API and counted another way than rds-bench-core,
 * so that the two can check each other (bench/core.sh prints both).
 *
 * The program does what an AF_RDS application does: two sockets bound
 * on two loop addresses, blocking calls (flags 0), rte_rds_sendmsg()
 * with a msghdr naming the destination, rte_rds_recvmsg() asking for
 * the source address, and one inline engine polled between them. It
 * warms up with 1,000 messages, then counts N round trips between two
 * callgrind client requests (CALLGRIND_TOGGLE_COLLECT, valgrind's
 * callgrind.h; run with --collect-atstart=no): the collected total
 * divided by N is the figure, with nothing subtracted. Outside valgrind
 * the requests do nothing and it only checks what it received.
 *
 *   rds-bench-probe [EAL args] -- [N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <valgrind/callgrind.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include <rte_rds.h>

static void
die(const char *what)
{
	fprintf(stderr, "%s: %s\n", what, rte_strerror(rte_errno));
	exit(1);
}

static int
bound(const char *ip, uint16_t port, struct sockaddr_in *a)
{
	int s = rte_rds_socket();

	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_port = htons(port);
	inet_pton(AF_INET, ip, &a->sin_addr);
	if (s < 0 || rte_rds_bind(s, (struct sockaddr *)a, sizeof(*a)) != 0)
		die("socket/bind");
	return s;
}

/* n messages of 64 B from a to b, each received before the next. */
static uint64_t
round_trips(int a, int b, const struct sockaddr_in *to, uint64_t n)
{
	uint8_t out[64], in[64];
	struct sockaddr_in from;
	struct iovec siov = { .iov_base = out, .iov_len = sizeof(out) };
	struct iovec riov = { .iov_base = in, .iov_len = sizeof(in) };
	struct msghdr smsg = {
		.msg_name = (void *)(uintptr_t)to, .msg_namelen = sizeof(*to),
		.msg_iov = &siov, .msg_iovlen = 1,
	};
	struct msghdr rmsg;
	uint64_t i, bad = 0;

	memset(out, 0x5a, sizeof(out));
	for (i = 0; i < n; i++) {
		out[0] = (uint8_t)i;
		if (rte_rds_sendmsg(a, &smsg, 0) != (ssize_t)sizeof(out))
			bad++;
		rte_rds_engine_poll(0);
		memset(&rmsg, 0, sizeof(rmsg));
		rmsg.msg_name = &from;
		rmsg.msg_namelen = sizeof(from);
		rmsg.msg_iov = &riov;
		rmsg.msg_iovlen = 1;
		if (rte_rds_recvmsg(b, &rmsg, 0) != (ssize_t)sizeof(in) ||
		    in[0] != (uint8_t)i || from.sin_port != htons(4000))
			bad++;
	}
	return bad;
}

int
main(int argc, char **argv)
{
	struct rte_rds_conf conf;
	struct sockaddr_in sa, sb;
	uint64_t n = 20000, bad;
	int a, b, ret;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		die("rte_eal_init");
	if (argc - ret > 1)
		n = strtoull(argv[ret + 1], NULL, 0);
	rte_rds_conf_init(&conf);
	conf.engine[0].lcore_id = RTE_RDS_ENGINE_INLINE;
	conf.engine[0].idle = RTE_RDS_IDLE_BUSY;
	if (rte_rds_conf_add_addr(&conf, "10.250.0.1", "loop", NULL) != 0 ||
	    rte_rds_conf_add_addr(&conf, "10.250.0.2", "loop", NULL) != 0)
		die("conf");
	if (rte_rds_init(&conf) != 0)
		die("rte_rds_init");
	rte_rds_conf_free(&conf);
	a = bound("10.250.0.1", 4000, &sa);
	b = bound("10.250.0.2", 4001, &sb);
	bad = round_trips(a, b, &sb, 1000);
	CALLGRIND_TOGGLE_COLLECT;
	bad += round_trips(a, b, &sb, n);
	CALLGRIND_TOGGLE_COLLECT;
	printf("{\"msgs\": %llu, \"bad\": %llu}\n", (unsigned long long)n,
	       (unsigned long long)bad);
	rte_rds_close(a);
	rte_rds_close(b);
	rte_rds_fini();
	rte_eal_cleanup();
	return bad != 0;
}

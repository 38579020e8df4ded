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
 *   stream
 *        one-way: the client sends --size bytes as fast as the library
 *        takes them, no replies; the server counts what it receives while
 *        measuring (the rate reported), the client what it sent.
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
 * in-process message path is compared with. --raw-ring-pp adds a
 * two-lcore ping-pong over two SP/SC rings, the floor of a round trip that
 * crosses cores (--mode lat --engine lcore).
 *
 * With --transport ib the two sides are two processes (--role server and
 * --role client), each with its own library instance that declares its
 * --local address as "ib"; requests and replies cross a verbs RC queue
 * pair. The client says hello (mode, size, depth) from a separate control
 * socket and waits for the answer, which covers the connection set-up; then
 * it runs the same warm-up, measurement and drain as the loop transport,
 * and at the end sends "done" with its counts. The server answers with its
 * own counts and errors (stream: its count and window first), and exits.
 *
 * With --attach PATH the process is a client of an engine process
 * (rds-engined) and initialises no EAL: both sides run here, on two
 * addresses the engine serves, and every message crosses into the engine
 * and back (perf_attach.c).
 *
 * The files of the program and what each holds: perf.h.
 */

#include <stdlib.h>

#include <rte_eal.h>

#include "perf.h"

int
main(int argc, char **argv)
{
	struct perf_opts opts = { 0 };
	struct perf_ctx ctx;
	struct perf_floors floors = { 0 };
	struct perf_sweep *sweep;
	uint64_t errors;
	int ret;

	/* A client of an engine process initialises no EAL. */
	if (perf_attach_wanted(argc, argv))
		return perf_attach_main(argc, argv);

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		perf_fail("rte_eal_init() (EAL arguments go before '--', rds-perf's after)");
	argc -= ret;
	argv += ret;

	if (perf_parse_args(argc, argv, &opts) < 0) {
		perf_usage(argv[0]);
		rte_eal_cleanup();
		return PERF_EXIT_USAGE;
	}
	if (opts.raw_ring_pp && perf_raw_ring_pp_lcore() >= RTE_MAX_LCORE) {
		fprintf(stderr, "rds-perf: --raw-ring-pp needs a worker lcore; give the EAL two lcores or more, e.g. -l 0-1\n");
		rte_eal_cleanup();
		return PERF_EXIT_USAGE;
	}

	perf_ctx_init(&ctx, &opts);
	sweep = perf_sweep_new(&opts);
	if (opts.raw) {
		/* No RDS: plain frames on the eth address's port, a run
		 * per --size. */
		perf_raw_run(&ctx, &opts, sweep);
	} else {
		/* Set-up, then a run per --size (perf_sweep.c). */
		perf_sweep_rds(&ctx, &opts, sweep);
		perf_ctx_close(&ctx);
	}
	perf_ctx_free(&ctx);

	/* The floors run with the library gone, so no engine competes (and
	 * the engine's lcore is free for the ping-pong's worker). */
	if (opts.raw_ring) {
		floors.ring = true;
		floors.ring_rate = perf_raw_ring(opts.secs, &floors.ring_errors);
	}
	if (opts.raw_ring_pp)
		perf_raw_ring_pp(opts.secs, &floors);
	perf_print_floors(&floors);
	perf_sweep_end(sweep, &opts);	/* the table, --histogram */
	errors = perf_sweep_errors(sweep) + floors.ring_errors +
		floors.pp_errors;

	/* The EAL logs to stdout: clean up before the JSON line, so that it
	 * stays the last one. */
	if (rte_eal_cleanup() < 0)
		perf_fail("rte_eal_cleanup()");
	if (opts.json)
		perf_sweep_json(sweep, &floors);	/* a line per run */
	perf_sweep_free(sweep);
	fflush(stdout);
	return errors != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

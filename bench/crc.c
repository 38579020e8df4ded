/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rds-bench-crc: the eth transport's CRC32C (drivers/rds/eth/
 * rds_eth_crc.c) alone, serial against interleaved, per buffer size:
 * nanoseconds per buffer, per byte and GB/s, the median of --runs runs
 * (implementations and sizes round-robin within a run, so that the
 * machine's noise falls on all). Each CRC starts from the previous
 * one's result, as a chain: the time of one CRC, not of several
 * overlapping. No EAL.
 *
 *   rds-bench-crc [--runs N] [--bytes B] [--sizes 64,1024,...]
 *
 * --bytes: bytes hashed per size, implementation and run (default 64 MiB).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rds_eth.h"

#define MAX_SIZES 16
#define MAX_RUNS 101
#define NB_IMPL 3

static const char *const impl_name[NB_IMPL] = {
	"serial (crc32 instr)", "interleaved", "serial (DPDK table)",
};

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int
impl_set(int i)
{
	if (i == 1)
		return rds_eth_crc_impl_set(RDS_ETH_CRC_INTERLEAVED, false);
	return rds_eth_crc_impl_set(RDS_ETH_CRC_SERIAL, i == 2);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "runs", required_argument, NULL, 'r' },
		{ "bytes", required_argument, NULL, 'b' },
		{ "sizes", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	static double ns[NB_IMPL][MAX_SIZES][MAX_RUNS];
	uint32_t sizes[MAX_SIZES] = { 64, 1024, 1432, 8192, 8932, 65536 };
	unsigned int nb_sizes = 6, runs = 11, s, r, i, k;
	unsigned long long bytes = 64ull << 20;
	volatile uint32_t sink = 0;
	uint32_t crc, iters;
	uint8_t *buf;
	char *tok, *save;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			runs = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'b':
			bytes = strtoull(optarg, NULL, 0);
			break;
		case 's':
			nb_sizes = 0;
			for (tok = strtok_r(optarg, ",", &save);
			     tok != NULL && nb_sizes < MAX_SIZES;
			     tok = strtok_r(NULL, ",", &save))
				sizes[nb_sizes++] = (uint32_t)strtoul(tok,
								     NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: %s [--runs N] [--bytes B] "
				"[--sizes 64,1024,...]\n", argv[0]);
			return 2;
		}
	}
	if (runs == 0 || runs > MAX_RUNS || nb_sizes == 0 || bytes == 0) {
		fprintf(stderr, "bad --runs (1..%d), --sizes or --bytes\n",
			MAX_RUNS);
		return 2;
	}
	for (s = 0; s < nb_sizes; s++) {
		if (sizes[s] == 0 || sizes[s] > (1u << 24)) {
			fprintf(stderr, "bad size %u\n", sizes[s]);
			return 2;
		}
	}
	buf = malloc(1u << 24);
	if (buf == NULL)
		return 1;
	for (k = 0; k < (1u << 24); k++)
		buf[k] = (uint8_t)(k * 2654435761u >> 24);
	if (impl_set(1) != 0)
		printf("no SSE4.2+PCLMULQDQ: the interleaved column is the "
		       "serial code\n");

	for (r = 0; r < runs; r++) {
		for (s = 0; s < nb_sizes; s++) {
			iters = (uint32_t)(bytes / sizes[s]);
			if (iters == 0)
				iters = 1;
			for (i = 0; i < NB_IMPL; i++) {
				double t0;

				impl_set(i);
				crc = UINT32_MAX;
				t0 = now_ns();
				for (k = 0; k < iters; k++)
					crc = rds_eth_crc_update(crc, buf,
								 sizes[s]);
				ns[i][s][r] = (now_ns() - t0) / iters;
				sink ^= crc;
			}
		}
	}
	impl_set(1);

	printf("CRC32C, median of %u runs, %llu bytes per size and run\n",
	       runs, bytes);
	printf("%-8s %-22s %12s %10s %8s %10s\n", "bytes", "implementation",
	       "ns/buffer", "ns/byte", "GB/s", "x serial");
	for (s = 0; s < nb_sizes; s++) {
		double med[NB_IMPL];

		for (i = 0; i < NB_IMPL; i++) {
			qsort(ns[i][s], runs, sizeof(double), cmp_double);
			med[i] = ns[i][s][runs / 2];
		}
		for (i = 0; i < NB_IMPL; i++)
			printf("%-8u %-22s %12.1f %10.4f %8.2f %9.2fx\n",
			       sizes[s], impl_name[i], med[i],
			       med[i] / sizes[s], sizes[s] / med[i],
			       med[0] / med[i]);
	}
	free(buf);
	(void)sink;
	return 0;
}

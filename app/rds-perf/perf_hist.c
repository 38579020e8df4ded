/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rds-perf --histogram FILE and --plot FILE.png: the RTT CDF of each run.
 *
 * The file holds one gnuplot data block per size (blocks apart by two
 * blank lines: gnuplot's "index"), each after a comment naming the run,
 * in two columns: an RTT in ns (a full round trip) and the fraction of
 * the round trips kept that took that long or less. Points are taken
 * where the value changes, about 2000 over the body and finer in the
 * tail (the last 1 %), and always the last (fraction 1).
 *
 * --plot draws the file with gnuplot (Debian: gnuplot-nox), a line per
 * size, the RTT on a log scale; without --histogram the data go to a
 * temporary file. When gnuplot is missing it says so, and the run still
 * succeeds.
 */

#include <inttypes.h>
#include <stdlib.h>
#include <unistd.h>

#include "perf.h"

/* Where --plot's data go without --histogram. */
static char perf_hist_tmp[64];

FILE *
perf_hist_open(const char *path)
{
	FILE *f;
	int fd;

	if (path == NULL) {
		snprintf(perf_hist_tmp, sizeof(perf_hist_tmp),
			 "/tmp/rds-perf-cdf.XXXXXX");
		fd = mkstemp(perf_hist_tmp);
		if (fd < 0 || (f = fdopen(fd, "w")) == NULL)
			perf_die("--plot: cannot make a temporary file: %s",
				 strerror(errno));
		return f;
	}
	f = fopen(path, "w");
	if (f == NULL)
		perf_die("--histogram: cannot open %s: %s", path,
			 strerror(errno));
	fprintf(f, "# rds-perf RTT CDF: ns (full round trip), fraction of round trips <= ns\n");
	return f;
}

/* One run's block (the log is sorted: perf_result() ran). */
void
perf_hist_write(FILE *f, const struct perf_ctx *ctx)
{
	const struct perf_rtt *r = &ctx->rtt;
	const uint64_t hz = perf_tsc_hz();
	const size_t body = r->n / 2000 > 0 ? r->n / 2000 : 1;
	size_t i, last = 0, step;

	fprintf(f, "# size %u, mode %s, %zu samples\n", ctx->o->size,
		perf_mode_name(ctx->o->mode), r->n);
	for (i = 0; i < r->n; i++) {
		if (i + 1 < r->n) {
			if (r->v[i + 1] == r->v[i])
				continue;
			step = r->n - i > r->n / 100 ? body :
				RTE_MAX((r->n - i) / 200, (size_t)1);
			if (i + 1 - last < step)
				continue;
		}
		last = i + 1;
		fprintf(f, "%" PRIu64 " %.7f\n", perf_cycles_ns(r->v[i], hz),
			(double)(i + 1) / (double)r->n);
	}
	fprintf(f, "\n\n");
}

/* Close the file; --plot: draw it. 0, or -1 when the file could not be
 * written (gnuplot missing or failing is said, not an error). */
int
perf_hist_close(FILE *f, const struct perf_opts *o)
{
	const char *data = o->histogram != NULL ? o->histogram : perf_hist_tmp;
	char cmd[8192];
	unsigned int i;
	int ret = 0, n;

	if (ferror(f) || fclose(f) != 0) {
		fprintf(stderr, "rds-perf: could not write %s\n", data);
		ret = -1;
	}
	if (o->plot != NULL && ret == 0) {
		if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
			fprintf(stderr, "rds-perf: --plot: gnuplot is missing (Debian: apt-get install gnuplot-nox); %s not drawn\n",
				o->plot);
		} else {
			n = snprintf(cmd, sizeof(cmd),
				     "gnuplot -e \"set terminal png size 900,600; set output '%s'; "
				     "set logscale x; set xlabel 'RTT, ns (full round trip)'; "
				     "set ylabel 'fraction of round trips'; set key bottom right; set grid; "
				     "set title 'rds-perf %s %s, RTT CDF'; plot",
				     o->plot, perf_transport_name(o->transport),
				     perf_mode_name(o->mode));
			for (i = 0; i < o->nb_sizes && n < (int)sizeof(cmd); i++)
				n += snprintf(cmd + n, sizeof(cmd) - n,
					      "%s '%s' index %u using 1:2 with lines title '%u B'",
					      i > 0 ? "," : "", data, i,
					      o->sizes[i]);
			if (n < (int)sizeof(cmd))
				n += snprintf(cmd + n, sizeof(cmd) - n, "\"");
			if (n >= (int)sizeof(cmd) || system(cmd) != 0)
				fprintf(stderr, "rds-perf: --plot: gnuplot failed; %s not drawn\n",
					o->plot);
			else
				printf("rds-perf: RTT CDF drawn in %s\n", o->plot);
		}
	}
	if (o->histogram == NULL)
		unlink(perf_hist_tmp);
	else if (ret == 0)
		printf("rds-perf: RTT CDF written to %s\n", o->histogram);
	return ret;
}

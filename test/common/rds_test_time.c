/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test helpers (see rds_test.h): time, deadlines
 * and numbers from the environment (the watchdog is in rds_test.c).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rds_test.h"

/* ------------------------------------------------------------------ */
/* Time */

uint64_t
rds_test_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

double
rds_test_since_s(uint64_t t0)
{
	return (double)(rds_test_now_ns() - t0) / 1e9;
}

void
rds_test_usleep(unsigned int us)
{
	struct timespec ts = {
		.tv_sec = us / 1000000,
		.tv_nsec = (long)(us % 1000000) * 1000,
	};

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

void
rds_test_deadline_init(struct rds_test_deadline *d, unsigned int stall_s,
		       unsigned int total_s)
{
	d->start = rds_test_now_ns();
	d->last_progress = d->start;
	d->stall_ns = (uint64_t)stall_s * 1000000000ULL;
	d->total_ns = (uint64_t)total_s * 1000000000ULL;
}

void
rds_test_deadline_progress(struct rds_test_deadline *d)
{
	d->last_progress = rds_test_now_ns();
}

bool
rds_test_deadline_expired(const struct rds_test_deadline *d, const char *what)
{
	uint64_t now = rds_test_now_ns();

	if (d->stall_ns > 0 && now - d->last_progress > d->stall_ns) {
		printf("  TIMEOUT: %s: no progress for %.1f s\n", what,
		       (double)(now - d->last_progress) / 1e9);
		return true;
	}
	if (d->total_ns > 0 && now - d->start > d->total_ns) {
		printf("  TIMEOUT: %s: still running after %.1f s\n", what,
		       (double)(now - d->start) / 1e9);
		return true;
	}
	return false;
}

/* ------------------------------------------------------------------ */
/* Environment */

uint64_t
rds_test_env_u64(const char *name, uint64_t def)
{
	const char *v = getenv(name);
	unsigned long long x;
	char *end = NULL;

	if (v == NULL || v[0] == '\0')
		return def;
	errno = 0;
	x = strtoull(v, &end, 0);
	if (errno != 0 || end == v || *end != '\0') {
		printf("%s=%s: not a number, using %" PRIu64 "\n", name, v,
		       def);
		return def;
	}
	return x;
}

/* SPDX-License-Identifier: BSD-3-Clause */

/* rds-perf utilities: failures and verification errors, addresses,
 * send push-back. */

#include <stdarg.h>
#include <stdlib.h>

#include "perf.h"

/* A library call failed: print the call and rte_errno, exit 1. */
__rte_noreturn __rte_format_printf(1, 2) void
perf_fail(const char *fmt, ...)
{
	int err = rte_errno;
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "rds-perf: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " failed: %s (rte_errno %d)\n", rte_strerror(err), err);
	exit(EXIT_FAILURE);
}

/* Something other than a library call failed (out of memory, ...): exit 1. */
__rte_noreturn __rte_format_printf(1, 2) void
perf_die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "rds-perf: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(EXIT_FAILURE);
}

/* The data were wrong: count it, print the first few. */
__rte_format_printf(2, 3) void
perf_error(struct perf_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	ctx->errors++;
	if (ctx->errors > PERF_ERR_PRINT_MAX)
		return;
	fflush(stdout);
	fprintf(stderr, "rds-perf: error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	if (ctx->errors == PERF_ERR_PRINT_MAX)
		fprintf(stderr, "rds-perf: further errors are only counted\n");
}

const char *
perf_sin_str(const struct sockaddr_in *sin, char *buf, size_t len)
{
	char ip[INET_ADDRSTRLEN];

	if (inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof(ip)) == NULL)
		snprintf(ip, sizeof(ip), "?");
	snprintf(buf, len, "%s:%u", ip, ntohs(sin->sin_port));
	return buf;
}

/* A send was refused: retry later on push-back, fail on anything else. */
void
perf_send_pushback(struct perf_ctx *ctx, const char *call)
{
	if (rte_errno == EAGAIN)
		ctx->eagain++;	/* our send buffer is full */
	else if (rte_errno == ENOBUFS)
		ctx->enobufs++;	/* the destination port is congested */
	else
		perf_fail("%s", call);
}

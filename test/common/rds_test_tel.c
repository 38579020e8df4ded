/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The EAL's telemetry socket from a test (rds_test.h): connect, send a
 * command, read its reply with the inline engines driven meanwhile, and
 * an integer out of the JSON text.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <rte_eal.h>

#include "rds_test.h"

int
rds_test_tel_open(void)
{
	struct sockaddr_un sun;
	char path[sizeof(sun.sun_path)], greet[1024];
	const char *dir = rte_eal_get_runtime_dir();
	struct stat sb;
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "%s/dpdk_telemetry.v2",
		 dir != NULL ? dir : "?");
	if (stat(path, &sb) != 0) {
		printf("  TELEMETRY CHECK SKIPPED: %s: %s (EAL telemetry "
		       "disabled or not built)\n", path, strerror(errno));
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		printf("  TELEMETRY CHECK SKIPPED: socket: %s\n",
		       strerror(errno));
		return -1;
	}
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0) {
		printf("  TELEMETRY CHECK SKIPPED: connect %s: %s\n", path,
		       strerror(errno));
		close(fd);
		return -1;
	}
	/* The greeting: {"version": ..., "pid": ..., "max_output_len": ...} */
	r = recv(fd, greet, sizeof(greet) - 1, 0);
	if (r <= 0 || (greet[r] = '\0', strstr(greet, "max_output_len") ==
				  NULL)) {
		printf("  telemetry %s: no greeting\n", path);
		close(fd);
		return -2;
	}
	printf("  telemetry %s: %s\n", path, greet);
	return fd;
}

ssize_t
rds_test_tel_cmd(int fd, const char *cmd, char *buf, size_t size, bool kick,
		 uint64_t *ms)
{
	uint64_t t0 = rds_test_now_ns();
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t r;

	if (send(fd, cmd, strlen(cmd), 0) < 0) {
		printf("  telemetry send %s: %s\n", cmd, strerror(errno));
		return -1;
	}
	for (;;) {
		if (poll(&p, 1, kick ? 1 : 100) > 0) {
			r = recv(fd, buf, size - 1, 0);
			if (r < 0) {
				printf("  telemetry recv: %s\n",
				       strerror(errno));
				return -1;
			}
			buf[r] = '\0';
			*ms = (rds_test_now_ns() - t0) / 1000000ULL;
			return r;
		}
		if (!kick)
			return -2;	/* nothing within 100 ms */
		rds_test_kick();
		if (rds_test_now_ns() - t0 > 5000000000ULL) {
			printf("  telemetry %s: no reply in 5 s\n", cmd);
			return -1;
		}
	}
}

long
rds_test_json_int(const char *json, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(json, pat);
	if (p == NULL)
		return -1;
	p += strlen(pat);
	while (*p == ' ')
		p++;
	return strtol(p, NULL, 10);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared pieces of the librte_rds fuzz targets (see fuzz_common.h). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "fuzz_common.h"

unsigned int fz_step;
bool fz_trace;

void
fz_trace_printf(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "[%u] ", fz_step);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
}

#define FZ_EAL_MAX_ARGS 32

static char fz_runtime_dir[PATH_MAX];

/* Remove a runtime directory of ours (rdsfz-*) and its files. */
static void
fz_rm_runtime_dir(const char *dir)
{
	char path[PATH_MAX + 256];
	struct dirent *de;
	DIR *d;

	if (dir[0] == '\0' || strstr(dir, "/rdsfz-") == NULL)
		return;
	d = opendir(dir);
	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

static void
fz_eal_atexit(void)
{
	fz_rm_runtime_dir(fz_runtime_dir);
}

/* Runtime directories of earlier runs that crashed (a crash does not run
 * atexit handlers): rdsfz-<name>-<pid> of a process that is gone. */
static void
fz_sweep_stale(void)
{
	char parent[PATH_MAX], path[PATH_MAX + 256];
	struct dirent *de;
	const char *dash;
	char *slash, *end;
	long pid;
	DIR *d;

	snprintf(parent, sizeof(parent), "%s", fz_runtime_dir);
	slash = strrchr(parent, '/');
	if (slash == NULL)
		return;
	*slash = '\0';
	d = opendir(parent);
	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "rdsfz-", 6) != 0)
			continue;
		dash = strrchr(de->d_name, '-');
		pid = strtol(dash + 1, &end, 10);
		if (*end != '\0' || pid <= 0 || pid == (long)getpid() ||
		    kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", parent, de->d_name);
		fz_rm_runtime_dir(path);
	}
	closedir(d);
}

void
fz_eal_init(const char *name)
{
	static char prefix[64], extra[512];
	static bool up;
	char *argv[FZ_EAL_MAX_ARGS];
	const char *env;
	char *tok, *save = NULL;
	int argc = 0;

	if (up)
		return;
	fz_trace = getenv("RDS_FUZZ_TRACE") != NULL;
	snprintf(prefix, sizeof(prefix), "--file-prefix=rdsfz-%s-%d", name,
		 (int)getpid());
	argv[argc++] = (char *)(uintptr_t)name;
	argv[argc++] = (char *)(uintptr_t)"-l";
	argv[argc++] = (char *)(uintptr_t)"0";
	argv[argc++] = (char *)(uintptr_t)"--no-pci";
	argv[argc++] = (char *)(uintptr_t)"--no-huge";
	argv[argc++] = (char *)(uintptr_t)"-m";
	argv[argc++] = (char *)(uintptr_t)"256";
	argv[argc++] = (char *)(uintptr_t)"--no-shconf";
	argv[argc++] = (char *)(uintptr_t)"--no-telemetry";
	argv[argc++] = prefix;
	argv[argc++] = (char *)(uintptr_t)"--log-level=*:error";
	env = getenv("RDS_FUZZ_EAL_ARGS");
	if (env != NULL) {
		snprintf(extra, sizeof(extra), "%s", env);
		for (tok = strtok_r(extra, " \t", &save);
		     tok != NULL && argc < FZ_EAL_MAX_ARGS - 1;
		     tok = strtok_r(NULL, " \t", &save))
			argv[argc++] = tok;
	}
	argv[argc] = NULL;
	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "%s: rte_eal_init failed: %s\n", name,
			rte_strerror(rte_errno));
		exit(1);
	}
	up = true;
	snprintf(fz_runtime_dir, sizeof(fz_runtime_dir), "%s",
		 rte_eal_get_runtime_dir());
	atexit(fz_eal_atexit);
	fz_sweep_stale();
}

void
fz_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "\nORACLE VIOLATION (step %u): ", fz_step);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	fflush(stderr);
	fz_rm_runtime_dir(fz_runtime_dir);	/* abort() skips atexit */
	abort();
}

size_t
fz_bytes(struct fz_in *in, void *dst, size_t n)
{
	size_t k = RTE_MIN(n, in->left);

	memcpy(dst, in->p, k);
	if (k < n) {
		memset((uint8_t *)dst + k, 0, n - k);
		in->eof = true;
	}
	in->p += k;
	in->left -= k;
	return k;
}

uint64_t
fz_hash(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

void
fz_pattern(void *dst, size_t n, uint64_t seed)
{
	uint8_t *d = dst;
	uint64_t x = seed, z;
	size_t i, k;

	for (i = 0; i < n; i += 8) {
		x += 0x9e3779b97f4a7c15ULL;
		z = x;
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		z ^= z >> 31;
		k = RTE_MIN((size_t)8, n - i);
		memcpy(d + i, &z, k);
	}
}

/* ------------------------------------------------------------------ */
/* Wire header */

static const uint8_t fz_ext_sizes[FZ_EXT_MAX] = {
	[FZ_EXT_VERSION] = 4,
	[FZ_EXT_RDMA] = 4,
	[FZ_EXT_RDMA_DEST] = 8,
	[FZ_EXT_RDMA_BYTES] = 8,
	[FZ_EXT_NPATHS] = 2,
	[FZ_EXT_GEN_NUM] = 4,
	[FZ_EXT_SPORT_IDX] = 1,
};

unsigned int
fz_ext_size(unsigned int type)
{
	return type < FZ_EXT_MAX ? fz_ext_sizes[type] : 0;
}

static void
put_be(uint8_t *p, uint64_t v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

static uint64_t
get_be(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* Layout (net/rds/rds.h struct rds_header): sequence 0..7, ack 8..15,
 * len 16..19, sport 20..21, dport 22..23, flags 24, credit 25, padding
 * 26..29, checksum 30..31, extension space 32..47. */
void
fz_hdr_encode(const struct fz_hdr *h, uint8_t w[FZ_HDR_SIZE])
{
	memset(w, 0, FZ_HDR_SIZE);
	put_be(w + 0, h->seq, 8);
	put_be(w + 8, h->ack, 8);
	put_be(w + 16, h->len, 4);
	put_be(w + 20, h->sport, 2);
	put_be(w + 22, h->dport, 2);
	w[24] = h->flags;
	w[25] = h->credit;
	put_be(w + 30, h->csum, 2);
	memcpy(w + FZ_EXT_OFF, h->ext, FZ_EXT_SPACE);
}

void
fz_hdr_decode(const uint8_t w[FZ_HDR_SIZE], struct fz_hdr *h)
{
	h->seq = get_be(w + 0, 8);
	h->ack = get_be(w + 8, 8);
	h->len = (uint32_t)get_be(w + 16, 4);
	h->sport = (uint16_t)get_be(w + 20, 2);
	h->dport = (uint16_t)get_be(w + 22, 2);
	h->flags = w[24];
	h->credit = w[25];
	h->csum = (uint16_t)get_be(w + 30, 2);
	memcpy(h->ext, w + FZ_EXT_OFF, FZ_EXT_SPACE);
}

/* One's complement sum of 16-bit big-endian words. */
static uint16_t
fz_csum16(const uint8_t *p, size_t n)
{
	uint32_t s = 0;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

void
fz_hdr_csum_fix(uint8_t w[FZ_HDR_SIZE])
{
	uint16_t c;

	w[30] = w[31] = 0;
	c = (uint16_t)~fz_csum16(w, FZ_HDR_SIZE);
	put_be(w + 30, c, 2);
}

bool
fz_hdr_csum_ok(const uint8_t w[FZ_HDR_SIZE])
{
	if (w[30] == 0 && w[31] == 0)
		return true;
	return fz_csum16(w, FZ_HDR_SIZE) == 0xffff;
}

static void
ext_take(struct fz_ext_view *v, unsigned int type, const uint8_t *p)
{
	if (type == FZ_EXT_RDMA && v->n_key < FZ_EXT_VALS)
		v->key[v->n_key++] = (uint32_t)get_be(p, 4);
	if (type == FZ_EXT_RDMA_DEST && v->n_dest < FZ_EXT_VALS)
		v->dest[v->n_dest++] = get_be(p, 4) | get_be(p + 4, 4) << 32;
}

void
fz_ext_view(const uint8_t ext[FZ_EXT_SPACE], struct fz_ext_view *v)
{
	unsigned int off = 0, type, sz;
	bool strict = true;

	memset(v, 0, sizeof(*v));
	v->clean = true;
	while (off < FZ_EXT_SPACE) {
		type = ext[off];
		if (type == FZ_EXT_NONE || type >= FZ_EXT_MAX)
			break;
		sz = fz_ext_sizes[type];
		if (off + 1 + sz > FZ_EXT_SPACE) {
			/* Cut off by the end of the space: the kernel stops
			 * (and takes the frame), a receiver may refuse it. */
			if (strict)
				v->clean = false;
			break;
		}
		if (sz == 0 && strict) {
			/* Unknown type: the strict reading ends here; the
			 * kernel steps over it as one byte. */
			strict = false;
			v->n_key_strict = v->n_key;
			v->n_dest_strict = v->n_dest;
		}
		if (sz != 0)
			ext_take(v, type, &ext[off + 1]);
		off += 1 + sz;
	}
	if (strict) {
		v->n_key_strict = v->n_key;
		v->n_dest_strict = v->n_dest;
	}
}

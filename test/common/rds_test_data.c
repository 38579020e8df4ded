/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test helpers (see rds_test.h): the deterministic PRNG, the byte filler
 * and the running SHA-256 (one, or a matrix per sender and receiver).
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "rds_test.h"

/* ------------------------------------------------------------------ */
/* PRNG */

uint64_t
rds_test_mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t
rds_test_rand(uint64_t *state)
{
	*state += 0x9e3779b97f4a7c15ULL;
	return rds_test_mix64(*state);
}

uint64_t
rds_test_rand_range(uint64_t *state, uint64_t lo, uint64_t hi)
{
	uint64_t span;

	if (hi <= lo)
		return lo;
	span = hi - lo + 1;
	if (span == 0)	/* the whole 64-bit range */
		return rds_test_rand(state);
	return lo + rds_test_rand(state) % span;
}

void
rds_test_fill(void *buf, size_t len, uint64_t key)
{
	uint8_t *p = buf;
	uint64_t st = key, w;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		w = rds_test_rand(&st);
		memcpy(p + i, &w, 8);
	}
	if (i < len) {
		w = rds_test_rand(&st);
		memcpy(p + i, &w, len - i);
	}
}

/* ------------------------------------------------------------------ */
/* SHA-256 */

int
rds_test_sha_init(struct rds_test_sha *h)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	memset(h, 0, sizeof(*h));
	if (ctx == NULL)
		return -1;
	if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
		EVP_MD_CTX_free(ctx);
		return -1;
	}
	h->ctx = ctx;
	return 0;
}

void
rds_test_sha_update(struct rds_test_sha *h, const void *data, size_t len)
{
	if (len > 0)
		EVP_DigestUpdate(h->ctx, data, len);
	h->bytes += len;
	h->msgs++;
}

void
rds_test_sha_peek(const struct rds_test_sha *h, uint8_t out[RDS_TEST_SHA_LEN])
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	unsigned int n = 0;

	memset(out, 0, RDS_TEST_SHA_LEN);
	if (c == NULL)
		return;
	if (EVP_MD_CTX_copy_ex(c, h->ctx) == 1)
		EVP_DigestFinal_ex(c, out, &n);
	EVP_MD_CTX_free(c);
}

void
rds_test_sha_free(struct rds_test_sha *h)
{
	if (h->ctx != NULL)
		EVP_MD_CTX_free(h->ctx);
	h->ctx = NULL;
}

const char *
rds_test_sha_hex(const uint8_t d[RDS_TEST_SHA_LEN], char *buf)
{
	unsigned int i;

	for (i = 0; i < RDS_TEST_SHA_LEN; i++)
		sprintf(buf + 2 * i, "%02x", d[i]);
	buf[2 * RDS_TEST_SHA_LEN] = '\0';
	return buf;
}

int
rds_test_sha_matrix_init(struct rds_test_sha_matrix *m, unsigned int n)
{
	unsigned int i;

	m->n = n;
	m->h = calloc((size_t)n * n, sizeof(*m->h));
	if (m->h == NULL)
		return -1;
	for (i = 0; i < n * n; i++) {
		if (rds_test_sha_init(&m->h[i]) != 0) {
			rds_test_sha_matrix_free(m);
			return -1;
		}
	}
	return 0;
}

struct rds_test_sha *
rds_test_sha_matrix_at(struct rds_test_sha_matrix *m, unsigned int src,
		       unsigned int dst)
{
	return &m->h[src * m->n + dst];
}

void
rds_test_sha_matrix_msg(struct rds_test_sha_matrix *m, unsigned int src,
			unsigned int dst, const void *data, size_t len)
{
	struct rds_test_sha *h = rds_test_sha_matrix_at(m, src, dst);
	uint32_t l = (uint32_t)len;

	EVP_DigestUpdate(h->ctx, &l, sizeof(l));
	rds_test_sha_update(h, data, len);
}

void
rds_test_sha_matrix_free(struct rds_test_sha_matrix *m)
{
	unsigned int i;

	if (m->h == NULL)
		return;
	for (i = 0; i < m->n * m->n; i++)
		rds_test_sha_free(&m->h[i]);
	free(m->h);
	m->h = NULL;
}

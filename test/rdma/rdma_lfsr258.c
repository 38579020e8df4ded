/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lfsr258 predictor (rdma_lfsr258.h). The generator, per component
 * z with its constants (a, b, c, d):
 *
 *     z = ((z & c) << d) ^ (((z << a) ^ z) >> b)
 *
 * and the output is z1 ^ z2 ^ z3 ^ z4 ^ z5 after the step: shifts, a
 * constant mask and XORs, so the same operations on forms instead of bits
 * give every output bit as a form of the starting state.
 */
#include <string.h>

#include "rdma_lfsr258.h"

static const struct {
	unsigned int a, b, d;
	uint64_t c;
} comp[5] = {
	{ 1, 53, 10, 18446744073709551614ULL },
	{ 24, 50, 5, 18446744073709551104ULL },
	{ 3, 23, 29, 18446744073709547520ULL },
	{ 5, 24, 23, 18446744073709420544ULL },
	{ 3, 33, 8, 18446744073701163008ULL },
};

static void
form_xor(struct lfsr258_form *x, const struct lfsr258_form *y)
{
	unsigned int i;

	for (i = 0; i < LFSR258_WORDS; i++)
		x->w[i] ^= y->w[i];
}

static bool
form_bit(const struct lfsr258_form *x, unsigned int b)
{
	return (x->w[b / 64] >> (b % 64)) & 1;
}

void
lfsr258_init(struct lfsr258_pred *p)
{
	unsigned int k, j;

	memset(p, 0, sizeof(*p));
	for (k = 0; k < 5; k++)
		for (j = 0; j < 64; j++)
			p->z[k][j].w[k] = 1ULL << j;
}

/* One step of every component, on forms. */
static void
step(struct lfsr258_pred *p)
{
	struct lfsr258_form t[64], n[64];
	unsigned int k, j;

	for (k = 0; k < 5; k++) {
		const struct lfsr258_form *z = p->z[k];

		/* t = (z << a) ^ z */
		for (j = 0; j < 64; j++) {
			t[j] = z[j];
			if (j >= comp[k].a)
				form_xor(&t[j], &z[j - comp[k].a]);
		}
		/* n = ((z & c) << d) ^ (t >> b) */
		memset(n, 0, sizeof(n));
		for (j = 0; j < 64; j++) {
			if (j >= comp[k].d &&
			    ((comp[k].c >> (j - comp[k].d)) & 1))
				n[j] = z[j - comp[k].d];
			if (j + comp[k].b < 64)
				form_xor(&n[j], &t[j + comp[k].b]);
		}
		memcpy(p->z[k], n, sizeof(n));
	}
}

static struct lfsr258_form
out_bit(const struct lfsr258_pred *p, unsigned int j)
{
	struct lfsr258_form f = p->z[0][j];
	unsigned int k;

	for (k = 1; k < 5; k++)
		form_xor(&f, &p->z[k][j]);
	return f;
}

/* Reduce f (with value *v) by the equations, lowest bit first: each
 * equation's form has its pivot as its lowest bit, so XORing it in
 * changes only higher bits. Returns the first bit left with no
 * equation, or LFSR258_VARS when f reduced to nothing. */
static unsigned int
reduce(const struct lfsr258_pred *p, struct lfsr258_form *f, uint8_t *v)
{
	unsigned int b;

	for (b = 0; b < LFSR258_VARS; b++) {
		if (!form_bit(f, b))
			continue;
		if (!p->has[b])
			return b;
		form_xor(f, &p->row[b]);
		*v ^= p->val[b];
	}
	return LFSR258_VARS;
}

void
lfsr258_observe(struct lfsr258_pred *p, uint64_t v, unsigned int nbits)
{
	struct lfsr258_form f;
	unsigned int j, b;
	uint8_t x;

	step(p);
	for (j = 0; j < nbits && j < 64; j++) {
		f = out_bit(p, j);
		x = (v >> j) & 1;
		b = reduce(p, &f, &x);
		if (b == LFSR258_VARS) {
			if (x != 0)
				p->inconsistent = true;
			continue;
		}
		p->row[b] = f;
		p->val[b] = x;
		p->has[b] = true;
		p->rank++;
	}
}

bool
lfsr258_predict(struct lfsr258_pred *p, uint64_t *v)
{
	struct lfsr258_form f;
	bool known = true;
	unsigned int j;
	uint8_t x;

	step(p);
	*v = 0;
	for (j = 0; j < 64; j++) {
		f = out_bit(p, j);
		x = 0;
		if (reduce(p, &f, &x) != LFSR258_VARS)
			known = false;
		*v |= (uint64_t)x << j;
	}
	return known && !p->inconsistent;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDS atomics over the transport of the run (loop or eth: --transport=,
 * rdma_common.h): RDS_CMSG_ATOMIC_FADD, _CSWP and the masked variants,
 * run by the server (address 2) against 64-bit words of a region the
 * client (address 1) registered with
 * RDS_RDMA_READWRITE. struct rds_atomic_args: cookie, local_addr (where
 * the old value goes), remote_addr (offset within the region).
 *
 * Semantics (InfiniBand, as the kernel issues every RDS atomic as a masked
 * atomic, net/rds/rdma.c rds_cmsg_atomic):
 *   FADD:        new = old + add
 *   CSWP:        new = old == compare ? swap : old
 *   masked FADD: the word is cut into fields ending at each bit set in
 *                nocarry_mask (and at bit 63); each field is added
 *                separately, the carry out of a field is discarded
 *   masked CSWP: if (old & compare_mask) == (compare & compare_mask):
 *                new = (old & ~swap_mask) | (swap & swap_mask)
 * and in every case the old value is returned, also when the compare
 * fails (memory then unchanged); a failed compare is not an error: the
 * notification says RDS_RDMA_SUCCESS.
 *
 * The reference functions below are written independently of the
 * library (field-wise, not bit-wise).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include <rte_errno.h>
#include <rte_rds.h>

#include "rdma_common.h"

#define SENTINEL 0xDEADBEEFCAFEF00DULL

/* ------------------------------------------------------------------ */
/* Reference semantics */

static uint64_t
ref_mfadd(uint64_t old, uint64_t add, uint64_t nocarry)
{
	uint64_t res = 0, fm;
	unsigned int b, start = 0, width;

	for (b = 0; b < 64; b++) {
		if (!((nocarry >> b) & 1) && b != 63)
			continue;
		width = b - start + 1;
		fm = width == 64 ? ~0ULL : ((1ULL << width) - 1) << start;
		res |= ((old & fm) + (add & fm)) & fm;
		start = b + 1;
	}
	return res;
}

static uint64_t
ref_mcswp(uint64_t old, uint64_t cmp, uint64_t swap, uint64_t cm,
	  uint64_t sm)
{
	if (((old ^ cmp) & cm) != 0)
		return old;
	return (old & ~sm) | (swap & sm);
}

static uint64_t
ref_new(int type, uint64_t old, const struct rds_atomic_args *a)
{
	switch (type) {
	case RDS_CMSG_ATOMIC_FADD:
		return old + a->fadd.add;
	case RDS_CMSG_ATOMIC_CSWP:
		return old == a->cswp.compare ? a->cswp.swap : old;
	case RDS_CMSG_MASKED_ATOMIC_FADD:
		return ref_mfadd(old, a->m_fadd.add, a->m_fadd.nocarry_mask);
	default:
		return ref_mcswp(old, a->m_cswp.compare, a->m_cswp.swap,
				 a->m_cswp.compare_mask, a->m_cswp.swap_mask);
	}
}

static const char *
type_name(int type)
{
	switch (type) {
	case RDS_CMSG_ATOMIC_FADD:
		return "FADD";
	case RDS_CMSG_ATOMIC_CSWP:
		return "CSWP";
	case RDS_CMSG_MASKED_ATOMIC_FADD:
		return "MASKED_FADD";
	default:
		return "MASKED_CSWP";
	}
}

/* The reference itself, on hand-computed values. */
static void
test_reference(void)
{
	CU_ASSERT_EQUAL(ref_mfadd(0x00000001FFFFFFFFULL, 0x0000000100000001ULL,
				  0x8000000080000000ULL),
			0x0000000200000000ULL);
	CU_ASSERT_EQUAL(ref_mfadd(0xAULL, 0x6ULL, ~0ULL), 0xCULL);
	CU_ASSERT_EQUAL(ref_mfadd(0xFFFFFFFFULL, 1, 0), 0x100000000ULL);
	CU_ASSERT_EQUAL(ref_mfadd(0x01FF02FE03FD04FCULL, 0x0101010101010101ULL,
				  0x8080808080808080ULL),
			0x020003FF04FE05FDULL);
	CU_ASSERT_EQUAL(ref_mfadd(~0ULL, 1, 0), 0);
	CU_ASSERT_EQUAL(ref_mcswp(0x1234567800000000ULL, 0x12345678FFFFFFFFULL,
				  0xAAAAAAAABBBBBBBBULL, 0xFFFFFFFF00000000ULL,
				  0x00000000FFFFFFFFULL),
			0x12345678BBBBBBBBULL);
	CU_ASSERT_EQUAL(ref_mcswp(0x1234567800000000ULL, 0x1234567900000000ULL,
				  0xAAAAAAAABBBBBBBBULL, 0xFFFFFFFF00000000ULL,
				  ~0ULL),
			0x1234567800000000ULL);
	CU_ASSERT_EQUAL(ref_mcswp(0x1234, 0, 0xAB00, 0, 0xFF00), 0xAB34);
}

/* ------------------------------------------------------------------ */
/* Running batches */

struct aop {
	int type;
	struct rds_atomic_args a;
	unsigned int slot;
	uint64_t init;		/* set before the batch (first op per slot) */
	uint64_t want_old, want_new;
	bool want_new_check;	/* last op on its slot */
	bool refused;		/* masked, over a transport with none */
};

/* Does this run's transport refuse type at sendmsg (EOPNOTSUPP)? */
static bool
refused(int type)
{
	return rdma_tr()->no_masked_atomics &&
	       (type == RDS_CMSG_MASKED_ATOMIC_FADD ||
		type == RDS_CMSG_MASKED_ATOMIC_CSWP);
}

#define MAX_OPS 600

static uint64_t results[MAX_OPS] __rte_aligned(8);

/*
 * Run ops in order (one message each, all queued before the engine runs)
 * against the 64-bit words of region (cookie); expected old/new values
 * are computed from the initial slot values in order. Returns failures.
 */
static unsigned int
run_batch(struct rdma_env *env, uint64_t cookie, uint64_t *words,
	  unsigned int nwords, struct aop *ops, unsigned int n,
	  const char *what)
{
	static struct rds_rdma_notify nt[MAX_OPS + 8];
	uint64_t *cur = calloc(nwords, sizeof(*cur));
	unsigned int i, j, nnt, fails = 0, acks = 0, nref = 0;
	uint8_t *seen = calloc(n, 1);
	struct rdma_rx rx;
	char buf[64], msg[32];
	ssize_t r;

	if (cur == NULL || seen == NULL) {
		CU_FAIL("calloc");
		free(cur);
		free(seen);
		return 1;
	}
	memcpy(cur, words, nwords * sizeof(*cur));
	for (i = 0; i < n; i++) {
		uint64_t old = cur[ops[i].slot];

		/* A transport with no masked atomics (ib) refuses them at
		 * sendmsg: they never run, the word stays. */
		ops[i].refused = refused(ops[i].type);
		nref += ops[i].refused;
		ops[i].want_old = ops[i].refused ? SENTINEL : old;
		ops[i].want_new = ops[i].refused ? old :
				  ref_new(ops[i].type, old, &ops[i].a);
		cur[ops[i].slot] = ops[i].want_new;
		results[i] = SENTINEL;
		ops[i].a.cookie = cookie;
		ops[i].a.remote_addr = (uint64_t)ops[i].slot * 8;
		ops[i].a.local_addr = (uint64_t)(uintptr_t)&results[i];
		ops[i].a.flags = RDS_RDMA_NOTIFY_ME;
		ops[i].a.user_token = 0xA70000 + i;
		snprintf(msg, sizeof(msg), "ATOMIC %u", i);
		r = rdma_send_atomic(env->srv, &env->ca, msg, strlen(msg),
				     ops[i].type, &ops[i].a);
		if (ops[i].refused) {
			if (r != -1 || rte_errno != EOPNOTSUPP) {
				printf("  %s op %u (%s): sendmsg %zd %s, want "
				       "-1 EOPNOTSUPP (no masked atomics "
				       "over %s)\n", what, i,
				       type_name(ops[i].type), r,
				       rte_strerror(rte_errno),
				       rdma_tr()->name);
				fails++;
			}
			continue;
		}
		if (r != (ssize_t)strlen(msg)) {
			printf("  %s op %u (%s): sendmsg %zd %s\n", what, i,
			       type_name(ops[i].type), r,
			       rte_strerror(rte_errno));
			fails++;
		}
	}
	/* Every ACK reaches the client, in order. */
	for (i = 0; i < n; i++) {
		if (ops[i].refused)
			continue;
		if (!rdma_wait_msg(env->cli, buf, sizeof(buf), 5000, &rx, NULL,
				   NULL, 0)) {
			printf("  %s: only %u of %u ACKs\n", what, acks,
			       n - nref);
			fails++;
			break;
		}
		snprintf(msg, sizeof(msg), "ATOMIC %u", i);
		if (rx.ret != (ssize_t)strlen(msg) ||
		    memcmp(buf, msg, strlen(msg)) != 0) {
			printf("  %s: ACK %u out of order\n", what, i);
			fails++;
		}
		acks++;
	}
	nnt = rdma_collect(env->srv, nt, RTE_DIM(nt), n - nref, 0, 5000, 4096,
			   NULL);
	/* None more (a refused op's, or a second one). */
	nnt += rdma_collect(env->srv, nt + RTE_MIN(nnt, RTE_DIM(nt)),
			    RTE_DIM(nt) - RTE_MIN(nnt, RTE_DIM(nt)), 0, 50,
			    1000, 4096, NULL);
	if (nnt != n - nref) {
		printf("  %s: %u notifications for %u ops (%u refused)\n",
		       what, nnt, n, nref);
		fails++;
	}
	if (nref > 0)
		printf("  %s: %u masked ops refused with EOPNOTSUPP (%s)\n",
		       what, nref, rdma_tr()->name);
	for (j = 0; j < nnt && j < RTE_DIM(nt); j++) {
		uint64_t k = nt[j].user_token - 0xA70000;

		if (k >= n || seen[k] || ops[k].refused ||
		    nt[j].status != RDS_RDMA_SUCCESS) {
			printf("  %s: bad notification token %#llx status "
			       "%d\n", what,
			       (unsigned long long)nt[j].user_token,
			       nt[j].status);
			fails++;
			continue;
		}
		seen[k] = 1;
	}
	for (i = 0; i < n; i++) {
		if (results[i] != ops[i].want_old) {
			printf("  %s op %u %s slot %u: old %#" PRIx64
			       ", want %#" PRIx64 "\n", what, i,
			       type_name(ops[i].type), ops[i].slot,
			       results[i], ops[i].want_old);
			fails++;
		}
	}
	for (j = 0; j < nwords; j++) {
		if (words[j] != cur[j]) {
			printf("  %s: word %u is %#" PRIx64 ", want %#" PRIx64
			       "\n", what, j, words[j], cur[j]);
			fails++;
		}
	}
	free(cur);
	free(seen);
	return fails;
}

struct region {
	struct rdma_guard g;
	uint64_t cookie;
	uint64_t *words;
	unsigned int nwords;
};

static bool
region_setup(struct rdma_env *env, struct region *rg, uint32_t off)
{
	if (rdma_guard_alloc(&rg->g, 1) != 0)
		return false;
	rds_test_fill(rg->g.pages, rg->g.len, 77 + off);
	rg->words = (uint64_t *)(void *)(rg->g.pages + off);
	rg->nwords = (RDMA_PAGE - off) / 8;
	/* Register exactly the words (through RDMA_MAP: the cookie travels
	 * to the server in a message, as rds-rdma(7) recommends). */
	if (rdma_send_map(env->cli, &env->sa, "MAP", 3, rg->words,
			  rg->nwords * 8, RDS_RDMA_READWRITE,
			  &rg->cookie) != 3) {
		printf("  RDMA_MAP: %s\n", rte_strerror(rte_errno));
		rdma_guard_free(&rg->g);
		return false;
	}
	{
		struct rdma_rx rx;
		char buf[16];

		if (!rdma_wait_msg(env->srv, buf, sizeof(buf), 5000, &rx,
				   NULL, NULL, 0) || !rx.has_dest ||
		    rx.dest != rg->cookie) {
			printf("  server did not get the cookie\n");
			rdma_guard_free(&rg->g);
			return false;
		}
	}
	return true;
}

static void
add_fixed(struct aop *ops, unsigned int *n, uint64_t *words)
{
	struct aop *o;

#define NEW_OP(t, s, v) do { \
		o = &ops[(*n)++]; \
		memset(o, 0, sizeof(*o)); \
		o->type = (t); \
		o->slot = (s); \
		words[s] = (v); \
	} while (0)

	NEW_OP(RDS_CMSG_ATOMIC_FADD, 0, 0x0123456789ABCDEFULL);
	o->a.fadd.add = 0x1111;
	NEW_OP(RDS_CMSG_ATOMIC_FADD, 1, ~0ULL);
	o->a.fadd.add = 2;				/* wraps to 1 */
	NEW_OP(RDS_CMSG_ATOMIC_CSWP, 2, 42);
	o->a.cswp.compare = 42;
	o->a.cswp.swap = 7;				/* swaps */
	NEW_OP(RDS_CMSG_ATOMIC_CSWP, 3, 42);
	o->a.cswp.compare = 43;
	o->a.cswp.swap = 7;				/* unchanged */
	NEW_OP(RDS_CMSG_MASKED_ATOMIC_FADD, 4, 0x00000001FFFFFFFFULL);
	o->a.m_fadd.add = 0x0000000100000001ULL;
	o->a.m_fadd.nocarry_mask = 0x8000000080000000ULL;
	NEW_OP(RDS_CMSG_MASKED_ATOMIC_FADD, 5, 0x01FF02FE03FD04FCULL);
	o->a.m_fadd.add = 0x0101010101010101ULL;
	o->a.m_fadd.nocarry_mask = 0x8080808080808080ULL;
	NEW_OP(RDS_CMSG_MASKED_ATOMIC_FADD, 6, 0xAULL);
	o->a.m_fadd.add = 0x6;
	o->a.m_fadd.nocarry_mask = ~0ULL;		/* XOR */
	NEW_OP(RDS_CMSG_MASKED_ATOMIC_FADD, 7, 0xFFFFFFFFULL);
	o->a.m_fadd.add = 1;
	o->a.m_fadd.nocarry_mask = 0;			/* plain add */
	NEW_OP(RDS_CMSG_MASKED_ATOMIC_CSWP, 8, 0x1234567800000000ULL);
	o->a.m_cswp.compare = 0x12345678FFFFFFFFULL;
	o->a.m_cswp.swap = 0xAAAAAAAABBBBBBBBULL;
	o->a.m_cswp.compare_mask = 0xFFFFFFFF00000000ULL;
	o->a.m_cswp.swap_mask = 0x00000000FFFFFFFFULL;
	NEW_OP(RDS_CMSG_MASKED_ATOMIC_CSWP, 9, 0x1234567800000000ULL);
	o->a.m_cswp.compare = 0x1234567900000000ULL;	/* fails */
	o->a.m_cswp.swap = 0xAAAAAAAABBBBBBBBULL;
	o->a.m_cswp.compare_mask = 0xFFFFFFFF00000000ULL;
	o->a.m_cswp.swap_mask = ~0ULL;
	NEW_OP(RDS_CMSG_MASKED_ATOMIC_CSWP, 10, 0x1234);
	o->a.m_cswp.compare = 0xFFFF;			/* mask 0: matches */
	o->a.m_cswp.swap = 0xAB00;
	o->a.m_cswp.compare_mask = 0;
	o->a.m_cswp.swap_mask = 0xFF00;
#undef NEW_OP
}

static void
test_fixed(void)
{
	static const uint64_t want_new[] = {
		0x0123456789ABDF00ULL, 1, 7, 42, 0x0000000200000000ULL,
		0x020003FF04FE05FDULL, 0xC, 0x100000000ULL,
		0x12345678BBBBBBBBULL, 0x1234567800000000ULL, 0xAB34,
	};
	static struct aop ops[MAX_OPS];
	uint64_t init[RTE_DIM(want_new)];
	struct rdma_env env;
	struct region rg;
	unsigned int n = 0, i;

	rds_test_watchdog(60, "fixed");
	CU_ASSERT_FATAL(rdma_env_up(&env) == 0);
	CU_ASSERT_FATAL(region_setup(&env, &rg, 0));
	add_fixed(ops, &n, rg.words);
	CU_ASSERT_EQUAL(n, RTE_DIM(want_new));
	memcpy(init, rg.words, sizeof(init));
	CU_ASSERT_EQUAL(run_batch(&env, rg.cookie, rg.words, rg.nwords, ops, n,
				  "fixed"), 0);
	/* The hand-computed results, too (a refused op left its word). */
	for (i = 0; i < n && i < RTE_DIM(want_new); i++) {
		uint64_t w = ops[i].refused ? init[ops[i].slot] : want_new[i];

		if (rg.words[ops[i].slot] != w)
			printf("  fixed op %u: %#" PRIx64 " want %#" PRIx64
			       "\n", i, rg.words[ops[i].slot], w);
		CU_ASSERT_EQUAL(rg.words[ops[i].slot], w);
	}
	rdma_guard_free(&rg.g);
	rdma_env_down(&env);
	rds_test_watchdog(0, NULL);
}

/* Random operands, half of the compares matching. */
static void
test_random(void)
{
	static struct aop ops[MAX_OPS];
	static const int types[] = {
		RDS_CMSG_ATOMIC_FADD, RDS_CMSG_ATOMIC_CSWP,
		RDS_CMSG_MASKED_ATOMIC_FADD, RDS_CMSG_MASKED_ATOMIC_CSWP,
	};
	struct rdma_env env;
	struct region rg;
	uint64_t st = 0xA70A7;
	unsigned int n = 0, i;

	rds_test_watchdog(60, "random");
	CU_ASSERT_FATAL(rdma_env_up(&env) == 0);
	CU_ASSERT_FATAL(region_setup(&env, &rg, 0));
	for (i = 0; i < 4 * 100 && i < rg.nwords; i++) {
		struct aop *o = &ops[n++];
		uint64_t v = rds_test_rand(&st);

		memset(o, 0, sizeof(*o));
		o->type = types[i % 4];
		o->slot = i;
		rg.words[i] = v;
		switch (o->type) {
		case RDS_CMSG_ATOMIC_FADD:
			o->a.fadd.add = rds_test_rand(&st);
			break;
		case RDS_CMSG_ATOMIC_CSWP:
			o->a.cswp.compare = (i / 4) % 2 ? v :
					    v ^ (1ULL << (i % 64));
			o->a.cswp.swap = rds_test_rand(&st);
			break;
		case RDS_CMSG_MASKED_ATOMIC_FADD:
			o->a.m_fadd.add = rds_test_rand(&st);
			o->a.m_fadd.nocarry_mask = rds_test_rand(&st) &
						   rds_test_rand(&st);
			break;
		default:
			o->a.m_cswp.compare_mask = rds_test_rand(&st);
			o->a.m_cswp.compare = (i / 4) % 2 ?
				(v & o->a.m_cswp.compare_mask) |
				(rds_test_rand(&st) &
				 ~o->a.m_cswp.compare_mask) :
				rds_test_rand(&st);
			o->a.m_cswp.swap = rds_test_rand(&st);
			o->a.m_cswp.swap_mask = rds_test_rand(&st);
			break;
		}
	}
	CU_ASSERT_EQUAL(run_batch(&env, rg.cookie, rg.words, rg.nwords, ops, n,
				  "random"), 0);
	rdma_guard_free(&rg.g);
	rdma_env_down(&env);
	rds_test_watchdog(0, NULL);
}

/*
 * Many operations on the same word, queued together: they run once each,
 * in order, so the old values are the running results.
 */
static void
test_sequence(void)
{
	static struct aop ops[MAX_OPS];
	struct rdma_env env;
	struct region rg;
	unsigned int n = 0, i;
	uint64_t v;

	rds_test_watchdog(60, "sequence");
	CU_ASSERT_FATAL(rdma_env_up(&env) == 0);
	/* Registered at an in-page offset of 24: the cookie's offset and
	 * remote_addr add up (remote_addr 8 -> page + 32). */
	CU_ASSERT_FATAL(region_setup(&env, &rg, 24));
	CU_ASSERT_EQUAL(rdma_cookie_off(rg.cookie), 24);
	rg.words[1] = 1000;
	v = 1000;
	for (i = 0; i < 300; i++) {
		struct aop *o = &ops[n++];

		memset(o, 0, sizeof(*o));
		o->slot = 1;
		if (i % 3 == 2) {
			/* Half of the compares match the value by then. */
			o->type = RDS_CMSG_ATOMIC_CSWP;
			o->a.cswp.compare = i % 2 ? v : v + 1;
			o->a.cswp.swap = 5000 + i;
		} else {
			o->type = i % 2 ? RDS_CMSG_MASKED_ATOMIC_FADD :
					  RDS_CMSG_ATOMIC_FADD;
			o->a.fadd.add = i;	/* m_fadd.add aliases it */
		}
		v = ref_new(o->type, v, &o->a);
	}
	CU_ASSERT_EQUAL(run_batch(&env, rg.cookie, rg.words, rg.nwords, ops, n,
				  "sequence"), 0);
	rdma_guard_free(&rg.g);
	rdma_env_down(&env);
	rds_test_watchdog(0, NULL);
}

int
main(int argc, char **argv)
{
	static const struct rds_test_case cases[] = {
		{ "reference", test_reference },
		{ "fixed", test_fixed },
		{ "random", test_random },
		{ "sequence", test_sequence },
		{ NULL, NULL },
	};

	return rdma_main(argc, argv, "rdma_atomic", cases);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_security: can a key be guessed from other keys?
 *
 * predictor: the attack is real. DPDK's rte_rand() is lfsr258, linear
 * over GF(2): the predictor (rdma_lfsr258.c) fed the low 32 bits of 16 of
 * its outputs in this process gives every bit of the next 100 exactly.
 *
 * keys: the library's keys resist it. 16 regions registered through the
 * public API (RDS_GET_MR) feed the predictor their keys (a local user
 * reads the low 32 bits of its own cookies); then another socket (another
 * user) registers a region, and its key must be none of the 64 outputs
 * the predictor gives next (so that up to 63 other calls of the
 * generator in between would not hide a hit). Keys drawn with
 * rte_rand() fail this case: the 17th key is the first prediction. Over
 * ib the device makes the keys: nothing to check here.
 *
 * key_source: keys come from getrandom(2) and from nothing else. In a
 * child process under a seccomp filter (x86-64): getrandom interrupted
 * once (EINTR) and then cut short at every call still gives a key (the
 * bytes the filter's handler handed over, in order); getrandom refused
 * (ENOSYS) fails RDS_GET_MR with that errno and writes no cookie, where
 * a weaker generator would have given one.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <signal.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <rte_random.h>

#include "rdma_lfsr258.h"
#include "rdma_security.h"

#define SEEN 16		/* outputs the predictor sees */
#define AHEAD 64	/* predictions a new key is compared with */

void
test_predictor(void)
{
	static struct lfsr258_pred p;
	unsigned int i, wrong = 0, unknown = 0;
	uint64_t want, got;

	lfsr258_init(&p);
	for (i = 0; i < SEEN; i++)
		lfsr258_observe(&p, (uint32_t)rte_rand(), 32);
	printf("  %u outputs of rte_rand() seen (low 32 bits): rank %u of "
	       "258\n", SEEN, p.rank);
	CU_ASSERT(!p.inconsistent);
	for (i = 0; i < 100; i++) {
		bool known = lfsr258_predict(&p, &want);

		got = rte_rand();
		if (!known)
			unknown++;
		else if (want != got)
			wrong++;
	}
	printf("  the next 100 outputs: %u predicted wrong, %u not "
	       "determined\n", wrong, unknown);
	CU_ASSERT_EQUAL(unknown, 0);
	CU_ASSERT_EQUAL(wrong, 0);
}

void
test_keys(void)
{
	static struct lfsr258_pred p;
	uint64_t c[SEEN], c2 = 0, want;
	unsigned int i, j, hit = 0, known = 0;
	struct ctx cx;
	int other;

	if (hardware_keys())
		return;
	ctx_begin(&cx, 60, "keys");
	/* Another user's socket, made before: nothing calls the generator
	 * between the keys seen and the one to guess. */
	other = rdma_socket(3, 4013, 0, 0);
	CU_ASSERT_FATAL(other >= 0);
	lfsr258_init(&p);
	for (i = 0; i < SEEN; i++) {
		CU_ASSERT_FATAL(rdma_get_mr(cx.env.cli, cx.g.pages, REGION_LEN,
					    RDS_RDMA_READWRITE, &c[i]) == 0);
		CU_ASSERT(rdma_cookie_key(c[i]) != 0);
		for (j = 0; j < i; j++)
			CU_ASSERT(rdma_cookie_key(c[j]) !=
				  rdma_cookie_key(c[i]));
		lfsr258_observe(&p, rdma_cookie_key(c[i]), 32);
	}
	CU_ASSERT_FATAL(rdma_get_mr(other, cx.g.pages, REGION_LEN,
				    RDS_RDMA_READWRITE, &c2) == 0);
	for (i = 0; i < AHEAD; i++) {
		if (!lfsr258_predict(&p, &want))
			continue;
		known++;
		if ((uint32_t)want == rdma_cookie_key(c2)) {
			printf("  the other socket's key %#x is prediction "
			       "%u\n", rdma_cookie_key(c2), i + 1);
			hit++;
		}
	}
	printf("  %u keys seen: %s; %u of the next %u outputs predicted, "
	       "%u equal to the other socket's key\n", SEEN,
	       p.inconsistent ? "no lfsr258 state gives them" :
	       "an lfsr258 state gives them", known, AHEAD, hit);
	CU_ASSERT_EQUAL(hit, 0);
	CU_ASSERT_EQUAL(rdma_free_mr(cx.env.cli, 0, 0), 0);
	CU_ASSERT_EQUAL(rdma_free_mr(other, c2, 0), 0);
	CU_ASSERT_EQUAL(rte_rds_close(other), 0);
	ctx_end(&cx);
}

/* ------------------------------------------------------------------ */
/* key_source: the child and its filter. */

#if defined(__x86_64__)

/* The child's exit codes. */
enum {
	CHILD_OK = 0,
	CHILD_NO_FILTER = 10,
	CHILD_WRONG = 11,
};

static volatile unsigned int trap_calls;
static volatile uint8_t trap_next;

/* getrandom(buf, count, 0), trapped: EINTR the first time, then half of
 * what was asked (at least a byte), the bytes 1, 2, 3, ... */
static void
trap_getrandom(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	greg_t *r = uc->uc_mcontext.gregs;
	uint8_t *buf = (uint8_t *)(uintptr_t)r[REG_RDI];
	size_t count = (size_t)r[REG_RSI], n, i;

	(void)sig;
	(void)si;
	if (trap_calls++ == 0) {
		r[REG_RAX] = -EINTR;
		return;
	}
	n = (count + 1) / 2;
	for (i = 0; i < n; i++)
		buf[i] = ++trap_next;
	r[REG_RAX] = (greg_t)n;
}

/* getrandom with flags 0 (the library's): ret (SECCOMP_RET_ERRNO | e,
 * or SECCOMP_RET_TRAP); every other call as usual. */
static bool
filter_getrandom(uint32_t ret)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_getrandom, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[2])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, ret),
	};
	struct sock_fprog prog = { RTE_DIM(f), f };

	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
	       prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
}

/* In the child: GET_MR with getrandom trapped (trap) or refused. */
static int
child(struct ctx *cx, bool trap)
{
	struct sigaction sa;
	uint64_t cookie = 0x5EC5EC;
	int ret;

	if (trap) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = trap_getrandom;
		sa.sa_flags = SA_SIGINFO;
		if (sigaction(SIGSYS, &sa, NULL) != 0 ||
		    !filter_getrandom(SECCOMP_RET_TRAP))
			return CHILD_NO_FILTER;
	} else if (!filter_getrandom(SECCOMP_RET_ERRNO | ENOSYS)) {
		return CHILD_NO_FILTER;
	}
	ret = rdma_get_mr(cx->env.cli, cx->g.pages, REGION_LEN,
			  RDS_RDMA_READWRITE, &cookie);
	/* The region table is in memory the EAL shares with the parent:
	 * what the child registered goes before it exits. */
	if (ret == 0 && rdma_free_mr(cx->env.cli, cookie, 0) != 0)
		return CHILD_WRONG;
	if (trap) {
		/* The first key is the first four bytes handed over. */
		printf("  child: getrandom trapped %u times; GET_MR %d, key "
		       "%#x\n", trap_calls, ret, rdma_cookie_key(cookie));
		return ret == 0 && trap_calls >= 3 &&
		       rdma_cookie_key(cookie) == 0x04030201 ? CHILD_OK :
		       CHILD_WRONG;
	}
	printf("  child: getrandom refused; GET_MR %d (%s), cookie %s\n", ret,
	       ret == 0 ? "-" : rte_strerror(rte_errno),
	       cookie == 0x5EC5EC ? "not written" : "written");
	return ret == -1 && rte_errno == ENOSYS && cookie == 0x5EC5EC ?
	       CHILD_OK : CHILD_WRONG;
}

static int
run_child(struct ctx *cx, bool trap)
{
	int st = 0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(child(cx, trap));	/* nothing of the parent's at exit */
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	if (WIFSIGNALED(st)) {
		printf("  child killed by signal %d\n", WTERMSIG(st));
		return -1;
	}
	return WEXITSTATUS(st);
}

void
test_key_source(void)
{
	struct ctx cx;
	uint64_t c;
	int st;

	if (hardware_keys())
		return;
	ctx_begin(&cx, 60, "key_source");
	st = run_child(&cx, true);
	if (st == CHILD_NO_FILTER) {
		printf("  SKIP: no seccomp filter here\n");
	} else {
		CU_ASSERT_EQUAL(st, CHILD_OK);
		CU_ASSERT_EQUAL(run_child(&cx, false), CHILD_OK);
	}
	/* The parent's registrations go on. */
	CU_ASSERT(rdma_get_mr(cx.env.cli, cx.g.pages, REGION_LEN, 0, &c) == 0);
	CU_ASSERT(rdma_free_mr(cx.env.cli, c, 0) == 0);
	ctx_end(&cx);
}

#else

void
test_key_source(void)
{
	printf("  SKIP: the seccomp trap is written for x86-64\n");
}

#endif

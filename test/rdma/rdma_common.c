/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the 'rdma' suite (see rdma_common.h): the transports (loop
 * here; eth in rdma_eth.c), set-up, memory, control messages.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include <rte_errno.h>

#include "rdma_common.h"

/* ------------------------------------------------------------------ */
/* Transports */

static int
loop_conf(struct rte_rds_conf *conf, uint32_t lcore,
	  enum rte_rds_idle_policy idle)
{
	rds_test_conf(conf, lcore, idle);
	return 0;
}

static struct rdma_transport rdma_loop = {
	.name = "loop",
	.pin = -1,
	.quiet_ms = 0,
	.ip = { NULL, RDS_TEST_IP1, RDS_TEST_IP2, RDS_TEST_IP3, RDS_TEST_IP4 },
	.conf = loop_conf,
};

static struct rdma_transport *rdma_transports = &rdma_loop;
static const struct rdma_transport *rdma_cur = &rdma_loop;

void
rdma_transport_register(struct rdma_transport *t)
{
	t->next = rdma_transports;
	rdma_transports = t;
}

const struct rdma_transport *
rdma_tr(void)
{
	return rdma_cur;
}

bool
rdma_tr_is(const char *name)
{
	return strcmp(rdma_cur->name, name) == 0;
}

bool
rdma_transport_select(const char *name)
{
	struct rdma_transport *t;

	for (t = rdma_transports; t != NULL; t = t->next) {
		if (strcmp(t->name, name) == 0) {
			rdma_cur = t;
			return true;
		}
	}
	printf("no transport '%s' in this binary; it has:", name);
	for (t = rdma_transports; t != NULL; t = t->next)
		printf(" %s", t->name);
	printf("\n");
	return false;
}

const char *
rdma_ip(unsigned int n)
{
	if (n < 1 || n > RDMA_NB_IP) {
		printf("rdma_ip(%u): no such address\n", n);
		abort();
	}
	return rdma_cur->ip[n];
}

struct sockaddr_in
rdma_sin(unsigned int n, uint16_t port)
{
	return rds_test_sin(rdma_ip(n), port);
}

int
rdma_socket(unsigned int n, uint16_t port, int sndbuf, int rcvbuf)
{
	return rds_test_socket_trans(rdma_ip(n), port, sndbuf, rcvbuf,
				     rdma_cur->pin);
}

int
rdma_conf(struct rte_rds_conf *conf, uint32_t lcore,
	  enum rte_rds_idle_policy idle)
{
	return rdma_cur->conf(conf, lcore, idle);
}

int
rdma_main(int argc, char **argv, const char *suite,
	  const struct rds_test_case *cases)
{
	const char *name = getenv("RDS_TEST_TRANSPORT");
	char full[64];
	int i, rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--transport=", 12) == 0) {
			name = argv[i] + 12;
		} else {
			printf("usage: %s [--transport=NAME] (or "
			       "RDS_TEST_TRANSPORT=NAME)\n", argv[0]);
			return 1;
		}
	}
	if (name != NULL && name[0] != '\0' && !rdma_transport_select(name))
		return 1;
	if (rdma_cur->unavailable != NULL) {
		const char *why = rdma_cur->unavailable();

		if (why != NULL) {
			printf("SKIP: transport %s: %s\n", rdma_cur->name, why);
			return 77;
		}
	}
	if (rdma_cur->slow > 1)
		rds_test_watchdog_scale(rdma_cur->slow);
	/* The loop run keeps the suite's own name. */
	if (rdma_tr_is("loop"))
		snprintf(full, sizeof(full), "%s", suite);
	else
		snprintf(full, sizeof(full), "%s_%s", suite, rdma_cur->name);
	printf("%s: transport %s\n", full, rdma_cur->name);
	rds_test_eal_init(full, "0");
	rc = rds_test_run_suite(full, cases);
	rds_test_eal_fini();
	return rc;
}

/* ------------------------------------------------------------------ */
/* Library and sockets */

int
rdma_env_up(struct rdma_env *env)
{
	struct rte_rds_conf conf;
	int ret;

	env->cli = -1;
	env->srv = -1;
	if (rdma_conf(&conf, RTE_RDS_ENGINE_INLINE, RTE_RDS_IDLE_YIELD) != 0)
		return -1;
	ret = rds_test_lib_init(&conf);
	rte_rds_conf_free(&conf);
	if (ret != 0)
		return -1;
	env->ca = rdma_sin(1, RDMA_CLI_PORT);
	env->sa = rdma_sin(2, RDMA_SRV_PORT);
	env->cli = rdma_socket(1, RDMA_CLI_PORT, 0, 0);
	env->srv = rdma_socket(2, RDMA_SRV_PORT, 0, 0);
	if (env->cli < 0 || env->srv < 0) {
		rdma_env_down(env);
		return -1;
	}
	return 0;
}

void
rdma_env_down(struct rdma_env *env)
{
	if (env->cli >= 0)
		rte_rds_close(env->cli);
	if (env->srv >= 0)
		rte_rds_close(env->srv);
	env->cli = -1;
	env->srv = -1;
	rds_test_lib_fini();
	rdma_set_poll_hook(NULL, NULL);
	if (rdma_cur->clear != NULL)
		rdma_cur->clear();
}

static void (*poll_hook)(void *);
static void *poll_hook_arg;

void
rdma_set_poll_hook(void (*fn)(void *), void *arg)
{
	poll_hook = fn;
	poll_hook_arg = arg;
}

static uint64_t nb_polls;

uint64_t
rdma_polls(void)
{
	return nb_polls;
}

int
rdma_kick(void)
{
	int work = rds_test_kick();

	nb_polls++;
	if (poll_hook != NULL)
		poll_hook(poll_hook_arg);
	return work;
}

void
rdma_pump(unsigned int n)
{
	while (n-- > 0)
		rdma_kick();
}

/* ------------------------------------------------------------------ */
/* Guarded memory */

int
rdma_guard_alloc(struct rdma_guard *g, size_t npages)
{
	void *p;

	memset(g, 0, sizeof(*g));
	g->map_len = (npages + 2) * RDMA_PAGE;
	p = mmap(NULL, g->map_len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		printf("mmap %zu: %s\n", g->map_len, strerror(errno));
		return -1;
	}
	g->map = p;
	if (mprotect(g->map, RDMA_PAGE, PROT_NONE) != 0 ||
	    mprotect(g->map + (npages + 1) * RDMA_PAGE, RDMA_PAGE,
		     PROT_NONE) != 0) {
		printf("mprotect: %s\n", strerror(errno));
		munmap(g->map, g->map_len);
		g->map = NULL;
		return -1;
	}
	g->pages = g->map + RDMA_PAGE;
	g->len = npages * RDMA_PAGE;
	return 0;
}

void
rdma_guard_free(struct rdma_guard *g)
{
	if (g->map != NULL)
		munmap(g->map, g->map_len);
	memset(g, 0, sizeof(*g));
}

/* ------------------------------------------------------------------ */
/* Socket options */

int
rdma_get_mr(int s, const void *addr, uint64_t bytes, uint64_t flags,
	    uint64_t *cookie)
{
	struct rds_get_mr_args a;

	memset(&a, 0, sizeof(a));
	a.vec.addr = (uint64_t)(uintptr_t)addr;
	a.vec.bytes = bytes;
	a.cookie_addr = (uint64_t)(uintptr_t)cookie;
	a.flags = flags;
	return rte_rds_setsockopt(s, SOL_RDS, RDS_GET_MR, &a, sizeof(a));
}

int
rdma_get_mr_for_dest(int s, const struct sockaddr_in *dest, const void *addr,
		     uint64_t bytes, uint64_t flags, uint64_t *cookie)
{
	struct rds_get_mr_for_dest_args a;

	memset(&a, 0, sizeof(a));
	memcpy(&a.dest_addr, dest, sizeof(*dest));
	a.vec.addr = (uint64_t)(uintptr_t)addr;
	a.vec.bytes = bytes;
	a.cookie_addr = (uint64_t)(uintptr_t)cookie;
	a.flags = flags;
	return rte_rds_setsockopt(s, SOL_RDS, RDS_GET_MR_FOR_DEST, &a,
				  sizeof(a));
}

int
rdma_free_mr(int s, uint64_t cookie, uint64_t flags)
{
	struct rds_free_mr_args a = { .cookie = cookie, .flags = flags };

	return rte_rds_setsockopt(s, SOL_RDS, RDS_FREE_MR, &a, sizeof(a));
}

int
rdma_set_recverr(int s, int on)
{
	return rte_rds_setsockopt(s, SOL_RDS, RDS_RECVERR, &on, sizeof(on));
}

/* ------------------------------------------------------------------ */
/* Control messages */

void
rdma_cbuf_init(struct rdma_cbuf *cb)
{
	memset(cb, 0, sizeof(*cb));
}

void
rdma_cbuf_add(struct rdma_cbuf *cb, int type, const void *data, size_t len)
{
	struct cmsghdr *cm = (struct cmsghdr *)(cb->u.b + cb->len);

	if (cb->len + CMSG_SPACE(len) > sizeof(cb->u.b)) {
		printf("rdma_cbuf_add: control buffer full\n");
		abort();
	}
	cm->cmsg_len = CMSG_LEN(len);
	cm->cmsg_level = SOL_RDS;
	cm->cmsg_type = type;
	memcpy(CMSG_DATA(cm), data, len);
	cb->len += CMSG_SPACE(len);
}

ssize_t
rdma_sendmsg(int s, const struct sockaddr_in *to, const void *buf, size_t len,
	     const struct rdma_cbuf *cb, int flags)
{
	struct iovec iov = { .iov_base = (void *)(uintptr_t)buf,
			     .iov_len = len };
	struct msghdr mh;

	memset(&mh, 0, sizeof(mh));
	mh.msg_name = (void *)(uintptr_t)to;
	mh.msg_namelen = to != NULL ? sizeof(*to) : 0;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (cb != NULL && cb->len != 0) {
		mh.msg_control = (void *)(uintptr_t)cb->u.b;
		mh.msg_controllen = cb->len;
	}
	return rte_rds_sendmsg(s, &mh, flags);
}

ssize_t
rdma_send_dest(int s, const struct sockaddr_in *to, const void *buf,
	       size_t len, uint64_t cookie)
{
	struct rdma_cbuf cb;

	rdma_cbuf_init(&cb);
	rdma_cbuf_add(&cb, RDS_CMSG_RDMA_DEST, &cookie, sizeof(cookie));
	return rdma_sendmsg(s, to, buf, len, &cb, 0);
}

ssize_t
rdma_send_map(int s, const struct sockaddr_in *to, const void *buf,
	      size_t len, const void *addr, uint64_t bytes, uint64_t flags,
	      uint64_t *cookie)
{
	struct rds_get_mr_args a;
	struct rdma_cbuf cb;

	memset(&a, 0, sizeof(a));
	a.vec.addr = (uint64_t)(uintptr_t)addr;
	a.vec.bytes = bytes;
	a.cookie_addr = (uint64_t)(uintptr_t)cookie;
	a.flags = flags;
	rdma_cbuf_init(&cb);
	rdma_cbuf_add(&cb, RDS_CMSG_RDMA_MAP, &a, sizeof(a));
	return rdma_sendmsg(s, to, buf, len, &cb, 0);
}

ssize_t
rdma_send_args(int s, const struct sockaddr_in *to, const void *buf,
	       size_t len, const struct rds_rdma_args *a)
{
	struct rdma_cbuf cb;

	rdma_cbuf_init(&cb);
	rdma_cbuf_add(&cb, RDS_CMSG_RDMA_ARGS, a, sizeof(*a));
	return rdma_sendmsg(s, to, buf, len, &cb, 0);
}

ssize_t
rdma_send_atomic(int s, const struct sockaddr_in *to, const void *buf,
		 size_t len, int type, const struct rds_atomic_args *a)
{
	struct rdma_cbuf cb;

	rdma_cbuf_init(&cb);
	rdma_cbuf_add(&cb, type, a, sizeof(*a));
	return rdma_sendmsg(s, to, buf, len, &cb, 0);
}

/* ------------------------------------------------------------------ */
/* Receiving */

void
rdma_recv(int s, void *buf, size_t cap, size_t ctl_space, int flags,
	  struct rdma_rx *rx)
{
	union {
		struct cmsghdr align;
		uint8_t b[4096];
	} ctl;
	struct iovec iov = { .iov_base = buf, .iov_len = cap };
	struct msghdr mh;
	struct cmsghdr *cm;

	memset(rx, 0, sizeof(*rx));
	memset(&mh, 0, sizeof(mh));
	memset(&ctl, 0, sizeof(ctl));
	if (ctl_space > sizeof(ctl.b))
		ctl_space = sizeof(ctl.b);
	mh.msg_name = &rx->from;
	mh.msg_namelen = sizeof(rx->from);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = ctl_space != 0 ? ctl.b : NULL;
	mh.msg_controllen = ctl_space;
	rx->ret = rte_rds_recvmsg(s, &mh, flags);
	if (rx->ret < 0) {
		rx->err = rte_errno;
		return;
	}
	rx->msg_flags = mh.msg_flags;
	rx->namelen = mh.msg_namelen;
	if (mh.msg_controllen == 0 || mh.msg_control == NULL)
		return;
	for (cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level != SOL_RDS) {
			rx->nother++;
			continue;
		}
		switch (cm->cmsg_type) {
		case RDS_CMSG_RDMA_DEST:
			if (cm->cmsg_len >= CMSG_LEN(sizeof(uint64_t))) {
				memcpy(&rx->dest, CMSG_DATA(cm),
				       sizeof(uint64_t));
				rx->has_dest = true;
			}
			rx->ndest++;
			break;
		case RDS_CMSG_RDMA_STATUS:
			if (cm->cmsg_len <
			    CMSG_LEN(sizeof(struct rds_rdma_notify))) {
				rx->nother++;
				break;
			}
			if (rx->nst >= RDMA_MAX_ST) {
				printf("rdma_recv: more than %d statuses\n",
				       RDMA_MAX_ST);
				abort();
			}
			memcpy(&rx->st[rx->nst++], CMSG_DATA(cm),
			       sizeof(struct rds_rdma_notify));
			break;
		default:
			rx->nother++;
			break;
		}
	}
}

/* A wait bound as the transport needs it (rdma_transport.slow). */
static uint64_t
scaled_ms(unsigned int ms)
{
	return (uint64_t)ms * (rdma_cur->slow > 1 ? rdma_cur->slow : 1);
}

bool
rdma_wait_msg(int s, void *buf, size_t cap, unsigned int timeout_ms,
	      struct rdma_rx *rx, struct rds_rdma_notify *nt,
	      unsigned int *nnt, unsigned int maxnt)
{
	uint64_t t0 = rds_test_now_ns(), tmo = scaled_ms(timeout_ms);
	unsigned int i;

	for (;;) {
		rdma_recv(s, buf, cap, 1024, MSG_DONTWAIT, rx);
		if (rx->ret < 0 && rx->err != EAGAIN) {
			printf("  recvmsg on %d: %s\n", s,
			       rte_strerror(rx->err));
			return false;
		}
		if (rdma_rx_is_notify(rx)) {
			for (i = 0; i < rx->nst; i++) {
				if (nt != NULL && nnt != NULL &&
				    *nnt < maxnt)
					nt[(*nnt)++] = rx->st[i];
				else
					printf("  unexpected notification "
					       "token %#llx status %d\n",
					       (unsigned long long)
					       rx->st[i].user_token,
					       rx->st[i].status);
			}
			continue;
		}
		if (rx->ret >= 0)
			return true;
		if ((rds_test_now_ns() - t0) / 1000000 > tmo)
			return false;
		if (rdma_kick() == 0)
			rds_test_usleep(20);
	}
}

unsigned int
rdma_collect(int s, struct rds_rdma_notify *nt, unsigned int max,
	     unsigned int want, unsigned int idle_polls,
	     unsigned int timeout_ms, size_t ctl_space, unsigned int *ndata)
{
	uint64_t t0 = rds_test_now_ns(), last = t0, tmo = scaled_ms(timeout_ms);
	uint64_t quiet_ns = (uint64_t)rdma_cur->quiet_ms * 1000000;
	unsigned int n = 0, idle = 0, i;
	struct rdma_rx rx;
	uint8_t buf[256];

	for (;;) {
		rdma_recv(s, buf, sizeof(buf), ctl_space, MSG_DONTWAIT, &rx);
		if (rx.ret >= 0) {
			idle = 0;
			last = rds_test_now_ns();
			if (rdma_rx_is_notify(&rx)) {
				for (i = 0; i < rx.nst; i++, n++)
					if (n < max)
						nt[n] = rx.st[i];
			} else if (ndata != NULL) {
				(*ndata)++;
			}
			continue;
		}
		if (rx.err != EAGAIN) {
			printf("  recvmsg on %d: %s\n", s,
			       rte_strerror(rx.err));
			return n;
		}
		if (want != 0 && n >= want)
			return n;
		if (want == 0 && idle >= idle_polls &&
		    rds_test_now_ns() - last >= quiet_ns)
			return n;
		if ((rds_test_now_ns() - t0) / 1000000 > tmo)
			return n;
		if (rdma_kick() == 0) {
			idle++;
			rds_test_usleep(10);
		}
	}
}

bool
rdma_quiet(int s, unsigned int polls)
{
	uint64_t t0 = rds_test_now_ns();
	uint64_t quiet_ns = (uint64_t)rdma_cur->quiet_ms * 1000000;
	struct rdma_rx rx;
	uint8_t buf[64];

	rdma_pump(polls);
	/* A wire: whatever is in flight has time to arrive. */
	while (rds_test_now_ns() - t0 < quiet_ns) {
		if (rdma_kick() == 0)
			rds_test_usleep(10);
	}
	rdma_recv(s, buf, sizeof(buf), 1024, MSG_DONTWAIT | MSG_PEEK, &rx);
	if (rx.ret >= 0) {
		printf("  socket %d not quiet: ret %zd, %u statuses "
		       "(first token %#llx status %d)\n", s, rx.ret, rx.nst,
		       rx.nst ? (unsigned long long)rx.st[0].user_token : 0ULL,
		       rx.nst ? rx.st[0].status : 0);
		return false;
	}
	return rx.err == EAGAIN;
}

/* ------------------------------------------------------------------ */
/* Scatter / gather */

#define GAP_MAX 16

size_t
rdma_scatter_space(size_t total, size_t n)
{
	return total + (n + 1) * GAP_MAX;
}

size_t
rdma_scatter(uint8_t *buf, size_t total, size_t n, uint64_t seed,
	     uint8_t canary, struct rds_iovec *iov)
{
	uint64_t st = seed, *w, wsum = 0;
	size_t i, rest, pos, given = 0;

	if (n == 0)
		n = 1;
	if (n > total)
		n = total;
	memset(buf, canary, rdma_scatter_space(total, n));
	w = calloc(n, sizeof(*w));
	if (w == NULL)
		abort();
	/* Mixed sizes: most weights small, some 100x larger. */
	for (i = 0; i < n; i++) {
		w[i] = rds_test_rand_range(&st, 1, 100);
		if (rds_test_rand(&st) % 8 == 0)
			w[i] *= 100;
		wsum += w[i];
	}
	rest = total - n;	/* each iovec has at least one byte */
	pos = 0;
	for (i = 0; i < n; i++) {
		size_t extra = (size_t)((unsigned __int128)rest * w[i] / wsum);
		size_t bytes = 1 + extra;

		if (i == n - 1)
			bytes = total - given;
		pos += (size_t)rds_test_rand_range(&st, 1, GAP_MAX);
		iov[i].addr = (uint64_t)(uintptr_t)(buf + pos);
		iov[i].bytes = bytes;
		pos += bytes;
		given += bytes;
	}
	free(w);
	return n;
}

bool
rdma_scatter_canary_ok(const uint8_t *buf, size_t space,
		       const struct rds_iovec *iov, size_t n, uint8_t canary)
{
	size_t pos = 0, i, end;

	for (i = 0; i <= n; i++) {
		end = i < n ? (size_t)((const uint8_t *)(uintptr_t)iov[i].addr -
				       buf) : space;
		for (; pos < end; pos++) {
			if (buf[pos] != canary) {
				printf("  canary broken at %zu (iovec %zu)\n",
				       pos, i);
				return false;
			}
		}
		if (i < n)
			pos = end + iov[i].bytes;
	}
	return true;
}

void
rdma_gather(const struct rds_iovec *iov, size_t n, uint8_t *out)
{
	size_t i, off = 0;

	for (i = 0; i < n; i++) {
		memcpy(out + off, (const void *)(uintptr_t)iov[i].addr,
		       iov[i].bytes);
		off += iov[i].bytes;
	}
}

long
rdma_first_diff(const void *a, const void *b, size_t len)
{
	const uint8_t *x = a, *y = b;
	size_t i;

	if (memcmp(a, b, len) == 0)
		return -1;
	for (i = 0; i < len; i++)
		if (x[i] != y[i])
			return (long)i;
	return -1;
}

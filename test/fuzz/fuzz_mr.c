/* SPDX-License-Identifier: BSD-3-Clause */
/* Memory regions of the fuzz targets and their oracle (see fuzz_mr.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include <rte_rds.h>

#include "fuzz_mr.h"

struct fm fm;

static uint8_t *fm_lshadow;
/* The initiator's buffer at the start of a run. */
static uint8_t *fm_linitial;
/* Shadows (and so pages, checked at the end of a run) changed from
 * their initial contents in this run: regions' bit i, the initiator's
 * buffer bit FM_MAX_REGIONS. Only those are restored at the next start. */
static uint32_t fm_dirty;
#define FM_LBUF_DIRTY (UINT32_C(1) << FM_MAX_REGIONS)

#define U64(x) ((unsigned long long)(x))

/* pages data pages between two PROT_NONE guard pages. */
static uint8_t *
fm_guarded(unsigned int pages)
{
	size_t len = (size_t)(pages + 2) * FM_PAGE;
	uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		fz_fail("mmap of %zu bytes failed", len);
	if (mprotect(p, FM_PAGE, PROT_NONE) != 0 ||
	    mprotect(p + (size_t)(pages + 1) * FM_PAGE, FM_PAGE,
		     PROT_NONE) != 0)
		fz_fail("mprotect of guard pages failed");
	return p + FM_PAGE;
}

void
fm_add_region(unsigned int pages, uint32_t reg_off, uint32_t reg_len,
	      uint64_t flags)
{
	struct fm_region *r;

	if (fm.n >= FM_MAX_REGIONS || reg_off >= FM_PAGE || reg_len == 0 ||
	    reg_off + reg_len > pages * FM_PAGE ||
	    reg_off + reg_len <= (pages - 1) * FM_PAGE)
		fz_fail("fm_add_region: bad region (harness bug)");
	r = &fm.r[fm.n++];
	memset(r, 0, sizeof(*r));
	r->pages = pages;
	r->reg_off = reg_off;
	r->reg_len = reg_len;
	r->flags = flags;
	r->base = fm_guarded(pages);
	r->shadow = malloc((size_t)pages * FM_PAGE);
	r->initial = malloc((size_t)pages * FM_PAGE);
	if (r->shadow == NULL || r->initial == NULL)
		fz_fail("no memory for a shadow");
	fz_pattern(r->initial, (size_t)pages * FM_PAGE, 0xa5a5 + fm.n);
}

void
fm_set_lbuf(unsigned int pages)
{
	fm.lbuf = fm_guarded(pages);
	fm.lbuf_len = (size_t)pages * FM_PAGE;
	fm_lshadow = malloc(fm.lbuf_len);
	fm_linitial = malloc(fm.lbuf_len);
	if (fm_lshadow == NULL || fm_linitial == NULL)
		fz_fail("no memory for a shadow");
	fz_pattern(fm_linitial, fm.lbuf_len, 0x5a5a);
	fm_dirty = UINT32_MAX;	/* nothing copied yet */
}

void
fm_reset(int initiator)
{
	unsigned int i;

	/* A clean region's pages equal its shadow (fm_finish checked them
	 * at the end of the last run, and nothing was registered since)
	 * and its shadow its initial contents. */
	for (i = 0; i < fm.n; i++) {
		struct fm_region *r = &fm.r[i];

		if (fm_dirty & (UINT32_C(1) << i)) {
			memcpy(r->base, r->initial,
			       (size_t)r->pages * FM_PAGE);
			memcpy(r->shadow, r->initial,
			       (size_t)r->pages * FM_PAGE);
		}
		r->registered = false;
		r->dead = false;
		r->maybe_dead = false;
		r->cookie = 0;
		r->sock = -1;
		r->owner = -1;
	}
	if (fm_dirty & FM_LBUF_DIRTY) {
		memcpy(fm.lbuf, fm_linitial, fm.lbuf_len);
		memcpy(fm_lshadow, fm_linitial, fm.lbuf_len);
	}
	fm_dirty = 0;
	fm.token = 1;
	fm.ops = 0;
	fm.initiator = initiator;
	fm.nt = 0;
}

void
fm_register(unsigned int i, int sock, int owner, uint32_t laddr)
{
	struct fm_region *r = &fm.r[i];
	struct rds_get_mr_args a;
	uint64_t cookie = 0;
	int ret;

	memset(&a, 0, sizeof(a));
	a.vec.addr = (uintptr_t)(r->base + r->reg_off);
	a.vec.bytes = r->reg_len;
	a.cookie_addr = (uintptr_t)&cookie;
	a.flags = r->flags;
	ret = rte_rds_setsockopt(sock, SOL_RDS, RDS_GET_MR, &a, sizeof(a));
	FZ_CHECK(ret == 0, "RDS_GET_MR of region %u failed: errno %d", i,
		 errno);
	/* rds-rdma(7): the cookie's high half is the offset into the
	 * first page. */
	FZ_CHECK(cookie >> 32 == r->reg_off, "region %u: cookie 0x%llx, its "
		 "offset should be %u", i, U64(cookie), r->reg_off);
	r->sock = sock;
	r->owner = owner;
	r->laddr = laddr;
	r->cookie = cookie;
	r->registered = true;
}

void
fm_deliver_hook(const struct fo_frame *f, bool matched)
{
	unsigned int i, k;

	for (i = 0; i < fm.n; i++) {
		struct fm_region *r = &fm.r[i];

		if (!r->registered || !(r->flags & RDS_RDMA_USE_ONCE) ||
		    r->owner != f->sock)
			continue;
		for (k = 0; k < f->ext.n_key; k++) {
			if (f->ext.key[k] != (uint32_t)r->cookie)
				continue;
			/* rds_recv_incoming_exthdrs -> rds_rdma_unuse: the
			 * owner received a message that used it. Certain
			 * only when that is the frame's one key in either
			 * reading of its extensions. */
			if (matched && f->ext.n_key == 1 &&
			    f->ext.n_key_strict == 1)
				r->dead = true;
			else
				r->maybe_dead = true;
		}
	}
}

static void
fm_cmp(const uint8_t *got, const uint8_t *want, size_t len, const char *what,
       unsigned int i)
{
	size_t k;

	if (memcmp(got, want, len) == 0)
		return;
	for (k = 0; k < len && got[k] == want[k]; k++)
		;
	fz_fail("%s %u: byte %zu changed to 0x%02x, must be 0x%02x", what, i,
		k, got[k], want[k]);
}

void
fm_check_mem(void)
{
	unsigned int i;

	for (i = 0; i < fm.n; i++)
		fm_cmp(fm.r[i].base, fm.r[i].shadow,
		       (size_t)fm.r[i].pages * FM_PAGE, "region", i);
	fm_cmp(fm.lbuf, fm_lshadow, fm.lbuf_len, "initiator buffer", 0);
}

static struct fm_region *
fm_by_key(uint32_t key)
{
	unsigned int i;

	for (i = 0; i < fm.n; i++)
		if (fm.r[i].registered && (uint32_t)fm.r[i].cookie == key)
			return &fm.r[i];
	return NULL;
}

/* The count of operations to target that may have had a wrong key. */
static unsigned int *
fm_wrong(uint32_t target)
{
	unsigned int i;

	for (i = 0; i < fm.nt; i++)
		if (fm.t[i].addr == target)
			return &fm.t[i].wrong;
	if (fm.nt == FM_MAX_TARGETS)
		fz_fail("more target addresses than FM_MAX_TARGETS");
	fm.t[fm.nt].addr = target;
	fm.t[fm.nt].wrong = 0;
	return &fm.t[fm.nt++].wrong;
}

/* May the library count the key of an operation on r (NULL: none of the
 * run's regions has it) to target as a wrong one? Not a region certainly
 * gone: its key is stale. */
static bool
fm_maybe_wrong(const struct fm_region *r, uint32_t target)
{
	return r == NULL || (!r->dead && target != r->laddr);
}

/* Masked fetch-and-add as InfiniBand defines it: the add runs in fields
 * that end at the bits set in the mask (no carry out of those bits). */
static uint64_t
fm_masked_add(uint64_t old, uint64_t add, uint64_t nocarry)
{
	uint64_t res = 0, fmask;
	unsigned int start = 0, b;

	for (b = 0; b < 64; b++) {
		if (!((nocarry >> b) & 1) && b != 63)
			continue;
		fmask = (b - start == 63) ? UINT64_MAX :
			((UINT64_C(2) << (b - start)) - 1) << start;
		res |= ((old & fmask) + (add & fmask)) & fmask;
		start = b + 1;
	}
	return res;
}

static int
fm_cmsg_type(enum fm_op_kind kind)
{
	switch (kind) {
	case FM_READ:
	case FM_WRITE:
		return RDS_CMSG_RDMA_ARGS;
	case FM_FADD:
		return RDS_CMSG_ATOMIC_FADD;
	case FM_CSWP:
		return RDS_CMSG_ATOMIC_CSWP;
	case FM_MFADD:
		return RDS_CMSG_MASKED_ATOMIC_FADD;
	default:
		return RDS_CMSG_MASKED_ATOMIC_CSWP;
	}
}

/* Expected outcome of an operation: must succeed, may, must fail. */
static enum fo_tri
fm_expect(const struct fm_region *r, enum fm_op_kind kind, uint32_t target,
	  uint64_t cookie, uint64_t off, uint32_t len, uint64_t *posp)
{
	bool write = kind != FM_READ, atomic = kind >= FM_FADD;
	uint64_t pos = (cookie >> 32) + off, mr_len;

	*posp = pos;
	if (r == NULL || r->dead || target != r->laddr)
		return FO_NO;
	/* The region is whole pages from the first one's start. */
	mr_len = (uint64_t)r->pages * FM_PAGE;
	if (pos < off || pos > mr_len || len > mr_len - pos)
		return FO_NO;
	if (write && !(r->flags & RDS_RDMA_READWRITE))
		return FO_NO;
	if (atomic && ((uintptr_t)(r->base + pos) & 7) != 0)
		return FO_NO;
	/* Between the registered bytes and the page ends: a receiver may
	 * allow it (the kernel registers whole pages) or not. */
	if (r->maybe_dead || pos < r->reg_off ||
	    pos + len > (uint64_t)r->reg_off + r->reg_len)
		return FO_MAYBE;
	return FO_YES;
}

static void
fm_apply(struct fm_region *r, enum fm_op_kind kind, uint64_t pos,
	 uint32_t len, const uint64_t a[4])
{
	uint8_t *p = r->shadow + pos;
	uint64_t old, nv;

	fm_dirty |= FM_LBUF_DIRTY | UINT32_C(1) << (r - fm.r);

	switch (kind) {
	case FM_READ:
		memcpy(fm_lshadow, p, len);
		return;
	case FM_WRITE:
		memcpy(p, fm_lshadow, len);
		return;
	default:
		break;
	}
	memcpy(&old, p, 8);
	switch (kind) {
	case FM_FADD:
		nv = old + a[0];
		break;
	case FM_CSWP:
		nv = old == a[0] ? a[1] : old;
		break;
	case FM_MFADD:
		nv = fm_masked_add(old, a[0], a[1]);
		break;
	default:	/* FM_MCSWP: compare, swap, compare_mask, swap_mask */
		nv = ((old ^ a[0]) & a[2]) == 0 ?
		     (old & ~a[3]) | (a[1] & a[3]) : old;
		break;
	}
	memcpy(p, &nv, 8);
	memcpy(fm_lshadow, &old, 8);
}

/* Wait for the notification of token; its status. */
static int
fm_wait_notify(uint64_t token, void (*poll)(void))
{
	uint8_t ctl[CMSG_SPACE(sizeof(struct rds_rdma_notify)) * 4];
	struct rds_rdma_notify n;
	struct sockaddr_in from;
	struct cmsghdr *cm;
	struct msghdr msg;
	struct iovec iov;
	uint8_t data[64];
	unsigned int tries;
	ssize_t ret;

	for (tries = 0; tries < 256; tries++) {
		poll();
		memset(&msg, 0, sizeof(msg));
		iov.iov_base = data;
		iov.iov_len = sizeof(data);
		msg.msg_name = &from;
		msg.msg_namelen = sizeof(from);
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = ctl;
		msg.msg_controllen = sizeof(ctl);
		ret = rte_rds_recvmsg(fm.initiator, &msg, MSG_DONTWAIT);
		if (ret < 0) {
			FZ_CHECK(errno == EAGAIN, "initiator recvmsg: errno %d",
				 errno);
			continue;
		}
		FZ_CHECK(ret == 0 && msg.msg_namelen == 0,
			 "the initiator received a message (%zd bytes); "
			 "nobody sent it one", ret);
		for (cm = CMSG_FIRSTHDR(&msg); cm != NULL;
		     cm = CMSG_NXTHDR(&msg, cm)) {
			if (cm->cmsg_level != SOL_RDS ||
			    cm->cmsg_type != RDS_CMSG_RDMA_STATUS)
				continue;
			memcpy(&n, CMSG_DATA(cm), sizeof(n));
			FZ_CHECK(n.user_token == token, "notification for "
				 "token %llu, waiting for %llu",
				 U64(n.user_token), U64(token));
			return n.status;
		}
	}
	fz_fail("no notification for RDMA operation %llu (NOTIFY_ME)",
		U64(token));
}

void
fm_op(enum fm_op_kind kind, uint32_t target, uint16_t dport, uint64_t cookie,
      uint64_t off, uint32_t len, const uint64_t a[4], uint64_t wseed,
      void (*poll)(void))
{
	uint8_t ctl[CMSG_SPACE(sizeof(struct rds_rdma_args) +
			       sizeof(struct rds_atomic_args))];
	struct fm_region *r = fm_by_key((uint32_t)cookie);
	struct sockaddr_in to;
	struct rds_iovec vec;
	struct cmsghdr *cm;
	struct msghdr msg;
	enum fo_tri expect;
	uint64_t pos, token = fm.token++;
	unsigned int *wrong;
	bool held;
	int status;
	ssize_t ret;

	if (kind >= FM_FADD)
		len = 8;
	len = RTE_MAX(len, 1u);
	len = RTE_MIN(len, (uint32_t)fm.lbuf_len);
	expect = fm_expect(r, kind, target, cookie, off, len, &pos);

	memset(ctl, 0, sizeof(ctl));
	memset(&msg, 0, sizeof(msg));
	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	to.sin_addr.s_addr = target;
	to.sin_port = htons(dport);
	msg.msg_name = &to;
	msg.msg_namelen = sizeof(to);
	msg.msg_control = ctl;
	cm = (struct cmsghdr *)ctl;
	cm->cmsg_level = SOL_RDS;
	cm->cmsg_type = fm_cmsg_type(kind);
	if (kind == FM_READ || kind == FM_WRITE) {
		struct rds_rdma_args ra;

		if (kind == FM_WRITE) {
			fm_dirty |= FM_LBUF_DIRTY;
			fz_pattern(fm.lbuf, len, wseed);
			memcpy(fm_lshadow, fm.lbuf, len);
		}
		memset(&ra, 0, sizeof(ra));
		vec.addr = (uintptr_t)fm.lbuf;
		vec.bytes = len;
		ra.cookie = cookie;
		ra.remote_vec.addr = off;
		ra.remote_vec.bytes = len;
		ra.local_vec_addr = (uintptr_t)&vec;
		ra.nr_local = 1;
		ra.flags = RDS_RDMA_NOTIFY_ME |
			   (kind == FM_WRITE ? RDS_RDMA_READWRITE : 0);
		ra.user_token = token;
		cm->cmsg_len = CMSG_LEN(sizeof(ra));
		memcpy(CMSG_DATA(cm), &ra, sizeof(ra));
		msg.msg_controllen = CMSG_SPACE(sizeof(ra));
	} else {
		struct rds_atomic_args aa;

		memset(&aa, 0, sizeof(aa));
		aa.cookie = cookie;
		aa.local_addr = (uintptr_t)fm.lbuf;
		aa.remote_addr = off;
		switch (kind) {
		case FM_FADD:
			aa.fadd.add = a[0];
			break;
		case FM_CSWP:
			aa.cswp.compare = a[0];
			aa.cswp.swap = a[1];
			break;
		case FM_MFADD:
			aa.m_fadd.add = a[0];
			aa.m_fadd.nocarry_mask = a[1];
			break;
		default:
			aa.m_cswp.compare = a[0];
			aa.m_cswp.swap = a[1];
			aa.m_cswp.compare_mask = a[2];
			aa.m_cswp.swap_mask = a[3];
			break;
		}
		aa.flags = RDS_RDMA_NOTIFY_ME;
		aa.user_token = token;
		cm->cmsg_len = CMSG_LEN(sizeof(aa));
		memcpy(CMSG_DATA(cm), &aa, sizeof(aa));
		msg.msg_controllen = CMSG_SPACE(sizeof(aa));
	}
	ret = rte_rds_sendmsg(fm.initiator, &msg, MSG_DONTWAIT);
	FZ_CHECK(ret == 0, "RDMA sendmsg (kind %d, %u bytes) failed: errno %d",
		 kind, len, errno);
	fm.ops++;
	status = fm_wait_notify(token, poll);
	FZ_TRACE("rdma %llu: region %d, expected %s, status %d", U64(token),
		 r != NULL ? (int)(r - fm.r) : -1,
		 expect == FO_YES ? "success" : expect == FO_NO ? "failure" :
		 "either", status);
	wrong = fm_wrong(target);
	held = *wrong >= FM_KEY_LIMIT;
	if (fm_maybe_wrong(r, target))
		(*wrong)++;
	if (held && status == RDS_RDMA_DROPPED) {
		/* The connection held off for wrong keys: refused, not
		 * run. */
		fm_check_mem();
		return;
	}
	if (expect == FO_YES)
		FZ_CHECK(status == RDS_RDMA_SUCCESS, "RDMA operation %llu "
			 "(kind %d, region %d, offset %llu, %u bytes) had to "
			 "succeed, status %d", U64(token), kind,
			 r != NULL ? (int)(r - fm.r) : -1, U64(pos), len,
			 status);
	if (expect == FO_NO)
		FZ_CHECK(status != RDS_RDMA_SUCCESS, "RDMA operation %llu "
			 "(kind %d, region %d, offset %llu, %u bytes) had to "
			 "fail, it succeeded", U64(token), kind,
			 r != NULL ? (int)(r - fm.r) : -1, U64(pos), len);
	if (status == RDS_RDMA_SUCCESS) {
		fm_apply(r, kind, pos, len, a);
		/* The executor used it: USE_ONCE may end it (the kernel
		 * ends it when the message reaches the owner). */
		if (r->flags & RDS_RDMA_USE_ONCE)
			r->maybe_dead = true;
	}
	fm_check_mem();
}

void
fm_free(unsigned int i)
{
	struct fm_region *r = &fm.r[i];
	struct rds_free_mr_args a;
	int ret;

	if (!r->registered)
		return;
	memset(&a, 0, sizeof(a));
	a.cookie = r->cookie;
	ret = rte_rds_setsockopt(r->sock, SOL_RDS, RDS_FREE_MR, &a, sizeof(a));
	if (ret == 0)
		FZ_CHECK(!r->dead, "region %u: RDS_FREE_MR succeeded, the "
			 "region had to be gone already", i);
	else
		FZ_CHECK(errno == EINVAL && (r->dead || r->maybe_dead),
			 "region %u: RDS_FREE_MR failed (errno %d), the region "
			 "had to be registered", i, errno);
	r->dead = true;
	fm_check_mem();
}

void
fm_finish(void)
{
	unsigned int i;

	fm_check_mem();
	/* Every region, gone or not: the library must agree. */
	for (i = 0; i < fm.n; i++)
		fm_free(i);
	for (i = 0; i < fm.n; i++)
		fm.r[i].registered = false;
}

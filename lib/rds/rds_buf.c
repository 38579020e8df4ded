/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Message buffers: one contiguous buffer per message (header + payload),
 * in size classes of 64 B .. 1 MiB of payload, powers of two.
 *
 * Small classes (up to 16 KiB of payload) are carved from 256 KiB slabs
 * and kept on free lists for the library's lifetime; each thread keeps a
 * cache of a few buffers per class, so that an allocation or a free is a
 * few instructions and no lock (the fast paths are inline, in
 * rds_private.h). Large classes are allocated one by one and kept on
 * their free list up to the configured cache size, then given back.
 * Nothing here calls into the EAL: the application side (which may run
 * in a process without EAL) allocates and frees with the same code as
 * engines.
 *
 * With the libc_alloc build option every buffer comes from malloc and
 * goes back to free, so that AddressSanitizer sees each one.
 *
 * Regions (rds_buf_region_get): a transport that sends from message
 * buffers in place (ib's zero-copy, which registers memory) finds the
 * region a buffer lies in: its slab, or a large buffer on its own, made
 * a region the first time it is asked for and dropped when the buffer
 * goes back to libc. The transport hangs its data (its registrations)
 * on a region and is told to release it when the region goes
 * (rds_buf_listener_set). Slabs are regions from their creation;
 * nothing is asked of the transport then, it registers at first use.
 * With libc_alloc there are no regions: every buffer is new.
 */
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include "rds_private.h"

#define RDS_BUF_SLAB_SIZE (256u << 10)
#define RDS_BUF_BATCH 16		/* moved to/from the shared list */

_Static_assert((1u << (RDS_BUF_MIN_SHIFT + RDS_BUF_NB_CLASSES - 1)) ==
	       RDS_MAX_MSG_SIZE, "classes end at the largest message");

/* A free buffer: its first word links the free list. */
struct rds_free_buf {
	struct rds_free_buf *next;
};

struct rds_buf_class {
	rte_spinlock_t lock;
	struct rds_free_buf *free;
	uint32_t nb_free;
	uint32_t size;			/* bytes a buffer, header included */
	/* Slabs of this class (small classes), for rds_buf_fini. */
	void **slabs;
	uint32_t nb_slabs;
	uint32_t slabs_cap;
} __rte_cache_aligned;

static struct rds_buf_class rds_classes[RDS_BUF_NB_CLASSES];
static uint64_t rds_buf_cache_limit;	/* bytes of large free buffers */
static uint64_t rds_buf_cached;		/* bytes on large free lists */
#ifdef RDS_LIBC_ALLOC
/* Message buffers and rds_mem_zalloc() blocks allocated now (atomic). */
static uint64_t rds_buf_live, rds_mem_live;
#endif

/* Regions, sorted by base; the lock is taken after a class's, never
 * before, and no callback runs under it. */
static rte_spinlock_t rds_reg_lock = RTE_SPINLOCK_INITIALIZER;
static struct rds_buf_region **rds_regs;
static uint32_t rds_nb_regs, rds_regs_cap;
static uint32_t rds_nb_large_regs;	/* large buffers among them */
static void (*rds_reg_release)(void *tp);

/* Index of the first region whose base is above addr. Under the lock. */
static uint32_t
rds_reg_upper(uintptr_t addr)
{
	uint32_t lo = 0, hi = rds_nb_regs;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (rds_regs[mid]->base <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The region holding addr, or NULL. Under the lock. */
static struct rds_buf_region *
rds_reg_find(uintptr_t addr)
{
	uint32_t i = rds_reg_upper(addr);
	struct rds_buf_region *r;

	if (i == 0)
		return NULL;
	r = rds_regs[i - 1];
	return addr - r->base < r->len ? r : NULL;
}

/* A new region [base, base + len). Under the lock. */
static struct rds_buf_region *
rds_reg_insert(uintptr_t base, size_t len, bool large)
{
	struct rds_buf_region *r;
	uint32_t i;

	if (rds_nb_regs == rds_regs_cap) {
		uint32_t cap = rds_regs_cap ? rds_regs_cap * 2 : 64;
		struct rds_buf_region **a = realloc(rds_regs, sizeof(*a) * cap);

		if (a == NULL)
			return NULL;
		rds_regs = a;
		rds_regs_cap = cap;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return NULL;
	r->base = base;
	r->len = len;
	r->large = large;
	i = rds_reg_upper(base);
	memmove(&rds_regs[i + 1], &rds_regs[i],
		sizeof(*rds_regs) * (rds_nb_regs - i));
	rds_regs[i] = r;
	rds_nb_regs++;
	if (large)
		__atomic_fetch_add(&rds_nb_large_regs, 1, __ATOMIC_RELAXED);
	return r;
}

/* The transport's data of r goes (r is gone, or the transport). */
static void
rds_reg_drop_tp(struct rds_buf_region *r)
{
	void *tp = __atomic_exchange_n(&r->tp, NULL, __ATOMIC_ACQ_REL);

	if (tp != NULL && rds_reg_release != NULL)
		rds_reg_release(tp);
}

/* A large buffer goes back to libc: its region first, if it has one. */
static void
rds_reg_remove_large(void *p)
{
	struct rds_buf_region *r = NULL;
	uint32_t i;

	if (__atomic_load_n(&rds_nb_large_regs, __ATOMIC_RELAXED) == 0)
		return;
	rte_spinlock_lock(&rds_reg_lock);
	i = rds_reg_upper((uintptr_t)p);
	if (i != 0 && rds_regs[i - 1]->base == (uintptr_t)p) {
		r = rds_regs[i - 1];
		memmove(&rds_regs[i - 1], &rds_regs[i],
			sizeof(*rds_regs) * (rds_nb_regs - i));
		rds_nb_regs--;
		__atomic_fetch_sub(&rds_nb_large_regs, 1, __ATOMIC_RELAXED);
	}
	rte_spinlock_unlock(&rds_reg_lock);
	if (r != NULL) {
		rds_reg_drop_tp(r);
		free(r);
	}
}

struct rds_buf_region *
rds_buf_region_get(const struct rds_msg *b)
{
	struct rds_buf_region *r;

#ifdef RDS_LIBC_ALLOC
	return NULL;
#endif
	if (b->cls == RDS_BUF_CLS_EXT)
		return NULL;	/* not one of ours: its payload elsewhere */
	rte_spinlock_lock(&rds_reg_lock);
	r = rds_reg_find((uintptr_t)b);
	if (r == NULL && b->cls >= RDS_BUF_TC_CLASSES)
		r = rds_reg_insert((uintptr_t)b, rds_classes[b->cls].size, true);
	rte_spinlock_unlock(&rds_reg_lock);
	return r;
}

void
rds_buf_listener_set(void (*release)(void *tp))
{
	uint32_t i;

	if (release == NULL && rds_reg_release != NULL) {
		/* Every region's data goes now (no region goes meanwhile:
		 * this runs at the transport's fini). */
		for (i = 0; i < rds_nb_regs; i++)
			rds_reg_drop_tp(rds_regs[i]);
	}
	rds_reg_release = release;
}

void *
rds_mem_alloc(const char *what, size_t size)
{
	void *p = NULL;

	RTE_SET_USED(what);
	if (posix_memalign(&p, RTE_CACHE_LINE_SIZE, size) != 0)
		return NULL;
#ifdef RDS_LIBC_ALLOC
	__atomic_add_fetch(&rds_mem_live, 1, __ATOMIC_RELAXED);
#endif
	return p;
}

void *
rds_mem_zalloc(const char *what, size_t size)
{
	void *p = rds_mem_alloc(what, size);

	if (p != NULL)
		memset(p, 0, size);
	return p;
}

void
rds_mem_free(void *p)
{
#ifdef RDS_LIBC_ALLOC
	if (p != NULL)
		__atomic_sub_fetch(&rds_mem_live, 1, __ATOMIC_RELAXED);
#endif
	free(p);
}

#ifdef RDS_LIBC_ALLOC
uint64_t
rds_buf_nb_live(void)
{
	return __atomic_load_n(&rds_buf_live, __ATOMIC_RELAXED);
}

uint64_t
rds_mem_nb_live(void)
{
	return __atomic_load_n(&rds_mem_live, __ATOMIC_RELAXED);
}
#endif

int
rds_buf_init(const struct rte_rds_conf *conf)
{
	unsigned int c;

	for (c = 0; c < RDS_BUF_NB_CLASSES; c++) {
		struct rds_buf_class *bc = &rds_classes[c];

		memset(bc, 0, sizeof(*bc));
		rte_spinlock_init(&bc->lock);
		bc->size = (uint32_t)sizeof(struct rds_msg) +
			   (1u << (RDS_BUF_MIN_SHIFT + c));
		bc->size = RTE_ALIGN_CEIL(bc->size, RTE_CACHE_LINE_SIZE);
	}
	rds_buf_cache_limit = conf->buf_cache_bytes;
	rds_buf_cached = 0;
	rds_nb_regs = rds_nb_large_regs = 0;
	return 0;
}

void
rds_buf_fini(void)
{
	struct rds_free_buf *f, *next;
	unsigned int c, i;

	/* Registrations go before the memory (the transport dropped its
	 * own at its fini already). */
	for (i = 0; i < rds_nb_regs; i++)
		rds_reg_drop_tp(rds_regs[i]);
	/* Threads' caches are abandoned: the epoch (bumped before this)
	 * tells each thread at its next call. */
	for (c = 0; c < RDS_BUF_NB_CLASSES; c++) {
		struct rds_buf_class *bc = &rds_classes[c];

		if (c >= RDS_BUF_TC_CLASSES) {
			for (f = bc->free; f != NULL; f = next) {
				next = f->next;
				rds_reg_remove_large(f);
				free(f);
			}
		}
		for (i = 0; i < bc->nb_slabs; i++)
			free(bc->slabs[i]);
		free(bc->slabs);
		bc->slabs = NULL;
		bc->nb_slabs = bc->slabs_cap = 0;
		bc->free = NULL;
		bc->nb_free = 0;
	}
	for (i = 0; i < rds_nb_regs; i++)
		free(rds_regs[i]);
	free(rds_regs);
	rds_regs = NULL;
	rds_nb_regs = rds_regs_cap = rds_nb_large_regs = 0;
}

/* A new slab for a small class, onto its free list. Under bc->lock. */
static int
rds_buf_grow(struct rds_buf_class *bc)
{
	uint32_t n = RDS_BUF_SLAB_SIZE / bc->size, i;
	uint8_t *slab;
	void *p = NULL;

	if (bc->nb_slabs == bc->slabs_cap) {
		uint32_t cap = bc->slabs_cap ? bc->slabs_cap * 2 : 16;
		void **s = realloc(bc->slabs, sizeof(*s) * cap);

		if (s == NULL)
			return -ENOMEM;
		bc->slabs = s;
		bc->slabs_cap = cap;
	}
	if (posix_memalign(&p, 4096, (size_t)n * bc->size) != 0)
		return -ENOMEM;
	rte_spinlock_lock(&rds_reg_lock);
	if (rds_reg_insert((uintptr_t)p, (size_t)n * bc->size, false) == NULL) {
		rte_spinlock_unlock(&rds_reg_lock);
		free(p);
		return -ENOMEM;
	}
	rte_spinlock_unlock(&rds_reg_lock);
	slab = p;
	bc->slabs[bc->nb_slabs++] = slab;
	for (i = 0; i < n; i++) {
		struct rds_free_buf *f = (void *)(slab + (size_t)i * bc->size);

		f->next = bc->free;
		bc->free = f;
	}
	bc->nb_free += n;
	return 0;
}

/* Refill the thread cache of class c from the shared list. */
static int
rds_buf_refill(struct rds_thread *t, unsigned int c)
{
	struct rds_buf_class *bc = &rds_classes[c];
	unsigned int k;

	rte_spinlock_lock(&bc->lock);
	if (bc->free == NULL && rds_buf_grow(bc) != 0) {
		rte_spinlock_unlock(&bc->lock);
		return -ENOMEM;
	}
	for (k = 0; k < RDS_BUF_BATCH && bc->free != NULL; k++) {
		t->tc[c][t->tc_n[c]++] = bc->free;
		bc->free = bc->free->next;
		bc->nb_free--;
	}
	rte_spinlock_unlock(&bc->lock);
	return 0;
}

static void
rds_buf_spill(struct rds_thread *t, unsigned int c, unsigned int keep)
{
	struct rds_buf_class *bc = &rds_classes[c];

	rte_spinlock_lock(&bc->lock);
	while (t->tc_n[c] > keep) {
		struct rds_free_buf *f = t->tc[c][--t->tc_n[c]];

		f->next = bc->free;
		bc->free = f;
		bc->nb_free++;
	}
	rte_spinlock_unlock(&bc->lock);
}

/* A thread exits (rds_thread.c, under its lock): its caches go back. */
void
rds_buf_thread_flush(void)
{
	struct rds_thread *t = rds_self;
	unsigned int c;

	if (t == NULL || t->epoch != rds_epoch)
		return;
	for (c = 0; c < RDS_BUF_TC_CLASSES; c++)
		if (t->tc_n[c] != 0)
			rds_buf_spill(t, c, 0);
}

static void *
rds_buf_get(unsigned int c)
{
	struct rds_buf_class *bc = &rds_classes[c];
	struct rds_free_buf *f;
	struct rds_thread *t;
	void *p = NULL;

#ifdef RDS_LIBC_ALLOC
	if (posix_memalign(&p, RTE_CACHE_LINE_SIZE, bc->size) != 0)
		return NULL;
	__atomic_add_fetch(&rds_buf_live, 1, __ATOMIC_RELAXED);
	return p;
#endif
	if (c < RDS_BUF_TC_CLASSES) {
		t = rds_thread_get();
		if (t == NULL) {
			/* No thread state (no memory): the shared list. */
			rte_spinlock_lock(&bc->lock);
			if (bc->free == NULL)
				rds_buf_grow(bc);
			f = bc->free;
			if (f != NULL) {
				bc->free = f->next;
				bc->nb_free--;
			}
			rte_spinlock_unlock(&bc->lock);
			return f;
		}
		if (t->tc_n[c] == 0 && rds_buf_refill(t, c) != 0)
			return NULL;
		p = t->tc[c][--t->tc_n[c]];
		return p;
	}
	rte_spinlock_lock(&bc->lock);
	f = bc->free;
	if (f != NULL) {
		bc->free = f->next;
		bc->nb_free--;
		rds_buf_cached -= bc->size;
	}
	rte_spinlock_unlock(&bc->lock);
	if (f == NULL && posix_memalign((void **)&f, 4096, bc->size) != 0)
		return NULL;
	return f;
}

static void
rds_buf_put(unsigned int c, void *p)
{
	struct rds_buf_class *bc = &rds_classes[c];
	struct rds_free_buf *f = p;
	struct rds_thread *t;

#ifdef RDS_LIBC_ALLOC
	__atomic_sub_fetch(&rds_buf_live, 1, __ATOMIC_RELAXED);
	free(p);
	return;
#endif
	if (c < RDS_BUF_TC_CLASSES) {
		t = rds_thread_get();
		if (t == NULL) {
			rte_spinlock_lock(&bc->lock);
			f->next = bc->free;
			bc->free = f;
			bc->nb_free++;
			rte_spinlock_unlock(&bc->lock);
			return;
		}
		if (t->tc_n[c] == RDS_BUF_TCACHE)
			rds_buf_spill(t, c, RDS_BUF_TCACHE - RDS_BUF_BATCH);
		t->tc[c][t->tc_n[c]++] = f;
		return;
	}
	rte_spinlock_lock(&bc->lock);
	if (rds_buf_cached + bc->size <= rds_buf_cache_limit) {
		f->next = bc->free;
		bc->free = f;
		bc->nb_free++;
		rds_buf_cached += bc->size;
		f = NULL;
	}
	rte_spinlock_unlock(&bc->lock);
	if (f != NULL) {
		rds_reg_remove_large(f);
		free(f);
	}
}

struct rds_msg *
rds_msg_alloc_slow(uint32_t len)
{
	unsigned int c;
	struct rds_msg *m;

	if (unlikely(len > RDS_MAX_MSG_SIZE + RDS_CONG_MAP_BYTES))
		return NULL;
	c = rds_buf_class_of(len);
	if (unlikely(c >= RDS_BUF_NB_CLASSES))
		return NULL;
	m = rds_buf_get(c);
	if (m != NULL)
		rds_msg_init(m, c, len);
	return m;
}

static void (*rds_buf_ext_release)(struct rds_msg *m);

void
rds_buf_ext_hook_set(void (*release)(struct rds_msg *m))
{
	rds_buf_ext_release = release;
}

void
rds_msg_put_slow(struct rds_msg *m)
{
	if (__atomic_load_n(&m->refs, __ATOMIC_ACQUIRE) != 1 &&
	    __atomic_sub_fetch(&m->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	if (m->op != NULL) {
		rds_rdma_op_free(m->op);
		m->op = NULL;
	}
	if (unlikely(m->cls == RDS_BUF_CLS_EXT)) {
		/* Its payload goes back where it came from; its own buffer
		 * is of class 0 (rds_msg_alloc(0)). */
		rds_buf_ext_release(m);
		m->cls = 0;
	}
	rds_buf_put(m->cls, m);
}

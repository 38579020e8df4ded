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

void *
rds_mem_zalloc(const char *what, size_t size)
{
	void *p = NULL;

	RTE_SET_USED(what);
	if (posix_memalign(&p, RTE_CACHE_LINE_SIZE, size) != 0)
		return NULL;
	memset(p, 0, size);
	return p;
}

void
rds_mem_free(void *p)
{
	free(p);
}

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
	return 0;
}

void
rds_buf_fini(void)
{
	struct rds_free_buf *f, *next;
	unsigned int c, i;

	/* Threads' caches are abandoned: the epoch (bumped before this)
	 * tells each thread at its next call. */
	for (c = 0; c < RDS_BUF_NB_CLASSES; c++) {
		struct rds_buf_class *bc = &rds_classes[c];

		if (c >= RDS_BUF_TC_CLASSES) {
			for (f = bc->free; f != NULL; f = next) {
				next = f->next;
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
	free(f);
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
	rds_buf_put(m->cls, m);
}

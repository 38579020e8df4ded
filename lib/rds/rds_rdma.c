/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA (net/rds/rdma.c, rds-rdma(7)): memory regions registered for a
 * 64-bit cookie, the RDMA and atomic control messages of sendmsg, and the
 * software executor that transports without RDMA hardware (loop, eth)
 * run on the target's side.
 *
 * Cookies are r_key | offset << 32. Regions cover whole pages and are
 * addressed zero-based, as the kernel registers them: the target address
 * is the page base + the cookie's offset + the operation's offset.
 * Software keys come from the kernel's CSPRNG (rds_rdma_key.c) and are
 * unique among live regions; every access is checked against the
 * region's bounds and rights under the table's lock, so a region freed
 * with INVALIDATE is never touched after FREE_MR returns.
 *
 * This file: the region table, registering and freeing regions, and
 * the socket options that do it (GET_MR, GET_MR_FOR_DEST, FREE_MR).
 * The control messages of sendmsg are in rds_rdma_cmsg.c, the software
 * executor in rds_rdma_exec.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include <rte_hash.h>
#include <rte_jhash.h>
#include <rte_rwlock.h>

#include "rds_rdma_private.h"

/* Keys drawn per registration (rds_mr_register). */
#define RDS_MR_KEY_CANDIDATES 4
/* Keys of the last regions freed that rds_mr_key_freed() knows. */
#define RDS_MR_FREED 4096

struct rte_hash *rds_mr_hash;
rte_rwlock_t rds_mr_lock = RTE_RWLOCK_INITIALIZER;

/* The keys of the last regions freed, under rds_mr_lock: a request with
 * one of them is a cookie used as its region went (freed, USE_ONCE
 * used, its socket closed while a peer's operation was on its way), not
 * a guess, and counts against nobody (rds_rdma_guard.c). A guess is one
 * of them with probability 4096 / 2^32 and reaches nothing either way.
 * The ring keeps their order (the oldest goes first); the hash maps each
 * key in it to the number of times it is there (a key may be drawn
 * again once its region went), so that a wrong key is looked up in
 * O(1), not against the whole ring. */
static uint32_t rds_mr_freed[RDS_MR_FREED];
static unsigned int rds_mr_freed_next;
static struct rte_hash *rds_mr_freed_hash;

int
rds_mr_init(void)
{
	struct rte_hash_parameters p = {
		.name = "rds_mr",
		.entries = RDS_MR_MAX,
		.key_len = sizeof(uint32_t),
		.hash_func = rte_jhash,
		.socket_id = rds_lib->conf.socket_id,
	};
	struct rte_hash_parameters pf = {
		.name = "rds_mr_freed",
		.entries = RDS_MR_FREED,
		.key_len = sizeof(uint32_t),
		.hash_func = rte_jhash,
		.socket_id = rds_lib->conf.socket_id,
		/* Room for every key of the ring, whatever their hashes. */
		.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};

	memset(rds_mr_freed, 0, sizeof(rds_mr_freed));
	rds_mr_freed_next = 0;
	rds_mr_hash = rte_hash_create(&p);
	if (rds_mr_hash == NULL)
		return -rte_errno;
	rds_mr_freed_hash = rte_hash_create(&pf);
	if (rds_mr_freed_hash == NULL) {
		rte_hash_free(rds_mr_hash);
		rds_mr_hash = NULL;
		return -rte_errno;
	}
	return 0;
}

static void
rds_mr_release(struct rds_mr *mr)
{
	const struct rds_transport *t = mr->trans;

	if (t != NULL && t->mr_free != NULL)
		t->mr_free(mr);
	rds_xmem_put(mr->mem);
	rds_mem_free(mr);
}

void
rds_mr_fini(void)
{
	const void *key;
	void *data;
	uint32_t it = 0;

	if (rds_mr_hash == NULL)
		return;
	while (rte_hash_iterate(rds_mr_hash, &key, &data, &it) >= 0) {
		((struct rds_mr *)data)->invalidate = true;
		rds_mr_release(data);
	}
	rte_hash_free(rds_mr_hash);
	rds_mr_hash = NULL;
	rte_hash_free(rds_mr_freed_hash);
	rds_mr_freed_hash = NULL;
}

/* As net/rds/rdma.c __rds_rdma_map: a range that wraps, or whose page
 * rounding wraps, or empty, or over UINT_MAX bytes (rds_pages_in_vec()
 * 0): EINVAL; more than 1 MiB of pages plus the partial one: EMSGSIZE.
 * Else 0 with its whole pages [*base, *end). */
static int
rds_mr_range(uint64_t addr, uint64_t bytes, uint64_t *base, uint64_t *end)
{
	if (bytes == 0 || bytes > UINT32_MAX || addr + bytes < addr ||
	    addr + bytes + RDS_MR_PAGE - 1 < addr + bytes)
		return -EINVAL;
	*base = addr & ~(RDS_MR_PAGE - 1);
	*end = (addr + bytes + RDS_MR_PAGE - 1) & ~(RDS_MR_PAGE - 1);
	if (*end - *base > RDS_MAX_MSG_SIZE + RDS_MR_PAGE)
		return -EMSGSIZE;
	return 0;
}

int
rds_rdma_map_check(const struct rds_get_mr_args *a, uint64_t *cookie_off)
{
	uint64_t base, end;
	int ret = rds_mr_range(a->vec.addr, a->vec.bytes, &base, &end);

	if (ret != 0)
		return ret;
	*cookie_off = a->vec.addr - base;
	return rds_mem_check(NULL, (uintptr_t)base, (size_t)(end - base),
			     PROT_READ | ((a->flags & RDS_RDMA_READWRITE) ?
					  PROT_WRITE : 0));
}

static void rds_mr_remove_locked(struct rds_mr *mr);

/* A new table entry of socket rs (not in the table yet). */
static struct rds_mr *
rds_mr_new(struct rds_sock *rs)
{
	struct rds_mr *mr = rds_mem_zalloc("rds_mr", sizeof(*mr));

	if (mr == NULL)
		return NULL;
	mr->mem = rs->mem;
	rds_xmem_get(mr->mem);
	mr->sock = rs->id;
	mr->sock_gen = rs->gen;
	mr->laddr = rs->f.bound_addr;
	return mr;
}

/* Into the table under key, counted for its owner. Under the write
 * lock. */
static int
rds_mr_add_locked(struct rds_sock *rs, struct rds_mr *mr)
{
	int ret = rte_hash_add_key_data(rds_mr_hash, &mr->key, mr);

	if (ret < 0)
		return ret;
	mr->owner_nb = &rs->nb_mrs;
	__atomic_fetch_add(mr->owner_nb, 1, __ATOMIC_RELAXED);
	if (mr->state != RDS_MR_LIVE) {
		mr->owner_resv = &rs->nb_mr_resv;
		__atomic_fetch_add(mr->owner_resv, 1, __ATOMIC_RELAXED);
	}
	return 0;
}

/* Register [addr, addr + bytes) for socket rs; returns the cookie. */
static int
rds_mr_register(struct rds_sock *rs, uint64_t addr, uint64_t bytes,
		uint64_t flags, uint64_t *cookie)
{
	const struct rds_transport *t = rs->la->trans;
	uint32_t keys[RDS_MR_KEY_CANDIDATES];
	struct rds_mr *mr;
	uint64_t base, end;
	unsigned int i;
	int ret;

	/* rds_mr_range; pages that cannot be pinned with the rights asked:
	 * EFAULT (rds_pin_pages). */
	ret = rds_mr_range(addr, bytes, &base, &end);
	if (ret != 0)
		return ret;
	/* Every page, as the kernel pins them; writable for a READWRITE
	 * region. Read-only memory is accepted for a region without
	 * READWRITE, which the engine never writes: the kernel refuses it
	 * (it always pins for writing, "or we'll do a lot of RDMA to the
	 * zero page"), but nothing here needs the write right and an
	 * application may serve read-only data (documented departure). */
	/* A client's memory (attached process) is checked in that process
	 * and reached with process_vm_*; a NIC cannot reach it (ib:
	 * EOPNOTSUPP, rte_rds_attach.h). */
	if (rs->mem != NULL && t->mr_reg != NULL)
		return -EOPNOTSUPP;
	ret = rds_mem_check(rs->mem, (uintptr_t)base, (size_t)(end - base),
			    PROT_READ | ((flags & RDS_RDMA_READWRITE) ?
					 PROT_WRITE : 0));
	if (ret != 0)
		return ret;
	mr = rds_mr_new(rs);
	if (mr == NULL)
		return -ENOMEM;
	mr->base = base;
	mr->len = end - base;
	mr->flags = (uint32_t)flags;
	if (t->mr_reg != NULL) {
		/* Hardware keys (ib): the device chooses the key. */
		ret = t->mr_reg(rs->la, mr);
		if (ret != 0) {
			rds_xmem_put(mr->mem);
			rds_mem_free(mr);
			return ret;
		}
		mr->trans = t;
	}
	/* Software keys: candidates drawn before the table's lock is taken
	 * (no system call while engines wait for it), the first one that
	 * is not 0 and names no live region taken. With N regions each
	 * candidate is taken with probability N / 2^32: all of them, at
	 * most 2^-64 with the most regions there can be (a full table,
	 * as full: EAGAIN). */
	if (t->mr_reg == NULL) {
		ret = rds_rdma_keys(keys, RTE_DIM(keys));
		if (ret != 0) {
			rds_mr_release(mr);	/* and its reference to mem */
			return ret;
		}
	}
	rte_rwlock_write_lock(&rds_mr_lock);
	ret = 0;
	for (i = 0; t->mr_reg == NULL; i++) {
		if (i == RTE_DIM(keys)) {
			ret = -ENOSPC;
			break;
		}
		mr->key = keys[i];
		if (mr->key != 0 && rte_hash_lookup(rds_mr_hash, &mr->key) < 0)
			break;
	}
	if (ret == 0)
		ret = rds_mr_add_locked(rs, mr);
	rte_rwlock_write_unlock(&rds_mr_lock);
	if (ret < 0) {
		rds_mr_release(mr);
		return ret == -ENOSPC ? -EAGAIN : ret;
	}
	*cookie = (uint64_t)mr->key | ((addr - base) << 32);
	return 0;
}

/*
 * Keys reserved for socket rs (an attached client's: rds_region.h, the
 * key ring): entries of the table that name no region (RDS_MR_RESERVED),
 * so that no region takes their keys, and that the executor never
 * reaches. The candidates come from the kernel's CSPRNG as every
 * software key (rds_rdma_key.c), drawn before the lock.
 */
int
rds_mr_reserve(struct rds_sock *rs, uint32_t *keys, unsigned int n)
{
	struct rds_mr *mr[RDS_MR_RESV_MAX];
	unsigned int i, got = 0;
	int ret;

	if (rs->la == NULL || rs->la->trans->mr_reg != NULL)
		return -EOPNOTSUPP;	/* hardware keys: the device's */
	n = RTE_MIN(n, (unsigned int)RTE_DIM(mr));
	ret = rds_rdma_keys(keys, n);
	if (ret != 0)
		return ret;
	for (i = 0; i < n; i++) {
		mr[i] = rds_mr_new(rs);
		if (mr[i] == NULL)
			break;
		mr[i]->state = RDS_MR_RESERVED;
		mr[i]->key = keys[i];
	}
	n = i;
	rte_rwlock_write_lock(&rds_mr_lock);
	for (i = 0; i < n; i++) {
		if (mr[i]->key == 0 ||
		    rte_hash_lookup(rds_mr_hash, &mr[i]->key) >= 0 ||
		    rds_mr_add_locked(rs, mr[i]) < 0) {
			rds_mr_release(mr[i]);
			continue;
		}
		keys[got++] = mr[i]->key;
	}
	rte_rwlock_write_unlock(&rds_mr_lock);
	return (int)got;
}

/*
 * RDMA_MAP with a key reserved for rs (a send of an attached client
 * taken off its request ring): the region takes the reservation's
 * place. The client checked its memory for the call's errno, in its own
 * process (rds_rdma_map_check), as the engine would have; it is not
 * checked again here: every access to a client's memory goes through
 * its rds_xmem, where an address it does not map fails (the operation's
 * RDS_RDMA_REMOTE_ERROR), and reaches nothing but that process. 0; 1
 * when the key's RDMA_MAP was freed by a call before the engine took
 * it (no region: the cookie goes, as the kernel's of a region freed
 * before the peer used it); -EINVAL when the key is not one reserved
 * for rs (a client's lie), or a bad range.
 */
static int
rds_mr_register_key(struct rds_sock *rs, const struct rds_get_mr_args *a,
		    uint32_t key, uint64_t *cookie)
{
	uint64_t base, end;
	struct rds_mr *mr;
	void *data;
	int ret = rds_mr_range(a->vec.addr, a->vec.bytes, &base, &end);

	if (ret != 0)
		return ret;
	rte_rwlock_write_lock(&rds_mr_lock);
	if (rte_hash_lookup_data(rds_mr_hash, &key, &data) < 0 ||
	    ((struct rds_mr *)data)->sock != rs->id ||
	    ((struct rds_mr *)data)->sock_gen != rs->gen) {
		ret = -EINVAL;
	} else {
		mr = data;
		if (mr->state == RDS_MR_RESERVED) {
			mr->base = base;
			mr->len = end - base;
			mr->flags = (uint32_t)a->flags;
			mr->state = RDS_MR_LIVE;
			__atomic_fetch_sub(mr->owner_resv, 1, __ATOMIC_RELAXED);
			mr->owner_resv = NULL;
		} else if (mr->state == RDS_MR_CANCELLED) {
			mr->invalidate = true;
			rds_mr_remove_locked(mr);
			ret = 1;
		} else {
			ret = -EINVAL;	/* a region already */
		}
	}
	rte_rwlock_write_unlock(&rds_mr_lock);
	if (ret >= 0)
		*cookie = (uint64_t)key | ((a->vec.addr - base) << 32);
	return ret;
}

/* Add one to key's count in the hash of freed keys, or take one off
 * (the key goes with its last). Under the write lock. */
static void
rds_mr_freed_count(uint32_t key, bool add)
{
	void *data;
	uintptr_t n = 0;

	if (rte_hash_lookup_data(rds_mr_freed_hash, &key, &data) >= 0)
		n = (uintptr_t)data;
	n = add ? n + 1 : n - 1;
	if (n == 0)
		rte_hash_del_key(rds_mr_freed_hash, &key);
	else
		/* Cannot fail: the table has room for the whole ring
		 * (extendable buckets). */
		rte_hash_add_key_data(rds_mr_freed_hash, &key, (void *)n);
}

/* Key of a region just freed into the ring, in place of the oldest. */
static void
rds_mr_freed_push(uint32_t key)
{
	uint32_t *slot = &rds_mr_freed[rds_mr_freed_next++ % RDS_MR_FREED];

	if (*slot != 0)
		rds_mr_freed_count(*slot, false);
	*slot = key;
	if (key != 0)	/* never a key, and an empty slot */
		rds_mr_freed_count(key, true);
}

/* Remove one region (already looked up under the write lock). */
static void
rds_mr_remove_locked(struct rds_mr *mr)
{
	if (mr->owner_nb != NULL)
		__atomic_fetch_sub(mr->owner_nb, 1, __ATOMIC_RELAXED);
	if (mr->owner_resv != NULL)
		__atomic_fetch_sub(mr->owner_resv, 1, __ATOMIC_RELAXED);
	rte_hash_del_key(rds_mr_hash, &mr->key);
	/* A reservation was never a cookie anyone was given. */
	if (mr->state != RDS_MR_RESERVED)
		rds_mr_freed_push(mr->key);
	rds_mr_release(mr);
}

bool
rds_mr_key_freed(uint32_t key)
{
	return key != 0 &&
	       rte_hash_lookup(rds_mr_freed_hash, &key) >= 0;
}

/* A region (not a reservation) of socket rs. */
static bool
rds_mr_owned(const struct rds_mr *mr, const struct rds_sock *rs)
{
	return mr->sock == rs->id && mr->sock_gen == rs->gen &&
	       mr->state == RDS_MR_LIVE;
}

/* Is key a live region of socket rs? (rds_cmsg_rdma_dest) */
bool
rds_mr_key_owned(const struct rds_sock *rs, uint32_t key)
{
	void *data;
	bool own;

	rte_rwlock_read_lock(&rds_mr_lock);
	own = rte_hash_lookup_data(rds_mr_hash, &key, &data) >= 0 &&
	      rds_mr_owned(data, rs);
	rte_rwlock_read_unlock(&rds_mr_lock);
	return own;
}

/*
 * FREE_MR: one cookie of this socket, or (cookie 0) all of its regions;
 * with all, its reservations too (its close). A key reserved for an
 * attached client's socket whose RDMA_MAP the engine has not taken yet
 * (it waits in the socket's ring behind a congested destination: the
 * call drained what it could first) is cancelled: the send goes with
 * its cookie and no region, as one whose region was freed before the
 * peer used it.
 */
static int
rds_mr_free(struct rds_sock *rs, uint64_t cookie, bool invalidate, bool all)
{
	uint32_t key = (uint32_t)cookie, it = 0;
	struct rds_mr *mr;
	const void *k;
	void *data;
	int ret = 0;

	rte_rwlock_write_lock(&rds_mr_lock);
	if (cookie == 0) {
		while (rte_hash_iterate(rds_mr_hash, &k, &data, &it) >= 0) {
			mr = data;
			if (rds_mr_owned(mr, rs) ||
			    (all && mr->sock == rs->id &&
			     mr->sock_gen == rs->gen)) {
				((struct rds_mr *)data)->invalidate = invalidate;
				rds_mr_remove_locked(data);
				it = 0;	/* the table changed: start again */
			}
		}
	} else if (rte_hash_lookup_data(rds_mr_hash, &key, &data) >= 0 &&
		   rds_mr_owned(data, rs)) {
		((struct rds_mr *)data)->invalidate = invalidate;
		rds_mr_remove_locked(data);
	} else if (rte_hash_lookup_data(rds_mr_hash, &key, &data) >= 0 &&
		   ((struct rds_mr *)data)->state == RDS_MR_RESERVED &&
		   ((struct rds_mr *)data)->sock == rs->id &&
		   ((struct rds_mr *)data)->sock_gen == rs->gen) {
		((struct rds_mr *)data)->state = RDS_MR_CANCELLED;
	} else {
		ret = -EINVAL;
	}
	rte_rwlock_write_unlock(&rds_mr_lock);
	return ret;
}

/* A sendmsg that registered with RDMA_MAP failed later: as the kernel,
 * the region goes with it. */
void
rds_rdma_unmap(struct rds_sock *rs, uint64_t cookie)
{
	rds_mr_free(rs, (uint32_t)cookie, true, false);
}

void
rds_mr_free_key(struct rds_sock *rs, uint32_t key)
{
	if (key != 0)
		rds_mr_free(rs, key, false, false);
}

void
rds_mr_sock_close(struct rds_sock *rs)
{
	/* The table is walked only for a socket that has regions (a close
	 * of one of many sockets must not cost a walk of every region). */
	if (rds_mr_hash != NULL &&
	    __atomic_load_n(&rs->nb_mrs, __ATOMIC_RELAXED) != 0)
		rds_mr_free(rs, 0, true, true);
}

/* The peer used key on socket rs's behalf (RDS_EXTHDR_RDMA on a message
 * to rs): USE_ONCE ends it, but only a region of rs (rds_rdma_unuse). */
void
rds_mr_unuse_sock(const struct rds_sock *rs, uint32_t key)
{
	void *data;

	rte_rwlock_write_lock(&rds_mr_lock);
	if (rte_hash_lookup_data(rds_mr_hash, &key, &data) >= 0 &&
	    rds_mr_owned(data, rs) &&
	    (((struct rds_mr *)data)->flags & RDS_RDMA_USE_ONCE)) {
		((struct rds_mr *)data)->invalidate = true;
		rds_mr_remove_locked(data);
	}
	rte_rwlock_write_unlock(&rds_mr_lock);
}

/* The executor used key with USE_ONCE semantics. */
void
rds_mr_unuse(uint32_t key)
{
	void *data;

	rte_rwlock_write_lock(&rds_mr_lock);
	if (rte_hash_lookup_data(rds_mr_hash, &key, &data) >= 0 &&
	    ((struct rds_mr *)data)->state == RDS_MR_LIVE &&
	    (((struct rds_mr *)data)->flags & RDS_RDMA_USE_ONCE)) {
		((struct rds_mr *)data)->invalidate = true;
		rds_mr_remove_locked(data);
	}
	rte_rwlock_write_unlock(&rds_mr_lock);
}

/* ------------------------------------------------------------------ */
/* Socket options. */

/*
 * GET_MR, GET_MR_FOR_DEST and RDMA_MAP (__rds_rdma_map): register and
 * write the cookie to cookie_addr if there is one (it is optional, as in
 * the kernel; a bad non-NULL cookie_addr faults in the caller's thread,
 * as memcpy would).
 */
int
rds_rdma_map(struct rds_sock *rs, const struct rds_get_mr_args *a,
	     const struct rds_rdma_given *g, uint64_t *cookie)
{
	int ret;

	if (!rs->f.bound)
		return -ENOTCONN;
	if (!(rs->la->trans->flags & RDS_TRANS_F_RDMA))
		return -EOPNOTSUPP;
	/* The key an attached client reserved, and the cookie it wrote
	 * itself: 1 (no region, the cookie goes) counts as done. */
	if (g != NULL && g->map_key_set)
		return RTE_MIN(rds_mr_register_key(rs, a, g->map_key, cookie),
			       0);
	ret = rds_mr_register(rs, a->vec.addr, a->vec.bytes, a->flags,
			      cookie);
	if (ret != 0)
		return ret;
	/* As __rds_rdma_map: a cookie that cannot be written back is
	 * EFAULT, and the region goes. (This process: memcpy, a bad
	 * address faults in the caller's thread; a client: checked.) */
	if (a->cookie_addr != 0 &&
	    rds_xmem_write(rs->mem, (uintptr_t)a->cookie_addr, cookie,
			   sizeof(*cookie)) != 0) {
		rds_mr_free(rs, (uint32_t)*cookie, true, false);
		return -EFAULT;
	}
	return 0;
}

int
rds_rdma_get_mr(struct rds_sock *rs, const void *optval, socklen_t optlen,
		bool for_dest)
{
	struct rds_get_mr_for_dest_args fd;
	struct rds_get_mr_args a;
	uint64_t cookie;
	int ret;

	/* rds_get_mr, rds_get_mr_for_dest: optlen first, exact. */
	ret = rds_uarg_optval(optval, optlen, for_dest ? sizeof(fd) :
			      sizeof(a), true);
	if (ret != 0)
		return ret;
	if (for_dest) {
		memcpy(&fd, optval, sizeof(fd));
		a.vec = fd.vec;
		a.cookie_addr = fd.cookie_addr;
		a.flags = fd.flags;
	} else {
		memcpy(&a, optval, sizeof(a));
	}
	return rds_rdma_map(rs, &a, NULL, &cookie);
}

int
rds_rdma_free_mr(struct rds_sock *rs, const void *optval, socklen_t optlen)
{
	struct rds_free_mr_args a;
	int ret = rds_uarg_optval(optval, optlen, sizeof(a), true);

	if (ret != 0)
		return ret;
	memcpy(&a, optval, sizeof(a));
	/* Software keys are revoked at once either way. A hardware
	 * transport may keep the registration cached without INVALIDATE
	 * (rds-rdma(7): lazy revocation), so that registering the same
	 * range again is cheap. */
	return rds_mr_free(rs, a.cookie, (a.flags & RDS_RDMA_INVALIDATE) != 0,
			   false);
}

/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RDS_FUZZ_MR_H
#define RDS_FUZZ_MR_H

/*
 * Memory regions for the fuzz targets, and their oracle.
 *
 * Each region is registered (RDS_GET_MR) over pages of its own between
 * two PROT_NONE guard pages, so that any access outside the pages faults
 * at once; a shadow copy holds what the pages must contain. Nothing but
 * an RDMA operation this process initiates may change them: after every
 * step that could, the pages are compared with the shadow.
 *
 * Whether a region is still registered is modelled from rds-rdma(7) and
 * net/rds/rdma.c: RDS_FREE_MR ends it; RDS_RDMA_USE_ONCE ends it after
 * one use: a message carrying its key (RDS_EXTHDR_RDMA) delivered to the
 * socket that owns it (rds_rdma_unuse), or an operation of the software
 * executor. Nothing else does: a frame naming the key of another
 * socket's region, or one that is not delivered, leaves it alone. An
 * operation on a region that is certainly registered, within its
 * registered bytes and with the rights it needs, must succeed and have
 * exactly its effect; one on a region that is certainly gone, outside its
 * pages or without the rights must fail and change nothing.
 *
 * Wrong keys (lib/rds/rds_rdma_guard.c): once the operations on a target
 * address may have presented RDS_KEY_LIMIT of them (a key no region of
 * the run had, or a live region's key sent to another address; not the
 * key of a region gone, which the library calls stale), the library may
 * hold that connection off: from then on an operation there may also end
 * RDS_RDMA_DROPPED, and then must have changed nothing.
 */

#include <stdbool.h>
#include <stdint.h>

#include "fuzz_common.h"
#include "fuzz_oracle.h"

#define FM_MAX_REGIONS 8
#define FM_PAGE 4096u
#define FM_MAX_TARGETS 4
/* The library's limit of wrong keys per connection (rds_rdma_guard.c). */
#define FM_KEY_LIMIT 16

struct fm_region {
	/* Fixed when the target is set up. */
	unsigned int pages;	/* data pages */
	uint32_t reg_off;	/* registered start within the first page */
	uint32_t reg_len;	/* registered bytes */
	uint64_t flags;		/* RDS_RDMA_USE_ONCE, RDS_RDMA_READWRITE */
	uint8_t *base;		/* first data page (guards around) */
	uint8_t *shadow;	/* what the pages must hold */
	uint8_t *initial;	/* what they hold when a run starts */
	/* Per run. */
	int sock;		/* owner's handle */
	int owner;		/* owner's index in the oracle (fo) */
	uint32_t laddr;		/* owner's address (network order) */
	bool registered;
	uint64_t cookie;
	bool dead;		/* certainly no longer registered */
	bool maybe_dead;	/* perhaps no longer registered */
};

struct fm {
	struct fm_region r[FM_MAX_REGIONS];
	unsigned int n;
	/* Local buffer of the initiator (READ data, WRITE data, atomic
	 * results), guarded too. */
	uint8_t *lbuf;
	size_t lbuf_len;
	uint64_t token;		/* next user_token */
	uint64_t ops;		/* operations sent in this run */
	int initiator;		/* socket that initiates operations */
	/* Operations per target address that may have had a wrong key. */
	struct {
		uint32_t addr;
		unsigned int wrong;
	} t[FM_MAX_TARGETS];
	unsigned int nt;
};

extern struct fm fm;

/* Add a region of pages data pages, of which reg_len bytes from reg_off
 * are registered with flags. Once, at set-up. */
void fm_add_region(unsigned int pages, uint32_t reg_off, uint32_t reg_len,
		   uint64_t flags);
/* Initiator's local buffer of pages pages. Once, at set-up. */
void fm_set_lbuf(unsigned int pages);

/* Start a run: every region's pages back to a known pattern. */
void fm_reset(int initiator);
/* Register region i for socket sock (oracle index owner, bound to
 * laddr). Fails the run if the library refuses. */
void fm_register(unsigned int i, int sock, int owner, uint32_t laddr);

/* The oracle's delivery hook (fo.deliver_hook). */
void fm_deliver_hook(const struct fo_frame *f, bool matched);

/* Pages unchanged outside what operations did? */
void fm_check_mem(void);

enum fm_op_kind { FM_READ, FM_WRITE, FM_FADD, FM_CSWP, FM_MFADD, FM_MCSWP,
		  FM_NB_KINDS };

/*
 * One RDMA or atomic operation from the initiator to address 'target'
 * (network order), port 'dport', on cookie, at remote offset off, of
 * len bytes (atomics: 8), with arguments a0..a3 (atomics) and write data
 * from the pattern wseed. Polls the engine with poll() until the
 * notification arrives, and judges status and memory.
 */
void fm_op(enum fm_op_kind kind, uint32_t target, uint16_t dport,
	   uint64_t cookie, uint64_t off, uint32_t len, const uint64_t a[4],
	   uint64_t wseed, void (*poll)(void));

/* RDS_FREE_MR of region i by its owner, as a step; judged. */
void fm_free(unsigned int i);

/* End of a run: free every region and judge what was still registered. */
void fm_finish(void);

#endif /* RDS_FUZZ_MR_H */

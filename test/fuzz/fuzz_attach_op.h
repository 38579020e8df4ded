/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_attach: an operation in a TX buffer (fuzz_attach_op.c). */
#ifndef FUZZ_ATTACH_OP_H
#define FUZZ_ATTACH_OP_H

#include "rds_region.h"
#include "fuzz_common.h"

/* Maybe (as the input says) an operation in the class 0 TX buffer h
 * heads: its header's ctl_len, vec_n and flags, and the bytes after a
 * short payload; else none (all 0). */
void fz_attach_op(struct rds_cbuf *h, struct fz_in *in);

#endif /* FUZZ_ATTACH_OP_H */

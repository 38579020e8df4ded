/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_recv: receives from the harness's sockets (fuzz_recv_sock.c). */
#ifndef FUZZ_RECV_SOCK_H
#define FUZZ_RECV_SOCK_H

#include "fuzz_common.h"

/* Receive whole messages from socket i (handle h, oracle index oi) until
 * none is queued or max were taken, each judged by the oracle. */
void fz_recv_full(int h, int oi, unsigned int i, unsigned int max);

/* The input's receive step: socket (of the first four), way (whole,
 * small buffer and control space, peek first, burst), how many. s[] and
 * si[] are the sockets' handles and oracle indexes. */
void fz_op_recv(struct fz_in *in, const int *s, const int *si);

#endif /* FUZZ_RECV_SOCK_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The attach protocol spoken by hand (rds_region.h), for the hostile
 * clients of suite multiproc (mp_evil.c, mp_attack.c): what a client
 * written without the project's library does, so that every field the
 * engine reads is ours to forge.
 */
#ifndef MP_PROTO_H
#define MP_PROTO_H

#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>

#include "rds_region.h"
#include "rds_xring.h"

struct mp_proto {
	int fd;				/* the UNIX socket */
	uint8_t *base;			/* the region */
	int memfd;			/* its descriptor, as the engine
					 * passed it */
	uint64_t size;
	struct rds_region_layout lay;
	uint32_t seq;
};

/* Connect to the engine at path and say hello: 0, or -1 with errno (the
 * engine's refusal, e.g. EMFILE, when it answered one). */
int mp_proto_attach(struct mp_proto *p, const char *path);
/* Only connect (no hello): the socket, or -1. */
int mp_proto_connect(const char *path);
/* Send one request (q->len bytes of data), with fds passed along: 0 or
 * -1. */
int mp_proto_send(struct mp_proto *p, struct rds_ctl_req *q, const int *fds,
		  unsigned int nfd);
/* Receive one answer; *got: a descriptor passed with it, or -1 (NULL:
 * closed). Its length, or -1. */
ssize_t mp_proto_recv(struct mp_proto *p, struct rds_ctl_resp *r, int *got);
/* A call: send, then the answer: r->ret (or -2 when the engine hung up). */
int mp_proto_call(struct mp_proto *p, struct rds_ctl_req *q,
		  struct rds_ctl_resp *r, int *got);
/* A socket in slot idx bound to sin: 0, or -1. *wake: its wake-up
 * descriptor. */
int mp_proto_socket(struct mp_proto *p, int32_t idx,
		    const struct sockaddr_in *sin, int *wake);
/* A doorbell ring for this thread: its number, or -1. */
int mp_proto_bell(struct mp_proto *p);
/* A ring end of the region. */
struct rds_xring_end mp_proto_ring(struct mp_proto *p, uint64_t off,
				   uint32_t size, bool producer);
/* A setsockopt / getsockopt through the engine: r->ret. */
int mp_proto_sockopt(struct mp_proto *p, uint32_t op, int32_t handle,
		     int level, int name, const void *val, uint32_t len,
		     struct rds_ctl_resp *r);
/* Has the engine hung up (within ms)? */
bool mp_proto_hung_up(struct mp_proto *p, int ms);

#endif /* MP_PROTO_H */

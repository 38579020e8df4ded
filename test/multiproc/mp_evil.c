/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A hostile client for suite multiproc: it speaks the attach protocol
 * itself (rds_region.h), gets a region, makes a socket, then breaks the
 * protocol in one way and waits to be disconnected.
 *
 *   mp_evil PATH MODE ID
 *     offset   a request naming a buffer outside its TX pool
 *     badlen   a TX buffer whose length is larger than its slot
 *     ring     a request ring whose producer claims 100000 entries
 *     bell     a doorbell naming a socket slot that does not exist
 *     double   an RX buffer given back twice (the parent sends it one
 *              message on mp_addr(ID):mp_port(ID) after "READY")
 *     foreign  an RX buffer given back that was never handed out
 *     garbage  random bytes over every ring and socket of the region
 *     call     a control call with an unknown operation
 * Prints "READY" when its socket is bound, then "DISCONNECTED" (exit 0)
 * when the engine hung up on it, or "STILL CONNECTED" (exit 1) after
 * 10 s.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <rte_common.h>

#include "rds_test.h"
#include "mp_common.h"
#include "mp_proto.h"

static struct mp_proto pr;

int
main(int argc, char **argv)
{
	static struct rds_ctl_req q;
	static struct rds_ctl_resp r;
	struct sockaddr_in sin;
	struct rds_xring_end req, bell, rxr, rxfree;
	struct rds_region_layout lay;
	const char *mode;
	uint64_t size, off, v;
	uint8_t *base;
	unsigned int id, i;
	int wake, bellno;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 4)
		return 1;
	mode = argv[2];
	id = (unsigned int)atoi(argv[3]);
	if (mp_proto_attach(&pr, argv[1]) != 0) {
		perror("attach");
		return 1;
	}
	base = pr.base;
	size = pr.size;
	lay = pr.lay;
	if (strcmp(mode, "call") == 0) {
		memset(&q, 0, sizeof(q));
		q.op = 999;
		mp_proto_call(&pr, &q, &r, NULL);
		goto wait;
	}
	sin = mp_sin(id);
	if (mp_proto_socket(&pr, 0, &sin, &wake) != 0) {
		printf("socket or bind refused (%d)\n", r.err);
		return 1;
	}
	bellno = mp_proto_bell(&pr);
	if (bellno < 0)
		return 1;
	req = mp_proto_ring(&pr, rds_region_csock_ring(&lay, 0, 0),
			    RDS_CSOCK_REQ_RING, true);
	rxr = mp_proto_ring(&pr, rds_region_csock_ring(&lay, 0, 1),
			    RDS_CSOCK_RX_RING, false);
	bell = mp_proto_ring(&pr, lay.bells_off +
			     lay.bell_stride * (uint32_t)bellno,
			     RDS_REGION_BELL_RING, true);
	rxfree = mp_proto_ring(&pr, lay.rxfree_off, RDS_REGION_FREE_RING, true);
	printf("READY\n");
	if (strcmp(mode, "offset") == 0) {
		rds_xring_put(&req, size + 4096);
		rds_xring_put(&bell, 0);
	} else if (strcmp(mode, "badlen") == 0) {
		struct rds_cbuf *b;

		off = lay.pool_off[RDS_POOL_TX][0];
		b = (void *)(base + off);
		memset(b, 0, sizeof(*b));
		b->len = 1u << 30;
		b->addr = sin.sin_addr.s_addr;
		b->port = 1;
		rds_xring_put(&req, off);
		rds_xring_put(&bell, 0);
	} else if (strcmp(mode, "ring") == 0) {
		struct rds_xring *x = (void *)(base +
			rds_region_csock_ring(&lay, 0, 0));

		__atomic_store_n(&x->prod, x->cons + 100000, __ATOMIC_RELEASE);
		rds_xring_put(&bell, 0);
	} else if (strcmp(mode, "bell") == 0) {
		rds_xring_put(&bell, 100000);
	} else if (strcmp(mode, "double") == 0 ||
		   strcmp(mode, "foreign") == 0) {
		if (strcmp(mode, "double") == 0) {
			/* The parent sends one message. */
			for (i = 0; i < 10000; i++) {
				if (rds_xring_get(&rxr, &off) > 0)
					break;
				usleep(1000);
			}
			if (i == 10000) {
				printf("no message came\n");
				return 1;
			}
			rds_xring_put(&rxfree, off);
			rds_xring_put(&rxfree, off);
		} else {
			rds_xring_put(&rxfree,
				      lay.pool_off[RDS_POOL_RX][1] +
				      rds_region_class_size[1]);
		}
	} else if (strcmp(mode, "garbage") == 0) {
		uint64_t rng = 42, *p;
		uint64_t from = lay.socks_off, to = lay.pool_off[RDS_POOL_TX][0];

		for (p = (void *)(base + from); (uint8_t *)p < base + to; p++)
			*p = rds_test_rand(&rng);
		v = 0;
		rds_xring_put(&bell, v);
	} else {
		printf("unknown mode %s\n", mode);
		return 1;
	}
wait:
	if (mp_proto_hung_up(&pr, 10000)) {
		printf("DISCONNECTED\n");
		return 0;
	}
	printf("STILL CONNECTED\n");
	return 1;
}

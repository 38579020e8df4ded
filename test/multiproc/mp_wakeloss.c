/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mp_wakeloss SOCK SECS [ITERS]: the wake-up handshake between an
 * attached client and the engine, checked for lost wake-ups.
 *
 * A client of the attach protocol spoken by hand (mp_proto.h) with two
 * sockets of its own: it sends a zero-length message from socket 1 to
 * socket 0 (the request ring and a doorbell), waits a varying moment,
 * then does what a blocking receiver does (rds_cl_wait): sets RDS_ARM_IN
 * in socket 0's armed word, looks at its RX ring again and, when empty,
 * sleeps in poll(2) on its wake-up descriptor. The engine, when it
 * delivers, must see the armed word (and send the byte) or the client
 * must see the message: a Dekker handshake (a store of each side, then a
 * load of the other's). A sleep that ends by its timeout with the
 * message in the ring, after which no wake-up comes for 5 s more with
 * the word still armed, is a wake-up the engine lost: the engine
 * published the message and read the word before its store was visible
 * (x86 lets a load pass an earlier store without a full barrier between
 * them). A wake-up that comes in those 5 s is late, not lost: the engine
 * sends them at the end of its pass, and on a loaded machine it may be
 * off its CPU between the delivery and there. A real client's sleep
 * would have lasted its whole slice (10 ms).
 *
 * Prints "ROUNDS n LOST l SLEPT s LATE t" and exits 1 when a wake-up was
 * lost (or a message never came), 0 otherwise. Runs at most SECS
 * seconds.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#include <rte_pause.h>

#include "rds_test.h"
#include "mp_common.h"
#include "mp_proto.h"

#define WL_TX 64		/* TX buffers of ours in use at once */
#define WL_SLEEP_MS 100		/* a sleep the engine should end */
#define WL_LATE_MS 5000		/* a wake-up later than that is lost */

static struct mp_proto pr;

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void
drain(int fd)
{
	uint8_t b[64];

	while (recv(fd, b, sizeof(b), MSG_DONTWAIT) > 0)
		;
}

int
main(int argc, char **argv)
{
	struct rds_xring_end req, rx, bell, txfree, rxfree;
	struct rds_csock *cs0;
	struct sockaddr_in a, b;
	uint64_t txs[WL_TX], off, end, rounds = 0, lost = 0, slept = 0;
	uint64_t late = 0;
	uint64_t iters, seed = 88172645463325252ull;
	unsigned int ntx = 0, i, spins;
	int wake0, wake1, bn;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 3) {
		fprintf(stderr, "usage: mp_wakeloss SOCK SECS [ITERS]\n");
		return 2;
	}
	end = now_ns() + (uint64_t)atoi(argv[2]) * 1000000000ull;
	iters = argc > 3 ? strtoull(argv[3], NULL, 0) : UINT64_MAX;
	if (mp_proto_attach(&pr, argv[1]) != 0) {
		fprintf(stderr, "mp_wakeloss: attach failed\n");
		return 1;
	}
	a = mp_sin(0);
	b = mp_sin(1);
	if (mp_proto_socket(&pr, 0, &a, &wake0) != 0 ||
	    mp_proto_socket(&pr, 1, &b, &wake1) != 0) {
		fprintf(stderr, "mp_wakeloss: socket failed\n");
		return 1;
	}
	bn = mp_proto_bell(&pr);
	if (bn < 0) {
		fprintf(stderr, "mp_wakeloss: no doorbell\n");
		return 1;
	}
	cs0 = (void *)(pr.base + pr.lay.socks_off);
	req = mp_proto_ring(&pr, rds_region_csock_ring(&pr.lay, 1, 0),
			    RDS_CSOCK_REQ_RING, true);
	rx = mp_proto_ring(&pr, rds_region_csock_ring(&pr.lay, 0, 1),
			   RDS_CSOCK_RX_RING, false);
	bell = mp_proto_ring(&pr, pr.lay.bells_off +
			     pr.lay.bell_stride * (uint32_t)bn,
			     RDS_REGION_BELL_RING, true);
	txfree = mp_proto_ring(&pr, pr.lay.txfree_off, RDS_REGION_FREE_RING,
			       false);
	rxfree = mp_proto_ring(&pr, pr.lay.rxfree_off, RDS_REGION_FREE_RING,
			       true);
	for (i = 0; i < WL_TX; i++)
		txs[ntx++] = pr.lay.pool_off[RDS_POOL_TX][0] +
			     (uint64_t)i * rds_region_class_size[0];

	while (rounds < iters && now_ns() < end) {
		struct rds_cbuf *h;
		uint64_t v, t0;
		bool got = false;

		while (ntx == 0) {
			if (rds_xring_get(&txfree, &v) > 0)
				txs[ntx++] = v;
			else
				usleep(10);
		}
		while (ntx < WL_TX && rds_xring_get(&txfree, &v) > 0)
			txs[ntx++] = v;
		off = txs[--ntx];
		h = (void *)(pr.base + off);
		memset(h, 0, sizeof(*h));
		h->addr = a.sin_addr.s_addr;
		h->port = ntohs(a.sin_port);
		h->csock = 1;
		if (rds_xring_put(&req, off) != 0 ||
		    rds_xring_put(&bell, 1) != 0) {
			fprintf(stderr, "mp_wakeloss: a ring is full\n");
			return 1;
		}
		/* A varying moment (0 to ~2 us), so that the arming below
		 * falls at every point of the engine's delivery. */
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		spins = (unsigned int)(seed % 400);
		for (i = 0; i < spins; i++)
			rte_pause();
		t0 = now_ns();
		while (!got) {
			struct pollfd p = { .fd = wake0, .events = POLLIN };
			int n;

			/* rds_cl_wait: arm, look again, sleep. */
			__atomic_fetch_or(&cs0->armed, RDS_ARM_IN,
					  __ATOMIC_SEQ_CST);
			if (rds_xring_count(&rx) != 0) {
				__atomic_fetch_and(&cs0->armed, ~RDS_ARM_IN,
						   __ATOMIC_SEQ_CST);
				break;
			}
			slept++;
			n = poll(&p, 1, WL_SLEEP_MS);
			if (n > 0) {
				drain(wake0);
				continue;
			}
			if (rds_xring_count(&rx) == 0) {
				if (now_ns() - t0 > 5000000000ull) {
					fprintf(stderr, "mp_wakeloss: message %" PRIu64 " never came\n",
						rounds);
					printf("ROUNDS %" PRIu64 " LOST %" PRIu64 " SLEPT %" PRIu64 " NEVER 1\n",
					       rounds, lost, slept);
					return 1;
				}
				continue;
			}
			/* The message is there, and nobody woke us yet. An
			 * engine that published it but was taken off its CPU
			 * before the end of its pass (where it sends the
			 * wake-ups) still sends the byte: a late wake-up, not
			 * a lost one. One that read the word before our store
			 * never will: wait WL_LATE_MS for it. */
			n = poll(&p, 1, WL_LATE_MS);
			if (n > 0) {
				late++;
			} else if (__atomic_load_n(&cs0->armed,
						   __ATOMIC_SEQ_CST) &
				   RDS_ARM_IN) {
				lost++;
				fprintf(stderr, "mp_wakeloss: round %" PRIu64 ": the message waited %.0f ms, no wake-up\n",
					rounds, (double)(now_ns() - t0) / 1e6);
				__atomic_fetch_and(&cs0->armed, ~RDS_ARM_IN,
						   __ATOMIC_SEQ_CST);
			}
			got = true;
		}
		if (rds_xring_get(&rx, &v) <= 0) {
			fprintf(stderr, "mp_wakeloss: the RX ring lies\n");
			return 1;
		}
		while (rds_xring_put(&rxfree, v) != 0)
			usleep(10);
		drain(wake0);
		rounds++;
	}
	printf("ROUNDS %" PRIu64 " LOST %" PRIu64 " SLEPT %" PRIu64
	       " LATE %" PRIu64 "\n", rounds, lost, slept, late);
	return lost != 0 || rounds == 0;
}

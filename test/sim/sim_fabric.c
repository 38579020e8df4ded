/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The simulated fabric (sim.h): one switch, each host's uplink and
 * downlink at a rate with a latency, a finite buffer per downlink, faults
 * from the seed, an event queue (a binary heap ordered by time, then by
 * the order events were made, so that ties break the same way each run).
 *
 * A frame from host s to host d: it leaves s's uplink when the frames
 * before it did (serialisation at the rate), reaches the switch a link
 * latency later (an event), where it may be lost, corrupted, duplicated
 * or delayed (reordered); it joins d's downlink queue unless the queue
 * holds buf_bytes already (tail drop), leaves it serialised at the rate
 * and is put in d's port receive ring a link latency later (an event).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "sim.h"

#define SIM_RING 4096
#define SIM_BURST 64

enum { EV_SWITCH, EV_DELIVER };

struct sim_ev {
	uint64_t t, seq;
	struct rte_mbuf *m;
	uint32_t kind, src, dst, len;
};

static struct {
	struct sim_conf c;
	unsigned int nb_ports;
	struct rte_ring *rx[SIM_MAX_PORTS];
	struct rte_ring *tx[SIM_MAX_PORTS];
	uint16_t port_of_host[SIM_MAX_HOSTS];
	uint64_t lat[SIM_MAX_HOSTS];		/* link latency of each host */
	uint64_t up_free[SIM_MAX_HOSTS];	/* uplink idle from */
	uint64_t down_free[SIM_MAX_HOSTS];	/* downlink idle from */
	bool flaps[SIM_MAX_HOSTS];		/* its links go down */
	bool down[SIM_MAX_HOSTS];		/* its process is gone */
	struct sim_ev *heap;
	size_t nb_ev, cap_ev;
	uint64_t seq;
	struct rte_mempool *copies;
	struct sim_fabric_stats st;
	uint64_t digest;
} F;

static uint64_t sim_prng;

void
sim_srand(uint64_t seed)
{
	sim_prng = seed;
}

uint64_t
sim_rand(void)
{
	uint64_t z = (sim_prng += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* FNV-1a, 64 bits. */
void
sim_digest_add(const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++) {
		F.digest ^= b[i];
		F.digest *= UINT64_C(0x100000001b3);
	}
}

uint64_t
sim_digest(void)
{
	return F.digest;
}

uint32_t
sim_host_ip(unsigned int h)
{
	/* 10.1.0.1 on: 10.1.(h+1)/256.(h+1)%256 */
	return rte_cpu_to_be_32(((10u << 24) | (1u << 16)) + (h + 1));
}

/* Host of an address, or -1. */
static int
host_of_ip(uint32_t ip)
{
	uint32_t v = rte_be_to_cpu_32(ip), base = (10u << 24) | (1u << 16);

	if (v <= base || v - base > F.c.hosts)
		return -1;
	return (int)(v - base - 1);
}

static void
heap_push(uint64_t t, uint32_t kind, struct rte_mbuf *m, uint32_t src,
	  uint32_t dst, uint32_t len)
{
	struct sim_ev ev = { t, F.seq++, m, kind, src, dst, len };
	size_t i;

	if (F.nb_ev == F.cap_ev) {
		F.cap_ev = F.cap_ev != 0 ? F.cap_ev * 2 : 4096;
		F.heap = realloc(F.heap, F.cap_ev * sizeof(*F.heap));
		if (F.heap == NULL)
			abort();
	}
	i = F.nb_ev++;
	while (i > 0) {
		size_t p = (i - 1) / 2;

		if (F.heap[p].t < t || (F.heap[p].t == t &&
					F.heap[p].seq < ev.seq))
			break;
		F.heap[i] = F.heap[p];
		i = p;
	}
	F.heap[i] = ev;
}

static bool
ev_less(const struct sim_ev *a, const struct sim_ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static struct sim_ev
heap_pop(void)
{
	struct sim_ev top = F.heap[0], last = F.heap[--F.nb_ev];
	size_t i = 0, n = F.nb_ev;

	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		const struct sim_ev *mv = &last;

		if (l < n && ev_less(&F.heap[l], mv)) {
			m = l;
			mv = &F.heap[l];
		}
		if (r < n && ev_less(&F.heap[r], mv))
			m = r;
		if (m == i)
			break;
		F.heap[i] = F.heap[m];
		i = m;
	}
	if (n > 0)
		F.heap[i] = last;
	return top;
}

/* Event i moves down to its place (the heap below it is in order). */
static void
heap_sift(size_t i)
{
	struct sim_ev ev = F.heap[i];
	size_t n = F.nb_ev;

	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		const struct sim_ev *mv = &ev;

		if (l < n && ev_less(&F.heap[l], mv)) {
			m = l;
			mv = &F.heap[l];
		}
		if (r < n && ev_less(&F.heap[r], mv))
			m = r;
		if (m == i)
			break;
		F.heap[i] = F.heap[m];
		i = m;
	}
	F.heap[i] = ev;
}

void
sim_fabric_set_down(unsigned int h, bool down)
{
	size_t i, k = 0;

	F.down[h] = down;
	if (!down)
		return;
	/* Its frames on the wire, either way, are gone with it: the rest
	 * keep their times and order (a heap again, built bottom up). */
	for (i = 0; i < F.nb_ev; i++) {
		if (F.heap[i].src == h || F.heap[i].dst == h) {
			rte_pktmbuf_free(F.heap[i].m);
			F.st.purged++;
			continue;
		}
		F.heap[k++] = F.heap[i];
	}
	F.nb_ev = k;
	for (i = k / 2; i-- > 0;)
		heap_sift(i);
}

uint64_t
sim_fabric_next(void)
{
	return F.nb_ev != 0 ? F.heap[0].t : UINT64_MAX;
}

static uint64_t
ser_ns(uint32_t len)
{
	/* Preamble, start and gap: 20 bytes; at least a 64-byte frame. */
	uint64_t bits = (uint64_t)(RTE_MAX(len, 60u) + 4 + 20) * 8;

	return (bits + F.c.gbps - 1) / F.c.gbps;
}

int
sim_fabric_init(const struct sim_conf *c, const uint16_t *port_of_host,
		unsigned int nb_ports)
{
	char name[32];
	unsigned int i;
	int ret;

	memset(&F, 0, sizeof(F));
	F.c = *c;
	F.digest = UINT64_C(0xcbf29ce484222325);
	F.nb_ports = nb_ports;
	(void)port_of_host;
	for (i = 0; i < nb_ports; i++) {
		snprintf(name, sizeof(name), "sim_rx%u", i);
		F.rx[i] = rte_ring_create(name, SIM_RING, 0,
					  RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "sim_tx%u", i);
		F.tx[i] = rte_ring_create(name, SIM_RING, 0,
					  RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (F.rx[i] == NULL || F.tx[i] == NULL)
			return -1;
		snprintf(name, sizeof(name), "sim%u", i);
		ret = rte_eth_from_rings(name, &F.rx[i], 1, &F.tx[i], 1, 0);
		if (ret < 0) {
			printf("rte_eth_from_rings %s: %s\n", name,
			       rte_strerror(rte_errno));
			return -1;
		}
		if (ret != (int)i) {
			printf("port %s is %d, expected %u\n", name, ret, i);
			return -1;
		}
	}
	for (i = 0; i < c->hosts; i++) {
		F.port_of_host[i] = (uint16_t)(i / c->per_port);
		F.lat[i] = c->lat_ns + (c->lat_spread_ns != 0 ?
			   sim_rand() % c->lat_spread_ns : 0);
	}
	/* The hosts whose links flap, from the seed. */
	for (i = 0; c->flap > 0 && i < c->hosts; i++)
		if (sim_rand_unit() < c->flap) {
			F.flaps[i] = true;
			F.st.flapped_hosts++;
		}
	F.copies = rte_pktmbuf_pool_create("sim_copies", 16383, 256, 0,
					   RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	return F.copies != NULL ? 0 : -1;
}

/* Source and destination hosts of a frame; false if it has none. */
static bool
route(struct rte_mbuf *m, uint32_t *src, uint32_t *dst)
{
	const struct rte_ether_hdr *eh;
	int s, d;

	if (rte_pktmbuf_data_len(m) < sizeof(*eh))
		return false;
	eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	if (eh->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP)) {
		const struct rte_arp_hdr *ah = (const void *)(eh + 1);

		if (rte_pktmbuf_data_len(m) < sizeof(*eh) + sizeof(*ah))
			return false;
		s = host_of_ip(ah->arp_data.arp_sip);
		d = host_of_ip(ah->arp_data.arp_tip);
		F.st.arp++;
	} else if (eh->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4)) {
		const struct rte_ipv4_hdr *ih = (const void *)(eh + 1);

		if (rte_pktmbuf_data_len(m) < sizeof(*eh) + sizeof(*ih))
			return false;
		s = host_of_ip(ih->src_addr);
		d = host_of_ip(ih->dst_addr);
	} else {
		return false;
	}
	if (s < 0 || d < 0)
		return false;
	*src = (uint32_t)s;
	*dst = (uint32_t)d;
	return true;
}

static void
log_ev(uint64_t t, uint32_t kind, uint32_t src, uint32_t dst,
       struct rte_mbuf *m)
{
	uint32_t h[4] = { kind, src, dst, rte_pktmbuf_pkt_len(m) };
	const struct rte_mbuf *s;

	sim_digest_add(&t, sizeof(t));
	sim_digest_add(h, sizeof(h));
	for (s = m; s != NULL; s = s->next)
		sim_digest_add(rte_pktmbuf_mtod(s, const void *),
			       rte_pktmbuf_data_len(s));
	F.st.events++;
}

unsigned int
sim_fabric_collect(uint64_t now)
{
	struct rte_mbuf *b[SIM_BURST];
	unsigned int p, i, n, total = 0;
	uint32_t src, dst, len;
	uint64_t t;

	for (p = 0; p < F.nb_ports; p++) {
		do {
			n = rte_ring_dequeue_burst(F.tx[p], (void **)b,
						   SIM_BURST, NULL);
			for (i = 0; i < n; i++) {
				if (!route(b[i], &src, &dst)) {
					F.st.unroutable++;
					rte_pktmbuf_free(b[i]);
					continue;
				}
				len = rte_pktmbuf_pkt_len(b[i]);
				F.st.frames++;
				F.st.bytes += len;
				t = RTE_MAX(now, F.up_free[src]) + ser_ns(len);
				F.up_free[src] = t;
				log_ev(now, 0, src, dst, b[i]);
				heap_push(t + F.lat[src], EV_SWITCH, b[i], src,
					  dst, len);
			}
			total += n;
		} while (n == SIM_BURST);
	}
	return total;
}

/* Is a link of src or dst down at t? */
static bool
link_down(uint64_t t, uint32_t src, uint32_t dst)
{
	return (F.flaps[src] || F.flaps[dst]) && t >= F.c.flap_at_ns &&
	       t < F.c.flap_at_ns + F.c.flap_for_ns;
}

/* Flip one bit after the Ethernet header, in the first segment. */
static void
corrupt(struct rte_mbuf *m)
{
	uint32_t l = rte_pktmbuf_data_len(m), off;
	uint8_t *b = rte_pktmbuf_mtod(m, uint8_t *);

	if (l <= RTE_ETHER_HDR_LEN)
		return;
	off = RTE_ETHER_HDR_LEN + (uint32_t)(sim_rand() %
					     (l - RTE_ETHER_HDR_LEN));
	b[off] ^= (uint8_t)(1u << (sim_rand() % 8));
}

/* A frame reaches the switch at t: faults, then d's downlink queue. */
static void
at_switch(uint64_t t, struct rte_mbuf *m, uint32_t src, uint32_t dst,
	  uint32_t len)
{
	uint64_t start, backlog_ns, out;
	struct rte_mbuf *copy = NULL;

	if (link_down(t, src, dst)) {
		F.st.dropped_flap++;
		rte_pktmbuf_free(m);
		return;
	}
	if (F.down[src] || F.down[dst]) {
		F.st.dropped_down++;
		rte_pktmbuf_free(m);
		return;
	}
	if (F.c.loss > 0 && sim_rand_unit() < F.c.loss) {
		F.st.dropped_loss++;
		rte_pktmbuf_free(m);
		return;
	}
	if (F.c.dup > 0 && sim_rand_unit() < F.c.dup) {
		copy = rte_pktmbuf_copy(m, F.copies, 0, UINT32_MAX);
		if (copy != NULL)
			F.st.duplicated++;
	}
	if (F.c.corrupt > 0 && sim_rand_unit() < F.c.corrupt) {
		/* The frame may be the PMD's or a message's (zero-copy):
		 * corrupt a copy of it. */
		struct rte_mbuf *c = rte_pktmbuf_copy(m, F.copies, 0,
						      UINT32_MAX);

		if (c != NULL) {
			rte_pktmbuf_free(m);
			m = c;
			corrupt(m);
			F.st.corrupted++;
		}
	}
	if (F.c.reorder > 0 && sim_rand_unit() < F.c.reorder) {
		t += 1 + sim_rand() % RTE_MAX(F.c.reorder_ns, 1u);
		F.st.reordered++;
	}
	for (;;) {
		start = RTE_MAX(t, F.down_free[dst]);
		backlog_ns = start - t;
		/* Bytes queued ahead of it, at the rate. */
		if (backlog_ns * F.c.gbps / 8 > F.c.buf_bytes) {
			F.st.dropped_buf++;
			rte_pktmbuf_free(m);
		} else {
			out = start + ser_ns(len);
			F.down_free[dst] = out;
			heap_push(out + F.lat[dst], EV_DELIVER, m, src, dst,
				  len);
		}
		if (copy == NULL)
			break;
		m = copy;
		copy = NULL;
	}
}

unsigned int
sim_fabric_deliver(uint64_t now)
{
	unsigned int n = 0;
	struct sim_ev ev;

	while (F.nb_ev != 0 && F.heap[0].t <= now) {
		ev = heap_pop();
		if (ev.kind == EV_SWITCH) {
			at_switch(ev.t, ev.m, ev.src, ev.dst, ev.len);
			continue;
		}
		log_ev(ev.t, 1, ev.src, ev.dst, ev.m);
		if (rte_ring_enqueue(F.rx[F.port_of_host[ev.dst]], ev.m) != 0) {
			F.st.dropped_ring++;
			rte_pktmbuf_free(ev.m);
		}
		n++;
	}
	return n;
}

uint64_t
sim_fabric_heap_bytes(void)
{
	return F.cap_ev * sizeof(*F.heap);
}

const struct sim_fabric_stats *
sim_fabric_stats(void)
{
	return &F.st;
}

void
sim_fabric_fini(void)
{
	struct rte_mbuf *m;
	unsigned int p;

	while (F.nb_ev != 0)
		rte_pktmbuf_free(heap_pop().m);
	for (p = 0; p < F.nb_ports; p++) {
		while (rte_ring_dequeue(F.rx[p], (void **)&m) == 0)
			rte_pktmbuf_free(m);
		while (rte_ring_dequeue(F.tx[p], (void **)&m) == 0)
			rte_pktmbuf_free(m);
	}
	free(F.heap);
	F.heap = NULL;
	F.cap_ev = 0;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The eth transport of the rdma suite (see rdma_eth.h): a net_ring pair
 * in this process, made once and kept (the library stops and starts the
 * ports at every rte_rds_fini / rte_rds_init).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_eth_ring.h>
#include <rte_rds.h>

#include "rds_eth.h"		/* frame build and parse (rds_eth_wire.c) */
#include "rdma_common.h"
#include "rdma_eth.h"

#define MACA "02:00:0a:fe:00:01"
#define MACB "02:00:0a:fe:00:02"
#define MAC_GONE "02:00:0a:fe:00:09"

static struct rte_ring *ring_ab, *ring_ba;
static uint16_t port_a, port_b;
static char extra_opts[128];

void
rdma_eth_set_opts(const char *opts)
{
	snprintf(extra_opts, sizeof(extra_opts), "%s",
		 opts != NULL ? opts : "");
}

struct rte_ring *
rdma_eth_ring_ab(void)
{
	return ring_ab;
}

struct rte_ring *
rdma_eth_ring_ba(void)
{
	return ring_ba;
}

static int
make_ports(void)
{
	static bool made;
	char n[RTE_ETH_NAME_MAX_LEN];
	int ret;

	if (made)
		return 0;
	ring_ab = rte_ring_create("rdma_eth_ab", 4096, 0,
				  RING_F_SP_ENQ | RING_F_SC_DEQ);
	ring_ba = rte_ring_create("rdma_eth_ba", 4096, 0,
				  RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (ring_ab == NULL || ring_ba == NULL) {
		printf("rte_ring_create: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	/* A receives what B sends and sends what B receives. */
	ret = rte_eth_from_rings("rdma_ringA", &ring_ba, 1, &ring_ab, 1, 0);
	if (ret < 0) {
		printf("rte_eth_from_rings: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	port_a = (uint16_t)ret;
	ret = rte_eth_from_rings("rdma_ringB", &ring_ab, 1, &ring_ba, 1, 0);
	if (ret < 0) {
		printf("rte_eth_from_rings: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	port_b = (uint16_t)ret;
	rte_eth_dev_get_name_by_port(port_a, n);
	printf("  eth: ports %s (%u) and ", n, port_a);
	rte_eth_dev_get_name_by_port(port_b, n);
	printf("%s (%u)\n", n, port_b);
	made = true;
	return 0;
}

static int
add(struct rte_rds_conf *conf, const char *ip, uint16_t port,
    const char *mac, const char *neigh)
{
	const char *env = getenv("RDS_TEST_ETH_OPTS");
	char spec[RTE_RDS_ARGSIZE + 32];
	int n;

	n = snprintf(spec, sizeof(spec), "%s=eth,port=%u,mac=%s%s%s%s%s%s%s",
		     ip, port, mac, neigh != NULL ? ",neigh=" : "",
		     neigh != NULL ? neigh : "",
		     extra_opts[0] != '\0' ? "," : "", extra_opts,
		     env != NULL && env[0] != '\0' ? "," : "",
		     env != NULL ? env : "");
	if (n < 0 || (size_t)n >= sizeof(spec) ||
	    rte_rds_conf_add_addr_str(conf, spec) != 0) {
		printf("eth address '%s': %s\n", spec,
		       rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

static int
eth_conf(struct rte_rds_conf *conf, uint32_t lcore,
	 enum rte_rds_idle_policy idle)
{
	bool arp = rds_test_env_u64("RDS_TEST_ETH_ARP", 0) != 0;

	rte_rds_conf_init(conf);
	if (make_ports() != 0)
		return -1;
	conf->nb_engines = 1;
	conf->engine[0].lcore_id = lcore;
	conf->engine[0].idle = idle;
	/* The neighbours once per port (its table is shared by its
	 * addresses); with RDS_TEST_ETH_ARP=1 ARP finds them (the gone
	 * address keeps its entry). */
	if ((arp ? (add(conf, RDMA_ETH_IP1, port_a, MACA, NULL) ||
		    add(conf, RDMA_ETH_IP2, port_b, MACB,
			RDMA_ETH_GONE_IP "/" MAC_GONE)) :
	     (add(conf, RDMA_ETH_IP1, port_a, MACA, RDMA_ETH_IP2 "/" MACB) ||
	      add(conf, RDMA_ETH_IP2, port_b, MACB,
		  RDMA_ETH_IP1 "/" MACA "+" RDMA_ETH_IP3 "/" MACA "+"
		  RDMA_ETH_IP4 "/" MACA "+" RDMA_ETH_GONE_IP "/" MAC_GONE))) ||
	    add(conf, RDMA_ETH_IP3, port_a, MACA, NULL) ||
	    add(conf, RDMA_ETH_IP4, port_a, MACA, NULL)) {
		rte_rds_conf_free(conf);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Looking at frames and adding our own */

#define MAX_STREAMS 16
#define NB_TYPES 5	/* frame types 1..4 */

/* What was seen of the stream src sends to dst: its latest epoch, and
 * the frames of each type (every transmission). */
static struct {
	uint32_t src, dst;	/* network order */
	uint32_t epoch;
	uint64_t frames[NB_TYPES];
} streams[MAX_STREAMS];
static unsigned int nb_streams;
static struct rte_mempool *inj_pool;
static uint64_t frames_seen, sniffed_at = UINT64_MAX;
static uint32_t seen_ab, seen_ba;	/* ring positions counted up to */
/* Frames to take out of the rings (rdma_eth_steal_from). */
static uint32_t steal_src, steal_dst;
static uint8_t steal_type;
static uint16_t steal_min_len, steal_max_len;
static uint64_t stolen;

static int
stream_find(uint32_t src, uint32_t dst, bool make)
{
	unsigned int i;

	for (i = 0; i < nb_streams; i++)
		if (streams[i].src == src && streams[i].dst == dst)
			return (int)i;
	if (!make || nb_streams == MAX_STREAMS)
		return -1;
	memset(&streams[nb_streams], 0, sizeof(streams[0]));
	streams[nb_streams].src = src;
	streams[nb_streams].dst = dst;
	return (int)nb_streams++;
}

static bool
steal_it(const struct rds_eth_frame *f)
{
	return steal_type != 0 && f->type == steal_type &&
	       f->src_ip == steal_src && f->dst_ip == steal_dst &&
	       f->len >= steal_min_len && f->len <= steal_max_len;
}

static void
sniff_ring(struct rte_ring *r, uint32_t *seen_upto)
{
	struct rte_mbuf *m[512], *keep[512];
	struct rds_eth_frame f;
	unsigned int n, i, k, nk, old;
	int32_t o;
	int si;

	if (r == NULL)
		return;
	/* Out and back in, in order: between two polls nobody else uses
	 * the ring. The port takes at most a burst per poll: the first
	 * frames may be ones seen last time (ring positions before where
	 * our last enqueue ended), counted then. */
	n = rte_ring_count(r);
	o = (int32_t)(*seen_upto - r->cons.tail);
	old = o < 0 ? 0 : RTE_MIN((unsigned int)o, n);
	for (k = 0; k < n; k += i) {
		unsigned int got = rte_ring_dequeue_burst(r, (void **)m,
			RTE_MIN(n - k, (unsigned int)RTE_DIM(m)), NULL);

		for (i = 0, nk = 0; i < got; i++) {
			bool seen = k + i < old;

			if (rds_eth_frame_parse(m[i], RDS_ETH_UDP_PORT, &f) !=
			    RDS_ETH_DROP_NONE) {
				keep[nk++] = m[i];
				continue;
			}
			si = stream_find(f.src_ip, f.dst_ip, true);
			if (si >= 0 && !seen) {
				frames_seen++;
				if (f.src_epoch != 0)
					streams[si].epoch = f.src_epoch;
				if (f.type < NB_TYPES)
					streams[si].frames[f.type]++;
			}
			if (steal_it(&f)) {
				stolen++;
				rte_pktmbuf_free(m[i]);
				continue;
			}
			keep[nk++] = m[i];
		}
		if (rte_ring_enqueue_bulk(r, (void **)keep, nk, NULL) != nk) {
			printf("sniff: ring full\n");
			abort();
		}
		if (got == 0)
			break;
	}
	*seen_upto = r->prod.tail;
}

void
rdma_eth_sniff_hook(void *arg)
{
	RTE_SET_USED(arg);
	rdma_eth_sniff();
}

void
rdma_eth_sniff(void)
{
	/* Once between two polls: every frame is counted once. */
	if (sniffed_at == rdma_polls())
		return;
	sniffed_at = rdma_polls();
	sniff_ring(ring_ab, &seen_ab);
	sniff_ring(ring_ba, &seen_ba);
}

uint64_t
rdma_eth_seen(const char *src, const char *dst, uint8_t type)
{
	int si = stream_find(inet_addr(src), inet_addr(dst), false);

	return si < 0 || type >= NB_TYPES ? 0 : streams[si].frames[type];
}

void
rdma_eth_steal_from(const char *src, const char *dst, uint8_t type,
		    uint16_t min_len, uint16_t max_len)
{
	steal_src = src != NULL ? inet_addr(src) : 0;
	steal_dst = dst != NULL ? inet_addr(dst) : 0;
	steal_type = src != NULL ? type : 0;
	steal_min_len = min_len;
	steal_max_len = max_len;
}

uint64_t
rdma_eth_stolen(void)
{
	return stolen;
}

static bool
on_port_a(uint32_t ip)
{
	return ip != inet_addr(RDMA_ETH_IP2);
}

int
rdma_eth_inject_reset(const char *ip, const char *peer)
{
	uint32_t src = inet_addr(ip), dst = inet_addr(peer);
	struct rte_ether_addr ms, md;
	struct rds_eth_frame f;
	struct rte_mbuf *m;
	int si;

	rdma_eth_sniff();
	si = stream_find(src, dst, false);
	if (si < 0 || streams[si].epoch == 0)
		return -EAGAIN;
	if (inj_pool == NULL)
		inj_pool = rte_pktmbuf_pool_create("rdma_eth_inj", 511, 0, 0,
						   RTE_MBUF_DEFAULT_BUF_SIZE,
						   SOCKET_ID_ANY);
	if (inj_pool == NULL)
		return -ENOMEM;
	m = rte_pktmbuf_alloc(inj_pool);
	if (m == NULL)
		return -ENOMEM;
	if (rte_pktmbuf_append(m, RDS_ETH_HDRS) == NULL) {
		rte_pktmbuf_free(m);
		return -ENOMEM;
	}
	/* What peer sends when it has no state for ip's stream. */
	memset(&f, 0, sizeof(f));
	f.type = RDS_ETH_F_ACK;
	f.flags = RDS_ETH_FL_RESET;
	f.dst_epoch = streams[si].epoch;
	rte_ether_unformat_addr(on_port_a(dst) ? MACA : MACB, &ms);
	rte_ether_unformat_addr(on_port_a(src) ? MACA : MACB, &md);
	if (rds_eth_frame_build(m, &ms, &md, dst, src, RDS_ETH_UDP_PORT,
				RDS_ETH_UDP_PORT, &f, false) != 0) {
		rte_pktmbuf_free(m);
		return -EINVAL;
	}
	/* Into the ring of the port ip is on. */
	if (rte_ring_enqueue(on_port_a(src) ? ring_ba : ring_ab, m) != 0) {
		rte_pktmbuf_free(m);
		return -ENOBUFS;
	}
	return 0;
}

uint64_t
rdma_eth_frames_seen(void)
{
	return frames_seen;
}

/* ------------------------------------------------------------------ */

static void
eth_clear(void)
{
	rdma_eth_steal_from(NULL, NULL, 0, 0, 0);
	rdma_eth_set_opts(NULL);
}

static struct rdma_transport rdma_eth = {
	.name = "eth",
	.pin = RTE_RDS_TRANS_ETH,
	/* Far more than a round trip over the rings and the delayed ACK;
	 * several retransmit timer floors (200 us). */
	.quiet_ms = 10,
	.ip = { NULL, RDMA_ETH_IP1, RDMA_ETH_IP2, RDMA_ETH_IP3,
		RDMA_ETH_IP4 },
	.conf = eth_conf,
	.clear = eth_clear,
};

RTE_INIT(rdma_eth_register)
{
	rdma_transport_register(&rdma_eth);
}

void
rdma_eth_resets_hook(void *arg)
{
	struct rdma_eth_resets *h = arg;

	rdma_eth_sniff();
	if (++h->polls % h->every != 0)
		return;
	/* The server's stream, then the client's. */
	if (rdma_eth_inject_reset((h->injected & 1) ? rdma_ip(1) : rdma_ip(2),
				  (h->injected & 1) ? rdma_ip(2) : rdma_ip(1))
	    == 0)
		h->injected++;
}

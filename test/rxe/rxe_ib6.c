/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ib transport over IPv6 against rxe (soft-RoCE), inside the test VM
 * (run-in-vm.sh puts fd98::15..18/64 and fe80::16, fe80::17 on eth0,
 * under rxe0, and passes RDS_IB_ADDR6_A/B/C and RDS_IB_LL_A/B). One
 * process owns two IPv6 addresses on the rxe device, every socket pinned
 * to RDS_TRANS_IB, so that each message crosses a real RC QP set up with
 * the kernel's IPv6 CM exchange (RDMA-CM port 16385, the 52-byte struct
 * rds6_ib_connect_private). Cases:
 *   stream6     4 sockets, every one to every other, SHA-256 per pair;
 *               RDS6_INFO_IB_CONNECTIONS has the connections with their
 *               GIDs, RDS_INFO_IB_CONNECTIONS none (IPv4 only)
 *   linklocal   the same between fe80::16 and fe80::17 on eth0; a bind
 *               with another link's scope is EADDRNOTAVAIL
 *   cm_peer     a peer played with librdmacm from A to B (the library
 *               on B and C): a request with the IPv6 private data is
 *               accepted and the reply has the IPv6 layout (version
 *               3.1, the two addresses); one with the IPv4 layout is
 *               rejected (read as IPv6, its version is zero and its
 *               addresses are not ours)
 *   versions    the played peer proposes protocol versions as the
 *               kernels do (mainline 3.1, UEK 4.1 with its fragment
 *               size, 4.0, a zero major) and ones nobody speaks (3.0,
 *               4.2, 5.0): each is answered with the kernel's choice or
 *               rejected as incompatible
 *   versions_active  the played peer listens and answers our proto=4.1
 *               proposal with 4.1 (the connection comes up at 4.1) and
 *               then with 5.0 (the attempt is dropped)
 *   init        IPv6 addresses ib cannot serve: EADDRNOTAVAIL
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <net/if.h>

#include <CUnit/CUnit.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_rds.h>
#include <rte_rds_ib.h>
#include <rte_rds_info.h>

#include "rds_stream.h"
#include "rds_test.h"

static const char *a6, *b6, *c6, *lla, *llb;

/* x and y on ib, x with the ib options xopts ("" for none). */
static void
lib_up2o(const char *x, const char *y, const char *xopts)
{
	struct rte_rds_conf conf;
	char spec[160];

	rte_rds_conf_init(&conf);
	conf.engine[0].lcore_id = RTE_RDS_ENGINE_INLINE;
	conf.engine[0].idle = RTE_RDS_IDLE_YIELD;
	snprintf(spec, sizeof(spec), "[%s]=ib%s%s", x,
		 xopts[0] != '\0' ? "," : "", xopts);
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(&conf, spec) == 0);
	snprintf(spec, sizeof(spec), "[%s]=ib", y);
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(&conf, spec) == 0);
	CU_ASSERT_FATAL(rds_test_lib_init(&conf) == 0);
}

static void
lib_up2(const char *x, const char *y)
{
	lib_up2o(x, y, "");
}

static struct rte_rds_ib_stats
ib_stats(void)
{
	struct rte_rds_ib_stats st;

	memset(&st, 0, sizeof(st));
	CU_ASSERT(rte_rds_ib_stats_get(&st) == 0);
	return st;
}

static void
run_stream(const char *what, const char *x, const char *y, uint64_t total)
{
	struct rds_stream_conf sc;
	struct rds_stream *st;
	struct rte_rds_ib_stats ist;

	rds_stream_conf_default(&sc, total);
	sc.nsock = 4;
	sc.ip[0] = x;
	sc.ip[1] = x;
	sc.ip[2] = y;
	sc.ip[3] = y;
	sc.trans = RDS_TRANS_IB;
	sc.large_one_in = 200;
	sc.check_bytes = true;
	sc.kick = rds_test_kick;
	st = rds_stream_new(&sc);
	CU_ASSERT_FATAL(st != NULL);
	CU_ASSERT(rds_stream_run(st, what));
	CU_ASSERT(rds_stream_verify(st) == 0);
	rds_stream_free(st);
	ist = ib_stats();
	printf("  %s: ib connects active %" PRIu64 " passive %" PRIu64
	       ", tx %" PRIu64 " rx %" PRIu64 " frames, cm errors %" PRIu64
	       "\n", what, ist.connects_active, ist.connects_passive,
	       ist.tx_frames, ist.rx_frames, ist.cm_errors);
	/* Over verbs: the QPs of both directions came up. */
	CU_ASSERT(ist.connects_active >= 1);
	CU_ASSERT(ist.connects_passive >= 1);
	CU_ASSERT(ist.rx_frames >= total / 2);
}

static bool
gid_zero(const uint8_t *g)
{
	static const uint8_t z[RDS_IB_GID_LEN];

	return memcmp(g, z, sizeof(z)) == 0;
}

/* Every socket to every other over IPv6; the info records. */
static void
test_stream6(void)
{
	struct rds6_info_rdma_connection rec6[8];
	struct in6_addr x, y;
	socklen_t len = 0;
	unsigned int i, n;

	lib_up2(a6, b6);
	run_stream("stream6", a6, b6, 6000);
	/* No IPv4 connection: the IPv4 records are none. */
	CU_ASSERT_EQUAL(rte_rds_info(RDS_INFO_IB_CONNECTIONS, NULL, &len),
			(int)sizeof(struct rds_info_rdma_connection));
	CU_ASSERT_EQUAL(len, 0);
	len = sizeof(rec6);
	CU_ASSERT_EQUAL(rte_rds_info(RDS6_INFO_IB_CONNECTIONS, rec6, &len),
			(int)sizeof(rec6[0]));
	n = len / sizeof(rec6[0]);
	CU_ASSERT_EQUAL(n, 2);
	inet_pton(AF_INET6, a6, &x);
	inet_pton(AF_INET6, b6, &y);
	for (i = 0; i < n && i < RTE_DIM(rec6); i++) {
		char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];

		inet_ntop(AF_INET6, &rec6[i].src_addr, s, sizeof(s));
		inet_ntop(AF_INET6, &rec6[i].dst_addr, d, sizeof(d));
		printf("  RDS6_INFO_IB_CONNECTIONS: %s -> %s, send_wr %u\n", s,
		       d, rec6[i].max_send_wr);
		CU_ASSERT((memcmp(&rec6[i].src_addr, &x, 16) == 0 &&
			   memcmp(&rec6[i].dst_addr, &y, 16) == 0) ||
			  (memcmp(&rec6[i].src_addr, &y, 16) == 0 &&
			   memcmp(&rec6[i].dst_addr, &x, 16) == 0));
		/* Up: the GIDs of the QP's path (RoCE v2: the IPv6
		 * addresses themselves). */
		CU_ASSERT(!gid_zero(rec6[i].src_gid));
		CU_ASSERT(!gid_zero(rec6[i].dst_gid));
		CU_ASSERT(rec6[i].max_send_wr > 0);
	}
	rds_test_lib_fini();
}

/* Two link-local addresses of one link. */
static void
test_linklocal(void)
{
	unsigned int ifx = if_nametoindex("eth0");
	union rds_test_addr wrong;
	char x[64], y[64];
	int s;

	CU_ASSERT_FATAL(ifx != 0);
	lib_up2(lla, llb);
	wrong = rds_test_addr(lla, 4000);
	wrong.in6.sin6_scope_id = ifx + 100;
	s = rte_rds_socket();
	CU_ASSERT_FATAL(s >= 0);
	errno = 0;
	CU_ASSERT_EQUAL(rte_rds_bind(s, &wrong.sa, sizeof(wrong.in6)), -1);
	CU_ASSERT_EQUAL(errno, EADDRNOTAVAIL);
	rte_rds_close(s);
	snprintf(x, sizeof(x), "%s%%eth0", lla);
	snprintf(y, sizeof(y), "%s%%eth0", llb);
	run_stream("linklocal", x, y, 3000);
	rds_test_lib_fini();
}

/* ------------------------------------------------------------------ */
/* A peer played with librdmacm, as the kernel's rds_rdma writes its
 * CM private data (net/rds/ib.h). */

struct cmn {
	uint8_t major, minor;
	uint16_t minor_mask;
	uint8_t tos, res1;
	uint16_t res2;
	uint64_t ack_seq;
	uint32_t credit;
} __attribute__((packed));

struct priv6 {
	uint8_t saddr[16], daddr[16];
	struct cmn cmn;
} __attribute__((packed));

struct priv4 {
	uint32_t saddr, daddr;
	struct cmn cmn;
} __attribute__((packed));

/* The next event of ch within 20 s, driving the library meanwhile;
 * copied (its private data into priv, *plen), acknowledged. */
static bool
cm_next(struct rdma_event_channel *ch, struct rdma_cm_event *out,
	void *priv, uint8_t *plen)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	uint64_t t0 = rds_test_now_ns();

	while (rds_test_now_ns() - t0 < 20000000000ULL) {
		rds_test_kick();
		if (poll(&p, 1, 1) <= 0)
			continue;
		if (rdma_get_cm_event(ch, &ev) != 0)
			return false;
		*out = *ev;
		*plen = 0;
		if (ev->param.conn.private_data != NULL && priv != NULL) {
			*plen = RTE_MIN(ev->param.conn.private_data_len,
					(uint8_t)64);
			memcpy(priv, ev->param.conn.private_data, *plen);
		}
		rdma_ack_cm_event(ev);
		return true;
	}
	printf("  TIMEOUT: no CM event\n");
	return false;
}

/* Connect from src to dst:16385 with pd (plen bytes) as private data;
 * the final event (ESTABLISHED, REJECTED, ...) in *out and its private
 * data in reply. */
static bool
cm_try(const char *src, const char *dst, const void *pd, uint8_t plen,
       struct rdma_cm_event *out, uint8_t *reply, uint8_t *rlen)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	union rds_test_addr s = rds_test_addr(src, 0);
	union rds_test_addr d = rds_test_addr(dst, 16385);
	struct rdma_conn_param cp;
	struct ibv_qp_init_attr qa;
	struct rdma_cm_id *id = NULL;
	struct ibv_pd *ipd = NULL;
	struct ibv_cq *cq = NULL;
	bool ok = false;

	if (ch == NULL || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) != 0)
		goto out;
	if (rdma_resolve_addr(id, &s.sa, &d.sa, 5000) != 0 ||
	    !cm_next(ch, out, NULL, rlen) ||
	    out->event != RDMA_CM_EVENT_ADDR_RESOLVED ||
	    rdma_resolve_route(id, 5000) != 0 || !cm_next(ch, out, NULL, rlen) ||
	    out->event != RDMA_CM_EVENT_ROUTE_RESOLVED) {
		printf("  cm_peer: address or route not resolved (%s)\n",
		       rdma_event_str(out->event));
		goto out;
	}
	ipd = ibv_alloc_pd(id->verbs);
	cq = ipd != NULL ? ibv_create_cq(id->verbs, 16, NULL, NULL, 0) : NULL;
	if (cq == NULL)
		goto out;
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 4;
	qa.cap.max_recv_wr = 4;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, ipd, &qa) != 0)
		goto out;
	memset(&cp, 0, sizeof(cp));
	cp.private_data = pd;
	cp.private_data_len = plen;
	cp.responder_resources = 1;
	cp.initiator_depth = 1;
	cp.retry_count = 7;
	cp.rnr_retry_count = 7;
	if (rdma_connect(id, &cp) != 0 || !cm_next(ch, out, reply, rlen))
		goto out;
	ok = true;
	if (out->event == RDMA_CM_EVENT_ESTABLISHED)
		rdma_disconnect(id);
out:
	if (id != NULL) {
		if (id->qp != NULL)
			rdma_destroy_qp(id);
		rdma_destroy_id(id);
	}
	if (cq != NULL)
		ibv_destroy_cq(cq);
	if (ipd != NULL)
		ibv_dealloc_pd(ipd);
	if (ch != NULL)
		rdma_destroy_event_channel(ch);
	return ok;
}

static void
test_cm_peer(void)
{
	struct rdma_cm_event ev;
	struct priv6 p6, r6;
	struct priv4 p4;
	uint8_t reply[64], rlen = 0;
	struct in6_addr x, z;
	struct rte_rds_ib_stats st0;

	/* We are B (and C), the peer A: lower than B, so that the race
	 * rule (the lower address's attempt wins) never refuses it while
	 * we reconnect to it after it went. */
	lib_up2(b6, c6);
	inet_pton(AF_INET6, b6, &x);
	inet_pton(AF_INET6, a6, &z);
	st0 = ib_stats();
	/* The kernel's IPv6 request to B, from A (no address of ours). */
	memset(&p6, 0, sizeof(p6));
	memcpy(p6.saddr, &z, 16);
	memcpy(p6.daddr, &x, 16);
	p6.cmn.major = 3;
	p6.cmn.minor = 1;
	p6.cmn.minor_mask = htons(3);
	CU_ASSERT_FATAL(cm_try(a6, b6, &p6, sizeof(p6), &ev, reply, &rlen));
	printf("  IPv6 request: %s, reply %u bytes\n", rdma_event_str(ev.event),
	       rlen);
	CU_ASSERT_EQUAL(ev.event, RDMA_CM_EVENT_ESTABLISHED);
	CU_ASSERT(rlen >= sizeof(r6));
	memcpy(&r6, reply, sizeof(r6));
	/* The reply in the IPv6 layout: version 3.1, B to A. */
	CU_ASSERT_EQUAL(r6.cmn.major, 3);
	CU_ASSERT_EQUAL(r6.cmn.minor, 1);
	CU_ASSERT_EQUAL(ntohs(r6.cmn.minor_mask), 3);
	CU_ASSERT(memcmp(r6.saddr, &x, 16) == 0);
	CU_ASSERT(memcmp(r6.daddr, &z, 16) == 0);

	/* The IPv4 layout on the IPv6 listener: a zero version where the
	 * IPv6 layout has it (4.0 to the kernel's rules: an old peer) and
	 * no address of ours: rejected, no connection. */
	memset(&p4, 0, sizeof(p4));
	p4.cmn.major = 3;
	p4.cmn.minor = 1;
	p4.cmn.minor_mask = htons(3);
	CU_ASSERT_FATAL(cm_try(a6, b6, &p4, sizeof(p4), &ev, reply, &rlen));
	printf("  IPv4 layout to the IPv6 listener: %s (status %d)\n",
	       rdma_event_str(ev.event), ev.status);
	CU_ASSERT_EQUAL(ev.event, RDMA_CM_EVENT_REJECTED);
	rds_test_kick_n(200);
	/* The first came up on our side too, the second did not. */
	CU_ASSERT_EQUAL(ib_stats().connects_passive,
			st0.connects_passive + 1);
	rds_test_lib_fini();
}

/* The library's ib counters once pred holds (driving it up to 5 s). */
static struct rte_rds_ib_stats
ib_stats_when(bool (*pred)(const struct rte_rds_ib_stats *,
			   const struct rte_rds_ib_stats *),
	      const struct rte_rds_ib_stats *st0)
{
	uint64_t t0 = rds_test_now_ns();
	struct rte_rds_ib_stats st = ib_stats();

	while (!pred(&st, st0) && rds_test_now_ns() - t0 < 5000000000ULL) {
		rds_test_kick();
		rte_delay_us_sleep(1000);
		st = ib_stats();
	}
	return st;
}

/* The played peer's proposals and what the kernel answers to each
 * (net/rds/ib_cm.c rds_ib_protocol_compatible): 0.0 is an answer of
 * rejection. */
static const struct {
	uint8_t major, minor;
	uint16_t mask, frag;		/* frag: UEK's ricpc_frag_sz */
	uint8_t want_major, want_minor;
	const char *what;
} proposals[] = {
	{ 3, 1, 3, 0, 3, 1, "mainline's 3.1" },
	{ 4, 1, 3, 0, 4, 1, "4.1, minor mask 0x3" },
	{ 4, 1, 3, 16384, 4, 1, "UEK's 4.1 with 16 KiB fragments" },
	{ 4, 1, 2, 0, 4, 1, "4.1, mask 0x2" },
	{ 4, 1, 1, 0, 4, 0, "4.1, mask 0x1: 4.0" },
	{ 4, 0, 1, 0, 4, 0, "4.0" },
	{ 0, 0, 0, 0, 4, 0, "a zero major (an old peer): 4.0" },
	{ 4, 2, 4, 0, 0, 0, "4.2 alone: no minor in common" },
	{ 3, 0, 0, 0, 0, 0, "3.0" },
	{ 5, 0, 3, 0, 0, 0, "5.0" },
};

static unsigned int want_accepts, want_proto4, want_rejects;

static bool
versions_counted(const struct rte_rds_ib_stats *st,
		 const struct rte_rds_ib_stats *st0)
{
	return st->connects_passive - st0->connects_passive >= want_accepts &&
	       st->connects_proto4 - st0->connects_proto4 >= want_proto4 &&
	       st->rejects_incompat - st0->rejects_incompat >= want_rejects;
}

/* Proposal i from the played peer a6 (z) to b6 (x): the final event in
 * *ev, our reply in *r6 (zeroed when shorter), its length in *rlen. */
static void
propose(unsigned int i, const struct in6_addr *z, const struct in6_addr *x,
	struct rdma_cm_event *ev, struct priv6 *r6, uint8_t *rlen)
{
	uint8_t reply[64];
	struct priv6 p6;

	memset(&p6, 0, sizeof(p6));
	memcpy(p6.saddr, z, 16);
	memcpy(p6.daddr, x, 16);
	p6.cmn.major = proposals[i].major;
	p6.cmn.minor = proposals[i].minor;
	p6.cmn.minor_mask = htons(proposals[i].mask);
	p6.cmn.res2 = htons(proposals[i].frag);
	*rlen = 0;
	CU_ASSERT_FATAL(cm_try(a6, b6, &p6, sizeof(p6), ev, reply, rlen));
	memset(r6, 0, sizeof(*r6));
	if (*rlen >= sizeof(*r6))
		memcpy(r6, reply, sizeof(*r6));
	printf("  %u.%u mask 0x%x (%s): %s, reply %u.%u\n",
	       proposals[i].major, proposals[i].minor, proposals[i].mask,
	       proposals[i].what, rdma_event_str(ev->event), r6->cmn.major,
	       r6->cmn.minor);
}

static void
test_versions(void)
{
	struct rte_rds_ib_stats st0, st;
	struct rdma_cm_event ev;
	struct priv6 r6;
	uint8_t rlen = 0;
	struct in6_addr x, z;
	unsigned int i, bad = 0, retried = 0;

	lib_up2(b6, c6);	/* the peer is A, as in cm_peer */
	inet_pton(AF_INET6, b6, &x);
	inet_pton(AF_INET6, a6, &z);
	st0 = ib_stats();
	want_accepts = want_proto4 = want_rejects = 0;
	for (i = 0; i < RTE_DIM(proposals); i++) {
		bool accept = proposals[i].want_major != 0;

		propose(i, &z, &x, &ev, &r6, &rlen);
		/* The played peer's own side failing after our right reply
		 * came (librdmacm's RTR/RTS of its QP, or its RTU, in the
		 * loaded VM: seen once in a CI run) is not ours to judge:
		 * the proposal is made once more. Our side may have counted
		 * the failed one up (it had not in that run): the counts
		 * below allow one more per retry. */
		if (accept && ev.event == RDMA_CM_EVENT_CONNECT_ERROR &&
		    rlen >= sizeof(r6) &&
		    r6.cmn.major == proposals[i].want_major &&
		    r6.cmn.minor == proposals[i].want_minor) {
			printf("  (the played peer's connect failed after a "
			       "right reply: once more)\n");
			retried++;
			propose(i, &z, &x, &ev, &r6, &rlen);
		}
		if (accept) {
			want_accepts++;
			want_proto4 += proposals[i].want_major == 4;
			if (ev.event != RDMA_CM_EVENT_ESTABLISHED ||
			    rlen < sizeof(r6) ||
			    r6.cmn.major != proposals[i].want_major ||
			    r6.cmn.minor != proposals[i].want_minor)
				bad++;
			/* Our mask, and no fragment size above 4 KiB
			 * proposed (UEK then keeps 4 KiB). */
			CU_ASSERT_EQUAL(ntohs(r6.cmn.minor_mask), 3);
			CU_ASSERT_EQUAL(r6.cmn.res2, 0);
		} else {
			want_rejects++;
			if (ev.event != RDMA_CM_EVENT_REJECTED)
				bad++;
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
	/* Each accepted one came up on our side at its version, each
	 * rejected one was counted. */
	st = ib_stats_when(versions_counted, &st0);
	printf("  accepted %" PRIu64 " (%" PRIu64 " at 4.x), rejected %"
	       PRIu64 "\n", st.connects_passive - st0.connects_passive,
	       st.connects_proto4 - st0.connects_proto4,
	       st.rejects_incompat - st0.rejects_incompat);
	CU_ASSERT(st.connects_passive - st0.connects_passive >= want_accepts &&
		  st.connects_passive - st0.connects_passive <=
		  want_accepts + retried);
	CU_ASSERT(st.connects_proto4 - st0.connects_proto4 >= want_proto4 &&
		  st.connects_proto4 - st0.connects_proto4 <=
		  want_proto4 + retried);
	CU_ASSERT_EQUAL(st.rejects_incompat - st0.rejects_incompat,
			want_rejects);
	rds_test_lib_fini();
}

/* A played listener on C: the next connect request (our proposal in
 * *req), answered with version major.minor. True when the request came;
 * *idp is the request's id (with a QP), to destroy. */
struct played_qp {
	struct ibv_pd *pd;
	struct ibv_cq *cq;
};

static bool
answer_request(struct rdma_event_channel *ch, uint8_t major, uint8_t minor,
	       struct priv6 *req, struct rdma_cm_id **idp,
	       struct played_qp *pq)
{
	struct rdma_cm_event ev;
	struct rdma_conn_param cp;
	struct ibv_qp_init_attr qa;
	struct priv6 rep;
	uint8_t rlen = 0;

	*idp = NULL;
	memset(req, 0, sizeof(*req));
	do {
		if (!cm_next(ch, &ev, req, &rlen))
			return false;
	} while (ev.event != RDMA_CM_EVENT_CONNECT_REQUEST);
	*idp = ev.id;
	if (pq->pd == NULL) {
		pq->pd = ibv_alloc_pd(ev.id->verbs);
		pq->cq = pq->pd != NULL ?
			 ibv_create_cq(ev.id->verbs, 16, NULL, NULL, 0) : NULL;
	}
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = pq->cq;
	qa.recv_cq = pq->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 4;
	qa.cap.max_recv_wr = 4;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (pq->cq == NULL || rdma_create_qp(ev.id, pq->pd, &qa) != 0) {
		printf("  played listener: no QP\n");
		return false;
	}
	memset(&rep, 0, sizeof(rep));
	memcpy(rep.saddr, req->daddr, 16);
	memcpy(rep.daddr, req->saddr, 16);
	rep.cmn.major = major;
	rep.cmn.minor = minor;
	rep.cmn.minor_mask = htons(3);
	memset(&cp, 0, sizeof(cp));
	cp.private_data = &rep;
	cp.private_data_len = sizeof(rep);
	cp.responder_resources = 1;
	cp.initiator_depth = 1;
	cp.rnr_retry_count = 7;
	if (rdma_accept(ev.id, &cp) != 0) {
		printf("  played listener: rdma_accept: %s\n", strerror(errno));
		return false;
	}
	return true;
}

static void
drop_played(struct rdma_cm_id *id)
{
	if (id == NULL)
		return;
	rdma_disconnect(id);
	if (id->qp != NULL)
		rdma_destroy_qp(id);
	rdma_destroy_id(id);
}

static unsigned int want_active, want_active4;

static bool
active_counted(const struct rte_rds_ib_stats *st,
	       const struct rte_rds_ib_stats *st0)
{
	return st->connects_active - st0->connects_active >= want_active &&
	       st->connects_proto4 - st0->connects_proto4 >= want_active4 &&
	       st->rejects_incompat - st0->rejects_incompat >= want_rejects;
}

static void
test_versions_active(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	union rds_test_addr lz = rds_test_addr(c6, 16385);
	union rds_test_addr to = rds_test_addr(c6, 4001);
	struct rte_rds_ib_stats st0, st;
	struct rdma_cm_id *lid = NULL, *id = NULL;
	struct played_qp pq = { NULL, NULL };
	struct priv6 req;
	struct in6_addr x, z;
	char msg[64] = "to the played listener";
	int s;

	CU_ASSERT_FATAL(ch != NULL);
	CU_ASSERT_FATAL(rdma_create_id(ch, &lid, NULL, RDMA_PS_TCP) == 0);
	if (rdma_bind_addr(lid, &lz.sa) != 0 || rdma_listen(lid, 4) != 0) {
		printf("  FAIL: cannot listen on [%s]:16385: %s\n", c6,
		       strerror(errno));
		CU_FAIL("played listener");
		goto out;
	}
	lib_up2o(a6, b6, "proto=4.1");
	inet_pton(AF_INET6, a6, &x);
	inet_pton(AF_INET6, c6, &z);
	st0 = ib_stats();
	s = rds_test_socket_trans(a6, 4000, 0, 0, RDS_TRANS_IB);
	CU_ASSERT_FATAL(s >= 0);
	CU_ASSERT(rds_test_send_to(s, msg, sizeof(msg), &to, 0) ==
		  (ssize_t)sizeof(msg));
	/* Our proposal: 4.1 (proto=4.1), the kernel's mask, A to C. */
	CU_ASSERT_FATAL(answer_request(ch, 4, 1, &req, &id, &pq));
	printf("  our request: %u.%u mask 0x%x; answered 4.1\n",
	       req.cmn.major, req.cmn.minor, ntohs(req.cmn.minor_mask));
	CU_ASSERT_EQUAL(req.cmn.major, 4);
	CU_ASSERT_EQUAL(req.cmn.minor, 1);
	CU_ASSERT_EQUAL(ntohs(req.cmn.minor_mask), 3);
	CU_ASSERT(memcmp(req.saddr, &x, 16) == 0);
	CU_ASSERT(memcmp(req.daddr, &z, 16) == 0);
	want_active = 1;
	want_active4 = 1;
	want_rejects = 0;
	st = ib_stats_when(active_counted, &st0);
	printf("  up: active %" PRIu64 ", at 4.x %" PRIu64 "\n",
	       st.connects_active - st0.connects_active,
	       st.connects_proto4 - st0.connects_proto4);
	CU_ASSERT_EQUAL(st.connects_active - st0.connects_active, 1);
	CU_ASSERT_EQUAL(st.connects_proto4 - st0.connects_proto4, 1);
	/* Gone: we connect again, and this time hear 5.0, which nobody
	 * speaks: the attempt is dropped, not brought up. */
	drop_played(id);
	id = NULL;
	st0 = ib_stats();
	CU_ASSERT_FATAL(answer_request(ch, 5, 0, &req, &id, &pq));
	want_active = 0;
	want_active4 = 0;
	want_rejects = 1;
	st = ib_stats_when(active_counted, &st0);
	printf("  answered 5.0: active %" PRIu64 ", refused %" PRIu64 "\n",
	       st.connects_active - st0.connects_active,
	       st.rejects_incompat - st0.rejects_incompat);
	CU_ASSERT_EQUAL(st.connects_active - st0.connects_active, 0);
	CU_ASSERT_EQUAL(st.rejects_incompat - st0.rejects_incompat, 1);
	rte_rds_close(s);
	rds_test_lib_fini();
out:
	drop_played(id);
	if (lid != NULL)
		rdma_destroy_id(lid);
	if (pq.cq != NULL)
		ibv_destroy_cq(pq.cq);
	if (pq.pd != NULL)
		ibv_dealloc_pd(pq.pd);
	rdma_destroy_event_channel(ch);
}

/* rte_rds_init of one ib address: its errno (0: it worked). */
static int
init_one(const char *spec)
{
	struct rte_rds_conf conf;
	int ret;

	rte_rds_conf_init(&conf);
	conf.engine[0].lcore_id = RTE_RDS_ENGINE_INLINE;
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(&conf, spec) == 0);
	ret = rte_rds_init(&conf) == 0 ? 0 : rte_errno;
	if (ret == 0)
		rte_rds_fini();
	rte_rds_conf_free(&conf);
	return ret;
}

static void
test_init(void)
{
	/* Not on an RDMA device (not on this host at all). */
	CU_ASSERT_EQUAL(init_one("[fd98::99]=ib"), EADDRNOTAVAIL);
	/* Link-local on no interface. */
	CU_ASSERT_EQUAL(init_one("[fe80::99]=ib"), EADDRNOTAVAIL);
	/* And one that is served, with its default CM port 16385. */
	CU_ASSERT_EQUAL(init_one("[fd98::16]=ib"), 0);
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "stream6", test_stream6 },
		{ "linklocal", test_linklocal },
		{ "cm_peer", test_cm_peer },
		{ "versions", test_versions },
		{ "versions_active", test_versions_active },
		{ "init", test_init },
		{ NULL, NULL },
	};

	a6 = getenv("RDS_IB_ADDR6_A");
	b6 = getenv("RDS_IB_ADDR6_B");
	c6 = getenv("RDS_IB_ADDR6_C");
	lla = getenv("RDS_IB_LL_A");
	llb = getenv("RDS_IB_LL_B");
	if (a6 == NULL || b6 == NULL || c6 == NULL || lla == NULL ||
	    llb == NULL) {
		printf("SKIP: RDS_IB_ADDR6_A/B/C, RDS_IB_LL_A/B not set: run me "
		       "through test/rxe/run-in-vm.sh (inside the rxe VM)\n");
		return 77;
	}
	return rds_test_main("rxe_ib6", "0", cases);
}

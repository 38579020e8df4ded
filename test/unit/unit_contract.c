/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the transport contract, through a test transport defined
 * here ("contract"): the core calls its flush op once at the end of every
 * pass of an engine on which it is active; it sums its counters over
 * engines (rte_rds_xstats_get); it asks it for the RDS_INFO records it
 * keeps; it reports a connection error with
 * rds_conn_error(), after which the core resets and reconnects; its
 * per-address options reach it as given (rte_rds_conf_add_addr_str);
 * the calls of rds_driver.h that stand for writes to core state do what
 * the core needs (an ACK asked for goes out at the next pass). A
 * second one ("contract_acks") acknowledges messages itself
 * (RDS_TRANS_F_ACKS): the core then sends and requests no RDS ACK on its
 * connections and frees what it sent only as the transport says. A
 * third ("contract_rdma") runs RDMA operations and nothing else of
 * rds-rdma(7): the core applies the rule to their messages. The cases
 * of who acknowledges and of cancelling a half-sent message are in
 * unit_contract_ack.c.
 */
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>

#include <CUnit/CUnit.h>

#include "rds_test.h"
#include "rds_private.h"
#include "unit_contract.h"

/* The state the contract transports share with the tests. */
struct ct_state ct;

static int
ct_laddr_check(struct rds_laddr *la)
{
	snprintf(ct.args, sizeof(ct.args), "%s", la->args);
	return 0;
}

static int
ct_engine_init(struct rds_engine *e)
{
	extern const struct rds_transport ct_transport;

	rds_engine_poll_transport(e, &ct_transport);
	return 0;
}

static void
ct_flush(struct rds_engine *e)
{
	ct.flushes[e->id]++;
}

static int
ct_connect(struct rds_conn *c)
{
	ct.connects++;
	rds_conn_connect_complete(c);
	return 0;
}

static void
ct_shutdown(struct rds_conn *c)
{
	RTE_SET_USED(c);
	ct.shutdowns++;
}

static int
ct_xmit(struct rds_conn *c, struct rds_msg *m)
{
	struct rds_header h;
	uint64_t ack;

	ack = rds_msg_hdr(c, m, &h);
	if (ct.no_room)
		return -EAGAIN;
	if (!(c->trans->flags & RDS_TRANS_F_ACKS))
		rds_conn_ack_sent(c, ack);
	if (m->type == RDS_MSG_DATA) {	/* not the congestion map */
		ct.xmits++;
		if (ct.nb_hdrs < CT_MAX_HDRS &&
		    rds_hdr_decode(&h, sizeof(h), &ct.hdrs[ct.nb_hdrs],
				   NULL) == 0)
			ct.nb_hdrs++;
	}
	return 0;
}

static int
ct_xmit_ack(struct rds_conn *c)
{
	struct rds_header h;
	uint64_t ack;

	ack = rds_ack_hdr(c, &h);
	if (ct.no_room)
		return -EAGAIN;
	rds_conn_ack_sent(c, ack);
	ct.acks++;
	return 0;
}

static const char *const ct_xstat_names[] = { "engine_id_plus_one", "one" };

static void
ct_xstats(struct rds_engine *e, uint64_t *v)
{
	v[0] += e->id + 1;
	v[1] += 1;
}

/* One counter record per engine for RDS_INFO_CONNECTION_STATS. */
static void
ct_info(struct rds_engine *e, struct rds_info_req *r)
{
	struct rds_info_counter ic;

	if (r->name != RDS_INFO_CONNECTION_STATS)
		return;
	memset(&ic, 0, sizeof(ic));
	snprintf((char *)ic.name, sizeof(ic.name), "ct_engine_%u", e->id);
	ic.value = e->id;
	if (r->buf != NULL && r->used + r->each <= r->cap)
		memcpy(r->buf + r->used, &ic, sizeof(ic));
	r->used += r->each;
}

const struct rds_transport ct_transport = {
	.name = "contract",
	.trans_id = CT_TRANS_ID,
	.laddr_check = ct_laddr_check,
	.engine_init = ct_engine_init,
	.conn_connect = ct_connect,
	.conn_shutdown = ct_shutdown,
	.xmit = ct_xmit,
	.xmit_ack = ct_xmit_ack,
	.flush = ct_flush,
	.info = ct_info,
	.xstat_names = ct_xstat_names,
	.nb_xstats = RTE_DIM(ct_xstat_names),
	.xstats = ct_xstats,
};

RDS_TRANSPORT_REGISTER(ct_transport);

/* The same, acknowledging messages itself (the test calls
 * rds_send_drop_acked as its driver would). Its xmit_ack counts calls,
 * which must not come. */
static int
ct_acks_engine_init(struct rds_engine *e)
{
	extern const struct rds_transport ct_acks_transport;

	rds_engine_poll_transport(e, &ct_acks_transport);
	return 0;
}

const struct rds_transport ct_acks_transport = {
	.name = "contract_acks",
	.trans_id = CT_ACKS_TRANS_ID,
	.flags = RDS_TRANS_F_ACKS,
	.engine_init = ct_acks_engine_init,
	.conn_connect = ct_connect,
	.conn_shutdown = ct_shutdown,
	.xmit = ct_xmit,
	.xmit_ack = ct_xmit_ack,
};

RDS_TRANSPORT_REGISTER(ct_acks_transport);

/* The same with RDMA: its xmit_op runs nothing, it only reports the
 * result the test asks for (ct.op_status) or leaves the operation in
 * flight (ct.op_posted) for the test to complete; its xmit sends every
 * message it is given. Whatever rds-rdma(7) says of the message follows
 * from the core alone. */
static int
ct_rdma_engine_init(struct rds_engine *e)
{
	extern const struct rds_transport ct_rdma_transport;

	rds_engine_poll_transport(e, &ct_rdma_transport);
	return 0;
}

static int
ct_xmit_op(struct rds_conn *c, struct rds_msg *m)
{
	RTE_SET_USED(c);
	ct.op_calls++;
	if (ct.op_posted) {
		rds_rdma_op_hold(m->op);
		ct.op = m->op;
		return RDS_XMIT_OP_POSTED;
	}
	if (ct.op_status == RDS_RDMA_SUCCESS)
		rds_rdma_initiator_done(m->op, RDS_RDMA_SUCCESS, NULL, 0);
	else
		rds_rdma_op_fail(m->op, ct.op_status);
	return 0;
}

const struct rds_transport ct_rdma_transport = {
	.name = "contract_rdma",
	.trans_id = CT_RDMA_TRANS_ID,
	.flags = RDS_TRANS_F_RDMA,
	.engine_init = ct_rdma_engine_init,
	.conn_connect = ct_connect,
	.conn_shutdown = ct_shutdown,
	.xmit = ct_xmit,
	.xmit_op = ct_xmit_op,
	.xmit_ack = ct_xmit_ack,
};

RDS_TRANSPORT_REGISTER(ct_rdma_transport);

void
lib_up(unsigned int engines)
{
	struct rte_rds_conf conf;
	unsigned int i;

	memset(&ct, 0, sizeof(ct));
	rte_rds_conf_init(&conf);
	conf.nb_engines = (uint16_t)engines;
	for (i = 0; i < engines; i++)
		conf.engine[i].lcore_id = RTE_RDS_ENGINE_INLINE;
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(&conf,
		CT_IP "=contract,dev=ctdev0,depth=7,mode=x") == 0);
	CU_ASSERT_FATAL(rte_rds_conf_add_addr(&conf, "10.255.0.2", "loop",
					      NULL) == 0);
	CU_ASSERT_FATAL(rte_rds_conf_add_addr(&conf, CT_ACKS_IP,
					      "contract_acks", NULL) == 0);
	CU_ASSERT_FATAL(rte_rds_conf_add_addr(&conf, CT_RDMA_IP,
					      "contract_rdma", NULL) == 0);
	CU_ASSERT_FATAL(rte_rds_init(&conf) == 0);
	rte_rds_conf_free(&conf);
}

void
ct_send1(int s, const char *b)
{
	struct sockaddr_in to = rds_test_sin(CT_PEER, 9);

	CU_ASSERT_EQUAL(rte_rds_sendto(s, b, 1, 0, (struct sockaddr *)&to,
				       sizeof(to)), 1);
}

int
ct_up_sent(void)
{
	int s;

	lib_up(1);
	s = rds_test_socket(CT_IP, 4000, 0, 0);
	CU_ASSERT_FATAL(s >= 0);
	ct_send1(s, "x");
	return s;
}

struct rds_conn *
ct_conn(const char *ip, uint8_t trans_id)
{
	struct rds_conn_key k;

	memset(&k, 0, sizeof(k));
	rds_addr_from_v4(&k.laddr, inet_addr(ip));
	rds_addr_from_v4(&k.faddr, inet_addr(CT_PEER));
	k.trans_id = trans_id;
	return rds_conn_lookup(rds_engine_get(0), &k);
}

/*
 * rte_rds_conf.max_conns: below 8 or above 2^24 is EINVAL; an engine
 * holds that many connections, and a message to one more peer is
 * dropped and counted in send_cancelled (never queued on a connection
 * the table does not hold); its sender's next send fails with ENOMEM
 * (sending nothing), or SO_ERROR takes the error.
 */
static void
test_max_conns(void)
{
	struct rte_rds_conf conf;
	struct rte_rds_stats st;
	struct sockaddr_in to;
	socklen_t elen;
	char ip[32];
	unsigned int i;
	int s, err;

	rte_rds_conf_init(&conf);
	CU_ASSERT_EQUAL(conf.max_conns, 4096);
	conf.engine[0].lcore_id = RTE_RDS_ENGINE_INLINE;
	CU_ASSERT_FATAL(rte_rds_conf_add_addr_str(&conf, CT_IP "=contract")
			== 0);
	conf.max_conns = 7;
	CU_ASSERT_EQUAL(rte_rds_init(&conf), -1);
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	conf.max_conns = (1u << 24) + 1;
	CU_ASSERT_EQUAL(rte_rds_init(&conf), -1);
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	conf.max_conns = 8;
	memset(&ct, 0, sizeof(ct));
	CU_ASSERT_FATAL(rte_rds_init(&conf) == 0);
	rte_rds_conf_free(&conf);
	s = rds_test_socket(CT_IP, 4000, 0, 0);
	CU_ASSERT_FATAL(s >= 0);
	/* 12 peers, one message each: 8 connections, 4 dropped. Each
	 * dropped one is told at the next send (ENOMEM, the kernel's
	 * errno when it cannot make a connection), which sends nothing;
	 * the send after it goes. */
	for (i = 1; i <= 12; i++) {
		snprintf(ip, sizeof(ip), "10.254.0.%u", i);
		to = rds_test_sin(ip, 9);
		CU_ASSERT_EQUAL(rte_rds_sendto(s, "x", 1, MSG_DONTWAIT,
					       (struct sockaddr *)&to,
					       sizeof(to)), 1);
		rte_rds_engine_poll(0);
		if (i < 9 || i == 12)
			continue;
		to = rds_test_sin("10.254.0.1", 9);
		errno = 0;
		CU_ASSERT_EQUAL(rte_rds_sendto(s, "y", 1, MSG_DONTWAIT,
					       (struct sockaddr *)&to,
					       sizeof(to)), -1);
		CU_ASSERT_EQUAL(errno, ENOMEM);
		CU_ASSERT_EQUAL(rte_errno, ENOMEM);
		CU_ASSERT_EQUAL(rte_rds_sendto(s, "y", 1, MSG_DONTWAIT,
					       (struct sockaddr *)&to,
					       sizeof(to)), 1);
	}
	rte_rds_engine_poll(0);
	CU_ASSERT_EQUAL(rds_engine_get(0)->nb_conns, 8);
	CU_ASSERT_EQUAL(rte_rds_stats_get(0, &st), 0);
	CU_ASSERT_EQUAL(st.s_send_cancelled, 4);
	/* The last one's error, through SO_ERROR, which takes it. */
	err = -1;
	elen = sizeof(err);
	CU_ASSERT_EQUAL(rte_rds_getsockopt(s, SOL_SOCKET, SO_ERROR, &err,
					   &elen), 0);
	CU_ASSERT_EQUAL(err, ENOMEM);
	CU_ASSERT_EQUAL(rte_rds_getsockopt(s, SOL_SOCKET, SO_ERROR, &err,
					   &elen), 0);
	CU_ASSERT_EQUAL(err, 0);
	CU_ASSERT_EQUAL(rte_rds_sendto(s, "y", 1, MSG_DONTWAIT,
				       (struct sockaddr *)&to, sizeof(to)), 1);
	CU_ASSERT(rte_rds_close(s) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
}

static void
test_addr_str(void)
{
	struct rte_rds_conf conf;
	const struct rte_rds_addr_conf *ac;

	rte_rds_conf_init(&conf);
	CU_ASSERT_EQUAL(rte_rds_conf_add_addr_str(&conf,
			"10.1.2.3=eth,dev=net_memif0,mtu=9000"), 0);
	CU_ASSERT_EQUAL(rte_rds_conf_add_addr_str(&conf, "10.1.2.4=loop"), 0);
	ac = rte_rds_conf_addr(&conf, 0);
	CU_ASSERT_FATAL(ac != NULL);
	CU_ASSERT_EQUAL(ac->addr.s_addr, inet_addr("10.1.2.3"));
	CU_ASSERT_STRING_EQUAL(ac->transport, "eth");
	CU_ASSERT_STRING_EQUAL(ac->dev, "net_memif0");
	CU_ASSERT_STRING_EQUAL(ac->args, "dev=net_memif0,mtu=9000");
	ac = rte_rds_conf_addr(&conf, 1);
	CU_ASSERT_STRING_EQUAL(ac->transport, "loop");
	CU_ASSERT_STRING_EQUAL(ac->args, "");
	/* Malformed: no transport, no address, a bad address, too long. */
	CU_ASSERT_EQUAL(rte_rds_conf_add_addr_str(&conf, "10.1.2.5"), -1);
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	CU_ASSERT_EQUAL(rte_rds_conf_add_addr_str(&conf, "10.1.2.5="), -1);
	CU_ASSERT_EQUAL(rte_rds_conf_add_addr_str(&conf, "=loop"), -1);
	CU_ASSERT_EQUAL(rte_rds_conf_add_addr_str(&conf, "10.1.2=loop"), -1);
	CU_ASSERT_EQUAL(rte_rds_conf_add_addr_str(&conf, NULL), -1);
	CU_ASSERT_EQUAL(rte_rds_conf_add_addr_str(NULL, "10.1.2.5=loop"), -1);
	CU_ASSERT_EQUAL(conf.nb_addrs, 2);
	/* IPv6, bare or in brackets (rds-engined --addr [fd00::1]=loop). */
	CU_ASSERT_EQUAL(rte_rds_conf_add_addr_str(&conf, "fd00::1=loop"), 0);
	CU_ASSERT_EQUAL(rte_rds_conf_add_addr_str(&conf,
			"[fd00::2]=loop,x=1"), 0);
	ac = rte_rds_conf_addr(&conf, 3);
	CU_ASSERT_FATAL(ac != NULL);
	{
		struct in6_addr want;

		CU_ASSERT_EQUAL(inet_pton(AF_INET6, "fd00::2", &want), 1);
		CU_ASSERT_EQUAL(ac->family, AF_INET6);
		CU_ASSERT(memcmp(&ac->addr6, &want, sizeof(want)) == 0);
		CU_ASSERT_STRING_EQUAL(ac->transport, "loop");
		CU_ASSERT_STRING_EQUAL(ac->args, "x=1");
	}
	/* Brackets: closed, then '='; nothing else. */
	CU_ASSERT_EQUAL(rte_rds_conf_add_addr_str(&conf, "[fd00::3=loop"), -1);
	CU_ASSERT_EQUAL(rte_rds_conf_add_addr_str(&conf, "[fd00::3]loop"), -1);
	CU_ASSERT_EQUAL(rte_rds_conf_add_addr_str(&conf, "[]=loop"), -1);
	CU_ASSERT_EQUAL(rte_rds_conf_add_addr_str(&conf, "[fd00::3]x=loop"),
			-1);
	CU_ASSERT_EQUAL(conf.nb_addrs, 4);
	rte_rds_conf_free(&conf);
}

/* The driver sees its options; the core calls flush once per pass. */
static void
test_args_and_flush(void)
{
	unsigned int i;

	lib_up(2);
	CU_ASSERT_STRING_EQUAL(ct.args, "dev=ctdev0,depth=7,mode=x");
	for (i = 0; i < 10; i++)
		rte_rds_engine_poll(0);
	for (i = 0; i < 3; i++)
		rte_rds_engine_poll(1);
	CU_ASSERT_EQUAL(ct.flushes[0], 10);
	CU_ASSERT_EQUAL(ct.flushes[1], 3);
	CU_ASSERT(rte_rds_fini() == 0);
}

static void
test_xstats(void)
{
	struct rte_rds_xstat xs[4];
	uint64_t v;

	lib_up(3);
	CU_ASSERT_EQUAL(rte_rds_xstats_get("contract", NULL, 0), 2);
	CU_ASSERT_EQUAL(rte_rds_xstats_get("contract", xs, RTE_DIM(xs)), 2);
	CU_ASSERT_STRING_EQUAL(xs[0].name, "engine_id_plus_one");
	CU_ASSERT_EQUAL(xs[0].value, 1 + 2 + 3);	/* summed */
	CU_ASSERT_STRING_EQUAL(xs[1].name, "one");
	CU_ASSERT_EQUAL(xs[1].value, 3);
	/* Fewer slots than counters: the first ones, and the count. */
	CU_ASSERT_EQUAL(rte_rds_xstats_get("contract", xs, 1), 2);
	CU_ASSERT_EQUAL(rte_rds_xstat_get("contract", "one", &v), 0);
	CU_ASSERT_EQUAL(v, 3);
	CU_ASSERT_EQUAL(rte_rds_xstat_get("contract", "nope", &v), -1);
	CU_ASSERT_EQUAL(rte_errno, ENOENT);
	CU_ASSERT_EQUAL(rte_rds_xstats_get("nosuch", xs, 4), -1);
	CU_ASSERT_EQUAL(rte_errno, ENODEV);
	CU_ASSERT_EQUAL(rte_rds_xstats_get(NULL, xs, 4), -1);
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	/* The loop transport's counters are there by name too. */
	CU_ASSERT_EQUAL(rte_rds_xstats_get("loop", xs, RTE_DIM(xs)), 4);
	CU_ASSERT_STRING_EQUAL(xs[0].name, "frames");
	CU_ASSERT(rte_rds_fini() == 0);
	CU_ASSERT_EQUAL(rte_rds_xstats_get("loop", xs, 4), -1);
	CU_ASSERT_EQUAL(rte_errno, ENXIO);
}

/* Records the transport keeps come through RDS_INFO, from every engine. */
static void
test_info(void)
{
	struct rds_info_counter ic[8];
	socklen_t len = sizeof(ic);
	int r;

	lib_up(2);
	r = rte_rds_info(RDS_INFO_CONNECTION_STATS, ic, &len);
	CU_ASSERT_EQUAL(r, (int)sizeof(ic[0]));
	CU_ASSERT_EQUAL(len, 2 * sizeof(ic[0]));
	CU_ASSERT_STRING_EQUAL((const char *)ic[0].name, "ct_engine_0");
	CU_ASSERT_STRING_EQUAL((const char *)ic[1].name, "ct_engine_1");
	CU_ASSERT(rte_rds_fini() == 0);
}

/* A driver's error report: the core shuts the transport connection down,
 * resets the send path and connects again; a queued message goes out. */
static void
test_conn_error(void)
{
	struct rds_conn *c;
	int s;

	s = ct_up_sent();
	rte_rds_engine_poll(0);
	CU_ASSERT_EQUAL(ct.connects, 1);
	CU_ASSERT_EQUAL(ct.xmits, 1);
	c = ct_conn(CT_IP, CT_TRANS_ID);
	CU_ASSERT_FATAL(c != NULL);
	CU_ASSERT_EQUAL(c->state, RDS_CONN_UP);
	rds_conn_error(c, "test");
	rte_rds_engine_poll(0);
	CU_ASSERT_EQUAL(ct.shutdowns, 1);
	CU_ASSERT_EQUAL(ct.connects, 2);	/* first reconnect: at once */
	CU_ASSERT_EQUAL(c->state, RDS_CONN_UP);
	/* Not acknowledged: it went again, marked retransmitted. */
	CU_ASSERT_EQUAL(ct.xmits, 2);
	CU_ASSERT(rte_rds_close(s) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
}

/* The calls a driver makes instead of writing core state. */
static void
test_driver_calls(void)
{
	struct rte_rds_stats st;
	struct rds_conn *c;
	int s, acks;

	s = ct_up_sent();
	rte_rds_engine_poll(0);
	c = ct_conn(CT_IP, CT_TRANS_ID);
	CU_ASSERT_FATAL(c != NULL);
	rte_rds_engine_poll(0);	/* what the connect left to do */
	CU_ASSERT_FALSE(c->ready);
	CU_ASSERT_FALSE(rds_conn_has_work(c));
	/* An ACK asked for by the driver leaves at the next pass, with
	 * nothing else to run the connection (ib's credits). */
	acks = ct.acks;
	rds_conn_ack_request(c);
	CU_ASSERT_TRUE(rds_conn_has_work(c));
	rte_rds_engine_poll(0);
	CU_ASSERT_EQUAL(ct.acks, acks + 1);
	CU_ASSERT_FALSE(rds_conn_has_work(c));
	/* Frames the driver could not use are the core's counters. */
	rds_recv_bad_frame(c, "test");
	rds_recv_no_memory(c);
	CU_ASSERT_EQUAL(rte_rds_stats_get(0, &st), 0);
	CU_ASSERT_EQUAL(st.s_recv_drop_bad_hdr, 1);
	CU_ASSERT_EQUAL(st.s_recv_drop_nomem, 1);
	rds_conn_set_unresponsive(c, true);
	CU_ASSERT_TRUE(c->unresponsive);
	rds_conn_set_unresponsive(c, false);
	CU_ASSERT_FALSE(c->unresponsive);
	CU_ASSERT(rte_rds_close(s) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
}

/* Send len bytes (0 or more) with an RDMA WRITE of 8 bytes, NOTIFY_ME
 * and flags, token tok. */
static ssize_t
ct_send_op(int s, size_t len, uint64_t flags, uint64_t tok)
{
	static uint8_t src[8];
	struct sockaddr_in to = rds_test_sin(CT_PEER, 9);
	struct rds_iovec local = { .addr = (uintptr_t)src, .bytes = 8 };
	struct rds_rdma_args a;

	memset(&a, 0, sizeof(a));
	a.cookie = 0x1234;
	a.remote_vec.bytes = 8;
	a.local_vec_addr = (uintptr_t)&local;
	a.nr_local = 1;
	a.flags = RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME | flags;
	a.user_token = tok;
	return rds_test_send_cmsg(s, "abcd", len, &to, SOL_RDS,
				  RDS_CMSG_RDMA_ARGS, &a, sizeof(a), 0);
}

/* The notifications queued on s: each token's status in st[token] (-100
 * for none); how many came. */
static unsigned int
ct_notes(int s, int32_t *st, unsigned int n)
{
	union {
		struct cmsghdr align;
		uint8_t b[1024];
	} ctl;
	struct rds_rdma_notify nt;
	struct cmsghdr *cm;
	struct msghdr mh;
	unsigned int got = 0, i;
	size_t clen;
	char buf[8];

	for (i = 0; i < n; i++)
		st[i] = -100;
	for (;;) {
		clen = sizeof(ctl);
		if (rds_test_recv_ctl(s, buf, sizeof(buf), NULL, MSG_DONTWAIT,
				      &ctl, &clen, NULL) < 0)
			break;
		memset(&mh, 0, sizeof(mh));
		mh.msg_control = &ctl;
		mh.msg_controllen = clen;
		for (cm = CMSG_FIRSTHDR(&mh); cm != NULL;
		     cm = CMSG_NXTHDR(&mh, cm)) {
			if (cm->cmsg_level != SOL_RDS ||
			    cm->cmsg_type != RDS_CMSG_RDMA_STATUS)
				continue;
			memcpy(&nt, CMSG_DATA(cm), sizeof(nt));
			if (nt.user_token < n)
				st[nt.user_token] = nt.status;
			got++;
		}
	}
	return got;
}

/*
 * rds-rdma(7)'s rule, applied by the core for every transport: a driver
 * that only runs operations (contract_rdma's xmit_op) sees it kept. An
 * operation that succeeded: its message goes, then NOTIFY_ME's SUCCESS;
 * one that failed: no message, its status; a silent one on an empty
 * message: no message, SUCCESS; one in flight (RDS_XMIT_OP_POSTED): the
 * message goes at once, the result when the driver reports it
 * (rds_rdma_op_completed). Operations run once: after a reset the
 * unacknowledged messages go again without their operation running
 * again, and the one that never got its result ends DROPPED.
 */
static void
test_rdma_rule(void)
{
	struct rds_conn *c;
	int32_t st[8];
	int s, x;

	lib_up(1);
	s = rds_test_socket(CT_RDMA_IP, 4000, 0, 0);
	CU_ASSERT_FATAL(s >= 0);
	/* 1: succeeds, with a payload. */
	ct.op_status = RDS_RDMA_SUCCESS;
	CU_ASSERT_EQUAL(ct_send_op(s, 4, 0, 1), 4);
	rte_rds_engine_poll(0);
	rte_rds_engine_poll(0);
	CU_ASSERT_EQUAL(ct.op_calls, 1);
	CU_ASSERT_EQUAL(ct.xmits, 1);
	CU_ASSERT_EQUAL(ct_notes(s, st, 8), 1);
	CU_ASSERT_EQUAL(st[1], RDS_RDMA_SUCCESS);
	/* 2: fails at the target: the message goes with it. */
	ct.op_status = RDS_RDMA_REMOTE_ERROR;
	CU_ASSERT_EQUAL(ct_send_op(s, 4, 0, 2), 4);
	rte_rds_engine_poll(0);
	CU_ASSERT_EQUAL(ct.op_calls, 2);
	CU_ASSERT_EQUAL(ct.xmits, 1);
	CU_ASSERT_EQUAL(ct_notes(s, st, 8), 1);
	CU_ASSERT_EQUAL(st[2], RDS_RDMA_REMOTE_ERROR);
	/* 3: silent, no payload: no message at all. */
	ct.op_status = RDS_RDMA_SUCCESS;
	CU_ASSERT_EQUAL(ct_send_op(s, 0, RDS_RDMA_SILENT, 3), 0);
	rte_rds_engine_poll(0);
	CU_ASSERT_EQUAL(ct.op_calls, 3);
	CU_ASSERT_EQUAL(ct.xmits, 1);
	CU_ASSERT_EQUAL(ct_notes(s, st, 8), 1);
	CU_ASSERT_EQUAL(st[3], RDS_RDMA_SUCCESS);
	/* 4: in flight; its message goes at once, the result later. */
	ct.op_posted = true;
	CU_ASSERT_EQUAL(ct_send_op(s, 4, 0, 4), 4);
	rte_rds_engine_poll(0);
	CU_ASSERT_EQUAL(ct.op_calls, 4);
	CU_ASSERT_EQUAL(ct.xmits, 2);
	CU_ASSERT_EQUAL(ct_notes(s, st, 8), 0);
	CU_ASSERT_FATAL(ct.op != NULL);
	rds_rdma_op_completed(rds_engine_get(0), ct.op, RDS_RDMA_SUCCESS);
	rds_rdma_op_free(ct.op);
	ct.op = NULL;
	CU_ASSERT_EQUAL(ct_notes(s, st, 8), 1);
	CU_ASSERT_EQUAL(st[4], RDS_RDMA_SUCCESS);
	/* 5: in flight, silent: no message, no result yet. */
	CU_ASSERT_EQUAL(ct_send_op(s, 0, RDS_RDMA_SILENT, 5), 0);
	rte_rds_engine_poll(0);
	CU_ASSERT_EQUAL(ct.op_calls, 5);
	CU_ASSERT_EQUAL(ct.xmits, 2);
	CU_ASSERT_EQUAL(ct_notes(s, st, 8), 0);
	/* A reset: 1 and 4 (they ran) go again, their operations do not
	 * run again; 5 never had a result: DROPPED (the flushed work
	 * request's end); 2 and 3 were never kept. */
	c = ct_conn(CT_RDMA_IP, CT_RDMA_TRANS_ID);
	CU_ASSERT_FATAL(c != NULL);
	x = ct.xmits;
	rds_conn_error(c, "test");
	rte_rds_engine_poll(0);
	rte_rds_engine_poll(0);
	CU_ASSERT_EQUAL(ct.op_calls, 5);
	CU_ASSERT_EQUAL(ct.xmits, x + 2);
	CU_ASSERT_EQUAL(ct_notes(s, st, 8), 1);
	CU_ASSERT_EQUAL(st[5], RDS_RDMA_DROPPED);
	rds_rdma_op_free(ct.op);	/* 5's, the driver's reference */
	ct.op = NULL;
	CU_ASSERT(rte_rds_close(s) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
}

int
main(void)
{
	static const struct rds_test_case cases[] = {
		{ "addr_str", test_addr_str },
		{ "max_conns", test_max_conns },
		{ "args_and_flush", test_args_and_flush },
		{ "xstats", test_xstats },
		{ "info", test_info },
		{ "conn_error", test_conn_error },
		{ "driver_calls", test_driver_calls },
		{ "acks_rds", test_acks_rds },
		{ "acks_by_transport", test_acks_by_transport },
		{ "rdma_rule", test_rdma_rule },
		{ "ack_owed", test_ack_owed },
		{ "cancel_half_sent", test_cancel_half_sent },
		{ "cancel_half_sent_reset", test_cancel_half_sent_reset },
		{ NULL, NULL },
	};

	return rds_test_main("unit_contract", "0", cases);
}

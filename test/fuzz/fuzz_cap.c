/* SPDX-License-Identifier: BSD-3-Clause */
/* The capture transport of the fuzz targets (see fuzz_cap.h). */
#include <errno.h>
#include <string.h>

#include "fuzz_cap.h"

static fz_cap_fn cap_sink;
static void *cap_sink_arg;
static struct fz_cap_stats cap_st;

void
fz_cap_set_sink(fz_cap_fn fn, void *arg)
{
	cap_sink = fn;
	cap_sink_arg = arg;
}

void
fz_cap_stats(struct fz_cap_stats *st)
{
	*st = cap_st;
}

void
fz_cap_reset_stats(void)
{
	memset(&cap_st, 0, sizeof(cap_st));
}

static void
cap_emit(const struct rds_header *h, const uint8_t *payload, uint32_t len)
{
	uint8_t w[48];

	RTE_BUILD_BUG_ON(sizeof(*h) != sizeof(w));
	memcpy(w, h, sizeof(w));
	cap_st.frames++;
	if (cap_sink != NULL)
		cap_sink(cap_sink_arg, w, payload, len);
}

static int
cap_connect(struct rds_conn *c)
{
	cap_st.connects++;
	rds_conn_connect_complete(c);
	return 0;
}

static void
cap_shutdown(struct rds_conn *c)
{
	RTE_SET_USED(c);
	cap_st.shutdowns++;
}

static int
cap_xmit(struct rds_conn *c, struct rds_msg *m)
{
	struct rds_header h;

	uint64_t ack = rds_msg_hdr(c, m, &h);

	cap_emit(&h, rds_msg_data(m), m->len);
	rds_conn_ack_sent(c, ack);
	return 0;
}

static int
cap_xmit_ack(struct rds_conn *c)
{
	struct rds_header h;

	uint64_t ack = rds_ack_hdr(c, &h);

	cap_emit(&h, NULL, 0);
	rds_conn_ack_sent(c, ack);
	return 0;
}

static int
cap_laddr_check(struct rds_laddr *la)
{
	RTE_SET_USED(la);
	return 0;
}

/* The harness never initiates an operation over it (below); one that
 * came anyway fails, and the core drops its message. */
static int
cap_xmit_op(struct rds_conn *c, struct rds_msg *m)
{
	RTE_SET_USED(c);
	rds_rdma_op_fail(m->op, RDS_RDMA_OTHER_ERROR);
	return 0;
}

/* RDMA: memory regions can be registered on its addresses (software
 * keys); the harness never initiates an operation over it. */
static const struct rds_transport fz_cap_transport = {
	.name = FZ_CAP_NAME,
	.info_name = "fuzz-capture",
	.trans_id = FZ_CAP_TRANS_ID,
	.flags = RDS_TRANS_F_RDMA,
	.laddr_check = cap_laddr_check,
	.conn_connect = cap_connect,
	.conn_shutdown = cap_shutdown,
	.xmit = cap_xmit,
	.xmit_op = cap_xmit_op,
	.xmit_ack = cap_xmit_ack,
};

RDS_TRANSPORT_REGISTER(fz_cap_transport);

struct rds_conn *
fz_cap_conn(uint32_t laddr, uint32_t faddr)
{
	struct rds_conn_key k;

	memset(&k, 0, sizeof(k));
	rds_addr_from_v4(&k.laddr, laddr);
	rds_addr_from_v4(&k.faddr, faddr);
	k.trans_id = FZ_CAP_TRANS_ID;
	return rds_conn_get(rds_engine_get(rds_conn_engine_of(&k.laddr,
							       &k.faddr)),
			    &k);
}

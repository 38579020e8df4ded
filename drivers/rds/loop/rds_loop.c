/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The loop transport (net/rds/loop.c): delivers between local addresses
 * of this instance, through the same sequencing, ACK and retransmission
 * machinery as every other transport. Both ends of a loop connection
 * live in the same engine (the core hashes the address pair
 * symmetrically), so a frame is handed to the peer connection directly.
 *
 * It behaves like a reliable connected transport: frames arrive in order
 * or the connection fails. The fault hooks drop a frame (and, as an RC
 * QP would, every later frame until the connection is reset) or reset the
 * connection.
 */
#include <errno.h>

#include <rte_malloc.h>

#include "rds_driver.h"
#include "rte_rds_loop.h"

RTE_LOG_REGISTER(rds_loop_logtype, pmd.rds.loop, INFO);
#define LOOP_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, rds_loop_logtype, "RDS loop: " fmt "\n", \
		##__VA_ARGS__)

struct loop_conn {
	struct rds_conn *peer;
	bool broken;		/* a frame was lost: flush until reset */
};

struct loop_engine {
	uint64_t rng;
	uint32_t faults_gen;
	bool clean;		/* no fault hook set: loop_acks_at_once */
	struct rte_rds_loop_faults faults;
	struct rte_rds_loop_stats stats;
};

/* Fault settings written by the application, read by engines. */
static rte_spinlock_t loop_faults_lock = RTE_SPINLOCK_INITIALIZER;
static struct rte_rds_loop_faults loop_faults;
static uint32_t loop_faults_gen;

static unsigned int loop_slot;	/* index of our state in rds_engine.tp */

static inline struct loop_engine *
loop_engine(struct rds_engine *e)
{
	return e->tp[loop_slot];
}

static uint64_t
loop_rand(struct loop_engine *le)
{
	/* xorshift64*: cheap and reproducible from the seed. */
	le->rng ^= le->rng >> 12;
	le->rng ^= le->rng << 25;
	le->rng ^= le->rng >> 27;
	return le->rng * 0x2545F4914F6CDD1DULL;
}

static bool
loop_hit(struct loop_engine *le, uint32_t one_in)
{
	return one_in != 0 && loop_rand(le) % one_in == 0;
}

static int
loop_init(const struct rte_rds_conf *conf)
{
	unsigned int i;

	RTE_SET_USED(conf);
	for (i = 0; i < rds_transport_count(); i++)
		if (rds_transport_at(i)->trans_id == RTE_RDS_TRANS_LOOP)
			loop_slot = i;
	rte_spinlock_lock(&loop_faults_lock);
	memset(&loop_faults, 0, sizeof(loop_faults));
	loop_faults_gen++;
	rte_spinlock_unlock(&loop_faults_lock);
	return 0;
}

static int
loop_engine_init(struct rds_engine *e)
{
	struct loop_engine *le = rds_mem_zalloc("rds_loop", sizeof(*le));

	if (le == NULL)
		return -ENOMEM;
	le->rng = 0x9E3779B97F4A7C15ULL + e->id;
	le->faults_gen = UINT32_MAX;
	e->tp[loop_slot] = le;
	return 0;
}

static void
loop_engine_fini(struct rds_engine *e)
{
	rds_mem_free(e->tp[loop_slot]);
	e->tp[loop_slot] = NULL;
}

static int
loop_conn_alloc(struct rds_conn *c)
{
	c->tp = rds_mem_zalloc("rds_loop_conn", sizeof(struct loop_conn));
	return c->tp == NULL ? -ENOMEM : 0;
}

static void
loop_conn_free(struct rds_conn *c)
{
	struct loop_conn *lc = c->tp;

	/* The peer must not point at a freed connection. */
	if (lc != NULL && lc->peer != NULL && lc->peer != c) {
		struct loop_conn *plc = lc->peer->tp;

		if (plc != NULL && plc->peer == c)
			plc->peer = NULL;
	}
	rds_mem_free(c->tp);
	c->tp = NULL;
}

static int
loop_conn_connect(struct rds_conn *c)
{
	struct loop_conn *lc = c->tp, *plc;
	struct rds_conn_key pk;
	struct rds_conn *peer;

	memset(&pk, 0, sizeof(pk));
	pk.laddr = c->key.faddr;
	pk.faddr = c->key.laddr;
	pk.trans_id = c->key.trans_id;
	peer = rds_conn_get(c->eng, &pk);
	if (peer == NULL)
		return -ENOMEM;
	plc = peer->tp;
	lc->peer = peer;
	lc->broken = false;
	plc->peer = c;
	rds_conn_connect_complete(c);
	if (peer != c && peer->state != RDS_CONN_UP) {
		plc->broken = false;
		rds_conn_connect_complete(peer);
	}
	return 0;
}

/* Both ends see a failure, as with a connected transport. */
static void
loop_conn_shutdown(struct rds_conn *c)
{
	struct loop_conn *lc = c->tp;
	struct rds_conn *peer = lc->peer;

	lc->broken = false;
	if (peer != NULL && peer != c && peer->state == RDS_CONN_UP)
		rds_conn_drop(peer);
}

static inline void
loop_faults_refresh(struct loop_engine *le)
{
	uint32_t gen = __atomic_load_n(&loop_faults_gen, __ATOMIC_ACQUIRE);

	if (likely(gen == le->faults_gen))
		return;
	rte_spinlock_lock(&loop_faults_lock);
	le->faults = loop_faults;
	le->faults_gen = loop_faults_gen;
	rte_spinlock_unlock(&loop_faults_lock);
	le->clean = le->faults.drop_one_in == 0 &&
		    le->faults.reset_one_in == 0 && !le->faults.explicit_ack;
	if (le->faults.seed != 0)
		le->rng = le->faults.seed;
}

/* Apply the fault hooks to a frame about to be carried. False: lost. */
static __rte_always_inline bool
loop_frame_survives(struct rds_conn *c, struct loop_engine *le)
{
	struct loop_conn *lc = c->tp;

	if (lc->broken) {
		le->stats.flushed++;
		return false;
	}
	if (loop_hit(le, le->faults.drop_one_in)) {
		le->stats.dropped++;
		lc->broken = true;
		rds_conn_error(c, "loop fault: frame dropped");
		return false;
	}
	return true;
}

static __rte_always_inline void
loop_after_frame(struct rds_conn *c, struct loop_engine *le)
{
	le->stats.frames++;
	if (loop_hit(le, le->faults.reset_one_in)) {
		le->stats.resets++;
		rds_conn_error(c, "loop fault: reset");
	}
}

/* Without faults the transport cannot lose a frame: as the kernel's
 * loop transport, a delivered message counts as acknowledged at once
 * (no ACK frames, nothing kept for retransmission). With faults it
 * behaves like a wire: explicit ACKs, retransmission, duplicate drop. */
static inline bool
loop_acks_at_once(const struct loop_engine *le)
{
	return le->clean;
}

/* Deliver m's frame to the peer connection: the header as decoded
 * fields (nothing to checksum within the process) and the payload
 * borrowed, not copied; the peer's core takes the borrowed buffer.
 * Returns what xmit returns. */
static int
loop_deliver(struct rds_conn *c, struct loop_engine *le, struct rds_msg *m)
{
	struct loop_conn *lc = c->tp;
	struct rds_hdr_info h;
	struct rds_msg *b;
	int ret;

	rds_msg_hdr_info(c, m, &h);
	h.acked = loop_acks_at_once(le);
	b = rds_msg_alloc_borrow(m);
	if (b == NULL)
		return -ENOMEM;
	ret = rds_recv_hdr(lc->peer, &h, NULL, m->len, b);
	/* The receiver cannot keep it now (a socket that does not read, of
	 * a client at its limit): again in a later pass, as a NIC whose
	 * peer has no receive buffer retries, instead of a reset that would
	 * send everything after it again at once. Its ACK is still owed. */
	if (ret == -ENOMEM)
		return -EAGAIN;
	rds_conn_ack_sent(c, h.ack);
	loop_after_frame(c, le);
	return h.acked ? RDS_XMIT_ACKED : 0;
}

static int
loop_xmit(struct rds_conn *c, struct rds_msg *m)
{
	struct loop_engine *le = loop_engine(c->eng);
	struct loop_conn *lc = c->tp;

	if (unlikely(lc->peer == NULL))
		return -ENOTCONN;
	loop_faults_refresh(le);
	/* Without faults (the common case) no frame is lost or reset: one
	 * flag for the fault hooks' tests (a frame lost before they were
	 * turned off still flushes what follows it until the reset). */
	if (likely(le->clean) && likely(!lc->broken)) {
		if (rds_recv_take(c, lc->peer, m) == RDS_XMIT_TAKEN) {
			le->stats.frames++;
			return RDS_XMIT_TAKEN;
		}
		return loop_deliver(c, le, m);
	}
	if (!loop_frame_survives(c, le)) {
		/* The frame carried the ACK all the same, as on a wire. */
		rds_conn_ack_sent(c, c->ack_next);
		return 0;
	}
	return loop_deliver(c, le, m);
}

/* The target's side runs the operation before it takes the message (the
 * core's rds_send_xmit_op applies the rest of the rule). The target's
 * end of the connection answers for it: its wrong keys count there, as
 * they would on a wire. Behind a lost frame it is flushed, as an RC QP
 * in error flushes a work request: it does not run, and the reset ends
 * it. */
static int
loop_xmit_op(struct rds_conn *c, struct rds_msg *m)
{
	struct loop_engine *le = loop_engine(c->eng);
	struct loop_conn *lc = c->tp;

	if (unlikely(lc->peer == NULL))
		return -ENOTCONN;
	loop_faults_refresh(le);
	if (lc->broken)
		return RDS_XMIT_OP_POSTED;
	rds_rdma_sw_exec(lc->peer, m->op);
	return 0;
}

static int
loop_xmit_ack(struct rds_conn *c)
{
	struct loop_engine *le = loop_engine(c->eng);
	struct loop_conn *lc = c->tp;
	struct rds_hdr_info h;

	if (lc->peer == NULL)
		return -ENOTCONN;
	loop_faults_refresh(le);
	rds_ack_hdr_info(c, &h);
	rds_conn_ack_sent(c, h.ack);	/* lost or not: it left */
	if (!loop_frame_survives(c, le))
		return 0;
	rds_recv_hdr(lc->peer, &h, NULL, 0, NULL);
	loop_after_frame(c, le);
	return 0;
}

/* loop has no options of its own. */
static int
loop_laddr_check(struct rds_laddr *la)
{
	static const char *const keys[] = { NULL };

	return rds_transport_args_check("loop", la->args, keys);
}

/* Counters, in the order of struct rte_rds_loop_stats. */
static const char *const loop_xstat_names[] = {
	"frames", "dropped", "flushed", "resets",
};

static void
loop_xstats(struct rds_engine *e, uint64_t *v)
{
	struct loop_engine *le = loop_engine(e);

	if (le == NULL)
		return;
	v[0] += le->stats.frames;
	v[1] += le->stats.dropped;
	v[2] += le->stats.flushed;
	v[3] += le->stats.resets;
}

static const struct rds_transport rds_loop_transport = {
	.name = "loop",
	.info_name = "loopback",
	.trans_id = RTE_RDS_TRANS_LOOP,
	.flags = RDS_TRANS_F_LOOPBACK | RDS_TRANS_F_RDMA |
		 RDS_TRANS_F_MASKED_ATOMICS | RDS_TRANS_F_IPV6,
	.init = loop_init,
	.laddr_check = loop_laddr_check,
	.engine_init = loop_engine_init,
	.engine_fini = loop_engine_fini,
	.conn_alloc = loop_conn_alloc,
	.conn_free = loop_conn_free,
	.conn_connect = loop_conn_connect,
	.conn_shutdown = loop_conn_shutdown,
	.xmit = loop_xmit,
	.xmit_op = loop_xmit_op,
	.xmit_ack = loop_xmit_ack,
	.xstat_names = loop_xstat_names,
	.nb_xstats = RTE_DIM(loop_xstat_names),
	.xstats = loop_xstats,
};

RDS_TRANSPORT_REGISTER(rds_loop_transport);

int
rte_rds_loop_set_faults(const struct rte_rds_loop_faults *faults)
{
	if (rds_lib == NULL)
		return RDS_ERR(ENXIO);
	rte_spinlock_lock(&loop_faults_lock);
	if (faults != NULL)
		loop_faults = *faults;
	else
		memset(&loop_faults, 0, sizeof(loop_faults));
	__atomic_fetch_add(&loop_faults_gen, 1, __ATOMIC_RELEASE);
	rte_spinlock_unlock(&loop_faults_lock);
	return 0;
}

/* The typed view of the transport's counters (rte_rds_xstats_get). */
int
rte_rds_loop_stats_get(struct rte_rds_loop_stats *st)
{
	struct rte_rds_xstat xs[RTE_DIM(loop_xstat_names)];

	RTE_BUILD_BUG_ON(sizeof(*st) != sizeof(uint64_t) * RTE_DIM(xs));
	if (rds_lib == NULL)
		return RDS_ERR(ENXIO);
	if (st == NULL)
		return RDS_ERR(EINVAL);
	if (rte_rds_xstats_get("loop", xs, RTE_DIM(xs)) < 0)
		return -1;
	st->frames = xs[0].value;
	st->dropped = xs[1].value;
	st->flushed = xs[2].value;
	st->resets = xs[3].value;
	LOOP_LOG(DEBUG, "stats read");
	return 0;
}

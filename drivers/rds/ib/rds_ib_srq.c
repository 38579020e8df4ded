/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What an engine holds on a device (struct rds_ib_edev): the pools of
 * send copies and bounce buffers, and the shared receive queue (SRQ) of
 * its connections with srq=1, as UEK's rds_ib does (the kernel's mainline
 * rds_ib posts 1024 receives of 4 KiB per connection). The SRQ is
 * invisible on the wire; only the kernel's credits (dp_credit) must stay
 * off, since they count a connection's own receives.
 *
 * Receives: the SRQ keeps rx_target buffers posted, rx_min at first; a
 * pass that finds three quarters of them consumed, or none left, doubles
 * the target (up to rx_max, which the receive CQ holds from the start),
 * as does the device's SRQ limit event (armed at an eighth of the
 * target). An empty
 * SRQ answers the peer's SEND with an RNR NAK and the peer retries
 * (rnr_retry 7, forever: the kernel's and ours), so a run dry is slow,
 * never lost (rx_srq_dry counts the passes that found nothing posted).
 * Every QP on the SRQ completes its receives into one CQ; a completion
 * finds its connection by the QP's number (the engine's lookup, with the
 * last one cached). When a QP is destroyed, its completions still in the
 * CQ give their buffers back and the others' are kept, in order, for the
 * next poll (rds_ib_srq_detach), so that a QP number the device hands out
 * again never inherits them (rxe completes the receive of a SEND cut by
 * its QP's destruction only after the destroy: a completion of no known
 * QP, its buffer back). A receive a device took for a SEND it never
 * completed would be gone for good, enough of them would leave the SRQ
 * empty, and a receive may be slow: one still outstanding after twice as
 * many later posts as the SRQ keeps was consumed (an SRQ hands its
 * receives out in order) and is given up on, or, when nothing completes
 * for RDS_IB_SRQ_ORPHAN_MS after a QP on it was torn down, the oldest one
 * (rds_ib_srq_age); another is posted in its place. A receive given up on
 * keeps its buffer (the device may still fill it: it is then processed
 * as any) until it completes or the SRQ goes. The SRQ, its CQ and its
 * buffers go with the engine's last connection on it; the pools with its
 * last connection on the device.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include <rte_hash.h>

#include "rds_ib.h"

/* Receives a refill posts with one ibv_post_srq_recv at most. */
#define RDS_IB_SRQ_POST_CHAIN 64
/* Nothing completed this long after a QP of the SRQ was torn down: its
 * oldest receive is given up on (one a tear-down). */
#define RDS_IB_SRQ_ORPHAN_MS 100

/* The lookup's key: a QP number is 24 bits, and per device. */
static inline uint32_t
rds_ib_qpn_key(const struct rds_ib_edev *ed, uint32_t qp_num)
{
	return (qp_num & 0xffffff) | ((uint32_t)ed->dev->idx << 24);
}

/* The largest srq_min and srq_max of the addresses on device d. */
static void
rds_ib_srq_bounds(const struct rds_ib_dev *d, uint32_t *min, uint32_t *max)
{
	unsigned int i;

	*min = 0;
	*max = 0;
	for (i = 0; i < rds_lib->nb_laddrs; i++) {
		const struct rds_laddr *la = rds_lib->laddrs[i];
		const struct rds_ib_laddr *il;

		if (la->trans != &rds_ib_transport || la->tp == NULL)
			continue;
		il = rds_ib_laddr(la);
		if (il->dev != d || !il->opts.srq)
			continue;
		*min = RTE_MAX(*min, il->opts.srq_min);
		*max = RTE_MAX(*max, il->opts.srq_max);
	}
	if (*max == 0) {	/* an address not seen by laddr_check */
		*min = RDS_IB_DEF_SRQ_MIN;
		*max = RDS_IB_DEF_SRQ_MAX;
	}
}

/* Give up on receive idx (posted): its buffer stays the device's until
 * it completes, and another is posted in its place. */
static void
rds_ib_srq_orphan(struct rds_ib_edev *ed, uint32_t idx)
{
	ed->rx_state[idx] = RDS_IB_RX_ORPHAN;
	ed->rx_posted--;
	ed->ie->stats.rx_srq_posted--;
	ed->rx_orphans++;
	ed->ie->stats.rx_srq_orphans++;
	ed->ie->stats.rx_srq_orphans_out++;
	ed->rx_head++;
}

/* The oldest receive still posted (the ring's head, once those done are
 * skipped), or UINT32_MAX. */
static uint32_t
rds_ib_srq_oldest(struct rds_ib_edev *ed)
{
	while (ed->rx_head < ed->rx_tail) {
		uint32_t idx = ed->rx_ring[ed->rx_head % ed->rx_ring_cap];

		if (ed->rx_state[idx] == RDS_IB_RX_POSTED &&
		    ed->rx_seq[idx] == ed->rx_head)
			return idx;
		ed->rx_head++;
	}
	return UINT32_MAX;
}

/* Receives still outstanding after twice as many later posts as the SRQ
 * keeps were consumed by SENDs that never completed: given up on. */
static void
rds_ib_srq_age(struct rds_ib_edev *ed)
{
	uint32_t idx;

	while ((idx = rds_ib_srq_oldest(ed)) != UINT32_MAX &&
	       ed->rx_tail - ed->rx_head > 2 * (uint64_t)ed->rx_target)
		rds_ib_srq_orphan(ed, idx);
}

/* Post receives until rx_target are. */
static void
rds_ib_srq_refill(struct rds_ib_edev *ed)
{
	struct rds_ib_engine *ie = ed->ie;
	struct rds_ib_recv_wr w[RDS_IB_SRQ_POST_CHAIN];
	struct ibv_recv_wr *bad;
	uint32_t n, i, j, idx;
	int ret = 0;

	if (ed->frozen)
		return;		/* (test hook) */
	rds_ib_srq_age(ed);
	while (ed->rx_posted < ed->rx_target) {
		n = RTE_MIN(ed->rx_target - ed->rx_posted,
			    (uint32_t)RDS_IB_SRQ_POST_CHAIN);
		for (i = 0; i < n; i++) {
			uint8_t *b;

			ret = rds_ib_pool_get(&ed->rx, &idx);
			if (ret != 0)
				break;
			b = rds_ib_pool_buf(&ed->rx, idx);
			w[i].sge[0].addr = (uintptr_t)b;
			w[i].sge[0].length = RDS_IB_HDR_SIZE;
			w[i].sge[0].lkey = rds_ib_pool_lkey(&ed->rx, idx);
			w[i].sge[1].addr = (uintptr_t)(b + RDS_IB_HDR_SIZE);
			w[i].sge[1].length = RDS_FRAG_SIZE;
			w[i].sge[1].lkey = w[i].sge[0].lkey;
			w[i].wr.wr_id = idx;
			w[i].wr.sg_list = w[i].sge;
			w[i].wr.num_sge = 2;
			w[i].wr.next = NULL;
			if (i > 0)
				w[i - 1].wr.next = &w[i].wr;
		}
		if (i == 0) {
			/* No memory (logged by the pool): the target comes
			 * down to what there is. Every buffer held (by
			 * receives given up on): the next refill. */
			if (ret == -ENOMEM)
				ed->rx_target = ed->rx_posted;
			return;
		}
		w[i - 1].wr.next = NULL;
		bad = NULL;
		ret = ibv_post_srq_recv(ed->srq, &w[0].wr, &bad);
		ie->stats.rx_post_calls++;
		n = i;
		if (ret != 0) {
			for (j = 0; j < i; j++)
				if (&w[j].wr == bad)
					n = j;
			for (j = n; j < i; j++)
				rds_ib_pool_put(&ed->rx, (uint32_t)w[j].wr.wr_id);
		}
		for (j = 0; j < n; j++) {
			idx = (uint32_t)w[j].wr.wr_id;
			ed->rx_state[idx] = RDS_IB_RX_POSTED;
			ed->rx_seq[idx] = ed->rx_tail;
			ed->rx_ring[ed->rx_tail++ % ed->rx_ring_cap] = idx;
		}
		ed->rx_posted += n;
		ie->stats.rx_srq_posted += n;
		if (ret != 0) {
			IB_LOG(ERR, "ibv_post_srq_recv of %u receives: %s (%u "
			       "posted in all)", i, strerror(ret),
			       ed->rx_posted);
			ed->rx_target = ed->rx_posted;
			return;
		}
	}
}

/* Arm the device's limit event at an eighth of the target (not again
 * once the device refused). */
static void
rds_ib_srq_arm(struct rds_ib_edev *ed)
{
	struct ibv_srq_attr a = { .srq_limit = RTE_MAX(1u, ed->rx_target / 8) };

	if (ed->limit == a.srq_limit || ed->limit == UINT32_MAX)
		return;
	if (ibv_modify_srq(ed->srq, &a, IBV_SRQ_LIMIT) != 0) {
		IB_LOG(WARNING, "%s: no SRQ limit event (%s): the receives "
		       "posted grow on what the passes find only",
		       ibv_get_device_name(ed->dev->verbs->device),
		       strerror(errno));
		ed->limit = UINT32_MAX;
		return;
	}
	ed->limit = a.srq_limit;
}

/* Twice the receives posted (up to rx_max). */
static void
rds_ib_srq_grow(struct rds_ib_edev *ed)
{
	uint32_t want = RTE_MIN(ed->rx_target * 2, ed->rx_max);

	if (want <= ed->rx_target)
		return;
	IB_LOG(DEBUG, "SRQ: %u receives posted, now %u", ed->rx_target, want);
	ed->rx_target = want;
	ed->ie->stats.rx_srq_grows++;
	if (ed->limit != UINT32_MAX)
		ed->limit = 0;	/* armed again for the new target */
}

/* The SRQ's bookkeeping of its receives (ring, numbers, states). */
static size_t
rds_ib_srq_book_bytes(const struct rds_ib_edev *ed)
{
	return sizeof(*ed->rx_ring) * ed->rx_ring_cap +
	       (sizeof(*ed->rx_seq) + sizeof(*ed->rx_state)) * ed->rx_bufs;
}

static int
rds_ib_srq_create(struct rds_ib_edev *ed)
{
	struct rds_ib_dev *d = ed->dev;
	struct ibv_srq_init_attr sa;
	uint32_t min, max;

	rds_ib_srq_bounds(d, &min, &max);
	if (d->max_srq_wr != 0)
		max = RTE_MIN(max, d->max_srq_wr);
	/* The CQ takes max and an eighth (below). */
	if (d->max_cqe != 0 && max + RTE_MAX(max / 8,
			(uint32_t)RDS_IB_RX_PER_SLAB) > d->max_cqe)
		max = d->max_cqe > 2 * RDS_IB_RX_PER_SLAB ?
		      (d->max_cqe - RDS_IB_RX_PER_SLAB) * 8 / 9 : 16;
	min = RTE_MIN(min, max);
	/* max receives posted, and buffers held by receives given up on
	 * (an eighth more, or a slab) besides. */
	ed->rx_bufs = max + RTE_MAX(max / 8, (uint32_t)RDS_IB_RX_PER_SLAB);
	/* The CQ holds a completion for every buffer the SRQ may have out:
	 * made so at once (ibv_resize_cq is not on every device). */
	ed->rcq = ibv_create_cq(d->verbs, (int)ed->rx_bufs, NULL, NULL, 0);
	if (ed->rcq == NULL) {
		IB_LOG(ERR, "receive CQ of %u: %s", ed->rx_bufs,
		       strerror(errno));
		return -ENOMEM;
	}
	ed->rcq_size = ed->rx_bufs;
	memset(&sa, 0, sizeof(sa));
	sa.srq_context = ed;
	sa.attr.max_wr = max;
	sa.attr.max_sge = 2;
	ed->srq = ibv_create_srq(d->pd, &sa);
	if (ed->srq == NULL) {
		int err = errno;

		ibv_destroy_cq(ed->rcq);
		ed->rcq = NULL;
		return -(err != 0 ? err : ENOMEM);
	}
	rds_ib_pool_init(&ed->rx, "receive buffers", d,
			 &ed->ie->stats.mem_rx_bytes, RDS_IB_SLOT_SIZE,
			 RDS_IB_RX_PER_SLAB, ed->rx_bufs);
	ed->rx_min = min;
	ed->rx_max = max;
	/* Posts in order: at most 2 x max outstanding behind the oldest,
	 * and max more. */
	ed->rx_ring_cap = 4 * max + RDS_IB_SRQ_POST_CHAIN;
	ed->rx_ring = rds_mem_zalloc("rds_ib_rx_ring",
				     sizeof(*ed->rx_ring) * ed->rx_ring_cap);
	ed->rx_seq = rds_mem_zalloc("rds_ib_rx_seq",
				    sizeof(*ed->rx_seq) * ed->rx_bufs);
	ed->rx_state = rds_mem_zalloc("rds_ib_rx_state",
				      sizeof(*ed->rx_state) * ed->rx_bufs);
	if (ed->rx_ring == NULL || ed->rx_seq == NULL || ed->rx_state == NULL)
		return -ENOMEM;
	ed->ie->stats.mem_wr_bytes += rds_ib_srq_book_bytes(ed);
	ed->rx_head = ed->rx_tail = 0;
	ed->rx_orphans = 0;
	ed->torn_since_wc = 0;
	ed->last_wc_tsc = ed->ie->e->now;
	ed->rx_target = min;
	ed->rx_posted = 0;
	ed->limit = 0;
	ed->frozen = false;
	rds_ib_srq_refill(ed);
	if (ed->rx_posted == 0) {
		IB_LOG(ERR, "SRQ: no receive could be posted");
		return -ENOMEM;
	}
	rds_ib_srq_arm(ed);
	IB_LOG(DEBUG, "SRQ on %s: %u receives posted, up to %u",
	       ibv_get_device_name(d->verbs->device), ed->rx_posted, max);
	return 0;
}

/* The SRQ, its CQ and its buffers go (no QP on it is left). */
static void
rds_ib_srq_destroy(struct rds_ib_edev *ed)
{
	if (ed->srq != NULL && ibv_destroy_srq(ed->srq) != 0)
		IB_LOG(ERR, "ibv_destroy_srq: %s", strerror(errno));
	if (ed->rcq != NULL && ibv_destroy_cq(ed->rcq) != 0)
		IB_LOG(ERR, "ibv_destroy_cq (receives): %s", strerror(errno));
	ed->srq = NULL;
	ed->rcq = NULL;
	ed->ie->stats.rx_srq_posted -= ed->rx_posted;
	ed->rx_posted = 0;
	if (ed->rx_ring != NULL && ed->rx_seq != NULL && ed->rx_state != NULL)
		ed->ie->stats.mem_wr_bytes -= rds_ib_srq_book_bytes(ed);
	ed->ie->stats.rx_srq_orphans_out -= ed->rx_orphans;
	rds_mem_free(ed->rx_ring);
	rds_mem_free(ed->rx_seq);
	rds_mem_free(ed->rx_state);
	ed->rx_ring = NULL;
	ed->rx_seq = NULL;
	ed->rx_state = NULL;
	ed->rx_orphans = 0;
	rds_ib_pool_fini(&ed->rx);
	free(ed->backlog);
	ed->backlog = NULL;
	ed->backlog_nb = ed->backlog_head = ed->backlog_cap = 0;
	ed->last_ic = NULL;
}

/* Release what nothing uses any more (not while it is being polled). */
static void
rds_ib_edev_release(struct rds_ib_edev *ed)
{
	struct rds_ib_engine *ie = ed->ie;

	if (ed->polling)
		return;
	if (ed->srq_users == 0 && ed->rcq != NULL)
		rds_ib_srq_destroy(ed);
	if (ed->users != 0)
		return;
	rds_ib_pool_fini(&ed->tx);
	rds_ib_pool_fini(&ed->bounce);
	ie->edev[ed->dev->idx] = NULL;
	rds_mem_free(ed);
}

int
rds_ib_edev_get(struct rds_ib_conn *ic)
{
	struct rds_ib_engine *ie = rds_ib_engine(ic->c->eng);
	struct rds_ib_dev *d = ic->dev;
	struct rds_ib_edev *ed = ie->edev[d->idx];
	bool srq = ic->la->opts.srq;
	int ret;

	if (ed == NULL) {
		ed = rds_mem_zalloc("rds_ib_edev", sizeof(*ed));
		if (ed == NULL)
			return -ENOMEM;
		ed->dev = d;
		ed->ie = ie;
		rds_ib_pool_init(&ed->tx, "send copies", d,
				 &ie->stats.mem_tx_bytes, RDS_FRAG_SIZE,
				 RDS_IB_TX_PER_SLAB, RDS_IB_TX_BUF_MAX);
		rds_ib_pool_init(&ed->bounce, "RDMA bounce buffers", d,
				 &ie->stats.mem_bounce_bytes,
				 RDS_IB_BOUNCE_SIZE, 1, RDS_IB_BOUNCE_MAX);
		ie->edev[d->idx] = ed;
	}
	if (srq && ed->srq == NULL) {
		ret = d->max_srq_wr == 0 ? -EOPNOTSUPP : rds_ib_srq_create(ed);
		if (ret != 0) {
			rds_ib_srq_destroy(ed);
			/* The connection gets a ring of its own. */
			if (!d->srq_warned)
				IB_LOG(WARNING, "%s: no shared receive queue "
				       "(%s): a receive ring per connection",
				       ibv_get_device_name(d->verbs->device),
				       strerror(-ret));
			d->srq_warned = true;
			srq = false;
		}
	}
	ed->users++;
	if (srq)
		ed->srq_users++;
	ic->ed = ed;
	ic->srq = srq;
	return 0;
}

void
rds_ib_edev_put(struct rds_ib_conn *ic)
{
	struct rds_ib_edev *ed = ic->ed;

	if (ed == NULL)
		return;
	ic->ed = NULL;
	if (ic->srq)
		ed->srq_users--;
	ic->srq = false;
	ed->users--;
	rds_ib_edev_release(ed);
}

/* The engine goes: its connections went first (each released what it
 * held); anything left is a bug, said and freed. */
void
rds_ib_edev_fini(struct rds_ib_engine *ie)
{
	unsigned int i;

	for (i = 0; i < RDS_IB_MAX_DEVS; i++) {
		struct rds_ib_edev *ed = ie->edev[i];

		if (ed == NULL)
			continue;
		IB_LOG(ERR, "engine state on a device left with %u QPs",
		       ed->users);
		ed->users = 0;
		ed->srq_users = 0;
		ed->polling = false;
		rds_ib_edev_release(ed);
	}
}

int
rds_ib_srq_attach(struct rds_ib_conn *ic)
{
	struct rds_ib_engine *ie = rds_ib_engine(ic->c->eng);
	uint32_t key = rds_ib_qpn_key(ic->ed, ic->qp->qp_num);
	int ret;

	ret = rte_hash_add_key_data(ie->qpn, &key, ic);
	if (ret != 0) {
		IB_LOG(ERR, "QP %u: no room in the engine's lookup (%s)",
		       ic->qp->qp_num, strerror(-ret));
		return ret;
	}
	ic->qp_num = ic->qp->qp_num;
	ic->in_lookup = true;
	return 0;
}

static inline struct rds_ib_conn *rds_ib_srq_conn(struct rds_ib_engine *ie,
						  struct rds_ib_edev *ed,
						  uint32_t qp_num);

/* Keep a completion of another QP for the next poll. */
static int
rds_ib_backlog_add(struct rds_ib_edev *ed, const struct ibv_wc *wc)
{
	struct rds_ib_rx_wc *b;

	if (ed->backlog_nb >= ed->backlog_cap && ed->backlog_head != 0) {
		/* Compact first. */
		memmove(ed->backlog, ed->backlog + ed->backlog_head,
			sizeof(*b) * (ed->backlog_nb - ed->backlog_head));
		ed->backlog_nb -= ed->backlog_head;
		ed->backlog_head = 0;
	}
	if (ed->backlog_nb >= ed->backlog_cap) {
		/* Room for a whole CQ more. */
		uint32_t cap = ed->backlog_cap + ed->rcq_size + 1;

		b = realloc(ed->backlog, sizeof(*b) * cap);
		if (b == NULL)
			return -ENOMEM;
		ed->backlog = b;
		ed->backlog_cap = cap;
	}
	b = &ed->backlog[ed->backlog_nb++];
	b->wr_id = wc->wr_id;
	b->qp_num = wc->qp_num;
	b->byte_len = wc->byte_len;
	b->status = wc->status;
	return 0;
}

/* A receive buffer the device gave back: it goes to the pool. */
static inline void
rds_ib_srq_buf_back(struct rds_ib_edev *ed, uint64_t wr_id)
{
	uint32_t idx = (uint32_t)wr_id;

	if (ed->rx_state[idx] == RDS_IB_RX_POSTED) {
		ed->rx_posted--;
		ed->ie->stats.rx_srq_posted--;
	} else {
		ed->rx_orphans--;	/* it came after all */
		ed->ie->stats.rx_srq_orphans_out--;
	}
	ed->rx_state[idx] = RDS_IB_RX_FREE;
	rds_ib_pool_put(&ed->rx, idx);
	ed->last_wc_tsc = ed->ie->e->now;
	ed->torn_since_wc = 0;
}

void
rds_ib_srq_detach(struct rds_ib_conn *ic)
{
	struct rds_ib_engine *ie = rds_ib_engine(ic->c->eng);
	struct rds_ib_edev *ed = ic->ed;
	struct ibv_wc wc[RDS_IB_RX_BURST];
	uint32_t key;
	int n, i;

	if (!ic->in_lookup)
		return;
	/* The QP is destroyed: nothing more of it can come. */
	while ((n = ibv_poll_cq(ed->rcq, RDS_IB_RX_BURST, wc)) > 0) {
		for (i = 0; i < n; i++) {
			struct rds_ib_conn *other;

			if (wc[i].qp_num == ic->qp_num) {
				ie->stats.rx_srq_flushed++;
				rds_ib_srq_buf_back(ed, wc[i].wr_id);
				continue;
			}
			if (rds_ib_backlog_add(ed, &wc[i]) == 0)
				continue;
			/* No memory to keep it: its connection resets and
			 * the peer sends it again (nothing is acknowledged
			 * past a frame we did not see). */
			other = rds_ib_srq_conn(ie, ed, wc[i].qp_num);
			if (other != NULL)
				rds_conn_error(other->c, "no memory");
			ie->stats.rx_stale_wcs++;
			rds_ib_srq_buf_back(ed, wc[i].wr_id);
		}
	}
	key = rds_ib_qpn_key(ed, ic->qp_num);
	rte_hash_del_key(ie->qpn, &key);
	if (ed->last_ic == ic)
		ed->last_ic = NULL;
	ic->in_lookup = false;
	/* It may have taken a receive with it (rds_ib_srq_age). */
	ed->torn_since_wc++;
	/* A QP of the SRQ reset: the test hook's freeze ends. */
	if (ed->frozen) {
		ed->frozen = false;
		rds_ib_srq_refill(ed);
	}
}

static inline struct rds_ib_conn *
rds_ib_srq_conn(struct rds_ib_engine *ie, struct rds_ib_edev *ed,
		uint32_t qp_num)
{
	uint32_t key;
	void *data;

	if (ed->last_ic != NULL && ed->last_qpn == qp_num)
		return ed->last_ic;
	key = rds_ib_qpn_key(ed, qp_num);
	if (rte_hash_lookup_data(ie->qpn, &key, &data) < 0)
		return NULL;
	ed->last_qpn = qp_num;
	ed->last_ic = data;
	return data;
}

/* One receive completion of the SRQ. */
static inline void
rds_ib_srq_one(struct rds_ib_engine *ie, struct rds_ib_edev *ed,
	       uint32_t qp_num, uint64_t wr_id, enum ibv_wc_status status,
	       uint32_t byte_len)
{
	struct rds_ib_conn *ic = rds_ib_srq_conn(ie, ed, qp_num);

	if (ic == NULL)
		ie->stats.rx_stale_wcs++;	/* a QP torn down meanwhile */
	else
		rds_ib_recv_one(ic, status,
				rds_ib_pool_buf(&ed->rx, (uint32_t)wr_id),
				byte_len);
	rds_ib_srq_buf_back(ed, wr_id);
}

/* The receives of one engine's SRQ on a device: bursts of completions,
 * each followed by a refill. */
static unsigned int
rds_ib_srq_poll_one(struct rds_ib_engine *ie, struct rds_ib_edev *ed)
{
	struct ibv_wc wc[RDS_IB_RX_BURST];
	unsigned int total = 0, b;
	uint32_t batch;
	int n, i;

	ed->polling = true;
	if (__atomic_exchange_n(&ed->limit_hit, false, __ATOMIC_ACQ_REL)) {
		ie->stats.rx_srq_limit_events++;
		ed->limit = 0;		/* the event disarmed it */
		rds_ib_srq_grow(ed);
		rds_ib_srq_refill(ed);
	}
	batch = RTE_MAX(1u, RTE_MIN((uint32_t)RDS_IB_RX_REFILL_BATCH,
				    ed->rx_target / 8));
	for (b = 0; b < RDS_IB_RX_BURSTS; b++) {
		/* What a tear-down kept comes before the CQ. */
		if (ed->backlog_head < ed->backlog_nb) {
			n = 0;
			while (n < RDS_IB_RX_BURST &&
			       ed->backlog_head < ed->backlog_nb) {
				const struct rds_ib_rx_wc *k =
					&ed->backlog[ed->backlog_head++];

				rds_ib_srq_one(ie, ed, k->qp_num, k->wr_id,
					       k->status, k->byte_len);
				n++;
			}
			if (ed->backlog_head == ed->backlog_nb)
				ed->backlog_head = ed->backlog_nb = 0;
		} else {
			n = ibv_poll_cq(ed->rcq, RDS_IB_RX_BURST, wc);
			if (n <= 0)
				break;
			for (i = 0; i < n; i++)
				rds_ib_srq_one(ie, ed, wc[i].qp_num,
					       wc[i].wr_id, wc[i].status,
					       wc[i].byte_len);
		}
		total += (unsigned int)n;
		/* Nearly dry between two passes: more receives. */
		if (ed->rx_posted == 0 && !ed->frozen)
			ie->stats.rx_srq_dry++;
		if (ed->rx_posted < ed->rx_target / 4 && !ed->frozen)
			rds_ib_srq_grow(ed);
		if (ed->rx_target - ed->rx_posted >= batch)
			rds_ib_srq_refill(ed);
		if (n < RDS_IB_RX_BURST && ed->backlog_head >= ed->backlog_nb)
			break;
	}
	/* Nothing completed for long after a QP went: its receive may be
	 * gone, and the SRQ empty for all we know. Give the oldest up. */
	if (total == 0 && ed->torn_since_wc > 0 && !ed->frozen &&
	    ie->e->now - ed->last_wc_tsc >
	    rds_clock_hz() / 1000 * RDS_IB_SRQ_ORPHAN_MS) {
		uint32_t idx = rds_ib_srq_oldest(ed);

		if (idx != UINT32_MAX)
			rds_ib_srq_orphan(ed, idx);
		ed->torn_since_wc--;
		ed->last_wc_tsc = ie->e->now;
	}
	/* Nothing came: top up what the batches left (an idle SRQ holds
	 * its target). */
	if (total == 0 && ed->rx_posted < ed->rx_target)
		rds_ib_srq_refill(ed);
	if (ed->limit == 0 && !ed->frozen)
		rds_ib_srq_arm(ed);
	ed->polling = false;
	if (ed->srq_users == 0 || ed->users == 0)
		rds_ib_edev_release(ed);
	return total;
}

unsigned int
rds_ib_srq_poll(struct rds_ib_engine *ie)
{
	unsigned int i, work = 0;

	for (i = 0; i < RDS_IB_MAX_DEVS; i++) {
		struct rds_ib_edev *ed = ie->edev[i];

		if (ed != NULL && ed->rcq != NULL)
			work += rds_ib_srq_poll_one(ie, ed);
	}
	return work;
}

void
rds_ib_srq_freeze(struct rds_ib_engine *ie)
{
	unsigned int i;

	for (i = 0; i < RDS_IB_MAX_DEVS; i++) {
		struct rds_ib_edev *ed = ie->edev[i];

		if (ed != NULL && ed->srq != NULL) {
			ed->frozen = true;
			ie->stats.rx_stalls_injected++;
		}
	}
}

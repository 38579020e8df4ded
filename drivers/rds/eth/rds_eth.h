/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RDS_ETH_H
#define RDS_ETH_H

/*
 * The eth transport's internals: RDS over UDP/IPv4 or UDP/IPv6 on any
 * DPDK ethdev PMD, with a reliable frame layer of its own below RDS
 * sequencing.
 *
 * Modules (one file each):
 *   rds_eth.c        ops table, engine poll (receive, dispatch) and
 *                    flush (transmit), connection ops, faults
 *   rds_eth_stats.c  counters: names, the sum over engines
 *   rds_eth_port.c   options, ports and queues, transport init and fini
 *   rds_eth_wire.c   frame layout: Ethernet / IPv4 / UDP / eth header,
 *                    build and parse, checksum offloads
 *   rds_eth_crc.c    CRC32C: serial, and three interleaved chains of
 *                    crc32 combined with PCLMULQDQ (x86)
 *   rds_eth_arp.c    neighbours: ARP requests and replies, static table,
 *                    learning (a peer whose MAC changes is followed)
 *   rds_eth_rx6.c    the receive path of IPv6 frames
 *   rds_eth_nd.c     IPv6 neighbours: neighbour discovery (solicitations
 *                    and advertisements), static entries, learning
 *   rds_eth_v6.h     (header) the declarations of those two
 *   rds_eth_wire.h   (header) frame layout and CRC32C declarations
 *   rds_eth_rel.c    the reliable frame layer of a connection: sequence
 *                    numbers, window, sending and receiving frames,
 *                    ACK and SACK fields, a restarted peer,
 *                    connection set-up by the first frame
 *   rds_eth_rexmit.c loss recovery: ACK input on the sending side, RTT
 *                    samples (Karn), SACK/RACK retransmission, the tail
 *                    probe and the retransmit timer
 *   rds_eth_epoch.c  epochs, ordered by the clock: only a stream newer
 *                    than every one taken before is taken
 *   rds_eth_msg.c    RDS messages over frames: fragmentation to the MTU,
 *                    reassembly, RDMA requests and responses
 *   rds_eth_fault.c  seeded fault injection below the transport (drop,
 *                    duplicate, reorder, delay, corrupt; its header
 *                    rds_eth_fault.h)
 *   rds_eth_steer.c  receive queues per engine, rte_flow rules per
 *                    connection, the software hand-off between engines,
 *                    zero-copy transmit (extbuf mbufs on message buffers)
 *
 * Threads: everything here runs on engines. A port has a receive queue
 * per engine where it has enough (configure=1), else fewer (engines
 * without one receive nothing directly); the first is polled by the
 * port's home engine, which also watches the link. A frame for a
 * connection another engine owns is handed to it through its inbox
 * ring (rds_eth_steer.c); rte_flow rules make that rare where the PMD
 * has them. Each engine transmits on its own transmit queue when the
 * port has enough, else on a shared one under a lock.
 *
 * Wire format of a frame, all integers in network byte order:
 *
 *   Ethernet (14) | IPv4 (20, no options, DF) | UDP (8, checksum 0:
 *   the CRC32C below covers more) | struct rds_eth_hdr (40) | payload
 *   Ethernet (14) | IPv6 (40, no extension headers) | UDP (8, checksum
 *   0, as RFC 6936 allows a protocol with its own check) | the same
 *
 * An IPv6 connection's frames are built in the IPv4 layout in the mbuf
 * and take 20 bytes more in front when finished (rds_eth_frame_build6),
 * so that everything that finds a payload at RDS_ETH_HDRS before the
 * build is the same for both families; the IPv4 paths are the ones
 * counted in instructions per message, and the IPv6 ones branch off
 * them where IPv4 would refuse a frame, or at the template's mode.
 *
 * Sequenced frames (DATA, RDMA_REQ, RDMA_RESP) carry one fragment of a
 * unit (an RDS frame: 48-byte RDS header + its payload; an RDMA request
 * and its WRITE data; an RDMA response and its READ data): the first
 * fragment has RDS_ETH_FL_FIRST, the last RDS_ETH_FL_LAST, frag_off is
 * the fragment's offset within the unit. ACK frames carry no payload and
 * no sequence; their frag_off is how long (ns, at most UINT32_MAX) the
 * sender held that ACK since the frame below its cumulative ACK came, so
 * that the peer's round trip sample measures the network (the delay
 * signal, rds_eth_cc.h). Older peers send 0 and ignore it: they mix,
 * their samples then including their ACK delay (<= rto_min_us / 8).
 * Every frame carries the sender's cumulative ACK, SACK
 * bitmap and receive window for the reverse direction.
 *
 * These ACKs are the only acknowledgement of a connection (version 2 of
 * the wire): an RDS message counts as acknowledged once the cumulative
 * ACK covers the last frame of its unit (the receiver acknowledges a
 * frame only once its RDS core took what the frame completed), as the
 * kernel's rds_tcp counts one once TCP has its last byte; no RDS
 * ACK-only frames, no ACK in the RDS headers (RDS_TRANS_F_ACKS), whose
 * Internet checksum is 0 (not computed: the CRC32C covers them). A
 * message with ACK_REQUIRED (its sender's buffer half full, or sent
 * again after a reset) asks for the frame ACK at once: RDS_ETH_FL_ACKREQ
 * on its last frame. Version 1 peers freed messages on RDS ACKs only
 * and would wait for ever on a version 2 peer: the version byte tells
 * them apart, and a frame of another version is refused and counted
 * (rx_drop_version).
 *
 * Congestion maps (version 3 of the wire, RDS_TRANS_F_MAP_DELTA): a
 * CONG_BITMAP message carries a sparse update (lib/rds/rds_addr.h,
 * RDS_CONG_DELTA_*) rather than the whole 8 KiB map: a connection's
 * first map lists the map's non-zero words (4 bytes for a host with no
 * congested port), each later one the 10-byte records of the words
 * changed since the last; the whole map only when the update would not
 * be shorter. A version 2 peer would take those for malformed maps.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_spinlock.h>

#include "rds_driver.h"
#include "rte_rds_eth.h"
#include "rds_eth_wire.h"
#include "rds_eth_cc.h"
#include "rds_eth_fault.h"

extern int rds_eth_logtype;
#define ETH_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, rds_eth_logtype, "RDS eth: " fmt "\n", \
		##__VA_ARGS__)

/* IPv6 items of one address's neigh= option, at most. */
#define RDS_ETH_PORT_NEIGH6 16
/* window=: frames in flight per connection (a power of two). */
#define RDS_ETH_WINDOW_MIN 8
#define RDS_ETH_WINDOW_MAX 4096

/* Local addresses one port serves (test/sim builds its copy with more:
 * its hosts are addresses, DPDK has at most RTE_MAX_ETHPORTS ports). */
#ifndef RDS_ETH_PORT_LADDRS
#define RDS_ETH_PORT_LADDRS 8
#endif
/* 128: a sweep of 128-1024 over net_memif found no gain past it
 * (doc/perf.md); large windows are for long round trips. */
#define RDS_ETH_WINDOW_DEFAULT 128
/* cwnd_init=: the congestion window a connection starts with (frames),
 * RFC 6928's initial window, at most window= (doc/guide.md, eth). */
#define RDS_ETH_CWND_INIT_DEFAULT 10
/* delay_us= when not given (0: off; doc/guide.md, eth). */
#define RDS_ETH_DELAY_US_DEFAULT 0
/* kick_us= on a net_af_packet port when not given (rte_rds_eth.h). */
#define RDS_ETH_KICK_US_AF_PACKET 100
/* mbufs of a port's pool (16383) kept for receiving: a connection with
 * 128 frames in flight or more sends no more below this. */
#define RDS_ETH_POOL_RESERVE 4096
/* Every header of a frame: what rds_eth_frame_build() fills (82). */
#define RDS_ETH_HDRS (RDS_ETH_L2L3L4 + RDS_ETH_HDR_SIZE)
/* Largest payload of one frame (IPv4 total length is 16 bits). */
#define RDS_ETH_MAX_PAYLOAD (UINT16_MAX - 20 - 8 - RDS_ETH_HDR_SIZE)

/* ------------------------------------------------------------------ */
/* Ports (rds_eth.c) */

struct rds_eth_neigh;

/* One ethdev port, shared by the local addresses on it. */
struct rds_eth_port {
	uint16_t port_id;
	unsigned int index;		/* in rds_eth_ports */
	int8_t rxq_of[RTE_RDS_MAX_ENGINES]; /* the queue (from rxq) each
					 * engine polls, -1: none */
	bool configured_by_us;		/* we configured and started it */
	bool ip_cksum_offload;		/* RTE_ETH_TX_OFFLOAD_IPV4_CKSUM */
	bool rx_cksum_offload;		/* RTE_ETH_RX_OFFLOAD_IPV4_CKSUM */
	uint16_t mtu;
	uint16_t udp_port;
	uint16_t nb_txq;
	uint16_t rxq;			/* the first receive queue we poll */
	uint16_t nb_rxq;		/* receive queues from rxq (configure=1:
					 * one per engine when the port has
					 * them; configure=0: 1) */
	uint16_t txq_base;		/* first transmit queue we use */
	unsigned int home;		/* engine that polls rxq (and does the
					 * link checks); engine home + i polls
					 * rxq + i */
	bool tx_multi_seg;		/* RTE_ETH_TX_OFFLOAD_MULTI_SEGS, and
					 * message buffers the PMD may read:
					 * large fragments go zero-copy */
	bool zc_check_mem;		/* ... only buffers in DPDK memory (a
					 * device that DMAs) */
	bool flow_ok;			/* rte_flow_validate took our rule:
					 * connections get steering rules */
	struct rte_mempool *shinfo_pool; /* zero-copy: one shared info per
					 * message sent (rds_eth_steer.c) */
	struct rte_ether_addr mac;
	struct rte_mempool *pool;
	struct rte_mempool *ctrl_pool;	/* ACK frames' own: no frame that
					 * waits for its ACK holds one, so an
					 * ACK is never stuck behind them */
	rte_spinlock_t tx_lock[RTE_RDS_MAX_ENGINES]; /* when queues are shared */
	rte_spinlock_t rx_lock[RTE_RDS_MAX_ENGINES]; /* receive queues polled
					 * by engines other than home (against
					 * a restart of the port) */
	struct rds_eth_neigh *neigh;	/* ARP table (rds_eth_arp.c) */
	struct rds_eth_nd *nd;		/* IPv6 neighbours (rds_eth_nd.c) */
	unsigned int nb_laddrs;
	struct rds_laddr *laddrs[RDS_ETH_PORT_LADDRS]; /* local addresses on
					 * this port */
	/* Options (rte_rds_eth.h). */
	uint32_t window;		/* frames in flight per connection */
	uint64_t rto_min_tsc;
	uint64_t learn_gap_tsc;		/* RDS_ETH_LEARN_GAP_US */
	uint64_t rto_max_tsc;
	uint64_t rto_init_tsc;
	uint32_t dead_after;		/* timeouts in a row: peer unresponsive */
	uint32_t cwnd_init;		/* congestion window's start, 0: off */
	uint64_t delay_tsc;		/* delay_us: the delay target, 0: off */
	uint64_t kick_tsc;		/* kick_us, 0: off */
	/* Link recovery (relink=1, configure=1), by the home engine. Other
	 * engines transmit on the port under tx_lock[] and not while
	 * restarting is set. */
	bool relink;
	bool started;			/* the port runs (home engine's view) */
	bool link_up;			/* as last seen */
	bool link_down_seen;		/* down_since is valid */
	bool restarting;		/* stopped or being restarted (atomic) */
	uint64_t link_check_tsc;	/* next look at the link */
	uint64_t down_since;		/* down since (or the last restart) */
	uint64_t relink_wait;		/* down this long: restart */
};

/* Per local eth address (rds_laddr.tp). */
struct rds_eth_laddr {
	struct rds_eth_port *port;
	uint32_t ip;			/* network order; 0 for IPv6 */
	bool v6;			/* an IPv6 address (rds_laddr.addr) */
};

static inline struct rds_eth_laddr *
rds_eth_laddr(const struct rds_laddr *la)
{
	return la->tp;
}

/* A port as one engine uses it: where it receives and transmits
 * (worked out once, at the engine's start), the frames queued for
 * transmission in this pass, and the connection the last frame received
 * there came for. */
#define RDS_ETH_TX_BURST 64
/* mbufs an engine takes from a port's pool at once for its frames. */
#define RDS_ETH_STASH 16
struct rds_eth_eport {
	struct rte_mbuf *pkts[RDS_ETH_TX_BURST];
	uint16_t n;
	uint16_t refused;		/* the first of them the PMD refused
					 * already (counted in tx_full once) */
	struct rds_eth_conn *rx_last;	/* one of this engine's, or NULL */
	struct rds_eth_port *p;
	int16_t rxq;			/* the receive queue polled (index from
					 * p->rxq), or -1: none */
	bool home;			/* the port's home engine (polls rxq,
					 * watches the link, no lock) */
	bool watch;			/* ... and the link is watched
					 * (relink=1) */
	uint16_t txq;			/* the transmit queue */
	rte_spinlock_t *tx_lock;	/* ... and its lock */
	uint16_t nb_stash;		/* mbufs of p's pool taken for frames */
	bool pool_low;			/* p's pool is under its reserve: no
					 * new frame waits for an ACK */
	uint32_t nb_room;		/* room asked: the pool looked at
					 * every 256 */
	struct rte_mbuf *stash[RDS_ETH_STASH];
};

struct rds_eth_conn;

/* Per engine (rds_engine.tp). */
struct rds_eth_engine {
	struct rds_eth_eport *port;	/* [port index] */
	struct rds_eth_eport **poll;	/* those this engine receives on */
	unsigned int nb_poll;
	struct rte_rds_eth_stats stats;
	uint32_t faults_gen;
	bool faults_on;
	struct rds_eth_fault *fault;	/* rds_eth_fault.c state */
	TAILQ_HEAD(, rds_eth_conn) acks; /* connections owing an ACK frame */
	/* Software hand-off (rds_eth_steer.c): frames other engines
	 * received for our connections (struct rds_eth_handoff elements,
	 * multi-producer, this engine consumes), and the frames of this
	 * pass for each other engine, enqueued as one burst. */
	struct rte_ring *inbox;
	uint16_t nb_out[RTE_RDS_MAX_ENGINES];
	struct rds_eth_handoff *out[RTE_RDS_MAX_ENGINES];
};

/* The ports, and the engine-private state. */
extern struct rds_eth_port **rds_eth_ports;
extern unsigned int rds_eth_nb_ports;
extern unsigned int rds_eth_slot;
extern const struct rds_transport rds_eth_transport;
extern bool rds_eth_wanted;		/* an address of ours is eth */

#define RDS_ETH_RX_BURST 32
/* Link recovery: look every 100 ms; restart after 500 ms down, then
 * after 1, 2, 4, 8, 8 ... s while it stays down. */
#define RDS_ETH_LINK_CHECK_MS 100
#define RDS_ETH_RELINK_MIN_MS 500
#define RDS_ETH_RELINK_MAX_MS 8000
/* A valid frame puts its sender's MAC into the neighbour table at most
 * this often when it is the connection's already. */
#define RDS_ETH_LEARN_GAP_US 1000

/* rds_eth_port.c: the transport's init, fini and laddr_check. */
int rds_eth_init(const struct rte_rds_conf *conf);
void rds_eth_fini(void);
int rds_eth_laddr_check(struct rds_laddr *la);
/* rds_eth.c: no faults (rte_rds_eth_set_faults) from now on. */
void rds_eth_faults_reset(void);

static inline struct rds_eth_engine *
rds_eth_engine(struct rds_engine *e)
{
	return e->tp[rds_eth_slot];
}

/* Index of a port in rds_eth_ports. */
unsigned int rds_eth_port_index(const struct rds_eth_port *p);

/* "No state for your stream" to the sender of f (rate-limited by the
 * caller). */
void rds_eth_send_reset(struct rds_engine *e, struct rds_eth_port *p,
			const struct rds_eth_frame *f);

/* Queue one frame for transmission on port p (sent at the engine's
 * flush, or at once when the batch is full). Takes m. */
void rds_eth_tx(struct rds_engine *e, struct rds_eth_port *p,
		struct rte_mbuf *m);

/* The peer's MAC is mac (resolved, learnt, or changed): the
 * connection's frames go there (their template is made again). */
void rds_eth_conn_peer(struct rds_eth_conn *ec,
		       const struct rte_ether_addr *mac);

/* A frame for a connection of engine e arrived (after parsing). */
void rds_eth_rx_frame(struct rds_engine *e, struct rds_eth_port *p,
		      struct rte_mbuf *m, const struct rds_eth_frame *f);

/* ------------------------------------------------------------------ */
/* Queues, steering and zero-copy transmit (rds_eth_steer.c) */

/*
 * With configure=1 and several engines, a port gets one receive queue
 * per engine (as many as it has): engine (home + i) % nb_engines polls
 * rxq + i. A connection belongs to the engine rds_conn_engine_of_hash
 * picks from its (local, peer) addresses, so where the PMD takes an
 * rte_flow rule (checked once per port with rte_flow_validate) each
 * connection gets one: IPv4 src = peer, dst = local, UDP dst = our port
 * -> the owner's queue, made when the connection is allocated and
 * destroyed with it. Frames that still land on another engine's queue
 * (no rte_flow, a rule refused, frames before the rule, ARP, a port
 * with fewer queues than engines) are handed to the owner in software:
 * batched per destination in the pass, one rte_ring_enqueue_burst_elem
 * into the owner's inbox at the end of the burst, no allocation.
 */

/* A frame handed to its connection's engine: parsed already. */
struct rds_eth_handoff {
	struct rte_mbuf *m;
	struct rds_eth_port *p;
	struct rds_eth_frame f;
};

/* The per-engine hand-off state (inbox, batches). 0 or -ENOMEM. */
int rds_eth_steer_engine_init(struct rds_engine *e, struct rds_eth_engine *ee);
void rds_eth_steer_engine_fini(struct rds_eth_engine *ee);
/* The receive queue (index from p->rxq) engine eid polls on p, or -1. */
int rds_eth_steer_queue_of(const struct rds_eth_port *p, unsigned int eid);
/* After configuration: validate a rule on p, set p->flow_ok. */
void rds_eth_steer_port_probe(struct rds_eth_port *p);
/* A connection's rule (owner engine's queue) / its removal. */
void rds_eth_steer_conn_add(struct rds_eth_conn *ec);
void rds_eth_steer_conn_del(struct rds_eth_conn *ec);
/* Queue a parsed frame for engine owner (sent at the end of the burst
 * by rds_eth_steer_flush). Takes m. */
void rds_eth_steer_handoff(struct rds_engine *e, unsigned int owner,
			   struct rds_eth_port *p, struct rte_mbuf *m,
			   const struct rds_eth_frame *f);
/* Enqueue this burst's hand-offs into their owners' inboxes. */
void rds_eth_steer_flush(struct rds_engine *e);
/* Take what other engines handed to e. Returns frames taken. */
unsigned int rds_eth_steer_drain(struct rds_engine *e);

/* Zero-copy transmit: a fragment of len bytes at data, inside the
 * payload of message msg, as an mbuf attached to it (holding a reference
 * to msg's buffer until the PMD and the retransmit queue let go), to be
 * chained after the header mbuf. NULL: copy instead (no mbuf, no shared
 * info, or p cannot take it). */
struct rte_mbuf *rds_eth_zc_attach(struct rds_eth_port *p,
				   struct rds_msg *msg, const uint8_t *data,
				   uint32_t len);
/* Port set-up, the port advertising RTE_ETH_TX_OFFLOAD_MULTI_SEGS (and
 * the caller having asked for it): whether large fragments may go
 * zero-copy (p->tx_multi_seg). 0. */
struct rte_eth_dev_info;
int rds_eth_zc_port_init(struct rds_eth_port *p,
			 const struct rte_eth_dev_info *di);
/* Fragments at least this long go zero-copy where the port allows. */
#define RDS_ETH_ZC_MIN 512

/* ------------------------------------------------------------------ */
/* Neighbours (rds_eth_arp.c) */

/*
 * The table: IPv4 -> MAC, each entry resolved (a MAC) or incomplete (an
 * ARP request went out at some time), static entries never changed by
 * learning. Entries are never removed (a table per port, sized for its
 * peers). Readers (resolve, learn when nothing changes) take no lock: a
 * resolved lookup is a hash, an address compare and one 64-bit load.
 * Writers (a new entry, a MAC change, a request sent) serialise on a
 * spinlock of the table. Any engine may call any of these at any time.
 */

/* A table for at most size neighbours (0: 256). NULL: no memory. */
struct rds_eth_neigh *rds_eth_neigh_create(unsigned int size);
void rds_eth_neigh_free(struct rds_eth_neigh *n);
/* Static entries from an option: "IP/MAC[+IP/MAC...]" (dotted IPv4,
 * MAC as XX:XX:XX:XX:XX:XX or XXXX:XXXX:XXXX). All or nothing: 0,
 * -EINVAL (bad syntax, address 0, a broadcast or multicast MAC) or
 * -ENOSPC (the table is full). An empty spec adds nothing. */
int rds_eth_neigh_static(struct rds_eth_neigh *n, const char *spec);
/* The MAC of ip (network order): 0, or -EAGAIN (an ARP request for ip
 * from sip went out on p, or one did less than 100 ms ago; the caller
 * tries again later), -EINVAL (ip 0 or broadcast), -ENOSPC (no room in
 * the table for a new neighbour). Engine context; requests are queued
 * with rds_eth_tx(e, p, ...) and counted in e's arp_tx. */
int rds_eth_neigh_resolve(struct rds_engine *e, struct rds_eth_port *p,
			  uint32_t sip, uint32_t ip,
			  struct rte_ether_addr *mac);
/* Learn (or follow a change of) a peer's MAC from a valid frame: makes
 * the entry if there is none (and there is room), resolves an incomplete
 * one, follows a changed MAC (counted in e's neigh_changed; e may be
 * NULL: not counted). Static entries are left alone. Cheap when nothing
 * changes (no lock). */
void rds_eth_neigh_learn(struct rds_engine *e, struct rds_eth_neigh *n,
			 uint32_t ip, const struct rte_ether_addr *mac);
/* The entry for ip without side effects (tests, info): 1 resolved (mac
 * filled), 0 incomplete, -ENOENT none. */
int rds_eth_neigh_lookup(struct rds_eth_neigh *n, uint32_t ip,
			 struct rte_ether_addr *mac);
/* An ARP frame (rds_eth_is_arp; home engine of p): answer requests for
 * one of p's local addresses (a reply from p->mac, queued with
 * rds_eth_tx), learn the sender of requests and replies (only senders
 * with an entry already, or that ask for one of our addresses; never
 * one of our own addresses or p's MAC). Counts arp_rx (every frame) and
 * arp_tx in e's counters. Takes m (freed here). */

void rds_eth_arp_input(struct rds_engine *e, struct rds_eth_port *p,
		       struct rte_mbuf *m);

/* ------------------------------------------------------------------ */
/* The reliable frame layer (rds_eth_rel.c) */

/* A frame sent and not acknowledged. */
struct rds_eth_sent {
	struct rte_mbuf *m;		/* kept (a reference) for resending */
	uint64_t tsc;			/* last transmission */
	uint64_t rds_seq;		/* the RDS message whose last frame this
					 * is (0: none): acknowledged with it */
	uint16_t tx_count;		/* transmissions so far */
	bool sacked;
};

/* Per connection (rds_conn.tp). */
struct rds_eth_conn {
	struct rds_conn *c;
	struct rds_eth_engine *ee;	/* of the engine that owns c */
	struct rds_eth_port *port;
	uint32_t lip, fip;		/* network order; UINT32_MAX for IPv6
					 * (never one of an IPv4 frame's to
					 * us: an IPv6 connection is never
					 * rx_last) */
	bool v6;			/* an IPv6 connection (c->key) */
	uint32_t frag_max;		/* payload bytes a frame carries */
	struct rte_ether_addr peer_mac;
	bool resolved;
	struct rds_eth_tmpl tmpl;	/* our frames' outer headers (made with
					 * peer_mac: rds_eth_conn_peer) */
	uint64_t learn_tsc;		/* peer_mac last put in the neighbour
					 * table from a frame */
	struct rte_flow *flow;		/* steering rule (rds_eth_steer.c) */
	struct rds_timer resolve_timer;	/* connecting: ARP not answered yet */
	uint32_t resolve_tries;

	/* Epochs: each side's sending stream has one, new after a reset.
	 * A frame names its stream (src) and the receiver's stream as the
	 * sender takes it (dst: 0 when it takes none). */
	uint32_t epoch;			/* our stream's (ordered, never 0) */
	uint32_t peer_epoch;		/* the peer's stream we take, 0: none */
	/* The newest of the peer's epochs we took (kept when we stop
	 * taking it after a bad unit), and when: only newer streams are
	 * taken (rds_eth_epoch.c). */
	uint32_t peer_epoch_hi;
	uint64_t peer_epoch_hi_tsc;
	bool epoch_acked;		/* the peer takes ours: no more OPEN */

	/* Sending. */
	uint32_t snd_nxt;		/* next sequence */
	uint32_t snd_una;		/* oldest not acknowledged */
	uint32_t peer_wnd;		/* the peer's window from snd_una */
	uint32_t wnd;			/* ring size (a power of two) */
	struct rds_eth_cc cc;		/* congestion window (rds_eth_cc.h) */
	struct rds_eth_sent *sent;	/* [seq & (wnd - 1)] */
	uint64_t srtt, rttvar;		/* TSC */
	uint64_t min_rtt;		/* smallest sample (0: none yet) */
	uint64_t rto_base;		/* from srtt and rttvar */
	uint64_t rto;			/* rto_base, doubled per timeout
					 * until progress */
	uint64_t rack_tsc;		/* latest send time of a frame the
					 * peer acknowledged (RACK) */
	bool probe_sent;		/* the tail probe went out since the
					 * last progress: the timer is the
					 * RTO now (rds_eth_rexmit.c) */
	bool kicked;			/* the kick (kick_us) went out since
					 * the last progress */
	uint32_t timeouts;		/* in a row, without progress */
	bool unresponsive;
	struct rds_timer rto_timer;

	/* Receiving. */
	uint32_t rcv_nxt;		/* next in-order sequence */
	struct rte_mbuf **ooo;		/* [seq & (wnd - 1)], out of order:
					 * frames rcv_nxt + 1 .. + wnd - 1 */
	uint32_t nb_ooo;
	uint32_t unacked_rx;		/* in-order frames not acknowledged */
	uint64_t rx_tsc;		/* when rcv_nxt last moved (the ACK
					 * hold that ACK frames report) */
	bool ack_now;			/* an ACK frame is due */
	bool on_acks;			/* on the engine's acks list */
	TAILQ_ENTRY(rds_eth_conn) ack_link;
	struct rds_timer ack_timer;
	uint64_t reset_tsc;		/* last RESET hint sent */

	/* Units (rds_eth_msg.c). Receiving: an RDS frame being
	 * reassembled, */
	struct rds_msg *rx_msg;
	struct rds_hdr_info rx_hdr;
	uint32_t rx_off;
	/* a request (target side), */
	bool rq_active;
	struct rds_eth_rdma_req_h *rq;	/* its header, host order */
	uint8_t *rq_buf;		/* WRITE data */
	uint32_t rq_off;
	/* a response (initiator side). */
	bool rs_active;
	bool rs_skip;			/* for no operation we wait for */
	int32_t rs_status;
	uint64_t rs_old;
	uint32_t rs_bytes, rs_off;
	/* Sending: the message being sent (it may take several xmit
	 * calls), and its RDS header; */
	struct rds_msg *tx_msg;
	struct rds_header tx_hdr;
	uint32_t tx_off;
	uint32_t rq_tx_off;		/* of its RDMA request */
	/* the operation the head message waits for the answer of (one at
	 * a time; it holds a reference), its request's id, where the
	 * request ended in our stream (to know whether the peer has it),
	 * the last sign of life of the peer for it; */
	uint32_t op_next;
	struct rds_rdma_op *op_wait;
	uint32_t op_wait_id;
	uint32_t op_req_end;		/* snd_nxt after its last fragment */
	uint32_t op_req_epoch;		/* ... in this epoch of ours */
	uint64_t op_tsc;
	uint64_t op_check_tsc;		/* the last pass that looked at it */
	uint32_t peer_nonce;		/* the target's, from its answers (0:
					 * none heard yet) */
	/* the answer to the last request (target side): kept until the
	 * next request, sent again whole when our stream starts again
	 * before the initiator acknowledged it. */
	uint32_t nonce;			/* this connection's, as a target
					 * (random, never 0) */
	bool resp_valid;		/* resp_* hold an answer */
	bool resp_pending;		/* ... not all of it sent yet */
	uint32_t resp_op_id;
	uint8_t resp_hdr[32];
	uint8_t *resp_data;
	uint32_t resp_len, resp_off;	/* header + data */
	uint32_t resp_end;		/* snd_nxt after its last fragment */
	uint32_t resp_epoch;		/* ... in this epoch of ours */
};

#define RDS_ETH_SACK_BITS 64	/* frames a SACK bitmap covers */
#define RDS_ETH_DUPTHRESH 3	/* acknowledged frames above a hole */
#define RDS_ETH_REXMIT_BURST 16	/* frames one timeout sends again, at most */
#define RDS_ETH_FREE_BULK 32	/* acknowledged frames freed at once */

static inline bool
rds_eth_seq_lt(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

/* rds_eth_tx for a frame of ec: the engine's batch for the port, when
 * it has room (no lookup of the engine's state). */
static inline void
rds_eth_ec_tx(struct rds_eth_conn *ec, struct rte_mbuf *m)
{
	struct rds_eth_eport *ep = &ec->ee->port[ec->port->index];

	if (likely(ep->n < RDS_ETH_TX_BURST))
		ep->pkts[ep->n++] = m;
	else
		rds_eth_tx(ec->c->eng, ec->port, m);
}

/* One more reference to a frame: on every segment (rte_pktmbuf_free
 * drops one from each). */
static inline void
rds_eth_mbuf_ref(struct rte_mbuf *m)
{
	for (; m != NULL; m = m->next)
		rte_mbuf_refcnt_update(m, 1);
}

/* The peer answers again (false), or let dead_after timeouts pass. */
void rds_eth_set_unresponsive(struct rds_eth_conn *ec, bool on);

/* Set up / tear down the frame layer of a connection. */
int rds_eth_rel_init(struct rds_eth_conn *ec, struct rds_eth_port *p);
void rds_eth_rel_fini(struct rds_eth_conn *ec);
/* rds_eth_stats.c: the counters' names and their sum over engines. */
#define RDS_ETH_NB_XSTATS \
	(sizeof(struct rte_rds_eth_stats) / sizeof(uint64_t))
extern const char *const rds_eth_xstat_names[];
void rds_eth_xstats(struct rds_engine *e, uint64_t *v);
/* rds_eth_info.c: RTE_RDS_INFO_ETH_CONNECTIONS records (the info op). */
void rds_eth_info(struct rds_engine *e, struct rds_info_req *r);

/* Start a new epoch of ours (connect, or after the peer restarted):
 * everything in flight is dropped, sequences start again at 0. */
void rds_eth_rel_new_epoch(struct rds_eth_conn *ec);

/* rds_eth_epoch.c: ordered epochs. The wall clock in 1/1024 s, 32 bits. */
uint32_t rds_eth_epoch_now(void);
/* The epoch after prev (0: none yet) at clock now: now, unless that is
 * not newer than prev (then prev + 1); never 0. */
uint32_t rds_eth_epoch_next(uint32_t prev, uint32_t now);
/* Whether a new stream of the peer's in epoch e may be taken: newer than
 * every epoch of the peer's taken before (or the last one is too old to
 * compare, past the horizon). */
bool rds_eth_peer_epoch_acceptable(const struct rds_eth_conn *ec, uint32_t e,
				   uint64_t now_tsc);
/* The peer's stream in epoch e is taken (at now_tsc). */
void rds_eth_peer_epoch_taken(struct rds_eth_conn *ec, uint32_t e,
			      uint64_t now_tsc);
/* Frames the window lets us send now. */
uint32_t rds_eth_rel_room(struct rds_eth_conn *ec);
/* Send one sequenced frame: type, flags, fragment offset, payload p1
 * (l1 bytes) then p2 (l2 bytes), copied into a new mbuf after the
 * headers, or, p2 inside the payload of message zc (not NULL) where the
 * port takes chains and l2 >= RDS_ETH_ZC_MIN, attached
 * (rds_eth_zc_attach), the frame a chain. rds_seq: the RDS message whose
 * last frame this is (acknowledged with it), or 0. 0, or -EAGAIN (no
 * room, no mbuf). */
int rds_eth_rel_send_zc(struct rds_eth_conn *ec, uint8_t type,
			uint16_t flags, uint32_t frag_off, const void *p1,
			uint32_t l1, const void *p2, uint32_t l2,
			struct rds_msg *zc, uint64_t rds_seq);
/* The same in two steps, for a caller that writes the payload itself:
 * a frame for len payload bytes (at rds_eth_rel_payload), or NULL (no
 * room, no mbuf: counted), then its sending, as rds_eth_rel_send_zc's
 * (the payload's length is the mbuf's). */
struct rte_mbuf *rds_eth_rel_frame(struct rds_eth_conn *ec, uint32_t len);
void rds_eth_rel_commit(struct rds_eth_conn *ec, struct rte_mbuf *m,
			uint8_t type, uint16_t flags, uint32_t frag_off,
			uint64_t rds_seq);

static inline uint8_t *
rds_eth_rel_payload(struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod_offset(m, uint8_t *, RDS_ETH_HDRS);
}

/* A frame of this connection arrived (parsed, CRC checked): process its
 * ACK fields, then deliver it (and what it makes in order) to
 * rds_eth_msg_input. Takes m. */
void rds_eth_rel_input(struct rds_eth_conn *ec, struct rte_mbuf *m,
		       const struct rds_eth_frame *f);
/* We cannot go on with the peer's stream (a unit that does not fit, a
 * message the core could not keep): drop what we hold of it and take it
 * no more, so that the peer starts a new one and its RDS retransmits. */
void rds_eth_rel_rx_reset(struct rds_eth_conn *ec);
/* An ACK frame that asks for the peer's ACK at once (FL_ACKREQ): what
 * the timer sends when every frame in flight is SACKed (their buffers are
 * gone: nothing to send again) and the cumulative ACK that lets them go
 * was lost. */
void rds_eth_rel_poke(struct rds_eth_conn *ec);
/* End of a pass: send the ACK frames due. */
void rds_eth_rel_flush_acks(struct rds_engine *e);

/* ------------------------------------------------------------------ */
/* Loss recovery: ACKs of our stream, RTT, probe and RTO (rds_eth_rexmit.c) */

/* The ACK fields of a frame that names our stream: frees what the peer
 * has, measures the round trip, sends again what the peer's SACK says
 * is missing. */
void rds_eth_rexmit_ack_input(struct rds_eth_conn *ec,
			      const struct rds_eth_frame *f);
/* The peer's window, as a frame of its says: a wider one reopens a send
 * queue that waited for it (a window update, a zero window's end). */
static inline void
rds_eth_peer_wnd_set(struct rds_eth_conn *ec, uint32_t wnd)
{
	uint32_t old = ec->peer_wnd;

	ec->peer_wnd = wnd;
	if (unlikely(wnd > old) && ec->c->xmit_blocked)
		rds_conn_xmit_unblock(ec->c);
}
/* Arm the connection's timer for the frames in flight: the tail probe
 * first, the RTO once the probe went out. */
void rds_eth_rexmit_arm(struct rds_eth_conn *ec);
/* The timer (rds_timer callback of rto_timer). */
void rds_eth_rexmit_timer_fire(struct rds_engine *e, struct rds_timer *t);

/* ------------------------------------------------------------------ */
/* Messages over frames (rds_eth_msg.c) */

/* xmit: send message m (fragments). As the ops table's xmit. The frame
 * layer acknowledges it with its last frame (struct
 * rds_eth_sent.rds_seq). xmit_op: m's RDMA request, then -EAGAIN until
 * its answer came (0), as the ops table's xmit_op. */
int rds_eth_msg_xmit(struct rds_eth_conn *ec, struct rds_msg *m);
int rds_eth_msg_xmit_op(struct rds_eth_conn *ec, struct rds_msg *m);
/* A sequenced frame in order: a fragment of an RDS frame, an RDMA
 * request or response. */
void rds_eth_msg_input(struct rds_eth_conn *ec, const struct rds_eth_frame *f);
/* Drop partial units: the sending side's (a new epoch of ours), the
 * receiving side's (a new epoch of the peer's), or both. */
void rds_eth_msg_reset_tx(struct rds_eth_conn *ec);
void rds_eth_msg_reset_rx(struct rds_eth_conn *ec);
void rds_eth_msg_reset(struct rds_eth_conn *ec);
/* The window opened: go on with a pending RDMA response. */
void rds_eth_msg_pump(struct rds_eth_conn *ec);

/* An RDMA operation's progress on eth (rds_rdma_op.tp_flags). */
#define RDS_ETH_OP_SENT 0x1		/* its request went out */
#define RDS_ETH_OP_DONE 0x2		/* its answer came */
#define RDS_ETH_OP_RESEND 0x4		/* the request goes again (a stream
					 * reset may have lost it or its
					 * answer): same id, marked RESEND */

/* A request's fields, host order, while it is reassembled. */
struct rds_eth_rdma_req_h {
	uint32_t op_id;
	uint8_t flags;			/* RDS_ETH_RQ_* */
	uint32_t nonce;
	struct rds_rdma_req rq;
};

/*
 * RDMA request and response headers (in the first fragment).
 *
 * Exactly once across connection resets (not across a restart of the
 * peer): the initiator has one operation in flight per connection, and
 * sends its request again (RESEND, same op_id) when a reset of either
 * stream may have lost the request or the answer. The target keeps the
 * answer to the last op_id until the next request, runs a request whose
 * op_id is that one never again, sends the answer again whole when its
 * own stream starts again before the initiator acknowledged it, and
 * answers a RESEND it has no answer for with RDS_RDMA_DROPPED, not run,
 * unless the request names the target's nonce (a RESEND that names
 * this connection's nonce was sent to it, and an op_id it never
 * answered never ran here; a RESEND naming no nonce or another may
 * have run at an earlier incarnation of the target).
 */
#define RDS_ETH_RQ_RESEND 0x01		/* sent before, in an earlier stream
					 * or before a reset of the peer's */
#define RDS_ETH_RQ_ALL RDS_ETH_RQ_RESEND

struct rds_eth_rdma_req {
	rte_be32_t op_id;		/* random start, +1 per operation */
	uint8_t kind;			/* enum rds_op_kind */
	uint8_t flags;			/* RDS_ETH_RQ_* */
	uint8_t pad[2];
	rte_be64_t cookie;
	rte_be64_t remote_off;
	rte_be32_t bytes;
	rte_be32_t nonce;		/* RESEND: the target's nonce from its
					 * answers (0: none heard) */
	rte_be64_t compare;
	rte_be64_t swap_add;
	rte_be64_t mask1;
	rte_be64_t mask2;
} __rte_packed;

struct rds_eth_rdma_resp {
	rte_be32_t op_id;
	rte_be32_t status;		/* RDS_RDMA_SUCCESS, REMOTE_ERROR, or
					 * DROPPED (a RESEND not run here) */
	rte_be64_t old;			/* atomics */
	rte_be32_t bytes;		/* READ data that follows */
	rte_be32_t nonce;		/* the target connection's */
} __rte_packed;

/* IPv6: neighbour discovery and the receive path of IPv6 frames. */
#include "rds_eth_v6.h"

#endif /* RDS_ETH_H */

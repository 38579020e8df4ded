/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tcp transport: the kernel's rds_tcp wire (net/rds/tcp*.c) over the
 * host's own TCP sockets, driven non-blocking from the engine that owns
 * each connection (an epoll set per engine, no thread).
 *
 * Where it is:
 *   rds_tcp.c       ops table, options, local addresses, engine state,
 *                   the engine poll (epoll, hand-offs, acknowledgements)
 *   rds_tcp_addr.c  socket names of IPv4 and IPv6 addresses, the
 *                   interface of a link-local one
 *   rds_tcp_conn.c  listening, accepting, connecting (the lower address
 *                   connects, the higher one knocks), shutdown
 *   rds_tcp_send.c  xmit: headers and payloads written with sendmsg,
 *                   the unsent tail kept, bytes acknowledged (SIOCOUTQ)
 *                   to messages acknowledged
 *   rds_tcp_recv.c  reading a lane, delivering its frames
 *   rds_tcp_rx.c    the stream's framing (header, then payload): stands
 *                   alone, unit-tested
 *   rds_tcp_info.c  RDS_INFO_TCP_SOCKETS records, counters
 */
#ifndef RDS_TCP_H
#define RDS_TCP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include "rds_driver.h"
#include "rte_rds_tcp.h"

extern int rds_tcp_logtype;
#define TCP_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, rds_tcp_logtype, "rds_tcp: " fmt "\n", \
		##__VA_ARGS__)

#define RDS_TCP_PORT		16385	/* net/rds/tcp.h RDS_TCP_PORT */
/* Keepalive as the kernel's rds_tcp_keepalive: idle 5 s, 5 probes 5 s
 * apart. */
#define RDS_TCP_KEEPIDLE	5
#define RDS_TCP_KEEPCNT		5
/* Messages written and not yet acknowledged by TCP, per lane: past it
 * the connection waits for acknowledgements (window=, at most this). */
#define RDS_TCP_SENT_MAX	4096
/* Messages written in one sendmsg (and held until written). */
#define RDS_TCP_OUT_MAX		64
/* Bytes of an engine pass's writes per lane before flushing early. */
#define RDS_TCP_OUT_BYTES	(256u * 1024)
/* Receive staging per lane; payloads of at least RDS_TCP_DIRECT bytes
 * still to come are read straight into their message. */
#define RDS_TCP_STAGE		16384
#define RDS_TCP_DIRECT		4096
/* Bytes read from one lane in one engine pass (then the others). */
#define RDS_TCP_RX_BUDGET	(512u * 1024)
/* Acknowledgement checks of a lane with bytes in flight: at first every
 * RDS_TCP_ACK_US, backing off to RDS_TCP_ACK_MAX_US while nothing new
 * is acknowledged; and at once on any event of the lane. */
#define RDS_TCP_ACK_US		20
#define RDS_TCP_ACK_MAX_US	10000
/* epoll_wait: every pass within RDS_TCP_HOT_US of the last event,
 * otherwise every RDS_TCP_COLD_US. */
#define RDS_TCP_HOT_US		2000
#define RDS_TCP_COLD_US		50
#define RDS_TCP_EVENTS		64
/* Default of accept_wait_ms: how long the higher address waits for the
 * lower one to connect after knocking. */
#define RDS_TCP_DEF_ACCEPT_WAIT_MS 3000
#define RDS_TCP_HANDOFF		256

/* Per-address options (rte_rds_tcp.h). */
struct rds_tcp_opts {
	uint16_t port;
	uint32_t sndbuf;		/* 0: the kernel's default */
	uint32_t rcvbuf;
	uint32_t accept_wait_ms;
	uint32_t window;		/* messages unacknowledged, at most */
};
int rds_tcp_opts_parse(const char *args, struct rds_tcp_opts *o);

/* What epoll's data points at: the first member of each. */
enum rds_tcp_kind {
	RDS_TCP_K_LISTEN = 1,
	RDS_TCP_K_LANE,
};

struct rds_tcp_laddr {
	uint8_t kind;			/* RDS_TCP_K_LISTEN */
	struct rds_laddr *la;
	struct rds_tcp_opts opts;
	uint32_t scope;			/* a link-local address's interface
					 * index, else 0 */
	int lfd;			/* listening socket, or -1 */
};

static inline struct rds_tcp_laddr *
rds_tcp_laddr(const struct rds_laddr *la)
{
	return la->tp;
}

/* The stream's framing (rds_tcp_rx.c): the 48-byte header, checked as
 * the core checks one, then its payload into a buffer of its own. */
struct rds_tcp_rx {
	uint8_t hdr[RDS_HEADER_SIZE];
	uint32_t hdr_have;
	uint32_t data_have;
	bool in_data;			/* header decoded, payload coming */
	struct rds_hdr_info h;		/* decoded header */
	struct rds_msg *m;		/* its payload (NULL: 0 bytes) */
};

enum {
	RDS_TCP_RX_NEED = 0,		/* all taken, the frame goes on */
	RDS_TCP_RX_FRAME = 1,		/* a frame is whole: rds_tcp_rx_take */
};

void rds_tcp_rx_init(struct rds_tcp_rx *rx);
/* Take what the current frame needs of buf[0..len): *used bytes (set
 * whatever it returns; a header is taken before its payload's buffer).
 * RDS_TCP_RX_NEED, RDS_TCP_RX_FRAME, -EBADMSG with *why (a header that
 * does not decode, a length over 1 MiB: the stream cannot go on) or
 * -ENOMEM (no buffer for the payload: call again later with the rest). */
int rds_tcp_rx_feed(struct rds_tcp_rx *rx, const uint8_t *buf, uint32_t len,
		    uint32_t *used, const char **why);
/* Payload bytes still to come, and where they go (*p), when in the
 * payload of a frame; else 0. */
uint32_t rds_tcp_rx_direct(const struct rds_tcp_rx *rx, uint8_t **p);
/* n bytes were read to where rds_tcp_rx_direct said: RDS_TCP_RX_NEED or
 * RDS_TCP_RX_FRAME. */
int rds_tcp_rx_advance(struct rds_tcp_rx *rx, uint32_t n);
/* The whole frame: its header into *h, its payload returned (the
 * caller's; NULL for 0 bytes); the parser starts the next. */
struct rds_msg *rds_tcp_rx_take(struct rds_tcp_rx *rx,
				struct rds_hdr_info *h);
/* Drop a frame in progress (the stream ended). */
void rds_tcp_rx_reset(struct rds_tcp_rx *rx);
/* Header and payload bytes still to come (RDS_INFO_TCP_SOCKETS). */
void rds_tcp_rx_rem(const struct rds_tcp_rx *rx, uint64_t *hdr_rem,
		    uint64_t *data_rem);

/* A message written, acknowledged when TCP has byte end. */
struct rds_tcp_sent {
	uint64_t end;			/* lane bytes written after it */
	uint64_t seq;
};

/* A message being written: its header and a reference to its payload
 * (so that a cancel or a close that frees the message leaves the
 * bytes still to write). */
struct rds_tcp_out {
	struct rds_msg *ref;		/* rds_msg_alloc_borrow() of it */
	uint64_t seq;
	uint32_t off;			/* bytes of header + payload written */
	bool cong;			/* a congestion map: not sequenced */
	struct rds_header hdr;
};

enum rds_tcp_lane_state {
	RDS_TCP_L_IDLE = 0,		/* no socket */
	RDS_TCP_L_CONNECTING,		/* connect() in progress */
	RDS_TCP_L_KNOCK,		/* the higher address's connect, to be
					 * closed once it is answered */
	RDS_TCP_L_WAIT,			/* knocked: waiting for the peer */
	RDS_TCP_L_UP,
};

struct rds_tcp_conn;

/* One TCP connection of an RDS connection. */
struct rds_tcp_lane {
	uint8_t kind;			/* RDS_TCP_K_LANE */
	uint8_t idx;
	uint8_t st;			/* enum rds_tcp_lane_state */
	bool out_armed;			/* EPOLLOUT asked for */
	bool watched;			/* on the engine's ack list */
	bool had_event;			/* epoll said something this pass */
	int fd;
	struct rds_tcp_conn *tc;
	uint16_t lport, pport;		/* host order, for info */

	/* Sending. */
	uint64_t written;		/* bytes written on this socket */
	uint64_t acked;			/* of them, acknowledged by TCP */
	struct rds_tcp_out out[RDS_TCP_OUT_MAX];
	uint32_t out_head, out_n;	/* ring of messages being written */
	uint32_t out_bytes;		/* queued in out[] */
	struct rds_tcp_sent *sent;	/* ring of sent_max */
	uint32_t sent_head, sent_n, sent_max;
	uint64_t ack_next_tsc;		/* next acknowledgement check */
	uint32_t ack_wait_us;
	TAILQ_ENTRY(rds_tcp_lane) ack_link;
	TAILQ_ENTRY(rds_tcp_lane) flush_link;
	bool flush_queued;

	/* Receiving. */
	struct rds_tcp_rx rx;
	uint8_t *stage;			/* stage_cap bytes, or NULL */
	uint32_t stage_off, stage_len, stage_cap;
	bool rx_garbage;		/* a frame did not decode: what is
					 * left of the stream is dropped */
	bool stage_stale;		/* the staged bytes (and rx) are of a
					 * socket closed since: TCP
					 * acknowledged them, so their whole
					 * frames go first, then the new
					 * socket is read */
};

/* The transport's state of an RDS connection. */
struct rds_tcp_conn {
	struct rds_conn *c;
	struct rds_tcp_laddr *tl;
	bool lower;			/* our address is the lower: we
					 * connect */
	struct rds_timer wait_timer;	/* RDS_TCP_L_WAIT: give up then */
	struct rds_tcp_lane lane;
	/* A whole frame the core could not take (-ENOMEM): TCP has
	 * acknowledged it, so it is kept, across resets too, and offered
	 * again until taken; the lane reads nothing meanwhile. */
	bool stalled;
	bool stall_frame;		/* stall_h, stall_m hold a frame (else
					 * the parser had no buffer) */
	struct rds_hdr_info stall_h;
	struct rds_msg *stall_m;
	TAILQ_ENTRY(rds_tcp_conn) stall_link;
};

TAILQ_HEAD(rds_tcp_lane_list, rds_tcp_lane);
TAILQ_HEAD(rds_tcp_conn_list, rds_tcp_conn);

/* An accepted socket on its way from the listening engine to the
 * owner of its connection. */
struct rds_tcp_handoff {
	int fd;
	struct in6_addr laddr, faddr;
	uint16_t lport, pport;
};

struct rds_tcp_stats {
	uint64_t connects;		/* active connects completed */
	uint64_t connect_fails;
	uint64_t accepts;		/* passive connections taken */
	uint64_t knocks;		/* higher address: connects made to
					 * have the peer connect back */
	uint64_t knocks_answered;	/* lower address: a knock refused and
					 * answered with a connect */
	uint64_t accept_replaced;	/* an accept replaced a live lane */
	uint64_t accept_refused;	/* no such local address, ... */
	uint64_t accept_handoffs;	/* handed to the owner's engine */
	uint64_t accept_waits_expired;
	uint64_t tx_msgs;
	uint64_t tx_bytes;
	uint64_t tx_calls;		/* sendmsg calls */
	uint64_t tx_partial;		/* sendmsg that wrote part */
	uint64_t tx_window_full;	/* RDS_TCP_SENT_MAX reached */
	uint64_t tx_acked_msgs;
	uint64_t ack_checks;		/* SIOCOUTQ calls */
	uint64_t rx_msgs;
	uint64_t rx_bytes;
	uint64_t rx_calls;		/* recv calls */
	uint64_t rx_bad_frames;		/* dropped, connection reset */
	uint64_t rx_stalls;		/* a frame the core could not take */
	uint64_t epoll_waits;
	uint64_t resets;		/* lanes closed on error or EOF */
	uint64_t resets_injected;
};

#define RDS_TCP_NB_XSTATS \
	(sizeof(struct rds_tcp_stats) / sizeof(uint64_t))

struct rds_tcp_engine {
	struct rds_engine *e;
	int epfd;
	unsigned int nb_fds;		/* registered: 0 skips epoll_wait */
	uint64_t next_wait_tsc;
	uint64_t hot_until_tsc;
	uint32_t inject_seen;
	struct rte_ring *handoff;	/* accepted sockets for us */
	struct rds_tcp_lane_list acks;	/* lanes with bytes in flight */
	struct rds_tcp_lane_list flush;	/* lanes with out[] to write */
	struct rds_tcp_conn_list stalls;
	struct rds_tcp_stats stats;
};

extern const struct rds_transport rds_tcp_transport;
extern unsigned int rds_tcp_slot;
extern uint32_t rds_tcp_inject_gen;
extern const char *const rds_tcp_xstat_names[];

static inline struct rds_tcp_engine *
rds_tcp_engine(const struct rds_engine *e)
{
	return e->tp[rds_tcp_slot];
}

/* rds_tcp_addr.c */
struct sockaddr_storage;
bool rds_tcp_sockaddr_addr(const struct sockaddr_storage *ss,
			   struct in6_addr *a, uint16_t *port);
const char *rds_tcp_addr_str(const struct in6_addr *a, char *buf,
			     size_t len);

/* rds_tcp.c */
int rds_tcp_ep_add(struct rds_tcp_engine *te, int fd, uint32_t events,
		   void *obj);
int rds_tcp_ep_mod(struct rds_tcp_engine *te, int fd, uint32_t events,
		   void *obj);
void rds_tcp_ep_del(struct rds_tcp_engine *te, int fd);

/* rds_tcp_conn.c */
int rds_tcp_listen(struct rds_tcp_engine *te);
void rds_tcp_unlisten(void);
void rds_tcp_accept_ready(struct rds_tcp_engine *te, struct rds_tcp_laddr *tl);
void rds_tcp_accept(struct rds_tcp_engine *te, struct rds_tcp_handoff *h);
void rds_tcp_conn_timer_init(struct rds_tcp_conn *tc);
int rds_tcp_conn_connect(struct rds_conn *c);
void rds_tcp_conn_shutdown(struct rds_conn *c);
void rds_tcp_lane_close(struct rds_tcp_lane *l);
void rds_tcp_lane_connected(struct rds_tcp_lane *l);
void rds_tcp_lane_error(struct rds_tcp_lane *l, const char *why, int err);

/* rds_tcp_send.c */
int rds_tcp_xmit(struct rds_conn *c, struct rds_msg *m);
void rds_tcp_flush(struct rds_engine *e);
void rds_tcp_lane_writable(struct rds_tcp_lane *l);
void rds_tcp_lane_acks(struct rds_tcp_lane *l, uint64_t now);
void rds_tcp_lane_tx_reset(struct rds_tcp_lane *l);
unsigned int rds_tcp_ack_poll(struct rds_tcp_engine *te);

/* rds_tcp_recv.c */
unsigned int rds_tcp_lane_read(struct rds_tcp_lane *l);
void rds_tcp_lane_drain(struct rds_tcp_lane *l);
void rds_tcp_lane_settle(struct rds_tcp_lane *l);
unsigned int rds_tcp_stall_poll(struct rds_tcp_engine *te);
void rds_tcp_stall_drop(struct rds_tcp_conn *tc);

/* rds_tcp_info.c */
void rds_tcp_info(struct rds_engine *e, struct rds_info_req *r);
void rds_tcp_xstats(struct rds_engine *e, uint64_t *values);

#endif /* RDS_TCP_H */

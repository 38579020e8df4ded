/* SPDX-License-Identifier: BSD-3-Clause */

/* rds-perf output: text and JSON results, library counters. */

#include <inttypes.h>

#include <rte_lcore.h>

#include <rte_rds_loop.h>
#ifdef RDS_PERF_HAVE_IB
#include <rte_rds_ib.h>
#endif

#include "perf.h"

static void
perf_print_engine_stats(FILE *f)
{
	uint64_t v[RTE_RDS_STATS_NUM];
	struct rte_rds_stats st;
	const char *name;
	unsigned int i;

	if (rte_rds_stats_get(-1, &st) < 0)
		perf_fail("rte_rds_stats_get(-1)");
	memcpy(v, &st, sizeof(v));
	fprintf(f, "engine counters (all engines):\n");
	for (i = 0; i < RTE_RDS_STATS_NUM; i++) {
		name = rte_rds_stats_name(i);
		fprintf(f, "  %-28s %" PRIu64 "\n", name != NULL ? name : "?",
			v[i]);
	}
}

/* Loop transport counters: frames carried, and fault-hook effects. */
static void
perf_print_loop_stats(FILE *f)
{
	struct rte_rds_loop_stats st;

	if (rte_rds_loop_stats_get(&st) < 0)
		perf_fail("rte_rds_loop_stats_get()");
	fprintf(f, "loop transport counters:\n"
		"  %-28s %" PRIu64 "\n  %-28s %" PRIu64 "\n"
		"  %-28s %" PRIu64 "\n  %-28s %" PRIu64 "\n",
		"frames", st.frames, "dropped", st.dropped,
		"flushed", st.flushed, "resets", st.resets);
}

#ifdef RDS_PERF_HAVE_IB
/* ib transport counters. */
static void
perf_print_ib_stats(FILE *f)
{
	struct rte_rds_ib_stats st;

	if (rte_rds_ib_stats_get(&st) < 0)
		perf_fail("rte_rds_ib_stats_get()");
	fprintf(f, "ib transport counters:\n");
#define PERF_IB_STAT(x) fprintf(f, "  %-28s %" PRIu64 "\n", #x, st.x)
	PERF_IB_STAT(connects_active);
	PERF_IB_STAT(connects_passive);
	PERF_IB_STAT(connect_raced);
	PERF_IB_STAT(listen_closed_stale);
	PERF_IB_STAT(rejects_incompat);
	PERF_IB_STAT(cm_errors);
	PERF_IB_STAT(tx_frames);
	PERF_IB_STAT(tx_ring_full);
	PERF_IB_STAT(rx_frames);
	PERF_IB_STAT(rx_frag_mismatch);
	PERF_IB_STAT(qp_errors);
	PERF_IB_STAT(qp_errors_injected);
	PERF_IB_STAT(rx_post_calls);
	PERF_IB_STAT(tx_post_calls);
	PERF_IB_STAT(tx_wrs_posted);
	PERF_IB_STAT(tx_acks);
	PERF_IB_STAT(tx_acks_piggybacked);
	PERF_IB_STAT(tx_acks_limited);
	PERF_IB_STAT(tx_zc_frames);
	PERF_IB_STAT(tx_zc_bytes);
	PERF_IB_STAT(tx_zc_released);
	PERF_IB_STAT(tx_zc_regs);
#undef PERF_IB_STAT
}
#endif

/* Library counters: the engines', and the transport's. */
void
perf_print_stats(const struct perf_opts *o, FILE *f)
{
	perf_print_engine_stats(f);
	if (o->transport == PERF_TRANSPORT_LOOP)
		perf_print_loop_stats(f);
#ifdef RDS_PERF_HAVE_IB
	if (o->transport == PERF_TRANSPORT_IB)
		perf_print_ib_stats(f);
#endif
	if (o->transport == PERF_TRANSPORT_ETH)
		perf_eth_print_stats(f, true);
}

/* The engine's name; "none" with --raw (no RDS). */
static const char *
perf_engine_str(const struct perf_opts *o)
{
	if (o->attach != NULL)
		return "rds-engined";
	return o->raw ? "none" : perf_engine_name(o->engine);
}

/* eth: the ethdev, and --raw or the faults. */
static void
perf_print_port(const struct perf_opts *o)
{
	const struct rte_rds_eth_faults *f = &o->faults;
	char b[128];

	if (o->transport != PERF_TRANSPORT_ETH)
		return;
	printf("port:         %s\n", perf_eth_port_str(o, b, sizeof(b)));
	if (o->raw)
		printf("raw:          no RDS: plain Ethernet/IPv4/UDP frames (the floor)\n");
	if (o->faults_set)
		printf("faults:       on frames received, ppm: drop %u, dup %u, reorder %u, corrupt %u, delay %u\n",
		       f->drop_ppm, f->dup_ppm, f->reorder_ppm, f->corrupt_ppm,
		       f->delay_ppm);
}

/* JSON keys of eth, after "transport": the PMD, --raw, the faults. */
static void
perf_print_json_eth(const struct perf_ctx *ctx)
{
	const struct perf_opts *o = ctx->o;

	if (o->transport != PERF_TRANSPORT_ETH)
		return;
	printf(",\"pmd\":\"%s\",\"raw\":%s,\"drop_ppm\":%u",
	       ctx->eth_pmd, o->raw ? "true" : "false",
	       o->faults_set ? o->faults.drop_ppm : 0);
}

/* JSON keys of --raw, before the floors'. */
static void
perf_print_json_raw(const struct perf_ctx *ctx)
{
	if (!ctx->o->raw)
		return;
	printf(",\"raw_lost_msgs\":%" PRIu64, ctx->raw_lost);
	if (perf_is_stream(ctx->o->mode))
		printf(",\"raw_frame_mb_per_s\":%.3f", ctx->raw_frame_mb_per_s);
}

/* stream: the receiver's count and rates, then the sender's. */
static void
perf_print_stream(const struct perf_ctx *ctx, const struct perf_result *r)
{
	const bool by_server = ctx->srv < 0;	/* ib client */

	printf("duration:     %.3f s (after a %u ms warm-up; the receiver's window%s)\n",
	       r->secs, PERF_WARMUP_MS,
	       by_server ? ", measured by the server" : "");
	printf("msgs:         %" PRIu64 " received\n", r->msgs);
	printf("msgs/s:       %.1f (received/s)\n", r->msgs_per_s);
	printf("MB/s:         %.3f (payload received, one way, 10^6 B/s)\n",
	       r->mb_per_s);
	printf("sent:         %" PRIu64 " msgs in %.3f s: %.1f msgs/s, %.3f MB/s (the sender's window)\n",
	       r->sent_msgs, r->sent_secs, r->sent_msgs_per_s,
	       r->sent_mb_per_s);
	printf("push-back:    EAGAIN %" PRIu64 ", ENOBUFS %" PRIu64 "\n",
	       ctx->eagain, ctx->enobufs);
	printf("errors:       %" PRIu64 "\n", ctx->errors);
}

void
perf_print_result(const struct perf_ctx *ctx, const struct perf_result *r)
{
	const struct perf_opts *o = ctx->o;
	char a[32], b[32];

	printf("transport:    %s (client %s, server %s)\n",
	       perf_transport_name(o->transport),
	       perf_sin_str(&ctx->cli_name, a, sizeof(a)),
	       perf_sin_str(&ctx->srv_name, b, sizeof(b)));
	perf_print_port(o);
	printf("engine:       %s\n", perf_engine_str(o));
	if (o->tasks > 1)
		printf("tasks:        %u socket pairs on %u threads (msgs/s and MB/s summed, RTTs merged)\n",
		       o->tasks, o->tasks);
	static const char * const what[] = {
		[PERF_MODE_LAT] = "one request in flight, echoed",
		[PERF_MODE_BW] = "requests in flight up to depth, 0-byte replies",
		[PERF_MODE_RDMA_READ] = "the server's reply carries an RDMA READ of size bytes from the client's region",
		[PERF_MODE_RDMA_WRITE] = "the server's reply carries an RDMA WRITE of size bytes into the client's region",
		[PERF_MODE_STREAM] = "one-way messages, no replies; counted at the receiver",
	};
	const bool rdma = perf_is_rdma(o->mode);
	const bool stream = perf_is_stream(o->mode);

	printf("mode:         %s (%s)\n", perf_mode_name(o->mode),
	       what[o->mode]);
	if (rdma)
		printf("size:         %u bytes (RDMA payload; %u-byte requests, %u-byte replies)\n",
		       o->size, PERF_RDMA_REQ_LEN, PERF_RDMA_REPLY_LEN);
	else
		printf("size:         %u bytes\n", o->size);
	printf("depth:        %u%s\n", ctx->window,
	       stream ? " (sizes the socket buffers; no window)" : "");
	if (rdma) {
		printf("rdma:         region %zu bytes (%u slots of %u), cookie 0x%016" PRIx64 "; NOTIFY_ME %s\n",
		       (size_t)ctx->slots * o->size, ctx->slots, o->size,
		       ctx->cookie,
		       o->mode == PERF_MODE_RDMA_READ ? "on every op" :
		       "on op 0 and every 1024th (RDS_RECVERR on)");
		if (o->mode == PERF_MODE_RDMA_WRITE)
			printf("checks:       client region after %" PRIu64 " ops (%" PRIu64 " whole payloads)\n",
			       ctx->rdma_checked, ctx->rdma_full_checked);
		else if (ctx->srv >= 0)
			printf("checks:       server buffer after %" PRIu64 " ops (%" PRIu64 " whole payloads)\n",
			       ctx->srv_checked, ctx->srv_full_checked);
		else
			printf("checks:       by the server (see its output)\n");
		if (ctx->srv >= 0)
			printf("notifications: %" PRIu64 " received, %" PRIu64 " failed\n",
			       ctx->notif_got, ctx->notif_failed);
	}
	if (stream) {
		perf_print_stream(ctx, r);
		return;
	}
	printf("duration:     %.3f s (after a %u ms warm-up)\n", r->secs,
	       PERF_WARMUP_MS);
	printf("msgs:         %" PRIu64 " round trips\n", r->msgs);
	printf("msgs/s:       %.1f%s\n", r->msgs_per_s,
	       o->mode == PERF_MODE_LAT ? " (round trips/s)" : "");
	printf("MB/s:         %.3f (%s payload, one way, 10^6 B/s)\n",
	       r->mb_per_s, rdma ? "RDMA" : "request");
	printf("rtt p50:      %" PRIu64 " ns\n", r->p50);
	printf("rtt p90:      %" PRIu64 " ns\n", r->p90);
	printf("rtt p99:      %" PRIu64 " ns\n", r->p99);
	printf("rtt p99.9:    %" PRIu64 " ns\n", r->p999);
	printf("rtt max:      %" PRIu64 " ns\n", r->max);
	printf("rtt samples:  %zu (one round trip in %u)\n", ctx->rtt.n,
	       ctx->rtt.stride);
	printf("push-back:    EAGAIN %" PRIu64 ", ENOBUFS %" PRIu64 "\n",
	       ctx->eagain, ctx->enobufs);
	printf("errors:       %" PRIu64 "\n", ctx->errors);
}

/* ib server: what it saw (stream: its count and rates). */
void
perf_print_server(const struct perf_ctx *ctx, const struct perf_result *r)
{
	const struct perf_opts *o = ctx->o;
	char a[32], b[32];

	printf("transport:    %s (server %s, client %s)\n",
	       perf_transport_name(o->transport),
	       perf_sin_str(&ctx->srv_name, a, sizeof(a)),
	       perf_sin_str(&ctx->cli_name, b, sizeof(b)));
	perf_print_port(o);
	printf("role:         server (mode, size and depth from the client)\n");
	printf("engine:       %s\n", perf_engine_str(o));
	printf("mode:         %s\n", perf_mode_name(o->mode));
	printf("size:         %u bytes\n", o->size);
	printf("depth:        %u\n", ctx->window);
	printf("requests:     %" PRIu64 " received\n", ctx->srv_rx);
	printf("replies:      %" PRIu64 " sent\n", ctx->srv_tx);
	if (perf_is_stream(o->mode)) {
		printf("duration:     %.3f s (after a %u ms warm-up from the first message)\n",
		       r->secs, PERF_WARMUP_MS);
		printf("msgs:         %" PRIu64 " received in the measured window\n",
		       r->msgs);
		printf("msgs/s:       %.1f (received/s)\n", r->msgs_per_s);
		printf("MB/s:         %.3f (payload received, one way, 10^6 B/s)\n",
		       r->mb_per_s);
	}
	if (perf_is_rdma(o->mode)) {
		printf("rdma:         client's cookie 0x%016" PRIx64 ", %u slots; NOTIFY_ME %s\n",
		       ctx->peer_cookie, ctx->slots,
		       o->mode == PERF_MODE_RDMA_READ ? "on every op" :
		       "on op 0 and every 1024th (RDS_RECVERR on)");
		printf("notifications: %" PRIu64 " received, %" PRIu64 " failed, %" PRIu64 " still due\n",
		       ctx->notif_got, ctx->notif_failed, ctx->notif_pending);
		if (o->mode == PERF_MODE_RDMA_READ)
			printf("checks:       server buffer after %" PRIu64 " ops (%" PRIu64 " whole payloads)\n",
			       ctx->srv_checked, ctx->srv_full_checked);
	}
	printf("push-back:    EAGAIN %" PRIu64 ", ENOBUFS %" PRIu64 "\n",
	       ctx->eagain, ctx->enobufs);
	printf("errors:       %" PRIu64 "\n", ctx->errors);
}

/* JSON keys of the floors measured (--raw-ring-pp), after the others. */
static void
perf_print_json_floors(const struct perf_floors *f)
{
	if (f->pp)
		printf(",\"raw_ring_pp_rtt_ns_p50\":%" PRIu64
		       ",\"raw_ring_pp_rtt_ns_p99\":%" PRIu64
		       ",\"raw_ring_pp_floor_ns_p50\":%" PRIu64
		       ",\"raw_ring_pp_floor_ns_p99\":%" PRIu64,
		       f->pp_p50, f->pp_p99,
		       f->pp_p50 * PERF_PP_CROSSINGS_LAT_LCORE / PERF_PP_CROSSINGS,
		       f->pp_p99 * PERF_PP_CROSSINGS_LAT_LCORE / PERF_PP_CROSSINGS);
}

void
perf_print_server_json(const struct perf_ctx *ctx, const struct perf_result *r,
		       const struct perf_floors *f)
{
	const struct perf_opts *o = ctx->o;

	printf("{\"transport\":\"%s\"", perf_transport_name(o->transport));
	perf_print_json_eth(ctx);
	printf(",\"role\":\"server\",\"mode\":\"%s\","
	       "\"size\":%u,\"requests\":%" PRIu64 ",\"replies\":%" PRIu64 ","
	       "\"errors\":%" PRIu64 ",\"engine\":\"%s\",\"depth\":%u",
	       perf_mode_name(o->mode),
	       o->size, ctx->srv_rx, ctx->srv_tx, ctx->errors,
	       perf_engine_str(o), ctx->window);
	if (perf_is_rdma(o->mode))
		printf(",\"notifications\":%" PRIu64 ",\"notify_failed\":%" PRIu64,
		       ctx->notif_got, ctx->notif_failed);
	if (perf_is_stream(o->mode))
		printf(",\"msgs\":%" PRIu64 ",\"msgs_per_s\":%.1f,\"mb_per_s\":%.3f",
		       r->msgs, r->msgs_per_s, r->mb_per_s);
	perf_print_json_raw(ctx);
	perf_print_json_floors(f);
	printf("}\n");
}

void
perf_print_json(const struct perf_ctx *ctx, const struct perf_result *r,
		const struct perf_floors *f)
{
	const struct perf_opts *o = ctx->o;

	/* stream: msgs and rates are the receiver's; no RTT. */
	printf("{\"transport\":\"%s\"", perf_transport_name(o->transport));
	perf_print_json_eth(ctx);
	printf(",\"mode\":\"%s\",\"size\":%u,"
	       "\"msgs\":%" PRIu64 ",\"msgs_per_s\":%.1f,\"mb_per_s\":%.3f,",
	       perf_mode_name(o->mode),
	       o->size, r->msgs, r->msgs_per_s, r->mb_per_s);
	if (r->one_way)
		printf("\"sent_msgs\":%" PRIu64 ",\"sent_msgs_per_s\":%.1f,"
		       "\"sent_mb_per_s\":%.3f,",
		       r->sent_msgs, r->sent_msgs_per_s, r->sent_mb_per_s);
	else
		printf("\"rtt_ns_p50\":%" PRIu64 ",\"rtt_ns_p90\":%" PRIu64 ","
		       "\"rtt_ns_p99\":%" PRIu64 ","
		       "\"rtt_ns_p999\":%" PRIu64 ",\"rtt_ns_max\":%" PRIu64 ",",
		       r->p50, r->p90, r->p99, r->p999, r->max);
	printf("\"engine\":\"%s\",\"depth\":%u,\"errors\":%" PRIu64,
	       perf_engine_str(o), ctx->window, ctx->errors);
	if (o->attach != NULL)
		printf(",\"attach\":true,\"attach_ms\":%.3f", ctx->attach_ms);
	if (o->tasks > 1)
		printf(",\"tasks\":%u", o->tasks);
	perf_print_json_raw(ctx);
	perf_print_json_floors(f);
	printf("}\n");
}

/* --verbose, before the run: where the engine runs, the TSC, the socket
 * buffers. */
void
perf_print_setup(const struct perf_ctx *ctx, const struct rte_rds_conf *conf)
{
	int v = 0;
	socklen_t len = sizeof(v);
	int s = ctx->cli >= 0 ? ctx->cli : ctx->srv;

	if (rte_rds_getsockopt(s, SOL_SOCKET, SO_SNDBUF, &v,
			       &len) < 0)
		perf_fail("rte_rds_getsockopt(SO_SNDBUF)");
	if (ctx->inline_engine)
		printf("rds-perf: engine inline (polled by lcore %u)\n",
		       rte_lcore_id());
	else
		printf("rds-perf: engine on lcore %u, application on lcore %u\n",
		       conf->engine[0].lcore_id, rte_lcore_id());
	printf("rds-perf: TSC %" PRIu64 " Hz, SO_SNDBUF/SO_RCVBUF set to %d (getsockopt: %d)\n",
	       rte_get_tsc_hz(), perf_sock_buf(ctx->o), v);
}

/* The floors' lines (perf_raw.c), each labelled as not RDS. */
void
perf_print_floors(const struct perf_floors *f)
{
	const unsigned int k = PERF_PP_CROSSINGS_LAT_LCORE;
	const unsigned int c = PERF_PP_CROSSINGS;

	if (f->ring)
		printf("raw ring floor (not RDS: plain rte_ring SP/SC, burst %u, %u-byte messages, one thread): %.2f Mops/s (%.2f ns/msg)%s\n",
		       PERF_BURST, PERF_RAW_MSG_SIZE, f->ring_rate / 1e6,
		       f->ring_rate > 0 ? 1e9 / f->ring_rate : 0.0,
		       f->ring_errors != 0 ? " ERRORS" : "");
	if (!f->pp)
		return;
	printf("raw ring ping-pong RTT (not RDS: lcores %u and %u busy-polling, one SP/SC rte_ring each way, one %u-byte object; %u core crossings a round trip): p50 %" PRIu64 " ns, p99 %" PRIu64 " ns, p99.9 %" PRIu64 " ns, max %" PRIu64 " ns (%" PRIu64 " round trips, %zu samples)%s\n",
	       f->pp_lcore[0], f->pp_lcore[1], PERF_PP_OBJ_SIZE, c,
	       f->pp_p50, f->pp_p99, f->pp_p999, f->pp_max, f->pp_rtts,
	       f->pp_samples, f->pp_errors != 0 ? " ERRORS" : "");
	printf("raw ring ping-pong floor of --mode lat --engine lcore over loop (%u core crossings a round trip: app -> engine -> app -> engine -> app; RTT x %u/%u): p50 %" PRIu64 " ns, p99 %" PRIu64 " ns\n",
	       k, k, c, f->pp_p50 * k / c, f->pp_p99 * k / c);
}

/*
 * --rds-stress-columns: the run as rds-stress prints it (its summary
 * columns), so that figures compare with the kernel's tool directly:
 * tsks (tasks), tx/s (requests sent a second), rx/s (replies received a
 * second; stream: messages the receiver took), tx+rx K/s (the payload
 * bytes of both, KiB a second), mbi K/s and mbo K/s (RDMA bytes into and
 * out of the client's memory: rdma-write and rdma-read), tx us/c (mean
 * time in a send call), rtt us (mean round trip), cpu % (the process's
 * CPU time over the window, every thread: an lcore engine busy-polling
 * in this process counts 100 %).
 */
void
perf_print_stress_columns(const struct perf_ctx *ctx,
			  const struct perf_result *r)
{
	const struct perf_opts *o = ctx->o;
	const double size = (double)o->size;
	double tx, rx, bytes, mbi = 0, mbo = 0;

	if (r->one_way) {
		tx = r->sent_msgs_per_s;
		rx = r->msgs_per_s;
		bytes = (tx + rx) * size;
	} else if (perf_is_rdma(o->mode)) {
		tx = rx = r->msgs_per_s;
		bytes = (tx + rx) * PERF_RDMA_REPLY_LEN;
		if (o->mode == PERF_MODE_RDMA_WRITE)
			mbi = rx * size;
		else
			mbo = rx * size;
	} else {
		tx = rx = r->msgs_per_s;
		bytes = tx * size + (o->mode == PERF_MODE_LAT ? rx * size : 0);
	}
	printf("%4s %6s %6s %10s %10s %10s %7s %8s %5s\n", "tsks", "tx/s",
	       "rx/s", "tx+rx K/s", "mbi K/s", "mbo K/s", "tx us/c",
	       "rtt us", "cpu %");
	printf("%4u %6.0f %6.0f %10.2f %10.2f %10.2f %7.2f %8.2f %5.2f\n",
	       o->tasks, tx, rx, bytes / 1024.0, mbi / 1024.0, mbo / 1024.0,
	       r->send_us, r->rtt_mean_ns / 1000.0, r->cpu_pct);
}

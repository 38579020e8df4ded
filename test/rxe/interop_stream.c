/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fan-in of the interop suite (k2l, l2k): one stream to a receiver
 * (interop_stream_send()), several into one socket (interop_stream_recv()),
 * and the account of a stream message that is not the one expected.
 */

#include "interop_proto.h"

/* One stream to a fan-in receiver. Returns 0 on success, 1 on failure. */
int
interop_stream_send(const struct interop_fanin_args *a,
		    const struct interop_ops *ops)
{
	const char *nm = a->name;
	unsigned int d = INTEROP_STREAM_DIR(a->stream);
	uint8_t *buf, *rxbuf, want[INTEROP_DONE_SIZE], go[INTEROP_DONE_SIZE];
	struct interop_sha sha;
	uint32_t next = 0, size = 0, n = a->n;
	uint64_t bytes = 0;
	struct interop_backoff bo = { 0, 0, 0 };
	bool ready = false, done = false, ok = true, started = false;
	double t0 = interop_now(), t_note = t0, t_sent = 0, t;
	long q = -1, u = -1;
	char peer_s[80], label[24];

	interop_addr_str(&a->peer, peer_s, sizeof(peer_s));
	snprintf(label, sizeof(label), "stream %u: ", a->stream);
	buf = malloc(INTEROP_MAX_SIZE);
	rxbuf = malloc(INTEROP_MAX_SIZE + 64);
	if (buf == NULL || rxbuf == NULL || interop_sha_init(&sha) != 0) {
		printf("%s: FAIL: out of memory\n", nm);
		free(buf);
		free(rxbuf);
		return 1;
	}
	interop_fill(INTEROP_DONE_DIR(a->stream), n, want, sizeof(want));
	interop_fill(INTEROP_GO_DIR(a->stream), 0, go, sizeof(go));
	printf("%s: stream %u to %s: %u messages once its go is in, timeout "
	       "%.0f s\n", nm,
	       a->stream, peer_s, n, a->timeout_s);
	while (!done) {
		int work = 0;

		if (ops->pump != NULL)
			ops->pump(ops->ctx);
		t = interop_now();
		if (t - t0 > a->timeout_s) {
			if (ops->unacked == NULL ||
			    ops->unacked(ops->ctx, &a->peer, &q, &u) != 0)
				q = u = -1;
			printf("%s: FAIL: stream %u: timeout after %.1f s: %s"
			       "sent %u/%u, no done from %s; our stack holds "
			       "%ld queued and %ld sent but unacknowledged "
			       "(last send error: %s)\n", nm, a->stream, t - t0,
			       started ? "" : "no go from the receiver; ", next,
			       n, peer_s, q, u,
			       bo.last_err ? strerror(bo.last_err) : "none");
			ok = false;
			break;
		}
		while (started && next < n) {
			int sent;

			if (!ready) {
				size = interop_stream_size(a->stream, next, n);
				interop_fill(d, next, buf, size);
				ready = true;
			}
			sent = interop_try_send(nm, label, ops, &a->peer, buf,
						size, next, t - t0, &bo);
			if (sent < 0) {
				ok = false;
				goto out;
			}
			if (sent > 0)
				break;
			interop_sha_msg(&sha, buf, size);
			bytes += size;
			ready = false;
			work++;
			if (++next == n)
				t_sent = interop_now();
			if (ops->on_msg != NULL)
				ops->on_msg(ops->ctx, next);
		}
		for (;;) {
			union interop_addr from;
			bool trunc;
			long r;

			/* not into buf: it may hold a message to send */
			r = interop_recv_one(nm, ops, rxbuf, &from, &trunc);
			if (r == INTEROP_RECV_NONE)
				break;
			if (r < 0) {
				ok = false;
				goto out;
			}
			work++;
			if (interop_same_addr(&from, &a->peer) && !trunc &&
			    r == INTEROP_DONE_SIZE &&
			    memcmp(rxbuf, go, sizeof(go)) == 0) {
				if (!started)
					printf("%s: stream %u: go after %.1f "
					       "s\n", nm, a->stream,
					       interop_now() - t0);
				started = true;
				continue;
			}
			if (!interop_same_addr(&from, &a->peer) || trunc ||
			    r != INTEROP_DONE_SIZE || next < n ||
			    memcmp(rxbuf, want, sizeof(want)) != 0) {
				char f[80];

				printf("%s: FAIL: stream %u: unexpected message "
				       "(%ld bytes) from %s after %u sent\n",
				       nm, a->stream, r,
				       interop_addr_str(&from, f, sizeof(f)),
				       next);
				ok = false;
				goto out;
			}
			done = true;
		}
		t = interop_now();
		if (!done && t - t_note >= 10.0) {
			if (next < n || ops->unacked == NULL ||
			    ops->unacked(ops->ctx, &a->peer, &q, &u) != 0)
				q = u = -1;
			printf("%s: %.1f s: stream %u: sent %u/%u", nm, t - t0,
			       a->stream, next, n);
			if (q >= 0)
				printf(", waiting for the done: %ld queued, "
				       "%ld unacknowledged", q, u);
			printf("\n");
			fflush(stdout);
			t_note = t;
		}
		if (work == 0)
			ops->wait(ops->ctx, 5, bo.last_err == EAGAIN && next < n);
	}
	if (ok) {
		t = interop_now();
		printf("%s: stream %u: %u messages (%" PRIu64 " bytes) sent in "
		       "%.1f s, done from the receiver after %.1f s, %" PRIu64
		       " send retries (%.2f MB/s)\n", nm, a->stream, n, bytes,
		       t_sent - t0, t - t0, bo.retries,
		       t > t0 ? (double)bytes / (t - t0) / 1e6 : 0.0);
	}
	/* Messages still held here after the receiver had them all are
	 * normal for a moment (the ACK of the last ones may still come). */
	if (ok && ops->unacked != NULL) {
		double t1 = interop_now();

		while (ops->unacked(ops->ctx, &a->peer, &q, &u) == 0 &&
		       (q != 0 || u != 0) && interop_now() - t1 < 10.0) {
			if (ops->pump != NULL)
				ops->pump(ops->ctx);
			ops->wait(ops->ctx, 20, false);
		}
		printf("%s: stream %u: at the end: %ld of our messages still "
		       "queued, %ld sent and not yet acknowledged\n", nm,
		       a->stream, q, u);
	}
	if (ok && a->linger_s > 0)
		interop_linger(ops, a->linger_s);
out:
	printf("%s: stream %u tx sha256 %s (%u messages, %" PRIu64
	       " bytes)\n", nm, a->stream, interop_sha_final(&sha), next,
	       bytes);
	printf("%s: %s\n", nm, ok ? "PASS" : "FAIL");
	fflush(stdout);
	free(buf);
	free(rxbuf);
	return ok ? 0 : 1;
}

/* Where a wrong 4 KiB fragment came from: a fragment of a nearby message
 * of any stream (k streams), or nothing known. */
void
interop_frag_origin(const char *nm, const uint8_t *frag, uint32_t len,
		    unsigned int k, uint32_t near, uint32_t n)
{
	uint8_t *w = malloc(INTEROP_MAX_SIZE);
	uint32_t i, lo = near > 16 ? near - 16 : 0, z = 0, f;
	unsigned int j;

	while (z < len && frag[z] == 0)
		z++;
	if (z == len) {
		printf("%s:   it is all zeros\n", nm);
		free(w);
		return;
	}
	for (j = 0; w != NULL && j < k; j++) {
		for (i = lo; i < n && i <= near + 16; i++) {
			uint32_t sz = interop_stream_size(j, i, n);

			interop_fill(INTEROP_STREAM_DIR(j), i, w, sz);
			for (f = 0; f * 4096 < sz; f++) {
				uint32_t fl = INTEROP_MIN(sz - f * 4096, 4096);

				if (fl >= len &&
				    memcmp(w + f * 4096, frag, len) == 0) {
					printf("%s:   it is fragment %u of "
					       "message %u of stream %u\n", nm,
					       f, i, j);
					free(w);
					return;
				}
			}
		}
	}
	printf("%s:   it matches no fragment of messages %u..%u of any "
	       "stream\n", nm, lo, near + 16);
	free(w);
}

/* Explain a message that is not the one expected of stream j (of k). */
void
interop_stream_mismatch(const char *nm, unsigned int j, unsigned int k,
			const char *who, uint32_t next, uint32_t n,
			const uint8_t *got, long r, bool trunc,
			const uint8_t *want, uint32_t wsz)
{
	unsigned int d = INTEROP_STREAM_DIR(j);
	uint64_t idx = UINT64_MAX;
	uint32_t b = 0, f, bad = 0, first_bad = UINT32_MAX;
	char label[112];

	if (r >= 8)
		memcpy(&idx, got, 8);
	if (!trunc && idx > next && idx < n &&
	    (uint32_t)r == interop_stream_size(j, (uint32_t)idx, n)) {
		uint8_t *w = malloc((size_t)r + 1);

		if (w != NULL) {
			interop_fill(d, (uint32_t)idx, w, (uint32_t)r);
			if (memcmp(w, got, (size_t)r) == 0) {
				printf("%s: FAIL: stream %u (%s): messages %u.."
				       "%" PRIu64 " never arrived: message %"
				       PRIu64 " came in their place (%" PRIu64
				       " lost)\n", nm, j, who, next, idx - 1,
				       idx, idx - next);
				free(w);
				return;
			}
			free(w);
		}
	}
	snprintf(label, sizeof(label), "stream %u (%s): ", j, who);
	if (!interop_explain(nm, label, next, got, r, trunc, want, wsz))
		return;
	/* Which 4 KiB fragments (the wire's unit) are wrong, and what they
	 * hold instead. */
	for (f = 0; f * 4096 < wsz; f++) {
		uint32_t fl = INTEROP_MIN(wsz - f * 4096, 4096);

		if (memcmp(got + f * 4096, want + f * 4096, fl) != 0) {
			if (first_bad == UINT32_MAX)
				first_bad = f;
			bad++;
		}
	}
	printf("%s:   %u of its %u fragments differ, the first is fragment "
	       "%u; its first bytes:", nm, bad, (wsz + 4095) / 4096,
	       first_bad);
	for (b = 0; b < 16 && first_bad * 4096 + b < wsz; b++)
		printf(" %02x", got[first_bad * 4096 + b]);
	printf("\n");
	interop_frag_origin(nm, got + first_bad * 4096,
			    INTEROP_MIN(wsz - first_bad * 4096, 4096), k, next, n);
}

/* A receiver's control message to the sender of a stream (its go or its
 * done: direction dir, index idx; what names it in the log): 0 when it
 * went out, 1 when to try again later, -1 on a failure (printed). */
static int
interop_control(const char *nm, const char *what,
		const struct interop_ops *ops, const union interop_addr *to,
		const char *who, unsigned int dir, uint32_t idx)
{
	uint8_t buf[INTEROP_DONE_SIZE];
	int err;

	interop_fill(dir, idx, buf, sizeof(buf));
	err = ops->send(ops->ctx, to, buf, sizeof(buf));
	if (err == 0)
		return 0;
	if (!interop_retryable(err)) {
		printf("%s: FAIL: %s to %s: %s\n", nm, what, who,
		       strerror(err));
		return -1;
	}
	return 1;
}

/* The fan-in receiver: nb_senders streams into our one socket. Returns 0
 * when every stream arrived whole, intact and in order, 1 otherwise. */
int
interop_stream_recv(const struct interop_fanin_args *a,
		    const struct interop_ops *ops)
{
	struct {
		uint32_t next;
		uint64_t bytes;
		bool done_sent;
		double t_go;		/* last go sent, 0: none yet */
		double t_last;
		struct interop_sha sha;
		char who[80];
	} st[INTEROP_MAX_STREAMS];
	const char *nm = a->name;
	unsigned int k = a->nb_senders, j, nb_done = 0;
	uint32_t n = a->n;
	uint8_t *rxbuf, *want;
	double t0 = interop_now(), t_note = t0, t_first = 0, t;
	uint64_t total = 0;
	bool ok = true;

	rxbuf = malloc(INTEROP_MAX_SIZE + 64);
	want = malloc(INTEROP_MAX_SIZE);
	if (k == 0 || k > INTEROP_MAX_STREAMS || rxbuf == NULL ||
	    want == NULL) {
		printf("%s: FAIL: bad set-up or out of memory\n", nm);
		free(rxbuf);
		free(want);
		return 1;
	}
	for (j = 0; j < k; j++) {
		st[j].next = 0;
		st[j].bytes = 0;
		st[j].done_sent = false;
		st[j].t_go = 0;
		st[j].t_last = 0;
		interop_addr_str(&a->senders[j], st[j].who, sizeof(st[j].who));
		if (interop_sha_init(&st[j].sha) != 0) {
			printf("%s: FAIL: out of memory\n", nm);
			return 1;
		}
	}
	printf("%s: fan-in of %u streams of %u messages into one socket, "
	       "timeout %.0f s\n", nm, k, n, a->timeout_s);
	fflush(stdout);
	while (nb_done < k) {
		int work = 0;

		if (ops->pump != NULL)
			ops->pump(ops->ctx);
		t = interop_now();
		if (t - t0 > a->timeout_s) {
			printf("%s: FAIL: timeout after %.1f s:", nm, t - t0);
			for (j = 0; j < k; j++)
				printf(" stream %u (%s) %u/%u", j, st[j].who,
				       st[j].next, n);
			printf("\n");
			ok = false;
			break;
		}
		for (;;) {
			union interop_addr from;
			bool trunc;
			uint32_t wsz;
			long r;

			r = interop_recv_one(nm, ops, rxbuf, &from, &trunc);
			if (r == INTEROP_RECV_NONE)
				break;
			if (r < 0) {
				ok = false;
				goto out;
			}
			work++;
			for (j = 0; j < k; j++)
				if (interop_same_addr(&from, &a->senders[j]))
					break;
			if (j == k || st[j].next >= n) {
				char f[80];

				printf("%s: FAIL: %s message (%ld bytes) from "
				       "%s\n", nm, j == k ? "unexpected" :
				       "extra", r,
				       interop_addr_str(&from, f, sizeof(f)));
				ok = false;
				goto out;
			}
			wsz = interop_stream_size(j, st[j].next, n);
			interop_fill(INTEROP_STREAM_DIR(j), st[j].next, want,
				     wsz);
			if (trunc || (uint32_t)r != wsz ||
			    memcmp(rxbuf, want, wsz) != 0) {
				interop_stream_mismatch(nm, j, k, st[j].who,
							st[j].next, n, rxbuf, r,
							trunc, want, wsz);
				ok = false;
				goto out;
			}
			if (t_first == 0)
				t_first = interop_now();
			if (a->pause_ms != 0 && a->pause_every != 0 &&
			    (st[j].next + 1) % a->pause_every == 0) {
				struct timespec ts = {
					.tv_sec = a->pause_ms / 1000,
					.tv_nsec = (long)(a->pause_ms % 1000) *
						   1000000L };

				nanosleep(&ts, NULL);
			}
			interop_sha_msg(&st[j].sha, rxbuf, wsz);
			st[j].bytes += wsz;
			total += wsz;
			if (++st[j].next == n)
				st[j].t_last = interop_now();
			if (ops->on_msg != NULL) {
				uint64_t all = 0;
				unsigned int q;

				for (q = 0; q < k; q++)
					all += st[q].next;
				ops->on_msg(ops->ctx, all);
			}
			/* An inline engine runs only when driven: checking a
			 * backlog of large messages must not starve it. */
			if (ops->pump != NULL)
				ops->pump(ops->ctx);
		}
		/* A stream that has not started gets its go (again); a
		 * complete one its done. */
		for (j = 0; j < k; j++) {
			int sent;

			if (st[j].next == 0 &&
			    (st[j].t_go == 0 || interop_now() - st[j].t_go > 2.0)) {
				sent = interop_control(nm, "go", ops,
						       &a->senders[j], st[j].who,
						       INTEROP_GO_DIR(j), 0);
				if (sent < 0) {
					ok = false;
					goto out;
				}
				if (sent == 0)
					st[j].t_go = interop_now();
			}
			if (st[j].next < n || st[j].done_sent)
				continue;
			sent = interop_control(nm, "done", ops, &a->senders[j],
					       st[j].who, INTEROP_DONE_DIR(j), n);
			if (sent < 0) {
				ok = false;
				goto out;
			}
			if (sent == 0) {
				st[j].done_sent = true;
				nb_done++;
				work++;
			}
		}
		t = interop_now();
		if (t - t_note >= 10.0) {
			printf("%s: %.1f s:", nm, t - t0);
			for (j = 0; j < k; j++)
				printf(" stream %u %u/%u", j, st[j].next, n);
			printf(" (%" PRIu64 " bytes)\n", total);
			fflush(stdout);
			t_note = t;
		}
		if (work == 0)
			ops->wait(ops->ctx, 5, false);
	}
	t = interop_now();
	if (ok) {
		printf("%s: all %u streams of %u messages received intact and "
		       "in order (%" PRIu64 " bytes in %.1f s; first message "
		       "after %.1f s; %.2f MB/s)\n", nm, k, n, total, t - t0,
		       t_first > 0 ? t_first - t0 : 0.0, t > t_first &&
		       t_first > 0 ? (double)total / (t - t_first) / 1e6 : 0.0);
		for (j = 0; j < k; j++)
			printf("%s: stream %u (%s) complete after %.1f s\n", nm,
			       j, st[j].who, st[j].t_last - t0);
	}
	/* Our dones must leave before we close (a closed socket drops
	 * what it still holds). */
	if (ok && ops->unacked != NULL) {
		double t1 = interop_now();
		long q = 0, u = 0, qs, us;

		do {
			union interop_addr from;
			bool trunc;
			long r;

			q = u = 0;
			for (j = 0; j < k; j++) {
				if (ops->unacked(ops->ctx, &a->senders[j], &qs,
						 &us) != 0) {
					q = u = 0;
					break;
				}
				q += qs;
				u += us;
			}
			if (q == 0)
				break;
			r = ops->recv(ops->ctx, rxbuf, INTEROP_MAX_SIZE + 64,
				      &from, &trunc);
			if (r >= 0) {
				printf("%s: FAIL: extra message (%ld bytes) "
				       "after every stream was complete\n", nm,
				       r);
				ok = false;
				break;
			}
			if (ops->pump != NULL)
				ops->pump(ops->ctx);
			ops->wait(ops->ctx, 20, false);
		} while (interop_now() - t1 < 30.0);
		if (ok && q != 0) {
			printf("%s: FAIL: %ld done messages were never "
			       "transmitted\n", nm, q);
			ok = false;
		}
	}
	if (ok && a->linger_s > 0)
		interop_linger(ops, a->linger_s);
out:
	for (j = 0; j < k; j++)
		printf("%s: stream %u rx sha256 %s (%u messages, %" PRIu64
		       " bytes, from %s)\n", nm, j,
		       interop_sha_final(&st[j].sha), st[j].next, st[j].bytes,
		       st[j].who);
	printf("%s: %s\n", nm, ok ? "PASS" : "FAIL");
	fflush(stdout);
	free(rxbuf);
	free(want);
	return ok ? 0 : 1;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The sizes, contents and digests of the interop exchange, and the
 * two-way exchange itself (interop_run()); see interop_proto.h.
 */

#include "interop_proto.h"

static uint64_t
interop_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t
interop_key(unsigned int d, uint32_t i)
{
	return ((uint64_t)(d + 1) << 40) ^ ((uint64_t)i * 0x100000001b3ULL) ^
	       0x52445321494e5452ULL;	/* "RDS!INTR" */
}

/*
 * A size drawn for message i keyed by (d, salt): one of edge[] when i is
 * the one of its sixteenth of the run at position 3 + shift (n >= 64),
 * else up to one of the four band[] limits, each as likely.
 */
static uint32_t
interop_drawn_size(const uint32_t *edge, size_t nb_edge, const uint32_t *band,
		   unsigned int shift, unsigned int d, uint64_t salt,
		   uint32_t i, uint32_t n)
{
	uint64_t x;

	if (n >= 64 && i % (n / 16) == 3 + shift && i / (n / 16) < nb_edge)
		return edge[i / (n / 16)];
	x = interop_key(d, i) ^ salt;
	x = interop_splitmix64(&x);
	return (uint32_t)((x >> 8) % (band[x & 3] + 1));
}

uint32_t
interop_size(unsigned int d, uint32_t i, uint32_t n)
{
	static const uint32_t edge[] = { 0, 1, 7, 8, 47, 48, 4095, 4096,
					 4097, 8192, 65535, 65536 };
	static const uint32_t band[] = { 64, 1024, 8192, 65536 };

	if (i == n)
		return INTEROP_DONE_SIZE;
	if (n >= 8 && (i == n / 4 || i == 3 * n / 4))
		return INTEROP_MAX_SIZE;
	/* edge sizes spread over the run, d shifts them a little */
	return interop_drawn_size(edge, sizeof(edge) / sizeof(edge[0]), band,
				  d, d, 0x5a5a5a5aULL, i, n);
}

/* The stream sizes (see interop_proto.h): stream j draws as direction
 * INTEROP_STREAM_DIR(j), its edge sizes shifted by j. */
uint32_t
interop_stream_size(unsigned int j, uint32_t i, uint32_t n)
{
	static const uint32_t edge[] = { 0, 1, 7, 8, 47, 48, 4095, 4096,
					 4097, 8192, 65535, 65536, 1u << 20 };
	static const uint32_t band[] = { 64, 4096, 65536, 1u << 20 };

	return interop_drawn_size(edge, sizeof(edge) / sizeof(edge[0]), band,
				  j, INTEROP_STREAM_DIR(j), 0xa5a5a5a5ULL, i, n);
}

void
interop_fill(unsigned int d, uint32_t i, uint8_t *buf, uint32_t size)
{
	uint64_t x = interop_key(d, i), v;
	uint32_t off;

	for (off = 0; off + 8 <= size; off += 8) {
		v = interop_splitmix64(&x);
		memcpy(buf + off, &v, 8);
	}
	if (off < size) {
		v = interop_splitmix64(&x);
		memcpy(buf + off, &v, size - off);
	}
	if (size >= 8) {
		uint64_t le = i;	/* x86 and friends: little endian */

		memcpy(buf, &le, 8);
	}
}

int
interop_sha_init(struct interop_sha *s)
{
	s->ctx = EVP_MD_CTX_new();
	s->hex[0] = '\0';
	return s->ctx != NULL && EVP_DigestInit_ex(s->ctx, EVP_sha256(), NULL) == 1
	       ? 0 : -1;
}

void
interop_sha_msg(struct interop_sha *s, const uint8_t *buf, uint32_t len)
{
	uint8_t le[4] = { len & 0xff, (len >> 8) & 0xff, (len >> 16) & 0xff,
			  (len >> 24) & 0xff };

	EVP_DigestUpdate(s->ctx, le, sizeof(le));
	if (len > 0)
		EVP_DigestUpdate(s->ctx, buf, len);
}

const char *
interop_sha_final(struct interop_sha *s)
{
	uint8_t md[32];
	unsigned int mdlen = 0, k;

	EVP_DigestFinal_ex(s->ctx, md, &mdlen);
	EVP_MD_CTX_free(s->ctx);
	s->ctx = NULL;
	for (k = 0; k < 32; k++)
		snprintf(s->hex + 2 * k, 3, "%02x", md[k]);
	return s->hex;
}

const char *
interop_addr_str(const union interop_addr *a, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];

	if (interop_addr_v6(a)) {
		inet_ntop(AF_INET6, &a->in6.sin6_addr, ip, sizeof(ip));
		if (a->in6.sin6_scope_id != 0)
			snprintf(buf, len, "[%s%%%u]:%u", ip,
				 a->in6.sin6_scope_id,
				 ntohs(a->in6.sin6_port));
		else
			snprintf(buf, len, "[%s]:%u", ip,
				 ntohs(a->in6.sin6_port));
		return buf;
	}
	inet_ntop(AF_INET, &a->in.sin_addr, ip, sizeof(ip));
	snprintf(buf, len, "%s:%u", ip, ntohs(a->in.sin_port));
	return buf;
}

int
interop_parse_addr(const char *arg, uint16_t port, union interop_addr *a)
{
	char ip[INET6_ADDRSTRLEN + IF_NAMESIZE + 2], *pct, *end;
	const char *p = arg, *portp = NULL, *close;
	unsigned long pn = port, idx;
	size_t l;

	memset(a, 0, sizeof(*a));
	if (*p == '[') {
		close = strchr(p, ']');
		if (close == NULL)
			return -1;
		l = (size_t)(close - p - 1);
		p++;
		if (close[1] == ':')
			portp = close + 2;
		else if (close[1] != '\0')
			return -1;
	} else if (strchr(p, ':') != NULL &&
		   strchr(p, ':') == strrchr(p, ':')) {
		/* One colon: IPv4 and a port. */
		portp = strchr(p, ':') + 1;
		l = (size_t)(portp - 1 - p);
	} else {
		l = strlen(p);
	}
	if (l >= sizeof(ip))
		return -1;
	memcpy(ip, p, l);
	ip[l] = '\0';
	if (portp != NULL) {
		pn = strtoul(portp, &end, 10);
		if (*end != '\0' || pn == 0 || pn > 65535)
			return -1;
	}
	if (inet_pton(AF_INET, ip, &a->in.sin_addr) == 1) {
		a->in.sin_family = AF_INET;
		a->in.sin_port = htons((uint16_t)pn);
		return 0;
	}
	pct = strchr(ip, '%');
	if (pct != NULL)
		*pct++ = '\0';
	if (inet_pton(AF_INET6, ip, &a->in6.sin6_addr) != 1)
		return -1;
	a->in6.sin6_family = AF_INET6;
	a->in6.sin6_port = htons((uint16_t)pn);
	if (pct != NULL) {
		idx = strtoul(pct, &end, 10);
		a->in6.sin6_scope_id = (*end == '\0' && end != pct) ?
			(uint32_t)idx : if_nametoindex(pct);
		if (a->in6.sin6_scope_id == 0)
			return -1;
	}
	return 0;
}

void
interop_addr_in6(const union interop_addr *a, struct in6_addr *out)
{
	if (interop_addr_v6(a)) {
		*out = a->in6.sin6_addr;
		return;
	}
	memset(out, 0, sizeof(*out));
	out->s6_addr[10] = out->s6_addr[11] = 0xff;
	memcpy(&out->s6_addr[12], &a->in.sin_addr, 4);
}

/* The pieces of the loops of interop_run() and of the fan-in. */

long
interop_recv_one(const char *nm, const struct interop_ops *ops, uint8_t *buf,
		 union interop_addr *from, bool *trunc)
{
	long r;

	*trunc = false;
	r = ops->recv(ops->ctx, buf, INTEROP_MAX_SIZE + 64, from, trunc);
	if (r >= 0)
		return r;
	if (r == -EAGAIN || r == -EWOULDBLOCK || interop_retryable((int)-r))
		return INTEROP_RECV_NONE;
	printf("%s: FAIL: receive: %s\n", nm, strerror((int)-r));
	return INTEROP_RECV_FAIL;
}

int
interop_try_send(const char *nm, const char *label,
		 const struct interop_ops *ops, const union interop_addr *to,
		 const uint8_t *buf, uint32_t size, uint32_t idx,
		 double elapsed, struct interop_backoff *b)
{
	int err = ops->send(ops->ctx, to, buf, size);

	if (err == 0) {
		b->last_err = 0;
		return 0;
	}
	if (!interop_retryable(err)) {
		printf("%s: FAIL: %ssend of message %u (%u bytes): %s\n", nm,
		       label, idx, size, strerror(err));
		return -1;
	}
	if (err != b->last_err && err != EAGAIN && b->notes++ < 20)
		printf("%s: %ssend of message %u: %s, backing off (%.1f s)\n",
		       nm, label, idx, strerror(err), elapsed);
	b->last_err = err;
	b->retries++;
	return 1;
}

bool
interop_explain(const char *nm, const char *label, uint32_t next,
		const uint8_t *got, long r, bool trunc, const uint8_t *want,
		uint32_t wsz)
{
	uint64_t idx = UINT64_MAX;
	uint32_t b = 0;

	if (r >= 8)
		memcpy(&idx, got, 8);
	if (trunc || (uint32_t)r != wsz) {
		printf("%s: FAIL: %smessage %u: %ld bytes%s, want %u (its first "
		       "8 bytes say index %" PRIu64 ")\n", nm, label, next, r,
		       trunc ? " (truncated)" : "", wsz, idx);
		return false;
	}
	while (b < wsz && got[b] == want[b])
		b++;
	printf("%s: FAIL: %smessage %u (%u bytes): content differs at byte %u "
	       "(got 0x%02x, want 0x%02x; index field %" PRIu64 ")\n", nm,
	       label, next, wsz, b, got[b], want[b], idx);
	return true;
}

void
interop_linger(const struct interop_ops *ops, double s)
{
	double t1 = interop_now();

	while (interop_now() - t1 < s) {
		if (ops->pump != NULL)
			ops->pump(ops->ctx);
		ops->wait(ops->ctx, 10, false);
	}
}

/*
 * Run the exchange. Returns 0 when every message of the peer arrived
 * intact and in order (including its "done"), ours were all sent, and the
 * peer's "done" says it got ours; 1 otherwise (with the reason printed).
 */
int
interop_run(const struct interop_args *a, const struct interop_ops *ops)
{
	const char *nm = a->name;
	unsigned int dtx, drx;
	uint8_t *txbuf, *rxbuf, *want;
	uint32_t next_tx = 0, next_rx = 0, tx_size = 0, n = a->n;
	bool tx_ready = false, ok = true;
	struct interop_sha sha_tx, sha_rx;
	uint64_t tx_bytes = 0, rx_bytes = 0;
	struct interop_backoff bo = { 0, 0, 0 };
	double t0 = interop_now(), t_first_rx = 0, t_last_note = t0, t;
	char peer_s[80];
	uint32_t rx_count_at_note = 0;
	struct in6_addr self6, peer6;

	interop_addr_str(&a->peer, peer_s, sizeof(peer_s));
	interop_addr_in6(&a->self, &self6);
	interop_addr_in6(&a->peer, &peer6);
	dtx = memcmp(&self6, &peer6, sizeof(self6)) < 0 ? 0 : 1;
	drx = 1 - dtx;
	txbuf = malloc(INTEROP_MAX_SIZE);
	rxbuf = malloc(INTEROP_MAX_SIZE + 64);
	want = malloc(INTEROP_MAX_SIZE);
	if (txbuf == NULL || rxbuf == NULL || want == NULL ||
	    interop_sha_init(&sha_tx) != 0 || interop_sha_init(&sha_rx) != 0) {
		printf("%s: FAIL: out of memory\n", nm);
		return 1;
	}
	printf("%s: exchange with %s: %u messages each way, tx direction "
	       "%u, timeout %.0f s%s\n", nm, peer_s, n, dtx, a->timeout_s, a->wait_first ?
	       ", sending only once the peer's first message is in" : "");
	fflush(stdout);

	while (next_tx <= n || next_rx <= n) {
		int work = 0;

		if (ops->pump != NULL)
			ops->pump(ops->ctx);
		t = interop_now();
		if (t - t0 > a->timeout_s) {
			printf("%s: FAIL: timeout after %.1f s: sent %u/%u, "
			       "received %u/%u (last send error: %s)\n", nm,
			       t - t0, next_tx, n + 1, next_rx, n + 1,
			       bo.last_err ? strerror(bo.last_err) : "none");
			ok = false;
			break;
		}
		/* send: data first; "done" once we have all of the peer's */
		while ((next_tx < n || (next_tx == n && next_rx >= n)) &&
		       (!a->wait_first || next_rx > 0)) {
			int sent;

			if (!tx_ready) {
				tx_size = interop_size(dtx, next_tx, n);
				interop_fill(dtx, next_tx, txbuf, tx_size);
				tx_ready = true;
			}
			sent = interop_try_send(nm, "", ops, &a->peer, txbuf,
						tx_size, next_tx, t - t0, &bo);
			if (sent < 0) {
				ok = false;
				goto out;
			}
			if (sent > 0)
				break;
			if (next_tx < n) {
				interop_sha_msg(&sha_tx, txbuf, tx_size);
				tx_bytes += tx_size;
			}
			tx_ready = false;
			next_tx++;
			work++;
		}
		/* receive everything queued */
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
			if (!interop_same_addr(&from, &a->peer)) {
				char f[80];

				printf("%s: FAIL: message from %s, not from the "
				       "peer\n", nm,
				       interop_addr_str(&from, f, sizeof(f)));
				ok = false;
				goto out;
			}
			if (next_rx > n) {
				printf("%s: FAIL: extra message (%ld bytes) "
				       "after the peer's done\n", nm, r);
				ok = false;
				goto out;
			}
			wsz = interop_size(drx, next_rx, n);
			interop_fill(drx, next_rx, want, wsz);
			if (trunc || (uint32_t)r != wsz ||
			    memcmp(rxbuf, want, wsz) != 0) {
				interop_explain(nm, "", next_rx, rxbuf, r, trunc,
						want, wsz);
				ok = false;
				goto out;
			}
			if (next_rx == 0)
				t_first_rx = interop_now();
			if (next_rx < n) {
				interop_sha_msg(&sha_rx, rxbuf, wsz);
				rx_bytes += wsz;
			}
			next_rx++;
		}
		t = interop_now();
		if (t - t_last_note >= 10.0 || (next_rx / 100 !=
		    rx_count_at_note / 100 && next_rx <= n)) {
			printf("%s: %.1f s: sent %u, received %u (%" PRIu64
			       " bytes)\n", nm, t - t0, next_tx, next_rx,
			       rx_bytes);
			fflush(stdout);
			t_last_note = t;
			rx_count_at_note = next_rx;
		}
		/* Idle: a send was refused or there is nothing to send.
		 * Wait for POLLOUT only when the send buffer was full
		 * (EAGAIN): with ENOBUFS (congested peer) or a connection
		 * that is not up, POLLOUT is set yet sending still fails. */
		if (work == 0)
			ops->wait(ops->ctx, 5, bo.last_err == EAGAIN &&
				  (next_tx < n || (next_tx == n && next_rx >= n)));
	}
	t = interop_now();
	if (ok) {
		printf("%s: all %u messages received intact and in order, %u "
		       "sent; the peer confirmed ours (%.1f s; first message "
		       "after %.1f s; %" PRIu64 " send retries)\n", nm, n, n,
		       t - t0, t_first_rx > 0 ? t_first_rx - t0 : 0.0,
		       bo.retries);
		if (t_first_rx > 0 && t > t_first_rx)
			printf("%s: rate after the first message: %.2f MB/s "
			       "in, %.2f MB/s out\n", nm,
			       (double)rx_bytes / (t - t_first_rx) / 1e6,
			       (double)tx_bytes / (t - t_first_rx) / 1e6);
	}
	/*
	 * Do not close while our last messages are still queued: a closed
	 * socket drops them. Then give the ACKs a moment; that some stay
	 * unacknowledged is normal against a kernel peer, which sends a
	 * standalone ACK only for messages flagged ACK_REQUIRED (every
	 * max_unacked_packets-th, net/rds/send.c) and otherwise piggybacks
	 * ACKs on its own data, of which there is no more.
	 */
	if (ok && ops->unacked != NULL) {
		double t1 = interop_now(), t2 = 0;
		long q = -1, u = -1;

		for (;;) {
			union interop_addr from;
			bool trunc;
			long r;

			if (ops->unacked(ops->ctx, &a->peer, &q, &u) != 0)
				break;
			t = interop_now();
			if (q == 0 && t2 == 0)
				t2 = t;
			if ((q == 0 && u == 0) || t - t1 > 30.0 ||
			    (t2 > 0 && t - t2 > 2.0))
				break;
			r = ops->recv(ops->ctx, rxbuf, INTEROP_MAX_SIZE + 64,
				      &from, &trunc);
			if (r >= 0) {
				printf("%s: FAIL: extra message (%ld bytes) "
				       "after the peer's done\n", nm, r);
				ok = false;
				break;
			}
			if (ops->pump != NULL)
				ops->pump(ops->ctx);
			ops->wait(ops->ctx, 20, false);
		}
		printf("%s: at the end: %ld of our messages still queued, %ld "
		       "sent and not yet acknowledged (%.1f s waited)\n", nm,
		       q, u, interop_now() - t1);
		if (q != 0) {
			printf("%s: FAIL: our last messages were never "
			       "transmitted\n", nm);
			ok = false;
		}
	}
	if (ok && a->linger_s > 0)
		interop_linger(ops, a->linger_s);
out:
	printf("%s: tx sha256 %s (%u messages, %" PRIu64 " bytes)\n", nm,
	       interop_sha_final(&sha_tx), next_tx < n ? next_tx : n,
	       tx_bytes);
	printf("%s: rx sha256 %s (%u messages, %" PRIu64 " bytes)\n", nm,
	       interop_sha_final(&sha_rx), next_rx < n ? next_rx : n,
	       rx_bytes);
	printf("%s: %s\n", nm, ok ? "PASS" : "FAIL");
	fflush(stdout);
	free(txbuf);
	free(rxbuf);
	free(want);
	return ok ? 0 : 1;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * krds_api: edge-triggered and one-shot epoll, two epoll sets.
 */
#include "krds_api.h"

/*
 * An epoll_wait that must report nothing: 0, or under the kernel (only)
 * an event of its congestion map updates (cong_spurious, which has the
 * data unread to tell apart: any extra event is let go there, with a
 * note).
 */
static bool
ep_none(int ep, int ms)
{
	struct epoll_event out[4];
	int r = epoll_wait(ep, out, 4, ms);

	if (r > 0 && kernel) {
		printf("note: an epoll event with nothing new (the kernel's "
		       "congestion map updates wake a socket too)\n");
		return true;
	}
	return r == 0;
}

/* One epoll event, for data, within 5 s. */
static bool
ep_one(int ep, uint64_t data, uint32_t want)
{
	struct epoll_event out[4];

	return epoll_wait(ep, out, 4, 5000) == 1 && out[0].data.u64 == data &&
	       (out[0].events & want) == want;
}

/*
 * Edge-triggered epoll (EPOLLET) reports an RDS socket once per new
 * message, as the kernel's wake-ups do: not again while the message
 * lies unread, again for the next one though the first is unread, never
 * for a read; and once when registered (or modified) while a message is
 * waiting. EPOLLONESHOT: one event, then none until EPOLL_CTL_MOD, which
 * reports the socket again if it is still readable. Two epoll sets each
 * give their own data for the socket.
 */
void
check_epoll_edge(const char *ipb, uint16_t port, int sa)
{
	struct sockaddr_in to = sin_of(ipb, port);
	struct epoll_event ev;
	int s = krds_bound(ipb, port), ep = epoll_create1(0), ep2, i;
	char buf[8];

#define SEND1(c) (sendto(sa, c, 1, 0, (struct sockaddr *)&to, \
			 sizeof(to)) == 1)
	CHECK(s >= 0 && ep >= 0, "EPOLLET: a socket and an epoll set");
	ev.events = EPOLLIN | EPOLLET;
	ev.data.u64 = 7;
	CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, s, &ev) == 0 && ep_none(ep, 50),
	      "EPOLLET: registered, nothing yet");
	CHECK(SEND1("1") && ep_one(ep, 7, EPOLLIN),
	      "EPOLLET: an event for a message");
	CHECK(ep_none(ep, 100), "EPOLLET: no other while it lies unread");
	CHECK(SEND1("2") && ep_one(ep, 7, EPOLLIN),
	      "EPOLLET: an event for the next message, the first unread");
	CHECK(ep_none(ep, 100), "EPOLLET: and then none");
	CHECK(recv(s, buf, sizeof(buf), 0) == 1 &&
	      recv(s, buf, sizeof(buf), 0) == 1 && ep_none(ep, 100),
	      "EPOLLET: reading both makes no event");
	CHECK(SEND1("3") && readable(s, 5000), "EPOLLET: a message waits");
	ev.events = EPOLLIN | EPOLLET;
	ev.data.u64 = 8;
	CHECK(epoll_ctl(ep, EPOLL_CTL_MOD, s, &ev) == 0 && ep_one(ep, 8,
								  EPOLLIN) &&
	      ep_none(ep, 100), "EPOLLET: modified while a message waits: "
	      "one event, with the new data");
	CHECK(recv(s, buf, sizeof(buf), 0) == 1, "EPOLLET: read it");
	ev.events = EPOLLIN | EPOLLONESHOT;
	ev.data.u64 = 9;
	CHECK(epoll_ctl(ep, EPOLL_CTL_MOD, s, &ev) == 0 && ep_none(ep, 50),
	      "EPOLLONESHOT: nothing yet");
	CHECK(SEND1("4") && ep_one(ep, 9, EPOLLIN),
	      "EPOLLONESHOT: an event for a message");
	CHECK(ep_none(ep, 100) && SEND1("5") && ep_none(ep, 100),
	      "EPOLLONESHOT: then none, readable or not, new message or not");
	CHECK(epoll_ctl(ep, EPOLL_CTL_MOD, s, &ev) == 0 &&
	      ep_one(ep, 9, EPOLLIN) && ep_none(ep, 100),
	      "EPOLLONESHOT: EPOLL_CTL_MOD, still readable: one event more");
	CHECK(recv(s, buf, sizeof(buf), 0) == 1 &&
	      recv(s, buf, sizeof(buf), 0) == 1, "EPOLLONESHOT: read both");
	ev.events = EPOLLIN | EPOLLET | EPOLLONESHOT;
	CHECK(epoll_ctl(ep, EPOLL_CTL_MOD, s, &ev) == 0 && SEND1("6") &&
	      ep_one(ep, 9, EPOLLIN) && SEND1("7") && ep_none(ep, 100),
	      "EPOLLET | EPOLLONESHOT: one event, none for the next message");
	for (i = 0; i < 2; i++)
		CHECK(recv(s, buf, sizeof(buf), 0) == 1,
		      "EPOLLET | EPOLLONESHOT: read");
	/* Two sets, level-triggered, each with its data. */
	ep2 = epoll_create1(0);
	ev.events = EPOLLIN;
	ev.data.u64 = 21;
	CHECK(epoll_ctl(ep, EPOLL_CTL_MOD, s, &ev) == 0, "two sets: the first");
	ev.data.u64 = 22;
	CHECK(ep2 >= 0 && epoll_ctl(ep2, EPOLL_CTL_ADD, s, &ev) == 0,
	      "two sets: the second, other data");
	CHECK(SEND1("8") && ep_one(ep, 21, EPOLLIN) && ep_one(ep2, 22, EPOLLIN),
	      "two sets: each reports the socket with its own data");
	CHECK(recv(s, buf, sizeof(buf), 0) == 1, "two sets: read");
#undef SEND1
	close(ep2);
	close(ep);
	close(s);
}

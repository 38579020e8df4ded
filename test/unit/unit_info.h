/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the sources of unit_info share (unit_info.c says what the binary
 * tests): includes, the helpers of unit_info.c, the tests of the others.
 */
#ifndef RDS_UNIT_INFO_H
#define RDS_UNIT_INFO_H

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>

#include <CUnit/CUnit.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_rds.h>

#include "rds_private.h"
#include "rds_test.h"
#include "rte_rds_loop.h"

#define DEF_BUF 212992

/* Records are packed: compare addresses as bytes. */
#define in6_eq(a, b) (memcmp((a), (b), sizeof(struct in6_addr)) == 0)

/* Helpers (unit_info.c). */

int lib_up(void);
uint32_t ip4(const char *ip);
struct in6_addr mapped(const char *ip);
/* The record size of each name, from <linux/rds.h>; 0: not a name. */
size_t record_size(int name);
/*
 * Snapshot: probe, then fill (retrying if the list grew in between).
 * Returns a malloc'ed buffer (NULL for none) and the record count; the
 * record size must be each.
 */
void *snap(int name, unsigned int *nrec);
/* One fill into a buffer of room records (no probe). Returns the count,
 * or -1 (with a message). */
int fill(int name, void *buf, unsigned int room);
unsigned int count(int name);
/* Poll the inline engine until s has a message (non-blocking peek). */
bool wait_queued(int s, unsigned int want_msgs);
/* Poll the engine (and let delayed ACKs fall due) until nothing is
 * waiting for an ACK. */
bool wait_all_acked(void);

/* The tests of unit_info_sock.c. */
void test_sockets(void);
void test_connections(void);
void test_recv_messages(void);
void test_retrans_messages(void);

/* The tests of unit_info_notify.c. */
void test_notifications(void);
void test_telemetry(void);

#endif /* RDS_UNIT_INFO_H */

/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MP_COMMON_H
#define MP_COMMON_H

/* Addresses and ports of suite multiproc: client i on one of two loop
 * addresses of the engine, port 7000 + i. */

#include <stdint.h>
#include <netinet/in.h>

#include "rds_test.h"

#define MP_MAX_CLIENTS 32
#define MP_IP0 "10.250.0.1"
#define MP_IP1 "10.250.0.2"

static inline const char *
mp_ip(unsigned int i)
{
	return (i & 1) ? MP_IP1 : MP_IP0;
}

static inline uint16_t
mp_port(unsigned int i)
{
	return (uint16_t)(7000 + i);
}

static inline struct sockaddr_in
mp_sin(unsigned int i)
{
	return rds_test_sin(mp_ip(i), mp_port(i));
}

#endif /* MP_COMMON_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/* The transport registry: drivers register their ops table from a
 * constructor (RDS_TRANSPORT_REGISTER). */
#include <string.h>

#include "rds_private.h"

static const struct rds_transport *rds_transports[RDS_MAX_TRANSPORTS];
static unsigned int rds_nb_transports;

void
rds_transport_register(const struct rds_transport *t)
{
	RTE_VERIFY(rds_nb_transports < RDS_MAX_TRANSPORTS);
	rds_transports[rds_nb_transports++] = t;
}

const struct rds_transport *
rds_transport_by_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < rds_nb_transports; i++)
		if (strcmp(rds_transports[i]->name, name) == 0)
			return rds_transports[i];
	return NULL;
}

const struct rds_transport *
rds_transport_by_id(uint32_t id)
{
	unsigned int i;

	for (i = 0; i < rds_nb_transports; i++)
		if (rds_transports[i]->trans_id == id)
			return rds_transports[i];
	return NULL;
}

unsigned int
rds_transport_count(void)
{
	return rds_nb_transports;
}

const struct rds_transport *
rds_transport_at(unsigned int i)
{
	return i < rds_nb_transports ? rds_transports[i] : NULL;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* The transport registry: drivers register their ops table from a
 * constructor (RDS_TRANSPORT_REGISTER). */
#include <stdio.h>
#include <string.h>

#include <rte_kvargs.h>

#include "rds_private.h"

static const struct rds_transport *rds_transports[RDS_MAX_TRANSPORTS];
static unsigned int rds_nb_transports;

void
rds_transport_register(const struct rds_transport *t)
{
	RTE_VERIFY(rds_nb_transports < RDS_MAX_TRANSPORTS);
	/* Operations reach only a transport that runs them (xmit_op). */
	RTE_VERIFY(!(t->flags & RDS_TRANS_F_RDMA) || t->xmit_op != NULL);
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

/* A key the transport does not take is a mistake to report (a typo, or
 * another transport's option), not to ignore: the address would run
 * without the setting its user asked for. */
int
rds_transport_args_check(const char *trans, const char *args,
			 const char *const keys[])
{
	struct rte_kvargs *kv;
	char list[256];
	unsigned int i, k;
	size_t n = 0;
	int ret = 0;

	if (args == NULL || args[0] == '\0')
		return 0;
	kv = rte_kvargs_parse(args, NULL);
	if (kv == NULL) {
		RDS_LOG(ERR, "%s: options '%s' do not parse (key=value,...)",
			trans, args);
		return -EINVAL;
	}
	for (i = 0; i < kv->count && ret == 0; i++) {
		const char *key = kv->pairs[i].key;

		if (strcmp(key, "dev") == 0)
			continue;
		for (k = 0; keys[k] != NULL && strcmp(keys[k], key) != 0; k++)
			;
		if (keys[k] != NULL)
			continue;
		list[0] = '\0';
		for (k = 0; keys[k] != NULL && n < sizeof(list); k++)
			if (strcmp(keys[k], "dev") != 0)
				n += (size_t)snprintf(list + n, sizeof(list) - n,
						      ", %s", keys[k]);
		RDS_LOG(ERR, "%s: unknown option '%s' (%s takes dev%s)", trans,
			key, trans, list);
		ret = -EINVAL;
	}
	rte_kvargs_free(kv);
	return ret;
}

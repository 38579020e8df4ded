/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The set-uid program of mp_hostile's exec case (installed set-uid root
 * by the test, from its own copy): a page with a secret, its address
 * written to fd 3 (for the attacker, who must not be able to have the
 * engine reach it), then a wait of up to 30 s.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char secret[4096] __attribute__((aligned(4096)));

static void
on_term(int sig)
{
	(void)sig;
	_exit(0);	/* the attacker is done: a clean end */
}

int
main(void)
{
	char line[64];
	int n;

	signal(SIGTERM, on_term);
	snprintf(secret, sizeof(secret), "TOPSECRET of euid %d",
		 (int)geteuid());
	n = snprintf(line, sizeof(line), "%llx %d\n",
		     (unsigned long long)(uintptr_t)secret, (int)geteuid());
	if (write(3, line, (size_t)n) != n)
		return 1;
	close(3);
	sleep(30);
	return 0;
}

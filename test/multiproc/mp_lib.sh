# SPDX-License-Identifier: BSD-3-Clause
#
# Shared by the multiproc suite's shell tests (sourced, not run): the
# checks and the engine start they all begin with. The sourcing script
# sets NAME (its test's name, for messages), TMP (its scratch directory)
# and SOCK (the engine's socket path) first.

# mp_need FILE...: every file must exist, else FAIL and exit 1.
mp_need() {
	local f
	for f in "$@"; do
		if [ ! -e "$f" ]; then
			echo "$NAME: FAIL: $f is missing (build it first)"
			exit 1
		fi
	done
}

# mp_start_engine ENGINED PREFIX IP... : rds-engined on lcore 0 serving
# each IP over loop, listening on $SOCK, logging to $TMP/engine.log; sets
# epid and waits up to 10 s for the socket (FAIL and exit 1 if it never
# comes). MP_ENGINE_ARGS, if set, are more options of rds-engined's.
mp_start_engine() {
	local engined=$1 prefix=$2 ip i
	local addrs=()
	shift 2
	for ip in "$@"; do
		addrs+=(--addr "$ip=loop")
	done
	"$engined" -l 0 --no-pci --no-huge -m 512 --file-prefix "$prefix" \
		--log-level=lib.eal:error -- "${addrs[@]}" \
		--listen "$SOCK" ${MP_ENGINE_ARGS:-} > "$TMP/engine.log" 2>&1 &
	epid=$!
	mp_wait_socket
}

# mp_wait_socket: up to 10 s for $SOCK (FAIL with the engine's log and
# exit 1 if it never comes).
mp_wait_socket() {
	local i
	for i in $(seq 100); do
		[ -S "$SOCK" ] && break
		sleep 0.1
	done
	if [ ! -S "$SOCK" ]; then
		echo "$NAME: FAIL: rds-engined did not come up:"
		cat "$TMP/engine.log"
		exit 1
	fi
}

#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Suite multiproc, mp_engined: what rds-engined tells its user.
#   - one of its options before "--" (or with no "--"): a one-line hint,
#     status 1, not the EAL's whole usage;
#   - an option its transport does not take (IP=loop,foo=bar): status 1,
#     the key named;
#   - --log-file with --daemon: the file gets its messages, the EAL's and
#     the library's (a client attaches meanwhile, SIGTERM stops it, the
#     pid file goes);
#   - --daemon alone: its messages go to syslog (a listener on /dev/log in
#     a mount namespace of the test's own; needs root);
#   - as a user who may not use the hugepages (nobody; needs root): the
#     EAL fails and a hint names config/setup.sh and --no-huge; with
#     --no-huge it serves (a client of that user attaches) and stops on
#     SIGTERM.
#
#   mp_engined.sh BUILD_DIR
set -u
BUILD=${1:?build directory}
ENGINED=$BUILD/app/rds-engined/rds-engined
INFO=$BUILD/app/rds-info/rds-info
TMP=$(mktemp -d /tmp/rds-mp-engined.XXXXXX)
NAME=mp_engined
SOCK=$TMP/engine.sock
. "$(dirname "$0")/mp_lib.sh"
EAL=(-l 0 --no-pci --no-huge -m 128 --log-level=lib.eal:error)
fail=0
pids=()

cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill -9 "$p" 2>/dev/null
	done
	rm -rf "$TMP"
}
trap cleanup EXIT

mp_need "$ENGINED" "$INFO"

ok() {
	echo "ok   $*"
}

bad() {
	echo "FAIL $*"
	fail=1
}

# check WHAT COND...: ok or FAIL as the command says.
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}

# quiet CMD...: CMD with its output thrown away.
quiet() {
	"$@" > /dev/null 2>&1
}

# wait_for FILE PATTERN: up to 10 s for PATTERN in FILE.
wait_for() {
	local i
	for i in $(seq 100); do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# wait_gone FILE: up to 10 s for FILE to go.
wait_gone() {
	local i
	for i in $(seq 100); do
		[ -e "$1" ] || return 0
		sleep 0.1
	done
	return 1
}

# ---- an option of ours before "--"
for args in "-l 0 --no-pci --addr 10.9.0.1=loop" \
	    "-l 0 --listen=$TMP/x.sock -- --addr 10.9.0.1=loop"; do
	# shellcheck disable=SC2086
	timeout 20 "$ENGINED" $args > "$TMP/out" 2> "$TMP/err"
	rc=$?
	echo "rds-engined $args: status $rc: $(cat "$TMP/err")"
	check "misplaced option: status 1" [ $rc -eq 1 ]
	check "misplaced option: one line on standard error" \
		[ "$(wc -l < "$TMP/err")" -eq 1 ]
	check "misplaced option: the hint says where it goes" \
		grep -q 'put it after "--"' "$TMP/err"
	check "misplaced option: not the EAL's usage" \
		bash -c "! grep -qi 'EAL common options' '$TMP/out' '$TMP/err'"
done

# ---- an option the transport does not take (an engine that takes it
# would serve: bounded)
timeout 20 "$ENGINED" "${EAL[@]}" --file-prefix "mpe1$$" -- \
	--addr 10.9.0.1=loop,foo=bar --listen "$SOCK" > "$TMP/out" 2>&1
rc=$?
grep -E "foo|Invalid" "$TMP/out"
check "loop,foo=bar: status 1" [ $rc -eq 1 ]
check "loop,foo=bar: the key is named" grep -q "unknown option 'foo'" \
	"$TMP/out"

# ---- --daemon --log-file
LOG=$TMP/engined.log
"$ENGINED" "${EAL[@]}" --file-prefix "mpe2$$" -- --addr 10.9.0.1=loop \
	--listen "$SOCK" --daemon --log-file "$LOG" --pid-file "$TMP/pid" \
	> "$TMP/out" 2>&1
rc=$?
check "--daemon --log-file: the command returns 0" [ $rc -eq 0 ]
check "--daemon --log-file: nothing on the terminal" [ ! -s "$TMP/out" ]
if wait_for "$LOG" "listening on"; then
	pids+=("$(cat "$TMP/pid")")
	ok "--daemon --log-file: its banner in the file"
	check "--daemon --log-file: the library's log in the file" \
		grep -q "RDS: serving clients on" "$LOG"
	check "--daemon --log-file: a client attaches" \
		quiet timeout 30 "$INFO" -E "$SOCK" -k
	kill -TERM "$(cat "$TMP/pid")"
	check "--daemon --log-file: SIGTERM: the pid file goes" \
		wait_gone "$TMP/pid"
	check "--daemon --log-file: \"stopping\" in the file" \
		wait_for "$LOG" "rds-engined: stopping"
else
	bad "--daemon --log-file: no banner in the file"
fi
cat "$LOG"

# ---- --daemon alone: syslog, to a listener on /dev/log in a mount
# namespace of ours (the host's syslog, if any, is not touched).
if [ "$(id -u)" -ne 0 ] || ! unshare -m true 2>/dev/null; then
	echo "note: --daemon to syslog not checked (needs root and" \
	     "unshare -m)"
else
	cat > "$TMP/syslog.sh" <<'EOS'
set -e
T=$1
shift
mount --make-rprivate /
mkdir -p "$T/dev"
mount --rbind /dev "$T/dev"
mount -t tmpfs tmpfs /dev
for n in null zero urandom random full; do
	touch "/dev/$n"
	mount --bind "$T/dev/$n" "/dev/$n"
done
mkdir -p /dev/shm
mount --rbind "$T/dev/shm" /dev/shm
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/dev/log")
with open(sys.argv[1], "ab", buffering=0) as f:
    while True:
        f.write(s.recv(65536).rstrip(b"\n") + b"\n")
' "$T/syslog.txt" &
lp=$!
for i in $(seq 50); do [ -S /dev/log ] && break; sleep 0.1; done
"$@"
for i in $(seq 100); do grep -q "listening on" "$T/syslog.txt" 2>/dev/null && break; sleep 0.1; done
kill -TERM "$(cat "$T/pid2")"
for i in $(seq 100); do [ -e "$T/pid2" ] || break; sleep 0.1; done
sleep 0.2
kill $lp
EOS
	PATH=/usr/bin:$PATH unshare -m bash "$TMP/syslog.sh" "$TMP" \
		"$ENGINED" "${EAL[@]}" --file-prefix "mpe3$$" -- \
		--addr 10.9.0.1=loop --listen "$TMP/e3.sock" --daemon \
		--pid-file "$TMP/pid2" > "$TMP/out" 2>&1
	cat "$TMP/out" "$TMP/syslog.txt" 2>/dev/null
	check "--daemon: its banner in syslog" grep -q \
		"rds-engined\[[0-9]*\]: rds-engined: .*listening on" \
		"$TMP/syslog.txt"
	check "--daemon: \"stopping\" in syslog" grep -q \
		"rds-engined: stopping" "$TMP/syslog.txt"
fi

# ---- as another user: nobody, who may not use the hugepages
if [ "$(id -u)" -ne 0 ] || ! id nobody > /dev/null 2>&1 ||
   ! command -v runuser > /dev/null; then
	echo "note: running as another user not checked (needs root," \
	     "runuser and the user nobody)"
else
	NB=$TMP/nobody
	mkdir -m 1777 "$NB"
	chmod 755 "$TMP"
	timeout 60 runuser -u nobody -- "$ENGINED" -l 0 --no-pci \
		--file-prefix "mpe4$$" --log-level=lib.eal:error -- \
		--addr 10.9.0.1=loop --listen "$NB/e.sock" > "$TMP/out" 2>&1
	rc=$?
	cat "$TMP/out"
	if [ $rc -eq 0 ] || [ -S "$NB/e.sock" ]; then
		echo "note: nobody may use the hugepages here: no hint to see"
	else
		check "nobody, hugepages: the hint names config/setup.sh" \
			grep -q "config/setup.sh" "$TMP/out"
		check "nobody, hugepages: and --no-huge" \
			grep -q -- "--no-huge -m" "$TMP/out"
	fi
	runuser -u nobody -- "$ENGINED" "${EAL[@]}" --file-prefix "mpe5$$" \
		-- --addr 10.9.0.1=loop --listen "$NB/e5.sock" \
		--pid-file "$NB/pid" > "$TMP/out5" 2>&1 &
	npid=$!
	pids+=($npid)
	if wait_for "$TMP/out5" "listening on"; then
		ok "nobody, --no-huge: serving"
		check "nobody, --no-huge: a client of that user attaches" \
			quiet timeout 30 runuser -u nobody -- "$INFO" \
			-E "$NB/e5.sock" -k
		kill -TERM "$(cat "$NB/pid")"
		wait $npid
		check "nobody, --no-huge: SIGTERM stops it (status 0)" \
			[ $? -eq 0 ]
	else
		bad "nobody, --no-huge: not serving"
		cat "$TMP/out5"
	fi
fi

[ $fail -eq 0 ] && echo "$NAME: PASS" || echo "$NAME: FAIL"
exit $fail

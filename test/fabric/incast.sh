# SPDX-License-Identifier: BSD-3-Clause
#
# The incast, sourced by fabric.sh (case incast) and by
# bench/fabric-incast.sh (the same with kernel TCP beside it). Hosts as
# network namespaces fabI0 (the receiver), fabI1..fabIN (senders) and
# fabI(N+1) (the ping-pong's: a sender's own connection would put the
# ping behind its stream, RDS keeps a connection's messages in order),
# each with a veth pair to a bridge in fabIBR; each host runs its own
# rds-engined on net_af_packet. The bridge's port toward the receiver
# (fI0s) is the bottleneck: tbf, INCAST_RATE Mbit/s with a queue of
# INCAST_LIMIT bytes. Every sender streams INCAST_BYTES to the receiver
# in messages of one size (krds_stress -S SIZE -o under the preload: one
# pair of processes per sender, the receiving one checks every message's
# order and bytes and the digests). Printed per size: goodput (all bytes
# received / the longest receiver's time) as a fraction of the
# bottleneck, frames the tbf dropped (tc -s qdisc), Jain's fairness
# index over the senders' goodputs, and the 64 B ping-pong round trip
# (incast_peer.py under the preload, host N+1 to host 0, through the
# bottleneck) unloaded and during the incast.
#
# The caller sets: NAME, B (build root), TMP, PRE (the preload with its
# ASan runtime when there is one), and fatal(). Environment:
# INCAST_SENDERS (6), INCAST_RATE (100, Mbit/s), INCAST_LIMIT (60000,
# bytes), INCAST_BYTES (3000000 per sender per size), INCAST_SIZES
# ("1400 9000 65536"), INCAST_IDLE (sleep: the engines' idle policy,
# 8 engines on 2 cores), INCAST_PING (1: the ping-pong), INCAST_ETH_OPTS
# (more eth keys for every engine, e.g. ",rto_min_us=5000").

IC_N=${INCAST_SENDERS:-6}
IC_H=$((IC_N + 1))	# the ping-pong's host: no bulk traffic of its own
IC_RATE=${INCAST_RATE:-100}
IC_LIMIT=${INCAST_LIMIT:-60000}
IC_BYTES=${INCAST_BYTES:-3000000}
IC_SIZES=${INCAST_SIZES:-1400 9000 65536}
IC_IDLE=${INCAST_IDLE:-sleep}
IC_PING=${INCAST_PING:-1}
IC_BR=fabIBR
IC_PY=$(dirname "${BASH_SOURCE[0]}")/incast_peer.py
IC_STRESS=$B/test/multiproc/krds_stress
IC_ENGINED=$B/app/rds-engined/rds-engined
IC_INFO=$B/app/rds-info/rds-info
ic_pids=()

ic_ip() { echo "10.250.1.$((10 + $1))"; }
ic_tcp_ip() { echo "10.251.1.$((10 + $1))"; }

ic_net_down() {
	local h
	for h in $(seq 0 "$IC_H"); do
		ip netns del fabI$h 2>/dev/null
	done
	ip netns del $IC_BR 2>/dev/null
	true
}

ic_net_up() {
	local h
	ic_net_down
	ip netns add $IC_BR || fatal "ip netns add failed"
	ip -n $IC_BR link add ficbr type bridge || fatal "no bridge"
	for h in $(seq 0 "$IC_H"); do
		ip netns add fabI$h
		ip -n $IC_BR link add fI${h}s type veth peer name fI${h}h \
			netns fabI$h || fatal "veth pair for host $h"
		ip -n $IC_BR link set fI${h}s master ficbr
		ip netns exec fabI$h sysctl -qw net.ipv6.conf.all.disable_ipv6=1
		ip netns exec $IC_BR sysctl -qw \
			net.ipv6.conf.fI${h}s.disable_ipv6=1
		ip -n fabI$h link set lo up
		ip -n fabI$h link set fI${h}h up
		ip -n $IC_BR link set fI${h}s up
	done
	ip netns exec $IC_BR sysctl -qw net.ipv6.conf.ficbr.disable_ipv6=1
	ip -n $IC_BR link set ficbr up
}

# The bottleneck, again (its counters from 0).
ic_tbf_reset() {
	ip netns exec $IC_BR tc qdisc del dev fI0s root 2>/dev/null
	ip netns exec $IC_BR tc qdisc add dev fI0s root tbf \
		rate "${IC_RATE}mbit" burst 16k limit "$IC_LIMIT" ||
		fatal "tc tbf on the receiver's bridge port"
}

ic_tbf_drops() {
	ip netns exec $IC_BR tc -s qdisc show dev fI0s |
		sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' | head -n 1
}

ic_engines_stop() {
	local p
	for p in "${ic_pids[@]}"; do
		kill -TERM "$p" 2>/dev/null
	done
	for p in "${ic_pids[@]}"; do
		for _ in $(seq 50); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	ic_pids=()
}

# ic_engines_start EXTRA: an engine per host, EXTRA appended to the eth
# keys (e.g. ",cwnd_init=0").
ic_engines_start() {
	local h sock
	ic_engines_stop
	for h in $(seq 0 "$IC_H"); do
		sock=$TMP/I$h.sock
		rm -f "$sock"
		ip netns exec fabI$h "$IC_ENGINED" -l $((h % 2)) --no-pci \
			--no-huge -m 256 --file-prefix fabI$h$$ \
			--log-level=lib.eal:error \
			--vdev=net_af_packet0,iface=fI${h}h,qpairs=1,qdisc_bypass=0 \
			-- --addr "$(ic_ip "$h")=eth,port=net_af_packet0$1${INCAST_ETH_OPTS:-}" \
			--idle "$IC_IDLE" --listen "$sock" \
			>> "$TMP/engine-I$h.log" 2>&1 &
		ic_pids+=($!)
	done
	for h in $(seq 0 "$IC_H"); do
		for _ in $(seq 150); do
			[ -S "$TMP/I$h.sock" ] && break
			sleep 0.1
		done
		[ -S "$TMP/I$h.sock" ] && continue
		echo "$NAME: FAIL: rds-engined of incast host $h did not come up:"
		cat "$TMP/engine-I$h.log"
		return 1
	done
}

# ic_rds_ping SECS TAG: host N+1 -> host 0, 64 B round trips; sets ic_rtt
# (the median, us; empty on failure).
ic_ping_port=19300
ic_rds_ping() {
	local secs=$1 tag=$2 ep port
	# A port of its own each time: the last one's may still be closing.
	ic_ping_port=$((ic_ping_port + 1))
	port=$ic_ping_port
	RTE_RDS_ENGINE=$TMP/I0.sock LD_PRELOAD="$PRE" timeout $((secs + 20)) \
		python3 "$IC_PY" rds-echo "$(ic_ip 0)" "$port" $((secs + 10)) \
		> "$TMP/$tag-echo.log" 2>&1 &
	ep=$!
	# Until its socket is bound (a message before that is dropped).
	for _ in $(seq 100); do
		grep -q '^ready' "$TMP/$tag-echo.log" && break
		sleep 0.05
	done
	RTE_RDS_ENGINE=$TMP/I$IC_H.sock LD_PRELOAD="$PRE" \
		timeout $((secs + 20)) python3 "$IC_PY" rds-ping \
		"$(ic_ip "$IC_H")" "$(ic_ip 0)" "$port" "$secs" \
		> "$TMP/$tag-ping.log" 2>&1
	kill "$ep" 2>/dev/null
	wait "$ep" 2>/dev/null
	ic_rtt=$(sed -n 's/^rtt: .* median \([0-9]*\) us.*/\1/p' \
		"$TMP/$tag-ping.log")
	if [ -z "$ic_rtt" ]; then
		echo "$NAME: incast: the ping-pong ($tag) failed:"
		tail -n 5 "$TMP/$tag-ping.log" "$TMP/$tag-echo.log" |
			sed 's/^/    /'
	fi
}

# ic_rexmits: the senders' eth retransmissions by cause, summed (since
# their engines started): "fast sack probe timeout".
ic_rexmits() {
	local i
	for i in $(seq 1 "$IC_N"); do
		RTE_RDS_ENGINE=$TMP/I$i.sock timeout 10 "$IC_INFO" -x 2>/dev/null
	done | awk '/^Transport Counters \(eth\)/ { e = 1; next }
		/^Transport Counters/ { e = 0 }
		e && $1 == "rexmit_fast" { f += $2 }
		e && $1 == "rexmit_sack" { s += $2 }
		e && $1 == "rexmit_probe" { p += $2 }
		e && $1 == "rexmit_timeout" { t += $2 }
		END { print f + 0, s + 0, p + 0, t + 0 }'
}

# ic_cuts: the senders' congestion windows' cuts, summed over their
# connections (since their engines started): "loss timeout delay".
ic_cuts() {
	local i
	for i in $(seq 1 "$IC_N"); do
		RTE_RDS_ENGINE=$TMP/I$i.sock timeout 10 "$IC_INFO" -e -v \
			2>/dev/null
	done | awk '{ for (i = 1; i <= NF; i++) {
			split($i, kv, "="); sub(/,$/, "", kv[2])
			if (kv[1] == "cwnd_cuts") l += kv[2]
			if (kv[1] == "cwnd_collapses") t += kv[2]
			if (kv[1] == "cwnd_delay_cuts") d += kv[2] } }
		END { print l + 0, t + 0, d + 0 }'
}
# jain X...: Jain's fairness index (sum x)^2 / (n sum x^2), 3 decimals.
jain() {
	printf '%s\n' "$@" | awk '{ s += $1; q += $1 * $1; n++ }
		END { if (q > 0) printf "%.3f", s * s / (n * q); else print 0 }'
}

# ic_report TAG SIZE: from ic_b and ic_m (each sender's bytes and ms at
# the receiver) sets ic_frac (goodput per mille of the bottleneck: all
# bytes / the longest time), ic_jain, ic_drops, and prints the line.
ic_report() {
	local tag=$1 size=$2 i tot=0 max=0 rates=() b m
	for i in $(seq 0 $((IC_N - 1))); do
		b=${ic_b[$i]:-0}
		m=${ic_m[$i]:-0}
		tot=$((tot + b))
		[ "$m" -gt "$max" ] && max=$m
		rates+=("$((b * 8 / (m > 0 ? m : 1)))")	# kbit/s
	done
	ic_frac=$((tot * 8 / (max > 0 ? max : 1) / IC_RATE))	# per mille
	ic_jain=$(jain "${rates[@]}")
	ic_drops=$(ic_tbf_drops)
	printf '  %-14s %5d B: %d kbit/s = %d.%03d of the bottleneck, ' \
		"$tag" "$size" $((tot * 8 / (max > 0 ? max : 1))) \
		$((ic_frac / 1000)) $((ic_frac % 1000))
	printf 'tbf drops %s, Jain %s (%d bytes, %s ms; kbit/s per sender: %s)\n' \
		"${ic_drops:-?}" "$ic_jain" "$tot" "$max" "${rates[*]}"
}

# ic_rds_run SIZE TAG: the incast over RDS at SIZE; 1 on a failed
# transfer (a krds_stress pair that did not pass whole).
ic_rds_run() {
	local size=$1 tag=$2 n i rp=() sp=() bad=0 line
	n=$(( (IC_BYTES + size - 1) / size ))
	ic_frac=0 ic_drops=0 ic_jain=0
	local rx0 rx1 cu0 cu1
	rx0=($(ic_rexmits))
	cu0=($(ic_cuts))
	ic_tbf_reset
	for i in $(seq 1 "$IC_N"); do
		RTE_RDS_ENGINE=$TMP/I0.sock LD_PRELOAD="$PRE" timeout 200 \
			"$IC_STRESS" -s "$(ic_ip 0)" -r "$(ic_ip "$i")" \
			-p $((18900 + i)) \
			-P $((19100 + i)) -t 1 -n "$n" -S "$size" -o -w 170 \
			> "$TMP/$tag-r$i.log" 2>&1 &
		rp+=($!)
	done
	for i in $(seq 1 "$IC_N"); do
		RTE_RDS_ENGINE=$TMP/I$i.sock LD_PRELOAD="$PRE" timeout 200 \
			"$IC_STRESS" -s "$(ic_ip "$i")" -c 127.0.0.1 \
			-r "$(ic_ip 0)" -p $((18900 + i)) -P $((19100 + i)) -t 1 \
			-n "$n" -S "$size" -o -w 170 \
			> "$TMP/$tag-s$i.log" 2>&1 &
		sp+=($!)
	done
	ic_rtt_load=
	if [ "$IC_PING" = 1 ]; then
		sleep 0.5
		ic_rds_ping 1 "$tag-load"
		ic_rtt_load=$ic_rtt
	fi
	for i in $(seq 1 "$IC_N"); do
		wait "${sp[$((i - 1))]}" || bad=1
		wait "${rp[$((i - 1))]}" || bad=1
	done
	ic_b=()
	ic_m=()
	for i in $(seq 1 "$IC_N"); do
		line=$(sed -n 's/^task 0: received [0-9]* messages, \([0-9]*\) bytes in \([0-9]*\) ms/\1 \2/p' \
			"$TMP/$tag-r$i.log")
		ic_b+=("${line% *}")
		ic_m+=("${line#* }")
		if ! grep -q "every digest matches" "$TMP/$tag-r$i.log"; then
			bad=1
			echo "$NAME: incast $tag: sender $i's stream did not" \
			     "pass whole:"
			tail -n 3 "$TMP/$tag-r$i.log" "$TMP/$tag-s$i.log" |
				sed 's/^/    /'
		fi
	done
	[ $bad -eq 0 ] || return 1
	ic_report "$tag" "$size"
	rx1=($(ic_rexmits))
	echo "    senders' retransmissions: fast $((rx1[0] - rx0[0])), sack" \
	     "$((rx1[1] - rx0[1])), probe $((rx1[2] - rx0[2])), timeout" \
	     "$((rx1[3] - rx0[3]))"
	cu1=($(ic_cuts))
	echo "    senders' window cuts: loss $((cu1[0] - cu0[0])), timeout" \
	     "$((cu1[1] - cu0[1])), delay $((cu1[2] - cu0[2]))"
	if [ "$IC_PING" = 1 ]; then
		echo "    64 B ping-pong through the bottleneck during the" \
		     "incast: median ${ic_rtt_load:-?} us"
		[ -n "$ic_rtt_load" ] || return 1
	fi
	return 0
}

# ic_rds_case EXTRA TAG: engines with EXTRA eth keys, the unloaded
# ping-pong, then every size; 1 on any failure.
ic_rds_case() {
	local extra=$1 tag=$2 size bad=0
	ic_engines_start "$extra" || return 1
	ic_rtt_idle=
	if [ "$IC_PING" = 1 ]; then
		ic_tbf_reset
		ic_rds_ping 1 "$tag-idle"
		ic_rtt_idle=$ic_rtt
		echo "  $tag: 64 B ping-pong host $IC_H -> 0, unloaded: median" \
		     "${ic_rtt_idle:-?} us"
		[ -n "$ic_rtt_idle" ] || bad=1
	fi
	for size in $IC_SIZES; do
		ic_rds_run "$size" "$tag-$size" || bad=1
		eval "ic_res_${tag//-/_}_$size=\"$ic_frac $ic_drops $ic_jain ${ic_rtt_load:-0}\""
	done
	ic_engines_stop
	return $bad
}

# ic_tcp_run SIZE TAG: the same bytes with kernel TCP (IC_N connections
# into host 0, SIZE-byte writes), on the same veths and bottleneck.
ic_tcp_run() {
	local size=$1 tag=$2 n i sp=() kp line ep
	n=$(( (IC_BYTES + size - 1) / size ))
	ic_frac=0 ic_drops=0 ic_jain=0
	ic_tbf_reset
	ip netns exec fabI0 timeout 200 python3 "$IC_PY" tcp-sink \
		"$(ic_tcp_ip 0)" 19400 "$IC_N" > "$TMP/$tag-sink.log" 2>&1 &
	kp=$!
	sleep 0.3
	for i in $(seq 1 "$IC_N"); do
		ip netns exec fabI$i timeout 200 python3 "$IC_PY" tcp-src \
			"$(ic_tcp_ip 0)" 19400 $((n * size)) "$size" \
			> "$TMP/$tag-src$i.log" 2>&1 &
		sp+=($!)
	done
	ic_rtt_load=
	if [ "$IC_PING" = 1 ]; then
		sleep 0.5
		ip netns exec fabI0 timeout 30 python3 "$IC_PY" tcp-echo \
			"$(ic_tcp_ip 0)" 19401 15 > /dev/null 2>&1 &
		ep=$!
		sleep 0.2
		ip netns exec fabI$IC_H timeout 30 python3 "$IC_PY" tcp-ping \
			"$(ic_tcp_ip 0)" 19401 1 > "$TMP/$tag-ping.log" 2>&1
		wait "$ep" 2>/dev/null
		ic_rtt_load=$(sed -n 's/^rtt: .* median \([0-9]*\) us.*/\1/p' \
			"$TMP/$tag-ping.log")
	fi
	for p in "${sp[@]}"; do
		wait "$p"
	done
	wait "$kp"
	ic_b=()
	ic_m=()
	for i in $(seq 0 $((IC_N - 1))); do
		line=$(sed -n "s/^conn $i: \([0-9]*\) bytes in \([0-9]*\) ms/\1 \2/p" \
			"$TMP/$tag-sink.log")
		[ -n "$line" ] || { echo "$NAME: tcp $tag: no conn $i"; return 1; }
		ic_b+=("${line% *}")
		ic_m+=("${line#* }")
	done
	ic_report "$tag" "$size"
	[ "$IC_PING" = 1 ] && echo "    64 B TCP ping-pong during the" \
		"incast: median ${ic_rtt_load:-?} us"
	return 0
}

# ic_tcp_case TAG: kernel TCP over the same hosts (addresses of their
# own on the host ends, 10.251.1.0/24, beside the engines' frames).
ic_tcp_case() {
	local tag=$1 h size bad=0
	ic_rtt_idle=
	ic_engines_stop
	for h in $(seq 0 "$IC_H"); do
		ip -n fabI$h addr add "$(ic_tcp_ip "$h")/24" dev fI${h}h
	done
	if [ "$IC_PING" = 1 ]; then
		ic_tbf_reset
		ip netns exec fabI0 timeout 30 python3 "$IC_PY" tcp-echo \
			"$(ic_tcp_ip 0)" 19401 15 > /dev/null 2>&1 &
		local ep=$!
		sleep 0.2
		ip netns exec fabI$IC_H timeout 30 python3 "$IC_PY" tcp-ping \
			"$(ic_tcp_ip 0)" 19401 1 > "$TMP/$tag-idle-ping.log" 2>&1
		wait "$ep" 2>/dev/null
		ic_rtt_idle=$(sed -n 's/^rtt: .* median \([0-9]*\) us.*/\1/p' \
			"$TMP/$tag-idle-ping.log")
		echo "  $tag: 64 B TCP ping-pong host $IC_H -> 0, unloaded: median" \
		     "${ic_rtt_idle:-?} us"
	fi
	for size in $IC_SIZES; do
		ic_tcp_run "$size" "$tag-$size" || bad=1
		eval "ic_res_${tag//-/_}_$size=\"$ic_frac $ic_drops $ic_jain ${ic_rtt_load:-0}\""
	done
	for h in $(seq 0 "$IC_H"); do
		ip -n fabI$h addr del "$(ic_tcp_ip "$h")/24" dev fI${h}h
	done
	return $bad
}

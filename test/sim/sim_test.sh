#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# The suite sim's cases around rds_sim (sim_main.c):
#   sim_test.sh run    RDS_SIM ARGS...  one run, must pass
#   sim_test.sh replay RDS_SIM ARGS...  two runs of one seed, both pass,
#                                       with the same event log digest
#   sim_test.sh bug    RDS_SIM ARGS...  with the harness's duplicate
#                                       delivery (--bug-dup): the checker
#                                       must fail the run (exit 1), name
#                                       the duplicate and print the seed
#   sim_test.sh fail PATTERN RDS_SIM ARGS...
#                                       a run that must fail (exit 1),
#                                       with a line containing PATTERN
#                                       and the seed to replay it
set -u
mode=$1
shift
out=$(mktemp)
trap 'rm -f "$out" "$out.2"' EXIT

case $mode in
run)
	"$@"
	exit $?
	;;
replay)
	"$@" > "$out" 2>&1; r1=$?
	"$@" > "$out.2" 2>&1; r2=$?
	cat "$out"
	d1=$(grep '^digest ' "$out")
	d2=$(grep '^digest ' "$out.2")
	echo "first run: exit $r1, $d1; second run: exit $r2, $d2"
	if [ "$r1" -ne 0 ] || [ "$r2" -ne 0 ]; then
		cat "$out.2"
		exit 1
	fi
	if [ -z "$d1" ] || [ "$d1" != "$d2" ]; then
		echo "FAILED: the two runs of one seed differ"
		exit 1
	fi
	exit 0
	;;
bug)
	"$@" --bug-dup > "$out" 2>&1; r=$?
	cat "$out"
	if [ "$r" -ne 1 ]; then
		echo "FAILED: the run with a duplicate delivery exited $r, not 1"
		exit 1
	fi
	if ! grep -q 'VIOLATION: duplicate' "$out" ||
	   ! grep -q '^FAILED: seed ' "$out"; then
		echo "FAILED: no duplicate reported, or no seed to replay"
		exit 1
	fi
	echo "the checker caught the duplicate delivery"
	exit 0
	;;
fail)
	pattern=$1
	shift
	"$@" > "$out" 2>&1; r=$?
	cat "$out"
	if [ "$r" -ne 1 ]; then
		echo "FAILED: the run exited $r, not 1"
		exit 1
	fi
	if ! grep -qF -- "$pattern" "$out" ||
	   ! grep -q '^FAILED: seed ' "$out"; then
		echo "FAILED: no '$pattern', or no seed to replay"
		exit 1
	fi
	echo "the run failed as it must: $pattern"
	exit 0
	;;
esac
echo "usage: sim_test.sh run|replay|bug RDS_SIM ARGS..." \
     "| sim_test.sh fail PATTERN RDS_SIM ARGS..."
exit 2

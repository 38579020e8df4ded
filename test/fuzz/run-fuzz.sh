#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run-fuzz.sh TARGET SEED_DIR OUT_DIR [libFuzzer options...]
#
# The bounded run of one libFuzzer target (meson suite 'fuzz'): every
# seed of SEED_DIR, then mutation for RDS_FUZZ_SECS seconds (default 60).
# New inputs go to OUT_DIR/corpus (emptied first: each run starts from
# the committed seeds, so that it is repeatable), crashes and oracle
# violations to OUT_DIR/artifacts/. The seed directory is only read.
# Exit status: 0 when nothing was found, 1 for a crash, an oracle
# violation, a leak, a timeout or running out of memory (libFuzzer's own
# 77 for a crash would be a skip to meson).

set -euo pipefail

if [ "$#" -lt 3 ]; then
	echo "usage: $0 TARGET SEED_DIR OUT_DIR [libFuzzer options...]" >&2
	exit 2
fi
bin=$1 seed=$2 out=$3
shift 3
secs=${RDS_FUZZ_SECS:-60}

rm -rf "$out/corpus"
mkdir -p "$out/corpus" "$out/artifacts"
# Undefined behaviour is fatal (also built so: -fno-sanitize-recover).
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"

echo "run-fuzz: $bin for ${secs}s, seeds $seed ($(ls "$seed" | wc -l) files)"
exec "$bin" -max_total_time="$secs" -print_final_stats=1 -timeout=30 \
	-error_exitcode=1 -timeout_exitcode=1 \
	-artifact_prefix="$out/artifacts/" "$@" "$out/corpus" "$seed"

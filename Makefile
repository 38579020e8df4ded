# SPDX-License-Identifier: BSD-3-Clause
#
# Convenience targets for librte_rds. The real build is meson; this only wires
# up setup, the two build directories, the demo and the test run.
# Run as root on Debian 12 (setup installs packages and reserves hugepages).

MESON_ASAN_OPTS := -Db_sanitize=address,undefined -Db_lundef=false \
		   -Dlibc_alloc=true -Dbuildtype=debug
# The libFuzzer build (clang): the fuzz targets only, no CUnit suites.
MESON_FUZZ_OPTS := -Dfuzz=true -Dtests=false $(MESON_ASAN_OPTS)

# Suites `make test` runs in the normal build; the sanitizer build runs the
# host-side ones; the fuzz build its bounded libFuzzer runs (a minute
# each, RDS_FUZZ_SECS).
SUITES ?= unit api loop rdma scale race eth tcp multiproc sim fabric rxe interop
ASAN_SUITES ?= unit api loop rdma scale race eth tcp multiproc sim
FUZZ_SUITES ?= fuzz
SUITE_ARGS = $(foreach s,$(SUITES),--suite $(s))
ASAN_SUITE_ARGS = $(foreach s,$(ASAN_SUITES),--suite $(s))
FUZZ_SUITE_ARGS = $(foreach s,$(FUZZ_SUITES),--suite $(s))

PERF := build/app/rds-perf/rds-perf
# Evaluated when the demo recipe runs, i.e. after setup has reserved hugepages.
EAL_ARGS = -l 0-1 --no-pci $(shell bash config/eal-mem-args.sh) --file-prefix=rds-demo

.PHONY: all setup build build-asan build-fuzz demo test clean

all: build

setup:
	bash config/setup.sh

# A directory without build.ninja (e.g. after a failed configure) is set up again.
build: setup
	test -f build/build.ninja || meson setup build
	ninja -C build

build-asan: setup
	test -f build-asan/build.ninja || meson setup build-asan $(MESON_ASAN_OPTS)
	ninja -C build-asan

# clang and its libFuzzer runtime come with setup (libclang-rt-14-dev).
build-fuzz: setup
	@command -v clang >/dev/null || { echo "build-fuzz: clang not found (config/setup.sh installs it)" >&2; exit 1; }
	test -f build-fuzz/build.ninja || CC=clang meson setup build-fuzz $(MESON_FUZZ_OPTS)
	ninja -C build-fuzz fuzz-targets

demo: build
	$(PERF) $(EAL_ARGS) -- --transport loop --mode lat --size 64 --secs 3 --engine lcore
	$(PERF) $(EAL_ARGS) -- --transport loop --mode bw --size 32 --secs 3 --engine lcore

# Every run always happens; the target fails if any failed.
test: build build-asan build-fuzz
	@rc=0; \
	echo "meson test -C build $(SUITE_ARGS) --print-errorlogs --num-processes 2"; \
	meson test -C build $(SUITE_ARGS) --print-errorlogs --num-processes 2 || rc=1; \
	echo "meson test -C build-asan $(ASAN_SUITE_ARGS) --print-errorlogs --num-processes 2"; \
	meson test -C build-asan $(ASAN_SUITE_ARGS) --print-errorlogs --num-processes 2 || rc=1; \
	echo "meson test -C build-fuzz $(FUZZ_SUITE_ARGS) --print-errorlogs"; \
	meson test -C build-fuzz $(FUZZ_SUITE_ARGS) --print-errorlogs || rc=1; \
	exit $$rc

clean:
	rm -rf build build-asan build-fuzz

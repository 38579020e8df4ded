# SPDX-License-Identifier: BSD-3-Clause
#
# Convenience targets for librte_rds. The real build is meson; this only wires
# up setup, the two build directories, the demo and the test run.
# Run as root on Debian 12 (setup installs packages and reserves hugepages).

MESON_ASAN_OPTS := -Db_sanitize=address,undefined -Db_lundef=false \
		   -Dlibc_alloc=true -Dbuildtype=debug

# Suites `make test` runs in the normal build; the sanitizer build runs the
# host-side ones.
SUITES ?= unit loop rdma scale race eth multiproc rxe interop
ASAN_SUITES ?= unit loop rdma scale race eth multiproc
SUITE_ARGS = $(foreach s,$(SUITES),--suite $(s))
ASAN_SUITE_ARGS = $(foreach s,$(ASAN_SUITES),--suite $(s))

PERF := build/app/rds-perf/rds-perf
# Evaluated when the demo recipe runs, i.e. after setup has reserved hugepages.
EAL_ARGS = -l 0-1 --no-pci $(shell bash config/eal-mem-args.sh) --file-prefix=rds-demo

.PHONY: all setup build build-asan demo test clean

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

demo: build
	$(PERF) $(EAL_ARGS) -- --transport loop --mode lat --size 64 --secs 3 --engine lcore
	$(PERF) $(EAL_ARGS) -- --transport loop --mode bw --size 32 --secs 3 --engine lcore

# Both runs always happen; the target fails if either failed.
test: build build-asan
	@rc=0; \
	echo "meson test -C build $(SUITE_ARGS) --print-errorlogs --num-processes 2"; \
	meson test -C build $(SUITE_ARGS) --print-errorlogs --num-processes 2 || rc=1; \
	echo "meson test -C build-asan $(ASAN_SUITE_ARGS) --print-errorlogs --num-processes 2"; \
	meson test -C build-asan $(ASAN_SUITE_ARGS) --print-errorlogs --num-processes 2 || rc=1; \
	exit $$rc

clean:
	rm -rf build build-asan

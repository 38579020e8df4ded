#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# vm-setup.sh - prepare the soft-RoCE (rxe) test VM of librte_rds.
#
# The build host's kernel may have no InfiniBand support, so the ib transport
# tests run inside a QEMU VM booting Debian's stock kernel, where rdma_rxe is a
# module. This script, idempotently:
#   1. installs the host tools it needs with apt-get (only when dpkg-query says
#      something is missing; apt-get update only then);
#   2. picks the kernel package that linux-image-amd64 currently depends on,
#      fetches it with "apt-get download" (it is never installed), unpacks it
#      with "dpkg -x" and runs depmod on the unpacked tree;
#   3. builds a busybox initramfs holding test/rxe/init and the kernel modules
#      the VM needs (virtio, 9p, overlay, crc32, RDMA core, rdma_rxe, RDS, ...).
# When the cache is already complete for the current kernel package, the init
# script and this script, it does nothing and returns at once.
#
# Usage: vm-setup.sh [-q|--quiet] [-f|--force]
# Environment:
#   RDS_VM_CACHE   cache directory (default /var/cache/librte_rds-vm)
#   RDS_VM_KPKG    kernel package to use instead of linux-image-amd64's dependency
# Output: $RDS_VM_CACHE/vmlinuz and $RDS_VM_CACHE/initramfs.cpio.gz
# Exit status: 0 ready; 77 the VM cannot be had here (no apt, no permission,
# download or install failed); 1 any other error.

set -euo pipefail
export PATH=$PATH:/usr/local/sbin:/usr/sbin:/sbin
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${RDS_VM_CACHE:-/var/cache/librte_rds-vm}
QUIET=0
FORCE=0
for a in "$@"; do
	case $a in
	-q|--quiet) QUIET=1 ;;
	-f|--force) FORCE=1 ;;
	-h|--help) sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "vm-setup: unknown argument '$a'" >&2; exit 1 ;;
	esac
done

# Host packages: qemu, busybox for the initramfs, kmod for depmod/modprobe,
# cpio to pack it; RDMA user space and test tools run in the VM from the host
# root, so they are installed on the host too.
PKGS="qemu-system-x86 busybox-static kmod cpio rdma-core ibverbs-providers
      ibverbs-utils perftest rdmacm-utils iproute2"

# Modules loaded in the VM (dependencies are added automatically). Built-in
# ones are skipped. rxe takes its crc32 from the crypto API, hence the
# generic crc32 / crc32c drivers. inet_diag and tcp_diag: `ss -K` (the
# interop kreset case destroys the kernel's rds_tcp sockets with it).
MODULES="virtio_pci virtio_net 9pnet_virtio 9p overlay
         crc32_generic crc32c_generic
         ib_core ib_uverbs ib_umad rdma_cm rdma_ucm rdma_rxe
         rds rds_tcp rds_rdma veth tun inet_diag tcp_diag"

say() { [ "$QUIET" = 1 ] || echo "vm-setup: $*"; }
skip() { echo "vm-setup: cannot prepare the VM: $*" >&2; exit 77; }
die() { echo "vm-setup: error: $*" >&2; exit 1; }

as_root() {
	if [ "$(id -u)" = 0 ]; then
		"$@"
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
		sudo -n "$@"
	else
		return 126
	fi
}

command -v dpkg-query >/dev/null && command -v apt-get >/dev/null ||
	skip "not a Debian-like host (no dpkg-query/apt-get)"

# ---- 1. host packages ------------------------------------------------------
missing=
# shellcheck disable=SC2086 # PKGS is a word list
installed=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' $PKGS 2>/dev/null |
	awk '$2 == "installed" { print $1 }' || true)
for p in $PKGS; do
	grep -qx "$p" <<< "$installed" || missing="$missing $p"
done
APT_UPDATED=0
apt_update() {
	[ "$APT_UPDATED" = 1 ] && return 0
	say "apt-get update"
	as_root apt-get -q -o DPkg::Lock::Timeout=300 update >&2 ||
		skip "apt-get update failed (need root or passwordless sudo, and network)"
	APT_UPDATED=1
}
if [ -n "$missing" ]; then
	say "installing:$missing"
	apt_update
	# shellcheck disable=SC2086
	as_root env DEBIAN_FRONTEND=noninteractive apt-get -q -y \
		-o DPkg::Lock::Timeout=300 install --no-install-recommends $missing >&2 ||
		skip "apt-get install$missing failed"
fi
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 not found after install"
[ -x /bin/busybox ] || skip "/bin/busybox (busybox-static) not found"

# ---- 2. kernel package -----------------------------------------------------
mkdir -p "$CACHE" 2>/dev/null || true
[ -d "$CACHE" ] || skip "cannot create the cache dir $CACHE (set RDS_VM_CACHE)"
if [ -w "$CACHE" ]; then
	# one builder at a time; the others wait, then find the cache complete
	exec 9>"$CACHE/.lock"
	flock -w 900 9 || die "timed out waiting for the lock on $CACHE"
fi

kpkg_from_apt() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-/ { print $2; exit }'
}
# "apt-cache depends" takes most of a second: remember its answer until the
# package lists change
lists_sig=$(stat -c '%n %Y %s' /var/lib/apt/lists/*_Packages* 2>/dev/null | sha256sum | cut -c1-16)
KPKG=${RDS_VM_KPKG:-}
if [ -z "$KPKG" ] && [ -f "$CACHE/kpkg" ]; then
	read -r sig pkg < "$CACHE/kpkg" || true
	[ "$sig" != "$lists_sig" ] || KPKG=$pkg
fi
if [ -z "$KPKG" ]; then
	KPKG=$(kpkg_from_apt || true)
	[ -z "$KPKG" ] || echo "$lists_sig $KPKG" 2>/dev/null > "$CACHE/kpkg" || true
fi
if [ -z "$KPKG" ] && [ -f "$CACHE/stamp" ]; then
	# no package lists (offline?): keep using what is cached
	KPKG=$(sed -n 's/^kpkg=//p' "$CACHE/stamp")
fi
if [ -z "$KPKG" ]; then
	apt_update
	KPKG=$(kpkg_from_apt || true)
	[ -n "$KPKG" ] || skip "cannot resolve linux-image-amd64 to a kernel package"
fi

STAMP="kpkg=$KPKG
busybox=$(dpkg-query -W -f='${Version}' busybox-static)
tools=$(cat "$HERE/init" "${BASH_SOURCE[0]}" | sha256sum | cut -d' ' -f1)"

if [ "$FORCE" = 0 ] && [ -f "$CACHE/stamp" ] && [ "$(cat "$CACHE/stamp")" = "$STAMP" ] &&
   [ -s "$CACHE/vmlinuz" ] && [ -s "$CACHE/initramfs.cpio.gz" ]; then
	say "cache complete ($KPKG)"
	say "vmlinuz:   $CACHE/vmlinuz"
	say "initramfs: $CACHE/initramfs.cpio.gz"
	exit 0
fi

# a complete cache can be used read-only (e.g. by users other than its builder)
[ -w "$CACHE" ] || skip "the cache $CACHE is out of date and not writable by $(id -un) (run vm-setup.sh as its owner, or set RDS_VM_CACHE)"

KTREE=$CACHE/kernel-$KPKG
if [ ! -f "$KTREE/.complete" ]; then
	# drop trees and .debs of older kernel packages
	rm -rf "$CACHE"/kernel-* "$CACHE/debs"
	mkdir -p "$CACHE/debs" "$KTREE"
	say "downloading $KPKG"
	apt_opts=()
	[ "$(id -u)" = 0 ] && apt_opts=(-o APT::Sandbox::User=root)
	(cd "$CACHE/debs" && apt-get -q "${apt_opts[@]}" download "$KPKG" >&2) || {
		apt_update
		(cd "$CACHE/debs" && apt-get -q "${apt_opts[@]}" download "$KPKG" >&2) ||
			skip "apt-get download $KPKG failed"
	}
	deb=$(ls "$CACHE/debs/${KPKG}"_*.deb | head -n1)
	say "unpacking $(basename "$deb")"
	dpkg -x "$deb" "$KTREE"
	KVER=$(ls "$KTREE/lib/modules" | head -n1)
	[ -n "$KVER" ] && [ -f "$KTREE/boot/vmlinuz-$KVER" ] ||
		die "$deb holds no kernel/modules"
	# the Debian package ships no modules.dep: generate it
	depmod -b "$KTREE" "$KVER"
	rm -f "$deb"     # the unpacked tree is all we need
	touch "$KTREE/.complete"
fi
KVER=$(ls "$KTREE/lib/modules" | head -n1)
MODDIR=$KTREE/lib/modules/$KVER

# ---- 3. initramfs ------------------------------------------------------------
say "building initramfs for $KVER"
BUILD=$(mktemp -d "$CACHE/build.XXXXXX")
trap 'rm -rf "$BUILD"' EXIT
R=$BUILD/root
mkdir -p "$R"/{bin,sbin,etc,proc,sys,dev,tmp,run,newroot,lib/modules/"$KVER"}
cp /bin/busybox "$R/bin/busybox"
for app in $("$R/bin/busybox" --list); do
	[ "$app" = busybox ] || ln -s busybox "$R/bin/$app"
done
# kernel request_module() calls /sbin/modprobe (set in /init)
ln -sf ../bin/busybox "$R/sbin/modprobe"

: > "$BUILD/files"
: > "$R/etc/rdsvm.modules"
for m in $MODULES; do
	deps=$(modprobe -d "$KTREE" -S "$KVER" --show-depends "$m" 2>&1) ||
		die "module $m not found in $KPKG: $deps"
	echo "$deps" | awk '$1 == "insmod" { print $2 }' >> "$BUILD/files"
	# list only real modules (not built-ins) for /init to load
	if grep -q '^insmod ' <<< "$deps"; then echo "$m" >> "$R/etc/rdsvm.modules"; fi
done
sort -u "$BUILD/files" | while read -r f; do
	rel=${f#"$MODDIR/"}
	mkdir -p "$R/lib/modules/$KVER/$(dirname "$rel")"
	cp "$f" "$R/lib/modules/$KVER/$rel"
done
for f in modules.builtin modules.builtin.modinfo modules.order; do
	[ -f "$MODDIR/$f" ] && cp "$MODDIR/$f" "$R/lib/modules/$KVER/"
done
depmod -b "$R" "$KVER"
install -m 0755 "$HERE/init" "$R/init"

(cd "$R" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 > "$BUILD/initramfs.cpio.gz"
cp "$KTREE/boot/vmlinuz-$KVER" "$BUILD/vmlinuz"
# replace atomically: a VM starting meanwhile sees either the old or the new pair
mv -f "$BUILD/vmlinuz" "$CACHE/vmlinuz"
mv -f "$BUILD/initramfs.cpio.gz" "$CACHE/initramfs.cpio.gz"
printf '%s\n' "$STAMP" > "$CACHE/stamp"

say "kernel $KVER ($KPKG), modules: $(tr '\n' ' ' < "$R/etc/rdsvm.modules")"
say "vmlinuz:   $CACHE/vmlinuz"
say "initramfs: $CACHE/initramfs.cpio.gz ($(du -h "$CACHE/initramfs.cpio.gz" | cut -f1))"

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# check-install.sh BUILD_DIR SOURCE_DIR
#
# Installs a librte_rds build into a temporary DESTDIR and checks what an
# application developer gets:
#
#  a. meson install --destdir TMP --no-rebuild (after making sure the build
#     is up to date: meson test only rebuilds the targets tests name, and
#     the install also takes targets no test names);
#  b. the tree: the shared library, its soname link and development link,
#     every public header of the source tree (lib/rds/rte_rds*.h,
#     drivers/rds/*/rte_rds_*.h), identical to the source, librte_rds.pc;
#     bin/rds-engined, bin/rds-info, librte_rds_preload.so and the man
#     pages of doc/ (rds-perf.1 and those of the tools: identical,
#     formatted by groff without a warning); the installed rds-info runs
#     (-h; no engine: status 1);
#  c. the ABI: every function declared in the installed headers is exported
#     by the .so, every symbol of lib/rds/version.map is declared in a
#     header and exported, and the .so exports nothing but rte_rds_*
#     (besides version nodes and linker symbols);
#  d. examples/hello built against the installed copy only, found as its
#     README says, with PKG_CONFIG_PATH=TMP/<prefix>/<libdir>/pkgconfig
#     alone (librte_rds.pc is relocatable; the script checks that the
#     headers and the library used come from TMP), with -Wall -Wextra
#     -Werror -std=gnu11, then run with LD_LIBRARY_PATH into TMP. Its
#     Makefile is built as well, the same way.
#
# Prints "install_check: PASS ..." and exits 0, or prints what is wrong and
# exits 1. Environment: HELLO_TIMEOUT (seconds, default 60) bounds the run
# of hello; CC (default cc); MAKE (default make).

set -euo pipefail

me=install_check

die() {
	echo "$me: FAIL: $*" >&2
	exit 1
}

note() {
	echo "$me: $*"
}

[ $# -eq 2 ] || { echo "usage: $0 BUILD_DIR SOURCE_DIR" >&2; exit 2; }
build_dir=$(cd "$1" && pwd) || die "no build directory $1"
source_dir=$(cd "$2" && pwd) || die "no source directory $2"
[ -f "$build_dir/meson-info/intro-buildoptions.json" ] ||
	die "$build_dir is not a configured meson build directory"

cc=${CC:-cc}
export LC_ALL=C

for tool in meson ninja nm readelf pkg-config python3 "$cc"; do
	command -v "$tool" >/dev/null || die "$tool not found"
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rds-install-check.XXXXXX")
eal_prefix=rds-hello-$$
cleanup() {
	rm -rf "$tmp"
	# EAL runtime directory of our hello run (named after our pid only).
	local d
	for d in "/var/run/dpdk/$eal_prefix" \
		 "${XDG_RUNTIME_DIR:-/nonexistent}/dpdk/$eal_prefix" \
		 "/tmp/dpdk/$eal_prefix"; do
		[ -d "$d" ] && rm -rf "$d"
	done
	return 0
}
trap cleanup EXIT

destdir=$tmp/root
work=$tmp/work
mkdir -p "$destdir" "$work"

# --------------------------------------------------------------------------
# a. install

# The directories the build was configured with (absolute, before DESTDIR).
# Meson stores libdir/includedir relative to prefix unless they lie
# outside it.
read -r prefix libdir includedir bindir mandir sanitize < <(python3 - "$build_dir" <<'EOF'
import json, os, sys
opts = {o['name']: o['value'] for o in json.load(open(os.path.join(
	sys.argv[1], 'meson-info', 'intro-buildoptions.json')))}
p = opts['prefix']
print(p, os.path.join(p, opts['libdir']), os.path.join(p, opts['includedir']),
      os.path.join(p, opts['bindir']), os.path.join(p, opts['mandir']),
      opts.get('b_sanitize', 'none'))
EOF
) || true
[ -n "${sanitize:-}" ] || die "cannot read prefix, libdir, includedir from $build_dir/meson-info"

note "bringing $build_dir up to date"
ninja -C "$build_dir" >"$tmp/ninja.log" 2>&1 ||
	{ cat "$tmp/ninja.log" >&2; die "ninja -C $build_dir failed"; }

note "meson install --destdir $destdir (prefix $prefix)"
meson install -C "$build_dir" --destdir "$destdir" --no-rebuild --quiet \
	>"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log" >&2; die "meson install failed"; }

root_prefix=$destdir$prefix
root_libdir=$destdir$libdir
root_incdir=$destdir$includedir
pcdir=$root_libdir/pkgconfig

# --------------------------------------------------------------------------
# b. the installed tree

missing=()

so=$root_libdir/librte_rds.so
if [ ! -e "$so" ]; then
	die "library not installed: ${so#"$destdir"} missing (DESTDIR $destdir)"
fi
[ -L "$so" ] || missing+=("${so#"$destdir"} is not a symlink (development link)")
soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
if [ -z "$soname" ]; then
	missing+=("${so#"$destdir"} has no SONAME")
elif [ ! -e "$root_libdir/$soname" ]; then
	missing+=("soname link $libdir/$soname")
fi
so_real=$(readlink -f "$so")

public_headers=()
shopt -s nullglob
for h in "$source_dir"/lib/rds/rte_rds*.h "$source_dir"/drivers/rds/*/rte_rds_*.h; do
	public_headers+=("$h")
done
shopt -u nullglob
[ ${#public_headers[@]} -gt 0 ] || die "no public header found under $source_dir"
for h in "${public_headers[@]}"; do
	inst=$root_incdir/$(basename "$h")
	if [ ! -f "$inst" ]; then
		missing+=("header $includedir/$(basename "$h") (from ${h#"$source_dir"/})")
	elif ! cmp -s "$h" "$inst"; then
		missing+=("header $includedir/$(basename "$h") differs from ${h#"$source_dir"/}")
	fi
done

[ -f "$pcdir/librte_rds.pc" ] || missing+=("pkg-config file $libdir/pkgconfig/librte_rds.pc")
# rds-perf's man page (app/rds-perf/meson.build: install_man).
man1=$(find "$root_prefix" -path '*/man1/rds-perf.1' -print -quit)
{ [ -n "$man1" ] && cmp -s "$source_dir/doc/rds-perf.1" "$man1"; } ||
	missing+=("man page man1/rds-perf.1 (from doc/rds-perf.1)")

# The programs, the preload library and the man pages.
for p in rds-engined rds-info; do
	[ -x "$destdir$bindir/$p" ] || missing+=("program $bindir/$p")
done
[ -e "$root_libdir/librte_rds_preload.so" ] ||
	missing+=("preload library $libdir/librte_rds_preload.so")
man_pages=(man8/rds-engined.8 man8/rds-info.8 man7/librte_rds_preload.7 man1/rds-perf.1)
for m in "${man_pages[@]}"; do
	inst=$destdir$mandir/$m
	if [ ! -f "$inst" ]; then
		missing+=("man page $mandir/$m")
	elif ! cmp -s "$source_dir/doc/${m#*/}" "$inst"; then
		missing+=("man page $mandir/$m differs from doc/${m#*/}")
	fi
done

if [ ${#missing[@]} -gt 0 ]; then
	echo "$me: the installed tree lacks:" >&2
	printf '  %s\n' "${missing[@]}" >&2
	echo "$me: installed files:" >&2
	(cd "$destdir" && find . ! -type d | sort | sed 's/^\./  /') >&2
	die "installed tree incomplete"
fi
note "installed: ${so_real#"$destdir"} (soname $soname), ${#public_headers[@]} public headers, librte_rds.pc, rds-engined, rds-info, librte_rds_preload.so, ${#man_pages[@]} man pages"

# The man pages format without a warning.
if command -v groff >/dev/null; then
	for m in "${man_pages[@]}"; do
		w=$(groff -man -Tutf8 -ww -z "$destdir$mandir/$m" 2>&1) ||
			die "groff fails on $mandir/$m: $w"
		[ -z "$w" ] || die "groff warns on $mandir/$m: $w"
	done
	note "man pages format without warnings (groff -man -ww)"
else
	note "(groff not found: man pages not formatted)"
fi

# The installed rds-info runs from the installed library: its help, and
# a clear failure with no engine at the path given.
info_out=$(LD_LIBRARY_PATH=$root_libdir "$destdir$bindir/rds-info" -h 2>&1) ||
	die "installed rds-info -h failed: $info_out"
grep -q '^Usage: ' <<<"$info_out" || die "installed rds-info -h printed no usage: $info_out"
set +e
info_out=$(LD_LIBRARY_PATH=$root_libdir "$destdir$bindir/rds-info" -E "$tmp/no-engine.sock" -k 2>&1)
rc=$?
set -e
[ $rc -eq 1 ] && grep -q 'no engine at' <<<"$info_out" ||
	die "installed rds-info with no engine: status $rc, '$info_out' (want 1, 'no engine at')"
note "installed rds-info runs (help; no engine: status 1)"

# --------------------------------------------------------------------------
# c. exports

# Functions (and extern variables) declared in one header, one
# "kind name" per line (F: function, V: variable). The compiler strips the
# comments (-fpreprocessed: no macro expansion, no #include); the awk
# script then drops directives and the C++-only lines of #ifdef __cplusplus,
# skips the bodies of structs, enums and inline functions, and looks at
# every file-scope declaration as a whole, from the previous ';' or '}' to
# its ';'. So both styles are found:
#     int rte_rds_x(int a);               (return type on the same line)
#     __rte_experimental int
#     rte_rds_x(int a);                   (return type on its own line)
# typedefs and static (inline) functions are not exported and are skipped.
# A declaration counts as a function when an rte_rds_* name is followed by
# '(' (so function pointers "(*rte_rds_cb)(...)" do not count).
parse_header() {
	"$cc" -fpreprocessed -dD -E -P -x c "$1" | awk '
	function emit(s,   name) {
		gsub(/[ \t]+/, " ", s)
		if (s ~ /^ ?typedef /)
			return
		if (s ~ /(^|[^A-Za-z0-9_])static([^A-Za-z0-9_]|$)/)
			return
		if (match(s, /rte_rds_[A-Za-z0-9_]+ ?\(/)) {
			# reject a match that is the tail of a longer identifier
			if (RSTART > 1 && substr(s, RSTART - 1, 1) ~ /[A-Za-z0-9_]/)
				return
			name = substr(s, RSTART, RLENGTH)
			sub(/ ?\($/, "", name)
			print "F " name
		} else if (s ~ /(^|[^A-Za-z0-9_])extern / && s !~ /[({]/) {
			sub(/\[.*$/, "", s)	# array bounds
			sub(/ +$/, "", s)
			if (match(s, /[A-Za-z_][A-Za-z0-9_]*$/))
				print "V " substr(s, RSTART, RLENGTH)
		}
	}
	BEGIN { depth = 0; stmt = ""; head = ""; cont = 0; sp = 0; str = "" }
	cont { cont = ($0 ~ /\\$/); next }
	/^[ \t]*#/ {
		cont = ($0 ~ /\\$/)
		d = $0
		sub(/^[ \t]*#[ \t]*/, "", d)
		if (d ~ /^if/) {
			sp++
			cpp[sp] = (d ~ /^ifdef[ \t]+__cplusplus/ ||
				   d ~ /^if[ \t]+defined[ \t(]*__cplusplus/)
		} else if (d ~ /^(else|elif)/) {
			if (sp > 0 && cpp[sp] == 1)
				cpp[sp] = 2
		} else if (d ~ /^endif/) {
			if (sp > 0)
				sp--
		}
		next
	}
	{
		for (k = 1; k <= sp; k++)
			if (cpp[k] == 1)
				next
		n = length($0)
		for (i = 1; i <= n; i++) {
			c = substr($0, i, 1)
			if (str != "") {	# inside a string or char literal
				if (c == "\\")
					i++
				else if (c == str)
					str = ""
				if (depth == 0)
					stmt = stmt "x"
				continue
			}
			if (c == "\"" || c == "\047") {
				str = c
				if (depth == 0)
					stmt = stmt "x"
				continue
			}
			if (c == "{") {
				if (depth == 0)
					head = stmt
				depth++
				continue
			}
			if (c == "}") {
				depth--
				# end of a function body: the declaration ends here
				if (depth == 0 && head ~ /\)[ \t]*$/) {
					emit(head)
					stmt = ""
				}
				continue
			}
			if (depth > 0)
				continue
			if (c == ";") {
				emit(stmt)
				stmt = ""
				continue
			}
			stmt = stmt c
		}
		if (depth == 0)
			stmt = stmt " "
	}'
}

# Symbols of the global: sections of a GNU ld version script.
parse_version_map() {
	sed -e 's/#.*//' "$1" | tr '\n' ' ' |
		sed -e 's:/\*[^*]*\*\+\([^/*][^*]*\*\+\)*/: :g' \
		    -e 's/[{};]/ & /g' -e 's/[ \t]*:/: /g' |
		tr -s ' \t' '\n' | awk '
		/^$/ { next }
		$0 == "{" { depth++; if (depth == 1) { glob = 1; tail = 0 } ; next }
		$0 == "}" { depth--; if (depth == 0) tail = 1; next }
		$0 == ";" { if (depth == 0) tail = 0; next }
		tail { next }			# "} PARENT_NODE ;"
		$0 == "global:" { glob = 1; next }
		$0 == "local:" { glob = 0; next }
		depth >= 1 && glob { print }
		'
}

: >"$work/declared.txt"
for h in "$root_incdir"/*.h; do
	parse_header "$h" | while read -r kind name; do
		printf '%s %s %s\n' "$name" "$kind" "$(basename "$h")"
	done
done | sort -u >"$work/declared.txt"

cut -d' ' -f1 "$work/declared.txt" | sort -u >"$work/declared.names"
awk '$2 == "F" { print $1 }' "$work/declared.txt" | sort -u >"$work/functions.names"

version_map=$source_dir/lib/rds/version.map
[ -f "$version_map" ] || die "no $version_map"
parse_version_map "$version_map" | sort -u >"$work/vmap.names"
[ -s "$work/vmap.names" ] || die "no global symbol found in $version_map"

nm -D --defined-only "$so_real" >"$work/nm.txt" || die "nm -D $so_real failed"
# Type A: version node names (RDS_0). Strip the @@VERSION suffix.
awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' "$work/nm.txt" |
	sort -u >"$work/exported.names"

# Linker-defined symbols that are no part of the API but may be global.
printf '%s\n' _init _fini _edata _end __bss_start | sort >"$work/linker.names"

problems=0
report() {	# report TITLE FILE: print the names in FILE under TITLE
	if [ -s "$2" ]; then
		echo "$me: $1:" >&2
		sed 's/^/  /' "$2" >&2
		problems=1
	fi
}

# 1. declared in an installed header, not exported
comm -23 "$work/declared.names" "$work/exported.names" |
	while read -r name; do
		grep "^$name " "$work/declared.txt" | head -1 |
			awk '{ printf "%s (%s)\n", $1, $3 }'
	done >"$work/err1"
report "declared in an installed header but not exported by ${so_real##*/} (missing from version.map or not defined)" "$work/err1"

# 2. in version.map, not declared in any installed header
grep -F '*' "$work/vmap.names" >"$work/vmap.globs" || true
grep -vF '*' "$work/vmap.names" | comm -23 - "$work/declared.names" >"$work/err2" || true
report "listed in version.map but declared in no installed header" "$work/err2"
report "wildcard entries in version.map's global: (not allowed: list names)" "$work/vmap.globs"

# 3. in version.map, not exported (listed but not defined)
grep -vF '*' "$work/vmap.names" | comm -23 - "$work/exported.names" >"$work/err3" || true
report "listed in version.map but not defined in ${so_real##*/}" "$work/err3"

# 4. exported, but not rte_rds_*
grep -v '^rte_rds_' "$work/exported.names" | comm -23 - "$work/linker.names" >"$work/err4" || true
report "exported by ${so_real##*/} without the rte_rds_ prefix" "$work/err4"

# 5. exported rte_rds_*, but in no header (a symbol the API does not show)
grep '^rte_rds_' "$work/exported.names" | comm -23 - "$work/declared.names" >"$work/err5" || true
report "exported by ${so_real##*/} but declared in no installed header" "$work/err5"

[ "$problems" -eq 0 ] || die "export check failed (headers in $includedir, $version_map, nm -D ${so_real#"$destdir"})"
note "exports: $(wc -l <"$work/functions.names") functions declared in the headers, $(wc -l <"$work/vmap.names") in version.map, $(grep -c '^rte_rds_' "$work/exported.names") exported; all agree"

# --------------------------------------------------------------------------
# d. build examples/hello against the installed copy, and run it

hello_src=$source_dir/examples/hello
[ -f "$hello_src/hello.c" ] || die "no $hello_src/hello.c"
# Copies outside the source tree: nothing but the installed files to find.
mkdir -p "$work/cc" "$work/make"
cp "$hello_src/hello.c" "$work/cc/"
cp "$hello_src/hello.c" "$hello_src/Makefile" "$work/make/"

export PKG_CONFIG_PATH=$pcdir
unset PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR
pc_found=$(pkg-config --path librte_rds) || die "pkg-config does not find librte_rds in $pcdir"
[ "$pc_found" = "$pcdir/librte_rds.pc" ] ||
	die "pkg-config finds $pc_found, not the installed $pcdir/librte_rds.pc"
# The README's (examples/hello/README.md) way to a copy installed with
# --destdir: PKG_CONFIG_PATH alone. librte_rds.pc is relocatable
# (prefix=${pcfiledir}/...): its prefix is where the copy is.
pc_prefix=$(pkg-config --variable=prefix librte_rds)
[ "$(realpath -m "$pc_prefix")" = "$(realpath -m "$root_prefix")" ] ||
	die "librte_rds.pc's prefix is $pc_prefix, not the installed copy's $root_prefix (not relocatable?)"
# librte_rds's own flags (traversal depth 2 is the package itself,
# without its Requires) must point into DESTDIR; the Requires' (libdpdk)
# are the system's.
rds_flags=$(pkg-config --maximum-traverse-depth=2 --cflags --libs librte_rds) ||
	die "pkg-config --cflags --libs librte_rds failed"
requires=$(pkg-config --print-requires librte_rds)
note "pkg-config librte_rds (PKG_CONFIG_PATH=$pcdir): $rds_flags"
note "pkg-config requires: ${requires//$'\n'/ }"

# Every -I and -L of librte_rds's own flags must point into DESTDIR, and
# exist; -lrte_rds must be there.
bad=()
for f in $rds_flags; do
	case $f in
	-I* | -L*)
		d=${f:2}
		case $d in
		"$destdir"/*) [ -d "$d" ] || bad+=("$f (no such directory)") ;;
		*) bad+=("$f (outside $destdir)") ;;
		esac
		;;
	esac
done
case " $rds_flags " in
*" -lrte_rds "*) ;;
*) bad+=("no -lrte_rds") ;;
esac
[ ${#bad[@]} -eq 0 ] || die "pkg-config flags of librte_rds do not point into the installed copy: ${bad[*]}"
cflags=$(pkg-config --cflags librte_rds) || die "pkg-config --cflags librte_rds failed"
libs=$(pkg-config --libs librte_rds) || die "pkg-config --libs librte_rds failed"
warn="-Wall -Wextra -Werror -std=gnu11"
san=
if [ "$sanitize" != none ]; then
	# A sanitized library needs its runtime first in the program.
	san="-fsanitize=$sanitize"
fi

# The headers the compiler uses must be the installed ones.
# shellcheck disable=SC2086
"$cc" $warn $san $cflags -M -MF "$work/hello.d" -o /dev/null -c "$work/cc/hello.c" >/dev/null 2>&1 || true
if [ -f "$work/hello.d" ]; then
	tr -s '\\ ' '\n' <"$work/hello.d" | grep -E '/rte_rds[^/]*\.h$' | sort -u >"$work/hello.hdrs" || true
	if grep -v "^$destdir/" "$work/hello.hdrs" >"$work/hello.badhdrs"; then
		report "hello.c would include headers from outside the installed copy" "$work/hello.badhdrs"
		die "header search picks up another librte_rds"
	fi
	grep -q '/rte_rds\.h$' "$work/hello.hdrs" || die "hello.c does not include the installed rte_rds.h"
fi

hello=$work/cc/hello
cmd="$cc $warn $san $cflags -o $hello $work/cc/hello.c $libs"
note "compile: $cmd"
# shellcheck disable=SC2086
if ! $cmd >"$work/cc.log" 2>&1; then
	cat "$work/cc.log" >&2
	die "examples/hello does not build against the installed librte_rds"
fi

# The Makefile too, with -Werror, finding librte_rds as the README says:
# with PKG_CONFIG_PATH only.
make=${MAKE:-make}
if command -v "$make" >/dev/null; then
	if ! "$make" -C "$work/make" CC="$cc" CFLAGS="-O2 $san" WARNFLAGS="$warn" \
		hello >"$work/make.log" 2>&1; then
		cat "$work/make.log" >&2
		die "examples/hello/Makefile does not build against the installed librte_rds"
	fi
	note "examples/hello/Makefile builds too"
else
	note "($make not found: Makefile not tried)"
fi

export LD_LIBRARY_PATH=$root_libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
loaded=$(ldd "$hello" | awk '$1 ~ /^librte_rds\.so/ { print $3 }')
[ -n "$loaded" ] || die "hello is not linked with librte_rds ($(ldd "$hello" | tr '\n' ' '))"
case $loaded in
"$root_libdir"/*) ;;
*) die "hello would load $loaded, not the installed copy in $root_libdir" ;;
esac
note "hello loads ${loaded#"$destdir"} from DESTDIR"

eal_args=(-l 0 --no-pci --no-huge -m 256 "--file-prefix=$eal_prefix" --log-level=lib.eal:error)
note "run: LD_LIBRARY_PATH=$root_libdir $hello ${eal_args[*]}"
set +e
timeout "${HELLO_TIMEOUT:-60}" "$hello" "${eal_args[@]}" >"$work/hello.out" 2>&1
rc=$?
set -e
sed 's/^/  | /' "$work/hello.out"
if [ $rc -eq 124 ]; then
	die "hello did not finish within ${HELLO_TIMEOUT:-60} s"
elif [ $rc -ne 0 ]; then
	die "hello exited with status $rc"
fi
grep -q '^hello: OK$' "$work/hello.out" || die "hello exited 0 without printing 'hello: OK'"

echo "$me: PASS: installed to DESTDIR with prefix $prefix; ${#public_headers[@]} headers; $(grep -c '^rte_rds_' "$work/exported.names") exports match headers and version.map; examples/hello built and ran against the installed copy"

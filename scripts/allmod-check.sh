#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Compile every kernel .c file the series adds or changes in an allmodconfig
# build (build/obj-allmod): pghot, PGHOT_PRECISE and the IBS source on, KUnit
# as a module (so the KUnit test headers drop out), every sanitizer and
# debug option the config system allows, and CONFIG_WERROR, so that any
# warning fails.  This is the "allmodconfig" check reviewers and the 0-day
# bot run; only the objects the series touches are built, not the kernel.

. "$(dirname "$0")/lib.sh"

obj=$BUILD/obj-allmod
setup_cc
mk() { make -C "$KSRC" O="$obj" CC="$CC_CMD" HOSTCC=gcc -j"$(jobs_nr)" "$@"; }

mapfile -t files < <(git -C "$KSRC" diff --name-only --diff-filter=AM "$BASE_TAG..HEAD" -- '*.c' |
		     grep -v -e '^tools/' -e '^Documentation/' || true)
[ ${#files[@]} -gt 0 ] || { echo "the series changes no kernel C file"; exit 0; }

mkdir -p "$obj"
mk allmodconfig > "$obj/config.log" 2>&1 || { cat "$obj/config.log"; die "allmodconfig failed"; }
for sym in PGHOT PGHOT_PRECISE PGHOT_IBS; do
	grep -q "^CONFIG_$sym=y" "$obj/.config" || die "allmodconfig did not enable CONFIG_$sym"
done
grep -q '^CONFIG_WERROR=y' "$obj/.config" || die "allmodconfig did not enable CONFIG_WERROR"

objs=()
for f in "${files[@]}"; do objs+=("${f%.c}.o"); done
echo "allmodconfig: building ${objs[*]}"
if ! mk "${objs[@]}" > "$obj/build.log" 2>&1; then
	grep -E -B2 -A6 'error:|warning:' "$obj/build.log" | head -80
	die "allmodconfig build of the touched files failed (log: $obj/build.log)"
fi
missing=0
for o in "${objs[@]}"; do
	[ -f "$obj/$o" ] || { echo "not built: $o"; missing=$((missing + 1)); }
done
[ "$missing" = 0 ] || die "$missing objects were not built"
echo "allmodconfig: ${#objs[@]} objects built with CONFIG_WERROR, no warning"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bisect-check.sh: every patch of the series builds on its own.
#
# Applies patches/series one patch at a time with git am, in a scratch tree
# of its own (build/bisect/linux, so that the developer's build/linux is
# left alone), and after each patch builds what it changed with the test
# kernel's configuration (tinyconfig + guest.config + pghot.config):
#
#   - a patch that changes a header, a Kconfig or a Makefile: the whole
#     kernel, incrementally (kbuild rebuilds every object that depends on
#     what changed), and the link of vmlinux;
#   - a patch that changes only .c files: the objects of those files that
#     the configuration builds;
#   - a patch that changes the pghot selftests: those programs;
#   - documentation and MAINTAINERS only: nothing to build.
#
# ccache makes the objects of a state built before cost a lookup.  The
# configuration is made again from the fragments wherever a patch changes a
# Kconfig file, so that a new option gets the value the fragments ask for.
#
# Prints one line per patch and a last line "N patches build ...".

. "$(dirname "$0")/lib.sh"

[ -d "$KSRC/.git" ] || die "no tree at $KSRC (make tree)"
git -C "$KSRC" rev-parse -q --verify "$BASE_TAG" >/dev/null || die "no $BASE_TAG in $KSRC"

dir=$BUILD/bisect
src=$dir/linux
obj=$dir/obj-test
logs=$dir/logs
mkdir -p "$dir" "$obj"
rm -rf "$logs"
mkdir -p "$logs"

# The scratch tree shares the developer's object store (the clone carries
# the base tag) and is reset to the base, touching only the files that
# differ: a second run rebuilds little.
if [ ! -d "$src/.git" ]; then
	git clone -q --shared --no-checkout "$KSRC" "$src"
fi
git -C "$src" am --abort >/dev/null 2>&1 || true
git -C "$src" checkout -q -f --detach "$BASE_TAG"
git -C "$src" clean -q -f -d
git -C "$src" config user.name >/dev/null || git -C "$src" config user.name bisect-check
git -C "$src" config user.email >/dev/null || git -C "$src" config user.email bisect-check@pghot.invalid

setup_cc
kmake() { make -s -C "$src" O="$obj" CC="$CC_CMD" HOSTCC=gcc "$@"; }

frags=("$ROOT/configs/guest.config" "$ROOT/configs/pghot.config")
configure() {
	kmake tinyconfig >/dev/null
	# Options of later patches do not exist yet: merge_config warns, and
	# olddefconfig drops them.
	(cd "$src" && scripts/kconfig/merge_config.sh -m -O "$obj" "$obj/.config" "${frags[@]}") > /dev/null 2>&1
	kmake olddefconfig >/dev/null
}

# What a patch asks to be built: full, objects, selftests or nothing.
build_kind() { # files...
	local f kind=none
	for f in "$@"; do
		case $f in
		Documentation/*|MAINTAINERS) ;;
		tools/testing/selftests/*) [ "$kind" = none ] && kind=selftests ;;
		*.c) [ "$kind" = full ] || kind=objects ;;
		*) kind=full ;;
		esac
	done
	echo "$kind"
}

nfull=0 nobj=0 nself=0 ndoc=0 n=0 bad=0 configured=0
start=$(date +%s)
while read -r p; do
	case "$p" in ''|'#'*|0000-*) continue ;; esac
	n=$((n + 1))
	log=$logs/${p%.patch}.log
	if ! git -C "$src" am -q "$ROOT/patches/$p" > "$log" 2>&1; then
		echo "FAIL $p: does not apply"
		bad=1
		break
	fi
	mapfile -t files < <(git -C "$src" diff --name-only HEAD~1 HEAD)
	kind=$(build_kind "${files[@]}")
	# Objects alone need a built tree to be rebuilt in.
	[ "$kind" = objects ] && [ ! -f "$obj/vmlinux" ] && kind=full
	t0=$(date +%s)
	ok=1
	if [ "$kind" != none ] && { [ $configured = 0 ] ||
	   printf '%s\n' "${files[@]}" | grep -q 'Kconfig'; }; then
		configure >> "$log" 2>&1 || ok=0
		configured=1
	fi
	what=
	case $kind in
	full)
		nfull=$((nfull + 1))
		what="kernel"
		kmake -j"$(jobs_nr)" vmlinux >> "$log" 2>&1 || ok=0 ;;
	objects)
		nobj=$((nobj + 1))
		objs=()
		for f in "${files[@]}"; do
			case $f in
			*.c) [ -f "$obj/${f%.c}.o" ] && objs+=("${f%.c}.o") ;;
			esac
		done
		what="${objs[*]:-no configured object}"
		if [ ${#objs[@]} -gt 0 ]; then
			kmake -j"$(jobs_nr)" "${objs[@]}" >> "$log" 2>&1 || ok=0
		fi ;;
	selftests)
		nself=$((nself + 1))
		what="selftests"
		mkdir -p "$dir/selftests"
		make -s -C "$src/tools/testing/selftests/mm/pghot" \
			OUTPUT="$dir/selftests" >> "$log" 2>&1 || ok=0 ;;
	none)
		ndoc=$((ndoc + 1))
		what="documentation only" ;;
	esac
	if [ $ok = 1 ]; then
		printf 'ok   %s: %s (%ss)\n' "$p" "$what" "$(( $(date +%s) - t0 ))"
	else
		printf 'FAIL %s: %s\n' "$p" "$what"
		grep -E 'error|Error' "$log" | head -n 20
		bad=1
		break
	fi
done < "$ROOT/patches/series"

[ $bad = 0 ] || { echo "a patch does not build on its own: logs in $logs"; exit 1; }
[ $n -gt 0 ] || die "no patch in patches/series"
echo "$n patches build one by one ($nfull kernels, $nobj object sets, $nself selftest sets, $ndoc docs only) in $(( $(date +%s) - start ))s"

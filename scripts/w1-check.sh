#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Compile every kernel .c file the series adds or changes with W=1 in the test
# kernel's build directory, and fail on any warning that points at a line the
# series added or changed (in any file it touches).  Warnings on untouched
# lines of mainline files are not ours and are only counted.

. "$(dirname "$0")/lib.sh"

obj=$BUILD/obj-test
[ -f "$obj/.config" ] || die "build the test kernel first"
setup_cc

mapfile -t files < <(git -C "$KSRC" diff --name-only --diff-filter=AM "$BASE_TAG..HEAD" -- '*.c' '*.h' |
		     grep -v -e '^tools/' -e '^Documentation/' || true)

# file:line pairs the series added or changed.
changed=$(mktemp)
trap 'rm -f "$changed"' EXIT
for f in "${files[@]}"; do
	git -C "$KSRC" diff -U0 "$BASE_TAG..HEAD" -- "$f" |
	sed -nE 's/^@@ -[0-9,]+ \+([0-9]+)(,([0-9]+))? @@.*/\1 \3/p' |
	while read -r start count; do
		count=${count:-1}
		for ((l = start; l < start + count; l++)); do echo "$f:$l"; done
	done
done > "$changed"

objs=()
for f in "${files[@]}"; do
	case $f in *.c) ;; *) continue ;; esac
	if [ -f "$obj/${f%.c}.o" ]; then
		objs+=("${f%.c}.o")
	else
		echo "not built in this config: $f"
	fi
done
if [ ${#objs[@]} = 0 ]; then
	echo "W=1: the series changes no kernel C file built in this config"
	exit 0
fi

out=$(make -C "$KSRC" O="$obj" CC="$CC_CMD" HOSTCC=gcc W=1 -j"$(jobs_nr)" "${objs[@]}" 2>&1) ||
	{ echo "$out"; die "W=1 build failed"; }
ours=0 theirs=0
while IFS= read -r w; do
	loc=$(echo "$w" | sed -E 's#^(\.\./)*##; s#^'"$KSRC"'/##' | cut -d: -f1,2)
	if grep -qxF "$loc" "$changed"; then
		echo "NEW: $w"
		ours=$((ours + 1))
	else
		theirs=$((theirs + 1))
	fi
done < <(echo "$out" | grep -E '^[^ ]+:[0-9]+:[0-9]+: warning:' || true)
echo "W=1: ${#objs[@]} objects, $ours warnings on changed lines, $theirs on untouched mainline lines"
[ "$ours" = 0 ]

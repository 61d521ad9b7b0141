#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Export the commits of build/linux on top of pghot-base into patches/ as
# git format-patch files plus a series file.  The output depends only on the
# commits' content, author and author date, so re-exporting an unchanged tree
# changes no byte.  patches/0000-cover-letter.patch is written by hand and
# kept as it is.
#
# --check: export to a scratch directory and fail if patches/ differs, or if
# the tree holds uncommitted edits.

. "$(dirname "$0")/lib.sh"

check=0
[ "${1:-}" = --check ] && check=1

[ -d "$KSRC/.git" ] || { [ $check = 1 ] && exit 0; die "no tree at $KSRC (make tree)"; }

export_to() {
	local out=$1 n
	mkdir -p "$out"
	n=$(git -C "$KSRC" rev-list --count "$BASE_TAG..HEAD")
	if [ "$n" -gt 0 ]; then
		git -C "$KSRC" -c core.abbrev=12 -c diff.noprefix=false \
			-c diff.mnemonicPrefix=false -c diff.renames=true \
			-c format.signature= -c format.coverLetter=false \
			format-patch -q --zero-commit --no-signature --numbered \
			--subject-prefix=PATCH --no-cover-letter -o "$out" \
			"$BASE_TAG..HEAD" >/dev/null
	fi
	{
		[ -f "$ROOT/patches/0000-cover-letter.patch" ] &&
			echo "# 0000-cover-letter.patch is the cover letter; it is not applied"
		(cd "$out" && ls -1 [0-9]*.patch 2>/dev/null | grep -v '^0000-' || true) |
			mark_part2
	} > "$out/series.new"
	mv "$out/series.new" "$out/series"
}

# The "# part 2" line of patches/series stays before the patch it preceded,
# found by its subject (the file name without its number), wherever a
# rebase moved it.
mark_part2() {
	local first=
	first=$(awk '/^# part 2/ { getline; print; exit }' "$ROOT/patches/series" 2>/dev/null |
		sed 's/^[0-9]*-//')
	awk -v first="$first" '
		first != "" && !done { name = $0; sub(/^[0-9]*-/, "", name)
			if (name == first) { print "# part 2: optional mechanisms on top of part 1"; done = 1 } }
		{ print }'
}

if [ $check = 1 ]; then
	dirty=$(git -C "$KSRC" status --porcelain)
	if [ -n "$dirty" ]; then
		echo "uncommitted edits in $KSRC:" >&2
		echo "$dirty" | head -20 >&2
		exit 1
	fi
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	export_to "$tmp"
	[ -f "$ROOT/patches/0000-cover-letter.patch" ] &&
		cp "$ROOT/patches/0000-cover-letter.patch" "$tmp/"
	if ! diff -r -q "$ROOT/patches" "$tmp" >&2; then
		echo "patches/ is not up to date with $KSRC: run make export" >&2
		exit 1
	fi
	exit 0
fi

find "$ROOT/patches" -maxdepth 1 -name '[0-9]*.patch' ! -name '0000-*' -delete
export_to "$ROOT/patches"
log "exported $(grep -vc '^#' "$ROOT/patches/series" || true) patches"

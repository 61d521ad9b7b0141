#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# part1-tree.sh: check out part 1 of the series, the patches of
# patches/series before its "# part 2" line, in build/part1/linux, so that
# make check can build, boot and test part 1 alone with BUILD=build/part1.
#
# The tree shares its objects with build/linux, and moves to the part-1
# commit of build/linux with a checkout that rewrites only the files that
# differ, so that an unchanged part 1 is not rebuilt.  Prints the part-1
# commit and its patch count.  Fails when the series has no "# part 2" line.

. "$(dirname "$0")/lib.sh"

[ -d "$KSRC/.git" ] || die "no tree at $KSRC (make tree)"
series=$ROOT/patches/series
grep -q '^# part 2' "$series" || die "no '# part 2' line in $series"
n=$(awk '/^# part 2/ { stop = 1 } !stop && /^[^#]/ && NF { n++ } END { print n + 0 }' "$series")
total=$(grep -c '^[^#]' "$series")
have=$(git -C "$KSRC" rev-list --count "$BASE_TAG..HEAD")
[ "$have" = "$total" ] || die "$KSRC has $have patches, patches/series $total (make export or make tree)"
commit=$(git -C "$KSRC" rev-list --reverse "$BASE_TAG..HEAD" | sed -n "${n}p")
[ -n "$commit" ] || die "part 1 is empty"

dst=$BUILD/part1/linux
if [ ! -d "$dst/.git" ]; then
	mkdir -p "$BUILD/part1"
	git clone -q --shared --no-checkout "$KSRC" "$dst"
fi
# The clone borrows build/linux's objects, new commits included.
git -C "$dst" cat-file -e "$commit^{commit}" || die "$commit not found from $dst"
git -C "$dst" checkout -q --detach --force "$commit"
git -C "$dst" clean -q -fdx
echo "part 1: $n patches, $(git -C "$dst" log -1 --format='%h %s')"

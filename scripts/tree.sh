#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Assemble the kernel tree under build/linux: the base commit (tagged
# pghot-base) plus every patch named in patches/series, applied with
# `git am` (no fuzz, no three-way merge).  Refuses to throw away work
# that has not been exported, unless FORCE=1.

. "$(dirname "$0")/lib.sh"

base=$("$ROOT/scripts/fetch-base.sh")

if [ -d "$KSRC/.git" ]; then
	if [ "${FORCE:-0}" != 1 ] && ! "$ROOT/scripts/export.sh" --check >/dev/null 2>&1; then
		die "$KSRC holds work not exported to patches/ (make export, or FORCE=1 to discard it)"
	fi
	rm -rf "$KSRC"
fi
mkdir -p "$BUILD"
log "cloning base into $KSRC"
git clone -q --no-checkout "$base" "$KSRC"
git -C "$KSRC" checkout -q -B pghot "$BASE_TAG"
git -C "$KSRC" config am.threeWay false
git -C "$KSRC" config core.abbrev 12

applied=0
while read -r p; do
	case "$p" in ''|'#'*) continue ;; esac
	[ -f "$ROOT/patches/$p" ] || die "series names missing patch $p"
	if ! git -C "$KSRC" am -q --whitespace=error-all "$ROOT/patches/$p" >&2; then
		git -C "$KSRC" am --abort || true
		die "patch $p does not apply"
	fi
	applied=$((applied + 1))
done < "$ROOT/patches/series"
log "applied $applied patches on $BASE_TAG"

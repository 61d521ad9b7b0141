#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make htmldocs: build the HTML of Documentation/admin-guide/mm, the directory
# of pghot.rst, with the kernel's own "make SPHINXDIRS=admin-guide/mm
# htmldocs", out of tree in $BUILD/htmldocs/series, and fail on any warning
# that the series adds.  Then run kernel-doc, as W=1 does, on the kernel .c
# and .h files the series adds or changes (w1-check.sh only reads compiler
# warnings), and fail on any kernel-doc warning the series adds.
#
# The test is "no warning that the base tree does not have", not "no
# warning": built on its own, admin-guide/mm has warnings in mainline too
# (its references into Documentation/mm, for DAMON and KHO, cannot resolve
# in a partial build), and which ones appear depends on the Sphinx and
# docutils versions and on optional tools (graphviz's dot).  So $BASE_TAG is
# built the same way, with the same Sphinx, and the two lists of warnings
# are compared line by line as multisets, without the tree's path and the
# line numbers (the series moves lines in the files it edits).  A count
# would let a new warning hide behind one that went away; matching file
# names would miss a warning the series causes in a mainline file.
#
# The base build needs a full export of $BASE_TAG (about 1.8 GB and 20 s; it
# is deleted afterwards), so its warnings are cached in $BUILD/htmldocs,
# keyed by the base commit and the tool versions.  Later runs build only the
# series, from scratch (an incremental Sphinx build would not repeat the
# warnings of unchanged files): a few seconds.
#
# HTMLDOCS_TREE=<dir> checks another checkout of the series (e.g. a git
# worktree of build/linux) instead of build/linux.  SPHINXOPTS is passed on;
# the default -j1 is as fast as more jobs for one directory.

. "$(dirname "$0")/lib.sh"

TREE=$(cd "${HTMLDOCS_TREE:-$KSRC}" 2>/dev/null && pwd) ||
	die "no kernel tree at ${HTMLDOCS_TREE:-$KSRC}; run make tree"
[ -f "$TREE/Documentation/Makefile" ] || die "$TREE is not a kernel tree"
OUT=$BUILD/htmldocs
DIRS=admin-guide/mm
SPHINXOPTS=${SPHINXOPTS:--j1}
# Debian's Python and Sphinx, not a python3 of the user's (pyenv, venv)
# that lacks the modules.
export PATH=/usr/bin:$PATH
export PYTHONDONTWRITEBYTECODE=1
command -v sphinx-build >/dev/null || die "sphinx-build missing; run make deps"

base=$(git -C "$TREE" rev-parse --verify -q "$BASE_TAG^{commit}") ||
	die "$TREE has no $BASE_TAG tag"
mkdir -p "$OUT"
tmp=$(mktemp -d "$OUT/tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# The warnings and errors of a log, without the paths of the source tree $2
# and output directory $3.
warnings() {
	grep -aiE '(warning|error|critical|severe)(/[0-9])?[:)]' "$1" |
		sed -e "s#$2/##g" -e "s#$3/##g" || true
}

# Drop line numbers: "file:123: WARNING" and kernel-doc's "Warning: file:123".
unnumber() {
	sed -E -e 's#^([^ :]+):[0-9]+:#\1:#' -e 's#^(Warning: [^ :]+):[0-9]+#\1#'
}

# make htmldocs for $DIRS of source tree $1 into a fresh directory $2, log $3.
build_docs() {
	local rc=0

	rm -rf "$2"
	mkdir -p "$2"
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		make -C "$1" O="$2" SPHINXDIRS="$DIRS" SPHINXOPTS="$SPHINXOPTS" \
		htmldocs > "$3" 2>&1 || rc=$?
	if [ $rc != 0 ] || grep -q '^Exception occurred' "$3"; then
		tail -n 20 "$3" >&2
		die "htmldocs failed in $1 (log: $3)"
	fi
}

# Print the lines of $2 that are not in $1, as multisets of their
# unnumbered forms; the lines keep their numbers.
added() {
	awk -v base="$1" '
		BEGIN { while ((getline l < base) > 0) seen[l]++ }
		{
			k = $0
			if (match(k, /^[^ :]+:[0-9]+:/)) {
				f = substr(k, 1, RLENGTH)
				sub(/:[0-9]+:$/, ":", f)
				k = f substr(k, RLENGTH + 1)
			}
			if (match(k, /^Warning: [^ :]+:[0-9]+/)) {
				f = substr(k, 1, RLENGTH)
				sub(/:[0-9]+$/, "", f)
				k = f substr(k, RLENGTH + 1)
			}
			if (seen[k] > 0)
				seen[k]--
			else
				print
		}' "$2"
}

tools_id() {
	sphinx-build --version
	python3 -c 'import docutils; print("docutils", docutils.__version__)'
	for t in dot latex dvipng; do command -v "$t" || echo "no $t"; done
}

# --- the base tree's warnings (cached) ------------------------------------
key=$(printf '%s\n%s\n' "$base" "$(tools_id)" | sha1sum | cut -c1-12)
basew=$OUT/base-$key.warnings
if [ ! -f "$basew" ]; then
	log "htmldocs: building $DIRS of $BASE_TAG once, for its warnings"
	mkdir -p "$tmp/src"
	git -C "$TREE" archive "$base" | tar -x -C "$tmp/src"
	build_docs "$tmp/src" "$tmp/obj" "$OUT/base.log"
	warnings "$OUT/base.log" "$tmp/src" "$tmp/obj" | unnumber > "$tmp/base.warnings"
	mv "$tmp/base.warnings" "$basew"
	rm -rf "$tmp/src" "$tmp/obj"
fi

# --- the series -----------------------------------------------------------
log "htmldocs: building $DIRS of $TREE"
start=$SECONDS
build_docs "$TREE" "$OUT/series" "$OUT/series.log"
secs=$((SECONDS - start))
warnings "$OUT/series.log" "$TREE" "$OUT/series" > "$OUT/series.warnings"
added "$basew" "$OUT/series.warnings" > "$OUT/new.warnings"
nnew=$(wc -l < "$OUT/new.warnings")
echo "htmldocs: $(wc -l < "$OUT/series.warnings") warnings," \
     "$(wc -l < "$basew") in $BASE_TAG, $nnew new (${secs}s)"
sed 's/^/NEW: /' "$OUT/new.warnings"
echo "HTML: $OUT/series/Documentation/output/$DIRS/index.html"

# --- kernel-doc on the kernel files the series adds or changes ------------
mapfile -t files < <(git -C "$TREE" diff --name-only --diff-filter=AM "$base" -- '*.c' '*.h' |
		     grep -v -e '^tools/' -e '^Documentation/' || true)
nkdoc=0 basefiles=()
if [ ${#files[@]} != 0 ]; then
	kdoc=$TREE/tools/docs/kernel-doc
	[ -x "$kdoc" ] || kdoc=$TREE/scripts/kernel-doc
	mkdir -p "$tmp/base"
	for f in "${files[@]}"; do
		git -C "$TREE" cat-file -e "$base:$f" 2>/dev/null || continue
		mkdir -p "$tmp/base/$(dirname "$f")"
		git -C "$TREE" show "$base:$f" > "$tmp/base/$f"
		basefiles+=("$f")
	done
	(cd "$TREE" && python3 "$kdoc" -none "${files[@]}") > "$tmp/kdoc" 2>&1 ||
		true
	: > "$tmp/kdoc.base"
	if [ ${#basefiles[@]} != 0 ]; then
		(cd "$tmp/base" && python3 "$kdoc" -none "${basefiles[@]}") \
			> "$tmp/kdoc.base" 2>&1 || true
	fi
	# kernel-doc may print a warning twice.
	warnings "$tmp/kdoc.base" "$tmp/base" "$tmp/base" | unnumber | sort -u > "$tmp/kdoc.base.w"
	warnings "$tmp/kdoc" "$TREE" "$TREE" | sort -u > "$tmp/kdoc.w"
	added "$tmp/kdoc.base.w" "$tmp/kdoc.w" > "$OUT/new-kernel-doc.warnings"
	nkdoc=$(wc -l < "$OUT/new-kernel-doc.warnings")
	sed 's/^/NEW: /' "$OUT/new-kernel-doc.warnings"
fi
echo "kernel-doc: ${#files[@]} files the series touches, $nkdoc new warnings"

[ "$nnew" = 0 ] && [ "$nkdoc" = 0 ]

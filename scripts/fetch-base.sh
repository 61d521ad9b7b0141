#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch the pinned kernel base and turn it into a cached git repository with a
# single tagged commit.  Prints the path of that repository.
#
# LINUX_SRC=<dir|tarball> replaces the download with a tree or tarball of the
# user's own.  Downloads and the base repository live in $CACHE, outside the
# clone, so reruns and CI reuse them.

. "$(dirname "$0")/lib.sh"

mkdir -p "$CACHE"

apt_uri() {
	# The Debian archive the machine already uses; no host name is kept here.
	local uri
	uri=$(apt-get indextargets --format '$(REPO_URI)' 2>/dev/null |
	      grep -v -e security -e nodesource -e google | sort -u | head -n1)
	if [ -z "$uri" ]; then
		uri=$(sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/*.sources \
			2>/dev/null | tr ' ' '\n' | grep -v security | grep '/debian/\?$' | head -n1)
	fi
	if [ -z "$uri" ]; then
		uri=$(awk '$1 == "deb" && $2 !~ /security/ { print $2; exit }' \
			/etc/apt/sources.list 2>/dev/null)
	fi
	[ -n "$uri" ] || die "cannot find a Debian archive URI in the apt configuration"
	echo "${uri%/}/"
}

fetch_deb() {
	local dir=$CACHE/apt deb
	deb=$CACHE/${BASE_PKG}_${BASE_VERSION//:/%3a}_all.deb
	if [ -f "$deb" ] && echo "$BASE_SHA256  $deb" | sha256sum -c --quiet 2>/dev/null; then
		echo "$deb"
		return
	fi
	mkdir -p "$dir/state/lists/partial" "$dir/cache/archives/partial" "$dir/etc"
	echo "deb $(apt_uri) $BASE_SUITE main" > "$dir/etc/sources.list"
	local opts=(-o Dir::State="$dir/state" -o Dir::Cache="$dir/cache"
		    -o Dir::Etc::SourceList="$dir/etc/sources.list"
		    -o Dir::Etc::SourceParts=/dev/null -o APT::Sandbox::User=root)
	log "updating private apt state for $BASE_SUITE"
	apt-get "${opts[@]}" update >&2 || die "apt-get update of $BASE_SUITE failed"
	local version=$BASE_VERSION
	if ! apt-cache "${opts[@]}" madison "$BASE_PKG" | grep -qF "| $BASE_VERSION |"; then
		version=$(apt-cache "${opts[@]}" madison "$BASE_PKG" | awk -F'|' '{gsub(/ /,"",$2); print $2}' |
			  grep '^7\.3\.' | sort -V | tail -n1)
		[ -n "$version" ] || die "no 7.3.x $BASE_PKG in $BASE_SUITE"
		warn "pinned $BASE_PKG $BASE_VERSION is gone; falling back to $version (NOT verified by sha256)"
	fi
	(cd "$CACHE" && apt-get "${opts[@]}" download "$BASE_PKG=$version" >&2) ||
		die "download of $BASE_PKG=$version failed"
	local got
	got=$(ls -t "$CACHE"/${BASE_PKG}_*_all.deb | head -n1)
	if [ "$version" = "$BASE_VERSION" ]; then
		echo "$BASE_SHA256  $got" | sha256sum -c --quiet ||
			die "sha256 mismatch for $got"
	fi
	echo "$got"
}

# Make a git repository with one commit holding the tree in $1.
commit_tree() {
	local tree=$1 repo=$2 msg=$3
	rm -rf "$repo.tmp"
	git init -q "$tree"
	# Debian's tarball ignores everything at top level (a packaging
	# leftover); drop that line so new files show up in git status.
	if [ -f "$tree/.gitignore" ]; then
		sed -i '\#^/\*$#d' "$tree/.gitignore"
	fi
	(cd "$tree" && git add -f -A . >/dev/null &&
	 env "${BASE_COMMIT_ENV[@]}" git -c commit.gpgsign=false commit -q -m "$msg" &&
	 git tag "$BASE_TAG")
	git clone -q --bare "$tree" "$repo.tmp"
	rm -rf "$tree"
	mv "$repo.tmp" "$repo"
}

base_from_tarball() {
	local tarball=$1 repo=$2 msg=$3 tmp
	tmp=$(mktemp -d "$CACHE/extract.XXXXXX")
	log "extracting $(basename "$tarball")"
	tar -C "$tmp" -xf "$tarball"
	local top
	top=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d | head -n1)
	[ -f "$top/Makefile" ] || die "$tarball holds no kernel tree"
	log "committing the base tree (takes about a minute)"
	commit_tree "$top" "$repo" "$msg"
	rm -rf "$tmp"
}

main() {
	if [ -n "${LINUX_SRC:-}" ]; then
		local src key repo
		src=$(realpath "$LINUX_SRC")
		key=$(echo "$src" | sha256sum | cut -c1-12)
		repo=$CACHE/base-user-$key.git
		if [ -d "$src" ]; then
			# A user's tree: take it as it is, every time (it may change).
			rm -rf "$repo"
			local tmp
			tmp=$(mktemp -d "$CACHE/copy.XXXXXX")
			log "copying $src"
			if [ -d "$src/.git" ]; then
				git -C "$src" archive --format=tar HEAD | tar -C "$tmp" -xf -
			else
				cp -a "$src/." "$tmp/"
			fi
			commit_tree "$tmp" "$repo" "base: $src"
		elif [ ! -d "$repo" ]; then
			base_from_tarball "$src" "$repo" "base: $(basename "$src")"
		fi
		echo "$repo"
		return
	fi

	local repo=$CACHE/base-$BASE_VERSION.git
	if [ -d "$repo" ]; then
		echo "$repo"
		return
	fi
	local deb tmp
	deb=$(fetch_deb)
	tmp=$(mktemp -d "$CACHE/deb.XXXXXX")
	dpkg-deb -x "$deb" "$tmp"
	base_from_tarball "$tmp/usr/src/$BASE_PKG.tar.xz" "$repo" \
		"base: Debian $BASE_PKG $BASE_VERSION"
	rm -rf "$tmp"
	echo "$repo"
}

main "$@"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The redis-zipf scenario's hot set, checked on the host: load a small
# dataset into a private redis-server, then ask bench/kvzipf --map for the
# hot values' pages, with and without --meta.  Fails unless every value and
# every per-key object (robj, dict entry, bucket slot) of every key is
# found, and unless --meta lists the hot values' pages and more: an
# unreadable redis-server layout, a pointer scan that finds nothing or a
# threshold that drops the values would all fail here, where the benchmark
# would only report a different hot set.  --near must list the pages just
# under the line and none above it.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

keys=20000 value=4000 hot_pct=1
command -v redis-server >/dev/null || die "redis-server is missing (scripts/deps.sh installs it)"
dir=$(mktemp -d)
rpid=''
cleanup() {
	[ -z "$rpid" ] || kill "$rpid" 2>/dev/null || true
	[ -z "$rpid" ] || wait "$rpid" 2>/dev/null || true
	rm -rf "$dir"
}
trap cleanup EXIT

gcc -O2 -Wall -Wextra -Werror -Wno-sign-compare -o "$dir/kvzipf" "$ROOT/bench/kvzipf.c" -lpthread
# kvzipf --map reads redis-server's memory through /proc/PID/mem, which
# takes root (make check runs as root) or kernel.yama.ptrace_scope=0.
redis-server --port 0 --unixsocket "$dir/redis.sock" --save '' --appendonly no \
	--dir "$dir" > "$dir/redis.log" 2>&1 &
rpid=$!
for _ in $(seq 50); do
	[ -S "$dir/redis.sock" ] && break
	sleep 0.1
done
[ -S "$dir/redis.sock" ] || die "redis-server did not start: $(tail -n 3 "$dir/redis.log")"
"$dir/kvzipf" --load --socket "$dir/redis.sock" --keys $keys --value $value

map() { # output [--meta]
	local out=$1
	shift
	"$dir/kvzipf" --map "$rpid" --keys $keys --value $value --hot-pct $hot_pct "$@" > "$out"
	tail -n 1 "$out"
}
field() { # name line
	sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<< "$2"
}

plain=$(map "$dir/values")
meta=$(map "$dir/meta" --meta --near "$dir/near")
echo "values only: $plain"
echo "with --meta: $meta"
hot_keys=$(field hot_keys "$plain")
values=$(field hot_pages "$plain")
all=$(field hot_pages "$meta")
# A value's copy in a freed buffer may be found too: at least one per key.
for what in values_found robjs entries slots; do
	n=$(field "$what" "$meta")
	[ "${n:-0}" -ge "$keys" ] || die "--meta found $what=${n:-none}, not $keys"
done
[ "$values" -ge "$hot_keys" ] || die "$values value pages for $hot_keys hot keys"
missing=$(comm -23 <(grep -v '^#' "$dir/values" | sort) <(grep -v '^#' "$dir/meta" | sort) | wc -l)
[ "$missing" = 0 ] || die "--meta left out $missing of the hot values' pages"
# The objects of $keys keys take at least 16 bytes each (a robj).
[ "$all" -ge $((values + keys * 16 / 4096)) ] ||
	die "--meta listed $all pages, not the $values value pages and the objects' pages"
# --near: the pages under the line down to a quarter of it, none of them
# listed as hot, as many as the comment line counts.
near=$(grep -c -v '^#' "$dir/near" || true)
half=$(field pages_half_as_hot "$meta")
quarter=$(field pages_quarter_as_hot "$meta")
[ "$near" = $((half + quarter)) ] ||
	die "--near listed $near pages, not the $half + $quarter under the line"
[ "$near" -gt 0 ] || die "--near listed no page"
both=$(comm -12 <(grep -v '^#' "$dir/near" | sort) <(grep -v '^#' "$dir/meta" | sort) | wc -l)
[ "$both" = 0 ] || die "--near listed $both hot pages"
if "$dir/kvzipf" --map "$rpid" --keys $keys --value $value --near "$dir/x" 2>/dev/null; then
	die "--near without --meta was taken"
fi
echo "kvzipf --map: $values hot value pages, $all with redis-server's objects, $near near-hot ($keys keys)"

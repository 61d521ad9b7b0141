#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the benchmark harness (scripts/bench.sh): run one scenario
# under one promotion mechanism in a freshly booted tiered VM and print what
# the host parses:
#
#   @run key=value ...        what ran (scenario, mechanism, kernel, nodes)
#   @note text                remarks that go into the report
#   @csv-begin NAME ... @csv-end   a time series (hotset --csv, redis sampler)
#   @redis key=value ...      one redis-benchmark round (redis-zipf: one
#                             round of bench/kvzipf, every zipf_round_s)
#   @stop key=value ...       the mechanism's own totals after the last sample
#   @end key=value ...        the end of the run
#
# Usage: bench-guest.sh KEY=VALUE ...   (defaults below)
#   scenario   chase-st, chase-mt, phase, overcommit, redis, or the scattered
#              ones: scatter, scatter-big, scatter-slow, scatter-full, or the
#              overcommitted top tier (issue 12, demotion_enabled=1):
#              skewed     a buffer (size_mb, about twice the fast node) on the
#                         slow node: a scattered hot part that fits in the
#                         fast node (skew_hot_pct), a warm part touched every
#                         skew_warm_ms that does not fit in what is left, a
#                         rare part touched every skew_rare_ms, no phase change
#              phase-full the same after filling the fast node with other
#                         data (fill_leave_mb), the hot part moving to fresh
#                         random pages at phase_at (default: the half)
#              redis-zipf redis-server with a dataset of 1.5-2x the fast node
#                         (redis_keys x redis_value), the last keys loaded
#                         filling the fast node (fill_leave_mb), the rest on
#                         the slow node; GETs from bench/kvzipf drawing keys
#                         from a Zipf-like distribution (zipf_theta) for
#                         `seconds`; the hot set: the pages of the values of
#                         the most popular zipf_hot_pct% of the keys
#   mech       the mechanism (below)
#   size_mb, hot_pct, threads, chunks, lines, seconds, interval, phase_at,
#   fast_mb    the hotset workload (bench/hotset.c --help); phase_at=-1: no
#              phase change in the scatter scenarios
#   scatter_pct, c100ms, c1s, c5s, c30s, once
#              scatter scenarios: the hot set and the frequency classes (pages
#              touched every 0.1/1/5/30 s, once), % of the buffer's pages
#   seed, sample_max  hotset's --seed and --sample-max
#   fill_leave_mb     scatter-full, phase-full, redis-zipf: MiB left free on
#              the fast node after filling it
#   skew_hot_pct, skew_warm_pct, skew_warm_ms, skew_rare_pct, skew_rare_ms
#              skewed, phase-full: % of the buffer's pages hot (chased), warm
#              and rare (each touched once per its period in ms); empty: the
#              scenario's defaults (skewed 30/40/29, phase-full 25/30/19 and
#              another 25 for its second hot part; periods 8000 and 60000)
#   skew_thp   skewed, phase-full: 0 (the default): the buffer in base pages;
#              whole: in THPs (MADV_HUGEPAGE), the hot part, warm part and
#              rare part drawn in whole huge pages (each THP all hot, all
#              warm or all cold); mixed: in THPs, the parts drawn page by
#              page (each THP holds pages of every part)
#   zipf_theta, zipf_round_s, zipf_hot_pct  redis-zipf: the skew (key of
#              rank r asked with weight 1/(r+1)^theta), the length of a
#              reported round, and the most popular keys whose pages are the
#              hot set (% of the keys, default 10)
#   zipf_hot_meta  redis-zipf: 1 (the default) adds to the hot set the
#              pages of redis-server's per-key objects and tables (names,
#              dict entries, robjs, bucket slots) that get at least the share
#              of the GETs of the least popular hot key (kvzipf --map
#              --meta); 0: the hot values' pages only.  With 1 the pages
#              just under that share, down to a quarter of it (kvzipf
#              --near), are followed apart (nearhot_top_pct)
#   scan_period_min_ms, scan_delay_ms
#              NUMA-balancing scan tunables to set; empty (the default): the
#              kernel's own values (scatter-slow sets scan_period_min_ms=4000)
#   redis_*    dataset (keys, value bytes), GET key range (% of the keys),
#              rounds of redis-benchmark, requests per round, clients
#              (redis-zipf: keys, value bytes and clients)
#   pghot_tune pghot debugfs tunables for the pghot mechanisms, written
#              after the mechanism's own: NAME:VALUE[,NAME:VALUE...]
#              (e.g. probe_ms:200,instant_latency_ms:0); empty: none
#   damon_*    DAMON sampling and aggregation intervals, region limits, and
#              the age (in aggregation intervals) before migrate_cold
#
# Mechanisms:
#   off            kernel.numa_balancing=0, nothing promotes
#   tiering        mainline NUMA balancing in tiering mode (numa_balancing=2),
#                  pghot's sources off
#   pghot          numa_balancing=2 with pghot's hint-fault source, promoted by
#                  kmigrated, every pghot tunable at the kernel's default
#   pghot1, pghot2 the same with freq_threshold 1 or 2
#   pghot-precise  pghot's defaults (the host runs it on the precise kernel)
#   base           mainline tiering (numa_balancing=2) on a kernel without pghot
#                  (the harness boots the nopghot kernel for it)
#   damon-promote  DAMON (paddr) over the slow node: migrate_hot to the fast node
#   damon-bidir    damon-promote plus a second kdamond over the fast node:
#                  migrate_cold to the slow node
set -eu
# shellcheck disable=SC3040 # busybox ash has pipefail
set -o pipefail

scenario=chase-st mech=off size_mb=256 hot_pct=25 threads=1 chunks=
seconds=30 interval=2 lines=1 phase_at="" fast_mb=""
scatter_pct=12.5 c100ms=2 c1s=2 c5s=2 c30s=2 once=2 seed=1 sample_max=32768
fill_leave_mb=16 scan_period_min_ms="" scan_delay_ms=""
redis_keys=100000 redis_value=512 redis_hot_pct=25 redis_rounds=8
redis_requests=20000 redis_clients=8
damon_sample_us=5000 damon_aggr_us=100000 damon_min_regions=10
damon_max_regions=1000 damon_cold_age=50 enable_only=0 stop_only=0
pghot_tune=""
skew_hot_pct="" skew_warm_pct="" skew_warm_ms=8000 skew_rare_pct="" skew_rare_ms=60000
skew_thp=0
zipf_theta=0.99 zipf_round_s=5 zipf_hot_pct=10 zipf_hot_meta=1
for a in "$@"; do
	case ${a%%=*} in
	scenario|mech|size_mb|hot_pct|threads|chunks|seconds|interval|lines|\
	phase_at|fast_mb|redis_keys|redis_value|redis_hot_pct|redis_rounds|\
	redis_requests|redis_clients|damon_sample_us|damon_aggr_us|\
	damon_min_regions|damon_max_regions|damon_cold_age|scatter_pct|c100ms|\
	c1s|c5s|c30s|once|seed|sample_max|fill_leave_mb|scan_period_min_ms|\
	scan_delay_ms|pghot_tune|skew_hot_pct|skew_warm_pct|skew_warm_ms|\
	skew_rare_pct|skew_rare_ms|skew_thp|zipf_theta|zipf_round_s|\
	zipf_hot_pct|zipf_hot_meta)
		eval "${a%%=*}=\${a#*=}" ;;
	__enable) enable_only=1 ;;
	__stop) stop_only=1 ;;
	*) echo "bench-guest: unknown argument $a" >&2; exit 2 ;;
	esac
done

# scatter-slow: a scan pass of minutes (a large task) scaled down to the VM.
if [ "$scenario" = scatter-slow ] && [ -z "$scan_period_min_ms" ]; then
	scan_period_min_ms=4000
fi

SCHED=/sys/kernel/debug/sched/numa_balancing
PGHOT=/sys/kernel/debug/pghot
DAMON=/sys/kernel/mm/damon/admin
VMSTAT=pgpromote_,pgdemote_,pgscan_kswapd,pgsteal_kswapd,pgactivate,pgdeactivate,pgrefill,pgmigrate_success,pgmigrate_fail,numa_pte_updates,numa_huge_pte_updates,numa_hint_faults,numa_pages_migrated,thp_migration_,thp_collapse_alloc,thp_scan_,pghot_
KTHREADS=kmigrated,kdamond

die() { echo "bench-guest: $*" >&2; exit 1; }
note() { echo "@note $*"; }
put() { # file value: write a tunable, fail loudly
	echo "$2" > "$1" || die "cannot write '$2' to $1"
}

# The top tier's first node with CPUs (fast) and the first lower-tier node
# with memory (slow), from the memory tiers.
tiers=$(for d in /sys/devices/virtual/memory_tiering/memory_tier*; do
	[ -f "$d/nodelist" ] && echo "${d##*memory_tier} $(cat "$d/nodelist")"
done | sort -n)
[ "$(echo "$tiers" | wc -l)" -ge 2 ] || die "no lower memory tier"
first_node() { echo "$1" | sed 's/[-,].*//'; }
fast=$(first_node "$(echo "$tiers" | head -n1 | cut -d' ' -f2)")
slow=$(first_node "$(echo "$tiers" | sed -n 2p | cut -d' ' -f2)")

# Physical address range [start, end) of node $1, from its memory blocks.
node_range() {
	bs=$((0x$(cat /sys/devices/system/memory/block_size_bytes)))
	blocks=$(for m in /sys/devices/system/node/node"$1"/memory[0-9]*; do
		echo "${m##*memory}"; done | sort -n)
	lo=$(echo "$blocks" | head -n1)
	hi=$(echo "$blocks" | tail -n1)
	echo "$((lo * bs)) $(((hi + 1) * bs))"
}

node_free_mb() {
	awk '/MemFree:/ { print int($4 / 1024) }' /sys/devices/system/node/node"$1"/meminfo
}

has_kmigrated() {
	grep -q '^pghot_kmigrated' /proc/vmstat && return 0
	for c in /proc/[0-9]*/comm; do
		case $(cat "$c" 2>/dev/null) in kmigrated*) return 0 ;; esac
	done
	return 1
}

# name=value for every regular file of directory $2 (but stats), prefixed $1.
dump_dir() {
	for f in "$2"/*; do
		[ -f "$f" ] || continue
		case ${f##*/} in stats) continue ;; esac
		printf ' %s%s=%s' "$1" "${f##*/}" "$(tr -s ' \n' ',,' < "$f" 2>/dev/null | sed 's/,$//')"
	done
}

# The tunables in effect, for the report: NUMA balancing, demotion, the
# scanner's, pghot's (every file of its debugfs directory).
dump_tunables() {
	echo "@note tunables: numa_balancing=$(cat /proc/sys/kernel/numa_balancing)" \
		"demotion_enabled=$(cat /sys/kernel/mm/numa/demotion_enabled)$(dump_dir "" $SCHED)$(
		if [ -d $PGHOT ]; then dump_dir pghot. $PGHOT; else echo " (no pghot)"; fi)"
}

prepare() {
	echo "@run scenario=$scenario mech=$mech kernel=$(uname -r) fast_node=$fast slow_node=$slow" \
		"fast_free_mb=$(node_free_mb "$fast") slow_free_mb=$(node_free_mb "$slow") cpus=$(nproc)"

	# Everything off.  The NUMA-balancing scanner keeps the kernel's own
	# tunables unless the scenario sets one (scatter-slow: a slower pass,
	# standing in for a large task).
	echo 0 > /proc/sys/kernel/numa_balancing
	set_scan=""
	if [ -n "$scan_delay_ms" ]; then
		put $SCHED/scan_delay_ms "$scan_delay_ms"
		set_scan="$set_scan scan_delay_ms=$scan_delay_ms"
	fi
	if [ -n "$scan_period_min_ms" ]; then
		put $SCHED/scan_period_min_ms "$scan_period_min_ms"
		set_scan="$set_scan scan_period_min_ms=$scan_period_min_ms"
	fi
	if [ -n "$set_scan" ]; then
		note "scan tunables: set by the scenario:$set_scan, the others kernel defaults; in effect:$(dump_dir "" $SCHED)"
	else
		note "scan tunables: kernel defaults:$(dump_dir "" $SCHED)"
	fi
	[ -f $PGHOT/enabled_sources ] && put $PGHOT/enabled_sources 0
	case $scenario in
	overcommit|scatter-full|skewed|phase-full|redis-zipf)
		put /sys/kernel/mm/numa/demotion_enabled 1 ;;
	*) put /sys/kernel/mm/numa/demotion_enabled 0 ;;
	esac
}

# One kdamond: paddr monitoring of node $2's memory, one scheme $3 to node $4.
damon_kdamond() { # index node action target_nid nr_accesses_min nr_accesses_max age_min
	k=$DAMON/kdamonds/$1
	c=$k/contexts/0
	put "$k"/contexts/nr_contexts 1
	put "$c"/operations paddr
	put "$c"/monitoring_attrs/intervals/sample_us "$damon_sample_us"
	put "$c"/monitoring_attrs/intervals/aggr_us "$damon_aggr_us"
	put "$c"/monitoring_attrs/nr_regions/min "$damon_min_regions"
	put "$c"/monitoring_attrs/nr_regions/max "$damon_max_regions"
	put "$c"/targets/nr_targets 1
	put "$c"/targets/0/regions/nr_regions 1
	# shellcheck disable=SC2046 # two words: start end
	set -- "$@" $(node_range "$2")
	put "$c"/targets/0/regions/0/start "$8"
	put "$c"/targets/0/regions/0/end "$9"
	put "$c"/schemes/nr_schemes 1
	s=$c/schemes/0
	put "$s"/action "$3"
	put "$s"/target_nid "$4"
	put "$s"/access_pattern/sz/min 4096
	put "$s"/access_pattern/sz/max 1099511627776
	put "$s"/access_pattern/age/max 4294967295
	put "$s"/access_pattern/nr_accesses/min "$5"
	put "$s"/access_pattern/nr_accesses/max "$6"
	put "$s"/access_pattern/age/min "$7"
	echo "@note DAMON kdamond $1: paddr node $2 [$8, $9), $3 -> node $4," \
		"nr_accesses $5..$6, age >= $7, sample ${damon_sample_us}us aggr ${damon_aggr_us}us," \
		"regions $damon_min_regions..$damon_max_regions"
}

damon_stat() { # index: bytes the scheme applied its action to
	put $DAMON/kdamonds/"$1"/state update_schemes_stats
	cat $DAMON/kdamonds/"$1"/contexts/0/schemes/0/stats/sz_applied
}

# Turn the mechanism on: run when the workload's memory is in place.
enable_mech() {
	case $mech in
	off) ;;
	tiering)
		put /proc/sys/kernel/numa_balancing 2 ;;
	base)
		[ -d $PGHOT ] && note "base: this kernel has pghot (not the unpatched base)"
		put /proc/sys/kernel/numa_balancing 2 ;;
	pghot|pghot1|pghot2|pghot-precise)
		[ -f $PGHOT/enabled_sources ] || die "kernel has no pghot debugfs"
		case $mech in
		pghot1|pghot2) put $PGHOT/freq_threshold "${mech#pghot}" ;;
		esac
		for t in $(echo "$pghot_tune" | tr , ' '); do
			[ -f "$PGHOT/${t%%:*}" ] || die "pghot_tune: no tunable ${t%%:*}"
			put "$PGHOT/${t%%:*}" "${t#*:}"
		done
		put $PGHOT/enabled_sources 1
		put /proc/sys/kernel/numa_balancing 2 ;;
	damon-promote|damon-bidir)
		[ -d $DAMON ] || die "kernel has no DAMON sysfs"
		n=1
		[ "$mech" = damon-bidir ] && n=2
		put $DAMON/kdamonds/nr_kdamonds $n
		damon_kdamond 0 "$slow" migrate_hot "$fast" 1 4294967295 0
		[ $n = 2 ] && damon_kdamond 1 "$fast" migrate_cold "$slow" 0 0 "$damon_cold_age"
		i=0
		while [ $i -lt $n ]; do
			put $DAMON/kdamonds/$i/state on
			i=$((i + 1))
		done ;;
	*) die "unknown mechanism $mech" ;;
	esac
	dump_tunables
}

# Right after the last sample: DAMON's own counts of what it migrated, and
# DAMON off (so that they match the counters of the samples).
stop_mech() {
	promo="" demo=""
	case $mech in
	damon-*)
		promo=$(($(damon_stat 0) / 4096))
		if [ "$mech" = damon-bidir ]; then
			demo=$(($(damon_stat 1) / 4096))
		fi
		for k in "$DAMON"/kdamonds/[0-9]*; do echo off > "$k/state" || true; done ;;
	esac
	echo "@stop damon_promoted_pages=${promo:--} damon_demoted_pages=${demo:--}"
}

end_stats() {
	echo "@end redis_load_s=${load_s:--} redis_bench_s=${bench_s:--}" \
		"fast_free_mb=$(node_free_mb "$fast") slow_free_mb=$(node_free_mb "$slow")"
}

run_hotset() { # extra hotset options (the layout: --hot-pct or --scatter)
	echo "@csv-begin hotset"
	hotset --csv --chase --size-mb "$size_mb" \
		--threads "$threads" --chunks "${chunks:-$threads}" --lines "$lines" \
		--seconds "$seconds" --interval "$interval" --vmstat "$VMSTAT" \
		--kthreads "$KTHREADS" --setup /tmp/enable.sh --teardown /tmp/stop.sh "$@"
	echo "@csv-end"
}

# Start redis-server on /tmp/redis.sock (pid in rpid) and wait until it
# answers; both redis scenarios need it and migratepages.
start_redis() {
	command -v redis-server >/dev/null || die "redis-server is not in the initramfs (scripts/deps.sh installs it; bench.sh adds it)"
	command -v migratepages >/dev/null || die "migratepages (numactl) is not in the initramfs"
	mkdir -p /tmp/redis
	redis-server --port 0 --unixsocket /tmp/redis.sock --save '' --appendonly no \
		--dir /tmp/redis --daemonize no --loglevel warning > /tmp/redis/log 2>&1 &
	rpid=$!
	i=0
	while ! redis-cli -s /tmp/redis.sock ping >/dev/null 2>&1; do
		i=$((i + 1)); [ $i -lt 100 ] || die "redis-server did not start: $(cat /tmp/redis/log)"
		sleep 0.2
	done
}

# Redis: dataset loaded on the fast node, moved to the slow node, then GETs
# over the first redis_hot_pct% of the keys while a sampler records where
# redis-server's memory is.
run_redis() {
	start_redis
	t0=$(date +%s)
	awk -v n="$redis_keys" -v sz="$redis_value" 'BEGIN {
		v = "x"; while (length(v) < sz) v = v v; v = substr(v, 1, sz)
		for (i = 0; i < n; i++) {
			k = sprintf("key:%012d", i)
			printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", length(k), k, sz, v
		} }' | redis-cli -s /tmp/redis.sock --pipe > /tmp/redis/load 2>&1 ||
		die "loading the dataset failed: $(cat /tmp/redis/load)"
	migratepages "$rpid" "$fast" "$slow" || die "migratepages failed"
	load_s=$(($(date +%s) - t0))
	echo "@note redis: $redis_keys keys of $redis_value bytes loaded on node $fast," \
		"moved to node $slow; GETs over the first $redis_hot_pct% of the keys," \
		"$redis_clients clients, $redis_rounds rounds of $redis_requests requests"
	/tmp/enable.sh
	hot=$((redis_keys * redis_hot_pct / 100))
	# The sampler: where redis-server's memory is, and the counters.
	hotset --watch "$rpid" --seconds 100000 --interval "$interval" \
		--vmstat "$VMSTAT" --kthreads "$KTHREADS" > /tmp/redis/samples &
	spid=$!
	start=$(date +%s)
	r=0
	while [ $r -lt "$redis_rounds" ]; do
		redis-benchmark -s /tmp/redis.sock -t get -r "$hot" -n "$redis_requests" \
			-c "$redis_clients" --csv 2>/dev/null | tail -n1 > /tmp/redis/round.$r
		r=$((r + 1))
	done
	kill -TERM $spid
	wait $spid || die "the redis sampler failed"
	/tmp/stop.sh
	echo "@csv-begin redis"
	cat /tmp/redis/samples
	echo "@csv-end"
	r=0
	while [ $r -lt "$redis_rounds" ]; do
		# "GET","rps","avg","min","p50","p95","p99","max"
		tr -d '"' < /tmp/redis/round.$r | awk -F, -v r=$r '{ printf "@redis round=%d rps=%s avg_ms=%s p50_ms=%s p99_ms=%s\n", r, $2, $3, $5, $7 }'
		r=$((r + 1))
	done
	bench_s=$(($(date +%s) - start))
	kill "$rpid" 2>/dev/null || true
}

# Redis with a Zipf-like key popularity (issue 12): a dataset larger than the
# fast node, as on a machine whose DRAM holds what was written last: the
# first keys are loaded in chunks that each fit in the fast node, every
# chunk moved to the slow node before the next, and the last ones stay on
# the fast node until fill_leave_mb remain free there (redis-server keeps
# the default policy, so that nothing forbids promotion).  Popular keys are
# scattered over the keyspace, so the fast node starts with about its share
# of them and full: a popular value can come up only if another goes down.
# kvzipf --map lists the pages that hold the values of the most popular
# zipf_hot_pct% of the keys (zipf_hot_meta=1: and the pages of the tables
# that get as many GETs); the sampler follows them as the hot set.  Then
# kvzipf GETs for `seconds`.
run_redis_zipf() {
	command -v kvzipf >/dev/null || die "kvzipf is not in the initramfs (bench/Makefile builds it)"
	start_redis
	t0=$(date +%s)
	free=$(node_free_mb "$fast")
	# Keys per chunk: half the fast node's free memory, at about value + 200
	# bytes of redis memory per key; the last keys_fast keys stay on it.
	per=$(((free / 2) * 1048576 / (redis_value + 200)))
	keys_fast=$(((free - fill_leave_mb) * 1048576 / (redis_value + 200)))
	[ "$per" -gt 0 ] || die "redis-zipf: no free memory on node $fast to load into"
	[ "$keys_fast" -lt "$redis_keys" ] ||
		die "redis-zipf: the dataset ($redis_keys keys) fits in the $free MB free on node $fast"
	k=0 chunks=0
	while [ $k -lt "$redis_keys" ]; do
		e=$((k + per))
		[ $e -le "$redis_keys" ] || e=$redis_keys
		if [ $k -lt $((redis_keys - keys_fast)) ]; then
			[ $e -le $((redis_keys - keys_fast)) ] || e=$((redis_keys - keys_fast))
			kvzipf --load --socket /tmp/redis.sock --first $k --keys $e --value "$redis_value" ||
				die "redis-zipf: loading keys $k..$e failed"
			migratepages "$rpid" "$fast" "$slow" || die "migratepages failed"
		else
			kvzipf --load --socket /tmp/redis.sock --first $k --keys $e --value "$redis_value" ||
				die "redis-zipf: loading keys $k..$e failed"
		fi
		k=$e chunks=$((chunks + 1))
	done
	load_s=$(($(date +%s) - t0))
	used=$(redis-cli -s /tmp/redis.sock info memory | sed -n 's/^used_memory:\([0-9]*\).*/\1/p')
	case $zipf_hot_meta in
	0) meta="" what="" ;;
	1) meta="--meta --near /tmp/redis/nearpages"
	   what=", and the pages of redis-server's per-key objects and tables as hot" ;;
	*) die "zipf_hot_meta must be 0 or 1, not $zipf_hot_meta" ;;
	esac
	# shellcheck disable=SC2086 # $meta: options, or none
	kvzipf --map "$rpid" --keys "$redis_keys" --value "$redis_value" --theta "$zipf_theta" \
		--hot-pct "$zipf_hot_pct" --seed "$seed" $meta > /tmp/redis/hotpages ||
		die "redis-zipf: kvzipf --map failed"
	note "redis-zipf: $redis_keys keys of $redis_value bytes (used_memory $((${used:-0} >> 20)) MB)" \
		"loaded in $chunks chunk(s): keys 0..$((redis_keys - keys_fast - 1)) moved to node $slow," \
		"the last $keys_fast left on node $fast ($free MB free before, $(node_free_mb "$fast") MB" \
		"after); GETs of Zipf-like popularity (theta $zipf_theta, popular keys scattered over the" \
		"keyspace) from $redis_clients clients for $seconds s; demotion_enabled=1; hot set: the" \
		"pages of the most popular $zipf_hot_pct% of the keys$what ($(sed -n 's/^# kvzipf map: //p' /tmp/redis/hotpages))"
	near=""
	if [ -n "$meta" ] && grep -q '^[0-9a-f]' /tmp/redis/nearpages; then
		near="--watch-near /tmp/redis/nearpages"
		note "redis-zipf: the near-hot pages (a quarter of the least popular hot key's" \
			"share of the GETs or more, less than that share), followed apart:" \
			"$(sed -n 's/^# kvzipf near: //p' /tmp/redis/nearpages)"
	fi
	/tmp/enable.sh
	# shellcheck disable=SC2086 # $near: no option, or an option and its file
	hotset --watch "$rpid" --seconds 100000 --interval "$interval" \
		--vmstat "$VMSTAT" --kthreads "$KTHREADS" --cpu-of kswapd:kswapd \
		--watch-pages /tmp/redis/hotpages $near > /tmp/redis/samples &
	spid=$!
	start=$(date +%s)
	kvzipf --socket /tmp/redis.sock --keys "$redis_keys" --theta "$zipf_theta" \
		--clients "$redis_clients" --seconds "$seconds" --round-s "$zipf_round_s" \
		--seed "$seed" > /tmp/redis/zipf || die "kvzipf failed: $(tail -n 3 /tmp/redis/zipf)"
	kill -TERM $spid
	wait $spid || die "the redis sampler failed"
	/tmp/stop.sh
	echo "@csv-begin redis"
	cat /tmp/redis/samples
	echo "@csv-end"
	sed -n 's/^# kvzipf: /@note kvzipf: share of the GETs (%) to the most popular keys: /p' /tmp/redis/zipf
	sed -n 's/^round=/@redis round=/p' /tmp/redis/zipf
	bench_s=$(($(date +%s) - start))
	kill "$rpid" 2>/dev/null || true
}

if [ "$enable_only" = 1 ]; then
	enable_mech
	exit 0
fi
if [ "$stop_only" = 1 ]; then
	stop_mech
	exit 0
fi

# The scripts hotset runs once the buffer is in place (--setup) and after
# the last sample (--teardown).
cat > /tmp/enable.sh <<EOF
#!/bin/sh
exec "$0" $* __enable
EOF
cat > /tmp/stop.sh <<EOF
#!/bin/sh
exec "$0" $* __stop
EOF
chmod 755 /tmp/enable.sh /tmp/stop.sh
prepare
case $mech in
pghot|pghot1|pghot2|pghot-precise)
	has_kmigrated || note "this kernel has no kmigrated" ;;
esac

case $scenario in
chase-st) run_hotset --hot-pct "$hot_pct" --chunks 1 ;;
chase-mt) run_hotset --hot-pct "$hot_pct" ;;
phase)
	run_hotset --hot-pct "$hot_pct" --chunks "${chunks:-1}" --phase-at "${phase_at:-$((seconds / 2))}" ;;
overcommit)
	# The head of the buffer fills the fast node (less a margin above the
	# kernel's watermarks), the rest lands on the slow node: promoting the
	# hot chunks there needs demotion.
	free=$(node_free_mb "$fast")
	fm=${fast_mb:-$((free - 16))}
	[ "$fm" -lt "$size_mb" ] || die "overcommit: size_mb=$size_mb does not exceed the fast part ($fm MB)"
	[ "$fm" -lt "$free" ] || die "overcommit: fast_mb=$fm does not fit in the $free MB free on node $fast"
	note "overcommit: $fm of $size_mb MB start on the fast node ($free MB free), demotion_enabled=1"
	run_hotset --hot-pct "$hot_pct" --chunks "${chunks:-8}" --fast-mb "$fm" ;;
scatter|scatter-big|scatter-slow|scatter-full)
	# A scattered hot set (random pages of the whole buffer, chased) and
	# frequency classes; the hot set moves to fresh random pages midway.
	pa=${phase_at:-$((seconds / 2))}
	note "scatter: hot set $scatter_pct% of the pages at random (seed $seed), touched" \
		"continuously; classes (% of the pages): every 0.1 s $c100ms, 1 s $c1s," \
		"5 s $c5s, 30 s $c30s, once $once; the rest untouched after setup;" \
		"$(if [ "$pa" = -1 ]; then echo "no phase change"; else echo "the hot set moves at $pa s"; fi)"
	set -- --chunks 1 --scatter "$scatter_pct" --every-100ms "$c100ms" --every-1s "$c1s" \
		--every-5s "$c5s" --every-30s "$c30s" --once "$once" --seed "$seed" \
		--sample-max "$sample_max" --phase-at "$pa"
	if [ "$scenario" = scatter-full ]; then
		note "scatter-full: the fast node is filled with other data (never touched" \
			"again) until $fill_leave_mb MB remain free, demotion_enabled=1"
		set -- "$@" --fill-fast-leave-mb "$fill_leave_mb"
	fi
	run_hotset "$@" ;;
skewed|phase-full)
	# Issue 12: a top tier that cannot hold everything worth having.  A
	# scattered hot part (chased) that fits in the fast node, a warm part
	# (every skew_warm_ms) that does not fit in what is left, a rare part
	# (every skew_rare_ms), the rest never touched after setup.
	if [ "$scenario" = skewed ]; then
		hp=${skew_hot_pct:-30} wp=${skew_warm_pct:-40} rp=${skew_rare_pct:-29}
		pa=${phase_at:--1}
	else
		hp=${skew_hot_pct:-25} wp=${skew_warm_pct:-30} rp=${skew_rare_pct:-19}
		pa=${phase_at:-$((seconds / 2))}
	fi
	free=$(node_free_mb "$fast")
	hot_mb=$(awk -v s="$size_mb" -v p="$hp" 'BEGIN { printf "%d", s * p / 100 }')
	warm_mb=$(awk -v s="$size_mb" -v p="$wp" 'BEGIN { printf "%d", s * p / 100 }')
	rare_mb=$(awk -v s="$size_mb" -v p="$rp" 'BEGIN { printf "%d", s * p / 100 }')
	note "$scenario: $size_mb MB on the slow node ($free MB free on the fast node):" \
		"hot $hot_mb MB ($hp%, scattered, chased), warm $warm_mb MB ($wp%, every" \
		"$skew_warm_ms ms), rare $rare_mb MB ($rp%, every $skew_rare_ms ms), the rest never" \
		"touched after setup; $(if [ "$pa" = -1 ]; then echo "no phase change"; else
			echo "the hot part moves to fresh pages at $pa s"; fi); demotion_enabled=1"
	[ "$hot_mb" -lt "$free" ] ||
		note "$scenario: the hot part ($hot_mb MB) does not fit in the $free MB free on the fast node"
	[ "$warm_mb" -gt $((free - hot_mb)) ] ||
		note "$scenario: the warm part ($warm_mb MB) fits next to the hot part: the top tier is not overcommitted"
	set -- --chunks 1 --scatter "$hp" --every-ms "$skew_warm_ms:$wp" \
		--every-ms "$skew_rare_ms:$rp" --seed "$seed" --sample-max "$sample_max" \
		--phase-at "$pa" --track-demoted --cpu-of kswapd:kswapd
	if [ "$scenario" = phase-full ]; then
		note "phase-full: the fast node is filled with other data (never touched" \
			"again) until $fill_leave_mb MB remain free"
		set -- "$@" --fill-fast-leave-mb "$fill_leave_mb"
	fi
	case $skew_thp in
	0) ;;
	whole)
		note "$scenario: the buffer in THPs, every part drawn in whole huge" \
			"pages (each THP all hot, all warm or all cold)"
		set -- "$@" --thp --scatter-unit thp ;;
	mixed)
		note "$scenario: the buffer in THPs, every part drawn page by page" \
			"(each THP holds hot, warm and cold pages)"
		set -- "$@" --thp ;;
	*) die "skew_thp=$skew_thp: 0, whole or mixed" ;;
	esac
	run_hotset "$@" ;;
redis) run_redis ;;
redis-zipf) run_redis_zipf ;;
*) die "unknown scenario $scenario" ;;
esac
end_stats

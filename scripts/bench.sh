#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh [--quick|--full|--smoke] [options]
#
# The evaluation harness: every promotion mechanism on every scenario, each
# pair in a freshly booted tiered VM (same kernel, same topology), then a
# text table, a CSV and residency plots in a results directory.  It asserts
# nothing about which mechanism wins; it fails when a run or the report
# breaks (a guest error, missing output, a parse failure).
#
# Sets:
#   --quick   (default) chase-st phase overcommit scatter, short runs: about
#             18 minutes on 2 cores (--scenarios "... redis" adds redis)
#   --full    every scenario, longer runs and bigger sizes (about 2.5 hours)
#   --smoke   a short run of the harness itself (make check), under 3 minutes:
#             scatter under pghot (default tunables), chase-st and redis; it
#             FAILS unless pghot promoted the hot set (>= 50% in the top tier,
#             pgpromote_success > 0) and filtered the pages touched once
#             (<= 5% of them promoted)
# Scenarios: chase-st chase-mt phase overcommit redis (contiguous hot sets)
#   scatter       768 MiB on the slow node, 12.5% of the pages hot at random,
#                 2% each touched every 0.1/1/5/30 s and once, the rest cold;
#                 the hot set moves at the half; kernel-default scan tunables
#   scatter-big   the same with 2 GiB (VM: >= 1536 MiB fast, 3072 MiB slow)
#   scatter-slow  scatter with scan_period_min_ms=4000 (a slow scanner)
#   scatter-full  scatter after filling the fast node with other data,
#                 demotion_enabled=1 (VM: >= 1536 MiB slow)
# The top tier overcommitted (issue 12; demotion_enabled=1, kernel-default
# scan tunables; in --full, and in --quick with --scenarios):
#   skewed        a buffer of twice the fast node on the slow node: a
#                 scattered hot part of 30% of its pages (about 60% of the
#                 fast node), a warm part of 40% touched every 8 s (does not
#                 fit in what is left), 29% touched every 60 s; no phase
#                 change (VM: slow >= 2 x fast + 512 MiB); quick 60 s, full
#                 180 s
#   phase-full    the same after filling the fast node with other data, hot
#                 part 25%, warm 30%, rare 19%; the hot part moves to fresh
#                 pages at the half
#   redis-zipf    redis-server with a dataset of 1.5x (quick) or 2x (full) the
#                 fast node, its last keys filling the fast node, the rest on
#                 the slow node; GETs of Zipf-like popularity (theta 0.99)
#                 from bench/kvzipf, 8 clients; the hot set: the pages of the
#                 most popular 10% of the values; quick 60 s, full 180 s
#                 (VM: slow >= 2 x fast + 1024 MiB)
#   Their tables add promotions and demotions per interval (plot
#   migrations-<scenario>.png), churn = (promoted + demoted) / net hot pages
#   placed, hot pages demoted, kswapd CPU
# Mechanisms: off tiering base pghot pghot1 pghot2 pghot-precise damon-promote
#   damon-bidir; base runs on the nopghot kernel (CONFIG_PGHOT=n,
#   build/obj-nopghot), pghot-precise (pghot's defaults) on the precise
#   kernel (CONFIG_PGHOT_PRECISE=y); each is skipped, with a note, when its
#   kernel is not built
# Options:
#   --scenarios "S ..."    scenarios (above)
#   --mechanisms "M ..."   mechanisms (above)
#   --kernel FLAVOUR|PATH  test (default), precise, ..., or a bzImage (copied
#                          first): the kernel of every mechanism but base
#   --mech-kernel M=FLAVOUR|PATH  run mechanism M on another kernel
#                          (default: base=nopghot, pghot-precise=precise;
#                          repeatable)
#   --repeat N             run every scenario x mechanism N times; the report
#                          gives the median and the min-max
#   --out DIR              results directory (default build/bench-results/<timestamp>;
#                          not build/bench/, whose files go into the initramfs)
#   --fast-mb N --slow-mb N --cpus N   VM topology (small: node 0 fast, node 1 slow)
#   --set KEY=VALUE        a parameter of bench/bench-guest.sh for every run
#                          (size_mb, hot_pct, threads, seconds, interval, ...)
#   --report-only DIR      rebuild the table, CSV and plots of an earlier run

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

set=quick scenarios='' mechanisms='' kernel=test out='' fast_mb=512 slow_mb=1024 cpus=2
report_only='' extra=() repeat=1
declare -A mech_kernel=([base]=nopghot [pghot-precise]=precise)
while [ $# -gt 0 ]; do
	case $1 in
	--quick|--full|--smoke) set=${1#--} ;;
	--scenarios) scenarios=$2; shift ;;
	--mechanisms) mechanisms=$2; shift ;;
	--kernel) kernel=$2; shift ;;
	--mech-kernel)
		[[ $2 == ?*=?* ]] || die "--mech-kernel wants MECH=FLAVOUR|PATH"
		mech_kernel[${2%%=*}]=${2#*=}; shift ;;
	--repeat) repeat=$2; shift ;;
	--out) out=$2; shift ;;
	--fast-mb) fast_mb=$2; shift ;;
	--slow-mb) slow_mb=$2; shift ;;
	--cpus) cpus=$2; shift ;;
	--set) extra+=("$2"); shift ;;
	--report-only) report_only=$2; shift ;;
	-h|--help) sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) die "unknown option $1 (see $0 --help)" ;;
	esac
	shift
done
[[ $repeat =~ ^[1-9][0-9]*$ ]] || die "--repeat wants a positive number"

report() {
	python3 "$ROOT/bench/report.py" "$@"
}
if [ -n "$report_only" ]; then
	report "$report_only"
	exit
fi

all_mechanisms="off tiering base pghot pghot1 pghot2 pghot-precise damon-promote damon-bidir"
all_scenarios="chase-st chase-mt phase overcommit redis scatter scatter-big scatter-slow scatter-full skewed phase-full redis-zipf"
# Per set: scenarios, and guest parameters per scenario (later ones win).
# pairs: explicit scenario:mechanism runs (the smoke set), else every
# scenario with every mechanism.
pairs=''
case $set in
smoke)
	if [ -z "$scenarios$mechanisms" ]; then
		pairs="scatter:pghot chase-st:damon-bidir redis:pghot1"
	fi
	scenarios=${scenarios:-"scatter chase-st redis"}
	mechanisms=${mechanisms:-"pghot damon-bidir pghot1"}
	common=(size_mb=64 seconds=6 interval=1)
	redis=(redis_keys=4000 redis_value=1024 redis_rounds=1 redis_requests=1500)
	;;
quick)
	scenarios=${scenarios:-"chase-st phase overcommit scatter"}
	common=(size_mb=256 hot_pct=25 seconds=10 interval=1)
	redis=(redis_keys=10000 redis_value=2048 redis_rounds=2 redis_requests=3000 interval=2)
	;;
full)
	scenarios=${scenarios:-$all_scenarios}
	common=(size_mb=512 hot_pct=25 seconds=60 interval=2)
	redis=(redis_keys=100000 redis_value=1024 redis_rounds=8 redis_requests=20000 interval=2)
	;;
esac
mechanisms=${mechanisms:-$all_mechanisms}
scenario_args() { # scenario -> its parameters on top of the common ones
	case $1 in
	chase-mt) echo "threads=$cpus" ;;
	phase)
		case $set in
		smoke) echo "phase_at=3" ;;
		quick) echo "seconds=16 phase_at=8" ;;
		full) echo "seconds=90 phase_at=45" ;;
		esac ;;
	overcommit)
		# Twice the fast node; the head of the buffer fills 7/8 of it.
		echo "size_mb=$((fast_mb * 2)) fast_mb=$((fast_mb - fast_mb / 8)) chunks=8" ;;
	redis) echo "${redis[*]}" ;;
	scatter|scatter-slow|scatter-full)
		case $set in
		# 256 MiB (one scan step), no phase change: the smoke assertions
		smoke) echo "size_mb=256 seconds=20 interval=2 phase_at=-1" ;;
		quick) echo "size_mb=768 seconds=40 interval=2 phase_at=20" ;;
		full) echo "size_mb=768 seconds=120 interval=2 phase_at=60" ;;
		esac ;;
	scatter-big)
		case $set in
		smoke|quick) echo "size_mb=2048 seconds=60 interval=3 phase_at=30" ;;
		full) echo "size_mb=2048 seconds=180 interval=3 phase_at=90" ;;
		esac ;;
	skewed|phase-full)
		# A buffer of twice the fast node; the classes' shares are the
		# guest's defaults for the scenario (bench-guest.sh).
		case $set in
		smoke|quick) echo "size_mb=$((fast_mb * 2)) seconds=60 interval=3 phase_at=" ;;
		full) echo "size_mb=$((fast_mb * 2)) seconds=180 interval=3 phase_at=" ;;
		esac ;;
	redis-zipf)
		# Values of 4000 bytes take about 4240 bytes of redis memory
		# each (jemalloc's 4 KiB class): keys for 1.5x (quick) or 2x
		# (full) the fast node.
		case $set in
		smoke|quick) echo "redis_keys=$((fast_mb * 3 * 524288 / 4240)) redis_value=4000" \
			"redis_clients=8 seconds=60 interval=3 zipf_round_s=5" ;;
		full) echo "redis_keys=$((fast_mb * 2 * 1048576 / 4240)) redis_value=4000" \
			"redis_clients=8 seconds=180 interval=3 zipf_round_s=5" ;;
		esac ;;
	esac
}
scenario_vm() { # scenario -> fast_mb slow_mb of its VM
	case $1 in
	scatter-big) echo "$((fast_mb > 1536 ? fast_mb : 1536)) $((slow_mb > 3072 ? slow_mb : 3072))" ;;
	scatter-full) echo "$fast_mb $((slow_mb > 1536 ? slow_mb : 1536))" ;;
	skewed|phase-full)
		echo "$fast_mb $((slow_mb > 2 * fast_mb + 512 ? slow_mb : 2 * fast_mb + 512))" ;;
	redis-zipf)
		echo "$fast_mb $((slow_mb > 2 * fast_mb + 1024 ? slow_mb : 2 * fast_mb + 1024))" ;;
	*) echo "$fast_mb $slow_mb" ;;
	esac
}
for s in $scenarios; do
	case " $all_scenarios " in *" $s "*) ;; *) die "unknown scenario $s" ;; esac
done
for m in $mechanisms; do
	case " $all_mechanisms " in *" $m "*) ;; *) die "unknown mechanism $m" ;; esac
done
if [ -z "$pairs" ]; then
	for s in $scenarios; do
		for m in $mechanisms; do
			pairs="$pairs $s:$m"
		done
	done
fi
command -v python3 >/dev/null || die "python3 missing (make deps)"
command -v gnuplot >/dev/null || die "gnuplot missing (make deps)"

out=${out:-$BUILD/bench-results/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out/raw" "$out/logs"
out=$(cd "$out" && pwd)

# Private copies of the kernels and of the VM script, so that a rebuild or
# an edit of the harness during a long run does not change it under us.
kernel_path() { # FLAVOUR|PATH -> bzImage
	case $1 in
	*/*) echo "$1" ;;
	*) echo "$BUILD/obj-$1/arch/x86/boot/bzImage" ;;
	esac
}
kernel_version() { # bzImage -> its version string
	file -b "$1" | sed -n 's/.*version \([^ ]*\) .*/\1/p'
}
bz=$(kernel_path "$kernel")
[ -f "$bz" ] || die "no kernel at $bz (make kernel)"
cp "$bz" "$out/bzImage"
# Mechanisms on a kernel of their own: a copy each, or skipped when missing.
declare -A run_kernel=() skip_mech=()
for m in $mechanisms; do
	k=${mech_kernel[$m]:-}
	[ -n "$k" ] || continue
	kbz=$(kernel_path "$k")
	if [ "$kbz" -ef "$bz" ]; then
		continue
	elif [ -f "$kbz" ]; then
		name=bzImage-$(basename "$k" | tr -c 'A-Za-z0-9._\n-' _)
		[ -f "$out/$name" ] || cp "$kbz" "$out/$name"
		run_kernel[$m]=$out/$name
	else
		skip_mech[$m]="no kernel at $kbz (make kernel-$k)"
		warn "bench: $m needs the $k kernel: ${skip_mech[$m]}; its runs are skipped"
	fi
done
mkdir -p "$out/harness"
cp "$ROOT/scripts/vm.sh" "$ROOT/scripts/lib.sh" "$out/harness/"

# An initramfs of its own (in the results, removed at the end), with redis
# when a scenario needs it; the one of make check/run stays as it is.
env=$out/env
mkdir -p "$env"
ln -sfn "$BUILD/linux" "$env/linux"
[ -d "$BUILD/linux/.git" ] || die "no kernel tree in $BUILD/linux (make tree)"
extras=
case " $scenarios " in
*" redis "*|*" redis-zipf "*) extras="migratepages redis-server redis-benchmark redis-cli" ;;
esac
log "bench: initramfs"
BUILD=$env INITRAMFS_EXTRA=$extras "$ROOT/scripts/mkinitramfs.sh" > "$out/logs/initramfs.log" 2>&1 ||
	{ cat "$out/logs/initramfs.log" >&2; die "initramfs failed"; }
rm -rf "$env/initramfs" "$env/selftests" "$env/bench"

series_commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')
git -C "$ROOT" diff --quiet HEAD 2>/dev/null || series_commit="$series_commit+changes"
linux_describe=$(git -C "$BUILD/linux" describe --tags --always --dirty 2>/dev/null || echo '?')
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
{
	echo "set=$set"
	echo "scenarios=$scenarios"
	echo "mechanisms=$mechanisms"
	echo "pairs=${pairs# }"
	echo "repeat=$repeat"
	echo "kernel=$bz"
	echo "kernel_version=$(kernel_version "$out/bzImage")"
	for m in "${!run_kernel[@]}"; do
		echo "kernel.$m=${mech_kernel[$m]} $(kernel_version "${run_kernel[$m]}")"
	done
	for m in "${!skip_mech[@]}"; do
		echo "skipped.$m=${skip_mech[$m]}"
	done
	echo "topology=small fast_mb=$fast_mb slow_mb=$slow_mb cpus=$cpus"
	echo "command=scripts/bench.sh --$set${scenarios:+ --scenarios \"$scenarios\"}" \
		"--mechanisms \"$mechanisms\" --kernel $kernel --fast-mb $fast_mb --slow-mb $slow_mb" \
		"--cpus $cpus${extra[*]:+ --set ${extra[*]}}$([ "$repeat" = 1 ] || echo " --repeat $repeat")" \
		"$(for m in "${!mech_kernel[@]}"; do echo "--mech-kernel $m=${mech_kernel[$m]}"; done | sort | tr '\n' ' ')"
	echo "series_commit=$series_commit"
	echo "linux_describe=$linux_describe"
	echo "host=$(nproc) cpus, $(uname -r), qemu $(qemu-system-x86_64 --version | head -n1 | awk '{ print $4 }')"
	echo "loadavg_start=$(loadavg)"
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
} > "$out/meta.txt"

# The runs: every pair, then every pair again for each --repeat (so that a
# drift of the host spreads over all pairs), with a progress line and an
# estimate of the time left from the expected length of each run (its
# seconds plus boot and setup), scaled by how long the runs so far took
# against their estimate.
runs=()
for r in $(seq 1 "$repeat"); do
	for p in $pairs; do
		runs+=("$p:$r")
	done
done
run_args() { # scenario mech -> the guest's parameters
	# shellcheck disable=SC2046 # words by design
	printf '%s\n' scenario="$1" mech="$2" "${common[@]}" $(scenario_args "$1") "${extra[@]}"
}
expected_s() { # scenario mech -> the run's expected wall time (s)
	local secs=10 size=256 keys=0 a
	for a in $(run_args "$1" "$2"); do
		case $a in
		seconds=*) secs=${a#seconds=} ;;
		size_mb=*) size=${a#size_mb=} ;;
		redis_keys=*) keys=${a#redis_keys=} ;;
		esac
	done
	[ "$1" = redis ] && secs=60
	# redis-zipf: loading its dataset (about 1000 keys/s under TCG, a guess).
	[ "$1" = redis-zipf ] && secs=$((secs + keys / 1000)) size=0
	echo $((secs + 12 + size / 128))
}
total=${#runs[@]} exp_total=0
for x in "${runs[@]}"; do
	IFS=: read -r s m _ <<< "$x"
	exp_total=$((exp_total + $(expected_s "$s" "$m")))
done
log "bench: $total runs, about $((exp_total / 60)) min"

failed=0 t_start=$(date +%s) k=0 exp_done=0
for x in "${runs[@]}"; do
	IFS=: read -r s m rep <<< "$x"
	k=$((k + 1))
	name=$s-$m
	[ "$rep" = 1 ] || name=$name.rep$rep
	raw=$out/raw/$name.txt
	exp=$(expected_s "$s" "$m")
	now=$(date +%s)
	left=$((exp_total - exp_done))
	[ $exp_done -gt 0 ] && left=$((left * (now - t_start) / exp_done))
	printf '[%d/%d] %s%s, about %d min %02d s left\n' "$k" "$total" "$s-$m" \
		"$([ "$repeat" = 1 ] || echo " (repetition $rep)")" $((left / 60)) $((left % 60)) >&2
	exp_done=$((exp_done + exp))
	if [ -n "${skip_mech[$m]:-}" ]; then
		echo "@skipped ${skip_mech[$m]}" > "$raw"
		continue
	fi
	mapfile -t args < <(run_args "$s" "$m")
	rbz=${run_kernel[$m]:-$out/bzImage}
	read -r vfast vslow <<< "$(scenario_vm "$s")"
	log "bench: $name (${args[*]:2})${run_kernel[$m]:+ on ${mech_kernel[$m]}}"
	# A generous limit: twice the measured time plus boot and setup (redis:
	# its rounds are counted in requests, not seconds).
	secs=10
	for a in "${args[@]}"; do
		case $a in seconds=*) secs=${a#seconds=} ;; esac
	done
	limit=$((2 * secs + 120))
	[ "$s" = scatter-big ] && limit=$((2 * secs + 300))
	[ "$s" = redis ] && limit=900
	[ "$s" = redis-zipf ] && limit=$((2 * secs + 900))
	load0=$(loadavg)
	try=1
	while :; do
		t0=$(date +%s)
		if BUILD=$env nice -n 19 "$out/harness/vm.sh" --kernel "$rbz" \
			--fast-mb "$vfast" --slow-mb "$vslow" --cpus "$cpus" --timeout "$limit" \
			--log "$out/logs/$name" -- "bench-guest.sh ${args[*]}" \
			> "$raw" 2> "$out/logs/$name.err"; then
			log "bench: $name done in $(($(date +%s) - t0)) s"
			break
		fi
		# The guest's exit line can be lost when it powers off before
		# the serial port drained; the benchmark's own end line counts.
		if grep -q 'without reporting a status' "$out/logs/$name.err" &&
		   grep -q '^@end ' "$raw"; then
			log "bench: $name done in $(($(date +%s) - t0)) s (no exit line from the guest)"
			break
		fi
		# QEMU TCG now and then hangs a guest in early boot: once,
		# boot again when the guest never reached the benchmark.
		if [ $try = 1 ] && ! grep -q '^@run ' "$raw"; then
			warn "bench: $name: the guest did not start the benchmark; booting again"
			mv "$out/logs/$name.err" "$out/logs/$name.err.1"
			rm -rf "$out/logs/$name.1"
			mv "$out/logs/$name" "$out/logs/$name.1"
			rm -rf "$out/logs/$name.1"/{initrd.cpio,run.cpio,initramfs}
			try=2
			continue
		fi
		failed=$((failed + 1))
		echo "@failed see logs/$name.err" >> "$raw"
		warn "bench: $name failed; $(tail -n 3 "$out/logs/$name.err" | tr '\n' ' ')"
		break
	done
	rm -rf "$out/logs/$name"/{initrd.cpio,run.cpio,initramfs}
	if [ $try = 2 ]; then
		echo "@note the first boot hung before the benchmark started (logs/$name.1); booted again" \
			>> "$raw"
	fi
	echo "@host rep=$rep kernel=$(basename "$rbz") kernel_version=$(kernel_version "$rbz")" \
		"vm_fast_mb=$vfast vm_slow_mb=$vslow series_commit=$series_commit" \
		"linux_describe=$linux_describe wall_s=$(($(date +%s) - t0))" \
		"loadavg_start=${load0// /,} loadavg_end=$(loadavg | tr ' ' ,)" >> "$raw"
done
{
	echo "elapsed_s=$(($(date +%s) - t_start))"
	echo "loadavg_end=$(loadavg)"
} >> "$out/meta.txt"
rm -rf "$env"

smoke_assert=()
[ "$set" = smoke ] && smoke_assert=(--assert-smoke)
rc=0
report "${smoke_assert[@]}" "$out" || rc=$?
[ $rc = 3 ] && die "smoke run: the assertions failed (above; results in $out)"
[ $rc = 0 ] || die "report failed"
log "bench: results in $out (results.txt, summary.txt, results.csv, timeseries.csv, *.png)"
if [ $failed -gt 0 ]; then
	die "$failed run(s) failed"
fi

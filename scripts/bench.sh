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
#   --quick   (default) the four pointer-chase scenarios, short runs: about
#             10 minutes on 2 cores (--scenarios "... redis" adds redis)
#   --full    everything, longer runs and bigger sizes
#   --smoke   a one-to-two-minute run of the harness itself (make check)
# Options:
#   --scenarios "S ..."    chase-st chase-mt phase overcommit redis
#   --mechanisms "M ..."   off tiering pghot1 pghot2 damon-promote damon-bidir
#   --kernel FLAVOUR|PATH  test (default), ..., or a bzImage (copied first)
#   --out DIR              results directory (default build/bench-results/<timestamp>;
#                          not build/bench/, whose files go into the initramfs)
#   --fast-mb N --slow-mb N --cpus N   VM topology (small: node 0 fast, node 1 slow)
#   --set KEY=VALUE        a parameter of bench/bench-guest.sh for every run
#                          (size_mb, hot_pct, threads, seconds, interval, ...)
#   --report-only DIR      rebuild the table, CSV and plots of an earlier run

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

set=quick scenarios='' mechanisms='' kernel=test out='' fast_mb=512 slow_mb=1024 cpus=2
report_only='' extra=()
while [ $# -gt 0 ]; do
	case $1 in
	--quick|--full|--smoke) set=${1#--} ;;
	--scenarios) scenarios=$2; shift ;;
	--mechanisms) mechanisms=$2; shift ;;
	--kernel) kernel=$2; shift ;;
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

report() {
	python3 "$ROOT/bench/report.py" "$1"
}
if [ -n "$report_only" ]; then
	report "$report_only"
	exit
fi

all_mechanisms="off tiering pghot1 pghot2 damon-promote damon-bidir"
# Per set: scenarios, and guest parameters per scenario (later ones win).
case $set in
smoke)
	scenarios=${scenarios:-"chase-st redis"}
	mechanisms=${mechanisms:-"pghot1 damon-bidir"}
	common=(size_mb=64 seconds=6 interval=1)
	redis=(redis_keys=4000 redis_value=1024 redis_rounds=1 redis_requests=1500)
	;;
quick)
	scenarios=${scenarios:-"chase-st chase-mt phase overcommit"}
	common=(size_mb=256 hot_pct=25 seconds=10 interval=1)
	redis=(redis_keys=10000 redis_value=2048 redis_rounds=2 redis_requests=3000 interval=2)
	;;
full)
	scenarios=${scenarios:-"chase-st chase-mt phase overcommit redis"}
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
	esac
}
for s in $scenarios; do
	case $s in chase-st|chase-mt|phase|overcommit|redis) ;;
	*) die "unknown scenario $s" ;; esac
done
for m in $mechanisms; do
	case " $all_mechanisms " in *" $m "*) ;; *) die "unknown mechanism $m" ;; esac
done
command -v python3 >/dev/null || die "python3 missing (make deps)"
command -v gnuplot >/dev/null || die "gnuplot missing (make deps)"

out=${out:-$BUILD/bench-results/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out/raw" "$out/logs"
out=$(cd "$out" && pwd)

# Private copies of the kernel and of the VM script, so that a rebuild or
# an edit of the harness during a long run does not change it under us.
case $kernel in
*/*) bz=$kernel ;;
*) bz=$BUILD/obj-$kernel/arch/x86/boot/bzImage ;;
esac
[ -f "$bz" ] || die "no kernel at $bz (make kernel)"
cp "$bz" "$out/bzImage"
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
*" redis "*) extras="migratepages redis-server redis-benchmark redis-cli" ;;
esac
log "bench: initramfs"
BUILD=$env INITRAMFS_EXTRA=$extras "$ROOT/scripts/mkinitramfs.sh" > "$out/logs/initramfs.log" 2>&1 ||
	{ cat "$out/logs/initramfs.log" >&2; die "initramfs failed"; }
rm -rf "$env/initramfs" "$env/selftests" "$env/bench"

{
	echo "set=$set"
	echo "scenarios=$scenarios"
	echo "mechanisms=$mechanisms"
	echo "kernel=$bz"
	echo "kernel_version=$(file -b "$out/bzImage" | sed -n 's/.*version \([^ ]*\) .*/\1/p')"
	echo "topology=small fast_mb=$fast_mb slow_mb=$slow_mb cpus=$cpus"
	echo "command=scripts/bench.sh --$set${scenarios:+ --scenarios \"$scenarios\"}" \
		"--mechanisms \"$mechanisms\" --kernel $kernel --fast-mb $fast_mb --slow-mb $slow_mb" \
		"--cpus $cpus${extra[*]:+ --set ${extra[*]}}"
	echo "host=$(nproc) cpus, $(uname -r), qemu $(qemu-system-x86_64 --version | head -n1 | awk '{ print $4 }')"
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
} > "$out/meta.txt"

failed=0 t_start=$(date +%s)
for s in $scenarios; do
	for m in $mechanisms; do
		name=$s-$m
		# shellcheck disable=SC2207 # words by design
		args=(scenario="$s" mech="$m" "${common[@]}" $(scenario_args "$s") "${extra[@]}")
		log "bench: $name (${args[*]:2})"
		# A generous limit: twice the measured time plus boot and
		# setup (redis: its rounds are counted in requests, not seconds).
		secs=10
		for a in "${args[@]}"; do
			case $a in seconds=*) secs=${a#seconds=} ;; esac
		done
		limit=$((2 * secs + 120))
		[ "$s" = redis ] && limit=900
		try=1
		while :; do
			t0=$(date +%s)
			if BUILD=$env nice -n 19 "$out/harness/vm.sh" --kernel "$out/bzImage" \
				--fast-mb "$fast_mb" --slow-mb "$slow_mb" --cpus "$cpus" --timeout "$limit" \
				--log "$out/logs/$name" -- "bench-guest.sh ${args[*]}" \
				> "$out/raw/$name.txt" 2> "$out/logs/$name.err"; then
				log "bench: $name done in $(($(date +%s) - t0)) s"
				break
			fi
			# The guest's exit line can be lost when it powers off before
			# the serial port drained; the benchmark's own end line counts.
			if grep -q 'without reporting a status' "$out/logs/$name.err" &&
			   grep -q '^@end ' "$out/raw/$name.txt"; then
				log "bench: $name done in $(($(date +%s) - t0)) s (no exit line from the guest)"
				break
			fi
			# QEMU TCG now and then hangs a guest in early boot: once,
			# boot again when the guest never reached the benchmark.
			if [ $try = 1 ] && ! grep -q '^@run ' "$out/raw/$name.txt"; then
				warn "bench: $name: the guest did not start the benchmark; booting again"
				mv "$out/logs/$name.err" "$out/logs/$name.err.1"
				rm -rf "$out/logs/$name.1"
				mv "$out/logs/$name" "$out/logs/$name.1"
				rm -rf "$out/logs/$name.1"/{initrd.cpio,run.cpio,initramfs}
				try=2
				continue
			fi
			failed=$((failed + 1))
			echo "@failed see logs/$name.err" >> "$out/raw/$name.txt"
			warn "bench: $name failed; $(tail -n 3 "$out/logs/$name.err" | tr '\n' ' ')"
			break
		done
		rm -rf "$out/logs/$name"/{initrd.cpio,run.cpio,initramfs}
		if [ $try = 2 ]; then
			echo "@note the first boot hung before the benchmark started (logs/$name.1); booted again" \
				>> "$out/raw/$name.txt"
		fi
	done
done
echo "elapsed_s=$(($(date +%s) - t_start))" >> "$out/meta.txt"
rm -rf "$env"

report "$out" || die "report failed"
log "bench: results in $out (results.txt, results.csv, timeseries.csv, *.png)"
if [ $failed -gt 0 ]; then
	die "$failed run(s) failed"
fi

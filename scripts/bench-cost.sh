#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-cost.sh [--boots N] [--mb M] [--rounds R] [--reps P] [--out DIR]
#
# What pghot costs the page allocator, side by side in one run: page
# allocation and free on the lower-tier node (bench/allocfree.c, THP off,
# NUMA balancing off) on
#   nopghot    the nopghot kernel (CONFIG_PGHOT=n)
#   off        the test kernel, every source off (the default)
#   on         the test kernel, enabled_sources=1: records exist and the
#              page free hook resets them (no hint faults: the cost of the
#              records and the hook alone)
#   off-again  the test kernel, sources off again after having been on
# Each of N boots (default 3) of each kernel runs the phases, alternating
# them P times (default 2), R rounds of M MiB each (defaults 8 and 128).
# The first round of every phase warms up and is not counted.  The table
# gives the median ns per page over all counted rounds, the min-max of the
# per-boot medians, and the difference from nopghot.  Under TCG both nodes
# are host DRAM and emulation dominates the absolute figures: read the
# differences against the spread between boots.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

boots=3 mb=128 rounds=8 reps=2 out=
while [ $# -gt 0 ]; do
	case $1 in
	--boots) boots=$2; shift ;;
	--mb) mb=$2; shift ;;
	--rounds) rounds=$2; shift ;;
	--reps) reps=$2; shift ;;
	--out) out=$2; shift ;;
	-h|--help) sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) die "unknown option $1 (see $0 --help)" ;;
	esac
	shift
done
for v in "$boots" "$mb" "$rounds" "$reps"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || die "positive numbers only: $v"
done
[ "$rounds" -ge 2 ] || die "--rounds must be at least 2 (the first warms up)"
for k in nopghot test; do
	[ -f "$BUILD/obj-$k/arch/x86/boot/bzImage" ] ||
		die "no $k kernel (make kernel-$k / make kernel)"
done
out=${out:-$BUILD/bench-results/cost-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out/logs"
"$ROOT/scripts/mkinitramfs.sh" > "$out/logs/initramfs.log" 2>&1 ||
	{ cat "$out/logs/initramfs.log" >&2; die "initramfs failed"; }

csv=$out/rounds.csv
echo "kernel,boot,label,round,pages,fault_ns_per_page,free_ns_per_page,total_ns_per_page" > "$csv"
for b in $(seq 1 "$boots"); do
	for k in nopghot test; do
		log "bench-cost: boot $b, $k kernel"
		nice -n 19 "$ROOT/scripts/vm.sh" --kernel "$k" --timeout 900 \
			--log "$out/logs/$k-$b" -- \
			"/bench/cost-guest.sh $mb $rounds $reps" \
			> "$out/logs/$k-$b.csv" 2> "$out/logs/$k-$b.err" ||
			{ tail -n 20 "$out/logs/$k-$b.err" >&2; die "the $k kernel's run $b failed"; }
		grep -E '^[a-z-]+,[0-9]+,' "$out/logs/$k-$b.csv" | sed "s/^/$k,$b,/" >> "$csv"
		grep '^# ' "$out/logs/$k-$b.err" | sort -u | sed "s/^/  $k boot $b /" >&2 || true
	done
done

python3 - "$csv" "$mb" "$rounds" "$reps" "$boots" > "$out/table.txt" <<'EOF'
import csv, statistics, sys
path, mb, rounds, reps, boots = sys.argv[1:]
rows = [r for r in csv.DictReader(open(path)) if r['round'] != '0']
labels = [l for l in ('nopghot', 'off', 'on', 'off-again')
          if any(r['label'] == l for r in rows)]
if 'nopghot' not in labels or 'off' not in labels:
    sys.exit('bench-cost: missing runs')
cols = ('fault_ns_per_page', 'free_ns_per_page', 'total_ns_per_page')
def med(label, col, boot=None):
    v = [float(r[col]) for r in rows if r['label'] == label and
         (boot is None or r['boot'] == boot)]
    return statistics.median(v), len(v)
base = {c: med('nopghot', c)[0] for c in cols}
print(f'page alloc+free on the lower-tier node: {mb} MiB x {int(rounds) - 1} '
      f'counted rounds x {reps} alternations per boot, {boots} boots per kernel')
print(f'command: scripts/bench-cost.sh --boots {boots} --mb {mb} '
      f'--rounds {rounds} --reps {reps}')
print('ns per 4 KiB page: median over all counted rounds [min-max of the '
      'per-boot medians] (difference from nopghot)')
print(f'{"kernel/phase":14} {"fault+alloc":>34} {"free (munmap)":>34} {"total":>34}')
for l in labels:
    cells = []
    for c in cols:
        m, n = med(l, c)
        per_boot = [med(l, c, b)[0] for b in sorted({r['boot'] for r in rows
                                                      if r['label'] == l})]
        d = (m - base[c]) / base[c] * 100
        cells.append(f'{m:8.0f} [{min(per_boot):6.0f}-{max(per_boot):6.0f}] '
                     f'({d:+5.1f}%)')
    print(f'{l:14} ' + ' '.join(f'{x:>34}' for x in cells) + f'  n={n}')
EOF
cat "$out/table.txt"
log "bench-cost: $out"

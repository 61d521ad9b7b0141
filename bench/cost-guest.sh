#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cost-guest.sh MB ROUNDS REPS
#
# Guest side of scripts/bench-cost.sh: allocate and free MB MiB on the
# lower-tier node, ROUNDS rounds per phase, and print allocfree's CSV.  On a
# kernel with pghot the phases alternate REPS times, so that drift of the
# emulated machine spreads evenly over them:
#   off        every source off (the default): no records, free hook off
#   on         enabled_sources=1: records and kmigrated exist, the free hook
#              resets records; NUMA balancing stays off, so this is the cost
#              of the hook and of the records alone, not of hint faults
#   off-again  every source off after having been on
# On a kernel without pghot the one phase is "nopghot".
MB=${1:-128} ROUNDS=${2:-8} REPS=${3:-2}
PGHOT=/sys/kernel/debug/pghot

# The first node of the second memory tier, in tier order.
slow=$(for d in /sys/devices/virtual/memory_tiering/memory_tier*; do
	[ -f "$d/nodelist" ] && echo "${d##*memory_tier} $(cat "$d/nodelist")"
done | sort -n | sed -n 2p | cut -d' ' -f2 | sed 's/[-,].*//')
[ -n "$slow" ] || { echo "no lower memory tier" >&2; exit 1; }
echo 0 > /proc/sys/kernel/numa_balancing

header=1
phase() { # label [enabled_sources]
	if [ -n "$2" ]; then
		echo "$2" > $PGHOT/enabled_sources || exit 1
	fi
	if [ -n "$2" ]; then
		echo "# $1: $(grep -E '^(bytes_allocated|sections) ' $PGHOT/stats | tr '\n' ' ')kmigrated threads $(grep -l '^kmigrated' /proc/[0-9]*/comm 2>/dev/null | wc -l)" >&2
	fi
	allocfree --node "$slow" --mb "$MB" --rounds "$ROUNDS" --label "$1" > /tmp/af.csv ||
		exit 1
	if [ $header = 1 ]; then head -n 1 /tmp/af.csv; header=0; fi
	tail -n +2 /tmp/af.csv
}

if [ -f $PGHOT/enabled_sources ]; then
	i=0
	while [ $i -lt "$REPS" ]; do
		phase off 0
		phase on 1
		phase off-again 0
		i=$((i + 1))
	done
else
	phase nopghot
fi

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of `make run`: a hot set on the slow node, without promotion,
# with mainline NUMA balancing in tiering mode (pghot's sources off), and
# with pghot (hint faults recorded, kmigrated promotes).
SIZE=${SIZE:-256} STRIDE=${STRIDE:-4} SECONDS_=${DEMO_SECONDS:-20}
SCHED=/sys/kernel/debug/sched/numa_balancing
PGHOT=/sys/kernel/debug/pghot

# The NUMA-balancing scanner keeps the kernel's own tunables.
echo "memory tiers: $(for d in /sys/devices/virtual/memory_tiering/memory_tier*; do
	printf '%s=%s ' "${d##*/}" "$(cat "$d"/nodelist)"; done)"
echo "scan tunables (kernel defaults): $(for f in "$SCHED"/*; do
	[ -f "$f" ] && printf '%s=%s ' "${f##*/}" "$(cat "$f")"; done)"
echo "hot%top / cold%top: share of the hot / cold set in the top tier;"
echo "other columns: /proc/vmstat deltas since the start of the run"

run() {
	echo
	echo "== $1"
	hotset --size-mb "$SIZE" --stride "$STRIDE" --seconds "$SECONDS_" --interval 2
}

echo 0 > /proc/sys/kernel/numa_balancing
run "no promotion (kernel.numa_balancing=0)"

[ -f $PGHOT/enabled_sources ] && echo 0 > $PGHOT/enabled_sources
echo 2 > /proc/sys/kernel/numa_balancing
run "mainline NUMA balancing, tiering mode (kernel.numa_balancing=2)"

echo 0 > /proc/sys/kernel/numa_balancing

if [ -f $PGHOT/enabled_sources ]; then
	echo 1 > $PGHOT/enabled_sources
	echo 2 > /proc/sys/kernel/numa_balancing
	run "pghot: hint faults recorded, kmigrated promotes (enabled_sources=1, other tunables at their defaults:$(
		for f in "$PGHOT"/*; do
			case ${f##*/} in stats|enabled_sources) continue ;; esac
			[ -f "$f" ] && printf ' %s=%s' "${f##*/}" "$(cat "$f" 2>/dev/null)"
		done))"
	echo 0 > /proc/sys/kernel/numa_balancing
	echo 0 > $PGHOT/enabled_sources
else
	echo
	echo "== pghot: this kernel has no kmigrated (CONFIG_PGHOT=n?), skipped"
fi

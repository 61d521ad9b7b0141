#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm.sh [options] [--] COMMAND...
#
# Boot a kernel in the tiered-memory VM (QEMU, TCG) with the test initramfs,
# run COMMAND (a shell command line) in the guest and exit with its status.
# The guest's output (second serial port) goes to stdout; the kernel console
# is kept in the log directory.  The run fails (exit 1) when the guest
# panics, oopses, WARNs, reports KASAN/lockdep/RCU trouble or hangs past the
# timeout, even if COMMAND succeeded.
#
# Options:
#   --topology small|seed|twodram   node layout (default small)
#       small:   node 0 DRAM + CPUs, node 1 CPU-less slow memory
#       seed:    nodes 0 and 1 DRAM + one CPU each, node 2 CPU-less slow memory
#       twodram: node 0 DRAM + CPUs, node 1 CPU-less DRAM (same tier as
#                node 0), node 2 CPU-less slow memory
#   --fast-mb N, --slow-mb N  memory per DRAM / slow node (default 1024)
#   --dimm-mb N              also plug an N MiB DIMM into the slow node at boot,
#                            onlined to ZONE_MOVABLE so that it can be offlined
#   --cpus N                 vCPUs (default 2)
#   --kernel FLAVOUR|PATH    test (default), debug, precise, nopghot, or a bzImage
#   --timeout S              whole-run timeout in seconds (default 600)
#   --log DIR                where console.log and output.log go
#   --append ARGS            extra kernel command line
#   --no-tier-check          do not assert the tier layout
#   --shell                  interactive shell on the console instead

. "$(dirname "$0")/lib.sh"

topology=small fast_mb=1024 slow_mb=1024 cpus=2 kernel=test timeout=600
logdir= append= tiercheck=1 shell=0 dimm_mb=0
while [ $# -gt 0 ]; do
	case $1 in
	--topology) topology=$2; shift ;;
	--fast-mb) fast_mb=$2; shift ;;
	--slow-mb) slow_mb=$2; shift ;;
	--dimm-mb) dimm_mb=$2; shift ;;
	--cpus) cpus=$2; shift ;;
	--kernel) kernel=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	--log) logdir=$2; shift ;;
	--append) append="$append $2"; shift ;;
	--no-tier-check) tiercheck=0 ;;
	--shell) shell=1 ;;
	--) shift; break ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
	shift
done
cmd="$*"
[ -n "$cmd" ] || [ $shell = 1 ] || die "no command"

case $kernel in
*/*) bz=$kernel ;;
*) bz=$BUILD/obj-$kernel/arch/x86/boot/bzImage ;;
esac
[ -f "$bz" ] || die "no kernel at $bz (make kernel)"
[ -f "$BUILD/initramfs.cpio" ] || die "no initramfs (make initramfs)"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing (make deps)"

logdir=${logdir:-$(mktemp -d "${TMPDIR:-/tmp}/pghot-vm.XXXXXX")}
mkdir -p "$logdir"

hmat() { # initiator target latency-ns bandwidth
	echo "-numa hmat-lb,initiator=$1,target=$2,hierarchy=memory,data-type=access-latency,latency=$3"
	echo "-numa hmat-lb,initiator=$1,target=$2,hierarchy=memory,data-type=access-bandwidth,bandwidth=$4"
}

# The slow node: three times the latency and half the bandwidth of DRAM, as
# HMAT reports for CXL-attached memory; the kernel then puts it in a lower
# memory tier (memory_tier4 is DRAM's tier).
case $topology in
small)
	mem=$((fast_mb + slow_mb))
	numa=(-object memory-backend-ram,id=m0,size=${fast_mb}M
	      -object memory-backend-ram,id=m1,size=${slow_mb}M
	      -numa node,nodeid=0,memdev=m0,cpus=0-$((cpus - 1)),initiator=0
	      -numa node,nodeid=1,memdev=m1,initiator=0
	      $(hmat 0 0 10 10G) $(hmat 0 1 30 5G))
	tiers="0|1"
	slow_node=1
	smp=$cpus
	;;
seed)
	[ "$cpus" -ge 2 ] || die "seed topology needs at least 2 CPUs"
	half=$((cpus / 2))
	mem=$((2 * fast_mb + slow_mb))
	numa=(-object memory-backend-ram,id=m0,size=${fast_mb}M
	      -object memory-backend-ram,id=m1,size=${fast_mb}M
	      -object memory-backend-ram,id=m2,size=${slow_mb}M
	      -numa node,nodeid=0,memdev=m0,cpus=0-$((half - 1)),initiator=0
	      -numa node,nodeid=1,memdev=m1,cpus=$half-$((cpus - 1)),initiator=1
	      -numa node,nodeid=2,memdev=m2,initiator=0
	      $(hmat 0 0 10 10G) $(hmat 0 1 20 8G) $(hmat 0 2 30 5G)
	      $(hmat 1 0 20 8G) $(hmat 1 1 10 10G) $(hmat 1 2 30 5G))
	tiers="0-1|2"
	slow_node=2
	# One socket per DRAM node: CPUs of different nodes share no cache.
	smp=$cpus,sockets=2,cores=$half,threads=1
	;;
twodram)
	# A second top-tier node without CPUs, as a CXL-attached DRAM
	# expander that HMAT reports as fast as local DRAM would be.
	mem=$((2 * fast_mb + slow_mb))
	numa=(-object memory-backend-ram,id=m0,size=${fast_mb}M
	      -object memory-backend-ram,id=m1,size=${fast_mb}M
	      -object memory-backend-ram,id=m2,size=${slow_mb}M
	      -numa node,nodeid=0,memdev=m0,cpus=0-$((cpus - 1)),initiator=0
	      -numa node,nodeid=1,memdev=m1,initiator=0
	      -numa node,nodeid=2,memdev=m2,initiator=0
	      $(hmat 0 0 10 10G) $(hmat 0 1 10 10G) $(hmat 0 2 30 5G))
	tiers="0-1|2"
	slow_node=2
	smp=$cpus
	;;
*) die "unknown topology $topology" ;;
esac

memarg=${mem}M
if [ "$dimm_mb" -gt 0 ]; then
	# Cold-plugged through ACPI memory hotplug, so the kernel treats it as
	# hotplugged memory and can offline it.
	memarg="${mem}M,slots=1,maxmem=$((mem + dimm_mb))M"
	numa+=(-object memory-backend-ram,id=dimm0,size=${dimm_mb}M
	       -device pc-dimm,id=dimm0,memdev=dimm0,node=$slow_node)
	append="$append memhp_default_state=online_movable"
fi

# The command rides in a second cpio archive appended to the initramfs.
run=$logdir/initramfs
rm -rf "$run" && mkdir -p "$run"
if [ $shell = 0 ]; then
	printf '#!/bin/sh\n%s\n' "$cmd" > "$run/run.sh"
	chmod 755 "$run/run.sh"
fi
(cd "$run" && find . | cpio -o -H newc --quiet) > "$logdir/run.cpio"
cat "$BUILD/initramfs.cpio" "$logdir/run.cpio" > "$logdir/initrd.cpio"

# brd: a 128 MiB RAM disk for the page-cache tests (ext2 on /dev/ram0).
kargs="console=ttyS0 panic=-1 panic_on_oops=1 loglevel=7 printk.time=1"
kargs="$kargs brd.rd_nr=1 brd.rd_size=131072"
[ $tiercheck = 1 ] && kargs="$kargs pghot.tiers=$tiers"
# KASAN kernels boot without 5-level paging: in the base kernel,
# identify_cpu() clears boot_cpu_data's feature bits with interrupts on and
# before alternatives are patched, so an interrupt in that window sees
# pgtable_l5_enabled() false, KASAN's shadow range shrinks to the 4-level
# layout and the irq descriptor's lock (a 5-level direct-map address) is
# reported as a wild access.  Not pghot's; avoided by not using LA57.
case $kernel in
debug|*obj-debug*) kargs="$kargs no5lvl" ;;
esac
kargs="$kargs $append"

qemu=(qemu-system-x86_64 -accel tcg,thread=multi -cpu max -machine q35,hmat=on
      -smp "$smp" -m "$memarg" "${numa[@]}" -kernel "$bz" -initrd "$logdir/initrd.cpio"
      -append "$kargs" -display none -no-reboot -nic none)
if [ $shell = 1 ]; then
	exec "${qemu[@]}" -serial mon:stdio -serial file:"$logdir/output.log"
fi

: > "$logdir/console.log"
: > "$logdir/output.log"
# Stream the guest's output while it runs.
{ tail -n +1 -F "$logdir/output.log" 2>/dev/null & echo $! > "$logdir/tail.pid"; wait; } |
	grep --line-buffered -av '^PGHOT-EXIT: ' &
streampid=$!
start=$(date +%s)
set +e
timeout -k 10 "$timeout" "${qemu[@]}" -monitor none \
	-serial file:"$logdir/console.log" -serial file:"$logdir/output.log" \
	</dev/null >"$logdir/qemu.log" 2>&1
qrc=$?
set -e
sleep 1
kill "$(cat "$logdir/tail.pid")" 2>/dev/null || true
wait $streampid 2>/dev/null || true

rc=$(sed -n 's/^PGHOT-EXIT: \([0-9]*\).*/\1/p' "$logdir/output.log" | tail -n1)
splat_re='BUG:|WARNING:|Oops|Kernel panic|KASAN|UBSAN|kernel BUG|general protection fault|possible recursive locking|possible circular locking|inconsistent lock state|suspicious RCU usage|INFO: task .* blocked|rcu_.* self-detected stall|detected stall|unreferenced object|Call Trace:'
splat=$(grep -aE "$splat_re" "$logdir/console.log" | head -n 5 || true)

if [ -n "$splat" ]; then
	echo "VM: kernel splat in $logdir/console.log:" >&2
	echo "$splat" | sed 's/^/  /' >&2
	grep -aE -A30 "$splat_re" "$logdir/console.log" | head -n 60 | sed 's/^/  | /' >&2
	exit 1
fi
if [ $qrc = 124 ] || [ $qrc = 137 ]; then
	echo "VM: timed out after ${timeout}s; console in $logdir/console.log" >&2
	tail -n 20 "$logdir/console.log" | sed 's/^/  | /' >&2
	exit 1
fi
if [ -z "$rc" ]; then
	echo "VM: guest ended without reporting a status (qemu exit $qrc); console in $logdir/console.log" >&2
	tail -n 20 "$logdir/console.log" | sed 's/^/  | /' >&2
	exit 1
fi
if [ "$rc" = 97 ]; then
	echo "VM: wrong memory tier layout (expected $tiers); see output above" >&2
	exit 1
fi
echo "VM: guest exit status $rc after $(( $(date +%s) - start ))s (logs: $logdir)" >&2
exit "$rc"

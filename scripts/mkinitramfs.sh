#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build build/initramfs.cpio: busybox-static, numactl and numastat with their
# shared libraries, the selftests of tools/testing/selftests/mm/pghot (static)
# and the benchmark programs.  vm.sh appends a small archive with /run.sh.
# INITRAMFS_EXTRA="prog ..." adds more host programs with their libraries.

. "$(dirname "$0")/lib.sh"

out=$BUILD/initramfs.cpio
# A failed build must not leave the previous image for the VM runs to boot.
rm -f "$out"
root=$BUILD/initramfs
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,etc,selftests/pghot,bench,lib,lib64,root}

command -v busybox >/dev/null || die "busybox missing (make deps)"
cp "$(command -v busybox)" "$root/bin/busybox"
file -L "$root/bin/busybox" | grep -q 'statically linked' ||
	die "busybox is not static (install busybox-static)"
install -m 755 "$ROOT/vm/init" "$root/init"
ln -s busybox "$root/bin/sh"
install -m 755 "$ROOT/vm/run-selftests" "$root/bin/run-selftests"

# numactl and numastat are dynamic: copy them with their libraries.
copy_with_libs() {
	local bin=$1 lib
	cp "$bin" "$root/usr/bin/"
	for lib in $(ldd "$bin" | grep -o '/[^ ]*'); do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}
for b in numactl numastat; do
	p=$(command -v $b 2>/dev/null) && copy_with_libs "$p"
done
# More host programs, with their libraries, when the caller asks for them
# (the benchmark harness: INITRAMFS_EXTRA="redis-server redis-benchmark ...").
for b in ${INITRAMFS_EXTRA:-}; do
	p=$(command -v "$b" 2>/dev/null) || die "INITRAMFS_EXTRA: $b is not installed (make deps)"
	copy_with_libs "$p"
done

# Selftests, statically linked so that they need nothing from the image.
st=$KSRC/tools/testing/selftests/mm/pghot
if [ -f "$st/Makefile" ]; then
	mkdir -p "$BUILD/selftests"
	# lib.mk knows no header dependencies: a program older than one of
	# the headers would keep what the old header said.
	for h in "$st"/*.h; do
		[ -f "$h" ] || continue
		find "$BUILD/selftests" -maxdepth 1 -type f -perm -u+x ! -newer "$h" -delete
	done
	make -s -C "$st" OUTPUT="$BUILD/selftests" LDFLAGS=-static >&2
	find "$BUILD/selftests" -maxdepth 1 -type f -perm -u+x -exec cp {} "$root/selftests/pghot/" \;
fi
# Benchmark programs (the evaluation harness), when present.
if [ -d "$ROOT/bench" ] && [ -f "$ROOT/bench/Makefile" ]; then
	make -s -C "$ROOT/bench" OUT="$BUILD/bench" KSRC="${BENCH_KSRC:-$KSRC}" >&2
	cp -a "$BUILD/bench/." "$root/bench/"
fi

(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) > "$out"
log "initramfs: $out ($(du -h "$out" | cut -f1))"

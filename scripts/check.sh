#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: every test of the project, ending with one summary line
# "N passed, N failed[, N skipped]" and a non-zero exit status when anything
# failed.
#
#   0. the checker: broken inputs fed to the code below are each reported
#      as FAIL (check-selftest.sh)
#   1. the series applies to the base with git am (no fuzz)
#   2. checkpatch --strict is clean on every patch
#   3. the kernels build: test (pghot on), debug (KASAN, lockdep, DEBUG_VM),
#      precise (CONFIG_PGHOT_PRECISE) and nopghot (CONFIG_PGHOT=n), where the
#      series has pghot
#   3b. every patch builds on its own (bisect-check.sh: each patch applied in
#      turn on the test config; its objects, or the kernel where it changes
#      a header, rebuilt with ccache)
#   4. W=1 gives no warning on lines the series adds or changes, the
#      files it touches build in an allmodconfig kernel (CONFIG_WERROR), and
#      the HTML of Documentation/admin-guide/mm and the kernel-doc of the
#      touched files give no warning the base tree lacks
#   5. KUnit (TAP from the kernel log) in the test, precise and debug kernels
#   6. the kselftests of tools/testing/selftests/mm/pghot in the tiered VM,
#      with the test kernel (small and seed topologies) and the debug kernel
#   7. part 1 alone (the patches before the "# part 2" line of
#      patches/series), in build/part1: its test kernel, its KUnit and its
#      own selftests in the VM, and the bench smoke
#
# Every KUnit case and selftest case a kernel or VM run owes is listed in
# scripts/expected/; one that does not report fails ("did not run"), and one
# that reports without being listed fails too.  Each step prints [i/N], the
# time so far and an estimate of the rest, and a heartbeat every minute.
#
# CHECK_QUICK=1 skips the debug kernel (for a quick local run).

. "$(dirname "$0")/lib.sh"

. "$ROOT/scripts/check-lib.sh"

LOGS=$BUILD/check
rm -rf "$LOGS"
mkdir -p "$LOGS"

# Whether the series adds pghot (the tree may not exist yet).
has_pghot() {
	if [ -d "$KSRC/.git" ]; then
		[ -f "$KSRC/mm/pghot/core.c" ]
	else
		grep -v '^#' "$ROOT/patches/series" | sed "s|^|$ROOT/patches/|" |
			xargs grep -qs '^+++ b/mm/pghot/core.c'
	fi
}

flavours=(test)
# Whether patches/series splits the series into part 1 and part 2.
has_part2() { grep -q '^# part 2' "$ROOT/patches/series"; }
P1BUILD=$BUILD/part1
if has_pghot; then
	flavours+=(precise nopghot)
fi
[ "${CHECK_QUICK:-0}" = 1 ] || flavours+=(debug)

# The steps, in the order they run (their names key the step times).
plan=(checker series checkpatch)
for f in "${flavours[@]}"; do plan+=("build $f kernel"); done
has_pghot && plan+=(bisect)
plan+=(W=1)
has_pghot && plan+=(allmodconfig)
plan+=(htmldocs kvzipf initramfs "vm test-small" "vm test-seed" "vm test-twodram" "vm test-bigfast")
has_pghot && plan+=("vm precise" "vm precise-seed" "vm nopghot" "bench smoke")
[ "${CHECK_QUICK:-0}" = 1 ] || plan+=("vm debug" "vm debug-seed" "vm debug-twodram")
has_part2 && plan+=("build part1 kernel" "vm part1-small" "vm part1-twodram" "bench smoke part1")
progress_plan "${plan[@]}"
trap heartbeat_stop EXIT

# --- 0. the checker itself ---------------------------------------------------
# Broken inputs (a missing selftest binary, a renamed case, a filter that
# matches nothing, a VM that dies, ...) must each be reported as FAIL by the
# code below; check-selftest.sh feeds them to it.
step checker
while IFS= read -r line; do
	case $line in
	'ok - '*) result pass "checker: ${line#ok - }" ;;
	'not ok - '*) result fail "checker: ${line#not ok - }" ;;
	*) echo "$line" ;;
	esac
done < <("$ROOT/scripts/check-selftest.sh" 2>&1 || echo "not ok - check-selftest.sh exited non-zero")

# --- 1. the series applies ------------------------------------------------
step series
if [ ! -d "$KSRC/.git" ]; then
	if "$ROOT/scripts/tree.sh" > "$LOGS/tree.log" 2>&1; then
		result pass "series applies with git am" "$(tail -n1 "$LOGS/tree.log")"
	else
		result fail "series applies with git am" "see $LOGS/tree.log"
		tail -n 20 "$LOGS/tree.log"
	fi
else
	# Keep the developer's tree; prove the series on a scratch index of
	# the base commit (git apply --cached, as git am applies, no fuzz).
	idx=$(mktemp -u "${TMPDIR:-/tmp}/pghot-index.XXXXXX")
	ok=1
	GIT_INDEX_FILE=$idx git -C "$KSRC" read-tree "$BASE_TAG" || ok=0
	napplied=0
	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		[ $ok = 1 ] || break
		if GIT_INDEX_FILE=$idx git -C "$KSRC" apply --cached --whitespace=error-all \
			"$ROOT/patches/$p" >> "$LOGS/tree.log" 2>&1; then
			napplied=$((napplied + 1))
		else
			ok=0
			echo "$p does not apply" >> "$LOGS/tree.log"
		fi
	done < "$ROOT/patches/series"
	rm -f "$idx"
	if [ $ok = 1 ]; then
		result pass "series applies to $BASE_TAG" "$napplied patches"
	else
		result fail "series applies to $BASE_TAG" "see $LOGS/tree.log"
		cat "$LOGS/tree.log"
	fi
	if "$ROOT/scripts/export.sh" --check > "$LOGS/export.log" 2>&1; then
		result pass "build/linux matches patches/"
	else
		result fail "build/linux matches patches/" "make export"
		cat "$LOGS/export.log"
	fi
fi
[ -d "$KSRC/.git" ] || { echo "no tree; giving up"; echo "$npass passed, $((nfail + 1)) failed"; exit 1; }

# --- 2. checkpatch ----------------------------------------------------------
step checkpatch
while read -r p; do
	case "$p" in ''|'#'*) continue ;; esac
	out=$(cd "$KSRC" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict --no-color "$ROOT/patches/$p" 2>&1) || true
	total=$(echo "$out" | grep '^total:' | tail -n1 || true)
	if echo "$total" | grep -q '^total: 0 errors, 0 warnings, 0 checks'; then
		result pass "checkpatch $p"
	else
		result fail "checkpatch $p" "${total:-no result}"
		echo "$out" | grep -m 20 -E '^(ERROR|WARNING|CHECK)|^#' || true
	fi
done < "$ROOT/patches/series"

# --- 3. kernels -------------------------------------------------------------
declare -A built
for f in "${flavours[@]}"; do
	step "build $f kernel" "$LOGS/build-$f.log"
	if "$ROOT/scripts/build-kernel.sh" "$f" > "$LOGS/build-$f.log" 2>&1; then
		built[$f]=1
		result pass "build $f kernel" "$(grep -o 'built .* in [0-9]*s' "$LOGS/build-$f.log" | cut -d: -f1)"
	else
		result fail "build $f kernel" "see $LOGS/build-$f.log"
		grep -m 20 -E 'error|Error' "$LOGS/build-$f.log" || tail -n 20 "$LOGS/build-$f.log"
	fi
done

# One result for a check script: pass with its last line, or fail with the
# tail of its log.
run_script() { # name script log-name
	if "$ROOT/scripts/$2" > "$LOGS/$3.log" 2>&1; then
		result pass "$1" "$(tail -n1 "$LOGS/$3.log")"
	else
		result fail "$1" "see $LOGS/$3.log"
		tail -n 30 "$LOGS/$3.log"
	fi
}

# --- 3b. every patch builds on its own ----------------------------------------
if has_pghot; then
	step bisect "$LOGS/bisect.log"
	run_script "bisect: every patch builds on its own" bisect-check.sh bisect
fi

# --- 4. W=1 on the lines the series touches ----------------------------------
step W=1
if [ -n "${built[test]:-}" ]; then
	run_script "W=1: no new warnings" w1-check.sh w1
else
	result fail "W=1: no new warnings" "test kernel did not build"
fi

# --- 4b. allmodconfig build of the files the series touches ---------------------
if has_pghot; then
	step allmodconfig
	run_script "allmodconfig: touched files build" allmod-check.sh allmod
fi

# --- 4c. documentation: htmldocs of admin-guide/mm and kernel-doc ------------
step htmldocs
run_script "htmldocs admin-guide/mm and kernel-doc: no new warnings" htmldocs.sh htmldocs

# --- 4d. the benchmark's redis-zipf hot set, on the host ----------------------
step kvzipf
run_script "kvzipf --map finds redis-server's values and per-key objects" kvzipf-check.sh kvzipf

# --- 5./6. KUnit and kselftests in the VM ----------------------------------------
# Each run is checked against its list in scripts/expected/: kunit-KERNEL.txt
# (the KUnit cases a kernel owes at every boot) and selftest-LABEL.txt (the
# selftest cases the run owes); what did not report fails.
step initramfs
initramfs_ok=
if "$ROOT/scripts/mkinitramfs.sh" > "$LOGS/initramfs.log" 2>&1; then
	initramfs_ok=1
	result pass "initramfs: busybox, selftests and bench programs build" \
		"$(ls "$BUILD/initramfs/selftests/pghot" | wc -l) selftest programs"
else
	result fail "initramfs: busybox, selftests and bench programs build" "see $LOGS/initramfs.log"
	tail -n 20 "$LOGS/initramfs.log"
fi

declare -A kunit_done
run_suite() { # label kernel topology timeout [selftests...]
	local label=$1 kernel=$2 topo=$3 to=$4 why= got
	local list=$EXPECTED/selftest-$1.txt
	shift 4
	step "vm $label" "$LOGS/vm-$label/output.log"
	[ -n "${built[$kernel]:-}" ] || why="no $kernel kernel"
	if [ -n "${VMBUILD:-}" ]; then
		[ -n "$p1_initramfs_ok" ] || why="${why:+$why, }no part 1 initramfs"
	else
		[ -n "$initramfs_ok" ] || why="${why:+$why, }no initramfs"
	fi
	if [ -n "$why" ]; then
		result fail "vm[$label] run" "$why"
		fail_expected "selftest[$label]" "$list" "did not run: $why"
		if [ -z "${kunit_done[$kernel]:-}" ]; then
			kunit_done[$kernel]=1
			fail_expected "kunit[$label]" "$EXPECTED/kunit-$kernel.txt" "did not run: $why"
		fi
		return
	fi
	local kpath=$kernel
	[ "$kernel" = part1 ] && kpath=$P1BUILD/obj-test/arch/x86/boot/bzImage
	VMBUILD=${VMBUILD:-} vm_run "$label" "$kpath" "$topo" "$to" "$LOGS/vm-$label" run-selftests "$@" || true
	# KUnit runs at every boot: its cases are reported at the kernel's
	# first boot, and every later boot must match them.
	if [ -z "${kunit_done[$kernel]:-}" ]; then
		kunit_done[$kernel]=1
		kunit_results "$label" "$LOGS/vm-$label/console.log" "$kernel" first
	else
		kunit_results "$label" "$LOGS/vm-$label/console.log" "$kernel" again
	fi
	got=$(mktemp)
	selftest_results "$label" "$LOGS/vm-$label/output.log" "$got"
	compare_expected "selftest[$label]" "$list" "$got"
	rm -f "$got"
}

# The small topology gets a movable DIMM on the slow node for hotplug_test.
VMOPTS="--dimm-mb 256" run_suite test-small test small 1200
run_suite test-seed test seed 900 tiering_promote \
	kmigrated_test:-r:promote.threshold2.hot_set_promoted \
	promote_defaults_test:-r:defaults.hot_throughout.scattered_hot_set \
	constraints_test:-r:constraints.tiering.cpuset_mems_exclude_top_tier:-r:constraints.pghot.cpuset_mems_exclude_top_tier
# Two top-tier nodes, one of them CPU-less: a task confined to the other
# (cpuset.mems, MPOL_BIND) gets no page into it, whether its own node is
# full or not; mainline's variant beside it.
run_suite test-twodram test twodram 900 \
	constraints_test:-r:constraints.tiering.cpuset_full_node_no_fallback:-r:constraints.pghot.cpuset_full_node_no_fallback:-r:constraints.tiering.bind_full_node_no_fallback:-r:constraints.pghot.bind_full_node_no_fallback:-r:constraints.tiering.other_node_outside_cpuset:-r:constraints.pghot.other_node_outside_cpuset
# A THP goes up whole only into a node with plenty of free memory (over
# 1 GiB), which the 1 GiB fast node of the other runs never has: there the
# test takes its split branch, here its whole branch.
VMOPTS="--fast-mb 2560" run_suite test-bigfast test small 600 \
	kmigrated_test:-r:kmigrated.thp_whole_or_split
if has_pghot; then
	VMOPTS="--dimm-mb 256" run_suite precise precise small 1200
	# The cpuset case needs two nodes besides the task's: seed topology.
	run_suite precise-seed precise seed 600 \
		constraints_test:-r:constraints.pghot.cpuset_mems_exclude_top_tier
	run_suite nopghot nopghot small 900 tiering_promote constraints_test
fi
# A short run of the benchmark harness (make bench), so that it cannot rot:
# it fails on a broken run, missing output or a report that cannot be made.
has_pghot && step "bench smoke" "$LOGS/bench.log"
if has_pghot && [ -z "${built[test]:-}" ]; then
	result fail "bench smoke run" "did not run: no test kernel"
elif has_pghot; then
	if "$ROOT/scripts/bench.sh" --smoke --kernel test --out "$LOGS/bench" \
		> "$LOGS/bench.log" 2>&1; then
		result pass "bench smoke run" "table, CSV and plot in $LOGS/bench"
	else
		result fail "bench smoke run" "see $LOGS/bench.log"
	fi
fi
if [ "${CHECK_QUICK:-0}" != 1 ]; then
	# Emulated KASAN/lockdep kernels are ~30x slower: a representative
	# subset of kmigrated_test (base pages, THP, the disable path), and
	# kmigrated's split of a THP into a full node.
	VMOPTS="--dimm-mb 256" run_suite debug debug small 2400 debugfs_test ibs_test \
		tiering_promote hotplug_test \
		kmigrated_test:-r:promote.threshold1.hot_set_promoted:-r:kmigrated.thp_whole_or_split:-r:kmigrated.disable_stops_promotion \
		constraints_test:-r:constraints.pghot.bind_to_lower_tier:-r:constraints.pghot.mlocked_as_mainline \
		fulltier_test:-r:fulltier.defaults.thp_one_page_hot
	run_suite debug-seed debug seed 900 \
		constraints_test:-r:constraints.pghot.cpuset_mems_exclude_top_tier
	# The placement checks against kmigrated's node, and the fallback of
	# a refused fault to mainline's decision.
	run_suite debug-twodram debug twodram 900 \
		constraints_test:-r:constraints.pghot.bind_full_node_no_fallback:-r:constraints.pghot.other_node_outside_cpuset
fi

# --- 7. part 1 alone -------------------------------------------------------------
# The series without its part 2 must stand as it would be posted: its own
# kernel, KUnit cases and selftests (built from its tree), and the bench.
p1_initramfs_ok=
if has_part2; then
	# The bench programs are the harness's, built against the whole
	# series' selftest header (tiering.h) whichever kernel they run on.
	export BENCH_KSRC=$KSRC
	step "build part1 kernel" "$LOGS/build-part1.log"
	if "$ROOT/scripts/part1-tree.sh" > "$LOGS/build-part1.log" 2>&1 &&
		BUILD=$P1BUILD "$ROOT/scripts/build-kernel.sh" test >> "$LOGS/build-part1.log" 2>&1; then
		built[part1]=1
		result pass "build part1 kernel" "$(head -n1 "$LOGS/build-part1.log")"
	else
		result fail "build part1 kernel" "see $LOGS/build-part1.log"
		grep -m 20 -E 'error|Error' "$LOGS/build-part1.log" || tail -n 20 "$LOGS/build-part1.log"
	fi
	if [ -n "${built[part1]:-}" ] &&
		BUILD=$P1BUILD "$ROOT/scripts/mkinitramfs.sh" > "$LOGS/initramfs-part1.log" 2>&1; then
		p1_initramfs_ok=1
		result pass "initramfs part1: part 1's selftests build" \
			"$(ls "$P1BUILD/initramfs/selftests/pghot" | wc -l) selftest programs"
	else
		result fail "initramfs part1: part 1's selftests build" "see $LOGS/initramfs-part1.log"
	fi
	VMBUILD=$P1BUILD VMOPTS="--dimm-mb 256" run_suite part1-small part1 small 1200
	VMBUILD=$P1BUILD run_suite part1-twodram part1 twodram 900 \
		constraints_test:-r:constraints.pghot.cpuset_full_node_no_fallback:-r:constraints.pghot.bind_full_node_no_fallback:-r:constraints.pghot.other_node_outside_cpuset
	step "bench smoke part1" "$LOGS/bench-part1.log"
	if [ -z "$p1_initramfs_ok" ]; then
		result fail "bench smoke run, part 1" "did not run: no part 1 kernel"
	elif BUILD=$P1BUILD "$ROOT/scripts/bench.sh" --smoke --kernel test \
		--out "$LOGS/bench-part1" > "$LOGS/bench-part1.log" 2>&1; then
		result pass "bench smoke run, part 1" "table, CSV and plot in $LOGS/bench-part1"
	else
		result fail "bench smoke run, part 1" "see $LOGS/bench-part1.log"
	fi
fi

progress_done
echo
if [ ${#failed[@]} -gt 0 ]; then
	echo "failed:"
	printf '  %s\n' "${failed[@]}"
fi
echo "logs: $LOGS"
summary="$npass passed, $nfail failed"
[ "$nskip" -gt 0 ] && summary="$summary, $nskip skipped"
echo "$summary"
[ "$nfail" = 0 ]

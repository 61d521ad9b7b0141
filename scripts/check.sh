#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: every test of the project, ending with one summary line
# "N passed, N failed[, N skipped]" and a non-zero exit status when anything
# failed.
#
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
#
# CHECK_QUICK=1 skips the debug kernel (for a quick local run).

. "$(dirname "$0")/lib.sh"

LOGS=$BUILD/check
rm -rf "$LOGS"
mkdir -p "$LOGS"
npass=0 nfail=0 nskip=0
failed=()

result() { # status name [detail]
	case $1 in
	pass) npass=$((npass + 1)); printf 'PASS  %s%s\n' "$2" "${3:+ ($3)}" ;;
	fail) nfail=$((nfail + 1)); failed+=("$2"); printf 'FAIL  %s%s\n' "$2" "${3:+ ($3)}" ;;
	skip) nskip=$((nskip + 1)); printf 'SKIP  %s%s\n' "$2" "${3:+ ($3)}" ;;
	esac
}

section() { printf '\n=== %s\n' "$*"; }

has_pghot() { [ -f "$KSRC/mm/pghot/core.c" ]; }

# --- 1. the series applies ------------------------------------------------
section "series"
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
section "checkpatch --strict"
while read -r p; do
	case "$p" in ''|'#'*) continue ;; esac
	out=$(cd "$KSRC" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict --no-color "$ROOT/patches/$p" 2>&1) || true
	total=$(echo "$out" | grep '^total:' | tail -n1)
	if echo "$total" | grep -q '^total: 0 errors, 0 warnings, 0 checks'; then
		result pass "checkpatch $p"
	else
		result fail "checkpatch $p" "${total:-no result}"
		echo "$out" | grep -E '^(ERROR|WARNING|CHECK)|^#' | head -n 20
	fi
done < "$ROOT/patches/series"

# --- 3. kernels -------------------------------------------------------------
section "kernel builds"
flavours=(test)
if has_pghot; then
	flavours+=(precise nopghot)
fi
[ "${CHECK_QUICK:-0}" = 1 ] || flavours+=(debug)
declare -A built
for f in "${flavours[@]}"; do
	if "$ROOT/scripts/build-kernel.sh" "$f" > "$LOGS/build-$f.log" 2>&1; then
		built[$f]=1
		result pass "build $f kernel" "$(grep -o 'built .* in [0-9]*s' "$LOGS/build-$f.log" | cut -d: -f1)"
	else
		result fail "build $f kernel" "see $LOGS/build-$f.log"
		grep -E 'error|Error' "$LOGS/build-$f.log" | head -n 20
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
	section "bisect"
	run_script "bisect: every patch builds on its own" bisect-check.sh bisect
fi

# --- 4. W=1 on the lines the series touches ----------------------------------
section "W=1"
if [ -n "${built[test]:-}" ]; then
	run_script "W=1: no new warnings" w1-check.sh w1
else
	result fail "W=1: no new warnings" "test kernel did not build"
fi

# --- 4b. allmodconfig build of the files the series touches ---------------------
if has_pghot; then
	section "allmodconfig"
	run_script "allmodconfig: touched files build" allmod-check.sh allmod
fi

# --- 4c. documentation: htmldocs of admin-guide/mm and kernel-doc ------------
section "htmldocs"
run_script "htmldocs admin-guide/mm and kernel-doc: no new warnings" htmldocs.sh htmldocs

# --- 4d. the benchmark's redis-zipf hot set, on the host ----------------------
section "kvzipf"
run_script "kvzipf --map finds redis-server's values and per-key objects" kvzipf-check.sh kvzipf

# --- parsing helpers ----------------------------------------------------------
# KUnit: test-case lines (depth 1) of the KTAP output in a console log.
kunit_results() { # label console.log kernel
	local label=$1 log=$2 kernel=$3 n=0
	while IFS= read -r line; do
		n=$((n + 1))
		local name status
		name=$(echo "$line" | sed -E 's/^ *(not )?ok [0-9]+ (- )?//; s/ *#.*$//')
		if echo "$line" | grep -q '# SKIP'; then
			status=skip
		elif echo "$line" | grep -q '^ *not ok'; then
			status=fail
		else
			status=pass
		fi
		result $status "kunit[$label] $name"
	done < <(sed -E 's/^\[ *[0-9.]+\] //' "$log" | grep -E '^    (not )?ok [0-9]+ ')
	if [ "$n" = 0 ]; then
		# Only a kernel built with the pghot KUnit tests owes results.
		if grep -q '^CONFIG_PGHOT_KUNIT_TEST=y' "$BUILD/obj-$kernel/.config"; then
			result fail "kunit[$label]" "no KUnit results in $log"
		else
			echo "(kunit[$label]: kernel built without KUnit suites)"
		fi
	fi
}

# kselftests: TAP lines of each program, and the program's exit status.
selftest_results() { # label output.log
	local label=$1 log=$2 prog= seen=0
	while IFS= read -r line; do
		case $line in
		PGHOT-TEST-BEGIN\ *) prog=${line#PGHOT-TEST-BEGIN }; seen=0 ;;
		PGHOT-TEST-END\ *)
			set -- $line
			if [ "$seen" = 0 ]; then
				case $3 in
				0) result pass "selftest[$label] $prog" ;;
				4) result skip "selftest[$label] $prog" "skipped" ;;
				*) result fail "selftest[$label] $prog" "exit $3, no TAP results" ;;
				esac
			elif [ "$3" != 0 ] && [ "$3" != 4 ] && [ "$seen" = ok ]; then
				result fail "selftest[$label] $prog" "exit $3 after passing cases"
			fi
			prog= ;;
		ok\ *|not\ ok\ *)
			[ -n "$prog" ] || continue
			local name
			name=$(echo "$line" | sed -E 's/^(not )?ok [0-9]+ (- )?//; s/ *#.*$//')
			if echo "$line" | grep -q '# SKIP'; then
				result skip "selftest[$label] $prog: $name" "$(echo "$line" | sed 's/.*# SKIP *//')"
				[ "$seen" = 0 ] && seen=ok
			elif [ "${line#not }" != "$line" ]; then
				result fail "selftest[$label] $prog: $name"
				seen=fail
			else
				result pass "selftest[$label] $prog: $name"
				[ "$seen" = 0 ] && seen=ok
			fi ;;
		esac
	done < <(tr -d '\r' < "$log")
}

vm_run() { # label kernel topology timeout log-dir command...
	local label=$1 kernel=$2 topo=$3 to=$4 dir=$5
	shift 5
	# shellcheck disable=SC2086 # VMOPTS holds several options
	"$ROOT/scripts/vm.sh" --kernel "$kernel" --topology "$topo" --timeout "$to" \
		${VMOPTS:-} --log "$dir" -- "$@" > "$dir.out" 2> "$dir.err"
	local rc=$?
	if grep -q '^VM: \(kernel splat\|timed out\|guest ended\|wrong memory tier\)' "$dir.err"; then
		result fail "vm[$label] clean run" "$(grep '^VM:' "$dir.err" | head -n1)"
		sed -n '1,40p' "$dir.err"
		return 1
	fi
	result pass "vm[$label] clean run" "no splat, no hang"
	return $rc
}

# --- 5./6. KUnit and kselftests in the VM ----------------------------------------
section "KUnit and kselftests in the tiered VM"
"$ROOT/scripts/mkinitramfs.sh" > "$LOGS/initramfs.log" 2>&1 ||
	{ result fail "initramfs" "see $LOGS/initramfs.log"; }

declare -A kunit_done
run_suite() { # label kernel topology timeout [selftests...]
	local label=$1 kernel=$2 topo=$3 to=$4
	shift 4
	[ -n "${built[$kernel]:-}" ] || { result fail "vm[$label]" "$kernel kernel not built"; return; }
	vm_run "$label" "$kernel" "$topo" "$to" "$LOGS/vm-$label" run-selftests "$@" || true
	# KUnit runs at every boot; count it once per kernel, not per topology.
	if [ -z "${kunit_done[$kernel]:-}" ]; then
		kunit_done[$kernel]=1
		kunit_results "$label" "$LOGS/vm-$label/console.log" "$kernel"
	fi
	selftest_results "$label" "$LOGS/vm-$label/output.log"
}

# The small topology gets a movable DIMM on the slow node for hotplug_test.
VMOPTS="--dimm-mb 256" run_suite test-small test small 1200
run_suite test-seed test seed 900 tiering_promote \
	kmigrated_test:-r:promote.threshold2.hot_set_promoted \
	promote_defaults_test:-r:defaults.hot_throughout.scattered_hot_set \
	constraints_test:-r:constraints.tiering.cpuset_mems_exclude_top_tier:-r:constraints.pghot.cpuset_mems_exclude_top_tier
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
if has_pghot && [ -n "${built[test]:-}" ]; then
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
		constraints_test:-r:constraints.pghot.bind_to_lower_tier:-r:constraints.pghot.mlocked_stay \
		fulltier_test:-r:fulltier.defaults.thp_one_page_hot
	run_suite debug-seed debug seed 900 \
		constraints_test:-r:constraints.pghot.cpuset_mems_exclude_top_tier
fi

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

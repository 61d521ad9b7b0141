#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# expected-update.sh [--force] [LOGS]: write scripts/expected/ from what
# the VM runs of the last make check reported (LOGS defaults to
# build/check).  Refuses a run in which a test failed, unless --force.
#
# The lists are what make check holds every run to: a test that is listed
# and does not report fails, and one that reports without being listed
# fails.  After adding, renaming or removing a test on purpose, run make
# check (it fails on the names that changed), then this script, and review
# `git diff scripts/expected/` before committing it: every line it removes
# is a test that will no longer be required to run.

. "$(dirname "$0")/lib.sh"
. "$ROOT/scripts/check-lib.sh"

force=0
[ "${1:-}" = --force ] && { force=1; shift; }
logs=${1:-$BUILD/check}
ls "$logs"/vm-*/output.log >/dev/null 2>&1 || die "no VM logs in $logs (make check first)"

# The kernel a run label boots (as scripts/check.sh calls run_suite).
kernel_of() {
	case $1 in
	test-*) echo test ;;
	*) echo "${1%%-*}" ;;
	esac
}

# Labels in the order check.sh runs them, then any other.
labels=()
for l in test-small test-seed test-bigfast precise precise-seed nopghot debug debug-seed; do
	[ -d "$logs/vm-$l" ] && labels+=("$l")
done
for d in "$logs"/vm-*/; do
	l=${d%/}; l=${l##*/vm-}
	case " ${labels[*]} " in *" $l "*) ;; *) labels+=("$l") ;; esac
done

# A run with failures would write its failures into the lists: refuse.
bad=$(for l in "${labels[@]}"; do
	selftest_results "$l" "$logs/vm-$l/output.log" /dev/null
	kunit_results "$l" "$logs/vm-$l/console.log" "$(kernel_of "$l")" first 2>/dev/null | grep -v 'not in\|did not run\|(no list' || true
done | grep -c '^FAIL' || true)
if [ "$bad" != 0 ] && [ $force = 0 ]; then
	die "$bad tests failed in $logs: fix them first (--force writes the lists anyway)"
fi

declare -A kunit_written
for label in "${labels[@]}"; do
	dir=$logs/vm-$label
	kernel=$(kernel_of "$label")
	got=$(mktemp)
	selftest_results "$label" "$dir/output.log" "$got" > /dev/null
	{
		echo "# selftest cases the '$label' VM run of make check must report"
		echo "# (scripts/expected-update.sh wrote it from a run; review changes)"
		LC_ALL=C sort -u "$got"
	} > "$EXPECTED/selftest-$label.txt"
	rm -f "$got"
	echo "selftest-$label.txt: $(expected_names "$EXPECTED/selftest-$label.txt" | wc -l) cases"
	# KUnit: from the first boot of each kernel that printed any.
	[ -z "${kunit_written[$kernel]:-}" ] || continue
	cases=$(kunit_parse "$dir/console.log" | awk -F'\t' '$1 == "case" { print $3 }' | LC_ALL=C sort -u)
	[ -n "$cases" ] || [ ! -f "$EXPECTED/kunit-$kernel.txt" ] || continue
	kunit_written[$kernel]=1
	{
		echo "# KUnit cases (suite.case) the $kernel kernel must report at every boot"
		echo "# (scripts/expected-update.sh wrote it from a run; review changes)"
		[ -z "$cases" ] || echo "$cases"
	} > "$EXPECTED/kunit-$kernel.txt"
	echo "kunit-$kernel.txt: $(expected_names "$EXPECTED/kunit-$kernel.txt" | wc -l) cases"
done

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# expected-update.sh [LOGS]: write scripts/expected/ from what the VM runs
# of the last make check reported (LOGS defaults to build/check).
#
# The lists are what make check holds every run to: a test that is listed
# and does not report fails, and one that reports without being listed
# fails.  After adding, renaming or removing a test on purpose, run make
# check (it fails on the names that changed), then this script, and review
# `git diff scripts/expected/` before committing it: every line it removes
# is a test that will no longer be required to run.

. "$(dirname "$0")/lib.sh"
. "$ROOT/scripts/check-lib.sh"

logs=${1:-$BUILD/check}
ls "$logs"/vm-*/output.log >/dev/null 2>&1 || die "no VM logs in $logs (make check first)"

# The kernel a run label boots (as scripts/check.sh calls run_suite).
kernel_of() {
	case $1 in
	test-*) echo test ;;
	*) echo "${1%%-*}" ;;
	esac
}

declare -A kunit_written
for dir in "$logs"/vm-*/; do
	dir=${dir%/}
	label=${dir##*/vm-}
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
	# KUnit: from the kernel's first boot in check.sh's order (the first
	# label of each kernel in the logs that has KUnit output).
	if [ -z "${kunit_written[$kernel]:-}" ]; then
		cases=$(kunit_parse "$dir/console.log" | awk -F'\t' '$1 == "case" { print $3 }' | LC_ALL=C sort -u)
		[ -n "$cases" ] || [ ! -f "$EXPECTED/kunit-$kernel.txt" ] || continue
		kunit_written[$kernel]=1
		{
			echo "# KUnit cases (suite.case) the $kernel kernel must report at every boot"
			echo "# (scripts/expected-update.sh wrote it from a run; review changes)"
			[ -z "$cases" ] || echo "$cases"
		} > "$EXPECTED/kunit-$kernel.txt"
		echo "kunit-$kernel.txt: $(expected_names "$EXPECTED/kunit-$kernel.txt" | wc -l) cases"
	fi
done

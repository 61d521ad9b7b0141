#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-selftest.sh: the checker of make check, checked.
#
# Feeds the code that make check counts with (scripts/check-lib.sh, the
# real scripts/vm.sh with a stand-in for QEMU, the real mkinitramfs.sh)
# one clean input and then one broken input at a time, and asserts that the
# clean one gives no FAIL and that each broken one gives the FAIL it must.
# A checker that lets a broken input pass fails here.  Needs no kernel and
# no VM; takes a few seconds.
#
# Prints one line per case, "ok - CASE" or "not ok - CASE" followed by what
# the checker printed, and a last line "N of M broken inputs reported".

. "$(dirname "$0")/lib.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/pghot-checker.XXXXXX")
trap 'rm -rf "$work"' EXIT
export EXPECTED=$work/expected
mkdir -p "$EXPECTED"

# --- inputs -----------------------------------------------------------------
# The expected lists of a small imaginary run: two selftest programs and one
# KUnit suite.
printf '%s\n' 'alpha_test: a.one' 'alpha_test: a.two' 'beta_test: b.one' \
	'# a comment' '' > "$EXPECTED/selftest-fake.txt"
printf '%s\n' 'suite_x.case_one' 'suite_x.case_two' 'suite_y.case_three' \
	> "$EXPECTED/kunit-fake.txt"

alpha_ok='PGHOT-TEST-BEGIN alpha_test
TAP version 13
1..2
ok 1 a.one
ok 2 a.two
# Totals: pass:2 fail:0 xfail:0 xpass:0 skip:0 error:0
PGHOT-TEST-END alpha_test 0'
beta_ok='PGHOT-TEST-BEGIN beta_test
TAP version 13
1..1
ok 1 b.one # SKIP no IBS here
PGHOT-TEST-END beta_test 0'

kunit_ok='[    1.000000] KTAP version 1
[    1.000001] 1..2
[    1.000002]     KTAP version 1
[    1.000003]     # Subtest: suite_x
[    1.000004]     # module: pghot
[    1.000005]     1..2
[    1.000006]     ok 1 case_one
[    1.000007]         ok 1 param-a
[    1.000008]         ok 2 param-b
[    1.000009]     # case_two: a diagnostic line
[    1.000010]     ok 2 case_two
[    1.000011] # suite_x: pass:2 fail:0 skip:0 total:2
[    1.000012] ok 1 suite_x
[    1.000013]     KTAP version 1
[    1.000014]     # Subtest: suite_y
[    1.000015]     1..1
[    1.000016]     ok 1 case_three
[    1.000017] ok 2 suite_y'

# --- running the checker on an input ------------------------------------------
# Each case runs in a subshell of its own with fresh counters; its output is
# kept for the assertions.
selftests_of() { # output-text
	printf '%s\n' "$1" > "$work/output.log"
	(
		. "$ROOT/scripts/check-lib.sh"
		got=$work/got
		: > "$got"
		selftest_results fake "$work/output.log" "$got"
		compare_expected "selftest[fake]" "$EXPECTED/selftest-fake.txt" "$got"
		echo "COUNT $npass $nfail $nskip"
	)
}

kunit_of() { # console-text first|again
	printf '%s\n' "$1" > "$work/console.log"
	(
		. "$ROOT/scripts/check-lib.sh"
		kunit_results fake "$work/console.log" fake "$2"
		echo "COUNT $npass $nfail $nskip"
	)
}

ncase=0 nok=0
verdict() { # name ok(0|1) checker-output
	ncase=$((ncase + 1))
	if [ "$2" = 1 ]; then
		nok=$((nok + 1))
		echo "ok - $1"
	else
		echo "not ok - $1"
		echo "$3" | sed 's/^/    | /'
	fi
}

# The case passes when the checker printed a FAIL line matching the pattern.
expect_fail() { # name pattern checker-output
	local ok=0
	echo "$3" | grep -qE "^FAIL  $2" && ok=1
	verdict "$1" "$ok" "$3"
}

# --- the clean input: nothing fails ----------------------------------------------
out=$(selftests_of "$alpha_ok
$beta_ok")
ok=0
echo "$out" | grep -q '^COUNT 2 0 1$' && ok=1
verdict "a clean selftest run gives 2 PASS, 1 SKIP and no FAIL" $ok "$out"

out=$(kunit_of "$kunit_ok" first)
ok=0
echo "$out" | grep -q '^COUNT 3 0 0$' && ok=1
verdict "a clean KUnit log gives 3 PASS and no FAIL" $ok "$out"

out=$(kunit_of "$kunit_ok" again)
ok=0
echo "$out" | grep -q '^COUNT 1 0 0$' && ok=1
verdict "a later clean boot of the same kernel gives one PASS" $ok "$out"

# --- broken selftest runs -----------------------------------------------------------
# vm/run-selftests on a program that failed to build: the shell cannot find it.
out=$(selftests_of "$alpha_ok
PGHOT-TEST-BEGIN beta_test
sh: ./beta_test: not found
PGHOT-TEST-END beta_test 127")
expect_fail "a selftest binary that is missing (run by name)" \
	'selftest\[fake\] beta_test: b\.one \(did not run\)' "$out"

# The same program absent from the image, so run-selftests never saw it.
out=$(selftests_of "$alpha_ok")
expect_fail "a selftest binary that is missing (not in the image)" \
	'selftest\[fake\] beta_test: b\.one \(did not run\)' "$out"

# A selftest case renamed in the source but not in the list.
out=$(selftests_of "${alpha_ok/a.two/a.second}
$beta_ok")
expect_fail "a selftest case renamed: the old name did not run" \
	'selftest\[fake\] alpha_test: a\.two \(did not run\)' "$out"
expect_fail "a selftest case renamed: the new name is not expected" \
	'selftest\[fake\] alpha_test: a\.second \(reported, but not in' "$out"

# kselftest_harness with a -r filter that matches no test: plans 0, exits 0.
out=$(selftests_of "$alpha_ok
PGHOT-TEST-BEGIN beta_test:-r:b.onee
TAP version 13
1..0
# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:0 error:0
PGHOT-TEST-END beta_test:-r:b.onee 0")
expect_fail "a -r filter that matches nothing" \
	'selftest\[fake\] beta_test \(exit 0 but no test ran' "$out"

# A program that dies after its first case (the VM went down under it).
out=$(selftests_of "PGHOT-TEST-BEGIN alpha_test
TAP version 13
1..2
ok 1 a.one")
expect_fail "a program that never finished" 'selftest\[fake\] alpha_test \(did not finish\)' "$out"
expect_fail "the cases after it did not run" 'selftest\[fake\] alpha_test: a\.two \(did not run\)' "$out"

# A program that exits 0 before all the cases it planned reported.
out=$(selftests_of "${alpha_ok/ok 2 a.two/}
$beta_ok")
expect_fail "a program that reports fewer cases than it planned" \
	'selftest\[fake\] alpha_test \(planned 2 cases, 1 reported\)' "$out"

# A program that crashes after passing cases.
out=$(selftests_of "${alpha_ok/alpha_test 0/alpha_test 139}
$beta_ok")
expect_fail "a program that crashes after passing cases" \
	'selftest\[fake\] alpha_test \(exit 139 after passing cases\)' "$out"

# A failing case.
out=$(selftests_of "${alpha_ok/ok 1 a.one/not ok 1 a.one}
$beta_ok")
expect_fail "a failing selftest case" 'selftest\[fake\] alpha_test: a\.one$' "$out"

# A status line cut short (the serial port lost its end).
out=$(selftests_of "${alpha_ok/alpha_test 0/alpha_test}
$beta_ok")
expect_fail "an end line without an exit status" 'selftest\[fake\] alpha_test \(did not finish' "$out"

# The next program starts while the previous one never ended.
out=$(selftests_of "${alpha_ok/PGHOT-TEST-END alpha_test 0/}
$beta_ok")
expect_fail "a program whose end line is missing" 'selftest\[fake\] alpha_test \(did not finish\)' "$out"

# A program that skips as a whole (no lower tier, say) is one SKIP, and its
# listed cases did not run.
out=$(selftests_of "$alpha_ok
PGHOT-TEST-BEGIN beta_test
1..0 # SKIP no lower memory tier
PGHOT-TEST-END beta_test 4")
expect_fail "a program skipped as a whole: its cases did not run" \
	'selftest\[fake\] beta_test: b\.one \(did not run\)' "$out"

# No list at all for a run.
out=$(rm -f "$EXPECTED/selftest-gone.txt"; (
	. "$ROOT/scripts/check-lib.sh"
	: > "$work/got"
	compare_expected "selftest[gone]" "$EXPECTED/selftest-gone.txt" "$work/got"
))
expect_fail "a run without an expected list" 'selftest\[gone\] \(no list' "$out"

# --- broken KUnit logs ------------------------------------------------------------------
out=$(kunit_of "${kunit_ok/ok 2 case_two/ok 2 case_2}" first)
expect_fail "a KUnit case renamed: the old name did not run" \
	'kunit\[fake\] suite_x\.case_two \(did not run\)' "$out"
expect_fail "a KUnit case renamed: the new name is not expected" \
	'kunit\[fake\] suite_x\.case_2 \(reported, but not in' "$out"

# A whole suite missing: the top-level plan says 2, one suite reported.
out=$(kunit_of "$(echo "$kunit_ok" | sed '/suite_y\|case_three\|1\.\.1$/d')" first)
expect_fail "a KUnit suite missing: the top-level plan" 'kunit\[fake\] suites \(planned 2, 1 reported\)' "$out"
expect_fail "a KUnit suite missing: its cases did not run" \
	'kunit\[fake\] suite_y\.case_three \(did not run\)' "$out"

# A suite that stops half way (its plan says 2 cases, one reported).
out=$(kunit_of "$(echo "$kunit_ok" | sed '/ok 2 case_two/d')" first)
expect_fail "a KUnit suite short of its plan" 'kunit\[fake\] suite suite_x \(planned 2 cases, 1 reported\)' "$out"

# A failing case at a later boot of the same kernel.
out=$(kunit_of "${kunit_ok/    ok 1 case_three/    not ok 1 case_three}" again)
expect_fail "a KUnit failure at a later boot" 'kunit\[fake\] as at the first boot of fake' "$out"

# No KUnit output at all from a kernel that owes some.
out=$(kunit_of "[    1.0] no KTAP here" first)
expect_fail "a kernel that printed no KUnit results" 'kunit\[fake\] suite_x\.case_one \(did not run\)' "$out"

# No console log at all (vm.sh failed before the VM started).
out=$(rm -f "$work/console.log"; (
	. "$ROOT/scripts/check-lib.sh"
	kunit_results fake "$work/no-such-console.log" fake first
	echo "COUNT $npass $nfail $nskip"
))
expect_fail "a boot that left no console log" 'kunit\[fake\] suite_x\.case_one \(did not run\)' "$out"

# A suite that reports not ok although its cases pass (its exit failed).
out=$(kunit_of "${kunit_ok/ok 2 suite_y/not ok 2 suite_y}" first)
expect_fail "a KUnit suite that failed as a whole" 'kunit\[fake\] suite suite_y \(the suite reported not ok\)' "$out"

# A later boot short of a suite's plan.
out=$(kunit_of "$(echo "$kunit_ok" | sed '/ok 2 case_two/d')" again)
expect_fail "a later boot short of a suite's plan" 'kunit\[fake\] as at the first boot of fake' "$out"

# --- the VM ------------------------------------------------------------------------------------
# The real vm.sh, with a stand-in for qemu-system-x86_64 that does what
# FAKE_QEMU says with the serial files vm.sh gives it.
mkdir -p "$work/bin" "$work/build"
cat > "$work/bin/qemu-system-x86_64" <<'EOF'
#!/bin/bash
files=()
while [ $# -gt 0 ]; do
	case $1 in -serial) case $2 in file:*) files+=("${2#file:}") ;; esac; shift ;; esac
	shift
done
console=${files[0]} output=${files[1]}
case $FAKE_QEMU in
exit*)	echo "PGHOT-EXIT: ${FAKE_QEMU#exit}" >> "$output" ;;
splat)	echo "[    2.0] BUG: kernel NULL pointer dereference, address: 0" >> "$console"
	echo "PGHOT-EXIT: 0" >> "$output" ;;
die)	;;
esac
exit 0
EOF
chmod 755 "$work/bin/qemu-system-x86_64"
echo 'not a kernel' > "$work/build/bzImage"
: > "$work/build/initramfs.cpio"

vm_of() { # FAKE_QEMU kernel
	(
		export PATH=$work/bin:$PATH BUILD=$work/build FAKE_QEMU=$1
		. "$ROOT/scripts/check-lib.sh"
		rm -rf "$work/vm"
		vm_run fake "$2" small 60 "$work/vm" true || true
		echo "COUNT $npass $nfail $nskip"
	) 2>&1
}

out=$(vm_of exit0 "$work/build/bzImage")
ok=0
echo "$out" | grep -q '^COUNT 1 0 0$' && ok=1
verdict "a VM whose guest exits 0 gives one PASS" $ok "$out"

out=$(vm_of die "$work/build/bzImage")
expect_fail "a VM that dies without a status" 'vm\[fake\] run \(VM: guest ended without reporting a status' "$out"

out=$(vm_of splat "$work/build/bzImage")
expect_fail "a VM whose kernel splats" 'vm\[fake\] run \(VM: kernel splat' "$out"

out=$(vm_of exit1 "$work/build/bzImage")
expect_fail "a guest command that exits 1" 'vm\[fake\] run \(guest command exited 1\)' "$out"

out=$(vm_of exit0 "$work/build/no-such-bzImage")
expect_fail "vm.sh failing before the guest ran (no kernel)" 'vm\[fake\] run \(error: no kernel' "$out"

# --- a failed initramfs build ----------------------------------------------------------------
# The real mkinitramfs.sh on a tree whose selftests do not build: it must
# fail and leave no image behind (the VM runs would boot the old one).
mkdir -p "$work/ibuild/linux/tools/testing/selftests/mm/pghot"
printf 'all:\n\t@echo "error: does not build" >&2; false\n' \
	> "$work/ibuild/linux/tools/testing/selftests/mm/pghot/Makefile"
echo 'the previous image' > "$work/ibuild/initramfs.cpio"
rc=0
BUILD=$work/ibuild "$ROOT/scripts/mkinitramfs.sh" > "$work/initramfs.log" 2>&1 || rc=$?
ok=0
[ "$rc" != 0 ] && [ ! -e "$work/ibuild/initramfs.cpio" ] &&
	grep -q 'error: does not build' "$work/initramfs.log" && ok=1
verdict "a selftest build failure fails mkinitramfs and leaves no old image" $ok \
	"exit $rc; $(ls "$work/ibuild"); $(tail -n 3 "$work/initramfs.log")"

echo "$nok of $ncase checks of the checker hold"
[ "$nok" = "$ncase" ]

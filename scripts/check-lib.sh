# SPDX-License-Identifier: GPL-2.0
# The counting half of make check: results, the parsers of KUnit and
# kselftest output, the comparison with the expected lists, and the VM run.
# Sourced by check.sh and by check-selftest.sh (which feeds it broken input
# and asserts that every breakage is reported as FAIL).  Not executed.
#
# The rule it enforces: a test that was expected and did not report is a
# FAIL ("did not run"), whatever the reason (a binary that did not build, a
# case renamed, a filter that matches nothing, a VM that died, a kernel that
# did not build); a test that reported and is not expected is a FAIL too, so
# that the lists in scripts/expected/ cannot drift from what runs.

EXPECTED=${EXPECTED:-$ROOT/scripts/expected}

npass=0 nfail=0 nskip=0
failed=()

result() { # status name [detail]
	case $1 in
	pass) npass=$((npass + 1)); printf 'PASS  %s%s\n' "$2" "${3:+ ($3)}" ;;
	fail) nfail=$((nfail + 1)); failed+=("$2"); printf 'FAIL  %s%s\n' "$2" "${3:+ ($3)}" ;;
	skip) nskip=$((nskip + 1)); printf 'SKIP  %s%s\n' "$2" "${3:+ ($3)}" ;;
	*) nfail=$((nfail + 1)); failed+=("$2"); printf 'FAIL  %s (bad status %s)\n' "$2" "$1" ;;
	esac
}

section() { printf '\n=== %s\n' "$*"; }

# The names a list file expects, one per line; '#' starts a comment.
expected_names() { # file
	[ -f "$1" ] || return 0
	sed -e 's/[[:space:]]*#.*$//' -e '/^[[:space:]]*$/d' "$1"
}

# Report every name of the expected list that is not among the reported
# names as FAIL "did not run", and every reported name the list lacks as
# FAIL "not expected".
compare_expected() { # prefix expected-file reported-names-file [why]
	local prefix=$1 list=$2 got=$3 why=${4:-did not run} name
	if [ ! -f "$list" ]; then
		result fail "$prefix" "no list ${list#"$ROOT"/} (scripts/expected-update.sh writes one)"
		return 0
	fi
	while IFS= read -r name; do
		result fail "$prefix $name" "$why"
	done < <(comm -23 <(expected_names "$list" | LC_ALL=C sort -u) \
			  <(LC_ALL=C sort -u "$got"))
	while IFS= read -r name; do
		result fail "$prefix $name" "reported, but not in ${list#"$ROOT"/}"
	done < <(comm -13 <(expected_names "$list" | LC_ALL=C sort -u) \
			  <(LC_ALL=C sort -u "$got"))
}

# Every expected name of a run that could not happen, as FAIL.
fail_expected() { # prefix expected-file why
	local name
	while IFS= read -r name; do
		result fail "$1 $name" "$3"
	done < <(expected_names "$2")
}

# --- KUnit ------------------------------------------------------------------
# Parse the KTAP of a console log into records, tab separated:
#   case  STATUS  SUITE.CASE        a test case (depth 1) and its result
#   plan  SUITE   PLANNED  GOT      a suite whose 1..N plan its cases missed
#   top   PLANNED GOT               the suite count against the top 1..N plan
#   suitefail SUITE                 a suite that reported "not ok" itself
# Parameterised cases (depth 2) are part of their case's result.
kunit_parse() { # console.log
	# A VM that never started leaves no log: nothing reported.
	[ -r "$1" ] || return 0
	sed -E 's/^\[ *[0-9.]+\] //' "$1" | tr -d '\r' | awk '
	function finish_suite() {
		if (suite != "" && plan >= 0 && plan != ncase)
			printf "plan\t%s\t%d\t%d\n", suite, plan, ncase
		suite = ""; plan = -1; ncase = 0
	}
	BEGIN { suite = ""; plan = -1; ncase = 0; top = -1; nsuite = 0 }
	/^1\.\.[0-9]+$/ { top = substr($0, 4) + 0; next }
	/^    # Subtest: / { finish_suite(); suite = substr($0, 16); next }
	/^    1\.\.[0-9]+$/ { if (suite != "" && plan < 0) plan = substr($0, 8) + 0; next }
	/^    (not )?ok [0-9]+ / {
		line = $0
		status = (line ~ /^    not ok/) ? "fail" : "pass"
		if (line ~ /# SKIP/) status = "skip"
		sub(/^    (not )?ok [0-9]+ (- )?/, "", line)
		sub(/ *#.*$/, "", line)
		printf "case\t%s\t%s.%s\n", status, (suite == "" ? "?" : suite), line
		ncase++
		next
	}
	/^(not )?ok [0-9]+ / {
		line = $0
		sub(/^(not )?ok [0-9]+ (- )?/, "", line)
		sub(/ *#.*$/, "", line)
		if ($0 ~ /^not ok/ && $0 !~ /# SKIP/)
			printf "suitefail\t%s\n", line
		finish_suite(); nsuite++; next
	}
	END {
		finish_suite()
		if (top >= 0 && top != nsuite) printf "top\t%d\t%d\n", top, nsuite
		if (top < 0 && nsuite > 0) printf "top\t-1\t%d\n", nsuite
	}'
}

# KUnit results of one boot against scripts/expected/kunit-KERNEL.txt.  The
# first boot of a kernel reports every case; later boots of the same kernel
# (KUnit runs at every boot) report one line that says whether they matched.
kunit_results() { # label console.log kernel first|again
	local label=$1 log=$2 kernel=$3 mode=$4 list=$EXPECTED/kunit-$3.txt
	local recs got bad=0 kind a b c
	recs=$(mktemp) got=$(mktemp)
	kunit_parse "$log" > "$recs"
	# A problem of the log: a FAIL at the first boot, counted at a later one.
	problem() { # name detail
		if [ "$mode" = first ]; then
			result fail "kunit[$label] $1" "$2"
		else
			bad=$((bad + 1))
			echo "  kunit[$label] $1: $2"
		fi
	}
	while IFS=$'\t' read -r kind a b c; do
		case $kind in
		case)	echo "$b" >> "$got"
			if [ "$mode" = first ]; then
				result "$a" "kunit[$label] $b"
			elif [ "$a" = fail ]; then
				problem "$b" "failed"
			fi ;;
		plan)	problem "suite $a" "planned $b cases, $c reported" ;;
		suitefail) problem "suite $a" "the suite reported not ok" ;;
		top)	problem "suites" "planned $a, $b reported" ;;
		esac
	done < "$recs"
	if [ "$mode" = first ]; then
		compare_expected "kunit[$label]" "$list" "$got"
		if [ -f "$list" ] && [ ! -s "$got" ] && [ -z "$(expected_names "$list")" ]; then
			result pass "kunit[$label]" "$kernel owes no KUnit case and reported none"
		fi
	else
		local missing extra
		missing=$(comm -23 <(expected_names "$list" | LC_ALL=C sort -u) <(LC_ALL=C sort -u "$got") | wc -l)
		extra=$(comm -13 <(expected_names "$list" | LC_ALL=C sort -u) <(LC_ALL=C sort -u "$got") | wc -l)
		if [ "$bad" = 0 ] && [ "$missing" = 0 ] && [ "$extra" = 0 ]; then
			result pass "kunit[$label] as at the first boot of $kernel" "$(wc -l < "$got") cases"
		else
			result fail "kunit[$label] as at the first boot of $kernel" \
				"$bad failed or unplanned, $missing did not run, $extra not expected"
		fi
	fi
	rm -f "$recs" "$got"
}

# --- kselftests ---------------------------------------------------------------
# The TAP of each program between the PGHOT-TEST-BEGIN/END lines that
# vm/run-selftests prints, and the program's exit status.  The names that
# reported go to the file given; the caller compares them with the list.
# A program that reports no case is one result under its own name: a skip
# when it exits 4 (no lower tier, say), a FAIL otherwise, exit 0 included
# (a -r filter that matches nothing plans 0 tests and exits 0).
selftest_results() { # label output.log reported-names-file
	local label=$1 log=$2 got=$3 prog= seen=0 plan= ncase=0 line name rc
	while IFS= read -r line; do
		case $line in
		PGHOT-TEST-BEGIN\ *)
			if [ -n "$prog" ]; then
				result fail "selftest[$label] $prog" "did not finish"
				echo "$prog" >> "$got"
			fi
			prog=${line#PGHOT-TEST-BEGIN }; prog=${prog%%:*}
			seen=0 plan= ncase=0 ;;
		PGHOT-TEST-END\ *)
			[ -n "$prog" ] || continue
			rc=${line##* }
			case $rc in
			''|*[!0-9]*)
				result fail "selftest[$label] $prog" "did not finish (no exit status)"
				echo "$prog" >> "$got"
				prog=
				continue ;;
			esac
			if [ "$seen" = 0 ]; then
				echo "$prog" >> "$got"
				case $rc in
				4) result skip "selftest[$label] $prog" "skipped as a whole" ;;
				0) result fail "selftest[$label] $prog" "exit 0 but no test ran (a filter that matches nothing?)" ;;
				*) result fail "selftest[$label] $prog" "exit $rc, no TAP results" ;;
				esac
			else
				if [ "$rc" != 0 ] && [ "$rc" != 4 ] && [ "$seen" = ok ]; then
					result fail "selftest[$label] $prog" "exit $rc after passing cases"
					echo "$prog" >> "$got"
				fi
				if [ -n "$plan" ] && [ "$plan" != "$ncase" ]; then
					result fail "selftest[$label] $prog" "planned $plan cases, $ncase reported"
					echo "$prog" >> "$got"
				fi
			fi
			prog= ;;
		1..[0-9]*)
			[ -n "$prog" ] && [ -z "$plan" ] && plan=${line#1..} ;;
		ok\ *|not\ ok\ *)
			[ -n "$prog" ] || continue
			ncase=$((ncase + 1))
			name=$(echo "$line" | sed -E 's/^(not )?ok [0-9]+ (- )?//; s/ *#.*$//')
			echo "$prog: $name" >> "$got"
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
	done < <(tr -d '\r' < "$log" 2>/dev/null)
	if [ -n "$prog" ]; then
		result fail "selftest[$label] $prog" "did not finish"
		echo "$prog" >> "$got"
	fi
}

# --- the VM ---------------------------------------------------------------------
# One result for a boot: PASS only when vm.sh ran the guest to its end and
# the guest's command exited 0.  A splat, a hang, a guest that ended without
# a status, a wrong tier layout, vm.sh failing before the guest ran (no
# kernel, initramfs or QEMU) and a non-zero exit status of the command all
# fail it.
vm_run() { # label kernel topology timeout log-dir command...
	local label=$1 kernel=$2 topo=$3 to=$4 dir=$5 rc=0 why
	shift 5
	# shellcheck disable=SC2086 # VMOPTS holds several options
	BUILD=${VMBUILD:-$BUILD} "$ROOT/scripts/vm.sh" --kernel "$kernel" --topology "$topo" --timeout "$to" \
		${VMOPTS:-} --log "$dir" -- "$@" > "$dir.out" 2> "$dir.err" || rc=$?
	why=$(grep -m1 '^VM: \(kernel splat\|timed out\|guest ended\|wrong memory tier\)' "$dir.err" || true)
	[ -n "$why" ] || why=$(grep -m1 '^error: ' "$dir.err" || true)
	if [ -n "$why" ]; then
		result fail "vm[$label] run" "$why"
		sed -n '1,40p' "$dir.err"
		return 1
	fi
	if [ "$rc" != 0 ]; then
		result fail "vm[$label] run" "guest command exited $rc"
		return 1
	fi
	result pass "vm[$label] run" "no splat, no hang, exit 0"
}

# --- progress ------------------------------------------------------------------
# Each step prints "[i/N] name" with the time since make check started and
# an estimate of what is left, from the step times of the last run on this
# machine (build/check-times.txt) or, on a first run, from the reference
# times committed in scripts/expected/check-times.txt.  A step that runs
# longer than a minute prints a heartbeat every minute.
CHECK_TIMES=${CHECK_TIMES:-$BUILD/check-times.txt}
declare -A step_last step_took
step_plan=() step_i=0 step_cur= step_t0=0 hb_pid= check_t0=$(date +%s)
step_source= step_nlast=0

mmss() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }

# The steps this run will take, in order, for [i/N] and the estimate.
progress_plan() { # step names...
	local f name secs
	step_plan=("$@")
	for f in "$CHECK_TIMES" "$EXPECTED/check-times.txt"; do
		[ -f "$f" ] || continue
		while IFS=$'\t' read -r name secs; do
			case $name in ''|'#'*) continue ;; esac
			case $secs in ''|*[!0-9]*) continue ;; esac
			step_last[$name]=$secs
			step_nlast=$((step_nlast + 1))
		done < "$f"
		step_source=$f
		break
	done
}

heartbeat_stop() {
	[ -n "$hb_pid" ] || return 0
	kill "$hb_pid" 2>/dev/null || true
	hb_pid=
}

step_end() {
	heartbeat_stop
	[ -n "$step_cur" ] || return 0
	step_took[$step_cur]=$(( $(date +%s) - step_t0 ))
	step_cur=
}

# Start a step: close the previous one, print its header with [i/N], and
# keep a heartbeat going; WATCH, when given, is a file whose last line the
# heartbeat shows (the current selftest of a VM run, say).
step() { # name [watch-file]
	local name=$1 watch=${2:-} now left=0 known=1 i s
	step_end
	step_i=$((step_i + 1))
	now=$(date +%s)
	for ((i = step_i - 1; i < ${#step_plan[@]}; i++)); do
		s=${step_plan[$i]}
		if [ -n "${step_last[$s]:-}" ]; then
			left=$((left + step_last[$s]))
		else
			known=0
		fi
	done
	local est="no estimate (no earlier run)"
	if [ "$step_nlast" -gt 0 ]; then
		est="about $(( (left + 59) / 60 )) min left${step_last[$name]:+, this step ${step_last[$name]} s}"
		[ $known = 1 ] || est="$est, more for steps without a time"
		[ "$step_source" = "$CHECK_TIMES" ] || est="$est, by the reference times"
	fi
	printf '\n=== [%d/%d] %s  (%s elapsed; %s)\n' "$step_i" "${#step_plan[@]}" \
		"$name" "$(mmss $((now - check_t0)))" "$est"
	step_cur=$name
	step_t0=$now
	# Started from a subshell that exits at once, so that the heartbeat is
	# not a child of this shell (bash then never waits for it).
	local parent=$$
	(
		(
			trap - EXIT
			trap 'kill "$sp" 2>/dev/null; exit 0' TERM
			while :; do
				# sleep must not hold make check's stdout open
				sleep 60 > /dev/null 2>&1 < /dev/null &
				sp=$!
				wait "$sp"
				# Gone with make check, even if it was killed.
				kill -0 "$parent" 2>/dev/null || exit 0
				line=
				[ -n "$watch" ] && [ -f "$watch" ] &&
					line=$(tr -d '\r' < "$watch" | grep -av '^#' | tail -n 1 | cut -c1-70 || true)
				printf '      ... %s: %s%s\n' "$name" "$(mmss $(( $(date +%s) - now )))" \
					"${line:+, at: $line}"
			done
		) 2> /dev/null &
		echo $! > "$BUILD/.check-heartbeat"
	)
	hb_pid=$(cat "$BUILD/.check-heartbeat")
}

# Close the last step and keep this run's step times for the next one.
progress_done() {
	local name tmp
	step_end
	tmp=$CHECK_TIMES.tmp
	{
		echo "# step<TAB>seconds of the last make check on this machine"
		for name in "${step_plan[@]}"; do
			if [ -n "${step_took[$name]:-}" ]; then
				printf '%s\t%s\n' "$name" "${step_took[$name]}"
			fi
		done
	} > "$tmp" && mv "$tmp" "$CHECK_TIMES"
	echo "make check took $(mmss $(( $(date +%s) - check_t0 ))) (step times in $CHECK_TIMES)"
}

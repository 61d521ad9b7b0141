#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-kernel.sh FLAVOUR [make args...]
#
# Build build/linux out of tree into build/obj-FLAVOUR.  A flavour is a list
# of config fragments (configs/*.config) on top of tinyconfig:
#   test    guest.config pghot.config          the kernel the VM tests run
#   debug   guest.config pghot.config debug.config
#   precise guest.config pghot.config precise.config
#   nopghot guest.config nopghot.config        pghot compiled out
# Every option a fragment asks for must end up in .config as asked, or the
# build fails: a silently dropped option would test the wrong kernel.

. "$(dirname "$0")/lib.sh"

flavour=${1:?flavour}
shift
case $flavour in
test)    frags=(guest pghot) ;;
debug)   frags=(guest pghot debug) ;;
precise) frags=(guest pghot precise) ;;
nopghot) frags=(guest nopghot) ;;
*) die "unknown flavour $flavour" ;;
esac

[ -f "$KSRC/Makefile" ] || die "no tree at $KSRC (make tree)"
obj=$BUILD/obj-$flavour
mkdir -p "$obj"
setup_cc
kmake() { make -s -C "$KSRC" O="$obj" CC="$CC_CMD" HOSTCC=gcc "$@"; }

paths=()
for f in "${frags[@]}"; do
	[ -f "$ROOT/configs/$f.config" ] && paths+=("$ROOT/configs/$f.config")
done

# Regenerate .config only when the fragments or Kconfig changed, so that an
# unchanged tree is not rebuilt.
stamp=$(cat "${paths[@]}" | sha256sum | cut -c1-16)-$(cd "$KSRC" &&
	git ls-files -z -- 'Kconfig*' '*/Kconfig*' | xargs -0 cat | sha256sum | cut -c1-16)
# Whether .config has every option the fragments ask for; reports the
# ones it lacks when called with "report".
config_matches() {
	local line sym bad=0
	[ -f "$obj/.config" ] || return 1
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=n) sym=${line%%=*}
			if grep -q "^$sym=" "$obj/.config"; then
				[ "${1:-}" = report ] && echo "config: $sym is set, wanted n" >&2
				bad=1
			fi ;;
		CONFIG_*=*) if ! grep -qxF "$line" "$obj/.config"; then
				[ "${1:-}" = report ] &&
					echo "config: wanted $line, got: $(grep "^${line%%=*}=" "$obj/.config" || echo unset)" >&2
				bad=1
			fi ;;
		esac
	done < <(cat "${paths[@]}")
	return $bad
}

# Also when a make run by hand in this tree changed .config (a syncconfig
# after checking out another commit can drop options silently).
if [ "$(cat "$obj/.fragstamp" 2>/dev/null)" != "$stamp" ] || ! config_matches; then
	log "configuring $flavour: tinyconfig + ${frags[*]}"
	kmake tinyconfig >/dev/null
	(cd "$KSRC" && scripts/kconfig/merge_config.sh -m -O "$obj" "$obj/.config" "${paths[@]}" >/dev/null)
	kmake olddefconfig >/dev/null
	config_matches report || die "config fragments for $flavour did not apply"
	echo "$stamp" > "$obj/.fragstamp"
fi

last=$(cat "$obj/.buildtime" 2>/dev/null || true)
log "building $flavour kernel ($(jobs_nr) jobs; ${last:+the last build here took ${last}s; }from scratch with an empty ccache about 10 min, 17 for debug)"
start=$(date +%s)
# A line a minute while make is silent: time and objects compiled so far.
touch "$obj/.buildstart"
(
	trap 'kill "$sp" 2>/dev/null; exit 0' TERM
	while :; do
		sleep 60 > /dev/null 2>&1 < /dev/null &
		sp=$!
		wait "$sp"
		n=$(find "$obj" -name '*.o' -newer "$obj/.buildstart" 2>/dev/null | wc -l)
		log "... $flavour: $(( ($(date +%s) - start) / 60 )) min, $n objects compiled"
	done
) >&2 &
hb=$!
trap 'kill $hb 2>/dev/null || true' EXIT
kmake -j"$(jobs_nr)" "${@:-bzImage}"
took=$(( $(date +%s) - start ))
echo "$took" > "$obj/.buildtime"
log "built $flavour in ${took}s: $obj/arch/x86/boot/bzImage"

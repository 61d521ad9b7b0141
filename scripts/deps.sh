#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages the harness needs, when any is missing.

. "$(dirname "$0")/lib.sh"

pkgs=(build-essential git flex bison bc libelf-dev libssl-dev dwarves cpio
      xz-utils file perl busybox-static qemu-system-x86 ccache numactl
      gnuplot-nox python3-ply python3-git redis-server redis-tools
      python3-sphinx python3-yaml)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} = 0 ]; then
	log "build dependencies present"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	die "missing packages: ${missing[*]}; run as root or: sudo apt-get install ${missing[*]}"
fi
log "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >&2 || warn "apt-get update failed; trying with the current lists"
apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 ||
	die "apt-get install failed"

# SPDX-License-Identifier: GPL-2.0
# Common settings for the pghot harness scripts.  Sourced, not executed.

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${PGHOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pghot}
BUILD=${BUILD:-$ROOT/build}
KSRC=$BUILD/linux

# The pinned base: Debian's linux-source-7.3 from trixie-backports.
BASE_PKG=linux-source-7.3
BASE_VERSION=7.3.4-1~bpo13+1
BASE_SUITE=trixie-backports
BASE_SHA256=703e369ddd4cce971452f5a593ee55df3a5c10c83caf0fa0df039633ed181ee3
BASE_TAG=pghot-base

# Fixed identity and date for the synthetic base commit, so that the same
# source always gives the same commit id.
BASE_COMMIT_ENV=(GIT_AUTHOR_NAME=pghot-base GIT_AUTHOR_EMAIL=base@pghot.invalid
		 GIT_COMMITTER_NAME=pghot-base GIT_COMMITTER_EMAIL=base@pghot.invalid
		 GIT_AUTHOR_DATE="2026-01-01T00:00:00Z"
		 GIT_COMMITTER_DATE="2026-01-01T00:00:00Z")

log()  { printf '==> %s\n' "$*" >&2; }
warn() { printf '\n!!! WARNING: %s\n\n' "$*" >&2; }
die()  { printf 'error: %s\n' "$*" >&2; exit 1; }

jobs_nr() { nproc 2>/dev/null || echo 2; }

# Use ccache when present (its default cache directory, so every clone and
# CI share it); CCACHE_BASEDIR makes hits independent of the clone's location.
setup_cc() {
	if command -v ccache >/dev/null 2>&1; then
		export CCACHE_BASEDIR=$ROOT
		export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-10G}
		CC_CMD="ccache gcc"
	else
		CC_CMD=gcc
	fi
}

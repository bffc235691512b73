#!/usr/bin/env bash
# How long a new user waits: clones the repository's HEAD into a fresh folder, then times
# (1) ./scripts/serve.sh until the page answers on http://127.0.0.1:5173/ and
# (2) .ci/run with CI=true (the whole test suite), on a second fresh clone.
# Targets (issue 34): the page within 10 minutes, .ci/run within 20, on 2 cores. System
# packages already installed are not timed; the npm cache is whatever this machine has.
# Prints the time of each part and step of the run (the set-up scripts' "== " lines), and the
# load average at the start and the end (the machine may be shared).
#
#   bench/setup.sh [--serve-only|--ci-only]
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# A first clone compiles everything: no compiler cache, even where ccache is installed (the
# set-up scripts use it where it is, unless CMAKE_CXX_COMPILER_LAUNCHER says otherwise).
export CMAKE_CXX_COMPILER_LAUNCHER=""
mode="${1:-all}"
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
work="$(mktemp -d)"
server=""
cleanup() {
  [ -n "$server" ] && kill -- "-$server" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

fresh_clone() {
  git clone -q --no-hardlinks "$repo" "$work/$1"
  echo "$work/$1"
}

if [ "$mode" != "--ci-only" ]; then
  clone="$(fresh_clone serve)"
  start=$(date +%s)
  set -m
  (cd "$clone" && exec ./scripts/serve.sh >"$work/serve.log" 2>&1) &
  server=$!
  set +m
  until curl -sf http://127.0.0.1:5173/ >/dev/null; do
    if ! kill -0 "$server" 2>/dev/null; then
      tail -20 "$work/serve.log"
      echo "serve.sh stopped before the page answered" >&2
      exit 1
    fi
    sleep 2
  done
  grep '^== ' "$work/serve.log" || true
  echo "page served from a fresh clone: $(($(date +%s) - start)) s (target 600 s)"
  kill -- "-$server" 2>/dev/null || true
  server=""
fi

if [ "$mode" != "--serve-only" ]; then
  clone="$(fresh_clone ci)"
  start=$(date +%s)
  if (cd "$clone" && CI=true .ci/run >"$work/ci.log" 2>&1); then
    # Each part's time and its steps' (the test scripts' "== " lines, and each ctest test's),
    # then the whole.
    grep -E '^== |Test +#[0-9]+: ' "$work/ci.log"
    echo ".ci/run on a fresh clone: $(($(date +%s) - start)) s (target 1200 s)"
  else
    grep '^== ' "$work/ci.log" || true
    tail -30 "$work/ci.log"
    echo ".ci/run failed after $(($(date +%s) - start)) s" >&2
    echo "on $(nproc) cores; load average now: $(cut -d' ' -f1-3 /proc/loadavg)"
    exit 1
  fi
fi
echo "on $(nproc) cores; load average now: $(cut -d' ' -f1-3 /proc/loadavg)"

#!/usr/bin/env bash
# Robustness: the libFuzzer targets for a bounded time (FUZZ_SECONDS each, default 45) over
# the committed corpus and past findings, then the whole test suite under AddressSanitizer
# and UndefinedBehaviorSanitizer. One optimised sanitized build (the `fuzz` preset, clang)
# serves both. Any finding fails.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$(repo_root)"

ensure_native_deps
ensure_packages clang-16 libclang-rt-16-dev

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$(nproc)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for target in estimate search; do
  fuzzer="build/fuzz/tests/fuzz/fuzz_$target"
  echo "Replaying past findings through fuzz_$target"
  "$fuzzer" tests/fuzz/regressions/*
  echo "Fuzzing fuzz_$target for ${FUZZ_SECONDS:-45} s"
  mkdir -p "$work/$target"
  "$fuzzer" -max_total_time="${FUZZ_SECONDS:-45}" -timeout=20 -rss_limit_mb=2048 \
    -dict=tests/fuzz/scenario.dict -artifact_prefix="$work/" -print_final_stats=1 \
    "$work/$target" "tests/fuzz/corpus/$target" 2>&1 | grep -E "^(stat::|Done|INFO: seed|==)" || true
  if ls "$work"/crash-* "$work"/timeout-* "$work"/oom-* "$work"/leak-* >/dev/null 2>&1; then
    echo "fuzz_$target found a problem; the input is kept in tests/fuzz/findings/"
    mkdir -p tests/fuzz/findings && cp "$work"/crash-* "$work"/timeout-* "$work"/oom-* "$work"/leak-* tests/fuzz/findings/ 2>/dev/null || true
    exit 1
  fi
done

ctest --preset fuzz

#!/usr/bin/env bash
# Robustness: the libFuzzer targets for a bounded time (FUZZ_SECONDS each, default 45, the two
# targets side by side) over the committed corpus and past findings, then the whole test suite
# under AddressSanitizer and UndefinedBehaviorSanitizer (its parts side by side). One optimised
# sanitized build (the `fuzz` preset, clang) serves both. Any finding fails.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$(repo_root)"

timed packages ensure_native_deps
timed "packages (clang)" ensure_packages clang-16 libclang-rt-16-dev

compiler_launcher_option
timed "sanitized configure" quietly cmake --preset fuzz -DPARAPLAN_UNITY_BUILD=ON "$REPLY"
timed "sanitized build" cmake --build --preset fuzz -j "$(nproc)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One target: past findings replayed, then FUZZ_SECONDS of fuzzing; its log in $work/$1.log.
fuzz_target() {
  local target="$1" fuzzer="build/fuzz/tests/fuzz/fuzz_$1"
  echo "Replaying past findings through fuzz_$target"
  "$fuzzer" tests/fuzz/regressions/* || return 1
  echo "Fuzzing fuzz_$target for ${FUZZ_SECONDS:-45} s"
  mkdir -p "$work/$target"
  "$fuzzer" -max_total_time="${FUZZ_SECONDS:-45}" -timeout=20 -rss_limit_mb=2048 \
    -dict=tests/fuzz/scenario.dict -artifact_prefix="$work/$target-" -print_final_stats=1 \
    "$work/$target" "tests/fuzz/corpus/$target" 2>&1 | grep -E "^(stat::|Done|INFO: seed|==)" || true
}

# The two targets side by side (one core each), each log printed whole when both are done.
fuzz_start=$SECONDS
for target in estimate search; do
  fuzz_target "$target" >"$work/$target.log" 2>&1 &
done
status=0
for job in $(jobs -p); do wait "$job" || status=1; done
echo "== $(basename "$0"): fuzzing (both targets side by side): $((SECONDS - fuzz_start)) s"
cat "$work/estimate.log" "$work/search.log"
if [ "$status" -ne 0 ] || ls "$work"/*crash-* "$work"/*timeout-* "$work"/*oom-* "$work"/*leak-* >/dev/null 2>&1; then
  echo "The fuzzers found a problem; the inputs are kept in tests/fuzz/findings/"
  mkdir -p tests/fuzz/findings
  cp "$work"/*crash-* "$work"/*timeout-* "$work"/*oom-* "$work"/*leak-* tests/fuzz/findings/ 2>/dev/null || true
  exit 1
fi

timed "sanitized tests" ctest --preset fuzz -j "$(nproc)"

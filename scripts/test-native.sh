#!/usr/bin/env bash
# Native build and its tests: C++ formatting, unit, validation, CLI, portability of core/.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$(repo_root)"

timed packages ensure_native_deps
timed "packages (clang-format)" ensure_packages clang-format
cpp_format_check() {
  find core cli wasm bench tests -name node_modules -prune -o \( -name '*.cpp' -o -name '*.hpp' \) \
    -print0 | xargs -0 clang-format --dry-run --Werror
}
timed clang-format cpp_format_check
build_native
timed "native tests" ctest --preset native -j "$(nproc)"

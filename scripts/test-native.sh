#!/usr/bin/env bash
# Native build and its tests: unit, validation, CLI, portability of core/.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$(repo_root)"

ensure_native_deps
build_native
ctest --preset native

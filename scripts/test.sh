#!/usr/bin/env bash
# Runs every test of the project. Installs what it needs; safe to run again.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$(repo_root)"

ensure_native_deps
build_native
ctest --preset native

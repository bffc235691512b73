#!/usr/bin/env bash
# Builds Paraplan and shows it working. Installs what it needs; safe to run again.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$(repo_root)"

ensure_native_deps
build_native
./build/native/paraplan estimate examples/llama2-70b-a800.json

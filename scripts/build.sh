#!/usr/bin/env bash
# Builds everything: the native CLI (build/native), the WebAssembly module (build/wasm)
# and the web site (web/dist). Installs what it needs; safe to run again.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$(repo_root)"

ensure_native_deps
ensure_web_deps
build_native
build_wasm
build_web

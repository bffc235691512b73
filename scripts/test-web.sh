#!/usr/bin/env bash
# The web side's tests: the page's TypeScript units (vitest), the WebAssembly module against
# the native CLI (node), the production site in Chromium, formatting, and the GitHub
# workflows' syntax.
# Installs what it needs; safe to run again.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$(repo_root)"

timed packages ensure_native_deps
timed "packages (web)" ensure_web_deps
# Chromium for the browser test (never downloaded by npm), and a CJK font for the
# Chinese screenshots.
timed "packages (browser)" ensure_packages chromium fonts-wqy-microhei
build_native
build_wasm
build_web
timed "npm ci (tests)" npm_install tests

timed "prettier (web)" bash -c 'cd web && npm run format:check'
timed vitest bash -c 'cd web && npm test'
timed "prettier (tests)" bash -c 'cd tests && ../web/node_modules/.bin/prettier --check package.json wasm browser workflows'
timed "wasm tests" bash -c 'cd tests && node --test wasm/*.test.mjs'
# The browser test files side by side, one per core, where Node.js can (--test-concurrency:
# 20.10 and later; its default, one file fewer than the cores, is one at a time on 2 cores):
# they mostly wait on the page (43 s of CPU in 207 s, two at a time, 47 of 47 passed). The
# wasm tests stay one at a time: one of them times a 0.2 s search budget.
browser_tests() {
  local concurrency=()
  if node --test-concurrency=2 -e '' 2>/dev/null; then concurrency=(--test-concurrency="$(nproc)"); fi
  (cd tests && node --test "${concurrency[@]}" browser/*.test.mjs)
}
timed "browser tests" browser_tests
timed "workflow tests" bash -c 'cd tests && node --test workflows/*.test.mjs'
echo "Web tests passed; screenshots are in tests/browser/screenshots/"

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
timed "browser tests" bash -c 'cd tests && node --test browser/*.test.mjs'
timed "workflow tests" bash -c 'cd tests && node --test workflows/*.test.mjs'
echo "Web tests passed; screenshots are in tests/browser/screenshots/"

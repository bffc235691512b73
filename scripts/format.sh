#!/usr/bin/env bash
# Rewrites the sources in the project's formatting: clang-format (.clang-format) for the C++,
# Prettier (web/.prettierrc) for the web page and the JavaScript tests. The test scripts only
# check it (scripts/test-native.sh, scripts/test-web.sh). Installs what it needs.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$(repo_root)"

ensure_packages clang-format
find core cli wasm bench tests -name node_modules -prune -o \( -name '*.cpp' -o -name '*.hpp' \) \
  -print0 | xargs -0 clang-format -i
ensure_node
npm_install web
(cd web && npx prettier --write .)
(cd tests && ../web/node_modules/.bin/prettier --write package.json wasm browser workflows)

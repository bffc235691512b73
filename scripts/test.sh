#!/usr/bin/env bash
# Runs every test of the project. Installs what it needs; safe to run again.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

"$here/test-native.sh"
"$here/test-web.sh"
"$here/test-robustness.sh"

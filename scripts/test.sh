#!/usr/bin/env bash
# Runs every test of the project. Installs what it needs; safe to run again.
# Prints how long each part took (issue 34: .ci/run within 20 minutes on 2 cores).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

start=$SECONDS
for part in native web robustness; do
  part_start=$SECONDS
  "$here/test-$part.sh"
  echo "== test-$part.sh: $((SECONDS - part_start)) s"
done
echo "== all tests: $((SECONDS - start)) s"

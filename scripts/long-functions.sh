#!/usr/bin/env bash
# Lists the functions of core/ longer than LIMIT lines (default 80), longest first: lines from
# the name to the closing brace, lambdas counted within their function, as Universal Ctags
# reads them (issue 34 item 4: long functions split by responsibility).
#
#   scripts/long-functions.sh [LIMIT] [DIR...]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
limit="${1:-80}"
shift || true
[ $# -gt 0 ] || set -- core
ctags -R --languages=C++ --c++-kinds=f --fields=+ne --output-format=u-ctags -f - "$@" |
  awk -F'\t' -v limit="$limit" '
    $1 !~ /^__anon/ {
      line = end = 0
      for (i = 4; i <= NF; i++) {
        if ($i ~ /^line:/) line = substr($i, 6)
        if ($i ~ /^end:/) end = substr($i, 5)
      }
      if (line && end && end - line + 1 > limit) printf "%d\t%s:%d\t%s\n", end - line + 1, $2, line, $1
    }' |
  sort -rn

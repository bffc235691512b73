#!/usr/bin/env bash
# The scaling benchmark of issue 12: llama3-70b on H100 (GBS 1024, seq 8192) from 8 to 4096
# GPUs in steps of 8 (512 searches), natively on every core (paraplan scaling's threads) and on
# one, then through the WebAssembly module under node (one thread, and a pool of worker threads
# as the page's Web Workers). Prints seconds; asserts nothing. Targets: native 3 s on the
# 2-core reference machine, the page 5 s, WebAssembly within 2x of native.
# Run after building both presets: bench/scaling.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
job=(--model-name llama3-70b --gpu-infos h100 --global-batch-size 1024 --sequence-length 8192
  --from 8 --to 4096 --step 8 --json)
seconds() {
  python3 -c '
import json, sys
s = json.load(sys.stdin)["stats"]
print("%.3f s wall, %.3f s of searches, %d threads, %d/%d sizes with a strategy" % (
    s["seconds"], s["search_seconds"], s["threads"], s["feasible_points"], s["points"]))'
}
# User CPU seconds too: on a shared machine wall time includes waiting for a core.
timed() { /usr/bin/time -f "%U s user CPU" "$@"; }
for threads in 0 1; do
  flags=("${job[@]}")
  [ "$threads" = 0 ] || flags+=(--threads "$threads")
  { timed build/native/paraplan scaling "${flags[@]}" >/tmp/paraplan-scaling-bench.json; } 2>&1 | tr '\n' ' '
  echo "native: $(seconds </tmp/paraplan-scaling-bench.json)"
done
rm -f /tmp/paraplan-scaling-bench.json
if [ -f build/wasm/node/paraplan.cjs ]; then
  node tests/wasm/bench.mjs --scaling-only
else
  echo "WebAssembly: build/wasm/node/paraplan.cjs is missing (cmake --build --preset wasm)"
fi

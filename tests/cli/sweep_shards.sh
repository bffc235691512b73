#!/usr/bin/env bash
# paraplan sweep --shard I/N under GNU parallel: the shards' lines together are the lines of the
# unsharded sweep (search seconds aside), each point exactly once.
# Usage: sweep_shards.sh PARAPLAN
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
ensure_packages parallel
paraplan=$1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
job=(--model-name llama2-7b --gpu-infos a800 --num-gpus 16 --global-batch-size 64
  --sequence-length 4096 --sweep hbm_gib=24:80:8 --sweep intra_node.gb_per_s=100,400 --threads 1)
without_seconds() { sed -E 's/"seconds":[-0-9.e+]+/"seconds":0/' "$@" | sort -t: -k2 -n; }

"$paraplan" sweep "${job[@]}" >"$scratch/whole.jsonl"
parallel --will-cite -j 2 "'$paraplan'" sweep "${job[@]}" --shard {}/3 '>' "$scratch/shard{}.jsonl" ::: 1 2 3
cat "$scratch"/shard*.jsonl >"$scratch/union.jsonl"

points=$(wc -l <"$scratch/whole.jsonl")
[ "$points" -eq 16 ] || { echo "expected 16 points, got $points"; exit 1; }
for shard in 1 2 3; do
  [ -s "$scratch/shard$shard.jsonl" ] || { echo "shard $shard printed nothing"; exit 1; }
done
if ! diff <(without_seconds "$scratch/whole.jsonl") <(without_seconds "$scratch/union.jsonl") >/dev/null; then
  echo "the shards' union differs from the unsharded sweep"
  diff <(without_seconds "$scratch/whole.jsonl") <(without_seconds "$scratch/union.jsonl") | cut -c1-200 | head -5
  exit 1
fi
echo "3 shards under GNU parallel: the same $points points as the unsharded sweep"

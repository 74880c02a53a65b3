#!/usr/bin/env bash
# Runs the promptfoo example in 3 shards on this machine (as three CI machines would), then
# merges them. Works offline with the echo provider: `bash examples/sharding/run-locally.sh`.
set -u
cd "$(dirname "$0")/../.."
out=$(mktemp -d)
for i in 1 2 3; do
  node bin/assay.js eval examples/promptfoo -p echo --shard "$i/3" --runs-dir "$out/shards" --no-progress > /dev/null
  echo "shard $i/3: exit $?"
done
node bin/assay.js merge "$out"/shards/* --runs-dir "$out/merged"
echo "merged run: $(ls "$out/merged")"

#!/usr/bin/env bash
# Soak: runs the execution tests (build/test/Integration) N times (default
# 3), each time with fresh random seeds instead of the fixed one the normal
# suite uses. A failing run prints its seed and the command that reproduces
# it (the harnesses' "seed" lines). Not part of scripts/test.sh.
#
# With --diff, runs the differential soak instead (test/Integration/README.md,
# "Differential soak"): random programs from a fresh seed until N programs
# (default 100000) are checked, one process at a time at nice 10; its last
# line gives the count, the seed and the throughput.
# Usage: bash scripts/soak.sh [N]
#        bash scripts/soak.sh --diff [N]
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/common.sh
if [[ "${1:-}" == "--diff" ]]; then
  exec nice -n 10 /usr/bin/python3 test/Integration/lib/diff_soak.py --seed random \
    --programs "${2:-100000}" --softmax-opt "$BUILD_DIR/bin/softmax-opt" -v
fi
runs=${1:-3}
failed=0
for ((i = 1; i <= runs; i++)); do
  echo "=== soak run $i of $runs ==="
  /usr/bin/python3 "$LLVM_PREFIX/bin/lit" -sv -j"$(nproc)" --param seed=random \
    "$BUILD_DIR/test/Integration" || failed=$((failed + 1))
done
echo "soak: $((runs - failed)) of $runs runs passed"
[[ "$failed" -eq 0 ]]

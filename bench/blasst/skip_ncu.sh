#!/bin/bash
# Hardware counters of the thresholded prefill kernels against the dense
# ones (N 16384 non-causal, structured peak 12): is a skipped tile bound by
# its K copy from L2 (bench/results/blasst/block_tiles.md)? On the H200:
#   bash bench/blasst/skip_ncu.sh <lib-dir> <out-dir>
set -u
LIB=$1; OUT_DIR=$2; PY=${PYTHON:-/opt/torch/.venv/bin/python3}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT_DIR"
SECTIONS="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats"
run() {  # <out name> <kernel> [lambda]
  # A thresholded call launches the counts' zeroing kernel, then its own:
  # the fourth launch is the second call's kernel; a dense call, one launch.
  local skip=2
  case "$2" in *skip*) skip=3 ;; esac
  timeout 150 ncu --clock-control none -k regex:attention --launch-skip $skip --launch-count 1 \
    $SECTIONS "$PY" "$HERE/skip_one.py" --lib-dir "$LIB" --n 16384 --lam "${3:-0}" "$2" \
    > "$OUT_DIR/$1.txt" 2>&1
}
run dense_mma_sync attention_d128
run dense_wg attention_wg_d128
run wg64_nothing attention_skip_d128_wg64 1e-30
run wg64_1e-2 attention_skip_d128_wg64 1e-2
run wg128_1e-2 attention_skip_d128_wg128 1e-2
run tma_b128_1e-2 attention_skip_d128_tma_b128 1e-2

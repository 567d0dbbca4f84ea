#!/bin/bash
# Hardware counters of the thresholded prefill kernels against the dense
# ones (N 16384 non-causal, structured peak 12): is a skipped tile bound by
# its K copy from L2 (bench/results/blasst/block_tiles.md)? And, with
# "causal", the 8-warp causal kernels: why does the skip kernel with
# nothing skipped take 1.34x the dense one there (1.05x non-causal)?
# On the H200:
#   bash bench/blasst/skip_ncu.sh <lib-dir> <out-dir> [noncausal|causal|causal_wk]
set -u
LIB=$1; OUT_DIR=$2; PY=${PYTHON:-/opt/torch/.venv/bin/python3}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT_DIR"
SECTIONS="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats"
run() {  # <out name> <kernel> [lambda]
  # A thresholded call launches the counts' zeroing kernel, then its own:
  # the fourth launch is the second call's kernel; a dense call, or a
  # thresholded one without counts (*_nc), one launch.
  local skip=2
  case "$2" in *skip*_nc) ;; *skip*) skip=3 ;; esac
  timeout 150 ncu --clock-control none -k regex:attention --launch-skip $skip --launch-count 1 \
    $SECTIONS "$PY" "$HERE/skip_one.py" --lib-dir "$LIB" --n 16384 --lam "${3:-0}" "$2" \
    > "$OUT_DIR/$1.txt" 2>&1
}
if [ "${3:-noncausal}" = causal_wk ]; then
  # V with K (the causal warp tile's default since session 30): what is
  # left of its cost with nothing skipped, with and without counts.
  run causal_dense_wg attention_wg_d128_causal
  run causal_wg_wk_nothing attention_skip_d128_causal_wg_wk 1e-30
  run causal_wg_wk_nc_nothing attention_skip_d128_causal_wg_wk_nc 1e-30
  exit 0
fi
if [ "${3:-noncausal}" = causal ]; then
  run causal_dense_wg attention_wg_d128_causal
  run causal_wg_nothing attention_skip_d128_causal_wg 1e-30
  run causal_wg_nc_nothing attention_skip_d128_causal_wg_nc 1e-30
  run causal_wg128_nothing attention_skip_d128_causal_wg128 1e-30
  run causal_wg64_nothing attention_skip_d128_causal_wg64 1e-30
  exit 0
fi
run dense_mma_sync attention_d128
run dense_wg attention_wg_d128
run wg64_nothing attention_skip_d128_wg64 1e-30
run wg64_1e-2 attention_skip_d128_wg64 1e-2
run wg128_1e-2 attention_skip_d128_wg128 1e-2
run tma_b128_1e-2 attention_skip_d128_tma_b128 1e-2

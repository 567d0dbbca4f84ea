#!/bin/bash
# Hardware counters of the softmax.topk kernel at V 128256, bf16, k 50, for
# where its time goes (ncu, clocks left alone):
#   bash bench/gpu/probe/topk_ncu.sh <lib-dir> <out-dir>     # on the H200
set -u
LIB=$1; OUT_DIR=$2; PY=${PYTHON:-/opt/torch/.venv/bin/python3}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT_DIR"
SECTIONS="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section InstructionStats --section SourceCounters"
for b in 256 8; do
  timeout 240 ncu --clock-control none --launch-skip 2 --launch-count 2 \
    $SECTIONS "$PY" "$HERE/topk_one.py" --lib-dir "$LIB" --rows $b --k 50 > "$OUT_DIR/ncu_topk_b${b}_k50.txt" 2>&1
done

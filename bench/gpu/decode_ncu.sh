#!/bin/bash
# Hardware counters of our decode kernel and cuDNN's on B8 H32 Hkv8 L32768
# (ncu, clocks left alone), for where the 0.92x goes:
#   bash bench/gpu/decode_ncu.sh <lib-dir> <out-dir>     # on the H200
set -u
LIB=$1; OUT_DIR=$2; PY=${PYTHON:-/opt/torch/.venv/bin/python3}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT_DIR"
SECTIONS="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats"
for k in b8_h32_kv8_l32768__auto b8_h32_kv8_l32768__b3; do
  timeout 200 ncu --clock-control none --launch-skip 3 --launch-count 4 \
    $SECTIONS "$PY" "$HERE/decode_one.py" --lib-dir "$LIB" "$k" > "$OUT_DIR/ncu_$k.txt" 2>&1
done
timeout 200 ncu --clock-control none --launch-skip 3 --launch-count 6 \
  $SECTIONS "$PY" "$HERE/decode_one.py" --lib-dir "$LIB" --sdpa cudnn b8_h32_kv8_l32768__auto > "$OUT_DIR/ncu_cudnn.txt" 2>&1

#!/bin/bash
# reread = reverse against the default forward second pass on the streamed
# vocabulary rows (issue 15), each plan built twice (the heuristic's, and
# the same with D=reverse as ours:rev) and timed in one process beside
# torch and Triton's online kernel (whose second pass also runs backwards).
# Here:        bash bench/gpu/reread_reverse.sh build
# On the GPU:  bash bench/gpu/reread_reverse.sh run <out-dir>
set -eu
LIB=${LIB:-build-gpu/reread}
SHAPES_SM="256x128256 4096x128256 256x262144 512x262144 1024x50257 200x128256"
SHAPES_LSM="256x128256 512x262144"
if [ "$1" = build ]; then
  specs=()
  for s in $SHAPES_SM; do
    specs+=("softmax:bf16:$s" "softmax:bf16:$s:online:rev:D=reverse")
  done
  for s in $SHAPES_LSM; do
    specs+=("log_softmax:bf16:$s" "log_softmax:bf16:$s:online:rev:D=reverse")
  done
  exec python3 scripts/build-kernel-library.py --out-dir $LIB "${specs[@]}"
fi
OUT=$2; mkdir -p "$OUT"; PY=${PYTHON:-python3}
one() {  # <op> <shapes>
  $PY bench/gpu/bench_softmax.py --lib-dir $LIB --ops "$1" --dtypes bf16 --shapes "$2" \
    --only ours,torch,triton_online --out "$OUT/reread_$1" > "$OUT/reread_$1.log" 2>&1 \
    || echo "$1 failed: $(tail -2 "$OUT/reread_$1.log")"
}
one softmax "$(echo $SHAPES_SM | tr ' ' ,)"
one log_softmax "$(echo $SHAPES_LSM | tr ' ' ,)"

#!/bin/bash
# The streamed rows' last pass with and without PTX's .cs operator
# (softmax-nvvm-nontemporal, softmax-to-nvvm's cache-hints option): the
# heuristic's plans for vocabulary rows, built twice, timed one library
# after the other on the same machine beside Triton's online kernel (the
# anchor between the two processes), with the GPU test of the streamed
# rows first. Two cached plans (f32 1024x50257, bf16 4096x32768) have no
# reread and are controls.
#   bash bench/gpu/cache_hints.sh build        # here
#   bash bench/gpu/cache_hints.sh run          # device, carry build-gpu/cs
# `sweep` builds (here) and times (device) other plans of the same rows
# with the hints, to retune the heuristic: 512 threads at 4 and 8 vectors
# in flight, 1024 at 8, two chunks a row; for the odd rows 256-1024
# threads at 1-2 vectors:
#   bash bench/gpu/cache_hints.sh sweep-build; bash bench/gpu/cache_hints.sh sweep
set -u
L=build-gpu/cs
if [ "$1" = sweep-build ]; then
  S=""
  for sh in 256x128256 4096x128256 200x128256 256x262144 512x262144; do
    S="$S softmax:bf16:$sh softmax:bf16:$sh:online:t512u8:T=512,K=0,U=8 softmax:bf16:$sh:online:t512u4:T=512,K=0,U=4"
    S="$S softmax:bf16:$sh:online:t1024u8:T=1024,K=0,U=8 softmax:bf16:$sh:online:s2:T=1024,K=0,U=4,S=2"
  done
  sh=1024x50257
  S="$S softmax:bf16:$sh softmax:bf16:$sh:online:t512u1:T=512,K=0,U=1 softmax:bf16:$sh:online:t512u2:T=512,K=0,U=2"
  S="$S softmax:bf16:$sh:online:t1024u2:T=1024,K=0,U=2 softmax:bf16:$sh:online:t256u2:T=256,K=0,U=2"
  python3 scripts/build-kernel-library.py --out-dir $L/sweep $S && rm -rf $L/work; exit $?
fi
if [ "$1" = sweep ]; then
  export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
  nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
  timeout 400 python3 bench/gpu/bench_softmax.py --lib-dir $L/sweep --ops softmax --dtypes bf16 \
    --shapes 256x128256,4096x128256,200x128256,256x262144,512x262144,1024x50257 --only ours,triton_online \
    --out $OUT/sweep > $OUT/sweep.log 2>&1 || echo "sweep failed: $(tail -2 $OUT/sweep.log)"
  grep -E "^\| softmax " $OUT/sweep/gpu_softmax.md | grep -v "not built" | cut -c1-110
  exit 0
fi
if [ "$1" = build ]; then
  S="softmax:bf16:256x128256 softmax:bf16:4096x128256 softmax:bf16:200x128256 softmax:bf16:256x262144
     softmax:bf16:512x262144 softmax:bf16:1024x50257 log_softmax:bf16:256x128256 log_softmax:bf16:512x262144
     softmax:f32:1024x50257 softmax:bf16:4096x32768"
  python3 scripts/build-kernel-library.py --out-dir $L/hint $S &&
  python3 scripts/build-kernel-library.py --no-cache-hints --out-dir $L/plain $S &&
  python3 test/Runtime/device/build-gpu-tests.py --out $L/tests test/Runtime/softmax-streamed-gpu.test &&
  rm -rf $L/work; exit $?
fi
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
timeout 90 python3 -u $L/tests/run-gpu-tests.py > $OUT/gpu_tests.txt 2>&1; grep -E "^==|passed" $OUT/gpu_tests.txt
SH=256x128256,4096x128256,200x128256,256x262144,512x262144,1024x50257,4096x32768
for v in plain hint; do
  timeout 220 python3 bench/gpu/bench_softmax.py --lib-dir $L/$v --ops softmax,log_softmax --dtypes bf16,f32 \
    --shapes $SH --only ours,triton_online --out $OUT/$v > $OUT/$v.log 2>&1 || echo "$v failed: $(tail -2 $OUT/$v.log)"
  grep -E "^\| (softmax|log_softmax) " $OUT/$v/gpu_softmax.md | grep -v "not built" | cut -c1-120
done

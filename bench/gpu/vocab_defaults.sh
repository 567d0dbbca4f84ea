#!/bin/bash
# The vocabulary-row plans the heuristic picks by itself (issue 15), each
# (op, dtype) timed on the shapes it was built for, beside torch and
# Triton's online kernel. Here:   bash bench/gpu/vocab_defaults.sh build
# On the H200:                    bash bench/gpu/vocab_defaults.sh run <out-dir>
set -eu
LIB=${LIB:-build-gpu/verify}
if [ "$1" = build ]; then
  exec python3 scripts/build-kernel-library.py --out-dir $LIB \
    softmax:bf16:256x128256 log_softmax:bf16:256x128256 logsumexp:bf16:256x128256 logsumexp:f32:256x128256 \
    softmax:bf16:1024x50257 "softmax:bf16:1024x50257:online:u4:T=1024,K=0,S=1,U=4" log_softmax:bf16:1024x50257 \
    logsumexp:bf16:1024x50257 softmax:f32:1024x50257 softmax:bf16:4096x128256 logsumexp:bf16:4096x128256 \
    softmax:bf16:256x262144 logsumexp:bf16:512x262144 logsumexp:f32:512x262144 softmax:bf16:512x262144 \
    log_softmax:bf16:512x262144 softmax:f32:256x65536 softmax:bf16:4096x32768 logsumexp:bf16:4096x32768 \
    softmax:bf16:8x1000003 logsumexp:bf16:8x1000003 softmax:bf16:32x128256 logsumexp:bf16:32x128256 \
    softmax:bf16:64x151936 softmax:bf16:200x128256 logsumexp:bf16:300x151936
fi
OUT=$2; mkdir -p "$OUT"; PY=${PYTHON:-python3}
one() {  # <op> <dtype> <shapes>
  $PY bench/gpu/bench_softmax.py --lib-dir $LIB --ops "$1" --dtypes "$2" --shapes "$3" \
    --only ours,torch,triton_online --out "$OUT/vocab_$1_$2" > "$OUT/vocab_$1_$2.log" 2>&1 \
    || echo "$1 $2 failed: $(tail -2 "$OUT/vocab_$1_$2.log")"
}
one softmax bf16 256x128256,1024x50257,4096x128256,256x262144,512x262144,4096x32768,8x1000003,32x128256,64x151936,200x128256
one logsumexp bf16 256x128256,1024x50257,4096x128256,512x262144,4096x32768,8x1000003,32x128256,300x151936
one log_softmax bf16 256x128256,1024x50257,512x262144
one softmax f32 1024x50257,256x65536
one logsumexp f32 256x128256,512x262144

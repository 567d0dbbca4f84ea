#!/bin/bash
# The device queue of bench/results/NEXT_DEVICE_RUN.md as two calls of at
# most ten minutes, for a session that gets a machine for a few minutes:
#   bash bench/device_queue.sh build     # here: builds and slims what the calls carry
#   bash bench/device_queue.sh a $OUT    # device, carry build-gpu/q: issue 13's bar run
#   bash bench/device_queue.sh a2 $OUT   # device: the same for the [128, 64] tile
#   bash bench/device_queue.sh b $OUT    # device, carry build-gpu/q: decode checks of the
#                                        # thresholded kernels, reread = reverse (GPU test
#                                        # and timing), the vocabulary plans
# Each call leaves one tarball in $OUT (the device returns at most eight files).
set -eu
Q=build-gpu/q
slim() {  # <from> <to>: the libraries and the index a run loads
  mkdir -p "$2"; cp "$1"/*.so "$2"/; cp "$1"/*.json "$2"/ 2>/dev/null || true
}
bar() {  # <out> <name> <timed block> <checked blocks> [timing flags]: issue 13's
  # bar run, the _wk kernels of each checked block tile first; one tarball
  local dir=$1 name=$2 out=$1/$2 blk=$3 checks=$4 B=bench/blasst/bench_skip_gpu.py
  shift 4
  mkdir -p "$out"
  nvidia-smi --query-gpu=name --format=csv,noheader | tee "$out/device.txt"
  for c in $checks; do
    timeout 150 python3 $B --lib-dir $Q/att --wgmma --block $c --with-keys --check \
        --json "$out/check_wk_b$c.json" > "$out/check_wk_b$c.log" 2>&1 \
        || echo "check b$c failed"; tail -2 "$out/check_wk_b$c.log"
  done
  python3 $B --lib-dir $Q/att --wgmma --block $blk --with-keys --lens 16384,32768,65536 \
      --peaks 12 --lambdas 1e-3,1e-2 "$@" --json "$out/bar_b$blk.json" \
      --md "$out/bar_b$blk.md" > "$out/bar_b$blk.log" 2>&1 || echo "b$blk failed"
  cat "$out/bar_b$blk.md" 2>/dev/null
  tar czf "$dir/$name.tgz" -C "$dir" "$name" && rm -r "$out"
}
case "$1" in
build)
  python3 bench/gpu/build_attention.py --skip --wgmma --out-dir build-gpu/att_full
  python3 bench/blasst/bench_skip_decode.py build --out-dir build-gpu/skip_decode
  rm -rf $Q && slim build-gpu/att_full $Q/att && slim build-gpu/skip_decode $Q/skip_decode
  bash bench/gpu/reread_reverse.sh build && slim build-gpu/reread $Q/reread
  bash bench/gpu/vocab_defaults.sh build && slim build-gpu/verify $Q/verify
  python3 test/Runtime/device/build-gpu-tests.py --out $Q/tests test/Runtime/softmax-streamed-gpu.test
  du -sh $Q ;;
a)
  # skip_values = with_keys (_wk) checked against float64, then timed
  # beside after_vote on the same inputs: the warp tile and [64, 64].
  bar "$2" a 64 "0 64" --overhead-nc ;;
a2)
  # The same for [128, 64] (two warpgroups).
  bar "$2" a2 128 128 ;;
b)
  OUT=$2; mkdir -p "$OUT/b"
  nvidia-smi --query-gpu=name --format=csv,noheader | tee "$OUT/b/device.txt"
  python3 $Q/tests/run-gpu-tests.py > "$OUT/b/gpu_tests.log" 2>&1 || echo "GPU tests failed"
  tail -3 "$OUT/b/gpu_tests.log"
  timeout 200 python3 bench/blasst/bench_skip_decode.py run --lib-dir $Q/skip_decode \
      --out "$OUT/b/skip_decode" > "$OUT/b/skip_decode.log" 2>&1 || echo "decode skip failed"
  tail -3 "$OUT/b/skip_decode.log"
  LIB=$Q/reread bash bench/gpu/reread_reverse.sh run "$OUT/b"
  LIB=$Q/verify bash bench/gpu/vocab_defaults.sh run "$OUT/b"
  grep -h -E "^\| (softmax|log_softmax|logsumexp) +\| [0-9]" "$OUT"/b/reread_*/gpu_softmax.md | cut -c1-150
  tar czf "$OUT/b.tgz" -C "$OUT" b && rm -r "$OUT/b" ;;
esac

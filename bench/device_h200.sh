#!/bin/bash
# Everything NEXT_DEVICE_RUN.md still needs from an H200, as one call of
# under ten minutes (about 4 on an H100), most important first:
#   item 00: the cache-hint A/B and sweep (issue 15's softmax bar),
#   item 0:  issue 13's bar run with the current kernels (device_queue a).
# Here:   bash bench/device_h200.sh build     (build-gpu/cs and build-gpu/q/att, ~2 min)
# Device: bash bench/device_h200.sh run       (carry build-gpu/cs, build-gpu/q)
# Item 0b, the CE forward before and after the branched fold (a second
# call, about 3 minutes): `ce-build` here (build-gpu/ce_new, ce_old: the
# fold before 5d9b8ec), `ce` there (carry both).
set -u
if [ "$1" = ce-build ]; then
  B=ce_bf16_8192_2048_128256,ce_bf16_8192_4096_128256,ce_bf16_8192_2048_256000,ce_bf16_8192_4096_256000
  M=lib/Conversion/SoftmaxToGPU/Mapping
  git diff --quiet HEAD -- $M || { echo "$M has uncommitted changes"; exit 1; }
  python3 bench/gpu/bench_cross_entropy.py build --out-dir build-gpu/ce_new &&
  git checkout -q 47eee42 -- $M && ninja -C build bin/softmax-opt >/dev/null &&
  python3 bench/gpu/bench_cross_entropy.py build --out-dir build-gpu/ce_old --only $B --chips sm_90a
  rc=$?; git checkout -q HEAD -- $M; ninja -C build >/dev/null
  rm -f build-gpu/ce_*/*.ll build-gpu/ce_*/*.mlir; exit $rc
fi
if [ "$1" = ce ]; then
  export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
  nvidia-smi --query-gpu=name --format=csv,noheader
  timeout 150 python3 bench/gpu/bench_cross_entropy.py run --lib-dir build-gpu/ce_new --no-time \
    --out $OUT/check > $OUT/check.log 2>&1; echo "checks passed: $(grep -c ^PASS $OUT/check.log)"
  timeout 300 python3 bench/gpu/ce_forward_ab.py --a build-gpu/ce_old --b build-gpu/ce_new \
    --out $OUT/ab 2>&1 | tail -8
  exit 0
fi
# Issue 13's two H200 targets in one call (NEXT_DEVICE_RUN.md, item 0):
# the bar run, then the nothing-skipped cost timed by interleaved rounds
# against the same library's dense kernels (carry build-gpu/q).
if [ "$1" = bar13 ]; then
  export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
  nvidia-smi --query-gpu=name --format=csv,noheader
  timeout 300 bash bench/device_queue.sh a $OUT || echo "bar run failed or ran out of time"
  mkdir -p $OUT/o
  timeout 250 python3 bench/blasst/overhead_ab.py --libs main=build-gpu/q/att \
    --kernels _wg_wk,_wg_wk_nc,_wg64,_wg64_nc --lens 16384,32768 --causal 1,0 --rounds 7 \
    --json $OUT/o/ab.json --md $OUT/o/ab.md > $OUT/o/ab.log 2>&1 || echo "A/B failed: $(tail -2 $OUT/o/ab.log)"
  cat $OUT/o/ab.md
  exit 0
fi
if [ "$1" = build ]; then
  bash bench/gpu/cache_hints.sh build && bash bench/gpu/cache_hints.sh sweep-build &&
  python3 bench/gpu/build_attention.py --skip --wgmma --out-dir build-gpu/att_full &&
  rm -rf build-gpu/q/att && mkdir -p build-gpu/q/att &&
  cp build-gpu/att_full/*.so build-gpu/att_full/*.json build-gpu/q/att/ &&
  du -sh build-gpu/cs build-gpu/q; exit $?
fi
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name --format=csv,noheader
# The device returns at most eight files: one tarball per step.
mkdir -p $OUT/hints && OUT=$OUT/hints bash bench/gpu/cache_hints.sh run &&
  OUT=$OUT/hints bash bench/gpu/cache_hints.sh sweep
tar czf $OUT/hints.tgz -C $OUT hints && rm -r $OUT/hints
timeout 400 bash bench/device_queue.sh a $OUT || echo "bar run failed or ran out of time"

#!/bin/bash
# Everything NEXT_DEVICE_RUN.md still needs from an H200, as one call of
# under ten minutes (about 4 on an H100), most important first:
#   item 00: the cache-hint A/B and sweep (issue 15's softmax bar),
#   item 0:  issue 13's bar run with the current kernels (device_queue a).
# Here:   bash bench/device_h200.sh build     (build-gpu/cs and build-gpu/q/att, ~2 min)
# Device: bash bench/device_h200.sh run       (carry build-gpu/cs, build-gpu/q)
set -u
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

#!/bin/bash
# The cluster merge as the default for few peeled rows (at most 8 chunks),
# against the same plans forced to merge through global memory, in one
# process each, twice; then the streamed/cached odd-row GPU runtime test
# (bench/results/peeled_mask/README.md).
#   here:   python3 scripts/build-kernel-library.py --out-dir build-gpu/peel_default \
#             OP:DT:SHAPE OP:DT:SHAPE:online:gl:M=global ...   (the shapes below)
#           python3 test/Runtime/device/build-gpu-tests.py --out build-gpu/tests-peel \
#             test/Runtime/softmax-streamed-gpu.test
#   device: bash bench/gpu/peeled_default_check.sh $OUT  (carry both)
set -u
out=$1
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 120 python3 build-gpu/tests-peel/run-gpu-tests.py > $out/gpu_tests.txt 2>&1
tail -3 $out/gpu_tests.txt
for round in 1 2; do
  timeout 150 python3 bench/gpu/bench_softmax.py --lib-dir build-gpu/peel_default \
    --out $out/r$round --shapes 1x50257,8x50257,32x50257,64x50257,16x60001 \
    --dtypes bf16,f32 --ops softmax,log_softmax --only ours --iters 200 \
    > $out/r$round.log 2>&1 || echo "round $round: exit $?"
done
python3 - "$out" <<'PY' | tee $out/summary.md
import json, sys, collections
t, ok = collections.defaultdict(list), collections.Counter()
for rnd in ("r1", "r2"):
    for r in json.load(open(f"{sys.argv[1]}/{rnd}/gpu_softmax.json"))["results"]:
        if "time" in r:
            t[r["op"], r["shape"], r["dtype"], r["kernel"]].append(r["time"]["median_us"])
            ok[r["status"]] += 1
print("| op | shape | dtype | cluster (default) us | global us | cluster / global |")
print("|---|---|---|---|---|---|")
for (op, sh, dt, k), v in sorted(t.items()):
    g = t.get((op, sh, dt, "ours:gl"))
    if k == "ours" and g:
        print("| %s | %s | %s | %s | %s | %.3f |" % (op, sh, dt, " / ".join("%.1f" % x for x in v),
              " / ".join("%.1f" % x for x in g), min(v) / min(g)))
print(dict(ok))
PY
tar czf $out/runs.tgz -C $out r1 r2 r1.log r2.log && rm -rf $out/r1 $out/r2 $out/r1.log $out/r2.log

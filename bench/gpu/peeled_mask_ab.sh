#!/bin/bash
# The cached peeled rows' lane mask before (build-gpu/peel_old, main at
# 5fb0aee) and after (build-gpu/peel_new): the two libraries timed one after
# the other, twice, on one device, each kernel float64-checked on random and
# hostile rows (bench/results/peeled_mask/README.md).
#   here:   python3 scripts/build-kernel-library.py --out-dir build-gpu/peel_{old,new} $(cat SPECS)
#   device: bash bench/gpu/peeled_mask_ab.sh $OUT     (carry build-gpu/peel_old, build-gpu/peel_new)
# OLD, NEW, SHAPES and DTYPES name other libraries and cases (the second
# run: build-gpu/odd_{old,new}, odd rows of 256 and 4096).
set -u
out=$1
OLD=${OLD:-build-gpu/peel_old} NEW=${NEW:-build-gpu/peel_new}
SHAPES=${SHAPES:-64x50257,32x128257,8x50257,4000x4097,1000x1031,1024x50257}
DTYPES=${DTYPES:-bf16,f32}
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name --format=csv,noheader
for round in 1 2; do
  for lib in old new; do
    dir=$OLD; [ $lib = new ] && dir=$NEW
    timeout 140 python3 bench/gpu/bench_softmax.py --lib-dir $dir \
      --out $out/${lib}_$round --shapes $SHAPES \
      --dtypes $DTYPES --ops softmax,log_softmax --only ours --iters 200 \
      > $out/${lib}_$round.log 2>&1 || echo "$lib round $round: exit $?"
    grep -c "ok" $out/${lib}_$round.log
  done
done
python3 - "$out" <<'PY' | tee $out/summary.md
import json, sys, glob, collections
t = collections.defaultdict(list)
ok = collections.Counter()
for f in sorted(glob.glob(sys.argv[1] + "/*_[12]/gpu_softmax.json")):
    lib = f.split("/")[-2].split("_")[0]
    for r in json.load(open(f))["results"]:
        if not r["kernel"].startswith("ours") or "time" not in r:
            continue
        key = (r["op"], r["shape"], r["dtype"], r["kernel"])
        t[key, lib].append(r["time"]["median_us"])
        ok[lib, r["status"]] += 1
print("| op | shape | dtype | kernel | old us | new us | new/old |")
print("|---|---|---|---|---|---|---|")
for key in sorted({k for k, _ in t}):
    o, n = t.get((key, "old"), []), t.get((key, "new"), [])
    if o and n:
        r = min(n) / min(o)
        print("| %s | %s | %s | %s | %s | %s | %.3f |" % (*key, " / ".join("%.1f" % x for x in o),
              " / ".join("%.1f" % x for x in n), r))
print(dict(ok))
PY
# The device returns at most eight files.
tar czf $out/runs.tgz -C $out old_1 new_1 old_2 new_2 old_1.log new_1.log old_2.log new_2.log &&
  rm -rf $out/{old,new}_[12] $out/{old,new}_[12].log

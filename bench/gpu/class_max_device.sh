#!/bin/bash
# On the device (bench/results/NEXT_DEVICE_RUN.md, item 0b): the GPU tests
# built into build-gpu/tests-cm, then bench_cross_entropy_grad.py on each
# shape with and without class_max (build-gpu/cem, built with --class-max)
# into $OUT/cem_<inputs>.tgz.
#   bash bench/gpu/class_max_device.sh zipf|flat [seconds]
#   bash bench/gpu/class_max_device.sh all [seconds]   # zipf, then issue 13's
#                                            # causal A/B (build-gpu/q2) on an H200
set -u
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
mode=${1:-zipf}
if [ "$mode" = all ]; then
  start=$(date +%s)
  budget=${2:-575}   # seconds this call may take
  bash "$0" zipf $(( budget * 2 / 3 - 130 ))
  el=$(( $(date +%s) - start ))
  echo "elapsed $el s"
  if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && [ $el -lt $(( budget - 150 )) ]; then
    R=$OUT/r5; mkdir -p $R
    rounds=7; [ $el -lt 250 ] && rounds=11
    timeout $(( budget - el - 10 )) python3 bench/blasst/overhead_ab.py \
      --libs base=build-gpu/q2/base,lane=build-gpu/q2/lane --kernels _wg_wk,_wg_wk_nc \
      --lens 16384,32768 --causal 1,0 --rounds $rounds --json $R/ab.json --md $R/ab.md \
      > $R/ab.log 2>&1 || echo "ab failed"
    cat $R/ab.md; tail -3 $R/ab.log
    tar czf $OUT/r5.tgz -C $OUT r5 && rm -r $R
  fi
  exit 0
fi
R=$OUT/cem_$mode; mkdir -p $R
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/device.txt
K=g_300_72_1031_cm_sm90a
for s in ${CEM_SHAPES:-g_8192_2048_128256 g_8192_4096_128256 g_8192_2048_256000 g_8192_4096_256000}; do
  K=$K,${s}_sm90a,${s}_cm_sm90a
done
timeout 300 python3 -u build-gpu/tests-cm/run-gpu-tests.py > $R/gpu_tests.txt 2>&1
tail -25 $R/gpu_tests.txt
timeout ${2:-540} python3 bench/gpu/bench_cross_entropy_grad.py run --inputs $mode \
  --lib-dir build-gpu/cem --out $R --reps 20 --only $K > $R/log.txt 2>&1 || echo "run failed rc=$?"
grep -E '^(PASS|FAIL)' $R/log.txt | cut -c1-400
cat $R/cross_entropy_grad.md 2>/dev/null
tail -5 $R/log.txt
tar czf $OUT/cem_$mode.tgz -C $OUT cem_$mode && rm -r $R

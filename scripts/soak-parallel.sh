#!/usr/bin/env bash
# Issue 12's two long runs side by side on a many-core machine: P
# differential-soak processes (test/Integration/lib/diff_soak.py, each from
# its own random seed) and J libFuzzer workers (softmax-fuzz, one shared
# corpus), for about S seconds. On this 2-core machine the 10^5 programs
# and 10^6 inputs take 3-4 hours each; bench/results/diff_soak.md and
# fuzz.md say where they were run and how.
#
#   bash scripts/soak-parallel.sh S P J OUTDIR
#
# Env: SOFTMAX_OPT (build/bin/softmax-opt), SOFTMAX_FUZZ
# (build-asan/bin/softmax-fuzz), FUZZ_SEEDS (build-asan/fuzz/seeds, which
# scripts/fuzz.sh writes), SOFTMAX_LLVM_PREFIX (mlir-runner and its
# libraries, /usr/lib/llvm-22 by default), PYTHON (python3). P or J may be 0.
# Writes OUTDIR/soak-N.log, OUTDIR/fuzz/ (fuzz-N.log, artifacts/) and
# OUTDIR/summary.txt; the exit status is non-zero on any failure.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
seconds=${1:?seconds} procs=${2:?soak processes} jobs=${3:?fuzz workers}
out=$(mkdir -p "${4:?out dir}" && cd "$4" && pwd)
opt=$(realpath "${SOFTMAX_OPT:-build/bin/softmax-opt}")
fuzzer=$(realpath "${SOFTMAX_FUZZ:-build-asan/bin/softmax-fuzz}")
seeds=$(realpath "${FUZZ_SEEDS:-build-asan/fuzz/seeds}")
py=${PYTHON:-python3}

pids=()
for ((i = 0; i < procs; i++)); do
  # A module drawn with threads=0 takes the OpenMP runtime's choice, one
  # thread per core: P processes of 128 threads each on 128 cores would
  # time out, so each process gets 2, as on the 2-core machine.
  # --time-limit starts no module after the limit; a module takes up to
  # about 30 s here.
  OMP_NUM_THREADS=2 "$py" test/Integration/lib/diff_soak.py --seed random \
    --time-limit "$((seconds - 45))" --softmax-opt "$opt" -v \
    > "$out/soak-$i.log" 2>&1 &
  pids+=($!)
done
if ((jobs > 0)); then
  mkdir -p "$out/fuzz/corpus" "$out/fuzz/artifacts"
  # The same flags as scripts/fuzz.sh (its comments say why).
  (cd "$out/fuzz" && ASAN_OPTIONS=allow_user_poisoning=0:detect_leaks=0 \
    "$fuzzer" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 \
    -detect_leaks=0 -jobs="$jobs" -workers="$jobs" \
    -artifact_prefix="$out/fuzz/artifacts/" -print_final_stats=1 \
    corpus "$seeds" > fuzz.log 2>&1) &
  pids+=($!)
fi
for p in "${pids[@]}"; do wait "$p"; done

{
  programs=0 failed=0
  for ((i = 0; i < procs; i++)); do
    last=$(grep -E '^(PASS|FAIL):' "$out/soak-$i.log" | tail -1)
    echo "soak-$i: ${last:-no summary line (crashed?)}"
    n=$(sed -nE 's/^(PASS|FAIL)[^0-9]*( [0-9]+ failures?, )?([0-9]+) programs checked.*/\3/p' \
      <<< "$last")
    programs=$((programs + ${n:-0}))
    [[ "$last" == PASS:* ]] || failed=$((failed + 1))
  done
  units=0
  for f in "$out"/fuzz/fuzz-*.log; do
    [[ -f "$f" ]] || continue
    n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$f" | tail -1)
    echo "$(basename "$f"): ${n:-no final stats} inputs"
    units=$((units + ${n:-0}))
  done
  findings=$(find "$out/fuzz/artifacts" -type f 2>/dev/null | wc -l)
  echo "total: $programs soak programs in $procs processes, $failed failing;" \
    "$units fuzz inputs in $jobs workers, $findings findings"
} > "$out/summary.txt"
cat "$out/summary.txt"
tail -1 "$out/summary.txt" | grep -q " 0 failing; .* 0 findings$"

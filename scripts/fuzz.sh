#!/usr/bin/env bash
# Runs the libFuzzer target softmax-fuzz (tools/softmax-fuzz) of an ASan
# build configured with -DSOFTMAX_ENABLE_FUZZER=ON (scripts/test.sh's
# build-asan is).
#
#   bash scripts/fuzz.sh SECONDS [BUILD_DIR] [JOBS]
#
# The seed corpus is every split of every .mlir test file, each behind a
# 10-byte header (mode 0 = MLIR text, a pipeline and option bytes taken from
# the split's position), plus generator seeds (mode 1). Findings land in
# $FUZZ_DIR/artifacts (crash-*, timeout-*, oom-*); each becomes a
# regression test. The soak: bash scripts/fuzz.sh 14400 build-asan 2.
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=${2:-build-asan}
jobs=${3:-1}
fuzz=${FUZZ_DIR:-$build/fuzz}
mkdir -p "$fuzz/corpus" "$fuzz/seeds" "$fuzz/artifacts"
/usr/bin/python3 - "$fuzz/seeds" "$build/bin/softmax-opt" <<'PY'
import hashlib, pathlib, subprocess, sys
out, opt = pathlib.Path(sys.argv[1]), sys.argv[2]
n = 0
for f in sorted(pathlib.Path("test").rglob("*.mlir")):
    # The generic form (upstream ops quoted: softmax-fuzz.cpp's
    # onlyOpsWeFuzz); a file that does not parse as a whole is left out.
    r = subprocess.run([opt, str(f), "-split-input-file", "--mlir-print-op-generic",
                        "-allow-unregistered-dialect"], capture_output=True, text=True,
                       env={"ASAN_OPTIONS": "allow_user_poisoning=0:detect_leaks=0"})
    if r.returncode != 0:
        continue
    for i, chunk in enumerate(r.stdout.split("// -----")):
        h = hashlib.sha256(f"{f}:{i}".encode()).digest()
        header = bytes([0]) + h[:9]  # text mode, pipeline, option bytes
        (out / f"t{n:05d}").write_bytes(header + chunk.encode())
        n += 1
for g in range(64):
    h = hashlib.sha256(f"gen:{g}".encode()).digest()
    (out / f"g{g:03d}").write_bytes(bytes([1]) + h)
print(f"fuzz.sh: {n} text seeds, 64 generator seeds")
PY
# -timeout: an input that runs 20 s is a hang; the pipelines compile, they
# never run what they compile.
# detect_leaks=0 (ASan's and libFuzzer's): the target keeps one context and
# its pass managers for the process (MLIR's uniquers grow across inputs by
# design), so libFuzzer would run almost every input a second time looking
# for a leak (14% of the time); leaks are the lit suite's job.
parallel=()
if [[ "$jobs" -gt 1 ]]; then
  parallel=(-jobs="$jobs" -workers="$jobs")
fi
ASAN_OPTIONS=allow_user_poisoning=0:detect_leaks=0 \
  "$build/bin/softmax-fuzz" -max_total_time="$seconds" -timeout=20 \
  -rss_limit_mb=4096 -detect_leaks=0 "${parallel[@]}" \
  -artifact_prefix="$fuzz/artifacts/" -print_final_stats=1 \
  "$fuzz/corpus" "$fuzz/seeds" > "$fuzz/log" 2>&1
rc=$?
tail -20 "$fuzz/log"
exit $rc

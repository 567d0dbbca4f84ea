#!/usr/bin/env bash
# Builds and runs every test suite of softmax-mlir:
#   1. scripts/setup.sh (packages, configure + build build/);
#   2. the lit suite on build/test;
#   3. pytest on python/tests (when that directory exists);
#   4. an ASan+UBSan build in build-asan/ and the lit suite again on it,
#      then a 60 s libFuzzer run of its softmax-fuzz (scripts/fuzz.sh).
# The last line printed is exactly "N passed, N failed, N skipped" over all
# suites; the exit status is non-zero when anything failed. Only tests that
# need a GPU (lit features cuda-gpu, amd-gpu) may be skipped: any other test
# that lit reports unsupported (a tool or package missing on a CPU-only
# machine) counts as failed, so a missing install step cannot hide behind
# "unsupported".
# (build/ and build-asan/ are $SOFTMAX_BUILD_DIR and $SOFTMAX_ASAN_BUILD_DIR
# when set, see scripts/common.sh.)
# Usage: bash scripts/test.sh
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/common.sh

LIT=$LLVM_PREFIX/bin/lit
LOGDIR=$BUILD_DIR/test-logs
TOTAL_PASSED=0
TOTAL_FAILED=0
TOTAL_SKIPPED=0

bash scripts/setup.sh || { echo "test.sh: setup failed"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
mkdir -p "$LOGDIR"

# run_lit NAME BUILD_DIR: runs lit -sv -j2 on BUILD_DIR/test and adds its
# counts. Failed, Unresolved, Timed Out and Unexpectedly Passed count as
# failed; Passed (and Passed With Retry) as passed; Expectedly Failed as
# neither. An Unsupported test is skipped when it needs a GPU, is not counted
# in the ASan run when it is `UNSUPPORTED: asan` (it ran in build/), and
# fails otherwise. No summary at all (lit could not start) counts as one
# failure.
run_lit() {
  local name=$1 dir=$2 log="$LOGDIR/lit-$1.log"
  echo "=== lit: $name ($dir/test) ==="
  /usr/bin/python3 "$LIT" -sv -j2 --show-unsupported "$dir/test" 2>&1 | tee "$log"
  local counts
  counts=$(/usr/bin/python3 - "$log" "$name" <<'PY'
import re, sys
GPU_FEATURES = {"cuda-gpu", "amd-gpu"}
passed = failed = skipped = 0
seen = False
log, suite = sys.argv[1], sys.argv[2]
unsupported = []
listing = False
for line in open(log, errors="replace"):
    # lit -sv --show-unsupported lists them in a block:
    #   Unsupported Tests (N):
    #     SUITE :: path/to/test
    if re.search(r"Unsupported Tests \(\d+\):", line):
        listing = True
        continue
    if listing:
        u = re.match(r"^\s+\S+ :: (\S+)\s*$", line)
        if u:
            unsupported.append(u.group(1))
            continue
        listing = False
    m = re.match(r"^\s+([A-Za-z ]+?)\s*:\s*(\d+)\s+\(", line)
    if not m:
        if line.startswith("Total Discovered Tests:"):
            seen = True
        continue
    label, n = m.group(1), int(m.group(2))
    if label in ("Passed", "Passed With Retry"):
        passed += n
    elif label in ("Failed", "Unresolved", "Timed Out", "Unexpectedly Passed"):
        failed += n
for test in unsupported:
    path = "test/" + test
    try:
        text = open(path, errors="replace").read()
    except OSError:
        text = ""
    feats = set()
    for m in re.finditer(r"(?:REQUIRES|UNSUPPORTED):(.*)", text):
        feats |= {f.strip() for f in m.group(1).split(",")}
    if feats & GPU_FEATURES:
        skipped += 1
    elif suite == "asan" and "asan" in feats:
        print(f"test.sh: {path}: not run under ASan (ran in build/)",
              file=sys.stderr)
    else:
        failed += 1
        print(f"test.sh: {path}: unsupported on this machine but needs "
              f"no GPU: counted as failed (a set-up step is missing)",
              file=sys.stderr)
print(passed, failed if seen else failed + 1, skipped)
PY
)
  read -r p f k <<<"$counts"
  echo "--- lit $name: $p passed, $f failed, $k skipped"
  TOTAL_PASSED=$((TOTAL_PASSED + p))
  TOTAL_FAILED=$((TOTAL_FAILED + f))
  TOTAL_SKIPPED=$((TOTAL_SKIPPED + k))
}

# run_pytest DIR: /usr/bin/python3 -m pytest on DIR, adds its counts
# (failed, errors and skipped count as failed: none of them needs a GPU).
# "no tests ran" counts as nothing.
run_pytest() {
  local dir=$1 log="$LOGDIR/pytest.log"
  echo "=== pytest: $dir ==="
  SOFTMAX_OPT="$PWD/$BUILD_DIR/bin/softmax-opt" /usr/bin/python3 -m pytest -p no:cacheprovider -q "$dir" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  local counts
  counts=$(/usr/bin/python3 - "$log" "$rc" <<'PY'
import re, sys
text = open(sys.argv[1], errors="replace").read()
rc = int(sys.argv[2])
# The last summary line, e.g. "3 passed, 1 failed, 2 errors in 0.50s".
lines = [l for l in text.splitlines() if re.search(r"\b(passed|failed|errors?|no tests ran)\b.* in [\d.]+s", l)]
passed = failed = 0
if lines:
    for n, what in re.findall(r"(\d+) (passed|failed|errors?|skipped)\b", lines[-1]):
        if what == "passed":
            passed += int(n)
        else:
            # No Python test needs a GPU: a skip means a missing package.
            failed += int(n)
if rc not in (0, 5) and failed == 0:
    failed = 1  # pytest itself failed (usage error, crash, interrupted)
print(passed, failed)
PY
)
  read -r p f <<<"$counts"
  echo "--- pytest: $p passed, $f failed"
  TOTAL_PASSED=$((TOTAL_PASSED + p))
  TOTAL_FAILED=$((TOTAL_FAILED + f))
}

# 1. The regular build (built by setup.sh), plus what only the tests need
# (softmax-test-depends: generated docs, ...).
if ninja -C "$BUILD_DIR" -j"$(nproc)" softmax-test-depends; then
  run_lit build "$BUILD_DIR"
else
  echo "--- $BUILD_DIR: building the test dependencies failed"
  TOTAL_FAILED=$((TOTAL_FAILED + 1))
fi

# 2. Python tests.
if [[ -d python/tests ]]; then
  run_pytest python/tests
fi

# 3. ASan + UBSan. Release with line tables: optimised code keeps the build
# and the tests fast, -gline-tables-only gives symbolised reports for little
# compile time. Everything is built (all, plus softmax-test-depends).
# libMLIR.so and libLLVM.so are not instrumented; that needs only
# allow_user_poisoning=0 (test/lit.cfg.py says why): ASan replaces
# malloc/new for the whole process, and LeakSanitizer finds no
# leaks in MLIR's registries, which stay reachable through globals (see
# test/lit.cfg.py; detect_leaks=0 would go there). Tests that dlopen an
# instrumented library into an uninstrumented tool (the plugin in stock
# mlir-opt) or link an outside project against the build are
# `UNSUPPORTED: asan`.
# The same build carries libFuzzer coverage and the softmax-fuzz target
# (4. below).
echo "=== build-asan ==="
if configure_build "$ASAN_BUILD_DIR" -DSOFTMAX_ENABLE_SANITIZERS=ON \
     -DSOFTMAX_ENABLE_FUZZER=ON \
     -DCMAKE_CXX_FLAGS=-gline-tables-only -DCMAKE_C_FLAGS=-gline-tables-only \
   && ninja -C "$ASAN_BUILD_DIR" -j"$(nproc)" all softmax-test-depends; then
  run_lit asan "$ASAN_BUILD_DIR"
  # 4. A bounded fuzzing run (scripts/fuzz.sh; its soak is documented
  # there): one test, failed by any crash, hang or sanitizer report.
  echo "=== fuzz: 60 s ==="
  if FUZZ_DIR="$ASAN_BUILD_DIR/fuzz" bash scripts/fuzz.sh 60 "$ASAN_BUILD_DIR"; then
    TOTAL_PASSED=$((TOTAL_PASSED + 1))
  else
    echo "--- fuzz: a finding, see $ASAN_BUILD_DIR/fuzz/artifacts"
    TOTAL_FAILED=$((TOTAL_FAILED + 1))
  fi
else
  echo "--- build-asan: build failed"
  TOTAL_FAILED=$((TOTAL_FAILED + 1))
fi

echo "${TOTAL_PASSED} passed, ${TOTAL_FAILED} failed, ${TOTAL_SKIPPED} skipped"
[[ "$TOTAL_FAILED" -eq 0 ]]

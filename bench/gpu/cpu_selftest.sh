#!/usr/bin/env bash
# Tests bench_softmax.py without a GPU: the pure-Python self-test, then a
# --device cpu run against host-only stand-ins of our two libraries
# (testdata/fake_*.c). The fakes include a kernel that leaves a column
# unwritten and one that records a runtime error: both must be reported as
# failures, so the run must exit 1. Needs a C compiler and a python3 with
# torch (PYTHON=... to choose one) for the second part.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}
"$py" "$here/bench_softmax.py" --self-test
if ! "$py" -c 'import torch' 2>/dev/null; then
  echo "cpu_selftest: $py has no torch; skipping the --device cpu run"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc=${CC:-cc}
"$cc" -O2 -shared -fPIC -o "$tmp/libsoftmax_cuda_runtime.so" "$here/testdata/fake_runtime.c"
"$cc" -O2 -shared -fPIC -o "$tmp/libsoftmax_kernels.so" "$here/testdata/fake_kernels.c" \
  -L"$tmp" -lsoftmax_cuda_runtime -Wl,-rpath,"$tmp" -lm
set +e
"$py" "$here/bench_softmax.py" --device cpu --lib-dir "$tmp" --out "$tmp/out" --ops all \
  --iters 3 "$@"
rc=$?
set -e
python3 - "$tmp/out/gpu_softmax.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
st = {(r["op"], r["shape"], r["dtype"], r["kernel"]): r["status"] for r in doc["results"]}
want = {
    ("softmax", "64x1000", "f32", "ours"): "ok",
    ("softmax", "64x1000", "bf16", "ours"): "ok",
    ("log_softmax", "64x1000", "f32", "ours"): "ok",
    ("logsumexp", "64x1000", "f32", "ours"): "ok",
    ("logsumexp", "64x1000", "bf16", "ours"): "ok",
    ("log_softmax", "64x1000", "bf16", "ours"): "not built",
    ("softmax", "16x4096", "f32", "ours"): "ok",
    ("softmax", "16x4096", "f32", "ours:broken"): "fail",
    ("softmax", "16x4096", "bf16", "ours:error"): "error",
    ("softmax", "64x1000", "f32", "torch"): "ok",
    ("softmax", "16x4096", "f32", "torch"): "ok",
}
bad = {k: (st.get(k), v) for k, v in want.items() if st.get(k) != v}
assert not bad, f"unexpected statuses (got, want): {bad}"
assert doc["complete"] and doc["exit_code"] == 1, (doc["complete"], doc["exit_code"])
print(f"cpu_selftest: {len(want)} statuses as expected")
PY
if [ "$rc" -ne 1 ]; then echo "cpu_selftest: expected exit 1, got $rc"; exit 1; fi
echo "cpu_selftest: ok"

#!/usr/bin/env bash
# Runs, on a machine with a CUDA GPU (no MLIR needed), the programs that
# build-bundle.sh made: the add-one executables (sync and async mode, PTX JIT
# and cubin) and, when PyTorch is importable, torch_stream.py (the stream
# override on torch's streams, timed with CUDA events).
# Usage: run-bundle.sh [bundle-dir]   (default: this script's directory)
set -uo pipefail

bundle=$(cd "${1:-$(dirname "$0")}" && pwd)
status=0
for exe in add-one-ptx.exe add-one-cubin.exe; do
  echo "== $exe"
  if ! "$bundle/$exe"; then
    echo "FAILED: $exe"
    status=1
  fi
done
python=${PYTHON:-python3}
if "$python" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null; then
  echo "== torch_stream.py"
  if ! "$python" "$bundle/torch_stream.py" "$bundle"; then
    echo "FAILED: torch_stream.py"
    status=1
  fi
else
  echo "== torch_stream.py skipped (no PyTorch with CUDA)"
fi
if [[ $status == 0 ]]; then echo "run-bundle: ALL PASSED"; else echo "run-bundle: FAILURES"; fi
exit $status

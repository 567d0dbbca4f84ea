#!/usr/bin/env bash
# Runs scripts/soak-parallel.sh on a machine without Debian's LLVM 22 (the
# device host: Ubuntu 24.04, 16 cores; tools/device), from binaries and
# libraries built and packed here. Packing, on this machine:
#
#   R=/tmp/llvmpkg/llvm-22; mkdir -p $R/bin $R/lib
#   cp -L /usr/lib/llvm-22/bin/mlir-runner $R/bin/
#   cp -L /usr/lib/llvm-22/lib/{libMLIR,libLLVM,libmlir_c_runner_utils,\
#     libmlir_runner_utils,libmlir_float16_utils,libmlir_apfloat_wrappers}.so.22.1 \
#     /usr/lib/llvm-22/lib/libomp.so $R/lib/
#   (cd $R/lib && for l in libmlir_c_runner_utils libmlir_runner_utils; do
#     ln -s $l.so.22.1 $l.so; done; ln -s libomp.so libomp.so.5)
#   # libLLVM's Debian dependencies, which Ubuntu lacks or has at other versions:
#   cp -L /lib/x86_64-linux-gnu/{libffi.so.8,libedit.so.2,libz3.so.4,libzstd.so.1,\
#     libxml2.so.2,libtinfo.so.6,libbsd.so.0,libicuuc.so.72,libicudata.so.72,\
#     liblzma.so.5,libmd.so.0,libz.so.1} $R/lib/
#   tar cJf /tmp/rt.tar.xz -C /tmp/llvmpkg llvm-22       # about 63 MB
#   mkdir -p build-dev build-dev-a; split -b 40000000 /tmp/rt.tar.xz build-dev/rt.part
#   mv build-dev/rt.partaa build-dev-a/
#   tar cJf build-dev/bins.tar.xz -C build/bin softmax-opt \
#     -C ../../build-asan/bin softmax-fuzz -C ../fuzz seeds
#
# A call carries 64 MiB with the tree, so the runtime travels in two calls
# to one warm machine: the first carries build-dev-a and copies
# rt.partaa to /tmp/dev; the second carries build-dev (this script copied
# into it) and runs, within the 30 s the machine stays warm:
#
#   bash build-dev/soak-device.sh unpack && bash build-dev/soak-device.sh run S P J
set -uo pipefail
D=/tmp/dev
case "${1:-}" in
unpack)
  a=$(ls build-rt/rt.partaa $D/rt.partaa 2>/dev/null | head -1)
  [[ -n "$a" ]] || { echo "soak-device: no rt.partaa (carry build-dev-a first)"; exit 1; }
  mkdir -p $D && cat "$a" build-dev/rt.partab | tar xJf - -C $D || exit 1
  tar xJf build-dev/bins.tar.xz -C $D || exit 1
  mv $D/softmax-opt $D/softmax-fuzz $D/llvm-22/bin/
  # Our binaries find libMLIR and libLLVM through their RUNPATH
  # ($ORIGIN/../lib), but libxml2 finds ICU only through the search path.
  mkdir -p $D/bin
  for t in softmax-opt softmax-fuzz mlir-runner; do
    printf '#!/bin/sh\nLD_LIBRARY_PATH=%s/llvm-22/lib exec %s/llvm-22/bin/%s "$@"\n' \
      $D $D $t > $D/bin/$t
    chmod +x $D/bin/$t
  done
  $D/bin/softmax-opt --version | head -3
  ;;
run)
  export SOFTMAX_OPT=$D/bin/softmax-opt SOFTMAX_FUZZ=$D/bin/softmax-fuzz \
    MLIR_RUNNER=$D/bin/mlir-runner SOFTMAX_LLVM_PREFIX=$D/llvm-22 FUZZ_SEEDS=$D/seeds
  bash scripts/soak-parallel.sh "$2" "$3" "$4" "$OUT/run"
  rc=$?
  # The fuzz logs' tails only: their per-input lines are long.
  for f in "$OUT"/run/fuzz/fuzz-*.log; do
    [[ -f "$f" ]] && tail -40 "$f" > "$f.tail" && rm "$f"
  done
  rm -rf "$OUT/run/fuzz/corpus"
  exit $rc
  ;;
*)
  echo "usage: soak-device.sh unpack | run SECONDS SOAK_PROCS FUZZ_WORKERS" >&2
  exit 2
  ;;
esac

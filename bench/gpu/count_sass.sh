#!/bin/bash
# SASS instruction classes of the attention kernels, for the gap report in
# bench/results/gpu_attention.md. Here (no nvdisasm on this machine):
#   mkdir -p build-gpu/sass && for f in build-gpu/attention/*.ptx; do
#     /usr/local/cuda/bin/ptxas -arch=sm_90 -O3 $f -o build-gpu/sass/$(basename $f .ptx).cubin; done
# then on the device machine (carry build-gpu/sass): bash bench/gpu/count_sass.sh
# It uses the nvdisasm that Triton ships and writes each listing to $OUT.
set -euo pipefail
dir=${1:-build-gpu/sass}
bin=$(python3 -c "import triton, os; print(os.path.join(os.path.dirname(triton.__file__), 'backends', 'nvidia', 'bin'))")
out=${OUT:-/tmp}
for c in "$dir"/*.cubin; do
  n=$(basename "$c" .cubin)
  "$bin/nvdisasm" -c "$c" > "$out/$n.sass"
  printf "%s:" "$n"
  for op in HMMA LDSM LDGSTS MUFU.EX2 LDG STG BAR SHFL STL LDL FFMA FMUL FADD FMNMX; do
    printf " %s=%s" "$op" "$(grep -cE "\b$op\b|\b$op\." "$out/$n.sass" || true)"
  done
  echo
done

#!/usr/bin/env bash
# Idempotent set-up of a Debian 12 machine for softmax-mlir:
#   1. installs the apt packages below, but only when one is missing
#      (apt-get update runs only then);
#   2. configures build/ (Ninja, clang++-22, lld, ccache) unless it already is;
#   3. builds everything in build/.
# (build/ is $SOFTMAX_BUILD_DIR when set, see scripts/common.sh.)
# Usage: bash scripts/setup.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/common.sh

PACKAGES=(
  llvm-22-dev libmlir-22-dev mlir-22-tools clang-22 llvm-22-tools lld-22
  ninja-build cmake ccache python3 python3-pytest python3-numpy
  libomp-22-dev
  rocm-device-libs
  # ASan/UBSan runtimes for build-asan/ (scripts/test.sh links with
  # -fsanitize=address,undefined; without them the link fails).
  libclang-rt-22-dev
  # HIP host API: libsoftmax_hip_runtime is not built without it, and its
  # tests would be reported unsupported.
  libamdhip64-dev
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=()
  if [[ "$(id -u)" -ne 0 ]]; then SUDO=(sudo); fi
  "${SUDO[@]}" apt-get update
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}"
fi

configure_build "$BUILD_DIR"
ninja -C "$BUILD_DIR" -j"$(nproc)"

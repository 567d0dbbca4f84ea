# Shared by scripts/*.sh (sourced, run from the repository root).

LLVM_PREFIX=/usr/lib/llvm-22

# Build directories, relative to the repository root. Override them to keep
# a second checkout of the build apart (e.g. SOFTMAX_BUILD_DIR=build-mine).
BUILD_DIR=${SOFTMAX_BUILD_DIR:-build}
ASAN_BUILD_DIR=${SOFTMAX_ASAN_BUILD_DIR:-build-asan}

# configure_build DIR [extra cmake args...]: configures DIR (Ninja,
# clang++-22, lld, ccache, Debian's MLIR 22) unless it already has a
# build.ninja.
configure_build() {
  local dir=$1
  shift
  if [[ -f "$dir/build.ninja" ]]; then
    return 0
  fi
  cmake -G Ninja -S . -B "$dir" \
    -DMLIR_DIR="$LLVM_PREFIX/lib/cmake/mlir" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
    -DLLVM_USE_LINKER=lld \
    -DLLVM_EXTERNAL_LIT="$LLVM_PREFIX/bin/lit" \
    "$@"
}

# Shared by scripts/*.sh (sourced, run from the repository root).

LLVM_PREFIX=/usr/lib/llvm-22

# Build directories, relative to the repository root. Override them to keep
# a second checkout of the build apart (e.g. SOFTMAX_BUILD_DIR=build-mine).
BUILD_DIR=${SOFTMAX_BUILD_DIR:-build}
ASAN_BUILD_DIR=${SOFTMAX_ASAN_BUILD_DIR:-build-asan}

# ccache: the default cache (~/.cache/ccache, or $CCACHE_DIR). With the
# repository root as base directory, paths in compile commands become
# relative, so a fresh checkout or another build directory hits the cache.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}

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

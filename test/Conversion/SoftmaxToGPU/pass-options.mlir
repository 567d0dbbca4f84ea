// RUN: softmax-opt %s --softmax-map-to-gpu="threads-per-row=32 rows-per-block=1 cached-vectors=4 splits=1" | FileCheck %s
// RUN: not softmax-opt %s --softmax-map-to-gpu="threads-per-row=96 rows-per-block=1" 2>&1 | FileCheck %s --check-prefix=THREADS
// The mapping's own check of the option (a request cannot say 96: the
// attribute's verifier refuses it first).
// THREADS: error: 'softmax.softmax' op threads per row (96) times rows per block (1) must be a power of two of at most 1024 threads
// RUN: not softmax-opt %s --softmax-map-to-gpu="rows-per-block=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: 'softmax.softmax' op rows per block (-1), vector width (4) and splits (1) must be positive, cached vectors (4) not negative
// Pass options override the heuristic, an explicit 1 included (the
// heuristic alone would put 8 rows in a block here).
// CHECK: softmax.strategy = #softmax.gpu_strategy<threads_per_row = 32, rows_per_block = 1, vector_width = 4, cached_vectors = 4, splits = 1>
func.func @f(%x: memref<64x512xf32>, %y: memref<64x512xf32>) {
  softmax.softmax ins(%x : memref<64x512xf32>) outs(%y : memref<64x512xf32>) dimension(1) masked(zero) algorithm(online)
  return
}

// RUN: softmax-opt %s --softmax-map-to-gpu="threads-per-row=32 rows-per-block=1 cached-vectors=4 splits=1" | FileCheck %s
// Pass options override the heuristic, an explicit 1 included (the
// heuristic alone would put 8 rows in a block here).
// CHECK: softmax.strategy = {cached_vectors = 4 : i64, rows_per_block = 1 : i64, splits = 1 : i64, threads_per_row = 32 : i64, vector_width = 4 : i64}
func.func @f(%x: memref<64x512xf32>, %y: memref<64x512xf32>) {
  softmax.softmax ins(%x : memref<64x512xf32>) outs(%y : memref<64x512xf32>) dimension(1) masked(zero) algorithm(online)
  return
}

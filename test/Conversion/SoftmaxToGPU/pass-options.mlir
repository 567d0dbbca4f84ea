// RUN: softmax-opt %s --softmax-map-to-gpu="threads-per-row=32 rows-per-block=1 cached-vectors=4 splits=1" | FileCheck %s
// RUN: not softmax-opt %s --softmax-map-to-gpu="threads-per-row=96 rows-per-block=1" 2>&1 | FileCheck %s --check-prefix=THREADS
// Each option is refused by its range (OptionRange) before the mapping
// runs; a request cannot say 96 either (the attribute's verifier refuses
// it), and the mapping keeps its own check for C++ overrides.
// THREADS: error: softmax-map-to-gpu: threads-per-row must be 0 (the heuristic's) or a power of two from 1 to 1024, not 96
// RUN: not softmax-opt %s --softmax-map-to-gpu="rows-per-block=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: softmax-map-to-gpu: rows-per-block must be 0 (the heuristic's) or a power of two from 1 to 1024, not -1
// RUN: not softmax-opt %s --softmax-map-to-gpu="rows-per-block=3" 2>&1 | FileCheck %s --check-prefix=ROWS3
// ROWS3: error: softmax-map-to-gpu: rows-per-block must be 0 (the heuristic's) or a power of two from 1 to 1024, not 3
// RUN: not softmax-opt %s --softmax-map-to-gpu="rows-per-block=9223372036854775807" 2>&1 | FileCheck %s --check-prefix=ROWSMAX
// ROWSMAX: error: softmax-map-to-gpu: rows-per-block must be 0 (the heuristic's) or a power of two from 1 to 1024, not 9223372036854775807
// A count that overflowed the old check and hung the mapping.
// RUN: not softmax-opt %s --softmax-map-to-gpu="cached-vectors=2147483648" 2>&1 | FileCheck %s --check-prefix=CACHED
// CACHED: error: softmax-map-to-gpu: cached-vectors must be 0 (the heuristic's) or from 1 to 64, not 2147483648
// RUN: not softmax-opt %s --softmax-map-to-gpu="cached-vectors=-1" 2>&1 | FileCheck %s --check-prefix=CACHED-NEG
// CACHED-NEG: error: softmax-map-to-gpu: cached-vectors must be 0 (the heuristic's) or from 1 to 64, not -1
// RUN: not softmax-opt %s --softmax-map-to-gpu="splits=-1" 2>&1 | FileCheck %s --check-prefix=SPLITS
// SPLITS: error: softmax-map-to-gpu: splits must be 0 (the heuristic's) or from 1 to 64, not -1
// RUN: not softmax-opt %s --softmax-map-to-gpu="vector-width=-4" 2>&1 | FileCheck %s --check-prefix=WIDTH
// WIDTH: error: softmax-map-to-gpu: vector-width must be 0 (the heuristic's) or a power of two from 1 to 16, not -4
// A valid width the heuristic's cached vectors no longer cover: the message
// says why and what to ask for.
// RUN: not softmax-opt %s --softmax-map-to-gpu="vector-width=1" 2>&1 | FileCheck %s --check-prefix=WIDTH1
// WIDTH1: error: 'softmax.softmax' op cached vectors (4) do not cover the row length 512 (32 threads of 1-element vectors); ask for more cached vectors, or 0 to stream the row twice
// Pass options override the heuristic, an explicit 1 included (the
// heuristic alone would put 8 rows in a block here).
// CHECK: softmax.strategy = #softmax.gpu_strategy<threads_per_row = 32, rows_per_block = 1, vector_width = 4, cached_vectors = 4, splits = 1>
func.func @f(%x: memref<64x512xf32>, %y: memref<64x512xf32>) {
  softmax.softmax ins(%x : memref<64x512xf32>) outs(%y : memref<64x512xf32>) dimension(1) masked(zero) algorithm(online)
  return
}

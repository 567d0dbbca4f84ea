// Options override the heuristic and are recorded on the loop; values the
// mapping cannot honour are errors.
// RUN: softmax-opt %s --softmax-map-to-cpu="vector-width=8 unroll=2 block=4 three-pass=recompute" | FileCheck %s
// RUN: softmax-opt %s --softmax-map-to-cpu="vector-width=4 three-pass=reload" | FileCheck %s --check-prefix=RELOAD
// RUN: softmax-opt %s --softmax-map-to-cpu="vector-width=4 three-pass=tiled" | FileCheck %s --check-prefix=TILED
// RUN: not softmax-opt %s --softmax-map-to-cpu="vector-width=12" 2>&1 | FileCheck %s --check-prefix=WIDTH
// RUN: not softmax-opt %s --softmax-map-to-cpu="unroll=17" 2>&1 | FileCheck %s --check-prefix=UNROLL
// RUN: not softmax-opt %s --softmax-map-to-cpu="three-pass=sometimes" 2>&1 | FileCheck %s --check-prefix=VARIANT
// RUN: not softmax-opt %s --softmax-map-to-cpu="exp=libm" 2>&1 | FileCheck %s --check-prefix=EXP
// RUN: not softmax-opt %s --softmax-map-to-cpu="block=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not softmax-opt %s --softmax-map-to-cpu="block=1152921504606846976 vector-width=4" 2>&1 | FileCheck %s --check-prefix=HUGE-BLOCK
// RUN: not softmax-opt %s --softmax-map-to-cpu="l2-bytes=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE-L2
// The three_pass heuristic against the cache sizes (rows of 400 + 400 bytes):
// tiled within L1, reload within half of L2, tiled beyond.
// RUN: softmax-opt %s --softmax-map-to-cpu="vector-width=16 l1-bytes=1024 l2-bytes=65536" | FileCheck %s --check-prefix=IN-L1
// RUN: softmax-opt %s --softmax-map-to-cpu="vector-width=16 l1-bytes=512 l2-bytes=65536" | FileCheck %s --check-prefix=IN-L2
// RUN: softmax-opt %s --softmax-map-to-cpu="vector-width=16 l1-bytes=256 l2-bytes=1024" | FileCheck %s --check-prefix=BEYOND
// IN-L1: three_pass = tiled
// IN-L2: three_pass = reload
// BEYOND: three_pass = tiled

// CHECK: vector.load {{.*}} vector<8xf32>
// CHECK: {softmax.strategy = #softmax.cpu_strategy<algorithm = three_pass, vector_width = 8, unroll = 2, block = 4, three_pass = recompute, exp = fast>}
// TILED: {softmax.strategy = #softmax.cpu_strategy<algorithm = three_pass, vector_width = 4, unroll = 4, block = 16, three_pass = tiled, exp = fast>}
// RELOAD: {softmax.strategy = #softmax.cpu_strategy<algorithm = three_pass, vector_width = 4, unroll = 4, block = 16, three_pass = reload, exp = fast>}
// Each option is refused by its range, named (OptionRange), before the
// mapping runs; the mapping keeps its own checks for C++ overrides, and the
// attribute's verifier refuses such a request (strategy-attrs-invalid.mlir).
// WIDTH: error: softmax-map-to-cpu: vector-width must be 0 (the host's width) or a power of two from 1 to 64, not 12
// UNROLL: error: softmax-map-to-cpu: unroll must be 0 (the heuristic's) or from 1 to 16, not 17
// VARIANT: error: softmax-map-to-cpu: three-pass must be auto, recompute, reload or tiled, not 'sometimes'
// EXP: error: softmax-map-to-cpu: exp must be fast or polynomial, not 'libm'
// NEGATIVE: error: softmax-map-to-cpu: block must be 0 (the heuristic's) or from 1 to 65536, not -1
// A block of 2^60 iterations overflowed the index arithmetic and wrote zeros.
// HUGE-BLOCK: error: softmax-map-to-cpu: block must be 0 (the heuristic's) or from 1 to 65536, not 1152921504606846976
// NEGATIVE-L2: error: softmax-map-to-cpu: l2-bytes must be 0 (the host's) or from 1 to 1099511627776, not -1
func.func @f(%x: memref<4x100xf32>, %y: memref<4x100xf32>) {
  softmax.softmax ins(%x : memref<4x100xf32>) outs(%y : memref<4x100xf32>) dimension(1) masked(zero) algorithm(three_pass)
  return
}

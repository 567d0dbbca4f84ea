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
// RUN: not softmax-opt %s --softmax-map-to-cpu="l2-bytes=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
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
// WIDTH: error: 'softmax.softmax' op vector width 12 is not a power of two in [1, 64]
// UNROLL: error: 'softmax.softmax' op unroll 17 is not in [1, 16]
// VARIANT: error: softmax-map-to-cpu: three-pass must be auto, recompute, reload or tiled, not 'sometimes'
// EXP: error: softmax-map-to-cpu: exp must be fast or polynomial, not 'libm'
// NEGATIVE: error: softmax-map-to-cpu: vector-width, unroll, block, l1-bytes and l2-bytes must be positive or 0 (the heuristic's or the host's choice)
func.func @f(%x: memref<4x100xf32>, %y: memref<4x100xf32>) {
  softmax.softmax ins(%x : memref<4x100xf32>) outs(%y : memref<4x100xf32>) dimension(1) masked(zero) algorithm(three_pass)
  return
}

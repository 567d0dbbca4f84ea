// RUN: not softmax-opt %s --softmax-map-to-gpu="chip=sm_70" 2>&1 | FileCheck %s
// CHECK: error: softmax-map-to-gpu: unknown chip 'sm_70' (expected sm_80, sm_90, sm_90a, gfx90a or gfx942)
func.func @f(%x: memref<4x64xf32>, %y: memref<4x64xf32>) {
  softmax.softmax ins(%x : memref<4x64xf32>) outs(%y : memref<4x64xf32>) dimension(1) masked(zero)
  return
}

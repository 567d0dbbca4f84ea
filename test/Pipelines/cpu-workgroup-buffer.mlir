// softmax-to-cpu on a buffer in GPU workgroup memory fails with a
// diagnostic at the op, on both paths (it printed a conversion error,
// exited 0 and left memref types in the output).
// RUN: not softmax-opt %s --softmax-to-cpu 2>&1 | FileCheck %s
// RUN: not softmax-opt %s --softmax-to-cpu="vector-width=0" 2>&1 | FileCheck %s
// CHECK: error: 'softmax.softmax' op cannot be decomposed on memrefs
func.func @f(%x: memref<4x64xf32, #gpu.address_space<workgroup>>, %y: memref<4x64xf32, #gpu.address_space<workgroup>>) {
  softmax.softmax ins(%x : memref<4x64xf32, #gpu.address_space<workgroup>>) outs(%y : memref<4x64xf32, #gpu.address_space<workgroup>>) dimension(1) masked(zero) algorithm(online)
  return
}

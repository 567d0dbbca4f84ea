// RUN: softmax-opt %s --softmax-decompose -verify-diagnostics

func.func @on_buffers(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  // expected-error @+1 {{'softmax.softmax' op cannot be decomposed on memrefs; run softmax-decompose before bufferization}}
  softmax.softmax ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>) dimension(1) masked(zero) algorithm(online)
  return
}

// RUN: softmax-opt %s --softmax-stage-gpu-buffers -verify-diagnostics

func.func @strided() -> memref<4x8xf32, strided<[16, 1]>> {
  // expected-error @+1 {{'memref.alloc' op cannot be staged for the GPU: only identity-layout buffers in the default memory space are}}
  %a = memref.alloc() : memref<4x8xf32, strided<[16, 1]>>
  return %a : memref<4x8xf32, strided<[16, 1]>>
}

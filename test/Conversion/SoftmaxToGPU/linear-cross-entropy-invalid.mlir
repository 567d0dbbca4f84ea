// RUN: not softmax-opt %s --softmax-to-nvvm="chip=sm_90" 2>&1 | FileCheck %s
// RUN: not softmax-opt %s --softmax-to-rocdl="chip=gfx942" 2>&1 | FileCheck %s

// No GPU kernel computes the fused linear cross-entropy yet: the GPU
// pipelines refuse it when they bufferize (before any mapping), never
// compile its decomposition for the host.
// CHECK: error: 'softmax.linear_cross_entropy' op has no mapping on buffers yet (no GPU kernel): decompose it on tensors first (softmax-decompose, as softmax-to-cpu does)
func.func @ce(%h: tensor<8x64xbf16>, %w: tensor<1031x64xbf16>, %t: tensor<8xi64>, %l0: tensor<f32>) -> tensor<f32> {
  %l = softmax.linear_cross_entropy ins(%h, %w, %t : tensor<8x64xbf16>, tensor<1031x64xbf16>, tensor<8xi64>) outs(%l0 : tensor<f32>) reduction(mean)
  return %l : tensor<f32>
}

// RUN: not softmax-opt %s --softmax-to-nvvm="chip=sm_90" -split-input-file 2>&1 | FileCheck %s
// RUN: not softmax-opt %s --softmax-to-rocdl="chip=gfx942" -split-input-file 2>&1 | FileCheck %s

// No GPU kernel computes the fused linear cross-entropy yet: the GPU
// pipelines refuse it when they bufferize (before any mapping), never
// compile its decomposition for the host.
// CHECK: error: 'softmax.linear_cross_entropy' op has no mapping on buffers yet (no GPU kernel): decompose it on tensors first (softmax-decompose, as softmax-to-cpu does)
func.func @ce(%h: tensor<8x64xbf16>, %w: tensor<1031x64xbf16>, %t: tensor<8xi64>, %l0: tensor<f32>) -> tensor<f32> {
  %l = softmax.linear_cross_entropy ins(%h, %w, %t : tensor<8x64xbf16>, tensor<1031x64xbf16>, tensor<8xi64>) outs(%l0 : tensor<f32>) reduction(mean)
  return %l : tensor<f32>
}

// -----

// CHECK: error: 'softmax.linear_cross_entropy_grad' op has no mapping on buffers yet (no GPU kernel): decompose it on tensors first (softmax-decompose, as softmax-to-cpu does)
func.func @grad(%h: tensor<8x64xbf16>, %w: tensor<100x64xbf16>, %t: tensor<8xi64>, %lse: tensor<8xf32>, %dl: tensor<f32>, %gh0: tensor<8x64xbf16>, %gw0: tensor<100x64xbf16>) -> (tensor<8x64xbf16>, tensor<100x64xbf16>) {
  %gh, %gw = softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : tensor<8x64xbf16>, tensor<100x64xbf16>, tensor<8xi64>, tensor<8xf32>, tensor<f32>) outs(%gh0, %gw0 : tensor<8x64xbf16>, tensor<100x64xbf16>) reduction(mean)
  return %gh, %gw : tensor<8x64xbf16>, tensor<100x64xbf16>
}

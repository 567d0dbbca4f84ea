// RUN: not softmax-opt %s --softmax-to-nvvm="chip=sm_90" 2>&1 | FileCheck %s
// RUN: not softmax-opt %s --softmax-to-rocdl="chip=gfx942" 2>&1 | FileCheck %s

// No GPU kernel computes softmax.topk yet: the GPU pipelines refuse it when
// they bufferize, never compile its decomposition for the host.
// CHECK: error: 'softmax.topk' op has no mapping on buffers yet (no GPU kernel): decompose it on tensors first (softmax-decompose, as softmax-to-cpu does)
func.func @topk(%x: tensor<4x1000xbf16>, %p0: tensor<4x8xf32>, %i0: tensor<4x8xi32>) -> (tensor<4x8xf32>, tensor<4x8xi32>) {
  %p, %i = softmax.topk ins(%x : tensor<4x1000xbf16>) outs(%p0, %i0 : tensor<4x8xf32>, tensor<4x8xi32>) k(8)
  return %p, %i : tensor<4x8xf32>, tensor<4x8xi32>
}

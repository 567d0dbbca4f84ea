// RUN: not softmax-opt %s --softmax-split-attention-keys=splits=2 --softmax-to-nvvm 2>&1 | FileCheck %s
// RUN: not softmax-opt %s --softmax-split-attention-keys=splits=2 --softmax-to-rocdl 2>&1 | FileCheck %s

// Split-KV has no GPU lowering yet: the merges of the partial attentions
// are state ops on tensors, which the GPU pipelines neither bufferize nor
// map. The pipeline fails at the first merge rather than compiling it for
// the host.
// CHECK: error: op was not bufferized
// CHECK: note: see current operation: {{.*}}"softmax.merge"
func.func @split(%q: tensor<1x2x1x16xf32>, %k: tensor<1x1x64x16xf32>, %v: tensor<1x1x64x16xf32>, %o: tensor<1x2x1x16xf32>) -> tensor<1x2x1x16xf32> {
  %r = softmax.attention ins(%q, %k, %v : tensor<1x2x1x16xf32>, tensor<1x1x64x16xf32>, tensor<1x1x64x16xf32>) outs(%o : tensor<1x2x1x16xf32>) masked(zero)
  return %r : tensor<1x2x1x16xf32>
}

// RUN: not softmax-opt %s --softmax-split-attention-keys=splits=2 --softmax-to-nvvm 2>&1 | FileCheck %s
// RUN: not softmax-opt %s --softmax-split-attention-keys=splits=2 --softmax-to-rocdl 2>&1 | FileCheck %s

// On the GPU, split-KV is the mapping's own (key_splits: one launch of
// split blocks, one merge kernel; attention-decode-to-gpu.mlir). The IR
// split's merges are state ops on tensors, which the GPU pipelines neither
// bufferize nor map, and its partials would be one launch each, run one
// after another: the pipeline fails at the first merge rather than
// compiling it for the host.
// CHECK: error: op was not bufferized
// CHECK: note: see current operation: {{.*}}"softmax.merge"
func.func @split(%q: tensor<1x2x1x16xf32>, %k: tensor<1x1x64x16xf32>, %v: tensor<1x1x64x16xf32>, %o: tensor<1x2x1x16xf32>) -> tensor<1x2x1x16xf32> {
  %r = softmax.attention ins(%q, %k, %v : tensor<1x2x1x16xf32>, tensor<1x1x64x16xf32>, tensor<1x1x64x16xf32>) outs(%o : tensor<1x2x1x16xf32>) masked(zero)
  return %r : tensor<1x2x1x16xf32>
}

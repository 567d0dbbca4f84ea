// An attention chain whose contractions pass linalg's verifier (the key
// length is dynamic, so linalg cannot relate the batch sizes) but whose
// query batch 1 and key batch 2 make no softmax.attention: it stays as it
// is, with the reason as a remark (raising built an op that failed its
// verifier).
// RUN: softmax-opt %s --softmax-raise | FileCheck %s
// RUN: softmax-opt %s --softmax-raise="remarks=true" -verify-diagnostics -o /dev/null

#cq = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#ck = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#cs = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#cp = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#cv = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#co = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
// CHECK-LABEL: func @batch_mismatch
// CHECK-NOT: softmax.attention
// CHECK: linalg.contract
// CHECK: linalg.contract
func.func @batch_mismatch(%q: tensor<1x4x16x32xf32>, %k: tensor<2x4x?x32xf32>,
                          %v: tensor<2x4x?x32xf32>) -> tensor<1x4x16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %c2 = arith.constant 2 : index
  %n = tensor.dim %k, %c2 : tensor<2x4x?x32xf32>
  %es = tensor.empty(%n) : tensor<1x4x16x?xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%es : tensor<1x4x16x?xf32>) -> tensor<1x4x16x?xf32>
  %s = linalg.contract indexing_maps = [#cq, #ck, #cs]
      ins(%q, %k : tensor<1x4x16x32xf32>, tensor<2x4x?x32xf32>) outs(%sinit : tensor<1x4x16x?xf32>) -> tensor<1x4x16x?xf32>
  %pr = softmax.softmax ins(%s : tensor<1x4x16x?xf32>) outs(%es : tensor<1x4x16x?xf32>) dimension(3) masked(zero)
  %eo = tensor.empty() : tensor<1x4x16x32xf32>
  // expected-remark @+1 {{softmax-raise: attention-shaped computation not raised: query and key disagree in leading dimension 0 (batch)}}
  %out = linalg.contract indexing_maps = [#cp, #cv, #co]
      ins(%pr, %v : tensor<1x4x16x?xf32>, tensor<2x4x?x32xf32>) outs(%eo : tensor<1x4x16x32xf32>) -> tensor<1x4x16x32xf32>
  return %out : tensor<1x4x16x32xf32>
}

// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: iree-org/iree@b48a5955575cf8924ffc191f3b0804976e5738b9:tests/e2e/linalg/softmax.mlir (@softmax_dynamic_10x256x256xf32)
// Form: linalg.softmax on DYNAMIC shapes: the init is tensor.empty(%d0, %d1, %d2) of the tensor.dim
//  sizes of the input.
// Edits: renamed; the flow.tensor.dynamic_constant input becomes the argument (kept
//  tensor<?x?x?xf32>), the optimization barrier, tensor.cast to 10x256x256 and
//  check.expect_almost_eq_const removed, %0 returned (corpus.json gives the static shape 2x5x37 the
//  execution check casts to).
// Semantics: softmax over dimension 2 of tensor<?x?x?xf32>.

// CHECK-LABEL: func.func @iree_e2e_linalg_softmax_dynamic(
// CHECK-NOT: linalg.softmax
// CHECK: softmax.softmax ins(%{{.*}} : tensor<?x?x?xf32>) outs(%{{.*}}) dimension(2)
// CHECK: return

func.func @iree_e2e_linalg_softmax_dynamic(%input: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d0 = tensor.dim %input, %c0 : tensor<?x?x?xf32>
  %d1 = tensor.dim %input, %c1 : tensor<?x?x?xf32>
  %d2 = tensor.dim %input, %c2 : tensor<?x?x?xf32>
  %init = tensor.empty(%d0, %d1, %d2) : tensor<?x?x?xf32>
  %0 = linalg.softmax dimension(2) ins(%input : tensor<?x?x?xf32>) outs(%init : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}

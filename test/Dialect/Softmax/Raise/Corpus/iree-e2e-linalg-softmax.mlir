// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: iree-org/iree@b48a5955575cf8924ffc191f3b0804976e5738b9:tests/e2e/linalg/softmax.mlir (softmax_static_10x256x256xf32)
// Form: the named linalg.softmax op (what IREE's raising produces and its e2e tests feed)
// Edits: renamed; the unfoldable constant input becomes the argument, the
//  check.expect_almost_eq_const removed, the result returned; 10x256x256 -> 2x5x37.
// Semantics: softmax over dimension 2 of tensor<2x5x37xf32>.

// CHECK-LABEL: func.func @iree_e2e_linalg_softmax(
// CHECK-NOT: math.exp
// CHECK: softmax.softmax ins(%{{.*}} : tensor<2x5x37xf32>) outs(%{{.*}}) dimension(2)
// CHECK-NOT: math.exp
// CHECK: return

func.func @iree_e2e_linalg_softmax(%input: tensor<2x5x37xf32>) -> tensor<2x5x37xf32> {
  %init = tensor.empty() : tensor<2x5x37xf32>
  %0 = linalg.softmax dimension(2) ins(%input : tensor<2x5x37xf32>) outs(%init : tensor<2x5x37xf32>) -> tensor<2x5x37xf32>
  return %0 : tensor<2x5x37xf32>
}

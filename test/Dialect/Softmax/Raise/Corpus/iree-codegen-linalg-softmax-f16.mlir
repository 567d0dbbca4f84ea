// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: iree-org/iree@b48a5955575cf8924ffc191f3b0804976e5738b9:compiler/src/iree/compiler/Codegen/SPIRV/test/lowering_reduction.mlir (dynamic_softmax)
// Form: named linalg.softmax on f16 (an IREE SPIR-V dispatch body)
// Edits: renamed; the dispatch's push constants, HAL bindings and dispatch.tensor load/store
//  removed: the loaded tensor %10 is the argument, %12 the result; tensor<32x?xf16> ->
//  tensor<3x37xf16>; tensor.empty(%6) -> tensor.empty().
// Semantics: softmax over dimension 1 of tensor<3x37xf16>.

// CHECK-LABEL: func.func @iree_codegen_linalg_softmax_f16(
// CHECK-NOT: math.exp
// CHECK: softmax.softmax ins(%{{.*}} : tensor<3x37xf16>) outs(%{{.*}}) dimension(1)
// CHECK-NOT: math.exp
// CHECK: return

func.func @iree_codegen_linalg_softmax_f16(%10: tensor<3x37xf16>) -> tensor<3x37xf16> {
  %11 = tensor.empty() : tensor<3x37xf16>
  %12 = linalg.softmax dimension(1) ins(%10 : tensor<3x37xf16>) outs(%11 : tensor<3x37xf16>) -> tensor<3x37xf16>
  return %12 : tensor<3x37xf16>
}

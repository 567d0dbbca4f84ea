// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: iree-org/iree@b48a5955575cf8924ffc191f3b0804976e5738b9:compiler/src/iree/compiler/DispatchCreation/test/dispatch_linalg_on_tensors.mlir (softmax2)
// Form: sub+exp fused in one generic; divf(1.0, s) then mulf in one body
// Edits: util.func public -> func.func; util.return -> return; renamed; 12x128x128 -> 3x5x37,
//  12x128 -> 3x5.
// Semantics: softmax over dimension 2 of tensor<3x5x37xf32>.

// CHECK-LABEL: func.func @iree_dispatch_softmax2(
// CHECK-NOT: math.exp
// CHECK: softmax.softmax ins(%{{.*}} : tensor<3x5x37xf32>) outs(%{{.*}}) dimension(2)
// CHECK-NOT: math.exp
// CHECK: return

func.func @iree_dispatch_softmax2(%source : tensor<3x5x37xf32>) -> tensor<3x5x37xf32> {
  %cst = arith.constant 1.000000e+00 : f32
  %cst_0 = arith.constant 0.000000e+00 : f32
  %cst_1 = arith.constant -3.40282347E+38 : f32
  %1 = tensor.empty() : tensor<3x5xf32>
  %2 = linalg.fill ins(%cst_1 : f32) outs(%1 : tensor<3x5xf32>) -> tensor<3x5xf32>
  %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%source : tensor<3x5x37xf32>) outs(%2 : tensor<3x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %9 = arith.maximumf %in, %out : f32
    linalg.yield %9 : f32
  } -> tensor<3x5xf32>
  %4 = tensor.empty() : tensor<3x5x37xf32>
  %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%source, %3 : tensor<3x5x37xf32>, tensor<3x5xf32>) outs(%4 : tensor<3x5x37xf32>) {
  ^bb0(%in: f32, %in_4: f32, %out: f32):
    %9 = arith.subf %in, %in_4 : f32
    %10 = math.exp %9 : f32
    linalg.yield %10 : f32
  } -> tensor<3x5x37xf32>
  %6 = linalg.fill ins(%cst_0 : f32) outs(%1 : tensor<3x5xf32>) -> tensor<3x5xf32>
  %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%5 : tensor<3x5x37xf32>) outs(%6 : tensor<3x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %9 = arith.addf %in, %out : f32
    linalg.yield %9 : f32
  } -> tensor<3x5xf32>
  %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%5, %7 : tensor<3x5x37xf32>, tensor<3x5xf32>) outs(%4 : tensor<3x5x37xf32>) {
  ^bb0(%in: f32, %in_4: f32, %out: f32):
    %9 = arith.divf %cst, %in_4 : f32
    %10 = arith.mulf %in, %9 : f32
    linalg.yield %10 : f32
  } -> tensor<3x5x37xf32>
  return %8 : tensor<3x5x37xf32>
}

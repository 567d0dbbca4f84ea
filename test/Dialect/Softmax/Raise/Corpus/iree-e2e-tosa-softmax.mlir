// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: iree-org/iree@b48a5955575cf8924ffc191f3b0804976e5738b9:tests/e2e/regression/softmax.mlir (softmax)
// Form: IREE's tosa-to-linalg output of tosa reduce_max/sub/exp/reduce_sum/reciprocal/mul (the
//  TOSA is in the file's header comment)
// Edits: renamed; the constant input, optimization barrier and check.expect_almost_eq removed: %0
//  is the argument, %10 the result; 12x128x128 -> 3x5x37, 12x128 -> 3x5.
// Semantics: softmax over dimension 2 of tensor<3x5x37xf32>.

// CHECK-LABEL: func.func @iree_e2e_tosa_softmax(
// CHECK-NOT: math.exp
// CHECK: softmax.softmax ins(%{{.*}} : tensor<3x5x37xf32>) outs(%{{.*}}) dimension(2)
// CHECK-NOT: math.exp
// CHECK: return

func.func @iree_e2e_tosa_softmax(%0: tensor<3x5x37xf32>) -> tensor<3x5x37xf32> {
  %cst = arith.constant 1.000000e+00 : f32
  %cst_0 = arith.constant 0.000000e+00 : f32
  %cst_1 = arith.constant -3.40282347E+38 : f32
  %1 = tensor.empty() : tensor<3x5xf32>
  %2 = linalg.fill ins(%cst_1 : f32) outs(%1 : tensor<3x5xf32>) -> tensor<3x5xf32>
  %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%0 : tensor<3x5x37xf32>) outs(%2 : tensor<3x5xf32>) {
  ^bb0(%arg0: f32, %arg1: f32):
    %11 = arith.maximumf %arg0, %arg1 : f32
    linalg.yield %11 : f32
  } -> tensor<3x5xf32>
  %4 = tensor.empty() : tensor<3x5x37xf32>
  %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%0, %3 : tensor<3x5x37xf32>, tensor<3x5xf32>) outs(%4 : tensor<3x5x37xf32>) {
  ^bb0(%arg0: f32, %arg1: f32, %arg2: f32):
    %11 = arith.subf %arg0, %arg1 : f32
    linalg.yield %11 : f32
  } -> tensor<3x5x37xf32>
  %6 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%5 : tensor<3x5x37xf32>) outs(%4 : tensor<3x5x37xf32>) {
  ^bb0(%arg0: f32, %arg1: f32):
    %11 = math.exp %arg0 : f32
    linalg.yield %11 : f32
  } -> tensor<3x5x37xf32>
  %7 = linalg.fill ins(%cst_0 : f32) outs(%1 : tensor<3x5xf32>) -> tensor<3x5xf32>
  %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%6 : tensor<3x5x37xf32>) outs(%7 : tensor<3x5xf32>) {
  ^bb0(%arg0: f32, %arg1: f32):
    %11 = arith.addf %arg0, %arg1 : f32
    linalg.yield %11 : f32
  } -> tensor<3x5xf32>
  %9 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%8 : tensor<3x5xf32>) outs(%1 : tensor<3x5xf32>) {
  ^bb0(%arg0: f32, %arg1: f32):
    %11 = arith.divf %cst, %arg0 : f32
    linalg.yield %11 : f32
  } -> tensor<3x5xf32>
  %10 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6, %9 : tensor<3x5x37xf32>, tensor<3x5xf32>) outs(%4 : tensor<3x5x37xf32>) {
  ^bb0(%arg0: f32, %arg1: f32, %arg2: f32):
    %11 = arith.mulf %arg0, %arg1 : f32
    linalg.yield %11 : f32
  } -> tensor<3x5x37xf32>
  return %10 : tensor<3x5x37xf32>
}

// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: iree-org/iree@b48a5955575cf8924ffc191f3b0804976e5738b9:compiler/src/iree/compiler/Codegen/Common/test/rematerialize_parallel_ops.mlir (softmax)
// Form: sub+exp fused; divf(1.0, s)+mulf fused; from a dispatch region
// Edits: renamed; flow.dispatch.region wrapper removed (its body is the function body, flow.return
//  -> return, reindented); 16x32x4096 -> 2x3x37, 16x32 -> 2x3.
// Semantics: softmax over dimension 2 of tensor<2x3x37xf32>.

// CHECK-LABEL: func.func @iree_codegen_softmax_rematerialize(
// CHECK-NOT: math.exp
// CHECK: softmax.softmax ins(%{{.*}} : tensor<2x3x37xf32>) outs(%{{.*}}) dimension(2)
// CHECK-NOT: math.exp
// CHECK: return

func.func @iree_codegen_softmax_rematerialize(%7 : tensor<2x3x37xf32>) -> tensor<2x3x37xf32> {
  %cst = arith.constant -3.40282347E+38 : f32
  %cst_0 = arith.constant 0.000000e+00 : f32
  %cst_1 = arith.constant 1.000000e+00 : f32
  %8 = tensor.empty() : tensor<2x3xf32>
  %6 = tensor.empty() : tensor<2x3x37xf32>
  %9 = linalg.fill ins(%cst : f32) outs(%8 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %10 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%7 : tensor<2x3x37xf32>) outs(%9 : tensor<2x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %16 = arith.maximumf %in, %out : f32
    linalg.yield %16 : f32
  } -> tensor<2x3xf32>
  %11 = tensor.empty() : tensor<2x3x37xf32>
  %12 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%7, %10 : tensor<2x3x37xf32>, tensor<2x3xf32>) outs(%11 : tensor<2x3x37xf32>) {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %16 = arith.subf %in, %in_2 : f32
    %17 = math.exp %16 : f32
    linalg.yield %17 : f32
  } -> tensor<2x3x37xf32>
  %13 = linalg.fill ins(%cst_0 : f32) outs(%8 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %14 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%12 : tensor<2x3x37xf32>) outs(%13 : tensor<2x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %16 = arith.addf %in, %out : f32
    linalg.yield %16 : f32
  } -> tensor<2x3xf32>
  %15 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%12, %14 : tensor<2x3x37xf32>, tensor<2x3xf32>) outs(%6 : tensor<2x3x37xf32>) {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %16 = arith.divf %cst_1, %in_2 : f32
    %17 = arith.mulf %in, %16 : f32
    linalg.yield %17 : f32
  } -> tensor<2x3x37xf32>
  return %15 : tensor<2x3x37xf32>
}

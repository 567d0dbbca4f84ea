// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: iree-org/iree@b48a5955575cf8924ffc191f3b0804976e5738b9:compiler/src/iree/compiler/DispatchCreation/test/dispatch_linalg_on_tensors.mlir (softmax)
// Form: two-result generic: exp(x - max) and its running sum in one reduction generic; divf(1.0,
//  s) and mulf fused in one body
// Edits: util.func public -> func.func; util.return -> return; renamed; the #map0/#map1 aliases of
//  its split-input section kept; 12x128x128 -> 3x5x37, 12x128 -> 3x5.
// Semantics: softmax over dimension 2 of tensor<3x5x37xf32>.

// CHECK-LABEL: func.func @iree_dispatch_softmax_fused_sum(
// CHECK-NOT: math.exp
// CHECK: softmax.softmax ins(%{{.*}} : tensor<3x5x37xf32>) outs(%{{.*}}) dimension(2)
// CHECK-NOT: math.exp
// CHECK: return

#map0 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @iree_dispatch_softmax_fused_sum(%arg0: tensor<3x5x37xf32>) -> tensor<3x5x37xf32> {
  %cst = arith.constant 1.000000e+00 : f32
  %cst_0 = arith.constant 0.000000e+00 : f32
  %cst_1 = arith.constant -3.40282347E+38 : f32
  %0 = tensor.empty() : tensor<3x5xf32>
  %1 = linalg.fill ins(%cst_1 : f32) outs(%0 : tensor<3x5xf32>) -> tensor<3x5xf32>
  %2 = linalg.generic {indexing_maps = [#map0, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 : tensor<3x5x37xf32>) outs(%1 : tensor<3x5xf32>) {
  ^bb0(%arg1: f32, %arg2: f32):
    %7 = arith.maximumf %arg1, %arg2 : f32
    linalg.yield %7 : f32
  } -> tensor<3x5xf32>
  %3 = tensor.empty() : tensor<3x5x37xf32>
  %4 = linalg.fill ins(%cst_0 : f32) outs(%0 : tensor<3x5xf32>) -> tensor<3x5xf32>
  %5:2 = linalg.generic {indexing_maps = [#map0, #map1, #map0, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %2 : tensor<3x5x37xf32>, tensor<3x5xf32>) outs(%3, %4 : tensor<3x5x37xf32>, tensor<3x5xf32>) {
  ^bb0(%arg1: f32, %arg2: f32, %arg3: f32, %arg4: f32):
    %7 = arith.subf %arg1, %arg2 : f32
    %8 = math.exp %7 : f32
    %9 = arith.addf %8, %arg4 : f32
    linalg.yield %8, %9 : f32, f32
  } -> (tensor<3x5x37xf32>, tensor<3x5xf32>)
  %6 = linalg.generic {indexing_maps = [#map0, #map1, #map0], iterator_types = ["parallel", "parallel", "parallel"]} ins(%5#0, %5#1 : tensor<3x5x37xf32>, tensor<3x5xf32>) outs(%3 : tensor<3x5x37xf32>) {
  ^bb0(%arg1: f32, %arg2: f32, %arg3: f32):
    %7 = arith.divf %cst, %arg2 : f32
    %8 = arith.mulf %arg1, %7 : f32
    linalg.yield %8 : f32
  } -> tensor<3x5x37xf32>
  return %6 : tensor<3x5x37xf32>
}

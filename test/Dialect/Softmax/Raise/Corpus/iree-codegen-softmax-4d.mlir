// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: iree-org/iree@b48a5955575cf8924ffc191f3b0804976e5738b9:compiler/src/iree/compiler/Codegen/LLVMCPU/test/split_reduction.mlir (softmax_codegen_config)
// Form: 4-D, -1.0e30 max seed, sub+exp fused, divf
// Edits: renamed; the lowering_config attributes (#config, #config1, defined by IREE's codegen
//  dialect) dropped; 2x5x4096x4096 -> 2x3x5x37, 2x5x4096 -> 2x3x5.
// Semantics: softmax over dimension 3 of tensor<2x3x5x37xf32>.

// CHECK-LABEL: func.func @iree_codegen_softmax_4d(
// CHECK-NOT: math.exp
// CHECK: softmax.softmax ins(%{{.*}} : tensor<2x3x5x37xf32>) outs(%{{.*}}) dimension(3)
// CHECK-NOT: math.exp
// CHECK: return

#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @iree_codegen_softmax_4d(%arg0: tensor<2x3x5x37xf32>) -> tensor<2x3x5x37xf32> {
  %0 = tensor.empty() : tensor<2x3x5x37xf32>
  %1 = tensor.empty() : tensor<2x3x5xf32>
  %cst = arith.constant -1.000000e+30 : f32
  %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %3 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0 : tensor<2x3x5x37xf32>) outs(%2 : tensor<2x3x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %8 = arith.maximumf %in, %out : f32
    linalg.yield %8 : f32
  } -> tensor<2x3x5xf32>
  %4 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0, %3 : tensor<2x3x5x37xf32>, tensor<2x3x5xf32>) outs(%0 : tensor<2x3x5x37xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %8 = arith.subf %in, %in_1 : f32
    %9 = math.exp %8 : f32
    linalg.yield %9 : f32
  } -> tensor<2x3x5x37xf32>
  %cst_0 = arith.constant 0.000000e+00 : f32
  %5 = linalg.fill ins(%cst_0 : f32) outs(%1 : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %6 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%4 : tensor<2x3x5x37xf32>) outs(%5 : tensor<2x3x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %8 = arith.addf %in, %out : f32
    linalg.yield %8 : f32
  } -> tensor<2x3x5xf32>
  %7 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%4, %6 : tensor<2x3x5x37xf32>, tensor<2x3x5xf32>) outs(%0 : tensor<2x3x5x37xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %8 = arith.divf %in, %in_1 : f32
    linalg.yield %8 : f32
  } -> tensor<2x3x5x37xf32>
  return %7 : tensor<2x3x5x37xf32>
}

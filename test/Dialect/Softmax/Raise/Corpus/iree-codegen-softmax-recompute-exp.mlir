// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: iree-org/iree@b48a5955575cf8924ffc191f3b0804976e5738b9:compiler/src/iree/compiler/Codegen/Common/test/tile_and_distribute_workgroups_using_forall.mlir (multi_use_producer_no_yield_replacement)
// Form: exp(x - max) computed twice: fused into the sum reduction and again in a two-result
//  generic whose second result (exp / sum) is returned; maxnumf
// Edits: renamed; the lowering_config attribute (IREE codegen dialect) dropped; 12x197x197 ->
//  2x3x197, 12x197 -> 2x3 (197: ViT sequence length, kept).
// Semantics: softmax over dimension 2 of tensor<2x3x197xf32>.

// CHECK-LABEL: func.func @iree_codegen_softmax_recompute_exp(
// CHECK-NOT: math.exp
// CHECK: softmax.softmax ins(%{{.*}} : tensor<2x3x197xf32>) outs(%{{.*}}) dimension(2)
// CHECK-NOT: math.exp
// CHECK: return

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @iree_codegen_softmax_recompute_exp(%7: tensor<2x3x197xf32>) -> tensor<2x3x197xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant -3.40282347E+38 : f32
  %8 = tensor.empty() : tensor<2x3x197xf32>
  %9 = tensor.empty() : tensor<2x3xf32>
  %10 = linalg.fill ins(%cst_0 : f32) outs(%9 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %11 = linalg.generic {
    indexing_maps = [#map, #map1],
    iterator_types = ["parallel", "parallel", "reduction"]
  } ins(%7 : tensor<2x3x197xf32>) outs(%10 : tensor<2x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %15 = arith.maxnumf %in, %out : f32
    linalg.yield %15 : f32
  } -> tensor<2x3xf32>
  %12 = linalg.fill ins(%cst : f32) outs(%9 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %13 = linalg.generic {
    indexing_maps = [#map, #map1, #map1],
    iterator_types = ["parallel", "parallel", "reduction"]
  } ins(%7, %11 : tensor<2x3x197xf32>, tensor<2x3xf32>)
    outs(%12 : tensor<2x3xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %15 = arith.subf %in, %in_1 : f32
    %16 = math.exp %15 : f32
    %17 = arith.addf %16, %out : f32
    linalg.yield %17 : f32
  } -> tensor<2x3xf32>
  %14:2 = linalg.generic {
    indexing_maps = [#map, #map1, #map1, #map, #map],
    iterator_types = ["parallel", "parallel", "parallel"]
  } ins(%7, %11, %13 : tensor<2x3x197xf32>, tensor<2x3xf32>, tensor<2x3xf32>)
    outs(%8, %8 : tensor<2x3x197xf32>, tensor<2x3x197xf32>) {
  ^bb0(%in: f32, %in_1: f32, %in_2: f32, %out: f32, %out_3: f32):
    %15 = arith.subf %in, %in_1 : f32
    %16 = math.exp %15 : f32
    %17 = arith.divf %16, %in_2 : f32
    linalg.yield %16, %17 : f32, f32
  } -> (tensor<2x3x197xf32>, tensor<2x3x197xf32>)
  return %14#1 : tensor<2x3x197xf32>
}

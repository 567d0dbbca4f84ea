// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: llvm/torch-mlir@51967b96a22a8e06c6ac3b3471027c792636bb03:test/python/fx_importer/iree_test/linalg-ir/Softmax.mlir (main)
// Producer: torch-mlir FX importer + torch-backend-to-linalg-on-tensors-backend-pipeline
//  (test/python/fx_importer/aten_to_linalg.py of the same commit, the head of pull request #3064,
//  exports torch.ops.aten._softmax(x, 1, False) and saves the linalg IR).
// Form: torch-mlir softmax over the last dimension: max as a two-result generic (unused i64 argmax,
//  linalg.index/cmpf/select) into a rank-1 [N] tensor, tensor.expand_shape to [N,1], (d0,0)
//  broadcast maps, sum into [N,1], divf by the sum.
// Edits: module wrapper and the unused ml_program.global @global_seed dropped; @main renamed to
//  @torch_mlir_fx_softmax; its unused i64 argument %arg1 dropped; output_shape added to
//  tensor.expand_shape (MLIR 22 syntax); tensor<128x128xf32> -> tensor<5x37xf32>, tensor<128x..> ->
//  tensor<5x..>.
// Semantics: softmax over dimension 1 of tensor<5x37xf32>.

// CHECK-LABEL: func.func @torch_mlir_fx_softmax(
// CHECK-NOT: math.exp
// CHECK: softmax.softmax ins(%{{.*}} : tensor<5x37xf32>) outs(%{{.*}}) dimension(1)
// CHECK-NOT: math.exp
// CHECK: return

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0, d1) -> (d0, 0)>
func.func @torch_mlir_fx_softmax(%arg0: tensor<5x37xf32>) -> tensor<5x37xf32> {
    %c0_i64 = arith.constant 0 : i64
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<5xi64>
    %1 = linalg.fill ins(%c0_i64 : i64) outs(%0 : tensor<5xi64>) -> tensor<5xi64>
    %2 = tensor.empty() : tensor<5xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<5xf32>) -> tensor<5xf32>
    %4:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<5x37xf32>) outs(%3, %1 : tensor<5xf32>, tensor<5xi64>) {
    ^bb0(%in: f32, %out: f32, %out_1: i64):
      %12 = linalg.index 1 : index
      %13 = arith.index_cast %12 : index to i64
      %14 = arith.maximumf %in, %out : f32
      %15 = arith.cmpf ogt, %in, %out : f32
      %16 = arith.select %15, %13, %out_1 : i64
      linalg.yield %14, %16 : f32, i64
    } -> (tensor<5xf32>, tensor<5xi64>)
    %expanded = tensor.expand_shape %4#0 [[0, 1]] output_shape [5, 1] : tensor<5xf32> into tensor<5x1xf32>
    %5 = tensor.empty() : tensor<5x37xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %expanded : tensor<5x37xf32>, tensor<5x1xf32>) outs(%5 : tensor<5x37xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %12 = arith.subf %in, %in_1 : f32
      linalg.yield %12 : f32
    } -> tensor<5x37xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<5x37xf32>) outs(%5 : tensor<5x37xf32>) {
    ^bb0(%in: f32, %out: f32):
      %12 = math.exp %in : f32
      linalg.yield %12 : f32
    } -> tensor<5x37xf32>
    %8 = tensor.empty() : tensor<5x1xf32>
    %9 = linalg.fill ins(%cst_0 : f32) outs(%8 : tensor<5x1xf32>) -> tensor<5x1xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%7 : tensor<5x37xf32>) outs(%9 : tensor<5x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %12 = arith.addf %in, %out : f32
      linalg.yield %12 : f32
    } -> tensor<5x1xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%7, %10 : tensor<5x37xf32>, tensor<5x1xf32>) outs(%5 : tensor<5x37xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %12 = arith.divf %in, %in_1 : f32
      linalg.yield %12 : f32
    } -> tensor<5x37xf32>
    return %11 : tensor<5x37xf32>
}

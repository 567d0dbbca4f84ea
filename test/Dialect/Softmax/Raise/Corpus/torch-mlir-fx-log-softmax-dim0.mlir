// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: llvm/torch-mlir@51967b96a22a8e06c6ac3b3471027c792636bb03:test/python/fx_importer/iree_test/linalg-ir/Log_softmax.mlir (main)
// Producer: torch-mlir FX importer + torch-backend-to-linalg-on-tensors-backend-pipeline
//  (test/python/fx_importer/aten_to_linalg.py of the same commit, the head of pull request #3064;
//  the torch IR it lowered, torch-aten/Log_softmax.mlir there, is the decomposed log_softmax(x,
//  dim=0): amax/sub/exp/sum/log/sub with keepdim over dimension 0).
// Form: log_softmax over the OUTERMOST dimension: max as a two-result generic with iterator types
//  ["reduction", "parallel"] (unused i64 argmax, linalg.index 0) into a rank-1 [M] tensor,
//  tensor.expand_shape to [1,M], (0,d1) broadcast maps, sum into [1,M], math.log as its own generic
//  on the [1,M] sum, then x - max - log(sum).
// Edits: module wrapper and the unused ml_program.global @global_seed dropped; @main renamed to
//  @torch_mlir_fx_log_softmax_dim0; its unused i64 argument %arg1 dropped; output_shape added to
//  tensor.expand_shape (MLIR 22 syntax); tensor<128x128xf32> -> tensor<37x5xf32> (37 along the
//  reduced dimension 0), tensor<128x..>/tensor<1x128x..> -> tensor<5x..>/tensor<1x5x..>.
// Semantics: log_softmax over dimension 0 of tensor<37x5xf32>.

// CHECK-LABEL: func.func @torch_mlir_fx_log_softmax_dim0(
// CHECK-NOT: math.exp
// CHECK: softmax.log_softmax ins(%{{.*}} : tensor<37x5xf32>) outs(%{{.*}}) dimension(0)
// CHECK-NOT: math.exp
// CHECK: return

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
#map2 = affine_map<(d0, d1) -> (0, d1)>
func.func @torch_mlir_fx_log_softmax_dim0(%arg0: tensor<37x5xf32>) -> tensor<37x5xf32> {
    %c0_i64 = arith.constant 0 : i64
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<5xi64>
    %1 = linalg.fill ins(%c0_i64 : i64) outs(%0 : tensor<5xi64>) -> tensor<5xi64>
    %2 = tensor.empty() : tensor<5xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<5xf32>) -> tensor<5xf32>
    %4:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["reduction", "parallel"]} ins(%arg0 : tensor<37x5xf32>) outs(%3, %1 : tensor<5xf32>, tensor<5xi64>) {
    ^bb0(%in: f32, %out: f32, %out_1: i64):
      %13 = linalg.index 0 : index
      %14 = arith.index_cast %13 : index to i64
      %15 = arith.maximumf %in, %out : f32
      %16 = arith.cmpf ogt, %in, %out : f32
      %17 = arith.select %16, %14, %out_1 : i64
      linalg.yield %15, %17 : f32, i64
    } -> (tensor<5xf32>, tensor<5xi64>)
    %expanded = tensor.expand_shape %4#0 [[0, 1]] output_shape [1, 5] : tensor<5xf32> into tensor<1x5xf32>
    %5 = tensor.empty() : tensor<37x5xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %expanded : tensor<37x5xf32>, tensor<1x5xf32>) outs(%5 : tensor<37x5xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %13 = arith.subf %in, %in_1 : f32
      linalg.yield %13 : f32
    } -> tensor<37x5xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<37x5xf32>) outs(%5 : tensor<37x5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = math.exp %in : f32
      linalg.yield %13 : f32
    } -> tensor<37x5xf32>
    %8 = tensor.empty() : tensor<1x5xf32>
    %9 = linalg.fill ins(%cst_0 : f32) outs(%8 : tensor<1x5xf32>) -> tensor<1x5xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["reduction", "parallel"]} ins(%7 : tensor<37x5xf32>) outs(%9 : tensor<1x5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = arith.addf %in, %out : f32
      linalg.yield %13 : f32
    } -> tensor<1x5xf32>
    %11 = linalg.generic {indexing_maps = [#map2, #map], iterator_types = ["parallel", "parallel"]} ins(%10 : tensor<1x5xf32>) outs(%8 : tensor<1x5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = math.log %in : f32
      linalg.yield %13 : f32
    } -> tensor<1x5xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%6, %11 : tensor<37x5xf32>, tensor<1x5xf32>) outs(%5 : tensor<37x5xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %13 = arith.subf %in, %in_1 : f32
      linalg.yield %13 : f32
    } -> tensor<37x5xf32>
    return %12 : tensor<37x5xf32>
}

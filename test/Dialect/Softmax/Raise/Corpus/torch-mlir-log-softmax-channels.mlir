// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: plaidml/mlir-generator@4457cbf8207f595fdc049b09954c5c515acb28bf:pytorch/torch-dynamo/mlir/conv.mlir (forward: log_softmax(dim=1) of the second convolution's ReLU output)
// Form: log_softmax over a middle dimension (NCHW channels): two-result max with linalg.index 1,
//  keepdim [1,1,H,W] with (d0,0,d2,d3) and (0,0,d2,d3) maps, math.log generic
// Edits: the final log_softmax of @forward cut out: the ReLU output %7 is the argument; the
//  constants it uses and the tensor.empty %4 kept; tensor<1x2x3x3xf32> -> tensor<1x37x5x3xf32> (2
//  channels -> 37, 3x3 -> 5x3; the batch stays 1: (0, ..) maps).
// Semantics: log_softmax over dimension 1 of tensor<1x37x5x3xf32>.

// CHECK-LABEL: func.func @torch_mlir_log_softmax_channels(
// CHECK-NOT: math.exp
// CHECK: softmax.log_softmax ins(%{{.*}} : tensor<1x37x5x3xf32>) outs(%{{.*}}) dimension(1)
// CHECK-NOT: math.exp
// CHECK: return

#map = affine_map<(d0, d1, d2, d3) -> (d1)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
#map4 = affine_map<(d0, d1, d2, d3) -> (0, 0, d2, d3)>
func.func @torch_mlir_log_softmax_channels(%7: tensor<1x37x5x3xf32>) -> tensor<1x37x5x3xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0xFF800000 : f32
    %c0_i64 = arith.constant 0 : i64
    %4 = tensor.empty() : tensor<1x37x5x3xf32>
    %8 = tensor.empty() : tensor<1x1x5x3xi64>
    %9 = linalg.fill ins(%c0_i64 : i64) outs(%8 : tensor<1x1x5x3xi64>) -> tensor<1x1x5x3xi64>
    %10 = tensor.empty() : tensor<1x1x5x3xf32>
    %11 = linalg.fill ins(%cst_0 : f32) outs(%10 : tensor<1x1x5x3xf32>) -> tensor<1x1x5x3xf32>
    %12:2 = linalg.generic {indexing_maps = [#map1, #map3, #map3], iterator_types = ["parallel", "reduction", "parallel", "parallel"]} ins(%7 : tensor<1x37x5x3xf32>) outs(%11, %9 : tensor<1x1x5x3xf32>, tensor<1x1x5x3xi64>) {
    ^bb0(%in: f32, %out: f32, %out_1: i64):
      %19 = linalg.index 1 : index
      %20 = arith.index_cast %19 : index to i64
      %21 = arith.maximumf %in, %out : f32
      %22 = arith.cmpf ogt, %in, %out : f32
      %23 = arith.select %22, %20, %out_1 : i64
      linalg.yield %21, %23 : f32, i64
    } -> (tensor<1x1x5x3xf32>, tensor<1x1x5x3xi64>)
    %13 = linalg.generic {indexing_maps = [#map2, #map4, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%7, %12#0 : tensor<1x37x5x3xf32>, tensor<1x1x5x3xf32>) outs(%4 : tensor<1x37x5x3xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %19 = arith.subf %in, %in_1 : f32
      linalg.yield %19 : f32
    } -> tensor<1x37x5x3xf32>
    %14 = linalg.generic {indexing_maps = [#map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%13 : tensor<1x37x5x3xf32>) outs(%4 : tensor<1x37x5x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %19 = math.exp %in : f32
      linalg.yield %19 : f32
    } -> tensor<1x37x5x3xf32>
    %15 = linalg.fill ins(%cst : f32) outs(%10 : tensor<1x1x5x3xf32>) -> tensor<1x1x5x3xf32>
    %16 = linalg.generic {indexing_maps = [#map1, #map3], iterator_types = ["parallel", "reduction", "parallel", "parallel"]} ins(%14 : tensor<1x37x5x3xf32>) outs(%15 : tensor<1x1x5x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %19 = arith.addf %in, %out : f32
      linalg.yield %19 : f32
    } -> tensor<1x1x5x3xf32>
    %17 = linalg.generic {indexing_maps = [#map4, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%16 : tensor<1x1x5x3xf32>) outs(%10 : tensor<1x1x5x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %19 = math.log %in : f32
      linalg.yield %19 : f32
    } -> tensor<1x1x5x3xf32>
    %18 = linalg.generic {indexing_maps = [#map2, #map4, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%13, %17 : tensor<1x37x5x3xf32>, tensor<1x1x5x3xf32>) outs(%4 : tensor<1x37x5x3xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %19 = arith.subf %in, %in_1 : f32
      linalg.yield %19 : f32
    } -> tensor<1x37x5x3xf32>
    return %18 : tensor<1x37x5x3xf32>
}

// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: plaidml/mlir-generator@4457cbf8207f595fdc049b09954c5c515acb28bf:pytorch/torch-script/mlir/conv.mlir (forward (tosa section): log_softmax(dim=1))
// Converted from Inputs/torch-mlir-tosa-log-softmax-channels.tosa.mlir with: mlir-opt
//  --pass-pipeline='builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor,convert-elementwise-to-linalg))'
// Form: tosa-to-linalg of a log_softmax over axis 1 of NCHW: linalg.reduce dimensions = [1],
//  expand_shape to [1,1,H,W], broadcasts with constant-0 map results
// Edits: the log_softmax at the end of @forward (tosa section) cut out: the clamped convolution
//  output %15 is the argument; tensor<1x2x3x3xf32> -> tensor<1x37x5x3xf32>, tensor<1x1x3x3xf32> ->
//  tensor<1x1x5x3xf32>; after conversion, the dead tosa.const_shape ops (operands of the converted
//  tosa.reshape ops) deleted.
// Semantics: log_softmax over dimension 1 of tensor<1x37x5x3xf32>.

// CHECK-LABEL: func.func @torch_mlir_tosa_log_softmax_channels(
// CHECK-NOT: math.exp
// CHECK: softmax.log_softmax ins(%{{.*}} : tensor<1x37x5x3xf32>) outs(%{{.*}}) dimension(1)
// CHECK-NOT: math.exp
// CHECK: return

#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
func.func @torch_mlir_tosa_log_softmax_channels(%arg0: tensor<1x37x5x3xf32>) -> tensor<1x37x5x3xf32> {
  %0 = tensor.empty() : tensor<1x5x3xf32>
  %cst = arith.constant -3.40282347E+38 : f32
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x5x3xf32>) -> tensor<1x5x3xf32>
  %reduced = linalg.reduce ins(%arg0 : tensor<1x37x5x3xf32>) outs(%1 : tensor<1x5x3xf32>) dimensions = [1] 
    (%in: f32, %init: f32) {
      %12 = arith.maximumf %in, %init : f32
      linalg.yield %12 : f32
    }
  %expanded = tensor.expand_shape %reduced [[0], [1, 2], [3]] output_shape [1, 1, 5, 3] : tensor<1x5x3xf32> into tensor<1x1x5x3xf32>
  %2 = tensor.empty() : tensor<1x37x5x3xf32>
  %3 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0, %expanded : tensor<1x37x5x3xf32>, tensor<1x1x5x3xf32>) outs(%2 : tensor<1x37x5x3xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %12 = arith.subf %in, %in_3 : f32
    linalg.yield %12 : f32
  } -> tensor<1x37x5x3xf32>
  %4 = tensor.empty() : tensor<1x37x5x3xf32>
  %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%3 : tensor<1x37x5x3xf32>) outs(%4 : tensor<1x37x5x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %12 = math.exp %in : f32
    linalg.yield %12 : f32
  } -> tensor<1x37x5x3xf32>
  %6 = tensor.empty() : tensor<1x5x3xf32>
  %cst_0 = arith.constant 0.000000e+00 : f32
  %7 = linalg.fill ins(%cst_0 : f32) outs(%6 : tensor<1x5x3xf32>) -> tensor<1x5x3xf32>
  %reduced_1 = linalg.reduce ins(%5 : tensor<1x37x5x3xf32>) outs(%7 : tensor<1x5x3xf32>) dimensions = [1] 
    (%in: f32, %init: f32) {
      %12 = arith.addf %in, %init : f32
      linalg.yield %12 : f32
    }
  %expanded_2 = tensor.expand_shape %reduced_1 [[0], [1, 2], [3]] output_shape [1, 1, 5, 3] : tensor<1x5x3xf32> into tensor<1x1x5x3xf32>
  %8 = tensor.empty() : tensor<1x1x5x3xf32>
  %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_2 : tensor<1x1x5x3xf32>) outs(%8 : tensor<1x1x5x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %12 = math.log %in : f32
    linalg.yield %12 : f32
  } -> tensor<1x1x5x3xf32>
  %10 = tensor.empty() : tensor<1x37x5x3xf32>
  %11 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%3, %9 : tensor<1x37x5x3xf32>, tensor<1x1x5x3xf32>) outs(%10 : tensor<1x37x5x3xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %12 = arith.subf %in, %in_3 : f32
    linalg.yield %12 : f32
  } -> tensor<1x37x5x3xf32>
  return %11 : tensor<1x37x5x3xf32>
}

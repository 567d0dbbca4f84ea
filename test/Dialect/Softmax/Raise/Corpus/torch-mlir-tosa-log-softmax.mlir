// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: plaidml/mlir-generator@4457cbf8207f595fdc049b09954c5c515acb28bf:pytorch/torch-script/mlir/linear.mlir (forward (tosa section): the log_softmax of the logits)
// Converted from Inputs/torch-mlir-tosa-log-softmax.tosa.mlir with: mlir-opt
//  --pass-pipeline='builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor,convert-elementwise-to-linalg))'
// Form: tosa-to-linalg of torch-mlir's TOSA log_softmax: reduce_max/sub/exp/reduce_sum/log/sub
//  with [N,1] keepdim results (expand_shape of the reductions)
// Edits: the log_softmax at the end of @forward (tosa section) cut out: the clamped logits %18 are
//  the argument; tensor<2x10xf32> -> tensor<3x37xf32>, tensor<2x1xf32> -> tensor<3x1xf32>; after
//  conversion, the dead tosa.const_shape ops (operands of the converted tosa.reshape ops) deleted.
// Semantics: log_softmax over dimension 1 of tensor<3x37xf32>.

// CHECK-LABEL: func.func @torch_mlir_tosa_log_softmax(
// CHECK-NOT: math.exp
// CHECK: softmax.log_softmax ins(%{{.*}} : tensor<3x37xf32>) outs(%{{.*}}) dimension(1)
// CHECK-NOT: math.exp
// CHECK: return

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
func.func @torch_mlir_tosa_log_softmax(%arg0: tensor<3x37xf32>) -> tensor<3x37xf32> {
  %0 = tensor.empty() : tensor<3xf32>
  %cst = arith.constant -3.40282347E+38 : f32
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<3xf32>) -> tensor<3xf32>
  %reduced = linalg.reduce ins(%arg0 : tensor<3x37xf32>) outs(%1 : tensor<3xf32>) dimensions = [1] 
    (%in: f32, %init: f32) {
      %12 = arith.maximumf %in, %init : f32
      linalg.yield %12 : f32
    }
  %expanded = tensor.expand_shape %reduced [[0, 1]] output_shape [3, 1] : tensor<3xf32> into tensor<3x1xf32>
  %2 = tensor.empty() : tensor<3x37xf32>
  %3 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %expanded : tensor<3x37xf32>, tensor<3x1xf32>) outs(%2 : tensor<3x37xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %12 = arith.subf %in, %in_3 : f32
    linalg.yield %12 : f32
  } -> tensor<3x37xf32>
  %4 = tensor.empty() : tensor<3x37xf32>
  %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%3 : tensor<3x37xf32>) outs(%4 : tensor<3x37xf32>) {
  ^bb0(%in: f32, %out: f32):
    %12 = math.exp %in : f32
    linalg.yield %12 : f32
  } -> tensor<3x37xf32>
  %6 = tensor.empty() : tensor<3xf32>
  %cst_0 = arith.constant 0.000000e+00 : f32
  %7 = linalg.fill ins(%cst_0 : f32) outs(%6 : tensor<3xf32>) -> tensor<3xf32>
  %reduced_1 = linalg.reduce ins(%5 : tensor<3x37xf32>) outs(%7 : tensor<3xf32>) dimensions = [1] 
    (%in: f32, %init: f32) {
      %12 = arith.addf %in, %init : f32
      linalg.yield %12 : f32
    }
  %expanded_2 = tensor.expand_shape %reduced_1 [[0, 1]] output_shape [3, 1] : tensor<3xf32> into tensor<3x1xf32>
  %8 = tensor.empty() : tensor<3x1xf32>
  %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%expanded_2 : tensor<3x1xf32>) outs(%8 : tensor<3x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %12 = math.log %in : f32
    linalg.yield %12 : f32
  } -> tensor<3x1xf32>
  %10 = tensor.empty() : tensor<3x37xf32>
  %11 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %9 : tensor<3x37xf32>, tensor<3x1xf32>) outs(%10 : tensor<3x37xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %12 = arith.subf %in, %in_3 : f32
    linalg.yield %12 : f32
  } -> tensor<3x37xf32>
  return %11 : tensor<3x37xf32>
}

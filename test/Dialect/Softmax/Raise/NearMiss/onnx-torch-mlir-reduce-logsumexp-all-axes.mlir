// RUN: softmax-opt %s --softmax-raise | FileCheck %s
// RUN: softmax-opt %s --softmax-raise=remarks=true -verify-diagnostics -o /dev/null
//
// A near miss: ONNX's ReduceLogSumExp, log(sum(exp(x))) with no max
// subtracted. softmax.logsumexp would not overflow where this does (x above
// 709 in f64), so softmax-raise leaves it and says why.
//
// Origin: renxida/torch-mlir@cb60e81586375d036c551c73b2331cf412328dd0:issue450/test_reduce_log_sum_exp_default_axes_keepdims_example_1.mlir.linalg.mlir (test_reduce_log_sum_exp_default_axes_keepdims_example)
// Producer: ONNX through torch-mlir: the ONNX backend test
//  test_reduce_log_sum_exp_default_axes_keepdims_example (onnx.ReduceLogSumExp with the default
//  (empty) axes, i.e. all axes, keepdims = 1, opset 18; the lit test input
//  issue450/test_reduce_log_sum_exp_default_axes_keepdims_example_1.mlir of the same commit)
//  converted by tabulate_issue450.py of the same commit with torch-mlir-opt
//  --convert-torch-onnx-to-torch, --torch-decompose-complex-ops and
//  --torch-backend-to-linalg-on-tensors-backend-pipeline (each with --canonicalize).
// Form: logsumexp over ALL dimensions, computed without a max: extf to f64, exp, a sum with three
//  reduction iterators into [1,1,1] through a (0,0,0) map, math.log as its own generic, truncf back
//  to f32.
// Edits: module wrapper and the unused ml_program.global @global_seed dropped; renamed to
//  @onnx_torch_mlir_reduce_logsumexp_all_axes; its unused tensor<0xi64> axes argument %arg1 (empty:
//  all axes) dropped; shapes kept (3x2x2).
// Semantics: logsumexp over dimensions 0, 1 and 2 together of tensor<3x2x2xf32>, result
//  tensor<1x1x1xf32> (computed in f64 without max subtraction: exact for moderate inputs,
//  overflowing where exp(x) does in f64).

// CHECK-LABEL: func.func @onnx_torch_mlir_reduce_logsumexp_all_axes(
// CHECK-NOT: softmax.
// CHECK: math.exp
// CHECK-NOT: softmax.
// CHECK: return

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (0, 0, 0)>
func.func @onnx_torch_mlir_reduce_logsumexp_all_axes(%arg0: tensor<3x2x2xf32>) -> tensor<1x1x1xf32> {
  %cst = arith.constant 0.000000e+00 : f64
  %0 = tensor.empty() : tensor<3x2x2xf64>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<3x2x2xf32>) outs(%0 : tensor<3x2x2xf64>) {
  ^bb0(%in: f32, %out: f64):
    %9 = arith.extf %in : f32 to f64
    linalg.yield %9 : f64
  } -> tensor<3x2x2xf64>
  %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1 : tensor<3x2x2xf64>) outs(%0 : tensor<3x2x2xf64>) {
  ^bb0(%in: f64, %out: f64):
    %9 = math.exp %in : f64
    linalg.yield %9 : f64
  } -> tensor<3x2x2xf64>
  %3 = tensor.empty() : tensor<1x1x1xf64>
  %4 = linalg.fill ins(%cst : f64) outs(%3 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  %5 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction", "reduction", "reduction"]} ins(%2 : tensor<3x2x2xf64>) outs(%4 : tensor<1x1x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %9 = arith.addf %in, %out : f64
    linalg.yield %9 : f64
  } -> tensor<1x1x1xf64>
  %6 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%5 : tensor<1x1x1xf64>) outs(%3 : tensor<1x1x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %9 = math.log %in : f64
    linalg.yield %9 : f64
  } -> tensor<1x1x1xf64>
  %7 = tensor.empty() : tensor<1x1x1xf32>
  // expected-remark @below {{softmax-raise: softmax-shaped computation not raised: log of a sum of exp with no max subtracted: exp overflows there where logsumexp does not}}
  %8 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6 : tensor<1x1x1xf64>) outs(%7 : tensor<1x1x1xf32>) {
  ^bb0(%in: f64, %out: f32):
    %9 = arith.truncf %in : f64 to f32
    linalg.yield %9 : f32
  } -> tensor<1x1x1xf32>
  return %8 : tensor<1x1x1xf32>
}

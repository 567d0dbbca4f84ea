// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: plaidml/mlir-generator@4457cbf8207f595fdc049b09954c5c515acb28bf:iree/mlir/minilm.py.mlir (__inference_predict_63530, %310 .. %327: the softmax of the first layer's attention scores)
// Producer: TensorFlow -> MHLO -> linalg-on-tensors by IREE's iree-mhlo-to-linalg-on-tensors (the
//  TF/XLA path that StableHLO-to-linalg replaced), dumped with
//  --mlir-print-ir-after=iree-mhlo-to-linalg-on-tensors by iree/scripts/dump_linalg.sh of the same
//  commit (2022, model script iree/models/minilm.py: HuggingFace TFBertModel
//  microsoft/MiniLM-L12-H384-uncased).
// Form: mhlo-to-linalg of HF transformers' stable_softmax (tf.nn.softmax over the last axis):
//  reductions as linalg.generic whose bodies are the converted mhlo reduce regions
//  (tensor.from_elements / tensor.extract of 0-d tensors around arith.maximumf / arith.addf), -inf
//  and -0.0 seeds, tensor.expand_shape to [..,1], broadcast generics with (d0,d1,d2,0) maps, subf,
//  exp and divf generics
// Edits: the first softmax of @__inference_predict_63530 cut out: the masked scores %309 are the
//  argument, %327 the result; renamed; tensor<1x12x512x512xf32> -> tensor<1x3x5x37xf32> (12 heads ->
//  3, 512 queries -> 5, 512 keys -> 37), tensor<1x12x512x..> -> tensor<1x3x5x..>; the dump's own
//  damage repaired as the file's dump script caused it: its sed `/\^bb/ s/ loc(fused.*)/)/` cut
//  every block argument after the first, so the block arguments are restored (one per ins/outs
//  operand, named %argN, %argN+1, .. in order, typed by the operand's element type), and a residual
//  ` loc(unknown)` dropped; MLIR syntax of 2022 brought to MLIR 22: linalg.init_tensor [..] : T ->
//  tensor.empty() : T, arith.maxf -> arith.maximumf, output_shape added to tensor.expand_shape (the
//  repair is tools-free and mechanical).
// Semantics: softmax over dimension 3 of tensor<1x3x5x37xf32>.

// CHECK-LABEL: func.func @iree_mhlo_tf_minilm_softmax(
// CHECK-NOT: math.exp
// CHECK: softmax.softmax ins(%{{.*}} : tensor<1x3x5x37xf32>) outs(%{{.*}}) dimension(3)
// CHECK-NOT: math.exp
// CHECK: return
func.func @iree_mhlo_tf_minilm_softmax(%309: tensor<1x3x5x37xf32>) -> tensor<1x3x5x37xf32> {
  %cst_15 = arith.constant 0xFF800000 : f32
  %310 = tensor.empty() : tensor<1x3x5xf32>
  %311 = linalg.fill ins(%cst_15 : f32) outs(%310 : tensor<1x3x5xf32>) -> tensor<1x3x5xf32>
  %312 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%309 : tensor<1x3x5x37xf32>) outs(%311 : tensor<1x3x5xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    %3531 = tensor.from_elements %arg4 : tensor<f32>
    %3532 = tensor.from_elements %arg3 : tensor<f32>
    %3533 = tensor.extract %3531[] : tensor<f32>
    %3534 = tensor.extract %3532[] : tensor<f32>
    %3535 = arith.maximumf %3533, %3534 : f32
    %3536 = tensor.from_elements %3535 : tensor<f32>
    %3537 = tensor.extract %3536[] : tensor<f32>
    linalg.yield %3537 : f32
  } -> tensor<1x3x5xf32>
  %313 = tensor.expand_shape %312 [[0], [1], [2, 3]] output_shape [1, 3, 5, 1] : tensor<1x3x5xf32> into tensor<1x3x5x1xf32>
  %314 = tensor.empty() : tensor<1x3x5x37xf32>
  %315 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%313 : tensor<1x3x5x1xf32>) outs(%314 : tensor<1x3x5x37xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    linalg.yield %arg3 : f32
  } -> tensor<1x3x5x37xf32>
  %316 = tensor.empty() : tensor<1x3x5x37xf32>
  %317 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%309, %315 : tensor<1x3x5x37xf32>, tensor<1x3x5x37xf32>) outs(%316 : tensor<1x3x5x37xf32>) {
  ^bb0(%arg3: f32, %arg4: f32, %arg5: f32):
    %3531 = arith.subf %arg3, %arg4 : f32
    linalg.yield %3531 : f32
  } -> tensor<1x3x5x37xf32>
  %318 = tensor.empty() : tensor<1x3x5x37xf32>
  %319 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%317 : tensor<1x3x5x37xf32>) outs(%318 : tensor<1x3x5x37xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    %3531 = math.exp %arg3 : f32
    linalg.yield %3531 : f32
  } -> tensor<1x3x5x37xf32>
  %cst_16 = arith.constant -0.000000e+00 : f32
  %320 = tensor.empty() : tensor<1x3x5xf32>
  %321 = linalg.fill ins(%cst_16 : f32) outs(%320 : tensor<1x3x5xf32>) -> tensor<1x3x5xf32>
  %322 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%319 : tensor<1x3x5x37xf32>) outs(%321 : tensor<1x3x5xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    %3531 = tensor.from_elements %arg4 : tensor<f32>
    %3532 = tensor.from_elements %arg3 : tensor<f32>
    %3533 = tensor.extract %3531[] : tensor<f32>
    %3534 = tensor.extract %3532[] : tensor<f32>
    %3535 = arith.addf %3533, %3534 : f32
    %3536 = tensor.from_elements %3535 : tensor<f32>
    %3537 = tensor.extract %3536[] : tensor<f32>
    linalg.yield %3537 : f32
  } -> tensor<1x3x5xf32>
  %323 = tensor.expand_shape %322 [[0], [1], [2, 3]] output_shape [1, 3, 5, 1] : tensor<1x3x5xf32> into tensor<1x3x5x1xf32>
  %324 = tensor.empty() : tensor<1x3x5x37xf32>
  %325 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%323 : tensor<1x3x5x1xf32>) outs(%324 : tensor<1x3x5x37xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    linalg.yield %arg3 : f32
  } -> tensor<1x3x5x37xf32>
  %326 = tensor.empty() : tensor<1x3x5x37xf32>
  %327 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%319, %325 : tensor<1x3x5x37xf32>, tensor<1x3x5x37xf32>) outs(%326 : tensor<1x3x5x37xf32>) {
  ^bb0(%arg3: f32, %arg4: f32, %arg5: f32):
    %3531 = arith.divf %arg3, %arg4 : f32
    linalg.yield %3531 : f32
  } -> tensor<1x3x5x37xf32>
  return %327 : tensor<1x3x5x37xf32>
}

// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: plaidml/mlir-generator@4457cbf8207f595fdc049b09954c5c515acb28bf:iree/mlir/minilm.py.mlir (__inference_predict_63530, %0 .. %10 and %278 .. %347: the attention mask and the first layer's self-attention)
// Producer: TensorFlow -> MHLO -> linalg-on-tensors by IREE's iree-mhlo-to-linalg-on-tensors (the
//  TF/XLA path that StableHLO-to-linalg replaced), dumped with
//  --mlir-print-ir-after=iree-mhlo-to-linalg-on-tensors by iree/scripts/dump_linalg.sh of the same
//  commit (2022, model script iree/models/minilm.py: HuggingFace TFBertModel
//  microsoft/MiniLM-L12-H384-uncased).
// Form: mhlo-to-linalg of HF TFBertSelfAttention: Q, K, V [1,S,H*D] split by tensor.expand_shape, Q
//  transposed to [1,H,S,D] and K to [1,H,D,S] by copy generics (K^T in one (d0,d3,d1,d2)
//  permutation), linalg.batch_matmul on collapse_shape'd [H,..] operands, the scale as mulf by a
//  broadcast 0-d tensor<f32> constant (1/sqrt(32)), the additive mask (1 - float(attention_mask)) *
//  -1e4 computed from the i32 [1,S] input and broadcast by a (d0,0,0,d3) map, + 1e-9
//  (stable_softmax), the mhlo softmax (0-d tensor reduce bodies), P.V by batch_matmul, the output
//  transposed back and collapsed to [S, H*D]
// Edits: the first self-attention of @__inference_predict_63530 cut out: the input attention_mask
//  %arg1 (i32 [1, S]) and the key/query/value projections %277/%286/%335 (bias added, [1, S, H*D])
//  are arguments, %347 the result; the mask computation %0 .. %10 and the four 0-d constants it uses
//  (%cst_2, %cst_3, %cst_5, %cst_8) kept; the projections' matmuls and bias generics (%279 .. %286,
//  %328 .. %335) dropped; renamed; sequence 512 -> 13, 12 heads -> 3, head dim 32 -> 16 (hidden 384
//  -> 48); the scale 0.176776692 (1/sqrt(32)) kept; the dump's own damage repaired as the file's
//  dump script caused it: its sed `/\^bb/ s/ loc(fused.*)/)/` cut every block argument after the
//  first, so the block arguments are restored (one per ins/outs operand, named %argN, %argN+1, .. in
//  order, typed by the operand's element type), and a residual ` loc(unknown)` dropped; MLIR syntax
//  of 2022 brought to MLIR 22: linalg.init_tensor [..] : T -> tensor.empty() : T, arith.maxf ->
//  arith.maximumf, output_shape added to tensor.expand_shape (the repair is tools-free and
//  mechanical).
// Semantics: softmax(Q K^T * 0.176776692 + (1 - m) * -1e4 + 1e-9) V per head, m the i32 attention
//  mask [1, S] broadcast over heads and queries (the +1e-9 leaves softmax unchanged); Q (%286), K
//  (%277), V (%335) are [1, S, H*D] split into 3 heads of 16; result [S, H*D].

// CHECK-LABEL: func.func @iree_mhlo_tf_minilm_attention(
// CHECK-NOT: math.exp
// CHECK: softmax.attention ins(%{{[^,]*}}, %{{[^,]*}}, %{{[^,:]*}}, %{{[^,:]*}} :{{.*}} scale({{(0\.176776|1\.76776)[0-9]*(e-01)?}})
// CHECK-NOT: math.exp
// CHECK: return
func.func @iree_mhlo_tf_minilm_attention(%arg1: tensor<1x13xi32>, %277: tensor<1x13x48xf32>, %286: tensor<1x13x48xf32>, %335: tensor<1x13x48xf32>) -> tensor<13x48xf32> {
  %cst_2 = arith.constant dense<-1.000000e+04> : tensor<f32>
  %cst_3 = arith.constant dense<1.000000e+00> : tensor<f32>
  %cst_5 = arith.constant dense<9.99999971E-10> : tensor<f32>
  %cst_8 = arith.constant dense<0.176776692> : tensor<f32>
  %0 = tensor.expand_shape %arg1 [[0], [1, 2, 3]] output_shape [1, 1, 1, 13] : tensor<1x13xi32> into tensor<1x1x1x13xi32>
  %1 = tensor.empty() : tensor<1x1x1x13xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%0 : tensor<1x1x1x13xi32>) outs(%1 : tensor<1x1x1x13xf32>) {
  ^bb0(%arg3: i32, %arg4: f32):
    %3531 = arith.sitofp %arg3 : i32 to f32
    linalg.yield %3531 : f32
  } -> tensor<1x1x1x13xf32>
  %3 = tensor.empty() : tensor<1x1x1x13xf32>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cst_3 : tensor<f32>) outs(%3 : tensor<1x1x1x13xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    linalg.yield %arg3 : f32
  } -> tensor<1x1x1x13xf32>
  %5 = tensor.empty() : tensor<1x1x1x13xf32>
  %6 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%4, %2 : tensor<1x1x1x13xf32>, tensor<1x1x1x13xf32>) outs(%5 : tensor<1x1x1x13xf32>) {
  ^bb0(%arg3: f32, %arg4: f32, %arg5: f32):
    %3531 = arith.subf %arg3, %arg4 : f32
    linalg.yield %3531 : f32
  } -> tensor<1x1x1x13xf32>
  %7 = tensor.empty() : tensor<1x1x1x13xf32>
  %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cst_2 : tensor<f32>) outs(%7 : tensor<1x1x1x13xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    linalg.yield %arg3 : f32
  } -> tensor<1x1x1x13xf32>
  %9 = tensor.empty() : tensor<1x1x1x13xf32>
  %10 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%6, %8 : tensor<1x1x1x13xf32>, tensor<1x1x1x13xf32>) outs(%9 : tensor<1x1x1x13xf32>) {
  ^bb0(%arg3: f32, %arg4: f32, %arg5: f32):
    %3531 = arith.mulf %arg3, %arg4 : f32
    linalg.yield %3531 : f32
  } -> tensor<1x1x1x13xf32>
  %278 = tensor.expand_shape %277 [[0], [1], [2, 3]] output_shape [1, 13, 3, 16] : tensor<1x13x48xf32> into tensor<1x13x3x16xf32>
  %287 = tensor.expand_shape %286 [[0], [1], [2, 3]] output_shape [1, 13, 3, 16] : tensor<1x13x48xf32> into tensor<1x13x3x16xf32>
  %288 = tensor.empty() : tensor<1x3x13x16xf32>
  %289 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%287 : tensor<1x13x3x16xf32>) outs(%288 : tensor<1x3x13x16xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    linalg.yield %arg3 : f32
  } -> tensor<1x3x13x16xf32>
  %290 = tensor.empty() : tensor<1x3x16x13xf32>
  %291 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%278 : tensor<1x13x3x16xf32>) outs(%290 : tensor<1x3x16x13xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    linalg.yield %arg3 : f32
  } -> tensor<1x3x16x13xf32>
  %292 = tensor.collapse_shape %289 [[0, 1], [2], [3]] : tensor<1x3x13x16xf32> into tensor<3x13x16xf32>
  %293 = tensor.collapse_shape %291 [[0, 1], [2], [3]] : tensor<1x3x16x13xf32> into tensor<3x16x13xf32>
  %294 = tensor.empty() : tensor<3x13x13xf32>
  %cst_14 = arith.constant 0.000000e+00 : f32
  %295 = linalg.fill ins(%cst_14 : f32) outs(%294 : tensor<3x13x13xf32>) -> tensor<3x13x13xf32>
  %296 = linalg.batch_matmul ins(%292, %293 : tensor<3x13x16xf32>, tensor<3x16x13xf32>) outs(%295 : tensor<3x13x13xf32>) -> tensor<3x13x13xf32>
  %297 = tensor.expand_shape %296 [[0, 1], [2], [3]] output_shape [1, 3, 13, 13] : tensor<3x13x13xf32> into tensor<1x3x13x13xf32>
  %298 = tensor.empty() : tensor<1x3x13x13xf32>
  %299 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cst_8 : tensor<f32>) outs(%298 : tensor<1x3x13x13xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    linalg.yield %arg3 : f32
  } -> tensor<1x3x13x13xf32>
  %300 = tensor.empty() : tensor<1x3x13x13xf32>
  %301 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%297, %299 : tensor<1x3x13x13xf32>, tensor<1x3x13x13xf32>) outs(%300 : tensor<1x3x13x13xf32>) {
  ^bb0(%arg3: f32, %arg4: f32, %arg5: f32):
    %3531 = arith.mulf %arg3, %arg4 : f32
    linalg.yield %3531 : f32
  } -> tensor<1x3x13x13xf32>
  %302 = tensor.empty() : tensor<1x3x13x13xf32>
  %303 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%10 : tensor<1x1x1x13xf32>) outs(%302 : tensor<1x3x13x13xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    linalg.yield %arg3 : f32
  } -> tensor<1x3x13x13xf32>
  %304 = tensor.empty() : tensor<1x3x13x13xf32>
  %305 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%301, %303 : tensor<1x3x13x13xf32>, tensor<1x3x13x13xf32>) outs(%304 : tensor<1x3x13x13xf32>) {
  ^bb0(%arg3: f32, %arg4: f32, %arg5: f32):
    %3531 = arith.addf %arg3, %arg4 : f32
    linalg.yield %3531 : f32
  } -> tensor<1x3x13x13xf32>
  %306 = tensor.empty() : tensor<1x3x13x13xf32>
  %307 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cst_5 : tensor<f32>) outs(%306 : tensor<1x3x13x13xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    linalg.yield %arg3 : f32
  } -> tensor<1x3x13x13xf32>
  %308 = tensor.empty() : tensor<1x3x13x13xf32>
  %309 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%305, %307 : tensor<1x3x13x13xf32>, tensor<1x3x13x13xf32>) outs(%308 : tensor<1x3x13x13xf32>) {
  ^bb0(%arg3: f32, %arg4: f32, %arg5: f32):
    %3531 = arith.addf %arg3, %arg4 : f32
    linalg.yield %3531 : f32
  } -> tensor<1x3x13x13xf32>
  %cst_15 = arith.constant 0xFF800000 : f32
  %310 = tensor.empty() : tensor<1x3x13xf32>
  %311 = linalg.fill ins(%cst_15 : f32) outs(%310 : tensor<1x3x13xf32>) -> tensor<1x3x13xf32>
  %312 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%309 : tensor<1x3x13x13xf32>) outs(%311 : tensor<1x3x13xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    %3531 = tensor.from_elements %arg4 : tensor<f32>
    %3532 = tensor.from_elements %arg3 : tensor<f32>
    %3533 = tensor.extract %3531[] : tensor<f32>
    %3534 = tensor.extract %3532[] : tensor<f32>
    %3535 = arith.maximumf %3533, %3534 : f32
    %3536 = tensor.from_elements %3535 : tensor<f32>
    %3537 = tensor.extract %3536[] : tensor<f32>
    linalg.yield %3537 : f32
  } -> tensor<1x3x13xf32>
  %313 = tensor.expand_shape %312 [[0], [1], [2, 3]] output_shape [1, 3, 13, 1] : tensor<1x3x13xf32> into tensor<1x3x13x1xf32>
  %314 = tensor.empty() : tensor<1x3x13x13xf32>
  %315 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%313 : tensor<1x3x13x1xf32>) outs(%314 : tensor<1x3x13x13xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    linalg.yield %arg3 : f32
  } -> tensor<1x3x13x13xf32>
  %316 = tensor.empty() : tensor<1x3x13x13xf32>
  %317 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%309, %315 : tensor<1x3x13x13xf32>, tensor<1x3x13x13xf32>) outs(%316 : tensor<1x3x13x13xf32>) {
  ^bb0(%arg3: f32, %arg4: f32, %arg5: f32):
    %3531 = arith.subf %arg3, %arg4 : f32
    linalg.yield %3531 : f32
  } -> tensor<1x3x13x13xf32>
  %318 = tensor.empty() : tensor<1x3x13x13xf32>
  %319 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%317 : tensor<1x3x13x13xf32>) outs(%318 : tensor<1x3x13x13xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    %3531 = math.exp %arg3 : f32
    linalg.yield %3531 : f32
  } -> tensor<1x3x13x13xf32>
  %cst_16 = arith.constant -0.000000e+00 : f32
  %320 = tensor.empty() : tensor<1x3x13xf32>
  %321 = linalg.fill ins(%cst_16 : f32) outs(%320 : tensor<1x3x13xf32>) -> tensor<1x3x13xf32>
  %322 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%319 : tensor<1x3x13x13xf32>) outs(%321 : tensor<1x3x13xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    %3531 = tensor.from_elements %arg4 : tensor<f32>
    %3532 = tensor.from_elements %arg3 : tensor<f32>
    %3533 = tensor.extract %3531[] : tensor<f32>
    %3534 = tensor.extract %3532[] : tensor<f32>
    %3535 = arith.addf %3533, %3534 : f32
    %3536 = tensor.from_elements %3535 : tensor<f32>
    %3537 = tensor.extract %3536[] : tensor<f32>
    linalg.yield %3537 : f32
  } -> tensor<1x3x13xf32>
  %323 = tensor.expand_shape %322 [[0], [1], [2, 3]] output_shape [1, 3, 13, 1] : tensor<1x3x13xf32> into tensor<1x3x13x1xf32>
  %324 = tensor.empty() : tensor<1x3x13x13xf32>
  %325 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%323 : tensor<1x3x13x1xf32>) outs(%324 : tensor<1x3x13x13xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    linalg.yield %arg3 : f32
  } -> tensor<1x3x13x13xf32>
  %326 = tensor.empty() : tensor<1x3x13x13xf32>
  %327 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%319, %325 : tensor<1x3x13x13xf32>, tensor<1x3x13x13xf32>) outs(%326 : tensor<1x3x13x13xf32>) {
  ^bb0(%arg3: f32, %arg4: f32, %arg5: f32):
    %3531 = arith.divf %arg3, %arg4 : f32
    linalg.yield %3531 : f32
  } -> tensor<1x3x13x13xf32>
  %336 = tensor.expand_shape %335 [[0], [1], [2, 3]] output_shape [1, 13, 3, 16] : tensor<1x13x48xf32> into tensor<1x13x3x16xf32>
  %337 = tensor.empty() : tensor<1x3x13x16xf32>
  %338 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%336 : tensor<1x13x3x16xf32>) outs(%337 : tensor<1x3x13x16xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    linalg.yield %arg3 : f32
  } -> tensor<1x3x13x16xf32>
  %339 = tensor.collapse_shape %327 [[0, 1], [2], [3]] : tensor<1x3x13x13xf32> into tensor<3x13x13xf32>
  %340 = tensor.collapse_shape %338 [[0, 1], [2], [3]] : tensor<1x3x13x16xf32> into tensor<3x13x16xf32>
  %341 = tensor.empty() : tensor<3x13x16xf32>
  %cst_18 = arith.constant 0.000000e+00 : f32
  %342 = linalg.fill ins(%cst_18 : f32) outs(%341 : tensor<3x13x16xf32>) -> tensor<3x13x16xf32>
  %343 = linalg.batch_matmul ins(%339, %340 : tensor<3x13x13xf32>, tensor<3x13x16xf32>) outs(%342 : tensor<3x13x16xf32>) -> tensor<3x13x16xf32>
  %344 = tensor.expand_shape %343 [[0, 1], [2], [3]] output_shape [1, 3, 13, 16] : tensor<3x13x16xf32> into tensor<1x3x13x16xf32>
  %345 = tensor.empty() : tensor<1x13x3x16xf32>
  %346 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%344 : tensor<1x3x13x16xf32>) outs(%345 : tensor<1x13x3x16xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    linalg.yield %arg3 : f32
  } -> tensor<1x13x3x16xf32>
  %347 = tensor.collapse_shape %346 [[0, 1], [2, 3]] : tensor<1x13x3x16xf32> into tensor<13x48xf32>
  return %347 : tensor<13x48xf32>
}

// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: plaidml/mlir-generator@4457cbf8207f595fdc049b09954c5c515acb28bf:iree/mlir/linear.py.mlir (__inference_predict_670, %43 .. %60: tf.nn.softmax of the logits)
// Producer: TensorFlow -> MHLO -> linalg-on-tensors by IREE's iree-mhlo-to-linalg-on-tensors (the
//  TF/XLA path that StableHLO-to-linalg replaced), dumped with
//  --mlir-print-ir-after=iree-mhlo-to-linalg-on-tensors by iree/scripts/dump_linalg.sh of the same
//  commit (2022, model script iree/models/linear.py).
// Form: mhlo-to-linalg of tf.nn.softmax: linalg.generic reductions whose bodies are the converted
//  mhlo reduce regions (tensor.from_elements / tensor.extract of 0-d tensors around arith.maximumf /
//  arith.addf), -inf and -0.0 seeds, tensor.expand_shape to [..,1], explicit broadcast generics with
//  (d0,d1,0) maps, then elementwise subf, exp and divf generics
// Edits: the softmax at the end of @__inference_predict_670 cut out: the ReLU'd logits %42 are the
//  argument, %60 the result; renamed; tensor<1x1x10xf32> -> tensor<2x3x37xf32>, tensor<1x1x..> ->
//  tensor<2x3x..>; the dump's own damage repaired as the file's dump script caused it: its sed
//  `/\^bb/ s/ loc(fused.*)/)/` cut every block argument after the first, so the block arguments are
//  restored (one per ins/outs operand, named %argN, %argN+1, .. in order, typed by the operand's
//  element type), and a residual ` loc(unknown)` dropped; MLIR syntax of 2022 brought to MLIR 22:
//  linalg.init_tensor [..] : T -> tensor.empty() : T, arith.maxf -> arith.maximumf, output_shape
//  added to tensor.expand_shape (the repair is tools-free and mechanical).
// Semantics: softmax over dimension 2 of tensor<2x3x37xf32>.

// CHECK-LABEL: func.func @iree_mhlo_tf_mlp_softmax(
// CHECK-NOT: math.exp
// CHECK: softmax.softmax ins(%{{.*}} : tensor<2x3x37xf32>) outs(%{{.*}}) dimension(2)
// CHECK-NOT: math.exp
// CHECK: return
func.func @iree_mhlo_tf_mlp_softmax(%42: tensor<2x3x37xf32>) -> tensor<2x3x37xf32> {
  %cst_5 = arith.constant 0xFF800000 : f32
  %43 = tensor.empty() : tensor<2x3xf32>
  %44 = linalg.fill ins(%cst_5 : f32) outs(%43 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %45 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%42 : tensor<2x3x37xf32>) outs(%44 : tensor<2x3xf32>) {
  ^bb0(%arg1: f32, %arg2: f32):
    %61 = tensor.from_elements %arg2 : tensor<f32>
    %62 = tensor.from_elements %arg1 : tensor<f32>
    %63 = tensor.extract %61[] : tensor<f32>
    %64 = tensor.extract %62[] : tensor<f32>
    %65 = arith.maximumf %63, %64 : f32
    %66 = tensor.from_elements %65 : tensor<f32>
    %67 = tensor.extract %66[] : tensor<f32>
    linalg.yield %67 : f32
  } -> tensor<2x3xf32>
  %46 = tensor.expand_shape %45 [[0], [1, 2]] output_shape [2, 3, 1] : tensor<2x3xf32> into tensor<2x3x1xf32>
  %47 = tensor.empty() : tensor<2x3x37xf32>
  %48 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%46 : tensor<2x3x1xf32>) outs(%47 : tensor<2x3x37xf32>) {
  ^bb0(%arg1: f32, %arg2: f32):
    linalg.yield %arg1 : f32
  } -> tensor<2x3x37xf32>
  %49 = tensor.empty() : tensor<2x3x37xf32>
  %50 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%42, %48 : tensor<2x3x37xf32>, tensor<2x3x37xf32>) outs(%49 : tensor<2x3x37xf32>) {
  ^bb0(%arg1: f32, %arg2: f32, %arg3: f32):
    %61 = arith.subf %arg1, %arg2 : f32
    linalg.yield %61 : f32
  } -> tensor<2x3x37xf32>
  %51 = tensor.empty() : tensor<2x3x37xf32>
  %52 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%50 : tensor<2x3x37xf32>) outs(%51 : tensor<2x3x37xf32>) {
  ^bb0(%arg1: f32, %arg2: f32):
    %61 = math.exp %arg1 : f32
    linalg.yield %61 : f32
  } -> tensor<2x3x37xf32>
  %cst_6 = arith.constant -0.000000e+00 : f32
  %53 = tensor.empty() : tensor<2x3xf32>
  %54 = linalg.fill ins(%cst_6 : f32) outs(%53 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %55 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%52 : tensor<2x3x37xf32>) outs(%54 : tensor<2x3xf32>) {
  ^bb0(%arg1: f32, %arg2: f32):
    %61 = tensor.from_elements %arg2 : tensor<f32>
    %62 = tensor.from_elements %arg1 : tensor<f32>
    %63 = tensor.extract %61[] : tensor<f32>
    %64 = tensor.extract %62[] : tensor<f32>
    %65 = arith.addf %63, %64 : f32
    %66 = tensor.from_elements %65 : tensor<f32>
    %67 = tensor.extract %66[] : tensor<f32>
    linalg.yield %67 : f32
  } -> tensor<2x3xf32>
  %56 = tensor.expand_shape %55 [[0], [1, 2]] output_shape [2, 3, 1] : tensor<2x3xf32> into tensor<2x3x1xf32>
  %57 = tensor.empty() : tensor<2x3x37xf32>
  %58 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%56 : tensor<2x3x1xf32>) outs(%57 : tensor<2x3x37xf32>) {
  ^bb0(%arg1: f32, %arg2: f32):
    linalg.yield %arg1 : f32
  } -> tensor<2x3x37xf32>
  %59 = tensor.empty() : tensor<2x3x37xf32>
  %60 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%52, %58 : tensor<2x3x37xf32>, tensor<2x3x37xf32>) outs(%59 : tensor<2x3x37xf32>) {
  ^bb0(%arg1: f32, %arg2: f32, %arg3: f32):
    %61 = arith.divf %arg1, %arg2 : f32
    linalg.yield %61 : f32
  } -> tensor<2x3x37xf32>
  return %60 : tensor<2x3x37xf32>
}

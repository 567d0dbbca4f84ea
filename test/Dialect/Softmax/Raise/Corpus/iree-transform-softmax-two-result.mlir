// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: iree-org/iree@604058c545d836d6b0277c7b2f79c63fb116eb9f:tests/transform_dialect/cuda/softmax_v2.mlir (softmax)
// Form: IREE test input: exp(x - max) and sum(exp) as the two results of one reduction generic,
//  divf; -FLT_MAX seed
// Edits: renamed; the constant input and optimization barrier removed (%input is the argument);
//  the flow.dispatch.region wrapper removed (its body is the function body, flow.return ->
//  return); the !tmp_tensor_t/!in_tensor_t/!out_tensor_t type aliases of the file spelled out;
//  arith.maxf -> arith.maximumf (the 2023 file predates the rename); 16x128x128 -> 2x5x37, 16x128
//  -> 2x5.
// Semantics: softmax over dimension 2 of tensor<2x5x37xf32>.

// CHECK-LABEL: func.func @iree_softmax_two_result_exp_sum(
// CHECK-NOT: math.exp
// CHECK: softmax.softmax ins(%{{.*}} : tensor<2x5x37xf32>) outs(%{{.*}}) dimension(2)
// CHECK-NOT: math.exp
// CHECK: return

func.func @iree_softmax_two_result_exp_sum(%input: tensor<2x5x37xf32>) -> tensor<2x5x37xf32> {
  %cst_0 = arith.constant 0.0 : f32
  %cst_1 = arith.constant 1.0 : f32
  %cst_min = arith.constant -3.40282347E+38 : f32
  %input_max_empty = tensor.empty() : tensor<2x5xf32>
  %input_max_filled = linalg.fill ins(%cst_min : f32)
    outs(%input_max_empty : tensor<2x5xf32>) -> tensor<2x5xf32>
  %input_max = linalg.generic
    {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
                      affine_map<(d0, d1, d2) -> (d0, d1)>],
                      iterator_types = ["parallel", "parallel", "reduction"]}
   ins(%input : tensor<2x5x37xf32>)
  outs(%input_max_filled : tensor<2x5xf32>) {
    ^bb0(%arg0: f32, %arg1: f32):
      %max = arith.maximumf %arg0, %arg1 : f32
      linalg.yield %max : f32
    } -> tensor<2x5xf32>

  // This has been fused manually to avoid the fusion on tensors pass and reduce noise atm.
  %exps_empty = tensor.empty() : tensor<2x5x37xf32>
  %exps_sum_empty = tensor.empty() : tensor<2x5xf32>
  %exps_sum_filled = linalg.fill ins(%cst_0 : f32)
    outs(%exps_sum_empty : tensor<2x5xf32>) -> tensor<2x5xf32>
  %exps, %exps_sum = linalg.generic
    {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
                      affine_map<(d0, d1, d2) -> (d0, d1)>,
                      affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
                      affine_map<(d0, d1, d2) -> (d0, d1)>],
                      iterator_types = ["parallel", "parallel", "reduction"]}
     ins(%input, %input_max : tensor<2x5x37xf32>, tensor<2x5xf32>)
    outs(%exps_empty, %exps_sum_filled : tensor<2x5x37xf32>, tensor<2x5xf32>) {
      ^bb0(%arg0: f32, %arg1: f32, %arg2: f32, %arg3: f32):
        %sub = arith.subf %arg0, %arg1 : f32
        %exp = math.exp %sub : f32
        %add = arith.addf %exp, %arg3 : f32
        linalg.yield %exp, %add : f32, f32
      } -> (tensor<2x5x37xf32>, tensor<2x5xf32>)

  %res_empty = tensor.empty() : tensor<2x5x37xf32>
  %res = linalg.generic
    {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
                      affine_map<(d0, d1, d2) -> (d0, d1)>,
                      affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
                      iterator_types = ["parallel", "parallel", "parallel"]}
     ins(%exps, %exps_sum : tensor<2x5x37xf32>, tensor<2x5xf32>)
    outs(%res_empty : tensor<2x5x37xf32>) {
      ^bb0(%arg0: f32, %arg1: f32, %arg2: f32):
        // %10 = arith.divf %cst_1, %arg1 : f32
        // %11 = arith.mulf %arg0, %10 : f32
        %div = arith.divf %arg0, %arg1 : f32
        linalg.yield %div : f32
      } -> tensor<2x5x37xf32>
  return %res : tensor<2x5x37xf32>
}

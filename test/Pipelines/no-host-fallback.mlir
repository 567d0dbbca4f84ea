// A GPU pipeline never turns a softmax- or attention-shaped computation it
// cannot map into host code without a word: softmax-check-no-host-fallback
// stops it, unless allow-host-code=true.
// RUN: softmax-opt %s --softmax-raise --softmax-to-nvvm -split-input-file -verify-diagnostics
// RUN: not softmax-opt %s --softmax-to-rocdl -split-input-file 2>&1 | FileCheck %s --check-prefix=ROCDL
// RUN: softmax-opt %s --softmax-to-nvvm="allow-host-code=true" -split-input-file | FileCheck %s --check-prefix=ALLOW
// RUN: softmax-opt %s --softmax-to-rocdl="allow-host-code=true" -split-input-file | FileCheck %s --check-prefix=ALLOW

// ROCDL: error: softmax-to-rocdl would compile this softmax-shaped computation (math.exp whose result is reduced) for the host
// ROCDL: error: softmax-to-rocdl would compile this attention-shaped computation (math.exp of a matmul's result) for the host

// With the option, each function is host code: no kernel, no error.
// ALLOW-NOT: gpu.binary
// ALLOW-LABEL: llvm.func @sum_of_exp(
// ALLOW: llvm.intr.exp
// ALLOW-NOT: gpu.binary
// ALLOW-LABEL: llvm.func @unnormalized_scores(
// ALLOW: llvm.intr.exp
// ALLOW-NOT: gpu.binary

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// The sum of exps of a row (no max, no log): softmax-raise has nothing to
// raise it to.
func.func @sum_of_exp(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %t = tensor.empty() : tensor<4x8xf32>
  // expected-error @+1 {{softmax-to-nvvm would compile this softmax-shaped computation (math.exp whose result is reduced) for the host, not into a GPU kernel (softmax-raise did not raise it); pass allow-host-code=true to the pipeline to allow host code}}
  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%t : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %0 = math.exp %a : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  %i = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<4xf32>) -> tensor<4xf32>
  // expected-note @+1 {{the reduction}}
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%e : tensor<4x8xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// exp(Q K^T) without a normalization: attention-shaped, not attention.
func.func @unnormalized_scores(%q: tensor<4x16xf32>, %k: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%i : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-note @+1 {{the matmul}}
  %s = linalg.matmul ins(%q, %k : tensor<4x16xf32>, tensor<16x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  %t = tensor.empty() : tensor<4x8xf32>
  // expected-error @+1 {{softmax-to-nvvm would compile this attention-shaped computation (math.exp of a matmul's result) for the host, not into a GPU kernel (softmax-raise did not raise it); pass allow-host-code=true to the pipeline to allow host code}}
  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<4x8xf32>) outs(%t : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %0 = math.exp %a : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}

// RUN: softmax-opt %s --softmax-select-algorithm="attention-unified-max=5.0" -verify-diagnostics | FileCheck %s
// RUN: softmax-opt %s --softmax-select-algorithm | FileCheck %s --check-prefix=NONE
// RUN: not softmax-opt %s --softmax-select-algorithm="attention-unified-max=inf" 2>&1 | FileCheck %s --check-prefix=INF
// RUN: not softmax-opt %s --softmax-select-algorithm="attention-unified-max=big" 2>&1 | FileCheck %s --check-prefix=WORD

// attention-unified-max gives every attention op the unified max (and
// replaces a phi it had); a thresholded op keeps the online max and says
// so. Without the option attention is left as it is.
// CHECK-LABEL: func.func @decode
// CHECK:       softmax.attention {{.*}} masked(zero) algorithm(unified_max, phi = 5.000000e+00)
// CHECK:       softmax.attention {{.*}} masked(nan) causal algorithm(unified_max, phi = 5.000000e+00)
// CHECK:       softmax.attention {{.*}} skip(lambda %{{.*}} : f32, tile [1, 16]){{$}}
// NONE-LABEL:  func.func @decode
// NONE:        softmax.attention {{.*}} masked(zero){{$}}
// NONE:        softmax.attention {{.*}} masked(nan) causal algorithm(unified_max, phi = -1.000000e+00){{$}}
// INF: softmax-select-algorithm: attention-unified-max must be a finite number (phi), not 'inf'
// WORD: softmax-select-algorithm: attention-unified-max must be a finite number (phi), not 'big'
func.func @decode(%q: tensor<1x4x1x16xf32>, %k: tensor<1x2x64x16xf32>,
                  %t: f32) -> (tensor<1x4x1x16xf32>, tensor<1x4x1x16xf32>, tensor<1x4x1x16xf32>) {
  %a = softmax.attention ins(%q, %k, %k : tensor<1x4x1x16xf32>, tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>)
      outs(%q : tensor<1x4x1x16xf32>) masked(zero)
  %b = softmax.attention ins(%q, %k, %k : tensor<1x4x1x16xf32>, tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>)
      outs(%q : tensor<1x4x1x16xf32>) masked(nan) causal
      algorithm(unified_max, phi = -1.0)
  // expected-warning @+1 {{keeps the online max: has a skip threshold, whose rule compares each tile with the running max}}
  %c = softmax.attention ins(%q, %k, %k : tensor<1x4x1x16xf32>, tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>)
      outs(%q : tensor<1x4x1x16xf32>) masked(zero) skip(lambda %t : f32, tile [1, 16])
  return %a, %b, %c : tensor<1x4x1x16xf32>, tensor<1x4x1x16xf32>, tensor<1x4x1x16xf32>
}

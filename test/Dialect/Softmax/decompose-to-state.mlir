// RUN: softmax-opt %s --softmax-decompose="to-state=true" -split-input-file | FileCheck %s
// RUN: softmax-opt %s --softmax-decompose="to-state=true reduction-tile-size=64" -split-input-file | FileCheck %s --check-prefix=TILED
// RUN: softmax-opt %s --softmax-decompose="to-state=true algorithm-target=gpu" -split-input-file | FileCheck %s --check-prefix=GPU
// RUN: not softmax-opt %s --softmax-decompose="reduction-tile-size=-4" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not softmax-opt %s --softmax-decompose="algorithm-target=tpu" 2>&1 | FileCheck %s --check-prefix=BAD-TARGET
// NEGATIVE: error: softmax-decompose: reduction-tile-size must be positive or 0, got -4
// BAD-TARGET: error: softmax-decompose: algorithm-target must be cpu or gpu, not 'tpu'

// CHECK-LABEL: func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<4x1000xbf16>, %[[I:.*]]: tensor<4x1000xbf16>)
// The identity state: -FLT_MAX, not -inf, so that -inf - -inf never occurs.
// CHECK-DAG: %[[LOWEST:.*]] = arith.constant -3.40282347E+38 : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[M0:.*]] = linalg.fill ins(%[[LOWEST]] : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK-DAG: %[[L0:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK-DAG: %[[C0:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK: %[[M:.*]], %[[L:.*]], %{{.*}} = softmax.partial ins(%[[X]] : tensor<4x1000xbf16>) outs(%[[M0]], %[[L0]], %[[C0]] : tensor<4xf32>) dimension(1) algorithm(online)
// CHECK: softmax.normalize ins(%[[X]], %[[M]], %[[L]] : tensor<4x1000xbf16>, tensor<4xf32>) outs(%[[I]] : tensor<4x1000xbf16>) dimension(1) kind(softmax) state(max) masked(zero)

// The state is the loop-carried destination of the reduction loop; the
// last tile (1000 = 15 * 64 + 40) is partial.
// TILED-LABEL: func @softmax
// The Kahan compensation of the sum is carried too.
// TILED: %[[STATE:.*]]:3 = scf.for %[[IV:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[M:.*]] = %{{.*}}, %[[L:.*]] = %{{.*}}, %[[C:.*]] = %{{.*}}) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
// TILED:   %[[SIZE:.*]] = affine.min
// TILED:   %[[SLICE:.*]] = tensor.extract_slice %{{.*}}[0, %[[IV]]] [4, %[[SIZE]]] [1, 1] : tensor<4x1000xbf16> to tensor<4x?xbf16>
// TILED:   softmax.partial ins(%[[SLICE]] : tensor<4x?xbf16>) outs(%[[M]], %[[L]], %[[C]] : tensor<4xf32>) dimension(1) algorithm(online)
// TILED: scf.for
// TILED:   softmax.normalize ins(%{{.*}}, %[[STATE]]#0, %[[STATE]]#1 : tensor<4x?xbf16>, tensor<4xf32>)
func.func @softmax(%x: tensor<4x1000xbf16>, %i: tensor<4x1000xbf16>) -> tensor<4x1000xbf16> {
  %0 = softmax.softmax ins(%x : tensor<4x1000xbf16>) outs(%i : tensor<4x1000xbf16>) dimension(1) masked(zero) algorithm(online)
  return %0 : tensor<4x1000xbf16>
}

// -----

// exp_pair yields an exponent state; logsumexp ends in softmax.lse. An
// explicit acc_type sets the state type.
// CHECK-LABEL: func @logsumexp
// CHECK: %[[M:.*]], %[[L:.*]], %{{.*}} = softmax.partial ins(%{{.*}} : tensor<?x7xf32>) outs(%{{.*}}, %{{.*}}, %{{.*}} : tensor<?xf64>) dimension(1) algorithm(exp_pair)
// CHECK: softmax.lse ins(%[[M]], %[[L]] : tensor<?xf64>) outs(%{{.*}} : tensor<?xf32>) state(exponent) masked(nan)
func.func @logsumexp(%x: tensor<?x7xf32>, %i: tensor<?xf32>) -> tensor<?xf32> {
  %0 = softmax.logsumexp ins(%x : tensor<?x7xf32>) outs(%i : tensor<?xf32>) dimension(1) masked(nan) algorithm(exp_pair) {acc_type = f64}
  return %0 : tensor<?xf32>
}

// -----

// auto gets the CPU cost model's choice: a 512-byte row is three_pass;
// with algorithm-target=gpu, the GPU's: online.
// CHECK-LABEL: func @auto
// CHECK: softmax.partial {{.*}} dimension(0) algorithm(three_pass)
// CHECK: softmax.normalize {{.*}} dimension(0) kind(log_softmax) state(max) masked(zero)
// GPU-LABEL: func @auto
// GPU: softmax.partial {{.*}} dimension(0) algorithm(online)
func.func @auto(%x: tensor<128x3xf32>, %i: tensor<128x3xf32>) -> tensor<128x3xf32> {
  %0 = softmax.log_softmax ins(%x : tensor<128x3xf32>) outs(%i : tensor<128x3xf32>) dimension(0) masked(zero)
  return %0 : tensor<128x3xf32>
}

// -----

// A reduction over no row is not tiled: there is nothing to split, and the
// tiled slices (offset 0 of a size-0 dimension) failed extract_slice's
// bounds check.
// TILED-LABEL: func @no_rows
// TILED-NOT: scf.for
// TILED: softmax.partial ins(%{{.*}} : tensor<0x?xf32>)
func.func @no_rows(%x: tensor<0x?xf32>, %m: tensor<0xf32>, %l: tensor<0xf32>) -> (tensor<0xf32>, tensor<0xf32>) {
  %a:3 = softmax.partial ins(%x : tensor<0x?xf32>) outs(%m, %l, %l : tensor<0xf32>) dimension(1) algorithm(online)
  return %a#0, %a#1 : tensor<0xf32>, tensor<0xf32>
}

// RUN: softmax-opt %s --softmax-decompose -split-input-file | FileCheck %s

// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[STATE:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func @partial_three_pass
// CHECK-SAME: (%[[X:.*]]: tensor<4x128xbf16>, %[[M0:.*]]: tensor<4xf32>, %[[L0:.*]]: tensor<4xf32>, %[[C0:.*]]: tensor<4xf32>)
// M = max(m0, max x), seeded with the incoming max:
// CHECK: %[[M:.*]] = linalg.generic {indexing_maps = [#[[ROW]], #[[STATE]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<4x128xbf16>) outs(%[[M0]] : tensor<4xf32>)
// CHECK:   %[[XF:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK:   arith.maximumf %{{.*}}, %[[XF]] : f32
// l0 * exp(m0 - M) and c0 * exp(m0 - M):
// CHECK: %[[R:.*]]:2 = linalg.generic {{.*}} ins(%[[M0]], %[[M]] : tensor<4xf32>, tensor<4xf32>) outs(%[[L0]], %[[C0]] : tensor<4xf32>, tensor<4xf32>)
// CHECK:   arith.subf
// CHECK:   math.exp
// CHECK:   arith.mulf
// CHECK:   arith.mulf
// + sum exp(x - M), the second read of the row, with Kahan compensation:
// CHECK: %[[L:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[M]] : tensor<4x128xbf16>, tensor<4xf32>) outs(%[[R]]#0, %[[R]]#1 : tensor<4xf32>, tensor<4xf32>)
// CHECK: ^bb0(%{{.*}}: bf16, %{{.*}}: f32, %[[SUM:.*]]: f32, %[[COMP:.*]]: f32):
// CHECK:   %[[E:.*]] = math.exp
// y = e - c; t = sum + y; c' = (t - sum) - y
// CHECK:   %[[Y:.*]] = arith.subf %[[E]], %[[COMP]] : f32
// CHECK:   %[[T:.*]] = arith.addf %[[SUM]], %[[Y]] : f32
// CHECK:   %[[TS:.*]] = arith.subf %[[T]], %[[SUM]] : f32
// CHECK:   %[[CN:.*]] = arith.subf %[[TS]], %[[Y]] : f32
// CHECK:   linalg.yield %[[T]], %[[CN]] : f32, f32
// CHECK: return %[[M]], %[[L]]#0, %[[L]]#1
func.func @partial_three_pass(%x: tensor<4x128xbf16>, %m0: tensor<4xf32>, %l0: tensor<4xf32>, %c0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %m, %l, %c = softmax.partial ins(%x : tensor<4x128xbf16>) outs(%m0, %l0, %c0 : tensor<4xf32>) dimension(1) algorithm(three_pass)
  return %m, %l, %c : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func @partial_online
// One read of the row; the third state is the sum's Kahan compensation:
// CHECK: %[[R:.*]]:3 = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<4x?xf32>) outs(%{{.*}}, %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[M:.*]]: f32, %[[L:.*]]: f32, %[[C:.*]]: f32):
// m' = max(m, x)
// CHECK:   %[[MN:.*]] = arith.maximumf %[[M]], %[[X]] : f32
// l' = l * exp(m - m') + exp(x - m'), the compensation rescaled with l
// CHECK:   %[[D:.*]] = arith.subf %[[M]], %[[MN]] : f32
// CHECK:   %[[S:.*]] = math.exp %[[D]] : f32
// CHECK:   %[[LS:.*]] = arith.mulf %[[L]], %[[S]] : f32
// CHECK:   %[[CS:.*]] = arith.mulf %[[C]], %[[S]] : f32
// CHECK:   %[[D2:.*]] = arith.subf %[[X]], %[[MN]] : f32
// CHECK:   %[[E:.*]] = math.exp %[[D2]] : f32
// CHECK:   %[[Y:.*]] = arith.subf %[[E]], %[[CS]] : f32
// CHECK:   %[[LN:.*]] = arith.addf %[[LS]], %[[Y]] : f32
// CHECK:   linalg.yield %[[MN]], %[[LN]], %{{.*}} : f32, f32, f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]#0, %[[R]]#1, %[[R]]#2
func.func @partial_online(%x: tensor<4x?xf32>, %m0: tensor<4xf32>, %l0: tensor<4xf32>, %c0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %m, %l, %c = softmax.partial ins(%x : tensor<4x?xf32>) outs(%m0, %l0, %c0 : tensor<4xf32>) dimension(1) algorithm(online)
  return %m, %l, %c : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func @partial_exp_pair
// CHECK-DAG: %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// CHECK-DAG: %[[LN2HI:.*]] = arith.constant 0.693147182 : f32
// CHECK-DAG: %[[LN2LO:.*]] = arith.constant -1.90465421E-9 : f32
// CHECK-DAG: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: ^bb0(%[[X:.*]]: f32, %[[K:.*]]: f32, %[[A:.*]]: f32, %[[C:.*]]: f32):
// k = round(x log2 e); a = exp(x - k ln 2), ln 2 applied in two fmas
// CHECK:   %[[XL:.*]] = arith.mulf %[[X]], %[[LOG2E]] : f32
// CHECK:   %[[KX:.*]] = math.roundeven %[[XL]] : f32
// CHECK:   %[[NK:.*]] = arith.negf %[[KX]] : f32
// CHECK:   %[[R1:.*]] = math.fma %[[NK]], %[[LN2HI]], %[[X]] : f32
// CHECK:   %[[R2:.*]] = math.fma %[[NK]], %[[LN2LO]], %[[R1]] : f32
// CHECK:   %[[AX:.*]] = math.exp %[[R2]] : f32
// K' = max(K, k); A' = A * 2^(K - K') + a * 2^(k - K')
// CHECK:   %[[KN:.*]] = arith.maximumf %[[K]], %[[KX]] : f32
// CHECK:   arith.subf %[[K]], %[[KN]]
// CHECK:   math.exp2
// CHECK:   arith.subf %[[KX]], %[[KN]]
// CHECK:   math.exp2
// a -inf element leaves the state as it is
// CHECK:   %[[MASK:.*]] = arith.cmpf oeq, %[[X]], %[[NINF]] : f32
// CHECK:   %[[KR:.*]] = arith.select %[[MASK]], %[[K]], %[[KN]] : f32
// CHECK:   %[[AR:.*]] = arith.select %[[MASK]], %[[A]], %{{.*}} : f32
// CHECK:   %[[CR:.*]] = arith.select %[[MASK]], %[[C]], %{{.*}} : f32
// CHECK:   linalg.yield %[[KR]], %[[AR]], %[[CR]] : f32, f32, f32
func.func @partial_exp_pair(%x: tensor<4x128xf32>, %m0: tensor<4xf32>, %l0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %m, %l, %c = softmax.partial ins(%x : tensor<4x128xf32>) outs(%m0, %l0, %l0 : tensor<4xf32>) dimension(1) algorithm(exp_pair)
  return %m, %l : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func @normalize_softmax
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<4x128xf32>, tensor<4xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<4x128xbf16>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[M:.*]]: f32, %[[L:.*]]: f32, %{{.*}}: bf16):
// y = exp(x - m) / l
// CHECK:   %[[D:.*]] = arith.subf %[[X]], %[[M]] : f32
// CHECK:   %[[E:.*]] = math.exp %[[D]] : f32
// CHECK:   %[[Y:.*]] = arith.divf %[[E]], %[[L]] : f32
// a zero sum is a fully masked row: masked(zero) writes 0
// CHECK:   %[[MASK:.*]] = arith.cmpf oeq, %[[L]], %[[ZERO:.*]] : f32
// CHECK:   %[[SEL:.*]] = arith.select %[[MASK]], %[[ZERO]], %[[Y]] : f32
// CHECK:   %[[T:.*]] = arith.truncf %[[SEL]] : f32 to bf16
// CHECK:   linalg.yield %[[T]] : bf16
func.func @normalize_softmax(%x: tensor<4x128xf32>, %m: tensor<4xf32>, %l: tensor<4xf32>, %i: tensor<4x128xbf16>) -> tensor<4x128xbf16> {
  %0 = softmax.normalize ins(%x, %m, %l : tensor<4x128xf32>, tensor<4xf32>) outs(%i : tensor<4x128xbf16>) dimension(1) kind(softmax) state(max) masked(zero)
  return %0 : tensor<4x128xbf16>
}

// -----

// CHECK-LABEL: func @normalize_log_softmax_exponent
// CHECK-DAG: %[[NAN:.*]] = arith.constant 0x7FC00000 : f32
// CHECK: ^bb0(%[[X:.*]]: f32, %[[K:.*]]: f32, %[[A:.*]]: f32, %{{.*}}: f32):
// y = (x - K ln 2) - log A
// CHECK:   %[[NK:.*]] = arith.negf %[[K]] : f32
// CHECK:   %[[R1:.*]] = math.fma %[[NK]], %{{.*}}, %[[X]] : f32
// CHECK:   %[[R2:.*]] = math.fma %[[NK]], %{{.*}}, %[[R1]] : f32
// CHECK:   %[[LOG:.*]] = math.log %[[A]] : f32
// CHECK:   %[[Y:.*]] = arith.subf %[[R2]], %[[LOG]] : f32
// masked(nan)
// CHECK:   %[[MASK:.*]] = arith.cmpf oeq, %[[A]], %{{.*}} : f32
// CHECK:   arith.select %[[MASK]], %[[NAN]], %[[Y]] : f32
func.func @normalize_log_softmax_exponent(%x: tensor<4x128xf32>, %m: tensor<4xf32>, %l: tensor<4xf32>, %i: tensor<4x128xf32>) -> tensor<4x128xf32> {
  %0 = softmax.normalize ins(%x, %m, %l : tensor<4x128xf32>, tensor<4xf32>) outs(%i : tensor<4x128xf32>) dimension(1) kind(log_softmax) state(exponent) masked(nan)
  return %0 : tensor<4x128xf32>
}

// -----

// CHECK-LABEL: func @lse
// CHECK-DAG: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: ^bb0(%[[M:.*]]: f32, %[[L:.*]]: f32, %{{.*}}: f32):
// m + log l; a zero sum gives -inf under masked(zero)
// CHECK:   %[[LOG:.*]] = math.log %[[L]] : f32
// CHECK:   %[[Y:.*]] = arith.addf %[[M]], %[[LOG]] : f32
// CHECK:   arith.select %{{.*}}, %[[NINF]], %[[Y]] : f32
func.func @lse(%m: tensor<4xf32>, %l: tensor<4xf32>, %i: tensor<4xf32>) -> tensor<4xf32> {
  %0 = softmax.lse ins(%m, %l : tensor<4xf32>) outs(%i : tensor<4xf32>) state(max) masked(zero)
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @merge
// CHECK: %[[S:.*]]:2 = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>)
// M = max(m1, m2); l = l1 * 2^(m1 - M) + l2 * 2^(m2 - M)
// CHECK:   arith.maximumf
// CHECK:   math.exp2
// CHECK:   math.exp2
// The accumulator rows, scaled the same way; the state broadcasts over d1.
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<?xf32>, tensor<?x16xf32>, tensor<?xf32>, tensor<?x16xf32>)
func.func @merge(%m1: tensor<?xf32>, %l1: tensor<?xf32>, %m2: tensor<?xf32>, %l2: tensor<?xf32>,
                 %o1: tensor<?x16xf32>, %o2: tensor<?x16xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?x16xf32>) {
  %m, %l, %o = softmax.merge (%m1, %l1), (%m2, %l2) acc(%o1, %o2 : tensor<?x16xf32>, tensor<?x16xf32> -> tensor<?x16xf32>) state(exponent) : tensor<?xf32>
  return %m, %l, %o : tensor<?xf32>, tensor<?xf32>, tensor<?x16xf32>
}

// RUN: softmax-opt %s -canonicalize -split-input-file | FileCheck %s

// Merging with the identity state (max -FLT_MAX or -inf, sum 0) is a no-op.
// CHECK-LABEL: func @merge_identity_rhs
// CHECK-SAME: (%[[M:.*]]: tensor<4xf32>, %[[L:.*]]: tensor<4xf32>)
// CHECK-NOT: softmax.merge
// CHECK: return %[[M]], %[[L]]
func.func @merge_identity_rhs(%m: tensor<4xf32>, %l: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %lowest = arith.constant dense<-3.40282347E+38> : tensor<4xf32>
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %0, %1 = softmax.merge (%m, %l), (%lowest, %zero) state(max) : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func @merge_identity_lhs_acc
// CHECK-SAME: (%[[M:.*]]: tensor<4xf32>, %[[L:.*]]: tensor<4xf32>, %[[O:.*]]: tensor<4x8xf32>)
// CHECK-NOT: softmax.merge
// CHECK: return %[[M]], %[[L]], %[[O]]
func.func @merge_identity_lhs_acc(%m: tensor<4xf32>, %l: tensor<4xf32>, %o: tensor<4x8xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4x8xf32>) {
  %ninf = arith.constant dense<0xFF800000> : tensor<4xf32>
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %zacc = arith.constant dense<0.0> : tensor<4x8xf32>
  %0, %1, %2 = softmax.merge (%ninf, %zero), (%m, %l)
      acc(%zacc, %o : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>) state(exponent) : tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4x8xf32>
}

// -----

// A non-zero accumulator is not the identity: the merge stays.
// CHECK-LABEL: func @merge_nonzero_acc
// CHECK: softmax.merge
func.func @merge_nonzero_acc(%m: tensor<4xf32>, %l: tensor<4xf32>, %o: tensor<4x8xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4x8xf32>) {
  %ninf = arith.constant dense<0xFF800000> : tensor<4xf32>
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %one = arith.constant dense<1.0> : tensor<4x8xf32>
  %0, %1, %2 = softmax.merge (%ninf, %zero), (%m, %l)
      acc(%one, %o : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>) state(max) : tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4x8xf32>
}

// -----

// A sum of zero is not the identity unless the max is the lowest value.
// CHECK-LABEL: func @merge_not_identity
// CHECK: softmax.merge
func.func @merge_not_identity(%m: tensor<4xf32>, %l: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %0, %1 = softmax.merge (%m, %l), (%zero, %zero) state(max) : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Folding an empty slice into a state leaves the state.
// CHECK-LABEL: func @partial_empty
// CHECK-SAME: (%{{.*}}: tensor<4x0xf32>, %[[M:.*]]: tensor<4xf32>, %[[L:.*]]: tensor<4xf32>)
// CHECK-NOT: softmax.partial
// CHECK: return %[[M]], %[[L]]
func.func @partial_empty(%x: tensor<4x0xf32>, %m: tensor<4xf32>, %l: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0, %1, %2 = softmax.partial ins(%x : tensor<4x0xf32>) outs(%m, %l, %l : tensor<4xf32>) dimension(1) algorithm(exp_pair)
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
